"""Selecting the top of a row without sorting it whole."""

from __future__ import annotations

import numpy as np

from .ideal import _SAMPLE, _count_levels


def select_top(y_score, L):
    """The ``L`` largest scores of each row, unordered, and the largest of the rest.

    Returns ``(top, below)``: the flat indices of shape (n, L) of ``L``
    entries of each row no other entry of the row exceeds, and the largest
    score of the row's other entries. Ties at the boundary are cut in any
    order (the tie statistics read whole groups).

    ``np.argpartition`` costs ten times more when one value fills most of a
    row (the zeros of sparse scores) for types of 16 bits and more. When a
    sample of the block shows such a value ``v``, the rows are selected from
    their entries above ``v``, filled up with entries equal to ``v``; rows
    that would need an entry below ``v`` are partitioned as usual.
    """
    n, N = y_score.shape
    flat = y_score.reshape(-1)
    base = (np.arange(n) * N)[:, None]
    if y_score.dtype.kind in "iu" and y_score.dtype.itemsize > 1:
        picked = _select_by_counts(y_score, L)
        if picked is not None:
            return picked
    v = _dominant(y_score) if y_score.dtype.itemsize > 1 else None
    if v is not None:
        picked = _select_above(y_score, L, v)
        if picked is not None:
            return picked
    idx = np.argpartition(y_score, N - L - 1, axis=1)
    below = np.take(flat, idx[:, N - L - 1] + base[:, 0])
    return idx[:, N - L:] + base, below


#: Integer scores spanning at most this many values are selected by counting.
_MAX_SCORE_SPAN = 1024


def _select_by_counts(y_score, L):
    """:func:`select_top` for integer scores in a small span, or None.

    The scores of each row are counted (one pass, no comparison sort), which
    gives the L-th largest score ``t`` and the largest score left out; one
    comparison then finds the entries >= ``t``, of which all those above
    ``t`` and the first ones equal to it are kept. Unlike ``np.argpartition``
    the cost does not grow with the ties.
    """
    n, N = y_score.shape
    lo, hi = int(y_score.min()), int(y_score.max())
    span = hi - lo + 1
    if span > min(_MAX_SCORE_SPAN, N):
        return None
    dtype = y_score.dtype.type
    if -(2**40) < lo and hi < 2**40:
        counts = _count_levels(y_score, lo, span)
    else:  # wide integers: counted relative to the smallest, in their own type
        counts = _count_levels(y_score - dtype(lo), 0, span)
    counts = counts.reshape(n, span)
    desc = np.cumsum(counts[:, ::-1], axis=1)  # desc[:, u]: entries >= hi - u
    u = np.argmax(desc >= L, axis=1)
    # Scores as offsets from lo, added in the scores' own type (exact).
    t = (span - 1 - u).astype(y_score.dtype) + dtype(lo)  # each row's L-th largest
    below = (span - 1 - np.argmax(desc >= L + 1, axis=1)).astype(y_score.dtype) + dtype(lo)
    r = np.arange(n)
    above = np.where(u > 0, desc[r, np.maximum(u - 1, 0)], 0)
    need = L - above  # entries equal to t taken, first come first
    tt = t
    idx = np.flatnonzero(y_score >= tt[:, None])
    rows = idx // N
    equal = np.take(y_score.reshape(-1), idx) == tt[rows]
    # The rank of each entry equal to t among those of its row.
    seen = np.cumsum(equal)
    per_row = np.bincount(rows, weights=equal, minlength=n).astype(np.intp)
    before = np.cumsum(per_row) - per_row
    keep = ~equal | (seen - 1 - before[rows] < need[rows])
    return idx[keep].reshape(n, L), below


def _dominant(a):
    """A value filling over a quarter of a sample of ``a``'s entries, or None
    (the padding, -inf, never counts)."""
    sample = a.reshape(-1)[:_SAMPLE]
    if sample.shape[0] < 64:
        return None
    values, counts = np.unique(sample, return_counts=True)
    if values[0] == -np.inf:  # the padding of long format: below every item
        values, counts = values[1:], counts[1:]
        if not values.size:
            return None
    i = int(np.argmax(counts))
    return values[i] if counts[i] * 4 > sample.shape[0] else None


def _select_above(y_score, L, v):
    """:func:`select_top` from the entries above ``v`` and those equal to it."""
    n, N = y_score.shape
    above = y_score > v
    A = np.count_nonzero(above, axis=1)
    E = np.count_nonzero(y_score == v, axis=1)
    widest = int(A.max()) if n else 0
    if (A + E <= L).any() or widest * n > y_score.size // 2:
        return None  # a row needs entries below v, or the gathered rows are large
    base = np.arange(n) * N
    top = np.empty((n, L), dtype=np.intp)
    below = np.full(n, v, dtype=y_score.dtype)
    if widest:
        # Each row's entries above v, right-aligned in a padded matrix whose
        # padding sorts first.
        cols = max(widest, L + 1)
        where = np.flatnonzero(above)
        rows = where // N
        within = np.arange(where.shape[0]) - np.repeat(np.cumsum(A) - A, A)
        pos = np.full((n, cols), -1, dtype=np.intp)
        pos[rows, cols - A[rows] + within] = where
        vals = np.full((n, cols), v, dtype=y_score.dtype)
        vals[rows, cols - A[rows] + within] = y_score.reshape(-1)[where]
        order = np.argsort(vals, axis=1)[:, cols - L - 1:]
        pos = np.take_along_axis(pos, order, axis=1)
        # Rows with more than L entries above v: their best L, and the next.
        many = A > L
        top[many] = pos[many, 1:]
        below[many] = np.take(y_score.reshape(-1), pos[many, 0])
        few = ~many
    else:
        few = np.ones(n, dtype=bool)
        pos = None
    rows_few = np.flatnonzero(few)
    if rows_few.size:
        # All their entries above v, then the first entries equal to v.
        need = L - A[rows_few]
        fill = np.empty((rows_few.size, L), dtype=np.intp)
        # v fills most of each row: a prefix of a few times L columns nearly
        # always holds the entries needed; the rows it does not are read whole.
        W = min(N, 8 * L + 64)
        eq = y_score[rows_few, :W] == v
        short = np.count_nonzero(eq, axis=1) < need
        if short.any():
            eq = np.concatenate([eq, np.zeros((eq.shape[0], N - W), dtype=bool)], axis=1)
            eq[short] = y_score[rows_few[short]] == v
        first = np.cumsum(eq, axis=1, dtype=np.int32) <= need[:, None]
        first &= eq
        r, c = np.nonzero(first)
        within = np.arange(r.shape[0]) - np.repeat(np.cumsum(need) - need, need)
        fill[r, within] = base[rows_few][r] + c
        if pos is not None:
            # Their entries above v sort last, the padding (-1) first: the
            # padding's columns are those the entries equal to v fill.
            got = pos[rows_few, 1:]
            fill = np.where(got >= 0, got, fill)
        top[rows_few] = fill
    return top, below
