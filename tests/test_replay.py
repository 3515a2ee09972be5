"The replay's pure renderers and widget, on the fixture's real SmolLM2 games scored by the real SmolLM2."
import html, json
from pathlib import Path
import numpy as np, pandas as pd, pytest
from twentyq.runs import read_jsonl
from twentyq.edits import truncate, flip_answer
from twentyq.beliefs import score_run, score_beliefs, candidate_stats
from twentyq.onepass import naive_beliefs
from twentyq.players import get_backend
from twentyq.runs import load_beliefs
from twentyq.replay import (load_games, filter_games, find_game, turn_html, game_beliefs, belief_figure,
                            candidates_table, rescore, flippable, replay_html, replay, game_outcome)

FIXTURE = Path(__file__).parent/"fixtures"/"games_smollm2.jsonl"
CANDS = ["dog", "piano", "river", "doctor", "horse", "table", "teacher", "bird", "car", "apple", "house", "tree"]


@pytest.fixture(scope="module")
def be():
    import torch; torch.set_num_threads(1)
    return get_backend("smollm2-135m", device="cpu")


@pytest.fixture(scope="module")
def run(be, tmp_path_factory):
    d = tmp_path_factory.mktemp("runs")/"smol"; d.mkdir()
    games = [truncate(g, 4) | {"game_id": g["game_id"]} for g in read_jsonl(FIXTURE)]
    (d/"games.jsonl").write_text("".join(json.dumps(g) + "\n" for g in games))
    score_run(d, be, candidates=CANDS, top_k=5, progress=False)
    return d


def test_top_candidates_survive_parquet_and_agree_with_the_rank(run, be):
    bel = load_beliefs(run)
    assert {"top_candidates", "top_norm_logprobs"} <= set(bel.columns) and len(bel) == 4*5
    g = load_games(run)[1]
    gb = game_beliefs(bel, g["game_id"])
    for _, r in gb.iterrows():
        words, lps = list(r.top_candidates), list(r.top_norm_logprobs)
        assert len(words) == 5 and lps == sorted(lps, reverse=True)
        assert (r["rank"] <= 5) == (g["secret"] in words)
        if g["secret"] in words:
            assert words.index(g["secret"]) + 1 == r["rank"]
            assert abs(lps[words.index(g["secret"])] - r.norm_logprob) < 1e-9
    t = 2
    ct = candidates_table(gb, t)
    r = gb[gb.turn == t].iloc[0]
    assert f'ranks <span class="tq-rank">{r["rank"]}</span> of {len(set(CANDS) | {g["secret"]})} candidates' in ct
    assert ct.count("<tr") == 1 + 5 and f"<td>1</td><td>{r.top_candidates[0]}</td>" in ct


def test_the_same_top_k_as_the_full_candidate_table(be):
    g = truncate(read_jsonl(FIXTURE)[0], 2)
    df = score_beliefs([g], be, candidates=CANDS, top_k=3, progress=False)
    from twentyq.onepass import score_candidates
    sc = score_candidates([g], be, CANDS)[0]
    for t, r in df.iterrows():
        best = np.argsort(-sc["logprobs"][t])[:3]
        assert list(r.top_candidates) == [sc["candidates"][j] for j in best]
        assert r["rank"] == candidate_stats(sc["logprobs"], sc["secret_index"])["rank"][t]


def test_counterfactual_is_the_flipped_game_rescored_and_cached(run, be):
    g = load_games(run)[0]
    cache = {}
    fl = rescore(g, be, flip=3, cache=cache)
    ref = naive_beliefs(flip_answer(g, 3), be)                       # the reference implementation, one forward pass per state
    np.testing.assert_allclose(fl.logprob, ref, atol=1e-4)
    orig = game_beliefs(load_beliefs(run), g["game_id"])
    np.testing.assert_allclose(fl.logprob[:3], orig.logprob[:3], atol=1e-4)   # states before the flipped answer
    assert np.abs(fl.logprob[3:].values - orig.logprob[3:].values).max() > 1e-3
    assert rescore(g, be, flip=3, cache=cache) is fl and len(cache) == 1
    fig = belief_figure(orig, 3, fl, 3)
    labels = [l.get_label() for l in fig.axes[0].lines]
    assert "smollm2-135m, turn 3 flipped" in labels
    assert "turn 3 the other way" in replay_html(g, 3, orig, fl, 3)


def test_widget_steps_filters_and_flips(run, be):
    r = replay(run, scorer=be)
    games = load_games(run)
    assert r.game["game_id"] == games[0]["game_id"] and "Turn 0 of 4" in r.w_view.value
    for t in (1, 2):
        r.w_next.click()
        assert f"Turn {t} of 4" in r.w_view.value
        assert html.escape(games[0]["turns"][t-1]["question"]) in r.w_view.value
    r.w_turn.value = 4; r.w_next.click()
    assert r.w_turn.value == 4                     # clipped at the last turn
    assert [k for _, k in r.w_flip.options] == [0] + flippable(games[0])
    r.w_flip.value = 1
    assert "turn 1 the other way" in r.w_view.value and len(r.cache) == 1
    r.w_secret.value = "river"
    assert r.game["game_id"] == "river#0" and r.w_flip.value == 0
    with pytest.raises(KeyError, match="no game 'river#7'"): r.show("river#7")


def test_sources_and_clear_errors(run, tmp_path):
    games = load_games(run)
    assert [g["game_id"] for g in load_games(pd.DataFrame(games))] == [g["game_id"] for g in games]
    assert load_games(run/"games.jsonl")[0]["secret"] == "cat"
    with pytest.raises(ValueError, match="no games"): load_games([])
    (tmp_path/"games.jsonl").write_text("")
    with pytest.raises(ValueError, match="no games"): replay(tmp_path)
    with pytest.raises(FileNotFoundError): replay(tmp_path/"nope")
    with pytest.raises(KeyError, match="cat#0"): find_game(games, "cat#9")
    with pytest.raises(ValueError, match="logprob"): replay(run, beliefs=load_beliefs(run).drop(columns="logprob"))


def test_renders_every_kind_of_game_without_beliefs():
    g = read_jsonl(FIXTURE)[1]
    unparsed = truncate(g, 2) | {"game_id": "u"}
    unparsed["turns"][1] |= dict(judge_raw="<think>a piano has keys, so", parse_ok=False)
    h = turn_html(unparsed, 2)
    assert "answered by rule: <b>Yes</b>" in h and "a piano has keys, so" in h and "chain of thought" in h
    fin = truncate(g, 2) | {"game_id": "f", "won": True}
    fin["turns"][-1] |= dict(question="Is it a piano?", judge_raw="<think>names it</think><answer>Finished</answer>", answer="Finished")
    assert game_outcome(fin) == "won" and "names the secret piano ✓" in turn_html(fin, 2)
    fin["turns"][-1]["question"] = "Is it a flute?"
    assert game_outcome(fin) == "false win" and "a false win" in turn_html(fin, 2)
    assert [x["game_id"] for x in filter_games([unparsed, fin], outcome="false win")] == ["f"]
    empty = truncate(g, 0) | {"game_id": "e"}
    r = replay([unparsed, fin, empty], game="e")
    assert r.w_turn.max == 0 and "no turns" in r.w_view.value and r.w_flip.disabled
    assert "no beliefs scored" in belief_figure(game_beliefs(None, "e"), 0).axes[0].texts[0].get_text()
    assert candidates_table(None, 0) == ""
