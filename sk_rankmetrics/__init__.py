"""sk_rankmetrics: ranking metrics for scikit-learn.

nDCG, DCG, CG, MAP@k, precision@k, recall@k, hit rate, MRR and R-precision on
``y_true`` / ``y_score`` matrices in the scikit-learn convention, with the
conventions of scikit-learn, trec_eval, XGBoost/LightGBM and ranx as options.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from . import _dask  # noqa: F401  (registers the Dask backend; imports no Dask)
from ._utils.version import __version__

# Public names and the private module that defines each. They are imported on
# first use (module-level ``__getattr__``, PEP 562, as scikit-learn and SciPy
# do), so that ``import sk_rankmetrics`` and the command line import neither
# scikit-learn nor pandas until a feature needs them.
_LAZY = {
    "ComparisonReport": "_stats.report",
    "compare": "_stats.compare",
    "compare_estimators": "_stats.estimators",
    "detectable_difference": "_stats.power",
    "leaderboard": "_stats.leaderboard",
    "LeaderboardReport": "_stats.leaderboard_report",
    "LeaderboardDisplay": "_plot.leaderboard",
    "topics_needed": "_stats.power",
    "QueryDifferenceDisplay": "_plot.query_difference",
    "QueryGroupRanker": "_sklearn.group_ranker",
    "MetricAtKDisplay": "_plot.metric_at_k",
    "evaluate_embeddings": "_catalogue.embeddings",
    "ExposureLorenzDisplay": "_plot.exposure",
    "LongTailDisplay": "_plot.exposure",
    "aplt_score": "_beyond.functions",
    "arp_score": "_beyond.functions",
    "coverage_score": "_beyond.functions",
    "entropy_score": "_beyond.functions",
    "gini_score": "_beyond.functions",
    "ild_score": "_beyond.functions",
    "novelty_score": "_beyond.functions",
    "personalization_score": "_beyond.functions",
    "serendipity_score": "_beyond.functions",
    "bpref_score": "_evaluation.metric_functions",
    "cumulative_gain_score": "_evaluation.metric_functions",
    "dcg_score": "_evaluation.metric_functions",
    "err_score": "_evaluation.metric_functions",
    "evaluate": "_evaluation.evaluate",
    "f1_at_k_score": "_evaluation.metric_functions",
    "hit_rate_score": "_evaluation.metric_functions",
    "mean_average_precision_score": "_evaluation.metric_functions",
    "ndcg_score": "_evaluation.metric_functions",
    "precision_at_k_score": "_evaluation.metric_functions",
    "r_precision_score": "_evaluation.metric_functions",
    "rbp_score": "_evaluation.metric_functions",
    "recall_at_k_score": "_evaluation.metric_functions",
    "reciprocal_rank_score": "_evaluation.metric_functions",
    "metric_names": "_metrics.registry",
    "EvaluationResult": "_evaluation.result",
    "evaluate_ranked": "_files.lists",
    "evaluate_run": "_files.runs",
    "fuse": "_files.fusion",
    "optimize_fusion": "_files.fusion_search",
    "qrels_from_frame": "_files.frames",
    "run_from_frame": "_files.frames",
    "RankingScorer": "_sklearn.scorers",
    "get_scorer": "_sklearn.scorers",
    "get_scorer_names": "_sklearn.scorers",
    "get_scorers": "_sklearn.scorers",
    "make_ranking_scorer": "_sklearn.scorers",
    "read_qrels": "_files.formats",
    "read_run": "_files.formats",
    "TrecQrels": "_files.trec",
    "TrecRun": "_files.trec",
    "read_trec_qrels": "_files.trec",
    "read_trec_run": "_files.trec",
    "write_trec_run": "_files.trec",
    "InvalidParameterError": "_utils.errors",
    "RankingAccumulator": "_training.accumulator",
    "make_eval_metric": "_training.boosting",
    # Agreement: rankings, orderings of systems, assessors, qrels against qrels.
    "rbo": "_stats.rbo",
    "kendall_tau": "_stats.rank_correlation",
    "tau_ap": "_stats.rank_correlation",
    "weighted_tau": "_stats.rank_correlation",
    "AgreementResult": "_stats.assessors",
    "cohen_kappa": "_stats.assessors",
    "fleiss_kappa": "_stats.assessors",
    "krippendorff_alpha": "_stats.assessors",
    "QrelsComparison": "_stats.qrels_report",
    "compare_qrels": "_stats.qrels_agreement",
    "OrderingDisplay": "_plot.orderings",
}

if TYPE_CHECKING:  # static analysis and IDEs see the names as before
    from ._beyond.functions import (
        aplt_score,
        arp_score,
        coverage_score,
        entropy_score,
        gini_score,
        ild_score,
        novelty_score,
        personalization_score,
        serendipity_score,
    )
    from ._catalogue.embeddings import evaluate_embeddings
    from ._evaluation.evaluate import evaluate
    from ._evaluation.metric_functions import (
        bpref_score,
        cumulative_gain_score,
        dcg_score,
        err_score,
        f1_at_k_score,
        hit_rate_score,
        mean_average_precision_score,
        ndcg_score,
        precision_at_k_score,
        r_precision_score,
        rbp_score,
        recall_at_k_score,
        reciprocal_rank_score,
    )
    from ._evaluation.result import EvaluationResult
    from ._files.formats import read_qrels, read_run
    from ._files.frames import qrels_from_frame, run_from_frame
    from ._files.fusion import fuse
    from ._files.fusion_search import optimize_fusion
    from ._files.lists import (
        evaluate_ranked,
    )
    from ._files.runs import evaluate_run
    from ._files.trec import TrecQrels, TrecRun, read_trec_qrels, read_trec_run, write_trec_run
    from ._metrics.registry import metric_names
    from ._plot.exposure import ExposureLorenzDisplay, LongTailDisplay
    from ._plot.leaderboard import LeaderboardDisplay
    from ._plot.metric_at_k import MetricAtKDisplay
    from ._plot.orderings import OrderingDisplay
    from ._plot.query_difference import QueryDifferenceDisplay
    from ._sklearn.group_ranker import QueryGroupRanker
    from ._sklearn.scorers import (
        RankingScorer,
        get_scorer,
        get_scorer_names,
        get_scorers,
        make_ranking_scorer,
    )
    from ._stats.assessors import (
        AgreementResult,
        cohen_kappa,
        fleiss_kappa,
        krippendorff_alpha,
    )
    from ._stats.compare import compare
    from ._stats.estimators import compare_estimators
    from ._stats.leaderboard import leaderboard
    from ._stats.leaderboard_report import LeaderboardReport
    from ._stats.power import detectable_difference, topics_needed
    from ._stats.qrels_agreement import compare_qrels
    from ._stats.qrels_report import QrelsComparison
    from ._stats.rank_correlation import kendall_tau, tau_ap, weighted_tau
    from ._stats.rbo import rbo
    from ._stats.report import ComparisonReport
    from ._training.accumulator import RankingAccumulator
    from ._training.boosting import make_eval_metric
    from ._utils.errors import InvalidParameterError


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f".{module}", __name__), name)
    globals()[name] = value  # later look-ups skip this function
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))



__all__ = [
    "AgreementResult",
    "ComparisonReport",
    "EvaluationResult",
    "ExposureLorenzDisplay",
    "InvalidParameterError",
    "LeaderboardDisplay",
    "LeaderboardReport",
    "LongTailDisplay",
    "MetricAtKDisplay",
    "OrderingDisplay",
    "QrelsComparison",
    "QueryDifferenceDisplay",
    "QueryGroupRanker",
    "RankingAccumulator",
    "RankingScorer",
    "TrecQrels",
    "TrecRun",
    "__version__",
    "aplt_score",
    "arp_score",
    "bpref_score",
    "cohen_kappa",
    "compare",
    "compare_estimators",
    "compare_qrels",
    "coverage_score",
    "cumulative_gain_score",
    "dcg_score",
    "detectable_difference",
    "entropy_score",
    "err_score",
    "evaluate",
    "evaluate_embeddings",
    "evaluate_ranked",
    "evaluate_run",
    "f1_at_k_score",
    "fleiss_kappa",
    "fuse",
    "get_scorer",
    "get_scorer_names",
    "get_scorers",
    "gini_score",
    "hit_rate_score",
    "ild_score",
    "kendall_tau",
    "krippendorff_alpha",
    "leaderboard",
    "make_eval_metric",
    "make_ranking_scorer",
    "mean_average_precision_score",
    "metric_names",
    "ndcg_score",
    "novelty_score",
    "optimize_fusion",
    "personalization_score",
    "precision_at_k_score",
    "qrels_from_frame",
    "r_precision_score",
    "rbo",
    "rbp_score",
    "read_qrels",
    "read_run",
    "read_trec_qrels",
    "read_trec_run",
    "recall_at_k_score",
    "reciprocal_rank_score",
    "run_from_frame",
    "serendipity_score",
    "tau_ap",
    "topics_needed",
    "weighted_tau",
    "write_trec_run",
]
