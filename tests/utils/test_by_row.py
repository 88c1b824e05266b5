"""``_utils/by_row.py``: a matrix against one value per row gives the
broadcast's result, with NumPy's buffer at its least during the call where
no operand is cast, and the buffer restored after it."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sk_rankmetrics._utils.by_row import _ROW_BUFFER, by_row

OPS = [np.greater_equal, np.greater, np.equal, np.less, np.add, np.subtract, np.multiply]


@settings(max_examples=200, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(0, 20), N=st.integers(0, 5000),
       dtype=st.sampled_from(["float64", "float32", "int64", "int32", "int8", "uint16"]),
       col_dtype=st.sampled_from([None, "float64", "int64"]),
       op=st.sampled_from(OPS), view=st.sampled_from(["whole", "columns", "reversed"]),
       out=st.booleans())
def test_by_row_equals_the_broadcast(seed, n, N, dtype, col_dtype, op, view, out):
    """Every shape (rows of 0 to 5,000 entries, below and above the
    buffer's half), dtype (the column's own or another), comparison and
    arithmetic, view and ``out``: the broadcast's values and dtype."""
    rng = np.random.default_rng(seed)
    a = (rng.integers(-50, 50, (n, N + 1)) if dtype[0] in "iu" else
         rng.integers(-5, 5, (n, N + 1)) / 2).astype(dtype)
    if dtype.startswith("uint"):
        a = np.abs(a)
    a = {"whole": a[:, :N], "columns": a[:, 1:], "reversed": a[:, ::-1][:, :N]}[view]
    col = a[:, 0].copy() if a.shape[1] else np.zeros(n, dtype=dtype)
    if col_dtype is not None:
        col = col.astype(col_dtype)
    expected = op(a, col[:, None])
    target = np.empty_like(expected) if out else None
    before = np.getbufsize()
    got = by_row(op, a, col, out=target)
    assert np.getbufsize() == before
    assert got.dtype == expected.dtype and got.shape == expected.shape
    np.testing.assert_array_equal(got, expected)
    if out:
        assert got is target


def test_the_buffer_is_least_during_the_call_and_restored():
    """Same types: the op runs with the least buffer; a cast (the column
    or ``out`` of another type): with the buffer as it was. Restored after
    the call, and after an op that raises."""
    seen = []

    def op(a, col, out=None):
        seen.append(np.getbufsize())
        return np.greater_equal(a, col, out=out)

    old = np.setbufsize(4096)
    try:
        a = np.arange(12.0).reshape(3, 4)
        by_row(op, a, a[:, 1].copy())
        by_row(op, a, a[:, 1].astype(np.float32))
        by_row(op, a, a[:, 1].copy(), out=np.empty(a.shape, dtype=np.int8))
        by_row(op, a, a[:, 1].copy(), out=np.empty(a.shape, dtype=bool))
        assert seen == [_ROW_BUFFER, 4096, 4096, _ROW_BUFFER]
        assert np.getbufsize() == 4096

        def fails(a, col, out=None):
            raise RuntimeError("op failed")

        with pytest.raises(RuntimeError, match="op failed"):
            by_row(fails, a, a[:, 1].copy())
        assert np.getbufsize() == 4096
    finally:
        np.setbufsize(old)
