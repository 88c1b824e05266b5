"""The Dask path against the in-memory engine, and out of core up to 1 billion pairs.

Usage::

    python benchmarks/bench_dask.py --part fits           # (a) data that fit in memory
    python benchmarks/bench_dask.py --part growth         # (c) 10 M to 300 M pairs
    python benchmarks/bench_dask.py --part scale --scale 1e9   # (b) 1 billion pairs
    python benchmarks/bench_dask.py --quick               # every part, small sizes

Each part starts a ``distributed.LocalCluster`` of 2 worker processes with one
thread each and prints one Markdown table on stdout (progress on stderr).
The workers run without distributed's default ``MALLOC_TRIM_THRESHOLD_=65536``
(see docs/scale.md: with it, every large temporary array of the kernels is a
fresh ``mmap`` and the workers score 2 to 3 times slower); row a1' of (a)
measures the default for comparison.

(a) **Data that fit**: the same seeded data scored in memory (NumPy arrays in
    this process) and by the Dask path on the cluster, the Dask collection
    persisted on the workers first, so that both sides start from data in
    memory. Cases: long format, 10.5 M query-document pairs (100,000 queries
    of 10 to 200 documents, as ``benchmarks/bench.py`` case 7) scored with
    ``ndcg@10`` and ``map`` in one ``evaluate``, (a1) partitioned by query
    (``qid`` the index, known divisions: no shuffle) and (a2) with the pairs
    of every query spread over all partitions (the hash shuffle on ``qid``);
    (a1c) a1 in 2 partitions of 5.2 M pairs (the size docs/scale.md advises),
    (a1b) 52.5 M pairs in 10 such partitions; (a3) a 100,000 x 200 matrix
    chunked by rows; (a4) ``evaluate_run`` on a 2 M-line run and its qrels as
    Dask data frames (the run and qrels are shuffled together on the query).
    Target for a1, a1c, a1b and a3: within 1.5x of the in-memory time, or
    faster.
    Means must agree to 1e-12.
(b) **Out of core**: ``--scale`` pairs (1e9 at full scale) generated lazily,
    partition by partition, on the workers (``dask.dataframe.from_map``; the
    data never exist whole anywhere), queries of 10 to 190 documents with
    graded relevance 0..4 and float scores, ``qid`` the index with known
    divisions, scored with ``ndcg@10`` and ``map``. Recorded: wall time,
    pairs per second, and the peak resident memory of each worker process
    (``ru_maxrss``, read on each worker at the end) and of this process.
(c) **Growth**: the same at 10 M, 30 M, 100 M and 300 M pairs (``--scales``),
    for the time per pair; the 1e9 row is (b)'s.

Partition size: ``--pairs-per-partition`` (default 5,000,000, about 85 MB of
generated data per partition).
"""

from __future__ import annotations

import argparse
import datetime
import math
import os
import platform
import resource
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import dask
import dask.array as da
import dask.dataframe as dd
import pandas as pd
from distributed import Client, LocalCluster, wait

import sk_rankmetrics as skr

METRICS = ["ndcg@10", "map"]
#: Query ids of partition i start at i * QSTRIDE.
QSTRIDE = 1 << 32
FAILED = []


def log(msg):
    print(msg, file=sys.stderr, flush=True)


#: The cluster whose memory ``best`` lets settle between repeats.
CLIENT = []


def settle():
    """Wait until the cluster holds no result of the previous repeat, so that
    the next one computes everything again (Dask reuses keys still in memory)."""
    if not CLIENT:
        return
    client, keep = CLIENT[-1]
    for _ in range(200):
        if len(client.who_has()) <= keep:
            return
        time.sleep(0.02)


def best(fn, repeats):
    times, out = [], None
    for _ in range(repeats):
        settle()
        t = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t)
    return min(times), out


def duel(dask_fn, memory_fn, repeats):
    """Best times of the Dask call and the in-memory call, repeats alternated so
    that both meet the same load of the (shared) machine."""
    td, tm, out_d, out_m = [], [], None, None
    for _ in range(repeats):
        t, out_m = best(memory_fn, 1)
        tm.append(t)
        t, out_d = best(dask_fn, 1)
        td.append(t)
    return min(td), out_d, min(tm), out_m


def hold(client):
    """Remember what the cluster holds now (the persisted inputs)."""
    CLIENT[:] = [(client, len(client.who_has()))]


def agree(what, a, b, tol=1e-12):
    diff = abs(a - b)
    ok = diff <= tol * max(1.0, abs(b))
    if not ok:
        FAILED.append(what)
    log(
        f"{what}: dask {a:.15f}, in memory {b:.15f}, |diff| = {diff:.2e} {'OK' if ok else 'FAILED'}"
    )
    return ok


def load():
    return "load average {:.2f} {:.2f} {:.2f}".format(*os.getloadavg())


# -- data -------------------------------------------------------------------------------


def query_lengths(i, pairs, lo, hi, seed):
    """The query lengths of partition ``i`` (about ``pairs`` pairs)."""
    rng = np.random.default_rng([seed, i, 0])
    return rng.integers(lo, hi + 1, max(1, round(pairs / ((lo + hi) / 2))))


def partition(i, pairs, lo=10, hi=190, seed=0):
    """Partition ``i``: whole queries (ids from i * QSTRIDE), the qid as the index."""
    lengths = query_lengths(i, pairs, lo, hi, seed)
    rng = np.random.default_rng([seed, i, 1])
    n = int(lengths.sum())
    qid = np.repeat(np.arange(lengths.size, dtype=np.int64) + i * QSTRIDE, lengths)
    y = (rng.integers(0, 5, n) * (rng.random(n) < 0.3)).astype(np.int8)
    s = rng.random(n) + 0.1 * y  # scores that know something of the relevance
    return pd.DataFrame({"y": y, "s": s}, index=pd.Index(qid, name="qid"))


def lazy_pairs(n_parts, pairs, lo=10, hi=190, seed=0):
    """A Dask frame of ``n_parts`` partitions made on the workers when computed."""
    last = query_lengths(n_parts - 1, pairs, lo, hi, seed).size - 1
    divisions = [i * QSTRIDE for i in range(n_parts)] + [(n_parts - 1) * QSTRIDE + last]
    meta = partition(0, 200, lo, hi, seed)[:0]
    return dd.from_map(
        partition,
        range(n_parts),
        pairs=pairs,
        lo=lo,
        hi=hi,
        seed=seed,
        divisions=divisions,
        meta=meta,
        enforce_metadata=False,
    )


def n_pairs(n_parts, pairs, lo=10, hi=190, seed=0):
    return sum(int(query_lengths(i, pairs, lo, hi, seed).sum()) for i in range(n_parts))


# -- the cluster ------------------------------------------------------------------------


def cluster(default_malloc=False):
    """2 worker processes x 1 thread; ``default_malloc`` keeps distributed's
    ``MALLOC_TRIM_THRESHOLD_`` for its workers."""
    env = (
        {}
        if default_malloc
        else {"distributed.nanny.pre-spawn-environ.MALLOC_TRIM_THRESHOLD_": None}
    )
    with dask.config.set(env):
        c = LocalCluster(
            n_workers=2,
            threads_per_worker=1,
            processes=True,
            dashboard_address=":0",
            memory_limit="10GiB",
            silence_logs=40,
        )
    return c, Client(c)


def _peak_rss():
    """Peak resident memory of this process since it started (VmHWM; ru_maxrss
    would include the parent's, which a spawned worker inherits)."""
    try:
        with open("/proc/self/status") as fh:
            for line in fh:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


def mib(x):
    return f"{x / 2**20:,.0f} MiB"


# -- (a) data that fit -------------------------------------------------------------------


def scattered(client, frame, n_parts):
    """``frame`` in ``n_parts`` row blocks held by the workers (sent directly,
    not through the task graph)."""
    bounds = np.linspace(0, len(frame), n_parts + 1).astype(int)
    futures = client.scatter([frame.iloc[a:b] for a, b in zip(bounds[:-1], bounds[1:])])
    return dd.from_delayed(futures, meta=frame.iloc[:0], verify_meta=False)


def scattered_matrices(client, arrays, n_parts):
    """Row blocks of ``arrays`` held by the workers, block i of every array on
    the same worker (as if each worker had read its own rows)."""
    workers = sorted(client.scheduler_info()["workers"])
    bounds = np.linspace(0, arrays[0].shape[0], n_parts + 1).astype(int)
    out = [[] for _ in arrays]
    for i, (a, b) in enumerate(zip(bounds[:-1], bounds[1:])):
        for blocks, x in zip(out, arrays):
            f = client.scatter(x[a:b], workers=[workers[i % len(workers)]])
            blocks.append(da.from_delayed(f, shape=(b - a, x.shape[1]), dtype=x.dtype))
    return [da.concatenate(blocks) for blocks in out]


def case_long(client, quick, repeats, rows):
    """(a1), (a1'), (a2): long format, partitioned by query, then in random order."""
    n_queries = 10_000 if quick else 100_000
    n_parts = 8
    lo, hi = 10, 200
    pairs = n_queries // n_parts * (lo + hi) // 2
    log("(a) generating the long-format data ...")
    frame = pd.concat([partition(i, pairs, lo, hi) for i in range(n_parts)])
    y, s, q = frame.y.to_numpy(), frame.s.to_numpy(), frame.index.to_numpy()
    n = len(y)
    ddf = lazy_pairs(n_parts, pairs, lo, hi).persist()  # the same pairs, made on the workers
    wait(ddf)
    hold(client)
    log(f"(a1) {n:,} pairs, {np.unique(q).size:,} queries; {load()}")
    t_dask, got, t_mem, mem = duel(
        lambda: skr.evaluate(ddf.y, ddf.s, METRICS, qid=ddf.index, no_relevant=0.0),
        lambda: skr.evaluate(y, s, METRICS, qid=q, no_relevant=0.0),
        repeats,
    )
    for m in METRICS:
        agree(f"(a1) {m}", got[m], mem[m])
    rows.append(
        (
            f"a1. evaluate(ndcg@10, map), long format, {n / 1e6:.1f} M pairs, "
            f"partitioned by query ({n_parts} partitions, no shuffle)",
            t_dask,
            t_mem,
            1.5,
        )
    )
    c2, client2 = cluster(default_malloc=True)
    try:
        with dask.config.set(scheduler=client2.get):
            ddf2 = lazy_pairs(n_parts, pairs, lo, hi).persist()
            wait(ddf2)
            hold(client2)
            t_def, _ = best(
                lambda: skr.evaluate(ddf2.y, ddf2.s, METRICS, qid=ddf2.index, no_relevant=0.0),
                repeats,
            )
    finally:
        client2.close()
        c2.close()
    rows.append(
        (
            "a1'. the same on workers with distributed's default MALLOC_TRIM_THRESHOLD_=65536",
            t_def,
            t_mem,
            None,
        )
    )
    perm = np.random.default_rng(1).permutation(n)
    shuffled = pd.DataFrame({"y": y[perm], "s": s[perm], "qid": q[perm]})
    dsh = scattered(client, shuffled, n_parts)
    hold(client)
    log(f"(a2) shuffled rows; {load()}")
    t_dask2, got2, t_mem2, mem2 = duel(
        lambda: skr.evaluate(dsh.y, dsh.s, METRICS, qid=dsh.qid, no_relevant=0.0),
        lambda: skr.evaluate(
            shuffled.y.to_numpy(),
            shuffled.s.to_numpy(),
            METRICS,
            qid=shuffled.qid.to_numpy(),
            no_relevant=0.0,
        ),
        repeats,
    )
    for m in METRICS:
        agree(f"(a2) {m}", got2[m], mem2[m])
    rows.append(
        (
            f"a2. the same pairs in random order ({n_parts} partitions, each query in "
            "all of them: hash shuffle on qid)",
            t_dask2,
            t_mem2,
            None,
        )
    )


def case_partition_size(client, quick, repeats, rows):
    """(a1c), (a1b): partitions of the documented size (about 5 M pairs)."""
    for label, n_queries, n_parts in (("a1c", 100_000, 2), ("a1b", 500_000, 10)):
        _partitioned(client, label, n_queries // (10 if quick else 1), n_parts, repeats, rows)


def _partitioned(client, label, n_queries, n_parts, repeats, rows):
    lo, hi = 10, 200
    pairs = n_queries // n_parts * (lo + hi) // 2
    frame = pd.concat([partition(i, pairs, lo, hi) for i in range(n_parts)])
    y, s, q = frame.y.to_numpy(), frame.s.to_numpy(), frame.index.to_numpy()
    del frame
    ddf = lazy_pairs(n_parts, pairs, lo, hi).persist()
    wait(ddf)
    hold(client)
    log(f"({label}) {len(y):,} pairs; {load()}")
    t_dask, got, t_mem, mem = duel(
        lambda: skr.evaluate(ddf.y, ddf.s, METRICS, qid=ddf.index, no_relevant=0.0),
        lambda: skr.evaluate(y, s, METRICS, qid=q, no_relevant=0.0),
        repeats,
    )
    for m in METRICS:
        agree(f"({label}) {m}", got[m], mem[m])
    rows.append(
        (
            f"{label}. as a1, {len(y) / 1e6:.1f} M pairs in {n_parts} partitions of "
            f"{pairs / 1e6:.1f} M",
            t_dask,
            t_mem,
            1.5,
        )
    )


def case_matrix(client, quick, repeats, rows):
    """(a3) a matrix chunked by rows."""
    n_rows = 20_000 if quick else 100_000
    rng = np.random.default_rng(2)
    Y = (rng.integers(0, 5, (n_rows, 200)) * (rng.random((n_rows, 200)) < 0.3)).astype(np.int8)
    S = rng.random((n_rows, 200))
    Yd, Sd = scattered_matrices(client, (Y, S), 8)
    hold(client)
    log(f"(a3) {n_rows:,} x 200 matrix; {load()}")
    t_dask, got, t_mem, mem = duel(
        lambda: skr.evaluate(Yd, Sd, METRICS, no_relevant=0.0),
        lambda: skr.evaluate(Y, S, METRICS, no_relevant=0.0),
        repeats,
    )
    for m in METRICS:
        agree(f"(a3) {m}", got[m], mem[m])
    rows.append(
        (f"a3. evaluate(ndcg@10, map), {n_rows:,} x 200 matrix (8 row chunks)", t_dask, t_mem, 1.5)
    )


def case_run(client, quick, repeats, rows):
    """(a4) evaluate_run: the run and the qrels shuffled together on the query."""
    n_topics = 2_000 if quick else 10_000
    rng = np.random.default_rng(3)
    qids = np.repeat(np.arange(n_topics), 200)
    run = pd.DataFrame(
        {"qid": qids, "docno": rng.integers(0, 10**6, qids.size), "score": rng.random(qids.size)}
    ).drop_duplicates(["qid", "docno"])
    judged = run.groupby("qid").head(20)
    qrels = pd.DataFrame(
        {"qid": judged.qid, "docno": judged.docno, "relevance": rng.integers(0, 3, len(judged))}
    )
    run = run.sample(frac=1.0, random_state=4)
    dq, dr = scattered(client, qrels, 4), scattered(client, run, 8)
    hold(client)
    log(f"(a4) run of {len(run):,} lines; {load()}")
    t_dask, got, t_mem, mem = duel(
        lambda: skr.evaluate_run(dq, dr, METRICS),
        lambda: skr.evaluate_run(qrels, run, METRICS),
        repeats,
    )
    for m in METRICS:
        agree(f"(a4) {m}", got.mean[m], mem.mean[m])
    rows.append(
        (
            f"a4. evaluate_run(ndcg@10, map), run of {len(run) / 1e6:.1f} M lines in "
            "random order (8 partitions; run and qrels shuffled on the query)",
            t_dask,
            t_mem,
            None,
        )
    )


def part_fits(client, quick, repeats):
    rows = []
    for case in (case_long, case_partition_size, case_matrix, case_run):
        case(client, quick, repeats, rows)
    print("| case | Dask, 2 workers | in memory | ratio (Dask / in memory) | target | met |")
    print("|---|---|---|---|---|---|")
    for name, td, tm, target in rows:
        ratio = td / tm
        met = "—" if target is None else ("yes" if ratio <= target else "no")
        tgt = "(informational)" if target is None else f"≤ {target}×"
        print(f"| {name} | {td:.3f} s | {tm:.3f} s | {ratio:.2f}× | {tgt} | {met} |")


# -- (b), (c) out of core ----------------------------------------------------------------


def score_lazily(client, n, per_part, seed=0):
    n_parts = max(1, math.ceil(n / per_part))
    pairs = n_pairs(n_parts, per_part, seed=seed)
    ddf = lazy_pairs(n_parts, per_part, seed=seed)
    before = load()
    t = time.perf_counter()
    res = skr.evaluate(ddf.y, ddf.s, METRICS, qid=ddf.index, no_relevant=0.0)
    elapsed = time.perf_counter() - t
    peaks = client.run(_peak_rss)
    return {
        "pairs": pairs,
        "partitions": n_parts,
        "time": elapsed,
        "res": res,
        "peaks": [peaks[w] for w in sorted(peaks)],
        "client": _peak_rss(),
        "load": f"{before} before, {load()} after",
    }


def scale_row(label, r):
    peaks = ", ".join(mib(p) for p in r["peaks"])
    means = ", ".join(f"{m} {v:.6f}" for m, v in r["res"].items())
    return (
        f"| {label} | {r['pairs']:,} | {r['partitions']} | {r['time']:.1f} s | "
        f"{r['pairs'] / r['time'] / 1e6:.1f} M | {peaks} | {mib(r['client'])} | {means} |"
    )


HEADER = (
    "| run | pairs | partitions | wall time | pairs per second | peak RSS per worker | "
    "peak RSS of this process | means |\n|---|---|---|---|---|---|---|---|"
)


def part_scale(n, per_part):
    c, client = cluster()
    try:
        log(f"(b) {n:,.0f} pairs, generated lazily; {load()}")
        r = score_lazily(client, n, per_part)
        print(HEADER)
        print(scale_row(f"b. {n:,.0f} pairs", r))
        print(f"\nMachine load: {r['load']}.")
    finally:
        client.close()
        c.close()


def part_growth(scales, per_part):
    print(HEADER)
    loads = []
    for n in scales:
        # A fresh cluster for each size: the peaks are that size's own.
        c, client = cluster()
        try:
            log(f"(c) {n:,.0f} pairs; {load()}")
            r = score_lazily(client, n, per_part)
            loads.append(f"{n:,.0f}: {r['load']}")
            print(scale_row(f"c. {n:,.0f} pairs", r), flush=True)
        finally:
            client.close()
            c.close()
    print("\nMachine load: " + "; ".join(loads) + ".")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--part", choices=["fits", "growth", "scale", "all"], default="all")
    ap.add_argument("--scale", type=float, default=1e9, help="pairs for --part scale")
    ap.add_argument(
        "--scales", default="1e7,3e7,1e8,3e8", help="comma-separated sizes for --part growth"
    )
    ap.add_argument("--pairs-per-partition", type=float, default=5e6)
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument(
        "--quick",
        action="store_true",
        help="small sizes: (a) 10,000 queries, (c) 1e6 and 3e6, (b) 1e7",
    )
    args = ap.parse_args(argv)
    per_part = int(args.pairs_per_partition)
    start = time.perf_counter()
    print(
        f"sk_rankmetrics {skr.__version__} Dask benchmark, "
        f"{datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d %H:%M} UTC; "
        f"{os.cpu_count()} CPUs, Python {platform.python_version()}, NumPy "
        f"{np.__version__}, Dask {dask.__version__}, pandas {pd.__version__}; "
        "LocalCluster of 2 worker processes x 1 thread\n"
    )
    if args.part in ("fits", "all"):
        c, client = cluster()
        try:
            part_fits(client, args.quick, args.repeats)
        finally:
            client.close()
            c.close()
        print()
    if args.part in ("growth", "all"):
        scales = [1e6, 3e6] if args.quick else [float(x) for x in args.scales.split(",")]
        part_growth(scales, min(per_part, int(1e6)) if args.quick else per_part)
        print()
    if args.part in ("scale", "all"):
        part_scale(
            1e7 if args.quick else args.scale, min(per_part, int(1e6)) if args.quick else per_part
        )
    log(f"total {time.perf_counter() - start:.0f} s")
    if FAILED:
        print(f"\nFAILED agreement checks: {', '.join(FAILED)}")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
