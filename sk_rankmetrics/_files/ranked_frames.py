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
from .._utils.nonzero import flatnonzero
from .._utils.text_ids import ordered_codes
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
    return _by_user_rank(user, item, _numbers(rank, "rank"))


def _by_user_rank(user, item, rank):
    """``(user ids, lengths, flat item ids)`` of rows ordered by user, then
    rank; a rank given twice to one user raises.

    The users are compared as integers that order and tie as their ids do
    (:func:`ordered_codes`: text ids packed or numbered), not as text: on
    200,000 users' 20 rows each, a sort of the text ids took 0.57 s and
    moving the user ids with it 0.24 s. Where each user's rows stand
    together, best first (as frames are mostly written), only those
    stretches are ordered, by one sort of their first ids, and each user's
    id is read once; a frame already in order moves nothing. Other frames
    take one sort of the (user, rank) pairs, which moves the item ids; the
    user ids are read at each user's first row."""
    k = ordered_codes(user)
    n = k.shape[0]
    new = np.ones(n, dtype=bool)
    np.not_equal(k[1:], k[:-1], out=new[1:])
    starts = flatnonzero(new)
    if n and not (~new[1:] & (rank[1:] <= rank[:-1])).any():
        heads = np.argsort(k[starts], kind="stable")
        lens = np.diff(np.append(starts, n))
        first = starts[heads]
        if not (k[first[1:]] == k[first[:-1]]).any():  # (no user in two stretches)
            if (heads[1:] < heads[:-1]).any():
                lens = lens[heads]
                # Each row's place: its stretch's start, moved.
                o = np.repeat(first - (np.cumsum(lens) - lens), lens)
                o += np.arange(n)
                item = item[o]
            return user[first], lens, item
    o = np.lexsort((rank, k))
    k, rank = k[o], rank[o]
    np.not_equal(k[1:], k[:-1], out=new[1:])
    dup = ~new[1:] & (rank[1:] == rank[:-1])
    refuse_first(dup, lambda i: (
        f"evaluate_ranked: recommended gives rank {rank[i]:g} twice to user "
        f"{user[o[i]].item() if isinstance(user[o[i]], np.generic) else user[o[i]]!r}; "
        "each rank once per user."))
    starts = flatnonzero(new)
    return user[o[starts]], np.diff(np.append(starts, n)), item[o]
