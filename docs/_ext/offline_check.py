"""A build check: no page of the HTML site loads anything from outside the site.

At the end of an HTML build every ``*.html`` file of the output is read, and a
script, stylesheet, image, frame or media source given by an absolute or
protocol-relative URL (``https://cdn...``, ``//unpkg...``) fails the build,
naming the pages. Plain links (``<a href="https://...">``) are allowed: they
load nothing. ``tests/docs/test_site_browser.py`` runs the same check over a built
site.
"""

from __future__ import annotations

import re
from pathlib import Path

_FOREIGN_LOAD = re.compile(
    r"<(?:script|img|iframe|source|video|audio|embed)\b[^>]*\bsrc\s*=\s*[\"']?(?:https?:)?//"
    r"|<link\b(?=[^>]*\brel\s*=\s*[\"']?(?:stylesheet|preload|modulepreload|icon))"
    r"[^>]*\bhref\s*=\s*[\"']?(?:https?:)?//"
    r"|@import\s+(?:url\()?[\"']?(?:https?:)?//",
    re.IGNORECASE,
)


def foreign_loads(html):
    """The tags of ``html`` that load a resource from outside the site."""
    return [m.group(0)[:120] for m in _FOREIGN_LOAD.finditer(html)]


def check_site(outdir):
    """``{page: [tags]}`` of every HTML page under ``outdir`` that loads from outside."""
    outdir = Path(outdir)
    bad = {}
    for path in sorted(outdir.rglob("*.html")):
        found = foreign_loads(path.read_text(encoding="utf-8", errors="replace"))
        if found:
            bad[path.relative_to(outdir).as_posix()] = found[:3]
    return bad


def _check(app, exception):
    if exception is not None or app.builder.format != "html":
        return
    bad = check_site(app.outdir)
    if bad:
        raise RuntimeError(f"pages that load from outside the site: {bad}")


def setup(app):
    app.connect("build-finished", _check)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
