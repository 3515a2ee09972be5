"""Belief scoring: the one-pass and trie paths equal the naive definition on real transcripts, on both embedded models.

The transcripts are tests/fixtures/games_smollm2.jsonl (SmolLM2 as questioner against a scripted judge; rebuild
with `python tests/make_fixtures.py`). They are 687 SmolLM2 / 702 Gemma tokens long, beyond Gemma-3's 512-token
sliding window. Naive references are costly on a CPU (Gemma's 262k-word vocabulary at every position), so some tests
compare a subset of the states; the fast paths always score them all.
"""
import copy, json, warnings
from pathlib import Path
import numpy as np
import pandas as pd
import pytest
import torch
from twentyq.backend import split_pair
from twentyq.players import get_backend
from twentyq.runs import read_jsonl
from twentyq.runs import belief_points
from twentyq.onepass import contexts, naive_beliefs, naive_candidates, score_games, score_candidates, default_elicitation
from twentyq.beliefs import candidate_stats, score_beliefs, score_run, beliefs_path
from twentyq.edits import truncate

FIXTURE = Path(__file__).parent/"fixtures"/"games_smollm2.jsonl"
EPS = 1e-4

@pytest.fixture(scope="module", autouse=True)
def one_thread():
    "On a shared 2-core machine one OpenMP thread is many times faster than two that wait on each other."
    n = torch.get_num_threads(); torch.set_num_threads(1)
    yield
    torch.set_num_threads(n)

@pytest.fixture(scope="module")
def games(): return read_jsonl(FIXTURE)

@pytest.fixture(scope="module")
def smol(): return get_backend("smollm2-135m", device="cpu")

@pytest.fixture(scope="module")
def gemma(): return get_backend("gemma3-270m", device="cpu")

def naive_at(record, backend, states, elicitation=default_elicitation):
    "The naive belief (one full forward pass) at the given states only."
    cs = contexts(record, backend)
    return [backend.logprobs([cs[t] + elicitation], [" " + record["secret"]])[0] for t in states]

def late_start(record, k):
    "The same transcript, but scored only from the state after turn k on (a valid record whose every state is long)."
    r = copy.deepcopy(record)
    r["n_start"], r["turns"], r["game_id"] = r["turns"][k-1]["n_messages"], r["turns"][k:], r["game_id"] + f"+from{k}"
    return r

def test_fixture_is_real_and_long(games, smol, gemma):
    assert len(games) == 4 and all(len(g["turns"]) == 20 for g in games)
    assert all(len(t["question"]) > 0 for t in games[0]["turns"])
    for be in (smol, gemma):
        assert len(be.encode(contexts(games[0], be)[-1])) > 512

@pytest.mark.parametrize("model", ["smol", "gemma"])
def test_prefix_property(games, model, request):
    be = request.getfixturevalue(model)
    for g in games[:1]:
        cs = contexts(g, be)
        toks = [be.encode(c) for c in cs]
        for a, b in zip(toks, toks[1:]): assert b[:len(a)] == a
        for c, p in zip(cs, toks):
            ctx, y = split_pair(be.tok, c + default_elicitation, " " + g["secret"])
            assert (ctx + y)[:len(p)] == p and len(ctx) >= len(p)

def test_smollm2_true_secret_equals_naive(games, smol):
    st = {}
    fast = score_games(games, smol, stats=st)
    assert [len(f) for f in fast] == [21]*4
    every_other = list(range(0, 21, 2))
    np.testing.assert_allclose(np.array(fast[0])[every_other], naive_at(games[0], smol, every_other), atol=EPS, rtol=0)
    for g, f in zip(games[1:], fast[1:]):
        np.testing.assert_allclose(np.array(f)[[9, 20]], naive_at(g, smol, [9, 20]), atol=EPS, rtol=0)
    assert st["passes"] == 1   # four games, all their states, one forward pass

def test_smollm2_batch_of_different_lengths(games, smol):
    rs = [truncate(games[0], 5), truncate(games[1], 2), truncate(games[2], 0)]
    for r, f in zip(rs, score_games(rs, smol, batch_size=3)):
        np.testing.assert_allclose(f, naive_beliefs(r, smol), atol=EPS, rtol=0)

def test_gemma_true_secret_equals_naive_beyond_window(games, gemma):
    g = games[3]
    n_tok = [len(gemma.encode(c)) for c in contexts(g, gemma)]
    states = [0, 14, 17, 20]
    assert n_tok[14] > 512 and n_tok[14] - 512 > 20     # the branch attends beyond the sliding window
    fast = score_games([g], gemma)[0]
    assert len(fast) == 21 and np.isfinite(fast).all()
    np.testing.assert_allclose(np.array(fast)[states], naive_at(g, gemma, states), atol=EPS, rtol=0)

CANDS = ["dog", "piano", "refrigerator", "Paris", "xylophone", "cattle", "cathedral"]

def test_smollm2_candidates_equal_naive(games, smol):
    r = truncate(games[0], 1)
    sc = score_candidates([r], smol, CANDS)[0]
    assert sc["candidates"] == CANDS + ["cat"] and sc["secret_index"] == 7
    np.testing.assert_allclose(sc["logprobs"], naive_candidates(r, smol, sc["candidates"]), atol=EPS, rtol=0)
    # tiny chunks: the transcript is cached and every chunk runs against it
    st = {}
    np.testing.assert_allclose(score_candidates([r], smol, CANDS, chunk=3, stats=st)[0]["logprobs"], sc["logprobs"], atol=EPS, rtol=0)
    assert st["passes"] > 2

def test_gemma_candidates_equal_naive_beyond_window(games, gemma):
    r = late_start(games[1], 20)          # one state, the whole transcript: longer than the window
    assert len(gemma.encode(contexts(r, gemma)[0])) > 512
    sc = score_candidates([r], gemma, ["refrigerator"], chunk=2)[0]
    np.testing.assert_allclose(sc["logprobs"], naive_candidates(r, gemma, sc["candidates"]), atol=EPS, rtol=0)

def test_candidates_include_true_secret_consistently(games, smol):
    "With terminator=None the secret's candidate log-prob is the true-secret belief itself."
    r = truncate(games[2], 3)
    sc = score_candidates([r], smol, ["dog", "river", "lake"], terminator=None)[0]
    assert sc["candidates"] == ["dog", "river", "lake"]
    np.testing.assert_allclose(sc["logprobs"][:, 1], score_games([r], smol)[0], atol=EPS, rtol=0)

def test_leading_space_tokenization(games, smol):
    ctx = contexts(games[0], smol)[0] + default_elicitation
    assert split_pair(smol.tok, ctx, " dog")[1] == smol.encode(" dog")
    assert split_pair(smol.tok, ctx, "dog")[1] == smol.encode("dog")
    assert smol.encode(" dog") != smol.encode("dog")
    # the candidate " dog?" is scored with the spaced token, exactly as the naive pair (context, " dog?")
    r = truncate(games[0], 0)
    lp = score_candidates([r], smol, ["dog"])[0]["logprobs"][0, 0]
    assert abs(lp - smol.logprobs([ctx], [" dog?"])[0]) < EPS
    assert abs(lp - smol.logprobs([ctx], ["dog?"])[0]) > 0.1
    # an elicitation ending in a space: the space moves into the continuation, fast and naive agree
    r = truncate(games[0], 2)
    np.testing.assert_allclose(score_games([r], smol, elicitation="Is the secret word ")[0],
                               naive_beliefs(r, smol, elicitation="Is the secret word "), atol=EPS, rtol=0)

def test_template_breaking_prefix_falls_back(games, smol):
    class Think:
        name, model, tok = "smollm2+think", smol.model, smol.tok
        def render(self, chat, add_generation_prompt=True, **kw):
            return smol.render(chat, add_generation_prompt, **kw) + ("<think>\n\n</think>\n\n" if add_generation_prompt else "")
        encode, logprobs = staticmethod(smol.encode), staticmethod(smol.logprobs)
    r = truncate(games[0], 2)
    with pytest.warns(UserWarning, match="prefix property"):
        f = score_games([r], Think())[0]
    np.testing.assert_allclose(f, naive_beliefs(r, Think()), atol=EPS, rtol=0)

def test_malformed_records_name_the_game(games, smol):
    g = truncate(games[0], 2)
    for breakit, msg in [(lambda r: r.pop("messages"), "messages"), (lambda r: r.pop("turns"), "turns"),
                         (lambda r: r["turns"][1].update(n_messages=99), "out of range"),
                         (lambda r: r["turns"][0].update(n_messages=3), "questioner message"),
                         (lambda r: r["messages"][3].update(role="assistant"), "alternate")]:
        bad = copy.deepcopy(g); bad["game_id"] = "broken#7"; breakit(bad)
        with pytest.raises(ValueError, match=r"broken#7.*" + msg):
            score_beliefs([truncate(games[1], 1), bad], smol, progress=False)

def test_scorer_without_chat_template(games, gemma):
    from transformers import AutoTokenizer
    tok = AutoTokenizer.from_pretrained(str(gemma.model.config._name_or_path))   # a fresh tokenizer, not the shared one
    tok.chat_template = None
    bare = copy.copy(gemma); bare.tok = tok
    with pytest.raises(ValueError, match="gemma3-270m.*no chat template"):
        score_beliefs([truncate(games[0], 1)], bare, progress=False)
    assert gemma.tok.chat_template     # the shared backend is untouched

def test_candidate_stats():
    cs = candidate_stats(np.log([[.5, .25, .25], [.1, .8, .1]]), 1)
    assert cs["rank"].tolist() == [2, 1]
    np.testing.assert_allclose(cs["entropy"], [1.5*np.log(2), -(.8*np.log(.8) + .2*np.log(.1))])
    assert np.isnan(cs["info_gain"][0]) and abs(cs["info_gain"][1] - (cs["entropy"][0] - cs["entropy"][1])) < 1e-12

def test_score_beliefs_table(games, smol):
    rs = [truncate(games[0], 2), truncate(games[3], 1)]
    df = score_beliefs(rs, smol, candidates=["dog", "river"], run="r1", progress=False)
    assert list(df.columns) == ["run", "game_id", "scorer", "secret", "turn", "logprob", "rank", "norm_logprob", "entropy",
                                "info_gain", "n_candidates"]
    assert df.turn.tolist() == [0, 1, 2, 0, 1] and set(df.run) == {"r1"} and set(df.scorer) == {"smollm2-135m"}
    assert df.n_candidates.tolist() == [3, 3, 3, 3, 3]
    assert df.groupby("game_id").info_gain.apply(lambda s: s.isna().iloc[0]).all()
    assert list(score_beliefs(rs, smol, progress=False).columns) == ["run", "game_id", "scorer", "secret", "turn", "logprob"]

def test_score_run_resumes(tmp_path, games, smol):
    run = tmp_path/"run1"; run.mkdir()
    (run/"games.jsonl").write_text("".join(json.dumps(truncate(g, 1)) + "\n" for g in games))
    df = score_run(run, smol, games_per_part=2, progress=False)
    out = beliefs_path(run, "smollm2-135m")
    assert out.name == "beliefs-smollm2-135m.parquet" and len(list(out.glob("part-*.parquet"))) == 2
    assert len(df) == 4*2 and set(df.run) == {"run1"}
    (out/"part-00000.parquet").unlink()                   # as if killed before the first part was written
    calls = []
    import twentyq.beliefs as B
    orig = B.score_games
    B.score_games = lambda recs, *a, **k: calls.append([r["game_id"] for r in recs]) or orig(recs, *a, **k)
    try: df2 = score_run(run, smol, games_per_part=2, progress=False)
    finally: B.score_games = orig
    assert calls == [[g["game_id"] + "+trunc1" for g in games[:2]]]   # only the missing games are scored
    pd.testing.assert_frame_equal(df2.sort_values(["game_id", "turn"]).reset_index(drop=True),
                                  df.sort_values(["game_id", "turn"]).reset_index(drop=True), atol=EPS)
    with pytest.raises(ValueError, match="other settings"):
        score_run(run, smol, elicitation="My guess is", progress=False)


# The successor's belief prompt (bethgelab/delta-belief-rl `llm_agent/generation.py` `belief_log_prob` L1775-1877: the assistant
# turn "Is it '<secret>'?" of `prompts.py` L535 after the history, b_0 on the opening chat (L1119-1135), the secret's tokens summed).
@pytest.mark.parametrize("model", ["smol", "gemma"])
def test_cia_belief_prompt_equals_naive(model, games, request):
    be = request.getfixturevalue(model)
    r = truncate(games[2], 3)
    fast = score_games([r], be, "Is it '", lead="")[0]
    ref = naive_beliefs(r, be, "Is it '", lead="")
    np.testing.assert_allclose(fast, ref, atol=EPS, rtol=0)
    ctx, y = split_pair(be.tok, contexts(r, be)[0] + "Is it '", r["secret"])
    assert y == be.tok(r["secret"], add_special_tokens=False).input_ids   # only the secret's own tokens are scored
    assert np.abs(np.array(fast) - np.array(score_games([r], be)[0])).max() > 0.1   # not the paper's measure

def test_cia_beliefs_in_their_own_file(games, smol, tmp_path):
    from twentyq.runs import load_beliefs
    run = tmp_path/"run"; run.mkdir()
    (run/"games.jsonl").write_text("".join(json.dumps(truncate(g, 1)) + "\n" for g in games[:2]))
    paper, cia = score_run(run, smol, progress=False), score_run(run, smol, progress=False, belief_prompt="cia")
    assert beliefs_path(run, "smollm2-135m", "cia").name == "beliefs-smollm2-135m--cia.parquet" and beliefs_path(run, "smollm2-135m", "cia").exists()
    assert set(cia.belief_prompt) == {"cia"} and "belief_prompt" not in paper.columns
    assert json.loads((beliefs_path(run, "smollm2-135m", "cia")/"_meta.json").read_text())["elicitation"] == "Is it '"
    np.testing.assert_allclose(load_beliefs(run).logprob, paper.logprob)                       # the paper's by default, never mixed
    np.testing.assert_allclose(load_beliefs(run, belief_prompt="cia").logprob, cia.logprob)
    assert len(load_beliefs(run, belief_prompt=None)) == len(paper) + len(cia)
    with pytest.raises(ValueError, match="paper's belief prompt only"): score_beliefs(games[:1], smol, candidates=["dog"], belief_prompt="cia", progress=False)
