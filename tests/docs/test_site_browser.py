"""The built site in a real browser: formulas rendered, tables that fit, no errors.

Opens the key pages of the site built by ``python -m sphinx -W --keep-going -b html docs
docs/_build/html`` in headless Chromium, served from a local HTTP server, at
a window width of 1280 px, and asserts on each:

- **formulas rendered**: every math element of the page holds MathJax output
  (``mjx-container``), pages with formulas have some, and no raw TeX
  (``\\(``, ``\\[``, ``$$``, ``\\frac``, ...) is left in the visible text
  outside code;
- **offline**: every script, stylesheet and image comes from the site itself
  (no CDN), and the browser logs no failed load;
- **layout**: no table is wider than the content area, and no code block
  needs a horizontal scroll bar;
- **no JavaScript error** in the console.

A full-page screenshot of each page is kept in ``docs/_build/screenshots``.

The test needs the built site, the ``selenium`` package (the ``browser``
extra) and Debian's ``chromium`` and ``chromium-driver``; without them it is
skipped, unless ``SK_RANKMETRICS_BROWSER_TEST=1`` (set by ``.ci/run``, which
installs them) makes their absence a failure.
"""

from __future__ import annotations

import functools
import http.server
import os
import re
import shutil
import tempfile
import threading
from pathlib import Path

import pytest
from conftest import ROOT

SITE = Path(os.environ.get("SK_RANKMETRICS_SITE", ROOT / "docs" / "_build" / "html"))
SCREENSHOTS = SITE.parent / "screenshots"
REQUIRED = os.environ.get("SK_RANKMETRICS_BROWSER_TEST") == "1"
WIDTH = 1280

#: (page, whether it has formulas)
PAGES = [
    ("index.html", False),
    ("getting_started.html", False),
    ("user_guide.html", True),
    ("metrics.html", True),
    ("which_ndcg.html", True),
    ("sklearn_integration.html", False),
    ("generated/sk_rankmetrics.ndcg_score.html", True),
    ("auto_examples/plot_metric_at_k.html", False),
    ("comparing.html", False),
    ("auto_examples/plot_compare_systems.html", False),
    ("scale.html", False),
]

#: TeX that MathJax would have replaced: delimiters and common commands.
RAW_TEX = re.compile(r"\\\(|\\\)|\\\[|\\\]|\$\$|\\(frac|mathrm|log|sum|min|max|text|left|"
                     r"right|cdot|ge|le|mapsto|begin|end)\b")

_VISIBLE_TEXT = """
const root = document.querySelector('article') || document.body;
const copy = root.cloneNode(true);
copy.querySelectorAll('pre, code, script, style, mjx-container, .MathJax, .headerlink')
    .forEach(e => e.remove());
return copy.innerText;
"""

_MATH = """
const maths = [...document.querySelectorAll('.math')];
return {
    total: maths.length,
    unrendered: maths.filter(m => !m.querySelector('mjx-container'))
                     .map(m => m.textContent.slice(0, 80)),
    containers: document.querySelectorAll('mjx-container').length,
};
"""

_WAIT_FOR_MATHJAX = """
const done = arguments[arguments.length - 1];
if (window.MathJax && MathJax.startup && MathJax.startup.promise) {
    MathJax.startup.promise.then(() => done('typeset'), e => done('error: ' + e));
} else {
    done('no MathJax');
}
"""

_LAYOUT = """
const article = document.querySelector('article.bd-article') ||
                document.querySelector('article') || document.body;
const limit = article.clientWidth + 1;
const wide = [...article.querySelectorAll('table')]
    .filter(t => t.getBoundingClientRect().width > limit
                 || t.scrollWidth > t.parentElement.clientWidth + 1)
    .map(t => ({width: Math.round(Math.max(t.getBoundingClientRect().width,
                                           t.scrollWidth)),
                text: t.innerText.slice(0, 60)}));
const cut = [...article.querySelectorAll('pre')]
    .filter(p => p.scrollWidth > p.clientWidth + 1)
    .map(p => ({scroll: p.scrollWidth, client: p.clientWidth,
                text: p.innerText.split('\\n').find(l => l.length > 60) || ''}));
return {content: article.clientWidth, wide: wide, cut: cut};
"""

_FOREIGN = """
const items = [...document.querySelectorAll('script[src], link[href], img[src], iframe[src]')]
    .map(e => e.src || e.href)
    .filter(u => u && !u.startsWith(location.origin) && !u.startsWith('data:')
                 && !(document.querySelector(`link[href="${u}"]`) &&
                      !['stylesheet', 'preload', 'icon', 'modulepreload']
                        .includes(document.querySelector(`link[href="${u}"]`).rel)));
return items;
"""


def _require(condition, why):
    if not condition:
        if REQUIRED:
            pytest.fail(f"{why} (SK_RANKMETRICS_BROWSER_TEST=1 requires it)")
        pytest.skip(why)


def _which(*names):
    for name in names:
        found = shutil.which(name)
        if found:
            return found
    return None


@pytest.fixture(scope="module")
def site_url():
    _require((SITE / "index.html").exists(),
             f"no built site at {SITE} (python -m sphinx -W --keep-going -b html docs "
             "docs/_build/html)")
    handler = functools.partial(_QuietHandler, directory=str(SITE))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}/"
    server.shutdown()
    server.server_close()


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):  # no access log in the test output
        pass


@pytest.fixture(scope="module")
def browser():
    try:
        from selenium import webdriver
        from selenium.webdriver.chrome.service import Service
    except ImportError:
        _require(False, "selenium is not installed (pip install '.[browser]')")
    chromium = _which("chromium", "chromium-browser", "google-chrome")
    driver_path = _which("chromedriver")
    _require(chromium is not None and driver_path is not None,
             "Chromium or chromedriver not found (apt-get install chromium chromium-driver)")
    os.environ.setdefault("SE_OFFLINE", "true")  # Selenium Manager must download nothing
    options = webdriver.ChromeOptions()
    options.binary_location = chromium
    profile = tempfile.mkdtemp(prefix="sk-rankmetrics-chromium-")
    for flag in ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
                 "--no-first-run", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync",
                 "--disable-dev-shm-usage", f"--user-data-dir={profile}",
                 f"--window-size={WIDTH},1000", "--hide-scrollbars"):
        options.add_argument(flag)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(service=Service(executable_path=driver_path), options=options)
    driver.set_page_load_timeout(60)
    driver.set_script_timeout(60)
    yield driver
    driver.quit()
    shutil.rmtree(profile, ignore_errors=True)


@pytest.fixture(scope="module")
def pages(site_url, browser):
    """Load each page once; return what the checks need."""
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    out = {}
    for page, _ in PAGES:
        assert (SITE / page).exists(), f"the site has no {page}"
        browser.set_window_size(WIDTH, 1000)
        browser.get_log("browser")  # forget what earlier pages logged
        browser.get(site_url + page)
        mathjax = browser.execute_async_script(_WAIT_FOR_MATHJAX)
        info = {
            "mathjax": mathjax,
            "text": browser.execute_script(_VISIBLE_TEXT),
            "math": browser.execute_script(_MATH),
            "layout": browser.execute_script(_LAYOUT),
            "foreign": browser.execute_script(_FOREIGN),
            "log": [e for e in browser.get_log("browser") if e["level"] == "SEVERE"],
        }
        height = browser.execute_script("return document.documentElement.scrollHeight")
        browser.set_window_size(WIDTH, min(max(int(height), 1000), 12000))
        shot = SCREENSHOTS / (page.replace("/", "_").replace(".html", ".png"))
        browser.save_screenshot(str(shot))
        info["screenshot"] = shot
        out[page] = info
    return out


IDS = [page for page, _ in PAGES]


@pytest.mark.parametrize(("page", "has_math"), PAGES, ids=IDS)
def test_formulas_are_rendered(pages, page, has_math):
    info = pages[page]
    math = info["math"]
    assert not math["unrendered"], f"{page}: formulas left as TeX: {math['unrendered'][:5]}"
    if has_math:
        assert info["mathjax"] == "typeset", f"{page}: MathJax {info['mathjax']}"
        assert math["total"] > 0 and math["containers"] >= math["total"], (page, math)
    raw = sorted({m.group(0) for m in RAW_TEX.finditer(info["text"])})
    assert not raw, f"{page}: raw TeX in the visible text: {raw}"


@pytest.mark.parametrize("page", IDS)
def test_the_site_works_offline(pages, page):
    info = pages[page]
    assert not info["foreign"], f"{page} loads from elsewhere: {info['foreign']}"


def test_no_built_page_loads_from_elsewhere():
    """Every HTML file of the built site, not only the pages the browser visits:
    no script, stylesheet, image or frame from outside the site (the check the
    build runs, docs/_ext/offline_check.py). Needs the built site only."""
    import sys

    if not (SITE / "index.html").exists():
        if REQUIRED:
            pytest.fail(f"no built site in {SITE}")
        pytest.skip(f"no built site in {SITE}")
    sys.path.insert(0, str(ROOT / "docs" / "_ext"))
    try:
        from offline_check import check_site, foreign_loads
    finally:
        sys.path.remove(str(ROOT / "docs" / "_ext"))
    assert foreign_loads('<script src="https://cdn.example/x.js"></script>')
    assert not foreign_loads('<a href="https://example.org">a link</a>')
    assert len(list(SITE.rglob("*.html"))) > len(PAGES)
    assert check_site(SITE) == {}


@pytest.mark.parametrize("page", IDS)
def test_no_table_wider_than_the_content_and_no_code_cut_off(pages, page):
    layout = pages[page]["layout"]
    assert layout["content"] > 300, layout
    assert not layout["wide"], (
        f"{page}: tables wider than the content area ({layout['content']} px): "
        f"{layout['wide']}")
    assert not layout["cut"], f"{page}: code blocks that scroll sideways: {layout['cut']}"


@pytest.mark.parametrize("page", IDS)
def test_no_javascript_error(pages, page):
    errors = [e["message"] for e in pages[page]["log"]]
    assert not errors, f"{page}: the console logged errors: {errors}"


def test_screenshots_are_kept(pages):
    for page, info in pages.items():
        shot = info["screenshot"]
        assert shot.exists() and shot.stat().st_size > 10_000, page
        assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
