"""Checks of data arrays: numbers, ids, finiteness, weights, judgements."""

from __future__ import annotations

import numbers
import sys
from typing import Any

import numpy as np
import scipy.sparse as sp
from numpy.typing import ArrayLike, NDArray

from .._utils.constraints import is_integer
from .._utils.errors import InvalidParameterError, short_repr


def _refuse_mask(x, arg):
    if isinstance(x, np.ma.MaskedArray) and np.ma.getmaskarray(x).any():
        raise InvalidParameterError(
            f"{arg} is a masked array with masked entries; masks are not read here. Fill "
            f"the masked entries ({arg}.filled(value)) or leave them out (long format "
            "with qid=...)."
        )


def _from_objects(x, arg):
    """An object array of numbers (or pandas' nullable values) -> int64 or float64."""
    flat = x.reshape(-1)
    if any(map(_is_missing, flat.tolist())):
        raise InvalidParameterError(
            f"{arg} has missing values (None or pandas.NA); every entry must be a number."
        )
    try:
        as_float = flat.astype(np.float64)
    except (TypeError, ValueError):
        raise InvalidParameterError(
            f"{arg} must hold numbers (bool, int or float), got dtype object with a "
            f"non-numeric entry such as {short_repr(_first_non_number(flat))}."
        ) from None
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
        x = np.asarray(x)
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


def unique(a):
    """The distinct values of ``a``, sorted (``np.unique(a)`` without options).

    NumPy 2.3 and later take a hash table for plain ``np.unique`` of numbers,
    which is ten times slower than a sort on a million distinct integers; a
    sort and a mask cost the same whatever the values, and integers in a
    compact range (user ids 0..n) are marked in a table without a sort.
    Other dtypes (text, objects) and floats with NaN go to ``np.unique``.
    """
    a = np.asarray(a).reshape(-1)
    if a.dtype.kind not in "iubf" or (a.dtype.kind == "f" and np.isnan(a).any()):
        return np.unique(a)
    if a.dtype.kind in "iu" and a.shape[0] > 1:
        lo, hi = a.min(), a.max()
        span = int(hi) - int(lo) + 1
        if span <= 4 * a.shape[0]:
            # Compact integers (0..n user ids): marked in a table, no sort.
            seen = np.zeros(span, dtype=bool)
            seen[np.subtract(a, lo, dtype=np.intp)] = True
            return (flatnonzero(seen) + lo).astype(a.dtype)
    s = sort_keys(a)
    if s.shape[0] < 2:
        return s
    keep = np.empty(s.shape[0], dtype=bool)
    keep[0] = True
    np.not_equal(s[1:], s[:-1], out=keep[1:])
    return s[keep]


#: The low byte of each 16-bit lane of a 64-bit word.
_LOW_BYTES = np.uint64(0x00FF00FF00FF00FF)
#: A one in each 16-bit lane: multiplied by it, a word of four 16-bit counts
#: holds their sum in its top 16 bits.
_SHORT_ONES = np.uint64(0x0001000100010001)


#: Rows at most this wide are summed a column at a time (below).
_NARROW = 64


def row_sums(a):
    """The sum of each row of a float matrix of shape (n, m), float64.

    ``a.sum(axis=1)`` pays a reduction per row, most of the cost on the short
    rows of a cut-off (8x slower than this on rows of 10): a product with a
    vector of ones (BLAS) sums them.
    """
    if a.shape[1] == 0:
        return np.zeros(a.shape[0])
    return a @ np.ones(a.shape[1], dtype=a.dtype)


def row_min(a):
    """The minimum of each row of a matrix of shape (n, m), m >= 1.

    Rows of up to ``_NARROW`` entries are reduced a column at a time (vectors
    over the rows): ``a.min(axis=1)`` pays a reduction per row, six times the
    cost on rows of 10.
    """
    if a.shape[1] > _NARROW:
        return a.min(axis=1)
    out = a[:, 0].copy()
    for j in range(1, a.shape[1]):
        np.minimum(out, a[:, j], out=out)
    return out


def row_cumsum(a, out=None):
    """Running sums along each row of a matrix of shape (n, m).

    ``np.cumsum(axis=1)`` pays a loop per row; rows of up to ``_NARROW``
    entries are added a column at a time instead (vectors over the rows,
    2.4x faster on rows of 10), in the same order, so the sums are the same.
    """
    if a.shape[1] > _NARROW or (out is None and a.dtype.kind != "f"):
        return np.cumsum(a, axis=1, out=out)
    if out is None:
        out = np.empty_like(a)
    if a.shape[1]:
        out[:, 0] = a[:, 0]
        for j in range(1, a.shape[1]):
            np.add(out[:, j - 1], a[:, j], out=out[:, j])
    return out


#: Integer arrays shorter than this are sorted whole by :func:`sort_keys`.
_BUCKET_MIN = 1 << 16
#: :func:`sort_keys` aims at buckets of about this many keys (in the CPU cache)
_BUCKET_KEYS = 256
#: ... and at most 2**16 buckets (their numbers are 16-bit): one NumPy call
#: each, for 256 keys or more.
_MAX_BUCKET_BITS = 16


def sort_keys(key):
    """``np.sort(key)`` of a 1-D integer array (a new array, the same dtype).

    A comparison sort of a million 64-bit keys works out of the CPU cache for
    most of its passes. The keys are first put in buckets by their leading
    bits (a stable radix sort of 16-bit bucket numbers, NumPy's own), then
    each bucket of a few hundred keys is sorted where it lies: the same
    result (buckets follow the order of the keys, so sorting within them
    sorts the whole), 1.8x faster than ``np.sort`` on a million 40-bit keys
    and 1.65x on ten million measured. Short arrays and other dtypes go to
    ``np.sort``.
    """
    key = np.asarray(key)
    n = key.shape[0] if key.ndim == 1 else 0
    if key.ndim != 1 or key.dtype.kind not in "iu" or n < max(_BUCKET_MIN, 2):
        return np.sort(key)
    lo, hi = int(key.min()), int(key.max())
    bits = min(_MAX_BUCKET_BITS, (n // _BUCKET_KEYS).bit_length())
    shift = max(0, (hi - lo).bit_length() - bits)
    # Offsets from the smallest key in 64-bit unsigned arithmetic (exact for
    # any span of int64 or uint64 keys), then their leading bits.
    wide = key.astype(np.uint64) if key.dtype.itemsize < 8 else key.view(np.uint64)
    with np.errstate(over="ignore"):
        offset = wide - np.uint64(lo % (1 << 64))
    offset >>= np.uint64(shift)
    bucket = offset.astype(np.uint16)
    del offset
    out = key[np.argsort(bucket, kind="stable")]
    ends = np.cumsum(np.bincount(bucket, minlength=1 << bits)).tolist()
    start = 0
    for end in ends:  # at most n / _BUCKET_KEYS and 2**16 buckets
        if end - start > 1:
            out[start:end].sort()
        start = end
    return out


def cumsum_down(a):
    """Running sums down each column of a matrix of shape (m, n): ``np.cumsum(a,
    axis=0)``, in its dtype.

    NumPy accumulates along the axis in an inner loop per column, which on
    the few rows of per-level counts (m of 4 for n of 20,000) costs twelve
    times a row-wise addition; matrices of up to ``_NARROW`` rows are summed
    a row at a time (vectors over the columns), in the same order.
    """
    a = np.asarray(a)
    if a.ndim != 2 or a.shape[0] > _NARROW or not a.size:
        return np.cumsum(a, axis=0)
    out = a.astype(np.cumsum(a[:1, :1], axis=0).dtype)  # a copy, in cumsum's dtype
    for u in range(1, a.shape[0]):
        np.add(out[u - 1], out[u], out=out[u])
    return out


#: Bool arrays shorter than this go to ``np.flatnonzero`` as they are.
_PAD_MIN_SIZE = 1 << 16
#: :func:`flatnonzero` pads bool arrays whose True entries are more than
#: 1 in this many (and at most 1 in 10).
_PAD_FROM = 25


def flatnonzero(a):
    """``np.flatnonzero(a)``: the flat indices of the nonzero entries of ``a``.

    NumPy finds the True entries of a bool array by one of two loops, chosen
    by their density: at most 1 in 10, a search for the next nonzero byte
    from each one found (fast when they are rare, but about 13 ns an entry
    found); above, a branch-free pass over every byte (about 0.4 ns a byte).
    Between 1 in 25 and 1 in 10 (the top 10 of rows of 100: exactly 1 in
    10; graded relevance on 5 % of the items) the first loop is up to three
    times slower than the second. There the array is copied with enough
    True entries appended to pass 1 in 10, and the indices past the real
    ones dropped: the same indices, in the same order.
    """
    a = np.asarray(a)
    if a.dtype != np.bool_ or a.size < _PAD_MIN_SIZE:
        return np.flatnonzero(a)
    flat = a.reshape(-1)
    size = flat.shape[0]
    c = int(np.count_nonzero(flat))
    if not size < _PAD_FROM * c <= _PAD_FROM * size // 10:
        return np.flatnonzero(flat)
    # (c + pad) / (size + pad) > 1/10  <=>  9 * pad > size - 10 * c
    pad = max((size - 10 * c) // 9 + 1, 0)
    buf = np.empty(size + pad, dtype=np.bool_)
    buf[:size] = flat
    buf[size:] = True
    return np.flatnonzero(buf)[:c]


def nonzero_2d(a):
    """``np.nonzero(a)`` of a matrix: the rows and columns of its nonzero
    entries, in row-major order.

    NumPy walks a matrix with its general iterator, two to eight times
    slower than finding the flat indices (:func:`flatnonzero`) and dividing
    them by the row length.
    """
    a = np.asarray(a)
    if a.ndim != 2:
        raise ValueError(f"nonzero_2d takes a matrix, got {a.ndim} dimensions")
    if a.size == 0:
        empty = np.zeros(0, dtype=np.intp)
        return empty, empty.copy()
    rows, cols = np.divmod(flatnonzero(a), a.shape[1])
    return rows, cols


def row_counts(mask):
    """The True entries of each row of a bool matrix of shape (n, N), int64.

    ``np.count_nonzero(mask, axis=1)`` pays a reduction per row, most of the
    cost on short rows. Here each row's bytes are read as 64-bit words
    whose byte lanes, summed a column of words at a time (vectors over the
    rows), count the True entries of eight columns; the lanes are then added
    in pairs and a multiplication sums the pairs. Rows of over 512 entries
    (64 words, so that a byte lane never passes 255) go to
    ``np.count_nonzero``, whose per-row cost is small there.
    """
    N = mask.shape[1]
    W = N // 8
    if W == 0 or W > 64 or mask.strides[1] != 1:
        return np.count_nonzero(mask, axis=1).astype(np.int64)
    b = mask.view(np.uint8)
    words = b[:, : 8 * W]
    try:
        words = words.view(np.uint64)
    except ValueError:  # rows whose stride does not allow the view
        words = np.ascontiguousarray(words).view(np.uint64)
    acc = words[:, 0].copy()
    for j in range(1, W):
        acc += words[:, j]
    if N % 8:
        # The last columns: the row's last eight bytes as a word, the lanes of
        # the columns the words above read masked out (little-endian: the
        # later columns are the higher lanes).
        tail = b[:, N - 8:]
        try:
            tail = tail.view(np.uint64)[:, 0]
        except ValueError:
            tail = np.ascontiguousarray(tail).view(np.uint64)[:, 0]
        keep = np.uint64(((1 << (8 * (N % 8))) - 1) << (8 * (8 - N % 8)))
        if sys.byteorder == "big":
            keep = np.uint64((1 << (8 * (N % 8))) - 1)
        acc += tail & keep
    # Pairs of byte lanes into 16-bit lanes (a row's count may pass 255),
    # whose sum the multiplication leaves in the top 16 bits.
    acc = (acc & _LOW_BYTES) + ((acc >> np.uint64(8)) & _LOW_BYTES)
    return ((acc * _SHORT_ONES) >> np.uint64(48)).astype(np.int64)


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
        i = int(np.flatnonzero(w < 0)[0])
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
        x = x.to_numpy()
    x = id_array(x) if isinstance(x, (list, tuple)) else np.asarray(x)
    if x.ndim != 1:
        raise ValueError(f"{arg} must be 1-D (one id per entry), got shape {x.shape}.")
    kind = x.dtype.kind
    if kind == "O":
        items = x.tolist()
        if all(isinstance(v, str) for v in items):
            x = x.astype(str)
        elif all(isinstance(v, bytes) for v in items):
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
            i = int(np.flatnonzero(np.char.str_len(x) == 0)[0])
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
