"""Scorers by name, the scorer factory, multi-metric scoring, pickling, n_jobs."""

import pickle

import numpy as np
import pytest
import sklearn
from conftest import DATA
from sklearn.base import clone
from sklearn.datasets import make_multilabel_classification
from sklearn.ensemble import RandomForestRegressor
from sklearn.linear_model import LogisticRegression, Ridge
from sklearn.metrics import make_scorer
from sklearn.model_selection import (
    GridSearchCV,
    GroupKFold,
    KFold,
    RandomizedSearchCV,
    cross_val_score,
    cross_validate,
)
from sklearn.multiclass import OneVsRestClassifier

import sk_rankmetrics
from sk_rankmetrics import (
    RankingScorer,
    evaluate,
    get_scorer,
    get_scorer_names,
    get_scorers,
    make_ranking_scorer,
    metric_names,
    ndcg_score,
)
from sk_rankmetrics._metrics.registry import METRICS

ISSUE_NAMES = ["ndcg@10", "ndcg_exp@10", "map@10", "mrr", "precision@5", "recall@20",
               "hit_rate@10"]


def _graded(n=90, n_items=12, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 6))
    Y = np.clip(np.round(X @ rng.normal(size=(6, n_items)) * 0.8 + 0.5), 0, 3)
    Y[:, 0] = 1  # every row has a relevant item
    return X, Y


def _by_hand(est, X, Y, cv, metric):
    out = []
    for tr, te in cv.split(X, Y):
        fitted = clone(est).fit(X[tr], Y[tr])
        out.append(evaluate(Y[te], fitted.predict(X[te]), [metric])[metric])
    return np.array(out)


@pytest.mark.parametrize("name", ISSUE_NAMES)
def test_named_scorer_equals_metric_on_held_out_folds(name):
    X, Y = _graded()
    cv = KFold(3, shuffle=True, random_state=0)
    got = cross_val_score(Ridge(), X, Y, cv=cv, scoring=get_scorer(name))
    np.testing.assert_allclose(got, _by_hand(Ridge(), X, Y, cv, name), rtol=0, atol=1e-12)


def test_ndcg_exp_is_exponential_gain():
    X, Y = _graded()
    est = Ridge().fit(X, Y)
    want = ndcg_score(Y, est.predict(X), k=10, gain="exponential")
    assert get_scorer("ndcg_exp@10")(est, X, Y) == pytest.approx(want, abs=1e-15)
    assert want != pytest.approx(ndcg_score(Y, est.predict(X), k=10), abs=1e-6)


@pytest.mark.parametrize("name", sorted(n for n, s in METRICS.items() if s.function))
def test_plain_make_scorer_works_with_every_metric_function(name):
    """Item 1: sklearn.metrics.make_scorer(metric, response_method=..., k=...)."""
    spec = METRICS[name]
    fn = getattr(sk_rankmetrics, spec.function)
    kw = {"k": 5} if spec.takes_k else {}
    X, Y = _graded()
    cv = KFold(3)
    plain = make_scorer(fn, response_method="predict", **kw)
    ours = make_ranking_scorer(fn, **kw)
    a = cross_val_score(Ridge(), X, Y, cv=cv, scoring=plain)
    b = cross_val_score(Ridge(), X, Y, cv=cv, scoring=ours)
    np.testing.assert_allclose(a, b, rtol=0, atol=0)
    assert np.all(np.isfinite(a))


@pytest.mark.slow
def test_plain_make_scorer_with_multilabel_predict_proba():
    X, Y = make_multilabel_classification(n_samples=80, n_classes=5, random_state=0)
    est = OneVsRestClassifier(LogisticRegression(max_iter=300))
    cv = KFold(3)
    plain = make_scorer(sk_rankmetrics.mean_average_precision_score,
                        response_method="predict_proba", k=3, no_relevant="skip")
    ours = get_scorer("map@3", response_method="predict_proba", no_relevant="skip")
    a = cross_val_score(est, X, Y, cv=cv, scoring=plain)
    b = cross_val_score(est, X, Y, cv=cv, scoring=ours)
    np.testing.assert_allclose(a, b, rtol=0, atol=1e-15)


def test_names_come_from_the_registry():
    from sk_rankmetrics._metrics.registry import DIVERSITY, PRESETS, REGISTRY

    assert metric_names() == sorted({*REGISTRY, *PRESETS})  # no alias among the names
    aliases = metric_names(aliases=True)
    assert set(aliases.values()) <= set(REGISTRY) and not set(aliases) & set(metric_names())
    assert aliases["r"] == "recall" and aliases["p"] == "precision"
    # scikit-learn's get_scorer_names lists every accepted spelling; so does ours (a
    # diversity measure reads a diversity qrels, which no scorer is given)
    div = {a for a, name in aliases.items() if name in DIVERSITY} | set(DIVERSITY)
    assert get_scorer_names() == sorted({*metric_names(), *aliases} - div)
    assert "coverage" in get_scorer_names() and "alpha_ndcg" not in get_scorer_names()
    for name in ["ndcg", "ndcg_exp", "map", "p", "r", "recip_rank", "success"]:
        assert get_scorer(f"{name}@3").metric == f"{name}@3"
    for name in ISSUE_NAMES:
        assert name.split("@")[0] in get_scorer_names()


def test_unknown_name_lists_close_matches():
    with pytest.raises(ValueError, match=r"Did you mean 'ndcg'"):
        get_scorer("ndgc@10")
    with pytest.raises(ValueError, match="takes no cut-off"):
        get_scorer("r_precision@5")
    with pytest.raises(ValueError, match="positive integer"):
        get_scorer("ndcg@ten")
    with pytest.raises(TypeError, match=r"'ndcg@10' does not read the option.* threshold"):
        get_scorer("ndcg@10", threshold=1)
    with pytest.raises(ValueError, match="no_relevant"):
        get_scorer("ndcg@10", no_relevant="ignore")


def test_make_ranking_scorer_from_function_and_name():
    a = make_ranking_scorer(ndcg_score, k=10, gain="exponential")
    b = make_ranking_scorer("ndcg", k=10, gain="exponential")
    assert repr(a) == repr(b) == (
        "RankingScorer('ndcg@10', response_method=('decision_function', "
        "'predict_proba', 'predict'), gain='exponential')"
    )
    X, Y = _graded()
    est = Ridge().fit(X, Y)
    assert a(est, X, Y) == b(est, X, Y) == get_scorer("ndcg_exp@10")(est, X, Y)
    with pytest.raises(ValueError, match="given twice"):
        make_ranking_scorer("ndcg@5", k=10)
    with pytest.raises(ValueError, match="takes no cut-off"):
        make_ranking_scorer("r_precision", k=3)
    with pytest.raises(TypeError, match="metric functions"):
        make_ranking_scorer(len)
    assert get_scorer(a) is a  # a callable passes through


def test_repr_and_greater_is_better():
    s = get_scorer("map@5", response_method="predict", no_relevant="skip")
    assert repr(s) == "RankingScorer('map@5', response_method=('predict',), no_relevant='skip')"
    assert isinstance(s, RankingScorer) and s.greater_is_better


def test_pickle_round_trip_keeps_score():
    X, Y = _graded()
    est = Ridge().fit(X, Y)
    for name in ISSUE_NAMES:
        s = get_scorer(name, no_relevant="skip")
        s2 = pickle.loads(pickle.dumps(s))
        assert repr(s2) == repr(s)
        assert s2(est, X, Y) == s(est, X, Y)


@pytest.mark.slow
def test_n_jobs_2_equals_sequential():
    X, Y = _graded()
    cv = KFold(4, shuffle=True, random_state=2)
    scoring = get_scorers(["ndcg@10", "map@10"])
    seq = cross_validate(Ridge(), X, Y, cv=cv, scoring=scoring, n_jobs=1)
    par = cross_validate(Ridge(), X, Y, cv=cv, scoring=scoring, n_jobs=2)
    for name in scoring:
        np.testing.assert_array_equal(seq[f"test_{name}"], par[f"test_{name}"])
        np.testing.assert_allclose(par[f"test_{name}"], _by_hand(Ridge(), X, Y, cv, name),
                                   rtol=0, atol=1e-12)


@pytest.mark.slow
def test_multi_metric_grid_search_with_refit():
    X, Y = _graded()
    cv = KFold(3, shuffle=True, random_state=0)
    names = ["ndcg@10", "map@10", "mrr"]
    alphas = [0.01, 10.0, 1000.0]
    grid = GridSearchCV(Ridge(), {"alpha": alphas}, cv=cv, scoring=get_scorers(names),
                        refit="ndcg@10", n_jobs=2).fit(X, Y)
    for i, alpha in enumerate(alphas):
        for name in names:
            want = _by_hand(Ridge(alpha=alpha), X, Y, cv, name)
            got = [grid.cv_results_[f"split{s}_test_{name}"][i] for s in range(3)]
            np.testing.assert_allclose(got, want, rtol=0, atol=1e-12)
    best = int(np.argmax(grid.cv_results_["mean_test_ndcg@10"]))
    assert grid.best_index_ == best
    assert grid.best_score_ == grid.cv_results_["mean_test_ndcg@10"][best]


def test_randomized_search_and_pipeline():
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    X, Y = _graded()
    cv = KFold(3)
    pipe = make_pipeline(StandardScaler(), RandomForestRegressor(n_estimators=5,
                                                                 random_state=0))
    search = RandomizedSearchCV(pipe, {"randomforestregressor__max_depth": [2, 3, 5]},
                                n_iter=2, cv=cv, random_state=0,
                                scoring=get_scorer("precision@5")).fit(X, Y)
    for i, params in enumerate(search.cv_results_["params"]):
        want = _by_hand(clone(pipe).set_params(**params), X, Y, cv, "precision@5")
        got = [search.cv_results_[f"split{s}_test_score"][i] for s in range(3)]
        np.testing.assert_allclose(got, want, rtol=0, atol=1e-12)


def test_get_scorers_options_and_errors():
    scorers = get_scorers(["ndcg@5", ("map@5", {"denominator": "relevant"})],
                          no_relevant="skip")
    assert list(scorers) == ["ndcg@5", "map@5"]
    assert scorers["map@5"].options == {"denominator": "relevant"}
    assert scorers["ndcg@5"].no_relevant == "skip"
    with pytest.raises(ValueError, match=r"get_scorers: names gives a metric twice: "
                                         r"\['mrr', 'mrr'\]; results are keyed"):
        get_scorers(["mrr", "mrr"])
    with pytest.raises(ValueError, match="empty"):
        get_scorers([])
    with pytest.raises(TypeError, match="metric names"):
        get_scorers([3])


@pytest.mark.skipif(
    tuple(int(p) for p in sklearn.__version__.split(".")[:2]) < (1, 7),
    reason="GridSearchCV forwards fit's sample_weight to its scorers from "
           "scikit-learn 1.7 (scikit-learn pull request 30743)")
def test_sample_weight_reaches_scorers_without_routing():
    """With routing off, GridSearchCV forwards fit's sample_weight to scorers
    that accept it (scikit-learn 1.7 and later); each scorer then takes a
    weighted mean over rows."""
    X, Y = _graded()
    w = 1.0 + np.arange(X.shape[0]) % 4
    cv = KFold(3)
    names = ["ndcg@10", "precision@5"]
    grid = GridSearchCV(Ridge(), {"alpha": [1.0]}, cv=cv, scoring=get_scorers(names),
                        refit=False).fit(X, Y, sample_weight=w)
    for name in names:
        want = []
        for tr, te in cv.split(X, Y):
            est = Ridge().fit(X[tr], Y[tr], sample_weight=w[tr])
            want.append(evaluate(Y[te], est.predict(X[te]), [name],
                                 sample_weight=w[te])[name])
        got = [grid.cv_results_[f"split{s}_test_{name}"][0] for s in range(3)]
        np.testing.assert_allclose(got, want, rtol=0, atol=1e-12)
        unweighted = _by_hand(Ridge(), X, Y, cv, name)
        assert not np.allclose(got, unweighted, rtol=0, atol=1e-9)


def test_qid_requested_in_one_step():
    """get_scorer(name, qid=True) and get_scorers(names, qid=True) request the query
    ids as set_score_request(qid=True) does, and a search then scores per query."""

    rng = np.random.default_rng(0)
    X = rng.normal(size=(120, 3))
    qid = np.repeat(np.arange(12), 10)
    y = (X[:, 0] + rng.normal(scale=0.5, size=120) > 0.5).astype(int)
    with sklearn.config_context(enable_metadata_routing=True):
        one = get_scorer("ndcg@5", qid=True)
        assert one.get_metadata_routing().score.requests["qid"] is True
        aliased = get_scorer("ndcg@5", qid="query")
        assert aliased.get_metadata_routing().score.requests["qid"] == "query"
        many = get_scorers(["ndcg@5", "mrr"], qid=True)
        assert [s.get_metadata_routing().score.requests["qid"] for s in many.values()] == [
            True, True]
        res = cross_validate(Ridge(), X, y, scoring=many, cv=GroupKFold(3),
                             params={"qid": qid, "groups": qid})
        manual = {n: get_scorer(n).set_score_request(qid=True) for n in many}
        want = cross_validate(Ridge(), X, y, scoring=manual, cv=GroupKFold(3),
                              params={"qid": qid, "groups": qid})
    for n in many:
        np.testing.assert_array_equal(res[f"test_{n}"], want[f"test_{n}"])
        assert np.isfinite(res[f"test_{n}"]).all()
    assert get_scorer("mrr", qid=False).get_metadata_routing().score.requests["qid"] is None
    with pytest.raises(RuntimeError, match="needs scikit-learn's metadata routing"):
        get_scorer("mrr", qid=True)
    with pytest.raises(ValueError, match=r"^get_scorers: qid must be True .* got 1\."):
        get_scorers(["mrr"], qid=1)


def test_scorers_pickled_by_0_1_0_still_load_and_score():
    """Scorers pickled before the modules moved into folders load (through the
    alias module) and score as the same scorers made today."""

    path = DATA / "pickles" / "scorers-0.1.0.pkl"
    with sklearn.config_context(enable_metadata_routing=True):
        old = pickle.loads(path.read_bytes())
        fresh = {
            "ndcg10": sk_rankmetrics.get_scorer("ndcg@10"),
            "ndcg_exp5": sk_rankmetrics.make_ranking_scorer("ndcg", k=5, gain="exponential"),
            "p5_qid": sk_rankmetrics.get_scorer("p@5", qid=True),
            "multi": sk_rankmetrics.get_scorers(["ndcg@10", "recall@20"]),
            "fn": sk_rankmetrics.make_ranking_scorer(
                sk_rankmetrics.mean_average_precision_score, k=3),
        }
        assert type(old["ndcg10"]) is sk_rankmetrics.RankingScorer
        rng = np.random.default_rng(0)
        X = rng.normal(size=(40, 3))
        Y = (X @ rng.normal(size=(3, 12)) + rng.normal(size=(40, 12)) > 0.5).astype(int)
        matrix_model = Ridge().fit(X, Y)  # one score per item of each row
        for key in ["ndcg10", "ndcg_exp5", "fn"]:
            assert repr(old[key]) == repr(fresh[key])
            assert old[key](matrix_model, X, Y) == fresh[key](matrix_model, X, Y)
        assert set(old["multi"]) == set(fresh["multi"])
        for name in old["multi"]:
            assert old["multi"][name](matrix_model, X, Y) == fresh["multi"][name](
                matrix_model, X, Y)
        y, qid = Y.ravel(), np.repeat(np.arange(40), 12)
        long_model = Ridge().fit(np.repeat(X, 12, axis=0), y)
        Xl = np.repeat(X, 12, axis=0)
        assert old["p5_qid"](long_model, Xl, y, qid=qid) == fresh["p5_qid"](
            long_model, Xl, y, qid=qid)
