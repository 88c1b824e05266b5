r"""
Model selection with GridSearchCV, scored by nDCG
=================================================

A classifier can be judged by how it *ranks* the classes of each sample: the
true class should come first, or at least in the top few. The scorers of this
package plug into scikit-learn's model selection like any other scorer:
``get_scorer("ndcg@3")`` ranks each sample's classes by the classifier's
``decision_function`` (or ``predict_proba``) and scores the ranking against
the sample's true class.
"""

import matplotlib.pyplot as plt
import numpy as np
from sklearn.datasets import load_digits
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import make_scorer
from sklearn.model_selection import GridSearchCV, train_test_split
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from sk_rankmetrics import (
    MetricAtKDisplay,
    get_scorer,
    get_scorers,
    ndcg_score,
)

X, y = load_digits(return_X_y=True)
X_train, X_test, y_train, y_test = train_test_split(
    X, y, random_state=0, stratify=y)
model = make_pipeline(StandardScaler(), LogisticRegression(max_iter=2000))
grid = {"logisticregression__C": [1e-4, 1e-3, 1e-2, 1e-1, 1.0]}

# %%
# One metric
# ----------
# ``get_scorer`` takes a metric name with its cut-off.

search = GridSearchCV(model, grid, scoring=get_scorer("ndcg@3"), cv=3)
search.fit(X_train, y_train)
print("best C:", search.best_params_["logisticregression__C"])
C_values = grid["logisticregression__C"]
for C, score in zip(C_values, search.cv_results_["mean_test_score"]):
    print(f"C={C:g}: mean nDCG@3 = {score:.4f}")

# %%
# Several metrics, refit on one
# -----------------------------
# ``get_scorers`` gives the dict that ``scoring=`` accepts.

names = ["ndcg@3", "mrr", "hit_rate@2"]
search = GridSearchCV(model, grid, scoring=get_scorers(names),
                      refit="ndcg@3", cv=3)
search.fit(X_train, y_train)
for name in names:
    print(f"{name:>10}", np.round(search.cv_results_[f"mean_test_{name}"], 4))

# %%
# The plain scikit-learn way
# --------------------------
# The metric functions also work with :func:`sklearn.metrics.make_scorer`
# when the estimator's output already has the shape of ``y`` (here a one-hot
# relevance matrix against ``predict_proba``); the scorers above build that
# matrix for you.


def ndcg_at_3_of_classes(y_true, proba):
    return ndcg_score(np.eye(10)[y_true], proba, k=3)


onehot_scorer = make_scorer(ndcg_at_3_of_classes,
                            response_method="predict_proba")
best = search.best_estimator_
via_make_scorer = onehot_scorer(best, X_test, y_test)
via_get_scorer = get_scorer("ndcg@3")(best, X_test, y_test)
print(f"test nDCG@3 via make_scorer: {via_make_scorer:.4f}")
print(f"test nDCG@3 via get_scorer:  {via_get_scorer:.4f}")

# %%
# Where does the true class land?
# -------------------------------
# Hit rate at k is the share of test samples whose class is among the top k
# classes of the model; nDCG\@k also rewards a true class ranked first over
# one ranked third.

display = MetricAtKDisplay.from_estimator(
    best, X_test, y_test, metric=["hit_rate", "ndcg"], ks=range(1, 11),
    name="best model")
display.ax_.set_title("Ranking the ten digit classes of each test image")
plt.show()
