"""
Evaluating a TREC run
=====================

A TREC *qrels* file holds relevance judgements (``qid iter docno rel``), a
*run* file a system's ranking (``qid Q0 docno rank score tag``). This example
writes a small pair of files, reads them back and scores the run with
trec_eval's conventions and with this package's defaults, which differ in how
ties and queries without results are handled.
"""

import os
import tempfile

import numpy as np

from sk_rankmetrics import (
    TrecRun,
    evaluate_run,
    ndcg_score,
    read_trec_qrels,
    read_trec_run,
    write_trec_run,
)

# %%
# A small collection
# ------------------
# Three queries, 40 documents each, graded judgements 0..2; the system's
# scores are the relevance plus noise, rounded so that some scores tie.

rng = np.random.default_rng(0)
folder = tempfile.mkdtemp()
qids = np.repeat(["301", "302", "303"], 40)
docnos = np.array([f"doc{i:03d}" for i in range(qids.size)])
relevance = rng.choice([0, 0, 0, 1, 2], size=qids.size)
scores = np.round(relevance + rng.normal(scale=2.5, size=qids.size), 1)

qrels_path = os.path.join(folder, "qrels.txt")
with open(qrels_path, "w") as fh:
    for q, d, r in zip(qids, docnos, relevance):
        fh.write(f"{q} 0 {d} {r}\n")
run_path = os.path.join(folder, "run.txt")
write_trec_run(run_path, TrecRun(qids, docnos, scores, tag="noisy"))

with open(run_path) as fh:
    print("".join(fh.readlines()[:3]))

# %%
# Scoring
# -------

qrels = read_trec_qrels(qrels_path)
run = read_trec_run(run_path)
metrics = ["ndcg_cut_10", "map", "P_5", "recip_rank"]
as_trec_eval = evaluate_run(qrels, run, metrics, setting="trec_eval")
ours = evaluate_run(qrels, run, metrics)
for name in metrics:
    print(f"{name:>12}: trec_eval setting {as_trec_eval.mean[name]:.4f}   "
          f"sk_rankmetrics setting {ours.mean[name]:.4f}")

# %%
# Per query
# ---------

for i, q in enumerate(as_trec_eval.query_ids):
    print(q, {name: round(float(v[i]), 4) for name, v in as_trec_eval.per_query.items()})

# %%
# The same numbers from the arrays
# --------------------------------
# The files are long-format data: ``ndcg_score`` with ``qid=`` gives the
# tie-averaged nDCG@10 directly.

print("ndcg_score(qid=...):", round(ndcg_score(relevance, scores, qid=qids, k=10), 4))
