"""compare(test="tukey" | "tukey_oneway" | "randomized_tukey"): Tukey's HSD.

Each test against an independent reference: the two-way HSD against its
formula (sums of squares and ``scipy.stats.studentized_range``), the one-way
form against statsmodels' ``pairwise_tukeyhsd`` (ranx's number), the
randomised HSD against a brute-force enumeration of every permutation and
against a plain Monte Carlo loop; with two systems, against the paired and
unpaired t-tests and the sign-flip test they reduce to.
"""

from __future__ import annotations

import itertools
import math
import subprocess
import sys

import numpy as np
import pytest
import scipy.stats as st
from hypothesis import given, settings
from hypothesis import strategies as hs

from sk_rankmetrics import InvalidParameterError, compare


def _systems(V):
    return {f"s{j}": V[:, j] for j in range(V.shape[1])}


def _matrix(seed, n=15, k=4, shifts=(0.0, 0.04, 0.1, 0.02, 0.06), scale=0.1):
    rng = np.random.default_rng(seed)
    topic = rng.uniform(0.1, 0.8, size=(n, 1))
    return topic + rng.normal(scale=scale, size=(n, k)) + np.asarray(shifts[:k])


def _pairs(k):
    return [(f"s{a}", f"s{b}") for a in range(k) for b in range(a + 1, k)]


# -- the two-way HSD: its formula ----------------------------------------------------------


def _two_way_reference(V, confidence_level=0.95):
    """p-values and intervals from the sums of squares of the two-way ANOVA."""
    n, k = V.shape
    grand = V.mean()
    ss_total = ((V - grand) ** 2).sum()
    ss_topics = k * ((V.mean(axis=1) - grand) ** 2).sum()
    ss_systems = n * ((V.mean(axis=0) - grand) ** 2).sum()
    df = (k - 1) * (n - 1)
    ve = (ss_total - ss_topics - ss_systems) / df
    means = V.mean(axis=0)
    out = {}
    half = st.studentized_range.ppf(confidence_level, k, df) * math.sqrt(ve / n)
    for a, b in itertools.combinations(range(k), 2):
        d = means[a] - means[b]
        q = abs(d) / math.sqrt(ve / n)
        out[(f"s{a}", f"s{b}")] = (st.studentized_range.sf(q, k, df), (d - half, d + half))
    return out


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("k", [2, 3, 5])
def test_two_way_hsd_is_its_formula(seed, k):
    V = _matrix(seed, n=12 + seed, k=k)
    report = compare(_systems(V), test="tukey", confidence_level=0.9, random_state=0)
    ref = _two_way_reference(V, 0.9)
    assert report.pairs == list(ref)
    for pair, (p, (lo, hi)) in ref.items():
        assert report.pvalues["score"][pair] == pytest.approx(p, abs=1e-9)
        assert report.pvalues_raw["score"][pair] == report.pvalues["score"][pair]
        got = report.difference_intervals["score"][pair]
        assert got == pytest.approx((lo, hi), abs=1e-9)
    assert report.correction is None


def test_two_systems_two_way_hsd_is_the_paired_t_test():
    """With k = 2 the studentized range is sqrt(2) |t| of the paired t-test."""
    V = _matrix(5, n=20, k=2)
    p = compare(_systems(V), test="tukey").pvalues["score"][("s0", "s1")]
    assert p == pytest.approx(st.ttest_rel(V[:, 0], V[:, 1]).pvalue, abs=1e-9)
    p1 = compare(_systems(V), test="tukey_oneway").pvalues["score"][("s0", "s1")]
    assert p1 == pytest.approx(st.ttest_ind(V[:, 0], V[:, 1]).pvalue, abs=1e-9)


def test_blocks_make_the_two_way_test_stronger():
    """Topic effects inflate the one-way residual, not the two-way one."""
    V = _matrix(3, n=25, k=4, scale=0.03)
    two = compare(_systems(V), test="tukey").pvalues["score"]
    one = compare(_systems(V), test="tukey_oneway").pvalues["score"]
    assert all(two[p] <= one[p] for p in two)
    assert any(two[p] < 0.05 < one[p] for p in two)


# -- the one-way HSD: statsmodels -----------------------------------------------------------


@pytest.mark.parametrize("seed", [0, 4])
def test_one_way_hsd_is_statsmodels(seed):
    pytest.importorskip("statsmodels")
    from statsmodels.stats.multicomp import pairwise_tukeyhsd

    V = _matrix(seed, n=18, k=5, shifts=(0.0, 0.2, 0.1, 0.02, 0.3))
    report = compare(_systems(V), test="tukey_oneway", alpha=0.05)
    groups = np.repeat([f"s{j}" for j in range(5)], V.shape[0])
    sm = pairwise_tukeyhsd(V.T.ravel(), groups, alpha=0.05)
    # statsmodels orders the pairs as we do and takes group2 - group1.
    for i, pair in enumerate(_pairs(5)):
        assert report.pvalues["score"][pair] == pytest.approx(sm.pvalues[i], abs=1e-9)
        lo, hi = report.difference_intervals["score"][pair]
        assert (-hi, -lo) == pytest.approx(tuple(sm.confint[i]), abs=1e-9)
        assert report.significant["score"][pair] == bool(sm.reject[i])


# -- the randomised HSD: enumeration and Monte Carlo ----------------------------------------


def _brute_force(V):
    """Every permutation of every row, the last row included: (k!)**n outcomes."""
    n, k = V.shape
    perms = list(itertools.permutations(range(k)))
    ranges = []
    for choice in itertools.product(perms, repeat=n):
        means = np.array([[V[i, p[j]] for j in range(k)] for i, p in enumerate(choice)]).mean(0)
        ranges.append(means.max() - means.min())
    ranges = np.array(ranges)
    means = V.mean(axis=0)
    out = {}
    for a, b in itertools.combinations(range(k), 2):
        d = abs(means[a] - means[b])
        out[(f"s{a}", f"s{b}")] = 1.0 if d == 0 else float(np.mean(ranges >= d - 1e-12))
    return out


@pytest.mark.parametrize(("n", "k", "seed"), [(4, 3, 0), (3, 3, 1), (6, 2, 2), (2, 4, 3)])
def test_randomized_hsd_equals_the_enumeration(n, k, seed):
    rng = np.random.default_rng(seed)
    V = np.round(rng.uniform(size=(n, k)), 1)  # ties within and across rows
    report = compare(_systems(V), test="randomized_tukey", random_state=0)
    assert report.exact["score"] is True
    ref = _brute_force(V)
    for pair, p in ref.items():
        assert report.pvalues["score"][pair] == pytest.approx(p, abs=1e-12)
    assert any("every permutation of the" in note for note in report.notes)


@settings(max_examples=25, deadline=None)
@given(hs.integers(2, 4), hs.integers(2, 3), hs.integers(0, 2**32 - 1))
def test_randomized_hsd_enumeration_on_random_tied_data(n, k, seed):
    rng = np.random.default_rng(seed)
    V = rng.integers(0, 3, size=(n, k)) / 2.0  # many ties, some all-equal rows
    report = compare(_systems(V), test="randomized_tukey", random_state=0)
    for pair, p in _brute_force(V).items():
        assert report.pvalues["score"][pair] == pytest.approx(p, abs=1e-12)
        assert 0.0 < report.pvalues["score"][pair] <= 1.0


def test_two_systems_randomized_hsd_is_the_sign_flip_test():
    V = _matrix(8, n=10, k=2)
    tukey = compare(_systems(V), test="randomized_tukey").pvalues["score"][("s0", "s1")]
    flips = compare(_systems(V), test="randomization").pvalues["score"][("s0", "s1")]
    assert tukey == pytest.approx(flips, abs=1e-12)


def test_randomized_hsd_by_random_permutations_is_a_plain_monte_carlo_count():
    """(4!)**11 outcomes cannot be enumerated: random permutations within each
    topic, against a plain loop with another generator, within Monte Carlo error."""
    V = _matrix(11, n=12, k=4, shifts=(0.0, 0.05, 0.08, 0.01))
    B = 20_000
    report = compare(_systems(V), test="randomized_tukey", n_resamples=B, random_state=1)
    assert report.exact["score"] is False
    rng = np.random.default_rng(12345)
    ranges = np.empty(B)
    for b in range(B):  # the obvious reference: one permutation per topic
        P = np.array([row[rng.permutation(4)] for row in V])
        means = P.mean(axis=0)
        ranges[b] = means.max() - means.min()
    means = V.mean(axis=0)
    for a, c in itertools.combinations(range(4), 2):
        pair = (f"s{a}", f"s{c}")
        ref = (1 + np.count_nonzero(ranges >= abs(means[a] - means[c]))) / (1 + B)
        got = report.pvalues["score"][pair]
        err = math.sqrt(max(ref * (1 - ref), 1 / B) * 2 / B)
        assert abs(got - ref) <= 4 * err, (pair, got, ref)
    again = compare(_systems(V), test="randomized_tukey", n_resamples=B, random_state=1)
    assert again.pvalues == report.pvalues  # seeded


def test_randomized_hsd_interval_is_the_range_quantile():
    V = _matrix(2, n=5, k=3)
    report = compare(_systems(V), test="randomized_tukey", confidence_level=0.9)
    pair = ("s0", "s1")
    d = report.differences["score"][pair]
    lo, hi = report.difference_intervals["score"][pair]
    assert hi - d == pytest.approx(d - lo)
    perms = list(itertools.permutations(range(3)))
    ranges = []
    for choice in itertools.product(perms, repeat=4):  # last row fixed
        rows = [V[i, list(p)] for i, p in enumerate(choice)] + [V[4]]
        m = np.mean(rows, axis=0)
        ranges.append(m.max() - m.min())
    assert hi - d == pytest.approx(np.quantile(ranges, 0.9, method="higher"))


# -- the family, corrections and degenerate inputs -------------------------------------------


def test_a_correction_on_top_of_tukey_is_refused():
    V = _matrix(0, k=3)
    with pytest.raises(InvalidParameterError,
                       match=r"correction='holm' cannot be applied on top of test='tukey'.*"
                             r"correction=None"):
        compare(_systems(V), test="tukey", correction="holm")
    assert compare(_systems(V), test="tukey", correction=None).correction is None
    assert compare(_systems(V), test="tukey").correction is None  # "auto"
    assert compare(_systems(V)).correction == "holm"  # "auto" for the t-test


def test_the_baseline_shows_some_pairs_of_the_whole_family():
    V = _matrix(6, k=4)
    every = compare(_systems(V), test="tukey").pvalues["score"]
    vs = compare(_systems(V), test="tukey", baseline="s0").pvalues["score"]
    for (a, b), p in vs.items():  # difference a - s0; the same |d| and family
        assert p == pytest.approx(every[(b, a)], abs=1e-12)


def test_degenerate_inputs_give_stated_values():
    with pytest.warns(UserWarning, match="single query"):
        one = compare({"a": [0.5], "b": [0.7], "c": [0.1]}, test="tukey")
    assert set(one.pvalues["score"].values()) == {1.0}
    assert all(math.isnan(lo) for lo, _ in one.difference_intervals["score"].values())
    # a constant shift on every topic: no residual variance, an infinite statistic
    base = np.array([0.2, 0.5, 0.9, 0.4])
    shifted = compare({"a": base, "b": base + 0.1, "c": base}, test="tukey")
    p = shifted.pvalues["score"]
    assert p[("a", "b")] == 0.0 and p[("a", "c")] == 1.0
    assert shifted.difference_intervals["score"][("a", "b")] == pytest.approx((-0.1, -0.1))
    same = compare({"a": base, "b": base.copy()}, test="randomized_tukey")
    assert same.pvalues["score"][("a", "b")] == 1.0


def test_the_report_names_the_test_and_the_family():
    V = _matrix(1, k=3)
    report = compare(_systems(V), test="tukey")
    text = " ".join(str(report).split())
    assert "Tukey's HSD, topics as blocks, family-wise over the 3 systems" in text
    assert "p (raw)" in text
    assert "simultaneous confidence interval" in report.to_latex()
    markdown = " ".join(compare(_systems(V), test="tukey_oneway").to_markdown().split())
    assert "Tukey's HSD, one-way" in markdown


# -- the command line ----------------------------------------------------------------------


def _cli(*args):
    return subprocess.run([sys.executable, "-m", "sk_rankmetrics", *map(str, args)],
                          capture_output=True, text=True, timeout=300)


def _write_runs(tmp_path):
    rng = np.random.default_rng(7)
    qrels = [f"q{q} 0 d{q}_{d} {int(d < 3)}" for q in range(10) for d in range(8)]
    (tmp_path / "qrels.txt").write_text("\n".join(qrels) + "\n")
    paths = []
    for name, skill in (("weak", 0.0), ("good", 1.5), ("best", 3.0)):
        lines = []
        for q in range(10):
            scores = skill * (np.arange(8) < 3) + rng.normal(size=8)
            lines += [f"q{q} Q0 d{q}_{d} 0 {scores[d]:.6f} {name}" for d in range(8)]
        (tmp_path / f"{name}.txt").write_text("\n".join(lines) + "\n")
        paths.append(tmp_path / f"{name}.txt")
    return tmp_path / "qrels.txt", paths


@pytest.mark.slow
def test_command_line_tukey_and_its_refusal(tmp_path):
    qrels, paths = _write_runs(tmp_path)
    out = _cli("compare", qrels, *paths, "-m", "ndcg@5", "--test", "tukey", "--format", "json")
    assert out.returncode == 0, out.stderr
    import json

    doc = json.loads(out.stdout)
    assert doc["settings"]["test"] == "tukey" and doc["settings"]["correction"] is None
    bad = _cli("compare", qrels, *paths, "--test", "tukey", "--correction", "holm")
    assert bad.returncode == 2
    assert ("--correction holm cannot be applied on top of --test tukey" in bad.stderr
            and "--correction none" in bad.stderr and "correction=" not in bad.stderr)
