"""A recommender scored on the whole catalogue from its factors: time and memory.

Usage::

    python benchmarks/bench_catalogue.py           # 100,000 users x 20,000 items x 64 dims
    python benchmarks/bench_catalogue.py --quick   # 20,000 users, no scaling table

Seeded float32 factors; 20 training items per user (excluded from the
ranking) and 5 held-out items per user (the truth). The case is
``evaluate_embeddings(U, V, test, ["recall@20", "ndcg@20"], exclude=train)``.

Printed, all measured in the same run:

- the time of the block matrix products alone (the floor: blocks of users
  written into a preallocated buffer, nothing else; the fastest of blocks of
  16, 32, 64 and 128 MiB and evaluate_embeddings' own, each with BLAS's own
  threads and with the engine's threads with a share of the cores each),
  the time of ``evaluate_embeddings``, and their ratio. Each is the best of three rounds,
  taken in turns, so that a load on the shared machine hits both;
- the peak memory ``evaluate_embeddings`` allocated beyond its inputs
  (``tracemalloc``, which NumPy reports its arrays to), at a quarter of the
  users and at all of them: it is bounded by the block size, not by the
  number of users;
- how the time grows with users and with items (a small table).

The full users x items score matrix of the main case would take
``n_users * n_items * 4`` bytes (8 GB); it is never built.
"""

from __future__ import annotations

import argparse
import os
import time
import tracemalloc
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import scipy.sparse as sp
from threadpoolctl import threadpool_limits

from sk_rankmetrics import evaluate_embeddings
from sk_rankmetrics._catalogue import layout as _layout
from sk_rankmetrics._utils.threads import N_THREADS

METRICS = ["recall@20", "ndcg@20"]


def make_case(n_users, n_items, dims, seed=0):
    rng = np.random.default_rng(seed)
    U = (rng.standard_normal((n_users, dims)) / np.sqrt(dims)).astype(np.float32)
    V = rng.standard_normal((n_items, dims)).astype(np.float32)

    def interactions(per_user):
        rows = np.repeat(np.arange(n_users), per_user)
        cols = rng.integers(0, n_items, size=n_users * per_user)
        m = sp.csr_array((np.ones(rows.shape[0]), (rows, cols)), shape=(n_users, n_items))
        m.sum_duplicates()
        m.data[:] = 1.0
        return m

    train = interactions(20)
    test = interactions(5)
    test = sp.csr_array(test - test.multiply(train))
    test.eliminate_zeros()
    return U, V, train, test


def _products(U, V, starts, step):
    buf = np.empty((step, V.shape[0]), dtype=V.dtype)
    for a in starts:
        b = min(a + step, U.shape[0])
        np.matmul(U[a:b], V.T, out=buf[: b - a])


#: Blocks of scores (MiB) the floor tries besides the one evaluate_embeddings uses.
FLOOR_BLOCKS = (16, 32, 64, 128)


def floor(U, V):
    """The block products alone, the fastest of several ways: blocks of
    16, 32, 64 and 128 MiB of scores and evaluate_embeddings' own, each either
    with BLAS's own threads over the blocks in turn or with the engine's
    threads over alternate blocks, a share of the cores each (as
    evaluate_embeddings runs them). One preallocated buffer per thread."""
    best = float("inf")
    sizes = sorted({mib << 20 for mib in FLOOR_BLOCKS} | {_layout.SCORE_BYTES})
    n = N_THREADS
    share = max(1, (os.cpu_count() or 1) // n)
    for size in sizes:
        step = max(1, size // (V.shape[0] * V.dtype.itemsize))
        starts = range(0, U.shape[0], step)
        start = time.perf_counter()
        _products(U, V, starts, step)
        best = min(best, time.perf_counter() - start)
        start = time.perf_counter()
        with threadpool_limits(limits=share, user_api="blas"), ThreadPoolExecutor(n) as pool:
            list(pool.map(lambda i, s=starts, k=step: _products(U, V, s[i::n], k), range(n)))
        best = min(best, time.perf_counter() - start)
    return best


def evaluate(U, V, train, test):
    start = time.perf_counter()
    res = evaluate_embeddings(U, V, test, METRICS, exclude=train, no_relevant="skip")
    return time.perf_counter() - start, res


def best_of(U, V, train, test, rounds=3):
    t_floor, t_eval, res = [], [], None
    for _ in range(rounds):
        t_floor.append(floor(U, V))
        t, res = evaluate(U, V, train, test)
        t_eval.append(t)
    return min(t_floor), min(t_eval), res


def peak_memory(U, V, train, test):
    tracemalloc.start()
    try:
        evaluate_embeddings(U, V, test, METRICS, exclude=train, no_relevant="skip")
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    return peak


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--users", type=int, default=100_000)
    parser.add_argument("--items", type=int, default=20_000)
    parser.add_argument("--dims", type=int, default=64)
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args()
    n_users = 20_000 if args.quick else args.users

    U, V, train, test = make_case(n_users, args.items, args.dims)
    print(
        f"{n_users:,} users x {args.items:,} items x {args.dims} dims, float32; "
        f"{train.nnz:,} training pairs excluded, {test.nnz:,} held-out pairs"
    )
    t_floor, t_eval, res = best_of(U, V, train, test)
    print(
        f"block products alone: {t_floor:.2f} s   evaluate_embeddings: {t_eval:.2f} s   "
        f"ratio {t_eval / t_floor:.2f}"
    )
    print("  " + ", ".join(f"{m} = {v:.5f}" for m, v in res.mean.items()))

    quarter = n_users // 4
    sub = U[:quarter], V, train[:quarter], test[:quarter]
    p_quarter = peak_memory(*sub)
    p_all = peak_memory(U, V, train, test)
    mib = 1 << 20
    print(
        f"peak extra memory: {p_quarter / mib:.0f} MiB at {quarter:,} users, "
        f"{p_all / mib:.0f} MiB at {n_users:,} users "
        f"(the full score matrix: {n_users * args.items * 4 / mib:,.0f} MiB)"
    )
    if args.quick:
        return

    print("\nscaling (time in s, best of 3; ratio to the block products)")
    print(f"{'users':>8} {'items':>7} {'products':>9} {'evaluate':>9} {'ratio':>6}")
    for nu, ni in [
        (12_500, 20_000),
        (25_000, 20_000),
        (50_000, 20_000),
        (25_000, 5_000),
        (25_000, 10_000),
    ]:
        case = make_case(nu, ni, args.dims, seed=1)
        tf, te, _ = best_of(*case)
        print(f"{nu:>8,} {ni:>7,} {tf:>9.2f} {te:>9.2f} {te / tf:>6.2f}")


if __name__ == "__main__":
    main()
