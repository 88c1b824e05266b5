"""compare: systems, metrics and queries paired."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

import numpy as np

from .._utils.arrays import as_ids, as_numeric_array
from .._utils.errors import InvalidParameterError, counted, short_repr, warn
from .._utils.fast import unique
from .._utils.nonzero import flatnonzero
from .._utils.params import validate
from .._utils.types import ArrayLike, Correction, OnMissing, Test
from . import significance as _stats
from . import tukey as _tukey
from .per_query import per_query_dicts
from .report import ComparisonReport

if TYPE_CHECKING:
    import pandas
    from typing_extensions import TypeAlias

    from .._evaluation.result import EvaluationResult

#: One system's scores for :func:`compare`: an EvaluationResult, a data frame
#: (one column per metric) or Series indexed by query id, ``{metric: per-query
#: values}``, or the per-query values of one metric.
SystemScores: TypeAlias = (
    "EvaluationResult | pandas.DataFrame | pandas.Series | Mapping[str, ArrayLike] | ArrayLike")


# -- reading the inputs ---------------------------------------------------------------


def _values(v, where):
    arr = as_numeric_array(v, where)
    if arr.ndim != 1:
        raise ValueError(f"{where} must be 1-D (one value per query), got shape {arr.shape}.")
    arr = arr.astype(np.float64)
    if np.isinf(arr).any():
        i = int(flatnonzero(np.isinf(arr))[0])
        raise ValueError(f"{where} is infinite at entry {i}; per-query values must be finite "
                         "(NaN marks a query left out, as no_relevant='skip' does).")
    return arr


def _system(name, value):
    """``(query ids or None, {metric: values})`` of one system."""
    where = f"results[{name!r}]"
    if hasattr(value, "per_query") and hasattr(value, "query_ids"):  # EvaluationResult
        ids = as_ids(value.query_ids, f"{where}.query_ids")
        cols = {m: _values(v, f"{where}.per_query[{m!r}]") for m, v in value.per_query.items()}
    elif hasattr(value, "columns") and hasattr(value, "index"):  # pandas DataFrame
        ids = as_ids(value.index.to_numpy(), f"{where}.index")
        cols = {str(c): _values(value[c].to_numpy(), f"{where}[{c!r}]") for c in value.columns}
    elif hasattr(value, "index") and hasattr(value, "to_numpy"):  # pandas Series
        ids = as_ids(value.index.to_numpy(), f"{where}.index")
        cols = {"score": _values(value.to_numpy(), where)}
    elif isinstance(value, Mapping) and value and all(
            isinstance(v, Mapping) for v in value.values()):  # pytrec_eval's {qid: {m: v}}
        ids, cols = per_query_dicts(value, where)
    elif isinstance(value, Mapping):
        ids = None
        bad = [m for m in value if not isinstance(m, str)]
        if bad:
            raise InvalidParameterError(f"{where} must map metric names (strings) to per-query "
                                        f"values, got the key {short_repr(bad[0])}.")
        cols = {m: _values(v, f"{where}[{m!r}]") for m, v in value.items()}
    else:
        ids = None
        cols = {"score": _values(value, where)}
    if not cols:
        raise ValueError(f"{where} has no metric.")
    lengths = {m: v.shape[0] for m, v in cols.items()}
    n = len(ids) if ids is not None else next(iter(lengths.values()))
    for m, k in lengths.items():
        if k != n:
            raise ValueError(f"{where}: metric {m!r} has {k} values, but the system has {n} "
                             "queries; every metric needs one value per query.")
    if ids is not None:
        uniq, counts = np.unique(ids, return_counts=True)
        if (counts > 1).any():
            raise ValueError(f"{where}: query {uniq[counts > 1][0].item()!r} appears "
                             f"{int(counts.max())} times; query ids must be unique.")
    return ids, cols


def systems_of(results):
    if not isinstance(results, Mapping):
        raise InvalidParameterError(
            "results must be a mapping {system name: scores}, with scores an EvaluationResult, "
            "a mapping {metric: per-query values} or an array of per-query values; got "
            f"{type(results).__name__}."
        )
    if len(results) < 2:
        raise ValueError(f"results holds {len(results)} system(s); a comparison needs at "
                         "least two.")
    bad = [k for k in results if not isinstance(k, str)]
    if bad:
        raise InvalidParameterError(f"results must be keyed by system names (strings), got the "
                                    f"key {short_repr(bad[0])}.")
    blank = [k for k in results if not k.strip()]
    if blank:  # a row without a name in every table
        raise InvalidParameterError(f"results has the system name {blank[0]!r}, which is "
                                    f"{'empty' if not blank[0] else 'only whitespace'}; give "
                                    "each system a name that shows (e.g. 'bm25').")
    return {name: _system(name, value) for name, value in results.items()}


def choose_metrics(systems, metrics):
    names = list(systems)
    have = {s: list(cols) for s, (_, cols) in systems.items()}
    if metrics is None:
        chosen = have[names[0]]
        for s in names[1:]:
            if set(have[s]) != set(chosen):
                extra = sorted(set(have[s]) ^ set(chosen))
                raise ValueError(
                    f"results: the systems have different metrics ({names[0]!r}: "
                    f"{', '.join(chosen)}; {s!r}: {', '.join(have[s])}; not in both: "
                    f"{', '.join(extra)}). Name the metrics to compare with metrics=[...]."
                )
        return list(chosen)
    if isinstance(metrics, str):
        metrics = [metrics]
    try:
        chosen = list(metrics)
    except TypeError:
        raise InvalidParameterError(f"metrics must be a metric name or a list of them, got "
                                    f"{short_repr(metrics)}.") from None
    if not chosen or not all(isinstance(m, str) for m in chosen):
        raise InvalidParameterError(f"metrics must be a non-empty list of metric names, got "
                                    f"{short_repr(metrics)}.")
    if len(set(chosen)) != len(chosen):
        raise InvalidParameterError(f"metrics names a metric twice: {chosen}.")
    for s in names:
        for m in chosen:
            if m not in have[s]:
                raise ValueError(f"metrics: {m!r} is not among the metrics of system {s!r} "
                                 f"({', '.join(have[s])}).")
    return chosen


def _shown(ids, limit=5):
    items = ", ".join(repr(i) for i in ids[:limit].tolist())
    return items + (", ..." if len(ids) > limit else "")


def pair_queries(systems, on_missing, notes):
    """Shared query ids and, per system, the positions of those queries."""
    names = list(systems)
    ids = {s: systems[s][0] for s in names}
    with_ids = [s for s in names if ids[s] is not None]
    if with_ids and len(with_ids) != len(names):
        without = [s for s in names if ids[s] is None]
        raise InvalidParameterError(
            f"results mixes systems with query ids ({', '.join(map(repr, with_ids))}) and "
            f"without ({', '.join(map(repr, without))}): queries can be paired by id or by "
            "position, not both. Give every system as an EvaluationResult (or a pandas "
            "object indexed by query), or every system as plain arrays."
        )
    if not with_ids:
        lengths = {s: next(iter(systems[s][1].values())).shape[0] for s in names}
        if len(set(lengths.values())) > 1:
            raise ValueError(
                "results: the systems have different numbers of queries ("
                + ", ".join(f"{s!r}: {n}" for s, n in lengths.items())
                + ") and no query ids to pair them by; give EvaluationResults or pandas "
                "objects indexed by query id."
            )
        n = lengths[names[0]]
        return np.arange(n), {s: np.arange(n) for s in names}
    kinds = {s: ids[s].dtype.kind for s in names}
    if len({k == "U" for k in kinds.values()}) > 1:
        raise ValueError("results: some systems have integer query ids and others string ids "
                         f"({', '.join(f'{s!r}: {ids[s].dtype}' for s in names)}), so no "
                         "query can be paired; give the ids one type.")
    union = unique(np.concatenate([ids[s] for s in names]))
    lacking = {s: np.setdiff1d(union, ids[s]) for s in names}
    missing = {s: v for s, v in lacking.items() if v.size}
    first = ids[names[0]]
    keep = np.ones(first.shape[0], dtype=bool)
    for s in names[1:]:
        keep &= np.isin(first, ids[s])
    shared = first[keep]
    if missing:
        if on_missing == "raise" or shared.size == 0:
            detail = "; ".join(f"{s!r} lacks {v.size} ({_shown(v)})" for s, v in missing.items())
            advice = ("Score every query in every system (evaluate_run(..., complete=True) "
                      "scores a query missing from a run as 0)")
            if shared.size:
                advice += (f", or compare on the {counted(shared.size, 'query')} "
                           "they share with on_missing='drop'.")
            else:
                advice = "They share no query at all. " + advice + "."
            raise ValueError(f"results: the systems do not have the same queries: {detail}. "
                             + advice)
        notes.append(f"{union.size - shared.size} of {union.size} queries, not scored in "
                     "every system, were left out (on_missing='drop').")
    positions = {}
    for s in names:
        order = np.argsort(ids[s], kind="stable")
        positions[s] = order[np.searchsorted(ids[s], shared, sorter=order)]
    return shared, positions


def resolve_correction(test, correction):
    """The correction ``"auto"`` stands for, and the refusal of one on top of Tukey's tests."""
    tukey = test in _tukey.TUKEY_TESTS
    if correction == "auto":
        return None if tukey else "holm"
    if tukey and correction is not None:
        raise InvalidParameterError(
            f"compare: correction={correction!r} cannot be applied on top of test={test!r}: "
            "Tukey's HSD already controls the family-wise error over every pair of systems. "
            "Use correction=None (or 'auto')."
        )
    return correction


@validate
def compare(results: Mapping[str, SystemScores], *, metrics: str | Sequence[str] | None = None,
            test: Test = "t-test", correction: Correction | None = "auto",
            baseline: str | None = None, alpha: float = 0.05, confidence_level: float = 0.95,
            n_resamples: int = 10_000, random_state: int | None = None,
            on_missing: OnMissing = "raise") -> ComparisonReport:
    r"""Compare systems on their per-query values: paired tests, intervals, effect sizes.

    For every metric, each system's mean comes with a confidence interval,
    and each compared pair ``(a, b)`` with the mean of the per-query
    differences :math:`d_q = m_a(q) - m_b(q)`, its interval, the effect size
    :math:`\bar d / s_d`, win/tie/loss counts and a two-sided p-value,
    corrected for the multiple comparisons of the metric.

    Parameters
    ----------
    results : mapping of str -> EvaluationResult, mapping or array-like
        ``{system name: scores}``. Scores are an :class:`EvaluationResult`
        (from :func:`evaluate_run` or :func:`evaluate_ranked`; queries are
        paired by ``query_ids``), a pandas DataFrame (one column per metric,
        indexed by query id) or Series (indexed by query id), a mapping
        ``{metric: per-query values}`` (from ``per_row=True``; paired by
        position), pytrec_eval's per-query dict ``{qid: {metric: value}}``
        (also :meth:`EvaluationResult.to_dict`; paired by query id) or a
        1-D array of per-query values (one metric, named ``"score"``). A
        name that is empty or only whitespace is an error (it would be a row
        without a name).
    metrics : str or list of str, default=None
        The metrics to compare; None compares every metric, which must then
        be the same for every system.
    test : str, default="t-test"
        The paired two-sided test, one of ``"t-test"``, ``"wilcoxon"``,
        ``"randomization"``, ``"bootstrap"``, ``"sign"``, ``"tukey"``,
        ``"tukey_oneway"`` and ``"randomized_tukey"``: Student's paired t-test
        (``scipy.stats.ttest_rel``), the Wilcoxon signed-rank test
        (``scipy.stats.wilcoxon``: zero differences dropped, exact
        distribution where SciPy uses it), Fisher's randomisation test
        (random sign flips of the differences; every flip enumerated when
        :math:`2^{n-1} \le \max(\mathrm{n\_resamples}, 2^{15})`, so for
        :math:`n \le 16`), a bootstrap test of the mean difference, or the
        sign test (exact binomial test of wins against losses). Or one of
        Tukey's honestly significant difference tests, which take every
        pair of the systems as one family [3]_: ``"tukey"`` with topics as
        blocks (two-way ANOVA without replication, the studentized range
        with :math:`(k-1)(n-1)` degrees of freedom), ``"tukey_oneway"``
        (one-way ANOVA, :math:`k(n-1)` degrees of freedom: statsmodels'
        ``pairwise_tukeyhsd``) or ``"randomized_tukey"`` (each topic's
        values permuted among the systems [4]_; exact when the
        :math:`(k!)^{n-1}` distinct permutations number at most
        :math:`\max(\mathrm{n\_resamples}, 2^{15})`).
    correction : {"auto", "holm", "bonferroni", "fdr_bh"} or None, default="auto"
        Multiple-testing correction over the comparisons of each metric:
        Holm's step-down (controls the family-wise error rate, and is never
        less powerful than Bonferroni), Bonferroni, Benjamini-Hochberg (the
        false discovery rate), or none. ``"auto"`` is Holm's, and none
        under Tukey's tests, which control the family-wise error
        themselves (any other correction is refused with them).
    baseline : str, default=None
        None compares every pair of systems (``(a, b)`` in the order of
        ``results``, difference ``a - b``); a system's name compares every
        other system with it (difference ``system - baseline``).
    alpha : float, default=0.05
        Significance level of the markers and of ``report.significant``.
    confidence_level : float, default=0.95
        Level of the BCa bootstrap intervals (and of the simultaneous
        intervals of Tukey's tests).
    n_resamples : int, default=10_000
        Bootstrap resamples of the queries (intervals and the bootstrap
        test), random sign flips of the randomisation test and random
        permutations of the randomised Tukey HSD.
    random_state : int, default=None
        Seed of the resamples and sign flips; None draws a fresh one.
    on_missing : {"raise", "drop"}, default="raise"
        What to do with queries that some systems have and others lack:
        raise an error that names them, or leave them out.

    Returns
    -------
    report : ComparisonReport
        Means, intervals, differences, effect sizes, raw and corrected
        p-values and win/tie/loss counts; ``print(report)``,
        ``report.to_latex()``, ``report.to_markdown()``...

    See Also
    --------
    compare_estimators : The same comparison for cross-validated estimators.
    QueryDifferenceDisplay : Plot the per-query differences of two systems.

    Notes
    -----
    **Pairing.** Queries are paired by id when the scores carry ids, by
    position otherwise. A query that one system lacks raises (or is left
    out with ``on_missing="drop"``). Per metric, a query whose value is NaN
    in any system (``no_relevant="skip"`` makes such values) is left out of
    every mean, interval and test of that metric, so that the means in the
    table are over the same queries as the tests; the report notes how
    many, and a warning is given when the systems disagree on which queries
    are NaN (then the means differ from each system's own).

    **Intervals.** Each mean's interval is the bias-corrected and
    accelerated (BCa) bootstrap interval over queries [1]_, computed as
    ``scipy.stats.bootstrap(method="BCa")`` computes it; one set of
    resamples of the queries serves every system of a metric, so a
    difference's interval comes from the same resamples as the two means.
    The bootstrap test's two-sided p-value is :math:`(1 + \#\{|\theta^*_b -
    \bar d| \ge |\bar d|\}) / (1 + B)` over the bootstrap means
    :math:`\theta^*_b` of the differences [1]_. The randomisation test's
    p-value is the fraction of sign vectors :math:`s` with
    :math:`|\sum_q s_q d_q| \ge |\sum_q d_q|` (exact), or :math:`(1 +
    \mathrm{hits}) / (1 + B)` with random sign vectors [2]_.

    **Degenerate inputs** give stated values, never a NaN p-value:
    a difference that rounds to 0 on a grid of :math:`2^{-40}` times the
    largest value of the metric (about :math:`10^{-12}` of it) is 0, so that
    round-off never turns a tie into a win (``0.1 + 0.2 - 0.3``), and the
    Wilcoxon test ranks the differences rounded to that grid, so that
    round-off does not break a tie between equal differences (``0.3 - 0.2``
    and ``0.5 - 0.4``); with one query every p-value is 1, and the
    intervals and effect sizes are NaN (with a warning); when every
    difference is 0 the p-value is 1, the interval (0, 0) and the effect
    size 0; when every difference is the same number :math:`c \ne 0` the
    t statistic is infinite and the t-test reports :math:`2/2^n`, the exact
    randomisation p-value of such data, with interval :math:`(c, c)` and an
    infinite effect size; a system whose values are all equal to :math:`v`
    has the interval :math:`(v, v)`.

    **Tukey's tests** give each pair a p-value and a simultaneous
    interval of the difference that account for all :math:`k` systems,
    whatever ``baseline`` shows (the intervals are :math:`\bar d \pm
    q_{1-\gamma}(k, \phi_E) \sqrt{V_E / n}` at ``confidence_level``
    :math:`1 - \gamma`, with :math:`\phi_E` the residual degrees of
    freedom; the randomised form uses the quantile of the permuted ranges
    instead). With no residual variance (every system
    differs from another by the same amount on every topic) the
    statistic is infinite: p is 0 for a non-zero difference, 1 for a zero
    one, and the interval is :math:`(\bar d, \bar d)`.

    Every metric is taken as higher-is-better when marking which system
    beats which. Cost: :math:`O(B\,n\,S)` time per metric for :math:`B`
    resamples, :math:`n` queries and :math:`S` systems, in blocks of bounded
    memory, plus the :math:`B \times S` bootstrap means (:math:`8BS` bytes)
    and one test per pair.

    References
    ----------
    .. [1] Efron, B. and Tibshirani, R. J. (1993). An Introduction to the
           Bootstrap. Chapman & Hall, chapters 14 and 16.
    .. [2] Smucker, M. D., Allan, J. and Carterette, B. (2007). A comparison
           of statistical significance tests for information retrieval
           evaluation. CIKM 2007, 623-632.
    .. [3] Sakai, T. (2018). Laboratory Experiments in Information
           Retrieval: Sample Sizes, Effect Sizes, and Statistical Power.
           Springer, chapter 4.
    .. [4] Carterette, B. (2012). Multiple testing in statistical analysis
           of systems-based information retrieval experiments. ACM
           Transactions on Information Systems, 30(1), 4.

    Examples
    --------
    >>> from sk_rankmetrics import compare, evaluate_ranked
    >>> truth = {"u1": {"a"}, "u2": {"b"}, "u3": {"c"}, "u4": {"a", "d"}, "u5": {"e"},
    ...          "u6": {"b"}}
    >>> popular = evaluate_ranked({u: ["a", "b", "c", "d", "e"] for u in truth}, truth,
    ...                           ["mrr", "ndcg@3"])
    >>> knn = evaluate_ranked({"u1": ["a", "b"], "u2": ["b", "a"], "u3": ["c", "a"],
    ...                        "u4": ["d", "a"], "u5": ["a", "e"], "u6": ["c", "b"]},
    ...                       truth, ["mrr", "ndcg@3"])
    >>> report = compare({"popular": popular, "knn": knn}, test="randomization",
    ...                  random_state=0)
    >>> report.means["mrr"]
    {'popular': 0.5888888888888889, 'knn': 0.8333333333333334}
    >>> report.pvalues["mrr"][("popular", "knn")]  # exact: every sign flip enumerated
    0.25
    >>> report.win_tie_loss["ndcg@3"][("popular", "knn")]
    (0, 2, 4)
    """
    notes: list[str] = []
    systems = systems_of(results)
    names = list(systems)
    chosen = choose_metrics(systems, metrics)
    if baseline is not None and baseline not in systems:
        raise InvalidParameterError(f"compare: baseline={baseline!r} is not one of the systems "
                                    f"({', '.join(map(repr, names))}).")
    correction = resolve_correction(test, correction)
    shared, positions = pair_queries(systems, on_missing, notes)
    if baseline is None:
        pairs = [(i, j) for i in range(len(names)) for j in range(i + 1, len(names))]
    else:
        b = names.index(baseline)
        pairs = [(i, b) for i in range(len(names)) if i != b]
    rng = _stats.rng_from(random_state)
    family = (_tukey.family(test, n_resamples=n_resamples, confidence_level=confidence_level)
              if test in _tukey.TUKEY_TESTS else None)
    query_ids, per_query, stats = {}, {}, {}
    partly_nan, single = {}, []  # one warning each, naming every metric concerned
    for m in chosen:
        V = np.column_stack([systems[s][1][m][positions[s]] for s in names])
        nan = np.isnan(V)
        keep = ~nan.any(axis=1)
        dropped = int((~keep).sum())
        if dropped:
            partial = int((nan.any(axis=1) & ~nan.all(axis=1)).sum())
            notes.append(f"{m}: {counted(dropped, 'query')} with NaN in some "
                         f"system {'was' if dropped == 1 else 'were'} left out.")
            if partial:
                partly_nan[m] = partial
        V = V[keep]
        if V.shape[0] == 0:
            raise ValueError(f"results: metric {m!r} has no query with a value in every "
                             "system (all are NaN or missing).")
        if V.shape[0] == 1:
            notes.append(f"{m}: one query only: every p-value is 1, intervals and effect "
                         "sizes are NaN.")
            single.append(m)
        query_ids[m] = shared[keep]
        per_query[m] = {s: V[:, i] for i, s in enumerate(names)}
        stats[m] = _stats.compare_metric(
            V, pairs, test=test, correction=correction, confidence_level=confidence_level,
            n_resamples=n_resamples, rng=rng, family=family,
        )
        if test == "randomization":
            how = (f"exact, every sign flip of the {V.shape[0]} queries enumerated"
                   if stats[m]["exact"] else f"{n_resamples} random sign flips")
            notes.append(f"{m}: randomisation test {how}.")
        elif test == "randomized_tukey":
            how = (f"exact, every permutation of the {V.shape[0]} queries enumerated"
                   if stats[m]["exact"] else f"{n_resamples} random permutations")
            notes.append(f"{m}: randomised Tukey HSD: {how}.")
    if partly_nan:
        warn("compare: " + ", ".join(f"for {m!r}, {counted(n, 'query')}" for m, n in
                                     partly_nan.items())
             + " NaN in some systems but not in others; left out of every system's mean and "
             "test of " + ("this metric" if len(partly_nan) == 1 else "these metrics")
             + ", so the means differ from the systems' own.")
    if single:
        warn(f"compare: {', '.join(map(repr, single))} "
             f"{'has' if len(single) == 1 else 'have'} a single query in common; nothing "
             "can be tested (p-values 1, intervals NaN).")
    settings = dict(test=test, correction=correction, alpha=alpha,
                    confidence_level=confidence_level, n_resamples=n_resamples,
                    random_state=random_state, baseline=baseline, on_missing=on_missing)
    return ComparisonReport(
        systems=names, metrics=chosen, pairs=[(names[i], names[j]) for i, j in pairs],
        query_ids=query_ids, per_query=per_query, stats=stats, settings=settings, notes=notes,
    )
