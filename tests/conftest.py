"""Shared helpers of the test suite: calling a registered metric by name,
random test matrices, option grids for the brute-force reference, and a
fixture that makes the engine chunk and thread on small inputs."""

from __future__ import annotations

import numpy as np
import pytest

import sk_rankmetrics
from sk_rankmetrics import _engine, _inputs
from sk_rankmetrics._registry import METRICS

#: Registered metric names, in registry order (drives the parametrised suites).
METRIC_NAMES = list(METRICS)
NORMALIZED = [n for n, s in METRICS.items() if s.normalized]
TAKES_K = [n for n, s in METRICS.items() if s.takes_k]


def public(name):
    """The public function of a registered metric."""
    return getattr(sk_rankmetrics, METRICS[name].function)


def score(name, y_true, y_score, *, k=None, **kwargs):
    """Call metric ``name`` through its public function.

    ``k`` is passed only to metrics that take one, and ``no_relevant`` only
    to the normalised metrics (DCG and CG have no such argument).
    """
    spec = METRICS[name]
    if spec.takes_k:
        kwargs["k"] = k
    elif k is not None:
        raise AssertionError(f"{name} takes no k")
    if not spec.normalized:
        kwargs.pop("no_relevant", None)
    return public(name)(y_true, y_score, **kwargs)


def reference_kwargs(kwargs):
    """The reference's spelling of the options: plain lists for arrays."""
    return {
        key: (val.tolist() if isinstance(val, np.ndarray) else val)
        for key, val in kwargs.items()
    }


def option_grid(name, n_items):
    """Option sets of metric ``name`` that the brute-force reference knows.

    Gains (linear, exponential, a mapping), discounts (log with several bases,
    Järvelin–Kekäläinen, an array), thresholds, AP denominators and adaptive
    precision.
    """
    spec = METRICS[name]
    if spec.kind == "gain":
        grid = [{}, {"gain": "exponential"}, {"gain": {0: 0.0, 1: 1.0, 2: 5.0, 3: 6.5}}]
        if "discount" in spec.options:
            grid += [
                {"log_base": 3},
                {"log_base": 10, "gain": "exponential"},
                {"log_base": 1.5},
                {"discount": "jarvelin"},
                {"discount": "jarvelin", "log_base": 3},
                {"discount": np.linspace(1.0, 0.05, max(n_items, 1)) ** 2},
            ]
        return grid
    grid = [{}, {"threshold": 2}, {"threshold": 0.5}]
    if name == "map":
        grid += [{"denominator": "relevant"}, {"denominator": "relevant", "threshold": 2}]
    if name == "precision":
        grid += [{"adaptive_k": True}, {"adaptive_k": True, "threshold": 3}]
    return grid


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
    monkeypatch.setattr(_engine, "PARALLEL_MIN_ELEMENTS", 1)
    monkeypatch.setattr(_engine, "N_THREADS", 3)
