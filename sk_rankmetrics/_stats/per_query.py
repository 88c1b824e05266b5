"""Per-query scores in pytrec_eval's shape, ``{qid: {measure: value}}``, for compare."""

from __future__ import annotations

import numpy as np

from .._utils.arrays import as_ids
from .._utils.errors import InvalidParameterError, short_repr


def per_query_dicts(value, where):
    """``(query ids, {metric: values})`` of ``{qid: {metric: value}}`` (what
    ``pytrec_eval``'s ``evaluate`` and :meth:`EvaluationResult.to_dict` return).

    Query ids are kept as given (str or int, one type); every query must give
    the same metrics, as pytrec_eval's output does.
    """
    ids = as_ids(list(value.keys()), f"{where} (its query ids)")
    inner = list(value.values())
    names = list(inner[0])
    for m in names:
        if not isinstance(m, str):
            raise InvalidParameterError(f"{where} must map query ids to {{metric name: "
                                        f"value}}, got the metric key {short_repr(m)}.")
    want = set(names)
    for q, d in value.items():
        if set(d) != want:
            other = sorted(set(d) ^ want)
            raise ValueError(f"{where}: query {q!r} gives the metrics {sorted(d)}, the first "
                             f"query {names}; every query needs the same metrics (differ: "
                             f"{other}).")
    cols = {}
    for m in names:
        try:
            cols[m] = np.fromiter((d[m] for d in inner), dtype=np.float64, count=len(inner))
        except (TypeError, ValueError):
            raise InvalidParameterError(f"{where}: the values of {m!r} must be numbers.") \
                from None
    return ids, cols
