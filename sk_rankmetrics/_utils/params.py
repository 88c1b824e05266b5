"""The parameter table: every parameter of every public function, declared once
(default, constraints, error hint, docstring text), and the ``@validate`` decorator."""

from __future__ import annotations

import functools
import inspect

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
