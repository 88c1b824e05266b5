"""Coverage of leaderboard()'s rank intervals over simulated leaderboards.

Each scenario draws leaderboards from known true per-collection means: per-query
values are a system's true mean on the collection, plus a query effect shared by
every system (queries differ in difficulty) and independent noise. The true rank
of a system is 1 + the number of systems with a higher true mean of
per-collection means. For each simulated leaderboard the script records, per
method, whether each system's interval holds its true rank (marginal coverage),
whether every system's does (joint coverage), and the mean interval size (the
number of ranks it spans).

Methods:

- ``simultaneous``, ``per_system``: leaderboard(intervals=...), 1,000 resamples;
- ``oracle``: the same procedure with the bootstrap replaced by the true
  sampling distribution of the scores (1,000 fresh leaderboards drawn from the
  truth), so that its size is what the procedure needs when nothing is
  estimated; the bootstrap's intervals should be about as wide;
- ``percentile``: the 2.5 and 97.5 percentiles of each system's rank over the
  bootstrap resamples, the usual shortcut, shown for contrast.

Run: ``python benchmarks/coverage_leaderboard.py [--reps N]`` (seeded; about a
minute for the default 200 leaderboards per scenario on one core).
"""

from __future__ import annotations

import argparse

import numpy as np

from sk_rankmetrics import leaderboard
from sk_rankmetrics._stats import leaderboard as lb
from sk_rankmetrics._stats.significance import rng_from

#: (name, systems, collections, queries per collection, spread of the true means)
SCENARIOS = [
    ("10 systems, 4 x 50 queries, spread 0.03", 10, 4, 50, 0.03),
    ("20 systems, 3 x 40 queries, spread 0.015 (many near-ties)", 20, 3, 40, 0.015),
    ("8 systems, 1 x 100 queries, spread 0.05", 8, 1, 100, 0.05),
]
NOISE, SHARED = 0.15, 0.6


def truth(seed, k, C, spread):
    rng = np.random.default_rng(seed)
    base = rng.normal(0.5, spread, k)
    mu = base + rng.normal(0, spread / 2, (C, k))
    return mu


def draw(rng, mu, n):
    out = {}
    for c in range(mu.shape[0]):
        topic = rng.normal(0, NOISE * np.sqrt(SHARED), (n, 1))
        X = mu[c] + topic + rng.normal(0, NOISE * np.sqrt(1 - SHARED), (n, mu.shape[1]))
        out[f"c{c}"] = X
    return out


def scores(data):
    return np.mean([X.mean(axis=0) for X in data.values()], axis=0)


def percentile_intervals(T_boot, level):
    ranks = 1 + (T_boot[:, None, :] > T_boot[:, :, None]).sum(axis=2)
    lo = np.quantile(ranks, (1 - level) / 2, axis=0, method="lower")
    hi = np.quantile(ranks, 1 - (1 - level) / 2, axis=0, method="higher")
    return lo, hi


def run(name, k, C, n, spread, reps, seed=0, level=0.95):
    mu = truth(seed, k, C, spread)
    T_true = mu.mean(axis=0)
    true_rank = 1 + (T_true[None, :] > T_true[:, None]).sum(axis=1)
    rng = np.random.default_rng(seed + 1)
    fresh = np.array([scores(draw(rng, mu, n)) for _ in range(1000)]) - T_true
    stats = {m: {"marginal": [], "joint": [], "size": []}
             for m in ("simultaneous", "per_system", "oracle", "percentile")}

    def record(method, lo, hi):
        ok = (lo <= true_rank) & (true_rank <= hi)
        stats[method]["marginal"].append(ok.mean())
        stats[method]["joint"].append(ok.all())
        stats[method]["size"].append((hi - lo + 1).mean())

    for rep in range(reps):
        data = draw(rng, mu, n)
        results = {c: {f"s{j}": X[:, j] for j in range(k)} for c, X in data.items()}
        for intervals in ("simultaneous", "per_system"):
            r = leaderboard(results, intervals=intervals, random_state=rep,
                            confidence_level=level)
            record(intervals, np.array([r.rank_low[f"s{j}"] for j in range(k)]),
                   np.array([r.rank_high[f"s{j}"] for j in range(k)]))
        T = scores(data)
        _, lo, hi = lb.rank_intervals(T, T + fresh, level, per_system=False)
        record("oracle", lo, hi)
        owner = np.arange(k)
        T_boot = lb.bootstrap_scores({c: X for c, X in data.items()}, owner, k, "mean", 1000,
                                     rng_from(rep))
        record("percentile", *percentile_intervals(T_boot, level))
    print(f"\n{name}: {reps} leaderboards, true ranks 1..{k}")
    print(f"{'method':<14}{'marginal':>10}{'joint':>8}{'mean size':>11}")
    for m, s in stats.items():
        print(f"{m:<14}{np.mean(s['marginal']):>10.4f}{np.mean(s['joint']):>8.3f}"
              f"{np.mean(s['size']):>11.2f}")
    return stats


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=200)
    args = parser.parse_args(argv)
    for i, scenario in enumerate(SCENARIOS):
        run(*scenario, reps=args.reps, seed=10 * i)


if __name__ == "__main__":
    main()
