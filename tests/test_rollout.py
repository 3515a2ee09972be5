"Resuming a killed run, and the CLI as a process; real games between the models are played in nbs/35_rollout.ipynb."
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

def _killed_then_resumed(cmd):
    "Run `cmd`, SIGKILL it once its first game is written, run it again: (the records before the resume, after it)."
    out = cmd[-1]
    env = {**os.environ, "HF_HUB_OFFLINE": "1"}
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    deadline = time.time() + 300
    while time.time() < deadline and len(read_jsonl(f"{out}/games.jsonl")) < 1: time.sleep(0.05)
    os.killpg(proc.pid, signal.SIGKILL); proc.wait()
    before = read_jsonl(f"{out}/games.jsonl")
    subprocess.run(cmd, env=env, check=True, capture_output=True)
    return before, read_jsonl(f"{out}/games.jsonl")

def _by_id(games):
    "Records in game-id order, without their wall time (records come in the order games finished)."
    return sorted(_no_seconds(games), key=lambda g: g["game_id"])

def test_killed_run_resumes_without_loss_or_duplicate(tmp_path):
    before, after = _killed_then_resumed(_cmd(tmp_path/"run"))
    assert len(before) == 1, "killed after the first game and before the last"
    ids = [g["game_id"] for g in after]
    assert len(ids) == len(set(ids)) == 2
    assert after[:len(before)] == before, "finished games are kept as they were"
    whole = play(questioner="smollm2-135m", secrets="nouns_test", limit=2, max_questions=2, questioner_max_tokens=12, judge_max_tokens=24, progress=False)
    assert _by_id(after) == _by_id(whole.to_dict("records")), "killed, resumed, one game at a time: the games of one uninterrupted batched run"

def test_killed_wordle_run_redraws_as_an_uninterrupted_one(tmp_path):
    """LMRL-Gym's Wordle draws the word it scores against anew after each guess: killed and resumed in another process,
    the optimal questioner's games (431, one at a time) draw what one uninterrupted batched run draws (the draw is seeded by game and turn)."""
    run = dict(game="wordle", protocol="lmrl", questioner="wordle", judge="wordle-judge")   # LMRL-Gym's 431 words
    before, after = _killed_then_resumed(twentyq("play", *[f"--{k.replace('_', '-')}={v}" for k, v in run.items()],
                                                  "--max-active", "1", "--out", str(tmp_path/"run")))
    whole = play(**run, progress=False).to_dict("records")
    assert 1 <= len(before) < len(whole), "killed after the first game and before the last"
    assert after[:len(before)] == before and len({g["game_id"] for g in after}) == len(after) == len(whole)
    assert _by_id(after) == _by_id(whole)
    assert any(len({t["drawn"] for t in g["turns"] if t.get("drawn")}) > 1 for g in whole), "a game redrew its word"

def test_cli_refuses_a_folder_of_another_config(tmp_path):
    subprocess.run(_cmd(tmp_path)[:-4] + ["--limit", "1", "--out", str(tmp_path)], check=True, capture_output=True)
    r = subprocess.run(_cmd(tmp_path)[:-4] + ["--limit", "1", "--out", str(tmp_path), "--seed", "5"], capture_output=True, text=True)
    assert r.returncode != 0 and "different config" in r.stderr and "seed" in r.stderr
