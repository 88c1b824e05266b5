"""The sort pass: order each row of a chunk once and describe its tie groups.

For every row of a chunk this module finds the first ``L`` positions of the
ranking induced by ``y_score`` (``np.argpartition`` then a sort of those ``L``
items only; a full sort only when ``L`` is the whole row) and, for each of
those positions, the *tie group* it belongs to: the group's first position,
its size (counting members that fall beyond ``L``) and the sum of each item
value (gain, relevance indicator) over the group.

Scores are compared in their own dtype (integers, long double), so distinct
values never become ties. Item values are float64, so sums cannot overflow
as integer sums would.

Under the default tie rule every ordering of a tie group is equally likely,
so the expected value of an item value at a position is the group's mean.
The metric kernels take it from there; no kernel sees an item index.
"""

from __future__ import annotations

import functools

import numpy as np

from ._validation import InvalidParameterError


class RankedChunk:
    """Per-position tie-group statistics of a chunk of ranked rows.

    Attributes
    ----------
    L : int
        Number of ranked positions described (at most the row width).
    start : ndarray of shape (n, L), int
        0-based first position of the tie group at each position.
    size : ndarray of shape (n, L), int
        Size of that tie group (members beyond ``L`` included).
    sums : dict of str -> ndarray of shape (n, L)
        Sum of each item value over the tie group at each position.
    n_items : ndarray of shape (n,), int
        Real items in each row (fewer than the width for padded rows), at
        least 1 (a divisor).
    n_ranked : ndarray of shape (n,), int
        Items ranked in each row (0 for an empty ranked list).
    totals : dict of str -> ndarray of shape (n,)
        The sum of each item value over the whole row: for the relevance
        indicator, R; for ranked lists, over every item the truth names,
        ranked or not.
    ideal : dict of str -> ndarray of shape (n, Li)
        The row's ``Li`` largest gains in increasing order (the best last),
        per gain key. ``Li`` may exceed ``L``: the ideal of a ranked list
        covers every judged item, retrieved or not.
    items : dict of str -> ndarray of shape (n, W), or None
        Kept only for a kernel that reads the values of a tie group's members,
        not only their sum (``MetricSpec.reads_items``): the item values in
        rank order over the whole ranked row (``W >= L``), so that the members
        of every group, also one that ``L`` cuts, are at ``start .. start +
        size - 1``. Which member sits where inside a group means nothing.

    When no position is tied (``start``/``size`` passed as None) every group
    is a single item: ``start`` is the position, ``size`` is 1, and the sums
    are the ranked values themselves; nothing is allocated for them.
    """

    def __init__(self, L, start, size, sums, n_items, n_ranked=None):
        self.L = L
        self.tied = start is not None
        self._start = start
        self._size = size
        self.sums = sums
        self.n_items = n_items
        self.n_ranked = n_items if n_ranked is None else n_ranked
        self.totals = {}
        self.ideal = {}
        #: Derived row statistics kernels share (ideal gain runs), by key.
        self.cache = {}
        self.items = None
        self.real_ties = self.tied  # ties between real items (not padding)
        #: ``(scores, BlockValues)`` of the whole rows, for a measure that reads
        #: beyond ``L`` (R-precision); None for ranked lists (``L`` covers them).
        self.block = None
        #: The chunk this one was cut from (itself when not cut).
        self.root = self

    @property
    def start(self):
        if self._start is None:
            self._start = np.broadcast_to(np.arange(self.L), (self.n_rows, self.L))
        return self._start

    @property
    def size(self):
        if self._size is None:
            self._size = np.broadcast_to(np.int64(1), (self.n_rows, self.L))
        return self._size

    @property
    def n_rows(self):
        return self.n_items.shape[0]

    def truncated(self, depth):
        """The same rows ranked down to ``depth`` positions only: the ranking cut
        there (trec_eval's ``-M``). Totals and ideal gains stay those of the
        whole row; a tie group the cut splits keeps its whole-group statistics,
        so that position means remain expected values."""
        if depth >= self.L and (self.n_ranked <= depth).all():
            return self
        L = min(depth, self.L)
        out = RankedChunk(
            L,
            None if self._start is None else self._start[:, :L],
            None if self._size is None else self._size[:, :L],
            {k: v[:, :L] for k, v in self.sums.items()},
            np.minimum(self.n_items, depth),
            np.minimum(self.n_ranked, depth),
        )
        out.tied, out.real_ties = self.tied, self.real_ties
        out.totals, out.ideal, out.block = self.totals, self.ideal, self.block
        out.cache = self.cache  # statistics of whole rows, unchanged by the cut
        out.root = self.root
        out.items = self.items
        return out

    def _shared(self, key, make):
        """``make(root)`` computed once per chunk on the uncut chunk, which every
        cut of it shares (the first ``L`` columns of an uncut array are those
        of the cut one)."""
        root = self.root
        if key not in root.cache:
            root.cache[key] = make(root)
        return root.cache[key]

    def mean(self, name):
        """Expected item value at each position: the tie group's mean."""
        if not self.tied:
            return self.sums[name]
        return self._shared(("mean", name), lambda r: r.sums[name] / r.size)[:, : self.L]

    def cumulative(self, name):
        """``C`` of shape (n, L + 1): ``C[:, j]`` is the expected sum of the item
        value ``name`` over the first ``j`` positions."""

        def make(r):
            C = np.zeros((r.n_rows, r.L + 1))
            np.cumsum(r.mean(name), axis=1, out=C[:, 1:])
            return C

        return self._shared(("cum", name), make)[:, : self.L + 1]


def tie_groups(sv, ranked_vals):
    """Tie-group start, size and per-group sums of each position of sorted rows.

    ``sv`` holds the sorted scores of shape (n, L); ``ranked_vals`` maps names
    to item values in the same order. Groups are counted within the L columns.
    Every row starts a new group, so the groups of the flattened array never
    cross rows: group sums are one ``np.add.reduceat`` over it.
    """
    n, L = sv.shape
    new = np.empty((n, L), dtype=bool)
    new[:, 0] = True
    np.not_equal(sv[:, 1:], sv[:, :-1], out=new[:, 1:])
    new = new.reshape(-1)
    first = np.flatnonzero(new)  # flat index of each group's first position
    group = np.cumsum(new) - 1  # group of each position
    start = np.take(first % L, group).reshape(n, L)
    size = np.take(np.diff(np.append(first, n * L)), group).reshape(n, L)
    sums = {
        name: np.take(np.add.reduceat(rv.reshape(-1), first), group).reshape(n, L)
        for name, rv in ranked_vals.items()
    }
    return start, size, sums


def rank_chunk(y_score, values, L, *, ignore_ties=False, n_items=None, keep_items=False):
    """Rank the rows of a chunk and describe the first ``L`` positions.

    Parameters
    ----------
    y_score : ndarray of shape (n, N)
        Scores of any real dtype (compared in that dtype); higher ranks
        earlier. Padding entries (if any) hold ``-inf``.
    values : BlockValues or dict of str -> ndarray of shape (n, N), float64
        Item values to be summed per tie group (for example gain and the
        relevance indicator): derived at the ranked positions only, or given
        over the whole rows.
    L : int
        Positions to describe, ``1 <= L <= N``.
    ignore_ties : bool
        Take the order of the sort as it comes instead of averaging ties.
    n_items : ndarray of shape (n,) or None
        Real items per row; ``None`` means every row has ``N``.
    keep_items : bool
        Keep the ranked item values as ``RankedChunk.items``. When a tie group
        of real items runs past position ``L``, its members beyond ``L`` are
        needed too: the chunk is then ranked over whole rows (``L = N``).

    Returns
    -------
    RankedChunk
    """
    n, N = y_score.shape
    y_score = np.ascontiguousarray(y_score)
    flat_scores = y_score.reshape(-1)
    base = (np.arange(n) * N)[:, None]
    if n_items is None:
        n_items = np.full(n, N, dtype=np.int64)
    if L < N:
        top, below = select_top(y_score, L)
        top_scores = np.take(flat_scores, top)
        order = np.argsort(top_scores, axis=1)[:, ::-1]
        top = np.take_along_axis(top, order, axis=1)
        sv = np.take_along_axis(top_scores, order, axis=1)
        if keep_items and not ignore_ties and bool(
                ((below == sv[:, -1]) & (below > -np.inf)).any()):
            return rank_chunk(y_score, values, N, n_items=n_items, keep_items=True)
    else:
        top = np.ascontiguousarray((np.argsort(y_score, axis=1) + base)[:, ::-1])
        sv = np.take(flat_scores, top)
        below = None
    if isinstance(values, dict):
        values = _GivenValues(values)
    ranked_vals = values.at(top)
    if ignore_ties or (not (sv[:, 1:] == sv[:, :-1]).any() and (
            below is None or not (below == sv[:, -1]).any())):
        rc = RankedChunk(L, None, None, ranked_vals, n_items)
        rc.items = ranked_vals if keep_items else None
        return rc

    start, size, sums = tie_groups(sv, ranked_vals)
    # Padding (-inf) ties with padding; only ties between real items count.
    real = sv > -np.inf
    real_ties = bool(((sv[:, 1:] == sv[:, :-1]) & real[:, 1:]).any()) or (
        below is not None and bool(((below == sv[:, -1]) & real[:, -1]).any()))

    if below is not None:
        # The last group may continue past position L: count it over the row.
        cut = np.flatnonzero(below == sv[:, -1])
        if cut.size:
            # Every row, or a few: a slice spares copying the block.
            cut = slice(None) if cut.size == n else cut
            v = sv[cut, -1][:, None]
            eq = y_score[cut] == v
            m = eq.shape[0]
            in_last = start[cut] == start[cut, -1][:, None]
            size[cut] = np.where(in_last, np.count_nonzero(eq, axis=1)[:, None], size[cut])
            # The values of the group's members only (a pass over whole rows
            # would cost the block's width whatever the group's size).
            flat = np.flatnonzero(eq)
            r = flat // N
            if not isinstance(cut, slice):
                flat = cut[r] * N + flat % N
            for name, vals in values.at(flat).items():
                tot = np.bincount(r, weights=vals, minlength=m)[:, None]
                sums[name][cut] = np.where(in_last, tot, sums[name][cut])
    rc = RankedChunk(L, start, size, sums, n_items)
    rc.real_ties = real_ties
    rc.items = ranked_vals if keep_items else None
    return rc


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


class _GivenValues:
    """Item values given over whole rows, with :class:`BlockValues`' interface."""

    def __init__(self, values):
        self.values = {k: np.ascontiguousarray(v) for k, v in values.items()}

    def at(self, flat):
        return {k: np.take(v.reshape(-1), flat) for k, v in self.values.items()}

    def of_rows(self, rows):
        return {k: v[rows] for k, v in self.values.items()}


# -- item values ----------------------------------------------------------------


class ItemMasks:
    """Which entries of a block are real items, judged, and named by the truth.

    Each is a bool array of the block's shape, or None (every entry is).
    ``judged`` implies ``pool`` implies ``real``.
    """

    def __init__(self, real=None, judged=None, pool=None):
        self.real = real
        self.judged = judged if judged is not None else real
        self.pool = pool if pool is not None else self.judged

    def map(self, fn):
        """The masks with ``fn`` applied to each array (shared arrays stay shared)."""
        done = {}

        def f(a):
            if a is None:
                return None
            if id(a) not in done:
                done[id(a)] = fn(a)
            return done[id(a)]

        return ItemMasks(f(self.real), f(self.judged), f(self.pool))


def _indicator(mask, shape):
    return np.ones(shape) if mask is None else mask.astype(np.float64)


def _unjudged_worthless(yt, requests, masks):
    """Whether unjudged entries must be masked out of the gains and relevance of
    ``yt``: only when one of them could be worth something (see worth_counts)."""
    if masks.judged is None:
        return None
    unjudged = ~masks.judged
    if worth_counts(requests) or (yt[unjudged] != 0).any():
        return unjudged
    return None


def check_item_values(yt, requests, row0=0, masks=None):
    """Raise on relevance the requests' gains or grades cannot take.

    Returns the mask of worthless entries (see :func:`_unjudged_worthless`);
    :func:`_checked_extremes` also gives the block's extreme levels.
    """
    return _checked_extremes(yt, requests, row0, masks)[0]


def _checked_extremes(yt, requests, row0=0, masks=None):
    """:func:`check_item_values`, returning ``(worthless, extremes)``.

    Looks at every judged item of the block (ranked or not): a level a gain
    mapping does not name, a negative level under a normalised metric, a gain
    that overflows float64, a grade outside ERR's scale. Monotone elementwise
    gains (linear, exponential) are checked at the extreme levels only.
    ``extremes`` (an :class:`_Extremes`) holds the min and max of the
    entries that are not worthless, once computed.
    """
    masks = masks or ItemMasks()
    worthless = _unjudged_worthless(yt, requests, masks)
    real = yt if worthless is None else yt[~worthless]
    extremes = _Extremes(real)
    seen = set()
    for req in requests:
        # ERR's levels are grades: their own check below says what is accepted.
        grades = "grades" in req.spec.needs
        if (req.gain_key is not None and not grades
                and (req.gain_key, req.spec.normalized) not in seen):
            seen.add((req.gain_key, req.spec.normalized))
            req.gain.check_levels(extremes, normalized=req.spec.normalized, metric=req.label)
            if req.gain.name in ("linear", "exponential"):
                probe = np.array([extremes.min(), extremes.max()]) if real.size else real
            else:
                probe = real
            g = np.asarray(req.gain(probe), dtype=np.float64)
            if not np.all(np.isfinite(g)):
                raise ValueError(
                    f"the {req.gain.name!r} gain overflows for some relevance in "
                    f"y_true (rows from {row0}); use a smaller gain."
                )
            if req.spec.normalized and g.size and g.min() < 0:
                raise ValueError(
                    f"the {req.gain.name!r} gain gives negative gains, which "
                    f"{req.label} cannot normalise; map every level to a gain >= 0."
                )
        if grades:
            judged = real if masks.judged is None else yt[masks.judged]
            _check_grades(extremes if judged is real else _Extremes(judged), req)
    return worthless, extremes


class _Extremes:
    """An array's size, min and max, each computed once (the checks share them)."""

    def __init__(self, a):
        self.a, self.size, self._min, self._max = a, a.size, None, None
        self._integral = None

    def min(self):
        if self._min is None:
            self._min = self.a.min()
        return self._min

    def max(self):
        if self._max is None:
            self._max = self.a.max()
        return self._max

    @property
    def integral(self):
        if self._integral is None:
            a = self.a
            self._integral = a.dtype.kind in "iub" or bool(np.array_equal(a, np.floor(a)))
        return self._integral


def _check_grades(real, req):
    """ERR reads integer grades 0..max_grade (``real``: an :class:`_Extremes`)."""
    top = req.options["max_grade"]
    if real.size and (real.min() < 0 or real.max() > top or not real.integral):
        a = real.a
        bad = a[(a < 0) | (a > top) | (a != np.floor(a))][0]
        raise ValueError(
            f"{req.label}: relevance {bad:g} is not a grade of the scale 0..{top}; ERR "
            "reads integer grades from 0 to max_grade (raise max_grade, or map the "
            "relevance to grades)."
        )


def derive_values(yt, requests, masks=None, keys=None):
    """The item values ``keys`` (None: every key the requests read) of the
    entries ``yt``, float64 arrays of its shape, unchecked.

    Items that are not judged (padding, unjudged items of ranked lists, items
    a ``judged`` mask leaves out) are worth nothing and are never relevant,
    whatever the gain of level 0 or the threshold; the gain is not even
    evaluated on them (a mapping need not name their level).
    """
    masks = masks or ItemMasks()
    judged = masks.judged
    values = {}
    for req in requests:
        for key in req.keys:
            if key in values or (keys is not None and key not in keys):
                continue
            if key == req.gain_key:
                if judged is None:
                    g = np.array(req.gain(yt), dtype=np.float64)
                else:
                    g = np.zeros(yt.shape)
                    g[judged] = req.gain(yt[judged])
                values[key] = g
            elif key == req.rel_key:
                values[key] = _relevant(yt, req.threshold, judged)
            elif key == "judged":
                values[key] = _indicator(masks.judged, yt.shape)
            elif key == "pool":
                values[key] = _indicator(masks.pool, yt.shape)
            elif key.startswith("pos:"):  # whether the gain is positive
                g = values.get(key[4:])
                if g is None:
                    g = derive_values(yt, [req], masks, {key[4:]})[key[4:]]
                values[key] = (g > 0).astype(np.float64)
            elif key.startswith("grade:"):
                out = yt == int(key[6:])
                if judged is not None:
                    out &= judged
                values[key] = out.astype(np.float64)
    return values


def _relevant_mask(yt, threshold, judged):
    rel = yt > 0 if threshold is None else yt >= threshold
    if judged is not None:
        rel &= judged
    return rel


def _relevant(yt, threshold, judged):
    return _relevant_mask(yt, threshold, judged).astype(np.float64)


def item_values(yt, requests, row0=0, masks=None):
    """Every item value the requests read, float64, one array per key: the
    values of :func:`derive_values`, after the checks of :func:`check_item_values`."""
    masks = masks or ItemMasks()
    check_item_values(yt, requests, row0, masks)
    return derive_values(yt, requests, masks)


class BlockValues:
    """The item values of a block of rows, derived where they are read.

    Only the relevance ``yt`` and the item masks are kept at the block's
    full width; the values (gains, relevance indicators, grades) are derived
    for the ranked positions (:meth:`at`), for whole rows when a tie group
    crosses the cut (:meth:`of_rows`), and summed over rows on demand
    (:attr:`totals`). The checks run once, over the whole block.
    """

    def __init__(self, yt, requests, row0=0, masks=None):
        self.yt = np.ascontiguousarray(yt)
        self.masks = (masks or ItemMasks()).map(np.ascontiguousarray)
        self.requests = requests
        self.worthless, self.extremes = _checked_extremes(self.yt, requests, row0, self.masks)
        self.totals = _Totals(self)

    def at(self, flat):
        """Values of the entries at the flat indices ``flat`` (shaped like it)."""
        yt = np.take(self.yt.reshape(-1), flat)
        masks = self.masks.map(lambda a: np.take(a.reshape(-1), flat))
        return derive_values(yt, self.requests, masks)

    def of_rows(self, rows, keys=None):
        """Values over the whole rows ``rows``."""
        masks = self.masks.map(lambda a: a[rows])
        return derive_values(self.yt[rows], self.requests, masks, keys)

    def relevant(self, rows, key):
        """Whether each item of the whole rows ``rows`` is relevant under the
        relevance key ``key`` (bool, not float64: cheaper to count)."""
        req = next(r for r in self.requests if r.rel_key == key)
        judged = None if self.masks.judged is None else self.masks.judged[rows]
        return _relevant_mask(self.yt[rows], req.threshold, judged)

    def full(self, key):
        """One value over the whole block."""
        return self.of_rows(slice(None), {key})[key]


class _Totals(dict):
    """Row totals of the item values, computed on first use."""

    def __init__(self, block):
        super().__init__()
        self._block = block

    def __missing__(self, key):
        b = self._block
        width = b.yt.shape[1]
        if key in ("judged", "pool") and getattr(b.masks, key) is None:
            total = np.full(b.yt.shape[0], float(width))
        elif key == "rel:None" and not any(r.rel_key == key for r in b.requests):
            # Any relevant item at all (ERR's rows with no relevant grade).
            total = _relevant(b.yt, None, b.masks.judged).sum(axis=1)
        else:
            total = b.full(key).sum(axis=1)
        self[key] = total
        return total


def worth_counts(requests):
    """Whether an item of relevance 0 could be worth something: a gain other
    than linear or exponential (which give level 0 nothing), or a threshold
    <= 0. Only then must unjudged items be masked out of gains and relevance."""
    return any(
        (req.gain is not None and req.gain.name not in ("linear", "exponential"))
        or (req.rel_key is not None and req.threshold is not None and req.threshold <= 0)
        for req in requests
    )


def ideal_gains(yt, gain, full_gain, width, worthless=None, extremes=None, runs=None,
                levels=True):
    """The ``width`` largest gains of each row, in increasing order (best last).

    ``full_gain()`` gives the gains of the whole block when they cannot be
    read off the relevance levels (masked entries, a non-monotone gain).
    Levels that fill the rows are read off the highest ones
    (:func:`_top_levels`, unless ``levels`` is False); integer levels in a
    small span are counted per row (:func:`ideal_runs`; ``runs`` passes the
    block's runs when they are already counted); any other input goes
    through :func:`top_values`, whose cost does not depend on how the values
    are distributed.
    """
    N = yt.shape[1]
    # A monotone gain lets relevance be partitioned and only the top k
    # transformed; masked entries (gain 0, any relevance) need the gains.
    by_level = gain.monotone and worthless is None
    if by_level and width < N:
        top = _top_levels(yt, gain, extremes, width) if runs is None and levels else None
        if top is not None:
            return top
        if runs is None:
            runs = _counted(yt, gain, extremes)
        if runs is not None and runs.complete:
            # Every gain of the row is >= 0 and the positive ones are in the
            # runs: the rest of the top ``width`` are zeros.
            return runs.top(width)[:, ::-1]
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


def _top_levels(yt, gain, extremes, width, passes=2):
    """:func:`ideal_gains` read off the highest levels, or None.

    Where the highest level fills many positions of each row (dense graded
    relevance), or where it is the only level of positive gain (binary
    relevance), the top ``width`` gains are known after comparing the rows
    with that level (and, for integer levels, the next ones): one pass per
    level instead of counting or sorting every level. Rows still short after
    ``passes`` levels (one for real-valued levels, which may lie between
    two integers) go the general way. A sample of the block decides whether
    the highest level is common enough to try.
    """
    n, N = yt.shape
    if yt.dtype.kind == "b":
        yt = yt.view(np.uint8)
        extremes = None
    if not gain.monotone or yt.dtype.kind not in "iuf" or not yt.size:
        return None
    ex = extremes if extremes is not None and extremes.a is yt else _Extremes(yt)
    hi = ex.max()
    if not -(2**52) < float(hi) < 2**52:
        return None  # levels compared as float64 below must be exact
    rest_zero = False  # every level below those read has gain 0
    if yt.dtype.kind == "f":
        levels = np.array([hi], dtype=np.float64)
    else:
        lo, hi = int(ex.min()), int(hi)
        if lo <= -(2**52):
            return None
        levels = np.arange(hi, max(lo, hi - passes + 1) - 1, -1, dtype=np.float64)
        ends = _grid_gains(gain, [lo, hi - 1] if hi > lo else [lo])
        rest_zero = ends is not None and ends[0] >= 0 and (hi == lo or ends[-1] <= 0)
    sample = yt.reshape(-1)[:_SAMPLE]
    if not rest_zero and np.count_nonzero(sample == hi) * N < 2 * width * sample.shape[0]:
        return None
    g = _grid_gains(gain, levels)
    if g is None:
        return None
    out = np.zeros((n, width))  # best first
    filled = np.zeros(n, dtype=np.intp)
    rows = np.arange(n)
    j = np.arange(width)
    for level, value in zip(levels.tolist(), g.tolist()):
        if value <= 0 or not rows.size:
            break
        sub = yt if rows.size == n else yt[rows]
        have = filled[rows]
        upto = np.minimum(have + np.count_nonzero(sub == level, axis=1), width)
        out[rows] = np.where((j >= have[:, None]) & (j < upto[:, None]), value, out[rows])
        filled[rows] = upto
        rows = rows[upto < width]
        if rest_zero:
            rows = rows[:0]  # the rest of each row is worth 0: filled already
    if rows.size:
        # The rows still short, the general way (no sample decides there).
        out[rows] = ideal_gains(yt[rows], gain, None, width, levels=False)[:, ::-1]
    return out[:, ::-1]


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
    P = np.count_nonzero(pos, axis=1)
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
    n = a.shape[0]
    short = P < width
    if short.any() and bool((a[short] < 0).any()):
        return None
    vals = a[pos]  # row-major: each row's positive entries together
    cols = max(widest, width)
    pad = np.zeros((n, cols), dtype=a.dtype)
    ends = np.cumsum(P)
    within = np.arange(vals.shape[0]) - np.repeat(ends - P, P)
    # Right-aligned: zeros (the rows' other entries) come first.
    pad[np.repeat(np.arange(n), P), cols - np.repeat(P, P) + within] = vals
    return np.sort(pad, axis=1)[:, cols - width:]


class IdealRuns:
    """A row's ideal ordering (best first) as runs of equal positive gain.

    trec_eval's measures over the whole ideal (G, ndcg_rel, Rndcg) read it
    only through these runs: where each ends, its DCG, and the counts.

    Attributes
    ----------
    rows, end, gain, idcg : ndarray of shape (n_runs,)
        Row-major, the best run of a row first: the row, the 1-based
        position where the run ends, its gain, and the log2-discounted DCG
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
        #: positions past the runs hold gain 0 (set by the constructors).
        self.complete = False

    # The statistics below serve the measures of the whole ideal (G,
    # ndcg_rel, Rndcg); a cut-off's ideal reads only :meth:`top`.
    @functools.cached_property
    def _part(self):
        width = int(self.end.max()) if self.end.size else 0
        D = np.zeros(width + 1)
        np.cumsum(1.0 / np.log2(np.arange(2.0, width + 2.0)), out=D[1:])
        return self.gain * (D[self.end] - D[self.begin])

    @functools.cached_property
    def idcg(self):
        # Running sum within each row: the global running sum less its value
        # before the row's first run.
        part = self._part
        c = np.cumsum(part)
        row_first = np.maximum.accumulate(
            np.where(self._first, np.arange(self.rows.shape[0]), 0))
        return c - (c - part)[row_first]

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

    @classmethod
    def from_sorted(cls, ideal):
        """From every gain of each row in increasing order, shape (n, W)."""
        n, W = ideal.shape
        # Read best first, a run ends at i (1-based) where the gain at i differs
        # from the one at i - 1 (past the row's end: 0), the latter positive.
        # In increasing order that is a run's first entry j = W - i.
        starts = np.empty((n, W), dtype=bool)
        starts[:, 0] = True
        np.not_equal(ideal[:, 1:], ideal[:, :-1], out=starts[:, 1:])
        starts &= ideal > 0
        rows, j = np.nonzero(starts[:, ::-1])  # best run first within each row
        runs = cls(rows, j + 1, ideal[rows, W - 1 - j], n)
        runs.complete = bool(ideal[:, 0].min() >= 0) if ideal.size else True
        return runs

    @classmethod
    def from_counts(cls, counts, gains):
        """From ``counts[:, u]``, the items of each row with the positive gain
        ``gains[u]`` (distinct, decreasing)."""
        ends = np.cumsum(counts, axis=1)
        rows, u = np.nonzero(counts)
        return cls(rows, ends[rows, u], gains[u], counts.shape[0])

    def top(self, width):
        """The positive ideal gains best first, down to ``width`` (0 past P)."""
        if self._top is None or self._top.shape[1] < width:
            self._top = self._make_top(width)
        return self._top[:, :width]

    def _make_top(self, width):
        out = np.zeros((self.n_rows, width))
        stop = np.minimum(self.end, width)
        lengths = np.clip(stop - self.begin, 0, None)
        run = np.repeat(np.arange(lengths.shape[0]), lengths)
        offset = np.arange(run.shape[0]) - np.repeat(np.cumsum(lengths) - lengths, lengths)
        out[self.rows[run], self.begin[run] + offset] = self.gain[run]
        return out


#: Level spans up to this are counted per row instead of sorted.
_MAX_LEVEL_SPAN = 64
#: Entries whose level keys are counted at once (1 MiB of keys).
_COUNT_ELEMENTS = 1 << 17


def ideal_runs(yt, gain, full_gain, worthless=None, extremes=None):
    """The :class:`IdealRuns` of each row's gains.

    Integer relevance levels in a small span with a monotone gain are counted
    per row (one pass, no sort); any other input sorts the row's gains.
    ``full_gain()`` gives the block's gains when they cannot be read off the
    levels (see :func:`ideal_gains`). ``extremes`` (an :class:`_Extremes` of
    ``yt``) spares a pass for its min and max.
    """
    N = yt.shape[1]
    if worthless is None:
        runs = _counted(yt, gain, extremes)
        if runs is not None:
            return runs
    return IdealRuns.from_sorted(ideal_gains(yt, gain, full_gain, N, worthless))


def _counted(yt, gain, extremes=None):
    """The :class:`IdealRuns` of ``yt`` by counting its levels (a monotone
    gain, integer levels in a span of at most ``_MAX_LEVEL_SPAN``), or None."""
    if not gain.monotone or not yt.size:
        return None
    if yt.dtype.kind == "b":
        yt = yt.view(np.uint8)
    if extremes is None or extremes.a is not yt:
        extremes = _Extremes(yt)
    lo, hi = float(extremes.min()), float(extremes.max())
    if not (-2**52 < lo and hi < 2**52 and np.ceil(hi) - np.floor(lo) < _MAX_LEVEL_SPAN):
        return None
    if yt.dtype.kind == "f":
        sample = yt.reshape(-1)[:_SAMPLE]
        if not np.array_equal(sample, np.floor(sample)):
            return None  # real-valued levels: not countable, spare the pass
    return _counted_runs(yt, gain, extremes, int(np.floor(lo)), int(np.ceil(hi)))


def _counted_runs(yt, gain, extremes, lo, hi):
    """:func:`ideal_runs` by counting the levels ``lo..hi`` of each row, or
    None when a level that could have a positive gain is not an integer."""
    n, N = yt.shape
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
        counted = yt > boundary
        m = int(np.count_nonzero(counted))
        if m * 4 <= yt.size:
            flat = np.flatnonzero(counted)
            vals = np.take(yt.reshape(-1), flat)
            if vals.dtype.kind == "f" and not np.array_equal(vals, np.floor(vals)):
                return None
            keys = (flat // N) * span
            keys += vals.astype(np.intp) - lo
            counts = np.bincount(keys, minlength=n * span)
        elif extremes.integral:
            counts = _count_levels(yt, lo, span)
        else:
            return None
        counts = counts.reshape(n, span)
        # Levels of one gain form one run: sum their counts.
        distinct, inv = np.unique(-g[keep], return_inverse=True)
        merged = np.zeros((n, distinct.shape[0]), dtype=np.int64)
        kept = counts[:, ::-1][:, keep]
        for j, u in enumerate(inv.reshape(-1).tolist()):  # a level at a time
            merged[:, u] += kept[:, j]
        runs = IdealRuns.from_counts(merged, -distinct)
    else:
        # Every level up to ceil(max) has gain <= 0, so every entry has.
        runs = IdealRuns.from_counts(np.zeros((n, 0), dtype=np.int64), g[:0])
    runs.complete = bool(g[-1] >= 0)  # the lowest level's gain (monotone)
    return runs


def _count_levels(yt, lo, span):
    """``counts[r * span + l]``: the entries of row ``r`` at level ``lo + l``
    (integral levels), counted a few rows at a time so that the keys stay in
    the CPU cache."""
    n, N = yt.shape
    offsets = (np.arange(n, dtype=np.intp) * span - lo)[:, None]
    step = max(1, _COUNT_ELEMENTS // max(N, 1))
    keys = np.empty((min(step, n), N), dtype=np.intp)
    counts = np.empty(n * span, dtype=np.intp)
    for a in range(0, n, step):
        b = min(a + step, n)
        part = keys[: b - a]
        np.add(yt[a:b], offsets[a:b] - a * span, out=part, casting="unsafe")
        counts[a * span:b * span] = np.bincount(part.reshape(-1), minlength=(b - a) * span)
    return counts


def depth(requests):
    """``(needs_full, k_max)``: whether some request reads every position, and
    the deepest cut-off asked for (1 when none is). A measure that reads the
    members of each tie group (``reads_items``) gets them also when a group
    runs past ``k_max``: :func:`rank_chunk` then ranks whole rows."""
    needs_full = any(r.depth is None for r in requests)
    k_max = max((r.depth for r in requests if r.depth is not None), default=1)
    return needs_full, k_max


def check_ties(rc, requests, ignore_ties):
    """Raise when a metric without an expected-value rule meets tied scores."""
    if ignore_ties or not rc.real_ties:
        return
    for req in requests:
        if req.spec.ties == "refuse":
            raise ValueError(
                f"{req.label}: the scores of some rows tie, and {req.spec.name} has no "
                "closed form for its expected value over the orderings of a tie. Break "
                "the ties (ignore_ties=True takes them in the order of the sort), or "
                "use evaluate_run(..., setting='trec_eval'), which orders them by "
                "document id."
            )


def rank_block(yt, ys, requests, *, ignore_ties=False, n_items=None, row0=0, judged=None):
    """Rank one block of rows (relevance ``yt``, scores ``ys``) for ``requests``.

    The block is ranked down to the deepest cut-off any request needs (at
    most its width, whatever ``k`` is). ``n_items`` gives the real items of
    padded long-format rows, whose padding holds the score ``-inf``;
    ``judged`` marks the judged items (None: every real item is).
    """
    N = yt.shape[1]
    needs_full, k_max = depth(requests)
    real = (ys != -np.inf) if n_items is not None and (n_items < N).any() else None
    if judged is not None and real is not None:
        judged = judged & real
    masks = ItemMasks(real=real, judged=judged)
    values = BlockValues(yt, requests, row0, masks)
    L = N if needs_full else min(k_max, N)
    if ignore_ties:
        for r in requests:
            if r.reads_to_r:  # R-precision reads down to R, in the order of the sort
                L = max(L, int(values.totals[r.rel_key].max()))
    rc = rank_chunk(ys, values, max(L, 1), ignore_ties=ignore_ties, n_items=n_items,
                    keep_items=any(r.spec.reads_items for r in requests))
    rc.totals = values.totals
    rc.block = (ys, values)
    check_ties(rc, requests, ignore_ties)
    # A measure of the whole ranking (G, ndcg_rel) reads the ideal's runs.
    for req in requests:
        if req.needs_ideal and req.spec.full and ("runs", req.gain_key) not in rc.cache:
            rc.cache[("runs", req.gain_key)] = ideal_runs(
                yt, req.gain, lambda key=req.gain_key: values.full(key), values.worthless,
                values.extremes)
    ideal_k = [r.k for r in requests if r.needs_ideal and not r.spec.full]
    width = N if None in ideal_k else min(max(ideal_k, default=1), N)
    for req in requests:
        if req.needs_ideal and not req.spec.full and req.gain_key not in rc.ideal:
            rc.ideal[req.gain_key] = ideal_gains(
                yt, req.gain, lambda key=req.gain_key: values.full(key),
                max(width, rc.L) if width < N else N, values.worthless, values.extremes,
                rc.cache.get(("runs", req.gain_key)))
    return rc
