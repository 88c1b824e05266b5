r"""Tukey's honestly significant difference: every pair of systems as one family.

Three tests of ``compare(test=...)`` share this module; each gives every
compared pair a p-value that already accounts for the comparison of all
``k`` systems (the family-wise error), and a simultaneous interval of the
difference:

- ``"tukey"``: topics as blocks, the two-way analysis of variance without
  replication. The residual variance

  .. math:: V_E = \frac{1}{(k-1)(n-1)} \sum_{i,j}
            (x_{ij} - \bar x_{i\cdot} - \bar x_{\cdot j} + \bar x)^2

  has :math:`(k-1)(n-1)` degrees of freedom, and a pair's statistic
  :math:`q = |\bar x_a - \bar x_b| / \sqrt{V_E / n}` follows the
  studentized range of ``k`` means under the null hypothesis;
- ``"tukey_oneway"``: the one-way form (topics ignored), the pooled
  within-system variance with :math:`k(n-1)` degrees of freedom, as
  statsmodels' ``pairwise_tukeyhsd`` computes it (ranx's number);
- ``"randomized_tukey"``: the randomised HSD (Carterette 2012; Sakai's
  Discpower): on each topic the ``k`` values are permuted among the
  systems, and a pair's p-value is the share of permutations whose largest
  difference of two means, :math:`\max_j \bar x^*_j - \min_j \bar x^*_j`,
  reaches the pair's observed :math:`|\bar x_a - \bar x_b|`.

A permutation of every topic by the same relabelling of the systems leaves
the range unchanged, so fixing the last topic's order enumerates every
distinct outcome: :math:`(k!)^{n-1}` of them. They are enumerated when that
is at most ``max(n_resamples, 2**15)`` (for two systems, the sign-flip
test's bound), drawn at random otherwise, in blocks of bounded memory, with
no Python loop over topics or permutations.
"""

from __future__ import annotations

import math
from itertools import permutations

import numpy as np

from .significance import BLOCK, EXACT_MIN, ROUND_OFF

TUKEY_TESTS = ("tukey", "tukey_oneway", "randomized_tukey")

#: Relative size (of the largest value) under which two means are equal.
_TIES = 1e-9


def residual_variance(V, oneway):
    """``(V_E, degrees of freedom)`` of the two-way (topics as blocks) or one-way
    analysis of variance of the ``(n_topics, k)`` matrix ``V``.

    A residual sum of squares within round-off of zero is 0.
    """
    n, k = V.shape
    col = V - V.mean(axis=0)
    if oneway:
        resid, df = col, k * (n - 1)
    else:
        resid, df = col - (V.mean(axis=1) - V.mean())[:, None], (k - 1) * (n - 1)
    ss = float((resid**2).sum())
    scale = float(np.abs(V).max(initial=0.0))
    if ss <= (ROUND_OFF * scale) ** 2 * n * k:
        ss = 0.0
    return ss / df, df


def family(test, *, n_resamples, confidence_level):
    """The ``family`` argument of ``compare_metric`` for one of :data:`TUKEY_TESTS`."""
    if test == "randomized_tukey":
        return lambda V, diffs, rng: randomized_hsd(
            V, diffs, n_resamples=n_resamples, rng=rng, confidence_level=confidence_level)

    def tukey(V, diffs, rng):
        p, intervals = hsd(V, diffs, oneway=test == "tukey_oneway",
                           confidence_level=confidence_level)
        return p, intervals, None

    return tukey


def hsd(V, diffs, *, oneway, confidence_level):
    """p-values and simultaneous intervals of Tukey's HSD, two-way or one-way.

    ``diffs`` are the pairs' mean differences. Returns ``(pvalues, intervals)``.
    """
    from scipy.stats import studentized_range

    n, k = V.shape
    d = np.asarray(diffs, dtype=np.float64)
    if n < 2:
        return np.ones(d.size), [(math.nan, math.nan)] * d.size
    ve, df = residual_variance(V, oneway)
    se = math.sqrt(ve / n)
    zero = d == 0
    if se == 0:  # no residual variance: the statistic is infinite for any difference
        p = np.where(zero, 1.0, 0.0)
        return p, [(float(x), float(x)) for x in d]
    q = np.abs(d) / se
    # studentized_range integrates numerically: one call per distinct statistic.
    uniq, inverse = np.unique(q, return_inverse=True)
    p = np.asarray(studentized_range.sf(uniq, k, df), dtype=np.float64)[inverse]
    p = np.where(zero, 1.0, np.clip(p, 0.0, 1.0))
    half = float(studentized_range.ppf(confidence_level, k, df)) * se
    return p, [(float(x - half), float(x + half)) for x in d]


def _exact_total(n, k, limit):
    """``(k!)**(n - 1)`` if it is at most ``limit``, else None."""
    if (n - 1) * math.lgamma(k + 1) > math.log(limit) + 1e-9:
        return None
    total = math.factorial(k) ** max(n - 1, 0)
    return total if total <= limit else None


def permutation_ranges(V, n_resamples, rng):
    """The range of the column means of ``V`` under permutations within rows.

    Returns ``(ranges, exact)``: every one of the :math:`(k!)^{n-1}` distinct
    outcomes (the last row kept in place) when there are at most
    ``max(n_resamples, 2**15)``, else ``n_resamples`` random ones.
    """
    n, k = V.shape
    total = _exact_total(n, k, max(n_resamples, EXACT_MIN))
    if total is not None:
        perms = np.array(list(permutations(range(k))), dtype=np.intp)  # (k!, k)
        radix = perms.shape[0]
        powers = radix ** np.arange(n - 1, dtype=np.int64)
        rows = np.arange(n - 1)[None, :, None]
        out = np.empty(total)
        step = max(1, BLOCK // (k * n))
        for start in range(0, total, step):
            idx = np.arange(start, min(total, start + step), dtype=np.int64)
            digits = (idx[:, None] // powers) % radix  # (m, n - 1)
            sums = V[rows, perms[digits]].sum(axis=1) + V[n - 1]
            out[start:start + idx.size] = sums.max(axis=1) - sums.min(axis=1)
        return out / n, True
    out = np.empty(n_resamples)
    step = max(1, BLOCK // (k * n))
    for start in range(0, n_resamples, step):
        m = min(step, n_resamples - start)
        order = rng.random((m, n, k)).argsort(axis=2)
        sums = np.take_along_axis(np.broadcast_to(V, (m, n, k)), order, axis=2).sum(axis=1)
        out[start:start + m] = sums.max(axis=1) - sums.min(axis=1)
    return out / n, False


def randomized_hsd(V, diffs, *, n_resamples, rng, confidence_level):
    """p-values and simultaneous intervals of the randomised Tukey HSD.

    A pair's p-value is the share of the permutations whose range of means
    reaches its ``|d|`` (within ``1e-9`` of the largest value): exact
    enumeration gives ``hits / total``, random permutations
    ``(1 + hits) / (1 + B)``. The interval is ``d ± c`` with ``c`` the
    ``confidence_level`` quantile of the ranges. Returns ``(pvalues,
    intervals, exact)``.
    """
    n = V.shape[0]
    d = np.asarray(diffs, dtype=np.float64)
    if n < 2:
        return np.ones(d.size), [(math.nan, math.nan)] * d.size, True
    ranges, exact = permutation_ranges(V, n_resamples, rng)
    ranges.sort()
    tol = _TIES * float(np.abs(V).max(initial=0.0))
    hits = ranges.size - np.searchsorted(ranges, np.abs(d) - tol, side="left")
    p = hits / ranges.size if exact else (1 + hits) / (1 + ranges.size)
    p = np.where(d == 0, 1.0, np.minimum(p, 1.0))
    half = float(np.quantile(ranges, confidence_level, method="higher"))
    return p, [(float(x - half), float(x + half)) for x in d], exact
