"""numpydoc validation of every public name in ``sk_rankmetrics.__all__``.

Each public function, class and public method must pass numpydoc's checks
(except the codes in ``IGNORED``) and, beyond numpydoc, carry a formula
(``.. math::``), a Notes section and a doctested example.
"""

import inspect
import re

import pytest
from conftest import ROOT

import sk_rankmetrics

numpydoc_validate = pytest.importorskip("numpydoc.validate")

#: Slow (numpydoc validation of every public docstring): left out by pytest -m 'not slow'.
pytestmark = pytest.mark.slow

#: numpydoc codes not enforced, with the reason.
IGNORED = {
    "ES01": "an extended summary is optional; the formula and Notes carry the detail",
    "SA01": "a See Also section is optional",
    "RT02": "return values are named (``score : float``), as in scikit-learn",
    "SS05": "false positives on noun-phrase summaries ('Names accepted by ...')",
}

#: Public functions and classes exempt from the formula / Notes rule, with the reason.
NO_FORMULA = {
    "metric_names": "a list of names, not a metric",
    "get_scorer_names": "a list of names, not a metric",
    "InvalidParameterError": "an exception, not a metric",
}


def _public_objects():
    for name in sk_rankmetrics.__all__:
        if name.startswith("__"):
            continue
        obj = getattr(sk_rankmetrics, name)
        yield name, f"sk_rankmetrics.{name}"
        if inspect.isclass(obj):
            for attr, member in vars(obj).items():
                if attr.startswith("_"):
                    continue
                if isinstance(member, (classmethod, staticmethod)) or inspect.isfunction(member):
                    yield name, f"sk_rankmetrics.{name}.{attr}"


PUBLIC = list(_public_objects())


@pytest.mark.parametrize(("name", "qualname"), PUBLIC, ids=[q for _, q in PUBLIC])
def test_numpydoc_validation(name, qualname):
    result = numpydoc_validate.validate(qualname)
    errors = [
        f"{code}: {message}"
        for code, message in result["errors"]
        if code not in IGNORED
    ]
    assert not errors, f"{qualname}:\n" + "\n".join(errors)


@pytest.mark.parametrize(("name", "qualname"), PUBLIC, ids=[q for _, q in PUBLIC])
def test_formula_notes_and_example(name, qualname):
    obj = sk_rankmetrics
    for part in qualname.split(".")[1:]:
        obj = getattr(obj, part)
    doc = inspect.getdoc(obj) or ""
    assert ">>> " in doc, f"{qualname} has no doctested example"
    if name in NO_FORMULA or qualname.count(".") > 1:
        return  # methods need an example; the formula and edge cases live on the class
    assert ".. math::" in doc or ":math:`" in doc, f"{qualname} has no formula"
    assert "\nNotes\n-----\n" in doc, f"{qualname} has no Notes section"


def test_every_public_name_is_checked():
    checked = {name for name, _ in PUBLIC}
    assert checked == {n for n in sk_rankmetrics.__all__ if not n.startswith("__")}
    assert "sk_rankmetrics.MetricAtKDisplay.plot" in {q for _, q in PUBLIC}


DOCS = ROOT / "docs"
# The code of the docs pages is run by tests/docs/test_snippets.py.


def test_api_page_lists_every_public_name():
    text = (DOCS / "api.rst").read_text(encoding="utf-8")
    listed = set(re.findall(r"^   (\w+)$", text, flags=re.MULTILINE))
    missing = {n for n in sk_rankmetrics.__all__ if not n.startswith("__")} - listed
    assert not missing, f"docs/api.rst does not list {sorted(missing)}"


# --- formulas: only mathematics -------------------------------------------------------

#: LaTeX math commands the docstrings may use (a typo or a stray text block fails).
MATH_COMMANDS = {
    "frac", "sum", "prod", "mathrm", "mathbf", "mathcal", "operatorname", "text", "left",
    "right", "big", "Big", "bigl", "bigr", "qquad", "quad", "cdot", "dots", "ldots", "cdots",
    "hat", "bar", "tilde", "mapsto", "le", "ge", "leq", "geq", "lt", "gt", "ne", "neq", "in",
    "notin", "log", "ln", "exp", "min", "max", "begin", "end", "infty", "sqrt", "binom",
    "lfloor", "rfloor", "lceil", "rceil", "mid", "lvert", "rvert", "approx", "times", "pm",
    "alpha", "beta", "gamma", "delta", "epsilon", "theta", "kappa", "lambda", "mu", "pi", "rho",
    "sigma",
    "tau", "phi", "omega", "Delta", "Sigma", "subset", "cup", "cap", "wedge", "vee", "setminus",
    "to", "sim", "equiv", "propto", "tfrac", "dfrac", "displaystyle", "limits", "overline",
    "underbrace", "overbrace", "forall", "exists", "neg", "lbrace", "rbrace", "vert",
}
#: Groups whose content is text, not mathematics (removed before looking for prose).
TEXT_GROUP = re.compile(r"\\(?:mathrm|text|operatorname|mathbf|mathcal|begin|end)\{[^{}]*\}")
#: A numpydoc parameter line ("k : int, default=None") inside a formula.
PARAM_LINE = re.compile(r"\b\w+ : (?:int|float|str|bool|array-like|\{|dict|callable)")


def _formulas(rendered):
    """The ``.. math::`` blocks and ``:math:`` roles of a rendered docstring."""
    out = re.findall(r":math:`([^`]*)`", rendered)
    lines = rendered.splitlines()
    for i, line in enumerate(lines):
        if line.strip() == ".. math::":
            indent = len(line) - len(line.lstrip())
            body = []
            for nxt in lines[i + 1:]:
                if nxt.strip() and len(nxt) - len(nxt.lstrip()) <= indent:
                    break
                body.append(nxt.strip())
            out.append(" ".join(b for b in body if b))
    return out


def _math_problems(formula):
    problems = []
    depth = 0
    for ch in formula.replace("\\{", "").replace("\\}", ""):
        depth += ch == "{"
        depth -= ch == "}"
        if depth < 0:
            break
    if depth != 0:
        problems.append("unbalanced braces")
    for markup in ("``", ":func:", ":class:", "default=", "%("):
        if markup in formula:
            problems.append(f"docstring markup {markup!r}")
    if PARAM_LINE.search(formula):
        problems.append("a parameter description")
    for cmd in re.findall(r"\\([A-Za-z]+)", formula):
        if cmd not in MATH_COMMANDS:
            problems.append(f"unknown command \\{cmd}")
    bare = TEXT_GROUP.sub("", formula)
    bare = re.sub(r"\\[A-Za-z]+", " ", bare)
    words = re.findall(r"[A-Za-z]{5,}", bare)
    if words:
        problems.append(f"prose outside \\mathrm/\\text: {words[:5]}")
    return problems


@pytest.mark.parametrize(("name", "qualname"), PUBLIC, ids=[q for _, q in PUBLIC])
def test_formulas_hold_only_mathematics(name, qualname):
    """Render the docstring as numpydoc does for the site and check every formula.

    A template placeholder filled into a formula (the ``{k}`` of an old template
    meeting the ``{{k}}`` of LaTeX) would put a parameter description there."""
    from numpydoc.docscrape_sphinx import get_doc_object

    obj = sk_rankmetrics
    for part in qualname.split(".")[1:]:
        obj = getattr(obj, part)
    rendered = str(get_doc_object(obj, config={}))
    for formula in _formulas(rendered):
        problems = _math_problems(formula)
        assert not problems, f"{qualname}: {problems} in formula {formula!r}"


def test_the_formula_check_catches_a_filled_placeholder():
    broken = (r"\mathrm{DCG@k} = \sum_{p=1}^{k : int, default=None Cut-off: only the first "
              r"``k`` positions count.} \mathrm{gain}(r_p)")
    assert _math_problems(broken)
    assert not _math_problems(r"\mathrm{DCG@k} = \sum_{p=1}^{k} \mathrm{gain}(r_p)")
