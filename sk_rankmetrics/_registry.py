"""The registry: every metric and every parameter is declared here once.

- :data:`PARAMS`, the parameter table: each parameter's default, the
  constraints its value must meet and a hint for the error message. The
  decorator :func:`validate` checks every argument a public function is given
  against it, whether or not a requested metric reads it; metric options in
  ``(name, options)`` pairs and scorer options are checked against the same
  table.
- :data:`METRICS`: a :class:`MetricSpec` ties a metric name to its kernel,
  the item values it needs (gain or relevance indicator), the options it
  reads and its direction. Names such as ``"ndcg@10"`` are parsed here.

The public functions, scorers, command line, docs tables and common tests
all read this module.
"""

from __future__ import annotations

import difflib
import functools
import inspect
import math
import re

from . import _kernels
from ._conventions import resolve_discount, resolve_gain
from ._validation import (
    ArrayLike,
    Boolean,
    Callables,
    Constant,
    Interval,
    InvalidParameterError,
    ListOf,
    Mappings,
    Options,
    Param,
    Strings,
    check_param,
    short_repr,
)

RESPONSE_METHODS = ("decision_function", "predict_proba", "predict")

_NONE = Constant(None)
_NO_RELEVANT = [Options("warn", "skip"), Interval("real", 0, 1), Constant(float("nan"), "nan")]

#: The parameter table. A key ``"function.name"`` overrides ``"name"`` for
#: one function.
PARAMS = {
    "k": Param(
        None, [Interval("integer", 1, None), _NONE],
        "the cut-off: only the first k positions count; None counts every position",
        examples=(1, 3, 10**30),
    ),
    "gain": Param(
        "linear", [Options("linear", "exponential"), Mappings(), Callables()],
        "what an item of relevance r is worth: r, 2**r - 1, a {level: gain} mapping or "
        "a callable",
        examples=("exponential", {0: 0.0, 1: 1.0, 2: 5.0, 3: 6.5}),
    ),
    "discount": Param(
        "log", [Options("log", "jarvelin"), ArrayLike(), Callables()],
        "what position p is worth: 1/log_b(p + 1), Järvelin-Kekäläinen's form, an array "
        "or a callable of non-negative discounts",
        examples=("jarvelin",),
    ),
    "log_base": Param(
        2, [Interval("real", 1, None, closed="neither")],
        "the base b of the logarithmic discounts; b <= 1 would make later positions worth "
        "as much or more (or negative)",
        examples=(3, 10, 1.5),
    ),
    "threshold": Param(
        None, [Interval("real", None, None), _NONE],
        "the lowest relevance that counts as relevant; None means any relevance > 0",
        examples=(2, 0.5),
    ),
    "denominator": Param(
        "min_k_relevant", [Options("min_k_relevant", "relevant")],
        "what AP@k is divided by: min(k, R), so that a perfect top k scores 1, or R, the "
        "relevant items of the row (trec_eval, ranx)",
        examples=("relevant",),
    ),
    "adaptive_k": Param(
        False, [Boolean()],
        "whether P@k of a row shorter than k divides by the row's length instead of k",
        examples=(True,),
    ),
    "no_relevant": Param(
        "warn", _NO_RELEVANT,
        "the value of a row without a relevant item: 'warn' (0, counted, with a warning), "
        "'skip' (left out of the mean) or a number in [0, 1] or nan",
        examples=("skip", 0.0, 1.0),
    ),
    "ignore_ties": Param(
        False, [Boolean()],
        "True takes tied scores in the order of the sort instead of the expected value over "
        "their orderings",
        examples=(True,),
    ),
    "per_row": Param(
        False, [Boolean()], "True returns one value per row (query) instead of the mean",
        examples=(True,),
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
    ),
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
    ),
    "normalize": Param(
        False, [Boolean()],
        "True divides ERR by the ERR of the ideal ranking (nERR)",
        examples=(True,),
    ),
    "p": Param(
        0.8, [Interval("real", 0, 1, closed="neither")],
        "RBP's persistence: the probability that the user looks at the next item",
        examples=(0.5, 0.95),
    ),
    "graded": Param(
        False, [Boolean()],
        "True makes RBP read graded gains (each level over the row's largest level, as "
        "trec_eval's rbp) instead of the relevant/not relevant indicator",
        examples=(True,),
    ),
    "zero_if_judged": Param(
        False, [Boolean()],
        "True gives a residual of 0 when every ranked item is judged, as trec_eval's "
        "rbp_resid, instead of the weight p**n of the items after the ranking",
        examples=(True,),
    ),
    "beta": Param(
        1.0, [Interval("real", 0, None, closed="neither")],
        "F's weight of recall against precision: F_beta = (1 + beta**2) P R / (beta**2 P + R)",
        examples=(0.5, 2.0),
    ),
    "mean": Param(
        "arithmetic", [Options("arithmetic", "geometric")],
        "how the rows' values are averaged: the arithmetic mean, or the geometric mean of "
        "max(value, 1e-5) (trec_eval's gm_map and gm_bpref)",
        examples=("geometric",),
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
    "from_estimator.response_method": Param(
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
    ),
    "metric_names.aliases": Param(
        False, [Boolean()],
        "True returns the aliases, {alias: metric name}, instead of the list of names",
        examples=(True,),
    ),
    # -- comparing systems --
    "test": Param(
        "t-test", [Options("t-test", "wilcoxon", "randomization", "bootstrap", "sign")],
        "the paired two-sided significance test",
        examples=("wilcoxon", "randomization", "bootstrap", "sign"),
    ),
    "correction": Param(
        "holm", [Options("holm", "bonferroni", "fdr_bh"), _NONE],
        "the multiple-testing correction over the comparisons of each metric; None for none",
        examples=("bonferroni", "fdr_bh", None),
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
    "fit_params": Param(
        None, [Mappings(), _NONE],
        "extra arguments of every estimator's fit; per-sample arrays are split with X",
        examples=({},),
    ),
}


def param(name, where=None):
    """The declaration of parameter ``name`` (of function ``where`` if it has its own)."""
    return PARAMS.get(f"{where}.{name}") or PARAMS[name]


def validate(func):
    """Check every argument of ``func`` that the table declares, at every call.

    The check runs on the arguments as given (defaults are the table's own,
    which a test asserts), so an argument that no requested metric reads is
    still checked.
    """
    sig = inspect.signature(func)
    where = func.__qualname__.replace(".__init__", "")
    declared = [
        p for p in sig.parameters
        if f"{func.__name__}.{p}" in PARAMS or p in PARAMS
    ]

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        try:
            bound = sig.bind(*args, **kwargs)
        except TypeError as exc:
            raise InvalidParameterError(f"{where}(): {exc}") from None
        given = bound.arguments
        for name in declared:
            if name in given:
                value = check_param(name, given[name], param(name, func.__name__), where)
                if value is not given[name]:
                    given[name] = value
        return func(*bound.args, **bound.kwargs)

    wrapper.__signature__ = sig
    return wrapper


# -- metrics -----------------------------------------------------------------------

_GAIN_OPTIONS = ("gain", "discount", "log_base")
_BINARY_OPTIONS = ("threshold",)
# Options of a measure over the whole ranking: max_docs truncates the ranking first.
_WHOLE = (*_BINARY_OPTIONS, "max_docs")


class MetricSpec:
    """One registered metric.

    Parameters
    ----------
    name : str
        Canonical short name (``"ndcg"``, ``"map"``, ...).
    function : str or None
        Name of the public function computing it (None: reached by name only,
        through :func:`evaluate`, the scorers and the run entry points).
    kernel : callable
        ``kernel(rc, req) -> (values, defined)``.
    needs : tuple of str
        The item values the kernel reads: ``"gain"`` (graded gains),
        ``"positive"`` (whether the gain is positive), ``"rel"`` (the
        relevance indicator at ``threshold``), ``"judged"``
        and ``"pool"`` (whether an item is judged, or named by the truth at
        all), ``"grades"`` (one indicator per relevance grade).
    options : tuple of str
        The options it reads; their defaults and constraints are in
        :data:`PARAMS`.
    normalized : bool
        Whether values lie in [0, 1] and a row without relevant items is
        undefined (handled by the ``no_relevant`` policy).
    takes_k : bool
        Whether a cut-off ``k`` applies (``name@k``).
    at_option : str or None
        For a metric whose ``@`` takes a real number instead of a cut-off
        (``"iprec_at_recall@0.5"``): the option it sets.
    full : bool
        Whether the kernel reads the whole ranking (no cut-off applies); such
        a measure reads the option ``max_docs``, which cuts the ranking first
        (trec_eval's ``-M``, per measure).
    aggregate : {"mean", "sum"}
        How rows are combined: the (weighted) mean, or the sum (counts such
        as trec_eval's ``num_rel``).
    ties : {"expected", "refuse"}
        ``"expected"``: under the default tie rule the kernel gives the exact
        expected value over every ordering of each tie group. ``"refuse"``: no
        closed form is known; tied scores raise unless ``ignore_ties=True``
        (or the trec_eval setting, which breaks ties).
    aliases : tuple of str
        Other accepted names.
    description : str
        One line for tables and help texts.
    needs_ideal : bool or callable
        Whether the kernel reads the row's ideal gains (``rc.ideal``); a
        callable decides from the request's options.
    always_defined : bool
        Whether a row without relevant items still has a value (Judged@k):
        the ``no_relevant`` policy never applies.
    reads_to_r : bool
        Whether the kernel reads each row's ranking down to its R
        (R-precision).
    reads_items : bool
        Whether the kernel reads the values of the members of each tie group
        (``RankedChunk.items``), not only their sums; such a measure ranks
        whole rows.
    greater_is_better : bool
        Direction of the metric.
    """

    def __init__(self, name, function, kernel, needs, options, *, normalized=True,
                 takes_k=True, at_option=None, full=False, aggregate="mean",
                 ties="expected", aliases=(), description="", needs_ideal=False,
                 always_defined=False, reads_to_r=False, reads_items=False,
                 greater_is_better=True):
        self.name = name
        self.function = function
        self.kernel = kernel
        self.needs = tuple(needs)
        self.options = tuple(options)
        self.normalized = normalized
        self.takes_k = takes_k
        self.at_option = at_option
        self.full = full
        self.aggregate = aggregate
        self.ties = ties
        self.aliases = tuple(aliases)
        self.description = description
        self.needs_ideal = needs_ideal
        self.always_defined = always_defined
        self.reads_to_r = reads_to_r
        self.reads_items = reads_items
        self.greater_is_better = greater_is_better

    @property
    def defaults(self):
        """The options it reads, with their defaults from :data:`PARAMS`."""
        return {o: PARAMS[o].default for o in self.options}

    def __repr__(self):
        return f"MetricSpec({self.name!r})"


METRICS = {}


def _register(name, function, kernel, needs, options, **kwargs):
    METRICS[name] = MetricSpec(name, function, kernel, needs, options, **kwargs)


_GAIN = ("gain",)
_REL = ("rel",)
_K = _kernels

# The metrics of scikit-learn, LightGBM/XGBoost and every tool's core set.
_register("ndcg", "ndcg_score", _K.ndcg, _GAIN, _GAIN_OPTIONS, needs_ideal=True,
          description="normalised discounted cumulative gain")
_register("dcg", "dcg_score", _K.dcg, _GAIN, _GAIN_OPTIONS, normalized=False,
          description="discounted cumulative gain")
_register("cg", "cumulative_gain_score", _K.cumulative_gain, _GAIN, ("gain",),
          normalized=False, aliases=("cumulative_gain",),
          description="cumulative gain (sum of gains in the top k)")
_register("map", "mean_average_precision_score", _K.average_precision, _REL,
          (*_BINARY_OPTIONS, "denominator", "mean"), aliases=("ap", "mean_average_precision"),
          description="mean average precision")
_register("precision", "precision_at_k_score", _K.precision, _REL,
          (*_BINARY_OPTIONS, "adaptive_k"), aliases=("p",), description="precision at k")
_register("recall", "recall_at_k_score", _K.recall, _REL, _BINARY_OPTIONS,
          aliases=("r",), description="recall at k")
_register("hit_rate", "hit_rate_score", _K.hit_rate, _REL, _BINARY_OPTIONS,
          aliases=("hit", "hr", "success"),
          description="hit rate: any relevant item in the top k")
_register("mrr", "reciprocal_rank_score", _K.reciprocal_rank, _REL, _BINARY_OPTIONS,
          aliases=("rr", "reciprocal_rank", "recip_rank"),
          description="mean reciprocal rank of the first relevant item")
_register("r_precision", "r_precision_score", _K.r_precision, _REL, _BINARY_OPTIONS,
          takes_k=False, reads_to_r=True, aliases=("rprec", "r-precision"),
          description="precision at R, the number of relevant items of the row")

# Beyond trec_eval: ERR, RBP, F1.
_register("err", "err_score", _K.err, ("gain", "grades"), ("max_grade", "normalize"),
          needs_ideal=lambda opts: opts["normalize"], aliases=("expected_reciprocal_rank",),
          description="expected reciprocal rank (Chapelle et al. 2009); nERR normalised")
_register("rbp", "rbp_score", _K.rbp, ("rel", "gain"), (*_BINARY_OPTIONS, "p", "graded"),
          normalized=False, needs_ideal=lambda opts: opts["graded"],
          aliases=("rank_biased_precision",),
          description="rank-biased precision (Moffat and Zobel 2008)")
_register("rbp_resid", None, _K.rbp_residual, ("judged",), ("p", "zero_if_judged", "max_docs"),
          normalized=False, full=True, takes_k=False,
          description="RBP's residual: the most it could grow if unjudged items were relevant")
_register("f1", "f1_at_k_score", _K.f1, _REL, (*_BINARY_OPTIONS, "beta"),
          aliases=("f",), description="F1 at k: harmonic mean of precision and recall at k")

# Judgements: incomplete judgements and judged-only measures.
_register("bpref", "bpref_score", _K.bpref, ("rel", "judged"), (*_WHOLE, "mean"),
          takes_k=False, full=True,
          description="binary preference (Buckley and Voorhees 2004): judged items only")
_register("infap", None, _K.infap, ("rel", "judged", "pool"), _WHOLE,
          takes_k=False, full=True, aliases=("inferred_ap",),
          description="inferred AP (Yilmaz and Aslam 2006) for sampled judgements")
_register("judged", None, _K.judged, ("pool",), (), normalized=True, always_defined=True,
          aliases=("judged_rate",),
          description="share of the top k (at most the ranking) the truth names")
_register("unjudged", None, _K.unjudged, ("judged",), (), normalized=True,
          always_defined=True, aliases=("unj",), greater_is_better=False,
          description="share of the top k that is not judged (trec_eval's unj_k)")

# Counts: summed, not averaged, over queries (trec_eval's num_*).
_register("num_ret", None, _K.num_ret, (), ("max_docs",), normalized=False, takes_k=False,
          full=True, aggregate="sum", description="number of items ranked")
_register("num_rel", None, _K.num_rel, _REL, _BINARY_OPTIONS, normalized=False,
          takes_k=False, aggregate="sum", description="number of relevant items (R)")
_register("num_rel_ret", None, _K.num_rel_ret, _REL, _WHOLE, normalized=False,
          takes_k=False, full=True, aggregate="sum",
          description="number of relevant items ranked")
_register("num_nonrel_judged_ret", None, _K.num_nonrel_judged_ret, ("rel", "judged"),
          _WHOLE, normalized=False, takes_k=False, full=True, aggregate="sum",
          greater_is_better=False, description="number of judged non-relevant items ranked")
_register("num_q", None, _K.num_q, (), (), normalized=False, takes_k=False,
          aggregate="sum", description="number of queries")

# Set measures: the ranked items as an unordered set.
_register("set_p", None, _K.set_precision, _REL, _WHOLE, takes_k=False, full=True,
          description="precision of the whole ranking")
_register("set_recall", None, _K.set_recall, _REL, _WHOLE, takes_k=False,
          full=True, description="recall of the whole ranking")
_register("set_f", None, _K.set_f, _REL, (*_WHOLE, "beta"), takes_k=False,
          full=True, description="F_beta of the whole ranking")
_register("set_map", None, _K.set_map, _REL, _WHOLE, takes_k=False, full=True,
          description="set precision times set recall")
_register("set_relative_p", None, _K.set_relative_precision, _REL,
          _WHOLE,
          takes_k=False, full=True,
          description="relevant ranked over min(ranked, R)")
_register("utility", None, _K.utility, _REL, (*_WHOLE, "payoffs", "n_docs"),
          normalized=False, takes_k=False, full=True,
          description="weighted count of the contingency table (trec_eval's utility)")

# Precision at other cut-offs.
_register("relative_p", None, _K.relative_precision, _REL, _BINARY_OPTIONS,
          description="relevant in the top k over min(k, R)")
_register("rprec_mult", None, _K.rprec_mult, _REL, (*_WHOLE, "multiple"),
          takes_k=False, at_option="multiple", full=True,
          description="precision at a multiple of R")
_register("iprec_at_recall", None, _K.iprec_at_recall, _REL,
          (*_WHOLE, "recall", "recall_rounding"),
          takes_k=False, at_option="recall", full=True,
          aliases=("iprec",), description="interpolated precision at a recall level")
_register("11pt_avg", None, _K.eleven_point_average, _REL,
          (*_WHOLE, "recall_levels", "recall_rounding"), takes_k=False, full=True,
          aliases=("11_pt_avg", "eleven_point_average"),
          description="interpolated precision averaged over recall levels")

# trec_eval's experimental gain measures.
_register("bing", None, _K.binary_g, _REL, _WHOLE, takes_k=False, full=True,
          aliases=("binary_g",),
          description="binary G: relevant items discounted by the non-relevant ones before")
_register("g", None, _K.normalized_gain, _GAIN, ("gain", "max_docs"), takes_k=False, full=True,
          needs_ideal=True, reads_items=True,
          description="trec_eval's G: gain against the ideal's cumulative cost")
_register("ndcg_rel", None, _K.ndcg_rel, ("gain", "positive"), ("gain", "max_docs"),
          takes_k=False, full=True, needs_ideal=True,
          description="nDCG averaged over the ranks of the relevant items")
_register("rndcg", None, _K.rndcg, ("gain", "rel"), ("gain", "threshold", "max_docs"),
          takes_k=False, full=True, needs_ideal=True,
          description="nDCG averaged where the ideal gain changes level")

# Shorthand names that fix an option ("ndcg_exp" = ndcg with exponential gain).
PRESETS = {
    "ndcg_exp": ("ndcg", {"gain": "exponential"}),
    "dcg_exp": ("dcg", {"gain": "exponential"}),
    "nerr": ("err", {"normalize": True}),
    "gm_map": ("map", {"mean": "geometric", "denominator": "relevant"}),
    "gm_bpref": ("bpref", {"mean": "geometric"}),
}

_ALIASES = {a: s.name for s in METRICS.values() for a in (s.name, *s.aliases)}


def _all_names():
    return sorted({*_ALIASES, *PRESETS})


def check_k(k, arg="k"):
    """Return ``k`` as a Python int (or None) or raise naming ``arg``."""
    return check_param(arg, k, PARAMS["k"])


def lookup(name):
    """Return ``(spec, preset_options)`` for a bare metric name."""
    key = name.strip().lower()
    if key in PRESETS:
        base, opts = PRESETS[key]
        return METRICS[base], dict(opts)
    if key in _ALIASES:
        return METRICS[_ALIASES[key]], {}
    # Only close spellings (difflib's ratio, an edit-distance measure, >= 0.6):
    # "ndgc" -> "ndcg", but no guess for "coverage".
    close = difflib.get_close_matches(key, _all_names(), n=3, cutoff=0.6)
    hint = f" Did you mean {', '.join(map(repr, close))}?" if close else ""
    raise InvalidParameterError(
        f"unknown metric {name!r}.{hint} sk_rankmetrics.metric_names() lists every "
        "name (add '@k' for a cut-off, e.g. 'ndcg@10')."
    )


_NAME_RE = re.compile(r"^\s*([A-Za-z0-9_\-]+)\s*(?:@\s*(\S+))?\s*$")

#: trec_eval's printed names with a cut-off or parameter suffix (``P_5``,
#: ``iprec_at_recall_0.10``), case-sensitive, and the options they imply.
_TREC_SUFFIX = re.compile(
    r"^(P|recall|success|map_cut|ndcg_cut|relative_P|unj|iprec_at_recall|Rprec_mult)_"
    r"(\d+(?:\.\d+)?)$"
)
_TREC_BASE = {
    "P": ("precision", {}), "recall": ("recall", {}), "success": ("hit_rate", {}),
    "map_cut": ("map", {"denominator": "relevant"}), "ndcg_cut": ("ndcg", {}),
    "relative_P": ("relative_p", {}), "unj": ("unjudged", {}),
    "iprec_at_recall": ("iprec_at_recall", {}), "Rprec_mult": ("rprec_mult", {}),
}

#: ir_measures' measure names (case-sensitive) and the options they imply.
IR_MEASURES = {
    "nDCG": ("ndcg", {}), "P": ("precision", {}), "R": ("recall", {}),
    "AP": ("map", {"denominator": "relevant"}), "RR": ("mrr", {}),
    "Rprec": ("r_precision", {}), "Bpref": ("bpref", {}), "infAP": ("infap", {}),
    "Judged": ("judged", {}), "NumRet": ("num_ret", {}), "NumRel": ("num_rel", {}),
    "NumRelRet": ("num_rel_ret", {}), "NumQ": ("num_q", {}), "SetP": ("set_p", {}),
    "SetR": ("set_recall", {}), "SetF": ("set_f", {}), "SetAP": ("set_map", {}),
    "IPrec": ("iprec_at_recall", {"recall_rounding": "plus_0.9"}),
    "RBP": ("rbp", {"p": 0.8, "graded": False}), "ERR": ("err", {}),
    "Success": ("hit_rate", {}),
}
_IRM_RE = re.compile(r"^\s*([A-Za-z]+)\s*(?:\((.*)\))?\s*(?:@\s*(\S+))?\s*$")
#: ir_measures' parameters -> this package's options.
_IRM_PARAMS = {"rel": "threshold", "p": "p", "beta": "beta", "cutoff": None}
_IRM_DCG = {"log2": "linear", "exp-log2": "exponential"}


def _ir_measures_options(text, params):
    """Options of an ir_measures parameter list such as ``rel=2, p=0.8``."""
    import ast

    try:
        call = ast.parse(f"f({params})", mode="eval").body
        pairs = {kw.arg: ast.literal_eval(kw.value) for kw in call.keywords}
        if call.args or None in pairs:
            raise ValueError
    except (SyntaxError, ValueError):
        raise InvalidParameterError(
            f"cannot read the parameters of {text!r}; ir_measures writes them as "
            "name=value pairs, e.g. 'RBP(p=0.8)' or 'P(rel=2)@5'."
        ) from None
    options = {}
    for key, value in pairs.items():
        if key == "dcg":
            if value not in _IRM_DCG:
                raise InvalidParameterError(
                    f"{text!r}: dcg={value!r} is not known; ir_measures' nDCG takes "
                    "dcg='log2' or 'exp-log2'."
                )
            options["gain"] = _IRM_DCG[value]
        elif key == "gains":
            options["gain"] = value
        elif _IRM_PARAMS.get(key):
            options[_IRM_PARAMS[key]] = value
        else:
            raise InvalidParameterError(f"{text!r}: parameter {key!r} is not supported here.")
    return options


def _ir_measures_meaning(measure, text, spec, options):
    """What ir_measures means by a measure's parameters, where it differs from
    the package's option of the same name.

    ``NumRet(rel=r)`` counts the retrieved documents at level >= r (ir_measures
    defines ``NumRelRet`` as ``NumRet(rel=1)``); ``SetF(beta=b)`` hands ``b``
    to trec_eval's ``set_F``, which weighs recall by ``b`` where the F-measure
    weighs it by ``beta**2``.
    """
    if measure == "NumRet" and "threshold" in options:
        return METRICS["num_rel_ret"], options
    if measure == "SetF" and "beta" in options:
        b = options["beta"]
        if isinstance(b, bool) or not isinstance(b, (int, float)) or not b > 0:
            raise InvalidParameterError(
                f"{text!r}: beta must be a positive number, got {b!r}."
            )
        options = {**options, "beta": math.sqrt(b)}
    return spec, options


def _at_value(spec, text, value):
    """The ``@`` part of a name: a cut-off, or the metric's real-valued option."""
    if spec.at_option is not None:
        try:
            return None, {spec.at_option: float(value)}
        except ValueError:
            raise InvalidParameterError(
                f"the {spec.at_option} in {text!r} must be a number, got {value!r}."
            ) from None
    if not spec.takes_k:
        raise InvalidParameterError(f"metric {spec.name!r} takes no cut-off; drop '@'.")
    if not value.isdigit() or int(value) < 1:
        raise InvalidParameterError(
            f"the cut-off in {text!r} must be a positive integer, got {value!r}."
        )
    return int(value), {}


def parse_name(text):
    """Split a metric name into ``(spec, k, preset_options)``.

    Three vocabularies are read: this package's names (case-insensitive,
    ``"ndcg@10"``, ``"iprec_at_recall@0.5"``); the names trec_eval prints
    (``"P_5"``, ``"ndcg_cut_10"``, ``"iprec_at_recall_0.10"``); and
    ir_measures' (case-sensitive, ``"nDCG@10"``, ``"AP@100"``, ``"P(rel=2)@5"``,
    ``"RBP(p=0.8)"``, ``"nDCG(dcg='exp-log2')@10"``). A tool's name carries the
    tool's conventions (``"AP@10"`` and ``"map_cut_10"`` divide by R).
    """
    if not isinstance(text, str):
        raise InvalidParameterError(
            f"metric names must be strings, got {type(text).__name__}."
        )
    trec = _TREC_SUFFIX.match(text.strip())
    if trec:
        base, options = _TREC_BASE[trec.group(1)]
        spec = METRICS[base]
        k, at = _at_value(spec, text, trec.group(2))
        return spec, k, {**options, **at}
    irm = _IRM_RE.match(text)
    if irm and irm.group(1) in IR_MEASURES and (irm.group(2) is not None
                                                 or irm.group(1) != irm.group(1).lower()):
        base, options = IR_MEASURES[irm.group(1)]
        spec = METRICS[base]
        options = dict(options)
        if irm.group(2):
            options.update(_ir_measures_options(text, irm.group(2)))
            spec, options = _ir_measures_meaning(irm.group(1), text, spec, options)
        k = None
        if irm.group(3) is not None:
            k, at = _at_value(spec, text, irm.group(3))
            options.update(at)
        return spec, k, options
    match = _NAME_RE.match(text)
    if not match:
        raise InvalidParameterError(
            f"cannot read metric name {text!r}; write a name with an optional "
            "cut-off, such as 'ndcg@10', 'map@5' or 'mrr'."
        )
    spec, preset = lookup(match.group(1))
    k = None
    if match.group(2) is not None:
        k, at = _at_value(spec, text, match.group(2))
        preset.update(at)
    return spec, k, preset


def _same(a, b):
    try:
        return bool(a == b)
    except Exception:  # arrays: elementwise comparison
        return a is b


class Request:
    """A metric with its cut-off and checked, resolved options, ready for the engine.

    ``preset`` holds the options the metric's name fixes (``"ndcg_exp"``:
    the exponential gain); an explicit option that contradicts it raises.
    """

    def __init__(self, spec, k, options, label, *, preset=None, where=None):
        self.spec = spec
        self.k = k
        self.label = label
        where = where or spec.function
        preset = dict(preset or {})
        unknown = sorted(set(options) - set(spec.options))
        if unknown:
            reads = ", ".join(spec.options) or "no options"
            raise InvalidParameterError(
                f"{where}: {label!r} does not read the option(s) {', '.join(unknown)}; "
                f"{spec.name} reads {reads}."
            )
        for name, value in options.items():
            if name in preset and not _same(value, preset[name]):
                raise InvalidParameterError(
                    f"{where}: the name {label!r} fixes {name}={preset[name]!r}, but "
                    f"{name}={short_repr(value)} was given; use {spec.name!r} with "
                    f"{name}=... instead."
                )
        opts = spec.defaults
        opts.update(preset)
        for name, value in options.items():
            opts[name] = check_param(name, value, PARAMS[name], where)
        if spec.at_option is not None and opts[spec.at_option] is None:
            raise InvalidParameterError(
                f"{where}: {label!r} needs its {spec.at_option}, written after '@': for "
                f"example '{spec.name}@0.5'."
            )
        self.options = opts
        self.gain = self.discount = None
        self.gain_key = self.rel_key = None
        self.keys = []  # every item value the kernel reads
        if "gain" in spec.needs:
            g = opts.get("gain", "linear")
            self.gain = resolve_gain(g)
            self.gain_key = "gain:" + (g if isinstance(g, str) else f"id{id(g)}")
            self.keys.append(self.gain_key)
            if "discount" in opts:
                self.discount = _cached(resolve_discount(
                    opts["discount"], opts["log_base"], normalized=spec.normalized,
                    metric=label,
                ))
        if "rel" in spec.needs:
            self.rel_key = f"rel:{opts.get('threshold')!r}"
            self.keys.append(self.rel_key)
        if "positive" in spec.needs:  # whether each item's gain is positive
            self.keys.append("pos:" + self.gain_key)
        self.keys += [key for key in ("judged", "pool") if key in spec.needs]
        if "grades" in spec.needs:
            self.keys += [f"grade:{g}" for g in range(1, opts["max_grade"] + 1)]
        ideal = spec.needs_ideal
        self.needs_ideal = bool(ideal(opts) if callable(ideal) else ideal)
        #: Positions read: the cut-off, ``max_docs`` of a whole-ranking measure,
        #: or None (every position, or down to R for R-precision).
        self.depth = k if spec.takes_k else opts.get("max_docs")
        self.reads_to_r = spec.reads_to_r
        if not spec.takes_k and not spec.full:
            self.depth = 1  # no position (num_rel), or R-precision: the engine adds R

    @property
    def threshold(self):
        return self.options.get("threshold")


def _cached(fn):
    cache = {}

    def f(n):
        if n not in cache:
            cache[n] = fn(n)
        return cache[n]

    return f


def split_request(item, must="metrics must be names"):
    """``(name, options)`` of a metric name or of a ``(name, options)`` pair.

    ``must`` starts the error message, naming the argument.
    """
    if isinstance(item, str):
        return item, {}
    if (isinstance(item, tuple) and len(item) == 2 and isinstance(item[0], str)
            and isinstance(item[1], dict)):
        return item
    raise InvalidParameterError(
        f"{must} such as 'ndcg@10' or (name, options) pairs, got {short_repr(item)}."
    )


def as_metric_list(metrics, arg="metrics"):
    """A metric name, a ``(name, options)`` pair or an iterable of them, as a list."""
    if isinstance(metrics, str) or (
        isinstance(metrics, tuple) and len(metrics) == 2 and isinstance(metrics[0], str)
        and isinstance(metrics[1], dict)
    ):
        return [metrics]
    try:
        out = list(metrics)
    except TypeError:
        raise InvalidParameterError(
            f"{arg} must be a name such as 'ndcg@10' or a list of names or (name, "
            f"options) pairs, got {type(metrics).__name__}."
        ) from None
    if not out:
        raise InvalidParameterError(
            f"{arg} is empty; name at least one metric, e.g. 'ndcg@10'."
        )
    return out


def make_requests(metrics, where=None):
    """Build :class:`Request` objects from names or ``(name, options)`` pairs."""
    out = []
    for item in as_metric_list(metrics):
        label, opts = split_request(item)
        spec, k, preset = parse_name(label)
        out.append(Request(spec, k, opts, label, preset=preset, where=where))
    labels = [r.label for r in out]
    for i, label in enumerate(labels):
        if label in labels[:i]:
            raise InvalidParameterError(
                f"metric {label!r} is named twice; results are keyed by name, so each "
                "must be unique. For the same metric with other options use an alias "
                "(e.g. 'map@10' and 'ap@10') or a second call."
            )
    return out


@validate
def metric_names(*, aliases=False):
    """Names of the metrics accepted by :func:`evaluate` (append ``@k`` for a cut-off).

    Parameters
    ----------
    aliases : bool, default=False
        False: the canonical names and the presets (``"ndcg_exp"``: nDCG with
        the exponential gain). True: the other accepted spellings instead, as
        a dict ``{alias: canonical name}`` (``"p"`` is ``"precision"``,
        ``"r"`` is ``"recall"``, ``"recip_rank"`` is ``"mrr"``, ...).

    Returns
    -------
    names : list of str or dict of str -> str
        Sorted names, or the aliases with the name each stands for.

    Notes
    -----
    Every name and alias may be written in upper or lower case and, except
    ``"r_precision"``, take a cut-off: ``"ndcg@10"``, ``"P@5"``.
    :func:`get_scorer_names` lists every accepted spelling, names and
    aliases together, as scikit-learn's own ``get_scorer_names`` does.

    Examples
    --------
    >>> from sk_rankmetrics import metric_names
    >>> names = metric_names()
    >>> "ndcg" in names, "ndcg_exp" in names, "map" in names, "p" in names
    (True, True, True, False)
    >>> metric_names(aliases=True)["p"], metric_names(aliases=True)["r"]
    ('precision', 'recall')
    """
    if aliases:
        return {a: name for a, name in sorted(_ALIASES.items()) if a != name}
    return sorted({*METRICS, *PRESETS})
