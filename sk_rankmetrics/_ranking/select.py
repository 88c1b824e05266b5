"""Selecting the top of a row without sorting it whole."""

from __future__ import annotations

import numpy as np

from .._utils.by_row import by_row
from .._utils.fast import cumsum_down, row_counts, row_min
from .._utils.nonzero import flatnonzero, nonzero_2d
from .ideal import _count_levels


def select_top(y_score, L, later=False, check=None):
    """The ``L`` largest scores of each row, unordered, and the largest of the rest.

    Returns ``(top, below, rest)``: the flat indices of shape (n, L) of ``L``
    entries of each row no other entry of the row exceeds; the largest score
    of the row's other entries; and the flat indices, in increasing order,
    of the entries left out that tie with the row's L-th largest (the rest
    of a tie group the cut splits), or None when not gathered (the rows must
    then be read for them). Ties at the boundary are cut in any order (the
    tie statistics read whole groups), or with ``later`` in the order
    ``ignore_ties=True`` ranks them: of the entries equal to the row's L-th
    largest, the last columns are kept (so the top is a prefix of the row
    ranked by score, then column, both descending).

    Integer scores in a small span are counted per row
    (:func:`_select_by_counts`). NumPy's partition costs ten times more when
    one value fills most of a row (the zeros of sparse scores) for types of
    16 bits and more: when a sample of the block shows such a value ``v``,
    the rows are selected from their entries above ``v``, filled up with
    entries equal to ``v``. Float rows at least ``32 (L + 1)`` long are
    selected from a threshold read off a sample of their columns
    (:func:`_select_sampled`: a partition of an eighth of the row and of
    its few candidates). Other rows are partitioned by value. ``check``
    (the scores' :class:`~.._utils.arrays.ScoreCheck`, if given) is made
    from the partition.
    """
    if y_score.dtype.kind in "iu" and y_score.dtype.itemsize > 1:
        picked = _select_by_counts(y_score, L, later)
        if picked is not None:
            return picked
    v = _dominant(y_score) if y_score.dtype.itemsize > 1 else None
    if v is not None:
        picked = _select_above(y_score, L, v, later)
        if picked is not None:
            return picked
    picked = _select_sampled(y_score, L, later, check)
    if picked is not None:
        return picked
    return _select_partitioned(y_score, L, later, check)


def later_first(top, scores):
    """The flat indices ``top`` of shape (n, L) (rows of entries of one
    matrix, each row's taken from its own row) ordered as ``ignore_ties=True``
    ranks them: by score descending, then by column descending; and their
    scores in that order.

    ``scores[i, j]`` is the score of entry ``top[i, j]``. A stable sort of
    the scores, with each row's entries in increasing column order first,
    then reversed: the same order on every platform (NumPy's default sort
    is not stable, not even on short rows).
    """
    if top.shape[1] > 1 and (top[:, 1:] < top[:, :-1]).any():
        by_column = np.argsort(top, axis=1)  # distinct indices: any sort is exact
        top = np.take_along_axis(top, by_column, axis=1)
        scores = np.take_along_axis(scores, by_column, axis=1)
    order = np.argsort(scores, axis=1, kind="stable")[:, ::-1]
    return np.take_along_axis(top, order, axis=1), np.take_along_axis(scores, order, axis=1)


def _select_partitioned(y_score, L, later=False, check=None):
    """:func:`select_top` by partitioning the values alone (moving no indices:
    about three times faster than ``np.argpartition``), which gives each
    row's L-th largest score and the largest of the rest; one comparison
    then finds the entries. ``check``: the scores' ScoreCheck, made from
    each row's top ``L`` and the block's minimum."""
    N = y_score.shape[1]
    part = np.partition(y_score, N - L - 1, axis=1)
    if check is not None:
        check.by_top(part[:, N - L:], y_score)
    below = part[:, N - L - 1].copy()
    top, rest = _entries_from(y_score, L, row_min(part[:, N - L:]), later)
    return top, below, rest


def _entries_from(y_score, L, t, later=False, idx=None):
    """``(top, rest)``: the flat indices of shape (n, L) of the entries of each
    row above its L-th largest score ``t``, filled up with the first entries
    equal to it (with ``later``, the last ones); and those of the entries
    equal to ``t`` left out, in increasing order (the rest of the tie group
    the cut splits). The indices of each row of ``top`` increase. ``idx``:
    the flat indices of the entries >= ``t``, increasing, when found already."""
    n, N = y_score.shape
    if idx is None:
        idx = flatnonzero(by_row(np.greater_equal, y_score, t))
    if idx.shape[0] == n * L:  # no row ties across its boundary
        return idx.reshape(n, L), idx[:0]
    rows = idx // N
    equal = np.take(y_score.reshape(-1), idx) == t[rows]
    # Each row keeps its entries above t and, of those equal to t, as many as
    # L less the former, first come first: an entry equal to t is kept while
    # the running count of such entries stays within the row's limit (with
    # ``later``, last come first: once the count has passed the row's
    # entries equal to t that are left out).
    ends = np.searchsorted(rows, np.arange(1, n + 1))  # each row's end in idx
    seen = np.cumsum(equal)
    upto = seen[ends - 1]  # entries equal to t up to each row's end
    size = ends - np.concatenate(([0], ends[:-1]))  # each row's entries >= t
    if later:
        # Left out: the row's entries >= t less L, after those of the rows before.
        before = np.concatenate(([0], upto[:-1]))
        keep = seen > (before + size - L)[rows]
    else:
        # The limit: those of the rows before, plus L less the row's entries above t.
        keep = seen <= (upto - size + L)[rows]
    keep |= ~equal
    return idx[keep].reshape(n, L), idx[~keep]


#: The widest step between the columns :func:`_select_sampled` samples on
#: rows shorter than :data:`_WIDE_ROW`, and the narrowest: the step is the
#: widest whose expected candidates, ``(L + 1) * step``, stay within one
#: entry in :data:`_CANDIDATES_FROM` of the row, every 2nd column at the
#: narrowest. Sampling pays where every 4th column's candidates stay within
#: an eighth of the row (:data:`_SAMPLE_MIN_STEP`). (Measured on one thread,
#: blocks of 500,000 float64 entries, L = 10, against the partition: rows
#: of 1,000 at steps 4, 8 and 16 take 0.38x, 0.45x and 0.80x its time;
#: rows of 200 at step 4, 1.4x; rows of 5,000 at step 8, 0.28x. Since the
#: sparse masks are read eight bytes at a time (_utils/nonzero.py), fewer
#: candidates pay for a larger sample: ndcg@k of 5,000,000 entries against
#: the step an eighth of the row allowed, 0.79-0.98x over rows of 150 to
#: 10,000 and k of 1 to 100, 0.85x for k = 10 on rows of 1,000; every 2nd
#: column where no step of 4 was allowed, 1.14-1.34x.) Rows of
#: :data:`_WIDE_ROW` entries or more sample every 64th, down to every 4th
#: within an eighth of the row (nDCG@10 on rows of 65,536 and 100,000:
#: 0.80-0.89x the time of every 8th; on rows of 20,000, 0.96x, and of 5,000
#: at every 32nd, 1.16-1.26x).
_SAMPLE_STEP = 8
_WIDE_SAMPLE_STEP = 64
_WIDE_ROW = 1 << 15
_SAMPLE_MIN_STEP = 4
_SAMPLE_FINEST = 2
_CANDIDATES_FROM = 25


def _sample_step(N, L):
    """The step between the columns :func:`_select_sampled` samples on rows of
    ``N`` to find their ``L`` largest, or 0 where sampling does not pay
    (rows shorter than ``8 * (L + 1)`` times the narrowest step of 4)."""
    if N >= _WIDE_ROW:
        step = _WIDE_SAMPLE_STEP
        while step >= _SAMPLE_MIN_STEP and 8 * (L + 1) * step > N:
            step //= 2
        return step if step >= _SAMPLE_MIN_STEP else 0
    if 8 * (L + 1) * _SAMPLE_MIN_STEP > N:
        return 0
    step = _SAMPLE_STEP
    while step > _SAMPLE_FINEST and _CANDIDATES_FROM * (L + 1) * step > N:
        step //= 2
    return step


def _select_sampled(y_score, L, later=False, check=None):
    """:func:`select_top` of float scores on rows many times longer than
    ``L``, from a threshold, or None.

    Each row's ``(L + 1)``-th largest of every ``step``-th column is a
    threshold at least ``L + 1`` of the row's entries reach (on rows in
    random order, about ``(L + 1) * step`` of them): one comparison finds
    those candidates, and a partition of each row's candidates alone gives
    its L-th largest score ``t`` and the largest of the rest. Every entry
    ``>= t`` is a candidate. The candidates are laid out in a matrix as
    wide as the most any row holds, the cells left over holding values
    below every threshold, all distinct (:func:`_filling`: NumPy's
    partition slows tenfold over a row of one repeated value).

    None where a threshold is not a finite number above the filling (a NaN
    or an infinity in the sample: the rows partitioned whole show it to
    ``check``), where a row has too few candidates (a NaN is none), or too
    many (ties at the thresholds, rows in an order the sample misreads).
    A NaN elsewhere shows in the block's minimum (``check``)."""
    n, N = y_score.shape
    step = _sample_step(N, L)
    if not step or y_score.dtype not in (np.float32, np.float64) or not n:
        return None
    sample = y_score[:, ::step]
    m = sample.shape[1]
    thr = np.partition(sample, m - L - 1, axis=1)[:, m - L - 1]
    if not ((thr > _filling(y_score.dtype, 0)[0]) & (thr < np.inf)).all():
        return None
    idx = flatnonzero(by_row(np.greater_equal, y_score, thr))
    if idx.shape[0] * 4 > y_score.size:
        return None
    rows = idx // N
    count = np.bincount(rows, minlength=n)
    C = int(count.max())
    if C * n * 2 > y_score.size or int(count.min()) <= L or C > _FILLING_MAX:
        return None
    cand = np.empty((n, C), dtype=y_score.dtype)
    cand[:] = _filling(y_score.dtype, C - 1)
    values = np.take(y_score.reshape(-1), idx)
    at = np.arange(idx.shape[0])
    at += np.repeat(np.arange(n) * C - (np.cumsum(count) - count), count)
    cand.reshape(-1)[at] = values
    part = np.partition(cand, C - L - 1, axis=1)
    if check is not None:
        check.by_top(part[:, C - L:], y_score)
    below = part[:, C - L - 1].copy()
    t = row_min(part[:, C - L:])
    top, rest = _entries_from(y_score, L, t, later, idx=idx[values >= t[rows]])
    return top, below, rest


#: The most cells of a row of candidates :func:`_filling` fills (its values
#: stay finite and distinct in float32 up to there).
_FILLING_MAX = 1 << 21


def _filling(dtype, N):
    """``-b * (1 + j * 2**-20)`` for j = 0..N, ``b`` a quarter of the type's
    largest value: distinct (each step is 2**-20 of ``b``, above float32's
    rounding), decreasing, and finite for N up to :data:`_FILLING_MAX`."""
    big = np.finfo(dtype).max / 4
    return (-big * (1.0 + np.arange(N + 1, dtype=dtype) * dtype.type(2.0**-20))).astype(dtype)


#: Integer scores spanning at most this many values are selected by counting.
_MAX_SCORE_SPAN = 1024


def _select_by_counts(y_score, L, later=False):
    """:func:`select_top` for integer scores in a small span, or None.

    The scores of each row are counted (:func:`score_counts`: one pass, no
    comparison sort), which gives the L-th largest score ``t`` and the
    largest score left out; one comparison then finds the entries >= ``t``,
    of which all those above ``t`` and the first ones equal to it are kept.
    Unlike a partition the cost does not grow with the ties.
    """
    counted = score_counts(y_score, L)
    if counted is None:
        return None
    top, rest = _entries_from(y_score, L, counted.t, later)
    return top, counted.below, rest


#: Rows of a block whose top tie group is looked at before the whole block is.
_TOP_SAMPLE_ROWS = 16


def top_tie_groups(y_score, L):
    """``(idx, size)`` when every row's ``L`` best entries tie with its best
    (integer scores whose top value a row holds at least ``L`` times), else
    None: the flat indices, row-major, of each row's entries equal to its
    largest score (those ranked first, in one tie group), and how many each
    row holds. One reduction and one comparison find them; no score is
    counted or sorted. A sample of the first rows says first whether the
    block is worth the passes."""
    n, N = y_score.shape
    if not 0 < L < N or not n:
        return None
    head = y_score[:_TOP_SAMPLE_ROWS]
    if (row_counts(head == head.max(axis=1)[:, None]) < L).any():
        return None
    equal = y_score == y_score.max(axis=1)[:, None]
    size = row_counts(equal)
    if (size < L).any():
        return None
    return flatnonzero(equal), size


class ScoreCounts:
    """Each row's count of each score, for integer scores in a small span.

    Attributes
    ----------
    hi : scalar of the scores' type
        The block's largest score.
    counts : ndarray of shape (span, n)
        ``counts[u, r]``: the entries of row ``r`` scoring ``hi - u`` (the
        best score first).
    ends : ndarray of shape (span, n)
        ``ends[u, r]``: the entries of row ``r`` scoring at least ``hi - u``.
    t, below : ndarray of shape (n,), the scores' type
        Each row's L-th largest score and the largest score of the rest.
    """

    def __init__(self, hi, counts, ends, t, below):
        self.hi, self.counts, self.ends, self.t, self.below = hi, counts, ends, t, below


def score_span(y_score):
    """``(lo, hi)``, the smallest and largest of integer scores spanning at
    most ``min(_MAX_SCORE_SPAN, N)`` values (which :func:`score_counts`
    counts), or None."""
    N = y_score.shape[1]
    if y_score.dtype.kind not in "iu" or y_score.dtype.itemsize < 2:
        return None
    lo, hi = int(y_score.min()), int(y_score.max())
    if hi - lo + 1 > min(_MAX_SCORE_SPAN, N):
        return None
    return lo, hi


def group_keys(y_score, hi, span):
    """Each entry's group number (flat intp): its row's scores, the best
    first, ``row * span + hi - score``. The difference is below the span, so
    taken in intp (modulo 2**64 for 64-bit scores) it is exact, and no
    second array of the block is made."""
    n = y_score.shape[0]
    key = np.subtract(hi, y_score, dtype=np.intp)
    key += (np.arange(n, dtype=np.intp) * span)[:, None]
    return key.reshape(-1)


def level_group_keys(y_score, hi, width, codes, n_levels):
    """Each entry's (row, score, level) cell (flat intp): ``(row * width +
    hi - score) * n_levels + code``, of integer scores from ``hi`` down
    ``width`` values and each entry's level code ``codes`` (below
    ``n_levels``).

    The cell within its row, below ``width * n_levels``, is made first in
    the narrowest unsigned type that holds it: the scores cast to it and
    every step taken modulo its size, which the cell's true value is below,
    so the result is exact (a byte each where it fits: 256 cells a row).
    The rows' offsets are then added into intp in one pass: two passes over
    a block of intp fewer than made in intp throughout (ten scores and five
    levels over 100,000 rows of 100: 0.86 of the time, the count included).
    """
    inner = width * n_levels
    small = np.uint8 if inner <= 1 << 8 else np.uint16 if inner <= 1 << 16 else None
    if small is None:
        key = group_keys(y_score, hi, width)
        key *= n_levels
        key += codes.reshape(-1)
        return key
    mask = (1 << 8 * np.dtype(small).itemsize) - 1
    cell = np.subtract(small(int(hi) & mask), y_score, dtype=small, casting="unsafe")
    cell *= small(n_levels & mask)  # (256 levels of one score: 0, as every cell)
    np.add(cell, codes.reshape(cell.shape), out=cell, casting="unsafe")
    key = np.empty(cell.shape, dtype=np.intp)
    np.add(cell, (np.arange(cell.shape[0], dtype=np.intp) * inner)[:, None], out=key)
    return key.reshape(-1)


def score_counts(y_score, L, span=None, counts=None):
    """The :class:`ScoreCounts` of integer scores spanning at most
    ``min(_MAX_SCORE_SPAN, N)`` values, or None. ``span``: their
    :func:`score_span`, when known; ``counts``: each row's count of each
    score, the best first (shape (span, n)), when counted already."""
    span = score_span(y_score) if span is None else span
    if span is None:
        return None
    lo, hi = span
    dtype = y_score.dtype.type
    if counts is None:
        if -(2**40) < lo and hi < 2**40:
            counts = _count_levels(y_score, lo, hi - lo + 1, by_level=True)
        else:  # wide integers: counted relative to the smallest, in their own type
            counts = _count_levels(y_score - dtype(lo), 0, hi - lo + 1, by_level=True)
        counts = counts[::-1]  # the best score first
    # ends[u]: each row's entries >= hi - u (nondecreasing in u), so the first
    # u where it reaches L is the number of u where it does not.
    ends = cumsum_down(counts)
    u = np.count_nonzero(ends < L, axis=0)
    # Scores as offsets from hi, subtracted in the scores' own type (exact).
    t = dtype(hi) - u.astype(y_score.dtype)  # each row's L-th largest
    below = dtype(hi) - np.count_nonzero(ends < L + 1, axis=0).astype(y_score.dtype)
    return ScoreCounts(dtype(hi), counts, ends, t, below)


#: Entries of a block's sample for :func:`_dominant` (a value filling a quarter
#: of the rows shows in a few thousand entries; a larger sample costs its sort).
_DOMINANT_SAMPLE = 1 << 11


def _dominant(a):
    """A value filling over a quarter of a sample of ``a``'s entries, or None
    (the padding, -inf, never counts)."""
    sample = a.reshape(-1)[:_DOMINANT_SAMPLE]
    if sample.shape[0] < 64:
        return None
    values, counts = np.unique(sample, return_counts=True)
    if values[0] == -np.inf:  # the padding of long format: below every item
        values, counts = values[1:], counts[1:]
        if not values.size:
            return None
    i = int(np.argmax(counts))
    return values[i] if counts[i] * 4 > sample.shape[0] else None


def _select_above(y_score, L, v, later=False):
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
        where = flatnonzero(above)
        rows = where // N
        within = np.arange(where.shape[0]) - np.repeat(np.cumsum(A) - A, A)
        pos = np.full((n, cols), -1, dtype=np.intp)
        pos[rows, cols - A[rows] + within] = where
        vals = np.full((n, cols), v, dtype=y_score.dtype)
        vals[rows, cols - A[rows] + within] = y_score.reshape(-1)[where]
        # Each row's entries in increasing column: a stable sort keeps the
        # later columns of a tie at the top (``later``).
        order = np.argsort(vals, axis=1, kind="stable" if later else None)[:, cols - L - 1:]
        pos = np.take_along_axis(pos, order, axis=1)
        # Rows with more than L entries above v: their best L, and the next.
        many = A > L
        top[many] = pos[many, 1:]
        below[many] = np.take(y_score.reshape(-1), pos[many, 0])
        few = ~many
    else:
        few = np.ones(n, dtype=bool)
        pos = None
    rows_few = flatnonzero(few)
    if rows_few.size:
        # All their entries above v, then the first entries equal to v (with
        # ``later``, the last ones).
        need = L - A[rows_few]
        fill = np.empty((rows_few.size, L), dtype=np.intp)
        # v fills most of each row: a prefix (a suffix) of a few times L
        # columns nearly always holds the entries needed; the rows it does
        # not are read whole.
        W = min(N, 8 * L + 64)
        off = N - W if later else 0
        eq = y_score[rows_few, off:off + W] == v
        short = np.count_nonzero(eq, axis=1) < need
        if short.any():
            pad = np.zeros((eq.shape[0], N - W), dtype=bool)
            eq = np.concatenate([pad, eq] if later else [eq, pad], axis=1)
            eq[short] = y_score[rows_few[short]] == v
            off = 0
        if later:  # counted from the row's end
            first = np.cumsum(eq[:, ::-1], axis=1, dtype=np.int32)[:, ::-1] <= need[:, None]
        else:
            first = np.cumsum(eq, axis=1, dtype=np.int32) <= need[:, None]
        first &= eq
        r, c = nonzero_2d(first)
        c += off
        within = np.arange(r.shape[0]) - np.repeat(np.cumsum(need) - need, need)
        fill[r, within] = base[rows_few][r] + c
        if pos is not None:
            # Their entries above v sort last, the padding (-1) first: the
            # padding's columns are those the entries equal to v fill.
            got = pos[rows_few, 1:]
            fill = np.where(got >= 0, got, fill)
        top[rows_few] = fill
    return top, below, None
