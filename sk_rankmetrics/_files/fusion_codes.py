"""Ids as integer codes for :func:`~.fusion.fuse`: each run's query and
document ids numbered by hashing (pandas' factorize of the ids packed into
64-bit numbers, no Python object per entry), then the runs' numbers joined
into one sorted list of ids."""

from __future__ import annotations

import numpy as np

from .._utils.arrays import flatnonzero
from .._utils.nonzero import neighbours_differ
from .fusion_table import QueryCodes


def _local_codes(values):
    """``(codes, uniques)`` of an id array, ``values == uniques[codes]``, the
    uniques in no particular order (a hash of the ids, no sort)."""
    if values.dtype.kind not in "UO":
        values = values.astype(str)
    if values.shape[0] == 0:
        return np.zeros(0, dtype=np.int64), values
    if values.dtype.kind == "U":
        codes, first = _text_codes(values)
        return codes, values[first]
    import pandas as pd

    codes, uniq = pd.factorize(values, sort=False)
    return codes.astype(np.int64, copy=False), np.asarray(uniq, dtype=object)


def _grouped_codes(values):
    """``(QueryCodes, ids)`` of a query column: entries of a query usually
    come together, so only the first entry of each stretch is factorised."""
    n = values.shape[0]
    if n == 0:
        codes, uniq = _local_codes(values)
        return QueryCodes(codes, codes, 0), uniq
    new = np.ones(n, dtype=bool)
    neighbours_differ(values, new[1:])
    starts = flatnonzero(new)
    codes, uniq = _local_codes(values[starts])
    return QueryCodes(starts, codes, n), uniq


def _global_codes(parts):
    """The runs' local codes renumbered into one sorted list of ids:
    ``(codes per run, sorted distinct ids)``."""
    uniq = np.concatenate([u for _, u in parts]) if parts else np.zeros(0, dtype=str)
    if uniq.dtype.kind == "O":
        uniq = uniq.astype(str)
    at, ids = _factorize(uniq)
    out, off = [], 0
    for codes, u in parts:
        out.append(at[off:off + u.shape[0]][codes])
        off += u.shape[0]
    return out, ids


def _text_codes(values):
    """``(codes, first)`` of a fixed-width text array without a Python object
    per entry: the code points, read as a matrix (the padding columns no id
    uses dropped), are packed 8 (ASCII) or 2 to a 64-bit number; each
    column of numbers is factorised by pandas and the codes combined, so
    that two entries share a code exactly when their strings are equal.
    ``first`` is the first entry of each code."""
    import pandas as pd

    n = values.shape[0]
    chars = values.view(np.uint32).reshape(n, values.dtype.itemsize // 4)
    if 0 < chars.shape[1] <= 8 and n and int(chars.max()) < 256:
        # Ids of at most 8 one-byte characters: one 64-bit number each.
        block = np.zeros((n, 8), dtype=np.uint8)
        block[:, :chars.shape[1]] = chars
        codes, _ = pd.factorize(block.view(np.uint64).reshape(n))
        codes = codes.astype(np.int64, copy=False)
        first = np.empty(int(codes.max(initial=-1)) + 1, dtype=np.int64)
        first[codes[::-1]] = np.arange(n - 1, -1, -1)
        return codes, first
    width = int(np.strings.str_len(values).max()) if hasattr(np, "strings") else \
        int(flatnonzero(chars.any(axis=0)).max(initial=-1)) + 1
    chars = chars[:, :width]
    ascii_only = width == 0 or int(chars.max()) < 256
    per, kind = (8, np.uint8) if ascii_only else (2, np.uint32)
    codes = np.zeros(n, dtype=np.int64)
    for j in range(0, max(width, 1), per):  # over 8-character slices of the widest id
        block = np.zeros((n, per), dtype=kind)
        block[:, :min(per, width - j)] = chars[:, j:j + per]
        c, u = pd.factorize(block.view(np.uint64).reshape(n))
        codes, _ = pd.factorize(codes * u.shape[0] + c) if j else (c, None)
    codes = codes.astype(np.int64, copy=False)
    first = np.empty(int(codes.max(initial=-1)) + 1, dtype=np.int64)
    first[codes[::-1]] = np.arange(n - 1, -1, -1)
    return codes, first


def _factorize(values):
    """``(codes, uniques)``: ``uniques`` sorted, ``values == uniques[codes]``; by
    hashing (pandas, when installed) then sorting the few distinct values,
    else by NumPy's sort of every value."""
    try:
        import pandas as pd
    except ImportError:
        uniq, codes = np.unique(values, return_inverse=True)
        return codes.reshape(-1).astype(np.int64), uniq
    if values.dtype.kind == "U" and values.shape[0]:
        codes, first = _text_codes(values)
        uniq = values[first]
        # The ids at their own width (a column read as U22 may hold 5 characters):
        # the fused run's id arrays are gathered from these.
        uniq = uniq.astype(f"U{max(int(np.strings.str_len(uniq).max()), 1)}") \
            if hasattr(np, "strings") else uniq
    else:
        codes, uniq = pd.factorize(values, sort=False)
        uniq = np.asarray(uniq)
    order = np.argsort(uniq, kind="stable")
    rank = np.empty(order.shape[0], dtype=np.int64)
    rank[order] = np.arange(order.shape[0])
    return rank[codes], uniq[order]
