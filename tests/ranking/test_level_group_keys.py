"""The (row, score, level) cells of integer scores counted with their levels
(`_ranking/select.py:level_group_keys`): made in a narrow unsigned type
modulo its size, then widened with the rows' offsets. Against the formula
in Python integers, for scores at the limits of their type, negative and
unsigned, and cells of one byte, two bytes and wider."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sk_rankmetrics._ranking.select import group_keys, level_group_keys

DTYPES = ["int16", "int32", "int64", "uint16", "uint32", "uint64"]


@settings(max_examples=200, deadline=None)
@given(data=st.data())
def test_level_group_keys_equal_the_formula(data):
    dtype = np.dtype(data.draw(st.sampled_from(DTYPES)))
    info = np.iinfo(dtype)
    n = data.draw(st.integers(1, 6))
    N = data.draw(st.integers(1, 40))
    width = data.draw(st.sampled_from([1, 2, 10, 51, 256, 257, 1000]))
    n_levels = data.draw(st.sampled_from([1, 2, 5, 16, 256]))
    # The span's top anywhere in the type: its limits, around 0, at random.
    lo_most, hi_most = int(info.min) + width - 1, int(info.max)
    hi = data.draw(st.one_of(st.sampled_from([lo_most, hi_most, max(lo_most, 0)]),
                             st.integers(lo_most, hi_most)))
    rng = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1)))
    gap = rng.integers(0, width, (n, N))
    scores = np.array([[hi - int(g) for g in row] for row in gap], dtype=dtype)
    codes = rng.integers(0, n_levels, (n, N)).astype(np.uint8 if n_levels <= 256 else np.uint16)
    got = level_group_keys(scores, dtype.type(hi), width, codes, n_levels)
    want = [(r * width + (hi - int(scores[r, c]))) * n_levels + int(codes[r, c])
            for r in range(n) for c in range(N)]
    assert got.dtype == np.intp
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize(("width", "n_levels"), [(10, 5), (256, 1), (257, 1), (1, 256), (2, 256),
                                                (300, 200)])
def test_level_group_keys_as_the_wide_keys(width, n_levels):
    """The same cells as the group numbers made in intp, times the levels,
    plus the codes (the one-byte, two-byte and wide routes alike)."""
    rng = np.random.default_rng(4)
    scores = (2**62 - rng.integers(0, width, (50, 30))).astype(np.int64)
    codes = rng.integers(0, n_levels, (50, 30)).astype(np.uint8)
    want = group_keys(scores, np.int64(2**62), width) * n_levels + codes.reshape(-1)
    np.testing.assert_array_equal(
        level_group_keys(scores, np.int64(2**62), width, codes, n_levels), want)
