"""
Comparing systems: a significance table and the per-query differences
=====================================================================

Three retrieval systems are scored on the same 60 queries. The comparison
pairs the queries, tests every pair of systems on every metric with a paired
t-test, corrects the p-values for the three comparisons of each metric
(Holm), and gives every mean and every difference a bootstrap confidence
interval. The report becomes a LaTeX table with the best value of each metric
in bold and superscript letters naming the systems each one significantly
beats; the per-query differences of two systems are drawn sorted, which shows
whether a mean difference comes from a few queries or from many.
"""

import matplotlib.pyplot as plt
import numpy as np

from sk_rankmetrics import (
    QueryDifferenceDisplay,
    TrecQrels,
    TrecRun,
    compare,
    evaluate_run,
)

# %%
# Three systems on 60 queries
# ---------------------------
# Graded judgements 0..3; each system scores a document by its relevance plus
# noise. ``bm25`` is the noisiest; ``neural`` is better on average but fails
# badly on the queries whose id ends in 7 (a made-up weakness, for the plot).

rng = np.random.default_rng(3)
queries = np.repeat([f"{401 + i}" for i in range(60)], 40)
docs = np.array([f"doc{i:05d}" for i in range(queries.size)])
relevance = rng.choice([0, 0, 0, 0, 1, 1, 2, 3], size=queries.size)
qrels = TrecQrels(queries, docs, relevance)

weak = np.char.endswith(queries, "7")
scores = {
    "bm25": relevance + rng.normal(scale=2.2, size=queries.size),
    "rm3": relevance + rng.normal(scale=2.0, size=queries.size),
    "neural": relevance
    + rng.normal(scale=np.where(weak, 6.0, 1.0), size=queries.size),
}
metrics = ["ndcg@10", "map@100", "P@10", "mrr"]
results = {
    name: evaluate_run(qrels, TrecRun(queries, docs, s, tag=name), metrics)
    for name, s in scores.items()
}

# %%
# The comparison
# --------------
# ``print(report)`` shows the systems x metrics table with markers, then one
# line per comparison: the mean difference, its 95% BCa interval, the effect
# size, wins/ties/losses, and the p-value before and after the correction.

report = compare(results, test="t-test", correction="holm", random_state=0)
print(report)

# %%
# A LaTeX table for the paper
# ---------------------------
# It needs no LaTeX package; the caption explains the bold values and the
# superscripts.

print(report.to_latex())

# %%
# Where does the difference come from?
# ------------------------------------
# ``neural`` beats ``bm25`` on average, but not on every query. The sorted
# per-query differences show many small and medium gains, and a few large
# losses: the queries of the made-up weakness.

display = QueryDifferenceDisplay.from_results(
    results, metric="ndcg@10", systems=("neural", "bm25"))
losses = display.query_ids[display.differences < -0.2]
print("neural loses more than 0.2 nDCG@10 on:", ", ".join(losses))

# %%
# Two metrics side by side: the plot draws on any axes.

fig, axes = plt.subplots(1, 2, figsize=(12, 4), constrained_layout=True)
QueryDifferenceDisplay.from_results(
    results, metric="ndcg@10", systems=("neural", "bm25"), ax=axes[0])
QueryDifferenceDisplay.from_results(
    results, metric="P@10", systems=("neural", "rm3"), ax=axes[1])
plt.show()
