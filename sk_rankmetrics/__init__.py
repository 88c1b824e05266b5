"""sk_rankmetrics: ranking metrics for scikit-learn.

nDCG, DCG, CG, MAP@k, precision@k, recall@k, hit rate, MRR and R-precision on
``y_true`` / ``y_score`` matrices in the scikit-learn convention, with the
conventions of scikit-learn, trec_eval, XGBoost/LightGBM and ranx as options.
"""

from ._metrics import (
    cumulative_gain_score,
    dcg_score,
    evaluate,
    hit_rate_score,
    mean_average_precision_score,
    ndcg_score,
    precision_at_k_score,
    r_precision_score,
    recall_at_k_score,
    reciprocal_rank_score,
)
from ._plot import MetricAtKDisplay
from ._registry import metric_names

__version__ = "0.1.0"

__all__ = [
    "MetricAtKDisplay",
    "__version__",
    "cumulative_gain_score",
    "dcg_score",
    "evaluate",
    "hit_rate_score",
    "mean_average_precision_score",
    "metric_names",
    "ndcg_score",
    "precision_at_k_score",
    "r_precision_score",
    "recall_at_k_score",
    "reciprocal_rank_score",
]
