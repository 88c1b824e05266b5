"""``sk-rankmetrics demo``: three rankers scored by every metric, then a grid search."""

from __future__ import annotations

import sys
import textwrap

import numpy as np

from .common import table


def _say(*lines):
    print("\n".join(lines), flush=True)


def demo_grid_search(seed=0):
    """Part 2: print the grid-search code, run it as printed, print its results."""
    from .._evaluation.metric_functions import ndcg_score
    from .demo_data import GRID_SEARCH_CODE, _paragraph, make_ltr_data, run_grid_search

    X, y, qid = make_ltr_data(seed=seed)
    n_queries = np.unique(qid).size
    _say(
        _paragraph(
            f"Part 2. Model selection on learning-to-rank data: {n_queries} queries x "
            f"{X.shape[0] // n_queries} documents, {X.shape[1]} features in X, relevance "
            "0-3 in y and the query of each row in qid. A regressor predicts the "
            "relevance of each row; GridSearchCV keeps the parameters whose predictions "
            "order the documents of held-out queries best by nDCG@10. The scorer is the "
            "object that sk_rankmetrics.get_scorer('ndcg@10') returns: scikit-learn has "
            "no scorer of that name (GridSearchCV(scoring='ndcg@10') raises an error), "
            "and its ndcg_score needs one row per query, not the long format of these "
            "data. This code runs now:"),
        "",
        textwrap.indent(GRID_SEARCH_CODE, "    "),
    )
    search = run_grid_search(X, y, qid)
    rows = [[str(p), f"{s:.4f}"] for p, s in zip(search.cv_results_["params"],
                                                  search.cv_results_["mean_test_score"])]
    random_ndcg = ndcg_score(y, np.zeros(y.shape), qid=qid, k=10)
    _say(
        table(["params", "mean nDCG@10 of 3 folds"], rows),
        f"best: {search.best_params_} (nDCG@10 = {search.best_score_:.4f})",
        _paragraph(
            "For comparison, a random order of each query's documents scores "
            f"{random_ndcg:.4f} (all scores tied: the package gives the exact expected "
            "value over the orders of a tie)."),
    )
    return search


def main(args):
    from .demo_data import demo_intro, demo_table

    _say(demo_intro(seed=args.seed), "")
    _say(demo_table(seed=args.seed))
    if not args.no_grid_search:
        _say("")
        demo_grid_search(seed=args.seed)
    sys.stdout.flush()
    return 0


HELP = "score three rankers of seeded synthetic data, then a grid search"
DESCRIPTION = ("Score a random, a noisy and a good ranker of seeded synthetic data "
               "(300 queries x 50 items) with every metric, then print and run a "
               "short GridSearchCV scored by nDCG@10 per query.")


def add_arguments(dm):
    dm.add_argument("--seed", type=int, default=0, help="seed of the demo data")
    dm.add_argument("--no-grid-search", action="store_true",
                    help="skip the GridSearchCV part")
    return dm
