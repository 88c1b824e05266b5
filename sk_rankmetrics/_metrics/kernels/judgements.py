"""Judgement-aware kernels: judged, unjudged, bpref, infAP."""

from __future__ import annotations

import functools

import numpy as np

from ..._ranking.item_values import as_flags, is_indicator
from ..._utils.fast import (
    IN_ORDER_MIN_STEP,
    IN_ORDER_PIECE,
    count_cumsum,
    many_rows,
    row_sums_in_order_of,
    running_down,
)
from ..._utils.nonzero import flatnonzero, nonzero_2d
from . import (
    SPAN_TABLE_MOST,
    _ahead_in_row,
    _as_float,
    _cumulative,
    _cut,
    _ranked_total,
    _safe_divide,
    ranges_from_counts,
    row_entries,
    span_table,
    span_table_length,
    whole_row_groups,
)
from .combinatorics import _log_choose


def judged(rc, req):
    """ir_measures' Judged@k: judged items in the top k over min(k, ranked)."""
    seen = _ranked_total(rc, "pool", req.k)
    n = rc.n_ranked.astype(np.float64)
    den = n if req.k is None else np.minimum(_as_float(req.k), n)
    return _safe_divide(seen, den), None


def unjudged(rc, req):
    """trec_eval's unj_k: ranked items in the top k that are not judged, over k."""
    shown = rc.n_ranked if req.k is None else np.minimum(rc.n_ranked, _cut(rc, req.k))
    seen = shown - _ranked_total(rc, "judged", req.k)
    den = rc.n_ranked.astype(np.float64) if req.k is None else _as_float(req.k)
    return _safe_divide(seen, den), None


# -- judgement-aware measures ------------------------------------------------------------


def bpref(rc, req):
    """Binary preference, exact over tie orderings.

    Each ranked relevant item scores ``1 - min(N_before, R) / min(N, R)``,
    ``N_before`` the judged non-relevant items ranked above it, N all the
    row's judged non-relevant ones. Inside a tie group with ``q`` judged
    non-relevant items, the number of them above a given relevant item is
    uniform on 0..q (their relative order with it is uniformly random).
    """
    R = rc.totals[req.rel_key]
    N = rc.totals["judged"] - R
    if rc.few_ties is not None and (rc.totals["judged"] == rc.few_ties.N).all():
        # (Rows with an unjudged item take the per-group path: a chunk read
        # through its few ties alone has every item judged, rank_by_levels'.)
        return _safe_divide(_bpref_few_ties(rc.few_ties, req.rel_key, R, N), R), R > 0
    if rc.tied and rc.groups is not None:
        return _safe_divide(_bpref_by_group(rc.groups, req.rel_key, R, N, rc.partial),
                            R), R > 0
    den = np.maximum(np.minimum(N, R), 1.0)[:, None]
    if not rc.tied:
        # Judged non-relevant items above each position, a few columns at a
        # time: the judged ones above less the relevant ones (an indicator:
        # counted in int32, read as bools where the levels give them).
        J = _judged_running(rc)
        if is_indicator(req.rel_key):
            rel = as_flags(rc.sums, req.rel_key)
            if J.ndim == 1 and many_rows(rel.shape):
                return _safe_divide(_bpref_down(rel, R, den), R), R > 0
            running = count_cumsum(rel)

            def above(j0, j1):
                C = np.subtract(J[..., j0:j1], running[:, j0:j1], dtype=np.float64)
                return np.add(C, rel[:, j0:j1], out=C)
        else:
            rel, cum = rc.mean(req.rel_key), rc.cumulative(req.rel_key)

            def above(j0, j1):
                return J[..., j0:j1] - cum[:, j0:j1]

        return _safe_divide(_bpref_in_order(above, rel, R, den), R), R > 0
    rel = rc.mean(req.rel_key)
    C = _judged_running(rc) - rc.cumulative(req.rel_key)  # judged non-relevant
    nonrel = rc.mean("judged") - rel
    # Counts, exact integers: sums of tie-group means only approximate them.
    B = np.rint(np.take_along_axis(C, rc.start, axis=1))  # judged non-relevant above
    q = np.rint(nonrel * rc.size)  # the group's judged non-relevant items
    Rr = R[:, None]
    c = np.clip(Rr - B, 0.0, q + 1.0)
    expected_min = (c * B + c * (c - 1.0) / 2.0 + (q + 1.0 - c) * Rr) / (q + 1.0)
    terms = rel * (1.0 - expected_min / den)
    cut = _at_the_cut(rc, rel, q, B, lambda n, r: np.minimum(n, R[r]))
    if cut is not None:  # a tie group split by max_docs
        r, c, expected = cut
        terms[r, c] = rel[r, c] * (1.0 - expected / den[r, 0])
    return _safe_divide(terms.sum(axis=1), R), R > 0


def _bpref_in_order(above, rel, R, den):
    """bpref's sum over rows ranked in one order, without ties: ``above(j0,
    j1)`` the judged non-relevant items above the positions ``j0:j1`` (a new
    float64 array, written over), ``rel`` each position's relevance (shape
    (n, N)), ``den`` each row's ``min(N, R)`` (at least 1; shape (n, 1)).
    The terms are made a few columns at a time (:func:`row_sums_in_order_of`):
    no array of the block's size."""
    Rr = R[:, None]

    def terms(j0, j1):
        # rel * (1 - min(C, R) / den), in C itself.
        t = above(j0, j1)
        np.minimum(t, Rr, out=t)
        t /= den
        np.subtract(1.0, t, out=t)
        t *= rel[:, j0:j1]
        return t

    # Summed left to right, as trec_eval adds them: a pairwise sum can land on
    # the other side of a 4th-decimal rounding (0.49375 printed 0.4938, not 0.4937).
    return row_sums_in_order_of(terms, rel.shape)


def _bpref_down(rel, R, den, down=None):
    """:func:`_bpref_in_order` of many rows whose every item is judged (the
    judged items above position ``j`` are ``j``;
    :func:`~sk_rankmetrics._utils.fast.many_rows`) and whose relevance
    ``rel`` is an indicator, read transposed
    (:func:`~sk_rankmetrics._utils.fast.running_down`): the same terms,
    each made over a few positions of every row at once, and added to the
    sums left to right, position after position (bit for bit
    :func:`_bpref_in_order`'s sums; no copy of the terms). The counts
    ``min(C, R)`` are made in int32 (exact, half the bytes of float64) and
    divided into float64. ``down``: that form, when made already."""
    n, m = rel.shape
    flags, running = running_down(rel) if down is None else down
    step = max(IN_ORDER_MIN_STEP, IN_ORDER_PIECE // n)
    Ri, den = np.asarray(R).astype(np.int32), den[:, 0]  # R: whole counts
    # At a relevant position p (0-based), counted in its running count, the
    # judged non-relevant items above are p + 1 less that count (at the
    # others the term is multiplied by 0, whatever the count).
    pos = np.arange(1, m + 1, dtype=np.int32)[:, None]
    piece = np.empty((min(step, m) + 1, n))
    count = np.empty((min(step, m), n), dtype=np.int32)
    total = None
    for j0 in range(0, m, step):
        j1 = min(m, j0 + step)
        t, c = piece[1:j1 - j0 + 1], count[:j1 - j0]
        # rel * (1 - min(C, R) / den), C the judged non-relevant items above;
        # min(C, R) written into float64 (exact) and divided there: a
        # division of two float64 arrays costs half that of int32 by float64.
        np.subtract(pos[j0:j1], running[j0:j1], out=c)
        np.minimum(c, Ri, out=t, casting="unsafe")
        np.divide(t, den, out=t)
        np.subtract(1.0, t, out=t)
        t *= flags[j0:j1]
        if total is None:
            total = np.add.reduce(t, axis=0)
        else:
            piece[0] = total
            total = np.add.reduce(piece[:j1 - j0 + 1], axis=0)
    return total


def _judged_running(rc):
    """``rc.cumulative("judged")``, read as the position itself where every
    item is judged (:func:`_every_item_judged`)."""
    if _every_item_judged(rc):
        return np.arange(rc.L + 1.0)
    return rc.cumulative("judged")


def _every_item_judged(rc):
    """Whether every item of the chunk's rows is judged (a matrix without a
    judged mask, or a part of one split by its ties), or every real item of
    padded rows: their padding is ranked after them and holds no relevant
    item, so that what a kernel reads there is multiplied by 0 (bpref's and
    infAP's terms are those of the relevant items). The real items are
    counted where every position is ranked: a ranking cut short
    (``max_docs``) counts its ranked items only."""
    width, judged = rc.row_width, rc.totals["judged"]
    if width is None:
        return False
    if (judged == width).all():
        return True
    if rc.L < width:
        return False
    n = rc.n_ranked  # (0 in a row of padding alone, whose n_items is 1)
    return bool(((judged == n) & ((n == rc.n_items) | (n == 0))).all())


def _bpref_by_group(groups, key, R, N, partial=False):
    """bpref's sum over the relevant items of a chunk ranked over whole rows,
    one term per tie group (integer scores: a few groups per row).

    A group with ``r`` relevant and ``q`` judged non-relevant items, ``B``
    judged non-relevant items above it, gives each of its relevant items
    ``1 - E[min(B + X, R)] / min(N, R)``, X uniform on 0..q: the group adds
    ``r`` times that, the same closed form as the kernel's per position.
    ``partial``: the groups are only those holding a relevant item, of rows
    whose every item is judged (:func:`~sk_rankmetrics._ranking.relevant.rank_relevant`):
    a group's other items are its judged non-relevant ones, and those above
    it are the items above it less the relevant ones.
    """
    r = groups.sums[key]
    if partial:
        q = groups.size - r
        B = groups.start - _ahead_in_row(groups, r)
    else:
        q = np.rint(groups.sums["judged"] - r)  # counts: exact integers
        B = _ahead_in_row(groups, q)
    row = groups.row
    terms = _bpref_group_terms(r, q, B, R[row], np.maximum(np.minimum(N, R), 1.0)[row])
    return np.bincount(row, weights=terms, minlength=R.shape[0])


def _bpref_group_terms(r, q, B, Rr, den):
    """Each group's bpref terms (:func:`_bpref_by_group`): ``r`` relevant and
    ``q`` judged non-relevant items, ``B`` judged non-relevant items above it,
    its row's ``R`` and ``min(N, R)`` (at least 1)."""
    c = np.clip(Rr - B, 0.0, q + 1.0)
    expected_min = (c * B + c * (c - 1.0) / 2.0 + (q + 1.0 - c) * Rr) / (q + 1.0)
    return r * (1.0 - expected_min / den)


def _bpref_few_ties(ties, key, R, N):
    """bpref's sum over rows that tie in a few places, every item judged
    (:class:`~sk_rankmetrics._ranking.few_ties.FewTies`): the order given's
    terms, and at each tie group its expected terms in place of those."""
    rel = ties.indicator(key)  # bools where the levels give them: no float64 copy
    den = np.maximum(np.minimum(N, R), 1.0)
    at, down = np.arange(float(ties.N)), ties.down(key, many=True)
    if down is not None:
        total = _bpref_down(rel, R, den[:, None], down)
    else:
        running = ties.running(key)

        def above(j0, j1):
            # Judged non-relevant items above each position: the position
            # less the relevant ones.
            C = np.subtract(at[j0:j1], running[:, j0:j1])
            return np.add(C, rel[:, j0:j1], out=C)

        total = _bpref_in_order(above, rel, R, den[:, None])
    if not ties.first.size:
        return total
    r = ties.group_sums(key)
    b = ties.group_before(key)
    row = ties.row
    expected = _bpref_group_terms(r, ties.size - r, ties.start - b, R[row], den[row])
    at_row = ties.member // ties.N
    rel_at = ties.at(key)
    given = rel_at * (1.0 - np.minimum(ties.pos - ties.before(key), R[at_row]) / den[at_row])
    return total + ties.by_row(expected) - ties.by_row(given, at_member=True)


def _at_the_cut(rc, rel, q, B, f):
    """Expected ``f(B + X)`` at positions whose tie group the cut ``L`` splits.

    A relevant item at offset ``i`` of its group has, above it inside the
    group, a uniform i-subset of the group's other ``m - 1`` items, of which
    ``q`` count: X is hypergeometric. (Over a whole group the offsets are
    uniform and X is uniform on 0..q, the closed form the kernels use.)
    Returns ``(rows, cols, expected)``, or None when no group is split.
    """
    split = (rc.start + rc.size > rc.L) & (rel > 0)
    if not split.any():
        return None
    r, c = nonzero_2d(split)
    i = (c - rc.start[r, c]).astype(np.float64)
    m, qq, BB = rc.size[r, c].astype(np.float64), q[r, c], B[r, c]
    acc = np.zeros(r.shape[0])
    for x in range(int(qq.max()) + 1):
        ok = (x <= qq) & (x <= i) & (i - x <= m - 1 - qq)
        with np.errstate(invalid="ignore"):
            logp = (_log_choose(qq, x) + _log_choose(m - 1 - qq, i - x)
                    - _log_choose(m - 1, i))
        acc += np.where(ok, np.exp(np.where(ok, logp, 0.0)), 0.0) * f(BB + x, r)
    return r, c, acc


#: trec_eval's INFAP_EPSILON.
_INFAP_EPSILON = 1e-5


def _infap_all_judged(rc, key):
    """infAP's sum over an untied chunk of rows whose every item is judged
    (and so pooled): above position ``p`` (0-based) lie ``p`` items, all
    pooled, of which the row's relevant items before it, ``r``, so that a
    relevant item's term is ``(1 + p (r + eps) / (p + 2 eps)) / (p + 1)``.
    Read at the relevant items alone: ``r`` is the item's place among them."""
    if rc.partial:  # the relevant items' groups, each one item, row-major
        groups = rc.groups
        at = flatnonzero(groups.sums[key] > 0.5)
        rows = np.take(groups.row, at)
        return _infap_listed(rows, np.take(groups.start, at),
                             np.bincount(rows, minlength=rc.n_rows))
    flags = as_flags(rc.sums, key)
    if _infap_reads_down(flags):
        return _infap_all_judged_down(flags)
    flat, rows, count = row_entries(flags)
    return _infap_listed(rows, flat - rows * flags.shape[1], count)


def _infap_reads_down(flags):
    """Whether :func:`_infap_all_judged` reads the relevance indicator
    ``flags`` down the positions (many rows, many relevant items) rather
    than as the list of its relevant items."""
    n, L = flags.shape
    return many_rows((n, L)) and np.count_nonzero(flags) > _INFAP_DOWN_SHARE * n * L


def _infap_listed(rows, p, count):
    """:func:`_infap_all_judged`'s sum of the relevant items at 0-based
    positions ``p`` of rows ``rows`` (row-major, ``count`` per row)."""
    p = p.astype(np.float64)
    r = ranges_from_counts(count).astype(np.float64)
    e = _INFAP_EPSILON
    terms = r + e
    terms *= p
    terms /= p + 2.0 * e
    terms += 1.0
    terms /= p + 1.0
    return np.bincount(rows, weights=terms, minlength=count.shape[0])


#: Above this share of relevant positions, :func:`_infap_all_judged` reads
#: every position of many rows, down the positions.
_INFAP_DOWN_SHARE = 0.25


def _infap_all_judged_down(flags, down=None):
    """:func:`_infap_all_judged` of many rows with many relevant items, made
    down the positions of the transposed flags (vectors over the rows): the
    term at a relevant position ``p`` is ``a(p) + b(p) (r + eps)`` with ``a(p)
    = 1 / (p + 1)`` and ``b(p) = p / ((p + 1) (p + 2 eps))``, ``r`` the
    relevant items above it (the running count less its own). ``down``:
    the flags' :func:`running_down`, when made already."""
    e = _INFAP_EPSILON
    L = flags.shape[1]
    p = np.arange(L, dtype=np.float64)[:, None]
    a = 1.0 / (p + 1.0)
    b = p / ((p + 1.0) * (p + 2.0 * e))
    down, running = running_down(flags) if down is None else down
    down = down if down.dtype == bool else down > 0.5
    terms = running.astype(np.float64)  # r + 1 at a relevant position
    terms += e - 1.0
    terms *= b
    terms += a
    terms *= down
    return terms.sum(axis=0)


def _infap_groups_all_judged(groups, key, n_rows):
    """infAP's sum over whole rows ranked with ties, every item judged, one
    term per tie group (integer scores: a few groups per row).

    Above position ``p`` lie ``p`` items, all judged and pooled, whatever
    the order inside a group. A group of ``m`` items from ``s`` on, ``r``
    of them relevant, ``r0`` relevant items above it: given that its item at
    ``p = s + i`` is relevant, the ``i`` above it inside the group hold
    ``i (r - 1) / (m - 1)`` relevant ones on average, and the term is linear
    in that count, so the group adds

    ``r / m * sum_i [a(p) + b(p) (r0 + eps) + b(p) i (r - 1) / (m - 1)]``

    with ``a(p) = 1 / (p + 1)`` and ``b(p) = p / ((p + 1) (p + 2 eps))``:
    three differences of running sums over the positions (the last one a
    difference of near sums), made in long double: read off
    :func:`_infap_spans`' tables on rows of at most
    :data:`~..kernels.SPAN_TABLE_MOST` positions, taken per group of
    several items past them; no pass over the positions of the groups."""
    r = np.rint(groups.sums[key])
    total = _infap_group_terms(r, groups.size, groups.start, _ahead_in_row(groups, r), groups.L)
    return np.bincount(groups.row, weights=total, minlength=n_rows)


def _infap_group_terms(r, m, s, r0, L):
    """The expected infAP terms of tie groups of ``m`` items from ``s`` on
    (0-based), ``r`` of them relevant and ``r0`` relevant items above them,
    every item judged, in rows of ``L`` (see :func:`_infap_groups_all_judged`)."""
    e = _INFAP_EPSILON
    end = s + m
    if L <= SPAN_TABLE_MOST:
        W = span_table_length(L)
        at = s * (W + 1) + end
        sum_a, sum_b, sum_ib = (np.take(T, at) for T in _infap_spans(W))
    else:
        # A group of one item spans one step of the running sums (and its
        # sum_ib is read only through c, 0 there); the others' differences
        # in long double.
        A, B, PB = _infap_running(L)
        sum_a = np.take(np.diff(A).astype(np.float64), s)
        sum_b = np.take(np.diff(B).astype(np.float64), s)
        sum_ib = np.zeros(s.shape[0])
        many = flatnonzero(m > 1)
        if many.size:
            sm, em = s[many], end[many]
            span_b = B[em] - B[sm]
            sum_a[many] = A[em] - A[sm]
            sum_b[many] = span_b
            # sum_i i b(s + i) = sum_p p b(p) - s sum_p b(p) over the group.
            sum_ib[many] = (PB[em] - PB[sm]) - sm * span_b
    c = np.where(m > 1, (r - 1.0) / np.maximum(m - 1.0, 1.0), 0.0)
    total = sum_a + (r0 + e) * sum_b + c * sum_ib
    total *= r / m
    return total


def _infap_few_ties(ties, key):
    """infAP's sum over whole rows that tie in a few places, every item
    judged (:class:`~sk_rankmetrics._ranking.few_ties.FewTies`): the order
    given's (:func:`_infap_all_judged`'s, from its flags), and at each tie
    group its expected terms (:func:`_infap_group_terms`: what lies above a
    group is the same in every order) in place of those. The relevant items
    above each grouped position are read off the running counts down the
    positions, or off the list of relevant items (no running sum along the
    rows)."""
    flags = ties.indicator(key)
    if _infap_reads_down(flags):
        total = _infap_all_judged_down(flags, ties.down(key, many=True))
        above = ties.before(key) if ties.first.size else None
    else:
        flat, rows, count = row_entries(flags)
        total = _infap_listed(rows, flat - rows * flags.shape[1], count)
        # The relevant items before each grouped position in its row.
        above = (np.searchsorted(flat, ties.member)
                 - np.searchsorted(flat, ties.member - ties.pos)).astype(np.float64)
    if not ties.first.size:
        return total
    r = np.rint(ties.group_sums(key))
    r0 = np.take(above, np.cumsum(ties.size) - ties.size)  # at each group's first
    expected = _infap_group_terms(r, ties.size, ties.start, r0, ties.N)
    p = ties.pos.astype(np.float64)
    e = _INFAP_EPSILON
    given = ties.at(key) * (1.0 + p * (above + e) / (p + 2.0 * e)) / (p + 1.0)
    return total + ties.by_row(expected) - ties.by_row(given, at_member=True)


def _infap_running(L):
    """``(A, B, PB)``: in long double, the running sums (length ``L + 1``) of
    :func:`_infap_groups_all_judged`'s ``a(p)``, ``b(p)`` and ``p b(p)``."""
    e = _INFAP_EPSILON
    p = np.arange(L, dtype=np.longdouble)
    b = p / ((p + 1.0) * (p + 2.0 * e))
    out = []
    for v in (1.0 / (p + 1.0), b, p * b):
        run = np.zeros(L + 1, dtype=np.longdouble)
        np.cumsum(v, out=run[1:])
        out.append(run)
    return out


@functools.lru_cache(maxsize=4)
def _infap_spans(L):
    """:func:`span_table`'s tables of the sums of ``a(p)``, ``b(p)`` and
    ``(p - s) b(p)`` over every span ``[s, end)`` of positions (see
    :func:`_infap_groups_all_judged`)."""
    A, B, PB = _infap_running(L)
    return (span_table(L, lambda s, end: A[end] - A[s]),
            span_table(L, lambda s, end: B[end] - B[s]),
            span_table(L, lambda s, end: (PB[end] - PB[s]) - s * (B[end] - B[s])))


def _counts_above(rc, key):
    """The exact count of ``key`` over the tie groups before each position's group."""
    C = _cumulative(rc, key)
    return np.rint(np.take_along_axis(C, rc.start, axis=1))


def infap(rc, req):
    r"""Inferred AP (trec_eval's infAP), exact over tie orderings.

    A relevant item at rank j (1-based) with :math:`P_a` pooled items,
    :math:`r_a` relevant and :math:`q_a` judged non-relevant ones above it
    scores

    .. math::

        \frac{1}{j} \Big(1 + P_a \frac{r_a + \epsilon}{r_a + q_a + 2\epsilon}\Big)

    (:math:`\epsilon = 10^{-5}`); the sum is divided by R. Under ties, take a
    relevant item at offset i of a group of m items (:math:`R_g` relevant,
    :math:`J_g` judged, :math:`U_g` pooled but unjudged): the i items above
    it inside the group are a uniform i-subset of the other m - 1. Given
    the number k of judged ones among them (hypergeometric), the
    denominator is fixed and the two factors of the numerator are
    independent and linear in counts with known means, so the expected
    term is a sum over k of at most :math:`\min(J_g, m - J_g + 1)` values.
    """
    R = rc.totals[req.rel_key]
    e = _INFAP_EPSILON
    # (Rows ranked through their relevant items only had no judged mask.)
    if rc.partial or _every_item_judged(rc):
        ties = rc.few_ties
        if (not rc.partial and ties is not None and rc.L == ties.N
                and is_indicator(req.rel_key)):
            return _safe_divide(_infap_few_ties(ties, req.rel_key), R), R > 0
        if (not rc.real_ties if rc.partial else not rc.tied) and is_indicator(req.rel_key):
            return _safe_divide(_infap_all_judged(rc, req.rel_key), R), R > 0
        groups = whole_row_groups(rc)
        if groups is not None:
            return _safe_divide(_infap_groups_all_judged(groups, req.rel_key, rc.n_rows),
                                R), R > 0
    rel, jud, pool = rc.mean(req.rel_key), rc.mean("judged"), rc.mean("pool")
    j = np.arange(1.0, rc.L + 1.0)
    if not rc.tied:
        above = lambda v: np.cumsum(v, axis=1) - v  # noqa: E731
        r_a, q_a, p_a = above(rel), above(jud - rel), above(pool)
        terms = rel * (1.0 + p_a * (r_a + e) / (r_a + q_a + 2.0 * e)) / j
        return _safe_divide(terms.sum(axis=1), R), R > 0
    m = rc.size.astype(np.float64)
    Rg, Jg, Pg = (np.rint(v * m) for v in (rel, jud, pool))
    R0, J0, P0 = (_counts_above(rc, key) for key in (req.rel_key, "judged", "pool"))
    rows, cols = nonzero_2d(Rg > 0)
    i = (cols - rc.start[rows, cols]).astype(np.float64)
    mm, rg, jg = m[rows, cols], Rg[rows, cols], Jg[rows, cols]
    unj = mm - jg  # the group's items that are not judged
    pooled_unj = Pg[rows, cols] - jg
    r0, q0, p0 = R0[rows, cols], J0[rows, cols] - R0[rows, cols], P0[rows, cols]
    lo = np.maximum(0.0, i - unj)
    count = (np.minimum(i, jg - 1.0) - lo + 1.0).astype(np.int64)
    # Cells by decreasing count: those still summing form a prefix.
    order = np.argsort(-count, kind="stable")
    i, mm, rg, jg, unj, pooled_unj, r0, q0, p0, lo, count = (
        a[order] for a in (i, mm, rg, jg, unj, pooled_unj, r0, q0, p0, lo, count))
    acc = np.zeros(order.shape[0])
    for x in range(int(count.max()) if count.size else 0):
        sl = slice(0, int(np.searchsorted(-count, -x)))  # the cells with count > x
        k = lo[sl] + x
        d = i[sl] - k  # unjudged items among those above
        prob = np.ones(k.shape[0])  # P(k), hypergeometric; 1 when k is the only value
        several = count[sl] > 1
        if several.any():
            c = several
            prob[c] = np.exp(_log_choose(jg[sl][c] - 1.0, k[c]) + _log_choose(unj[sl][c], d[c])
                             - _log_choose(mm[sl][c] - 1.0, i[sl][c]))
        with np.errstate(divide="ignore", invalid="ignore"):
            pooled = p0[sl] + k + np.where(unj[sl] > 0, d * pooled_unj[sl] / unj[sl], 0.0)
            rel_above = r0[sl] + np.where(jg[sl] > 1, k * (rg[sl] - 1.0) / (jg[sl] - 1.0),
                                          0.0)
        acc[sl] += prob * pooled * (rel_above + e) / (r0[sl] + q0[sl] + k + 2.0 * e)
    terms = np.zeros_like(rel)
    terms[rows[order], cols[order]] = (rg / mm) * (1.0 + acc) / j[cols[order]]
    return _safe_divide(terms.sum(axis=1), R), R > 0
