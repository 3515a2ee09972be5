"Tests of twentyq.metrics on small hand-built game records; every expected number is worked out by hand."
import math
import pandas as pd
import pytest
from twentyq.metrics import *


def turn(i, question, answer="No", kind="question", guess=None, raw=None):
    return dict(turn=i, question=question, kind=kind, guess=guess, judge_raw=raw, answer=answer,
                parse_ok=True, n_messages=2 + 2*i)


def game(secret, iteration=0, win_at=None, n=20, last=None, protocol="paper", questioner="a", judge="b",
         variants=(), difficulty=None):
    "Won at question `win_at` (last question `last`, answered Finished), else lost after `n` questions."
    k = win_at or n
    turns = [turn(i, f"Question {i}: is it bigger than a bread bin?") for i in range(1, k + 1)]
    if win_at: turns[-1].update(question=last or f"Is the secret word {secret}?", answer="Finished")
    return dict(game_id=f"{secret}#{iteration}", secret=secret, iteration=iteration, protocol=protocol,
                questioner=questioner, judge=judge, variants=list(variants), difficulty=difficulty, messages=[],
                n_start=2, turns=turns, won=bool(win_at), win_turn=win_at, n_questions=k, seconds=0.5)


# 3 iterations x 2 secrets. Iteration 0: both won (at 2 and 10); iteration 1: one won (at 4); iteration 2: none.
RUN = [game("apple", 0, win_at=2), game("horse", 0, win_at=10),
       game("apple", 1, win_at=4), game("horse", 1),
       game("apple", 2), game("horse", 2)]


# --- games_frame ---------------------------------------------------------------------------------

def test_games_frame():
    df = games_frame(RUN)
    assert len(df) == 6 and {"secret", "turns", "won", "win_turn"} <= set(df.columns)
    assert isinstance(df.turns[1], list) and len(df.turns[1]) == 10
    assert games_frame(df) is df


@pytest.mark.parametrize("empty", [[], pd.DataFrame()])
def test_no_games_is_a_clear_error(empty):
    for f in (games_frame, false_win_rate, pass_at_1, cumulative_win_rate, evals_metrics, lmrl_metrics, summary):
        with pytest.raises(ValueError, match="No games"): f(empty)


# --- plurals and names_secret --------------------------------------------------------------------

@pytest.mark.parametrize("word,plural", [("dog", "dogs"), ("box", "boxes"), ("dish", "dishes"), ("glass", "glasses"),
                                         ("city", "cities"), ("toy", "toys"), ("knife", "knives"), ("wolf", "wolves"),
                                         ("tomato", "tomatoes"), ("foot", "feet"), ("fire truck", "fire trucks")])
def test_plurals(word, plural):
    assert plural in plurals(word)


def test_plurals_match_lemminflect_where_installed():
    li = pytest.importorskip("lemminflect")
    for w in ["box", "city", "knife", "bus", "church", "baby", "house", "wife", "hero"]:
        assert plurals(w)[0] == li.getInflection(w, "NNS")[0]


@pytest.mark.parametrize("question,expected", [
    ("Is it a cat?", True), ("is it a Cat", True), ("Cats?", True), ("IS IT A CAT!", True),
    ("Is it a category?", False), ("Can it concatenate strings?", False), ("Is it a tomcat?", False),
    ("Is it catnip?", False), ("Is it an animal?", False), ("", False)])
def test_names_secret_whole_word(question, expected):
    assert names_secret(question, "cat") is expected


def test_names_secret_plurals():
    assert names_secret("Is it one of the boxes?", "box")
    assert names_secret("Are they cities?", "city")
    assert names_secret("Is it knives?", "knife")
    assert not names_secret("Is it a boxer?", "box")
    assert not names_secret("Is it citizenship?", "city")


def test_names_secret_variants():
    assert names_secret("Is it a sofa?", "couch", ["sofa", "settee"])
    assert names_secret("Is it settees?", "couch", ["sofa", "settee"])
    assert names_secret("Is it a mobile phone?", "cellphone", ["mobile phone"])
    assert not names_secret("Is it a sofa?", "couch")
    assert not names_secret("Is it a sofabed?", "couch", ["sofa"])
    with pytest.raises(ValueError): names_secret("Is it?", "  ")


# --- crosscheck and false_win_rate ---------------------------------------------------------------

def test_crosscheck():
    assert crosscheck(RUN[0]) is True
    assert crosscheck(RUN[3]) is None                        # lost
    hacked = game("horse", win_at=3, last="Is it the thing you are thinking of?")
    assert crosscheck(hacked) is False
    assert crosscheck(game("couch", win_at=3, last="Is it a sofa?", variants=["sofa"])) is True
    assert crosscheck(games_frame([hacked]).iloc[0]) is False


def test_false_win_rate():
    hacks = [game("horse", i, win_at=2, last="Is it what the answerer has in mind?") for i in range(2)]
    assert false_win_rate(RUN) == 0.0                       # 3 Finished, all honest
    assert false_win_rate(RUN + hacks) == pytest.approx(2/5)
    assert false_win_rate(games_frame(hacks)) == 1.0


def test_false_win_rate_nan_without_finished_games():
    assert math.isnan(false_win_rate([RUN[3], RUN[4], RUN[5]]))


# --- pass@1 and cumulative win rate --------------------------------------------------------------

def test_pass_at_1():
    "The std is np.std over iterations, ddof=0, as the paper's authors compute it (delta-belief-rl metrics_utils.py L400-419)."
    mean, std = pass_at_1(RUN)                               # per iteration: 100, 50, 0 %
    assert mean == pytest.approx(50.0)
    assert std == pytest.approx(math.sqrt((50**2 + 0 + 50**2) / 3))
    mean, std = pass_at_1(games_frame(RUN[2:4]))             # a single iteration: 50%, std 0
    assert mean == pytest.approx(50.0) and std == 0.0
    two = [game("cat", 0, win_at=2), game("dog", 0, win_at=3), game("eel", 0), game("cat", 1), game("dog", 1), game("eel", 1)]
    assert pass_at_1(two) == pytest.approx((100/3, 100/3))  # 66.7% and 0%: mean 33.3, std 33.3 (ddof=1 would give 47.1)


def test_cumulative_win_rate():
    cw = cumulative_win_rate(RUN)                            # wins at 2, 4, 10 of 6 games
    assert cw.turn.tolist() == list(range(1, 21))
    expected = [0, 1/6, 1/6, 2/6, 2/6, 2/6, 2/6, 2/6, 2/6] + [3/6]*11
    assert cw.win_rate.tolist() == pytest.approx(expected)


def test_cumulative_win_rate_by_group():
    other = [game("apple", 0, win_at=1, questioner="z"), game("horse", 0, win_at=3, questioner="z")]
    cw = cumulative_win_rate(RUN + other, max_turns=3, by="questioner")
    assert list(cw.columns) == ["questioner", "turn", "win_rate"]
    assert cw[cw.questioner == "a"].win_rate.tolist() == pytest.approx([0, 1/6, 1/6])
    assert cw[cw.questioner == "z"].win_rate.tolist() == pytest.approx([1/2, 1/2, 1])


# --- OpenAI evals --------------------------------------------------------------------------------

def evals_won():
    "Secret 'lamp' (medium): Q, wrong guess, violation, Q (skip), skip Q, Q, Q, right guess: 5 questions."
    ts = [turn(1, "Is it alive?"), turn(2, "[GUESS chair]", None, "guess", "chair"),
          turn(3, "I am not sure.", None, "violation"), turn(4, "Is it electric?", "Skip", raw="skip"),
          turn(5, "Is it bright?", "Skip", raw="SKIP"), turn(6, "Is it in a house?", "Yes"), turn(7, "Is it on a desk?", "Yes"),
          turn(8, "[GUESS lamp]", None, "guess", "lamp")]
    return {**game("lamp", protocol="evals", difficulty="medium"), "turns": ts, "won": True, "win_turn": 5, "n_questions": 5}


def evals_lost():
    "Secret 'fork' (easy): 20 questions, two wrong guesses, two violations, no refusal."
    g = game("fork", protocol="evals", difficulty="easy")
    extra = [turn(21, "[GUESS spoon]", None, "guess", "spoon"), turn(22, "[GUESS knife]", None, "guess", "knife"),
             turn(23, "Hmm.", None, "violation"), turn(24, "Okay.", None, "violation")]
    return {**g, "turns": g["turns"][:5] + extra + g["turns"][5:]}


def test_evals_game():
    assert evals_game(evals_won()) == dict(score=15, won=True, num_guesses=2, num_questions=5, num_violations=1,
                                           num_gamemaster_refusals=2, num_incorrect_guesses=1, word_difficulty=2.0)
    assert evals_game(evals_lost()) == dict(score=0, won=False, num_guesses=2, num_questions=20, num_violations=2,
                                            num_gamemaster_refusals=0, num_incorrect_guesses=2, word_difficulty=1.0)
    assert evals_game(evals_won(), max_questions=10)["score"] == 5


def test_evals_metrics():
    m = evals_metrics([evals_won(), evals_lost(), evals_lost()])
    assert m["n"] == 3
    assert m["score"] == pytest.approx(5.0)                  # (15 + 0 + 0) / 3
    assert m["accuracy"] == pytest.approx(1/3)
    assert m["average_num_guesses"] == pytest.approx(2.0)
    assert m["average_num_questions"] == pytest.approx(15.0)  # (5 + 20 + 20) / 3
    assert m["average_num_violations"] == pytest.approx(5/3)
    assert m["average_num_gamemaster_refusals"] == pytest.approx(2/3)
    assert m["average_num_incorrect_guesses"] == pytest.approx(5/3)
    assert m["average_word_difficulty"] == pytest.approx(4/3)


def test_evals_metrics_by_difficulty():
    d = evals_metrics_by_difficulty([evals_won(), evals_lost(), evals_lost()])
    assert d.index.tolist() == ["easy", "medium"]
    assert d.loc["easy", "n"] == 2 and d.loc["easy", "score"] == 0
    assert d.loc["medium", "score"] == 15 and d.loc["medium", "accuracy"] == 1
    with pytest.raises(ValueError, match="difficulty"): evals_metrics_by_difficulty(RUN)


def test_evals_refusals_by_evals_rule_scripted():
    "A refusal is a gamemaster reply that is exactly 'skip' in any case (evals eval.py L188-189), whatever twentyq parsed from it."
    from twentyq.protocols import get_protocol, new_game
    for lenient in (False, True):
        E = get_protocol("evals", lenient=lenient)
        g = new_game(E, "lamp", difficulty="medium")
        for q, raw in [("Is it alive?", "skip"), ("Is it big?", "Skip"), ("Is it red?", "Skip."), ("Is it old?", "I'd rather skip."),
                       ("Is it electric?", " skip"), ("Is it bright?", "yes")]:
            E.on_reply(g, q); E.on_judge(g, raw)
        E.on_reply(g, "[GUESS lamp]")
        assert [t["answer"] for t in g["turns"][:5]] == ["Skip"] * 5            # the protocol records all five as Skip
        e = evals_game(g)
        assert (e["num_gamemaster_refusals"], e["num_questions"], e["score"], e["won"]) == (2, 6, 14, True)


# --- LMRL-Gym ------------------------------------------------------------------------------------

def test_lmrl_return():
    assert lmrl_return(game("pen", win_at=1)) == 0
    assert lmrl_return(game("pen", win_at=8)) == -7
    assert lmrl_return(game("pen")) == -20
    with pytest.raises(ValueError): lmrl_return({**game("pen", win_at=3), "win_turn": None})


def test_lmrl_normalized():
    assert lmrl_normalized(-20) == pytest.approx(0)
    assert lmrl_normalized(-17.3) == pytest.approx(50)
    assert lmrl_normalized(-12.6) == pytest.approx(100)
    assert lmrl_normalized(-18.92) == pytest.approx(20)      # (−18.92+20)/2.7*50
    assert lmrl_normalized(-16.36) == pytest.approx(60)      # 50 + 0.94/4.7*50
    assert lmrl_normalized(-10, min=-20, avg=-15, max=-10) == pytest.approx(100)


def test_lmrl_metrics():
    m = lmrl_metrics([game("pen", win_at=11), game("cup", win_at=13), game("car")])   # -10, -12, -20
    assert m["n"] == 3 and m["mean_return"] == pytest.approx(-14.0)
    assert m["normalized"] == pytest.approx(50 + 3.3/4.7*50)


# --- summary -------------------------------------------------------------------------------------

def test_summary():
    hacks = [game("apple", i, win_at=2, last="Is it the one?", questioner="x") for i in range(3)]
    lmrl = [game("pen", win_at=11, protocol="lmrl"), game("car", protocol="lmrl")]    # -10, -20
    s = summary(RUN + hacks + [evals_won(), evals_lost()] + lmrl).set_index(["protocol", "questioner"])
    assert s.loc[("paper", "a"), "n"] == 6
    assert s.loc[("paper", "a"), "pass1_mean"] == pytest.approx(50)
    assert s.loc[("paper", "a"), "pass1_std"] == pytest.approx(math.sqrt(5000 / 3))
    assert s.loc[("paper", "a"), "false_win_rate"] == 0
    assert s.loc[("paper", "x"), "false_win_rate"] == 1 and s.loc[("paper", "x"), "pass1_mean"] == 100
    assert s.loc[("paper", "x"), "n_finished"] == 3 and math.isnan(s.loc[("paper", "x"), "score"])
    assert s.loc[("evals", "a"), "score"] == pytest.approx(7.5)
    assert s.loc[("evals", "a"), "accuracy"] == pytest.approx(0.5)
    assert math.isnan(s.loc[("evals", "a"), "false_win_rate"])
    assert s.loc[("lmrl", "a"), "mean_return"] == pytest.approx(-15)
    assert s.loc[("lmrl", "a"), "normalized"] == pytest.approx(50 + 2.3/4.7*50)
    assert math.isnan(s.loc[("lmrl", "a"), "accuracy"])
