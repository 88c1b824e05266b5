"""make_eval_metric inside LightGBM's and XGBoost's training, and RankingAccumulator.

Every recorded value is compared with :func:`evaluate` on the model's
predictions at that iteration, and early stopping with a plain loop over
those values.
"""

from __future__ import annotations

import gc
import inspect
import pickle
import tracemalloc
import warnings

import numpy as np
import pytest
from conftest import ROOT
from hypothesis import given, settings
from hypothesis import strategies as st

from sk_rankmetrics import (
    InvalidParameterError,
    RankingAccumulator,
    evaluate,
    make_eval_metric,
    metric_names,
)


def _ltr_data(n_queries, seed, items=(5, 15)):
    rng = np.random.default_rng(seed)
    sizes = rng.integers(items[0], items[1], size=n_queries)
    n = int(sizes.sum())
    X = rng.normal(size=(n, 4))
    signal = X @ np.array([1.0, -0.5, 0.3, 0.0]) + rng.normal(scale=0.8, size=n)
    y = np.digitize(signal, [0.0, 0.8, 1.6]).astype(float)
    qid = np.repeat(np.arange(n_queries), sizes)
    return X, y, qid, sizes


def _reference_stop(values, patience):
    """Best iteration (0-based) and the number of rounds a plain loop trains."""
    best, best_i = -np.inf, -1
    for i, v in enumerate(values):
        if v > best:
            best, best_i = v, i
        elif i - best_i >= patience:
            return best_i, i + 1
    return best_i, len(values)


METRICS = ["ndcg_exp@10", "map@10", "err@20"]


# -- LightGBM --------------------------------------------------------------------------

LGB_PARAMS = {
    "objective": "lambdarank",
    "metric": "None",
    "verbose": -1,
    "num_threads": 1,
    "min_data_in_leaf": 5,
    "num_leaves": 7,
    "learning_rate": 0.3,
    "deterministic": True,
    "seed": 0,
}


@pytest.mark.parametrize("metric", METRICS)
def test_lightgbm_train_records_the_package_value_at_every_iteration(metric):
    lgb = pytest.importorskip("lightgbm")
    X, y, _, sizes = _ltr_data(40, 0)
    Xv, yv, qv, sv = _ltr_data(25, 1)
    feval = make_eval_metric(metric, "lightgbm", no_relevant=1.0)
    rounds = 15
    record = {}
    booster = lgb.train(
        LGB_PARAMS,
        lgb.Dataset(X, y, group=sizes),
        num_boost_round=rounds,
        valid_sets=[lgb.Dataset(Xv, yv, group=sv)],
        valid_names=["valid"],
        feval=feval,
        callbacks=[lgb.record_evaluation(record)],
    )
    recorded = record["valid"]["skr_" + metric]
    assert len(recorded) == rounds
    expected = [
        evaluate(yv, booster.predict(Xv, num_iteration=i + 1), metric, qid=qv, no_relevant=1.0)[
            metric
        ]
        for i in range(rounds)
    ]
    assert recorded == expected  # exactly: the same scores, the same function
    assert len(set(np.round(expected, 12))) > 2  # the model changes across rounds

    # Early stopping picks the iteration a plain loop over the package's values picks.
    patience = 3
    best_i, n_trained = _reference_stop(expected, patience)
    record = {}
    stopped = lgb.train(
        LGB_PARAMS,
        lgb.Dataset(X, y, group=sizes),
        num_boost_round=rounds,
        valid_sets=[lgb.Dataset(Xv, yv, group=sv)],
        valid_names=["valid"],
        feval=feval,
        callbacks=[lgb.record_evaluation(record), lgb.early_stopping(patience, verbose=False)],
    )
    assert stopped.best_iteration == best_i + 1
    assert len(record["valid"]["skr_" + metric]) == n_trained


@pytest.mark.filterwarnings("ignore:The argument 'eval_set' is deprecated")
def test_lgbm_ranker_eval_metric_reads_the_eval_group():
    lgb = pytest.importorskip("lightgbm")
    X, y, _, sizes = _ltr_data(40, 2)
    Xv, yv, qv, sv = _ltr_data(25, 3)
    metric = make_eval_metric(["ndcg_exp@10", "map@10"], "lightgbm", no_relevant="skip")
    ranker = lgb.LGBMRanker(
        n_estimators=12,
        num_leaves=7,
        min_child_samples=5,
        learning_rate=0.3,
        n_jobs=1,
        verbose=-1,
        random_state=0,
    )
    ranker.fit(
        X, y, group=sizes, eval_set=[(Xv, yv)], eval_group=[sv], eval_at=[10], eval_metric=metric
    )
    log = ranker.evals_result_["valid_0"]
    assert {"skr_ndcg_exp@10", "skr_map@10"} <= set(log)
    for i in range(12):
        scores = evaluate(
            yv,
            ranker.predict(Xv, num_iteration=i + 1),
            ["ndcg_exp@10", "map@10"],
            qid=qv,
            no_relevant="skip",
        )
        assert log["skr_ndcg_exp@10"][i] == scores["ndcg_exp@10"]
        assert log["skr_map@10"][i] == scores["map@10"]


def _held_out(fit, X, y, sizes):
    """LightGBM >= 4.7 takes eval_X and eval_y; older versions eval_set."""
    if "eval_X" in inspect.signature(fit).parameters:
        return {"eval_X": (X,), "eval_y": (y,), "eval_group": [sizes]}
    return {"eval_set": [(X, y)], "eval_group": [sizes]}


def test_lgbm_ranker_keeps_its_own_ndcg_apart_from_the_package_ndcg():
    """LightGBM's ndcg@10 (exponential gain) and make_eval_metric's ndcg@10
    (linear gain): two series in evals_result_, never one list of both."""
    lgb = pytest.importorskip("lightgbm")
    X, y, _, sizes = _ltr_data(40, 12)
    Xv, yv, qv, sv = _ltr_data(25, 13)
    rounds = 8
    ranker = lgb.LGBMRanker(
        n_estimators=rounds, num_leaves=7, min_child_samples=5, learning_rate=0.3,
        n_jobs=1, verbose=-1, random_state=0, metric="ndcg",
    )
    ranker.fit(
        X, y, group=sizes, eval_at=[10],
        eval_metric=make_eval_metric("ndcg@10", "lightgbm", no_relevant=1.0),
        **_held_out(ranker.fit, Xv, yv, sv),
    )
    log = ranker.evals_result_["valid_0"]
    assert set(log) == {"ndcg@10", "skr_ndcg@10"}
    assert len(log["ndcg@10"]) == len(log["skr_ndcg@10"]) == rounds
    ours = [
        evaluate(yv, ranker.predict(Xv, num_iteration=i + 1), "ndcg@10", qid=qv,
                 no_relevant=1.0)["ndcg@10"]
        for i in range(rounds)
    ]
    assert log["skr_ndcg@10"] == ours
    assert log["ndcg@10"] != ours  # LightGBM's own, exponential gain


def test_xgboost_keeps_its_own_ndcg_apart_from_the_package_ndcg():
    xgb = pytest.importorskip("xgboost")
    X, y, q, _ = _ltr_data(40, 14)
    Xv, yv, qv, _ = _ltr_data(25, 15)
    dvalid = xgb.DMatrix(Xv, yv, qid=qv)
    params = {**XGB_PARAMS, "disable_default_eval_metric": 0, "eval_metric": "ndcg@10"}
    record, rounds = {}, 6
    xgb.train(
        params, xgb.DMatrix(X, y, qid=q), num_boost_round=rounds, evals=[(dvalid, "valid")],
        custom_metric=make_eval_metric(["ndcg@10", "map@10"], "xgboost", no_relevant=1.0),
        maximize=True, evals_result=record, verbose_eval=False,
    )
    assert set(record["valid"]) == {"ndcg@10", "skr_ndcg@10", "skr_map@10"}
    assert all(len(v) == rounds for v in record["valid"].values())


def test_eval_metric_names_never_carry_whitespace():
    m = make_eval_metric(["RBP(p=0.8, rel=2)", "ndcg @5"], "xgboost")
    assert m.names == ["skr_RBP(p=0.8,rel=2)", "skr_ndcg@5"]
    assert m.labels == ["RBP(p=0.8, rel=2)", "ndcg @5"]
    with pytest.raises(
        InvalidParameterError,
        match=r"make_eval_metric: 'ndcg@5' and 'ndcg @5' would both be recorded as 'skr_ndcg@5'",
    ):
        make_eval_metric(["ndcg@5", "ndcg @5"], "lightgbm")


def test_eval_metric_names_under_xgboost_log_parsing():
    """A label with a space reaches XGBoost's evals_result under one key."""
    xgb = pytest.importorskip("xgboost")
    X, y, q, _ = _ltr_data(10, 16)
    d = xgb.DMatrix(X, y, qid=q)
    record = {}
    xgb.train(
        XGB_PARAMS, d, num_boost_round=2, evals=[(d, "valid")],
        custom_metric=make_eval_metric("RBP(p=0.8, rel=2)", "xgboost", no_relevant=1.0),
        maximize=True, evals_result=record, verbose_eval=False,
    )
    assert list(record["valid"]) == ["skr_RBP(p=0.8,rel=2)"]


def test_lightgbm_without_groups_raises():
    lgb = pytest.importorskip("lightgbm")
    metric = make_eval_metric("ndcg@10", "lightgbm")
    data = lgb.Dataset(np.zeros((4, 1)), np.array([1.0, 0, 1, 0])).construct()
    with pytest.raises(ValueError, match=r"no query groups; give lightgbm\.Dataset"):
        metric(np.zeros(4), data)


# -- XGBoost ---------------------------------------------------------------------------

XGB_PARAMS = {
    "objective": "rank:ndcg",
    "nthread": 1,
    "disable_default_eval_metric": 1,
    "max_depth": 3,
    "eta": 0.3,
    "seed": 0,
    "tree_method": "exact",
}


@pytest.mark.parametrize("metric", ["map@10", "ndcg_exp@10"])
def test_xgboost_train_records_the_package_value_at_every_iteration(metric):
    xgb = pytest.importorskip("xgboost")
    X, y, q, _ = _ltr_data(40, 4)
    Xv, yv, qv, _ = _ltr_data(25, 5)
    dtrain, dvalid = xgb.DMatrix(X, y, qid=q), xgb.DMatrix(Xv, yv, qid=qv)
    feval = make_eval_metric(metric, "xgboost", no_relevant=1.0)
    rounds = 15
    record = {}
    booster = xgb.train(
        XGB_PARAMS,
        dtrain,
        num_boost_round=rounds,
        evals=[(dvalid, "valid")],
        custom_metric=feval,
        maximize=True,
        evals_result=record,
        verbose_eval=False,
    )
    recorded = record["valid"]["skr_" + metric]
    expected = [
        evaluate(
            yv, booster.predict(dvalid, iteration_range=(0, i + 1)), metric, qid=qv, no_relevant=1.0
        )[metric]
        for i in range(rounds)
    ]
    # XGBoost records the value as printed, with 6 decimals.
    assert recorded == [float(f"{v:f}") for v in expected]
    assert len(set(recorded)) > 2
    # The callable itself returns the exact value.
    name, value = feval(booster.predict(dvalid), dvalid)
    assert name == "skr_" + metric and value == expected[-1]

    patience = 3
    best_i, n_trained = _reference_stop([float(f"{v:f}") for v in expected], patience)
    record = {}
    stopped = xgb.train(
        XGB_PARAMS,
        dtrain,
        num_boost_round=rounds,
        evals=[(dvalid, "valid")],
        custom_metric=feval,
        maximize=True,
        early_stopping_rounds=patience,
        evals_result=record,
        verbose_eval=False,
    )
    assert stopped.best_iteration == best_i
    assert len(record["valid"]["skr_" + metric]) == n_trained


def test_xgboost_group_weights_are_query_weights():
    xgb = pytest.importorskip("xgboost")
    Xv, yv, qv, _ = _ltr_data(6, 6)
    w = np.arange(1.0, 7.0)
    d = xgb.DMatrix(Xv, yv, qid=qv)
    d.set_weight(w)
    preds = np.random.default_rng(0).normal(size=yv.shape[0])
    _, value = make_eval_metric("map", "xgboost", no_relevant=0.0)(preds, d)
    assert (
        value
        == evaluate(yv, preds.astype(np.float32), "map", qid=qv, sample_weight=w, no_relevant=0.0)[
            "map"
        ]
    )


def test_xgbranker_eval_metric_is_refused_naming_the_recipe():
    xgb = pytest.importorskip("xgboost")
    X, y, q, _ = _ltr_data(10, 7)
    ranker = xgb.XGBRanker(
        n_estimators=2, eval_metric=make_eval_metric("ndcg@5", "xgboost"), n_jobs=1
    )
    with pytest.raises(TypeError, match=r"XGBRanker\(eval_metric=\.\.\.\).*xgboost\.train"):
        ranker.fit(X, y, qid=q, eval_set=[(X, y)], eval_qid=[q], verbose=False)


# -- make_eval_metric: arguments -------------------------------------------------------


def test_make_eval_metric_arguments():
    with pytest.raises(InvalidParameterError, match=r"make_eval_metric: library='catboost'"):
        make_eval_metric("ndcg@10", "catboost")
    with pytest.raises(InvalidParameterError, match=r"ndgc"):
        make_eval_metric("ndgc@10", "lightgbm")
    with pytest.raises(InvalidParameterError, match="apply to a single metric name"):
        make_eval_metric(["ndcg@10", "map"], "lightgbm", gain="exponential")
    with pytest.raises(InvalidParameterError, match=r"no_relevant="):
        make_eval_metric("ndcg@10", "xgboost", no_relevant="zero")
    m = make_eval_metric("ndcg@3", "lightgbm", gain="exponential", no_relevant=0.0)
    y, s = np.array([2, 0, 1, 1, 0]), np.array([0.1, 0.9, 0.5, 0.2, 0.4])
    assert (
        m(y, s, None, np.array([3, 2]))[1]
        == evaluate(
            y, s, [("ndcg@3", {"gain": "exponential"})], qid=[0, 0, 0, 1, 1], no_relevant=0.0
        )["ndcg@3"]
    )
    with pytest.raises(ValueError, match="one score per sample"):
        m(y, np.zeros((5, 2)), None, np.array([3, 2]))
    with pytest.raises(ValueError, match="cover 4 samples but there are 5"):
        m(y, s, None, np.array([2, 2]))


# -- RankingAccumulator ----------------------------------------------------------------

ACC_METRICS = [
    "ndcg@3",
    "map",
    "mrr",
    ("ndcg_exp@5", {"discount": "jarvelin"}),
    "err@4",
    "recall@2",
    "gm_map",
    "precision@2",
    "r_precision",
    "rbp",
    "bpref",
    "hit_rate@3",
]


def _assert_same(result, y, s, metrics, **kw):
    """The accumulator's result is evaluate's on the concatenation.

    To within a few ulps: the engine's nDCG and ERR of a row can differ in
    the last bit with the other rows of its block (the order of a few
    additions), so equal inputs split otherwise may too.
    """
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        means = evaluate(y, s, metrics, **kw)
        rows = evaluate(y, s, metrics, per_row=True, **kw)
    assert list(result.mean) == list(means) == list(result.per_query) == list(rows)
    np.testing.assert_allclose(
        list(result.mean.values()), list(means.values()), rtol=1e-13, atol=1e-15
    )
    for label in rows:
        np.testing.assert_allclose(result.per_query[label], rows[label], rtol=1e-13, atol=1e-15)


@st.composite
def _long_batches(draw):
    n_queries = draw(st.integers(1, 12))
    sizes = draw(st.lists(st.integers(1, 7), min_size=n_queries, max_size=n_queries))
    if max(sizes) < 2:
        sizes[0] = 2
    n = sum(sizes)
    y = np.array(draw(st.lists(st.integers(0, 3), min_size=n, max_size=n)), dtype=float)
    s = np.array(draw(st.lists(st.integers(0, 3), min_size=n, max_size=n)), dtype=float)
    ids = draw(st.permutations(list(range(100, 100 + n_queries))))
    qid = np.repeat(ids, sizes)
    # Cut the queries (not their items) into batches, and the batches among workers.
    cuts = sorted(draw(st.sets(st.integers(1, max(1, n_queries - 1)), max_size=4)))
    bounds = [0, *[c for c in cuts if c < n_queries], n_queries]
    starts = np.concatenate([[0], np.cumsum(sizes)])
    batches = [slice(int(starts[a]), int(starts[b])) for a, b in zip(bounds, bounds[1:])]
    # Empty batches anywhere (the end of a loop, a worker without data).
    for at in draw(st.lists(st.integers(0, len(batches)), max_size=3)):
        batches.insert(at, slice(0, 0))
    workers = draw(st.lists(st.integers(0, 2), min_size=len(batches), max_size=len(batches)))
    policy = draw(st.sampled_from(["skip", "warn", 0.0, 1.0]))
    weights = draw(st.booleans())
    return y, s, qid, batches, workers, policy, weights


def _one_item_only(qid, batch):
    ids = qid[batch]
    return ids.size > 0 and np.unique(ids, return_counts=True)[1].max() < 2


@settings(max_examples=80, deadline=None)
@given(_long_batches())
def test_accumulator_equals_evaluate_for_any_split_and_merge(case):
    """Every batch evaluate takes as part of the whole: batches of one-item
    queries (the short last batch of a loop) and empty batches included."""
    y, s, qid, batches, workers, policy, weighted = case
    w_pairs = (qid % 5 + 1.0) if weighted else None
    accs = [RankingAccumulator(ACC_METRICS, no_relevant=policy) for _ in range(3)]
    for b, worker in zip(batches, workers):
        take = np.arange(len(qid))[b]
        if weighted and _one_item_only(qid, b):
            # One weight per pair or per query reads alike only in sorted qid order.
            take = take[np.argsort(qid[take], kind="stable")]
        accs[worker].update(
            y[take], s[take], qid=qid[take],
            sample_weight=None if w_pairs is None else w_pairs[take],
        )
    total = accs[0]
    for other in accs[1:]:
        total = total.merge(pickle.loads(pickle.dumps(other)))
    if total._n_rows == 0:
        return
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # evaluate's warnings, compared below
        result = total.compute()
    assert result.query_ids.tolist() == sorted(set(qid.tolist()))
    _assert_same(result, y, s, ACC_METRICS, qid=qid, no_relevant=policy, sample_weight=w_pairs)


@settings(max_examples=40, deadline=None)
@given(
    st.integers(1, 15),
    st.integers(2, 6),
    st.integers(0, 2**32 - 1),
    st.lists(st.integers(1, 14), max_size=4),
)
def test_accumulator_matrix_rows_in_order_of_arrival(n_rows, n_items, seed, cuts):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 3, size=(n_rows, n_items)).astype(float)
    s = rng.integers(0, 3, size=(n_rows, n_items)).astype(float)
    w = rng.uniform(0.5, 2.0, size=n_rows)
    bounds = [0, *sorted({c for c in cuts if c < n_rows}), n_rows]
    first, second = (
        RankingAccumulator(ACC_METRICS, no_relevant=0.0),
        RankingAccumulator(ACC_METRICS, no_relevant=0.0),
    )
    half = len(bounds) // 2
    for i, (a, b) in enumerate(zip(bounds, bounds[1:])):
        (first if i < half else second).update(y[a:b], s[a:b], sample_weight=w[a:b])
    result = first.merge(second).compute() if first._chunks else second.compute()
    assert result.query_ids.tolist() == list(range(n_rows))
    _assert_same(result, y, s, ACC_METRICS, no_relevant=0.0, sample_weight=w)


def test_a_short_last_batch_and_an_empty_batch_are_taken():
    """The eval loop of the issue: the last batch holds one query of one document."""
    y = np.array([2, 0, 1, 0, 1, 1, 0, 1])
    s = np.array([0.9, 0.8, 0.1, 0.3, 0.2, 0.7, 0.6, 0.4])
    qid = np.array([1, 1, 1, 2, 2, 3, 3, 4])
    acc = RankingAccumulator(["ndcg@2", "mrr", "map"])
    acc.update(y[:5], s[:5], qid=qid[:5])
    acc.update(y[5:7], s[5:7], qid=qid[5:7])
    acc.update(y[7:], s[7:], qid=qid[7:])  # query 4: one document
    acc.update(y[:0], s[:0], qid=qid[:0])  # an empty batch: nothing changes
    result = acc.compute()
    assert result.query_ids.tolist() == [1, 2, 3, 4]
    assert result.per_query["mrr"].tolist() == [1.0, 0.5, 1.0, 1.0]
    _assert_same(result, y, s, ["ndcg@2", "mrr", "map"], qid=qid)


def test_matrix_batches_of_one_column_and_of_no_rows():
    y = [[1, 0, 2], [0, 1, 0]]
    s = [[0.2, 0.4, 0.1], [0.3, 0.2, 0.1]]
    acc = RankingAccumulator(["ndcg@2", "mrr"], no_relevant=0.0)
    acc.update(y, s)
    acc.update(np.zeros((0, 3)), np.zeros((0, 3)))
    acc.update([[1], [0]], [[0.5], [0.1]])  # rows of one item
    acc.update(np.zeros((0, 5)), np.zeros((0, 5)))
    result = acc.compute()
    assert result.query_ids.tolist() == [0, 1, 2, 3]
    # The rows as long format (qid = row number): evaluate's numbers.
    yl = np.array([1, 0, 2, 0, 1, 0, 1, 0])
    sl = np.array([0.2, 0.4, 0.1, 0.3, 0.2, 0.1, 0.5, 0.1])
    ql = np.array([0, 0, 0, 1, 1, 1, 2, 3])
    _assert_same(result, yl, sl, ["ndcg@2", "mrr"], qid=ql, no_relevant=0.0)


def test_the_checks_of_the_whole_come_at_compute():
    acc = RankingAccumulator("mrr")
    acc.update([1], [0.5], qid=["a"])
    acc.update([], [], qid=[])
    with pytest.raises(
        ValueError,
        match=r"RankingAccumulator\.compute: every query of every batch has a single item "
        r"\(1 queries\); ranking metrics are only meaningful when queries have at least 2 items",
    ):
        acc.compute()
    acc.update([0, 1], [0.5, 0.4], qid=["b", "b"])
    assert acc.compute().per_query["mrr"].tolist() == [1.0, 0.5]
    rows = RankingAccumulator("mrr", no_relevant=0.0)
    rows.update([[1], [0]], [[0.5], [0.1]])
    with pytest.raises(ValueError, match=r"every row of every batch has a single item \(2 rows\)"):
        rows.compute()
    only_empty = RankingAccumulator("mrr")
    only_empty.update(np.zeros((0, 2)), np.zeros((0, 2)))
    with pytest.raises(ValueError, match=r"compute: no query was given yet"):
        only_empty.compute()
    # A merged accumulator brings its queries of two items.
    other = RankingAccumulator("mrr", no_relevant=0.0)
    other.update([[0, 1]], [[0.3, 0.4]])
    assert rows.merge(other).compute().per_query["mrr"].tolist() == [1.0, 0.0, 1.0]
    # What evaluate refuses in a batch as such is still refused at once.
    with pytest.raises(ValueError, match=r"y_true, y_score and qid must have the same length"):
        acc.update([1], [], qid=[])
    with pytest.raises(ValueError, match=r"sample_weight has 1 weight\(s\) but the batch is empty"):
        acc.update([], [], qid=[], sample_weight=[1.0])
    with pytest.raises(ValueError, match=r"y_true has 0 item per row"):
        rows.update(np.zeros((2, 0)), np.zeros((2, 0)))


def test_one_item_queries_with_weights_in_an_order_that_reads_two_ways():
    acc = RankingAccumulator("mrr", no_relevant=0.0)
    acc.update([1], [0.5], qid=["b"], sample_weight=[2.0])
    acc.update([1, 0], [0.5, 0.1], qid=["a", "c"], sample_weight=[1.0, 3.0])  # sorted: agree
    with pytest.raises(
        ValueError,
        match=r"every query of this batch has one item, so its 2 weights can be one per pair "
        r"\(in the order of qid\) or one per query \(in sorted qid order\)",
    ):
        acc.update([1, 0], [0.5, 0.1], qid=["e", "d"], sample_weight=[1.0, 3.0])
    acc.update([1, 0], [0.5, 0.1], qid=["e", "d"], sample_weight=[2.0, 2.0])  # equal: agree
    acc.update([0, 1], [0.5, 0.1], qid=["f", "f"], sample_weight=[1.0, 1.0])
    result = acc.compute()
    assert result.query_ids.tolist() == ["a", "b", "c", "d", "e", "f"]
    # c and d have no relevant item (0); the weights are 1, 2, 3, 2, 2, 1.
    assert result["mrr"] == pytest.approx((1 + 2 + 2 + 0.5) / 11)


def test_an_accumulator_pickled_before_it_kept_the_widths_still_computes():
    acc = RankingAccumulator("mrr")
    acc.update([[1, 0]], [[0.2, 0.1]])
    state = acc.__getstate__()
    del state["_n_items"]
    restored = RankingAccumulator.__new__(RankingAccumulator)
    restored.__setstate__(state)
    assert restored.compute().per_query["mrr"].tolist() == [1.0]


def test_accumulator_warns_once_at_compute_as_evaluate_does():
    acc = RankingAccumulator("ndcg@2")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        acc.update([[0, 0], [1, 0]], [[0.1, 0.2], [0.3, 0.1]])
    with pytest.warns(UserWarning, match="1 of 2 rows have no relevant item"):
        assert acc.compute()["ndcg@2"] == 0.5


def test_a_query_in_two_batches_is_named():
    acc = RankingAccumulator("mrr")
    acc.update([1, 0, 0, 1], [0.1, 0.2, 0.3, 0.4], qid=["a", "a", "b", "b"])
    with pytest.raises(ValueError, match=r"query 'b' was already given"):
        acc.update([1, 0], [0.1, 0.2], qid=["b", "b"])
    other = RankingAccumulator("mrr")
    other.update([1, 0, 1, 0], [0.1, 0.2, 0.3, 0.4], qid=["c", "c", "a", "a"])
    with pytest.raises(ValueError, match=r"query 'a' was already given .*merged"):
        acc.merge(other)
    # A refused update or merge leaves the state as it was.
    assert acc.compute().query_ids.tolist() == ["a", "b"]
    with pytest.raises(InvalidParameterError, match="integers, strings and bytes do not mix"):
        acc.update([1, 0], [0.1, 0.2], qid=[7, 7])


def test_merge_refuses_different_setups():
    a = RankingAccumulator(["ndcg@10", "map"])
    a.update([[1, 0]], [[0.2, 0.1]])
    for other, match in [
        (RankingAccumulator(["ndcg@10"]), "different metrics or options"),
        (
            RankingAccumulator([("ndcg@10", {"gain": "exponential"}), "map"]),
            "different metrics or options",
        ),
        (RankingAccumulator(["ndcg@10", "map"], no_relevant="skip"), "no_relevant='warn' here"),
        (RankingAccumulator(["ndcg@10", "map"], ignore_ties=True), "ignore_ties=False here"),
    ]:
        with pytest.raises(InvalidParameterError, match=match):
            a.merge(other)
    long = RankingAccumulator(["ndcg@10", "map"])
    long.update([1, 0], [0.1, 0.2], qid=[1, 1])
    with pytest.raises(InvalidParameterError, match="holds matrix rows"):
        a.merge(long)
    with pytest.raises(InvalidParameterError, match="must be a RankingAccumulator"):
        a.merge({"ndcg@10": 0.5})
    weighted = RankingAccumulator(["ndcg@10", "map"])
    weighted.update([[1, 0]], [[0.2, 0.1]], sample_weight=[2.0])
    with pytest.raises(
        InvalidParameterError, match="sample_weight is given here but was missing before"
    ):
        a.merge(weighted)
    with pytest.raises(InvalidParameterError, match="long format"):
        a.update([1, 0], [0.1, 0.2], qid=[1, 1])


@pytest.mark.parametrize("mode", ["qid", "rows"])
def test_merge_takes_two_spellings_of_one_measure(mode):
    """The registry's aliases and presets name one measure: 'nDCG@10' is 'ndcg@10',
    'P@1' is 'precision@1', 'ndcg_exp@3' is nDCG@3 with the exponential gain;
    the merged values are keyed by this accumulator's names, in any order."""
    names = ["ndcg@10", "precision@1", "ndcg_exp@3", "recip_rank"]
    spelled = ["MRR", ("ndcg@3", {"gain": "exponential"}), "P@1", "nDCG@10"]
    assert metric_names(aliases=True)["p"] == "precision"
    y = [[1, 0, 2], [0, 1, 0], [0, 0, 1]]
    s = [[0.2, 0.1, 0.3], [0.5, 0.5, 0.1], [0.3, 0.2, 0.1]]
    a, b, whole = (RankingAccumulator(n) for n in (names, spelled, names))
    if mode == "qid":
        a.update(np.ravel(y[:2]), np.ravel(s[:2]), qid=[0, 0, 0, 1, 1, 1])
        b.update(np.ravel(y[2:]), np.ravel(s[2:]), qid=[2, 2, 2])
        whole.update(np.ravel(y), np.ravel(s), qid=np.repeat([0, 1, 2], 3))
    else:
        a.update(y[:2], s[:2])
        b.update(y[2:], s[2:])
        whole.update(y, s)
    got, want = a.merge(b).compute(), whole.compute()
    assert list(got.mean) == names
    assert got.mean == pytest.approx(want.mean)
    for name in names:
        np.testing.assert_allclose(got.per_query[name], want.per_query[name])
    with pytest.raises(InvalidParameterError, match="different metrics or options"):
        RankingAccumulator(["ndcg@10"]).merge(RankingAccumulator(["nDCG@5"]))


def test_accumulator_arguments_and_reset():
    with pytest.raises(InvalidParameterError, match="RankingAccumulator: no_relevant="):
        RankingAccumulator("ndcg", no_relevant=2)
    with pytest.raises(InvalidParameterError, match="ndgc"):
        RankingAccumulator("ndgc@10")
    acc = RankingAccumulator("ndcg")
    with pytest.raises(ValueError, match="no query was given yet"):
        acc.compute()
    acc.update([[1, 0]], [[0.2, 0.1]])
    acc.reset()
    acc.update([1, 0], [0.1, 0.2], qid=[5, 5])  # a new layout after reset is fine
    assert acc.compute().query_ids.tolist() == [5]


class _Tensor:
    """A stand-in for a CPU tensor: only ``__array__``, as torch and JAX give."""

    def __init__(self, data):
        self._data = np.asarray(data)

    def __array__(self, dtype=None, copy=None):
        return self._data if dtype is None else self._data.astype(dtype)


def test_accumulator_takes_array_likes_without_importing_their_library():
    y, s = np.array([[2, 0, 1], [0, 1, 0]]), np.array([[0.1, 0.5, 0.3], [0.2, 0.9, 0.1]])
    acc = RankingAccumulator(["ndcg@2", "mrr"])
    acc.update(_Tensor(y), _Tensor(s), sample_weight=_Tensor([1.0, 3.0]))
    _assert_same(acc.compute(), y, s, ["ndcg@2", "mrr"], sample_weight=[1.0, 3.0])
    long = RankingAccumulator("ndcg@2")
    long.update(_Tensor(y.ravel()), _Tensor(s.ravel()), qid=_Tensor(np.repeat([4, 9], 3)))
    assert long.compute().query_ids.tolist() == [4, 9]


def test_accumulator_pickles_and_goes_on():
    acc = RankingAccumulator(
        ["map@2", ("ndcg@3", {"gain": {0: 0, 1: 1, 2: 5, 3: 9}})], no_relevant=float("nan")
    )
    X, y, qid, _ = _ltr_data(20, 8)
    s = X[:, 0]
    for lo, hi in [(0, 7), (7, 15)]:
        m = (qid >= lo) & (qid < hi)
        acc.update(y[m], s[m], qid=qid[m])
    copy = pickle.loads(pickle.dumps(acc))
    m = qid >= 15
    copy.update(y[m], s[m], qid=qid[m])
    with pytest.raises(ValueError, match="query 3 was already given"):
        copy.update(y[qid == 3], s[qid == 3], qid=qid[qid == 3])
    _assert_same(
        copy.compute(),
        y,
        s,
        ["map@2", ("ndcg@3", {"gain": {0: 0, 1: 1, 2: 5, 3: 9}})],
        qid=qid,
        no_relevant=float("nan"),
    )


def _state_bytes(n_queries, n_items, n_batches=10):
    """Bytes held (tracemalloc) by an accumulator after its batches are gone."""
    gc.collect()
    tracemalloc.start()
    try:
        base = tracemalloc.get_traced_memory()[0]
        acc = RankingAccumulator(["ndcg@10", "map@10", "mrr"], no_relevant=0.0)
        per = n_queries // n_batches
        rng = np.random.default_rng(0)
        for _ in range(n_batches):
            y = rng.integers(0, 2, size=(per, n_items))
            s = rng.normal(size=(per, n_items))
            acc.update(y, s)
            del y, s
        gc.collect()
        held = tracemalloc.get_traced_memory()[0] - base
    finally:
        tracemalloc.stop()
    assert acc.compute()["mrr"] > 0
    return held


def test_memory_grows_with_queries_not_items():
    small = _state_bytes(2_000, 10)
    wide = _state_bytes(2_000, 1_000)  # 100x the items: 16 MB of scores went through
    many = _state_bytes(20_000, 10)  # 10x the queries
    # Per query: an id (8 B) and per metric a value (8 B) and a flag (1 B): 35 B.
    assert wide < 1.2 * small + 4096, (small, wide)
    assert 7 * small < many < 13 * small, (small, many)
    assert many / 20_000 < 60, many


def test_neither_boosting_nor_tensor_libraries_are_imported():
    import subprocess
    import sys

    code = (
        "import sys, numpy as np, sk_rankmetrics as s\n"
        "acc = s.RankingAccumulator('ndcg@2')\n"
        "acc.update([[1, 0]], [[0.1, 0.2]])\n"
        "m = s.make_eval_metric('ndcg@2', 'lightgbm')\n"
        "m(np.array([1, 0]), np.array([0.1, 0.2]), None, np.array([2]))\n"
        "print(sorted(n for n in ('torch', 'jax', 'lightgbm', 'xgboost', 'tensorflow')"
        " if n in sys.modules))\n"
    )
    root = ROOT
    out = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        env={**__import__("os").environ, "PYTHONPATH": str(root)},
        timeout=300,
        check=False,
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "[]"


def test_the_logs_show_the_metric_name(capsys):
    lgb = pytest.importorskip("lightgbm")
    xgb = pytest.importorskip("xgboost")
    X, y, q, sizes = _ltr_data(20, 9)
    lgb.train(
        LGB_PARAMS,
        lgb.Dataset(X, y, group=sizes),
        num_boost_round=3,
        valid_sets=[lgb.Dataset(X, y, group=sizes)],
        valid_names=["valid"],
        feval=make_eval_metric("ndcg_exp@10", "lightgbm", no_relevant=1.0),
        callbacks=[lgb.early_stopping(2, verbose=True)],
    )
    d = xgb.DMatrix(X, y, qid=q)
    xgb.train(
        XGB_PARAMS,
        d,
        num_boost_round=2,
        evals=[(d, "valid")],
        custom_metric=make_eval_metric(["map@10", "err@20"], "xgboost", no_relevant=1.0),
        maximize=True,
    )
    out = capsys.readouterr()
    text = out.out + out.err
    assert "valid's skr_ndcg_exp@10: 0." in text
    assert "valid-skr_map@10:0." in text and "valid-skr_err@20:0." in text


def test_judged_reaches_every_batch():
    y = np.array([1, 0, 1, 0, 0, 1, 0, 1, 0])
    s = np.array([0.9, 0.8, 0.7, 0.6, 0.5, 0.4, 0.3, 0.2, 0.1])
    judged = np.array([1, 0, 1, 1, 1, 1, 1, 0, 1], dtype=bool)
    qid = np.repeat([1, 2, 3], 3)
    acc = RankingAccumulator(["bpref", "judged@2"], no_relevant=0.0)
    acc.update(y[:6], s[:6], qid=qid[:6], judged=judged[:6])
    acc.update(y[6:], s[6:], qid=qid[6:], judged=judged[6:])
    _assert_same(
        acc.compute(), y, s, ["bpref", "judged@2"], qid=qid, judged=judged, no_relevant=0.0
    )


def test_a_metric_made_for_one_library_is_refused_by_the_other():
    lgb = pytest.importorskip("lightgbm")
    xgb = pytest.importorskip("xgboost")
    X, y, q, sizes = _ltr_data(5, 10)
    with pytest.raises(TypeError, match=r"made for lightgbm but xgboost called it"):
        make_eval_metric("ndcg@3", "lightgbm")(np.zeros(y.size), xgb.DMatrix(X, y, qid=q))
    data = lgb.Dataset(X, y, group=sizes).construct()
    with pytest.raises(TypeError, match=r"made for xgboost but lightgbm called it"):
        make_eval_metric("ndcg@3", "xgboost")(np.zeros(y.size), data)


def test_merging_an_accumulator_into_itself_is_refused():
    acc = RankingAccumulator("mrr")
    acc.update([[1, 0]], [[0.2, 0.1]])
    with pytest.raises(InvalidParameterError, match="into itself"):
        acc.merge(acc)


@settings(max_examples=50, deadline=None)
@given(
    st.lists(st.integers(2, 8), min_size=1, max_size=10),
    st.integers(0, 2**32 - 1),
    st.sampled_from(["ndcg_exp@3", "map@5", "err@4", "mrr", "precision@2"]),
    st.sampled_from(["lightgbm", "xgboost"]),
)
def test_eval_metric_equals_a_plain_loop_over_the_groups(sizes, seed, metric, library):
    """The group sizes read as queries: against one evaluate call per group."""
    rng = np.random.default_rng(seed)
    n = sum(sizes)
    y = rng.integers(0, 4, size=n).astype(np.float32)
    s = rng.integers(0, 3, size=n).astype(np.float32)  # many ties
    m = make_eval_metric(metric, "lightgbm", no_relevant=0.5)
    got = m(y, s, None, np.array(sizes))[1]
    per_group, start = [], 0
    for size in sizes:
        row = slice(start, start + size)
        per_group.append(
            evaluate(y[row][None, :], s[row][None, :], metric, no_relevant=0.5)[metric]
        )
        start += size
    assert got == pytest.approx(float(np.mean(per_group)), rel=1e-12, abs=1e-15)
    if library == "xgboost":
        xgb = pytest.importorskip("xgboost")
        d = xgb.DMatrix(np.zeros((n, 1)), y)
        d.set_group(sizes)  # group sizes instead of qid
        name, value = make_eval_metric(metric, "xgboost", no_relevant=0.5)(s, d)
        assert (name, value) == ("skr_" + metric, got)


def test_lightgbm_sample_weights_are_query_weights():
    y = np.array([1, 0, 0, 0, 1, 0, 1, 0])
    s = np.array([0.1, 0.9, 0.5, 0.2, 0.4, 0.8, 0.3, 0.1])
    sizes = np.array([3, 3, 2])
    w = np.repeat([1.0, 2.0, 5.0], sizes)
    value = make_eval_metric("mrr", "lightgbm")(y, s, w, sizes)[1]
    assert (
        value
        == evaluate(y, s, "mrr", qid=np.repeat([0, 1, 2], sizes), sample_weight=[1.0, 2.0, 5.0])[
            "mrr"
        ]
    )
    w[0] = 3.0
    with pytest.raises(ValueError, match="differs inside query 0"):
        make_eval_metric("mrr", "lightgbm")(y, s, w, sizes)


def test_xgboost_without_groups_raises():
    xgb = pytest.importorskip("xgboost")
    d = xgb.DMatrix(np.zeros((4, 1)), np.array([1.0, 0, 1, 0]))
    with pytest.raises(ValueError, match=r"the DMatrix has no query groups"):
        make_eval_metric("ndcg@10", "xgboost")(np.zeros(4), d)
