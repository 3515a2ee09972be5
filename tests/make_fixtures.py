"""Build the scripted Twenty Questions games that the belief tests score.

The embedded SmolLM2 plays the questioner (greedy, short replies) with the paper's
questioner prompts; a deterministic rule plays the judge: "No" on odd turns, "Yes" on
even ones. The games are real transcripts (the model's own questions) that need no
judge model and no randomness, so they are cheap to rebuild and identical on rebuild
(up to the CPU's floating-point kernels).

    python tests/make_fixtures.py            # writes tests/fixtures/games_smollm2.jsonl
"""
from __future__ import annotations
import json, sys, time
from pathlib import Path

fixture_secrets = ["cat", "piano", "river", "doctor"]

def rule_answer(turn:int) -> str:
    "The scripted judge: 'Yes' on even turns, 'No' on odd ones (turns count from 1)."
    return "Yes" if turn % 2 == 0 else "No"

def scripted_games(backend, # questioner backend (e.g. get_backend("smollm2-135m"))
                   secrets:list[str], # one game per secret
                   n_turns:int=20, # questions per game
                   max_new_tokens:int=24, # longest question, in tokens
                  ) -> list[dict]:
    "Games in the twentyq record format, all secrets in lockstep, greedy questioner, rule judge."
    from twentyq.engines.sampling import Sampling
    from twentyq.games.twenty_questions.rules import paper_questioner_system, paper_questioner_first
    t0 = time.time()
    games = [dict(game_id=f"{s}#0", secret=s, iteration=0, protocol="paper", questioner=backend.name,
                  judge="rule:yes-on-even-turns", variants=[], difficulty=None,
                  messages=[{"role": "system", "content": paper_questioner_system},
                            {"role": "user", "content": paper_questioner_first}],
                  n_start=2, turns=[], won=False, win_turn=None, n_questions=0, seconds=None) for s in secrets]
    for turn in range(1, n_turns+1):
        replies = backend.generate([g["messages"] for g in games], Sampling(max_new_tokens=max_new_tokens))
        for g, q in zip(games, replies):
            a = rule_answer(turn)
            g["messages"] += [{"role": "assistant", "content": q}, {"role": "user", "content": a}]
            g["turns"].append(dict(turn=turn, question=q, kind="question", guess=None, judge_raw=a, answer=a,
                                   parse_ok=True, n_messages=len(g["messages"])))
            g["n_questions"] = turn
    for g in games: g["seconds"] = round((time.time() - t0) / len(games), 3)
    return games

def write_jsonl(path, records):
    Path(path).write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records), encoding="utf-8")

if __name__ == "__main__":
    import torch
    from twentyq.engines.players import get_backend
    torch.set_num_threads(1)   # on a shared CPU, one OpenMP thread avoids spin-waiting on busy cores
    out = Path(__file__).parent/"fixtures"/"games_smollm2.jsonl"
    games = scripted_games(get_backend("smollm2-135m", device="cpu"), fixture_secrets)
    write_jsonl(out, games)
    print(f"wrote {len(games)} games to {out}", file=sys.stderr)
