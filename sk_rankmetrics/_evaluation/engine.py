"""The engine: one ranking pass per block, every kernel, on a thread pool."""

from __future__ import annotations

import numpy as np

from .._utils.allocator import tune_allocator
from .._utils.threads import N_THREADS, bounded_map, in_one_thread

#: Inputs smaller than this, or of one block, are ranked in the calling thread.
#: (1M-pair long-format evaluation sets, as a boosting library's validation set
#: is, rank 1.5x faster on two threads than on one; a single block gains nothing.)
PARALLEL_MIN_ELEMENTS = 1 << 18


def _chunk_values(rc, requests):
    """Each request's ``(values, defined)`` over the ranked chunk ``rc``."""
    whole = rc.few_ties_view()
    parts = None
    out = []
    for req in requests:
        if whole is not None and req.spec.reads_few_ties and req.depth is None:
            # The block at once, corrected at its few tie groups.
            out.append(req.spec.kernel(whole, req))
            continue
        if parts is None:
            parts = rc.split_by_ties() or ()
        if not parts:
            out.append(req.spec.kernel(_view(rc, req), req))
        else:
            out.append(_by_parts(parts, rc.n_rows, req))
    return out


def _view(rc, req):
    """The ranked chunk a request reads: cut at ``max_docs`` for a measure of the
    whole ranking that has one."""
    if req.spec.full and req.depth is not None:
        return rc.truncated(req.depth)
    return rc


def _by_parts(parts, n, req):
    """A request's values over a chunk split into parts (its untied and tied
    rows, :meth:`RankedChunk.split_by_ties`), each part through the kernel."""
    values, defined = np.empty(n), np.ones(n, dtype=bool)
    for rows, part in parts:
        v, d = req.spec.kernel(_view(part, req), req)
        values[rows] = v
        if d is not None:
            defined[rows] = d
    return values, defined


def check_diversity(inputs, requests):
    """Raise when diversity measures and a diversity qrels do not come together."""
    diverse = inputs.diversity
    for req in requests:
        if ("subtopics" in req.spec.needs) != diverse:
            if diverse:
                raise ValueError(
                    f"{req.label} is not a diversity measure, and the judgements are a "
                    "diversity qrels (query, subtopic, document, level); ask only for "
                    "diversity measures (alpha_ndcg@k, err_ia@k, nrbp, ap_ia, p_ia@k, "
                    "subtopic_recall@k and their ir_measures names) on them."
                )
            raise ValueError(
                f"{req.label} is a diversity measure: it reads a diversity qrels (query, "
                "subtopic, document, level: the same document once per subtopic). Give "
                "evaluate_run such a file (a path is read as one when every metric is a "
                "diversity measure; read_trec_qrels(path, diversity=True) reads it "
                "ahead), or evaluate_ranked a truth with a subtopic column (subtopic=...)."
            )


def compute(inputs, requests, *, ignore_ties=False, progress=None):
    """Per-row values and defined-masks of every request (see :func:`_compute`);
    the requests with ``judged_only`` (ir_measures' ``judged_only=True``,
    trec_eval's ``-J`` for one measure) read the rankings without their
    unjudged items (every layout has ``judged_only()``)."""
    tune_allocator()  # block temporaries reused, not mapped anew (see its module)
    # The kernels' tables for this call (Request.memo), shared by its blocks
    # and let go at its end: requests live on in scorers, accumulators and
    # pickles, and the tables would go with them.
    for r in requests:
        r.memo = {}
    try:
        judged = [r for r in requests if getattr(r, "judged_only", False)]
        if not judged:
            return _compute(inputs, requests, ignore_ties=ignore_ties, progress=progress)
        rest = [r for r in requests if not getattr(r, "judged_only", False)]
        out = _compute(inputs, rest, ignore_ties=ignore_ties) if rest else {}
        out.update(_compute(inputs.judged_only(), judged, ignore_ties=ignore_ties,
                            progress=progress))
        return {r.label: out[r.label] for r in requests}
    finally:
        for r in requests:
            r.memo = {}


def _compute(inputs, requests, *, ignore_ties=False, progress=None):
    """Per-row values and defined-masks of every request.

    Parameters
    ----------
    inputs : DenseInputs, LongInputs or PrerankedInputs
    requests : list of Request
    ignore_ties : bool
    progress : callable, optional
        Called as ``progress(done, total)`` after each block of rows.

    Returns
    -------
    dict of label -> (values ndarray of shape (n_rows,), defined ndarray of bool)
    """
    check_diversity(inputs, requests)
    n = inputs.n_rows
    out = {r.label: (np.empty(n), np.ones(n, dtype=bool)) for r in requests}
    blocks = inputs.blocks(requests)

    def work(block):
        rows, payload = block
        # Gains near the float64 limit can overflow when added up (in tie
        # sums, DCG, CG). NumPy stays quiet here (in the worker's thread) and
        # any non-finite value is reported below as an error.
        with np.errstate(over="ignore", invalid="ignore"):
            rc = inputs.ranked_chunk(payload, requests, ignore_ties=ignore_ties)
            if rc.apart is None:
                return rows, _chunk_values(rc, requests)
            # The requests with a cut-off read a chunk of their own.
            apart, cut = rc.apart
            ids = {id(r) for r in cut}
            rest = [r for r in requests if id(r) not in ids]
            got = dict(zip(map(id, rest), _chunk_values(rc, rest)))
            got.update(zip(map(id, cut), _chunk_values(apart, cut)))
            return rows, [got[id(r)] for r in requests]

    big = inputs.n_rows * inputs.n_cols >= PARALLEL_MIN_ELEMENTS and len(blocks) > 1
    n_threads = N_THREADS if big else 1
    if in_one_thread():
        n_threads = 1
    for done, (rows, results) in enumerate(bounded_map(work, blocks, n_threads), 1):
        for req, (vals, defined) in zip(requests, results):
            if not np.isfinite(vals).all():
                raise ValueError(
                    f"{req.label}: the value overflows float64 (the gains of y_true "
                    "are too large to add up); rescale y_true or use a smaller gain."
                )
            out[req.label][0][rows] = vals
            if defined is not None:
                out[req.label][1][rows] = defined
        if progress is not None:
            progress(done, len(blocks))
    return out
