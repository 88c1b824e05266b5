"""The ideal's counts of each row's levels above the boundary
(``ideal._counted_above``): the same counts whichever route the block takes,
the levels compared one by one where a sample of its entries is dense above
the boundary (``item_values.looks_dense``), or the entries above it counted
first, however the dense rows lie and whatever the sample says."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sk_rankmetrics._ranking import ideal
from sk_rankmetrics._ranking.item_values import Extremes


def _plain_counts(yt, lo, span, boundary):
    """Each row's count of each level ``lo + l`` above ``boundary`` (0 for
    the others), row-major: one loop over the levels."""
    counts = np.zeros((yt.shape[0], span), dtype=np.int64)
    for j in range(span):
        if lo + j > boundary:
            counts[:, j] = (yt == lo + j).sum(axis=1)
    return counts


def _block(rng, n, N, lo, span, pattern):
    """Levels ``lo..lo + span - 1`` whose entries above ``lo`` fill the
    rows densely (80 %) or sparsely (2 %), rows chosen by ``pattern``."""
    dense_rows = {"dense": np.ones(n, bool), "sparse": np.zeros(n, bool),
                  "every 7th row dense": np.arange(n) % 7 == 0,
                  "every 7th row sparse": np.arange(n) % 7 != 0,
                  "first half dense": np.arange(n) < n // 2}[pattern]
    share = np.where(dense_rows, 0.8, 0.02)[:, None]
    above = rng.random((n, N)) < share
    return np.where(above, rng.integers(lo + 1, lo + span, (n, N)), lo)


@settings(max_examples=150, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(1, 400), N=st.integers(1, 60),
       lo=st.sampled_from([0, -2, 1]), span=st.integers(2, 8),
       pattern=st.sampled_from(["dense", "sparse", "every 7th row dense",
                                "every 7th row sparse", "first half dense"]),
       dtype=st.sampled_from(["int8", "int64", "float64"]), boundary_up=st.integers(0, 2),
       view=st.booleans(), sample=st.sampled_from([None, True, False]))
def test_counted_above_is_the_plain_count(seed, n, N, lo, span, pattern, dtype,
                                          boundary_up, view, sample):
    """The counts equal a plain count over every pattern of dense rows,
    dtype and boundary, over views (every other column: sampled by rows),
    and with the sample's answer forced either way (a sample that
    misleads)."""
    rng = np.random.default_rng(seed)
    yt = _block(rng, n, 2 * N if view else N, lo, span, pattern).astype(dtype)
    if view:
        yt = yt[:, ::2]
    boundary = lo + min(boundary_up, span - 1)
    with pytest.MonkeyPatch.context() as mp:
        if sample is not None:
            mp.setattr(ideal, "looks_dense", lambda *a, **k: sample)
        got = ideal._counted_above(yt, lo, span, boundary, Extremes(yt))
    np.testing.assert_array_equal(np.asarray(got).reshape(n, span),
                                  _plain_counts(yt, lo, span, boundary))


@pytest.mark.parametrize(("pattern", "compared"), [
    ("dense", True), ("every 7th row sparse", True), ("sparse", False),
    ("every 7th row dense", False)])
def test_a_dense_sample_counts_level_by_level(pattern, compared, monkeypatch):
    """Where the sample is over half above the boundary, the levels are
    compared one by one without a count of the block first; elsewhere the
    count decides (a block a seventh dense reads its entries above the
    boundary). A dense sample of a sparse block takes the comparisons too,
    and counts the same."""
    rng = np.random.default_rng(5)
    yt = _block(rng, 640, 50, 0, 5, pattern).astype(np.int8)
    seen = []
    real = ideal._compared_levels
    monkeypatch.setattr(ideal, "_compared_levels", lambda *a: seen.append(1) or real(*a))
    counted = []
    real_dense = ideal.looks_dense
    monkeypatch.setattr(ideal, "looks_dense",
                        lambda *a, **k: counted.append(k) or real_dense(*a, **k))
    got = ideal._counted_above(yt, 0, 5, 0, Extremes(yt))
    assert bool(seen) == compared and counted == [{"above": 0}]
    np.testing.assert_array_equal(np.asarray(got).reshape(640, 5), _plain_counts(yt, 0, 5, 0))
    seen.clear()
    sparse = _block(rng, 640, 50, 0, 5, "sparse").astype(np.int8)
    monkeypatch.setattr(ideal, "looks_dense", lambda *a, **k: True)
    got = ideal._counted_above(sparse, 0, 5, 0, Extremes(sparse))
    assert seen
    np.testing.assert_array_equal(np.asarray(got).reshape(640, 5),
                                  _plain_counts(sparse, 0, 5, 0))


@pytest.mark.parametrize("share", [0.0, 0.1, 0.4, 0.6, 0.9])
@pytest.mark.parametrize("layout", ["contiguous", "every other column", "transposed"])
def test_looks_dense_over_views_and_a_boundary(share, layout):
    """The sample's answer over a block of a uniform share of entries above
    the boundary, contiguous or not (sampled by rows, no copy): over half
    the sample above it, with density 4; the nonzero entries without one."""
    from sk_rankmetrics._ranking.item_values import looks_dense

    rng = np.random.default_rng(11)
    y = np.where(rng.random((800, 120)) < share, 3, 1).astype(np.int8)
    y = {"contiguous": y, "every other column": y[:, ::2], "transposed": y.T}[layout]
    assert looks_dense(y, 4, above=1) == (share > 0.5)
    assert looks_dense(y, 4)  # every entry nonzero
    assert looks_dense(y - 1, 10) == (share > 0.2)
