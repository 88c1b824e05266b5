"""Shared helpers of the test suite: calling a registered metric by name,
random test matrices, option grids for the brute-force reference, a fixture
that makes the engine chunk and thread on small inputs, where the repository
and its test data are (``ROOT``, ``DATA``: a test module in any folder finds
them here, not relative to its own file), the command line as a subprocess
(``run_cli``) and the code blocks of a page (``code_blocks``)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import sk_rankmetrics
from sk_rankmetrics._evaluation import engine as _engine
from sk_rankmetrics._inputs import budget as _inputs
from sk_rankmetrics._metrics.registry import METRICS
from sk_rankmetrics._utils.params import PARAMS

#: Registered metric names, in registry order (drives the parametrised suites).
METRIC_NAMES = list(METRICS)
NORMALIZED = [n for n, s in METRICS.items() if s.normalized]
#: Normalised metrics whose rows without a relevant item follow ``no_relevant``.
UNDEFINABLE = [n for n, s in METRICS.items() if s.normalized and not s.always_defined]
TAKES_K = [n for n, s in METRICS.items() if s.takes_k]
#: Metrics with their own public function (the others are reached by name).
WITH_FUNCTION = [n for n, s in METRICS.items() if s.function]
#: Arguments of the engine, as opposed to a metric's own options.
ENGINE_ARGS = ("sample_weight", "ignore_ties", "no_relevant", "qid", "per_row", "judged")


def public(name):
    """The public function of a registered metric (None if it has none)."""
    function = METRICS[name].function
    return getattr(sk_rankmetrics, function) if function else None


def default_options(name):
    """Options a metric cannot do without: the value its name's ``@`` gives."""
    spec = METRICS[name]
    return {spec.at_option: PARAMS[spec.at_option].examples[0]} if spec.at_option else {}


def score(name, y_true, y_score, *, k=None, **kwargs):
    """Call metric ``name`` through its public function, or through
    :func:`sk_rankmetrics.evaluate` when it has none.

    ``k`` is passed only to metrics that take one, and ``no_relevant`` only
    to the normalised metrics (DCG and CG have no such argument).
    """
    spec = METRICS[name]
    if k is not None and not spec.takes_k:
        raise AssertionError(f"{name} takes no k")
    fn = public(name)
    if fn is None or ("judged" in kwargs and "judged" not in _signature(fn)):
        engine = {a: kwargs.pop(a) for a in ENGINE_ARGS if a in kwargs}
        options = {**default_options(name), **kwargs}
        label = name if k is None else f"{name}@{k}"
        out = sk_rankmetrics.evaluate(y_true, y_score, [(label, options)], **engine)
        return out[label]
    if spec.takes_k:
        kwargs["k"] = k
    if not spec.normalized:
        kwargs.pop("no_relevant", None)
    return fn(y_true, y_score, **{**default_options(name), **kwargs})


def _signature(fn):
    import inspect

    return inspect.signature(fn).parameters


def untied(scores, relevance=None):
    """Tie-free scores: each item's rank by (score, relevance, column).

    Unchanged by a strictly increasing transform of the scores; with
    ``relevance`` given, also by a column permutation of both (items tied on
    score and relevance are interchangeable for every metric).
    """
    s = np.asarray(scores, dtype=np.float64)
    y = np.zeros_like(s) if relevance is None else np.asarray(relevance, dtype=np.float64)
    col = np.broadcast_to(np.arange(s.shape[-1])[::-1], s.shape)
    keys = (col, y, s) if relevance is None else (y, s)
    order = np.lexsort(keys, axis=-1)
    ranks = np.empty_like(order)
    np.put_along_axis(ranks, order, np.broadcast_to(np.arange(s.shape[-1]), s.shape), axis=-1)
    return ranks.astype(np.float64)


def scores_for(name, scores, relevance=None):
    """Tie-free scores for a metric that refuses ties, the scores otherwise."""
    return untied(scores, relevance) if METRICS[name].ties == "refuse" else scores


def reference_kwargs(kwargs):
    """The reference's spelling of the options: plain lists for arrays."""
    return {
        key: (val.tolist() if isinstance(val, np.ndarray) else val)
        for key, val in kwargs.items()
    }


def option_grid(name, n_items):
    """Option sets of metric ``name``, generated from the parameter table.

    Every valid example the table lists for each option the metric reads,
    alone and paired with every example of each other option; plus the
    values an example cannot state without the row width (a discount array
    of one value per position).
    """
    spec = METRICS[name]
    singles = [{o: v} for o in spec.options for v in PARAMS[o].examples]
    pairs = [
        {o1: v1, o2: v2}
        for i, o1 in enumerate(spec.options) for o2 in spec.options[i + 1:]
        for v1 in PARAMS[o1].examples[:2] for v2 in PARAMS[o2].examples[:2]
    ]
    grid = [{}, *singles, *pairs]
    if "discount" in spec.options:
        grid.append({"discount": np.linspace(1.0, 0.05, max(n_items, 1)) ** 2})
        grid.append({"discount": _harmonic})
    base = default_options(name)
    return [{**base, **opts} for opts in grid]


def _harmonic(p):
    """A callable discount: 1 / p."""
    return 1.0 / np.asarray(p, dtype=float)


def k_values(n_items):
    """Cut-offs 1, 2, 3, one larger than the row, and None."""
    return [None, 1, 2, 3, n_items + 2]


def random_relevance(rng, n_rows, n_items, levels=4, p_zero=0.5):
    """Graded relevance 0..levels-1, many zeros (some rows all zero)."""
    y = rng.integers(0, levels, size=(n_rows, n_items))
    y[rng.random((n_rows, n_items)) < p_zero] = 0
    return y


def tied_scores(rng, n_rows, n_items, n_levels=3):
    """Integer scores from a tiny range: ties everywhere."""
    return rng.integers(0, n_levels, size=(n_rows, n_items))


@pytest.fixture
def small_chunks(monkeypatch):
    """Make the engine cut its input into many chunks and use the thread pool."""
    monkeypatch.setattr(_inputs, "CHUNK_ELEMENTS", 400)
    monkeypatch.setattr(_inputs, "DENSE_FACTOR", 1)
    monkeypatch.setattr(_engine, "PARALLEL_MIN_ELEMENTS", 1)
    monkeypatch.setattr(_engine, "N_THREADS", 3)


@pytest.fixture(autouse=True)
def _close_figures():
    """Every figure a test draws is closed after it, so that no test (nor a
    doctest that runs later in the same process) meets matplotlib's
    "More than 20 figures" warning raised as an error."""
    yield
    plt = __import__("sys").modules.get("matplotlib.pyplot")
    if plt is not None:
        plt.close("all")


# -- the repository, the command line, the pages -----------------------------------

#: The repository (the folder that holds tests/).
ROOT = Path(__file__).resolve().parents[1]
#: Reference files of trec_eval, ranx and ir_measures (tests/data/README.md).
DATA = ROOT / "tests" / "data"


def run_cli(*args, cwd=None):
    env = dict(os.environ)
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    return subprocess.run([sys.executable, "-m", "sk_rankmetrics", *map(str, args)],
                          capture_output=True, text=True, env=env, cwd=cwd, timeout=300)


_FENCE = re.compile(r"^(?P<indent>[ \t]*)(?P<fence>`{3,}|~{3,})\s*(?P<info>[^`]*)$")


def code_blocks(text, with_sections=False):
    """``(line number, language, code)`` of each fenced block, nested ones included.

    With ``with_sections``, each tuple ends with the title of the ``##``
    section that holds the block (None before the first one).
    """
    lines = text.splitlines()
    i, section = 0, None
    while i < len(lines):
        match = _FENCE.match(lines[i])
        if not match:
            heading = re.match(r"^(#{1,2})\s+(.+?)\s*$", lines[i])
            if heading:
                section = heading[2] if len(heading[1]) == 2 else None
            i += 1
            continue
        indent, fence = match["indent"], match["fence"]
        info = match["info"].strip()
        body, j = [], i + 1
        while j < len(lines):
            stripped = lines[j].strip()
            if stripped and set(stripped) == {fence[0]} and len(stripped) >= len(fence):
                break
            line = lines[j]
            body.append(line[len(indent):] if line.startswith(indent) else line.lstrip())
            j += 1
        language = info.split()[0].lower() if info else ""
        block = (i + 1, language, "\n".join(body) + "\n")
        yield (*block, section) if with_sections else block
        i = j + 1


def sparse_random(shape, density, rng):
    """A CSR array holding uniform values in [0, 1) on ``density`` of its
    entries (``scipy.sparse.random_array`` needs SciPy 1.12; this runs on the
    oldest SciPy that pyproject.toml accepts)."""
    import scipy.sparse as sp

    return sp.csr_array(sp.random(*shape, density=density, format="csr", random_state=rng))
