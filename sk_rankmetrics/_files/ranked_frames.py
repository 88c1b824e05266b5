"""evaluate_ranked's data frames in memory, and its beyond-accuracy measures.

- Recommendations and truth as pandas or polars data frames in long format
  (one row per user-item pair), with the column names of the file readers.
- The beyond-accuracy measures (:mod:`._beyond`) asked for among the metrics,
  computed over the lists of the result's users.
"""

from __future__ import annotations

import numpy as np

from .._beyond import measures as _beyond
from .._beyond.data import positions, relevant_flags
from .._evaluation.result import EvaluationResult
from .._inputs.id_pairs import ITEM_COLUMNS as _ITEM_COLS
from .._inputs.id_pairs import QUERY_COLUMNS as _QUERY_COLS
from .._inputs.id_pairs import column_numbers as _numbers
from .._inputs.id_pairs import frame_column as _column
from .._inputs.preranked import group_long
from .._utils.arrays import as_ids, flatnonzero
from .._utils.errors import InvalidParameterError
from .frames import SCORE_COLUMNS as _SCORE_COLS

#: The rank column of recommendations in long format (1 = best), as with Dask.
RANK_COLUMNS = ("rank", "position", "pos")


def lists_from_frame(df, users=None):
    """``(user ids, lengths, flat item ids)`` of recommendations in long format.

    The order within a user is the ``rank`` column's (1 = best; a rank given
    twice to one user raises) or, without one, the ``score`` column's
    (descending; ties by item id descending, as :func:`evaluate_run`).
    """
    side = "recommended"
    if users is not None:
        raise InvalidParameterError(
            "evaluate_ranked: users cannot be given with "
            "recommended as a data frame in long format; the user "
            "ids come with its user column."
        )
    user = as_ids(_column(df, _QUERY_COLS, "user", side), "the user column of recommended")
    item = as_ids(_column(df, _ITEM_COLS, "item", side), "the item column of recommended")
    rank = _column(df, RANK_COLUMNS, "rank", side, required=False)
    if rank is None:
        score = _column(df, _SCORE_COLS, "score", side, required=False)
        if score is None:
            raise InvalidParameterError(
                "evaluate_ranked: recommended as a data frame needs a rank column "
                f"({', '.join(RANK_COLUMNS)}; 1 = best) or a score column "
                f"({', '.join(_SCORE_COLS)}; higher = better); its columns are "
                f"{[str(c) for c in df.columns]}."
            )
        ids, lens, flat, _ = group_long(user, item, _numbers(score, "score"), order="score")
        return ids, lens, flat
    rank = _numbers(rank, "rank")
    o = np.lexsort((rank, user))
    u, r = user[o], rank[o]
    dup = (u[1:] == u[:-1]) & (r[1:] == r[:-1])
    if dup.any():
        i = int(flatnonzero(dup)[0])
        raise InvalidParameterError(
            f"evaluate_ranked: recommended gives rank {r[i]:g} twice to user "
            f"{u[i].item() if isinstance(u[i], np.generic) else u[i]!r}; each rank once "
            "per user."
        )
    ids, lens, flat, _ = group_long(u, item[o], order="given")
    return ids, lens, flat


def rows_lists(row_ids, ids, lens, flat):
    """The lists of ``row_ids`` (the result's users) out of ``(ids, lens, flat)``;
    a user without a list gets an empty one."""
    if row_ids.shape == ids.shape and (row_ids == ids).all():
        return lens, flat
    pos = positions(np.sort(as_ids(ids, "users")), as_ids(row_ids, "users"))
    order = np.argsort(as_ids(ids, "users"), kind="stable")
    src = np.where(pos >= 0, order[np.maximum(pos, 0)], -1)
    starts = np.cumsum(lens) - lens
    new_lens = np.where(src >= 0, lens[np.maximum(src, 0)], 0)
    first = np.repeat(np.where(src >= 0, starts[np.maximum(src, 0)], 0), new_lens)
    offset = np.arange(int(new_lens.sum())) - np.repeat(np.cumsum(new_lens) - new_lens, new_lens)
    return new_lens, np.asarray(flat)[first + offset]


def beyond_values(
    requests, row_ids, lens, flat, data, *, truth, threshold, no_relevant, checked=False
):
    """Per-user values and values of the beyond-accuracy ``requests``
    (``checked``: the lists were refused repeats already)."""
    relevant = None
    if any("truth" in r.spec.data for r in requests) and truth is not None:
        tu, ti, trel = truth
        relevant = relevant_flags(row_ids, lens, flat, tu, ti, trel, threshold)
    return _beyond.compute(
        requests,
        row_ids,
        lens,
        flat,
        data,
        relevant=relevant,
        no_relevant=no_relevant,
        checked=checked,
    )


def beyond_data(
    beyond,
    k,
    ids,
    lens,
    flat,
    truth,
    threshold,
    no_relevant,
    items,
    popularity,
    item_features,
    head_share,
    result,
    order=None,
):
    """``result`` (an :class:`EvaluationResult` of the other metrics, or None)
    with the beyond-accuracy measures ``beyond`` added, computed over the
    lists of its users (of every list when ``result`` is None)."""
    requests = _beyond.make_requests(beyond, k, where="evaluate_ranked")
    data = _beyond.BeyondData(
        items=items, popularity=popularity, item_features=item_features, head_share=head_share
    )
    checked = result is not None  # build_preranked refused repeated items
    if result is None:
        row_ids = np.asarray(ids)
        result = EvaluationResult(row_ids, {}, {})
    else:
        row_ids = result.query_ids
        lens, flat = rows_lists(row_ids, ids, lens, flat)
    if truth is None and any("truth" in r.spec.data for r in requests):
        raise InvalidParameterError(
            "evaluate_ranked: serendipity needs the truth; pass it instead of None."
        )
    per_user, value = beyond_values(
        requests,
        row_ids,
        lens,
        flat,
        data,
        truth=truth,
        threshold=threshold,
        no_relevant=no_relevant,
        checked=checked,
    )
    result.per_query.update(per_user)
    result.mean.update(value)
    if order is not None:  # the order asked for
        result.mean = _beyond.in_order(result.mean, order)
        result.per_query = _beyond.in_order(result.per_query, order)
    result.whole_set = (*result.whole_set, *(r.label for r in requests if r.whole))
    return result
