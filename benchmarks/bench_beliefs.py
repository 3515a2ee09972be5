"""How much work belief scoring takes: naive vs the authors' batched per-turn method vs twentyq's one pass per game.

    python benchmarks/bench_beliefs.py                    # 16 games, SmolLM2, CPU, one thread
    python benchmarks/bench_beliefs.py --cand-games 16    # time the candidate set on all games (slow on a CPU)

Games: 16 twenty-turn games of the embedded SmolLM2 as questioner against the scripted judge of the test fixtures
(greedy questioner, "Yes" on even turns; see tests/make_fixtures.py), built once and cached. The questioner never
sees the secret, so with greedy decoding the 16 transcripts are the same text; only the secrets differ.

True-secret beliefs, every state t = 0..20 of every game:
  (a) naive: one forward pass per state over the full context (`naive_beliefs`);
  (b) batched: all (state, secret) contexts of all games right-padded into batches of 32 (`HFBackend.logprobs`), as
      the authors' scoring code does;
  (c) ours: each game's transcript once plus 21 short branches under a tree mask (`score_games`).
  floor: transcript + (T+1)(|E| + |y|) tokens per game.
Candidate-set beliefs (data/nouns_all.txt, 2,630 words, "?" terminator), every state: (a) and (b) would run
16 x 21 x 2,630 full contexts, so their forward tokens are counted exactly but not run, and their time is
extrapolated from their measured throughput on the true-secret task; (c) is `score_candidates`, its tokens counted
for all games and its time measured on --cand-games games (extrapolated to all games when fewer).
Forward tokens count every position fed to the model, padding included.
"""
from __future__ import annotations
import argparse, json, sys, time
from pathlib import Path
import numpy as np

root = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(root/"tests"))

def games_for_bench(be, n, turns=20):
    "n scripted games (cached under the twentyq cache), secrets from the test nouns."
    from twentyq.core import cache_dir
    from twentyq.runs import read_jsonl
    from make_fixtures import scripted_games, write_jsonl
    p = cache_dir("bench")/f"games_{be.name}_{n}x{turns}.jsonl"
    if p.exists(): return read_jsonl(p)
    secrets = [w.strip() for w in (root/"data"/"nouns_test.txt").read_text().splitlines() if w.strip()][:n]
    t0 = time.time()
    games = scripted_games(be, secrets, n_turns=turns)
    print(f"built {n} games in {time.time()-t0:.0f} s -> {p}", file=sys.stderr)
    write_jsonl(p, games)
    return games

def batched_tokens(lengths, batch_size):
    "Padded forward tokens of `HFBackend.logprobs` over sequences of `lengths` (it feeds each without its last token)."
    return sum(len(lengths[i:i+batch_size]) * (max(lengths[i:i+batch_size]) - 1) for i in range(0, len(lengths), batch_size))

def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--games", type=int, default=16)
    ap.add_argument("--cand-games", type=int, default=2, help="games on which to time the candidate set (tokens: all games)")
    ap.add_argument("--naive-games", type=int, default=None, help="games on which to time (a) and (b) (default: all)")
    ap.add_argument("--threads", type=int, default=1, help="torch CPU threads (1 avoids OpenMP spin-waits on a shared machine)")
    ap.add_argument("--candidates", default=str(root/"data"/"nouns_all.txt"))
    ap.add_argument("--batch-size", type=int, default=32, help="batch size of (b)")
    args = ap.parse_args()
    import torch
    torch.set_num_threads(args.threads)
    from twentyq.engines.hf import split_pair
    from twentyq.engines.players import get_backend
    from twentyq.scoring.onepass import contexts, naive_beliefs, score_games, default_elicitation, _tail, _tail_branches, _candidate_list
    from twentyq.scoring.candidates import score_candidates
    be = get_backend("smollm2-135m", device="cpu", batch_size=args.batch_size)
    games = games_for_bench(be, args.games)
    E = default_elicitation
    cands_path = Path(args.candidates)
    words = [w.strip() for w in cands_path.read_text().splitlines() if w.strip()] if cands_path.exists() else None
    if not words or len(words) < 2630:
        raise SystemExit(f"need a word list of 2,630 words at {cands_path}")
    words = list(dict.fromkeys(words))[:2630]

    # the pairs every method scores
    ctxs = [contexts(g, be) for g in games]
    pairs = [(c + E, " " + g["secret"]) for g, cs in zip(games, ctxs) for c in cs]
    lens = [sum(map(len, split_pair(be.tok, c, y))) for c, y in pairs]
    floor, i = 0, 0            # per game: the transcript, plus every state's branch E + " " + secret
    for cs in ctxs:
        P = [len(be.encode(c)) for c in cs]
        floor += P[-1] + sum(lens[i+t] - P[t] for t in range(len(cs))); i += len(cs)
    T1 = len(ctxs[0])
    ng = args.naive_games or len(games)
    rows = []

    # (a) naive
    t0 = time.time()
    naive = [naive_beliefs(g, be) for g in games[:ng]]
    ta = (time.time() - t0) * len(games) / ng
    tok_a = sum(l - 1 for l in lens)
    # (b) batched, the authors' way
    t0 = time.time()
    nb = sum(len(c) for c in ctxs[:ng])
    batched = be.logprobs([c for c, _ in pairs[:nb]], [y for _, y in pairs[:nb]])
    tb = (time.time() - t0) * len(games) / ng
    tok_b = batched_tokens(lens, args.batch_size)
    # (c) ours
    st = {}
    t0 = time.time()
    ours = score_games(games, be, stats=st)
    tc = time.time() - t0
    err = max(np.abs(np.array(o) - np.array(n)).max() for o, n in zip(ours, naive))
    err_b = np.abs(np.array([x for o in ours[:ng] for x in o]) - np.array(batched)).max()
    est = "" if ng == len(games) else " (est.)"
    rows += [("true secret", "(a) naive, one pass per state", tok_a, ta, est),
             ("true secret", f"(b) batched per state, batch {args.batch_size}", tok_b, tb, est),
             ("true secret", "(c) ours, one pass per game", st["forward_tokens"], tc, ""),
             ("true secret", "floor: transcript + (T+1)(|E|+|y|)", floor, None, "")]

    # candidate set
    K = len(_candidate_list(words, games[0]["secret"])[0])
    tails = {}
    tok_ca, lens_c = 0, []
    for g, cs in zip(games, ctxs):
        cands, _ = _candidate_list(words, g["secret"])
        for c in cs:
            tids, memo = _tail_branches(be.tok, tails, _tail(be.tok, c), E, cands, "?")
            n_ctx = len(be.encode(c))
            lens_c += [n_ctx + len(memo[w][0]) for w in cands]
    tok_ca = sum(l - 1 for l in lens_c)
    tok_cb = batched_tokens(lens_c, args.batch_size)
    stc = {}
    score_candidates(games, be, words, stats=stc, dry_run=True)
    nc = min(args.cand_games, len(games))
    st1 = {}
    t0 = time.time()
    score_candidates(games[:nc], be, words, stats=st1)
    tcc = (time.time() - t0) * len(games) / nc
    est_c = "" if nc == len(games) else f" (est. from {nc} games)"
    rate_a, rate_b = tok_a / ta, tok_b / tb
    rows += [("candidates", "(a) naive, one pass per (state, word)", tok_ca, tok_ca / rate_a, " (not run: tokens counted, time est.)"),
             ("candidates", f"(b) batched per (state, word), batch {args.batch_size}", tok_cb, tok_cb / rate_b, " (not run: tokens counted, time est.)"),
             ("candidates", "(c) ours, one trie per state", stc["forward_tokens"], tcc, est_c)]

    print(f"\nbelief scoring, {len(games)} games x {T1} states, SmolLM2-135M, CPU, {torch.get_num_threads()} thread(s); "
          f"candidates: {K} words ({cands_path.name}) + '?'\n")
    print(f"| task | method | forward tokens | x floor | wall s | speed-up vs (a) | fewer tokens than (a) |")
    print(f"|---|---|---:|---:|---:|---:|---:|")
    base = {task: (tok, t) for task, m, tok, t, _ in rows if m.startswith("(a)")}
    for task, m, tok, t, note in rows:
        bt, bs = base[task]
        xf = f"{tok / floor:.2f}" if task == "true secret" else ""
        print(f"| {task} | {m}{note} | {tok:,} | {xf} | {'' if t is None else f'{t:,.1f}'} | "
              f"{'' if t is None else f'{bs / t:,.1f}x'} | {bt / tok:,.1f}x |")
    print(f"\nour candidate passes: {stc['passes']}, logit rows: {stc['logit_rows']:,}, real (unpadded) tokens: {stc['real_tokens']:,}")
    print(f"true secret: ours {st['passes']} passes, {st['real_tokens']:,} real tokens, {st['logit_rows']:,} logit rows; "
          f"max |ours - naive| = {err:.2e} nats, max |ours - batched| = {err_b:.2e} nats")

if __name__ == "__main__":
    main()
