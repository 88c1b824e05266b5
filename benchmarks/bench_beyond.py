"""Beyond-accuracy measures at recommender scale.

Usage::

    python benchmarks/bench_beyond.py            # 1,000,000 users (a) and ild (b)
    python benchmarks/bench_beyond.py --quick    # 100,000 users, ild on 20,000

(a) ``evaluate_ranked`` on a 1,000,000 x 20 array of integer item ids from a
    50,000-item catalogue (Zipf-like popularity), 5 held-out items per user,
    3,000,000 training interactions: ``coverage@20``, ``gini@20``,
    ``novelty@20``, ``aplt@20``, ``personalization@20`` and ``ndcg@20`` in one
    call (target: under 5 s), then the beyond-accuracy measures alone and
    ``ndcg@20`` alone, and the growth with users (k fixed) and with k
    (users fixed).
(b) ``ild@20`` on 100,000 users x 20 items with 64-dimensional features
    (target: seconds).

Every call is timed once after a warm-up of the same call (best of
``--repeats``); the table is printed in Markdown with the command line.
"""

from __future__ import annotations

import argparse
import datetime
import os
import platform
import sys
import time
import warnings

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import sk_rankmetrics as skr

N_ITEMS = 50_000


def data(n_users, k, seed=0):
    """Seeded lists (one row per user, distinct items), truth and training pairs."""
    rng = np.random.default_rng(seed)
    weight = 1.0 / np.arange(1, N_ITEMS + 1) ** 0.8
    weight /= weight.sum()
    # Distinct items per row: 40 draws from the popularity, the first 20
    # distinct ones kept (repeats of a sorted row moved last), in random order.
    rec = np.empty((n_users, k), dtype=np.int64)
    step = 200_000
    for lo in range(0, n_users, step):  # blocks of users bound the temporaries
        hi = min(n_users, lo + step)
        draw = np.sort(rng.choice(N_ITEMS, size=(hi - lo, 2 * k), p=weight), axis=1)
        repeat = np.zeros(draw.shape, dtype=bool)
        repeat[:, 1:] = draw[:, 1:] == draw[:, :-1]
        assert (~repeat).sum(axis=1).min() >= k
        order = np.argsort(repeat + rng.random(draw.shape), axis=1)[:, :k]
        rec[lo:hi] = np.take_along_axis(draw, order, 1)
    truth_u = np.repeat(np.arange(n_users), 5)
    truth_i = np.where(
        rng.random(n_users * 5) < 0.3,
        rec[:, :5].reshape(-1),
        rng.choice(N_ITEMS, size=n_users * 5, p=weight),
    )
    ok = np.ones(truth_u.shape[0], dtype=bool)
    key = truth_u * N_ITEMS + truth_i
    _, first = np.unique(key, return_index=True)
    ok[:] = False
    ok[first] = True
    n_train = 3 * n_users
    train_u = rng.integers(0, n_users, size=n_train)
    train_i = np.concatenate(
        (np.arange(N_ITEMS), rng.choice(N_ITEMS, size=n_train - N_ITEMS, p=weight))
    )
    return rec, (truth_u[ok], truth_i[ok]), (train_u, train_i)


def best(fn, repeats):
    out, times = None, []
    for _ in range(repeats):
        t = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t)
    return min(times), out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--repeats", type=int, default=2)
    args = ap.parse_args()
    n_users = 100_000 if args.quick else 1_000_000
    n_ild = 20_000 if args.quick else 100_000
    items = np.arange(N_ITEMS)
    rows = []
    warnings.simplefilter("ignore")

    t0 = time.perf_counter()
    rec, truth, train = data(n_users, 20)
    print(f"data: {time.perf_counter() - t0:.1f} s", file=sys.stderr)
    skr.evaluate_ranked(rec[:100], truth, ["coverage@20", "ndcg@20"], items=items)  # imports
    beyond = ["coverage@20", "gini@20", "novelty@20", "aplt@20", "personalization@20"]
    kw = {"items": items, "popularity": train}
    t, res = best(lambda: skr.evaluate_ranked(rec, truth, [*beyond, "ndcg@20"], **kw), args.repeats)
    rows.append((f"a1 {n_users:,} x 20: 5 beyond + ndcg@20", t, res))
    t, res = best(lambda: skr.evaluate_ranked(rec, None, beyond, **kw), args.repeats)
    rows.append((f"a2 {n_users:,} x 20: the 5 beyond alone", t, res))
    t, res = best(lambda: skr.evaluate_ranked(rec, truth, ["ndcg@20"]), args.repeats)
    rows.append((f"a3 {n_users:,} x 20: ndcg@20 alone", t, res))
    t, res = best(lambda: skr.evaluate_ranked(rec, None, ["personalization@20"]), args.repeats)
    rows.append((f"a4 {n_users:,} x 20: personalization@20 alone", t, res))
    half = n_users // 2
    t, res = best(lambda: skr.evaluate_ranked(rec[:half], None, beyond, **kw), args.repeats)
    rows.append((f"a5 {half:,} x 20: the 5 beyond (growth with users)", t, res))
    t, res = best(
        lambda: skr.evaluate_ranked(
            rec[:, :10], None, [b.replace("@20", "@10") for b in beyond], **kw
        ),
        args.repeats,
    )
    rows.append((f"a6 {n_users:,} x 10: the 5 beyond (growth with k)", t, res))

    rng = np.random.default_rng(1)
    feats = (items, rng.normal(size=(N_ITEMS, 64)))
    rec = data(n_ild, 20, seed=2)[0]
    t, res = best(
        lambda: skr.evaluate_ranked(rec, None, ["ild@20"], item_features=feats), args.repeats
    )
    rows.append((f"b1 {n_ild:,} x 20, 64-dim features: ild@20", t, res))

    now = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    print(
        f"`python benchmarks/bench_beyond.py{' --quick' if args.quick else ''}`, {now}; "
        f"{os.cpu_count()} CPUs, Python {platform.python_version()}, NumPy "
        f"{np.__version__}; best of {args.repeats}\n"
    )
    print("| case | time (s) | values |")
    print("|---|---:|---|")
    for name, t, res in rows:
        vals = ", ".join(f"{m}={v:.4f}" for m, v in res.mean.items())
        print(f"| {name} | {t:.2f} | {vals} |")


if __name__ == "__main__":
    main()
