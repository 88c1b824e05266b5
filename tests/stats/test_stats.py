"""The statistics of comparisons against SciPy and slow, obviously correct references.

- p-values of the t-test, Wilcoxon and sign tests equal SciPy's on the same
  per-query arrays, through the public :func:`compare`;
- the randomisation test equals brute-force enumeration of every sign
  vector for n <= 16, and lies within Monte-Carlo error of it above;
- BCa intervals and the bootstrap test equal ``scipy.stats.bootstrap`` on
  the same resamples, and the intervals cover the true mean at their
  nominal rate in a simulation;
- Holm, Bonferroni and Benjamini-Hochberg equal loop implementations;
- degenerate inputs give the stated values.
"""

from __future__ import annotations

import inspect
import itertools
import math
import warnings

import numpy as np
import pytest
import scipy
import scipy.stats as st
from hypothesis import given, settings
from hypothesis import strategies as hs

from sk_rankmetrics import compare
from sk_rankmetrics._stats import significance as _stats

TESTS = ("t-test", "wilcoxon", "randomization", "bootstrap", "sign")
_RNG_KW = "rng" if "rng" in inspect.signature(st.bootstrap).parameters else "random_state"
#: SciPy returns the bootstrap's resamples (bootstrap_distribution) from 1.10.
NEEDS_RESAMPLES = pytest.mark.skipif(
    tuple(int(p) for p in scipy.__version__.split(".")[:2]) < (1, 10),
    reason="scipy.stats.bootstrap returns its resamples from SciPy 1.10")


def _pair(n, seed, *, ties=False):
    rng = np.random.default_rng(seed)
    a = rng.uniform(size=n)
    b = np.clip(a + rng.normal(0.05, 0.2, size=n), 0, 1)
    if ties:
        a = np.round(a, 1)
        b = np.round(b, 1)
    return a, b


def _p(a, b, test, **kw):
    report = compare({"a": a, "b": b}, test=test, correction=None, random_state=0, **kw)
    return report.pvalues_raw["score"][("a", "b")]


# -- SciPy's tests on the same arrays -------------------------------------------------------


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("n", [2, 5, 30, 200])
def test_t_test_is_scipys_ttest_rel(n, seed):
    a, b = _pair(n, seed)
    assert _p(a, b, "t-test") == pytest.approx(st.ttest_rel(a, b).pvalue, rel=1e-12)


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize(("n", "ties"), [(6, False), (20, False), (20, True), (80, True)])
def test_wilcoxon_is_scipys(n, seed, ties):
    a, b = _pair(n, seed, ties=ties)
    if not np.any(a - b):
        pytest.skip("identical draws")
    # SciPy gets the differences without round-off: on values of one decimal,
    # a - b in float64 would rank equal differences apart (see the next test).
    d = np.round(a - b, 10)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        expected = st.wilcoxon(d).pvalue
    assert _p(a, b, "wilcoxon") == pytest.approx(expected, rel=1e-9)


def _sign_reference(wins, losses):
    """Two-sided exact binomial p-value, summed term by term."""
    n = wins + losses
    probs = [math.comb(n, k) / 2**n for k in range(n + 1)]
    observed = probs[wins]
    return min(1.0, sum(p for p in probs if p <= observed * (1 + 1e-7)))


@pytest.mark.parametrize("seed", range(8))
def test_sign_test_is_the_exact_binomial_test(seed):
    a, b = _pair(25, seed, ties=True)
    d = a - b
    wins, losses = int((d > 0).sum()), int((d < 0).sum())
    p = _p(a, b, "sign")
    assert p == pytest.approx(_sign_reference(wins, losses), rel=1e-9)
    assert p == pytest.approx(st.binomtest(wins, wins + losses).pvalue, rel=1e-12)


# -- the randomisation test ------------------------------------------------------------------


def _brute_force(d):
    """Fraction of all 2**n sign vectors whose |sum| reaches the observed one."""
    observed = abs(sum(d))
    hits = 0
    for signs in itertools.product((1.0, -1.0), repeat=len(d)):
        hits += abs(sum(s * x for s, x in zip(signs, d))) >= observed - 1e-9 * sum(map(abs, d))
    return hits / 2 ** len(d)


@pytest.mark.parametrize("n", [1, 2, 3, 5, 8, 12, 16])
@pytest.mark.parametrize("seed", range(3))
def test_randomization_is_exact_enumeration_up_to_16_queries(n, seed):
    a, b = _pair(n, seed, ties=seed == 2)  # seed 2: many zero and equal differences
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # n = 1: the one-query warning
        report = compare({"a": a, "b": b}, test="randomization", random_state=0,
                         n_resamples=100)
    assert report.exact["score"] is True
    assert report.pvalues_raw["score"][("a", "b")] == pytest.approx(
        _brute_force((a - b).tolist()), abs=1e-12)


def test_randomization_is_scipys_exact_permutation_test():
    a, b = _pair(14, 7)
    res = st.permutation_test((a - b,), lambda x, axis=-1: np.abs(np.sum(x, axis=axis)),
                              permutation_type="samples", n_resamples=np.inf,
                              alternative="greater")
    assert _p(a, b, "randomization") == pytest.approx(res.pvalue, rel=1e-12)


def test_randomization_above_16_queries_is_within_monte_carlo_error():
    a, b = _pair(17, 3)
    exact = _brute_force((a - b).tolist())
    B = 20_000
    report = compare({"a": a, "b": b}, test="randomization", n_resamples=B, random_state=1)
    assert report.exact["score"] is False
    p = report.pvalues_raw["score"][("a", "b")]
    assert abs(p - exact) <= 4 * math.sqrt(exact * (1 - exact) / B) + 2 / B
    # The exact path is taken instead when 2**(n-1) <= n_resamples.
    report = compare({"a": a, "b": b}, test="randomization", n_resamples=2**16, random_state=1)
    assert report.exact["score"] is True
    assert report.pvalues_raw["score"][("a", "b")] == pytest.approx(exact, abs=1e-12)


def test_randomization_is_seeded_and_every_pair_gets_its_own_value():
    rng = np.random.default_rng(0)
    sys = {s: rng.uniform(size=40) for s in "abc"}
    sys["c"] = sys["a"] + 0.2
    r1 = compare(sys, test="randomization", random_state=5)
    r2 = compare(sys, test="randomization", random_state=5)
    assert r1.pvalues_raw == r2.pvalues_raw
    assert r1.pvalues_raw["score"][("a", "c")] == pytest.approx(1 / 10_001)
    assert r1.pvalues_raw["score"][("a", "b")] > 0.01


# -- the bootstrap -----------------------------------------------------------------------------


@NEEDS_RESAMPLES
@pytest.mark.parametrize("seed", range(4))
def test_bca_interval_is_scipys_on_the_same_resamples(seed):
    rng = np.random.default_rng(seed)
    x = rng.exponential(size=35)
    B = 3000
    theta = _stats.bootstrap_means(x[:, None], B, np.random.default_rng(seed + 10))[:, 0]
    res = st.bootstrap((x,), np.mean, n_resamples=B, method="BCa",
                       **{_RNG_KW: np.random.default_rng(seed + 10)})
    np.testing.assert_allclose(np.sort(theta), np.sort(res.bootstrap_distribution),
                               rtol=1e-12)
    low, high = _stats.bca_interval(x, theta, 0.95)
    assert (low, high) == pytest.approx(tuple(res.confidence_interval), rel=1e-10)


@NEEDS_RESAMPLES
def test_difference_interval_and_bootstrap_test_are_scipys_paired_bootstrap():
    a, b = _pair(40, 11)
    B = 4000
    report = compare({"a": a, "b": b}, test="bootstrap", n_resamples=B, random_state=3,
                     correction=None)
    res = st.bootstrap((a, b), lambda u, v, axis=-1: np.mean(u - v, axis=axis), paired=True,
                       n_resamples=B, method="BCa", **{_RNG_KW: np.random.default_rng(3)})
    assert report.difference_intervals["score"][("a", "b")] == pytest.approx(
        tuple(res.confidence_interval), rel=1e-9)
    theta, d_bar = res.bootstrap_distribution, np.mean(a - b)
    expected = (1 + np.count_nonzero(np.abs(theta - d_bar) >= abs(d_bar))) / (1 + B)
    assert report.pvalues_raw["score"][("a", "b")] == pytest.approx(expected, abs=1e-12)


def test_bca_intervals_cover_the_true_mean_at_the_nominal_rate():
    """500 samples of 40 skewed values (exponential, mean 1) and 500 of paired
    differences (mean 0.1): the 90% BCa interval must cover the true mean in
    90% +- 4% of them (3.3 binomial standard errors plus the known slight
    under-coverage of BCa at n = 40)."""
    rng = np.random.default_rng(2024)
    reps, n, B, level = 500, 40, 2000, 0.90
    cover_mean = cover_diff = 0
    for _ in range(reps):
        x = rng.exponential(size=n)
        theta = _stats.bootstrap_means(x[:, None], B, rng)[:, 0]
        low, high = _stats.bca_interval(x, theta, level)
        cover_mean += low <= 1.0 <= high
        a = rng.beta(2, 5, size=n)
        b = np.clip(a + rng.normal(0.1, 0.15, size=n), -5, 5)
        theta = _stats.bootstrap_means(np.column_stack([b, a]), B, rng)
        low, high = _stats.bca_interval(b - a, theta[:, 0] - theta[:, 1], level)
        cover_diff += low <= 0.1 <= high
    assert abs(cover_mean / reps - level) <= 0.04, cover_mean / reps
    assert abs(cover_diff / reps - level) <= 0.04, cover_diff / reps


def test_means_and_their_intervals_come_from_one_set_of_resamples():
    a, b = _pair(30, 4)
    report = compare({"a": a, "b": b}, random_state=0)
    lo, hi = report.intervals["score"]["a"]
    assert lo < report.means["score"]["a"] < hi
    assert report.means["score"]["a"] == pytest.approx(a.mean(), rel=1e-15)
    assert report.differences["score"][("a", "b")] == pytest.approx((a - b).mean())
    again = compare({"a": a, "b": b}, random_state=0)
    assert again.intervals == report.intervals


# -- multiple testing ---------------------------------------------------------------------------


def _bonferroni(p):
    return [min(1.0, len(p) * x) for x in p]


def _holm(p):
    m = len(p)
    order = sorted(range(m), key=lambda i: p[i])
    out, running = [0.0] * m, 0.0
    for rank, i in enumerate(order):
        running = max(running, min(1.0, (m - rank) * p[i]))
        out[i] = running
    return out


def _bh(p):
    m = len(p)
    order = sorted(range(m), key=lambda i: p[i])
    out, running = [0.0] * m, 1.0
    for rank in range(m - 1, -1, -1):
        i = order[rank]
        running = min(running, min(1.0, m * p[i] / (rank + 1)))
        out[i] = running
    return out


@settings(max_examples=200, deadline=None)
@given(hs.lists(hs.one_of(hs.floats(0, 1), hs.sampled_from([0.0, 0.01, 0.05, 1.0])),
                min_size=1, max_size=30))
def test_corrections_equal_loop_references(p):
    for method, ref in (("bonferroni", _bonferroni), ("holm", _holm), ("fdr_bh", _bh)):
        np.testing.assert_allclose(_stats.correct(p, method), ref(p), rtol=1e-12, atol=0)
    np.testing.assert_array_equal(_stats.correct(p, None), p)


def test_correction_is_applied_over_the_pairs_of_each_metric():
    rng = np.random.default_rng(1)
    base = rng.uniform(size=25)
    systems = {f"s{i}": {"m1": base + 0.03 * i + 0.1 * rng.normal(size=25),
                         "m2": base - 0.02 * i + 0.1 * rng.normal(size=25)} for i in range(4)}
    for correction, ref in (("holm", _holm), ("bonferroni", _bonferroni), ("fdr_bh", _bh)):
        report = compare(systems, correction=correction, random_state=0)
        assert len(report.pairs) == 6
        for m in ("m1", "m2"):
            raw = [report.pvalues_raw[m][p] for p in report.pairs]
            expected = dict(zip(report.pairs, ref(raw)))
            assert report.pvalues[m] == pytest.approx(expected, rel=1e-12)
            assert report.significant[m] == {p: v < 0.05 for p, v in report.pvalues[m].items()}


# -- degenerate inputs -----------------------------------------------------------------------------


@pytest.mark.parametrize("test", TESTS)
def test_identical_systems_give_p_1_and_a_zero_interval(test):
    a = np.random.default_rng(0).uniform(size=12)
    report = compare({"a": a, "b": a.copy()}, test=test, random_state=0)
    pair = ("a", "b")
    assert report.pvalues_raw["score"][pair] == 1.0 == report.pvalues["score"][pair]
    assert report.difference_intervals["score"][pair] == (0.0, 0.0)
    assert report.effect_sizes["score"][pair] == 0.0
    assert report.win_tie_loss["score"][pair] == (0, 12, 0)
    assert not report.significant["score"][pair]


@pytest.mark.parametrize("test", TESTS)
def test_one_query_gives_p_1_nan_intervals_and_a_warning(test):
    with pytest.warns(UserWarning, match="single query"):
        report = compare({"a": [0.2], "b": [0.7]}, test=test, random_state=0)
    pair = ("a", "b")
    assert report.pvalues_raw["score"][pair] == 1.0
    assert all(math.isnan(v) for v in report.intervals["score"]["a"])
    assert all(math.isnan(v) for v in report.difference_intervals["score"][pair])
    assert math.isnan(report.effect_sizes["score"][pair])
    assert report.win_tie_loss["score"][pair] == (0, 0, 1)
    assert any("one query only" in n for n in report.notes)


@pytest.mark.parametrize("n", [2, 5, 20])
def test_constant_nonzero_differences(n):
    a = np.linspace(0.1, 0.5, n)
    report = compare({"a": a + 0.25, "b": a}, test="t-test", random_state=0)
    pair = ("a", "b")
    assert report.pvalues_raw["score"][pair] == pytest.approx(2 / 2**n)
    assert report.difference_intervals["score"][pair] == pytest.approx((0.25, 0.25))
    assert report.effect_sizes["score"][pair] == math.inf
    # The exact tests give the same value: only the observed signs and their
    # overall flip reach the observed statistic.
    # (Above 16 queries the randomisation test draws sign flips: no draw but
    # the identity reaches the statistic, so p is its smallest, 1 / (1 + B).)
    for test in ("randomization", "sign"):
        p = compare({"a": a + 0.25, "b": a}, test=test, random_state=0,
                    n_resamples=1000).pvalues_raw["score"][pair]
        expected = 1 / 1001 if test == "randomization" and n > 16 else 2 / 2**n
        assert p == pytest.approx(expected, rel=1e-9), test
    # Wilcoxon's is SciPy's on the differences, which round-off would untie:
    # (a + 0.25) - a is not 0.25 for every a, but is compared as 0.25.
    assert len(set(((a + 0.25) - a).tolist())) > 1 or n < 5
    p = compare({"a": a + 0.25, "b": a}, test="wilcoxon").pvalues_raw["score"][pair]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert p == pytest.approx(st.wilcoxon(np.full(n, 0.25)).pvalue, rel=1e-12)


def test_a_constant_system_has_a_point_interval():
    report = compare({"a": np.ones(10), "b": np.linspace(0, 1, 10)}, random_state=0)
    assert report.intervals["score"]["a"] == (1.0, 1.0)
    lo, hi = report.intervals["score"]["b"]
    assert lo < 0.5 < hi


def test_round_off_neither_makes_nor_breaks_ties():
    # Four differences of 0.1 (one negative), which float64 writes four ways:
    # ranked as they come, the negative one would rank 4th instead of tying
    # with the others (SciPy on a - b: p = 0.4375; on the true values: 0.3125).
    a = np.array([0.3, 0.2, 0.7, 0.4, 0.6])
    b = np.array([0.2, 0.1, 0.8, 0.3, 0.1])
    assert len(set(np.abs(a - b).tolist())) == 5
    report = compare({"a": a, "b": b}, test="wilcoxon")
    assert report.pvalues_raw["score"][("a", "b")] == pytest.approx(0.3125, rel=1e-12)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert st.wilcoxon(np.array([0.1, 0.1, -0.1, 0.1, 0.5])).pvalue == 0.3125


def test_round_off_differences_are_ties():
    a = np.array([0.1 + 0.2, 0.5, 0.7, 0.25])
    b = np.array([0.3, 0.5, 0.7, 0.25])  # 0.1 + 0.2 != 0.3 in float64
    assert a[0] != b[0]
    report = compare({"a": a, "b": b}, test="sign", random_state=0)
    assert report.win_tie_loss["score"][("a", "b")] == (0, 4, 0)
    assert report.pvalues_raw["score"][("a", "b")] == 1.0


@settings(max_examples=60, deadline=None)
@given(hs.lists(hs.tuples(hs.sampled_from([0.0, 0.25, 0.5, 1.0]),
                          hs.sampled_from([0.0, 0.25, 0.5, 1.0])), min_size=1, max_size=25),
       hs.sampled_from(TESTS))
def test_p_values_are_never_nan_and_lie_in_0_1(values, test):
    a, b = (np.array(v) for v in zip(*values))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # the one-query warning
        report = compare({"a": a, "b": b}, test=test, random_state=0, n_resamples=200)
    p = report.pvalues_raw["score"][("a", "b")]
    assert 0.0 < p <= 1.0
    lo, hi = report.difference_intervals["score"][("a", "b")]
    if len(a) > 1:
        assert lo <= hi
        assert min(a - b) - 1e-12 <= lo and hi <= max(a - b) + 1e-12
