"""The beyond-accuracy measures of score matrices: each row's top k by score.

The columns are the catalogue (items ``0..n_items-1``); a row's list is its
``k`` best-scored columns, best first.
"""

from __future__ import annotations

import numpy as np

from .._ranking.select import later_first, select_top
from .._utils.arrays import MASK_BY_EXCLUDE, as_numeric_array, check_finite, refuse_first
from .._utils.backends import backend_for
from .._utils.errors import InvalidParameterError
from .measures import compute, in_order, make_requests


def top_columns(y_score, k, ignore_ties, label):
    """``(lengths, flat column ids)`` of each row's ``k`` best columns.

    The columns are ranked by score, then by column, both descending (the
    order ``ignore_ties=True`` ranks: of tied scores the later column
    first), so that a row's top ``k`` is a prefix of its whole ranking;
    without ``ignore_ties``, a tie across the cut-off (the k-th best score
    also just outside the top k) raises, since the row's top k is then not
    one set of items. ``y_score`` is float64; ``-inf`` marks an excluded
    item, never listed.
    """
    n, m = y_score.shape
    k = m if k is None else min(k, m)
    y_score = np.ascontiguousarray(y_score)
    base = (np.arange(n) * m)[:, None]
    if k < m and n:
        top, below, _ = select_top(y_score, k, later=True)
    else:
        top, below = np.broadcast_to(np.arange(m), (n, m)) + base, None
    top, vals = later_first(top, np.take(y_score.reshape(-1), top))
    if below is not None and not ignore_ties:
        kth = vals[:, -1]
        tied = (below == kth) & np.isfinite(kth)
        refuse_first(tied, lambda r: (
            f"evaluate: {label}: row {r} has tied scores across the cut-off {k} (score "
            f"{float(kth[r])!r} inside and outside its top {k}), so its top {k} is not one "
            "set of items; break the ties or pass ignore_ties=True (of tied scores, the "
            "later column first)."))
    keep = np.isfinite(vals)  # -inf: an excluded item
    return keep.sum(axis=1).astype(np.int64), (top - base)[keep]


def evaluate_matrix(y_true, y_score, beyond, data, *, ignore_ties, no_relevant,
                    threshold=None, exclude=None):
    """``(per-row values, values)`` of the beyond-accuracy names ``beyond`` on a
    score matrix whose columns are the catalogue; ``data`` (a
    :class:`BeyondData` without ``items``) holds the popularity, the item
    features and the head share."""
    s = as_numeric_array(y_score, "y_score")
    if s.ndim != 2:
        raise InvalidParameterError(
            "evaluate: beyond-accuracy measures need y_score as a matrix (one row per "
            f"user, one column per item of the catalogue), got {s.ndim} dimension(s)."
        )
    check_finite(s, "y_score", masked=MASK_BY_EXCLUDE)
    s = s.astype(np.float64, copy=True)
    if exclude is not None:  # not candidates of their row: never in its top k
        ex = exclude.toarray() if hasattr(exclude, "toarray") else np.asarray(exclude)
        if ex.shape != s.shape:
            raise InvalidParameterError(
                f"exclude must have the shape of y_score {s.shape}, got {ex.shape}."
            )
        s[ex.astype(bool)] = -np.inf
    requests = make_requests(beyond, where="evaluate")
    data = data.with_items(np.arange(s.shape[1]))
    users = np.arange(s.shape[0])
    per_row, value = {}, {}
    for k in dict.fromkeys(r.k for r in requests):
        mine = [r for r in requests if r.k == k]
        lens, flat = top_columns(s, k, ignore_ties, mine[0].label)
        relevant = None
        if any(r.name == "serendipity" for r in mine):
            y = as_numeric_array(y_true, "y_true", allow_sparse=True)
            y = y.toarray() if hasattr(y, "toarray") else np.asarray(y)
            if y.shape != s.shape:
                raise InvalidParameterError(
                    f"y_true and y_score must have one shape, got {y.shape} and {s.shape}."
                )
            got = y[np.repeat(users, lens), flat]
            relevant = got > 0 if threshold is None else got >= threshold
        p, v = compute(
            mine, users, lens, flat, data, relevant=relevant, no_relevant=no_relevant, checked=True
        )
        per_row.update(p)
        value.update(v)
    return per_row, value


def with_beyond(out, beyond, order, y_true, y_score, data, *, sample_weight, qid, per_row,
                ignore_ties, no_relevant, exclude):
    """:func:`evaluate`'s result ``out`` with the beyond-accuracy names
    ``beyond`` added (per-row values too with ``per_row``), in the order asked."""
    if not beyond:
        return out
    if qid is not None or sample_weight is not None or backend_for(y_true, y_score):
        raise InvalidParameterError(
            "evaluate: the beyond-accuracy measures take in-memory matrices (one row per "
            "user, one column per item), without qid or sample_weight."
        )
    rows, values = evaluate_matrix(y_true, y_score, beyond, data, ignore_ties=ignore_ties,
                                   no_relevant=no_relevant, exclude=exclude)
    return in_order({**out, **({**values, **rows} if per_row else values)}, order)
