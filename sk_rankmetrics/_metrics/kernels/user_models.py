"""User-model kernels: ERR and RBP."""

from __future__ import annotations

import math

import numpy as np

from ..._utils.fast import codes_of, flatnonzero, nonzero_2d
from . import _ahead_by_row, _cut, _group_firsts, _safe_divide
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
    if rc.tied and rc.groups is not None:
        return _err_result(rc, req, _err_by_group(rc.groups, n, kc, stop, y, rc.partial),
                           top)
    if not rc.tied:
        # Each position's grade is its linear gain (ERR has no gain option):
        # one lookup instead of one indicator per grade.
        grade = rc.sums[req.gain_key][:, :kc].astype(np.intp)
        p_stop = np.take(np.append(0.0, stop), grade)
        reach = np.empty((n, kc))
        reach[:, :1] = 1.0
        # The whole block looked up, then cut: NumPy's take reads a sliced
        # (non-contiguous) index array about nine times slower.
        np.cumprod(np.take(np.append(1.0, y), grade)[:, :-1], axis=1, out=reach[:, 1:])
        reach *= p_stop
        return _err_result(rc, req, reach @ (1.0 / np.arange(1.0, kc + 1.0)), top)
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
        # Only the tied groups holding a relevant item need the subset means
        # (the others stop nowhere: p_stop is 0 there already), and of those
        # only the groups the user reaches with a share of the value above
        # rounding: see _err_kept_groups.
        rows, cols, T = _err_kept_groups(counts, size, reach, first & tied, y, kc)
        p_stop = p_stop.copy()
        p_stop[tied] = 0.0
        if rows.shape[0]:
            Q = _subset_products(counts[rows, cols], size[rows, cols], y, T)
            group_of = -np.ones((n, kc), dtype=np.int64)
            group_of[rows, cols] = np.arange(rows.shape[0])
            gid = np.take_along_axis(group_of, start, axis=1)
            r, c = nonzero_2d(tied & (gid >= 0))
            g, o = gid[r, c], offset[r, c]
            # Past column T the subset means are below rounding (zero here).
            p_stop[r, c] = Q[g, np.minimum(o, T)] - Q[g, np.minimum(o + 1, T)]
    value = (reach * p_stop / (pos + 1.0)).sum(axis=1)
    return _err_result(rc, req, value, top)


def _err_by_group(groups, n, kc, stop, y, partial=False):
    """ERR of whole rows ranked with their tie groups (:class:`Groups`), one
    term per group holding a relevant item (integer scores: a few groups per
    row; sparse relevance: the relevant items' groups only).

    A group starting at 0-based position ``s`` is reached with the product of
    ``1 - R`` over every relevant item of the earlier groups: ``exp`` of their
    running grade counts (exact integers) times ``log(1 - R)``. A group of
    one item adds ``reach * R / (s + 1)``; a larger one ``reach * sum_j (Q[j]
    - Q[j + 1]) / (s + j + 1)`` over its positions before the cut ``kc``,
    with the subset means ``Q`` of :func:`err`. ``partial``: the groups are
    those holding a relevant item only (:attr:`RankedChunk.partial`).
    """
    counts = np.stack([groups.sums[f"grade:{g}"] for g in range(1, stop.shape[0] + 1)], axis=-1)
    first, size = groups.first, groups.size
    if not partial:
        # The groups without a relevant item stop nowhere and change no reach
        # (a partial chunk holds none).
        held = flatnonzero(counts.sum(axis=1) > 0)
        first, counts, size = first[held], counts[held], size[held]
    row, s = first // groups.L, first % groups.L
    reach = np.exp(_ahead_by_row(row, counts) @ np.log(y))
    if kc < groups.L:
        held = flatnonzero(s < kc)
        row, s, counts, size, reach = row[held], s[held], counts[held], size[held], reach[held]
    value = reach * (counts @ stop) / (s + 1.0)
    tied = flatnonzero(size > 1)
    if tied.size:
        value[tied] = _err_tied_groups(counts[tied], size[tied], s[tied], reach[tied], y, kc)
    return np.bincount(row, weights=value, minlength=n)


def _err_tied_groups(counts, size, s, reach, y, kc):
    """The ERR terms of tied groups (see :func:`_err_by_group`): those the
    user reaches with a share of the value above rounding, through their
    subset means (:func:`_err_kept_groups`); the others add 0.

    The subset means of a group depend on its size and grade counts only
    (its composition), and groups repeat a few compositions (integer scores
    in groups of about a hundred on rows of 1,000 hold one to ten relevant
    items): the means are made once per composition, to the most columns a
    group of it needs, and each group reads its own positions' weights.
    """
    m = np.minimum(size, kc - s).astype(np.float64)
    keep, need = _err_kept(counts, size, s, m, reach, y)
    out = np.zeros(size.shape[0])
    if not keep.size:
        return out
    c, n_items, start = counts[keep], size[keep], s[keep].astype(np.intp)
    comp, first = _compositions(n_items, c)
    shared = first.shape[0] * 4 < keep.shape[0] * 3
    if not shared:  # few groups share a composition: each group its own
        comp = first = np.arange(keep.shape[0])
    cols = np.zeros(first.shape[0], dtype=np.int64)
    np.maximum.at(cols, comp, need)
    # 1 / (position + 1) before the cut, 0 from it on: a group's weights are
    # the run of this table from its start.
    widest = int(cols.max())
    weight = np.zeros(kc + widest)
    np.divide(1.0, np.arange(1.0, kc + 1.0), out=weight[:kc])
    # The compositions by the columns they need, in powers of two: one call
    # each, its arrays as wide as its widest (groups of 10 beside a few of 30
    # on rows of 100 would all run to 30 otherwise).
    width = np.ceil(np.log2(np.maximum(cols, 1))).astype(np.int64)
    local = np.empty(first.shape[0], dtype=np.intp)
    group_width = width[comp]
    for b in np.unique(width).tolist():
        mine = flatnonzero(width == b)
        T = int(cols[mine].max())
        # One row per t (the groups contiguous, as every step below reads).
        Q = _subset_products(c[first[mine]], n_items[first[mine]], y, T).T
        # P(the user stops at the group's j-th position): Q[j] - Q[j + 1],
        # up to the columns the composition needs (past them below rounding).
        stops = Q[:-1] - Q[1:]
        stops[np.arange(T)[:, None] >= cols[mine]] = 0.0
        local[mine] = np.arange(mine.shape[0])
        g = flatnonzero(group_width == b)
        w = np.take(weight, start[g] + np.arange(T)[:, None])
        w *= np.take(stops, local[comp[g]], axis=1) if shared else stops
        out[keep[g]] = reach[keep[g]] * w.sum(axis=0)
    return out


def _compositions(size, counts):
    """``(comp, first)``: the groups numbered by their size and grade counts
    (:func:`~sk_rankmetrics._utils.fast.codes_of`), ``first[k]`` a group of
    composition ``k``."""
    counts = np.rint(counts)
    top = (counts.max(axis=0, initial=0) + 1).astype(np.int64).tolist()
    radix = [int(np.max(size, initial=0)) + 1, *top]
    if math.prod(radix) < 2**53:
        # One mixed-radix number per composition, made as a product (float64
        # holds it exactly): a few columns stacked and cast cost far more.
        place = np.cumprod([1, *radix[:-1]]).astype(np.float64)
        key = counts @ place[1:]
        key += np.asarray(size, dtype=np.float64)
        return codes_of(key.astype(np.int64))
    parts = np.column_stack([size, counts]).astype(np.int64)
    if math.prod(radix) >= 2**62:  # one number per composition would overflow
        _, first, comp = np.unique(parts, axis=0, return_index=True, return_inverse=True)
        return comp.reshape(-1), first
    key = parts[:, -1].copy()
    for j in range(parts.shape[1] - 2, -1, -1):
        key *= radix[j]
        key += parts[:, j]
    return codes_of(key)


#: The share of a row's ERR that a skipped tail may hold: below float64 rounding.
_ERR_DROP = 1e-18


def _err_kept_groups(counts, size, reach, opens_tied, y, kc):
    """The tied groups ERR needs subset means for, and how many columns of them.

    A group's stop probabilities matter only if it holds a relevant item and
    the user reaches it. Reached with chance ``r`` at 0-based start ``s``, a
    group adds at most ``r`` to ERR, while the earlier positions already add
    at least ``(1 - r) / s`` (the user stops at one of them, each worth at
    least ``1 / s``); so a group with ``r * s < 1e-18 * (1 - r)`` is dropped
    with a relative error below 1e-18.
    Inside a kept group, the mean product of ``y`` over the t-subsets,
    ``Q[t]``, is at most ``ybar**t`` (Maclaurin's inequality; ``ybar`` the
    group's mean ``y``), and the positions past t add at most ``r * Q[t]``
    while the group's first t positions add at least ``r * (1 - Q[t]) / (s
    + t)``; so columns past ``t* = log(1e-18 / (2 (s + m))) / log(ybar)`` are
    dropped with the same relative bound. Returns the rows, columns (group
    starts) and the largest column needed.
    """
    rows, cols = nonzero_2d(opens_tied)
    m = np.minimum(size[rows, cols], kc - cols).astype(np.float64)
    keep, need = _err_kept(counts[rows, cols], size[rows, cols], cols, m, reach[rows, cols], y)
    return rows[keep], cols[keep], int(need.max(initial=0))


def _err_kept(c, size, s, m, r, y):
    """``(keep, need)``: which of the tied groups (grade counts ``c``, sizes,
    starts ``s``, positions before the cut ``m``, reach ``r``)
    :func:`_err_kept_groups` keeps, and the columns of subset means each
    kept group needs (an int64 array)."""
    # Row sums of the narrow counts as products: a sum along rows of a few
    # columns costs seven times more.
    held = c @ np.ones(c.shape[1])  # exact: sums of whole counts
    keep = flatnonzero((held > 0) & ~(r * s < _ERR_DROP * (1.0 - r)))
    if not keep.size:
        return keep, np.zeros(0, dtype=np.int64)
    c, s, m = c[keep], s[keep], m[keep]
    whole = size[keep].astype(np.float64)
    ybar = (whole - held[keep] + c @ y) / whole
    with np.errstate(divide="ignore"):
        need = np.log(_ERR_DROP / (2.0 * (s + m))) / np.log(ybar)
    t_star = np.where(ybar < 1.0, np.ceil(np.nan_to_num(need, posinf=np.inf)), m)
    return keep, np.minimum(t_star, m).astype(np.int64)


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
        return rc.weighted(req.gain_key, weights) / scale, None
    return rc.weighted(req.rel_key, weights), None


def rbp_residual(rc, req):
    """RBP's residual: ``p**n + (1 - p) sum over unjudged ranked items of p**(i - 1)``."""
    p = req.options["p"]
    unjudged = (np.arange(rc.L) < rc.n_ranked[:, None]) - rc.mean("judged")
    weights = (1.0 - p) * p ** np.arange(rc.L)
    value = unjudged @ weights + p ** rc.n_ranked.astype(np.float64)
    if req.options["zero_if_judged"]:
        value = np.where(unjudged.sum(axis=1) > 0.5, value, 0.0)
    return value, None
