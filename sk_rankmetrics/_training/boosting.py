"""make_eval_metric: this package's metrics as LightGBM's and XGBoost's custom metrics."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Union

import numpy as np

from .._evaluation.reduce import reduce_results
from .._metrics.requests import as_metric_list, make_requests
from .._utils.errors import InvalidParameterError
from .._utils.params import validate
from .._utils.types import Library, NoRelevant
from .batches import batch_values, check_options

MetricArg = Union[
    str, tuple[str, Mapping[str, Any]], Sequence[Union[str, tuple[str, Mapping[str, Any]]]]
]

_WHERE = "make_eval_metric"

_XGB_SKLEARN = (
    "make_eval_metric: XGBoost's scikit-learn API (XGBRanker(eval_metric=...)) calls "
    "a custom metric once per query with that query's labels and scores only, and "
    "averages the values itself (a query of one item counts 1.0, no_relevant and weights "
    "cannot apply), so it cannot give this package's numbers. Train with "
    "xgboost.train(params, dtrain, evals=[(dvalid, 'valid')], custom_metric=metric, "
    "maximize=True); the ranker's parameters are XGBRanker(...).get_xgb_params()."
)


#: What every name a metric reports to LightGBM or XGBoost starts with. Neither
#: library names a metric of its own so (LightGBM records ``ndcg@k``, ``map@k``,
#: ``auc``, ``average_precision``, ``l2``, ...; XGBoost ``ndcg``, ``ndcg@n``,
#: ``ndcg@n-``, ``map@n``, ``pre@n``, ``auc``, ``aucpr``, ``error@t``, ...), so a
#: built-in metric of the same label (LightGBM's ``ndcg@10`` has exponential
#: gain, this package's linear) is never recorded in the same list.
_HOOK_PREFIX = "skr_"


def _hook_names(requests):
    """The names the libraries record: ``_HOOK_PREFIX`` + the label without
    whitespace (XGBoost's log splits its fields on whitespace and ``:``)."""
    names = [_HOOK_PREFIX + "".join(r.label.split()) for r in requests]
    for i, name in enumerate(names):
        if name in names[:i]:
            raise InvalidParameterError(
                f"{_WHERE}: {requests[names.index(name)].label!r} and {requests[i].label!r} "
                f"would both be recorded as {name!r} (the libraries' logs cannot hold "
                "whitespace in a name); name the metric once."
            )
    return names


def _library_of(x):
    """``"lightgbm"`` or ``"xgboost"`` for their data objects, else None."""
    module = type(x).__module__.split(".")[0]
    return module if module in ("lightgbm", "xgboost") else None


def _wrong_library(made, caller):
    return TypeError(
        f"{_WHERE}: this metric was made for {made} but {caller} called it; make it with "
        f"make_eval_metric(..., library={caller!r})."
    )


class BoostingMetric:
    r"""A custom evaluation metric for LightGBM or XGBoost (see :func:`make_eval_metric`).

    Calling it with what the library passes returns what the library expects:
    ``(name, value, True)`` for LightGBM, ``(name, value)`` for XGBoost (a
    list of them for several metrics). ``names`` are the names the library
    records (each metric's label after ``"skr_"``, as ``"skr_ndcg@10"``),
    ``labels`` the metrics' labels (the keys of :meth:`scores`), and
    ``greater_is_better`` is True.
    """

    greater_is_better = True

    def __init__(self, requests, library, ignore_ties, no_relevant):
        self._requests = requests
        self.library = library
        self.ignore_ties = ignore_ties
        self.no_relevant = no_relevant
        self.labels = [r.label for r in requests]
        self.names = _hook_names(requests)
        self.__name__ = self.names[0] if len(self.names) == 1 else "+".join(self.names)

    def __repr__(self):
        return f"make_eval_metric({self.labels!r}, {self.library!r})"

    def scores(self, labels, preds, group_sizes, weight=None):
        """The metrics' means on predictions grouped into consecutive queries.

        Parameters
        ----------
        labels, preds : ndarray of shape (n_samples,)
        group_sizes : ndarray of shape (n_queries,)
            Consecutive query sizes (the libraries' ``group``).
        weight : ndarray or None
            One weight per query, or one per sample (equal inside a query).

        Returns
        -------
        dict of label -> float
        """
        preds = np.asarray(preds)
        if preds.ndim != 1:
            raise ValueError(
                f"{_WHERE}: the predictions have shape {preds.shape}; a ranking metric "
                "needs one score per sample (a ranking objective such as lambdarank, "
                "rank:ndcg or rank:pairwise)."
            )
        sizes = np.asarray(group_sizes, dtype=np.int64)
        if sizes.sum() != preds.shape[0]:
            raise ValueError(
                f"{_WHERE}: the query groups cover {int(sizes.sum())} samples but there "
                f"are {preds.shape[0]} predictions; the group sizes must add up to the "
                "number of samples."
            )
        # Consecutive groups -> query codes: the long-format path, no loop over queries.
        qid = np.repeat(np.arange(sizes.shape[0], dtype=np.int64), sizes)
        if weight is not None and np.asarray(weight).size == 0:
            weight = None
        _, raw, weights, _ = batch_values(
            labels,
            preds,
            self._requests,
            qid=qid,
            sample_weight=weight,
            ignore_ties=self.ignore_ties,
        )
        return reduce_results(raw, self._requests, self.no_relevant, weights)[1]

    def __call__(self, y_true_or_preds, y_pred_or_data, weight=None, group=None):
        """``(preds, Dataset)`` (lightgbm.train), ``(y_true, y_pred, weight, group)``
        (LightGBM's scikit-learn API) or ``(predt, DMatrix)`` (xgboost.train)."""
        caller = _library_of(y_pred_or_data)
        if caller is not None and caller != self.library:
            raise _wrong_library(self.library, caller)
        if self.library == "lightgbm":
            if caller == "lightgbm":
                data = y_pred_or_data
                preds, labels = y_true_or_preds, data.get_label()
                group, weight = data.get_group(), data.get_weight()
            else:
                labels, preds = y_true_or_preds, y_pred_or_data
            if group is None:
                raise ValueError(
                    f"{_WHERE}: the evaluation data has no query groups; give "
                    "lightgbm.Dataset(..., group=sizes) or LGBMRanker.fit(..., "
                    "eval_group=[sizes])."
                )
            means = self.scores(labels, preds, group, weight)
            out = [(name, means[label], True) for name, label in zip(self.names, self.labels)]
            return out[0] if len(out) == 1 else out
        data = y_pred_or_data
        if caller is None:
            raise TypeError(_XGB_SKLEARN)
        ptr = np.asarray(data.get_uint_info("group_ptr"), dtype=np.int64)
        if ptr.size < 2:
            raise ValueError(
                f"{_WHERE}: the DMatrix has no query groups; give xgboost.DMatrix(..., "
                "qid=...) (sorted) or set_group(sizes)."
            )
        means = self.scores(data.get_label(), y_true_or_preds, np.diff(ptr), data.get_weight())
        out = [(name, means[label]) for name, label in zip(self.names, self.labels)]
        return out[0] if len(out) == 1 else out


@validate
def make_eval_metric(
    metric: MetricArg,
    library: Library,
    *,
    ignore_ties: bool = False,
    no_relevant: NoRelevant = "warn",
    **options: Any,
) -> BoostingMetric:
    r"""This package's metrics as a custom evaluation metric of LightGBM or XGBoost.

    The returned callable computes the metric on each query of an evaluation
    set (its query groups from the library's data) with this package's tie
    rule and options, and returns the mean as :func:`evaluate` does, declared
    greater-is-better. The value at iteration :math:`t` is

    .. math::

        m_t = \frac{\sum_{q} w_q\, m\big(y_q, \hat s^{(t)}_q\big)}{\sum_q w_q}

    over the evaluation queries ``q`` (``w_q = 1`` without weights), where
    :math:`\hat s^{(t)}` are the model's scores after ``t`` rounds.

    Parameters
    ----------
    metric : str or (str, dict) pair or list of them
        A metric name as :func:`evaluate` takes it (``"ndcg_exp@10"``,
        ``"map@10"``, ``"err@20"``, trec_eval's ``"P_5"``, ir_measures'
        ``"nDCG@10"``), or several (a list): they share one ranking pass and
        the library records each.
    library : {"lightgbm", "xgboost"}
        The library that calls it. For LightGBM, pass it as
        ``LGBMRanker.fit(..., eval_metric=metric)`` or
        ``lightgbm.train(..., feval=metric)``; for XGBoost, as
        ``xgboost.train(..., custom_metric=metric, maximize=True)``.
    ignore_ties : bool, default=False
        As in :func:`evaluate`: True ranks tied scores in one order (of
        equal scores the later column, or with ``qid`` the later entry,
        first) instead of taking the expected value over their orderings.
    no_relevant : {"warn", "skip"} or float, default="warn"
        As in :func:`evaluate`: the value of a query without a relevant
        item. LightGBM's and XGBoost's own nDCG count such a query as 1.
    **options
        Options of a single metric (``gain=...``, ``max_grade=...``), as in
        the pair ``(metric, options)``.

    Returns
    -------
    metric : BoostingMetric
        A callable taking what the library passes. Its ``names`` are the
        names the library records, in ``evals_result_`` and in the
        early-stopping log: each metric's label after ``"skr_"``
        (``"skr_ndcg@10"``; see Notes); its ``greater_is_better`` is True.

    Raises
    ------
    InvalidParameterError
        For an unknown metric name or option, an unknown library, or two
        names that differ only in whitespace.
    TypeError
        When XGBoost's scikit-learn API calls it (see Notes).

    See Also
    --------
    evaluate : The same numbers on predictions.
    RankingAccumulator : Per-query values of batches (deep-learning loops).

    Notes
    -----
    The query groups come from the library's data: LightGBM's ``group`` (of
    the Dataset, or ``eval_group`` of ``LGBMRanker.fit``), XGBoost's ``qid``
    or ``group`` of the DMatrix. Weights of the evaluation data are the
    queries' weights (XGBoost's ranking weights are per query; LightGBM's per
    sample must be equal inside a query). Group sizes become query codes
    (``numpy.repeat``) and the metric runs on the long-format path: no Python
    loop over queries.

    Names: the library records each metric as ``"skr_"`` followed by its
    label, whitespace left out (``"ndcg@10"`` -> ``"skr_ndcg@10"``,
    ``"RBP(p=0.8, rel=2)"`` -> ``"skr_RBP(p=0.8,rel=2)"``). The prefix keeps it
    apart from the library's own metrics, which record under the same words
    with other conventions: LightGBM's ``ndcg@10`` (with ``eval_at=[10]``) has
    exponential gain and XGBoost's ``ndcg@10`` its own tie and gain rules, and a
    custom metric reported under that name would be appended to the same list
    of ``evals_result_``, one value of each per iteration. No built-in name of
    either library (LightGBM: ``ndcg@k``, ``map@k``, ``auc``,
    ``average_precision``, ``l2``, ``binary_logloss``, ...; XGBoost: ``ndcg``,
    ``ndcg@n``, ``ndcg@n-``, ``map@n``, ``pre@n``, ``auc``, ``aucpr``,
    ``error@t``, ...) starts with ``skr_``.

    Early stopping: LightGBM reads the ``True`` of ``(name, value, True)``;
    set ``metric="None"`` in its parameters so that the built-in metric does
    not take part, or ``first_metric_only=True``. XGBoost's callable cannot
    declare a direction: pass ``maximize=True`` to ``xgboost.train`` and
    ``disable_default_eval_metric=1`` in the parameters. XGBoost prints the
    value with 6 decimals and records (and early-stops on) that printed
    value.

    XGBoost's scikit-learn API (``XGBRanker(eval_metric=...)``) calls a custom
    metric once per query without the query's weight and averages the values
    itself; it cannot give this package's numbers, so the callable raises
    there and names the ``xgboost.train`` recipe. CatBoost's custom metric
    interface (``evaluate(approxes, target, weight)``) is not given the query
    groups, so CatBoost is not supported.

    Examples
    --------
    >>> import numpy as np
    >>> from sk_rankmetrics import evaluate, make_eval_metric
    >>> metric = make_eval_metric("ndcg_exp@2", "lightgbm", no_relevant=1.0)
    >>> y_true = np.array([2, 0, 1, 0, 1, 1, 0])
    >>> y_pred = np.array([.1, .8, .3, .3, .2, .7, .6])
    >>> group = np.array([3, 2, 2])  # what LGBMRanker passes
    >>> name, value, greater_is_better = metric(y_true, y_pred, None, group)
    >>> name, round(value, 4), greater_is_better
    ('skr_ndcg_exp@2', 0.6016, True)
    >>> qid = np.repeat([0, 1, 2], group)
    >>> value == evaluate(y_true, y_pred, "ndcg_exp@2", qid=qid, no_relevant=1.0)["ndcg_exp@2"]
    True
    """
    ignore_ties, no_relevant = check_options(_WHERE, ignore_ties, no_relevant)
    if options:
        items = as_metric_list(metric, "metric")
        if len(items) != 1 or not isinstance(items[0], str):
            raise InvalidParameterError(
                f"{_WHERE}: options ({', '.join(sorted(options))}) apply to a single "
                "metric name; for several metrics give (name, options) pairs."
            )
        metric = (items[0], dict(options))
    requests = make_requests(metric, where=_WHERE)
    return BoostingMetric(requests, library, ignore_ties, no_relevant)
