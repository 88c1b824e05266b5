"""Public metric functions on ``(n_rows, n_items)`` matrices or long format."""

from __future__ import annotations

from .._metrics.registry import METRICS, metric_function
from .._metrics.requests import Request
from .._utils.docstrings import fill_doc
from .._utils.params import validate
from .._utils.types import ArrayLike, Denominator, Discount, Gain, Mean, NoRelevant, Score
from .pipeline import evaluate_requests


def _evaluate_one(name, y_true, y_score, *, k, sample_weight, ignore_ties, no_relevant,
                  qid, per_row, judged=None, compute=True, exclude=None, **options):
    spec = METRICS[name]
    req = Request(spec, k, options, label=spec.function)
    out = evaluate_requests(y_true, y_score, [req], sample_weight=sample_weight,
                            ignore_ties=ignore_ties, no_relevant=no_relevant, qid=qid,
                            per_row=per_row, judged=judged, compute=compute,
                            exclude=exclude, where=spec.function)
    return out[req.label]


@metric_function("dcg")
@validate
@fill_doc(gain="""gain : {"linear", "exponential"}, mapping or callable, default="linear"
    See :func:`ndcg_score`. A negative relevance is allowed with the linear
    gain (as in scikit-learn).""")
def dcg_score(y_true: ArrayLike, y_score: ArrayLike, *, k: int | None = None, log_base: float = 2,
              sample_weight: ArrayLike | None = None, ignore_ties: bool = False,
              gain: Gain = "linear", discount: Discount = "log", qid: ArrayLike | None = None,
              per_row: bool = False, compute: bool = True,
              exclude: ArrayLike | None = None) -> Score:
    r"""Discounted cumulative gain (DCG@k).

    .. math::

        \mathrm{DCG@k} = \sum_{p=1}^{k} \mathrm{gain}(r_p)\,\mathrm{disc}(p)

    where :math:`r_p` is the relevance of the item ranked at position ``p`` by
    ``y_score``. With the defaults this is ``sklearn.metrics.dcg_score``.

    Parameters
    ----------
    %(parameters)s

    %(returns)s

    See Also
    --------
    ndcg_score : DCG divided by the ideal DCG.

    Notes
    -----
    Ties are averaged: a tie group occupying positions ``a..b`` contributes
    its mean gain at each of those positions (the expected DCG over every
    ordering of the group) [2]_. Matches scikit-learn to 1e-12 on every input
    it accepts, except ``log_base <= 1``, which it accepts and this function
    refuses (such a discount is negative or grows with the position). Sums
    are taken in float64 whatever the dtype of ``y_true``; a DCG beyond
    float64's range raises. Cost: one ``argpartition`` per row plus a sort of
    the top ``k``; a full sort when ``k`` is None.

    References
    ----------
    .. [1] %(jk)s
    .. [2] %(mn)s

    Examples
    --------
    >>> from sk_rankmetrics import dcg_score
    >>> y_true = [[3, 2, 3, 0, 1, 2]]
    >>> y_score = [[6, 5, 4, 3, 2, 1]]
    >>> round(dcg_score(y_true, y_score), 3)
    6.861
    >>> round(dcg_score([[2, 3, 0, 1, 2]], [[5, 4, 3, 2, 1]], gain="exponential"), 3)
    9.008
    """
    return _evaluate_one("dcg", y_true, y_score, k=k, sample_weight=sample_weight,
                         ignore_ties=ignore_ties, no_relevant="warn", qid=qid,
                         per_row=per_row, gain=gain, discount=discount, log_base=log_base,
                         compute=compute, exclude=exclude)


@metric_function("ndcg")
@validate
@fill_doc()
def ndcg_score(y_true: ArrayLike, y_score: ArrayLike, *, k: int | None = None,
               sample_weight: ArrayLike | None = None, ignore_ties: bool = False,
               gain: Gain = "linear", discount: Discount = "log", log_base: float = 2,
               no_relevant: NoRelevant = "warn", qid: ArrayLike | None = None,
               per_row: bool = False, compute: bool = True,
               exclude: ArrayLike | None = None) -> Score:
    r"""Normalised discounted cumulative gain (nDCG@k).

    .. math::

        \mathrm{nDCG@k} = \frac{\mathrm{DCG@k}}{\mathrm{IDCG@k}}, \qquad
        \mathrm{DCG@k} = \sum_{p=1}^{k} \mathrm{gain}(r_p)\,\mathrm{disc}(p)

    The ideal DCG (IDCG) is the DCG of the row's ground truth sorted by
    decreasing gain: every item of the row, not only those ``y_score`` put in
    the top ``k``, cut at ``k``. With the defaults this is
    ``sklearn.metrics.ndcg_score``.

    Parameters
    ----------
    %(parameters)s

    %(returns)s

    See Also
    --------
    dcg_score : The unnormalised DCG.
    evaluate : Several metrics from one ranking pass.

    Notes
    -----
    Ties in ``y_score`` are averaged (expected value over the orderings of each
    tie group) [2]_. Negative relevance in ``y_true`` raises with the linear
    and exponential gains (as scikit-learn raises): clip it
    (``np.maximum(y_true, 0)``, trec_eval's reading of negative qrels levels)
    or give the level a gain >= 0 with a gain mapping. (Qrels and id truths
    read by :func:`evaluate_run` and :func:`evaluate_ranked` are not matrices:
    there a negative level is a document in the pool but not judged, worth
    0, as trec_eval reads it.) Discounts
    that grow with the position raise: with them the ideal would not be the
    best ordering and values above 1 could come out. Settings that
    reproduce other tools:

    - scikit-learn: the defaults.
    - XGBoost / LightGBM (``ndcg@k``): ``gain="exponential"``,
      ``no_relevant=1.0`` (they score a query without relevant items 1).
    - trec_eval ``ndcg_cut_k`` / ranx ``ndcg@k``: the defaults (trec_eval:
      with ``no_relevant=0.0``); trec_eval's per-level gains:
      ``gain={level: gain}``. trec_eval breaks ties by document id instead
      of averaging them.

    The tools' numbers are compared in ``tests/agreement/test_sklearn_compat.py``,
    ``tests/agreement/test_trec_eval_compat.py`` and ``tests/agreement/test_ltr_libraries.py``.

    References
    ----------
    .. [1] %(jk)s
    .. [2] %(mn)s

    Examples
    --------
    >>> from sk_rankmetrics import ndcg_score
    >>> y_true = [[3, 2, 3, 0, 1, 2]]
    >>> y_score = [[6, 5, 4, 3, 2, 1]]
    >>> round(ndcg_score(y_true, y_score), 3)
    0.961
    >>> round(ndcg_score([[2, 3, 0, 1, 2]], [[5, 4, 3, 2, 1]], gain="exponential"), 3)
    0.832
    """
    return _evaluate_one("ndcg", y_true, y_score, k=k, sample_weight=sample_weight,
                         ignore_ties=ignore_ties, no_relevant=no_relevant, qid=qid,
                         per_row=per_row, gain=gain, discount=discount, log_base=log_base,
                         compute=compute, exclude=exclude)


@metric_function("cg")
@validate
@fill_doc(gain="""gain : {"linear", "exponential"}, mapping or callable, default="linear"
    See :func:`ndcg_score`.""")
def cumulative_gain_score(y_true: ArrayLike, y_score: ArrayLike, *, k: int | None = None,
                          sample_weight: ArrayLike | None = None, ignore_ties: bool = False,
                          gain: Gain = "linear", qid: ArrayLike | None = None,
                          per_row: bool = False, compute: bool = True,
                          exclude: ArrayLike | None = None) -> Score:
    r"""Cumulative gain (CG@k): the sum of the gains in the top ``k``.

    .. math::

        \mathrm{CG@k} = \sum_{p=1}^{k} \mathrm{gain}(r_p)

    Parameters
    ----------
    %(parameters)s

    %(returns)s

    Notes
    -----
    Order inside the top ``k`` does not matter; a tie group straddling
    position ``k`` contributes its mean gain at each position it covers.
    Without ``k`` this is the row's total gain. Sums are taken in float64.

    References
    ----------
    .. [1] %(jk)s

    Examples
    --------
    >>> from sk_rankmetrics import cumulative_gain_score
    >>> cumulative_gain_score([[0, 0, 1, 1, 1]], [[5, 4, 3, 2, 1]])
    3.0
    >>> cumulative_gain_score([[0, 0, 1, 1, 1]], [[5, 4, 3, 2, 1]], k=3)
    1.0
    """
    return _evaluate_one("cg", y_true, y_score, k=k, sample_weight=sample_weight,
                         ignore_ties=ignore_ties, no_relevant="warn", qid=qid,
                         per_row=per_row, gain=gain, compute=compute, exclude=exclude)


@metric_function("map")
@validate
@fill_doc()
def mean_average_precision_score(y_true: ArrayLike, y_score: ArrayLike, *, k: int | None = None,
                                 sample_weight: ArrayLike | None = None, ignore_ties: bool = False,
                                 threshold: float | None = None,
                                 denominator: Denominator = "min_k_relevant",
                                 mean: Mean = "arithmetic", no_relevant: NoRelevant = "warn",
                                 qid: ArrayLike | None = None, per_row: bool = False,
                                 compute: bool = True, exclude: ArrayLike | None = None) -> Score:
    r"""Mean average precision (MAP@k): AP@k averaged over rows.

    .. math::

        \mathrm{AP@k} = \frac{1}{D} \sum_{p=1}^{k} \mathrm{rel}_p\,
        \mathrm{P@p}, \qquad \mathrm{P@p} = \frac{1}{p}\sum_{i=1}^{p}
        \mathrm{rel}_i

    Parameters
    ----------
    %(parameters)s

    %(returns)s

    Notes
    -----
    With ties, the exact expected AP is taken [2]_: at position ``p`` inside a
    tie group of ``m`` items with ``r`` relevant, starting after ``B``
    relevant items and being its ``q``-th position, the expected term is
    ``(r/m (B + 1) + (q - 1) r (r - 1) / (m (m - 1))) / p``. With
    ``mean="geometric"`` and ``denominator="relevant"`` this is trec_eval's
    ``gm_map`` (the name ``"gm_map"`` sets both).

    References
    ----------
    .. [1] %(iir)s
    .. [2] %(mn)s

    Examples
    --------
    >>> from sk_rankmetrics import mean_average_precision_score
    >>> y_true = [[2, 3, 0, 1, 2]]
    >>> y_score = [[5, 4, 3, 2, 1]]
    >>> round(mean_average_precision_score(y_true, y_score), 4)
    0.8875
    """
    return _evaluate_one("map", y_true, y_score, k=k, sample_weight=sample_weight,
                         ignore_ties=ignore_ties, no_relevant=no_relevant, qid=qid,
                         per_row=per_row, threshold=threshold, denominator=denominator,
                         mean=mean, compute=compute, exclude=exclude)


@metric_function("precision")
@validate
@fill_doc()
def precision_at_k_score(y_true: ArrayLike, y_score: ArrayLike, *, k: int | None = None,
                         sample_weight: ArrayLike | None = None, ignore_ties: bool = False,
                         threshold: float | None = None, adaptive_k: bool = False,
                         no_relevant: NoRelevant = "warn", qid: ArrayLike | None = None,
                         per_row: bool = False, compute: bool = True,
                         exclude: ArrayLike | None = None) -> Score:
    r"""Precision at k: the share of relevant items in the top ``k``.

    .. math::

        \mathrm{P@k} = \frac{1}{k} \sum_{p=1}^{k} \mathrm{rel}_p

    Parameters
    ----------
    %(parameters)s

    %(returns)s

    Notes
    -----
    A row without relevant items scores 0 under every ordering; the
    ``no_relevant`` policy still applies so that such rows can be skipped.
    Without ``k`` the denominator is the number of items of the row.

    References
    ----------
    .. [1] %(iir)s

    Examples
    --------
    >>> from sk_rankmetrics import precision_at_k_score
    >>> precision_at_k_score([[1, 0, 1, 0]], [[4, 3, 2, 1]], k=2)
    0.5
    """
    return _evaluate_one("precision", y_true, y_score, k=k, sample_weight=sample_weight,
                         ignore_ties=ignore_ties, no_relevant=no_relevant, qid=qid,
                         per_row=per_row, threshold=threshold, adaptive_k=adaptive_k,
                         compute=compute, exclude=exclude)


@metric_function("recall")
@validate
@fill_doc()
def recall_at_k_score(y_true: ArrayLike, y_score: ArrayLike, *, k: int | None = None,
                      sample_weight: ArrayLike | None = None, ignore_ties: bool = False,
                      threshold: float | None = None, no_relevant: NoRelevant = "warn",
                      qid: ArrayLike | None = None, per_row: bool = False,
                      compute: bool = True, exclude: ArrayLike | None = None) -> Score:
    r"""Recall at k: the share of the row's relevant items found in the top ``k``.

    .. math::

        \mathrm{R@k} = \frac{1}{R} \sum_{p=1}^{k} \mathrm{rel}_p

    Parameters
    ----------
    %(parameters)s

    %(returns)s

    Notes
    -----
    ``R`` counts every relevant item of the row. Undefined for ``R = 0``.

    References
    ----------
    .. [1] %(iir)s

    Examples
    --------
    >>> from sk_rankmetrics import recall_at_k_score
    >>> recall_at_k_score([[1, 0, 1, 0]], [[4, 3, 2, 1]], k=2)
    0.5
    """
    return _evaluate_one("recall", y_true, y_score, k=k, sample_weight=sample_weight,
                         ignore_ties=ignore_ties, no_relevant=no_relevant, qid=qid,
                         per_row=per_row, threshold=threshold, compute=compute, exclude=exclude)


@metric_function("hit_rate")
@validate
@fill_doc()
def hit_rate_score(y_true: ArrayLike, y_score: ArrayLike, *, k: int | None = None,
                   sample_weight: ArrayLike | None = None, ignore_ties: bool = False,
                   threshold: float | None = None, no_relevant: NoRelevant = "warn",
                   qid: ArrayLike | None = None, per_row: bool = False,
                   compute: bool = True, exclude: ArrayLike | None = None) -> Score:
    r"""Hit rate at k: 1 when any relevant item is in the top ``k``, else 0.

    .. math::

        \mathrm{HR@k} = \mathbf{1}\left[\sum_{p=1}^{k} \mathrm{rel}_p > 0\right]

    Parameters
    ----------
    %(parameters)s

    %(returns)s

    Notes
    -----
    trec_eval calls it ``success_k``. With a tie group straddling position
    ``k`` (``t`` of its ``m`` items inside, ``r`` relevant), the expected
    value is ``1 - C(m - r, t) / C(m, t)`` [1]_.

    References
    ----------
    .. [1] %(mn)s

    Examples
    --------
    >>> from sk_rankmetrics import hit_rate_score
    >>> hit_rate_score([[0, 0, 1], [1, 0, 0]], [[3, 2, 1], [3, 2, 1]], k=2)
    0.5
    """
    return _evaluate_one("hit_rate", y_true, y_score, k=k, sample_weight=sample_weight,
                         ignore_ties=ignore_ties, no_relevant=no_relevant, qid=qid,
                         per_row=per_row, threshold=threshold, compute=compute, exclude=exclude)


@metric_function("mrr")
@validate
@fill_doc(k="""k : int, default=None
    Only a first relevant item within the top ``k`` counts. ``None``
    means no cut-off (trec_eval ``recip_rank``).""")
def reciprocal_rank_score(y_true: ArrayLike, y_score: ArrayLike, *, k: int | None = None,
                          sample_weight: ArrayLike | None = None, ignore_ties: bool = False,
                          threshold: float | None = None, no_relevant: NoRelevant = "warn",
                          qid: ArrayLike | None = None, per_row: bool = False,
                          compute: bool = True, exclude: ArrayLike | None = None) -> Score:
    r"""Mean reciprocal rank (MRR): 1 / rank of the first relevant item.

    .. math::

        \mathrm{RR@k} = \begin{cases} 1/p^* & p^* \le k \\ 0 & \text{otherwise}
        \end{cases}

    where :math:`p^*` is the position of the first relevant item.

    Parameters
    ----------
    %(parameters)s

    %(returns)s

    Notes
    -----
    If the first tie group holding a relevant item starts after ``s`` items
    and has ``m`` items, ``r`` of them relevant, the expected value is
    ``sum_j P(first relevant is its j-th) / (s + j)`` with
    ``P(j) = C(m - j, r - 1) / C(m, r)`` [2]_.

    References
    ----------
    .. [1] Voorhees, E. M. (1999). The TREC-8 question answering track
           report. TREC-8, NIST Special Publication 500-246.
    .. [2] %(mn)s

    Examples
    --------
    >>> from sk_rankmetrics import reciprocal_rank_score
    >>> reciprocal_rank_score([[0, 0, 1], [0, 1, 0]], [[3, 2, 1], [3, 2, 1]])
    0.41666666666666663
    """
    return _evaluate_one("mrr", y_true, y_score, k=k, sample_weight=sample_weight,
                         ignore_ties=ignore_ties, no_relevant=no_relevant, qid=qid,
                         per_row=per_row, threshold=threshold, compute=compute, exclude=exclude)


@metric_function("r_precision")
@validate
@fill_doc()
def r_precision_score(y_true: ArrayLike, y_score: ArrayLike, *,
                      sample_weight: ArrayLike | None = None, ignore_ties: bool = False,
                      threshold: float | None = None, no_relevant: NoRelevant = "warn",
                      qid: ArrayLike | None = None, per_row: bool = False,
                      compute: bool = True, exclude: ArrayLike | None = None) -> Score:
    r"""R-precision: precision at ``R``, the number of relevant items of the row.

    .. math::

        \mathrm{RPrec} = \frac{1}{R} \sum_{p=1}^{R} \mathrm{rel}_p

    Parameters
    ----------
    %(parameters)s

    %(returns)s

    Notes
    -----
    The cut-off differs per row, so it takes no ``k``. Equal to recall at
    ``R`` and to precision at ``R`` (trec_eval ``Rprec``).

    References
    ----------
    .. [1] %(iir)s

    Examples
    --------
    >>> from sk_rankmetrics import r_precision_score
    >>> r_precision_score([[1, 0, 1, 0]], [[4, 3, 2, 1]])
    0.5
    """
    return _evaluate_one("r_precision", y_true, y_score, k=None,
                         sample_weight=sample_weight, ignore_ties=ignore_ties,
                         no_relevant=no_relevant, qid=qid, per_row=per_row,
                         threshold=threshold, compute=compute, exclude=exclude)


@metric_function("err")
@validate
@fill_doc()
def err_score(y_true: ArrayLike, y_score: ArrayLike, *, k: int | None = None,
              sample_weight: ArrayLike | None = None, ignore_ties: bool = False, max_grade: int = 4,
              normalize: bool = False, no_relevant: NoRelevant = "warn",
              qid: ArrayLike | None = None, per_row: bool = False, compute: bool = True,
              exclude: ArrayLike | None = None) -> Score:
    r"""Expected reciprocal rank (ERR@k), and its normalised form nERR@k.

    .. math::

        \mathrm{ERR@k} = \sum_{p=1}^{k} \frac{1}{p}\, R_p \prod_{i<p} (1 - R_i),
        \qquad R = \frac{2^{g} - 1}{2^{g_{\max}}}

    where :math:`g` is the relevance grade of the item at each position: the
    user scans down the ranking and stops at an item of grade ``g`` with
    probability ``R``, and ERR is the expected reciprocal of the position
    where they stop. nERR (``normalize=True``) divides by the ERR of the
    ideal ranking.

    Parameters
    ----------
    %(parameters)s

    %(returns)s

    See Also
    --------
    ndcg_score : Another graded measure, without the cascade.

    Notes
    -----
    Relevance must be integer grades from 0 to ``max_grade``. With tied
    scores the exact expected ERR over every ordering of each tie group is
    taken: the chance of reaching a group is the product of ``1 - R`` over
    the items before it, and inside a group of ``m`` items the chance of
    stopping at its ``j``-th item is ``Q[j-1] - Q[j]``, where ``Q[t]`` is the
    mean of ``prod (1 - R)`` over the group's t-subsets: the coefficient of
    ``x**t`` in ``prod (1 + (1 - R) x)`` over the group's items, over
    ``C(m, t)``, built one relevant item at a time (O(items * t) per tied
    group holding one, t the group's positions inside the cut-off). A group
    the user reaches with too small a chance to change the value, and the
    last positions of a group, are left out only where each left-out part is
    proven below 1e-18 of the row's ERR (under float64 rounding). A row without a
    relevant item follows ``no_relevant`` (its ERR would be 0, like its
    reciprocal rank).
    ``max_grade=4`` gives ir_measures' ``ERR@k`` (gdeval) [2]_.

    References
    ----------
    .. [1] %(chapelle)s
    .. [2] TREC 2010 Web track evaluation script ``gdeval.pl``.

    Examples
    --------
    >>> from sk_rankmetrics import err_score
    >>> y_true = [[3, 2, 0, 1]]
    >>> y_score = [[4, 3, 2, 1]]
    >>> round(err_score(y_true, y_score, max_grade=3), 4)
    0.9009
    >>> round(err_score(y_true, y_score, max_grade=3, normalize=True), 4)
    0.9991
    """
    return _evaluate_one("err", y_true, y_score, k=k, sample_weight=sample_weight,
                         ignore_ties=ignore_ties, no_relevant=no_relevant, qid=qid,
                         per_row=per_row, max_grade=max_grade, normalize=normalize,
                         compute=compute, exclude=exclude)


@metric_function("rbp")
@validate
@fill_doc()
def rbp_score(y_true: ArrayLike, y_score: ArrayLike, *, k: int | None = None,
              sample_weight: ArrayLike | None = None, ignore_ties: bool = False,
              threshold: float | None = None, p: float = 0.8, graded: bool = False,
              qid: ArrayLike | None = None, per_row: bool = False, compute: bool = True,
              exclude: ArrayLike | None = None) -> Score:
    r"""Rank-biased precision (RBP): the rate of gain of a user of persistence p.

    .. math::

        \mathrm{RBP} = (1 - p) \sum_{i=1}^{k} \mathrm{rel}_i\, p^{\,i-1}

    The user looks at the first item and at each next one with probability
    ``p``; RBP is the expected share of relevant items among those seen.

    Parameters
    ----------
    %(parameters)s

    %(returns)s

    Notes
    -----
    RBP is not normalised by an ideal: a row whose R relevant items are
    ranked first scores ``1 - p**R``, and a row without relevant items
    scores 0 (no policy applies). Ties are averaged exactly (RBP is linear
    in the relevance at each position). The uncertainty due to unjudged
    items, trec_eval's ``rbp_resid``, is the name ``"rbp_resid"`` in
    :func:`evaluate` and :func:`evaluate_run`. The defaults give
    ir_measures' ``RBP(p=0.8,rel=1)`` on integer levels, and ranx's
    ``rbp.80`` on binary judgements (on graded ones ranx weighs each
    position by the level itself); trec_eval's ``rbp`` is
    ``p=0.9, graded=True``.

    References
    ----------
    .. [1] Moffat, A. and Zobel, J. (2008). Rank-biased precision for
           measurement of retrieval effectiveness. ACM Transactions on
           Information Systems, 27(1), article 2.

    Examples
    --------
    >>> from sk_rankmetrics import rbp_score
    >>> rbp_score([[1, 0, 1]], [[3, 2, 1]], p=0.5)
    0.625
    """
    return _evaluate_one("rbp", y_true, y_score, k=k, sample_weight=sample_weight,
                         ignore_ties=ignore_ties, no_relevant="warn", qid=qid,
                         per_row=per_row, threshold=threshold, p=p, graded=graded,
                         compute=compute, exclude=exclude)


@metric_function("f1")
@validate
@fill_doc()
def f1_at_k_score(y_true: ArrayLike, y_score: ArrayLike, *, k: int | None = None,
                  sample_weight: ArrayLike | None = None, ignore_ties: bool = False,
                  threshold: float | None = None, beta: float = 1.0,
                  no_relevant: NoRelevant = "warn", qid: ArrayLike | None = None,
                  per_row: bool = False, compute: bool = True,
                  exclude: ArrayLike | None = None) -> Score:
    r"""F-measure at k: the harmonic mean of precision at k and recall at k.

    .. math::

        F_\beta\mathrm{@k} = \frac{(1 + \beta^2)\, P\, R}{\beta^2 P + R}
        = \frac{(1 + \beta^2)\, h}{\beta^2 R_{\mathrm{tot}} + k}

    with ``P = h / k``, ``R = h / R_tot``, ``h`` the relevant items in the
    top ``k`` and ``R_tot`` the row's relevant items.

    Parameters
    ----------
    %(parameters)s

    %(returns)s

    Notes
    -----
    Precision divides by ``k`` even when a row is shorter (as ranx's
    ``f1@k``). Undefined for a row without relevant items (``no_relevant``).
    Linear in the relevant items of the top k, so ties are averaged exactly.
    Without ``k`` the whole row counts (trec_eval's ``set_F``).

    References
    ----------
    .. [1] van Rijsbergen, C. J. (1979). Information Retrieval, 2nd ed.,
           chapter 7. Butterworths.

    Examples
    --------
    >>> from sk_rankmetrics import f1_at_k_score
    >>> f1_at_k_score([[1, 0, 1, 0]], [[4, 3, 2, 1]], k=2)
    0.5
    """
    return _evaluate_one("f1", y_true, y_score, k=k, sample_weight=sample_weight,
                         ignore_ties=ignore_ties, no_relevant=no_relevant, qid=qid,
                         per_row=per_row, threshold=threshold, beta=beta, compute=compute,
                         exclude=exclude)


@metric_function("bpref")
@validate
@fill_doc()
def bpref_score(y_true: ArrayLike, y_score: ArrayLike, *, sample_weight: ArrayLike | None = None,
                ignore_ties: bool = False, threshold: float | None = None,
                mean: Mean = "arithmetic", max_docs: int | None = None,
                no_relevant: NoRelevant = "warn", qid: ArrayLike | None = None,
                per_row: bool = False, judged: ArrayLike | None = None,
                compute: bool = True, exclude: ArrayLike | None = None) -> Score:
    r"""Binary preference (bpref): judged relevant items ahead of judged non-relevant ones.

    .. math::

        \mathrm{bpref} = \frac{1}{R} \sum_{r} \left(1 -
        \frac{\min(n_r, R)}{\min(N, R)}\right)

    summed over the ranked relevant items ``r``, with ``n_r`` the judged
    non-relevant items ranked above ``r``, ``R`` the relevant items and ``N``
    the judged non-relevant items of the row.

    Parameters
    ----------
    %(parameters)s

    %(returns)s

    Notes
    -----
    Only judged items count: pass ``judged`` to mark the others (for ranked
    lists, :func:`evaluate_run` and :func:`evaluate_ranked` know them: every
    item the truth does not name). With tied scores the expected value over
    every ordering is exact: inside a tie group with ``q`` judged
    non-relevant items, the number of them above a given relevant item is
    uniform on ``0..q`` (at a cut by ``max_docs`` that splits a group, it is
    hypergeometric). ``mean="geometric"`` gives trec_eval's ``gm_bpref``.
    Matches trec_eval's ``bpref`` (``tests/agreement/test_trec_eval_compat.py``).

    References
    ----------
    .. [1] Buckley, C. and Voorhees, E. M. (2004). Retrieval evaluation with
           incomplete information. SIGIR 2004, 25-32.

    Examples
    --------
    >>> from sk_rankmetrics import bpref_score
    >>> y_true = [[1, 0, 1, 0, 0]]
    >>> y_score = [[5, 4, 3, 2, 1]]
    >>> bpref_score(y_true, y_score)
    0.75
    >>> bpref_score(y_true, y_score, judged=[[1, 0, 1, 1, 1]])  # item 2 unjudged
    1.0
    """
    return _evaluate_one("bpref", y_true, y_score, k=None, sample_weight=sample_weight,
                         ignore_ties=ignore_ties, no_relevant=no_relevant, qid=qid,
                         per_row=per_row, threshold=threshold, mean=mean, max_docs=max_docs,
                         judged=judged, compute=compute, exclude=exclude)
