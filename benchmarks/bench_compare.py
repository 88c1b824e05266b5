"""Speed of ``sk_rankmetrics.compare`` against the same statistics computed with SciPy
one comparison at a time.

Usage::

    python benchmarks/bench_compare.py           # two sizes, about 5 minutes on 2 cores
    python benchmarks/bench_compare.py --quick   # the smallest size only, under a minute
    python benchmarks/bench_compare.py --large   # also 10,000 queries (about 15 minutes)

The SciPy side is what a user would write by hand: for every system and
metric a ``scipy.stats.bootstrap(method="BCa")`` interval of the mean, and for
every pair of systems a BCa interval of the mean difference and
``scipy.stats.ttest_rel`` (or ``scipy.stats.permutation_test`` with the same
number of random sign flips for the randomisation test). Both sides use the
same number of resamples. The t-test p-values must agree (they are checked);
the intervals agree only in distribution, since each SciPy call draws its own
resamples while ``compare`` shares one draw per metric. Each side is timed
once, in the same process; the script prints one Markdown table.
"""

from __future__ import annotations

import argparse
import inspect
import itertools
import sys
import time

import numpy as np
import scipy
import scipy.stats as st

import sk_rankmetrics as skr

_RNG_KW = "rng" if "rng" in inspect.signature(st.bootstrap).parameters else "random_state"


def _data(n_queries, n_systems, n_metrics, seed=0):
    rng = np.random.default_rng(seed)
    base = rng.uniform(size=(n_queries, n_metrics))
    return {
        f"s{i}": {
            f"m{j}": np.clip(base[:, j] + 0.02 * i + 0.1 * rng.normal(size=n_queries), 0, 1)
            for j in range(n_metrics)
        }
        for i in range(n_systems)
    }


def _scipy_side(results, test, n_resamples):
    rng = np.random.default_rng(0)
    names = list(results)
    metrics = list(results[names[0]])
    pvalues = {}
    for m in metrics:
        for s in names:
            st.bootstrap(
                (results[s][m],), np.mean, n_resamples=n_resamples, method="BCa", **{_RNG_KW: rng}
            )
        for a, b in itertools.combinations(names, 2):
            x, y = results[a][m], results[b][m]
            st.bootstrap(
                (x, y),
                lambda u, v, axis=-1: np.mean(u - v, axis=axis),
                paired=True,
                n_resamples=n_resamples,
                method="BCa",
                **{_RNG_KW: rng},
            )
            if test == "t-test":
                pvalues[(m, a, b)] = st.ttest_rel(x, y).pvalue
            else:
                st.permutation_test(
                    (x - y,),
                    lambda d, axis=-1: np.abs(np.sum(d, axis=axis)),
                    permutation_type="samples",
                    n_resamples=n_resamples,
                    alternative="greater",
                    **{_RNG_KW: rng},
                )
    return pvalues


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="the smallest size only")
    parser.add_argument("--large", action="store_true", help="also 10,000 queries")
    parser.add_argument("--resamples", type=int, default=10_000)
    args = parser.parse_args(argv)
    sizes = [(250, 5, 5), (1_000, 10, 5)]
    if args.quick:
        sizes = sizes[:1]
    elif args.large:
        sizes.append((10_000, 5, 3))
    rows, failed = [], False
    for n, n_sys, n_met in sizes:
        results = _data(n, n_sys, n_met)
        for test in ("t-test", "randomization"):
            print(f"{n} queries, {n_sys} systems, {n_met} metrics, {test} ...", file=sys.stderr)
            t0 = time.perf_counter()
            report = skr.compare(
                results, test=test, correction=None, n_resamples=args.resamples, random_state=0
            )
            ours = time.perf_counter() - t0
            t0 = time.perf_counter()
            reference = _scipy_side(results, test, args.resamples)
            theirs = time.perf_counter() - t0
            for (m, a, b), p in reference.items():
                if abs(report.pvalues_raw[m][(a, b)] - p) > 1e-9 * max(p, 1e-300):
                    print(
                        f"CHECK FAILED: {m} {a}-{b}: {report.pvalues_raw[m][(a, b)]} != {p}",
                        file=sys.stderr,
                    )
                    failed = True
            n_pairs = n_sys * (n_sys - 1) // 2
            rows.append(
                f"| {n:,} | {n_sys} | {n_met} | {n_pairs * n_met} | {test} | "
                f"{ours:.2f} | {theirs:.2f} | {theirs / ours:.0f}x |"
            )
    print(
        f"compare() against SciPy, one call per interval and test; {args.resamples:,} "
        f"resamples; NumPy {np.__version__}, SciPy {scipy.__version__}\n"
    )
    print("| queries | systems | metrics | comparisons | test | compare (s) | SciPy (s) | ratio |")
    print("|---:|---:|---:|---:|---|---:|---:|---:|")
    print("\n".join(rows))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
