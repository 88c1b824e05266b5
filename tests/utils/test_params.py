"""The parameter table drives the checks of every public entry point.

Generated from ``sk_rankmetrics._utils.params.PARAMS``: for every public
function and method, every parameter the table declares

- has the table's default in the signature;
- refuses each invalid value the table's constraints produce, with an
  ``InvalidParameterError`` (a ``ValueError`` and a ``TypeError``) that names
  the function, the parameter and what is accepted;
- accepts each valid example the table lists;

and every keyword parameter of a public function is either declared in the
table or listed below as data.
"""

from __future__ import annotations

import inspect

import matplotlib
import numpy as np
import pytest

import sk_rankmetrics as skr
from sk_rankmetrics import InvalidParameterError
from sk_rankmetrics._metrics.registry import METRICS
from sk_rankmetrics._utils.params import PARAMS, param

#: Slow (every parameter of every metric): left out by pytest -m 'not slow'.
pytestmark = pytest.mark.slow

matplotlib.use("Agg")

Y = np.array([[1, 0, 2], [0, 1, 1]])
S = np.array([[3, 2, 1], [1, 2, 3]])
QRELS = skr.TrecQrels(np.array(["q1", "q1", "q2"]), np.array(["a", "b", "c"]),
                      np.array([1.0, 2.0, 1.0]))
RUN = skr.TrecRun(np.array(["q1", "q1", "q2", "q2"]), np.array(["a", "x", "c", "y"]),
                  np.array([2.0, 1.0, 1.0, 2.0]))
REC = {"u1": ["a", "b", "c"], "u2": ["c", "a"]}
#: Agreement: two orderings of systems, two assessors' levels, a second qrels and run.
SYSTEM_MEANS = {"A": 0.2, "B": 0.5, "C": 0.4}
SYSTEM_MEANS_B = {"A": 0.3, "B": 0.6, "C": 0.1}
JUDGED = {"q1": {"a": 0, "b": 1, "c": 2, "d": 3}, "q2": {"e": 1, "f": 0}}
JUDGED_B = {"q1": {"a": 0, "b": 2, "c": 2, "d": 3}, "q2": {"e": 1, "f": 1}}
QRELS_B = skr.TrecQrels(np.array(["q1", "q1", "q2"]), np.array(["a", "x", "c"]),
                        np.array([1.0, 1.0, 2.0]))
RUN_B = skr.TrecRun(np.array(["q1", "q1", "q2", "q2"]), np.array(["a", "x", "c", "y"]),
                    np.array([1.0, 2.0, 2.0, 1.0]))
TRUTH = {"u1": {"a": 1, "c": 2}, "u2": {"c": 1}}
#: Per-query values of three systems (the baseline example names "A").
SYSTEMS = {"A": [0.2, 0.5, 0.1, 0.9, 0.4], "B": [0.3, 0.5, 0.4, 0.8, 0.6],
           "C": [0.1, 0.2, 0.3, 0.4, 0.5]}
_RNG = np.random.default_rng(0)
#: Factors of 3 users and 5 items, and held-out items (evaluate_embeddings).
EMB_U = _RNG.normal(size=(3, 2))
EMB_V = _RNG.normal(size=(5, 2))
EMB_Y = np.array([[1, 0, 0, 1, 0], [0, 2, 0, 0, 0], [0, 0, 1, 0, 1]])
LTR_QID = np.repeat(np.arange(6), 4)
LTR = (_RNG.normal(size=(24, 2)), np.tile([2, 1, 0, 0], 6))


def _estimators():
    from sklearn.dummy import DummyRegressor
    from sklearn.linear_model import Ridge

    return {"A": Ridge(), "B": DummyRegressor()}


ESTIMATORS = _estimators()

#: Parameters that carry data or objects, checked by the input layer instead.
DATA = {"y_true", "y_score", "sample_weight", "qid", "metrics", "metric", "qrels", "run",
        "recommended", "truth", "users", "estimator", "X", "y", "ax", "kwargs", "options",
        "ks", "values", "names", "path", "df", "query", "item", "relevance", "score", "tag",
        "docno", "rank", "source", "ranker", "self", "cls", "deep", "query_ids", "per_query",
        "judged", "results", "estimators", "cv", "scoring", "systems", "pairs", "stats",
        "settings", "notes", "differences", "y_scores", "other", "user_factors",
        "item_factors", "exclude", "user_bias", "item_bias", "subtopic", "items",
        "popularity", "item_features", "whole_set", "exposure", "n_head", "user_ids",
        "item_ids",
        # agreement: rankings, orderings, qrels, runs and what the reports hold
        "x", "a", "b", "qrels_a", "qrels_b", "runs", "comparison", "scores_a", "scores_b",
        "swaps", "significant", "title", "measure", "value", "interval", "n_pairs",
        "kendall_tau", "tau_ap", "intervals", "per_query_tau", "comparisons",
        "rank_low", "rank_high", "tied_with_best", "report", "collections", "scores", "means",
        "n_queries", "n_seeds", "baseline_tests", "per_query_differences"}


def _closed(display):
    import matplotlib.pyplot as plt

    plt.close(display.figure_)
    return display


def _metric_call(name):
    spec = METRICS[name]
    fn = getattr(skr, spec.function)
    return spec.function, fn, lambda **kw: fn(Y, S, **kw)


def _aplt(kw, items):
    """``["aplt@2"]`` and its training popularity (over ``items``) added to ``kw``
    when ``kw`` gives head_share=, which only aplt reads (given to a call
    without it, it is refused)."""
    if "head_share" not in kw:
        return []
    items = list(items)
    kw["popularity"] = (list(range(len(items))), items)
    return ["aplt@2"]


def _calls():
    out = [_metric_call(name) for name, spec in METRICS.items() if spec.function]
    out += [
        ("evaluate", skr.evaluate,
         lambda **kw: skr.evaluate(Y, S, ["ndcg@2", "map@2", *_aplt(kw, range(3))], **kw)),
        ("evaluate_run", skr.evaluate_run,
         lambda **kw: skr.evaluate_run(QRELS, RUN, ["ndcg", "map", "P_1", "utility"], **kw)),
        ("evaluate_ranked", skr.evaluate_ranked,
         lambda **kw: skr.evaluate_ranked(REC, TRUTH, ["ndcg", "map@2", *_aplt(kw, "abc")],
                                          **kw)),
        ("evaluate_embeddings", skr.evaluate_embeddings,
         lambda **kw: skr.evaluate_embeddings(EMB_U, EMB_V, EMB_Y,
                                              ["ndcg@2", "map@2", *_aplt(kw, range(5))], **kw)),
        ("make_ranking_scorer", skr.make_ranking_scorer,
         lambda **kw: skr.make_ranking_scorer("ndcg", **kw)),
        ("RankingScorer", skr.RankingScorer,
         lambda **kw: skr.RankingScorer("ndcg@2", **kw)),
        ("MetricAtKDisplay.from_predictions", skr.MetricAtKDisplay.from_predictions,
         lambda **kw: _closed(skr.MetricAtKDisplay.from_predictions(Y, S, ks=[1, 2], **kw))),
        ("metric_names", skr.metric_names, lambda **kw: skr.metric_names(**kw)),
        ("make_eval_metric", skr.make_eval_metric,
         lambda **kw: skr.make_eval_metric("ndcg@2", **{"library": "lightgbm", **kw})),
        ("RankingAccumulator", skr.RankingAccumulator,
         lambda **kw: skr.RankingAccumulator(["ndcg@2", "map"], **kw)),
        ("compare", skr.compare, lambda **kw: skr.compare(SYSTEMS, **kw)),
        ("compare_estimators", skr.compare_estimators,
         lambda **kw: skr.compare_estimators(ESTIMATORS, *LTR, qid=LTR_QID, cv=2,
                                             scoring="ndcg@3", **kw)),
        ("ComparisonReport.to_frame", skr.ComparisonReport.to_frame,
         lambda **kw: skr.compare(SYSTEMS, random_state=0).to_frame(**kw)),
        ("leaderboard", skr.leaderboard,
         lambda **kw: skr.leaderboard({"x": SYSTEMS, "y": SYSTEMS}, **kw)),
        ("LeaderboardReport.to_frame", skr.LeaderboardReport.to_frame,
         lambda **kw: skr.leaderboard({"x": SYSTEMS}, random_state=0).to_frame(**kw)),
        ("topics_needed", skr.topics_needed,
         lambda **kw: skr.topics_needed(**{"delta": 0.1, "sd": 0.2, **kw})),
        ("detectable_difference", skr.detectable_difference,
         lambda **kw: skr.detectable_difference(**{"n_topics": 20, "sd": 0.2, **kw})),
        ("QueryDifferenceDisplay.from_results", skr.QueryDifferenceDisplay.from_results,
         lambda **kw: _closed(skr.QueryDifferenceDisplay.from_results(
             {"A": SYSTEMS["A"], "B": SYSTEMS["B"]}, **kw))),
        ("rbo", skr.rbo, lambda **kw: skr.rbo(["a", {"b", "c"}], ["b", "a", "d"], **kw)),
        ("kendall_tau", skr.kendall_tau,
         lambda **kw: skr.kendall_tau(SYSTEM_MEANS, SYSTEM_MEANS_B, **kw)),
        ("tau_ap", skr.tau_ap, lambda **kw: skr.tau_ap(SYSTEM_MEANS_B, SYSTEM_MEANS, **kw)),
        ("weighted_tau", skr.weighted_tau,
         lambda **kw: skr.weighted_tau(SYSTEM_MEANS, SYSTEM_MEANS_B, **kw)),
        ("cohen_kappa", skr.cohen_kappa,
         lambda **kw: skr.cohen_kappa(JUDGED, JUDGED_B, **{"labels": None, **kw})),
        ("fleiss_kappa", skr.fleiss_kappa,
         lambda **kw: skr.fleiss_kappa([JUDGED, JUDGED_B, JUDGED], **kw)),
        ("krippendorff_alpha", skr.krippendorff_alpha,
         lambda **kw: skr.krippendorff_alpha([JUDGED, JUDGED_B], **kw)),
        ("compare_qrels", skr.compare_qrels,
         lambda **kw: skr.compare_qrels(QRELS, QRELS_B, {"A": RUN, "B": RUN_B},
                                        metric="ndcg", **kw)),
        ("QrelsComparison.to_frame", skr.QrelsComparison.to_frame,
         lambda **kw: skr.compare_qrels(QRELS, QRELS_B, {"A": RUN, "B": RUN_B}, metric="ndcg",
                                        n_resamples=100, random_state=0).to_frame(**kw)),
        ("QueryDifferenceDisplay.from_predictions", skr.QueryDifferenceDisplay.from_predictions,
         lambda **kw: _closed(skr.QueryDifferenceDisplay.from_predictions(
             Y, {"A": S, "B": S[:, ::-1]}, **kw))),
    ]
    return out


CALLS = _calls()
CASES = [
    (where, call, name)
    for where, fn, call in CALLS
    for name in inspect.signature(fn).parameters
    if name not in DATA and (name in PARAMS or f"{where}.{name}" in PARAMS)
]
IDS = [f"{where}.{name}" for where, _, name in CASES]


def _public_callables():
    for name in skr.__all__:
        obj = getattr(skr, name)
        if inspect.isclass(obj):
            if issubclass(obj, BaseException):
                continue
            yield name, obj.__init__
            for attr, member in vars(obj).items():
                if not attr.startswith("_") and (
                    inspect.isfunction(member) or isinstance(member, classmethod)
                ):
                    yield f"{name}.{attr}", getattr(obj, attr)
        elif callable(obj):
            yield name, obj


@pytest.mark.parametrize(("where", "fn"), list(_public_callables()),
                         ids=[w for w, _ in _public_callables()])
def test_signature_defaults_are_the_tables(where, fn):
    for name, p in inspect.signature(fn).parameters.items():
        if p.kind in (p.VAR_KEYWORD, p.VAR_POSITIONAL) or name in DATA:
            continue
        declared = PARAMS.get(f"{where}.{name}") or PARAMS.get(name)
        assert declared is not None, f"{where}: parameter {name!r} is not in the table"
        if p.default is not p.empty:
            default = declared.default
            assert p.default == default or (p.default is None and default is None), (
                f"{where}: {name}={p.default!r} in the signature, {default!r} in the table"
            )


@pytest.mark.parametrize(("where", "call", "name"), CASES, ids=IDS)
def test_invalid_values_raise_naming_the_parameter(where, call, name):
    declared = param(name, where)
    bad_values = declared.invalid_examples()
    assert bad_values, f"the table gives no invalid example for {name}"
    for bad in bad_values:
        with pytest.raises(InvalidParameterError) as info:
            call(**{name: bad})
        message = str(info.value)
        assert message.startswith(f"{where}: {name}="), message
        assert "is not accepted" in message and "Accepted: " in message, message
        assert isinstance(info.value, ValueError) and isinstance(info.value, TypeError)


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.UndefinedMetricWarning")
@pytest.mark.parametrize(("where", "call", "name"), CASES, ids=IDS)
def test_valid_examples_are_accepted(where, call, name):
    for good in param(name, where).examples:
        call(**{name: good})  # must not raise


def test_every_public_function_has_its_parameters_checked():
    checked = {where for where, _, _ in CASES}
    for where, fn, _ in CALLS:
        params = [n for n in inspect.signature(fn).parameters if n not in DATA]
        if params:
            assert where in checked, where


def test_an_option_no_metric_reads_raises():
    with pytest.raises(InvalidParameterError, match=r"threshold=2 is read by none of the "
                                                    r"requested metrics \(ndcg\)"):
        skr.evaluate_ranked(REC, TRUTH, ["ndcg"], threshold=2)
    with pytest.raises(InvalidParameterError, match=r"gains=\{1: 3\} is read by none"):
        skr.evaluate_run(QRELS, RUN, ["map"], gains={1: 3})
    # Read by one of them: fine.
    skr.evaluate_ranked(REC, TRUTH, ["ndcg", "map"], threshold=2, no_relevant="skip")


def test_an_option_that_contradicts_the_name_raises():
    with pytest.raises(InvalidParameterError, match=r"'ndcg_exp@2' fixes gain='exponential'"):
        skr.evaluate(Y, S, [("ndcg_exp@2", {"gain": "linear"})])
    with pytest.raises(InvalidParameterError, match=r"'dcg_exp' fixes gain='exponential'"):
        skr.get_scorer("dcg_exp", gain={0: 0, 1: 1, 2: 3})
    with pytest.raises(InvalidParameterError, match=r"fixes gain='exponential'"):
        skr.MetricAtKDisplay.from_predictions(Y, S, metric=("ndcg_exp", {"gain": "linear"}),
                                              ks=[1, 2])
    # Saying the same thing twice is fine.
    same = skr.evaluate(Y, S, [("ndcg_exp@2", {"gain": "exponential"})])["ndcg_exp@2"]
    assert same == skr.ndcg_score(Y, S, k=2, gain="exponential")


def test_another_librarys_function_is_not_taken_for_ours():
    import sklearn.metrics as skm

    with pytest.raises(InvalidParameterError, match=r"use sklearn.metrics.make_scorer"):
        skr.make_ranking_scorer(skm.ndcg_score)
    assert skr.make_ranking_scorer(skr.ndcg_score, k=3).metric == "ndcg@3"
