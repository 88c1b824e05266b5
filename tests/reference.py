"""Slow, obviously correct reference implementations (plain Python loops).

Every fast kernel of the package is checked against these. Each function
scores ONE row given an explicit ranking (a list of item indices, best
first); ``brute_force`` averages a metric over every ordering of every tie
group that the scores allow.
"""

from __future__ import annotations

import itertools
import math

import numpy as np


def _gain(r, gain):
    if gain == "linear":
        return float(r)
    if gain == "exponential":
        return 2.0 ** r - 1.0
    if isinstance(gain, dict):
        return float(gain[r])
    return float(gain(np.asarray([r], dtype=float))[0])


def _disc(p, discount="log", log_base=2):
    """Discount of the 1-based position p."""
    if discount == "log":
        return 1.0 / math.log(p + 1, log_base)
    if discount == "jarvelin":
        return 1.0 if p < log_base else 1.0 / math.log(p, log_base)
    if callable(discount):
        return float(discount(np.array([p]))[0])
    return float(discount[p - 1])


def _cut(order, k):
    return order if k is None else order[:k]


def dcg(y, order, k=None, gain="linear", discount="log", log_base=2):
    return sum(
        _gain(y[i], gain) * _disc(p, discount, log_base)
        for p, i in enumerate(_cut(order, k), start=1)
    )


def ideal_dcg(y, k=None, gain="linear", discount="log", log_base=2):
    gains = sorted((_gain(v, gain) for v in y), reverse=True)
    gains = gains if k is None else gains[:k]
    return sum(g * _disc(p, discount, log_base) for p, g in enumerate(gains, start=1))


def ndcg(y, order, k=None, gain="linear", discount="log", log_base=2):
    ideal = ideal_dcg(y, k, gain, discount, log_base)
    if ideal == 0:
        return None
    return dcg(y, order, k, gain, discount, log_base) / ideal


def cg(y, order, k=None, gain="linear"):
    return sum(_gain(y[i], gain) for i in _cut(order, k))


def _is_rel(v, threshold=None):
    return v > 0 if threshold is None else v >= threshold


def n_relevant(y, threshold=None):
    return sum(1 for v in y if _is_rel(v, threshold))


def precision(y, order, k=None, threshold=None, adaptive_k=False):
    if n_relevant(y, threshold) == 0:
        return None
    hits = sum(1 for i in _cut(order, k) if _is_rel(y[i], threshold))
    if k is None:
        return hits / len(order)
    return hits / (min(k, len(order)) if adaptive_k else k)


def recall(y, order, k=None, threshold=None):
    R = n_relevant(y, threshold)
    if R == 0:
        return None
    return sum(1 for i in _cut(order, k) if _is_rel(y[i], threshold)) / R


def hit_rate(y, order, k=None, threshold=None):
    if n_relevant(y, threshold) == 0:
        return None
    return float(any(_is_rel(y[i], threshold) for i in _cut(order, k)))


def reciprocal_rank(y, order, k=None, threshold=None):
    if n_relevant(y, threshold) == 0:
        return None
    for p, i in enumerate(_cut(order, k), start=1):
        if _is_rel(y[i], threshold):
            return 1.0 / p
    return 0.0


def average_precision(y, order, k=None, threshold=None, denominator="min_k_relevant"):
    R = n_relevant(y, threshold)
    if R == 0:
        return None
    found, total = 0, 0.0
    for p, i in enumerate(_cut(order, k), start=1):
        if _is_rel(y[i], threshold):
            found += 1
            total += found / p
    if k is None or denominator == "relevant":
        return total / R
    return total / min(k, R)


def r_precision(y, order, threshold=None):
    R = n_relevant(y, threshold)
    if R == 0:
        return None
    return sum(1 for i in order[:R] if _is_rel(y[i], threshold)) / R


METRICS = {
    "ndcg": ndcg,
    "dcg": dcg,
    "cg": cg,
    "map": average_precision,
    "precision": precision,
    "recall": recall,
    "hit_rate": hit_rate,
    "mrr": reciprocal_rank,
    "r_precision": r_precision,
}


def orderings(scores):
    """Every ranking (best first) that the scores allow, ties in all orders."""
    levels = sorted(set(scores), reverse=True)
    groups = [[i for i, s in enumerate(scores) if s == v] for v in levels]
    for parts in itertools.product(*(itertools.permutations(g) for g in groups)):
        yield [i for part in parts for i in part]


def stable_order(scores):
    """A single ranking: by score, descending; ties by index."""
    return sorted(range(len(scores)), key=lambda i: -scores[i])


def brute_force(metric, y, scores, **kwargs):
    """Mean of ``metric`` over every tie ordering (None when undefined)."""
    fn = METRICS[metric]
    vals = [fn(list(y), order, **kwargs) for order in orderings(list(scores))]
    if vals[0] is None:
        return None
    return sum(vals) / len(vals)


def reference_mean(metric, Y, S, weights=None, no_relevant=0.0, **kwargs):
    """Weighted mean over rows of the brute-force value, with a fill-in policy."""
    vals, ws = [], []
    for i, (y, s) in enumerate(zip(Y, S)):
        v = brute_force(metric, y, s, **kwargs)
        if v is None:
            if no_relevant == "skip":
                continue
            v = no_relevant
        vals.append(v)
        ws.append(1.0 if weights is None else weights[i])
    return float(np.average(vals, weights=ws))


def article_playlist_ndcg(one_gt, one_rec, cap=100):
    """The playlist nDCG of the Korean nDCG article (``shared/seeds``), as its
    Python function: binary gains, natural log, ``cap`` recommendations (100)."""
    dcg = 0.0
    if len(one_gt) >= cap:
        idcg = sum(1.0 / np.log(i + 1) for i in range(1, cap + 1))
    else:
        idcg = sum(1.0 / np.log(i + 1) for i in range(1, len(one_gt) + 1))
    for i, r in enumerate(one_rec):
        if r in one_gt:
            dcg += 1.0 / np.log(i + 2)
    return dcg / idcg
