"""The counts before each group of its row (``kernels._ahead_by_row``),
packed side by side in one 64-bit word (``most`` given) against a running
sum of each quantity on its own: the same whole numbers, where the running
sums over the chunk overflow their fields and the word itself."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from sk_rankmetrics._metrics.kernels import _ahead_by_row


def _plain(row, v):
    out = np.zeros(v.shape, dtype=np.int64)
    for r in np.unique(row):
        at = np.flatnonzero(row == r)
        run = np.cumsum(v[:, at], axis=1)
        out[:, at] = run - v[:, at]
    return out


@settings(max_examples=200, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), k=st.integers(2, 8), most=st.integers(1, 300),
       n_rows=st.integers(1, 60), empty=st.booleans())
def test_packed_counts_are_each_counts_own(seed, k, most, n_rows, empty):
    rng = np.random.default_rng(seed)
    # Each row's counts sum to at most ``most``, some to exactly it.
    per_row = rng.integers(1, 6, n_rows)
    row = np.repeat(np.arange(n_rows), per_row)
    if empty:  # rows without a group
        row = row * 3
    v = np.zeros((k, row.shape[0]), dtype=np.int64)
    start = 0
    for c in per_row:
        total = int(rng.integers(0, most + 1)) if rng.random() < 0.7 else most
        cells = rng.multinomial(total, np.ones(k * c) / (k * c)).reshape(k, c)
        v[:, start:start + c] = cells
        start += c
    got = _ahead_by_row(row, v, most=most)
    np.testing.assert_array_equal(got, _plain(row, v))
    np.testing.assert_array_equal(_ahead_by_row(row, v), got)


def test_the_running_sums_overflow_the_word():
    """20,000 rows of 4 counts of up to 60 000 in 16-bit fields: the chunk's
    running sum of the top field passes 2**16 (the word, 2**64) many times
    over; the counts before each group are whole all the same."""
    rng = np.random.default_rng(5)
    n = 20_000
    row = np.repeat(np.arange(n), 2)
    v = np.zeros((4, 2 * n), dtype=np.int64)
    v[:, 0::2] = rng.integers(0, 15_000, (4, n))
    v[:, 1::2] = rng.integers(0, 15_000, (4, n))
    got = _ahead_by_row(row, v, most=60_000)
    want = np.zeros_like(v)
    want[:, 1::2] = v[:, 0::2]
    np.testing.assert_array_equal(got, want)
    assert int(v[3].sum()) << 48 >= 2**64


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), k=st.integers(1, 3),
       most=st.sampled_from([200, 255, 256, 65_535, 65_536, 2**20, 2**21 - 1]),
       n_rows=st.integers(1, 40))
def test_fields_as_lanes_and_as_shifts_agree(seed, k, most, n_rows):
    """Fields of 8, 16 or 32 bits read as the word's lanes (one, two or
    four quantities), wider ones by shifts (three of 21 bits): each row's
    counts before each group, the largest sums at the field's top."""
    rng = np.random.default_rng(seed)
    per_row = rng.integers(1, 5, n_rows)
    row = np.repeat(np.arange(n_rows), per_row)
    v = np.zeros((k, row.shape[0]), dtype=np.int64)
    start = 0
    for c in per_row:
        for j in range(k):  # each quantity's row sum at most ``most``
            cut = np.sort(rng.integers(0, most + 1, c - 1)) if c > 1 else np.zeros(0, int)
            edges = np.concatenate(([0], cut, [most if rng.random() < 0.5 else cut.max(
                initial=0)]))
            v[j, start:start + c] = np.maximum(np.diff(np.sort(edges)), 0)[:c]
        start += c
    assert int(max(np.bincount(row, weights=v[j]).max() for j in range(k))) <= most
    np.testing.assert_array_equal(_ahead_by_row(row, v, most=most), _plain(row, v))


def test_counts_come_row_by_row():
    """Each quantity's counts contiguous (a C-ordered array, as the shifts
    make it), whatever the lanes: the products and sums after read them
    along the groups."""
    row = np.repeat(np.arange(300), 4)
    v = np.ones((4, row.shape[0]), dtype=np.int64)
    for most in (8, 200, 60_000):
        got = _ahead_by_row(row, v, most=most)
        assert got.flags["C_CONTIGUOUS"] and got.dtype == np.int64
        np.testing.assert_array_equal(got, _plain(row, v))
