"""Speed of ``sk_rankmetrics.rbo`` on two runs against a per-pair Python loop of
the depth-by-depth reference of the tests.

Usage::

    python benchmarks/bench_agreement.py                  # a million pairs of depth 100
    python benchmarks/bench_agreement.py --queries 100000 # a smaller size

Two runs rank 100 documents for each query out of a pool of 150 (about 67 in
common), sorted by score as run files are; the first run's scores are rounded
to one decimal (ties), the second's are not. The whole of both runs goes
through one call of ``rbo`` (``p=0.9``, ``ties="a"``, every score), timed
once. The reference (``tests/reference_rbo.py``: Python loops over depths and
items, by the definitions) is timed on a sample of the pairs, checked equal
to the vectorised values within 1e-9, and its time per pair multiplied by the
number of pairs. Prints one Markdown table and the process's peak memory.
Both runs take about 2.4 GB per million queries.
"""

from __future__ import annotations

import argparse
import os
import resource
import sys
import time

import numpy as np

import sk_rankmetrics as skr

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests"))
from reference_rbo import rbo_reference

DEPTH, POOL = 100, 150


def _runs(n_queries, seed=0, chunk=50_000):
    """Two runs as (qid, docno, score) arrays, each query's lines best first."""
    rng = np.random.default_rng(seed)
    n = n_queries * DEPTH
    qid = np.repeat(np.arange(n_queries, dtype=np.int64), DEPTH)
    docs = [np.empty(n, dtype=np.int64) for _ in range(2)]
    scores = [np.empty(n) for _ in range(2)]
    for start in range(0, n_queries, chunk):
        c = min(chunk, n_queries - start)
        sl = slice(start * DEPTH, (start + c) * DEPTH)
        base = (np.arange(start, start + c, dtype=np.int64) * 1000)[:, None]
        for k in range(2):
            picked = np.argsort(rng.random((c, POOL)), axis=1)[:, :DEPTH]
            docs[k][sl] = (base + picked).ravel()
            s = -np.sort(-rng.random((c, DEPTH)) * 10, axis=1)
            scores[k][sl] = (np.round(s, 1) if k == 0 else s).ravel()
    return [skr.TrecRun(qid, docs[k], scores[k], tag=f"run{k}") for k in range(2)]


def _groups(docno, score):
    """One query's ranking as tie groups (for the reference)."""
    groups, last = [], None
    for d, s in zip(docno.tolist(), score.tolist()):
        if s != last:
            groups.append([])
            last = s
        groups[-1].append(d)
    return groups


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--queries", type=int, default=1_000_000)
    parser.add_argument("--sample", type=int, default=200,
                        help="pairs the reference loop is timed on (default: 200)")
    args = parser.parse_args(argv)
    run_a, run_b = _runs(args.queries)

    t0 = time.perf_counter()
    res = skr.rbo(run_a, run_b, p=0.9, ties="a", score="all")
    fast = time.perf_counter() - t0
    assert res.query_ids.shape[0] == args.queries

    rng = np.random.default_rng(1)
    sample = np.sort(rng.choice(args.queries, size=min(args.sample, args.queries),
                                replace=False))
    pairs = []
    for q in sample.tolist():
        sl = slice(q * DEPTH, (q + 1) * DEPTH)
        pairs.append((_groups(run_a.docno[sl], run_a.score[sl]),
                      _groups(run_b.docno[sl], run_b.score[sl])))
    t0 = time.perf_counter()
    ref = [rbo_reference(x, y, 0.9, "a") for x, y in pairs]
    slow = (time.perf_counter() - t0) / len(pairs)
    worst = max(abs(r[s] - res.per_query[f"rbo_{s}"][q]) for r, q in zip(ref, sample.tolist())
                for s in ("ext", "min", "max", "res"))
    assert worst < 1e-9, worst

    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20  # KiB -> GiB (Linux)
    print("| pairs | depth | rbo, every score (s) | pairs/s | reference per pair (ms) | "
          "reference loop, extrapolated (s) | ratio |")
    print("|---:|---:|---:|---:|---:|---:|---:|")
    print(f"| {args.queries:,} | {DEPTH} | {fast:.1f} | {args.queries / fast:,.0f} | "
          f"{slow * 1e3:.1f} | {slow * args.queries:,.0f} | "
          f"{slow * args.queries / fast:,.0f}x |")
    print(f"\nlargest difference from the reference on {len(pairs)} pairs: {worst:.1e}; "
          f"peak memory of the process: {peak:.1f} GiB")


if __name__ == "__main__":
    main()
