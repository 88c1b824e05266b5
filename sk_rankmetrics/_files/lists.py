"""evaluate_ranked: recommender ID lists against held-out truth."""

from __future__ import annotations

import os
from collections.abc import Collection, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from .._beyond.measures import BeyondData, refuse_unread_data
from .._evaluation.pipeline import beyond_result, score_layout
from .._evaluation.result import EvaluationResult
from .._inputs.id_pairs import is_frame, ranked_lists, truth_from_frame, truth_pairs
from .._inputs.preranked import (
    RankedLists,
    Truth,
    build_preranked,
    group_long,
)
from .._metrics.names import by_family
from .._metrics.requests import make_requests
from .._utils.backends import backend_for
from .._utils.errors import InvalidParameterError
from .._utils.params import validate
from .._utils.types import (
    ArrayLike,
    DaskBag,
    DaskFrame,
    Duplicates,
    FileFormat,
    Lazy,
    NoRelevant,
    PathLike,
    Progress,
)
from .diversity import evaluate_diversity_ranked
from .formats import read_qrels, read_run
from .pairs import prepare_lists, ranked_run, refuse_on_lazy
from .ranked_frames import lists_from_frame

if TYPE_CHECKING:
    from typing_extensions import TypeAlias

#: ``recommended`` of :func:`evaluate_ranked`: ranked ids per user.
RecommendedInput: TypeAlias = (
    "Mapping[Any, Sequence[Any]] | Sequence[Sequence[Any]] | ArrayLike | PathLike | DaskBag"
    " | DaskFrame")
#: ``truth`` of :func:`evaluate_ranked`: relevant ids (or ``{id: relevance}``) per user.
TruthInput: TypeAlias = (
    "Mapping[Any, Collection[Any]] | Sequence[Collection[Any]] | tuple[ArrayLike, ...]"
    " | PathLike | DaskBag | DaskFrame")


def _recommended(recommended, users, fmt="auto"):
    if isinstance(recommended, (str, os.PathLike)):  # a run file, read as evaluate_run does
        r = read_run(recommended, format=fmt)
        ids, lens, flat, _ = group_long(r.qid, r.docno, r.score, order="score")
        return ids, lens, flat
    return ranked_lists(recommended, users)


def truth_lists(truth, users, fmt="auto"):
    """Truth -> (user ids, item ids, relevance) parallel arrays, and the ids of
    every user the truth names (None when that is the users of the arrays)."""
    if isinstance(truth, (str, os.PathLike)):  # a qrels file, read as evaluate_run does
        q = read_qrels(truth, format=fmt)
        truth = (q.qid, q.docno, q.relevance)
    return truth_pairs(truth, users)


@validate
def evaluate_ranked(recommended: RecommendedInput, truth: TruthInput,
                    metrics: str | Sequence[str], *, k: int | None = None,
                    users: ArrayLike | None = None, complete: bool = False,
                    threshold: float | None = None, no_relevant: NoRelevant = "warn",
                    run_format: FileFormat = "auto", qrels_format: FileFormat = "auto",
                    progress: Progress | None = None,
                    compute: bool = True, items: ArrayLike | None = None,
                    popularity: Any = None, item_features: Any = None,
                    head_share: float = 0.2, ignore_identical_ids: bool = False,
                    duplicates: Duplicates = "raise") -> EvaluationResult | Lazy:
    r"""Score ranked ID lists (recommendations) against ground-truth ids.

    Parameters
    ----------
    recommended : dict, 2-D array, list, data frame, dask.bag.Bag or dask.dataframe.DataFrame
        Ranked item ids per user, best first: ``{user: [id, ...]}``, a 2-D
        array of shape (n_users, n_recs) (the fast path for many users) or a
        list of id lists. Lists may have different lengths. A pandas or
        polars data frame in long format has user, item and rank (1 = best)
        or score (higher = better; ties by item id descending) columns, named
        as the file readers name them (``user``, ``user_id``, ``query``, ...;
        ``item``, ``item_id``, ``docno``, ...; ``rank``, ``position``,
        ``pos``; ``score``, ``prediction``, ...; a rank column wins over a
        score column, two candidates for one role raise). With Dask: a bag
        of ``(user, [id, ...])`` pairs, or a data frame with user, item and
        ``rank`` columns (1 = best).
    truth : dict, list, tuple, dask.bag.Bag or dask.dataframe.DataFrame
        Relevant ids per user: ``{user: {id, ...}}`` (binary relevance) or
        ``{user: {id: relevance}}`` (graded); a list aligned with
        ``recommended``; or a tuple of parallel arrays ``(user_ids, item_ids)``
        or ``(user_ids, item_ids, relevance)``; a pandas or polars data frame
        with user, item and optionally relevance columns (``relevance``,
        ``rel``, ``label``, ``grade``, ``y_true``; default 1); or None when
        only beyond-accuracy measures of the lists are asked. With Dask: a bag of
        ``(user, ids)`` pairs, or a data frame with user, item (and
        relevance) columns. For diversity measures (``"alpha_ndcg@10"``,
        ...): a tuple ``(user_ids, subtopics, item_ids, relevance)``, a
        pandas data frame with user, subtopic, item and relevance columns, or
        the path of a diversity qrels (users then come sorted). A negative
        level (TREC Web track: spam -2, junk -1) marks an item in the pool but
        not judged, as trec_eval reads qrels: never relevant, worth 0 unless a
        gain names the level, skipped by bpref, counted by judged@k.
    metrics : str or list of str
        Names such as ``"ndcg@100"``, ``"map@10"``, ``"recall@50"``, ``"mrr"``.
    k : int, optional
        Cut-off added to every name that has none, of a metric that takes one:
        ``"ndcg"`` is scored at ``k`` and its result keyed ``"ndcg@k"``, as
        if ``"ndcg@k"`` had been asked (``"Rprec"`` and ``"map@100"`` keep
        their names).
    users : array-like, optional
        User ids of the rows when ``recommended`` is an array or a list
        (default ``0..n-1``).
    complete : bool, default=False
        Also score users that have truth but no recommendations, as 0 (the
        convention of recommender libraries such as RecBole, Microsoft
        Recommenders and Elliot, which score every test user). By default
        such users are left out with a warning that gives their count and
        this option, as :func:`evaluate_run` does (trec_eval without ``-c``).
    threshold : float, optional
        Lowest relevance that counts as relevant (default: > 0). Negative
        levels are never relevant: a threshold at or below one of them raises.
    no_relevant : "warn", "skip" or float, default="warn"
        Policy for users without a relevant item.
    run_format, qrels_format : str, default="auto"
        ``"auto"``, ``"trec"``, ``"csv"``, ``"tsv"``, ``"parquet"`` or
        ``"json"``. ``recommended`` may be the path of a run file (each query's documents
        ranked by score, ties by document id descending) and ``truth`` the
        path of a qrels file; they are read as :func:`evaluate_run` and the
        command line read them (:func:`read_run`, :func:`read_qrels`), in the
        format given here, else by extension, then content.
    progress : callable, optional
        Called as ``progress(done, total)`` after each block of users (not
        with Dask inputs).
    compute : bool, default=True
        With Dask inputs: ``False`` returns the result uncomputed (its
        ``compute()`` gives the EvaluationResult).
    items : array-like, optional
        The catalogue, for the beyond-accuracy measures ``coverage@k`` and
        ``gini@k`` (see :doc:`/beyond_accuracy`); a recommended item outside
        it raises naming the item.
    popularity : tuple, data frame, sparse matrix or mapping, optional
        The training interactions ``(user_ids, item_ids)`` (or a data frame
        with user and item columns, or a users x items scipy.sparse matrix
        whose column indices are the item ids), or a mapping item -> share of
        training users in (0, 1]; for ``novelty@k``, ``arp@k``, ``aplt@k``
        and ``serendipity@k``.
    item_features : tuple, mapping or data frame, optional
        One feature vector per item, for ``ild@k``: ``(ids, matrix)``, a
        mapping id -> vector or a data frame indexed by item id.
    head_share : float, default=0.2
        The share of training interactions the head reaches (``aplt@k``).
    ignore_identical_ids : bool, default=False
        Drop every recommended item whose id is its user's (query's) own id,
        as BEIR and MTEB do; the truth is not changed. Ids are compared as
        text; a warning gives the count dropped.
    duplicates : {"raise", "first"}, default="raise"
        An item listed twice for one user: ``"raise"`` refuses it;
        ``"first"`` keeps its earliest position (in a run file or a frame with
        scores: its highest score), with a warning giving the count dropped.
        A Dask input refuses both options.

    Returns
    -------
    result : EvaluationResult
        Per-user values (``result.per_query``, users in the order of
        ``recommended`` in ``result.query_ids``; in sorted order with Dask
        inputs) and means (``result.mean``).

    Notes
    -----
    For example nDCG@k of a user with ranked items :math:`i_1, i_2, \dots`:

    .. math::

        \mathrm{nDCG@k} = \frac{\sum_{p=1}^{k} g(i_p) / \log_2(p + 1)}
        {\sum_{p=1}^{\min(k, R)} g^*_p / \log_2(p + 1)}

    where :math:`g^*` are the truth's gains sorted in decreasing order.
    The ideal ranking is built from the truth, not from the recommended
    items: the ideal DCG@k of a user with R relevant ids sums the top min(k, R)
    ideal gains, whether or not they were recommended. Items not in the truth
    have relevance 0. An item recommended twice to one user raises, judged or not.
    The relevance of each recommended id is found with vectorised sorted
    look-ups over blocks of users: time O(n_users * n_recs * log), memory
    bounded by the block size.

    The beyond-accuracy measures (``coverage``, ``gini``, ``entropy``,
    ``novelty``, ``arp``, ``aplt``, ``ild``, ``personalization``,
    ``serendipity``, each with ``@k``) read the first k items of the lists of
    the result's users (every list given, or with ``complete`` the lists of
    the truth's users). Those of the whole list set have one value, in
    ``result.mean``, and are named in ``result.whole_set``. ``items``,
    ``popularity``, ``item_features`` or ``head_share`` given to a call whose
    measures do not read it raises, naming the measures that do.

    Examples
    --------
    >>> from sk_rankmetrics import evaluate_ranked
    >>> rec = {"u1": ["a", "b", "c"], "u2": ["d", "e", "f"]}
    >>> truth = {"u1": {"a": 1, "c": 1}, "u2": {"f": 2, "x": 1}}
    >>> res = evaluate_ranked(rec, truth, ["ndcg", "recall", "mrr"], k=3)
    >>> {name: round(v, 4) for name, v in res.mean.items()}
    {'ndcg@3': 0.6499, 'recall@3': 0.75, 'mrr@3': 0.6667}
    """
    families = by_family(metrics)
    metrics, beyond, order = families.others, families.beyond, families.labels
    refuse_unread_data(beyond, "evaluate_ranked", items=items, popularity=popularity,
                       item_features=item_features, head_share=head_share)
    backend = backend_for(recommended, truth)
    if backend is not None:
        refuse_on_lazy(ignore_identical_ids, duplicates, "evaluate_ranked")
        if beyond and not compute:
            raise InvalidParameterError(
                "evaluate_ranked: compute=False does not take the beyond-accuracy "
                "measures; call it with compute=True (the default)."
            )
        result = None
        if metrics or not beyond:
            result = backend.evaluate_ranked(recommended, truth, metrics, k=k, users=users,
                                             complete=complete, threshold=threshold,
                                             no_relevant=no_relevant, progress=progress,
                                             compute=compute, run_format=run_format,
                                             qrels_format=qrels_format)
        if beyond:
            result = backend.evaluate_beyond(
                recommended, truth, beyond, k=k, complete=complete, threshold=threshold,
                no_relevant=no_relevant, run_format=run_format, qrels_format=qrels_format,
                data=BeyondData(items=items, popularity=popularity,
                                item_features=item_features, head_share=head_share),
                result=result, order=order)
        return result
    if isinstance(recommended, (str, os.PathLike)) and duplicates == "first":
        r = ranked_run(recommended, run_format, duplicates="first",
                       where="evaluate_ranked: recommended")
        ids, lens, flat, _ = group_long(r.qid, r.docno, r.score, order="score")
    else:
        ids, lens, flat = (lists_from_frame(recommended, users)
                           if is_frame(recommended, long=True)
                           else _recommended(recommended, users, run_format))
    ids, lens, flat = prepare_lists(ids, lens, flat, ignore_identical_ids=ignore_identical_ids,
                                    duplicates=duplicates, where="evaluate_ranked: recommended")
    lists = RankedLists(ids, lens, flat)
    data = BeyondData(items=items, popularity=popularity, item_features=item_features,
                      head_share=head_share)
    if metrics and families.diversity_only():  # subtopic qrels: the diversity path
        result = evaluate_diversity_ranked(
            lists, truth, metrics, k=k, complete=complete,
            threshold=threshold, no_relevant=no_relevant, progress=progress)
        return result if not beyond else beyond_result(
            beyond, k, lists, None, data, threshold=threshold, no_relevant=no_relevant,
            result=result, order=order)
    if truth is None and not metrics:  # beyond-accuracy measures of the lists alone
        return beyond_result(beyond, k, lists, None, data, threshold=threshold,
                             no_relevant=no_relevant, order=order)
    tu, ti, trel, known = (truth_from_frame(truth) if is_frame(truth)
                           else truth_lists(truth, users, qrels_format))
    result = None
    if metrics:
        requests = make_requests(metrics, "evaluate_ranked", k=k,
                                given={"threshold": ("threshold", threshold, threshold)})
        inputs = build_preranked(lists,
                                 Truth(tu, ti, trel, queries=known),
                                 queries="truth" if complete else "run", what="user")
        result = score_layout(inputs, requests, ignore_ties=True, no_relevant=no_relevant,
                               progress=progress)
    if beyond:
        result = beyond_result(beyond, k, lists, (tu, ti, trel), data, threshold=threshold,
                               no_relevant=no_relevant, result=result, order=order)
    return result
