"""The documentation site, built with MkDocs from the notebooks (once for this module: notebooks as stored, the paper's
figure notebooks executed on the small fixture runs, no scorer for the replay page, MkDocs in strict mode).

Checked on the built HTML: the nav is the reading order and its titles are the notebooks' headings, the home page is the
README's notebook, each API page has exactly the module's public names in notebook order with their parameter tables, the
paper's figures are drawn, search knows the API entries, the replay page is linked, and no page loads anything from
outside the site."""
import inspect, json, re, subprocess, sys
from html.parser import HTMLParser
from pathlib import Path
import pytest, yaml
from fastcore.docments import docments
from twentyq.docs import build_docs, nav_files, nb_module, nb_title, notebooks, public_names

ROOT = Path(__file__).resolve().parent.parent
NBS = ROOT/"nbs"
NAV = nav_files(yaml.safe_load((ROOT/"mkdocs.yml").read_text())["nav"])


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    d = tmp_path_factory.mktemp("docs")
    rows = build_docs(d/"_docs", execute=["paper/"], replay_scorer=None, docs_dir=d/"src", cache_dir=d/"cache",
                      strict=True, progress=False)   # strict: a page missing from the nav or a broken link fails the build
    return d/"_docs", rows


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
    assert NAV[0] == "index.ipynb" and set(rels) <= set(NAV) and {f"api/{m.split('.')[-1]}.md" for m in mods} <= set(NAV)
    pos = NAV.index
    assert pos("04_protocols.ipynb") < pos("06_rollout.ipynb") < pos("07_beliefs.ipynb") < pos("08_edits.ipynb") \
        < pos("11_analysis.ipynb") < pos("paper/fig1_cumulative_win_rate.ipynb") < pos("12_replay.ipynb") < pos("api/index.md")
    titles = nav_titles(page(site, "index.html"))
    for rel in rels:
        href = rel.replace(".ipynb", ".html")
        assert titles.get(href) == nb_title(NBS/rel), (rel, titles.get(href))
    assert titles["paper/fig1_cumulative_win_rate.html"] == "Fig. 1: cumulative win rate"
    assert titles["api/beliefs.html"] == "twentyq.beliefs" and titles["replay.html"] == "A replayed game"


def test_home_is_the_readme_notebook(site):
    h = page(site, "index.html")
    assert "<title>twentyq" in h and 'id="twentyq"' in h and '<a href="index.html" class="md-nav__link md-nav__link--active">' in h
    for text in ["Two commands", "make reproduce", "Play, then score", "Reading games"]:
        assert text in h, text
    assert 'class="md-search__input"' in h            # the search box is on every page


def test_api_pages_have_the_public_names_in_notebook_order(site):
    from twentyq import _modidx
    for p in notebooks(NBS):
        if not (mod := nb_module(p)): continue
        tags = Tags(page(site, f"api/{mod.split('.')[-1]}.html")).tags
        ids = [a["id"] for t, a in tags if t == "h3" and "id" in a]
        assert ids == public_names(mod), mod
        private = [s.split(".")[-1] for s in _modidx.d["syms"].get(mod, {}) if s.split(".")[-1].startswith("_")]
        assert not any(i.split(".")[-1].startswith("_") for i in ids) and not set(private) & set(ids)
    beliefs = public_names("twentyq.beliefs")
    assert beliefs.index("score_beliefs") < beliefs.index("score_run") and "_attention_masks" in str(_modidx.d["syms"])


def test_score_beliefs_entry_has_its_parameter_table(site):
    from twentyq.beliefs import score_beliefs
    p = Tags(page(site, "api/beliefs.html"))
    at = next(i for i, (t, a) in enumerate(p.tags) if a.get("id") == "score_beliefs")
    table = next(i for i, (t, a) in enumerate(p.tags) if i > at and t == "table")
    end = next((i for i, (t, a) in enumerate(p.tags) if i > table and t == "h3"), len(p.tags))
    cells = [c for i, c in p.cells if table < i <= end]
    params, dm = list(inspect.signature(score_beliefs).parameters), docments(score_beliefs)
    assert cells[:4] == ["parameter", "type", "default", "details"]
    rows = [cells[i:i+4] for i in range(4, len(cells), 4)]
    assert [r[0] for r in rows] == params + ["returns"]
    for name, ty, default, details in rows[:-1]:
        assert details == dm[name].replace("`", ""), name      # `code` in a docment renders as code
    assert dict((r[0], r[1:3]) for r in rows)["elicitation"] == ["str", "'Is the secret word'"]


def test_paper_figures_are_executed_and_drawn(site):
    out, rows = site
    status = {r["name"]: r["status"] for r in rows if r["kind"] == "notebook"}
    paper = [p.relative_to(NBS).as_posix() for p in notebooks(NBS) if p.parent.name == "paper"]
    assert len(paper) == 11 and all(status[p] == "executed" for p in paper), {p: status[p] for p in paper}   # 9 figures, the cia card, the model notebook
    assert status["07_beliefs.ipynb"] == "not executed"
    drawn = [p for p in paper if 'src="data:image/png;base64,' in page(site, p.replace(".ipynb", ".html"))]
    assert {"paper/table1_pass_at_1.ipynb", "paper/fig1_cumulative_win_rate.ipynb"} <= set(drawn), drawn


def test_notebook_pages_are_nbdev_s(site):
    h = page(site, "08_edits.html")
    assert "flip_answer" in h and "Counterfactual games" in h and "#| export" not in h and "#|" not in h
    assert "jp-CodeCell" in h and "In&nbsp;[" not in h                     # cells, without prompts
    assert (site[0]/"08_edits.ipynb").exists()                              # the notebook to download
    assert "MathJax.js" in page(site, "24_onepass.html") and "\\pi(y \\mid s_t)" in page(site, "24_onepass.html")


def test_search_index_has_the_api_entries(site):
    docs = json.loads(page(site, "search/search_index.json"))["docs"]
    entry = [d for d in docs if d["location"] == "api/beliefs.html#score_beliefs"]
    assert len(entry) == 1 and entry[0]["title"] == "score_beliefs" and "scoring model" in entry[0]["text"]
    assert any(d["location"] == "api/replay.html#Replay.show" for d in docs)


def test_replay_page_is_linked_from_the_replay_notebook(site):
    h = page(site, "replay.html")
    assert "Turn 6 of 6" in h and "tq-replay" in h and 'id="turn-6"' in h and 'href="12_replay.html"' in h
    assert 'href="replay.html"' in page(site, "12_replay.html")


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
