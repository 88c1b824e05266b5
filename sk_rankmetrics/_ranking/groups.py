"""Tie groups of sorted rows: where each starts, how large it is, and each
item value summed over it, made on first read."""

from __future__ import annotations

import functools

import numpy as np

from .._utils.fast import rows_with_equal_neighbours
from .._utils.nonzero import flatnonzero
from .item_values import OnFirstRead


class Groups:
    """The tie groups of a chunk ranked over whole rows, one entry per group,
    row-major: ``first``, the flat index of its first position in the (n, L)
    arrays; ``size``; ``sums``, each item value summed over the group. A
    kernel may work per group instead of per position (integer scores: a few
    groups per row). Every row starts a group, but for the groups of relevant
    items only (:func:`~._ranking.relevant.rank_relevant`), where a row may
    hold none and the first starts anywhere."""

    def __init__(self, first, size, sums, L):
        self.first, self.size, self.sums, self.L = first, size, sums, L
        self._index = None

    def per_position(self, v):
        """The per-group values ``v`` at each position, shape (n, L)."""
        if self._index is None:  # each position's group
            self._index = np.repeat(np.arange(self.size.shape[0]), self.size)
        return np.take(v, self._index).reshape(-1, self.L)

    @functools.cached_property
    def row(self):
        """Each group's row (made once: the kernels of a chunk share it)."""
        return self.first // self.L

    @functools.cached_property
    def start(self):
        """Each group's first position in its row (from :attr:`row`, no
        second division)."""
        return self.first - self.row * self.L


def tie_groups(sv, ranked_vals):
    """:func:`_tie_groups` without the per-group statistics."""
    return _tie_groups(sv, ranked_vals)[:3]


def _tie_groups(sv, ranked_vals):
    """Tie-group start, size and per-group sums of each position of sorted rows.

    ``sv`` holds the sorted scores of shape (n, L); ``ranked_vals`` maps names
    to item values in the same order. Groups are counted within the L columns.
    """
    groups = _groups_only(sv, ranked_vals)
    sums = {name: groups.per_position(v) for name, v in groups.sums.items()}
    return groups.per_position(groups.start), groups.per_position(groups.size), sums, groups


def _groups_only(sv, ranked_vals, new=None):
    """The :class:`Groups` of sorted rows ``sv`` (see :func:`_tie_groups`),
    without their per-position statistics (a chunk makes those on first read).
    Every row starts a new group, so the groups of the flattened array never
    cross rows: group sums are one ``np.add.reduceat`` over it. ``new``, in
    place of ``sv``: whether each position opens a group (the first of each
    row does)."""
    if new is None:
        n, L = sv.shape
        new = np.empty((n, L), dtype=bool)
        new[:, 0] = True
        np.not_equal(sv[:, 1:], sv[:, :-1], out=new[:, 1:])
    n, L = new.shape
    first = flatnonzero(new.reshape(-1))  # flat index of each group's first position
    g_size = np.diff(np.append(first, n * L))
    return Groups(first, g_size, _ReducedSums(ranked_vals, first), L)


class _ReducedSums(OnFirstRead):
    """``Groups.sums``: each item value summed over every group (one
    ``np.add.reduceat`` over the flattened rows), made on first read, so that
    a value no kernel reads is neither derived nor summed."""

    def __init__(self, ranked_vals, first):
        super().__init__(ranked_vals)
        self._vals, self._first = ranked_vals, first

    def _make(self, name):
        return np.add.reduceat(self._vals[name].reshape(-1), self._first)


class LazyGroups:
    """The :class:`Groups` of sorted rows, found on first read (by the
    kernels that read groups or per-position statistics: a chunk read through
    its :class:`~.few_ties.FewTies` never reads them). ``new``: see
    :func:`_groups_only` (a byte an item, where ``sv`` holds eight), or a
    function that makes it on first read."""

    def __init__(self, sv, ranked_vals, new=None):
        self._args, self._made = (sv, ranked_vals, new), None

    def get(self):
        if self._made is None:
            sv, ranked_vals, new = self._args
            if callable(new):  # made on first read too
                new = new()
            self._made, self._args = _groups_only(sv, ranked_vals, new), None
        return self._made

    @staticmethod
    def made(groups):
        """``groups`` itself, or the :class:`Groups` of a :class:`LazyGroups`."""
        return groups.get() if isinstance(groups, LazyGroups) else groups


class _GroupSums(OnFirstRead):
    """``RankedChunk.sums`` of a chunk with lazy per-position statistics: each
    item value's group sums at every position, made on first read."""

    def __init__(self, groups, keys=None):
        super().__init__(groups.sums if keys is None else keys)
        self._groups = groups

    def _make(self, name):
        g = self._groups = LazyGroups.made(self._groups)
        return g.per_position(g.sums[name])


def _tie_groups_of_tied_rows(sv, ranked_vals, lazy=False, own=False):
    """:func:`tie_groups` of whole sorted rows, computed on the rows that hold a
    tie only (float32 scores tie in a few rows of a block): the other rows'
    groups are single items, their sums the values themselves. Then the tied
    rows, or None when they are not few (half the block or more), and the
    :class:`Groups` of the rows :func:`_tie_groups` read (the tied rows, or all).
    ``lazy``: when most rows tie, the per-position statistics are left for the
    chunk to make from the groups on first read (start and size None, the
    sums a :class:`_GroupSums`): kernels that work per group never need them.
    ``own``: the arrays of ``ranked_vals`` may be written over."""
    n, L = sv.shape
    tied = rows_with_equal_neighbours(sv)
    if 2 * tied.size >= n and lazy:
        groups = _groups_only(sv, ranked_vals)
        return None, None, _GroupSums(groups), None, groups
    if 2 * tied.size >= n:
        start, size, sums, groups = _tie_groups(sv, ranked_vals)
        return start, size, sums, None, groups
    start = np.empty((n, L), dtype=np.int64)
    start[:] = np.arange(L)
    size = np.ones((n, L), dtype=np.int64)
    t_start, t_size, t_sums, groups = _tie_groups(
        sv[tied], {k: v[tied] for k, v in ranked_vals.items()})
    start[tied], size[tied] = t_start, t_size
    sums = {}
    for name, v in t_sums.items():
        rv = ranked_vals[name]
        # The untied rows' sums are their values: written over where the
        # caller keeps no other use of them (a copy of the block spared).
        sums[name] = rv if own and rv.dtype == v.dtype else np.array(rv, dtype=v.dtype)
        sums[name][tied] = v
    return start, size, sums, tied, groups
