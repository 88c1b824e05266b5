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
    return hits / denom, rc.n_relevant[req.rel_key] > 0


def recall(rc, req):
    hits = _relevant_in_top(rc, req)
    n_rel = rc.n_relevant[req.rel_key]
    defined = n_rel > 0
    return hits / np.where(defined, n_rel, 1.0), defined


def r_precision(rc, req):
    n_rel = rc.n_relevant[req.rel_key]
    defined = n_rel > 0
    cum = np.zeros((rc.n_rows, rc.L + 1))
    np.cumsum(rc.mean(req.rel_key), axis=1, out=cum[:, 1:])
    r = np.minimum(n_rel, rc.L).astype(np.int64)
    hits = cum[np.arange(rc.n_rows), r]
    return hits / np.where(defined, n_rel, 1.0), defined


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
    found, _, t, S = _first_relevant_survival(rc, req)
    miss = S[np.arange(rc.n_rows), t]
    return np.where(found, 1.0 - miss, 0.0), rc.n_relevant[req.rel_key] > 0


def reciprocal_rank(rc, req):
    _, s0, _, S = _first_relevant_survival(rc, req)
    first_at = S[:, :-1] - S[:, 1:]  # P(first relevant item is j-th of the group)
    j = np.arange(1, S.shape[1])
    out = (first_at / (s0[:, None] + j)).sum(axis=1)
    return out, rc.n_relevant[req.rel_key] > 0


def average_precision(rc, req):
    kc = _cut(rc, req.k)
    n, L = rc.n_rows, rc.L
    r = rc.sums[req.rel_key][:, :kc]
    m = rc.size[:, :kc].astype(float)
    start = rc.start[:, :kc]
    mean_rel = rc.mean(req.rel_key)
    cum = np.zeros((n, L + 1))
    np.cumsum(mean_rel, axis=1, out=cum[:, 1:])
    before = np.take_along_axis(cum, start, axis=1)
    p = np.arange(1, kc + 1)
    q = p - start  # 1-based place inside the tie group
    with np.errstate(divide="ignore", invalid="ignore"):
        pair = np.where(m > 1, r * (r - 1) / (m * np.maximum(m - 1, 1)), 0.0)
    # E[rel(p) * (relevant items at positions <= p)] / p, by linearity.
    terms = (mean_rel[:, :kc] * (before + 1.0) + (q - 1) * pair) / p
    total = terms.sum(axis=1)
    n_rel = rc.n_relevant[req.rel_key]
    if req.k is None or req.options["denominator"] == "relevant":
        denom = n_rel
    else:
        denom = np.minimum(_as_float(req.k), n_rel)
    defined = n_rel > 0
    return total / np.where(defined, denom, 1.0), defined
