"""The layout the engine reads for :func:`~sk_rankmetrics.evaluate_embeddings`.

A block of users is scored by one BLAS product of their factors and the item
factors; on the top-k path each block's candidates (:func:`.topk.top_candidates`)
and held-out items are gathered into a small padded block, several blocks of
scores per call of the ranking pass, so that neither the users x items matrix
nor a full sort of a row is ever needed.
"""

from __future__ import annotations

import threading

import numpy as np

from .._ranking.block import attach_ideals, check_ties, depth
from .._ranking.chunk import rank_chunk
from .._ranking.item_values import BlockValues, ItemMasks, worth_counts
from .topk import sample_items, top_candidates

#: Bytes of one block of scores (users x items) on the top-k path: one BLAS
#: call per block, which packs the item factors anew at every call (a larger
#: block spreads that over more users).
SCORE_BYTES = 64 << 20
#: Bytes of the rows of a block searched for candidates at once: a few
#: thousand rows' temporaries that stay in the cache.
SEARCH_BYTES = 8 << 20
#: Blocks of scores whose candidates are ranked together (the ranking's cost
#: per call does not grow with the users of a call).
RANK_BLOCKS = 2
#: The seed of the fixed random order in which the items are searched.
DEAL_SEED = 0x5EED
#: Elements of one block ranked whole (a full sort per row: int64 temporaries).
FULL_ELEMENTS = 1 << 18
#: A cut-off above this share of the catalogue ranks whole rows.
TOPK_SHARE = 4


def _within(rows, n, after=None):
    """The position of each entry of sorted ``rows`` in its row, counted from
    ``after[row]`` (0 when None)."""
    counts = np.bincount(rows, minlength=n)
    out = np.arange(rows.shape[0]) - np.repeat(np.cumsum(counts) - counts, counts)
    return out if after is None else out + after[rows]


# -- the layout ------------------------------------------------------------------------


def _augment(factors, columns):
    """``factors`` with ``columns`` (1-D arrays, or None: ones) appended."""
    if not columns:
        return factors
    n = factors.shape[0]
    extra = [np.ones(n, dtype=factors.dtype) if c is None else c for c in columns]
    return np.concatenate([factors, np.stack(extra, axis=1)], axis=1)


class EmbeddingInputs:
    """Users of factor-model scores, scored a block of users at a time.

    Offers the layout interface the engine reads (``n_rows``, ``n_cols``,
    ``blocks``, ``ranked_chunk``). ``top`` (if not None) receives the best
    ``top.shape[1]`` item indices of every user.
    """

    diversity = False  # the Layout contract (_inputs/layout.py)

    query_ids = None

    def __init__(
        self,
        users,
        items,
        user_bias,
        item_bias,
        truth,
        exclude,
        *,
        batch_size=None,
        sample=None,
        seed=0,
        top=None,
    ):
        # s = p.q + b_u + b_i as one product: p gets b_u (and 1 against b_i),
        # q gets 1 against b_u (and b_i); a missing bias adds no column.
        self.users = users
        self.user_bias = user_bias
        self.items = _augment(
            items,
            ([None] if user_bias is not None else [])
            + ([item_bias] if item_bias is not None else []),
        )
        self._user_columns = ([user_bias] if user_bias is not None else []) + (
            [None] if item_bias is not None else []
        )
        self.dtype = self.items.dtype
        self.truth = truth
        self.exclude = exclude
        self.n_rows, self.n_cols = truth.shape
        n_excluded = 0 if exclude is None else np.diff(exclude.indptr)
        self.n_real = self.n_cols - n_excluded + np.zeros(self.n_rows, dtype=np.int64)
        self.batch_size = batch_size
        self.sample = sample
        self.seed = seed
        self.top = top
        self._local = threading.local()
        self._lock = threading.Lock()
        self._order = None
        self._dealt_items = None

    def _plan(self, requests):
        """``(full, L)``: whether blocks are ranked whole, and the positions read."""
        needs_full, k_max = depth(requests)
        L = k_max if self.top is None else max(k_max, self.top.shape[1])
        if needs_full:
            return True, self.n_cols
        return worth_counts(requests) or TOPK_SHARE * L > self.n_cols, L

    def blocks(self, requests):
        full, _ = self._plan(requests)
        if self.batch_size is not None:
            step = self.batch_size
        elif self.sample is not None:
            width = min(self.sample, self.n_cols) + int(np.diff(self.truth.indptr).max(initial=0))
            step = max(1, FULL_ELEMENTS // max(width, 1))
        elif full:
            step = max(1, FULL_ELEMENTS // self.n_cols)
        else:
            step = RANK_BLOCKS * self._score_rows()
        return [
            (slice(a, min(a + step, self.n_rows)), (a, min(a + step, self.n_rows)))
            for a in range(0, self.n_rows, step)
        ]

    def _score_rows(self):
        """Users per block of scores on the top-k path."""
        return max(1, SCORE_BYTES // (self.n_cols * self.dtype.itemsize))

    def _user_block(self, a, b):
        return _augment(
            self.users[a:b], [None if c is None else c[a:b] for c in self._user_columns]
        )

    def _truth_rows(self, a, b):
        t = self.truth
        lo, hi = t.indptr[a], t.indptr[b]
        rows = np.repeat(np.arange(b - a), np.diff(t.indptr[a : b + 1]))
        return rows, t.indices[lo:hi].astype(np.int64), t.data[lo:hi]

    def _excluded_rows(self, a, b):
        e = self.exclude
        lo, hi = e.indptr[a], e.indptr[b]
        rows = np.repeat(np.arange(b - a), np.diff(e.indptr[a : b + 1]))
        return rows, e.indices[lo:hi].astype(np.int64)

    def scores(self, a, b, reuse=False, dealt=False):
        """The block of scores of users ``a:b``, excluded items at ``-inf``.

        With ``reuse``, written into this thread's buffer (a fresh block of
        many MiB costs its page faults at every block): valid until the
        thread's next call. With ``dealt``, the columns are the items in the
        order of :meth:`_dealt`.
        """
        out = None
        if reuse:
            buf = getattr(self._local, "buf", None)
            if buf is None or buf.shape[0] < b - a:
                buf = self._local.buf = np.empty((b - a, self.n_cols), dtype=self.dtype)
            out = buf[: b - a]
        items = self._dealt_items if dealt else self.items
        S = np.matmul(self._user_block(a, b), items.T, out=out)
        if self.exclude is not None:
            er, ec = self._excluded_rows(a, b)
            if dealt:
                ec = self._order[1][ec]
            S.reshape(-1)[er * self.n_cols + ec] = -np.inf  # S is C-contiguous
        return S

    def ranked_chunk(self, payload, requests, *, ignore_ties=False):
        a, b = payload
        n, N = b - a, self.n_cols
        trow, tcol, tval = self._truth_rows(a, b)
        n_real = self.n_real[a:b]
        full, L = self._plan(requests)
        if any(r.reads_to_r for r in requests):
            L = max(L, int(np.bincount(trow, minlength=n).max(initial=0)))
            full = full or TOPK_SHARE * L > N
        if self.sample is not None:
            rows, cols, ys = self._sampled(a, b, trow, tcol)
            n_real = np.bincount(rows, minlength=n)
            yt, block, items = self._padded(n, rows, cols, ys, trow, tcol, tval)
        elif full:
            block = self.scores(a, b)
            yt = np.zeros((n, N))
            yt[trow, tcol] = tval
            items = np.broadcast_to(np.arange(N), (n, N))
        else:
            yt, block, items = self._candidate_block(a, b, trow, tcol, tval, L)
        return self._rank(yt, block, items, requests, n_real, L, ignore_ties, a)

    def _padded(self, n, rows, cols, ys, trow, tcol, tval):
        """``(y_true, scores, items)`` of the entries ``(rows, cols)`` (row-major)
        with scores ``ys``: each row's entries left-aligned, padded with
        ``-inf`` scores (and item ``n_items``)."""
        N = self.n_cols
        within = _within(rows, n)
        C = max(int(np.bincount(rows, minlength=n).max(initial=0)), 1)
        block = np.full((n, C), -np.inf, dtype=ys.dtype)
        block[rows, within] = ys
        items = np.full((n, C), N, dtype=np.int64)
        items[rows, within] = cols
        yt = np.zeros((n, C))
        tkeys = trow * N + tcol  # sorted
        keys = rows * N + cols
        pos = np.minimum(np.searchsorted(tkeys, keys), max(tkeys.shape[0] - 1, 0))
        found = tkeys[pos] == keys if tkeys.size else np.zeros(keys.shape, dtype=bool)
        yt[rows[found], within[found]] = tval[pos[found]]
        return yt, block, items

    def _candidate_block(self, a, b, trow, tcol, tval, L):
        """``(y_true, scores, items)`` of users ``a:b``, one row per user: its
        candidates left-aligned, then its held-out items that are not
        candidates, padded with ``-inf`` scores (and item ``n_items``).

        The search runs on the items in the fixed random order of
        :meth:`_dealt` (so that a bound read off the first columns of a row
        does not depend on how the catalogue is ordered); ``items`` holds
        the true item indices, which the tie rules read.
        """
        n, N = b - a, self.n_cols
        order, position = self._dealt()
        pcol = position[tcol]
        s = np.lexsort((pcol, trow))  # the held-out items in the dealt order
        trow, tcol, pcol, tval = trow[s], tcol[s], pcol[s], tval[s]
        rows, cols, ys, tys = self._candidates(a, b, trow, pcol, L)
        keys, tkeys = rows * N + cols, trow * N + pcol  # both sorted
        at = np.minimum(np.searchsorted(keys, tkeys), max(keys.shape[0] - 1, 0))
        hit = (keys[at] == tkeys) if keys.size else np.zeros(tkeys.shape, dtype=bool)
        found = np.bincount(rows, minlength=n)
        within = _within(rows, n)
        xrow, xcol = trow[~hit], tcol[~hit]
        xwithin = _within(xrow, n, found)
        C = max(int((found + np.bincount(xrow, minlength=n)).max(initial=0)), 1)
        block = np.full((n, C), -np.inf, dtype=ys.dtype)
        block[rows, within] = ys
        block[xrow, xwithin] = tys[~hit]
        items = np.full((n, C), N, dtype=np.int64)
        items[rows, within] = order[cols]
        items[xrow, xwithin] = xcol
        yt = np.zeros((n, C))
        at = at[hit]
        yt[rows[at], within[at]] = tval[hit]
        yt[xrow, xwithin] = tval[~hit]
        return yt, block, items

    def _dealt(self):
        """``(order, position)``: the items in a fixed random order, and the
        place of each item in it; the item factors in that order are
        ``self._dealt_items``."""
        with self._lock:
            if self._order is None:
                order = np.random.default_rng(DEAL_SEED).permutation(self.n_cols)
                position = np.empty_like(order)
                position[order] = np.arange(self.n_cols)
                self._dealt_items = np.ascontiguousarray(self.items[order])
                self._order = order, position
        return self._order

    def _candidates(self, a, b, trow, tcol, L):
        """The candidates of users ``a:b`` (row-major, rows local to ``a``;
        columns in the dealt order of :meth:`_dealt`), their scores, and the
        scores of the held-out items ``(trow, tcol)`` (dealt columns).

        The scores are computed a block of users at a time (one BLAS call),
        searched a few rows at a time, and each block's entries are read
        before the next block overwrites it.
        """
        N, step = self.n_cols, self._score_rows()
        rows, cols, ys, tys = [], [], [], []
        t_at = np.searchsorted(trow, np.arange(0, b - a + step, step))
        for i, s0 in enumerate(range(a, b, step)):
            s1 = min(s0 + step, b)
            S = self.scores(s0, s1, reuse=True, dealt=True)
            sub = max(1, SEARCH_BYTES // (N * self.dtype.itemsize))
            for q0 in range(0, s1 - s0, sub):
                part = S[q0 : q0 + sub]
                r, c = top_candidates(part, L)
                rows.append(r + (q0 + s0 - a))
                cols.append(c)
                ys.append(np.take(part.reshape(-1), r * N + c))
            S = S.reshape(-1)
            lo, hi = t_at[i], t_at[i + 1]
            tys.append(np.take(S, (trow[lo:hi] - (s0 - a)) * N + tcol[lo:hi]))
        if len(rows) == 1:
            return rows[0], cols[0], ys[0], tys[0]
        return tuple(np.concatenate(x) for x in (rows, cols, ys, tys))

    def _sampled(self, a, b, trow, tcol):
        """Held-out items plus ``sample`` drawn negatives per user, and their scores."""
        N = self.n_cols
        banned = trow * N + tcol
        if self.exclude is not None:
            er, ec = self._excluded_rows(a, b)
            banned = np.union1d(banned, er * N + ec)

        def forbidden(r, it):
            k = r * N + it
            if not banned.size:
                return np.zeros(k.shape, dtype=bool)
            p = np.minimum(np.searchsorted(banned, k), banned.shape[0] - 1)
            return banned[p] == k

        sr, si = sample_items(self.seed, np.arange(a, b), self.sample, N, forbidden)
        keys = np.union1d(sr * N + si, trow * N + tcol)
        rows, cols = keys // N, keys % N
        U = self._user_block(a, b)
        ys = np.einsum("ij,ij->i", U[rows], self.items[cols])
        return rows, cols, ys

    def _rank(self, yt, ys, items, requests, n_real, L, ignore_ties, row0):
        """The RankedChunk of a block of candidates (see ``rank_block``).

        Every real entry (score above ``-inf``) is a judged item; the row's
        item count is ``n_real`` (the catalogue minus the excluded items), so
        that P@k, judged@k and the other counts see the whole catalogue.
        """
        n, C = ys.shape
        if self.top is not None or ignore_ties:
            # Best first, ties by decreasing item index (the later column
            # first): the order return_top reports and ignore_ties takes.
            order = np.lexsort((-items, -ys), axis=-1)
            if self.top is not None:
                K = self.top.shape[1]
                top = np.full((n, K), -1, dtype=np.int64)
                w = min(K, C)
                got = np.take_along_axis(items, order[:, :w], axis=1)
                # Padding (index n_cols) and excluded items (-inf, as a
                # whole block ranked keeps them) are no candidates.
                real = np.take_along_axis(ys, order[:, :w], axis=1) > -np.inf
                top[:, :w] = np.where((got < self.n_cols) & real, got, -1)
                self.top[row0 : row0 + n] = top
            if ignore_ties:
                yt = np.take_along_axis(yt, order, axis=1)
                real = np.take_along_axis(ys, order, axis=1) > -np.inf
                ys = np.where(real, np.arange(C, 0, -1, dtype=np.float64), -np.inf)
        real = ys > -np.inf
        masks = ItemMasks(real=None if real.all() else real)
        values = BlockValues(yt, requests, row0, masks)
        rc = rank_chunk(
            ys,
            values,
            max(min(L, C), 1),
            ignore_ties=ignore_ties,
            n_items=np.maximum(n_real, 1),
            keep_items=any(r.spec.reads_items for r in requests),
        )
        rc.n_ranked = np.asarray(n_real)
        count = np.asarray(n_real, dtype=np.float64)
        values.totals["judged"] = values.totals["pool"] = count
        rc.totals = values.totals
        rc.block = (ys, values)
        check_ties(rc, requests, ignore_ties)
        return attach_ideals(rc, yt, values, requests, C)
