"""Speed of ``sk_rankmetrics.fuse`` against ``ranx.fuse``, numbers checked equal.

Usage::

    python benchmarks/bench_fusion.py           # 3 runs x 7,000 queries x 1,000 documents
    python benchmarks/bench_fusion.py --quick   # 3 runs x 700 queries x 1,000 documents

Three seeded runs of the same queries (MS MARCO dev's shape: 7,000 queries,
1,000 documents each, drawn from a pool of 3,000 per query so that documents
are missing across runs) are fused by ``rrf`` and by ``wsum`` after
``min-max``. Each side is timed once per method, in the same process, on the
same runs: ``fuse`` from ``TrecRun`` objects (arrays, as read from files) and
from dicts ``{qid: {docid: score}}`` (its result a dict again); ranx from its
``Run`` objects, after a warm-up call that compiles its numba functions, with
the construction of the ``Run`` objects from the dicts timed apart. The fused
scores must agree to 1e-9 (checked on every query); the script prints one
Markdown table and exits with status 1 when a check fails.
"""

from __future__ import annotations

import argparse
import sys
import time
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
    args = p.parse_args(argv)
    n_q = 700 if args.quick else 7000
    try:
        import ranx
    except ImportError:
        print("ranx is not installed (pip install ranx): nothing to compare.")
        return 0
    print(f"making 3 runs x {n_q} queries x 1000 documents ...", file=sys.stderr)
    runs = make_runs(n_q, 1000, 3000)
    dicts = [as_dict(r) for r in runs]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        small = [ranx.Run(as_dict(r)) for r in make_runs(5, 20, 40)]
        for method, norm, params in [("rrf", None, {"k": 60}),
                                     ("wsum", "min-max", {"weights": [0.2, 0.3, 0.5]})]:
            ranx.fuse(small, method=method, norm=norm, params=params)  # numba's compilation
        ranx_runs, t_build = timed(lambda: [ranx.Run(d) for d in dicts])
    rows, failed = [], False
    for method, norm, params in [("rrf", None, {"k": 60}),
                                 ("wsum", "min-max", {"weights": [0.2, 0.3, 0.5]})]:
        print(f"{method} ...", file=sys.stderr)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            theirs, t_ranx = timed(ranx.fuse, ranx_runs, method=method, norm=norm,
                                   params=dict(params))
            theirs = {q: dict(v) for q, v in theirs.to_dict().items()}
        _, t_trec = timed(skr.fuse, runs, method=method, norm=norm, **params)
        mine, t_dict = timed(skr.fuse, dicts, method=method, norm=norm, **params)
        diff = max_diff(mine, theirs)
        failed |= not diff <= 1e-9
        rows.append((f"{method}" + (f" ({norm})" if norm else ""), t_trec, t_dict, t_ranx,
                     t_build, diff))
    print(f"\n3 runs x {n_q} queries x 1000 documents (seeded; pool of 3000 per query)\n")
    print("| method | fuse, TrecRun | fuse, dicts | ranx.fuse | ratio (ranx / fuse, "
          "TrecRun) | ratio (ranx / fuse, dicts) | ranx Run construction | max |diff| |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    for name, a, b, c, build, diff in rows:
        print(f"| {name} | {a:.2f} s | {b:.2f} s | {c:.2f} s | {c / a:.1f}x | {c / b:.1f}x | "
              f"{build:.2f} s | {diff:.1e} |")
    if failed:
        print("\nFAILED: the fused scores differ from ranx's by more than 1e-9.")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
