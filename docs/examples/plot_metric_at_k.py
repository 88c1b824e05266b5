"""
Plotting metric@k: DCG against nDCG over the cut-off
====================================================

DCG grows with the cut-off ``k``, so DCG values at different ``k`` cannot be
compared; nDCG divides by the ideal DCG at the same ``k`` and stays in
``[0, 1]``. :class:`~sk_rankmetrics.MetricAtKDisplay` draws both curves from one
ranking pass.

The data is the recommender example of the user guide: seven items with
relevance ``A=3, B=3, C=2, D=2, E=1, F=1, G=0`` and two systems, each ranking
five of them first.
"""

import matplotlib.pyplot as plt
import numpy as np

from sk_rankmetrics import MetricAtKDisplay

items = list("ABCDEFG")
relevance = np.array([[3, 3, 2, 2, 1, 1, 0]])


def scores_of(ranking):
    """Scores that put ``ranking`` first, in order, and the other items after."""
    s = np.zeros((1, len(items)))
    for position, item in enumerate(ranking):
        s[0, items.index(item)] = len(items) - position
    return s


system_1 = scores_of("AECDF")
system_2 = scores_of("ABCGE")

# %%
# DCG and nDCG of one system
# --------------------------
# ``metric=[...]`` draws several metrics; ``values_`` holds the numbers.

fig, (ax_dcg, ax_ndcg) = plt.subplots(1, 2, figsize=(9, 3.5))
for scores, name in [(system_1, "system 1"), (system_2, "system 2")]:
    MetricAtKDisplay.from_predictions(relevance, scores, metric="dcg", ks=range(1, 8),
                                      name=name, ax=ax_dcg, marker="o")
    MetricAtKDisplay.from_predictions(relevance, scores, metric="ndcg", ks=range(1, 8),
                                      name=name, ax=ax_ndcg, marker="o")
ax_dcg.set_title("DCG@k grows with k")
ax_ndcg.set_title("nDCG@k stays in [0, 1]")
fig.tight_layout()

# %%
# The values behind the curves
# ----------------------------

display = MetricAtKDisplay.from_predictions(relevance, system_1, metric=["dcg", "ndcg"],
                                            ks=range(1, 8), name="system 1")
for k, dcg, ndcg in zip(display.ks, display.values_["dcg"], display.values_["ndcg"]):
    print(f"k={k}: DCG={dcg:.3f}  nDCG={ndcg:.3f}")

# %%
# Many queries
# ------------
# On a larger random problem the curves average over rows. Two systems on the
# same axes: pass the first display's ``ax_`` to the second.

rng = np.random.default_rng(0)
y_true = rng.integers(0, 4, size=(200, 100))
good = y_true + rng.normal(scale=1.5, size=y_true.shape)
noisy = y_true + rng.normal(scale=4.0, size=y_true.shape)

first = MetricAtKDisplay.from_predictions(y_true, good, metric=["ndcg", "map"],
                                          ks=range(1, 51), name="good model")
MetricAtKDisplay.from_predictions(y_true, noisy, metric=["ndcg", "map"], ks=range(1, 51),
                                  name="noisy model", ax=first.ax_, linestyle="--")
plt.show()
