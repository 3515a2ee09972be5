"""What training teaches SmolLM2-135M on this CPU (issue 78): base vs +SFT vs +GRPO vs +ΔBelief-RL, each over several seeds,
every model judged on the same held-out secrets by the validation the trainers run (`twentyq.training.validation`).

The game: Twenty Questions against the knowledge judge (no judge model), six questions a game, 24 tokens a question, as the
main job's embedded scale plays it. Held-out: the first --secrets test nouns (`nouns_test`, none of them a training secret),
--k games each, sampled at the successor's validation settings (T 0.7, top-p 0.8, top-k 20), always under the paper's protocol.

Per seed: SFT on the WordNet questioner's greedy wins on 64 training secrets (the embedded scale's 8 steps of 4 games at 2e-4);
its validation at step 0 is the base model's. Then, from that SFT model, GRPO (the game's reward with the belief term, as the
main job's +GRPO) and ΔBelief-RL (the successor's cia protocol, turn rewards and turn credit), each the same --steps steps of
--per-step games (the same number of policy games), validated every --every steps. A seed seeds the training and the
validation's draws.

Printed and written to --out: the method x seed table (held-out Mean@k, Pass@k, belief gain per turn, bits per question,
update efficiency, readable share), the method table with 95% bootstrap intervals over secrets, and one-sided permutation
tests on secrets between methods (`twentyq.analysis.gain_test`); learning.csv, learning_secrets.csv, learning.md and
learning.png.

Run: .venv/bin/python benchmarks/bench_learning.py [--seeds 0,1,2] [--out DIR] [--secrets 8] [--k 4] [--steps 8] [--per-step 8]
(about 13 minutes a seed on two cores; a finished training is reused), or the same steps as a notebook:
papermill benchmarks/learning_study.ipynb /tmp/study.ipynb -p out DIR"""
import argparse, json, time
from pathlib import Path
import numpy as np, pandas as pd

model, questions, tokens = "smollm2-135m", 6, 24
methods = ["base", "+SFT", "+GRPO", "+ΔBelief-RL"]

def val_kw(a, seed): return dict(val_k=a.k, val_limit=a.secrets, val_protocol="paper", seed=seed)

def train_sft(out:Path, a, seed:int) -> Path:
    "SFT of the base model on the WordNet teacher's wins, validated at step 0 (the base model) and at its last step."
    from twentyq.training.sft import teacher_games, sft_data, sft_rows, sft, load_tokenizer, sft_validator
    from twentyq.training.validation import Validation
    from twentyq.games import get_game
    d = out/f"sft-{seed}"
    if (d/"config.json").exists(): return d
    teacher = teacher_games(out/"teacher", limit=64, max_questions=20)
    kept, _ = sft_data([teacher])
    v = Validation(limit=a.secrets, k=a.k, every=0, seed=seed)
    val = sft_validator(v, get_game(), "paper", model, d, questions, tokens)
    sft(model, sft_rows(kept, load_tokenizer(model)), d, max_steps=8, per_device_train_batch_size=1, gradient_accumulation_steps=4,
        learning_rate=2e-4, save_steps=0, disable_tqdm=True, seed=seed, validation=val)
    return d

def train_rl(out:Path, sft_dir:Path, name:str, a, seed:int) -> Path:
    "GRPO or ΔBelief-RL from the SFT model, validated every --every steps and at the last (its step 0 is SFT's last)."
    from twentyq.training.grpo import grpo
    from twentyq.training.grpo_spec import GRPOSpec
    d = out/f"{name}-{seed}"
    if (d/"config.json").exists(): return d
    common = dict(model=str(sft_dir), limit=64, steps=a.steps, secrets_per_step=a.per_step // 4, games_per_secret=4,
                  max_questions=questions, questioner_max_tokens=tokens, lr=a.lr, micro_batch=1, save_steps=0,
                  val_every=a.every, val_before=False, trl=dict(disable_tqdm=True), **val_kw(a, seed))
    spec = (GRPOSpec(**common, belief_weight=0.5) if name == "grpo" else
            GRPOSpec(**common, protocol="cia", reward="cia", credit="turn"))
    grpo(spec, d)
    return d

def rows_of(d:Path, method:str, seed:int, last_only:bool) -> tuple[list[dict], list[dict]]:
    "(validation rows, per-game rows) of a training folder, for `method`; the step-0 row is the base model's."
    from twentyq.runs import read_jsonl
    from twentyq.metrics import verified_win
    rows, games = read_jsonl(d/"validation.jsonl"), read_jsonl(d/"validation-games.jsonl")
    pick = (lambda s: s == 0) if method == "base" else (lambda s: s == max(r["step"] for r in rows)) if last_only else (lambda s: s > 0)
    steps = [r for r in rows if pick(r["step"])]
    keep = {r["step"] for r in steps}
    return ([dict(r, method=method, seed=seed) for r in steps],
            [dict(method=method, seed=seed, step=g["val_step"], secret=g["secret"], won=verified_win(g), belief_gain=g.get("belief_gain"))
             for g in games if g["val_step"] in keep])

def boot(x:np.ndarray, n:int=2000, seed:int=0) -> tuple[float, float]:
    "95% bootstrap interval of the mean of `x`."
    rng = np.random.default_rng(seed)
    m = x[rng.integers(0, len(x), (n, len(x)))].mean(1)
    return float(np.percentile(m, 2.5)), float(np.percentile(m, 97.5))

def tables(runs:pd.DataFrame, games:pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    "(method x seed, method with intervals, permutation tests) of the last validation of each training."
    from twentyq.analysis import gain_test
    cols = ["mean_at_k", "mean_at_k_std", "pass_at_k", "belief_gain", "bits_per_question", "update_efficiency", "readable_share"]
    last = runs.sort_values("step").groupby(["method", "seed"]).tail(1)
    per = last.assign(order=last.method.map(methods.index)).sort_values(["order", "seed"]).set_index(["method", "seed"])[["step"] + cols]
    fin = games.merge(last[["method", "seed", "step"]], on=["method", "seed", "step"])
    sec = fin.groupby(["method", "secret"]).agg(win=("won", "mean"), gain=("belief_gain", "mean")).reset_index()
    rows = []
    for m in methods:
        s = sec[sec.method == m]
        (wl, wh), (gl, gh) = boot(s.win.to_numpy() * 100), boot(s.gain.dropna().to_numpy())
        rows.append(dict(method=m, seeds=int(last[last.method == m].seed.nunique()), games=int(len(fin[fin.method == m])),
                         win_rate=100 * s.win.mean(), win_lo=wl, win_hi=wh, belief_gain=s.gain.mean(), gain_lo=gl, gain_hi=gh,
                         **{c: last[last.method == m][c].mean() for c in ["pass_at_k", "bits_per_question", "update_efficiency", "readable_share"]}))
    tests = []
    for a, b in [("+SFT", "base"), ("+GRPO", "+SFT"), ("+ΔBelief-RL", "+SFT"), ("+ΔBelief-RL", "+GRPO")]:
        x, y = (sec[sec.method == m].set_index("secret") for m in (a, b))
        for what in ("gain", "win"):
            t = gain_test(x[what], y[what])
            tests.append(dict(method=a, against=b, measure="belief gain per turn" if what == "gain" else "win rate", difference=t["statistic"], p_value=t["p_value"]))
    return per, pd.DataFrame(rows), pd.DataFrame(tests)

def figure(runs:pd.DataFrame, path:Path):
    "The held-out belief gain and bits per question of each method by step, a line per seed."
    import matplotlib; matplotlib.use("Agg"); import matplotlib.pyplot as plt
    fig, axes = plt.subplots(1, 3, figsize=(12, 3.4))
    colours = dict(zip(methods, ["grey", "tab:blue", "tab:orange", "tab:green"]))
    sft_end = runs[runs.method == "+SFT"].set_index("seed")
    for (m, s), d in runs.groupby(["method", "seed"]):
        d = d.sort_values("step")
        if m not in ("base", "+SFT"): d = pd.concat([sft_end.loc[[s]].reset_index().assign(step=0), d])   # from its SFT model
        for ax, c in zip(axes, ["belief_gain", "bits_per_question", "mean_at_k"]):
            ax.plot(d.step + (0 if m in ("base", "+SFT") else 8), d[c], marker="o", color=colours[m], alpha=0.7, label=m if s == runs.seed.min() else None)
    for ax, t in zip(axes, ["own belief gain per turn (nats)", "observer bits per question", "Mean@k (%)"]): ax.set(title=t, xlabel="training step (SFT 0-8, then RL)")
    axes[0].legend(fontsize=8); fig.tight_layout(); fig.savefig(path, dpi=120)

def markdown(df:pd.DataFrame) -> str:
    "A DataFrame as a Markdown table, numbers to 3 decimals."
    cell = lambda v: f"{v:.3f}" if isinstance(v, float) else str(v)
    return "\n".join(["| " + " | ".join(df.columns) + " |", "|" + "---|" * len(df.columns)] +
                     ["| " + " | ".join(cell(v) for v in r) + " |" for r in df.itertuples(index=False)])

def study(a) -> tuple[pd.DataFrame, pd.DataFrame]:
    "Train and validate every seed (a finished training is reused); (validation rows, validation games) of all."
    out = Path(a.out); out.mkdir(parents=True, exist_ok=True)
    runs, games, times = [], [], []
    for seed in map(int, str(a.seeds).split(",")):
        t0 = time.time(); s = train_sft(out, a, seed); times.append(dict(seed=seed, what="sft", seconds=time.time() - t0))
        for m in ("base", "+SFT"):
            r, g = rows_of(s, m, seed, last_only=True); runs += r; games += g
        for name, m in [("grpo", "+GRPO"), ("delta", "+ΔBelief-RL")]:
            t0 = time.time(); d = train_rl(out, s, name, a, seed); times.append(dict(seed=seed, what=name, seconds=time.time() - t0))
            r, g = rows_of(d, m, seed, last_only=False); runs += r; games += g
        took = ", ".join(f"{t['what']} {t['seconds']:.0f} s" for t in times if t["seed"] == seed)
        print(f"seed {seed} done: {took}", flush=True)
    if any(t["seconds"] > 10 for t in times): pd.DataFrame(times).to_csv(out/"learning_times.csv", index=False)   # not a rerun that reused them all
    return pd.DataFrame(runs), pd.DataFrame(games)

def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--seeds", default="0,1,2"); p.add_argument("--out", default="/tmp/twentyq-learning")
    p.add_argument("--secrets", type=int, default=8); p.add_argument("--k", type=int, default=4)
    p.add_argument("--steps", type=int, default=8); p.add_argument("--per-step", type=int, default=8)
    p.add_argument("--every", type=int, default=4); p.add_argument("--lr", type=float, default=2e-5)
    a = p.parse_args(); out = Path(a.out)
    runs, games = study(a)
    per, summary, tests = tables(runs, games)
    pd.set_option("display.width", 200); pd.set_option("display.max_columns", 20)
    print(per.round(3).to_string()); print(summary.round(3).to_string(index=False)); print(tests.round(4).to_string(index=False))
    runs.to_csv(out/"learning.csv", index=False); games.to_csv(out/"learning_games.csv", index=False)
    (out/"learning.md").write_text("\n\n".join(markdown(t) for t in (per.reset_index(), summary, tests)) + "\n")
    figure(runs, out/"learning.png")

if __name__ == "__main__": main()
