"""The ideal's counts of each row's levels above the boundary
(``ideal._counted_above``): the same counts whichever route the block takes,
the levels compared one by one where a sample of its rows is dense above the
boundary, or the entries above it counted first, however the dense rows lie
(the sample's rows dense and the others sparse, and the other way round)."""

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
    step = max(1, n // 64)  # (the rows the route samples)
    sampled = np.arange(n) % step == 0
    dense_rows = {"dense": np.ones(n, bool), "sparse": np.zeros(n, bool),
                  "sampled dense": sampled, "sampled sparse": ~sampled,
                  "first half dense": np.arange(n) < n // 2}[pattern]
    share = np.where(dense_rows, 0.8, 0.02)[:, None]
    above = rng.random((n, N)) < share
    return np.where(above, rng.integers(lo + 1, lo + span, (n, N)), lo)


@settings(max_examples=150, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(1, 400), N=st.integers(1, 60),
       lo=st.sampled_from([0, -2, 1]), span=st.integers(2, 8),
       pattern=st.sampled_from(["dense", "sparse", "sampled dense", "sampled sparse",
                                "first half dense"]),
       dtype=st.sampled_from(["int8", "int64", "float64"]), boundary_up=st.integers(0, 2))
def test_counted_above_is_the_plain_count(seed, n, N, lo, span, pattern, dtype,
                                          boundary_up):
    rng = np.random.default_rng(seed)
    yt = _block(rng, n, N, lo, span, pattern).astype(dtype)
    boundary = lo + min(boundary_up, span - 1)
    got = ideal._counted_above(yt, lo, span, boundary, Extremes(yt))
    np.testing.assert_array_equal(np.asarray(got).reshape(n, span),
                                  _plain_counts(yt, lo, span, boundary))


@pytest.mark.parametrize(("pattern", "compared"), [
    ("dense", True), ("sampled dense", True), ("sparse", False), ("sampled sparse", True)])
def test_a_dense_sample_of_rows_counts_level_by_level(pattern, compared, monkeypatch):
    """Where the sampled rows are over 3 in 8 above the boundary, the levels
    are compared one by one: so too for a block whose sampled rows alone are
    dense (a tenth of its rows: the count would have read its entries above
    the boundary). Elsewhere the count decides: a block whose sampled rows
    alone are sparse is dense, and compared; a sparse one is not."""
    rng = np.random.default_rng(5)
    yt = _block(rng, 640, 50, 0, 5, pattern).astype(np.int8)
    seen = []
    real = ideal._compared_levels
    monkeypatch.setattr(ideal, "_compared_levels", lambda *a: seen.append(1) or real(*a))
    got = ideal._counted_above(yt, 0, 5, 0, Extremes(yt))
    assert bool(seen) == compared
    np.testing.assert_array_equal(np.asarray(got).reshape(640, 5), _plain_counts(yt, 0, 5, 0))
