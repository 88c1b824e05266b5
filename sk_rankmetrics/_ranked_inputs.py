"""The pre-ranked input layout: ranked item lists plus sparse truth.

Recommender output and TREC runs arrive already ranked: for each query (user)
a list of item ids, best first, and a ground truth that names only the
judged items. Such a row needs no ranking pass and no dense matrix. Both sides
are held in CSR form over the same rows:

- ``rec_indptr``, ``rec_codes`` (and optionally ``rec_scores``): the ranked
  item codes of each row, in rank order;
- ``truth_indptr``, ``truth_codes``, ``truth_rel``: the judged items of each
  row, sorted by code, with their relevance.

Item codes are integers. The relevance of every ranked item is found by one
``searchsorted`` per row block on the keys ``row * span + code`` (sorted on the
truth side by construction): no Python loop per row. Each block becomes a
:class:`RankedChunk` directly (single-item tie groups, or the tie groups of
equal scores when scores are given), so the same kernels score both layouts.
"""

from __future__ import annotations

import numpy as np

from ._engine import _value_arrays, depth
from ._ranking import RankedChunk, tie_groups
from ._trec import ranked_order
from ._validation import CHUNK_ELEMENTS

#: Largest key ``row * span + code`` allowed in one block (int64 headroom).
_KEY_LIMIT = 1 << 62


def _row_of(indptr, a, b):
    """Local row index of each entry of rows ``a:b`` and the row lengths."""
    lens = np.diff(indptr[a : b + 1])
    return np.repeat(np.arange(b - a), lens), lens


class RankedInputs:
    """Ranked item codes and sparse truth of ``n_rows`` rows (CSR, see module doc)."""

    def __init__(self, query_ids, rec_indptr, rec_codes, truth_indptr, truth_codes,
                 truth_rel, rec_scores=None):
        self.query_ids = query_ids
        self.rec_indptr = rec_indptr
        self.rec_codes = rec_codes
        self.rec_scores = rec_scores
        self.truth_indptr = truth_indptr
        self.truth_codes = truth_codes
        self.truth_rel = truth_rel
        self.n_rows = query_ids.shape[0]
        rec_lens = np.diff(rec_indptr)
        truth_lens = np.diff(truth_indptr)
        self.n_cols = int(rec_lens.max()) if self.n_rows else 0
        self.max_truth = int(truth_lens.max()) if self.n_rows else 0
        if truth_codes.size:
            self.cmin, self.cmax = int(truth_codes.min()), int(truth_codes.max())
        else:
            self.cmin, self.cmax = 0, 0
        self.span = self.cmax - self.cmin + 2
        self.progress = None

    # -- planning ---------------------------------------------------------
    def _plan(self, requests):
        """Ranked positions every block must describe for ``requests``."""
        needs_full, k_max = depth(requests)
        L = self.n_cols if needs_full else k_max
        # R-precision reads down to R; the full nDCG's ideal covers every judged item.
        if any(not r.spec.takes_k for r in requests) or (
            needs_full and any(r.spec.needs_ideal for r in requests)
        ):
            L = max(L, self.max_truth)
        return max(L, 1)

    def row_blocks(self, requests, budget=None):
        """Contiguous row slices whose ``(rows x width)`` blocks fit the budget."""
        budget = CHUNK_ELEMENTS if budget is None else budget
        L = self._plan(requests)
        width = max(L, self.n_cols, 1)
        step = max(1, budget // width)
        step = min(step, max(1, _KEY_LIMIT // self.span))
        n_blocks = -(-self.n_rows // step)
        for i, a in enumerate(range(0, self.n_rows, step)):
            yield slice(a, min(a + step, self.n_rows))
            if self.progress is not None:
                self.progress(i + 1, n_blocks)

    # -- one block --------------------------------------------------------
    def _lookup(self, a, b, limit):
        """Relevance of the first ``limit`` ranked items of rows ``a:b`` (0 if unjudged).

        Returns the local row, the position and the relevance of each looked-up
        item, the full list lengths and the truth's bounds ``ta, tb``.
        """
        ra, rb = self.rec_indptr[a], self.rec_indptr[b]
        ta, tb = self.truth_indptr[a], self.truth_indptr[b]
        n = b - a
        lens = np.diff(self.rec_indptr[a : b + 1])
        if n and lens.min() == lens.max():
            # Lists of one length (a 2-D array of ids): work on (n, m) blocks.
            w = int(lens[0])
            codes = self.rec_codes[ra:rb].reshape(n, w)[:, : min(limit, w)]
            row = offs = None
            row_key = (np.arange(n) * self.span)[:, None]
        else:
            row = np.repeat(np.arange(n), lens)
            offs = np.arange(rb - ra) - np.repeat(self.rec_indptr[a:b] - ra, lens)
            codes = self.rec_codes[ra:rb]
            if lens.size and limit < lens.max():
                keep = offs < limit
                row, offs, codes = row[keep], offs[keep], codes[keep]
            row_key = row * self.span
        if tb == ta:
            return row, offs, lens, np.zeros(codes.shape), ta, tb
        trow, _ = _row_of(self.truth_indptr, a, b)
        tkeys = trow * self.span + (self.truth_codes[ta:tb] - self.cmin)
        inside = (codes >= self.cmin) & (codes <= self.cmax)
        rkeys = np.where(inside, row_key + (codes - self.cmin), -1)
        pos = np.minimum(np.searchsorted(tkeys, rkeys), tkeys.shape[0] - 1)
        found = tkeys[pos] == rkeys
        hit = rkeys[found]
        if hit.size > 1:
            s = np.sort(hit)
            dup = s[1:] == s[:-1]
            if dup.any():
                r = int(s[1:][dup][0] // self.span) + a
                raise ValueError(
                    f"the ranked list of query {self.query_ids[r]!r} holds the same "
                    "judged item twice; each item may be ranked once per query."
                )
        rel = np.where(found, self.truth_rel[ta + pos], 0.0)
        return row, offs, lens, rel, ta, tb

    def ranked_chunk(self, rows, requests, *, ignore_ties=False):
        """The :class:`RankedChunk` of the rows in the slice ``rows``."""
        a, b = rows.start, rows.stop
        n = b - a
        L = self._plan(requests)
        has_ties = self.rec_scores is not None and not ignore_ties
        # Without ties only the first L positions matter; tie groups may cross L.
        row, offs, lens, rel, ta, tb = self._lookup(a, b, self.n_cols if has_ties else L)
        W = max(int(lens.max()) if n and has_ties else 0, L)
        if row is None and rel.shape[1] == W:
            real = None  # every position holds a ranked item
            yt = rel
        else:
            if row is None:
                m = rel.shape[1]
                row, offs, rel = np.repeat(np.arange(n), m), np.tile(np.arange(m), n), rel.ravel()
            real = np.zeros((n, W), dtype=bool)
            real[row, offs] = True
            yt = np.zeros((n, W))
            yt[row, offs] = rel
        values = _value_arrays(yt, requests, a)
        if real is not None:
            for v in values.values():
                v[~real] = 0.0
        n_items = np.maximum(lens, 1)

        # Truth side: relevant counts and the ideal gains of each row.
        trow, _ = _row_of(self.truth_indptr, a, b)
        tvals = _value_arrays(self.truth_rel[None, ta:tb], requests, a)
        n_rel = {key: np.bincount(trow, weights=v[0], minlength=n)
                 for key, v in tvals.items() if key.startswith("rel:")}

        tied = False
        if has_ties and n:
            scores = self.rec_scores[self.rec_indptr[a]:self.rec_indptr[b]]
            if real is None:
                sv = scores.reshape(n, W)
                same = sv[:, 1:] == sv[:, :-1]
            else:
                sv = np.full((n, W), -np.inf)
                sv[row, offs] = scores
                same = (sv[:, 1:] == sv[:, :-1]) & real[:, 1:]
            tied = bool(same.any())
        if tied:
            start, size, sums = tie_groups(sv, values)
            sums = {key: v[:, :L] for key, v in sums.items()}
            rc = RankedChunk(L, start[:, :L], size[:, :L], sums, n_items)
        else:
            rc = RankedChunk(L, None, None, {k: v[:, :L] for k, v in values.items()},
                             n_items)
        rc.n_relevant = n_rel
        for req in requests:
            if req.spec.needs_ideal and req.gain_key not in rc.ideal:
                rc.ideal[req.gain_key] = _ideal_from_truth(tvals[req.gain_key][0], trow, n, L)
        return rc


def _ideal_from_truth(gains, trow, n, width):
    """The ``width`` largest truth gains of each row, increasing (best last)."""
    out = np.zeros((n, width))
    if gains.size == 0:
        return out
    levels, inv = np.unique(gains, return_inverse=True)
    # By row, then by gain descending: one integer key.
    order = np.argsort(trow * levels.shape[0] + (levels.shape[0] - 1 - inv.reshape(-1)),
                       kind="stable")
    r = trow[order]
    new = np.ones(r.shape[0], dtype=bool)
    new[1:] = r[1:] != r[:-1]
    first = np.flatnonzero(new)
    rank = np.arange(r.shape[0]) - np.repeat(first, np.diff(np.append(first, r.shape[0])))
    keep = rank < width
    out[r[keep], width - 1 - rank[keep]] = gains[order][keep]
    return out


# -- building -------------------------------------------------------------

def _as_ids(x, arg):
    x = np.asarray(x.to_numpy() if hasattr(x, "to_numpy") else x)
    if x.ndim != 1:
        raise ValueError(f"{arg} must be 1-D (one id per entry), got shape {x.shape}.")
    if x.dtype.kind == "O":
        first_int = x.size and isinstance(x[0], (int, np.integer)) and not isinstance(x[0], bool)
        try:
            if not first_int:
                raise ValueError
            xi = x.astype(np.int64)
            if not (xi == x).all():  # 2.5 would become 2: keep such ids as text
                raise ValueError
            x = xi
        except (TypeError, ValueError, OverflowError):
            x = x.astype(str)
    if x.dtype.kind == "b" or x.dtype.kind not in "iuUS":
        if x.dtype.kind == "f" and x.size and np.all(np.mod(x, 1) == 0):
            return x.astype(np.int64)
        raise TypeError(f"{arg} must hold ids (integers or strings), got dtype {x.dtype}.")
    if x.dtype.kind == "S":
        x = x.astype(str)
    return x


def _common_kind(a, b):
    """Cast two id arrays to one comparable type (int64 or str)."""
    if a.dtype.kind in "iu" and b.dtype.kind in "iu":
        return a.astype(np.int64, copy=False), b.astype(np.int64, copy=False)
    return a.astype(str), b.astype(str)


def _indptr(codes, n):
    return np.concatenate(([0], np.cumsum(np.bincount(codes, minlength=n)))).astype(np.int64)


def group_long(rec_query, rec_item, rec_score=None, *, order="given"):
    """Long ranked entries -> ``(query_ids, lengths, items, scores)`` grouped by query.

    With ``order="given"`` the entries of each query keep their order (rank
    order, best first); with ``order="score"`` they are ranked by score
    descending, ties broken by item id descending (as trec_eval does).
    """
    rq = _as_ids(rec_query, "the ranked lists' query ids")
    ri = _as_ids(rec_item, "the ranked item ids")
    if rq.shape != ri.shape:
        raise ValueError("the ranked lists' query ids and item ids must have one length, "
                         f"got {rq.shape[0]} and {ri.shape[0]}.")
    score = None
    if rec_score is not None:
        score = np.asarray(rec_score, dtype=np.float64)
        if score.shape != rq.shape:
            raise ValueError("the ranked lists' scores must have one entry per ranked "
                             f"item ({rq.shape[0]}), got {score.shape[0]}.")
        if not np.all(np.isfinite(score)):
            raise ValueError("the ranked lists' scores contain NaN or infinity; every "
                             "score must be finite.")
    if order == "score":
        if score is None:
            raise ValueError("order='score' needs scores.")
        o = ranked_order(rq, ri, score)
    else:
        o = np.argsort(rq, kind="stable")
    rq, ri = rq[o], ri[o]
    if score is not None:
        score = score[o]
    new = np.ones(rq.shape[0], dtype=bool)
    new[1:] = rq[1:] != rq[:-1]
    starts = np.flatnonzero(new)
    lens = np.diff(np.append(starts, rq.shape[0]))
    return rq[starts], lens, ri, score


def _sort_pairs(rows, codes, n):
    """Order of (row, code) pairs, or None when they are sorted already."""
    if rows.size < 2:
        return None
    cmin = int(codes.min())
    span = int(codes.max()) - cmin + 1
    if n * span < _KEY_LIMIT:
        key = rows * span + (codes - cmin)
        if not (key[1:] < key[:-1]).any():
            return None
        return np.argsort(key, kind="stable")
    return np.lexsort((codes, rows))


def build_ranked_inputs(run_ids, run_lens, rec_item, truth_query, truth_item, truth_rel,
                        rec_score=None, *, queries="run"):
    """Build :class:`RankedInputs` from grouped ranked lists and long truth arrays.

    Parameters
    ----------
    run_ids : array-like of shape (n_run,)
        The query (user) of each ranked list, each once.
    run_lens : ndarray of shape (n_run,), int
        Length of each ranked list.
    rec_item : array-like of shape (sum(run_lens),)
        The ranked item ids, list after list, each list best first.
    truth_query, truth_item, truth_rel : array-like of shape (n_truth,)
        The judged items of each query and their relevance.
    rec_score : array-like of shape (sum(run_lens),), optional
        Scores of the ranked items, non-increasing within each list.
    queries : {"run", "truth", "both"}
        Which queries become rows: those with a ranked list, those with
        judgements (queries without a list score as empty lists), or both.
    """
    uq = _as_ids(run_ids, "the user (query) ids of the ranked lists")
    ri = _as_ids(rec_item, "the ranked item ids")
    lens = np.asarray(run_lens, dtype=np.int64)
    tq = _as_ids(truth_query, "the truth's query ids")
    ti = _as_ids(truth_item, "the truth's item ids")
    tr = np.asarray(truth_rel, dtype=np.float64)
    if not (tq.shape == ti.shape == tr.shape):
        raise ValueError("the truth's query ids, item ids and relevance must have one "
                         f"length, got {tq.shape[0]}, {ti.shape[0]} and {tr.shape[0]}.")
    if not np.all(np.isfinite(tr)):
        raise ValueError("the truth's relevance contains NaN or infinity; every level "
                         "must be finite.")
    if queries not in ("run", "truth", "both"):
        raise ValueError(f"queries={queries!r} is not accepted. Accepted: 'run', 'truth' "
                         "or 'both'.")
    score = None if rec_score is None else np.asarray(rec_score, dtype=np.float64)

    # Rows: the ranked lists (kept, dropped or completed by the truth's queries).
    uq, tq = _common_kind(uq, tq)
    u_order = np.argsort(uq, kind="stable")
    u_sorted = uq[u_order]
    if u_sorted.size > 1 and (u_sorted[1:] == u_sorted[:-1]).any():
        i = int(np.flatnonzero(u_sorted[1:] == u_sorted[:-1])[0])
        raise ValueError(f"user (query) {u_sorted[i]!r} has two ranked lists; give one list "
                         "per user.")
    truth_q = np.unique(tq) if queries != "run" else None
    indptr = np.concatenate(([0], np.cumsum(lens))).astype(np.int64)
    if queries != "run":
        keep = np.isin(uq, truth_q)
        if not keep.all():
            flat_keep = np.repeat(keep, lens)
            uq, lens, ri = uq[keep], lens[keep], ri[flat_keep]
            score = None if score is None else score[flat_keep]
        if queries == "truth":
            extra = np.setdiff1d(truth_q, uq, assume_unique=True)
            uq = np.concatenate((uq, extra))
            lens = np.concatenate((lens, np.zeros(extra.shape[0], dtype=np.int64)))
        indptr = np.concatenate(([0], np.cumsum(lens))).astype(np.int64)
        u_order = np.argsort(uq, kind="stable")
        u_sorted = uq[u_order]
    n = uq.shape[0]
    if n == 0:
        raise ValueError("no query has both a ranking and judgements; check that the "
                         "query ids of the ranking and of the truth match.")

    # Item codes: integers as they are when they fit, else codes in the truth's vocabulary.
    ri, ti = _common_kind(ri, ti)
    if ti.dtype.kind == "i" and (ti.size == 0 or int(ti.max()) - int(ti.min()) < (1 << 40)):
        t_codes, r_codes = ti, ri
    else:
        vocab, t_codes = np.unique(ti, return_inverse=True)
        t_codes = t_codes.reshape(-1).astype(np.int64)
        if vocab.size:
            p = np.minimum(np.searchsorted(vocab, ri), vocab.size - 1)
            r_codes = np.where(vocab[p] == ri, p, -1).astype(np.int64)
        else:
            r_codes = np.full(ri.shape[0], -1, dtype=np.int64)

    # Truth rows, sorted by (row, code); a duplicate judgement is an error.
    pos = np.minimum(np.searchsorted(u_sorted, tq), n - 1)
    tkeep = u_sorted[pos] == tq
    del tq
    if tkeep.all():
        trows = u_order[pos]
        ti_kept = ti
    else:
        trows = u_order[pos[tkeep]]
        t_codes, tr, ti_kept = t_codes[tkeep], tr[tkeep], ti[tkeep]
    del pos, tkeep
    t_order = _sort_pairs(trows, t_codes, n)
    if t_order is not None:
        trows, t_codes, tr = trows[t_order], t_codes[t_order], tr[t_order]
    else:
        t_order = np.arange(trows.shape[0])
    if trows.size > 1:
        dup = (trows[1:] == trows[:-1]) & (t_codes[1:] == t_codes[:-1])
        if dup.any():
            i = int(np.flatnonzero(dup)[0])
            raise ValueError(
                f"the truth judges item {ti_kept[t_order[i]]!r} twice for query "
                f"{uq[trows[i]]!r}; give each (query, item) pair once."
            )
    return RankedInputs(uq, indptr, r_codes, _indptr(trows, n), t_codes, tr,
                        rec_scores=score)
