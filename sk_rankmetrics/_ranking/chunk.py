"""Ranked chunks: rows sorted to a depth, with their tie groups."""

from __future__ import annotations

import numpy as np

from .._utils.by_row import by_row
from .._utils.fast import count_cumsum, row_argsort, row_cumsum, sum_along
from .._utils.nonzero import flatnonzero
from .few_ties import FewTies
from .groups import Groups, LazyGroups, _GroupSums, _tie_groups_of_tied_rows, tie_groups
from .item_values import (
    BlockValues,
    _GivenValues,
    is_indicator,
    level_span,
    level_values,
)
from .padding import padded_level_codes, real_groups_tie
from .parts import LazyParts, NoPositions, PartsSums, no_positions
from .select import (
    group_keys,
    later_first,
    level_group_keys,
    score_counts,
    score_span,
    select_top,
    top_tie_groups,
)


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
    are the ranked values themselves; nothing is allocated for them."""

    def __init__(self, L, start, size, sums, n_items, n_ranked=None, groups=None):
        self.L = L
        self.tied = start is not None or groups is not None
        self._start = start
        self._size = size
        #: The :class:`Groups` whose per-position statistics (``start``,
        #: ``size``, ``sums``) are made from them on first read, or None.
        self._lazy_src = groups if start is None else None
        self.sums = sums
        self.n_items = n_items
        self.n_ranked = n_items if n_ranked is None else n_ranked
        self.totals = {}
        #: Whether every item of each row is ranked (a matrix block without
        #: padding), though fewer positions may be described (``L``): the
        #: sums over the whole ranking are then the :attr:`totals`.
        self.ranks_every_item = False
        self.ideal = {}
        #: Derived row statistics kernels share (ideal gain levels), by key.
        self.cache = {}
        #: Statistics of this chunk's positions kernels share (not those of
        #: the chunks cut from it, unlike :attr:`cache`), by key.
        self.memo = {}
        self.items = None
        self.real_ties = self.tied  # ties between real items (not padding)
        self.equal_ties = False  # ties of equal values read as none (levels._mixed_ties)
        #: ``(scores, BlockValues)`` of the whole rows, for a measure that reads
        #: beyond ``L`` (R-precision); None for ranked lists (``L`` covers them).
        self.block = None
        #: :attr:`row_width` of a part of a chunk split by its ties (which
        #: holds no block of its own rows).
        self._row_width = None
        #: The :class:`~.select.ScoreCounts` of the block's scores when the
        #: chunk was ranked from them (integer scores in a small span, cut at
        #: ``L``): each row's count of each score, which R-precision reads
        #: beyond ``L`` instead of sorting the rows; else None.
        self.score_counts = None
        #: The chunk this one was cut from (None when not cut: :attr:`root`
        #: is then the chunk itself, without a reference cycle).
        self._root = None
        #: The tied rows (sorted indices) of a chunk ranked over whole rows
        #: whose ties are few (see :meth:`split_by_ties`), else None.
        self.tied_rows = None
        #: The :class:`Groups` of a chunk ranked over whole rows with ties
        #: (None otherwise, and for a chunk cut from another).
        self._groups_src = groups
        self._tied_groups = None
        #: Whether only the tie groups holding an item of nonzero value are
        #: described (:func:`~._ranking.relevant.rank_relevant`): no
        #: per-position statistic can be read.
        self.partial = False
        #: ``(chunk, requests)``: the requests with a cut-off of a block whose
        #: others are ranked through their relevant items (this chunk), which
        #: read a chunk of their own (:func:`~.block.rank_block`); else None.
        self.apart = None
        #: ``[(rows, chunk), ...]``: the untied and the tied rows ranked as two
        #: chunks from the start (:meth:`of_parts`), or None; or made on first
        #: read (:class:`~.parts.LazyParts`, :meth:`of_whole_rows`).
        self._parts_made = None
        self._lazy_parts = None
        #: The rows in one order of their ties with their tie groups of two or
        #: more items (:class:`~.few_ties.FewTies`): a chunk of whole rows that
        #: tie in a few places, whose kernels may correct the order given at
        #: the groups instead of reading every group (None: read the groups).
        self.few_ties = None
        #: The :class:`~.few_ties.FewTies` of every row of a chunk made of
        #: parts, read through :meth:`few_ties_view` (None: not made).
        self.few_ties_whole = None

    @property
    def groups(self):
        """The :class:`Groups` of a chunk ranked over whole rows with ties
        (None otherwise, and for a chunk cut from another); made on first read
        when given as a :class:`LazyGroups`."""
        self._groups_src = LazyGroups.made(self._groups_src)
        return self._groups_src

    @groups.setter
    def groups(self, value):
        self._groups_src = value

    @property
    def _lazy(self):
        """The :class:`Groups` whose per-position statistics are made from
        them on first read, or None."""
        self._lazy_src = LazyGroups.made(self._lazy_src)
        return self._lazy_src

    @property
    def _parts(self):
        if self._parts_made is None and self._lazy_parts is not None:
            return self._lazy_parts.get()
        return self._parts_made

    @classmethod
    def of_whole_rows(cls, N, n, keys, tied_rows, make_parts, few_ties, n_items=None):
        """:meth:`of_parts` of ``n`` whole rows of ``N`` items whose
        parts (``make_parts()``: the untied rows, then ``tied_rows`` with
        their tie groups) are made on first read, and ``few_ties``, the
        :class:`~.few_ties.FewTies` of every row (or None): when every
        kernel of a block reads the rows through it
        (:meth:`few_ties_view`), the parts are never made. ``keys``: the
        item values the parts hold; ``n_items``, the real items of each row
        (None: all ``N``; padding is ranked last)."""
        lazy = LazyParts(make_parts)  # shared with the sums: no reference cycle
        if n_items is None:
            n_items = np.full(n, N, dtype=np.int64)
        out = cls(N, None, None, PartsSums(n, N, lazy, keys), n_items)
        out.tied = out.real_ties = True
        out._lazy_parts = lazy
        out.tied_rows = tied_rows
        out.few_ties_whole = few_ties
        return out

    @classmethod
    def of_parts(cls, L, parts):
        """One chunk of whole rows made of ``parts``, ``[(rows, chunk), ...]``:
        the untied rows (a chunk without ties) and the tied rows (with their
        :class:`Groups`), as :meth:`split_by_ties` returns them, without the
        per-row copies of a split; the whole chunk's per-position statistics
        are put together from the parts on first read."""
        n = sum(rows.shape[0] for rows, _ in parts)
        n_items = np.empty(n, dtype=np.int64)
        for rows, part in parts:
            n_items[rows] = part.n_items
        out = cls(L, None, None, PartsSums(n, L, parts), n_items)
        out.tied = out.real_ties = any(part.real_ties for _, part in parts)
        out._parts_made = parts
        for rows, part in parts:
            if part.tied:
                out.tied_rows, out._tied_groups = rows, part.groups
        return out

    def few_ties_view(self):
        """The rows of a chunk made of parts (:meth:`of_parts`) as one chunk
        read through :attr:`few_ties` (the order given, corrected at the tie
        groups of two or more items), for a kernel that reads nothing else of
        the ranking (``MetricSpec.reads_groups``); None when not made or not
        few (``FewTies.few``). It shares this chunk's row statistics; it has
        no per-position statistic (reading one is an error, not a value)."""
        ties = self.few_ties_whole
        if ties is None or not ties.few:
            return None
        out = RankedChunk(self.L, None, None, NoPositions(ties.values), self.n_items,
                          self.n_ranked)
        out.tied = out.real_ties = True
        out.few_ties = ties
        out.totals, out.ideal, out.block = self.totals, self.ideal, self.block
        out.score_counts, out.items = self.score_counts, self.items
        out.cache = dict(self.cache)  # what its kernels store stays theirs
        return out

    def _assembled(self, name):
        """The per-position statistic ``name`` (``start``, ``size``) of a chunk
        made of parts."""
        out = np.empty((self.n_rows, self.L), dtype=np.int64)
        for rows, part in self._parts:
            out[rows] = getattr(part, name)
        return out

    @property
    def root(self):
        """The chunk this one was cut from, or this chunk."""
        return self if self._root is None else self._root

    @property
    def start(self):
        if self._start is None:
            if self._parts is not None:
                self._start = self._assembled("start")
            elif self._lazy is not None:
                self._start = self._lazy.per_position(self._lazy.start)
            elif self.few_ties is not None:
                raise no_positions()
            else:
                self._start = np.broadcast_to(np.arange(self.L), (self.n_rows, self.L))
        return self._start

    @property
    def size(self):
        if self._size is None:
            if self._parts is not None:
                self._size = self._assembled("size")
            elif self._lazy is not None:
                self._size = self._lazy.per_position(self._lazy.size)
            elif self.few_ties is not None:
                raise no_positions()
            else:
                self._size = np.broadcast_to(np.int64(1), (self.n_rows, self.L))
        return self._size

    @property
    def row_width(self):
        """The width of the block's rows when every position of a row holds an
        item of the block (a matrix ranked whole: :attr:`block` is known, or
        this chunk is a part of one), else None."""
        if self.block is not None:
            return self.block[0].shape[1]
        return self._row_width

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
            self.start[:, :L] if self.tied else None,
            self.size[:, :L] if self.tied else None,
            {k: v[:, :L] for k, v in self.sums.items()},
            np.minimum(self.n_items, depth),
            np.minimum(self.n_ranked, depth),
        )
        out.tied, out.real_ties = self.tied, self.real_ties
        out.totals, out.ideal, out.block = self.totals, self.ideal, self.block
        out.score_counts = self.score_counts
        out.cache = self.cache  # statistics of whole rows, unchanged by the cut
        out._root = self.root
        out.items = self.items
        return out

    def split_by_ties(self):
        """``[(rows, chunk), ...]``: the untied rows and the tied rows of a
        chunk ranked over whole rows as two chunks (the untied one takes the
        kernels' path without ties), or None when the chunk is not split.

        Only a chunk whose ranking found few tied rows among many
        (:attr:`tied_rows`, float scores) is split, and only before any kernel
        stored a statistic on it (its cache holds the ideal's levels at most).
        """
        tied = self.tied_rows
        if tied is None or not tied.size or not self.tied or self._root is not None:
            return None
        if any(k[0] != "levels" for k in self.cache) or self.memo:
            return None
        if self._parts is not None:
            return [(rows, self._rows(rows, part.tied, part)) for rows, part in self._parts]
        untied = np.ones(self.n_rows, dtype=bool)
        untied[tied] = False
        plain = flatnonzero(untied)
        return [(plain, self._rows(plain, tied=False)), (tied, self._rows(tied, tied=True))]

    def _rows(self, rows, tied, out=None):
        """The rows ``rows`` (sorted indices) as a chunk of their own: ``out``
        (a part of :meth:`of_parts`, given its share of what the whole chunk
        holds), or a new chunk of their statistics."""
        if out is None:
            out = RankedChunk(
                self.L,
                self.start[rows] if tied else None,
                self.size[rows] if tied else None,
                {k: v[rows] for k, v in self.sums.items()},
                self.n_items[rows],
                self.n_ranked[rows],
            )
            out.groups = self._tied_groups if tied else None
        else:  # (what a caller set on the whole chunk: the rows of no real item rank none)
            out.n_ranked = self.n_ranked[rows]
        out.real_ties = self.real_ties and tied
        out.ranks_every_item = self.ranks_every_item
        out._row_width = self.row_width
        out.totals = _RowsOf(self.totals, rows)
        out.ideal = self.ideal.take_rows(rows) if hasattr(self.ideal, "take_rows") else {
            k: v[rows] for k, v in self.ideal.items()}
        out.cache = {k: v.take_rows(rows) for k, v in self.cache.items()}
        if out.items is None and self.items is not None:  # (a part keeps its own)
            out.items = _RowsOf(self.items, rows)
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

    def weighted(self, name, w):
        """``sum_p E[name at p] * w[p]`` of each row over its first ``len(w)``
        positions (``len(w) <= L``): the expected weighted sum of an item value.

        On a chunk ranked over whole rows with its tie groups (integer scores:
        a few per row) it is one term per group, the group's mean value times
        its positions' summed weights; elsewhere one product per position.
        """
        kc = w.shape[0]
        if self.few_ties is not None and self.few_ties.few:
            return self.few_ties.weighted(name, w)
        g = self.groups
        if not self.tied or g is None:
            return self.mean(name)[:, :kc] @ w
        s = g.start
        # A group of one item: its own weight, not a difference of running sums
        # (which loses the low bits of a small weight deep in a long row).
        one = flatnonzero(g.size == 1)
        w_all = np.zeros(g.L + 1)
        w_all[:kc] = w
        if one.shape[0] == s.shape[0]:
            # Every group one item (distinct scores over sparse relevance):
            # its value times its weight (a mean over one item is the value).
            return np.bincount(g.row, weights=g.sums[name] * np.take(w_all, s),
                               minlength=self.n_rows)
        W = np.zeros(g.L + 1)
        np.cumsum(w, out=W[1:kc + 1])
        W[kc + 1:] = W[kc]
        span = np.take(W, s + g.size) - np.take(W, s)
        if one.size:
            span[one] = np.take(w_all, np.take(s, one))
        return np.bincount(g.row, weights=g.sums[name] / g.size * span, minlength=self.n_rows)

    def cumulative(self, name):
        """``C`` of shape (n, L + 1): ``C[:, j]`` is the expected sum of the item
        value ``name`` over the first ``j`` positions."""

        def make(r):
            C = np.empty((r.n_rows, r.L + 1))
            C[:, 0] = 0.0
            if not r.tied and is_indicator(name):
                C[:, 1:] = count_cumsum(r.sums[name])  # counts: exact
            else:
                row_cumsum(r.mean(name), out=C[:, 1:])
            return C

        return self._shared(("cum", name), make)[:, : self.L + 1]


class _RowsOf(dict):
    """Rows ``rows`` of a mapping of per-row arrays, read on first use (the
    totals of a block are computed on first use)."""

    def __init__(self, whole, rows):
        super().__init__()
        self._whole, self._rows = whole, rows

    def __missing__(self, key):
        value = self[key] = self._whole[key][self._rows]
        return value

    def __contains__(self, key):
        return dict.__contains__(self, key) or key in self._whole


def rank_chunk(y_score, values, L, *, ignore_ties=False, n_items=None, keep_items=False,
               reads_counts=False, check=None):
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
        Rank tied scores in one order instead of averaging over their
        orderings: the later column first (by score, then column, both
        descending), at every ``L``, so that the first ``L`` positions are
        those of the whole ranking.
    n_items : ndarray of shape (n,) or None
        Real items per row; ``None`` means every row has ``N``.
    keep_items : bool
        Keep the ranked item values as ``RankedChunk.items``. When a tie group
        of real items runs past position ``L``, its members beyond ``L`` are
        needed too: the chunk is then ranked over whole rows (``L = N``).
    reads_counts : bool
        A request reads the rows beyond position ``L`` (R-precision): integer
        scores in a small span are then counted whole (``score_counts``), not
        only their top tie group.
    check : ScoreCheck or None
        The scores' check, made by a selection's partition where it makes
        one (the caller makes it otherwise, before reading the chunk).

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
    if isinstance(values, dict):
        values = _GivenValues(values)
    if not ignore_ties and not keep_items:
        rc = _by_counts(y_score, values, L, n_items, reads_counts)
        if rc is not None:
            return rc
    rest = None
    if L < N and ignore_ties:
        # The top L of the order ignore_ties takes (score, then column, both
        # descending): a prefix of the whole row's.
        top, below, rest = select_top(y_score, L, later=True, check=check)
        top, sv = later_first(top, np.take(flat_scores, top))
    elif L < N:
        top, below, rest = select_top(y_score, L, check=check)
        top_scores = np.take(flat_scores, top)
        # Each row's L entries in decreasing score: their order, as flat
        # indices into the (n, L) arrays.
        order = np.argsort(top_scores, axis=1)[:, ::-1]
        order += (np.arange(n) * L)[:, None]
        top = np.take(top, order)
        sv = np.take(top_scores, order)
        if keep_items and bool(((below == sv[:, -1]) & (below > -np.inf)).any()):
            return rank_chunk(y_score, values, N, n_items=n_items, keep_items=True)
    else:
        top, sv = _whole_rows(y_score, base, ignore_ties)
        below = None
    ranked_vals = values.at(top)
    if ignore_ties or not _real_items_tie(sv, below, n_items):
        # (Padding, -inf, ties with padding only: past each row's n_ranked,
        # which the kernels read, every position is a group of one.)
        rc = RankedChunk(L, None, None, ranked_vals, n_items)
        rc.items = ranked_vals if keep_items else None
        return rc

    tied_rows = None
    if below is None:
        start, size, sums, tied_rows, groups = _tie_groups_of_tied_rows(
            sv, ranked_vals, lazy=True, own=not keep_items)
    else:
        start, size, sums = tie_groups(sv, ranked_vals)

    if below is not None:
        # The last group may continue past position L: count it over the row.
        cut = flatnonzero(below == sv[:, -1])
        if cut.size:
            in_last = start[cut] == start[cut, -1][:, None]
            if rest is not None:
                # The selection gathered the group's members it left out:
                # they add to those within the L positions.
                r = rest // N
                m, rows_of, within = n, cut, True
            else:
                # The rows are read for the group's members (a slice spares
                # copying the block when every row is cut).
                cut = slice(None) if cut.size == n else cut
                eq = y_score[cut] == sv[cut, -1][:, None]
                m, rows_of, within = eq.shape[0], slice(None), False
                # The values of the group's members only (a pass over whole
                # rows would cost the block's width whatever the group's size).
                rest = flatnonzero(eq)
                r = rest // N
                if not isinstance(cut, slice):
                    rest = cut[r] * N + rest % N
            count = np.bincount(r, minlength=m)[rows_of][:, None]
            if within:
                count = count + size[cut]
            size[cut] = np.where(in_last, count, size[cut])
            for name, vals in values.at(rest).items():
                tot = np.bincount(r, weights=vals, minlength=m)[rows_of][:, None]
                if within:
                    tot = tot + sums[name][cut]
                sums[name][cut] = np.where(in_last, tot, sums[name][cut])
    rc = RankedChunk(L, start, size, sums, n_items,
                     groups=groups if below is None and start is None else None)
    rc.real_ties = True
    rc.items = ranked_vals if keep_items else None
    rc.tied_rows = tied_rows
    if below is None:
        if tied_rows is None:
            rc.groups = groups
        else:
            rc._tied_groups = groups
        if start is None and not keep_items and (n_items == N).all():
            # Most rows tie, in a few places (float64 scores rounded to four
            # decimals): the kernels that read tie groups only take the
            # order given, corrected at the groups (None: many places).
            rc.few_ties = FewTies.of(sv, ranked_vals)
    return rc


def _real_items_tie(sv, below, n_items):
    """Whether two real items of the sorted rows ``sv`` tie (or the last one
    ties with the best left out, ``below``). Padding is ranked after the
    ``n_items`` real items of each row (``-inf``, or for integers one below
    every real one; a row of padding alone counts one, ``-inf``, or has no
    integer scores): its ties with itself do not count."""
    same = sv[:, 1:] == sv[:, :-1]
    cut = None if below is None else below == sv[:, -1]
    if not same.any() and (cut is None or not cut.any()):
        return False
    L = sv.shape[1]
    return bool((same & (np.arange(1, L) < n_items[:, None]) & (sv[:, 1:] > -np.inf)).any()) or (
        cut is not None and bool((cut & (n_items >= L) & (sv[:, -1] > -np.inf)).any()))


def _whole_rows(y_score, base, ignore_ties):
    """``(top, sv)``: the flat indices of each row's items by decreasing score
    (``base`` the rows' flat offsets) and their scores."""
    by_score, stable = row_argsort(y_score)
    if ignore_ties and not stable:
        # NumPy's default sort is not stable: the rows where real items
        # tie are sorted again, stably, so that reversed their ties come
        # by column descending (the order need only group the ties
        # otherwise).
        asc = np.take_along_axis(y_score, by_score, axis=1)
        tied = flatnonzero(((asc[:, 1:] == asc[:, :-1]) & (asc[:, 1:] > -np.inf)).any(axis=1))
        if tied.size:
            by_score[tied] = np.argsort(y_score[tied], axis=1, kind="stable")
    # Reversed and offset in one pass (a ufunc's output is C-ordered).
    top = np.add(by_score[:, ::-1], base, dtype=np.intp)
    return top, np.take(y_score.reshape(-1), top)


def _by_counts(y_score, values, L, n_items, reads_counts=False):
    """:func:`rank_chunk` of integer scores in a small span from the counts of
    each score (ties averaged), or None for other scores. Where every row's
    first ``L`` positions lie in its top tie group and nothing reads the
    counts (``reads_counts``), that group alone is found."""
    n, N = y_score.shape
    if (L < N and not reads_counts and y_score.dtype.kind in "iu"
            and (n_items == N).all()):
        top = top_tie_groups(y_score, L)
        if top is not None:
            return _ranked_in_top_groups(values, L, n_items, n, N, *top)
    # (Padding: each row's last group, :func:`~.padding.counted_padding`.)
    span = score_span(y_score)
    if span is None:
        return None
    if L == N:
        fused = _counted_with_levels(y_score, values, span)
        if fused is not None:
            return _whole_rows_by_counts(y_score, values, n_items, *fused)
    counted = score_counts(y_score, L, span)
    if counted is None:
        return None
    if L < N:
        return _ranked_by_counts(y_score, values, L, n_items, counted)
    return _whole_rows_by_counts(y_score, values, n_items, counted)


def _ranked_in_top_groups(values, L, n_items, n, N, idx, size):
    """:func:`rank_chunk` of rows whose ``L`` first positions all lie in
    their top tie group (:func:`~.select.top_tie_groups`: ``idx``, its
    entries, and ``size``, its size per row): at each position the group's
    first position 0, its size and its sums, as :func:`_ranked_by_counts`
    gives them, without counting every score of the rows."""
    row = idx // N
    sums = {name: np.repeat(np.bincount(row, weights=v, minlength=n), L).reshape(n, L)
            for name, v in values.at(idx).items()}
    if not (size > 1).any():
        return RankedChunk(L, None, None, sums, n_items)
    rc = RankedChunk(L, np.zeros((n, L), dtype=np.intp),
                     np.repeat(size.astype(np.intp), L).reshape(n, L), sums, n_items)
    rc.real_ties = True
    return rc


def counts_with_levels(values, width, N):
    """Whether whole rows of ``N`` integer scores spanning ``width`` values are
    counted with their levels (:func:`_counted_with_levels`): a check of the
    block's extremes, no pass. (Padding may take a code of its own.)"""
    if not isinstance(values, BlockValues):
        return False
    padded = values.masks.real is not None
    fit = level_span(values, padded)
    return fit is not None and width * (fit[1] + padded) <= _LEVEL_TABLE_RATIO * N


def _counted_with_levels(y_score, values, span):
    """``(counted, table)``: whole rows of integer scores (``span`` their
    :func:`~.select.score_span`) counted once by (row, score, level) when
    the relevance takes a few integer levels
    (:func:`~.padding.padded_level_codes`), or None.

    The one table gives each row's count of each score (the
    :class:`~.select.ScoreCounts`: no count of its own), each group's sums
    (``table``, one row per (row, score) group and a column per level code;
    :func:`_group_sums` would count it again) and each row's count of each
    level, kept (as the table) in ``values.level_counts`` for the ideal's counts to read
    (:func:`~.ideal.ideal_levels`): one counting pass over the block where
    there were three (the ideal's a comparison per level).
    """
    n, N = y_score.shape
    lo, hi = span
    width = hi - lo + 1
    if not counts_with_levels(values, width, N):
        return None
    fit = padded_level_codes(values, values.masks.real is not None)
    if fit is None:
        return None
    codes, _, lo_level, n_levels, padding = fit
    key = level_group_keys(y_score, y_score.dtype.type(hi), width, codes, n_levels)
    table = np.bincount(key, minlength=n * width * n_levels).reshape(n, width, n_levels)
    by_score = np.ascontiguousarray(sum_along(table, 2).T)  # (score, row), the best first
    if any(r.needs_ideal for r in values.requests) and not padding:
        # Kept for the ideal's counts only: held to the block's end, the
        # table would add to the peak of a kernel reading no ideal (ERR).
        # (Padding coded as level 0 is worth nothing; a code of its own is
        # no level: the ideal then counts the levels itself.)
        values.level_counts = (lo_level, table)
    counted = score_counts(y_score, N, span, by_score)
    if counted is None:
        return None
    return counted, (table.reshape(n * width, n_levels), fit)


def _whole_rows_by_counts(y_score, values, n_items, counted, table=None):
    """:func:`rank_chunk` of whole rows of integer scores in a small span, ties
    averaged, as a chunk of tie groups (see :class:`Groups`), or None when no
    two scores of a row tie.

    Each score of a row is one tie group, and the counts of each (row, score)
    say where it starts and how large it is: nothing is sorted, and each item
    value is summed per group by one ``np.bincount`` (or read off ``table``,
    the counts of each group's level codes, and their
    :func:`~.padding.padded_level_codes`,
    from :func:`_counted_with_levels`). The per-position statistics are made
    from the groups only if a kernel reads them.
    """
    n, N = y_score.shape
    span = counted.counts.shape[0]
    sizes = np.ascontiguousarray(counted.counts.T).reshape(-1)  # (row, score), best first
    if not (sizes > 1).any():
        return None
    starts = np.ascontiguousarray(counted.ends.T).reshape(-1) - sizes
    held = flatnonzero(sizes)
    if table is None:
        sums = _group_sums(group_keys(y_score, counted.hi, span), values, n * span, held)
    else:
        sums = _sums_of_levels(table[0], values, table[1], held)
    groups = Groups((held // span) * N + starts[held], sizes[held], sums, N)
    rc = RankedChunk(N, None, None, _GroupSums(groups), n_items, groups=groups)
    rc.real_ties = real_groups_tie(sizes.reshape(n, span), values)
    return rc


#: :func:`_group_sums` counts the levels per group when the (group, level)
#: table holds at most this many cells per entry.
_LEVEL_TABLE_RATIO = 4


def _group_sums(key, values, n_groups, held):
    """Each item value summed over the groups ``held`` of the entries' group
    numbers ``key`` (flat intp, below ``n_groups``; overwritten).

    When the relevance takes a few integer levels
    (:func:`~.padding.padded_level_codes`), the
    entries of each (group, level) are counted by one ``np.bincount`` without
    weights, and each value's group sums are those counts times the value of
    each level: nothing is derived per entry (ERR reads five values: on dense
    graded relevance over integer scores, a third of its time went to
    deriving and summing them). Otherwise each value is derived over the
    block and summed per group with weights (one pass each).
    """
    fit = (padded_level_codes(values, values.masks.real is not None)
           if isinstance(values, BlockValues) else None)
    if fit is not None and n_groups * fit[3] <= _LEVEL_TABLE_RATIO * key.shape[0]:
        codes, n_levels = fit[0], fit[3]
        cell = np.multiply(key, n_levels, out=key)
        cell += codes.reshape(-1)
        counts = np.bincount(cell, minlength=n_groups * n_levels).reshape(n_groups, n_levels)
        return _sums_of_levels(counts, values, fit, held)
    return {name: np.bincount(key, weights=v.reshape(-1), minlength=n_groups)[held]
            for name, v in values.of_rows(slice(None)).items()}


def _sums_of_levels(counts, values, fit, held):
    """Each value's sums over the groups ``held`` from ``counts`` (one row
    per group, a column per level code of ``fit``,
    :func:`~.padding.padded_level_codes`)."""
    codes, _, lo, n_levels, padding = fit
    per_level = level_values(values, lo, n_levels, codes, padding)
    if not per_level:  # a measure that reads no item value (num_ret)
        return {}
    V = np.vstack(list(per_level.values())).astype(np.float64)  # a row per value
    if V.shape[0] == 1:  # one product of the counts with a vector, then the held
        return {name: np.take(counts @ V[0], held) for name in per_level}
    # The held groups' counts as float64, then one product for every value
    # (a row each, contiguous). NumPy multiplies an integer matrix by a float
    # matrix in a loop of its own, about ten times slower than the float64
    # product (BLAS); by a vector, it is as fast as BLAS.
    sums = V @ np.take(counts, held, axis=0).astype(np.float64).T
    return {name: sums[j] for j, name in enumerate(per_level)}


def _ranked_by_counts(y_score, values, L, n_items, counted):
    """:func:`rank_chunk` of integer scores in a small span, from each row's
    count of each score (a :class:`~.select.ScoreCounts`), ties averaged.

    Each score of a row is one tie group, and the counts say where each
    group starts and how large it is: nothing is sorted, and no member of
    the group the cut splits need be chosen. The entries scoring at least
    the row's L-th largest are found in one comparison, and their values
    summed per (row, score).
    """
    n, N = y_score.shape
    span = counted.counts.shape[0]
    idx = flatnonzero(by_row(np.greater_equal, y_score, counted.t))
    # Each entry's group: its row's scores, the best first.
    gap = np.subtract(counted.hi, np.take(y_score.reshape(-1), idx)).astype(np.intp)
    key = (idx // N) * span + gap
    # Per (row, group), row-major: first position, size, positions among the L.
    sizes = np.ascontiguousarray(counted.counts.T).reshape(-1)
    ends = np.ascontiguousarray(counted.ends.T).reshape(-1)
    starts = ends - sizes
    shown = np.clip(np.minimum(ends, L) - starts, 0, None)
    group = np.repeat(np.arange(n * span), shown)  # each position's group, n * L
    size = np.take(sizes, group).reshape(n, L)
    sums = {name: np.take(np.bincount(key, weights=v, minlength=n * span),
                          group).reshape(n, L)
            for name, v in values.at(idx).items()}
    if not (size > 1).any():  # no two entries tie: the sums are the values
        rc = RankedChunk(L, None, None, sums, n_items)
    else:
        rc = RankedChunk(L, np.take(starts, group).reshape(n, L), size, sums, n_items)
        rc.real_ties = real_groups_tie(sizes.reshape(n, span), values)
    rc.score_counts = counted
    return rc
