"""evaluate_run on Dask frames."""

from __future__ import annotations

import numpy as np

from .._evaluation.result import EvaluationResult
from .._files.diversity import as_diversity_qrels, diversity_requests
from .._files.frames import RELEVANCE_COLUMNS, SCORE_COLUMNS
from .._files.runs import evaluate_run as evaluate_in_memory
from .._files.runs import run_requests
from .._files.trec import TrecQrels, TrecRun
from .._metrics.names import by_family
from .._utils.errors import quiet
from .._utils.threads import one_thread
from .arrays import _fresh_id
from .columns import (
    _common_id_kind,
    _find_column,
    _long_frame,
    _no_progress,
    _shared_meta,
    _side,
    _split,
    _together,
)
from .overlap import _Check, _overlap_reduction
from .plan import _context, _in_partition, _modules, _Plan, _results
from .result import LazyEvaluationResult

#: Column names of a Dask qrels' subtopic (a diversity qrels).
SUBTOPIC_COLUMNS = ("subtopic", "iteration", "intent")


def _raw_from_result(res, plan):
    """``raw`` as the engine gives it, from an in-memory result scored with
    ``no_relevant="skip"`` (NaN marks the rows without a relevant item)."""
    raw = {}
    for label in plan.labels:
        v = np.asarray(res.per_query[label], dtype=np.float64)
        raw[label] = (v.copy(), ~np.isnan(v))
    return raw


def evaluate_run(qrels, run, metrics, *, setting, complete, threshold, gains, max_docs,
                 judged_only, n_docs, no_relevant, qrels_format, run_format, progress,
                 compute):
    """:func:`sk_rankmetrics.evaluate_run` for Dask data frames."""

    _, _, dd, pd = _modules()
    _no_progress(progress, "evaluate_run")
    trec = setting == "trec_eval"
    diversity = getattr(qrels, "subtopic", None) is not None or by_family(metrics).diversity_only()
    if diversity:
        requests = diversity_requests(metrics, threshold)
        if not isinstance(qrels, dd.DataFrame):  # a path or a TrecQrels with subtopics
            d = as_diversity_qrels(qrels)
            qrels = dd.from_pandas(pd.DataFrame({
                "qid": d.qid, "subtopic": d.subtopic, "docno": d.docno,
                "relevance": d.relevance}), npartitions=1)
    else:
        requests = run_requests(metrics, trec, np.zeros(0), threshold=threshold, gains=gains,
                                max_docs=max_docs, judged_only=judged_only, n_docs=n_docs)
    policy = (0.0 if trec else "warn") if no_relevant is None else no_relevant
    q, qcols = _long_frame(qrels, "qrels", dd, pd, RELEVANCE_COLUMNS, "relevance", qrels_format)
    subtopic = (_find_column(q.columns, SUBTOPIC_COLUMNS, "subtopic", "qrels")
                if diversity else None)
    r, rcols = _long_frame(run, "run", dd, pd, SCORE_COLUMNS, "score", run_format)
    kinds = (_common_id_kind(q[qcols[0]].dtype, r[rcols[0]].dtype),
             _common_id_kind(q[qcols[1]].dtype, r[rcols[1]].dtype))
    meta = _shared_meta(kinds)
    sides = [r.map_partitions(_side, cols=rcols, code=0, kinds=kinds, what="run", meta=meta),
             q.map_partitions(_side, cols=qcols, code=1, kinds=kinds, what="qrels",
                              subtopic=subtopic, meta=meta)]
    both = _together(sides, kinds, dd)
    options = {"metrics": metrics, "setting": setting, "complete": complete,
               "threshold": threshold, "gains": gains, "max_docs": max_docs,
               "judged_only": judged_only, "n_docs": n_docs}
    plan = _Plan(requests, kind="run", what="query", options=options, kinds=kinds,
                 diversity=diversity)
    rows = both.map_partitions(_score_run, plan=plan,
                               meta=plan.rows_meta(pd.Index(meta["qid"], name="query")))
    check = _Check(queries="truth" if complete else "both", what="query", complete=complete,
                   run_empty_message="the run is empty; it must rank at least one document.")
    return _evaluation(rows, plan, policy, compute, _overlap_reduction(both, kinds), check)


def _score_run(part, plan, partition_info=None):
    """Per-query rows of one partition: an in-memory evaluate_run of its queries."""
    import pandas as pd

    complete = plan.options["complete"]
    kind, qid, doc, value, lists = _split(part, plan.kinds)
    ranked = kind == 0
    rq, rd, rs = qid[ranked], doc[ranked], value[ranked]
    tq, td, tr, ts = qid[~ranked], doc[~ranked], value[~ranked], lists[~ranked]
    keep = np.isin(rq, tq)  # queries without judgements are left out
    rq, rd, rs = rq[keep], rd[keep], rs[keep]
    if not complete:  # judged queries without a ranking are left out
        keep = np.isin(tq, rq)
        tq, td, tr, ts = tq[keep], td[keep], tr[keep], ts[keep]
    index = pd.Index(tq[:0], name="query")
    if tq.size == 0:
        return plan.rows_meta(index)
    dummy = None
    if rq.size == 0:
        # Only judged queries without a ranking (complete=True): the in-memory
        # function refuses a run that shares no query with the qrels, so one
        # query with a fresh id is added on both sides and dropped after.
        dummy = _fresh_id(tq)
        rq, rd, rs = np.array([dummy]), td[:1], np.zeros(1)
        tq, td, tr = np.append(tq, dummy), np.append(td, td[:1]), np.append(tr, 1.0)
        ts = np.append(ts, 0)
    truth = TrecQrels(tq, td, tr, subtopic=ts if getattr(plan, "diversity", False) else None)
    with quiet(), one_thread(), _context(_in_partition(partition_info)
                                         + " after the shuffle by query"):
        res = evaluate_in_memory(truth, TrecRun(rq, rd, rs), **plan.options,
                                 no_relevant="skip")
    rows = plan.rows(_raw_from_result(res, plan), pd.Index(res.query_ids, name="query"),
                     None, 0.0)
    if dummy is not None:
        rows = rows[rows.index != dummy]
    return rows


def _evaluation(rows, plan, policy, compute, stats, check):
    """An :class:`EvaluationResult` (or its lazy form) from per-query rows."""
    values, means, ids = _results(rows, plan, policy, per_row=True, compute=compute,
                                  by_query=True, extra=stats, check=check)
    if compute:
        return EvaluationResult(ids, values, means)
    return LazyEvaluationResult(ids, means)
