"""docs/developers.md and the code agree.

The page's tree names every module of the package (and no other), every
package folder has its test folder, its import ladder is the one
tests/structure/test_layers.py enforces, and its three guides ("Adding a
metric", "Adding a beyond-accuracy measure", "Adding an entry point") work:
their blocks, applied as they say to a copy of the repository, add a metric, a
beyond-accuracy measure or an entry point that the registry-driven suites
accept without a test failing for a reason the guide did not mention.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys

import pytest
from conftest import ROOT, code_blocks
from test_layers import LADDER

PAGE = ROOT / "docs" / "developers.md"
LADDER_FOLDERS = [name[1:] for name in LADDER]


def _section(title):
    return [(line, lang, code) for line, lang, code, sec
            in code_blocks(PAGE.read_text(encoding="utf-8"), with_sections=True)
            if sec == title]


def _tree_modules():
    """Module paths (relative to the package) the tree block names."""
    (_, _, tree), = [b for b in _section("The tree") if b[1] == "text"]
    stack, out = [], set()
    for raw in tree.splitlines()[1:]:  # the first line is sk_rankmetrics/
        if not raw.strip():
            continue
        depth = (len(raw) - len(raw.lstrip())) // 2 - 1
        name = raw.split()[0]
        stack = stack[:depth]
        if name.endswith("/"):
            stack.append(name[:-1])
            out.add("/".join([*stack, "__init__.py"]))  # every folder has one
        else:
            out.add("/".join([*stack, name]))
    return out


def test_the_tree_names_every_module():
    package = ROOT / "sk_rankmetrics"
    actual = {p.relative_to(package).as_posix() for p in package.rglob("*.py")
              if "__pycache__" not in p.parts}
    named = _tree_modules()
    assert not actual - named, f"modules missing from the tree: {sorted(actual - named)}"
    assert not named - actual, f"the tree names modules that do not exist: {sorted(named - actual)}"


def test_every_package_folder_has_a_test_folder():
    """tests/ mirrors the package: ``_beyond/`` has ``tests/beyond/``, ..."""
    folders = {p.name[1:] for p in (ROOT / "sk_rankmetrics").iterdir()
               if p.is_dir() and p.name.startswith("_") and p.name != "__pycache__"}
    tests = {p.name for p in (ROOT / "tests").iterdir() if p.is_dir() and any(p.glob("test_*.py"))}
    assert folders == set(LADDER_FOLDERS), "the ladder and the package folders differ"
    assert not folders - tests, f"package folders without a test folder: {sorted(folders - tests)}"
    top = [p.name for p in (ROOT / "tests").iterdir() if p.is_file()]
    assert len(top) <= 12 and not [n for n in top if n.startswith("test_")], top


def test_the_ladder_table_is_the_one_enforced():
    text = PAGE.read_text(encoding="utf-8")
    table = text.split("## The import ladder", 1)[1].split("\n\n", 2)[2]
    ranks = {}
    for row in table.splitlines():
        cells = [c.strip() for c in row.strip("|").split("|")]
        if len(cells) == 3 and cells[0].isdigit():
            for folder in re.findall(r"`(_\w+)`", cells[1]):
                ranks[folder] = int(cells[0])
    assert ranks == LADDER


_HEADER = re.compile(r"^(?:#|\.\.) (?P<file>\S+): (?P<where>at the end|before (?P<q1>['\"])"
                     r"(?P<before>.*)(?P=q1)|after (?P<q2>['\"])(?P<after>.*)(?P=q2))$")


#: The guides the page gives, each applied by a test below.
GUIDES = ("Adding a metric", "Adding a beyond-accuracy measure", "Adding an entry point")


def _steps(guide="Adding a metric"):
    """(file, where, anchor, text) of each block of the guide."""
    out = []
    for line, _, code in _section(guide):
        head, _, body = code.partition("\n")
        m = _HEADER.match(head)
        assert m, f"docs/developers.md:{line}: a block must start with where it goes, got {head!r}"
        where = "end" if m["where"] == "at the end" else "before" if m["before"] else "after"
        out.append((m["file"], where, m["before"] or m["after"], body))
    return out


def _apply(root, steps):
    for file, where, anchor, body in steps:
        path = root / file
        lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
        if where == "end":
            lines.append(body)
        else:
            hits = [i for i, line in enumerate(lines) if line.rstrip("\n") == anchor]
            assert len(hits) == 1, f"{file}: the anchor {anchor!r} matches {len(hits)} lines"
            at = hits[0] + (where == "after")
            lines.insert(at, body)
        path.write_text("".join(lines), encoding="utf-8")


@pytest.mark.parametrize("guide", GUIDES)
def test_the_guide_names_its_places(guide):
    steps = _steps(guide)
    files = {f for f, *_ in steps}
    text = PAGE.read_text(encoding="utf-8").split(f"## {guide}\n", 1)[1].split("\n## ", 1)[0]
    m = re.search(r"That is (\d+) files and (\d+) places", text)
    assert m and (int(m[1]), int(m[2])) == (len(files), len(steps)), (len(files), len(steps))


def _copy_with(tmp_path, guide):
    """A copy of the repository with the guide's blocks applied, and the
    environment that imports the package from it."""
    copy = tmp_path / "repo"
    skip = shutil.ignore_patterns("__pycache__", "_build", "*.egg-info", ".git", "build",
                                  "benchmarks", ".hypothesis")
    for part in ["sk_rankmetrics", "tests", "docs", "pyproject.toml"]:
        src = ROOT / part
        if src.is_dir():
            shutil.copytree(src, copy / part, ignore=skip)
        else:
            shutil.copy(src, copy / part)
    _apply(copy, _steps(guide))
    return copy, {**os.environ, "PYTHONPATH": str(copy)}


def _python(copy, env, code):
    """The lines ``code`` prints in the copy, after ``import sk_rankmetrics as s``."""
    check = subprocess.run([sys.executable, "-c", f"import sk_rankmetrics as s; {code}"],
                           cwd=copy, env=env, capture_output=True, text=True, timeout=120)
    assert check.returncode == 0, check.stderr
    return check.stdout.splitlines()


#: The tests that apply a guide (not run again inside a copy).
_GUIDE_TESTS = ("test_adding_a_metric_as_the_guide_says",
                "test_adding_a_beyond_accuracy_measure_as_the_guide_says",
                "test_adding_an_entry_point_as_the_guide_says")


def _suites(copy, env, paths, *extra):
    """Run the test files ``paths`` (under tests/, or doctests of modules) in the copy."""
    command = [sys.executable, "-m", "pytest", "-q", "-x", "-p", "no:cacheprovider",
               *(f"--deselect=tests/structure/test_developers.py::{t}" for t in _GUIDE_TESTS),
               *extra]
    out = subprocess.run([*command, *paths], cwd=copy, env=env, capture_output=True,
                         text=True, timeout=1500)
    assert out.returncode == 0, "\n".join(out.stdout.splitlines()[-30:])


@pytest.mark.slow
def test_adding_a_beyond_accuracy_measure_as_the_guide_says(tmp_path):
    copy, env = _copy_with(tmp_path, "Adding a beyond-accuracy measure")
    out = _python(copy, env, "print(s.evaluate_ranked({'u': ['a', 'b']}, None, "
                  "['mean_share@2'], popularity={'a': 0.5, 'b': 0.25}).mean); "
                  "print(s.metric_names(family='beyond_list'))")
    assert out[0] == "{'mean_share@2': 0.375}"
    assert "'mean_share'" in out[1]
    _suites(copy, env, ["tests/beyond/test_beyond_battery.py",
                        "tests/catalogue/test_catalogue_beyond.py",
                        "tests/beyond/test_beyond.py", "tests/utils/test_params.py",
                        "tests/structure/test_numpydoc.py", "tests/structure/test_layers.py",
                        "tests/structure/test_typing.py", "tests/sklearn/test_scorer.py",
                        "sk_rankmetrics/_beyond/functions.py"])


@pytest.mark.slow
def test_adding_a_metric_as_the_guide_says(tmp_path):
    copy, env = _copy_with(tmp_path, "Adding a metric")
    out = _python(copy, env, "print(s.__file__); "
                  "print(s.capped_recall_score([[1, 0, 1, 1]], [[4, 3, 2, 1]], k=2))")
    assert out == [str(copy / "sk_rankmetrics" / "__init__.py"), "0.5"]
    # The suites generated from the registry and the parameter table, whole
    # (their module-wide checks are what catch a list left out), and the
    # registry-wide parametrisations of the slowest ones for the new metric.
    whole = ["metrics/test_invariance.py", "utils/test_params.py", "structure/test_numpydoc.py",
             "structure/test_layers.py", "sklearn/test_scorer.py",
             "docs/test_metric_reference.py", "plot/test_plot.py",
             "structure/test_developers.py"]
    for_the_metric = ["metrics/test_brute_force.py", "metrics/test_options.py",
                      "metrics/test_hostile.py", "metrics/test_properties.py",
                      "inputs/test_long_format.py", "files/test_evaluate_ranked.py"]
    _suites(copy, env, [f"tests/{s}" for s in whole])
    _suites(copy, env, [f"tests/{s}" for s in for_the_metric], "-k", "capped_recall")
    assert "capped_recall" in (copy / "sk_rankmetrics" / "_metrics" / "registry.py").read_text()


@pytest.mark.slow
def test_adding_an_entry_point_as_the_guide_says(tmp_path):
    copy, env = _copy_with(tmp_path, "Adding an entry point")
    out = _python(copy, env, "print(s.evaluate_judged_top([['a', 'b']], [[0, 1]], ['mrr']).mean)")
    assert out == ["{'mrr': 0.5}"]
    _suites(copy, env, ["tests/files/test_evaluate_ranked.py", "tests/utils/test_params.py",
                        "tests/structure/test_numpydoc.py", "tests/structure/test_layers.py",
                        "tests/structure/test_typing.py", "tests/metrics/test_registry_families.py",
                        "sk_rankmetrics/_files/lists.py"])
