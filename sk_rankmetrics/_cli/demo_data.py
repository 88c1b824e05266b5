"""The demo of ``sk-rankmetrics demo``: seeded synthetic data, three rankers, a grid search.

Part 1 scores three rankers of one synthetic problem with every metric; part 2
prints and runs a ``GridSearchCV`` scored by per-query nDCG@10. Everything is
generated from a seed, in well under a second of computing.
"""

from __future__ import annotations

import textwrap

import numpy as np


def make_demo_data(n_queries=300, n_items=50, *, noise=1.0, seed=0):
    """Seeded demo rankings: ``(y_true, y_score)`` of shape (n_queries, n_items).

    Each item has a latent quality (standard normal); its relevance is the
    quality cut at 1.5, 2.0 and 2.5 into levels 0-3 (about 3 relevant items
    per query of 50, some queries none), and the score is the quality plus
    Gaussian noise of standard deviation ``noise``. ``noise=None`` gives a
    random ranker: scores unrelated to the quality.

    Parameters
    ----------
    n_queries, n_items : int
        Shape of the matrices.
    noise : float or None, default=1.0
        Noise of the scores; 0 gives a perfect ranking, None a random one.
    seed : int, default=0
        Seed of the generator; the relevance depends on it alone.

    Returns
    -------
    y_true : ndarray of shape (n_queries, n_items), int
    y_score : ndarray of shape (n_queries, n_items), float

    Examples
    --------
    >>> from sk_rankmetrics._cli.demo_data import make_demo_data
    >>> y_true, y_score = make_demo_data(n_queries=4, n_items=6)
    >>> y_true.shape, y_score.shape
    ((4, 6), (4, 6))
    """
    quality = np.random.default_rng(seed).normal(size=(n_queries, n_items))
    y_true = np.digitize(quality, [1.5, 2.0, 2.5])
    scores = np.random.default_rng([seed, 1 if noise is None else 2])
    if noise is None:
        return y_true, scores.normal(size=quality.shape)
    return y_true, quality + noise * scores.normal(size=quality.shape)


#: The rankers of part 1: (name, noise of the scores, what it is).
RANKERS = (
    ("random ranker", None, "a random score: the baseline any model must beat"),
    ("noisy ranker", 1.0, "the item's quality plus noise of standard deviation 1"),
    ("good ranker", 0.3, "the item's quality plus noise of standard deviation 0.3"),
)

#: The metrics of part 1, with what each measures in a few words.
DEMO_METRICS = (
    ("ndcg@10", "graded gains, discounted by position; 1 = the ideal order"),
    ("ndcg_exp@10", "the same with the gain 2**rel - 1 (XGBoost, LightGBM)"),
    ("map@10", "mean average precision: precision at each relevant item"),
    ("precision@5", "share of relevant items among the first 5"),
    ("recall@20", "share of the query's relevant items in the first 20"),
    ("hit_rate@10", "share of queries with a relevant item in the first 10"),
    ("mrr", "1 / position of the first relevant item"),
    ("r_precision", "precision at R, the number of relevant items"),
    ("dcg@10", "not normalised: grows with the relevant items a query has"),
)


def _paragraph(text, width=79):
    return textwrap.fill(" ".join(text.split()), width)


def demo_intro(n_queries=300, n_items=50, seed=0):
    """The words printed before the table of part 1."""
    y_true, _ = make_demo_data(n_queries, n_items, seed=seed)
    n_rel = (y_true > 0).sum(axis=1)
    rankers = "\n".join(f"  {name:<15}{what}" for name, _, what in RANKERS)
    return "\n".join([
        "sk_rankmetrics demo",
        "",
        _paragraph(
            f"Part 1. {n_queries} queries (think of users or searches), each with "
            f"{n_items} candidate items. Every item has a hidden quality; its relevance "
            "is that quality cut into levels 0-3 (0 = not relevant; "
            f"{n_rel.mean():.1f} relevant items per query on average). Three rankers "
            "order the items of each query by a score:"),
        rankers,
        _paragraph(
            f"{int((n_rel == 0).sum())} queries have no relevant item: no order of "
            "their items is better than another, so they are left out of every mean "
            "(no_relevant='skip'; by default they would count as 0, with a warning)."),
    ])


def demo_table(seed=0):
    """Text table of every metric of part 1, one column per ranker, and a legend."""
    from .._evaluation.evaluate import evaluate

    names = [name for name, _ in DEMO_METRICS]
    results = []
    for _, noise, _ in RANKERS:
        y_true, y_score = make_demo_data(noise=noise, seed=seed)
        results.append(evaluate(y_true, y_score, names, no_relevant="skip"))
    lines = [f"{'metric':<13}" + "".join(f"{name:>15}" for name, _, _ in RANKERS)]
    for name in names:
        lines.append(f"{name:<13}" + "".join(f"{r[name]:>15.4f}" for r in results))
    lines += ["", "What each metric measures (@k: only the first k items count):"]
    lines += [f"  {name:<13}{what}" for name, what in DEMO_METRICS]
    return "\n".join(lines)


#: The code of part 2, printed and then run as printed (with X, y and qid
#: already defined).
GRID_SEARCH_CODE = '''\
import sklearn
from sklearn.ensemble import HistGradientBoostingRegressor
from sklearn.model_selection import GridSearchCV, GroupKFold
from sk_rankmetrics import get_scorer

with sklearn.config_context(enable_metadata_routing=True):  # lets qid reach the scorer
    scorer = get_scorer("ndcg@10").set_score_request(qid=True)
    search = GridSearchCV(
        HistGradientBoostingRegressor(max_iter=40, random_state=0),
        {"max_depth": [1, 3], "learning_rate": [0.05, 0.3]},
        scoring=scorer,             # nDCG@10 of each query, averaged over queries
        cv=GroupKFold(n_splits=3),  # every query stays whole within one fold
    )
    search.fit(X, y, qid=qid, groups=qid)
'''


def make_ltr_data(n_queries=150, n_items=20, n_features=5, seed=0):
    """Seeded long-format learning-to-rank data: ``(X, y, qid)``.

    Relevance 0-3 depends on the features (a linear part and a non-linear
    one, plus noise); the best document of every query is relevant.
    """
    rng = np.random.default_rng(seed)
    n = n_queries * n_items
    X = rng.normal(size=(n, n_features))
    w = np.array([1.0, 0.7, -0.5, 0.0, 0.0, 0.0][:n_features])
    quality = X @ w + 0.5 * np.sin(2 * X[:, 0]) + 0.5 * rng.normal(size=n)
    y = np.digitize(quality, [1.0, 1.7, 2.4])
    best = np.argmax(quality.reshape(n_queries, n_items), axis=1) + n_items * np.arange(
        n_queries)
    y[best] = np.maximum(y[best], 1)
    qid = np.repeat(np.arange(n_queries), n_items)
    return X, y, qid


def run_grid_search(X, y, qid):
    """Run :data:`GRID_SEARCH_CODE` as printed; return the fitted search."""
    from threadpoolctl import threadpool_limits

    namespace = {"X": X, "y": y, "qid": qid}
    # One thread: on a machine whose cores are busy, OpenMP threads that wait
    # for each other make a small fit many times slower.
    with threadpool_limits(limits=1):
        exec(compile(GRID_SEARCH_CODE, "<sk-rankmetrics demo>", "exec"), namespace)
    return namespace["search"]
