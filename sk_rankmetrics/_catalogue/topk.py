"""Which items of a block of scores can reach the top ``L``, and seeded item samples.

:func:`top_candidates` finds, for every row of a block of scores, a small set
of entries that holds the row's ``L`` best *and every entry tied with the
``L``-th score*, without sorting or partitioning the rows. The first ``s``
columns of the rows are dealt into ``G >= L`` interleaved groups (column
``j`` in group ``j mod G``); the maxima of ``L`` distinct groups are ``L``
distinct entries, so the ``L``-th largest group maximum ``t`` is a lower
bound of the row's ``L``-th largest score. Every entry ``>= t`` is a
candidate. The cost is one reduction over the first ``s`` columns (contiguous
in each row), one comparison pass over the block, and work in the number of
candidates. The bound is tight when the first columns are a fair sample of
the row: the caller deals the items in a random order (a catalogue sorted by
popularity would otherwise put its most or least likely items first); any
order gives the same candidates' superset property, only more of them.

:func:`sample_items` draws items per user from a counter-based hash, so that
the sample of a user depends on the seed and the user only, never on how the
users are split into blocks.
"""

from __future__ import annotations

import numpy as np

from .._utils.hashing import GOLDEN, mix
from .._utils.nonzero import flatnonzero, nonzero_2d

#: Groups per position of the cut-off: more groups give a tighter bound (fewer
#: candidates) and a larger (rows x groups) partition.
GROUPS_PER_POSITION = 16
#: The bound reads about ``sqrt(SAMPLE_FACTOR * N * L)`` of a row's ``N``
#: columns (the first ones, in whole stripes of ``G``). Reading ``s`` columns costs
#: in ``s`` and leaves about ``N * L / s`` candidates, whose ranking costs in
#: their number; the square root balances the two (the factor is their
#: measured ratio of costs per entry).
SAMPLE_FACTOR = 180


def top_candidates(scores, L):
    """Rows and columns of a superset of each row's top ``L`` and of the ties of its ``L``-th.

    Parameters
    ----------
    scores : ndarray of shape (n, N), float
        Finite scores, and ``-inf`` for entries that are not candidates
        (excluded items); ``4 * L <= N``.
    L : int

    Returns
    -------
    rows, cols : ndarray of int
        The candidates in row-major order: every entry above ``-inf`` that is
        at least the row's bound. A row with fewer than ``L`` entries above
        ``-inf`` gets all of them.
    """
    n, N = scores.shape
    G = min(GROUPS_PER_POSITION * L, N // 2)
    # The first `members` stripes of G columns: column j is in group j mod G.
    members = min(N // G, max(1, round(np.sqrt(SAMPLE_FACTOR * N * L) / G)))
    gmax = scores[:, : G * members].reshape(n, members, G).max(axis=1)
    t = np.partition(gmax, G - L, axis=1)[:, G - L]
    # Never below the lowest finite score: excluded entries (-inf) never qualify.
    np.maximum(t, np.finfo(scores.dtype).min, out=t)
    flat = flatnonzero(scores >= t[:, None])
    rows = flat // N
    return rows, flat - rows * N


def _user_streams(seed, users):
    with np.errstate(over="ignore"):
        return mix(mix(np.uint64(seed)) ^ (users.astype(np.uint64) * GOLDEN))


def sample_items(seed, users, n, n_items, forbidden):
    """``n`` distinct items per user, uniformly among those not forbidden.

    Parameters
    ----------
    seed : int
    users : ndarray of shape (m,), int
        Global user indices (the sample of a user depends on it and the seed).
    n : int
    n_items : int
    forbidden : callable
        ``forbidden(local_rows, items)`` -> bool array: whether each pair may
        not be drawn (excluded items, held-out items).

    Returns
    -------
    rows, items : ndarray of int
        The drawn pairs, sorted by local row; a row with fewer than ``n``
        allowed items gets all of them.

    Notes
    -----
    The ``j``-th draw of user ``u`` is ``mix(stream(u) + j) mod n_items``.
    Draws that are forbidden or repeat an earlier draw are rejected; the
    first ``n`` accepted ones are kept (sampling without replacement). A
    user still short after ``2 n + 32`` draws (few allowed items) instead
    takes the ``n`` allowed items of smallest hash ``mix(stream(u) ^ item)``:
    also uniform, and also a function of the user alone.
    """
    m = users.shape[0]
    # No user has more than n_items allowed items: a larger n takes them all
    # (the fallback below), and the draws stay bounded by the catalogue.
    n = min(int(n), n_items)
    streams = _user_streams(seed, users)
    draws = 2 * n + 32
    j = np.arange(draws, dtype=np.uint64)
    with np.errstate(over="ignore"):
        h = mix(streams[:, None] + j[None, :])
    items = (h % np.uint64(n_items)).astype(np.int64)
    rows = np.repeat(np.arange(m), draws)
    items = items.reshape(-1)
    order = np.tile(np.arange(draws), m)
    ok = ~forbidden(rows, items)
    rows, items, order = rows[ok], items[ok], order[ok]
    # The first draw of each (row, item): sort by key, then by draw.
    keys = rows * n_items + items
    s = np.lexsort((order, keys))
    keys, order = keys[s], order[s]
    first = np.ones(keys.shape[0], dtype=bool)
    first[1:] = keys[1:] != keys[:-1]
    keys, order = keys[first], order[first]
    rows = keys // n_items
    # Rank of each kept draw within its row, in draw order.
    s = np.lexsort((order, rows))
    keys, rows = keys[s], rows[s]
    counts = np.bincount(rows, minlength=m)
    within = np.arange(rows.shape[0]) - np.repeat(np.cumsum(counts) - counts, counts)
    keep = within < n
    keys, rows = keys[keep], rows[keep]
    short = flatnonzero(np.minimum(counts, n) < n)
    if short.size:
        # Rare rows: the n allowed items of smallest hash, over the whole catalogue.
        every = np.arange(n_items, dtype=np.int64)
        r = np.repeat(short, n_items)
        it = np.tile(every, short.size)
        with np.errstate(over="ignore"):
            hk = mix(streams[r] ^ mix(it.astype(np.uint64))).reshape(short.size, n_items)
        bad = forbidden(r, it).reshape(short.size, n_items)
        order2 = np.argsort(hk, axis=1, kind="stable")
        okay = ~np.take_along_axis(bad, order2, axis=1)
        pick = okay & (np.cumsum(okay, axis=1) <= n)
        pr, pc = nonzero_2d(pick)
        extra_rows = short[pr]
        extra_items = order2[pr, pc]
        drop = np.isin(rows, short)
        rows = np.concatenate([rows[~drop], extra_rows])
        items_out = np.concatenate([keys[~drop] % n_items, extra_items])
        s = np.lexsort((items_out, rows))
        return rows[s], items_out[s]
    items_out = keys % n_items
    s = np.lexsort((items_out, rows))
    return rows[s], items_out[s]
