"""leaderboard: systems ranked over several collections, with rank intervals.

The inputs are read into one matrix of per-query values per collection (a
column per system and seed, the queries paired as :func:`compare` pairs
them); the statistics are vectorised over systems and resamples:

- the bootstrap resamples the queries of each collection (and, with seeds,
  each system's seeds, the same draw on every collection), with one matrix
  product per collection and block of resamples
  (:func:`~sk_rankmetrics._stats.significance.bootstrap_means`);
- the rank intervals follow Mogstad, Romano, Shaikh and Wilhelm: the
  bootstrap gives the largest studentized deviation of the differences of
  two systems' scores, a system's interval runs from one plus the number of
  systems significantly better to the number of systems minus those
  significantly worse; the deviations are maxima over every pair of
  systems (simultaneous intervals) or over the pairs of one system
  (per-system intervals), computed in blocks of resamples.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from .._utils.errors import InvalidParameterError, counted, short_repr, warn
from .._utils.nonzero import flatnonzero
from .._utils.params import validate
from .._utils.types import Aggregate, Correction, Layout, OnMissing, RankIntervals
from . import significance as _stats
from .compare import _system, pair_queries
from .leaderboard_report import LeaderboardReport

#: The name of the collection when ``results`` holds one.
ONE_COLLECTION = "results"
#: Collections at most this many are shown as columns of the text outputs.
MAX_COLUMNS = 12


# -- reading the nested mapping ---------------------------------------------------------


def _mapping(value, where, what):
    if not isinstance(value, Mapping):
        raise InvalidParameterError(f"{where} must be a mapping {{{what}: ...}}, got "
                                    f"{type(value).__name__}.")
    if not value:
        raise ValueError(f"{where} is empty; it needs at least one {what}.")
    return value


def _where(layout, collection, system=None):
    """How an error message names a part of ``results``."""
    where = f"results[{collection!r}]" if "collection" in layout else "results"
    return where if system is None else f"{where}[{system!r}]"


def _levels(results, layout):
    """``{collection: {system: {seed: scores}}}`` from ``results`` read by ``layout``."""
    levels = layout.split("/")
    top = _mapping(results, "results", levels[0])
    if "collection" in levels:
        tree = {c: _mapping(v, f"results[{c!r}]", "system") for c, v in top.items()}
        bad = [c for c in tree if not isinstance(c, str)]
        if bad:
            raise InvalidParameterError(f"results must be keyed by collection names (strings) "
                                        f"with layout={layout!r}, got the key "
                                        f"{short_repr(bad[0])}.")
    else:
        tree = {ONE_COLLECTION: top}
    out: dict[str, dict[str, dict[Any, Any]]] = {}
    for c, systems in tree.items():
        names = [s for s in systems if not isinstance(s, str)]
        if names:
            raise InvalidParameterError(f"{_where(layout, c)} must be keyed by system names "
                                        f"(strings), got the key {short_repr(names[0])}.")
        if "seed" in levels:
            out[c] = {s: dict(_mapping(v, _where(layout, c, s), "seed"))
                      for s, v in systems.items()}
        else:
            out[c] = {s: {None: v} for s, v in systems.items()}
    return out


def _same_systems_and_seeds(tree):
    collections = list(tree)
    first = collections[0]
    systems = list(tree[first])
    for c in collections[1:]:
        lacking = [s for s in systems if s not in tree[c]]
        extra = [s for s in tree[c] if s not in tree[first]]
        if lacking or extra:
            detail = (f"{', '.join(map(repr, lacking))} not in {c!r}" if lacking else
                      f"{', '.join(map(repr, extra))} not in {first!r}")
            raise ValueError(f"results: every collection needs every system ({detail}); a "
                             "system missing from a collection has no score there. Score "
                             "it on every collection, or leave it out.")
    seeds = {s: list(tree[first][s]) for s in systems}
    for c in collections[1:]:
        for s in systems:
            if set(tree[c][s]) != set(seeds[s]):
                raise ValueError(f"results: system {s!r} has the seeds "
                                 f"{sorted(map(str, seeds[s]))} in {first!r} but "
                                 f"{sorted(map(str, tree[c][s]))} in {c!r}; a seed's run is "
                                 "resampled on every collection at once, so each system "
                                 "needs the same seeds everywhere.")
    return systems, seeds


def _metric(entries, metric):
    """The metric to rank by: named, or the single one every entry has."""
    have = [set(cols) for _, cols in entries.values()]
    common = set.intersection(*have)
    if metric is None:
        union = set.union(*have)
        if len(union) != 1:
            raise InvalidParameterError(
                f"results hold the metrics {', '.join(sorted(union))}; a leaderboard ranks "
                "by one: name it with metric=..."
            )
        return next(iter(union))
    if not isinstance(metric, str):
        raise InvalidParameterError(f"metric must be a metric name, got {short_repr(metric)}.")
    if metric not in common:
        name = next(k for k, (_, cols) in entries.items() if metric not in cols)
        raise ValueError(f"metric {metric!r} is not among the metrics of {name} "
                         f"({', '.join(entries[name][1])}).")
    return metric


def read(results, layout, metric, on_missing, notes):
    """Per collection, the (queries, columns) matrix of per-query values (a column per
    system and seed, each system's columns together); the systems, the system of each
    column, the metric, the query ids per collection and each system's seeds."""
    tree = _levels(results, layout)
    systems, seeds = _same_systems_and_seeds(tree)
    if len(systems) < 2:
        raise ValueError(f"results holds {len(systems)} system; a leaderboard ranks at "
                         "least two.")
    columns = [(s, seed) for s in systems for seed in seeds[s]]
    label = {(s, seed): repr(s) if seed is None else f"{s!r} (seed {seed!r})"
             for s, seed in columns}
    entries = {}
    for coll in tree:
        for s, seed in columns:
            where = _where(layout, coll, s) + ("" if seed is None else f"[{seed!r}]")
            entries[(coll, (s, seed))] = _system(where, tree[coll][s][seed])
    chosen = _metric({f"{label[col]} in {coll!r}": e for (coll, col), e in entries.items()},
                     metric)
    matrices, query_ids = {}, {}
    for coll in tree:
        named = {label[col]: entries[(coll, col)] for col in columns}
        local: list[str] = []
        shared, positions = pair_queries(named, on_missing, local)
        notes += [f"{coll}: {note}" for note in local]
        V = np.column_stack([named[k][1][chosen][positions[k]] for k in named])
        nan = np.isnan(V)
        keep = ~nan.any(axis=1)
        dropped = int((~keep).sum())
        if dropped:
            notes.append(f"{coll}: {counted(dropped, 'query')} with NaN in some system "
                         f"{'was' if dropped == 1 else 'were'} left out.")
            partial = int((nan.any(axis=1) & ~nan.all(axis=1)).sum())
            if partial:
                warn(f"leaderboard: in {coll!r}, {counted(partial, 'query')} NaN in some "
                     "systems but not in others; left out of every system's mean there.")
        V = V[keep]
        if V.shape[0] < 2:
            raise ValueError(f"results: collection {coll!r} has {V.shape[0]} query with a "
                             f"value of {chosen!r} in every system; resampling its queries "
                             "needs at least 2.")
        matrices[coll] = V
        query_ids[coll] = shared[keep]
    owner = np.array([systems.index(s) for s, _ in columns])
    return matrices, systems, owner, chosen, query_ids, {s: len(seeds[s]) for s in systems}


# -- the statistics ---------------------------------------------------------------------


def snap(x):
    """``x`` rounded to 40 binary digits below its largest magnitude, so that
    round-off neither makes nor breaks a tie (as compare's differences)."""
    scale = float(np.abs(x).max(initial=0.0))
    if scale == 0:
        return x.copy()
    q = 2.0 ** (math.floor(math.log2(scale)) - _stats.GRID_BITS)
    return np.round(x / q) * q


def borda(M):
    """Borda points of each system per row of ``M`` (..., systems): the systems it
    beats, ties counting one half (its average rank from the bottom, minus 1)."""
    from scipy.stats import rankdata

    return rankdata(M, axis=-1, method="average") - 1.0


def seed_means(A, owner, k, seed_weights=None):
    """Per system, the mean of its seed columns of ``A`` (..., columns), each seed
    column weighted by ``seed_weights`` (same shape; None: 1)."""
    counts = np.bincount(owner, minlength=k).astype(np.float64)
    W = A if seed_weights is None else A * seed_weights
    G = np.zeros((owner.size, k))
    G[np.arange(owner.size), owner] = 1.0
    return (W @ G) / counts


def bootstrap_scores(matrices, owner, k, aggregate, n_resamples, rng):
    """The systems' scores over ``n_resamples`` stratified resamples: (B, k)."""
    n_cols = owner.size
    seeded = n_cols > k
    weights = None
    if seeded:  # each system's seeds drawn with replacement, the same on every collection
        starts = flatnonzero(np.r_[True, owner[1:] != owner[:-1]])
        sizes = np.diff(np.r_[starts, n_cols])
        draw = rng.random((n_resamples, n_cols))
        pick = starts[owner][None, :] + np.floor(draw * sizes[owner][None, :]).astype(np.intp)
        flat = pick + (np.arange(n_resamples) * n_cols)[:, None]
        weights = np.bincount(flat.ravel(), minlength=n_resamples * n_cols).reshape(
            n_resamples, n_cols).astype(np.float64)
    total = np.zeros((n_resamples, k))
    for V in matrices.values():
        A = _stats.bootstrap_means(V, n_resamples, rng)
        M = seed_means(A, owner, k, weights) if seeded else A
        total += borda(snap(M)) if aggregate == "borda" else M
    return total / (1.0 if aggregate == "borda" else len(matrices))


def observed_scores(matrices, owner, k, aggregate):
    """Per-collection means ``(C, k)`` and the aggregate score of each system."""
    M = np.vstack([seed_means(V.mean(axis=0), owner, k) for V in matrices.values()])
    if aggregate == "borda":
        return M, borda(snap(M)).sum(axis=0)
    return M, M.mean(axis=0)


def pair_se(T_boot):
    """Bootstrap standard errors of every difference ``T_j - T_l``: (k, k)."""
    C = np.cov(T_boot, rowvar=False, ddof=1).reshape(T_boot.shape[1], T_boot.shape[1])
    var = np.diag(C)[:, None] + np.diag(C)[None, :] - 2 * C
    return np.sqrt(np.maximum(var, 0.0))


def max_deviations(T_boot, T, se, per_system, active):
    """Per resample, the largest studentized deviation ``|(d* - d) / se|`` over the
    ``active`` pairs (B,), or over each system's active pairs (B, k); a pair without
    spread counts 0."""
    B, k = T_boot.shape
    inv = np.where(active & (se > 0), 1.0 / np.where(se > 0, se, 1.0), 0.0)
    out = np.empty((B, k)) if per_system else np.empty(B)
    step = max(1, _stats.BLOCK // max(k * k, 1))
    for start in range(0, B, step):
        X = T_boot[start:start + step] - T
        dev = np.abs(X[:, :, None] - X[:, None, :]) * inv
        out[start:start + X.shape[0]] = dev.max(axis=2) if per_system else dev.max(axis=(1, 2))
    return out


def rank_intervals(T, T_boot, confidence_level, per_system):
    """Observed ranks and rank intervals (the lowest and highest rank not ruled out).

    The pairs are tested step-down (Romano and Wolf): the critical value is
    the quantile of the largest deviation over the pairs not yet found
    different, recomputed until no further pair is; each round can only
    shorten the intervals, and the family-wise error stays controlled.
    """
    k = T.size
    Ts = snap(T)
    rank = 1 + (Ts[None, :] > Ts[:, None]).sum(axis=1)
    se = pair_se(T_boot)
    d = Ts[:, None] - Ts[None, :]  # d[j, l] = T_j - T_l
    different = np.zeros((k, k), dtype=bool)  # the pair (j, l) found different
    while True:
        active = ~different & ~np.eye(k, dtype=bool)
        dev = max_deviations(T_boot, T, se, per_system, active)
        crit = np.quantile(dev, confidence_level, axis=0, method="higher")
        limit = (crit[:, None] if per_system else crit) * se  # row j: j's family
        found = (np.abs(d) > limit) & (d != 0)
        if per_system:  # j's family decides j's interval: read row j only
            new = found & ~different
        else:
            new = found & found.T & ~different
        if not new.any():
            break
        different |= new
    beats = different & (d > 0)  # j significantly better than l
    beaten = different & (d < 0)  # l significantly better than j
    low = 1 + beaten.sum(axis=1)
    high = k - beats.sum(axis=1)
    return rank.astype(np.int64), low.astype(np.int64), high.astype(np.int64)


def baseline_tests(matrices, owner, k, systems, baselines, T, T_boot, aggregate, correction):
    """One family: every other system against each baseline."""
    from scipy.stats import norm, t

    stratified = aggregate == "mean" and owner.size == k
    rows = []
    for b in baselines:
        bi = systems.index(b)
        for j, s in enumerate(systems):
            if j == bi:
                continue
            diff = float(T[j] - T[bi])
            if stratified:  # the stratified paired t-test (one collection: the paired t)
                parts = []
                for V in matrices.values():
                    dq, _ = _stats.differences(V[:, j], V[:, bi])
                    parts.append((float(dq.mean()), float(dq.var(ddof=1)) / dq.size, dq.size))
                C = len(parts)
                var = sum(v for _, v, _ in parts) / C**2
                n_all = sum(n for _, _, n in parts)
                if var <= (_stats.ROUND_OFF * max(abs(diff), 1e-300)) ** 2:
                    p = 1.0 if diff == 0 else math.ldexp(1.0, 1 - n_all)
                else:
                    df = var**2 / sum((v / C**2) ** 2 / (n - 1) for _, v, n in parts)
                    p = float(2 * t.sf(abs(diff) / math.sqrt(var), df))
                test = "stratified t-test" if C > 1 else "paired t-test"
            else:  # the bootstrap's standard error: Borda counts, or seeds resampled
                se = float(np.std(T_boot[:, j] - T_boot[:, bi], ddof=1))
                p = (1.0 if diff == 0 else 0.0) if se == 0 else float(2 * norm.sf(abs(diff)
                                                                                 / se))
                test = "bootstrap z-test"
            rows.append({"system": s, "baseline": b, "difference": diff, "p_raw": min(p, 1.0),
                         "test": test})
    adjusted = _stats.correct([r["p_raw"] for r in rows], correction)
    for r, p in zip(rows, adjusted):
        r["p"] = float(p)
    return rows


def _baselines(baselines, systems):
    if baselines is None:
        return []
    names = [baselines] if isinstance(baselines, str) else list(baselines)
    for b in names:
        if b not in systems:
            raise InvalidParameterError(f"leaderboard: baseline {b!r} is not one of the "
                                        f"systems ({', '.join(map(repr, systems))}).")
    if len(set(names)) != len(names):
        raise InvalidParameterError(f"baselines names a system twice: {names}.")
    return names


@validate
def leaderboard(results: Mapping[str, Any], *, metric: str | None = None,
                aggregate: Aggregate = "mean", layout: Layout = "collection/system",
                intervals: RankIntervals = "simultaneous",
                baselines: str | Sequence[str] | None = None,
                correction: Correction | None = "auto", alpha: float = 0.05,
                n_resamples: int = 1000, confidence_level: float = 0.95,
                random_state: int | None = None,
                on_missing: OnMissing = "raise") -> LeaderboardReport:
    r"""Rank systems over several collections, with rank intervals and ties at the top.

    Each system's score is the mean of its per-collection means (every
    collection weighs the same, whatever its number of queries),

    .. math::

        T_j = \frac{1}{C} \sum_{c=1}^{C} \bar x_{cj},

    or, with ``aggregate="borda"``, its Borda count :math:`\sum_c
    \#\{l : \bar x_{cl} < \bar x_{cj}\}` (ties count one half), the rank of
    MTEB's leaderboards. Its rank is one plus the number of systems with a
    higher score; its rank interval says which ranks the data cannot rule
    out at ``confidence_level``, and ``tied_with_best`` whether it may be the
    best (its interval reaches 1).

    Parameters
    ----------
    results : mapping
        Per-query scores, nested as ``layout`` says: by default
        ``{collection: {system: scores}}``, with scores as :func:`compare`
        takes them (an :class:`EvaluationResult`, a pandas DataFrame or
        Series indexed by query, a mapping ``{metric: per-query values}`` or
        an array of per-query values). Every collection needs every system.
    metric : str, default=None
        The metric to rank by; None when the scores hold one metric.
    aggregate : {"mean", "borda"}, default="mean"
        The mean of the per-collection means, or the Borda count.
    layout : str, default="collection/system"
        The levels of ``results``, outermost first: ``"collection/system"``,
        ``"system"``, ``"system/seed"`` or ``"collection/system/seed"``.
        ``"system"`` is one
        collection ``{system: scores}``; ``"system/seed"`` and
        ``"collection/system/seed"`` give each system several runs, one per
        training seed, ``{system: {seed: scores}}``. The nesting is named
        rather than guessed, since a mapping of metrics and a mapping of
        systems look alike.
    intervals : {"simultaneous", "per_system"}, default="simultaneous"
        Rank intervals that all hold together with probability
        ``confidence_level`` (a leaderboard is read as a whole), or that
        each hold for their own system.
    baselines : str or list of str, default=None
        Systems every other system is tested against: every test of every
        baseline is one family for ``correction``.
    correction : {"auto", "holm", "bonferroni", "fdr_bh"} or None, default="auto"
        Multiple-testing correction of the baseline tests; ``"auto"`` is
        Holm's.
    alpha : float, default=0.05
        Significance level of the baseline tests.
    n_resamples : int, default=1000
        Bootstrap resamples of the queries (stratified by collection).
    confidence_level : float, default=0.95
        Level of the rank intervals.
    random_state : int, default=None
        Seed of the resamples; None draws a fresh one.
    on_missing : {"raise", "drop"}, default="raise"
        Queries some systems lack in a collection: an error that names them,
        or left out of that collection.

    Returns
    -------
    report : LeaderboardReport
        Scores, ranks, rank intervals, per-collection means and baseline
        tests; ``report.to_frame()``, ``print(report)``,
        ``report.to_markdown()``, ``report.to_latex()``.

    See Also
    --------
    compare : Paired tests of systems on one collection.
    LeaderboardDisplay : Plot the ranks with their intervals.

    Notes
    -----
    **Rank intervals** follow Mogstad, Romano, Shaikh and Wilhelm [1]_. The
    queries of each collection are resampled with replacement
    (``n_resamples`` times; with seeds, each system's seeds too, the same
    draw on every collection, so that the intervals include the variation
    between training runs). For every pair of systems the bootstrap gives
    the standard error :math:`s_{jl}` of :math:`T_j - T_l`; the critical
    value :math:`c` is the ``confidence_level`` quantile of
    :math:`\max |(T^*_j - T^*_l) - (T_j - T_l)| / s_{jl}`, the maximum
    taken over every pair (simultaneous) or over the pairs of one system
    (per system). System :math:`j` is significantly better than :math:`l`
    when :math:`T_j - T_l > c\, s_{jl}`, and its interval is

    .. math::

        \left[\,1 + \#\{l \text{ better than } j\},\;
        k - \#\{l \text{ worse than } j\}\,\right].

    Simultaneous intervals cover every system's true rank at once with
    probability at least ``confidence_level`` (asymptotically); per-system
    intervals cover each system's with that probability, and are narrower.
    A pair whose difference never varies over the resamples (the same shift
    on every query) is significant when it is not zero. A collection needs
    at least 2 queries with a value in every system.

    **Baseline tests**: with ``aggregate="mean"`` and one run per system,
    the stratified paired t-test of :math:`T_j - T_b` (variance
    :math:`\sum_c s^2_c / (n_c C^2)`, Welch-Satterthwaite degrees of
    freedom), which is the paired t-test for one collection; otherwise
    (Borda counts, or seeds) the z-test of :math:`T_j - T_b` over its
    bootstrap standard error. Equal values everywhere give p = 1; a
    non-zero difference without spread gives :math:`2/2^N` for :math:`N`
    queries, as :func:`compare`'s t-test.

    **Cost**: :math:`O(B\, N\, E)` for :math:`B` resamples, :math:`N`
    queries in all and :math:`E` runs (systems times seeds), as one matrix
    product per collection and block, plus :math:`O(B\,k^2)` for the
    pairwise deviations, in blocks of bounded memory; no Python loop over
    queries, systems or resamples beyond the blocks.

    References
    ----------
    .. [1] Mogstad, M., Romano, J. P., Shaikh, A. M. and Wilhelm, D. (2024).
           Inference for ranks with applications to mobility across
           neighborhoods and academic achievement across countries. Review
           of Economic Studies.

    Examples
    --------
    >>> import numpy as np
    >>> from sk_rankmetrics import leaderboard
    >>> rng = np.random.default_rng(0)
    >>> results = {c: {s: np.clip(rng.normal(0.3 + 0.1 * i, 0.15, 40), 0, 1)
    ...                for i, s in enumerate(["bm25", "dense", "hybrid"])}
    ...            for c in ["news", "web", "qa"]}
    >>> report = leaderboard(results, random_state=0)
    >>> report.to_frame()[["system", "rank", "rank_low", "rank_high", "tied_with_best"]]
       system  rank  rank_low  rank_high  tied_with_best
    0  hybrid     1         1          1            True
    1   dense     2         2          2           False
    2    bm25     3         3          3           False
    """
    notes: list[str] = []
    matrices, systems, owner, chosen, query_ids, n_seeds = read(results, layout, metric,
                                                                on_missing, notes)
    names = _baselines(baselines, systems)
    correction_ = "holm" if correction == "auto" else correction
    k = len(systems)
    rng = _stats.rng_from(random_state)
    M, T = observed_scores(matrices, owner, k, aggregate)
    T_boot = bootstrap_scores(matrices, owner, k, aggregate, n_resamples, rng)
    rank, low, high = rank_intervals(T, T_boot, confidence_level, intervals == "per_system")
    tests = baseline_tests(matrices, owner, k, systems, names, T, T_boot, aggregate,
                           correction_)
    for r in tests:
        r["significant"] = bool(r["p"] < alpha)
    settings = dict(metric=chosen, aggregate=aggregate, layout=layout, intervals=intervals,
                    baselines=names, correction=correction_, alpha=alpha,
                    n_resamples=n_resamples, confidence_level=confidence_level,
                    random_state=random_state, on_missing=on_missing)
    return LeaderboardReport(
        systems=systems, collections=list(matrices), scores=T,
        means={c: M[i] for i, c in enumerate(matrices)}, rank=rank, rank_low=low,
        rank_high=high, n_queries={c: V.shape[0] for c, V in matrices.items()},
        query_ids=query_ids, n_seeds=n_seeds, baseline_tests=tests, settings=settings,
        notes=notes,
    )

