"""Per-row values -> one number: the no-relevant policy and the weighted mean."""

from __future__ import annotations

import numpy as np
from sklearn.exceptions import UndefinedMetricWarning

from ._validation import warn


def apply_policy(values, defined, policy, label):
    """Return per-row values with undefined rows replaced (NaN where skipped)."""
    if defined.all():
        return values
    values = values.copy()
    if policy == "warn":
        n_bad = int((~defined).sum())
        warn(
            f"{label}: {n_bad} of {defined.size} rows have no relevant item; they "
            "score 0 and count in the mean. Set no_relevant='skip', 0.0, 1.0 or "
            "nan to choose (and silence this warning).",
            UndefinedMetricWarning,
        )
        values[~defined] = 0.0
    elif policy == "skip":
        values[~defined] = np.nan
    else:
        values[~defined] = policy
    return values


#: trec_eval's MIN_GEO_MEAN: the floor of a value in a geometric mean.
MIN_GEO_MEAN = 1e-5


def weighted_mean(values, weights, skipped, how="mean"):
    """Combine the rows that are not ``skipped``, weighted by ``weights``.

    ``how``: ``"mean"`` (the arithmetic mean), ``"geometric"`` (the geometric
    mean of ``max(value, 1e-5)``, as trec_eval's gm_map) or ``"sum"``.
    """
    keep = ~skipped
    if not keep.any():
        warn(
            "every row was skipped (no row has a relevant item); the score is NaN.",
            UndefinedMetricWarning,
        )
        return float("nan")
    v = values[keep]
    w = None if weights is None else weights[keep]
    if how == "sum":
        total = float(v.sum() if w is None else v @ w)
        if not np.isfinite(total) and np.isfinite(v).all():
            raise ValueError("the weighted sum overflows float64; rescale sample_weight.")
        return total
    if w is not None:
        top = w.max()
        if top <= 0:
            raise ValueError(
                "sample_weight sums to zero over the rows that count; at least one "
                "weight must be positive."
            )
        w = w / top  # the mean is unchanged; sums near 1e308 stay finite
    if how == "geometric":
        with np.errstate(invalid="ignore"):
            logs = np.log(np.maximum(v, MIN_GEO_MEAN))
        return float(np.exp(np.average(logs, weights=w)))
    return float(np.average(v, weights=w))


def reduce_results(raw, requests, policy, weights):
    """Apply the policy to every request's per-row values and combine them.

    Returns
    -------
    per_row : dict of label -> ndarray (NaN where a row is skipped)
    means : dict of label -> float
    """
    per_row, means = {}, {}
    for req in requests:
        values, defined = raw[req.label]
        skipped = np.zeros_like(defined)
        if req.spec.normalized:
            # Exact values lie in [0, 1]; rounding (a tie's mean gain against the
            # ideal's sum) can land an ulp outside, which a user must never see.
            np.clip(values, 0.0, 1.0, out=values)
            values = apply_policy(values, defined, policy, req.label)
            if policy == "skip":
                skipped = ~defined
        how = "sum" if req.spec.aggregate == "sum" else (
            "geometric" if req.options.get("mean") == "geometric" else "mean")
        per_row[req.label] = values
        means[req.label] = weighted_mean(values, weights, skipped, how)
    return per_row, means
