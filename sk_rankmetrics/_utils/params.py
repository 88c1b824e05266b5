"""The parameter table: every parameter of every public function, declared once
(default, constraints, error hint, docstring text), and the ``@validate`` decorator."""

from __future__ import annotations

import functools
import inspect
from typing import Any, Callable, TypeVar

from .constraints import (
    ArrayLike,
    Boolean,
    Callables,
    Constant,
    Interval,
    ListOf,
    Mappings,
    Options,
    Param,
    Strings,
    check_param,
)
from .errors import InvalidParameterError
from .types import ResponseMethodName

F = TypeVar("F", bound=Callable[..., Any])

#: The order ``ignore_ties=True`` ranks tied scores in, as messages state it
#: (the ``ignore_ties`` entry of :data:`PARAMS` says it in full).
TIE_ORDER = "of equal scores the later column, or with qid the later entry, first"

RESPONSE_METHODS: tuple[ResponseMethodName, ...] = (
    "decision_function", "predict_proba", "predict")

_NONE = Constant(None)
_NO_RELEVANT = [Options("warn", "skip"), Interval("real", 0, 1), Constant(float("nan"), "nan")]

#: The parameter table. A key ``"function.name"`` overrides ``"name"`` for
#: one function.
PARAMS = {
    "k": Param(
        None, [Interval("integer", 1, None), _NONE],
        "the cut-off: only the first k positions count; None counts every position",
        examples=(1, 3, 10**30),
        doc="""k : int, default=None
    Cut-off: only the first ``k`` positions count. ``None`` means all.
    A ``k`` larger than the row counts every item (the work stays
    proportional to the row).""",
    ),
    "gain": Param(
        "linear", [Options("linear", "exponential"), Mappings(), Callables()],
        "what an item of relevance r is worth: r, 2**r - 1, a {level: gain} mapping or "
        "a callable",
        examples=("exponential", {0: 0.0, 1: 1.0, 2: 5.0, 3: 6.5}),
        doc="""gain : {"linear", "exponential"}, mapping or callable, default="linear"
    What an item of relevance ``r`` is worth: ``"linear"`` is ``r``
    (scikit-learn, trec_eval, ranx), ``"exponential"`` is ``2**r - 1``
    (XGBoost, LightGBM, most web-search practice), a mapping
    ``{level: gain}`` must name every level present (trec_eval's
    ``ndcg.L=G``), a callable maps an array of levels to gains.""",
    ),
    "discount": Param(
        "log", [Options("log", "jarvelin"), ArrayLike(), Callables()],
        "what position p is worth: 1/log_b(p + 1), Järvelin-Kekäläinen's form, an array "
        "or a callable of non-negative discounts",
        examples=("jarvelin",),
        doc="""discount : {"log", "jarvelin"}, array-like or callable, default="log"
    What position ``p`` (1-based) is worth: ``"log"`` is
    ``1 / log_b(p + 1)``; ``"jarvelin"`` is the original Järvelin and
    Kekäläinen form, 1 for ``p < b`` and ``1 / log_b(p)`` after (the base
    changes nDCG); an array gives one discount per position, a callable
    maps 1-based positions to discounts. Discounts must be >= 0 and, for
    nDCG, must not grow with the position.""",
    ),
    "log_base": Param(
        2, [Interval("real", 1, None, closed="neither")],
        "the base b of the logarithmic discounts; b <= 1 would make later positions worth "
        "as much or more (or negative)",
        examples=(3, 10, 1.5),
        doc="""log_base : float, default=2
    The base ``b`` of the logarithmic discounts; it must exceed 1.""",
    ),
    "threshold": Param(
        None, [Interval("real", None, None), _NONE],
        "the lowest relevance that counts as relevant; None means any relevance > 0",
        examples=(2, 0.5),
        doc="""threshold : float, default=None
    An item is relevant when ``y_true >= threshold``; ``None`` means any
    positive value (``y_true > 0``).""",
    ),
    "denominator": Param(
        "min_k_relevant", [Options("min_k_relevant", "relevant")],
        "what AP@k is divided by: min(k, R), so that a perfect top k scores 1, or R, the "
        "relevant items of the row (trec_eval, ranx)",
        examples=("relevant",),
        doc="""denominator : {"min_k_relevant", "relevant"}, default="min_k_relevant"
    ``D``: ``min(k, R)`` with ``R`` the relevant items of the row, so that
    a perfect top ``k`` scores 1 (LightGBM, Spark ``MAP@k``, recommender
    practice); or ``R`` (trec_eval ``map_cut_k``, ranx, XGBoost 1.x
    ``map@k``). Without ``k`` both are ``R``.""",
    ),
    "adaptive_k": Param(
        False, [Boolean()],
        "whether P@k of a row shorter than k divides by the row's length instead of k",
        examples=(True,),
        doc="""adaptive_k : bool, default=False
    Divide by ``min(k, n_items)`` instead of ``k`` when a row has fewer
    than ``k`` items. ``False`` is trec_eval, ranx and torchmetrics.""",
    ),
    "no_relevant": Param(
        "warn", _NO_RELEVANT,
        "the value of a row without a relevant item: 'warn' (0, counted, with a warning), "
        "'skip' (left out of the mean) or a number in [0, 1] or nan",
        examples=("skip", 0.0, 1.0),
        doc="""no_relevant : "warn", "skip" or float, default="warn"
    Rows with no relevant item (for nDCG: an ideal DCG of 0). ``"warn"``
    scores them 0 and counts them, as scikit-learn does, with an
    ``UndefinedMetricWarning``; ``"skip"`` drops them from the mean and its
    weight; a number in [0, 1] (``0.0``, ``1.0``) or ``nan`` replaces their
    value silently.""",
    ),
    "ignore_ties": Param(
        False, [Boolean()],
        f"True ranks tied scores in one order ({TIE_ORDER}) instead of taking the expected "
        "value over their orderings",
        examples=(True,),
        doc="""ignore_ties : bool, default=False
    By default a tie in ``y_score`` scores the exact expected value of the
    metric over every ordering of the tied items, all equally likely.
    ``True`` ranks the tied items in one order instead, scikit-learn's: by
    score, then by place, both descending, so that of equal scores the
    *later* item comes first: the later column of a matrix (item ``j``
    before item ``i < j``); with ``qid``, the later entry of the query in
    the input order (with Dask, partitions in order, then rows); for
    :func:`evaluate_embeddings`, the later row of ``item_factors``. Every
    metric and cut-off of a call reads that one ranking (a cut-off ``k``
    takes its first ``k`` items), the same on every platform. Faster; the
    expected value only when the scores have no ties.""",
    ),
    "head_share": Param(
        0.2, [Interval("real", 0, 1, closed="right")],
        "the share of all training interactions that the head (the most popular items) "
        "first reaches",
        examples=(0.5, 1.0),
        doc="""head_share : float, default=0.2
    The share of all training interactions that the head (the most
    popular items) first reaches.""",
    ),
    "per_row": Param(
        False, [Boolean()], "True returns one value per row (query) instead of the mean",
        examples=(True,),
        doc="""per_row : bool, default=False
    Return the array of per-row (per-query, in sorted qid order) values
    instead of their mean; rows skipped by ``no_relevant="skip"`` are NaN.""",
    ),
    "setting": Param(
        "sk_rankmetrics", [Options("sk_rankmetrics", "trec_eval")],
        "whose conventions to follow: this package's or trec_eval's",
        examples=("trec_eval",),
    ),
    "complete": Param(
        False, [Boolean()],
        "True also scores the queries (users) that have judgements but no ranking, as 0",
        examples=(True,),
    ),
    "gains": Param(
        None, [Mappings(), _NONE],
        "the gain of each relevance level for nDCG and DCG, as trec_eval's -m ndcg.L=G",
        examples=({1: 3.0, 2: 9.0},),
    ),
    "judged_only": Param(
        False, [Boolean()],
        "True removes the documents the qrels do not judge from the ranking before "
        "scoring (trec_eval's -J)",
        examples=(True,),
    ),
    "max_docs": Param(
        None, [Interval("integer", 1, None), _NONE],
        "how many ranked items of each row the measure reads: the ranking is cut there "
        "first (trec_eval's -M); None reads the whole ranking",
        examples=(100, 3),
        doc="""max_docs : int, default=None
    Read only the first ``max_docs`` ranked items: the ranking is cut there
    first, as trec_eval's ``-M`` (R and the other totals still count every
    item of the row). None reads the whole ranking.""",
    ),
    "fuse.method": Param(
        "rrf", [Options("sum", "max", "min", "med", "anz", "mnz", "gmnz", "rrf", "isr",
                        "log_isr", "logn_isr", "bordafuse", "rbc", "wsum", "wmnz",
                        "w_bordafuse", "mixed", "condorcet", "w_condorcet", "probfuse",
                        "segfuse", "slidefuse", "posfuse", "bayesfuse", "mapfuse")],
        "the fusion method, by ranx's name", examples=("wsum", "mnz")),
    "fuse.norm": Param(
        None, [Options("min-max", "max", "sum", "zmuv", "rank", "borda"), _NONE],
        "how each run's scores are normalised per query before fusing (ranx's names); "
        "None keeps them", examples=("min-max", "zmuv")),
    "fuse.weights": Param(None, [ArrayLike(), _NONE], "one weight per run, for wsum, wmnz, "
                          "w_bordafuse and mixed", examples=([0.5, 0.5],)),
    "fuse.k": Param(60, [Interval("real", 0, None, closed="left")], "rrf's rank offset: a "
                    "document at 0-based position i gets 1/(k + i + 1)", examples=(10,)),
    "fuse.phi": Param(0.8, [Interval("real", 0, 1, closed="neither")], "rbc's persistence: "
                      "position i gets (1 - phi) * phi**i", examples=(0.5,)),
    "fuse.gamma": Param(1.0, [Interval("real", None, None)], "gmnz's exponent of the number "
                        "of runs that retrieved a document", examples=(0.5,)),
    "fuse.sigma": Param(0.01, [Interval("real", 0, 1, closed="both")], "logn_isr's offset "
                        "inside the logarithm (ranx: in [0, 1])", examples=(0.1,)),
    "fuse.probs": Param(None, [ArrayLike(), _NONE], "the trained probabilities, one array "
                        "per run, of probfuse, segfuse, slidefuse and posfuse (ranx's probs)",
                        examples=([[0.5, 0.1], [0.4, 0.2]],)),
    "fuse.w": Param(None, [Interval("integer", 0, None), _NONE], "slidefuse's window: "
                    "position i averages the probabilities of positions i - w to i + w",
                    examples=(2,)),
    "fuse.log_odds": Param(None, [ArrayLike(), _NONE], "bayesfuse's trained log-odds of "
                           "relevance per position, one array per run",
                           examples=([[0.1, -0.2], [0.3, -0.1]],)),
    "fuse.map_scores": Param(None, [ArrayLike(), _NONE], "mapfuse's trained mean average "
                             "precision, one number per run", examples=([0.3, 0.2],)),
    "fuse.tag": Param(None, [Strings(), _NONE], "the run tag of a TrecRun result",
                      examples=("hybrid",)),
    "optimize_fusion.method": Param(
        "wsum", [Options("wsum", "wmnz", "w_bordafuse", "mixed", "w_condorcet", "rrf", "rbc",
                         "gmnz", "logn_isr", "probfuse", "segfuse", "slidefuse", "posfuse",
                         "bayesfuse", "mapfuse")],
        "a fusion method with weights or a parameter to tune (ranx's names)",
        examples=("rrf", "mixed")),
    "optimize_fusion.norm": Param(
        "min-max", [Options("min-max", "max", "sum", "zmuv", "rank", "borda"), _NONE],
        "the normalisation before fusing (ranx's default min-max); None keeps the scores",
        examples=("zmuv", None)),
    "optimize_fusion.metric": Param("ndcg", [Strings()], "the measure averaged over the "
                                    "queries, a metric name such as 'ndcg@10'",
                                    examples=("ndcg@10", "map@100")),
    "optimize_fusion.step": Param(
        None, [Interval("real", 0, 1, closed="right"), Interval("integer", 1, None), _NONE],
        "the grid step: a weight step in (0, 1], or rrf's k step; None takes ranx's "
        "(0.1 for weights, 10 for k, 0.01 otherwise)", examples=(0.2, 5)),
    "optimize_fusion.return_report": Param(False, [Boolean()], "True also returns every "
                                           "configuration tried with its score",
                                           examples=(True,)),
    "ignore_identical_ids": Param(
        False, [Boolean()],
        "True drops each retrieved document whose id is the query's own id (BEIR's and "
        "MTEB's ignore_identical_ids; the qrels are not changed)", examples=(True,)),
    "duplicates": Param(
        "raise", [Options("raise", "first")],
        "what a document ranked twice for one query does: 'raise' refuses it, 'first' "
        "keeps its first occurrence in ranked order (the highest score, the earliest "
        "position)", examples=("first",)),
    "format": Param(
        "auto", [Options("auto", "trec", "csv", "tsv", "parquet", "json")],
        "the file format: 'auto' decides by the extension, then by the content",
        examples=("csv", "trec"),
    ),
    "qrels_format": Param(
        "auto", [Options("auto", "trec", "csv", "tsv", "parquet", "json")],
        "the format of a qrels path: 'auto' decides by the extension, then by the content",
        examples=("csv", "trec"),
    ),
    "run_format": Param(
        "auto", [Options("auto", "trec", "csv", "tsv", "parquet", "json")],
        "the format of a run path: 'auto' decides by the extension, then by the content",
        examples=("parquet", "trec"),
    ),
    "evaluate_run.n_docs": Param(
        None, [Interval("integer", 0, None), _NONE],
        "the number of documents in the collection, for utility's missed non-relevant "
        "documents (trec_eval's -N); None means 0",
        examples=(1000,),
    ),
    "progress": Param(
        None, [Callables(), _NONE], "a callable progress(done, total)",
    ),
    "evaluate_run.no_relevant": Param(
        None, [*_NO_RELEVANT, _NONE],
        "the value of a query without a relevant document; None means the setting's own "
        "('warn', or 0.0 for trec_eval)",
        examples=("skip", 0.0),
    ),
    "response_method": Param(
        RESPONSE_METHODS, [Options(*RESPONSE_METHODS), ListOf(Options(*RESPONSE_METHODS))],
        "the estimator methods that give scores, tried in order",
        examples=("predict",),
    ),
    "max_grade": Param(
        4, [Interval("integer", 1, 1022)],
        "the largest relevance grade of the scale: ERR's user stops at grade g with "
        "probability (2**g - 1) / 2**max_grade (4: the TREC Web track's gdeval)",
        examples=(3, 6),
        doc="""max_grade : int, default=4
    The largest grade of the relevance scale: the user stops at an item of
    grade ``g`` with probability ``(2**g - 1) / 2**max_grade``. 4 is the
    TREC Web track's (``gdeval``, which ir_measures' ERR calls).""",
    ),
    "normalize": Param(
        False, [Boolean()],
        "True divides ERR by the ERR of the ideal ranking (nERR)",
        examples=(True,),
        doc="""normalize : bool, default=False
    Divide by the ERR of the ideal ranking (nERR, in [0, 1]).""",
    ),
    "p": Param(
        0.8, [Interval("real", 0, 1, closed="neither")],
        "the persistence (RBP, Compat, NERR10): the probability that the user looks at "
        "the next item",
        examples=(0.5, 0.95),
        doc="""p : float, default=0.8
    Persistence: the probability that the user goes on to the next item
    (ir_measures' and ranx's default 0.8; trec_eval's is 0.9).""",
    ),
    "T": Param(
        1.0, [Interval("real", 0, None, closed="neither")],
        "the gain the user wants (INST, INSQ, NERR11, BPM: C/W/L's T), in units of the "
        "largest gain",
        examples=(2.0, 0.5),
        doc="""T : float, default=1.0
    The total gain the user wants, in units of the largest gain (C/W/L's
    ``T``, as in cwl_eval's INST, INSQ, NERR11 and BPM).""",
    ),
    "min_rel": Param(
        0, [Interval("integer", 0, None)],
        "the level worth nothing on the C/W/L gain scale: levels are clipped to "
        "[min_rel, max_rel], then scaled to [0, 1]",
        examples=(1,),
        doc="""min_rel : int, default=0
    The lowest level of the C/W/L gain scale: a level ``r`` is worth
    ``(min(max(r, min_rel), max_rel) - min_rel) / (max_rel - min_rel)``.""",
    ),
    "max_rel": Param(
        4, [Interval("integer", 1, None)],
        "the level worth 1 on the C/W/L gain scale: levels are clipped to "
        "[min_rel, max_rel], then scaled to [0, 1]",
        examples=(3, 6),
        doc="""max_rel : int, default=4
    The highest level of the C/W/L gain scale (worth 1); it must exceed
    ``min_rel``.""",
    ),
    "graded": Param(
        False, [Boolean()],
        "True makes RBP read graded gains (each level over the row's largest level, as "
        "trec_eval's rbp) instead of the relevant/not relevant indicator",
        examples=(True,),
        doc="""graded : bool, default=False
    Read graded gains (each level over the row's largest level when that
    exceeds 1, as trec_eval's ``rbp``) instead of the relevant / not
    relevant indicator at ``threshold``.""",
    ),
    "zero_if_judged": Param(
        False, [Boolean()],
        "True gives a residual of 0 when every ranked item is judged, as trec_eval's "
        "rbp_resid, instead of the weight p**n of the items after the ranking",
        examples=(True,),
    ),
    "redundancy": Param(
        0.5, [Interval("real", 0, 1, closed="both")],
        "the diversity measures' alpha (ndeval's -alpha): a subtopic's gain is multiplied by "
        "1 - alpha each time a document covering it is ranked",
        examples=(0.0, 0.25, 1.0),
        doc="""redundancy : float, default=0.5
    The diversity measures' ``alpha`` (ndeval's ``-alpha``, ir_measures'
    ``alpha``): a subtopic's gain is multiplied by ``1 - alpha`` each time a
    document relevant to it is ranked.""",
    ),
    "patience": Param(
        0.5, [Interval("real", 0, 1, closed="right")],
        "NRBP's beta (ndeval's -beta): the probability that the user goes on to the next "
        "document",
        examples=(0.8, 1.0),
        doc="""patience : float, default=0.5
    NRBP's ``beta`` (ndeval's ``-beta``, ir_measures' ``beta``): the
    probability that the user goes on to the next document.""",
    ),
    "diversity": Param(
        False, [Boolean()],
        "True reads a diversity qrels: the second field is the subtopic, and a document "
        "appears once per subtopic",
        examples=(True,),
    ),
    "beta": Param(
        1.0, [Interval("real", 0, None, closed="neither")],
        "F's weight of recall against precision: F_beta = (1 + beta**2) P R / (beta**2 P + R)",
        examples=(0.5, 2.0),
        doc="""beta : float, default=1.0
    Weight of recall against precision:
    ``F_beta = (1 + beta**2) P R / (beta**2 P + R)``.""",
    ),
    "mean": Param(
        "arithmetic", [Options("arithmetic", "geometric")],
        "how the rows' values are averaged: the arithmetic mean, or the geometric mean of "
        "max(value, 1e-5) (trec_eval's gm_map and gm_bpref)",
        examples=("geometric",),
        doc="""mean : {"arithmetic", "geometric"}, default="arithmetic"
    How the rows' values are combined: their (weighted) arithmetic mean, or
    the geometric mean of ``max(value, 1e-5)`` (trec_eval's ``gm_map``,
    ``gm_bpref``), which rewards systems that do well on every query.""",
    ),
    "recall": Param(
        None, [Interval("real", 0, 1), _NONE],
        "the recall level at which interpolated precision is read, e.g. "
        "'iprec_at_recall@0.5'",
        examples=(0.5, 0.0, 1.0),
    ),
    "recall_rounding": Param(
        "lround", [Options("lround", "plus_0.9")],
        "how recall level x picks the c-th relevant item: 'lround' rounds x R to the "
        "nearest integer, halves up (trec_eval 10); 'plus_0.9' takes floor(x R + 0.9) "
        "(trec_eval 9, pytrec_eval, ir_measures' IPrec, ranx); c is at least 1",
        examples=("plus_0.9",),
    ),
    "recall_levels": Param(
        (0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0),
        [ListOf(Interval("real", 0, 1))],
        "the recall levels whose interpolated precisions are averaged (11 points by "
        "default)",
        examples=((0.2, 0.5, 0.8),),
    ),
    "multiple": Param(
        None, [Interval("real", 0, None, closed="neither"), _NONE],
        "the multiple of R, the row's number of relevant items, at which precision is "
        "read, e.g. 'rprec_mult@0.5'",
        examples=(0.2, 2.0),
    ),
    "payoffs": Param(
        (1.0, -1.0, 0.0, 0.0), [ListOf(Interval("real", None, None), length=4)],
        "the worth of a retrieved relevant, a retrieved non-relevant, a missed relevant "
        "and a missed non-relevant item (trec_eval's utility)",
        examples=((2.0, -1.0, 0.0, 0.0),),
    ),
    "n_docs": Param(
        0, [Interval("integer", 0, None)],
        "the number of items in the collection, for utility's missed non-relevant items "
        "(trec_eval's -N)",
        examples=(1000,),
    ),
    "MetricAtKDisplay.from_estimator.response_method": Param(
        "auto", [Options("auto", *RESPONSE_METHODS), ListOf(Options(*RESPONSE_METHODS))],
        "the estimator methods that give scores, tried in order; 'auto' tries "
        "decision_function, predict_proba, then predict",
        examples=("predict",),
    ),
    "name": Param(None, [Strings(), _NONE], "the system's name, for the legend",
                  examples=("model A",)),
    # -- Dask --
    "compute": Param(
        True, [Boolean()],
        "for Dask inputs: True computes the result and returns it as for in-memory inputs, "
        "False returns lazy Dask objects (in-memory inputs are always computed)",
        examples=(False,),
        doc="""compute : bool, default=True
    For Dask inputs (the guide's "Evaluating at scale"): ``True`` computes
    the result and returns it as for in-memory inputs; ``False`` returns
    lazy Dask objects instead, as dask-ml does: the mean as a 0-d Dask
    array, per-row values as a Dask array (matrices) or a Dask Series
    indexed by query id (long format). In-memory inputs are always
    computed.""",
    ),
    "metric_names.aliases": Param(
        False, [Boolean()],
        "True returns the aliases, {alias: metric name}, instead of the list of names",
        examples=(True,),
    ),
    "metric_names.family": Param(
        None, [Options("accuracy", "trec_eval", "cwl", "diversity", "beyond_list",
                       "beyond_set"), _NONE],
        "one family's names only (None: every family)",
        examples=("beyond_set", "diversity"),
        doc="""family : {'accuracy', 'trec_eval', 'cwl', 'diversity', 'beyond_list', \
'beyond_set'} or None, default=None
    Only the names of one family (see Notes); None: every family.""",
    ),
    # -- comparing systems --
    "test": Param(
        "t-test", [Options("t-test", "wilcoxon", "randomization", "bootstrap", "sign", "tukey",
                           "tukey_oneway", "randomized_tukey")],
        "the paired two-sided significance test",
        examples=("wilcoxon", "randomization", "bootstrap", "sign", "tukey", "tukey_oneway",
                  "randomized_tukey"),
    ),
    "correction": Param(
        "auto", [Options("auto", "holm", "bonferroni", "fdr_bh"), _NONE],
        "the multiple-testing correction over the comparisons of each metric; None for none, "
        "'auto' for Holm's (none under Tukey's tests, which control the family themselves)",
        examples=("holm", "bonferroni", "fdr_bh", None),
    ),
    "baseline": Param(
        None, [Strings(), _NONE],
        "the system every other one is compared with; None compares every pair",
        examples=("A",),
    ),
    "alpha": Param(
        0.05, [Interval("real", 0, 1, closed="neither")],
        "the significance level of the markers",
        examples=(0.01, 0.1),
    ),
    "confidence_level": Param(
        0.95, [Interval("real", 0, 1, closed="neither")],
        "the level of the bootstrap confidence intervals",
        examples=(0.9, 0.99),
    ),
    "n_resamples": Param(
        10_000, [Interval("integer", 100, 10_000_000)],
        "bootstrap resamples and random sign flips; fewer than 100 give meaningless "
        "intervals, more than 10 million take too long",
        examples=(1000,),
    ),
    "batch_size": Param(
        None, [Interval("integer", 1, None), _NONE],
        "users per block of scores; None sizes the blocks to a fixed memory budget",
        examples=(1, 1000),
    ),
    "exclude_relevant": Param(
        "raise", [Options("raise", "drop")],
        "what to do when y_true marks an excluded item relevant: raise, or drop the pair "
        "from the truth",
        examples=("drop",),
    ),
    "sample_negatives": Param(
        None, [Interval("integer", 1, None), _NONE],
        "items drawn per user to rank the held-out items among; None ranks the whole "
        "catalogue",
        examples=(5,),
    ),
    "return_top": Param(
        False, [Boolean()], "True also returns the best k item indices of every user",
        examples=(True,),
    ),
    "random_state": Param(
        None, [Interval("integer", 0, None), _NONE],
        "the seed of the resamples; None draws a fresh one",
        examples=(0, 12345),
    ),
    "on_missing": Param(
        "raise", [Options("raise", "drop")],
        "what to do with queries that some systems lack: raise naming them, or drop them",
        examples=("drop",),
    ),
    "rows": Param(
        "systems", [Options("systems", "pairs")],
        "what a row of the table is: a system, or a compared pair of systems and a metric",
        examples=("pairs",),
    ),
    # -- agreement: rankings, orderings, assessors, qrels --
    "rbo.p": Param(
        0.9, [Interval("real", 0, 1, closed="neither")],
        "RBO's persistence: the weight of depth d is (1 - p) p**(d - 1)",
        examples=(0.5, 0.98),
        doc=r"""p : float, default=0.9
    Persistence, :math:`0 < p < 1`: the weight of depth :math:`d` is
    :math:`(1-p)p^{d-1}`, so the top :math:`1/(1-p)` positions carry
    most of it (about 86 % within the first 10 at 0.9).""",
    ),
    "ties": Param(
        "a", [Options("a", "b", "w")],
        "how RBO counts tied items: 'a' the expected RBO over orders of each tie, 'b' that "
        "corrected for the ties, 'w' tied items share a rank",
        examples=("b", "w"),
        doc=r"""ties : {"a", "b", "w"}, default="a"
    How ties count: ``"a"``, the expected RBO over random orders of
    each tie group (ties as uncertainty); ``"b"``, that corrected by
    the information the ties lose, so that a ranking with ties has RBO
    1 with itself (:math:`\mathrm{RBO}^a \le \mathrm{RBO}^b`); ``"w"``,
    tied items share a rank (ties as equality; Webber et al.'s
    treatment).""",
    ),
    "rbo.score": Param(
        "ext", [Options("ext", "min", "max", "res", "all"),
                ListOf(Options("ext", "min", "max", "res"))],
        "what the lists' unseen part holds: extrapolated agreement, none, the most, the "
        "residual max - min, or every score",
        examples=("min", "all", ["min", "max"]),
        doc="""score : {"ext", "min", "max", "res", "all"} or list of them, default="ext"
    What to do beyond the end of the lists: ``"ext"`` extrapolates the
    agreement seen; ``"min"`` assumes no more overlap, ``"max"`` the
    most possible; ``"res"`` is the residual ``max - min``; ``"all"``
    (or a list) returns several.""",
    ),
    "variant": Param(
        "b", [Options("b", "c")],
        "Kendall's tau-b (ties corrected for) or Stuart's tau-c",
        examples=("c",),
        doc=r"""variant : {"b", "c"}, default="b"
    :math:`\tau_b` (ties corrected for, as SciPy's default) or
    :math:`\tau_c` (Stuart's, for tables that are not square).""",
    ),
    "symmetric": Param(
        False, [Boolean()],
        "False: a is observed, b the reference; True: Urbano and Marrero's symmetric "
        "tau_AP,b, ties allowed in both",
        examples=(True,),
        doc=r"""symmetric : bool, default=False
    False: ``a`` is observed and ``b`` the reference (no ties in
    ``b``). True: the symmetric :math:`\tau_{AP,b}` of Urbano and
    Marrero, for two orderings neither of which is the reference (ties
    allowed in both); without ties it is the mean of
    :math:`\tau_{AP}(a, b)` and :math:`\tau_{AP}(b, a)`.""",
    ),
    "compare_qrels.symmetric": Param(
        False, [Boolean()],
        "False: tau_AP with qrels_a as the reference; True: the symmetric tau_AP,b",
        examples=(True,),
        doc=r"""symmetric : bool, default=False
    :math:`\tau_{AP}` with ``qrels_a`` as the reference (False), or
    Urbano and Marrero's symmetric :math:`\tau_{AP,b}` (True).""",
    ),
    "weights": Param(
        None, [Options("linear", "quadratic"), _NONE],
        "how Cohen's kappa weighs a disagreement: 1 (None), by the distance of the two "
        "levels' indices, or by its square",
        examples=("linear", "quadratic"),
        doc="""weights : {"linear", "quadratic"}, default=None
    None: every disagreement counts 1; ``"linear"`` and ``"quadratic"``
    weigh it by the distance between the two levels' indices.""",
    ),
    "labels": Param(
        None, [ArrayLike(), _NONE],
        "the levels, in order, that index Cohen's kappa's matrix (scikit-learn's labels); "
        "None: the levels the assessors gave",
        examples=([0, 1, 2, 3],),
        doc="""labels : array-like, default=None
    The levels, in order, that index the matrix (scikit-learn's
    ``labels``): give every grade of the scale, ``[0, 1, 2, 3]``, so that
    the weights do not depend on which grades happen to be used. None:
    the levels either assessor gave. A level outside ``labels`` raises.""",
    ),
    "level": Param(
        "ordinal", [Options("ordinal", "nominal", "interval", "ratio")],
        "the scale of the levels, which sets Krippendorff's distance between two of them",
        examples=("nominal", "interval", "ratio"),
        doc=r"""level : {"ordinal", "nominal", "interval", "ratio"}, default="ordinal"
    The levels' scale: :math:`\delta^2_{ck}` is ``[c != k]``
    (nominal), :math:`(\sum_{g=c}^{k} n_g - (n_c + n_k)/2)^2` (ordinal,
    the default: relevance grades are ordered, their spacing unknown),
    :math:`(c - k)^2` (interval) or :math:`((c - k)/(c + k))^2` (ratio,
    0 for two levels 0).""",
    ),
    "compare_qrels.names": Param(
        None, [ListOf(Strings(), length=2), _NONE],
        "the two qrels' names in the report, the reference first",
        examples=(("human", "judge"),),
        doc="""names : (str, str), default=None
    Names of the two qrels in the report; ``("qrels_a", "qrels_b")``
    when None.""",
    ),
    "compare_qrels.no_relevant": Param(
        None, [*_NO_RELEVANT, _NONE],
        "the value of a query without a relevant document: 'warn', 'skip' or a number "
        "(None: the setting's own)",
        examples=("skip", 0.0),
        doc="""no_relevant : "warn", "skip" or float, default=None
    As in :func:`evaluate_run` (None: its default); a query that
    ``"skip"`` leaves out of any system is left out of everything.""",
    ),
    "QrelsComparison.to_frame.rows": Param(
        "systems", [Options("systems", "pairs", "queries")],
        "what a row of the table is: a system, a pair of systems, or a query",
        examples=("pairs", "queries"),
        doc="""rows : {"systems", "pairs", "queries"}, default="systems"
    ``"systems"``: each system's mean and rank under each qrels.
    ``"pairs"``: every pair of systems, with its differences and
    corrected p-values under each qrels and ``swapped``.
    ``"queries"``: each query's systems' Kendall's tau_b
    (``tau_b``).""",
    ),
    # -- leaderboards and topic set size design --
    "leaderboard.n_resamples": Param(
        1000, [Interval("integer", 100, 10_000_000)],
        "bootstrap resamples of the queries, stratified by collection; fewer than 100 give "
        "meaningless intervals",
        examples=(200,),
    ),
    "aggregate": Param(
        "mean", [Options("mean", "borda")],
        "how a system's per-collection means make its score: their mean, or its Borda "
        "count (MTEB's rank)",
        examples=("borda",),
    ),
    "layout": Param(
        "collection/system", [Options("collection/system", "system", "system/seed",
                                      "collection/system/seed")],
        "what the levels of the nested mapping results are, outermost first",
        examples=(),
    ),
    "intervals": Param(
        "simultaneous", [Options("simultaneous", "per_system")],
        "rank intervals that hold for every system at once, or for each system alone",
        examples=("per_system",),
    ),
    "baselines": Param(
        None, [ListOf(Strings()), Strings(), _NONE],
        "the systems every other one is tested against, all tests one correction family",
        examples=(["A"], "A"),
    ),
    "LeaderboardReport.to_frame.rows": Param(
        "systems", [Options("systems", "collections", "baselines")],
        "what a row of the table is: a system, a system on one collection, or a system "
        "against one baseline",
        examples=("collections", "baselines"),
    ),
    "LeaderboardDisplay.confidence_level": Param(
        None, [Interval("real", 0, 1, closed="neither"), _NONE],
        "the level of the intervals, for the title; None leaves it out",
        examples=(0.9,),
    ),
    "delta": Param(
        None, [Interval("real", 0, None, closed="neither")],
        "the smallest true difference of means to detect (for design='ci': the largest "
        "expected width of the interval)",
        examples=(0.1,),
    ),
    "sd": Param(
        None, [Interval("real", 0, None, closed="neither"), _NONE],
        "the standard deviation of the per-topic values (of their differences for the "
        "paired designs)",
        examples=(0.2,),
    ),
    "pilot": Param(
        None, [Mappings(), ArrayLike(), _NONE],
        "a pilot's per-query values of several systems: a (queries, systems) matrix or "
        "{system: values}",
        examples=(),
    ),
    "power": Param(
        None, [Interval("real", 0, 1, closed="neither"), _NONE],
        "the power to reach, one minus the type II error rate; None is 0.8",
        examples=(0.9,),
    ),
    "design": Param(
        "paired_t", [Options("paired_t", "anova", "ci")],
        "the paired t-test, the one-way ANOVA of n_systems, or the width of a paired "
        "difference's confidence interval",
        examples=("anova", "ci"),
    ),
    "n_systems": Param(
        2, [Interval("integer", 2, 100_000)],
        "the number of systems of the one-way ANOVA design",
        examples=(2,),
    ),
    "n_topics": Param(
        None, [Interval("integer", 2, 10**9)],
        "the number of topics (per system) of the experiment",
        examples=(50,),
    ),
    "library": Param(
        None, [Options("lightgbm", "xgboost")],
        "the boosting library whose training calls the metric; CatBoost's custom metrics "
        "are not given the query groups",
        examples=("xgboost",),
    ),
    "fit_params": Param(
        None, [Mappings(), _NONE],
        "extra arguments of every estimator's fit; per-sample arrays are split with X",
        examples=({},),
    ),
}


#: The significance level of topic set size design, one declaration for both functions.
PARAMS["topics_needed.alpha"] = PARAMS["detectable_difference.alpha"] = Param(
    0.05, [Interval("real", 0, 1, closed="neither")],
    "the significance level of the test (for design='ci': one minus the confidence level)",
    examples=(0.01,),
)


def param(name: str, where: str | None = None) -> Param:
    """The declaration of parameter ``name`` (of function ``where`` if it has its own)."""
    return PARAMS.get(f"{where}.{name}") or PARAMS[name]


def validate(func: F) -> F:
    """Check every argument of ``func`` that the table declares, at every call.

    The check runs on the arguments as given (defaults are the table's own,
    which a test asserts), so an argument that no requested metric reads is
    still checked.
    """
    sig = inspect.signature(func)
    where = func.__qualname__.replace(".__init__", "")
    declared = [
        p for p in sig.parameters
        if f"{where}.{p}" in PARAMS or p in PARAMS
    ]

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            bound = sig.bind(*args, **kwargs)
        except TypeError as exc:
            raise InvalidParameterError(f"{where}(): {exc}") from None
        given = bound.arguments
        for name in declared:
            if name in given:
                value = check_param(name, given[name], param(name, where), where)
                if value is not given[name]:
                    given[name] = value
        return func(*bound.args, **bound.kwargs)

    wrapper.__signature__ = sig  # type: ignore[attr-defined]  # read by inspect
    return wrapper  # type: ignore[return-value]  # functools.wraps keeps the signature
