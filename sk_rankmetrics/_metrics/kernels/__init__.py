"""Metric kernels: one value per ranked row, from a :class:`RankedChunk`.

Every kernel has the signature ``kernel(rc, req) -> (values, defined)``:
``values`` is a float array of shape ``(n_rows,)`` and ``defined`` a boolean
array marking the rows where the metric is defined (``None``: every row). A
row is undefined when it has no relevant item (or, for nDCG, an ideal DCG of
zero); the reduce step applies the user's policy to those rows.

All kernels compute the exact expected value of the metric over every ordering
of each tie group, all equally likely, from the tie-group statistics alone.
With ``ignore_ties=True`` every group has size one and the formulas reduce to
the plain metric of the given order.
"""

from __future__ import annotations

from typing import Any, Protocol, runtime_checkable

import numpy as np

from ..._utils.fast import row_counts, row_sums
from ..._utils.nonzero import flatnonzero


@runtime_checkable
class Kernel(Protocol):
    """The kernel contract: ``kernel(rc, req) -> (values, defined)`` (see above).

    Every registered kernel meets it (``tests/structure/test_contracts.py``); no
    validation, no sort and no loop over rows inside.
    """

    def __call__(self, rc: Any, req: Any, /) -> tuple[np.ndarray, np.ndarray | None]: ...


def _cut(rc, k):
    """Number of positions that count: ``min(k, L)`` (``k`` may be any size)."""
    return rc.L if k is None else min(k, rc.L)


def _ranked_total(rc, key, k=None):
    """Each row's expected sum of the item value ``key`` over its top ``k``
    positions (None: its whole ranking). Over a whole ranking that ranks
    every item of its rows (:attr:`RankedChunk.ranks_every_item`) that is the
    row total, read without a position (the chunk may describe none)."""
    if k is None and rc.ranks_every_item:
        return np.asarray(rc.totals[key], dtype=np.float64)
    return row_sums(rc.mean(key)[:, :_cut(rc, k)])


def _as_float(k):
    """A cut-off as a float divisor (a ``k`` beyond float64's range is infinite)."""
    return float(k) if k < 2**1023 else float("inf")


# -- shared helpers of the measures below ---------------------------------------------


def _cumulative(rc, key):
    """``C[:, j]``: the expected sum of ``key`` over the first ``j`` positions."""
    return rc.cumulative(key)


def _at(C, cut):
    """``C`` read at a per-row number of positions ``cut`` (clipped to ``L``)."""
    cut = np.clip(cut, 0, C.shape[1] - 1).astype(np.int64)
    return C[np.arange(C.shape[0]), cut]


def _safe_divide(num, den):
    """``num / den`` where ``den > 0``, 0 elsewhere."""
    den = np.asarray(den, dtype=np.float64)
    ok = den > 0
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(ok, num / np.where(ok, den, 1.0), 0.0)


def _ahead_in_row(groups, v):
    """Per tie group of a :class:`~sk_rankmetrics._ranking.chunk.Groups`, the
    sum of ``v`` (one value per group) over the groups before it in its row."""
    return _ahead_by_row(groups.row, v)


def _ahead_by_row(row, v, most=None):
    """Per entry of ``v`` (one per group along its last axis, rows in order; a
    2-D ``v`` holds one row per quantity, each contiguous), the sum over the
    entries before it of its ``row``.

    ``most``: where ``v`` holds whole counts (an integer array, >= 0) whose
    sum over any row is at most ``most``, several quantities are packed side
    by side in one 64-bit word (:func:`_ahead_packed`): one running sum
    where each quantity took its own."""
    if (most is not None and v.ndim == 2 and v.shape[0] > 1 and v.dtype.kind in "iu"
            and v.shape[0] * max(int(most), 1).bit_length() <= 64):
        return _ahead_packed(row, v, max(int(most), 1).bit_length())
    ahead = np.cumsum(v, axis=-1)
    ahead -= v
    m = v.shape[-1]
    if not m:
        return ahead
    heads, lengths = _row_runs(row)
    ahead -= np.repeat(ahead[..., heads], lengths, axis=-1)
    return ahead


def _row_runs(row):
    """``(heads, lengths)``: where each row's run of entries starts in ``row``
    (sorted, non-empty; rows may hold none) and how long it is."""
    new = np.empty(row.shape[0], dtype=bool)  # a row's first group
    new[0] = True
    np.not_equal(row[1:], row[:-1], out=new[1:])
    heads = flatnonzero(new)
    return heads, np.diff(np.append(heads, row.shape[0]))


def _ahead_packed(row, v, bits):
    """:func:`_ahead_by_row` of counts ``v`` (k, m), each row's sums below
    ``2**bits`` (``k * bits <= 64``): the k counts of an entry packed in one
    uint64 (``bits`` each), summed once along the entries and the rows'
    heads taken off, all modulo 2**64. A sum of packed words is the packed
    sum of each count, carries apart; the running sums over the chunk
    overflow their fields (and the word), but the difference at each entry,
    the counts before it in its row, fits each field: exact (every step is
    exact modulo 2**64, and so is the result). (ERR's reach over rows of
    100 integer scores, four grades: one running sum of a word instead of
    four of int64.)"""
    k, m = v.shape
    if not m:
        return np.zeros((k, 0), dtype=np.int64)
    # Fields of 8, 16 or 32 bits are a word's lanes: written and read as an
    # array of those (a field's place in the word is the same both ways),
    # where shifts and masks cost a few passes each (0.07 and 0.06 ms
    # against 0.13 and 0.15 ms for 52,000 words of four fields).
    lane = next((t for t in (np.uint8, np.uint16, np.uint32)
                 if bits <= 8 * t().itemsize and k * t().itemsize <= 8), None)
    if lane is not None:
        lanes = np.zeros((m, 8 // np.dtype(lane).itemsize), dtype=lane)
        for j in range(k):
            lanes[:, j] = v[j]
        packed = lanes.view(np.uint64).reshape(m)
    else:
        packed = v[0].astype(np.uint64)
        for j in range(1, k):
            field = v[j].astype(np.uint64)
            field <<= np.uint64(bits * j)
            packed |= field
    ahead = np.cumsum(packed)
    ahead -= packed
    heads, lengths = _row_runs(row)
    ahead -= np.repeat(ahead[heads], lengths)
    if lane is not None:
        return ahead.view(lane).reshape(m, -1)[:, :k].T.astype(np.int64, order="C")
    out = np.empty((k, m), dtype=np.int64)
    mask = np.uint64((1 << bits) - 1)
    for j in range(k):
        np.bitwise_and(ahead >> np.uint64(bits * j), mask, out=out[j], casting="unsafe")
    return out


def _group_firsts(rc, kc):
    """Whether each of the first ``kc`` positions opens its tie group."""
    return rc.start[:, :kc] == np.arange(kc)


def _lround(x):
    """C's ``lround`` for x >= 0: halves round away from zero (trec_eval's rounding)."""
    base = np.floor(x)
    return base + (x - base >= 0.5)


def load_batches(load, budget):
    """``(a, b)`` of consecutive batches of items whose loads add up to at most
    ``budget`` each (a batch holds one item at least, however large);
    ``load``: the running sum of the items' loads."""
    a, n = 0, load.shape[0]
    while a < n:
        done = load[a - 1] if a else 0
        b = max(int(np.searchsorted(load, done + budget, side="right")), a + 1)
        yield a, b
        a = b


def ranges_from_counts(counts):
    """``[0, 1, .., c0 - 1, 0, 1, .., c1 - 1, ...]`` for ``counts = [c0, c1, ...]``."""
    counts = np.asarray(counts, dtype=np.int64)
    return np.arange(int(counts.sum())) - np.repeat(np.cumsum(counts) - counts, counts)


def row_entries(mask):
    """``(flat, rows, count)``: the nonzero entries of a matrix ``mask`` (n, L),
    row-major, as flat indices and rows, and each row's count of them (a
    kernel that reads a few entries of each row, the relevant items, say)."""
    mask = mask if mask.dtype == bool else mask != 0
    count = row_counts(mask)
    return flatnonzero(mask), np.repeat(np.arange(mask.shape[0]), count), count


def whole_row_groups(rc):
    """The :class:`~sk_rankmetrics._ranking.groups.Groups` of a chunk ranked
    with ties over whole rows of its block (every position a real item, or
    the padding after them; ``L`` the width), for a kernel that sums one
    term per tie group; None otherwise (cut by ``max_docs``, no groups)."""
    width = rc.row_width
    if rc.tied and width is not None and rc.L == width:
        return rc.groups
    return None


def inverse_log_sums(L):
    """``F`` of length ``L + 2``: ``F[k]`` the sum of ``1 / log2(2 + i)`` over
    ``i < k`` (binG's terms of ``k`` non-relevant items above)."""
    F = np.zeros(L + 2)
    np.cumsum(1.0 / np.log2(2.0 + np.arange(L + 1.0)), out=F[1:])
    return F


#: Rows of at most this many positions read a tie group's sums over its span
#: of positions off :func:`span_table`'s tables ((L + 1)**2 entries, 1 MiB
#: each at this length); longer rows take the differences in long double,
#: one per group.
SPAN_TABLE_MOST = 361


def span_table_length(L):
    """The length of the span tables that rows of ``L <= SPAN_TABLE_MOST``
    positions read: a power of two from 64, at most :data:`SPAN_TABLE_MOST`.
    A span's sum does not depend on the row's length, so rows of every
    length up to it read one table, made once per process, and a small
    call makes a small one (65**2 entries, against a few milliseconds for
    the largest)."""
    return min(SPAN_TABLE_MOST, max(64, 1 << (max(L, 1) - 1).bit_length()))


def span_table(L, diff):
    """A read-only flat float64 table of ``diff(a, b)`` at ``a * (L + 1) + b``
    for every pair of positions ``0 <= a <= b <= L`` (0 where ``b < a``).

    ``diff`` takes the column of starts ``a`` and the row of ends ``b`` and
    returns, in long double, a sum over the span ``[a, b)`` (a difference of
    running sums, say): made once for the whole table and rounded once, it
    keeps the digits that a float64 difference of running sums loses where
    the span is short and far down the ranking. A kernel summing one term
    per tie group reads its group's ``(start, end)`` entry with one gather,
    where a difference in long double per group costs about 15 ns (and
    the gather 3 ns)."""
    a, b = np.arange(L + 1)[:, None], np.arange(L + 1)
    table = np.where(b >= a, diff(a, b), 0.0).astype(np.float64).reshape(-1)
    table.flags.writeable = False
    return table
