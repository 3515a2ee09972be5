"The `twentyq` command end to end: play a run, then score it."
import subprocess
import pandas as pd
from conftest import twentyq

def test_play_then_score(tmp_path):
    "A run played by one command and scored by another (the model-free players: a model plays in test_rollout's processes)."
    run = tmp_path/"run"
    subprocess.run(twentyq("play", "--questioner", "wordnet", "--limit", "1", "--max-questions", "2", "--out", str(run)),
                   check=True, capture_output=True)
    r = subprocess.run(twentyq("score", "--run", str(run), "--scorer", "smollm2-135m"), check=True, capture_output=True, text=True)
    assert "beliefs:" in r.stdout
    b = pd.read_parquet(next(run.glob("beliefs-*")))
    assert sorted(b.turn) == [0, 1, 2] and (b.logprob < 0).all() and set(b.scorer) == {"smollm2-135m"}
    r = subprocess.run(twentyq("score", "--scorer", "smollm2-135m"), capture_output=True, text=True)
    assert r.returncode != 0 and "--run is required" in r.stderr

def test_play_cia_summary(tmp_path):
    "The successor's protocol with no model (the WordNet questioner and the knowledge judge): its summary has Mean@k and Pass@k."
    r = subprocess.run(twentyq("play", "--protocol", "cia", "--questioner", "wordnet", "--judge", "wordnet-judge", "--iterations", "2",
                        "--limit", "3", "--max-questions", "13", "--out", str(tmp_path/"run")), check=True, capture_output=True, text=True)
    head, row = r.stdout.splitlines()[:2]
    assert head.split()[:11] == ["game", "protocol", "questioner", "judge", "n", "pass1_mean", "pass1_std", "k", "mean_at_k", "mean_at_k_std", "pass_at_k"]
    assert row.split()[:5] == ["twenty-questions", "cia", "wordnet", "wordnet-judge", "6"] and row.split()[7] == "2"   # every record names its game
    games = pd.read_json(tmp_path/"run"/"games.jsonl", lines=True)
    turns = [t for ts in games.turns for t in ts]
    assert all(t["answer"] in ("Yes", "No", "Finished", "Invalid", "Repeated") and "judge_answer" in t and "correction" in t for t in turns)
    assert all(g.turns[-1]["answer"] == "Finished" for g in games[games.won].itertuples())

def test_a_player_is_refused_in_a_role_it_cannot_play(tmp_path):
    "The model-free questioner plays the knowledge judge when no judge is named; a player in a role it cannot take is one line, status 2."
    r = subprocess.run(twentyq("play", "--questioner", "wordnet", "--limit", "3", "--out", str(tmp_path/"run")), check=True, capture_output=True, text=True)
    row = r.stdout.splitlines()[1].split()
    assert row[:5] == ["twenty-questions", "paper", "wordnet", "wordnet-judge", "3"] and float(row[5]) == 100.0   # the knowledge judge answered: all won
    for args, role, right in [(["play", "--questioner", "wordnet", "--judge", "wordnet", "--out", str(tmp_path/"a")], "judge", "'wordnet-judge'"),
                              (["play", "--questioner", "wordnet-judge", "--out", str(tmp_path/"b")], "questioner", "'wordnet'"),
                              (["score", "--run", str(tmp_path/"run"), "--scorer", "wordnet-judge"], "scorer", "'wordnet'"),
                              (["reproduce", "--judge", "wordnet", "--out", str(tmp_path/"c")], "judge", "'wordnet-judge'")]:
        r = subprocess.run(twentyq(*args), capture_output=True, text=True)
        assert r.returncode == 2 and len(r.stderr.strip().splitlines()) == 1, (args, r.stderr)
        assert r.stderr.startswith("twentyq: error: ") and f"cannot be the {role}" in r.stderr and f"use {right}" in r.stderr
    assert not (tmp_path/"a").exists() and not (tmp_path/"c").exists()   # refused before anything was written

def test_play_guess_my_city(tmp_path):
    "Guess My City from the command line, under both peers' protocols, with the model-free city players; a player of another game is refused."
    for protocol, limit in [("paprika", 8), ("lmrl", 4)]:
        r = subprocess.run(twentyq("play", "--game", "guess-my-city", "--protocol", protocol, "--questioner", "cities",
                                   "--limit", str(limit), "--out", str(tmp_path/protocol)), check=True, capture_output=True, text=True)
        head, row = (l.split() for l in r.stdout.splitlines()[:2])
        assert head[:5] == ["game", "protocol", "questioner", "judge", "n"] and row[:5] == ["guess-my-city", protocol, "cities", "cities-judge", str(limit)]
        games = pd.read_json(tmp_path/protocol/"games.jsonl", lines=True)
        assert set(games.game) == {"guess-my-city"} and games.won.all() and (games.n_questions <= 20).all()
        shown = {"paprika": "goal reached", "lmrl": "Yes."}[protocol]
        assert all(g.turns[-1]["answer"] == shown and ", " in g.turns[-1]["question"] for g in games.itertuples())
    for args, says in [(["--game", "guess-my-city", "--questioner", "wordnet"], "'wordnet' is a model-free player of twenty-questions"),
                       (["--game", "chess"], "Unknown game 'chess'"),
                       (["--game", "guess-my-city", "--protocol", "cia"], "Unknown protocol 'cia' of guess-my-city")]:
        r = subprocess.run(twentyq("play", *args, "--out", str(tmp_path/"x")), capture_output=True, text=True)
        assert r.returncode == 2 and r.stderr.startswith("twentyq: error: ") and says in r.stderr, (args, r.stderr)
    assert not (tmp_path/"x").exists()

def test_play_wordle(tmp_path):
    ("Wordle from the command line: the optimal questioner against the environment under both protocols, the game's first "
     "protocol (PAPRIKA's) and its six guesses when none are named; a model plays the environment, not itself; a player in "
     "a role it cannot play is refused.")
    for protocol, limit in [(None, 5), ("lmrl", 5)]:
        opts = ["--protocol", protocol] if protocol else []
        r = subprocess.run(twentyq("play", "--game", "wordle", *opts, "--questioner", "wordle", "--limit", str(limit),
                                   "--out", str(tmp_path/str(protocol))), check=True, capture_output=True, text=True)
        row = r.stdout.splitlines()[1].split()
        assert row[:5] == ["wordle", protocol or "paprika", "wordle", "wordle-judge", str(limit)] and float(row[5]) == 100.0
        games = pd.read_json(tmp_path/str(protocol)/"games.jsonl", lines=True)
        assert (games.max_questions == 6).all() and (games.n_questions <= 6).all()
        won = {None: "Goal reached", "lmrl": "g g g g g"}[protocol]
        assert all(g.turns[-1]["answer"] == won for g in games.itertuples())
    r = subprocess.run(twentyq("play", "--game", "wordle", "--questioner", "smollm2-135m", "--limit", "1", "--max-questions", "1",
                               "--questioner-max-tokens", "8", "--out", str(tmp_path/"model")), check=True, capture_output=True, text=True)
    assert r.stdout.splitlines()[1].split()[:4] == ["wordle", "paprika", "smollm2-135m", "wordle-judge"]   # its judge is a program
    for args, says in [(["--questioner", "wordle", "--judge", "wordle"], "'wordle' cannot be the judge"),
                       (["--questioner", "wordle", "--judge", "cities-judge"], "'cities-judge' is a model-free player of guess-my-city"),
                       (["--protocol", "paper"], "Unknown protocol 'paper' of wordle")]:
        r = subprocess.run(twentyq("play", "--game", "wordle", *args, "--out", str(tmp_path/"x")), capture_output=True, text=True)
        assert r.returncode == 2 and r.stderr.startswith("twentyq: error: ") and says in r.stderr, (args, r.stderr)
    assert not (tmp_path/"x").exists()
