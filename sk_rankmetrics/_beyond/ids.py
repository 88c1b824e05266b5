"""Item and user ids as int64 or str, and their sorted distinct values.

The beyond-accuracy layer sits beside ``_inputs`` on the import ladder, so it
reads ids itself, with the same rules as the input layer: integers stay
integers, floats only when whole (and below 2**53), strings and bytes become
str; booleans, mixed types, NaN and missing values raise naming the argument.
"""

from __future__ import annotations

import numpy as np

from .._utils.errors import InvalidParameterError, short_repr


def _integer(v):
    return isinstance(v, (int, np.integer)) and not isinstance(v, (bool, np.bool_))


def as_ids(x, arg):
    """``x`` as a 1-D array of int64 or str ids, or an error naming ``arg``."""
    if x is None:
        raise InvalidParameterError(f"{arg} is None; pass one id per entry.")
    if isinstance(x, np.ma.MaskedArray):
        raise InvalidParameterError(f"{arg} is a masked array; pass plain ids.")
    if hasattr(x, "to_numpy") and not isinstance(x, np.ndarray):
        x = x.to_numpy()
    x = np.asarray(x)
    if x.ndim != 1:
        raise InvalidParameterError(f"{arg} must be 1-D (one id per entry), got shape {x.shape}.")
    kind = x.dtype.kind
    if kind == "O":
        values = x.tolist()
        if all(isinstance(v, str) for v in values):
            return x.astype(str)
        if all(isinstance(v, bytes) for v in values):
            return x.astype(bytes).astype(str)
        if all(map(_integer, values)):
            try:
                return x.astype(np.int64)
            except OverflowError:
                raise InvalidParameterError(
                    f"{arg} holds integer ids beyond the 64-bit range; give them as strings."
                ) from None
        bad = next(
            (v for v in values if not (_integer(v) or isinstance(v, str))),
            values[0] if values else None,
        )
        raise InvalidParameterError(
            f"{arg} must hold ids of one type (integers or strings), "
            f"got mixed types or values such as {short_repr(bad)}."
        )
    if kind == "f":
        whole = np.isfinite(x) & (np.mod(np.nan_to_num(x), 1) == 0)
        if not whole.all():
            raise InvalidParameterError(
                f"{arg} holds the value {float(x[~whole][0])!r}, which "
                "is not an id: float ids must be whole numbers (and "
                "not NaN). Give integer or string ids."
            )
        if x.size and np.abs(x).max() >= 2.0**53:
            raise InvalidParameterError(
                f"{arg} holds float ids beyond 2**53, which float64 "
                "cannot tell apart; give integers or strings."
            )
        return x.astype(np.int64)
    if kind == "u":
        if x.size and x.max() > np.iinfo(np.int64).max:
            raise InvalidParameterError(
                f"{arg} holds integer ids beyond the 64-bit range; give them as strings."
            )
        return x.astype(np.int64)
    if kind == "i":
        return x.astype(np.int64, copy=False)
    if kind == "U":
        return x
    if kind == "S":
        return x.astype(str)
    raise InvalidParameterError(f"{arg} must hold integer or string ids, got dtype {x.dtype}.")


def unique(a):
    """The sorted distinct values of ``a``; integers in a compact range are
    marked in a table instead of sorted."""
    a = np.asarray(a).reshape(-1)
    if a.dtype.kind in "iu" and a.shape[0] > 1:
        lo, hi = int(a.min()), int(a.max())
        if hi - lo + 1 <= 4 * a.shape[0]:
            seen = np.zeros(hi - lo + 1, dtype=bool)
            seen[a - lo] = True
            return (np.flatnonzero(seen) + lo).astype(a.dtype)
    if a.dtype.kind not in "iuf":
        return np.unique(a)
    s = np.sort(a)
    if s.shape[0] < 2:
        return s
    keep = np.empty(s.shape[0], dtype=bool)
    keep[0] = True
    np.not_equal(s[1:], s[:-1], out=keep[1:])
    return s[keep]
