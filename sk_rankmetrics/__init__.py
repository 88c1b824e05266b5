"""sk_rankmetrics: ranking metrics for scikit-learn.

nDCG, DCG, CG, MAP@k, precision@k, recall@k, hit rate, MRR and R-precision on
``y_true`` / ``y_score`` matrices in the scikit-learn convention, with the
conventions of scikit-learn, trec_eval, XGBoost/LightGBM and ranx as options.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

# Public names and the private module that defines each. They are imported on
# first use (module-level ``__getattr__``, PEP 562, as scikit-learn and SciPy
# do), so that ``import sk_rankmetrics`` and the command line import neither
# scikit-learn nor pandas until a feature needs them.
_LAZY = {
    "ComparisonReport": "_compare",
    "compare": "_compare",
    "compare_estimators": "_compare",
    "QueryDifferenceDisplay": "_compare_plot",
    "QueryGroupRanker": "_group_ranker",
    "MetricAtKDisplay": "_plot",
    "bpref_score": "_ranking",
    "cumulative_gain_score": "_ranking",
    "dcg_score": "_ranking",
    "err_score": "_ranking",
    "evaluate": "_ranking",
    "f1_at_k_score": "_ranking",
    "hit_rate_score": "_ranking",
    "mean_average_precision_score": "_ranking",
    "ndcg_score": "_ranking",
    "precision_at_k_score": "_ranking",
    "r_precision_score": "_ranking",
    "rbp_score": "_ranking",
    "recall_at_k_score": "_ranking",
    "reciprocal_rank_score": "_ranking",
    "metric_names": "_registry",
    "EvaluationResult": "_runs",
    "evaluate_ranked": "_runs",
    "evaluate_run": "_runs",
    "qrels_from_frame": "_runs",
    "run_from_frame": "_runs",
    "RankingScorer": "_scorer",
    "get_scorer": "_scorer",
    "get_scorer_names": "_scorer",
    "get_scorers": "_scorer",
    "make_ranking_scorer": "_scorer",
    "read_qrels": "_formats",
    "read_run": "_formats",
    "TrecQrels": "_trec",
    "TrecRun": "_trec",
    "read_trec_qrels": "_trec",
    "read_trec_run": "_trec",
    "write_trec_run": "_trec",
    "InvalidParameterError": "_validation",
}

if TYPE_CHECKING:  # static analysis and IDEs see the names as before
    from ._compare import ComparisonReport, compare, compare_estimators
    from ._compare_plot import QueryDifferenceDisplay
    from ._formats import read_qrels, read_run
    from ._group_ranker import QueryGroupRanker
    from ._plot import MetricAtKDisplay
    from ._ranking import (
        bpref_score,
        cumulative_gain_score,
        dcg_score,
        err_score,
        evaluate,
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
    from ._registry import metric_names
    from ._runs import (
        EvaluationResult,
        evaluate_ranked,
        evaluate_run,
        qrels_from_frame,
        run_from_frame,
    )
    from ._scorer import (
        RankingScorer,
        get_scorer,
        get_scorer_names,
        get_scorers,
        make_ranking_scorer,
    )
    from ._trec import TrecQrels, TrecRun, read_trec_qrels, read_trec_run, write_trec_run
    from ._validation import InvalidParameterError


def __getattr__(name):
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f".{module}", __name__), name)
    globals()[name] = value  # later look-ups skip this function
    return value


def __dir__():
    return sorted(set(globals()) | set(__all__))


__version__ = "0.1.0"

__all__ = [
    "ComparisonReport",
    "EvaluationResult",
    "InvalidParameterError",
    "MetricAtKDisplay",
    "QueryDifferenceDisplay",
    "QueryGroupRanker",
    "RankingScorer",
    "TrecQrels",
    "TrecRun",
    "__version__",
    "bpref_score",
    "compare",
    "compare_estimators",
    "cumulative_gain_score",
    "dcg_score",
    "err_score",
    "evaluate",
    "evaluate_ranked",
    "evaluate_run",
    "f1_at_k_score",
    "get_scorer",
    "get_scorer_names",
    "get_scorers",
    "hit_rate_score",
    "make_ranking_scorer",
    "mean_average_precision_score",
    "metric_names",
    "ndcg_score",
    "precision_at_k_score",
    "qrels_from_frame",
    "r_precision_score",
    "rbp_score",
    "read_qrels",
    "read_run",
    "read_trec_qrels",
    "read_trec_run",
    "recall_at_k_score",
    "reciprocal_rank_score",
    "run_from_frame",
    "write_trec_run",
]
