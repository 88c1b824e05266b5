"""Per-query scoring of long-format data through scikit-learn's metadata routing.

Metadata routing is a global setting: every test turns it on with
``sklearn.config_context`` and leaves it off afterwards.
"""

import pickle

import numpy as np
import pytest
import sklearn
from sklearn.base import clone
from sklearn.ensemble import HistGradientBoostingRegressor
from sklearn.exceptions import UnsetMetadataPassedError
from sklearn.linear_model import Ridge
from sklearn.metrics import ndcg_score as sk_ndcg_score
from sklearn.model_selection import GridSearchCV, GroupKFold, cross_val_score, cross_validate
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from sk_rankmetrics import get_scorer, get_scorers

#: Slow (scikit-learn searches and cross-validation): left out by pytest -m 'not slow'.
pytestmark = pytest.mark.slow


def routing():
    return sklearn.config_context(enable_metadata_routing=True)


def make_ltr(n_queries=30, seed=0):
    """Long-format data: queries of 5 to 30 documents, rows in random order."""
    rng = np.random.default_rng(seed)
    sizes = rng.integers(5, 31, size=n_queries)
    qid = np.repeat(rng.permutation(1000)[:n_queries], sizes)
    X = rng.normal(size=(qid.shape[0], 5))
    y = np.digitize(X[:, 0] + 0.5 * X[:, 1] + 0.7 * rng.normal(size=qid.shape[0]),
                    [0.3, 1.0, 1.8])
    # every query has at least one relevant document
    first = np.unique(qid, return_index=True)[1]
    y[first] = np.maximum(y[first], 1)
    perm = rng.permutation(qid.shape[0])
    return X[perm], y[perm], qid[perm]


def per_query_ndcg(y, s, qid, k, weights=None):
    """scikit-learn's ndcg_score on each query separately, then the mean."""
    qs = np.unique(qid)
    vals = np.array([sk_ndcg_score([y[qid == q]], [s[qid == q]], k=k) for q in qs])
    if weights is None:
        return vals.mean()
    w = np.array([weights[qid == q][0] for q in qs])
    return np.average(vals, weights=w)


def _folds_by_hand(est, X, y, qid, cv, k=10):
    out = []
    for tr, te in cv.split(X, y, groups=qid):
        fitted = clone(est).fit(X[tr], y[tr])
        out.append(per_query_ndcg(y[te], fitted.predict(X[te]), qid[te], k))
    return np.array(out)


def test_cross_validate_scores_per_query():
    X, y, qid = make_ltr()
    cv = GroupKFold(n_splits=3)
    est = HistGradientBoostingRegressor(max_iter=30, random_state=0)
    with routing():
        scorer = get_scorer("ndcg@10").set_score_request(qid=True)
        res = cross_validate(est, X, y, scoring=scorer, cv=cv,
                             params={"qid": qid, "groups": qid})
    np.testing.assert_allclose(res["test_score"], _folds_by_hand(est, X, y, qid, cv),
                               rtol=0, atol=1e-12)


def test_gridsearch_hgb_pointwise_ranker_by_ndcg_at_10():
    X, y, qid = make_ltr(seed=1)
    cv = GroupKFold(n_splits=3)
    grid_values = [2, 8]
    with routing():
        scorer = get_scorer("ndcg@10").set_score_request(qid=True)
        grid = GridSearchCV(HistGradientBoostingRegressor(max_iter=20, random_state=0),
                            {"max_leaf_nodes": grid_values}, scoring=scorer, cv=cv)
        grid.fit(X, y, qid=qid, groups=qid)
    for i, leaves in enumerate(grid_values):
        est = HistGradientBoostingRegressor(max_iter=20, random_state=0,
                                            max_leaf_nodes=leaves)
        want = _folds_by_hand(est, X, y, qid, cv)
        got = [grid.cv_results_[f"split{s}_test_score"][i] for s in range(3)]
        np.testing.assert_allclose(got, want, rtol=0, atol=1e-12)
    assert grid.best_score_ == max(grid.cv_results_["mean_test_score"])


def test_pipeline_multi_metric_and_n_jobs_2():
    X, y, qid = make_ltr(seed=2)
    cv = GroupKFold(n_splits=4)
    pipe = make_pipeline(StandardScaler(), Ridge())
    with routing():
        scorers = {n: s.set_score_request(qid=True)
                   for n, s in get_scorers(["ndcg@10", "mrr"]).items()}
        res = cross_validate(pipe, X, y, scoring=scorers, cv=cv, n_jobs=2,
                             params={"qid": qid, "groups": qid})
    np.testing.assert_allclose(res["test_ndcg@10"], _folds_by_hand(pipe, X, y, qid, cv),
                               rtol=0, atol=1e-12)
    want_mrr = []
    for tr, te in cv.split(X, y, groups=qid):
        s = clone(pipe).fit(X[tr], y[tr]).predict(X[te])
        rr = []
        for q in np.unique(qid[te]):
            m = qid[te] == q
            order = np.argsort(-s[m])
            rr.append(1.0 / (1 + np.flatnonzero(y[te][m][order] > 0)[0]))
        want_mrr.append(np.mean(rr))
    np.testing.assert_allclose(res["test_mrr"], want_mrr, rtol=0, atol=1e-12)


def test_sample_weight_per_pair_routed_to_scorer():
    X, y, qid = make_ltr(seed=3)
    qs, inv = np.unique(qid, return_inverse=True)
    w = (1.0 + np.arange(qs.shape[0]) % 3)[inv]  # constant within each query
    cv = GroupKFold(n_splits=3)
    with routing():
        scorer = get_scorer("ndcg@10").set_score_request(qid=True, sample_weight=True)
        est = Ridge().set_fit_request(sample_weight=False)
        got = cross_val_score(est, X, y, scoring=scorer, cv=cv,
                              params={"qid": qid, "groups": qid, "sample_weight": w})
    want = []
    for tr, te in cv.split(X, y, groups=qid):
        s = Ridge().fit(X[tr], y[tr]).predict(X[te])
        want.append(per_query_ndcg(y[te], s, qid[te], 10, weights=w[te]))
    np.testing.assert_allclose(got, want, rtol=0, atol=1e-12)
    unweighted = _folds_by_hand(Ridge(), X, y, qid, cv)
    assert not np.allclose(got, unweighted)


def test_pickle_keeps_the_request():
    X, y, qid = make_ltr()
    est = Ridge().fit(X, y)
    with routing():
        scorer = get_scorer("ndcg@10").set_score_request(qid=True)
    clone_ = pickle.loads(pickle.dumps(scorer))
    assert clone_.get_metadata_routing().score.requests["qid"] is True
    assert clone_(est, X, y, qid=qid) == scorer(est, X, y, qid=qid)
    with pytest.raises(ValueError, match="requests qid"):
        clone_(est, X, y)


def test_error_routing_disabled_says_how_to_enable():
    with sklearn.config_context(enable_metadata_routing=False):
        with pytest.raises(RuntimeError, match=r"set_config\(enable_metadata_routing=True\)"):
            get_scorer("ndcg@10").set_score_request(qid=True)
        X, y, qid = make_ltr()
        # without routing, 1-D relevance with a regressor cannot be scored
        with pytest.raises(ValueError, match="enable_metadata_routing=True"):
            cross_val_score(Ridge(), X, y, scoring=get_scorer("ndcg@10"),
                            cv=GroupKFold(3), groups=qid, error_score="raise")


def test_error_qid_missing():
    X, y, qid = make_ltr()
    with routing():
        scorer = get_scorer("ndcg@10").set_score_request(qid=True)
        with pytest.raises(ValueError, match=r"requests qid .* none was passed"):
            cross_val_score(Ridge(), X, y, scoring=scorer, cv=GroupKFold(3),
                            params={"groups": qid}, error_score="raise")


def test_error_qid_passed_but_not_requested():
    X, y, qid = make_ltr()
    with routing():
        with pytest.raises(UnsetMetadataPassedError,
                           match=r"\[qid\] are passed but are not explicitly set"):
            cross_val_score(Ridge(), X, y, scoring=get_scorer("ndcg@10"), cv=GroupKFold(3),
                            params={"qid": qid, "groups": qid})


def test_error_qid_length_mismatch():
    X, y, qid = make_ltr()
    est = Ridge().fit(X, y)
    with pytest.raises(ValueError, match=r"qid has \d+ entries but y has \d+ samples"):
        get_scorer("ndcg@10")(est, X, y, qid=qid[:-3])


def test_set_score_request_rejects_other_metadata():
    with routing():
        with pytest.raises(TypeError, match="accepts"):
            get_scorer("ndcg@10").set_score_request(groups=True)


@pytest.mark.parametrize(
    "call, where",
    [
        (lambda: get_scorer("ndcg@10", qid=True), "get_scorer"),
        (lambda: get_scorers(["ndcg@10", "map"], qid=True), "get_scorers"),
        (lambda: get_scorer(lambda est, X, y: 0.0, qid="groups"), "get_scorer"),
    ],
)
def test_qid_with_routing_off_speaks_of_qid_not_of_set_score_request(call, where):
    with sklearn.config_context(enable_metadata_routing=False):
        with pytest.raises(RuntimeError) as err:
            call()
    message = str(err.value)
    assert message.startswith(f"{where}: qid=")
    assert "asks scikit-learn to route the query ids to the scorer, which needs " \
        "scikit-learn's metadata routing; it is off. Enable it with " \
        "sklearn.set_config(enable_metadata_routing=True)" in message
    assert "set_score_request" not in message
