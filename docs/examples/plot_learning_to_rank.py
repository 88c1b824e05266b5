r"""
Learning to rank, scored per query
==================================

Learning-to-rank data come in long format: one row per query–document pair,
with a query id. A pointwise model (any regressor) predicts a score per row;
``nDCG@10`` must then be computed **per query** and averaged over queries,
and cross-validation must keep each query in one fold.

Here scikit-learn's metadata routing passes the query ids to the scorer
(``set_score_request(qid=True)``) and to the splitter (``GroupKFold``).
"""

import matplotlib.pyplot as plt
import numpy as np
import sklearn
from sklearn.ensemble import HistGradientBoostingRegressor
from sklearn.linear_model import Ridge
from sklearn.model_selection import GridSearchCV, GroupKFold, cross_validate

from sk_rankmetrics import MetricAtKDisplay, get_scorer, ndcg_score

# %%
# Synthetic long-format data
# --------------------------
# 200 queries of 5 to 60 documents, graded relevance 0..3 that depends on the
# features non-linearly; every query has a relevant document.

rng = np.random.default_rng(0)
sizes = rng.integers(5, 61, size=200)
qid = np.repeat(np.arange(200), sizes)
X = rng.normal(size=(qid.size, 6))
signal = (X[:, 0] + np.abs(X[:, 1]) - 0.5 * X[:, 2] * X[:, 3]
          + 0.5 * rng.normal(size=qid.size))
y = np.digitize(signal, [0.8, 1.8, 2.6])
first = np.unique(qid, return_index=True)[1]  # the first row of each query
y[first] = np.maximum(y[first], 1)
print(f"{qid.size} rows, {np.unique(qid).size} queries, "
      f"relevance levels {np.unique(y)}")

# %%
# Per-query scoring by hand
# -------------------------
# The metric functions take ``qid=``: each query is ranked and scored, then
# the mean over queries is taken.

train = qid < 140
model = HistGradientBoostingRegressor(max_iter=50, random_state=0)
model.fit(X[train], y[train])
pred = model.predict(X[~train])
held_out = y[~train], pred
print("nDCG@10 on held-out queries:",
      round(ndcg_score(*held_out, qid=qid[~train], k=10), 4))
print("the same, exponential gain: ",
      round(ndcg_score(*held_out, qid=qid[~train], k=10, gain="exponential"),
            4))
per_query = ndcg_score(*held_out, qid=qid[~train], k=10, per_row=True)
print("worst and best query:", per_query.min().round(4),
      per_query.max().round(4))

# %%
# Cross-validation and grid search with metadata routing
# ------------------------------------------------------

with sklearn.config_context(enable_metadata_routing=True):
    scorer = get_scorer("ndcg@10").set_score_request(qid=True)
    cv = GroupKFold(n_splits=3)
    for est in [Ridge(),
                HistGradientBoostingRegressor(max_iter=50, random_state=0)]:
        res = cross_validate(est, X, y, scoring=scorer, cv=cv,
                             params={"qid": qid, "groups": qid})
        print(f"{type(est).__name__:>29}: nDCG@10 per fold "
              f"{np.round(res['test_score'], 4)}")

    search = GridSearchCV(
        HistGradientBoostingRegressor(max_iter=50, random_state=0),
        {"max_leaf_nodes": [3, 15, 31]}, scoring=scorer, cv=cv)
    search.fit(X, y, qid=qid, groups=qid)
print("best max_leaf_nodes:", search.best_params_["max_leaf_nodes"])

# %%
# nDCG\@k of the two models over the cut-off
# ------------------------------------------
# The gradient-boosted trees catch the non-linear part of the relevance that
# the linear model misses, at every cut-off.

ridge = Ridge().fit(X[train], y[train])
first = MetricAtKDisplay.from_estimator(
    model, X[~train], y[~train], qid=qid[~train], ks=range(1, 31))
MetricAtKDisplay.from_estimator(
    ridge, X[~train], y[~train], qid=qid[~train], ks=range(1, 31),
    ax=first.ax_)
first.ax_.set_title("nDCG@k on the held-out queries")
plt.show()
