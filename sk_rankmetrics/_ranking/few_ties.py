"""Rows ranked whole in one order of their ties, and their tie groups of two
items or more.

A row of float32 scores that ties holds a pair or two among a thousand items.
Its expected measure over the orders of its ties is the measure of the order
given plus, for each group of two or more items, the group's expected terms
less the terms of the order given: for every measure of the full-depth
family an item's term depends on the items above it only through what is
summed (or multiplied) over them, the same in every order of an earlier
group, so a tie changes the terms of its own positions only. Kernels that
read :class:`FewTies` (``RankedChunk.few_ties``) take the path without ties
over the whole rows and correct the positions of the groups: work in the
groups' items, where the per-group path works in every item of the row.
"""

from __future__ import annotations

import numpy as np

from .._utils.fast import count_cumsum, many_rows, running_down, short_rows
from .._utils.nonzero import flatnonzero
from .item_values import LevelValues, as_flags, is_indicator

#: Rows whose tie groups hold more than this share of their items
#: (:attr:`FewTies.share`) are read by their groups, not corrected at them,
#: in the kernels of weighted sums (DCG, RBP, with or without a cut-off:
#: ``RankedChunk.weighted``), and a block where a few rows tie is split
#: into its untied and its tied rows. Float64 scores of three decimals on
#: rows of 500 (tied pairs of about 42 % of the items), corrected against
#: by groups: nDCG 1.06x a row argsort against 1.57x. The kernels of AP,
#: bpref, infAP, ERR, ndcg_rel and Rndcg read the few ties whatever their
#: share: on two decimals on rows of 100 over dense graded relevance (about
#: 60 % of the items in groups of two codes or more) ERR 7.4x against
#: 10.0x, ndcg_rel 6.7x against 18.9x, nDCG 3.3x against 3.1x; three
#: decimals on rows of 1,000, ERR 1.7x against 5.7x. See
#: benchmarks/README.md.
MOST_TIED = 0.5

#: :meth:`FewTies.group_counts` counts the groups' items by code where the
#: codes number at most this many (an array of the groups times the codes).
_FEW_CODES = 64


class FewTies:
    """The rows of a chunk in one order of their ties (``values``: each item
    value in rank order, shape (n, N)) and their tie groups of two or more
    items (those that join two level codes or more: :meth:`of_pairs`), the
    groups' arrays made on first read.

    Attributes
    ----------
    first, size, row, start : ndarray of shape (n_groups,)
        Each group's flat first position (in the (n, N) layout), number of
        items, row and 0-based first position.
    member, gid, pos : ndarray of shape (n_members,)
        Each grouped position (flat, increasing), its group and its 0-based
        position in the row.
    opens : ndarray of shape (n_groups,)
        Each group's first member (an index into ``member``): a group's
        members are ``member[opens[g]:opens[g] + size[g]]``.
    """

    def __init__(self, pairs, values, n, N, m=None):
        self.n, self.N, self.values = n, N, values
        self._pairs, self._m = pairs, n if m is None else m
        self._mixed = not isinstance(values, LevelValues) or not pairs.shape[0]
        self._share = None
        self._memo = {}

    #: The arrays made on first read (:meth:`_make`).
    _ARRAYS = frozenset({"first", "size", "gid", "opens", "member", "pos", "row", "start"})

    def __getattr__(self, name):
        # (Python asks here for an attribute not set: the arrays, not made
        # until a kernel reads them.)
        if name in FewTies._ARRAYS:
            self._make()
            return self.__dict__[name]
        raise AttributeError(name)

    def _make(self):
        """The groups' arrays, from the pairs of the groups that join two
        level codes or more."""
        pairs = self._pairs_of_mixed()
        N = self.N
        opens = _run_opens(pairs)
        self.first = pairs[opens]
        self.size = np.diff(np.append(flatnonzero(opens), pairs.shape[0])) + 1
        self.gid = np.repeat(np.arange(self.first.shape[0]), self.size)
        self.opens = np.cumsum(self.size) - self.size
        # Member i of a group is its (i - the group's first member)-th item.
        shift = self.first - self.opens
        self.member = np.arange(self.gid.shape[0]) + np.repeat(shift, self.size)
        self.pos = self.member % N
        self.row, self.start = np.divmod(self.first, N)

    def _pairs_of_mixed(self):
        """The pairs of the groups that join two level codes or more
        (:func:`_of_mixed_groups`; all the pairs where the values are not
        level codes)."""
        if not self._mixed:
            self._pairs = _of_mixed_groups(self._pairs, self.values.codes)
            self._mixed = True
        return self._pairs

    @property
    def share(self):
        """The pairs of the groups that join two codes or more over half the
        items of the rows they were looked for in: about the share of their
        items the groups hold. A block whose first rows' pairs give more
        than :data:`MOST_TIED` is not searched for those groups
        (:func:`_mostly_mixed`): its share is then that of all its pairs
        (more than that too)."""
        if self._share is None:
            half = max(self._m * self.N / 2, 1.0)
            if (not self._mixed and self._pairs.shape[0] > MOST_TIED * half
                    and _mostly_mixed(self._pairs, self.values.codes, MOST_TIED * half)):
                self._share = self._pairs.shape[0] / half
            else:
                self._share = self._pairs_of_mixed().shape[0] / half
        return self._share

    @property
    def few(self):
        """Whether the groups hold at most :data:`MOST_TIED` of the items
        (:attr:`share`): the share up to which the weighted sums
        (``RankedChunk.weighted``) and the whole-block view
        (``RankedChunk.few_ties_view``) read them; AP, bpref, infAP, ERR,
        ndcg_rel and Rndcg read them whatever the share."""
        return self.share <= MOST_TIED

    @classmethod
    def of_pairs(cls, pairs, values, n, N, m=None):
        """The :class:`FewTies` of a block of ``n`` rows of ``N`` items, in
        one order of their ties (``values``), whose neighbours tie at
        ``pairs``: the flat positions (increasing, in the (n, N) layout) of
        the first of each two neighbours that tie, looked for in ``m`` rows
        (default ``n``). Its arrays are made on first read: a kernel that
        reads the groups instead never pays for them.

        Where the values are level codes (:class:`LevelValues`), a group
        whose items all hold one code is left out: each item value read is
        the same at each of its positions in every order of the group, so
        the order given's terms are its expected ones (and a correction
        there would add 0 up to rounding). Over sparse relevance most ties
        join two items of relevance 0. Only the others count in
        :attr:`share`."""
        return cls(pairs, values, n, N, m)

    @classmethod
    def of(cls, sv, values, rows=None, n=None):
        """The :class:`FewTies` of sorted rows ``sv`` (equal neighbours tie).
        With ``rows`` (sorted), ``sv`` holds those rows of a block of ``n``
        (the others tie nowhere), and ``values`` the whole block's."""
        return cls.of_joined(cls.joined(sv), values, rows, n)

    @staticmethod
    def joined(sv):
        """Of sorted rows ``sv`` (m, N), (m, N + 1) bools: column ``p`` whether
        position ``p`` ties with ``p - 1`` (columns 0 and N False)."""
        m, N = sv.shape
        joined = np.zeros((m, N + 1), dtype=bool)
        np.equal(sv[:, 1:], sv[:, :-1], out=joined[:, 1:N])
        return joined

    @classmethod
    def of_joined(cls, joined, values, rows=None, n=None):
        """:meth:`of` given the rows' :meth:`joined` bools."""
        m, N = joined.shape[0], joined.shape[1] - 1
        row, p = np.divmod(flatnonzero(joined.reshape(-1)), N + 1)
        if rows is not None:  # the rows given are these of the block
            row = rows[row]
        return cls.of_pairs(row * N + (p - 1), values, m if n is None else n, N, m)

    def at(self, name):
        """The value ``name`` at each grouped position."""
        key = ("at", name)
        if key not in self._memo:
            v = self.values
            self._memo[key] = (v.take(name, self.member) if hasattr(v, "take")
                               else np.take(v[name].reshape(-1), self.member))
        return self._memo[key]

    def group_sums(self, name):
        """Each group's sum of the value ``name``."""
        key = ("sums", name)
        if key not in self._memo:
            self._memo[key] = np.bincount(self.gid, weights=self.at(name),
                                          minlength=self.first.shape[0])
        return self._memo[key]

    def down(self, name, many=False):
        """``(down, running)`` of the indicator ``name`` read transposed
        (:func:`~sk_rankmetrics._utils.fast.running_down`), for many short
        rows (:func:`~sk_rankmetrics._utils.fast.short_rows`), or with
        ``many`` for many rows of any length
        (:func:`~sk_rankmetrics._utils.fast.many_rows`: bpref's); None for
        others (a kernel's order of additions follows the shape, not which
        kernel made the form first). :meth:`before` then reads its counts
        there."""
        flags = self.indicator(name)
        wanted = many_rows(flags.shape) if many else short_rows(flags.shape)
        if not (wanted and is_indicator(name)):
            return None
        key = ("down", name)
        if key not in self._memo:
            self._memo[key] = running_down(flags)
        return self._memo[key]

    def running(self, name):
        """The running sum of ``name`` along each row, position ``p``
        included: counts for an indicator (:func:`count_cumsum`), else in
        float64."""
        key = ("running", name)
        if key not in self._memo:
            self._memo[key] = (count_cumsum(self.indicator(name)) if is_indicator(name)
                               else np.cumsum(self.values[name], axis=1))
        return self._memo[key]

    def indicator(self, name):
        """The value ``name`` in rank order, an indicator: as bools where the
        values give them without their float64 copy (:func:`as_flags`); made
        once (:meth:`down` and the kernel that reads both share it)."""
        key = ("indicator", name)
        if key not in self._memo:
            self._memo[key] = as_flags(self.values, name)
        return self._memo[key]

    def before(self, name):
        """The sum of ``name`` over the positions above each grouped position
        (in the order given)."""
        key = ("before", name)
        if key not in self._memo:
            down = self._memo.get(("down", name))  # made by a kernel already, or not
            if down is None:
                running = np.take(self.running(name).reshape(-1), self.member)
            else:  # position p of row r at p * n + r
                running = np.take(down[1].reshape(-1), self.pos * self.n + self.member // self.N)
            self._memo[key] = running - self.at(name)
        return self._memo[key]

    def group_before(self, name):
        """The sum of ``name`` over the items above each group (the same in
        every order of the group and of the groups before it)."""
        return self.before(name)[self.opens]

    def group_counts(self, names):
        """Each group's sums of the indicators ``names`` (whole counts, shape
        (len(names), n_groups)). Where the values are level codes of a few
        levels (:class:`LevelValues`), the groups' items are counted by code
        once (a byte a grouped item and one count) and the counts weighed by
        each indicator's table: where each indicator's own sums cost a
        float64 gather and a count each (ERR's grades, four of them)."""
        v = self.values
        tables = ([v.coded(name)[1] for name in names]
                  if isinstance(v, LevelValues) else None)
        if tables is None or tables[0].shape[0] > _FEW_CODES:
            return np.stack([self.group_sums(name) for name in names])
        codes = v.coded(names[0])[0]
        C, G = tables[0].shape[0], self.first.shape[0]
        by_code = np.bincount(self.gid * C + np.take(codes.reshape(-1), self.member),
                              minlength=G * C).reshape(G, C)
        # Whole counts times 0s and 1s: exact in float64.
        return np.stack(tables).astype(np.float64) @ by_code.T

    def by_row(self, terms, at_member=False):
        """Per row, the sum of ``terms`` (one per group, or per grouped
        position with ``at_member``)."""
        where = self.member // self.N if at_member else self.row
        return np.bincount(where, weights=terms, minlength=self.n)

    def weighted(self, name, w):
        """``sum_p E[name at p] w[p]`` over the first ``len(w)`` positions:
        the order given's weighted sum, each grouped position then given its
        group's mean in place of its own value."""
        kc = w.shape[0]
        base = self.values[name][:, :kc] @ w
        keep = flatnonzero(self.pos < kc)
        mean = self.group_sums(name) / self.size
        diff = np.take(mean, self.gid[keep]) - self.at(name)[keep]
        return base + np.bincount(self.member[keep] // self.N,
                                  weights=diff * np.take(w, self.pos[keep]), minlength=self.n)


#: The share of a block's pairs :func:`_mostly_mixed` reads (its first rows').
_SAMPLE_SHARE = 8


def _mostly_mixed(pairs, codes, most):
    """Whether the pairs of the block's first rows (an eighth of its pairs)
    join two codes so often that over the block those would pass ``most``:
    then the groups that join two codes are not looked for (over dense
    relevance they are most groups, and the search cost a tenth of the
    per-group path's time). A guess from the first rows only: either path
    gives the same values."""
    head = pairs[:max(1, pairs.shape[0] // _SAMPLE_SHARE)]
    differ = np.count_nonzero(joins_two_codes(head, codes))
    return differ * (pairs.shape[0] / head.shape[0]) > most


def joins_two_codes(pairs, codes):
    """Whether each tied pair (flat positions of the first of two tied
    neighbours, :meth:`FewTies.of_pairs`' ``pairs``) joins two level codes
    (``codes``, in rank order)."""
    flat = codes.reshape(-1)
    return np.take(flat, pairs) != np.take(flat, pairs + 1)


def _run_opens(pairs):
    """Whether each of the tied pairs opens a run: a run of pairs ``t, t +
    1, ...`` is one tie group (none crosses a row: no pair starts at a
    row's last position)."""
    opens = np.empty(pairs.shape[0], dtype=bool)
    opens[:1] = True
    np.not_equal(pairs[1:], pairs[:-1] + 1, out=opens[1:])
    return opens


def _of_mixed_groups(pairs, codes):
    """The pairs (:meth:`FewTies.of_pairs`' ``pairs``) of the groups whose
    items hold two level codes or more (``codes``, in rank order): a group
    is a run of pairs ``t, t + 1, ...``, and holds two codes exactly where
    two of its neighbours differ."""
    differ = joins_two_codes(pairs, codes)
    if differ.all():
        return pairs
    run = np.cumsum(_run_opens(pairs)) - 1  # each pair's group
    mixed = np.zeros(int(run[-1]) + 1, dtype=bool)
    mixed[run[differ]] = True
    return pairs[mixed[run]]
