"""The diversity layout: ranked lists against a diversity qrels (one judgement per
query, subtopic and document), for the diversity measures."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from .._ranking.block import check_ties, depth
from .._ranking.chunk import RankedChunk
from .._ranking.novelty import Subtopics, greedy_novelty_gains, subtopic_key
from .._utils.arrays import as_ids, as_numeric_array, check_finite
from .._utils.errors import shown
from .._utils.fast import ranges, unique
from .._utils.nonzero import flatnonzero
from .id_checks import check_overlap, no_repeated_item

#: ``patience ** t`` below this adds nothing to a float64 NRBP sum: the greedy
#: ideal of nNRBP stops there (its gains are at most 1 per subtopic and do
#: not grow along the ordering).
_NEGLIGIBLE = 2.0**-60

#: Elements of a block's (rows, positions, subtopics) relevance array: the
#: measures are sums over it (no sort), so a block may be larger than a
#: ranking pass's, and the greedy ideal loops once per position per block.
_BLOCK_ELEMENTS = 1 << 20


@dataclass(frozen=True)
class SubtopicTruth:
    """A diversity qrels in long form: one entry per (query, subtopic, item).

    Parameters
    ----------
    query, subtopic, item, relevance : array-like of shape (n_truth,)
        The query, the subtopic (intent), the judged item and its level.
        The same item appears once per subtopic it is judged for.
    """

    query: Any
    subtopic: Any
    item: Any
    relevance: Any


class DiversityInputs:
    """Ranked lists of ``n_rows`` queries and their subtopic judgements.

    The rows are the queries, sorted. The truth is kept sorted by (row,
    document id, subtopic): document codes follow the ids' order as strings
    (ndeval breaks the ties of its greedy ideal by document id), subtopic
    codes the subtopics' order.
    """

    diversity = True

    def __init__(
        self,
        query_ids,
        rec_indptr,
        rec_codes,
        rec_scores,
        truth_indptr,
        truth_codes,
        truth_sub,
        truth_rel,
        n_codes,
        n_sub_codes,
    ):
        self.query_ids = query_ids
        self.rec_indptr, self.rec_codes, self.rec_scores = rec_indptr, rec_codes, rec_scores
        self.truth_indptr, self.truth_codes = truth_indptr, truth_codes
        self.truth_sub, self.truth_rel = truth_sub, truth_rel
        self.n_rows = query_ids.shape[0]
        self.span = n_codes + 1
        self.n_sub_codes = max(n_sub_codes, 1)
        lens = np.diff(rec_indptr)
        self.n_cols = int(lens.max()) if self.n_rows and lens.size else 0
        # The largest number of subtopics of a row (at any threshold).
        rows = np.repeat(np.arange(self.n_rows), np.diff(truth_indptr))
        pairs = unique(rows * self.n_sub_codes + truth_sub) // self.n_sub_codes
        self.max_subtopics = int(np.bincount(pairs).max()) if pairs.size else 1

    def _L(self, requests):
        needs_full, k_max = depth(requests)
        return max(self.n_cols if needs_full else min(k_max, self.n_cols), 1)

    def blocks(self, requests):
        for req in requests:
            if req.spec.takes_k and req.k is None:
                raise ValueError(
                    f"{req.label} needs a cut-off: write it with '@k', e.g. "
                    f"'{req.spec.name}@20' (ndeval reports @5, @10 and @20)."
                )
        # No sort here: blocks may hold more elements than a ranking pass's.
        width = self._L(requests) * max(self.max_subtopics, 1)
        step = max(1, _BLOCK_ELEMENTS // max(width, 1))
        step = min(step, max(1, (1 << 62) // (self.span * self.n_sub_codes + 1)))
        return [
            (slice(a, min(a + step, self.n_rows)), (a, min(a + step, self.n_rows)))
            for a in range(0, self.n_rows, step)
        ]

    def ranked_chunk(self, payload, requests, *, ignore_ties=False):
        a, b = payload
        n = b - a
        L = self._L(requests)
        ra, rb = self.rec_indptr[a], self.rec_indptr[b]
        lens = np.diff(self.rec_indptr[a : b + 1])
        row = np.repeat(np.arange(n), lens)
        offs = np.arange(rb - ra) - np.repeat(self.rec_indptr[a:b] - ra, lens)
        codes = self.rec_codes[ra:rb]
        rc = RankedChunk(L, None, None, {}, np.maximum(lens, 1), lens)
        rc.real_ties = False
        if self.rec_scores is not None and not ignore_ties and rb - ra > 1:
            s = self.rec_scores[ra:rb]
            same = (s[1:] == s[:-1]) & (row[1:] == row[:-1]) & (offs[:-1] < L)
            rc.real_ties = bool(same.any())
        check_ties(rc, requests, ignore_ties)
        top = offs < L
        row, offs, codes = row[top], offs[top], codes[top]
        rc.subtopics = {}
        for key, reqs in _by_key(requests).items():
            rc.subtopics[key] = self._subtopics(a, b, row, offs, codes, L, reqs)
        return rc

    def _subtopics(self, a, b, row, offs, codes, L, requests):
        """The :class:`Subtopics` of rows ``a:b`` at the requests' threshold."""
        n = b - a
        ta, tb = self.truth_indptr[a], self.truth_indptr[b]
        trow = np.repeat(np.arange(n), np.diff(self.truth_indptr[a : b + 1]))
        level = self.truth_rel[ta:tb]
        threshold = requests[0].options.get("threshold")
        rel = level > 0 if threshold is None else level >= threshold
        e_row, e_code = trow[rel], self.truth_codes[ta:tb][rel]
        e_sub = self.truth_sub[ta:tb][rel]
        # The (row, subtopic) pairs with some relevant document, numbered per row.
        pair_key = e_row * self.n_sub_codes + e_sub
        if n * self.n_sub_codes <= 4 * pair_key.shape[0] + 1024:  # a (row, subtopic) table
            table = np.zeros(n * self.n_sub_codes, dtype=np.int64)
            table[pair_key] = 1
            pairs = flatnonzero(table)
            table[pairs] = np.arange(pairs.shape[0])
            e_pair = table[pair_key]
        else:
            pairs, e_pair = np.unique(pair_key, return_inverse=True)
            e_pair = e_pair.reshape(-1)
        pair_row = pairs // self.n_sub_codes
        n_sub = np.bincount(pair_row, minlength=n)
        first = np.cumsum(n_sub) - n_sub
        local = np.arange(pairs.shape[0]) - first[pair_row]
        S = max(int(n_sub.max()) if n else 0, 1)
        n_rel_sub = np.zeros((n, S))
        n_rel_sub[pair_row, local] = np.bincount(e_pair, minlength=pairs.shape[0])
        # The ranked documents' subtopics: each position against the entries
        # of its (row, document) key, sorted as the truth is.
        rel_at = np.zeros((n, L, S))
        ekey = e_row * self.span + e_code
        rkey = row * self.span + codes
        lo = np.searchsorted(ekey, rkey, side="left")
        cnt = np.where(codes >= 0, np.searchsorted(ekey, rkey, side="right") - lo, 0)
        e = ranges(lo, cnt)
        rel_at[np.repeat(row, cnt), np.repeat(offs, cnt), local[e_pair[e]]] = 1.0
        # Greedy ideal orderings, one per alpha.
        ideal = {}
        depths = {}
        for req in requests:
            if not req.needs_ideal:
                continue
            keep = 1.0 - req.options["redundancy"]
            want = req.k if req.k is not None else _nrbp_depth(req.options["patience"])
            depths[keep] = max(depths.get(keep, 0), want)
        if depths:
            new = np.ones(ekey.shape[0], dtype=bool)
            new[1:] = ekey[1:] != ekey[:-1]
            cand = flatnonzero(new)
            entry_ptr = np.append(cand, ekey.shape[0])
            per_row = np.bincount(e_row[cand], minlength=n)
            most = int(per_row.max()) if n else 0
            for keep, want in depths.items():
                ideal[keep] = greedy_novelty_gains(
                    e_row[cand], entry_ptr, e_pair, pairs.shape[0], n, max(min(want, most), 1), keep
                )
        return Subtopics(rel_at, n_sub.astype(np.float64), n_rel_sub, ideal)


def _nrbp_depth(patience):
    if patience >= 1.0:
        return 1 << 62
    return int(np.ceil(np.log(_NEGLIGIBLE) / np.log(patience))) + 1


def _by_key(requests):
    out = {}
    for req in requests:
        out.setdefault(subtopic_key(req), []).append(req)
    return out


def _as_strings(a):
    return a if a.dtype.kind == "U" else a.astype(str)


def build_diversity(lists, truth, *, queries="both", what="query"):
    """Build :class:`DiversityInputs` from ranked lists and a :class:`SubtopicTruth`.

    Parameters
    ----------
    lists : RankedLists
        The ranked lists (``ids``, ``lengths``, ``items``, ``scores``), each
        best first.
    truth : SubtopicTruth
        The subtopic judgements.
    queries : {"both", "truth"}
        Rows: the queries with both a list and judgements, or every judged
        query (those without a list score as empty lists).
    what : str
        What a row is called in messages.
    """
    uq = as_ids(lists.ids, f"the {what} ids of the ranked lists")
    ri = as_ids(lists.items, "the ranked item ids")
    lens = np.asarray(lists.lengths, dtype=np.int64)
    score = None if lists.scores is None else np.asarray(lists.scores, dtype=np.float64)
    tq = as_ids(truth.query, f"the truth's {what} ids")
    ts = as_ids(truth.subtopic, "the truth's subtopics")
    ti = as_ids(truth.item, "the truth's item ids")
    tr = as_numeric_array(truth.relevance, "the truth's relevance")
    if not (tq.shape == ts.shape == ti.shape == tr.shape):
        raise ValueError(
            f"the truth's {what} ids, subtopics, item ids and relevance must "
            f"have one length, got {tq.shape[0]}, {ts.shape[0]}, "
            f"{ti.shape[0]} and {tr.shape[0]}."
        )
    check_finite(tr, "the truth's relevance")
    tr = tr.astype(np.float64)
    if uq.dtype.kind != tq.dtype.kind:
        uq, tq = _as_strings(uq), _as_strings(tq)
    check_overlap(uq, tq, "both" if queries == "both" else "truth", what)
    truth_q = unique(tq)
    rows = np.intersect1d(unique(uq), truth_q) if queries == "both" else truth_q
    n = rows.shape[0]
    if n == 0:
        raise ValueError(
            f"no {what} has both a ranking and judgements; check that the "
            f"{what} ids of the ranking and of the truth match."
        )
    # Ranked lists, one per row (an empty one for a judged query without a list).
    order = np.argsort(uq, kind="stable")
    su = uq[order]
    if su.size > 1 and (su[1:] == su[:-1]).any():
        i = int(flatnonzero(su[1:] == su[:-1])[0])
        raise ValueError(f"{what} {shown(su[i])!r} has two ranked lists; give one list per {what}.")
    starts = np.cumsum(lens) - lens
    pos = np.minimum(np.searchsorted(su, rows), max(su.shape[0] - 1, 0))
    has = su[pos] == rows if su.size else np.zeros(n, dtype=bool)
    src = order[pos]
    row_lens = np.where(has, lens[src], 0)
    take = ranges(starts[src][has], lens[src][has])
    items = ri[take]
    scores = None if score is None else score[take]
    indptr = np.concatenate(([0], np.cumsum(row_lens))).astype(np.int64)
    # Document codes in the order of the ids as strings (ndeval's strcmp).
    vocab, t_codes = np.unique(_as_strings(ti), return_inverse=True)
    t_codes = t_codes.reshape(-1).astype(np.int64)
    items_s = _as_strings(items)
    if vocab.size:
        p = np.minimum(np.searchsorted(vocab, items_s), vocab.size - 1)
        r_codes = np.where(vocab[p] == items_s, p, -1).astype(np.int64)
    else:
        r_codes = np.full(items.shape[0], -1, dtype=np.int64)
    no_repeated_item(indptr, row_lens, items, r_codes, rows, what)
    # The truth's rows (entries of queries that are no row are dropped).
    trow = np.searchsorted(rows, tq)
    inside = trow < n
    inside[inside] = rows[trow[inside]] == tq[inside]
    return diversity_from_codes(
        rows,
        indptr,
        r_codes,
        scores,
        trow[inside],
        t_codes[inside],
        ts[inside],
        tr[inside],
        vocab,
        what,
    )


def diversity_from_codes(
    rows, indptr, r_codes, scores, trow, t_codes, subtopic, level, names, what="query"
):
    """:class:`DiversityInputs` from ranked lists and truth already coded.

    ``r_codes`` and ``t_codes`` are document codes in the ids' byte order
    (``-1``: a ranked document no judgement names); ``names[c]`` is the id of
    code ``c`` (for messages). The truth entries (row ``trow``, ``subtopic``,
    ``level``) come in any order; a (row, document, subtopic) judged twice
    raises.
    """
    n = rows.shape[0]
    subs, s_codes = np.unique(subtopic, return_inverse=True)
    s_codes = s_codes.reshape(-1).astype(np.int64)
    t_codes = np.asarray(t_codes, dtype=np.int64)
    n_subs, span = max(int(subs.shape[0]), 1), len(names) + 1
    if n * span * n_subs < (1 << 62):  # one packed key: (row, document, subtopic)
        t_order = np.argsort((trow * span + t_codes) * n_subs + s_codes, kind="stable")
    else:
        t_order = np.lexsort((s_codes, t_codes, trow))
    trow, t_codes, s_codes = trow[t_order], t_codes[t_order], s_codes[t_order]
    tr = np.asarray(level, dtype=np.float64)[t_order]
    if trow.size > 1:
        dup = (
            (trow[1:] == trow[:-1]) & (t_codes[1:] == t_codes[:-1]) & (s_codes[1:] == s_codes[:-1])
        )
        if dup.any():
            i = int(flatnonzero(dup)[0])
            raise ValueError(
                f"the truth judges item {shown(names[t_codes[i]])!r} twice for {what} "
                f"{shown(rows[trow[i]])!r} and subtopic {shown(subs[s_codes[i]])!r}; give "
                f"each ({what}, subtopic, item) once."
            )
    t_indptr = np.concatenate(([0], np.cumsum(np.bincount(trow, minlength=n)))).astype(np.int64)
    return DiversityInputs(
        rows,
        indptr,
        np.asarray(r_codes, dtype=np.int64),
        scores,
        t_indptr,
        t_codes,
        s_codes,
        tr,
        len(names),
        int(subs.shape[0]),
    )
