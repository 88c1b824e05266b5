"""Exact integer codes for id columns, built once from their 64-bit keys.

Every function here compares ids through the keys of :mod:`.tokens` and
verifies, byte for byte, every pair of entries it treats as equal whose key
is a hash (ids longer than 8 bytes). A verified mismatch, a hash collision,
sends the entries concerned through an exact path over their bytes, so that
two different ids are never merged.
"""

from __future__ import annotations

import numpy as np

from .._utils.nonzero import flatnonzero, neighbours_differ
from .tokens import CollapsedColumn


def _exact_codes(col, rows):
    """Codes of entries ``rows`` by their bytes (a Python dict: the slow, exact path)."""
    seen = {}
    out = np.empty(rows.shape[0], dtype=np.int64)
    for i, r in enumerate(rows.tolist()):
        out[i] = seen.setdefault(col.bytes_of(r), len(seen))
    return out


def factorize_collapsed(col):
    """Codes of the runs of a :class:`~.tokens.CollapsedColumn`, numbered in byte
    order of the ids: ``(codes, reps)``, ``codes[j]`` for run ``j`` and
    ``reps[c]`` a run holding id ``c``."""
    return factorize(col.heads)


def factorize(col, ordered=True):
    """Exact codes of a column, numbered in byte order of the ids (in no
    particular order with ``ordered=False``, which saves sorting the ids).

    Returns ``(codes, reps)``: ``codes[i]`` (int32 when that holds them) for
    every entry, and ``reps[c]``, an entry holding id ``c``. Runs of equal
    keys (ids usually come in runs) are collapsed first. The result is kept
    on the column (it is asked for when reading and when evaluating).
    """
    cache = getattr(col, "_factorized", None)
    if cache is None:
        cache = col._factorized = {}
    if True in cache or ordered in cache:
        return cache.get(True) or cache[ordered]
    if isinstance(col, CollapsedColumn):
        codes, reps = factorize(col.heads, ordered)
        out = np.repeat(codes, col.lens), col.starts[reps]
    else:
        out = _factorize(col, ordered)
    cache[ordered] = out
    return out


def _factorize(col, ordered):
    keys = col.keys
    n = keys.shape[0]
    if n == 0:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    new = np.empty(n, dtype=bool)
    new[0] = True
    neighbours_differ(keys, new[1:])
    starts = flatnonzero(new)
    run = np.cumsum(new, dtype=np.int64)
    run -= 1
    del new
    _, first, inv = np.unique(keys[starts], return_index=True, return_inverse=True)
    inv = inv.reshape(-1)
    rep_of_run = starts[first[inv]]
    exact = True
    if col.long_rows.size:
        # Entries with a hashed key, or in a group whose representative has one:
        # check each against that representative, byte for byte.
        is_long = np.zeros(n, dtype=bool)
        is_long[col.long_rows] = True
        check = flatnonzero(is_long | is_long[rep_of_run][run])
        exact = bool(col.same(check, col, rep_of_run[run[check]]).all())
    if exact:
        codes_u = inv
        reps = starts[first]
    else:
        codes_u = _exact_codes(col, np.arange(n))
        reps = np.zeros(int(codes_u.max()) + 1, dtype=np.int64)
        reps[codes_u[::-1]] = np.arange(n)[::-1]
        if not ordered:
            return codes_u, reps
        order = np.argsort(col.lex_rank(reps), kind="stable")
        remap = np.empty_like(order)
        remap[order] = np.arange(order.shape[0])
        return remap[codes_u], reps[order]
    dtype = np.int32 if reps.shape[0] < 2**31 else np.int64
    if not ordered:
        return codes_u.astype(dtype)[run], reps
    # Number the codes in byte order of the ids.
    order = np.argsort(col.lex_rank(reps), kind="stable")
    remap = np.empty_like(order)
    remap[order] = np.arange(order.shape[0])
    return remap.astype(dtype)[codes_u][run], reps[order]
