"""The top candidates a scored run keeps (scored by `beliefs`, read back from parquet by the replay), on the fixture's real SmolLM2
games scored by the real SmolLM2. The replay's renderers and widget are checked in nbs/62_replay.ipynb."""
import json
from pathlib import Path
import numpy as np, pytest
from twentyq.runs import read_jsonl
from twentyq.edits import truncate
from twentyq.scoring.beliefs import score_run, score_beliefs, candidate_stats
from twentyq.engines.players import get_backend
from twentyq.runs import load_beliefs
from twentyq.replay import load_games, game_beliefs, candidates_table

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
    from twentyq.scoring.candidates import score_candidates
    sc = score_candidates([g], be, CANDS)[0]
    for t, r in df.iterrows():
        best = np.argsort(-sc["logprobs"][t])[:3]
        assert list(r.top_candidates) == [sc["candidates"][j] for j in best]
        assert r["rank"] == candidate_stats(sc["logprobs"], sc["secret_index"])["rank"][t]
