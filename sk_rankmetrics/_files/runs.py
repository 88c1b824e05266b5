"""evaluate_run: TREC runs against qrels, and the trec_eval setting."""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping, Sequence

import numpy as np

from .._evaluation.pipeline import score_layout
from .._evaluation.result import EvaluationResult
from .._inputs.preranked import (
    RankedLists,
    Truth,
    build_preranked,
    group_long,
)
from .._metrics.names import by_family
from .._metrics.requests import as_metric_list, make_requests
from .._utils.backends import backend_for
from .._utils.errors import InvalidParameterError, short_repr, warn
from .._utils.nonzero import flatnonzero
from .._utils.params import validate
from .._utils.types import (
    DaskFrame,
    Duplicates,
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
from .matching import match_columns
from .pairs import as_pairs_input, distinct_pairs, ranked_run, refuse_on_lazy
from .trec import TrecQrels, TrecRun


def _as_trec(value, arg, cls, read, from_frame, fmt, accepted):
    """``value`` as a ``cls`` (a TrecQrels or a TrecRun): itself, read from a
    file, or built from a data frame, dicts of dicts or named tuples."""
    value = as_pairs_input(value, arg)  # dicts of dicts, named tuples
    if isinstance(value, cls):
        return value
    if isinstance(value, (str, os.PathLike)):
        return read(value, format=fmt)
    if hasattr(value, "columns"):
        return from_frame(value)
    raise InvalidParameterError(f"{arg} must be {accepted}, got {type(value).__name__}.")


def as_qrels(qrels, fmt="auto"):
    return _as_trec(qrels, "qrels", TrecQrels, read_qrels, qrels_from_frame, fmt,
                    "a TrecQrels, a path to a qrels file, a data frame, a dict {qid: {docid: "
                    "relevance}} or named tuples (query_id, doc_id, relevance)")


def as_run(run, fmt="auto"):
    return _as_trec(run, "run", TrecRun, read_run, run_from_frame, fmt,
                    "a TrecRun, a path to a run file, a data frame, a dict {qid: {docid: "
                    "score}} or named tuples (query_id, doc_id, score)")


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
def evaluate_run(qrels: TrecQrels | PathLike | Frame | DaskFrame | Mapping | Iterable,
                 run: TrecRun | PathLike | Frame | DaskFrame | Mapping | Iterable,
                 metrics: str | Sequence[str], *,
                 setting: Setting = "sk_rankmetrics", complete: bool = False,
                 threshold: float | None = None, gains: Mapping[int, float] | None = None,
                 max_docs: int | None = None, judged_only: bool = False, n_docs: int | None = None,
                 no_relevant: NoRelevant | None = None, qrels_format: FileFormat = "auto",
                 run_format: FileFormat = "auto", progress: Progress | None = None,
                 compute: bool = True, ignore_identical_ids: bool = False,
                 duplicates: Duplicates = "raise") -> EvaluationResult | Lazy:
    r"""Score a TREC run against qrels, per query and on average.

    Parameters
    ----------
    qrels : TrecQrels, path, pandas.DataFrame, dask.dataframe.DataFrame, dict or iterable
        Judgements (a path is read with :func:`read_qrels`, as the command
        line reads it: by ``qrels_format``, its extension or its content; a
        data frame with :func:`qrels_from_frame`; a Dask data frame needs the
        column names that function looks for by default); or, as benchmark
        code holds them, ``{qid: {docid: relevance}}`` (pytrec_eval's and
        ranx's form) or named tuples with the fields ``query_id``, ``doc_id``,
        ``relevance`` (ir_datasets' ``qrels_iter()``). Ids of dicts and
        tuples are str or int, an int read as its decimal text (``7`` and
        ``"7"`` are one id); an empty inner dict is a query without judgements.
    run : TrecRun, path, pandas.DataFrame, dask.dataframe.DataFrame, dict or iterable
        The ranking to score (a path is read with :func:`read_run`; a data
        frame with :func:`run_from_frame`; the same for Dask); or
        ``{qid: {docid: score}}`` or named tuples with the fields
        ``query_id``, ``doc_id``, ``score`` (ir_datasets' ``scoreddocs_iter()``),
        ids as for the qrels; an empty inner dict is a query without documents.
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
    ignore_identical_ids : bool, default=False
        Drop every retrieved document whose id is the query's own id, as BEIR
        and MTEB do (ArguAna, Quora); the qrels are not changed. Ids are
        compared as text. A warning gives the count dropped.
    duplicates : {"raise", "first"}, default="raise"
        A document ranked twice for one query: ``"raise"`` refuses it (naming
        the line or entry); ``"first"`` keeps its first occurrence in ranked
        order, the highest score (equal scores: the earlier line), with a
        warning giving the count dropped. Both options apply to in-memory
        inputs and files; a Dask input refuses them.

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
        refuse_on_lazy(ignore_identical_ids, duplicates, "evaluate_run")
        return backend.evaluate_run(qrels, run, metrics, setting=setting, complete=complete,
                             threshold=threshold, gains=gains, max_docs=max_docs,
                             judged_only=judged_only, n_docs=n_docs,
                             no_relevant=no_relevant, qrels_format=qrels_format,
                             run_format=run_format, progress=progress, compute=compute)
    run = ranked_run(run, run_format, ignore_identical_ids=ignore_identical_ids,
                     duplicates=duplicates, where="evaluate_run: run")
    if getattr(qrels, "subtopic", None) is not None or by_family(metrics).diversity_only():
        return evaluate_diversity_run(
            qrels, as_run(run, run_format), metrics, setting=setting, complete=complete,
            threshold=threshold, max_docs=max_docs, judged_only=judged_only,
            no_relevant=no_relevant, progress=progress)
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
        inputs, perm = match_columns(q, r, judged, complete=complete,
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
    inputs = build_preranked(RankedLists(run_ids, lens, items, scores, distinct_pairs(r)),
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
