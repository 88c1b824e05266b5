"""Matching a run read from a file to its qrels, by integer codes: the pre-ranked
layout of the pair (queries by their bytes, each run line to the qrels line
judging its document by hashed pairs, ranked in trec_eval's order), shared by
evaluate_run and the diversity measures' path (no callback between the two)."""

from __future__ import annotations

import numpy as np

from .._inputs.preranked import PrerankedInputs, check_overlap, indptr_of, sort_pairs
from .._utils.errors import warn
from .._utils.fast import ranges, tied_stretches
from .._utils.nonzero import flatnonzero, neighbours_differ
from .id_codes import factorize, factorize_collapsed
from .tokens import PAIR_STEP, pair_hashes

#: Steps of :func:`match_columns` reported to a progress display.
_MATCH_STEPS = 4


def match_columns(q, r, judged, *, complete, max_docs, trec, steps=None, what="query"):
    """The pre-ranked layout of a run and qrels read from files, by integer codes.

    Query ids are matched by their bytes (there are few), one code per run
    of lines of one query; each run line finds the qrels line judging its
    (query, document) pair through a hash of the pair, every match verified
    (see :func:`_judgements`). Rows are the run's queries in
    byte order of their ids, then (``complete``) the judged queries missing
    from the run; ``perm`` puts them all in sorted order. Each query's
    documents are ranked by score descending, ties by docno descending
    (trec_eval's order); a run already in that order (the usual case) is not
    sorted again.
    """
    rq, dq = r._columns["qid"], r._columns["docno"]
    tq, td = q._columns["qid"], q._columns["docno"]
    run_code, run_reps = factorize_collapsed(rq)  # a code per run of lines, in byte order
    truth_code, truth_reps = factorize(tq)  # a code per qrels line
    run_names = rq.heads.to_strings(run_reps)
    truth_names = tq.to_strings(truth_reps)
    check_overlap(run_names, truth_names, "truth" if complete else "both", what)
    step = steps or (lambda done, total: None)
    step(1, _MATCH_STEPS)
    # Rows: run queries that have judgements (all judged ones with complete).
    t_of_run = np.searchsorted(truth_names, run_names)
    t_of_run = np.where((t_of_run < truth_names.size)
                        & (truth_names[np.minimum(t_of_run, truth_names.size - 1)]
                           == run_names), t_of_run, -1)
    keep_q = t_of_run >= 0
    n_q, score = run_names.shape[0], r.score
    n = score.shape[0]
    lens, order, first, score_o, ties = _ranked_order(rq, dq, run_code, score, n_q,
                                                      trec or max_docs is not None)
    step(2, _MATCH_STEPS)
    # Documents -> codes in the qrels' docno vocabulary (-1: not judged for the query).
    doc_code, _ = factorize(td, ordered=False)
    item = np.full(n, -1, dtype=doc_code.dtype)
    lines, judgement = _judgements(q, r, t_of_run, truth_code, run_code)
    item[lines] = doc_code[judgement]
    del lines, judgement
    step(3, _MATCH_STEPS)
    # Keep the lines of kept queries (and cut at max_docs).
    keep = None
    if not keep_q.all():
        keep = np.repeat(keep_q, lens)
    if max_docs is not None and lens.max() > max_docs:
        cut = np.arange(n) - np.repeat(first, lens) < max_docs
        keep = cut if keep is None else keep & cut
    if max_docs is not None:
        lens = np.minimum(lens, max_docs)
    if ties is not None:  # lines at places ties[0] become lines ties[1]
        if order is None and keep is None:
            item[ties[0]] = item[ties[1]]
        else:
            order = np.arange(n) if order is None else order
            order[ties[0]] = ties[1]
    if keep is None:
        items = item if order is None else item[order]
        scores_o = score_o
    else:
        sel = flatnonzero(keep) if order is None else order[keep]
        items, scores_o = item[sel], score[sel]
    del item, score_o
    lens = lens[keep_q]
    rows_t = t_of_run[keep_q]  # truth query of each run row
    names = run_names[keep_q]
    if complete:
        extra = np.setdiff1d(np.arange(truth_names.size), rows_t, assume_unique=True)
        rows_t = np.concatenate((rows_t, extra))
        names = np.concatenate((names, truth_names[extra]))
        lens = np.concatenate((lens, np.zeros(extra.size, dtype=np.int64)))
    n_rows = names.shape[0]
    if n_rows == 0:
        raise ValueError("no query has both a ranking and judgements; check that the "
                         "query ids of the ranking and of the truth match.")
    indptr = np.concatenate(([0], np.cumsum(lens))).astype(np.int64)
    trow, tcode, trel, tjudged = _truth_rows(q, judged, truth_code, doc_code, rows_t,
                                             truth_names.size, n_rows)
    if trel.size and not (items >= 0).any():
        warn(
            "no ranked item appears in the truth: every query scores as if nothing "
            "relevant was ranked. Check that both use the same document ids.", UserWarning,
        )
    inputs = PrerankedInputs(names, indptr, items, indptr_of(trow, n_rows), tcode,
                             trel.astype(np.float64),
                             rec_scores=None if trec else scores_o, truth_judged=tjudged)
    step(_MATCH_STEPS, _MATCH_STEPS)
    return inputs, np.argsort(names, kind="stable")


def _ranked_order(rq, dq, run_code, score, n_q, cut_in_trec_order):
    """The run's lines grouped by query and ranked: ``(lens, order, first,
    score_o, ties)``: lines per query, the ranked order of the lines (None: the
    file's), each query's first place, the scores in that order, and the
    docno-descending order of tied lines when trec_eval's order matters
    (``cut_in_trec_order``) or None."""
    # Groups: consecutive runs of lines of one query.
    new = np.ones(run_code.shape[0], dtype=bool)
    neighbours_differ(run_code, new[1:])
    gi = flatnonzero(new)
    g_code, g_start, g_len = run_code[gi], rq.starts[gi], np.add.reduceat(rq.lens, gi)
    lens = np.zeros(n_q, dtype=np.int64)
    np.add.at(lens, g_code, g_len)
    # Order: by query (byte order of the qid), score descending, docno descending.
    order = None
    in_order = g_code.shape[0] == n_q  # the lines of each query are contiguous
    if in_order:
        rising = score[1:] > score[:-1]
        rising[g_start[1:] - 1] = False  # from one query to the next
        in_order = not rising.any()
        del rising
    if not in_order:
        order = np.lexsort((-score, np.repeat(run_code, rq.lens)))
    elif (np.diff(g_code) < 0).any():
        by_q = np.argsort(g_code, kind="stable")
        order = ranges(g_start[by_q], g_len[by_q])
    first = np.zeros(n_q, dtype=np.int64)  # first ordered line of each query
    np.cumsum(lens[:-1], out=first[1:])
    score_o = score if order is None else score[order]
    tied = score_o[1:] == score_o[:-1]
    tied[first[1:] - 1] = False
    ties = None
    if cut_in_trec_order and tied.any():  # -M cuts in trec_eval's order
        ties = _docno_ties(order, tied, dq)
    del tied
    return lens, order, first, score_o, ties


def _truth_rows(q, judged, truth_code, doc_code, rows_t, n_truth, n_rows):
    """The qrels lines of the kept rows, sorted by (row, docno code):
    ``(rows, codes, relevance, judged or None)``."""
    # Truth rows sorted by (row, docno code).
    row_of_t = np.full(n_truth, -1, dtype=np.int64)
    row_of_t[rows_t] = np.arange(n_rows)
    trow = row_of_t[truth_code]
    tkeep = trow >= 0
    trow, tcode, trel = trow[tkeep], doc_code[tkeep], q.relevance[tkeep]
    tjudged = None if judged is None else judged[tkeep]  # negative levels: pooled, unjudged
    t_order = sort_pairs(trow, tcode, n_rows)
    if t_order is not None:
        trow, tcode, trel = trow[t_order], tcode[t_order], trel[t_order]
        tjudged = None if tjudged is None else tjudged[t_order]
    return trow, tcode, trel, tjudged


def _judgements(q, r, t_of_run, truth_code, run_code):
    """The run lines whose (query, document) pair the qrels judge, and the
    qrels line judging each.

    A bitmap of the qrels' pair hashes screens out most run lines (their
    hashes are made a chunk of lines at a time); the rest are found by a
    sorted search and verified: the same query (by its code)
    and the same document, byte for byte. A run line whose hash several
    qrels lines share is checked against each of them.
    """
    rc, tc = r._columns, q._columns
    n, n_t = len(r), len(q)
    if n == 0 or n_t == 0:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    tp = pair_hashes(tc, 0, n_t)
    order = np.argsort(tp)
    sp = tp[order]
    bits = int(min(max(np.ceil(np.log2(n_t * 32)), 10), 24))
    shift = np.uint64(64 - bits)
    table = np.zeros(1 << bits, dtype=bool)
    table[(sp >> shift).view(np.int64)] = True
    cand, ck = [], []
    for a in range(0, n, PAIR_STEP):  # run lines a chunk at a time, hashes made on the fly
        h = pair_hashes(rc, a, min(a + PAIR_STEP, n))
        hit = flatnonzero(table[(h >> shift).view(np.int64)])
        cand.append(hit + a)
        ck.append(h[hit])
    cand, ck = np.concatenate(cand), np.concatenate(ck)
    pos = np.minimum(np.searchsorted(sp, ck), sp.shape[0] - 1)
    hit = sp[pos] == ck
    cand, pos = cand[hit], pos[hit]
    rq, dq, td = r._columns["qid"], r._columns["docno"], q._columns["docno"]

    def same(rows, trows):
        return ((t_of_run[run_code[rq.run_of(rows)]] == truth_code[trows])
                & dq.same(rows, td, trows))

    trows = order[pos]
    ok = same(cand, trows)
    if not ok.all():  # a hash shared by several qrels lines: try each of them
        for i in flatnonzero(~ok).tolist():
            p = int(pos[i])
            for t in order[p : int(np.searchsorted(sp, sp[p], side="right"))].tolist():
                if same(cand[i : i + 1], np.array([t]))[0]:
                    trows[i], ok[i] = t, True
                    break
    return cand[ok], trows[ok]


def _docno_ties(order, tied, docno):
    """Each run of tied scores in docno descending order (byte order).

    ``tied[i]``: the lines at places ``i`` and ``i + 1`` of the ranked
    order (``order``, None for the file's order) have equal scores. Returns
    ``(places, lines)``: the places inside tie groups and the line each one
    then holds.
    """
    pos, grp = tied_stretches(tied)  # every place inside a tie group, and its group
    lines = pos if order is None else order[pos]
    rank = docno.lex_rank(lines)
    # Group first, then docno descending, as one integer key (both < n).
    n = rank.shape[0]
    return pos, lines[np.argsort(grp * (n + 1) + (n - rank), kind="stable")]
