"""The exact expectations over heavy ties taken in batches, so that their
memory stays bounded whatever the groups' sizes: interpolated precision
(iprec_at_recall, 11pt_avg) in batches of whole rows
(``interpolated._IPREC_ROWS_POINTS``) and of window counts
(``_IPREC_BATCH``), G's compositions in batches made as they are read
(``gain_g._G_PAIRS_AT_ONCE``) and its terms in batches of whole groups
(``_G_BATCH``). Small batches give the values of one batch (to rounding:
a batch pads its window counts to its widest, and NumPy's sums of rows of
another width group their terms otherwise), and do run in several
batches."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from spies import count_calls

import sk_rankmetrics as skr
from sk_rankmetrics._metrics.kernels import gain_g, interpolated

SETTINGS = settings(max_examples=40, deadline=None,
                    suppress_health_check=[HealthCheck.function_scoped_fixture])


def _inputs(seed, n, N, top, dense):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 5, (n, N))
    if not dense:
        y[rng.random((n, N)) < 0.8] = 0
    s = rng.integers(0, top + 1, (n, N)).astype(np.float64)  # ties everywhere
    return y, s


IPREC = [("iprec_at_recall@0.3", {}), ("11pt_avg", {}),
         ("iprec_at_recall@0.6", {"recall_rounding": "plus_0.9"})]


@SETTINGS
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(1, 60), N=st.integers(2, 30),
       top=st.integers(0, 5), dense=st.booleans(), points=st.sampled_from([1, 60, 300]),
       cells=st.sampled_from([1, 64]))
def test_interpolated_precision_in_batches_of_rows_is_the_same(seed, n, N, top, dense, points,
                                                              cells, monkeypatch):
    y, s = _inputs(seed, n, N, top, dense)
    whole = skr.evaluate(y, s, IPREC, per_row=True, no_relevant=0.0)
    monkeypatch.setattr(interpolated, "_IPREC_ROWS_POINTS", points)
    monkeypatch.setattr(interpolated, "_IPREC_BATCH", cells)
    got = skr.evaluate(y, s, IPREC, per_row=True, no_relevant=0.0)
    for label in whole:
        np.testing.assert_allclose(got[label], whole[label], rtol=1e-13, atol=1e-15)


def test_interpolated_precision_runs_in_several_batches(monkeypatch):
    y, s = _inputs(7, 50, 20, 3, True)
    whole = skr.evaluate(y, s, ["11pt_avg"], per_row=True)["11pt_avg"]
    monkeypatch.setattr(interpolated, "_IPREC_ROWS_POINTS", 100)
    calls = count_calls(monkeypatch, interpolated, "_interpolated_ties_rows")
    got = skr.evaluate(y, s, ["11pt_avg"], per_row=True)["11pt_avg"]
    assert len(calls) >= 10
    np.testing.assert_allclose(got, whole, rtol=1e-13, atol=1e-15)


GAINS = ["linear", "exponential", {0: 0.0, 1: 0.5, 2: 1.25, 3: 2.5, 4: 3.75}]


@SETTINGS
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(4, 80), N=st.integers(2, 16),
       top=st.integers(0, 4), dense=st.booleans(), gain=st.sampled_from(range(len(GAINS))),
       pairs=st.sampled_from([1, 30, 400]), terms=st.sampled_from([1, 50]))
def test_g_in_batches_of_compositions_is_the_same(seed, n, N, top, dense, gain, pairs, terms,
                                                  monkeypatch):
    y, s = _inputs(seed, n, N, top, dense)
    metric = [("g", {"gain": GAINS[gain]})]
    whole = skr.evaluate(y, s, metric, per_row=True, no_relevant=0.0)["g"]
    monkeypatch.setattr(gain_g, "_G_PAIRS_AT_ONCE", pairs)
    monkeypatch.setattr(gain_g, "_G_BATCH", terms)
    got = skr.evaluate(y, s, metric, per_row=True, no_relevant=0.0)["g"]
    np.testing.assert_array_equal(got, whole)


@pytest.mark.parametrize("gain", range(len(GAINS)))
def test_g_makes_its_compositions_in_several_batches(gain, monkeypatch):
    y, s = _inputs(3, 400, 12, 2, True)
    metric = [("g", {"gain": GAINS[gain]})]
    whole = skr.evaluate(y, s, metric, per_row=True)["g"]
    monkeypatch.setattr(gain_g, "_G_PAIRS_AT_ONCE", 200)
    calls = count_calls(monkeypatch, gain_g, "_composition_pairs")
    got = skr.evaluate(y, s, metric, per_row=True)["g"]
    assert len(calls) >= 5
    np.testing.assert_array_equal(got, whole)


@settings(max_examples=200, deadline=None)
@given(loads=st.lists(st.integers(0, 50), max_size=40), budget=st.integers(1, 60))
def test_load_batches_cover_the_items_in_order_within_the_budget(loads, budget):
    """Consecutive batches covering every item once, each within the budget
    unless it holds one item, and none that could take the next item."""
    from sk_rankmetrics._metrics.kernels import load_batches

    w = np.array(loads, dtype=np.int64)
    got = list(load_batches(np.cumsum(w), budget))
    assert [a for a, _ in got] == ([0] if got else []) + [b for _, b in got[:-1]]
    assert (got[-1][1] if got else 0) == w.shape[0]
    for a, b in got:
        assert b > a
        assert b - a == 1 or w[a:b].sum() <= budget
        assert b == w.shape[0] or w[a:b + 1].sum() > budget
