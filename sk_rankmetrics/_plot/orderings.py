"""Two orderings of the same systems side by side: a Display in scikit-learn's style.

matplotlib is imported inside :meth:`OrderingDisplay.plot` only.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from .._stats.qrels_report import QrelsComparison
from .._utils.docstrings import display_doc
from .._utils.errors import InvalidParameterError, printable, short_repr
from .style import _COLORS

if TYPE_CHECKING:
    from matplotlib.axes import Axes

#: The colours of a system in no swap, in a swap, in a significant swap.
_PLAIN, _SWAPPED, _SIGNIFICANT = "0.55", _COLORS[1], "tab:red"


def _scores(v, arg):
    if not isinstance(v, Mapping) or not v:
        raise InvalidParameterError(f"{arg} must be a non-empty mapping {{system: score}}, "
                                    f"got {short_repr(v)}.")
    try:
        values = {str(k): float(x) for k, x in v.items()}
    except (TypeError, ValueError):
        raise InvalidParameterError(f"{arg} must map each system to a number.") from None
    if not all(np.isfinite(list(values.values()))):
        raise ValueError(f"{arg} holds a score that is not finite.")
    return values


@display_doc("OrderingDisplay")
class OrderingDisplay:
    r"""Two orderings of the same systems side by side, each system joined across.

    The systems are placed top to bottom by their score under the first
    ordering (left) and under the second (right); a line joins each
    system's two places, so that crossing lines are the pairs the two
    orderings swap. With a :func:`compare_qrels` result, the lines of the
    systems in a swap are coloured, darker where the swap is significant
    under either qrels, and the title gives

    .. math::

        \tau_b = \frac{C - D}{\sqrt{(n_0 - n_a)(n_0 - n_b)}}

    and :math:`\tau_{AP}`.

    Parameters
    ----------
    scores_a, scores_b : mapping of str -> float
        ``{system: score}`` of the two orderings (higher first), over the
        same systems.
    names : (str, str), default=None
        The orderings' names, shown above each column; ``("a", "b")`` when
        None.
    metric : str, default=None
        The metric, for the title.
    swaps : list of (str, str), default=None
        Pairs of systems to colour as swapped.
    significant : list of (str, str), default=None
        Swapped pairs to colour as significant.
    title : str, default=None
        The title; by default the metric and the names.

    Attributes
    ----------
    %(attributes)s
    lines_ : dict of str -> matplotlib Line2D
        Each system's line.

    See Also
    --------
    compare_qrels : The comparison this draws.

    Notes
    -----
    Systems with equal scores take consecutive places in the order given.
    A system missing from either ordering raises an error naming it.
    matplotlib is needed by :meth:`plot` only and is imported there.

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> from sk_rankmetrics import OrderingDisplay
    >>> human = {"bm25": 0.41, "dense": 0.52, "rerank": 0.58}
    >>> judge = {"bm25": 0.47, "dense": 0.61, "rerank": 0.60}
    >>> d = OrderingDisplay(scores_a=human, scores_b=judge, names=("human", "judge"),
    ...                     swaps=[("rerank", "dense")]).plot()
    >>> [t.get_text() for t in d.ax_.texts][:3]
    ['human', 'judge', 'rerank  0.5800']
    """

    def __init__(self, *, scores_a: Mapping[str, float], scores_b: Mapping[str, float],
                 names: tuple[str, str] | None = None, metric: str | None = None,
                 swaps: Sequence[tuple[str, str]] | None = None,
                 significant: Sequence[tuple[str, str]] | None = None,
                 title: str | None = None) -> None:
        self.scores_a = scores_a
        self.scores_b = scores_b
        self.names = names
        self.metric = metric
        self.swaps = swaps
        self.significant = significant
        self.title = title

    @classmethod
    @display_doc("OrderingDisplay")
    def from_comparison(cls, comparison: QrelsComparison, *, ax: Axes | None = None,
                        **kwargs: Any) -> OrderingDisplay:
        r"""Draw the orderings of a :func:`compare_qrels` result.

        The reference qrels on the left, the other on the right; the title
        gives the metric, :math:`\tau_b` and :math:`\tau_{AP}`.

        Parameters
        ----------
        comparison : QrelsComparison
            What :func:`compare_qrels` returned.
        %(ax)s
        **kwargs : dict
            Passed to matplotlib's ``plot`` for every line.

        %(returns_drawn)s

        Notes
        -----
        A swap counts as significant when its corrected p-value is below
        ``alpha`` under either qrels.

        Examples
        --------
        >>> import matplotlib
        >>> matplotlib.use("Agg")
        >>> import numpy as np
        >>> from sk_rankmetrics import OrderingDisplay, TrecQrels, TrecRun, compare_qrels
        >>> q, d = np.array(["q1", "q1"]), np.array(["a", "b"])
        >>> runs = {"A": TrecRun(q, d, np.array([2.0, 1.0])),
        ...         "B": TrecRun(q, d, np.array([1.0, 2.0]))}
        >>> cmp = compare_qrels(TrecQrels(q, d, np.array([1, 0])),
        ...                     TrecQrels(q, d, np.array([0, 1])), runs, metric="P@1")
        >>> OrderingDisplay.from_comparison(cmp).ax_.get_title()
        'P@1: qrels_a and qrels_b (tau_b = -1.000, tau_AP = -1.000)'
        """
        if not isinstance(comparison, QrelsComparison):
            raise InvalidParameterError("comparison must be what compare_qrels returns, got "
                                        f"{type(comparison).__name__}.")
        a, b = comparison.names
        swaps = [row["pair"] for row in comparison.swaps]
        significant = [row["pair"] for row in comparison.swaps
                       if row["significant_a"] or row["significant_b"]]
        ap = "tau_AP,b" if comparison.settings["symmetric"] else "tau_AP"
        title = (f"{comparison.metric}: {a} and {b} (tau_b = {comparison.kendall_tau:.3f}, "
                 f"{ap} = {comparison.tau_ap:.3f})")
        display = cls(scores_a=comparison.means[a], scores_b=comparison.means[b],
                      names=(a, b), metric=comparison.metric, swaps=swaps,
                      significant=significant, title=title)
        return display.plot(ax=ax, **kwargs)

    @display_doc("OrderingDisplay")
    def plot(self, ax: Axes | None = None, **kwargs: Any) -> OrderingDisplay:
        """Draw the two columns of systems and the lines that join them.

        Each system is written at its place in each ordering, with its
        score; its line goes from its place on the left to its place on the
        right.

        Parameters
        ----------
        %(plot_ax)s
        **kwargs : dict
            Passed to matplotlib's ``plot`` for every line.

        Returns
        -------
        display : OrderingDisplay
            ``self``, with ``ax_``, ``figure_`` and ``lines_`` set.

        Examples
        --------
        >>> import matplotlib
        >>> matplotlib.use("Agg")
        >>> from sk_rankmetrics import OrderingDisplay
        >>> d = OrderingDisplay(scores_a={"x": 1.0, "y": 2.0},
        ...                     scores_b={"x": 3.0, "y": 0.5}).plot()
        >>> d.lines_["x"].get_ydata().tolist()
        [2, 1]
        """
        import matplotlib.pyplot as plt
        from matplotlib.lines import Line2D

        sa, sb = _scores(self.scores_a, "scores_a"), _scores(self.scores_b, "scores_b")
        for one, other, arg in ((sa, sb, "scores_b"), (sb, sa, "scores_a")):
            lacking = [s for s in one if s not in other]
            if lacking:
                raise ValueError(f"{arg} has no score for {lacking[0]!r}; both orderings "
                                 "need the same systems.")
        a, b = self.names if self.names is not None else ("a", "b")
        systems = list(sa)
        place_a = {s: i + 1 for i, s in enumerate(sorted(systems, key=lambda s: -sa[s]))}
        place_b = {s: i + 1 for i, s in enumerate(sorted(systems, key=lambda s: -sb[s]))}
        in_swap = {s for pair in (self.swaps or ()) for s in pair}
        in_significant = {s for pair in (self.significant or ()) for s in pair}
        n = len(systems)
        if ax is None:
            _, ax = plt.subplots(figsize=(6.4, max(2.5, 0.38 * n + 1.4)),
                                 constrained_layout=True)
        ax.text(0, 0.3, printable(a), ha="right", va="bottom", fontweight="bold")
        ax.text(1, 0.3, printable(b), ha="left", va="bottom", fontweight="bold")
        self.lines_ = {}
        for s in sorted(systems, key=lambda s: place_a[s]):
            color = (_SIGNIFICANT if s in in_significant else _SWAPPED if s in in_swap
                     else _PLAIN)
            style = {"color": color, "linewidth": 2.0 if s in in_swap else 1.2,
                     "marker": "o", **kwargs}
            (line,) = ax.plot([0, 1], [place_a[s], place_b[s]], **style)
            self.lines_[s] = line
            ax.text(-0.04, place_a[s], f"{printable(s)}  {sa[s]:.4f}", ha="right",
                    va="center", color=color if s in in_swap else "black")
        for s in sorted(systems, key=lambda s: place_b[s]):
            ax.text(1.04, place_b[s], f"{sb[s]:.4f}  {printable(s)}", ha="left",
                    va="center",
                    color=self.lines_[s].get_color() if s in in_swap else "black")
        handles = []
        if in_swap - in_significant:
            handles.append(Line2D([], [], color=_SWAPPED, linewidth=2.0, label="in a swap"))
        if in_significant:
            handles.append(Line2D([], [], color=_SIGNIFICANT, linewidth=2.0,
                                  label="in a significant swap"))
        if handles:
            ax.legend(handles=handles, loc="upper center", bbox_to_anchor=(0.5, 0.0),
                      ncol=len(handles), frameon=False, fontsize="small")
        ax.set_xlim(-1.1, 2.1)
        ax.set_ylim(n + 0.6, 0.0)
        ax.axis("off")
        metric = self.metric or "score"
        ax.set_title(self.title or f"{metric}: {a} and {b}")
        self.ax_ = ax
        self.figure_ = ax.figure
        return self
