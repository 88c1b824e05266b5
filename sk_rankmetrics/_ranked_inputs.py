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

from ._engine import _value_arrays
from ._ranking import RankedChunk, _group_bounds
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
        needs_full = any(r.spec.takes_k and r.k is None for r in requests)
        k_max = max((r.k for r in requests if r.k is not None), default=1)
        L = self.n_cols if needs_full else k_max
        # R-precision reads down to R; the full nDCG's ideal covers every judged item.
        if any(not r.spec.takes_k for r in requests) or (
            needs_full and any(r.spec.name == "ndcg" for r in requests)
        ):
            L = max(L, self.max_truth)
        return max(L, 1), needs_full, k_max

    def row_blocks(self, requests, budget=None):
        """Contiguous row slices whose ``(rows x width)`` blocks fit the budget."""
        budget = CHUNK_ELEMENTS if budget is None else budget
        L, _, _ = self._plan(requests)
        width = max(L, self.n_cols, 1)
        step = max(1, budget // width)
        step = min(step, max(1, _KEY_LIMIT // self.span))
        n_blocks = -(-self.n_rows // step)
        for i, a in enumerate(range(0, self.n_rows, step)):
            yield slice(a, min(a + step, self.n_rows))
            if self.progress is not None:
                self.progress(i + 1, n_blocks)

    # -- one block --------------------------------------------------------
    def _lookup(self, a, b):
        """Relevance of each ranked item of rows ``a:b`` (0 where not judged)."""
        ra, rb = self.rec_indptr[a], self.rec_indptr[b]
        ta, tb = self.truth_indptr[a], self.truth_indptr[b]
        row, lens = _row_of(self.rec_indptr, a, b)
        codes = self.rec_codes[ra:rb]
        if tb == ta:
            return row, lens, np.zeros(rb - ra), ta, tb
        trow, _ = _row_of(self.truth_indptr, a, b)
        tkeys = trow * self.span + (self.truth_codes[ta:tb] - self.cmin)
        inside = (codes >= self.cmin) & (codes <= self.cmax)
        rkeys = np.where(inside, row * self.span + (codes - self.cmin), -1)
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
        return row, lens, rel, ta, tb

    def ranked_chunk(self, rows, requests, *, ignore_ties=False):
        """The :class:`RankedChunk` of the rows in the slice ``rows``."""
        a, b = rows.start, rows.stop
        n = b - a
        L, _, _ = self._plan(requests)
        row, lens, rel, ta, tb = self._lookup(a, b)
        offs = np.arange(row.shape[0]) - np.repeat(self.rec_indptr[a:b] - self.rec_indptr[a],
                                                   lens)
        W = max(int(lens.max()) if n else 0, L)
        real = np.zeros((n, W), dtype=bool)
        real[row, offs] = True
        yt = np.zeros((n, W))
        yt[row, offs] = rel
        values = _value_arrays(yt, requests, a)
        for v in values.values():
            v[~real] = 0.0
        n_items = np.maximum(lens, 1)

        # Truth side: relevant counts and the ideal gains of each row.
        trow, _ = _row_of(self.truth_indptr, a, b)
        tvals = _value_arrays(self.truth_rel[None, ta:tb], requests, a)
        n_rel = {key: np.bincount(trow, weights=v[0], minlength=n)
                 for key, v in tvals.items() if key.startswith("rel:")}

        tied = False
        if self.rec_scores is not None and not ignore_ties and n:
            sv = np.full((n, W), -np.inf)
            sv[row, offs] = self.rec_scores[self.rec_indptr[a]:self.rec_indptr[b]]
            same = (sv[:, 1:] == sv[:, :-1]) & real[:, 1:]
            tied = bool(same.any())
        if tied:
            start, end = _group_bounds(sv)
            size = end - start
            rr = np.arange(n)[:, None]
            sums = {}
            for key, v in values.items():
                c = np.zeros((n, W + 1))
                np.cumsum(v, axis=1, out=c[:, 1:])
                sums[key] = (c[rr, end] - c[rr, start])[:, :L]
            rc = RankedChunk(L, start[:, :L], size[:, :L], sums, n_items)
        else:
            rc = RankedChunk(L, None, None, {k: v[:, :L] for k, v in values.items()},
                             n_items)
        rc.n_relevant = n_rel
        for req in requests:
            if req.spec.name == "ndcg" and req.gain_key not in rc.ideal:
                rc.ideal[req.gain_key] = _ideal_from_truth(tvals[req.gain_key][0], trow, n, L)
        return rc


def _ideal_from_truth(gains, trow, n, width):
    """The ``width`` largest truth gains of each row, increasing (best last)."""
    out = np.zeros((n, width))
    if gains.size == 0:
        return out
    order = np.lexsort((-gains, trow))
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
        try:
            x = x.astype(np.int64) if x.size and all(
                isinstance(v, (int, np.integer)) and not isinstance(v, bool) for v in x[:1]
            ) else x.astype(str)
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


def build_ranked_inputs(rec_query, rec_item, truth_query, truth_item, truth_rel,
                        rec_score=None, *, queries="run", order="given"):
    """Build :class:`RankedInputs` from long arrays (one entry per pair).

    Parameters
    ----------
    rec_query, rec_item : array-like of shape (n_rec,)
        Query and item id of each ranked entry. With ``order="given"`` the
        entries of a query are in rank order (best first).
    truth_query, truth_item, truth_rel : array-like of shape (n_truth,)
        The judged items of each query and their relevance.
    rec_score : array-like of shape (n_rec,), optional
        Scores of the ranked entries (higher ranks earlier).
    queries : {"run", "truth", "both"}
        Which queries become rows: those with a ranking, those with
        judgements (queries without a ranking score as empty lists), or those
        with both.
    order : {"given", "score"}
        Keep the given order, or rank by score descending with ties broken by
        item id descending (as trec_eval does).
    """
    rq = _as_ids(rec_query, "the ranked lists' query ids")
    ri = _as_ids(rec_item, "the ranked item ids")
    tq = _as_ids(truth_query, "the truth's query ids")
    ti = _as_ids(truth_item, "the truth's item ids")
    tr = np.asarray(truth_rel, dtype=np.float64)
    if rq.shape != ri.shape:
        raise ValueError("the ranked lists' query ids and item ids must have one length, "
                         f"got {rq.shape[0]} and {ri.shape[0]}.")
    if not (tq.shape == ti.shape == tr.shape):
        raise ValueError("the truth's query ids, item ids and relevance must have one "
                         f"length, got {tq.shape[0]}, {ti.shape[0]} and {tr.shape[0]}.")
    if not np.all(np.isfinite(tr)):
        raise ValueError("the truth's relevance contains NaN or infinity; every level "
                         "must be finite.")
    score = None
    if rec_score is not None:
        score = np.asarray(rec_score, dtype=np.float64)
        if score.shape != rq.shape:
            raise ValueError("the ranked lists' scores must have one entry per ranked "
                             f"item ({rq.shape[0]}), got {score.shape[0]}.")
        if not np.all(np.isfinite(score)):
            raise ValueError("the ranked lists' scores contain NaN or infinity; every "
                             "score must be finite.")
    if order == "score" and score is None:
        raise ValueError("order='score' needs scores.")
    if queries not in ("run", "truth", "both"):
        raise ValueError(f"queries={queries!r} is not accepted. Accepted: 'run', 'truth' "
                         "or 'both'.")

    # Rows: the selected query ids, sorted.
    rq, tq = _common_kind(rq, tq)
    run_q = np.unique(rq)
    truth_q = np.unique(tq)
    if queries == "run":
        qids = run_q
    elif queries == "truth":
        qids = truth_q
    else:
        qids = np.intersect1d(run_q, truth_q, assume_unique=True)
    n = qids.shape[0]
    if n == 0:
        raise ValueError("no query has both a ranking and judgements; check that the "
                         "query ids of the ranking and of the truth match.")

    def rows_of(q):
        pos = np.minimum(np.searchsorted(qids, q), n - 1)
        return pos, qids[pos] == q

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

    # Truth, sorted by (row, code); a duplicate judgement is an error.
    trows, tkeep = rows_of(tq)
    trows, t_codes, tr, ti_kept = trows[tkeep], t_codes[tkeep], tr[tkeep], ti[tkeep]
    t_order = np.lexsort((t_codes, trows))
    trows, t_codes, tr = trows[t_order], t_codes[t_order], tr[t_order]
    if trows.size > 1:
        dup = (trows[1:] == trows[:-1]) & (t_codes[1:] == t_codes[:-1])
        if dup.any():
            i = int(np.flatnonzero(dup)[0])
            raise ValueError(
                f"the truth judges item {ti_kept[t_order[i]]!r} twice for query "
                f"{qids[trows[i]]!r}; give each (query, item) pair once."
            )

    # Ranked lists, grouped by row in rank order.
    rrows, rkeep = rows_of(rq)
    rrows, r_codes = rrows[rkeep], r_codes[rkeep]
    if score is not None:
        score = score[rkeep]
    if order == "score":
        items = ri[rkeep]
        o = np.lexsort((items, score))[::-1]
        o = o[np.argsort(rrows[o], kind="stable")]
    else:
        o = np.argsort(rrows, kind="stable")
    rrows, r_codes = rrows[o], r_codes[o]
    if score is not None:
        score = score[o]
    return RankedInputs(qids, _indptr(rrows, n), r_codes, _indptr(trows, n), t_codes, tr,
                        rec_scores=score)
