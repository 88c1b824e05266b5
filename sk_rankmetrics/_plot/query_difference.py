"""The query-level difference plot of two systems: a Display in scikit-learn's style.

The per-query values are paired as :func:`sk_rankmetrics.compare` pairs
them (by query id, or by position). matplotlib is imported inside
:meth:`QueryDifferenceDisplay.plot` only.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, cast

import numpy as np
from numpy.typing import NDArray

from .._metrics.requests import split_request
from .._stats import significance as _stats
from .._stats.compare import SystemScores, choose_metrics, pair_queries, systems_of
from .._utils.docstrings import display_doc
from .._utils.errors import InvalidParameterError, counted, short_repr
from .._utils.fast import unique
from .._utils.params import validate
from .._utils.types import ArrayLike, NoRelevant, OnMissing
from .style import _COLORS

if TYPE_CHECKING:
    from matplotlib.axes import Axes

#: Up to this many queries every bar is labelled with its query id.
_MAX_LABELS = 40


def _two_systems(names: list[str],
                 systems: tuple[str, str] | None) -> tuple[str, str]:
    if systems is None:
        if len(names) != 2:
            raise InvalidParameterError(
                f"results holds {len(names)} systems ({', '.join(map(repr, names))}); name "
                "the two to plot with systems=(a, b)."
            )
        return names[0], names[1]
    if (not isinstance(systems, (tuple, list)) or len(systems) != 2
            or not all(isinstance(s, str) for s in systems)):
        raise InvalidParameterError(f"systems must be a pair of system names (a, b), got "
                                    f"{short_repr(systems)}.")
    for s in systems:
        if s not in names:
            raise InvalidParameterError(f"systems: {s!r} is not one of the systems "
                                        f"({', '.join(map(repr, names))}).")
    if systems[0] == systems[1]:
        raise InvalidParameterError(f"systems names {systems[0]!r} twice; give two systems.")
    return systems[0], systems[1]


@display_doc("QueryDifferenceDisplay")
class QueryDifferenceDisplay:
    r"""Per-query differences of two systems, sorted: the query-level difference plot.

    One bar per query, of height

    .. math::

        d_q = m_a(q) - m_b(q),

    sorted from the largest to the smallest, so that the bars above zero are
    the queries where system ``a`` does better and those below where ``b``
    does. A dashed line marks the mean difference. Create it with
    :meth:`from_results` or :meth:`from_predictions`, or from differences
    you computed, then call :meth:`plot`.

    Parameters
    ----------
    differences : array-like of shape (n_queries,)
        :math:`d_q`, one per query.
    query_ids : array-like of shape (n_queries,), default=None
        The queries' ids, used as tick labels when there are few queries.
    metric : str, default=None
        The metric's name, for the title and the y label.
    names : (str, str), default=None
        The names of the two systems ``(a, b)``; ``("a", "b")`` when None.

    Attributes
    ----------
    %(attributes)s
    bars_ : matplotlib BarContainer
        The bars, in sorted order.
    mean_line_ : matplotlib Line2D
        The dashed line at the mean difference.

    See Also
    --------
    compare : Paired tests and intervals of the same differences.

    Notes
    -----
    The constructor stores its arguments unchanged; :meth:`plot` reads them.
    Ties (:math:`d_q = 0`; :meth:`from_results` and :meth:`from_predictions`
    set round-off differences to 0 as :func:`compare` does) have no visible
    bar and are counted in the x label. With at most 40 queries every bar is
    labelled with its query id; with more, the ticks give the rank of the
    bar. matplotlib is needed by
    :meth:`plot` only and is imported there.

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> from sk_rankmetrics import QueryDifferenceDisplay
    >>> display = QueryDifferenceDisplay(differences=[0.2, -0.1, 0.0, 0.4],
    ...                                  query_ids=["q1", "q2", "q3", "q4"],
    ...                                  metric="ndcg@10", names=("rerank", "bm25"))
    >>> display = display.plot()
    >>> display.ax_.get_title()
    'ndcg@10 per query: rerank - bm25'
    >>> [t.get_text() for t in display.ax_.get_xticklabels()]
    ['q4', 'q1', 'q3', 'q2']
    """

    def __init__(self, *, differences: ArrayLike, query_ids: ArrayLike | None = None,
                 metric: str | None = None, names: tuple[str, str] | None = None) -> None:
        self.differences = differences
        self.query_ids = query_ids
        self.metric = metric
        self.names = names

    @classmethod
    @validate
    @display_doc("QueryDifferenceDisplay")
    def from_results(cls, results: Mapping[str, SystemScores], *, metric: str | None = None,
                     systems: tuple[str, str] | None = None, on_missing: OnMissing = "raise",
                     ax: Axes | None = None, **kwargs: Any) -> QueryDifferenceDisplay:
        """Plot the per-query differences of two scored systems.

        .. math::

            d_q = m_a(q) - m_b(q)

        for the queries both systems have a value for.

        Parameters
        ----------
        results : mapping of str -> EvaluationResult, mapping or array-like
            ``{system name: scores}``, as for :func:`compare`.
        metric : str, default=None
            The metric to plot; None when the systems have a single metric.
        systems : (str, str), default=None
            The two systems ``(a, b)``; None when ``results`` holds two.
        on_missing : {"raise", "drop"}, default="raise"
            What to do with queries one system lacks, as in :func:`compare`.
        %(ax)s
        %(kwargs_bar)s

        %(returns_drawn)s

        Notes
        -----
        Queries are paired as :func:`compare` pairs them; a query whose
        value is NaN in either system is left out.

        Examples
        --------
        >>> import matplotlib
        >>> matplotlib.use("Agg")
        >>> from sk_rankmetrics import QueryDifferenceDisplay, evaluate_ranked
        >>> truth = {"u1": {"a"}, "u2": {"b"}, "u3": {"c"}}
        >>> pop = evaluate_ranked({u: ["a", "b", "c"] for u in truth}, truth, ["mrr"])
        >>> knn = evaluate_ranked({"u1": ["b", "a"], "u2": ["b"], "u3": ["c", "a"]},
        ...                       truth, ["mrr"])
        >>> d = QueryDifferenceDisplay.from_results({"knn": knn, "popular": pop})
        >>> d.differences.tolist()
        [-0.5, 0.5, 0.6666666666666667]
        """
        systems_ = systems_of(results)
        a, b = _two_systems(list(systems_), systems)
        pair = {a: systems_[a], b: systems_[b]}
        if metric is None:
            metric = choose_metrics(pair, None)
            if len(metric) != 1:
                raise InvalidParameterError(
                    f"the systems have {len(metric)} metrics ({', '.join(metric)}); name the "
                    "one to plot with metric=..."
                )
            metric = metric[0]
        elif not isinstance(metric, str):
            raise InvalidParameterError(f"metric must be a metric name, got "
                                        f"{short_repr(metric)}.")
        else:
            choose_metrics(pair, [metric])
        ids, positions = pair_queries(pair, on_missing, [])
        va = pair[a][1][metric][positions[a]]
        vb = pair[b][1][metric][positions[b]]
        keep = ~(np.isnan(va) | np.isnan(vb))
        display = cls(differences=_stats.differences(va[keep], vb[keep])[0],
                      query_ids=ids[keep], metric=metric, names=(a, b))
        return display.plot(ax=ax, **kwargs)

    @classmethod
    @validate
    @display_doc("QueryDifferenceDisplay")
    def from_predictions(cls, y_true: ArrayLike, y_scores: Mapping[str, ArrayLike], *,
                         metric: str | tuple[str, Mapping[str, Any]] = "ndcg@10",
                         qid: ArrayLike | None = None, ignore_ties: bool = False,
                         no_relevant: NoRelevant = "warn", ax: Axes | None = None,
                         exclude: ArrayLike | None = None,
                         **kwargs: Any) -> QueryDifferenceDisplay:
        """Plot the per-query differences of two systems' scores of the same items.

        .. math::

            d_q = m(y_q, s^a_q) - m(y_q, s^b_q)

        for every row (with ``qid``: every query) ``q``.

        Parameters
        ----------
        y_true : array-like or sparse matrix of shape (n_rows, n_items)
            Relevance, as for :func:`evaluate`; 1-D with ``qid``.
        y_scores : mapping of str -> array-like
            ``{name: scores}`` of the two systems, each shaped like
            ``y_true``.
        metric : str or (str, dict), default="ndcg@10"
            The metric, with its options as a pair.
        qid : array-like of shape (n_pairs,), default=None
            Query id of each entry, for long-format input.
        %(curve_ignore_ties)s
        no_relevant : "warn", "skip" or float, default="warn"
            Policy for rows without a relevant item; skipped rows are left
            out of the plot.
        %(ax)s
        %(exclude)s
        %(kwargs_bar)s

        %(returns_drawn)s

        Notes
        -----
        The queries are the rows (ids ``0..n_rows-1``) or, with ``qid``, the
        sorted query ids.

        Examples
        --------
        >>> import matplotlib
        >>> matplotlib.use("Agg")
        >>> from sk_rankmetrics import QueryDifferenceDisplay
        >>> y_true = [[1, 0, 0], [0, 1, 0]]
        >>> d = QueryDifferenceDisplay.from_predictions(
        ...     y_true, {"A": [[3, 2, 1], [3, 2, 1]], "B": [[1, 2, 3], [1, 3, 2]]}, metric="mrr")
        >>> d.differences.tolist()
        [0.6666666666666667, -0.5]
        """
        from .._evaluation.evaluate import evaluate

        if not hasattr(y_scores, "items") or len(y_scores) != 2:
            raise InvalidParameterError(
                "y_scores must be a mapping {name: scores} of exactly two systems, got "
                f"{short_repr(y_scores)}."
            )
        label = split_request(metric, must="metric must be a name")[0]
        values: dict[str, NDArray[np.float64]] = {}
        for name, score in y_scores.items():  # per_row=True: one array per system
            values[str(name)] = cast("NDArray[np.float64]", evaluate(
                y_true, score, [metric], qid=qid, per_row=True, ignore_ties=ignore_ties,
                no_relevant=no_relevant, exclude=exclude)[label])
        (a, va), (b, vb) = values.items()
        ids = unique(np.asarray(qid)) if qid is not None else np.arange(va.shape[0])
        keep = ~(np.isnan(va) | np.isnan(vb))
        display = cls(differences=_stats.differences(va[keep], vb[keep])[0],
                      query_ids=ids[keep], metric=label, names=(a, b))
        return display.plot(ax=ax, **kwargs)

    @display_doc("QueryDifferenceDisplay")
    def plot(self, ax: Axes | None = None, **kwargs: Any) -> QueryDifferenceDisplay:
        """Draw the sorted per-query differences.

        One bar :math:`d_q` per query, largest first, with a line at zero
        and a dashed line at the mean difference.

        Parameters
        ----------
        %(plot_ax)s
        **kwargs : dict
            Passed to matplotlib's ``bar`` (``color`` replaces the colours
            of the three groups).

        Returns
        -------
        display : QueryDifferenceDisplay
            ``self``, with ``ax_``, ``figure_``, ``bars_`` and ``mean_line_``
            set.

        Examples
        --------
        >>> import matplotlib
        >>> matplotlib.use("Agg")
        >>> from sk_rankmetrics import QueryDifferenceDisplay
        >>> d = QueryDifferenceDisplay(differences=[0.1, -0.3, 0.2]).plot()
        >>> [round(float(b.get_height()), 1) for b in d.bars_]
        [0.2, 0.1, -0.3]
        """
        import matplotlib.pyplot as plt
        from matplotlib.patches import Patch
        from matplotlib.ticker import MaxNLocator

        d = np.asarray(self.differences, dtype=np.float64)
        if d.ndim != 1 or d.size == 0:
            raise ValueError(f"differences must be a non-empty 1-D array, got shape {d.shape}.")
        ids = None if self.query_ids is None else np.asarray(self.query_ids)
        if ids is not None and ids.shape != d.shape:
            raise ValueError(f"query_ids has shape {ids.shape} but differences has "
                             f"{d.shape}; give one id per difference.")
        a, b = self.names if self.names is not None else ("a", "b")
        metric = self.metric or "metric"
        if ax is None:
            _, ax = plt.subplots(figsize=(max(6.4, min(12.0, 0.18 * d.size + 3)), 4.2),
                                 constrained_layout=True)
        order = np.argsort(-d, kind="stable")
        ds = d[order]
        n = ds.size
        x = np.arange(1, n + 1)
        group = np.where(ds > 0, 0, np.where(ds < 0, 1, 2))
        colors = [_COLORS[g] for g in group]
        kwargs.setdefault("width", 0.8 if n <= 100 else 1.0)
        if "color" not in kwargs:
            kwargs["color"] = colors
        self.bars_ = ax.bar(x, ds, **kwargs)
        ax.axhline(0.0, color="black", linewidth=0.8)
        mean = float(d.mean())
        self.mean_line_ = ax.axhline(mean, color="0.25", linestyle="--", linewidth=1.2)
        counts = np.bincount(group, minlength=3)
        handles = [
            Patch(color=_COLORS[0], label=f"{a} higher ({counted(counts[0], 'query')})"),
            Patch(color=_COLORS[1], label=f"{b} higher ({counted(counts[1], 'query')})"),
            self.mean_line_,
        ]
        self.mean_line_.set_label(f"mean difference {mean:+.4f}")
        ax.legend(handles=handles, loc="best", fontsize="small")
        ax.set_title(f"{metric} per query: {a} - {b}")
        ax.set_ylabel(f"{metric} difference ({a} - {b})")
        ties = f", {counted(counts[2], 'tie')}" if counts[2] else ""
        ax.set_xlabel(f"queries, sorted by difference ({counted(n, 'query')}{ties})")
        ax.set_xlim(0.5 - 0.1 * (n > 100), n + 0.5 + 0.1 * (n > 100))
        if ids is not None and n <= _MAX_LABELS:
            ax.set_xticks(x)
            ax.set_xticklabels([str(i) for i in ids[order]], rotation=90,
                               fontsize="small" if n > 15 else None)
        else:
            ax.xaxis.set_major_locator(MaxNLocator(nbins=10, integer=True))
        self.ax_ = ax
        self.figure_ = ax.figure
        return self
