"The documentation site: every exported symbol on its API page, every notebook rendered (one executed), the replay renders."
import html, subprocess, sys
from pathlib import Path
import pytest
from twentyq.docs import build_docs, api_symbols, notebooks

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    out = tmp_path_factory.mktemp("docs")/"_docs"
    return out, build_docs(out, execute=False, progress=False)   # the fast way: notebooks rendered as stored


def test_every_exported_symbol_is_documented(site):
    out, rows = site
    syms = api_symbols()
    assert len(syms) >= 12 and sum(map(len, syms.values())) > 100
    for mod, names in syms.items():
        h = (out/"api"/f"{mod.split('.')[-1]}.html").read_text()
        missing = [n for n in names if f'>{html.escape(n)}<a class="anchor-link"' not in h]
        assert not missing, f"{mod}: not on its API page: {missing}"
    index = (out/"index.html").read_text()
    assert all(f'href="api/{m.split(".")[-1]}.html"' in index for m in syms)


def test_every_notebook_is_rendered_and_linked(site):
    out, rows = site
    nbs = notebooks(ROOT/"nbs")
    assert {"07_beliefs.ipynb", "12_replay.ipynb", "13_docs.ipynb"} <= {p.name for p in nbs}
    index = (out/"index.html").read_text()
    for p in nbs:
        rel = p.relative_to(ROOT/"nbs").with_suffix(".html")
        assert (out/"nbs"/rel).exists() and f'href="nbs/{rel.as_posix()}"' in index
    assert "flip_answer" in (out/"nbs"/"08_edits.html").read_text() and "jp-CodeCell" in (out/"nbs"/"08_edits.html").read_text()
    assert "#| export" not in (out/"nbs"/"08_edits.html").read_text()


def test_replay_renders(site):
    out, _ = site
    h = (out/"replay"/"index.html").read_text()
    assert "Turn 6 of 6" in h and "tq-figure" in h and "ranks" in h and "turn 2 the other way" in h


def test_executed_notebook_and_command(tmp_path):
    rows = build_docs(tmp_path/"d", execute=True, only=["08_edits"], replay_scorer=None, progress=False)
    nb = [r for r in rows if r["kind"] == "notebook"]
    assert [(r["name"], r["status"]) for r in nb] == [("08_edits.ipynb", "executed")]
    assert "[2]:" in (tmp_path/"d"/"nbs"/"08_edits.html").read_text()   # cells ran: they have execution counts
    r = subprocess.run([sys.executable, "-m", "twentyq.docs", "--help"], capture_output=True, text=True, cwd=ROOT)
    assert r.returncode == 0 and "--no-execute" in r.stdout
