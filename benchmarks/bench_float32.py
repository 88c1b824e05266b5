"""float32 scores against the same scores in float64, on every input path.

Usage::

    python benchmarks/bench_float32.py            # best of 7 turns (embeddings: 3)
    python benchmarks/bench_float32.py --quick    # smaller data, best of 3

Every neural model and LightGBM score in float32; half the bytes should never
cost more time than float64. Each case times one call of ``evaluate`` (or
``evaluate_embeddings``) on float32 scores and on the same scores converted to
float64, the two in turns on one thread (``grid.one_thread``), and keeps each
one's best. Paths:

- **matrices**: 100,000 x 100 and 10,000 x 1,000, with and without a cut-off
  (the full-depth grid, ``bench.py --only grid --parts full``, times the rest);
- **long format**: 20,000 queries of 20-199 pairs, ``qid`` sorted and
  shuffled;
- **embeddings**: 20,000 users x 20,000 items from 64 factors, the
  whole catalogue ranked per user;
- **Dask**: a matrix in row chunks and the long format in partitions, on
  the synchronous scheduler.

Target: no case slower in float32 than in float64 by over 5 % (the noise of
timings in turns on a shared machine). The script prints a table and the
cases over, and exits with status 1 when there are any.
"""

from __future__ import annotations

import argparse
import os
import sys
import time

import numpy as np
import scipy.sparse as sp

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import grid

import sk_rankmetrics as skr

#: A float32 case slower than its float64 twin by more than this is reported.
SLACK = 1.05


def in_turns(calls, turns):
    """Best seconds of each call, the calls taking turns (order alternating)."""
    best = dict.fromkeys(calls, float("inf"))
    for f in calls.values():
        f()  # warm-up
    for t in range(turns):
        items = list(calls.items())
        for name, f in items if t % 2 else items[::-1]:
            t0 = time.perf_counter()
            f()
            best[name] = min(best[name], time.perf_counter() - t0)
    return best


def twins(s64, call, turns):
    """``(float64 best, float32 best)`` of ``call(scores)``."""
    s32 = s64.astype(np.float32)
    s64 = s32.astype(np.float64)  # the same values in both
    best = in_turns({"f64": lambda: call(s64), "f32": lambda: call(s32)}, turns)
    return best["f64"], best["f32"]


def matrix_cases(rng, quick, turns):
    shapes = [(10_000, 100), (2_000, 1_000)] if quick else [(100_000, 100), (10_000, 1_000)]
    for shape in shapes:
        base = rng.random(shape)
        for rel in ("graded 1..4 on 5 %", "dense graded 0..4"):
            yt = grid.relevance(grid.RELEVANCE[rel][0], shape, rng).astype(np.int8)
            for m in ("ndcg@10", "ndcg", "map"):
                t = twins(base, lambda s, m=m, yt=yt: skr.evaluate(yt, s, [m], no_relevant=0.0),
                          turns)
                yield "matrix", f"{shape[0]:,} x {shape[1]:,} | {rel}", m, t


def long_data(rng, quick):
    lengths = rng.integers(20, 200, 2_000 if quick else 20_000)
    qid = np.repeat(np.arange(lengths.shape[0]), lengths)
    return qid, rng.random(qid.shape[0])


def long_cases(rng, quick, turns):
    qid, base = long_data(rng, quick)
    n = qid.shape[0]
    for rel in ("graded 1..4 on 5 %", "dense graded 0..4"):
        yt = grid.relevance(grid.RELEVANCE[rel][0], n, rng).astype(np.float64)
        for order in ("sorted", "shuffled"):
            p = np.arange(n) if order == "sorted" else rng.permutation(n)
            q, y = qid[p], yt[p]
            for m in ("ndcg@10", "map@10", "ndcg", "map"):
                t = twins(base[p], lambda s, m=m, q=q, y=y: skr.evaluate(
                    y, s, [m], qid=q, no_relevant=0.0), turns)
                yield "long format", f"{qid[-1] + 1:,} queries | {rel} | qid {order}", m, t


def embedding_cases(rng, quick, turns):
    n_users, n_items = (4_000, 4_000) if quick else (20_000, 20_000)
    U = rng.standard_normal((n_users, 64))
    V = rng.standard_normal((n_items, 64))
    m_pairs = 10 * n_users
    truth = sp.csr_array((np.ones(m_pairs), (rng.integers(0, n_users, m_pairs),
                                             rng.integers(0, n_items, m_pairs))),
                         shape=(n_users, n_items))
    truth.data[:] = 1.0  # duplicates summed: binary again
    U32, V32 = U.astype(np.float32), V.astype(np.float32)
    U64, V64 = U32.astype(np.float64), V32.astype(np.float64)
    for m in ("ndcg@10", "recall@20"):
        best = in_turns({
            "f64": lambda m=m: skr.evaluate_embeddings(U64, V64, truth, [m], no_relevant=0.0),
            "f32": lambda m=m: skr.evaluate_embeddings(U32, V32, truth, [m], no_relevant=0.0),
        }, max(1, min(turns, 3)))
        yield "embeddings", f"{n_users:,} users x {n_items:,} items, 64 factors", m, (
            best["f64"], best["f32"])


def dask_cases(rng, quick, turns):
    try:
        import dask
        import dask.array as da
        import dask.dataframe as dd
        import pandas as pd
    except ImportError as exc:
        print(f"dask cases skipped ({exc})", file=sys.stderr)
        return
    with dask.config.set(scheduler="synchronous"):
        shape = (8_000, 200) if quick else (40_000, 200)
        yt = grid.relevance("graded", shape, rng).astype(np.int8)
        base = rng.random(shape)
        Y = da.from_array(yt, chunks=(shape[0] // 8, shape[1]))
        for m in ("ndcg@10", "ndcg"):
            t = twins(base, lambda s, m=m: skr.evaluate(
                Y, da.from_array(s, chunks=(shape[0] // 8, shape[1])), [m], no_relevant=0.0),
                turns)
            yield "Dask", f"matrix {shape[0]:,} x {shape[1]:,} in 8 row chunks", m, t
        qid, s = long_data(rng, quick)
        y = grid.relevance("graded", qid.shape[0], rng).astype(np.float64)
        s32 = s.astype(np.float32)
        # qid as a sorted index with known divisions; the frames made untimed.
        frames = {k: dd.from_pandas(pd.DataFrame({"y": y, "s": v}, index=qid),
                                    npartitions=8, sort=True)
                  for k, v in (("f64", s32.astype(np.float64)), ("f32", s32))}
        for m in ("ndcg@10", "map"):
            best = in_turns({k: lambda f=f, m=m: skr.evaluate(f.y, f.s, [m], qid=f.index,
                                                                no_relevant=0.0)
                             for k, f in frames.items()}, turns)
            yield "Dask", f"long format, {qid[-1] + 1:,} queries in 8 partitions", m, (
                best["f64"], best["f32"])


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="smaller data, 3 turns")
    parser.add_argument("--turns", type=int, default=None,
                        help="timings of each twin, in turns (default 7; --quick 3)")
    args = parser.parse_args(argv)
    turns = args.turns or (3 if args.quick else 7)
    rng = np.random.default_rng(20261202)
    rows, over = [], []
    print("| path | case | metric | float64 | float32 | float32 / float64 |")
    print("|---|---|---|---:|---:|---:|")
    with grid.one_thread():
        for cases in (matrix_cases, long_cases, embedding_cases, dask_cases):
            for path, case, metric, (t64, t32) in cases(rng, args.quick, turns):
                ratio = t32 / t64
                rows.append(ratio)
                flag = f" **over {SLACK:g}**" if ratio > SLACK else ""
                if flag:
                    over.append(f"{path} | {case} | {metric}: {ratio:.2f}")
                print(f"| {path} | {case} | {metric} | {t64 * 1e3:.1f} ms | {t32 * 1e3:.1f} ms "
                      f"| {ratio:.2f}{flag} |", flush=True)
    print()
    print(f"- float32 / float64: median {np.median(rows):.2f}, worst {max(rows):.2f}; "
          f"{len(over)} of {len(rows)} cases slower in float32 by over {SLACK - 1:.0%}")
    for line in over:
        print(f"- over: {line}")
    return 1 if over else 0


if __name__ == "__main__":
    sys.exit(main())
