"""Estimator outputs -> ``(y_true, y_score)`` in a layout the metrics accept.

The scorers call :func:`estimator_responses`; nothing here computes a metric.
Two layouts come out:

- matrices ``(n_rows, n_items)`` when no ``qid`` is given: multi-output
  regressors, multilabel classifiers (``predict_proba`` as a list of
  per-label arrays, ``classes_`` possibly ragged) and classifiers trained on
  1-D labels (``y_true`` binarised against ``classes_``: the classes are the
  items of each row);
- long format (1-D ``y_true`` and ``y_score``) when a ``qid`` is given: one
  score per query-item pair, from a regressor, a ranker or a classifier.

Loops here run over response methods and over the labels of a multilabel
estimator, never over rows or queries. Dask arrays (a Dask-aware estimator's
predictions on Dask data) stay Dask arrays: the metrics take them as they are.
"""

from __future__ import annotations

import numpy as np
from sklearn.base import is_classifier

from .._utils.backends import backend_for
from .._utils.errors import InvalidParameterError
from .._utils.params import RESPONSE_METHODS

#: Order in which response methods are tried (the first one the estimator has).
DEFAULT_RESPONSE_METHOD = RESPONSE_METHODS
_KNOWN_METHODS = RESPONSE_METHODS


def check_response_method(response_method):
    """Return the response methods as a tuple of known names, or raise."""
    if isinstance(response_method, str):
        methods = (response_method,)
    elif isinstance(response_method, (list, tuple)) and response_method:
        methods = tuple(response_method)
    else:
        raise InvalidParameterError(
            "response_method must be a method name or a non-empty list of names "
            f"from {_KNOWN_METHODS}, got {response_method!r}."
        )
    for m in methods:
        if m not in _KNOWN_METHODS:
            raise InvalidParameterError(
                f"response_method contains {m!r}; accepted names are "
                f"{', '.join(map(repr, _KNOWN_METHODS))}."
            )
    return methods


def _as_numpy(x):
    """``x`` as a NumPy array; Dask collections stay lazy (a Dask data frame
    becomes a Dask array, a Dask Series stays as it is)."""
    backend = backend_for(x)
    if backend is not None:
        return backend.as_array(x)
    if hasattr(x, "to_numpy"):
        x = x.to_numpy()
    return np.asarray(x)


def _same_shape(a, b):
    """Equal shapes; a Dask array's unknown lengths (NaN) match any length."""
    return len(a) == len(b) and all(x == y or x != x or y != y for x, y in zip(a, b))


def _numeric(classes):
    return np.asarray(classes).dtype.kind in "biuf"


def _expected_label(proba, classes, what):
    """One score per sample from class probabilities: the expected class value.

    For classes ``{0, 1}`` this is ``P(1)``; for graded classes ``{0, .., 4}``
    it is the expected grade. Non-numeric classes work only when there are two
    of them (the score is the probability of the second, as in scikit-learn).
    """
    proba = _as_numpy(proba).astype(np.float64)
    if proba.ndim != 2:
        raise ValueError(f"{what}: predict_proba returned shape {proba.shape}, not 2-D.")
    if classes is None:
        if proba.shape[1] == 2:
            return proba[:, 1]
        raise ValueError(
            f"{what}: predict_proba has {proba.shape[1]} columns and the estimator "
            "has no classes_, so there is no single score per sample."
        )
    classes = np.asarray(classes)
    if proba.shape[1] != classes.shape[0]:
        raise ValueError(
            f"{what}: predict_proba has {proba.shape[1]} columns but classes_ has "
            f"{classes.shape[0]} entries."
        )
    if _numeric(classes):
        return proba @ classes.astype(np.float64)
    if classes.shape[0] == 2:
        return proba[:, 1]
    raise ValueError(
        f"{what}: classes {classes.tolist()} are not numbers, so they cannot be "
        "read as relevance grades; encode relevance as integers 0, 1, 2, ..."
    )


def _pick_method(estimator, methods):
    for m in methods:
        if hasattr(estimator, m):
            return m
    raise ValueError(
        f"{type(estimator).__name__} has none of the response methods "
        f"{', '.join(methods)}; pass response_method= with a method it has."
    )


def _call(estimator, method, X):
    return getattr(estimator, method)(X)


def estimator_responses(estimator, X, y_true, *, qid=None,
                        response_method=DEFAULT_RESPONSE_METHOD):
    """Return ``(y_true, y_score)`` for the metrics from a fitted estimator.

    Parameters
    ----------
    estimator : fitted estimator (or Pipeline)
    X : array-like
    y_true : array-like of shape (n_samples,) or (n_samples, n_outputs)
    qid : array-like of shape (n_samples,), default=None
        Long format when given: one output per sample.
    response_method : str or sequence of str
        Methods tried in order; the first the estimator has is used.

    Returns
    -------
    y_true, y_score : ndarray
        2-D matrices without ``qid``; 1-D arrays with it.
    """
    methods = check_response_method(response_method)
    y = _as_numpy(y_true)
    if qid is not None:
        return _long(estimator, X, y, methods)
    if y.ndim == 1:
        if not is_classifier(estimator):
            raise ValueError(
                f"y is 1-D and {type(estimator).__name__} is not a classifier, which "
                "looks like long-format ranking data (one row per query-document "
                "pair), but no qid reached the scorer. Enable metadata routing with "
                "sklearn.set_config(enable_metadata_routing=True), request qid with "
                "scorer.set_score_request(qid=True) and pass qid with the data, e.g. "
                "cross_validate(..., params={'qid': qid, 'groups': qid}, "
                "cv=GroupKFold()). For matrices, y must be 2-D (n_samples, n_items)."
            )
        return _one_of_classes(estimator, X, y, methods)
    if y.ndim != 2:
        raise ValueError(f"y must be 1-D or 2-D, got shape {y.shape}.")
    return y, _multi_output(estimator, X, y, methods)


def _classes(estimator):
    return getattr(estimator, "classes_", None)


def _one_of_classes(estimator, X, y, methods):
    """1-D class labels: every class is an item; the true class is relevant."""
    classes = _classes(estimator)
    if classes is None or isinstance(classes, list) or np.ndim(classes) != 1:
        raise ValueError(
            f"y is 1-D but {type(estimator).__name__} has no 1-D classes_; class "
            "labels can only be binarised against the classes of a classifier "
            "fitted on 1-D labels."
        )
    classes = np.asarray(classes)
    if classes.shape[0] < 2:
        raise ValueError(
            f"{type(estimator).__name__} was fitted on a single class "
            f"({classes.tolist()}); ranking classes needs at least 2."
        )
    # A test label not in classes_ gives an all-zero row (no relevant item).
    y_bin = (y[:, None] == classes[None, :]).astype(np.float64)
    method = _pick_method(estimator, methods)
    out = _as_numpy(_call(estimator, method, X))
    if method == "predict":
        score = (out[:, None] == classes[None, :]).astype(np.float64)
    elif out.ndim == 1:  # binary decision_function: score of classes_[1]
        out = out.astype(np.float64)
        score = np.stack([-out, out], axis=1)
    else:
        score = out.astype(np.float64)
    if not _same_shape(score.shape, y_bin.shape):
        raise ValueError(
            f"{type(estimator).__name__}.{method} returned shape {out.shape}, which "
            f"does not match {classes.shape[0]} classes for {y.shape[0]} samples."
        )
    return y_bin, score


def _multi_output(estimator, X, y, methods):
    """2-D y: multi-output regressors and multilabel / multi-output classifiers."""
    name = type(estimator).__name__
    method = _pick_method(estimator, methods)
    out = _call(estimator, method, X)
    if isinstance(out, list):  # predict_proba of a multi-output classifier
        classes = _classes(estimator)
        if not isinstance(classes, list) or len(classes) != len(out):
            classes = [None] * len(out)
        cols = [
            _expected_label(p, c, f"{name}, output {j}")
            for j, (p, c) in enumerate(zip(out, classes))
        ]
        score = np.stack(cols, axis=1)
    else:
        score = _as_numpy(out)
        if score.dtype.kind not in "biuf":
            raise ValueError(
                f"{name}.{method} returned non-numeric values ({score.dtype}); "
                "use a response method that gives scores."
            )
        score = score.astype(np.float64)
    if not _same_shape(score.shape, y.shape):
        raise ValueError(
            f"{name}.{method} returned shape {score.shape} but y has shape {y.shape}; "
            "a matrix y needs one score per sample and output."
        )
    return score


def _long(estimator, X, y, methods):
    """Long format: one score per query-item pair."""
    name = type(estimator).__name__
    if y.ndim != 1:
        raise ValueError(
            f"with qid, y must be 1-D (one relevance per query-item pair), got shape "
            f"{y.shape}."
        )
    if not is_classifier(estimator):
        method = _pick_method(estimator, methods)
        score = _as_numpy(_call(estimator, method, X))
        if score.ndim == 2 and score.shape[1] == 1:
            score = score[:, 0]
        if score.ndim != 1:
            raise ValueError(
                f"{name}.{method} returned shape {score.shape}; with qid one score "
                "per sample is needed."
            )
        return y, score
    classes = np.asarray(_classes(estimator))
    if not _numeric(classes) and classes.shape[0] == 2:
        y = (y == classes[1]).astype(np.float64)  # relevant = the second class
    elif not _numeric(classes):
        raise ValueError(
            f"{name} has classes {classes.tolist()}, which are not relevance grades; "
            "with qid, a classifier's labels must be numbers (0, 1, 2, ...)."
        )
    avail = [m for m in methods if hasattr(estimator, m)]
    if not avail:
        _pick_method(estimator, methods)  # raises
    # A multiclass decision_function has no single score per pair: skip it.
    if avail[0] == "decision_function" and classes.shape[0] > 2 and len(avail) > 1:
        avail = avail[1:]
    method = avail[0]
    out = _call(estimator, method, X)
    if method == "predict_proba":
        score = _expected_label(out, classes, name)
    else:
        score = _as_numpy(out)
        if method == "predict" and not _numeric(classes):
            score = score == classes[1]
        score = score.astype(np.float64)
        if score.ndim != 1:
            raise ValueError(
                f"{name}.{method} returned shape {score.shape}; with qid one score "
                "per sample is needed (use predict_proba: the expected grade)."
            )
    return y, score
