"""A small seeded demo data set: graded relevance and a noisy ranker's scores."""

from __future__ import annotations

import numpy as np


def make_demo_data(n_queries=300, n_items=50, *, noise=1.0, seed=0):
    """Seeded demo rankings: ``(y_true, y_score)`` of shape (n_queries, n_items).

    Each item has a latent quality; relevance is the quality binned into
    levels 0-3 (most items irrelevant), and the score is the quality plus
    Gaussian noise of standard deviation ``noise``.

    Parameters
    ----------
    n_queries, n_items : int
        Shape of the matrices.
    noise : float, default=1.0
        Noise of the scores; 0 gives a perfect ranking.
    seed : int, default=0
        Seed of the generator.

    Returns
    -------
    y_true : ndarray of shape (n_queries, n_items), int
    y_score : ndarray of shape (n_queries, n_items), float

    Examples
    --------
    >>> from sk_rankmetrics._demo import make_demo_data
    >>> y_true, y_score = make_demo_data(n_queries=4, n_items=6)
    >>> y_true.shape, y_score.shape
    ((4, 6), (4, 6))
    """
    rng = np.random.default_rng(seed)
    quality = rng.normal(size=(n_queries, n_items))
    y_true = np.digitize(quality, [0.8, 1.4, 2.0])
    y_score = quality + noise * rng.normal(size=quality.shape)
    return y_true, y_score


DEMO_METRICS = (
    "ndcg@10", "ndcg_exp@10", "dcg@10", "cg@10", "map@10", "precision@5",
    "recall@20", "hit_rate@10", "mrr", "r_precision",
)


def demo_table(seed=0):
    """Text table of every metric on the demo data, for a noisy and a good ranker."""
    from ._ranking import evaluate

    lines = [f"{'metric':<14}{'noisy ranker':>14}{'good ranker':>14}"]
    results = []
    for noise in (1.0, 0.3):
        y_true, y_score = make_demo_data(noise=noise, seed=seed)
        results.append(evaluate(y_true, y_score, DEMO_METRICS, no_relevant="skip"))
    for name in DEMO_METRICS:
        lines.append(f"{name:<14}{results[0][name]:>14.4f}{results[1][name]:>14.4f}")
    return "\n".join(lines)
