r"""The fusion methods that read positions beyond one formula: the pairwise
majority of Condorcet, and the methods trained on judgements (ProbFuse,
SegFuse, SlideFuse, PosFuse, BayesFuse, MAPFuse), as ranx defines them.

Each works on the candidate table of :mod:`.fusion` (one row per query and
candidate document, one column per run, with each run's 0-based position
``pos`` and list length ``length`` for the query) and is a few NumPy
operations over all queries at once. The training reads the hit list of
each run on each query of the training qrels (1 where the document at that
position is judged relevant, ``relevance >= 1``), as ranx does.
"""

from __future__ import annotations

import numpy as np

from .._utils.arrays import flatnonzero
from .._utils.errors import InvalidParameterError, short_repr, warn

#: ranx's position of a document a run did not retrieve (Condorcet).
MISSING = 1_000_000
#: SegFuse's segment bounds: 0, then 10 * 2**(k - 1) - 5 for k = 1..10.
SEG_BOUNDS = np.array([0] + [10 * 2 ** (k - 1) - 5 for k in range(1, 11)])
#: BayesFuse's segment bounds.
BAYES_CUTS = np.array([0, 5, 10, 15, 20, 30, 100, 200, 500, 1000])
#: BayesFuse's log-odds of a document a run did not retrieve.
MIN_ODD = float(np.log(0.001 / 0.999))
#: The trained methods and the parameters they read (ranx's names).
TRAINED = {"probfuse": ("probs",), "segfuse": ("probs",), "slidefuse": ("probs", "w"),
           "posfuse": ("probs",), "bayesfuse": ("log_odds",), "mapfuse": ("map_scores",)}
CONDORCET = {"condorcet": (), "w_condorcet": ("weights",)}


# --- Condorcet -----------------------------------------------------------------

def _condorcet_wins(t, weights):
    """For each candidate row, how many candidates of its query it beats
    strictly: ``x`` beats ``y`` when ranx's comparison puts ``x`` first
    (``x``'s votes >= ``y``'s) and not ``y`` first. Computed on padded blocks
    of queries (a pairwise count per query, no loop over queries inside a
    block)."""
    n = t.q_of_row.shape[0]
    n_runs = t.pos.shape[1]
    wins = np.zeros(n, dtype=np.int64)
    if n == 0:
        return wins
    n_q = t.queries.shape[0]
    counts = np.bincount(t.q_of_row, minlength=n_q)
    first = np.cumsum(counts) - counts
    slot = np.arange(n) - first[t.q_of_row]
    idx = np.where(t.present, t.pos, float(MISSING))
    w = np.ones(n_runs) if weights is None else np.asarray(weights, dtype=np.float64)
    width = int(counts.max())
    per_query = max(width * width * (n_runs + 3), 1)
    step = max(1, int(2e7 // per_query))
    for a in range(0, n_q, step):
        b = min(n_q, a + step)
        r0, r1 = int(first[a]), int(first[b - 1] + counts[b - 1])
        cq = b - a
        local_q = t.q_of_row[r0:r1] - a
        block = np.full((cq, width, n_runs), np.inf)
        block[local_q, slot[r0:r1]] = idx[r0:r1]
        valid = np.zeros((cq, width), dtype=bool)
        valid[local_q, slot[r0:r1]] = True
        x_votes = np.zeros((cq, width, width))
        y_votes = np.zeros((cq, width, width))
        for r in range(n_runs):  # in run order, as ranx adds the votes
            less = block[:, :, None, r] < block[:, None, :, r]
            x_votes += np.where(less, w[r], 0.0)
            y_votes += np.where(less, 0.0, w[r])
        first_xy = x_votes >= y_votes
        strict = first_xy & ~first_xy.transpose(0, 2, 1) & valid[:, None, :]
        wins[r0:r1] = strict.sum(axis=2)[local_q, slot[r0:r1]]
    return wins


def _places(t, wins):
    """0-based place of each row in its query's majority order: most strict
    wins first, ties by document id (the row order)."""
    n = wins.shape[0]
    order = np.lexsort((np.arange(n), -wins, t.q_of_row))
    counts = np.bincount(t.q_of_row, minlength=t.queries.shape[0])
    first = np.cumsum(counts) - counts
    place = np.empty(n)
    place[order] = np.arange(n) - first[t.q_of_row[order]]
    return place


def condorcet_scores(t, weights=None):
    """ranx's Condorcet score ``N - i`` (``N`` the query's candidates, ``i``
    the 0-based place in the majority order)."""
    return t.n_cand - _places(t, _condorcet_wins(t, weights))


def condorcet_is_determined(t, weights=None):
    """Per query: whether the strict majority is a total order (the wins are
    N - 1, ..., 1, 0), the one case where ranx's sort has a single outcome."""
    wins = _condorcet_wins(t, weights)
    off = wins != t.n_cand - 1 - _places(t, wins)
    return np.bincount(t.q_of_row, weights=off, minlength=t.queries.shape[0]) == 0


# --- Training --------------------------------------------------------------------

def hits(t, qrels):
    """``(relevant, trained)``: for each candidate row, whether the training
    qrels judge it relevant (``relevance >= 1``); for each query of the table,
    whether the qrels hold it; and the number of queries of the qrels."""
    from .runs import as_qrels

    qr = as_qrels(qrels)
    qid, docno = np.asarray(qr.qid).astype(str), np.asarray(qr.docno).astype(str)
    rel = np.asarray(qr.relevance, dtype=np.float64)
    n_docs = t.docs.shape[0]
    qi = np.searchsorted(t.queries, qid)
    qi = np.minimum(qi, max(t.queries.shape[0] - 1, 0))
    q_ok = t.queries[qi] == qid if t.queries.shape[0] else np.zeros(qid.shape[0], bool)
    di = np.minimum(np.searchsorted(t.docs, docno), max(n_docs - 1, 0))
    d_ok = t.docs[di] == docno if n_docs else np.zeros(docno.shape[0], bool)
    keys = t.q_of_row * n_docs + t.d_of_row
    want = (qi * n_docs + di)[q_ok & d_ok & (rel >= 1)]
    relevant = np.zeros(keys.shape[0], dtype=bool)
    if want.shape[0]:
        at = np.minimum(np.searchsorted(keys, want), keys.shape[0] - 1)
        relevant[at[keys[at] == want]] = True
    trained = np.zeros(t.queries.shape[0], dtype=bool)
    trained[qi[q_ok]] = True
    return relevant, trained, int(np.unique(qid).shape[0])


def check_training(t, qrels, where="fuse"):
    """Refuse training judgements that train nothing; warn, with counts, when
    they and the runs hold different queries (the training then reads the
    queries both hold, and counts a judged query no run holds as one whose
    lists retrieve nothing relevant)."""
    from .runs import as_qrels

    qr = as_qrels(qrels)
    qid = np.unique(np.asarray(qr.qid).astype(str))
    if qid.shape[0] == 0:
        raise InvalidParameterError(
            f"{where}: qrels holds no judgement; the trained methods learn from "
            "judged queries of the runs: give at least one.")
    held = np.isin(qid, t.queries)
    if not held.any():
        raise InvalidParameterError(
            f"{where}: the training qrels hold none of the runs' queries (the training reads "
            "each run's list for each query of the qrels): give the runs of the training "
            "queries too.")
    unjudged = t.queries[~np.isin(t.queries, qid)]
    if unjudged.shape[0]:
        warn(
            f"{where}: {unjudged.shape[0]} of the runs' {t.queries.shape[0]} queries are not in "
            f"the training qrels (first: {str(unjudged[0])!r}); the training reads the "
            f"{int(held.sum())} judged queries only (ranx refuses runs and qrels of different "
            "queries).", UserWarning)
    missing = qid[~held]
    if missing.shape[0]:
        warn(
            f"{where}: {missing.shape[0]} of the training qrels' {qid.shape[0]} queries are in "
            f"no run (first: {str(missing[0])!r}); each counts as a query whose lists retrieve "
            "nothing relevant (ranx refuses runs and qrels of different queries).",
            UserWarning)
    if not (np.asarray(qr.relevance, dtype=np.float64) >= 1).any():
        warn(
            f"{where}: no judgement of the training qrels is relevant (relevance >= 1): "
            "every trained probability is 0.", UserWarning)


def _rows(t, r, trained):
    """The rows run ``r`` retrieved for a training query."""
    return t.present[:, r] & trained[t.q_of_row]


def position_probs(t, relevant, trained):
    """Per run, the share of the training queries whose list reaches position
    ``i`` that have a relevant document there (PosFuse, SlideFuse)."""
    out = []
    for r in range(t.pos.shape[1]):
        m = _rows(t, r, trained)
        pos = t.pos[m, r].astype(np.int64)
        size = int(pos.max(initial=-1)) + 1
        den = np.bincount(pos, minlength=size).astype(np.float64)
        num = np.bincount(pos, weights=relevant[m].astype(np.float64), minlength=size)
        out.append(num / np.maximum(den, 1))
    return out


def segment_probs(t, relevant, trained, n_queries, n_segments):
    """Per run, ProbFuse's probability of a relevant document in each of
    ``n_segments`` segments of ``ceil(L / n_segments)`` positions."""
    out = []
    for r in range(t.pos.shape[1]):
        m = _rows(t, r, trained)
        pos = t.pos[m, r].astype(np.int64)
        length = t.length[m, r].astype(np.int64)
        size = -(-length // n_segments)
        seg = pos // size
        seg_len = np.minimum(size, length - seg * size)
        probs = np.bincount(seg, weights=relevant[m] / seg_len, minlength=n_segments)
        out.append(probs[:n_segments] / n_queries)
    return out


def segfuse_probs(t, relevant, trained, n_queries):
    """Per run, SegFuse's share of relevant documents in each segment."""
    out = []
    widths = np.diff(SEG_BOUNDS).astype(np.float64)
    for r in range(t.pos.shape[1]):
        m = _rows(t, r, trained) & (t.pos[:, r] < SEG_BOUNDS[-1])
        seg = np.searchsorted(SEG_BOUNDS, t.pos[m, r], side="right") - 1
        probs = np.bincount(seg, weights=relevant[m] / widths[seg], minlength=10)
        out.append(probs / n_queries)
    return out


def bayes_log_odds(t, relevant, trained, n_queries):
    """Per run, BayesFuse's log-odds of relevance at each of 1,000 positions,
    one value per segment of ``BAYES_CUTS``."""
    out = []
    widths = np.diff(BAYES_CUTS).astype(np.float64)
    for r in range(t.pos.shape[1]):
        m = _rows(t, r, trained) & (t.pos[:, r] < BAYES_CUTS[-1])
        seg = np.searchsorted(BAYES_CUTS, t.pos[m, r], side="right") - 1
        prec = np.bincount(seg, weights=relevant[m] / widths[seg], minlength=9) / n_queries
        prec = np.where(prec == 0, 0.001, prec)
        neg = np.where(1 - prec == 0, 0.001, 1 - prec)
        out.append(np.repeat(np.log(prec / neg), widths.astype(np.int64)))
    return out


def map_scores(t, relevant, trained, n_queries, n_relevant):
    """Per run, the mean average precision over the training queries (ranx's
    ``map``: a query without a relevant document counts 0)."""
    out = []
    for r in range(t.pos.shape[1]):
        m = _rows(t, r, trained)
        q, pos, h = t.q_of_row[m], t.pos[m, r], relevant[m]
        order = np.lexsort((pos, q))
        q, pos, h = q[order], pos[order], h[order].astype(np.float64)
        csum = np.cumsum(h)
        counts = np.bincount(q, minlength=t.queries.shape[0])
        before = (np.cumsum(counts) - counts)[q]
        start_sum = np.concatenate([[0.0], csum])[before]
        prec = (csum - start_sum) / (pos + 1.0)
        ap = np.bincount(q, weights=prec * h, minlength=t.queries.shape[0])
        ap = np.where(n_relevant > 0, ap / np.maximum(n_relevant, 1), 0.0)
        out.append(float(ap[trained].sum() / n_queries))
    return out


def train(t, qrels, method, *, n_segments=None):
    """The trained parameters of ``method`` from the judgements ``qrels``."""
    relevant, trained, n_queries = hits(t, qrels)
    if method in ("posfuse", "slidefuse"):
        return {"probs": position_probs(t, relevant, trained)}
    if method == "probfuse":
        return {"probs": segment_probs(t, relevant, trained, n_queries, n_segments)}
    if method == "segfuse":
        return {"probs": segfuse_probs(t, relevant, trained, n_queries)}
    if method == "bayesfuse":
        return {"log_odds": bayes_log_odds(t, relevant, trained, n_queries)}
    if method == "mapfuse":
        from .runs import as_qrels

        qr = as_qrels(qrels)
        qid = np.asarray(qr.qid).astype(str)
        good = np.asarray(qr.relevance, dtype=np.float64) >= 1
        qi = np.searchsorted(t.queries, qid[good])
        ok = (qi < t.queries.shape[0])
        ok[ok] = t.queries[qi[ok]] == qid[good][ok]
        n_rel = np.bincount(qi[ok], minlength=t.queries.shape[0]).astype(np.float64)
        return {"map_scores": map_scores(t, relevant, trained, n_queries, n_rel)}
    raise AssertionError(method)


#: The trained methods whose training also searches a number, ranx's range for it.
SEARCHED = {"probfuse": ("n_segments", 1, 100), "slidefuse": ("w", 1, 100)}
#: Every parameter of the methods, at its default.
BASE = {"k": 60, "phi": 0.8, "gamma": 1.0, "sigma": 0.01, "weights": None, "probs": None,
        "w": None, "log_odds": None, "map_scores": None}


def mean_score(qrels, fused, metric):
    """The mean of ``metric`` over the queries of ``qrels`` on a fused run
    ``(qid, docno, score)``."""
    import warnings

    from .runs import evaluate_run
    from .trec import TrecRun

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # queries without a relevant document, ...
        score = evaluate_run(qrels, TrecRun(*fused), [metric]).mean
    return float(next(iter(score.values())))


def train_search(prepared, qrels, method, metric, combine, where="fuse"):
    """``(best, report)`` of a trained method: its training, and for
    ``probfuse`` the number of segments, for ``slidefuse`` the window, chosen
    as ranx does (1, 2, ..., 100 tried in turn; the last of the best wins).
    ``combine`` fuses the prepared runs (passed in: this module sits below
    the one that defines it)."""
    from .runs import as_qrels

    qrels = as_qrels(qrels)  # read once: up to 100 trainings and scorings read it
    t = prepared[0]
    check_training(t, qrels, where)
    if method not in SEARCHED:
        return train(t, qrels, method), {}
    name, low, high = SEARCHED[method]
    best, best_score, report = None, 0.0, {}
    base = train(t, qrels, method, n_segments=1) if method == "slidefuse" else None
    for value in range(low, high + 1):
        if method == "probfuse":
            config = train(t, qrels, method, n_segments=value)
        else:
            config = {**base, "w": value}
        score = mean_score(qrels, combine(prepared, method, {**BASE, **config}), metric)
        report[str(value)] = score
        if score >= best_score:
            best, best_score = config, score
    if best is None:
        raise ValueError(f"every {name} of {method} scores {metric} below 0: nothing to choose.")
    return best, report


# --- Scoring ----------------------------------------------------------------------

def _per_run(values, n_runs, name, method):
    if values is None:
        raise InvalidParameterError(
            f"fuse: the {method} method needs its trained {name}, or the training "
            "judgements to learn them from.")
    try:
        seq = list(values)
    except TypeError:
        seq = None
    if seq is None or len(seq) != n_runs:
        raise InvalidParameterError(
            f"fuse: {name} must give one entry per run ({n_runs}), got {short_repr(values)}.")
    return seq


#: The range of each trained value: (lowest, highest).
_RANGES = {"probs": (0.0, 1.0), "log_odds": (-np.inf, np.inf), "map_scores": (0.0, 1.0)}
#: The length of each run's probs where the method fixes it.
_LENGTHS = {"segfuse": SEG_BOUNDS.shape[0] - 1}


def _vector(x, name, method, r):
    """Run ``r``'s trained values: a flat array of finite numbers within the
    range of ``name`` (probabilities and MAP in [0, 1]) and, for ``segfuse``,
    one per segment."""
    try:
        a = np.asarray(x, dtype=np.float64)
    except (TypeError, ValueError):
        a = None
    if a is None or a.ndim != (0 if name == "map_scores" else 1):
        shape = "a number" if name == "map_scores" else "a list of numbers"
        raise InvalidParameterError(
            f"fuse: {name}[{r}] of {method} must be {shape}, got {short_repr(x)}.")
    low, high = _RANGES[name]
    bad = ~(np.isfinite(a) & (a >= low) & (a <= high))
    if bad.any():
        value = float(a.reshape(-1)[int(flatnonzero(bad.reshape(-1))[0])])
        accepted = "finite numbers" if name == "log_odds" else f"numbers in [{low:g}, {high:g}]"
        raise InvalidParameterError(
            f"fuse: {name}[{r}] of {method} holds {value!r}; the trained {name} are "
            f"{accepted}.")
    want = _LENGTHS.get(method) if name == "probs" else None
    if want is not None and a.shape[0] != want:
        raise InvalidParameterError(
            f"fuse: probs[{r}] of {method} gives {a.shape[0]} probabilities; {method} has "
            f"{want}, one per segment of 5, 10, 20, ..., 2560 positions.")
    if name != "map_scores" and a.shape[0] == 0 and method in ("probfuse", "bayesfuse"):
        raise InvalidParameterError(
            f"fuse: {name}[{r}] of {method} is empty; it gives one value per "
            + ("segment (at least one)." if method == "probfuse" else "position."))
    return a.reshape(-1)


def trained_scores(t, s, method, p):
    """Each run's score matrix under a trained method (``0`` where absent),
    and the mask of the entries that count."""
    n_runs = s.shape[1]
    pos = t.pos.astype(np.int64)
    out = np.zeros_like(s)
    if method == "mapfuse":
        maps = [float(_vector(x, "map_scores", method, r)[0]) for r, x in
                enumerate(_per_run(p["map_scores"], n_runs, "map_scores", method))]
        for r in range(n_runs):
            out[:, r] = maps[r] / (pos[:, r] + 1.0)
        return out
    if method == "bayesfuse":
        odds = [_vector(x, "log_odds", method, r)
                for r, x in enumerate(_per_run(p["log_odds"], n_runs, "log_odds", method))]
        for r in range(n_runs):
            here = t.present[:, r]
            if (pos[here, r] >= odds[r].shape[0]).any():
                raise InvalidParameterError(
                    f"fuse: runs[{r}] ranks a document at a position beyond its log_odds "
                    f"({odds[r].shape[0]} positions; BayesFuse's training covers the first "
                    "1,000): cut the run to that depth.")
            out[:, r] = np.where(here, odds[r][np.where(here, pos[:, r], 0)], MIN_ODD)
        return out
    probs = [_vector(x, "probs", method, r)
             for r, x in enumerate(_per_run(p["probs"], n_runs, "probs", method))]
    for r in range(n_runs):
        pr, i, length = probs[r], pos[:, r], t.length[:, r].astype(np.int64)
        if method == "posfuse":
            out[:, r] = np.where(i < pr.shape[0], pr[np.minimum(i, pr.shape[0] - 1)], 0.0) \
                if pr.shape[0] else 0.0
        elif method == "probfuse":
            if pr.shape[0] == 0:
                raise InvalidParameterError("fuse: probs of probfuse must have at least one "
                                            "segment.")
            size = np.maximum(-(-length // pr.shape[0]), 1)
            seg = i // size
            out[:, r] = pr[np.minimum(seg, pr.shape[0] - 1)] / (seg + 1.0)
        elif method == "segfuse":
            seg = np.searchsorted(SEG_BOUNDS, i, side="right") - 1
            ok = seg < pr.shape[0]
            out[:, r] = np.where(ok, pr[np.minimum(seg, pr.shape[0] - 1)], 0.0) * (s[:, r] + 1)
        elif method == "slidefuse":
            w = p["w"]
            if w is None or isinstance(w, bool) or not float(w).is_integer() or w < 0:
                raise InvalidParameterError(
                    f"fuse: slidefuse's window must be a whole number >= 0, got "
                    f"{short_repr(w)} (the training chooses it).")
            w = int(w)
            a = np.maximum(i - w, 0)
            b = np.minimum(i + w, length - 1)
            top = np.minimum(b + 1, pr.shape[0])
            low = np.minimum(a, pr.shape[0])
            sums = _window_sums(pr, min(2 * w + 1, pr.shape[0]))
            out[:, r] = sums[low, top - low] / (b - a + 1.0)
        else:
            raise AssertionError(method)
    return out


def _window_sums(pr, span):
    """``T[low, k]``: ``pr[low] + pr[low + 1] + ... + pr[low + k - 1]`` added left
    to right from 0, as ranx sums a window (``sum(probs[a:b + 1])``), for
    every ``low <= len(pr)`` and ``k <= span`` (positions past ``pr`` add 0).
    One pass per width over the positions, not per document; a difference
    of the running sum over every position would keep its rounding (about
    1e-14 where the sum reaches 100)."""
    n = pr.shape[0]
    padded = np.concatenate([np.asarray(pr, dtype=np.float64), np.zeros(span + 1)])
    T = np.zeros((n + 1, span + 1))
    for k in range(1, span + 1):
        np.add(T[:, k - 1], padded[k - 1:k + n], out=T[:, k])
    return T
