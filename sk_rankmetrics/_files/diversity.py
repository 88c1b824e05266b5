"""evaluate_run on a diversity qrels (query, subtopic, document, level), as ndeval scores it."""

from __future__ import annotations

import copy
import os

import numpy as np

from .._evaluation.pipeline import score_layout
from .._inputs.diversity import SubtopicTruth, build_diversity, diversity_from_codes
from .._inputs.preranked import RankedLists, group_long
from .._metrics.requests import make_requests
from .id_codes import factorize
from .matching import match_columns
from .trec import TrecQrels, read_trec_qrels


def as_diversity_qrels(qrels):
    """A TrecQrels with subtopics: a path is read with ``diversity=True``."""
    if isinstance(qrels, (str, os.PathLike)):
        return read_trec_qrels(qrels, diversity=True)
    if isinstance(qrels, TrecQrels) and qrels.subtopic is not None:
        return qrels
    raise ValueError(
        "the diversity measures read a diversity qrels (query, subtopic, document, "
        "level); pass its path, read_trec_qrels(path, diversity=True), or "
        "TrecQrels(qid, docno, relevance, subtopic=...)."
    )


def diversity_requests(metrics, threshold, k=None, where="evaluate_run"):
    """The diversity measures' requests: ``threshold`` reaches every measure whose
    name does not fix it."""
    return make_requests(metrics, where, k=k,
                         given={"threshold": ("threshold", threshold, threshold)})


def judged_pairs_only(inputs):
    """The same rows with every ranked document the query's qrels do not name
    removed (trec_eval's ``-J``)."""
    lens = np.diff(inputs.rec_indptr)
    row = np.repeat(np.arange(inputs.n_rows), lens)
    trow = np.repeat(np.arange(inputs.n_rows), np.diff(inputs.truth_indptr))
    tkeys = np.unique(trow * inputs.span + inputs.truth_codes)
    rkeys = row * inputs.span + inputs.rec_codes
    pos = np.minimum(np.searchsorted(tkeys, rkeys), max(tkeys.shape[0] - 1, 0))
    keep = (
        (inputs.rec_codes >= 0) & (tkeys[pos] == rkeys)
        if tkeys.size
        else np.zeros(rkeys.shape[0], dtype=bool)
    )
    new_lens = np.bincount(row[keep], minlength=inputs.n_rows)
    inputs.rec_indptr = np.concatenate(([0], np.cumsum(new_lens))).astype(np.int64)
    inputs.rec_codes = inputs.rec_codes[keep]
    if inputs.rec_scores is not None:
        inputs.rec_scores = inputs.rec_scores[keep]
    inputs.n_cols = int(new_lens.max()) if new_lens.size else 0
    return inputs


def _from_columns(q, r, *, complete, max_docs, trec):
    """The diversity layout of a run and a diversity qrels read from files, by
    the integer codes of the ordinary path (:func:`.matching.match_columns`:
    run lines to qrels lines by hashed pairs, ranked in trec_eval's order).

    The matcher is given the qrels with each line's number as its level: the
    rows' truth then names, for each entry, the line it came from, hence its
    subtopic and level. Document codes are renumbered in the ids' byte order
    (ndeval breaks the ties of its greedy ideal by document id).
    """
    # Ordered codes first: the matcher then reuses them (kept on the column).
    ordered, reps = factorize(q._columns["docno"], ordered=True)
    ordered = np.asarray(ordered, dtype=np.int64)
    lines = copy.copy(q)
    lines.relevance = np.arange(len(q), dtype=np.float64)
    pre, perm = match_columns(lines, r, None, complete=complete, max_docs=max_docs, trec=trec)
    line = pre.truth_rel.astype(np.int64)
    to_ordered = np.full(int(pre.truth_codes.max(initial=-1)) + 1, -1, dtype=np.int64)
    to_ordered[pre.truth_codes] = ordered[line]
    r_codes = np.where(pre.rec_codes >= 0, to_ordered[np.maximum(pre.rec_codes, 0)], -1)
    trow = np.repeat(np.arange(pre.n_rows), np.diff(pre.truth_indptr))
    names = _Names(q._columns["docno"], reps)
    inputs = diversity_from_codes(
        pre.query_ids,
        pre.rec_indptr,
        r_codes,
        pre.rec_scores,
        trow,
        ordered[line],
        q.subtopic[line],
        q.relevance[line],
        names,
    )
    return inputs, perm


class _Names:
    """Document ids by code, made into text only for a message."""

    def __init__(self, column, reps):
        self.column, self.reps = column, reps

    def __len__(self):
        return len(self.reps)

    def __getitem__(self, code):
        return self.column.to_strings(np.asarray([self.reps[code]]))[0]


def evaluate_diversity_run(
    qrels,
    run,
    metrics,
    *,
    setting,
    complete,
    threshold,
    max_docs,
    judged_only,
    no_relevant,
    progress,
):
    """:func:`evaluate_run` for diversity measures (see its docstring)."""
    q = as_diversity_qrels(qrels)
    if len(q) == 0:
        raise ValueError(f"the qrels ({q.source or 'given'}) hold no judgement.")
    trec = setting == "trec_eval"
    requests = diversity_requests(metrics, threshold)
    perm = None
    if (
        q._columns is not None
        and run._columns is not None
        and len(run)
    ):
        inputs, perm = _from_columns(q, run, complete=complete, max_docs=max_docs, trec=trec)
    else:
        ids, lens, items, scores = group_long(run.qid, run.docno, run.score, order="score")
        if max_docs is not None:
            starts = np.cumsum(lens) - lens
            keep = np.arange(items.shape[0]) - np.repeat(starts, lens) < max_docs
            items, scores, lens = items[keep], scores[keep], np.minimum(lens, max_docs)
        inputs = build_diversity(
            RankedLists(ids, lens, items, None if trec else scores),
            SubtopicTruth(q.qid, q.subtopic, q.docno, q.relevance),
            queries="truth" if complete else "both",
        )
    check_repeats(inputs)
    if judged_only:
        inputs = judged_pairs_only(inputs)
    if no_relevant is None:
        no_relevant = 0.0 if trec else "warn"
    return score_layout(inputs, requests, ignore_ties=trec, no_relevant=no_relevant,
                        progress=progress, order=perm)


def check_repeats(inputs):
    """Raise when a query's ranking holds a judged document twice."""
    lens = np.diff(inputs.rec_indptr)
    row = np.repeat(np.arange(inputs.n_rows), lens)
    judged = inputs.rec_codes >= 0
    keys = np.sort(row[judged] * inputs.span + inputs.rec_codes[judged])
    same = keys[1:] == keys[:-1]
    if same.any():
        r = int(keys[1:][same][0] // inputs.span)
        raise ValueError(
            f"the ranking of query {inputs.query_ids[r]!r} holds the same judged "
            "document twice; rank each document once per query."
        )


#: Column names of a data frame holding a diversity truth, by role.
_FRAME_COLUMNS = {
    "query": ("query", "user", "qid", "query_id", "user_id"),
    "subtopic": ("subtopic", "iteration", "intent"),
    "item": ("item", "docno", "doc_id", "item_id"),
    "relevance": ("relevance", "rel", "label"),
}


def subtopic_truth(truth):
    """A diversity truth as :class:`SubtopicTruth`: a path (read as a diversity
    qrels), a tuple ``(query_ids, subtopics, item_ids, relevance)``, or a
    pandas data frame with a subtopic column."""
    if isinstance(truth, (str, os.PathLike)):
        q = read_trec_qrels(truth, diversity=True)
        return SubtopicTruth(q.qid, q.subtopic, q.docno, q.relevance)
    if isinstance(truth, TrecQrels) and truth.subtopic is not None:
        return SubtopicTruth(truth.qid, truth.subtopic, truth.docno, truth.relevance)
    if isinstance(truth, tuple) and len(truth) == 4:
        return SubtopicTruth(*truth)
    columns = getattr(truth, "columns", None)
    if columns is not None:
        found = {}
        for role, names in _FRAME_COLUMNS.items():
            hit = [c for c in names if c in columns]
            if not hit:
                raise ValueError(
                    f"the diversity truth has no {role} column: name it one of "
                    f"{', '.join(names)} (columns: {', '.join(map(str, columns))})."
                )
            found[role] = np.asarray(truth[hit[0]])
        return SubtopicTruth(found["query"], found["subtopic"], found["item"], found["relevance"])
    raise ValueError(
        "the diversity measures read a truth with subtopics: a tuple (user_ids, "
        "subtopics, item_ids, relevance), a data frame with user, subtopic, item and "
        f"relevance columns, or the path of a diversity qrels; got {type(truth).__name__}."
    )


def evaluate_diversity_ranked(
    lists, truth, metrics, *, k, complete, threshold, no_relevant, progress
):
    """:func:`evaluate_ranked` for diversity measures: ``lists`` (a RankedLists
    without scores) against a diversity truth."""
    requests = diversity_requests(metrics, threshold, k, where="evaluate_ranked")
    inputs = build_diversity(
        lists, subtopic_truth(truth), queries="truth" if complete else "both", what="user"
    )
    return score_layout(inputs, requests, ignore_ties=True, no_relevant=no_relevant,
                        progress=progress)
