"""GRPO on whole games with SmolLM2 against the knowledge judge. The tiny main job's two trainings (conftest's `tiny_job`: GRPO with
the belief term, ΔBelief-RL's turn credit, both in micro-batches of one game) show the records and the changed weights, and each
is taken again here in one pass, for the same update; the turn credit's whole step, rerun for two steps, resumes its
checkpoint; a refused option; two processes."""
import json, os, socket, subprocess, sys
from pathlib import Path
import numpy as np, pytest, torch
from dataclasses import fields
from twentyq.training.grpo import grpo, weights_sha256
from twentyq.training.grpo_spec import GRPOSpec
from twentyq.engines.models import load_model
from twentyq.runs import read_jsonl
from twentyq.training.rewards import turn_rewards, turn_advantages, cia_reward_weights
from conftest import twentyq

CIA = dict(secrets="nouns_train", limit=2, secrets_per_step=2, games_per_secret=2, max_questions=2, questioner_max_tokens=12, protocol="cia",
           reward="cia", credit="turn", lr=1e-4, val_k=0, disable_tqdm=True)

def trained(job, k):
    "The tiny job's model `k` (sft, grpo, delta): its folder, its training records, its settings."
    d = job/"models"/f"smollm2-135m-{k}"
    return d, read_jsonl(d/"games.jsonl"), json.loads((d/"grpo_config.json").read_text())

def changed(a, b) -> bool: return not torch.equal(load_model(str(a), cache=False)[0].lm_head.weight, load_model(str(b), cache=False)[0].lm_head.weight)

def test_game_credit_records_and_weights(tiny_job):
    "GRPO's records: one step's games of two secrets, their rewards differing through the belief term; the weights moved from the SFT model's."
    job = tiny_job[0]
    d, games, cfg = trained(job, "grpo")
    assert [g["grpo_step"] for g in games] == [0] * 4 and len({g["game_id"] for g in games}) == 4
    assert len({g["reward"]["reward"] for g in games}) > 1                  # the belief term makes the group's rewards differ
    assert cfg["hackable"] is False and cfg["belief_weight"] == 0.5 and cfg["credit"] == "game"
    assert cfg["model"] == str(job/"models"/"smollm2-135m-sft") and changed(cfg["model"], d)
    paper = dict(temperature=0.7, top_p=0.8, top_k=20, max_new_tokens=12)   # the protocol's sampling, as `twentyq play`'s
    assert (cfg["questioner_sampling"], cfg["loss_temperature"]) == (paper, 0.7) and all(g["questioner_sampling"] == paper for g in games)

def test_turn_credit_records_recompute_it(tiny_job):
    "ΔBelief-RL's records hold what recomputes its per-turn rewards and advantages; the weights moved from the SFT model's."
    d, games, cfg = trained(tiny_job[0], "delta")
    assert [g["grpo_step"] for g in games] == [0] * 4 and [g["group"] for g in games] == [g["secret"] for g in games]
    for g in games:   # the file alone recomputes the credit
        assert len(g["beliefs"]) == len(g["turns"]) + 1 == len(g["turn_rewards"]) + 1 == len(g["turn_advantages"]) + 1
        assert np.allclose(g["turn_rewards"], turn_rewards(g, g["beliefs"]), atol=1e-9) and np.isclose(g["reward"]["reward"], sum(g["turn_rewards"]))
    for g, a in zip(games, turn_advantages([g["turn_rewards"] for g in games], [g["group"] for g in games])):
        assert np.allclose(g["turn_advantages"], a, atol=1e-9)
    assert any(abs(x) > 0 for g in games for x in g["turn_advantages"])
    assert (cfg["reward"], cfg["credit"], cfg["cia_weights"]) == ("cia", "turn", cia_reward_weights)
    assert changed(cfg["model"], d)

def spec_of(cfg:dict) -> GRPOSpec:
    "The training a `grpo_config.json` records."
    return GRPOSpec(**{f.name: cfg[f.name] for f in fields(GRPOSpec)})

def same_step(whole, micro, start):
    """Both runs played the same games, and their updates from the weights of `start` agree within float error (the
    gradient accumulated over one-game passes)."""
    plays = [[(g["game_id"], [t["question"] for t in g["turns"]]) for g in read_jsonl(d/"games.jsonl")] for d in (whole, micro)]
    assert plays[0] == plays[1]                                                      # the same games
    w0 = load_model(str(start), cache=False)[0].state_dict()
    a, b = (load_model(str(d), cache=False)[0].state_dict() for d in (whole, micro))
    step = torch.cat([(a[k] - w0[k]).flatten() for k in w0]); diff = torch.cat([(a[k] - b[k]).flatten() for k in w0])
    assert step.norm() > 0 and diff.norm() < 1e-2 * step.norm(), (diff.norm(), step.norm())

def test_game_credit_step_whole_equals_micro_batches(tiny_job, tmp_path):
    "The tiny job's GRPO step (TRL's GRPO, one advantage per game, in micro-batches of one game), taken whole: the same update."
    d, _, cfg = trained(tiny_job[0], "grpo")
    grpo(spec_of(cfg), tmp_path/"whole", micro_batch=0, save_steps=0)
    same_step(tmp_path/"whole", d, cfg["model"])

def test_turn_credit_step_whole_equals_micro_batches_and_a_rerun_resumes(tiny_job, tmp_path):
    """The tiny job's ΔBelief-RL step (micro-batches of one game), taken whole: the same update; a rerun of the whole one for two
    steps resumes its checkpoint, playing step 1's games only, a game of a killed step 1 not kept."""
    d, _, cfg = trained(tiny_job[0], "delta")
    spec, out = spec_of(cfg), tmp_path/"whole"
    grpo(spec, out, micro_batch=0, save_steps=1)
    same_step(out, d, cfg["model"])
    assert (out/"checkpoint-1").is_dir() and not list(d.glob("checkpoint-*"))
    games = read_jsonl(out/"games.jsonl")
    with open(out/"games.jsonl", "a") as f: f.write(json.dumps({**games[0], "game_id": "stale#9", "grpo_step": 1}) + "\n")   # played, then killed
    with open(out/"validation.jsonl", "a") as f: f.write(json.dumps({"step": 2, "stale": True}) + "\n")                  # validated, then killed
    tr = grpo(spec, out, micro_batch=0, save_steps=1, steps=2)
    assert tr.state.global_step == 2
    after = read_jsonl(out/"games.jsonl")
    assert sorted(g["grpo_step"] for g in after) == [0] * len(games) + [1] * len(games) and "stale#9" not in {g["game_id"] for g in after}
    rows = read_jsonl(out/"validation.jsonl")
    assert [r["step"] for r in rows] == [1, 2] and not any(r.get("stale") for r in rows)    # validated at each last step, once
    with pytest.raises(ValueError, match="must divide"): grpo(spec, tmp_path/"odd", micro_batch=3)

def test_a_turn_credit_needs_the_cia_reward_and_protocol(tmp_path):
    r = subprocess.run(twentyq("grpo", "--credit", "turn", "--out", tmp_path/"x"),
                       capture_output=True, text=True)
    assert r.returncode == 2 and r.stderr.strip() == "twentyq: error: credit 'turn' rewards every turn: it needs reward 'cia' (ΔBelief-RL's turn rewards)"
    assert not (tmp_path/"x").exists()   # refused before anything was written

def test_the_successors_recipe_samples_as_its_training_scripts(tmp_path):
    "`twentyq grpo --recipe delta-belief-rl`: its games drawn at 1.0 / 1.0 / no top-k and its loss at 1.0, the judge's at 0.7 / 0.8 / 20, all in its config and records."
    r = subprocess.run(twentyq("grpo", "--recipe", "delta-belief-rl", "--out", tmp_path/"cia", "--limit", "1", "--steps", "1", "--secrets-per-step", "1",
                               "--games-per-secret", "2", "--max-questions", "1", "--questioner-max-tokens", "8", "--save-steps", "0", "--val-k", "0"),
                       capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr[-3000:]
    cfg, games = json.loads((tmp_path/"cia"/"grpo_config.json").read_text()), read_jsonl(tmp_path/"cia"/"games.jsonl")
    policy, judge = dict(temperature=1.0, top_p=1.0, top_k=0, max_new_tokens=8), dict(temperature=0.7, top_p=0.8, top_k=20, max_new_tokens=250)
    assert (cfg["questioner_sampling"], cfg["judge_sampling"], cfg["loss_temperature"], cfg["lora_r"]) == (policy, judge, 1.0, 64)
    assert len(games) == 2 and all((g["questioner_sampling"], g["judge_sampling"]) == (policy, judge) for g in games)

@pytest.mark.parametrize("game,judge", [("wordle", "wordle-judge"), ("guess-my-city", "cities-judge")])
def test_grpo_trains_another_game_with_its_program_judge_and_validates(tmp_path, game, judge):
    "`twentyq grpo --game G`: its training list, its model-free judge (Wordle's a program), validation rows at step 0 and the last on held-out secrets."
    r = subprocess.run(twentyq("grpo", "--game", game, "--out", tmp_path/"g", "--limit", "1", "--steps", "1", "--secrets-per-step", "1", "--games-per-secret", "2",
                               "--max-questions", "1", "--questioner-max-tokens", "16", "--save-steps", "0", "--val-k", "1", "--val-limit", "2"),
                       capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr[-3000:]
    cfg, games = json.loads((tmp_path/"g"/"grpo_config.json").read_text()), read_jsonl(tmp_path/"g"/"games.jsonl")
    assert (cfg["game"], cfg["judge"], cfg["protocol"]) == (game, judge, "paprika") and {g["game"] for g in games} == {game}
    rows, vg = read_jsonl(tmp_path/"g"/"validation.jsonl"), read_jsonl(tmp_path/"g"/"validation-games.jsonl")
    assert [x["step"] for x in rows] == [0, 1] and [x["games"] for x in rows] == [2, 2]
    trained_on = {g["secret"] for g in games}
    assert {g["judge"] for g in vg} == {judge} and not trained_on & {g["secret"] for g in vg}
    assert "validation step 1: Mean@1" in r.stdout

def test_a_story_game_is_not_trained(tmp_path):
    r = subprocess.run(twentyq("grpo", "--game", "murder-mystery", "--out", tmp_path/"x"), capture_output=True, text=True)
    assert r.returncode == 2 and r.stderr.startswith("twentyq: error: murder-mystery is not trained: it has no training list") and len(r.stderr.strip().splitlines()) == 1
    assert not (tmp_path/"x").exists()

def _free_port() -> int:
    with socket.socket() as s: s.bind(("127.0.0.1", 0)); return s.getsockname()[1]

def test_two_processes_split_the_secrets_and_stay_in_step(tmp_path):
    "`accelerate launch --multi_gpu` with two real processes on the CPU (gloo): each plays its own secrets' games, the gradients are reduced, both end on the same weights."
    out, bin_ = tmp_path/"ddp", Path(sys.executable).parent
    cmd = [str(bin_/"accelerate"), "launch", "--multi_gpu", "--num_processes", "2",   # without GPUs: torchrun's processes on the CPU, gloo
           "--num_machines", "1", "--mixed_precision", "no", "--dynamo_backend", "no",
           "--main_process_port", str(_free_port()), str(bin_/"twentyq"), "grpo", "--out", str(out), "--steps", "1", "--lr", "1e-4", "--save-steps", "0",
           *[f"--{k.replace('_', '-')}={v}" for k, v in CIA.items() if k not in ("lr", "disable_tqdm")]]
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=900, env={**os.environ, "OMP_NUM_THREADS": "1"})
    assert r.returncode == 0, r.stdout[-2000:] + r.stderr[-4000:]
    games = read_jsonl(out/"games.jsonl")                                                   # written once, by the main process, for both
    by = {p: {g["secret"] for g in games if g["grpo_process"] == p} for p in (0, 1)}
    assert len(games) == 4 and len({g["game_id"] for g in games}) == 4 and by[0] and by[1] and not by[0] & by[1]   # each its own secret's group
    assert all(len(g["turn_advantages"]) == len(g["turns"]) for g in games)
    rows = json.loads((out/"grpo_processes.json").read_text())
    assert [x["process"] for x in rows] == [0, 1] and rows[0]["weights_sha256"] == rows[1]["weights_sha256"]         # replicas in step
    assert rows[0]["weights_sha256"] == weights_sha256(load_model(str(out))[0]) != weights_sha256(load_model("smollm2-135m")[0])   # saved, and trained
    assert json.loads((out/"grpo_config.json").read_text())["processes"] == 2 and "step 1; games 4" in r.stdout
