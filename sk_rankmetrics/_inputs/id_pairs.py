"""Pairs and relevance given by ids: dicts, tuples of id arrays, data frames.

The forms :func:`evaluate_ranked` takes for its truth, which
:func:`evaluate_embeddings` also takes for ``y_true`` and ``exclude`` (with
id mappings), parsed into parallel arrays ``(user ids, item ids,
relevance)`` without a loop per pair (except over a dict's entries, a
Python structure anyway). The column names of data frames are the file
readers' (``user``, ``user_id``, ``query``, ...; ``item``, ``docno``, ...;
``relevance``, ``rel``, ``label``, ...).
"""

from __future__ import annotations

from collections.abc import Mapping
from collections.abc import Set as AbstractSet
from itertools import chain, repeat
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from .._utils.arrays import float64_or_refuse, id_array
from .._utils.columns import column_array
from .._utils.errors import InvalidParameterError, short_repr, shown
from .._utils.nonzero import flatnonzero

QUERY_COLUMNS = ("query", "qid", "query_id", "user", "user_id", "topic")
ITEM_COLUMNS = ("item", "docno", "doc_id", "docid", "item_id", "document", "doc")
RELEVANCE_COLUMNS = ("relevance", "rel", "label", "grade", "y_true")


def first_missing(col: Any) -> int | None:
    """Position of the first missing value of a pandas or polars column, or None."""
    if hasattr(col, "null_count"):  # polars
        if col.null_count() == 0 and not (col.dtype.is_float() and col.is_nan().any()):
            return None
        mask = col.is_null()
        if col.dtype.is_float():
            mask = mask | col.is_nan().fill_null(True)
        return int(flatnonzero(mask.to_numpy())[0])
    if hasattr(col, "isna"):  # pandas
        mask = np.asarray(col.isna())
        return int(flatnonzero(mask)[0]) if mask.any() else None
    return None


def column_numbers(values: ArrayLike, role: str) -> NDArray[np.float64]:
    """A column of numbers as float64; text that C's atof would read
    differently from Python (``"1_000"``) is refused."""
    arr = np.asarray(values)
    out = float64_or_refuse(arr, lambda: (
        f"the {role} column must hold numbers, got values such "
        f"as {short_repr(arr[:3].tolist())}."))
    if arr.dtype.kind in "USO":
        # Python reads "1_000" as 1000, C's atof (trec_eval) as 1: refuse it.
        text = arr.astype(str)
        bad = np.char.find(text, "_") >= 0
        if bad.any():
            raise InvalidParameterError(
                f"the {role} column holds {str(text[bad][0])!r}, not a number in C's syntax "
                "(as trec_eval reads numbers: 3, -0.25, 1.5e-3; no '_')."
            )
    return out


def is_frame(x: Any, long: bool = False) -> bool:
    """Whether ``x`` is a pandas or polars data frame (neither is imported);
    with ``long``, one in long format: it has a user or item column (a frame
    of item ids without them is one ranked list per row, as a 2-D array)."""
    mod = type(x).__module__.split(".")[0]
    if mod not in ("pandas", "polars") or not hasattr(x, "columns"):
        return False
    return not long or bool({str(c) for c in x.columns} & {*QUERY_COLUMNS, *ITEM_COLUMNS})


def frame_column(
    df: Any,
    names: tuple[str, ...],
    role: str,
    side: str,
    *,
    required: bool = True,
    where: str = "evaluate_ranked",
) -> NDArray[Any] | None:
    """The one column of ``df`` named as one of ``names``, as an array (None
    when there is none and it is not ``required``); two candidates, none, or
    a missing value raise naming ``side`` (the argument) and ``where``."""
    have = [str(c) for c in df.columns]
    found = [c for c in names if c in have]
    if len(found) > 1:
        raise InvalidParameterError(
            f"{where}: {side} has {len(found)} columns that could hold the {role}: "
            f"{found}; keep (or rename) one of them."
        )
    if not found:
        if not required:
            return None
        raise InvalidParameterError(
            f"{where}: cannot find the {role} column of {side}: looked for "
            f"{list(names)}, the data frame has {have}; rename the one to use."
        )
    col = df[found[0]]
    missing = first_missing(col)
    if missing is not None:
        raise InvalidParameterError(
            f"{where}: the {role} column {found[0]!r} of "
            f"{side} has a missing value (row {missing})."
        )
    return column_array(col)


def truth_from_frame(
    df: Any, side: str = "truth", where: str = "evaluate_ranked"
) -> tuple[Any, Any, Any, None]:
    """``(user ids, item ids, relevance, None)`` of a truth in long format
    (relevance 1 for every row without a relevance column)."""
    user = frame_column(df, QUERY_COLUMNS, "user", side, where=where)
    item = frame_column(df, ITEM_COLUMNS, "item", side, where=where)
    rel = frame_column(df, RELEVANCE_COLUMNS, "relevance", side, required=False, where=where)
    assert user is not None and item is not None
    rel = np.ones(user.shape[0]) if rel is None else column_numbers(rel, "relevance")
    return user, item, rel, None


def flatten_lists(
    lists: Any, n: int, arg: str, *, ranked: bool = False, users: Any = None
) -> tuple[NDArray[np.int64], NDArray[Any]]:
    """Flatten ``n`` sequences into (lengths, flat ids) without a loop per entry.

    ``ranked``: the sequences are rankings, so an unordered container (a set,
    a frozenset, a dict's keys) is refused; ``users`` names them in the message.
    """
    try:
        lens = np.fromiter(map(len, lists), dtype=np.int64, count=n)
    except TypeError:
        raise InvalidParameterError(f"{arg} must hold one sequence of item ids per user.") from None
    # The containers' types, each checked once (an isinstance test per user
    # against an abstract class costs 0.4 us: 0.8 s for 2,000,000 lists).
    kinds = set(map(type, lists))
    if ranked and any(issubclass(k, AbstractSet) for k in kinds):
        unordered = np.fromiter(map(isinstance, lists, repeat(AbstractSet)), dtype=bool, count=n)
        if unordered.any():
            i = int(np.argmax(unordered))
            who = f"user {shown(users[i])!r}" if users is not None else f"row {i}"
            raise InvalidParameterError(
                f"{arg} gives a {type(lists[i]).__name__} for {who}: a ranked list must be "
                "ordered, best first (a list, tuple or array); a set has no order (its "
                "iteration order changes with the hash seed). Pass list(...) of the ids in "
                "ranked order."
            )
    if any(issubclass(k, (str, bytes)) for k in kinds):
        raise InvalidParameterError(
            f"{arg} must hold one sequence of item ids per user, got a "
            "string for some user; wrap a single id in a list: ['id']."
        )
    total = int(lens.sum())
    if total == 0:
        return lens, np.zeros(0, dtype=np.int64)
    # Integer ids go straight into an int64 array; a float among them (which
    # the int64 conversion would truncate: 2.5 -> 2) takes the general path.
    types = set(map(type, chain.from_iterable(lists)))
    if all(issubclass(t, (int, np.integer)) and not issubclass(t, bool) for t in types):
        try:
            flat = np.fromiter(chain.from_iterable(lists), dtype=np.int64, count=total)
            return lens, flat
        except (TypeError, ValueError, OverflowError):
            pass
    return lens, id_array(list(chain.from_iterable(lists)), types)


def ranked_lists(recommended: Any, users: Any = None,
                 arg: str = "recommended") -> tuple[Any, NDArray[np.int64], NDArray[Any]]:
    """``(user ids, lengths, flat item ids)`` of ranked lists given as a dict
    ``{user: ids}``, a 2-D array (one row per user) or a list of id lists
    (``users`` names their rows): the one reading of every entry point. A set
    is refused (it has no order)."""
    if isinstance(recommended, Mapping):
        ids = id_array(list(recommended.keys()))
        lens, flat = flatten_lists(list(recommended.values()), len(recommended),
                                   arg, ranked=True, users=ids)
        return ids, lens, flat
    arr = recommended
    if hasattr(arr, "to_numpy"):
        arr = arr.to_numpy()
    if isinstance(arr, np.ndarray) and arr.ndim == 2:
        n, w = arr.shape
        lens, flat = np.full(n, w, dtype=np.int64), arr.reshape(-1)
    elif isinstance(arr, (list, tuple, np.ndarray)):
        n = len(arr)
        lens, flat = flatten_lists(arr, n, arg, ranked=True, users=users)
    else:
        raise InvalidParameterError(f"{arg} must be a dict {{user: ranked ids}}, a 2-D array "
                                    "of ids (one row per user) or a list of id lists, got "
                                    f"{type(recommended).__name__}.")
    ids = np.arange(n) if users is None else np.asarray(users)
    if ids.shape != (n,):
        raise ValueError(f"users must give one id per row of {arg} ({n}), got "
                         f"shape {ids.shape}.")
    return ids, lens, flat


def mixed_forms(side: str = "truth") -> str:
    """The message of a truth that mixes ``{id: relevance}`` mappings and plain
    id collections (also said by the Dask readers, which see it across partitions)."""
    return (f"{side} mixes {{id: relevance}} mappings and plain id collections; use one "
            "form for every user.")


def truth_pairs(
    truth: Any, users: Any, *, side: str = "truth", where: str | None = None
) -> tuple[Any, Any, Any, Any]:
    """A truth (not a file) -> (user ids, item ids, relevance) parallel arrays,
    and the ids of every user the truth names (None when that is the users
    of the arrays).

    ``truth`` is a tuple ``(user_ids, item_ids[, relevance])``, a dict
    ``{user: ids}`` or ``{user: {id: relevance}}``, or a list aligned with
    ``users``; ``side`` names it in messages, ``where`` (if given) prefixes them.
    """
    pre = "" if where is None else f"{where}: "
    if isinstance(truth, tuple):
        if len(truth) not in (2, 3):
            raise ValueError(
                f"{pre}{side} as a tuple must be (user_ids, item_ids) or (user_ids, "
                f"item_ids, relevance), got {len(truth)} arrays."
            )
        u, i = truth[0], truth[1]
        rel = np.ones(len(u)) if len(truth) == 2 else truth[2]
        return u, i, rel, None
    if isinstance(truth, Mapping):
        keys = id_array(list(truth.keys()))
        vals = list(truth.values())
    elif isinstance(truth, (list, np.ndarray)):
        keys = np.arange(len(truth)) if users is None else np.asarray(users)
        if keys.shape[0] != len(truth):
            raise ValueError(
                f"{pre}{side} as a list must give one entry per user "
                f"({keys.shape[0]}), got {len(truth)}."
            )
        vals = list(truth)
    else:
        raise InvalidParameterError(
            f"{pre}{side} must be a dict {{user: relevant ids}} or "
            "{user: {id: relevance}}, a list aligned with recommended, "
            "or a tuple of parallel arrays (user_ids, item_ids[, "
            f"relevance]); got {type(truth).__name__}."
        )
    graded = np.fromiter(map(isinstance, vals, repeat(Mapping)), dtype=bool, count=len(vals))
    if graded.any() and not graded.all():
        raise InvalidParameterError(f"{pre}{mixed_forms(side)}")
    lens, items = flatten_lists(vals, len(vals), side)
    if graded.all() and len(vals):
        try:
            rel = np.fromiter(
                chain.from_iterable(map(Mapping.values, vals)), dtype=float, count=int(lens.sum())
            )
        except (TypeError, ValueError):
            raise InvalidParameterError(
                f"{pre}{side} as {{user: {{id: relevance}}}} must give numeric relevance levels."
            ) from None
    else:
        rel = np.ones(items.shape[0])
    return np.repeat(keys, lens), items, rel, keys
