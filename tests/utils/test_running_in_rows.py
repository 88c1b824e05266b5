"""Running sums within rows of a row-major list of entries
(``fast.running_in_rows``): each row's own additions from its first entry,
bit for bit, whether the rows' counts are given or made."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from sk_rankmetrics._utils.fast import running_in_rows


@settings(max_examples=200, deadline=None)
@given(counts=st.lists(st.integers(0, 12), min_size=1, max_size=30),
       before=st.booleans(), seed=st.integers(0, 2**32 - 1))
def test_each_rows_own_running_sum(counts, before, seed):
    rng = np.random.default_rng(seed)
    counts = np.array(counts, dtype=np.int64)
    n = counts.shape[0]
    rows = np.repeat(np.arange(n), counts)
    # Values of many magnitudes: a sum over another order or over the rows
    # before would round differently.
    v = rng.random(rows.shape[0]) * 10.0 ** rng.integers(-8, 9, rows.shape[0])
    want, totals = np.zeros(rows.shape[0]), np.zeros(n)
    start = 0
    for i, c in enumerate(counts):
        run = np.cumsum(v[start:start + c])
        totals[i] = run[-1] if c else 0.0
        want[start:start + c] = np.concatenate(([0.0], run[:-1])) if before else run
        start += c
    for got in (running_in_rows(rows, v, n, before=before),
                running_in_rows(rows, v, n, before=before, count=counts)):
        np.testing.assert_array_equal(got[0], want)
        np.testing.assert_array_equal(got[1], totals)
