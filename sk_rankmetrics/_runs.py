"""Scoring rankings given as files, ID lists and data frames.

Public entry points: :func:`evaluate_run` (TREC qrels and runs, with a
trec_eval-compatible setting), :func:`evaluate_ranked` (recommender ID lists)
and the data-frame converters :func:`qrels_from_frame` / :func:`run_from_frame`.
All of them build the pre-ranked layout of :mod:`._inputs` and hand it to the
same engine and kernels as the matrix functions.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from collections.abc import Set as AbstractSet
from itertools import chain, repeat

import numpy as np

from ._bytes import PAIR_STEP, pair_hashes
from ._engine import compute as engine_compute
from ._formats import read_qrels, read_run
from ._inputs import (
    PrerankedInputs,
    _check_overlap,
    _indptr,
    _sort_pairs,
    build_preranked,
    group_long,
    shown,
)
from ._match import factorize, factorize_runs
from ._reduce import reduce_results
from ._registry import (
    METRICS,
    Request,
    as_metric_list,
    parse_name,
    split_request,
    validate,
)
from ._trec import TrecQrels, TrecRun
from ._validation import InvalidParameterError, is_dask, short_repr, warn


class EvaluationResult:
    r"""Per-query values and means of several metrics.

    Parameters
    ----------
    query_ids : ndarray of shape (n_queries,)
        The evaluated queries (users): sorted for runs; in the order of the
        ranked lists for ID lists (users with truth only, then, at the end).
    per_query : dict of str -> ndarray of shape (n_queries,)
        Each metric's value per query (NaN where ``no_relevant="skip"``
        dropped the query).
    mean : dict of str -> float
        Each metric's mean over the queries that count.

    Notes
    -----
    The mean of metric :math:`m` is :math:`\frac{1}{|Q|}\sum_{q \in Q} m(q)`
    over the queries :math:`Q` that are not skipped.

    Examples
    --------
    >>> from sk_rankmetrics import evaluate_ranked
    >>> res = evaluate_ranked({"u1": ["a", "b"], "u2": ["c", "a"]},
    ...                       {"u1": {"b"}, "u2": {"c"}}, ["mrr"])
    >>> res["mrr"], res.per_query["mrr"].tolist()
    (0.75, [0.5, 1.0])
    """

    def __init__(self, query_ids, per_query, mean):
        self.query_ids = query_ids
        self.per_query = per_query
        self.mean = mean

    @property
    def metrics(self):
        """Metric labels, in the order asked for."""
        return list(self.mean)

    def __getitem__(self, name):
        return self.mean[name]

    def __repr__(self):
        vals = ", ".join(f"{k}={v:.4f}" for k, v in self.mean.items())
        return f"EvaluationResult({len(self.query_ids)} queries: {vals})"

    def to_frame(self):
        """Per-query values as a pandas DataFrame (one row per query).

        Returns
        -------
        frame : pandas.DataFrame
            Indexed by query id, one column per metric.

        Examples
        --------
        >>> from sk_rankmetrics import evaluate_ranked
        >>> res = evaluate_ranked([["a", "b"]], [{"b"}], ["mrr"])
        >>> res.to_frame()
               mrr
        query
        0      0.5
        """
        import pandas as pd

        return pd.DataFrame(self.per_query, index=pd.Index(self.query_ids, name="query"))


def _finish(inputs, requests, *, ignore_ties, no_relevant, progress):
    raw = engine_compute(inputs, requests, ignore_ties=ignore_ties, progress=progress)
    per_query, mean = reduce_results(raw, requests, no_relevant, None)
    return EvaluationResult(inputs.query_ids, per_query, mean)


def _with_options(metrics, k, *, where, fixed=None, given=None, trec=False):
    """Requests for metric names, each with the common options it reads.

    ``given`` maps an option to ``(argument, value, resolved)``: the user's
    argument name and value (``None`` or ``False``: not given) and the option
    value it becomes. Whether a metric reads an argument is asked of one rule,
    :func:`._trec_eval.reads_option` (trec_eval's table in the trec_eval
    setting, ``trec``): the argument reaches exactly the metrics that read it,
    and an argument that no requested metric reads raises, since it would be
    silently ignored. ``max_docs`` and ``judged_only`` are checked only: they
    act on the ranking before any metric. ``fixed`` are options the setting
    imposes on every metric that reads them.
    """
    from ._trec_eval import reads_option

    items = []
    for item in as_metric_list(metrics):
        if isinstance(item, tuple) and len(item) == 3:  # from _trec_syntax
            label, opts, name = item
        else:
            label, opts = split_request(item)
            name = label
        spec, kk, preset = parse_name(name)
        if k is not None and kk is None and spec.takes_k:
            kk = k
        items.append((label, spec, kk, preset, opts))
    common = dict(fixed or {})
    reads = {}
    for option, (arg, value, resolved) in (given or {}).items():
        if value is None or value is False:
            continue
        if option == "gain":  # not one of trec_eval's global options
            reads[option] = {label for label, spec, *_ in items if option in spec.options}
        else:
            reads[option] = {label for label, spec, *_ in items
                             if reads_option(spec, option, trec)}
        if not reads[option]:
            readers = sorted({s.name for s in METRICS.values()
                              if (reads_option(s, option, trec) if option != "gain"
                                  else option in s.options)})
            raise InvalidParameterError(
                f"{where}: {arg}={short_repr(value)} is read by none of the requested "
                f"metrics ({', '.join(label for label, *_ in items)}); it applies to "
                f"{', '.join(readers)}."
            )
        if option not in ("max_docs", "judged_only"):
            common[option] = resolved
    requests = []
    for label, spec, kk, preset, opts in items:
        extra = {o: v for o, v in common.items() if o in spec.options and o not in preset
                 and (o not in reads or label in reads[o])}
        requests.append(Request(spec, kk, {**extra, **opts}, label, preset=preset,
                                where=where))
    labels = [r.label for r in requests]
    if len(set(labels)) != len(labels):
        raise InvalidParameterError(f"{where}: metrics names a metric twice: {labels}.")
    return requests


def _as_qrels(qrels, fmt="auto"):
    if isinstance(qrels, TrecQrels):
        return qrels
    if isinstance(qrels, (str, os.PathLike)):
        return read_qrels(qrels, format=fmt)
    if hasattr(qrels, "columns"):
        return qrels_from_frame(qrels)
    raise InvalidParameterError("qrels must be a TrecQrels, a path to a qrels file or a data "
                                f"frame, got {type(qrels).__name__}.")


def _as_run(run, fmt="auto"):
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
    (:func:`._trec_eval.metric_requests`, gains completed over ``levels``);
    other names pass through. ``runid`` and ``relstring`` (text) are left out of
    the sets and refused by name."""
    from ._trec_eval import MEASURES, SETS, TEXT_MEASURES, metric_requests, parse_measures

    out = []
    for item in as_metric_list(metrics):
        name = item if isinstance(item, str) else None
        head = name.partition(".")[0] if name else None
        if name and (name in SETS or ("." in name and head in MEASURES)
                     or name in TEXT_MEASURES):
            try:
                chosen = parse_measures([name])
                out += metric_requests(chosen, levels,
                                       text="skip" if name in SETS else "raise")
            except ValueError as exc:
                raise InvalidParameterError(f"evaluate_run: {exc}") from None
        else:
            out.append(item)
    return out


def _run_requests(metrics, trec, levels, *, threshold, gains, max_docs, judged_only, n_docs):
    """evaluate_run's requests: each global argument reaches the metrics that
    read it (:func:`._trec_eval.reads_option`), and one read by none raises."""
    return _with_options(
        _trec_syntax(metrics, levels), None, where="evaluate_run",
        given={"threshold": ("threshold", threshold, threshold),
               "gain": ("gains", gains, _trec_gain(levels, gains)),
               "max_docs": ("max_docs", max_docs, max_docs),
               "judged_only": ("judged_only", judged_only, judged_only),
               "n_docs": ("n_docs", n_docs, n_docs)},
        fixed=_TREC_FIXED if trec else None, trec=trec,
    )


def _trec_gain(levels, gains):
    """A gain mapping over every level: the given gains, others their level."""
    if gains is None:
        return None
    from ._trec_eval import complete_gains

    try:
        return complete_gains(levels, gains)
    except (TypeError, ValueError, AttributeError):
        raise InvalidParameterError("gains must map numeric relevance levels to numeric "
                                    f"gains, got {short_repr(gains)}.") from None


@validate
def evaluate_run(qrels, run, metrics, *, setting="sk_rankmetrics", complete=False,
                 threshold=None, gains=None, max_docs=None, judged_only=False,
                 n_docs=None, no_relevant=None, qrels_format="auto", run_format="auto",
                 progress=None, compute=True):
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
        ``"P(rel=2)@5"``, ``"RBP(p=0.8)"``), which keep ir_measures' meaning
        under both settings.
    setting : {"sk_rankmetrics", "trec_eval"}, default="sk_rankmetrics"
        ``"sk_rankmetrics"``: this package's defaults (tied scores averaged
        over their orderings; AP@k divided by min(k, R)). ``"trec_eval"``
        reproduces trec_eval: ties broken by docno descending, AP and AP@k
        divided by all relevant documents R, negative qrels levels count as
        non-relevant with gain 0, queries without relevant documents score 0,
        levels truncated toward zero as trec_eval reads them (``1.7`` is 1;
        one warning names the first non-integer level).
    complete : bool, default=False
        Count queries that are in the qrels but not in the run, with score 0
        (trec_eval ``-c``). By default they are left out with a warning that
        gives their count (the policy of :func:`evaluate_ranked` too).
        Queries of the run without qrels are always left out.
    threshold : float, optional
        Lowest relevance level that counts as relevant for the binary metrics
        (trec_eval ``-l``; default: levels > 0).
    gains : dict, optional
        Gain of each relevance level for nDCG/DCG (trec_eval
        ``-m ndcg.1=3,2=9``); levels not given keep their level as gain.
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
    if is_dask(qrels, run):
        from ._dask import evaluate_run as evaluate_dask

        return evaluate_dask(qrels, run, metrics, setting=setting, complete=complete,
                             threshold=threshold, gains=gains, max_docs=max_docs,
                             judged_only=judged_only, n_docs=n_docs,
                             no_relevant=no_relevant, qrels_format=qrels_format,
                             run_format=run_format, progress=progress, compute=compute)
    q, r = _as_qrels(qrels, qrels_format), _as_run(run, run_format)
    what = "user" if "user" in (getattr(q, "_unit", None), getattr(r, "_unit", None)) \
        else "query"
    if len(q) == 0:
        where = f" ({q.source})" if q.source else ""
        raise ValueError(f"the qrels{where} hold no judgement (an empty file, or only "
                         "comments and blank lines); they must judge at least one document.")
    if len(r) == 0 and not complete:
        raise ValueError("the run is empty; it must rank at least one document.")
    trec = setting == "trec_eval"
    if trec:
        q = _trec_levels(q)
    rel = q.relevance
    judged = None
    if trec:
        # trec_eval: a negative level marks a pooled but unjudged document,
        # never relevant and worth nothing, whatever -l or the gains say.
        judged = rel >= 0
        if no_relevant is None:
            no_relevant = 0.0
    requests = _run_requests(metrics, trec, rel if judged is None else rel[judged],
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
        raw = engine_compute(inputs, requests, ignore_ties=trec, progress=progress)
        per_query, mean = reduce_results(raw, requests, no_relevant, None)
        return EvaluationResult(inputs.query_ids[perm],
                                {k: v[perm] for k, v in per_query.items()}, mean)
    run_ids, lens, items, scores = group_long(r.qid, r.docno, r.score, order="score")
    if max_docs is not None:
        starts = np.cumsum(lens) - lens
        keep = np.arange(items.shape[0]) - np.repeat(starts, lens) < max_docs
        items, scores, lens = items[keep], scores[keep], np.minimum(lens, max_docs)
    inputs = build_preranked(run_ids, lens, items, q.qid, q.docno, rel, rec_score=scores,
                             queries="truth" if complete else "both", truth_judged=judged,
                             what=what)
    if judged_only:
        inputs = inputs.judged_only()
    _phase(progress, "evaluating")
    res = _finish(inputs, requests, ignore_ties=trec, no_relevant=no_relevant,
                  progress=progress)
    perm = np.argsort(res.query_ids, kind="stable")  # queries in sorted order, as trec_eval
    return EvaluationResult(res.query_ids[perm], {k: v[perm] for k, v in res.per_query.items()},
                            res.mean)


def _trec_levels(q):
    """The qrels with levels as trec_eval reads them: truncated toward zero (``atol``).

    trec_eval reads the level column with C's ``atol``, so ``1.7`` is level 1 and
    ``0.5`` level 0 (not relevant). The first non-integer level is named in one
    warning (file and line when the qrels were read from a file, else its row).
    """
    rel = q.relevance
    frac = np.flatnonzero(rel != np.trunc(rel))
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
    run_code, run_reps = factorize_runs(rq)  # a code per run of lines, in byte order
    truth_code, truth_reps = factorize(tq)  # a code per qrels line
    run_names = rq.heads.to_strings(run_reps)
    truth_names = tq.to_strings(truth_reps)
    _check_overlap(run_names, truth_names, "truth" if complete else "both", what)
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
    gi = np.flatnonzero(new)
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
        sel = np.flatnonzero(keep) if order is None else order[keep]
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
    t_order = _sort_pairs(trow, tcode, n_rows)
    if t_order is not None:
        trow, tcode, trel = trow[t_order], tcode[t_order], trel[t_order]
        tjudged = None if tjudged is None else tjudged[t_order]
    if trel.size and not (items >= 0).any():
        warn(
            "no ranked item appears in the truth: every query scores as if nothing "
            "relevant was ranked. Check that both use the same document ids.", UserWarning,
        )
    inputs = PrerankedInputs(names, indptr, items, _indptr(trow, n_rows), tcode,
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
        hit = np.flatnonzero(table[(h >> shift).view(np.int64)])
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
        for i in np.flatnonzero(~ok).tolist():
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
    pos = np.flatnonzero(inside)  # every place inside a tie group
    start = np.ones(pos.shape[0], dtype=bool)
    start[1:] = ~tied[pos[1:] - 1]
    grp = np.cumsum(start)
    lines = pos if order is None else order[pos]
    rank = docno.lex_rank(lines)
    # Group first, then docno descending, as one integer key (both < n).
    n = rank.shape[0]
    return pos, lines[np.argsort(grp * (n + 1) + (n - rank), kind="stable")]


def _flatten_lists(lists, n, arg, *, ranked=False, users=None):
    """Flatten ``n`` sequences into (lengths, flat ids) without a loop per entry.

    ``ranked``: the sequences are rankings, so an unordered container (a set,
    a frozenset, a dict's keys) is refused; ``users`` names them in the message.
    """
    try:
        lens = np.fromiter(map(len, lists), dtype=np.int64, count=n)
    except TypeError:
        raise InvalidParameterError(f"{arg} must hold one sequence of item ids per user.") from None
    if ranked:
        unordered = np.fromiter(map(isinstance, lists, repeat(AbstractSet)), dtype=bool,
                                count=n)
        if unordered.any():
            i = int(np.argmax(unordered))
            who = (f"user {shown(users[i])!r}" if users is not None else f"row {i}")
            raise InvalidParameterError(
                f"{arg} gives a {type(lists[i]).__name__} for {who}: a ranked list must be "
                "ordered, best first (a list, tuple or array); a set has no order (its "
                "iteration order changes with the hash seed). Pass list(...) of the ids in "
                "ranked order."
            )
    if any(map(isinstance, lists, repeat((str, bytes)))):
        raise InvalidParameterError(f"{arg} must hold one sequence of item ids per user, got a "
                                    "string for some user; wrap a single id in a list: ['id'].")
    total = int(lens.sum())
    if total == 0:
        return lens, np.zeros(0, dtype=np.int64)
    # Integer ids go straight into an int64 array; a float among them (which
    # the int64 conversion would truncate: 2.5 -> 2) takes the general path.
    types = set(map(type, chain.from_iterable(lists)))
    if all(issubclass(t, (int, np.integer)) and not issubclass(t, bool) for t in types):
        try:
            flat = np.fromiter(chain.from_iterable(lists), dtype=np.int64, count=total)
            return lens, flat
        except (TypeError, ValueError, OverflowError):
            pass
    return lens, np.array(list(chain.from_iterable(lists)))


def _recommended(recommended, users, fmt="auto"):
    if isinstance(recommended, (str, os.PathLike)):  # a run file, read as evaluate_run does
        r = read_run(recommended, format=fmt)
        ids, lens, flat, _ = group_long(r.qid, r.docno, r.score, order="score")
        return ids, lens, flat
    if isinstance(recommended, Mapping):
        ids = np.array(list(recommended.keys()))
        lens, flat = _flatten_lists(list(recommended.values()), len(recommended),
                                    "recommended", ranked=True, users=ids)
        return ids, lens, flat
    arr = recommended
    if hasattr(arr, "to_numpy"):
        arr = arr.to_numpy()
    if isinstance(arr, np.ndarray) and arr.ndim == 2:
        n, w = arr.shape
        lens, flat = np.full(n, w, dtype=np.int64), arr.reshape(-1)
    elif isinstance(arr, (list, tuple, np.ndarray)):
        n = len(arr)
        lens, flat = _flatten_lists(arr, n, "recommended", ranked=True, users=users)
    else:
        raise InvalidParameterError("recommended must be a dict {user: ranked ids}, a 2-D array "
                                    "of ids (one row per user) or a list of id lists, got "
                                    f"{type(recommended).__name__}.")
    ids = np.arange(n) if users is None else np.asarray(users)
    if ids.shape != (n,):
        raise ValueError(f"users must give one id per row of recommended ({n}), got "
                         f"shape {ids.shape}.")
    return ids, lens, flat


def _truth(truth, users, fmt="auto"):
    """Truth -> (user ids, item ids, relevance) parallel arrays, and the ids of
    every user the truth names (None when that is the users of the arrays)."""
    if isinstance(truth, (str, os.PathLike)):  # a qrels file, read as evaluate_run does
        q = read_qrels(truth, format=fmt)
        truth = (q.qid, q.docno, q.relevance)
    if isinstance(truth, tuple):
        if len(truth) not in (2, 3):
            raise ValueError("truth as a tuple must be (user_ids, item_ids) or (user_ids, "
                             f"item_ids, relevance), got {len(truth)} arrays.")
        u, i = truth[0], truth[1]
        rel = np.ones(len(u)) if len(truth) == 2 else truth[2]
        return u, i, rel, None
    if isinstance(truth, Mapping):
        keys = np.array(list(truth.keys()))
        vals = list(truth.values())
    elif isinstance(truth, (list, np.ndarray)):
        keys = np.arange(len(truth)) if users is None else np.asarray(users)
        if keys.shape[0] != len(truth):
            raise ValueError(f"truth as a list must give one entry per user ({keys.shape[0]}),"
                             f" got {len(truth)}.")
        vals = list(truth)
    else:
        raise InvalidParameterError("truth must be a dict {user: relevant ids} or {user: {id: "
                                    "relevance}}, a list aligned with recommended, or a tuple of "
                                    "parallel arrays (user_ids, item_ids[, relevance]); got "
                                    f"{type(truth).__name__}.")
    graded = np.fromiter(map(isinstance, vals, repeat(Mapping)), dtype=bool, count=len(vals))
    if graded.any() and not graded.all():
        raise InvalidParameterError("truth mixes {id: relevance} mappings and plain id "
                                    "collections; use one form for every user.")
    lens, items = _flatten_lists(vals, len(vals), "truth")
    if graded.all() and len(vals):
        try:
            rel = np.fromiter(chain.from_iterable(map(Mapping.values, vals)), dtype=float,
                              count=int(lens.sum()))
        except (TypeError, ValueError):
            raise InvalidParameterError("truth as {user: {id: relevance}} must give numeric "
                            "relevance levels.") from None
    else:
        rel = np.ones(items.shape[0])
    return np.repeat(keys, lens), items, rel, keys


@validate
def evaluate_ranked(recommended, truth, metrics, *, k=None, users=None, complete=False,
                    threshold=None, no_relevant="warn", run_format="auto",
                    qrels_format="auto", progress=None, compute=True):
    r"""Score ranked ID lists (recommendations) against ground-truth ids.

    Parameters
    ----------
    recommended : dict, 2-D array, list, dask.bag.Bag or dask.dataframe.DataFrame
        Ranked item ids per user, best first: ``{user: [id, ...]}``, a 2-D
        array of shape (n_users, n_recs) (the fast path for many users) or a
        list of id lists. Lists may have different lengths. With Dask: a bag
        of ``(user, [id, ...])`` pairs, or a data frame with user, item and
        ``rank`` columns (1 = best).
    truth : dict, list, tuple, dask.bag.Bag or dask.dataframe.DataFrame
        Relevant ids per user: ``{user: {id, ...}}`` (binary relevance) or
        ``{user: {id: relevance}}`` (graded); a list aligned with
        ``recommended``; or a tuple of parallel arrays ``(user_ids, item_ids)``
        or ``(user_ids, item_ids, relevance)``. With Dask: a bag of
        ``(user, ids)`` pairs, or a data frame with user, item (and
        relevance) columns.
    metrics : str or list of str
        Names such as ``"ndcg@100"``, ``"map@10"``, ``"recall@50"``, ``"mrr"``.
    k : int, optional
        Cut-off added to every name that has none (``"ndcg"`` -> ``"ndcg@k"``).
    users : array-like, optional
        User ids of the rows when ``recommended`` is an array or a list
        (default ``0..n-1``).
    complete : bool, default=False
        Also score users that have truth but no recommendations, as 0 (the
        convention of recommender libraries such as RecBole, Microsoft
        Recommenders and Elliot, which score every test user). By default
        such users are left out with a warning that gives their count and
        this option, as :func:`evaluate_run` does (trec_eval without ``-c``).
    threshold : float, optional
        Lowest relevance that counts as relevant (default: > 0).
    no_relevant : "warn", "skip" or float, default="warn"
        Policy for users without a relevant item.
    run_format, qrels_format : str, default="auto"
        ``"auto"``, ``"trec"``, ``"csv"``, ``"tsv"``, ``"parquet"`` or
        ``"json"``. ``recommended`` may be the path of a run file (each query's documents
        ranked by score, ties by document id descending) and ``truth`` the
        path of a qrels file; they are read as :func:`evaluate_run` and the
        command line read them (:func:`read_run`, :func:`read_qrels`), in the
        format given here, else by extension, then content.
    progress : callable, optional
        Called as ``progress(done, total)`` after each block of users (not
        with Dask inputs).
    compute : bool, default=True
        With Dask inputs: ``False`` returns the result uncomputed (its
        ``compute()`` gives the EvaluationResult).

    Returns
    -------
    result : EvaluationResult
        Per-user values (``result.per_query``, users in the order of
        ``recommended`` in ``result.query_ids``; in sorted order with Dask
        inputs) and means (``result.mean``).

    Notes
    -----
    For example nDCG@k of a user with ranked items :math:`i_1, i_2, \dots`:

    .. math::

        \mathrm{nDCG@k} = \frac{\sum_{p=1}^{k} g(i_p) / \log_2(p + 1)}
        {\sum_{p=1}^{\min(k, R)} g^*_p / \log_2(p + 1)}

    where :math:`g^*` are the truth's gains sorted in decreasing order.
    The ideal ranking is built from the truth, not from the recommended
    items: the ideal DCG@k of a user with R relevant ids sums the top min(k, R)
    ideal gains, whether or not they were recommended. Items not in the truth
    have relevance 0. An item recommended twice to one user raises, judged or not.
    The relevance of each recommended id is found with vectorised sorted
    look-ups over blocks of users: time O(n_users * n_recs * log), memory
    bounded by the block size.

    Examples
    --------
    >>> from sk_rankmetrics import evaluate_ranked
    >>> rec = {"u1": ["a", "b", "c"], "u2": ["d", "e", "f"]}
    >>> truth = {"u1": {"a": 1, "c": 1}, "u2": {"f": 2, "x": 1}}
    >>> res = evaluate_ranked(rec, truth, ["ndcg", "recall", "mrr"], k=3)
    >>> {name: round(v, 4) for name, v in res.mean.items()}
    {'ndcg': 0.6499, 'recall': 0.75, 'mrr': 0.6667}
    """
    if is_dask(recommended, truth):
        from ._dask import evaluate_ranked as evaluate_dask

        return evaluate_dask(recommended, truth, metrics, k=k, users=users,
                             complete=complete, threshold=threshold,
                             no_relevant=no_relevant, progress=progress, compute=compute,
                             run_format=run_format, qrels_format=qrels_format)
    ids, lens, flat = _recommended(recommended, users, run_format)
    tu, ti, trel, known = _truth(truth, users, qrels_format)
    requests = _with_options(metrics, k, where="evaluate_ranked",
                             given={"threshold": ("threshold", threshold, threshold)})
    inputs = build_preranked(ids, lens, flat, tu, ti, trel,
                             queries="truth" if complete else "run", what="user",
                             truth_queries=known)
    return _finish(inputs, requests, ignore_ties=True, no_relevant=no_relevant,
                   progress=progress)


def _columns(df, roles, where):
    """The columns of a data frame (pandas or polars) for each role, as arrays.

    ``roles`` maps a role (``"query"``, ...) to ``(argument, given name,
    candidate names)``. A role without a given name takes the one candidate
    the frame has: none, or several (``qid`` and ``query``, say), is an
    error naming them. Two roles may not share a column, and a column may
    not hold a missing value (None, NaN, pandas' NA, polars' null).
    """
    have = [str(c) for c in df.columns]
    chosen = {}
    for role, (arg, given, names) in roles.items():
        if given is not None:
            if given not in have:
                raise ValueError(f"{where}: the data frame has no column {given!r} for the "
                                 f"{role} ({arg}={given!r}); its columns are {have}.")
            chosen[role] = given
            continue
        found = [c for c in names if c in have]
        if not found:
            raise ValueError(f"{where}: cannot find the {role} column: looked for "
                             f"{list(names)}, the data frame has {have}; name it with "
                             f"{arg}=....")
        if len(found) > 1:
            raise ValueError(f"{where}: the data frame has {len(found)} columns that could "
                             f"hold the {role}: {found}; name the one to use with "
                             f"{arg}={found[0]!r} (or drop the others).")
        chosen[role] = found[0]
    names = list(chosen.values())
    for name in set(names):
        if names.count(name) > 1:
            roles_of = [r for r, c in chosen.items() if c == name]
            raise ValueError(f"{where}: column {name!r} is chosen for both the "
                             f"{' and the '.join(roles_of)}; each needs a column of its own.")
    out = {}
    for role, name in chosen.items():
        col = df[name]
        missing = _first_missing(col)
        if missing is not None:
            raise ValueError(f"{where}: the {role} column {name!r} has a missing value "
                             f"(row {missing}); every row needs one.")
        out[role] = np.asarray(col.to_numpy())
    return out


def _first_missing(col):
    """Position of the first missing value of a pandas or polars column, or None."""
    if hasattr(col, "null_count"):  # polars
        if col.null_count() == 0 and not (col.dtype.is_float() and col.is_nan().any()):
            return None
        mask = col.is_null()
        if col.dtype.is_float():
            mask = mask | col.is_nan().fill_null(True)
        return int(np.flatnonzero(mask.to_numpy())[0])
    if hasattr(col, "isna"):  # pandas
        mask = np.asarray(col.isna())
        return int(np.flatnonzero(mask)[0]) if mask.any() else None
    return None


_QUERY_COLS = ("query", "qid", "query_id", "user", "user_id", "topic")
_ITEM_COLS = ("item", "docno", "doc_id", "docid", "item_id", "document", "doc")
_REL_COLS = ("relevance", "rel", "label", "grade", "y_true")
_SCORE_COLS = ("score", "sim", "y_score", "prediction")


def _numbers(values, role):
    arr = np.asarray(values)
    try:
        out = arr.astype(np.float64)
    except (TypeError, ValueError):
        raise InvalidParameterError(f"the {role} column must hold numbers, got values such "
                                    f"as {short_repr(arr[:3].tolist())}.") from None
    if arr.dtype.kind in "USO":
        # Python reads "1_000" as 1000, C's atof (trec_eval) as 1: refuse it.
        text = arr.astype(str)
        bad = np.char.find(text, "_") >= 0
        if bad.any():
            raise InvalidParameterError(
                f"the {role} column holds {str(text[bad][0])!r}, not a number in C's syntax "
                "(as trec_eval reads numbers: 3, -0.25, 1.5e-3; no '_')."
            )
    return out


def qrels_from_frame(df, *, query=None, item=None, relevance=None):
    r"""Judgements from a long-format data frame (query, item, relevance).

    Parameters
    ----------
    df : pandas.DataFrame or polars.DataFrame
        One row per judged (query, item) pair.
    query, item, relevance : str, optional
        Column names. By default each is the one column of the frame named
        like it: ``query``, ``qid``, ``query_id``, ``user``, ``user_id`` or
        ``topic``; ``item``, ``docno``, ``doc_id``, ``docid``, ``item_id``,
        ``document`` or ``doc``; ``relevance``, ``rel``, ``label``, ``grade``
        or ``y_true``. A frame with two of them for one role (``qid`` and
        ``query``) must name the one to use.

    Returns
    -------
    qrels : TrecQrels
        The judgements, ready for :func:`evaluate_run`.

    Raises
    ------
    ValueError
        A role with no column or with several candidate columns, one column
        for two roles, or a missing value (None, NaN, null).

    Notes
    -----
    Row :math:`i` sets :math:`\mathrm{rel}(q_i, d_i)`; ids keep their dtype.
    pandas and polars frames are read the same way (neither is required by
    the package).

    Examples
    --------
    >>> import pandas as pd
    >>> from sk_rankmetrics import qrels_from_frame
    >>> df = pd.DataFrame({"qid": [1, 1], "docno": ["a", "b"], "rel": [2, 0]})
    >>> qrels_from_frame(df)
    TrecQrels(2 judgements, 1 queries)
    >>> both = df.assign(query=["x", "x"])
    >>> qrels_from_frame(both, query="qid").qid.tolist()
    [1, 1]
    """
    cols = _columns(df, {"query": ("query", query, _QUERY_COLS),
                         "item": ("item", item, _ITEM_COLS),
                         "relevance": ("relevance", relevance, _REL_COLS)},
                    "qrels_from_frame")
    qrels = TrecQrels(cols["query"], cols["item"], _numbers(cols["relevance"], "relevance"),
                      source="data frame")
    qrels._unit = _unit_of(df, query)
    return qrels


def run_from_frame(df, *, query=None, item=None, score=None, tag="run"):
    """A run from a long-format data frame (query, item, score).

    Parameters
    ----------
    df : pandas.DataFrame or polars.DataFrame
        One row per ranked (query, item) pair.
    query, item, score : str, optional
        Column names. By default each is the one column of the frame named
        like it: as in :func:`qrels_from_frame` for the query and the item;
        ``score``, ``sim``, ``y_score`` or ``prediction`` for the score. A
        frame with two of them for one role must name the one to use.
    tag : str, default="run"
        Run tag.

    Returns
    -------
    run : TrecRun
        The ranking, ready for :func:`evaluate_run`.

    Raises
    ------
    ValueError
        A role with no column or with several candidate columns, one column
        for two roles, or a missing value (None, NaN, null).

    Notes
    -----
    Row :math:`i` gives the score :math:`s(q_i, d_i)`; ids keep their dtype.

    Examples
    --------
    >>> import pandas as pd
    >>> from sk_rankmetrics import run_from_frame
    >>> df = pd.DataFrame({"qid": [1, 1], "docno": ["a", "b"], "score": [0.3, 0.9]})
    >>> run_from_frame(df, tag="bm25")
    TrecRun(2 documents, 1 queries, tag='bm25')
    """
    cols = _columns(df, {"query": ("query", query, _QUERY_COLS),
                         "item": ("item", item, _ITEM_COLS),
                         "score": ("score", score, _SCORE_COLS)}, "run_from_frame")
    run = TrecRun(cols["query"], cols["item"], _numbers(cols["score"], "score"), tag=tag,
                  source="data frame")
    run._unit = _unit_of(df, query)
    return run


def _unit_of(df, query):
    """"user" when the frame's query column is a user column, else "query"."""
    name = query if query is not None else next(
        (c for c in _QUERY_COLS if c in [str(c) for c in df.columns]), "")
    return "user" if str(name).lower().startswith("user") else "query"


def relevance_strings(qrels, run, query_ids, length, *, max_docs=None, judged_only=False):
    """trec_eval's relstring: the relevance of each query's first documents.

    One character per document in trec_eval's order: the level (0-9, '>'
    above 9), '-' for a document the qrels do not name, '.' for one they
    name with a negative level (pooled, unjudged). Returns one string per
    query of ``query_ids`` (output formatting: strings per query).
    """
    q, r = _as_qrels(qrels), _as_run(run)
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
    cuts = np.flatnonzero(np.diff(row)) + 1
    firsts = row[np.concatenate(([0], cuts))] if row.size else np.zeros(0, dtype=np.int64)
    strings = {run_ids.astype(str)[i]: "".join(part)
               for i, part in zip(firsts.tolist(), np.split(kept, cuts))}
    return [strings.get(str(qq), "") for qq in np.asarray(query_ids).tolist()]
