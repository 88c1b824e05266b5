"""EvaluationResult: per-query values and their means."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import NDArray

if TYPE_CHECKING:
    import pandas


class EvaluationResult:
    r"""Per-query values and means of several metrics.

    Parameters
    ----------
    query_ids : ndarray of shape (n_queries,)
        The evaluated queries (users): sorted for runs; in the order of the
        ranked lists for ID lists (users with truth only, then, at the end).
    per_query : dict of str -> ndarray of shape (n_queries,)
        Each metric's value per query (NaN where ``no_relevant="skip"``
        dropped the query).
    mean : dict of str -> float
        Each metric's mean over the queries that count.

    Notes
    -----
    The mean of metric :math:`m` is :math:`\frac{1}{|Q|}\sum_{q \in Q} m(q)`
    over the queries :math:`Q` that are not skipped.

    Examples
    --------
    >>> from sk_rankmetrics import evaluate_ranked
    >>> res = evaluate_ranked({"u1": ["a", "b"], "u2": ["c", "a"]},
    ...                       {"u1": {"b"}, "u2": {"c"}}, ["mrr"])
    >>> res["mrr"], res.per_query["mrr"].tolist()
    (0.75, [0.5, 1.0])
    """

    def __init__(self, query_ids: NDArray[Any], per_query: dict[str, NDArray[np.float64]],
                 mean: dict[str, float]) -> None:
        self.query_ids = query_ids
        self.per_query = per_query
        self.mean = mean

    @property
    def metrics(self) -> list[str]:
        """Metric labels, in the order asked for."""
        return list(self.mean)

    def __getitem__(self, name: str) -> float:
        return self.mean[name]

    def __repr__(self) -> str:
        vals = ", ".join(f"{k}={v:.4f}" for k, v in self.mean.items())
        return f"EvaluationResult({len(self.query_ids)} queries: {vals})"

    def to_frame(self) -> pandas.DataFrame:
        """Per-query values as a pandas DataFrame (one row per query).

        Returns
        -------
        frame : pandas.DataFrame
            Indexed by query id, one column per metric.

        Examples
        --------
        >>> from sk_rankmetrics import evaluate_ranked
        >>> res = evaluate_ranked([["a", "b"]], [{"b"}], ["mrr"])
        >>> res.to_frame()
               mrr
        query
        0      0.5
        """
        import pandas as pd

        return pd.DataFrame(self.per_query, index=pd.Index(self.query_ids, name="query"))
