"""Set kernels: counts, set precision/recall/F/MAP, utility, rprec_mult."""

from __future__ import annotations

import numpy as np

from . import _at, _cumulative, _ranked_total, _safe_divide


def _ranked_sum(rc, key):
    return _ranked_total(rc, key)


def num_ret(rc, req):
    return rc.n_ranked.astype(np.float64), None


def num_rel(rc, req):
    return rc.totals[req.rel_key].astype(np.float64), None


def num_rel_ret(rc, req):
    return _ranked_sum(rc, req.rel_key), None


def num_nonrel_judged_ret(rc, req):
    return _ranked_sum(rc, "judged") - _ranked_sum(rc, req.rel_key), None


def num_q(rc, req):
    return np.ones(rc.n_rows), None


def _set_counts(rc, req):
    return (_ranked_sum(rc, req.rel_key), rc.n_ranked.astype(np.float64),
            rc.totals[req.rel_key])


def set_precision(rc, req):
    hits, ret, R = _set_counts(rc, req)
    return _safe_divide(hits, ret), R > 0


def set_recall(rc, req):
    hits, _, R = _set_counts(rc, req)
    return _safe_divide(hits, R), R > 0


def set_f(rc, req):
    hits, ret, R = _set_counts(rc, req)
    b2 = req.options["beta"] ** 2
    return _safe_divide((1.0 + b2) * hits, b2 * R + ret), R > 0


def set_map(rc, req):
    """``hits**2 / (ret R)``. Over a whole ranking the hits are fixed; when
    ``max_docs`` splits a tie group, the group's hits inside the cut are
    hypergeometric and ``E[hits**2]`` adds their variance."""
    hits, ret, R = _set_counts(rc, req)
    square = hits * hits
    if req.depth is not None and rc.tied and rc.L:  # (only max_docs cuts a group)
        last = rc.L - 1
        start, m = rc.start[:, last], rc.size[:, last].astype(np.float64)
        t = (rc.L - start).astype(np.float64)  # the group's items inside the cut
        r = rc.sums[req.rel_key][:, last]
        split = (t < m) & (m > 1)
        with np.errstate(divide="ignore", invalid="ignore"):
            var = np.where(split, t * (r / m) * (1 - r / m) * (m - t) / (m - 1), 0.0)
        square = square + var
    return _safe_divide(square, ret * R), R > 0


def set_relative_precision(rc, req):
    hits, ret, R = _set_counts(rc, req)
    return _safe_divide(hits, np.minimum(ret, R)), R > 0


def utility(rc, req):
    """``w1 a + w2 b + w3 c + w4 d`` of the contingency table of the ranked set."""
    hits, ret, R = _set_counts(rc, req)
    w1, w2, w3, w4 = req.options["payoffs"]
    missed_nonrel = req.options["n_docs"] + hits - ret - R
    return w1 * hits + w2 * (ret - hits) + w3 * (R - hits) + w4 * missed_nonrel, None


def rprec_mult(rc, req):
    """Precision at ``c = floor(x R + 0.9)`` (trec_eval's Rprec_mult)."""
    R = rc.totals[req.rel_key]
    cut = np.floor(req.options["multiple"] * R + 0.9)
    C = _cumulative(rc, req.rel_key)
    hits = _at(C, np.minimum(cut, rc.n_ranked))
    return _safe_divide(hits, cut), R > 0
