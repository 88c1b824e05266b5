"""One invariance suite for every registered metric.

Driven by ``sk_rankmetrics._metrics.registry.METRICS``: a metric registered there is
checked here without further ado. Each check is a property every ranking
metric must have (scikit-learn's common metric tests do the same for its
metrics): row order, a shared column permutation, a strictly increasing
transform of the scores, the container and dtype of the inputs, sample
weights, bounds, the perfect ranking, per-row output; and ``evaluate`` with
several metrics equals the single-metric functions.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp
from conftest import METRIC_NAMES, NORMALIZED, public, score, untied
from reference import brute_force

import sk_rankmetrics as skr
from sk_rankmetrics._metrics.registry import METRICS, PRESETS, lookup

#: Slow (every metric under every invariance): left out by pytest -m 'not slow'.
pytestmark = pytest.mark.slow

TOL = dict(rel=1e-12, abs=1e-12)

#: (metric, k) pairs: every metric without a cut-off and, if it takes one, k=3.
CASES = [(n, None) for n in METRIC_NAMES] + [(n, 3) for n in METRIC_NAMES if METRICS[n].takes_k]
IDS = [f"{n}@{k}" if k else n for n, k in CASES]


def _data(seed=0, n_rows=12, n_items=6, binary=False):
    """Graded (or binary) relevance with tied integer scores.

    Every row has a relevant item, except row 2 which has none.
    """
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2 if binary else 4, size=(n_rows, n_items))
    y[np.arange(n_rows), rng.integers(0, n_items, n_rows)] = 1
    y[2] = 0
    s = rng.integers(0, 4, size=(n_rows, n_items))
    return y, s


def _run(name, y, s, k, **kwargs):
    """The metric; for one that refuses tied scores, on scores untied by
    relevance (items tied on both are interchangeable for every metric)."""
    kwargs.setdefault("no_relevant", 0.0)
    if METRICS[name].ties == "refuse":
        dense = y.toarray() if sp.issparse(y) else y
        dense = dense.to_numpy() if hasattr(dense, "to_numpy") else dense
        plain = s.to_numpy() if hasattr(s, "to_numpy") else s
        s = untied(np.asarray(plain, dtype=float), np.asarray(dense, dtype=float))
    return score(name, y, s, k=k, **kwargs)


def _combine(name, rows, weights):
    """How the rows make the score: a weighted mean, or a weighted sum (counts)."""
    if METRICS[name].aggregate == "sum":
        return float(np.sum(rows * weights))
    return float(np.average(rows, weights=weights))


@pytest.mark.parametrize(("name", "k"), CASES, ids=IDS)
class TestInvariance:
    def test_row_order(self, name, k):
        y, s = _data(1)
        perm = np.random.default_rng(2).permutation(y.shape[0])
        assert _run(name, y[perm], s[perm], k) == pytest.approx(_run(name, y, s, k), **TOL)

    def test_same_column_permutation(self, name, k):
        y, s = _data(3)
        perm = np.random.default_rng(4).permutation(y.shape[1])
        assert _run(name, y[:, perm], s[:, perm], k) == pytest.approx(
            _run(name, y, s, k), **TOL
        )

    @pytest.mark.parametrize(
        "transform",
        [lambda s: 5 * s - 2, lambda s: np.exp(s / 3.0), lambda s: s**3 + s, np.arctan],
        ids=["affine", "exp", "cubic", "arctan"],
    )
    def test_strictly_increasing_transform_of_scores(self, name, k, transform):
        y, s = _data(5)
        s = s - 1.5  # negative scores too
        assert _run(name, y, transform(s), k) == pytest.approx(_run(name, y, s, k), **TOL)

    def test_input_containers(self, name, k):
        y, s = _data(6)
        expected = _run(name, y, s, k)
        for yt in (
            y.tolist(),
            pd.DataFrame(y, columns=list("abcdef")),
            sp.csr_matrix(y),
            sp.csc_matrix(y),
            sp.csr_array(y),
            sp.csc_array(y),
        ):
            assert _run(name, yt, s, k) == pytest.approx(expected, **TOL), type(yt)
        for ys in (s.tolist(), pd.DataFrame(s)):
            assert _run(name, y, ys, k) == pytest.approx(expected, **TOL), type(ys)

    def test_binary_relevance_dtypes(self, name, k):
        y, s = _data(7, binary=True)
        expected = _run(name, y.astype(np.int64), s, k)
        for dtype in (np.int8, np.uint8, np.float32, np.float64, bool):
            assert _run(name, y.astype(dtype), s, k) == pytest.approx(expected, **TOL), dtype
        assert _run(name, sp.csr_array(y.astype(bool)), s, k) == pytest.approx(expected, **TOL)
        assert _run(name, y, s.astype(np.float32), k) == pytest.approx(expected, **TOL)

    def test_weights_of_ones_are_no_weights(self, name, k):
        y, s = _data(8)
        ones = np.ones(y.shape[0])
        assert _run(name, y, s, k, sample_weight=ones) == pytest.approx(
            _run(name, y, s, k), **TOL
        )

    def test_integer_weights_repeat_rows(self, name, k):
        y, s = _data(9)
        w = np.random.default_rng(10).integers(1, 4, size=y.shape[0])
        repeated = _run(name, np.repeat(y, w, axis=0), np.repeat(s, w, axis=0), k)
        assert _run(name, y, s, k, sample_weight=w) == pytest.approx(repeated, **TOL)

    def test_zero_weight_drops_the_row(self, name, k):
        y, s = _data(11)
        w = np.ones(y.shape[0])
        w[[0, 4]] = 0.0
        keep = w > 0
        assert _run(name, y, s, k, sample_weight=w) == pytest.approx(
            _run(name, y[keep], s[keep], k), **TOL
        )

    def test_scaling_weights_changes_nothing(self, name, k):
        y, s = _data(12)
        w = np.random.default_rng(13).random(y.shape[0]) + 0.1
        base = _run(name, y, s, k, sample_weight=w)
        summed = METRICS[name].aggregate == "sum"  # counts: the sum scales
        for c in (1e-3, 7.0, 1e6):
            assert _run(name, y, s, k, sample_weight=c * w) == pytest.approx(
                c * base if summed else base, **TOL)

    def test_per_row_weighted_mean_is_the_score(self, name, k):
        y, s = _data(14)
        w = np.random.default_rng(15).random(y.shape[0])
        for policy in (0.0, 1.0, "skip"):
            rows = _run(name, y, s, k, per_row=True, no_relevant=policy)
            assert isinstance(rows, np.ndarray)
            assert rows.shape == (y.shape[0],)
            mean = _run(name, y, s, k, sample_weight=w, no_relevant=policy)
            keep = ~np.isnan(rows)
            assert mean == pytest.approx(_combine(name, rows[keep], w[keep]), **TOL)
            # The per-row value of a row is the metric of that row alone.
            for i in (0, 5):
                alone = _run(name, y[i : i + 1], s[i : i + 1], k, no_relevant=policy)
                assert rows[i] == pytest.approx(alone, **TOL) or (
                    np.isnan(rows[i]) and np.isnan(alone)
                )

    def test_single_row_equals_reshaped_row(self, name, k):
        y, s = _data(16)
        assert _run(name, y[3].reshape(1, -1), s[3].reshape(1, -1), k) == pytest.approx(
            _run(name, y[3:4], s[3:4], k), **TOL
        )


@pytest.mark.parametrize(("name", "k"), [(n, k) for n, k in CASES if n in NORMALIZED])
def test_normalised_metrics_lie_in_unit_interval(name, k):
    for seed in range(5):
        y, s = _data(seed, n_rows=30, n_items=7)
        rows = _run(name, y, s, k, per_row=True)
        assert np.all((rows >= 0) & (rows <= 1 + 1e-12)), rows
        rows = _run(name, y, -s, k, per_row=True)
        assert np.all((rows >= 0) & (rows <= 1 + 1e-12)), rows


@pytest.mark.parametrize("k", [None, 1, 2, 3, 4, 6, 10])
def test_perfect_ranking(k):
    """Scoring by ``y_true`` itself: what each metric gives, exactly.

    nDCG, AP, hit rate, RR and R-precision score 1. Precision reaches 1 only
    when ``k <= R`` (it is ``min(k, R) / k``; ``R / n_items`` without ``k``),
    recall only when ``k >= R`` (it is ``min(k, R) / R``).
    """
    y, _ = _data(17, n_rows=20, n_items=6)
    y = y[y.sum(axis=1) > 0]
    R = (y > 0).sum(axis=1)
    n = y.shape[1]
    kk = n if k is None else k
    ones = np.ones(len(y))
    expected = {
        "ndcg": ones, "map": ones, "hit_rate": ones, "mrr": ones, "r_precision": ones,
        "precision": np.minimum(kk, R) / kk,
        "recall": np.minimum(kk, R) / R,
        # ERR of the best order is the ideal ERR (nERR is 1), below 1.
        "err": np.array([brute_force("err", row.tolist(), row.tolist(), k=k) for row in y]),
        "f1": 2 * np.minimum(kk, R) / (kk + R),
        # infAP's epsilon keeps it just below 1 (trec_eval's formula).
        "infap": np.array([brute_force("infap", row.tolist(), row.tolist()) for row in y]),
        "bpref": ones, "judged": ones, "unjudged": 0 * ones,
        "set_p": R / n, "set_recall": ones, "set_f": 2 * R / (n + R), "set_map": R / n,
        "set_relative_p": ones, "relative_p": ones, "rprec_mult": ones,
        "iprec_at_recall": ones, "11pt_avg": ones, "bing": ones, "g": ones,
        "ndcg_rel": ones, "rndcg": ones, "compat": ones, "accuracy": ones,
    }
    assert set(expected) == set(NORMALIZED), "a new normalised metric needs a line here"
    for name, want in expected.items():
        kk_name = k if METRICS[name].takes_k else None
        got = _run(name, y, y, kk_name, per_row=True)
        np.testing.assert_allclose(got, want, rtol=1e-12, err_msg=name)
    # precision with adaptive_k divides by min(k, n_items).
    got = skr.precision_at_k_score(y, y, k=k, adaptive_k=True, per_row=True)
    np.testing.assert_allclose(got, np.minimum(kk, R) / min(kk, n), rtol=1e-12)


@pytest.mark.parametrize(("name", "k"), CASES, ids=IDS)
def test_perfect_ranking_is_best(name, k):
    """No ordering of a row beats the ranking by ``y_true`` (binary metrics:
    by the relevance indicator)."""
    y, s = _data(18, n_rows=25)
    best = _run(name, y, y, k, per_row=True)
    for seed in range(4):
        other = np.random.default_rng(seed).integers(0, 3, size=y.shape)
        assert np.all(_run(name, y, other, k, per_row=True) <= best + 1e-12)
    assert np.all(_run(name, y, s, k, per_row=True) <= best + 1e-12)


def test_registry_functions_are_public_and_documented():
    for name, spec in METRICS.items():
        fn = public(name)
        if fn is None:  # reached by name: evaluate, scorers, runs
            assert spec.description
        else:
            assert fn.__name__ == spec.function
            assert fn.__name__ in skr.__all__
            assert fn.__doc__ and "Examples" in fn.__doc__
        for alias in (name, *spec.aliases):
            assert lookup(alias)[0] is spec
    for preset, (base, _, _) in PRESETS.items():
        assert lookup(preset)[0] is METRICS[base]


# --- evaluate: one pass, the same numbers -------------------------------------

EVALUATE_REQUESTS = [
    ("ndcg@3", skr.ndcg_score, {"k": 3}),
    ("ndcg", skr.ndcg_score, {}),
    ("ndcg_exp@2", skr.ndcg_score, {"k": 2, "gain": "exponential"}),
    (("ndcg@5", {"gain": {0: 0, 1: 1, 2: 3, 3: 10}}), skr.ndcg_score,
     {"k": 5, "gain": {0: 0, 1: 1, 2: 3, 3: 10}}),
    (("ndcg@4", {"discount": "jarvelin", "log_base": 3}), skr.ndcg_score,
     {"k": 4, "discount": "jarvelin", "log_base": 3}),
    ("dcg@4", skr.dcg_score, {"k": 4}),
    ("dcg_exp", skr.dcg_score, {"gain": "exponential"}),
    ("cg@2", skr.cumulative_gain_score, {"k": 2}),
    ("map@3", skr.mean_average_precision_score, {"k": 3}),
    (("ap@4", {"denominator": "relevant", "threshold": 2}), skr.mean_average_precision_score,
     {"k": 4, "denominator": "relevant", "threshold": 2}),
    ("P@5", skr.precision_at_k_score, {"k": 5}),
    (("precision@10", {"adaptive_k": True}), skr.precision_at_k_score,
     {"k": 10, "adaptive_k": True}),
    ("recall@2", skr.recall_at_k_score, {"k": 2}),
    ("hit_rate@1", skr.hit_rate_score, {"k": 1}),
    ("success@3", skr.hit_rate_score, {"k": 3}),
    ("mrr", skr.reciprocal_rank_score, {}),
    ("rr@2", skr.reciprocal_rank_score, {"k": 2}),
    ("r_precision", skr.r_precision_score, {}),
    ("rprec", skr.r_precision_score, {}),
]


@pytest.mark.parametrize("subset", ["all", "with_k_only", "one"])
@pytest.mark.parametrize("ignore_ties", [False, True])
def test_evaluate_equals_single_metric_functions(subset, ignore_ties):
    y, s = _data(19, n_rows=40, n_items=8)
    if ignore_ties:
        s = np.random.default_rng(20).normal(size=s.shape)  # no ties
    requests = EVALUATE_REQUESTS
    if subset == "with_k_only":
        requests = [r for r in requests if "k" in r[2]]
    elif subset == "one":
        requests = requests[:1]
    w = np.random.default_rng(21).random(y.shape[0])
    names = [r[0] for r in requests]
    kw = dict(sample_weight=w, ignore_ties=ignore_ties)
    got = skr.evaluate(y, s, names, no_relevant="skip", **kw)
    rows = skr.evaluate(y, s, names, no_relevant=np.nan, per_row=True, **kw)
    assert list(got) == [n if isinstance(n, str) else n[0] for n in names]
    for (label, fn, opts), value in zip(requests, got.values()):
        key = label if isinstance(label, str) else label[0]
        spec_normalized = fn not in (skr.dcg_score, skr.cumulative_gain_score)
        pol = {"no_relevant": "skip"} if spec_normalized else {}
        assert value == pytest.approx(fn(y, s, **opts, **pol, **kw), **TOL), key
        polr = {"no_relevant": np.nan} if spec_normalized else {}
        np.testing.assert_allclose(
            rows[key], fn(y, s, **opts, **polr, per_row=True, **kw), rtol=1e-12, atol=1e-12
        )


def test_evaluate_accepts_a_single_name():
    y, s = _data(22)
    assert skr.evaluate(y, s, "ndcg@3", no_relevant=0.0) == {
        "ndcg@3": skr.ndcg_score(y, s, k=3, no_relevant=0.0)
    }
