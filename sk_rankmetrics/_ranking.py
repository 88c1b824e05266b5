"""Public metric functions on ``(n_rows, n_items)`` matrices or long format."""

from __future__ import annotations

from ._docs import fill_doc
from ._engine import compute
from ._inputs import check_inputs
from ._reduce import reduce_results
from ._registry import METRICS, Request, make_requests, validate
from ._validation import check_sample_weight

__all__ = [
    "cumulative_gain_score",
    "dcg_score",
    "evaluate",
    "hit_rate_score",
    "mean_average_precision_score",
    "ndcg_score",
    "precision_at_k_score",
    "r_precision_score",
    "recall_at_k_score",
    "reciprocal_rank_score",
]

def _run(y_true, y_score, requests, *, sample_weight, ignore_ties, no_relevant,
         qid, per_row):
    inputs = check_inputs(y_true, y_score, qid)
    if qid is None:
        weights = check_sample_weight(sample_weight, inputs.n_rows)
    else:
        weights = inputs.query_weights(sample_weight)
    raw = compute(inputs, requests, ignore_ties=ignore_ties)
    values, means = reduce_results(raw, requests, no_relevant, weights)
    return values if per_row else means


def _single(name, y_true, y_score, *, k, sample_weight, ignore_ties, no_relevant,
            qid, per_row, **options):
    spec = METRICS[name]
    req = Request(spec, k, options, label=spec.function)
    out = _run(y_true, y_score, [req], sample_weight=sample_weight,
               ignore_ties=ignore_ties, no_relevant=no_relevant, qid=qid,
               per_row=per_row)
    return out[req.label]


@validate
@fill_doc(gain="""gain : {"linear", "exponential"}, mapping or callable, default="linear"
    See :func:`ndcg_score`. A negative relevance is allowed with the linear
    gain (as in scikit-learn).""")
def dcg_score(y_true, y_score, *, k=None, log_base=2, sample_weight=None,
              ignore_ties=False, gain="linear", discount="log", qid=None,
              per_row=False):
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
    return _single("dcg", y_true, y_score, k=k, sample_weight=sample_weight,
                   ignore_ties=ignore_ties, no_relevant="warn", qid=qid,
                   per_row=per_row, gain=gain, discount=discount, log_base=log_base)


@validate
@fill_doc()
def ndcg_score(y_true, y_score, *, k=None, sample_weight=None, ignore_ties=False,
               gain="linear", discount="log", log_base=2, no_relevant="warn",
               qid=None, per_row=False):
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
    tie group) [2]_. Negative relevance raises with the linear and exponential
    gains (as scikit-learn raises); map it with a gain mapping. Discounts
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

    The tools' numbers are compared in ``tests/test_sklearn_compat.py``,
    ``tests/test_trec_eval_compat.py`` and ``tests/test_ltr_libraries.py``.

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
    return _single("ndcg", y_true, y_score, k=k, sample_weight=sample_weight,
                   ignore_ties=ignore_ties, no_relevant=no_relevant, qid=qid,
                   per_row=per_row, gain=gain, discount=discount, log_base=log_base)


@validate
@fill_doc(gain="""gain : {"linear", "exponential"}, mapping or callable, default="linear"
    See :func:`ndcg_score`.""")
def cumulative_gain_score(y_true, y_score, *, k=None, sample_weight=None,
                          ignore_ties=False, gain="linear", qid=None, per_row=False):
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
    return _single("cg", y_true, y_score, k=k, sample_weight=sample_weight,
                   ignore_ties=ignore_ties, no_relevant="warn", qid=qid,
                   per_row=per_row, gain=gain)


@validate
@fill_doc()
def mean_average_precision_score(y_true, y_score, *, k=None, sample_weight=None,
                                 ignore_ties=False, threshold=None,
                                 denominator="min_k_relevant", no_relevant="warn",
                                 qid=None, per_row=False):
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
    ``(r/m (B + 1) + (q - 1) r (r - 1) / (m (m - 1))) / p``.

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
    return _single("map", y_true, y_score, k=k, sample_weight=sample_weight,
                   ignore_ties=ignore_ties, no_relevant=no_relevant, qid=qid,
                   per_row=per_row, threshold=threshold, denominator=denominator)


@validate
@fill_doc()
def precision_at_k_score(y_true, y_score, *, k=None, sample_weight=None,
                         ignore_ties=False, threshold=None, adaptive_k=False,
                         no_relevant="warn", qid=None, per_row=False):
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
    return _single("precision", y_true, y_score, k=k, sample_weight=sample_weight,
                   ignore_ties=ignore_ties, no_relevant=no_relevant, qid=qid,
                   per_row=per_row, threshold=threshold, adaptive_k=adaptive_k)


@validate
@fill_doc()
def recall_at_k_score(y_true, y_score, *, k=None, sample_weight=None,
                      ignore_ties=False, threshold=None, no_relevant="warn",
                      qid=None, per_row=False):
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
    return _single("recall", y_true, y_score, k=k, sample_weight=sample_weight,
                   ignore_ties=ignore_ties, no_relevant=no_relevant, qid=qid,
                   per_row=per_row, threshold=threshold)


@validate
@fill_doc()
def hit_rate_score(y_true, y_score, *, k=None, sample_weight=None,
                   ignore_ties=False, threshold=None, no_relevant="warn",
                   qid=None, per_row=False):
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
    return _single("hit_rate", y_true, y_score, k=k, sample_weight=sample_weight,
                   ignore_ties=ignore_ties, no_relevant=no_relevant, qid=qid,
                   per_row=per_row, threshold=threshold)


@validate
@fill_doc(k="""k : int, default=None
    Only a first relevant item within the top ``k`` counts. ``None``
    means no cut-off (trec_eval ``recip_rank``).""")
def reciprocal_rank_score(y_true, y_score, *, k=None, sample_weight=None,
                          ignore_ties=False, threshold=None, no_relevant="warn",
                          qid=None, per_row=False):
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
    return _single("mrr", y_true, y_score, k=k, sample_weight=sample_weight,
                   ignore_ties=ignore_ties, no_relevant=no_relevant, qid=qid,
                   per_row=per_row, threshold=threshold)


@validate
@fill_doc()
def r_precision_score(y_true, y_score, *, sample_weight=None, ignore_ties=False,
                      threshold=None, no_relevant="warn", qid=None, per_row=False):
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
    return _single("r_precision", y_true, y_score, k=None,
                   sample_weight=sample_weight, ignore_ties=ignore_ties,
                   no_relevant=no_relevant, qid=qid, per_row=per_row,
                   threshold=threshold)


@validate
@fill_doc(metrics="""metrics : str or list of str or (str, dict) pairs
    Names such as ``"ndcg@10"``, ``"ndcg_exp@10"`` (exponential gain),
    ``"map@10"``, ``"mrr"``, ``"precision@5"``, ``"recall@20"``,
    ``"hit_rate@10"``, ``"dcg@5"``, ``"cg@5"``, ``"r_precision"``; a pair
    ``("ndcg@10", {"gain": {0: 0, 1: 1, 2: 3}})`` adds options of that
    metric's function.""")
def evaluate(y_true, y_score, metrics, *, sample_weight=None, ignore_ties=False,
             no_relevant="warn", qid=None, per_row=False):
    r"""Several metrics from one ranking pass.

    Each row is ranked once, down to the deepest cut-off asked for, and every
    metric reads that ranking:

    .. math::

        \mathrm{evaluate}(y, s, [m_1, \dots, m_j]) =
        \{m_i: \mathrm{mean}_{\mathrm{rows}}\, m_i(y, s)\}

    Parameters
    ----------
    %(parameters)s

    Returns
    -------
    scores : dict
        Metric name to float, or to ndarray of shape (n_rows,) if ``per_row``.

    Notes
    -----
    Names are case-insensitive; ``P@5``, ``ap@10``, ``rr``, ``success@5`` and
    ``rprec`` are accepted aliases. Unknown names raise with close matches.
    An option in a pair is checked as the metric's function checks it; an
    option the metric does not read, or one that contradicts its name
    (``("ndcg_exp@10", {"gain": "linear"})``), raises.

    Examples
    --------
    >>> from sk_rankmetrics import evaluate
    >>> y_true = [[3, 2, 3, 0, 1, 2], [0, 1, 0, 0, 2, 0]]
    >>> y_score = [[6, 5, 4, 3, 2, 1], [1, 2, 3, 4, 5, 6]]
    >>> scores = evaluate(y_true, y_score, ["ndcg@3", "map@3", "mrr"])
    >>> {name: round(v, 4) for name, v in scores.items()}
    {'ndcg@3': 0.7287, 'map@3': 0.625, 'mrr': 0.75}
    """
    requests = make_requests(metrics, where="evaluate")
    return _run(y_true, y_score, requests, sample_weight=sample_weight,
                ignore_ties=ignore_ties, no_relevant=no_relevant, qid=qid,
                per_row=per_row)
