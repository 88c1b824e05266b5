"""The indices of the nonzero entries of an array, by the fastest of NumPy's
loops for their density, or eight entries at a time where they are few."""

from __future__ import annotations

import numpy as np

#: Arrays shorter than this go to ``np.flatnonzero`` as they are.
_PAD_MIN_SIZE = 1 << 16
#: :func:`flatnonzero` reads masks whose nonzero entries are at most 1 in
#: this many eight bytes at a time (:func:`_by_words`).
_WORDS_FROM = 13


def flatnonzero(a):
    """``np.flatnonzero(a)``: the flat indices of the nonzero entries of ``a``.

    NumPy's own loop over a numeric array that is not bool tests each entry
    for nonzero one at a time: two to seven times slower than comparing the
    array with 0 and finding the True entries of that mask (float64 of
    2,000,000 entries, 2 % nonzero: 5.3 ms against 1.6; half nonzero: 13.0
    against 1.9; uint8 2.9 against 1.1). Arrays wider than a byte are
    compared first.

    NumPy finds the True entries of a mask by one of two loops, chosen by
    their density: at most 1 in 10, a search for the next nonzero byte from
    each one found (fast when they are rare, but about 13 ns an entry
    found); above, a branch-free pass over every byte (about 0.4 ns a byte).
    So a mask of one byte an entry (bool, or int8 and uint8 read as they are:
    relevance levels narrowed to a byte need no mask of their own) of
    :data:`_PAD_MIN_SIZE` entries or more takes one of three routes:

    - at most 1 in :data:`_WORDS_FROM` nonzero: :func:`_by_words`, eight
      bytes at a time (a mask of 524,000 entries, 5 % nonzero: 0.24 ms
      against 0.37 padded and 0.49 by NumPy alone; 2 %: 0.13, 0.26, 0.24);
    - more, up to 1 in 10 (the top 10 of rows of 100, exactly 1 in 10):
      where the search is up to three times slower than the branch-free
      pass, the mask is copied with enough nonzero entries appended to pass
      1 in 10, and the indices past the real ones dropped;
    - else NumPy's loop over the mask.

    Every route gives NumPy's indices, in its order and dtype (a NaN is
    nonzero, and -0.0 is not, both ways).
    """
    a = np.asarray(a)
    if a.dtype.kind not in "biufc":
        return np.flatnonzero(a)
    flat = a.reshape(-1)
    if flat.dtype.itemsize != 1:
        flat = flat != 0
    size = flat.shape[0]
    if size < _PAD_MIN_SIZE:
        return np.flatnonzero(_as_mask(flat))
    c = int(np.count_nonzero(flat))
    if c * _WORDS_FROM <= size and size >= 8:  # (a word at least: the recursion ends)
        return _by_words(flat)
    if 10 * c > size:
        return np.flatnonzero(_as_mask(flat))
    # (c + pad) / (size + pad) > 1/10  <=>  9 * pad > size - 10 * c
    pad = max((size - 10 * c) // 9 + 1, 0)
    buf = np.empty(size + pad, dtype=np.bool_)
    buf[:size] = flat
    buf[size:] = True
    return np.flatnonzero(buf)[:c]


def _as_mask(flat):
    """A one-byte array as the bool mask NumPy's fast loops read."""
    return flat if flat.dtype == np.bool_ else flat != 0


def _by_words(flat):
    """:func:`flatnonzero` of a contiguous one-byte array with few nonzero
    entries, read as 64-bit words: the nonzero words (one in three where one
    byte in twenty is nonzero), then the nonzero bytes of those alone. Each
    index is its word's times 8 plus its place in the word (the bytes of a
    word lie in memory order whatever the machine's byte order: the view
    as bytes of the words taken keeps it). The bytes past the last whole
    word are searched as they are. A strided view (a matrix's every other
    column flattens to one) is copied first: words are read from contiguous
    bytes only."""
    if not flat.flags.c_contiguous:  # (a view of every other column, say)
        flat = np.ascontiguousarray(flat)
    size = flat.shape[0]
    whole = size >> 3 << 3
    words = flat[:whole].view(np.uint64)
    at = flatnonzero(words != 0)
    inside = flatnonzero(np.take(words, at).view(np.uint8))
    out = np.take(at, inside >> 3)
    out <<= 3
    out += inside & 7
    if whole < size:
        out = np.concatenate([out, whole + np.flatnonzero(_as_mask(flat[whole:]))])
    return out


def nonzero_2d(a):
    """``np.nonzero(a)`` of a matrix: the rows and columns of its nonzero
    entries, in row-major order.

    NumPy walks a matrix with its general iterator, two to eight times
    slower than finding the flat indices (:func:`flatnonzero`) and dividing
    them by the row length.
    """
    a = np.asarray(a)
    if a.ndim != 2:
        raise ValueError(f"nonzero_2d takes a matrix, got {a.ndim} dimensions")
    if a.size == 0:
        empty = np.zeros(0, dtype=np.intp)
        return empty, empty.copy()
    rows, cols = np.divmod(flatnonzero(a), a.shape[1])
    return rows, cols


def neighbours_differ(values, out):
    """``out[i] = values[i + 1] != values[i]``: where a 1-D array changes from
    one entry to the next (``out`` has one entry fewer than ``values``).

    For every dtype, strings too: NumPy before 1.25 has no string loop of
    ``np.not_equal``, whose ``out=`` spares the comparison's own array for the
    others.
    """
    if values.dtype.kind in "US":
        out[...] = values[1:] != values[:-1]
    else:
        np.not_equal(values[1:], values[:-1], out=out)
    return out
