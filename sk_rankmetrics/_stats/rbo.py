"""rbo: rank-biased overlap with ties, of two rankings or of two runs query by query."""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from collections.abc import Set as AbstractSet
from itertools import chain, repeat
from typing import TYPE_CHECKING, Any

import numpy as np

from .._evaluation.result import EvaluationResult
from .._files.formats import read_run
from .._files.frames import run_from_frame
from .._files.trec import TrecRun
from .._utils.arrays import as_ids, as_numeric_array, check_finite, exact_scores
from .._utils.docstrings import fill_doc
from .._utils.errors import InvalidParameterError, counted, example_ids, short_repr, shown
from .._utils.fast import unique
from .._utils.nonzero import flatnonzero
from .._utils.params import validate
from .._utils.types import OnMissing, PathLike, RboScore, RboTies
from .rbo_kernel import CODE_BITS, SCORES, Lists, RepeatedItem, rbo_lists

if TYPE_CHECKING:
    from typing_extensions import TypeAlias

    from .._utils.types import Frame

#: One ranking: ``{item: score}`` (equal scores tie) or a sequence of items in
#: which a set is a tie group.
Ranking: TypeAlias = "Mapping[Any, float] | Sequence[Any]"
#: A run: ``{query: {doc: score}}``, ``{query: ranking}``, a TrecRun, a path or a frame.
Run: TypeAlias = "Mapping[Any, Any] | TrecRun | PathLike | Frame"


# -- one ranking ------------------------------------------------------------------------


def _groups_of_mapping(v, arg):
    """``[(items, ...), ...]``: the tie groups of ``{item: score}``, best first."""
    items = list(v.keys())
    try:
        scores = np.fromiter(v.values(), dtype=np.float64, count=len(items))
    except (TypeError, ValueError):
        bad = next(s for s in v.values() if not _is_number(s))
        raise InvalidParameterError(f"rbo: {arg} maps items to scores, which must be numbers; "
                                    f"got {short_repr(bad)}.") from None
    if not np.isfinite(scores).all():
        i = int(flatnonzero(~np.isfinite(scores))[0])
        raise ValueError(f"rbo: {arg} gives item {short_repr(items[i])} the score "
                         f"{scores[i]}; scores must be finite.")
    order = np.argsort(-scores, kind="stable")
    s = scores[order]
    cuts = flatnonzero(s[1:] != s[:-1]) + 1
    return [tuple(items[j] for j in part) for part in np.split(order, cuts)]


def _is_number(v):
    return isinstance(v, (int, float, np.integer, np.floating)) and not isinstance(v, bool)


def _groups_of_sequence(v, arg):
    groups = []
    for e in v:
        if isinstance(e, AbstractSet):
            if not e:
                raise ValueError(f"rbo: {arg} holds an empty set; a tie group needs an item.")
            bad = next((i for i in e if isinstance(i, AbstractSet)), None)
            if bad is not None:
                raise InvalidParameterError(f"rbo: {arg} nests a set in a tie group; a tie "
                                            "group is a set of items.")
            groups.append(tuple(e))
        else:
            groups.append((e,))
    return groups


def _one_ranking(v, arg):
    if isinstance(v, Mapping):
        groups = _groups_of_mapping(v, arg)
    elif isinstance(v, (str, bytes)):
        raise InvalidParameterError(f"rbo: {arg} is a string; give a ranking (a sequence "
                                    "of items or {item: score}) or, for a run file, both as "
                                    "paths.")
    else:
        try:
            groups = _groups_of_sequence(v, arg)
        except TypeError:
            raise InvalidParameterError(
                f"rbo: {arg} must be a ranking (a sequence of items, a set for each tie "
                "group, or {item: score}) or a run ({query: {doc: score}}, a TrecRun, a "
                f"path or a data frame); got {type(v).__name__}.") from None
    if not groups:
        raise ValueError(f"rbo: {arg} is empty; each ranking needs at least one item.")
    return groups


def _pair_lists(x, y):
    """Two rankings as one-row :class:`Lists` over shared item codes (the
    scores fall by one from each tie group to the next)."""
    codes = {}
    out = []
    for arg, groups in (("x", _one_ranking(x, "x")), ("y", _one_ranking(y, "y"))):
        seen = set()
        items, scores = [], []
        for rank, g in enumerate(groups):
            for item in g:
                try:
                    if item in seen:
                        raise ValueError(f"rbo: {arg} holds {short_repr(item)} twice; a "
                                         "ranking holds each item once.")
                    seen.add(item)
                except TypeError:
                    raise InvalidParameterError(
                        f"rbo: {arg} holds {short_repr(item)}, which is not hashable; items "
                        "are ids (strings, numbers, tuples).") from None
                items.append(codes.setdefault(item, len(codes)))
                scores.append(-rank)
        out.append(Lists(np.zeros(1, np.int64), np.array([len(items)]),
                         np.array(items, np.int64), np.array(scores, np.float64)))
    return out


# -- two runs ------------------------------------------------------------------------


def _objects(values):
    """Ids as an object array, each as given (``as_ids`` then refuses a mix of
    types instead of NumPy turning ``1`` and ``"1"`` into one string)."""
    values = list(values)
    out = np.empty(len(values), dtype=object)
    out[:] = values
    return out


def _run_arrays(run, arg):
    """``(qid, docno, score)`` of a run in any accepted form."""
    if isinstance(run, TrecRun):
        return run.qid, run.docno, run.score
    if isinstance(run, (str, os.PathLike)):
        r = read_run(run)
        return r.qid, r.docno, r.score
    if hasattr(run, "columns"):
        r = run_from_frame(run)
        return r.qid, r.docno, r.score
    keys = _objects(run.keys())
    values = list(run.values())
    lens = np.fromiter(map(len, values), dtype=np.int64, count=len(values))
    qid = np.repeat(keys, lens)
    if all(map(isinstance, values, repeat(Mapping))):
        docs = list(chain.from_iterable(values))
        try:
            score = np.fromiter(chain.from_iterable(map(Mapping.values, values)),
                                dtype=np.float64, count=int(lens.sum()))
        except (TypeError, ValueError):
            raise InvalidParameterError(f"rbo: {arg} as {{query: {{doc: score}}}} must give "
                                        "numeric scores.") from None
        return qid, _objects(docs), score
    # {query: ranking}: items, a set for each tie group; scores fall with the group.
    flat = list(chain.from_iterable(values))
    if not any(map(isinstance, flat, repeat(AbstractSet))):
        pos = np.arange(lens.sum()) - np.repeat(np.cumsum(lens) - lens, lens)
        return qid, _objects(flat), -pos.astype(np.float64)
    groups = [(e if isinstance(e, AbstractSet) else (e,)) for e in flat]
    if not all(groups):
        raise ValueError(f"rbo: {arg} holds an empty set; a tie group needs an item.")
    sizes = np.fromiter(map(len, groups), dtype=np.int64, count=len(groups))
    rank = np.arange(len(groups)) - np.repeat(np.cumsum(lens) - lens, lens)
    per_query = np.bincount(np.repeat(np.arange(len(values)), lens), weights=sizes,
                            minlength=len(values)).astype(np.int64)
    return (np.repeat(keys, per_query), _objects(chain.from_iterable(groups)),
            -np.repeat(rank, sizes).astype(np.float64))


def _ranked(run, arg):
    """A run as ranked lists: ``(query ids, starts, lens, items, scores)``,
    each query's documents by score descending (equal scores tie)."""
    qid, docno, score = _run_arrays(run, arg)
    q = as_ids(qid, f"the query ids of {arg}")
    d = as_ids(docno, f"the document ids of {arg}")
    sc = as_numeric_array(score, f"the scores of {arg}")
    if not (q.shape == d.shape == sc.shape):
        raise ValueError(f"rbo: {arg} has {q.shape[0]} query ids, {d.shape[0]} document ids "
                         f"and {sc.shape[0]} scores; it needs one of each per entry.")
    if q.shape[0] == 0:
        raise ValueError(f"rbo: {arg} is empty; a run needs at least one ranked document.")
    check_finite(sc, f"the scores of {arg}")
    sc = exact_scores(sc)
    new = np.ones(q.shape[0], dtype=bool)
    new[1:] = q[1:] != q[:-1]
    starts = flatnonzero(new)
    if unique(q[starts]).shape[0] != starts.shape[0]:  # a query's lines are not together
        order = np.argsort(q, kind="stable")
        q, d, sc = q[order], d[order], sc[order]
        new[1:] = q[1:] != q[:-1]
        starts = flatnonzero(new)
    unsorted = sc[1:] > sc[:-1]
    unsorted &= ~new[1:]
    if unsorted.any():  # not ranked by score within each query (run files are)
        order = np.lexsort((-sc, np.cumsum(new)))
        d, sc = d[order], sc[order]
    del unsorted
    lens = np.diff(np.append(starts, q.shape[0]))
    return q[starts], starts, lens, d, sc


def _codes(da, db):
    """Integer codes of two id arrays over one vocabulary (integers as they are
    when their span is small enough), and the vocabulary (None: the ids)."""
    if da.dtype.kind == "i" and db.dtype.kind == "i":
        lo = min(int(da.min()), int(db.min()))
        hi = max(int(da.max()), int(db.max()))
        if (hi - lo).bit_length() <= CODE_BITS:
            return da, db, None
    if da.dtype.kind != db.dtype.kind:
        da, db = da.astype(str), db.astype(str)
    vocab, inv = np.unique(np.concatenate((da, db)), return_inverse=True)
    inv = inv.reshape(-1).astype(np.int64)
    return inv[: da.shape[0]], inv[da.shape[0]:], vocab


def _align(qa, qb, on_missing):
    """The queries both runs rank (sorted) and their index in each run's queries."""
    if (qa.dtype.kind == "U") != (qb.dtype.kind == "U"):
        raise ValueError(f"rbo: x has {'string' if qa.dtype.kind == 'U' else 'integer'} "
                         f"query ids and y {'string' if qb.dtype.kind == 'U' else 'integer'} "
                         "ones, so no query can be paired; give the ids one type.")
    shared, ia, ib = np.intersect1d(qa, qb, assume_unique=True, return_indices=True)
    only = [(arg, np.setdiff1d(q, shared)) for arg, q in (("x", qa), ("y", qb))]
    only = [(arg, v) for arg, v in only if v.size]
    if only and (on_missing == "raise" or shared.size == 0):
        detail = "; ".join(f"only {arg} ranks {counted(v.size, 'query')} ({example_ids(v)})"
                           for arg, v in only)
        advice = (f"compare the {counted(shared.size, 'query')} both rank with "
                  "on_missing='drop'" if shared.size else "they share no query at all")
        raise ValueError(f"rbo: the two runs do not rank the same queries: {detail}; "
                         f"{advice}.")
    return shared, ia, ib


def _runs(x, y, p, ties, scores, on_missing):
    qa, sa, la, da, sca = _ranked(x, "x")
    qb, sb, lb, db, scb = _ranked(y, "y")
    shared, ia, ib = _align(qa, qb, on_missing)
    ca, cb, vocab = _codes(da, db)
    lists_x = Lists(sa[ia], la[ia], ca, sca)
    lists_y = Lists(sb[ib], lb[ib], cb, scb)
    try:
        values = rbo_lists(lists_x, lists_y, p=p, ties=ties, scores=scores)
    except RepeatedItem as exc:
        item = exc.code if vocab is None else vocab[exc.code]
        raise ValueError(f"rbo: {'xy'[exc.side]} ranks document {shown(item)!r} twice for "
                         f"query {shown(shared[exc.row])!r}; a ranking holds each document "
                         "once.") from None
    per_query = {f"rbo_{s}": v for s, v in values.items()}
    return EvaluationResult(shared, per_query, {k: float(v.mean()) for k, v in
                                                per_query.items()})


def _is_run(v):
    if isinstance(v, (TrecRun, str, os.PathLike)) or hasattr(v, "columns"):
        return True
    if isinstance(v, Mapping) and len(v):
        nested = [isinstance(e, (Mapping, Sequence, AbstractSet, np.ndarray))
                  and not isinstance(e, (str, bytes)) for e in v.values()]
        if all(nested):
            return True
        if any(nested):
            raise InvalidParameterError(
                "rbo: a mapping must be one ranking {item: score} (every value a number) or "
                "a run {query: {doc: score}} or {query: ranking} (every value a ranking); "
                "this one mixes both.")
    return False


_X_DOC = """x : ranking or run
    A ranking, ``{item: score}`` (equal scores tie; higher first) or a
    sequence of items, best first, in which a ``set`` is a tie group
    (``["a", {"b", "c"}, "d"]``); or a run, compared with ``y`` query by
    query: ``{query: {doc: score}}``, ``{query: ranking}``, a
    :class:`TrecRun`, a path to a run file (read with :func:`read_run`) or
    a data frame (read with :func:`run_from_frame`). Lists may have any
    lengths."""
_Y_DOC = """y : ranking or run
    The other ranking, or the other run, in any form ``x`` takes."""
_ON_MISSING_DOC = """on_missing : {"raise", "drop"}, default="raise"
    For two runs: a query that one run ranks and the other does not
    raises an error naming it, or is left out with ``"drop"``."""


@validate
@fill_doc(x=_X_DOC, y=_Y_DOC, on_missing=_ON_MISSING_DOC)
def rbo(x: Ranking | Run, y: Ranking | Run, *, p: float = 0.9,
        ties: RboTies = "a", score: RboScore | Sequence[RboScore] = "ext",
        on_missing: OnMissing = "raise") -> Any:
    r"""Rank-biased overlap of two rankings, with ties (Corsi and Urbano's RBO).

    How much two rankings agree, weighting the top most: the agreement at
    each depth :math:`d` (the overlap of the two prefixes of length
    :math:`d`, over their size), averaged with geometric weights:

    .. math::

        \mathrm{RBO} = (1 - p) \sum_{d=1}^{\infty} p^{d-1} A_d, \qquad
        A_d = \frac{X_d}{d}, \quad
        X_d = \sum_{i} c_x(i, d)\, c_y(i, d)

    where :math:`c(i, d)` is how much of item :math:`i` lies within the
    prefix of depth :math:`d`: 1 once past its position, and, for an item of
    a tie group spanning positions :math:`t..b`, :math:`(d - t + 1)/(b - t +
    1)` for :math:`t \le d \le b` (``ties="a"`` and ``"b"``: the chance a
    random order of the group puts it there) or 1 from :math:`t` on
    (``ties="w"``: tied items share a rank). The ``w`` variant divides by the
    mean size of the two prefixes, :math:`A_d = 2X_d / (|x_d| + |y_d|)`,
    the ``b`` variant by :math:`\sqrt{\sum_i c_x(i,d)^2 \sum_i c_y(i,d)^2}`
    (as Kendall's :math:`\tau_b` corrects for ties).

    Parameters
    ----------
    %(parameters)s

    Returns
    -------
    rbo : float, dict or EvaluationResult
        For two rankings, the score (a float), or ``{score: value}`` for
        several. For two runs, an :class:`EvaluationResult` over the queries
        both rank: ``result.per_query["rbo_ext"]`` and
        ``result["rbo_ext"]`` (the mean over queries), one entry
        ``"rbo_<score>"`` per score.

    See Also
    --------
    kendall_tau : Rank correlation of two orderings of the same items.

    Notes
    -----
    With lists of lengths :math:`s \le l` (:math:`S` the shorter),
    :math:`A_d` is computed from both lists up to depth :math:`s`; from
    :math:`s+1` to :math:`l` :math:`S` is taken to hold :math:`d` items, the
    unseen ones adding no overlap (MIN), being :math:`L`'s unmatched items
    in :math:`L`'s order (MAX), or adding :math:`(d-s) A_s` times the mean
    contribution of :math:`L`'s unmatched items in the prefix (EXT); past
    :math:`l`, with :math:`X_l` the number of items the lists share,

    .. math::

        A_d^{\min} = \frac{X_l}{d}, \qquad
        A_d^{\max} = \min\Big(1, \frac{2d - l - s + X_l}{d}\Big), \qquad
        A_d^{\mathrm{ext}} = \frac{X_l + (l - s) A_s}{l},

    summed in closed form. Every score lies in [0, 1] (values are clipped
    to it, which moves them by round-off only), :math:`\mathrm{MIN} \le
    \mathrm{EXT} \le \mathrm{MAX}`, RES = MAX - MIN, RBO is symmetric in
    ``x`` and ``y`` in every variant, and a ranking without ties has RBO 1
    with itself (``"b"`` and ``"w"``: with ties too). Two lists without
    ties give the same value in every variant. The values agree with Corsi
    and Urbano's reference implementation to within 1e-13 on its 10,000
    test cases.

    An item may appear once per ranking; a ranking must hold at least one
    item. Two runs are compared on the queries both rank. Cost: for
    :math:`n` pairs of lists of up to :math:`m` items, :math:`O(n m \log
    m)` time (one sort per pair to match their items) in blocks of bounded
    memory.

    References
    ----------
    .. [1] Corsi, M. and Urbano, J. (2024). The treatment of ties in
           rank-biased overlap. SIGIR 2024, 251-260.
    .. [2] Webber, W., Moffat, A. and Zobel, J. (2010). A similarity
           measure for indefinite rankings. ACM Transactions on Information
           Systems 28(4), 20.

    Examples
    --------
    >>> from sk_rankmetrics import rbo
    >>> x = ["red", {"blue", "green"}, "yellow", "pink"]
    >>> y = [{"blue", "red"}, "white", {"yellow", "black", "purple"}, "green"]
    >>> round(rbo(x, y, p=0.95), 6)
    0.692285
    >>> {k: round(v, 6) for k, v in rbo(x, y, p=0.95, ties="w", score="all").items()}
    {'ext': 0.706826, 'min': 0.342968, 'max': 0.904986, 'res': 0.562017}
    >>> rbo({"a": 3.0, "b": 2.0, "c": 1.0}, ["a", "b", "c"])
    1.0

    Two runs, query by query:

    >>> run_a = {"q1": {"d1": 3.0, "d2": 2.0}, "q2": {"d3": 1.0, "d4": 1.0}}
    >>> run_b = {"q1": {"d2": 5.0, "d1": 4.0}, "q2": {"d4": 2.0, "d3": 1.0}}
    >>> res = rbo(run_a, run_b)
    >>> res.per_query["rbo_ext"].round(4).tolist(), round(res["rbo_ext"], 4)
    ([0.9, 0.95], 0.925)
    """
    wanted = list(SCORES) if score == "all" else [score] if isinstance(score, str) else list(
        dict.fromkeys(score))
    if "all" in wanted:
        raise InvalidParameterError("rbo: score='all' cannot be combined with other scores.")
    run_x, run_y = _is_run(x), _is_run(y)
    if run_x != run_y:
        run, other = (x, "x"), "y"
        if run_y:
            run, other = (y, "y"), "x"
        kind = " (a path)" if isinstance(run[0], (str, os.PathLike)) else ""
        raise InvalidParameterError(f"rbo: {run[1]} is a run{kind} and {other} a single "
                                    "ranking; give two rankings or two runs.")
    if run_x:
        return _runs(x, y, p, ties, wanted, on_missing)
    lx, ly = _pair_lists(x, y)
    values = rbo_lists(lx, ly, p=p, ties=ties, scores=wanted)
    out = {s: float(v[0]) for s, v in values.items()}
    return out[wanted[0]] if isinstance(score, str) and score != "all" else out
