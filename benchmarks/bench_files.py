"""Reading and scoring TREC files: sk_rankmetrics against pytrec_eval and ir_measures.

Usage::

    python benchmarks/bench_files.py              # 5,000 topics x 1,000 documents (5 M lines)
    python benchmarks/bench_files.py --quick      # 1,000 topics x 1,000 documents, 1 repeat
    python benchmarks/bench_files.py --repeats 5  # more rounds (the medians are reported)

A seeded run file and its qrels (20 judgements per topic) are written to a
temporary folder. Each tool then runs in a fresh subprocess that reads both
files and computes ``ndcg_cut_10 map P_10 recip_rank recall_100`` in the
trec_eval setting; the tools take turns, round after round, so that every
ratio compares times measured in the same period, and the table reports the
median of the rounds. Each subprocess reports:

- the wall time of reading plus evaluating (imports excluded), and its two
  parts;
- its peak resident memory (``VmHWM`` of ``/proc/self/status``: the peak of
  this process alone; ``ru_maxrss`` would count the parent's peak, which a
  forked child inherits), and the resident memory right after the imports,
  so that the memory the work added can be told from the libraries'.

sk_rankmetrics runs as with the plain install: pandas, pyarrow and polars
cannot be imported in its subprocess. The means of every tool must agree to
1e-9 (the script exits with status 1 otherwise).

Extra rows: every tool on a run of 1 M lines whose scores are written as
Python writes a float64 (17 significant digits, 17 to 19 bytes: runs
written from NumPy or PyTorch scores look so); sk_rankmetrics on runs of
200,000 and 1 M lines (time against
lines: the fixed overhead and the cost per line); a 10-line run (the fixed
overhead alone); pyarrow's CSV reader parsing the same run file (when
installed: what an optional pyarrow path would start from); and long-format
``ndcg_score`` with shuffled query ids against one ``np.argsort`` of them
(100,000 queries of 10 to 200 documents, 10.5 M rows, as in
``benchmarks/bench.py``).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

MEASURES = ["ndcg_cut_10", "map", "P_10", "recip_rank", "recall_100"]
MiB = 2.0**20

# Each snippet reads QRELS_PATH and RUN_PATH, sets MEM0 after its imports,
# T0 before reading, T1 after reading, and ``means`` {measure: mean}.
TOOLS = {
    "sk_rankmetrics": """
import sk_rankmetrics as skr
# The public names load their modules on first use: loaded here, with the imports.
skr.read_trec_qrels, skr.read_trec_run, skr.evaluate_run
MEM0 = rss()
T0 = time.perf_counter()
qrels, run = skr.read_trec_qrels(QRELS_PATH), skr.read_trec_run(RUN_PATH)
T1 = time.perf_counter()
res = skr.evaluate_run(qrels, run, MEASURES, setting="trec_eval")
means = {m: res.mean[m] for m in MEASURES}
assert not {"pandas", "pyarrow", "polars"} & set(sys.modules)
""",
    "pytrec_eval": """
import pytrec_eval
MEM0 = rss()
T0 = time.perf_counter()
with open(QRELS_PATH) as fh:
    qrels = pytrec_eval.parse_qrel(fh)
with open(RUN_PATH) as fh:
    run = pytrec_eval.parse_run(fh)
T1 = time.perf_counter()
names = {"ndcg_cut_10": "ndcg_cut.10", "P_10": "P.10", "recall_100": "recall.100"}
out = pytrec_eval.RelevanceEvaluator(qrels, {names.get(m, m) for m in MEASURES}).evaluate(run)
means = {m: sum(v[m] for v in out.values()) / len(out) for m in MEASURES}
""",
    "ir_measures": """
import ir_measures
from ir_measures import AP, RR, P, R, nDCG
MEM0 = rss()
T0 = time.perf_counter()
# ir_measures reads both files lazily, while it evaluates.
T1 = T0
chosen = {"ndcg_cut_10": nDCG@10, "map": AP, "P_10": P@10, "recip_rank": RR,
          "recall_100": R@100}
agg = ir_measures.calc_aggregate(list(chosen.values()), ir_measures.read_trec_qrels(QRELS_PATH),
                                 ir_measures.read_trec_run(RUN_PATH))
means = {m: agg[v] for m, v in chosen.items()}
""",
}

#: Blocks imports of the optional packages: the plain install.
PLAIN = """
import importlib.abc
class _Plain(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in ("pandas", "pyarrow", "polars"):
            raise ImportError(f"{name} is blocked: the plain install")
sys.meta_path.insert(0, _Plain())
"""

HEAD = """
import json, os, resource, sys, time
sys.path.insert(0, {root!r})
QRELS_PATH, RUN_PATH, MEASURES = {q!r}, {r!r}, {m!r}
def _status(field):
    try:
        with open("/proc/self/status") as fh:
            for line in fh:
                if line.startswith(field + ":"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
def rss():
    return _status("VmRSS")
"""
TAIL = """
T2 = time.perf_counter()
print(json.dumps({"time": T2 - T0, "read": T1 - T0, "evaluate": T2 - T1, "mem0": MEM0,
                  "peak": _status("VmHWM"), "means": means}))
"""


def make_files(folder, n_topics, n_docs=1000, n_judged=20, seed=0, full_scores=False):
    """A run (scores descending per topic, some ties) and its qrels, written fast.

    ``full_scores``: the scores written as Python writes a float (17
    significant digits, as runs written from NumPy or PyTorch scores are):
    the 4-decimal scores made float32, then scaled by ``1 + 1e-9`` (so that
    pytrec_eval, which holds scores in single precision, sees the order and
    the ties every other reader sees); otherwise with 4 decimals."""
    rng = np.random.default_rng(seed)
    n = n_topics * n_docs
    topic = np.repeat(np.arange(n_topics) + 1001, n_docs)
    # Distinct documents per topic: a random offset plus a stride.
    doc = (
        rng.integers(0, 3_000_000, n_topics).repeat(n_docs)
        + np.tile(np.arange(n_docs) * 2_999, n_topics)
    ) % 3_000_000
    score = -np.sort(-np.round(rng.uniform(0, 50, (n_topics, n_docs)), 4), axis=1).ravel()
    if full_scores:
        score = score.astype(np.float32).astype(np.float64) * (1 + 1e-9)
    fmt = "{} Q0 D{} {} {!r} run\n" if full_scores else "{} Q0 D{} {} {:.4f} run\n"
    rank = np.tile(np.arange(1, n_docs + 1), n_topics)
    run = os.path.join(folder, "run.txt")
    with open(run, "w") as fh:
        step = 500_000
        for a in range(0, n, step):
            s = slice(a, a + step)
            fh.write(
                "".join(
                    fmt.format(t, d, k, v)
                    for t, d, k, v in zip(
                        topic[s].tolist(), doc[s].tolist(), rank[s].tolist(), score[s].tolist()
                    )
                )
            )
    qrels = os.path.join(folder, "qrels.txt")
    lines = []
    for t in range(n_topics):
        picks = rng.choice(200, n_judged // 2, replace=False)  # judged, in the top 200
        rows = (
            doc[t * n_docs + picks].tolist()
            + rng.integers(3_000_000, 4_000_000, n_judged // 2).tolist()
        )
        lines += [
            f"{t + 1001} 0 D{d} {r}\n" for d, r in zip(rows, rng.integers(0, 4, n_judged).tolist())
        ]
    with open(qrels, "w") as fh:
        fh.write("".join(lines))
    return qrels, run


def run_tool(name, qrels, run):
    """One fresh subprocess: its report, or None and the last line of its error."""
    code = (
        HEAD.format(root=ROOT, q=qrels, r=run, m=MEASURES)
        + (PLAIN if name == "sk_rankmetrics" else "")
        + TOOLS[name]
        + TAIL
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    if out.returncode != 0:
        lines = out.stderr.strip().splitlines()
        return None, lines[-1] if lines else f"exit status {out.returncode}"
    return json.loads(out.stdout.strip().splitlines()[-1]), None


def rounds(tools, qrels, run, repeats):
    """Every tool ``repeats`` times, taking turns; the reports of each."""
    reports = {name: [] for name in tools}
    errors = {}
    for i in range(repeats):
        for name in tools[i % len(tools) :] + tools[: i % len(tools)]:
            if name in errors:
                continue
            print(f"  {name} (round {i + 1} of {repeats}) ...", file=sys.stderr)
            report, err = run_tool(name, qrels, run)
            if err:
                errors[name] = err
            else:
                reports[name].append(report)
    return reports, errors


def median(reports, key):
    return statistics.median(r[key] for r in reports)


def available(module):
    try:
        __import__(module)
    except ImportError:
        return False
    return True


def pyarrow_parse(run, repeats):
    """Median time of pyarrow.csv parsing the run file's qid, docno and score."""
    import pyarrow as pa
    import pyarrow.csv as pc

    times = []
    for _ in range(repeats):
        t = time.perf_counter()
        pc.read_csv(
            run,
            read_options=pc.ReadOptions(
                column_names=["qid", "q0", "docno", "rank", "score", "tag"]
            ),
            parse_options=pc.ParseOptions(delimiter=" ", quote_char=False),
            convert_options=pc.ConvertOptions(
                include_columns=["qid", "docno", "score"],
                column_types={"qid": pa.string(), "docno": pa.string(), "score": pa.float64()},
            ),
        )
        times.append(time.perf_counter() - t)
    return statistics.median(times)


def long_format_row(n_queries, repeats):
    import sk_rankmetrics as skr

    rng = np.random.default_rng(20240603)  # the long case of benchmarks/bench.py
    lens = rng.integers(10, 201, n_queries)
    qid = np.repeat(np.arange(n_queries), lens)
    n = qid.shape[0]
    y = rng.integers(0, 5, n).astype(float)
    s = rng.random(n)
    perm = rng.permutation(n)
    qs, ys, ss = qid[perm], y[perm], s[perm]
    skr.ndcg_score(y[:500], s[:500], qid=qid[:500], k=10)  # its modules loaded, untimed
    ours, floor, contiguous = [], [], []
    for _ in range(repeats):
        t = time.perf_counter()
        np.argsort(qs)
        floor.append(time.perf_counter() - t)
        t = time.perf_counter()
        shuffled = skr.ndcg_score(ys, ss, qid=qs, k=10)
        ours.append(time.perf_counter() - t)
        t = time.perf_counter()
        ordered = skr.ndcg_score(y, s, qid=qid, k=10)
        contiguous.append(time.perf_counter() - t)
    if abs(shuffled - ordered) > 1e-12:
        raise SystemExit(f"long format: shuffled {shuffled!r} != sorted {ordered!r}")
    return n, statistics.median(ours), statistics.median(floor), statistics.median(contiguous)


def fmt_mem(r, size):
    added = r["peak"] - r["mem0"]
    return f"{r['peak'] / MiB:.0f} MiB (+{added / MiB:.0f} MiB = {added / size:.2f}× the run file)"


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--quick", action="store_true", help="1 M lines instead of 5 M, 1 round")
    p.add_argument(
        "--repeats", type=int, default=None, help="rounds of every tool (default 3; 1 with --quick)"
    )
    args = p.parse_args(argv)
    repeats = args.repeats or (1 if args.quick else 3)
    big = 1000 if args.quick else 5000
    tools = [t for t in TOOLS if t == "sk_rankmetrics" or available(t)]
    missing = [t for t in TOOLS if t not in tools]
    load = os.getloadavg() if hasattr(os, "getloadavg") else None
    failed = False
    rows, notes = [], []
    with tempfile.TemporaryDirectory() as tmp:
        cases = [(big, tools, False), (1000, ["sk_rankmetrics"], False),
                 (200, ["sk_rankmetrics"], False), (1000, tools, True)]
        if args.quick:
            cases = [(big, tools, False), (200, ["sk_rankmetrics"], False), (1000, tools, True)]
        per_line = {}
        for n_topics, names, full in cases:
            folder = os.path.join(tmp, f"{n_topics}{'-full' if full else ''}")
            os.mkdir(folder)
            print(f"writing {n_topics:,} topics x 1,000 documents ...", file=sys.stderr)
            qrels, run = make_files(folder, n_topics, full_scores=full)
            what = f"{n_topics * 1000:,} lines" + (", 17-digit scores" if full else "")
            size = os.path.getsize(run)
            reports, errors = rounds(names, qrels, run, repeats)
            for name, err in errors.items():
                failed = True
                rows.append((f"{name}, {what}", "—", "—", "—", f"failed: {err}"))
            ref = reports.get("pytrec_eval") or reports["sk_rankmetrics"]
            base = median(reports["pytrec_eval"], "time") if reports.get("pytrec_eval") else None
            for name, reps in reports.items():
                if not reps:
                    continue
                diff = max(abs(r["means"][m] - ref[0]["means"][m]) for r in reps for m in MEASURES)
                ok = diff <= 1e-9
                failed |= not ok
                t = median(reps, "time")
                split = (
                    f"read {median(reps, 'read'):.2f} s + evaluate {median(reps, 'evaluate'):.2f} s"
                    if name != "ir_measures"
                    else "read while evaluating"
                )
                speed = f"**{base / t:.1f}×** pytrec_eval's speed; " if base else ""
                rows.append(
                    (
                        f"{name}, {what} ({size / MiB:.0f} MiB)",
                        f"{t:.2f} s",
                        split,
                        fmt_mem(max(reps, key=lambda r: r["peak"]), size),
                        f"{speed}means agree to {diff:.1e}" + ("" if ok else " **FAILED**"),
                    )
                )
                if name == "sk_rankmetrics" and not full:
                    per_line[n_topics * 1000] = t
            if n_topics == big and not full and available("pyarrow"):
                t = pyarrow_parse(run, repeats)
                rows.append(
                    (
                        f"pyarrow.csv.read_csv of the same run file (parse only, "
                        f"{n_topics * 1000:,} lines)",
                        f"{t:.2f} s",
                        "—",
                        "—",
                        "what an optional pyarrow path would start from; not used",
                    )
                )
        # The fixed overhead: a 10-line run.
        folder = os.path.join(tmp, "tiny")
        os.mkdir(folder)
        qrels, run = os.path.join(folder, "qrels.txt"), os.path.join(folder, "run.txt")
        with open(qrels, "w") as fh:
            fh.write("".join(f"1 0 D{i} {i % 2}\n" for i in range(10)))
        with open(run, "w") as fh:
            fh.write("".join(f"1 Q0 D{i} {i + 1} {10 - i} run\n" for i in range(10)))
        reports, _ = rounds(["sk_rankmetrics"], qrels, run, repeats)
        fixed = median(reports["sk_rankmetrics"], "time")
        rows.append(
            (
                "sk_rankmetrics, 10 lines (the fixed overhead)",
                f"{fixed:.3f} s",
                f"read {median(reports['sk_rankmetrics'], 'read'):.3f} s + evaluate "
                f"{median(reports['sk_rankmetrics'], 'evaluate'):.3f} s",
                "—",
                "",
            )
        )
        sizes = sorted(per_line)
        if len(sizes) >= 2:
            lo, hi = sizes[0], sizes[-1]
            slope = (per_line[hi] - per_line[lo]) / (hi - lo)
            notes.append(
                f"time against lines (sk_rankmetrics): {slope * 1e6 * 1e3:.0f} ms per "
                f"million lines from {lo:,} to {hi:,} lines; "
                + ", ".join(f"{n:,} lines: {per_line[n] / n * 1e9:.0f} ns per line" for n in sizes)
            )
    n, ours, floor, contiguous = long_format_row(10_000 if args.quick else 100_000, repeats)
    rows.append(
        (
            f"ndcg_score long format, shuffled qid, {n:,} rows",
            f"{ours:.2f} s",
            f"qid sorted: {contiguous:.2f} s",
            "—",
            f"**{ours / floor:.1f}×** one np.argsort(qid) ({floor:.2f} s)",
        )
    )
    import sk_rankmetrics

    head = (
        f"sk_rankmetrics {sk_rankmetrics.__version__}, NumPy {np.__version__}, Python "
        f"{sys.version.split()[0]}, {os.cpu_count()} CPUs; median of {repeats} "
        f"round(s), tools taking turns"
    )
    if load:
        head += f"; load average at the start {load[0]:.2f}, {load[1]:.2f}, {load[2]:.2f}"
    print(head)
    if missing:
        print(f"not installed, not measured: {', '.join(missing)}")
    print()
    print(
        "| case | wall time (read + evaluate) | parts | peak memory (added by the work) | notes |"
    )
    print("|---|---|---|---|---|")
    for r in rows:
        print("| " + " | ".join(r) + " |")
    for note in notes:
        print(f"\n- {note}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
