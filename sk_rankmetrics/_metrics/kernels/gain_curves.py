"""trec_eval's gain-curve measures: binary_G, ndcg_rel, Rndcg (G: :mod:`.gain_g`)."""

from __future__ import annotations

import functools

import numpy as np

from ..._ranking.groups import Groups
from ..._ranking.ideal import IdealLevels
from ..._utils.fast import (
    DOWN_CELLS,
    accumulate_down,
    count_cumsum,
    many_rows,
    row_counts,
    row_cumsum,
    row_sums,
    running_in_rows,
)
from ..._utils.nonzero import flatnonzero
from . import (
    SPAN_TABLE_MOST,
    _ahead_in_row,
    _safe_divide,
    inverse_log_sums,
    row_entries,
    span_table,
    span_table_length,
    whole_row_groups,
)
from .gain_down import _dcg_at_down, _ndcg_rel_down, idcg_down, mean_gains, ndcg_rel_few_ties
from .judgements import _at_the_cut


def binary_g(rc, req):
    """trec_eval's binG, exact over tie orderings: each ranked relevant item
    scores ``1 / log2(2 + non-relevant items above it)``; the sum is divided by R."""
    R = rc.totals[req.rel_key]
    ties = rc.few_ties
    if rc.tied and ties is not None and ties.N == rc.L and ties.few:
        return _safe_divide(_binary_g_few_ties(ties, req.rel_key, rc.L), R), R > 0
    groups = whole_row_groups(rc)
    if groups is not None:
        return _safe_divide(_binary_g_by_group(groups, req.rel_key, rc.n_rows), R), R > 0
    rel = rc.mean(req.rel_key)
    # Non-relevant ranked items above each position (the first j are real there).
    C = np.minimum(np.arange(rc.L + 1.0), rc.n_ranked[:, None]) - rc.cumulative(req.rel_key)
    if not rc.tied:
        # C holds whole counts (0..L): each term's 1 / log2(2 + C) read off a
        # table of those, the same numbers, instead of a logarithm per entry.
        table = 1.0 / np.log2(2.0 + np.arange(rc.L + 1.0))
        terms = rel * np.take(table, C[:, :-1].astype(np.intp))
        return _safe_divide(terms.sum(axis=1), R), R > 0
    real = (np.arange(rc.L) < rc.n_ranked[:, None]).astype(np.float64)
    nonrel = real - rel
    B = np.rint(np.take_along_axis(C, rc.start, axis=1))  # exact integer counts
    q = np.rint(nonrel * rc.size)
    # F[n] = sum_{i < n} 1 / log2(2 + i); E over a uniform 0..q of 1/log2(2 + B + x).
    F = inverse_log_sums(rc.L)
    lo = B.astype(np.int64)
    hi = np.minimum(lo + q.astype(np.int64) + 1, F.shape[0] - 1)
    expected = (F[hi] - F[lo]) / (q + 1.0)
    cut = _at_the_cut(rc, rel, q, B, lambda n, r: 1.0 / np.log2(2.0 + n))
    if cut is not None:  # a tie group split by max_docs
        r, c, at_cut = cut
        expected[r, c] = at_cut
    return _safe_divide((rel * expected).sum(axis=1), R), R > 0


def _binary_g_few_ties(ties, key, L):
    """binG's sum over whole rows that tie in a few places (``ties``, a
    :class:`~sk_rankmetrics._ranking.few_ties.FewTies`): the order given's
    terms, and at each group of relevant and other items its expected term
    (:func:`_binary_g_by_group`'s) in place of its terms in the order given
    (the non-relevant items above a later item are the same in every order
    of the group)."""
    flags = ties.indicator(key)
    if flags.dtype != bool:
        flags = flags > 0.5
    # Non-relevant items above each position, in the order given.
    above = count_cumsum(flags)
    np.subtract(np.arange(1, L + 1, dtype=above.dtype), above, out=above)
    table = 1.0 / np.log2(2.0 + np.arange(L + 1.0))
    total = (flags * np.take(table, above - ~flags)).sum(axis=1)
    at = np.take(flags.reshape(-1), ties.member)
    r = np.bincount(ties.gid, weights=at, minlength=ties.size.shape[0])
    mixed = flatnonzero((r > 0) & (r < ties.size))
    if not mixed.size:
        return total
    first = np.take(ties.member, ties.opens[mixed])
    B = np.take(above.reshape(-1), first) - ~np.take(flags.reshape(-1), first)
    q = ties.size[mixed] - r[mixed]
    F = inverse_log_sums(L)
    expected = r[mixed] * (F[B + q.astype(np.int64) + 1] - F[B]) / (q + 1.0)
    # The order given's terms of those groups.
    in_mixed = np.zeros(ties.size.shape[0], dtype=bool)
    in_mixed[mixed] = True
    keep = flatnonzero(np.take(in_mixed, ties.gid) & at)
    given = np.take(table, np.take(above.reshape(-1), ties.member[keep]))
    fix = np.bincount(ties.row[mixed], weights=expected, minlength=total.shape[0])
    fix -= np.bincount(ties.member[keep] // ties.N, weights=given, minlength=total.shape[0])
    return total + fix


def _binary_g_by_group(groups, key, n_rows):
    """binG's sum over whole rows ranked with ties (every position a real
    item), one term per tie group: a group of ``m`` items, ``r`` relevant,
    with ``B`` non-relevant items above it, puts above each of its relevant
    items ``B + X`` non-relevant ones, X uniform on ``0..m - r``, and adds
    ``r (F[B + m - r + 1] - F[B]) / (m - r + 1)``, ``F`` the running sum of
    ``1 / log2(2 + i)``."""
    r = np.rint(groups.sums[key])
    q = groups.size - r
    B = groups.start - _ahead_in_row(groups, r)
    F = inverse_log_sums(groups.L)
    lo = B.astype(np.int64)
    term = r * (F[lo + q.astype(np.int64) + 1] - F[lo]) / (q + 1.0)
    return np.bincount(groups.row, weights=term, minlength=n_rows)


# -- trec_eval's experimental gain measures -------------------------------------------------


def _gain_levels(rc, key):
    """The ideal's levels of equal positive gain (:class:`IdealLevels`), once per chunk."""
    if ("levels", key) not in rc.cache:
        rc.cache[("levels", key)] = IdealLevels.from_sorted(rc.ideal[key])
    return rc.cache[("levels", key)]


#: An untied chunk's ranked gains are read as a list of its nonzero entries
#: (G, ndcg_rel) when at most this share of its positions hold one.
_LIST_SHARE = 0.125


class _Listed:
    """The ranked entries of nonzero gain of a chunk without real ties, row-major:
    ``rows``, position ``p`` (0-based), gain ``g``; ``count`` per row.
    Positions past a row's ranking (padding) are left out."""

    def __init__(self, rows, p, g, n_rows, count=None):
        self.rows, self.p, self.g, self.n_rows = rows, p, g, n_rows
        self.count = np.bincount(rows, minlength=n_rows) if count is None else count

    @staticmethod
    def of(rc, key):
        """The list of ``rc``, or None when its entries are not few or real
        items tie (ties between padding, excluded items, leave each ranked
        position a group of one). Rows ranked through their relevant items
        only (``rc.partial``) list their groups, each one item, row-major by
        position."""
        if rc.real_ties or not rc.L:
            return None
        if rc.partial:
            groups = rc.groups
            g, rows, p = groups.sums[key], groups.row, groups.start
            nz = g != 0
            if not nz.all():  # (an item of nonzero relevance may gain 0)
                keep = flatnonzero(nz)
                rows, p, g = np.take(rows, keep), np.take(p, keep), np.take(g, keep)
            return _Listed(rows, p, g, rc.n_rows)
        g = rc.mean(key)
        n, L = g.shape
        nz = g != 0
        if np.count_nonzero(nz) > _LIST_SHARE * n * L:
            return None
        if (rc.n_ranked < L).any():
            nz &= np.arange(L) < rc.n_ranked[:, None]
        flat, rows, count = row_entries(nz)
        return _Listed(rows, flat - rows * L, np.take(g.reshape(-1), flat), n, count)

    def running(self, w):
        """Each entry's running sum of ``w`` over its row's entries down to it
        (the entries left out are 0, added in the same order), and each
        row's total (:func:`running_in_rows`)."""
        return running_in_rows(self.rows, w, self.n_rows, count=self.count)


def _ideal_prefix(levels, L, f):
    """``(A, Pm)``: ``A[:, q]`` the running sum of ``f(g*)`` over the ideal's
    first ``q + 1`` positions (its positive gains best first, 0 past P),
    ``q < Pm``, ``Pm`` the deepest P within ``L`` (at least 1)."""
    Pm = max(min(levels.deepest, L), 1)
    return row_cumsum(f(levels.top(Pm))), Pm


def _last_at_most(a, v):
    """``np.searchsorted(a, v, side="right") - 1``, ``a`` sorted: each query's
    last entry of ``a`` at most it (-1 if none). The two are joined and
    ordered by NumPy's stable sort, which, where the queries are sorted too
    (the row-major queries of the callers), finds the two runs and merges
    them in one pass, where ``searchsorted`` pays a binary search a query
    (25,000 queries and entries: 0.25 ms against 0.40 ms). In that order an
    entry equal to a query comes first (stable), so the entries before the
    ``j``-th query (from 0) are its place less ``j``. Where the entries
    outnumber the queries twice (a row's tie groups, each level's end) the
    merge reads more than the searches and ``searchsorted`` answers."""
    na, nv = a.shape[0], v.shape[0]
    if na > 2 * nv:
        return np.searchsorted(a, v, side="right") - 1
    order = np.argsort(np.concatenate((a, v)), kind="stable")
    at = flatnonzero(order >= na)
    out = np.empty(nv, dtype=np.intp)
    out[np.take(order, at) - na] = at - np.arange(1, nv + 1)
    return out


def _ideal_dcg_at(levels, rows, e):
    """The DCG of the ideal of rows ``rows`` (of ``levels``, an
    :class:`IdealLevels`) down to its first ``e`` positions, ``1 <= e <= P``:
    the levels before the one holding position ``e`` whole (the row's running
    sum of their DCG from its first level, :attr:`IdealLevels.idcg` at the
    level before: the same additions as the row alone), and that one's gain
    over its positions down to ``e`` (the running discounts' difference).
    A few places a row (the relevant items' ranks) read this without the
    rows' top gains made position by position."""
    if levels.one_each:
        # Levels of one position each (real-valued gains): position e is the
        # row's e-th level, and its running sum the DCG down to it (the same
        # additions as the search's, read without it).
        first = np.cumsum(levels.P) - levels.P  # each row's first level
        return np.take(levels.idcg, np.take(first, rows) + (e - 1))
    return _ideal_dcg_searched(levels, rows, e)


def _ideal_dcg_searched(levels, rows, e):
    """:func:`_ideal_dcg_at`, the level holding each position found by a
    search among the rows' levels."""
    D = inverse_log_sums(levels.deepest)  # D[q]: the discounts of the first q positions
    stride = levels.deepest + 1
    lrows, begin = levels.rows, levels.begin
    k = _last_at_most(lrows * stride + begin, rows * stride + (e - 1))  # (both row-major)
    # (Every row asked for has a level from position 0: k is in its row.)
    before = np.take(levels.idcg, np.maximum(k - 1, 0))
    before[np.take(levels._first, k)] = 0.0
    bk = np.take(begin, k)
    return before + np.take(levels.gain, k) * (np.take(D, e) - np.take(D, bk))


def _ranked_dcg(rc, req):
    """``(g, dcg)``: the expected gains and the running DCG (log2) of the ranking,
    ``dcg[:, j]`` over its first ``j`` positions."""
    def make(r):
        dcg = np.zeros((r.n_rows, r.L + 1))
        np.cumsum(r.mean(req.gain_key) / np.log2(np.arange(2.0, r.L + 2.0)), axis=1,
                  out=dcg[:, 1:])
        return dcg

    return rc.mean(req.gain_key), rc._shared(("dcg", req.gain_key), make)[:, : rc.L + 1]


def ndcg_rel(rc, req):
    r"""trec_eval's ndcg_rel, exact over tie orderings: nDCG averaged over the
    ranks of the relevant items, each unranked relevant item contributing the
    ranking's final nDCG.

    With :math:`1_p` whether the gain at rank p is positive, :math:`P` the
    number of positive ideal gains and :math:`N` the positive ranked items,

    .. math::

        \text{ndcg\_rel} = \frac{1}{P} \Big( \sum_p 1_p
        \frac{DCG_p}{IDCG_{\min(p, P)}} + (P - N) \frac{DCG_n}{IDCG_P} \Big).

    Tie groups are independent; inside a group of m items, r of them with a
    positive gain and G the group's gain, :math:`E[1_p g_p] = G / m` and
    :math:`E[1_p g_q] = (r - 1) G / (m (m - 1))` for another member q (gains
    are >= 0), which gives :math:`E[1_p DCG_p]`. ``N`` is random only when
    ``max_docs`` cuts a group; its product with the final DCG takes the same
    pair moment.
    """
    levels = _gain_levels(rc, req.gain_key)
    P = levels.P
    n_rows, L = rc.n_rows, rc.L
    disc = 1.0 / np.log2(np.arange(2.0, L + 2.0))
    listed = _Listed.of(rc, req.gain_key)
    if listed is not None:
        return _ndcg_rel_listed(rc, levels, listed, disc)
    if _few_ties_whole(rc):
        return ndcg_rel_few_ties(rc, rc.few_ties, req.gain_key, levels, disc), P > 0
    groups = whole_row_groups(rc)
    if groups is not None and rc.partial:
        return _ndcg_rel_some_tied(rc, req.gain_key, levels, groups, disc)
    if groups is not None:
        return _ndcg_rel_by_group(groups, req.gain_key, levels, disc, n_rows)
    if (not rc.tied and many_rows((n_rows, L))
            and ("dcg", req.gain_key) not in rc.root.cache):
        return _ndcg_rel_down(rc, req.gain_key, levels, disc), P > 0
    g, dcg = _ranked_dcg(rc, req)  # dcg[:, j]: expected DCG of the first j ranks
    rows = np.arange(n_rows)
    idcg = np.cumsum(levels.top(L) * disc, axis=1)  # down to min(P, L)
    # The ideal DCG down to min(p, P): past P (when P <= L) it stays the full one.
    idcg_at = np.where(np.arange(L) < P[:, None], idcg, levels.full_idcg[:, None])
    n = np.minimum(rc.n_ranked, L)
    if not rc.tied:
        at_rel = g > 0
        if (rc.n_ranked < L).any():
            at_rel &= np.arange(L) < rc.n_ranked[:, None]
        # (The ideal DCG is positive wherever a ranked gain is.)
        ratio = np.divide(dcg[:, 1:], idcg_at, out=np.zeros((n_rows, L)), where=at_rel)
        final = _safe_divide(dcg[rows, n], levels.full_idcg)
        total = row_sums(ratio) + (P - row_counts(at_rel)) * final
        return _safe_divide(total, P), P > 0
    start = rc.start
    m = rc.size.astype(np.float64)
    G = rc.sums[req.gain_key]
    pos_key = "pos:" + req.gain_key
    r = rc.sums[pos_key]
    Dc = np.concatenate(([0.0], np.cumsum(disc)))  # Dc[p]: discounts of ranks < p
    before = np.take_along_axis(dcg, start, axis=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        pair = np.where(m > 1, (r - 1.0) * G / (m * np.maximum(m - 1.0, 1.0)), 0.0)
    # E[1_p DCG_p]: the earlier groups, then p itself, then its group before p.
    at_rel = (r / m) * before + (G / m) * disc + pair * (Dc[:L] - Dc[start])
    at_rel = np.where(np.arange(L) < rc.n_ranked[:, None], at_rel, 0.0)
    total = _safe_divide(at_rel, idcg_at).sum(axis=1)
    # (P - N) * DCG_n: N and DCG_n share the last ranked group, whose t first
    # members are ranked (t < m when max_docs cuts it).
    last = np.maximum(n - 1, 0)
    s0 = start[rows, last]
    t = (n - s0).astype(np.float64)
    ml, rl, Gl, pl = m[rows, last], r[rows, last], G[rows, last], pair[rows, last]
    pos_before = np.rint(rc.cumulative(pos_key)[rows, s0])
    d0 = dcg[rows, s0]
    dsum = Dc[n] - Dc[s0]
    final = ((P - pos_before) * (d0 + Gl / ml * dsum) - t * rl / ml * d0
             - (Gl / ml + (t - 1.0) * pl) * dsum)
    final = np.where(n > 0, final, 0.0)
    total = total + _safe_divide(final, levels.full_idcg)
    return _safe_divide(total, P), P > 0


_CELLS_DOWN = DOWN_CELLS  # (:data:`~..._utils.fast.DOWN_CELLS`)


def _few_ties_whole(rc):
    """Whether ``rc`` holds whole rows that tie in a few places
    (``rc.few_ties``): ndcg_rel and Rndcg then read them down the positions,
    the grouped positions at their means (:mod:`.gain_down`)."""
    return rc.few_ties is not None and rc.L == rc.few_ties.N


def _ndcg_rel_by_group(groups, key, levels, disc, n_rows):
    """ndcg_rel of whole rows ranked with ties, one term per tie group (a few
    groups a row: integer scores), with the moments of :func:`ndcg_rel`.

    A group of ``m`` items from ``s`` to ``e`` (exclusive), ``r`` of positive
    gain, gain ``G``, expected DCG ``D0`` above it, adds over its positions
    ``p`` the expected ``1_p DCG_p / IDCG_{min(p, P)}``:

    ``(r / m) D0 S_1 + (G / m) S_d + (r - 1) G / (m (m - 1)) S_c``

    with ``S_1``, ``S_d`` and ``S_c`` the sums over the group's positions of
    ``w_p = 1 / IDCG_{min(p, P)}``, ``disc_p w_p`` and ``(Dc_p - Dc_s) w_p``
    (``Dc`` the running discount). ``w`` is the row's own below ``P`` (its
    running sums over the first ``max P`` positions, one table) and the
    full ideal's past it, where the sums are differences of running sums
    over the positions (read off :func:`_discount_spans`' tables, made in
    long double, on rows of at most :data:`SPAN_TABLE_MOST`; past them in
    long double for the groups of several items, a group of one spanning
    its own discount). The expected DCG above a group is
    summed over its row's groups alone (:func:`running_in_rows`). Every
    item is ranked, so the positive items ranked ``N`` are the groups' own
    and the last term is ``(P - N) E[DCG] / IDCG``."""
    L = groups.L
    P = levels.P
    full = levels.full_idcg
    Dc = np.zeros(L + 1, dtype=np.longdouble)
    np.cumsum(disc, out=Dc[1:])
    DDc = np.zeros(L + 1, dtype=np.longdouble)  # running sum of Dc
    np.cumsum(Dc[:-1], out=DDc[1:])
    # Per row, below P: the running sums of w, disc w and Dc w.
    Pm = max(min(levels.deepest, L), 1)
    down = many_rows((n_rows, Pm))
    tables = _ndcg_rel_tables(levels, P, disc, Dc[:Pm].astype(np.float64), Pm, down)
    row, s, m = groups.row, groups.start, groups.size
    e = s + m
    r = np.rint(groups.sums["pos:" + key])
    G = groups.sums[key]
    Pg = np.take(P, row)
    cut = np.clip(Pg, s, e)  # [s, cut) below P, [cut, e) past it
    if down:  # tables of shape (Pm + 1, n): entry (position, row)
        lo, hi = np.minimum(s, Pm) * n_rows + row, np.minimum(cut, Pm) * n_rows + row
    else:
        base = row * (Pm + 1)
        lo, hi = base + np.minimum(s, Pm), base + np.minimum(cut, Pm)
    # The three sums of an entry side by side: one gather of a row of three
    # each (a cache line), where three gathers from three tables cost 4.6x.
    head = (np.take(tables, hi, axis=0) - np.take(tables, lo, axis=0)).T
    inv = 1.0 / np.take(np.where(full > 0, full, 1.0), row)
    S1 = head[0] + (e - cut) * inv
    if L <= SPAN_TABLE_MOST:
        W = span_table_length(L) + 1
        H, F = _discount_spans(W - 1)
        at_s = s * W
        Sd = head[1] + np.take(H, cut * W + e) * inv
        Dcs = np.take(Dc, s).astype(np.float64)
        Sc = (head[2] - Dcs * head[0]) + (np.take(F, at_s + e) - np.take(F, at_s + cut)) * inv
        group_dcg = (G / m) * np.take(H, at_s + e)
    else:
        # A group of one item spans its own discount (and Sc is read only
        # through the pair moment, 0 there); the others' spans in long double.
        span = np.take(disc, s)  # Dc[e] - Dc[s]
        tail = np.where(cut < e, span, 0.0)  # Dc[e] - Dc[cut]
        Sc = np.zeros(s.shape[0])
        many = flatnonzero(m > 1)
        if many.size:
            sm, em, cm = s[many], e[many], cut[many]
            Dcs = Dc[sm]
            span[many] = Dc[em] - Dcs
            tail[many] = Dc[em] - Dc[cm]
            Sc[many] = ((head[2][many] - Dcs * head[0][many])
                        + ((DDc[em] - DDc[cm]) - (em - cm) * Dcs) * inv[many])
        Sd = head[1] + tail * inv
        group_dcg = (G / m) * span
    D0, _ = running_in_rows(row, group_dcg, n_rows, before=True)
    pair = np.where(m > 1, (r - 1.0) * G / (m * np.maximum(m - 1.0, 1.0)), 0.0)
    term = (r / m) * D0 * S1 + (G / m) * Sd + pair * Sc
    total = np.bincount(row, weights=term, minlength=n_rows)
    N = np.bincount(row, weights=r, minlength=n_rows)
    dcg = np.bincount(row, weights=group_dcg, minlength=n_rows)
    total += _safe_divide((P - N) * dcg, full)
    return _safe_divide(total, P), P > 0


@functools.lru_cache(maxsize=4)
def _discount_spans(L):
    """``(H, F)``: :func:`span_table`'s tables of the running discount ``Dc``
    (``Dc[p]``: the discounts ``1 / log2(2 + i)`` of ranks ``i < p``), ``H =
    Dc[b] - Dc[a]`` and ``F = sum over a <= p < b of (Dc[p] - Dc[a])`` (a
    difference of numbers of the order of ``L * Dc[L]``)."""
    Dc = np.zeros(L + 1, dtype=np.longdouble)
    np.cumsum(1.0 / np.log2(np.arange(2.0, L + 2.0)), out=Dc[1:])
    DDc = np.zeros(L + 1, dtype=np.longdouble)
    np.cumsum(Dc[:-1], out=DDc[1:])
    return (span_table(L, lambda a, b: Dc[b] - Dc[a]),
            span_table(L, lambda a, b: (DDc[b] - DDc[a]) - (b - a) * Dc[a]))


def _ndcg_rel_tables(levels, P, disc, Dc, Pm, down):
    """The running sums over each row's first ``Pm`` positions of ``w = 1 /
    IDCG``, ``disc w`` and ``Dc w``, the three of an entry side by side
    (shape (entries, 3)): entries (row, position) of (n, Pm + 1), or with
    ``down`` (many rows) (position, row) of (Pm + 1, n), made down the
    positions (vectors over the rows, :func:`accumulate_down`) in the same
    order of additions.

    Past a row's ``P`` the entries hold the running sums on (``w`` of
    ``IDCG_P``) where a row's own were 0: :func:`_ndcg_rel_by_group` reads
    them only as the difference of one entry with itself (a group from
    ``P`` on spans no position below it), 0. A row with no positive gain
    (``IDCG`` 0 throughout) reads ``w`` 1 there, so that each entry is
    finite and that difference 0."""
    if not down:
        idcg, _ = _ideal_prefix(levels, Pm, lambda top: top * disc[: top.shape[1]])
        idcg[P == 0] = 1.0
        w = 1.0 / idcg
        T = np.zeros((w.shape[0], Pm + 1, 3))
        for k, v in enumerate((w, w * disc[:Pm], w * Dc)):
            np.cumsum(v, axis=1, out=T[:, 1:, k])
        return T.reshape(-1, 3)
    n = P.shape[0]
    idcg = idcg_down(levels, 0, n, Pm, disc)
    idcg[:, flatnonzero(P == 0)] = 1.0
    T = np.empty((Pm + 1, n, 3))
    T[0] = 0.0
    w = T[1:, :, 0]
    np.divide(1.0, idcg, out=w)
    np.multiply(w, disc[:Pm, None], out=T[1:, :, 1])
    np.multiply(w, Dc[:, None], out=T[1:, :, 2])
    # One running sum down the positions of the three, side by side: the
    # same additions, in the same order, as each one's own.
    accumulate_down(T[1:].reshape(Pm, 3 * n))
    return T.reshape(-1, 3)


def _ndcg_rel_some_tied(rc, key, levels, groups, disc):
    """ndcg_rel of a chunk ranked through its relevant items (``groups``: the
    tie groups holding one, :attr:`RankedChunk.partial`) where some rows
    hold a tie: the rows without one as a list of their items
    (:func:`_ndcg_rel_listed`: each group one item), those with one by their
    groups (:func:`_ndcg_rel_by_group`): each row by the route it takes
    alone, so its value is the one it has alone, bit for bit. (float32
    scores tie in a few rows of 1,000: one such row sent its chunk by the
    groups, 2.5 times the list's time a chunk.)

    Both routes make each row's value from that row's entries alone, so a
    route may run over more rows than it keeps: where the tied rows are the
    fewer, the groups' route runs over them alone (a copy of their groups
    and levels) and the list over the whole chunk; otherwise (integer
    scores: nearly every relevant item tied) the groups' route runs over the
    whole chunk, with no copy, and the list over the untied rows."""
    n_rows, L = rc.n_rows, groups.L
    multi = groups.size > 1
    if multi.all():  # (no row holds an untied relevant item)
        return _ndcg_rel_by_group(groups, key, levels, disc, n_rows)
    row = groups.row
    tied = np.zeros(n_rows, dtype=bool)
    tied[row[multi]] = True
    untied = np.zeros(n_rows, dtype=bool)
    untied[row] = True
    untied &= ~tied
    # (A row without a relevant item scores 0 by either route.)
    untied_rows = flatnonzero(untied)
    if not untied_rows.size:
        return _ndcg_rel_by_group(groups, key, levels, disc, n_rows)
    tied_rows = flatnonzero(tied)
    g = groups.sums[key]
    on_tied = np.take(tied, row)
    # (An item of nonzero relevance may gain 0: the list holds gains only.)
    keep = flatnonzero(~on_tied & (g != 0))
    listed = _Listed(np.take(row, keep), np.take(groups.start, keep), np.take(g, keep), n_rows)
    if tied_rows.shape[0] >= untied_rows.shape[0]:
        value, defined = _ndcg_rel_by_group(groups, key, levels, disc, n_rows)
        value[untied_rows] = _ndcg_rel_listed(rc, levels, listed, disc)[0][untied_rows]
        return value, defined
    value, defined = _ndcg_rel_listed(rc, levels, listed, disc)
    if not tied_rows.size:
        return value, defined
    # The tied rows' groups, their rows numbered from 0.
    mine = flatnonzero(on_tied)
    new = np.zeros(n_rows, dtype=np.int64)
    new[tied_rows] = np.arange(tied_rows.shape[0])
    at = np.take(new, np.take(row, mine)) * L + np.take(groups.start, mine)
    pos = groups.sums["pos:" + key]
    sub = Groups(at, np.take(groups.size, mine),
                 {key: np.take(g, mine), "pos:" + key: np.take(pos, mine)}, L)
    v, _ = _ndcg_rel_by_group(sub, key, levels.take_rows(tied_rows), disc,
                              tied_rows.shape[0])
    value[tied_rows] = v
    return value, defined


def _ndcg_rel_listed(rc, levels, listed, disc):
    """ndcg_rel of an untied chunk whose nonzero gains are few (:class:`_Listed`):
    its DCG at each one's position is the running sum over them alone."""
    rows, p = listed.rows, listed.p
    P = levels.P
    dcg_at, dcg_n = listed.running(listed.g / np.take(np.log2(np.arange(2.0, rc.L + 2.0)), p))
    full = levels.full_idcg
    idcg_at = np.take(full, rows)
    inside = flatnonzero(p < np.take(P, rows))
    idcg_at[inside] = _ideal_dcg_at(levels, rows[inside], p[inside] + 1)
    pos = listed.g > 0
    r = rows[pos]
    ratio = _safe_divide(dcg_at[pos], idcg_at[pos])
    total = np.bincount(r, weights=ratio, minlength=rc.n_rows)
    total = total + (P - np.bincount(r, minlength=rc.n_rows)) * _safe_divide(dcg_n, full)
    return _safe_divide(total, P), P > 0


def rndcg(rc, req):
    """trec_eval's Rndcg: nDCG read where the ideal gain changes level (and at the
    end of the ranking when it ends first), averaged. A row without a relevant
    item at ``threshold`` is undefined, as trec_eval returns 0 for a query
    whose number of relevant documents at the level (``-l``) is 0, although
    the gains ignore the level."""
    levels = _gain_levels(rc, req.gain_key)
    n = np.minimum(rc.n_ranked, rc.L)
    N = rc.n_rows
    rows = np.arange(N)
    # At each run's end: the DCG of the ranking's first min(end, n) items;
    # and the whole ranking's.
    ends = np.minimum(levels.end, n[levels.rows])
    if _few_ties_whole(rc):  # the expected DCG: the grouped positions' means
        g, means = mean_gains(rc.few_ties, req.gain_key)
        at, whole = _dcg_at_down(g, levels.rows, ends, n, means)
    elif (groups := whole_row_groups(rc)) is not None:
        width = int(ends.max()) if ends.size else 0
        if (rc.partial and not rc.real_ties
                and N * width <= _ITEMS_CELLS * groups.size.shape[0] + (1 << 16)):
            at, whole = _dcg_at_items(groups, req.gain_key, levels.rows, ends, N, width)
        else:
            at, whole = _dcg_at_by_group(groups, req.gain_key, levels.rows, ends, N)
    elif (not rc.tied and many_rows((N, rc.L))
          and ("dcg", req.gain_key) not in rc.root.cache):
        at, whole = _dcg_at_down(rc.mean(req.gain_key), levels.rows, ends, n)
    else:
        _, dcg = _ranked_dcg(rc, req)
        at, whole = dcg[levels.rows, ends], dcg[rows, n]
    ratio = _safe_divide(at, levels.idcg)
    total = np.bincount(levels.rows, weights=ratio, minlength=N)
    count = np.bincount(levels.rows, minlength=N).astype(np.float64)
    P = levels.P
    ends_first = P + 1 < rc.n_ranked  # the ranking outlives the positive ideal gains
    full = _safe_divide(whole, levels.full_idcg)
    total = total + np.where(ends_first, full, 0.0)
    count = count + ends_first
    return _safe_divide(total, count), (P > 0) & (rc.totals[req.rel_key] > 0)


#: :func:`_dcg_at_items` makes a matrix of at most this many cells per
#: relevant item (and 2**16 more).
_ITEMS_CELLS = 8


def _dcg_at_items(groups, key, rows, ends, n_rows, width):
    """:func:`_dcg_at_by_group` of rows ranked through their relevant items
    without ties (:attr:`RankedChunk.partial`; each group one item, at its
    position): each item's DCG put at its position of an (n_rows, width)
    matrix (``width`` the deepest query, the ideal's deepest level end at
    most), whose running sums along the rows are the DCG at every position
    from 1 to ``width``, read at each query. Adding a position without an
    item adds 0.0: the same sums, bit for bit, as the items' own running
    sums, where a search among the rows' items found each query's last
    one (real-valued gains on 5 % of rows of 100, each positive item a
    level of its own: a query per relevant item)."""
    Dc = inverse_log_sums(groups.L)
    row, s = groups.row, groups.start
    # (size 1: the mean is the gain, and the item spans one discount)
    contrib = groups.sums[key] / groups.size * (np.take(Dc, s + 1) - np.take(Dc, s))
    whole = np.bincount(row, weights=contrib, minlength=n_rows)
    W = np.zeros((n_rows, max(width, 1)))
    inside = flatnonzero(s < width)
    W.reshape(-1)[np.take(row, inside) * W.shape[1] + np.take(s, inside)] = np.take(contrib, inside)
    row_cumsum(W, out=W)
    at = np.take(W.reshape(-1), rows * W.shape[1] + np.maximum(ends - 1, 0))
    at[ends <= 0] = 0.0
    return at, whole


def _dcg_at_by_group(groups, key, rows, ends, n_rows):
    """``(at, whole)``: the expected DCG of the first ``ends`` positions of
    rows ``rows`` (one query each), and each row's whole, from the tie
    groups of whole rows (:class:`Groups`: a few a row under integer
    scores), without a running sum over every position.

    A group of ``m`` items from ``s`` gains ``G / m`` in expectation at each
    of its positions: the first ``e`` positions hold the groups before it
    whole (their sums, summed within the row, :func:`running_in_rows`) and
    ``min(e, s + m) - s`` of its own, at the running discounts ``Dc``. The
    group holding position ``e - 1`` is found among the groups' first
    positions; a query no group of its row reaches (``e = 0``, or only
    groups without gain listed) reads 0."""
    L = groups.L
    Dc = inverse_log_sums(L)  # Dc[p]: the discounts of positions 1..p
    first, size = groups.first, groups.size
    row, s = groups.row, groups.start
    mean = groups.sums[key] / size
    end = s + size
    contrib = mean * (np.take(Dc, end) - np.take(Dc, s))
    before, whole = running_in_rows(row, contrib, n_rows, before=True)
    g = _last_at_most(first, rows * L + ends - 1)  # (both row-major)
    gc = np.maximum(g, 0)
    mine = (g >= 0) & (ends > 0) & (np.take(row, gc) == rows)
    s_g = np.take(s, gc)
    part = np.take(mean, gc) * (np.take(Dc, np.minimum(ends, np.take(end, gc))) - np.take(Dc, s_g))
    at = np.where(mine, np.take(before, gc) + part, 0.0)
    return at, whole
