"The openai engine against fake OpenAI-compatible servers on 127.0.0.1: sampling per request, retries, errors, concurrency, prompt log-probabilities."
import asyncio, json, time
import pytest
from twentyq.backend import split_pair
from twentyq.players import get_backend
from twentyq.sampling import Backend, Sampling
from twentyq.serving import FakeServer, OpenAIBackend, ServerError, NoPromptLogprobs, local_tokenizer

pytestmark = pytest.mark.timeout(60)
FAST = dict(backoff=0.01, max_tries=3, timeout=2)
CHAT = [{"role": "system", "content": "You play 20 questions."}, {"role": "user", "content": "Ask a question."}]

def chat_reply(text): return {"choices": [{"message": {"role": "assistant", "content": text}}]}

def echo(path, body, n, delay=0):
    "A reply that spells out the request's sampling."
    k = {x: body.get(x) for x in ("seed", "temperature", "top_p", "top_k", "max_tokens")}
    return 200, chat_reply(f"{body['model']} {body['messages'][-1]['content']} {k}"), delay

def test_each_request_carries_its_own_sampling_and_the_key_from_the_environment(monkeypatch):
    monkeypatch.setenv("TWENTYQ_TEST_KEY", "sk-test-1")
    chats = [[{"role": "user", "content": w}] for w in ["cat", "dog", "eel"]]
    with FakeServer(echo) as srv:
        be = get_backend("srv-model", engine="openai", base_url=srv.url, api_key_env="TWENTYQ_TEST_KEY")
        assert isinstance(be, OpenAIBackend) and isinstance(be, Backend)
        got = be.generate(chats, Sampling(0.7, 0.9, 20, 8, seed=[11, 12, 13]))
        assert got == [f"srv-model {w} {{'seed': {s}, 'temperature': 0.7, 'top_p': 0.9, 'top_k': 20, 'max_tokens': 8}}"
                       for w, s in zip(["cat", "dog", "eel"], [11, 12, 13])]
        monkeypatch.setenv("TWENTYQ_TEST_KEY", "sk-test-2")          # read at each request, not at construction
        greedy = be.generate(chats[:2], Sampling(max_new_tokens=5, seed=4), enable_thinking=False)
        assert greedy[1].endswith("{'seed': 5, 'temperature': 0.0, 'top_p': 1.0, 'top_k': None, 'max_tokens': 5}")
        assert [a for _, _, a in srv.seen] == ["Bearer sk-test-1"] * 3 + ["Bearer sk-test-2"] * 2
        assert srv.seen[-1][1]["chat_template_kwargs"] == {"enable_thinking": False}
    assert "sk-test" not in repr(be.config()) + repr(vars(be))
    assert be.config() == dict(engine="openai", model="srv-model", base_url=[srv.url], api_key_env="TWENTYQ_TEST_KEY",
                               concurrency=32, timeout=60, max_tries=5)

def test_base_url_from_environment(monkeypatch):
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:9/v1/")
    assert OpenAIBackend("m").base_url == "http://127.0.0.1:9/v1"
    monkeypatch.delenv("OPENAI_BASE_URL")
    with pytest.raises(ValueError, match="No server for model 'm'.*OPENAI_BASE_URL"): OpenAIBackend("m")

def test_5xx_and_429_are_retried_then_succeed():
    codes = {1: 500, 2: 429, 3: 503}
    with FakeServer(lambda p, b, n: (codes[n], {"error": "busy"}, 0) if n in codes else echo(p, b, n)) as srv:
        got = OpenAIBackend("m", srv.url, backoff=0.01, max_tries=5).generate([[{"role": "user", "content": "hi"}]], Sampling(seed=[7]))
        assert got[0].startswith("m hi {'seed': 7") and srv.n == 4

@pytest.mark.parametrize("answer,why", [
    (lambda p, b, n: (500, {"error": "boom"}, 0), "HTTP 500"),
    (lambda p, b, n: (200, b"{not json", 0), "malformed reply (JSONDecodeError"),
    (lambda p, b, n: (200, {"choices": []}, 0), "malformed reply (IndexError"),
    (lambda p, b, n: echo(p, b, n, delay=1.0), "ReadTimeout"),
])
def test_a_request_that_keeps_failing_is_reported_clearly(answer, why):
    chats = [[{"role": "user", "content": "a"}], [{"role": "user", "content": "b"}]]
    with FakeServer(answer) as srv:
        be = OpenAIBackend("m", srv.url, backoff=0.01, max_tries=3, timeout=0.3)
        t = time.monotonic()
        with pytest.raises(ServerError) as ex: be.generate(chats, Sampling(seed=[21, 22]))
        assert time.monotonic() - t < 3
    msg = str(ex.value)
    i = int(msg.split("request ")[1][0])                  # the request reported: tried exactly three times
    assert sum(b["messages"][0]["content"] == "ab"[i] for _, b, _ in srv.seen) == 3
    assert "\n" not in msg and msg.startswith(f"Server {srv.url}/chat/completions (model 'm', request ")
    assert "seed 2" in msg and "failed after 3 tries: " + why in msg

def test_other_4xx_are_not_retried():
    with FakeServer(lambda p, b, n: (400, {"error": "max_tokens too large"}, 0)) as srv:
        with pytest.raises(ServerError, match=r"request 0, seed None\) failed after 1 try: HTTP 400 .*max_tokens too large.*not retried") as ex:
            OpenAIBackend("m", srv.url, **FAST).generate([[{"role": "user", "content": "a"}]], Sampling())
        assert srv.n == 1 and ex.value.status == 400

def test_no_server_is_reported_with_its_address():
    with FakeServer(echo) as srv: url = srv.url                  # closed: nothing listens there now
    with pytest.raises(ServerError, match=r"failed after 2 tries: ConnectError"):
        OpenAIBackend("m", url, backoff=0.01, max_tries=2).generate([[{"role": "user", "content": "a"}]], Sampling())

@pytest.mark.parametrize("concurrency", [1, 4])
def test_requests_overlap_up_to_the_concurrency(concurrency):
    chats = [[{"role": "user", "content": str(i)}] for i in range(8)]
    with FakeServer(lambda p, b, n: echo(p, b, n, delay=0.15)) as srv:
        got = OpenAIBackend("m", srv.url, concurrency=concurrency).generate(chats, Sampling(seed=list(range(8))))
        assert [g.split()[1] for g in got] == [str(i) for i in range(8)]   # replies in the chats' order
        assert srv.peak == concurrency

def test_generate_inside_a_running_event_loop():
    async def main(url): return OpenAIBackend("m", url).generate([[{"role": "user", "content": "x"}]], Sampling(seed=1))
    with FakeServer(echo) as srv: assert asyncio.run(main(srv.url))[0].startswith("m x {'seed': 1")

@pytest.fixture(scope="module")
def tok(): return local_tokenizer("smollm2-135m")

def vllm_like(tok):
    "A fake vLLM on a real tokenizer: /tokenize, /detokenize, and /v1/completions whose prompt log-prob of token t is -t/1e5."
    def answer(path, body, n):
        if path == "/tokenize" and "messages" in body:
            text = tok.apply_chat_template(body["messages"], tokenize=False, add_generation_prompt=body["add_generation_prompt"])
            return 200, {"tokens": tok(text, add_special_tokens=False).input_ids}, 0
        if path == "/tokenize": return 200, {"tokens": tok(body["prompt"], add_special_tokens=body["add_special_tokens"]).input_ids}, 0
        if path == "/detokenize": return 200, {"prompt": tok.decode(body["tokens"])}, 0
        if path == "/v1/completions":
            ids = body["prompt"]
            return 200, {"choices": [{"text": "x", "prompt_logprobs": [None] + [{str(t): {"logprob": -t / 1e5}} for t in ids[1:]]}]}, 0
        return 404, {"error": "no route"}, 0
    return answer

def test_logprobs_sum_the_continuation_split_as_split_pair(tok):
    with FakeServer(vllm_like(tok)) as srv:
        be = OpenAIBackend("m", srv.url)
        ctx = be.render(CHAT) + "Is the secret word"
        assert ctx == local_tokenizer("smollm2-135m").apply_chat_template(CHAT, tokenize=False, add_generation_prompt=True) + "Is the secret word"
        assert be.render(CHAT) == OpenAIBackend("m", srv.url, tokenizer="smollm2-135m").render(CHAT)
        pairs = [(ctx, " dog"), (ctx + " ", "elephant"), (ctx, "s dog?"), (ctx + " info", "rmation")]
        got = be.logprobs(*map(list, zip(*pairs)))
        want = [sum(-t / 1e5 for t in split_pair(tok, c, y)[1]) for c, y in pairs]
        assert got == pytest.approx(want, abs=1e-12) and len(set(got)) == 4
        sent = [b for p, b, _ in srv.seen if p == "/v1/completions"][0]
        assert sent["prompt_logprobs"] == 0 and sent["max_tokens"] == 1 and all(isinstance(t, int) for t in sent["prompt"])
    with pytest.raises(ValueError, match="empty continuation"): be.logprobs(["a"], [""])
    with pytest.raises(ValueError, match="differ in length"): be.logprobs(["a", "b"], [" c"])

def test_a_server_without_prompt_logprobs_says_to_score_in_process(tok):
    no_lp = lambda p, b, n: (200, {"choices": [{"text": "x", "logprobs": None}]}, 0) if p == "/v1/completions" else vllm_like(tok)(p, b, n)
    with FakeServer(no_lp) as srv:
        with pytest.raises(NoPromptLogprobs, match=r"Server http://127.0.0.1:\d+/v1 \(model 'm', logprobs pair 0\) gave no prompt log-probabilities.*in-process model \(engine 'hf'\)"):
            OpenAIBackend("m", srv.url, **FAST).logprobs(["Q:"], [" a"])
    with FakeServer(lambda p, b, n: (404, {"detail": "Not Found"}, 0)) as srv:      # no /tokenize: not vLLM
        with pytest.raises(NoPromptLogprobs, match=r"HTTP 404.*in-process model"): OpenAIBackend("m", srv.url, **FAST).logprobs(["Q:"], [" a"])
        with pytest.raises(ServerError, match=r"/tokenize \(model 'm', render\) failed after 1 try: HTTP 404"): OpenAIBackend("m", srv.url, **FAST).render(CHAT)
