"""trec_eval's G of whole rows ranked through their items of nonzero value
only (``ranking.relevant.rank_relevant``), whose tie groups hold the other
items too (``gain_g._g_relevant_ties``: one order's terms, put right at the
groups of two items or more). Against the per-position route (the same rows
ranked whole) and, on small rows, against the mean over every order of the
ties of ``tests/reference.py``'s single-order value."""

from __future__ import annotations

import itertools
from unittest import mock

import numpy as np
import reference as ref
from hypothesis import given, settings
from hypothesis import strategies as st
from spies import count_calls

import sk_rankmetrics as skr
from sk_rankmetrics._metrics.kernels import gain_g
from sk_rankmetrics._ranking import block

GAINS = ["linear", "exponential", {0: 0.0, 1: 2.0, 2: 3.5, 3: 9.0}]


def _per_position(y, s, metrics):
    with mock.patch.object(block, "takes_relevant_route", lambda *a, **k: False):
        return skr.evaluate(y, s, metrics, per_row=True, no_relevant=0.0)


@settings(max_examples=60, deadline=None)
@given(data=st.data(), gain=st.sampled_from(range(len(GAINS))))
def test_relevant_groups_equal_the_per_position_route(data, gain):
    rng = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1)))
    n, N = data.draw(st.integers(2, 40)), data.draw(st.integers(10, 80))
    y = rng.integers(1, 4, (n, N)).astype(data.draw(st.sampled_from(["int8", "float64"])))
    y[rng.random((n, N)) < data.draw(st.sampled_from([0.9, 0.97]))] = 0  # sparse
    y[0] = 0  # a row without a relevant item
    kind = data.draw(st.sampled_from(["int", "one decimal", "distinct", "all tied"]))
    s = {"int": lambda: rng.integers(0, 10, (n, N)).astype(np.float64),
         "one decimal": lambda: np.round(rng.random((n, N)), 1),
         "distinct": lambda: rng.random((n, N)),
         "all tied": lambda: np.ones((n, N))}[kind]()
    metrics = [("g", {"gain": GAINS[gain]})]
    got = skr.evaluate(y, s, metrics, per_row=True, no_relevant=0.0)
    want = _per_position(y, s, metrics)
    np.testing.assert_allclose(got["g"], want["g"], rtol=1e-12, atol=1e-13)


def test_sparse_relevance_over_tied_scores_reads_the_relevant_groups(monkeypatch):
    rng = np.random.default_rng(5)
    y = np.where(rng.random((300, 80)) < 0.03, rng.integers(1, 4, (300, 80)), 0)
    s = np.round(rng.random((300, 80)), 1)  # groups of about 8 items
    ties = count_calls(monkeypatch, gain_g, "_g_relevant_ties")
    got = skr.evaluate(y.astype(np.float64), s, ["g"], per_row=True, no_relevant=0.0)
    assert ties
    want = _per_position(y.astype(np.float64), s, ["g"])
    np.testing.assert_allclose(got["g"], want["g"], rtol=1e-12, atol=1e-13)


def _tie_orders(s_row):
    """Every order of a row's items that its scores allow (best first)."""
    groups = [np.flatnonzero(s_row == v).tolist() for v in np.unique(s_row)[::-1]]
    for parts in itertools.product(*(itertools.permutations(g) for g in groups)):
        yield [i for part in parts for i in part]


def test_small_rows_equal_the_mean_over_every_order_of_their_ties(monkeypatch):
    # One or two relevant items a row of 12 (through the relevant items
    # route), four distinct scores (groups of about 3).
    rng = np.random.default_rng(4)
    n, N = 40, 12
    y = np.zeros((n, N))
    y[np.arange(n), rng.integers(0, N, n)] = rng.integers(1, 4, n) + 0.5  # (not levels)
    y[np.arange(0, n, 8), rng.integers(0, N, n // 8)] = 2.5  # (few: one entry in ten at most)
    s = rng.integers(0, 4, (n, N)) * np.sqrt(2.0)  # (no decimal grid: sorted, not counted)
    ties = count_calls(monkeypatch, gain_g, "_g_relevant_ties")
    got = skr.evaluate(y, s, ["g"], per_row=True, no_relevant=0.0)["g"]
    assert ties
    want = []
    for r in range(n):
        values = [ref.METRICS["g"](list(y[r]), order) for order in _tie_orders(s[r])]
        want.append(float(np.mean([0.0 if v is None else v for v in values])))
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-14)
