"""optimize_fusion: a fusion method's weights or parameter chosen on a grid, as ranx does."""

from __future__ import annotations

from collections.abc import Sequence
from itertools import product
from typing import Any

import numpy as np

from .._utils.errors import InvalidParameterError, short_repr
from .._utils.params import validate
from .fusion import METHODS, NORMS, combine, prepare
from .fusion_trained import BASE, TRAINED, check_training, mean_score, train_search

#: The methods with something to tune, and ranx's grid for each: (name, low, high, step).
GRIDS = {"rrf": ("k", 10, 100, 10), "rbc": ("phi", 0.01, 1.0, 0.01),
         "gmnz": ("gamma", 0.01, 1.0, 0.01), "logn_isr": ("sigma", 0.01, 1.0, 0.01)}
WEIGHTED = ("wsum", "wmnz", "w_bordafuse", "mixed", "w_condorcet")
def _digits(step):
    return str(step)[::-1].find(".")


def _trials(method, n_runs, step):
    """The configurations ranx tries, in its order."""
    if method in WEIGHTED:
        step = 0.1 if step is None else step
        grid = [round(x, _digits(step)) for x in np.arange(0, 1 + step, step)]
        # ranx keeps the weight vectors whose float sum is exactly 1.0.
        return [{"weights": [float(x) for x in w]} for w in product(*[grid] * n_runs)
                if sum(w) == 1.0]
    name, low, high, default_step = GRIDS[method]
    step = default_step if step is None else step
    if name == "k":
        return [{"k": k} for k in range(low, high + 1, int(step))]
    return [{name: round(float(x), _digits(step))} for x in np.arange(low, high + step, step)]


@validate
def optimize_fusion(qrels: Any, runs: Sequence[Any], *, method: str = "wsum",
                    norm: str | None = "min-max", metric: str = "ndcg",
                    step: float | None = None,
                    return_report: bool = False) -> dict[str, Any] | tuple[dict[str, Any],
                                                                              dict[str, float]]:
    r"""Choose a fusion method's weights or parameter on a grid, as ranx does.

    .. math::

        \hat\theta = \operatorname{argmax}_{\theta \in G}
        \frac{1}{|Q|} \sum_{q \in Q} M\bigl(F_\theta(q)\bigr)

    where :math:`G` is the grid, :math:`F_\theta` the runs fused by
    ``method`` with parameter :math:`\theta`, :math:`M` the ``metric`` and
    :math:`Q` the queries of ``qrels``.

    Parameters
    ----------
    qrels : dict, TrecQrels, path, data frame or named tuples
        The training judgements, in any form :func:`evaluate_run` reads.
    runs : list of runs
        The runs to fuse, in any form :func:`fuse` reads.
    method : str, default="wsum"
        ``"wsum"``, ``"wmnz"``, ``"w_bordafuse"``, ``"w_condorcet"``,
        ``"mixed"`` (one weight per run, on the grid 0, step, ..., 1, the
        vectors summing to 1), ``"rrf"`` (``k`` in 10, 20, ..., 100),
        ``"rbc"`` (``phi``), ``"gmnz"`` (``gamma``) or ``"logn_isr"``
        (``sigma``), each of these in 0.01, 0.02, ..., 1; or a trained method,
        whose training this is: ``"posfuse"``, ``"segfuse"``, ``"bayesfuse"``,
        ``"mapfuse"`` (no search: ``{"probs": ...}``, ``{"log_odds": ...}``,
        ``{"map_scores": ...}``), ``"probfuse"`` (the number of segments
        1, ..., 100 searched, ``{"probs": ...}`` of the best) and
        ``"slidefuse"`` (``{"probs": ..., "w": ...}``, the window 1, ..., 100
        searched), as ranx's ``optimize_fusion`` returns them.
    norm : {None, "min-max", "max", "sum", "zmuv", "rank", "borda"}, default="min-max"
        The normalisation applied before fusing (ranx's default).
    metric : str, default="ndcg"
        The measure averaged over the queries, any name :func:`evaluate_run`
        takes (``"ndcg@10"``, ``"map@100"``, ``"recip_rank"``, ...).
    step : float, optional
        The grid step (default: 0.1 for weights, 10 for ``k``, 0.01 otherwise).
    return_report : bool, default=False
        Also return every configuration tried with its score.

    Returns
    -------
    best : dict
        The chosen parameter, ``{"weights": [...]}``, ``{"k": ...}``, the
        trained ``{"probs": [...]}``, ..., ready for
        ``fuse(runs, method=method, norm=norm, **best)``.
    report : dict of str -> float
        With ``return_report``: each configuration (as text) and its mean.

    Notes
    -----
    As ranx: the configurations are tried in grid order and the last of the
    best scores wins (a later configuration that equals the best replaces
    it: above, every vector from (0.0, 1.0) to (0.4, 0.6) ranks both queries
    right, and (0.4, 0.6) is the last of them); the weight vectors are those
    whose float sum is exactly 1. The metric is this package's (tied fused
    scores share their expected value), so a configuration whose fused run
    has ties (a weight of 0, documents missing from a run) may score
    differently from ranx's, which breaks ties by its sort, and the choice may
    then differ.

    Examples
    --------
    >>> from sk_rankmetrics import fuse, optimize_fusion
    >>> qrels = {"q1": {"a": 1}, "q2": {"c": 1}}
    >>> bm25 = {"q1": {"a": 2.0, "b": 3.0}, "q2": {"c": 1.0, "d": 0.5}}
    >>> dense = {"q1": {"a": 0.9, "b": 0.1}, "q2": {"c": 0.9, "d": 0.8}}
    >>> best = optimize_fusion(qrels, [bm25, dense], method="wsum", metric="ndcg")
    >>> best
    {'weights': [0.4, 0.6]}
    >>> fuse([bm25, dense], method="wsum", norm="min-max", **best)
    {'q1': {'a': 0.6, 'b': 0.4}, 'q2': {'c': 1.0, 'd': 0.0}}
    """
    if method not in set(WEIGHTED) | set(GRIDS) | set(TRAINED):
        raise InvalidParameterError(
            f"optimize_fusion: method={short_repr(method)} has nothing to tune here; choose "
            f"one of {', '.join((*WEIGHTED, *GRIDS, *TRAINED))} (the others need no search: "
            "call fuse).")
    if norm not in NORMS:
        raise InvalidParameterError(f"optimize_fusion: norm={short_repr(norm)} is not known; "
                                    f"choose one of {', '.join(map(repr, NORMS))}.")
    if not isinstance(runs, Sequence) or isinstance(runs, (str, bytes)) or len(runs) < 2:
        raise InvalidParameterError("optimize_fusion: runs must be a list of at least two "
                                    f"runs, got {short_repr(runs)}.")
    if step is not None and not (isinstance(step, (int, float)) and step > 0):
        raise InvalidParameterError(f"optimize_fusion: step={short_repr(step)} must be a "
                                    "positive number.")
    assert method in METHODS
    prepared = prepare(runs, norm)
    if norm == "borda" and method in ("rrf", "rbc", "logn_isr", "w_bordafuse", "w_condorcet",
                                      *TRAINED):
        raise InvalidParameterError(f"optimize_fusion: norm='borda' with method={method!r}: "
                                    "positions after borda's normalisation are in no order.")
    if method in TRAINED:
        best, report = train_search(prepared, qrels, method, metric, combine,
                                    "optimize_fusion")
        return (best, report) if return_report else best
    trials = _trials(method, len(runs), step)
    if not trials:
        raise InvalidParameterError(
            f"optimize_fusion: step={short_repr(step)} gives no weight vector of {len(runs)} "
            "weights on the grid 0, step, ..., 1 that sums to 1 (the vectors ranx tries); "
            "choose a step that divides 1: 0.1, 0.05, 0.2, 0.25, 0.5.")
    from .runs import as_qrels

    qrels = as_qrels(qrels)  # read once, not once per configuration
    check_training(prepared[0], qrels, "optimize_fusion")
    best, best_score, report = None, 0.0, {}
    for config in trials:
        value = mean_score(qrels, combine(prepared, method, {**BASE, **config}), metric)
        key = str(config[next(iter(config))])
        report[key] = value
        if value >= best_score:
            best, best_score = config, value
    if best is None:
        raise ValueError(f"optimize_fusion: every configuration scores {metric} below 0; "
                         "nothing to choose.")
    return (best, report) if return_report else best
