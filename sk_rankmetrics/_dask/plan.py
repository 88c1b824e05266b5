"""What every partition computes, and the tree reduction of partial sums."""

from __future__ import annotations

from contextlib import contextmanager

import numpy as np

from .._evaluation.reduce import (
    PARTIAL_FIELDS,
    combine,
    finish,
    how_of,
    partial,
)
from .._utils.arrays import as_ids
from .._utils.policy import policy_values


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
        #: the policy a metric's name fixes (ir_measures' Accuracy: "skip"), or None
        self.policy_fixed = [getattr(r, "no_relevant", None) for r in self.requests]
        self.how = [how_of(r) for r in self.requests]
        self.__dict__.update(extra)

    def policy(self, i, policy):
        """The ``no_relevant`` policy of request ``i`` (see :func:`policy_of`)."""
        if not self.policy_applies[i]:
            return None
        return policy if self.policy_fixed[i] is None else self.policy_fixed[i]

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
    for i in range(len(plan.policy_applies)):
        v = rows[f"v{i}"].to_numpy(dtype=np.float64)
        d = rows[f"d{i}"].to_numpy(dtype=bool)
        parts.append(partial(v, d, w, plan.policy(i, policy), plan.how[i]))
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


def _finish_partials(sums, plan, policy):
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
        out[label] = finish(a[i * k:(i + 1) * k], label, plan.policy(i, policy), plan.how[i])
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
        data[label] = policy_values(v, d, plan.policy(i, policy))[0]
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
        return _finish_partials(sums, self.plan, self.policy)


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
