"""The beyond-accuracy measures of ranked lists, added to a result: the glue
between the parsed lists and truth (:mod:`.._inputs`) and :mod:`.measures`,
shared by evaluate_ranked, the nine public functions and the command line."""

from __future__ import annotations

import numpy as np

from .._utils.arrays import as_ids
from .._utils.errors import InvalidParameterError
from . import measures as _beyond
from .data import positions, relevant_flags


def rows_lists(row_ids, ids, lens, flat):
    """The lists of ``row_ids`` (the result's users) out of ``(ids, lens, flat)``;
    a user without a list gets an empty one."""
    if row_ids.shape == ids.shape and (row_ids == ids).all():
        return lens, flat
    pos = positions(np.sort(as_ids(ids, "users")), as_ids(row_ids, "users"))
    order = np.argsort(as_ids(ids, "users"), kind="stable")
    src = np.where(pos >= 0, order[np.maximum(pos, 0)], -1)
    starts = np.cumsum(lens) - lens
    new_lens = np.where(src >= 0, lens[np.maximum(src, 0)], 0)
    first = np.repeat(np.where(src >= 0, starts[np.maximum(src, 0)], 0), new_lens)
    offset = np.arange(int(new_lens.sum())) - np.repeat(np.cumsum(new_lens) - new_lens, new_lens)
    return new_lens, np.asarray(flat)[first + offset]


def beyond_values(
    requests, row_ids, lens, flat, data, *, truth, threshold, no_relevant, checked=False
):
    """Per-user values and values of the beyond-accuracy ``requests``
    (``checked``: the lists were refused repeats already)."""
    relevant = None
    if any("truth" in r.spec.data for r in requests) and truth is not None:
        tu, ti, trel = truth
        relevant = relevant_flags(row_ids, lens, flat, tu, ti, trel, threshold)
    return _beyond.compute(
        requests,
        row_ids,
        lens,
        flat,
        data,
        relevant=relevant,
        no_relevant=no_relevant,
        checked=checked,
    )


def beyond_measures(beyond, k, lists, truth, data, *, threshold, no_relevant, row_ids=None,
                    where="evaluate_ranked"):
    """``(requests, per_user, value)`` of the beyond-accuracy measures ``beyond``
    over the ranked lists ``lists`` (a :class:`RankedLists`): the one path of
    every entry point to these measures (evaluate_ranked, the nine public
    functions, the command line).

    ``truth`` is ``(user ids, item ids, relevance)`` or None, ``data`` a
    :class:`.measures.BeyondData`; ``row_ids``: the users of a result of the
    other metrics (whose layout refused repeated items already), whose lists
    are taken (an empty one for a user without); None: every list.
    """
    ids, lens, flat = lists.ids, lists.lengths, lists.items
    requests = _beyond.make_requests(beyond, k, where=where)
    checked = row_ids is not None  # build_preranked refused repeated items
    if row_ids is None:
        row_ids = np.asarray(ids)
    else:
        lens, flat = rows_lists(row_ids, ids, lens, flat)
    if truth is None and any("truth" in r.spec.data for r in requests):
        raise InvalidParameterError(
            f"{where}: serendipity needs the truth; pass it instead of None."
        )
    per_user, value = beyond_values(
        requests,
        row_ids,
        lens,
        flat,
        data,
        truth=truth,
        threshold=threshold,
        no_relevant=no_relevant,
        checked=checked,
    )
    return requests, per_user, value
