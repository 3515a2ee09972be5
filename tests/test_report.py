"""The figure notebooks of nbs/paper on hand-built run folders whose numbers are computed here by hand (independently of
twentyq.analysis), and on the small real runs in tests/fixtures (run in this process, tests/inline.py); the report's papermill
path, its failures, its index in Chromium, and the tiny main job (conftest's `tiny_job`) end to end."""
import html, itertools, json
from contextlib import contextmanager
from pathlib import Path
import numpy as np, pandas as pd, pytest
from twentyq.analysis import make_reference
from twentyq.runs import read_jsonl, load_beliefs
from twentyq.report import paper_notebooks, game_notebooks, slug
from twentyq.scoring.beliefs import beliefs_path
from twentyq.scoring.observer import read_observer
from twentyq.games.twenty_questions.wordnet import readable_share
from twentyq.wordlists import load_secrets
from games import game as _game, write_run, write_beliefs
from inline import run_inline, shown_markdown

def game(secret, iteration, answers, questioner="q", protocol="paper"):
    "A game whose questioner got `answers`; won (naming the secret) when the last one is 'Finished'."
    return _game(secret, answers, iteration, questioner, protocol)

Y, N, F = "Yes", "No", "Finished"
q_games = [game("cat", 0, [N, Y, F]), game("cat", 1, [N, N, N]), game("dog", 0, [Y, F]), game("dog", 1, [N, N, Y, N]),
           game("eel", 0, [N, N]), game("eel", 1, [Y, N, N])]
# own beliefs (scorer q) and foreign ones (scorer s) on q's games, one per state t = 0..T
own = {"cat#0": [-9, -7, -5, -1], "cat#1": [-9, -8, -8.5, -9.5], "dog#0": [-8, -6, -2], "dog#1": [-8, -9, -9, -7, -8],
       "eel#0": [-7, -7, -6], "eel#1": [-7, -8, -8, -8]}
foreign = {k: [v - 1 for v in lps] for k, lps in own.items()}
# beliefs on the reference games (cat#0, dog#0) and on their copies with the penultimate answer flipped
ref_own = {"cat#0": [-9, -6, -3, -4], "dog#0": [-8, -8.5, -2]}
flip_own = {"cat#0+flip2": [-9, -6, -7, -8], "dog#0+flip1": [-8, -10, -9]}

# cia games, with the questioner's own beliefs under the successor's prompt: gains turn 1 (+1, -1), turn 2 (+3, +1), turn 3 (+2)
cia_games = [game("ant", 0, [Y, N, F], protocol="cia"), game("ant", 1, [N, N], protocol="cia")]
cia_own = {"ant#0": [-6, -5, -2, 0], "ant#1": [-6, -7, -6]}

@pytest.fixture(scope="module")
def report(tmp_path_factory):
    "A hand-built experiment, every figure notebook run on it."
    root = tmp_path_factory.mktemp("experiment")
    runs = root/"runs"
    write_run(runs/"paper--q", q_games)
    write_beliefs(runs/"paper--q", "q", own); write_beliefs(runs/"paper--q", "s", foreign)
    write_run(runs/"evals-shortlist--q", [game("box", 0, [N, N], protocol="evals-shortlist")])
    write_run(runs/"cia--q", cia_games)
    write_beliefs(runs/"cia--q", "q", cia_own, belief_prompt="cia"); write_beliefs(runs/"cia--q", "q", {"ant#0": [0, 0, 0]})   # a paper-prompt file too
    info = make_reference(q_games, root)
    write_beliefs(root/"reference", "q", ref_own); write_beliefs(root/"reference-flipped", "q", flip_own)
    for n in paper_notebooks:
        run_inline(n, runs_dir=str(runs), out_dir=str(root/"out"), reference_dir=str(root), settings=dict(case="hand-built"))
    return root/"out", info

def card(out, stem): return json.loads((out/f"{stem}.json").read_text())

def test_reference_games(report):
    _, info = report
    assert (info["n_reference"], info["n_flipped"]) == (2, 2)

def test_table1_pass_at_1(report):
    out, _ = report
    t = pd.read_csv(out/"table1_pass_at_1.csv").set_index("protocol")
    # iteration 0 wins cat and dog of 3 games (66.7%), iteration 1 none: mean 33.3, std (np.std, ddof=0, as the authors) 33.3
    assert t.loc["paper", "pass1_mean"] == pytest.approx(100/3)
    assert t.loc["paper", "pass1_std"] == pytest.approx(np.std([200/3, 0]))
    assert t.loc["evals-shortlist", "pass1_mean"] == 0 and t.loc["paper", "n"] == 6
    # Mean@k, its spread (np.std over the repeats) and Pass@k (Chen et al., n = k): paper k=2, cia: ant won at iteration 0 only
    assert t.loc["paper", ["k", "mean_at_k", "mean_at_k_std"]].tolist() == pytest.approx([2, 100/3, np.std([200/3, 0])])
    assert t.loc["paper", "pass_at_k"] == pytest.approx(200/3)                                    # cat and dog solved once, eel never
    assert t.loc["cia", ["k", "mean_at_k", "mean_at_k_std", "pass_at_k"]].tolist() == pytest.approx([2, 50, 50, 100])
    assert card(out, "table1_pass_at_1")["settings"]["case"] == "hand-built"
    assert (out/"table1_pass_at_1.png").stat().st_size > 1000 and (out/"table1_pass_at_1.svg").exists()

def test_fig1_cumulative_win_rate(report):
    out, _ = report
    c = pd.read_csv(out/"fig1_cumulative_win_rate.csv")
    p = c[c.protocol == "paper"].set_index("turn").win_rate
    assert p.tolist() == pytest.approx([0, 1/6, 2/6, 2/6, 2/6])      # wins at questions 2 and 3 of 6 games, 5 questions allowed

def direct_pairs(lps, pairs):
    "Per (won, lost) pair: mean over turns 1..m of the won-minus-lost belief, m the shorter game's last turn."
    out = []
    for w, l in pairs:
        m = min(len(lps[w]), len(lps[l])) - 1
        out.append(np.mean([lps[w][t] - lps[l][t] for t in range(1, m + 1)]))
    return np.array(out)

def test_fig2_permutation_test(report):
    out, _ = report
    d = direct_pairs(own, [("cat#0", "cat#1"), ("dog#0", "dog#1")])      # eel was never won: no pair
    obs = d.mean()
    p = np.mean([np.mean(np.array(s) * d) >= obs - 1e-12 for s in itertools.product([1, -1], repeat=len(d))])
    t = pd.read_csv(out/"fig2_permutation_test.csv")
    assert t.questioner.tolist() == ["q"] and t.n_pairs.tolist() == [2]
    assert t.statistic[0] == pytest.approx(obs) and t.p_value[0] == pytest.approx(p)
    b = pd.read_csv(out/"fig2_belief_by_outcome.csv")
    won1 = b[(b.outcome == "won") & (b.turn == 1)]
    assert won1["mean"].item() == pytest.approx((-7 + -6) / 2) and set(b.scorer) == {"q"}   # own games only
    assert card(out, "fig2_belief_by_outcome")["has_data"] and (out/"fig2_belief_by_outcome.png").exists()

def test_fig3_and_fig5_reference(report):
    out, _ = report
    b = pd.read_csv(out/"fig3_counterfactual.csv")
    assert b[b.turn == 2]["mean"].item() == pytest.approx((-3 + -2) / 2)
    s = pd.read_csv(out/"fig5_model_sizes.csv").set_index("state")
    # before the winning question: cat#0 at t=2 (-3), dog#0 at t=1 (-8.5)
    assert s.loc["before the winning question", "mean"] == pytest.approx((-3 - 8.5) / 2)
    assert s.loc["all states", "count"] == 7

def test_fig4_flip_difference(report):
    out, _ = report
    f = pd.read_csv(out/"fig4_flip.csv")
    at = f[f.turn == f.flipped_turn].set_index("source_game_id").difference
    assert at.to_dict() == pytest.approx({"cat#0": -7 - (-3), "dog#0": -10 - (-8.5)})
    later = f[(f.source_game_id == "cat#0") & (f.turn == 3)].difference.item()
    assert later == pytest.approx(-8 - (-4))

def test_fig6_foreign_groups(report):
    out, _ = report
    g = pd.read_csv(out/"fig6_foreign_outcomes.csv")
    assert set(g.scorer) == {"s"}                                          # q's own beliefs are not foreign
    t0 = g[g.turn == 0].set_index("group")["mean"]
    assert t0.to_dict() == pytest.approx({"won": (-10 - 9) / 2, "lost, solved at least once": (-10 - 9) / 2, "never solved": -8})

def test_fig7_secret_difference(report):
    out, _ = report
    d = pd.read_csv(out/"fig7_secret_difference.csv")
    q = d[d.scorer == "q"].set_index("secret").difference
    assert q.to_dict() == pytest.approx({"cat": np.mean([-7, -5, -1]) - np.mean([-8, -8.5, -9.5]),
                                         "dog": np.mean([-6, -2]) - np.mean([-9, -9, -7, -8])})

def test_table5_max_min_sign_rule(report):
    out, _ = report
    t = pd.read_csv(out/"table5_max_min.csv")
    # cat#0: max -3 (t=2) after min -9 (t=0): +6; dog#0: max -2 (t=2), min -8.5 (t=1) before it: +6.5
    assert t["mean"].item() == pytest.approx(6.25) and t["std"].item() == pytest.approx(np.std([6, 6.5], ddof=1))

def test_cia_belief_gain(report):
    """The own belief gain per turn on cia games under the successor's prompt only (the paper-prompt file of the same run is left
    out), and on paper games under the paper's; no base model, so no test against it."""
    out, _ = report
    t = pd.read_csv(out/"cia_belief_gain.csv")
    cia = t[t.protocol == "cia"]
    assert cia.turn.tolist() == [1, 2, 3] and cia.n.tolist() == [2, 2, 1] and cia["mean"].tolist() == pytest.approx([0, 2, 2])
    assert t[t.protocol == "paper"].n.tolist() == [6, 6, 4, 1]                 # q's six paper games reach turns 1-4
    c = card(out, "cia_belief_gain")
    # paper: (2+2+4) + (1-0.5-1) + (2+4) + (-1+0+2-1) + (0+1) + (-1+0+0) over 17 turns; cia: (1 + 3 + 2 - 1 + 1) / 5
    assert c["has_data"] and c["reading"] == "Mean gain of the own belief per turn, paper / cia games: q +0.79 / +1.20 nats"
    assert c["rests_on"]["games"] == 8
    g = card(out, "cia_gain_test")
    assert not g["has_data"] and g["note"].startswith("no base model to test against")

def test_readings(report):
    "Each item's one-line reading, from the numbers above: the best pass@1 per protocol, the reference beliefs' first and last states, the flip."
    out, _ = report
    # the knowledge judge reads 2 of q's 17 paper questions: the guesses that name cat and dog ("Question 1?" it cannot read)
    assert card(out, "table1_pass_at_1")["reading"] == ("Most games won, per protocol: cia q 50%; evals-shortlist q 0%; paper q 33%. "
                                                        "Questions the knowledge judge reads, paper games: q 12%")
    assert card(out, "fig3_counterfactual")["reading"] == "Mean belief from the first to the last state: q -8.5 → -3.0 nats"   # (-9 - 8) / 2, (-4 - 2) / 2
    assert card(out, "fig4_flip")["reading"] == "The flip lowers the mean belief for 1 of 1 scorers: q -2.75 nats"          # (-4 - 1.5) / 2
    assert card(out, "table5_reward_hacks")["reading"] == "No questioner is flagged."

def test_index_page_has_every_item(report):
    out, _ = report
    from twentyq.report import write_index
    html = write_index(out).read_text()
    for n in paper_notebooks: assert n in html
    cards = [json.loads(p.read_text()) for p in out.glob("*.json")]
    for c in cards: assert c["reading"] or f"{c['stem']}.png" not in c["files"], c["stem"]   # every figure comes with its reading

@contextmanager
def index_page(index:Path, width:int=1280):
    "The report page `index` open in headless Chromium at `width` x 800 (skipped, saying why, where chromium is missing)."
    from test_browser import CHROMIUM, CHROMIUM_ARGS, ensure_chromium, ensure_playwright
    if why := ensure_chromium(): pytest.skip(why)
    ensure_playwright()
    from playwright.sync_api import sync_playwright
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        try:
            page = browser.new_page(viewport=dict(width=width, height=800))
            page.goto(index.as_uri()); page.wait_for_load_state("load")
            yield page
        finally: browser.close()

def test_index_first_screen_in_chromium(report, tmp_path):
    """The index in headless Chromium, 1280 x 800: the first screen shows Table 1's reading and its whole figure, loaded, and no table
    longer than 15 rows is open (a 40-row table without a figure is on the page, collapsed). A screenshot goes to reports/browser/report.png."""
    from twentyq.report import write_index, save_item
    import shutil
    out = tmp_path/"out"; shutil.copytree(report[0], out)
    long = pd.DataFrame(dict(questioner="reports/embedded/models/smollm2-135m-grpo", turn=range(40), win_rate=0.0))
    save_item(out, "fig7_long_table", "A table of 40 rows, no figure", table=long, reading="40 turns")   # long tables: never open
    index = write_index(out, settings=dict(case="hand-built"), links={"transcripts.md": "one game per protocol and questioner"})
    with index_page(index) as page:
        fig = page.locator("img[src='table1_pass_at_1.png']")
        box = fig.bounding_box()
        assert box and box["y"] >= 0 and box["y"] + box["height"] <= 800, box
        assert fig.evaluate("i => i.complete && i.naturalWidth > 0")
        reading = page.locator("#table1_pass_at_1 + p.reading")
        assert reading.inner_text().startswith("Most games won") and reading.bounding_box()["y"] < box["y"]
        rows = page.evaluate("() => [...document.querySelectorAll('table')].map(t => [t.rows.length - 1, t.checkVisibility()])")   # false inside a closed <details>
        assert max(n for n, _ in rows) == 30                                    # the long table is on the page (its first 30 rows) ...
        assert all(n <= 15 for n, shown in rows if shown) and any(shown for _, shown in rows), rows   # ... but no long table is open
        assert "SmolLM2-135M +GRPO" in page.locator("#fig7_long_table ~ details").first.text_content()  # players under display names
        shot = Path(__file__).resolve().parent.parent/"reports"/"browser"/"report.png"; shot.parent.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(shot))

def test_notebooks_on_small_real_runs(tmp_path):
    "Defaults: the real runs in tests/fixtures (tiny models, nothing won): every notebook runs and says what it cannot show."
    shown = {n: shown_markdown(run_inline(n, out_dir=str(tmp_path/"out"))) for n in paper_notebooks}
    out = tmp_path/"out"
    assert card(out, "table1_pass_at_1")["has_data"] and card(out, "fig6_foreign_outcomes")["has_data"]
    for stem in ["fig3_counterfactual", "fig4_flip", "fig5_model_sizes", "fig7_secret_difference", "table5_max_min"]:
        c = card(out, stem)
        assert not c["has_data"] and c["note"], stem
        assert not (out/f"{stem}.png").exists(), stem                       # no empty axes
    fig2 = card(out, "fig2_belief_by_outcome")                              # lost games only: their lines, and a note that says so
    assert fig2["has_data"] and "every own game was lost" in fig2["note"] and (out/"fig2_belief_by_outcome.png").exists()
    assert set(pd.read_csv(out/"fig2_belief_by_outcome.csv").outcome) == {"lost"} and "Own belief, turn 1" in fig2["reading"]
    assert "Nothing to show" in shown["fig3_counterfactual"]

def test_failed_notebook_gets_a_card_in_its_place(tmp_path):
    "A figure notebook that raises does not stop the others; the index shows its error and links the executed notebook."
    from twentyq.report import write_index
    from twentyq.notebook_runs import run_notebooks
    failed = run_notebooks(tmp_path, dict(runs_dir=str(tmp_path/"nowhere"), out_dir=str(tmp_path)), ["table1_pass_at_1", "fig4_flip"], progress=False)
    assert failed == ["table1_pass_at_1", "fig4_flip"]
    c = card(tmp_path, "table1_pass_at_1")
    assert c["error"].startswith("FileNotFoundError: no run folders") and (tmp_path/c["notebook"]).exists()
    page = write_index(tmp_path).read_text()
    assert page.index("Table 1: pass@1") < page.index("Fig. 4") and page.count("<b>Failed:</b>") == 2 and "0 with data" in page

def test_reproduce_tiny(tiny_job):
    "The main job at its smallest (one secret, two questions, one model in every role): every item has a card, and the index shows each."
    tmp_path, t = tiny_job
    sft, grpo, delta = (str(tmp_path/"models"/f"smollm2-135m-{k}") for k in ("sft", "grpo", "delta"))
    assert sorted(zip(t.protocol, t.questioner)) == sorted([(p, q) for p in ("evals-shortlist", "paper", "cia") for q in ("smollm2-135m", sft, grpo, delta, "wordnet")])
    assert {"k", "mean_at_k", "mean_at_k_std", "pass_at_k"} <= set(t.columns) and t.k.eq(1).all()                   # Mean@k and Pass@k in every row
    cia = pd.read_parquet(tmp_path/"runs"/"cia--smollm2-135m"/"beliefs-smollm2-135m--cia.parquet")             # own beliefs, the successor's prompt
    assert set(cia.belief_prompt) == {"cia"} and sorted(cia.turn) == list(range(len(cia)))
    assert not (tmp_path/"runs"/"cia--smollm2-135m"/"beliefs-smollm2-135m.parquet").exists()                  # no paper-prompt scoring of cia runs
    assert len(read_jsonl(tmp_path/"models"/"smollm2-135m-grpo"/"games.jsonl")) == 4
    trained = {k: read_jsonl(tmp_path/"models"/f"smollm2-135m-{k}"/"games.jsonl") for k in ("grpo", "delta")}
    assert all(g["protocol"] == "cia" and len(g["turn_rewards"]) == len(g["turns"]) for g in trained["delta"])      # ΔBelief-RL: cia, rewards per turn
    card = pd.read_csv(tmp_path/"training_curves.csv")
    card_t = card[card.rows == "training games"].set_index(["credit", "step"])                                   # the training card, by hand
    val = {k: read_jsonl(tmp_path/"models"/f"smollm2-135m-{k}"/"validation.jsonl") for k in ("sft", "grpo", "delta")}
    assert [[r["step"] for r in val[k]] for k in val] == [[0, 2], [1], [1]]                                        # SFT before and after; RL after
    assert all(r["games"] == 2 and r["k"] == 1 for rs in val.values() for r in rs)                                  # 2 held-out secrets x 1 game
    held = {g["secret"] for g in read_jsonl(tmp_path/"models"/"smollm2-135m-sft"/"validation-games.jsonl")}
    assert held and not held & set(load_secrets("nouns_train").secret)                                             # held-out: no training secret
    shown = card[card.rows == "held-out validation"]
    assert sorted(shown.job_step) == [0, 2, 3, 3] and np.allclose(sorted(shown.belief_gain), sorted(r["belief_gain"] for rs in val.values() for r in rs))
    assert json.loads((tmp_path/"training_curves.json").read_text())["reading"].startswith("On 2 held-out secrets × 1 games: ")
    for k, credit in [("grpo", "game"), ("delta", "turn")]:
        gs = trained[k]
        assert card_t.loc[(credit, 0), "mean_reward"] == pytest.approx(np.mean([g["reward"]["reward"] for g in gs]))
        assert card_t.loc[(credit, 0), "mean_gain"] == pytest.approx(np.mean([(g["beliefs"][-1] - g["beliefs"][0]) / len(g["turns"]) for g in gs]))
    assert not list((tmp_path/"models").glob("*/checkpoint-*"))                         # finished trainings keep no checkpoints
    asked = {q: [g for p in ("paper", "evals-shortlist", "cia") for g in read_jsonl(tmp_path/"runs"/f"{p}--{slug(q)}"/"games.jsonl")]
             for q in ("smollm2-135m", sft)}                                    # the same secrets and seeds
    readable = {q: readable_share(gs) for q, gs in asked.items()}
    assert readable[sft] > readable["smollm2-135m"], readable                   # SFT on the teacher's games taught its questions
    gains = pd.read_csv(tmp_path/"cia_gain_test.csv")                             # each questioner's own gain against the base's
    assert {(p, q) for p, q in zip(gains.protocol, gains.questioner)} >= {(p, q) for p in ("paper", "cia") for q in (sft, grpo, delta)}
    n = t.set_index(["protocol", "questioner"]).n
    assert n[("paper", "wordnet")] == 3 and n[("paper", "smollm2-135m")] == 1     # the model-free sizes; the teacher's train games are not in the report
    games = read_jsonl(tmp_path/"runs"/"paper--wordnet"/"games.jsonl")
    assert {g["max_questions"] for g in games} == {13} and json.loads((tmp_path/"runs"/"paper--wordnet"/"config.json").read_text())["questioner_sampling"]["temperature"] == 0.7
    ref = read_jsonl(tmp_path/"reference-play"/"paper--wordnet"/"games.jsonl")      # the reference: its best play, greedy, 20 questions
    assert len(ref) == 1 and ref[0]["won"] and json.loads((tmp_path/"reference-play"/"paper--wordnet"/"config.json").read_text())["questioner_sampling"]["temperature"] == 0
    assert "wordnet" in set(pd.read_parquet(tmp_path/"runs"/"paper--wordnet"/"beliefs-wordnet.parquet").scorer)   # its own beliefs: the ideal observer
    run = lambda q: tmp_path/"runs"/f"paper--{slug(q)}"                          # who scored which paper run (pipeline.run_scorers)
    scored = lambda q: sorted(p.name for p in run(q).glob("beliefs-*.parquet"))
    assert scored("wordnet") == sorted(beliefs_path(run("wordnet"), s).name for s in ["smollm2-135m", "wordnet"])   # the reference's: the given scorers
    for q in ["smollm2-135m", grpo]: assert scored(q) == sorted(beliefs_path(run(q), s).name for s in [q, "wordnet"])   # a model's: itself, the ideal observer
    own = pd.read_parquet(beliefs_path(run("smollm2-135m"), "smollm2-135m"))      # own and reference games: beliefs over the scale's candidates too
    assert own.n_candidates.eq(4).all() and own.norm_logprob.notna().all()
    on_ref = load_beliefs(tmp_path/"reference")
    assert set(on_ref[on_ref.norm_logprob.notna()].scorer) == {"smollm2-135m", sft, grpo, delta}
    assert "Update efficiency η" in json.loads((tmp_path/"information_per_question.json").read_text())["reading"]
    gmc = {p.name: read_jsonl(p/"games.jsonl") for p in (tmp_path/"guess-my-city"/"runs").iterdir()}          # Guess My City, as the successor measures transfer
    assert set(gmc) == {f"paprika--{slug(q)}--{slug(j)}" for q in ("smollm2-135m", sft, grpo, delta) for j in ("cities-judge", "smollm2-135m")} | {"paprika--cities--cities-judge"}
    assert all(g["game"] == "guess-my-city" and g["secret"] == "Surat, India" for gs in gmc.values() for g in gs) and all(g["won"] for g in gmc["paprika--cities--cities-judge"])
    city_own = pd.read_parquet(beliefs_path(tmp_path/"guess-my-city"/"runs"/f"paprika--{slug(delta)}--cities-judge", delta, "city"))
    assert set(city_own.belief_prompt) == {"city"} and city_own.n_candidates.eq(4).all() and city_own.norm_logprob.notna().all()
    gmc_card = json.loads((tmp_path/"gmc_transfer.json").read_text())
    assert gmc_card["has_data"] and gmc_card["reading"].startswith("Mean@k against") and "Mean ΔBelief per turn" in gmc_card["reading"]
    gmc_table = pd.read_csv(tmp_path/"gmc_transfer.csv")                                    # a row per game, questioner and judge, with the readable share
    city_rows = gmc_table[gmc_table.game == "guess-my-city"]
    assert len(city_rows) == 9 and city_rows.readable.between(0, 1).all() and city_rows.set_index("questioner").loc["cities", "mean_at_k"] == 100
    assert gmc_table[gmc_table.game == "murder-mystery"][["questioner", "judge"]].values.tolist() == [["smollm2-135m", "smollm2-135m"]]
    assert "Murder mystery: Mean@k SmolLM2-135M " in gmc_card["reading"] and "mean ΔBelief per turn SmolLM2-135M" in gmc_card["reading"]
    mm = read_jsonl(tmp_path/"murder-mystery"/"runs"/"paprika--smollm2-135m--smollm2-135m"/"games.jsonl")   # a story game: the model judges
    assert len(mm) == 1 and mm[0]["game"] == "murder-mystery" and all(t["judge_raw"] is not None for t in mm[0]["turns"])
    mm_own = load_beliefs(tmp_path/"murder-mystery"/"runs"/"paprika--smollm2-135m--smollm2-135m", belief_prompt="culprit")
    assert set(mm_own.secret) == {"Akiko"} and mm_own.n_candidates.eq(4).all()   # the culprit, over the scenario's suspects
    for n in game_notebooks:            # its page: every card with data, or one line saying why (no ideal observer; no reference game)
        card = json.loads((tmp_path/"murder-mystery"/f"{n}.json").read_text())
        assert not card.get("error") and (card["has_data"] or card["note"]), card
    assert json.loads((tmp_path/"murder-mystery"/"table1_pass_at_1.json").read_text())["has_data"]
    watched = read_observer(tmp_path/"murder-mystery"/"runs"/"paprika--smollm2-135m--smollm2-135m")   # through its judge, kept per run
    assert watched.answered_by.tolist()[1:] == ["model", "model"] and watched.n_left.eq(4).all() and watched.expected_gain_bits[1:].notna().all()
    info = json.loads((tmp_path/"murder-mystery"/"information_per_question.json").read_text())
    assert info["has_data"] and "weighed by the judge's likelihood" in info["reading"] and "Update efficiency η" in info["reading"], info
    for n in game_notebooks:            # the cards that read any game's runs, on its games, in a page of its own: data, or why not (no model won)
        card = json.loads((tmp_path/"guess-my-city"/f"{n}.json").read_text())
        assert not card.get("error") and html.escape(card["title"]) in (tmp_path/"guess-my-city"/"index.html").read_text(), card
        if n != "fig7_secret_difference": assert card["has_data"], card
        else: assert not card["has_data"] and "no secret has both a won and a lost game" in card["note"], card
    fig2 = json.loads((tmp_path/"guess-my-city"/"fig2_belief_by_outcome.json").read_text())   # every model lost: the lost lines, said so
    assert "every own game was lost" in fig2["note"] and "normalised" in fig2["reading"]
    foreign = load_beliefs(tmp_path/"guess-my-city"/"runs"/"paprika--cities--cities-judge", belief_prompt="city")   # Fig. 6's: the untrained scorer's
    assert set(foreign.scorer) == {"smollm2-135m"} and len(foreign) == sum(g["n_questions"] + 1 for g in gmc["paprika--cities--cities-judge"])
    gmc_t1 = pd.read_csv(tmp_path/"guess-my-city"/"table1_pass_at_1.csv").set_index(["questioner", "judge"])
    assert len(gmc_t1) == 9 and gmc_t1.loc[("cities", "cities-judge"), "pass1_mean"] == 100 and gmc_t1.readable.between(0, 100).all()
    assert "href='guess-my-city/index.html'" in (tmp_path/"index.html").read_text()
    gref = json.loads((tmp_path/"guess-my-city"/"reference.json").read_text())           # the city game's reference games: its model-free questioner's
    assert (gref["n_reference"], gref["n_flipped"], gref["chosen"]) == (1, 1, "cities: the game's model-free questioner"), gref
    on_gref = load_beliefs(tmp_path/"guess-my-city"/"reference", belief_prompt="city")      # every model scorer, over the transfer's 4 cities
    assert set(on_gref.scorer) == {"smollm2-135m", sft, grpo, delta} and on_gref.n_candidates.eq(4).all()
    assert "Update efficiency η" in json.loads((tmp_path/"guess-my-city"/"information_per_question.json").read_text())["reading"]
    wordle = {p.name: read_jsonl(p/"games.jsonl") for p in (tmp_path/"wordle"/"runs").iterdir()}   # Wordle: the trained models take no part
    assert set(wordle) == {"paprika--smollm2-135m--wordle-judge", "paprika--wordle--wordle-judge"} and all(g["game"] == "wordle" for gs in wordle.values() for g in gs)
    wref = json.loads((tmp_path/"wordle"/"reference.json").read_text())              # the optimal questioner's shortest wins, one letter flipped
    assert wref["chosen"] == "wordle: the game's model-free questioner" and wref["n_flipped"] == wref["n_reference"] >= 1, wref
    assert set(load_beliefs(tmp_path/"wordle"/"reference").scorer) == {"smollm2-135m"}
    for n in game_notebooks:                                                      # every card on Wordle's page has data (Fig. 7: or no won and lost game of a word)
        card = json.loads((tmp_path/"wordle"/f"{n}.json").read_text())
        assert not card.get("error") and html.escape(card["title"]) in (tmp_path/"wordle"/"index.html").read_text(), card
        assert card["has_data"] or n == "fig7_secret_difference" and "no secret has both a won and a lost game" in card["note"], card
    assert "href='wordle/index.html'" in (tmp_path/"index.html").read_text()
    info = json.loads((tmp_path/"bandit"/"information_per_question.json").read_text())   # the game's own observer (`Game.exact_observer`)
    assert info["has_data"] and "Bandit questioner" in info["reading"] and "answered by the knowledge" in info["reading"], info
    for n in set(paper_notebooks) - set(game_notebooks):                          # a card that reads Twenty Questions only: one line on the city page
        card = json.loads((tmp_path/"guess-my-city"/f"{n}.json").read_text())
        assert not card["has_data"] and card["note"] and html.escape(card["note"]) in (tmp_path/"guess-my-city"/"index.html").read_text(), card
    for n in paper_notebooks: assert (tmp_path/"notebooks"/f"{n}.ipynb").exists() and (tmp_path/f"{n}.json").exists(), n
    for q in ["smollm2-135m", sft, grpo, delta]:                                  # a model notebook for each model, rendered and linked
        assert (tmp_path/"notebooks"/f"model--{slug(q)}.html").exists() and f"href='notebooks/model--{slug(q)}.html'" in (tmp_path/"index.html").read_text(), q
    for f in ["table1_pass_at_1.png", "fig1_cumulative_win_rate.csv", "transcripts.md", "index.html", "reference.json", "steps.csv"]: assert (tmp_path/f).exists(), f
    steps = pd.read_csv(tmp_path/"steps.csv").set_index("step")                  # each step's wall time and peak memory
    assert {"train: SFT", "train: GRPO", "train: ΔBelief-RL", "play SmolLM2-135M: paper, evals-shortlist, cia", "score paper--smollm2-135m with SmolLM2-135M",
            "score cia--smollm2-135m with SmolLM2-135M (cia prompt)", "reference: play", "report: figure and model notebooks"} <= set(steps.index)
    assert (steps.seconds > 0).all() and steps.peak_gb.between(0.05, 64).all() and steps.loc["train: SFT", "peak_gb"] > 0.5   # a model's weights and more
    cards = [json.loads(p.read_text()) for p in tmp_path.glob("*.json") if p.stem != "reference"]
    page = (tmp_path/"index.html").read_text()
    for c in cards: assert html.escape(c["title"]) in page and not c.get("error") and (c["has_data"] or c["note"]), c
    has = {c["stem"]: c["has_data"] for c in cards}
    assert all(has[s] for s in ["table1_pass_at_1", "fig3_counterfactual", "fig4_flip", "fig5_model_sizes", "table5_max_min", "training_curves", "gmc_transfer"]), has
    scorers = set(pd.read_csv(tmp_path/"fig3_counterfactual.csv").scorer)
    assert scorers == {"smollm2-135m", sft, grpo, delta, "wordnet"}                          # the models beside the ideal observer
    ref = json.loads((tmp_path/"reference.json").read_text())
    assert ref["n_reference"] == ref["n_won"] - ref["n_false_wins"] and "Reference games:" in page

def test_reproduce_then_test_leaves_the_clone_clean(tiny_job):
    """The README's two commands in that order on a clean clone: `make reproduce` (the tiny job) changes no tracked file and adds
    none that git sees, and then `make test`'s first step, the notebook check (the README's figure and caption against the
    repository's), passes there."""
    import subprocess, sys
    clone = tiny_job[0].parents[1]
    status = subprocess.run(["git", "status", "--porcelain"], cwd=clone, capture_output=True, text=True, check=True).stdout
    assert status == "", status
    check = subprocess.run([sys.executable, ".ci/check_notebooks.py"], cwd=clone, capture_output=True, text=True)
    assert check.returncode == 0, check.stdout + check.stderr

def test_tiny_report_in_chromium_names_players_and_gives_each_panel_room(tiny_job):
    """The tiny job's index in headless Chromium, 1280 x 800: no folder of the job in the text a reader sees (players under display
    names; paths only in the collapsed settings), and every figure shown at a width where its narrowest panel is 300 px or more.
    At 1,400 px the home opens with a line per game, and neither it nor any game's page scrolls sideways, its blocks closed or open."""
    out, _ = tiny_job
    shares = {f"{c['stem']}.png": c["panels"]["share"] for c in (json.loads(p.read_text()) for p in out.glob("*.json"))
              if isinstance(c, dict) and c.get("panels")}
    with index_page(out/"index.html") as page:
        text = page.evaluate("() => document.body.innerText")   # what is rendered: not the inside of a closed <details>
        assert str(out) not in text and "models/smollm2" not in text and "SmolLM2-135M +ΔBelief" in text
        shown = page.evaluate("() => Object.fromEntries([...document.images].map(i => [i.getAttribute('src'), "
                              "i.complete && i.naturalWidth > 0 ? i.getBoundingClientRect().width : 0]))")
    assert len(shares) >= 6 and set(shares) <= set(shown), (sorted(shares), sorted(shown))
    narrow = {f: round(shown[f] * s) for f, s in shares.items() if shown[f] * s < 300}
    assert not narrow, f"panels under 300 px on the page: {narrow}"
    games = ["guess-my-city", "murder-mystery", "wordle"]
    for index in [out/"index.html"] + [out/g/"index.html" for g in games]:   # every page fits 1,400 px, closed or all open
        with index_page(index, width=1400) as page:
            if index == out/"index.html":   # the home opens with what the run found: a line per game, its page linked
                found = page.locator("ul.found > li").all_inner_texts()
                assert found[0].startswith("Twenty Questions: Most games won") and all(any(t.startswith(f"{g}: ") for t in found) for g in games), found
            wide = "() => [document.documentElement.scrollWidth, document.documentElement.clientWidth]"
            w, c = page.evaluate(wide)
            page.evaluate("() => document.querySelectorAll('details').forEach(d => d.open = true)")
            w_open, c_open = page.evaluate(wide)
            assert w <= c and w_open <= c_open, (index, w, c, w_open, c_open)
