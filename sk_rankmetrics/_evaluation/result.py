"""EvaluationResult: per-query values and their means."""

from __future__ import annotations

from collections.abc import Sequence
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
        Each metric's mean over the queries that count; for a measure of the
        whole list set (see ``whole_set``), its one value.
    whole_set : tuple of str, default=()
        The beyond-accuracy measures of the whole set of lists
        (``coverage@k``, ``gini@k``, ``entropy@k``, ``personalization@k``):
        their value is in ``mean`` (and ``result[name]``) and they have no
        entry in ``per_query`` nor a column in :meth:`to_frame`, because they
        describe how the lists cover the catalogue and relate to each other,
        which no single list does. The printout shows them after "of the
        whole list set".

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

    whole_set: tuple[str, ...] = ()

    def __init__(self, query_ids: NDArray[Any], per_query: dict[str, NDArray[np.float64]],
                 mean: dict[str, float], whole_set: Sequence[str] = ()) -> None:
        self.query_ids = query_ids
        self.per_query = per_query
        self.mean = mean
        self.whole_set = tuple(whole_set)

    @property
    def metrics(self) -> list[str]:
        """Metric labels, in the order asked for."""
        return list(self.mean)

    def __getitem__(self, name: str) -> float:
        return self.mean[name]

    def __repr__(self) -> str:
        vals = ", ".join(f"{k}={v:.4f}" for k, v in self.mean.items()
                         if k not in self.whole_set)
        whole = ", ".join(f"{k}={self.mean[k]:.4f}" for k in self.whole_set)
        if whole:
            vals = (f"{vals}; " if vals else "") + f"of the whole list set: {whole}"
        return f"EvaluationResult({len(self.query_ids)} queries: {vals})"

    def to_dict(self) -> dict[Any, dict[str, float]]:
        """Per-query values in pytrec_eval's shape, ``{qid: {metric: value}}``.

        Returns
        -------
        scores : dict
            One entry per query of ``query_ids`` (in that order), each mapping
            every per-query metric to its value as a Python float: the dict
            ``pytrec_eval.RelevanceEvaluator(...).evaluate(run)`` returns, so
            code that reads it (BEIR's ``EvaluateRetrieval.evaluate``,
            MTEB) reads this one unchanged.

        Notes
        -----
        The keys are the metric labels (with trec_eval's names,
        ``"ndcg_cut_10"``, ``"P_10"``, ... as pytrec_eval prints them). A
        query that ``no_relevant="skip"`` left out holds NaN; the measures of
        the whole list set (``whole_set``), which no query has, are left out.

        Examples
        --------
        >>> from sk_rankmetrics import evaluate_run
        >>> res = evaluate_run({"q1": {"a": 1}, "q2": {"c": 1}},
        ...                    {"q1": {"a": 0.2, "b": 0.9}, "q2": {"c": 0.5}},
        ...                    ["P_1", "recip_rank"], setting="trec_eval")
        >>> res.to_dict()
        {'q1': {'P_1': 0.0, 'recip_rank': 0.5}, 'q2': {'P_1': 1.0, 'recip_rank': 1.0}}
        """
        names = [m for m in self.per_query if m not in self.whole_set]
        columns = [np.asarray(self.per_query[m], dtype=np.float64).tolist() for m in names]
        ids = np.asarray(self.query_ids).tolist()
        return {q: dict(zip(names, vals)) for q, vals in zip(ids, zip(*columns))} if names \
            else {q: {} for q in ids}

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
