"""Rndcg over rows ranked through their relevant items without ties
(``gain_curves._dcg_at_items``): the DCG at each level's end read off a
running sum along a matrix of the first positions, against the search among
each row's items (``_dcg_at_by_group``), bit for bit, and against the
reference formula."""

from __future__ import annotations

import numpy as np
import pytest
import reference as ref
from spies import count_calls

from sk_rankmetrics import evaluate
from sk_rankmetrics._metrics.kernels import gain_curves


@pytest.mark.parametrize("relevance", ["real", "graded", "binary"])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("gain", ["linear", "exponential"])
def test_items_route_equals_the_search(relevance, dtype, gain, monkeypatch):
    rng = np.random.default_rng(11)
    n, L = 60, 200
    y = np.zeros((n, L))
    for i in range(n):
        at = rng.choice(L, rng.integers(0, 9), replace=False)
        if relevance == "real":
            y[i, at] = np.round(rng.random(at.shape[0]) * 3.0, 3) + 0.001
        elif relevance == "graded":
            y[i, at] = rng.integers(1, 4, at.shape[0])
        else:
            y[i, at] = 1.0
    s = rng.random((n, L)).astype(dtype)
    metric = [("rndcg", {"gain": gain})] if relevance != "real" else ["rndcg"]
    items = count_calls(monkeypatch, gain_curves, "_dcg_at_items")
    got = evaluate(y, s, metric, per_row=True, no_relevant=0.0)["rndcg"]
    assert items
    monkeypatch.setattr(gain_curves, "_ITEMS_CELLS", -(10**9))  # the search
    items.clear()
    searched = evaluate(y, s, metric, per_row=True, no_relevant=0.0)["rndcg"]
    assert not items
    np.testing.assert_array_equal(got, searched)
    g = "linear" if relevance == "real" else gain
    for i in range(0, n, 7):
        want = ref.rndcg(list(y[i]), list(np.argsort(-s[i].astype(np.float64), kind="stable")),
                         gain=g)
        np.testing.assert_allclose(got[i], 0.0 if want is None else want, rtol=1e-12,
                                   atol=1e-15)


def test_queries_past_the_ranking_and_rows_without_items(monkeypatch):
    """Rows whose ranking ends before the ideal's last level (``max_docs``
    is not taken here; rows without relevant items, and a row of one)."""
    rng = np.random.default_rng(2)
    y = np.zeros((20, 150))
    y[::3, :5] = rng.integers(1, 4, (7, 5))
    y[1, 149] = 2.0  # the last position
    s = rng.random((20, 150))
    items = count_calls(monkeypatch, gain_curves, "_dcg_at_items")
    got = evaluate(y, s, ["rndcg"], per_row=True, no_relevant=0.0)["rndcg"]
    assert items
    monkeypatch.setattr(gain_curves, "_ITEMS_CELLS", -(10**9))
    np.testing.assert_array_equal(
        got, evaluate(y, s, ["rndcg"], per_row=True, no_relevant=0.0)["rndcg"])
