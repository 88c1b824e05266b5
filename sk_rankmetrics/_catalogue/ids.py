"""The ids of the rows of the factors, and ``y_true`` / ``exclude`` given by ids.

``user_ids`` and ``item_ids`` name the rows of ``user_factors`` and
``item_factors``. With them, :func:`evaluate_embeddings` takes pairs by id in
the forms :func:`evaluate_ranked` takes for its truth (a dict, a tuple of id
arrays, a pandas or polars data frame: :mod:`.._inputs.id_pairs` parses
them) and maps each id to its row with one sorted look-up
(``np.searchsorted``), never a loop per pair.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
from numpy.typing import NDArray

from .._inputs.id_pairs import is_frame, truth_from_frame, truth_pairs
from .._utils.arrays import as_ids
from .._utils.errors import InvalidParameterError, shown
from .._utils.nonzero import flatnonzero

WHERE = "evaluate_embeddings"


def _comparable(a: NDArray[Any], b: NDArray[Any]) -> bool:
    """Whether ids of these dtypes can be equal (integers with integers, text with text)."""
    return (a.dtype.kind in "iu") == (b.dtype.kind in "iu") and (a.dtype.kind == "S") == (
        b.dtype.kind == "S"
    )


def _kind(a: NDArray[Any]) -> str:
    return {"i": "integers", "u": "integers", "S": "bytes"}.get(a.dtype.kind, "text")


class IdIndex:
    """The id of each row of a factor matrix, and the row of any id.

    ``ids`` None means the rows are named by their index (``0 .. n - 1``).
    """

    def __init__(self, ids: Any, n: int, what: str) -> None:
        self.what = what  # "user" or "item"
        self.arg = f"{what}_ids"
        self.given = ids is not None
        if ids is None:
            self.ids = np.arange(n)
            self.order = self.ids
            self.sorted = self.ids
            return
        arr = as_ids(ids, self.arg)
        if arr.shape[0] != n:
            raise ValueError(
                f"{WHERE}: {self.arg} must give one id per row of {what}_factors ({n}), "
                f"got {arr.shape[0]}."
            )
        order = np.argsort(arr, kind="stable")
        srt = arr[order]
        dup = srt[1:] == srt[:-1]
        if dup.any():
            # The first entry, in the order given, that repeats an earlier one.
            later = order[1:][dup]
            i = int(later.min())
            raise ValueError(
                f"{WHERE}: {self.arg} gives the id {shown(arr[i])!r} twice (at positions "
                f"{int(flatnonzero(arr == arr[i])[0])} and {i}; "
                f"{int(dup.sum())} repeats in all); each row of {what}_factors needs an id "
                "of its own."
            )
        self.ids, self.order, self.sorted = arr, order, srt

    def rows(self, values: Any, name: str) -> NDArray[np.int64]:
        """The row of each id of ``values`` (the ids of ``name``); an id that
        names no row raises, counting them and naming the first."""
        v = as_ids(values, f"the {self.what} ids of {name}")
        n = self.sorted.shape[0]
        if v.size == 0:
            return np.zeros(0, dtype=np.int64)
        if _comparable(v, self.sorted):
            pos = np.minimum(np.searchsorted(self.sorted, v), n - 1)
            found = self.sorted[pos] == v
        else:
            pos, found = np.zeros(v.shape[0], dtype=np.int64), np.zeros(v.shape[0], dtype=bool)
        if not found.all():
            self._unknown(v, ~found, name)
        return self.order[pos].astype(np.int64, copy=False)

    def _unknown(self, v: NDArray[Any], missing: NDArray[np.bool_], name: str) -> None:
        what, arg = self.what, self.arg
        first = v[int(flatnonzero(missing)[0])]
        n_ids = np.unique(v[missing]).shape[0]
        n_pairs = int(missing.sum())
        if self.given:
            kinds = ""
            if not _comparable(v, self.sorted):
                kinds = f" ({name} gives its {what}s as {_kind(v)}, {arg} as {_kind(self.sorted)})"
            where = f"in {arg}{kinds}"
        else:
            where = (
                f"a row of {what}_factors (0 .. {self.sorted.shape[0] - 1}; pass {arg}= to "
                f"give {what}s by id)"
            )
        cold = (
            f"{'An' if what == 'item' else 'A'} {what} without factors (a cold-start "
            f"{what}) cannot be {'ranked' if what == 'item' else 'scored'}; drop its "
            f"pairs first (for a data frame: df[df[col].isin({arg})])."
        )
        raise ValueError(
            f"{WHERE}: {name} names {n_ids} {what} id(s) that are not {where}, in "
            f"{n_pairs} pair(s) (the first: {shown(first)!r}). {cold}"
        )


def id_form(a: Any, by_id: bool) -> bool:
    """Whether ``a`` is given by ids: a data frame in long format (with a user
    or item column; a wide frame of numbers stays a matrix), a dict, or (with
    ids) a tuple."""
    if is_frame(a, long=True):
        return True
    if isinstance(a, Mapping):
        return True
    return by_id and isinstance(a, tuple)


def pairs_by_id(
    a: Any, users: IdIndex, items: IdIndex, name: str
) -> tuple[NDArray[np.int64], NDArray[np.int64], NDArray[np.float64]]:
    """``(rows, columns, values)`` of ``a`` given by ids (see :func:`id_form`)."""
    if is_frame(a):
        u, i, rel, _ = truth_from_frame(a, side=name, where=WHERE)
    else:
        u, i, rel, _ = truth_pairs(a, None, side=name, where=WHERE)
    u, i = np.asarray(u), np.asarray(i)
    rel = np.asarray(rel)
    if not (u.ndim == i.ndim == rel.ndim == 1 and u.shape == i.shape == rel.shape):
        raise InvalidParameterError(
            f"{WHERE}: {name} as a tuple must hold 1-D arrays of one length: (user ids, "
            "item ids) or (user ids, item ids, relevance)."
        )
    if rel.dtype.kind not in "biuf":
        raise InvalidParameterError(
            f"{WHERE}: the relevance of {name} must be numbers, got {rel.dtype}."
        )
    return users.rows(u, name), items.rows(i, name), rel.astype(np.float64)


def top_ids(top: NDArray[np.int64], items: IdIndex) -> NDArray[Any]:
    """The item ids of ``top`` (item rows, -1 past a user's last candidate).

    The fill past the last candidate is never an id: the empty string for
    text ids (refused as an id), and for integer ids ``-1``, or one less
    than the smallest id when -1 is an id (``min(-1, min(item_ids) - 1)``).
    """
    ids = items.ids
    if ids.dtype.kind in "US":
        fill: Any = ids.dtype.type()
    else:
        low = int(ids.min())
        if low <= np.iinfo(np.int64).min:
            raise ValueError(
                f"{WHERE}: item_ids holds the smallest 64-bit integer, which leaves no value "
                "to pad the top lists with; give the ids as strings."
            )
        fill = min(-1, low - 1)
    out = np.full(top.shape, fill, dtype=ids.dtype)
    real = top >= 0
    out[real] = ids[top[real]]
    return out
