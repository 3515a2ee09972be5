"""The model-free WordNet questioner against the knowledge judge: win rate, questions to win, and time, on every word list.

    python benchmarks/bench_wordnet.py            # all rows, pinned to one core

Each row plays one game per secret of the list, questioner `wordnet` (candidates: the list named in `candidates`;
evals-shortlist: each game's 20-word shortlist) against `wordnet-judge` (answers from the knowledge), under the
protocol's own rules (`twentyq.games.twenty_questions.wordnet.play_wordnet`). `mean Q` counts the replies of won games, questions and the final guess
(evals' guesses too, which its rules do not count as questions); `optimum` is log2(candidates) + 1, a perfect halving plus the guess. `meaning` is the share of questions
(guesses aside) about meaning rather than the word's letters. `s` is the wall time of the row: building the
questioner's view of its candidates and playing all games (the knowledge file is read once, before, in `load s`).
Targets (issue 15), nouns_test with the 2,630 nouns as candidates, paper protocol: >= 95% won within 20 questions,
mean questions to win <= 14, all 263 games in < 10 s on one core.

    python benchmarks/bench_wordnet.py --judge smollm2-135m --limit 32 --judge-max-tokens 96 [--lenient]

plays the questioner against a language-model judge instead (the paper protocol, through `twentyq.rollout.play`, both
cores): the win rate, the share of the judge's answers that contradict the knowledge (`contradictions`, the cross-check
the questioner records), the games with at least one, and the false wins (a judge's "Finished" to a question that does
not name the secret).
"""
from __future__ import annotations
import math, os, statistics, sys, time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

ROWS = [  # secrets, protocol, candidates
    ("nouns_test", "paper", "nouns_all"), ("nouns_test", "evals", "nouns_all"), ("nouns_test", "lmrl", "nouns_all"),
    ("evals207", "paper", "evals207"), ("evals207", "evals", "evals207"), ("evals207", "evals-shortlist", "evals207"),
    ("lmrl158", "paper", "lmrl158"), ("lmrl158", "lmrl", "lmrl158"),
]
LETTERS = ("Does the word", "Is the second letter", "Is the third letter")

def row(secrets, protocol, candidates):
    from twentyq import knowledge as K, wordnet as W
    W._pools.clear()                                   # every row builds its candidates' view afresh
    t0 = time.perf_counter()
    games = W.play_wordnet(secrets, candidates, protocol)
    s = time.perf_counter() - t0
    won = [g for g in games if g["won"]]
    qs = [t["question"] for g in games for t in g["turns"] if t.get("kind", "question") == "question"
          and not t["question"].startswith(("Is the secret word ", "Is the object "))]
    n = 20 if protocol == "evals-shortlist" else len(W.candidate_words(candidates))
    wins_q = [len(g["turns"]) for g in won]   # questions and guesses (evals' guesses are not questions: counted here)
    return dict(secrets=secrets, protocol=protocol, candidates="shortlist" if protocol == "evals-shortlist" else candidates,
                n=n, games=len(games), won=len(won), rate=len(won) / len(games), mean=statistics.mean(wins_q),
                median=statistics.median(wins_q), max=max(wins_q), optimum=math.log2(n) + 1,
                meaning=sum(not q.startswith(LETTERS) for q in qs) / len(qs), s=s)

def judge_row(judge, limit, judge_max_tokens, lenient=False):
    "The questioner against a language-model judge on the first `limit` test secrets."
    from twentyq.rollout import play
    from twentyq.metrics import crosscheck
    t0 = time.perf_counter()
    games = play(questioner="wordnet", judge=judge, protocol="paper", secrets="nouns_test", limit=limit, max_questions=20, judge_max_tokens=judge_max_tokens,
                 lenient=lenient).to_dict("records")
    answers = sum(len(g["turns"]) for g in games)
    bad = sum(len(g["contradictions"]) for g in games)
    print(f"\nwordnet vs {judge} (paper protocol{', lenient reading' if lenient else ''}, judge replies <= {judge_max_tokens} tokens), {len(games)} test secrets, {time.perf_counter() - t0:.0f} s")
    print(f"won {sum(g['won'] for g in games)}/{len(games)}, of which false wins {sum(crosscheck(g) is False for g in games)}; "
          f"answers contradicting the knowledge {bad}/{answers} ({100 * bad / max(answers, 1):.1f}%), "
          f"in {sum(bool(g['contradictions']) for g in games)} of {len(games)} games; mean questions {statistics.mean(g['n_questions'] for g in games):.1f}")
    unparsed = sum(t["parse_ok"] is False for g in games for t in g["turns"])
    print(f"judge replies that did not parse (answered No by rule, e.g. cut off while thinking): {unparsed}/{answers} ({100 * unparsed / max(answers, 1):.1f}%)")

def main():
    if "--judge" in sys.argv:
        a = sys.argv
        return judge_row(a[a.index("--judge") + 1], int(a[a.index("--limit") + 1]) if "--limit" in a else 32,
                         int(a[a.index("--judge-max-tokens") + 1]) if "--judge-max-tokens" in a else 96, "--lenient" in a)
    if hasattr(os, "sched_setaffinity"): os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})   # one core
    t0 = time.perf_counter()
    from twentyq import knowledge as K, wordnet as W
    K.load_knowledge()
    load = time.perf_counter() - t0
    print(f"import + load knowledge: {load:.2f} s (one core)\n")
    head = f"{'secrets':<11} {'protocol':<16} {'candidates':<11} {'n':>5} {'games':>5} {'won':>5} {'won %':>6} {'mean Q':>6} {'median':>6} {'max':>4} {'optimum':>7} {'meaning':>7} {'s':>6}"
    print(head); print("-" * len(head))
    rows = [row(*r) for r in ROWS]
    for r in rows:
        print(f"{r['secrets']:<11} {r['protocol']:<16} {r['candidates']:<11} {r['n']:>5} {r['games']:>5} {r['won']:>5} {100*r['rate']:>6.1f} "
              f"{r['mean']:>6.2f} {r['median']:>6.1f} {r['max']:>4} {r['optimum']:>7.2f} {100*r['meaning']:>6.0f}% {r['s']:>6.2f}")
    t = rows[0]
    ok = [t["rate"] >= 0.95, t["mean"] <= 14, t["s"] < 10]
    print(f"\ntargets (nouns_test, paper, 2,630 candidates): won {100*t['rate']:.1f}% >= 95% {'ok' if ok[0] else 'FAIL'}; "
          f"mean {t['mean']:.2f} <= 14 {'ok' if ok[1] else 'FAIL'}; {t['s']:.2f} s < 10 s {'ok' if ok[2] else 'FAIL'}")
    return 0 if all(ok) else 1

if __name__ == "__main__": sys.exit(main())
