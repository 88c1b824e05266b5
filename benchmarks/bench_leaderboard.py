"""Speed of ``sk_rankmetrics.leaderboard`` against the same statistics computed in a
plain loop over resamples.

Usage::

    python benchmarks/bench_leaderboard.py           # three sizes, up to MTEB's
    python benchmarks/bench_leaderboard.py --quick   # the smallest size only

The loop side is what a user would write by hand with NumPy: for each
resample, each collection's queries drawn with replacement and its systems'
means taken (vectorised over systems, as anyone would), the mean of the
per-collection means, and the largest studentized deviation of the pairwise
differences of that resample; then the same step-down rank intervals. Both
sides use the same number of resamples and the same intervals' definition; the
observed ranks must agree (they are checked), the intervals agree in
distribution only (each side draws its own resamples). Each side is timed once,
in the same process; the script prints one Markdown table. The data: per-query
values of ``systems`` systems on ``collections`` collections of ``queries``
queries each (a shared query effect plus noise), MTEB's scale at the largest
size.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

import sk_rankmetrics as skr

SIZES = [(30, 5, 200), (100, 20, 200), (300, 40, 200)]
RESAMPLES = 1000


def _data(k, C, n, seed=0):
    rng = np.random.default_rng(seed)
    skill = rng.normal(0.5, 0.03, k)
    out = {}
    for c in range(C):
        X = skill + rng.normal(0, 0.1, (n, 1)) + rng.normal(0, 0.15, (n, k))
        out[f"c{c}"] = {f"s{j}": X[:, j] for j in range(k)}
    return out


def _loop_side(data, n_resamples, level=0.95, seed=0):
    rng = np.random.default_rng(seed)
    mats = [np.column_stack(list(systems.values())) for systems in data.values()]
    k = mats[0].shape[1]
    T = np.mean([V.mean(axis=0) for V in mats], axis=0)
    boot = np.empty((n_resamples, k))
    for b in range(n_resamples):
        boot[b] = np.mean([V[rng.integers(0, V.shape[0], V.shape[0])].mean(axis=0)
                           for V in mats], axis=0)
    cov = np.cov(boot, rowvar=False)
    se = np.sqrt(np.maximum(np.diag(cov)[:, None] + np.diag(cov)[None, :] - 2 * cov, 0))
    inv = np.where(se > 0, 1 / np.where(se > 0, se, 1), 0.0)
    d = T[:, None] - T[None, :]
    different = np.zeros((k, k), dtype=bool)
    while True:
        dev = np.empty(n_resamples)
        for b in range(n_resamples):
            x = boot[b] - T
            dev[b] = (np.abs(x[:, None] - x[None, :]) * inv * ~different).max()
        crit = np.quantile(dev, level, method="higher")
        new = (np.abs(d) > crit * se) & (d != 0) & ~different
        if not new.any():
            break
        different |= new
    rank = 1 + (T[None, :] > T[:, None]).sum(axis=1)
    low = 1 + (different & (d < 0)).sum(axis=1)
    high = k - (different & (d > 0)).sum(axis=1)
    return rank, low, high


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args(argv)
    sizes = SIZES[:1] if args.quick else SIZES
    skr.leaderboard(_data(3, 2, 5), n_resamples=100, random_state=0)  # imports SciPy's stats
    print("| systems | collections | queries each | resamples | `leaderboard` | loop | ratio |"
          " mean interval size |")
    print("|---:|---:|---:|---:|---:|---:|---:|---:|")
    for k, C, n in sizes:
        data = _data(k, C, n)
        t0 = time.perf_counter()
        report = skr.leaderboard(data, n_resamples=RESAMPLES, random_state=0)
        fast = time.perf_counter() - t0
        t0 = time.perf_counter()
        rank, low, high = _loop_side(data, RESAMPLES)
        slow = time.perf_counter() - t0
        names = list(next(iter(data.values())))
        assert [report.rank[s] for s in names] == rank.tolist()
        size = np.mean([report.rank_high[s] - report.rank_low[s] + 1 for s in names])
        loop_size = float(np.mean(high - low + 1))
        print(f"| {k} | {C} | {n} | {RESAMPLES:,} | {fast:.2f} s | {slow:.1f} s | "
              f"{slow / fast:.0f}x | {size:.1f} (loop {loop_size:.1f}) |", flush=True)


if __name__ == "__main__":
    main()
