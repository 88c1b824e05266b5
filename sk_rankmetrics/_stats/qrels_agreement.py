"""compare_qrels: two qrels compared through the orderings of the systems they score."""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from .._files.runs import as_qrels, as_run, evaluate_run
from .._files.trec import TrecQrels, TrecRun
from .._utils.docstrings import fill_doc
from .._utils.errors import InvalidParameterError, counted, quiet, short_repr, warn
from .._utils.params import validate
from .._utils.types import Correction, NoRelevant, OnMissing, Setting, Test
from . import significance as _sig
from .assessors import qrels_arrays
from .compare import compare, pair_queries
from .qrels_report import QrelsComparison
from .rank_correlation import kendall_rows, tau_ap_b_rows, tau_ap_rows

if TYPE_CHECKING:
    from .assessors import Qrels
    from .rbo import Run


def _named_runs(runs):
    """``{name: TrecRun}``: a mapping keeps its names; a list takes the run tags,
    else the file names."""
    if isinstance(runs, Mapping):
        bad = [k for k in runs if not isinstance(k, str)]
        if bad:
            raise InvalidParameterError(f"compare_qrels: runs must be keyed by system names "
                                        f"(strings), got the key {short_repr(bad[0])}.")
        named = {k: as_run(v) for k, v in runs.items()}
    elif isinstance(runs, (str, os.PathLike, TrecRun)) or hasattr(runs, "columns") \
            or not isinstance(runs, Sequence):
        raise InvalidParameterError("compare_qrels: runs must be a list of runs or a mapping "
                                    "{system name: run}, with each run a TrecRun, a path or a "
                                    f"data frame; got {type(runs).__name__}.")
    else:
        loaded = [as_run(r) for r in runs]
        names = [r.tag for r in loaded]
        if len(set(names)) != len(names):
            files = [os.path.basename(os.fspath(r)) if isinstance(r, (str, os.PathLike))
                     else None for r in runs]
            if None in files or len(set(files)) != len(files):
                raise InvalidParameterError(
                    "compare_qrels: two runs share the tag "
                    f"{next(n for n in names if names.count(n) > 1)!r}; name the systems with "
                    "a mapping {name: run}.")
            names = files
        named = dict(zip(names, loaded))
    if len(named) < 2:
        raise ValueError(f"compare_qrels: {counted(len(named), 'system')}; ordering systems "
                         "needs at least two runs.")
    return named


def _qrels(q, where):
    """Judgements in any form the assessor functions take, as a TrecQrels."""
    if isinstance(q, TrecQrels):
        return q
    if isinstance(q, (str, os.PathLike)) or hasattr(q, "columns"):
        return as_qrels(q)
    return TrecQrels(*qrels_arrays(q, where))


def _ties(M):
    """Rows of ``M`` with two equal values."""
    s = np.sort(M, axis=1)
    return (s[:, 1:] == s[:, :-1]).any(axis=1)


def _coefficients(Ma, Mb, symmetric):
    """Kendall's tau_b and tau_AP of each row's two orderings (b observed,
    a the reference); tau_AP is NaN where the reference ties two systems."""
    tau = kendall_rows(Ma, Mb)
    if symmetric:
        return tau, tau_ap_b_rows(Mb, Ma)
    ap = tau_ap_rows(Mb, Ma)
    ap[_ties(Ma) | (Mb == Mb[:, :1]).all(axis=1)] = np.nan
    return tau, ap


def _interval(name, value, boot, jack, confidence_level, notes):
    finite = boot[~np.isnan(boot)]
    if np.isnan(value) or finite.shape[0] == 0:
        return float("nan"), float("nan")
    if finite.shape[0] < boot.shape[0]:
        notes.append(f"{name}: {boot.shape[0] - finite.shape[0]} of {boot.shape[0]} bootstrap "
                     "resamples left it undefined (tied systems) and were left out of its "
                     "interval.")
    return _sig.bca_jackknife(value, finite, jack[~np.isnan(jack)], confidence_level)


#: The blocks of compare_qrels' parameters that are its own (the others: the table's).
_OWN = {
    "qrels_a": """qrels_a : qrels
    The reference judgements (say, human): a :class:`TrecQrels`, a path
    (read with :func:`read_qrels`), a data frame, ``{query: {doc:
    level}}`` or a tuple ``(qid, docno, level)``.""",
    "qrels_b": """qrels_b : qrels
    The judgements compared with them (say, a language model's), in any
    form ``qrels_a`` takes.""",
    "runs": """runs : list or mapping of runs
    The systems: ``{name: run}``, or a list of runs named by their run
    tags (by their file names when two share a tag); each a
    :class:`TrecRun`, a path to a run file or a data frame. Two or
    more.""",
    "metric": """metric : str, default="ndcg@10"
    The metric the systems are ordered by (any name
    :func:`evaluate_run` takes).""",
    "setting": """setting : {"sk_rankmetrics", "trec_eval"}, default="sk_rankmetrics"
    As in :func:`evaluate_run`.""",
    "complete": """complete : bool, default=False
    As in :func:`evaluate_run`: score a query the qrels judge but a
    run lacks as 0.""",
    "test": """test : str, default="t-test"
    The paired test of each swap, under each qrels (as in :func:`compare`).""",
    "correction": """correction : {"auto", "holm", "bonferroni", "fdr_bh"} or None, default="auto"
    Multiple-testing correction over the pairs of systems, under each
    qrels, as in :func:`compare` (``"auto"``: Holm's, none under Tukey's
    tests).""",
    "alpha": """alpha : float, default=0.05
    Significance level of the swaps' tests.""",
    "confidence_level": """confidence_level : float, default=0.95
    Level of the bootstrap intervals.""",
    "n_resamples": """n_resamples : int, default=10_000
    Bootstrap resamples of the queries (and of the tests that resample).""",
    "random_state": """random_state : int, default=None
    Seed of every resample; None draws fresh ones.""",
    "on_missing": """on_missing : {"raise", "drop"}, default="raise"
    A query scored under one qrels or for one run but not all raises an
    error naming it, or is left out with ``"drop"``.""",
}


@validate
@fill_doc(**_OWN)
def compare_qrels(qrels_a: Qrels, qrels_b: Qrels,
                  runs: Mapping[str, Run] | Sequence[Run], *, metric: str = "ndcg@10",
                  names: tuple[str, str] | None = None, setting: Setting = "sk_rankmetrics",
                  complete: bool = False, no_relevant: NoRelevant | None = None,
                  symmetric: bool = False, test: Test = "t-test",
                  correction: Correction | None = "auto", alpha: float = 0.05,
                  confidence_level: float = 0.95, n_resamples: int = 10_000,
                  random_state: int | None = None,
                  on_missing: OnMissing = "raise") -> QrelsComparison:
    r"""How far two qrels agree on the ordering of the systems they score.

    Every run is scored under both qrels with :func:`evaluate_run`; the
    systems' means give two orderings, compared by Kendall's
    :math:`\tau_b` and by :math:`\tau_{AP}` (``qrels_a`` the reference):

    .. math::

        \tau_b = \frac{C - D}{\sqrt{(n_0 - n_a)(n_0 - n_b)}}, \qquad
        \tau_{AP} = \frac{2}{S-1} \sum_{i=2}^{S} \frac{C(i)}{i - 1} - 1

    over the :math:`S` systems. Each pair of systems the two qrels order
    the opposite way is a swap, reported with its paired test under each
    qrels; each query's :math:`\tau_b` (the systems' values on that query)
    tells where the qrels disagree.

    Parameters
    ----------
    %(parameters)s

    Returns
    -------
    comparison : QrelsComparison
        ``kendall_tau`` and ``tau_ap`` (with their intervals), the means and
        ranks under each qrels, ``swaps``, ``per_query_tau``; ``print()``,
        ``to_frame()``, ``to_markdown()``, ``to_latex()``.

    See Also
    --------
    kendall_tau, tau_ap : The coefficients on scores given directly.
    cohen_kappa, krippendorff_alpha : Agreement of the judgements themselves.
    OrderingDisplay : The two orderings side by side.

    Notes
    -----
    The queries are those scored under both qrels for every run (a query
    one qrels does not judge is not scored under it: see ``on_missing``).
    The intervals resample these queries with the BCa bootstrap: each
    resample's means under both qrels give a :math:`\tau_b` and a
    :math:`\tau_{AP}`, and the acceleration comes from the jackknife over
    queries. :math:`\tau_{AP}` needs a reference without ties (see
    :func:`tau_ap`): where ``qrels_a`` ties two systems it is NaN (noted),
    unless ``symmetric=True``. A swap is a pair ordered one way by one qrels
    and the other way by the other (a tie under either is not a swap); each
    swap's p-values are those of :func:`compare` run on the per-query values
    under each qrels, with ``test`` and ``correction`` over every pair of
    systems. A query whose systems all score the same under one qrels has no
    :math:`\tau_b` (NaN in ``per_query_tau``). Means (and values) that differ
    by round-off only, less than :math:`2^{-40}` of the largest, are equal:
    two systems with the same per-query values tie.

    References
    ----------
    .. [1] Voorhees, E. M. (2000). Variations in relevance judgments and the
           measurement of retrieval effectiveness. Information Processing &
           Management 36(5), 697-716.
    .. [2] Yilmaz, E., Aslam, J. A. and Robertson, S. (2008). A new rank
           correlation coefficient for information retrieval. SIGIR 2008.
    .. [3] Faggioli, G. et al. (2023). Perspectives on large language models
           for relevance judgment. ICTIR 2023, 39-50.

    Examples
    --------
    >>> import numpy as np
    >>> from sk_rankmetrics import TrecQrels, TrecRun, compare_qrels
    >>> q = np.repeat(["q1", "q2", "q3"], 3)
    >>> d = np.tile(["a", "b", "c"], 3)
    >>> human = TrecQrels(q, d, np.array([1, 0, 0, 0, 1, 0, 1, 1, 0]))
    >>> judge = TrecQrels(q, d, np.array([1, 1, 0, 0, 1, 0, 1, 1, 0]))  # b on q1 too
    >>> runs = {name: TrecRun(q, d, np.array(scores, dtype=float)) for name, scores in [
    ...     ("A", [3, 2, 1, 3, 2, 1, 3, 2, 1]), ("B", [2, 1, 3, 2, 1, 3, 2, 1, 3]),
    ...     ("C", [1, 3, 2, 1, 3, 2, 1, 3, 2])]}
    >>> cmp = compare_qrels(human, judge, runs, metric="mrr", random_state=0)
    >>> round(cmp.kendall_tau, 4), round(cmp.tau_ap, 4)
    (0.3333, 0.0)
    >>> cmp.swaps[0]["pair"], cmp.ranks["qrels_b"]
    (('A', 'C'), {'A': 2.0, 'B': 3.0, 'C': 1.0})
    """
    label_a, label_b = names if names is not None else ("qrels_a", "qrels_b")
    if label_a == label_b:
        raise InvalidParameterError(f"compare_qrels: names gives {label_a!r} twice; each "
                                    "qrels needs its own name.")
    notes: list[str] = []
    qa, qb = _qrels(qrels_a, "qrels_a"), _qrels(qrels_b, "qrels_b")
    named = _named_runs(runs)
    options: dict[str, Any] = dict(setting=setting, complete=complete)
    if no_relevant is not None:
        options["no_relevant"] = no_relevant
    results: dict[str, Any] = {}
    for side, q in (("a", qa), ("b", qb)):
        for name, run in named.items():
            res = evaluate_run(q, run, [metric], **options)
            results[f"{name!r} under {label_a if side == 'a' else label_b}"] = (
                res.query_ids, {metric: res.per_query[res.metrics[0]]})
    shared, positions = pair_queries(results, on_missing, notes)
    keys = list(results)
    S = len(named)
    V = np.column_stack([results[k][1][metric][positions[k]] for k in keys])
    nan = np.isnan(V).any(axis=1)
    if nan.any():
        notes.append(f"{counted(int(nan.sum()), 'query')} with no value for some system "
                     "(no_relevant='skip') left out.")
        shared, V = shared[~nan], V[~nan]
    n = shared.shape[0]
    if n == 0:
        raise ValueError("compare_qrels: no query has a value for every system under both "
                         "qrels.")
    Va, Vb = V[:, :S], V[:, S:]
    systems = list(named)
    mean_a, mean_b = _sig.snap(Va.mean(axis=0)), _sig.snap(Vb.mean(axis=0))
    tau, ap = _coefficients(mean_a[None, :], mean_b[None, :], symmetric)
    tau_value, ap_value = float(tau[0]), float(ap[0])
    if np.isnan(ap_value) and not symmetric:
        notes.append(f"tau_AP is undefined: {label_a} ties two systems (its reference must "
                     "order them strictly; symmetric=True takes ties).")
    if np.isnan(tau_value):
        notes.append("Kendall's tau is undefined: one qrels ties every system.")
        warn("compare_qrels: Kendall's tau is undefined (NaN): one qrels ties every system.")

    # One seed for the intervals and for the tests under each qrels (each
    # draws its own resamples from it, as compare() would alone).
    rng = _sig.rng_from(random_state)
    tau_ci = ap_ci = (float("nan"), float("nan"))
    if n >= 2:
        boot = _sig.bootstrap_means(V, n_resamples, rng)
        jack = (V.sum(axis=0) - V) / (n - 1)
        bt, ba = _coefficients(_sig.snap(boot[:, :S]), _sig.snap(boot[:, S:]), symmetric)
        jt, ja = _coefficients(_sig.snap(jack[:, :S]), _sig.snap(jack[:, S:]), symmetric)
        tau_ci = _interval("Kendall's tau", tau_value, bt, jt, confidence_level, notes)
        ap_ci = _interval("tau_AP", ap_value, ba, ja, confidence_level, notes)
    else:
        notes.append("one query only: no intervals, and every p-value is 1.")

    per_query_tau = kendall_rows(_sig.snap(Va), _sig.snap(Vb))
    undefined = int(np.isnan(per_query_tau).sum())
    if undefined:
        notes.append(f"{counted(undefined, 'query')} with every system tied under one qrels: "
                     "no per-query tau (NaN).")
    reports = []
    for M in (Va, Vb):
        with quiet():  # compare() warns of a single query: noted above instead
            reports.append(compare({s: {metric: M[:, i]} for i, s in enumerate(systems)},
                                   test=test, correction=correction, alpha=alpha,
                                   confidence_level=confidence_level,
                                   n_resamples=n_resamples, random_state=random_state))
    settings = dict(metric=metric, setting=setting, complete=complete, symmetric=symmetric,
                    test=test, correction=correction, alpha=alpha,
                    confidence_level=confidence_level, n_resamples=n_resamples,
                    random_state=random_state, on_missing=on_missing)
    return QrelsComparison(
        names=(label_a, label_b), systems=systems, query_ids=shared,
        per_query={label_a: Va, label_b: Vb}, kendall_tau=tau_value, tau_ap=ap_value,
        intervals={"kendall_tau": tau_ci, "tau_ap": ap_ci}, per_query_tau=per_query_tau,
        comparisons=(reports[0], reports[1]), settings=settings, notes=notes)
