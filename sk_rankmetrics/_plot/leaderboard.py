"""The ranks of a leaderboard with their intervals: a Display in scikit-learn's style.

matplotlib is imported inside :meth:`LeaderboardDisplay.plot` only.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from .._stats.leaderboard_report import LeaderboardReport
from .._utils.docstrings import display_doc
from .._utils.errors import InvalidParameterError
from .._utils.nonzero import flatnonzero
from .._utils.types import ArrayLike

if TYPE_CHECKING:
    from matplotlib.axes import Axes

#: The colours of the systems tied with the best and of the others.
_TIED, _OTHER = "tab:blue", "0.45"


@display_doc("LeaderboardDisplay")
class LeaderboardDisplay:
    r"""Each system's rank with its rank interval, best at the top.

    One row per system, sorted by rank: a dot at its rank
    :math:`1 + \#\{l : T_l > T_j\}` and a bar over its rank interval
    :math:`[\mathrm{low}_j, \mathrm{high}_j]`, in blue for the systems tied
    with the best (their interval reaches rank 1). Create it with
    :meth:`from_report`, or from ranks you computed, then call :meth:`plot`.

    Parameters
    ----------
    systems : list of str
        System names.
    rank, rank_low, rank_high : array-like of shape (n_systems,)
        Each system's rank and the ends of its interval.
    tied_with_best : array-like of shape (n_systems,), default=None
        Whether each system may be the best; ``rank_low == 1`` when None.
    metric : str, default=None
        The metric, for the title.
    confidence_level : float, default=None
        The level of the intervals, for the title.

    Attributes
    ----------
    %(attributes)s
    bars_ : matplotlib LineCollection
        The intervals, one horizontal segment per system.
    points_ : matplotlib PathCollection
        The ranks.

    See Also
    --------
    leaderboard : Computes the ranks and intervals.

    Notes
    -----
    The constructor stores its arguments; :meth:`plot` checks and draws
    them (a rank outside its interval, or an interval outside ``1..k``, is
    an error). The figure's height grows with the number of systems, up to
    100 names; beyond, the names are left out and the y axis gives the
    order. matplotlib is needed by :meth:`plot` only.

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> from sk_rankmetrics import LeaderboardDisplay
    >>> display = LeaderboardDisplay(systems=["bm25", "dense", "hybrid"], rank=[3, 2, 1],
    ...                              rank_low=[2, 1, 1], rank_high=[3, 3, 2]).plot()
    >>> [t.get_text() for t in display.ax_.get_yticklabels()]
    ['hybrid', 'dense', 'bm25']
    """

    def __init__(self, *, systems: list[str], rank: ArrayLike, rank_low: ArrayLike,
                 rank_high: ArrayLike, tied_with_best: ArrayLike | None = None,
                 metric: str | None = None, confidence_level: float | None = None) -> None:
        self.systems = systems
        self.rank = rank
        self.rank_low = rank_low
        self.rank_high = rank_high
        self.tied_with_best = tied_with_best
        self.metric = metric
        self.confidence_level = confidence_level
        self._kind = ""  # "simultaneous" or "per-system", for the title (from_report)

    @classmethod
    @display_doc("LeaderboardDisplay")
    def from_report(cls, report: LeaderboardReport, *, ax: Axes | None = None,
                    **kwargs: Any) -> LeaderboardDisplay:
        """Plot the ranks and rank intervals of a :func:`leaderboard` report.

        .. math::

            \\mathrm{rank}_j \\in [\\mathrm{low}_j, \\mathrm{high}_j]

        Parameters
        ----------
        report : LeaderboardReport
            The leaderboard.
        %(ax)s
        **kwargs : dict
            Passed to matplotlib's ``hlines`` (the intervals).

        %(returns_drawn)s

        Notes
        -----
        The systems are drawn in the report's order, best first.

        Examples
        --------
        >>> import matplotlib
        >>> matplotlib.use("Agg")
        >>> from sk_rankmetrics import LeaderboardDisplay, leaderboard
        >>> results = {"A": [0.2, 0.4, 0.3, 0.5], "B": [0.6, 0.7, 0.8, 0.9]}
        >>> report = leaderboard(results, layout="system", random_state=0)
        >>> LeaderboardDisplay.from_report(report).ax_.get_title()
        'score: ranks with 95% simultaneous intervals'
        """
        if not isinstance(report, LeaderboardReport):
            raise InvalidParameterError(f"report must be a LeaderboardReport (from "
                                        f"leaderboard()), got {type(report).__name__}.")
        order = report.order
        display = cls(systems=order, rank=[report.rank[s] for s in order],
                      rank_low=[report.rank_low[s] for s in order],
                      rank_high=[report.rank_high[s] for s in order],
                      tied_with_best=[report.tied_with_best[s] for s in order],
                      metric=report.metric, confidence_level=report.confidence_level)
        display._kind = report.intervals.replace("_", "-")
        return display.plot(ax=ax, **kwargs)

    def _checked(self):
        names = [str(s) for s in self.systems]
        arrays = {}
        for attr in ("rank", "rank_low", "rank_high"):
            a = np.asarray(getattr(self, attr))
            if a.shape != (len(names),) or a.dtype.kind not in "iuf":
                raise ValueError(f"{attr} must hold one number per system ({len(names)}), "
                                 f"got shape {a.shape}.")
            arrays[attr] = a.astype(np.float64)
        r, lo, hi = arrays["rank"], arrays["rank_low"], arrays["rank_high"]
        bad = flatnonzero((lo > r) | (r > hi) | (lo < 1) | (hi > len(names)))
        if bad.size:
            i = int(bad[0])
            raise ValueError(f"system {names[i]!r}: rank {r[i]:g} and interval "
                             f"[{lo[i]:g}, {hi[i]:g}]; an interval holds the rank and lies "
                             f"within 1..{len(names)}.")
        tied = lo == 1 if self.tied_with_best is None else \
            np.asarray(self.tied_with_best, dtype=bool)
        if tied.shape != r.shape:
            raise ValueError(f"tied_with_best must hold one value per system, got shape "
                             f"{tied.shape}.")
        return names, r, lo, hi, tied

    @display_doc("LeaderboardDisplay")
    def plot(self, ax: Axes | None = None, **kwargs: Any) -> LeaderboardDisplay:
        """Draw the ranks and their intervals, best at the top.

        Parameters
        ----------
        %(plot_ax)s
        **kwargs : dict
            Passed to matplotlib's ``hlines`` (``colors`` replaces the two
            colours).

        Returns
        -------
        display : LeaderboardDisplay
            ``self``, with ``ax_``, ``figure_``, ``bars_`` and ``points_``
            set.

        Examples
        --------
        >>> import matplotlib
        >>> matplotlib.use("Agg")
        >>> from sk_rankmetrics import LeaderboardDisplay
        >>> d = LeaderboardDisplay(systems=["a", "b"], rank=[1, 2], rank_low=[1, 1],
        ...                        rank_high=[2, 2]).plot()
        >>> d.ax_.get_xlabel()
        'rank (1 = best)'
        """
        import matplotlib.pyplot as plt
        from matplotlib.lines import Line2D
        from matplotlib.ticker import MaxNLocator

        names, r, lo, hi, tied = self._checked()
        k = len(names)
        order = np.lexsort((np.arange(k), r))
        y = np.arange(k)[::-1].astype(np.float64)  # the best at the top
        if ax is None:
            height = min(2.0 + 0.28 * k, 30.0) if k <= 100 else 8.0
            _, ax = plt.subplots(figsize=(6.4, height), constrained_layout=True)
        colors = [_TIED if tied[i] else _OTHER for i in order]
        kwargs.setdefault("colors", colors)
        kwargs.setdefault("linewidth", 3.0 if k <= 60 else 1.5)
        self.bars_ = ax.hlines(y, lo[order] - 0.3, hi[order] + 0.3, **kwargs)
        self.points_ = ax.scatter(r[order], y, color="black", s=14 if k <= 60 else 4, zorder=3)
        if k <= 100:
            ax.set_yticks(y)
            ax.set_yticklabels([names[i] for i in order], fontsize="small" if k > 20 else None)
        else:
            ax.set_ylabel("systems, best at the top")
        ax.set_ylim(-0.7, k - 0.3)
        ax.set_xlim(0.4, k + 0.6)
        ax.set_xlabel("rank (1 = best)")
        level = "" if self.confidence_level is None else f"{self.confidence_level * 100:g}% "
        kind = self._kind
        title = f"ranks with {level}{kind + ' ' if kind else ''}intervals"
        ax.set_title(f"{self.metric}: {title}" if self.metric else title)
        handles = [Line2D([], [], color=_TIED, linewidth=3, label="tied with the best"),
                   Line2D([], [], color=_OTHER, linewidth=3, label="others"),
                   Line2D([], [], color="black", marker="o", linestyle="", markersize=4,
                          label="rank")]
        # the best systems hold the low ranks: the upper right corner is the free one
        ax.legend(handles=handles, loc="upper right", fontsize="small")
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
        ax.grid(axis="x", alpha=0.3)
        self.ax_ = ax
        self.figure_ = ax.figure
        return self
