"""The replay in a real browser: JupyterLab on localhost, Debian's chromium driven by Playwright.

The test writes a small real run (the fixture's SmolLM2 games, scored by SmolLM2 against a few candidates), a notebook that
opens the replay on it, runs the notebook through JupyterLab's own "Run All Cells" menu, presses the replay's "next" button
and checks that the displayed turn and question change. It leaves a screenshot in reports/browser/replay.png.
Chromium comes from Debian, installed by `make test`'s set-up (`apt-get install chromium`, as root); Playwright from PyPI (the dev extra).
The test is skipped, saying why, only where chromium is missing."""
import json, os, secrets, shutil, signal, socket, subprocess, sys, time, urllib.request
from pathlib import Path
import pytest

ROOT = Path(__file__).resolve().parent.parent
CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]
PLAYWRIGHT = "playwright==1.65.2"   # as pinned in pyproject.toml's dev extra
SHOT = ROOT/"reports"/"browser"/"replay.png"
WAIT = int(os.environ.get("TWENTYQ_BROWSER_WAIT_MS", 240_000))   # ms: CI is a loaded 2-core machine


def ensure_chromium() -> str | None:
    "The reason Debian's chromium cannot be used, or None. `make test` installs it first (as root, with apt-get); a test installs nothing."
    if CHROMIUM.exists(): return None
    return f"chromium is not installed at {CHROMIUM} (make test installs Debian's chromium where it runs as root with apt-get)"


def ensure_playwright():
    try: import playwright.sync_api  # noqa: F401
    except ImportError:
        subprocess.run([sys.executable, "-m", "pip", "install", "-q", PLAYWRIGHT], check=True, timeout=900)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0)); return s.getsockname()[1]


def make_run(d: Path) -> tuple[Path, list[dict]]:
    "A run folder: the fixture's real SmolLM2 games cut to 5 turns, scored by SmolLM2 with the top-10 of 15 candidates."
    from twentyq.runs import read_jsonl
    from twentyq.edits import truncate
    from twentyq.scoring.beliefs import score_run
    run = d/"smollm2-run"; run.mkdir()
    games = [truncate(g, 5) | {"game_id": g["game_id"]} for g in read_jsonl(ROOT/"tests"/"fixtures"/"games_smollm2.jsonl")]
    (run/"games.jsonl").write_text("".join(json.dumps(g) + "\n" for g in games))
    score_run(run, "smollm2-135m", device="cpu", progress=False, top_k=10,
              candidates=["dog", "piano", "river", "doctor", "horse", "table", "teacher", "mountain", "guitar", "bird",
                          "car", "apple", "house", "ocean", "tree"])
    return run, games


def write_notebook(path: Path, run: Path):
    import nbformat
    nb = nbformat.v4.new_notebook(cells=[
        nbformat.v4.new_markdown_cell("# Replay of a small SmolLM2 run"),
        nbformat.v4.new_code_cell(f"from twentyq.replay import replay\nr = replay({run.name!r})\nr")])
    nb.metadata = {"kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"}}
    nbformat.write(nb, path)


@pytest.fixture(scope="module")
def lab(tmp_path_factory):
    "A JupyterLab server on localhost serving a folder with the run and the replay notebook; killed afterwards."
    why = ensure_chromium()
    if why: pytest.skip(why)
    ensure_playwright()
    d = tmp_path_factory.mktemp("lab")
    run, games = make_run(d)
    write_notebook(d/"replay.ipynb", run)
    settings = d/".settings"/"@jupyterlab"/"apputils-extension"; settings.mkdir(parents=True)
    (settings/"notification.jupyterlab-settings").write_text(json.dumps({"fetchNews": "false", "checkForUpdates": False}))
    port, token = free_port(), secrets.token_hex(16)
    env = dict(os.environ, OMP_NUM_THREADS="1", HF_HUB_OFFLINE="1",
               PYTHONPATH=os.pathsep.join(p for p in [str(ROOT), os.environ.get("PYTHONPATH", "")] if p),
               JUPYTERLAB_SETTINGS_DIR=str(d/".settings"), JUPYTERLAB_WORKSPACES_DIR=str(d/".workspaces"),
               JUPYTER_RUNTIME_DIR=str(d/".runtime"))
    log = open(d/"lab.log", "w")
    proc = subprocess.Popen([sys.executable, "-m", "jupyter", "lab", "--no-browser", f"--port={port}", "--ServerApp.ip=127.0.0.1",
                             f"--IdentityProvider.token={token}", f"--ServerApp.root_dir={d}", "--ServerApp.port_retries=0"]
                            + (["--allow-root"] if os.geteuid() == 0 else []),
                            cwd=d, env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    try:
        t0 = time.time()
        while True:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/status?token={token}", timeout=5) as r:
                    if r.status == 200: break
            except OSError: pass
            if proc.poll() is not None or time.time() - t0 > 180:
                raise RuntimeError(f"JupyterLab did not start: {(d/'lab.log').read_text()[-3000:]}")
            time.sleep(1)
        yield dict(url=f"http://127.0.0.1:{port}/lab/tree/replay.ipynb?token={token}", games=games, log=d/"lab.log")
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGTERM)
            try: proc.wait(30)
            except subprocess.TimeoutExpired: os.killpg(proc.pid, signal.SIGKILL); proc.wait(30)
        log.close()


@pytest.mark.timeout(1200)
def test_replay_in_jupyterlab(lab):
    from playwright.sync_api import sync_playwright, expect
    games = lab["games"]
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        try:
            page = browser.new_page(viewport={"width": 1500, "height": 1100})
            page.set_default_timeout(WAIT); expect.set_options(timeout=WAIT)
            page.goto(lab["url"], timeout=WAIT)
            # the notebook is open and its kernel is up
            page.wait_for_selector(".jp-NotebookPanel .jp-CodeCell")
            page.wait_for_selector('.jp-Notebook-ExecutionIndicator[data-status="idle"]')
            def run_all():   # JupyterLab's own menu: Run > Run All Cells
                page.locator(".lm-MenuBar-itemLabel", has_text="Run").first.click()
                page.locator('.lm-Menu .lm-Menu-itemLabel:text-is("Run All Cells")').click()
            run_all()
            # JupyterLab may first ask which kernel to run the notebook in: take the one it proposes (Python 3) and run
            # again; a run that did not start (the prompt still reads [ ]) is asked for again too
            t0 = last = time.time()
            while not page.locator("button.tq-next").count():
                assert time.time() - t0 < WAIT/1000, "the replay widget did not appear"
                accept = page.locator(".jp-Dialog .jp-mod-accept")
                if accept.count():
                    print("dialog:", page.locator(".jp-Dialog").first.inner_text().splitlines()[0]); accept.first.click()
                    page.wait_for_timeout(2000); run_all(); last = time.time(); continue
                if page.locator(".jp-CodeCell .jp-InputPrompt").first.inner_text().strip() == "[ ]:" and time.time() - last > 20:
                    print("running all cells again"); run_all(); last = time.time()
                page.wait_for_timeout(1000)
            step, question = page.locator(".tq-view .tq-step"), page.locator(".tq-view .tq-qtext")
            expect(step).to_have_text("Turn 0 of 5: the start")
            expect(page.locator(".tq-view .tq-head")).to_contain_text(games[0]["game_id"])
            expect(page.locator(".tq-view img.tq-figure")).to_be_visible()
            seen = []
            for t in (1, 2, 3):
                page.locator("button.tq-next").click()
                expect(step).to_have_text(f"Turn {t} of 5")
                expect(question).to_have_text(games[0]["turns"][t-1]["question"])
                expect(page.locator(".tq-slider .widget-readout")).to_have_text(str(t))
                seen.append(question.inner_text())
            assert len(set(seen[:2])) == 2, f"the question did not change between turns 1 and 2: {seen}"
            expect(page.locator(".tq-view .tq-rank").first).to_be_visible()   # the secret's rank among the candidates
            page.locator("button.tq-prev").click()
            expect(step).to_have_text("Turn 2 of 5")
            SHOT.parent.mkdir(parents=True, exist_ok=True)
            page.locator(".jp-NotebookPanel").screenshot(path=str(SHOT))
        except Exception:
            SHOT.parent.mkdir(parents=True, exist_ok=True)
            page.screenshot(path=str(SHOT.with_name("failure.png")))
            print(lab["log"].read_text()[-3000:])
            raise
        finally:
            browser.close()
    assert SHOT.stat().st_size > 10_000
