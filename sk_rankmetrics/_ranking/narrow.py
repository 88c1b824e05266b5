"""Blocks of relevance whose every entry is a whole number in -128..127 copied
to one byte each (binary and graded levels, whatever their dtype)."""

from __future__ import annotations

import numpy as np

from .item_values import Extremes, _in_one_byte

#: Entries of a float block looked at before it is copied to one byte.
_BYTE_SAMPLE = 1 << 12

#: Entries :func:`narrowed` reads at a time: a piece of 8-byte entries (256
#: KiB) and its copy stay in the CPU's cache between the passes over it.
_PIECE = 1 << 15


def narrowed(yt):
    """``(levels, extremes)``: a block of relevance as int8 with its
    :class:`~.item_values.Extremes` when every entry is a whole number within
    -128..127 (binary and graded levels, whatever their dtype); else ``yt``
    as it is, with an :class:`~.item_values.Extremes` (integers) or None
    (one-byte types, floats).

    Every later pass over the levels (the checks' min and max, the nonzero
    entries, the ideal's counts, the level codes) then reads one byte per
    entry instead of two to eight. Integers are copied when their min and
    max fit (those are kept, and the checks read them). Floats are copied
    when a sample of their first entries is whole and in range; the copy,
    compared with them, says whether all are (a fraction, a NaN, an
    infinity or a value out of range compares unequal), and its min and max
    cost a byte per entry. Floats that are not whole pay only the sample.

    A contiguous block is read a piece at a time (:data:`_PIECE` entries):
    its min and max and its copy, or its copy and the comparison, read the
    piece while it is in the CPU's cache, where a pass over the whole block
    for each read it from memory again (int64 levels of 10,000 x 1,000:
    0.56 of the time; float64 0.85).
    """
    if yt.dtype.itemsize == 1 or yt.dtype.kind not in "iuf" or not yt.size:
        return yt, None
    whole = yt.dtype.kind in "iu"
    if not whole:
        # The first rows' entries (copied alone when the block is not
        # contiguous: a reshape of the whole would copy all of it).
        sample = yt[:max(1, -(-_BYTE_SAMPLE // max(yt.shape[-1], 1)))].reshape(-1)
        with np.errstate(invalid="ignore"):
            if not np.array_equal(sample, sample.astype(np.int8)):
                return yt, None
    if not yt.flags.c_contiguous:
        return _narrowed_whole(yt, whole)
    flat = yt.reshape(-1)
    small = np.empty(flat.shape[0], dtype=np.int8)
    lo = hi = None
    for a in range(0, flat.shape[0], _PIECE):
        piece, out = flat[a:a + _PIECE], small[a:a + _PIECE]
        if whole:
            p_lo, p_hi = piece.min(), piece.max()
            if p_lo < -128 or p_hi > 127:
                return yt, Extremes(yt)
            lo = p_lo if lo is None else min(lo, p_lo)
            hi = p_hi if hi is None else max(hi, p_hi)
            np.copyto(out, piece, casting="unsafe")
        else:
            with np.errstate(invalid="ignore"):
                np.copyto(out, piece, casting="unsafe")
            if not np.array_equal(out, piece):
                return yt, None
    small = small.reshape(yt.shape)
    out = Extremes(small, np.int8(lo), np.int8(hi)) if whole else Extremes(small)
    out.integral = True
    return small, out


def _narrowed_whole(yt, whole):
    """:func:`narrowed` of a block that is not contiguous, each pass over all
    of it (its float sample found whole already)."""
    if whole:
        ex = Extremes(yt)
        if not (-128 <= ex.min() and ex.max() <= 127):
            return yt, ex
        return _in_one_byte(yt, ex)
    with np.errstate(invalid="ignore"):
        small = yt.astype(np.int8)
    if not np.array_equal(small, yt):
        return yt, None
    out = Extremes(small)
    out.integral = True
    return small, out
