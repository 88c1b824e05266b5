"""Type aliases of the public signatures, read from the parameter table.

Each ``Literal`` lists the options the table (``_utils/params.py``) accepts for
that parameter; tests/structure/test_typing.py checks that the two agree. The aliases
are plain ``typing`` objects (no ``X | Y`` at run time, for Python 3.9).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Literal, Union

import numpy as np
from numpy.typing import ArrayLike, NDArray

if TYPE_CHECKING:  # optional dependencies, named in annotations only
    import dask.bag
    import dask.dataframe
    import pandas
    import polars
    from typing_extensions import TypeAlias

#: A file path (``str`` or ``os.PathLike``).
PathLike = Union[str, os.PathLike[str]]

#: A data frame: pandas or polars.
Frame: TypeAlias = "pandas.DataFrame | polars.DataFrame"
DaskFrame: TypeAlias = "dask.dataframe.DataFrame"
DaskBag: TypeAlias = "dask.bag.Bag"

#: ``gain``: a named gain, a ``{level: gain}`` mapping or a callable of levels.
Gain = Union[
    Literal["linear", "exponential"], Mapping[Any, float], Callable[[NDArray[Any]], ArrayLike]
]
#: ``discount``: a named discount, one discount per position, or a callable of positions.
Discount = Union[Literal["log", "jarvelin"], ArrayLike, Callable[[NDArray[Any]], ArrayLike]]
#: ``no_relevant``: the value of a row without a relevant item.
NoRelevant = Union[Literal["warn", "skip"], float]
Denominator = Literal["min_k_relevant", "relevant"]
Mean = Literal["arithmetic", "geometric"]
MetricFamily = Literal["accuracy", "trec_eval", "cwl", "diversity", "beyond_list",
                       "beyond_set"]
Setting = Literal["sk_rankmetrics", "trec_eval"]
FileFormat = Literal["auto", "trec", "csv", "tsv", "parquet", "json"]
ResponseMethodName = Literal["decision_function", "predict_proba", "predict"]
#: ``response_method``: one estimator method, or several tried in order.
ResponseMethod = Union[ResponseMethodName, Sequence[ResponseMethodName]]
Test = Literal["t-test", "wilcoxon", "randomization", "bootstrap", "sign", "tukey",
               "tukey_oneway", "randomized_tukey"]
#: ``correction``: "auto" is Holm's, or none under Tukey's tests.
Correction = Literal["auto", "holm", "bonferroni", "fdr_bh"]
OnMissing = Literal["raise", "drop"]
#: ``duplicates``: a document ranked twice for one query is refused, or kept once.
Duplicates = Literal["raise", "first"]
#: ``exclude_relevant``: what an excluded item that the truth marks relevant does.
ExcludeRelevant = Literal["raise", "drop"]
ReportRows = Literal["systems", "pairs"]
#: ``ties`` of ``rbo``: Corsi and Urbano's three treatments of tied items.
RboTies = Literal["a", "b", "w"]
#: ``score`` of ``rbo``: what the unseen part of the lists is taken to hold.
RboScore = Literal["ext", "min", "max", "res", "all"]
#: ``variant`` of ``kendall_tau``: SciPy's two variants.
KendallVariant = Literal["b", "c"]
#: ``weights`` of ``cohen_kappa``: scikit-learn's weightings of disagreements.
KappaWeights = Literal["linear", "quadratic"]
#: ``level`` of ``krippendorff_alpha``: the scale of the levels.
AlphaLevel = Literal["ordinal", "nominal", "interval", "ratio"]
#: ``rows`` of ``QrelsComparison.to_frame``.
QrelsRows = Literal["systems", "pairs", "queries"]
#: ``rows`` of ``LeaderboardReport.to_frame``.
LeaderboardRows = Literal["systems", "collections", "baselines"]
#: ``aggregate`` of ``leaderboard``: the mean of per-collection means, or the Borda count.
Aggregate = Literal["mean", "borda"]
#: ``layout`` of ``leaderboard``: the levels of its nested mapping, outermost first.
Layout = Literal["collection/system", "system", "system/seed", "collection/system/seed"]
#: ``intervals`` of ``leaderboard``: simultaneous or per-system rank intervals.
RankIntervals = Literal["simultaneous", "per_system"]
#: ``design`` of ``topics_needed``: the paired t-test, the one-way ANOVA, the CI width.
Design = Literal["paired_t", "anova", "ci"]
#: ``library`` of ``make_eval_metric``: the boosting library that calls the metric.
Library = Literal["lightgbm", "xgboost"]
#: ``progress``: called as ``progress(done, total)``.
Progress = Callable[[int, int], Any]
#: ``metrics``: a name, or names and ``(name, {option: value})`` pairs.
Metrics = Union[str, Sequence[Union[str, tuple[str, Mapping[str, Any]]]]]

#: What a function returns for Dask inputs with ``compute=False``: lazy Dask
#: objects (a Dask array, Series or Delayed), typed ``Any`` (Dask is optional).
Lazy: TypeAlias = Any
#: What a metric function returns: the mean (a float), the per-row values
#: (``per_row=True``), or lazy Dask objects (``compute=False``).
Score = Union[float, NDArray[np.float64], Lazy]
