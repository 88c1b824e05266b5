"""
Evaluating a TREC run
=====================

A TREC *qrels* file holds relevance judgements (``qid iter docno rel``), a
*run* file a system's ranking (``qid Q0 docno rank score tag``). This example
writes a small pair of files, reads them back and scores the run with
trec_eval's conventions and with this package's defaults, which differ in how
tied scores are ordered and in the denominator of AP.
"""

import os
import tempfile

import matplotlib.pyplot as plt
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
# Eight queries, 40 documents each, graded judgements 0..2; the system's
# scores are the relevance plus noise, rounded so that many scores tie.

rng = np.random.default_rng(0)
folder = tempfile.mkdtemp()
qids = np.repeat([str(q) for q in range(301, 309)], 40)
docnos = np.array([f"doc{i:03d}" for i in range(qids.size)])
relevance = rng.choice([0, 0, 0, 1, 2], size=qids.size)
scores = np.round(relevance + rng.normal(scale=2.5, size=qids.size))

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
print(f"{'':>12}  trec_eval setting  sk_rankmetrics setting")
for name in metrics:
    print(f"{name:>12}  {as_trec_eval.mean[name]:17.4f}  "
          f"{ours.mean[name]:22.4f}")

# %%
# Per query
# ---------
# trec_eval breaks ties by document id, so its number for a query depends on
# how the documents happen to be named; the package's default takes the
# expected value over every order of each tie instead.

per_query = {
    "trec_eval setting": as_trec_eval.per_query["ndcg_cut_10"],
    "sk_rankmetrics setting": ours.per_query["ndcg_cut_10"],
}
x = np.arange(len(as_trec_eval.query_ids))
fig, ax = plt.subplots(figsize=(7, 3.6), layout="constrained")
for shift, (label, values) in zip([-0.2, 0.2], per_query.items()):
    ax.bar(x + shift, values, width=0.4, label=label)
ax.set_xticks(x, as_trec_eval.query_ids)
ax.set_xlabel("query")
ax.set_ylabel("nDCG@10")
ax.set_ylim(0, 1)
ax.set_title("nDCG@10 per query: ties by document id, or averaged")
ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), borderaxespad=0.0)
plt.show()

# %%
# The same numbers from the arrays
# --------------------------------
# The files are long-format data: ``ndcg_score`` with ``qid=`` gives the
# tie-averaged nDCG\@10 directly.

print("ndcg_score(qid=...):",
      round(ndcg_score(relevance, scores, qid=qids, k=10), 4))
