"""scikit-learn scorers for the registered ranking metrics.

A :class:`RankingScorer` follows scikit-learn's scorer protocol
(``scorer(estimator, X, y, **metadata)``) and its metadata routing
(``set_score_request``, ``get_metadata_routing``), built on the public
``sklearn.utils.metadata_routing.MetadataRequest``. Estimator outputs are
turned into metric inputs by :mod:`sk_rankmetrics._sklearn.responses`; the metric
itself is computed by :func:`sk_rankmetrics.evaluate`. Names come from the
metric registry.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from typing import Any, TypeVar, overload

import sklearn
from sklearn.utils.metadata_routing import MetadataRequest

from .._beyond.measures import DATA_OPTIONS, is_beyond, refuse_unread_data
from .._beyond.measures import make_requests as beyond_requests
from .._evaluation.evaluate import evaluate_as
from .._metrics.names import parse_name
from .._metrics.registry import REGISTRY, elsewhere, metric_names
from .._metrics.requests import check_unique, make_requests, split_request
from .._utils.backends import backend_for
from .._utils.docstrings import data_doc, shared_doc
from .._utils.errors import PACKAGE_DIR, InvalidParameterError, short_repr, warn
from .._utils.params import validate
from .._utils.types import ArrayLike, MetricFamily, Metrics, NoRelevant, ResponseMethod
from .responses import DEFAULT_RESPONSE_METHOD, check_response_method, estimator_responses

_Callable = TypeVar("_Callable", bound=Callable[..., Any])

_SCORE_PARAMS = ("qid", "sample_weight", "exclude")
#: The registry's families a scorer computes (not diversity: no diversity qrels
#: reaches a scorer).
SCORER_FAMILIES: tuple[MetricFamily, ...] = ("accuracy", "trec_eval", "cwl", "beyond_list",
                                             "beyond_set")


def _routing_enabled():
    return bool(sklearn.get_config().get("enable_metadata_routing", False))


def _qid_missing_message(scorer, where):
    return (
        f"{scorer!r} requests qid (set_score_request(qid=True)) but none was passed "
        f"{where}. Give it with the data, e.g. GridSearchCV(...).fit(X, y, qid=qid, "
        "groups=qid) or cross_validate(..., params={'qid': qid, 'groups': qid})."
    )


class _ScoreRequest(MetadataRequest):
    """The scorer's metadata request, which refuses a missing ``qid`` while routing.

    scikit-learn routes the metadata given to ``GridSearchCV.fit``,
    ``cross_validate`` and the like once, before any fit, through the request
    of every consumer. A scorer that requests ``qid`` and is given none could
    only fail later, inside the search, where scikit-learn turns the error
    into a score of NaN; here the mistake is a ``ValueError`` at once.
    """

    def _route_params(self, *args, **kwargs):
        params = kwargs.get("params", args[0] if args else None)
        alias = self.score.requests.get("qid")
        key = "qid" if alias is True else alias
        if isinstance(key, str) and isinstance(params, dict) and params.get(key) is None:
            raise ValueError(_qid_missing_message(
                self.owner, "along with the data (to fit, or in params=)"))
        return super()._route_params(*args, **kwargs)

    def __sklearn_clone__(self):
        # scikit-learn copies a request before routing through it; keep the class.
        new = super().__sklearn_clone__()
        new.__class__ = type(self)
        return new


_SKLEARN_DIR = os.path.dirname(os.path.abspath(sklearn.__file__)) + os.sep


def _failure_becomes_nan():
    """Whether scikit-learn called the scorer and turns an error into a NaN score.

    True when the first caller outside this package is scikit-learn, unless
    its model-selection code was told ``error_score="raise"`` (read from the
    frames of ``_score`` and of the multi-metric scorer; where they cannot be
    read, the answer is True, which at worst gives one warning too many).
    """
    frame = sys._getframe(1)
    while frame is not None and os.path.abspath(frame.f_code.co_filename).startswith(
            PACKAGE_DIR):
        frame = frame.f_back
    if frame is None or not os.path.abspath(frame.f_code.co_filename).startswith(
            _SKLEARN_DIR):
        return False
    while frame is not None and os.path.abspath(frame.f_code.co_filename).startswith(
            _SKLEARN_DIR):
        local = frame.f_locals
        if local.get("error_score", None) == "raise":
            return False
        if getattr(local.get("self"), "_raise_exc", False) is True:
            return False
        frame = frame.f_back
    return True


class RankingScorer:
    r"""A scorer for a ranking metric, usable as ``scoring=`` in scikit-learn.

    Calling ``scorer(estimator, X, y)`` gets scores from the fitted
    estimator (the first of ``response_method`` it has), turns them and ``y``
    into the metric's input (see Notes) and returns the metric. Build it with
    :func:`get_scorer` or :func:`make_ranking_scorer` rather than directly.

    .. math::

        \mathrm{score}(f, X, y) = \frac{1}{\sum_q w_q} \sum_{q} w_q\,
        m_k\big(y_q, \hat s_q(f, X)\big)

    where ``q`` runs over the rows (samples, or queries with ``qid``),
    :math:`\hat s_q` are the estimator's scores of the row's items and
    :math:`m_k` is the metric.

    Parameters
    ----------
    metric : str
        A metric name from :func:`get_scorer_names`, with an optional cut-off:
        ``"ndcg@10"``, ``"ndcg_exp@10"``, ``"map@5"``, ``"mrr"``, ...

    response_method : str or tuple of str, default=("decision_function", ...)
        Estimator methods tried in order; the first one the estimator has
        gives the scores. The default is ``("decision_function",
        "predict_proba", "predict")``.

    no_relevant : "warn", "skip" or float, default="warn"
        Policy for rows (queries) without a relevant item; see
        :func:`sk_rankmetrics.ndcg_score`.

    ignore_ties : bool, default=False
        See :func:`sk_rankmetrics.ndcg_score`.

    **options
        Options of the metric's function, e.g. ``gain="exponential"`` or
        ``threshold=2``.

    Notes
    -----
    What ``y`` and the estimator's output become:

    - ``y`` of shape (n_samples, n_outputs) (multilabel classifiers,
      multi-output regressors): each sample is a row, each output an item.
      A ``predict_proba`` returned as a list of per-label arrays scores each
      label by its expected class value (``P(1)`` for 0/1 labels), so a label
      that was constant in the training fold (one class in ``classes_``)
      scores 1 when that class is 1 and 0 when it is 0.
    - 1-D ``y`` with a classifier (multiclass or binary) and no ``qid``: each
      sample is a row whose items are the estimator's ``classes_``; the true
      class is the one relevant item, so MRR is the mean reciprocal rank of
      the true class. A binary classifier is the two-class case: the row has
      two items, ``[-d, d]`` for a ``decision_function`` ``d``. A test label
      not in ``classes_`` gives a row without a relevant item, handled by
      ``no_relevant`` (by default it scores 0 with a warning).
    - With ``qid`` (long format): ``y`` is the relevance of each
      query-document pair and the estimator gives one score per pair
      (``predict`` of a regressor or ranker; for a classifier the
      ``decision_function`` of a binary one or the expected grade from
      ``predict_proba``). Each query is scored, then the mean is taken over
      queries. ``sample_weight`` is then one weight per pair, constant within
      a query. ``qid`` reaches the scorer through metadata routing:
      ``scorer.set_score_request(qid=True)``.
    - ``exclude`` (matrices only): a mask of the shape of ``y`` of the items
      that are not candidates of their row (a recommender's training items),
      as in :func:`sk_rankmetrics.ndcg_score`. It reaches the scorer through
      metadata routing too, ``scorer.set_score_request(exclude=True)``, and
      a cross-validation split gives each fold its rows (sparse masks too).

    Inside ``GridSearchCV``, ``cross_validate`` and ``cross_val_score``,
    scikit-learn records a scorer that raises as a score of NaN
    (``error_score=np.nan``, their default). A scorer that requests ``qid``
    and is given none by ``GridSearchCV.fit`` or ``cross_validate`` raises
    before any fit. Other errors (a 1-D ``y`` with a regressor and no ``qid``,
    say) can only be seen when the scorer is called: it then warns, naming
    your line, before it raises; ``error_score="raise"`` stops the search at
    the first error.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.linear_model import LogisticRegression
    >>> from sk_rankmetrics import get_scorer
    >>> X = np.array([[0.0], [1.0], [2.0], [3.0], [4.0], [5.0]])
    >>> y = np.array([0, 0, 1, 1, 2, 2])
    >>> clf = LogisticRegression().fit(X, y)
    >>> scorer = get_scorer("mrr")
    >>> scorer
    RankingScorer('mrr', response_method=('decision_function', 'predict_proba', 'predict'))
    >>> round(scorer(clf, X, y), 3)
    1.0
    """

    @validate
    def __init__(self, metric: str, *, response_method: ResponseMethod = DEFAULT_RESPONSE_METHOD,
                 no_relevant: NoRelevant = "warn", ignore_ties: bool = False,
                 **options: Any) -> None:
        if not isinstance(metric, str):
            raise InvalidParameterError(
                f"metric must be a name such as 'ndcg@10', got {type(metric).__name__}."
            )
        if is_beyond(metric):  # coverage@10, ...: each row's top k, columns = catalogue
            greater = beyond_direction(metric, options)
        else:
            spec, _, _ = parse_name(metric)
            if spec.family not in SCORER_FAMILIES:
                raise InvalidParameterError(elsewhere(metric, spec, "RankingScorer"))
            make_requests([(metric, dict(options))], where="RankingScorer")  # checks options
            greater = spec.greater_is_better
        self.metric = metric
        self.response_method = check_response_method(response_method)
        self.no_relevant = no_relevant
        self.ignore_ties = ignore_ties
        self.options = dict(options)
        self.greater_is_better = greater
        self._sign = 1 if greater else -1
        self._request = None

    # -- scikit-learn's scorer protocol ---------------------------------------------

    @data_doc
    def __call__(self, estimator: Any, X: ArrayLike, y_true: ArrayLike, *,
                 qid: ArrayLike | None = None, sample_weight: ArrayLike | None = None,
                 exclude: ArrayLike | None = None) -> float:
        """Score a fitted ``estimator`` on ``X`` against ``y_true``.

        Parameters
        ----------
        estimator : fitted estimator
        X : array-like of shape (n_samples, n_features)
        y_true : array-like of shape (n_samples,) or (n_samples, n_outputs)
        qid : array-like of shape (n_samples,), default=None
            Query id of each sample (long format).
        sample_weight : array-like of shape (n_samples,), default=None
            Per row; with ``qid``, per pair and constant within a query.
        %(exclude)s

        Returns
        -------
        score : float
        """
        try:
            return self._score(estimator, X, y_true, qid=qid, sample_weight=sample_weight,
                               exclude=exclude)
        except Exception as exc:
            if _failure_becomes_nan():
                warn(
                    f"the {self.metric!r} scorer failed, and scikit-learn records the "
                    "score of this fit as nan (error_score=nan is the default of "
                    "GridSearchCV, cross_validate and cross_val_score; pass "
                    f"error_score='raise' to stop at the first error instead). The "
                    f"error: {exc}",
                    UserWarning,
                )
            raise

    def _score(self, estimator, X, y_true, *, qid, sample_weight, exclude=None):
        if qid is None and self._requests_qid():
            raise ValueError(_qid_missing_message(self, "to the scorer"))
        if qid is not None:
            n = _num_samples(y_true)
            n_q = _num_samples(qid)
            if n is not None and n_q is not None and n_q != n:
                raise ValueError(
                    f"qid has {n_q} entries but y has {n} samples; qid needs one query "
                    "id per sample (row of X). Under cross-validation pass qid for the "
                    "whole X through params/fit so that it is split with X."
                )
        y, score = estimator_responses(
            estimator, X, y_true, qid=qid, response_method=self.response_method
        )
        beyond = is_beyond(self.metric)  # its options are evaluate's data keywords
        data: dict[str, Any] = {"popularity": None, "item_features": None, "head_share": 0.2}
        data.update(self.options if beyond else {})
        result = evaluate_as(
            f"the scorer of {self.metric!r}", y, score,
            [self.metric if beyond else (self.metric, self.options)],
            per_row=False, sample_weight=sample_weight, no_relevant=self.no_relevant, qid=qid,
            judged=None, compute=True, ignore_ties=self.ignore_ties, exclude=exclude, **data,
        )
        return self._sign * result[self.metric]

    def __repr__(self) -> str:
        extra = "".join(f", {k}={v!r}" for k, v in self.options.items())
        if self.no_relevant != "warn":
            extra += f", no_relevant={self.no_relevant!r}"
        if self.ignore_ties:
            extra += ", ignore_ties=True"
        return (
            f"RankingScorer({self.metric!r}, response_method={self.response_method!r}"
            f"{extra})"
        )

    # -- metadata routing ---------------------------------------------------------

    def set_score_request(self, **kwargs: bool | str | None) -> RankingScorer:
        """Request metadata for scoring: ``qid``, ``sample_weight``, ``exclude``.

        Only available when metadata routing is enabled
        (``sklearn.set_config(enable_metadata_routing=True)``).

        Parameters
        ----------
        **kwargs : {True, False, None} or str
            ``qid=True`` asks for the query ids passed to ``fit`` /
            ``params``; ``exclude=True`` for a users x items mask of the
            items that are not candidates (a recommender's training items),
            whose rows the cross-validation split indexes like ``X``'s; a
            string asks for metadata under another name.

        Returns
        -------
        self : RankingScorer
            The scorer, with the request recorded.

        Notes
        -----
        Routed metadata that the scorer has not requested raise scikit-learn's
        ``UnsetMetadataPassedError``. A requested ``qid`` that is missing
        raises a ``ValueError``: when scikit-learn routes the metadata of
        ``GridSearchCV.fit`` or ``cross_validate`` to this scorer, before any
        fit; otherwise (a dict of scorers, ``cross_val_score``) when the
        scorer is called, where scikit-learn turns the error into a score of
        NaN unless ``error_score="raise"`` (the scorer warns first, naming
        your line).

        Examples
        --------
        >>> import sklearn
        >>> from sk_rankmetrics import get_scorer
        >>> with sklearn.config_context(enable_metadata_routing=True):
        ...     scorer = get_scorer("ndcg@10").set_score_request(qid=True)
        >>> scorer.get_metadata_routing().score.requests["qid"]
        True
        """
        if not _routing_enabled():
            raise RuntimeError(
                "set_score_request needs scikit-learn's metadata routing, which is "
                "off. Enable it with sklearn.set_config(enable_metadata_routing=True) "
                "or inside `with sklearn.config_context(enable_metadata_routing=True):`."
            )
        unknown = sorted(set(kwargs) - set(_SCORE_PARAMS))
        if unknown:
            raise InvalidParameterError(
                f"set_score_request got unexpected metadata {unknown}; a RankingScorer "
                f"accepts {list(_SCORE_PARAMS)}."
            )
        request = self._get_request()
        for param, alias in kwargs.items():
            request.score.add_request(param=param, alias=alias)
        self._request = request
        return self

    def _get_request(self):
        if self._request is None:
            request = _ScoreRequest(owner=self)
            for param in _SCORE_PARAMS:
                request.score.add_request(param=param, alias=None)
            return request
        return self._request

    def get_metadata_routing(self) -> MetadataRequest:
        """The metadata this scorer requests (``qid``, ``sample_weight``, ``exclude``).

        Returns
        -------
        routing : sklearn.utils.metadata_routing.MetadataRequest
            Requests of the ``score`` method: ``None`` (an error if passed)
            until :meth:`set_score_request` sets them.

        Notes
        -----
        scikit-learn's meta-estimators read this to route ``qid``,
        ``sample_weight`` and ``exclude`` to the scorer.

        Examples
        --------
        >>> from sk_rankmetrics import get_scorer
        >>> get_scorer("mrr").get_metadata_routing().score.requests
        {'qid': None, 'sample_weight': None, 'exclude': None}
        """
        return self._get_request()

    def _requests_qid(self):
        if self._request is None:
            return False
        alias = self._request.score.requests.get("qid")
        return alias is True or isinstance(alias, str)

    def _routing_repr(self):
        return repr(self)

    def _accept_sample_weight(self):
        # scikit-learn forwards sample_weight to scorers that accept it when
        # metadata routing is off.
        return True


def _num_samples(x):
    """The length of ``x``; None when it is not known yet (a Dask collection,
    whose partitions the Dask path checks one by one)."""
    backend = backend_for(x)
    if backend is not None:
        return backend.n_samples(x)
    if hasattr(x, "shape") and len(x.shape):
        return int(x.shape[0])
    return len(x)


def beyond_direction(metric, options):
    """Whether a larger value of the beyond-accuracy ``metric`` is better; its
    name and its options (data keywords only) checked."""
    (req,) = beyond_requests([metric], where="RankingScorer")
    unknown = sorted(set(options) - set(DATA_OPTIONS))
    if unknown:
        raise InvalidParameterError(
            f"RankingScorer: {metric!r} takes the options {', '.join(DATA_OPTIONS)}, not "
            f"{', '.join(unknown)}."
        )
    refuse_unread_data([req], f"RankingScorer({metric!r})", **options)
    return REGISTRY[req.name].greater_is_better


def _name_of(metric):
    """Registry name for a metric name or for one of this package's metric functions.

    Functions are matched by identity, not by name: scikit-learn's own
    ``ndcg_score`` is not this package's and is refused.
    """
    if isinstance(metric, str):
        return metric
    name = getattr(metric, "_sk_rankmetrics_metric", None)
    if name is not None:
        return name
    raise InvalidParameterError(
        f"metric must be a name such as 'ndcg@10' or one of this package's metric "
        f"functions (e.g. sk_rankmetrics.ndcg_score), got {short_repr(metric)}. For "
        "another library's metric function use sklearn.metrics.make_scorer."
    )


@validate
@shared_doc
def make_ranking_scorer(metric: str | Callable[..., Any], *, k: int | None = None,
                        response_method: ResponseMethod = DEFAULT_RESPONSE_METHOD,
                        no_relevant: NoRelevant = "warn", ignore_ties: bool = False,
                        **options: Any) -> RankingScorer:
    r"""Make a scorer from a metric and its options.

    Parameters
    ----------
    metric : str or callable
        A name such as ``"ndcg"`` or ``"ndcg@10"``, or one of this package's
        metric functions, e.g. :func:`sk_rankmetrics.ndcg_score`.

    k : int, default=None
        Cut-off; may also be written in the name (``"ndcg@10"``), not both.

    response_method : str or tuple of str, default=("decision_function", ...)
        Estimator methods tried in order: by default ``("decision_function",
        "predict_proba", "predict")``.

    no_relevant : "warn", "skip" or float, default="warn"
        Policy for rows without a relevant item.

    ignore_ties : bool, default=False
        Rank tied scores in one order (of equal scores the later column, or
        with ``qid`` the later entry, first) instead of their expected value.

    **options
        Options of the metric's function (``gain``, ``threshold``,
        ``denominator``, ...).

    %(returns_scorer)s

    Notes
    -----
    ``sklearn.metrics.make_scorer(ndcg_score, response_method=..., k=10)``
    also works when ``y`` and the estimator's output are matrices; this
    scorer in addition binarises 1-D class labels, reads ragged multilabel
    ``predict_proba`` output and takes ``qid`` through metadata routing.

    Examples
    --------
    >>> from sk_rankmetrics import make_ranking_scorer, ndcg_score
    >>> make_ranking_scorer(ndcg_score, k=10, gain="exponential")
    RankingScorer('ndcg@10', response_method=('decision_function', 'predict_proba',
    'predict'), gain='exponential')
    """
    name = _name_of(metric)
    if is_beyond(name):
        if k is not None:
            if "@" in name:
                raise InvalidParameterError(
                    f"the cut-off is given twice: in the name {name!r} and as k={k!r}; "
                    "give it once."
                )
            name = f"{name.strip()}@{k}"
        return RankingScorer(name.strip(), response_method=response_method,
                             no_relevant=no_relevant, ignore_ties=ignore_ties, **options)
    spec, k_name, _ = parse_name(name)
    if k is not None:
        if k_name is not None:
            raise InvalidParameterError(
                f"the cut-off is given twice: in the name {name!r} and as k={k!r}; "
                "give it once."
            )
        if not spec.takes_k:
            raise InvalidParameterError(f"metric {spec.name!r} takes no cut-off; drop k.")
        name = f"{name.strip()}@{k}"
    return RankingScorer(name.strip(), response_method=response_method,
                         no_relevant=no_relevant, ignore_ties=ignore_ties, **options)


def _with_qid(scorer, qid, where):
    """``scorer`` with ``qid`` requested (``qid=True`` or an alias), or as is."""
    if qid is None or qid is False:
        return scorer
    if qid is not True and not isinstance(qid, str):
        raise InvalidParameterError(f"{where}: qid must be True (request the query ids), "
                                    f"a str (their name in the metadata) or False, got "
                                    f"{qid!r}.")
    if not _routing_enabled():
        raise RuntimeError(
            f"{where}: qid={qid!r} asks scikit-learn to route the query ids to the scorer, "
            "which needs scikit-learn's metadata routing; it is off. Enable it with "
            "sklearn.set_config(enable_metadata_routing=True), or call "
            f"{where}(...) inside `with sklearn.config_context(enable_metadata_routing=True):`"
            "; or drop qid to score matrix rows."
        )
    if not hasattr(scorer, "set_score_request"):
        raise InvalidParameterError(f"{where}: qid={qid!r} needs a scorer with "
                                    f"set_score_request; {scorer!r} has none.")
    return scorer.set_score_request(qid=qid)


@overload
def get_scorer(name: str, *, qid: bool | str = ..., **options: Any) -> RankingScorer: ...
@overload
def get_scorer(name: _Callable, *, qid: bool | str = ..., **options: Any) -> _Callable: ...
@shared_doc
def get_scorer(name: str | Callable[..., Any], *, qid: bool | str = False,
               **options: Any) -> RankingScorer | Callable[..., Any]:
    r"""Get a scorer by metric name, e.g. ``"ndcg@10"``.

    Parameters
    ----------
    name : str or callable
        A metric name from :func:`get_scorer_names`, with an optional ``@k``
        cut-off: ``"ndcg@10"``, ``"ndcg_exp@10"`` (exponential gain),
        ``"map@10"``, ``"mrr"``, ``"precision@5"``, ``"recall@20"``,
        ``"hit_rate@10"``. A callable is returned unchanged.

    qid : bool or str, default=False
        ``True`` requests the query ids in one step: the same as
        ``get_scorer(name).set_score_request(qid=True)``, for long-format
        data scored per query. Needs scikit-learn's metadata routing
        (``sklearn.set_config(enable_metadata_routing=True)``); with it off,
        a ``RuntimeError`` says so. A str requests them under that name.

    **options
        Keyword arguments of :func:`make_ranking_scorer` (``response_method``,
        ``no_relevant``, metric options such as ``gain``).

    %(returns_scorer)s

    Notes
    -----
    An unknown name raises a ``ValueError`` that lists close matches.

    Examples
    --------
    >>> import sklearn
    >>> from sk_rankmetrics import get_scorer
    >>> get_scorer("ndcg@10")
    RankingScorer('ndcg@10', response_method=('decision_function', 'predict_proba',
    'predict'))
    >>> with sklearn.config_context(enable_metadata_routing=True):
    ...     scorer = get_scorer("ndcg@10", qid=True)
    >>> scorer.get_metadata_routing().score.requests["qid"]
    True
    """
    if callable(name) and not isinstance(name, str):
        return _with_qid(name, qid, "get_scorer") if qid else name
    return _with_qid(make_ranking_scorer(name, **options), qid, "get_scorer")


def get_scorers(names: Metrics, *, qid: bool | str = False,
                **options: Any) -> dict[str, RankingScorer]:
    r"""Several scorers at once, as a dict usable as ``scoring=``.

    Parameters
    ----------
    names : str or list of str or (str, dict) pairs
        Metric names; a pair adds options for that metric only.

    qid : bool or str, default=False
        ``True`` requests the query ids on every scorer (see
        :func:`get_scorer`); needs scikit-learn's metadata routing.

    **options
        Options for every scorer (``response_method``, ``no_relevant``, ...).

    Returns
    -------
    scorers : dict
        Name to :class:`RankingScorer`, in the given order; use a name as
        ``refit=`` of a search. Each computes
        :math:`\frac{1}{\sum_q w_q}\sum_q w_q\, m_k(y_q, \hat s_q)`.

    Notes
    -----
    Each scorer calls the estimator's response method itself. To score per
    query, pass ``qid=True``: every scorer then requests the query ids.

    Examples
    --------
    >>> from sk_rankmetrics import get_scorers
    >>> list(get_scorers(["ndcg@10", "map@10", "mrr"]))
    ['ndcg@10', 'map@10', 'mrr']
    """
    if isinstance(names, str):
        names = [names]
    out: dict[str, Any] = {}
    for item in names:
        name, own = split_request(item, must="names must be metric names")
        check_unique([*out, name], where="get_scorers", arg="names")
        out[name] = _with_qid(make_ranking_scorer(name, **{**options, **own}), qid,
                              "get_scorers")
    if not out:
        raise InvalidParameterError("names is empty; name at least one metric, e.g. "
                                    "'ndcg@10'.")
    return out


def get_scorer_names() -> list[str]:
    """Every metric name accepted by :func:`get_scorer` (append ``@k`` for a cut-off).

    Like scikit-learn's own ``get_scorer_names``, the list holds every
    accepted spelling: the canonical names and presets of
    :func:`sk_rankmetrics.metric_names` and their aliases
    (``metric_names(aliases=True)`` says which name each alias stands for).

    Returns
    -------
    names : list of str
        Names in alphabetical order.

    Notes
    -----
    Any name may take a cut-off, ``"name@k"``, except ``"r_precision"`` and
    its aliases.

    Examples
    --------
    >>> from sk_rankmetrics import get_scorer_names, metric_names
    >>> {"ndcg", "ndcg_exp", "map", "mrr", "precision", "recall", "hit_rate"} <= set(
    ...     get_scorer_names())
    True
    >>> "p" in get_scorer_names() and "p" not in metric_names()
    True
    """
    return sorted(name for family in SCORER_FAMILIES
                  for name in (*metric_names(family=family),
                               *metric_names(aliases=True, family=family)))
