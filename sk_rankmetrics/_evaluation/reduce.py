"""Per-row values -> one number: the no-relevant policy and the weighted mean."""

from __future__ import annotations

import numpy as np

from .._utils.errors import UndefinedRows, warn_undefined
from .._utils.policy import policy_values


def apply_policy(values, defined, policy, label):
    """Return per-row values with undefined rows replaced (NaN where skipped)."""
    if defined.all():
        return values
    values = values.copy()
    if policy == "warn":
        warn_undefined(UndefinedRows(label, int((~defined).sum()), defined.size))
        values[~defined] = 0.0
    elif policy == "skip":
        values[~defined] = np.nan
    else:
        values[~defined] = policy
    return values


#: trec_eval's MIN_GEO_MEAN: the floor of a value in a geometric mean.
MIN_GEO_MEAN = 1e-5


def weighted_mean(values, weights, skipped, how="mean", label="the metric"):
    """Combine the rows that are not ``skipped``, weighted by ``weights``.

    ``how``: ``"mean"`` (the arithmetic mean), ``"geometric"`` (the geometric
    mean of ``max(value, 1e-5)``, as trec_eval's gm_map) or ``"sum"``.
    ``label`` names the metric in the warning when every row is skipped.
    """
    keep = ~skipped
    if not keep.any():
        warn_undefined(UndefinedRows(label, int(skipped.size), int(skipped.size),
                                     skipped_all=True))
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


def policy_of(req, policy):
    """The ``no_relevant`` policy of one request: None for a metric it does not
    apply to, the one the metric's name fixes (``req.no_relevant``), else
    the caller's ``policy``."""
    if not req.spec.normalized:
        return None
    fixed = getattr(req, "no_relevant", None)
    return policy if fixed is None else fixed


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
            own = policy_of(req, policy)
            values = apply_policy(values, defined, own, req.label)
            if own == "skip":
                skipped = ~defined
        how = "sum" if req.spec.aggregate == "sum" else (
            "geometric" if req.options.get("mean") == "geometric" else "mean")
        per_row[req.label] = values
        means[req.label] = weighted_mean(values, weights, skipped, how, req.label)
    return per_row, means


# -- the same reduction in a tree (Dask partitions) ---------------------------------
#
# A block of rows contributes a fixed set of sums to each metric's result; sums of
# blocks combine in any grouping, so a distributed reduction never gathers the
# per-row values. Weighted sums are kept relative to the largest weight seen
# (``top``), as :func:`weighted_mean` divides by it, so weights near the float64
# limit give a number rather than an overflow.

#: The sums one block of rows contributes to one metric (see :func:`partial`).
PARTIAL_FIELDS = ("rows", "undefined", "kept", "top", "w", "wv", "wlog", "sum")


def partial(values, defined, weights, policy, how):
    """One block's sums for one metric: an array over :data:`PARTIAL_FIELDS`.

    ``values`` are the clipped per-row values, ``defined`` the rows that have
    a relevant item, ``policy`` the ``no_relevant`` policy (None when it does
    not apply), ``weights`` the per-row weights (None: all 1).
    """
    out = np.zeros(len(PARTIAL_FIELDS))
    n = values.shape[0]
    out[0] = n
    if policy is not None:
        out[1] = n - int(np.count_nonzero(defined))
    v, skipped = policy_values(values, defined, policy)
    keep = ~skipped
    v = v[keep]
    w = np.ones(v.shape[0]) if weights is None else weights[keep]
    out[2] = v.shape[0]
    if v.shape[0] == 0:
        return out
    if how == "sum":
        with np.errstate(over="ignore", invalid="ignore"):
            out[7] = v @ w
        return out
    top = w.max()
    out[3] = top
    if top > 0:
        w = w / top
        out[4] = w.sum()
        out[5] = w @ v
        if how == "geometric":
            with np.errstate(invalid="ignore"):
                out[6] = w @ np.log(np.maximum(v, MIN_GEO_MEAN))
    return out


def combine(parts):
    """Combine blocks' sums (rows of ``parts``, one metric) into one block's."""
    parts = np.asarray(parts, dtype=np.float64).reshape(-1, len(PARTIAL_FIELDS))
    out = parts[:, :3].sum(axis=0).tolist()
    top = parts[:, 3].max() if parts.shape[0] else 0.0
    scale = parts[:, 3] / top if top > 0 else np.zeros(parts.shape[0])
    scaled = (parts[:, 4:7] * scale[:, None]).sum(axis=0).tolist()
    with np.errstate(over="ignore", invalid="ignore"):
        total = parts[:, 7].sum()
    return np.array([*out, top, *scaled, total])


def finish(part, label, policy, how):
    """The metric's value from the combined sums, with :func:`reduce_results`'
    warnings and errors."""
    rows, undefined, kept, top, w, wv, wlog, total = (float(x) for x in part)
    if policy == "warn" and undefined:
        warn_undefined(UndefinedRows(label, int(undefined), int(rows)))
    if not kept:
        warn_undefined(UndefinedRows(label, int(rows), int(rows), skipped_all=True))
        return float("nan")
    if how == "sum":
        if not np.isfinite(total):
            raise ValueError("the weighted sum overflows float64; rescale sample_weight.")
        return float(total)
    if top <= 0:
        raise ValueError(
            "sample_weight sums to zero over the rows that count; at least one "
            "weight must be positive."
        )
    if how == "geometric":
        return float(np.exp(wlog / w))
    return float(wv / w)


def how_of(req):
    """How a request's rows combine: ``"mean"``, ``"geometric"`` or ``"sum"``."""
    if req.spec.aggregate == "sum":
        return "sum"
    return "geometric" if req.options.get("mean") == "geometric" else "mean"
