"""sk_rankmetrics: ranking metrics for scikit-learn.

nDCG, DCG, CG, MAP@k, precision@k, recall@k, hit rate, MRR and R-precision on
``y_true`` / ``y_score`` matrices in the scikit-learn convention, with the
conventions of scikit-learn, trec_eval, XGBoost/LightGBM and ranx as options.
"""

from ._compare import ComparisonReport, compare, compare_estimators
from ._compare_plot import QueryDifferenceDisplay
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
    "read_trec_qrels",
    "read_trec_run",
    "recall_at_k_score",
    "reciprocal_rank_score",
    "run_from_frame",
    "write_trec_run",
]
