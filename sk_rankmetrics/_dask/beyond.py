"""The beyond-accuracy measures of ``evaluate_ranked`` on Dask bags and frames.

The lists (and the truth, for serendipity) are shuffled on the user id, so a
partition holds whole lists. Each partition gives the sums of
:func:`._beyond.measures.partial`: its users' per-user values, and per
recommended item the exposure and personalization sums with its count of
non-empty lists. The item sums of the partitions are added in a tree
(pairwise, by item id), never gathered per user; the per-user values are
collected as ``per_query`` is for the other measures.
"""

from __future__ import annotations

import numpy as np

from .._beyond import measures as _beyond
from .._beyond.data import positions, relevant_flags
from .._evaluation.result import EvaluationResult
from .._utils.errors import InvalidParameterError, quiet
from .._utils.fast import unique
from .columns import _common_id_kind as _common_kind
from .columns import _shared_meta, _split, _together
from .lists import _lists_side, _truth_side
from .overlap import check_forms, truth_forms
from .plan import _context, _modules


def _part(part, number, kinds, requests, data, complete, threshold, has_truth):
    """``(user ids, raw per-user values, item sums)`` of one partition."""
    where = f"in partition {number} after the shuffle by user"
    kind, user, item, value, lid = _split(part, kinds)
    ranked = kind == 0
    ru, ri, rp = user[ranked], item[ranked], value[ranked]
    order = np.lexsort((rp, ru))
    ru, ri = ru[order], ri[order]
    tmask = kind == 1
    tu, ti, tr = user[tmask], item[tmask], value[tmask]
    rec_users, starts = np.unique(ru, return_index=True)
    lens = np.diff(np.append(starts, ru.shape[0]))
    if complete:  # rows: every user the truth knows (as the accuracy measures)
        known = unique(np.concatenate([tu, user[kind == 2]]))
        keep_list = np.isin(rec_users, known)
        ri = ri[np.repeat(keep_list, lens)]
        rec_users, lens = rec_users[keep_list], lens[keep_list]
        extra = np.setdiff1d(known, rec_users, assume_unique=True)
        ids = np.concatenate((rec_users, extra))
        lens = np.concatenate((lens, np.zeros(extra.size, dtype=np.int64)))
    else:
        ids = rec_users
    with quiet(), _context(where):
        relevant = None
        if has_truth:
            relevant = relevant_flags(ids, lens, ri, tu, ti, tr, threshold)
        raw, parts = _beyond.partial(requests, ids, lens, ri, data, relevant=relevant)
    return ids, raw, parts, truth_forms(kind, lid)


def _add(a, b):
    """Two partitions' item sums added by item id (one cut-off after another)."""
    out = {}
    for k in a:
        va, ca, s1a, s2a, na = a[k]
        vb, cb, s1b, s2b, nb = b[k]
        vocab = unique(np.concatenate((va, vb)))
        pa, pb = positions(vocab, va), positions(vocab, vb)
        c = np.zeros(vocab.shape[0], dtype=np.int64)
        s1, s2 = np.zeros(vocab.shape[0]), np.zeros(vocab.shape[0])
        for p, cc, x1, x2 in ((pa, ca, s1a, s2a), (pb, cb, s1b, s2b)):
            c[p] += cc
            s1[p] += x1
            s2[p] += x2
        out[k] = (vocab, c, s1, s2, na + nb)
    return out


def _parts_of(result):
    return result[2]


def _users_of(result):
    return result[0], result[1], result[3]


def _tree(parts):
    """Pairwise sums of delayed item sums, in a tree of depth log2(partitions)."""
    import dask

    while len(parts) > 1:
        parts = [
            dask.delayed(_add, pure=True)(parts[i], parts[i + 1])
            if i + 1 < len(parts)
            else parts[i]
            for i in range(0, len(parts), 2)
        ]
    return parts[0]


def evaluate_beyond(
    recommended,
    truth,
    beyond,
    *,
    k,
    complete,
    threshold,
    no_relevant,
    run_format,
    qrels_format,
    data,
    result,
    order,
):
    """``result`` (an :class:`EvaluationResult` of the other metrics, or None)
    with the beyond-accuracy measures ``beyond`` of Dask inputs added."""
    import dask

    _, _, dd, pd = _modules()
    requests = _beyond.make_requests(beyond, k, where="evaluate_ranked")
    has_truth = truth is not None
    needs_truth = any("truth" in r.spec.data for r in requests)
    _beyond.check_data(requests, data, has_truth or not needs_truth)
    rec_kinds, rec_frame = _lists_side(recommended, dd, run_format)
    if has_truth:
        tru_kinds, tru_frame = _truth_side(truth, dd, pd, qrels_format)
        seen = [d for d in (rec_kinds[1], tru_kinds[1]) if d is not None]
        kinds = (_common_kind(rec_kinds[0], tru_kinds[0]), _common_kind(*seen))
    else:
        kinds = (
            _common_kind(rec_kinds[0]),
            _common_kind(*([rec_kinds[1]] if rec_kinds[1] is not None else [])),
        )
    meta = _shared_meta(kinds)
    frames = [rec_frame(kinds, meta)] + ([tru_frame(kinds, meta)] if has_truth else [])
    both = _together(frames, kinds, dd)
    needs_truth = has_truth and any("truth" in r.spec.data for r in requests)
    outs = [
        dask.delayed(_part, pure=True)(
            p, i, kinds, requests, data, complete, threshold, needs_truth
        )
        for i, p in enumerate(both.to_delayed())
    ]
    any_whole = any(r.whole for r in requests)
    total = _tree([dask.delayed(_parts_of, pure=True)(o) for o in outs]) if any_whole else None
    per_part = [dask.delayed(_users_of, pure=True)(o) for o in outs]
    got = dask.compute(*per_part, *([total] if any_whole else []))
    pieces, parts = got[: len(outs)], (got[-1] if any_whole else {})
    check_forms(int(np.bitwise_or.reduce([p[2] for p in pieces] or [0])))
    ids = np.concatenate([p[0] for p in pieces]) if pieces else np.zeros(0, dtype=np.int64)
    raw = {}
    for req in requests:
        if not req.whole:
            values = np.concatenate([p[1][req.label][0] for p in pieces])
            defined = np.concatenate([p[1][req.label][1] for p in pieces])
            raw[req.label] = (values, defined, pieces[0][1][req.label][2])
    if ids.size == 0:
        raise ValueError("no user has a ranked list; check the recommended lists.")
    sort = np.argsort(ids, kind="stable")
    ids = ids[sort]
    raw = {label: (v[sort], d[sort], why) for label, (v, d, why) in raw.items()}
    per_user, value = _beyond.finish(requests, raw, parts, data, no_relevant)
    if result is None:
        result = EvaluationResult(ids, per_user, value)
    else:
        pos = positions(ids, result.query_ids)
        if (pos < 0).any():  # cannot happen: both sides choose the users alike
            raise InvalidParameterError(
                "the users of the beyond-accuracy measures differ from those of the other measures."
            )
        result.per_query.update({label: v[pos] for label, v in per_user.items()})
        result.mean.update(value)
    result.mean = _beyond.in_order(result.mean, order)
    result.per_query = _beyond.in_order(result.per_query, order)
    result.whole_set = (*result.whole_set, *(r.label for r in requests if r.whole))
    return result
