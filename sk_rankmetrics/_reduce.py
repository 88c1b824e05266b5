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


def weighted_mean(values, weights, skipped):
    """Mean of ``values`` over rows not ``skipped``, weighted by ``weights``."""
    keep = ~skipped
    if not keep.any():
        warn(
            "every row was skipped (no row has a relevant item); the score is NaN.",
            UndefinedMetricWarning,
        )
        return float("nan")
    v = values[keep]
    if weights is None:
        return float(np.average(v))
    w = weights[keep]
    if w.sum() <= 0:
        raise ValueError(
            "sample_weight sums to zero over the rows that count; at least one "
            "weight must be positive."
        )
    return float(np.average(v, weights=w))


def reduce_results(raw, requests, policy, weights):
    """Apply the policy to every request's per-row values and average them.

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
        per_row[req.label] = values
        means[req.label] = weighted_mean(values, weights, skipped)
    return per_row, means
