"""Slow, obviously correct reference implementations (plain Python loops).

Every fast kernel of the package is checked against these. Each function
scores ONE row given an explicit ranking (a list of item indices, best
first); ``brute_force`` averages a metric over every ordering of every tie
group that the scores allow.
"""

from __future__ import annotations

import itertools
import math
from fractions import Fraction

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


def average_precision(y, order, k=None, threshold=None, denominator="min_k_relevant",
                      mean="arithmetic"):
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


# --- measures beyond the core set: loops after trec_eval's C code -----------------------
# ``judged`` / ``pool`` are optional per-item flags (None: every item is judged).


def _flag(flags, i):
    return True if flags is None else bool(flags[i])


def _rel_j(y, i, threshold, judged):
    return _flag(judged, i) and _is_rel(y[i], threshold)


def err_over_orderings(rel, score, max_grade, k=None):
    """Mean ERR@k (k None: the whole row) over every ordering of the tie groups
    of a small row, each ordering summed position by position."""
    stop = (2.0 ** np.asarray(rel, dtype=float) - 1.0) / 2.0**max_grade
    groups = [list(np.flatnonzero(score == s)) for s in sorted(set(score.tolist()),
                                                               reverse=True)]
    total, count = 0.0, 0
    for perm in itertools.product(*(itertools.permutations(g) for g in groups)):
        order = [i for g in perm for i in g][:k]
        reach, v = 1.0, 0.0
        for p, i in enumerate(order, 1):
            v += reach * stop[i] / p
            reach *= 1.0 - stop[i]
        total, count = total + v, count + 1
    return total / count


def err(y, order, k=None, max_grade=4, normalize=False, judged=None):
    def stop(g):
        return (2.0 ** g - 1.0) / 2.0 ** max_grade

    def value(grades):
        out, reach = 0.0, 1.0
        for p, g in enumerate(grades, start=1):
            out += reach * stop(g) / p
            reach *= 1.0 - stop(g)
        return out

    grades = [y[i] if _flag(judged, i) else 0 for i in _cut(order, k)]
    v = value(grades)
    if not any(y[i] > 0 and _flag(judged, i) for i in range(len(y))):
        return None
    if not normalize:
        return v
    ideal = sorted((y[i] if _flag(judged, i) else 0 for i in range(len(y))), reverse=True)
    best = value(ideal if k is None else ideal[:k])
    return None if best == 0 else v / best


def rbp(y, order, k=None, p=0.8, threshold=None, graded=False, judged=None):
    if graded:
        top = max([y[i] for i in range(len(y)) if _flag(judged, i)] + [0])
        scale = top if top > 1 else 1.0
        gains = [(y[i] / scale if _flag(judged, i) else 0.0) for i in _cut(order, k)]
    else:
        gains = [float(_rel_j(y, i, threshold, judged)) for i in _cut(order, k)]
    return (1 - p) * sum(g * p**i for i, g in enumerate(gains))


def rbp_resid(y, order, p=0.8, zero_if_judged=False, judged=None):
    unj = [i for i in range(len(order)) if not _flag(judged, order[i])]
    if zero_if_judged and not unj:
        return 0.0
    return p ** len(order) + (1 - p) * sum(p**i for i in unj)


def f1(y, order, k=None, threshold=None, beta=1.0, judged=None):
    R = sum(_rel_j(y, i, threshold, judged) for i in range(len(y)))
    if R == 0:
        return None
    hits = sum(_rel_j(y, i, threshold, judged) for i in _cut(order, k))
    kk = len(order) if k is None else k
    b2 = Fraction(beta) ** 2  # exact, for any k
    return float((1 + b2) * hits / (b2 * R + kk))


def bpref(y, order, threshold=None, judged=None, mean="arithmetic"):
    R = sum(_rel_j(y, i, threshold, judged) for i in range(len(y)))
    if R == 0:
        return None
    N = sum(_flag(judged, i) and not _is_rel(y[i], threshold) for i in range(len(y)))
    total, nonrel = 0.0, 0
    for i in order:
        if not _flag(judged, i):
            continue
        if not _is_rel(y[i], threshold):
            nonrel += 1
        else:
            total += 1.0 - min(nonrel, R) / min(N, R) if nonrel > 0 else 1.0
    return total / R


def infap(y, order, threshold=None, judged=None, pool=None):
    R = sum(_rel_j(y, i, threshold, judged) for i in range(len(y)))
    if R == 0:
        return None
    total, rel, nonrel, unj = 0.0, 0, 0, 0
    for j, i in enumerate(order):
        if not _flag(pool if pool is not None else judged, i):
            continue
        if not _flag(judged, i):
            unj += 1
            continue
        if not _is_rel(y[i], threshold):
            nonrel += 1
            continue
        rel += 1
        if j == 0:
            total += 1.0
        else:
            total += 1.0 / (j + 1) + (j / (j + 1)) * ((rel - 1 + nonrel + unj) / j) * (
                (rel - 1 + 1e-5) / (rel - 1 + nonrel + 2e-5))
    return total / R


def judged(y, order, k=None, pool=None):
    top = _cut(order, k)
    if not top:
        return 0.0
    return sum(_flag(pool, i) for i in top) / len(top)


def unjudged(y, order, k=None, judged=None):
    top = _cut(order, k)
    kk = len(order) if k is None else k
    return sum(not _flag(judged, i) for i in top) / kk if kk else 0.0


def _counts(y, order, threshold, judged):
    R = sum(_rel_j(y, i, threshold, judged) for i in range(len(y)))
    hits = sum(_rel_j(y, i, threshold, judged) for i in order)
    return R, hits, len(order)


def num_ret(y, order):
    return float(len(order))


def num_rel(y, order, threshold=None, judged=None):
    return float(_counts(y, order, threshold, judged)[0])


def num_rel_ret(y, order, threshold=None, judged=None):
    return float(_counts(y, order, threshold, judged)[1])


def num_nonrel_judged_ret(y, order, threshold=None, judged=None):
    return float(sum(_flag(judged, i) and not _is_rel(y[i], threshold) for i in order))


def num_q(y, order):
    return 1.0


def set_p(y, order, threshold=None, judged=None):
    R, hits, n = _counts(y, order, threshold, judged)
    return None if R == 0 else (hits / n if n else 0.0)


def set_recall(y, order, threshold=None, judged=None):
    R, hits, _ = _counts(y, order, threshold, judged)
    return None if R == 0 else hits / R


def set_f(y, order, threshold=None, beta=1.0, judged=None):
    R, hits, n = _counts(y, order, threshold, judged)
    if R == 0:
        return None
    if hits == 0:
        return 0.0
    P, Rc = hits / n, hits / R
    return (1 + beta**2) * P * Rc / (beta**2 * P + Rc)


def set_map(y, order, threshold=None, judged=None):
    R, hits, n = _counts(y, order, threshold, judged)
    return None if R == 0 else (hits * hits / (n * R) if n else 0.0)


def set_relative_p(y, order, threshold=None, judged=None):
    R, hits, n = _counts(y, order, threshold, judged)
    return None if R == 0 else (hits / min(n, R) if n else 0.0)


def utility(y, order, threshold=None, payoffs=(1.0, -1.0, 0.0, 0.0), n_docs=0, judged=None):
    R, hits, n = _counts(y, order, threshold, judged)
    a, b, c, d = hits, n - hits, R - hits, n_docs + hits - n - R
    return payoffs[0] * a + payoffs[1] * b + payoffs[2] * c + payoffs[3] * d


def relative_p(y, order, k=None, threshold=None, judged=None):
    R = sum(_rel_j(y, i, threshold, judged) for i in range(len(y)))
    if R == 0:
        return None
    hits = sum(_rel_j(y, i, threshold, judged) for i in _cut(order, k))
    kk = len(order) if k is None else k
    return hits / min(kk, R) if kk else 0.0


def rprec_mult(y, order, multiple=1.0, threshold=None, judged=None):
    R = sum(_rel_j(y, i, threshold, judged) for i in range(len(y)))
    if R == 0:
        return None
    c = int(multiple * R + 0.9)
    return sum(_rel_j(y, i, threshold, judged) for i in order[:c]) / c


def _iprec(y, order, levels, threshold, judged, recall_rounding="lround"):
    """trec_eval's interpolated precision, its loop from the bottom of the ranking
    (trec_eval 10's lround, or trec_eval 9's + 0.9 and truncation)."""
    R = sum(_rel_j(y, i, threshold, judged) for i in range(len(y)))
    if R == 0:
        return None
    rels = [_rel_j(y, i, threshold, judged) for i in order]
    n, found = len(rels), sum(rels)
    if recall_rounding == "plus_0.9":
        cutoffs = [int(lv * R + 0.9) for lv in levels]
    else:
        cutoffs = [math.floor(lv * R + 0.5) for lv in levels]  # lround, x >= 0
    out = [0.0] * len(levels)
    cur = len(levels) - 1
    while cur >= 0 and cutoffs[cur] > found:
        cur -= 1
    prec = found / n if n else 0.0
    best, so_far = prec, found
    i = n
    while i > 0 and so_far > 0:
        prec = so_far / i
        best = max(best, prec)
        if rels[i - 1]:
            while cur >= 0 and so_far == cutoffs[cur]:
                out[cur] = best
                cur -= 1
            so_far -= 1
        i -= 1
    while cur >= 0:
        out[cur] = best
        cur -= 1
    return out


def iprec_at_recall(y, order, recall=0.0, threshold=None, judged=None,
                    recall_rounding="lround"):
    out = _iprec(y, order, [recall], threshold, judged, recall_rounding)
    return None if out is None else out[0]


def eleven_pt_avg(y, order, threshold=None, recall_levels=tuple(i / 10 for i in range(11)),
                  judged=None, recall_rounding="lround"):
    out = _iprec(y, order, list(recall_levels), threshold, judged, recall_rounding)
    return None if out is None else sum(out) / len(out)


def bing(y, order, threshold=None, judged=None):
    R = sum(_rel_j(y, i, threshold, judged) for i in range(len(y)))
    if R == 0:
        return None
    total, rel = 0.0, 0
    for i, d in enumerate(order):
        if _rel_j(y, d, threshold, judged):
            rel += 1
            total += 1.0 / math.log2(3 + i - rel)
    return total / R


def _gain_lists(y, order, gain, judged):
    """The ranking's gains and the ideal gains (judged items), best first."""
    got = [(_gain(y[i], gain) if _flag(judged, i) else 0.0) for i in order]
    ideal = sorted((_gain(y[i], gain) for i in range(len(y)) if _flag(judged, i)),
                   reverse=True)
    return got, ideal


def g(y, order, gain="linear", judged=None):
    got, ideal = _gain_lists(y, order, gain, judged)
    total = sum(v for v in ideal if v > 0)
    if total <= 0:
        return None
    out, cost, gained = 0.0, 0.0, 0.0
    for i, v in enumerate(got):
        gained += v
        cost += max(ideal[i] if i < len(ideal) else 0.0, 1.0)
        if v != 0:
            out += v / math.log2(2 + cost - gained)
    return out / total


def ndcg_rel(y, order, gain="linear", judged=None):
    got, ideal = _gain_lists(y, order, gain, judged)
    positive = [v for v in ideal if v > 0]
    P = len(positive)
    if P == 0:
        return None
    dcg = idcg = total = 0.0
    n_rel = 0
    for i, v in enumerate(got):
        dcg += v / math.log2(i + 2)
        if i < P:
            idcg += positive[i] / math.log2(i + 2)
        if v > 0:
            total += dcg / idcg
            n_rel += 1
    full = sum(v / math.log2(i + 2) for i, v in enumerate(positive))
    total += (P - n_rel) * dcg / full
    return total / P


def rndcg(y, order, gain="linear", judged=None, threshold=None):
    got, ideal = _gain_lists(y, order, gain, judged)
    positive = [v for v in ideal if v > 0]
    P = len(positive)
    if P == 0 or n_relevant(y, threshold) == 0:  # trec_eval: 0 without relevant at -l
        return None
    n = len(got)

    def dcg_to(m):
        return sum(v / math.log2(i + 2) for i, v in enumerate(got[:m]))

    def idcg_to(m):
        return sum(v / math.log2(i + 2) for i, v in enumerate(positive[:m]))

    points = []
    for i in range(1, P + 1):
        now = positive[i] if i < P else 0.0
        if now != positive[i - 1]:
            points.append(dcg_to(min(i, n)) / idcg_to(i))
    if P + 1 < n:
        points.append(dcg_to(n) / idcg_to(P))
    return sum(points) / len(points)


# -- C/W/L (cwl_eval, as ir_measures runs it): a ranking of exactly 1000 positions ---


CWL_DEPTH = 1000


def _cwl_gains(y, order, min_rel, max_rel, judged):
    """cwl_eval's gains: levels clipped to [min_rel, max_rel] and scaled to [0, 1],
    0 for an unjudged item and past the ranking."""
    gains = []
    for i in order[:CWL_DEPTH]:
        level = min(max(max(y[i], 0), min_rel), max_rel) if _flag(judged, i) else min_rel
        gains.append((level - min_rel) / (max_rel - min_rel))
    return gains + [0.0] * (CWL_DEPTH - len(gains))


def _cwl(gains, go_on):
    """sum_i W_i g_i, W_i the chance of reaching i over the sum of those chances;
    ``go_on(i, g)`` is C_i, the chance of going on from 1-based position i."""
    reach, total, weighted, seen = 1.0, 0.0, 0.0, 0.0
    for i, g in enumerate(gains, 1):
        total += reach
        weighted += reach * g
        seen += g
        reach *= go_on(i, g, seen)
    return weighted / total


def _before(k, i):
    return k is None or i < k


def nerr8(y, order, k=None, min_rel=0, max_rel=4, judged=None):
    gains = _cwl_gains(y, order, min_rel, max_rel, judged)
    return _cwl(gains, lambda i, g, seen: (1 - g) if _before(k, i) else 0.0)


def nerr9(y, order, k=None, min_rel=0, max_rel=4, judged=None):
    gains = _cwl_gains(y, order, min_rel, max_rel, judged)
    return _cwl(gains, lambda i, g, seen: i / (i + 1) * (1 - g) if _before(k, i) else 0.0)


def nerr10(y, order, p=0.9, min_rel=0, max_rel=4, judged=None):
    gains = _cwl_gains(y, order, min_rel, max_rel, judged)
    return _cwl(gains, lambda i, g, seen: p * (1 - g))


def nerr11(y, order, T=1.0, min_rel=0, max_rel=4, judged=None):
    gains = _cwl_gains(y, order, min_rel, max_rel, judged)
    return _cwl(gains, lambda i, g, seen: ((i + 2 * T - 1) / (i + 2 * T)) ** 2 * (1 - g))


def inst(y, order, T=1.0, min_rel=0, max_rel=4, judged=None):
    gains = _cwl_gains(y, order, min_rel, max_rel, judged)
    return _cwl(gains, lambda i, g, seen: ((i + T + (T - seen) - 1) / (i + T + (T - seen))) ** 2)


def insq(y, order, T=1.0, min_rel=0, max_rel=4, judged=None):
    gains = _cwl_gains(y, order, min_rel, max_rel, judged)
    return _cwl(gains, lambda i, g, seen: ((i + 2 * T - 1) / (i + 2 * T)) ** 2)


def sdcg(y, order, k=None, min_rel=0, max_rel=4, judged=None):
    gains = _cwl_gains(y, order, min_rel, max_rel, judged)
    return _cwl(gains, lambda i, g, seen: (math.log(i + 1) / math.log(i + 2)
                                           if _before(k, i) else 0.0))


def bpm(y, order, k=None, T=1.0, min_rel=0, max_rel=4, judged=None):
    gains = _cwl_gains(y, order, min_rel, max_rel, judged)
    return _cwl(gains, lambda i, g, seen: 1.0 if seen < T and _before(k, i) else 0.0)


def compat(y, order, p=0.95, normalize=True, judged=None):
    """Rank-biased overlap with the ideal (ir_measures' compat provider)."""
    ranking = list(order)
    place = {item: pos for pos, item in enumerate(ranking)}
    positive = [i for i in range(len(y)) if _flag(judged, i) and y[i] > 0]
    if not positive:
        return None
    ideal = sorted(positive, key=lambda i: (-y[i], place.get(i, len(y))))

    def rbo(a, b, depth):
        score = norm = 0.0
        for d in range(depth):
            score += p**d * len(set(a[:d + 1]) & set(b[:d + 1])) / (d + 1)
            norm += p**d
        return score / norm

    depth = max(len(ranking), len(ideal))
    value = rbo(ranking, ideal, depth)
    if normalize:
        value /= rbo(ideal, ideal, depth)
    return value


def accuracy(y, order, k=None, threshold=None, judged=None):
    """Share of the (relevant, non-relevant) pairs of the top k in the right order."""
    rel = [_rel_j(y, i, threshold, judged) for i in _cut(order, k)]
    m, n = sum(rel), len(rel) - sum(rel)
    if m == 0:
        return None  # no relevant item in the top k: ir_measures gives no value
    if n == 0:
        return 1.0
    right = sum(1 for a in range(len(rel)) for b in range(a + 1, len(rel))
                if rel[a] and not rel[b])
    return right / (m * n)


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
    "err": err,
    "rbp": rbp,
    "rbp_resid": rbp_resid,
    "f1": f1,
    "bpref": bpref,
    "infap": infap,
    "judged": judged,
    "unjudged": unjudged,
    "num_ret": num_ret,
    "num_rel": num_rel,
    "num_rel_ret": num_rel_ret,
    "num_nonrel_judged_ret": num_nonrel_judged_ret,
    "num_q": num_q,
    "set_p": set_p,
    "set_recall": set_recall,
    "set_f": set_f,
    "set_map": set_map,
    "set_relative_p": set_relative_p,
    "utility": utility,
    "relative_p": relative_p,
    "rprec_mult": rprec_mult,
    "iprec_at_recall": iprec_at_recall,
    "11pt_avg": eleven_pt_avg,
    "bing": bing,
    "g": g,
    "ndcg_rel": ndcg_rel,
    "rndcg": rndcg,
    "nerr8": nerr8,
    "nerr9": nerr9,
    "nerr10": nerr10,
    "nerr11": nerr11,
    "inst": inst,
    "insq": insq,
    "sdcg": sdcg,
    "bpm": bpm,
    "compat": compat,
    "accuracy": accuracy,
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


def brute_force(metric, y, scores, max_docs=None, **kwargs):
    """Mean of ``metric`` over every tie ordering (None when undefined).

    ``max_docs`` cuts each ordering first (trec_eval's -M)."""
    fn = METRICS[metric]
    vals = [fn(list(y), order[:max_docs], **kwargs) for order in orderings(list(scores))]
    if vals[0] is None:
        return None
    return sum(vals) / len(vals)


#: Metrics summed over rows (counts), not averaged.
SUMMED = {"num_ret", "num_rel", "num_rel_ret", "num_nonrel_judged_ret", "num_q"}


def reference_mean(metric, Y, S, weights=None, no_relevant=0.0, **kwargs):
    """Weighted mean over rows of the brute-force value, with a fill-in policy
    (a sum for counts; a geometric mean of max(value, 1e-5) with mean='geometric')."""
    geometric = kwargs.get("mean") == "geometric"
    vals, ws = [], []
    for i, (y, s) in enumerate(zip(Y, S)):
        v = brute_force(metric, y, s, **kwargs)
        if v is None:
            if no_relevant == "skip":
                continue
            v = no_relevant
        vals.append(v)
        ws.append(1.0 if weights is None else weights[i])
    if metric in SUMMED:
        return float(sum(w * v for w, v in zip(ws, vals)))
    if geometric:
        logs = [math.log(max(v, 1e-5)) for v in vals]
        return float(math.exp(np.average(logs, weights=ws)))
    return float(np.average(vals, weights=ws))


def article_playlist_ndcg(one_gt, one_rec, cap=100):
    """The playlist nDCG of the article "추천시스템의 성능을 비교 평가하기 위한
    지표인 nDCG", as its Python function: binary gains,
    natural log, ``cap`` recommendations (100)."""
    dcg = 0.0
    if len(one_gt) >= cap:
        idcg = sum(1.0 / np.log(i + 1) for i in range(1, cap + 1))
    else:
        idcg = sum(1.0 / np.log(i + 1) for i in range(1, len(one_gt) + 1))
    for i, r in enumerate(one_rec):
        if r in one_gt:
            dcg += 1.0 / np.log(i + 2)
    return dcg / idcg


#: The qrels and run of ranx's own tests (bpref_test.py, f1_test.py,
#: rank_biased_precision_test.py), used by the tests of the tool values and of
#: the docs' claims about ranx.
RANX_QRELS = {
    "q1": {"d2": 1, "d5": 1, "d1": 0, "d4": 0},
    "q2": {"d2": 1, "d5": 1, "d1": 0, "d6": 0},
    "q3": {"d2": 1, "d5": 1, "d7": 1, "d1": 0, "d6": 0, "d8": 0},
    "q4": {"d2": 1, "d4": 1, "d6": 1, "d9": 1, "d1": 0, "d3": 0, "d7": 0, "d8": 0},
}
RANX_RUN = {
    "q1": ["d1", "d2", "d3", "d4"],
    "q2": ["d1", "d2", "d3", "d4", "d5", "d6"],
    "q3": ["d1", "d2", "d3", "d4", "d5", "d6", "d7", "d8"],
    "q4": ["d1", "d2", "d3", "d4", "d6", "d7", "d8"],
}


def long_format_without(evaluate, y, s, excluded, metrics, **options):
    """What ``exclude=excluded`` must give: ``evaluate`` (the package's) on
    the pairs ``excluded`` leaves in, in long format, one query per row.

    Returns the per-row values of the rows that keep a pair and those rows;
    None when no row keeps two pairs (the long format needs one).
    """
    rows, cols = np.nonzero(~np.asarray(excluded, dtype=bool))
    if not rows.size or np.bincount(rows).max() < 2:
        return None
    values = evaluate(y[rows, cols], s[rows, cols], metrics, qid=rows, per_row=True, **options)
    return values, np.unique(rows)
