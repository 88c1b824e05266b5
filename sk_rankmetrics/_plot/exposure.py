"""The long-tail plot and the exposure Lorenz curve: Displays in scikit-learn's style.

:class:`LongTailDisplay` draws the training popularity of the items, most
popular first, with the head of :func:`aplt_score` marked;
:class:`ExposureLorenzDisplay` draws the Lorenz curve of the items' exposure
in a set of recommendation lists, with the Gini index of :func:`gini_score`.
matplotlib is imported inside ``plot`` only.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from .._beyond import data as _data
from .._beyond import kernels as _kernels
from .._files.ranked_frames import lists_from_frame
from .._inputs.id_pairs import is_frame, ranked_lists
from .._utils.docstrings import display_doc
from .._utils.params import validate


def _axes(ax):
    import matplotlib.pyplot as plt

    if ax is None:
        _, ax = plt.subplots()
    return ax


@display_doc("LongTailDisplay")
class LongTailDisplay:
    r"""The long-tail plot: training users per item, most popular first.

    .. math:: y_r = \phi(i_r), \qquad \phi(i_1) \ge \phi(i_2) \ge \dots

    with :math:`\phi(i)` the number of training users of item :math:`i` (ties
    by ascending item id). The head, shaded, is the first ``n_head`` items:
    those whose interactions first reach ``head_share`` of all of them, as
    in :func:`aplt_score`.

    Parameters
    ----------
    popularity : ndarray of shape (n_items,)
        Training users per item (or shares), most popular first.
    n_head : int
        The number of items in the head.
    head_share : float, default=0.2
        The share of interactions the head reaches (for the legend).
    name : str, default=None
        Name shown in the legend.

    Attributes
    ----------
    %(attributes)s
    line_ : matplotlib Line2D
        The popularity curve.

    Notes
    -----
    With ``popularity`` given as shares (a mapping), the curve shows shares;
    the head is the same (shares are proportional to the counts).

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> from sk_rankmetrics import LongTailDisplay
    >>> train = (["x", "y", "z", "w", "x", "x", "y"], ["a", "a", "a", "a", "b", "c", "c"])
    >>> d = LongTailDisplay.from_interactions(train)
    >>> d.popularity.tolist(), d.n_head
    ([4.0, 2.0, 1.0], 1)
    """

    def __init__(
        self,
        *,
        popularity: ArrayLike,
        n_head: int,
        head_share: float = 0.2,
        name: str | None = None,
    ) -> None:
        self.popularity = popularity
        self.n_head = n_head
        self.head_share = head_share
        self.name = name

    @classmethod
    @validate
    @display_doc("LongTailDisplay")
    def from_interactions(
        cls,
        popularity: Any,
        *,
        head_share: float = 0.2,
        name: str | None = None,
        ax: Any = None,
        **kwargs: Any,
    ) -> LongTailDisplay:
        r"""Count the training users per item and plot the long tail.

        .. math:: \phi(i) = |\{u : (u, i) \in \mathrm{train}\}|

        Parameters
        ----------
        popularity : tuple, data frame, sparse matrix or mapping
            The training interactions ``(user_ids, item_ids)``, a data frame
            with user and item columns or a users x items scipy.sparse matrix;
            or a mapping item -> share of training users (the curve then shows
            shares).
        head_share : float, default=0.2
            The share of all training interactions the head first reaches.
        %(curve_options)s

        %(returns_drawn)s

        Notes
        -----
        The head is the one :func:`aplt_score` and :func:`serendipity_score`
        use with the same ``popularity`` and ``head_share``.

        Examples
        --------
        >>> import matplotlib
        >>> matplotlib.use("Agg")
        >>> from sk_rankmetrics import LongTailDisplay
        >>> d = LongTailDisplay.from_interactions(([1, 2, 1], ["a", "a", "b"]))
        >>> d.ax_.get_xlabel()
        'items, most popular first'
        """
        pop = _data.popularity(popularity)
        order = pop.order()
        head = pop.head(head_share)
        display = cls(
            popularity=pop.weight()[order], n_head=int(head.sum()), head_share=head_share, name=name
        )
        return display.plot(ax=ax, **kwargs)

    @validate
    @display_doc("LongTailDisplay")
    def plot(self, ax: Any = None, *, name: str | None = None, **kwargs: Any) -> LongTailDisplay:
        r"""Plot the curve and shade the head.

        Draws :math:`(r, y_r)` for :math:`r = 1, \dots, n`.

        Parameters
        ----------
        %(ax)s
        name : str, default=None
            Legend name; defaults to ``self.name``.
        %(kwargs_plot)s

        Returns
        -------
        display : LongTailDisplay
            ``self``, with ``ax_``, ``figure_`` and ``line_`` set.

        Notes
        -----
        The y axis is linear; ``display.ax_.set_yscale("log")`` shows a long
        tail better.

        Examples
        --------
        >>> import matplotlib
        >>> matplotlib.use("Agg")
        >>> from sk_rankmetrics import LongTailDisplay
        >>> d = LongTailDisplay(popularity=[5, 3, 1, 1], n_head=1).plot()
        >>> d.line_.get_xdata().tolist()
        [1, 2, 3, 4]
        """
        y = np.asarray(self.popularity, dtype=np.float64)
        ax = _axes(ax)
        name = self.name if name is None else name
        x = np.arange(1, y.shape[0] + 1)
        (self.line_,) = ax.plot(x, y, label=name or "popularity", **kwargs)
        if self.n_head:
            ax.axvspan(
                0.5,
                self.n_head + 0.5,
                alpha=0.15,
                color=self.line_.get_color(),
                label=f"head: {self.n_head} items, {self.head_share:g} of interactions",
            )
        ax.set_xlabel("items, most popular first")
        ax.set_ylabel("training users per item")
        ax.set_title("Long tail of the training popularity")
        ax.legend(loc="upper right")
        self.ax_, self.figure_ = ax, ax.figure
        return self


@display_doc("ExposureLorenzDisplay")
class ExposureLorenzDisplay:
    r"""The Lorenz curve of item exposure, with its Gini index.

    With the catalogue's :math:`n` exposures sorted ascending,
    :math:`c_{(1)} \le \dots \le c_{(n)}`, the curve joins the points

    .. math:: \Bigl(\frac{j}{n}, \frac{\sum_{l \le j} c_{(l)}}{\sum_l c_{(l)}}\Bigr),
        \qquad j = 0, \dots, n,

    and the Gini index (:func:`gini_score`) is one minus twice the area under
    it; the diagonal is equal exposure.

    Parameters
    ----------
    exposure : ndarray of shape (n_items,)
        How many lists each catalogue item appears in (any order).
    name : str, default=None
        Name shown in the legend.

    Attributes
    ----------
    gini : float
        The Gini index of ``exposure``.
    %(attributes)s
    line_ : matplotlib Line2D
        The Lorenz curve.

    Notes
    -----
    With nothing recommended the curve is undefined (NaN) and so is the Gini
    index.

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> from sk_rankmetrics import ExposureLorenzDisplay
    >>> rec = {"u1": ["a", "b"], "u2": ["a", "c"]}
    >>> d = ExposureLorenzDisplay.from_recommendations(rec, items=["a", "b", "c", "d"])
    >>> d.gini
    0.375
    """

    def __init__(self, *, exposure: ArrayLike, name: str | None = None) -> None:
        self.exposure = exposure
        self.name = name
        c = np.asarray(exposure, dtype=np.float64)
        self.gini = _kernels.gini(c, c.shape[0])

    @classmethod
    @validate
    @display_doc("ExposureLorenzDisplay")
    def from_recommendations(
        cls,
        recommended: Mapping | ArrayLike,
        *,
        items: ArrayLike,
        k: int | None = None,
        users: ArrayLike | None = None,
        name: str | None = None,
        ax: Any = None,
        **kwargs: Any,
    ) -> ExposureLorenzDisplay:
        r"""Count each catalogue item's exposure in the top-k lists and plot.

        .. math:: c_i = |\{u : i \in L_u\}|

        Parameters
        ----------
        recommended : dict, 2-D array-like, list of lists or data frame
            Ranked item ids per user, best first, in the forms
            :func:`evaluate_ranked` reads in memory (a pandas or polars data
            frame with user, item and rank or score columns too).
        items : array-like
            The catalogue; a recommended item outside it raises.
        k : int, default=None
            Cut-off of each list.
        users : array-like, default=None
            User ids of the rows of an array or list.
        %(curve_options)s

        %(returns_drawn)s

        Notes
        -----
        Items of the catalogue never recommended have exposure 0: they make
        the flat start of the curve.

        Examples
        --------
        >>> import matplotlib
        >>> matplotlib.use("Agg")
        >>> from sk_rankmetrics import ExposureLorenzDisplay
        >>> d = ExposureLorenzDisplay.from_recommendations([[1, 2], [1, 3]], items=[1, 2, 3, 4])
        >>> sorted(d.exposure.tolist())
        [0, 1, 1, 2]
        """
        if is_frame(recommended, long=True):
            ids, lens, flat = lists_from_frame(recommended, users)
        else:
            ids, lens, flat = ranked_lists(recommended, users)
        lists, vocab, _ = _data.top_lists(lens, flat, k, ids)
        cat = _data.catalogue(items)
        pos = _data.locate(cat, vocab, "items", "ExposureLorenzDisplay", "the catalogue")
        exposure = np.zeros(cat.shape[0], dtype=np.int64)
        exposure[pos] = _kernels.exposure(lists)
        display = cls(exposure=exposure, name=name)
        return display.plot(ax=ax, **kwargs)

    def curve(self) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
        r"""The Lorenz curve's points ``(x, y)``, from (0, 0) to (1, 1).

        Returns
        -------
        x, y : ndarray of shape (n_items + 1,)
            Share of the items (least exposed first) and their share of the
            exposure.

        Notes
        -----
        The points are :math:`(j/n, \sum_{l \le j} c_{(l)} / \sum_l c_{(l)})`.

        Examples
        --------
        >>> from sk_rankmetrics import ExposureLorenzDisplay
        >>> x, y = ExposureLorenzDisplay(exposure=[2, 0, 1, 1]).curve()
        >>> x.tolist(), y.tolist()
        ([0.0, 0.25, 0.5, 0.75, 1.0], [0.0, 0.0, 0.25, 0.5, 1.0])
        """
        c = np.sort(np.asarray(self.exposure, dtype=np.float64))
        x = np.arange(c.shape[0] + 1) / max(1, c.shape[0])
        total = c.sum()
        y = np.concatenate(([0.0], np.cumsum(c) / total)) if total else np.full(x.shape, np.nan)
        return x, y

    @validate
    @display_doc("ExposureLorenzDisplay")
    def plot(
        self, ax: Any = None, *, name: str | None = None, **kwargs: Any
    ) -> ExposureLorenzDisplay:
        r"""Plot the Lorenz curve and the line of equal exposure.

        Draws :math:`(x_j, y_j)` of :meth:`curve` and the diagonal
        :math:`y = x`.

        Parameters
        ----------
        ax : matplotlib Axes, default=None
            Axes to plot on; a new figure when None. Pass another display's
            ``ax_`` to compare recommenders.
        name : str, default=None
            Legend name; defaults to ``self.name``.
        %(kwargs_plot)s

        Returns
        -------
        display : ExposureLorenzDisplay
            ``self``, with ``ax_``, ``figure_`` and ``line_`` set.

        Notes
        -----
        The legend gives each curve's Gini index.

        Examples
        --------
        >>> import matplotlib
        >>> matplotlib.use("Agg")
        >>> from sk_rankmetrics import ExposureLorenzDisplay
        >>> d = ExposureLorenzDisplay(exposure=[1, 1, 1, 1]).plot()
        >>> d.gini
        0.0
        """
        ax = _axes(ax)
        x, y = self.curve()
        name = self.name if name is None else name
        label = f"{name + ': ' if name else ''}Gini {self.gini:.3f}"
        if not any(line.get_label() == "equal exposure" for line in ax.get_lines()):
            ax.plot([0, 1], [0, 1], color="grey", linestyle=":", label="equal exposure")
        (self.line_,) = ax.plot(x, y, label=label, **kwargs)
        ax.set_xlabel("share of the catalogue, least exposed first")
        ax.set_ylabel("share of the exposure")
        ax.set_title("Exposure Lorenz curve")
        ax.set_xlim(0, 1)
        ax.set_ylim(0, 1)
        ax.legend(loc="upper left")
        self.ax_, self.figure_ = ax, ax.figure
        return self
