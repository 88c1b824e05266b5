"""A wrapper that lets group-size rankers (LightGBM, XGBoost) take query ids."""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray
from sklearn.base import BaseEstimator, MetaEstimatorMixin, clone
from sklearn.utils.validation import check_is_fitted


class QueryGroupRanker(MetaEstimatorMixin, BaseEstimator):
    r"""Fit a ranker that wants contiguous queries and group sizes, from ``qid``.

    ``LGBMRanker.fit(X, y, group=sizes)`` (and ``XGBRanker`` with ``group=``
    or ``qid=``) needs the rows of each query to be contiguous and the sizes
    of the queries in order. Under cross-validation the sizes must be those
    of the training fold, which a ``params={"group": sizes}`` for the whole
    data cannot give. This wrapper's ``fit`` takes ``qid`` instead (one id
    per row, split with ``X`` by scikit-learn like any per-sample metadata),
    sorts the fold's rows by ``qid`` (stable), computes the group sizes and
    fits a clone of ``ranker``. ``predict`` is the ranker's, row for row in
    the order of ``X``. The group sizes passed on are, in sorted ``qid``
    order,

    .. math::

        n_q = \left|\{i : \mathrm{qid}_i = q\}\right| .

    Parameters
    ----------
    ranker : estimator
        A ranker whose ``fit`` takes ``group=`` sizes of contiguous queries,
        such as ``lightgbm.LGBMRanker`` or ``xgboost.XGBRanker``.

    Attributes
    ----------
    ranker_ : estimator
        The fitted clone of ``ranker``.

    Notes
    -----
    With metadata routing on, request ``qid`` for fit:
    ``QueryGroupRanker(LGBMRanker()).set_fit_request(qid=True)``; with it off,
    ``cross_validate(..., params={"qid": qid})`` passes it to ``fit``
    directly. Sample weights are not passed on (LightGBM weights rows,
    XGBoost weights queries); fit the ranker yourself to use them.

    Examples
    --------
    >>> from lightgbm import LGBMRanker  # doctest: +SKIP
    >>> from sk_rankmetrics import QueryGroupRanker
    >>> model = QueryGroupRanker(LGBMRanker(n_estimators=20))  # doctest: +SKIP
    >>> model.fit(X, y, qid=qid).predict(X)  # doctest: +SKIP
    """

    def __init__(self, ranker: Any) -> None:
        self.ranker = ranker

    def fit(self, X: ArrayLike, y: ArrayLike, qid: ArrayLike) -> QueryGroupRanker:
        r"""Sort the rows by ``qid`` and fit the ranker with group sizes.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Features of the query-document pairs.
        y : array-like of shape (n_samples,)
            Relevance of each query-document pair.
        qid : array-like of shape (n_samples,)
            Query id of each row; queries need not be contiguous or sorted.

        Returns
        -------
        self : QueryGroupRanker
            The fitted wrapper.

        Notes
        -----
        The group sizes are :math:`n_q = |\{i : \mathrm{qid}_i = q\}|` for
        each ``q`` in sorted order, matching the sorted rows.

        Examples
        --------
        >>> import numpy as np
        >>> from sk_rankmetrics import QueryGroupRanker
        >>> class ShowGroups:
        ...     def fit(self, X, y, group):
        ...         self.group = group
        ...         return self
        ...     def get_params(self, deep=True):
        ...         return {}
        >>> X = np.zeros((5, 1))
        >>> model = QueryGroupRanker(ShowGroups()).fit(X, [0, 1, 0, 1, 2], qid=[7, 3, 7, 3, 7])
        >>> model.ranker_.group.tolist()
        [2, 3]
        """
        if qid is None:
            raise ValueError(
                "qid is None; QueryGroupRanker.fit needs one query id per row of X."
            )
        q = np.asarray(qid.to_numpy() if hasattr(qid, "to_numpy") else qid)
        n = X.shape[0] if hasattr(X, "shape") else len(X)  # type: ignore[arg-type]  # sized
        if q.ndim != 1 or q.shape[0] != n:
            raise ValueError(
                f"qid must be 1-D with one query id per row of X ({n}), got shape "
                f"{q.shape}."
            )
        order = np.argsort(q, kind="stable")
        _, sizes = np.unique(q[order], return_counts=True)
        self.ranker_ = clone(self.ranker).fit(
            _take_rows(X, order), _take_rows(y, order), group=sizes
        )
        return self

    def predict(self, X: ArrayLike) -> NDArray[np.float64]:
        """Scores of the fitted ranker, in the order of ``X``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Features of the query-document pairs to score.

        Returns
        -------
        score : ndarray of shape (n_samples,)
            The ranker's score of each row; higher ranks earlier.

        Notes
        -----
        The ranker scores each row on its own, so the order of the rows of
        ``X`` (and their ``qid``) does not change the scores.

        Examples
        --------
        >>> import numpy as np
        >>> from sklearn.linear_model import LinearRegression
        >>> from sk_rankmetrics import QueryGroupRanker
        >>> class GroupIgnoringRegressor(LinearRegression):
        ...     def fit(self, X, y, group=None):
        ...         return super().fit(X, y)
        >>> X = np.array([[0.0], [1.0], [2.0], [3.0]])
        >>> model = QueryGroupRanker(GroupIgnoringRegressor())
        >>> model.fit(X, [0, 1, 0, 1], qid=[1, 1, 2, 2]).predict(X).round(2).tolist()
        [0.3, 0.5, 0.7, 0.9]
        """
        check_is_fitted(self, "ranker_")
        return self.ranker_.predict(X)


def _take_rows(x: Any, order: NDArray[np.intp]) -> Any:
    """Rows ``order`` of an array, sparse matrix, DataFrame or Series."""
    if hasattr(x, "iloc"):
        return x.iloc[order]
    if hasattr(x, "shape"):
        return x[order]
    return np.asarray(x)[order]
