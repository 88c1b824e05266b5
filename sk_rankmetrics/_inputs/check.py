"""The one entry of the layouts: arrays in, a layout out."""

from __future__ import annotations

import scipy.sparse as sp

from .._utils.arrays import (
    as_numeric_array,
    check_judged,
)
from .dense import DenseInputs
from .long import _check_long


def check_inputs(y_true, y_score, qid=None, judged=None, *, part=False):
    """Validate ``y_true`` / ``y_score`` (and ``qid``, ``judged``) and return their layout.

    ``part=True`` reads them as one batch of a larger whole (the accumulator's
    updates): the checks that concern the whole (at least one query, some
    query of two items or more) are left to the caller, and an empty batch
    gives None once its shapes are checked."""
    if qid is not None:
        return _check_long(y_true, y_score, qid, judged, part=part)
    yt = as_numeric_array(y_true, "y_true", allow_sparse=True)
    ys = as_numeric_array(y_score, "y_score")
    for arg, v in (("y_true", yt), ("y_score", ys)):
        if v.ndim == 1:
            raise ValueError(
                f"{arg} is 1-D (shape {v.shape}), but a 2-D matrix of shape (n_rows, "
                "n_items) is needed: one row per query, one column per item. For "
                "long format (one entry per query-item pair) pass qid=...; for a "
                f"single ranking pass {arg}.reshape(1, -1); to score a classifier "
                "trained on 1-D class labels, use sk_rankmetrics.get_scorer(...), "
                "which binarises the labels against the estimator's classes_."
            )
        if v.ndim != 2:
            raise ValueError(
                f"{arg} must be 2-D of shape (n_rows, n_items), got {v.ndim} "
                f"dimensions (shape {v.shape})."
            )
    if yt.shape[0] != ys.shape[0]:
        raise ValueError(
            f"y_true and y_score have different numbers of rows: {yt.shape[0]} and "
            f"{ys.shape[0]} (shapes {yt.shape} and {ys.shape}); they must match."
        )
    if yt.shape[1] != ys.shape[1]:
        raise ValueError(
            f"y_true and y_score have different numbers of items (columns): "
            f"{yt.shape[1]} and {ys.shape[1]} (shapes {yt.shape} and {ys.shape}); "
            "they must match."
        )
    if yt.shape[0] == 0:
        if part:
            check_judged(judged, yt.shape)
            return None
        raise ValueError("y_true and y_score have no rows; at least one is needed.")
    if yt.shape[1] < (1 if part else 2):
        raise ValueError(
            f"y_true has {yt.shape[1]} item per row; ranking metrics are only "
            "meaningful with at least 2 items per row."
        )
    judged = check_judged(judged, yt.shape)
    if judged is not None and sp.issparse(yt):
        yt = yt.tocsr()
    return DenseInputs(yt, ys, judged)
