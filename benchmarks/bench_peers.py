"""One table against every peer, measured in one run, on the same data.

Usage::

    python benchmarks/bench_peers.py                   # full sizes, 3 rounds
    python benchmarks/bench_peers.py --quick           # small sizes, 1 round
    python benchmarks/bench_peers.py --trec-eval PATH  # add trec_eval's C command
    python benchmarks/bench_peers.py --only files      # one section (matrices, files, lists)

Three sections, each on one seeded input that every tool reads:

- **matrices** (the scikit-learn convention): 10,000 x 1,000 float64 scores
  (``rng.random``: no ties in practice) and sparse graded relevance (2 % of
  the items, levels 1-3); ndcg (k=None), ndcg@10, map (average precision
  to full depth) and mrr. sk_rankmetrics (its public functions one metric at
  a time, and ``evaluate`` of the four), scikit-learn's ``ndcg_score`` (ndcg
  and ndcg@10), torchmetrics' class-based retrieval metrics on CPU tensors
  (``RetrievalNormalizedDCG``, ``RetrievalMAP``, ``RetrievalMRR`` with
  ``indexes``, the form its documentation gives for many queries; its
  functional forms score one query per call), and ranx (``Qrels`` and
  ``Run`` built from dicts, construction timed apart, evaluation after its
  Numba JIT has compiled on a small input).
- **files**: a run the size of MS MARCO's dev set, 6,980 queries x 1,000
  documents, with sparse qrels (one relevant passage per query, two for 7 %,
  as MS MARCO dev; 85 % of them retrieved); ``ndcg_cut_10 map recip_rank
  recall_1000`` in the trec_eval setting. sk_rankmetrics (``read_trec_qrels``
  and ``read_trec_run``, then ``evaluate_run``), pytrec_eval (parse, then
  evaluate), ir_measures (``iter_calc``: it reads the files while it
  evaluates), ranx (``from_file``, then ``evaluate``) and trec_eval's C
  command when its binary is given (``--trec-eval PATH`` or the environment
  variable ``TREC_EVAL``; build it from github.com/usnistgov/trec_eval).
- **lists**: recommender ID lists, 1,000,000 users x 20 recommended ids,
  truth of 1 to 5 ids per user (each recommended with probability 0.4);
  ndcg@20, recall@20 and mrr. sk_rankmetrics (``evaluate_ranked`` on a 2-D
  array of ids with the truth as ``(users, items)`` arrays, on pandas data
  frames in long format with the ids in pandas' text dtype, and on dicts),
  ranx (the same dicts) and torchmetrics (one flat tensor: the 20 ids of
  each user, scored 20 down to 1, then the truth ids not recommended, scored
  0, so that recall and the ideal DCG see every relevant id; ``top_k=20``),
  on the first 20,000 users only: its loop over queries in Python takes
  about a millisecond a user. Its ratio is to sk_rankmetrics on those users.

Each tool runs in a fresh subprocess, after its imports and after reading
the seeded input (``.npy`` files, or the dicts it needs built from them),
and the tools take turns, round after round; the table gives the median of
the rounds; a tool whose first process took over 20 s runs once (its row
says so), meant to keep the full run near ten minutes on 2 cores. Peak
memory is the subprocess's ``VmHWM`` (with the resident memory before the
timed work, so that what the work added shows); for trec_eval, the peak of
the child processes of a small Python process that starts it
(``RUSAGE_CHILDREN``). Every tool runs with its default threads.

Agreement: every tool's per-query values are compared with sk_rankmetrics'
to 1e-9 on the queries where the definitions agree (scikit-learn gives a
mean only: the means are compared); the script exits with status 1 on a
difference. Where definitions differ (ranx needs a relevant item in every
query; torchmetrics and ranx order tied scores by position, sk_rankmetrics
takes the expected value over tie orders; torchmetrics converts the scores
to float32 and computes in float32: 1e-5; trec_eval prints 4 decimals), the
table says so and the comparison runs on the queries the difference does not
touch, to the precision the tool gives.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import bench_files  # noqa: E402  (its subprocess memory probes)

MiB = 2.0**20
TOL = 1e-9
#: trec_eval prints 4 decimals: half a unit of the last one (and the rounding of that).
TOL_PRINTED = 5e-5 + 1e-9
#: Seconds: a tool whose first process takes longer runs in one round only (the
#: slow peers would otherwise take the full run well past ten minutes).
SLOW = 20.0
#: Users of the ID-list section that torchmetrics scores (the first ones): its loop
#: over queries in Python needs about a millisecond a user, a quarter of an hour for a
#: million; sk_rankmetrics is timed on the same users for its ratio.
PEER_USERS = {"torchmetrics": 20_000}
PEER_USERS_QUICK = {"torchmetrics": 5_000}
#: torchmetrics computes in float32 (it converts the scores with ``Tensor.float()``).
TOL_FLOAT32 = 1e-5

MATRIX_METRICS = ["ndcg", "ndcg@10", "map", "mrr"]
FILE_METRICS = ["ndcg_cut_10", "map", "recip_rank", "recall_1000"]
LIST_METRICS = ["ndcg@20", "recall@20", "mrr"]

# The subprocess: DATA (the input folder), OUT (where per-query values go), the
# memory probes of benchmarks/bench_files.py (_status(field), rss()), save(name,
# values) and report(...) are defined before each snippet.
HEAD = (
    """
import json, os, resource, sys, time
import numpy as np
sys.path.insert(0, {root!r})
DATA, OUT, TOOL = {data!r}, {out!r}, {tool!r}
"""
    + bench_files.HEAD[bench_files.HEAD.index("def _status") :]
    + """
def save(name, values):
    np.save(os.path.join(OUT, TOOL + "__" + name.replace("@", "_at_") + ".npy"),
            np.asarray(values, dtype=np.float64))
def ranx_warm_up(metrics):
    # Numba compiles on the first call, for the width of the doc-id strings
    # (ranx keeps them as NumPy '<U{{n}}'): a small input with ids of the data's width.
    import ranx
    with open(DATA + "/doc_id_width.txt") as fh:
        wq, wr = map(int, fh.read().split())
    x, y, z = (c * wq for c in "xyz")
    a, b, c = (c * wr for c in "xyz")
    ranx.evaluate(ranx.Qrels({{"a": {{x: 1, y: 2}}, "b": {{z: 1}}}}),
                  ranx.Run({{"a": {{a: 0.5, b: 0.2}}, "b": {{c: 0.1, a: 0.3}}}}),
                  metrics)
def ranx_save(run, names):
    # {{ranx's name: ours}}: ranx's per-query values, in the order of the query ids
    for name, ours in names.items():
        d = run.scores[name]
        save(ours, [d[q] for q in sorted(d, key=int)])
def time_torchmetrics(metrics, preds, indexes):
    # {{name: (metric, target)}}: each metric takes every query and computes, timed;
    # aggregation=identity gives the per-query values, saved.
    times = {{}}
    for name, (metric, target) in metrics.items():
        t = time.perf_counter()
        metric.update(preds, target, indexes=indexes)
        values = metric.compute()
        times[name] = time.perf_counter() - t
        save(name, values.numpy())
    return times
def report(times, mem0, peak=None, **extra):
    print(json.dumps({{"times": times, "mem0": mem0,
                      "peak": _status("VmHWM") if peak is None else peak, **extra}}))
"""
)

# ---------------------------------------------------------------- matrices
MATRIX = {
    "sk_rankmetrics": """
import sk_rankmetrics as skr
y, s = np.load(DATA + "/y_true.npy"), np.load(DATA + "/y_score.npy")
skr.evaluate(y[:5], s[:5], ["ndcg", "ndcg@10", "map", "mrr"], no_relevant=0.0)  # warm-up
mem0 = rss()
calls = {
    "ndcg": lambda: skr.ndcg_score(y, s, no_relevant=0.0),
    "ndcg@10": lambda: skr.ndcg_score(y, s, k=10, no_relevant=0.0),
    "map": lambda: skr.mean_average_precision_score(y, s, no_relevant=0.0),
    "mrr": lambda: skr.reciprocal_rank_score(y, s, no_relevant=0.0),
}
times, means = {}, {}
for name, call in calls.items():
    t = time.perf_counter(); means[name] = float(call()); times[name] = time.perf_counter() - t
t = time.perf_counter()
res = skr.evaluate(y, s, list(calls), per_row=True, no_relevant=0.0)
times["all"] = time.perf_counter() - t
for name in calls:
    save(name, res[name])
    assert abs(float(np.mean(res[name])) - means[name]) <= 1e-12, name
report(times, mem0)
""",
    "scikit-learn": """
from sklearn.metrics import ndcg_score
y, s = np.load(DATA + "/y_true.npy"), np.load(DATA + "/y_score.npy")
ndcg_score(y[:5], s[:5]), ndcg_score(y[:5], s[:5], k=10)  # warm-up
mem0 = rss()
times, means = {}, {}
for name, k in (("ndcg", None), ("ndcg@10", 10)):
    t = time.perf_counter(); means[name] = float(ndcg_score(y, s, k=k))
    times[name] = time.perf_counter() - t
report(times, mem0, means=means)
""",
    "torchmetrics": """
import torch
from torchmetrics.retrieval import RetrievalMAP, RetrievalMRR, RetrievalNormalizedDCG
y, s = np.load(DATA + "/y_true.npy"), np.load(DATA + "/y_score.npy")
n, m = y.shape
preds = torch.from_numpy(s.ravel())
target = torch.from_numpy(y.ravel().astype(np.int64))
binary = target > 0
indexes = torch.arange(n).repeat_interleave(m)
for make in (RetrievalNormalizedDCG, RetrievalMAP, RetrievalMRR):  # warm-up
    w = make(); w.update(preds[:5 * m], binary[:5 * m], indexes=indexes[:5 * m]); w.compute()
mem0 = rss()
def per_query(v, dim):
    return v
metrics = {
    "ndcg": (RetrievalNormalizedDCG(aggregation=per_query), target),
    "ndcg@10": (RetrievalNormalizedDCG(top_k=10, aggregation=per_query), target),
    "map": (RetrievalMAP(aggregation=per_query), binary),
    "mrr": (RetrievalMRR(aggregation=per_query), binary),
}
times = time_torchmetrics(metrics, preds, indexes)
times["all"] = sum(times.values())
report(times, mem0)
""",
    "ranx": """
import ranx
y, s = np.load(DATA + "/y_true.npy"), np.load(DATA + "/y_score.npy")
n, m = y.shape
docs = [str(j) for j in range(m)]
keep = np.flatnonzero((y > 0).any(axis=1))  # ranx: every query needs a relevant item
METRICS = ["ndcg", "ndcg@10", "map", "mrr"]
ranx_warm_up(METRICS)
qrels_dict = {str(i): {docs[j]: int(y[i, j]) for j in np.flatnonzero(y[i])} for i in keep}
run_dict = {str(i): dict(zip(docs, s[i].tolist())) for i in keep}
mem0 = rss()
times = {}
t = time.perf_counter()
qrels, run = ranx.Qrels(qrels_dict), ranx.Run(run_dict)
times["build"] = time.perf_counter() - t
for name in METRICS:
    t = time.perf_counter(); ranx.evaluate(qrels, run, name); times[name] = time.perf_counter() - t
t = time.perf_counter()
ranx.evaluate(qrels, run, METRICS)
times["all"] = time.perf_counter() - t
for name in METRICS:
    values = np.full(n, np.nan)
    for q, v in run.scores[name].items():
        values[int(q)] = v
    save(name, values)
report(times, mem0)
""",
}

# ------------------------------------------------------------------- files
FILES = {
    "sk_rankmetrics": """
import sk_rankmetrics as skr
M = ["ndcg_cut_10", "map", "recip_rank", "recall_1000"]
with open(DATA + "/warm_qrels.txt", "w") as fh:  # warm-up
    fh.write("1 0 a 1\\n")
with open(DATA + "/warm_run.txt", "w") as fh:
    fh.write("1 Q0 a 1 2.0 r\\n1 Q0 b 2 1.0 r\\n")
skr.evaluate_run(skr.read_trec_qrels(DATA + "/warm_qrels.txt"),
                 skr.read_trec_run(DATA + "/warm_run.txt"), M, setting="trec_eval")
mem0 = rss()
t = time.perf_counter()
qrels, run = skr.read_trec_qrels(DATA + "/qrels.txt"), skr.read_trec_run(DATA + "/run.txt")
t1 = time.perf_counter()
res = skr.evaluate_run(qrels, run, M, setting="trec_eval")
t2 = time.perf_counter()
order = np.argsort(np.asarray(res.query_ids).astype(np.int64))
for name in M:
    save(name, np.asarray(res.per_query[name])[order])
report({"read": t1 - t, "evaluate": t2 - t1, "total": t2 - t}, mem0)
""",
    "pytrec_eval": """
import pytrec_eval
M = ["ndcg_cut_10", "map", "recip_rank", "recall_1000"]
mem0 = rss()
t = time.perf_counter()
with open(DATA + "/qrels.txt") as fh:
    qrels = pytrec_eval.parse_qrel(fh)
with open(DATA + "/run.txt") as fh:
    run = pytrec_eval.parse_run(fh)
t1 = time.perf_counter()
out = pytrec_eval.RelevanceEvaluator(qrels, {"ndcg_cut.10", "map", "recip_rank",
                                             "recall.1000"}).evaluate(run)
t2 = time.perf_counter()
q = sorted(out, key=int)
for name in M:
    save(name, [out[i][name] for i in q])
report({"read": t1 - t, "evaluate": t2 - t1, "total": t2 - t}, mem0)
""",
    "ir_measures": """
import ir_measures
from ir_measures import AP, RR, R, nDCG
chosen = {nDCG@10: "ndcg_cut_10", AP: "map", RR: "recip_rank", R@1000: "recall_1000"}
mem0 = rss()
t = time.perf_counter()
rows = list(ir_measures.iter_calc(list(chosen), ir_measures.read_trec_qrels(DATA + "/qrels.txt"),
                                  ir_measures.read_trec_run(DATA + "/run.txt")))
t2 = time.perf_counter()
per = {name: {} for name in chosen.values()}
for r in rows:
    per[chosen[r.measure]][r.query_id] = r.value
for name, d in per.items():
    save(name, [d[i] for i in sorted(d, key=int)])
report({"total": t2 - t}, mem0)
""",
    "ranx": """
import ranx
M = {"ndcg@10": "ndcg_cut_10", "map": "map", "mrr": "recip_rank", "recall@1000": "recall_1000"}
ranx_warm_up(list(M))
with open(DATA + "/doc_id_width.txt") as fh:  # the readers compile on their first call too
    wq, wr = map(int, fh.read().split())
with open(DATA + "/ranx_qrels.txt", "w") as fh:
    fh.write(f"1 0 {'a' * wq} 1\\n")
with open(DATA + "/ranx_run.txt", "w") as fh:
    fh.write(f"1 Q0 {'a' * wr} 1 2.0 r\\n1 Q0 {'b' * wr} 2 1.0 r\\n")
ranx.evaluate(ranx.Qrels.from_file(DATA + "/ranx_qrels.txt", kind="trec"),
              ranx.Run.from_file(DATA + "/ranx_run.txt", kind="trec"), list(M))
mem0 = rss()
t = time.perf_counter()
qrels = ranx.Qrels.from_file(DATA + "/qrels.txt", kind="trec")
run = ranx.Run.from_file(DATA + "/run.txt", kind="trec")
t1 = time.perf_counter()
ranx.evaluate(qrels, run, list(M))
t2 = time.perf_counter()
ranx_save(run, M)
report({"read": t1 - t, "evaluate": t2 - t1, "total": t2 - t}, mem0)
""",
    "trec_eval": """
import subprocess
mem0 = 0
t = time.perf_counter()
out = subprocess.run([TREC_EVAL, "-q", "-m", "ndcg_cut.10", "-m", "map", "-m", "recip_rank",
                      "-m", "recall.1000", DATA + "/qrels.txt", DATA + "/run.txt"],
                     capture_output=True, text=True, check=True).stdout
t2 = time.perf_counter()
peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss * 1024
per = {}
for line in out.splitlines():
    name, q, v = line.split()
    if q != "all":
        per.setdefault(name, {})[q] = float(v)
for name, d in per.items():
    save(name, [d[i] for i in sorted(d, key=int)])
report({"total": t2 - t}, mem0, peak=peak)
""",
}

# ------------------------------------------------------------------- lists
LISTS = {
    "sk_rankmetrics (2-D array)": """
import sk_rankmetrics as skr
M = ["ndcg@20", "recall@20", "mrr"]
rec = np.load(DATA + "/rec.npy")
tu, ti = np.load(DATA + "/truth_users.npy"), np.load(DATA + "/truth_items.npy")
skr.evaluate_ranked(rec[:5], (tu[:5], ti[:5]), M)  # warm-up
mem0 = rss()
t = time.perf_counter()
res = skr.evaluate_ranked(rec, (tu, ti), M)
t2 = time.perf_counter()
times = {"evaluate": t2 - t}
for tool in ("ranx", "torchmetrics"):  # the users the slower peers score
    with open(DATA + f"/users_{tool}.txt") as fh:
        k = int(fh.read())
    t = time.perf_counter()
    skr.evaluate_ranked(rec[:k], (tu[tu < k], ti[tu < k]), M)
    times[f"evaluate {k}"] = time.perf_counter() - t
order = np.argsort(np.asarray(res.query_ids))
for name in M:
    save(name, np.asarray(res.per_query[name])[order])
report(times, mem0)
""",
    "sk_rankmetrics (data frame)": """
import pandas as pd
import sk_rankmetrics as skr
M = ["ndcg@20", "recall@20", "mrr"]
rec = np.load(DATA + "/rec.npy")
tu, ti = np.load(DATA + "/truth_users.npy"), np.load(DATA + "/truth_items.npy")
n, r = rec.shape
# Text ids in pandas' own text dtype (Arrow's strings from pandas 3), each
# user's rows together, best first; the truth as a frame too.
recs = pd.DataFrame({"user": pd.Series(np.repeat(np.arange(n), r)).astype(str),
                     "item": pd.Series(rec.reshape(-1)).astype(str),
                     "rank": np.tile(np.arange(1, r + 1), n)})
truth = pd.DataFrame({"user": pd.Series(tu).astype(str), "item": pd.Series(ti).astype(str)})
del rec, tu, ti
skr.evaluate_ranked(recs.head(40), truth.head(10), M)  # warm-up
mem0 = rss()
t = time.perf_counter()
res = skr.evaluate_ranked(recs, truth, M)
t2 = time.perf_counter()
order = np.argsort(np.asarray(res.query_ids).astype(np.int64))
for name in M:
    save(name, np.asarray(res.per_query[name])[order])
report({"evaluate": t2 - t}, mem0)
""",
    "sk_rankmetrics (dicts)": """
import sk_rankmetrics as skr
K = None
M = ["ndcg@20", "recall@20", "mrr"]
REC_DICT
skr.evaluate_ranked({"a": ["x", "y"]}, {"a": {"y"}}, M)  # warm-up
mem0 = rss()
t = time.perf_counter()
res = skr.evaluate_ranked(rec_dict, truth_dict, M)
t2 = time.perf_counter()
order = np.argsort(np.asarray(res.query_ids).astype(np.int64))
for name in M:
    save(name, np.asarray(res.per_query[name])[order])
report({"evaluate": t2 - t}, mem0)
""",
    "ranx": """
import ranx
M = {"ndcg@20": "ndcg@20", "recall@20": "recall@20", "mrr": "mrr"}
with open(DATA + "/users_ranx.txt") as fh:
    K = int(fh.read())
ranx_warm_up(list(M))
REC_DICT
# ranx reads a run as scores: the ids' ranks 1..20 become scores 20..1.
run_dict = {u: dict(zip(ids, range(20, 0, -1))) for u, ids in rec_dict.items()}
qrels_dict = {u: dict.fromkeys(ids, 1) for u, ids in truth_dict.items()}
del rec_dict, truth_dict
mem0 = rss()
t = time.perf_counter()
qrels, run = ranx.Qrels(qrels_dict), ranx.Run(run_dict)
t1 = time.perf_counter()
ranx.evaluate(qrels, run, list(M))
t2 = time.perf_counter()
ranx_save(run, M)
report({"build": t1 - t, "evaluate": t2 - t1}, mem0)
""",
    "torchmetrics": """
import torch
from torchmetrics.retrieval import RetrievalMRR, RetrievalNormalizedDCG, RetrievalRecall
with open(DATA + "/users_torchmetrics.txt") as fh:
    K = int(fh.read())
rec = np.load(DATA + "/rec.npy")[:K]
tu, ti = np.load(DATA + "/truth_users.npy"), np.load(DATA + "/truth_items.npy")
tu, ti = tu[tu < K], ti[tu < K]
n, r = rec.shape
# One flat list: each user's 20 ids (scores 20..1), then the truth ids not recommended (0).
rec_keys = np.repeat(np.arange(n), r) * (1 << 32) + rec.ravel()
truth_keys = tu * (1 << 32) + ti
hit = np.isin(rec_keys, truth_keys)
missed = ~np.isin(truth_keys, rec_keys)
users = np.concatenate([np.repeat(np.arange(n), r), tu[missed]])
preds = np.concatenate([np.tile(np.arange(r, 0, -1), n), np.zeros(missed.sum())])
target = np.concatenate([hit, np.ones(missed.sum(), bool)])
order = np.argsort(users, kind="stable")
indexes = torch.from_numpy(users[order])
preds = torch.from_numpy(preds[order].astype(np.float64))
target = torch.from_numpy(target[order])
M = {"ndcg@20": RetrievalNormalizedDCG, "recall@20": RetrievalRecall, "mrr": RetrievalMRR}
for cls in M.values():  # warm-up
    w = cls(top_k=20); w.update(preds[:100], target[:100], indexes=indexes[:100]); w.compute()
mem0 = rss()
metrics = {name: (cls(top_k=20, aggregation=lambda v, dim: v), target) for name, cls in M.items()}
times = time_torchmetrics(metrics, preds, indexes)
times["evaluate"] = sum(times.values())
report(times, mem0)
""",
}

REC_DICT = """
rec = np.load(DATA + "/rec.npy")
tu, ti = np.load(DATA + "/truth_users.npy"), np.load(DATA + "/truth_items.npy")
if K is not None:
    rec, tu, ti = rec[:K], tu[tu < K], ti[tu < K]
rec_dict = {str(u): [str(i) for i in row] for u, row in enumerate(rec.tolist())}
truth_dict = {}
for u, i in zip(tu.tolist(), ti.tolist()):
    truth_dict.setdefault(str(u), set()).add(str(i))
del rec, tu, ti
"""

MODULES = {
    "sk_rankmetrics": None,
    "scikit-learn": "sklearn",
    "torchmetrics": "torchmetrics",
    "ranx": "ranx",
    "pytrec_eval": "pytrec_eval",
    "ir_measures": "ir_measures",
}


def available(tool):
    module = "pandas" if tool.endswith("(data frame)") else MODULES.get(tool.split(" (")[0])
    if module is None:
        return True
    try:
        __import__(module)
    except ImportError:
        return False
    return True


# -------------------------------------------------------------------- data
def write_width(folder, qrels_width, run_width):
    """The longest doc id of the qrels and of the run, for ranx's warm-up."""
    with open(os.path.join(folder, "doc_id_width.txt"), "w") as fh:
        fh.write(f"{qrels_width} {run_width}")


def make_matrices(folder, n, m=1000, seed=35):
    rng = np.random.default_rng(seed)
    y = np.where(rng.random((n, m)) < 0.02, rng.integers(1, 4, (n, m)), 0).astype(np.int64)
    np.save(os.path.join(folder, "y_true.npy"), y)
    np.save(os.path.join(folder, "y_score.npy"), rng.random((n, m)))
    kept = (y > 0).any(axis=0)
    write_width(folder, len(str(np.flatnonzero(kept).max())), len(str(m - 1)))


def make_files(folder, n_queries, n_docs=1000, seed=35):
    """A run of distinct scores (descending) and MS MARCO dev-like qrels."""
    rng = np.random.default_rng(seed)
    qid = np.arange(n_queries) + 1_000_000
    base = rng.integers(0, 8_000_000, n_queries)
    doc = (base[:, None] + np.arange(n_docs) * 7_919) % 8_000_000  # distinct per query
    # Scores: running sums of steps of at least 0.001, written to 4 decimals: no ties.
    steps = rng.uniform(0.001, 0.05, (n_queries, n_docs))
    score = np.cumsum(steps[:, ::-1], axis=1)[:, ::-1]
    with open(os.path.join(folder, "run.txt"), "w") as fh:
        for a in range(0, n_queries, 500):
            fh.write(
                "".join(
                    f"{q} Q0 {d} {k} {v:.4f} bm25\n"
                    for q, drow, srow in zip(
                        qid[a : a + 500].tolist(),
                        doc[a : a + 500].tolist(),
                        score[a : a + 500].tolist(),
                    )
                    for k, (d, v) in enumerate(zip(drow, srow), 1)
                )
            )
    n_rel = 1 + (rng.random(n_queries) < 0.07)
    lines = []
    for i in range(n_queries):
        # Retrieved (85 %) at a rank drawn as BM25 ranks MS MARCO dev passages
        # (MRR about 0.2), or absent from the run.
        ranks = np.minimum(rng.geometric(0.08, n_rel[i]), n_docs) - 1
        ranks = np.unique(ranks)
        for j, rk in enumerate(ranks):
            retrieved = rng.random() < 0.85
            d = doc[i, rk] if retrieved else 9_000_000 + i * 4 + j
            lines.append(f"{qid[i]} 0 {d} 1\n")
    with open(os.path.join(folder, "qrels.txt"), "w") as fh:
        fh.write("".join(lines))
    write_width(folder, max(len(x.split()[2]) for x in lines), len(str(doc.max())))


def make_lists(folder, n_users, peer_users, r=20, n_items=1_000_000, seed=35):
    rng = np.random.default_rng(seed)
    rec = (rng.integers(0, n_items, n_users)[:, None] + np.arange(r) * 49_999) % n_items
    n_truth = rng.integers(1, 6, n_users)
    pos = np.argsort(rng.random((n_users, r)), axis=1)[:, :5]  # distinct positions
    recommended = rng.random((n_users, 5)) < 0.4
    other = n_items + np.arange(n_users)[:, None] * 5 + np.arange(5)  # never recommended
    truth = np.where(recommended, np.take_along_axis(rec, pos, axis=1), other)
    keep = np.arange(5) < n_truth[:, None]
    np.save(os.path.join(folder, "rec.npy"), rec)
    np.save(os.path.join(folder, "truth_users.npy"), np.repeat(np.arange(n_users), n_truth))
    np.save(os.path.join(folder, "truth_items.npy"), truth[keep])
    # ranx and torchmetrics score the first users only (see PEER_USERS).
    for tool in ("ranx", "torchmetrics"):
        k = min(peer_users.get(tool, n_users), n_users)
        with open(os.path.join(folder, f"users_{tool}.txt"), "w") as fh:
            fh.write(str(k))
    k = min(peer_users.get("ranx", n_users), n_users)
    write_width(
        folder, len(str(int(truth[keep][: n_truth[:k].sum()].max()))), len(str(int(rec[:k].max())))
    )


# ------------------------------------------------------------------ running
def run_tool(section, tool, data, out, trec_eval=None):
    code = HEAD.format(root=ROOT, data=data, out=out, tool=tool.replace(" ", "_"))
    if tool == "trec_eval":
        code += f"TREC_EVAL = {trec_eval!r}\n"
    code += section[tool].replace("REC_DICT", REC_DICT)
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    if proc.returncode != 0:
        lines = proc.stderr.strip().splitlines()
        return None, lines[-1] if lines else f"exit status {proc.returncode}"
    return json.loads(proc.stdout.strip().splitlines()[-1]), None


def rounds(section, tools, data, out, repeats, trec_eval=None):
    """Every tool ``repeats`` times, taking turns; a tool whose first process took
    longer than SLOW seconds runs once (the full run keeps to about ten minutes)."""
    reports = {t: [] for t in tools}
    errors, slow = {}, set()
    for i in range(repeats):
        for tool in tools[i % len(tools) :] + tools[: i % len(tools)]:
            if tool in errors or tool in slow:
                continue
            print(f"  {tool} (round {i + 1} of {repeats}) ...", file=sys.stderr)
            t = time.perf_counter()
            rep, err = run_tool(section, tool, data, out, trec_eval)
            if time.perf_counter() - t > SLOW:
                slow.add(tool)
            if err:
                errors[tool] = err
            else:
                reports[tool].append(rep)
    if tools[0] in errors:  # sk_rankmetrics: every ratio and check is to it
        raise SystemExit(f"{tools[0]} failed: {errors[tools[0]]}")
    return reports, errors


def med(reps, key):
    vals = [r["times"][key] for r in reps if key in r["times"]]
    return statistics.median(vals) if vals else None


def load(out, tool, metric):
    path = os.path.join(out, tool.replace(" ", "_") + "__" + metric.replace("@", "_at_") + ".npy")
    return np.load(path) if os.path.exists(path) else None


def agreement(out, tool, metrics, mask, subset_note, ref_tool="sk_rankmetrics", tol=TOL):
    """The largest per-query difference from sk_rankmetrics on ``mask``: (text, ok).

    A tool that scored the first queries only is compared on those."""
    worst = 0.0
    for m in metrics:
        ref, got = load(out, ref_tool, m), load(out, tool, m)
        if got is not None and ref is not None and got.shape < ref.shape:
            ref, mask = ref[: got.shape[0]], mask[: got.shape[0]]
        if got is None or ref is None or got.shape != ref.shape:
            return f"per-query values of {m} missing or of another length **FAILED**", False
        d = np.abs(got[mask] - ref[mask])
        if np.isnan(d).any():
            return f"{m}: a value missing on the compared queries **FAILED**", False
        worst = max(worst, float(d.max()) if d.size else 0.0)
    ok = worst <= tol
    where = f"all {mask.size:,} queries" if mask.all() else subset_note
    bound = "" if tol == TOL else f", tolerance {tol:.0e}"
    return f"agree to {worst:.1e} ({where}{bound})" + ("" if ok else " **FAILED**"), ok


def fmt_t(t, ref=None):
    if t is None:
        return "—"
    cell = f"{t:.3f} s" if t < 10 else f"{t:.1f} s"
    if ref:
        cell += f" ({t / ref:.1f}×)"
    return cell


def fmt_mem(reps):
    r = max(reps, key=lambda r: r["peak"])
    if r["mem0"]:
        return f"{r['peak'] / MiB:,.0f} MiB (+{(r['peak'] - r['mem0']) / MiB:,.0f})"
    return f"{r['peak'] / MiB:,.0f} MiB"


# ---------------------------------------------------------------- sections
def section_matrices(tmp, n, repeats, failed):
    folder, out = workspace(tmp, "matrices")
    print(f"matrices: {n:,} x 1,000 ...", file=sys.stderr)
    make_matrices(folder, n)
    y = np.load(os.path.join(folder, "y_true.npy"))
    s = np.load(os.path.join(folder, "y_score.npy"))
    has_rel = (y > 0).any(axis=1)
    no_ties = ~(np.diff(np.sort(s, axis=1), axis=1) == 0).any(axis=1)
    # torchmetrics ranks float32 copies of the scores: more ties.
    no_ties32 = ~(np.diff(np.sort(s.astype(np.float32), axis=1), axis=1) == 0).any(axis=1)
    del y, s
    tools = [t for t in MATRIX if available(t)]
    missing = [t for t in MATRIX if t not in tools]
    reports, errors = rounds(MATRIX, tools, folder, out, repeats)
    ref = reports["sk_rankmetrics"]
    rows = []
    base = {k: med(ref, k) for k in [*MATRIX_METRICS, "all"]}
    notes = {
        "sk_rankmetrics": "the metric functions one by one; all four: `evaluate`",
        "scikit-learn": "`ndcg_score` (k=None, k=10); ties averaged, as sk_rankmetrics",
        "torchmetrics": "class-based, `indexes`; scores and values in float32 (ties in "
        "float32 in list order); map and mrr on `target > 0` (binary only); all four: the sum",
        "ranx": "queries need a relevant item; ties in list order; all four: one `evaluate` call",
    }
    for tool in tools:
        reps = reports[tool]
        if not reps:
            rows.append([tool] + ["—"] * 8 + [f"failed: {errors[tool]}"])
            failed.append(tool)
            continue
        if tool == "scikit-learn":
            diffs = []
            for m in ("ndcg", "ndcg@10"):
                ours = float(np.mean(load(out, "sk_rankmetrics", m)))
                diffs += [abs(r["means"][m] - ours) for r in reps]
            worst = max(diffs)
            ok = worst <= TOL
            agree = f"means agree to {worst:.1e}" + ("" if ok else " **FAILED**")
        elif tool == "sk_rankmetrics":
            agree, ok = "the reference", True
        elif tool == "torchmetrics":
            mask = no_ties32
            agree, ok = agreement(
                out,
                tool,
                MATRIX_METRICS,
                mask,
                f"{mask.sum():,} of {mask.size:,} queries: no scores tied in float32",
                tol=TOL_FLOAT32,
            )
        else:
            mask = has_rel & no_ties
            agree, ok = agreement(
                out,
                tool,
                MATRIX_METRICS,
                mask,
                f"{mask.sum():,} of {mask.size:,} queries: a relevant item, no tied scores",
            )
        if not ok:
            failed.append(tool)
        cells = [
            fmt_t(med(reps, m), None if tool == "sk_rankmetrics" else base[m])
            for m in [*MATRIX_METRICS, "all"]
        ]
        rows.append(
            [
                label(tool, reps, repeats),
                fmt_t(med(reps, "build")),
                *cells,
                fmt_mem(reps),
                agree,
                notes[tool],
            ]
        )
    caption = (
        f"**Matrices**: {n:,} × 1,000 float64 scores, graded relevance on 2 % "
        f"(levels 1-3); {int((~has_rel).sum())} rows without a relevant item, "
        f"{int((~no_ties).sum())} with tied scores. Times with (× sk_rankmetrics' time)."
    )
    columns = ["build", "ndcg", "ndcg@10", "map", "mrr", "all four"]
    return markdown(caption, columns, rows, missing)


def section_files(tmp, n, repeats, failed, trec_eval):
    folder, out = workspace(tmp, "files")
    print(f"files: {n:,} queries x 1,000 documents ...", file=sys.stderr)
    make_files(folder, n)
    size = os.path.getsize(os.path.join(folder, "run.txt"))
    tools = [t for t in FILES if t != "trec_eval" and available(t)]
    missing = [t for t in FILES if t != "trec_eval" and t not in tools]
    if trec_eval:
        tools.append("trec_eval")
    reports, errors = rounds(FILES, tools, folder, out, repeats, trec_eval)
    ref = reports["sk_rankmetrics"]
    base = med(ref, "total")
    n_q = len(load(out, "sk_rankmetrics", "map"))
    mask = np.ones(n_q, bool)
    notes = {
        "sk_rankmetrics": '`read_trec_qrels`, `read_trec_run`, `evaluate_run(setting="trec_eval")`',
        "pytrec_eval": "`parse_qrel`, `parse_run`, `RelevanceEvaluator.evaluate`",
        "ir_measures": "`iter_calc` (reads the files while it evaluates)",
        "ranx": "`Qrels.from_file`, `Run.from_file`, `evaluate` (after its JIT warm-up)",
        "trec_eval": "the C command, `-q` (per-query lines parsed after the timing); "
        "it prints 4 decimals",
    }
    rows = []
    for tool in tools:
        reps = reports[tool]
        if not reps:
            rows.append([tool] + ["—"] * 5 + [f"failed: {errors[tool]}", ""])
            failed.append(tool)
            continue
        if tool == "sk_rankmetrics":
            agree, ok = "the reference", True
        else:
            agree, ok = agreement(
                out, tool, FILE_METRICS, mask, "", tol=TOL_PRINTED if tool == "trec_eval" else TOL
            )
        if not ok:
            failed.append(tool)
        rows.append(
            [
                label(tool, reps, repeats),
                fmt_t(med(reps, "read")),
                fmt_t(med(reps, "evaluate")),
                fmt_t(med(reps, "total")),
                "1×" if tool == "sk_rankmetrics" else f"{med(reps, 'total') / base:.1f}×",
                fmt_mem(reps),
                agree,
                notes[tool],
            ]
        )
    if not trec_eval:
        rows.append(
            ["trec_eval"] + ["—"] * 6 + ["binary not given (`--trec-eval PATH` or `TREC_EVAL`)"]
        )
    caption = (
        f"**TREC files**: {n:,} queries × 1,000 documents ({n * 1000:,} lines, "
        f"{size / MiB:,.0f} MiB), MS MARCO dev-like qrels; ndcg_cut_10, map, recip_rank, "
        "recall_1000 in the trec_eval setting; no tied scores."
    )
    return markdown(caption, ["read", "evaluate", "total", "× sk_rankmetrics"], rows, missing)


def section_lists(tmp, n, repeats, failed, peer_users):
    folder, out = workspace(tmp, "lists")
    print(f"lists: {n:,} users x 20 ids ...", file=sys.stderr)
    make_lists(folder, n, peer_users)
    tools = [t for t in LISTS if available(t)]
    missing = [t for t in LISTS if t not in tools]
    reports, errors = rounds(LISTS, tools, folder, out, repeats)
    ref_tool = "sk_rankmetrics (2-D array)"
    ref = reports[ref_tool]
    mask = np.ones(n, bool)
    notes = {
        ref_tool: "`evaluate_ranked(ids, (users, items), ...)`",
        "sk_rankmetrics (data frame)": "`evaluate_ranked(frame, truth_frame, ...)`: pandas "
        "frames of (user, item, rank) and (user, item), ids in pandas' text dtype",
        "sk_rankmetrics (dicts)": "`evaluate_ranked({user: [ids]}, {user: {ids}}, ...)`",
        "ranx": "`Qrels`/`Run` from the same dicts (ranks 1..20 as scores 20..1); "
        "build apart from `evaluate`",
        "torchmetrics": "class-based, `indexes`, `top_k=20`; truth ids not recommended "
        "appended with score 0; the three one after the other; values in float32",
    }
    rows = []
    for tool in tools:
        users = min(peer_users.get(tool, n), n)
        reps = reports[tool]
        if not reps:
            rows.append([tool, f"{users:,}"] + ["—"] * 5 + [f"failed: {errors[tool]}", notes[tool]])
            failed.append(tool)
            continue
        if tool == ref_tool:
            agree, ok = "the reference", True
        else:
            agree, ok = agreement(
                out,
                tool,
                LIST_METRICS,
                mask,
                "",
                ref_tool=ref_tool.replace(" ", "_"),
                tol=TOL_FLOAT32 if tool == "torchmetrics" else TOL,
            )
            if users < n:
                agree = agree.replace("all ", "the ")
        if not ok:
            failed.append(tool)
        t = med(reps, "evaluate")
        total = t + (med(reps, "build") or 0.0)
        base = med(ref, "evaluate" if users == n else f"evaluate {users}")
        ratio = "1×" if tool == ref_tool else f"{total / base:.1f}×"
        if users < n:
            ratio += f" (sk_rankmetrics on these users: {fmt_t(base)})"
        rows.append(
            [
                label(tool, reps, repeats),
                f"{users:,}",
                fmt_t(med(reps, "build")),
                fmt_t(t),
                fmt_t(total),
                ratio,
                fmt_mem(reps),
                agree,
                notes[tool],
            ]
        )
    caption = (
        f"**Recommender ID lists**: {n:,} users × 20 ids, truth of 1-5 ids per user; "
        "ndcg@20, recall@20, mrr (the three together). torchmetrics scores the first "
        f"{min(peer_users.get('torchmetrics', n), n):,} users only (about a millisecond "
        "a user); its ratio is to sk_rankmetrics on the same users."
    )
    columns = ["users", "build", "evaluate", "total", "× sk_rankmetrics"]
    return markdown(caption, columns, rows, missing)


def markdown(caption, columns, rows, missing):
    """The section's lines: its caption and table, a row per tool not installed."""
    columns = ["tool", *columns, "peak memory (added)", "agreement", "how"]
    rows = rows + [[tool] + ["—"] * (len(columns) - 2) + ["not installed"] for tool in missing]
    lines = [caption, "", "| " + " | ".join(columns) + " |", "|---" * len(columns) + "|"]
    return lines + ["| " + " | ".join(r) + " |" for r in rows]


def workspace(tmp, name):
    """The section's input folder and, inside it, the folder of per-query values."""
    folder = os.path.join(tmp, name)
    out = os.path.join(folder, "out")
    os.makedirs(out)
    return folder, out


def label(tool, reps, repeats):
    """The tool's name, with its number of rounds when fewer than asked (a slow tool)."""
    return tool if len(reps) >= repeats else f"{tool} ({len(reps)} round)"


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--quick", action="store_true", help="small sizes, 1 round")
    p.add_argument(
        "--repeats", type=int, default=None, help="rounds of every tool (default 3; 1 with --quick)"
    )
    p.add_argument(
        "--trec-eval",
        default=os.environ.get("TREC_EVAL"),
        help="trec_eval's binary (default: the environment variable TREC_EVAL)",
    )
    p.add_argument(
        "--only",
        action="append",
        choices=["matrices", "files", "lists"],
        help="run this section only (repeatable)",
    )
    args = p.parse_args(argv)
    repeats = args.repeats or (1 if args.quick else 3)
    if args.trec_eval and not (
        os.path.isfile(args.trec_eval) and os.access(args.trec_eval, os.X_OK)
    ):
        p.error(f"--trec-eval: {args.trec_eval!r} is not an executable file")
    sizes = (
        {"matrices": 1_000, "files": 500, "lists": 50_000}
        if args.quick
        else {"matrices": 10_000, "files": 6_980, "lists": 1_000_000}
    )
    sections = args.only or ["matrices", "files", "lists"]
    load_avg = os.getloadavg() if hasattr(os, "getloadavg") else None
    failed: list[str] = []
    out = []
    tmp = tempfile.mkdtemp(prefix="bench_peers_")
    try:
        if "matrices" in sections:
            out += [*section_matrices(tmp, sizes["matrices"], repeats, failed), ""]
        if "files" in sections:
            out += [*section_files(tmp, sizes["files"], repeats, failed, args.trec_eval), ""]
        if "lists" in sections:
            peers = PEER_USERS_QUICK if args.quick else PEER_USERS
            out += [*section_lists(tmp, sizes["lists"], repeats, failed, peers), ""]
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    import sk_rankmetrics

    versions = [f"sk_rankmetrics {sk_rankmetrics.__version__}", f"NumPy {np.__version__}"]
    for tool, module in MODULES.items():
        if module:
            try:
                from importlib.metadata import version

                dist = {
                    "sklearn": "scikit-learn",
                    "pytrec_eval": "pytrec-eval-terrier",
                    "ir_measures": "ir-measures",
                }.get(module, module)
                versions.append(f"{tool} {version(dist)}")
            except Exception:
                pass
    if "torchmetrics" in {t for t in MODULES if available(t)}:
        import torch

        versions.append(f"torch {torch.__version__} ({torch.get_num_threads()} threads)")
    head = (
        f"{'--quick run' if args.quick else 'full run'}: {', '.join(versions)}, Python "
        f"{sys.version.split()[0]}, {os.cpu_count()} CPUs; median of {repeats} round(s), "
        "tools taking turns, each in a fresh process"
    )
    if load_avg:
        head += "; load average at the start " + ", ".join(f"{x:.2f}" for x in load_avg)
    print(head)
    print()
    print("\n".join(out))
    if failed:
        print(f"FAILED: {', '.join(sorted(set(failed)))}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
