"Real games between the embedded models, runs on disk, and resuming a killed run."
import json, os, signal, subprocess, sys, time
from pathlib import Path
import pytest
from twentyq.runs import read_run, read_jsonl
from twentyq.rollout import play, RunConfigMismatch

SHORT = dict(limit=1, iterations=1, max_questions=2, questioner_max_tokens=16, judge_max_tokens=40, progress=False)

def _no_seconds(games):
    "Each game's record without its wall time, in the order given."
    return [{k: v for k, v in g.items() if k != "seconds"} for g in games]

@pytest.mark.parametrize("protocol", ["paper", "evals-shortlist", "lmrl"])
def test_real_game_between_embedded_models(protocol, tmp_path):
    secrets = {"paper": "nouns_test", "evals-shortlist": "evals207", "lmrl": "lmrl158"}[protocol]
    games = play(questioner="gemma3-270m", judge="smollm2-135m", protocol=protocol, secrets=secrets, out=str(tmp_path/"run"), **SHORT)
    g = games.iloc[0]
    assert g.questioner == "gemma3-270m" and g.judge == "smollm2-135m" and g.protocol == protocol
    assert 1 <= len(g.turns) and (g.won or g.n_questions == 2 or len(g.turns) == 4)   # evals: 2 x max_questions replies
    for t in g.turns:
        assert t["n_messages"] <= len(g.messages) and g.messages[t["n_messages"] - 2]["role"] == "assistant"
        if t["kind"] == "question" and t["judge_raw"] is not None and t["turn"] < len(g.turns):   # the questioner was told the parsed answer
            told = g.messages[t["n_messages"] - 1]["content"]
            assert told == t["answer"] if protocol == "paper" else told == t["answer"].lower() if protocol.startswith("evals") else t["answer"] in told
    assert read_run(tmp_path/"run")[0]["game_id"] == g.game_id
    cfg = json.loads((tmp_path/"run"/"config.json").read_text())
    assert cfg["protocol"] == protocol and len(cfg["secrets_sha256"]) == 64 and cfg["questioner_sampling"]["temperature"] == 0.7

def test_finished_run_is_not_replayed_and_other_config_refused(tmp_path):
    first = play(questioner="smollm2-135m", out=str(tmp_path), **SHORT)
    again = play(questioner="smollm2-135m", out=str(tmp_path), **SHORT)
    assert again.to_dict("records") == first.to_dict("records")
    with pytest.raises(RunConfigMismatch, match="max_questions"): play(questioner="smollm2-135m", out=str(tmp_path), **{**SHORT, "max_questions": 3})

def _cmd(out):
    return [str(Path(sys.executable).parent/"twentyq"), "play", "--questioner", "smollm2-135m", "--secrets", "nouns_test", "--limit", "3",
            "--iterations", "1", "--max-questions", "2", "--questioner-max-tokens", "12", "--judge-max-tokens", "24",
            "--max-active", "1", "--out", str(out)]

def test_killed_run_resumes_without_loss_or_duplicate(tmp_path):
    out = tmp_path/"run"
    env = {**os.environ, "HF_HUB_OFFLINE": "1"}
    proc = subprocess.Popen(_cmd(out), env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    deadline = time.time() + 300
    while time.time() < deadline and len(read_jsonl(out/"games.jsonl")) < 1: time.sleep(0.2)
    os.killpg(proc.pid, signal.SIGKILL); proc.wait()
    before = read_jsonl(out/"games.jsonl")
    assert 1 <= len(before) < 3, "killed after the first game and before the last"
    subprocess.run(_cmd(out), env=env, check=True, capture_output=True)
    after = read_jsonl(out/"games.jsonl")
    ids = [g["game_id"] for g in after]
    assert len(ids) == len(set(ids)) == 3
    assert after[:len(before)] == before, "finished games are kept as they were"
    whole = play(questioner="smollm2-135m", secrets="nouns_test", limit=3, max_questions=2, questioner_max_tokens=12, judge_max_tokens=24, progress=False)
    by_id = lambda gs: sorted(_no_seconds(gs), key=lambda g: g["game_id"])   # records come in the order games finished
    assert by_id(after) == by_id(whole.to_dict("records")), "killed, resumed, one game at a time: the games of one uninterrupted batched run"

def test_cli_refuses_a_folder_of_another_config(tmp_path):
    subprocess.run(_cmd(tmp_path)[:-4] + ["--limit", "1", "--out", str(tmp_path)], check=True, capture_output=True)
    r = subprocess.run(_cmd(tmp_path)[:-4] + ["--limit", "1", "--out", str(tmp_path), "--seed", "5"], capture_output=True, text=True)
    assert r.returncode != 0 and "different config" in r.stderr and "seed" in r.stderr

def test_prefix_cache_changes_no_game_and_is_not_config(tmp_path):
    kw = dict(SHORT, iterations=2)
    on = play(questioner="smollm2-135m", out=str(tmp_path/"on"), **kw)
    off = play(questioner="smollm2-135m", out=str(tmp_path/"off"), prefix_cache_tokens=0, **kw)
    assert _no_seconds(on.to_dict("records")) == _no_seconds(off.to_dict("records"))
    assert (tmp_path/"on"/"config.json").read_text() == (tmp_path/"off"/"config.json").read_text()

def test_bfloat16_run_records_dtype_and_cache_budget(tmp_path):
    games = play(questioner="smollm2-135m", out=str(tmp_path), dtype="bfloat16", prefix_cache_tokens=4096, **SHORT)
    cfg = json.loads((tmp_path/"config.json").read_text())
    assert (cfg["dtype"], cfg["prefix_cache_tokens"]) == ("bfloat16", 4096)
    assert len(games) == 1 and games.iloc[0].messages[-1]["content"]
    with pytest.raises(RunConfigMismatch, match="dtype: folder has 'bfloat16', command has 'float32'"):
        play(questioner="smollm2-135m", out=str(tmp_path), dtype="float32", prefix_cache_tokens=4096, **SHORT)
    with pytest.raises(RunConfigMismatch, match="prefix_cache_tokens"):
        play(questioner="smollm2-135m", out=str(tmp_path), dtype="bfloat16", **SHORT)
    with pytest.raises(RunConfigMismatch, match="max_active: folder has 256, command has 1"):
        play(questioner="smollm2-135m", out=str(tmp_path), dtype="bfloat16", prefix_cache_tokens=4096, max_active=1, **SHORT)
