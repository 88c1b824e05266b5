"""Text ids as integers: ids of at most 8 characters below U+0100 packed into
one ``uint64`` each in their order (NumPy sorts, searches and compares those
several times faster than text), unpacked again, and integer codes that order
and tie as any ids do."""

from __future__ import annotations

import sys

import numpy as np

from .nonzero import flatnonzero, neighbours_differ


def pack_ids(values, out=None):
    """Each id of a text array as one ``uint64`` in the ids' order (the first
    character in the most significant byte), or None when an id has more than
    8 characters or one at or above U+0100. ``out``, when given, is a
    contiguous ``uint64`` array of the ids' length that receives the keys."""
    if values.dtype.kind != "U" or values.shape[0] == 0 or values.dtype.itemsize == 0:
        return None
    n = values.shape[0]
    chars = np.ascontiguousarray(values).view(np.uint32).reshape(n, values.dtype.itemsize // 4)
    seen = _column_or(chars)  # the width and the largest byte
    if seen[8:].any() or int(seen.max(initial=0)) > 255:
        return None
    width = min(chars.shape[1], 8)
    if out is None:
        block = np.zeros((n, 8), dtype=np.uint8)
    else:
        block = out.view(np.uint8).reshape(n, 8)
        block[:, width:] = 0
    block[:, :width] = chars[:, :8]
    keys = block.view(np.uint64).reshape(n)
    if sys.byteorder == "little":  # the first character most significant
        keys.byteswap(inplace=True)
    return keys


def _key_bytes(keys):
    """The bytes of ``uint64`` keys, most significant first: ``(n, 8)``, a view."""
    b = keys.view(np.uint8).reshape(keys.shape[0], 8)
    return b[:, ::-1] if sys.byteorder == "little" else b


def ordered_codes(values):
    """Integers that order and tie as the ids ``values`` do: integer ids
    themselves, text ids of at most 8 characters below U+0100 packed
    (:func:`pack_ids`), other ids numbered by a sort of the first id of each
    stretch of equal neighbours (ids usually come grouped: the query column
    of a run sorts a few heads, not every entry)."""
    values = np.asarray(values)
    if values.dtype.kind in "iub":
        return values
    keys = pack_ids(values) if values.dtype.kind == "U" else None
    if keys is not None:
        return keys
    n = values.shape[0]
    if n == 0:
        return np.zeros(0, dtype=np.int64)
    new = np.ones(n, dtype=bool)
    neighbours_differ(values, new[1:])
    starts = flatnonzero(new)
    inv = np.unique(values[starts], return_inverse=True)[1].reshape(-1)
    return np.repeat(inv, np.diff(np.append(starts, n)))


def _column_or(chars):
    """Bitwise or of each column of a ``(n, w)`` matrix: 256 rows at a time
    (NumPy's reduction over the first axis of a few columns is slow)."""
    n, w = chars.shape
    whole = n - n % 256
    part = np.bitwise_or.reduce(chars[:whole].reshape(whole // 256, 256 * w), axis=0)
    return np.bitwise_or.reduce(np.concatenate([part.reshape(256, w), chars[whole:]]), axis=0)


def unpack_ids(keys, width, out=None):
    """The ids of :func:`pack_ids` keys, as a text array of ``width`` characters
    (at most 8): the key bytes, most significant first, widened straight into
    the characters (no byte-swapped copy of the keys). ``out``, when given, is
    a contiguous array of that dtype and length."""
    keys = np.ascontiguousarray(keys, dtype=np.uint64)
    return text_of_bytes(_key_bytes(keys), width, out)


def text_of_bytes(chars, width, out=None):
    """Characters below U+0100, one row of ``(n, >= width)`` bytes per id
    (zeros past an id's end), as a text array of ``width`` characters: the
    first ``width`` bytes of each row widened into its characters by one cast.
    ``out``, when given, is a contiguous array of that dtype and length."""
    width = max(int(width), 1)
    n = chars.shape[0]
    if out is None:
        out = np.empty(n, dtype=f"U{width}")
    dest = out.view(np.uint32).reshape(n, width)
    if 1 < width < chars.shape[1] and n <= _COLUMN_ROWS:
        # A few thousand ids (a block) of fewer characters than bytes per row:
        # NumPy's cast would run one short loop per id; a column at a time
        # runs one loop per character over ids still in the cache.
        for j in range(width):
            np.copyto(dest[:, j], chars[:, j], casting="unsafe")
    else:
        np.copyto(dest, chars[:, :width], casting="unsafe")
    return out


#: The most ids :func:`text_of_bytes` writes a column at a time.
_COLUMN_ROWS = 1 << 19
