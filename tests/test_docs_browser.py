"""The documentation site in a real browser: the test run's site (conftest's `docs_site`), served by `python -m http.server`
on 127.0.0.1 (the site's search loads its index over http), read with Debian's chromium driven by Playwright.

As a reader would: open the home page (the README's notebook, the nav titled by the notebooks), type `score_beliefs` in
the search box, follow the result to its API entry, and read its parameters there. Every request of the page goes to the
local server; one to anywhere else is blocked and fails the test, so the site works offline. Screenshots land in
reports/browser/docs_home.png and docs_score_beliefs.png. Chromium and Playwright are set up as for the replay test
(tests/test_browser.py), which is skipped, saying why, only where no chromium can be installed."""
import inspect, os, signal, subprocess, sys, time, urllib.request
from pathlib import Path
import pytest
from fastcore.docments import docments
from test_browser import CHROMIUM, CHROMIUM_ARGS, WAIT, ensure_chromium, ensure_playwright, free_port

ROOT = Path(__file__).resolve().parent.parent
SHOTS = ROOT/"reports"/"browser"


@pytest.fixture(scope="module")
def served(docs_site):
    "The test run's documentation site (conftest's `docs_site`) served on 127.0.0.1; the server is stopped afterwards."
    why = ensure_chromium()
    if why: pytest.skip(why)
    ensure_playwright()
    port = free_port()
    proc = subprocess.Popen([sys.executable, "-m", "http.server", str(port), "--bind", "127.0.0.1", "--directory", str(docs_site[0])],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    url = f"http://127.0.0.1:{port}"
    try:
        t0 = time.time()
        while True:
            try:
                with urllib.request.urlopen(url + "/index.html", timeout=5) as r:
                    if r.status == 200: break
            except OSError: pass
            if proc.poll() is not None or time.time() - t0 > 60: raise RuntimeError("the http server did not start")
            time.sleep(0.3)
        yield url
    finally:
        os.killpg(proc.pid, signal.SIGTERM); proc.wait(30)


@pytest.mark.timeout(900)
def test_search_score_beliefs_and_read_its_parameters(served):
    from playwright.sync_api import sync_playwright, expect, TimeoutError as PlaywrightTimeout
    from twentyq.scoring.beliefs import score_beliefs
    outside = []
    def route(r):   # the site's own files only: anything else is recorded and blocked
        if r.request.url.startswith(served + "/"): r.continue_()
        else: outside.append(r.request.url); r.abort()
    SHOTS.mkdir(parents=True, exist_ok=True)
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        try:
            page = browser.new_page(viewport={"width": 1400, "height": 1000})
            page.set_default_timeout(WAIT); expect.set_options(timeout=WAIT)
            page.route("**/*", route)
            page.goto(served + "/index.html", timeout=WAIT)
            # the home page is the README's notebook, the nav is titled by the notebooks
            expect(page.locator("article").get_by_role("heading", level=1, name="twentyq", exact=True)).to_be_visible()
            expect(page.locator("article")).to_contain_text("Two commands")
            nav = page.locator("nav.md-nav--primary")
            for title in ["protocols", "beliefs", "Fig. 1: cumulative win rate", "A replayed game", "twentyq.scoring.beliefs"]:
                expect(nav.get_by_role("link", name=title, exact=True).first).to_be_attached()
            page.screenshot(path=str(SHOTS/"docs_home.png"))
            # search, and follow the result to the API entry
            box = page.locator("input.md-search__input")
            anchor = "twentyq.scoring.beliefs.score_beliefs"   # mkdocstrings' anchor: the object's path
            hit = page.locator(f'a.md-search-result__link[href*="api/scoring.beliefs.html"][href$="#{anchor}"]').first
            box.click()
            t0 = time.time()
            while True:   # the search worker loads its index after the page: what is typed before it is ready is dropped
                box.fill(""); box.press_sequentially("score_beliefs", delay=20)
                try: hit.wait_for(state="visible", timeout=5000); break
                except PlaywrightTimeout: assert time.time() - t0 < WAIT/1000, "the search found no API entry for score_beliefs"
            hit.click()
            page.wait_for_url(f"**/api/scoring.beliefs.html*#{anchor}")
            expect(page.locator(f'h2[id="{anchor}"]')).to_be_in_viewport()
            expect(page.locator(f'xpath=//h2[@id="{anchor}"]/following::div[contains(@class, "doc-signature")][1]')).to_contain_text(
                "score_beliefs(games, scorer, elicitation: str = 'Is the secret word'")
            # its parameters: the first table after the heading (mkdocstrings'), one row per parameter with its docment
            table = page.locator(f"xpath=//h2[@id='{anchor}']/following::table[1]")
            expect(table).to_be_visible()
            rows = table.locator("tbody tr")
            names = [rows.nth(i).locator("td").first.inner_text().strip() for i in range(rows.count())]
            assert names == list(inspect.signature(score_beliefs).parameters)
            for name, doc in docments(score_beliefs).items():
                if doc and name != "return": expect(rows.nth(names.index(name))).to_contain_text(doc.replace("`", ""))
            page.screenshot(path=str(SHOTS/"docs_score_beliefs.png"))
        except Exception:
            page.screenshot(path=str(SHOTS/"docs_failure.png"))
            raise
        finally:
            browser.close()
    assert not outside, f"the site asked for files outside itself: {outside[:5]}"
