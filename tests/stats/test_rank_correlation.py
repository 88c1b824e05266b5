"""kendall_tau, tau_ap and weighted_tau: SciPy's numbers, and tau_AP by brute force."""

from __future__ import annotations

from itertools import permutations, product

import numpy as np
import pytest
import scipy.stats
from hypothesis import given, settings
from hypothesis import strategies as st

import sk_rankmetrics as skr
from sk_rankmetrics import (
    EvaluationResult,
    InvalidParameterError,
    kendall_tau,
    tau_ap,
    weighted_tau,
)
from sk_rankmetrics._stats.rank_correlation import kendall_rows, tau_ap_b_rows, tau_ap_rows


def _named(values):
    return {f"s{i:02d}": float(v) for i, v in enumerate(values)}


#: Scores with ties: a few levels.
TIED = st.lists(st.integers(0, 4), min_size=2, max_size=12)


@st.composite
def two_orderings(draw, values=TIED):
    a = draw(values)
    b = draw(st.lists(st.integers(0, 4), min_size=len(a), max_size=len(a)))
    return a, b


@settings(max_examples=200, deadline=None)
@given(two_orderings(), st.sampled_from(["b", "c"]))
def test_kendall_tau_is_scipys(pair, variant):
    a, b = pair
    expected = scipy.stats.kendalltau(a, b, variant=variant)[0]
    if np.isnan(expected):
        with pytest.warns(UserWarning, match="kendall_tau is undefined"):
            assert np.isnan(kendall_tau(_named(a), _named(b), variant=variant))
    else:
        assert kendall_tau(_named(a), _named(b), variant=variant) == pytest.approx(
            expected, abs=1e-14)


@settings(max_examples=200, deadline=None)
@given(two_orderings(st.lists(st.integers(0, 6), min_size=2, max_size=15)))
def test_weighted_tau_is_scipys(pair):
    a, b = pair
    expected = scipy.stats.weightedtau(a, b)[0]
    if np.isnan(expected):
        with pytest.warns(UserWarning, match="weighted_tau is undefined"):
            assert np.isnan(weighted_tau(_named(a), _named(b)))
    else:
        assert weighted_tau(_named(a), _named(b)) == pytest.approx(expected, abs=1e-14)


def test_weighted_tau_on_continuous_scores():
    rng = np.random.default_rng(0)
    a, b = rng.normal(size=40), rng.normal(size=40)
    assert weighted_tau(_named(a), _named(b)) == pytest.approx(
        scipy.stats.weightedtau(a, b)[0], abs=1e-14)


def test_kendall_rows_equal_one_row_at_a_time():
    rng = np.random.default_rng(1)
    A, B = rng.integers(0, 5, size=(300, 9)), rng.integers(0, 5, size=(300, 9))
    with np.errstate(invalid="ignore"):
        got = kendall_rows(A.astype(float), B.astype(float))
    expected = [scipy.stats.kendalltau(a, b)[0] for a, b in zip(A, B)]
    np.testing.assert_allclose(got, expected, atol=1e-14)


# -- tau_AP by its definition --------------------------------------------------------


def _tau_ap_strict(observed, reference):
    """Yilmaz et al.'s definition: down the observed order, the share of the items
    above that the reference also puts above."""
    order = sorted(range(len(observed)), key=lambda i: -observed[i])
    n, total = len(order), 0.0
    for k in range(1, n):
        i = order[k]
        above = order[:k]
        total += sum(reference[j] > reference[i] for j in above) / k
    return 2 * total / (n - 1) - 1


def _tau_ap_every_order(observed, reference):
    """The mean of the strict tau_AP over every order of the observed ties."""
    levels = sorted(set(observed), reverse=True)
    groups = [[i for i in range(len(observed)) if observed[i] == v] for v in levels]
    values = []
    for orders in product(*[list(permutations(g)) for g in groups]):
        flat = [i for g in orders for i in g]
        strict = [0.0] * len(observed)
        for pos, i in enumerate(flat):
            strict[i] = -pos
        values.append(_tau_ap_strict(strict, reference))
    return float(np.mean(values))


def _tau_ap_b_definition(x, y):
    """Urbano and Marrero's tau_AP,b: each half goes down one ordering by its tie
    groups, the top group left out; an item scores the share of the items of the
    groups above its own that the other ordering puts strictly above it."""

    def half(x, y):
        ratios = []
        for i in range(len(y)):
            above = [j for j in range(len(y)) if y[j] > y[i]]
            if above:
                ratios.append(sum(x[j] > x[i] for j in above) / len(above))
        return 2 * sum(ratios) / len(ratios) - 1 if ratios else float("nan")

    return (half(x, y) + half(y, x)) / 2


@settings(max_examples=200, deadline=None)
@given(st.permutations(range(9)), st.permutations(range(9)))
def test_tau_ap_without_ties_is_its_definition(a, b):
    assert tau_ap(_named(a), _named(b)) == pytest.approx(_tau_ap_strict(a, b), abs=1e-14)
    both_ways = (_tau_ap_strict(a, b) + _tau_ap_strict(b, a)) / 2
    assert tau_ap(_named(a), _named(b), symmetric=True) == pytest.approx(both_ways, abs=1e-14)


@settings(max_examples=100, deadline=None)
@given(st.lists(st.integers(0, 3), min_size=2, max_size=7), st.randoms())
def test_tau_ap_with_ties_in_the_observed_is_the_mean_over_their_orders(a, rnd):
    if len(set(a)) == 1:
        return
    b = list(range(len(a)))
    rnd.shuffle(b)
    expected = _tau_ap_every_order(a, b)
    assert tau_ap(_named(a), _named(b)) == pytest.approx(expected, abs=1e-13)


@settings(max_examples=200, deadline=None)
@given(two_orderings(st.lists(st.integers(0, 4), min_size=2, max_size=10)))
def test_symmetric_tau_ap_is_its_definition(pair):
    a, b = pair
    expected = _tau_ap_b_definition(a, b)
    got = tau_ap_b_rows(np.array([a], float), np.array([b], float))[0]
    if np.isnan(expected):
        assert np.isnan(got)
    else:
        assert got == pytest.approx(expected, abs=1e-14)
        assert tau_ap(_named(a), _named(b), symmetric=True) == pytest.approx(expected,
                                                                               abs=1e-14)


def test_tau_ap_values_printed_by_the_ircor_package():
    # The examples of ircor's tauAP documentation (Urbano's R package), whose
    # printed values are 0.3928571, 0.39903, 0.3317019 and 0.339418. x is the
    # true score, y the estimated; R's round(x, 1) gives the tied x below.
    x = [0.67, 0.45, 0.29, 0.12, 0.57, 0.24, 0.94, 0.75, 0.08, 0.54]
    y = [0.48, 0.68, 0.32, 0.09, 0.06, 0.61, 0.87, 0.22, 0.44, 0.84]
    y1 = [0.5, 0.7, 0.3, 0.1, 0.1, 0.6, 0.9, 0.2, 0.4, 0.8]
    x1 = [0.7, 0.4, 0.3, 0.1, 0.6, 0.2, 0.9, 0.8, 0.1, 0.5]
    assert round(tau_ap(_named(y), _named(x)), 7) == 0.3928571
    assert round(tau_ap(_named(y1), _named(x)), 5) == 0.39903
    assert round(tau_ap(_named(x), _named(y1), symmetric=True), 7) == 0.3317019
    assert round(tau_ap(_named(x1), _named(y1), symmetric=True), 6) == 0.339418


def test_tau_ap_rows_equal_one_row_at_a_time():
    rng = np.random.default_rng(2)
    A = rng.integers(0, 4, size=(50, 6)).astype(float)
    B = np.array([rng.permutation(6) for _ in range(50)], dtype=float)
    got = tau_ap_rows(A, B)
    expected = [_tau_ap_every_order(list(a), list(b)) for a, b in zip(A, B)]
    np.testing.assert_allclose(got, expected, atol=1e-13)


def test_a_tie_in_the_reference_is_refused():
    with pytest.raises(ValueError, match=r"tau_ap: the reference b ties 'A' and 'B' \(score "
                                         r"0.5\); with symmetric=False it must order every "
                                         r"item strictly. symmetric=True"):
        tau_ap({"A": 1, "B": 2, "C": 3}, {"A": 0.5, "B": 0.5, "C": 0.9})


# -- inputs ---------------------------------------------------------------------------


def _result(values, metric="ndcg@10"):
    ids = np.array([f"q{i}" for i in range(len(values))])
    v = np.asarray(values, dtype=float)
    return EvaluationResult(ids, {metric: v}, {metric: float(np.nanmean(v))})


def test_systems_as_evaluation_results():
    under_a = {"bm25": _result([0.2, 0.4]), "dense": _result([0.5, 0.3]),
               "rerank": _result([0.6, 0.6])}
    under_b = {"bm25": _result([0.3, 0.3]), "dense": _result([0.2, 0.2]),
               "rerank": _result([0.7, 0.6])}
    means_a = {k: r["ndcg@10"] for k, r in under_a.items()}
    means_b = {k: r["ndcg@10"] for k, r in under_b.items()}
    assert kendall_tau(under_a, under_b) == kendall_tau(means_a, means_b)
    assert kendall_tau(under_a, under_b, metric="ndcg@10") == kendall_tau(means_a, means_b)
    assert tau_ap(under_b, under_a) == tau_ap(means_b, means_a)


def test_two_evaluation_results_order_their_queries():
    a, b = _result([0.1, 0.5, 0.3, 0.9]), _result([0.2, 0.4, 0.6, 0.8])
    assert kendall_tau(a, b) == pytest.approx(
        scipy.stats.kendalltau([0.1, 0.5, 0.3, 0.9], [0.2, 0.4, 0.6, 0.8])[0])
    with pytest.warns(UserWarning, match=r"kendall_tau: 1 item with a NaN score \('q1'\) "
                                         r"left out"):
        kendall_tau(_result([0.1, np.nan, 0.3]), _result([0.3, 0.2, 0.1]))


def test_a_pandas_series():
    pd = pytest.importorskip("pandas")
    a = pd.Series({"x": 1.0, "y": 2.0, "z": 3.0})
    assert kendall_tau(a, {"z": 3, "x": 1, "y": 2}) == 1.0


def test_items_are_paired_by_name_not_position():
    assert kendall_tau({"a": 1, "b": 2, "c": 3}, {"c": 3, "b": 2, "a": 1}) == 1.0


def test_on_missing():
    a, b = {"x": 1, "y": 2, "z": 3}, {"x": 1, "y": 2, "w": 5}
    with pytest.raises(ValueError, match=r"kendall_tau: the two orderings do not rank the same "
                                         r"items: only a has 1 \('z'\); only b has 1 \('w'\)"):
        kendall_tau(a, b)
    assert kendall_tau(a, b, on_missing="drop") == 1.0


@pytest.mark.parametrize(("a", "b", "kw", "message"), [
    ({"x": 1}, {"x": 1}, {}, r"1 item in common; a rank correlation needs at least two"),
    ({"x": 1, "y": "z"}, {"x": 1, "y": 2}, {}, r"a must map each system to a number, got 'z'"),
    ([1, 2], [1, 2], {}, r"a must be an ordering: .* got list"),
    ({"x": 1, "y": 2}, {"x": 1, "y": 2}, {"metric": "map"}, r"metric='map' is read from "
                                                            r"EvaluationResults"),
    ({"x": _result([1.0]), "y": _result([2.0])}, {"x": 1.0, "y": 2.0}, {"metric": "map"},
     r"a\['x'\]: metric='map' is not among its metrics \['ndcg@10'\]"),
    ({"x": 1, "y": float("inf")}, {"x": 1, "y": 2}, {}, r"the scores must be finite"),
])
def test_bad_input_is_named(a, b, kw, message):
    with pytest.raises((ValueError, TypeError), match=message):
        kendall_tau(a, b, **kw)


def test_constant_orderings_are_nan_with_a_warning():
    with pytest.warns(UserWarning, match=r"kendall_tau is undefined \(NaN\): one ordering ties "
                                         r"every item"):
        assert np.isnan(kendall_tau({"x": 1, "y": 1}, {"x": 1, "y": 2}))
    with pytest.warns(UserWarning, match=r"tau_ap is undefined \(NaN\): a ties every item"):
        assert np.isnan(tau_ap({"x": 1, "y": 1}, {"x": 1, "y": 2}))


@pytest.mark.parametrize(("fn", "kw", "message"), [
    (kendall_tau, {"variant": "a"}, r"kendall_tau: variant='a' is not accepted"),
    (tau_ap, {"symmetric": "yes"}, r"tau_ap: symmetric='yes' is not accepted"),
    (weighted_tau, {"on_missing": "skip"}, r"weighted_tau: on_missing='skip' is not "),
])
def test_bad_options_are_named(fn, kw, message):
    with pytest.raises(InvalidParameterError, match=message):
        fn({"x": 1, "y": 2}, {"x": 1, "y": 2}, **kw)


def test_exported():
    for name in ("kendall_tau", "tau_ap", "weighted_tau"):
        assert name in skr.__all__ and callable(getattr(skr, name))


def test_round_off_is_not_an_order():
    # 0.1 + 0.2 is 0.30000000000000004: the same score as 0.3, summed another way.
    a, b = {"x": 0.1 + 0.2, "y": 0.3, "z": 1.0}, {"x": 1.0, "y": 2.0, "z": 3.0}
    expected = scipy.stats.kendalltau([0.3, 0.3, 1.0], [1.0, 2.0, 3.0])[0]
    assert kendall_tau(a, b) == pytest.approx(expected, abs=1e-15)
    assert weighted_tau(a, b) == pytest.approx(
        scipy.stats.weightedtau([0.3, 0.3, 1.0], [1.0, 2.0, 3.0])[0], abs=1e-15)
    with pytest.raises(ValueError, match="the reference b ties"):
        tau_ap(b, a)
