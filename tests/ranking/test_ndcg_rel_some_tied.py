"""ndcg_rel of a chunk ranked through its relevant items where some rows hold
a tie (``gain_curves._ndcg_rel_some_tied``): the untied rows as a list of
their items, the tied ones by their groups, each row's value the one it has
alone (bit for bit) and the mean over every ordering of its ties."""

from __future__ import annotations

import numpy as np
import pytest
import reference as ref
from hypothesis import given, settings
from hypothesis import strategies as st
from spies import count_calls

from sk_rankmetrics import evaluate
from sk_rankmetrics._metrics.kernels import gain_curves


def _sparse_with_ties(seed, n, L, n_tied, dtype):
    """Rows of ``L`` float scores, a few relevant items each (graded), and
    ``n_tied`` of them holding a tie: a relevant item's score given to
    another item (relevant or not), or to two others."""
    rng = np.random.default_rng(seed)
    y = np.zeros((n, L), dtype=np.int64)
    for i in range(n):
        y[i, rng.choice(L, 4, replace=False)] = rng.integers(1, 4, 4)
    s = rng.random((n, L)).astype(dtype)
    tied = np.sort(rng.choice(n, n_tied, replace=False))
    for i in tied:
        rel = np.flatnonzero(y[i])
        src = rng.choice(rel)
        for dst in rng.choice(np.setdiff1d(np.arange(L), [src]), rng.integers(1, 3),
                              replace=False):
            s[i, dst] = s[i, src]
    return y, s, tied


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("gain", ["linear", "exponential"])
@pytest.mark.parametrize("n_tied", [1, 6, 30, 40])
def test_each_row_as_alone_and_over_its_orderings(dtype, gain, n_tied, monkeypatch):
    some = count_calls(monkeypatch, gain_curves, "_ndcg_rel_some_tied")
    listed = count_calls(monkeypatch, gain_curves, "_ndcg_rel_listed")
    by_group = count_calls(monkeypatch, gain_curves, "_ndcg_rel_by_group")
    y, s, tied = _sparse_with_ties(n_tied, 40, 300, n_tied, dtype)
    metric = [("ndcg_rel", {"gain": gain})]
    got = evaluate(y, s, metric, per_row=True)["ndcg_rel"]
    assert some
    # The untied rows as a list, the tied ones by their groups (every row
    # tied: no list).
    assert bool(listed) == (n_tied < 40) and by_group
    alone = [evaluate(y[i:i + 1], s[i:i + 1], metric)["ndcg_rel"] for i in range(40)]
    np.testing.assert_array_equal(got, alone)
    for i in range(40):
        yi = [int(v) for v in y[i]]
        vals = [ref.ndcg_rel(yi, o, gain=gain) for o in ref.orderings(list(s[i].astype(float)))]
        assert len(vals) > 1 or i not in tied
        np.testing.assert_allclose(got[i], sum(vals) / len(vals), rtol=1e-12, atol=1e-14)


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n_tied=st.integers(0, 12))
def test_any_share_of_tied_rows(seed, n_tied):
    """Any number of tied rows, and rows without a relevant item among them:
    each row's value the one it has alone."""
    y, s, _ = _sparse_with_ties(seed, 12, 200, n_tied, np.float32)
    y[::5] = 0
    got = evaluate(y, s, ["ndcg_rel"], per_row=True, no_relevant=0.0)["ndcg_rel"]
    alone = [evaluate(y[i:i + 1], s[i:i + 1], ["ndcg_rel"], no_relevant=0.0)["ndcg_rel"]
             for i in range(12)]
    np.testing.assert_array_equal(got, alone)


def test_rows_without_a_relevant_item_and_ties_among_the_others(monkeypatch):
    """Integer scores tie every row holding a relevant item: the rows
    without one send no list (the block goes by its groups whole); float
    scores tied between items of relevance 0 only (no relevant item's
    group) are the list alone. Each row as alone, either way."""
    some = count_calls(monkeypatch, gain_curves, "_ndcg_rel_some_tied")
    listed = count_calls(monkeypatch, gain_curves, "_ndcg_rel_listed")
    by_group = count_calls(monkeypatch, gain_curves, "_ndcg_rel_by_group")
    rng = np.random.default_rng(3)
    y = np.zeros((30, 300), dtype=np.int64)
    for i in range(30):
        y[i, rng.choice(300, 5, replace=False)] = rng.integers(1, 4, 5)
    y[::7] = 0
    for s, want_list, want_groups in (
        (rng.integers(0, 10, (30, 300)), False, True),
        (rng.random((30, 300)), True, False),
    ):
        if want_list:  # two items of relevance 0 tied in every row
            for i in range(30):
                a, b = np.flatnonzero(y[i] == 0)[:2]
                s[i, a] = s[i, b]
        some.clear(), listed.clear(), by_group.clear()
        got = evaluate(y, s, ["ndcg_rel"], per_row=True, no_relevant=0.0)["ndcg_rel"]
        assert bool(listed) == want_list and bool(by_group) == want_groups
        assert bool(some) == want_groups
        alone = [evaluate(y[i:i + 1], s[i:i + 1], ["ndcg_rel"], no_relevant=0.0)["ndcg_rel"]
                 for i in range(30)]
        np.testing.assert_array_equal(got, alone)
