"""Whole rows ranked through their items of nonzero value only (sparse relevance).

Without a cut-off, a measure that reads only the tie groups holding an item of
nonzero value (``MetricSpec.reads_groups``: DCG, nDCG, RBP, AP, bpref, ERR,
ndcg_rel, Rndcg, infAP, G, interpolated precision) needs of each such item
only how many items score above it and how many tie with it (G its group's
members too). With 2-5 % of the items relevant, a row
sort of the values (no argsort: a third of its time) and a binary search of
each relevant item's score in its sorted row give both, and the rest of the
row is never gathered (float64 scores are sorted rounded to float32, half the
bytes, and only the items whose float32 ties another's are counted again in
float64). Integer scores in a small span need neither: each row's count of
each score gives both.
"""

from __future__ import annotations

import numpy as np

from .._utils.fast import sort_float32_rows, sorted_rows, stable_order
from .._utils.nonzero import flatnonzero
from .chunk import RankedChunk, counts_with_levels
from .groups import Groups, _GroupSums
from .item_values import NonzeroEntries, OnFirstRead, looks_dense, worth_counts
from .levels import sorts_narrow
from .select import score_counts, score_span

#: The route is taken when at most one entry in this many has a nonzero value
#: (each costs a binary search of about log2(N) gathers, against the argsort's
#: share of each entry).
DENSITY = 10


class _RelevantGroups(Groups):
    """The tie groups of whole rows that hold an item of nonzero value: the
    others, worth nothing, are left out, so that no per-position statistic
    can be made from these (a kernel reading one is a bug, not a zero).
    ``members``: ``(values, first)``, the values of the items of nonzero
    value (a mapping of item values, in group order) and whether each opens
    its group (None: every group holds one)."""

    members = None

    def per_position(self, v):
        raise RuntimeError(
            "internal error: a kernel read per-position statistics of rows ranked "
            "through their relevant items only (MetricSpec.reads_groups is wrong)")


def takes_relevant_route(requests, ignore_ties, judged, values):
    """Whether a block's requests may be ranked through their relevant items:
    every request without a cut-off reads groups only (or scans without a
    ranking, or reads the ranked set only), the default tie rule, no judged
    mask, and an item of level 0 worth nothing (so that its tie groups may
    be left out). Padded rows (long format) may: their padding scores below
    every real item and is worth nothing, so it is never above a relevant
    item nor in its group."""
    if judged is not None or values.worthless is not None:
        return False
    return requests_take_relevant_route(requests, ignore_ties)


def requests_take_relevant_route(requests, ignore_ties):
    """The part of :func:`takes_relevant_route` that the requests decide
    (a block of no padding and no judged mask then takes the route)."""
    if ignore_ties or worth_counts(requests):
        return False
    ranked = _ranked(requests)
    return bool(ranked) and all(
        r.spec.reads_groups and r.k is None and r.depth is None for r in ranked)


def _ranked(requests):
    """The requests that read the ranking (not a scan of the rows, MRR's, nor
    the ranked set alone)."""
    return [r for r in requests if not (r.scans_rows or r.reads_set)]


def density_beside_narrow(requests):
    """The share (one entry in this many) of nonzero entries up to which a
    block is ranked through them where the levels' route sorts narrow keys
    (:func:`~.levels.sorts_narrow`: rows of at most 512 float scores), whose
    sort costs about what this route's does: the largest of the ranked
    requests' :attr:`~.._metrics.registry.MetricSpec.sparse_beside_sort`
    (the measures' kernels differ in what the full ranking costs them).
    On rows of 1,000 the route keeps :data:`DENSITY`: float64 took
    0.49-0.75 times the levels' sort from 1 to 5 %."""
    return max((r.spec.sparse_beside_sort for r in _ranked(requests)), default=DENSITY)


def _weighs_only(requests):
    """Whether every ranked request reads its relevant groups as a weighted
    sum only (:attr:`~.._metrics.registry.MetricSpec.weighs_groups`): a sum
    over the items of each one's value times its group's mean weight, the
    same whether the items of one group come apart or together, in any
    order."""
    ranked = _ranked(requests)
    return bool(ranked) and all(r.spec.weighs_groups for r in ranked)


def rank_relevant(y_score, values, check=None, n_items=None):
    """The :class:`RankedChunk` of whole rows ``y_score`` (n, N) holding only
    the tie groups of their items of nonzero level, or None when those are not
    few (more than one entry in :data:`DENSITY`). ``check``: the scores'
    :class:`~.._utils.arrays.ScoreCheck` (None: checked already), made from
    the ends of the sorted rows. ``n_items``: the real items of each padded
    row (long format; None: every row whole), whose padding scores below
    every real item (``-inf``, or one below every integer score) and holds
    level 0: it counts below each relevant item, never above it nor tied
    with it, and the ranking of a row is its real items.

    Each such item's tie group starts after the items scoring above it and
    holds every item tying with it: both are counts in its sorted row, found
    by a binary search for its score (``-0.0`` ties with ``0.0``, as the
    comparison says), or, for integer scores in a small span, read off each
    row's count of each score (:func:`~.select.score_counts`: one counting
    pass, no sort). Items of one group are summed together.
    """
    n, N = y_score.shape
    yt = values.yt
    if yt.dtype.kind == "b":
        yt = yt.view(np.uint8)
    nz = values.nonzero  # found already with the block's extremes
    if nz is None:
        if looks_dense(yt, DENSITY):  # (dense relevance: no pass for the count)
            return None
        # (One-byte levels are their own mask: flatnonzero reads them as bytes.)
        nonzero = yt if yt.dtype.itemsize == 1 else yt != 0
        m = int(np.count_nonzero(nonzero))  # counted before any index is made
    else:
        m = nz.flat.shape[0]
    if m * DENSITY > n * N:
        return None
    if m * density_beside_narrow(values.requests) > n * N and sorts_narrow(y_score, values):
        return None
    span = score_span(y_score)
    if span is not None:
        width = span[1] - span[0] + 1
        if counts_with_levels(values, width, N) and not _few_for_counts(m, n, N, width):
            return None
    if nz is None:
        nz = values.nonzero = NonzeroEntries(values.yt, flatnonzero(nonzero))
    flat = nz.flat
    v = np.take(y_score.reshape(-1), flat)
    row = flat // N
    counted = None if span is None else score_counts(y_score, 1, span)
    if counted is not None:
        # The item's score, counted from the row's best: the items scoring at
        # least it, less those scoring it, are above it.
        level = np.subtract(counted.hi, v).astype(np.intp)
        size = counted.counts[level, row]
        upto = N - (counted.ends[level, row] - size)  # items scoring <= v in the row
        below = upto - size
    elif (y_score.dtype == np.float64
          and (found := _count_in_float32(y_score, row, v, N, check, n_items is not None))
          is not None):
        upto, below = found
    else:
        srt = sorted_rows(y_score)  # each row ascending, NaN last
        if check is not None:
            check.by_ends(srt[:, 0], srt[:, -1])
        srt, base = srt.reshape(-1), row * N
        upto, tied = _at_most_and_tied(srt, base, v, N)
        below = upto - 1  # searched again for the items < v where others tie
        if tied.size:
            below[tied] = _count_at_most(srt, base[tied], v[tied], N, np.less)
    above = N - upto
    if _weighs_only(values.requests):
        # Each relevant item a group of its own, in row order (its tie
        # group's start and size): no order within a row, no merge.
        groups = _RelevantGroups(row * N + above, upto - below, values.at_nonzero(), N)
    else:
        # One group per (row, items above), row-major by position; over
        # counted scores, per (row, score from the best), the same groups in
        # the same order in fewer keys (a row's items above grow as its
        # score falls).
        if counted is not None:
            width = counted.counts.shape[0]
            key, bound = row * width + level, n * width
        else:
            key, bound = row * (N + 1) + above, n * (N + 1)
        groups = _merged_groups(values, key, bound, n, row * N + above, upto - below, N)
    n_ranked = (np.full(n, N, dtype=np.int64) if n_items is None
                else np.asarray(n_items, dtype=np.int64))
    rc = RankedChunk(N, None, None, _GroupSums(groups), n_ranked, groups=groups)
    rc.real_ties = bool((groups.size > 1).any())
    rc.partial = True
    return rc


def _merged_groups(values, key, bound, n, first, size, N):
    """The :class:`_RelevantGroups` of the relevant items of rows of ``N``
    (``first``, each one's tie group's flat first position; ``size``, its
    size) whose keys
    ``key`` (row-major, each row's in any order) are equal where they share
    a tie group: in the order of the keys, each group once, the items'
    values summed over it."""
    order, opens = _group_order(key, bound, n)
    heads = order if opens is None else order[flatnonzero(opens)]
    at = values.at_nonzero(order)
    # Summed per group, unless every group holds one item (distinct float
    # scores): the sums are then the values themselves, in order. Either way
    # each is made on its first read (a key no kernel reads is never made).
    one_each = heads.shape[0] == key.shape[0]
    sums = at if one_each else _SummedByGroup(at, opens, heads.shape[0])
    groups = _RelevantGroups(np.take(first, heads), np.take(size, heads), sums, N)
    # Each item's values too, for a kernel reading the members of a group
    # (G): in group order, each group's first marked (None: one item each).
    groups.members = (at, None if one_each else opens)
    return groups


def _group_order(key, bound, n):
    """``(order, first)``: the stable order of the keys ``key`` (each in
    ``[0, bound)``, of ``n`` rows, row-major: the keys of a row follow those
    of the rows before it), and of the keys in that order, which open a run
    of equal keys (None: every key is distinct).

    The keys arrive sorted by row, each row's few keys in any order, which
    NumPy's stable argsort (a merge sort that finds the sorted runs) orders
    at a fraction of its cost on keys in random order: 25,000 keys of rows
    of 5 in 0.06 ms, against 0.35 ms for the flag tables of
    :func:`_order_of_distinct` and 0.21 ms for the radix sort of
    :func:`~.._utils.fast.stable_order`, which ignore the runs. Past
    :data:`_FEW_PER_ROW` keys a row on average, the runs no longer pay and
    the tables (distinct keys) or the radix sort (repeated ones) order them."""
    m = key.shape[0]
    if m <= _FEW_PER_ROW * n:
        order = np.argsort(key, kind="stable")
        key = np.take(key, order)
    else:
        order = _order_of_distinct(key, bound)
        if order is not None:
            return order, None
        order, key = stable_order(key, bound)
    first = np.empty(m, dtype=bool)
    first[:1] = True
    np.not_equal(key[1:], key[:-1], out=first[1:])
    return order, (None if first.all() else first)


#: :func:`_group_order` sorts the keys with their runs while they hold at most
#: this many keys per row on average. (Measured on 25,000 keys, one thread:
#: 0.07 against 0.25 ms for the tables at 8 a row, 0.14 against 0.21 at 10;
#: on 50,000 keys the two meet at 8.)
_FEW_PER_ROW = 8


def _order_of_distinct(key, bound):
    """The order of the keys ``key`` (each in ``[0, bound)``) when they are
    distinct and not too sparse in the bound (one in
    :data:`_SPARSEST_TABLE`), else None (a sort then orders them). The keys
    are marked in a table of ``bound`` flags, whose marks, read in order,
    are the keys sorted, and each key's item is written at its key in a
    second table, read back at the sorted keys. For the relevant items of
    a block (their key their row and place), a few in a hundred of the
    bound, half the time of the sort (5 %: 0.36 ms against 0.75 ms for
    25,000 keys)."""
    m = key.shape[0]
    if m * _SPARSEST_TABLE < bound or m >= 1 << 31:
        return None
    seen = np.zeros(bound, dtype=bool)
    seen[key] = True
    sorted_keys = flatnonzero(seen)
    if sorted_keys.shape[0] != m:
        return None
    item = np.empty(bound, dtype=np.int32)
    item[key] = np.arange(m, dtype=np.int32)
    return np.take(item, sorted_keys).astype(np.intp)


#: :func:`_order_of_distinct` gives way to the sort where fewer than one key
#: in this many of the bound is taken (the two cost about the same at 1 %).
_SPARSEST_TABLE = 64


class _SummedByGroup(OnFirstRead):
    """Each item value of ``at`` (in group order) summed over its group,
    ``first`` marking each group's first item, made on first read.

    A weighted ``np.bincount`` of the items' group numbers adds each group's
    items in order, as ``np.add.reduceat`` does, at a third of its cost on
    groups of one or two items (25,000 items in 22,500 groups: 0.04 ms
    against 0.12 ms)."""

    def __init__(self, at, first, n_groups):
        super().__init__(at)
        self._at, self._n = at, n_groups
        self._group = np.cumsum(first, dtype=np.intp)
        self._group -= 1

    def _make(self, name):
        return np.bincount(self._group, weights=self._at[name], minlength=self._n)


def _few_for_counts(m, n, N, width):
    """Whether ``m`` relevant items of ``n`` rows of ``N`` integer scores in a
    span of ``width`` values are few enough for this route, where the other
    counts the scores with their levels (:func:`~.chunk.counts_with_levels`)
    and reads each row's groups of equal scores, about ``n * min(width, N)``
    of them. This route pays about 1.5 times a group's cost per relevant
    item; the other pays about a fortieth of it more per entry (its count
    carries the levels). So it is taken while ``1.5 m <= n * min(width, N) +
    n * N / 40``. (Measured on one thread, levels 1..4, scores 0..9: the
    routes break even at about 8 % relevant on rows of 100 and 2 % on rows
    of 1,000.)"""
    return 3 * m <= 2 * n * min(width, N) + (n * N) // 20


#: :func:`_count_in_float32` gives way to the float64 sort when more than
#: one relevant item in this many ties another in float32.
_MOST_TIED_32 = 8


def _count_in_float32(y_score, row, v, N, check, padded=False):
    """``(upto, below)``: of each relevant item (its ``row`` and float64
    score ``v``), the items of its row scoring at most ``v`` and below it,
    from a row sort of the scores rounded to float32 (half the bytes to
    sort, and NumPy's sort takes twice the values a step); or None when the
    float32 values leave too many relevant items tied (:data:`_MOST_TIED_32`)
    or are not finite (the float64 sort checks the scores). ``padded``:
    rows padded with ``-inf`` (long format, the real scores checked
    already), which sorts first in float32 too.

    Rounding keeps the order: a score whose float32 is below (above) the
    item's is below (above) it in float64 too. Only the scores that round
    to the item's own float32 are in doubt: where the item is alone there
    (its sorted neighbour below differs), its float32 counts are exact;
    the others are counted against their row's float64 scores."""
    s32 = sort_float32_rows(y_score.astype(np.float32))
    low = s32[:, 0]
    if not ((np.isfinite(low) | (padded & (low == -np.inf))).all()
            and np.isfinite(s32[:, -1]).all()):
        return None
    upto, doubt = _at_most_and_tied(s32.reshape(-1), row * N, v.astype(np.float32), N)
    if doubt.shape[0] * _MOST_TIED_32 > v.shape[0]:
        return None
    if check is not None:
        check.by_ends(s32[:, 0], s32[:, -1])
    below = upto - 1
    if doubt.size:
        scores, at = y_score[row[doubt]], v[doubt, None]
        upto[doubt] = np.count_nonzero(scores <= at, axis=1)
        below[doubt] = np.count_nonzero(scores < at, axis=1)
    return upto, below


def _at_most_and_tied(srt, base, v, N):
    """``(upto, tied)``: per query, the entries ``<= v`` of its sorted row
    ``srt[base:base + N]`` (:func:`_count_at_most`; the query's own item is
    one of them, the last or one tying with it), and the queries whose item
    ties another: those whose sorted neighbour below is equal to ``v``."""
    upto = _count_at_most(srt, base, v, N)
    prev = np.take(srt, base + np.maximum(upto - 2, 0))
    return upto, flatnonzero((upto >= 2) & (prev == v))


def _count_at_most(srt, base, v, N, below=np.less_equal):
    """Per query, the entries ``<= v`` (``below=np.less``: ``< v``) of its
    sorted row ``srt[base:base + N]``: a branchless binary search, one gather
    per halving of N for every query at once. The answer lies in
    ``[at - base, at - base + size]``; each probe halves ``size`` and never
    reads past the row, so no probe needs bounding. A probe reads
    ``srt[at + half - 1]`` as ``srt[half - 1:]`` at ``at`` (a view: no
    array of the probes' places), into one comparison buffer: 0.85-0.9 of
    the time of a probe that made both."""
    at = np.array(base, dtype=np.intp)  # (a copy: added to in place)
    size = N
    step = np.empty(at.shape[0], dtype=bool)
    while size > 1:
        half = size // 2
        below(np.take(srt[half - 1:], at), v, out=step)
        at += step * half
        size -= half
    return at - base + below(np.take(srt, at), v)
