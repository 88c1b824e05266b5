"""Model-selection mistakes that scikit-learn would turn into a score of NaN.

scikit-learn's ``GridSearchCV``, ``cross_validate`` and ``cross_val_score``
catch every error a scorer raises and record the score as NaN
(``error_score=np.nan``). Two mistakes of per-query scoring end there:

- routing on, ``set_score_request(qid=True)``, and ``qid`` forgotten in ``fit``:
  the scorer's request refuses it while scikit-learn routes the metadata,
  before any fit, so the search raises at once;
- a 1-D ``y`` with a regressor and no ``qid`` (routing off, or no request):
  the scorer cannot know before it is called; it then warns, naming the
  user's line and ``error_score="raise"``, before scikit-learn swallows the
  error.
"""

import warnings

import numpy as np
import pytest
import sklearn
from sklearn.base import BaseEstimator, RegressorMixin
from sklearn.linear_model import Ridge
from sklearn.model_selection import GridSearchCV, GroupKFold, cross_val_score, cross_validate

from sk_rankmetrics import get_scorer, get_scorers


def routing():
    return sklearn.config_context(enable_metadata_routing=True)


def _data():
    rng = np.random.default_rng(0)
    qid = np.repeat(np.arange(12), 8)
    X = rng.normal(size=(qid.size, 3))
    y = (X[:, 0] > 0.3).astype(int)
    y[::8] = 1  # every query has a relevant document
    return X, y, qid


class CountingRidge(RegressorMixin, BaseEstimator):
    """A ridge regression that counts its fits."""

    fits = 0

    def __init__(self, alpha=1.0):
        self.alpha = alpha

    def fit(self, X, y):
        CountingRidge.fits += 1
        self.model_ = Ridge(alpha=self.alpha).fit(X, y)
        return self

    def predict(self, X):
        return self.model_.predict(X)


@pytest.fixture
def counting():
    CountingRidge.fits = 0
    return CountingRidge


def _grid(est, scoring, X, y, qid, **kw):
    refit = "ndcg@5" if isinstance(scoring, dict) else True
    return GridSearchCV(est, {"alpha": [1.0, 10.0]}, scoring=scoring, cv=GroupKFold(3),
                        refit=refit, **kw).fit(X, y, groups=qid)


SEARCHES = {
    "GridSearchCV": _grid,
    "cross_validate": lambda est, scoring, X, y, qid, **kw: cross_validate(
        est, X, y, scoring=scoring, cv=GroupKFold(3), params={"groups": qid}, **kw),
    "cross_val_score": lambda est, scoring, X, y, qid, **kw: cross_val_score(
        est, X, y, scoring=scoring, cv=GroupKFold(3), params={"groups": qid}, **kw),
}


def _requesting(multi):
    with routing():
        if multi:
            return {n: s.set_score_request(qid=True)
                    for n, s in get_scorers(["ndcg@5", "mrr"]).items()}
        return get_scorer("ndcg@5").set_score_request(qid=True)


@pytest.mark.slow
@pytest.mark.parametrize("search", ["GridSearchCV", "cross_validate"])
def test_forgotten_qid_raises_before_any_fit(search, counting):
    X, y, qid = _data()
    with routing():
        with warnings.catch_warnings():
            warnings.simplefilter("error")  # no NaN, no warning: an error
            with pytest.raises(ValueError, match=r"requests qid .* none was passed along "
                                                 r"with the data"):
                SEARCHES[search](counting(), _requesting(False), X, y, qid)
    assert counting.fits == 0


@pytest.mark.parametrize(("search", "multi"), [("GridSearchCV", True),
                                               ("cross_validate", True),
                                               ("cross_val_score", False)])
def test_forgotten_qid_through_a_multi_metric_scorer_warns_then_raises_if_asked(search,
                                                                               multi):
    """scikit-learn routes to a dict of scorers (and cross_val_score's scorer)
    through its multi-metric scorer, which routes nothing when no metadata
    reach it: the scorers see the mistake only when called."""
    X, y, qid = _data()
    scoring = _requesting(multi)
    with routing():
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            SEARCHES[search](Ridge(), scoring, X, y, qid)
        ours = [w for w in caught if "scorer failed" in str(w.message)]
        assert ours and ours[0].filename == __file__
        assert "requests qid" in str(ours[0].message)
        assert "error_score='raise'" in str(ours[0].message)
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            with pytest.raises(ValueError, match=r"requests qid .* none was passed"):
                SEARCHES[search](Ridge(), scoring, X, y, qid, error_score="raise")


def test_forgotten_qid_under_an_alias_raises():
    X, y, qid = _data()
    with routing():
        scorer = get_scorer("ndcg@5").set_score_request(qid="query")
        with pytest.raises(ValueError, match="requests qid"):
            cross_validate(Ridge(), X, y, scoring=scorer, cv=GroupKFold(3),
                           params={"groups": qid})  # 'query' is missing
        got = cross_validate(Ridge(), X, y, scoring=scorer, cv=GroupKFold(3),
                             params={"groups": qid, "query": qid})["test_score"]
    assert np.isfinite(got).all()


@pytest.mark.slow
@pytest.mark.parametrize("multi", [False, True])
def test_with_qid_nothing_is_refused(multi):
    X, y, qid = _data()
    with routing():
        if multi:
            scoring = {n: s.set_score_request(qid=True)
                       for n, s in get_scorers(["ndcg@5", "mrr"]).items()}
        else:
            scoring = get_scorer("ndcg@5").set_score_request(qid=True)
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            search = GridSearchCV(Ridge(), {"alpha": [1.0, 10.0]}, scoring=scoring,
                                  cv=GroupKFold(3), refit="ndcg@5" if multi else True)
            search.fit(X, y, qid=qid, groups=qid)
    assert np.isfinite(search.best_score_)


def test_one_dimensional_y_without_qid_warns_at_the_users_line():
    X, y, qid = _data()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        search = GridSearchCV(Ridge(), {"alpha": [1.0, 10.0]}, scoring=get_scorer("ndcg@5"),
                              cv=GroupKFold(3)).fit(X, y, groups=qid)
    assert np.isnan(search.best_score_)  # scikit-learn's doing: we can only warn
    ours = [w for w in caught if "scorer failed" in str(w.message)]
    assert ours, [str(w.message)[:80] for w in caught]
    first = ours[0]
    assert first.category is UserWarning
    assert first.filename == __file__  # the user's line, not the package's
    message = str(first.message)
    assert "error_score='raise'" in message
    assert "y is 1-D and Ridge is not a classifier" in message
    assert "enable_metadata_routing=True" in message


def test_with_error_score_raise_there_is_no_warning_only_the_error():
    X, y, qid = _data()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(ValueError, match="y is 1-D and Ridge is not a classifier"):
            GridSearchCV(Ridge(), {"alpha": [1.0]}, scoring=get_scorer("ndcg@5"),
                         cv=GroupKFold(3), error_score="raise").fit(X, y, groups=qid)
        with pytest.raises(ValueError, match="y is 1-D and Ridge is not a classifier"):
            GridSearchCV(Ridge(), {"alpha": [1.0]}, scoring=get_scorers(["ndcg@5", "mrr"]),
                         refit="mrr", cv=GroupKFold(3),
                         error_score="raise").fit(X, y, groups=qid)


def test_a_direct_call_raises_without_a_warning():
    X, y, _ = _data()
    est = Ridge().fit(X, y)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(ValueError, match="y is 1-D"):
            get_scorer("ndcg@5")(est, X, y)
        with routing():
            scorer = get_scorer("ndcg@5").set_score_request(qid=True)
        with pytest.raises(ValueError, match=r"requests qid .* none was passed to the scorer"):
            scorer(est, X, y)
