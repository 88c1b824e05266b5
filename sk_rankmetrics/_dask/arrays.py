"""The metric functions on Dask arrays and long-format frames."""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from .._evaluation.pipeline import layout_values
from .._inputs.check import check_inputs
from .._inputs.dense import check_exclude_shape, check_exclude_type, exclude_mask
from .._utils.arrays import (
    MASK_BY_EXCLUDE,
    MASK_BY_OMISSION,
    as_ids,
    as_numeric_array,
    check_finite,
)
from .._utils.errors import InvalidParameterError
from .._utils.fast import unique
from .._utils.nonzero import flatnonzero
from .._utils.threads import one_thread
from . import is_dask
from .plan import _context, _in_partition, _modules, _part_number, _Plan, _results

# -- metric functions: matrices and long format ------------------------------------------


def evaluate_arrays(y_true, y_score, requests, *, sample_weight, ignore_ties, no_relevant, qid,
                    per_row, judged, compute, exclude=None, where="evaluate"):
    """The metric functions and evaluate (``evaluate_requests``) on Dask inputs."""
    if qid is None:
        rows, lengths, plan = _matrix_rows(y_true, y_score, requests, sample_weight=sample_weight,
                                           judged=judged, ignore_ties=ignore_ties,
                                           exclude=exclude, where=where,
                                           lazy_rows=not compute)
        out = _results(rows, plan, no_relevant, per_row=per_row, compute=compute,
                       by_query=False, lengths=lengths)
    else:
        rows, plan = _long_rows(y_true, y_score, qid, requests, sample_weight=sample_weight,
                                judged=judged, ignore_ties=ignore_ties)
        out = _results(rows, plan, no_relevant, per_row=per_row, compute=compute,
                       by_query=True)
    return out[0] if per_row else out


def _dask_array(x, arg, da, dd):
    """A Dask collection as a Dask array (None for in-memory data)."""
    if not is_dask(x):
        return None
    if isinstance(x, da.Array):
        return x
    if isinstance(x, (dd.DataFrame, dd.Series)):
        return x.to_dask_array(lengths=True)
    raise InvalidParameterError(
        f"{arg} is a {type(x).__name__}; with Dask, pass a dask.array or a "
        "dask.dataframe collection."
    )


def _check_numeric_dtype(dtype, arg):
    """Refuse string dtypes at once (object columns are read partition by partition)."""
    kind = getattr(dtype, "kind", "O")
    text = str(dtype).lower()
    if kind not in "biufO" or (kind == "O" and ("str" in text or "string" in text)):
        raise InvalidParameterError(
            f"{arg} must hold numbers (bool, int or float), got dtype {dtype}."
        )


def _known(x, arg):
    if any(np.isnan(c) for dim in x.chunks for c in dim):
        raise ValueError(
            f"{arg} has unknown chunk sizes (a Dask array made from a data frame); call "
            f"{arg}.compute_chunk_sizes() first, or pass the data frame itself."
        )


def _side_args(sample_weight, judged, shape, rows_chunks, da, dd):
    """``sample_weight`` (a column) and ``judged`` as Dask arrays in the blocks of
    rows of ``y_true`` (each only if given), their shapes checked."""
    n_rows, n_cols = shape
    args = []
    if sample_weight is not None:
        w = _dask_array(sample_weight, "sample_weight", da, dd)
        if w is None:
            w = as_numeric_array(sample_weight, "sample_weight")
        if w.ndim != 1 or w.shape[0] != n_rows:
            raise ValueError(f"sample_weight must be 1-D with one weight per row ({n_rows}), "
                             f"got shape {w.shape}.")
        w = da.asarray(w).rechunk((rows_chunks,))
        args.append(w[:, None])
    if judged is not None:
        j = _dask_array(judged, "judged", da, dd)
        if j is None:
            j = np.asarray(judged)
        if j.shape != (n_rows, n_cols):
            raise ValueError(f"judged must have the shape of y_true {(n_rows, n_cols)}, got "
                             f"{j.shape}.")
        args.append(da.asarray(j).rechunk((rows_chunks, (n_cols,))))
    return args


def _matrix_rows(y_true, y_score, requests, *, sample_weight, judged, ignore_ties,
                 exclude=None, where="evaluate", lazy_rows=False):
    dask, da, dd, pd = _modules()
    yt = _dask_array(y_true, "y_true", da, dd)
    ys = _dask_array(y_score, "y_score", da, dd)
    if sp.issparse(y_true):
        raise InvalidParameterError(
            "a scipy.sparse y_true cannot go with Dask inputs; pass it as a Dask array "
            "(of dense row blocks) or score it in memory."
        )
    like = yt if yt is not None else ys
    if like is None:  # only sample_weight or judged is a Dask collection
        yt = da.from_array(as_numeric_array(y_true, "y_true"))
        like = yt
    if yt is None:
        yt = da.from_array(as_numeric_array(y_true, "y_true"), chunks=like.chunks)
    if ys is None:
        ys = da.from_array(as_numeric_array(y_score, "y_score"), chunks=like.chunks)
    for arg, v in (("y_true", yt), ("y_score", ys)):
        _known(v, arg)
        if v.ndim != 2:
            raise ValueError(
                f"{arg} has {v.ndim} dimension(s) (shape {v.shape}), but a 2-D matrix of "
                "shape (n_rows, n_items) is needed: one row per query, one column per "
                "item. For long format (one entry per query-item pair) pass qid=..."
            )
        _check_numeric_dtype(v.dtype, arg)
    if yt.shape != ys.shape:
        raise ValueError(f"y_true and y_score must have the same shape, got {yt.shape} and "
                         f"{ys.shape}.")
    n_rows, n_cols = yt.shape
    if n_rows == 0:
        raise ValueError("y_true and y_score have no rows; at least one is needed.")
    if n_cols < 2:
        raise ValueError(
            f"y_true has {n_cols} item per row; ranking metrics are only meaningful with at "
            "least 2 items per row."
        )
    if len(yt.chunks[1]) > 1:  # rows split across columns: whole rows, blocks of auto size
        yt = yt.rechunk({0: "auto", 1: -1})
    rows_chunks = yt.chunks[0]
    ys = ys.rechunk((rows_chunks, (n_cols,)))
    args = [yt, ys, *_side_args(sample_weight, judged, (n_rows, n_cols), rows_chunks, da, dd)]
    has_w, has_j = sample_weight is not None, judged is not None
    mask, has_x = _exclude_arg(exclude, (n_rows, n_cols), where, da, dd)
    if has_x:  # a Dask mask: its blocks of rows beside y_true's
        args.append(mask.rechunk((rows_chunks, (n_cols,))))
        mask = None
    plan = _Plan(requests, ignore_ties=ignore_ties, kind="matrix", has_w=has_w, has_j=has_j,
                 has_x=has_x, where=where)
    width = len(plan.columns)
    out = da.map_blocks(_matrix_block, *args, plan=plan, mask=mask,
                        chunks=(rows_chunks, (width,)), dtype=np.float64,
                        meta=np.empty((0, 0)))
    if lazy_rows:
        # Results handed back lazily: through dd.from_dask_array (Dask loses
        # the blocks of frames made by dd.from_delayed when a lazy result
        # built on them is computed later).
        rows = dd.from_dask_array(out, columns=plan.columns)
        rows = rows.map_partitions(_typed_rows, plan=plan, meta=plan.rows_meta(
            pd.RangeIndex(0)))
        return rows, rows_chunks, plan
    # One frame per block, indexed by its global rows (as dd.from_dask_array
    # would, which tokenizes the whole graph: the bytes of in-memory chunks
    # hashed at every call, 50 ms for 90 MB).
    starts = np.concatenate(([0], np.cumsum(rows_chunks))).tolist()
    frames = [dask.delayed(_row_frame, pure=False)(block, a, b, plan)
              for block, a, b in zip(out.to_delayed().ravel().tolist(), starts[:-1], starts[1:])]
    rows = dd.from_delayed(frames, meta=plan.rows_meta(pd.RangeIndex(0)),
                           divisions=[*starts[:-1], starts[-1] - 1], verify_meta=False)
    return rows, rows_chunks, plan


def _exclude_arg(exclude, shape, where, da, dd):
    """``exclude`` for the blocks: ``(mask, is_dask)``.

    An in-memory mask (NumPy or scipy.sparse) is checked here, but for the
    relevant items of ``y_true``, and kept as one boolean CSR matrix whose rows
    each block slices; a Dask mask is checked for its type and shape here and
    its values in each block. The leak check (an excluded item that ``y_true``
    marks relevant) runs in each block, when the rows are computed.
    """
    if exclude is None:
        return None, False
    x = _dask_array(exclude, "exclude", da, dd)
    if x is None:
        return exclude_mask(exclude, shape, where), False
    _known(x, "exclude")
    check_exclude_type(x.dtype, x.shape, where)
    check_exclude_shape(x.shape, shape, where)
    return x, True


def _typed_rows(rows, plan):
    n = len(plan.requests)
    return rows.astype({f"d{i}": bool for i in range(n)})


def _row_frame(block, a, b, plan):
    """The row frame of the rows ``a:b`` from their block of :func:`_matrix_block`."""
    import pandas as pd

    frame = pd.DataFrame(block, columns=plan.columns, index=pd.RangeIndex(a, b))
    return _typed_rows(frame, plan)


def _check_weights(w, row0):
    """Finite, non-negative weights; the message names the global row."""
    bad = ~np.isfinite(w)
    if bad.any():
        raise ValueError("sample_weight contains NaN or infinity (first at index "
                         f"{row0 + int(flatnonzero(bad)[0])}); every weight must be a "
                         "finite number >= 0.")
    if (w < 0).any():
        i = int(flatnonzero(w < 0)[0])
        raise ValueError(f"sample_weight must be non-negative; entry {row0 + i} is "
                         f"{w[i]:g}.")


def _matrix_block(yt, ys, *extra, plan, mask=None, block_info=None):
    """The row frame (as an array) of one block of whole rows."""
    row0 = block_info[0]["array-location"][0][0] if block_info else 0
    n = yt.shape[0]
    extra = list(extra)
    w = extra.pop(0)[:, 0] if plan.has_w else None
    j = extra.pop(0) if plan.has_j else None
    if plan.has_x:
        ex = extra.pop(0)
    else:  # an in-memory mask (CSR): this block's rows
        ex = None if mask is None else mask[row0:row0 + n]
    yt = as_numeric_array(yt, "y_true", allow_sparse=True)
    ys = as_numeric_array(ys, "y_score")
    if not sp.issparse(yt):
        check_finite(yt, "y_true", row0)
    check_finite(ys, "y_score", row0, MASK_BY_EXCLUDE)
    if w is not None:
        w = as_numeric_array(w, "sample_weight").astype(np.float64)
        _check_weights(w, row0)
    with _context(f"in rows {row0} to {row0 + n - 1}"):
        inputs = check_inputs(yt, ys, None, j)
        if ex is not None:
            inputs.exclude_items(ex, plan.where)
        with one_thread():
            raw = layout_values(inputs, plan.requests, ignore_ties=plan.ignore_ties)
    return plan.rows(raw, np.arange(n), w, yt.shape[1]).to_numpy(dtype=np.float64)


def _as_series(x, arg, dd, da, like_chunks=None):
    """A 1-D Dask collection as a Dask Series or Index; in-memory data chunked
    like ``like_chunks`` (the Dask arrays' chunks), else an error."""
    if is_dask(x):
        if isinstance(x, (dd.Series, dd.Index)):
            return x
        if isinstance(x, da.Array):
            if x.ndim != 1:
                raise ValueError(f"with qid given, {arg} must be 1-D (one entry per "
                                 f"query-item pair), got shape {x.shape}.")
            if like_chunks is not None and not any(np.isnan(like_chunks)):
                x = x.rechunk((like_chunks,))
            return dd.from_dask_array(x)
        if isinstance(x, dd.DataFrame):
            raise ValueError(f"with qid given, {arg} must be 1-D (one entry per query-item "
                             "pair); pass one column of the data frame.")
        raise InvalidParameterError(f"{arg} is a {type(x).__name__}; pass a Dask array or "
                                    "Series.")
    if like_chunks is None:
        raise ValueError(
            f"{arg} is in memory while the other long-format inputs are Dask data frame "
            "columns; give every input as a column of the same Dask data frame."
        )
    return dd.from_dask_array(da.from_array(np.asarray(x), chunks=(like_chunks,)))


def _id_kind(dtype, arg):
    """``"int"`` or ``"str"``: how ids of this (meta) dtype travel through a shuffle."""
    kind = getattr(dtype, "kind", "O")
    if kind in "iuf":
        return "int"
    if kind == "b":
        raise InvalidParameterError(f"{arg} must hold ids (integers or strings), got dtype "
                                    "bool.")
    return "str"


def _ids(values, arg, kind, strict=True):
    """Ids as :func:`as_ids` reads them, in the kind chosen for the whole data.

    ``strict``: an object column that holds integers where strings were
    expected raises (a query id column of one dtype); otherwise integers
    become strings, as in memory when the other side's ids are strings.
    """
    ids = as_ids(values, arg)
    if kind == "str" and ids.dtype.kind != "U":
        if strict and np.asarray(values).dtype.kind == "O":
            raise InvalidParameterError(
                f"{arg} has dtype object and holds integers in some partitions; with Dask, "
                "give the ids one dtype (.astype(int) or .astype(str))."
            )
        ids = ids.astype(str)
    elif kind == "int" and ids.dtype.kind != "i":
        if np.asarray(values).dtype.kind == "u":
            raise InvalidParameterError(f"{arg} holds integer ids beyond the int64 range; "
                                        "give them as strings.")
        raise InvalidParameterError(f"{arg} mixes integer and string ids across the data; "
                                    "give them one type.")
    return ids


def _score_kind(dtype, arg):
    kind = getattr(dtype, "kind", "O")
    if kind == "f" and dtype.itemsize > 8:
        raise InvalidParameterError(
            f"{arg} of dtype {dtype} cannot travel through a Dask shuffle exactly; convert "
            "it to float64 (or pass its rank)."
        )
    return {"b": "bool", "i": "int", "u": "int"}.get(kind, "float")


def _scores(values, arg, kind):
    """Scores in one dtype for the whole data, without a silent loss of order."""
    s = as_numeric_array(values, arg)
    if kind == "bool":
        return s.astype(bool)
    if kind == "int":
        if s.dtype.kind == "u" and s.size and s.max() > np.iinfo(np.int64).max:
            raise InvalidParameterError(f"{arg} holds integers beyond the int64 range; "
                                        "give them as floats or rescale them.")
        return s.astype(np.int64)
    f = s.astype(np.float64)
    if s.dtype.kind in "iu" and s.size and np.abs(s).max() > 2**53:
        raise InvalidParameterError(f"{arg} mixes floats and integers beyond 2**53, which "
                                    "float64 cannot tell apart; give it one dtype.")
    return f


_SCORE_DTYPE = {"bool": bool, "int": np.int64, "float": np.float64}


def _index_route(qid, dd):
    return isinstance(qid, dd.Index) and qid.known_divisions


def _long_rows(y_true, y_score, qid, requests, *, sample_weight, judged, ignore_ties):
    _, da, dd, pd = _modules()
    chunks = None
    arrays = [(arg, x) for arg, x in (("y_true", y_true), ("y_score", y_score), ("qid", qid),
                                      ("sample_weight", sample_weight), ("judged", judged))
              if is_dask(x) and isinstance(x, da.Array)]
    if arrays and arrays[0][1].ndim == 1:
        chunks = arrays[0][1].chunks[0]
    sizes = {arg: (x.shape[0] if hasattr(x, "shape") and len(x.shape) else len(x))
             for arg, x in (("y_true", y_true), ("y_score", y_score), ("qid", qid),
                            ("judged", judged))
             if x is not None and (not is_dask(x) or isinstance(x, da.Array))}
    known = {arg: n for arg, n in sizes.items() if not np.isnan(n)}
    if len(set(known.values())) > 1:
        raise ValueError(
            "y_true, y_score and qid (and judged) must have the same length (one entry "
            "per query-item pair), got " + ", ".join(f"{arg}: {n}" for arg, n in known.items())
            + "."
        )
    if sample_weight is not None and not is_dask(sample_weight):
        n = len(sample_weight)
        if chunks is None or n != sum(chunks):
            raise ValueError(
                "with Dask inputs, sample_weight must give one weight per query-item pair, "
                "constant within a query: a Dask collection partitioned like y_true (or, "
                f"for Dask arrays, an array of their length); got {n} weights."
            )
    yt = _as_series(y_true, "y_true", dd, da, chunks)
    ys = _as_series(y_score, "y_score", dd, da, chunks)
    q = _as_series(qid, "qid", dd, da, chunks)
    extra = []
    if sample_weight is not None:
        extra.append(_as_series(sample_weight, "sample_weight", dd, da, chunks))
    if judged is not None:
        extra.append(_as_series(judged, "judged", dd, da, chunks))
    parts = [yt, ys, q, *extra]
    names = ["y_true", "y_score", "qid", *(["sample_weight"] if sample_weight is not None
                                           else []), *(["judged"] if judged is not None
                                                       else [])]
    counts = [p.npartitions for p in parts]
    if len(set(counts)) > 1:
        raise ValueError(
            "y_true, y_score and qid (and sample_weight, judged) must be partitioned alike, "
            "got " + ", ".join(f"{n}: {c} partitions" for n, c in zip(names, counts))
            + "; take them from one data frame (or chunk the arrays alike)."
        )
    for arg, s in (("y_true", yt), ("y_score", ys)):
        _check_numeric_dtype(s.dtype, arg)
    plan = _Plan(requests, ignore_ties=ignore_ties, kind="long",
                 has_w=sample_weight is not None, has_j=judged is not None,
                 qid_kind=_id_kind(q.dtype, "qid"), score_kind=_score_kind(ys.dtype, "y_score"))
    id_meta = pd.Index(_ids(np.zeros(0, dtype=np.int64 if plan.qid_kind == "int" else str),
                            "qid", plan.qid_kind), name="qid")
    meta = plan.rows_meta(id_meta)
    if _index_route(q, dd):
        divisions = q.divisions
        for arg, s in (("y_true", yt), ("y_score", ys), *zip(names[3:], extra)):
            if s.divisions != divisions:
                raise ValueError(
                    f"qid is the index of a data frame with known divisions, but {arg} is "
                    "not partitioned by it; pass columns of that data frame (or drop the "
                    "divisions, with clear_divisions(), to have the pairs shuffled by qid)."
                )
        rows = dd.map_partitions(_score_by_index, *parts, plan=plan, divisions=divisions,
                                 meta=meta, align_dataframes=False)
        return rows, plan
    pairs_meta = pd.DataFrame({
        "y_true": np.zeros(0), "y_score": np.zeros(0, dtype=_SCORE_DTYPE[plan.score_kind]),
        "qid": pd.Series(id_meta.to_numpy()),
        **({"w": np.zeros(0)} if plan.has_w else {}),
        **({"judged": np.zeros(0, dtype=bool)} if plan.has_j else {}),
        **({"at": np.zeros(0, dtype=np.int64)} if plan.ignore_ties else {}),
    })
    pairs = dd.map_partitions(_checked_pairs, *parts, plan=plan, meta=pairs_meta,
                              align_dataframes=False, clear_divisions=True)
    pairs = pairs.shuffle(on="qid", npartitions=pairs.npartitions)
    rows = pairs.map_partitions(_score_pairs, plan=plan, meta=meta, clear_divisions=True)
    return rows, plan


def _as_numpy(x):
    return x.to_numpy() if hasattr(x, "to_numpy") else np.asarray(x)


def _split_parts(parts, plan, where):
    yt, ys, q, *extra = parts
    n = len(yt)
    lengths = [len(p) for p in parts]
    if len(set(lengths)) > 1:
        raise ValueError(
            "y_true, y_score and qid (and sample_weight, judged) have different lengths "
            f"{where} ({', '.join(map(str, lengths))}); they must be partitioned alike, "
            "one entry per query-item pair."
        )
    w = _as_numpy(extra[0]) if plan.has_w else None
    j = _as_numpy(extra[-1]) if plan.has_j else None
    return _as_numpy(yt), _as_numpy(ys), _as_numpy(q), w, j, n


def _checked_pairs(*parts, plan, partition_info=None):
    """One input partition as a frame of checked pairs, ready for the shuffle."""
    import pandas as pd

    where = _in_partition(partition_info)
    yt, ys, q, w, j, _ = _split_parts(parts, plan, where)
    with _context(where):
        yt = as_numeric_array(yt, "y_true")
        check_finite(yt, "y_true")
        ys = _scores(ys, "y_score", plan.score_kind)
        check_finite(ys, "y_score", masked=MASK_BY_OMISSION)
        data = {"y_true": yt.astype(np.float64), "y_score": ys,
                "qid": _ids(q, "qid", plan.qid_kind)}
        if w is not None:
            w = as_numeric_array(w, "sample_weight").astype(np.float64)
            _check_weights(w, 0)
            data["w"] = w
        if j is not None:
            data["judged"] = _judged(j)
        if plan.ignore_ties:
            # Each pair's place in the input (partition, then row): the shuffle
            # need not keep the order of a query's pairs, which ignore_ties
            # reads (of tied scores, the later pair first).
            number = _part_number(partition_info)
            if number is None:
                raise RuntimeError("dask did not say which partition this is; "
                                   "ignore_ties=True needs the order of the pairs.")
            data["at"] = (np.int64(number) << np.int64(_AT_BITS)) + np.arange(len(yt))
    return pd.DataFrame(data)


#: Bits of a pair's row within its partition in the key ``at`` (partitions of
#: up to 2**40 pairs, 2**23 partitions).
_AT_BITS = 40


def _judged(j):
    mask = as_numeric_array(j, "judged")
    if mask.dtype.kind != "b":
        if not np.isin(mask, (0, 1)).all():
            raise InvalidParameterError("judged must hold True/False (or 1/0), one per entry "
                                        "of y_true.")
        mask = mask.astype(bool)
    return mask


def _score_pairs(pairs, plan, partition_info=None):
    """The row frame of one shuffled partition (whole queries)."""
    if plan.ignore_ties:  # the pairs back in input order
        pairs = pairs.iloc[np.argsort(pairs["at"].to_numpy(), kind="stable")]
    w = pairs["w"].to_numpy() if plan.has_w else None
    j = pairs["judged"].to_numpy() if plan.has_j else None
    return _score_long(pairs["y_true"].to_numpy(), pairs["y_score"].to_numpy(),
                       _ids(pairs["qid"].to_numpy(), "qid", plan.qid_kind), w, j, plan,
                       f"{_in_partition(partition_info)} after the shuffle by qid")


def _score_by_index(*parts, plan, divisions, partition_info=None):
    """The row frame of one partition that holds whole queries, as its divisions say."""
    number = _part_number(partition_info)
    where = _in_partition(partition_info)
    yt, ys, q, w, j, _ = _split_parts(parts, plan, where)
    q = _ids(q, "qid", plan.qid_kind)
    if number is not None and q.size:
        lo, hi = divisions[number], divisions[number + 1]
        last = number == len(divisions) - 2
        outside = (q < lo) | ((q > hi) if last else (q >= hi))
        if outside.any():
            bad = q[flatnonzero(outside)[0]]
            raise ValueError(
                f"qid: partition {number} holds query {_show(bad)}, outside its divisions "
                f"[{_show(lo)}, {_show(hi)}{']' if last else ')'}: the data are not "
                "partitioned by "
                "qid as the divisions of its index say, so a query could be split between "
                "partitions. Rebuild the index with set_index('qid'), or drop the "
                "divisions (clear_divisions()) to have the pairs shuffled by qid."
            )
    if w is not None:
        w = as_numeric_array(w, "sample_weight").astype(np.float64)
        with _context(where):
            _check_weights(w, 0)
    if j is not None:
        j = _judged(j)
    return _score_long(yt, ys, q, w, j, plan, where)


def _show(x):
    return repr(x.item() if isinstance(x, np.generic) else x)


def _fresh_id(q):
    """An id that is not in ``q`` (int64 or str)."""
    if q.dtype.kind == "U":
        return q[int(np.argmax(np.char.str_len(q)))] + "~"
    hi, lo = int(q.max()), int(q.min())
    if hi < np.iinfo(np.int64).max:
        return hi + 1
    if lo > np.iinfo(np.int64).min:
        return lo - 1
    u = unique(q)
    return int(u[flatnonzero(np.diff(u) > 1)[0]] + 1)


def _score_long(yt, ys, q, w, j, plan, where):
    """Per-query rows of one partition of whole queries, by the in-memory engine."""
    import pandas as pd

    index_meta = pd.Index(q[:0], name="qid")
    if q.shape[0] == 0:
        return plan.rows_meta(index_meta)
    dummy = None
    with _context(where):
        try:
            inputs = check_inputs(yt, ys, q, j)
        except ValueError:
            if unique(q).size != q.size:
                raise
            # Every query of this partition has one item, which the in-memory
            # check refuses (rightly, for the whole data); a query of two items
            # with a fresh id keeps the engine going and is dropped after.
            dummy = _fresh_id(q)
            yt = np.append(np.asarray(yt, dtype=np.float64), [0.0, 0.0])
            ys = np.append(ys, np.zeros(2, dtype=np.asarray(ys).dtype))
            q = np.append(q, [dummy, dummy])
            w = None if w is None else np.append(w, [1.0, 1.0])
            j = None if j is None else np.append(j, [True, True])
            inputs = check_inputs(yt, ys, q, j)
        weights = inputs.query_weights(w)
        with one_thread():
            raw = layout_values(inputs, plan.requests, ignore_ties=plan.ignore_ties)
    n_items = np.empty(inputs.n_rows)
    n_items[inputs.row_of_group] = inputs.counts
    rows = plan.rows(raw, pd.Index(inputs.query_ids, name="qid"), weights, n_items)
    if dummy is not None:
        rows = rows[rows.index != dummy]
    return rows
