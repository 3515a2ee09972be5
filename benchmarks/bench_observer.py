"""What the ideal observer costs beside the belief scoring of the same games (issue 53: at most 10% with the knowledge judge).

For each run folder: its games, the ideal observer over all 2,630 nouns (`observer.ideal_observer`, the knowledge judge) timed
twice (the first call builds the candidates' pool and the knowledge's masks of new questions; the second reuses them), and the
belief scoring of the same games by a model (`beliefs.score_beliefs`, the paper's prompt, the model loaded beforehand and not
timed). One process, nothing else running.

Run: .venv/bin/python benchmarks/bench_observer.py RUN [RUN ...] [--scorer smollm2-135m]   (prints a table)
     e.g. the main job's runs: reports/embedded/runs/paper--smollm2-135m reports/embedded/runs/paper--wordnet"""
import argparse, time
from pathlib import Path
import pandas as pd
from twentyq.beliefs import score_beliefs
from twentyq.observer import ideal_observer
from twentyq.players import get_backend
from twentyq.runs import read_run

def timed(f):
    "(seconds, result) of f()."
    t = time.perf_counter(); r = f(); return time.perf_counter() - t, r

if __name__ == "__main__":
    p = argparse.ArgumentParser()
    p.add_argument("runs", nargs="+", type=Path); p.add_argument("--scorer", default="smollm2-135m")
    a = p.parse_args()
    be, rows = get_backend(a.scorer, device="cpu"), []
    for run in a.runs:
        games = read_run(run)
        first, ideal = timed(lambda: ideal_observer(games))
        again, _ = timed(lambda: ideal_observer(games))
        scoring, _ = timed(lambda: score_beliefs(games, be, progress=False))
        rows.append(dict(run=run.name, games=len(games), states=len(ideal), observer_first_s=first, observer_again_s=again,
                         scoring_s=scoring, share_first=first / scoring, share_again=again / scoring))
    print(pd.DataFrame(rows).to_string(index=False, float_format=lambda x: f"{x:.3f}"))
