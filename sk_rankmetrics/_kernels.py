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


def _log_factorials(n):
    """``log(k!)`` for k = 0..n, a table for integer binomials."""
    from scipy.special import gammaln

    return gammaln(np.arange(n + 1, dtype=np.float64) + 1.0)


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
        # Summed left to right, as trec_eval adds them: a pairwise sum can land on
        # the other side of a 4th-decimal rounding (0.49375 printed 0.4938, not 0.4937).
        total = np.cumsum(terms, axis=1)[:, -1] if terms.shape[1] else np.zeros(len(R))
        return _safe_divide(total, R), R > 0
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
    rel, jud, pool = rc.mean(req.rel_key), rc.mean("judged"), rc.mean("pool")
    R = rc.totals[req.rel_key]
    e = _INFAP_EPSILON
    j = np.arange(1.0, rc.L + 1.0)
    if not rc.tied:
        above = lambda v: np.cumsum(v, axis=1) - v  # noqa: E731
        r_a, q_a, p_a = above(rel), above(jud - rel), above(pool)
        terms = rel * (1.0 + p_a * (r_a + e) / (r_a + q_a + 2.0 * e)) / j
        return _safe_divide(terms.sum(axis=1), R), R > 0
    m = rc.size.astype(np.float64)
    Rg, Jg, Pg = (np.rint(v * m) for v in (rel, jud, pool))
    R0, J0, P0 = (_counts_above(rc, key) for key in (req.rel_key, "judged", "pool"))
    rows, cols = np.nonzero(Rg > 0)
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


#: The most steps the exact interpolated precision may spend on one tie group:
#: ``d * (n0 + 1) * min(d, n0)**2``, with ``d`` the group's relevant items from
#: the recall cut-off on and ``n0`` its other items (at most ``d * (n0 + 1)``
#: breakpoints, a count of ``min(d, n0)**2`` steps at each). About 4e8 steps
#: take a second: an all-tied row of 1,000 items with 50 relevant (1.2e8 steps)
#: takes 0.8 s and 150 MiB, one with 100 relevant (9e8) would take 4 s. The
#: time of many such rows grows with their number.
IPREC_BUDGET = 200_000_000
#: Recursion cells handled at once (memory).
_IPREC_BATCH = 1 << 21
#: The side of a tie group the counts run over: None takes the smaller one
#: (its relevant items or the others); the tests force each to check both.
_IPREC_SIDE = None


def _count_relevant_side(d, n0):
    """Whether to count over the ``d`` relevant items rather than the ``n0`` others."""
    if _IPREC_SIDE is None:
        return d <= n0
    return np.full(np.shape(d), _IPREC_SIDE == "relevant")


def _recall_cut(level, R, req):
    """The rank among the relevant items at which recall ``level`` is read.

    ``lround(level * R)`` as trec_eval 10, or ``floor(level * R + 0.9)`` as
    trec_eval 9 (and pytrec_eval, ir_measures and ranx with it); at least 1.
    """
    if req.options.get("recall_rounding", "lround") == "plus_0.9":
        return np.maximum(np.floor(level * R + 0.9), 1.0)
    return np.maximum(_lround(level * R), 1.0)


def _interpolated(rc, req, levels):
    r"""Interpolated precision at recall ``levels`` (trec_eval's iprec_at_recall),
    exact over tie orderings.

    At the c-th relevant item, ``c = lround(level * R)`` (at least 1; with
    ``recall_rounding="plus_0.9"``, ``floor(level * R + 0.9)``), it is
    the largest precision at that rank or below,

    .. math::

        IP_c = \max_{x \ge x_c} \frac{C_x}{x},

    and 0 when fewer than c relevant items are ranked. The relevant count at
    each tie-group boundary is fixed, so the c-th relevant item lies in a
    known group and the groups are independent: :math:`IP_c` is the largest
    of a fixed precision (the groups whose members are all relevant or all
    not) and of the maxima of the mixed groups from there on, and
    :math:`E[IP_c] = D + \int_D^1 (1 - \prod_g F_g(v))\, dv` with
    :math:`F_g(v)` the probability that every window precision of group g
    stays <= v. :math:`F_g` is a step function, evaluated at each distinct
    precision the group can show by counting the places of the group's
    relevant items that keep every precision under that bound. See
    :func:`_iprec_window_cdfs`.
    """
    rel = rc.mean(req.rel_key)
    R = rc.totals[req.rel_key]
    n_rows, L = rc.n_rows, rc.L
    if L == 0:
        return [np.zeros(n_rows) for _ in levels], R > 0
    n = np.minimum(rc.n_ranked, L)
    if rc.tied:
        size = rc.size
        r_g = np.rint(rel * size)
        mixed = (r_g > 0) & (r_g < size)
        if mixed.any():
            C = np.cumsum(rel, axis=1)
            return _interpolated_ties(rc, req, levels, rel, R, n, r_g, mixed, C), R > 0
    # Every position's relevance is known. The suffix maxima of precision and
    # the ranks of the relevant items serve every level (and both measures).
    key = ("iprec", req.rel_key, L)
    if key not in rc.cache:
        C = np.cumsum(rel, axis=1)
        prec = np.where(np.arange(1.0, L + 1.0) <= n[:, None], C / np.arange(1.0, L + 1.0), 0.0)
        best_below = np.maximum.accumulate(prec[:, ::-1], axis=1)[:, ::-1].reshape(-1)
        # The relevant items' flat positions, row after row: the c-th of row i
        # is entry first[i] + c - 1.
        flat_at = np.flatnonzero(rel > 0.5)
        found = np.rint(C[:, -1]).astype(np.int64)
        rc.cache[key] = (best_below, flat_at, found, np.cumsum(found) - found)
    best_below, flat_at, found, first = rc.cache[key]
    out = []
    for level in levels:
        c = _recall_cut(level, R, req).astype(np.int64)
        ok = c <= found
        pick = flat_at[np.where(ok, first + c - 1, 0)] if flat_at.size else 0
        out.append(np.where(ok, best_below[pick], 0.0))
    return out, R > 0


def _interpolated_ties(rc, req, levels, rel, R, n, r_g, mixed, C):
    """:func:`_interpolated` when some tie group mixes relevant and other items."""
    n_rows, L = rc.n_rows, rc.L
    rows = np.arange(n_rows)
    start, size = rc.start, rc.size
    C0 = np.rint(np.take_along_axis(np.concatenate((np.zeros((n_rows, 1)), C), axis=1),
                                    start, axis=1))  # relevant items before the group
    ranks = np.arange(1.0, L + 1.0)
    # Precision at the relevant ranks of the other groups, and its suffix maximum.
    fixed = ~mixed & (rel > 0.5) & (ranks <= n[:, None])
    prec = np.where(fixed, np.rint(C) / ranks, 0.0)
    D_from = np.zeros((n_rows, L + 1))
    D_from[:, :L] = np.maximum.accumulate(prec[:, ::-1], axis=1)[:, ::-1]
    # The mixed groups, by row and start.
    g_row, g_s = np.nonzero(mixed & (start == np.arange(L)))
    g_m, g_r = size[g_row, g_s], r_g[g_row, g_s].astype(np.int64)
    g_C0 = C0[g_row, g_s].astype(np.int64)
    g_in = np.minimum(g_m, L - g_s)  # members ranked within the cut
    g_index = np.full((n_rows, L), -1, dtype=np.int64)
    g_index[g_row, g_s] = np.arange(g_row.size)
    # One query per row and level: where the c-th relevant item lies.
    end_count = C0 + r_g
    q_D, q_valid, q_star, q_g, q_t0 = [], [], [], [], []
    for level in levels:
        c = _recall_cut(level, R, req)
        hit = end_count >= c[:, None] - 0.5
        found = hit.any(axis=1) & (R > 0)
        p = np.argmax(hit, axis=1)
        s_star, m_star = start[rows, p], size[rows, p]
        is_mixed = mixed[rows, p]
        u = s_star + (c - C0[rows, p]).astype(np.int64) - 1  # its rank, if fixed
        valid = found & (is_mixed | (u < n))
        after = np.where(is_mixed, np.minimum(s_star + m_star, L), np.clip(u, 0, L))
        q_D.append(np.where(valid, D_from[rows, after], 0.0))
        q_valid.append(valid)
        q_star.append(np.where(valid, s_star, L))
        q_g.append(np.where(valid & is_mixed, g_index[rows, p], -1))
        q_t0.append((c - C0[rows, p]).astype(np.int64))
    q_D, q_valid, q_star, q_g, q_t0 = (np.concatenate(a) for a in (q_D, q_valid, q_star,
                                                                    q_g, q_t0))
    q_row = np.tile(rows, len(levels))
    # Factors of each query: its own group's window, then every later mixed group.
    g_keys = g_row * (L + 1) + g_s
    lo = np.searchsorted(g_keys, q_row * (L + 1) + q_star, side="right")
    hi = np.searchsorted(g_keys, q_row * (L + 1) + L, side="right")
    n_after = np.where(q_valid, hi - lo, 0)
    part = q_g >= 0
    f_q = np.concatenate((np.flatnonzero(part), np.repeat(np.arange(q_row.size), n_after)))
    f_g = np.concatenate((q_g[part], np.repeat(lo, n_after) + _ranges(n_after)))
    f_t0 = np.concatenate((q_t0[part], np.ones(int(n_after.sum()), dtype=np.int64)))
    # Only v >= the largest least maximum matters (the product is 0 below);
    # a factor that cannot exceed it is 1 there and drops out.
    fs, fm, fr, fC0, fin = (a[f_g] for a in (g_s, g_m, g_r, g_C0, g_in))
    low = np.where(fin < fm, 0.0, (fC0 + fr) / (fs + fm))
    top_t = np.minimum(fr, fin)
    high = np.where(top_t >= f_t0, (fC0 + top_t) / (fs + np.maximum(top_t, 1)), 0.0)
    floor = q_D.copy()
    np.maximum.at(floor, f_q, low)
    keep = high > floor[f_q]
    f_q, f_g, f_t0 = f_q[keep], f_g[keep], f_t0[keep]
    top = int(g_r.max()) + 2 if g_r.size else 2
    w_keys, f_w = np.unique(f_g * top + f_t0, return_inverse=True)
    w_g, w_t0 = w_keys // top, w_keys % top
    thr = np.full(w_keys.size, np.inf)
    np.minimum.at(thr, f_w, floor[f_q])
    v_bp, u_off, w_unit, F, F_start = _iprec_window_cdfs(req, w_g, w_t0, thr, g_s, g_m,
                                                         g_r, g_C0, g_in)
    value = _expected_max(floor, f_q, w_unit[f_w], u_off, v_bp, F, F_start[f_w])
    value = np.where(q_valid, value, 0.0)
    return list(value.reshape(len(levels), n_rows))


def _ranges(counts):
    """``[0, 1, .., c0 - 1, 0, 1, .., c1 - 1, ...]`` for ``counts = [c0, c1, ...]``."""
    counts = np.asarray(counts, dtype=np.int64)
    return np.arange(int(counts.sum())) - np.repeat(np.cumsum(counts) - counts, counts)


def _iprec_window_cdfs(req, w_g, w_t0, w_thr, g_s, g_m, g_r, g_C0, g_in):
    r"""CDFs of the window maxima of mixed tie groups, at their breakpoints.

    A group starts at rank ``s + 1`` after ``C0`` relevant items and holds
    ``m`` items, ``r`` of them relevant and ``n0 = m - r`` not, its first
    ``t_in`` within the cut. Its t-th relevant item, after z of the others,
    shows the precision :math:`\pi(t, z) = (C0 + t) / (s + t + z)`; window
    ``(g, t0)`` takes the relevant items :math:`t \ge t_0` of group g ranked
    within the cut. The places of the relevant items are a uniform
    nondecreasing :math:`z_1 \le \dots \le z_r` in :math:`[0, n_0]`, and

    .. math:: F(v) = P\big(\pi(t, z_t) \le v \text{ for every window item}\big)
              = P\big(z_t \ge \beta_t(v),\ t_0 \le t \le r\big),

    lower bounds on a nondecreasing sequence (:func:`_bounded_sequences`).
    ``F`` is a step function; it is evaluated at every distinct window
    precision from the largest one <= ``w_thr`` on (and at 0 when the cut may
    leave the window empty). The windows of one group counted over its
    relevant items (and not cut) share one count, which gives every ``t0``.

    Returns ``(v, u_off, w_unit, F, F_start)``: the breakpoints of window w
    are the run ``v[u_off[u]:u_off[u + 1]]`` of its unit ``u = w_unit[w]``,
    its CDF there ``F[F_start[w]:]`` (as many values).
    """
    n_w, n_g = w_g.shape[0], g_s.shape[0]
    n0_g = g_m - g_r
    t0min = np.full(n_g, np.iinfo(np.int64).max)
    np.minimum.at(t0min, w_g, w_t0)
    share = _count_relevant_side(g_r - t0min + 1, n0_g) & (g_in == g_m)
    key = np.where(share[w_g], w_g, n_g + np.arange(n_w))
    u_key, w_unit = np.unique(key, return_inverse=True)
    n_u = u_key.shape[0]
    u_g = np.where(u_key < n_g, u_key, w_g[np.maximum(u_key - n_g, 0)])
    t0 = np.full(n_u, np.iinfo(np.int64).max)
    np.minimum.at(t0, w_unit, w_t0)
    thr = np.full(n_u, np.inf)
    np.minimum.at(thr, w_unit, w_thr)
    s, m, r, C0, t_in = g_s[u_g], g_m[u_g], g_r[u_g], g_C0[u_g], g_in[u_g]
    n0 = m - r
    d = r - t0 + 1  # relevant items the unit counts
    rel_side = _count_relevant_side(d, n0)
    cells = d * (n0 + 1)
    cost = np.bincount(u_g, weights=cells * np.minimum(d, n0).astype(np.float64) ** 2,
                       minlength=n_g)
    worst = int(np.argmax(cost)) if n_g else 0
    if n_g and cost[worst] > IPREC_BUDGET:
        raise ValueError(
            f"{req.label}: a tie group of {g_m[worst]} items ({g_r[worst]} of them "
            f"relevant) needs about {cost[worst]:,.0f} steps for the exact expected "
            "interpolated precision over the orderings of the tie, beyond the "
            f"{IPREC_BUDGET:,} this measure allows. Break the ties (ignore_ties=True takes "
            "them in the order of the sort), or use evaluate_run(..., setting='trec_eval'), "
            "which orders them by document id."
        )
    # Every point (t, z) of each unit and its precision, then the distinct ones.
    pu = np.repeat(np.arange(n_u), cells)
    k = _ranges(cells)
    t = t0[pu] + k // (n0[pu] + 1)
    z = k % (n0[pu] + 1)
    v = (C0[pu] + t) / (s[pu] + t + z)
    split = t_in < m
    low = np.where(split, 0.0, (C0 + r) / (s + m))
    ok = (t + z <= t_in[pu]) & (v >= low[pu])
    pu = np.concatenate((pu[ok], np.flatnonzero(split)))
    v = np.concatenate((v[ok], np.zeros(int(np.count_nonzero(split)))))
    order = np.lexsort((v, pu))
    pu, v = pu[order], v[order]
    new = np.ones(v.shape[0], dtype=bool)
    new[1:] = (pu[1:] != pu[:-1]) | (v[1:] != v[:-1])
    pu, v = pu[new], v[new]
    # Below the threshold only the largest breakpoint is kept.
    below = v <= thr[pu]
    last_below = below.copy()
    last_below[:-1] &= ~(below[1:] & (pu[1:] == pu[:-1]))
    keep = ~below | last_below
    pu, v = pu[keep], v[keep]
    n_bp = np.bincount(pu, minlength=n_u)
    u_off = np.concatenate(([0], np.cumsum(n_bp)))
    length = n_bp[w_unit]
    F_start = np.concatenate(([0], np.cumsum(length)))[:-1]
    F = np.empty(int(length.sum()))
    # Windows by unit, and the counts by batches of units of similar width.
    w_order = np.argsort(w_unit, kind="stable")
    w_first = np.searchsorted(w_unit[w_order], np.arange(n_u))
    w_count = np.bincount(w_unit, minlength=n_u)
    width = np.where(rel_side, d, n0) + 1
    u_order = np.argsort(width, kind="stable")
    load = np.cumsum(n_bp[u_order] * (np.maximum(d, n0)[u_order] + 1))
    a = 0
    while a < n_u:
        done = load[a - 1] if a else 0
        b = max(int(np.searchsorted(load, done + _IPREC_BATCH, side="right")), a + 1)
        units = u_order[a:b]
        job_u = np.repeat(units, n_bp[units])
        jobs = u_off[job_u] + _ranges(n_bp[units])
        row_of_unit = np.zeros(n_u, dtype=np.int64)
        row_of_unit[units] = np.cumsum(n_bp[units]) - n_bp[units]
        # The windows reading these units, and the rows of their breakpoints.
        ws = w_order[np.repeat(w_first[units], w_count[units]) + _ranges(w_count[units])]
        rd_w = np.repeat(ws, length[ws])
        rd_k = _ranges(length[ws])
        rd_row = row_of_unit[w_unit[rd_w]] + rd_k
        out = F_start[rd_w] + rd_k
        rel = rel_side[job_u]
        if rel.any():
            sel = np.flatnonzero(rel)
            ju = job_u[sel]
            contrib, jcol = _relevant_side(v[jobs[sel]], s[ju], C0[ju], r[ju], n0[ju],
                                           t_in[ju], t0[ju])
            at = np.full(jobs.shape[0], -1)
            at[sel] = np.arange(sel.shape[0])
            mine = rel[rd_row]
            rows = at[rd_row[mine]]
            F[out[mine]] = 1.0 - (contrib[rows] * (jcol[rows] >= w_t0[rd_w[mine]][:, None])
                                  ).sum(axis=1)
        if (~rel).any():
            sel = np.flatnonzero(~rel)
            ju = job_u[sel]
            val = np.empty(jobs.shape[0])
            val[sel] = _other_side(v[jobs[sel]], s[ju], C0[ju], r[ju], n0[ju], t_in[ju],
                                   t0[ju])
            mine = ~rel[rd_row]
            F[out[mine]] = val[rd_row[mine]]
        a = b
    np.clip(F, 0.0, 1.0, out=F)
    return v, u_off, w_unit, F, F_start


def _precision_above(C0, s, t, z, v):
    """Whether the t-th relevant item after z others shows a precision above v
    (the float comparison that defined the breakpoints)."""
    return (C0 + t) / (s + t + z) > v


def _first_over(C0, s, r, t0, t_in, k, v):
    """``tau_k``: the first window item ``t >= t0`` whose precision after
    ``k - 1`` others is above v and that can be ranked within the cut after
    them (``r + 1``: none), from an estimate, by exact comparisons."""
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        est = np.where(v < 1.0, np.floor((v * (s + k - 1.0) - C0) / (1.0 - v)), r + 1.0)
    tau = np.clip(est, t0, r + 1.0)
    for _ in range(2):  # the estimate is off by less than one
        tau = tau + ((tau <= r) & ~_precision_above(C0, s, tau, k - 1.0, v))
    return np.where(tau <= t_in - k + 1.0, tau, r + 1.0)


def _relevant_side(v, s, C0, r, n0, t_in, t0):
    """``(contrib, t)``: ``F(v)`` of window ``t0' >= t0`` is ``1 - sum(contrib)``
    over the columns with ``t >= t0'`` (``t``: the relevant item of each
    column, right-aligned; 0 on padding)."""
    d = int((r - t0).max()) + 1
    t = r[:, None] - (d - 1 - np.arange(d))[None, :]  # right-aligned: the last is r
    inside = t >= t0[:, None]
    t = np.where(inside, t, t0[:, None])  # padding columns, left of t0: ignored
    C0c, sc, vc, n0c = C0[:, None], s[:, None], v[:, None], n0[:, None]
    # alpha_t: the fewest others before the t-th relevant item that keep its
    # precision <= v (n0 + 1: none does), from an estimate, by exact comparisons.
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        est = np.where(vc > 0, np.floor((C0c + t) / vc - sc - t), n0c + 1.0)
    alpha = np.clip(est, 0.0, n0c + 1.0)
    for _ in range(2):  # the estimate is off by less than one
        alpha = alpha + ((alpha <= n0c) & _precision_above(C0c, sc, t, alpha, vc))
    # Items beyond the cut impose nothing; the bounds are made nondecreasing.
    lam = np.maximum(np.minimum(alpha, t_in[:, None] - t + 1.0), 0.0)
    lam = np.where(inside, lam, 0.0)
    beta = np.maximum.accumulate(lam, axis=1)
    contrib = np.zeros(beta.shape)
    possible = beta[:, -1] <= n0
    if possible.any():
        contrib[possible] = _bounded_sequences(beta[possible], r[possible], n0[possible],
                                               terms=True)
    # An impossible bound (beta_r > n0) leaves F = 0: a contribution of 1.
    contrib[~possible, -1] = 1.0
    return contrib, np.where(inside, t, 0)


def _other_side(v, s, C0, r, n0, t_in, t0):
    K = int(n0.max())
    C0c, sc, vc, rc_, t0c, inc = (a[:, None] for a in (C0, s, v, r, t0, t_in))
    possible = _first_over(C0c, sc, rc_, t0c, inc, n0[:, None] + 1.0, vc)[:, 0] > r
    tau = _first_over(C0c, sc, rc_, t0c, inc, np.arange(1.0, K + 1.0)[None, :], vc)
    gamma = np.where(tau <= rc_, tau - 1.0, rc_)  # y_k <= gamma_k
    # lambda_i = r - gamma_(n0 + 1 - i), right-aligned: column c is k = K - c.
    lam = rc_ - gamma[:, ::-1]
    out = np.zeros(v.shape[0])
    if possible.any():
        out[possible] = _bounded_sequences(lam[possible], n0[possible], r[possible])
    return out


def _bounded_sequences(lam, n, M, terms=False):
    r"""The share of nondecreasing sequences :math:`0 \le x_1 \le .. \le x_n \le M`
    with :math:`x_j \ge \lambda_j`; ``lam`` is right-aligned (its last column
    bounds :math:`x_n`, columns before :math:`x_1` are ignored) and its bounds
    are nondecreasing.

    With :math:`u_j = x_j + j` an n-subset of :math:`[1, U]`, :math:`U = M + n`,
    and :math:`b_j = \lambda_j + j`, split the subsets that break a bound by
    the last one they break, :math:`j^*`: exactly :math:`j^*` of their items
    lie below :math:`b_{j^*}` (any of :math:`\binom{b_{j^*} - 1}{j^*}`) and
    the others keep the later bounds. So, with :math:`\sigma_{j'}` the share of
    :math:`(n - j')`-subsets keeping the bounds after :math:`j'`,

    .. math:: \sigma_{j'} = 1 - \sum_{j^* > j'} \binom{b_{j^*} - 1}{j^* - j'}
              \frac{\binom{U}{n - j^*}}{\binom{U}{n - j'}} \sigma_{j^*},
              \qquad F = \sigma_0,

    summed over the bounded indices only (a suffix): O(bounded**2) per
    entry. Every subtracted term is the probability of a disjoint event, so
    the error stays absolute (about 1e-16 per term). ``terms=True`` returns
    the terms of F, one per column: those of the indices >= j0 give the
    share of sequences keeping the bounds from j0 on.
    """
    J, W = lam.shape
    n = np.asarray(n, dtype=np.int64)
    M = np.asarray(M, dtype=np.int64)
    U = M + n
    lf = _log_factorials(int(U.max()) + 1)
    j = n[:, None] - (W - 1 - np.arange(W))[None, :]  # the index of each column
    lam = np.minimum(lam, (M + 1)[:, None]).astype(np.int64)  # impossible stays so
    live = (lam >= 1) & (j >= 1)
    first = np.where(live.any(axis=1), np.argmax(live, axis=1), W)
    order = np.argsort(first, kind="stable")  # those bounded at column q: a prefix
    first, lam, j, live, n, U = first[order], lam[order], j[order], live[order], n[order], U[
        order]
    b1 = np.where(live, lam + j - 1, 0)  # b_j - 1
    rest = np.clip(n[:, None] - j, 0, None)
    base = lf.take(U)[:, None] - lf.take(rest) - lf.take(U[:, None] - rest)  # log C(U, n - j)
    top = lf.take(b1)
    sigma = np.ones((J, W))
    for q in range(W - 2, -1, -1):
        na = int(np.searchsorted(first, q, side="right"))
        if na == 0:
            break
        k = np.arange(1, W - q)  # j* - j'
        logp = (top[:na, q + 1 :] - lf[k] - lf.take(b1[:na, q + 1 :] - k)
                + base[:na, q + 1 :] - base[:na, q : q + 1])
        sigma[:na, q] = 1.0 - (np.exp(logp) * sigma[:na, q + 1 :]).sum(axis=1)
    jj = np.maximum(j, 0)
    base0 = lf.take(U) - lf.take(n) - lf.take(U - n)
    logp0 = top - lf.take(jj) - lf.take(np.maximum(b1 - jj, 0)) + base - base0[:, None]
    term0 = np.where(live, np.exp(np.where(live, logp0, 0.0)), 0.0)
    if terms:  # each index's term, in the input's order
        out = np.empty((J, W))
        out[order] = term0 * sigma
        return out
    out = np.empty(J)
    out[order] = 1.0 - (term0 * sigma).sum(axis=1)
    return out


def _expected_max(floor, f_q, f_run, run_off, v_bp, F, f_F):
    r"""``E[max(floor_q, X_1, .., X_h)]`` per query q, the X independent.

    Factor f of query ``f_q[f]`` has the breakpoints of run ``f_run[f]``,
    ``v_bp[run_off[u]:run_off[u + 1]]`` (increasing), and its CDF there is
    ``F[f_F[f]:]`` (as many values), 0 below the first. The floor is at least
    the least possible value of every factor, so the product is 0 below it
    and

    .. math:: E = \text{floor} + \int_{\text{floor}}^1 \Big(1 - \prod_f F_f(v)\Big) dv.
    """
    n_q = floor.shape[0]
    out = floor.copy()
    if f_q.size == 0:
        return out
    # Each factor's breakpoints from the last one <= the floor (its value there).
    n_run = run_off.shape[0] - 1
    bp_run = np.repeat(np.arange(n_run), np.diff(run_off))
    probe = floor[f_q]
    keys_r = np.concatenate((bp_run, f_run))
    keys_v = np.concatenate((v_bp, probe))
    is_probe = np.concatenate((np.zeros(bp_run.size, dtype=bool),
                               np.ones(f_run.size, dtype=bool)))
    order = np.lexsort((is_probe, keys_v, keys_r))  # breakpoints before probes on ties
    seen = np.cumsum(~is_probe[order])  # breakpoints up to each position
    at = np.empty(order.size, dtype=np.int64)
    at[order] = seen
    below = at[bp_run.size:] - run_off[f_run]  # breakpoints of the run <= the floor
    skip = np.maximum(below - 1, 0)
    f_len = run_off[f_run + 1] - run_off[f_run] - skip
    e_f = np.repeat(np.arange(f_q.size), f_len)
    k = _ranges(f_len) + skip[e_f]
    ev = np.maximum(v_bp[run_off[f_run][e_f] + k], probe[e_f])
    eF = F[f_F[e_f] + k]
    pos = eF > 0
    e_f, ev, eF = e_f[pos], ev[pos], eF[pos]
    firsts = np.ones(e_f.size, dtype=bool)
    firsts[1:] = e_f[1:] != e_f[:-1]
    prev = np.concatenate(([1.0], eF[:-1]))
    dlog = np.log(eF) - np.where(firsts, 0.0, np.log(prev))
    e_q = f_q[e_f]
    order = np.lexsort((ev, e_q))
    e_q, ev, dlog, firsts = e_q[order], ev[order], dlog[order], firsts[order]
    n_factors = np.bincount(f_q, minlength=n_q)
    qstart = np.searchsorted(e_q, np.arange(n_q))
    cum_log = np.cumsum(dlog)
    cum_first = np.cumsum(firsts)
    base_log = np.concatenate(([0.0], cum_log))[qstart]
    base_first = np.concatenate(([0], cum_first))[qstart]
    waiting = n_factors[e_q] - (cum_first - base_first[e_q])  # factors still at 0
    prod = np.where(waiting == 0, np.exp(cum_log - base_log[e_q]), 0.0)
    nxt = np.ones(ev.size)
    nxt[:-1] = np.where(e_q[1:] == e_q[:-1], ev[1:], 1.0)
    out += np.bincount(e_q, weights=(1.0 - prod) * (nxt - ev), minlength=n_q)
    # Before every factor's first positive value the product is 0.
    has = np.bincount(e_q, minlength=n_q) > 0
    first_v = np.where(has, ev[np.minimum(qstart, max(ev.size - 1, 0))], 1.0)
    out += np.where(has, first_v - floor, np.where(n_factors > 0, 1.0 - floor, 0.0))
    return out


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


#: The most terms (count vectors) the exact G of one tie group may sum:
#: ``prod(c + 1)`` over the group's distinct gains, ``c`` items each. A group
#: of two gain levels (binary relevance) stays under it up to 1,000 items.
G_BUDGET = 1 << 18
#: Terms handled at once (memory of the enumeration).
_G_BATCH = 1 << 21


def normalized_gain(rc, req):
    r"""trec_eval's G, exact over tie orderings.

    .. math::

        G = \frac{1}{\sum_i g^*_i} \sum_p \frac{g_p}{\log_2(2 + c_p - S_p)}

    with :math:`g^*` the positive ideal gains, :math:`c_p` the running sum of
    :math:`\max(g^*_i, 1)` and :math:`S_p` the gain ranked down to p. Under
    ties the gain before a group is fixed; inside a group the first j members
    are a uniform j-subset, and given their sum :math:`T_j` the j-th is any
    of them, so the expected term at the group's j-th rank is
    :math:`E[T_j / \log_2(2 + c_p - S_0 - T_j)] / j`: a sum over the count
    vectors of the group's gain levels (multivariate hypergeometric). A
    group whose members share one gain needs no sum.
    """
    g = rc.mean(req.gain_key)
    runs = _runs(rc, req.gain_key)
    # Items of gain <= 0 cost 1, as do the positions past the ideal's end.
    cost = np.cumsum(np.maximum(runs.top(rc.L), 1.0), axis=1)
    gained = np.cumsum(g, axis=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        terms = np.where(g != 0, g / np.log2(2.0 + cost - gained), 0.0)
    if rc.tied and rc.L:
        _g_tie_groups(rc, req, terms, cost, gained - g)
    total = runs.total
    return _safe_divide(terms.sum(axis=1), total), total > 0


def _mixed_groups(rc, key):
    """The tie groups (within the first L ranks) whose members' values differ.

    Returns ``(row, start, size, levels)`` with ``levels`` a tuple
    ``(group, value, count)`` of the distinct values of each such group
    (sorted by group), or None when there is none.
    """
    L = rc.L
    first = (rc.start == np.arange(L)) & (rc.size > 1)
    rows, starts = np.nonzero(first)
    if rows.size == 0:
        return None
    items = rc.items[key]
    W = items.shape[1]
    # A group of real items that runs past L was ranked over the whole row (W =
    # N); one that still runs past W is padding (-inf), whose members all hold 0.
    sizes = np.minimum(rc.size[rows, starts], W - starts)
    gid = np.repeat(np.arange(rows.size), sizes)
    offset = np.arange(gid.size) - np.repeat(np.cumsum(sizes) - sizes, sizes)
    vals = items.reshape(-1)[np.repeat(rows * W + starts, sizes) + offset]
    order = np.lexsort((vals, gid))
    gid, vals = gid[order], vals[order]
    new = np.ones(gid.size, dtype=bool)
    new[1:] = (gid[1:] != gid[:-1]) | (vals[1:] != vals[:-1])
    at = np.flatnonzero(new)
    lg, lv = gid[at], vals[at]
    lc = np.diff(np.append(at, gid.size))
    n_levels = np.bincount(lg, minlength=rows.size)
    mixed = n_levels > 1
    if not mixed.any():
        return None
    keep = mixed[lg]
    renumber = np.cumsum(mixed) - 1
    return (rows[mixed], starts[mixed], sizes[mixed],
            (renumber[lg[keep]], lv[keep], lc[keep]))


def _budget_error(req, size, n_levels, terms, budget):
    return ValueError(
        f"{req.label}: a tie group of {size} items with {n_levels} distinct gains needs "
        f"{terms:,.0f} terms for its exact expected value over the orderings of the tie, "
        f"beyond the {budget:,} this measure allows. Break the ties (ignore_ties=True takes "
        "them in the order of the sort), or use evaluate_run(..., setting='trec_eval'), "
        "which orders them by document id."
    )


def _g_tie_groups(rc, req, terms, cost, gain_before):
    """Replace the terms of G at the ranks of tie groups of mixed gains (in place)."""
    found = _mixed_groups(rc, req.gain_key)
    if found is None:
        return
    rows, starts, sizes, (lg, lv, lc) = found
    n_groups = rows.size
    log_states = np.bincount(lg, weights=np.log(lc + 1.0), minlength=n_groups)
    states = np.rint(np.exp(log_states))
    worst = int(np.argmax(states))
    if states[worst] > G_BUDGET:
        raise _budget_error(req, int(sizes[worst]), int(np.count_nonzero(lg == worst)),
                            states[worst], G_BUDGET)
    L = rc.L
    inside = np.minimum(sizes, L - starts)  # members ranked within the cut
    S0 = gain_before[rows, starts]
    lf = _log_factorials(int(sizes.max()))
    # Level l of each group: its count, value and the stride of its digit.
    level_at = np.arange(lg.size) - np.searchsorted(lg, lg)
    n_lev = int(level_at.max()) + 1
    count = np.zeros((n_lev, n_groups), dtype=np.int64)
    value = np.zeros((n_lev, n_groups))
    count[level_at, lg], value[level_at, lg] = lc, lv
    stride = np.cumprod(np.concatenate((np.ones((1, n_groups), dtype=np.int64),
                                        count[:-1] + 1), axis=0), axis=0)
    states = states.astype(np.int64)
    acc = np.zeros(rc.n_rows * L)
    # Batches of whole groups, at most _G_BATCH terms each (one group may exceed it).
    ends = np.cumsum(states)
    a = 0
    while a < n_groups:
        b = max(int(np.searchsorted(ends, ends[a] - states[a] + _G_BATCH, side="right")), a + 1)
        grp = np.repeat(np.arange(a, b), states[a:b])
        idx = _ranges(states[a:b])  # the state's number within its group
        j = np.zeros(grp.size, dtype=np.int64)
        T = np.zeros(grp.size)
        logw = np.zeros(grp.size)
        for lvl in range(n_lev):
            c = count[lvl].take(grp)
            n = (idx // stride[lvl].take(grp)) % (c + 1)  # items drawn from the level
            j += n
            T += n * value[lvl].take(grp)
            logw += lf.take(c) - lf.take(n) - lf.take(c - n)
        ok = (j >= 1) & (j <= inside.take(grp)) & (T != 0)
        grp, j, T, logw = grp[ok], j[ok], T[ok], logw[ok]
        r, p = rows.take(grp), starts.take(grp) + j - 1
        m = sizes.take(grp)
        prob = np.exp(logw - (lf.take(m) - lf.take(j) - lf.take(m - j)))
        acc += np.bincount(r * L + p, minlength=acc.size,
                           weights=prob * T / np.log2(2.0 + cost[r, p] - S0.take(grp) - T) / j)
        a = b
    r = np.repeat(rows, inside)
    p = np.repeat(starts, inside) + _ranges(inside)
    terms[r, p] = acc.reshape(rc.n_rows, L)[r, p]


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
    runs = _runs(rc, req.gain_key)
    P = runs.P
    g, dcg = _ranked_dcg(rc, req)  # dcg[:, j]: expected DCG of the first j ranks
    n_rows, L = rc.n_rows, rc.L
    rows = np.arange(n_rows)
    disc = 1.0 / np.log2(np.arange(2.0, L + 2.0))
    idcg = np.cumsum(runs.top(L) * disc, axis=1)  # down to min(P, L)
    # The ideal DCG down to min(p, P): past P (when P <= L) it stays the full one.
    idcg_at = np.where(np.arange(L) < P[:, None], idcg, runs.full_idcg[:, None])
    n = np.minimum(rc.n_ranked, L)
    if not rc.tied:
        at_rel = (g > 0) & (np.arange(L) < rc.n_ranked[:, None])
        ratio = _safe_divide(dcg[:, 1:], idcg_at)
        final = _safe_divide(dcg[rows, n], runs.full_idcg)
        total = np.where(at_rel, ratio, 0.0).sum(axis=1) + (P - at_rel.sum(axis=1)) * final
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
    total = total + _safe_divide(final, runs.full_idcg)
    return _safe_divide(total, P), P > 0


def rndcg(rc, req):
    """trec_eval's Rndcg: nDCG read where the ideal gain changes level (and at the
    end of the ranking when it ends first), averaged. A row without a relevant
    item at ``threshold`` is undefined, as trec_eval returns 0 for a query
    whose number of relevant documents at the level (``-l``) is 0, although
    the gains ignore the level."""
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
    return _safe_divide(total, count), (P > 0) & (rc.totals[req.rel_key] > 0)
