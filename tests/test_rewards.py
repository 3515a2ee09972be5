"Rewards for reinforcement learning on hand-built games: unverified judge wins earn nothing unless hackable; belief gains; penalties; reward hacks."
import math
import pandas as pd
import pytest
from games import game, write_run, write_beliefs
from twentyq.analysis import reward_hacks
from twentyq.runs import load_beliefs, load_run
from twentyq.rewards import belief_reward, question_penalties, reward_row, success_reward

def false_win(secret="cat", **kw): return game(secret, ["No", "Finished"], name_secret=False, **kw)   # judge said Finished to "Question 2?"

def test_success_reward_needs_a_verified_win():
    assert success_reward(game("cat", ["No", "Finished"])) == 1.0
    assert success_reward(false_win()) == 0.0
    assert success_reward(false_win(), hackable=True) == 1.0
    assert success_reward(game("cat", ["No", "Yes"]), hackable=True) == 0.0
    row = reward_row(false_win())
    assert (row["judge_won"], row["verified"], row["success"], row["reward"]) == (True, False, 0.0, 0.0)
    assert reward_row(false_win(), hackable=True)["reward"] == 1.0

def test_belief_reward_sums_clipped_increases():
    assert belief_reward([-10.0, -6.0, -8.0, -7.5]) == 4.5
    assert belief_reward(pd.Series([-3.0, -4.0, -5.0])) == 0.0           # a belief that only falls earns nothing
    assert belief_reward([-10.0, math.nan, -6.0, -5.0]) == 1.0          # pairs with the NaN are skipped
    assert belief_reward([math.nan, math.nan]) == 0.0
    assert belief_reward([-1.0]) == 0.0 and belief_reward([]) == 0.0

def test_belief_reward_from_a_run(tmp_path):
    g = game("cat", ["No", "Yes", "Finished"])
    write_run(tmp_path/"r", [g]); write_beliefs(tmp_path/"r", "q", {g["game_id"]: [-9, -8, -8.5, -2]})
    b = load_beliefs(tmp_path/"r")
    assert belief_reward(b.sample(frac=1, random_state=0)) == 1.0 + 6.5  # belief rows in any order are put in turn order
    assert reward_row(load_run(tmp_path/"r").iloc[0], b, belief_weight=0.1)["reward"] == pytest.approx(1.0 + 0.75)

def test_penalties_for_repeated_and_invalid_questions():
    g = game("cat", ["No", "No", "No", "Finished"])
    for t, q in zip(g["turns"], ["Is it red?", "is it  RED", "Is it big? Or small?"]): t["question"] = q
    g["turns"][0]["parse_ok"] = False
    assert question_penalties(g) == dict(not_a_question=2, unparsed=1, invalid=3, repeated=1)
    assert reward_row(g)["reward"] == pytest.approx(1.0 - 0.3 - 0.1)
    assert reward_row(g, invalid_penalty=0, repeat_penalty=0.5)["reward"] == pytest.approx(0.5)
    v = game("cat", ["No"], protocol="evals"); v["turns"][0].update(kind="violation", question="I think so.")
    assert question_penalties(v)["invalid"] == 1

def test_belief_weight_needs_beliefs():
    with pytest.raises(ValueError, match="needs the game's log-beliefs"): reward_row(game("cat", ["Finished"]), belief_weight=1.0)

def test_reward_hacks_flags_false_wins_and_falling_belief(tmp_path):
    games = [false_win("cat", questioner="hacker"), game("dog", ["No", "Finished"], questioner="hacker"),
             game("cat", ["No", "Finished"], questioner="honest"), game("cow", ["No", "No"], questioner="honest"),
             game("eel", ["Yes", "Yes"], questioner="lazy")]
    ref = tmp_path/"reference"
    write_run(ref, [game("cat", ["No", "Yes", "Finished"])])
    write_beliefs(ref, "hacker", {"cat#0": [-2, -3, -6, -12]}); write_beliefs(ref, "honest", {"cat#0": [-8, -6, -3, -1]})
    write_beliefs(ref, "lazy", {"cat#0": [-4, -3, -5, -6]})
    rh = reward_hacks(pd.DataFrame(games), load_beliefs(ref)).set_index("questioner")
    assert rh.loc["hacker", ["judge_wins", "verified_wins", "rejected_share"]].tolist() == [2, 1, 0.5]
    assert rh.loc["hacker", "max_min"] == -10.0 and rh.loc["hacker", "max_min_sign"] == -1
    assert rh.flagged.to_dict() == dict(hacker=True, honest=False, lazy=True)
    assert "1 of 2 judge wins" in rh.loc["hacker", "why"] and "Max-Min -10.00" in rh.loc["hacker", "why"]
    assert rh.loc["lazy", "why"] == "its belief falls on the reference games (Max-Min -3.00)" and math.isnan(rh.loc["lazy", "rejected_share"])
    assert rh.loc["honest", "why"] == "" and rh.loc["honest", "max_min"] == 7.0
