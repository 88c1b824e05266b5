"""ndcg_rel and Rndcg made down the positions of many rows (vectors over the
rows, a few thousand rows at a time): of rows without ties, and of rows that
tie in a few places (:class:`~sk_rankmetrics._ranking.few_ties.FewTies`).

Over the orders of a tie group, the expected gain at each of its positions
is the group's mean gain, and the expected DCG down to any position is the
running DCG of those means: Rndcg reads nothing else. ndcg_rel reads the
DCG at each relevant position, a product of the position's relevance with
the gains above it, whose expectation differs from the means' at the
grouped positions only (the pair moments of the group's own items): the
means' value, corrected there."""

from __future__ import annotations

import numpy as np

from ..._ranking.ideal import CountedLevels
from ..._utils.fast import DOWN_CELLS, accumulate_down
from ..._utils.nonzero import flatnonzero
from . import _safe_divide

_CELLS_DOWN = DOWN_CELLS  # (:data:`~..._utils.fast.DOWN_CELLS`)


def _ndcg_rel_down(rc, key, levels, disc, g=None, at=None, means=None):
    """ndcg_rel of a chunk without ties over many rows (:func:`many_rows`),
    made down the positions of the transposed gains a few thousand rows at
    a time: the running DCG and ideal DCG as vectors over the rows
    (:func:`accumulate_down`; NumPy's running sum along a row costs about
    4 ns an entry), in the order of additions of the rows' own, and the
    ratios at the positive gains summed down the positions.

    ``g``: the gain at each position (default: the chunk's; ``means``, the
    grouped positions' of :func:`mean_gains`, in their place); with ``at``,
    ``(rows, positions)`` (sorted by row), also the running DCG and the
    ideal DCG down to ``min(p, P)`` (1 where ``P`` is 0) at those places:
    ``(value, dcg_at, idcg_at)``. Every positive item is then taken as
    ranked (whole rows: the ``(P - N)`` term is 0)."""
    n_rows, L = rc.n_rows, rc.L
    P, full = levels.P, levels.full_idcg
    # The ideal DCG down to min(p, P) is IDCG_P from the deepest P on: made
    # down to it (Pm positions; sparse relevance: a few), read there after.
    Pm = max(min(levels.deepest, L), 1)
    g = rc.mean(key) if g is None else g
    n = np.minimum(rc.n_ranked, L)
    logs = np.log2(np.arange(2.0, L + 2.0))[:, None]
    pos = np.arange(L)[:, None]
    padded = bool((rc.n_ranked < L).any())
    # Every positive item ranked (whole rows, no padding): the (P - N) term is 0.
    every_one = at is not None or (not padded and rc.row_width == L)
    total = np.empty(n_rows)
    if at is not None:
        at_row, at_pos = at
        bounds = np.searchsorted(at_row, np.arange(n_rows + 1))  # each row's places
        dcg_at, idcg_at = np.empty(at_row.shape[0]), np.empty(at_row.shape[0])
    step = max(1, _CELLS_DOWN // max(L, 1))
    for a in range(0, n_rows, step):
        b = min(a + step, n_rows)
        # (L, rows): each gain over its discount's logarithm, read transposed
        # (a positive gain stays positive).
        dcg = _gains_over_logs(g, a, b, logs, means)
        at_rel = dcg > 0
        if padded:
            at_rel &= pos < rc.n_ranked[a:b]
        accumulate_down(dcg)
        # The ideal DCG down to min(p, P): past P the ideal gains are 0 and
        # the running sum stays IDCG_P. A row without positive gain (ratios
        # at no position) reads 1, not 0.
        idcg = idcg_down(levels, a, b, Pm, disc)
        idcg[:, flatnonzero(P[a:b] == 0)] = 1.0
        if at is not None:
            q = slice(bounds[a], bounds[b])
            cell = at_pos[q] * (b - a) + (at_row[q] - a)
            dcg_at[q] = np.take(dcg.reshape(-1), cell)
            idcg_at[q] = np.take(idcg.reshape(-1),
                                 np.minimum(at_pos[q], Pm - 1) * (b - a) + (at_row[q] - a))
        cols = np.arange(b - a)
        last = np.where(n[a:b] > 0, dcg[np.maximum(n[a:b] - 1, 0), cols], 0.0)
        # (Past Pm the running ideal DCG adds zeros: its value at Pm - 1.)
        np.divide(dcg[:Pm], idcg, out=dcg[:Pm])
        np.divide(dcg[Pm:], idcg[Pm - 1], out=dcg[Pm:])
        np.multiply(dcg, at_rel, out=dcg)
        total[a:b] = dcg.sum(axis=0)
        if not every_one:
            total[a:b] += (P[a:b] - at_rel.sum(axis=0)) * _safe_divide(last, full[a:b])
    value = _safe_divide(total, P)
    return value if at is None else (value, dcg_at, idcg_at)


def idcg_down(levels, a, b, Pm, disc):
    """The running ideal DCG of rows ``a:b`` of ``levels`` (an
    :class:`~sk_rankmetrics._ranking.ideal.IdealLevels`) down to each of the
    first ``Pm`` positions, transposed: shape (Pm, b - a), made down the
    positions (:func:`accumulate_down`), ``disc`` the discounts.

    Where the levels' gains are whole numbers (below ``2**51``),
    the ideal gains are made transposed from the levels' bounds: each
    level's gain added where it begins and taken away where it ends (one
    :func:`np.bincount` of a few entries per row), summed down the
    positions: exactly the gains :meth:`~.IdealLevels.top` holds, with no
    copy of them read across (a transposed read of the rows' top gains cost
    twice the rest of the ideal DCG, 100,000 rows of 100 over dense graded
    relevance). Otherwise those are read. Either way the same products and
    additions: the same values."""
    top = top_down(levels, a, b, Pm)
    if top is None:
        idcg = np.multiply(levels.top(Pm)[a:b].T, disc[:Pm, None], out=np.empty((Pm, b - a)))
    else:
        idcg = np.multiply(top, disc[:Pm, None], out=top)
    return accumulate_down(idcg)


def top_down(levels, a, b, Pm, cost=False, dtype=np.float64):
    """The ideal gains of rows ``a:b`` of ``levels`` (an
    :class:`~sk_rankmetrics._ranking.ideal.IdealLevels`) at their first
    ``Pm`` positions, transposed (shape (Pm, b - a)), made from the levels'
    bounds: exactly ``levels.top(Pm)[a:b].T`` (0 past a row's levels), or
    with ``cost`` G's costs ``max(top, 1)`` (1 past them); None where the
    gains are not whole numbers below ``2**51`` (:func:`_whole`). ``dtype``:
    of the result, an integer type for a caller that knows the gains and
    their steps fit it (the steps are summed in it: the same whole numbers).

    The steps of the gains down a row (:func:`_level_steps`) are put at
    their places by one :func:`np.bincount` of a few entries a row, and
    summed down the positions (:func:`accumulate_down`): whole numbers
    below ``2**52`` throughout, exact in any order. A transposed read of
    the rows' top gains cost twice the rest of the ideal DCG (100,000 rows
    of 100 over dense graded relevance)."""
    steps = _level_steps(levels, a, b, Pm, cost)
    if steps is None:
        return None
    # (Position Pm: a row past the block's, for the steps at or past it.)
    top = np.bincount(steps[0], weights=steps[1], minlength=(Pm + 1) * (b - a))
    # (NumPy counts no entry as int64, weights or not.)
    top = top[:Pm * (b - a)].astype(dtype, copy=False).reshape(Pm, b - a)
    return accumulate_down(top)


def _level_steps(levels, a, b, Pm, cost=False):
    """``(cells, steps)`` of :func:`top_down`: where (``p * (b - a) +
    row``, ``p`` at most ``Pm``) the ideal gain of rows ``a:b`` steps from
    one level's to the next's, and by how much; None where the gains are
    not whole numbers small enough for the steps to add up to them exactly
    (:func:`_whole`).

    Counted levels step at every level's end, empty ones too (their steps
    add up to the step between the levels around them), from the best
    level's gain at position 0 down to 0 past the last; listed levels add
    their gain where they begin and take it away where they end. With
    ``cost``, the gains less 1 where above it (``max(g, 1) - 1``, 0 past
    the levels) and a step of 1 at position 0 of every row."""
    nb = b - a
    col = np.arange(nb)
    if isinstance(levels, CountedLevels):
        gains = levels.gains
        if not _whole(gains):
            return None
        if cost:
            gains = np.maximum(gains, 1.0) - 1.0
        if not gains.size:  # (no level: every ideal gain 0, or every cost 1)
            return col, np.full(nb, 1.0 if cost else 0.0)
        # (levels + 1, nb): position 0, then each level's end (at most Pm).
        cells = np.empty((gains.shape[0] + 1, nb), dtype=np.int64)
        cells[0] = col
        np.minimum(levels._ends[:, a:b], Pm, out=cells[1:])
        cells[1:] *= nb
        cells[1:] += col
        step = np.append(gains[0] + cost, np.append(gains[1:], 0.0) - gains)
        return cells.reshape(-1), np.repeat(step, nb)
    lo, hi = np.searchsorted(levels.rows, (a, b))
    gain = levels.gain[lo:hi]
    if not _whole(gain):
        return None
    if cost:
        gain = np.maximum(gain, 1.0) - 1.0
    row = levels.rows[lo:hi] - a
    begin, end = np.minimum(levels.begin[lo:hi], Pm), np.minimum(levels.end[lo:hi], Pm)
    cells = [begin * nb + row, end * nb + row]
    steps = [gain, np.negative(gain)]
    if cost:
        cells.append(col)
        steps.append(np.ones(nb))
    return np.concatenate(cells), np.concatenate(steps)


def _whole(gains):
    """Whether ``gains`` are whole numbers below ``2**51`` in size: the steps
    of :func:`_level_steps` and every sum of them met on the way (a step
    between two gains, a gain) are whole numbers below ``2**52``, exact in
    float64."""
    return bool(np.all(gains == np.rint(gains))) and float(np.abs(gains).max(initial=0.0)) < 2.0**51


def mean_gains(ties, key):
    """``(g, means)``: the gains of whole rows tied in a few places (``ties``,
    a :class:`~sk_rankmetrics._ranking.few_ties.FewTies`) in the order given,
    and the grouped positions' expected gains, ``(flat positions, value)``
    (each its group's mean), which :func:`_gains_over_logs` writes over the
    order given's as it reads each block: no copy of the gains."""
    means = np.take(ties.group_sums(key) / ties.size, ties.gid)
    return ties.values[key], (ties.member, means)


def _gains_over_logs(g, a, b, logs, means=None):
    """Rows ``a:b`` of the gains ``g`` transposed (positions, rows), each
    over its discount's logarithm ``logs`` (shape (L, 1)); with ``means``
    (:func:`mean_gains`), the grouped positions' mean gains in their place
    (the same division of the same value as a copy of the gains holding
    them)."""
    L = logs.shape[0]
    out = np.divide(g[a:b].T, logs, out=np.empty((L, b - a)))
    if means is not None:
        flat, value = means
        lo, hi = np.searchsorted(flat, (a * L, b * L))
        if hi > lo:
            f = flat[lo:hi]
            col = f % L
            out.reshape(-1)[col * (b - a) + (f // L - a)] = value[lo:hi] / np.take(logs, col)
    return out


def ndcg_rel_few_ties(rc, ties, key, levels, disc):
    """ndcg_rel of whole rows that tie in a few places (``ties``), exact over
    the orders of their ties: :func:`_ndcg_rel_down` of the mean gains, with
    the terms of the grouped positions put right.

    With the means, a position ``p`` of a group of ``m`` items from ``s``,
    ``r`` of positive gain and gain ``G``, adds ``[G > 0] DCG_p w_p`` (``w_p
    = 1 / IDCG_{min(p, P)}``; ``DCG_p`` the means' running DCG, ``D0`` above
    the group plus ``G / m`` at each of its positions down to ``p``). Its
    expected term is ``((r / m) D0 + (G / m) disc_p + (r - 1) G / (m (m - 1))
    (Dc_p - Dc_s)) w_p`` (``Dc`` the running discount; see :func:`ndcg_rel`):
    the difference is added per grouped position."""
    L, N = rc.L, ties.N  # (whole rows: L == N)
    g, means = mean_gains(ties, key)
    row, pos = ties.member // N, ties.pos
    value, dcg_at, idcg_at = _ndcg_rel_down(rc, key, levels, disc, g, (row, pos), means)
    m = ties.size.astype(np.float64)
    G = ties.group_sums(key)
    r = np.rint(ties.group_sums("pos:" + key))
    mean = G / m
    # Per grouped position: its group's values, and the running discount
    # from the group's first position to it (in long double: a difference
    # of sums near Dc[L]).
    gid = ties.gid
    Dc = np.zeros(L + 1, dtype=np.longdouble)
    np.cumsum(disc, out=Dc[1:])
    start = np.take(ties.start, gid)
    inside = (np.take(Dc, pos) - np.take(Dc, start)).astype(np.float64)
    first = np.cumsum(ties.size) - ties.size  # each group's first grouped position
    D0 = np.take(dcg_at, first) - mean * np.take(disc, ties.start)
    w = 1.0 / idcg_at
    mean_p = np.take(mean, gid)
    pair = (r - 1.0) * G / (m * (m - 1.0))  # (a group holds two items or more)
    expected = (np.take(r / m * D0, gid) + mean_p * np.take(disc, pos)
                + np.take(pair, gid) * inside) * w
    given = np.where(mean_p > 0, dcg_at, 0.0) * w
    fix = np.bincount(row, weights=expected - given, minlength=rc.n_rows)
    return value + _safe_divide(fix, levels.P)


def _dcg_at_down(g, rows, ends, n, means=None):
    """``(at, whole)`` of :func:`_dcg_at_by_group` for an untied chunk of
    many rows (gains ``g``, one per position; ``n`` the positions ranked
    per row): the running DCG made down the positions of the transposed
    gains, a few thousand rows at a time (vectors over the rows), the same
    additions as the rows' own running sum, read at each query's end.
    Where rows tie in a few places, ``means`` puts each grouped position's
    mean gain in its place (:func:`mean_gains`): the expected DCG down to
    any position."""
    n_rows, L = g.shape
    logs = np.log2(np.arange(2.0, L + 2.0))[:, None]
    at, whole = np.zeros(rows.shape[0]), np.zeros(n_rows)
    bounds = np.searchsorted(rows, np.arange(0, n_rows + 1))  # each row's queries
    step = max(1, _CELLS_DOWN // max(L, 1))
    for a in range(0, n_rows, step):
        b = min(a + step, n_rows)
        dcg = accumulate_down(_gains_over_logs(g, a, b, logs, means))
        q = slice(bounds[a], bounds[b])
        e, r = ends[q], rows[q] - a
        at[q] = np.where(e > 0, dcg[np.maximum(e - 1, 0), r], 0.0)
        m = n[a:b]
        whole[a:b] = np.where(m > 0, dcg[np.maximum(m - 1, 0), np.arange(b - a)], 0.0)
    return at, whole
