"""Every code block of README.md and of docs/*.md runs as given.

For each page, in a fresh namespace and a fresh working directory, the
fenced code blocks run top to bottom in the order of the page, as a reader
would paste them:

- a ``python`` block with ``>>>`` prompts is a doctest: its printed outputs
  must match (ELLIPSIS and NORMALIZE_WHITESPACE);
- any other ``python`` block is executed as a script;
- in a ``bash`` block, each ``sk-rankmetrics ...`` or ``python -m
  sk_rankmetrics ...`` command is run and must exit with 0 (installation,
  test, documentation and benchmark commands are left out);
- ``text`` blocks and MyST directives (```` ```{include} ````) are not code.

A page passes when every block runs, no output differs and no warning
escapes (an example that shows a warning catches it). A page whose code needs
an optional library that is not installed is skipped.
"""

from __future__ import annotations

import doctest
import os
import re
import shlex
import subprocess
import sys
import traceback
import warnings

import pytest
from conftest import ROOT, code_blocks

#: Slow (every code block of the README and the docs runs): left out by pytest -m 'not slow'.
pytestmark = pytest.mark.slow

PAGES = [p for p in [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))] if p.exists()]
OPTIONAL = {"matplotlib", "pandas", "polars", "pyarrow", "xgboost", "lightgbm", "selenium",
            "dask", "distributed"}

_PYTHON = {"python", "py", "python3", "pycon"}
_SHELL = {"bash", "sh", "shell", "console"}
_COMMAND = re.compile(r"^(sk-rankmetrics|python3? -m sk_rankmetrics)\b")


def shell_commands(code):
    """The package's own commands of a shell block, continuation lines joined."""
    joined = re.sub(r"\s*\\\n\s*", " ", code)
    out = []
    for line in joined.splitlines():
        line = line.strip()
        if line.startswith("$ "):
            line = line[2:]
        if not line or line.startswith("#"):
            continue
        for part in line.split("&&"):
            part = part.strip()
            if _COMMAND.match(part):
                out.append(part)
    return out


def _run_python(code, namespace, where):
    if re.search(r"^\s*>>>", code, flags=re.MULTILINE):
        test = doctest.DocTestParser().get_doctest(code, namespace, where, where, 0)
        report = []
        runner = doctest.DocTestRunner(
            optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE, verbose=False)
        runner.run(test, out=report.append, clear_globs=False)
        namespace.update(test.globs)
        if runner.failures:
            raise AssertionError("".join(report))
        return
    try:
        exec(compile(code, where, "exec"), namespace)
    except ModuleNotFoundError as exc:
        if exc.name and exc.name.split(".")[0] in OPTIONAL:
            pytest.skip(f"{where} needs {exc.name}, which is not installed")
        raise AssertionError(f"{where} failed:\n{traceback.format_exc()}") from None
    except Exception:
        raise AssertionError(f"{where} failed:\n{traceback.format_exc()}") from None


def _run_shell(code, where, cwd):
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(
        filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])))
    python = shlex.quote(sys.executable)
    for command in shell_commands(code):
        line = re.sub(r"^(sk-rankmetrics|python3? -m sk_rankmetrics)",
                      f"{python} -m sk_rankmetrics", command)
        out = subprocess.run(["bash", "-c", line], cwd=cwd, env=env, capture_output=True,
                             text=True, check=False, timeout=300)
        assert out.returncode == 0, (
            f"{where}: `{command}` exited with {out.returncode}:\n{out.stdout[-2000:]}"
            f"{out.stderr[-2000:]}")


def run_page(page, cwd, sections=None, skip_sections=()):
    """Run the blocks of ``page`` (of ``sections`` only, if given, and not of
    ``skip_sections``); return the warnings that escaped."""
    namespace = {"__name__": "__main__"}
    relative = page.relative_to(ROOT).as_posix()
    import sklearn

    # A page may switch scikit-learn's metadata routing on for good, as a
    # reader's script would; the context restores the configuration after it.
    with sklearn.config_context(), warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for lineno, language, code, section in code_blocks(
                page.read_text(encoding="utf-8"), with_sections=True):
            if (sections is not None and section not in sections) or section in skip_sections:
                continue
            where = f"{relative}, the block at line {lineno}"
            if language in _PYTHON:
                _run_python(code, namespace, where)
            elif language in _SHELL:
                _run_shell(code, where, cwd)
    return caught


@pytest.fixture(autouse=True)
def _agg_backend():
    try:
        import matplotlib
    except ImportError:
        yield
        return
    backend = matplotlib.get_backend()
    matplotlib.use("Agg")
    yield
    import matplotlib.pyplot as plt

    plt.close("all")
    matplotlib.use(backend)


#: Sections (None: the whole page) whose code is known not to run as given
#: yet, with the reason. They run in a test of their own that is expected to
#: fail (strictly: once they run, the test fails until the entry is deleted).
KNOWN_FAILING = {}

#: Sections whose blocks are fragments of other files, not code to run on the
#: page; the test named beside each applies them where they say.
FRAGMENTS = {
    ("docs/developers.md", "Adding a metric"): "tests/structure/test_developers.py",
    ("docs/developers.md", "Adding a beyond-accuracy measure"):
        "tests/structure/test_developers.py",
    ("docs/developers.md", "Adding an entry point"): "tests/structure/test_developers.py",
}


def _units():
    """``(id, page, sections, skip_sections, known failure)`` to test."""
    out = []
    for page in PAGES:
        name = page.relative_to(ROOT).as_posix()
        known = {sec: why for (p, sec), why in KNOWN_FAILING.items() if p == name}
        if None in known:
            out.append((name, page, None, (), known[None]))
            continue
        fragments = tuple(sec for (p, sec) in FRAGMENTS if p == name)
        out.append((name, page, None, (*known, *fragments), None))
        out += [(f"{name}: {sec}", page, (sec,), (), why) for sec, why in known.items()]
    return [pytest.param(page, sections, skip, id=ident,
                         marks=[pytest.mark.xfail(reason=why, strict=True)] if why else [])
            for ident, page, sections, skip, why in out]


@pytest.mark.parametrize(("page", "sections", "skip_sections"), _units())
def test_every_code_block_runs_as_given(page, sections, skip_sections, tmp_path,
                                        monkeypatch):
    monkeypatch.chdir(tmp_path)  # files a page writes stay out of the repository
    caught = run_page(page, tmp_path, sections, skip_sections)
    escaped = [f"{w.category.__name__}: {w.message} ({w.filename}:{w.lineno})"
               for w in caught]
    assert not escaped, "warnings escaped from the examples:\n" + "\n".join(escaped)


def test_the_known_failures_name_existing_sections():
    for (page, section), _ in KNOWN_FAILING.items():
        path = ROOT / page
        if not path.exists():
            continue
        found = {sec for *_, sec in code_blocks(path.read_text(encoding="utf-8"),
                                                  with_sections=True)}
        assert section is None or section in found, (page, section)


def test_the_readme_and_the_guide_have_code():
    """The parser finds the blocks (a test that ran nothing would pass)."""
    readme = list(code_blocks((ROOT / "README.md").read_text(encoding="utf-8")))
    assert sum(lang == "python" for _, lang, _ in readme) >= 3
    assert any(shell_commands(code) for _, lang, code in readme if lang == "bash")


def test_the_parser_finds_nested_blocks_and_commands():
    text = (
        "- a list item:\n\n  ```python\n  x = 1\n  ```\n\n"
        "````bash\n# comment\npython -m pip install . && python -m sk_rankmetrics demo\n"
        "sk-rankmetrics evaluate a.txt b.txt \\\n  -m ndcg@10\n````\n"
        "```{include} other.md\n```\n"
    )
    blocks = list(code_blocks(text))
    assert [(lang, code) for _, lang, code in blocks[:1]] == [("python", "x = 1\n")]
    sections = [sec for *_, sec in code_blocks("# Page\n```bash\n```\n## Part two\n"
                                               "### deeper\n```python\n```\n",
                                               with_sections=True)]
    assert sections == [None, "Part two"]
    assert shell_commands(blocks[1][2]) == ["python -m sk_rankmetrics demo",
                                            "sk-rankmetrics evaluate a.txt b.txt -m ndcg@10"]
    assert blocks[2][1] == "{include}"


def test_one_command_builds_the_site():
    """README.md and docs/getting_started.md give one docs-build command, the
    one .ci/run runs (warnings as errors), without .ci/run's quiet flags."""
    build = re.compile(r"python -m pip install[^\n`]*\.\[docs\][^\n`]*&& python -m sphinx[^\n`]*")
    readme = build.findall((ROOT / "README.md").read_text(encoding="utf-8"))
    guide = build.findall((ROOT / "docs" / "getting_started.md").read_text(encoding="utf-8"))
    ci = build.findall((ROOT / ".ci" / "run").read_text(encoding="utf-8"))
    assert len(readme) == len(guide) == len(ci) == 1
    quiet = re.sub(r" (--quiet|-q)(?= )", "", ci[0])
    assert readme[0].strip() == guide[0].strip() == quiet.strip()
    assert "-W --keep-going" in readme[0]


def _extras_of_pyproject():
    tomllib = pytest.importorskip("tomllib")  # Python 3.11+
    data = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    out = {}
    for extra, requirements in data["project"]["optional-dependencies"].items():
        names = set()
        for req in requirements:
            if "darwin'" in req and "==" in req.split(";", 1)[-1]:
                continue  # the macOS variant of a package listed for other systems
            names.add(re.split(r"[<>=!~;\[ ]", req, maxsplit=1)[0].strip().lower())
        out[extra] = names
    return out


def test_the_extras_table_is_pyprojects():
    """docs/getting_started.md lists every extra with exactly its packages."""
    text = (ROOT / "docs" / "getting_started.md").read_text(encoding="utf-8")
    table = {}
    for line in text.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) == 3 and re.fullmatch(r"`\w+`", cells[0]):
            listed = re.sub(r"\([^)]*\)", "", cells[2])
            table[cells[0].strip("`")] = {n.strip().lower() for n in listed.split(",")}
    assert table == _extras_of_pyproject()


def test_gallery_code_fits_the_page():
    """Gallery code is shown in a column of about 80 characters: no line is cut."""
    for path in sorted((ROOT / "docs" / "examples").glob("*.py")):
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            assert len(line) <= 79, f"{path.name}:{number} has {len(line)} characters"
