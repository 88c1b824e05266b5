"""A matrix against one value per row, at the speed of one value for all."""

from __future__ import annotations

import numpy as np

#: The ufuncs' buffer (entries) while :func:`by_row` runs: the least NumPy
#: takes, too small to hold two rows of any matrix worth the trouble.
_ROW_BUFFER = 16


def by_row(op, a, col, out=None):
    """``op(a, col[:, None])`` (``out`` as the ufunc takes it): a binary
    ufunc of a matrix ``a`` and one value per row ``col``.

    NumPy runs a ufunc over a matrix and a column with its buffered
    iterator, which joins rows of at most half its buffer (4,096 of its
    8,192 entries; rows of 4,096 float64 compared take 0.52 ns an entry, of
    4,097 0.31) into one call of the inner loop: the column's values are then copied out
    to one per entry, and the loop reads two arrays. Called a row at a time,
    the loop reads one array and one value, NumPy's scalar loop, vectorised:
    rows of 1,000 float64 compared with their thresholds take 0.31 ns an
    entry instead of 0.55 (the same as a comparison with one number); rows
    of 100, 0.48 instead of 0.64. With the buffer at its least, 16 entries,
    no two rows fit in it: that is the call made here, the buffer's size
    restored after it (NumPy 2 keeps it per thread and context).

    The buffer is left as it is where an operand or ``out`` is not of
    ``a``'s type (or bool for ``out``): a cast goes through the buffer, and
    16 entries at a time would be slower. The result is the same either way
    (the same loop on the same values).
    """
    col = col.reshape(-1, 1)
    if col.dtype != a.dtype or (out is not None and out.dtype not in (a.dtype, np.bool_)):
        return op(a, col, out=out)
    old = np.setbufsize(_ROW_BUFFER)
    try:
        return op(a, col, out=out)
    finally:
        np.setbufsize(old)
