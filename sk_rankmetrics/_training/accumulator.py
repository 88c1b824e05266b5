"""RankingAccumulator: per-query values of batches, mergeable across workers."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Union

import numpy as np
from numpy.typing import ArrayLike, NDArray

from .._evaluation.reduce import reduce_results
from .._evaluation.result import EvaluationResult
from .._metrics.requests import make_requests
from .._utils.constraints import same_value
from .._utils.errors import InvalidParameterError
from .._utils.params import validate
from .._utils.types import NoRelevant
from .batches import batch_values, check_options, describe_requests

MetricsArg = Union[
    str, tuple[str, Mapping[str, Any]], Sequence[Union[str, tuple[str, Mapping[str, Any]]]]
]

_WHERE = "RankingAccumulator"


def _same_request(a, b):
    """Whether two requests are one measure with one setting (whatever the spelling)."""
    return (a.spec is b.spec and a.k == b.k and a.options.keys() == b.options.keys()
            and all(same_value(a.options[o], b.options[o]) for o in a.options)
            and same_value(a.no_relevant, b.no_relevant) and a.judged_only == b.judged_only)


class RankingAccumulator:
    r"""Per-query values of batches of predictions, reduced as one :func:`evaluate` call.

    Each :meth:`update` scores one batch (matrix rows, or long format with
    ``qid``) and keeps each query's metric values; :meth:`compute` reduces the
    values of every batch seen, and of every accumulator merged in with
    :meth:`merge`, exactly as :func:`evaluate` reduces one call on the
    concatenation of the batches:

    .. math::

        \bar m = \frac{\sum_{b} \sum_{q \in b} w_q\, m(q)}
                      {\sum_{b} \sum_{q \in b} w_q}

    over the batches ``b`` and their queries ``q`` that count (``w_q = 1``
    without ``sample_weight``).

    Parameters
    ----------
    metrics : str or list of str or (str, dict) pairs
        Metric names as :func:`evaluate` takes them (``"ndcg@10"``,
        ``"map@10"``, trec_eval's and ir_measures' names, ``(name, options)``
        pairs).
    ignore_ties : bool, default=False
        As in :func:`evaluate`: True ranks tied scores in one order (of
        equal scores the later column, or with ``qid`` the later entry,
        first) instead of taking the expected value over their orderings.
    no_relevant : {"warn", "skip"} or float, default="warn"
        As in :func:`evaluate`: the value of a query without a relevant item.
        Applied in :meth:`compute`, so the warning comes once, there.

    Attributes
    ----------
    metrics : str or list
        The metrics as given.
    ignore_ties : bool
        The tie rule.
    no_relevant : str or float
        The policy for queries without a relevant item.

    See Also
    --------
    evaluate : The same numbers from one call on all the predictions.
    make_eval_metric : This package's metrics inside LightGBM's and XGBoost's training.

    Notes
    -----
    **State.** Only per-query values are kept: for each query its id, one
    float64 value and one flag (has a relevant item) per metric, and its
    weight; never the scores or the labels. Memory grows with the number of
    queries, not with the number of items: about ``8 + 9 * n_metrics`` bytes
    per query, plus 8 with weights and 8 in long format (a sorted copy of the
    ids, to refuse a query seen twice).

    **Query ids.** In long format (``qid`` given) a query is identified by
    its id; a query must come whole in one batch, so an id seen in an earlier
    update, or in a merged accumulator, raises naming it (its two halves
    would be scored as two queries). Matrix rows (``qid=None``) are numbered
    in the order they arrive: the rows of the first update are queries
    ``0..n-1``, the next update's follow, and :meth:`merge` appends the other
    accumulator's rows after this one's. Long format and matrix rows do not
    mix in one accumulator. Matrices of different widths may be given in
    different updates (each row is scored on its own).

    **Batches are parts of a whole.** :meth:`update` takes every batch that
    is a part of what :func:`evaluate` takes: an empty batch (no pair, or a
    matrix of no rows) changes nothing, and a batch whose queries all have a
    single item (the last, short batch of an evaluation loop) is scored. The
    checks that concern the whole are made by :meth:`compute`: as
    :func:`evaluate` refuses data in which every query has a single item, it
    refuses when every query of every batch does, and it refuses an
    accumulator that holds no query.

    **Equality with evaluate.** :meth:`compute` returns the per-query values
    that ``evaluate(..., per_row=True)`` returns on the concatenated batches
    (long format: in sorted query id order; matrix rows: in order of arrival)
    and the means that ``evaluate`` returns, by the same reduction. With
    ``sample_weight`` it must be given in every update (empty ones aside) or
    in none. In a batch whose queries all have one item, per-pair and
    per-query weights have the same length: give such a batch in sorted
    ``qid`` order, where the two readings agree (otherwise it is refused).

    **Inputs.** Anything :func:`numpy.asarray` turns into an array is
    accepted, including CPU tensors of PyTorch and arrays of JAX (call
    ``.detach().cpu()`` on a tensor that needs it); neither library is
    imported.

    **Workers.** The accumulator pickles (for multiprocessing and for
    checkpoints). With ``torch.distributed``, gather every rank's accumulator
    (``torch.distributed.all_gather_object``) and merge them in rank order.

    Examples
    --------
    >>> import numpy as np
    >>> from sk_rankmetrics import RankingAccumulator, evaluate
    >>> y_true = np.array([2, 0, 1, 0, 1, 1, 0, 0])
    >>> y_score = np.array([.9, .8, .1, .3, .2, .7, .6, .5])
    >>> qid = np.array([1, 1, 1, 2, 2, 3, 3, 3])
    >>> acc = RankingAccumulator(["ndcg@2", "mrr"])
    >>> acc.update(y_true[:5], y_score[:5], qid=qid[:5])
    >>> acc.update(y_true[5:], y_score[5:], qid=qid[5:])
    >>> result = acc.compute()
    >>> result.query_ids.tolist(), round(result["ndcg@2"], 4)
    ([1, 2, 3], 0.797)
    >>> result.mean == evaluate(y_true, y_score, ["ndcg@2", "mrr"], qid=qid)
    True
    """

    @validate
    def __init__(
        self, metrics: MetricsArg, *, ignore_ties: bool = False, no_relevant: NoRelevant = "warn"
    ) -> None:
        ignore_ties, no_relevant = check_options(_WHERE, ignore_ties, no_relevant)
        self.metrics = metrics
        self.ignore_ties = ignore_ties
        self.no_relevant = no_relevant
        self._requests = make_requests(metrics, where=_WHERE)
        self.reset()

    # -- state ----------------------------------------------------------------------

    def reset(self) -> RankingAccumulator:
        """Forget every batch (the metrics and options stay).

        Returns
        -------
        self : RankingAccumulator
            This accumulator, empty.

        Examples
        --------
        >>> from sk_rankmetrics import RankingAccumulator
        >>> acc = RankingAccumulator("mrr")
        >>> acc.update([[0, 1]], [[0.2, 0.1]])
        >>> acc.reset().compute()
        Traceback (most recent call last):
        ...
        ValueError: RankingAccumulator.compute: no query was given yet; call update(...) first.
        """
        self._mode = None  # "qid" (long format) or "rows" (matrix rows)
        self._weighted = None  # whether sample_weight is given (None: no batch yet)
        # (ids, {label: values}, {label: defined}, weights or None)
        self._chunks: list[tuple[NDArray[Any], dict[str, NDArray[Any]], dict[str, NDArray[Any]],
                                 NDArray[Any] | None]] = []
        self._n_rows = 0  # rows so far (their ids are 0..n-1)
        self._seen: NDArray[Any] | None = None  # sorted query ids so far (long format)
        self._n_items = 0  # the most items of a query so far (evaluate needs 2 somewhere)
        return self

    def _check_mode(self, mode, weighted, where):
        if self._mode is not None and mode != self._mode:
            said = {"qid": "long format (qid=...)", "rows": "matrix rows (qid=None)"}
            raise InvalidParameterError(
                f"{where}: this batch is {said[mode]} but the accumulator holds "
                f"{said[self._mode]}; use one layout per accumulator."
            )
        if self._weighted is not None and weighted != self._weighted:
            raise InvalidParameterError(
                f"{where}: sample_weight is {'given' if weighted else 'missing'} here but "
                f"was {'given' if self._weighted else 'missing'} before; give it for every "
                "batch or for none (the mean over all batches needs every weight)."
            )

    def _check_new_ids(self, ids, where):
        if self._seen is None or self._seen.size == 0:
            return
        kinds = {self._seen.dtype.kind, ids.dtype.kind}
        if len(kinds) > 1 and kinds != {"i", "u"}:
            raise InvalidParameterError(
                f"{where}: qid holds ids of dtype {ids.dtype} here and of dtype "
                f"{self._seen.dtype} before; integers, strings and bytes do not mix."
            )
        pos = np.minimum(np.searchsorted(self._seen, ids), self._seen.size - 1)
        dup = self._seen[pos] == ids
        if dup.any():
            q = ids[dup][0].item()
            n = int(dup.sum())
            more = f" (and {n - 1} more)" if n > 1 else ""
            raise ValueError(
                f"{where}: query {q!r}{more} was already given in an earlier batch or a "
                "merged accumulator; a query split across batches would be scored as two "
                "queries. Give all of a query's items in one batch."
            )

    def _add(self, ids, values, defined, weights, mode, n_items):
        if mode == "qid":
            self._seen = (
                ids.copy()
                if self._seen is None
                else np.sort(np.concatenate([self._seen, ids]), kind="stable")
            )
        self._chunks.append((ids, values, defined, weights))
        self._n_rows += ids.shape[0]
        self._n_items = max(self._n_items, int(n_items))
        self._mode = mode
        self._weighted = weights is not None

    # -- batches ---------------------------------------------------------------------

    def update(
        self,
        y_true: ArrayLike,
        y_score: ArrayLike,
        qid: ArrayLike | None = None,
        sample_weight: ArrayLike | None = None,
        *,
        judged: ArrayLike | None = None,
    ) -> None:
        """Score one batch and keep its per-query values.

        An empty batch changes nothing; a batch whose queries all have a
        single item is scored (:meth:`compute` checks the whole).

        Parameters
        ----------
        y_true : array-like of shape (n_rows, n_items) or (n_pairs,)
            Relevance: a matrix (one row per query), or one entry per
            query-item pair with ``qid``.
        y_score : array-like of the shape of ``y_true``
            Predicted scores.
        qid : array-like of shape (n_pairs,), default=None
            Query ids for long format. Each query must come whole in one batch.
        sample_weight : array-like, default=None
            One weight per query (row; in long format, in sorted ``qid`` order,
            or one per pair, equal inside a query), as in :func:`evaluate`.
        judged : array-like of bool of the shape of ``y_true``, default=None
            Unjudged items, as in :func:`evaluate`.

        Raises
        ------
        ValueError
            If a query id was given in an earlier batch, and for every input
            :func:`evaluate` refuses as such (wrong shapes, NaN scores, ...),
            but not for being empty or having one item per query.
        InvalidParameterError
            If the batch's layout (long format or matrix rows) or its use of
            ``sample_weight`` differs from the earlier batches'.

        Examples
        --------
        >>> from sk_rankmetrics import RankingAccumulator
        >>> acc = RankingAccumulator("precision@1")
        >>> acc.update([[1, 0], [0, 1]], [[0.9, 0.1], [0.8, 0.2]])
        >>> acc.update([[1, 0]], [[0.3, 0.4]])
        >>> acc.compute().per_query["precision@1"].tolist()
        [1.0, 0.0, 0.0]
        """
        where = f"{_WHERE}.update"
        mode = "rows" if qid is None else "qid"
        out = batch_values(
            y_true,
            y_score,
            self._requests,
            qid=qid,
            sample_weight=sample_weight,
            judged=judged,
            ignore_ties=self.ignore_ties,
            part=True,
        )
        if out is None:  # an empty batch: nothing to keep
            return
        ids, raw, weights, n_items = out
        self._check_mode(mode, sample_weight is not None, where)
        if mode == "rows":
            n = next(iter(raw.values()))[0].shape[0]
            ids = np.arange(self._n_rows, self._n_rows + n, dtype=np.int64)
        else:
            self._check_new_ids(ids, where)
        values = {label: v for label, (v, _) in raw.items()}
        defined = {label: d for label, (_, d) in raw.items()}
        self._add(ids, values, defined, weights, mode, n_items)

    def merge(self, other: RankingAccumulator) -> RankingAccumulator:
        """Add another accumulator's queries (from another process or worker).

        Parameters
        ----------
        other : RankingAccumulator
            An accumulator of the same metrics and options, in any order and
            any spelling of their names (``"nDCG@10"`` for ``"ndcg@10"``,
            ``"P@5"`` for ``"precision@5"``): its values join this
            accumulator's under this accumulator's names. It is not changed.

        Returns
        -------
        self : RankingAccumulator
            This accumulator, now holding both.

        Raises
        ------
        InvalidParameterError
            If the metrics, their options, ``ignore_ties``, ``no_relevant``,
            the layout or the use of ``sample_weight`` differ.
        ValueError
            If both hold the same query id (long format).

        Examples
        --------
        >>> from sk_rankmetrics import RankingAccumulator
        >>> a, b = RankingAccumulator("mrr"), RankingAccumulator("mrr")
        >>> a.update([0, 1, 1, 0], [0.9, 0.1, 0.5, 0.6], qid=["q1", "q1", "q2", "q2"])
        >>> b.update([1, 0], [0.3, 0.2], qid=["q3", "q3"])
        >>> a.merge(b).compute().per_query["mrr"].tolist()
        [0.5, 0.5, 1.0]
        """
        where = f"{_WHERE}.merge"
        if not isinstance(other, RankingAccumulator):
            raise InvalidParameterError(
                f"{where}: other must be a RankingAccumulator, got {type(other).__name__}."
            )
        if other is self:
            raise InvalidParameterError(
                f"{where}: other is this accumulator; merging it into itself would count "
                "each query twice."
            )
        labels = self._check_same_setup(other, where)
        if not other._chunks:
            return self
        self._check_mode(other._mode, other._weighted, where)
        if other._mode == "qid":
            ids = np.concatenate([c[0] for c in other._chunks])
            self._check_new_ids(ids, where)
        for ids, values, defined, weights in other._chunks:
            values = {labels[label]: v for label, v in values.items()}
            defined = {labels[label]: d for label, d in defined.items()}
            if other._mode == "rows":
                ids = ids - ids[0] + self._n_rows
            self._add(ids, values, defined, weights, other._mode, other._n_items)
        return self

    def _check_same_setup(self, other, where):
        """Refuse an accumulator made otherwise; return the map from each of its
        labels to the label here of the same measure (``"nDCG@10"`` is
        ``"ndcg@10"``, ``"P@5"`` is ``"precision@5"``: the registry's aliases)."""
        mine, theirs = self._requests, other._requests
        labels = {}
        free = list(mine)
        for b in theirs:
            match = next((a for a in free if _same_request(a, b)), None)
            if match is None:
                break
            free.remove(match)
            labels[b.label] = match.label
        if free or len(labels) != len(theirs):
            raise InvalidParameterError(
                f"{where}: the accumulators compute different metrics or options "
                f"({describe_requests(mine)} here, {describe_requests(theirs)} in other); "
                "merge only accumulators made alike."
            )
        for name in ("ignore_ties", "no_relevant"):
            a, b = getattr(self, name), getattr(other, name)
            if not same_value(a, b):
                raise InvalidParameterError(
                    f"{where}: {name}={a!r} here but {name}={b!r} in other; merge only "
                    "accumulators made alike."
                )
        return labels

    # -- result -----------------------------------------------------------------------

    def compute(self) -> EvaluationResult:
        """Per-query values and means of every batch so far.

        Returns
        -------
        result : EvaluationResult
            ``query_ids`` (long format: sorted; matrix rows: their running
            numbers), ``per_query`` (NaN where ``no_relevant="skip"`` drops a
            query) and ``mean``: what :func:`evaluate` gives on the
            concatenated batches.

        Raises
        ------
        ValueError
            If no query was given (only empty batches, or none), or if every
            query of every batch has a single item (as :func:`evaluate`
            refuses such data).

        Examples
        --------
        >>> from sk_rankmetrics import RankingAccumulator
        >>> acc = RankingAccumulator(["ndcg@2", "map"])
        >>> acc.update([[2, 1, 0], [0, 0, 1]], [[0.3, 0.2, 0.1], [0.3, 0.2, 0.1]])
        >>> result = acc.compute()
        >>> result
        EvaluationResult(2 queries: ndcg@2=0.5000, map=0.6667)
        >>> result.per_query["map"].tolist()
        [1.0, 0.3333333333333333]
        """
        if not self._chunks:
            raise ValueError(f"{_WHERE}.compute: no query was given yet; call update(...) first.")
        if self._n_items < 2:
            what, whats = ("query", "queries") if self._mode == "qid" else ("row", "rows")
            raise ValueError(
                f"{_WHERE}.compute: every {what} of every batch has a single item "
                f"({self._n_rows} {whats}); ranking metrics are only meaningful when "
                f"{whats} have at least 2 items."
            )
        ids = np.concatenate([c[0] for c in self._chunks])
        order = np.argsort(ids, kind="stable") if self._mode == "qid" else slice(None)
        raw = {}
        for r in self._requests:
            values = np.concatenate([c[1][r.label] for c in self._chunks])[order]
            defined = np.concatenate([c[2][r.label] for c in self._chunks])[order]
            raw[r.label] = (values, defined)
        weights = None
        if self._weighted:
            weights = np.concatenate([c[3] for c in self._chunks])[order]
        per_query, mean = reduce_results(raw, self._requests, self.no_relevant, weights)
        return EvaluationResult(ids[order], per_query, mean)

    def __repr__(self) -> str:
        labels = ", ".join(r.label for r in self._requests)
        return f"RankingAccumulator([{labels}]; {self._n_rows} queries)"

    # -- pickling: the state, without the resolved requests ---------------------------

    def __getstate__(self) -> dict[str, Any]:
        state = self.__dict__.copy()
        del state["_requests"], state["_seen"]
        if len(self._chunks) > 1:  # one chunk: fewer, larger arrays to pickle
            labels = [r.label for r in self._requests]
            state["_chunks"] = [
                (
                    np.concatenate([c[0] for c in self._chunks]),
                    {k: np.concatenate([c[1][k] for c in self._chunks]) for k in labels},
                    {k: np.concatenate([c[2][k] for c in self._chunks]) for k in labels},
                    np.concatenate([c[3] for c in self._chunks]) if self._weighted else None,
                )
            ]
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        state.setdefault("_n_items", 2)  # pickled before it was kept: its batches had 2+
        self.__dict__.update(state)
        self._requests = make_requests(self.metrics, where=_WHERE)
        self._seen = None
        if self._mode == "qid" and self._chunks:
            self._seen = np.sort(np.concatenate([c[0] for c in self._chunks]), kind="stable")
