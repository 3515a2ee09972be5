"""The documentation site, built with MkDocs from the notebooks (once per test run, conftest's `docs_site`: notebooks as stored,
one of the paper's figure notebooks executed on the small fixture runs, no scorer for the replay page, MkDocs in strict mode).

Checked on the built HTML: the nav is the reading order and its titles are the notebooks' headings, the home page is the
README's notebook, each API page (rendered by mkdocstrings) has exactly the module's public names, with their signatures
and the parameter tables from their docments, the paper's figures are drawn, search knows the API entries, the replay
page is linked, and no page loads anything from outside the site."""
import html, importlib, inspect, json, re, subprocess, sys
from html.parser import HTMLParser
from pathlib import Path
import pytest, yaml
from fastcore.docments import docments
from twentyq.docs import nav_files, nb_module, nb_title, notebooks, api_page
from twentyq.report import paper_notebooks

ROOT = Path(__file__).resolve().parent.parent
NBS = ROOT/"nbs"
NAV = nav_files(yaml.safe_load((ROOT/"mkdocs.yml").read_text())["nav"])


@pytest.fixture
def site(docs_site):
    "The test run's documentation site (conftest's `docs_site`, built once): (folder, rows)."
    return docs_site


def page(site, rel) -> str: return (site[0]/rel).read_text()


class Tags(HTMLParser):
    "The start tags of a page, in order, as (tag, attrs) and the text of each table cell."
    def __init__(self, html):
        super().__init__(); self.tags, self.cells, self._cell = [], [], None
        self.feed(html)
    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))
        if tag in ("td", "th"): self._cell = ""
    def handle_endtag(self, tag):
        if tag in ("td", "th") and self._cell is not None: self.cells.append((len(self.tags), self._cell.strip())); self._cell = None
    def handle_data(self, data):
        if self._cell is not None: self._cell += data


def nav_titles(html) -> dict:
    "href -> title of each link of the site's navigation."
    return {h: re.sub(r"\s+", " ", t).strip()
            for h, t in re.findall(r'<a href="([^"#]+)" class="md-nav__link[^"]*">\s*<span class="md-ellipsis">(.*?)</span>', html, re.S)}


def test_nav_is_the_reading_order_titled_by_the_notebooks(site):
    rels = [p.relative_to(NBS).as_posix() for p in notebooks(NBS)]
    mods = [m for p in notebooks(NBS) if (m := nb_module(p))]
    assert len(rels) >= 25 and len(mods) >= 15
    assert NAV[0] == "index.ipynb" and set(rels) <= set(NAV) and {api_page(m) for m in mods} <= set(NAV)
    titles = nav_titles(page(site, "index.html"))
    for rel in rels:
        href = rel.replace(".ipynb", ".html")
        assert titles.get(href) == nb_title(NBS/rel), (rel, titles.get(href))
    assert titles["paper/fig1_cumulative_win_rate.html"] == "Fig. 1: cumulative win rate"
    assert titles["api/scoring.beliefs.html"] == "twentyq.scoring.beliefs" and titles["replay.html"] == "A replayed game"


def test_home_is_the_readme_notebook(site):
    h = page(site, "index.html")
    assert "<title>twentyq" in h and 'id="twentyq"' in h and '<a href="index.html" class="md-nav__link md-nav__link--active">' in h
    for text in ["Two commands", "make reproduce", "Play, then score", "Where to read on"]:
        assert text in h, text
    assert 'class="md-search__input"' in h            # the search box is on every page


def api_ids(site, mod) -> list[tuple[str, str]]:
    "(heading level, id) of each entry of a module's API page, in order: h2 its names, h3 their methods."
    return [(t, a["id"]) for t, a in Tags(page(site, api_page(mod).removesuffix(".md") + ".html")).tags if t in ("h2", "h3") and a.get("id", "").startswith(mod + ".")]


def test_api_pages_have_the_public_names_only(site):
    from twentyq import _modidx
    for p in notebooks(NBS):
        if not (mod := nb_module(p)): continue
        ids = api_ids(site, mod)
        names = [i.removeprefix(mod + ".") for t, i in ids if t == "h2"]
        assert sorted(names) == sorted(importlib.import_module(mod).__all__), mod          # __all__, each once
        assert all(t == "h3" for t, i in ids if i.removeprefix(mod + ".").count(".") == 1), mod   # a class's methods under it
        assert not any(part.startswith("_") for t, i in ids for part in i.split(".")), mod     # no private name, no dunder method
        private = {s for s in _modidx.d["syms"].get(mod, {}) if s.split(".")[-1].startswith("_")}
        assert private.isdisjoint(i for t, i in ids)
    beliefs = [i for t, i in api_ids(site, "twentyq.scoring.beliefs")]   # in the order of the notebook
    assert beliefs.index("twentyq.scoring.beliefs.score_beliefs") < beliefs.index("twentyq.scoring.beliefs.score_run")
    assert "twentyq.scoring.beliefs._frame" in str(_modidx.d["syms"])
    backend = [i for t, i in api_ids(site, "twentyq.engines.hf")]
    assert {"twentyq.engines.hf.HFBackend.generate", "twentyq.engines.hf.HFBackend.kv_bytes_per_token"} <= set(backend)   # @patch methods, a property
    assert backend.index("twentyq.engines.hf.HFBackend") < backend.index("twentyq.engines.hf.HFBackend.generate")
    assert "twentyq.replay.Replay.show" in [i for t, i in api_ids(site, "twentyq.replay")]


def params_tables(site, rel, anchor) -> list[list[list[str]]]:
    "The tables of the entry `anchor` of the page `rel` (up to the next entry), each a list of rows of cell texts, the header first."
    p = Tags(page(site, rel))
    at = next(i for i, (t, a) in enumerate(p.tags) if a.get("id") == anchor)
    end = next((i for i, (t, a) in enumerate(p.tags) if i > at and t in ("h2", "h3")), len(p.tags))
    starts = [i for i, (t, a) in enumerate(p.tags) if at < i < end and t == "table"] + [end]
    out = []
    for a, b in zip(starts, starts[1:]):
        cells = [c for i, c in p.cells if a < i <= b]
        n = 4 if cells[:1] == ["Name"] else 2
        out.append([cells[i:i+n] for i in range(0, len(cells), n)])
    return out


def signature(site, rel, anchor) -> str:
    "The text of the signature of the entry `anchor` of the page `rel`."
    h = page(site, rel)
    sig = re.search(r'<div class="doc-signature highlight"><pre>(.*?)</pre>', h[h.index(f'id="{anchor}"'):], re.S).group(1)
    return html.unescape(re.sub(r"<[^>]+>", "", sig)).strip()


def test_score_beliefs_entry_has_its_parameter_table(site):
    from twentyq.scoring.beliefs import score_beliefs
    assert signature(site, "api/scoring.beliefs.html", "twentyq.scoring.beliefs.score_beliefs").startswith(
        "score_beliefs(games, scorer, elicitation: str = 'Is the secret word', candidates=None, run: str | None = None,")
    params, returns = params_tables(site, "api/scoring.beliefs.html", "twentyq.scoring.beliefs.score_beliefs")
    names, dm = list(inspect.signature(score_beliefs).parameters), docments(score_beliefs)
    assert params[0] == ["Name", "Type", "Description", "Default"] and [r[0] for r in params[1:]] == names
    for name, ty, details, default in params[1:]:
        assert details == dm[name].replace("`", ""), name      # `code` in a docment renders as code
    rows = {r[0]: r for r in params[1:]}
    assert rows["elicitation"] == ["elicitation", "str", "E, the start of the questioner's guess", "'Is the secret word'"]
    assert rows["games"][1:] == ["", "list of game records, or a games.jsonl file / run folder", "required"]
    assert returns == [["Type", "Description"], ["DataFrame", ""]]


def test_docments_of_a_method_and_a_class(site):
    assert signature(site, "api/scoring.beliefs.html", "twentyq.scoring.beliefs.game_beliefs") == \
        "game_beliefs(game: dict, scorer: str, belief_prompt: str | None = None) -> list[float]"
    params, _ = params_tables(site, "api/scoring.beliefs.html", "twentyq.scoring.beliefs.game_beliefs")
    assert params[1] == ["game", "dict", "a game record", "required"]
    params, returns = params_tables(site, "api/engines.hf.html", "twentyq.engines.hf.HFBackend.generate")   # a method added with @patch
    assert params[-1] == ["**template_kw", "", "extra chat-template variables (e.g. enable_thinking=False)", "{}"]
    assert returns[1] == ["list[str]", ""]
    (params,) = params_tables(site, "api/rollout.html", "twentyq.rollout.RunSpec")                 # a dataclass: its fields
    assert params[1] == ["questioner", "str", "questioner model: embedded name, local folder or Hugging Face id", "'smollm2-135m'"]
    assert params_tables(site, "api/metrics.html", "twentyq.metrics.judge_won") == []               # no docments: no table
    assert signature(site, "api/metrics.html", "twentyq.metrics.judge_won") == "judge_won(record) -> bool"


def test_paper_figures_are_executed_and_drawn(site):
    out, rows = site
    status = {r["name"]: r["status"] for r in rows if r["kind"] == "notebook"}
    paper = [p.relative_to(NBS).as_posix() for p in notebooks(NBS) if p.parent.name == "paper"]
    ran = {"paper/table1_pass_at_1.ipynb"}   # the one the site executes (conftest's docs_site)
    assert len(paper) == len(paper_notebooks) + 1 and {p for p in paper if status[p] == "executed"} == ran, {p: status[p] for p in paper}   # and model_report
    assert status["38_beliefs.ipynb"] == "not executed" and status["paper/fig4_flip.ipynb"] == "not executed"
    drawn = [p for p in paper if 'src="data:image/png;base64,' in page(site, p.replace(".ipynb", ".html"))]
    assert set(drawn) == ran, drawn   # the executed figures are drawn on their pages; a page of a notebook as stored has none


def test_notebook_pages_are_nbdev_s(site):
    h = page(site, "02_edits.html")
    assert "flip_answer" in h and "Counterfactual games" in h and "#| export" not in h and "#|" not in h
    assert "jp-CodeCell" in h and "In&nbsp;[" not in h                     # cells, without prompts
    assert (site[0]/"02_edits.ipynb").exists()                              # the notebook to download
    assert "MathJax.js" in page(site, "36_onepass.html") and "\\pi(y \\mid s_t)" in page(site, "36_onepass.html")


def test_search_index_has_the_api_entries(site):
    docs = json.loads(page(site, "search/search_index.json"))["docs"]
    entry = [d for d in docs if d["location"] == "api/scoring.beliefs.html#twentyq.scoring.beliefs.score_beliefs"]
    assert len(entry) == 1 and entry[0]["title"] == "score_beliefs" and "scoring model" in entry[0]["text"]
    assert any(d["location"] == "api/replay.html#twentyq.replay.Replay.show" for d in docs)


def test_replay_page_is_linked_from_the_replay_notebook(site):
    h = page(site, "replay.html")
    assert "Turn 6 of 6" in h and "tq-replay" in h and 'id="turn-6"' in h and 'href="62_replay.html"' in h
    assert 'href="replay.html"' in page(site, "62_replay.html")


def test_nothing_is_loaded_from_outside_the_site(site):
    out = site[0]
    assert (out/"assets"/"mathjax"/"MathJax.js").exists()
    for p in out.rglob("*.html"):
        tags = re.findall(r"<(?:script|img|iframe|link)\b[^>]*>", p.read_text())
        ext = [t for t in tags if re.search(r'(?:src|href)="(?:https?:)?//', t)]
        assert not ext, (p, ext[:3])


def test_command():
    r = subprocess.run([sys.executable, "-m", "twentyq.docs", "--help"], capture_output=True, text=True, cwd=ROOT)
    assert r.returncode == 0 and "--no-execute" in r.stdout and "--execute" in r.stdout
