"""The one step from a layout to a result, shared by every entry point:
:func:`layout_values` (the engine, with progress and the thread limits, the BLAS
share of layouts that multiply matrices included), :func:`score_layout` (then
the reduction and the :class:`EvaluationResult`), :func:`evaluate_requests`
(user arrays to metric values: backend, inputs, that step), and
:func:`beyond_result` (a result with the beyond-accuracy measures of ranked lists
added: evaluate_ranked, evaluate_embeddings, the command line)."""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Any

import numpy as np

from .._beyond.lists import beyond_measures
from .._beyond.measures import in_order
from .._inputs.check import check_inputs
from .._metrics.requests import Request
from .._utils.arrays import check_sample_weight
from .._utils.backends import backend_for
from .._utils.errors import InvalidParameterError
from .._utils.threads import N_THREADS
from .._utils.types import ArrayLike, NoRelevant, Score
from .engine import PARALLEL_MIN_ELEMENTS
from .engine import compute as engine_compute
from .reduce import reduce_results
from .result import EvaluationResult


def layout_values(inputs: Any, requests: Sequence[Request], *, ignore_ties: bool,
                  progress: Any = None, blas: bool = False) -> dict[str, Any]:
    """Per-row values and defined-masks of every request over a layout.

    ``blas``: the layout multiplies matrices while it ranks (the catalogue's
    factors); on a large input the engine's threads then each take their share
    of the cores for BLAS, so that the products and the ranking of different
    blocks overlap instead of every product claiming every core.
    """
    if blas and N_THREADS > 1 and inputs.n_rows * inputs.n_cols >= PARALLEL_MIN_ELEMENTS:
        from threadpoolctl import threadpool_limits

        share = max(1, (os.cpu_count() or 1) // N_THREADS)
        with threadpool_limits(limits=share, user_api="blas"):
            return engine_compute(inputs, requests, ignore_ties=ignore_ties, progress=progress)
    return engine_compute(inputs, requests, ignore_ties=ignore_ties, progress=progress)


def score_layout(inputs: Any, requests: Sequence[Request], *, ignore_ties: bool,
                 no_relevant: Any, weights: Any = None, progress: Any = None,
                 order: Any = None, blas: bool = False, ids: Any = None) -> EvaluationResult:
    """:func:`layout_values`, reduced (``no_relevant``, ``weights``) into an
    :class:`EvaluationResult` keyed by ``ids`` (the layout's query ids when
    None), its rows taken in ``order`` (a permutation) when given."""
    raw = layout_values(inputs, requests, ignore_ties=ignore_ties, progress=progress,
                        blas=blas)
    per_query, mean = reduce_results(raw, requests, no_relevant, weights)
    ids = inputs.query_ids if ids is None else ids
    if order is not None:
        ids, per_query = ids[order], {k: v[order] for k, v in per_query.items()}
    return EvaluationResult(ids, per_query, mean)


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
    raw = layout_values(inputs, requests, ignore_ties=ignore_ties)
    values, means = reduce_results(raw, requests, no_relevant, weights)
    return values if per_row else means


def beyond_result(beyond, k, lists, truth, data, *, threshold, no_relevant, result=None,
                  order=None, where="evaluate_ranked"):
    """``result`` (an :class:`EvaluationResult` of the other metrics, or None)
    with the beyond-accuracy measures ``beyond`` added (:func:`beyond_measures`),
    in the order asked for (``order``: every name as given); ``where`` names the
    entry point in messages."""
    requests, per_user, value = beyond_measures(
        beyond, k, lists, truth, data, threshold=threshold, no_relevant=no_relevant,
        row_ids=None if result is None else result.query_ids, where=where)
    if result is None:
        result = EvaluationResult(np.asarray(lists.ids), {}, {})
    result.per_query.update(per_user)
    result.mean.update(value)
    if order is not None:
        result.mean = in_order(result.mean, order)
        result.per_query = in_order(result.per_query, order)
    result.whole_set = (*result.whole_set, *(r.label for r in requests if r.whole))
    return result
