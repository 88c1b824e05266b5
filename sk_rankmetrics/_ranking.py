"""The ranking pass: order each row of a chunk once and describe its tie groups.

For every row of a chunk this module finds the first ``L`` positions of the
ranking induced by ``y_score`` (``np.argpartition`` then a sort of those ``L``
items only; a full sort only when ``L`` is the whole row) and, for each of
those positions, the *tie group* it belongs to: the group's first position,
its size (counting members that fall beyond ``L``) and the sum of each item
value (gain, relevance indicator) over the group.

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
        Number of ranked positions described.
    start : ndarray of shape (n, L), int
        0-based first position of the tie group at each position.
    size : ndarray of shape (n, L), int
        Size of that tie group (members beyond ``L`` included).
    sums : dict of str -> ndarray of shape (n, L)
        Sum of each item value over the tie group at each position.
    n_items : ndarray of shape (n,), int
        Real items in each row (fewer than the width for padded rows).
    n_relevant : dict of str -> ndarray of shape (n,)
        Relevant items in the whole row, per relevance key (filled by the
        engine).
    ideal : dict of str -> ndarray of shape (n, Li)
        The row's ``Li`` largest gains in increasing order (the best last),
        per gain key (filled by the engine).

    When no position is tied (``start``/``size`` passed as None) every group
    is a single item: ``start`` is the position, ``size`` is 1, and the sums
    are the ranked values themselves; nothing is allocated for them.
    """

    def __init__(self, L, start, size, sums, n_items):
        self.L = L
        self.tied = start is not None
        self._start = start
        self._size = size
        self.sums = sums
        self.n_items = n_items
        self.n_relevant = {}
        self.ideal = {}

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
    y_score : ndarray of shape (n, N), float
        Scores; higher ranks earlier. Padding entries (if any) hold ``-inf``.
    values : dict of str -> ndarray of shape (n, N)
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
    return RankedChunk(L, start, size, sums, n_items)
