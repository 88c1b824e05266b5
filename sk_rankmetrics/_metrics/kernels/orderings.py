"""Order kernels: how the ranking's order agrees with the ideal one (Compat, Accuracy).

Both read each ranked item on its own (tie groups of one) and refuse ties.
"""

from __future__ import annotations

import numpy as np

from ..._utils.fast import DOWN_CELLS, accumulate_down, many_rows
from . import _cut, ranges_from_counts, row_entries
from .gain_curves import _gain_levels


class PositiveLevel:
    """The gain of Compat's ideal: the level where it is positive, else 0."""

    key = "positive-level"
    zero_at_zero = True
    #: ``max(level, 0)`` never decreases with the level: the ideal's levels
    #: are counted, not sorted (:func:`~.gains._callable_gain`).
    _monotone_gain = True

    def __call__(self, rel):
        return np.maximum(np.asarray(rel, dtype=np.float64), 0.0)

    def __eq__(self, other):
        return isinstance(other, PositiveLevel)

    def __hash__(self):
        return hash(self.key)


def _ideal_positions(rc, key, g, n):
    """0-based place in the ideal ordering of each ranked item of positive gain:
    ``(rows, count, cols, place)``, the items row-major, ``count`` per row.

    The ideal puts the items of positive gain by gain, best first, and the
    ranked ones of a gain before the unranked ones, in their ranked order. The
    place of a ranked item of gain ``v`` is the number of the row's items with
    a larger gain, plus the ranked items of gain ``v`` above it.
    """
    levels = _gain_levels(rc, key)
    L = g.shape[1]
    mask = g > 0
    if (n < L).any():
        mask &= np.arange(L) < n[:, None]
    flat, rows, count = row_entries(mask)
    cols = flat - rows * L
    values = np.take(g.reshape(-1), flat)
    # Every ranked gain is one of its row's levels: a code for each, 0 the best.
    u = np.unique(levels.gain)
    span = u.shape[0]
    code = _code(u, values)
    level_code = _code(u, levels.gain)
    bits = max(int(L).bit_length(), 1)
    if span > _PACKED_BITS // bits or g.shape[0] * span > _TABLE_MOST:
        return rows, count, cols, _ideal_positions_sorted(levels, rows, cols, code,
                                                          level_code, span)
    # The items of a larger gain than the level's: its begin, by (row, code).
    table = np.zeros(g.shape[0] * span, dtype=np.int64)
    table[levels.rows * span + level_code] = levels.begin
    above = np.take(table, rows * span + code)
    # The ranked items of each gain above an item, all gains counted at once:
    # gain ``c`` counts in bits ``c * bits`` up (a row holds fewer than
    # ``2**bits`` of any), one running sum over the block, less its value at
    # the row's first item. The sum wraps past 64 bits over many rows; the
    # difference over one row is exact (modular), each field below its
    # ``2**bits``.
    shift = code.astype(np.int64) * bits
    inc = np.left_shift(np.int64(1), shift)
    before = np.cumsum(inc)
    before -= inc
    first = np.cumsum(count) - count
    before -= np.repeat(np.take(before, first[count > 0]), count[count > 0])
    rank = np.right_shift(before, shift)
    rank &= (1 << bits) - 1
    return rows, count, cols, above + rank


#: Above this share of positions of positive gain, Compat reads every
#: position of many rows, down the positions (:func:`_overlap_down`).
_DOWN_SHARE = 0.25
_CELLS_DOWN = DOWN_CELLS  # (:data:`~..._utils.fast.DOWN_CELLS`)


def _overlap_down(rc, key, g, n, WD, W):
    """Compat's overlap sums of many rows (:func:`many_rows`) where most
    positions hold a positive gain, made down the positions of the
    transposed gains, or None (few such positions, or gains too many to
    count in bit fields). The places in the ideal are those of
    :func:`_ideal_positions`: the items of larger gain (the level's begin)
    plus the ranked items of the same gain above, counted for every gain at
    once in the bit fields of one int64 running sum down each row (below
    ``2**62``, in int32 below ``2**30``: no field carries into the next).
    ``WD``: each row's ``W[D]``."""
    n_rows, L = g.shape
    if not many_rows((n_rows, L)):
        return None
    if np.count_nonzero(g > 0) <= _DOWN_SHARE * n_rows * L:
        return None
    levels = _gain_levels(rc, key)
    u = np.unique(levels.gain)
    span = u.shape[0]
    bits = max(int(L).bit_length(), 1)
    if span > _PACKED_BITS // bits or n_rows * span > _TABLE_MOST:
        return None
    # The fields in 32 bits where they fit (rows of 100, five levels: 28).
    word = np.int32 if span * bits <= 30 else np.int64
    table = np.zeros(n_rows * span, dtype=word)
    table[levels.rows * span + _code(u, levels.gain)] = levels.begin
    pos = np.arange(L)[:, None]
    padded = bool((n < L).any())
    out = np.empty(n_rows)
    step = max(1, _CELLS_DOWN // L)
    for a in range(0, n_rows, step):
        b = min(a + step, n_rows)
        gd = np.ascontiguousarray(g[a:b].T)  # (L, rows)
        mask = gd > 0
        if padded:
            mask &= pos < n[a:b]
        code = np.zeros(gd.shape, dtype=np.uint8)  # 0 the best gain (span <= 62)
        for v in u[1:]:
            np.add(code, gd < v, out=code)
        shift = code.astype(word)
        shift *= bits
        inc = np.left_shift(word(1), shift)
        inc *= mask
        before = accumulate_down(inc.copy())
        before -= inc
        rank = np.right_shift(before, shift)
        rank &= (1 << bits) - 1
        at = (np.arange(a, b, dtype=np.intp) * span)[None, :] + code
        rank += np.take(table, at)  # the place in the ideal
        np.maximum(rank, pos, out=rank)
        contrib = WD[a:b] - np.take(W, rank)
        contrib *= mask
        out[a:b] = contrib.sum(axis=0)
    return out


def _code(u, values):
    """The place of each of ``values`` among the gains ``u`` (sorted, holding
    them all), the largest first: the gains of ``u`` above it. A few
    comparisons when ``u`` holds few (integer levels), else a search."""
    if u.shape[0] > 8:
        return (u.shape[0] - 1) - np.searchsorted(u, values)
    code = np.zeros(values.shape[0], dtype=np.int64)
    for v in u[1:]:
        code += values < v
    return code


#: Bits of an int64 running sum that the counts of :func:`_ideal_positions`
#: share (its sign bit spared).
_PACKED_BITS = 62
#: The most (row, gain) cells of its table of the ideal's levels.
_TABLE_MOST = 1 << 24


def _ideal_positions_sorted(levels, rows, cols, code, level_code, span):
    """The places of :func:`_ideal_positions` when the gains are too many to
    count at once (real-valued gains): the items sorted by (row, gain)."""
    level_key = levels.rows * span + level_code
    item_key = rows * span + code
    above = levels.begin[np.searchsorted(level_key, item_key)]
    # Ranked items of the same row and gain, counted in ranked order.
    order = np.lexsort((cols, item_key))
    _, counts = np.unique(item_key[order], return_counts=True)
    rank = np.empty(order.shape[0], dtype=np.int64)
    rank[order] = ranges_from_counts(counts)
    return above + rank


def compat(rc, req):
    """Compatibility (Clarke, Vtyurina and Smucker 2021): rank-biased overlap of
    the ranking with the ideal ordering, normalised by the ideal's own.

    ``RBO = sum_{i<D} p^i |R_{i+1} & I_{i+1}| / (i + 1) / sum_{i<D} p^i`` over
    ``D = max(ranked, P)`` positions, ``P`` the items of positive level. A ranked
    item at place ``a`` that is at place ``b`` of the ideal is in both prefixes
    from depth ``max(a, b) + 1`` on, so the overlap sum is
    ``sum_items (W[D] - W[max(a, b)])`` with ``W[j] = sum_{i<j} p^i / (i + 1)``.
    """
    p = req.options["p"]
    n = rc.n_ranked.astype(np.int64)
    g = rc.mean(req.gain_key)
    # The items of positive level: the ideal's (counted with its levels, where
    # the row totals would derive the gain at every entry of the block).
    P = _gain_levels(rc, req.gain_key).P.astype(np.int64)
    D = np.maximum(n, P)
    i = np.arange(int(D.max(initial=0)) + 1, dtype=np.float64)
    weight = p**i
    W = np.concatenate(([0.0], np.cumsum(weight / (i + 1.0))))
    S = np.concatenate(([0.0], np.cumsum(weight)))
    overlap = _overlap_down(rc, req.gain_key, g, n, W[D], W)
    if overlap is None:
        rows, count, cols, ideal = _ideal_positions(rc, req.gain_key, g, n)
        deepest = np.maximum(cols, ideal, out=ideal)
        overlap = np.bincount(rows, weights=np.repeat(W[D], count) - np.take(W, deepest),
                              minlength=rc.n_rows)
    value = overlap / np.where(D > 0, S[D], 1.0)
    if req.options["normalize"]:
        best = (S[P] + P * (W[D] - W[P])) / np.where(D > 0, S[D], 1.0)
        value = np.where(best > 0, value / np.where(best > 0, best, 1.0), value)
    return value, P > 0


def accuracy(rc, req):
    """Share of the (relevant, non-relevant) pairs of the top k that the ranking
    orders right: ``1 - sum_j nonrel_before(j) / (m N)`` over the ``m`` relevant
    items ``j`` of the top k, ``N`` its non-relevant items (unjudged ones
    included). Undefined (the ``no_relevant`` policy) without a relevant item
    in the top k, where ir_measures gives the query no value; 1 without a
    non-relevant one (ir_measures divides by zero there)."""
    kc = _cut(rc, req.k)
    real = np.arange(kc) < rc.n_ranked[:, None]
    rel = rc.mean(req.rel_key)[:, :kc] * real
    non = real - rel
    m, N = rel.sum(axis=1), non.sum(axis=1)
    wrong = (rel * (np.cumsum(non, axis=1) - non)).sum(axis=1)
    ok = (m > 0) & (N > 0)
    value = np.where(ok, 1.0 - wrong / np.where(ok, m * N, 1.0), np.where(m > 0, 1.0, 0.0))
    return value, m > 0
