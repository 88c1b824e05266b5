"""Interpolated precision: iprec_at_recall and the 11-point average, exact on ties."""

from __future__ import annotations

import numpy as np

from ..._ranking.item_values import as_flags, is_indicator
from ..._utils.fast import (
    accumulate_down,
    count_cumsum,
    row_counts,
    running_down,
    short_rows,
    suffix_max_rows,
)
from ..._utils.nonzero import flatnonzero, nonzero_2d
from ..._utils.params import TIE_ORDER
from . import _lround, load_batches, ranges_from_counts, whole_row_groups
from .combinatorics import _bounded_sequences, _expected_max, order_by_fraction

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
_IPREC_BATCH = 1 << 19
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
    R = rc.totals[req.rel_key]
    n_rows, L = rc.n_rows, rc.L
    if L == 0:
        return [np.zeros(n_rows) for _ in levels], R > 0
    n = np.minimum(rc.n_ranked, L)
    ties = rc.few_ties
    if rc.tied and ties is not None and ties.N == L and ties.few:
        # (Past MOST_TIED most rows hold a mixed group: the tie groups'
        # route, whose statistics come from counting the scores, costs less.)
        return _interpolated_few_ties(rc, req, levels, ties, R, n), R > 0
    groups = whole_row_groups(rc)
    if groups is not None:
        return _interpolated_by_group(rc, req, levels, groups, R, n), R > 0
    if rc.tied:
        rel = rc.mean(req.rel_key)
        size = rc.size
        r_g = np.rint(rel * size)
        mixed = (r_g > 0) & (r_g < size)
        if mixed.any():
            C = np.cumsum(rel, axis=1)
            return _interpolated_ties(rc, req, levels, rel, R, n, r_g, mixed, C), R > 0
        flags = rel > 0.5  # (each group all relevant or all not)
    elif is_indicator(req.rel_key):
        flags = as_flags(rc.sums, req.rel_key)
    else:
        flags = rc.mean(req.rel_key) > 0.5
    # Every position's relevance is known. The suffix maxima of precision at
    # the relevant items serve every level (and both measures).
    key = ("iprec", req.rel_key, L)
    if key not in rc.cache:
        rc.cache[key] = _best_precision_below(flags)
    return _at_levels(rc.cache[key], R, req, levels), R > 0


#: Above this share of relevant positions, :func:`_best_precision_below`
#: takes the running maximum over every position.
_IPREC_LIST_SHARE = 0.25


def _best_precision_below(flags, flat=None, shape=None):
    """``(best, found, first)`` of rows whose relevant items ``flags`` marks
    (no padding among them): ``best``, for the c-th relevant item of a row
    (entry ``first[row] + c - 1``, row after row), the largest precision at
    its rank or below, and ``found``, each row's relevant items. Precision
    only rises at a relevant item, so the largest below one is the largest
    at the relevant items from it on: ``c' / rank(c')`` over ``c' >= c``,
    a running maximum over each row's relevant items alone, from the last.

    ``flat``: the relevant items' flat indices (sorted), when known; then
    ``flags`` may be None (``shape`` the rows') where they are few (the
    list of them is read, not a mask)."""
    n, L = flags.shape if flags is not None else shape
    if flat is None:
        mask = flags if flags.dtype == bool else flags > 0.5
        flat = flatnonzero(mask)
        found = row_counts(mask)
    else:
        mask = flags
        found = np.bincount(flat // L, minlength=n) if L else np.zeros(n, dtype=np.int64)
    first = np.cumsum(found) - found
    if flat.shape[0] > _IPREC_LIST_SHARE * n * L and mask is None:
        mask = np.zeros((n, L), dtype=bool)
        mask.reshape(-1)[flat] = True
    if flat.shape[0] > _IPREC_LIST_SHARE * n * L and short_rows((n, L)):
        # The same, down the positions of the transposed mask (vectors over
        # the rows: NumPy's running maximum along a row costs about 5 ns an
        # entry), turned back to read the relevant entries in order. Only
        # for short rows: on rows of 1,000 the two transposes cost more
        # (1.19x the time on 10,000 x 1,000).
        _, running = running_down(mask)
        prec = np.divide(running, np.arange(1.0, L + 1.0)[:, None])
        accumulate_down(prec[::-1], np.maximum)
        return _DownAt(prec, flat), found, first
    if flat.shape[0] > _IPREC_LIST_SHARE * n * L:
        # Many relevant items: the running maximum over every position, from
        # the last (past a row's last relevant item precision only falls, so
        # padding there changes nothing), read at the relevant ones.
        prec = np.divide(count_cumsum(mask), np.arange(1.0, L + 1.0))
        best = np.empty_like(prec)
        np.maximum.accumulate(prec[:, ::-1], axis=1, out=best[:, ::-1])
        return np.take(best, flat), found, first
    rows = np.repeat(np.arange(n), found)
    c = ranges_from_counts(found)  # 0-based, in its row
    width = max(int(found.max()) if n else 0, 1)
    at = rows * width + c
    prec = np.zeros((n, width))
    prec.reshape(-1)[at] = (c + 1.0) / (flat - rows * L + 1.0)
    # (Past a row's relevant items the zeros leave its maxima as they are.)
    return np.take(suffix_max_rows(prec), at), found, first


class _DownAt:
    """The running maxima of :func:`_best_precision_below` made down the
    positions (``down``, shape (L, n)), read at its entries ``flat`` (the
    relevant items, row-major in the (n, L) layout) when asked: the levels
    read a few entries a row, where turning ``down`` back and gathering
    every relevant item cost two passes over the block."""

    def __init__(self, down, flat):
        self._down, self._flat = down, flat
        self.size = flat.shape[0]

    def in_rows(self, idx, rows):
        """The entries ``idx`` (indices into ``flat``; any shape), each of the
        row ``rows`` (broadcast against it): its position is its flat index
        less the row's start, where a division found the row."""
        L, n = self._down.shape
        p = np.take(self._flat, idx)
        p -= rows * L
        # (An entry of another row, as a caller reads where the row has no
        # such entry and drops the value, stays within the block.)
        np.clip(p, 0, L - 1, out=p)
        p *= n
        p += rows
        return np.take(self._down.reshape(-1), p)


def _interpolated_few_ties(rc, req, levels, ties, R, n):
    """:func:`_interpolated` of whole rows that tie in a few places (``ties``,
    a :class:`~sk_rankmetrics._ranking.few_ties.FewTies`): the order given's
    values (every position's relevance read as ranked), and the rows holding
    a group that mixes relevant and other items again through
    :func:`_interpolated_ties`, on those rows alone, with each such group's
    positions at its mean relevance (the other groups' items have one
    relevance: in the order given, they are where any order puts them)."""
    key = req.rel_key
    flags = ties.indicator(key) if is_indicator(key) else ties.values[key] > 0.5
    if flags.dtype != bool:
        flags = flags > 0.5
    r = np.rint(ties.group_sums(key) if is_indicator(key)
                else np.bincount(ties.gid, weights=np.take(flags.reshape(-1), ties.member),
                                 minlength=ties.size.shape[0]))
    mixed_g = flatnonzero((r > 0) & (r < ties.size))
    return _with_mixed_groups(req, levels, flags, R, n, ties.row[mixed_g],
                              ties.start[mixed_g], ties.size[mixed_g], r[mixed_g])


def _interpolated_by_group(rc, req, levels, groups, R, n):
    """:func:`_interpolated` of whole rows ranked with their tie groups
    (``groups``, a :class:`~sk_rankmetrics._ranking.groups.Groups`: every
    group of the rows, or those holding an item of nonzero value only,
    :attr:`RankedChunk.partial`; a group left out holds no relevant item
    either): no per-position statistic read. A group whose members are all
    relevant puts a relevant item at each of its positions, in every order;
    a group of none puts none; the groups mixing both are read as in
    :func:`_interpolated_few_ties`."""
    key, L = req.rel_key, groups.L
    size = groups.size
    r = np.rint(groups.sums[key])  # (an indicator: the group's relevant items)
    whole = flatnonzero(r == size)  # (a group holds one item or more)
    mixed = flatnonzero((r > 0) & (r < size))
    m = size[whole]
    # (Row-major: the positions come sorted.)
    if m.shape[0] and int(m.max()) == 1:  # (untied: each group one item)
        flat = np.take(groups.first, whole)
    else:
        flat = np.repeat(groups.first[whole], m) + ranges_from_counts(m)
    return _with_mixed_groups(req, levels, None, R, n, groups.row[mixed],
                              groups.start[mixed], size[mixed], r[mixed],
                              flat=flat, shape=(rc.n_rows, L))


def _with_mixed_groups(req, levels, flags, R, n, g_row, g_start, g_m, g_r, flat=None,
                       shape=None):
    """Interpolated precision at recall ``levels`` of whole rows whose
    relevant positions ``flags`` marks (n, L), but at the tie groups mixing
    relevant and other items (``g_row``, ``g_start``, ``g_m`` items, ``g_r``
    of them relevant; sorted by row, then start), whose positions ``flags``
    may mark in any order: the rows without such a group off ``flags``
    (:func:`_best_precision_below`), the others again through
    :func:`_interpolated_ties`, on those rows alone, with each such group's
    positions at its mean relevance. ``flat`` and ``shape`` in place of
    ``flags``: the marked positions' flat indices (sorted) and the rows'
    shape."""
    out = _at_levels(_best_precision_below(flags, flat, shape), R, req, levels)
    if not g_row.size:
        return out
    L = flags.shape[1] if flags is not None else shape[1]
    rows, at_row = np.unique(g_row, return_inverse=True)
    n_m = rows.shape[0]
    # The rows' values in the order given; each mixed group's positions at
    # its mean relevance, its first position and size.
    if flags is not None:
        rel = flags[rows].astype(np.float64)
    else:
        rel = np.zeros((n_m, L))
        new_row = np.full(shape[0], -1, dtype=np.int64)
        new_row[rows] = np.arange(n_m)
        to = np.take(new_row, flat // L)
        some = flatnonzero(to >= 0)
        rel.reshape(-1)[to[some] * L + flat[some] % L] = 1.0
    start = np.broadcast_to(np.arange(L), (n_m, L)).copy()
    size = np.ones((n_m, L), dtype=np.int64)
    member = (np.repeat(at_row * L + g_start, g_m) + ranges_from_counts(g_m))
    rel.reshape(-1)[member] = np.repeat(g_r / g_m, g_m)
    start.reshape(-1)[member] = np.repeat(g_start, g_m)
    size.reshape(-1)[member] = np.repeat(g_m, g_m)
    r_g = np.rint(rel * size)
    mixed = (r_g > 0) & (r_g < size)
    part = _Rows(n_m, L, start, size)
    tied = _interpolated_ties(part, req, levels, rel, R[rows], n[rows], r_g, mixed,
                              np.cumsum(rel, axis=1))
    for values, fixed in zip(out, tied):
        values[rows] = fixed
    return out


class _Rows:
    """Rows for :func:`_interpolated_ties`: their number and length, and each
    position's tie group's first position and size."""

    def __init__(self, n_rows, L, start, size):
        self.n_rows, self.L, self.start, self.size = n_rows, L, start, size


def _at_levels(below, R, req, levels):
    """Interpolated precision at recall ``levels`` of rows whose every
    position's relevance is known, read off their
    :func:`_best_precision_below` (``below``): every level at once (the
    cuts of shape (levels, rows)), each row's entries read from its own."""
    best, found, first = below
    n = found.shape[0]
    c = _recall_cut(np.asarray(levels, dtype=np.float64)[:, None], R, req).astype(np.int64)
    ok = c <= found
    # (A row without its c-th relevant item reads its first entry, or none.)
    idx = np.where(ok, c - 1, 0)
    idx += first
    if not best.size:
        return [np.zeros(n) for _ in levels]
    np.minimum(idx, best.size - 1, out=idx)  # (past the last entry: a row without one)
    if isinstance(best, _DownAt):
        pick = best.in_rows(idx, np.arange(n))
    else:
        pick = np.take(best, idx)
    return list(np.where(ok, pick, 0.0))


#: The most lattice points (a relevant item's count and the others before it)
#: of the mixed tie groups, times the recall cuts, that
#: :func:`_interpolated_ties` takes at once: its arrays (breakpoints, their
#: factors, the terms of the expected maxima) grow with them, about 60 bytes
#: each; more rows are taken in batches of rows (whole rows each: a row's
#: groups are read together). Rows of 1,000 tied integers over dense
#: relevance took 1.6 GiB for 500 rows in one batch.
_IPREC_ROWS_POINTS = 1 << 19


def _interpolated_ties(rc, req, levels, rel, R, n, r_g, mixed, C):
    """:func:`_interpolated` when some tie group mixes relevant and other
    items, in batches of whole rows of at most :data:`_IPREC_ROWS_POINTS`
    points (a row of more alone), each :func:`_interpolated_ties_rows`:
    the rows are independent."""
    n_rows, L = rc.n_rows, rc.L
    heads = mixed & (rc.start == np.arange(L))  # each mixed group's first position
    points = np.where(heads, (r_g + 1.0) * (rc.size - r_g + 1.0), 0.0).sum(axis=1)
    ends = np.cumsum(points * (len(levels) + 1.0))
    if n_rows == 0 or ends[-1] <= _IPREC_ROWS_POINTS:
        return _interpolated_ties_rows(rc, req, levels, rel, R, n, r_g, mixed, C)
    out = [np.empty(n_rows) for _ in levels]
    for a, b in load_batches(ends, _IPREC_ROWS_POINTS):
        part = _Rows(b - a, L, rc.start[a:b], rc.size[a:b])
        values = _interpolated_ties_rows(part, req, levels, rel[a:b], R[a:b], n[a:b],
                                         r_g[a:b], mixed[a:b], C[a:b])
        for whole, value in zip(out, values):
            whole[a:b] = value
    return out


def _interpolated_ties_rows(rc, req, levels, rel, R, n, r_g, mixed, C):
    """:func:`_interpolated_ties` of one batch of rows."""
    n_rows, L = rc.n_rows, rc.L
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
    g_row, g_s = nonzero_2d(mixed & (start == np.arange(L)))
    g_m, g_r = size[g_row, g_s], r_g[g_row, g_s].astype(np.int64)
    g_C0 = C0[g_row, g_s].astype(np.int64)
    g_in = np.minimum(g_m, L - g_s)  # members ranked within the cut
    g_index = np.full((n_rows, L), -1, dtype=np.int64)
    g_index[g_row, g_s] = np.arange(g_row.size)
    # One query per row and distinct recall cut (levels that round to one cut
    # share it): where the c-th relevant item lies, the first group of its
    # row whose running count reaches c (the counts rise along a row: one
    # search over the block for every query, no pass over it per level).
    q_row, q_c, q_of = _distinct_cuts([_recall_cut(level, R, req) for level in levels])
    end_count = (C0 + r_g).reshape(-1)
    # Past any count of a row: a group cut by the depth counts all its
    # relevant items, as many as the row's R, not only L.
    stride = float(max(int(end_count.max(initial=0)), int(q_c.max(initial=0))) + 2)
    end_count += np.repeat(np.arange(n_rows) * stride, L)
    at = np.searchsorted(end_count, q_row * stride + q_c - 0.5)
    found = (at < (q_row + 1) * L) & (R[q_row] > 0)
    at = np.minimum(at, (q_row + 1) * L - 1)  # (a row's last entry where none)
    s_star, m_star = np.take(start, at), np.take(size, at)
    is_mixed = np.take(mixed, at)
    q_t0 = q_c - np.rint(np.take(C0, at)).astype(np.int64)
    u = s_star + q_t0 - 1  # its rank, if fixed
    q_valid = found & (is_mixed | (u < n[q_row]))
    after = np.where(is_mixed, np.minimum(s_star + m_star, L), np.clip(u, 0, L))
    q_D = np.where(q_valid, np.take(D_from, q_row * (L + 1) + after), 0.0)
    q_star = np.where(q_valid, s_star, L)
    q_g = np.where(q_valid & is_mixed, np.take(g_index, at), -1)
    # Factors of each query: its own group's window, then every later mixed group.
    g_keys = g_row * (L + 1) + g_s
    lo = np.searchsorted(g_keys, q_row * (L + 1) + q_star, side="right")
    hi = np.searchsorted(g_keys, q_row * (L + 1) + L, side="right")
    n_after = np.where(q_valid, hi - lo, 0)
    part = q_g >= 0
    f_q = np.concatenate((flatnonzero(part), np.repeat(np.arange(q_row.size), n_after)))
    f_g = np.concatenate((q_g[part], np.repeat(lo, n_after) + ranges_from_counts(n_after)))
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
                                                         g_r, g_C0, g_in, L)
    value = _expected_max(floor, f_q, w_unit[f_w], u_off, v_bp, F, F_start[f_w], L)
    value = np.where(q_valid, value, 0.0)
    return [np.take(value, of) for of in q_of]


def _distinct_cuts(cuts):
    """``(q_row, q_c, q_of)``: the distinct recall cuts of each row (whole
    numbers, ``cuts[i][row]`` the cut of level ``i``) as queries, sorted by
    row then cut, and for each level the query of each row (an index).

    The cut rises with the level (both roundings are monotone), so with the
    levels taken in increasing order a row's distinct cuts are where its
    cut changes from one level to the next: no sort of the cuts."""
    c = np.stack(cuts).astype(np.int64)  # (levels, rows)
    n_levels, n_rows = c.shape
    if n_levels == 1:
        return np.arange(n_rows), c[0], [np.arange(n_rows)]
    # (The levels' order: the cuts are nondecreasing down it in every row.)
    by_level = np.argsort(c.sum(axis=1), kind="stable")
    rows_first = np.ascontiguousarray(c[by_level].T)  # (rows, levels)
    new = np.ones(rows_first.shape, dtype=bool)
    np.not_equal(rows_first[:, 1:], rows_first[:, :-1], out=new[:, 1:])
    query = np.cumsum(new.reshape(-1)).reshape(rows_first.shape) - 1
    q_row = np.repeat(np.arange(n_rows), np.count_nonzero(new, axis=1))
    q_of = [None] * n_levels
    for i, level in enumerate(by_level.tolist()):
        q_of[level] = np.ascontiguousarray(query[:, i])
    return q_row, rows_first[new], q_of


def _check_budget(req, u_g, unit_cost, g_m, g_r):
    """Refuse a tie group whose exact expectation costs more than the budget."""
    n_g = g_m.shape[0]
    cost = np.bincount(u_g, weights=unit_cost, minlength=n_g)
    worst = int(np.argmax(cost)) if n_g else 0
    if n_g and cost[worst] > IPREC_BUDGET:
        raise ValueError(
            f"{req.label}: a tie group of {g_m[worst]} items ({g_r[worst]} of them "
            f"relevant) needs about {cost[worst]:,.0f} steps for the exact expected "
            "interpolated precision over the orderings of the tie, beyond the "
            f"{IPREC_BUDGET:,} this measure allows. Break the ties (ignore_ties=True ranks "
            f"them in one order: {TIE_ORDER}), or use evaluate_run(..., setting='trec_eval'), "
            "which orders them by document id."
        )


def _unit_breakpoints(t0, n0, cells, s, m, r, C0, t_in, thr, L):
    """``(pu, v)``: the distinct precisions ``v`` of every point (t, z) of each
    unit ``pu`` (sorted by unit, then value), 0 where the cut may leave the
    window empty, and below the unit's threshold only the largest (ranks
    within rows of ``L``: fractions of denominators at most ``L``)."""
    n_u = t0.shape[0]
    pu = np.repeat(np.arange(n_u), cells)
    k = ranges_from_counts(cells)
    t = t0[pu] + k // (n0[pu] + 1)
    z = k % (n0[pu] + 1)
    v = (C0[pu] + t) / (s[pu] + t + z)
    split = t_in < m
    low = np.where(split, 0.0, (C0 + r) / (s + m))
    ok = (t + z <= t_in[pu]) & (v >= low[pu])
    pu = np.concatenate((pu[ok], flatnonzero(split)))
    v = np.concatenate((v[ok], np.zeros(int(np.count_nonzero(split)))))
    order = order_by_fraction(pu, v, L)
    pu, v = pu[order], v[order]
    new = np.ones(v.shape[0], dtype=bool)
    new[1:] = (pu[1:] != pu[:-1]) | (v[1:] != v[:-1])
    pu, v = pu[new], v[new]
    # Below the threshold only the largest breakpoint is kept.
    below = v <= thr[pu]
    last_below = below.copy()
    last_below[:-1] &= ~(below[1:] & (pu[1:] == pu[:-1]))
    keep = ~below | last_below
    return pu[keep], v[keep]


def _iprec_window_cdfs(req, w_g, w_t0, w_thr, g_s, g_m, g_r, g_C0, g_in, L):
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
    ``L``: the rows' length (the precisions' denominators are at most it).

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
    _check_budget(req, u_g, cells * np.minimum(d, n0).astype(np.float64) ** 2, g_m, g_r)
    pu, v = _unit_breakpoints(t0, n0, cells, s, m, r, C0, t_in, thr, L)
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
    for a, b in load_batches(load, _IPREC_BATCH):
        units = u_order[a:b]
        job_u = np.repeat(units, n_bp[units])
        jobs = u_off[job_u] + ranges_from_counts(n_bp[units])
        row_of_unit = np.zeros(n_u, dtype=np.int64)
        row_of_unit[units] = np.cumsum(n_bp[units]) - n_bp[units]
        # The windows reading these units, and the rows of their breakpoints.
        ws = w_order[np.repeat(w_first[units], w_count[units]) + ranges_from_counts(w_count[units])]
        rd_w = np.repeat(ws, length[ws])
        rd_k = ranges_from_counts(length[ws])
        rd_row = row_of_unit[w_unit[rd_w]] + rd_k
        out = F_start[rd_w] + rd_k
        rel = rel_side[job_u]
        # The units of one relevant item counted apart from the wider ones:
        # the counts are as wide as a call's widest (sparse relevance: 9 in
        # 10 units of one item, a batch's widest 3 to 5).
        one = rel & (d[job_u] == 1)
        for part in (one, rel & ~one):
            if not part.any():
                continue
            sel = flatnonzero(part)
            ju = job_u[sel]
            contrib, jcol = _relevant_side(v[jobs[sel]], s[ju], C0[ju], r[ju], n0[ju],
                                           t_in[ju], t0[ju])
            at = np.full(jobs.shape[0], -1)
            at[sel] = np.arange(sel.shape[0])
            mine = part[rd_row]
            rows = at[rd_row[mine]]
            F[out[mine]] = 1.0 - (contrib[rows] * (jcol[rows] >= w_t0[rd_w[mine]][:, None])
                                  ).sum(axis=1)
        if (~rel).any():
            sel = flatnonzero(~rel)
            ju = job_u[sel]
            val = np.empty(jobs.shape[0])
            val[sel] = _other_side(v[jobs[sel]], s[ju], C0[ju], r[ju], n0[ju], t_in[ju],
                                   t0[ju])
            mine = ~rel[rd_row]
            F[out[mine]] = val[rd_row[mine]]
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


def iprec_at_recall(rc, req):
    (value,), defined = _interpolated(rc, req, [req.options["recall"]])
    return value, defined


def eleven_point_average(rc, req):
    values, defined = _interpolated(rc, req, req.options["recall_levels"])
    return np.mean(values, axis=0), defined
