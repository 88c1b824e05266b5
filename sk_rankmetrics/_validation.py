"""The input layer: every accepted layout is checked here, once.

Each layout becomes an object with ``n_rows`` and ``chunks()``; ``chunks``
yields ``(rows, y_true, y_score, n_items)`` blocks of float64 rows whose size
stays under a fixed element budget, so that temporaries never grow with the
input. Layouts:

- dense matrices of shape ``(n_rows, n_items)``: lists, NumPy arrays, pandas
  DataFrames; ``y_true`` may also be scipy.sparse (densified a chunk at a time);
- long format: 1-D ``y_true``, ``y_score`` and ``qid`` with one entry per
  query-item pair. Queries are gathered by ``qid``, bucketed by length and
  padded (score ``-inf``, relevance 0) inside each chunk only.
"""

from __future__ import annotations

from itertools import repeat

import numpy as np
import scipy.sparse as sp

#: Elements of one (rows x items) block; a few float64/int64 temporaries of
#: this size are alive at once (1 MiB each, small enough to stay in cache).
CHUNK_ELEMENTS = 1 << 17  # halved for full sorts (k=None)


def _as_array(x, arg, *, allow_sparse=False):
    """Turn ``x`` into a numeric ndarray (or CSR matrix) without copying floats."""
    if x is None:
        raise ValueError(f"{arg} is None; pass an array-like of numbers.")
    if sp.issparse(x):
        if not allow_sparse:
            raise TypeError(
                f"{arg} is a scipy.sparse matrix, which is accepted for y_true only; "
                f"pass {arg} as a dense array."
            )
        x = sp.csr_array(x)
        dtype = x.dtype
    else:
        if hasattr(x, "to_numpy"):  # pandas DataFrame or Series
            x = x.to_numpy()
        try:
            x = np.asarray(x)
        except ValueError as exc:  # ragged nested lists
            raise ValueError(
                f"{arg} could not be read as a rectangular array ({exc}). Rows of a "
                "matrix must all have the same length; for rankings of different "
                "lengths use the long format with qid=..."
            ) from None
        dtype = x.dtype
    if dtype.kind not in "biuf":
        raise TypeError(
            f"{arg} must hold numbers (bool, int or float), got dtype {dtype}."
        )
    return x


def _check_finite_chunk(block, arg, row0):
    total = block.sum()
    if np.isfinite(total):
        return
    bad = ~np.isfinite(block)
    if bad.any():
        r, c = np.argwhere(bad)[0]
        raise ValueError(
            f"{arg} contains NaN or infinity (first at row {row0 + r}, column {c}); "
            "every value must be finite."
        )


def check_flag(value, arg):
    """Return ``value`` as a bool, or raise naming ``arg`` (NumPy bools pass)."""
    if not isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{arg} must be True or False, got {value!r}.")
    return bool(value)


def check_sample_weight(sample_weight, n, what=None):
    if sample_weight is None:
        return None
    w = _as_array(sample_weight, "sample_weight")
    if w.ndim != 1 or w.shape[0] != n:
        raise ValueError(
            f"sample_weight must be 1-D with {what or f'one weight per row ({n})'}, "
            "got shape "
            f"{w.shape}."
        )
    w = w.astype(float)
    if not np.all(np.isfinite(w)):
        raise ValueError("sample_weight contains NaN or infinity.")
    if (w < 0).any():
        raise ValueError("sample_weight must be non-negative; found a negative weight.")
    return w


def _relevance_block(yt):
    """A relevance block the engine can use: wide integers stay integers.

    Integers of 32 or 64 bits are kept (always finite; NumPy's ufuncs give
    float64 on them), which spares a float copy of every chunk; narrower
    integers and bools would promote to float16/float32 in ufuncs such as
    ``exp2``, so they become float64 like every other input.
    """
    if yt.dtype.kind in "iu" and yt.dtype.itemsize >= 4:
        return np.asarray(yt)
    return np.asarray(yt, dtype=np.float64)


class DenseInputs:
    """``(n_rows, n_items)`` matrices, dense or with sparse ``y_true``."""

    def __init__(self, y_true, y_score):
        self.y_true = y_true
        self.y_score = y_score
        self.n_rows, self.n_cols = y_true.shape

    def chunks(self, budget=None):
        budget = CHUNK_ELEMENTS if budget is None else budget
        N = self.n_cols
        step = max(1, budget // N)
        sparse = sp.issparse(self.y_true)
        for a in range(0, self.n_rows, step):
            b = min(a + step, self.n_rows)
            yt = self.y_true[a:b]
            yt = _relevance_block(yt.toarray() if sparse else yt)
            ys = np.asarray(self.y_score[a:b], dtype=np.float64)
            if yt.dtype.kind == "f":
                _check_finite_chunk(yt, "y_true", a)
            _check_finite_chunk(ys, "y_score", a)
            yield slice(a, b), yt, ys, None


class LongInputs:
    """One entry per query-item pair, grouped by ``qid``."""

    def __init__(self, y_true, y_score, qid):
        self.y_true = np.asarray(y_true, dtype=np.float64)
        self.y_score = np.asarray(y_score, dtype=np.float64)
        for arg, v in (("y_true", self.y_true), ("y_score", self.y_score)):
            if not np.all(np.isfinite(v)):
                i = int(np.flatnonzero(~np.isfinite(v))[0])
                raise ValueError(
                    f"{arg} contains NaN or infinity (first at index {i}); every "
                    "value must be finite."
                )
        n = qid.shape[0]
        change = np.empty(n, dtype=bool)
        change[:1] = True
        np.not_equal(qid[1:], qid[:-1], out=change[1:])
        run_starts = np.flatnonzero(change)
        contiguous = False
        if run_starts.shape[0] <= n // 4:  # few runs: maybe one per query
            run_ids = qid[run_starts]
            by_id = np.argsort(run_ids, kind="stable")
            sorted_ids = run_ids[by_id]
            contiguous = not (sorted_ids[1:] == sorted_ids[:-1]).any()
        if contiguous:
            # Each query is one contiguous run (the usual learning-to-rank
            # layout): no item-level sort is needed.
            self.order = None
            self.starts = run_starts
            self.row_of_group = np.empty_like(by_id)
            self.row_of_group[by_id] = np.arange(by_id.shape[0])
            self.query_ids = sorted_ids
        else:
            # Order inside a query does not matter (ties are handled by score),
            # so the faster unstable sort is fine.
            self.order = np.argsort(qid)
            # Gather once, so that the chunks below read memory in order.
            self.y_true = self.y_true[self.order]
            self.y_score = self.y_score[self.order]
            sq = qid[self.order]
            np.not_equal(sq[1:], sq[:-1], out=change[1:])
            self.starts = np.flatnonzero(change)
            self.row_of_group = np.arange(self.starts.shape[0])
            self.query_ids = sq[self.starts]
        self.counts = np.diff(np.append(self.starts, n))
        self.n_rows = self.starts.shape[0]
        self.n_cols = int(self.counts.max())

    def query_weights(self, sample_weight):
        """Per-query weights from per-query or per-pair (constant) weights."""
        if sample_weight is None:
            return None
        n_pairs = self.y_true.shape[0]
        w = _as_array(sample_weight, "sample_weight")
        if w.ndim == 1 and w.shape[0] == n_pairs:
            w = check_sample_weight(w, n_pairs)
            w = w if self.order is None else w[self.order]
            hi = np.maximum.reduceat(w, self.starts)
            lo = np.minimum.reduceat(w, self.starts)
            if not np.array_equal(hi, lo):
                g = np.flatnonzero(hi != lo)[0]
                q = self.query_ids[self.row_of_group[g]].item()
                raise ValueError(
                    "sample_weight has one weight per query-item pair but differs "
                    f"inside query {q!r}; give one weight per query (length "
                    f"{self.n_rows}, queries in sorted qid order) or the same weight "
                    "for every pair of a query."
                )
            per_query = np.empty(self.n_rows)
            per_query[self.row_of_group] = w[self.starts]
            return per_query
        return check_sample_weight(
            w,
            self.n_rows,
            what=f"one weight per query ({self.n_rows}) or per pair ({n_pairs})",
        )

    def chunks(self, budget=None):
        budget = CHUNK_ELEMENTS if budget is None else budget
        by_len = np.argsort(self.counts, kind="stable")
        lens = self.counts[by_len]
        a = 0
        while a < self.n_rows:
            # Queries are taken shortest first; the block width is the longest.
            n_fit = np.searchsorted(lens[a:] * np.arange(1, self.n_rows - a + 1), budget, "right")
            b = a + max(1, int(n_fit))
            qs = by_len[a:b]
            cnt = self.counts[qs]
            width = int(cnt.max())
            nq = qs.shape[0]
            row = np.repeat(np.arange(nq), cnt)
            offs = np.arange(row.shape[0]) - np.repeat(np.cumsum(cnt) - cnt, cnt)
            src = np.repeat(self.starts[qs], cnt) + offs
            dst = row * width + offs
            yt = np.zeros((nq, width))
            ys = np.full((nq, width), -np.inf)
            yt.reshape(-1)[dst] = self.y_true[src]
            ys.reshape(-1)[dst] = self.y_score[src]
            yield self.row_of_group[qs], yt, ys, cnt
            a = b


def check_inputs(y_true, y_score, qid=None):
    """Validate the inputs and return a layout object (see module docstring)."""
    if qid is not None:
        return _check_long(y_true, y_score, qid)
    yt = _as_array(y_true, "y_true", allow_sparse=True)
    ys = _as_array(y_score, "y_score")
    for arg, v in (("y_true", yt), ("y_score", ys)):
        if v.ndim == 1:
            raise ValueError(
                f"{arg} is 1-D (shape {v.shape}), but a 2-D matrix of shape (n_rows, "
                "n_items) is needed: one row per query, one column per item. For "
                "long format (one entry per query-item pair) pass qid=...; for a "
                f"single ranking pass {arg}.reshape(1, -1); to score a classifier "
                "trained on 1-D class labels, use sk_rankmetrics.get_scorer(...), "
                "which binarises the labels against the estimator's classes_."
            )
        if v.ndim != 2:
            raise ValueError(
                f"{arg} must be 2-D of shape (n_rows, n_items), got {v.ndim} "
                f"dimensions (shape {v.shape})."
            )
    if yt.shape[0] != ys.shape[0]:
        raise ValueError(
            f"y_true and y_score have different numbers of rows: {yt.shape[0]} and "
            f"{ys.shape[0]} (shapes {yt.shape} and {ys.shape}); they must match."
        )
    if yt.shape[1] != ys.shape[1]:
        raise ValueError(
            f"y_true and y_score have different numbers of items (columns): "
            f"{yt.shape[1]} and {ys.shape[1]} (shapes {yt.shape} and {ys.shape}); "
            "they must match."
        )
    if yt.shape[0] == 0:
        raise ValueError("y_true and y_score have no rows; at least one is needed.")
    if yt.shape[1] < 2:
        raise ValueError(
            f"y_true has {yt.shape[1]} item per row; ranking metrics are only "
            "meaningful with at least 2 items per row."
        )
    return DenseInputs(yt, ys)


def _check_long(y_true, y_score, qid):
    yt = _as_array(y_true, "y_true")
    ys = _as_array(y_score, "y_score")
    q = np.asarray(qid.to_numpy() if hasattr(qid, "to_numpy") else qid)
    for arg, v in (("y_true", yt), ("y_score", ys), ("qid", q)):
        if v.ndim != 1:
            raise ValueError(
                f"with qid given, {arg} must be 1-D (one entry per query-item pair), "
                f"got shape {v.shape}. Drop qid to score (n_rows, n_items) matrices."
            )
    if not (yt.shape[0] == ys.shape[0] == q.shape[0]):
        raise ValueError(
            "y_true, y_score and qid must have the same length (one entry per "
            f"query-item pair), got {yt.shape[0]}, {ys.shape[0]} and {q.shape[0]}."
        )
    if q.shape[0] == 0:
        raise ValueError("y_true, y_score and qid are empty; at least one pair is needed.")
    if q.dtype.kind not in "biuUSO" and not (
        q.dtype.kind == "f" and np.all(np.isfinite(q))
    ):
        raise TypeError(f"qid must hold query ids (integers or strings), got {q.dtype}.")
    if q.dtype.kind == "O":
        if all(map(isinstance, q, repeat(str))):
            q = q.astype(str)
        else:
            try:
                qi = q.astype(np.int64)
            except (TypeError, ValueError, OverflowError):
                qi = None
            # Exact only: 1.5 must not become query 1, nor 1 become query "1".
            exact = None if qi is None else qi == q
            if exact is None or not exact.all():
                bad = "" if exact is None else f" such as {q[np.argmin(exact)]!r}"
                raise TypeError(
                    "qid must hold query ids of one type (integers or strings), got "
                    f"mixed types or fractional values{bad}."
                )
            q = qi
    return LongInputs(yt, ys, q)
