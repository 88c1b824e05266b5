"""``exclude=`` wherever a users x items matrix goes in: Dask arrays, the
scorers under scikit-learn's metadata routing, and the Displays.

Each value is checked against the in-memory call with the same mask (itself
checked against long format without the excluded pairs in
``test_catalogue.py``), and, for the Dask path, against long format directly.
"""

from __future__ import annotations

import inspect
import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from conftest import default_options
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from reference import long_format_without

import sk_rankmetrics as skr
from sk_rankmetrics import InvalidParameterError
from sk_rankmetrics._metrics.registry import METRICS

da = pytest.importorskip("dask.array")

NAN = float("nan")


def _case(seed, n_rows, n_items, p_excl=0.3, levels=3):
    """Graded truth, tied integer scores, and a mask of non-relevant items."""
    rng = np.random.default_rng(seed)
    y = np.where(rng.random((n_rows, n_items)) < 0.3, rng.integers(1, 4, (n_rows, n_items)), 0)
    s = rng.integers(0, levels, (n_rows, n_items)).astype(float)
    ex = (rng.random(y.shape) < p_excl) & (y == 0)
    return y, s, ex


def _label(name, k):
    return name if k is None or not METRICS[name].takes_k else f"{name}@{k}"


def _masks(ex, kind, chunks):
    """The mask as the caller may give it."""
    if kind == "numpy":
        return ex
    if kind == "sparse":
        return sp.csr_array(ex)
    if kind == "dask_int":
        return da.from_array(ex.astype(np.int8), chunks=chunks)
    return da.from_array(ex, chunks=chunks)


# -- Dask arrays ---------------------------------------------------------------------------


@settings(max_examples=20, deadline=None, suppress_health_check=list(HealthCheck))
@given(
    seed=st.integers(0, 2**31),
    n_rows=st.integers(2, 9),
    n_items=st.integers(2, 9),
    row_chunk=st.integers(1, 4),
    col_chunk=st.integers(1, 9),
    ex_rows=st.integers(1, 5),
    kind=st.sampled_from(["numpy", "sparse", "dask", "dask_int"]),
    k=st.sampled_from([None, 1, 3]),
    ignore_ties=st.booleans(),
)
def test_dask_with_exclude_equals_in_memory_and_long_format(
    seed, n_rows, n_items, row_chunk, col_chunk, ex_rows, kind, k, ignore_ties
):
    """Every metric, per row, on Dask y_true / y_score chunked across rows and
    columns, the mask given as NumPy, scipy.sparse or a Dask array chunked
    otherwise: the in-memory numbers with the same mask, and those of long
    format without the excluded pairs."""
    y, s, ex = _case(seed, n_rows, n_items)
    ex[0] = True  # a row left without a candidate: no_relevant's
    y[0] = 0
    if ignore_ties:  # one order on every side: the ties broken beforehand
        s = s + np.arange(n_items)[None, :] * 1e-3
    metrics = [
        (_label(n, k), default_options(n))
        for n, spec in METRICS.items()
        if ignore_ties or spec.ties != "refuse"
    ]
    yd = da.from_array(y, chunks=(row_chunk, col_chunk))
    sd = da.from_array(s, chunks=(max(1, row_chunk - 1), n_items))
    mask = _masks(ex, kind, (ex_rows, col_chunk))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        got = skr.evaluate(
            yd, sd, metrics, exclude=mask, per_row=True, no_relevant=NAN, ignore_ties=ignore_ties
        )
        want = skr.evaluate(
            y, s, metrics, exclude=ex, per_row=True, no_relevant=NAN, ignore_ties=ignore_ties
        )
        long = long_format_without(
            skr.evaluate, y, s, ex, metrics, no_relevant=NAN, ignore_ties=ignore_ties
        )
        mean_got = skr.evaluate(
            yd, sd, metrics, exclude=mask, no_relevant="skip", ignore_ties=ignore_ties
        )
        mean_want = skr.evaluate(
            y, s, metrics, exclude=ex, no_relevant="skip", ignore_ties=ignore_ties
        )
    for label, _ in metrics:
        np.testing.assert_allclose(
            got[label], want[label], rtol=1e-12, atol=1e-12, equal_nan=True, err_msg=label
        )
        np.testing.assert_allclose(
            mean_got[label], mean_want[label], rtol=1e-12, atol=1e-12, equal_nan=True, err_msg=label
        )
        if long is not None:
            values, present = long
            np.testing.assert_allclose(
                got[label][present], values[label], rtol=1e-12, atol=1e-12, err_msg=label
            )
    assert got["num_ret"][0] == 0


PUBLIC_METRIC_FUNCTIONS = [spec.function for spec in METRICS.values() if spec.function]


@pytest.mark.parametrize("function", PUBLIC_METRIC_FUNCTIONS)
@pytest.mark.parametrize("kind", ["sparse", "dask"])
def test_every_metric_function_takes_exclude_with_dask(function, kind):
    fn = getattr(skr, function)
    y, s, ex = _case(5, 30, 10, levels=4)
    ex[:, 0] = False
    params = inspect.signature(fn).parameters
    kw = {"k": 4} if "k" in params else {}
    if "no_relevant" in params:
        kw["no_relevant"] = NAN
    yd, sd = da.from_array(y, chunks=(7, 10)), da.from_array(s, chunks=(11, 5))
    got = fn(yd, sd, exclude=_masks(ex, kind, (4, 3)), per_row=True, **kw)
    want = fn(y, s, exclude=ex, per_row=True, **kw)
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12, equal_nan=True)
    assert not np.allclose(want, fn(y, s, per_row=True, **kw), equal_nan=True) or (
        function in ("dcg_score", "cumulative_gain_score", "hit_rate_score")
    )


@pytest.mark.parametrize("kind", ["sparse", "dask"])
def test_dask_exclude_beside_sample_weight_and_judged(kind):
    """The mask travels with the other per-row arguments, in their blocks."""
    y, s, ex = _case(8, 25, 7, levels=4)
    rng = np.random.default_rng(8)
    w = rng.random(25) + 0.1
    judged = rng.random(y.shape) < 0.8
    judged[y > 0] = True
    metrics = ["ndcg@3", "bpref", "judged@3", "map"]
    want = skr.evaluate(y, s, metrics, exclude=ex, sample_weight=w, judged=judged, no_relevant=0.0)
    got = skr.evaluate(
        da.from_array(y, chunks=(6, 7)),
        s,
        metrics,
        exclude=_masks(ex, kind, (9, 7)),
        sample_weight=da.from_array(w, chunks=4),
        judged=judged,
        no_relevant=0.0,
    )
    for m in metrics:
        assert got[m] == pytest.approx(want[m], rel=1e-12), m


def test_dask_exclude_with_in_memory_scores_and_lazy_result():
    """A Dask mask alone sends the call to Dask; compute=False gives the same."""
    y, s, ex = _case(9, 12, 6)
    want = skr.ndcg_score(y, s, k=3, exclude=ex, no_relevant=0.0)
    mask = da.from_array(ex, chunks=(5, 6))
    assert skr.ndcg_score(y, s, k=3, exclude=mask, no_relevant=0.0) == pytest.approx(want)
    lazy = skr.evaluate(
        da.from_array(y, chunks=(4, 6)), s, ["ndcg@3"], exclude=mask, no_relevant=0.0, compute=False
    )
    assert hasattr(lazy["ndcg@3"], "compute")
    assert float(lazy["ndcg@3"].compute()) == pytest.approx(want)


def _leaky():
    y, s, ex = _case(3, 20, 6)
    y[11, 2] = 2
    ex[11, 2] = True
    y[12, 4] = 1
    ex[12, 4] = True
    return y, s, ex


@pytest.mark.parametrize("kind", ["numpy", "sparse", "dask"])
def test_dask_an_excluded_relevant_item_raises_at_compute_counting_them(kind):
    """The leak check runs on each block when the rows are computed: an error
    that counts the block's leaks and names its rows, never a silent drop."""
    y, s, ex = _leaky()
    yd = da.from_array(y, chunks=(10, 6))
    with pytest.raises(
        ValueError,
        match=r"^ndcg_score: y_true marks 2 excluded items as "
        r"relevant.*\(in rows 10 to 19\)$",
    ):
        skr.ndcg_score(yd, s, exclude=_masks(ex, kind, (3, 6)))
    lazy = skr.evaluate(yd, s, ["map"], exclude=_masks(ex, kind, (3, 6)), compute=False)
    with pytest.raises(ValueError, match=r"^evaluate: y_true marks 2 excluded items"):
        lazy["map"].compute()


@pytest.mark.parametrize(
    ("mask", "match"),
    [
        (
            lambda ex: da.from_array(ex[:5]),
            r"ndcg_score: exclude has shape \(5, 6\); it must "
            r"have y_true's, \(20, 6\)\.$",
        ),
        (lambda ex: ex[:, :4], r"ndcg_score: exclude has shape \(20, 4\)"),
        (lambda ex: sp.csr_array(ex[:4]), r"ndcg_score: exclude has shape \(4, 6\)"),
        (lambda ex: da.from_array(ex.astype(str)), "ndcg_score: exclude must be a boolean matrix"),
        (lambda ex: da.from_array(ex[0]), "ndcg_score: exclude must be a boolean matrix"),
        (lambda ex: ex * 2.0, "ndcg_score: exclude must hold True/False .*value 2.0"),
        (
            lambda ex: da.from_array(ex * 2.0, chunks=(4, 6)),
            r"ndcg_score: exclude must hold True/False .*value 2.0.*\(in rows",
        ),
        (
            lambda ex: da.from_array(np.where(ex, np.nan, 0.0), chunks=(4, 6)),
            "exclude must hold True/False .*value nan",
        ),
    ],
)
def test_dask_a_wrong_exclude_is_the_in_memory_error(mask, match):
    y, s, ex = _case(3, 20, 6)
    with pytest.raises(ValueError, match=match):
        skr.ndcg_score(da.from_array(y, chunks=(8, 6)), s, exclude=mask(ex))


@pytest.mark.parametrize("dask_input", [False, True])
def test_exclude_with_qid_is_refused_saying_what_to_do(dask_input):
    y, s, q = np.array([1, 0, 1]), np.array([0.3, 0.2, 0.1]), np.array([0, 0, 0])
    if dask_input:
        y, s = da.from_array(y), da.from_array(s)
    with pytest.raises(
        InvalidParameterError,
        match=r"^mean_average_precision_score: exclude marks items of \(n_rows, n_items\) "
        r"matrices, but with qid .* leave the excluded pairs out of "
        r"y_true, y_score and qid",
    ):
        skr.mean_average_precision_score(y, s, qid=q, exclude=[True, False, False])


# -- scorers: exclude as routed metadata ----------------------------------------------------


def _recommender_case(seed=0, n=40, m=12):
    """User features, held-out interactions (the truth) and training ones (exclude)."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 5))
    seen = rng.random((n, m)) < 0.4
    train = seen & (rng.random((n, m)) < 0.6)
    return X, (seen & ~train).astype(int), train


@pytest.fixture
def routing():
    sklearn = pytest.importorskip("sklearn")
    with sklearn.config_context(enable_metadata_routing=True):
        yield


@pytest.mark.parametrize("as_", [np.asarray, sp.csr_array, sp.csr_matrix])
@pytest.mark.parametrize("metric", ["ndcg@5", "recall@3", "mrr", "coverage@3"])
def test_scorer_in_cross_val_score_takes_the_folds_rows_of_exclude(routing, as_, metric):
    """The scorer requests ``exclude`` as it requests ``qid``; the split
    indexes its rows with X's: each fold's score is the metric function's on
    the fold's rows of the mask."""
    from sklearn.linear_model import Ridge
    from sklearn.model_selection import KFold, cross_val_score

    X, Y, train = _recommender_case()
    cv = KFold(4, shuffle=True, random_state=0)
    scorer = skr.get_scorer(metric, no_relevant=0.0).set_score_request(exclude=True)
    assert scorer.get_metadata_routing().score.requests["exclude"] is True
    got = cross_val_score(
        Ridge(), X, Y, cv=cv, scoring=scorer, params={"exclude": as_(train)}, error_score="raise"
    )
    want, plain = [], []
    for tr, te in cv.split(X):
        S = Ridge().fit(X[tr], Y[tr]).predict(X[te])
        want.append(skr.evaluate(Y[te], S, [metric], exclude=train[te], no_relevant=0.0)[metric])
        plain.append(skr.evaluate(Y[te], S, [metric], no_relevant=0.0)[metric])
    np.testing.assert_allclose(got, want, rtol=1e-12)
    assert not np.allclose(got, plain)  # the mask changed every number it could


def test_scorer_in_grid_search_takes_exclude_from_fit(routing):
    from sklearn.linear_model import Ridge
    from sklearn.model_selection import GridSearchCV, KFold

    X, Y, train = _recommender_case(1)
    cv = KFold(3)
    scorers = {
        name: skr.get_scorer(name, no_relevant=0.0).set_score_request(exclude=True)
        for name in ("ndcg@5", "precision@3")
    }
    search = GridSearchCV(
        Ridge(),
        {"alpha": [0.1, 100.0]},
        cv=cv,
        scoring=scorers,
        refit="ndcg@5",
        error_score="raise",
    )
    search.fit(X, Y, exclude=sp.csr_array(train))
    for name in scorers:
        for i, alpha in enumerate([0.1, 100.0]):
            want = [
                skr.evaluate(
                    Y[te],
                    Ridge(alpha=alpha).fit(X[tr], Y[tr]).predict(X[te]),
                    [name],
                    exclude=train[te],
                    no_relevant=0.0,
                )[name]
                for tr, te in cv.split(X)
            ]
            assert search.cv_results_[f"mean_test_{name}"][i] == pytest.approx(np.mean(want))


def test_scorer_called_with_exclude_and_its_errors(routing):
    from sklearn.linear_model import Ridge

    X, Y, train = _recommender_case(2)
    model = Ridge().fit(X, Y)
    scorer = skr.get_scorer("map", no_relevant="skip")
    assert scorer(model, X, Y, exclude=train) == pytest.approx(
        skr.mean_average_precision_score(Y, model.predict(X), exclude=train, no_relevant="skip")
    )
    with pytest.raises(ValueError, match=r"the scorer of 'map': exclude has shape \(10, 12\)"):
        scorer(model, X, Y, exclude=train[:10])
    leak = train.copy()
    leak[Y == 1] = True
    with pytest.raises(ValueError, match=r"y_true marks \d+ excluded items as relevant"):
        scorer(model, X, Y, exclude=leak)
    with pytest.raises(
        InvalidParameterError,
        match=r"accepts \['qid', 'sample_weight', "
        r"'exclude'\]",
    ):
        scorer.set_score_request(excluded=True)


# -- Displays ----------------------------------------------------------------------------


@pytest.mark.parametrize("as_", [np.asarray, sp.csr_array])
def test_metric_at_k_display_from_estimator_takes_exclude(as_):
    """The plotted curves are the metric functions' values with the same mask."""
    pytest.importorskip("matplotlib")
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from sklearn.linear_model import Ridge

    X, Y, train = _recommender_case(3)
    model = Ridge().fit(X, Y)
    ks = [1, 3, 5, 10]
    d = skr.MetricAtKDisplay.from_estimator(
        model, X, Y, metric=["ndcg", "recall"], ks=ks, exclude=as_(train), no_relevant=0.0
    )
    S = model.predict(X)
    want = [skr.ndcg_score(Y, S, k=k, exclude=train, no_relevant=0.0) for k in ks]
    np.testing.assert_allclose(d.values["ndcg"], want, rtol=1e-12)
    np.testing.assert_allclose(
        d.values["recall"],
        [skr.recall_at_k_score(Y, S, k=k, exclude=train, no_relevant=0.0) for k in ks],
        rtol=1e-12,
    )
    lazy = skr.MetricAtKDisplay.from_predictions(
        da.from_array(Y, chunks=(9, 12)),
        S,
        metric="ndcg",
        ks=ks,
        exclude=da.from_array(train, chunks=(5, 12)),
        no_relevant=0.0,
    )
    np.testing.assert_allclose(lazy.values["ndcg"], want, rtol=1e-12)
    plain = skr.MetricAtKDisplay.from_estimator(model, X, Y, metric="ndcg", ks=ks, no_relevant=0.0)
    assert not np.allclose(plain.values["ndcg"], want)
    with pytest.raises(ValueError, match=r"^MetricAtKDisplay.from_estimator: exclude has shape"):
        skr.MetricAtKDisplay.from_estimator(model, X, Y, ks=ks, exclude=as_(train[:5]))
    with pytest.raises(ValueError, match=r"^MetricAtKDisplay.from_predictions: exclude has shape"):
        skr.MetricAtKDisplay.from_predictions(Y, S, ks=ks, exclude=as_(train[:5]))
    plt.close("all")


def test_query_difference_display_takes_exclude():
    """The bars are the per-row differences of the metric functions' values
    with the same mask for both systems."""
    pytest.importorskip("matplotlib")
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    y, s, ex = _case(4, 15, 8, levels=5)
    y[3] = 0  # a row without a relevant item: skipped by both
    s2 = np.random.default_rng(1).integers(0, 5, s.shape).astype(float)
    d = skr.QueryDifferenceDisplay.from_predictions(
        y, {"A": s, "B": s2}, metric="ndcg@4", exclude=sp.csr_array(ex), no_relevant="skip"
    )
    a = skr.ndcg_score(y, s, k=4, exclude=ex, per_row=True, no_relevant=NAN)
    b = skr.ndcg_score(y, s2, k=4, exclude=ex, per_row=True, no_relevant=NAN)
    keep = ~np.isnan(a)
    assert 3 not in d.query_ids.tolist()
    np.testing.assert_array_equal(d.query_ids, np.arange(15)[keep])
    np.testing.assert_allclose(d.differences, (a - b)[keep], rtol=1e-12, atol=1e-15)
    plt.close("all")


# -- -inf as a mask: the error points to the way to leave items out ----------------

_EXCLUDE_HINT = (
    r"y_score contains NaN or infinity \(first at row 0, column 1\); every value must "
    r"be finite\. That one is -inf\. A score of -inf to keep an item out of its row's "
    r"ranking is what exclude= is for: pass finite scores and exclude=mask \(True for the "
    r"items to leave out\)\."
)
_OMISSION_HINT = (
    r"y_score contains NaN or infinity \(first at index 1\); every value must be "
    r"finite\. That one is -inf\. A score of -inf to keep an item out of its query's "
    r"ranking: drop the pair from y_true, y_score and qid instead \(long format ranks only "
    r"the pairs it lists\)\."
)


def _masked_scores():
    y = np.array([[1, 0, 0], [0, 1, 0]])
    s = np.array([[0.5, 0.9, 0.2], [0.1, 0.3, 0.2]])
    s[0, 1] = -np.inf  # the idiom of docs/beyond_accuracy.md: an item seen in training
    return y, s


@pytest.mark.parametrize(
    "call",
    [
        lambda y, s: skr.evaluate(y, s, "ndcg@2"),
        lambda y, s: skr.ndcg_score(y, s),
        lambda y, s: skr.evaluate(y, s.astype(np.float32), ["recall@2", "coverage@2"]),
        lambda y, s: skr.evaluate(y, s, "coverage@2"),
        lambda y, s: skr.evaluate(da.from_array(y, chunks=1), da.from_array(s, chunks=1),
                                  "ndcg@2").compute(),
    ],
)
def test_minus_infinity_as_a_mask_points_to_exclude(call):
    y, s = _masked_scores()
    with pytest.raises(ValueError, match=_EXCLUDE_HINT):
        call(y, s)
    # What the message says to do gives the numbers of the pairs left out.
    ex = np.isinf(s)
    got = skr.evaluate(y, np.where(ex, 0.0, s), "ndcg@2", exclude=ex)["ndcg@2"]
    want = skr.evaluate([1, 0, 0, 1, 0], [0.5, 0.2, 0.1, 0.3, 0.2], "ndcg@2",
                        qid=[0, 0, 1, 1, 1])["ndcg@2"]
    assert got == pytest.approx(want, rel=1e-15)


def test_minus_infinity_in_long_format_says_to_drop_the_pair():
    y, s = _masked_scores()
    with pytest.raises(ValueError, match=_OMISSION_HINT):
        skr.evaluate(y.ravel(), s.ravel(), "mrr", qid=[1, 1, 1, 2, 2, 2])


@pytest.mark.parametrize("bad", [np.nan, np.inf])
def test_other_non_finite_scores_get_no_mask_hint(bad):
    y, s = _masked_scores()
    s[0, 1] = bad
    with pytest.raises(ValueError, match=r"\(first at row 0, column 1\); every value "
                       r"must be finite\.$"):
        skr.evaluate(y, s, "ndcg@2")


@pytest.mark.parametrize(
    "mask, match",
    [
        (lambda ex: ex * 2.0, r"^evaluate: exclude must hold True/False .*value 2.0"),
        (lambda ex: np.where(ex, np.nan, 0.0), "exclude must hold True/False .*value nan"),
        (lambda ex: ex[:4], r"^evaluate: exclude has shape \(4, 6\); it must have y_true's"),
        (lambda ex: ex.astype(str), "^evaluate: exclude must be a boolean matrix"),
        (lambda ex: ex[0], "^evaluate: exclude must be a boolean matrix"),
    ],
)
def test_a_wrong_dense_exclude_beside_dense_truth_is_named(mask, match):
    """A dense mask beside a dense y_true is kept dense (no sparse copy): its
    type, flags and shape are checked as a sparse one's are."""
    y, s, ex = _case(3, 20, 6)
    with pytest.raises(ValueError, match=match):
        skr.evaluate(y, s, ["ndcg"], exclude=mask(ex))
    marked = ex.copy()
    marked[np.nonzero(y)[0][:2], np.nonzero(y)[1][:2]] = True
    with pytest.raises(ValueError, match=r"^evaluate: y_true marks 2 excluded items"):
        skr.evaluate(y, s, ["ndcg"], exclude=marked)
    # 0/1 numbers are flags too, and give what bools give.
    np.testing.assert_array_equal(
        skr.evaluate(y, s, ["ndcg"], exclude=ex.astype(np.float32), per_row=True,
                     no_relevant=0.0)["ndcg"],
        skr.evaluate(y, s, ["ndcg"], exclude=ex, per_row=True, no_relevant=0.0)["ndcg"])


@pytest.mark.parametrize("kind", ["float64", "float32", "int16"])
def test_judged_only_is_exclude_of_the_unjudged_items(kind):
    # judged_only takes the unjudged items out of each ranking, relevant
    # ones too: the numbers of exclude= marking them, their relevance set
    # to 0 (exclude refuses relevance), whatever the scores' type.
    rng = np.random.default_rng(4)
    y = rng.integers(0, 4, (300, 50))
    s = (rng.random((300, 50)) * 20).astype(kind)
    j = rng.random((300, 50)) < 0.7
    names = ["ndcg", "map", "err", "bpref", "recall", "ndcg@5", "precision@10"]
    got = skr.evaluate(y, s, [(n, {"judged_only": True}) for n in names], judged=j,
                       per_row=True, no_relevant=0.0)
    want = skr.evaluate(np.where(j, y, 0), s, names, exclude=~j, judged=j, per_row=True,
                        no_relevant=0.0)
    for n in names:
        np.testing.assert_allclose(np.asarray(got[n]), np.asarray(want[n]), rtol=1e-12,
                                   atol=1e-12, err_msg=n)
