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

#: The ranking depth of cwl_eval (its ``max_n``, which ir_measures keeps).
DEPTH = 1000


class LevelScale:
    """C/W/L's gain of a level: clipped to ``[min_rel, max_rel]``, scaled to [0, 1].

    A negative level counts as 0 first (ir_measures' cwl_eval provider does so,
    as trec_eval does).
    """

    #: Level 0 is worth 0 (``min_rel >= 0``): unjudged items need no mask.
    zero_at_zero = True

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


#: Rows of one (rows x DEPTH) array: a block of many short rankings would
#: otherwise hold rows x 1000 floats (8 MiB per array here).
ROWS_AT_ONCE = 1 << 10


def _in_slices(measure):
    """``measure(g) -> values`` on the gains of the first DEPTH positions, a
    slice of rows at a time (``ROWS_AT_ONCE``), as a kernel."""

    def kernel(rc, req):
        n = _depth(rc, req)
        L = min(rc.L, n)
        mean = rc.mean(req.gain_key)
        out = np.empty(rc.n_rows)
        for a in range(0, rc.n_rows, ROWS_AT_ONCE):
            b = min(a + ROWS_AT_ONCE, rc.n_rows)
            g = np.zeros((b - a, DEPTH))
            g[:, :L] = mean[a:b, :L]
            out[a:b] = measure(g, req)
        return out, None

    kernel.__doc__ = measure.__doc__
    kernel.__name__ = measure.__name__
    return kernel


def _positions(n):
    return np.arange(1.0, n + 1.0)


def _expected_gain(g, cont):
    """``sum_i W_i g_i`` with ``W_i`` proportional to ``prod_{j<i} C_j``."""
    reach = np.ones_like(g)
    np.cumprod(cont[:, :-1], axis=1, out=reach[:, 1:])
    return (reach * g).sum(axis=1) / reach.sum(axis=1)


def _stop_after(cont, k):
    """The user stops at position ``k`` at the latest (C_i = 0 from i = k)."""
    if k is not None and k <= cont.shape[1]:
        cont[:, k - 1 :] = 0.0
    return cont


@_in_slices
def nerr8(g, req):
    """NERR, equation 8: ``C_i = 1 - g_i``, stopping at k."""
    return _expected_gain(g, _stop_after(1.0 - g, req.k))


@_in_slices
def nerr9(g, req):
    """NERR, equation 9: ``C_i = i / (i + 1) (1 - g_i)``, stopping at k."""
    i = _positions(DEPTH)
    return _expected_gain(g, _stop_after(i / (i + 1.0) * (1.0 - g), req.k))


@_in_slices
def nerr10(g, req):
    """NERR, equation 10: ``C_i = p (1 - g_i)``."""
    return _expected_gain(g, req.options["p"] * (1.0 - g))


def _insq_factor(T, n=DEPTH):
    i = _positions(n)
    return ((i + 2.0 * T - 1.0) / (i + 2.0 * T)) ** 2


@_in_slices
def nerr11(g, req):
    """NERR, equation 11: ``C_i = ((i + 2T - 1) / (i + 2T))^2 (1 - g_i)``."""
    return _expected_gain(g, _insq_factor(req.options["T"]) * (1.0 - g))


@_in_slices
def inst(g, req):
    """INST: ``C_i = ((i + T + T_i - 1) / (i + T + T_i))^2``, ``T_i = T - sum_{j<=i} g_j``."""
    left = _positions(DEPTH) + 2.0 * req.options["T"] - np.cumsum(g, axis=1)
    return _expected_gain(g, ((left - 1.0) / left) ** 2)


def _fixed_weights(rc, req, reach):
    """``sum_i W_i E[g_i]`` for weights that depend on the position alone."""
    L = min(rc.L, reach.shape[0])  # past the ranking every gain is 0
    return rc.mean(req.gain_key)[:, :L] @ (reach / reach.sum())[:L], None


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
    cum = np.cumsum(rc.mean(req.gain_key)[:, :L], axis=1)
    reached = cum >= req.options["T"]
    # Past the ranking the gain stays where it is: T is reached there or never.
    first = np.where(reached.any(axis=1), reached.argmax(axis=1) + 1, n)
    m = np.minimum(first, n)
    total = cum[np.arange(rc.n_rows), np.minimum(m, L) - 1] if L else np.zeros(rc.n_rows)
    return total / m, None
