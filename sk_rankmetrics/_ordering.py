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

import numpy as np


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
        self.real_ties = self.tied  # ties between real items (not padding)


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
        out.totals, out.ideal = self.totals, self.ideal
        return out

    def mean(self, name):
        """Expected item value at each position: the tie group's mean."""
        if not self.tied:
            return self.sums[name]
        return self.sums[name] / self.size


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


def rank_chunk(y_score, values, L, *, ignore_ties=False, n_items=None):
    """Rank the rows of a chunk and describe the first ``L`` positions.

    Parameters
    ----------
    y_score : ndarray of shape (n, N)
        Scores of any real dtype (compared in that dtype); higher ranks
        earlier. Padding entries (if any) hold ``-inf``.
    values : dict of str -> ndarray of shape (n, N), float64
        Item values to be summed per tie group (for example gain and the
        relevance indicator).
    L : int
        Positions to describe, ``1 <= L <= N``.
    ignore_ties : bool
        Take the order of the sort as it comes instead of averaging ties.
    n_items : ndarray of shape (n,) or None
        Real items per row; ``None`` means every row has ``N``.

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
        idx = np.argpartition(y_score, N - L - 1, axis=1)
        below = np.take(flat_scores, idx[:, N - L - 1] + base[:, 0])
        top = idx[:, N - L :] + base
        del idx
        top_scores = np.take(flat_scores, top)
        order = np.argsort(top_scores, axis=1)[:, ::-1]
        top = np.take_along_axis(top, order, axis=1)
        sv = np.take_along_axis(top_scores, order, axis=1)
    else:
        top = np.ascontiguousarray((np.argsort(y_score, axis=1) + base)[:, ::-1])
        sv = np.take(flat_scores, top)
        below = None
    ranked_vals = {
        name: np.take(np.ascontiguousarray(v).reshape(-1), top)
        for name, v in values.items()
    }
    if ignore_ties:
        return RankedChunk(L, None, None, ranked_vals, n_items)
    if not (sv[:, 1:] == sv[:, :-1]).any() and (
        below is None or not (below == sv[:, -1]).any()
    ):
        return RankedChunk(L, None, None, ranked_vals, n_items)

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
            in_last = start[cut] == start[cut, -1][:, None]
            size[cut] = np.where(in_last, np.count_nonzero(eq, axis=1)[:, None], size[cut])
            for name, vals in values.items():
                tot = np.einsum("ij,ij->i", eq, vals[cut])[:, None]
                sums[name][cut] = np.where(in_last, tot, sums[name][cut])
    rc = RankedChunk(L, start, size, sums, n_items)
    rc.real_ties = real_ties
    return rc


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


def _indicator(mask, shape):
    return np.ones(shape) if mask is None else mask.astype(np.float64)


def item_values(yt, requests, row0=0, masks=None):
    """Every item value the requests read, float64, one array per key.

    Items that are not judged (padding, unjudged items of ranked lists, items
    a ``judged`` mask leaves out) are worth nothing and are never relevant,
    whatever the gain of level 0 or the threshold; the gain is not even
    evaluated on them (a mapping need not name their level).
    """
    masks = masks or ItemMasks()
    worthless = None
    if masks.judged is not None:
        # Unjudged entries of relevance 0 are already worth nothing unless
        # level 0 is (a threshold <= 0, a gain mapping): mask only then.
        unjudged = ~masks.judged
        if worth_counts(requests) or (yt[unjudged] != 0).any():
            worthless = unjudged
    values = {}
    real = yt if worthless is None else yt[~worthless]
    for req in requests:
        if req.gain_key is not None and req.gain_key not in values:
            req.gain.check_levels(real, normalized=req.spec.normalized)
            if worthless is None:
                g = np.asarray(req.gain(yt), dtype=np.float64)
            else:
                g = np.zeros(yt.shape)
                g[~worthless] = req.gain(real)
            if g is not yt and not np.all(np.isfinite(g)):
                raise ValueError(
                    f"the {req.gain.name!r} gain overflows for some relevance in "
                    f"y_true (rows from {row0}); use a smaller gain."
                )
            if req.spec.normalized and g.size and g.min() < 0:
                raise ValueError(
                    f"the {req.gain.name!r} gain gives negative gains, which "
                    f"{req.label} cannot normalise; map every level to a gain >= 0."
                )
            values[req.gain_key] = g
        if req.rel_key is not None and req.rel_key not in values:
            thr = req.threshold
            rel = yt > 0 if thr is None else yt >= thr
            if worthless is not None:
                rel[worthless] = False
            values[req.rel_key] = rel.astype(np.float64)
        for key in req.keys:
            if key in values:
                continue
            if key == "judged":
                values[key] = _indicator(masks.judged, yt.shape)
            elif key == "pool":
                values[key] = _indicator(masks.pool, yt.shape)
            elif key.startswith("grade:"):
                values[key] = _grade_indicator(yt, int(key[6:]), req, masks.judged)
    return values


def _grade_indicator(yt, grade, req, judged):
    """Whether each judged item has relevance grade ``grade`` (ERR's levels)."""
    top = req.options["max_grade"]
    if grade == 1:  # check the grades once per block and request
        real = yt if judged is None else yt[judged]
        if real.size and (real.min() < 0 or real.max() > top
                          or not np.array_equal(real, np.floor(real))):
            bad = real[(real < 0) | (real > top) | (real != np.floor(real))][0]
            raise ValueError(
                f"{req.label}: relevance {bad:g} is not a grade of the scale 0..{top}; ERR "
                "reads integer grades from 0 to max_grade (raise max_grade, or map the "
                "relevance to grades)."
            )
    out = yt == grade
    if judged is not None:
        out &= judged
    return out.astype(np.float64)


def worth_counts(requests):
    """Whether an item of relevance 0 could be worth something: a gain other
    than linear or exponential (which give level 0 nothing), or a threshold
    <= 0. Only then must unjudged items be masked out of gains and relevance."""
    return any(
        (req.gain is not None and req.gain.name not in ("linear", "exponential"))
        or (req.rel_key is not None and req.threshold is not None and req.threshold <= 0)
        for req in requests
    )


def ideal_gains(yt, gain, values_gain, width, worthless=None):
    """The ``width`` largest gains of each row, in increasing order (best last)."""
    N = yt.shape[1]
    # A monotone gain lets relevance be partitioned and only the top k
    # transformed; masked entries (gain 0, any relevance) need the gains.
    by_level = gain.monotone and worthless is None
    base = yt if by_level else values_gain
    if width < N:
        base = np.partition(base, N - width, axis=1)[:, N - width :]
    top = np.sort(base, axis=1)
    return np.asarray(gain(top), dtype=np.float64) if by_level else top


def depth(requests):
    """``(needs_full, k_max)``: whether some request reads every position, and
    the deepest cut-off asked for (1 when none is)."""
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
    values = item_values(yt, requests, row0, masks)
    totals = {key: v.sum(axis=1) for key, v in values.items()}
    L = N if needs_full else min(k_max, N)
    for r in requests:
        if r.reads_to_r:  # R-precision reads down to R
            L = max(L, int(totals[r.rel_key].max()))
    rc = rank_chunk(ys, values, max(L, 1), ignore_ties=ignore_ties, n_items=n_items)
    rc.totals = totals
    check_ties(rc, requests, ignore_ties)
    worthless = None if masks.judged is None else ~masks.judged
    # The ideal of a measure of the whole ranking (G, ndcg_rel) covers the row.
    ideal_k = [None if r.spec.full else r.k for r in requests if r.needs_ideal]
    width = N if None in ideal_k else min(max(ideal_k, default=1), N)
    for req in requests:
        if req.needs_ideal and req.gain_key not in rc.ideal:
            rc.ideal[req.gain_key] = ideal_gains(yt, req.gain, values[req.gain_key],
                                                 max(width, rc.L) if width < N else N,
                                                 worthless)
    return rc
