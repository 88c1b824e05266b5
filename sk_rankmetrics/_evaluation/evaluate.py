"""evaluate: several metrics of one input in one ranking pass."""

from __future__ import annotations

from typing import Any

from .._beyond.matrix import with_beyond
from .._beyond.measures import BeyondData, refuse_unread_data
from .._metrics.names import by_family
from .._metrics.requests import make_requests
from .._utils.docstrings import fill_doc
from .._utils.params import validate
from .._utils.types import ArrayLike, Metrics, NoRelevant, Score
from .pipeline import evaluate_requests


@validate
@fill_doc(metrics="""metrics : str or list of str or (str, dict) pairs
    Names such as ``"ndcg@10"``, ``"ndcg_exp@10"`` (exponential gain),
    ``"map@10"``, ``"mrr"``, ``"precision@5"``, ``"recall@20"``,
    ``"hit_rate@10"``, ``"r_precision"``, ``"err@20"``, ``"rbp"``,
    ``"f1@10"``, ``"bpref"``, ``"infap"``, ``"judged@10"``,
    ``"iprec_at_recall@0.5"``, ``"set_f"``, ``"gm_map"``; trec_eval's printed
    names (``"P_5"``, ``"ndcg_cut_10"``) and ir_measures' (``"nDCG@10"``,
    ``"AP@100"``, ``"RBP(p=0.8,rel=1)"``). A pair
    ``("ndcg@10", {"gain": {0: 0, 1: 1, 2: 3}})`` adds options of that
    metric. The beyond-accuracy names (``"coverage@10"``, ``"gini@10"``,
    ``"entropy@10"``, ``"novelty@10"``, ``"arp@10"``, ``"aplt@10"``,
    ``"ild@10"``, ``"personalization@10"``, ``"serendipity@10"``) read each
    row's top k by score (never an excluded item), the columns being the
    catalogue (:doc:`/beyond_accuracy`).""")
def evaluate(y_true: ArrayLike, y_score: ArrayLike, metrics: Metrics, *, per_row: bool = False,
             sample_weight: ArrayLike | None = None, no_relevant: NoRelevant = "warn",
             qid: ArrayLike | None = None, judged: ArrayLike | None = None, compute: bool = True,
             ignore_ties: bool = False, exclude: ArrayLike | None = None,
             popularity: Any = None, item_features: Any = None,
             head_share: float = 0.2) -> dict[str, Score]:
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
    ``rprec`` are accepted aliases; ir_measures' names (``nDCG@10``, ``AP``,
    ``RBP(p=0.8,rel=1)``, ...) mean what they mean there. Every registered measure
    is available by name, also those without a function of their own
    (``"infap"``, ``"iprec_at_recall@0.5"``, ``"set_f"``, ``"num_rel"``, ...);
    :func:`metric_names` lists them, and the documentation's metric reference
    gives each one's formula, options and tie rule. Unknown names raise with
    close matches. An option in a pair is checked as the metric's function
    checks it; an option the metric does not read, or one that contradicts
    its name (``("ndcg_exp@10", {"gain": "linear"})``), raises.

    Unjudged items are marked with ``judged``, a boolean mask of the shape of
    ``y_true`` (one entry per pair in long format). An unjudged item is never
    relevant and is worth no gain; bpref skips it, infAP counts it as outside
    the pool, ``judged@k``, ``unjudged@k`` and ``rbp_resid`` count it. A sparse ``y_true`` marks
    nothing: its missing entries are judged items of relevance 0, as the
    zeros of a dense matrix (pass ``judged=(y_true != 0).toarray()`` to
    treat them as unjudged). For TREC runs and ID lists,
    :func:`evaluate_run` and :func:`evaluate_ranked` take the judged items
    from the qrels (the truth): every item they name.

    Examples
    --------
    >>> from sk_rankmetrics import evaluate
    >>> y_true = [[3, 2, 3, 0, 1, 2], [0, 1, 0, 0, 2, 0]]
    >>> y_score = [[6, 5, 4, 3, 2, 1], [1, 2, 3, 4, 5, 6]]
    >>> scores = evaluate(y_true, y_score, ["ndcg@3", "map@3", "mrr"])
    >>> {name: round(v, 4) for name, v in scores.items()}
    {'ndcg@3': 0.7287, 'map@3': 0.625, 'mrr': 0.75}

    Item 2 of the first row unjudged (bpref leaves it out):

    >>> judged = [[1, 0, 1, 1, 1, 1], [1, 1, 1, 1, 1, 1]]
    >>> scores = evaluate(y_true, y_score, ["bpref", "judged@3"], judged=judged)
    >>> {name: round(v, 4) for name, v in scores.items()}
    {'bpref': 0.375, 'judged@3': 0.8333}
    """
    return evaluate_as("evaluate", y_true, y_score, metrics, per_row=per_row,
                       sample_weight=sample_weight, no_relevant=no_relevant, qid=qid,
                       judged=judged, compute=compute, ignore_ties=ignore_ties, exclude=exclude,
                       popularity=popularity, item_features=item_features,
                       head_share=head_share)


def evaluate_as(where: str, y_true: Any, y_score: Any, metrics: Any, *, per_row: bool,
                sample_weight: Any, no_relevant: Any, qid: Any, judged: Any, compute: bool,
                ignore_ties: bool, exclude: Any, popularity: Any, item_features: Any,
                head_share: float) -> dict[str, Score]:
    """:func:`evaluate`, its errors naming ``where`` (a scorer, say) as the
    function called."""
    metrics, _, beyond, order = by_family(metrics)
    refuse_unread_data(beyond, where, popularity=popularity, item_features=item_features,
                       head_share=head_share)
    out = {} if beyond and not metrics else evaluate_requests(
        y_true, y_score, make_requests(metrics, where=where), sample_weight=sample_weight,
        ignore_ties=ignore_ties, no_relevant=no_relevant, qid=qid, per_row=per_row, judged=judged,
        compute=compute, exclude=exclude, where=where)
    data = BeyondData(popularity=popularity, item_features=item_features,
                      head_share=head_share)
    return with_beyond(out, beyond, order, y_true, y_score, data, sample_weight=sample_weight,
                       qid=qid, per_row=per_row, ignore_ties=ignore_ties,
                       no_relevant=no_relevant, exclude=exclude)
