"""The fast NumPy primitives: distinct values, row sums and minima, cumulative
sums, radix-bucketed sorts of integer keys, and rows with equal neighbours,
each measured against the NumPy call it replaces (the constants carry the
measurements). The nonzero look-ups are in ``nonzero.py``."""

from __future__ import annotations

import importlib
import sys

import numpy as np

from .nonzero import flatnonzero, neighbours_differ
from .text_ids import pack_ids, unpack_ids


def unique(a):
    """The distinct values of ``a``, sorted (``np.unique(a)`` without options).

    NumPy 2.3 and later take a hash table for plain ``np.unique`` of numbers,
    which is ten times slower than a sort on a million distinct integers; a
    sort and a mask cost the same whatever the values, and integers in a
    compact range (user ids 0..n) are marked in a table without a sort.
    Text ids of at most 8 characters below U+0100 are packed into integers
    (:func:`pack_ids`, in their order) and unpacked once distinct: NumPy's
    hash of text took 0.73 s on 1,000,000 user ids of 7 characters, this
    0.07 s. Other dtypes (longer text, objects) and floats with NaN go to
    ``np.unique``.
    """
    a = np.asarray(a).reshape(-1)
    if a.dtype.kind == "U" and a.shape[0] > 1:
        keys = pack_ids(a)
        if keys is not None:
            width = min(a.dtype.itemsize // 4, 8)
            return unpack_ids(unique(keys), width).astype(a.dtype, copy=False)
    if a.dtype.kind not in "iubf" or (a.dtype.kind == "f" and np.isnan(a).any()):
        return np.unique(a)
    if a.dtype.kind in "iu" and a.shape[0] > 1:
        lo, hi = a.min(), a.max()
        span = int(hi) - int(lo) + 1
        if span <= 4 * a.shape[0]:
            # Compact integers (0..n user ids): marked in a table, no sort.
            seen = np.zeros(span, dtype=bool)
            seen[np.subtract(a, lo, dtype=np.intp)] = True
            # (In a's dtype, modulo its range: an int64 offset added to a
            # uint64 minimum would make floats, which lose keys past 2**53.)
            out = flatnonzero(seen).astype(a.dtype)
            out += lo
            return out
    s = sort_keys(a)
    if s.shape[0] < 2:
        return s
    keep = np.empty(s.shape[0], dtype=bool)
    keep[0] = True
    neighbours_differ(s, keep[1:])
    return s[keep]


def codes_of(keys):
    """``(codes, first)`` of nonnegative integer ``keys``: ``codes[i]`` numbers
    the distinct keys in increasing order, ``keys[first[c]]`` is the key of
    code ``c``.

    Keys in a compact range (at most four times their number) are marked in
    a table, without a sort; others go to ``np.unique``.
    """
    keys = np.asarray(keys).reshape(-1)
    n = keys.shape[0]
    span = int(keys.max()) + 1 if n else 0
    if span <= 4 * n:
        seen = np.zeros(span, dtype=bool)
        seen[keys] = True
        code_of = np.cumsum(seen, dtype=np.intp)
        code_of -= 1
        codes = code_of[keys]
        first = np.empty(int(code_of[-1]) + 1 if n else 0, dtype=np.intp)
        first[codes] = np.arange(n, dtype=np.intp)  # any index of each code
        return codes, first
    _, first, codes = np.unique(keys, return_index=True, return_inverse=True)
    return codes.reshape(-1), first


#: The low byte of each 16-bit lane of a 64-bit word.
_LOW_BYTES = np.uint64(0x00FF00FF00FF00FF)
#: A one in each 16-bit lane: multiplied by it, a word of four 16-bit counts
#: holds their sum in its top 16 bits.
_SHORT_ONES = np.uint64(0x0001000100010001)


#: Rows at most this wide are summed a column at a time (below).
_NARROW = 64


def row_sums(a):
    """The sum of each row of a float matrix of shape (n, m), float64.

    ``a.sum(axis=1)`` pays a reduction per row, most of the cost on the short
    rows of a cut-off (8x slower than this on rows of 10): a product with a
    vector of ones (BLAS) sums them.
    """
    if a.shape[1] == 0:
        return np.zeros(a.shape[0])
    return a @ np.ones(a.shape[1], dtype=a.dtype)


def row_min(a):
    """The minimum of each row of a matrix of shape (n, m), m >= 1.

    Rows of up to ``_NARROW`` entries are reduced a column at a time (vectors
    over the rows): ``a.min(axis=1)`` pays a reduction per row, six times the
    cost on rows of 10.
    """
    if a.shape[1] > _NARROW:
        return a.min(axis=1)
    out = a[:, 0].copy()
    for j in range(1, a.shape[1]):
        np.minimum(out, a[:, j], out=out)
    return out


def suffix_max_rows(a):
    """Each row's running maximum from its last entry back, in place:
    ``np.maximum.accumulate(a[:, ::-1], axis=1)[:, ::-1]`` (the same
    values: a maximum is exact). Rows of up to ``_NARROW`` entries are
    taken a column at a time, from the last (vectors over the rows), where
    NumPy's accumulation pays a loop per row (most of its cost on rows of
    10)."""
    if a.shape[1] > _NARROW:
        np.maximum.accumulate(a[:, ::-1], axis=1, out=a[:, ::-1])
        return a
    for j in range(a.shape[1] - 2, -1, -1):
        np.maximum(a[:, j], a[:, j + 1], out=a[:, j])
    return a


def row_cumsum(a, out=None):
    """Running sums along each row of a matrix of shape (n, m).

    ``np.cumsum(axis=1)`` pays a loop per row; rows of up to ``_NARROW``
    entries are added a column at a time instead (vectors over the rows,
    2.4x faster on rows of 10), in the same order, so the sums are the same.
    """
    if a.shape[1] > _NARROW or (out is None and a.dtype.kind != "f"):
        return np.cumsum(a, axis=1, out=out)
    if out is None:
        out = np.empty_like(a)
    if a.shape[1]:
        out[:, 0] = a[:, 0]
        for j in range(1, a.shape[1]):
            np.add(out[:, j - 1], a[:, j], out=out[:, j])
    return out


def running_in_rows(rows, v, n_rows, before=False, count=None):
    """``(running, totals)``: per entry (row-major, ``rows`` its row, sorted), the
    sum of ``v`` over its row's entries down to it (``before``: those before
    it), and each row's total, each row summed on its own from its first entry,
    in order (the chunk's running sum less its value at a row's start keeps
    others' rounding). ``count``: each row's entries, when known.

    An entry's cell in the rows' padded matrix is its index plus its row's
    offset (one gather of a value a row), where each entry's place in its row
    cost a repeat of the rows' starts (5,000 rows of 100 entries: 2.3 ms of
    the call's 7.9)."""
    if count is None:
        count = np.bincount(rows, minlength=n_rows)
    width = max(int(count.max()) if n_rows else 0, 1) + before
    offset = np.arange(0, n_rows * width, width, dtype=np.int64)
    offset -= np.cumsum(count)
    offset += count
    at = np.take(offset, rows)
    at += np.arange(rows.shape[0])
    W = np.zeros((n_rows, width))
    W.reshape(-1)[at + before] = v
    row_cumsum(W, out=W)
    return np.take(W.reshape(-1), at), W[:, -1]


def count_cumsum(a):
    """Running sums along each row of ``a`` (n, m), whose values are whole
    counts (an indicator): added in int32, exact, and a fifth of the time of
    float64's running sum, kept in int32 (``np.cumsum`` widens to int64
    otherwise, at ten times the cost; into a float64 ``out``, it costs a
    fifth more than the copy after). Rows of 2**31 entries or more are
    summed in float64.
    """
    n, m = a.shape
    if m >= 2**31:
        return np.cumsum(a, axis=1, dtype=np.float64)
    if 1 < m <= COUNT_BY_COLUMNS and n >= 4 * m:
        # Short rows, many of them: NumPy's running sum pays a loop per row
        # (most of its cost on rows of 100). Added instead a column at a
        # time down a transposed copy (contiguous vectors over the rows),
        # and copied back: 0.43 ms against 0.74 ms on 2,564 rows of 100.
        return np.ascontiguousarray(accumulate_down(np.ascontiguousarray(a.T, dtype=np.int32)).T)
    out = a.astype(np.int32)  # a copy: summed in place, no second array
    return np.cumsum(out, axis=1, out=out)


def sum_along(a, axis):
    """``a.sum(axis=axis)`` of an integer array along a short axis (at most
    :data:`_SUM_ALONG` entries), added a slice at a time: NumPy reduces a
    short axis with a loop per output (0.53 ms for the last axis of 2,621 x
    10 x 5 int64, against 0.10 ms by slices). From :data:`_SUM_EINSUM`
    entries of 64 bits, ``np.einsum``'s one pass (0.16 ms for 5,242 x 10 x
    5, against 0.33 ms by slices, whose strided reads leave the cache)."""
    m = a.shape[axis]
    if m > _SUM_ALONG or m == 0:
        return a.sum(axis=axis)
    if a.size >= _SUM_EINSUM and a.dtype.itemsize == 8:  # (a.sum widens narrower ones)
        idx = list(range(a.ndim))
        return np.einsum(a, idx, idx[:axis % a.ndim] + idx[axis % a.ndim + 1:])
    take = [slice(None)] * a.ndim
    take[axis] = 0
    out = a[tuple(take)].copy()
    for j in range(1, m):
        take[axis] = j
        out += a[tuple(take)]
    return out


#: The longest axis :func:`sum_along` adds a slice at a time.
_SUM_ALONG = 32
#: From this many entries :func:`sum_along` sums with ``np.einsum``.
_SUM_EINSUM = 1 << 17


def short_rows(shape):
    """Whether an (n, m) array is many short rows (at most
    :data:`COUNT_BY_COLUMNS` entries, at least four times as many rows),
    which the kernels read transposed (:func:`running_down`)."""
    n, m = shape
    return 1 < m <= COUNT_BY_COLUMNS and n >= 4 * m


#: Rows of any length from which bpref's terms are made transposed
#: (:func:`many_rows`).
DOWN_ROWS = 256

#: Entries a kernel made down the positions (:func:`accumulate_down`) holds
#: per array at a time: a few thousand rows of 100 (4 MiB of float64).
DOWN_CELLS = 1 << 19


def many_rows(shape):
    """Whether an (n, m) array is many short rows (:func:`short_rows`) or
    has at least :data:`DOWN_ROWS` rows of any length: bpref then makes its
    terms transposed (:func:`running_down`), position after position over
    every row at once, cheaper than its rows read in order once the vectors
    over the rows are long (on one thread, against the rows read in order:
    0.85-0.89x on 300 and 524 rows of 1,000, 0.78x on 1,048 rows of 500,
    0.95x on 262 rows of 2,000; 1.27x on 131 rows of 4,000 and 1.43x on 100
    rows of 1,000, so not there)."""
    n, m = shape
    return short_rows(shape) or (1 < m and n >= DOWN_ROWS)


def running_down(flags):
    """``(down, running)`` of an indicator ``flags`` (n, m): the indicator
    transposed (shape (m, n), C-ordered, its dtype) and its running counts
    along each row, position included, transposed as well (int32), made a
    column at a time down the copy (vectors over the rows). Kernels over
    many short rows read both a few rows at a time and never copy them back
    (:func:`short_rows`; :func:`count_cumsum` does, for a caller that reads
    the counts by rows)."""
    down = np.ascontiguousarray(flags.T)
    return down, accumulate_down(down.astype(np.int32))


def accumulate_down(out, op=np.add):
    """``out`` (a matrix) made its running ``op`` (``np.add``: sums;
    ``np.multiply``: products) down each column, in place, a row at a time
    (vectors over the columns, in the row order); returned. NumPy's own
    running sum or product costs about 4 ns an entry along either axis; a
    row of this costs about 1.5 us and 0.1 ns an entry."""
    for j in range(1, out.shape[0]):
        op(out[j - 1], out[j], out=out[j])
    return out


#: Rows of at most this many entries are counted by :func:`count_cumsum` a
#: column at a time (on rows of 1,000 that costs twice NumPy's running sum).
COUNT_BY_COLUMNS = 128


def row_sums_in_order(a):
    """Each row of ``a`` (n, m) summed left to right, one addition after the
    other: ``np.cumsum(a, axis=1)[:, -1]`` (trec_eval's order of additions,
    unlike ``a.sum(axis=1)``'s pairwise sum), without the running sums.

    The rows become the columns of a C-ordered copy, which ``np.add.reduce``
    over its first axis adds a row at a time into the vector of the sums:
    the order of additions of each sum is the column order of ``a``, and the
    additions are vectorised over the rows (a third of the running sums' time
    on rows of 1,000). (NumPy sums pairwise only along an array's contiguous
    axis: a single row is summed by its running sums instead.) The copy is
    made a few columns at a time (:data:`IN_ORDER_PIECE` entries), each
    piece's first row the sums so far: no copy of the whole of ``a``.
    """
    return row_sums_in_order_of(lambda j0, j1: a[:, j0:j1], a.shape, a.dtype)


def row_sums_in_order_of(columns, shape, dtype=np.float64):
    """:func:`row_sums_in_order` of an array of ``shape`` (n, m) given by
    its columns: ``columns(j0, j1)`` the columns ``j0:j1`` (an array of
    ``dtype``, read before the next call), asked for a few at a time, so
    that terms made from other arrays never make a whole array."""
    n, m = shape
    if m == 0:
        return np.zeros(n, dtype=dtype)
    if n < 2:  # one row: its copy is contiguous along the sum, which is then pairwise
        return np.cumsum(columns(0, m), axis=1)[:, -1]
    step = max(IN_ORDER_MIN_STEP, IN_ORDER_PIECE // n)
    if step >= m:
        return np.add.reduce(np.ascontiguousarray(columns(0, m).T), axis=0)
    piece = np.empty((step + 1, n), dtype=dtype)
    piece[:step] = columns(0, step).T  # the first column starts each sum
    total = np.add.reduce(piece[:step], axis=0)
    for j in range(step, m, step):
        w = min(step, m - j)
        piece[0] = total
        piece[1:w + 1] = columns(j, j + w).T
        total = np.add.reduce(piece[:w + 1], axis=0)
    return total


#: Entries of each piece of :func:`row_sums_in_order`'s copy (256 KiB of float64).
IN_ORDER_PIECE = 1 << 15
#: ... but at least this many columns a piece: the terms of a piece are made
#: by a few NumPy calls over its rows, each a loop along the piece's columns,
#: and pieces of 12 columns (blocks of 2,564 rows of 100) made bpref 16-33 %
#: and MAP 9-13 % slower than one whole array (32 or more: as fast; the peak
#: over one row-block of 100,000 x 100 grows 0.2-0.4 for bpref, none for MAP).
IN_ORDER_MIN_STEP = 32


def row_dots_of(columns, w, n):
    """Each row's dot product with ``w`` of an array of shape (n, len(w))
    given by its columns (``columns(j0, j1)``, float64), made a few at a time
    (:data:`IN_ORDER_PIECE` entries): terms made from other arrays (a
    product of two) never make a whole array."""
    m = w.shape[0]
    step = max(IN_ORDER_MIN_STEP, IN_ORDER_PIECE // max(n, 1))
    if step >= m:
        return columns(0, m) @ w
    total = np.zeros(n)
    for j in range(0, m, step):
        total += columns(j, min(m, j + step)) @ w[j:j + step]
    return total


def _has_vector_sort():
    """Whether ``np.sort`` of 32- and 64-bit integers is vectorised on this
    machine: NumPy 2 sorts them with x86-simd-sort given AVX2, NumPy 1.25 and
    1.26 given AVX-512 only (their CPU features, read from NumPy's own table)."""
    for where in ("numpy._core._multiarray_umath", "numpy.core._multiarray_umath"):  # 2, 1
        try:
            features = importlib.import_module(where).__cpu_features__
            break
        except (ImportError, AttributeError):
            continue
    else:
        return False
    numpy_2 = int(np.__version__.split(".")[0]) >= 2
    return bool(features.get("AVX512_SKX")) or (numpy_2 and bool(features.get("AVX2")))


#: Whether :func:`sort_keys` leaves its keys to ``np.sort`` (see there).
VECTOR_SORT = _has_vector_sort()
#: Integer arrays shorter than this are sorted whole by :func:`sort_keys`.
_BUCKET_MIN = 1 << 16
#: :func:`sort_keys` aims at buckets of about this many keys (in the CPU cache)
_BUCKET_KEYS = 256
#: ... and at most 2**16 buckets (their numbers are 16-bit): one NumPy call
#: each, for 256 keys or more.
_MAX_BUCKET_BITS = 16


def sort_keys(key):
    """``np.sort(key)`` of a 1-D integer array (a new array, the same dtype).

    Where NumPy's sort of 32- and 64-bit integers is vectorised
    (:data:`VECTOR_SORT`: NumPy 2 on a CPU with AVX2, or AVX-512) it is the
    fastest there is and takes every such array: 3.5 to 4 times faster than
    the buckets below on 316,000 to 10,000,000 64-bit keys (NumPy 2.4,
    AVX2). Elsewhere a comparison sort of
    a million 64-bit keys works out of the CPU cache for most of its passes,
    and the keys are first put in buckets by their leading bits (a stable
    radix sort of 16-bit bucket numbers, NumPy's own), then each bucket of a
    few hundred keys is sorted where it lies: the same result (buckets follow
    the order of the keys, so sorting within them sorts the whole), 1.3 to
    1.8 times faster than a scalar ``np.sort`` on a million keys. Short
    arrays and other dtypes go to ``np.sort``.
    """
    key = np.asarray(key)
    n = key.shape[0] if key.ndim == 1 else 0
    if (
        (VECTOR_SORT and key.dtype.itemsize >= 4)
        or key.ndim != 1
        or key.dtype.kind not in "iu"
        or n < max(_BUCKET_MIN, 2)
    ):
        return np.sort(key)
    lo, hi = int(key.min()), int(key.max())
    bits = min(_MAX_BUCKET_BITS, (n // _BUCKET_KEYS).bit_length())
    shift = max(0, (hi - lo).bit_length() - bits)
    # Offsets from the smallest key in 64-bit unsigned arithmetic (exact for
    # any span of int64 or uint64 keys), then their leading bits.
    wide = key.astype(np.uint64) if key.dtype.itemsize < 8 else key.view(np.uint64)
    with np.errstate(over="ignore"):
        offset = wide - np.uint64(lo % (1 << 64))
    offset >>= np.uint64(shift)
    bucket = offset.astype(np.uint16)
    del offset
    out = key[np.argsort(bucket, kind="stable")]
    ends = np.cumsum(np.bincount(bucket, minlength=1 << bits)).tolist()
    start = 0
    for end in ends:  # at most n / _BUCKET_KEYS and 2**16 buckets
        if end - start > 1:
            out[start:end].sort()
        start = end
    return out


def sortable_int32(v):
    """float32 values ``v`` (no -0.0) as int32 in their order, in place
    (returned as an int32 view): the bits of a negative value flipped but
    its sign (theirs run the other way), a value >= 0 keeping its bits."""
    i = v.view(np.int32)
    flip = i >> np.int32(31)
    flip &= np.int32(0x7FFFFFFF)
    i ^= flip
    return i


def sorted_rows(a):
    """``np.sort(a, axis=1)``, a new array; float32 rows through
    :func:`sort_float32_rows`."""
    if a.dtype == np.float32:
        return sort_float32_rows(np.array(a, order="C"))
    return np.sort(a, axis=1)


def sort_float32_rows(a):
    """Each row of a float32 matrix ``a`` sorted in place,
    ascending, NaN last (``a.sort(axis=1)``); returns ``a``.

    The bits of a float32 of sign 0 (``+0.0`` up to ``+inf``, then the NaN
    of sign 0), read as an int32, are in the order of the values; and NumPy
    sorts int32 faster than float32 (rows of 100 on an AVX2 machine: about
    0.9 ms against 1.4 ms for 5,000 rows). So the rows are sorted as int32,
    and those that hold an entry of sign 1 (a negative score, ``-0.0``, a
    NaN of that sign), which the int32 order puts first and reversed, are
    sorted again as float32: the same values, each row in the order
    ``a.sort(axis=1)`` gives them (NaNs apart, last in both). Where the
    first row holds such an entry (logits, say), all rows are sorted as
    float32 at once.
    """
    if not a.size:
        return a
    bits = a.view(np.int32)
    if int(bits[0].min()) < 0:
        a.sort(axis=1)
        return a
    bits.sort(axis=1)
    signed = flatnonzero(bits[:, 0] < 0)
    if signed.size:
        a[signed] = np.sort(a[signed], axis=1)
    return a


def stable_order(key, bound):
    """``(order, key[order])``: a stable argsort of the 1-D integer ``key``,
    each in ``[0, bound)``, and the keys in that order. Each key is packed
    with its index in one int64 and the packs sorted (:func:`sort_keys`: the
    vectorised sort of integers, where NumPy has it; its indices break the
    ties, so the order is the stable one): 1.6 times faster than the stable
    argsort (a merge sort) on 13,000 keys. Keys of at most 32 bits take
    NumPy's stable sort of uint16, a radix sort, instead: keys of 16 bits
    once (25,000 keys: a quarter of the packed sort's time), wider ones
    twice, by their low 16 bits and then, stably, by their high 16 (5,000
    to a million keys: 0.42 to 0.49 of the packed sort's time). Keys or
    arrays too large to pack (``bound`` over 2**32, more than 2**32 keys)
    are argsorted. The sorted keys come back as int64 either way."""
    m = key.shape[0]
    if bound <= 1 << 16:
        order = np.argsort(key.astype(np.uint16), kind="stable")
        return order, np.take(key, order).astype(np.int64, copy=False)
    if bound <= 1 << 32:
        low = np.argsort(key.astype(np.uint16), kind="stable")  # (the low 16 bits)
        high = np.take(key, low).astype(np.int64, copy=False) >> 16
        order = np.take(low, np.argsort(high.astype(np.uint16), kind="stable"))
        return order, np.take(key, order).astype(np.int64, copy=False)
    if bound > 1 << 31 or m > 1 << 32:
        order = np.argsort(key, kind="stable")
        return order, np.take(key, order).astype(np.int64, copy=False)
    packed = key.astype(np.int64) << 32  # (a new array: ``key`` is not written)
    packed |= np.arange(m, dtype=np.int64)
    packed = sort_keys(packed)
    order = packed & 0xFFFFFFFF
    packed >>= 32
    return order, packed


def cumsum_down(a):
    """Running sums down each column of a matrix of shape (m, n): ``np.cumsum(a,
    axis=0)``, in its dtype.

    NumPy accumulates along the axis in an inner loop per column, which on
    the few rows of per-level counts (m of 4 for n of 20,000) costs twelve
    times a row-wise addition; matrices of up to ``_NARROW`` rows are summed
    a row at a time (vectors over the columns), in the same order.
    """
    a = np.asarray(a)
    if a.ndim != 2 or a.shape[0] > _NARROW or not a.size:
        return np.cumsum(a, axis=0)
    # A copy, in cumsum's dtype.
    return accumulate_down(a.astype(np.cumsum(a[:1, :1], axis=0).dtype))


def segment_cumsum(v, first):
    """Running sums of ``v`` (float64) restarted at every True of ``first``
    (each segment's first entry), each made of its segment's entries only: a
    running sum over the whole array less its value before a segment keeps
    the rounding of every segment before it. By doubling: the pass of step
    ``d`` adds the entry ``d`` places back where both lie in one segment; an
    entry's additions depend only on its place in its segment, so a segment
    sums the same bit for bit alone or among others (in another order than
    left to right)."""
    out = np.array(v, dtype=np.float64)
    if out.shape[0] < 2:
        return out
    seg = np.cumsum(first)
    longest = int(np.bincount(seg).max())
    d = 1
    while d < longest:
        out[d:] += np.where(seg[d:] == seg[:-d], out[:-d], 0.0)
        d *= 2
    return out


def ranges(starts, counts):
    """``starts[i], .., starts[i] + counts[i] - 1`` for every ``i``, concatenated."""
    counts = np.asarray(counts, dtype=np.int64)
    total = int(counts.sum())
    if total == 0:
        return np.zeros(0, dtype=np.int64)
    # One repeat: each range's start less the ranges before it, plus the running index.
    return np.repeat(np.asarray(starts, dtype=np.int64) - (np.cumsum(counts) - counts),
                     counts) + np.arange(total)


def tied_stretches(tied):
    """``(places, stretch)``: the places that lie in a stretch of equal
    neighbours and the number (from 1) of the stretch each one lies in;
    ``tied[i]`` says places ``i`` and ``i + 1`` are equal."""
    inside = np.zeros(tied.shape[0] + 1, dtype=bool)
    inside[:-1] = tied
    inside[1:] |= tied
    places = flatnonzero(inside)
    begins = np.ones(places.shape[0], dtype=bool)
    begins[1:] = ~tied[places[1:] - 1]
    return places, np.cumsum(begins)


def rows_with_equal_neighbours(a):
    """The rows (sorted indices) of a matrix in which two neighbours are equal:
    the flat indices of ``(a[:, 1:] == a[:, :-1]).any(axis=1)``.

    That expression pays a reduction per row (most of its cost on rows of
    100: 0.36 ms on 2,621 rows of 100). A C-ordered matrix is compared as one
    flat array instead, each entry with the next, the pairs that straddle two
    rows struck out, and one ``any`` over the whole (0.10 ms); the rows are
    found only when some pair is equal.
    """
    n, N = a.shape
    if N < 2 or not n:
        return np.zeros(0, dtype=np.intp)
    if not a.flags.c_contiguous:
        return flatnonzero((a[:, 1:] == a[:, :-1]).any(axis=1))
    flat = a.reshape(-1)
    equal = flat[1:] == flat[:-1]
    equal[N - 1::N] = False  # the last entry of a row against the next row's first
    if not equal.any():
        return np.zeros(0, dtype=np.intp)
    rows = flatnonzero(equal) // N
    first = np.ones(rows.shape[0], dtype=bool)
    first[1:] = rows[1:] != rows[:-1]
    return rows[first]


def row_counts(mask):
    """The True entries of each row of a bool matrix of shape (n, N), int64.

    ``np.count_nonzero(mask, axis=1)`` pays a reduction per row, most of the
    cost on short rows. Here each row's bytes are read as 64-bit words whose
    byte lanes, summed over the row's words by one ``np.add.reduce`` (up to
    255 words at a time, so that a byte lane never passes 255), count the
    True entries of eight columns; the lanes are then added in pairs and a
    multiplication sums the pairs: a fifth of ``np.count_nonzero``'s time on
    rows of 1,000.
    """
    n, N = mask.shape
    W = N // 8
    if W == 0 or mask.strides[1] != 1:
        return np.count_nonzero(mask, axis=1).astype(np.int64)
    b = mask.view(np.uint8)
    words = b[:, : 8 * W]
    try:
        words = words.view(np.uint64)
    except ValueError:  # rows whose stride does not allow the view
        words = np.ascontiguousarray(words).view(np.uint64)
    if 1 < W and N <= COUNT_BY_COLUMNS and n >= 4 * N:
        # Short rows, many of them: the reduction along each row pays a loop
        # per row (most of its cost on rows of 100). The words transposed (a
        # copy the size of the mask) are added a row of words at a time,
        # vectorised over the rows (at most 16 words: no byte lane passes
        # 255): 48 against 103 us on 2,621 rows of 100.
        total = _byte_lanes(np.add.reduce(np.ascontiguousarray(words.T), axis=0))
    else:
        total = np.zeros(n, dtype=np.int64)
        for a in range(0, W, _MAX_WORDS):
            total += _byte_lanes(np.add.reduce(words[:, a:a + _MAX_WORDS], axis=1,
                                               dtype=np.uint64))
    if N % 8:
        # The last columns: the row's last eight bytes as a word, the lanes of
        # the columns the words above read masked out (little-endian: the
        # later columns are the higher lanes).
        tail = b[:, N - 8:]
        try:
            tail = tail.view(np.uint64)[:, 0]
        except ValueError:
            tail = np.ascontiguousarray(tail).view(np.uint64)[:, 0]
        keep = np.uint64(((1 << (8 * (N % 8))) - 1) << (8 * (8 - N % 8)))
        if sys.byteorder == "big":
            keep = np.uint64((1 << (8 * (N % 8))) - 1)
        total += _byte_lanes(tail & keep)
    return total


#: Words of a bool row :func:`row_counts` sums at once (a byte lane holds 255).
_MAX_WORDS = 255


def counts_at_least(a, thresholds):
    """Per threshold ``t`` of ``thresholds`` (an iterable), each row's
    entries of ``a`` (n, N) at ``t`` or above, int64: :func:`row_counts` of
    ``a >= t``. Many short rows (at most 255 entries) are compared
    transposed (one copy of ``a``) and summed down the positions in bytes,
    vectors over the rows, where each count paid a transposed copy of its
    mask (nDCG's ideal over dense graded levels: 0.99x the call)."""
    n, N = a.shape
    if not (N <= 255 and n >= 4 * N):
        return [row_counts(a >= t) for t in thresholds]
    down = np.ascontiguousarray(a.T)
    mask = np.empty((N, n), dtype=bool)
    return [np.add.reduce(np.greater_equal(down, t, out=mask).view(np.uint8), axis=0,
                          dtype=np.uint8).astype(np.int64) for t in thresholds]


def _byte_lanes(acc):
    """The sum of the eight byte lanes of each 64-bit word of ``acc``, int64."""
    # Pairs of byte lanes into 16-bit lanes (their sum may pass 255), whose
    # sum the multiplication leaves in the top 16 bits.
    acc = (acc & _LOW_BYTES) + ((acc >> np.uint64(8)) & _LOW_BYTES)
    return ((acc * _SHORT_ONES) >> np.uint64(48)).astype(np.int64)


def row_argsort(a):
    """``(order, stable)``: the columns of each row of ``a`` (2-D) by increasing
    value, as ``np.argsort(a, axis=1)``; ``stable``: equal values come by
    column, as ``kind="stable"`` orders them.

    Values of 32 bits or fewer (float32, float16, integers of up to 32 bits
    and int64/uint64 within that range) are sorted as 64-bit keys, the value
    mapped to an order-preserving 32-bit integer in the high half (signed,
    but for unsigned values of 32 bits) and the column in the low half, by
    NumPy's vectorised sort of integers:
    stable, and about twice as fast as argsort of the values on rows of
    1,000 (float32's argsort is slower than float64's). ``-0.0`` is keyed as
    ``0.0`` (the two tie). Other values (float64, wider integers, NaN never
    reaches here) go to ``np.argsort``.
    """
    n, N = a.shape
    kind, size = a.dtype.kind, a.dtype.itemsize
    if kind == "b":
        a, kind, size = a.view(np.uint8), "u", 1
    fits = (kind == "f" and size <= 4) or (kind in "iu" and size <= 4)
    if not fits and kind in "iu" and size == 8 and a.size:
        lo, hi = int(a.min()), int(a.max())
        fits = (-(2**31) <= lo and hi < 2**31) if kind == "i" else hi < 2**32
    if not fits or N >= 2**32 or not a.size:
        return np.argsort(a, axis=1), False
    keys = np.empty((n, N), dtype=np.uint64)
    halves = keys.view(np.uint32).reshape(n, N, 2)
    lo_word, hi_word = (0, 1) if sys.byteorder == "little" else (1, 0)
    high = halves[..., hi_word]
    # The high half signed where the values allow (NumPy sorts int64 faster
    # than uint64: 0.8 times the time on rows of 100 on an AVX2 machine):
    # the key is then high * 2**32 + column as an int64.
    signed_keys = kind in "fi" or size <= 2
    if kind == "f":
        np.add(a, np.float32(0), out=high.view(np.float32))  # -0.0 + 0.0 is 0.0
        sortable_int32(high.view(np.float32))
    elif kind == "i":
        high.view(np.int32)[...] = a
    else:
        high[...] = a
    halves[..., lo_word] = np.arange(N, dtype=np.uint32)
    (keys.view(np.int64) if signed_keys else keys).sort(axis=1)
    return halves[..., lo_word], True
