"""Assessor agreement on qrels: Cohen's and weighted kappa, Fleiss' kappa, Krippendorff's alpha.

Every coefficient is a function of sums over the judged (query, document)
pairs: a confusion matrix (Cohen), per-category counts and pair agreement
(Fleiss), a coincidence matrix (Krippendorff). Each query's sums are kept,
so that the overall value (of the summed matrices), each query's value and
a bootstrap over queries (resampled sums, one matrix product per block of
resamples) all come from one table, with no loop over queries.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import NDArray

from .._files.runs import as_qrels
from .._inputs.id_pairs import truth_pairs
from .._utils.arrays import as_ids, as_numeric_array
from .._utils.docstrings import fill_doc
from .._utils.errors import InvalidParameterError, counted, short_repr, shown, warn
from .._utils.nonzero import flatnonzero
from .._utils.params import validate
from .._utils.types import AlphaLevel, KappaWeights, PathLike
from . import significance as _sig

if TYPE_CHECKING:
    import pandas
    from typing_extensions import TypeAlias

    from .._files.trec import TrecQrels
    from .._utils.types import ArrayLike, Frame

#: Judgements in any form the package reads.
Qrels: TypeAlias = "TrecQrels | PathLike | Frame | Mapping[Any, Mapping[Any, float]]"


# -- the judgements, as units x assessors -------------------------------------------------


def qrels_arrays(q, where):
    """``(qid, docno, level)`` of judgements in any accepted form."""
    if isinstance(q, Mapping) or isinstance(q, tuple):
        qid, docno, rel, _ = truth_pairs(q, None, side=where)
        return (as_ids(qid, f"the query ids of {where}"),
                as_ids(docno, f"the document ids of {where}"),
                as_numeric_array(rel, f"the levels of {where}").astype(np.float64))
    if not (isinstance(q, (str, os.PathLike)) or hasattr(q, "columns")
            or hasattr(q, "relevance")):
        raise InvalidParameterError(
            f"{where} must be qrels: a TrecQrels, a path to a qrels file, a data frame, "
            f"{{query: {{doc: level}}}} or (qid, docno, level) arrays; got "
            f"{type(q).__name__}.")
    t = as_qrels(q)
    return (as_ids(t.qid, f"the query ids of {where}"),
            as_ids(t.docno, f"the document ids of {where}"),
            np.asarray(t.relevance, dtype=np.float64))


class Units:
    """The (query, document) pairs any assessor judged, and who judged what.

    ``level[u, k]`` is the category index of assessor ``k``'s level for
    unit ``u`` (-1: not judged); ``values`` the categories (the distinct
    levels, increasing); ``query[u]`` the index of the unit's query in
    ``query_ids``.
    """

    def __init__(self, qrels_list, names):
        arrays = [qrels_arrays(q, n) for q, n in zip(qrels_list, names)]
        for (_, d, _), n in zip(arrays, names):
            if d.shape[0] == 0:
                raise ValueError(f"{n} holds no judgement.")
        kinds = {a[0].dtype.kind == "U" for a in arrays}
        if len(kinds) > 1:
            raise ValueError("the qrels have integer query ids in some and string ids in "
                             "others, so no query can be paired; give the ids one type.")
        docs = [a[1] for a in arrays]
        if len({d.dtype.kind == "U" for d in docs}) > 1:
            docs = [d.astype(str) for d in docs]
        for (_, _, lv), n in zip(arrays, names):
            if not np.isfinite(lv).all():
                raise ValueError(f"{n}: every level must be a finite number.")
        self.query_ids, qcode = np.unique(np.concatenate([a[0] for a in arrays]),
                                          return_inverse=True)
        dvocab, dcode = np.unique(np.concatenate(docs), return_inverse=True)
        keys = qcode.reshape(-1).astype(np.int64) * dvocab.shape[0] + dcode.reshape(-1)
        unit_keys, unit = np.unique(keys, return_inverse=True)
        unit = unit.reshape(-1)
        self.values, cat = np.unique(np.concatenate([a[2] for a in arrays]),
                                     return_inverse=True)
        cat = cat.reshape(-1)
        self.query = (unit_keys // dvocab.shape[0]).astype(np.int64)
        self.level = np.full((unit_keys.shape[0], len(arrays)), -1, dtype=np.int64)
        start = 0
        for k, (a, n) in enumerate(zip(arrays, names)):
            m = a[0].shape[0]
            u = unit[start:start + m]
            if np.unique(u).shape[0] != m:
                s = np.sort(u)
                twice = s[1:][s[1:] == s[:-1]][0]
                i = int(flatnonzero(u == twice)[0])
                raise ValueError(f"{n} judges document {shown(a[1][i])!r} twice for query "
                                 f"{shown(a[0][i])!r}; give each (query, document) pair once.")
            self.level[u, k] = cat[start:start + m]
            start += m
        self.judged_by = (self.level >= 0).sum(axis=1)


# -- the coefficients from their sums, many rows at once -------------------------------


def _kappa_weights(n, weights):
    idx = np.arange(n, dtype=np.float64)
    if weights is None:
        return 1.0 - np.eye(n)
    diff = idx[None, :] - idx[:, None]
    return np.abs(diff) if weights == "linear" else diff**2


def cohen_from(C, W):
    """Cohen's kappa of each confusion matrix ``C[r]`` (rows: the first
    assessor), as scikit-learn computes it; NaN where undefined."""
    sum0, sum1 = C.sum(axis=1), C.sum(axis=2)
    total = sum0.sum(axis=1)
    expected = sum0[:, :, None] * sum1[:, None, :] / np.where(total > 0, total, 1)[:, None, None]
    num, den = (W * C).sum(axis=(1, 2)), (W * expected).sum(axis=(1, 2))
    ok = (total > 0) & (den != 0)
    out = np.full(C.shape[0], np.nan)
    out[ok] = 1 - num[ok] / den[ok]
    return out


def fleiss_from(S, m):
    """Fleiss' kappa of each row of sums ``S[r] = (sum of P_u, units, counts per
    category)`` with ``m`` assessors per unit, as statsmodels computes it."""
    n_units = S[:, 1]
    ok = n_units > 0
    p_mean = np.divide(S[:, 0], n_units, out=np.zeros(S.shape[0]), where=ok)
    p_cat = np.divide(S[:, 2:], (n_units * m)[:, None], out=np.zeros(S[:, 2:].shape),
                      where=ok[:, None])
    pe = (p_cat * p_cat).sum(axis=1)
    ok &= pe != 1
    out = np.full(S.shape[0], np.nan)
    out[ok] = (p_mean[ok] - pe[ok]) / (1 - pe[ok])
    return out


def alpha_from(Co, values, level):
    """Krippendorff's alpha of each coincidence matrix ``Co[r]``, as the
    ``krippendorff`` package computes it; NaN where undefined."""
    n_v = Co.sum(axis=1)
    n = n_v.sum(axis=1)
    V = values.shape[0]
    if level == "nominal":
        D = np.broadcast_to(1.0 - np.eye(V), Co.shape)
    elif level == "interval":
        D = np.broadcast_to((values[:, None] - values[None, :]) ** 2, Co.shape)
    elif level == "ratio":
        s = values[:, None] + values[None, :]
        ratio = np.divide(values[:, None] - values[None, :], s, out=np.zeros((V, V)),
                          where=s != 0)
        D = np.broadcast_to(ratio**2, Co.shape)
    else:  # ordinal: the counts between the two values, ends halved
        cum = np.cumsum(n_v, axis=1)
        lo, hi = np.minimum.outer(np.arange(V), np.arange(V)), np.maximum.outer(
            np.arange(V), np.arange(V))
        before = np.concatenate((np.zeros((Co.shape[0], 1)), cum), axis=1)
        between = cum[:, hi] - before[:, lo]
        D = (between - (n_v[:, lo] + n_v[:, hi]) / 2) ** 2
    E = (n_v[:, :, None] * n_v[:, None, :] - n_v[:, :, None] * np.eye(V)) / np.where(
        n > 1, n - 1, 1)[:, None, None]
    num, den = (Co * D).sum(axis=(1, 2)), (E * D).sum(axis=(1, 2))
    ok = (n > 1) & (den != 0)
    out = np.full(Co.shape[0], np.nan)
    out[ok] = 1 - num[ok] / den[ok]
    return out


# -- the result ------------------------------------------------------------------------


class AgreementResult:
    r"""How far assessors agree: overall, per query, and a bootstrap interval.

    Built by :func:`cohen_kappa`, :func:`fleiss_kappa` and
    :func:`krippendorff_alpha`. ``float(result)`` is the overall value.

    Parameters
    ----------
    measure : str
        The coefficient (``"cohen_kappa"``, ``"cohen_kappa_linear"``, ...).
    value : float
        The coefficient over every (query, document) pair used.
    interval : (float, float)
        The BCa bootstrap interval of ``value`` over queries.
    query_ids : ndarray of shape (n_queries,)
        The queries with a pair used.
    per_query : ndarray of shape (n_queries,)
        The coefficient of each query's pairs (NaN where it is undefined).
    n_pairs : ndarray of shape (n_queries,)
        The pairs used per query.
    settings : dict
        ``confidence_level``, ``n_resamples``, ``random_state`` and the
        measure's options.
    notes : list of str
        What was left out, and the undefined cases.

    Attributes
    ----------
    n_queries : int
        Queries with a pair used.
    n_pairs_total : int
        Pairs used overall.

    See Also
    --------
    compare_qrels : Two qrels compared through the systems they rank.

    Notes
    -----
    Every coefficient has the form

    .. math:: \kappa = \frac{p_o - p_e}{1 - p_e}
       \quad\text{or}\quad \alpha = 1 - \frac{D_o}{D_e},

    observed agreement against the agreement expected by chance. The
    interval resamples the queries (their pairs together), with the
    bias-corrected and accelerated (BCa) method, the acceleration from the
    jackknife over queries; resamples where the coefficient is undefined are
    left out, and the notes say how many.

    Examples
    --------
    >>> from sk_rankmetrics import cohen_kappa
    >>> a = {"q1": {"d1": 1, "d2": 0, "d3": 2}, "q2": {"d4": 0, "d5": 1}}
    >>> b = {"q1": {"d1": 1, "d2": 1, "d3": 2}, "q2": {"d4": 0, "d5": 1}}
    >>> res = cohen_kappa(a, b, random_state=0)
    >>> round(float(res), 4), res.per_query.round(4).tolist()
    (0.6875, [0.5, 1.0])
    >>> res.to_frame()
           cohen_kappa  n_pairs
    query
    q1             0.5        3
    q2             1.0        2
    """

    def __init__(self, *, measure: str, value: float, interval: tuple[float, float],
                 query_ids: NDArray[Any], per_query: NDArray[np.float64],
                 n_pairs: NDArray[np.int64], settings: Mapping[str, Any],
                 notes: Sequence[str]) -> None:
        self.measure = measure
        self.value = float(value)
        self.interval = (float(interval[0]), float(interval[1]))
        self.query_ids = query_ids
        self.per_query = per_query
        self.n_pairs = n_pairs
        self.settings = dict(settings)
        self.notes = list(notes)
        self.n_queries = int(query_ids.shape[0])
        self.n_pairs_total = int(n_pairs.sum())

    def __float__(self) -> float:
        return self.value

    def __repr__(self) -> str:
        level = f"{self.settings['confidence_level'] * 100:g}%"
        return (f"AgreementResult({self.measure}={self.value:.4f}, {level} CI "
                f"[{self.interval[0]:.4f}, {self.interval[1]:.4f}], "
                f"{self.n_pairs_total} pairs, {counted(self.n_queries, 'query')})")

    def to_frame(self) -> pandas.DataFrame:
        """Each query's coefficient and pairs used, as a pandas DataFrame.

        Returns
        -------
        frame : pandas.DataFrame
            Indexed by query id; columns the measure and ``n_pairs``.

        Examples
        --------
        >>> from sk_rankmetrics import krippendorff_alpha
        >>> a = {"q1": {"d1": 1, "d2": 0}, "q2": {"d3": 2, "d4": 0}}
        >>> b = {"q1": {"d1": 1, "d2": 1}, "q2": {"d3": 2, "d4": 0}}
        >>> krippendorff_alpha([a, b], random_state=0).to_frame()["n_pairs"].tolist()
        [2, 2]
        """
        import pandas as pd

        return pd.DataFrame({self.measure: self.per_query, "n_pairs": self.n_pairs},
                            index=pd.Index(self.query_ids, name="query"))


def _agreement(measure, stats, query, n_queries, statistic, settings, notes, query_ids):
    """The overall value, per-query values and bootstrap interval of a
    statistic of summed per-query tables ``stats`` (one row per used unit's
    contribution, ``query`` its query)."""
    k = stats.shape[1]
    per = np.zeros((n_queries, k))
    for j in range(k):
        per[:, j] = np.bincount(query, weights=stats[:, j], minlength=n_queries)
    counts = np.bincount(query, minlength=n_queries)
    used = counts > 0
    per, counts, ids = per[used], counts[used], query_ids[used]
    if ids.shape[0] == 0:
        raise ValueError(f"{measure}: no (query, document) pair is judged by the assessors "
                         "it needs; the qrels share no judged document.")
    total = per.sum(axis=0)
    value = float(statistic(total[None, :])[0])
    per_query = statistic(per)
    undefined = int(np.isnan(per_query).sum())
    if undefined:
        notes.append(f"{counted(undefined, 'query')} where the coefficient is undefined (one "
                     "level only, or no chance disagreement): NaN in per_query.")
    if np.isnan(value):
        warn(f"{measure} is undefined (NaN): the assessors' levels leave no room for chance "
             "disagreement (a single level, say).")
    n = ids.shape[0]
    interval = (float("nan"), float("nan"))
    if n >= 2 and not np.isnan(value):
        rng = _sig.rng_from(settings["random_state"])
        boot = statistic(_sig.bootstrap_means(per, settings["n_resamples"], rng) * n)
        jack = statistic(total[None, :] - per)
        finite = boot[~np.isnan(boot)]
        if finite.shape[0] < boot.shape[0]:
            notes.append(f"{boot.shape[0] - finite.shape[0]} of {boot.shape[0]} bootstrap "
                         "resamples left the coefficient undefined and were left out.")
        if finite.shape[0]:
            interval = _sig.bca_jackknife(value, finite, jack[~np.isnan(jack)],
                                          settings["confidence_level"])
    elif n < 2:
        notes.append("one query only: no bootstrap interval (NaN).")
    return AgreementResult(measure=measure, value=value, interval=interval, query_ids=ids,
                           per_query=per_query, n_pairs=counts, settings=settings,
                           notes=notes)


def _left_out(units, need, notes):
    """Keep the units judged by ``need`` assessors (or more, ``need`` negative)."""
    keep = units.judged_by >= abs(need) if need < 0 else units.judged_by == need
    dropped = int((~keep & (units.judged_by > 0)).sum())
    if dropped:
        notes.append(f"{dropped} of {units.judged_by.shape[0]} (query, document) pairs were "
                     "left out: judged by too few assessors.")
    return keep


def _names(qrels_list, where):
    if isinstance(qrels_list, (str, os.PathLike, Mapping)) or hasattr(qrels_list, "columns") \
            or hasattr(qrels_list, "relevance") or not isinstance(qrels_list, Sequence):
        raise InvalidParameterError(f"{where} takes a list of qrels (one per assessor), got "
                                    f"{type(qrels_list).__name__}.")
    if len(qrels_list) < 2:
        raise ValueError(f"{where} needs the qrels of at least two assessors, got "
                         f"{len(qrels_list)}.")
    return [f"qrels[{i}]" for i in range(len(qrels_list))]


def _settings(confidence_level, n_resamples, random_state, **extra):
    return dict(confidence_level=confidence_level, n_resamples=n_resamples,
                random_state=random_state, **extra)


# -- the public functions -------------------------------------------------------------------

_QRELS_DOC = """qrels : list of qrels
    One qrels per assessor (two or more), each in any form
    :func:`cohen_kappa` takes."""
#: The bootstrap's blocks, shared by the three functions.
_BOOTSTRAP = dict(
    confidence_level="""confidence_level : float, default=0.95
    Level of the bootstrap interval.""",
    n_resamples="""n_resamples : int, default=10_000
    Bootstrap resamples of the queries.""",
    random_state="""random_state : int, default=None
    Seed of the resamples; None draws a fresh one.""",
)


@validate
@fill_doc(qrels_a="""qrels_a : qrels
    The judgements of one assessor: a :class:`TrecQrels`, a path to a qrels
    file (read with :func:`read_qrels`), a data frame (read with
    :func:`qrels_from_frame`), ``{query: {doc: level}}`` or a tuple
    ``(qid, docno, level)``.""", qrels_b="""qrels_b : qrels
    The other assessor's, in any form ``qrels_a`` takes.""", **_BOOTSTRAP)
def cohen_kappa(qrels_a: Qrels, qrels_b: Qrels, *, weights: KappaWeights | None = None,
                labels: ArrayLike | None = None, confidence_level: float = 0.95,
                n_resamples: int = 10_000, random_state: int | None = None) -> AgreementResult:
    r"""Cohen's kappa (or weighted kappa) of two assessors' qrels.

    On the (query, document) pairs both judged, with :math:`C` the
    confusion matrix of their levels and :math:`E = C_{\cdot j} C_{i \cdot}
    / n` the matrix their marginals give by chance,

    .. math::

        \kappa = 1 - \frac{\sum_{ij} w_{ij} C_{ij}}{\sum_{ij} w_{ij} E_{ij}},
        \qquad w_{ij} = [i \ne j],\ |i - j| \text{ or } (i - j)^2

    (unweighted, linear, quadratic; :math:`i, j` index the levels in
    increasing order). Equal to ``sklearn.metrics.cohen_kappa_score`` of the
    two assessors' levels on those pairs (and ``labels``, ``weights``).

    Parameters
    ----------
    %(parameters)s

    Returns
    -------
    result : AgreementResult
        ``float(result)`` the kappa; ``result.interval``,
        ``result.per_query`` (each query's pairs, with the same levels and
        weights), ``result.notes``.

    See Also
    --------
    fleiss_kappa : More than two assessors.
    krippendorff_alpha : Missing judgements and levels of measurement.

    Notes
    -----
    A pair only one assessor judged is left out (Cohen's kappa compares the
    two assessors on the same items); the notes count them. Kappa is
    undefined (NaN, with a warning) when chance disagreement is zero, as when
    both assessors give one level only; a query where it is undefined is NaN
    in ``per_query``. The interval is a BCa bootstrap over queries (see
    :class:`AgreementResult`). Cost: :math:`O(n + Q V^2 + B Q V^2)` for
    :math:`n` judgements, :math:`Q` queries, :math:`V` levels and :math:`B`
    resamples.

    References
    ----------
    .. [1] Cohen, J. (1960). A coefficient of agreement for nominal scales.
           Educational and Psychological Measurement 20(1), 37-46.
    .. [2] Cohen, J. (1968). Weighted kappa. Psychological Bulletin 70(4),
           213-220.

    Examples
    --------
    >>> from sk_rankmetrics import cohen_kappa
    >>> human = {"q1": {"d1": 2, "d2": 0, "d3": 1, "d4": 0}, "q2": {"d5": 1, "d6": 0}}
    >>> judge = {"q1": {"d1": 2, "d2": 1, "d3": 1, "d4": 0, "d9": 2}, "q2": {"d5": 1, "d6": 0}}
    >>> res = cohen_kappa(human, judge, weights="linear", random_state=0)
    >>> round(float(res), 4), res.n_pairs_total, res.notes[0]
    (0.7857, 6, '1 of 7 (query, document) pairs were left out: judged by too few assessors.')
    """
    notes: list[str] = []
    units = Units([qrels_a, qrels_b], ["qrels_a", "qrels_b"])
    keep = _left_out(units, 2, notes)
    values = units.values
    if labels is not None:
        lab = as_numeric_array(labels, "labels").astype(np.float64).reshape(-1)
        if np.unique(lab).shape[0] != lab.shape[0]:
            raise InvalidParameterError(f"cohen_kappa: labels={short_repr(labels)} names a "
                                        "level twice.")
        used = np.unique(units.level[keep])
        outside = ~np.isin(values[used], lab)
        if outside.any():
            raise ValueError(f"cohen_kappa: the level {values[used][outside][0]:g} is not in "
                             f"labels={short_repr(labels)}; give every level the assessors "
                             "use.")
        position = {float(v): i for i, v in enumerate(lab)}  # the order given
        remap = np.array([position.get(float(v), -1) for v in values], dtype=np.int64)
        level = remap[units.level[keep]]
        V = lab.shape[0]
    else:
        level = units.level[keep]
        present = np.unique(level)
        index = np.full(values.shape[0], -1)
        index[present] = np.arange(present.shape[0])
        level = index[level]
        V = present.shape[0]
    W = _kappa_weights(V, weights)
    a, b = level[:, 0], level[:, 1]
    stats = np.zeros((a.shape[0], V * V))
    stats[np.arange(a.shape[0]), a * V + b] = 1.0
    name = "cohen_kappa" if weights is None else f"cohen_kappa_{weights}"

    def statistic(S):
        return cohen_from(S.reshape(-1, V, V), W)

    return _agreement(name, stats, units.query[keep], units.query_ids.shape[0], statistic,
                      _settings(confidence_level, n_resamples, random_state,
                                weights=weights), notes, units.query_ids)


@validate
@fill_doc(qrels=_QRELS_DOC, **_BOOTSTRAP)
def fleiss_kappa(qrels: Sequence[Qrels], *, confidence_level: float = 0.95,
                 n_resamples: int = 10_000, random_state: int | None = None
                 ) -> AgreementResult:
    r"""Fleiss' kappa of several assessors' qrels.

    On the :math:`N` (query, document) pairs every assessor judged, with
    :math:`m` assessors and :math:`n_{uj}` of them giving pair :math:`u`
    level :math:`j`:

    .. math::

        \kappa = \frac{\bar P - \bar P_e}{1 - \bar P_e}, \quad
        \bar P = \frac{1}{N}\sum_u \frac{\sum_j n_{uj}^2 - m}{m(m-1)}, \quad
        \bar P_e = \sum_j \Big(\frac{\sum_u n_{uj}}{N m}\Big)^2.

    Equal to ``statsmodels.stats.inter_rater.fleiss_kappa`` of the table
    :math:`n_{uj}`.

    Parameters
    ----------
    %(parameters)s

    Returns
    -------
    result : AgreementResult
        Fleiss' kappa over the pairs every assessor judged (``float(result)``),
        with its bootstrap interval and each query's kappa.

    See Also
    --------
    krippendorff_alpha : Uses pairs that only some assessors judged.

    Notes
    -----
    Fleiss' kappa needs every pair rated by the same number of assessors: a
    pair that not every assessor judged is left out (the notes count them).
    Undefined (NaN, with a warning) when every judgement has one level. The
    interval is a BCa bootstrap over queries. Cost: :math:`O(n + B Q V)`.

    References
    ----------
    .. [1] Fleiss, J. L. (1971). Measuring nominal scale agreement among many
           raters. Psychological Bulletin 76(5), 378-382.

    Examples
    --------
    >>> from sk_rankmetrics import fleiss_kappa
    >>> a = {"q1": {"d1": 1, "d2": 0, "d3": 1}, "q2": {"d4": 0, "d5": 1}}
    >>> b = {"q1": {"d1": 1, "d2": 0, "d3": 0}, "q2": {"d4": 0, "d5": 1}}
    >>> c = {"q1": {"d1": 1, "d2": 1, "d3": 1}, "q2": {"d4": 0, "d5": 1}}
    >>> round(float(fleiss_kappa([a, b, c], random_state=0)), 4)
    0.4444
    """
    notes: list[str] = []
    names = _names(qrels, "fleiss_kappa")
    units = Units(list(qrels), names)
    m = len(names)
    keep = _left_out(units, m, notes)
    level = units.level[keep]
    V = units.values.shape[0]
    counts = np.zeros((level.shape[0], V))
    rows = np.repeat(np.arange(level.shape[0]), m)
    np.add.at(counts, (rows, level.reshape(-1)), 1.0)
    p_unit = ((counts * counts).sum(axis=1) - m) / (m * (m - 1.0))
    stats = np.column_stack((p_unit, np.ones(level.shape[0]), counts))

    def statistic(S):
        return fleiss_from(S, m)

    return _agreement("fleiss_kappa", stats, units.query[keep], units.query_ids.shape[0],
                      statistic, _settings(confidence_level, n_resamples, random_state), notes,
                      units.query_ids)


@validate
@fill_doc(qrels=_QRELS_DOC, **_BOOTSTRAP)
def krippendorff_alpha(qrels: Sequence[Qrels], *, level: AlphaLevel = "ordinal",
                       confidence_level: float = 0.95, n_resamples: int = 10_000,
                       random_state: int | None = None) -> AgreementResult:
    r"""Krippendorff's alpha of several assessors' qrels, judgements missing or not.

    With :math:`o_{ck}` the coincidences of levels :math:`c` and :math:`k`
    (each pair of judgements of one (query, document) pair, weighted
    :math:`1/(m_u - 1)` for a pair :math:`u` judged :math:`m_u` times),
    :math:`n_c = \sum_k o_{ck}`, :math:`n = \sum_c n_c` and a distance
    :math:`\delta^2_{ck}`:

    .. math::

        \alpha = 1 - (n - 1)\frac{\sum_{c,k} o_{ck}\,\delta^2_{ck}}
        {\sum_{c,k} n_c (n_k - [c = k])\,\delta^2_{ck}}.

    Equal to ``krippendorff.alpha(reliability_data,
    level_of_measurement=level)`` with one row per assessor and NaN where an
    assessor did not judge.

    Parameters
    ----------
    %(parameters)s

    Returns
    -------
    result : AgreementResult
        Alpha over every pair judged at least twice (``float(result)``), its
        BCa interval over queries, ``per_query`` and the notes of what was
        left out.

    See Also
    --------
    cohen_kappa : Two assessors.
    fleiss_kappa : Every pair judged by every assessor.

    Notes
    -----
    Alpha takes what each pair has: a pair judged by two or more assessors
    counts, one judged once cannot be paired and is left out (the notes count
    them). Undefined (NaN, with a warning) when every pairable judgement has
    one level. The interval is a BCa bootstrap over queries. Cost:
    :math:`O(n m + B Q V^2)`.

    References
    ----------
    .. [1] Krippendorff, K. (2011). Computing Krippendorff's alpha-reliability.
           University of Pennsylvania, Annenberg School for Communication.
    .. [2] Hayes, A. F. and Krippendorff, K. (2007). Answering the call for a
           standard reliability measure for coding data. Communication Methods
           and Measures 1(1), 77-89.

    Examples
    --------
    >>> from sk_rankmetrics import krippendorff_alpha
    >>> a = {"q1": {"d1": 2, "d2": 0, "d3": 1}, "q2": {"d4": 0, "d5": 1}}
    >>> b = {"q1": {"d1": 2, "d2": 1, "d3": 1}, "q2": {"d4": 0}}
    >>> c = {"q1": {"d1": 1, "d2": 0}, "q2": {"d4": 0, "d5": 1, "d6": 2}}
    >>> res = krippendorff_alpha([a, b, c], level="interval", random_state=0)
    >>> round(float(res), 4), res.n_pairs_total
    (0.7073, 5)
    """
    notes: list[str] = []
    names = _names(qrels, "krippendorff_alpha")
    units = Units(list(qrels), names)
    keep = _left_out(units, -2, notes)
    level_idx = units.level[keep]
    V = units.values.shape[0]
    counts = np.zeros((level_idx.shape[0], V))
    judged = level_idx >= 0
    rows = np.repeat(np.arange(level_idx.shape[0]), level_idx.shape[1])[judged.reshape(-1)]
    np.add.at(counts, (rows, level_idx[judged]), 1.0)
    m_u = counts.sum(axis=1)
    pairs = counts[:, :, None] * counts[:, None, :] - counts[:, :, None] * np.eye(V)
    stats = (pairs / (m_u - 1)[:, None, None]).reshape(-1, V * V)
    values = units.values

    def statistic(S):
        return alpha_from(S.reshape(-1, V, V), values, level)

    return _agreement(f"krippendorff_alpha_{level}", stats, units.query[keep],
                      units.query_ids.shape[0], statistic,
                      _settings(confidence_level, n_resamples, random_state, level=level),
                      notes, units.query_ids)
