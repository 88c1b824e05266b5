"""evaluate_ranked on Dask bags and frames."""

from __future__ import annotations

import os
from operator import itemgetter

import numpy as np

from .._evaluation.pipeline import layout_values
from .._files.frames import ITEM_COLUMNS, QUERY_COLUMNS, RELEVANCE_COLUMNS
from .._metrics.names import by_family
from .._metrics.requests import make_requests
from .._utils.arrays import as_numeric_array, check_finite
from .._utils.errors import InvalidParameterError, quiet
from .._utils.fast import unique
from .._utils.nonzero import flatnonzero
from .._utils.threads import one_thread
from . import is_dask
from .columns import (
    _bag_kinds,
    _common_id_kind,
    _find_column,
    _id_dtype,
    _no_progress,
    _optional_column,
    _shared_meta,
    _split,
    _together,
    _typed,
)
from .overlap import GRADED, PLAIN, _Check, _overlap_reduction
from .plan import _context, _in_partition, _modules, _Plan
from .runs import _evaluation

#: Column names of a rank (1 = best) in a long data frame of ranked lists.
_RANK_COLS = ("rank", "position", "pos")


def evaluate_ranked(recommended, truth, metrics, *, k, users, complete, threshold,
                    no_relevant, progress, compute, run_format="auto", qrels_format="auto"):
    """:func:`sk_rankmetrics.evaluate_ranked` for a Dask bag or data frame."""
    _, _, dd, pd = _modules()
    _no_progress(progress, "evaluate_ranked")
    if by_family(metrics).diversity_only():
        raise InvalidParameterError(
            "evaluate_ranked: the diversity measures do not take Dask inputs here; use "
            "evaluate_run with Dask frames (the qrels with an integer subtopic column), or "
            "in-memory lists."
        )
    if users is not None:
        raise InvalidParameterError(
            "evaluate_ranked: users cannot be given with Dask inputs; the user ids come "
            "with the lists ((user, ids) pairs in a bag, or a user column)."
        )
    requests = make_requests(metrics, "evaluate_ranked", k=k,
                             given={"threshold": ("threshold", threshold, threshold)})
    rec_kinds, rec_frame = _lists_side(recommended, dd, run_format)
    tru_kinds, tru_frame = _truth_side(truth, dd, pd, qrels_format)
    kinds = (_common_id_kind(rec_kinds[0], tru_kinds[0]),
             _common_id_kind(*(k for k in (rec_kinds[1], tru_kinds[1]) if k is not None)))
    meta = _shared_meta(kinds)
    both = _together([rec_frame(kinds, meta), tru_frame(kinds, meta)], kinds, dd)
    plan = _Plan(requests, kind="ranked", what="user", complete=complete, kinds=kinds)
    rows = both.map_partitions(_score_ranked, plan=plan,
                               meta=plan.rows_meta(pd.Index(meta["qid"], name="user")))
    check = _Check(queries="truth" if complete else "run", what="user", complete=complete)
    return _evaluation(rows, plan, no_relevant, compute,
                       _overlap_reduction(both, kinds, forms=True), check)


def _bag_builder(bag, part_fn, dd):
    """A function of the chosen kinds that turns each partition of ``bag`` into
    a long Dask frame with ``part_fn``."""
    def build(kinds, meta):
        frames = [_delayed_part(part_fn, p, i, kinds) for i, p in enumerate(bag.to_delayed())]
        return dd.from_delayed(frames, meta=meta, verify_meta=False)

    return build


def _frame_side(frame, part_fn, third, role, what):
    """The user and item columns of a Dask frame and its ``role`` column (one of
    ``third``; None where it has none), its id dtypes and a function of the
    chosen kinds that reads each partition with ``part_fn``."""
    cols = frame.columns
    ucol = _find_column(cols, QUERY_COLUMNS, "user", what)
    icol = _find_column(cols, ITEM_COLUMNS, "item", what)
    rcol = _optional_column(cols, third, role, what)

    def build(kinds, meta):
        return frame.map_partitions(part_fn, cols=(ucol, icol, rcol), kinds=kinds, meta=meta)

    return rcol, (frame[ucol].dtype, frame[icol].dtype), build


def _lists_side(recommended, dd, fmt="auto"):
    """The ranked lists' id dtypes (user, item; None: unknown) and a function of
    the chosen kinds that builds their long Dask frame (user, item, rank, list).
    A path is a run file, read as evaluate_run reads it (format ``fmt``)."""
    import dask.bag as db

    if isinstance(recommended, (str, os.PathLike)):
        import pandas as pd

        from .._files.formats import read_run
        from .._inputs.preranked import group_long

        r = read_run(recommended, format=fmt)
        ids, lens, items, _ = group_long(r.qid, r.docno, r.score, order="score")
        rank = np.arange(items.shape[0]) - np.repeat(np.cumsum(lens) - lens, lens) + 1
        recommended = dd.from_pandas(pd.DataFrame({"user": np.repeat(ids, lens),
                                                   "item": items, "rank": rank}),
                                     npartitions=1)

    if isinstance(recommended, db.Bag):
        return _bag_kinds(recommended), _bag_builder(recommended, _bag_lists, dd)
    if isinstance(recommended, dd.DataFrame):
        rcol, dtypes, build = _frame_side(recommended, _frame_lists, _RANK_COLS, "rank",
                                          "recommended lists")
        if rcol is None:
            raise ValueError(
                "recommended as a Dask DataFrame must have one row per (user, item) with a "
                f"rank column ({', '.join(_RANK_COLS)}; 1 = best): the order of rows does "
                f"not survive a shuffle. Its columns are {list(recommended.columns)}."
            )
        return dtypes, build
    raise InvalidParameterError(
        "recommended must be a Dask bag of (user, ranked ids) pairs or a Dask DataFrame "
        f"with user, item and rank columns, got {type(recommended).__name__}."
    )


def _truth_side(truth, dd, pd, fmt="auto"):
    """The truth's id dtypes and a function of the chosen kinds that builds its
    long Dask frame (user, item, relevance; kind 2: a user with no relevant item)."""
    import dask.bag as db

    if isinstance(truth, db.Bag):
        return _bag_kinds(truth), _bag_builder(truth, _bag_truth, dd)
    if isinstance(truth, dd.DataFrame):
        _, dtypes, build = _frame_side(truth, _frame_truth, RELEVANCE_COLUMNS, "relevance",
                                       "truth")
        return dtypes, build
    if is_dask(truth):
        raise InvalidParameterError("truth must be a Dask bag or DataFrame (or in memory), "
                                    f"got {type(truth).__name__}.")
    from .._files.lists import truth_lists

    if isinstance(truth, (list, np.ndarray)):
        raise InvalidParameterError(
            "truth as a list aligned with recommended cannot go with Dask inputs; give a "
            "dict {user: ids}, a tuple (user_ids, item_ids[, relevance]) or a Dask "
            "collection."
        )
    tu, ti, trel, known = truth_lists(truth, None, fmt)
    tu, ti = np.asarray(tu), np.asarray(ti)

    def build(kinds, meta):
        frame = _truth_rows(tu, ti, np.asarray(trel, dtype=np.float64), known, 0, kinds)
        return dd.from_pandas(frame, npartitions=1)

    return (_id_dtype(tu), _id_dtype(ti) if ti.size else None), build


def _delayed_part(fn, part, number, kinds):
    import dask

    return dask.delayed(fn, pure=True)(part, number, kinds)


def _pairs_of(part, number, what):
    pairs = list(part)
    n = len(pairs)
    if n and not (np.fromiter(map(len, pairs), dtype=np.int64, count=n) == 2).all():
        raise InvalidParameterError(
            f"{what} as a Dask bag must hold (user, ids) pairs (in partition {number})."
        )
    return pairs, n


def _bag_lists(part, number, kinds):
    """One bag partition of (user, ranked ids) pairs as long rows, read by the one
    parser of ranked lists (a set refused, as evaluate_ranked refuses it)."""
    from .._inputs.id_pairs import ranked_lists

    pairs, n = _pairs_of(part, number, "recommended")
    users, lists = zip(*pairs) if n else ((), ())
    users = np.asarray(users if n else np.zeros(0, dtype=np.int64))
    _, lens, flat = ranked_lists(list(lists), users)
    where = np.repeat(np.arange(n), lens)
    rank = np.arange(flat.shape[0]) - np.repeat(np.cumsum(lens) - lens, lens)
    with _context(f"recommended in partition {number}"):
        return _typed(users[where], flat, rank, (number << 32) + where,
                      np.zeros(flat.shape[0]), kinds)


def _frame_lists(part, cols, kinds, partition_info=None):
    with _context(f"recommended lists {_in_partition(partition_info)}"):
        rank = as_numeric_array(part[cols[2]], "the rank column")
        check_finite(rank, "the rank column")
        n = len(part)
        return _typed(part[cols[0]], part[cols[1]], rank,
                      np.zeros(n), np.zeros(n), kinds)


def _truth_rows(tu, ti, trel, known, number, kinds, form=0):
    """Long truth rows, plus one row (kind 2) per known user without an item;
    ``form`` (GRADED or PLAIN) goes to the low bits of their list id."""
    n = np.asarray(tu).shape[0]
    lid = np.full(n, (number << 32) | form, dtype=np.int64)
    users, items, kind = np.asarray(tu), np.asarray(ti), np.ones(n)
    if known is not None and len(known):
        empty = np.setdiff1d(np.asarray(known), users)
        if empty.size:
            pad = np.zeros(empty.size, dtype=np.int64) if kinds[1] == "int" else np.full(
                empty.size, "-")
            users = np.concatenate((users.astype(empty.dtype), empty))
            items = np.concatenate((items, pad)) if items.size else pad
            trel = np.concatenate((trel, np.zeros(empty.size)))
            kind = np.concatenate((kind, np.full(empty.size, 2)))
            lid = np.concatenate((lid, np.full(empty.size, (number << 32) | form,
                                               dtype=np.int64)))
    return _typed(users, items, trel, lid, kind, kinds, "the truth's item ids")


def _bag_truth(part, number, kinds):
    """One bag partition of (user, ids or {id: relevance}) pairs as long rows, read
    by the one parser of truth (:func:`.._inputs.id_pairs.truth_pairs`)."""
    from collections.abc import Mapping

    from .._inputs.id_pairs import truth_pairs

    pairs, n = _pairs_of(part, number, "truth")
    truth = dict(pairs)
    if len(truth) != n:
        from collections import Counter

        dup = Counter(map(itemgetter(0), pairs)).most_common(1)[0][0]
        raise ValueError(f"user {dup!r} has two truth entries in the truth bag (partition "
                         f"{number}); give one per user.")
    tu, ti, trel, known = truth_pairs(truth, None)
    graded = any(isinstance(v, Mapping) for v in truth.values())  # one form: checked
    with _context(f"truth in partition {number}"):
        return _truth_rows(tu, ti, np.asarray(trel, dtype=np.float64), known, number, kinds,
                           form=GRADED if graded else PLAIN if n else 0)


def _frame_truth(part, cols, kinds, partition_info=None):
    n = len(part)
    with _context(f"truth {_in_partition(partition_info)}"):
        if cols[2] is None:
            rel = np.ones(n)
        else:
            rel = as_numeric_array(part[cols[2]], "the truth's relevance")
            check_finite(rel, "the truth's relevance")
        return _typed(part[cols[0]], part[cols[1]], rel, np.zeros(n),
                      np.ones(n), kinds, "the truth's item ids")
def _score_ranked(part, plan, partition_info=None):
    """Per-user rows of one partition, through the in-memory pre-ranked layout."""
    import pandas as pd

    from .._inputs.preranked import RankedLists, Truth, build_preranked

    where = f"{_in_partition(partition_info)} after the shuffle by user"
    kind, user, item, value, lid = _split(part, plan.kinds)
    ranked = kind == 0
    ru, ri, rp, rl = user[ranked], item[ranked], value[ranked], lid[ranked]
    order = np.lexsort((rp, ru))
    ru, ri, rp, rl = ru[order], ri[order], rp[order], rl[order]
    same = ru[1:] == ru[:-1]
    if (same & (rl[1:] != rl[:-1])).any():
        u = ru[1:][same & (rl[1:] != rl[:-1])][0]
        raise ValueError(f"user {u.item()!r} has two ranked lists; give one list per user "
                         f"({where}).")
    if (same & (rp[1:] == rp[:-1])).any():
        i = int(flatnonzero(same & (rp[1:] == rp[:-1]))[0])
        raise ValueError(f"user {ru[i].item()!r} has two items at rank {rp[i]:g}; give each "
                         f"item its own rank ({where}).")
    tmask = kind == 1
    tu, ti, tr, tl = user[tmask], item[tmask], value[tmask], lid[tmask]
    if tu.size > 1:
        o = np.argsort(tu, kind="stable")
        s_u, s_l = tu[o], tl[o]
        clash = (s_u[1:] == s_u[:-1]) & (s_l[1:] != s_l[:-1])
        if clash.any():
            raise ValueError(f"user {s_u[1:][clash][0].item()!r} has two truth entries; give "
                             f"one per user ({where}).")
    known = unique(np.concatenate([tu, user[kind == 2]]))
    rec_users, starts = np.unique(ru, return_index=True)
    lens = np.diff(np.append(starts, ru.shape[0]))
    if plan.complete:  # rows: every user the truth knows
        keep = np.isin(ru, known)
        ri = ri[keep]
        lens = lens[np.isin(rec_users, known)]
        rec_users = rec_users[np.isin(rec_users, known)]
        extra = np.setdiff1d(known, rec_users, assume_unique=True)
        ids = np.concatenate((rec_users, extra))
        lens = np.concatenate((lens, np.zeros(extra.size, dtype=np.int64)))
        truth_users = known
    else:  # rows: every user with a list
        ids = rec_users
        keep = np.isin(tu, rec_users)
        tu, ti, tr = tu[keep], ti[keep], tr[keep]
        truth_users = known[np.isin(known, rec_users)]
    index = pd.Index(user[:0], name="user")
    if ids.size == 0:
        return plan.rows_meta(index)
    with quiet(), one_thread(), _context(where):
        inputs = build_preranked(RankedLists(ids, lens, ri),
                                 Truth(tu, ti, tr, queries=truth_users), queries="run",
                                 what="user")
        raw = layout_values(inputs, plan.requests, ignore_ties=True)
    return plan.rows(raw, pd.Index(inputs.query_ids, name="user"), None, 0.0)
