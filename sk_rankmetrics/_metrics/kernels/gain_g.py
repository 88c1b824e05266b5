"""trec_eval's G, exact over tie orderings: the gain ranked against the
ideal's running cost, of untied rows (down the positions, or over their few
nonzero gains), of rows tied in a few places (the order given, put right at
its tie groups) and of rows ranked with their tie groups (each group's
expected terms over the count vectors of its gains, shared by the groups of
one composition)."""

from __future__ import annotations

import numpy as np

from ..._ranking.ideal import CountedLevels
from ..._ranking.item_values import LevelValues
from ..._utils.fast import DOWN_CELLS, accumulate_down, many_rows
from ..._utils.nonzero import flatnonzero, nonzero_2d
from ..._utils.params import TIE_ORDER
from . import _safe_divide, gain_curves, load_batches, ranges_from_counts, row_entries
from .combinatorics import _log_factorials
from .gain_curves import (
    _few_ties_whole,
    _gain_levels,
    _ideal_prefix,
    _Listed,
)
from .gain_down import top_down

_CELLS_DOWN = DOWN_CELLS  # (:data:`~..._utils.fast.DOWN_CELLS`)

#: The summed gain of a row from which G refuses it: float64 holds whole
#: numbers exactly below it, and G subtracts such sums.
_G_EXACT = 2.0**53

#: The most terms (count vectors) the exact G of one tie group may sum:
#: ``prod(c + 1)`` over the group's distinct gains, ``c`` items each. A group
#: of two gain levels (binary relevance) stays under it up to 1,000 items.
G_BUDGET = 1 << 18
#: Terms handled at once (memory of the enumeration; past a few MB an
#: array leaves the CPU cache: G over 1,000 x 1,000 tied integers and binary
#: relevance took 1.3 times as long in batches of 2**20).
_G_BATCH = 1 << 18


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
    group whose members share one gain needs no sum; groups of one
    composition share the distribution of :math:`(j, T_j)`
    (:func:`_g_composition_terms`). Rows tied in a few places take the
    order given's terms, replaced at the grouped positions only
    (:func:`_g_few_ties`: past a group, :math:`S_p` is the same in every
    order). A row whose gains sum to 2**53 or more raises
    (:data:`_G_EXACT`).
    """
    levels = _gain_levels(rc, req.gain_key)
    total = levels.total
    if total.size and total.max() >= _G_EXACT:
        raise ValueError(
            f"g: y_true's gains sum to {total.max():.3g} in a row, at or past 2**53, where "
            "float64 stops holding whole numbers exactly; trec_eval's G reads the ideal's "
            "running cost less the gain ranked, a difference such sums lose. Accepted: gains "
            "whose sum per row stays below 2**53 (scale the relevance levels or the gain "
            "mapping down)."
        )
    listed = _Listed.of(rc, req.gain_key)
    if listed is not None:
        return _safe_divide(_g_listed(rc, levels, listed), total), total > 0
    if rc.partial:  # (ranked through the relevant items, some of them tied)
        return _safe_divide(_g_relevant_ties(rc, req, levels), total), total > 0
    if _few_ties_whole(rc):
        return _safe_divide(_g_few_ties(rc, rc.few_ties, req, levels), total), total > 0
    if not rc.tied and many_rows((rc.n_rows, rc.L)):
        return _safe_divide(_g_down(rc, req.gain_key, levels), total), total > 0
    g = rc.mean(req.gain_key)
    # Items of gain <= 0 cost 1, as do the positions past the ideal's end.
    cost = np.cumsum(np.maximum(levels.top(rc.L), 1.0), axis=1)
    gained = np.cumsum(g, axis=1)
    # g / log2(2 + cost - gained) where g is nonzero.
    nonzero = g != 0
    d = np.add(cost, 2.0)
    np.subtract(d, gained, out=d)
    np.log2(d, out=d, where=nonzero)
    terms = np.divide(g, d, out=np.zeros_like(d), where=nonzero)
    if rc.tied and rc.L:
        _g_tie_groups(rc, req, terms, cost, gained - g)
    return _safe_divide(terms.sum(axis=1), total), total > 0


def _g_down(rc, key, levels, g=None, cells=None):
    """G's sums of an untied chunk over many rows (:func:`many_rows`), made
    down the positions of the transposed gains a few thousand rows at a
    time: the running cost and gain as vectors over the rows
    (:func:`accumulate_down`), in the rows' order of additions. A gain of 0
    adds 0 (its term made all the same: the cost is at least the gain, so
    the logarithm's argument is at least 2).

    Whole gains (levels under the linear or exponential gain) make the
    running cost and gain whole, and the logarithm's argument a whole number
    below ``2 + L +`` the row's summed gain: read off a table of ``log2``
    (the same values) where that is at most :data:`_LOG2_TABLE` long, a
    gather instead of NumPy's logarithm (about 9 ns an entry without
    AVX-512).

    ``g``: the gains at each position (default: the chunk's); with
    ``cells``, ``(rows, positions)`` (sorted by row), also the gain ranked
    above each of those places and the running cost there: ``(sums, above,
    cost)``."""
    n_rows, L = rc.n_rows, rc.L
    g = rc.mean(key) if g is None else g
    out = np.empty(n_rows)
    if cells is not None:
        c_row, c_pos = cells
        bounds = np.searchsorted(c_row, np.arange(n_rows + 1))
        above, cost = np.empty(c_row.shape[0]), np.empty(c_row.shape[0])
    step = max(1, _CELLS_DOWN // max(L, 1))
    table = None
    gains = levels.gains if isinstance(levels, CountedLevels) else levels.gain
    if n_rows and bool(np.all(gains == np.rint(gains))):
        size = int(levels.total.max()) + L + 3
        if size <= _LOG2_TABLE:
            # table[j] = log2(2 + j), read at j = cost - gain >= 0.
            table = np.log2(np.arange(2.0, float(size)))
    for a in range(0, n_rows, step):
        b = min(a + step, n_rows)
        # The cost of each position, max(top, 1): from the levels' bounds
        # where their gains are whole (no transposed read of the top gains).
        costs = None if table is None else top_down(levels, a, b, L, cost=True,
                                                    dtype=np.int32)
        if costs is not None:
            # Whole numbers below the table's length: the gains, the costs
            # and their running sums in int32 (exact), the table read at the
            # running cost less the running gain (the same values; half the
            # bytes a pass, and the gains cast as they are read transposed).
            gd = np.ascontiguousarray(g[a:b].T, dtype=np.int32)  # (L, rows)
            running_cost = accumulate_down(costs)
            if cells is not None:
                q = slice(bounds[a], bounds[b])
                cell = c_pos[q] * (b - a) + (c_row[q] - a)
                cost[q] = np.take(running_cost.reshape(-1), cell)
            gained = accumulate_down(gd.copy())
            running_cost -= gained
            d = np.take(table, running_cost)
        else:
            gd = np.ascontiguousarray(g[a:b].T)  # (L, rows)
            costs = top_down(levels, a, b, L, cost=True)
            if costs is None:
                costs = np.maximum(levels.top(L)[a:b].T, 1.0)
            # Items of gain <= 0 cost 1, as do the positions past the ideal's end.
            d = accumulate_down(costs)
            if cells is not None:
                q = slice(bounds[a], bounds[b])
                cell = c_pos[q] * (b - a) + (c_row[q] - a)
                cost[q] = np.take(d.reshape(-1), cell)
            d += 2.0
            gained = accumulate_down(gd.copy())
            d -= gained
            np.log2(d, out=d)
        if cells is not None:
            above[q] = np.take(gained.reshape(-1), cell) - np.take(gd.reshape(-1), cell)
        np.divide(gd, d, out=d)
        out[a:b] = d.sum(axis=0)
    return out if cells is None else (out, above, cost)


#: The longest table of ``log2`` :func:`_g_down` reads (2 MiB).
_LOG2_TABLE = 1 << 18


def _g_listed(rc, levels, listed, cells=None):
    """G's sum over the ranked entries of nonzero gain only (an untied chunk
    whose gains are few, :class:`_Listed`): the others add no term, and
    their gain adds nothing to the running gain. The running cost at a
    position ``p`` past the ideal's positive gains grows by 1 a position.
    ``cells``: as :func:`_g_down`'s (the gain ranked above those places
    and the running cost there)."""
    rows, p = listed.rows, listed.p
    cost, Pm = _ideal_prefix(levels, rc.L, lambda top: np.maximum(top, 1.0))
    q = np.minimum(p, Pm - 1)
    cost_at = cost[rows, q] + (p - q)
    gained, _ = listed.running(listed.g)
    terms = listed.g / np.log2(2.0 + cost_at - gained)  # (the cost is at least the gain)
    out = np.bincount(rows, weights=terms, minlength=rc.n_rows)
    if cells is None:
        return out
    # Above a place: the running gain of its row's last entry before it.
    c_row, c_pos = cells
    i = np.searchsorted(rows * rc.L + p, c_row * rc.L + c_pos) - 1
    hit = (i >= 0) & (np.take(rows, np.maximum(i, 0)) == c_row) if rows.size else i >= 0
    above = np.where(hit, np.take(gained, np.maximum(i, 0)) if rows.size else 0.0, 0.0)
    q = np.minimum(c_pos, Pm - 1)
    return out, above, cost[c_row, q] + (c_pos - q)


def _g_few_ties(rc, ties, req, levels):
    """G's sums of whole rows that tie in a few places (``ties``, a
    :class:`~sk_rankmetrics._ranking.few_ties.FewTies`): the order given's
    (:func:`_g_listed` where its nonzero gains are few, else
    :func:`_g_down`), its terms at the grouped positions replaced by their
    expected ones (:func:`_g_group_terms`): the order inside a group changes
    the running gain at the group's own positions only."""
    key, n, L = req.gain_key, rc.n_rows, rc.L
    g = ties.values[key]
    if not ties.size.shape[0]:  # (no group joins two level codes)
        return _g_down(rc, key, levels, g)
    cells = (ties.member // ties.N, ties.pos)
    nz = g != 0
    if np.count_nonzero(nz) <= gain_curves._LIST_SHARE * n * L:  # (the list's own share)
        flat, rows, _ = row_entries(nz)
        listed = _Listed(rows, flat - rows * L, np.take(g.reshape(-1), flat), n)
        base, above, cost_at = _g_listed(rc, levels, listed, cells)
    else:
        base, above, cost_at = _g_down(rc, key, levels, g, cells)
    fix = _g_put_right(req, ties.at(key), ties.gid, ties.size, cost_at, above, ties.opens)
    return base + ties.by_row(fix, at_member=True)


def _g_put_right(req, v, gid, sizes, cost_at, above, opens):
    """At every position of tie groups (one group after another, ``gid``
    each position's group, ``opens`` each group's first position, ``sizes``
    its items, all ranked): the expected term of G over the orders of its
    group (:func:`_g_group_terms`) less the term of the order given, whose
    gain there is ``v``, with the running cost ``cost_at`` and the gain
    ranked above ``above``. Past a group the running gain is the same in
    every order: these are the only terms an order changes."""
    given = np.zeros(v.shape[0])
    some = flatnonzero(v != 0)
    given[some] = v[some] / np.log2(2.0 + cost_at[some] - (above[some] + v[some]))
    expected = _g_group_terms(req, sizes, sizes, _distinct_values(gid, v), cost_at,
                              np.take(above, opens))
    return expected - given


def _distinct_values(gid, v):
    """``(group, value, count)``: each group's distinct values ``v`` (one per
    member, ``gid`` its group, nondecreasing) and how many members hold
    each, sorted by group, then value.

    Where every value is one of the first :data:`_G_SAMPLE` members' (a
    few gains: dense relevance), the (group, value) pairs are counted.
    Otherwise each group's zeros are counted (under sparse relevance most of
    its members), not sorted; the other values are ranked by one sort, and
    the group and rank (a zero between the negative values and the positive
    ones) keyed as one whole number: two sorts of the nonzero values, a
    fifth of the time of a lexicographic sort of every member."""
    n_g = int(gid[-1]) + 1 if gid.shape[0] else 0
    # A few values in all (levels' gains under dense relevance): each
    # member's value found among those of the first members, and the
    # (group, value) pairs counted; no sort.
    u = np.unique(v[:_G_SAMPLE])
    if u.shape[0] and u.shape[0] * n_g <= 4 * v.shape[0]:
        code = np.searchsorted(u, v)
        np.minimum(code, u.shape[0] - 1, out=code)
        if np.array_equal(np.take(u, code), v):
            code += gid * u.shape[0]
            by = np.bincount(code, minlength=n_g * u.shape[0])
            at = flatnonzero(by)
            g, c = np.divmod(at, u.shape[0])
            return g, np.take(u, c), np.take(by, at)
    nz = flatnonzero(v != 0)
    zeros = np.bincount(gid, minlength=n_g) - np.bincount(gid[nz], minlength=n_g)
    zg = flatnonzero(zeros)
    vn, n = v[nz], nz.shape[0]
    rank = np.empty(n, dtype=np.int64)
    rank[np.argsort(vn)] = np.arange(n)  # (equal values: adjacent ranks)
    neg = int(np.count_nonzero(vn < 0))
    rank += rank >= neg  # (rank neg: the zeros')
    g = np.concatenate((gid[nz], zg))
    key = g * (n + 1) + np.concatenate((rank, np.full(zg.shape[0], neg, dtype=np.int64)))
    order = np.argsort(key)  # (distinct keys)
    g, val = g[order], np.concatenate((vn, np.zeros(zg.shape[0])))[order]
    count = np.concatenate((np.ones(n, dtype=np.int64), zeros[zg]))[order]
    new = np.ones(g.shape[0], dtype=bool)
    new[1:] = (g[1:] != g[:-1]) | (val[1:] != val[:-1])
    at = flatnonzero(new)
    return g[at], val[at], np.add.reduceat(count, at) if at.shape[0] else count[at]


def _g_relevant_ties(rc, req, levels):
    """G's sums of whole rows ranked through their items of nonzero value
    (``rc.partial``), some of whose tie groups hold two items or more: as
    :func:`_g_few_ties`, the terms of one order (each group's items of
    nonzero value first, in the order listed, then the others, of gain 0;
    :func:`_g_listed`) with the terms at the positions of every group of two
    items or more replaced by their expectations (:func:`_g_group_terms`).
    The groups left out hold items of gain 0 only, where any order puts
    them."""
    key, n = req.gain_key, rc.n_rows
    groups = rc.groups
    at, first = groups.members
    v = at[key]
    if first is None:  # (each group holds one of the items: the others gain 0)
        item_group, k = np.arange(v.shape[0]), np.zeros(v.shape[0], dtype=np.int64)
    else:
        item_group = np.cumsum(first) - 1
        k = np.arange(v.shape[0]) - np.take(flatnonzero(first), item_group)  # its place
    row = np.take(groups.row, item_group)
    p = np.take(groups.start, item_group) + k
    nz = flatnonzero(v != 0)
    listed = _Listed(row[nz], p[nz], v[nz], n)
    # Every position of the groups of two items or more (row-major).
    tied = flatnonzero(groups.size > 1)
    m = groups.size[tied]
    cell_open = np.cumsum(m) - m
    cells = (np.repeat(groups.row[tied], m), np.repeat(groups.start[tied], m)
             + ranges_from_counts(m))
    base, above, cost_at = _g_listed(rc, levels, listed, cells)
    # The order given's gain at each of those positions.
    tied_of = np.full(groups.size.shape[0], -1, dtype=np.int64)
    tied_of[tied] = np.arange(tied.shape[0])
    mine = flatnonzero(np.take(tied_of, item_group) >= 0)
    cell_v = np.zeros(cells[0].shape[0])
    cell_v[np.take(cell_open, tied_of[item_group[mine]]) + k[mine]] = v[mine]
    fix = _g_put_right(req, cell_v, np.repeat(np.arange(tied.shape[0]), m), m, cost_at, above,
                       cell_open)
    return base + np.bincount(cells[0], weights=fix, minlength=n)


def _mixed_groups(rc, key):
    """The tie groups (within the first L ranks) whose members' values differ.

    Returns ``(row, start, size, levels)`` with ``levels`` a tuple
    ``(group, value, count)`` of the distinct values of each such group
    (sorted by group), or None when there is none.
    """
    L = rc.L
    first = (rc.start == np.arange(L)) & (rc.size > 1)
    rows, starts = nonzero_2d(first)
    if rows.size == 0:
        return None
    coded = rc.items.coded(key) if isinstance(rc.items, LevelValues) else None
    items = coded[0] if coded is not None else rc.items[key]
    W = items.shape[1]
    # A group of real items that runs past L was ranked over the whole row (W =
    # N); one that still runs past W is padding (-inf), whose members all hold 0.
    sizes = np.minimum(rc.size[rows, starts], W - starts)
    gid = np.repeat(np.arange(rows.size), sizes)
    offset = np.arange(gid.size) - np.repeat(np.cumsum(sizes) - sizes, sizes)
    vals = items.reshape(-1)[np.repeat(rows * W + starts, sizes) + offset]
    if coded is not None:
        # Level codes: each group's items counted by code (no sort); codes of
        # one value are levels of their own (the same sums over the orders).
        C = coded[1].shape[0]
        by_code = np.bincount(gid * C + vals, minlength=rows.size * C)
        at = flatnonzero(by_code)
        lg, code = np.divmod(at, C)
        lv, lc = coded[1][code], by_code[at]
    else:
        lg, lv, lc = _distinct_values(gid, vals)
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
        f"beyond the {budget:,} this measure allows. Break the ties (ignore_ties=True ranks "
        f"them in one order: {TIE_ORDER}), or use evaluate_run(..., setting='trec_eval'), "
        "which orders them by document id."
    )


def _g_tie_groups(rc, req, terms, cost, gain_before):
    """Replace the terms of G at the ranks of tie groups of mixed gains (in place)."""
    found = _mixed_groups(rc, req.gain_key)
    if found is None:
        return
    rows, starts, sizes, levels = found
    inside = np.minimum(sizes, rc.L - starts)  # members ranked within the cut
    r = np.repeat(rows, inside)
    p = np.repeat(starts, inside) + ranges_from_counts(inside)
    terms[r, p] = _g_group_terms(req, sizes, inside, levels, cost[r, p],
                                 gain_before[rows, starts])


def _g_group_terms(req, sizes, inside, levels, cost_at, S0):
    """The expected terms of G at the first ``inside`` positions of tie
    groups of ``sizes`` items, one after another (group by group, by
    position): ``levels`` ``(group, value, count)`` each group's distinct
    gains (sorted by group), ``cost_at`` the running cost at each of those
    positions, ``S0`` the gain ranked above each group.

    Over the orders of a group, its first j members are a uniform j-subset:
    the sum over the count vectors of its gains (multivariate
    hypergeometric) of :func:`normalized_gain`. A group whose nonzero gains
    are one item's (``g``; under sparse relevance most groups) holds it
    among its first j members with chance ``j / m``: its term at its j-th
    position is ``g / (m log2(2 + c - S0 - g))``, with no sum
    (:func:`_one_gain_terms`)."""
    lg, lv, lc = levels
    n_groups = sizes.shape[0]
    log_states = np.bincount(lg, weights=np.log(lc + 1.0), minlength=n_groups)
    states = np.rint(np.exp(log_states))
    worst = int(np.argmax(states))
    if states[worst] > G_BUDGET:
        raise _budget_error(req, int(sizes[worst]), int(np.count_nonzero(lg == worst)),
                            states[worst], G_BUDGET)
    lf = _log_factorials(int(sizes.max()))
    opens = np.cumsum(inside) - inside
    acc = np.zeros(int(inside.sum()))
    one = _one_gain_terms(acc, lg, lv, lc, sizes, inside, opens, cost_at, S0)
    if one.all():
        return acc
    states = states.astype(np.int64)
    table = _g_composition_terms(lg, lv, lc, sizes, states, lf)
    if table is None:
        # Each group's own count vectors (few groups share a composition).
        for grp, j, T, prob in _g_states(flatnonzero(~one), lg, lv, lc, sizes, states, lf):
            _g_add_terms(acc, grp, j, T, prob, inside, opens, cost_at, S0)
        return acc
    comp_of, batches = table
    # The groups by composition; each batch of compositions is read by its
    # groups (batches of whole groups, at most _G_BATCH pairs each: one group
    # may exceed it) before the next is made. A position's terms are one
    # group's, summed in one call in any order of the groups: the same sums.
    n_c = int(comp_of.max()) + 1
    by_comp = comp_sorted = None
    for lo, hi, p_off, p_j, p_T, p_prob in batches:
        if lo == 0 and hi == n_c:  # every composition in one batch: the groups as they are
            grps, own = np.arange(n_groups), comp_of
        else:
            if by_comp is None:
                by_comp = np.argsort(comp_of, kind="stable")
                comp_sorted = comp_of[by_comp]
            a, b = np.searchsorted(comp_sorted, (lo, hi))
            grps = by_comp[a:b]
            own = comp_of[grps] - lo
        rest = flatnonzero(~np.take(one, grps))  # (those of one gain: made)
        grps, own = grps[rest], own[rest]
        n_p = np.diff(p_off)[own]
        for x, y in load_batches(np.cumsum(n_p), _G_BATCH):
            grp = np.repeat(grps[x:y], n_p[x:y])
            k = np.repeat(p_off[own[x:y]], n_p[x:y]) + ranges_from_counts(n_p[x:y])
            _g_add_terms(acc, grp, p_j.take(k), p_T.take(k), p_prob.take(k), inside, opens,
                         cost_at, S0)
    return acc


def _one_gain_terms(acc, lg, lv, lc, sizes, inside, opens, cost_at, S0):
    """Write into ``acc`` the expected terms of the groups (of
    :func:`_g_group_terms`) whose nonzero gains are one item's, ``g / (m
    log2(2 + c - S0 - g))`` at each of their ranked positions, and return
    which groups those are (a mask)."""
    nz = lv != 0
    one = np.bincount(lg[nz], weights=lc[nz], minlength=sizes.shape[0]) == 1
    at = flatnonzero(nz & np.take(one, lg))
    grps = np.take(lg, at)  # (sorted: one level each)
    if grps.shape[0]:
        n = np.take(inside, grps)
        grp = np.repeat(grps, n)
        pos = np.repeat(np.take(opens, grps), n) + ranges_from_counts(n)
        g = np.repeat(np.take(lv, at), n)
        d = np.log2(2.0 + np.take(cost_at, pos) - np.take(S0, grp) - g)
        acc[pos] = g / (np.take(sizes, grp) * d)
    return one


def _g_add_terms(acc, grp, j, T, prob, inside, opens, cost_at, S0):
    """Add to ``acc`` (the expected terms at the groups' positions, one after
    another) each state's share: ``prob * T / log2(2 + cost - S0 - T) / j``
    at its group's j-th position, where that is ranked (``inside``)."""
    ok = j <= inside.take(grp)
    if not ok.all():
        grp, j, T, prob = grp[ok], j[ok], T[ok], prob[ok]
    at = opens.take(grp) + j - 1
    d = np.log2(2.0 + cost_at.take(at) - S0.take(grp) - T)
    acc += np.bincount(at, minlength=acc.size, weights=prob * T / d / j)


def _g_states(groups, lg, lv, lc, sizes, states, lf):
    """The count vectors of the groups ``groups`` (of the arrays of
    :func:`_g_group_terms`), in batches of at most :data:`_G_BATCH`: ``(grp,
    j, T, prob)`` per vector of ``j >= 1`` items drawn and gain ``T != 0``
    (a state of gain 0 adds nothing), ``grp`` its group, ``prob`` its chance
    among the j-subsets (multivariate hypergeometric).

    The vectors of a group's nonzero gains are listed (each gain a digit),
    and each of gain ``T != 0`` is then drawn with ``n0 = 0..c0`` of its
    ``c0`` items of gain 0 (weight ``C(c0, n0)``, the same ``T``): under
    sparse relevance most groups hold one item of nonzero gain, and the
    zeros' digit cost most of the listing (the same vectors, in the same
    order where gain 0 is a group's least)."""
    n_groups = sizes.shape[0]
    zero = lv == 0
    c0 = np.zeros(n_groups, dtype=np.int64)
    c0[lg[zero]] = lc[zero]
    lg, lv, lc = lg[~zero], lv[~zero], lc[~zero]
    if not lg.shape[0]:  # (gains of 0 only: no term)
        return
    # Level l of each group: its count, value and the stride of its digit.
    level_at = np.arange(lg.size) - np.searchsorted(lg, lg)
    n_lev = int(level_at.max()) + 1
    count = np.zeros((n_lev, n_groups), dtype=np.int64)
    value = np.zeros((n_lev, n_groups))
    count[level_at, lg], value[level_at, lg] = lc, lv
    stride = np.cumprod(np.concatenate((np.ones((1, n_groups), dtype=np.int64),
                                        count[:-1] + 1), axis=0), axis=0)
    st = states.take(groups)  # (every vector, the zeros' digit too: the batches' load)
    own = st // (c0.take(groups) + 1)  # (the vectors of nonzero gains: exact)
    for a, b in load_batches(np.cumsum(st), _G_BATCH):
        grp = np.repeat(groups[a:b], own[a:b])
        idx = ranges_from_counts(own[a:b])  # the vector's number within its group
        j = np.zeros(grp.size, dtype=np.int64)
        T = np.zeros(grp.size)
        logw = np.zeros(grp.size)
        for lvl in range(n_lev):
            c = count[lvl].take(grp)
            n = (idx // stride[lvl].take(grp)) % (c + 1)  # items drawn from the level
            j += n
            T += n * value[lvl].take(grp)
            logw += lf.take(c) - lf.take(n) - lf.take(c - n)
        ok = T != 0  # (then j >= 1)
        grp, j, T, logw = grp[ok], j[ok], T[ok], logw[ok]
        # Each with n0 = 0..c0 items of gain 0.
        z = c0.take(grp)
        n0 = ranges_from_counts(z + 1)
        grp, j, T, logw, z = (np.repeat(x, z + 1) for x in (grp, j, T, logw, z))
        j += n0
        logw += lf.take(z) - lf.take(n0) - lf.take(z - n0)
        m = sizes.take(grp)
        yield grp, j, T, np.exp(logw - (lf.take(m) - lf.take(j) - lf.take(m - j)))


#: :func:`_g_composition_terms` makes the pairs of groups of at most
#: :data:`_G_TABLE_SIZE` items (whose binomial weights stay far below
#: float64's largest number) where the groups repeat their compositions at
#: least :data:`_G_REUSE` times on average, or hold at least
#: :data:`_G_PAIRS_FROM` count vectors on average: a group's pairs are never
#: more than its count vectors, and made gain after gain they cost less than
#: the count vectors listed whole where those are many (rows of 300 integer
#: scores 0..9 over dense graded relevance, exponential gain, where few
#: groups share a composition: 0.22 of the time). Groups of few count
#: vectors that seldom share a composition keep listing them.
_G_REUSE = 2
_G_PAIRS_FROM = 1000
_G_TABLE_SIZE = 500
#: :func:`_g_composition_terms` counts the distinct gains of this many
#: levels before those of all; :func:`_distinct_values` reads the values of
#: this many members first.
_G_SAMPLE = 4096
#: The most (composition, j, T) cells of the table of whole gains (256 MiB).
_G_TABLE_CELLS = 1 << 25
#: The most entries at a time (the lesser of a composition's count vectors
#: and its distinct (j, T) times the widening of one gain's step) of the
#: compositions :func:`_g_composition_terms` makes at once (its arrays hold
#: about 50 bytes each): 100,000 rows of 100 tied integers over dense
#: graded relevance took 180 MiB in one batch.
_G_PAIRS_AT_ONCE = 1 << 18


def _g_composition_terms(lg, lv, lc, sizes, states, lf):
    """The (j, T) pairs of each composition of the groups (how many items of
    each gain: groups of one composition have one distribution of the gain
    T of their first j items), with their chances: ``(comp_of, batches)``,
    each group's composition and the batches of compositions, each made as
    it is read (:data:`_G_PAIRS_AT_ONCE`): ``(lo, hi, p_off, p_j, p_T,
    p_prob)``, the pairs of composition ``lo + c`` at ``p_off[c]:p_off[c +
    1]``. Made level by level, every composition of a batch at once: each pair so far
    takes ``n = 0..c`` items of the next gain (weight ``C(c, n)``) and the
    pairs that meet are summed, so a composition holds its distinct pairs
    (a few hundred) rather than its count vectors; at the end each weight
    over ``C(m, j)``. None where the compositions do not number as one
    int64 each (many distinct gains), a group is larger than
    :data:`_G_TABLE_SIZE`, or the groups repeat their compositions too
    little for their few count vectors (:data:`_G_PAIRS_FROM`)."""
    n_groups = sizes.shape[0]
    base = int(sizes.max()) + 1
    # (The distinct gains of a few levels first: real-valued gains are past
    # the bound there, with no sort of every level.)
    if base > _G_TABLE_SIZE + 1 or base ** np.unique(lv[:_G_SAMPLE]).shape[0] >= 2**62:
        return None
    vu, code = np.unique(lv, return_inverse=True)
    if base ** vu.shape[0] >= 2**62:
        return None
    place = base ** np.arange(vu.shape[0], dtype=np.int64)
    first = np.searchsorted(lg, np.arange(n_groups))  # (every group has a level)
    key = np.add.reduceat(lc.astype(np.int64) * place[code], first)
    ukey, comp_of = np.unique(key, return_inverse=True)
    n_c = ukey.shape[0]
    if n_c * _G_REUSE > n_groups and states.mean() < _G_PAIRS_FROM:
        return None
    # Each composition's count of each gain (its digits), then its pairs,
    # gain after gain: (c, j, T, weight), sorted by composition; in batches
    # of compositions of at most _G_PAIRS_AT_ONCE entries at a time: a
    # composition's never pass its count vectors, nor its distinct (j, T)
    # (at most (m + 1) times the values T takes) widened by the most items
    # of one gain.
    digits = (ukey[:, None] // place[None, :]) % base
    m = digits.sum(axis=1)
    whole = vu[0] >= 0 and bool(np.all(vu == np.rint(vu)))
    span = digits @ (vu - vu.min(initial=0.0)) + 1.0  # (whole gains: the values T takes)
    vectors = np.prod(digits + 1.0, axis=1)
    load = np.cumsum(np.minimum((m + 1.0) * span * (digits.max(axis=1) + 1.0), vectors))

    def batches():
        for a, b in load_batches(load, _G_PAIRS_AT_ONCE):
            c, j, T, w = _composition_pairs(digits[a:b], m[a:b], vu, whole, lf)
            mc = m[a:b].take(c)
            prob = w / np.rint(np.exp(lf.take(mc) - lf.take(j) - lf.take(mc - j)))
            yield a, b, np.searchsorted(c, np.arange(b - a + 1)), j, T, prob

    return comp_of, batches()


def _composition_pairs(digits, m, vu, whole, lf):
    """The (j, T) pairs of :func:`_g_composition_terms` of the compositions
    ``digits`` (each one's count of each gain ``vu``; ``m`` its items), and
    their weights (the count vectors meeting at each: products of
    binomials): ``(c, j, T, w)``, sorted by composition, of ``j >= 1`` and
    ``T != 0``. ``whole``: the gains are whole numbers >= 0."""
    n_c = m.shape[0]
    # Whole gains >= 0: the pairs that meet are summed in a table of every
    # (j, T) of each composition (no sort); other gains, sorted.
    cells = None
    if whole:
        width = digits @ vu.astype(np.int64) + 1  # T = 0 .. its largest
        cells = np.concatenate(([0], np.cumsum((m + 1) * width)))
        if cells[-1] > _G_TABLE_CELLS:
            cells = None
    c, j = np.arange(n_c), np.zeros(n_c, dtype=np.int64)
    T, w = np.zeros(n_c), np.ones(n_c)
    for u, v in enumerate(vu.tolist()):
        cnt = digits[c, u]
        more = cnt + 1
        n = ranges_from_counts(more)
        c, j, T, w, cnt = (np.repeat(x, more) for x in (c, j, T, w, cnt))
        j = j + n
        T = T + n * v
        w = w * np.rint(np.exp(lf.take(cnt) - lf.take(n) - lf.take(cnt - n)))
        if cells is not None:
            wc = width.take(c)
            W = np.bincount(cells.take(c) + j * wc + T.astype(np.int64), weights=w,
                            minlength=int(cells[-1]))
            at = flatnonzero(W)
            c = np.searchsorted(cells, at, side="right") - 1
            j, t = np.divmod(at - cells.take(c), width.take(c))
            T, w = t.astype(np.float64), W.take(at)
            continue
        order = np.lexsort((T, j, c))
        c, j, T, w = c[order], j[order], T[order], w[order]
        new = np.ones(c.shape[0], dtype=bool)
        new[1:] = (c[1:] != c[:-1]) | (j[1:] != j[:-1]) | (T[1:] != T[:-1])
        at = flatnonzero(new)
        c, j, T, w = c[at], j[at], T[at], np.add.reduceat(w, at)
    keep = (j >= 1) & (T != 0)
    return c[keep], j[keep], T[keep], w[keep]
