"""What SFT budget makes the embedded SmolLM2 learn its WordNet teacher (issue 40): for each setting, the share of its questions the
knowledge judge can read, its mean own belief gain per turn (paper belief prompt) and its wins, against the base model on the same
secrets and seeds; with each training's wall time and peak memory (the training runs as a process of its own, under /usr/bin/time -v).

The teacher: the WordNet questioner, greedy, on the first train secrets (`nouns_train`), as the main job plays it. The student's games:
the paper protocol against the knowledge judge on the main job's test secrets (4 x 2 games) at --questions questions, 24 tokens a
question; the gain is read over the first 6 turns (the main job's games) and over all of them. p: one-sided permutation test on secrets
that the setting's per-secret gain (first 6 turns) exceeds the base model's (`twentyq.analysis.gain_test`).

Run: .venv/bin/python benchmarks/bench_sft_effect.py [--settings main-old,hint,...] [--out DIR] [--questions 13]   (prints a table, writes
DIR/sft_effect.csv and DIR/sft_effect.png)"""
import argparse, json, re, subprocess, sys, time
from pathlib import Path

# name: teacher secrets, steps, learning rate, batch, micro-batch, lora, rows (game: one per game; turn: one per question)
settings = {
    "main-old": dict(secrets=12, steps=3, lr=1e-4, batch=4, micro=1, lora=False, rows="game"),
    "hint": dict(secrets=64, steps=8, lr=2e-4, batch=4, micro=1, lora=False, rows="game"),
    "32x8": dict(secrets=32, steps=8, lr=2e-4, batch=4, micro=1, lora=False, rows="game"),
    "64x4-3e-4": dict(secrets=64, steps=4, lr=3e-4, batch=4, micro=1, lora=False, rows="game"),
    "64x6": dict(secrets=64, steps=6, lr=2e-4, batch=4, micro=1, lora=False, rows="game"),
    "64x16": dict(secrets=64, steps=16, lr=2e-4, batch=4, micro=1, lora=False, rows="game"),
    "lora-64x8": dict(secrets=64, steps=8, lr=2e-3, batch=4, micro=1, lora=True, rows="game"),
    "hint-mb2": dict(secrets=64, steps=8, lr=2e-4, batch=4, micro=2, lora=False, rows="game"),
    "turns-64x8": dict(secrets=64, steps=8, lr=2e-4, batch=4, micro=1, lora=False, rows="turn"),
    # the tiny main job's (tests/conftest.py): the fewest rows that still teach the questions
    "tiny-2x2-1e-3": dict(secrets=4, steps=2, lr=1e-3, batch=2, micro=1, lora=False, rows="game"),
    "tiny-2x2-5e-4": dict(secrets=4, steps=2, lr=5e-4, batch=2, micro=1, lora=False, rows="game"),
}
model = "smollm2-135m"

def teacher(out:Path, n:int) -> Path:
    "The WordNet questioner's greedy games on the first `n` train secrets (as the main job plays them)."
    from twentyq.rollout import play
    run = out/f"teacher-{n}"
    play(questioner="wordnet", judge="wordnet-judge", protocol="paper", secrets="nouns_train", limit=n, max_questions=20,
         greedy=True, out=str(run), progress=False)
    return run

def train_one(out:Path, name:str):
    "Train setting `name` into out/name (run in a process of its own, so its peak memory is its own)."
    from twentyq.training.sft import load_tokenizer, sft, sft_data, sft_rows
    s = settings[name]
    kept, report = sft_data([teacher(out, s["secrets"])], per_secret=1)
    rows = sft_rows(kept, load_tokenizer(model), per_turn=s["rows"] == "turn")
    tr = sft(model, rows, out/name, max_steps=s["steps"], learning_rate=s["lr"], per_device_train_batch_size=s["micro"],
             gradient_accumulation_steps=s["batch"] // s["micro"], lora=s["lora"], save_steps=0, disable_tqdm=True, seed=0)
    loss = [h["loss"] for h in tr.state.log_history if "loss" in h]
    (out/name/"bench.json").write_text(json.dumps(dict(n_rows=len(rows), teacher_games=report["games_kept"], first_loss=loss[0],
                                                       last_loss=loss[-1])))

def evaluate(out:Path, who:str, questions:int) -> dict:
    "Play `who`'s paper games on the main job's test secrets, score its own beliefs, and read them."
    from twentyq.rollout import play
    from twentyq.scoring.beliefs import score_run
    from twentyq.runs import read_run, load_beliefs
    from twentyq.analysis import belief_gains, secret_gains
    from twentyq.games.twenty_questions.wordnet import readable_share
    run = out/f"games-{Path(who).name}"
    play(questioner=who, judge="wordnet-judge", protocol="paper", secrets="nouns_test", limit=4, iterations=2,
         max_questions=questions, questioner_max_tokens=24, out=str(run), progress=False)
    score_run(run, who, progress=False)
    games, beliefs = read_run(run), load_beliefs(run)
    gains = belief_gains(beliefs).query("turn >= 1")
    return dict(readable=readable_share(games), wins=sum(bool(g["won"]) for g in games), games=len(games),
                gain6=float(gains[gains.turn <= 6].gain.mean()), gain_all=float(gains.gain.mean()),
                per_secret=secret_gains(beliefs, max_turn=6).to_dict())

def peak_gb(stderr:str) -> float:
    return int(re.search(r"Maximum resident set size \(kbytes\): (\d+)", stderr).group(1)) / 2**20

def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--settings", default=",".join(settings)); ap.add_argument("--out", default="/tmp/bench_sft_effect")
    ap.add_argument("--questions", type=int, default=13)
    ap.add_argument("--train-one"); ap.add_argument("--eval-one")
    a = ap.parse_args(); out = Path(a.out); out.mkdir(parents=True, exist_ok=True)
    if a.train_one: return train_one(out, a.train_one)
    if a.eval_one: return print("EVAL " + json.dumps(evaluate(out, a.eval_one, a.questions)))
    me = [sys.executable, __file__, "--out", str(out), "--questions", str(a.questions)]
    def run(args, timed=False):
        t = time.time()
        p = subprocess.run((["/usr/bin/time", "-v"] if timed else []) + me + args, capture_output=True, text=True)
        if p.returncode: sys.exit(f"{args} failed:\n{p.stderr[-3000:]}")
        return p, time.time() - t
    import pandas as pd
    from twentyq.analysis import gain_test
    rows, base = [], None
    for name in ["base"] + a.settings.split(","):
        if name == "base": train = dict(wall=0.0, peak=None)
        elif (out/name/"config.json").exists(): train = json.loads((out/name/"train.json").read_text())
        else:
            p, wall = run(["--train-one", name], timed=True)
            train = dict(wall=wall, peak=peak_gb(p.stderr)); (out/name/"train.json").write_text(json.dumps(train))
        p, ewall = run(["--eval-one", model if name == "base" else str(out/name)])
        ev = json.loads(p.stdout.split("EVAL ", 1)[1])
        if name == "base": base = ev["per_secret"]
        test = gain_test(ev["per_secret"], base) if name != "base" else dict(p_value=float("nan"))
        info = json.loads((out/name/"bench.json").read_text()) if name != "base" else {}
        rows.append(dict(setting=name, **settings.get(name, {}), **info,
                         train_s=round(train["wall"]), train_peak_gb=train["peak"], readable=ev["readable"],
                         gain6=ev["gain6"], gain_all=ev["gain_all"], p_vs_base=test["p_value"], wins=ev["wins"],
                         games=ev["games"], eval_s=round(ewall)))
        print(pd.DataFrame(rows).to_string(index=False, float_format=lambda x: f"{x:.3g}"), flush=True)
    df = pd.DataFrame(rows); df.to_csv(out/"sft_effect.csv", index=False)
    import matplotlib; matplotlib.use("Agg"); import matplotlib.pyplot as plt
    fig, axs = plt.subplots(1, 3, figsize=(14, 4.5))
    for ax, col, label in [(axs[0], "readable", "questions the knowledge judge reads (share)"),
                           (axs[1], "gain6", "own belief gain per turn, turns 1-6 (nats)"),
                           (axs[2], "train_s", "training wall time (s)")]:
        ax.bar(df.setting, df[col]); ax.set_title(label, fontsize=10); ax.tick_params(axis="x", rotation=90)
    fig.tight_layout(); fig.savefig(out/"sft_effect.png", dpi=100)
    print(f"\n{out/'sft_effect.csv'}, {out/'sft_effect.png'}")

if __name__ == "__main__": main()
