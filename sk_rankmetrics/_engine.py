"""The engine: inputs -> one ranking pass per chunk -> kernels -> per-row values.

Several metrics requested together share one ranking pass: the chunk is
ranked down to the deepest cut-off any of them needs, and each kernel reads
the positions it wants.
"""

from __future__ import annotations

import os
from collections import deque
from concurrent.futures import ThreadPoolExecutor

import numpy as np

from . import _validation
from ._ranking import rank_chunk

#: Threads that rank row chunks in parallel (NumPy releases the GIL).
N_THREADS = max(1, min(4, os.cpu_count() or 1))
#: Inputs smaller than this are ranked in the calling thread.
PARALLEL_MIN_ELEMENTS = 1 << 20


def _value_arrays(yt, requests, row0, pad=None):
    """Gains and relevance indicators of a chunk, one array per distinct key.

    ``pad`` marks the padding entries of long-format chunks (None: there are
    none). They are worth nothing and are never relevant, whatever the gain
    of level 0 or the threshold; the gain is not even evaluated on them (a
    mapping need not name level 0).
    """
    values = {}
    real = yt if pad is None else yt[~pad]
    for req in requests:
        if req.gain_key is not None and req.gain_key not in values:
            req.gain.check_levels(real, normalized=req.spec.normalized)
            if pad is None:
                g = req.gain(yt)
            else:
                g = np.zeros(yt.shape)
                g[~pad] = req.gain(real)
            if g is not yt and not np.all(np.isfinite(g)):
                raise ValueError(
                    f"the {req.gain.name!r} gain overflows for some relevance in "
                    f"y_true (rows from {row0}); use a smaller gain."
                )
            if req.spec.normalized and g.size and g.min() < 0:
                raise ValueError(
                    f"the {req.gain.name!r} gain gives negative gains, which "
                    f"{req.spec.function} cannot normalise; map every level to a "
                    "gain >= 0."
                )
            values[req.gain_key] = g
        if req.rel_key is not None and req.rel_key not in values:
            thr = req.threshold
            rel = yt > 0 if thr is None else yt >= thr
            if pad is not None:
                rel[pad] = False
            values[req.rel_key] = rel.astype(np.float64)
    return values


def _padding_counts(requests):
    """Whether padding (relevance 0) would count: a gain other than linear or
    exponential (which give level 0 nothing), or a threshold <= 0."""
    return any(
        (req.gain is not None and req.gain.name not in ("linear", "exponential"))
        or (req.rel_key is not None and req.threshold is not None and req.threshold <= 0)
        for req in requests
    )


def _ideal(yt, gain, values_gain, width, padded=False):
    """The ``width`` largest gains of each row, in increasing order (best last)."""
    N = yt.shape[1]
    # A monotone gain lets relevance be partitioned and only the top k
    # transformed; padding (gain 0, any relevance) needs the gains themselves.
    by_level = gain.monotone and not padded
    base = yt if by_level else values_gain
    if width < N:
        base = np.partition(base, N - width, axis=1)[:, N - width :]
    top = np.sort(base, axis=1)
    return gain(top) if by_level else top


def _chunk_values(chunk, requests, needs_full, k_max, ignore_ties):
    """Rank one chunk and run every kernel on it."""
    rows, yt, ys, n_items = chunk
    N = yt.shape[1]
    row0 = rows.start if isinstance(rows, slice) else 0
    # Long-format chunks pad short queries with score -inf (real scores are
    # finite); the padding needs masking only where it could count.
    padded = n_items is not None and _padding_counts(requests) and (n_items < N).any()
    pad = ys == -np.inf if padded else None
    values = _value_arrays(yt, requests, row0, pad)
    n_rel = {key: v.sum(axis=1) for key, v in values.items() if key.startswith("rel:")}
    L = N if needs_full else min(k_max, N)
    for r in requests:
        if not r.spec.takes_k:  # R-precision reads down to each row's R
            L = max(L, int(n_rel[r.rel_key].max()))
    rc = rank_chunk(ys, values, max(L, 1), ignore_ties=ignore_ties, n_items=n_items)
    rc.n_relevant = n_rel
    for req in requests:
        if req.spec.needs_ideal and req.gain_key not in rc.ideal:
            rc.ideal[req.gain_key] = _ideal(
                yt, req.gain, values[req.gain_key], rc.L, padded=pad is not None
            )
    return rows, [req.spec.kernel(rc, req) for req in requests]


def depth(requests):
    """``(needs_full, k_max)``: whether some request reads every position, and
    the deepest cut-off asked for (1 when none is)."""
    needs_full = any(r.spec.takes_k and r.k is None for r in requests)
    k_max = max((r.k for r in requests if r.k is not None), default=1)
    return needs_full, k_max


def _bounded_map(fn, items, n_threads):
    """``map(fn, items)`` on a thread pool, at most ``2 * n_threads`` in flight.

    NumPy releases the GIL in sorts, partitions and takes, so row chunks run
    in parallel; the window keeps the memory of chunks in flight bounded.
    """
    if n_threads <= 1:
        yield from map(fn, items)
        return
    window = deque()
    with ThreadPoolExecutor(max_workers=n_threads) as pool:
        for item in items:
            window.append(pool.submit(fn, item))
            if len(window) >= 2 * n_threads:
                yield window.popleft().result()
        while window:
            yield window.popleft().result()


def compute(inputs, requests, *, ignore_ties=False):
    """Per-row values and defined-masks of every request.

    Returns
    -------
    dict of label -> (values ndarray of shape (n_rows,), defined ndarray of bool)
    """
    n = inputs.n_rows
    out = {r.label: (np.empty(n), np.ones(n, dtype=bool)) for r in requests}
    needs_full, k_max = depth(requests)

    if hasattr(inputs, "ranked_chunk"):
        # Pre-ranked layout (ranked lists plus sparse truth): no ranking pass.
        def work(rows):
            rc = inputs.ranked_chunk(rows, requests, ignore_ties=ignore_ties)
            return rows, [req.spec.kernel(rc, req) for req in requests]

        items = inputs.row_blocks(requests)
    else:

        def work(chunk):
            return _chunk_values(chunk, requests, needs_full, k_max, ignore_ties)

        # A full sort per row touches more memory per element than a top-k
        # partition; smaller blocks keep its working set in the CPU cache.
        items = inputs.chunks(_validation.CHUNK_ELEMENTS // 2 if needs_full else None)

    def guarded(item):
        # Gains near the float64 limit can overflow when added up (in tie
        # sums, DCG, CG). NumPy stays quiet here (in the worker's thread) and
        # any non-finite value is reported below as an error.
        with np.errstate(over="ignore", invalid="ignore"):
            return work(item)

    n_threads = N_THREADS if inputs.n_rows * inputs.n_cols >= PARALLEL_MIN_ELEMENTS else 1
    for rows, results in _bounded_map(guarded, items, n_threads):
        for req, (vals, defined) in zip(requests, results):
            if not np.isfinite(vals).all():
                raise ValueError(
                    f"{req.label}: the value overflows float64 (the gains of y_true "
                    "are too large to add up); rescale y_true or use a smaller gain."
                )
            out[req.label][0][rows] = vals
            if defined is not None:
                out[req.label][1][rows] = defined
    return out
