"""Reading and scoring TREC files: sk_rankmetrics against pytrec_eval and ir_measures.

Usage::

    python benchmarks/bench_files.py           # 5,000 topics x 1,000 documents (5 M lines)
    python benchmarks/bench_files.py --quick   # 1,000 topics x 1,000 documents, < 1 minute

A seeded run file and its qrels (20 judgements per topic) are written to a
temporary folder. Each tool then runs in a fresh subprocess that reads both
files and computes ``ndcg_cut_10 map P_10 recip_rank recall_100`` in the
trec_eval setting; the subprocess reports the wall time of reading plus
evaluating (imports excluded) and its peak resident memory
(``ru_maxrss``), also measured right after the imports so that the memory the
work added can be told apart from the libraries'. The means of every tool
must agree to 1e-9 (the script exits with status 1 otherwise). Extra rows: a
1 M-line run (time linear in lines) and long-format ``ndcg_score`` with
shuffled query ids against one ``np.argsort`` of them.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

MEASURES = ["ndcg_cut_10", "map", "P_10", "recip_rank", "recall_100"]
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

TOOLS = {
    "sk_rankmetrics": """
import sk_rankmetrics as skr
MEM0 = rss()
t = time.perf_counter()
res = skr.evaluate_run(skr.read_trec_qrels(Q), skr.read_trec_run(R), M, setting="trec_eval")
means = {m: res.mean[m] for m in M}
""",
    "pytrec_eval": """
import pytrec_eval
MEM0 = rss()
t = time.perf_counter()
with open(Q) as fh:
    qrels = pytrec_eval.parse_qrel(fh)
with open(R) as fh:
    run = pytrec_eval.parse_run(fh)
names = {"ndcg_cut_10": "ndcg_cut.10", "P_10": "P.10", "recall_100": "recall.100"}
out = pytrec_eval.RelevanceEvaluator(qrels, {names.get(m, m) for m in M}).evaluate(run)
means = {m: sum(v[m] for v in out.values()) / len(out) for m in M}
""",
    "ir_measures": """
import ir_measures
from ir_measures import AP, P, RR, R, nDCG
MEM0 = rss()
t = time.perf_counter()
ms = {"ndcg_cut_10": nDCG@10, "map": AP, "P_10": P@10, "recip_rank": RR, "recall_100": R@100}
agg = ir_measures.calc_aggregate(list(ms.values()), ir_measures.read_trec_qrels(Q),
                                 ir_measures.read_trec_run(R))
means = {m: agg[v] for m, v in ms.items()}
""",
}

HEAD = """
import json, resource, sys, time
sys.path.insert(0, {root!r})
Q, R, M = {q!r}, {r!r}, {m!r}
def rss():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
"""
TAIL = """
elapsed = time.perf_counter() - t
print(json.dumps({"time": elapsed, "mem0": MEM0, "peak": rss(), "means": means}))
"""


def make_files(folder, n_topics, n_docs=1000, n_judged=20, seed=0):
    """A run (scores descending per topic, some ties) and its qrels, written fast."""
    rng = np.random.default_rng(seed)
    n = n_topics * n_docs
    topic = np.repeat(np.arange(n_topics) + 1001, n_docs)
    # Distinct documents per topic: a random offset plus a stride.
    doc = (rng.integers(0, 3_000_000, n_topics).repeat(n_docs)
           + np.tile(np.arange(n_docs) * 2_999, n_topics)) % 3_000_000
    score = -np.sort(-np.round(rng.uniform(0, 50, (n_topics, n_docs)), 4), axis=1).ravel()
    rank = np.tile(np.arange(1, n_docs + 1), n_topics)
    run = os.path.join(folder, "run.txt")
    with open(run, "w") as fh:
        step = 500_000
        for a in range(0, n, step):
            s = slice(a, a + step)
            fh.write("".join(f"{t} Q0 D{d} {k} {v:.4f} run\n" for t, d, k, v in
                             zip(topic[s].tolist(), doc[s].tolist(), rank[s].tolist(),
                                 score[s].tolist())))
    qrels = os.path.join(folder, "qrels.txt")
    lines = []
    for t in range(n_topics):
        picks = rng.choice(200, n_judged // 2, replace=False)  # judged, in the top 200
        rows = doc[t * n_docs + picks].tolist() + rng.integers(3_000_000, 4_000_000,
                                                               n_judged // 2).tolist()
        lines += [f"{t + 1001} 0 D{d} {r}\n" for d, r in
                  zip(rows, rng.integers(0, 4, n_judged).tolist())]
    with open(qrels, "w") as fh:
        fh.write("".join(lines))
    return qrels, run


def run_tool(name, qrels, run):
    code = HEAD.format(root=ROOT, q=qrels, r=run, m=MEASURES) + TOOLS[name] + TAIL
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    if out.returncode != 0:
        return None, out.stderr.strip().splitlines()[-1]
    return json.loads(out.stdout.strip().splitlines()[-1]), None


def long_format_row(n_queries):
    import sk_rankmetrics as skr

    rng = np.random.default_rng(1)
    lens = rng.integers(10, 201, n_queries)
    qid = np.repeat(np.arange(n_queries), lens)
    perm = rng.permutation(qid.shape[0])
    qid = qid[perm]
    y = rng.integers(0, 5, qid.shape[0]).astype(float)
    s = rng.random(qid.shape[0])
    t = time.perf_counter()
    np.argsort(qid)
    floor = time.perf_counter() - t
    t = time.perf_counter()
    skr.ndcg_score(y, s, qid=qid, k=10)
    ours = time.perf_counter() - t
    return qid.shape[0], ours, floor


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--quick", action="store_true", help="1 M lines instead of 5 M")
    args = p.parse_args(argv)
    big = 1000 if args.quick else 5000
    failed = False
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for n_topics, tools in ((big, list(TOOLS)), (big // 5, ["sk_rankmetrics"])):
            folder = os.path.join(tmp, str(n_topics))
            os.mkdir(folder)
            print(f"writing {n_topics:,} topics x 1,000 documents ...", file=sys.stderr)
            qrels, run = make_files(folder, n_topics)
            size = os.path.getsize(run)
            results = {}
            for name in tools:
                print(f"  {name} ...", file=sys.stderr)
                results[name], err = run_tool(name, qrels, run)
                if err:
                    rows.append((f"{name}, {n_topics * 1000:,} lines", "—", "—", err))
            ref = results.get("pytrec_eval") or results["sk_rankmetrics"]
            for name, r in results.items():
                if r is None:
                    continue
                diff = max(abs(r["means"][m] - ref["means"][m]) for m in MEASURES)
                ok = diff <= 1e-9
                failed |= not ok
                speed = (f"{results['pytrec_eval']['time'] / r['time']:.1f}× pytrec_eval"
                         if results.get("pytrec_eval") else "")
                rows.append((f"{name}, {n_topics * 1000:,} lines ({size / 2**20:.0f} MiB)",
                             f"{r['time']:.2f} s",
                             f"{r['peak'] / 2**20:.0f} MiB (+{(r['peak'] - r['mem0']) / 2**20:.0f}"
                             f" MiB = {(r['peak'] - r['mem0']) / size:.2f}× the run file)",
                             f"{speed}; means agree to {diff:.1e}" + ("" if ok else " FAILED")))
        n, ours, floor = long_format_row(10_000 if args.quick else 100_000)
        rows.append((f"ndcg_score long format, shuffled qid, {n:,} rows", f"{ours:.2f} s", "",
                     f"{ours / floor:.1f}× one np.argsort(qid) ({floor:.2f} s)"))
    print("| case | wall time (read + evaluate) | peak memory (added by the work) | notes |")
    print("|---|---|---|---|")
    for r in rows:
        print("| " + " | ".join(r) + " |")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
