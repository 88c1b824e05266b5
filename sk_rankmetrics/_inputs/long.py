"""The long layout: one entry per query-item pair, grouped by query id."""

from __future__ import annotations

import copy

import numpy as np

from .._ranking.block import rank_block
from .._ranking.narrow import narrowed
from .._ranking.padding import padding_score
from .._ranking.select import score_span
from .._utils import fast
from .._utils.arrays import (
    MASK_BY_OMISSION,
    as_ids,
    as_numeric_array,
    check_finite,
    check_judged,
    check_sample_weight,
    exact_scores,
)
from .._utils.nonzero import flatnonzero, neighbours_differ
from .budget import _budget
from .dense import drop_unjudged

# -- long format ------------------------------------------------------------------


#: Shuffled pairs up to this many are gathered into their queries' order once
#: (a copy of the values: 9 to 17 bytes a pair); past it each block gathers
#: its own (no copy of the whole).
GATHER_ONCE = 1 << 24


class LongInputs:
    """One entry per query-item pair, grouped by ``qid``."""

    diversity = False  # the Layout contract (_inputs/layout.py)

    def __init__(self, y_true, y_score, qid, judged=None, part=False):
        check_finite(y_true, "y_true")
        check_finite(y_score, "y_score", masked=MASK_BY_OMISSION)
        # Whole levels within -128..127 (binary and graded relevance, in any
        # dtype) are held in one byte: each block's padded copy and every
        # pass over it then read a byte an entry, where float64 blocks were
        # copied to one byte block by block.
        self.y_true = narrowed(np.asarray(y_true))[0]
        if self.y_true.dtype.itemsize > 1 or self.y_true.dtype.kind not in "iub":
            self.y_true = np.asarray(self.y_true, dtype=np.float64)
        # float32 scores stay float32 (their padding, -inf, is one too): each
        # block's sort reads half the bytes, where float64 cost a conversion
        # of every score and a wider block.
        # Integer scores in a small span stay integers too, their padding
        # one below the smallest
        # (:func:`~.._ranking.padding.padding_score`): each block's ties are
        # then counted, not sorted.
        self._pad = padding_score(y_score)
        if y_score.dtype != np.float32 and self._pad is None:
            y_score = exact_scores(y_score)
        self.y_score = y_score
        self._score_floor = None
        self.judged = judged
        #: Whether the values are in the queries' order (``order`` applied).
        self._grouped = False
        #: Whether the unjudged items leave the rankings (:meth:`judged_only`).
        self.drop_unjudged = False
        n = qid.shape[0]
        change = np.empty(n, dtype=bool)
        change[:1] = True
        neighbours_differ(qid, change[1:])
        contiguous = False
        if np.count_nonzero(change) <= n // 4:  # few runs: maybe one per query
            run_starts = flatnonzero(change)
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
            del change
            self.order, self.starts, self.query_ids = _group_by_id(qid)
            self.row_of_group = np.arange(self.starts.shape[0])
            if n <= GATHER_ONCE:
                # The values gathered into the queries' order once: each block
                # then copies its queries' runs (:meth:`_windows`), where it
                # gathered each value through ``order`` and scattered it to
                # its place (:meth:`_scattered`; 20,000 queries of 20 to 100
                # pairs, shuffled: nDCG, AP and bpref in 0.84-0.90 of the
                # time). Past GATHER_ONCE pairs the copy is not made.
                self.y_true = np.take(self.y_true, self.order)
                self.y_score = np.take(self.y_score, self.order)
                if judged is not None:
                    self.judged = np.take(judged, self.order)
                self._grouped = True
        self.counts = np.diff(np.append(self.starts, n))
        self.n_rows = self.starts.shape[0]
        self.n_cols = int(self.counts.max())
        if self.n_cols < 2 and not part:
            raise ValueError(
                f"every query has a single item ({self.n_rows} queries, {n} pairs); "
                "ranking metrics are only meaningful when queries have at least 2 items."
            )

    def query_weights(self, sample_weight):
        """Per-query weights from per-query or per-pair (constant) weights.

        A query has at least 2 items somewhere (checked above), so there are
        fewer queries than pairs and the two readings cannot be confused; in a
        part of a whole (every query of one item), both readings are taken and
        must agree.
        """
        if sample_weight is None:
            return None
        n_pairs = self.y_true.shape[0]
        w = as_numeric_array(sample_weight, "sample_weight")
        if self.n_rows == n_pairs and w.ndim == 1 and w.shape[0] == n_pairs:
            w = check_sample_weight(w, n_pairs)
            per_pair = np.empty(self.n_rows)
            per_pair[self.row_of_group] = (w if self.order is None else w[self.order])[
                self.starts
            ]
            if not np.array_equal(per_pair, w):
                raise ValueError(
                    "sample_weight: every query of this batch has one item, so its "
                    f"{n_pairs} weights can be one per pair (in the order of qid) or one "
                    "per query (in sorted qid order), and the two readings differ here; "
                    "give the batch's pairs in sorted qid order, where both agree."
                )
            return w
        if w.ndim == 1 and w.shape[0] == n_pairs:
            w = check_sample_weight(w, n_pairs)
            w = w if self.order is None else w[self.order]
            hi = np.maximum.reduceat(w, self.starts)
            lo = np.minimum.reduceat(w, self.starts)
            if not np.array_equal(hi, lo):
                g = flatnonzero(hi != lo)[0]
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

    def blocks(self, requests):
        budget = _budget(requests)
        by_len = np.argsort(self.counts, kind="stable")
        lens = self.counts[by_len]
        out = []
        a = 0
        while a < self.n_rows:
            # Queries are taken shortest first; the block width is the longest.
            n_fit = np.searchsorted(lens[a:] * np.arange(1, self.n_rows - a + 1), budget,
                                    "right")
            b = a + max(1, int(n_fit))
            qs = by_len[a:b]
            out.append((self.row_of_group[qs], qs))
            a = b
        return out

    def ranked_chunk(self, qs, requests, *, ignore_ties=False):
        cnt = self.counts[qs]
        width = int(cnt.max())
        if self.order is None or self._grouped:
            yt, ys, judged = self._windows(qs, cnt, width)
        else:
            yt, ys, judged = self._scattered(qs, cnt, width)
        real = None
        if self.drop_unjudged and judged is not None:
            ys, cnt = drop_unjudged(ys, judged)  # (float64 from integers, exactly)
        elif self._pad is not None and (cnt < width).any():
            real = np.arange(width) < cnt[:, None]
            if score_span(ys) is None:  # too wide a span for this block's rows
                ys, real = np.where(real, ys.astype(np.float64), -np.inf), None
        return rank_block(yt, ys, requests, ignore_ties=ignore_ties, n_items=cnt,
                          judged=judged, floor=self._floor(), real=real)

    def _windows(self, qs, cnt, width):
        """``(yt, ys, judged)`` of the queries ``qs`` (``cnt`` pairs each), each
        a contiguous run of pairs: row i is the ``width`` pairs from query i's
        start (a strided view's rows, one gather of whole rows: an eighth of
        the time of scattering each pair), its entries past ``cnt`` then made
        padding (score ``-inf``, or :attr:`_pad` for integers, relevance 0,
        not judged)."""
        starts, n_pairs = self.starts[qs], self.y_score.shape[0]
        pad = np.arange(width) >= cnt[:, None]
        # A run near the end has fewer than width pairs left: its window is
        # read up to the last pair (the entries past it are padding anyway).
        short = flatnonzero(starts > n_pairs - width)
        first = starts.copy()
        first[short] = 0
        last = np.minimum(starts[short, None] + np.arange(width), n_pairs - 1)

        def rows(a, fill):
            out = np.lib.stride_tricks.sliding_window_view(a, width)[first]
            out[short] = a[last]
            np.copyto(out, fill, where=pad)
            return out

        judged = None if self.judged is None else rows(self.judged, False)
        return (rows(self.y_true, self.y_true.dtype.type(0)),
                rows(self.y_score, self._padding_score()),
                judged)

    def _scattered(self, qs, cnt, width):
        """:meth:`_windows` of queries whose pairs lie apart (``order``)."""
        nq = qs.shape[0]
        # Entry j of query i goes from starts[i] + j to i * width + j: both
        # are a per-query offset repeated over its entries, plus a running index.
        first = np.cumsum(cnt) - cnt
        step = np.arange(int(first[-1] + cnt[-1]))
        src = self.order[np.repeat(self.starts[qs] - first, cnt) + step]
        dst = np.repeat(np.arange(nq) * width - first, cnt) + step
        yt = np.zeros((nq, width), dtype=self.y_true.dtype)
        ys = np.full((nq, width), self._padding_score(), dtype=self.y_score.dtype)
        yt.reshape(-1)[dst] = self.y_true[src]
        ys.reshape(-1)[dst] = self.y_score[src]
        judged = None
        if self.judged is not None:
            judged = np.zeros((nq, width), dtype=bool)
            judged.reshape(-1)[dst] = self.judged[src]
        return yt, ys, judged

    def _padding_score(self):
        """The score of padding: ``-inf``, or below every integer score."""
        return self.y_score.dtype.type(-np.inf if self._pad is None else self._pad)

    def _floor(self):
        """The smallest score of every pair (finite, checked): no real item
        of a block scores below it (its padding takes scores below it)."""
        if self._score_floor is None and self.y_score.size:
            self._score_floor = self.y_score.min()
        return self._score_floor

    def judged_only(self):
        """The same rows with every unjudged item taken out of the ranking
        (ir_measures' ``judged_only``, trec_eval's ``-J``)."""
        if self.judged is None:
            return self
        out = copy.copy(self)
        out.drop_unjudged = True
        return out


def _group_by_id(qid):
    """``(order, starts, ids)``: an order that gathers equal query ids, the
    start of each group in it, and the group's id (groups in sorted order).
    Each group keeps its entries in input order.

    Integer ids spanning fewer than 2**32 values (and fewer than 2**32
    entries) are grouped by sorting one integer key per entry, the id's
    offset from the smallest id in the high bits and the entry's index in
    the low bits (32-bit keys when both fit, 64-bit otherwise): sorting plain
    integers (:func:`~.._utils.fast.sort_keys`) is several times faster than
    an ``argsort``, and the indices come out in the low bits. Where that sort
    is not vectorised (:data:`~.._utils.fast.VECTOR_SORT`), ids spanning
    fewer than 2**16 values are grouped by a stable ``argsort`` of their
    16-bit offsets instead, which NumPy does by radix sort. Other ids are
    arg-sorted.
    """
    n = qid.shape[0]
    if qid.dtype.kind in "iu" and 0 < n < 2**32:
        lo, hi = int(qid.min()), int(qid.max())
        if hi - lo < 2**32:
            if qid.dtype.kind == "i":
                off = (qid.astype(np.int64, copy=False) - lo).view(np.uint64)
            else:
                off = qid.astype(np.uint64, copy=False) - np.uint64(lo)
            if hi - lo < 2**16 and not fast.VECTOR_SORT:
                code = off.astype(np.uint16)
                order = np.argsort(code, kind="stable")
                counts = np.bincount(code, minlength=hi - lo + 1)
                present = flatnonzero(counts)
                ends = np.cumsum(counts[present])
                return order, ends - counts[present], qid[order[ends - 1]]
            return _group_by_key(off, hi - lo, qid)
    # A stable sort: each query's entries keep their input order, which
    # ignore_ties=True reads (of tied scores, the later entry first).
    order = np.argsort(qid, kind="stable")
    sq = qid[order]
    change = np.empty(n, dtype=bool)
    change[:1] = True
    neighbours_differ(sq, change[1:])
    starts = flatnonzero(change)
    return order, starts, sq[starts]


def _group_by_key(off, span, qid):
    """:func:`_group_by_id` of integer ids by their offsets ``off`` (uint64,
    at most ``span``) from the smallest: one sorted key per entry."""
    n = off.shape[0]
    low = max(1, (n - 1).bit_length())
    dtype = np.uint32 if span.bit_length() + low <= 32 else np.uint64
    key = off.astype(dtype)
    key <<= dtype(low)
    key |= np.arange(n, dtype=dtype)
    key = fast.sort_keys(key)
    order = (key & dtype((1 << low) - 1)).astype(np.intp)
    key >>= dtype(low)
    change = np.empty(n, dtype=bool)
    change[0] = True
    neighbours_differ(key, change[1:])
    starts = flatnonzero(change)
    return order, starts, qid[order[starts]]


def _check_long(y_true, y_score, qid, judged=None, part=False):
    yt = as_numeric_array(y_true, "y_true")
    ys = as_numeric_array(y_score, "y_score")
    q = as_ids(qid, "qid")
    for arg, v in (("y_true", yt), ("y_score", ys)):
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
        if part:
            check_judged(judged, yt.shape)
            return None
        raise ValueError("y_true, y_score and qid are empty; at least one pair is needed.")
    return LongInputs(yt, ys, q, check_judged(judged, yt.shape), part=part)
