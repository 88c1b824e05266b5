"""
Model selection by nDCG@k with GridSearchCV
===========================================

A classifier can be judged by how it *ranks* the classes of each sample: the
true class should come first, or at least in the top few. The scorers of this
package plug into scikit-learn's model selection like any other scorer:
``get_scorer("ndcg@3")`` ranks each sample's classes by the classifier's
``decision_function`` (or ``predict_proba``) and scores the ranking against
the sample's true class.
"""

import numpy as np
from sklearn.datasets import load_digits
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import make_scorer
from sklearn.model_selection import GridSearchCV, train_test_split
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from sk_rankmetrics import MetricAtKDisplay, get_scorer, get_scorers, ndcg_score

X, y = load_digits(return_X_y=True)
X_train, X_test, y_train, y_test = train_test_split(X, y, random_state=0, stratify=y)
model = make_pipeline(StandardScaler(), LogisticRegression(max_iter=2000))
grid = {"logisticregression__C": [1e-4, 1e-3, 1e-2, 1e-1, 1.0]}

# %%
# One metric
# ----------
# ``get_scorer`` takes a metric name with its cut-off.

search = GridSearchCV(model, grid, scoring=get_scorer("ndcg@3"), cv=3)
search.fit(X_train, y_train)
print("best C:", search.best_params_["logisticregression__C"])
for C, score in zip(grid["logisticregression__C"], search.cv_results_["mean_test_score"]):
    print(f"C={C:g}: mean nDCG@3 = {score:.4f}")

# %%
# Several metrics, refit on one
# -----------------------------
# ``get_scorers`` gives the dict that ``scoring=`` accepts.

search = GridSearchCV(model, grid, scoring=get_scorers(["ndcg@3", "mrr", "hit_rate@2"]),
                      refit="ndcg@3", cv=3)
search.fit(X_train, y_train)
for name in ["ndcg@3", "mrr", "hit_rate@2"]:
    print(name, np.round(search.cv_results_[f"mean_test_{name}"], 4))

# %%
# The plain scikit-learn way
# --------------------------
# The metric functions also work with :func:`sklearn.metrics.make_scorer` when
# the estimator's output already has the shape of ``y`` (here a one-hot
# relevance matrix against ``predict_proba``); the scorers above build that
# matrix for you.

onehot_scorer = make_scorer(
    lambda y_true, proba: ndcg_score(np.eye(10)[y_true], proba, k=3),
    response_method="predict_proba",
)
best = search.best_estimator_
print("test nDCG@3 via make_scorer:", round(onehot_scorer(best, X_test, y_test), 4))
print("test nDCG@3 via get_scorer: ", round(get_scorer("ndcg@3")(best, X_test, y_test), 4))

# %%
# Where does the true class land?
# -------------------------------
# Hit rate at k is the share of test samples whose class is among the top k.

display = MetricAtKDisplay.from_estimator(best, X_test, y_test, metric=["hit_rate", "ndcg"],
                                          ks=range(1, 11), name="best model")
display.ax_.set_title("Ranking the ten digit classes")
