"""User-model kernels: ERR and RBP."""

from __future__ import annotations

import math
import threading

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

from ..._ranking.item_values import LevelValues
from ..._utils.fast import accumulate_down, codes_of, flatnonzero, nonzero_2d
from ..._utils.hashing import KeyTable
from . import _ahead_by_row, _cut, _group_firsts, _safe_divide
from .combinatorics import _subset_products
from .cutoff import _harmonic_of


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
        reach, p_stop = _err_in_order(*_graded(rc.sums, req.gain_key, kc, stop))
        return _err_result(rc, req, _err_terms_summed(reach, p_stop), top)
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
    first, size = groups.first, groups.size
    held = np.ones(counts.shape[0]) @ counts  # relevant items per group (exact)
    if not partial:
        # The groups without a relevant item stop nowhere and change no reach
        # (a partial chunk holds none): they add 0 (and no tied group's
        # terms) where they stand. Where most groups hold one (dense
        # relevance) that costs less than a copy of those.
        some = flatnonzero(held > 0)
        if 2 * some.shape[0] < held.shape[0]:
            first, counts, size, held = first[some], counts[:, some], size[some], held[some]
    row, s = first // groups.L, first % groups.L
    # The running counts in int64 (whole numbers): a cumulative sum of float64
    # rows costs about five times as much.
    reach = np.exp(np.log(y) @ _ahead_by_row(row, counts.astype(np.int64)))
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
    below rounding too."""
    reach, p_stop = _err_in_order(*_graded(ties.values, gain_key, kc, stop))
    fix = _err_group_fix(ties, kc, stop, y, memo, reach, p_stop)
    value = _err_terms_summed(reach, p_stop)
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
    products in the same order as in one pass. Many rows shorter than the
    stretches are made transposed instead (:func:`_err_down`).
    """
    n, kc = grade.shape
    if 1 < kc < 4 * _ERR_FIRST and n >= _ERR_DOWN_ROWS:
        return _err_down(grade, lookup)
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


#: Rows from which :func:`_err_in_order` makes rows shorter than its
#: stretches transposed (:func:`_err_down`): a running product a column at a
#: time (:func:`~sk_rankmetrics._utils.fast.accumulate_down`) wins from a few
#: hundred rows. (Measured on 5,000 x 100: 0.6 ms against NumPy's 2.0 ms.)
_ERR_DOWN_ROWS = 1024


def _err_down(grade, lookup):
    """:func:`_err_in_order`'s ``(reach, p_stop)`` of many rows in one
    stretch, made transposed: the grades (or level codes) copied to the
    columns of a C-ordered array, the stop chances looked up there, and the
    running product made a column at a time (vectors over the rows, each
    product the one the running product along the row makes, in its order).
    Both come back as transposed views, shape (n, kc):
    :func:`_err_terms_summed` sums them down their columns."""
    p = np.take(lookup, np.ascontiguousarray(grade.T).astype(np.intp))
    reach = np.empty(p.shape)
    reach[0] = 1.0
    np.subtract(1.0, p[:-1], out=reach[1:])
    accumulate_down(reach, np.multiply)
    return reach.T, p.T


def _err_terms_summed(reach, p_stop):
    """Each row's ERR, ``sum_j reach[j] * p_stop[j] / (j + 1)`` over the
    positions given (``reach`` is overwritten). Made by rows (a matrix
    product), or, for the transposed views of :func:`_err_down`, a position
    after the other into the vector of the rows' sums."""
    w = 1.0 / np.arange(1.0, reach.shape[1] + 1.0)
    if reach.shape[1] > 1 and reach.T.flags.c_contiguous:
        down = reach.T
        down *= p_stop.T
        down *= w[:, None]
        return np.add.reduce(down, axis=0)
    reach *= p_stop
    return reach @ w


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


def _err_group_fix(ties, kc, stop, y, memo, reach, p_stop):
    """What :func:`_err_few_ties` adds to the order given's ERR: at each tie
    group kept (:func:`_err_tied_groups`), its expected terms less those of
    the order given (``reach`` and ``p_stop`` of each position, over the
    first ``c`` of the ``kc`` positions: past them a group is reached with a
    share below rounding, :func:`_err_in_order`); None when no group is
    kept."""
    c = reach.shape[1]
    g = flatnonzero(ties.start < c)
    if not g.size:
        return None
    counts = np.stack([ties.group_sums(f"grade:{j}")[g] for j in range(1, stop.shape[0] + 1)])
    s = ties.start[g]
    at_start = reach[ties.row[g], s]
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
    given = reach[row, pos] * p_stop[row, pos] / (pos + 1.0)
    n = reach.shape[0]
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
    table = memo.get(("err", L, tuple(y.tolist())))
    if table is None:
        table = memo.setdefault(("err", L, tuple(y.tolist())), _TieStops(y, L))
    offset, length, flat = table.lookup(counts[:, keep], size[keep])
    # Each group's terms: its stored ones, up to the cut.
    n_terms = np.minimum(length, kc - start)
    out[rest] = reach[keep] * _sum_terms(flat, offset, n_terms, start)
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
    sum is ``(R1 + R2) / m * H - 2 R1 R2 / (m (m - 1)) * inner``.
    """
    m, at = size.astype(np.int64), s.astype(np.int64)
    H, inner = _harmonic_of(at, np.minimum(m, kc - at), L)
    mf = m.astype(np.float64)
    total = stop @ counts  # R, or R1 + R2
    value = total / mf * H
    two = flatnonzero(held > 1)
    if two.size:
        # The larger chance, the largest of the group's grades', and the
        # other what the sum leaves: the chances are multiples of
        # 2**-max_grade, their sum and difference exact.
        hi = ((counts[:, two] > 0) * stop[:, None]).max(axis=0)
        lo = total[two] - hi
        mt = mf[two]
        value[two] -= 2.0 * (hi * lo) / (mt * (mt - 1.0)) * inner[two]
    return value


#: Terms from which :func:`_sum_terms` sums a term of every group at a time
#: (below it, all terms in arrays of this size at most: 512 KiB of float64).
_SUM_BY_TERM = 1 << 16


def _sum_terms(flat, offset, n, start):
    """Per group, ``sum_j flat[offset + j] / (start + j + 1)`` for j < n (n >= 1).

    ``flat`` may be read up to ``max(n)`` entries past a group's terms
    (whatever they hold: :func:`_sum_windows` masks them), within its
    length; where it is too short for that, the groups are summed a term
    of every group at a time."""
    total = int(n.sum())
    if total <= _SUM_BY_TERM:
        # Few terms (a few groups, or groups of a few relevant items):
        # every term in one array, summed group by group.
        first = np.cumsum(n) - n
        r = np.arange(total)
        at = np.repeat(offset - first, n)
        at += r
        pos = np.repeat(start + 1 - first, n)
        pos += r
        v = np.take(flat, at)
        v /= pos
        return np.add.reduceat(v, first)
    widest = int(n.max())
    if (total >= _WINDOW_TERMS * n.shape[0] and n.shape[0] * widest <= 2 * total
            and int(offset.max()) + widest <= flat.shape[0]):
        return _sum_windows(flat, offset, n, start, widest)
    # Many terms (about one per entry of the block): one pass per term, over
    # the groups that have it. The groups with the most terms first make
    # those a prefix, read through views (no gather). (A stable sort of
    # 16-bit numbers is a radix sort: a tenth of the time.)
    order = np.argsort(-n.astype(np.int16 if widest < 2**15 else np.int64), kind="stable")
    n = n[order]
    at = offset[order]
    pos = start[order].astype(np.float64) + 1.0
    acc = np.zeros(n.shape[0])
    term = np.empty(n.shape[0])
    for a in np.searchsorted(-n, -np.arange(int(n[0])), side="left").tolist():
        t = np.take(flat, at[:a], out=term[:a])
        t /= pos[:a]
        acc[:a] += t
        at[:a] += 1
        pos[:a] += 1.0
    out = np.empty(n.shape[0])
    out[order] = acc
    return out


#: Terms per group from which :func:`_sum_terms` reads each group's terms as
#: a window of ``flat`` (:func:`_sum_windows`), when the windows, as wide as
#: the widest group's terms, at most double the terms read. (Measured on
#: one thread, per block, rows of 1,000 scored 0..9, graded relevance on
#: 5 %: 4,400 groups of 100 terms, 6.0-6.3 ms a term at a time, 3.3-4.9 ms
#: by windows; on rows of 100, 36,000 groups of 10 terms, 3.0-6.0 ms
#: against 6.3-7.5 ms.)
_WINDOW_TERMS = 32

#: Entries of the arrays :func:`_sum_windows` makes at a time (512 KiB of
#: float64).
_WINDOW_CELLS = 1 << 16


def _sum_windows(flat, offset, n, start, widest):
    """:func:`_sum_terms` of groups of many terms: each group's terms read
    as one row of the windows of ``widest`` entries of ``flat`` (a copy of
    contiguous runs, where a term at a time gathers one entry of every
    group), the entries past its ``n`` set to 0 (they hold the next
    composition's terms, or memory not yet written: set, not multiplied),
    and each row's dot product with the windows of the weights ``1 / (s + j
    + 1)`` at its start ``s``. A few thousand groups at a time: no array
    of the block's size."""
    terms = sliding_window_view(flat, widest)
    w = 1.0 / np.arange(1.0, int(start.max()) + widest + 1.0)
    weights = sliding_window_view(w, widest)
    out = np.empty(n.shape[0])
    cols = np.arange(widest)
    step = max(1, _WINDOW_CELLS // widest)
    for a in range(0, n.shape[0], step):
        b = min(n.shape[0], a + step)
        t = terms[offset[a:b]]
        np.putmask(t, cols >= n[a:b, None], 0.0)
        out[a:b] = np.einsum("ij,ij->i", t, weights[start[a:b]])
    return out


#: The most stop probabilities a :class:`_TieStops` keeps (32 MiB, a dozen
#: float64 temporaries of a block); once full, each block makes its own.
#: (ERR over 10,000 x 1,000 integer scores, graded relevance on 5 %: 19,000
#: compositions of about 100 terms; best of 8, 0.36 s with this bound, 0.50 s
#: with 2**20, 0.53 s each block its own.)
_TIE_STOPS_MAX = 2**22

_TIE_STOPS_LOCK = threading.Lock()

#: A call stops keeping compositions when a block (past the first 1,024
#: groups) needs new ones for more than this share of its groups: on rows of
#: 1,000 with dense graded relevance nearly every tied group is a composition
#: of its own (about 265 a block, 265 new), and keeping them cost 10-40 % of
#: ERR's time. Over sparse graded relevance the blocks need new compositions
#: for 83, 61, 49, 41 % ... of their groups.
_TIE_STOPS_SHARED = 0.9


class _TieStops:
    """The stop probabilities ``d[j] = Q[j] - Q[j + 1]`` of tied groups by
    composition (size and grade counts), made once and shared by the row
    blocks of a call (blocks may run on threads: one at a time looks up and
    adds, under a lock; a block keeps reading the array it was given, and
    later additions go past its entries or into a new array).

    Each composition keeps its first ``n`` terms, ``n`` its size or fewer:
    past column ``t* = log(1e-18 / (2 (L + size))) / log(ybar)`` the terms
    are below rounding for a group starting anywhere in a row of ``L``
    (:func:`_err_kept_groups`; ``L + size`` bounds its ``s + m``).
    A composition is one number, ``size + (L + 1) * (c_1 + (L + 1) * (c_2 +
    ...))``, found in a hash table (:class:`KeyTable`), while that number
    stays below ``2**62``; otherwise (a large ``max_grade`` on long rows)
    each block numbers its own compositions (:func:`_compositions`) and
    keeps nothing.
    """

    def __init__(self, y, L):
        self.y = np.asarray(y, dtype=np.float64)
        self.L = int(L)
        k = self.y.shape[0]
        # One number per composition: made in float64 below 2**53 (one
        # product), in int64 below 2**62, not made past it.
        self.place = None
        if (self.L + 1) ** (k + 1) < 2**53:
            self.place = float(self.L + 1) ** np.arange(1, k + 1)
        elif (self.L + 1) ** (k + 1) < 2**62:
            self.place = (self.L + 1) ** np.arange(1, k + 1, dtype=np.int64)
        self.table = KeyTable()
        self.offsets = np.zeros(0, dtype=np.int64)  # by composition number
        self.lengths = np.zeros(0, dtype=np.int64)
        self.flat = np.zeros(0)
        self.used = 0  # entries of flat written
        self.made = 0  # compositions made
        self.looked = 0  # groups looked up in the table
        self.unshared = False  # from now on, each block its own

    def lookup(self, counts, size):
        """``(offset, length, flat)``: each group's terms are
        ``flat[offset:offset + length]``."""
        if self.place is None or self.unshared:
            return self._block_own(counts, size)
        if self.place.dtype == np.int64:
            key = np.asarray(size, dtype=np.int64).copy()
            for place, c in zip(self.place.tolist(), counts):
                key += place * np.rint(c).astype(np.int64)
        else:
            key = np.rint(self.place @ counts)
            key += size
            key = key.astype(np.int64)
        with _TIE_STOPS_LOCK:
            pos, found = self.table.find(key)
            missing = flatnonzero(~found)
            if missing.size:
                new, first = np.unique(key[missing], return_index=True)
                if (new.shape[0] > _TIE_STOPS_SHARED * key.shape[0]
                        and 1024 < self.looked):
                    # The groups of these rows repeat few compositions: kept
                    # for nothing, and read from a large table out of cache.
                    self.unshared = True
                c_new, size_new = counts[:, missing[first]].T, size[missing[first]]
                n = self._lengths(c_new, size_new)
                if self.used + int(n.sum()) > _TIE_STOPS_MAX:  # full
                    self.unshared = True
                    return self._block_own(counts, size)
                off, n, terms = self._make(c_new, size_new, n, self.used)
                # Grown by doubling, with room for a window of the longest
                # terms past the last (:func:`_sum_windows`; a group has at
                # most L).
                if self.used + terms.shape[0] + self.L > self.flat.shape[0]:
                    grown = np.empty(max(2 * self.flat.shape[0],
                                         self.used + terms.shape[0] + self.L, 4096))
                    grown[:self.used] = self.flat[:self.used]
                    self.flat = grown
                self.flat[self.used:self.used + terms.shape[0]] = terms
                self.used += terms.shape[0]
                number = self.table.add(new)
                self.offsets = np.concatenate([self.offsets, off])
                self.lengths = np.concatenate([self.lengths, n])
                pos[missing] = number[np.searchsorted(new, key[missing])]
            self.looked += key.shape[0]
            return self.offsets[pos], self.lengths[pos], self.flat

    def _block_own(self, counts, size):
        """:meth:`lookup` for this block alone, nothing kept."""
        comp, first = _compositions(size, counts.T)
        c, n_items = counts[:, first].T, size[first]
        n = self._lengths(c, n_items)
        offset, length, flat = self._make(c, n_items, n, 0, room=int(n.max(initial=0)))
        return offset[comp], length[comp], flat

    def _lengths(self, counts, size):
        """The terms each composition given (one group each) keeps."""
        held = counts @ np.ones(counts.shape[1])
        whole = np.asarray(size, dtype=np.float64)
        ybar = (whole - held + counts @ self.y) / whole
        with np.errstate(divide="ignore"):
            need = np.log(_ERR_DROP / (2.0 * (self.L + whole))) / np.log(ybar)
        t_star = np.where(ybar < 1.0, np.ceil(np.nan_to_num(need, posinf=np.inf)), whole)
        return np.maximum(np.minimum(t_star, whole), 1.0).astype(np.int64)

    def _make(self, counts, size, n, base, room=0):
        """The first ``n`` terms of the compositions given (one group each),
        stored from ``base``: ``(offsets, lengths, terms)``, ``terms``
        followed by ``room`` entries not written (a window's reach past the
        last, :func:`_sum_windows`)."""
        y = self.y
        self.made += n.shape[0]
        terms = np.empty(int(n.sum()) + room)
        # The compositions by the terms they need, in powers of two: one call
        # each, its arrays as wide as its widest; all in one call where the
        # padding costs less than the calls (a call costs about as much as
        # 2**16 entries).
        width = np.ceil(np.log2(n)).astype(np.int64)
        if n.shape[0] * int(n.max()) <= 2 * int(n.sum()) + 2**16:
            width[:] = 0
        order = np.argsort(width, kind="stable")
        ends = np.cumsum(n[order])
        offsets = np.empty(n.shape[0], dtype=np.int64)
        offsets[order] = ends - n[order] + base
        lo = 0
        for b in np.unique(width).tolist():
            mine = order[np.searchsorted(width[order], b):np.searchsorted(width[order], b,
                                                                           side="right")]
            T = int(n[mine].max())
            Q = _subset_products(counts[mine], size[mine], y, T)  # (groups, T + 1)
            d = Q[:, :-1] - Q[:, 1:]
            part = d[np.arange(T) < n[mine][:, None]]  # row by row: each its first n
            terms[lo:lo + part.shape[0]] = part
            lo += part.shape[0]
        return offsets, n, terms


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
