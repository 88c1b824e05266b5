"""Each row's entries at or above each threshold (``fast.counts_at_least``):
many short rows compared transposed and summed down in bytes, others by
``row_counts`` of each comparison; both equal to a count of each row's
comparison, for bytes, integers, floats and bools, rows of 1 to 255
entries (a byte's most) and past them."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from sk_rankmetrics._utils.fast import counts_at_least

DTYPES = [np.int8, np.uint8, np.int16, np.int64, np.float32, np.float64, np.bool_]


@settings(max_examples=150, deadline=None)
@given(n=st.integers(0, 1200), width=st.sampled_from([1, 2, 7, 8, 9, 100, 255, 256, 300]),
       dtype=st.sampled_from(DTYPES), seed=st.integers(0, 2**32 - 1))
def test_counts_at_least_each_threshold(n, width, dtype, seed):
    rng = np.random.default_rng(seed)
    a = rng.integers(-2, 6, (n, width)).astype(dtype)
    if dtype is np.bool_:
        thresholds = [1, 0]
    else:
        thresholds = [5, 3, 1, 0, -1] if np.dtype(dtype).kind != "u" else [5, 3, 1, 0]
    got = counts_at_least(a, thresholds)
    assert len(got) == len(thresholds)
    for t, c in zip(thresholds, got):
        assert c.dtype == np.int64
        np.testing.assert_array_equal(c, (a >= t).sum(axis=1))


def test_short_rows_all_at_or_above_count_to_the_width():
    """Rows of 255 entries, every one counted: the byte sums reach 255
    without wrapping (the transposed route: many rows)."""
    a = np.full((1100, 255), 4, dtype=np.int8)
    (c,) = counts_at_least(a, [4])
    np.testing.assert_array_equal(c, np.full(1100, 255))
