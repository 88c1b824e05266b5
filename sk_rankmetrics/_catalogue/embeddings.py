"""Recommender evaluation over the whole catalogue, from user and item factors.

The scores of a block of users are one BLAS product of their factors (with
the biases appended as two more columns) and the item factors, in the
factors' dtype. Excluded items get the score ``-inf`` in the block; the
block is then cut down to the entries that can reach the top ``L``
(:func:`.topk.top_candidates`, which keeps every entry tied with the
``L``-th) plus the user's held-out items, and that small padded block goes
through the same ranking pass and kernels as the matrix functions. A
measure that reads the whole ranking (``"map"`` without a cut-off, bpref)
ranks the whole block instead. No users x items matrix is ever held.
"""

from __future__ import annotations

import os
import threading
from typing import Any

import numpy as np
import scipy.sparse as sp
from numpy.typing import ArrayLike, NDArray

from .._evaluation.engine import PARALLEL_MIN_ELEMENTS
from .._evaluation.engine import compute as engine_compute
from .._evaluation.reduce import reduce_results
from .._evaluation.result import EvaluationResult
from .._metrics.names import parse_name
from .._metrics.requests import Request, as_metric_list, split_request
from .._ranking.block import attach_ideals, check_ties, depth
from .._ranking.chunk import rank_chunk
from .._ranking.item_values import BlockValues, ItemMasks, worth_counts
from .._utils.errors import InvalidParameterError, short_repr
from .._utils.params import validate
from .._utils.threads import N_THREADS
from .._utils.types import ExcludeRelevant, Metrics, NoRelevant, Progress
from .ids import IdIndex, id_form, pairs_by_id, top_ids
from .topk import sample_items, top_candidates

#: Bytes of one block of scores (users x items) on the top-k path: small
#: enough to stay in the cache between the product and the candidate search.
SCORE_BYTES = 32 << 20
#: Blocks of scores whose candidates are ranked together (the ranking's cost
#: per call does not grow with the users of a call).
RANK_BLOCKS = 4
#: Elements of one block ranked whole (a full sort per row: int64 temporaries).
FULL_ELEMENTS = 1 << 18
#: A cut-off above this share of the catalogue ranks whole rows.
TOPK_SHARE = 4

WHERE = "evaluate_embeddings"


# -- inputs -------------------------------------------------------------------------


def _factors(a, name):
    if sp.issparse(a):
        raise TypeError(f"{WHERE}: {name} must be a dense 2-D array, got a sparse matrix.")
    arr = np.asarray(a)
    if arr.dtype.kind not in "biuf" or arr.ndim != 2:
        raise ValueError(
            f"{WHERE}: {name} must be a 2-D array of numbers (one row per "
            f"{'user' if name.startswith('user') else 'item'}, one column per dimension), "
            f"got {arr.dtype} of shape {arr.shape}."
        )
    if arr.dtype.kind != "f":
        arr = arr.astype(np.float64)
    elif arr.dtype.itemsize < 4:
        arr = arr.astype(np.float32)
    # min and max propagate NaN: no factor-sized temporary unless one is bad.
    if arr.size and not (np.isfinite(arr.min()) and np.isfinite(arr.max())):
        bad = ~np.isfinite(arr).all(axis=1)
        raise ValueError(
            f"{WHERE}: {name} holds NaN or infinite values ({int(bad.sum())} rows, the "
            f"first: row {int(np.flatnonzero(bad)[0])}); factors must be finite."
        )
    return arr


def _largest(a):
    """max |a| without an ``a``-sized temporary."""
    return max(abs(float(a.max())), abs(float(a.min())))


def _bias(b, n, name, dtype):
    if b is None:
        return None
    arr = np.asarray(b)
    if arr.dtype.kind not in "biuf" or arr.shape != (n,):
        raise ValueError(
            f"{WHERE}: {name} must be a 1-D array of {n} numbers (one per row of the "
            f"factors), got {arr.dtype} of shape {arr.shape}."
        )
    if not np.isfinite(arr).all():
        raise ValueError(f"{WHERE}: {name} holds NaN or infinite values.")
    return arr.astype(dtype)


def _from_pairs(pairs, shape, name):
    """``(users, items)`` or ``(users, items, relevance)``: row and column indices."""
    cols = [np.asarray(c) for c in pairs]
    n = cols[0].shape[0] if cols[0].ndim == 1 else -1
    if any(c.ndim != 1 or c.shape[0] != n for c in cols):
        raise ValueError(
            f"{WHERE}: {name} as a tuple must hold 1-D arrays of one length: (user "
            f"indices, item indices) or (user indices, item indices, relevance)."
        )
    for c, what, size in ((cols[0], "user", shape[0]), (cols[1], "item", shape[1])):
        if n and (c.dtype.kind not in "iu" or c.min() < 0 or c.max() >= size):
            raise ValueError(
                f"{WHERE}: the {what} indices of {name} must be integers in 0 .. "
                f"{size - 1} (rows of the {what} factors), got {c.dtype} values "
                f"from {c.min()} to {c.max()}."
            )
    values = cols[2] if len(cols) == 3 else np.ones(n)
    m = sp.csr_array((values, (cols[0], cols[1])), shape=shape)
    m.sum_duplicates()
    if name == "y_true" and m.nnz < n:  # a repeat in exclude excludes the pair once
        raise ValueError(
            f"{WHERE}: {name} names a (user, item) pair twice ({n - m.nnz} repeats); give "
            "each pair once (for a data frame: df.drop_duplicates(['user', 'item']))."
        )
    return m


def _matrix(a, shape, name, dtype):
    """``a`` as a canonical CSR array (sorted, summed, no stored zeros)."""
    if a is None:
        return None
    if sp.issparse(a):
        m = sp.csr_array(a)
    elif isinstance(a, tuple) and len(a) in (2, 3):
        m = _from_pairs(a, shape, name)
    else:
        arr = np.asarray(a)
        if arr.dtype.kind not in "biuf":
            raise TypeError(
                f"{WHERE}: {name} must be a scipy.sparse matrix or a 2-D array of "
                f"numbers, got {arr.dtype}."
            )
        m = sp.csr_array(np.atleast_2d(arr))
    if m.shape != shape:
        raise ValueError(
            f"{WHERE}: {name} has shape {m.shape}; it must be (n_users, n_items) = "
            f"{shape}, the rows of user_factors by the rows of item_factors."
        )
    m = sp.csr_array(m, dtype=dtype)  # shares the user's arrays when it can
    if not m.has_canonical_format or not m.data.all():
        m = m.copy()  # never change the user's matrix in place
        m.sum_duplicates()
        m.eliminate_zeros()
    if dtype == np.float64 and not np.isfinite(m.data).all():
        raise ValueError(f"{WHERE}: {name} holds NaN or infinite values.")
    return m


#: Users per step of the leak check (its temporaries grow with the step's pairs).
CHECK_USERS = 1 << 14


def _row_keys(m, a, b):
    """``row * n_cols + col`` of the entries of rows ``a:b`` (sorted: canonical CSR)."""
    lo, hi = m.indptr[a], m.indptr[b]
    rows = np.repeat(np.arange(a, b, dtype=np.int64), np.diff(m.indptr[a : b + 1]))
    return rows * m.shape[1] + m.indices[lo:hi]


def _without_excluded(truth, exclude, policy):
    """The truth without the excluded pairs, or the leak error (checked a few
    thousand users at a time)."""
    n_users = truth.shape[0]
    leaks = []
    for a in range(0, n_users, CHECK_USERS):
        b = min(a + CHECK_USERS, n_users)
        ek, tk = _row_keys(exclude, a, b), _row_keys(truth, a, b)
        if ek.size and tk.size:
            hit = ek[np.minimum(np.searchsorted(ek, tk), ek.shape[0] - 1)] == tk
            if hit.any():
                leaks.append(truth.indptr[a] + np.flatnonzero(hit))
    if not leaks:
        return truth
    leak = np.concatenate(leaks)
    if policy == "raise":
        first = int(np.searchsorted(truth.indptr, leak[0], side="right") - 1)
        raise ValueError(
            f"{WHERE}: y_true marks {leak.shape[0]} excluded (user, item) pairs as "
            f"relevant (the first: user {first}, item {int(truth.indices[leak[0]])}). An "
            "excluded item is never ranked, so these can never be found; a held-out item "
            "that is also a training item usually means the splits leak. Pass "
            "exclude_relevant='drop' to drop those pairs from the truth."
        )
    keep = np.ones(truth.nnz, dtype=bool)
    keep[leak] = False
    rows = np.repeat(np.arange(n_users), np.diff(truth.indptr))
    return sp.csr_array((truth.data[keep], (rows[keep], truth.indices[keep])), shape=truth.shape)


def _requests(metrics, k):
    out = []
    for item in as_metric_list(metrics):
        label, opts = split_request(item)
        spec, kk, preset = parse_name(label)
        if k is not None and kk is None and spec.takes_k:
            kk = k
        out.append(Request(spec, kk, opts, label, preset=preset, where=WHERE))
    labels = [r.label for r in out]
    if len(set(labels)) != len(labels):
        raise InvalidParameterError(f"{WHERE}: metrics names a metric twice: {labels}.")
    return out


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
            width = self.sample + int(np.diff(self.truth.indptr).max(initial=0))
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

    def scores(self, a, b, reuse=False):
        """The block of scores of users ``a:b``, excluded items at ``-inf``.

        With ``reuse``, written into this thread's buffer (a fresh block of
        many MiB costs its page faults at every block): valid until the
        thread's next call.
        """
        out = None
        if reuse:
            buf = getattr(self._local, "buf", None)
            if buf is None or buf.shape[0] < b - a:
                buf = self._local.buf = np.empty((b - a, self.n_cols), dtype=self.dtype)
            out = buf[: b - a]
        S = np.matmul(self._user_block(a, b), self.items.T, out=out)
        if self.exclude is not None:
            er, ec = self._excluded_rows(a, b)
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
        candidates, padded with ``-inf`` scores (and item ``n_items``)."""
        n, N = b - a, self.n_cols
        rows, cols, ys, tys = self._candidates(a, b, trow, tcol, L)
        keys, tkeys = rows * N + cols, trow * N + tcol  # both sorted
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
        items[rows, within] = cols
        items[xrow, xwithin] = xcol
        yt = np.zeros((n, C))
        at = at[hit]
        yt[rows[at], within[at]] = tval[hit]
        yt[xrow, xwithin] = tval[~hit]
        return yt, block, items

    def _candidates(self, a, b, trow, tcol, L):
        """The candidates of users ``a:b`` (row-major, rows local to ``a``),
        their scores, and the scores of the held-out items ``(trow, tcol)``.

        The scores are computed a cache-sized block of users at a time, and
        each block's entries are read before the next block overwrites it.
        """
        N, step = self.n_cols, self._score_rows()
        rows, cols, ys, tys = [], [], [], []
        t_at = np.searchsorted(trow, np.arange(0, b - a + step, step))
        for i, s0 in enumerate(range(a, b, step)):
            s1 = min(s0 + step, b)
            S = self.scores(s0, s1, reuse=True).reshape(-1)
            r, c = top_candidates(S.reshape(s1 - s0, N), L)
            rows.append(r + (s0 - a))
            cols.append(c)
            ys.append(np.take(S, r * N + c))
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
            # Best first, ties by increasing item index: the order return_top
            # reports and ignore_ties takes.
            order = np.lexsort((items, -ys), axis=-1)
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


# -- the public function -----------------------------------------------------------


@validate
def evaluate_embeddings(
    user_factors: ArrayLike,
    item_factors: ArrayLike,
    y_true: ArrayLike | sp.sparray | sp.spmatrix,
    metrics: Metrics,
    *,
    k: int | None = None,
    exclude: ArrayLike | sp.sparray | sp.spmatrix | None = None,
    exclude_relevant: ExcludeRelevant = "raise",
    user_bias: ArrayLike | None = None,
    item_bias: ArrayLike | None = None,
    ignore_ties: bool = False,
    no_relevant: NoRelevant = "warn",
    batch_size: int | None = None,
    sample_negatives: int | None = None,
    random_state: int | None = None,
    return_top: bool = False,
    progress: Progress | None = None,
    user_ids: ArrayLike | None = None,
    item_ids: ArrayLike | None = None,
) -> EvaluationResult | tuple[EvaluationResult, NDArray[Any]]:
    r"""Score a factor model on the whole catalogue, one block of users at a time.

    The score of user :math:`u` for item :math:`i` is the dot product of
    their factors plus the biases,

    .. math::

        s_{ui} = \mathbf{p}_u \cdot \mathbf{q}_i + b_u + b_i ,

    each user's candidates are the items not excluded for it, and every
    metric reads the ranking of the candidates by :math:`s_{ui}`, against
    the user's row of ``y_true`` without its excluded items. The values are
    those of :func:`evaluate` on the dense score matrix in long format
    without the excluded pairs; the users x items matrix is never built.

    Parameters
    ----------
    user_factors : array-like of shape (n_users, n_dims)
        One row of factors per user (float32 stays float32).
    item_factors : array-like of shape (n_items, n_dims)
        One row of factors per item.
    y_true : scipy.sparse matrix, array-like of shape (n_users, n_items), tuple, dict or data frame
        Held-out relevance: the stored non-zero entries are the user's test
        items (graded or binary); every other item has relevance 0. A tuple
        ``(user_indices, item_indices)`` (binary) or ``(user_indices,
        item_indices, relevance)`` gives the pairs by the rows of the
        factors. By id (the forms of :func:`evaluate_ranked`'s truth): a
        dict ``{user: {item, ...}}`` or ``{user: {item: relevance}}``; a
        pandas or polars data frame with user, item and optionally
        relevance columns (named as :func:`evaluate_ranked` reads them:
        ``user``, ``user_id``, ``query``, ...; ``item``, ``item_id``,
        ``docno``, ...; ``relevance``, ``rel``, ``label``, ...; default 1);
        and, when ``user_ids`` or ``item_ids`` is given, a tuple ``(user ids,
        item ids[, relevance])``. Ids are looked up in ``user_ids`` and
        ``item_ids`` (a side without them is named by row index). A pair
        given twice raises.
    metrics : str or list of str or (name, options) pairs
        Names such as ``"ndcg@20"``, ``"recall@20"``, ``"map"``; every name
        :func:`evaluate` accepts.
    k : int, optional
        Cut-off added to every name that has none (``"ndcg"`` ->
        ``"ndcg@k"``); also the width of the lists ``return_top`` returns.
    exclude : scipy.sparse matrix, array-like of shape (n_users, n_items) or tuple, optional
        Items that are not candidates for a user (typically its training
        interactions): every stored non-zero entry, or the pairs of a tuple
        ``(user_indices, item_indices)``; or by id, in the forms ``y_true``
        takes (a pair given twice is excluded once; a pair whose relevance
        is 0 is not excluded). An excluded item is neither ranked nor part
        of the user's truth.
    exclude_relevant : {"raise", "drop"}, default="raise"
        What to do when ``y_true`` marks an excluded item relevant: raise,
        counting such pairs, or drop them from the truth.
    user_bias : array-like of shape (n_users,), optional
        :math:`b_u` (it shifts a user's scores and does not change their
        order).
    item_bias : array-like of shape (n_items,), optional
        :math:`b_i`, for example a popularity term.
    ignore_ties : bool, default=False
        True takes tied scores in increasing item index instead of the
        expected value over their orderings.
    no_relevant : "warn", "skip" or float, default="warn"
        The value of a user without a relevant item (after exclusion).
    batch_size : int, optional
        Users per block; None sizes blocks to a fixed memory budget. The
        values do not depend on it.
    sample_negatives : int, optional
        Rank each user's held-out items among this many items drawn
        uniformly, without replacement, from its other non-excluded items,
        instead of among the whole catalogue (see Notes: a different
        measure).
    random_state : int, optional
        The seed of ``sample_negatives``; a user's sample depends on the seed
        and the user only. None draws a fresh seed.
    return_top : bool, default=False
        Also return the best ``k`` item indices of every user.
    progress : callable, optional
        Called as ``progress(done, total)`` after each block of users.
    user_ids : array-like of shape (n_users,), optional
        The id of each row of ``user_factors`` (integers or strings, each
        once). An id of ``y_true`` or ``exclude`` that is not here raises,
        counting them: a user without factors cannot be scored.
    item_ids : array-like of shape (n_items,), optional
        The id of each row of ``item_factors`` (integers or strings, each
        once). An id of ``y_true`` or ``exclude`` that is not here raises,
        counting them: a cold-start item cannot be ranked; drop its pairs
        first.

    Returns
    -------
    result : EvaluationResult
        Per-user values (``result.per_query``, one row per row of
        ``user_factors``; ``result.query_ids`` holds ``user_ids``, or
        ``0 .. n_users - 1`` without them) and means.
    top : ndarray of shape (n_users, k)
        Only with ``return_top``: item indices best first, ties by increasing
        index; -1 past the user's last candidate. With ``item_ids``, the
        item ids instead (int64 for integer ids, str for text), and past the
        last candidate a fill that is never an id: ``""`` for text ids,
        ``-1`` for integer ids (or ``min(item_ids) - 1`` when -1 is an id).

    Notes
    -----
    Cost: the block products, :math:`O(n_u\, n_i\, d)`, plus one pass of
    maxima over each block; memory is bounded by the block size whatever the
    number of users. For a cut-off :math:`L` (the deepest asked for), the
    columns of a block are dealt into :math:`G \ge L` groups; the
    :math:`L`-th largest group maximum bounds the row's :math:`L`-th score
    from below, so the items at or above it hold the top :math:`L` and
    every item tied with the :math:`L`-th score. They and the user's
    held-out items are ranked as the dense functions rank a row, with the
    same tie rule. A measure of the whole ranking (``"map"`` or ``"ndcg"``
    without a cut-off, bpref, R-precision when :math:`R` is large) ranks
    whole blocks instead, which costs a sort per user.

    Blocks of users are scored on the engine's threads, with BLAS limited to
    an equal share of the cores each while the function runs
    (``threadpoolctl``; the limit is process-wide), so that products and
    ranking overlap. The product of a
    block is computed by BLAS; a different block layout can
    round a float score differently in its last bit, which can only matter
    for scores that tie to within that rounding. Factors whose scores could
    overflow their dtype raise.

    A user whose candidates are all excluded, or without held-out item, is
    handled by ``no_relevant``. Every other user counts, as in the
    recommender libraries that score every test user.

    Sampled metrics (``sample_negatives``) rank each held-out item among a
    few hundred random items; they are not estimates of the full-catalogue
    metrics and can order two models differently (Krichene and Rendle,
    2020). Prefer the full ranking, which this function makes affordable.

    References
    ----------
    .. [1] W. Krichene and S. Rendle, "On Sampled Metrics for Item
       Recommendation", KDD 2020, pp. 1748-1757.

    Examples
    --------
    >>> import numpy as np
    >>> import scipy.sparse as sp
    >>> from sk_rankmetrics import evaluate_embeddings
    >>> users = np.array([[1.0, 0.0], [0.0, 1.0]], dtype=np.float32)
    >>> items = np.array([[3, 0], [2, 1], [1, 2], [0, 3]], dtype=np.float32)
    >>> train = sp.csr_array([[1, 0, 0, 0], [0, 0, 0, 1]])
    >>> test = sp.csr_array([[0, 1, 0, 0], [1, 0, 0, 0]])
    >>> res, top = evaluate_embeddings(users, items, test, ["recall", "ndcg"], k=2,
    ...                                exclude=train, return_top=True)
    >>> {name: round(v, 4) for name, v in res.mean.items()}
    {'recall': 0.5, 'ndcg': 0.5}
    >>> top.tolist()
    [[1, 2], [2, 1]]

    The same by ids, the pairs in data frames (pandas or polars):

    >>> import pandas as pd
    >>> held_out = pd.DataFrame({"user": ["ann", "bo"], "item": ["b", "a"]})
    >>> seen = pd.DataFrame({"user": ["ann", "bo"], "item": ["a", "d"]})
    >>> res, top = evaluate_embeddings(users, items, held_out, ["recall", "ndcg"], k=2,
    ...                                exclude=seen, return_top=True,
    ...                                user_ids=["ann", "bo"], item_ids=["a", "b", "c", "d"])
    >>> res.query_ids.tolist(), res.per_query["recall"].tolist()
    (['ann', 'bo'], [1.0, 0.0])
    >>> top.tolist()
    [['b', 'c'], ['c', 'b']]
    """
    users = _factors(user_factors, "user_factors")
    items = _factors(item_factors, "item_factors")
    if users.shape[1] != items.shape[1]:
        raise ValueError(
            f"{WHERE}: user_factors has {users.shape[1]} dimensions and item_factors "
            f"{items.shape[1]}; they must have the same number of columns."
        )
    if users.shape[0] == 0 or items.shape[0] == 0:
        raise ValueError(f"{WHERE}: there must be at least one user and one item.")
    dtype = np.result_type(users, items)
    users, items = users.astype(dtype, copy=False), items.astype(dtype, copy=False)
    n_users, n_items = users.shape[0], items.shape[0]
    ub = _bias(user_bias, n_users, "user_bias", dtype)
    ib = _bias(item_bias, n_items, "item_bias", dtype)
    # |s| <= d * max|p| * max|q| + |b_u| + |b_i|: refuse what could overflow.
    bound = users.shape[1] * _largest(users) * _largest(items)
    bound += sum(_largest(b) for b in (ub, ib) if b is not None)
    if not bound < float(np.finfo(dtype).max) / 4:
        raise ValueError(
            f"{WHERE}: the factors are so large that scores could overflow {dtype} "
            f"(up to {bound:.3g}); rescale them or pass float64 factors."
        )
    users_by, items_by = IdIndex(user_ids, n_users, "user"), IdIndex(item_ids, n_items, "item")
    by_id = users_by.given or items_by.given
    if id_form(y_true, by_id):
        y_true = pairs_by_id(y_true, users_by, items_by, "y_true")
    if exclude is not None and id_form(exclude, by_id):
        exclude = pairs_by_id(exclude, users_by, items_by, "exclude")
    truth = _matrix(y_true, (n_users, n_items), "y_true", np.float64)
    excl = _matrix(exclude, (n_users, n_items), "exclude", np.bool_)
    if excl is not None:
        truth = _without_excluded(truth, excl, exclude_relevant)
        if not excl.nnz:
            excl = None
    requests = _requests(metrics, k)
    top = None
    if return_top:
        width = k
        if width is None:
            cut = [r.depth for r in requests if r.depth is not None and r.spec.takes_k]
            if not cut:
                raise InvalidParameterError(
                    f"{WHERE}: return_top=True needs the length of the lists: pass k, or "
                    f"name a cut-off (metrics={short_repr(metrics)})."
                )
            width = max(cut)
        top = np.full((n_users, min(width, n_items)), -1, dtype=np.int64)
    seed = 0
    if sample_negatives is not None:
        seed = (
            random_state
            if random_state is not None
            else int(np.random.default_rng().integers(0, 1 << 62))
        )
    inputs = EmbeddingInputs(
        users,
        items,
        ub,
        ib,
        truth,
        excl,
        batch_size=batch_size,
        sample=sample_negatives,
        seed=seed,
        top=top,
    )
    if N_THREADS > 1 and n_users * n_items >= PARALLEL_MIN_ELEMENTS:
        # The engine scores blocks on its threads, each with its share of the
        # cores for BLAS, so that the products and the ranking of different
        # blocks overlap instead of every product claiming every core.
        from threadpoolctl import threadpool_limits

        share = max(1, (os.cpu_count() or 1) // N_THREADS)
        with threadpool_limits(limits=share, user_api="blas"):
            raw = engine_compute(inputs, requests, ignore_ties=ignore_ties, progress=progress)
    else:
        raw = engine_compute(inputs, requests, ignore_ties=ignore_ties, progress=progress)
    per_query, mean = reduce_results(raw, requests, no_relevant, None)
    result = EvaluationResult(users_by.ids, per_query, mean)
    if top is not None:
        return result, (top_ids(top, items_by) if items_by.given else top)
    return result
