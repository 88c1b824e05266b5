"""Speed of ``sk_rankmetrics.fuse`` against ``ranx.fuse``, numbers checked equal.

Usage::

    python benchmarks/bench_fusion.py             # 3 runs x 7,000 queries x 1,000 documents
    python benchmarks/bench_fusion.py --quick     # 3 runs x 700 queries x 1,000 documents
    python benchmarks/bench_fusion.py --repeat 5  # best of 5 (default 3)
    python benchmarks/bench_fusion.py --queries 2000
    python benchmarks/bench_fusion.py --forms trecrun --repeat 3   # the full 7,000, one form

Three seeded runs of the same queries (MS MARCO dev's shape: 7,000 queries,
1,000 documents each, drawn from a pool of 3,000 per query so that documents
are missing across runs) are fused by ``rrf`` and by ``wsum`` after
``min-max``. Everything is timed in one process, the two sides in turns
(ranx, then each input form of ``fuse``, then ranx again, ...), and the best
of ``--repeat`` turns is kept, so that a machine shared with other work slows
both sides alike. ``fuse`` is timed on three input forms: ``TrecRun`` objects
(arrays), dicts ``{qid: {docid: score}}`` (its result a dict again) and run
files (paths: reading included). ranx is timed on its ``Run`` objects after a
warm-up call that compiles its numba functions, the construction of the
``Run`` objects from the dicts timed apart; the end-to-end columns add it
(dicts in, fused run out, on both sides), and from files add ranx's
``Run.from_file``. The fused scores must agree to 1e-9 (checked on every
query); the script prints Markdown tables and exits with status 1 when a check
fails.

``--forms`` keeps some input forms only (``--forms trecrun`` for the full 7,000
queries: every form with ranx's runs held at once needs more than 24 GB), and
the memory table gives the peak memory that one call of ``fuse`` adds (Python's
``tracemalloc``, which counts NumPy's arrays; measured apart from the timings).
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
import tracemalloc
import warnings

import numpy as np

import sk_rankmetrics as skr


def make_runs(n_queries, depth, pool, n_runs=3, seed=0):
    rng = np.random.default_rng(seed)
    runs = []
    for r in range(n_runs):
        docs = np.argsort(rng.random((n_queries, pool)), axis=1)[:, :depth]
        scores = -np.sort(-rng.normal(size=(n_queries, depth)) * (r + 1), axis=1)
        qid = np.repeat(np.array([f"q{i}" for i in range(n_queries)]), depth)
        docno = np.char.add("d", docs.reshape(-1).astype(str))
        runs.append(skr.TrecRun(qid, docno, scores.reshape(-1), tag=f"sys{r}"))
    return runs


def as_dict(run):
    out = {}
    q, d, s = run.qid.tolist(), run.docno.tolist(), run.score.tolist()
    for a, b, c in zip(q, d, s):
        out.setdefault(a, {})[b] = c
    return out


def timed(fn, *args, **kwargs):
    t0 = time.perf_counter()
    out = fn(*args, **kwargs)
    return out, time.perf_counter() - t0


def best_of(turns, jobs):
    """``{name: (last output, best time)}``: the jobs run in turns, ``turns`` times."""
    best = {}
    for _ in range(turns):
        for name, fn in jobs:
            out, t = timed(fn)
            best[name] = (out, min(t, best.get(name, (None, float("inf")))[1]))
    return best


def max_diff(mine, theirs):
    worst = 0.0
    for q, docs in theirs.items():
        got = mine[q]
        if set(got) != set(docs):
            return float("inf")
        worst = max(worst, max(abs(got[d] - v) for d, v in docs.items()))
    return worst


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--quick", action="store_true", help="700 queries instead of 7,000")
    p.add_argument("--repeat", type=int, default=3, help="turns; the best is kept")
    p.add_argument("--queries", type=int, default=None,
                   help="queries per run (the full size, with every input form and ranx's "
                        "runs held at once, needs more than 24 GB of memory)")
    p.add_argument("--no-memory", action="store_true",
                   help="skip the memory table (tracemalloc slows the dict form a lot)")
    p.add_argument("--forms", default="trecrun,dicts,files",
                   help="input forms of fuse, comma-separated among trecrun, dicts, files "
                        "(default: all three)")
    args = p.parse_args(argv)
    forms = [f.strip() for f in args.forms.split(",") if f.strip()]
    unknown = sorted(set(forms) - {"trecrun", "dicts", "files"})
    if unknown or not forms:
        p.error(f"--forms takes trecrun, dicts, files; got {args.forms!r}")
    n_q = args.queries or (700 if args.quick else 7000)
    try:
        import ranx
    except ImportError:
        print("ranx is not installed (pip install ranx): nothing to compare.")
        return 0
    print(f"making 3 runs x {n_q} queries x 1000 documents ...", file=sys.stderr)
    runs = make_runs(n_q, 1000, 3000)
    dicts = [as_dict(r) for r in runs]  # ranx's runs are made from these
    tmp = tempfile.mkdtemp()
    paths = []
    if "files" in forms:
        for i, r in enumerate(runs):
            path = os.path.join(tmp, f"run{i}.txt")
            skr.write_trec_run(path, r)
            paths.append(path)
    inputs = {"trecrun": runs, "dicts": dicts, "files": paths}
    configs = [("rrf", None, {"k": 60}), ("wsum", "min-max", {"weights": [0.2, 0.3, 0.5]})]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        small = [ranx.Run(as_dict(r)) for r in make_runs(5, 20, 40)]
        for method, norm, params in configs:
            ranx.fuse(small, method=method, norm=norm, params=params)  # numba's compilation
        build = best_of(args.repeat, [("dicts", lambda: [ranx.Run(d) for d in dicts])] + (
            [("files", lambda: [ranx.Run.from_file(p, kind="trec") for p in paths])]
            if "files" in forms else []))
    ranx_runs = build["dicts"][0]
    if "dicts" not in forms:
        del dicts[:]  # ranx holds its own copy; the dicts are not timed
    rows, failed = [], False
    for method, norm, params in configs:
        print(f"{method} ...", file=sys.stderr)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            got = best_of(args.repeat, [
                ("ranx", lambda m=method, n=norm, p=params: ranx.fuse(
                    ranx_runs, method=m, norm=n, params=dict(p)))] + [
                (form, lambda m=method, n=norm, p=params, x=inputs[form]: skr.fuse(
                    x, method=m, norm=n, **p)) for form in forms])
        theirs = {q: dict(v) for q, v in got["ranx"][0].to_dict().items()}
        diff = max(max_diff(got[form][0] if form == "dicts" else as_dict(got[form][0]), theirs)
                   for form in forms)
        failed |= not diff <= 1e-9
        rows.append((f"{method}" + (f" ({norm})" if norm else ""),
                     {k: v[1] for k, v in got.items()}, diff))
        del got, theirs
    peaks = {}
    if not args.no_memory:
        print("memory ...", file=sys.stderr)
        for method, norm, params in configs:
            for form in forms:
                tracemalloc.start()
                base = tracemalloc.get_traced_memory()[0]
                out = skr.fuse(inputs[form], method=method, norm=norm, **params)
                peaks[(method, form)] = tracemalloc.get_traced_memory()[1] - base
                tracemalloc.stop()
                del out
    with open("/proc/loadavg") if os.path.exists("/proc/loadavg") else open(os.devnull) as fh:
        load = " ".join(fh.read().split()[:3]) or "unknown"
    names = {"trecrun": "TrecRun", "dicts": "dicts", "files": "files"}
    print(f"\n3 runs x {n_q} queries x 1000 documents (seeded; pool of 3000 per query; "
          f"best of {args.repeat}, in turns; load average at the end: {load}; "
          f"{os.cpu_count()} CPUs)\n")
    print("| method | ranx.fuse | " + " | ".join(f"fuse, {names[f]}" for f in forms) + " | "
          + " | ".join(f"ranx / {names[f]}" for f in forms) + " | max abs diff |")
    print("| --- | ---: | " + " | ".join("---:" for _ in forms * 2) + " | ---: |")
    for name, t, diff in rows:
        print(f"| {name} | {t['ranx']:.2f} s | "
              + " | ".join(f"{t[f]:.2f} s" for f in forms) + " | "
              + " | ".join(f"{t['ranx'] / t[f]:.1f}x" for f in forms) + f" | {diff:.1e} |")
    b_d = build["dicts"][1]
    b_f = build["files"][1] if "files" in build else None
    ends = [f for f in ("dicts", "files") if f in forms]
    if ends:
        print("\nEnd to end (ranx's Run construction included: "
              + ", ".join(f"{(b_d if f == 'dicts' else b_f):.2f} s from the {f}" for f in ends)
              + ")\n")
        print("| method | " + " | ".join(f"ranx from {f} | fuse from {f} | ratio" for f in ends)
              + " |")
        print("| --- | " + " | ".join("---: | ---: | ---:" for _ in ends) + " |")
        for name, t, _ in rows:
            cells = []
            for f in ends:
                e = (b_d if f == "dicts" else b_f) + t["ranx"]
                cells.append(f"{e:.2f} s | {t[f]:.2f} s | {e / t[f]:.1f}x")
            print(f"| {name} | " + " | ".join(cells) + " |")
    if peaks:
        print("\nPeak memory added by one call of fuse (tracemalloc)\n")
        print("| method | " + " | ".join(names[f] for f in forms) + " |")
        print("| --- | " + " | ".join("---:" for _ in forms) + " |")
        for method, norm, _ in configs:
            name = f"{method}" + (f" ({norm})" if norm else "")
            print(f"| {name} | "
                  + " | ".join(f"{peaks[(method, f)] / 2**20:.0f} MiB" for f in forms) + " |")
    if failed:
        print("\nFAILED: the fused scores differ from ranx's by more than 1e-9.")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
