"""Slow, obviously correct references of the diversity measures: plain loops over
one ranking, written from the definitions (ndeval's, Clarke et al.'s), for the
fast kernels of ``sk_rankmetrics/_metrics/kernels/diversity.py`` to be checked
against.

A query is given as ``judged``: ``{doc: set of subtopics it is relevant to}``
(relevance already binarised), and ``ranking``: the ranked documents, best
first.
"""

from __future__ import annotations

import math


def _subtopics(judged):
    return sorted({s for subs in judged.values() for s in subs})


def novelty_gains(ranking, judged, alpha):
    seen = {}
    out = []
    for doc in ranking:
        g = 0.0
        for s in sorted(judged.get(doc, ())):
            g += (1 - alpha) ** seen.get(s, 0)
            seen[s] = seen.get(s, 0) + 1
        out.append(g)
    return out


def greedy_ideal(judged, alpha, depth):
    """The greedy ideal: the largest gain first, ties to the largest doc id."""
    left = sorted(judged)
    gain = {s: 1.0 for s in _subtopics(judged)}
    out = []
    for _ in range(min(depth, len(left))):
        best, best_doc = None, None
        for doc in left:  # ascending ids: a later equal score wins
            score = 0.0
            for s in sorted(judged[doc]):
                score += gain[s]
            if best is None or score >= best:
                best, best_doc = score, doc
        left.remove(best_doc)
        for s in judged[best_doc]:
            gain[s] *= 1 - alpha
        out.append(best)
    return out


def _disc(i):
    return math.log(2) / math.log(i + 2)


def _weighted(gains, k, w):
    return sum(g * w(i) for i, g in enumerate(gains[:k]))


def alpha_ndcg(ranking, judged, k, alpha=0.5):
    S = len(_subtopics(judged))
    if S == 0:
        return None
    run = _weighted(novelty_gains(ranking, judged, alpha), k, _disc)
    ideal = _weighted(greedy_ideal(judged, alpha, k), k, _disc)
    return run / ideal if run else 0.0


def nerr_ia(ranking, judged, k, alpha=0.5):
    S = len(_subtopics(judged))
    if S == 0:
        return None
    w = lambda i: 1 / (i + 1)  # noqa: E731
    run = _weighted(novelty_gains(ranking, judged, alpha), k, w)
    ideal = _weighted(greedy_ideal(judged, alpha, k), k, w)
    return run / ideal if run else 0.0


def _ideal_ideal_normalised(ranking, judged, k, alpha, w):
    S = len(_subtopics(judged))
    if S == 0:
        return 0.0
    run = _weighted(novelty_gains(ranking, judged, alpha), k, w)
    if k == 1:  # ndeval leaves position 1 as it is
        return run
    return run / sum(S * (1 - alpha) ** i * w(i) for i in range(k))


def alpha_dcg(ranking, judged, k, alpha=0.5):
    return _ideal_ideal_normalised(ranking, judged, k, alpha, _disc)


def err_ia(ranking, judged, k, alpha=0.5):
    return _ideal_ideal_normalised(ranking, judged, k, alpha, lambda i: 1 / (i + 1))


def nrbp(ranking, judged, alpha=0.5, beta=0.5):
    S = len(_subtopics(judged))
    if S == 0:
        return None
    gains = novelty_gains(ranking, judged, alpha)
    return sum(g * beta**i for i, g in enumerate(gains)) * (1 - (1 - alpha) * beta) / S


def nnrbp(ranking, judged, alpha=0.5, beta=0.5):
    S = len(_subtopics(judged))
    if S == 0:
        return None
    gains = novelty_gains(ranking, judged, alpha)
    ideal = greedy_ideal(judged, alpha, len(judged))
    run = sum(g * beta**i for i, g in enumerate(gains))
    return run / sum(g * beta**i for i, g in enumerate(ideal))


def ap_ia(ranking, judged):
    subs = _subtopics(judged)
    if not subs:
        return None
    total = 0.0
    for s in subs:
        n_rel = sum(1 for d in judged if s in judged[d])
        hits, ap = 0, 0.0
        for i, doc in enumerate(ranking):
            if s in judged.get(doc, ()):
                hits += 1
                ap += hits / (i + 1)
        total += ap / n_rel
    return total / len(subs)


def p_ia(ranking, judged, k):
    S = len(_subtopics(judged))
    if S == 0:
        return None
    return sum(len(judged.get(d, ())) for d in ranking[:k]) / (k * S)


def subtopic_recall(ranking, judged, k):
    subs = _subtopics(judged)
    if not subs:
        return None
    covered = set()
    for d in ranking[:k]:
        covered |= set(judged.get(d, ()))
    return len(covered) / len(subs)
