"""The ideal ordering of each row: its gains sorted, as levels with counts."""

from __future__ import annotations

import functools

import numpy as np

from .._utils import fast
from .._utils.errors import InvalidParameterError
from .._utils.fast import cumsum_down, row_counts, row_cumsum, running_in_rows, sum_along
from .._utils.nonzero import flatnonzero, nonzero_2d
from .item_values import Extremes, looks_dense


def ideal_gains(yt, gain, full_gain, width, worthless=None, extremes=None, counted=None,
                levels=True, nonzero=None):
    """The ``width`` largest gains of each row, in increasing order (best last).

    ``full_gain()`` gives the gains of the whole block when they cannot be
    read off the relevance levels (masked entries, a non-monotone gain).
    Levels that fill the rows are read off the highest ones
    (:func:`_top_levels`, unless ``levels`` is False); integer levels in a
    small span are counted per row (:func:`ideal_levels`; ``counted`` passes the
    block's levels when they are already counted); real-valued levels of
    which the nonzero entries are known (``nonzero``, a
    :class:`~.item_values.NonzeroEntries`), none negative, are sorted from
    those alone; any other input goes through :func:`top_values`, whose cost
    does not depend on how the values are distributed.
    """
    N = yt.shape[1]
    # A monotone gain lets relevance be partitioned and only the top k
    # transformed; masked entries (gain 0, any relevance) need the gains.
    by_level = gain.monotone and worthless is None
    if by_level and width < N:
        top = _top_levels(yt, gain, extremes, width) if counted is None and levels else None
        if top is not None:
            return top
        if (counted is None and nonzero is not None and extremes is not None
                and extremes.a is yt and extremes.min() >= 0):
            # The top of each row among its nonzero entries, the rest zeros:
            # top_values' passes (the positive entries, the minimum) spared.
            P = np.bincount(nonzero.flat // N, minlength=yt.shape[0])
            top = _top_of_entries(nonzero.values, P, width)
            return np.asarray(gain(top), dtype=np.float64)
        if counted is None:
            counted = _counted(yt, gain, extremes)
        if counted is not None and counted.complete:
            # Every gain of the row is >= 0 and the positive ones are in the
            # levels: the rest of the top ``width`` are zeros.
            return counted.top(width)[:, ::-1]
    base = yt if by_level else full_gain()
    top = top_values(base, width)
    return np.asarray(gain(top), dtype=np.float64) if by_level else top


def _grid_gains(gain, levels):
    """The gains of ``levels`` (float64), or None when a gain mapping does not
    name one of them: levels between those of the data need not be named."""
    if gain.name == "mapping":
        try:
            return np.asarray(gain(np.asarray(levels, dtype=np.float64)), dtype=np.float64)
        except InvalidParameterError:
            return None
    return np.asarray(gain(np.asarray(levels, dtype=np.float64)), dtype=np.float64)


#: Integer levels of positive gain read one at a time (a comparison and a
#: count per row for each) when there are at most this many.
_LEVEL_PASSES = 8


def _top_levels(yt, gain, extremes, width, passes=2):
    """:func:`ideal_gains` read off the highest levels, or None.

    The top ``width`` gains of a row are known from its counts of the levels
    of positive gain, highest first: one comparison and count per level
    instead of counting or sorting every entry. Integer levels whose levels
    of positive gain are few (at most ``_LEVEL_PASSES``, the rest worth 0:
    binary and graded relevance) are all read. Otherwise the highest level
    (and, for integer levels, the ``passes - 1`` next ones) is read where a
    sample of the block shows it common enough to fill most rows (dense
    graded relevance; real-valued levels may lie between two integers, so
    only their highest is read). Rows still short go the general way.
    """
    N = yt.shape[1]
    if yt.dtype.kind == "b":
        yt = yt.view(np.uint8)
        extremes = None
    if not gain.monotone or yt.dtype.kind not in "iuf" or not yt.size:
        return None
    ex = extremes if extremes is not None and extremes.a is yt else Extremes(yt)
    hi = ex.max()
    if not -(2**52) < float(hi) < 2**52:
        return None  # levels compared as float64 below must be exact
    small, one_byte, unverified = _byte_route(yt, ex, hi)
    chosen = _levels_to_read(yt, ex, hi, gain, one_byte, passes)
    if chosen is None:
        return None
    levels, rest_zero, lo = chosen
    if not rest_zero:
        # Worth trying when the levels read hold about twice the top ``width`` of an
        # average row (the highest alone can fall short where the next fill in).
        sample = yt.reshape(-1)[:_SAMPLE]
        read = np.count_nonzero(sample >= levels[-1])
        if read * N < 2 * width * sample.shape[0]:
            return None
    g = _grid_gains(gain, levels)
    if g is None:
        return None
    if one_byte and rest_zero and levels.shape[0] > 1 and yt.dtype.kind == "f":
        # Floats gathered where few entries hold a level; integers cut to one byte and
        # counted below, cheaper even when few do (500 x 1,000 int64, 5 % graded: 0.68/1.20 ms).
        sample = yt.reshape(-1)[:_SAMPLE]
        if np.count_nonzero(sample > levels[-1] - 1) * _SPARSE_LEVELS <= sample.shape[0]:
            top = _sparse_levels(yt, levels, g, width, unverified)
            if top is not None:
                if unverified and levels[-1] - 1 <= lo:
                    # Every entry above the lowest was read and found whole
                    # (entries between it and the levels of gain 0 were not).
                    ex.integral = True
                return top
    if one_byte and small is None:
        small = yt.astype(np.int8)
    if unverified:
        if not np.array_equal(small, yt):
            ex.integral = False
            return None  # real-valued levels: the general way
        ex.integral = True
    if small is not None and rest_zero:
        yt = small
    return _gains_from_counts(yt, gain, levels, g, width, rest_zero)


def _byte_route(yt, ex, hi):
    """``(small, one_byte, unverified)``: whether the levels are compared as
    one-byte integers, the block already in one byte (else None), and whether
    float levels are still to be checked whole.

    Levels within -128..127 are compared as one-byte integers (an eighth of
    the memory a pass reads), cut when a route needs them (the sparse one
    reads the block as it is); for floats the copy tells whether they hold
    integers."""
    small, one_byte, unverified = None, False, False
    sample = yt.reshape(-1)[:_SAMPLE]
    if yt.dtype.kind == "f" and not np.array_equal(sample, np.floor(sample)):
        ex.integral = False  # a sample of real-valued levels says it already
    if (yt.dtype.itemsize > 1 and -128 <= float(ex.min()) and float(hi) <= 127
            and (yt.dtype.kind != "f" or ex.integral_known is not False)):
        one_byte = True
        if yt.dtype.kind == "f":
            if float(ex.min()) % 1 or float(hi) % 1:
                one_byte = False
                ex.integral = False
            elif not ex.integral_known:
                # Whether the floats are whole is checked where the route
                # needs it (the sparse one reads only the entries it counts).
                unverified = True
    elif yt.dtype.itemsize == 1 and float(hi) <= 127:  # one byte already
        small, one_byte = yt.view(np.int8), True
    return small, one_byte, unverified


def _levels_to_read(yt, ex, hi, gain, one_byte, passes):
    """``(levels, rest_zero, lo)``, or None: the levels to count, highest
    first, whether every level below them has gain 0, and the lowest level
    (None for real-valued levels, of which only the highest is read)."""
    if yt.dtype.kind == "f" and not one_byte and not ex.integral:
        return np.array([hi], dtype=np.float64), False, None
    # Integer levels (of an integer type, or floats holding integers).
    lo, hi = int(ex.min()), int(hi)
    if lo <= -(2**52):
        return None
    low = max(lo, hi - _LEVEL_PASSES)
    candidates = np.arange(hi, low - 1, -1, dtype=np.float64)
    g = _grid_gains(gain, candidates)
    g_lo = _grid_gains(gain, [lo])
    positive = 0 if g is None else int(np.count_nonzero(g > 0))
    if (positive and g_lo is not None and g_lo[0] >= 0
            and (positive < candidates.shape[0] or low == lo)):
        # Every level of positive gain is among the candidates, and the
        # levels below them are worth 0 (monotone, >= 0 at the lowest).
        return candidates[:positive], True, lo
    levels = np.arange(hi, max(lo, hi - passes + 1) - 1, -1, dtype=np.float64)
    ends = _grid_gains(gain, [lo, hi - 1] if hi > lo else [lo])
    rest_zero = ends is not None and ends[0] >= 0 and (hi == lo or ends[-1] <= 0)
    return levels, rest_zero, lo


def _gains_from_counts(yt, gain, levels, g, width, rest_zero):
    """The top ``width`` gains of each row (lowest first) from the counts of
    ``levels`` (gains ``g``), rows still short the general way."""
    n = yt.shape[0]
    # Per level read, the positions each row has filled down to (capped at
    # ``width``); rows that filled up at a higher level are not read again.
    filled = np.zeros(n, dtype=np.intp)
    reached = []
    rows = np.arange(n)
    as_level = yt.dtype.type if yt.dtype.kind in "iu" else float
    for level, value in zip(levels.tolist(), g.tolist()):
        if value <= 0 or not rows.size:
            break
        if rows.size * 4 > n:  # most rows: all are read (a copy costs more)
            filled = np.minimum(filled + row_counts(yt == as_level(level)), width)
        else:
            filled[rows] = np.minimum(filled[rows] + row_counts(yt[rows] == as_level(level)),
                                      width)
        reached.append((value, filled.copy()))
        rows = rows[filled[rows] < width]
    if rest_zero:
        rows = rows[:0]  # every level of positive gain read: the rest is worth 0
    out = gains_by_reach([v for v, _ in reached], [u for _, u in reached], width, n)
    if rows.size:
        # The rows still short, the general way (no sample decides there).
        out[rows] = ideal_gains(yt[rows], gain, None, width, levels=False)[:, ::-1]
    return out[:, ::-1]


#: Integer levels are counted from their entries alone (one pass, then work
#: on those entries) when at most one entry in this many holds a level read.
_SPARSE_LEVELS = 8


def _sparse_levels(yt, levels, g, width, unverified=False):
    """:func:`_top_levels` of floats holding integer levels that few entries
    hold, or None.

    ``levels`` are consecutive integers within -128..127, highest first, the
    levels below them worth 0. The entries above the level under the lowest
    read are found in one pass over ``yt`` as it is (no one-byte copy, which
    would have to be checked whole entry by entry) and their counts per
    (level, row) taken with one ``bincount``, where a comparison and a count
    per level would each read the whole block.

    ``unverified``: ``yt`` holds floats not yet known to be whole. Entries at
    or below the level under the lowest read are worth 0 whatever they hold
    (a monotone gain, 0 at both ends of that span), so it suffices that the
    entries found are whole; otherwise None.
    """
    n, N = yt.shape
    keep = int(np.count_nonzero(np.asarray(g) > 0))  # monotone: a prefix
    levels, g = levels[:keep], g[:keep]
    m = levels.shape[0]
    idx = flatnonzero(yt > float(levels[-1]) - 1.0)
    found = yt.reshape(-1)[idx]
    if unverified and not np.array_equal(found, np.floor(found)):
        return None
    code = int(levels[0]) - found.astype(np.intp)  # 0 = the highest
    counts = np.bincount(code * n + idx // N, minlength=m * n).reshape(m, n)
    reach = np.minimum(cumsum_down(counts), width)
    return gains_by_reach(list(g), list(reach), width, n)[:, ::-1]


def gains_by_reach(gains, reach, width, n):
    """The best ``width`` gains of each row, best first, from levels of
    decreasing gain: ``reach[u]`` (shape (n,), nondecreasing in ``u``) is
    where each row's positions of the levels up to ``gains[u]`` end; 0 past
    the last level. Position j holds the first level whose positions reach
    past j: its index is the number of levels that stop at or before j.
    ``n`` is the number of rows.

    That count is a running sum along the row of marks, one where each level
    stops (a write per row and level, not a comparison per position and
    level); the gains are then read at those indices.
    """
    marks = np.zeros((n, width + 1), dtype=np.uint8 if len(gains) < 255 else np.intp)
    flat = marks.reshape(-1)
    base = np.arange(0, n * (width + 1), width + 1)
    for upto in reach:  # one row at most once per level: no index repeats
        flat[base + np.minimum(upto, width)] += 1
    code = np.empty((n, width), dtype=marks.dtype)
    row_cumsum(marks[:, :width], out=code)
    # Indexing, not np.take: np.take casts one-byte indices to intp through a
    # buffer, six times slower here.
    return np.append(np.asarray(gains, dtype=np.float64), 0.0)[code]


#: A sample of this many entries tells whether a dense block repeats values.
_SAMPLE = 1 << 14


def top_values(a, width):
    """The ``width`` largest entries of each row of ``a``, in increasing order.

    NumPy's selection (``np.partition``) is fast on distinct values but
    degrades by an order of magnitude on rows where one value dominates
    (the zeros of sparse relevance) for types of 16 bits and more, while its
    sort does not. So: one-byte types are partitioned; rows that are mostly
    non-positive have their positive entries gathered and sorted; a block
    that repeats its values is sorted; distinct values are partitioned.
    """
    n, N = a.shape
    if width >= N:
        return np.sort(a, axis=1)
    if a.dtype.kind == "b":
        a = a.view(np.uint8)
    if a.dtype.itemsize == 1:
        return np.sort(np.partition(a, N - width, axis=1)[:, N - width:], axis=1)
    pos = a > 0
    P = row_counts(pos)
    total = int(P.sum())
    if total <= a.size // 4 and n:
        widest = int(P.max())
        if widest * n <= a.size // 2:
            top = _top_positive(a, pos, P, width, widest)
            if top is not None:
                return top
    sample = a.reshape(-1)[: _SAMPLE]
    if np.unique(sample).shape[0] * 4 < sample.shape[0]:
        return np.sort(a, axis=1)[:, N - width:]
    return np.sort(np.partition(a, N - width, axis=1)[:, N - width:], axis=1)


def _top_positive(a, pos, P, width, widest):
    """:func:`top_values` from the positive entries of each row, or None when
    a row with fewer than ``width`` of them has a negative entry."""
    short = P < width
    # (The block's minimum first: it spares copying the short rows, most rows
    # of sparse relevance, when nothing is negative.)
    if short.any() and a.min() < 0 and bool((a[short] < 0).any()):
        return None
    # Row-major: each row's positive entries together.
    return _top_of_entries(np.take(a.reshape(-1), flatnonzero(pos)), P, width, widest)


def _top_of_entries(vals, P, width, widest=None):
    """The ``width`` largest of each row's entries ``vals`` (row-major,
    ``P[r]`` of row ``r``, at most ``widest`` a row, all positive) and its
    zeros, in increasing order."""
    if widest is None:
        widest = int(P.max()) if P.size else 0
    cols = max(widest, width)
    return _sorted_right_aligned(vals, P, cols)[:, cols - width:]


def _sorted_right_aligned(vals, P, cols):
    """Each row's entries ``vals`` (row-major, ``P[r]`` of row ``r``) in a row
    of ``cols`` zeros, right-aligned, each row sorted (increasing: zeros,
    the rows' other entries, first when ``vals`` are positive)."""
    n = P.shape[0]
    pad = np.zeros(n * cols, dtype=vals.dtype)
    # Entry i of row r goes to i + (r + 1) * cols - (entries up to the end of row r).
    shift = np.arange(1, n + 1) * cols - np.cumsum(P)
    pad[np.arange(vals.shape[0]) + np.repeat(shift, P)] = vals
    pad = pad.reshape(n, cols)
    pad.sort(axis=1)
    return pad


def _running_discounts(width):
    """``D[p]``, ``p <= width``: the sum of ``1 / log2(i + 1)`` over ``i = 1..p``."""
    D = np.zeros(width + 1)
    np.cumsum(1.0 / np.log2(np.arange(2.0, width + 2.0)), out=D[1:])
    return D


class IdealLevels:
    """A row's ideal ordering (best first) as levels of equal positive gain.

    trec_eval's measures over the whole ideal (G, ndcg_rel, Rndcg) read it
    only through these levels: where each ends, its DCG, and the counts.

    Attributes
    ----------
    rows, end, gain, idcg : ndarray of shape (n_levels,)
        Row-major, the best level of a row first: the row, the 1-based
        position where the level ends, its gain, and the log2-discounted DCG
        of the ideal down to ``end``.
    P, total, full_idcg : ndarray of shape (n_rows,)
        Per row: the items of positive gain, their summed gain and their DCG.
    """

    def __init__(self, rows, end, gain, n_rows):
        first = np.ones(rows.shape[0], dtype=bool)
        first[1:] = rows[1:] != rows[:-1]
        self._first = first
        self.n_rows = n_rows
        self.rows, self.end, self.gain = rows, end, gain
        self.begin = np.where(first, 0, np.concatenate(([0], end[:-1])))
        self._top = None
        #: Whether no item of the rows has a negative gain, so that the
        #: positions past the levels hold gain 0 (set by the constructors).
        self.complete = False

    # Statistics of the whole ideal (G, ndcg_rel, Rndcg); a cut-off's reads only :meth:`top`.
    @functools.cached_property
    def one_each(self):
        """Whether every level is one position (real-valued gains: each positive
        item a level of its own)."""
        return bool(np.all(self.end - self.begin == 1))

    @functools.cached_property
    def _part(self):
        D = _running_discounts(int(self.end.max()) if self.end.size else 0)
        return self.gain * (D[self.end] - D[self.begin])

    @functools.cached_property
    def idcg(self):
        # Each row's own running sum from its first level (full_idcg's additions): one
        # over the block less its value before the row kept the rows' rounding (2e-10).
        return running_in_rows(self.rows, self._part, self.n_rows)[0]

    @functools.cached_property
    def P(self):
        rows = self.rows
        last = np.ones(rows.shape[0], dtype=bool)
        last[:-1] = rows[1:] != rows[:-1]
        P = np.zeros(self.n_rows, dtype=np.int64)
        P[rows[last]] = self.end[last]
        return P

    @functools.cached_property
    def total(self):
        return np.bincount(self.rows, weights=self.gain * (self.end - self.begin),
                           minlength=self.n_rows)

    @functools.cached_property
    def full_idcg(self):
        return np.bincount(self.rows, weights=self._part, minlength=self.n_rows)

    def take_rows(self, rows):
        """The levels of the rows ``rows`` (sorted indices), renumbered 0.."""
        new = np.full(self.n_rows, -1, dtype=np.int64)
        new[rows] = np.arange(rows.shape[0])
        keep = flatnonzero(new[self.rows] >= 0)
        out = IdealLevels(new[self.rows[keep]], self.end[keep], self.gain[keep], rows.shape[0])
        out.complete = self.complete
        return out

    @classmethod
    def from_sorted(cls, ideal):
        """From every gain of each row in increasing order, shape (n, W)."""
        n, W = ideal.shape
        # Best first, a level ends at i (1-based) where the gain at i differs from i - 1's
        # (past the row's end: 0), the latter positive: increasing, its first entry W - i.
        starts = np.empty((n, W), dtype=bool)
        starts[:, 0] = True
        np.not_equal(ideal[:, 1:], ideal[:, :-1], out=starts[:, 1:])
        starts &= ideal > 0
        rows, j = nonzero_2d(starts[:, ::-1])  # best level first within each row
        levels = cls(rows, j + 1, ideal[rows, W - 1 - j], n)
        levels.complete = bool(ideal[:, 0].min() >= 0) if ideal.size else True
        return levels

    @classmethod
    def from_counts(cls, counts, gains):
        """From ``counts[:, u]``, the items of each row with the positive gain
        ``gains[u]`` (distinct, decreasing): :class:`CountedLevels`."""
        return CountedLevels(counts, gains)

    @property
    def deepest(self):
        """The last position any row's levels reach (0 when none has one)."""
        return int(self.end.max()) if self.end.size else 0

    def dcg_through(self, D):
        """Each row's DCG of its whole ideal, ``D`` the running discounts
        (:func:`_running_discounts`, at least :attr:`deepest` + 1 long): a level
        from ``b`` to ``e`` adds its gain times ``D[e] - D[b]``, best first."""
        return np.bincount(self.rows, weights=self.gain * (D[self.end] - D[self.begin]),
                           minlength=self.n_rows)

    def top(self, width):
        """The positive ideal gains best first, down to ``width`` (0 past P)."""
        if self._top is None or self._top.shape[1] < width:
            self._top = self._make_top(width)
        return self._top[:, :width]

    def _make_top(self, width):
        # Levels of one position each (real-valued gains) put at their places. Else each
        # row written in one run: its levels' gains repeated over their (cut) lengths, then
        # zeros to the width; the runs of every row laid end to end, one repeat. Level i
        # sits after the zeros of the rows before its own (i + rows[i]), a row's after it.
        n, n_lev = self.n_rows, self.rows.shape[0]
        if n_lev and self.one_each:
            top, keep = np.zeros((n, width)), flatnonzero(self.begin < width)
            top[self.rows[keep], self.begin[keep]] = self.gain[keep]
            return top
        lengths = np.clip(np.minimum(self.end, width) - self.begin, 0, None)
        per_row = np.bincount(self.rows, weights=lengths, minlength=n).astype(np.int64)
        runs = np.zeros(n_lev + n)
        counts = np.empty(n_lev + n, dtype=np.int64)
        at = np.arange(n_lev) + self.rows
        runs[at], counts[at] = self.gain, lengths
        fill = np.cumsum(np.bincount(self.rows, minlength=n)) + np.arange(n)
        counts[fill] = width - per_row
        return np.repeat(runs, counts).reshape(n, width)


class CountedLevels(IdealLevels):
    """:class:`IdealLevels` made from each row's count of every level, held
    as counts: a few levels over many rows (graded relevance 0..4) read by
    columns, a handful of passes over the rows, where the list of levels
    (a row's nonzero counts, found and gathered) cost 0.5 ms a block of
    2,621 rows. The list is made on first read of :attr:`rows`,
    :attr:`end`, :attr:`gain` or :attr:`begin`.

    ``counts[:, u]``: the items of each row of the positive gain
    ``gains[u]`` (distinct, decreasing).
    """

    def __init__(self, counts, gains):  # no call of IdealLevels' own: made on read
        self.counts, self.gains = counts, gains
        self.n_rows = counts.shape[0]
        self._top = None
        self.complete = False

    @functools.cached_property
    def _ends(self):
        """Where each row's level ``u`` ends (its running count): row ``u``
        of this array of shape (levels, n)."""
        return cumsum_down(np.asarray(self.counts.T, dtype=np.int64))

    @functools.cached_property
    def _listed(self):
        rows, u = nonzero_2d(self.counts)
        return rows, np.take(self._ends.reshape(-1), u * self.n_rows + rows), self.gains[u]

    @functools.cached_property
    def rows(self):
        return self._listed[0]

    @functools.cached_property
    def end(self):
        return self._listed[1]

    @functools.cached_property
    def gain(self):
        return self._listed[2]

    @functools.cached_property
    def _first(self):
        first = np.ones(self.rows.shape[0], dtype=bool)
        first[1:] = self.rows[1:] != self.rows[:-1]
        return first

    @functools.cached_property
    def begin(self):
        return np.where(self._first, 0, np.concatenate(([0], self.end[:-1])))

    @property
    def deepest(self):
        return int(self._ends[-1].max()) if self._ends.size else 0

    # Read off the columns (no list made): the list's terms in its order.
    @functools.cached_property
    def P(self):
        return self._ends[-1].copy() if self._ends.size else np.zeros(self.n_rows, np.int64)

    @functools.cached_property
    def total(self):
        return sum((g * self.counts[:, u] for u, g in enumerate(self.gains.tolist())),
                   np.zeros(self.n_rows))

    @functools.cached_property
    def full_idcg(self):
        return self.dcg_through(_running_discounts(self.deepest))

    def dcg_through(self, D):
        # Column by column, best level first: the same terms added in the
        # same order as the list's (an empty level adds 0.0).
        out = np.zeros(self.n_rows)
        before = np.zeros(self.n_rows)
        for u, g in enumerate(self.gains.tolist()):
            at = np.take(D, self._ends[u])
            out += g * (at - before)
            before = at
        return out


#: Level spans up to this are counted per row instead of sorted.
_MAX_LEVEL_SPAN = 64
#: Entries whose level keys are counted at once (1 MiB of keys).
_COUNT_ELEMENTS = 1 << 17


def ideal_levels(yt, gain, full_gain, worthless=None, extremes=None, nonzero=None,
                 level_counts=None):
    """The :class:`IdealLevels` of each row's gains.

    Integer relevance levels in a small span with a monotone gain are counted
    per row (one pass, no sort); any other input sorts the row's gains.
    ``full_gain()`` gives the block's gains when they cannot be read off the
    levels (see :func:`ideal_gains`). ``extremes`` (an :class:`Extremes` of
    ``yt``) spares a pass for its min and max.
    """
    N = yt.shape[1]
    if worthless is None:
        counted = _counted(yt, gain, extremes, nonzero, level_counts)
        if counted is not None:
            return counted
    return IdealLevels.from_sorted(ideal_gains(yt, gain, full_gain, N, worthless))


def _counted(yt, gain, extremes=None, nonzero=None, level_counts=None):
    """The :class:`IdealLevels` of ``yt`` by counting its levels (a monotone
    gain, integer levels in a span of at most ``_MAX_LEVEL_SPAN``), or None.
    ``nonzero``: the entries of ``yt`` that are not 0, when known (a
    :class:`~.item_values.NonzeroEntries`); ``level_counts``: each
    row's count of each level, when counted (:attr:`BlockValues.level_counts`)."""
    if not gain.monotone or not yt.size:
        return None
    if yt.dtype.kind == "b":
        yt = yt.view(np.uint8)
    if extremes is None or extremes.a is not yt:
        extremes = Extremes(yt)
    lo, hi = float(extremes.min()), float(extremes.max())
    if not (-2**52 < lo and hi < 2**52 and np.ceil(hi) - np.floor(lo) < _MAX_LEVEL_SPAN):
        return _positive_levels(yt, gain, lo, nonzero)
    if yt.dtype.kind == "f":
        sample = yt.reshape(-1)[:_SAMPLE]
        if not np.array_equal(sample, np.floor(sample)):
            # Real-valued levels: not countable, spare the pass.
            return _positive_levels(yt, gain, lo, nonzero)
    return _counted_levels(yt, gain, extremes, int(np.floor(lo)), int(np.ceil(hi)), nonzero,
                           level_counts)


def _positive_levels(yt, gain, lo, nonzero):
    """The :class:`IdealLevels` of a block whose nonzero entries ``nonzero``
    (a :class:`~.item_values.NonzeroEntries`) are known and few, from those
    entries alone: their gains, each row's negated in a row of zeros as wide
    as the most any row holds and sorted there (best first), instead of a
    sort of the whole rows (real-valued relevance on 5 % of rows of 100:
    rows of about 12 sorted instead of 100). None when ``nonzero`` is not
    known, the relevance has a negative level (``lo``), or the gain is not a
    formula worth 0 at level 0 (the other entries' gain)."""
    if nonzero is None or lo < 0 or not (gain.formula and gain.zero_at_zero):
        return None
    n, N = yt.shape
    g = np.asarray(gain(nonzero.values.astype(np.float64)), dtype=np.float64)
    rows = nonzero.flat // N  # row-major: each row's entries together
    P = np.bincount(rows, minlength=n)
    widest = int(P.max()) if n else 0
    # Entry j (0-based) of row r goes to r * widest + j, negated, in a row of
    # zeros: sorted, each row holds its gains best first (the gains of
    # nonzero levels are positive), then the zeros; read back where they went.
    j = np.arange(g.shape[0]) - np.take(np.cumsum(P) - P, rows)
    at = rows * widest + j
    pad = np.zeros(n * widest)
    pad[at] = np.negative(g)
    pad.reshape(n, widest).sort(axis=1)
    g = np.subtract(0.0, np.take(pad, at))  # (0.0, not -0.0, for a gain of 0)
    # A level ends where the next entry is another row's or another gain.
    last = np.ones(g.shape[0], dtype=bool)
    np.not_equal(rows[1:], rows[:-1], out=last[:-1])
    last[:-1] |= g[1:] != g[:-1]
    if last.all():  # each entry a level of its own (real-valued gains)
        levels = IdealLevels(rows, j + 1, g, n)
    else:
        keep = flatnonzero(last)
        levels = IdealLevels(rows[keep], j[keep] + 1, g[keep], n)
    levels.complete = True  # no entry has a negative gain
    # Each row's levels end at its last entry: the count made above is P.
    levels.__dict__["P"] = P
    return levels


def _counted_levels(yt, gain, extremes, lo, hi, nonzero=None, level_counts=None):
    """:func:`ideal_levels` by counting the levels ``lo..hi`` of each row, or
    None when a level that could have a positive gain is not an integer.
    ``level_counts``: ``(lo, table)``, the counts made already by (row,
    score, level), read when they are these levels'."""
    n = yt.shape[0]
    span = hi - lo + 1
    levels = np.arange(lo, hi + 1, dtype=np.float64)[::-1]
    g = _grid_gains(gain, levels)  # non-increasing
    if g is None:
        return None
    keep = g > 0
    if keep.any():
        # Only entries above the highest level of gain <= 0 can be worth
        # something (the gain is monotone); where they are few (sparse
        # relevance), only they are read, and only they must be integers.
        boundary = levels[keep][-1] - 1
        if (level_counts is not None and int(level_counts[0]) == lo
                and level_counts[1].shape[::2] == (n, span)):
            counts = sum_along(level_counts[1], 1).reshape(-1)
        else:
            counts = _counted_above(yt, lo, span, boundary, extremes, nonzero)
        if counts is None:
            return None
        counts = counts.reshape(n, span)
        kept = counts[:, ::-1][:, keep]
        # Levels of one gain form one level: sum their counts.
        gains, inv = _merged_levels(tuple(g[keep].tolist()))
        if inv is None:  # every level its own gain (decreasing)
            merged = kept
        else:
            merged = np.zeros((n, gains.shape[0]), dtype=np.int64)
            for j, u in enumerate(inv):  # a level at a time
                merged[:, u] += kept[:, j]
        levels = IdealLevels.from_counts(merged, gains)
    else:
        # Every level up to ceil(max) has gain <= 0, so every entry has.
        levels = IdealLevels.from_counts(np.zeros((n, 0), dtype=np.int64), g[:0])
    levels.complete = bool(g[-1] >= 0)  # the lowest level's gain (monotone)
    return levels


@functools.lru_cache(maxsize=64)
def _merged_levels(g):
    """``(gains, inv)`` of the positive gains ``g`` of levels best first: the
    distinct gains, decreasing, and the index of each level's among them
    (None when the gains are distinct and decreasing already). The same few
    gains come with every block of a call: computed once."""
    distinct, inv = np.unique(-np.asarray(g), return_inverse=True)
    gains = -distinct
    if distinct.shape[0] == len(g) and (np.diff(np.asarray(g)) < 0).all():
        return gains, None
    return gains, tuple(inv.reshape(-1).tolist())


def _counted_above(yt, lo, span, boundary, extremes, nonzero=None):
    """``counts[r * span + l]`` of the levels ``lo..`` above ``boundary``: where
    those entries are few (sparse relevance) only they are read, and only they
    must be integers (None when one is not); else every entry is counted (by
    one comparison per level in a small span). ``nonzero``: the entries that
    are not 0 (a :class:`~.item_values.NonzeroEntries`), when known: with no
    negative level and a boundary of 0 (the entries above it are those), read
    instead of a pass."""
    n, N = yt.shape
    if nonzero is not None and lo >= 0 and boundary == 0:
        counted, m = None, nonzero.flat.shape[0]
    else:
        # A sample over half above the boundary (clear of the count's 1 in
        # 4) is counted level by level at once: no pass for the count.
        if (span <= _COMPARED_SPAN and looks_dense(yt, 4, above=boundary)
                and extremes.integral):  # (read last: a pass over floats not known whole)
            return _compared_levels(yt, lo, span, int(boundary))
        nonzero, counted = None, yt > boundary
        m = int(np.count_nonzero(counted))
    if m * 4 > yt.size and extremes.integral and span <= _COMPARED_SPAN:
        return _compared_levels(yt, lo, span, int(boundary))
    if m * 4 <= yt.size:
        if nonzero is None:
            flat = flatnonzero(counted)
            vals = np.take(yt.reshape(-1), flat)
        else:
            flat, vals = nonzero.flat, nonzero.values
        if vals.dtype.kind == "f" and not np.array_equal(vals, np.floor(vals)):
            return None
        keys = (flat // N) * span
        keys += vals.astype(np.intp) - lo
        return np.bincount(keys, minlength=n * span)
    if extremes.integral:
        return _count_levels(yt, lo, span)
    return None


#: Integral levels in a span up to this are counted by one comparison per
#: level that can have a positive gain (:func:`_compared_levels`).
_COMPARED_SPAN = 8


def _compared_levels(yt, lo, span, boundary):
    """``counts[r * span + l]`` as :func:`_count_levels` gives them, for the
    levels above ``boundary`` (the others are left 0: their gain is <= 0):
    each row's items at ``lo + l`` or above counted by one comparison per
    level (:func:`~.._utils.fast.counts_at_least`: passes over bytes, no key
    per entry and ``np.bincount``)."""
    n = yt.shape[0]
    counts = np.zeros((n, span), dtype=np.int64)
    above = None  # items above the level counted last
    top = range(lo + span - 1, max(boundary, lo - 1), -1)
    for level, at_least in zip(top, fast.counts_at_least(yt, top)):  # (one per level)
        counts[:, level - lo] = at_least if above is None else at_least - above
        above = at_least
    return counts.reshape(-1)


def _count_levels(yt, lo, span, by_level=False):
    """``counts[r * span + l]``: the entries of row ``r`` at level ``lo + l``
    (integral levels), counted a few rows at a time so that the keys stay in
    the CPU cache. ``by_level``: the counts as an array of shape (span, n),
    ``counts[l, r]`` (a level's counts of every row together)."""
    n, N = yt.shape
    step = max(1, _COUNT_ELEMENTS // max(N, 1))
    keys = np.empty((min(step, n), N), dtype=np.intp)
    if by_level:
        counts = np.empty((span, n), dtype=np.intp)
    else:
        counts = np.empty(n * span, dtype=np.intp)
        offsets = (np.arange(n, dtype=np.intp) * span - lo)[:, None]
    for a in range(0, n, step):
        b = min(a + step, n)
        part = keys[: b - a]
        # The keys are made in intp, not in the values' own type (int16 or
        # int32 values near their limit times the rows overflowed it).
        if by_level:  # key (level - lo) * rows + row, within the rows a..b
            m = b - a
            np.multiply(yt[a:b], m, out=part, dtype=np.intp, casting="unsafe")
            part += (np.arange(m, dtype=np.intp) - int(lo) * m)[:, None]
            counts[:, a:b] = np.bincount(part.reshape(-1), minlength=span * m).reshape(span, m)
        else:
            np.add(yt[a:b], offsets[a:b] - a * span, out=part, dtype=np.intp,
                   casting="unsafe")
            counts[a * span:b * span] = np.bincount(part.reshape(-1),
                                                    minlength=(b - a) * span)
    return counts
