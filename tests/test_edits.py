"Counterfactual edits of game records: pure functions on hand-built records, and edited real games score unchanged."
import copy
from pathlib import Path
import numpy as np
import pytest
from twentyq.runs import toy_game
from twentyq.edits import flip_answer, truncate, shortest_successful, flip_penultimate

def game(secret="cat", answers=("Yes", "No", "Finished"), iteration=0):
    return toy_game(secret, [f"Q{i}?" for i in range(1, len(answers) + 1)], answers, iteration)

def test_flip_answer():
    g = game()
    before = copy.deepcopy(g)
    f = flip_answer(g, 2)
    assert g == before
    assert f["game_id"] == "cat#0+flip2"
    assert [t["answer"] for t in f["turns"]] == ["Yes", "Yes", "Finished"]
    assert f["messages"][5] == {"role": "user", "content": "Yes"}
    assert [m for i, m in enumerate(f["messages"]) if i != 5] == [m for i, m in enumerate(g["messages"]) if i != 5]
    assert flip_answer(f, 2)["messages"] == g["messages"]

def test_flip_answer_errors():
    g = game()
    with pytest.raises(ValueError, match="cat#0.*Finished"): flip_answer(g, 3)
    with pytest.raises(ValueError, match="no turn 9"): flip_answer(g, 9)
    g["messages"][3]["content"] = "Yes and no"
    with pytest.raises(ValueError, match="does not carry"): flip_answer(g, 1)

def test_flip_keeps_lowercase_answers():
    g = game(answers=("Yes", "No")); g["messages"][5]["content"] = "no"
    assert flip_answer(g, 2)["messages"][5]["content"] == "yes"

def test_truncate():
    g = game()
    t = truncate(g, 2)
    assert t["game_id"] == "cat#0+trunc2" and t["messages"] == g["messages"][:6]
    assert [x["turn"] for x in t["turns"]] == [1, 2]
    assert (t["won"], t["win_turn"], t["n_questions"]) == (False, None, 2)
    assert truncate(g, 0)["messages"] == g["messages"][:2] and truncate(g, 0)["turns"] == []
    assert truncate(g, 3)["won"] and truncate(g, 3)["win_turn"] == 3

def test_shortest_successful():
    rs = [game("cat", ("No", "Finished"), 1), game("cat", ("Yes", "Finished"), 0),
          game("cat", ("Finished",), 5), game("dog", ("No", "No"), 0), game("ant", ("Yes", "No", "Finished"), 3)]
    assert [r["game_id"] for r in shortest_successful(rs)] == ["ant#3", "cat#5"]
    rs[2]["won"] = False
    assert [r["game_id"] for r in shortest_successful(rs)] == ["ant#3", "cat#0"]   # tie at 2 questions: smaller game_id

def test_flip_penultimate():
    assert flip_penultimate(game())["game_id"] == "cat#0+flip2"
    assert [t["answer"] for t in flip_penultimate(game(answers=("Yes", "Yes", "No")))["turns"]] == ["Yes", "No", "No"]
    with pytest.raises(ValueError, match="fewer than two"): flip_penultimate(game(answers=("Finished",)))

def test_edited_real_games_score_unchanged():
    "Edited fixture games go through score_beliefs as they are; a flip at turn k leaves the beliefs before it alone."
    import torch
    from twentyq.runs import read_jsonl
    from twentyq.players import get_backend
    from twentyq.beliefs import score_beliefs
    from twentyq.onepass import naive_beliefs
    n = torch.get_num_threads(); torch.set_num_threads(1)
    try:
        be = get_backend("smollm2-135m", device="cpu")
        g = truncate(read_jsonl(Path(__file__).parent/"fixtures"/"games_smollm2.jsonl")[0], 5)
        f = flip_answer(g, 2)
        df = score_beliefs([g, f, flip_penultimate(g)], be, candidates=["dog", "cat", "piano"], progress=False)
        assert df.game_id.unique().tolist() == [g["game_id"], f["game_id"], g["game_id"] + "+flip4"]
        a, b = (df[df.game_id == x].logprob.to_numpy() for x in (g["game_id"], f["game_id"]))
        np.testing.assert_allclose(a[:2], b[:2], atol=1e-5)     # states before the flipped answer are the same
        assert np.abs(a[2:] - b[2:]).max() > 1e-3               # after it, the belief moves
        np.testing.assert_allclose(b, naive_beliefs(f, be), atol=1e-4)
    finally: torch.set_num_threads(n)
