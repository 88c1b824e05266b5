"""User-model kernels: ERR and RBP."""

from __future__ import annotations

import numpy as np

from ..._utils.fast import nonzero_2d
from . import _cut, _group_firsts, _safe_divide
from .combinatorics import _subset_products


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
        rows, cols = nonzero_2d(first & tied)
        T = int(np.minimum(size[rows, cols], kc - cols).max())
        Q = _subset_products(counts[rows, cols], size[rows, cols], y, T)
        group_of = -np.ones((n, kc), dtype=np.int64)
        group_of[rows, cols] = np.arange(rows.shape[0])
        gid = np.take_along_axis(group_of, start, axis=1)
        r, c = nonzero_2d(tied)
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
