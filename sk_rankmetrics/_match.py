"""Exact integer codes for id columns, built once from their 64-bit keys.

Every function here compares ids through the keys of :mod:`._bytes` and
verifies, byte for byte, every pair of entries it treats as equal whose key
is a hash (ids longer than 8 bytes). A verified mismatch, a hash collision,
sends the entries concerned through an exact path over their bytes, so that
two different ids are never merged.
"""

from __future__ import annotations

import numpy as np

from ._bytes import _K0, _mix


def pair_keys(codes, col):
    """One 64-bit key per (code, id) pair (equal pairs have equal keys)."""
    out = codes.astype(np.uint64)
    out *= _K0
    out += col.keys
    return _mix(out, inplace=True)


#: Entries screened per step (bounded temporaries).
_STEP = 1 << 20


def _exact_codes(col, rows):
    """Codes of entries ``rows`` by their bytes (a Python dict: the slow, exact path)."""
    seen = {}
    out = np.empty(rows.shape[0], dtype=np.int64)
    for i, r in enumerate(rows.tolist()):
        out[i] = seen.setdefault(col.bytes_of(r), len(seen))
    return out


def factorize(col):
    """Exact codes of a column, numbered in byte order of the ids.

    Returns ``(codes, reps)``: ``codes[i]`` (int32 when that holds them) for
    every entry, and ``reps[c]``, an entry holding id ``c``. Runs of equal
    keys (ids usually come in runs) are collapsed first. The result is kept
    on the column (it is asked for when reading and when evaluating).
    """
    cached = getattr(col, "_factorized", None)
    if cached is not None:
        return cached
    col._factorized = out = _factorize(col)
    return out


def _factorize(col):
    keys = col.keys
    n = keys.shape[0]
    if n == 0:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    new = np.empty(n, dtype=bool)
    new[0] = True
    np.not_equal(keys[1:], keys[:-1], out=new[1:])
    starts = np.flatnonzero(new)
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
        check = np.flatnonzero(is_long | is_long[rep_of_run][run])
        exact = bool(col.same(check, col, rep_of_run[run[check]]).all())
    if exact:
        codes_u = inv
        reps = starts[first]
    else:
        codes_u = _exact_codes(col, np.arange(n))
        reps = np.zeros(int(codes_u.max()) + 1, dtype=np.int64)
        reps[codes_u[::-1]] = np.arange(n)[::-1]
        order = np.argsort(col.lex_rank(reps), kind="stable")
        remap = np.empty_like(order)
        remap[order] = np.arange(order.shape[0])
        return remap[codes_u], reps[order]
    # Number the codes in byte order of the ids.
    order = np.argsort(col.lex_rank(reps), kind="stable")
    remap = np.empty_like(order)
    remap[order] = np.arange(order.shape[0])
    dtype = np.int32 if order.shape[0] < 2**31 else np.int64
    return remap.astype(dtype)[codes_u][run], reps[order]


def lookup(vocab, vocab_rows, col):
    """Position in ``vocab_rows`` of the id of each entry of ``col``, or -1.

    ``vocab_rows`` are entries of column ``vocab`` holding distinct ids.
    A bitmap of the vocabulary's keys screens out most entries of a large
    column; the rest are found by a sorted search and verified.
    """
    n = len(col)
    out = np.full(n, -1, dtype=np.int64)
    if n == 0 or vocab_rows.shape[0] == 0:
        return out
    vk = vocab.keys[vocab_rows]
    order = np.argsort(vk, kind="stable")
    sk = vk[order]
    if n > 8 * vk.shape[0]:
        bits = int(min(max(np.ceil(np.log2(vk.shape[0] * 32)), 10), 26))
        shift = np.uint64(64 - bits)
        table = np.zeros(1 << bits, dtype=bool)
        table[(_mix(vk) >> shift).astype(np.intp)] = True
        cand = np.concatenate([
            np.flatnonzero(table[(_mix(col.keys[a : a + _STEP]) >> shift).astype(np.intp)]) + a
            for a in range(0, n, _STEP)])
    else:
        cand = np.arange(n)
    ck = col.keys[cand]
    p = np.minimum(np.searchsorted(sk, ck), sk.shape[0] - 1)
    hit = sk[p] == ck
    cand, p = cand[hit], p[hit]
    pos = order[p]
    ok = col.same(cand, vocab, vocab_rows[pos])
    clash = sk[1:] == sk[:-1]
    if ok.all() and not clash.any():
        out[cand] = pos
        return out
    # A key shared by different ids: look those entries up by their bytes.
    by_bytes = {vocab.bytes_of(r): i for i, r in enumerate(vocab_rows.tolist())}
    out[cand[ok]] = pos[ok]
    shared = np.isin(ck[hit], sk[1:][clash]) | ~ok
    for r in cand[shared].tolist():
        out[r] = by_bytes.get(col.bytes_of(r), -1)
    return out
