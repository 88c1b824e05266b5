"""evaluate_requests: the one path from user arrays to metric values (backend,
inputs, the ranking pass, the reduction), shared by every public entry."""

from __future__ import annotations

from collections.abc import Sequence

from .._inputs.check import check_inputs
from .._metrics.requests import Request
from .._utils.arrays import check_sample_weight
from .._utils.backends import backend_for
from .._utils.errors import InvalidParameterError
from .._utils.types import ArrayLike, NoRelevant, Score
from .engine import compute as engine_compute
from .reduce import reduce_results


def evaluate_requests(
    y_true: ArrayLike,
    y_score: ArrayLike,
    requests: Sequence[Request],
    *,
    sample_weight: ArrayLike | None,
    ignore_ties: bool,
    no_relevant: NoRelevant,
    qid: ArrayLike | None,
    per_row: bool,
    judged: ArrayLike | None = None,
    compute: bool = True,
    exclude: ArrayLike | None = None,
    where: str = "evaluate",
) -> dict[str, Score]:
    """Every request on one input, in one ranking pass: per-row values or means.

    The entry the public functions, :func:`evaluate`, the scorers and the
    Displays share; a registered backend (Dask) takes its own collections.
    """
    if exclude is not None and qid is not None:
        raise InvalidParameterError(
            f"{where}: exclude marks items of (n_rows, n_items) matrices, but with qid "
            "y_true and y_score are in long format (one entry per query-item pair); there, "
            "leave the excluded pairs out of y_true, y_score and qid (and sample_weight, "
            "judged) instead of passing exclude."
        )
    backend = backend_for(y_true, y_score, qid, sample_weight, judged, exclude)
    if backend is not None:
        return backend.evaluate_arrays(
            y_true,
            y_score,
            requests,
            sample_weight=sample_weight,
            ignore_ties=ignore_ties,
            no_relevant=no_relevant,
            qid=qid,
            per_row=per_row,
            judged=judged,
            compute=compute,
            exclude=exclude,
            where=where,
        )
    inputs = check_inputs(y_true, y_score, qid, judged)
    if exclude is not None:
        inputs.exclude_items(exclude, where)
    if qid is None:
        weights = check_sample_weight(sample_weight, inputs.n_rows)
    else:
        weights = inputs.query_weights(sample_weight)
    raw = engine_compute(inputs, requests, ignore_ties=ignore_ties)
    values, means = reduce_results(raw, requests, no_relevant, weights)
    return values if per_row else means
