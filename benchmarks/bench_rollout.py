"""Games per hour: batched lockstep (all games in one batch per step) against one game at a time, each with and without
the backend's prefix K/V cache (reusing the K/V of earlier calls for the prompt tokens they share).

Run: .venv/bin/python benchmarks/bench_rollout.py [--games 32] [--questions 4] [--dtype bfloat16]
(--questions 20: the protocol's length; --dtype bfloat16 on a CPU that multiplies bfloat16 natively, AVX512-BF16 or AMX)
The embedded SmolLM2 plays both roles under the paper's protocol. To keep the single-game arms within minutes on a CPU,
replies are capped (24/48 tokens) and games default to 4 questions: the ratios, not the absolute rates, are what this
measures. Each game draws from its own seeds, so in float32 all four arms play the same games. Run it on an otherwise
idle machine with all its cores (torch's default): batched decoding is compute-bound and gains from every core, decoding
one game at a time is bound by memory bandwidth and barely does, so OMP_NUM_THREADS=1 gives lower ratios. The last
columns show where the time goes: prefill (compute-bound, the same work in both modes) and decode; rows/step is the mean
batch size of a decode step: lockstep waits, each call, for the batch's longest reply, so its last steps run on a few
rows."""
import argparse, time
import torch
import twentyq.engines.players
from twentyq.rollout import play

made = []   # the backends play() makes, to read their stats (time in prefill and decode, rows per decode step)
def _recording(get_backend):
    def f(*args, **kw): made.append(get_backend(*args, **kw)); return made[-1]
    return f
twentyq.engines.players.get_backend = _recording(twentyq.engines.players.get_backend)

def games_per_hour(max_active, cache_tokens, a):
    "Play a.games games with at most `max_active` in play at once; return (games per hour, wall seconds, games, backend stats)."
    kw = dict(secrets="nouns_test", limit=a.games, iterations=1, max_questions=a.questions, questioner_max_tokens=a.q_tokens,
              judge_max_tokens=a.j_tokens, progress=False, batch_size=a.games, prefix_cache_tokens=cache_tokens, dtype=a.dtype)
    play(questioner="smollm2-135m", max_active=1, **{**kw, "limit": 1, "max_questions": 1})   # warm-up: load the model
    made.clear(); t = time.time()
    games = play(questioner="smollm2-135m", max_active=max_active, **kw)
    wall = time.time() - t
    assert len(games) == a.games
    return a.games / wall * 3600, wall, games, made[0].stats

if __name__ == "__main__":
    p = argparse.ArgumentParser()
    p.add_argument("--games", type=int, default=32); p.add_argument("--questions", type=int, default=4)
    p.add_argument("--q-tokens", type=int, default=24); p.add_argument("--j-tokens", type=int, default=48)
    p.add_argument("--cache-tokens", type=int, default=32768)
    p.add_argument("--dtype", default=None, help="the models' dtype (default: the project's, float32 on CPU)")
    a = p.parse_args()
    arms = [("one game at a time", 1, 0), ("one game at a time", 1, a.cache_tokens),
            (f"batched lockstep ({a.games})", a.games, 0), (f"batched lockstep ({a.games})", a.games, a.cache_tokens)]
    rows = [(name, cache, *games_per_hour(active, cache, a)) for name, active, cache in arms]
    base = {cache: gph for name, cache, gph, *_ in rows[:2]}
    by_game = lambda g: g.drop(columns="seconds").sort_values("game_id", ignore_index=True)   # games are recorded as they finish
    same = all(by_game(r[4]).equals(by_game(rows[0][4])) for r in rows[1:])
    print(f"{a.games} games, {a.questions} questions each, replies <= {a.q_tokens}/{a.j_tokens} tokens, smollm2-135m vs itself, {made[0].device}, {made[0].model.dtype}, {torch.get_num_threads()} threads")
    print(f"{'mode':<28}{'prefix cache':>13}{'wall (s)':>10}{'games/hour':>12}{'vs 1-at-a-time, same cache':>28}{'vs plain 1-at-a-time':>22}"
          f"{'prefill (s)':>13}{'decode (s)':>12}{'decode steps':>14}{'rows/step':>11}")
    for name, cache, gph, wall, _, st in rows:
        print(f"{name:<28}{'on' if cache else 'off':>13}{wall:>10.1f}{gph:>12.0f}{gph / base[cache]:>27.1f}x{gph / rows[0][2]:>21.1f}x"
              f"{st['prefill_s']:>13.1f}{st['decode_s']:>12.1f}{st['decode_steps']:>14}{st['decode_rows'] / max(st['decode_steps'], 1):>11.1f}")
    print(f"the four arms played the same games (so their rates compare the same work): {same}"
          + ("" if same or made[0].model.dtype == torch.float32 else " (below float32 reused K/V and batch-mates change replies: see the rollout notebook)"))
