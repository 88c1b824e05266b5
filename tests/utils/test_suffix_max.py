"""Each row's running maximum from its end (``fast.suffix_max_rows``): a
column at a time on narrow rows, NumPy's accumulation on wide ones, both
equal to ``np.maximum.accumulate`` of the reversed rows, in place."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from sk_rankmetrics._utils.fast import _NARROW, suffix_max_rows


@settings(max_examples=100, deadline=None)
@given(n=st.integers(0, 40), width=st.sampled_from([1, 2, 3, 13, _NARROW, _NARROW + 1, 300]),
       seed=st.integers(0, 2**32 - 1))
def test_suffix_maxima(n, width, seed):
    rng = np.random.default_rng(seed)
    a = rng.random((n, width))
    a[rng.random((n, width)) < 0.5] = 0.0  # (zeros past a row's entries, as read)
    want = np.maximum.accumulate(a[:, ::-1], axis=1)[:, ::-1]
    got = suffix_max_rows(a)
    assert got is a
    np.testing.assert_array_equal(got, want)
