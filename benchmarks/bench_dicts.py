"""Scoring runs held in memory, as benchmark code holds them: dicts of dicts
and arrays, against pytrec_eval and ranx on the same dicts.

Usage::

    python benchmarks/bench_dicts.py               # 1,000 queries x 1,000 documents
    python benchmarks/bench_dicts.py --queries 3000 --repeat 5

BEIR, MTEB and most retrieval code hold a run as ``{qid: {docid: score}}``
and the qrels as ``{qid: {docid: relevance}}`` (pytrec_eval's form). The
script builds seeded dicts of that shape (document ids like ``"d1234"``,
each query's 1,000 documents drawn from a pool of 3,000 and given in score
order, as a retriever returns them; 3 judged documents per query, levels 1
and 2) and times, in one process, the tools in turns, best of ``--repeat``:

- ``evaluate_run(qrels_dict, run_dict, ...)`` (dicts in, the conversion
  timed);
- ``evaluate_run(qrels, TrecRun(qid, docno, score))`` from NumPy arrays,
  ranked as the dicts give them and shuffled (the order trec_eval reads is
  made by the call);
- pytrec_eval's ``RelevanceEvaluator(qrels_dict, measures).evaluate(run_dict)``
  (building the evaluator included);
- ranx's ``evaluate(Qrels(qrels_dict), Run(run_dict), ...)`` with the
  construction timed apart, after a warm-up on five of the queries that
  compiles its functions (Numba compiles again for each width of NumPy
  string: the warm-up's ids are as wide as the rest).

The measures are ``ndcg_cut_10 map recall_100`` in the trec_eval setting
(pytrec_eval ``ndcg_cut.10 map recall.100``; ranx ``ndcg@10 map
recall@100``); the means of every tool must agree to 1e-9 or the script
exits with status 1. A tool that is not installed gets a row saying so.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
import warnings

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

import sk_rankmetrics as skr  # noqa: E402

MEASURES = ["ndcg_cut_10", "map", "recall_100"]


def make_dicts(n_queries, depth=1000, pool=3000, seed=0):
    """``(qrels_dict, run_dict)`` of seeded queries ``"q0"``, ``"q1"``, ..."""
    rng = np.random.default_rng(seed)
    docs = np.argsort(rng.random((n_queries, pool)), axis=1)[:, :depth]
    scores = -np.sort(-rng.normal(size=(n_queries, depth)), axis=1)
    judged = rng.integers(0, pool, size=(n_queries, 3))
    levels = rng.integers(1, 3, size=(n_queries, 3))
    run = {f"q{i}": dict(zip([f"d{d}" for d in row], s))
           for i, (row, s) in enumerate(zip(docs.tolist(), scores.tolist()))}
    qrels = {f"q{i}": {f"d{d}": int(v) for d, v in zip(row, lv)}
             for i, (row, lv) in enumerate(zip(judged.tolist(), levels.tolist()))}
    return qrels, run


def arrays(d):
    q = np.repeat(np.array(list(d)), [len(v) for v in d.values()])
    docno = np.array([k for v in d.values() for k in v])
    values = np.fromiter((x for v in d.values() for x in v.values()), dtype=np.float64)
    return q, docno, values


def best_of(turns, jobs):
    best = {}
    for _ in range(turns):
        for name, fn in jobs.items():
            t0 = time.perf_counter()
            out = fn()
            t = time.perf_counter() - t0
            best[name] = (out, min(t, best.get(name, (None, float("inf")))[1]))
    return best


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--queries", type=int, default=1000)
    p.add_argument("--repeat", type=int, default=3, help="turns; the best is kept")
    args = p.parse_args(argv)
    print(f"building {args.queries} queries x 1000 documents ...", file=sys.stderr)
    qrels_d, run_d = make_dicts(args.queries)
    qrels = skr.TrecQrels(*arrays(qrels_d))
    q, docno, score = arrays(run_d)
    shuffle = np.random.default_rng(1).permutation(q.shape[0])
    ranked = skr.TrecRun(q, docno, score)
    shuffled = skr.TrecRun(q[shuffle], docno[shuffle], score[shuffle])

    def mine(qr, run):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            res = skr.evaluate_run(qr, run, MEASURES, setting="trec_eval")
        return {m: float(np.mean(res.per_query[m])) for m in MEASURES}

    jobs = {"sk_rankmetrics, dicts": lambda: mine(qrels_d, run_d),
            "sk_rankmetrics, arrays (ranked)": lambda: mine(qrels, ranked),
            "sk_rankmetrics, arrays (shuffled)": lambda: mine(qrels, shuffled)}
    missing = []
    try:
        import pytrec_eval

        def theirs():
            ev = pytrec_eval.RelevanceEvaluator(qrels_d, {"ndcg_cut.10", "map", "recall.100"})
            out = ev.evaluate(run_d)
            return {m: float(np.mean([v[m] for v in out.values()])) for m in MEASURES}

        jobs["pytrec_eval"] = theirs
    except ImportError:
        missing.append("pytrec_eval")
    build = None
    try:
        import ranx

        names = {"ndcg@10": "ndcg_cut_10", "map": "map", "recall@100": "recall_100"}
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            # Numba compiles for each width of NumPy string: the warm-up takes
            # the last queries (the widest query ids, document ids as wide).
            last = list(run_d)[-5:]
            ranx.evaluate(ranx.Qrels({k: qrels_d[k] for k in last}),
                          ranx.Run({k: run_d[k] for k in last}), list(names))
            build = best_of(args.repeat, {"ranx": lambda: (ranx.Qrels(qrels_d),
                                                           ranx.Run(run_d))})["ranx"]
        rq, rr = build[0]

        def ranx_eval():
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                out = ranx.evaluate(rq, rr, list(names))
            return {names[k]: float(v) for k, v in out.items()}

        jobs["ranx (evaluate)"] = ranx_eval
    except ImportError:
        missing.append("ranx")
    print("timing ...", file=sys.stderr)
    got = best_of(args.repeat, jobs)
    ref = got["sk_rankmetrics, dicts"][0]
    failed = False
    n = q.shape[0]
    with open("/proc/loadavg") if os.path.exists("/proc/loadavg") else open(os.devnull) as fh:
        load = " ".join(fh.read().split()[:3]) or "unknown"
    print(f"\n{args.queries:,} queries, {n:,} run entries, {len(qrels):,} judgements; "
          f"{', '.join(MEASURES)} (trec_eval setting); best of {args.repeat}, in turns; "
          f"load average at the end: {load}\n")
    print("| tool | time | per million entries | max abs diff of the means |")
    print("| --- | ---: | ---: | ---: |")
    for name, (out, t) in got.items():
        diff = max(abs(out[m] - ref[m]) for m in MEASURES)
        failed |= not diff <= 1e-9
        print(f"| {name} | {t:.3f} s | {t / n * 1e6:.3f} s | {diff:.1e} |")
    if build is not None:
        print(f"| ranx (Qrels and Run from the dicts) | {build[1]:.3f} s | "
              f"{build[1] / n * 1e6:.3f} s | |")
    for name in missing:
        print(f"| {name} | not installed | | |")
    if failed:
        print("\nFAILED: the means differ by more than 1e-9.")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
