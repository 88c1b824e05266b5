"""compare_estimators: per-query values under cross-validation."""

from __future__ import annotations

import inspect
import numbers
import warnings
from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Protocol

import numpy as np

from .._metrics.requests import as_metric_list, split_request
from .._utils.arrays import as_ids
from .._utils.errors import InvalidParameterError, short_repr
from .._utils.fast import unique
from .._utils.nonzero import flatnonzero
from .._utils.params import RESPONSE_METHODS, validate
from .._utils.types import ArrayLike, Correction, Metrics, NoRelevant, ResponseMethod, Test
from .compare import compare

if TYPE_CHECKING:
    from .report import ComparisonReport


class Splitter(Protocol):
    """A cross-validation splitter, as scikit-learn's (``KFold``, ``GroupKFold``...)."""

    def split(self, X: Any, y: Any = ..., groups: Any = ...) -> Iterator[tuple[Any, Any]]:
        """(train, test) index arrays of each fold."""
        ...

# -- estimators under cross-validation ---------------------------------------------------


def _n_samples(x):
    if hasattr(x, "shape") and len(x.shape):
        return int(x.shape[0])
    return len(x)


def _take(x, idx):
    if hasattr(x, "iloc"):
        return x.iloc[idx]
    if hasattr(x, "shape"):
        return x[idx]
    return np.asarray(x)[idx]


def _estimators(estimators):
    if isinstance(estimators, Mapping):
        items = list(estimators.items())
        bad = [k for k, _ in items if not isinstance(k, str)]
        if bad:
            raise InvalidParameterError("estimators must be keyed by names (strings), got the "
                                        f"key {short_repr(bad[0])}.")
    else:
        try:
            ests = list(estimators)
        except TypeError:
            raise InvalidParameterError(
                "estimators must be a mapping {name: estimator} or a list of estimators, got "
                f"{type(estimators).__name__}."
            ) from None
        base = [type(e).__name__ for e in ests]
        items = [(n if base.count(n) == 1 else f"{n} ({base[:i + 1].count(n)})", e)
                 for i, (n, e) in enumerate(zip(base, ests))]
    if len(items) < 2:
        raise ValueError(f"estimators holds {len(items)} estimator(s); a comparison needs at "
                         "least two.")
    for name, est in items:
        if not hasattr(est, "fit"):
            raise InvalidParameterError(f"estimators[{name!r}] has no fit method; give "
                                        "scikit-learn estimators.")
    return items


def _splits(cv, X, y, qid, n):
    from sklearn.model_selection import GroupKFold, KFold

    if isinstance(cv, numbers.Integral) and not isinstance(cv, (bool, np.bool_)):
        if cv < 2:
            raise InvalidParameterError(f"compare_estimators: cv={cv} is not accepted; give "
                                        "a number of folds >= 2, a splitter or a list of "
                                        "(train, test) index arrays.")
        cv = GroupKFold(n_splits=int(cv)) if qid is not None else KFold(n_splits=int(cv))
    if isinstance(cv, (str, bytes, Mapping)) or not (hasattr(cv, "__iter__")
                                                     or hasattr(cv, "split")):
        raise InvalidParameterError(f"compare_estimators: cv={short_repr(cv)} is not accepted; "
                                    "give a number of folds >= 2, a splitter (such as "
                                    "GroupKFold()) or a list of (train, test) index arrays.")
    if hasattr(cv, "split"):
        try:
            with warnings.catch_warnings():
                # Splitters that do not read groups say so; whether queries stay
                # whole is checked below.
                warnings.filterwarnings("ignore", message="The groups parameter is ignored")
                splits = list(cv.split(X, y, groups=qid))
        except ValueError as exc:
            raise ValueError(f"compare_estimators: cv={cv!r} could not split the data: "
                             f"{exc}") from None
    else:
        splits = [(np.asarray(tr), np.asarray(te)) for tr, te in cv]
    if not splits:
        raise ValueError("compare_estimators: cv gave no split.")
    tested = np.zeros(n, dtype=np.int64)
    for _, test in splits:
        np.add.at(tested, test, 1)
    if (tested > 1).any():
        i = int(flatnonzero(tested > 1)[0])
        what = f"query {qid[i].item()!r}" if qid is not None else f"row {i}"
        raise ValueError(
            f"compare_estimators: {what} is in the test fold of {int(tested[i])} splits; "
            "each query must be tested once, so that it has one out-of-fold value per "
            "estimator (use KFold/GroupKFold, not repeated or shuffled splits)."
        )
    if qid is not None:
        for fold, (_, test) in enumerate(splits):
            inside = np.isin(qid, qid[test])
            if int(inside.sum()) != len(test):
                q = qid[inside & (np.bincount(test, minlength=n) == 0)][0].item()
                raise ValueError(
                    f"compare_estimators: the test fold of split {fold} holds part of query "
                    f"{q!r} only; every query's rows must be in one fold. Split by query: "
                    "cv=GroupKFold(...) (an int cv does that when qid is given)."
                )
    return splits, int((tested == 0).sum())


def _fold_params(fit_params, train, n):
    out = {}
    for key, value in (fit_params or {}).items():
        if hasattr(value, "__len__") and not isinstance(value, (str, bytes, Mapping)) \
                and _n_samples(value) == n:
            out[key] = _take(value, train)
        else:
            out[key] = value
    return out


def _takes_qid(estimator):
    try:
        return "qid" in inspect.signature(estimator.fit).parameters
    except (TypeError, ValueError):
        return False


@validate
def compare_estimators(estimators: Mapping[str, Any] | Sequence[Any], X: ArrayLike, y: ArrayLike, *,
                       qid: ArrayLike | None = None,
                       cv: int | Splitter | Iterable[tuple[ArrayLike, ArrayLike]] = 5,
                       scoring: Metrics, fit_params: Mapping[str, Any] | None = None,
                       response_method: ResponseMethod = RESPONSE_METHODS,
                       no_relevant: NoRelevant = "warn", ignore_ties: bool = False,
                       test: Test = "t-test", correction: Correction | None = "auto",
                       baseline: str | None = None, alpha: float = 0.05,
                       confidence_level: float = 0.95, n_resamples: int = 10_000,
                       random_state: int | None = None) -> ComparisonReport:
    r"""Cross-validate several estimators on the same splits and compare them per query.

    Each estimator is fitted on every training fold; its out-of-fold
    scores give one value per query (per row without ``qid``) of each
    metric in ``scoring``; the values of the estimators are paired by
    query and compared with :func:`compare`:

    .. math::

        m_e(q) = \mathrm{metric}\big(y_q, \hat f_e^{(-k(q))}(X_q)\big)

    where :math:`\hat f_e^{(-k)}` is estimator :math:`e` fitted without fold
    :math:`k` and :math:`k(q)` is the fold that holds query :math:`q`.

    Parameters
    ----------
    estimators : mapping of str -> estimator, or list of estimators
        The candidates (unfitted; each is cloned for every fold). A list is
        named by class names.
    X : array-like of shape (n_samples, n_features)
        Features.
    y : array-like of shape (n_samples,) or (n_samples, n_outputs)
        Relevance (with ``qid``: one grade per query-document row) or the
        targets of a multi-output / classification ranking, as the scorers of
        :func:`get_scorer` read them.
    qid : array-like of shape (n_samples,), default=None
        Query id of each row, for learning-to-rank (long) data. The folds
        then keep each query whole, and ``qid[train]`` is passed to the
        ``fit`` of estimators whose ``fit`` takes ``qid``
        (:class:`QueryGroupRanker`, ``xgboost.XGBRanker``).
    cv : int, splitter or iterable, default=5
        Number of folds (``GroupKFold`` over ``qid`` with ``qid``, ``KFold``
        without), a splitter (its ``split`` gets ``groups=qid``), or a list
        of ``(train, test)`` index arrays. Every query must be in at most one
        test fold.
    scoring : str or list of str or (str, dict) pairs
        Metric names as for :func:`evaluate` (``"ndcg@10"``,
        ``("map@10", {"threshold": 2})``...).
    fit_params : dict, default=None
        Extra arguments of every estimator's ``fit``; arrays with one entry
        per sample are split with ``X``.
    response_method : str or list of str, default=("decision_function", "predict_proba", "predict")
        Estimator methods tried in order for the scores.
    no_relevant : "warn", "skip" or float, default="warn"
        Policy for queries without a relevant item; ``"skip"`` leaves them
        out of the comparison.
    ignore_ties : bool, default=False
        Rank tied scores in one order (of equal scores the later column, or
        with ``qid`` the later entry, first) instead of their expected value.
    test : str, default="t-test"
        As in :func:`compare`: ``"t-test"``, ``"wilcoxon"``,
        ``"randomization"``, ``"bootstrap"``, ``"sign"``, ``"tukey"``,
        ``"tukey_oneway"`` or ``"randomized_tukey"``.
    correction : {"auto", "holm", "bonferroni", "fdr_bh"} or None, default="auto"
        As in :func:`compare`: Holm's, none under Tukey's tests.
    baseline : str, default=None
        As in :func:`compare`: the name of one estimator.
    alpha : float, default=0.05
        As in :func:`compare`.
    confidence_level : float, default=0.95
        As in :func:`compare`.
    n_resamples : int, default=10_000
        As in :func:`compare`.
    random_state : int, default=None
        As in :func:`compare` (the estimators keep their own).

    Returns
    -------
    report : ComparisonReport
        The comparison; ``report.per_query`` holds the out-of-fold values.

    See Also
    --------
    compare : Compare systems already scored.

    Notes
    -----
    The per-query values are those of ``cross_validate`` with this
    package's scorers on the same splits (a fold's mean of them is
    ``cross_validate``'s test score for that fold). Every estimator sees the
    same splits, and pairing by query removes the variation between queries
    from each comparison. What the test does **not** account for is the
    variation due to the training data: the queries of one fold are scored
    by the same fitted model, so their values are not independent, and a
    different draw of training data could order the estimators differently.
    The p-values answer "is this estimator better on these queries, given
    these fits", not "is this learning algorithm better on data like this"
    [1]_ [2]_; treat a small p-value near ``alpha`` with that in mind, and
    prefer many queries and several seeds of the splits. Queries in no test
    fold are left out (noted in the report).

    References
    ----------
    .. [1] Dietterich, T. G. (1998). Approximate statistical tests for
           comparing supervised classification learning algorithms. Neural
           Computation, 10(7), 1895-1923.
    .. [2] Nadeau, C. and Bengio, Y. (2003). Inference for the generalization
           error. Machine Learning, 52(3), 239-281.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.dummy import DummyRegressor
    >>> from sklearn.linear_model import Ridge
    >>> from sk_rankmetrics import compare_estimators
    >>> rng = np.random.default_rng(0)
    >>> qid = np.repeat(np.arange(40), 10)
    >>> X = rng.normal(size=(400, 3))
    >>> y = (X[:, 0] + 0.5 * rng.normal(size=400) > 0.5).astype(int)
    >>> # four folds of whole queries (cv=4 makes a GroupKFold, whose folds
    >>> # differ between scikit-learn versions)
    >>> folds = [(np.where(qid % 4 != f)[0], np.where(qid % 4 == f)[0])
    ...          for f in range(4)]
    >>> report = compare_estimators({"ridge": Ridge(), "dummy": DummyRegressor()}, X, y,
    ...                             qid=qid, cv=folds, scoring="ndcg@5",
    ...                             no_relevant="skip", random_state=0)
    >>> report.n_queries["ndcg@5"]  # one query has no relevant document: skipped
    39
    >>> print(report)  # doctest: +NORMALIZE_WHITESPACE
    #  system  ndcg@5
    a  ridge   0.9244^b
    b  dummy   0.4171
    <BLANKLINE>
    ^x: significantly better than system x (paired t-test, one comparison per
    metric, p < 0.05; 39 queries)
    <BLANKLINE>
    metric  comparison     difference  95% CI              effect   W/T/L  p (raw)  p (holm)
    ndcg@5  ridge - dummy     +0.5073  [+0.4650, +0.5465]   +3.88  39/0/0  <0.0001   <0.0001
    <BLANKLINE>
    Notes:
    - ndcg@5: 1 query with NaN in some system was left out.
    """
    from sklearn.base import clone

    from .._evaluation.evaluate import evaluate
    from .._sklearn.responses import estimator_responses

    items = _estimators(estimators)
    labels = [split_request(item, must="scoring must be metric names")[0]
              for item in as_metric_list(scoring, "scoring")]
    n = _n_samples(X)
    if _n_samples(y) != n:
        raise ValueError(f"y has {_n_samples(y)} samples but X has {n}; they must match.")
    if qid is not None:
        qid = as_ids(qid, "qid")
        if qid.shape[0] != n:
            raise ValueError(f"qid has {qid.shape[0]} entries but X has {n} samples; qid "
                             "needs one query id per row of X.")
    if not hasattr(y, "iloc"):
        y = np.asarray(y)
    splits, untested = _splits(cv, X, y, qid, n)
    collected: dict[str, tuple[list[Any], dict[str, list[Any]]]] = {
        name: ([], {m: [] for m in labels}) for name, _ in items}
    for train, test_idx in splits:
        q_test = None if qid is None else qid[test_idx]
        for name, est in items:
            params = _fold_params(fit_params, train, n)
            if qid is not None and "qid" not in params and _takes_qid(est):
                params["qid"] = qid[train]
            fitted = clone(est).fit(_take(X, train), _take(y, train), **params)
            y_true, y_score = estimator_responses(fitted, _take(X, test_idx),
                                                  _take(y, test_idx), qid=q_test,
                                                  response_method=response_method)
            values = evaluate(y_true, y_score, scoring, qid=q_test, per_row=True,
                              no_relevant=no_relevant, ignore_ties=ignore_ties)
            ids, cols = collected[name]
            ids.append(unique(q_test) if qid is not None else np.asarray(test_idx))
            for m in labels:
                cols[m].append(np.asarray(values[m], dtype=np.float64))
    results = {name: _OutOfFold(np.concatenate(ids), {m: np.concatenate(v)
                                                      for m, v in cols.items()})
               for name, (ids, cols) in collected.items()}
    report = compare(results, test=test, correction=correction, baseline=baseline,
                     alpha=alpha, confidence_level=confidence_level,
                     n_resamples=n_resamples, random_state=random_state)
    if untested:
        what = "rows" if qid is None else "rows (of queries)"
        report.notes.append(f"{untested} {what} in no test fold of cv were not scored.")
    return report


class _OutOfFold:
    """Out-of-fold per-query values of one estimator, read by :func:`compare`."""

    def __init__(self, query_ids, per_query):
        self.query_ids = query_ids
        self.per_query = per_query
