"""Paired statistics on per-query values: tests, intervals, corrections.

Every function here takes per-query values (one row per query, one column
per system or per paired difference) and knows nothing of how they were
computed. :mod:`sk_rankmetrics._stats.compare` pairs the queries and calls
:func:`compare_metric` once per metric.

Rules for degenerate input (stated in :func:`sk_rankmetrics.compare`):

- a difference within about 1e-12 of the largest value is 0, and the
  Wilcoxon test ranks the differences rounded to that grid
  (:func:`differences`), so that round-off neither makes nor breaks ties;
- fewer than 2 queries: every p-value is 1, intervals and effect sizes NaN;
- every difference zero: p = 1, interval (0, 0), effect size 0;
- every difference the same non-zero number ``c`` (no spread): the t
  statistic is infinite, so the t-test reports the exact sign-flip p-value of
  such data, ``2 / 2**n``; the interval is ``(c, c)``, the effect size
  ``±inf``;
- a system whose values are all equal gets the interval ``(v, v)``.

Randomness comes from one ``numpy.random.Generator``: bootstrap resamples of
the queries (shared by every system of a metric, so that the intervals of the
means and of their differences come from the same resamples) and random sign
flips. Both are drawn in blocks whose size bounds the memory, with one matrix
product per block (no loop over resamples or queries).
"""

from __future__ import annotations

import math
import warnings

import numpy as np
from scipy.special import ndtr, ndtri

TESTS = ("t-test", "wilcoxon", "randomization", "bootstrap", "sign", "tukey", "tukey_oneway",
         "randomized_tukey")
CORRECTIONS = ("holm", "bonferroni", "fdr_bh")

#: Relative size under which values are equal (round-off, not a difference).
ROUND_OFF = 1e-12
#: Differences are rounded to multiples of 2**-GRID_BITS times the largest value.
GRID_BITS = 40
#: Exact sign-flip enumeration whenever 2**(n - 1) is at most this (or at most
#: n_resamples): n <= 16 by default.
EXACT_MIN = 2**15
#: Entries of the temporary matrices (resamples x queries) of one block.
BLOCK = 2**21


def rng_from(random_state):
    """A ``numpy.random.Generator`` from None or a non-negative int seed."""
    return np.random.default_rng(random_state)


# -- differences ------------------------------------------------------------------


def differences(a, b):
    """``a - b``, and the same rounded to 40 binary digits below the largest value.

    The grid (about ``1e-12`` of the largest ``|a|``, ``|b|``) is far below
    any real difference of metric values and far above round-off. The first
    array is exact except that differences the grid rounds to 0 are exactly
    0, so round-off never makes a tie a win (``0.1 + 0.2 - 0.3``). The
    rounded array is what tests on ranks read, so that round-off does not
    break a tie between equal differences (``0.3 - 0.2`` and ``0.5 - 0.4``).
    """
    d = a - b
    scale = max(float(np.abs(a).max(initial=0.0)), float(np.abs(b).max(initial=0.0)))
    if scale == 0:
        return d, d.copy()
    q = 2.0 ** (math.floor(math.log2(scale)) - GRID_BITS)
    snapped = np.round(d / q) * q
    return np.where(snapped == 0, 0.0, d), snapped


def snap(M):
    """Each row of ``M`` rounded to multiples of ``2**-GRID_BITS`` times its
    largest magnitude (about 1e-12 of it): values that differ by round-off
    only (two means of the same per-query values summed in another order)
    become equal, so that orderings do not tell them apart."""
    M = np.asarray(M, dtype=np.float64)
    scale = np.abs(M).max(axis=-1, keepdims=True)
    q = np.exp2(np.floor(np.log2(np.where(scale > 0, scale, 1.0))) - GRID_BITS)
    return np.round(M / q) * q


def _spread_free(x):
    """True if every value of ``x`` is the same (within round-off)."""
    lo, hi = x.min(), x.max()
    return hi - lo <= ROUND_OFF * max(abs(lo), abs(hi))


def effect_size(d):
    r"""Mean difference over the standard deviation of the differences.

    :math:`\bar d / s_d` with :math:`s_d` the sample standard deviation
    (ddof 1): 0 when every difference is 0, ``±inf`` when they are all the
    same non-zero number, NaN with fewer than 2 queries.
    """
    n = d.shape[0]
    if n < 2:
        return float("nan")
    mean = float(d.mean())
    if _spread_free(d):
        return 0.0 if mean == 0 else float(np.copysign(np.inf, mean))
    return mean / float(d.std(ddof=1))


def win_tie_loss(d):
    """Queries where the first system is higher, equal, lower."""
    return int(np.count_nonzero(d > 0)), int(np.count_nonzero(d == 0)), \
        int(np.count_nonzero(d < 0))


# -- p-values of one comparison ------------------------------------------------------


def _degenerate_pvalue(d):
    """The stated p-value of degenerate differences, or None."""
    n = d.shape[0]
    if n < 2 or not np.any(d):
        return 1.0
    return None


def ttest_pvalue(d):
    """Two-sided paired t-test (``scipy.stats.ttest_rel``) of the differences."""
    from scipy.stats import ttest_1samp

    p = _degenerate_pvalue(d)
    if p is not None:
        return p
    if _spread_free(d):
        return math.ldexp(1.0, 1 - d.shape[0])  # 2 / 2**n
    return float(ttest_1samp(d, 0.0).pvalue)


def wilcoxon_pvalue(d):
    """Two-sided Wilcoxon signed-rank test (``scipy.stats.wilcoxon``), zeros dropped."""
    from scipy.stats import wilcoxon

    p = _degenerate_pvalue(d)
    if p is not None:
        return p
    with warnings.catch_warnings():
        # SciPy warns about small samples for its normal approximation; the
        # exact distribution is used where it is defined (method="auto").
        warnings.simplefilter("ignore")
        return float(wilcoxon(d).pvalue)


def sign_pvalue(d):
    """Two-sided sign test: exact binomial test of wins against losses, ties dropped."""
    from scipy.stats import binomtest

    p = _degenerate_pvalue(d)
    if p is not None:
        return p
    wins, _, losses = win_tie_loss(d)
    return float(binomtest(wins, wins + losses, 0.5).pvalue)


def randomization_pvalues(D, n_resamples, rng):
    r"""Two-sided paired randomisation (sign-flip) test of each column of ``D``.

    Under the null hypothesis the two systems are exchangeable on every
    query, so each difference keeps or flips its sign with probability 1/2.
    The statistic is :math:`|\sum_i s_i d_i|`. When :math:`2^{n-1}` is at most
    ``max(n_resamples, 2**15)`` every sign vector is enumerated (half of them:
    the statistic is symmetric under flipping all signs) and

    .. math:: p = \#\{s : |s \cdot d| \ge |\mathbf{1} \cdot d|\} / 2^{n-1};

    otherwise ``n_resamples`` random sign vectors give
    :math:`p = (1 + \#\{\text{hits}\}) / (1 + B)`.

    Returns ``(pvalues, exact)``.
    """
    n, n_cols = D.shape
    observed = np.abs(D.sum(axis=0))
    tol = 1e-9 * np.abs(D).sum(axis=0)
    threshold = observed - tol
    hits = np.zeros(n_cols, dtype=np.int64)
    exact = n <= 1 or 2 ** (n - 1) <= max(n_resamples, EXACT_MIN)
    if exact:
        total = 2 ** max(n - 1, 0)
        bits = np.arange(max(n - 1, 0), dtype=np.int64)
        step = max(1, BLOCK // max(n, 1))
        for start in range(0, total, step):
            rows = np.arange(start, min(total, start + step), dtype=np.int64)
            signs = np.ones((rows.size, n))
            if n > 1:
                signs[:, :-1] = 1.0 - 2.0 * ((rows[:, None] >> bits) & 1)
            hits += np.count_nonzero(np.abs(signs @ D) >= threshold, axis=0)
        pvalues = hits / total
    else:
        step = max(1, BLOCK // n)
        for start in range(0, n_resamples, step):
            m = min(step, n_resamples - start)
            signs = rng.integers(0, 2, size=(m, n), dtype=np.int8) * 2.0 - 1.0
            hits += np.count_nonzero(np.abs(signs @ D) >= threshold, axis=0)
        pvalues = (1 + hits) / (1 + n_resamples)
    degenerate = (n < 2) | ~np.any(D, axis=0)
    pvalues = np.where(degenerate, 1.0, np.minimum(pvalues, 1.0))
    return pvalues, exact


# -- the bootstrap -----------------------------------------------------------------


def bootstrap_means(V, n_resamples, rng):
    """Means of every column of ``V`` over ``n_resamples`` bootstrap resamples of its rows.

    One resample of the ``n`` queries (indices drawn as
    ``rng.integers(0, n, (b, n))`` block by block, as
    ``scipy.stats.bootstrap`` draws them) serves every column; the means of a
    block are one product of the count matrix with ``V``. Returns an array of
    shape ``(n_resamples, n_columns)``.
    """
    n, n_cols = V.shape
    out = np.empty((n_resamples, n_cols))
    step = max(1, BLOCK // n)
    for start in range(0, n_resamples, step):
        m = min(step, n_resamples - start)
        idx = rng.integers(0, n, (m, n))
        idx += (np.arange(m, dtype=np.int64) * n)[:, None]
        counts = np.bincount(idx.ravel(), minlength=m * n).reshape(m, n)
        # As float64 (whole numbers, exact): NumPy multiplies an integer matrix
        # by a float one in a loop of its own, several times slower than BLAS.
        out[start:start + m] = (counts.astype(np.float64) @ V) / n
    return out


def bca_interval(x, theta_b, confidence_level):
    r"""BCa bootstrap interval of the mean of ``x`` from its bootstrap means.

    Bias correction :math:`z_0 = \Phi^{-1}(\hat F(\hat\theta))` (ties with
    :math:`\hat\theta` count one half), acceleration from the jackknife of
    the mean, :math:`a = \sum u_i^3 / (6 (\sum u_i^2)^{3/2})` with
    :math:`u_i = x_i - \bar x`, and the interval is the
    :math:`\Phi(z_0 + (z_0 + z_\alpha) / (1 - a (z_0 + z_\alpha)))` quantiles
    of ``theta_b`` (Efron and Tibshirani 1993, 14.3), as
    ``scipy.stats.bootstrap(method="BCa")`` computes them. The bias
    correction's fraction is kept within ``[1/(2B), 1 - 1/(2B)]`` so that
    :math:`z_0` stays finite. Values without spread give ``(v, v)``;
    fewer than 2 values give ``(nan, nan)``.
    """
    n = x.shape[0]
    if n < 2:
        return float("nan"), float("nan")
    if _spread_free(x):
        v = float(x[0])
        return v, v
    theta = float(x.mean())
    u = x - theta
    a = float((u**3).sum() / (6.0 * (u**2).sum() ** 1.5))
    return bca_levels(theta, theta_b, a, confidence_level)


def bca_levels(theta, theta_b, accel, confidence_level):
    """The BCa interval of a statistic ``theta`` from its bootstrap values
    ``theta_b`` and the acceleration ``accel`` (the bias correction and the
    quantiles of :func:`bca_interval`)."""
    B = theta_b.shape[0]
    tol = ROUND_OFF * max(abs(theta), 1e-300)
    below = np.count_nonzero(theta_b < theta - tol)
    at_most = np.count_nonzero(theta_b <= theta + tol)
    frac = min(max((below + at_most) / (2 * B), 0.5 / B), 1 - 0.5 / B)
    z0 = float(ndtri(frac))
    alpha = (1 - confidence_level) / 2
    z = np.array([ndtri(alpha), -ndtri(alpha)])
    levels = ndtr(z0 + (z0 + z) / (1 - accel * (z0 + z)))
    low, high = np.quantile(theta_b, levels)
    return float(low), float(high)


def bca_jackknife(theta, theta_b, jack, confidence_level):
    r"""BCa interval of any statistic: the acceleration from its jackknife
    values ``jack`` (the statistic with each query left out in turn),
    :math:`a = \sum u_i^3 / (6 (\sum u_i^2)^{3/2})` with :math:`u_i =
    \bar\theta_{(\cdot)} - \theta_{(i)}` (Efron and Tibshirani 1993, 14.3),
    as ``scipy.stats.bootstrap(method="BCa")`` takes it. Bootstrap values all
    equal to ``theta`` give ``(theta, theta)``."""
    if np.all(np.abs(theta_b - theta) <= ROUND_OFF * max(abs(theta), 1e-300)):
        return float(theta), float(theta)
    u = jack.mean() - jack
    ss = float((u**2).sum())
    a = float((u**3).sum() / (6.0 * ss**1.5)) if ss > 0 else 0.0
    return bca_levels(theta, theta_b, a, confidence_level)


def bootstrap_pvalue(d, theta_b):
    r"""Two-sided paired bootstrap test of a zero mean difference.

    The bootstrap means :math:`\theta^*_b` of the differences, shifted by
    :math:`\bar d` so that the null hypothesis holds, are compared with the
    observed mean: :math:`p = (1 + \#\{|\theta^*_b - \bar d| \ge |\bar d|\})
    / (1 + B)` (Efron and Tibshirani 1993, 16.4).
    """
    p = _degenerate_pvalue(d)
    if p is not None:
        return p
    theta = float(d.mean())
    tol = ROUND_OFF * abs(theta)
    hits = np.count_nonzero(np.abs(theta_b - theta) >= abs(theta) - tol)
    return float((1 + hits) / (1 + theta_b.shape[0]))


# -- multiple testing --------------------------------------------------------------


def correct(pvalues, method):
    r"""Adjusted p-values of one family of tests.

    ``"bonferroni"``: :math:`\min(1, m p_i)`; ``"holm"``: step-down,
    :math:`\max_{j \le i} \min(1, (m - j + 1) p_{(j)})`; ``"fdr_bh"``
    (Benjamini-Hochberg): step-up, :math:`\min_{j \ge i} \min(1, m p_{(j)} / j)`,
    with :math:`p_{(j)}` the sorted p-values; None leaves them as they are.
    """
    p = np.asarray(pvalues, dtype=np.float64)
    m = p.shape[0]
    if method is None or m == 0:
        return p.copy()
    if method == "bonferroni":
        return np.minimum(1.0, p * m)
    order = np.argsort(p, kind="stable")
    ranked = p[order]
    ranks = np.arange(1, m + 1)
    if method == "holm":
        adj = np.maximum.accumulate(np.minimum(1.0, (m - ranks + 1) * ranked))
    elif method == "fdr_bh":
        adj = np.minimum.accumulate(np.minimum(1.0, m * ranked / ranks)[::-1])[::-1]
    else:
        raise ValueError(f"unknown correction {method!r}; use one of {CORRECTIONS} or None.")
    out = np.empty(m)
    out[order] = adj
    return out


# -- one metric, every comparison ---------------------------------------------------


_SCALAR_TESTS = {"t-test": ttest_pvalue, "sign": sign_pvalue}


def compare_metric(V, pairs, *, test, correction, confidence_level, n_resamples, rng,
                   family=None):
    """Every statistic of one metric.

    Parameters
    ----------
    V : ndarray of shape (n_queries, n_systems)
        Finite per-query values, paired by row.
    pairs : list of (int, int)
        Column indices ``(i, j)`` to compare; the difference is ``V[:, i] - V[:, j]``.
    test, correction, confidence_level, n_resamples, rng
        As in :func:`sk_rankmetrics.compare`.
    family : callable, default=None
        For Tukey's tests (:mod:`sk_rankmetrics._stats.tukey`):
        ``family(V, mean differences, rng) -> (pvalues, intervals, exact)``,
        which replaces the pairwise test and the differences' intervals.

    Returns
    -------
    out : dict
        ``means``, ``intervals`` (per system); ``differences``,
        ``difference_intervals``, ``effect_sizes``, ``pvalues_raw``,
        ``pvalues``, ``win_tie_loss`` (per pair, in the order of ``pairs``);
        ``exact`` (whether the randomisation test enumerated every sign flip, or
        the randomised Tukey HSD every permutation). Under the Tukey tests
        the differences' intervals are Tukey's simultaneous intervals.
    """
    n, _ = V.shape
    both = [differences(V[:, i], V[:, j]) for i, j in pairs]
    D = np.column_stack([d for d, _ in both]) if pairs else np.zeros((n, 0))
    ranked = [g for _, g in both]  # for Wilcoxon's ranks
    theta_v = bootstrap_means(V, n_resamples, rng)
    intervals = [bca_interval(V[:, s], theta_v[:, s], confidence_level)
                 for s in range(V.shape[1])]
    diff_intervals, boot_p = [], []
    for c, (i, j) in enumerate(pairs):
        theta_d = theta_v[:, i] - theta_v[:, j]
        diff_intervals.append(bca_interval(D[:, c], theta_d, confidence_level))
        if test == "bootstrap":
            boot_p.append(bootstrap_pvalue(D[:, c], theta_d))
    exact = None
    if family is not None:  # Tukey's tests: every pair of systems is one family
        raw, diff_intervals, exact = family(V, D.mean(axis=0), rng)
    elif test == "randomization":
        raw, exact = randomization_pvalues(D, n_resamples, rng)
    elif test == "bootstrap":
        raw = np.array(boot_p)
    elif test == "wilcoxon":
        raw = np.array([wilcoxon_pvalue(g) for g in ranked])
    else:
        fn = _SCALAR_TESTS[test]
        raw = np.array([fn(D[:, c]) for c in range(D.shape[1])])
    raw = np.asarray(raw, dtype=np.float64)
    return {
        "means": V.mean(axis=0),
        "intervals": intervals,
        "differences": D.mean(axis=0),
        "difference_intervals": diff_intervals,
        "effect_sizes": [effect_size(D[:, c]) for c in range(D.shape[1])],
        "pvalues_raw": raw,
        "pvalues": correct(raw, correction),
        "win_tie_loss": [win_tie_loss(D[:, c]) for c in range(D.shape[1])],
        "exact": exact,
    }
