"""Estimator outputs -> metric inputs: each adapter against a hand computation.

The hand computations here do not use ``sk_rankmetrics._sklearn.responses``: class
scores are laid out explicitly per label or per class, and the scores are
compared with the scorer inside real scikit-learn model selection (folds
rebuilt from the same cv object).
"""

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.datasets import make_classification, make_multilabel_classification
from sklearn.ensemble import RandomForestClassifier
from sklearn.exceptions import UndefinedMetricWarning
from sklearn.linear_model import LogisticRegression, Ridge
from sklearn.metrics import ndcg_score as sk_ndcg_score
from sklearn.model_selection import GridSearchCV, KFold, cross_val_score, cross_validate
from sklearn.multioutput import MultiOutputClassifier
from sklearn.naive_bayes import GaussianNB
from sklearn.neighbors import KNeighborsClassifier
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.svm import LinearSVC
from sklearn.tree import DecisionTreeClassifier

from sk_rankmetrics import (
    get_scorer,
    hit_rate_score,
    mean_average_precision_score,
    ndcg_score,
    reciprocal_rank_score,
)
from sk_rankmetrics._sklearn.responses import estimator_responses


def _ragged_multilabel():
    """Multilabel data whose label 4 is 1 and label 5 is 0 in every row but
    the first 10; under KFold(3) without shuffling both are constant in the
    training part of the first fold, so ``classes_`` is ragged there."""
    X, Y = make_multilabel_classification(
        n_samples=90, n_features=8, n_classes=6, n_labels=2, random_state=0
    )
    Y[:, 4] = 1
    Y[:10, 4] = 0
    Y[:, 5] = 0
    Y[:10:3, 5] = 1
    return X, Y


def _label_scores_by_hand(est, X):
    """Per-label positive score from a list-valued predict_proba."""
    proba = est.predict_proba(X)
    classes = est.classes_
    cols = []
    for p, c in zip(proba, classes):
        c = list(c)
        if 1 in c:
            cols.append(p[:, c.index(1)])
        else:  # the label was always 0 in training
            cols.append(np.zeros(p.shape[0]))
    return np.column_stack(cols)


def _fold_scores(est, X, Y, cv, score_fn, scores_by_hand, **kwargs):
    out = []
    for tr, te in cv.split(X, Y):
        fitted = clone(est).fit(X[tr], Y[tr])
        out.append(score_fn(Y[te], scores_by_hand(fitted, X[te]), **kwargs))
    return np.array(out)


@pytest.mark.parametrize(
    "est",
    [
        RandomForestClassifier(n_estimators=10, random_state=0),
        KNeighborsClassifier(n_neighbors=4),
        MultiOutputClassifier(DecisionTreeClassifier(max_depth=3, random_state=0)),
    ],
    ids=["forest", "knn", "multioutput-tree"],
)
def test_multilabel_list_proba_with_ragged_classes(est):
    X, Y = _ragged_multilabel()
    cv = KFold(3)
    # The first training fold sees label 4 and 5 as constant.
    first = clone(est).fit(X[30:], Y[30:])
    assert len(first.classes_[4]) == 1 and len(first.classes_[5]) == 1
    got = cross_val_score(est, X, Y, cv=cv, scoring=get_scorer("map@5", no_relevant="skip"))
    want = _fold_scores(est, X, Y, cv, mean_average_precision_score,
                        _label_scores_by_hand, k=5, no_relevant="skip")
    np.testing.assert_allclose(got, want, rtol=0, atol=1e-12)
    assert np.all(np.isfinite(got))


def test_constant_label_scores_its_only_class():
    X, Y = _ragged_multilabel()
    est = RandomForestClassifier(n_estimators=5, random_state=0).fit(X[30:], Y[30:])
    _, S = estimator_responses(est, X[:30], Y[:30], response_method="predict_proba")
    np.testing.assert_array_equal(S[:, 4], 1.0)  # only class seen: 1
    np.testing.assert_array_equal(S[:, 5], 0.0)  # only class seen: 0


@pytest.mark.slow
def test_multilabel_tuned_by_map_at_5_gridsearch():
    X, Y = _ragged_multilabel()
    cv = KFold(3)
    est = RandomForestClassifier(n_estimators=8, random_state=0)
    grid = GridSearchCV(est, {"max_depth": [2, 4]}, cv=cv,
                        scoring=get_scorer("map@5", no_relevant="skip")).fit(X, Y)
    for i, depth in enumerate([2, 4]):
        want = _fold_scores(est.set_params(max_depth=depth), X, Y, cv,
                            mean_average_precision_score, _label_scores_by_hand,
                            k=5, no_relevant="skip")
        got = [grid.cv_results_[f"split{s}_test_score"][i] for s in range(3)]
        np.testing.assert_allclose(got, want, rtol=0, atol=1e-12)
    assert grid.best_params_["max_depth"] in (2, 4)


def test_multioutput_regressor_matches_sklearn_ndcg():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(80, 5))
    Y = np.clip(np.round(X @ rng.normal(size=(5, 7)) + 1), 0, 3)
    cv = KFold(4, shuffle=True, random_state=1)
    pipe = make_pipeline(StandardScaler(), Ridge(alpha=1.0))
    got = cross_validate(pipe, X, Y, cv=cv, scoring=get_scorer("ndcg@5"))["test_score"]
    # scikit-learn's own ndcg_score is an independent implementation.
    want = _fold_scores(pipe, X, Y, cv, sk_ndcg_score, lambda e, Xt: e.predict(Xt), k=5)
    np.testing.assert_allclose(got, want, rtol=0, atol=1e-12)


def _multiclass():
    return make_classification(n_samples=150, n_features=6, n_informative=4,
                               n_classes=4, n_clusters_per_class=1, random_state=0)


def _mrr_by_hand(y, classes, scores):
    """Mean of 1 / (1 + number of classes scored above the true class)."""
    col = np.searchsorted(classes, y)
    true_score = scores[np.arange(len(y)), col]
    rank = 1 + (scores > true_score[:, None]).sum(axis=1)
    return np.mean(1.0 / rank)


@pytest.mark.parametrize(
    ("est", "method"),
    [
        (LogisticRegression(max_iter=500), "decision_function"),
        (GaussianNB(), "predict_proba"),
        (make_pipeline(StandardScaler(), LinearSVC(dual="auto")), "decision_function"),
    ],
    ids=["logreg", "naive-bayes", "pipeline-svc"],
)
def test_multiclass_mrr_ranks_true_class(est, method):
    X, y = _multiclass()
    cv = KFold(5, shuffle=True, random_state=0)
    got = cross_val_score(est, X, y, cv=cv, scoring=get_scorer("mrr"))
    want = []
    for tr, te in cv.split(X, y):
        fitted = clone(est).fit(X[tr], y[tr])
        s = getattr(fitted, method)(X[te])
        want.append(_mrr_by_hand(y[te], fitted.classes_, s))
    np.testing.assert_allclose(got, want, rtol=0, atol=1e-12)
    assert np.mean(got) > 0.5  # better than a random order of 4 classes


def test_multiclass_hit_rate_at_1_is_accuracy():
    X, y = _multiclass()
    clf = LogisticRegression(max_iter=500).fit(X[:100], y[:100])
    got = get_scorer("hit_rate@1")(clf, X[100:], y[100:])
    assert got == pytest.approx(np.mean(clf.predict(X[100:]) == y[100:]), abs=1e-12)


def test_response_method_preference_and_override():
    X, y = _multiclass()
    clf = LogisticRegression(max_iter=500).fit(X, y)
    y_bin, s = estimator_responses(clf, X, y)
    np.testing.assert_array_equal(s, clf.decision_function(X))
    np.testing.assert_array_equal(y_bin, y[:, None] == clf.classes_[None, :])
    _, s = estimator_responses(clf, X, y, response_method="predict_proba")
    np.testing.assert_array_equal(s, clf.predict_proba(X))
    _, s = estimator_responses(clf, X, y, response_method="predict")
    np.testing.assert_array_equal(s, clf.predict(X)[:, None] == clf.classes_[None, :])
    nb = GaussianNB().fit(X, y)  # no decision_function: predict_proba is next
    _, s = estimator_responses(nb, X, y)
    np.testing.assert_array_equal(s, nb.predict_proba(X))


def test_unseen_test_label_is_a_row_without_relevant_item():
    X, y = _multiclass()
    train = y != 3
    clf = LogisticRegression(max_iter=500).fit(X[train], y[train])
    assert list(clf.classes_) == [0, 1, 2]
    y_test, X_test = y[:40], X[:40]
    assert (y_test == 3).any()
    with pytest.warns(UndefinedMetricWarning, match="no relevant item"):
        got = get_scorer("mrr")(clf, X_test, y_test)
    per_row = np.where(
        y_test == 3, 0.0,
        1.0 / (1 + (clf.decision_function(X_test)
                    > clf.decision_function(X_test)[np.arange(40), np.minimum(y_test, 2)][:, None]
                    ).sum(axis=1)),
    )
    assert got == pytest.approx(per_row.mean(), abs=1e-12)
    skipped = get_scorer("mrr", no_relevant="skip")(clf, X_test, y_test)
    assert skipped == pytest.approx(per_row[y_test != 3].mean(), abs=1e-12)


@pytest.mark.parametrize("labels", [[0, 1], ["no", "yes"]], ids=["int", "str"])
def test_binary_classifier_ranks_the_true_class_among_two(labels):
    X, y01 = make_classification(n_samples=120, n_features=5, random_state=3)
    y = np.asarray(labels)[y01]
    clf = LogisticRegression().fit(X[:80], y[:80])
    d = clf.decision_function(X[80:])
    correct = (d > 0) == (y[80:] == clf.classes_[1])
    got = get_scorer("mrr")(clf, X[80:], y[80:])
    assert got == pytest.approx(np.mean(np.where(correct, 1.0, 0.5)), abs=1e-12)
    y_bin, s = estimator_responses(clf, X[80:], y[80:])
    np.testing.assert_array_equal(s, np.column_stack([-d, d]))
    assert y_bin.shape == (40, 2) and np.all(y_bin.sum(axis=1) == 1)
    # ndcg of two items: 1 when right, 1/log2(3) when wrong
    got_ndcg = get_scorer("ndcg")(clf, X[80:], y[80:])
    assert got_ndcg == pytest.approx(np.mean(np.where(correct, 1.0, 1 / np.log2(3))))


def test_long_format_binary_classifier_uses_positive_score():
    X, y = make_classification(n_samples=60, n_features=4, random_state=0)
    qid = np.repeat(np.arange(6), 10)
    clf = LogisticRegression().fit(X, y)
    yy, s = estimator_responses(clf, X, y, qid=qid)
    np.testing.assert_array_equal(s, clf.decision_function(X))
    np.testing.assert_array_equal(yy, y)
    got = get_scorer("ndcg@5")(clf, X, y, qid=qid)
    want = np.mean([sk_ndcg_score([y[qid == q]], [s[qid == q]], k=5) for q in range(6)])
    assert got == pytest.approx(want, abs=1e-12)


def test_long_format_multiclass_uses_expected_grade():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(120, 4))
    y = np.digitize(X[:, 0] + 0.3 * rng.normal(size=120), [-0.5, 0.5])  # grades 0..2
    qid = rng.integers(0, 8, size=120)
    clf = LogisticRegression(max_iter=500).fit(X, y)
    _, s = estimator_responses(clf, X, y, qid=qid)
    np.testing.assert_allclose(s, clf.predict_proba(X) @ np.array([0.0, 1.0, 2.0]))
    got = get_scorer("ndcg@10")(clf, X, y, qid=qid)
    want = np.mean([sk_ndcg_score([y[qid == q]], [s[qid == q]], k=10)
                    for q in np.unique(qid)])
    assert got == pytest.approx(want, abs=1e-12)


def test_adapter_errors():
    X, y = _multiclass()
    reg = Ridge().fit(X, y)
    with pytest.raises(ValueError, match="enable_metadata_routing=True"):
        get_scorer("ndcg@10")(reg, X, y)
    clf = LogisticRegression(max_iter=500).fit(X, y)
    with pytest.raises(ValueError, match="none of the response methods"):
        get_scorer("mrr", response_method="decision_function")(GaussianNB().fit(X, y), X, y)
    with pytest.raises(ValueError, match=r"response_method=.* is not accepted"):
        get_scorer("mrr", response_method="predict_log_proba")
    with pytest.raises(ValueError, match="shape"):
        Y = np.zeros((len(y), 3))
        get_scorer("ndcg")(Ridge().fit(X, np.zeros((len(y), 2))), X, Y)
    with pytest.raises(ValueError, match="1-D"):
        get_scorer("ndcg")(clf, X, np.zeros((len(y), 4)), qid=np.zeros(len(y)))


def test_hit_rate_scorer_equals_metric_on_hand_built_matrix():
    X, y = _multiclass()
    clf = GaussianNB().fit(X[:100], y[:100])
    Yb = (y[100:, None] == clf.classes_[None, :]).astype(int)
    want = hit_rate_score(Yb, clf.predict_proba(X[100:]), k=2)
    assert get_scorer("hit_rate@2")(clf, X[100:], y[100:]) == pytest.approx(want, abs=1e-15)
    assert get_scorer("ndcg@2")(clf, X[100:], y[100:]) == pytest.approx(
        ndcg_score(Yb, clf.predict_proba(X[100:]), k=2), abs=1e-15)
    assert get_scorer("mrr")(clf, X[100:], y[100:]) == pytest.approx(
        reciprocal_rank_score(Yb, clf.predict_proba(X[100:])), abs=1e-15)
