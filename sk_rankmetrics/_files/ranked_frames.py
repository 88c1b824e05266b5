"""evaluate_ranked's data frames in memory: recommendations and truth as pandas
or polars data frames in long format (one row per user-item pair), with the
column names of the file readers."""

from __future__ import annotations

import numpy as np

from .._inputs.id_pairs import ITEM_COLUMNS as _ITEM_COLS
from .._inputs.id_pairs import QUERY_COLUMNS as _QUERY_COLS
from .._inputs.id_pairs import column_numbers as _numbers
from .._inputs.id_pairs import frame_column as _column
from .._inputs.preranked import group_long
from .._utils.arrays import as_ids, refuse_first
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
    refuse_first(dup, lambda i: (
        f"evaluate_ranked: recommended gives rank {r[i]:g} twice to user "
        f"{u[i].item() if isinstance(u[i], np.generic) else u[i]!r}; each rank once "
        "per user."))
    ids, lens, flat, _ = group_long(u, item[o], order="given")
    return ids, lens, flat
