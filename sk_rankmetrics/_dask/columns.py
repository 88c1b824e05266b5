"""Finding id, score and relevance columns and id kinds in Dask frames and bags."""

from __future__ import annotations

import numpy as np

from .._files.frames import ITEM_COLUMNS, QUERY_COLUMNS
from .._files.runs import as_qrels, as_run
from .._utils.arrays import as_numeric_array, check_finite
from .._utils.errors import InvalidParameterError
from . import is_dask
from .arrays import _ids
from .plan import _context, _in_partition

# -- runs and ID lists -------------------------------------------------------------------


def _no_progress(progress, where):
    if progress is not None:
        raise InvalidParameterError(
            f"{where}: progress is not used with Dask inputs; follow the computation with "
            "Dask's own progress bar (dask.diagnostics.ProgressBar) or the distributed "
            "dashboard."
        )


def _common_id_kind(*dtypes):
    """``"int"`` when every side's ids are numbers, else ``"str"`` (as in memory)."""
    kinds = [getattr(d, "kind", "O") for d in dtypes]
    if not kinds:  # no id seen on either side
        return "str"
    if "b" in kinds:
        raise InvalidParameterError("ids must be integers or strings, got dtype bool.")
    return "int" if all(k in "iuf" for k in kinds) else "str"


def _optional_column(columns, names, what, side):
    """The one column of ``names`` the frame has, or None; two is an error."""
    found = [c for c in names if c in columns]
    if len(found) > 1:
        raise ValueError(
            f"the Dask data frame of the {side} has {len(found)} columns that could hold the "
            f"{what}: {found}; keep one of them (drop or rename the others)."
        )
    return found[0] if found else None


def _find_column(columns, names, what, side):
    found = _optional_column(columns, names, what, side)
    if found is not None:
        return found
    raise ValueError(
        f"cannot find the {what} column of the {side}: looked for {list(names)}, the Dask "
        f"data frame has {list(columns)}; rename the column to one of these names."
    )


def _long_frame(x, side, dd, pd, value_names, value_what, fmt="auto"):
    """A side (run, qrels) as a Dask data frame and its (query, item, value) columns
    (a path is read as evaluate_run and the command read it, in format ``fmt``)."""
    if is_dask(x):
        if not isinstance(x, dd.DataFrame):
            raise InvalidParameterError(f"{side} must be a Dask DataFrame, got "
                                        f"{type(x).__name__}.")
        frame = x
    else:
        obj = as_run(x, fmt) if side == "run" else as_qrels(x, fmt)
        value = obj.score if side == "run" else obj.relevance
        frame = dd.from_pandas(pd.DataFrame({"qid": obj.qid, "docno": obj.docno,
                                             value_names[0]: value}), npartitions=1)
    cols = (_find_column(frame.columns, QUERY_COLUMNS, "query", side),
            _find_column(frame.columns, ITEM_COLUMNS, "item", side),
            _find_column(frame.columns, value_names, value_what, side))
    return frame, cols


def _side(part, cols, code, kinds, what, subtopic=None, partition_info=None):
    """One partition of a run (``code`` 0) or qrels (1) in the shared layout; a
    diversity qrels' integer ``subtopic`` column goes to the ``list`` column."""
    import pandas as pd

    with _context(f"{what} {_in_partition(partition_info)}"):
        qid = _ids(part[cols[0]], f"the {what}'s query ids", kinds[0])
        doc = _ids(part[cols[1]], f"the {what}'s item ids", kinds[1])
        arg = f"the {what}'s {'relevance' if code else 'score'} column"
        value = as_numeric_array(part[cols[2]], arg)
        check_finite(value, arg)
        lists = np.zeros(len(qid), dtype=np.int64)
        if subtopic is not None:
            lists = subtopic_codes(part[subtopic].to_numpy())
    return pd.DataFrame({"qid": qid, "docno": doc, "value": value.astype(np.float64),
                         "list": lists, "kind": np.full(len(qid), code, dtype=np.int8)})


def subtopic_codes(values):
    """Integer subtopics (as ndeval reads them), or an error naming the column."""
    a = as_numeric_array(values, "the qrels' subtopic column")
    check_finite(a, "the qrels' subtopic column")
    if a.size and not np.array_equal(a, np.floor(a)):
        raise ValueError("the qrels' subtopic column must hold integers with Dask inputs "
                         "(ndeval's subtopics are numbers); number the subtopics.")
    return a.astype(np.int64)


def _shared_meta(kinds):
    import pandas as pd

    def ids(kind):
        return pd.Series(np.zeros(0, dtype=np.int64) if kind == "int"
                         else np.zeros(0, dtype=str))

    return pd.DataFrame({"qid": ids(kinds[0]), "docno": ids(kinds[1]), "value": np.zeros(0),
                         "list": np.zeros(0, dtype=np.int64),
                         "kind": np.zeros(0, dtype=np.int8)})


def _together(frames, kinds, dd):
    """Both sides in one frame, shuffled on the query id: a partition holds every
    line of its queries, from both sides."""
    both = dd.concat(frames)
    n = max(f.npartitions for f in frames)
    return both.shuffle(on="qid", npartitions=n)


def _split(part, kinds):
    kind = part["kind"].to_numpy()
    qid = _ids(part["qid"], "qid", kinds[0])
    doc = _ids(part["docno"], "docno", kinds[1])
    return kind, qid, doc, part["value"].to_numpy(dtype=np.float64), part["list"].to_numpy()


def _id_dtype(values):
    """The dtype ids of ``values`` would have (object arrays: of their first entry)."""
    a = np.asarray(values)
    if a.dtype.kind == "O" and a.size:
        a = np.asarray(a[:1].tolist())
    return a.dtype if a.dtype.kind in "iuU" else np.dtype("O")


def _bag_kinds(bag):
    """The dtypes of a bag's user ids and item ids, read from its first pair.

    A bag carries no types, and both sides of the shuffle must agree on them
    (as in memory: integers, or strings for both); the first pair computes
    the first non-empty partition. A later pair of other types raises.
    """
    import dask

    # A bag computes on processes by default; its delayed form follows the
    # scheduler in use (threads by default, or a distributed client).
    head = bag.take(1, npartitions=-1, warn=False, compute=False).to_delayed()
    first = [x for part in dask.compute(*head) for x in part]
    if not first:
        return np.dtype("O"), None
    pair = first[0]
    try:
        user, ids = pair
        items = list(ids)[:1]
    except (TypeError, ValueError):
        raise InvalidParameterError(
            f"a Dask bag of ranked lists or truth must hold (user, ids) pairs, got "
            f"{type(pair).__name__}."
        ) from None
    return _id_dtype([user]), (_id_dtype(items) if items else None)


def _typed(users, items, value, lid, kind, kinds, items_are="the ranked item ids"):
    """The shared layout of one side, ids in the kinds chosen for both sides;
    ``items_are`` names the item ids in messages, as the in-memory readers do."""
    import pandas as pd

    return pd.DataFrame({"qid": _ids(_column(users), "the user ids", kinds[0],
                                     strict=False),
                         "docno": _ids(_column(items), items_are, kinds[1],
                                       strict=False),
                         "value": np.asarray(value, dtype=np.float64),
                         "list": np.asarray(lid, dtype=np.int64),
                         "kind": np.asarray(kind, dtype=np.int8)})


def _column(values):
    """A partition's column as it is (a pandas Series: :func:`as_ids` reads
    Arrow's text from its buffers), other values as an array."""
    return values if hasattr(values, "to_numpy") else np.asarray(values)
