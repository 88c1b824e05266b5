"""``sk-rankmetrics demo``: every metric on bundled demo data, then a grid search."""

from __future__ import annotations

import numpy as np

from ._common import table


def demo_grid_search(seed=0, n_queries=150, n_items=20, n_features=5):
    """GridSearchCV of a regressor on seeded long-format data, scored by nDCG@10.

    Returns the text lines of the result.
    """
    import sklearn
    from sklearn.ensemble import HistGradientBoostingRegressor
    from sklearn.model_selection import GridSearchCV, GroupKFold

    from .._scorer import get_scorer

    rng = np.random.default_rng(seed)
    n = n_queries * n_items
    X = rng.normal(size=(n, n_features))
    w = np.array([1.0, 0.7, -0.5, 0.0, 0.0])[:n_features]
    quality = X @ w + 0.5 * np.sin(2 * X[:, 0]) + 0.5 * rng.normal(size=n)
    y = np.digitize(quality, [0.8, 1.5, 2.2])
    qid = np.repeat(np.arange(n_queries), n_items)
    grid = {"max_depth": [2, 4], "learning_rate": [0.03, 0.3]}
    with sklearn.config_context(enable_metadata_routing=True):
        scorer = get_scorer("ndcg@10", no_relevant="skip").set_score_request(qid=True)
        search = GridSearchCV(HistGradientBoostingRegressor(max_iter=40, random_state=seed),
                              grid, scoring=scorer, cv=GroupKFold(n_splits=3))
        search.fit(X, y, groups=qid, qid=qid)
    lines = [f"GridSearchCV: HistGradientBoostingRegressor on {n_queries} queries x "
             f"{n_items} documents, 3 query-grouped folds, scoring='ndcg@10'"]
    rows = [[str(p), f"{s:.4f}"] for p, s in zip(search.cv_results_["params"],
                                                  search.cv_results_["mean_test_score"])]
    lines.append(table(["params", "mean ndcg@10"], rows))
    lines.append(f"best: {search.best_params_} (ndcg@10 = {search.best_score_:.4f})")
    return lines


def run(args):
    from .._demo import demo_table

    print("sk_rankmetrics demo: 300 queries x 50 items, graded relevance 0-3")
    print(demo_table(seed=args.seed))
    if not args.no_grid_search:
        print()
        print("\n".join(demo_grid_search(seed=args.seed)))
    return 0


def add_parser(sub, parents):
    dm = sub.add_parser(
        "demo", help="run on bundled demo data", parents=parents,
        description="Print every metric on seeded demo data (300 queries), then a short "
                    "GridSearchCV scored by nDCG@10 per query.",
    )
    dm.add_argument("--seed", type=int, default=0, help="seed of the demo data")
    dm.add_argument("--no-grid-search", action="store_true",
                    help="skip the GridSearchCV part")
    dm.set_defaults(func=run, parser=dm)
    return dm
