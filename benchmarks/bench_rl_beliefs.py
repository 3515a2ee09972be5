"""The beliefs of one RL step (ΔBelief-RL's reward): twentyq's one-pass scorer against the successor's full prefill per turn.

    python benchmarks/bench_rl_beliefs.py                 # 16 games (one step: 4 secrets x 4 rollouts), 8 and 20 turns
    python benchmarks/bench_rl_beliefs.py --games 32 --threads 2

Every turn's reward needs log b_t = log p(secret | s_t + E) under the `cia` belief prompt (E = the assistant turn "Is it '",
the secret's own tokens after it), t = 0..T, for every game of the step, scored by the current policy.

- successor: bethgelab/delta-belief-rl `delta_belief_rl/llm_agent/belief.py` (commit 4f1b065), `BeliefManager.belief_logprob`:
  for each turn (the `for step` loop, L59), every game still active re-renders its whole history up to that turn plus the
  elicitation as an assistant message (L63-68), and the padded batch of those sequences goes through the model (`_format_input`,
  L79; `compute_log_prob`, L103-106). Here: for each t, one forward pass over the batch of every game's s_t + E + secret,
  right-padded to the longest (`HFBackend.logprobs` with the batch size set to the number of games). Forward tokens count every
  position fed to the model, padding included.
- twentyq: `onepass.score_games` (what `grpo.turn_credit` calls): each game's transcript once, the T+1 short branches
  E + secret under a tree mask.

Games: the test fixtures' scripted games (SmolLM2-135M questioner, greedy, a rule judge), built once and cached, cut to the
turn count. The values of the two methods must agree within 1e-4 nats.
"""
from __future__ import annotations
import argparse, sys, time
from pathlib import Path
import numpy as np

root = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(root/"benchmarks"))

def successor_beliefs(games, be, E, lead, stats):
    "log b_t of every game, one padded forward pass per turn over all games still playing (the successor's way); tokens into `stats`."
    from twentyq.engines.hf import split_pair
    from twentyq.scoring.onepass import contexts
    ctxs = [contexts(g, be) for g in games]
    out = [[] for _ in games]
    for t in range(max(map(len, ctxs))):
        live = [i for i, c in enumerate(ctxs) if t < len(c)]
        pairs = [(ctxs[i][t] + E, lead + games[i]["secret"]) for i in live]
        lens = [sum(map(len, split_pair(be.tok, c, y))) - 1 for c, y in pairs]   # the last token is not fed
        stats["forward_tokens"] = stats.get("forward_tokens", 0) + len(pairs) * max(lens)
        for i, lp in zip(live, be.logprobs(*map(list, zip(*pairs)))): out[i].append(lp)
    return out

def one_case(be, games, turns, E, lead):
    "A row of the table: both methods on `games` cut to `turns` turns."
    from twentyq.edits import truncate
    from twentyq.scoring.onepass import score_games
    step = [truncate(g, turns) | {"game_id": g["game_id"]} for g in games]
    s_stats, o_stats = {}, {}
    t0 = time.time(); theirs = successor_beliefs(step, be, E, lead, s_stats); ts = time.time() - t0
    t0 = time.time(); ours = score_games(step, be, E, lead=lead, stats=o_stats, batch_size=len(step)); to = time.time() - t0
    err = max(np.abs(np.array(a) - np.array(b)).max() for a, b in zip(ours, theirs))
    return dict(turns=turns, games=len(step), s_tok=s_stats["forward_tokens"], s_wall=ts, o_tok=o_stats["forward_tokens"], o_wall=to, err=err)

def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--games", type=int, default=16, help="games of the step (secrets x rollouts per secret)")
    ap.add_argument("--turns", default="8,20", help="turn counts to measure")
    ap.add_argument("--threads", type=int, default=2, help="torch CPU threads")
    args = ap.parse_args()
    import torch
    torch.set_num_threads(args.threads)
    from twentyq.engines.players import get_backend
    from twentyq.scoring.onepass import belief_prompt_of
    from bench_beliefs import games_for_bench
    be = get_backend("smollm2-135m", device="cpu", batch_size=args.games)
    games = games_for_bench(be, args.games)
    E, lead = belief_prompt_of("cia")
    rows = [one_case(be, games, int(t), E, lead) for t in args.turns.split(",")]
    print(f"\nΔBelief-RL's beliefs for one step: {args.games} games, SmolLM2-135M, CPU, {torch.get_num_threads()} thread(s), cia belief prompt\n")
    print("| turns | states per game | successor: forward tokens | wall s | twentyq one pass: forward tokens | wall s | fewer tokens | faster | max abs diff (nats) |")
    print("|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for r in rows:
        print(f"| {r['turns']} | {r['turns'] + 1} | {r['s_tok']:,} | {r['s_wall']:.1f} | {r['o_tok']:,} | {r['o_wall']:.1f} | "
              f"{r['s_tok'] / r['o_tok']:.1f}x | {r['s_wall'] / r['o_wall']:.1f}x | {r['err']:.1e} |")
    if bad := [r["turns"] for r in rows if not r["err"] <= 1e-4]: raise SystemExit(f"the methods differ by more than 1e-4 nats at {bad} turns")

if __name__ == "__main__":
    main()
