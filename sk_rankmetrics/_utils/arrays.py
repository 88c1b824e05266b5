"""Checks of data arrays: numbers, ids, finiteness, weights, judgements (the fast
NumPy primitives they use live in :mod:`.fast`)."""

from __future__ import annotations

import numbers
import warnings
from typing import Any, Callable

import numpy as np
import scipy.sparse as sp
from numpy.typing import ArrayLike, NDArray

from .._utils.constraints import is_integer
from .._utils.errors import InvalidParameterError, short_repr
from .columns import column_array
from .nonzero import flatnonzero


def _refuse_mask(x, arg):
    if isinstance(x, np.ma.MaskedArray) and np.ma.getmaskarray(x).any():
        raise InvalidParameterError(
            f"{arg} is a masked array with masked entries; masks are not read here. Fill "
            f"the masked entries ({arg}.filled(value)) or leave them out (long format "
            "with qid=...)."
        )


def float64_or_refuse(arr: NDArray[Any], message: Callable[[], str]) -> NDArray[np.float64]:
    """``arr`` as float64, or :class:`InvalidParameterError` with ``message()`` where
    NumPy cannot convert an entry (never NumPy's own error)."""
    try:
        return arr.astype(np.float64)
    except (TypeError, ValueError):
        raise InvalidParameterError(message()) from None


def refuse_first(mask: NDArray[np.bool_], message: Callable[[int], str]) -> None:
    """Raise :class:`InvalidParameterError` with ``message(i)``, ``i`` the first
    (flat) index where ``mask`` holds; nothing where it holds nowhere."""
    if mask.any():
        raise InvalidParameterError(message(int(flatnonzero(mask)[0])))


def _from_objects(x, arg):
    """An object array of numbers (or pandas' nullable values) -> int64 or float64."""
    flat = x.reshape(-1)
    if any(map(_is_missing, flat.tolist())):
        raise InvalidParameterError(
            f"{arg} has missing values (None or pandas.NA); every entry must be a number."
        )
    as_float = float64_or_refuse(flat, lambda: (
        f"{arg} must hold numbers (bool, int or float), got dtype object with a "
        f"non-numeric entry such as {short_repr(_first_non_number(flat))}."))
    if all(map(is_integer, flat.tolist())):
        try:
            as_int = flat.astype(np.int64)
        except OverflowError:
            as_int = None
        if as_int is not None:
            return as_int.reshape(x.shape)
        raise InvalidParameterError(
            f"{arg} holds integers beyond the 64-bit range; give them as floats or "
            "rescale them."
        )
    return as_float.reshape(x.shape)


def _first_non_number(flat):
    for v in flat.tolist():
        if not isinstance(v, numbers.Real):
            return v
    return flat[0]


def as_numeric_array(x, arg, *, allow_sparse=False):
    """Return ``x`` as a numeric ndarray (or a CSR array if sparse is allowed).

    Lists, NumPy arrays, pandas objects (nullable dtypes without missing
    values too) and object arrays of numbers are accepted; floats are not
    copied. Strings, missing values and masked entries raise.
    """
    if x is None:
        raise InvalidParameterError(f"{arg} is None; pass an array-like of numbers.")
    if sp.issparse(x):
        if not allow_sparse:
            raise InvalidParameterError(
                f"{arg} is a scipy.sparse matrix, which is accepted for y_true only; "
                f"pass {arg} as a dense array."
            )
        x = sp.csr_array(x)
        if x.dtype.kind not in "biuf":
            raise InvalidParameterError(
                f"{arg} must hold numbers (bool, int or float), got dtype {x.dtype}."
            )
        return x
    _refuse_mask(x, arg)
    if hasattr(x, "to_numpy") and not isinstance(x, np.ndarray):  # pandas
        x = x.to_numpy()
    try:
        x = _asarray_rectangular(x)
    except ValueError as exc:  # ragged nested lists
        raise ValueError(
            f"{arg} could not be read as a rectangular array ({exc}). Rows of a "
            "matrix must all have the same length; for rankings of different "
            "lengths use the long format with qid=..."
        ) from None
    if x.dtype.kind == "O":
        x = _from_objects(x, arg)
    if x.dtype.kind not in "biuf":
        raise InvalidParameterError(
            f"{arg} must hold numbers (bool, int or float), got dtype {x.dtype}."
        )
    return x


#: NumPy before 1.24 reads ragged nested lists as an object array of lists,
#: with this warning, where later versions raise ValueError.
_RAGGED_WARNS = tuple(int(p) for p in np.__version__.split(".")[:2]) < (1, 24)
#: That warning's class (at the top of NumPy 1.x; NumPy 2 moved it).
_RAGGED_WARNING: Any = getattr(np, "VisibleDeprecationWarning", UserWarning)


def _asarray_rectangular(x):
    """``np.asarray(x)``, raising ValueError for ragged nested lists on every
    NumPy (the warning of NumPy before 1.24 made an error)."""
    if not _RAGGED_WARNS:
        return np.asarray(x)
    with warnings.catch_warnings():
        warnings.simplefilter("error", _RAGGED_WARNING)
        try:
            return np.asarray(x)
        except _RAGGED_WARNING as exc:
            raise ValueError(str(exc).split(". ")[0]) from None


def first_non_finite(block):
    """Index (tuple) of the first NaN or infinity in ``block``, or None."""
    if block.dtype.kind not in "fc":
        return None
    with np.errstate(over="ignore", invalid="ignore"):
        if np.isfinite(block.sum()):
            return None
    bad = ~np.isfinite(block)
    if not bad.any():
        return None
    return tuple(int(i) for i in np.argwhere(bad)[0])


#: What a score matrix's -inf usually means (items that are not candidates),
#: and the argument that says it.
MASK_BY_EXCLUDE = (
    " A score of -inf to keep an item out of its row's ranking is what exclude= is for: "
    "pass finite scores and exclude=mask (True for the items to leave out)."
)
#: The same in long format, where a pair not listed is not ranked.
MASK_BY_OMISSION = (
    " A score of -inf to keep an item out of its query's ranking: drop the pair from "
    "y_true, y_score and qid instead (long format ranks only the pairs it lists)."
)


def check_finite(block, arg, row0=0, masked=None):
    """Raise if ``block`` holds NaN or infinity, naming the first place and
    value; ``masked`` is added to the message when that value is -inf (the
    way to leave items out that the entry point offers)."""
    where = first_non_finite(block)
    if where is None:
        return
    if len(where) == 2:
        place = f"row {row0 + where[0]}, column {where[1]}"
    else:
        place = f"index {row0 + where[0]}"
    mask = ""
    if masked and np.isneginf(block[where]):
        mask = f" That one is -inf.{masked}"
    raise ValueError(f"{arg} contains NaN or infinity (first at {place}); every value must "
                     f"be finite.{mask}")


class ScoreCheck:
    """:func:`check_finite` of a block of scores, put off to the first pass of
    the ranking that reads the block anyway: a row sort leaves each row's
    NaN last and its infinities at its ends, so those two columns tell
    whether the block is finite (and the block is scanned only to name the
    first bad place). A ranking route that makes no such pass calls
    :meth:`now` before it reads a score; integer scores need no check."""

    def __init__(self, block, arg, row0=0, masked=None):
        self.block, self.arg, self.row0, self.masked = block, arg, row0, masked
        self.done = block.dtype.kind not in "fc"

    def finite(self):
        """Record the block as finite: a route that read every score found it
        so (:func:`~sk_rankmetrics._ranking.levels.decimal_integers`)."""
        self.done = True

    def now(self):
        """Check the whole block (once)."""
        if not self.done:
            check_finite(self.block, self.arg, self.row0, self.masked)
            self.done = True

    def by_top(self, top, block):
        """Check the block from each row's largest scores after a partition
        (``top``: NaN and +inf sort last, so a row holding one holds it
        there) and the block's minimum (-inf): one reduction instead of a
        sum over the block."""
        if self.done:
            return
        if not (np.isfinite(top).all() and np.isfinite(block.min())):
            self.now()  # raises, naming the first place
        self.done = True

    def by_ends(self, first, last):
        """Check the block from each row's smallest (``first``) and largest
        (``last``) score after a row sort (NaN sorts last)."""
        if self.done:
            return
        if not (np.isfinite(first).all() and np.isfinite(last).all()):
            self.now()  # raises, naming the first place
        self.done = True


def check_sample_weight(sample_weight, n, what=None):
    """Per-row weights as float64, finite and >= 0 (None stays None)."""
    if sample_weight is None:
        return None
    w = as_numeric_array(sample_weight, "sample_weight")
    if w.ndim != 1 or w.shape[0] != n:
        raise ValueError(
            f"sample_weight must be 1-D with {what or f'one weight per row ({n})'}, got "
            f"shape {w.shape}."
        )
    w = w.astype(np.float64)
    if not np.all(np.isfinite(w)):
        raise ValueError("sample_weight contains NaN or infinity; every weight must be a "
                         "finite number >= 0.")
    if (w < 0).any():
        i = int(flatnonzero(w < 0)[0])
        raise ValueError(f"sample_weight must be non-negative; entry {i} is {w[i]:g}.")
    return w


def _is_missing(v):
    """None, NaN, pandas' NA and NaT: a missing value rather than an id."""
    if v is None:
        return True
    try:
        return bool(v != v)  # NaN, NaT; pd.NA raises (its truth is ambiguous)
    except TypeError:
        return True
    except ValueError:  # an array: not an id either, but not a missing one
        return False


def id_array(values, types=None):
    """A sequence of Python ids (``types``: the set of their types, if known)
    as an array. NumPy writes a number among strings as text (NaN as
    ``'nan'``, 3 as ``'3'``), making an id that nobody gave; a mix of text and
    other types stays an object array, which :func:`as_ids` refuses naming
    the odd value."""
    values = values if isinstance(values, (list, tuple)) else list(values)
    if types is None:
        types = set(map(type, values))
    text = sum(1 for t in types if issubclass(t, (str, bytes)))
    if text and text != len(types):
        out = np.empty(len(values), dtype=object)
        out[:] = values
        return out
    return np.array(values)


def as_ids(x: ArrayLike, arg: str) -> NDArray[Any]:
    """1-D query or item ids as int64 or str, without silent coercion.

    Integers stay integers; floats are accepted only when every value is a
    whole number; strings and bytes become str. Mixed or fractional values,
    missing values and empty strings raise.
    """
    if x is None:
        raise InvalidParameterError(f"{arg} is None; pass one id per entry.")
    _refuse_mask(x, arg)
    if hasattr(x, "to_numpy") and not isinstance(x, np.ndarray):
        x = column_array(x)
    x = id_array(x) if isinstance(x, (list, tuple)) else np.asarray(x)
    if x.ndim != 1:
        raise ValueError(f"{arg} must be 1-D (one id per entry), got shape {x.shape}.")
    kind = x.dtype.kind
    if kind == "O":
        items = x.tolist()
        types = set(map(type, items))  # one pass in C, not a test per id
        if all(issubclass(t, str) for t in types):
            x = x.astype(str)
        elif all(issubclass(t, bytes) for t in types):
            x = x.astype(bytes)
        elif all(is_integer(v) for v in items):
            try:
                x = x.astype(np.int64)
            except OverflowError:
                raise InvalidParameterError(
                    f"{arg} holds integer ids beyond the 64-bit range; give them as strings."
                ) from None
        else:
            missing = next((j for j, v in enumerate(items) if _is_missing(v)), None)
            if missing is not None:
                raise InvalidParameterError(
                    f"{arg} holds a missing id ({items[missing]!r} at entry {missing}); "
                    "every entry needs an id (drop the entries without one)."
                )
            bad = next((v for v in items if not (is_integer(v) or isinstance(v, str))), None)
            if bad is None:  # integers and strings mixed
                text = isinstance(items[0], str)
                other = next(v for v in items if isinstance(v, str) != text)
                bad = f"{short_repr(items[0])} and {short_repr(other)}"
            else:
                bad = short_repr(bad)
            raise InvalidParameterError(
                f"{arg} must hold ids of one type (integers or strings), got mixed types "
                f"or values such as {bad}."
            )
        kind = x.dtype.kind
    if kind == "f":
        if not np.all(np.isfinite(x)) or not np.all(np.mod(x, 1) == 0):
            bad = x[~(np.isfinite(x) & (np.mod(np.nan_to_num(x), 1) == 0))][0]
            raise InvalidParameterError(
                f"{arg} holds the value {float(bad)!r}, which is not an id: float ids must be "
                "whole numbers (and not NaN). Give integer or string ids."
            )
        if x.size and np.abs(x).max() >= 2.0**53:
            raise InvalidParameterError(
                f"{arg} holds float ids beyond 2**53, which float64 cannot tell apart; "
                "give them as integers or strings."
            )
        return x.astype(np.int64)
    if kind == "u":
        if x.size and x.max() > np.iinfo(np.int64).max:
            return x.astype(str)
        return x.astype(np.int64)
    if kind == "i":
        return x.astype(np.int64, copy=False)
    if kind == "S":
        x = x.astype(str)
        kind = "U"
    if kind == "U":
        if x.size and (np.char.str_len(x) == 0).any():
            i = int(flatnonzero(np.char.str_len(x) == 0)[0])
            raise ValueError(f"{arg} has an empty id at entry {i}; every id must be a "
                             "non-empty string or an integer.")
        return x
    raise InvalidParameterError(
        f"{arg} must hold ids (integers or strings), got dtype {x.dtype}."
    )


def exact_scores(ys):
    """Scores as float64 that order (and tie) exactly as ``ys`` does.

    float64 is returned as it is; narrower floats, bools and integers within
    +-2**53 convert exactly. Wider integers and long doubles that float64
    cannot hold apart are replaced by their dense rank (an order-preserving
    transform, which no ranking metric can tell from the original).
    """
    if ys.dtype == np.float64:
        return ys
    if ys.dtype.kind == "b" or (ys.dtype.kind == "f" and ys.dtype.itemsize < 8):
        return ys.astype(np.float64)
    if ys.size == 0:
        return ys.astype(np.float64)
    if ys.dtype.kind in "iu":
        lo, hi = ys.min(), ys.max()
        if -(2**53) <= int(lo) and int(hi) <= 2**53:
            return ys.astype(np.float64)
    else:
        f = ys.astype(np.float64)
        if np.all(np.isfinite(f)) and np.array_equal(f.astype(ys.dtype), ys):
            return f
    _, inv = np.unique(ys, return_inverse=True)
    return inv.reshape(ys.shape).astype(np.float64)


def sortable(ys):
    """Scores in a dtype NumPy's partition and sort order correctly (bool -> uint8)."""
    return ys.view(np.uint8) if ys.dtype.kind == "b" else ys


def check_judged(judged, shape):
    """The ``judged`` mask: bools of the shape of ``y_true`` (None: all judged)."""
    if judged is None:
        return None
    mask = as_numeric_array(judged, "judged")
    if mask.dtype.kind != "b":
        if not np.isin(mask, (0, 1)).all():
            raise InvalidParameterError(
                "judged must hold True/False (or 1/0), one per entry of y_true, "
                f"got values such as {mask[~np.isin(mask, (0, 1))].ravel()[0]!r}."
            )
        mask = mask.astype(bool)
    if mask.shape != shape:
        raise ValueError(f"judged must have the shape of y_true {shape}, got {mask.shape}.")
    return mask
