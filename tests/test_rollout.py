"Resuming a killed run, and the CLI as a process; real games between the models are played in nbs/20_rollout.ipynb."
import os, signal, subprocess, time
from twentyq.runs import read_jsonl
from twentyq.rollout import play
from conftest import twentyq

def _no_seconds(games):
    "Each game's record without its wall time, in the order given."
    return [{k: v for k, v in g.items() if k != "seconds"} for g in games]

def _cmd(out):
    return twentyq("play", "--questioner", "smollm2-135m", "--secrets", "nouns_test", "--limit", "2",
            "--iterations", "1", "--max-questions", "2", "--questioner-max-tokens", "12", "--judge-max-tokens", "24",
            "--max-active", "1", "--out", out)

def test_killed_run_resumes_without_loss_or_duplicate(tmp_path):
    out = tmp_path/"run"
    env = {**os.environ, "HF_HUB_OFFLINE": "1"}
    proc = subprocess.Popen(_cmd(out), env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    deadline = time.time() + 300
    while time.time() < deadline and len(read_jsonl(out/"games.jsonl")) < 1: time.sleep(0.2)
    os.killpg(proc.pid, signal.SIGKILL); proc.wait()
    before = read_jsonl(out/"games.jsonl")
    assert len(before) == 1, "killed after the first game and before the last"
    subprocess.run(_cmd(out), env=env, check=True, capture_output=True)
    after = read_jsonl(out/"games.jsonl")
    ids = [g["game_id"] for g in after]
    assert len(ids) == len(set(ids)) == 2
    assert after[:len(before)] == before, "finished games are kept as they were"
    whole = play(questioner="smollm2-135m", secrets="nouns_test", limit=2, max_questions=2, questioner_max_tokens=12, judge_max_tokens=24, progress=False)
    by_id = lambda gs: sorted(_no_seconds(gs), key=lambda g: g["game_id"])   # records come in the order games finished
    assert by_id(after) == by_id(whole.to_dict("records")), "killed, resumed, one game at a time: the games of one uninterrupted batched run"

def test_cli_refuses_a_folder_of_another_config(tmp_path):
    subprocess.run(_cmd(tmp_path)[:-4] + ["--limit", "1", "--out", str(tmp_path)], check=True, capture_output=True)
    r = subprocess.run(_cmd(tmp_path)[:-4] + ["--limit", "1", "--out", str(tmp_path), "--seed", "5"], capture_output=True, text=True)
    assert r.returncode != 0 and "different config" in r.stderr and "seed" in r.stderr
