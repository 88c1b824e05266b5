"""Metric kernels: one value per ranked row, from a :class:`RankedChunk`.

Every kernel has the signature ``kernel(rc, req) -> (values, defined)``:
``values`` is a float array of shape ``(n_rows,)`` and ``defined`` a boolean
array marking the rows where the metric is defined (``None``: every row). A
row is undefined when it has no relevant item (or, for nDCG, an ideal DCG of
zero); the reduce step applies the user's policy to those rows.

All kernels compute the exact expected value of the metric over every ordering
of each tie group, all equally likely, from the tie-group statistics alone.
With ``ignore_ties=True`` every group has size one and the formulas reduce to
the plain metric of the given order.
"""

from __future__ import annotations

import numpy as np

from ._ordering import IdealRuns


def _cut(rc, k):
    """Number of positions that count: ``min(k, L)`` (``k`` may be any size)."""
    return rc.L if k is None else min(k, rc.L)


def _as_float(k):
    """A cut-off as a float divisor (a ``k`` beyond float64's range is infinite)."""
    return float(k) if k < 2**1023 else float("inf")


def dcg(rc, req):
    kc = _cut(rc, req.k)
    g = rc.mean(req.gain_key)[:, :kc]
    return g @ req.discount(kc), None


def ndcg(rc, req):
    kc = _cut(rc, req.k)
    ideal_gains = rc.ideal[req.gain_key]  # increasing: the best gain is last
    Li = ideal_gains.shape[1]
    kc_i = Li if req.k is None else min(req.k, Li)
    disc = req.discount(max(kc, kc_i, 1))
    actual = rc.mean(req.gain_key)[:, :kc] @ disc[:kc]
    ideal = ideal_gains[:, Li - kc_i :] @ disc[:kc_i][::-1]
    defined = ideal > 0
    with np.errstate(divide="ignore", invalid="ignore"):
        out = np.where(defined, actual / np.where(defined, ideal, 1.0), 0.0)
    return out, defined


def cumulative_gain(rc, req):
    kc = _cut(rc, req.k)
    return rc.mean(req.gain_key)[:, :kc].sum(axis=1), None


def _relevant_in_top(rc, req):
    kc = _cut(rc, req.k)
    return rc.mean(req.rel_key)[:, :kc].sum(axis=1)


def precision(rc, req):
    hits = _relevant_in_top(rc, req)
    if req.k is None:
        denom = rc.n_items
    elif req.options["adaptive_k"]:
        denom = np.minimum(min(req.k, int(rc.n_items.max())), rc.n_items)
    else:
        denom = np.full(rc.n_rows, _as_float(req.k))
    return hits / denom, rc.totals[req.rel_key] > 0


def recall(rc, req):
    hits = _relevant_in_top(rc, req)
    n_rel = rc.totals[req.rel_key]
    defined = n_rel > 0
    return hits / np.where(defined, n_rel, 1.0), defined


def r_precision(rc, req):
    """Relevant items in the top R over R.

    Rows whose R lies within the ranked positions read them. Beyond them (the
    block was ranked to a shallower cut-off for the other metrics) the top R
    is every item scored above the R-th largest score ``t``, plus a share of
    the items tied at ``t``: the expected relevant count of those is the
    tie's relevant items times the fraction of it the top R holds.
    """
    n_rel = rc.totals[req.rel_key]
    defined = n_rel > 0
    cum = rc.cumulative(req.rel_key)
    r = np.minimum(n_rel, rc.L).astype(np.int64)
    hits = cum[np.arange(rc.n_rows), r]
    deep = np.flatnonzero(n_rel > rc.L)
    if deep.size and rc.block is not None:
        hits[deep] = _relevant_above_rank(rc.block, req.rel_key, deep,
                                          n_rel[deep].astype(np.int64))
    return hits / np.where(defined, n_rel, 1.0), defined


def _relevant_above_rank(block, key, rows, R):
    """Expected relevant items among the top ``R`` of ``rows`` of a block."""
    scores, values = block
    if rows.shape[0] == scores.shape[0]:
        rows = slice(None)  # every row: no copy
    ys = scores[rows]
    rel = values.relevant(rows, key)
    n = ys.shape[0]
    t = np.sort(ys, axis=1)[np.arange(n), ys.shape[1] - R][:, None]
    top = ys >= t
    n_top = np.count_nonzero(top, axis=1)
    hits = np.count_nonzero(top & rel, axis=1).astype(np.float64)
    # Rows where the top R ends inside a tie at t: of the items tied at t only
    # R - (items above t) are in, each tied item equally likely.
    tied = np.flatnonzero(n_top > R)
    if tied.size:
        at = ys[tied] == t[tied]
        n_at = np.count_nonzero(at, axis=1)
        rel_at = np.count_nonzero(at & rel[tied], axis=1)
        n_above = n_top[tied] - n_at
        hits[tied] += rel_at * ((R[tied] - n_above) / n_at - 1.0)
    return hits


def _first_relevant_group(rc, req):
    """Start, size and relevant count of each row's first group with a relevant item."""
    r = rc.sums[req.rel_key]
    has = r > 0
    found = has.any(axis=1)
    p0 = has.argmax(axis=1)
    rows = np.arange(rc.n_rows)
    s0 = rc.start[rows, p0]
    m = rc.size[rows, p0].astype(float)
    r0 = np.where(found, r[rows, p0], 0.0)
    return found, s0, m, r0


def _survival(m, r0, t):
    """``S[:, j]`` = P(no relevant item among the first j of a shuffled group).

    A group of ``m`` items holds ``r0`` relevant ones; ``j`` runs over
    ``0..max(t)`` and only ``j <= t`` is meaningful (later values repeat).
    """
    J = int(t.max()) if t.size else 0
    i = np.arange(J)
    live = i < t[:, None]
    num = m[:, None] - r0[:, None] - i
    den = m[:, None] - i
    with np.errstate(divide="ignore", invalid="ignore"):
        f = np.where(live, np.clip(num, 0, None) / np.where(live, den, 1.0), 1.0)
    S = np.ones((t.shape[0], J + 1))
    np.cumprod(f, axis=1, out=S[:, 1:])
    return S


def _first_relevant_survival(rc, req):
    """First relevant group of each row and its survival curve within the top k.

    Returns ``found``, the group's start ``s0``, ``t`` (how many of its items
    fall in the top k) and ``S`` from :func:`_survival`.
    """
    found, s0, m, r0 = _first_relevant_group(rc, req)
    t = np.clip(_cut(rc, req.k) - s0, 0, m).astype(np.int64)
    t[~found] = 0
    return found, s0, t, _survival(m, r0, t)


def hit_rate(rc, req):
    if not rc.tied:
        return (rc.cumulative(req.rel_key)[:, _cut(rc, req.k)] > 0).astype(np.float64), \
            rc.totals[req.rel_key] > 0
    found, _, t, S = _first_relevant_survival(rc, req)
    miss = S[np.arange(rc.n_rows), t]
    return np.where(found, 1.0 - miss, 0.0), rc.totals[req.rel_key] > 0


def reciprocal_rank(rc, req):
    if not rc.tied:
        kc = _cut(rc, req.k)
        hit = rc.sums[req.rel_key][:, :kc] > 0
        first = hit.argmax(axis=1)
        out = np.where(hit[np.arange(rc.n_rows), first], 1.0 / (first + 1.0), 0.0)
        return out, rc.totals[req.rel_key] > 0
    _, s0, _, S = _first_relevant_survival(rc, req)
    first_at = S[:, :-1] - S[:, 1:]  # P(first relevant item is j-th of the group)
    j = np.arange(1, S.shape[1])
    out = (first_at / (s0[:, None] + j)).sum(axis=1)
    return out, rc.totals[req.rel_key] > 0


def average_precision(rc, req):
    kc = _cut(rc, req.k)
    mean_rel = rc.mean(req.rel_key)[:, :kc]
    cum = rc.cumulative(req.rel_key)
    p = np.arange(1.0, kc + 1.0)
    if not rc.tied:  # rel(p) * (relevant items at positions <= p) / p
        total = (mean_rel * (cum[:, :kc] + 1.0)) @ (1.0 / p)
    else:
        r = rc.sums[req.rel_key][:, :kc]
        m = rc.size[:, :kc].astype(float)
        start = rc.start[:, :kc]
        before = np.take_along_axis(cum, start, axis=1)
        q = p - start  # 1-based place inside the tie group
        with np.errstate(divide="ignore", invalid="ignore"):
            pair = np.where(m > 1, r * (r - 1) / (m * np.maximum(m - 1, 1)), 0.0)
        # E[rel(p) * (relevant items at positions <= p)] / p, by linearity.
        terms = (mean_rel * (before + 1.0) + (q - 1) * pair) / p
        total = terms.sum(axis=1)
    n_rel = rc.totals[req.rel_key]
    if req.k is None or req.options["denominator"] == "relevant":
        denom = n_rel
    else:
        denom = np.minimum(_as_float(req.k), n_rel)
    defined = n_rel > 0
    return total / np.where(defined, denom, 1.0), defined


# -- shared helpers of the measures below ---------------------------------------------


def _cumulative(rc, key):
    """``C[:, j]``: the expected sum of ``key`` over the first ``j`` positions."""
    return rc.cumulative(key)


def _at(C, cut):
    """``C`` read at a per-row number of positions ``cut`` (clipped to ``L``)."""
    cut = np.clip(cut, 0, C.shape[1] - 1).astype(np.int64)
    return C[np.arange(C.shape[0]), cut]


def _safe_divide(num, den):
    """``num / den`` where ``den > 0``, 0 elsewhere."""
    den = np.asarray(den, dtype=np.float64)
    ok = den > 0
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(ok, num / np.where(ok, den, 1.0), 0.0)


def _group_firsts(rc, kc):
    """Whether each of the first ``kc`` positions opens its tie group."""
    return rc.start[:, :kc] == np.arange(kc)


def _lround(x):
    """C's ``lround`` for x >= 0: halves round away from zero (trec_eval's rounding)."""
    base = np.floor(x)
    return base + (x - base >= 0.5)


# -- ERR ----------------------------------------------------------------------------


def _log_choose(a, b):
    from scipy.special import gammaln

    return gammaln(a + 1.0) - gammaln(b + 1.0) - gammaln(a - b + 1.0)


def _subset_products(counts, sizes, y, T):
    """``Q[g, t]``: the mean over the t-subsets of group ``g`` of the product of ``y``.

    Group ``g`` holds ``sizes[g]`` items: ``counts[g, l]`` of value ``y[l]``
    and the rest of value 1. Adding the levels one at a time, the number ``n`` of a t-subset's
    items drawn from the new level is hypergeometric, which gives, with the
    pool ``M`` so far, ``Q_new[t] = sum_n P(n; t, c, M + c) y**n Q_old[t - n]``.
    Costs O(levels * T**2) per group; every weight is a probability, so the
    recursion is stable.
    """
    Q = np.ones((counts.shape[0], T + 1))
    # Items of value 1 form the first pool: any t of them multiply to 1.
    M = (sizes - counts.sum(axis=1)).astype(np.float64)
    t = np.arange(T + 1, dtype=np.float64)
    for lvl in range(counts.shape[1]):
        c = counts[:, lvl].astype(np.float64)
        if not c.any():
            continue
        total = M + c
        new = np.zeros_like(Q)
        for n in range(T + 1):
            draws_old = t - n  # from the pool so far
            ok = (draws_old >= 0) & (n <= c[:, None]) & (draws_old <= M[:, None]) & (
                t <= total[:, None])
            with np.errstate(invalid="ignore"):
                logp = (_log_choose(c[:, None], n) + _log_choose(M[:, None], draws_old)
                        - _log_choose(total[:, None], t))
            p = np.where(ok, np.exp(np.where(ok, logp, 0.0)), 0.0)
            shifted = np.zeros_like(Q)
            shifted[:, n:] = Q[:, : T + 1 - n]
            new += p * (y[lvl] ** n) * shifted
        Q = new
        M = total
    return Q


def err(rc, req):
    """Expected reciprocal rank, exact over the orderings of each tie group.

    The user stops at grade ``g`` with probability ``R_g = (2**g - 1) /
    2**max_grade``; ERR@k sums ``P(stop at p) / p`` over the first k
    positions. Groups are independent: the chance of reaching a group is the
    product of ``1 - R`` over every earlier item, and inside a group of ``m``
    items in random order, ``P(stop at its j-th item) = Q[j-1] - Q[j]`` where
    ``Q[t]`` is the mean product of ``1 - R`` over the group's t-subsets.
    """
    top = req.options["max_grade"]
    kc = _cut(rc, req.k)
    n = rc.n_rows
    stop = (2.0 ** np.arange(1, top + 1) - 1.0) / 2.0**top  # grades 1..top
    y = 1.0 - stop
    if not rc.tied:
        p_stop = sum(stop[g - 1] * rc.sums[f"grade:{g}"][:, :kc] for g in range(1, top + 1))
        reach = np.ones((n, kc))
        np.cumprod(1.0 - p_stop[:, :-1], axis=1, out=reach[:, 1:])
        value = (reach * p_stop) @ (1.0 / np.arange(1.0, kc + 1.0))
        return _err_result(rc, req, value, top)
    counts = np.stack([rc.sums[f"grade:{g}"][:, :kc] for g in range(1, top + 1)], axis=-1)
    size = rc.size[:, :kc]
    start = rc.start[:, :kc]
    pos = np.arange(kc)
    # The product of (1 - R) over a whole group, read at each of its positions.
    log_group = counts @ np.log(y)
    first = _group_firsts(rc, kc)
    # Chance of reaching each group: exp of the sum of the earlier groups' logs.
    reach_log = np.cumsum(np.where(first, log_group, 0.0), axis=1) - np.where(
        first, log_group, 0.0)
    reach = np.exp(np.take_along_axis(reach_log, start, axis=1))
    # Stop probability at each position within its group.
    offset = pos - start
    p_stop = counts @ stop  # a single item's R (exact for groups of one)
    tied = size > 1
    if tied.any():
        rows, cols = np.nonzero(first & tied)
        T = int(np.minimum(size[rows, cols], kc - cols).max())
        Q = _subset_products(counts[rows, cols], size[rows, cols], y, T)
        group_of = -np.ones((n, kc), dtype=np.int64)
        group_of[rows, cols] = np.arange(rows.shape[0])
        gid = np.take_along_axis(group_of, start, axis=1)
        r, c = np.nonzero(tied)
        g, o = gid[r, c], offset[r, c]
        p_stop = p_stop.copy()
        p_stop[r, c] = Q[g, o] - Q[g, o + 1]
    value = (reach * p_stop / (pos + 1.0)).sum(axis=1)
    return _err_result(rc, req, value, top)


def _err_result(rc, req, value, top):
    """ERR, or nERR: ERR over the ideal ordering's ERR."""
    relevant = rc.totals["rel:None"] > 0  # some item of grade 1 or more
    if not req.options["normalize"]:
        return value, relevant
    grades = rc.ideal[req.gain_key]  # increasing, the best last
    Li = grades.shape[1]
    kc_i = Li if req.k is None else min(req.k, Li)
    best = grades[:, Li - kc_i :][:, ::-1]
    r_best = (2.0 ** best - 1.0) / 2.0**top
    before = np.ones_like(r_best)
    before[:, 1:] = np.cumprod(1.0 - r_best[:, :-1], axis=1)
    ideal = (r_best * before / np.arange(1.0, kc_i + 1)).sum(axis=1)
    defined = ideal > 0
    return _safe_divide(value, ideal), defined


# -- RBP ------------------------------------------------------------------------------


def rbp(rc, req):
    """Rank-biased precision: ``(1 - p) sum_i gain_i p**(i - 1)`` over the first k."""
    p = req.options["p"]
    kc = _cut(rc, req.k)
    weights = (1.0 - p) * p ** np.arange(kc)
    if req.options["graded"]:
        # trec_eval: each level over the row's largest level, when above 1.
        top = rc.ideal[req.gain_key][:, -1]
        scale = np.where(top > 1.0, top, 1.0)
        gains = rc.mean(req.gain_key)[:, :kc] / scale[:, None]
    else:
        gains = rc.mean(req.rel_key)[:, :kc]
    return gains @ weights, None


def rbp_residual(rc, req):
    """RBP's residual: ``p**n + (1 - p) sum over unjudged ranked items of p**(i - 1)``."""
    p = req.options["p"]
    unjudged = (np.arange(rc.L) < rc.n_ranked[:, None]) - rc.mean("judged")
    weights = (1.0 - p) * p ** np.arange(rc.L)
    value = unjudged @ weights + p ** rc.n_ranked.astype(np.float64)
    if req.options["zero_if_judged"]:
        value = np.where(unjudged.sum(axis=1) > 0.5, value, 0.0)
    return value, None


# -- F, judged, counts, sets -----------------------------------------------------------


def f1(rc, req):
    """F_beta at k of precision at k (over k) and recall at k."""
    hits = _relevant_in_top(rc, req)
    R = rc.totals[req.rel_key]
    k = rc.n_items.astype(np.float64) if req.k is None else _as_float(req.k)
    b2 = req.options["beta"] ** 2
    # (1 + b2) P R / (b2 P + R) with P = hits / k and R = hits / n_rel.
    return _safe_divide((1.0 + b2) * hits, b2 * R + k), R > 0


def judged(rc, req):
    """ir_measures' Judged@k: judged items in the top k over min(k, ranked)."""
    kc = _cut(rc, req.k)
    seen = rc.mean("pool")[:, :kc].sum(axis=1)
    n = rc.n_ranked.astype(np.float64)
    den = n if req.k is None else np.minimum(_as_float(req.k), n)
    return _safe_divide(seen, den), None


def unjudged(rc, req):
    """trec_eval's unj_k: ranked items in the top k that are not judged, over k."""
    kc = _cut(rc, req.k)
    seen = np.minimum(rc.n_ranked, kc) - rc.mean("judged")[:, :kc].sum(axis=1)
    den = rc.n_ranked.astype(np.float64) if req.k is None else _as_float(req.k)
    return _safe_divide(seen, den), None


def _ranked_sum(rc, key):
    return rc.mean(key).sum(axis=1)


def num_ret(rc, req):
    return rc.n_ranked.astype(np.float64), None


def num_rel(rc, req):
    return rc.totals[req.rel_key].astype(np.float64), None


def num_rel_ret(rc, req):
    return _ranked_sum(rc, req.rel_key), None


def num_nonrel_judged_ret(rc, req):
    return _ranked_sum(rc, "judged") - _ranked_sum(rc, req.rel_key), None


def num_q(rc, req):
    return np.ones(rc.n_rows), None


def _set_counts(rc, req):
    return (_ranked_sum(rc, req.rel_key), rc.n_ranked.astype(np.float64),
            rc.totals[req.rel_key])


def set_precision(rc, req):
    hits, ret, R = _set_counts(rc, req)
    return _safe_divide(hits, ret), R > 0


def set_recall(rc, req):
    hits, _, R = _set_counts(rc, req)
    return _safe_divide(hits, R), R > 0


def set_f(rc, req):
    hits, ret, R = _set_counts(rc, req)
    b2 = req.options["beta"] ** 2
    return _safe_divide((1.0 + b2) * hits, b2 * R + ret), R > 0


def set_map(rc, req):
    """``hits**2 / (ret R)``. Over a whole ranking the hits are fixed; when
    ``max_docs`` splits a tie group, the group's hits inside the cut are
    hypergeometric and ``E[hits**2]`` adds their variance."""
    hits, ret, R = _set_counts(rc, req)
    square = hits * hits
    if rc.tied and rc.L:
        last = rc.L - 1
        start, m = rc.start[:, last], rc.size[:, last].astype(np.float64)
        t = (rc.L - start).astype(np.float64)  # the group's items inside the cut
        r = rc.sums[req.rel_key][:, last]
        split = (t < m) & (m > 1)
        with np.errstate(divide="ignore", invalid="ignore"):
            var = np.where(split, t * (r / m) * (1 - r / m) * (m - t) / (m - 1), 0.0)
        square = square + var
    return _safe_divide(square, ret * R), R > 0


def set_relative_precision(rc, req):
    hits, ret, R = _set_counts(rc, req)
    return _safe_divide(hits, np.minimum(ret, R)), R > 0


def utility(rc, req):
    """``w1 a + w2 b + w3 c + w4 d`` of the contingency table of the ranked set."""
    hits, ret, R = _set_counts(rc, req)
    w1, w2, w3, w4 = req.options["payoffs"]
    missed_nonrel = req.options["n_docs"] + hits - ret - R
    return w1 * hits + w2 * (ret - hits) + w3 * (R - hits) + w4 * missed_nonrel, None


def relative_precision(rc, req):
    """Relevant items in the top k over ``min(k, R)``."""
    hits = _relevant_in_top(rc, req)
    R = rc.totals[req.rel_key]
    k = rc.n_items.astype(np.float64) if req.k is None else _as_float(req.k)
    return _safe_divide(hits, np.minimum(k, R)), R > 0


def rprec_mult(rc, req):
    """Precision at ``c = floor(x R + 0.9)`` (trec_eval's Rprec_mult)."""
    R = rc.totals[req.rel_key]
    cut = np.floor(req.options["multiple"] * R + 0.9)
    C = _cumulative(rc, req.rel_key)
    hits = _at(C, np.minimum(cut, rc.n_ranked))
    return _safe_divide(hits, cut), R > 0


# -- judgement-aware measures ------------------------------------------------------------


def bpref(rc, req):
    """Binary preference, exact over tie orderings.

    Each ranked relevant item scores ``1 - min(N_before, R) / min(N, R)``,
    ``N_before`` the judged non-relevant items ranked above it, N all the
    row's judged non-relevant ones. Inside a tie group with ``q`` judged
    non-relevant items, the number of them above a given relevant item is
    uniform on 0..q (their relative order with it is uniformly random).
    """
    rel = rc.mean(req.rel_key)
    R = rc.totals[req.rel_key]
    N = rc.totals["judged"] - R
    den = np.maximum(np.minimum(N, R), 1.0)[:, None]
    C = rc.cumulative("judged") - rc.cumulative(req.rel_key)  # judged non-relevant
    if not rc.tied:
        terms = rel * (1.0 - np.minimum(C[:, :-1], R[:, None]) / den)
        return _safe_divide(terms.sum(axis=1), R), R > 0
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
    r, c = np.nonzero(split)
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


def infap(rc, req):
    """Inferred AP (trec_eval's infAP); tied scores are refused by the engine.

    A relevant item at rank j (1-based) with ``P`` pooled items, ``r``
    relevant and ``q`` judged non-relevant ones above it scores
    ``(1 + P (r + e) / (r + q + 2e)) / j``; the sum is divided by R.
    """
    rel, jud, pool = rc.mean(req.rel_key), rc.mean("judged"), rc.mean("pool")
    R = rc.totals[req.rel_key]
    above = lambda v: np.cumsum(v, axis=1) - v  # noqa: E731
    r_a, q_a, p_a = above(rel), above(jud - rel), above(pool)
    j = np.arange(1.0, rc.L + 1.0)
    e = _INFAP_EPSILON
    terms = rel * (1.0 + p_a * (r_a + e) / (r_a + q_a + 2.0 * e)) / j
    return _safe_divide(terms.sum(axis=1), R), R > 0


def binary_g(rc, req):
    """trec_eval's binG, exact over tie orderings: each ranked relevant item
    scores ``1 / log2(2 + non-relevant items above it)``; the sum is divided by R."""
    rel = rc.mean(req.rel_key)
    R = rc.totals[req.rel_key]
    # Non-relevant ranked items above each position (the first j are real there).
    C = np.minimum(np.arange(rc.L + 1.0), rc.n_ranked[:, None]) - rc.cumulative(req.rel_key)
    if not rc.tied:
        terms = rel / np.log2(2.0 + C[:, :-1])
        return _safe_divide(terms.sum(axis=1), R), R > 0
    real = (np.arange(rc.L) < rc.n_ranked[:, None]).astype(np.float64)
    nonrel = real - rel
    B = np.rint(np.take_along_axis(C, rc.start, axis=1))  # exact integer counts
    q = np.rint(nonrel * rc.size)
    # F[n] = sum_{i < n} 1 / log2(2 + i); E over a uniform 0..q of 1/log2(2 + B + x).
    F = np.concatenate(([0.0], np.cumsum(1.0 / np.log2(2.0 + np.arange(rc.L + 1)))))
    lo = B.astype(np.int64)
    hi = np.minimum(lo + q.astype(np.int64) + 1, F.shape[0] - 1)
    expected = (F[hi] - F[lo]) / (q + 1.0)
    cut = _at_the_cut(rc, rel, q, B, lambda n, r: 1.0 / np.log2(2.0 + n))
    if cut is not None:  # a tie group split by max_docs
        r, c, at_cut = cut
        expected[r, c] = at_cut
    return _safe_divide((rel * expected).sum(axis=1), R), R > 0


# -- interpolated precision ---------------------------------------------------------------


def _interpolated(rc, req, levels):
    """Interpolated precision at recall ``levels`` (trec_eval's iprec_at_recall).

    At the c-th relevant item, ``c = lround(level * R)`` (at least 1), it is
    the largest precision at that rank or below; 0 when fewer than c
    relevant items are ranked.
    """
    rel = rc.mean(req.rel_key)
    R = rc.totals[req.rel_key]
    n = rc.n_ranked
    C = np.cumsum(rel, axis=1)
    ranks = np.arange(1.0, rc.L + 1.0)
    prec = np.where(ranks <= n[:, None], C / ranks, 0.0)
    best_below = np.maximum.accumulate(prec[:, ::-1], axis=1)[:, ::-1]
    found = C[:, -1] if rc.L else np.zeros(rc.n_rows)
    out = []
    for level in levels:
        c = np.maximum(_lround(level * R), 1.0)
        # Rank (0-based) of the c-th relevant item: the first with C == c.
        at = np.argmax((C >= c[:, None] - 0.5) & (rel > 0.5), axis=1)
        value = best_below[np.arange(rc.n_rows), at]
        out.append(np.where(c <= found + 0.5, value, 0.0))
    return out, R > 0


def iprec_at_recall(rc, req):
    (value,), defined = _interpolated(rc, req, [req.options["recall"]])
    return value, defined


def eleven_point_average(rc, req):
    values, defined = _interpolated(rc, req, req.options["recall_levels"])
    return np.mean(values, axis=0), defined


# -- trec_eval's experimental gain measures -------------------------------------------------


def _runs(rc, key):
    """The ideal's runs of equal positive gain (:class:`IdealRuns`), once per chunk."""
    if ("runs", key) not in rc.cache:
        rc.cache[("runs", key)] = IdealRuns.from_sorted(rc.ideal[key])
    return rc.cache[("runs", key)]


def normalized_gain(rc, req):
    """trec_eval's G: ``sum_i g_i / log2(2 + cost_i - gain_i)`` over the positive
    ideal gain, with ``cost_i`` the running sum of ``max(ideal_i, 1)``."""
    g = rc.mean(req.gain_key)
    runs = _runs(rc, req.gain_key)
    # Items of gain <= 0 cost 1, as do the positions past the ideal's end.
    cost = np.cumsum(np.maximum(runs.top(rc.L), 1.0), axis=1)
    gained = np.cumsum(g, axis=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        terms = np.where(g != 0, g / np.log2(2.0 + cost - gained), 0.0)
    total = runs.total
    return _safe_divide(terms.sum(axis=1), total), total > 0


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
    """trec_eval's ndcg_rel: nDCG averaged over the ranks of the relevant items,
    each unranked relevant item contributing the ranking's final nDCG."""
    runs = _runs(rc, req.gain_key)
    P = runs.P
    g, dcg = _ranked_dcg(rc, req)
    disc = 1.0 / np.log2(np.arange(2.0, rc.L + 2.0))
    idcg = np.cumsum(runs.top(rc.L) * disc, axis=1)  # down to min(P, L)
    # The ideal DCG down to min(p, P): past P (when P <= L) it stays the full one.
    idcg_at = np.where(np.arange(rc.L) < P[:, None], idcg, runs.full_idcg[:, None])
    at_rel = (g > 0) & (np.arange(rc.L) < rc.n_ranked[:, None])
    ratio = _safe_divide(dcg[:, 1:], idcg_at)
    rows = np.arange(rc.n_rows)
    final = _safe_divide(dcg[rows, np.minimum(rc.n_ranked, rc.L)], runs.full_idcg)
    total = np.where(at_rel, ratio, 0.0).sum(axis=1) + (P - at_rel.sum(axis=1)) * final
    return _safe_divide(total, P), P > 0


def rndcg(rc, req):
    """trec_eval's Rndcg: nDCG read where the ideal gain changes level (and at the
    end of the ranking when it ends first), averaged."""
    runs = _runs(rc, req.gain_key)
    _, dcg = _ranked_dcg(rc, req)
    n = np.minimum(rc.n_ranked, rc.L)
    # At each run's end: the DCG of the ranking's first min(end, n) items.
    at = dcg[runs.rows, np.minimum(runs.end, n[runs.rows])]
    ratio = _safe_divide(at, runs.idcg)
    N = rc.n_rows
    total = np.bincount(runs.rows, weights=ratio, minlength=N)
    count = np.bincount(runs.rows, minlength=N).astype(np.float64)
    P = runs.P
    ends_first = P + 1 < rc.n_ranked  # the ranking outlives the positive ideal gains
    rows = np.arange(N)
    full = _safe_divide(dcg[rows, n], runs.full_idcg)
    total = total + np.where(ends_first, full, 0.0)
    count = count + ends_first
    return _safe_divide(total, count), P > 0
