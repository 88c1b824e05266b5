"""Paired significance tests between two systems' per-query values."""

from __future__ import annotations

import numpy as np

#: Permutations drawn per block (bounds the sign matrix to ~8 MB for 1,000 queries).
_BLOCK = 1000


def paired_t_test(a, b):
    """Two-sided p-value of the paired t-test of ``a`` against ``b``.

    Identical values give p = 1 (scipy would give NaN).
    """
    from scipy.stats import ttest_rel

    d = np.asarray(a, float) - np.asarray(b, float)
    if d.size < 2 or np.all(d == d[0]):
        return 1.0 if np.all(d == 0) else 0.0
    return float(ttest_rel(a, b).pvalue)


def randomization_test(a, b, *, permutations=10_000, seed=0):
    """Two-sided p-value of the paired randomisation (sign-flip) test.

    Under the null hypothesis the two systems are exchangeable on every
    query, so each per-query difference keeps or flips its sign with
    probability 1/2. The p-value is ``(1 + #{|mean(s * d)| >= |mean(d)|}) /
    (1 + permutations)``, computed in blocks of permutations with one matrix
    product each (no loop over queries).
    """
    d = np.asarray(a, float) - np.asarray(b, float)
    if d.size == 0:
        return 1.0
    observed = abs(d.mean())
    rng = np.random.default_rng(seed)
    hits = 0
    done = 0
    tol = 1e-12 * max(1.0, observed)
    while done < permutations:
        m = min(_BLOCK, permutations - done)
        signs = rng.integers(0, 2, size=(m, d.size), dtype=np.int8) * 2 - 1
        means = np.abs(signs @ d) / d.size
        hits += int(np.count_nonzero(means >= observed - tol))
        done += m
    return (1 + hits) / (1 + permutations)
