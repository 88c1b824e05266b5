"""Metric@k curves: a Display in scikit-learn's style.

The values are computed by the engine from one ranking pass per row chunk:
every ``(metric, k)`` pair is one request of a single engine call, ranked down
to the largest ``k``. matplotlib is imported inside :meth:`MetricAtKDisplay.plot`
only, so ``import sk_rankmetrics`` never needs it.

Drawing conventions: one colour per system (one :meth:`~MetricAtKDisplay.plot`
call), one line style per metric, shared by every system drawn on the same
axes; integer ticks for ``k``; axis labels and a title that name the metrics;
a legend that covers no curve.
"""

from __future__ import annotations

import numbers
import warnings
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any, Literal

import numpy as np
from sklearn.exceptions import UndefinedMetricWarning

from .._evaluation.pipeline import evaluate_requests
from .._metrics.names import parse_name
from .._metrics.registry import METRICS, PRESETS, check_k, lookup
from .._metrics.requests import Request
from .._sklearn.responses import DEFAULT_RESPONSE_METHOD, estimator_responses
from .._utils.docstrings import display_doc
from .._utils.errors import warn
from .._utils.params import validate
from .._utils.types import ArrayLike, Metrics, NoRelevant, ResponseMethod
from .style import _AXES_STATE, _LINESTYLES, _next_color, _place_legend

if TYPE_CHECKING:
    from matplotlib.axes import Axes


def _check_ks(ks):
    """Return the cut-offs as a 1-D int array, or raise a clear error."""
    if isinstance(ks, numbers.Integral) and not isinstance(ks, bool):
        ks = [ks]
    try:
        items = list(ks)
    except TypeError:
        raise TypeError(
            f"ks must be an iterable of positive integers such as range(1, 51), got {ks!r}."
        ) from None
    if not items:
        raise ValueError("ks is empty; give at least one cut-off, e.g. ks=range(1, 51).")
    checked = [check_k(k, arg="every k in ks") for k in items]
    if any(k is None for k in checked):
        raise ValueError("ks must not contain None; give positive integers.")
    return np.asarray(checked, dtype=np.int64)


def _check_metrics(metric):
    """Return ``[(label, spec, options, preset), ...]`` for a name, names or pairs."""
    if isinstance(metric, (str, tuple)):
        items = [metric]
    else:
        try:
            items = list(metric)
        except TypeError:
            items = [metric]  # rejected below with the accepted forms
    if not items:
        raise ValueError("metric is empty; name at least one metric, e.g. 'ndcg'.")
    out = []
    for item in items:
        if isinstance(item, str):
            name, opts, label = item, {}, item
        elif isinstance(item, tuple) and len(item) == 2 and isinstance(item[1], dict):
            name, opts = item
            extra = ", ".join(f"{key}={val!r}" for key, val in item[1].items())
            label = f"{name} ({extra})" if extra else name
        else:
            raise TypeError(
                "metric must be a name such as 'ndcg', a list of names, or "
                f"(name, options) pairs such as ('ndcg', {{'gain': 'exponential'}}); got {item!r}."
            )
        spec, k, preset = parse_name(name)
        if k is not None:
            raise ValueError(
                f"metric {name!r} has a cut-off; give the bare name ({name.split('@')[0]!r}) "
                "and the cut-offs in ks."
            )
        if not spec.takes_k:
            raise ValueError(
                f"metric {name!r} takes no cut-off, so it has no curve over k; choose "
                f"one of {', '.join(s.name for s in METRICS.values() if s.takes_k)}."
            )
        out.append((label, spec, opts, preset))
    labels = [label for label, *_ in out]
    if len(set(labels)) != len(labels):
        raise ValueError(f"metric names the same curve twice: {labels!r}.")
    return out


def _metric_at_ks(y_true, y_score, metrics, ks, *, sample_weight, ignore_ties,
                  no_relevant, qid, exclude=None, where="MetricAtKDisplay.from_predictions"):
    """Values of every metric at every cut-off from one engine call."""
    requests = [
        Request(spec, int(k), opts, label=f"{i}@{k}", preset=preset,
                where="MetricAtKDisplay")
        for i, (_, spec, opts, preset) in enumerate(metrics)
        for k in ks
    ]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", UndefinedMetricWarning)
        scores = evaluate_requests(y_true, y_score, requests, sample_weight=sample_weight,
                                   ignore_ties=ignore_ties, no_relevant=no_relevant, qid=qid,
                                   per_row=False, exclude=exclude, where=where)
    undefined = [w for w in caught if issubclass(w.category, UndefinedMetricWarning)]
    for w in caught:
        if w not in undefined:
            warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)
    if undefined:  # one warning for the whole curve, not one per cut-off
        message = str(undefined[0].message).split(": ", 1)[-1]
        warn(f"metric@k curve: {message}", UndefinedMetricWarning)
    return {
        label: np.array([scores[f"{i}@{k}"] for k in ks])
        for i, (label, *_) in enumerate(metrics)
    }


#: How each metric is written on axes and in legends (every metric with a
#: cut-off and every preset has one; a test checks it).
def display_name(label):
    """``"nDCG@k"`` for ``"ndcg"``; options of a ``(name, options)`` label are kept.

    A label that is no metric name (a curve given to the constructor under a
    name of one's own) is returned unchanged.
    """
    head, sep, rest = str(label).partition(" (")
    try:
        spec, _ = lookup(head)
    except ValueError:
        return str(label)
    key = head.strip().lower()
    name = PRESETS[key].label if key in PRESETS else spec.label
    if " (" in name:  # "nDCG (exponential gain)" -> "nDCG@k (exponential gain)"
        base, _, note = name.partition(" (")
        return f"{base}@k ({note}" + (f", {rest}" if sep else "")
    return f"{name}@k" + (f" ({rest}" if sep else "")


class MetricAtKDisplay:
    """Metric@k curves: one or more ranking metrics as functions of the cut-off.

    Plots :math:`k \\mapsto \\mathrm{metric@k}` (for example nDCG@k, DCG@k,
    MAP@k) for ``k`` in ``ks``. Create it with :meth:`from_predictions` or
    :meth:`from_estimator`; to put several systems on one axes, call
    :meth:`plot` (or a ``from_*`` method) again with ``ax=`` the first
    display's ``ax_``.

    Parameters
    ----------
    ks : array-like of int
        The cut-offs, in plotting order.
    values : dict of str -> array-like of shape (len(ks),)
        One curve per metric: the metric's value at each cut-off, keyed by
        the metric's name (``"ndcg"``, ``"map"``, ...) or a label of your own.
    name : str, default=None
        Name of the system (the model, the run), shown in the legend.

    Attributes
    ----------
    ks : array-like of int
        The cut-offs, as given.
    values : dict of str -> array-like
        The metric@k values, as given (``from_predictions`` and
        ``from_estimator`` give one ndarray per metric).
    name : str or None
        Name of the system, as given.
    lines_ : dict of str -> matplotlib Line2D
        The plotted curves, per metric (set by :meth:`plot`).
    line_ : matplotlib Line2D
        The last plotted curve (the only one for a single metric).
    ax_ : matplotlib Axes
        Axes with the curves.
    figure_ : matplotlib Figure
        Figure containing the curves.

    See Also
    --------
    evaluate : Several metrics from one ranking pass.

    Notes
    -----
    All values come from one engine call: every row is ranked once, down to
    the largest ``k``, and every ``(metric, k)`` pair reads that ranking. A
    ``k`` larger than a row counts every item of that row (for DCG the curve
    is then flat). Rows without a relevant item follow ``no_relevant``; with
    ``"warn"`` a single warning is given for the whole curve. matplotlib is
    needed only by :meth:`plot` and is imported there.

    The constructor stores its arguments unchanged, as scikit-learn's
    displays do; :meth:`plot` checks them and sets the attributes ending in
    ``_``.

    Examples
    --------
    >>> from sk_rankmetrics import MetricAtKDisplay
    >>> display = MetricAtKDisplay(ks=[1, 2, 3], values={"ndcg": [1.0, 0.8, 0.9]})
    >>> display.values["ndcg"]
    [1.0, 0.8, 0.9]
    """

    def __init__(self, *, ks: Iterable[int], values: Mapping[str, ArrayLike],
                 name: str | None = None) -> None:
        self.ks = ks
        self.values = values
        self.name = name

    @classmethod
    @validate
    @display_doc("MetricAtKDisplay")
    def from_predictions(cls, y_true: ArrayLike, y_score: ArrayLike, *, metric: Metrics = "ndcg",
                         ks: Iterable[int] = range(1, 51), sample_weight: ArrayLike | None = None,
                         ignore_ties: bool = False, no_relevant: NoRelevant = "warn",
                         qid: ArrayLike | None = None, name: str | None = None,
                         ax: Axes | None = None, exclude: ArrayLike | None = None,
                         **kwargs: Any) -> MetricAtKDisplay:
        """Compute and plot metric@k curves from relevance and scores.

        .. math::

            \\mathrm{values}[m] = (\\mathrm{m@k})_{k \\in ks}

        with each ``m@k`` the mean over rows of the metric at cut-off ``k``,
        as :func:`evaluate` gives it.

        Parameters
        ----------
        y_true : array-like or sparse matrix of shape (n_rows, n_items)
            Relevance of each item of each row. With ``qid``: 1-D, one entry
            per query-item pair.
        y_score : array-like of shape (n_rows, n_items)
            Scores of the items; higher ranks earlier. With ``qid``: 1-D.
        metric : str, (str, dict) pair, or list of them, default="ndcg"
            Bare metric names without a cut-off (``"ndcg"``, ``"dcg"``,
            ``"cg"``, ``"map"``, ``"precision"``, ``"recall"``,
            ``"hit_rate"``, ``"mrr"``, ``"ndcg_exp"``, ...); a pair
            ``("ndcg", {"gain": "exponential"})`` adds options of the
            metric's function. Several metrics give several curves.
        ks : iterable of int, default=range(1, 51)
            The cut-offs.
        %(curve_sample_weight)s
        %(curve_ignore_ties)s
        no_relevant : "warn", "skip" or float, default="warn"
            Policy for rows without a relevant item (see :func:`ndcg_score`).
        qid : array-like of shape (n_pairs,), default=None
            Query id of each entry, for long-format input.
        name : str, default=None
            Name of the system, shown in the legend.
        %(metric_curve_options)s

        %(returns_curves_drawn)s

        Notes
        -----
        One ranking pass: the rows are ranked once, down to ``max(ks)``.
        A metric name with ``@k`` or a metric without a cut-off
        (``r_precision``) raises ``ValueError``.

        Examples
        --------
        >>> import matplotlib
        >>> matplotlib.use("Agg")
        >>> from sk_rankmetrics import MetricAtKDisplay
        >>> y_true = [[3, 2, 3, 0, 1, 2]]
        >>> y_score = [[6, 5, 4, 3, 2, 1]]
        >>> d = MetricAtKDisplay.from_predictions(
        ...     y_true, y_score, metric=["dcg", "ndcg"], ks=range(1, 7))
        >>> d.values["dcg"].round(3)
        array([3.   , 4.262, 5.762, 5.762, 6.149, 6.861])
        >>> round(float(d.values["ndcg"][-1]), 3)
        0.961
        >>> d.ax_.get_ylabel()
        'DCG@k, nDCG@k'
        """
        return cls._from_scores(y_true, y_score, metric, ks, sample_weight=sample_weight,
                                ignore_ties=ignore_ties, no_relevant=no_relevant, qid=qid,
                                name=name, ax=ax, exclude=exclude,
                                where="MetricAtKDisplay.from_predictions", **kwargs)

    @classmethod
    def _from_scores(cls, y_true, y_score, metric, ks, *, sample_weight, ignore_ties,
                     no_relevant, qid, name, ax, exclude, where, **kwargs):
        """The display of ``metric`` at ``ks``, its errors naming ``where``."""
        metrics = _check_metrics(metric)
        ks = _check_ks(ks)
        values = _metric_at_ks(y_true, y_score, metrics, ks, sample_weight=sample_weight,
                               ignore_ties=ignore_ties, no_relevant=no_relevant, qid=qid,
                               exclude=exclude, where=where)
        display = cls(ks=ks, values=values, name=name)
        return display.plot(ax=ax, **kwargs)

    @classmethod
    @validate
    @display_doc("MetricAtKDisplay")
    def from_estimator(cls, estimator: Any, X: ArrayLike, y: ArrayLike, *, metric: Metrics = "ndcg",
                       ks: Iterable[int] = range(1, 51),
                       response_method: Literal["auto"] | ResponseMethod = "auto",
                       sample_weight: ArrayLike | None = None, ignore_ties: bool = False,
                       no_relevant: NoRelevant = "warn", qid: ArrayLike | None = None,
                       name: str | None = None, ax: Axes | None = None,
                       exclude: ArrayLike | None = None, **kwargs: Any) -> MetricAtKDisplay:
        """Compute and plot metric@k curves of a fitted estimator.

        .. math::

            \\mathrm{values}[m] = (\\mathrm{m@k}(y, s(X)))_{k \\in ks}

        where :math:`s(X)` are the estimator's scores of ``X``.

        Parameters
        ----------
        estimator : estimator
            A fitted scikit-learn estimator (or pipeline).
        X : array-like of shape (n_samples, n_features)
            Input samples. For learning to rank, one sample per query-item pair
            with ``qid``; otherwise the scores must have the shape of ``y``.
        y : array-like of shape (n_rows, n_items) or (n_pairs,)
            Relevance: a matrix matching the scores, or 1-D with ``qid``.
        metric : str, (str, dict) pair, or list of them, default="ndcg"
            As in :meth:`from_predictions`.
        ks : iterable of int, default=range(1, 51)
            The cut-offs.
        response_method : str or list of str, default="auto"
            The estimator's method that gives the scores, or several tried in
            order; ``"auto"`` is ``["decision_function", "predict_proba",
            "predict"]``. Class probabilities become one score per item as the
            scorers of :func:`get_scorer` make them.
        %(curve_sample_weight)s
        %(curve_ignore_ties)s
        no_relevant : "warn", "skip" or float, default="warn"
            Policy for rows without a relevant item.
        qid : array-like of shape (n_pairs,), default=None
            Query id of each sample, for learning-to-rank (long) data.
        name : str, default=None
            Legend name; the estimator's class name when None.
        %(metric_curve_options)s

        %(returns_curves_drawn)s

        Notes
        -----
        The estimator's outputs become ``(y_true, y_score)`` exactly as in the
        scorers of :func:`get_scorer`: with ``qid``, one score per sample (long
        format); without, a multi-output regressor or multilabel classifier
        gives an ``(n_rows, n_items)`` matrix, and a classifier trained on
        1-D labels ranks its classes for each sample (``y`` binarised against
        ``classes_``). The estimator is not refitted.

        Examples
        --------
        >>> import matplotlib
        >>> matplotlib.use("Agg")
        >>> import numpy as np
        >>> from sklearn.linear_model import LinearRegression
        >>> from sk_rankmetrics import MetricAtKDisplay
        >>> X = np.array([[0.0], [1.0], [2.0], [0.5], [1.5], [2.5]])
        >>> y = np.array([0, 1, 2, 0, 1, 2])
        >>> qid = np.array([1, 1, 1, 2, 2, 2])
        >>> model = LinearRegression().fit(X, y)
        >>> d = MetricAtKDisplay.from_estimator(model, X, y, qid=qid, ks=[1, 2, 3])
        >>> d.values["ndcg"]
        array([1., 1., 1.])
        >>> d.line_.get_label()
        'LinearRegression'
        """
        if isinstance(response_method, str) and response_method == "auto":
            response_method = DEFAULT_RESPONSE_METHOD
        y_true, scores = estimator_responses(estimator, X, y, qid=qid,
                                             response_method=response_method)
        if name is None:
            name = type(estimator).__name__
        return cls._from_scores(y_true, scores, metric, ks, sample_weight=sample_weight,
                                ignore_ties=ignore_ties, no_relevant=no_relevant, qid=qid,
                                name=name, ax=ax, exclude=exclude,
                                where="MetricAtKDisplay.from_estimator", **kwargs)

    def _checked(self):
        """``(ks, {label: values})`` as arrays, or a clear error naming the argument."""
        ks = _check_ks(self.ks)
        try:
            items = list(dict(self.values).items())
        except (TypeError, ValueError):
            raise TypeError(
                "values must be a dict {metric name: one value per cut-off}, got "
                f"{type(self.values).__name__}."
            ) from None
        if not items:
            raise ValueError("values is empty; give at least one curve.")
        out = {}
        for label, vals in items:
            arr = np.asarray(vals, dtype=np.float64)
            if arr.shape != ks.shape:
                raise ValueError(
                    f"values[{label!r}] has shape {arr.shape}; it needs one value per "
                    f"cut-off, shape {ks.shape}."
                )
            out[label] = arr
        return ks, out

    @validate
    def plot(self, ax: Axes | None = None, *, name: str | None = None,
             **kwargs: Any) -> MetricAtKDisplay:
        """Plot the curves.

        Draws one line :math:`(k, \\mathrm{values}[m](k))` per metric ``m``.

        Parameters
        ----------
        ax : matplotlib Axes, default=None
            Axes to plot on; a new figure and axes when None. Pass the
            ``ax_`` of another display to compare systems on one axes.
        name : str, default=None
            Name of the system for the legend; defaults to ``self.name``.
        **kwargs : dict
            Passed to matplotlib's ``plot`` (``color``, ``linestyle``,
            ``marker``, ...); they override the conventions below.

        Returns
        -------
        display : MetricAtKDisplay
            ``self``, with ``ax_``, ``figure_``, ``lines_`` and ``line_`` set.

        Notes
        -----
        Every line of one call has the same colour, the first colour of
        matplotlib's cycle that no line on ``ax`` uses yet; each metric has
        its own line style, the same for every system on the axes. A legend
        entry is ``"name: nDCG@k"`` with several metrics, the name alone with
        one. The x axis has integer ticks; the y label names every metric on
        the axes (``"nDCG@k, MAP@k"``) and so does the title, unless you set
        your own. The legend goes where it covers no curve: inside the axes
        if there is room, else outside on the right (a new figure uses
        matplotlib's constrained layout so that it stays in the picture; with
        axes of your own, use ``layout="constrained"`` or
        ``savefig(..., bbox_inches="tight")``).

        Examples
        --------
        >>> import matplotlib
        >>> matplotlib.use("Agg")
        >>> from sk_rankmetrics import MetricAtKDisplay
        >>> d = MetricAtKDisplay(ks=[1, 2, 3], values={"ndcg": [1.0, 0.8, 0.9]})
        >>> d = d.plot(name="model A")
        >>> d.line_.get_label(), d.ax_.get_ylabel()
        ('model A', 'nDCG@k')
        """
        ks, values = self._checked()
        import matplotlib.pyplot as plt
        from matplotlib.ticker import MaxNLocator

        if ax is None:
            _, ax = plt.subplots(layout="constrained")
        state = _AXES_STATE.setdefault(ax, {"styles": {}, "metrics": [], "ylabel": None,
                                            "title": None})
        name = self.name if name is None else name
        style = dict(kwargs)
        if "color" not in style and "c" not in style:
            style["color"] = _next_color(ax)
        if "marker" not in style:
            style.setdefault("marker", "o")
            style.setdefault("markersize", 4)
            style.setdefault("markevery", max(1, round(len(ks) / 15)))
        self.lines_ = {}
        for label, vals in values.items():
            pretty = display_name(label)
            if pretty not in state["metrics"]:
                state["metrics"].append(pretty)
            line_style = dict(style)
            if "linestyle" not in line_style and "ls" not in line_style:
                styles = state["styles"]
                if label not in styles:
                    styles[label] = _LINESTYLES[len(styles) % len(_LINESTYLES)]
                line_style["linestyle"] = styles[label]
            if name is None:
                legend = pretty
            elif len(values) == 1:
                legend = name
            else:
                legend = f"{name}: {pretty}"
            (self.lines_[label],) = ax.plot(ks, vals, label=legend, **line_style)
        self.line_ = self.lines_[label]
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
        ax.set_xlabel("cut-off k")
        ylabel = ", ".join(state["metrics"])
        if ax.get_ylabel() in ("", state["ylabel"]):
            ax.set_ylabel(ylabel)
            state["ylabel"] = ylabel
        title = f"{' and '.join(state['metrics'])} by cut-off"
        if ax.get_title() in ("", state["title"]):
            ax.set_title(title)
            state["title"] = title
        _place_legend(ax)
        self.ax_ = ax
        self.figure_ = ax.figure
        return self
