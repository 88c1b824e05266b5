"""XGBRanker (qid) and LGBMRanker (group sizes) in GroupKFold cross-validation, and
the settings of docs/which_ndcg.md against XGBoost's and LightGBM's own metrics.

Optional: skipped when xgboost or lightgbm is not installed (``pip install
sk_rankmetrics[ltr]``).
"""

import inspect

import numpy as np
import pytest
import sklearn
from sklearn.base import clone
from sklearn.metrics import ndcg_score as sk_ndcg_score
from sklearn.model_selection import GridSearchCV, GroupKFold, cross_validate

from sk_rankmetrics import QueryGroupRanker, get_scorer

#: Slow (learning-to-rank libraries' models): left out by pytest -m 'not slow'.
pytestmark = pytest.mark.slow


def routing():
    return sklearn.config_context(enable_metadata_routing=True)


def make_ltr(n_queries=24, seed=0, sort=False):
    rng = np.random.default_rng(seed)
    sizes = rng.integers(6, 25, size=n_queries)
    qid = np.repeat(np.arange(n_queries), sizes)
    X = rng.normal(size=(qid.shape[0], 4))
    y = np.digitize(X[:, 0] + 0.5 * rng.normal(size=qid.shape[0]), [0.2, 1.0, 1.7])
    first = np.unique(qid, return_index=True)[1]
    y[first] = np.maximum(y[first], 1)
    perm = np.arange(qid.shape[0]) if sort else rng.permutation(qid.shape[0])
    return X[perm], y[perm], qid[perm]


def per_query_ndcg(y, s, qid, k=10):
    return np.mean([sk_ndcg_score([y[qid == q]], [s[qid == q]], k=k)
                    for q in np.unique(qid)])


def _by_hand(fit, X, y, qid, cv):
    out = []
    for tr, te in cv.split(X, y, groups=qid):
        model = fit(X[tr], y[tr], qid[tr])
        out.append(per_query_ndcg(y[te], model.predict(X[te]), qid[te]))
    return np.array(out)


def test_xgbranker_with_qid_in_groupkfold():
    xgb = pytest.importorskip("xgboost")
    X, y, qid = make_ltr(sort=True)  # XGBRanker needs rows sorted by qid
    cv = GroupKFold(n_splits=3)
    ranker = xgb.XGBRanker(n_estimators=15, max_depth=3, n_jobs=1, random_state=0)
    with routing():
        scorer = get_scorer("ndcg@10").set_score_request(qid=True)
        res = cross_validate(ranker.set_fit_request(qid=True), X, y, scoring=scorer,
                             cv=cv, params={"qid": qid, "groups": qid})
    want = _by_hand(lambda Xt, yt, qt: clone(ranker).fit(Xt, yt, qid=qt), X, y, qid, cv)
    np.testing.assert_allclose(res["test_score"], want, rtol=0, atol=1e-9)
    assert np.mean(res["test_score"]) > 0.6


def test_xgbranker_unsorted_rows_through_query_group_ranker():
    xgb = pytest.importorskip("xgboost")
    X, y, qid = make_ltr(seed=1)  # rows in random order
    cv = GroupKFold(n_splits=3)
    model = QueryGroupRanker(xgb.XGBRanker(n_estimators=10, n_jobs=1, random_state=0))
    with routing():
        scorer = get_scorer("ndcg@10").set_score_request(qid=True)
        res = cross_validate(model.set_fit_request(qid=True), X, y, scoring=scorer,
                             cv=cv, params={"qid": qid, "groups": qid})

    def fit(Xt, yt, qt):
        order = np.argsort(qt, kind="stable")
        return clone(model.ranker).fit(Xt[order], yt[order], qid=qt[order])

    np.testing.assert_allclose(res["test_score"], _by_hand(fit, X, y, qid, cv),
                               rtol=0, atol=1e-9)


def test_lgbmranker_group_sizes_of_each_training_fold():
    lgb = pytest.importorskip("lightgbm")
    X, y, qid = make_ltr(seed=2)
    cv = GroupKFold(n_splits=3)
    ranker = lgb.LGBMRanker(n_estimators=15, num_leaves=7, min_child_samples=5,
                            n_jobs=1, random_state=0, verbose=-1)
    values = [3, 7]
    with routing():
        scorer = get_scorer("ndcg@10").set_score_request(qid=True)
        grid = GridSearchCV(QueryGroupRanker(ranker).set_fit_request(qid=True),
                            {"ranker__num_leaves": values}, scoring=scorer, cv=cv)
        grid.fit(X, y, qid=qid, groups=qid)
    for i, leaves in enumerate(values):
        def fit(Xt, yt, qt, leaves=leaves):
            order = np.argsort(qt, kind="stable")
            _, sizes = np.unique(qt[order], return_counts=True)
            return clone(ranker).set_params(num_leaves=leaves).fit(
                Xt[order], yt[order], group=sizes)

        got = [grid.cv_results_[f"split{s}_test_score"][i] for s in range(3)]
        np.testing.assert_allclose(got, _by_hand(fit, X, y, qid, cv), rtol=0, atol=1e-9)
    assert grid.best_estimator_.ranker_.get_params()["num_leaves"] == grid.best_params_[
        "ranker__num_leaves"]


def test_lgbmranker_whole_data_group_sizes_cannot_be_split():
    """Why the wrapper exists: group sizes of all the data do not fit a fold."""
    lgb = pytest.importorskip("lightgbm")
    X, y, qid = make_ltr(seed=3, sort=True)
    _, sizes = np.unique(qid, return_counts=True)
    with routing():
        ranker = lgb.LGBMRanker(n_estimators=5, verbose=-1).set_fit_request(group=True)
        scorer = get_scorer("ndcg@10").set_score_request(qid=True)
        with pytest.raises(ValueError, match="Sum of query counts"):
            cross_validate(ranker, X, y, cv=GroupKFold(3), scoring=scorer,
                           params={"group": sizes, "groups": qid, "qid": qid})


def _held_out(seed=0):
    """Training and held-out long-format data (graded 0..3, one unjudged query)."""
    rng = np.random.default_rng(seed)
    qid = np.repeat(np.arange(80), rng.integers(3, 20, size=80))
    X = rng.normal(size=(qid.shape[0], 5))
    y = np.digitize(X[:, 0] + 0.7 * rng.normal(size=qid.shape[0]), [0.3, 1.0, 1.6])
    y[qid == 43] = 0  # a held-out query without relevant documents
    tr = qid < 40
    return (X[tr], y[tr], qid[tr]), (X[~tr], y[~tr], qid[~tr])


def _tie_free(s, qid):
    order = np.lexsort((s, qid))
    same = (qid[order][1:] == qid[order][:-1]) & (s[order][1:] == s[order][:-1])
    return not same.any()


@pytest.mark.parametrize("k", [3, 5, 10])
def test_xgboost_ndcg_setting_matches_its_eval_metric(k):
    """docs/which_ndcg.md's XGBoost setting gives XGBoost's own ndcg@k."""
    xgb = pytest.importorskip("xgboost")
    from sk_rankmetrics import ndcg_score

    (X, y, qid), (Xv, yv, qv) = _held_out()
    ranker = xgb.XGBRanker(n_estimators=60, max_depth=6, eval_metric=f"ndcg@{k}",
                           n_jobs=1, random_state=0)
    ranker.fit(X, y, qid=qid, eval_set=[(Xv, yv)], eval_qid=[qv], verbose=False)
    theirs = ranker.evals_result()["validation_0"][f"ndcg@{k}"][-1]
    s = ranker.predict(Xv, output_margin=True)
    assert _tie_free(s, qv)
    ours = ndcg_score(yv, s, qid=qv, k=k, gain="exponential", no_relevant=1.0,
                      ignore_ties=True)
    assert 0.3 < ours < 0.99
    assert ours == pytest.approx(theirs, abs=1e-6)  # XGBoost reports float32


@pytest.mark.parametrize("k", [3, 5, 10])
def test_lightgbm_ndcg_and_map_settings_match_its_eval_metrics(k):
    """docs/which_ndcg.md's LightGBM settings give LightGBM's own ndcg@k and map@k."""
    lgb = pytest.importorskip("lightgbm")
    from sk_rankmetrics import mean_average_precision_score, ndcg_score

    (X, y, qid), (Xv, yv, qv) = _held_out()
    sizes, sizes_v = np.unique(qid, return_counts=True)[1], np.unique(qv, return_counts=True)[1]
    ranker = lgb.LGBMRanker(n_estimators=60, num_leaves=15, min_child_samples=2,
                            n_jobs=1, random_state=0, verbose=-1)
    if "eval_X" in inspect.signature(ranker.fit).parameters:  # LightGBM >= 4.7
        held_out = {"eval_X": (Xv,), "eval_y": (yv,)}
    else:  # older LightGBM (eval_set is deprecated from 4.7 on)
        held_out = {"eval_set": [(Xv, yv)]}
    ranker.fit(X, y, group=sizes, eval_group=[sizes_v], eval_at=[k],
               eval_metric=["ndcg", "map"], **held_out)
    theirs = next(iter(ranker.evals_result_.values()))
    s = ranker.predict(Xv, raw_score=True)
    assert _tie_free(s, qv)
    ndcg = ndcg_score(yv, s, qid=qv, k=k, gain="exponential", no_relevant=1.0)
    ap = mean_average_precision_score(yv, s, qid=qv, k=k, no_relevant=1.0)
    assert 0.3 < ndcg < 0.99 and 0.3 < ap < 0.99
    assert ndcg == pytest.approx(theirs[f"ndcg@{k}"][-1], abs=1e-9)
    assert ap == pytest.approx(theirs[f"map@{k}"][-1], abs=1e-9)
