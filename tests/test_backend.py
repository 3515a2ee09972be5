"The backend seam: batched generation and continuation log-probabilities, on the real embedded models."
import pytest, torch
from twentyq.backend import split_pair, HFBackend, PrefixStore
from twentyq.players import get_backend
from twentyq.sampling import Sampling, Backend

@pytest.fixture(scope="module", params=["smollm2-135m", "gemma3-270m"])
def be(request): return get_backend(request.param, device="cpu", batch_size=3)

def _full_pass(be, context, continuation):
    "Reference: one forward pass over the whole sequence, no padding, no batching."
    c, y = split_pair(be.tok, context, continuation)
    with torch.no_grad(): lp = be.model(torch.tensor([c + y])).logits[0].float().log_softmax(-1)
    return sum(lp[len(c) - 1 + j, t].item() for j, t in enumerate(y))

def test_logprobs_equal_a_plain_forward_pass(be):
    chat = [{"role": "system", "content": "You play 20 questions."}, {"role": "user", "content": "Ask a question."}]
    ctx = be.render(chat) + "Is the secret word"
    conts = [" dog", " elephant", " dog?", " x", " information", " cat"]   # more than one batch, varied lengths
    got = be.logprobs([ctx] * len(conts), conts)
    for g, y in zip(got, conts): assert abs(g - _full_pass(be, ctx, y)) < 1e-4
    assert all(g < 0 for g in got)

def test_trailing_space_moves_to_continuation(be):
    c1, y1 = split_pair(be.tok, "Is the secret word ", "dog")
    c2, y2 = split_pair(be.tok, "Is the secret word", " dog")
    assert (c1, y1) == (c2, y2)
    assert be.tok.decode(y1).strip() == "dog"

def test_batched_generation_is_deterministic_and_seeded(be):
    assert isinstance(be, Backend)
    chats = [[{"role": "user", "content": f"Say a word about {w}."}] for w in ["cats", "the sea", "music", "bread"]]
    greedy = be.generate(chats, Sampling(max_new_tokens=8))
    assert len(greedy) == 4 and greedy == be.generate(chats, Sampling(max_new_tokens=8))
    s = Sampling(temperature=0.7, top_p=0.8, top_k=20, max_new_tokens=8, seed=1)
    assert be.generate(chats, s) == be.generate(chats, s)
    assert (greedy[0], be.generate(chats, s)[0]) == GOLDEN[be.name]   # golden: float32 on CPU, the pinned torch and transformers

GOLDEN = {"smollm2-135m": ("The cat. A creature of the night", "A cat is a majestic creature with the"),
          "gemma3-270m": ("Say a word about cats. mendatanguser", "Say a word about cats. mendatanguser")}   # a base model: it echoes

def test_batch_equals_single(be):
    "Left padding does not change a greedy reply."
    chats = [[{"role": "user", "content": "Is a whale a fish? Answer Yes or No."}],
             [{"role": "user", "content": "Name a colour that is also a fruit, and explain why briefly."}]]
    assert be.generate(chats, Sampling(max_new_tokens=6))[0] == be.generate(chats[:1], Sampling(max_new_tokens=6))[0]

def test_errors():
    with pytest.raises(ValueError, match="Unknown engine"): get_backend("smollm2-135m", engine="nope")
    be = get_backend("smollm2-135m", device="cpu")
    with pytest.raises(ValueError, match="empty continuation"): be.logprobs(["a"], [""])
    with pytest.raises(ValueError, match="differ in length"): be.logprobs(["a", "b"], [" c"])

def test_prefix_store_longest_prefix_and_budget():
    st = PrefixStore(100)
    a = list(range(50)); st.add(a, "a")
    assert st.match(a + [1, 2]) == ("a", 50) and st.match(a[:35] + [7]) == ("a", 35) and st.match([9] + a) == (None, 0)
    st.add(a[:20] + [77] * 30, "a2")                      # shares 20 tokens with `a`
    assert st.match(a[:20] + [77] * 3) == ("a2", 23) and st.match(a[:30]) == ("a", 30)
    st.add(list(range(100, 130)), "b")                    # over budget: the least recently used (`a2`) leaves
    assert st.tokens == 80 and st.match(a[:20] + [77] * 3) == ("a", 20) and st.match(list(range(100, 130))) == ("b", 30)

def _rounds(be, chats, n=2, k=6):
    out = []
    for r in range(n):
        ys = be.generate(chats, Sampling(max_new_tokens=k))
        out.append(ys)
        chats = [c + [{"role": "assistant", "content": y}, {"role": "user", "content": f"Say it in {r + 2} words."}] for c, y in zip(chats, ys)]
    return out

CHATS = [[{"role": "system", "content": "You answer Yes or No. The secret is 'apple'."}, {"role": "user", "content": q}]
         for q in ["Is it alive?", "Is it something you can eat or drink, and is it usually red?"]] + [[{"role": "user", "content": "Name a bird."}]]

def test_prefix_reuse_changes_no_greedy_reply(be):
    cached = HFBackend(be.name, device="cpu", batch_size=3)
    plain = HFBackend(be.name, device="cpu", batch_size=3, prefix_cache_tokens=0)
    assert cached.prefix_cache is not None and plain.prefix_cache is None
    got = _rounds(cached, CHATS)
    assert got == _rounds(plain, CHATS)
    assert cached.stats["computed_tokens"] < 0.7 * plain.stats["computed_tokens"], (cached.stats, plain.stats)
    assert cached.generate(CHATS[:1], Sampling(max_new_tokens=6)) == got[0][:1]   # a prompt held whole

def test_seeded_sampling_same_with_and_without_reuse(be):
    cached, plain = HFBackend(be.name, device="cpu"), HFBackend(be.name, device="cpu", prefix_cache_tokens=0)
    s = Sampling(temperature=0.7, top_p=0.8, top_k=20, max_new_tokens=6, seed=4)
    first = cached.generate(CHATS, s)
    assert cached.generate(CHATS, s) == first == plain.generate(CHATS, s)

def test_own_decoding_equals_model_generate(be):
    "The slab decoder gives model.generate's greedy tokens, on a batch of mixed lengths."
    prompts = [be.encode(be.render(c)) for c in CHATS]
    fresh = HFBackend(be.name, device="cpu", prefix_cache_tokens=0)
    ours, ref = fresh._generate_ids(prompts, Sampling(max_new_tokens=6)), fresh._hf_generate_ids(prompts, Sampling(max_new_tokens=6))
    stop = set(fresh.stop_ids)
    for o, r in zip(ours, ref):
        assert o == r[:len(o)] and all(t in stop for t in r[len(o):])   # model.generate pads after the end of turn
