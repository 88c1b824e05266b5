"""Dask inputs: the same kernels on the partitions of Dask collections.

Every public entry point hands Dask inputs here; :func:`is_dask` tells
without importing Dask (an object can only be a Dask collection once Dask
is imported), so nothing imports Dask unless a Dask object is passed.

Nothing is re-implemented. Each partition of whole rows or whole queries
becomes an in-memory input (a matrix block, a long-format partition, an
in-memory :func:`~sk_rankmetrics.evaluate_run` or a pre-ranked layout), is
scored by the engine and kernels, and yields a *row frame*: one row per row
(query, user) of the data, with each metric's clipped value ``v{i}``, whether
it is defined ``d{i}`` (the row has a relevant item), the row's weight
``w`` and its number of items ``n``. From the row frames, a tree reduction
adds up the sums of :mod:`._reduce` (:func:`~._reduce.partial` per
partition, :func:`~._reduce.combine` by groups, :func:`~._reduce.finish`
at the end): no process ever holds the per-row values of every partition.

The routes to whole rows and whole queries:

- matrices (``dask.array``): blocks of whole rows; a chunking that splits
  rows across columns is rechunked;
- long format: the pairs are gathered by query with a hash shuffle on
  ``qid``; when ``qid`` is the index of a data frame with known divisions
  (``df.index`` after ``set_index("qid")``), each partition holds whole
  queries already and is scored where it is, each row checked against its
  partition's divisions (a row outside them raises);
- runs and ID lists: the run and the qrels (the lists and the truth) are
  shuffled together on the query (user) id, so that one partition holds
  every line of its queries; the join on (query, document) then happens in
  memory, partition by partition.
"""

from __future__ import annotations

import os
from contextlib import contextmanager
from operator import itemgetter

import numpy as np
import scipy.sparse as sp

from ._engine import compute as engine_compute
from ._engine import one_thread
from ._inputs import check_inputs
from ._reduce import PARTIAL_FIELDS, combine, finish, how_of, partial, policy_values
from ._runs import (
    _ITEM_COLS,
    _QUERY_COLS,
    _REL_COLS,
    _SCORE_COLS,
    EvaluationResult,
    _as_qrels,
    _as_run,
    _run_requests,
    _with_options,
)
from ._runs import evaluate_run as evaluate_in_memory
from ._trec import TrecQrels, TrecRun
from ._validation import (
    InvalidParameterError,
    as_ids,
    as_numeric_array,
    check_finite,
    is_dask,
    quiet,
    unique,
    warn,
)


def _modules():
    try:
        import dask
        import dask.array as da
        import dask.dataframe as dd
        import pandas as pd
    except ImportError as exc:  # pragma: no cover - the extra installs them
        raise ImportError(
            f"Dask inputs need dask.array, dask.dataframe and pandas ({exc}); install "
            "them with: pip install 'sk_rankmetrics[dask]'."
        ) from exc
    return dask, da, dd, pd


@contextmanager
def _context(where):
    """Add where it happened to the message of an error raised inside a partition."""
    try:
        yield
    except ValueError as exc:  # InvalidParameterError too
        if exc.args and isinstance(exc.args[0], str):
            exc.args = (f"{exc.args[0]} ({where})", *exc.args[1:])
        raise


def _part_number(partition_info):
    return None if partition_info is None else partition_info.get("number")


def _in_partition(partition_info):
    number = _part_number(partition_info)
    return "in a partition" if number is None else f"in partition {number}"


# -- the plan: what every partition computes ----------------------------------------


class _Plan:
    """The requests and options shipped to every partition (pickled once per task)."""

    def __init__(self, requests, *, ignore_ties=False, kind="matrix", **extra):
        self.requests = list(requests)
        self.labels = [r.label for r in self.requests]
        self.ignore_ties = ignore_ties
        self.kind = kind
        #: the ``no_relevant`` policy applies to normalised metrics only
        self.policy_applies = [r.spec.normalized for r in self.requests]
        self.how = [how_of(r) for r in self.requests]
        self.__dict__.update(extra)

    @property
    def columns(self):
        n = len(self.requests)
        return [f"v{i}" for i in range(n)] + [f"d{i}" for i in range(n)] + ["w", "n"]

    def rows_meta(self, index):
        import pandas as pd

        n = len(self.requests)
        data = {f"v{i}": np.zeros(0) for i in range(n)}
        data.update({f"d{i}": np.zeros(0, dtype=bool) for i in range(n)})
        data.update(w=np.zeros(0), n=np.zeros(0))
        return pd.DataFrame(data, index=index)

    def rows(self, raw, index, weights, n_items):
        """The row frame of one partition from the engine's ``raw`` output."""
        import pandas as pd

        data = {}
        for i, req in enumerate(self.requests):
            values = raw[req.label][0]
            if req.spec.normalized:
                np.clip(values, 0.0, 1.0, out=values)
            data[f"v{i}"] = values
        for i, req in enumerate(self.requests):
            data[f"d{i}"] = np.asarray(raw[req.label][1], dtype=bool)
        n = len(index)
        data["w"] = np.ones(n) if weights is None else np.asarray(weights, dtype=np.float64)
        data["n"] = np.broadcast_to(np.asarray(n_items, dtype=np.float64), (n,)).copy()
        return pd.DataFrame(data, index=index)


# -- the tree reduction ----------------------------------------------------------------


_EXTRA = ("max_items", "items")


def _partial_names(n):
    return [f"{i}.{f}" for i in range(n) for f in PARTIAL_FIELDS] + list(_EXTRA)


def _chunk(rows, plan, policy):
    """One partition's sums (a Series over :func:`_partial_names`)."""
    import pandas as pd

    parts = []
    w = rows["w"].to_numpy(dtype=np.float64)
    for i, applies in enumerate(plan.policy_applies):
        v = rows[f"v{i}"].to_numpy(dtype=np.float64)
        d = rows[f"d{i}"].to_numpy(dtype=bool)
        parts.append(partial(v, d, w, policy if applies else None, plan.how[i]))
    n = rows["n"].to_numpy(dtype=np.float64)
    extra = [n.max() if n.size else 0.0, n.sum()]
    return pd.Series(np.concatenate([*parts, np.array(extra)]),
                     index=_partial_names(len(plan.requests)))


def _combine(frame):
    """Combine partitions' sums (one row each) into one Series."""
    import pandas as pd

    a = frame.to_numpy(dtype=np.float64)
    k = len(PARTIAL_FIELDS)
    n_req = (a.shape[1] - len(_EXTRA)) // k
    parts = [combine(a[:, i * k:(i + 1) * k]) for i in range(n_req)]
    extra = [a[:, -2].max() if a.shape[0] else 0.0, a[:, -1].sum()]
    return pd.Series(np.concatenate([*parts, np.array(extra)]), index=frame.columns)


def _finish(sums, plan, policy):
    """The means from the combined sums, with the in-memory warnings and errors."""
    a = np.asarray(sums, dtype=np.float64)
    k = len(PARTIAL_FIELDS)
    if plan.kind == "long":
        rows, max_items, items = a[0], a[-2], a[-1]
        if rows == 0:
            raise ValueError("y_true, y_score and qid are empty; at least one pair is "
                             "needed.")
        if max_items < 2:
            raise ValueError(
                f"every query has a single item ({int(rows)} queries, {int(items)} pairs); "
                "ranking metrics are only meaningful when queries have at least 2 items."
            )
    elif plan.kind in ("run", "ranked") and a[0] == 0:
        what = plan.what
        raise ValueError(f"no {what} has both a ranking and judgements; check that the "
                         f"{what} ids of the ranking and of the truth match.")
    out = {}
    for i, label in enumerate(plan.labels):
        p = plan.policy_applies[i]
        out[label] = finish(a[i * k:(i + 1) * k], label, policy if p else None, plan.how[i])
    return out


def _reduction(rows, plan, policy):
    import pandas as pd

    return rows.reduction(
        _chunk, aggregate=_combine, combine=_combine,
        meta=pd.Series(np.zeros(0)), chunk_kwargs={"plan": plan, "policy": policy},
    )


def _policy_frame(rows, plan, policy):
    """Per-row values under the policy, one column per metric (NaN: skipped)."""
    import pandas as pd

    data = {}
    for i, label in enumerate(plan.labels):
        v = rows[f"v{i}"].to_numpy(dtype=np.float64)
        d = rows[f"d{i}"].to_numpy(dtype=bool)
        data[label] = policy_values(v, d, policy if plan.policy_applies[i] else None)[0]
    return pd.DataFrame(data, index=rows.index)


def _sorted_ids(index):
    """Query ids of a computed row frame as this package returns them (int64 or str)."""
    values = index.to_numpy()
    if values.dtype.kind == "O":
        return as_ids(values, "the query ids")
    return values


class _Done:
    """The last step: the runs' overlap check, then the means (sent to a worker
    when the result is lazy, so a picklable object rather than a closure)."""

    def __init__(self, plan, policy, check=None):
        self.plan, self.policy, self.check = plan, policy, check

    def __call__(self, sums, extra=None):
        if self.check is not None:
            self.check(extra)
        return _finish(sums, self.plan, self.policy)


def _finished(sums, extra=None, *, done):
    import pandas as pd

    return pd.Series(done(sums, extra), dtype=np.float64)


def _pick(means, label):
    # Dask also calls this on an empty Series, to learn the type of the result.
    return means[label] if label in means.index else np.float64("nan")


def _first(values):
    return values.iloc[0]


def _results(rows, plan, policy, *, per_row, compute, by_query, lengths=None,
             extra=None, check=None):
    """Means (and per-row values) from a row frame, computed or lazy.

    ``extra`` is another lazy reduction computed along (the runs' overlap
    counts) and ``check(extra)`` its warnings and errors, run before the means
    are finished. Computed: ``means`` or, with ``per_row``, ``(values, means,
    ids)``. Lazy: Dask scalars (0-d Dask arrays for matrices, as dask.array
    users compute them; Dask data frame scalars otherwise, so that they
    compute together with the per-query Series) and ``(values, means,
    frame)``.
    """
    dask, da, dd, pd = _modules()
    sums = _reduction(rows, plan, policy)
    done = _Done(plan, policy, check)
    reductions = [sums] if extra is None else [sums, extra]
    values = None
    if per_row:
        values = rows.map_partitions(
            _policy_frame, plan=plan, policy=policy,
            meta=pd.DataFrame({label: np.zeros(0) for label in plan.labels},
                              index=rows._meta.index))
    if compute:
        got = dask.compute(*reductions, *([values] if per_row else []))
        means = done(*got[:len(reductions)])
        if not per_row:
            return means
        frame = got[-1]
        if not by_query:
            return {label: frame[label].to_numpy() for label in plan.labels}, means, None
        ids = _sorted_ids(frame.index)
        order = np.argsort(ids, kind="stable")
        return ({label: frame[label].to_numpy()[order] for label in plan.labels}, means,
                ids[order])
    if by_query:
        finished = dd.map_partitions(_finished, *reductions, done=done,
                                     meta=pd.Series(np.zeros(0)), align_dataframes=False)
        means = {label: finished.reduction(_pick, aggregate=_first,
                                           chunk_kwargs={"label": label},
                                           meta=np.float64(0.0))
                 for label in plan.labels}
    else:
        lazy = dask.delayed(done, pure=True)(*reductions)
        means = {label: da.from_delayed(lazy[label], shape=(), dtype=np.float64)
                 for label in plan.labels}
    if not per_row:
        return means
    if by_query:
        if not values.known_divisions:
            values = values.reset_index().set_index(values._meta.index.name)
        return {label: values[label] for label in plan.labels}, means, values
    return ({label: values[label].to_dask_array(lengths=lengths) for label in plan.labels},
            means, None)


# -- metric functions: matrices and long format ------------------------------------------


def run(y_true, y_score, requests, *, sample_weight, ignore_ties, no_relevant, qid,
        per_row, judged, compute):
    """:func:`sk_rankmetrics._ranking._run` for Dask inputs."""
    if qid is None:
        rows, lengths, plan = _matrix_rows(y_true, y_score, requests, sample_weight=sample_weight,
                                           judged=judged, ignore_ties=ignore_ties)
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


def _matrix_rows(y_true, y_score, requests, *, sample_weight, judged, ignore_ties):
    _, da, dd, pd = _modules()
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
    args = [yt, ys]
    has_w = sample_weight is not None
    if has_w:
        w = _dask_array(sample_weight, "sample_weight", da, dd)
        if w is None:
            w = as_numeric_array(sample_weight, "sample_weight")
        if w.ndim != 1 or w.shape[0] != n_rows:
            raise ValueError(f"sample_weight must be 1-D with one weight per row ({n_rows}), "
                             f"got shape {w.shape}.")
        w = da.asarray(w).rechunk((rows_chunks,))
        args.append(w[:, None])
    has_j = judged is not None
    if has_j:
        j = _dask_array(judged, "judged", da, dd)
        if j is None:
            j = np.asarray(judged)
        if j.shape != (n_rows, n_cols):
            raise ValueError(f"judged must have the shape of y_true {(n_rows, n_cols)}, got "
                             f"{j.shape}.")
        args.append(da.asarray(j).rechunk((rows_chunks, (n_cols,))))
    plan = _Plan(requests, ignore_ties=ignore_ties, kind="matrix", has_w=has_w, has_j=has_j)
    width = len(plan.columns)
    out = da.map_blocks(_matrix_block, *args, plan=plan, chunks=(rows_chunks, (width,)),
                        dtype=np.float64, meta=np.empty((0, 0)))
    rows = dd.from_dask_array(out, columns=plan.columns)
    rows = rows.map_partitions(_typed_rows, plan=plan, meta=plan.rows_meta(
        pd.RangeIndex(0)))
    return rows, rows_chunks, plan


def _typed_rows(rows, plan):
    n = len(plan.requests)
    return rows.astype({f"d{i}": bool for i in range(n)})


def _check_weights(w, row0):
    """Finite, non-negative weights; the message names the global row."""
    bad = ~np.isfinite(w)
    if bad.any():
        raise ValueError("sample_weight contains NaN or infinity (first at index "
                         f"{row0 + int(np.flatnonzero(bad)[0])}); every weight must be a "
                         "finite number >= 0.")
    if (w < 0).any():
        i = int(np.flatnonzero(w < 0)[0])
        raise ValueError(f"sample_weight must be non-negative; entry {row0 + i} is "
                         f"{w[i]:g}.")


def _matrix_block(yt, ys, *extra, plan, block_info=None):
    """The row frame (as an array) of one block of whole rows."""
    row0 = block_info[0]["array-location"][0][0] if block_info else 0
    n = yt.shape[0]
    w = extra[0][:, 0] if plan.has_w else None
    j = extra[-1] if plan.has_j else None
    yt = as_numeric_array(yt, "y_true", allow_sparse=True)
    ys = as_numeric_array(ys, "y_score")
    if not sp.issparse(yt):
        check_finite(yt, "y_true", row0)
    check_finite(ys, "y_score", row0)
    if w is not None:
        w = as_numeric_array(w, "sample_weight").astype(np.float64)
        _check_weights(w, row0)
    with _context(f"in rows {row0} to {row0 + n - 1}"):
        inputs = check_inputs(yt, ys, None, j)
        with one_thread():
            raw = engine_compute(inputs, plan.requests, ignore_ties=plan.ignore_ties)
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
    })
    pairs = dd.map_partitions(_pairs, *parts, plan=plan, meta=pairs_meta,
                              align_dataframes=False, clear_divisions=True)
    pairs = pairs.shuffle(on="qid", npartitions=pairs.npartitions)
    rows = pairs.map_partitions(_score_pairs, plan=plan, meta=meta, clear_divisions=True)
    return rows, plan


def _values(x):
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
    w = _values(extra[0]) if plan.has_w else None
    j = _values(extra[-1]) if plan.has_j else None
    return _values(yt), _values(ys), _values(q), w, j, n


def _pairs(*parts, plan, partition_info=None):
    """One input partition as a frame of checked pairs, ready for the shuffle."""
    import pandas as pd

    where = _in_partition(partition_info)
    yt, ys, q, w, j, _ = _split_parts(parts, plan, where)
    with _context(where):
        yt = as_numeric_array(yt, "y_true")
        check_finite(yt, "y_true")
        ys = _scores(ys, "y_score", plan.score_kind)
        check_finite(ys, "y_score")
        data = {"y_true": yt.astype(np.float64), "y_score": ys,
                "qid": _ids(q, "qid", plan.qid_kind)}
        if w is not None:
            w = as_numeric_array(w, "sample_weight").astype(np.float64)
            _check_weights(w, 0)
            data["w"] = w
        if j is not None:
            data["judged"] = _judged(j)
    return pd.DataFrame(data)


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
            bad = q[np.flatnonzero(outside)[0]]
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
    return int(u[np.flatnonzero(np.diff(u) > 1)[0]] + 1)


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
            raw = engine_compute(inputs, plan.requests, ignore_ties=plan.ignore_ties)
    n_items = np.empty(inputs.n_rows)
    n_items[inputs.row_of_group] = inputs.counts
    rows = plan.rows(raw, pd.Index(inputs.query_ids, name="qid"), weights, n_items)
    if dummy is not None:
        rows = rows[rows.index != dummy]
    return rows


# -- runs and ID lists -------------------------------------------------------------------


def _no_progress(progress, where):
    if progress is not None:
        raise InvalidParameterError(
            f"{where}: progress is not used with Dask inputs; follow the computation with "
            "Dask's own progress bar (dask.diagnostics.ProgressBar) or the distributed "
            "dashboard."
        )


def _common_kind(*dtypes):
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
        obj = _as_run(x, fmt) if side == "run" else _as_qrels(x, fmt)
        value = obj.score if side == "run" else obj.relevance
        frame = dd.from_pandas(pd.DataFrame({"qid": obj.qid, "docno": obj.docno,
                                             value_names[0]: value}), npartitions=1)
    cols = (_find_column(frame.columns, _QUERY_COLS, "query", side),
            _find_column(frame.columns, _ITEM_COLS, "item", side),
            _find_column(frame.columns, value_names, value_what, side))
    return frame, cols


def _side(part, cols, code, kinds, what, partition_info=None):
    """One partition of a run (``code`` 0) or qrels (1) in the shared layout."""
    import pandas as pd

    with _context(f"{what} {_in_partition(partition_info)}"):
        qid = _ids(part[cols[0]].to_numpy(), f"the {what}'s query ids", kinds[0])
        doc = _ids(part[cols[1]].to_numpy(), f"the {what}'s item ids", kinds[1])
        arg = f"the {what}'s {'relevance' if code else 'score'} column"
        value = as_numeric_array(part[cols[2]], arg)
        check_finite(value, arg)
    return pd.DataFrame({"qid": qid, "docno": doc, "value": value.astype(np.float64),
                         "list": np.zeros(len(qid), dtype=np.int64),
                         "kind": np.full(len(qid), code, dtype=np.int8)})


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
    qid = _ids(part["qid"].to_numpy(), "qid", kinds[0])
    doc = _ids(part["docno"].to_numpy(), "docno", kinds[1])
    return kind, qid, doc, part["value"].to_numpy(dtype=np.float64), part["list"].to_numpy()


def _top3(values):
    return np.unique(values)[:3].tolist()


def _overlap_stats(part, kinds):
    """The counts behind the in-memory overlap warnings, for one partition."""
    import pandas as pd

    kind, qid, doc, _, _ = _split(part, kinds)
    ranked, judged = kind == 0, kind != 0
    run_q, truth_q = unique(qid[ranked]), unique(qid[judged])
    missing_truth = np.setdiff1d(run_q, truth_q, assume_unique=True)
    missing_run = np.setdiff1d(truth_q, run_q, assume_unique=True)
    items = kind == 1  # truth lines that name an item (not a user's empty set)
    found = bool(pd.Index(doc[items]).isin(doc[ranked]).any()) if items.any() else False
    return pd.Series({
        "lines": int(ranked.sum()), "truth_lines": int(items.sum()),
        "run_q": run_q.size, "truth_q": truth_q.size,
        "common": run_q.size - missing_truth.size,
        "missing_truth": missing_truth.size, "missing_run": missing_run.size,
        "found": found,
        "ex_run_q": _top3(run_q), "ex_truth_q": _top3(truth_q),
        "ex_missing_truth": missing_truth[:3].tolist(),
        "ex_missing_run": missing_run[:3].tolist(),
        "ex_ranked": _top3(doc[ranked]), "ex_judged": _top3(doc[items]),
    }, dtype=object)


def _overlap_combine(frame):
    import pandas as pd

    out = {}
    for col in frame.columns:
        values = frame[col].tolist()
        if col.startswith("ex_"):
            merged = sorted(set().union(*map(tuple, values))) if values else []
            out[col] = merged[:3]
        elif col == "found":
            out[col] = any(values)
        else:
            out[col] = int(sum(values))
    return pd.Series(out, dtype=object)


def _overlap_reduction(both, kinds):
    import pandas as pd

    return both.reduction(_overlap_stats, aggregate=_overlap_combine,
                          combine=_overlap_combine, chunk_kwargs={"kinds": kinds},
                          meta=pd.Series([], dtype=object))


def _examples(ids, count):
    return ", ".join(map(repr, ids)) + (", ..." if count > len(ids) else "")


def _check_overlap(stats, *, queries, what, complete, run_empty_message=None):
    """The in-memory checks of the run and truth ids, on the whole data's counts
    (the messages of :func:`sk_rankmetrics._inputs._check_overlap`)."""
    from ._inputs import _plural

    s = {k: stats[k] for k in stats.index}
    if run_empty_message and s["lines"] == 0 and not complete:
        raise ValueError(run_empty_message)
    if s["truth_q"] and s["common"] == 0:
        raise ValueError(
            f"no {what} of the ranking has judgements: the ranking's ids "
            f"({_examples(s['ex_run_q'], s['run_q'])}) and the truth's "
            f"({_examples(s['ex_truth_q'], s['truth_q'])}) have none in common. Check that "
            "both use the same ids (and the same type: 1 and '1' match, 1 and 'q1' do not)."
        )
    notes = []
    if s["missing_truth"]:
        fate = "score as having no relevant item" if queries == "run" else "are left out"
        notes.append(f"{s['missing_truth']} of {s['run_q']} {_plural(what)} of the ranking "
                     "have no judgements "
                     f"({_examples(s['ex_missing_truth'], s['missing_truth'])}) and {fate}")
    if s["missing_run"] and queries != "truth":
        notes.append(f"{s['missing_run']} of {s['truth_q']} judged {_plural(what)} are not in "
                     f"the ranking ({_examples(s['ex_missing_run'], s['missing_run'])}) and "
                     "are left out (complete=True scores them 0)")
    if notes:
        warn("; ".join(notes) + ".", UserWarning)
    if s["truth_lines"] and s["lines"] and not s["found"]:
        warn(
            "no ranked item appears in the truth (ranked ids such as "
            f"{_examples(s['ex_ranked'], 4)}, judged ids such as "
            f"{_examples(s['ex_judged'], 4)}): every {what} scores as if nothing relevant "
            "was ranked. Check that both use the same item ids.", UserWarning,
        )


class _Check:
    """The overlap check, as a picklable callable for the lazy result."""

    def __init__(self, **kwargs):
        self.kwargs = kwargs

    def __call__(self, stats):
        _check_overlap(stats, **self.kwargs)


def _raw_from_result(res, plan):
    """``raw`` as the engine gives it, from an in-memory result scored with
    ``no_relevant="skip"`` (NaN marks the rows without a relevant item)."""
    raw = {}
    for label in plan.labels:
        v = np.asarray(res.per_query[label], dtype=np.float64)
        raw[label] = (v.copy(), ~np.isnan(v))
    return raw


def evaluate_run(qrels, run, metrics, *, setting, complete, threshold, gains, max_docs,
                 judged_only, n_docs, no_relevant, qrels_format, run_format, progress,
                 compute):
    """:func:`sk_rankmetrics.evaluate_run` for Dask data frames."""

    _, _, dd, pd = _modules()
    _no_progress(progress, "evaluate_run")
    trec = setting == "trec_eval"
    requests = _run_requests(metrics, trec, np.zeros(0), threshold=threshold, gains=gains,
                             max_docs=max_docs, judged_only=judged_only, n_docs=n_docs)
    policy = (0.0 if trec else "warn") if no_relevant is None else no_relevant
    q, qcols = _long_frame(qrels, "qrels", dd, pd, _REL_COLS, "relevance", qrels_format)
    r, rcols = _long_frame(run, "run", dd, pd, _SCORE_COLS, "score", run_format)
    kinds = (_common_kind(q[qcols[0]].dtype, r[rcols[0]].dtype),
             _common_kind(q[qcols[1]].dtype, r[rcols[1]].dtype))
    meta = _shared_meta(kinds)
    sides = [r.map_partitions(_side, cols=rcols, code=0, kinds=kinds, what="run", meta=meta),
             q.map_partitions(_side, cols=qcols, code=1, kinds=kinds, what="qrels",
                              meta=meta)]
    both = _together(sides, kinds, dd)
    options = {"metrics": metrics, "setting": setting, "complete": complete,
               "threshold": threshold, "gains": gains, "max_docs": max_docs,
               "judged_only": judged_only, "n_docs": n_docs}
    plan = _Plan(requests, kind="run", what="query", options=options, kinds=kinds)
    rows = both.map_partitions(_score_run, plan=plan,
                               meta=plan.rows_meta(pd.Index(meta["qid"], name="query")))
    check = _Check(queries="truth" if complete else "both", what="query", complete=complete,
                   run_empty_message="the run is empty; it must rank at least one document.")
    return _evaluation(rows, plan, policy, compute, _overlap_reduction(both, kinds), check)


def _score_run(part, plan, partition_info=None):
    """Per-query rows of one partition: an in-memory evaluate_run of its queries."""
    import pandas as pd

    complete = plan.options["complete"]
    kind, qid, doc, value, _ = _split(part, plan.kinds)
    ranked = kind == 0
    rq, rd, rs = qid[ranked], doc[ranked], value[ranked]
    tq, td, tr = qid[~ranked], doc[~ranked], value[~ranked]
    keep = np.isin(rq, tq)  # queries without judgements are left out
    rq, rd, rs = rq[keep], rd[keep], rs[keep]
    if not complete:  # judged queries without a ranking are left out
        keep = np.isin(tq, rq)
        tq, td, tr = tq[keep], td[keep], tr[keep]
    index = pd.Index(tq[:0], name="query")
    if tq.size == 0:
        return plan.rows_meta(index)
    dummy = None
    if rq.size == 0:
        # Only judged queries without a ranking (complete=True): the in-memory
        # function refuses a run that shares no query with the qrels, so one
        # query with a fresh id is added on both sides and dropped after.
        dummy = _fresh_id(tq)
        rq, rd, rs = np.array([dummy]), td[:1], np.zeros(1)
        tq, td, tr = np.append(tq, dummy), np.append(td, td[:1]), np.append(tr, 1.0)
    with quiet(), one_thread(), _context(_in_partition(partition_info)
                                         + " after the shuffle by query"):
        res = evaluate_in_memory(TrecQrels(tq, td, tr), TrecRun(rq, rd, rs),
                                 **plan.options, no_relevant="skip")
    rows = plan.rows(_raw_from_result(res, plan), pd.Index(res.query_ids, name="query"),
                     None, 0.0)
    if dummy is not None:
        rows = rows[rows.index != dummy]
    return rows


def _evaluation(rows, plan, policy, compute, stats, check):
    """An :class:`EvaluationResult` (or its lazy form) from per-query rows."""
    values, means, ids = _results(rows, plan, policy, per_row=True, compute=compute,
                                  by_query=True, extra=stats, check=check)
    if compute:
        return EvaluationResult(ids, values, means)
    return LazyEvaluationResult(ids, means)


class LazyEvaluationResult(EvaluationResult):
    """Per-query values and means of several metrics, not computed yet (Dask).

    What :func:`~sk_rankmetrics.evaluate_run` and
    :func:`~sk_rankmetrics.evaluate_ranked` return for Dask inputs with
    ``compute=False``: ``per_query[name]`` is a Dask Series indexed by query
    id (sorted), ``mean[name]`` a 0-d Dask array. :meth:`compute` computes
    them together and returns the :class:`~sk_rankmetrics.EvaluationResult`.
    """

    def __init__(self, frame, mean):
        self._frame = frame
        super().__init__(frame.index, {c: frame[c] for c in frame.columns}, mean)

    def __repr__(self):
        return f"LazyEvaluationResult({', '.join(self.metrics)}; not computed)"

    def to_frame(self):
        """The per-query values as a Dask DataFrame (one column per metric)."""
        return self._frame

    def compute(self, **kwargs):
        """Compute the values and the means together (``kwargs`` go to
        ``dask.compute``) and return the :class:`EvaluationResult`."""
        import dask

        frame, mean = dask.compute(self._frame, self.mean, **kwargs)
        ids = _sorted_ids(frame.index)
        return EvaluationResult(ids, {c: frame[c].to_numpy() for c in frame.columns},
                                {k: float(v) for k, v in mean.items()})


#: Column names of a rank (1 = best) in a long data frame of ranked lists.
_RANK_COLS = ("rank", "position", "pos")


def evaluate_ranked(recommended, truth, metrics, *, k, users, complete, threshold,
                    no_relevant, progress, compute, run_format="auto", qrels_format="auto"):
    """:func:`sk_rankmetrics.evaluate_ranked` for a Dask bag or data frame."""
    _, _, dd, pd = _modules()
    _no_progress(progress, "evaluate_ranked")
    if users is not None:
        raise InvalidParameterError(
            "evaluate_ranked: users cannot be given with Dask inputs; the user ids come "
            "with the lists ((user, ids) pairs in a bag, or a user column)."
        )
    requests = _with_options(metrics, k, where="evaluate_ranked",
                             given={"threshold": ("threshold", threshold, threshold)})
    rec_kinds, rec_frame = _lists_side(recommended, dd, run_format)
    tru_kinds, tru_frame = _truth_side(truth, dd, pd, qrels_format)
    kinds = (_common_kind(rec_kinds[0], tru_kinds[0]),
             _common_kind(*(k for k in (rec_kinds[1], tru_kinds[1]) if k is not None)))
    meta = _shared_meta(kinds)
    both = _together([rec_frame(kinds, meta), tru_frame(kinds, meta)], kinds, dd)
    plan = _Plan(requests, kind="ranked", what="user", complete=complete, kinds=kinds)
    rows = both.map_partitions(_score_ranked, plan=plan,
                               meta=plan.rows_meta(pd.Index(meta["qid"], name="user")))
    check = _Check(queries="truth" if complete else "run", what="user", complete=complete)
    return _evaluation(rows, plan, no_relevant, compute, _overlap_reduction(both, kinds),
                       check)


def _bag_builder(bag, part_fn, dd):
    """A function of the chosen kinds that turns each partition of ``bag`` into
    a long Dask frame with ``part_fn``."""
    def build(kinds, meta):
        frames = [_delayed_part(part_fn, p, i, kinds) for i, p in enumerate(bag.to_delayed())]
        return dd.from_delayed(frames, meta=meta, verify_meta=False)

    return build


def _lists_side(recommended, dd, fmt="auto"):
    """The ranked lists' id dtypes (user, item; None: unknown) and a function of
    the chosen kinds that builds their long Dask frame (user, item, rank, list).
    A path is a run file, read as evaluate_run reads it (format ``fmt``)."""
    import dask.bag as db

    if isinstance(recommended, (str, os.PathLike)):
        import pandas as pd

        from ._formats import read_run
        from ._inputs import group_long

        r = read_run(recommended, format=fmt)
        ids, lens, items, _ = group_long(r.qid, r.docno, r.score, order="score")
        rank = np.arange(items.shape[0]) - np.repeat(np.cumsum(lens) - lens, lens) + 1
        recommended = dd.from_pandas(pd.DataFrame({"user": np.repeat(ids, lens),
                                                   "item": items, "rank": rank}),
                                     npartitions=1)

    if isinstance(recommended, db.Bag):
        return _bag_kinds(recommended), _bag_builder(recommended, _bag_lists, dd)
    if isinstance(recommended, dd.DataFrame):
        cols = recommended.columns
        ucol = _find_column(cols, _QUERY_COLS, "user", "recommended lists")
        icol = _find_column(cols, _ITEM_COLS, "item", "recommended lists")
        rcol = _optional_column(cols, _RANK_COLS, "rank", "recommended lists")
        if rcol is None:
            raise ValueError(
                "recommended as a Dask DataFrame must have one row per (user, item) with a "
                f"rank column ({', '.join(_RANK_COLS)}; 1 = best): the order of rows does "
                f"not survive a shuffle. Its columns are {list(cols)}."
            )

        def build(kinds, meta):
            return recommended.map_partitions(_frame_lists, cols=(ucol, icol, rcol),
                                              kinds=kinds, meta=meta)

        return (recommended[ucol].dtype, recommended[icol].dtype), build
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
        cols = truth.columns
        ucol = _find_column(cols, _QUERY_COLS, "user", "truth")
        icol = _find_column(cols, _ITEM_COLS, "item", "truth")
        rcol = _optional_column(cols, _REL_COLS, "relevance", "truth")

        def build(kinds, meta):
            return truth.map_partitions(_frame_truth, cols=(ucol, icol, rcol), kinds=kinds,
                                        meta=meta)

        return (truth[ucol].dtype, truth[icol].dtype), build
    if is_dask(truth):
        raise InvalidParameterError("truth must be a Dask bag or DataFrame (or in memory), "
                                    f"got {type(truth).__name__}.")
    from ._runs import _truth

    if isinstance(truth, (list, np.ndarray)):
        raise InvalidParameterError(
            "truth as a list aligned with recommended cannot go with Dask inputs; give a "
            "dict {user: ids}, a tuple (user_ids, item_ids[, relevance]) or a Dask "
            "collection."
        )
    tu, ti, trel, known = _truth(truth, None, fmt)
    tu, ti = np.asarray(tu), np.asarray(ti)

    def build(kinds, meta):
        frame = _truth_rows(tu, ti, np.asarray(trel, dtype=np.float64), known, 0, kinds)
        return dd.from_pandas(frame, npartitions=1)

    return (_id_dtype(tu), _id_dtype(ti) if ti.size else None), build


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


def _typed(users, items, value, lid, kind, kinds):
    """The shared layout of one side, ids in the kinds chosen for both sides."""
    import pandas as pd

    return pd.DataFrame({"qid": _ids(np.asarray(users), "the user ids", kinds[0],
                                     strict=False),
                         "docno": _ids(np.asarray(items), "the item ids", kinds[1],
                                       strict=False),
                         "value": np.asarray(value, dtype=np.float64),
                         "list": np.asarray(lid, dtype=np.int64),
                         "kind": np.asarray(kind, dtype=np.int8)})


def _bag_lists(part, number, kinds):
    """One bag partition of (user, ranked ids) pairs as long rows."""
    from ._runs import _flatten_lists

    pairs, n = _pairs_of(part, number, "recommended")
    users, lists = zip(*pairs) if n else ((), ())
    lens, flat = _flatten_lists(list(lists), n, "recommended", ranked=True, users=users)
    where = np.repeat(np.arange(n), lens)
    rank = np.arange(flat.shape[0]) - np.repeat(np.cumsum(lens) - lens, lens)
    users = np.asarray(users if n else np.zeros(0, dtype=np.int64))
    with _context(f"recommended in partition {number}"):
        return _typed(users[where], flat, rank, (number << 32) + where,
                      np.zeros(flat.shape[0]), kinds)


def _frame_lists(part, cols, kinds, partition_info=None):
    with _context(f"recommended lists {_in_partition(partition_info)}"):
        rank = as_numeric_array(part[cols[2]], "the rank column")
        check_finite(rank, "the rank column")
        n = len(part)
        return _typed(part[cols[0]].to_numpy(), part[cols[1]].to_numpy(), rank,
                      np.zeros(n), np.zeros(n), kinds)


def _truth_rows(tu, ti, trel, known, number, kinds, lid=None):
    """Long truth rows, plus one row (kind 2) per known user without an item."""
    n = np.asarray(tu).shape[0]
    lid = np.full(n, number << 32, dtype=np.int64) if lid is None else lid
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
            lid = np.concatenate((lid, np.full(empty.size, number << 32, dtype=np.int64)))
    return _typed(users, items, trel, lid, kind, kinds)


def _bag_truth(part, number, kinds):
    """One bag partition of (user, ids or {id: relevance}) pairs as long rows."""
    from ._runs import _truth

    pairs, n = _pairs_of(part, number, "truth")
    truth = dict(pairs)
    if len(truth) != n:
        from collections import Counter

        dup = Counter(map(itemgetter(0), pairs)).most_common(1)[0][0]
        raise ValueError(f"user {dup!r} has two truth entries in the truth bag (partition "
                         f"{number}); give one per user.")
    tu, ti, trel, known = _truth(truth, None)
    with _context(f"truth in partition {number}"):
        return _truth_rows(tu, ti, np.asarray(trel, dtype=np.float64), known, number, kinds)


def _frame_truth(part, cols, kinds, partition_info=None):
    n = len(part)
    with _context(f"truth {_in_partition(partition_info)}"):
        if cols[2] is None:
            rel = np.ones(n)
        else:
            rel = as_numeric_array(part[cols[2]], "the truth's relevance")
            check_finite(rel, "the truth's relevance")
        return _typed(part[cols[0]].to_numpy(), part[cols[1]].to_numpy(), rel, np.zeros(n),
                      np.ones(n), kinds)
def _score_ranked(part, plan, partition_info=None):
    """Per-user rows of one partition, through the in-memory pre-ranked layout."""
    import pandas as pd

    from ._inputs import build_preranked

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
        i = int(np.flatnonzero(same & (rp[1:] == rp[:-1]))[0])
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
        inputs = build_preranked(ids, lens, ri, tu, ti, tr, queries="run", what="user",
                                 truth_queries=truth_users)
        raw = engine_compute(inputs, plan.requests, ignore_ties=True)
    return plan.rows(raw, pd.Index(inputs.query_ids, name="user"), None, 0.0)
