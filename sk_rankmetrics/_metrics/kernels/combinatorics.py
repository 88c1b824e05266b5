"""Combinatorics of tie orderings: log factorials, subset products, bounded sequences."""

from __future__ import annotations

import numpy as np

from ..._utils.fast import accumulate_down, segment_cumsum
from . import ranges_from_counts

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
    and the rest of value 1. ``Q[t] = e_t / C(size, t)``, with ``e_t`` the sum
    over the t-subsets of their product: the coefficient of ``x**t`` in the
    product of ``1 + y_i x`` over the items. The items of value 1 give
    ``C(ones, t)`` at once; each other item then adds ``y * e[t - 1]`` to
    ``e[t]`` (O(T) per item, and with sparse relevance those items are few).
    Every term is a sum of products of values in [0, 1], all positive: the
    relative error stays a few units of rounding per item. A product below
    float64's range is lost, which moves the mean ``e_t / C(size, t)`` by
    less than that range's bottom (``C(size, t) >= 1`` and there are at most
    ``C(size, t)`` products).

    ``e_t`` is at most ``C(size, t)``: where that passes float64's range (a
    group of over a thousand items), and where the groups hold too few
    items for the sums to repay their tables of binomials, the means
    themselves are kept instead, each item growing the pool by one: a
    t-subset of the pool grown to ``M + 1`` items holds the new item with
    probability ``t / (M + 1)``, so ``Q[t] -= t / (M + 1) * (Q[t] - y * Q[t -
    1])``, every weight a probability (stable, at five operations per entry
    instead of two).
    """
    counts = np.rint(counts)
    # Exact (whole counts); a sum along narrow rows costs several times more.
    n_items = (counts @ np.ones(counts.shape[1])).astype(np.int64)
    # The groups with the most items first: at every step the groups with an
    # item left are a prefix, grown in place through a view (no gather).
    order = np.argsort(-n_items, kind="stable")
    counts, n_items, sizes = counts[order], n_items[order], np.asarray(sizes)[order]
    ones = sizes - n_items
    steps = int(n_items.max(initial=0))
    # The value of each group's k-th item, its items taken level by level:
    # the level is the number of levels whose running count is at most k
    # (cells past a group's items are read by no step: a group takes part
    # while it has items left).
    k = np.arange(steps)[:, None]
    level = np.zeros((steps, counts.shape[0]), dtype=np.intp)
    for running in np.cumsum(counts, axis=1)[:, :-1].T:
        level += k >= running
    y_item = np.asarray(y, dtype=np.float64)[level]
    active = np.searchsorted(-n_items, -k[:, 0], side="left")  # groups with > k items
    # Before step k a group's sums (or means) are 0 past t = ones + k (no
    # t-subset of fewer items): each step reads and writes the rows up to
    # the most ones among its groups plus k + 1 only, the rest staying 0 (a
    # group of mostly relevant items starts with a short prefix).
    most_ones = np.maximum.accumulate(ones) if ones.size else ones
    # One row per t and one column per group: every step below is an
    # operation along the groups (contiguous), not along t (a few columns).
    # One scratch array, reused: a new array of this size costs the first
    # touch of its pages, as much as a few passes over it.
    buf = np.empty((T + 1, counts.shape[0]))
    if (steps >= _SUMS_FROM_STEPS and steps * counts.shape[0] >= _SUMS_FROM_WORK
            and _largest_log_binomial(sizes, T) < _LOG_FLOAT_RANGE):
        Q = _binomials_by_value(ones, T)
        for step in range(steps):
            a = int(active[step])
            hi = min(T, int(most_ones[a - 1]) + step + 1)
            d = np.multiply(Q[:hi, :a], y_item[step, :a], out=buf[:hi, :a])
            Q[1:hi + 1, :a] += d
        whole = _binomials_by_value(sizes, T, out=buf)
        np.maximum(whole, 1.0, out=whole)  # past a group's size e_t is 0: 0 / 1
        Q_sorted = np.divide(Q, whole, out=whole)
    else:
        t = np.arange(T + 1, dtype=np.float64)
        M = ones.astype(np.float64)
        Q_sorted = (t[:, None] <= M).astype(np.float64)  # the ones: any t of them multiply to 1
        for step in range(steps):
            a = int(active[step])
            hi = min(T, int(most_ones[a - 1]) + step + 1)
            Qa, d = Q_sorted[:hi + 1, :a], buf[:hi, :a]
            M[:a] += 1.0
            # Q_new[t] = Q[t] - t / (M + 1) * (Q[t] - y * Q[t - 1]), in place
            # (the same convex combination, one temporary).
            np.multiply(Qa[:-1], y_item[step, :a], out=d)
            np.subtract(Qa[1:], d, out=d)
            d *= t[1:hi + 1, None]
            d /= M[:a]
            Qa[1:] -= d
        Q = buf
    Q[:, order] = Q_sorted  # back to the groups' order, in the array no longer read
    return Q.T  # a view: its transpose is contiguous along the groups


#: The sums ``e_t`` pay for their two tables of binomials (a few passes, and a
#: call per column) from this many items per group, and this many items in all.
_SUMS_FROM_STEPS, _SUMS_FROM_WORK = 4, 2048

#: ``log`` of a binomial coefficient whose value float64 holds with room to spare.
_LOG_FLOAT_RANGE = 700.0


#: Groups of at most this many items have every ``C(size, t)`` within float64
#: (``C(1020, 510)`` is about 2.5e305).
_SMALL_GROUP = 1020


def _largest_log_binomial(sizes, T):
    """The largest ``log C(size, t)`` over the groups and t = 0..T (0 when no
    group passes ``_SMALL_GROUP`` items: none is near float64's range)."""
    n = np.asarray(sizes, dtype=np.float64)
    if not n.size or n.max() <= _SMALL_GROUP:
        return 0.0
    return float(_log_choose(n, np.minimum(float(T), np.floor(n / 2.0))).max())


def _binomials(n, T, out=None):
    """``C(n, t)`` for t = 0..T, one row per t and one column per ``n``
    (0 past n): running products of ``(n - i) / (i + 1)``, exact to a few
    units of rounding per row."""
    n = np.asarray(n, dtype=np.float64)
    i = np.arange(T, dtype=np.float64)[:, None]
    if out is None:
        out = np.empty((T + 1, n.shape[0]))
    out[0] = 1.0
    ratio = np.subtract(n, i, out=out[1:])
    np.maximum(ratio, 0.0, out=ratio)  # 0 from i = n on
    ratio /= i + 1.0
    # Row by row: each step a product along the columns (contiguous), five
    # times faster than ``np.cumprod`` down the rows.
    return accumulate_down(out, np.multiply)


def _binomials_by_value(n, T, out=None):
    """:func:`_binomials` of ``n`` made once per distinct value and copied to
    each column where the values repeat (the groups of a block of rows of
    1,000 scored 0..9 hold 80 to 130 items: a few dozen sizes over thousands
    of groups), one gather instead of a running product down every column:
    the same columns, bit for bit (each is made on its own either way)."""
    n = np.asarray(n)
    if n.shape[0] >= _BINOMIALS_BY_VALUE:
        values, column = np.unique(n, return_inverse=True)
        if 4 * values.shape[0] <= n.shape[0]:
            return np.take(_binomials(values, T), column.reshape(-1), axis=1, out=out)
    return _binomials(n, T, out=out)


#: :func:`_binomials_by_value` looks for repeated values among this many
#: columns or more.
_BINOMIALS_BY_VALUE = 64


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


#: The largest denominator ``d`` of fractions ``k / d`` in [0, 1] that
#: :func:`order_by_fraction` keys as whole numbers: two distinct such
#: fractions differ by at least ``1 / d**2``, over two units of ``2**-32``.
_KEYED_DENOMINATOR = 46_000


def order_by_fraction(group, v, most_denominator, last=None):
    """``np.lexsort((v, group))`` (with ``last``, bools, ``np.lexsort((last,
    v, group))``): the stable order by ``group`` (whole numbers >= 0), then
    ``v``, then ``last``, for values ``v`` that are each a fraction ``k /
    d`` in [0, 1] with ``d`` at most ``most_denominator`` (precisions at
    ranks within a row of that many items). Each ``v`` is then keyed as
    ``rint(v * 2**32)`` (distinct fractions stay apart, equal ones are one
    float64 each), and the three as one int64: one stable sort of whole
    numbers, a third of the time of the lexicographic one over millions of
    entries. Other values (denominators past :data:`_KEYED_DENOMINATOR`, a
    value outside [0, 1], whose key would reach the group's bits), or groups
    past 2**28, take ``np.lexsort``."""
    if group.size and (most_denominator > _KEYED_DENOMINATOR or int(group.max()) >= 2**28
                       or not 0.0 <= float(v.min()) <= float(v.max()) <= 1.0):
        return np.lexsort((v, group) if last is None else (last, v, group))
    key = np.rint(np.multiply(v, 2.0**32)).astype(np.int64)
    if last is not None:
        key <<= 1
        key |= last
    key |= np.asarray(group, dtype=np.int64) << (33 if last is None else 34)
    return np.argsort(key, kind="stable")


def _expected_max(floor, f_q, f_run, run_off, v_bp, F, f_F, most_denominator):
    r"""``E[max(floor_q, X_1, .., X_h)]`` per query q, the X independent.

    Factor f of query ``f_q[f]`` has the breakpoints of run ``f_run[f]``,
    ``v_bp[run_off[u]:run_off[u + 1]]`` (increasing), and its CDF there is
    ``F[f_F[f]:]`` (as many values), 0 below the first. The floor is at least
    the least possible value of every factor, so the product is 0 below it
    (the floors and breakpoints: fractions of denominators at most
    ``most_denominator``, :func:`order_by_fraction`) and

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
    # Breakpoints before probes on ties.
    order = order_by_fraction(keys_r, keys_v, most_denominator, last=is_probe)
    seen = np.cumsum(~is_probe[order])  # breakpoints up to each position
    at = np.empty(order.size, dtype=np.int64)
    at[order] = seen
    below = at[bp_run.size:] - run_off[f_run]  # breakpoints of the run <= the floor
    skip = np.maximum(below - 1, 0)
    f_len = run_off[f_run + 1] - run_off[f_run] - skip
    e_f = np.repeat(np.arange(f_q.size), f_len)
    k = ranges_from_counts(f_len) + skip[e_f]
    ev = np.maximum(v_bp[run_off[f_run][e_f] + k], probe[e_f])
    eF = F[f_F[e_f] + k]
    pos = eF > 0
    e_f, ev, eF = e_f[pos], ev[pos], eF[pos]
    firsts = np.ones(e_f.size, dtype=bool)
    firsts[1:] = e_f[1:] != e_f[:-1]
    prev = np.concatenate(([1.0], eF[:-1]))
    dlog = np.log(eF) - np.where(firsts, 0.0, np.log(prev))
    e_q = f_q[e_f]
    order = order_by_fraction(e_q, ev, most_denominator)
    e_q, ev, dlog, firsts = e_q[order], ev[order], dlog[order], firsts[order]
    n_factors = np.bincount(f_q, minlength=n_q)
    qstart = np.searchsorted(e_q, np.arange(n_q))
    # Each query's running sums of its own entries (segment_cumsum: none of
    # the rounding of the queries before it); the counts are exact.
    q_first = np.ones(e_q.size, dtype=bool)
    q_first[1:] = e_q[1:] != e_q[:-1]
    cum_log = segment_cumsum(dlog, q_first)
    cum_first = np.cumsum(firsts)
    base_first = np.concatenate(([0], cum_first))[qstart]
    waiting = n_factors[e_q] - (cum_first - base_first[e_q])  # factors still at 0
    prod = np.where(waiting == 0, np.exp(cum_log), 0.0)
    nxt = np.ones(ev.size)
    nxt[:-1] = np.where(e_q[1:] == e_q[:-1], ev[1:], 1.0)
    out += np.bincount(e_q, weights=(1.0 - prod) * (nxt - ev), minlength=n_q)
    # Before every factor's first positive value the product is 0.
    has = np.bincount(e_q, minlength=n_q) > 0
    first_v = np.where(has, ev[np.minimum(qstart, max(ev.size - 1, 0))], 1.0)
    out += np.where(has, first_v - floor, np.where(n_factors > 0, 1.0 - floor, 0.0))
    return out
