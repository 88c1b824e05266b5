"""The package and its tests run on the oldest Python that ``pyproject.toml`` accepts
(``requires-python``): no call the package makes may need a later one. CI runs
a later Python, where such a call passes; this reads the source instead.
(``zip(..., strict=True)``, new in Python 3.10, once sent nDCG over dense graded
relevance to a TypeError on Python 3.9.)"""

from __future__ import annotations

import ast
import pathlib
import re

PACKAGE = pathlib.Path(__file__).resolve().parents[2] / "sk_rankmetrics"
PYPROJECT = PACKAGE.parent / "pyproject.toml"
#: The package and its tests (the README's test command runs on that Python too).
SOURCES = (PACKAGE, PACKAGE.parent / "tests")

#: Calls by name with a keyword a later Python added to them: (name, keyword,
#: the Python that added it).
LATER_KEYWORDS = [("zip", "strict", (3, 10)), ("dataclass", "slots", (3, 10)),
                  ("dataclass", "kw_only", (3, 10))]
#: Names a later Python added to a module: (module, name, the Python).
LATER_NAMES = [("itertools", "pairwise", (3, 10)), ("itertools", "batched", (3, 12)),
               ("typing", "TypeAlias", (3, 10)), ("typing", "Self", (3, 11))]


def _floor():
    text = PYPROJECT.read_text()
    major, minor = re.search(r'requires-python\s*=\s*">=(\d+)\.(\d+)"', text).groups()
    return int(major), int(minor)


def _call_name(node):
    f = node.func
    return f.id if isinstance(f, ast.Name) else f.attr if isinstance(f, ast.Attribute) else None


def _later_uses(tree, floor):
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            name = _call_name(node)
            for fn, kw, since in LATER_KEYWORDS:
                if since > floor and name == fn and any(k.arg == kw for k in node.keywords):
                    found.append(f"line {node.lineno}: {fn}({kw}=...) needs Python {since}")
        if isinstance(node, ast.ImportFrom) and node.module:
            for mod, name, since in LATER_NAMES:
                if since > floor and node.module == mod and any(a.name == name
                                                                for a in node.names):
                    found.append(f"line {node.lineno}: {mod}.{name} needs Python {since}")
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
            for mod, name, since in LATER_NAMES:
                if since > floor and node.value.id == mod and node.attr == name:
                    found.append(f"line {node.lineno}: {mod}.{name} needs Python {since}")
    return found


def test_no_call_needs_a_later_python_than_the_floor():
    floor = _floor()
    bad = []
    for path in sorted(p for root in SOURCES for p in root.rglob("*.py")):
        for use in _later_uses(ast.parse(path.read_text()), floor):
            bad.append(f"{path.relative_to(PACKAGE.parent)} {use}")
    assert not bad, "\n".join(bad)


def test_the_check_finds_what_it_looks_for():
    src = ("from itertools import pairwise\nimport itertools\n"
           "for a, b in zip(x, y, strict=True):\n    pass\nitertools.batched(x, 2)\n")
    found = _later_uses(ast.parse(src), (3, 9))
    assert len(found) == 3
    assert any("zip(strict=...)" in f for f in found)
    assert _later_uses(ast.parse(src), (3, 12)) == []
