"""The ideal DCG read at a few places a row (``gain_curves._ideal_dcg_at``:
the levels before the place whole, and the part of the level holding it)
against the running sum of the ideal's top gains position by position, for
counted levels (empty levels included) and listed ones, at every depth from
1 to P of every row."""

from __future__ import annotations

import numpy as np
from draws import ideal_levels_of
from hypothesis import example, given, settings
from hypothesis import strategies as st

from sk_rankmetrics._metrics.kernels.gain_curves import (
    _ideal_dcg_at,
    _ideal_dcg_searched,
    _last_at_most,
)

GAINS = {
    "linear": np.array([4.0, 3.0, 2.0, 1.0]),
    "exponential": np.array([15.0, 7.0, 3.0, 1.0]),
    "large": np.array([2.0**50, 2.0**40, 3.0, 1.0]),
    "fractions": np.array([3.75, 2.5, 1.25, 0.5]),
    "real": np.array([2.718281828, 1.414213562, 0.333333333, 1e-9]),
}



@settings(max_examples=200, deadline=None)
@given(st.data())
@example(data=None)
def test_the_ideal_dcg_at_each_depth_is_the_running_sum(data):
    if data is None:  # a row of one level, one without any, one of every level
        counts = np.array([[0, 3, 0, 0], [0, 0, 0, 0], [1, 2, 1, 4]])
        gains, listed = GAINS["linear"], False
    else:
        n = data.draw(st.integers(1, 10))
        n_lev = data.draw(st.integers(1, 4))
        counts = np.array(data.draw(st.lists(st.lists(st.integers(0, 7), min_size=n_lev,
                                                      max_size=n_lev),
                                             min_size=n, max_size=n)),
                          dtype=np.int64).reshape(n, n_lev)
        gains = GAINS[data.draw(st.sampled_from(sorted(GAINS)))][:n_lev]
        listed = data.draw(st.booleans())
    levels = ideal_levels_of(counts, gains, listed)
    assert levels.one_each == bool(np.all(counts <= 1))  # (empty levels are left out)
    P = counts.sum(axis=1)
    rows = np.repeat(np.arange(P.shape[0]), P)
    e = np.concatenate([np.arange(1, p + 1) for p in P] + [np.zeros(0, dtype=np.int64)])
    width = max(int(P.max()), 1)
    disc = 1.0 / np.log2(np.arange(2.0, width + 2.0))
    expected = np.cumsum(levels.top(width) * disc, axis=1)
    got = _ideal_dcg_at(levels, rows, e.astype(np.int64))
    want = expected[rows, e - 1] if rows.size else np.zeros(0)
    np.testing.assert_allclose(got, want, rtol=1e-13, atol=0.0)
    # The same queries in another order read the same values.
    shuffle = np.random.default_rng(int(P.sum())).permutation(rows.shape[0])
    np.testing.assert_array_equal(
        _ideal_dcg_at(levels, rows[shuffle], e[shuffle].astype(np.int64)), got[shuffle])
    # At each level's end: the row's own running sum of its levels
    # (IdealLevels.idcg, Rndcg's denominators), bit for bit.
    np.testing.assert_array_equal(_ideal_dcg_at(levels, levels.rows, levels.end), levels.idcg)
    # At each row's P: its whole ideal DCG, as the measures read it.
    last = np.flatnonzero(P > 0)
    np.testing.assert_allclose(_ideal_dcg_at(levels, last, P[last]),
                               levels.full_idcg[last], rtol=1e-13, atol=0.0)


@settings(max_examples=300, deadline=None)
@given(a=st.lists(st.integers(-5, 40), max_size=30), v=st.lists(st.integers(-8, 45), max_size=30),
       sort_queries=st.booleans())
def test_last_at_most_is_the_binary_search(a, v, sort_queries):
    """Entries repeated or equal to queries, queries below and above every
    entry, either list empty, queries sorted (the merge) or not."""
    a = np.sort(np.array(a, dtype=np.int64))
    v = np.array(v, dtype=np.int64)
    if sort_queries:
        v = np.sort(v)
    got = _last_at_most(a, v)
    np.testing.assert_array_equal(got, np.searchsorted(a, v, side="right") - 1)


@settings(max_examples=100, deadline=None)
@given(n=st.integers(1, 12), width=st.integers(1, 9), listed=st.booleans(),
       seed=st.integers(0, 2**32 - 1))
def test_levels_of_one_position_read_their_running_sums(n, width, listed, seed):
    """Every level one position (distinct gains, real-valued relevance):
    each depth's ideal DCG is its level's running sum, read without the
    search and equal to the search's bit for bit, rows of no level
    between."""
    rng = np.random.default_rng(seed)
    counts = (rng.random((n, width)) < 0.6).astype(np.int64)
    gains = np.sort(rng.random(width) * 10.0 + 1e-3)[::-1]
    levels = ideal_levels_of(counts, gains, listed)
    assert np.all(levels.end - levels.begin == 1) and levels.one_each
    P = counts.sum(axis=1)
    rows = np.repeat(np.arange(n), P)
    e = np.concatenate([np.arange(1, p + 1) for p in P] + [np.zeros(0, dtype=np.int64)])
    got = _ideal_dcg_at(levels, rows, e.astype(np.int64))
    np.testing.assert_array_equal(got, _ideal_dcg_searched(levels, rows, e.astype(np.int64)))
    disc = 1.0 / np.log2(np.arange(2.0, width + 2.0))
    want = np.cumsum(levels.top(width) * disc, axis=1)[rows, e - 1] if rows.size else got
    np.testing.assert_allclose(got, want, rtol=1e-13, atol=0.0)
