"""SFT and GRPO throughput on an embedded model. SFT: seconds per optimizer step and trained tokens per second (the non-padding tokens the trainer
saw), every weight and LoRA, one row per game and one row per questioner turn, on the WordNet teacher's games (real lengths, and no
model is needed to make them).

GRPO: seconds per step, games per step and tokens per second (prompt + completion tokens of the games the step trained on), with
the step split into playing, scoring the belief reward, and the optimizer's forward/backward; games against the knowledge judge
(no model), so the questioner's own work is what is timed.

The third table: a GRPO step of a LoRA (rank 16) for each credit (game: twentyq's reward, one advantage per game; turn: ΔBelief-RL's
reward and turn-wise advantages, cia protocol) and each policy engine (hf: the games played in the training process; vllm: played by a
vLLM server under the adapter loaded after each step, the server started once beforehand and its start-up not counted).

Run: .venv/bin/python benchmarks/bench_train.py [--model smollm2-135m] [--steps 3] [--batch 4] [--device cpu] [--grpo-games 10]
     [--grpo-questions 8] [--engines hf,vllm] [--only sft,grpo,engines]   (prints three tables)"""
import argparse, contextlib, io, os, tempfile, time, warnings
import torch
from twentyq.training.sft import load_tokenizer, sft, sft_data, sft_rows
from twentyq.games.twenty_questions.wordnet import play_wordnet

secrets = ["year", "law", "car", "dog", "house", "water"]

def bench(model, rows, steps, batch, device, lora):
    "(seconds per step, tokens per second, last loss, wall seconds with set-up) of `steps` SFT steps on `rows`; the first step is timed too."
    with tempfile.TemporaryDirectory() as out:
        t, quiet = time.perf_counter(), io.StringIO()
        with contextlib.redirect_stdout(quiet), contextlib.redirect_stderr(quiet):   # the trainer's progress and log lines
            tr = sft(model, rows, out, save=False, device=device, lora=lora, max_steps=steps, per_device_train_batch_size=batch,
                     learning_rate=1e-5, disable_tqdm=True)
        wall = time.perf_counter() - t
    logs = tr.state.log_history
    run = next(h for h in logs if "train_runtime" in h)["train_runtime"]
    tokens = max(h.get("num_tokens", 0) for h in logs)
    return run / steps, tokens / run, [h["loss"] for h in logs if "loss" in h][-1], wall

def bench_grpo(model, games, questions, device, steps=2, **kw):
    "(seconds per step, of which playing and scoring, tokens per step, steps) of `steps` GRPO steps; `kw` for `grpo` (credit, policy engine ...)."
    import twentyq.training.grpo as G
    played = []
    def timed(f):
        def g(*a, **kw):
            t = time.perf_counter(); r = f(*a, **kw); played.append(time.perf_counter() - t); return r
        return g
    fs = G.play_group, G.group_rewards, G.turn_credit
    G.play_group, G.group_rewards, G.turn_credit = map(timed, fs)
    with tempfile.TemporaryDirectory() as out:
        quiet = io.StringIO()
        with contextlib.redirect_stdout(quiet), contextlib.redirect_stderr(quiet):
            tr = G.grpo(model, out, limit=games // 5, steps=steps, secrets_per_step=games // 5, games_per_secret=5, max_questions=questions,
                        questioner_max_tokens=32, save_steps=0, device=device, disable_tqdm=True, **({"belief_weight": 0.5} | kw))
    G.play_group, G.group_rewards, G.turn_credit = fs
    logs = [h for h in tr.state.log_history if "step_time" in h]
    per_step = sum(h["step_time"] for h in logs) / len(logs)
    tokens = max(h["num_tokens"] for h in logs) / len(logs)
    return per_step, sum(played) / len(logs), tokens, len(logs)

credits = {"game": dict(belief_weight=0.5), "turn": dict(protocol="cia", reward="cia", credit="turn", belief_weight=0.0)}

def bench_engines(model, games, questions, device, engines):
    "The third table: a LoRA's GRPO step for each credit and policy engine (a vLLM server started once, beforehand)."
    from twentyq.engines.vllm_server import VLLMServer
    print(f"\nGRPO of a LoRA (rank 16) by credit and policy engine: {games // 5} secrets x 5 games per step, {questions} questions")
    print(f"{'credit':<8}{'engine':<8}{'steps':>6}{'s/step':>9}{'play+score s':>14}{'train s':>9}{'tokens/step':>12}")
    srv = VLLMServer(model, lora_rank=16).start() if "vllm" in engines else None
    try:
        for credit, kw in credits.items():
            for eng in engines:
                where = dict(policy_engine="vllm", policy_server=srv.base_url) if eng == "vllm" else {}
                s, play_s, tokens, steps = bench_grpo(model, games, questions, device, lora=True, lr=1e-4, **kw, **where)
                print(f"{credit:<8}{eng:<8}{steps:>6}{s:>9.1f}{play_s:>14.1f}{s - play_s:>9.1f}{tokens:>12.0f}", flush=True)
    finally:
        if srv: srv.stop()

if __name__ == "__main__":
    p = argparse.ArgumentParser()
    p.add_argument("--model", default="smollm2-135m"); p.add_argument("--steps", type=int, default=3)
    p.add_argument("--batch", type=int, default=4); p.add_argument("--device", default="cpu")
    p.add_argument("--grpo-games", type=int, default=10); p.add_argument("--grpo-questions", type=int, default=8)
    p.add_argument("--engines", default="hf,vllm"); p.add_argument("--only", default="sft,grpo,engines")
    a = p.parse_args()
    warnings.filterwarnings("ignore")
    only = a.only.split(",")
    kept, report = sft_data(play_wordnet(secrets))
    tok = load_tokenizer(a.model)
    data = {"per game": sft_rows(kept, tok), "per turn": sft_rows(kept, tok, per_turn=True)}
    print(f"{a.model} on {a.device} ({torch.get_num_threads()} threads), {report['games_kept']} games, batch {a.batch}, {a.steps} steps")
    print("load average at the start: %.2f (the timings assume an otherwise idle machine)" % os.getloadavg()[0])
    print(f"{'mode':<8}{'rows':>9}{'tokens/row':>12}{'weights':>9}{'s/step':>9}{'tokens/s':>10}{'loss':>8}{'wall (s)':>10}")
    for mode, rows in (data.items() if "sft" in only else []):
        for lora in (False, True):
            s, tps, loss, wall = bench(a.model, rows, a.steps, a.batch, a.device, lora)
            mean = sum(len(r["input_ids"]) for r in rows) / len(rows)
            print(f"{mode:<8}{len(rows):>9}{mean:>12.0f}{'LoRA' if lora else 'all':>9}{s:>9.2f}{tps:>10.0f}{loss:>8.3f}{wall:>10.1f}", flush=True)
    print(f"\nGRPO: {a.grpo_games // 5} secrets x 5 games per step, {a.grpo_questions} questions, 32-token questions, belief weight 0.5")
    print(f"{'steps':>6}{'games/step':>11}{'s/step':>9}{'play s':>8}{'train s':>9}{'tokens/step':>12}{'tokens/s':>10}")
    if "grpo" in only:
        s, play_s, tokens, steps = bench_grpo(a.model, a.grpo_games, a.grpo_questions, a.device)
        print(f"{steps:>6}{a.grpo_games:>11}{s:>9.1f}{play_s:>8.1f}{s - play_s:>9.1f}{tokens:>12.0f}{tokens / s:>10.0f}", flush=True)
    if "engines" in only: bench_engines(a.model, a.grpo_games, a.grpo_questions, a.device, a.engines.split(","))
    print("load average at the end: %.2f over the last minute, %.2f over 5" % os.getloadavg()[:2])
