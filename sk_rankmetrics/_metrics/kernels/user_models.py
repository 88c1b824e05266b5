"""User-model kernels: ERR and RBP."""

from __future__ import annotations

import functools
import math

import numpy as np

from ..._ranking.ideal import CountedLevels
from ..._ranking.item_values import LevelValues
from ..._utils.fast import accumulate_down
from ..._utils.nonzero import flatnonzero, nonzero_2d
from . import (
    SPAN_TABLE_MOST,
    _ahead_by_row,
    _cut,
    _group_firsts,
    _safe_divide,
    span_table_length,
)
from .combinatorics import _subset_products
from .cutoff import _harmonic_of
from .tie_stops import _ERR_DROP, _TieStops


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
    if rc.few_ties is not None:
        return _err_result(rc, req, _err_few_ties(rc.few_ties, req.gain_key, kc, stop, y,
                                                  req.memo), top)
    if rc.tied and rc.groups is not None:
        return _err_result(rc, req, _err_by_group(rc.groups, n, kc, stop, y, rc.partial, req.memo),
                           top)
    if not rc.tied:
        # Each position's grade is its linear gain (ERR has no gain option):
        # one lookup instead of one indicator per grade.
        return _err_result(rc, req, _err_summed(*_graded(rc.sums, req.gain_key, kc, stop)),
                           top)
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


def _err_by_group(groups, n, kc, stop, y, partial, memo):
    """ERR of whole rows ranked with their tie groups (:class:`Groups`), one
    term per group holding a relevant item (integer scores: a few groups per
    row; sparse relevance: the relevant items' groups only).

    A group starting at 0-based position ``s`` is reached with the product of
    ``1 - R`` over every relevant item of the earlier groups: ``exp`` of their
    running grade counts (exact integers) times ``log(1 - R)``. A group of
    one item adds ``reach * R / (s + 1)``; a larger one ``reach * sum_j (Q[j]
    - Q[j + 1]) / (s + j + 1)`` over its positions before the cut ``kc``,
    with the subset means ``Q`` of :func:`err`. ``partial``: the groups are
    those holding a relevant item only (:attr:`RankedChunk.partial`);
    ``memo``: the request's (:attr:`Request.memo`), where the tied groups'
    terms are kept for the call.
    """
    # One row per grade (grade-major): the sums and running sums below run
    # along the groups, contiguous.
    counts = np.stack([groups.sums[f"grade:{g}"] for g in range(1, stop.shape[0] + 1)])
    size, row, s = groups.size, groups.row, groups.start  # (row, start: made once a chunk)
    held = np.ones(counts.shape[0]) @ counts  # relevant items per group (exact)
    if not partial:
        # The groups without a relevant item stop nowhere and change no reach
        # (a partial chunk holds none): they add 0 (and no tied group's
        # terms) where they stand. Where most groups hold one (dense
        # relevance) that costs less than a copy of those.
        some = flatnonzero(held > 0)
        if 2 * some.shape[0] < held.shape[0]:
            counts, size, held = counts[:, some], size[some], held[some]
            row, s = np.take(row, some), np.take(s, some)
    # The running counts in int64 (whole numbers): a cumulative sum of float64
    # rows costs about five times as much.
    reach = np.exp(np.log(y) @ _ahead_by_row(row, counts.astype(np.int64), most=groups.L))
    if kc < groups.L:
        some = flatnonzero(s < kc)
        row, s, counts, size, reach, held = (row[some], s[some], counts[:, some], size[some],
                                             reach[some], held[some])
    value = reach * (stop @ counts) / (s + 1.0)
    tied = size > 1
    if tied.any():
        # The tied groups' terms replace theirs; of those only the groups kept
        # (_err_keep) are read, from the arrays of every group (no copy of the
        # tied ones: with integer scores nearly every group is tied).
        keep = _err_keep(np.where(tied, held, 0.0), reach, s)
        value[tied] = 0.0
        value[keep] = _err_kept_terms(counts, size, s, reach, stop, kc, groups.L, memo, keep,
                                      held)
    return np.bincount(row, weights=value, minlength=n)


def _err_few_ties(ties, gain_key, kc, stop, y, memo):
    """ERR of rows that tie in a few places
    (:class:`~sk_rankmetrics._ranking.few_ties.FewTies`): the order given's
    terms (each position's grade its linear gain), and at each tie group the
    user reaches with a share above rounding (:func:`_err_tied_groups`) its
    expected terms in place of those; the others keep the order given's,
    below rounding too. Where the rows take :func:`_err_down_summed`'s
    stretches, the chance of reaching and of stopping at each grouped
    position are kept on the way (the groups' terms read those only)."""
    grade, lookup = _graded(ties.values, gain_key, kc, stop)
    value, c, reach_at, p_at = _err_summed(grade, lookup, at=np.divmod(ties.member, ties.N))
    fix = _err_group_fix(ties, kc, stop, y, memo, c, reach_at, p_at, grade.shape[0])
    return value if fix is None else value + fix


#: Columns of ERR's running product made first (:func:`_err_in_order`):
#: over dense graded relevance every row's user has stopped, up to rounding,
#: within a few times as many, and the rest of the row is not read.
_ERR_FIRST = 64

#: A row whose chance of reaching the next position is above this after a
#: stretch of the running product (sparse relevance) is not near stopping:
#: :func:`_err_in_order` then makes the rest of the rows at once.
_ERR_FAR = 1e-6


def _graded(values, key, kc, stop):
    """``(grade, lookup)`` of :func:`_err_in_order` for the first ``kc``
    positions of the item values ``values``: each position's grade (ERR has
    no gain option: its linear gain) and the stop chances of grades 0..max
    (``stop`` those of 1..max); or, where the values are level codes
    (:class:`~sk_rankmetrics._ranking.item_values.LevelValues`) whose
    grades are not made, the codes and the stop chance of each code's
    grade: no float64 copy of the grades."""
    lookup = np.append(0.0, stop)
    if isinstance(values, LevelValues) and not values.is_made(key):
        codes, table = values.coded(key)
        return codes[:, :kc], np.take(lookup, table.astype(np.intp))
    return values[key][:, :kc], lookup


def _err_in_order(grade, lookup):
    """``(reach, p_stop)`` of rows ranked in one order, without ties: each
    position's chance of being reached and of stopping the user there, from
    each position's grade (or level code, :func:`_graded`) and the stop
    chance of each grade (or code) ``lookup``.

    Both cover the first ``c`` positions of the ``kc`` given, made in
    stretches on rows of ``4 * _ERR_FIRST`` positions or more
    (:data:`_ERR_FIRST` columns, then doubling) until every row's
    chance ``r`` of reaching the next is so small that ``r * kc < 1e-18 * (1
    - r)``: the positions past them add at most ``r`` over a position past
    ``c`` while those before add at least ``(1 - r) / c``, a relative share
    below 1e-18 (the rule of :func:`_err_kept_groups`). When some row is far
    from that (:data:`_ERR_FAR`), or the stretches reach a quarter of the
    row, the rest of the rows is made at once. The
    running product is carried from one stretch to the next: the same
    products in the same order as in one pass. (Many rows shorter than the
    stretches are summed transposed instead: :func:`_err_summed`.)
    """
    n, kc = grade.shape
    p_parts, r_parts = [], []
    # Rows shorter than four first stretches: one pass (the copy of the
    # stretches would cost more than the positions it may spare).
    c, at, step = 0, 1.0, (kc if kc < 4 * _ERR_FIRST else _ERR_FIRST)
    while True:
        p_parts.append(np.take(lookup, grade[:, c:c + step].astype(np.intp)))
        r_parts.append(_reach(p_parts[-1], at))
        c += step
        if c == kc:
            break
        at = r_parts[-1][:, -1] * (1.0 - p_parts[-1][:, -1])  # of reaching position c
        if (at * kc < _ERR_DROP * (1.0 - at)).all():
            break
        if at.max() > _ERR_FAR or 4 * c >= kc:
            # The rest at once (the first stretches copied in: under half
            # of the row, a sixteenth when the first was far).
            p_all, r_all = np.empty((n, kc)), np.empty((n, kc))
            p_all[:, :c], r_all[:, :c] = np.hstack(p_parts), np.hstack(r_parts)
            np.take(lookup, grade[:, c:].astype(np.intp), out=p_all[:, c:])
            _reach(p_all[:, c:], at, out=r_all[:, c:])
            return r_all, p_all
        step = min(kc - c, c)
    if len(p_parts) == 1:
        return r_parts[0], p_parts[0]
    return np.hstack(r_parts), np.hstack(p_parts)


#: Rows from which :func:`_err_summed` makes rows shorter than
#: :func:`_err_in_order`'s stretches transposed (:func:`_err_down_summed`):
#: a running product a column at a time
#: (:func:`~sk_rankmetrics._utils.fast.accumulate_down`) wins from a few
#: hundred rows. (Measured on 5,000 x 100: 0.6 ms against NumPy's 2.0 ms.)
_ERR_DOWN_ROWS = 1024


def _err_summed(grade, lookup, at=None):
    """Each row's ERR over the positions of ``grade`` (:func:`_graded`'s
    grades or level codes, ``lookup`` their stop chances): many rows shorter
    than :func:`_err_in_order`'s stretches (:data:`_ERR_DOWN_ROWS` or more)
    down the columns (:func:`_err_down_summed`), others along the rows
    (:func:`_err_in_order`, :func:`_err_terms_summed`). ``at``: as
    :func:`_err_down_summed` takes it, and then its four results."""
    n, kc = grade.shape
    if 1 < kc < 4 * _ERR_FIRST and n >= _ERR_DOWN_ROWS:
        return _err_down_summed(grade, lookup, at)
    reach, p_stop = _err_in_order(grade, lookup)
    if at is None:
        return _err_terms_summed(reach, p_stop)
    c = reach.shape[1]
    row, made = at[0], np.minimum(at[1], c - 1)  # (positions past c are not read)
    reach_at, p_at = reach[row, made], p_stop[row, made]
    return _err_terms_summed(reach, p_stop), c, reach_at, p_at


#: Entries of the stretches :func:`_err_down_summed` makes at a time (512
#: KiB of float64 each): the stop chances and the running product of a few
#: positions of every row, in cache, rather than those of every position.
_DOWN_CELLS = 1 << 16


def _err_down_summed(grade, lookup, at=None):
    """Each row's ERR over the positions of ``grade`` (level codes or grades,
    :func:`_graded`; ``lookup`` their stop chances), made down the columns
    (vectors over the rows) a few positions at a time: each row's running
    product and sum of terms are one multiplication and one addition after
    the other, in the order of its positions, and the extra memory is a
    stretch of positions, not the block's.

    Each stretch's first position carries the running product of the
    positions before it, and its first term the sum of theirs: the sum of
    each row adds its terms one after the other, as
    :func:`_err_terms_summed` adds them. When every row's chance ``r`` of
    reaching the next position is below rounding (``r * kc < 1e-18 * (1 -
    r)``, the rule of :func:`_err_in_order`) the later stretches are not
    made.

    ``at``: ``(rows, positions)`` whose chance of being reached and of
    stopping the user are wanted too; then ``(value, c, reach_at, p_at)``,
    ``c`` the positions made (``reach_at`` and ``p_at`` hold 0 past them).
    """
    n, kc = grade.shape
    step = max(2, min(kc, _DOWN_CELLS // max(n, 1)))
    value = np.zeros(n)
    first = np.ones(n)  # each row's chance of reaching the stretch
    if at is not None:
        at_row, at_pos = at
        reach_at, p_at = np.zeros(at_row.shape[0]), np.zeros(at_row.shape[0])
    c = 0
    while c < kc:
        d = min(step, kc - c)
        p = np.take(lookup, np.ascontiguousarray(grade[:, c:c + d].T).astype(np.intp))
        reach = np.empty(p.shape)
        reach[0] = first
        np.subtract(1.0, p[:-1], out=reach[1:])
        accumulate_down(reach, np.multiply)
        if at is not None:
            mine = flatnonzero((at_pos >= c) & (at_pos < c + d))
            cell = (at_pos[mine] - c) * n + at_row[mine]
            reach_at[mine] = np.take(reach.reshape(-1), cell)
            p_at[mine] = np.take(p.reshape(-1), cell)
        np.multiply(reach[-1], 1.0 - p[-1], out=first)
        reach *= p
        reach *= (1.0 / np.arange(c + 1.0, c + d + 1.0))[:, None]
        reach[0] += value
        np.add.reduce(reach, axis=0, out=value)
        c += d
        if (first * kc < _ERR_DROP * (1.0 - first)).all():
            break
    return value if at is None else (value, c, reach_at, p_at)


def _err_terms_summed(reach, p_stop):
    """Each row's ERR, ``sum_j reach[j] * p_stop[j] / (j + 1)`` over the
    positions given (``reach`` is overwritten), as a matrix product."""
    reach *= p_stop
    return reach @ (1.0 / np.arange(1.0, reach.shape[1] + 1.0))


def _reach(p_stop, first, out=None):
    """The running product of ``1 - p_stop`` along each row, before each
    position, times ``first`` (the chance of reaching the first column)."""
    reach = np.empty(p_stop.shape) if out is None else out
    if not reach.shape[1]:
        return reach
    reach[:, 0] = first
    # 1 - R, from R itself (y's own values, bit for bit: one subtraction
    # each), its running product in place: no second lookup.
    np.subtract(1.0, p_stop[:, :-1], out=reach[:, 1:])
    np.cumprod(reach, axis=1, out=reach)
    return reach


def _err_group_fix(ties, kc, stop, y, memo, c, reach_at, p_at, n):
    """What :func:`_err_few_ties` adds to the order given's ERR of ``n``
    rows: at each tie group kept (:func:`_err_tied_groups`), its expected
    terms less those of the order given (``reach_at`` and ``p_at``, the
    chance of reaching and of stopping at each grouped position, read over
    the first ``c`` of the ``kc`` positions: past them a group is reached
    with a share below rounding, :func:`_err_in_order`); None when no group
    is kept."""
    g = flatnonzero(ties.start < c)
    if not g.size:
        return None
    counts = ties.group_counts([f"grade:{j}" for j in range(1, stop.shape[0] + 1)])[:, g]
    s = ties.start[g]
    at_start = np.take(reach_at, ties.opens[g])  # its first member's
    expected, keep = _err_tied_groups(counts, ties.size[g], s, at_start, stop, kc, ties.N,
                                      memo)
    if not keep.size:
        return None
    g, expected = g[keep], expected[keep]
    # The order given's terms at the kept groups' positions within the c.
    mine = np.zeros(ties.first.shape[0], dtype=bool)
    mine[g] = True
    at = flatnonzero(mine[ties.gid] & (ties.pos < c))
    row, pos = ties.member[at] // ties.N, ties.pos[at]
    given = reach_at[at] * p_at[at] / (pos + 1.0)
    return (np.bincount(ties.row[g], weights=expected, minlength=n)
            - np.bincount(row, weights=given, minlength=n))


def _err_tied_groups(counts, size, s, reach, stop, kc, L, memo):
    """The ERR terms of tied groups (see :func:`_err_by_group`; ``counts`` one
    row per grade, ``stop`` each grade's ``R``): those the user reaches with a
    share of the value above rounding; the others add 0.

    A kept group starting at ``s`` adds ``reach * sum_j d[j] / (s + j + 1)``
    over its positions before the cut, ``d[j] = Q[j] - Q[j + 1]`` the chance
    that the user stops at its j-th position.

    A group holding one or two relevant items has ``d`` linear in ``j``, and
    its terms in closed form (:func:`_err_few_relevant`). The others' ``d``
    depends on the group's size and grade counts only (its composition),
    and groups repeat a few compositions (rows of 100 scored 0..9 hold about 26,000 tied groups per
    block, 19,000 compositions in 100,000 rows): each composition's ``d`` is
    made once per call (:class:`_TieStops`, in ``memo``) and each group sums
    its own terms, ``L`` the rows' length. Returns the terms and the kept
    groups (indices).
    """
    held = np.ones(counts.shape[0]) @ counts  # exact: sums of whole counts
    keep = _err_keep(held, reach, s)
    out = np.zeros(size.shape[0])
    if keep.size:
        out[keep] = _err_kept_terms(counts, size, s, reach, stop, kc, L, memo, keep, held)
    return out, keep


def _err_kept_terms(counts, size, s, reach, stop, kc, L, memo, keep, held):
    """The terms of the tied groups ``keep`` (indices into the arguments, as
    :func:`_err_tied_groups` takes them; ``held``: each group's relevant
    items), in the order of ``keep``."""
    out = np.empty(keep.shape[0])
    if not keep.shape[0]:  # (every tied group past the users' reach)
        return out
    few = held[keep] <= 2
    rest = slice(None)
    if few.any():
        closed = keep[few]
        out[few] = reach[closed] * _err_few_relevant(counts[:, closed], size[closed],
                                                     s[closed], held[closed], stop, kc, L)
        rest = flatnonzero(~few)
        if not rest.size:
            return out
        keep = keep[rest]
    y = 1.0 - stop
    start = s[keep].astype(np.int64)
    # One table serves rows of up to a power of two of positions: the blocks
    # of the long format, each as wide as its longest query, share a few.
    width = max(16, 1 << (int(L) - 1).bit_length())
    table = memo.get(("err", width, tuple(y.tolist())))
    if table is None:
        table = memo.setdefault(("err", width, tuple(y.tolist())), _TieStops(y, width))
    # Each group's terms: its stored ones, up to the cut.
    out[rest] = reach[keep] * table.group_sums(counts[:, keep], size[keep], start, kc)
    return out


def _err_few_relevant(counts, size, s, held, stop, kc, L):
    """``sum_j d[j] / (s + j + 1)`` over the places before the cut ``kc`` of
    tie groups holding one or two relevant items (``held``; ``counts`` one
    row per grade, ``stop`` each grade's ``R``), in closed form.

    The relevant items land on a uniformly random set of the group's ``m``
    places. With one, of stop chance ``R``, the user stops at place ``j``
    (0-based) with ``d[j] = R / m``. With two, ``R1`` and ``R2``, the first
    place holding one is ``j`` with chance ``2 (m - 1 - j) / (m (m - 1))``
    and the other then lies after it; summed over which of the two is first,
    ``d[j] = (R1 + R2) / m - 2 R1 R2 j / (m (m - 1))`` (which sums over the
    group to ``1 - (1 - R1)(1 - R2)``). With ``H = sum 1 / p`` and ``inner =
    sum (p - s - 1) / p`` over the places ``p = s + 1 .. s + c`` before the
    cut (:func:`~.cutoff._harmonic_of`, taken in extended precision), the
    sum is ``(R1 + R2) / m * H - 2 R1 R2 / (m (m - 1)) * inner``. The
    chances are multiples of ``2**-max_grade``; up to ``max_grade``
    :data:`_SQUARES_EXACT` their squares are exact in float64, and ``2 R1
    R2 = (R1 + R2)**2 - (R1**2 + R2**2)`` (two products by the group's
    counts); past it the larger chance is the group's largest grade's.
    """
    m, at = size.astype(np.int64), s.astype(np.int64)
    H, inner = _harmonic_of(at, np.minimum(m, kc - at), L)
    mf = m.astype(np.float64)
    total = stop @ counts  # R, or R1 + R2
    value = total / mf * H
    two = flatnonzero(held > 1)
    if two.size:
        t, mt = total[two], mf[two]
        if stop.shape[0] <= _SQUARES_EXACT:
            twice = t * t - (stop * stop) @ counts[:, two]  # 2 R1 R2, exact
        else:
            hi = ((counts[:, two] > 0) * stop[:, None]).max(axis=0)
            twice = 2.0 * (hi * (t - hi))  # (t - hi: exact)
        value[two] -= twice / (mt * (mt - 1.0)) * inner[two]
    return value


#: The largest ``max_grade`` whose stop chances' squares are exact in
#: float64, and the square of their sums (numerators below ``2**25``: that
#: square below ``2**52``).
_SQUARES_EXACT = 25


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
    keep = _err_keep(held, r, s)
    if not keep.size:
        return keep, np.zeros(0, dtype=np.int64)
    c, s, m = c[keep], s[keep], m[keep]
    whole = size[keep].astype(np.float64)
    ybar = (whole - held[keep] + c @ y) / whole
    with np.errstate(divide="ignore"):
        need = np.log(_ERR_DROP / (2.0 * (s + m))) / np.log(ybar)
    t_star = np.where(ybar < 1.0, np.ceil(np.nan_to_num(need, posinf=np.inf)), m)
    return keep, np.minimum(t_star, m).astype(np.int64)


def _err_keep(held, r, s):
    """The tied groups ERR keeps (their indices): those holding a relevant
    item (``held`` of them) that the user reaches with chance ``r`` at
    0-based start ``s`` with a share of the value above rounding
    (:func:`_err_kept_groups`)."""
    return flatnonzero((held > 0) & ~(r * s < _ERR_DROP * (1.0 - r)))


def _err_result(rc, req, value, top):
    """ERR, or nERR: ERR over the ideal ordering's ERR.

    The ideal's ERR is read off its levels (:func:`_ideal_err_of_levels`)
    where the ranking counted them (the whole ideal, no sort); otherwise off
    the ideal's grades, best first, a few positions at a time until every
    user has stopped up to rounding (:func:`_err_in_order`): in the ideal
    order the best grades come first, and most rows are done within a few
    positions."""
    relevant = rc.totals["rel:None"] > 0  # some item of grade 1 or more
    if not req.options["normalize"]:
        return value, relevant
    stop = (2.0 ** np.arange(1, top + 1) - 1.0) / 2.0**top  # grades 1..top
    levels = rc.cache.get(("levels", req.gain_key))
    if levels is not None and levels.complete and not dict.__contains__(rc.ideal,
                                                                       req.gain_key):
        ideal = _ideal_err_of_levels(levels, stop, req.k)
    else:
        grades = rc.ideal[req.gain_key]  # increasing, the best last
        Li = grades.shape[1]
        kc_i = Li if req.k is None else min(req.k, Li)
        best = grades[:, Li - kc_i:][:, ::-1]
        ideal = _err_summed(best, np.append(0.0, stop)) if kc_i else np.zeros(best.shape[0])
    defined = ideal > 0
    return _safe_divide(value, ideal), defined


def _ideal_err_of_levels(levels, stop, k):
    """Each row's ERR of its ideal ordering, down to ``k`` (None: all), from
    its levels of equal grade, best first
    (:class:`~sk_rankmetrics._ranking.ideal.IdealLevels`; ``stop`` the stop
    chances of grades 1..max): no position is made past those that count.

    A level of grade ``g`` (stop chance ``R``, ``q = 1 - R``) from 0-based
    position ``b``, reached with chance ``r``, adds ``r * q**t * R / (b + t +
    1)`` at its ``t``-th position. ``r`` is ``exp`` of the earlier levels'
    lengths (running sums of whole numbers, per grade) times ``log q``, as
    :func:`_err_by_group` makes its groups' reach. Only the positions with
    ``r * q**t * kc >= 1e-18`` are made, ``kc`` the row's length: past them
    the user goes on with a chance whose share of the value is below
    rounding (the rule of :func:`_err_in_order`). The levels with the most
    such positions first, a position of every level at a time (those that
    have it, a prefix): ``q**t`` is a running product, no array is as long
    as the terms.
    """
    if levels.deepest <= SPAN_TABLE_MOST:
        return _ideal_err_by_tables(levels, stop, k)
    if isinstance(levels, CountedLevels):
        pairs = _err_levels_by_columns(levels, stop, k)
    else:
        pairs = _err_levels_listed(levels, stop, k)
    rows, count, log_reach, R, begin = pairs
    order = np.argsort(-count, kind="stable")
    count = count[order]
    term = np.exp(log_reach[order]) * R[order]  # r * R: the level's first term
    q = 1.0 - R[order]
    place = begin[order] + 1.0
    acc = np.zeros(order.shape[0])
    part = np.empty(order.shape[0])
    for a in np.searchsorted(-count, -np.arange(int(count[0]) if count.size else 0),
                             side="left").tolist():
        np.divide(term[:a], place[:a], out=part[:a])
        acc[:a] += part[:a]
        term[:a] *= q[:a]
        place[:a] += 1.0
    return np.bincount(rows[order], weights=acc, minlength=levels.n_rows)


def _ideal_err_by_tables(levels, stop, k):
    """:func:`_ideal_err_of_levels` of levels ending within
    :data:`~..kernels.SPAN_TABLE_MOST` positions: a level of stop chance
    ``R`` from ``b`` to ``e``, reached with chance ``r``, adds ``r R
    sum_{b <= p < e} q**(p - b) / (p + 1)``, read off :func:`_err_level_table`
    at ``(b, e)``: one gather per level, no position made. (Every position
    adds its term, where the other path leaves out those whose share of the
    value is below 1e-18.)"""
    L = span_table_length(levels.deepest)
    W = L + 1
    if isinstance(levels, CountedLevels):
        n = levels.n_rows
        out = np.zeros(n)
        if not levels.gains.shape[0]:
            return out
        ends = levels._ends  # (grades, n): where each row's level u ends
        if k is not None:
            ends = np.minimum(ends, k)
        log_reach = np.zeros(n)
        begin = np.zeros(n, dtype=np.int64)
        for u, g in enumerate(np.rint(levels.gains).astype(np.intp).tolist()):
            R = float(stop[g - 1])
            T = _err_level_table(1.0 - R, L)
            out += np.exp(log_reach) * R * np.take(T, begin * W + ends[u])
            log_reach = log_reach + levels.counts[:, u] * math.log1p(-R)
            begin = ends[u]
        return out
    rows = levels.rows
    grade = np.rint(levels.gain).astype(np.intp) - 1
    end = levels.end if k is None else np.minimum(levels.end, k)
    begin = np.minimum(levels.begin, end)
    by_grade = np.zeros((stop.shape[0], rows.shape[0]), dtype=np.int64)
    by_grade[grade, np.arange(rows.shape[0])] = levels.end - levels.begin
    log_reach = np.log1p(-stop) @ _ahead_by_row(rows, by_grade, most=levels.deepest)
    at = begin * W + end
    part = np.zeros(rows.shape[0])
    for g in np.unique(grade).tolist():
        mine = flatnonzero(grade == g)
        part[mine] = np.take(_err_level_table(1.0 - float(stop[g]), L), np.take(at, mine))
    part *= np.exp(log_reach) * stop[grade]
    return np.bincount(rows, weights=part, minlength=levels.n_rows)


@functools.lru_cache(maxsize=16)
def _err_level_table(q, L):
    """Of every pair ``b <= e`` of positions ``0..L``, flat at ``b * (L + 1)
    + e``: ``sum_{b <= p < e} q**(p - b) / (p + 1)``, the terms of a level
    of ERR's ideal whose items each let the user go on with chance ``q``.
    Made from the last start back (``T[b] = 1 / (b + 1) + q T[b + 1]``
    past ``b``), in long double, rounded once; read-only. An entry does not
    depend on ``L``: rows of every length up to it read one table
    (:func:`~..kernels.span_table_length`)."""
    T = np.zeros((L + 1, L + 1), dtype=np.longdouble)
    inv = 1.0 / np.arange(1, L + 1, dtype=np.longdouble)
    qq = np.longdouble(q)
    for b in range(L - 1, -1, -1):
        np.multiply(T[b + 1, b + 1:], qq, out=T[b, b + 1:])
        T[b, b + 1:] += inv[b]
    out = T.astype(np.float64).reshape(-1)
    out.flags.writeable = False
    return out


def _err_terms_made(log_reach, log_q, length, kc):
    """How many positions of each level :func:`_ideal_err_of_levels` makes:
    those the user reaches with a chance ``r`` at or above ``1e-18 / kc``
    (``log_reach`` the log of the level's first, ``log_q`` of its ``1 -
    R``), at most its ``length``."""
    with np.errstate(divide="ignore"):
        need = np.ceil((math.log(_ERR_DROP / kc) - log_reach) / log_q)
    return np.clip(need, 0, length).astype(np.int64)


def _err_levels_listed(levels, stop, k):
    """``(rows, count, log_reach, R, begin)`` of the levels of an
    :class:`~sk_rankmetrics._ranking.ideal.IdealLevels` (a list) that make a
    position (:func:`_ideal_err_of_levels`). The reach of a level: its
    row's earlier levels' lengths summed per grade (whole numbers), times
    ``log(1 - R)`` of each."""
    n_levels = levels.rows.shape[0]
    grade = np.rint(levels.gain).astype(np.intp) - 1
    end = levels.end if k is None else np.minimum(levels.end, k)
    length = np.maximum(end - levels.begin, 0)
    by_grade = np.zeros((stop.shape[0], n_levels), dtype=np.int64)
    by_grade[grade, np.arange(n_levels)] = length
    log_q = np.log1p(-stop)
    log_reach = log_q @ _ahead_by_row(levels.rows, by_grade, most=levels.deepest)
    count = _err_terms_made(log_reach, log_q[grade], length,
                            float(max(int(end.max(initial=0)), 1)))
    made = flatnonzero(count)
    return (levels.rows[made], count[made], log_reach[made], stop[grade[made]],
            levels.begin[made])


def _err_levels_by_columns(levels, stop, k):
    """:func:`_err_levels_listed` of a
    :class:`~sk_rankmetrics._ranking.ideal.CountedLevels` (each row's count
    of each grade), a grade at a time over every row: no list of the
    levels. A level of no item makes no position (its length is 0)."""
    n = levels.n_rows
    if not levels.gains.shape[0]:  # no item of a positive grade
        none = np.zeros(0, dtype=np.int64)
        return none, none, np.zeros(0), np.zeros(0), none
    ends = levels._ends  # (grades, n): where each row's level u ends
    if k is not None:
        ends = np.minimum(ends, k)
    kc = float(max(int(ends[-1].max(initial=0)) if ends.size else 0, 1))
    grade = np.rint(levels.gains).astype(np.intp) - 1
    log_q = np.log1p(-stop[grade])
    log_reach = np.zeros(n)
    counts, reached = [], []
    for u in range(grade.shape[0]):
        begin = ends[u - 1] if u else np.zeros(n, dtype=np.int64)
        counts.append(_err_terms_made(log_reach, log_q[u], ends[u] - begin, kc))
        reached.append(log_reach)
        log_reach = log_reach + levels.counts[:, u] * log_q[u]
    count = np.stack(counts)  # (grades, n)
    u, rows = nonzero_2d(count)
    begin = np.vstack([np.zeros((1, n), dtype=np.int64), ends[:-1]])
    return (rows, count[u, rows], np.stack(reached)[u, rows], stop[grade[u]],
            begin[u, rows])


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
