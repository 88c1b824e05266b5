r"""
A metric over the cut-off k: DCG against nDCG
=============================================

DCG grows with the cut-off ``k``, so DCG values at different ``k`` cannot be
compared; nDCG divides by the ideal DCG at the same ``k`` and stays in
``[0, 1]``. :class:`~sk_rankmetrics.MetricAtKDisplay` draws the curves of
several metrics and several systems from one ranking pass per system.

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
    """Scores that put ``ranking`` first, in order, and the others after."""
    s = np.zeros((1, len(items)))
    for position, item in enumerate(ranking):
        s[0, items.index(item)] = len(items) - position
    return s


system_1 = scores_of("AECDF")
system_2 = scores_of("ABCGE")

# %%
# DCG and nDCG of two systems
# ---------------------------
# DCG and nDCG live on different scales, so each gets its own axes. Passing
# ``ax=`` draws a second system on the same axes, in a colour of its own.

fig, (ax_dcg, ax_ndcg) = plt.subplots(1, 2, figsize=(9, 3.8),
                                      layout="constrained")
displays = {}
for scores, name in [(system_1, "system 1"), (system_2, "system 2")]:
    displays[name, "dcg"] = MetricAtKDisplay.from_predictions(
        relevance, scores, metric="dcg", ks=range(1, 8), name=name,
        ax=ax_dcg)
    displays[name, "ndcg"] = MetricAtKDisplay.from_predictions(
        relevance, scores, metric="ndcg", ks=range(1, 8), name=name,
        ax=ax_ndcg)
ax_dcg.set_title("DCG@k grows with k")
ax_ndcg.set_title("nDCG@k stays in [0, 1]")
plt.show()

# %%
# The values behind the curves
# ----------------------------
# Each display keeps the cut-offs in ``ks`` and the values in ``values``.

dcg = displays["system 1", "dcg"]
ndcg = displays["system 1", "ndcg"]
for k, d, n in zip(dcg.ks, dcg.values["dcg"], ndcg.values["ndcg"]):
    print(f"k={k}: DCG={d:.3f}  nDCG={n:.3f}")

# %%
# Many queries, two metrics, three systems
# ----------------------------------------
# On a larger random problem the curves are means over the rows. With
# several metrics and systems on one axes, each system has one colour and
# each metric one line style; a random ranker is the baseline.

rng = np.random.default_rng(0)
y_true = rng.choice(4, p=[0.7, 0.15, 0.1, 0.05], size=(200, 100))
systems = {
    "good model": y_true + rng.normal(scale=1.5, size=y_true.shape),
    "noisy model": y_true + rng.normal(scale=4.0, size=y_true.shape),
    "random": rng.normal(size=y_true.shape),
}
ax = None
for name, scores in systems.items():
    display = MetricAtKDisplay.from_predictions(
        y_true, scores, metric=["ndcg", "map"], ks=range(1, 51), name=name,
        ax=ax)
    ax = display.ax_
display.figure_.set_size_inches(8, 4.5)
plt.show()
