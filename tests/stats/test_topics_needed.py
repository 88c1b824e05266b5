"""topics_needed and detectable_difference: Sakai and Nagata's topic set size design.

The paired t design against statsmodels' power solution rounded up, the ANOVA
design against statsmodels' FTestAnovaPower, the CI design against a plain scan
of its criterion and a Monte Carlo estimate of the expected width; the paired t
design also against the procedure of Sakai's spreadsheet (Nagata's normal
approximation of the noncentral t), which it may differ from by one topic.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
import scipy.stats as st
from scipy.special import gammaln

from sk_rankmetrics import InvalidParameterError, detectable_difference, topics_needed

statsmodels_power = pytest.importorskip("statsmodels.stats.power")

GRID = [(delta, sd, alpha, power)
        for delta in (0.02, 0.05, 0.1, 0.2)
        for sd in (0.1, 0.2, 0.3)
        for alpha in (0.01, 0.05)
        for power in (0.7, 0.8, 0.9)]


@pytest.mark.parametrize(("delta", "sd", "alpha", "power"), GRID)
def test_paired_t_is_statsmodels_rounded_up(delta, sd, alpha, power):
    n = statsmodels_power.TTestPower().solve_power(effect_size=delta / sd, alpha=alpha,
                                                   power=power)
    assert topics_needed(delta=delta, sd=sd, alpha=alpha, power=power) == max(2, math.ceil(n))


@pytest.mark.parametrize(("delta", "sd", "alpha", "power"), GRID[::3])
@pytest.mark.parametrize("m", [2, 3, 10, 40])
def test_anova_is_statsmodels_rounded_up(delta, sd, alpha, power, m):
    f = delta / (sd * math.sqrt(2 * m))  # Cohen's f of two means delta apart, the rest midway
    total = statsmodels_power.FTestAnovaPower().solve_power(effect_size=f, k_groups=m,
                                                            alpha=alpha, power=power)
    got = topics_needed(delta=delta, sd=sd, alpha=alpha, power=power, design="anova",
                        n_systems=m)
    assert got == max(2, math.ceil(total / m - 1e-9))


def _expected_width(n, sd, alpha):
    c4 = math.sqrt(2 / (n - 1)) * math.exp(gammaln(n / 2) - gammaln((n - 1) / 2))
    return 2 * st.t.isf(alpha / 2, n - 1) * c4 * sd / math.sqrt(n)


@pytest.mark.parametrize(("delta", "sd", "alpha"),
                         [(0.1, 0.15, 0.05), (0.05, 0.2, 0.05), (0.2, 0.1, 0.01), (1.0, 0.1, 0.05)])
def test_ci_is_the_first_n_whose_expected_width_fits(delta, sd, alpha):
    """Nagata's procedure: start from the normal approximation and add topics."""
    n = max(2, math.ceil(4 * (st.norm.isf(alpha / 2) * sd / delta) ** 2))
    while _expected_width(n, sd, alpha) > delta:
        n += 1
    while n > 2 and _expected_width(n - 1, sd, alpha) <= delta:
        n -= 1
    assert topics_needed(delta=delta, sd=sd, alpha=alpha, design="ci") == n


def test_the_expected_width_is_the_mean_width_of_simulated_intervals():
    rng = np.random.default_rng(0)
    n, sd = 12, 0.2
    x = rng.normal(scale=sd, size=(200_000, n))
    widths = 2 * st.t.isf(0.025, n - 1) * x.std(axis=1, ddof=1) / math.sqrt(n)
    got = detectable_difference(n_topics=n, sd=sd, design="ci")
    assert got == pytest.approx(widths.mean(), rel=2e-3)
    assert got == pytest.approx(_expected_width(n, sd, 0.05), rel=1e-12)


def _nagata_power(n, effect, alpha):
    """Power of the two-sided paired t-test by Nagata's normal approximation of the
    noncentral t, the formula of Sakai's spreadsheet."""
    phi = n - 1
    w = st.t.isf(alpha / 2, phi)
    lam = math.sqrt(n) * effect
    scale = math.sqrt(1 + w * w / (2 * phi))
    upper = (w * (1 - 1 / (4 * phi)) - lam) / scale
    lower = (-w * (1 - 1 / (4 * phi)) - lam) / scale
    return st.norm.sf(upper) + st.norm.cdf(lower)


def _sakai_paired_t(delta, sd, alpha, power):
    """The spreadsheet's procedure: the normal approximation's n, then one topic at a
    time until the approximated power is reached."""
    za, zb = st.norm.isf(alpha / 2), st.norm.isf(1 - power)
    n = max(2, math.ceil(((za + zb) * sd / delta) ** 2 + za**2 / 2))
    while _nagata_power(n, delta / sd, alpha) < power:
        n += 1
    while n > 2 and _nagata_power(n - 1, delta / sd, alpha) >= power:
        n -= 1
    return n


def test_paired_t_is_within_one_topic_of_the_spreadsheet_procedure():
    same = 0
    for delta, sd, alpha, power in GRID:
        ours = topics_needed(delta=delta, sd=sd, alpha=alpha, power=power)
        sheet = _sakai_paired_t(delta, sd, alpha, power)
        assert abs(ours - sheet) <= 1, (delta, sd, alpha, power, ours, sheet)
        same += ours == sheet
    assert same >= 0.8 * len(GRID)


@pytest.mark.parametrize("design", ["paired_t", "anova"])
@pytest.mark.parametrize("n", [5, 20, 50, 200])
def test_detectable_difference_inverts_topics_needed(design, n):
    kw = dict(sd=0.2, design=design, n_systems=5 if design == "anova" else 2)
    delta = detectable_difference(n_topics=n, **kw)
    assert topics_needed(delta=delta * (1 + 1e-9), **kw) == n
    assert topics_needed(delta=delta * (1 - 1e-6), **kw) == n + 1


def test_detectable_difference_is_statsmodels():
    es = statsmodels_power.TTestPower().solve_power(nobs=50, alpha=0.05, power=0.8)
    assert detectable_difference(n_topics=50, sd=0.15) == pytest.approx(es * 0.15, rel=1e-7)


# -- the spread: sd, a pilot's differences, a pilot's values ----------------------------------


def test_the_spread_from_a_pilot():
    rng = np.random.default_rng(2)
    pilot = rng.uniform(size=(30, 4))
    pooled = ((pilot - pilot.mean(axis=0)) ** 2).sum() / (4 * 29)
    assert topics_needed(delta=0.1, pilot=pilot, design="anova", n_systems=4) == \
        topics_needed(delta=0.1, sd=math.sqrt(pooled), design="anova", n_systems=4)
    # a difference of two systems: twice the within-system variance (Sakai 2016)
    assert topics_needed(delta=0.1, pilot=pilot) == \
        topics_needed(delta=0.1, sd=math.sqrt(2 * pooled))
    as_mapping = {f"s{j}": pilot[:, j] for j in range(4)}
    assert topics_needed(delta=0.1, pilot=as_mapping) == topics_needed(delta=0.1, pilot=pilot)
    d = pilot[:, 0] - pilot[:, 1]
    assert topics_needed(delta=0.1, per_query_differences=d) == \
        topics_needed(delta=0.1, sd=float(d.std(ddof=1)))
    with_nan = np.vstack([pilot, [np.nan, 0.1, 0.2, 0.3]])
    assert topics_needed(delta=0.1, pilot=with_nan) == topics_needed(delta=0.1, pilot=pilot)


@pytest.mark.parametrize(("kwargs", "error", "match"), [
    (dict(delta=0.1), InvalidParameterError, "exactly one of sd, per_query_differences and "
                                             "pilot.*got none"),
    (dict(delta=0.1, sd=0.2, pilot=[[0.1, 0.2], [0.3, 0.1]]), InvalidParameterError,
     "got sd, pilot"),
    (dict(delta=0.1, per_query_differences=[0.1, 0.2, 0.0], design="anova"),
     InvalidParameterError, "design='anova' reads the within-system"),
    (dict(delta=0.1, sd=0.2, design="ci", power=0.9), InvalidParameterError,
     "design='ci' caps the expected width.*no power"),
    (dict(delta=0.1, sd=0.2, n_systems=5), InvalidParameterError,
     "n_systems=5 is read by design='anova' only"),
    (dict(delta=0.1, sd=0.2, power=0.04), InvalidParameterError, "power=0.04 must exceed"),
    (dict(delta=1e-7, sd=1.0), ValueError, "more than 1,000,000,000 topics"),
    (dict(delta=0.1, per_query_differences=[0.2, 0.2, 0.2]), ValueError,
     "standard deviation is 0"),
    (dict(delta=0.1, per_query_differences=[0.2, np.nan]), ValueError, "must be finite"),
    (dict(delta=0.1, per_query_differences=[[0.2, 0.1]]), ValueError, "must be 1-D"),
    (dict(delta=0.1, pilot=[[0.2, 0.1]]), ValueError, "at least 2"),
    (dict(delta=0.1, pilot=[0.2, 0.1]), ValueError, r"\(queries, systems\) matrix"),
    (dict(delta=0.1, pilot={"a": [0.1, 0.2], "b": [0.3]}), ValueError, "one value per query"),
    (dict(delta=0.1, pilot=[[0.2, 0.2], [0.2, 0.2]]), ValueError, "within-system variance is 0"),
    (dict(delta=-0.1, sd=0.2), InvalidParameterError, "topics_needed: delta=-0.1"),
    (dict(delta=0.1, sd=0.2, design="t"), InvalidParameterError, "design='t' is not accepted"),
])
def test_hostile_inputs_raise_clearly(kwargs, error, match):
    with pytest.raises(error, match=match):
        topics_needed(**kwargs)


def test_more_power_or_a_smaller_difference_needs_more_topics():
    base = topics_needed(delta=0.05, sd=0.2)
    assert topics_needed(delta=0.05, sd=0.2, power=0.9) > base
    assert topics_needed(delta=0.04, sd=0.2) > base
    assert topics_needed(delta=0.05, sd=0.2, alpha=0.01) > base
    assert topics_needed(delta=0.05, sd=0.2, design="anova", n_systems=10) > \
        topics_needed(delta=0.05, sd=0.2, design="anova", n_systems=3)
    assert topics_needed(delta=10.0, sd=0.1) == 2
