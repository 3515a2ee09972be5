"""Every figure notebook of nbs/paper on every size of input, built by hand: no games, no won games, only false wins, one won
game, one won/lost pair, one secret, one scorer, one turn, games of different lengths. A notebook may say that it has nothing to
show or that a statistic cannot be computed, but it must never raise, and it must always write its report item. The notebooks
run in this process (tests/inline.py): each case is their whole input, so each case runs them all."""
import json
import pandas as pd, pytest
from twentyq.analysis import make_reference
from twentyq.report import paper_notebooks, write_index
from games import game, write_run, write_beliefs
from inline import run_inline

def write_scored_run(folder, games, scorers):
    "A run folder of `games` with each scorer's beliefs: log p rises with the turn in won games and falls in lost ones."
    write_run(folder, games)
    for k, s in enumerate(scorers):
        write_beliefs(folder, s, {g["game_id"]: [-8.0 - k + (0.7 if g["won"] else -0.4) * t + 0.1 * (len(g["game_id"]) % 3)
                                                 for t in range(len(g["turns"]) + 1)] for g in games})

Y, N, F = "Yes", "No", "Finished"
cases = {
    "no games": dict(q=[]),
    "no won games": dict(q=[game("cat", [N, Y]), game("cat", [Y, N], 1), game("dog", [N, N])]),
    "only false wins": dict(q=[game("cat", [N, F], name_secret=False), game("dog", [Y, Y, F], name_secret=False), game("dog", [N], 1)]),
    "one won game": dict(q=[game("cat", [N, Y, F]), game("dog", [N, N, N])]),
    "one won/lost pair": dict(q=[game("cat", [N, Y, F]), game("cat", [N, N, Y], 1), game("dog", [N, N])]),
    "one secret": dict(q=[game("cat", [Y, F]), game("cat", [N, N, N], 1), game("cat", [Y, Y, F], 2)]),
    "one scorer": dict(q=[game("cat", [N, Y, F]), game("cat", [Y, N], 1), game("dog", [Y, F]), game("dog", [N], 1)], scorers=["q"]),
    "one turn": dict(q=[game("cat", [F]), game("cat", [N], 1), game("dog", [N]), game("dog", [F], 1)]),
    "different lengths": dict(q=[game("cat", [N, Y, N, Y, F]), game("cat", [N], 1), game("dog", [F]), game("dog", [Y, N, N, N, N], 1),
                                 game("eel", [N, F])], r=[game("cat", [Y, Y, F], questioner="r"), game("eel", [N, N, N, N], questioner="r")]),
}

@pytest.fixture(params=list(cases), ids=lambda c: c.replace(" ", "-").replace("/", "-"))
def report(request, tmp_path):
    "The case's runs, reference games and beliefs, and every figure notebook and the model notebook run on them."
    case = cases[request.param]
    scorers = case.get("scorers", ["q", "r"])
    for q in ("q", "r"):
        if q in case or q == "q": write_scored_run(tmp_path/"runs"/f"paper--{q}", case.get(q, []), scorers)
    info = make_reference([g for q in ("q", "r") for g in case.get(q, [])], tmp_path)
    ref = [json.loads(l) for l in (tmp_path/"reference"/"games.jsonl").read_text().splitlines()]
    flipped = [json.loads(l) for l in (tmp_path/"reference-flipped"/"games.jsonl").read_text().splitlines()]
    for name, gs in [("reference", ref), ("reference-flipped", flipped)]:
        (tmp_path/name/"games.jsonl").unlink(); write_scored_run(tmp_path/name, gs, scorers)
    out = tmp_path/"out"
    params = dict(runs_dir=str(tmp_path/"runs"), out_dir=str(out), reference_dir=str(tmp_path), settings=dict(case=request.param))
    for n in paper_notebooks + ["model_report"]:   # the per-model notebook too, on the same input
        try: run_inline(n, **params, **(dict(model="q") if n == "model_report" else {}))
        except Exception as e: raise AssertionError(f"{request.param}: {n} raised {type(e).__name__}: {e}") from e
    return request.param, out, info

def test_every_notebook_writes_its_item(report):
    name, out, info = report
    cards = {p.stem: json.loads(p.read_text()) for p in out.glob("*.json")}
    for n in paper_notebooks:
        assert n in cards, f"{name}: {n} wrote no card"
        c = cards[n]
        assert c["has_data"] or c["note"], f"{name}: {n} has neither data nor a note saying why"
        assert c["rests_on"], f"{name}: {n} does not say what it rests on"
    assert write_index(out).exists()
    if name == "only false wins":
        assert info["n_false_wins"] == 2 and info["n_reference"] == 0
        hacks = pd.read_csv(out/"table5_reward_hacks.csv").set_index("questioner")
        assert hacks.loc["q", "rejected_share"] == 1 and hacks.loc["q", "flagged"]          # two judge wins, neither names the secret
    if name in ("no games", "no won games", "only false wins"):
        assert not cards["fig3_counterfactual"]["has_data"] and not cards["table5_max_min"]["has_data"]
    if name in ("one won game", "one won/lost pair", "one secret", "different lengths"):
        assert cards["fig3_counterfactual"]["has_data"] and cards["table5_max_min"]["has_data"], name
    if name == "one won/lost pair":
        t = cards["fig2_permutation_test"]
        assert "one pair" in t["note"] and pd.read_csv(out/"fig2_permutation_test.csv").n_pairs.tolist() == [1]
