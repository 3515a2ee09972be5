"Hand-built games and run folders for the tests, made with the one builder of game records (`twentyq.runs`)."
import pandas as pd
from twentyq.runs import toy_game, append_jsonl

def game(secret, answers, iteration=0, questioner="q", protocol="paper", name_secret=True, max_questions=5):
    "A game with these judge answers; a final 'Finished' is a true win when `name_secret` (the question names the secret), else a false win."
    qs = [f"Is it a {secret}?" if a == "Finished" and name_secret else f"Question {i}?" for i, a in enumerate(answers, 1)]
    return toy_game(secret, qs, answers, iteration, raw="<answer>{}</answer>", protocol=protocol, questioner=questioner, judge="j",
                    max_questions=max_questions, difficulty=None) | dict(seconds=1.0)

def write_run(folder, games):
    "A run folder holding `games`."
    folder.mkdir(parents=True, exist_ok=True)
    (folder/"games.jsonl").touch()
    for g in games: append_jsonl(folder/"games.jsonl", g)

def write_beliefs(run, scorer, logprobs, belief_prompt="paper"):
    "logprobs: {game_id: [lp at t=0..T]} -> run/beliefs-<scorer>.parquet/part-00000.parquet (another prompt: beliefs-<scorer>--<prompt>)"
    rows = [dict(run=run.name, game_id=gid, scorer=scorer, secret=gid.split("#")[0], turn=t, logprob=float(lp))
            for gid, lps in logprobs.items() for t, lp in enumerate(lps)]
    if not rows: return
    folder = run/(f"beliefs-{scorer}.parquet" if belief_prompt == "paper" else f"beliefs-{scorer}--{belief_prompt}.parquet")
    folder.mkdir()
    df = pd.DataFrame(rows)
    (df if belief_prompt == "paper" else df.assign(belief_prompt=belief_prompt)).to_parquet(folder/"part-00000.parquet")
