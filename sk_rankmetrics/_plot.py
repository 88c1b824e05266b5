"""Metric@k curves: a Display in scikit-learn's style.

The values are computed by the engine from one ranking pass per row chunk:
every ``(metric, k)`` pair is one request of a single engine call, ranked down
to the largest ``k``. matplotlib is imported inside :meth:`MetricAtKDisplay.plot`
only, so ``import sk_rankmetrics`` never needs it.
"""

from __future__ import annotations

import numbers
import warnings

import numpy as np
from sklearn.exceptions import UndefinedMetricWarning

from ._adapters import DEFAULT_RESPONSE_METHOD, estimator_responses
from ._ranking import _run
from ._registry import METRICS, Request, check_k, parse_name, validate


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
                  no_relevant, qid):
    """Values of every metric at every cut-off from one engine call."""
    requests = [
        Request(spec, int(k), opts, label=f"{i}@{k}", preset=preset,
                where="MetricAtKDisplay")
        for i, (_, spec, opts, preset) in enumerate(metrics)
        for k in ks
    ]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", UndefinedMetricWarning)
        scores = _run(y_true, y_score, requests, sample_weight=sample_weight,
                      ignore_ties=ignore_ties, no_relevant=no_relevant, qid=qid,
                      per_row=False)
    undefined = [w for w in caught if issubclass(w.category, UndefinedMetricWarning)]
    for w in caught:
        if w not in undefined:
            warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)
    if undefined:  # one warning for the whole curve, not one per cut-off
        message = str(undefined[0].message).split(": ", 1)[-1]
        warnings.warn(f"metric@k curve: {message}", UndefinedMetricWarning, stacklevel=3)
    return {
        label: np.array([scores[f"{i}@{k}"] for k in ks])
        for i, (label, *_) in enumerate(metrics)
    }


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
        One curve per metric label: the metric's value at each cut-off.
    name : str, default=None
        Name of the system (the model, the run), shown in the legend.

    Attributes
    ----------
    ks : ndarray of shape (n_ks,)
        The cut-offs.
    values_ : dict of str -> ndarray of shape (n_ks,)
        The metric@k values, one array per metric label.
    name : str or None
        Name of the system.
    lines_ : dict of str -> matplotlib Line2D
        The plotted curves, per metric label (set by :meth:`plot`).
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

    Examples
    --------
    >>> from sk_rankmetrics import MetricAtKDisplay
    >>> display = MetricAtKDisplay(ks=[1, 2, 3], values={"ndcg": [1.0, 0.8, 0.9]})
    >>> display.values_["ndcg"]
    array([1. , 0.8, 0.9])
    """

    def __init__(self, *, ks, values, name=None):
        self.ks = _check_ks(ks)
        self.values_ = {}
        for label, vals in dict(values).items():
            arr = np.asarray(vals, dtype=np.float64)
            if arr.shape != self.ks.shape:
                raise ValueError(
                    f"values[{label!r}] has shape {arr.shape}; it needs one value per "
                    f"cut-off, shape {self.ks.shape}."
                )
            self.values_[label] = arr
        if not self.values_:
            raise ValueError("values is empty; give at least one curve.")
        self.name = name

    @classmethod
    @validate
    def from_predictions(cls, y_true, y_score, *, metric="ndcg", ks=range(1, 51),
                         sample_weight=None, ignore_ties=False, no_relevant="warn",
                         qid=None, name=None, ax=None, **kwargs):
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
        sample_weight : array-like of shape (n_rows,), default=None
            Weight of each row in the means.
        ignore_ties : bool, default=False
            Take tied scores in sort order instead of their expected value.
        no_relevant : "warn", "skip" or float, default="warn"
            Policy for rows without a relevant item (see :func:`ndcg_score`).
        qid : array-like of shape (n_pairs,), default=None
            Query id of each entry, for long-format input.
        name : str, default=None
            Name of the system, shown in the legend.
        ax : matplotlib Axes, default=None
            Axes to plot on; a new figure when None.
        **kwargs : dict
            Passed to matplotlib's ``plot``.

        Returns
        -------
        display : MetricAtKDisplay
            The display, with its curves drawn.

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
        >>> d.values_["dcg"].round(3)
        array([3.   , 4.262, 5.762, 5.762, 6.149, 6.861])
        >>> round(float(d.values_["ndcg"][-1]), 3)
        0.961
        """
        metrics = _check_metrics(metric)
        ks = _check_ks(ks)
        values = _metric_at_ks(y_true, y_score, metrics, ks, sample_weight=sample_weight,
                               ignore_ties=ignore_ties, no_relevant=no_relevant, qid=qid)
        display = cls(ks=ks, values=values, name=name)
        return display.plot(ax=ax, **kwargs)

    @classmethod
    @validate
    def from_estimator(cls, estimator, X, y, *, metric="ndcg", ks=range(1, 51),
                       response_method="auto", sample_weight=None, ignore_ties=False,
                       no_relevant="warn", qid=None, name=None, ax=None, **kwargs):
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
        sample_weight : array-like of shape (n_rows,), default=None
            Weight of each row in the means.
        ignore_ties : bool, default=False
            Take tied scores in sort order instead of their expected value.
        no_relevant : "warn", "skip" or float, default="warn"
            Policy for rows without a relevant item.
        qid : array-like of shape (n_pairs,), default=None
            Query id of each sample, for learning-to-rank (long) data.
        name : str, default=None
            Legend name; the estimator's class name when None.
        ax : matplotlib Axes, default=None
            Axes to plot on; a new figure when None.
        **kwargs : dict
            Passed to matplotlib's ``plot``.

        Returns
        -------
        display : MetricAtKDisplay
            The display, with its curves drawn.

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
        >>> d.values_["ndcg"]
        array([1., 1., 1.])
        """
        if isinstance(response_method, str) and response_method == "auto":
            response_method = DEFAULT_RESPONSE_METHOD
        y_true, scores = estimator_responses(estimator, X, y, qid=qid,
                                             response_method=response_method)
        if name is None:
            name = type(estimator).__name__
        return cls.from_predictions(y_true, scores, metric=metric, ks=ks,
                                    sample_weight=sample_weight, ignore_ties=ignore_ties,
                                    no_relevant=no_relevant, qid=qid, name=name, ax=ax,
                                    **kwargs)

    @validate
    def plot(self, ax=None, *, name=None, **kwargs):
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
            Passed to matplotlib's ``plot`` (``color``, ``linestyle``, ...).

        Returns
        -------
        display : MetricAtKDisplay
            ``self``, with ``ax_``, ``figure_``, ``lines_`` and ``line_`` set.

        Notes
        -----
        A legend entry is ``"name: metric"`` with several metrics, the metric
        (or the name alone, with one metric) otherwise. The x label is
        ``"cut-off k"``; the y label names the metric when there is one.

        Examples
        --------
        >>> import matplotlib
        >>> matplotlib.use("Agg")
        >>> from sk_rankmetrics import MetricAtKDisplay
        >>> d = MetricAtKDisplay(ks=[1, 2, 3], values={"ndcg": [1.0, 0.8, 0.9]})
        >>> d = d.plot(name="model A")
        >>> d.line_.get_label()
        'model A'
        """
        import matplotlib.pyplot as plt

        if ax is None:
            _, ax = plt.subplots()
        name = self.name if name is None else name
        self.lines_ = {}
        for label, vals in self.values_.items():
            if name is None:
                legend = label
            elif len(self.values_) == 1:
                legend = name
            else:
                legend = f"{name}: {label}"
            (self.lines_[label],) = ax.plot(self.ks, vals, label=legend, **kwargs)
        self.line_ = self.lines_[label]
        ax.set_xlabel("cut-off k")
        if len(self.values_) == 1:
            ax.set_ylabel(f"{label}@k")
        else:
            ax.set_ylabel("metric@k")
        ax.legend(loc="best")
        self.ax_ = ax
        self.figure_ = ax.figure
        return self
