"""Diversity measures on a diversity qrels of a million lines: sk_rankmetrics against
pyndeval (ndeval), and against the same run's nDCG in sk_rankmetrics.

Usage::

    python benchmarks/bench_diversity.py            # 1,000 topics: 1 M qrels lines, 1 M run lines
    python benchmarks/bench_diversity.py --quick    # 100 topics
    python benchmarks/bench_diversity.py --repeats 3

A seeded diversity qrels (``topic subtopic docno level``: 4 subtopics of 250
judged documents per topic, levels 0..2) and a run (1,000 documents per
topic, tie-free scores) are written to a temporary folder, with the plain
qrels of the same judgements (a document's largest level over its subtopics).
Timed, best of ``--repeats``:

1. sk_rankmetrics: ``evaluate_run(qrels_path, run_path, measures)`` with
   ndeval's default measures (ERR-IA, nERR-IA, alpha-DCG, alpha-nDCG, P-IA and
   subtopic recall at 5, 10 and 20; NRBP, nNRBP, MAP-IA), files read included.
2. pyndeval: ``pyndeval.ndeval(qrels, run, measures)`` on the same lines
   already in memory as tuples (its files are not read: its fastest case).
3. sk_rankmetrics: ``alpha_nDCG@20`` alone, and ``ndcg@20`` of the same run
   against the plain qrels, both from the files.

The per-query values of (1) and (2) must agree to 1e-9 (exit status 1
otherwise). Targets: (1) at least as fast as (2); ``alpha_nDCG@20`` within 3x
of ``ndcg@20``.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

NDEVAL = [
    f"{m}@{k}"
    for m in ("ERR-IA", "nERR-IA", "alpha-DCG", "alpha-nDCG", "P-IA", "strec")
    for k in (5, 10, 20)
] + ["NRBP", "nNRBP", "MAP-IA"]


def make_files(folder, n_topics, seed=0):
    rng = np.random.default_rng(seed)
    n_sub, n_judged, n_ranked, n_docs = 4, 250, 1000, 5000
    qrels, run, plain = [], [], []
    for t in range(n_topics):
        docs = rng.choice(n_docs, n_judged, replace=False)
        levels = rng.choice(3, size=(n_sub, n_judged), p=[0.7, 0.2, 0.1])
        for s in range(n_sub):
            qrels += [f"{t} {s + 1} doc{d} {lv}\n" for d, lv in zip(docs, levels[s])]
        plain += [f"{t} 0 doc{d} {lv}\n" for d, lv in zip(docs, levels.max(axis=0))]
        ranked = np.concatenate(
            (
                docs[: n_judged // 2],
                rng.choice(np.arange(n_docs, 4 * n_docs), n_ranked - n_judged // 2, replace=False),
            )
        )
        scores = rng.permutation(n_ranked) / 3.0
        run += [f"{t} Q0 doc{d} 0 {s:.6f} bench\n" for d, s in zip(ranked, scores)]
    paths = [os.path.join(folder, n) for n in ("div.qrels", "run.txt", "plain.qrels")]
    for p, lines in zip(paths, (qrels, run, plain)):
        with open(p, "w") as fh:
            fh.writelines(lines)
    return paths, len(qrels), len(run)


def best_of(fn, repeats):
    times, out = [], None
    for _ in range(repeats):
        t0 = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t0)
    return min(times), out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--repeats", type=int, default=1)
    args = ap.parse_args()
    from sk_rankmetrics import evaluate_run

    n_topics = 100 if args.quick else 1000
    with tempfile.TemporaryDirectory() as folder:
        (div, run, plain), n_q, n_r = make_files(folder, n_topics)
        print(
            f"{n_topics} topics: {n_q:,} diversity qrels lines, {n_r:,} run lines", file=sys.stderr
        )
        t_ours, ours = best_of(lambda: evaluate_run(div, run, NDEVAL), args.repeats)
        t_alpha, _ = best_of(lambda: evaluate_run(div, run, ["alpha_nDCG@20"]), args.repeats)
        t_ndcg, _ = best_of(lambda: evaluate_run(plain, run, ["ndcg@20"]), args.repeats)
        rows = [
            ("sk_rankmetrics, ndeval's 21 measures (files read)", t_ours),
            ("sk_rankmetrics, alpha_nDCG@20 (files read)", t_alpha),
            ("sk_rankmetrics, ndcg@20 of the same run (plain qrels, files read)", t_ndcg),
        ]
        status = 0
        try:
            import pyndeval
        except ImportError:
            pyndeval = None
            print("pyndeval not installed: no comparison with ndeval", file=sys.stderr)
        if pyndeval is not None:
            with open(div) as fh:
                q_lines = [tuple(line.split()) for line in fh]
            with open(run) as fh:
                r_lines = [line.split() for line in fh]
            q_tuples = [(a, b, c, int(d)) for a, b, c, d in q_lines]
            r_tuples = [(a, c, float(e)) for a, _, c, _, e, _ in r_lines]
            t_nd, want = best_of(lambda: pyndeval.ndeval(q_tuples, r_tuples, NDEVAL), args.repeats)
            rows.append(("pyndeval, the same 21 measures (lines in memory)", t_nd))
            worst = max(
                abs(want[str(q)][m] - ours.per_query[m][i])
                for i, q in enumerate(ours.query_ids)
                for m in NDEVAL
                if not np.isnan(want[str(q)][m])
            )
            print(f"largest per-query difference with pyndeval: {worst:.2e}", file=sys.stderr)
            status = int(worst > 1e-9)
        print("| case | seconds |\n| --- | ---: |")
        for name, t in rows:
            print(f"| {name} | {t:.3f} |")
        if pyndeval is not None:
            print(f"\npyndeval / sk_rankmetrics: {t_nd / t_ours:.2f}x (target >= 1)")
        print(f"alpha_nDCG@20 / ndcg@20: {t_alpha / t_ndcg:.2f}x (target <= 3)")
    return status


if __name__ == "__main__":
    sys.exit(main())
