"""What the ideal observer costs beside the belief scoring of the same games (issue 53: at most 10% with the knowledge judge),
and what a model judge costs for the questions the knowledge cannot read (tokens and time per game, against the token floor).

Knowledge judge (the default): for each run folder, its games, the ideal observer over all 2,630 nouns
(`observer.ideal_observer`) timed twice (the first call builds the candidates' pool and the knowledge's masks of new questions; the
second reuses them), and the belief scoring of the same games by a model (`beliefs.score_beliefs`, the paper's prompt, the model
loaded beforehand and not timed). One process, nothing else running.

Model judge (`--judge MODEL`): the same observer with MODEL's likelihoods for the questions the knowledge cannot read, over the
first `--n-candidates` words of `--candidates`. Per run: the distinct unread questions, and the tokens of three ways to get
P(Yes | q, c) and P(No | q, c) for every such question and candidate:
  naive    every candidate's judge prompt whole, once per answer (`HFBackend.logprobs` one pair at a time);
  floor    each distinct token once: per question, the start its prompts share, then each candidate's own tokens (the trie);
  run      what `observer.judge_likelihoods` fed the model (the floor plus the padding of its batches);
and the judge's seconds, per game and per thousand run tokens.

Run: .venv/bin/python benchmarks/bench_observer.py RUN [RUN ...] [--scorer smollm2-135m]   (prints a table)
     .venv/bin/python benchmarks/bench_observer.py RUN [RUN ...] --judge smollm2-135m --n-candidates 16 64
     e.g. the main job's runs: reports/embedded/runs/paper--smollm2-135m reports/embedded/runs/paper--wordnet"""
import argparse, time
from pathlib import Path
import pandas as pd
from twentyq.scoring.beliefs import score_beliefs
from twentyq.scoring.observer import ideal_observer, unread_questions
from twentyq.engines.players import get_backend
from twentyq.runs import read_run
from twentyq.games.twenty_questions.wordnet import candidate_words

def timed(f):
    "(seconds, result) of f()."
    t = time.perf_counter(); r = f(); return time.perf_counter() - t, r

def knowledge_rows(runs, be):
    "The knowledge judge's observer beside the belief scoring, per run."
    rows = []
    for run in runs:
        games = read_run(run)
        first, ideal = timed(lambda: ideal_observer(games))
        again, _ = timed(lambda: ideal_observer(games))
        scoring, _ = timed(lambda: score_beliefs(games, be, progress=False))
        rows.append(dict(run=run.name, games=len(games), states=len(ideal), observer_first_s=first, observer_again_s=again,
                         scoring_s=scoring, share_first=first / scoring, share_again=again / scoring))
    return rows

def judge_rows(runs, judge, candidates, sizes):
    "The model judge's tokens and time per run and candidate-set size."
    rows = []
    for run in runs:
        games = read_run(run)
        for n in sizes:
            cands, st = candidate_words(candidates)[:n], {}
            qs = sum(len(v) for v in unread_questions(games, cands).values())
            s, _ = timed(lambda: ideal_observer(games, cands, judge=judge, stats=st))
            rows.append(dict(run=run.name, games=len(games), candidates=n, unread_questions=qs,
                             naive_tokens=st.get("naive_tokens", 0), floor_tokens=st.get("real_tokens", 0),
                             run_tokens=st.get("forward_tokens", 0), naive_over_floor=st.get("naive_tokens", 0) / max(1, st.get("real_tokens", 0)),
                             run_over_floor=st.get("forward_tokens", 0) / max(1, st.get("real_tokens", 0)), judge_s=s,
                             s_per_game=s / len(games), s_per_1k_tokens=1000 * s / max(1, st.get("forward_tokens", 0))))
    return rows

if __name__ == "__main__":
    p = argparse.ArgumentParser()
    p.add_argument("runs", nargs="+", type=Path); p.add_argument("--scorer", default="smollm2-135m")
    p.add_argument("--judge", default=None, help="a model judge for the questions the knowledge cannot read")
    p.add_argument("--candidates", default="nouns_test"); p.add_argument("--n-candidates", type=int, nargs="+", default=[16])
    a = p.parse_args()
    rows = (judge_rows(a.runs, get_backend(a.judge, device="cpu"), a.candidates, a.n_candidates) if a.judge
            else knowledge_rows(a.runs, get_backend(a.scorer, device="cpu")))
    print(pd.DataFrame(rows).to_string(index=False, float_format=lambda x: f"{x:.3f}"))
