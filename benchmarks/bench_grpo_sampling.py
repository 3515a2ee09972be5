"""The main job's two trainings (+GRPO: the game's reward; +ΔBelief: ΔBelief-RL's turn credit under cia) before and after the loss
scores the policy at the temperature its games are drawn at (issue 51): per training step, the games' sampling and the loss's
temperature, the mean reward, the mean belief gain per turn of the beliefs the reward was given ((log b_T - log b_0) / T), the share of
questions the knowledge judge reads, and the verified win rate; then the trained models as the report plays them: Table 1's pass@1 and
readable share (paper protocol) and the ΔBelief card's mean own belief gain per turn on paper and cia games.

It reads what two runs of the main job wrote (no training here): run `make reproduce` in a fresh clone of each head, then
Run: .venv/bin/python benchmarks/bench_grpo_sampling.py --old /work/repro-old/reports/embedded --new /work/repro-new/reports/embedded
     (prints two tables)"""
import argparse, json
from pathlib import Path
import numpy as np, pandas as pd
from twentyq.runs import read_jsonl
from twentyq.games.twenty_questions.wordnet import readable_share

trainings = {"+GRPO": "smollm2-135m-grpo", "+ΔBelief": "smollm2-135m-delta"}

def sampled(cfg:dict) -> tuple[str, float]:
    "(the policy's sampling in the games, as T / top-p / top-k, the loss's temperature) of a training's grpo_config.json."
    qs = cfg.get("questioner_sampling") or dict(temperature=0.7, top_p=0.8, top_k=20)   # before: the paper's, always
    return f"{qs['temperature']:g} / {qs['top_p']:g} / {qs['top_k'] or 'off'}", cfg.get("loss_temperature", 1.0)   # TRL's default

def gain(g:dict) -> float:
    "(log b_T - log b_0) / T of the beliefs the game's reward was given."
    b = g.get("beliefs") or []
    return (b[-1] - b[0]) / (len(b) - 1) if len(b) > 1 else np.nan

def steps(report:Path, side:str) -> pd.DataFrame:
    "One row per training and step of the main job's trainings in `report`."
    rows = []
    for name, folder in trainings.items():
        d = report/"models"/folder
        games, (sampling, t_loss) = read_jsonl(d/"games.jsonl"), sampled(json.loads((d/"grpo_config.json").read_text()))
        for step in sorted({g["grpo_step"] for g in games}):
            gs = [g for g in games if g["grpo_step"] == step]
            rows.append(dict(training=name, side=side, step=step, games=len(gs), sampling=sampling, loss_T=t_loss,
                             reward=np.mean([g["reward"]["reward"] for g in gs]), gain_per_turn=np.nanmean([gain(g) for g in gs]),
                             readable=readable_share(gs), verified_wins=np.mean([g["reward"]["verified"] for g in gs])))
    return pd.DataFrame(rows)

def trained(report:Path, side:str) -> pd.DataFrame:
    "The trained models in `report`: Table 1's pass@1 and readable share (paper), the card's own gain per turn (paper, cia)."
    t = pd.read_csv(report/"table1_pass_at_1.csv").query("protocol == 'paper'").set_index("questioner")
    c = pd.read_csv(report/"cia_belief_gain.csv").query("scorer == questioner")
    gain = (c.assign(w=c["mean"] * c.n).groupby(["questioner", "protocol"])[["w", "n"]].sum()
            .eval("w / n").unstack("protocol"))   # per turn, over every turn of every game
    rows = [dict(side=side, model=name, pass1=t.pass1_mean.get(q), readable=t.readable.get(q), gain_paper=gain.loc[q, "paper"],
                 gain_cia=gain.loc[q, "cia"])
            for name, folder in {"+SFT": "smollm2-135m-sft", **trainings}.items()
            for q in [q for q in t.index if str(q).endswith(folder)]]
    return pd.DataFrame(rows)

if __name__ == "__main__":
    p = argparse.ArgumentParser()
    p.add_argument("--old", required=True, type=Path); p.add_argument("--new", required=True, type=Path)
    a = p.parse_args()
    pd.set_option("display.width", 200)
    print(pd.concat([steps(a.old, "old"), steps(a.new, "new")]).sort_values(["training", "step", "side"])
          .to_string(index=False, float_format=lambda x: f"{x:.3f}"))
    print()
    print(pd.concat([trained(a.old, "old"), trained(a.new, "new")]).sort_values(["model", "side"])
          .to_string(index=False, float_format=lambda x: f"{x:.3f}"))
