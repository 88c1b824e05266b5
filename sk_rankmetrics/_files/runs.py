"""evaluate_run: TREC runs against qrels, and the trec_eval setting."""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence

import numpy as np

from .._evaluation.pipeline import score_layout
from .._evaluation.result import EvaluationResult
from .._inputs.preranked import (
    PrerankedInputs,
    RankedLists,
    Truth,
    build_preranked,
    check_overlap,
    group_long,
    indptr_of,
    sort_pairs,
)
from .._metrics.names import by_family
from .._metrics.requests import as_metric_list, make_requests
from .._utils.backends import backend_for
from .._utils.errors import InvalidParameterError, short_repr, warn
from .._utils.fast import flatnonzero
from .._utils.params import validate
from .._utils.types import (
    DaskFrame,
    FileFormat,
    Frame,
    Lazy,
    NoRelevant,
    PathLike,
    Progress,
    Setting,
)
from .diversity import evaluate_diversity_run
from .formats import read_qrels, read_run
from .frames import qrels_from_frame, run_from_frame
from .id_codes import factorize, factorize_collapsed
from .tokens import PAIR_STEP, pair_hashes
from .trec import TrecQrels, TrecRun


def as_qrels(qrels, fmt="auto"):
    if isinstance(qrels, TrecQrels):
        return qrels
    if isinstance(qrels, (str, os.PathLike)):
        return read_qrels(qrels, format=fmt)
    if hasattr(qrels, "columns"):
        return qrels_from_frame(qrels)
    raise InvalidParameterError("qrels must be a TrecQrels, a path to a qrels file or a data "
                                f"frame, got {type(qrels).__name__}.")


def as_run(run, fmt="auto"):
    if isinstance(run, TrecRun):
        return run
    if isinstance(run, (str, os.PathLike)):
        return read_run(run, format=fmt)
    if hasattr(run, "columns"):
        return run_from_frame(run)
    raise InvalidParameterError("run must be a TrecRun, a path to a run file or a data frame, "
                                f"got {type(run).__name__}.")


#: Options the trec_eval setting gives every metric that reads them (unless
#: the metric's name or the caller says otherwise).
_TREC_FIXED = {"denominator": "relevant", "p": 0.9, "graded": True, "zero_if_judged": True}


def _trec_syntax(metrics, levels=()):
    """Expand trec_eval's ``-m`` syntax (``"P.5,10"``, ``"ndcg.1=3,2=9"``,
    ``"all_trec"``) into the names trec_eval prints, as the command does
    (:func:`.trec_eval.metric_requests`, gains completed over ``levels``);
    other names pass through. The entries in that syntax are read together,
    as trec_eval reads its ``-m`` list: a measure given parameters twice keeps
    the first (a warning names the entry left out), and a set takes the
    parameters given for its measures (``["official", "P.10"]``: P_10, no
    other P); each measure comes where the list first names it. ``runid`` and
    ``relstring`` (text) are left out of the sets and refused by name."""
    from .trec_eval import SETS, TEXT_MEASURES, is_syntax, metric_requests, parse_measures

    items = as_metric_list(metrics)
    syntax = [item for item in items if isinstance(item, str)
              and (is_syntax(item) or item in TEXT_MEASURES)]
    if not syntax:
        return items
    ignored = []
    try:
        chosen = parse_measures(syntax, ignored)
        direct = [n for n in dict.fromkeys(i.partition(".")[0] for i in syntax if i not in SETS)
                  if n in TEXT_MEASURES]
        if direct:
            metric_requests({n: chosen[n] for n in direct}, levels, text="raise")
        # Each measure's entries, placed where the list first names the measure.
        entries = {n: metric_requests({n: params}, levels) for n, params in chosen.items()}
    except ValueError as exc:
        raise InvalidParameterError(f"evaluate_run: {exc}") from None
    for spec, first in ignored:
        warn(f"metrics: {spec!r} is left out: trec_eval reads only the first parameters "
             f"given for a measure (here {first!r}); give all of them in one entry.",
             UserWarning)
    out, placed = [], set()
    for item in items:
        if not (isinstance(item, str) and item in syntax):
            out.append(item)
            continue
        name = item.partition(".")[0]
        for n in (entries if item in SETS else (name,)):  # a set: trec_eval's order
            if n in entries and n not in placed and (item not in SETS or n in SETS[item]):
                placed.add(n)
                out += entries[n]
    return out


def run_requests(metrics, trec, levels, *, threshold, gains, max_docs, judged_only, n_docs):
    """evaluate_run's requests: each global argument reaches the metrics that
    read it (:func:`.trec_eval.reads_option`), and one read by none raises."""
    from .trec_eval import is_trec_measure, option_rule

    requests = make_requests(
        _trec_syntax(metrics, levels), "evaluate_run",
        given={"threshold": ("threshold", threshold, threshold),
               "gain": ("gains", gains, _trec_gain(levels, gains)),
               "max_docs": ("max_docs", max_docs, max_docs),
               "judged_only": ("judged_only", judged_only, judged_only),
               "n_docs": ("n_docs", n_docs, n_docs)},
        fixed=_TREC_FIXED if trec else None, reads=option_rule(trec),
        fixed_reaches=is_trec_measure if trec else None,
    )
    if trec:
        from .trec_eval import negative_gains

        try:
            negative_gains(requests)
        except ValueError as exc:
            raise InvalidParameterError(f"evaluate_run: {exc}") from None
    return requests


def _trec_gain(levels, gains):
    """A gain mapping over every level: the given gains, others their level."""
    if gains is None:
        return None
    from .trec_eval import complete_gains

    try:
        return complete_gains(levels, gains)
    except (TypeError, ValueError, AttributeError):
        raise InvalidParameterError("gains must map numeric relevance levels to numeric "
                                    f"gains, got {short_repr(gains)}.") from None


@validate
def evaluate_run(qrels: TrecQrels | PathLike | Frame | DaskFrame,
                 run: TrecRun | PathLike | Frame | DaskFrame, metrics: str | Sequence[str], *,
                 setting: Setting = "sk_rankmetrics", complete: bool = False,
                 threshold: float | None = None, gains: Mapping[int, float] | None = None,
                 max_docs: int | None = None, judged_only: bool = False, n_docs: int | None = None,
                 no_relevant: NoRelevant | None = None, qrels_format: FileFormat = "auto",
                 run_format: FileFormat = "auto", progress: Progress | None = None,
                 compute: bool = True) -> EvaluationResult | Lazy:
    r"""Score a TREC run against qrels, per query and on average.

    Parameters
    ----------
    qrels : TrecQrels, path, pandas.DataFrame or dask.dataframe.DataFrame
        Judgements (a path is read with :func:`read_qrels`, as the command
        line reads it: by ``qrels_format``, its extension or its content; a
        data frame with :func:`qrels_from_frame`; a Dask data frame needs the
        column names that function looks for by default).
    run : TrecRun, path, pandas.DataFrame or dask.dataframe.DataFrame
        The ranking to score (a path is read with :func:`read_run`; a data
        frame with :func:`run_from_frame`; the same for Dask).
    metrics : str or list of str
        Metric names such as ``"ndcg@10"``, ``"map"``, ``"P@5"``, ``"mrr"``;
        the names trec_eval prints (``"P_5"``, ``"map_cut_10"``,
        ``"iprec_at_recall_0.10"``, ``"Rprec_mult_0.20"``, ``"set_F"``,
        ``"bpref"``, ``"gm_map"``, ``"infAP"``, ``"num_rel"``, ...); trec_eval's
        ``-m`` syntax (``"P.5,10"``, ``"ndcg.1=3,2=9"``, ``"set_F.0.5"``,
        ``"rbp.p=0.8"``, and the sets ``"official"`` and ``"all_trec"``),
        which expands into the names trec_eval prints, as
        ``sk-rankmetrics trec_eval`` expands it (a level without a listed gain
        keeps its level as gain; the sets include ``num_q``; ``runid`` and
        ``relstring``, which are text, are left out of the sets and refused by
        name); and ir_measures' names (``"nDCG@10"``, ``"AP@100"``,
        ``"P(rel=2)@5"``, ``"RBP(p=0.8,rel=1)"``), which keep ir_measures' meaning
        under both settings. Diversity measures (``"alpha_nDCG@20"``,
        ``"ERR_IA@20"``, ``"NRBP"``, ndeval's ``"alpha-nDCG@20"``, this
        package's ``"alpha_ndcg@20"``, ...) read a diversity qrels (``query
        subtopic document level``): a path is read as one when every metric
        is a diversity measure, or give ``read_trec_qrels(path,
        diversity=True)`` (see the Diversity evaluation page).
    setting : {"sk_rankmetrics", "trec_eval"}, default="sk_rankmetrics"
        ``"sk_rankmetrics"``: this package's defaults (tied scores averaged
        over their orderings; AP@k divided by min(k, R)). ``"trec_eval"``
        reproduces trec_eval: ties broken by docno descending, AP and AP@k
        divided by all relevant documents R, queries without relevant
        documents score 0, levels truncated toward zero as trec_eval reads
        them (``1.7`` is 1; one warning names the first non-integer level).
        In both settings a negative qrels level (TREC Web track: spam -2,
        junk -1) marks a document in the pool but not judged, as trec_eval
        and ir_measures read it: never relevant, worth 0 unless a gain names
        the level, skipped by bpref, pooled for Judged@k and infAP.
    complete : bool, default=False
        Count queries that are in the qrels but not in the run, with score 0
        (trec_eval ``-c``). By default they are left out with a warning that
        gives their count (the policy of :func:`evaluate_ranked` too).
        Queries of the run without qrels are always left out.
    threshold : float, optional
        Lowest relevance level that counts as relevant for the binary metrics
        (trec_eval ``-l``; default: levels > 0). Negative levels are never
        relevant: a threshold at or below one of them raises.
    gains : dict, optional
        Gain of each relevance level for nDCG/DCG (trec_eval
        ``-m ndcg.1=3,2=9``); levels >= 0 not given keep their level as gain,
        negative ones not given are worth 0. A negative level given a gain
        takes it in the DCG and the ideal; the trec_eval setting refuses such
        a gain unless it is 0 (trec_eval would give it to other documents, in
        the DCG only: docs/which_ndcg.md, "trec_eval's quirks").
    max_docs : int, optional
        Keep only the first ``max_docs`` ranked documents of each query
        (trec_eval ``-M``).
    judged_only : bool, default=False
        Remove the documents the qrels do not judge from the ranking before
        scoring (trec_eval ``-J``).
    n_docs : int, optional
        Number of documents in the collection, for ``utility``'s missed
        non-relevant documents (trec_eval ``-N``; default 0).
    no_relevant : "warn", "skip" or float, optional
        Policy for queries without a relevant document (default ``"warn"``;
        ``0.0`` in the trec_eval setting).
    qrels_format, run_format : str, default="auto"
        ``"auto"``, ``"trec"``, ``"csv"``, ``"tsv"``, ``"parquet"`` or
        ``"json"``: the format of a qrels or run given as a path (``--qrels-format`` and
        ``--run-format`` of the command line); ``"auto"``: by the extension,
        then by the content (see :func:`read_qrels`).
    progress : callable, optional
        Called as ``progress(done, total)`` after each block of queries. If
        it also has a ``phase(label)`` method (as the command line's progress
        bar has), that is called when matching the run to the qrels
        (``"matching"``, then ``progress(step, 4)`` after each of its steps)
        and when the evaluation starts (``"evaluating"``). Not called with
        Dask inputs, which have Dask's own progress bars.
    compute : bool, default=True
        With a Dask data frame: ``False`` returns the result uncomputed (its
        ``compute()`` gives the EvaluationResult). In-memory inputs are always
        computed.

    Returns
    -------
    result : EvaluationResult
        ``result.per_query[name]`` (one value per query of ``result.query_ids``)
        and ``result.mean[name]`` (also ``result[name]``).

    Notes
    -----
    Each metric is averaged over the evaluated queries :math:`Q`:

    .. math::

        \bar m = \frac{1}{|Q|} \sum_{q \in Q} m(q)

    Documents are ranked by score, descending; ``rank`` columns are ignored,
    as trec_eval ignores them. In the trec_eval setting the nDCG ideal is taken
    over every judged document of the query, and the nDCG@k ideal over the top
    min(k, R) of them; ``rbp`` and ``rbp_resid`` take trec_eval's persistence
    0.9 and graded gains. Counts (``num_rel``, ...) are summed over queries and
    ``gm_map`` is a geometric mean, as trec_eval prints them. Cost: O(n log n)
    in the number of run lines.

    Examples
    --------
    >>> import numpy as np
    >>> from sk_rankmetrics import TrecQrels, TrecRun, evaluate_run
    >>> qrels = TrecQrels(np.array(["q1", "q1", "q2"]), np.array(["a", "b", "c"]),
    ...                   np.array([1, 2, 1]))
    >>> run = TrecRun(np.array(["q1", "q1", "q1", "q2"]), np.array(["a", "b", "x", "y"]),
    ...               np.array([0.5, 0.9, 0.7, 1.0]))
    >>> res = evaluate_run(qrels, run, ["P_2", "map", "ndcg"], setting="trec_eval")
    >>> {name: round(v, 4) for name, v in res.mean.items()}
    {'P_2': 0.25, 'map': 0.4167, 'ndcg': 0.4751}
    """
    backend = backend_for(qrels, run)
    if backend is not None:
        return backend.evaluate_run(qrels, run, metrics, setting=setting, complete=complete,
                             threshold=threshold, gains=gains, max_docs=max_docs,
                             judged_only=judged_only, n_docs=n_docs,
                             no_relevant=no_relevant, qrels_format=qrels_format,
                             run_format=run_format, progress=progress, compute=compute)
    if getattr(qrels, "subtopic", None) is not None or by_family(metrics).diversity_only():
        return evaluate_diversity_run(
            qrels, as_run(run, run_format), metrics, setting=setting, complete=complete,
            threshold=threshold, max_docs=max_docs, judged_only=judged_only,
            no_relevant=no_relevant, progress=progress, from_columns=_preranked_from_columns)
    q, r = as_qrels(qrels, qrels_format), as_run(run, run_format)
    what = "user" if "user" in (getattr(q, "_unit", None), getattr(r, "_unit", None)) \
        else "query"
    if len(q) == 0:
        where = f" ({q.source})" if q.source else ""
        raise ValueError(f"the qrels{where} hold no judgement (an empty file, or only "
                         "comments and blank lines); they must judge at least one document.")
    if len(r) == 0 and not complete:
        where = f" ({r.source})" if getattr(r, "source", None) else ""
        raise ValueError(f"the run{where} ranks no document (an empty file, or only comments "
                         "and blank lines); it must rank at least one.")
    trec = setting == "trec_eval"
    if trec:
        q = trec_levels(q)
        if no_relevant is None:
            no_relevant = 0.0
    rel = q.relevance
    judged = None
    if rel.size and rel.min() < 0:
        # A negative level (TREC Web track: spam -2, junk -1) marks a document in
        # the pool but not judged, as trec_eval and ir_measures read it: never
        # relevant, worth nothing unless a gain names its level (trec_eval's own
        # gains for negative levels are refused in its setting: negative_gains).
        judged = rel >= 0
    requests = run_requests(metrics, trec, rel if judged is None else rel[judged],
                             threshold=threshold, gains=gains, max_docs=max_docs,
                             judged_only=judged_only, n_docs=n_docs)
    no_relevant = "warn" if no_relevant is None else no_relevant
    steps = _phase(progress, "matching")
    if q._columns is not None and r._columns is not None and len(r):
        inputs, perm = _preranked_from_columns(q, r, judged, complete=complete,
                                               max_docs=max_docs, trec=trec, steps=steps,
                                               what=what)
        if judged_only:
            inputs = inputs.judged_only()
        _phase(progress, "evaluating")
        return score_layout(inputs, requests, ignore_ties=trec, no_relevant=no_relevant,
                            progress=progress, order=perm)
    run_ids, lens, items, scores = group_long(r.qid, r.docno, r.score, order="score")
    if max_docs is not None:
        starts = np.cumsum(lens) - lens
        keep = np.arange(items.shape[0]) - np.repeat(starts, lens) < max_docs
        items, scores, lens = items[keep], scores[keep], np.minimum(lens, max_docs)
    inputs = build_preranked(RankedLists(run_ids, lens, items, scores),
                             Truth(q.qid, q.docno, rel, judged=judged),
                             queries="truth" if complete else "both", what=what)
    if judged_only:
        inputs = inputs.judged_only()
    _phase(progress, "evaluating")
    perm = np.argsort(inputs.query_ids, kind="stable")  # queries in sorted order, as trec_eval
    return score_layout(inputs, requests, ignore_ties=trec, no_relevant=no_relevant,
                        progress=progress, order=perm)


def trec_levels(q):
    """The qrels with levels as trec_eval reads them: truncated toward zero (``atol``).

    trec_eval reads the level column with C's ``atol``, so ``1.7`` is level 1 and
    ``0.5`` level 0 (not relevant). The first non-integer level is named in one
    warning (file and line when the qrels were read from a file, else its row).
    """
    rel = q.relevance
    frac = flatnonzero(rel != np.trunc(rel))
    if frac.size == 0:
        return q
    import copy
    import warnings

    row = int(frac[0])
    lines = getattr(q, "_lines", None)
    where = (f"qrels file {q.source!r}, line {lines.line(row)}" if lines is not None
             else f"qrels row {row}" + (f" of {q.source!r}" if q.source else ""))
    warnings.warn(
        f"{where}: relevance {rel[row]:g} is not an integer; the trec_eval setting reads "
        f"levels as trec_eval does, truncated toward zero ({rel[row]:g} -> "
        f"{np.trunc(rel[row]):g}), here and on {frac.size - 1} other line(s). The default "
        "setting keeps real-valued levels.", UserWarning, stacklevel=4)
    out = copy.copy(q)
    out.relevance = np.trunc(rel) + 0.0  # + 0.0: -0.0 becomes 0.0
    return out


def _phase(progress, label):
    """Tell a progress display that shows phases (the command line's bar, which
    has a ``phase`` method) that ``label`` starts; returns the callable for the
    phase's own steps, or None."""
    start = getattr(progress, "phase", None)
    if start is None:
        return None
    start(label)
    return progress


#: Steps of :func:`_preranked_from_columns` reported to a progress display.
_MATCH_STEPS = 4


def _preranked_from_columns(q, r, judged, *, complete, max_docs, trec, steps=None,
                            what="query"):
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
    # Groups: consecutive runs of lines of one query.
    new = np.ones(run_code.shape[0], dtype=bool)
    np.not_equal(run_code[1:], run_code[:-1], out=new[1:])
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
        order = _ranges(g_start[by_q], g_len[by_q])
    first = np.zeros(n_q, dtype=np.int64)  # first ordered line of each query
    np.cumsum(lens[:-1], out=first[1:])
    score_o = score if order is None else score[order]
    tied = score_o[1:] == score_o[:-1]
    tied[first[1:] - 1] = False
    ties = None
    if (trec or max_docs is not None) and tied.any():  # -M cuts in trec_eval's order
        ties = _docno_ties(order, tied, dq)
    del tied
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
    # Truth rows sorted by (row, docno code).
    row_of_t = np.full(truth_names.size, -1, dtype=np.int64)
    row_of_t[rows_t] = np.arange(n_rows)
    trow = row_of_t[truth_code]
    tkeep = trow >= 0
    trow, tcode, trel = trow[tkeep], doc_code[tkeep], q.relevance[tkeep]
    tjudged = None if judged is None else judged[tkeep]  # negative levels: pooled, unjudged
    t_order = sort_pairs(trow, tcode, n_rows)
    if t_order is not None:
        trow, tcode, trel = trow[t_order], tcode[t_order], trel[t_order]
        tjudged = None if tjudged is None else tjudged[t_order]
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


def _ranges(starts, lens):
    """Concatenated ``arange(s, s + n)`` for each (s, n)."""
    total = int(lens.sum())
    first = np.cumsum(lens) - lens
    return np.repeat(starts - first, lens) + np.arange(total)


def _docno_ties(order, tied, docno):
    """Each run of tied scores in docno descending order (byte order).

    ``tied[i]``: the lines at places ``i`` and ``i + 1`` of the ranked
    order (``order``, None for the file's order) have equal scores. Returns
    ``(places, lines)``: the places inside tie groups and the line each one
    then holds.
    """
    inside = np.zeros(tied.shape[0] + 1, dtype=bool)
    inside[:-1] = tied
    inside[1:] |= tied
    pos = flatnonzero(inside)  # every place inside a tie group
    start = np.ones(pos.shape[0], dtype=bool)
    start[1:] = ~tied[pos[1:] - 1]
    grp = np.cumsum(start)
    lines = pos if order is None else order[pos]
    rank = docno.lex_rank(lines)
    # Group first, then docno descending, as one integer key (both < n).
    n = rank.shape[0]
    return pos, lines[np.argsort(grp * (n + 1) + (n - rank), kind="stable")]


def relevance_strings(qrels, run, query_ids, length, *, max_docs=None, judged_only=False):
    """trec_eval's relstring: the relevance of each query's first documents.

    One character per document in trec_eval's order: the level (0-9, '>'
    above 9), '-' for a document the qrels do not name, '.' for one they
    name with a negative level (pooled, unjudged). Returns one string per
    query of ``query_ids`` (output formatting: strings per query).
    """
    q, r = as_qrels(qrels), as_run(run)
    qid, doc = np.asarray(r.qid).astype(str), np.asarray(r.docno).astype(str)
    run_ids, lens, items, _ = group_long(qid, doc, r.score, order="score")
    sep = "\x1f"
    keys_q = np.char.add(np.char.add(np.asarray(q.qid).astype(str), sep),
                         np.asarray(q.docno).astype(str))
    order = np.argsort(keys_q)
    keys_q, levels = keys_q[order], np.asarray(q.relevance)[order]
    keys_r = np.char.add(np.char.add(np.repeat(run_ids.astype(str), lens), sep),
                         items.astype(str))
    if keys_q.size:
        pos = np.minimum(np.searchsorted(keys_q, keys_r), keys_q.size - 1)
        found = keys_q[pos] == keys_r
        level = np.where(found, levels[pos], 0.0)
    else:
        found, level = np.zeros(keys_r.size, dtype=bool), np.zeros(keys_r.size)
    digits = np.char.mod("%d", np.trunc(np.clip(level, 0, 9)))
    chars = np.where(~found, "-", np.where(level < 0, ".", np.where(level > 9, ">", digits)))
    row = np.repeat(np.arange(lens.size), lens)
    keep = np.ones(keys_r.size, dtype=bool)
    if max_docs is not None:  # -M cuts first, -J removes after, as trec_eval
        keep &= np.arange(keys_r.size) - np.repeat(np.cumsum(lens) - lens, lens) < max_docs
    if judged_only:
        keep &= found & (level >= 0)
    # Rank of each kept document within its query.
    counts = np.bincount(row, weights=keep, minlength=lens.size).astype(np.int64)
    rank = np.cumsum(keep) - 1 - np.repeat(np.cumsum(counts) - counts, lens)
    keep &= rank < length
    row, kept = row[keep], chars[keep]
    cuts = flatnonzero(np.diff(row)) + 1
    firsts = row[np.concatenate(([0], cuts))] if row.size else np.zeros(0, dtype=np.int64)
    strings = {run_ids.astype(str)[i]: "".join(part)
               for i, part in zip(firsts.tolist(), np.split(kept, cuts))}
    return [strings.get(str(qq), "") for qq in np.asarray(query_ids).tolist()]
