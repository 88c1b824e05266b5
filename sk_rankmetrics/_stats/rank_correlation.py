"""Rank correlation of two orderings: Kendall's tau, AP correlation, weighted tau.

Each coefficient is computed from the pairs of items (systems, queries) of
one ordering against the other, vectorised over many orderings at once (the
``*_rows`` functions take matrices, one ordering per row): the per-query
agreement and the bootstrap of :func:`sk_rankmetrics.compare_qrels` call
them on thousands of rows.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

import numpy as np

from .._utils.arrays import as_ids, as_numeric_array
from .._utils.docstrings import fill_doc
from .._utils.errors import InvalidParameterError, counted, example_ids, short_repr, warn
from .._utils.nonzero import flatnonzero
from .._utils.params import validate
from .._utils.types import KendallVariant, OnMissing
from .significance import snap

if TYPE_CHECKING:
    from typing_extensions import TypeAlias

    from .._evaluation.result import EvaluationResult

#: An ordering: ``{system: score}``, ``{system: EvaluationResult}`` (its mean of
#: ``metric``), an EvaluationResult (its queries, by ``metric``) or a pandas Series.
Ordering: TypeAlias = "Mapping[str, float] | Mapping[str, EvaluationResult] | EvaluationResult"

#: Entries of the (rows x items x items) temporaries of one block.
_BLOCK = 1 << 21


# -- the coefficients, one row per ordering -----------------------------------------


def _blocks(n_rows, n_items):
    step = max(1, _BLOCK // max(n_items * n_items, 1))
    return [slice(a, min(a + step, n_rows)) for a in range(0, n_rows, step)]


def _signs(A):
    """sign(A[:, i] - A[:, j]) for every (i, j), shape (rows, n, n)."""
    return np.sign(A[:, :, None] - A[:, None, :])


def kendall_rows(A, B, variant="b"):
    r"""Kendall's :math:`\tau_b` or :math:`\tau_c` of each row of ``A`` against
    the same row of ``B`` (NaN where undefined: a constant row)."""
    n_rows, n = A.shape
    out = np.empty(n_rows)
    for sl in _blocks(n_rows, n):
        sa, sb = _signs(A[sl]), _signs(B[sl])
        s = (sa * sb).sum(axis=(1, 2)) / 2  # concordant minus discordant pairs
        untied_a = np.abs(sa).sum(axis=(1, 2)) / 2
        untied_b = np.abs(sb).sum(axis=(1, 2)) / 2
        ok = (untied_a > 0) & (untied_b > 0)
        tau = np.full(s.shape, np.nan)
        if variant == "b":  # in SciPy's order of operations, and clipped as it clips
            tau[ok] = s[ok] / np.sqrt(untied_a[ok]) / np.sqrt(untied_b[ok])
        else:
            m = np.minimum(_distinct(A[sl]), _distinct(B[sl]))[ok].astype(np.float64)
            tau[ok] = 2 * s[ok] / (n**2 * (m - 1) / m)
        out[sl] = np.clip(tau, -1.0, 1.0)
    return out


def _distinct(A):
    s = np.sort(A, axis=1)
    return 1 + (s[:, 1:] != s[:, :-1]).sum(axis=1)


def _harmonic(n):
    """``Hn[k] = sum_{i<=k} 1/i`` for k = 0..n."""
    return np.concatenate(([0.0], np.cumsum(1.0 / np.arange(1, n + 1))))


def tau_ap_rows(A, B):
    r"""AP correlation of each row of ``A`` (observed) against ``B`` (reference,
    no ties), the expected value over the orders of ``A``'s tie groups.

    With ``A``'s tie group of item ``j`` at positions ``t..t+g-1``:

    .. math::

        \tau_{AP} = \frac{2}{n-1}\Big(\sum_{i \succ_A j,\ i \succ_B j} h_j
        + \sum_{\text{groups}} \frac{1}{2}\sum_{m=1}^{g-1} \frac{m}{t+m-1}\Big) - 1,
        \qquad h_j = \frac{1}{g}\sum_{k=0}^{g-1} \frac{1}{t+k-1}

    (``i`` above ``j`` in ``A``'s groups, and above it in ``B``).
    """
    n_rows, n = A.shape
    Hn = _harmonic(2 * n)
    out = np.empty(n_rows)
    for sl in _blocks(n_rows, n):
        a, b = A[sl], B[sl]
        above = a[:, :, None] > a[:, None, :]  # [r, i, j]: i above j in a
        agree = above & (b[:, :, None] > b[:, None, :])
        t = 1 + above.sum(axis=1)  # top position of j's group
        g = (a[:, :, None] == a[:, None, :]).sum(axis=1)
        h = np.where(t > 1, (Hn[t + g - 2] - Hn[np.maximum(t - 2, 0)]) / g, 0.0)
        within = ((g - 1) - (t - 1) * (Hn[t + g - 2] - Hn[t - 1])) / (2 * g)
        total = (agree.sum(axis=1) * h).sum(axis=1) + within.sum(axis=1)
        out[sl] = 2 * total / (n - 1) - 1
    return out


def _tau_ap_b_half(x, y):
    """Urbano and Marrero's asymmetric half of :math:`\\tau_{AP,b}`: ``y``'s order
    traversed, its top group left out, each item's concordant items above its
    group over their number (ties in ``x`` never concordant)."""
    above_y = y[:, None, :] > y[:, :, None]  # [r, i, j]: j above i in y
    conc = above_y & (x[:, None, :] > x[:, :, None])
    n_above = above_y.sum(axis=2)
    pivots = n_above > 0
    ratio = np.divide(conc.sum(axis=2), n_above, out=np.zeros(n_above.shape), where=pivots)
    count = pivots.sum(axis=1)
    return np.divide(2 * ratio.sum(axis=1), count, out=np.full(count.shape, np.nan),
                     where=count > 0) - 1


def tau_ap_b_rows(A, B):
    r""":math:`\tau_{AP,b}` of each row: the mean of its two halves (symmetric,
    ties in both; without ties the mean of :math:`\tau_{AP}` both ways)."""
    n_rows, n = A.shape
    out = np.empty(n_rows)
    for sl in _blocks(n_rows, n):
        out[sl] = (_tau_ap_b_half(A[sl], B[sl]) + _tau_ap_b_half(B[sl], A[sl])) / 2
    return out


def _weighted_half(x, y):
    """Vigna's additive hyperbolic weighted tau with ranks by (x, y) decreasing."""
    n = x.shape[0]
    rank = np.empty(n, dtype=np.int64)
    rank[np.lexsort((y, x))[::-1]] = np.arange(n)
    w = 1.0 / (rank + 1.0)
    W = w[:, None] + w[None, :]
    np.fill_diagonal(W, 0.0)
    sx, sy = np.sign(x[:, None] - x[None, :]), np.sign(y[:, None] - y[None, :])
    num = (W * sx * sy).sum() / 2
    den = np.sqrt((W * np.abs(sx)).sum() / 2) * np.sqrt((W * np.abs(sy)).sum() / 2)
    return num / den if den > 0 else float("nan")


# -- inputs ------------------------------------------------------------------------


def _one_metric(result, metric, where):
    names = list(result.mean)
    if metric is None:
        if len(names) != 1:
            raise InvalidParameterError(f"{where} holds the metrics {names}; name the one to "
                                        "compare with metric=...")
        return names[0]
    if metric not in result.mean:
        raise InvalidParameterError(f"{where}: metric={metric!r} is not among its metrics "
                                    f"{names}.")
    return metric


def _scores(v, metric, arg):
    """``(ids, values)`` of one ordering."""
    if hasattr(v, "per_query") and hasattr(v, "query_ids"):  # EvaluationResult: queries
        m = _one_metric(v, metric, arg)
        ids = as_ids(v.query_ids, f"{arg}.query_ids")
        return ids, as_numeric_array(v.per_query[m], f"{arg}.per_query[{m!r}]").astype(float)
    if hasattr(v, "index") and hasattr(v, "to_numpy") and not hasattr(v, "columns"):
        ids = as_ids(v.index.to_numpy(), f"{arg}.index")
        return ids, as_numeric_array(v.to_numpy(), arg).astype(np.float64)
    if not isinstance(v, Mapping):
        raise InvalidParameterError(
            f"{arg} must be an ordering: {{system: score}}, {{system: EvaluationResult}}, an "
            f"EvaluationResult (its queries) or a pandas Series; got {type(v).__name__}.")
    keys = list(v)
    values = list(v.values())
    results = [hasattr(x, "mean") and hasattr(x, "per_query") for x in values]
    if any(results):
        if not all(results):
            raise InvalidParameterError(f"{arg} mixes EvaluationResults and numbers; give "
                                        "one form for every system.")
        scores = []
        for k, res in zip(keys, values):
            m = _one_metric(res, metric, f"{arg}[{k!r}]")
            scores.append(res.mean[m])
        values = scores
    elif metric is not None:
        raise InvalidParameterError(f"metric={metric!r} is read from EvaluationResults; "
                                    f"{arg} gives plain scores.")
    names = np.empty(len(keys), dtype=object)
    names[:] = keys
    ids = as_ids(names if keys else np.array([], dtype=str), f"the keys of {arg}")
    try:
        arr = np.array(values, dtype=np.float64)
    except (TypeError, ValueError):
        bad = next(x for x in values if not isinstance(x, (int, float, np.number)))
        raise InvalidParameterError(f"{arg} must map each system to a number, got "
                                    f"{short_repr(bad)}.") from None
    return ids, arr


def paired_scores(a, b, metric, on_missing, where):
    """The items both orderings score, sorted, and their two scores."""
    ia, va = _scores(a, metric, "a")
    ib, vb = _scores(b, metric, "b")
    for arg, ids in (("a", ia), ("b", ib)):
        u, counts = np.unique(ids, return_counts=True)
        if (counts > 1).any():
            raise ValueError(f"{where}: {arg} names {u[counts > 1][0].item()!r} twice.")
    if ia.dtype.kind != ib.dtype.kind:
        ia, ib = ia.astype(str), ib.astype(str)
    shared, pa, pb = np.intersect1d(ia, ib, return_indices=True)
    only = [(arg, np.setdiff1d(i, shared)) for arg, i in (("a", ia), ("b", ib))]
    only = [(arg, v) for arg, v in only if v.size]
    if only and on_missing == "raise":
        detail = "; ".join(f"only {arg} has {v.size} ({example_ids(v)})" for arg, v in only)
        raise ValueError(f"{where}: the two orderings do not rank the same items: {detail}. "
                         "Compare the items both rank with on_missing='drop'.")
    va, vb = va[pa], vb[pb]
    bad = np.isnan(va) | np.isnan(vb)
    if bad.any():
        warn(f"{where}: {counted(int(bad.sum()), 'item')} with a NaN score "
             f"({example_ids(shared[bad])}) left out.")
        shared, va, vb = shared[~bad], va[~bad], vb[~bad]
    if np.isinf(va).any() or np.isinf(vb).any():
        raise ValueError(f"{where}: the scores must be finite.")
    va, vb = snap(va), snap(vb)  # round-off is not an order
    if shared.shape[0] < 2:
        raise ValueError(f"{where}: {counted(int(shared.shape[0]), 'item')} in common; a "
                         "rank correlation needs at least two.")
    return shared, va, vb


def _undefined(value, where, why):
    if np.isnan(value):
        warn(f"{where} is undefined (NaN): {why}.")
    return float(value)


def _constant(v):
    return bool((v == v[0]).all())


# -- the public functions ---------------------------------------------------------------

_A_DOC = """a : mapping or EvaluationResult
    An ordering of items, higher first: ``{system: score}``, ``{system:
    EvaluationResult}`` (each system's mean of ``metric``; the usual
    input: the same runs scored under two qrels), a pandas Series indexed
    by item, or an EvaluationResult, whose queries are then the items
    ordered (by their per-query values of ``metric``). Items are paired
    by name."""
_B_DOC = """b : mapping or EvaluationResult
    The other ordering, in any form ``a`` takes."""
_METRIC_DOC = """metric : str, default=None
    The metric read from EvaluationResults; None when they hold one."""
_ON_MISSING_DOC = """on_missing : {"raise", "drop"}, default="raise"
    An item that one ordering has and the other lacks raises an error
    naming it, or is left out with ``"drop"``."""
_OWN = dict(a=_A_DOC, b=_B_DOC, metric=_METRIC_DOC, on_missing=_ON_MISSING_DOC)


@validate
@fill_doc(**_OWN)
def kendall_tau(a: Ordering, b: Ordering, *, variant: KendallVariant = "b",
                metric: str | None = None, on_missing: OnMissing = "raise") -> float:
    r"""Kendall's rank correlation of two orderings of the same items.

    .. math::

        \tau_b = \frac{C - D}{\sqrt{(n_0 - n_a)(n_0 - n_b)}}, \qquad
        \tau_c = \frac{2 (C - D)}{n^2 (m - 1) / m}

    with :math:`C` and :math:`D` the concordant and discordant pairs of
    items, :math:`n_0 = n(n-1)/2`, :math:`n_a` and :math:`n_b` the pairs
    tied in ``a`` and in ``b``, and :math:`m` the fewer distinct values of
    the two. Equal to ``scipy.stats.kendalltau(a, b, variant=...)``.

    Parameters
    ----------
    %(parameters)s

    Returns
    -------
    tau : float
        :math:`\tau_b` or :math:`\tau_c`, in [-1, 1]; NaN (with a warning)
        when one ordering ties every item (and so gives no pair an order).

    See Also
    --------
    tau_ap : The top-weighted AP correlation.
    weighted_tau : Vigna's weighted tau.
    compare_qrels : The orderings of systems under two qrels.

    Notes
    -----
    Ties count as SciPy counts them: a pair tied in either ordering is
    neither concordant nor discordant. Scores that differ by round-off only
    (less than :math:`2^{-40}` of the largest, about :math:`10^{-12}` of it:
    two means of the same values summed in another order) are equal. At
    least two items must be shared; an item with a NaN score (a query that
    ``no_relevant="skip"`` left out) is left out with a warning. Cost:
    :math:`O(n^2)` for :math:`n` items.

    References
    ----------
    .. [1] Kendall, M. G. (1945). The treatment of ties in ranking problems.
           Biometrika 33(3), 239-251.

    Examples
    --------
    >>> from sk_rankmetrics import kendall_tau
    >>> human = {"bm25": 0.41, "dense": 0.52, "rerank": 0.58, "splade": 0.55}
    >>> judge = {"bm25": 0.47, "dense": 0.61, "rerank": 0.60, "splade": 0.66}
    >>> round(kendall_tau(human, judge), 4)
    0.3333
    """
    where = "kendall_tau"
    _, va, vb = paired_scores(a, b, metric, on_missing, where)
    tau = kendall_rows(va[None, :], vb[None, :], variant)[0]
    return _undefined(tau, where, "one ordering ties every item")


@validate
@fill_doc(**{**_OWN, "a": "a : mapping or EvaluationResult\n    The observed ordering, in "
             "any form :func:`kendall_tau` takes.", "b": "b : mapping or EvaluationResult\n"
             "    The reference ordering, in the same form."})
def tau_ap(a: Ordering, b: Ordering, *, symmetric: bool = False, metric: str | None = None,
           on_missing: OnMissing = "raise") -> float:
    r"""AP rank correlation of an observed ordering against a reference.

    Yilmaz, Aslam and Robertson's :math:`\tau_{AP}` weighs the swaps near the
    top of the observed ordering more than those below: going down ``a``,
    each item's share of the items above it that ``b`` also puts above it,

    .. math::

        \tau_{AP}(a, b) = \frac{2}{n-1} \sum_{i=2}^{n} \frac{C(i)}{i-1} - 1,

    with :math:`C(i)` the items above the :math:`i`-th of ``a`` that ``b``
    ranks above it.

    Parameters
    ----------
    %(parameters)s

    Returns
    -------
    tau_ap : float
        In [-1, 1]; 1 when the orderings agree.

    See Also
    --------
    kendall_tau : The same pairs, all weighted alike.
    compare_qrels : The orderings of systems under two qrels.

    Notes
    -----
    **Ties.** With ``symmetric=False`` the reference must order every item
    strictly (a tie in ``b`` raises an error naming the tied items); a tie
    group of the observed ``a`` gets the expected :math:`\tau_{AP}` over
    every order of the group, equally likely, which is Urbano and Marrero's
    :math:`\tau_{AP,a}` [2]_: an item of a group at positions :math:`t`
    to :math:`t + g - 1` is at each with probability :math:`1/g`, and two
    items of one group agree with the reference in half the orders. With
    ``symmetric=True``, :math:`\tau_{AP,b}` averages its two halves: each
    goes down one ordering by its tie groups, leaving out the top group, and
    takes each item's share of the items in the groups above its own that
    the other ordering also puts strictly above it [2]_. NaN (with a
    warning) when an ordering ties every item. Scores that differ by
    round-off only (less than :math:`2^{-40}` of the largest) are equal. Cost: :math:`O(n^2)`.

    References
    ----------
    .. [1] Yilmaz, E., Aslam, J. A. and Robertson, S. (2008). A new rank
           correlation coefficient for information retrieval. SIGIR 2008,
           587-594.
    .. [2] Urbano, J. and Marrero, M. (2017). The treatment of ties in AP
           correlation. ICTIR 2017, 321-324.

    Examples
    --------
    >>> from sk_rankmetrics import tau_ap
    >>> human = {"bm25": 0.41, "dense": 0.52, "rerank": 0.58, "splade": 0.55}
    >>> judge = {"bm25": 0.47, "dense": 0.61, "rerank": 0.60, "splade": 0.66}
    >>> round(tau_ap(judge, human), 4)  # the judge's ordering against the humans'
    0.3333
    >>> round(tau_ap(judge, human, symmetric=True), 4)
    0.1667
    """
    where = "tau_ap"
    ids, va, vb = paired_scores(a, b, metric, on_missing, where)
    if symmetric:
        value = tau_ap_b_rows(va[None, :], vb[None, :])[0]
        return _undefined(value, where, "one ordering ties every item")
    if _constant(va):
        return _undefined(float("nan"), where, "a ties every item")
    order = np.argsort(vb, kind="stable")
    tied = flatnonzero(vb[order][1:] == vb[order][:-1])
    if tied.size:
        i = int(tied[0])
        pair = (ids[order][i].item(), ids[order][i + 1].item())
        raise ValueError(f"tau_ap: the reference b ties {pair[0]!r} and {pair[1]!r} (score "
                         f"{vb[order][i]:g}); with symmetric=False it must order every item "
                         "strictly. symmetric=True (Urbano and Marrero's tau_AP,b) takes "
                         "ties in both orderings.")
    return float(tau_ap_rows(va[None, :], vb[None, :])[0])


@validate
@fill_doc(**_OWN)
def weighted_tau(a: Ordering, b: Ordering, *, metric: str | None = None,
                 on_missing: OnMissing = "raise") -> float:
    r"""Vigna's weighted rank correlation, top-weighted and symmetric.

    Each pair of items weighs the sum of its two items' hyperbolic weights,
    :math:`w_{ij} = 1/(r_i + 1) + 1/(r_j + 1)`, with :math:`r` the rank
    (from 0) by decreasing ``a`` then ``b``:

    .. math::

        \tau_w = \frac{\sum_{i<j} w_{ij}\, \mathrm{sgn}(a_i - a_j)
        \,\mathrm{sgn}(b_i - b_j)}{\sqrt{\sum_{i<j} w_{ij} [a_i \ne a_j]}
        \sqrt{\sum_{i<j} w_{ij} [b_i \ne b_j]}},

    averaged with the same computed with the ranks by ``b`` then ``a``.
    Equal to ``scipy.stats.weightedtau(a, b)`` (its defaults: hyperbolic,
    additive, ``rank=True``).

    Parameters
    ----------
    %(parameters)s

    Returns
    -------
    tau_w : float
        The weighted coefficient, in [-1, 1]: 1 when the orderings agree,
        -1 when one reverses the other; NaN (with a warning) when an
        ordering ties every item.

    See Also
    --------
    kendall_tau : Every pair weighted alike.

    Notes
    -----
    Ties are treated as in :math:`\tau_b`: a pair tied in one ordering
    counts in neither the numerator nor that ordering's denominator. Items
    tied in both orderings may take their two ranks in either order: the
    sum is the same. Scores that differ by round-off only (less than
    :math:`2^{-40}` of the largest) are equal. Cost: :math:`O(n^2)`.

    References
    ----------
    .. [1] Vigna, S. (2015). A weighted correlation index for rankings with
           ties. WWW 2015, 1166-1176.

    Examples
    --------
    >>> from sk_rankmetrics import weighted_tau
    >>> human = {"bm25": 0.41, "dense": 0.52, "rerank": 0.58, "splade": 0.55}
    >>> judge = {"bm25": 0.47, "dense": 0.61, "rerank": 0.60, "splade": 0.66}
    >>> round(weighted_tau(human, judge), 4)
    0.2
    """
    where = "weighted_tau"
    _, va, vb = paired_scores(a, b, metric, on_missing, where)
    value = (_weighted_half(va, vb) + _weighted_half(vb, va)) / 2
    return _undefined(value, where, "one ordering ties every item")
