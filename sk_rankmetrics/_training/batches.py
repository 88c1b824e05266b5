"""One batch of predictions -> its per-query values, before any reduction.

The same steps as :func:`sk_rankmetrics.evaluate` (the input layouts, the
engine, then :func:`reduce_results`), split so that the per-query values of
several batches can be kept and reduced together later: the numbers are those
of one call on everything, by construction.
"""

from __future__ import annotations

import numpy as np

from .._evaluation.pipeline import layout_values
from .._inputs.check import check_inputs
from .._utils.arrays import check_sample_weight
from .._utils.constraints import check_param
from .._utils.errors import short_repr
from .._utils.params import param


def check_options(where, ignore_ties, no_relevant):
    """``ignore_ties`` and ``no_relevant``, checked as :func:`evaluate` checks them."""
    return (
        check_param("ignore_ties", ignore_ties, param("ignore_ties"), where),
        check_param("no_relevant", no_relevant, param("no_relevant"), where),
    )


def batch_values(
    y_true, y_score, requests, *, qid=None, sample_weight=None, judged=None, ignore_ties=False,
    part=False,
):
    """Per-query values of one batch.

    ``part=True`` scores the batch as one part of a larger whole (see
    :func:`check_inputs`): a batch whose queries all have one item is
    scored, and an empty batch returns None (its shapes and weights checked).

    Returns
    -------
    query_ids : ndarray or None
        The batch's query ids in the order of the values (sorted), or None for
        matrix rows (the values are in row order).
    raw : dict of label -> (values, defined)
        As :func:`compute` of the engine returns them: before the
        ``no_relevant`` policy and the clipping of :func:`reduce_results`.
    weights : ndarray or None
        One weight per query (row), in the order of the values.
    n_items : int
        The batch's largest number of items in a query (its width for matrix rows).
    """
    inputs = check_inputs(y_true, y_score, qid, judged, part=part)
    if inputs is None:  # an empty part
        if sample_weight is not None and np.size(sample_weight) != 0:
            raise ValueError(
                f"sample_weight has {np.size(sample_weight)} weight(s) but the batch is "
                "empty; give none (or an empty array)."
            )
        return None
    if qid is None:
        weights = check_sample_weight(sample_weight, inputs.n_rows)
    else:
        weights = inputs.query_weights(sample_weight)
    raw = layout_values(inputs, requests, ignore_ties=ignore_ties)
    return inputs.query_ids, raw, weights, inputs.n_cols


def describe_requests(requests):
    """A short text of the requests' labels and options, for error messages."""
    return ", ".join(f"{r.label}{short_repr(r.options, 80)}" for r in requests)
