"""Order kernels: how the ranking's order agrees with the ideal one (Compat, Accuracy).

Both read each ranked item on its own (tie groups of one) and refuse ties.
"""

from __future__ import annotations

import numpy as np

from ..._utils.fast import nonzero_2d
from . import _cut, ranges_from_counts
from .gain_curves import _gain_levels


class PositiveLevel:
    """The gain of Compat's ideal: the level where it is positive, else 0."""

    key = "positive-level"
    zero_at_zero = True

    def __call__(self, rel):
        return np.maximum(np.asarray(rel, dtype=np.float64), 0.0)

    def __eq__(self, other):
        return isinstance(other, PositiveLevel)

    def __hash__(self):
        return hash(self.key)


def _ideal_positions(rc, key, g, n):
    """0-based place in the ideal ordering of each ranked item of positive gain.

    The ideal puts the items of positive gain by gain, best first, and the
    ranked ones of a gain before the unranked ones, in their ranked order. The
    place of a ranked item of gain ``v`` is the number of the row's items with
    a larger gain, plus the ranked items of gain ``v`` above it.
    """
    levels = _gain_levels(rc, key)
    rows, cols = nonzero_2d((g > 0) & (np.arange(g.shape[1]) < n[:, None]))
    values = g[rows, cols]
    # One integer code per gain (the level's or an item's), then a key that
    # sorts as the levels do: by row, the best gain first.
    u = np.unique(np.concatenate((levels.gain, values)))
    span = u.shape[0]
    level_key = levels.rows * span + (span - 1 - np.searchsorted(u, levels.gain))
    item_key = rows * span + (span - 1 - np.searchsorted(u, values))
    at = np.searchsorted(level_key, item_key)
    above = levels.begin[at]
    # Ranked items of the same row and gain, counted in ranked order.
    order = np.lexsort((cols, item_key))
    _, counts = np.unique(item_key[order], return_counts=True)
    rank = np.empty(order.shape[0], dtype=np.int64)
    rank[order] = ranges_from_counts(counts)
    return rows, cols, above + rank


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
    P = rc.totals["pos:" + req.gain_key].astype(np.int64)
    D = np.maximum(n, P)
    i = np.arange(int(D.max(initial=0)) + 1, dtype=np.float64)
    weight = p**i
    W = np.concatenate(([0.0], np.cumsum(weight / (i + 1.0))))
    S = np.concatenate(([0.0], np.cumsum(weight)))
    rows, cols, ideal = _ideal_positions(rc, req.gain_key, g, n)
    deepest = np.maximum(cols, ideal)
    overlap = np.bincount(rows, weights=W[D[rows]] - W[deepest], minlength=rc.n_rows)
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
