"""C/W/L kernels: the measures of cwl_eval that ir_measures names (NERR8-11, INST,
INSQ, SDCG, BPM).

In the C/W/L framework a user goes on from position ``i`` to ``i + 1`` with
probability ``C_i``; the weight of position ``i`` is the chance of reaching it,
``prod_{j<i} C_j``, over the sum of those chances, and the measure is the
expected gain per item ``sum_i W_i g_i``. cwl_eval scores a ranking of exactly
:data:`DEPTH` positions (the ranking cut there, or padded with items of gain 0),
and its gains lie in [0, 1]: a level ``r`` is worth
``(min(max(r, min_rel), max_rel) - min_rel) / (max_rel - min_rel)``
(:class:`LevelScale`), an unjudged item 0.

INSQ and SDCG weigh positions by their place alone, so their expected value over
the orderings of a tie is the value of the expected gains (exact on ties). The
others let the gains seen so far decide whether the user goes on, and refuse
ties (the registry's ``ties="refuse"``).
"""

from __future__ import annotations

import numpy as np

from ..._utils.fast import DOWN_CELLS, accumulate_down, many_rows
from ..._utils.nonzero import flatnonzero
from . import whole_row_groups

#: The ranking depth of cwl_eval (its ``max_n``, which ir_measures keeps).
DEPTH = 1000


class LevelScale:
    """C/W/L's gain of a level: clipped to ``[min_rel, max_rel]``, scaled to [0, 1].

    A negative level counts as 0 first (ir_measures' cwl_eval provider does so,
    as trec_eval does).
    """

    #: Level 0 is worth 0 (``min_rel >= 0``): unjudged items need no mask.
    zero_at_zero = True
    #: Clipped and scaled, the gain never decreases with the level.
    _monotone_gain = True

    def __init__(self, min_rel, max_rel):
        self.min_rel, self.max_rel = int(min_rel), int(max_rel)
        self.key = f"cwl:{self.min_rel}:{self.max_rel}"

    def __call__(self, rel):
        rel = np.maximum(np.asarray(rel, dtype=np.float64), 0.0)
        rel = np.clip(rel, self.min_rel, self.max_rel)
        return (rel - self.min_rel) / (self.max_rel - self.min_rel)

    def __eq__(self, other):
        return isinstance(other, LevelScale) and self.key == other.key

    def __hash__(self):
        return hash(self.key)

    def __repr__(self):
        return f"LevelScale({self.min_rel}, {self.max_rel})"


def _depth(rc, req):
    """Positions cwl_eval reads: its :data:`DEPTH`, or the cut-off below it."""
    return DEPTH if req.k is None else min(req.k, DEPTH)


#: Rows made at a time: a block of many long rankings would otherwise hold
#: several (rows x L) float64 arrays at once.
ROWS_AT_ONCE = 1 << 10


def _positions(n):
    return np.arange(1.0, n + 1.0)


def _stop_after(cont, k):
    """The user stops at position ``k`` at the latest (C_i = 0 from i = k)."""
    if k is not None and k <= cont.shape[1]:
        cont[:, k - 1 :] = 0.0
    return cont


def _with_padded_tail(stops_at_k):
    """A measure whose chance of going on at a position is ``cont(g, i,
    req)`` (gains ``g``, 1-based positions ``i``), as a kernel; with
    ``stops_at_k``, the chances from position ``k`` on are 0 (the user
    stops there at the latest); without, a cut-off ends the ranking there
    (the padding starts at ``k``).

    cwl_eval pads a ranking shorter than :data:`DEPTH` with items of gain 0:
    there ``C_i`` is a factor of the position alone, and the padded
    positions add nothing to ``sum_i W_i g_i`` but their reach to the sum
    of the reaches. So only the ranked ``L`` positions are made, row by row;
    the padding adds, per row, the reach of its first position times the
    sum over it of the running products of those factors (made once). The
    same products as over the padded rows; the sum of the reaches is added
    in another order (a few units of rounding)."""
    return lambda cont: _padded_tail_kernel(cont, stops_at_k)


def _padded_tail_kernel(cont, stops_at_k):
    def kernel(rc, req):
        n = _depth(rc, req)
        L = min(rc.L, n)
        i = _positions(DEPTH)
        k = req.k if stops_at_k else None
        tail = np.atleast_2d(cont(np.zeros(DEPTH - L), i[L:], req))
        if k is not None:  # the chances from position k on (0-based k - 1) are 0
            tail[:, max(k - 1 - L, 0):] = 0.0
        P = np.ones(tail.shape[1])
        np.cumprod(tail[0, :-1], out=P[1:])
        padded = float(P.sum()) if P.size else 0.0  # the padding's reaches, from the first
        mean = rc.mean(req.gain_key)
        out = np.empty(rc.n_rows)
        if L == 0:
            out[:] = 0.0
            return out, None
        if many_rows((rc.n_rows, L)):
            # Down the positions of the transposed gains, as INST
            # (:func:`_inst_down`): the same products, vectors over the rows.
            step = max(ROWS_AT_ONCE, _CELLS_DOWN // L)
            for a in range(0, rc.n_rows, step):
                b = min(a + step, rc.n_rows)
                g = np.ascontiguousarray(mean[a:b, :L].T, dtype=np.float64)
                c = cont(g, i[:L, None], req)
                if k is not None and k <= L:
                    c[k - 1:] = 0.0
                reach = np.empty_like(g)
                reach[0] = 1.0
                reach[1:] = c[:-1]
                accumulate_down(reach, np.multiply)
                first_padded = reach[-1] * c[-1]
                out[a:b] = np.einsum("ij,ij->j", reach, g) / (reach.sum(axis=0)
                                                               + first_padded * padded)
            return out, None
        for a in range(0, rc.n_rows, ROWS_AT_ONCE):
            b = min(a + ROWS_AT_ONCE, rc.n_rows)
            g = np.ascontiguousarray(mean[a:b, :L], dtype=np.float64)
            c = _stop_after(cont(g, i[:L], req), k)
            reach = np.empty_like(g)
            reach[:, 0] = 1.0
            np.cumprod(c[:, :-1], axis=1, out=reach[:, 1:])
            first_padded = reach[:, -1] * c[:, -1]
            out[a:b] = (reach * g).sum(axis=1) / (reach.sum(axis=1) + first_padded * padded)
        return out, None

    kernel.__doc__ = cont.__doc__
    kernel.__name__ = cont.__name__
    return kernel


@_with_padded_tail(stops_at_k=True)
def nerr8(g, i, req):
    """NERR, equation 8: ``C_i = 1 - g_i``, stopping at k."""
    return 1.0 - g


@_with_padded_tail(stops_at_k=True)
def nerr9(g, i, req):
    """NERR, equation 9: ``C_i = i / (i + 1) (1 - g_i)``, stopping at k."""
    return i / (i + 1.0) * (1.0 - g)


@_with_padded_tail(stops_at_k=False)
def nerr10(g, i, req):
    """NERR, equation 10: ``C_i = p (1 - g_i)``."""
    return req.options["p"] * (1.0 - g)


def _insq_factor(T, n=DEPTH):
    i = _positions(n)
    return ((i + 2.0 * T - 1.0) / (i + 2.0 * T)) ** 2


@_with_padded_tail(stops_at_k=False)
def nerr11(g, i, req):
    """NERR, equation 11: ``C_i = ((i + 2T - 1) / (i + 2T))^2 (1 - g_i)``."""
    T = req.options["T"]
    return ((i + 2.0 * T - 1.0) / (i + 2.0 * T)) ** 2 * (1.0 - g)


def inst(rc, req):
    """INST: ``C_i = ((i + T + T_i - 1) / (i + T + T_i))^2``, ``T_i = T - sum_{j<=i} g_j``.

    Past the ranked ``L`` positions (cwl_eval's padding, gain 0) the gain
    seen stays ``S``, so with ``a = 2T - S`` the chance of going on is
    ``((i + a - 1) / (i + a))^2``, whose running product telescopes: the
    padded position ``L + 1 + m`` is reached with the chance of the first
    times ``((L + a) / (L + m + a))^2``, and the padding's reaches sum to
    that chance times ``(L + a)^2 (psi'(L + a) - psi'(DEPTH + a))``
    (``psi'`` the trigamma function: the sum of ``1 / x^2`` over ``x = L +
    a, L + a + 1, ..``, :func:`_trigamma`). Only the ranked positions are
    made, a few rows at a time, in place."""
    T = req.options["T"]
    L = min(rc.L, _depth(rc, req))
    out = np.zeros(rc.n_rows)
    if L == 0:  # no gain anywhere: every term of the sum is 0
        return out, None
    mean = rc.mean(req.gain_key)
    base = _positions(L) + 2.0 * T  # i + 2T
    down = many_rows((rc.n_rows, L))
    step = max(ROWS_AT_ONCE, _CELLS_DOWN // L) if down else ROWS_AT_ONCE
    for a in range(0, rc.n_rows, step):
        b = min(a + step, rc.n_rows)
        g = mean[a:b, :L]
        if down:
            num, den, x, c_last, reach_last = _inst_down(g, base)
        else:
            num, den, x, c_last, reach_last = _inst_rows(g, base)
        if L < DEPTH:  # x = L + a
            den += reach_last * c_last * (x * x * _trigamma_span(x, DEPTH - L))
        out[a:b] = num / den
    return out, None


_CELLS_DOWN = DOWN_CELLS  # (:data:`~..._utils.fast.DOWN_CELLS`)


def _inst_rows(g, base):
    """INST's sums over the ranked positions of rows ``g`` (gains, a row
    each), and what the padding's sum reads: ``(sum reach * g, sum reach,
    L + a, the last C, the last reach)``. Made in place, row by row."""
    g = np.ascontiguousarray(g, dtype=np.float64)
    left = np.cumsum(g, axis=1)
    np.subtract(base, left, out=left)  # i + 2T - S_i
    c = np.reciprocal(left)  # C_i = ((left - 1) / left)^2 = (1 - 1 / left)^2
    np.subtract(1.0, c, out=c)
    np.square(c, out=c)
    reach = np.empty_like(g)
    reach[:, 0] = 1.0
    np.cumprod(c[:, :-1], axis=1, out=reach[:, 1:])
    return (np.einsum("ij,ij->i", reach, g), reach.sum(axis=1), left[:, -1], c[:, -1],
            reach[:, -1])


def _inst_down(g, base):
    """:func:`_inst_rows` made down the positions of the transposed gains
    (vectors over the rows, :func:`accumulate_down`: NumPy's running sums
    and products along a row cost about 4 ns an entry), for many rows
    (:func:`many_rows`). The running sums and products take the same
    order; the sums over the positions another (to rounding)."""
    gd = np.ascontiguousarray(g.T, dtype=np.float64)  # (L, rows)
    left = accumulate_down(gd.copy())
    np.subtract(base[:, None], left, out=left)
    c = np.reciprocal(left)
    np.subtract(1.0, c, out=c)
    np.square(c, out=c)
    reach = np.empty_like(gd)
    reach[0] = 1.0
    reach[1:] = c[:-1]
    accumulate_down(reach, np.multiply)
    return (np.einsum("ij,ij->j", reach, gd), reach.sum(axis=0), left[-1], c[-1], reach[-1])


#: From this argument on, :func:`_trigamma` sums its asymptotic series; below,
#: it steps up by the recurrence ``psi'(x) = psi'(x + 1) + 1 / x^2``.
_TRIGAMMA_SERIES_FROM = 20.0

#: The series' coefficients of ``x**-(2k + 1)`` past ``1/x + 1/(2 x^2)``:
#: the Bernoulli numbers ``B_2k`` (enough for 1e-16 from x = 20 on).
_TRIGAMMA_B = (1.0 / 6.0, -1.0 / 30.0, 1.0 / 42.0, -1.0 / 30.0, 5.0 / 66.0,
               -691.0 / 2730.0, 7.0 / 6.0)


def _trigamma(x):
    """``psi'(x)`` for ``x > 0`` (an array): the asymptotic series ``1/x +
    1/(2x^2) + sum_k B_2k / x^(2k+1)`` from :data:`_TRIGAMMA_SERIES_FROM` on,
    reached from below by the recurrence; within 1e-15 of
    ``scipy.special.polygamma(1, x)`` (about a tenth of its time)."""
    x = np.array(x, dtype=np.float64)
    extra = np.zeros_like(x)
    low = flatnonzero(x < _TRIGAMMA_SERIES_FROM)
    while low.size:
        v = x[low]
        extra[low] += 1.0 / (v * v)
        x[low] = v + 1.0
        low = low[v + 1.0 < _TRIGAMMA_SERIES_FROM]
    r = 1.0 / x
    r2 = r * r
    series = np.full_like(x, _TRIGAMMA_B[-1])
    for b in _TRIGAMMA_B[-2::-1]:
        series *= r2
        series += b
    series *= r2 * r
    series += r * (1.0 + 0.5 * r)
    return series + extra


def _trigamma_span(x, m):
    """``psi'(x) - psi'(x + m)``: the sum of ``1 / y^2`` over ``y = x, x + 1,
    .., x + m - 1``."""
    return _trigamma(x) - _trigamma(x + m)


def _fixed_weights(rc, req, reach):
    """``sum_i W_i E[g_i]`` for weights that depend on the position alone.

    Whole rows ranked with ties (a few tie groups a row: integer scores)
    take one term per group: a group of ``m`` items from ``s`` with gain
    ``G`` gains ``G / m`` at each of its positions, so it adds ``G / m``
    times its positions' weights, a difference of their running sums
    (taken in extended precision)."""
    L = min(rc.L, reach.shape[0])  # past the ranking every gain is 0
    w = reach / reach.sum()
    groups = whole_row_groups(rc)
    if groups is None:
        return rc.mean(req.gain_key)[:, :L] @ w[:L], None
    Wc = np.zeros(rc.L + 1, dtype=np.longdouble)  # Wc[p]: weights of positions < p
    np.cumsum(w[:L], dtype=np.longdouble, out=Wc[1:L + 1])
    Wc[L + 1:] = Wc[L]
    s = groups.start
    span = (np.take(Wc, s + groups.size) - np.take(Wc, s)).astype(np.float64)
    term = groups.sums[req.gain_key] / groups.size * span
    return np.bincount(groups.row, weights=term, minlength=rc.n_rows), None


def insq(rc, req):
    """INSQ: ``C_i = ((i + 2T - 1) / (i + 2T))^2``, whatever the gains."""
    reach = np.ones(DEPTH)
    np.cumprod(_insq_factor(req.options["T"])[:-1], out=reach[1:])
    return _fixed_weights(rc, req, reach)


def sdcg(rc, req):
    """Scaled DCG: ``W_i`` proportional to ``1 / log2(i + 1)`` down to k."""
    return _fixed_weights(rc, req, 1.0 / np.log2(_positions(_depth(rc, req)) + 1.0))


def bpm(rc, req):
    """BPM (static): the mean gain of the positions down to the first where the
    gain seen reaches ``T``, or to k."""
    n = _depth(rc, req)
    L = min(rc.L, n)
    if L and many_rows((rc.n_rows, L)):
        return _bpm_down(rc.mean(req.gain_key)[:, :L], req.options["T"], n), None
    cum = np.cumsum(rc.mean(req.gain_key)[:, :L], axis=1)
    reached = cum >= req.options["T"]
    # Past the ranking the gain stays where it is: T is reached there or never.
    first = np.where(reached.any(axis=1), reached.argmax(axis=1) + 1, n)
    m = np.minimum(first, n)
    total = cum[np.arange(rc.n_rows), np.minimum(m, L) - 1] if L else np.zeros(rc.n_rows)
    return total / m, None


def _bpm_down(gains, T, n):
    """BPM of many rows (:func:`many_rows`) made down the positions of the
    transposed gains: the running gain as vectors over the rows. The gains
    are >= 0 (scaled levels), so the running gain never falls and the first
    position where it reaches ``T`` follows the positions below it."""
    n_rows, L = gains.shape
    out = np.empty(n_rows)
    step = max(ROWS_AT_ONCE, _CELLS_DOWN // L)
    for a in range(0, n_rows, step):
        b = min(a + step, n_rows)
        cum = accumulate_down(np.array(gains[a:b].T, dtype=np.float64, order="C"))  # a copy
        below = np.count_nonzero(cum < T, axis=0)
        # Past the ranking the gain stays where it is: T is reached there or never.
        m = np.minimum(np.where(below < L, below + 1, n), n)
        out[a:b] = cum[np.minimum(m, L) - 1, np.arange(b - a)] / m
    return out
