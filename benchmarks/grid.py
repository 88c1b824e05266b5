"""The benchmark grid: every metric against the least work of its layout.

Used by ``benchmarks/bench.py --only grid`` (the full grid) and by
``benchmarks/guard.py`` (a small version of it, for CI). Each cell times an
sk_rankmetrics call on one thread (and BLAS held to one thread:
:func:`one_thread`) and a *floor* on the same data, in turns, in the same
process, and reports the ratio of the two best times:

- matrices: ``np.argpartition(-y_score, 10, axis=1)`` of the same ``y_score``
  (the least work any exact top-10 ranking of the rows must do);
- long format, ``qid`` shuffled: ``np.argsort(qid)`` (grouping the pairs);
- long format, ``qid`` sorted: the scores sorted within queries, as NumPy
  can (it has no sort by segments): laid out one query per row, padded, and
  ``np.argsort(-S, axis=1)`` of that layout ``S``, both timed;
- ranked ID lists: sorting the truth's ``(user, item)`` keys and looking up
  the keys of the recommendations a cut-off of 10 reads in them
  (``np.sort`` and ``np.searchsorted``).

The grid's axes are the relevance of ``y_true`` (how many items are relevant
and how), the scores (float64, float32, integers 0..19 with heavy ties), the
shapes and the dtype of ``y_true``; combinations that cannot hold the
relevance (graded levels in a bool, fractional gains in an integer) are
skipped and listed.
"""

from __future__ import annotations

import contextlib
import dataclasses
import gc
import itertools
import statistics
import time

import numpy as np

import sk_rankmetrics as skr
from sk_rankmetrics._utils import threads

try:
    from threadpoolctl import ThreadpoolController  # scikit-learn's dependency
except ImportError:  # pragma: no cover - scikit-learn brings it
    ThreadpoolController = None

_BLAS = None


@contextlib.contextmanager
def one_thread():
    """Time on one core: the package's blocks in the calling thread
    (:func:`sk_rankmetrics._utils.threads.one_thread`) and BLAS held to one
    thread, whose matrix products in the kernels (ERR's, nDCG's) would
    otherwise take a second core (OpenBLAS threads a product of a block's
    size)."""
    global _BLAS
    if _BLAS is None and ThreadpoolController is not None:
        _BLAS = ThreadpoolController()
    limit = (_BLAS.limit(limits=1, user_api="blas") if _BLAS is not None
             else contextlib.nullcontext())
    with threads.one_thread(), limit:
        yield

K = 10
SIX = ["ndcg@10", "map@10", "mrr@10", "precision@10", "recall@10", "hit_rate@10"]
#: ``"full depth"`` in :func:`metric_calls`: ``evaluate`` of these without a
#: cut-off (the CI guard's long-format cells).
FULL_SET = ["ndcg", "map", "bpref"]

#: name -> (how to draw it, the y_true dtypes it is measured in)
RELEVANCE = {
    "binary 2 %": ("binary", ("int8", "int32", "int64", "float64", "bool")),
    "graded 1..4 on 5 %": ("graded", ("int8", "int32", "int64", "float64")),
    "dense graded 0..4": ("dense", ("int8", "int32", "int64", "float64")),
    "float gains on 5 %": ("float", ("float64",)),
}
SKIPPED = [
    "bool y_true for graded, dense graded and float relevance (a bool holds 0 or 1 only)",
    "integer y_true for float relevance (the gains would be truncated)",
    "the relevance distribution 'bool' is the cell 'binary 2 %' in dtype bool",
]
SCORES = ("float64", "float32", "int 0..19")
SHAPES = {
    "10000x1000": (10_000, 1_000),
    "100000x100": (100_000, 100),
    "1000x100000": (1_000, 100_000),
}
QUICK_SHAPES = {
    "2000x1000": (2_000, 1_000),
    "20000x100": (20_000, 100),
    "200x100000": (200, 100_000),
}
METRICS = ("ndcg@10", "map@10", "recall@10", "six")
#: The matrix part's second floor: one read of both inputs.
READ = "one read of both inputs"
#: Ratio to the floor a cell must not exceed.
TARGET = {"ndcg@10": 1.5, "map@10": 1.5, "recall@10": 1.5, "six": 2.5}
LONG_TARGET = 2.0
SKLEARN_TARGET = 15.0
PARTS = ("matrix", "full", "sklearn", "long", "ranked", "files", "dask")
#: Item ids of the ranked lists are drawn from 0..CATALOG-1.
CATALOG = 1_000_000


def shape_arg(text):
    """``--shape`` of the scripts: ``ROWSxITEMS``, two positive whole numbers."""
    import argparse

    parts = text.lower().split("x")
    if len(parts) == 2 and all(p.strip().isdigit() and int(p) > 0 for p in parts):
        return int(parts[0]), int(parts[1])
    raise argparse.ArgumentTypeError(
        f"{text!r} is not a shape: give rows x items as two positive whole numbers, "
        "e.g. 100000x100")


def relevance(kind, shape, rng):
    """Seeded ``y_true`` of one relevance distribution (int64 or float64)."""
    u = rng.random(shape)
    if kind == "binary":
        return (u < 0.02).astype(np.int64)
    if kind == "graded":
        return np.where(u < 0.05, rng.integers(1, 5, size=shape), 0)
    if kind == "dense":
        return rng.integers(0, 5, size=shape)
    if kind == "float":
        return np.where(u < 0.05, 4.0 * rng.random(shape) + 1e-3, 0.0)
    raise ValueError(f"unknown relevance kind {kind!r}")


def scores(name, base):
    """The scores of one kind from uniform floats ``base``."""
    if name == "float64":
        return base
    if name == "float32":
        return base.astype(np.float32)
    if name == "int 0..19":
        return np.floor(base * 20).astype(np.int64)
    raise ValueError(f"unknown scores {name!r}")


def as_dtype(y, dtype):
    return y.astype(bool) if dtype == "bool" else y.astype(dtype)


@dataclasses.dataclass
class Cell:
    part: str
    label: str  # the cell's coordinates
    floor: float  # best time of the floor (s)
    times: dict  # metric -> best time (s)
    targets: dict  # metric -> bound on the ratio
    floors: dict = None  # metric -> its own floor, when they differ (files)
    read: float = None  # best time of one read of both inputs (matrices)

    def ratio(self, metric):
        floor = self.floor if self.floors is None else self.floors[metric]
        return self.times[metric] / floor

    def over(self):
        return [m for m in self.times if self.ratio(m) > self.targets[m]]


def _timed(fn):
    t0 = time.perf_counter()
    out = fn()
    return time.perf_counter() - t0, out


def measure(floor, calls, repeats):
    """Best times of ``floor`` and of each of ``calls`` (name -> fn), the calls
    taking turns with the floor in every repeat; and the calls' last results.

    The garbage collector runs once before and is off during the timings (a
    full collection takes a good part of a second once scikit-learn and SciPy
    are imported; the calls create few Python objects).
    """
    best_floor = float("inf")
    best = dict.fromkeys(calls, float("inf"))
    results = {}
    gc.collect()
    gc.disable()
    try:
        for _ in range(repeats):
            best_floor = min(best_floor, _timed(floor)[0])
            for name, fn in calls.items():
                t, results[name] = _timed(fn)
                best[name] = min(best[name], t)
    finally:
        gc.enable()
    return best_floor, best, results


def metric_calls(metrics, y_true, y_score, **kw):
    """name -> a call of sk_rankmetrics on these inputs."""
    single = {
        "ndcg@10": skr.ndcg_score,
        "map@10": skr.mean_average_precision_score,
        "recall@10": skr.recall_at_k_score,
    }
    calls = {}
    for m in metrics:
        if m == "six":
            calls[m] = lambda: skr.evaluate(y_true, y_score, SIX, no_relevant=0.0, **kw)
        elif m == "full depth":
            calls[m] = lambda: skr.evaluate(y_true, y_score, FULL_SET, no_relevant=0.0, **kw)
        else:
            calls[m] = (lambda f: lambda: f(y_true, y_score, k=K, no_relevant=0.0, **kw))(single[m])
    return calls


def _agree(results, check):
    """``evaluate``'s ndcg@10 and ndcg_score's must be equal (to 1e-12)."""
    if check is not None and "six" in results and "ndcg@10" in results:
        check(results["six"]["ndcg@10"], results["ndcg@10"])


def matrix_cells(
    shapes, metrics, repeats, *, scores_axis=SCORES, dtypes=None, log=print, check=None, only=None
):
    """One cell per shape x scores x relevance x dtype of ``y_true``, on one thread
    (only the cells whose labels are in ``only``, if given)."""
    out = []
    for sname, shape in shapes.items():
        rng = np.random.default_rng(20261125)
        base = rng.random(shape)
        rels = {name: relevance(kind, shape, rng) for name, (kind, _) in RELEVANCE.items()}
        for score_name in scores_axis:
            ys = scores(score_name, base)
            neg = -ys
            for rname, (_, rdtypes) in RELEVANCE.items():
                for dt in rdtypes:
                    if dtypes is not None and dt not in dtypes:
                        continue
                    label = f"{sname} | {score_name} | {rname} | {dt}"
                    if only is not None and label not in only:
                        continue
                    yt = as_dtype(rels[rname], dt)
                    log(f"grid: {label}")
                    calls = metric_calls(metrics, yt, ys)
                    # The physical floor, timed in the same turns: one read of
                    # both inputs.
                    calls[READ] = lambda yt=yt, ys=ys: _read_both(yt, ys)
                    with one_thread():
                        f, t, res = measure(
                            lambda neg=neg: np.argpartition(neg, K, axis=1),
                            calls,
                            repeats,
                        )
                    read = t.pop(READ)
                    _agree(res, check and (lambda a, b, label=label: check(label, a, b)))
                    out.append(Cell("matrix", label, f, t, {m: TARGET[m] for m in t}, read=read))
                    del yt
            del ys, neg
        del base, rels
    return out


def sklearn_row(shape, repeats, base_repeats, check=None, log=print):
    """ndcg_score(k=10) with the default threads against scikit-learn's (ties
    averaged) on graded relevance on 5 % of the items."""
    import sklearn.metrics as skm

    rng = np.random.default_rng(20261126)
    ys = rng.random(shape)
    yt = relevance("graded", shape, rng)
    log(f"grid: sklearn {shape}")
    _, t, res = measure(
        lambda: None, {"ours": lambda: skr.ndcg_score(yt, ys, k=K, no_relevant=0.0)}, repeats
    )
    t_ours, v_ours = t["ours"], res["ours"]
    _, t, res = measure(lambda: None, {"sk": lambda: skm.ndcg_score(yt, ys, k=K)}, base_repeats)
    t_sk, v_sk = t["sk"], res["sk"]
    if check is not None:
        check("sklearn: ndcg@10 vs sklearn.metrics.ndcg_score", v_ours, v_sk)
    return t_ours, t_sk


def long_data(n_queries, rng):
    """Queries of 10..200 items (seeded), sorted and contiguous by ``qid``."""
    lengths = rng.integers(10, 201, size=n_queries)
    qid = np.repeat(np.arange(n_queries), lengths)
    return qid, lengths


def long_cells(
    n_queries,
    metrics,
    repeats,
    *,
    scores_axis=("float64", "int 0..19"),
    log=print,
    check=None,
    only=None,
):
    """Long format: relevance x scores x qid {sorted, shuffled}; float64 y_true
    (the long format converts y_true to float64 first). Only the cells whose
    labels are in ``only``, if given."""
    out = []
    rng = np.random.default_rng(20261127)
    qid, lengths = long_data(n_queries, rng)
    n = qid.shape[0]
    base = rng.random(n)
    perm = rng.permutation(n)
    starts = np.concatenate(([0], np.cumsum(lengths)[:-1]))
    offs = np.arange(n) - np.repeat(starts, lengths)
    width = int(lengths.max())
    for score_name in scores_axis:
        ys = scores(score_name, base)
        neg = -ys.astype(np.float64)
        for rname, (kind, _) in RELEVANCE.items():
            yt = relevance(kind, n, rng).astype(np.float64)
            for order in ("sorted", "shuffled"):
                label = (
                    f"long {n_queries:,} queries, {n:,} rows | {score_name} | {rname} | qid {order}"
                )
                if only is not None and label not in only:
                    continue
                log(f"grid: {label}")
                if order == "sorted":
                    q, t_, s_ = qid, yt, ys

                    def floor(neg=neg):
                        # The scores of each query in one row (padded), then
                        # sorted within rows: NumPy has no sort by segments.
                        padded = np.full((n_queries, width), np.inf)
                        padded[qid, offs] = neg
                        return np.argsort(padded, axis=1)
                else:
                    q, t_, s_ = qid[perm], yt[perm], ys[perm]

                    def floor(q=q):
                        return np.argsort(q)

                with one_thread():
                    f, t, res = measure(floor, metric_calls(metrics, t_, s_, qid=q), repeats)
                _agree(res, check and (lambda a, b, label=label: check(label, a, b)))
                out.append(Cell("long", label, f, t, dict.fromkeys(t, LONG_TARGET)))
    return out


def ranked_data(n_users, n_recs, rng, graded):
    """2-D recommended ids (distinct per user) and the truth as parallel arrays:
    1..20 relevant ids per user, half of them among the user's recommendations."""
    catalog = CATALOG
    rec = np.empty((n_users, n_recs), dtype=np.int64)
    # Distinct ids per user: a random start and stride through the catalog.
    start = rng.integers(0, catalog, size=n_users)[:, None]
    stride = rng.choice(np.array([7, 11, 13, 17, 19, 23]), size=n_users)[:, None]
    rec[:] = (start + stride * np.arange(n_recs)) % catalog
    n_rel = rng.integers(1, 21, size=n_users)
    users = np.repeat(np.arange(n_users), n_rel)
    inside = rng.random(users.shape[0]) < 0.5
    pos = rng.integers(0, n_recs, size=users.shape[0])
    items = np.where(inside, rec[users, pos], rng.integers(0, catalog, size=users.shape[0]))
    # Drop duplicated (user, item) pairs.
    key = users * catalog + items
    _, first = np.unique(key, return_index=True)
    users, items = users[first], items[first]
    if graded:
        return rec, (users, items, rng.integers(1, 5, size=users.shape[0]))
    return rec, (users, items)


def ranked_cells(n_users, n_recs, metrics, repeats, *, log=print, check=None):
    """Ranked ID lists (``evaluate_ranked``): truth binary or graded, given in
    user order or shuffled."""
    out = []
    single = {"ndcg@10": ["ndcg@10"], "map@10": ["map@10"], "recall@10": ["recall@10"], "six": SIX}
    for graded in (False, True):
        rng = np.random.default_rng(20261128 + graded)
        rec, truth = ranked_data(n_users, n_recs, rng, graded)
        rec_keys = np.arange(n_users)[:, None] * CATALOG + rec[:, :K]
        for order in ("by user", "shuffled"):
            if order == "shuffled":
                p = rng.permutation(truth[0].shape[0])
                tr = tuple(a[p] for a in truth)
            else:
                tr = truth
            label = (
                f"ranked lists {n_users:,} users x {n_recs} ids | truth "
                f"{'graded 1..4' if graded else 'binary'}, {truth[0].shape[0]:,} pairs, "
                f"{order}"
            )
            log(f"grid: {label}")

            def floor(tr=tr, rec_keys=rec_keys):
                keys = np.sort(tr[0] * CATALOG + tr[1])
                return np.searchsorted(keys, rec_keys)

            def call(names, rec=rec, tr=tr):
                return lambda: skr.evaluate_ranked(rec, tr, names, no_relevant=0.0)

            calls = {m: call(single[m]) for m in metrics}
            with one_thread():
                f, t, res = measure(floor, calls, repeats)
            if check is not None and "six" in res and "ndcg@10" in res:
                check(label, res["six"].mean["ndcg@10"], res["ndcg@10"].mean["ndcg@10"])
            out.append(Cell("ranked", label, f, t, dict.fromkeys(t, LONG_TARGET)))
    return out


def fmt_s(t):
    return f"{t:.3f} s" if t >= 0.01 else f"{t * 1e3:.2f} ms"


HEADERS = {
    "matrix": "cell (shape | scores | relevance | y_true dtype)",
    "long": "cell (long format | scores | relevance | qid)",
    "ranked": "cell (ranked ID lists | truth)",
    "files": "cell (files | run scores | qrels levels); floor: the same stage on the "
    "first row's files",
    "dask": "cell (Dask, synchronous scheduler); floor: the in-memory call",
}


def table(cells, metrics=None):
    """Markdown lines: one table per part, one row per cell, the ratio of each
    measurement to its floor, those over their bound marked."""
    lines = []
    for part in dict.fromkeys(c.part for c in cells):
        these = [c for c in cells if c.part == part]
        cols = list(dict.fromkeys(m for c in these for m in c.times))
        if metrics is not None and part in ("matrix", "long", "ranked"):
            cols = [m for m in metrics if m in cols]
        if lines:
            lines.append("")
        lines += _part_table(these, cols, HEADERS.get(part, "cell"))
    return lines


def _cell_text(text):
    """A label as one Markdown table cell: its ``|`` separators escaped."""
    return text.replace("|", "\\|")


def _part_table(cells, metrics, header):
    read = all(c.read is not None for c in cells)
    lines = [
        f"| {_cell_text(header)} | floor | " + " | ".join(f"{m} / floor" for m in metrics)
        + (" | read / floor | " + " | ".join(f"{m} / read" for m in metrics) if read else "")
        + " |",
        "|---|---:|" + "---:|" * len(metrics) * (2 if read else 1) + ("---:|" if read else ""),
    ]
    for c in cells:
        parts = []
        for m in metrics:
            if m not in c.times:
                parts.append("—")
                continue
            r = c.ratio(m)
            parts.append(
                f"**{r:.2f}× over {c.targets[m]:g}×**" if r > c.targets[m] else f"{r:.2f}×"
            )
        if read:
            parts.append(f"{c.read / c.floor:.2f}")
            parts += [f"{c.times[m] / c.read:.1f}×" if m in c.times else "—" for m in metrics]
        lines.append(f"| {_cell_text(c.label)} | {fmt_s(c.floor)} | " + " | ".join(parts)
                     + " |")
    return lines


def summary(cells, metrics):
    """Per metric and part: the worst cell and the median ratio (the typical cell)."""
    lines = []
    names = list(dict.fromkeys([*metrics, *(m for c in cells for m in c.times)]))
    for part, m in itertools.product(PARTS, names):
        rs = [(c.ratio(m), c.label) for c in cells if c.part == part and m in c.times]
        if not rs:
            continue
        worst = max(rs)
        n_over = sum(1 for c in cells if c.part == part and m in c.over())
        lines.append(
            f"{part}, {m}: median {statistics.median(r for r, _ in rs):.2f}× the "
            f"floor, worst {worst[0]:.2f}× ({worst[1]}); {n_over} of {len(rs)} "
            "cells over target"
        )
        reads = [c.times[m] / c.read for c in cells
                 if c.part == part and m in c.times and c.read is not None]
        if reads:
            lines.append(
                f"{part}, {m} over one read of both inputs (the physical floor): median "
                f"{statistics.median(reads):.1f}×, best {min(reads):.1f}×, worst "
                f"{max(reads):.1f}×"
            )
    return lines


# -- other paths: TREC files and Dask partitions -------------------------------------


def write_trec(folder, name, n_topics, scores_kind, levels_kind, rng, n_docs=1_000, n_judged=200):
    """A run (``n_docs`` per topic, descending scores) and qrels (``n_judged`` per
    topic, half of them among the run's documents), written to ``folder``."""
    import os

    n = n_topics * n_docs
    topic = np.repeat(np.arange(n_topics) + 1001, n_docs)
    doc = (
        rng.integers(0, 3_000_000, n_topics).repeat(n_docs)
        + np.tile(np.arange(n_docs) * 2_999, n_topics)
    ) % 3_000_000
    u = rng.random((n_topics, n_docs))
    if scores_kind == "distinct":
        text = [f"{v:.4f}" for v in (-np.sort(-np.round(u * 50, 4), axis=1)).ravel().tolist()]
    elif scores_kind == "integers 0..19":
        text = [str(v) for v in (-np.sort(-np.floor(u * 20), axis=1)).astype(int).ravel().tolist()]
    elif scores_kind == "all equal":
        text = ["1"] * n
    else:
        raise ValueError(f"unknown scores {scores_kind!r}")
    rank = np.tile(np.arange(1, n_docs + 1), n_topics).tolist()
    run = os.path.join(folder, f"{name}.run")
    with open(run, "w") as fh:
        fh.write(
            "".join(
                f"{t} Q0 D{d} {k} {v} grid\n"
                for t, d, k, v in zip(topic.tolist(), doc.tolist(), rank, text)
            )
        )
    picks = rng.random((n_topics, n_docs)).argsort(axis=1)[:, : n_judged // 2]
    in_run = doc.reshape(n_topics, n_docs)[np.arange(n_topics)[:, None], picks]
    # Judged documents outside the run, distinct within a topic.
    others = (
        3_000_000
        + (rng.integers(0, 1_000_000, n_topics)[:, None] + np.arange(n_judged // 2) * 13)
        % 1_000_000
    )
    jdoc = np.concatenate([in_run, others], axis=1).ravel()
    jtopic = np.repeat(np.arange(n_topics) + 1001, n_judged)
    if levels_kind == "graded 0..3":
        lev = rng.integers(0, 4, jdoc.shape[0])
    elif levels_kind == "95 % level 0":
        lev = np.where(rng.random(jdoc.shape[0]) < 0.05, rng.integers(1, 4, jdoc.shape[0]), 0)
    else:
        raise ValueError(f"unknown levels {levels_kind!r}")
    qrels = os.path.join(folder, f"{name}.qrels")
    with open(qrels, "w") as fh:
        fh.write(
            "".join(
                f"{t} 0 D{d} {v}\n" for t, d, v in zip(jtopic.tolist(), jdoc.tolist(), lev.tolist())
            )
        )
    return qrels, run


#: trec_eval's names, scored in its setting (equal scores ordered by docno).
TREC_MEASURES = ["ndcg_cut_10", "map", "P_10", "recip_rank", "recall_100"]
FILE_VARIANTS = [
    ("distinct", "graded 0..3"),
    ("distinct", "95 % level 0"),
    ("integers 0..19", "graded 0..3"),
    ("integers 0..19", "95 % level 0"),
    ("all equal", "95 % level 0"),
]


def file_cells(n_topics, repeats, *, log=print, check=None):
    """Reading and scoring TREC files whose values are the hard cases (qrels with
    mostly level 0, runs with many equal scores), each stage against the same
    stage on the files of the first variant (distinct scores, graded levels):
    the same size, so a ratio far above 1 is a cost that depends on the values.
    Stages: the two readers, ``evaluate_run`` of the six metrics, and
    ``evaluate_run`` of trec_eval's measures in the trec_eval setting (which
    orders equal scores by document name)."""
    import tempfile

    out = []
    with tempfile.TemporaryDirectory() as tmp:
        files = {}
        for i, (sk, lk) in enumerate(FILE_VARIANTS):
            files[(sk, lk)] = write_trec(
                tmp, f"v{i}", n_topics, sk, lk, np.random.default_rng(20261129)
            )
        q0, r0 = files[FILE_VARIANTS[0]]
        qrels0, run0 = skr.read_trec_qrels(q0), skr.read_trec_run(r0)
        for sk, lk in FILE_VARIANTS:
            q, r = files[(sk, lk)]
            label = (
                f"files {n_topics:,} topics x 1,000 docs, 200 judged | run scores {sk} | qrels {lk}"
            )
            log(f"grid: {label}")
            qrels, run = skr.read_trec_qrels(q), skr.read_trec_run(r)
            times = {}
            floors = {}
            with one_thread():
                for stage, floor, call in [
                    (
                        "read_trec_run",
                        lambda: skr.read_trec_run(r0),
                        lambda r=r: skr.read_trec_run(r),
                    ),
                    (
                        "read_trec_qrels",
                        lambda: skr.read_trec_qrels(q0),
                        lambda q=q: skr.read_trec_qrels(q),
                    ),
                    (
                        "evaluate_run",
                        lambda: skr.evaluate_run(qrels0, run0, SIX),
                        lambda qrels=qrels, run=run: skr.evaluate_run(qrels, run, SIX),
                    ),
                    (
                        "evaluate_run trec_eval",
                        lambda: skr.evaluate_run(qrels0, run0, TREC_MEASURES, setting="trec_eval"),
                        lambda qrels=qrels, run=run: skr.evaluate_run(
                            qrels, run, TREC_MEASURES, setting="trec_eval"
                        ),
                    ),
                ]:
                    f, t, _ = measure(floor, {stage: call}, repeats)
                    floors[stage], times[stage] = f, t[stage]
            # The table's floor column shows the three stages' floors added up;
            # each stage's ratio is to its own floor.
            out.append(
                Cell(
                    "files",
                    label,
                    sum(floors.values()),
                    times,
                    dict.fromkeys(times, LONG_TARGET),
                    floors,
                )
            )
    return out


def dask_cells(n_queries, repeats, *, log=print, check=None):
    """Dask partitions on the synchronous scheduler against the in-memory call on
    the same arrays (both on one thread): the long format with qid as a sorted
    index with known divisions and with qid shuffled, and a matrix in row
    chunks."""
    try:
        import dask
        import dask.array as da
        import dask.dataframe as dd
        import pandas as pd
    except ImportError as exc:
        log(f"grid: dask part skipped ({exc})")
        return []
    out = []
    rng = np.random.default_rng(20261130)
    qid, _ = long_data(n_queries, rng)
    n = qid.shape[0]
    ys = rng.random(n)
    metrics = ["ndcg@10", "map@10"]
    for rname in ("graded 1..4 on 5 %", "dense graded 0..4"):
        yt = relevance(RELEVANCE[rname][0], n, rng).astype(np.float64)
        for order in ("sorted (index, known divisions)", "shuffled"):
            if order == "shuffled":
                p = rng.permutation(n)
                q, y, s = qid[p], yt[p], ys[p]
                ddf = dd.from_pandas(pd.DataFrame({"q": q, "y": y, "s": s}), npartitions=8)
                args = (ddf.y, ddf.s)
                kw = {"qid": ddf.q}
            else:
                q, y, s = qid, yt, ys
                ddf = dd.from_pandas(
                    pd.DataFrame({"y": y, "s": s}, index=q), npartitions=8, sort=True
                )
                args = (ddf.y, ddf.s)
                kw = {"qid": ddf.index}
            label = (
                f"dask long {n_queries:,} queries, {n:,} rows, 8 partitions | {rname} | qid {order}"
            )
            log(f"grid: {label}")
            with one_thread(), dask.config.set(scheduler="synchronous"):
                # Untimed first call: Dask's first graph of a kind costs more.
                skr.evaluate(*args, metrics, no_relevant=0.0, **kw)
                f, t, res = measure(
                    lambda q=q, y=y, s=s: skr.evaluate(y, s, metrics, qid=q, no_relevant=0.0),
                    {
                        "dask": lambda args=args, kw=kw: skr.evaluate(
                            *args, metrics, no_relevant=0.0, **kw
                        )
                    },
                    repeats,
                )
            if check is not None:
                mem = skr.evaluate(y, s, metrics, qid=q, no_relevant=0.0)
                check(label, res["dask"]["ndcg@10"], mem["ndcg@10"])
            out.append(Cell("dask", label, f, t, {"dask": LONG_TARGET}))
    shape = (n_queries * 2, 200)
    Y = relevance("graded", shape, rng).astype(np.int8)
    S = rng.random(shape)
    Yd, Sd = (
        da.from_array(Y, chunks=(shape[0] // 8, 200)),
        da.from_array(S, chunks=(shape[0] // 8, 200)),
    )
    label = f"dask matrix {shape[0]:,} x 200, 8 row chunks | graded 1..4 on 5 % | int8"
    log(f"grid: {label}")
    with one_thread(), dask.config.set(scheduler="synchronous"):
        skr.evaluate(Yd, Sd, metrics, no_relevant=0.0)  # untimed first call
        f, t, res = measure(
            lambda: skr.evaluate(Y, S, metrics, no_relevant=0.0),
            {"dask": lambda: skr.evaluate(Yd, Sd, metrics, no_relevant=0.0)},
            repeats,
        )
    out.append(Cell("dask", label, f, t, {"dask": LONG_TARGET}))
    return out


# -- the full-depth part: metrics without a cut-off ------------------------------------

#: The metrics without a cut-off the full-depth part times, each alone.
FULL_METRICS = (
    "ndcg",
    "dcg",
    "map",
    "mrr",
    "r_precision",
    "bpref",
    "err",
    "nerr",
    "rbp",
    "infap",
    "ndcg_rel",
    "rndcg",
    "g",
    "11pt_avg",
)
#: Ratio to a row argsort a full-depth cell must not exceed.
FULL_TARGET = 1.5
#: A full-depth call whose time, projected from its trial on the first rows
#: of the cell (:data:`_TRIAL_ROWS`), passes this many seconds is not timed:
#: the cell reports the projection (the exact expectations over heavy ties
#: of interpolated precision and G on rows of 1,000 tied integers take
#: minutes a call, and the grid would take hours).
FULL_CALL_CAP = 60.0
_TRIAL_ROWS = 200
FULL_SHAPES = {"10000x1000": (10_000, 1_000), "100000x100": (100_000, 100)}
QUICK_FULL_SHAPES = {"2000x1000": (2_000, 1_000), "20000x100": (20_000, 100)}
#: relevance distribution -> y_true dtype of its full-depth cells
FULL_RELEVANCE = {
    "binary 2 %": "int8",
    "graded 1..4 on 5 %": "int8",
    "dense graded 0..4": "int8",
    "float gains on 5 %": "float64",
}
FULL_SCORES = ("float64", "float32", "int 0..9")
#: Score kinds the full-depth part also takes when asked (``--scores``):
#: scores of four decimal places, as run files print them (a row of 1,000
#: ties in about 50 pairs: a few places, in every row), in float32 and in
#: float64 (whose ties are not exact in the levels' key unless the scores
#: are seen to be rounded); float64 scores of three decimals (a row of
#: 100 ties in about 5 pairs), of two (101 values: ties as heavy as
#: integers') and of one (11 values); and the integers 0..9 as float64
#: (ratings stored as floats).
MORE_FULL_SCORES = ("float32 4 places", "float64 4 places", "float64 3 places",
                    "float64 2 places", "float64 1 places", "float64 0..9")


def full_scores(name, base):
    """Scores of one kind for the full-depth part (``int 0..9``: heavy ties)."""
    if name == "int 0..9":
        return np.floor(base * 10).astype(np.int64)
    if name == "float64 0..9":
        return np.floor(base * 10)
    if name == "float32 4 places":
        return np.round(base, 4).astype(np.float32)
    if name.startswith("float64 ") and name.endswith(" places"):
        return np.round(base, int(name.split()[1]))
    return scores(name, base)


@dataclasses.dataclass
class FullCell:
    label: str
    floors: dict  # "argsort", "sort", "read" -> best time (s)
    times: dict  # metric -> best time (s)
    peaks: dict  # metric -> tracemalloc peak extra (bytes)
    block_bytes: dict  # metric -> one row-block's worth of the inputs (bytes)
    target: float = FULL_TARGET
    refused: dict = dataclasses.field(default_factory=dict)  # metric -> its error
    # metric -> one call's time projected from its trial (past FULL_CALL_CAP)
    projected: dict = dataclasses.field(default_factory=dict)
    # float32 cells: metric -> (float64 twin's best, this cell's best), the two
    # timed in turns (see twin_times).
    twin: dict = dataclasses.field(default_factory=dict)

    def ratio(self, metric, floor="argsort"):
        """A metric's time (or projection, :data:`FULL_CALL_CAP`) over a floor's."""
        t = self.projected[metric] if metric in self.projected else self.times[metric]
        return t / self.floors[floor]

    def over(self):
        return [m for m in [*self.times, *self.projected] if self.ratio(m) > self.target]


def _read_both(yt, ys):
    """One read of both inputs: the least any metric must do."""
    return yt.sum(axis=1, dtype=np.float64), ys.max(axis=1)


def _fresh_output(ys):
    """An array of the argsort's output, written into fresh memory: the part
    of the argsort that is page faults and writing, not sorting. The kernel
    may back it with huge pages (transparent huge pages) or not, as its free
    memory allows: the cost of the faults then halves or doubles, and with it
    the argsort's time by up to a third between runs. The metrics work a
    row-block at a time in memory used again, and pay neither."""
    return np.ones(ys.shape, dtype=np.intp)


def peak_extra(fn):
    """tracemalloc's peak of what ``fn()`` allocates (bytes), inputs excluded."""
    import tracemalloc

    gc.collect()
    tracemalloc.start()
    try:
        tracemalloc.reset_peak()
        fn()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def row_block_bytes(yt, ys, metric):
    """Bytes of one row-block of both inputs, as the dense layout cuts them for
    ``metric`` without a cut-off."""
    from sk_rankmetrics._inputs.budget import _budget
    from sk_rankmetrics._metrics.requests import make_requests

    # The dense layout's block for this metric (budget._budget), at least one row.
    elements = _budget(make_requests([metric]), dense=True)
    rows = max(1, min(yt.shape[0], elements // max(1, yt.shape[1])))
    return rows * yt.shape[1] * (yt.itemsize + ys.itemsize)


def full_cells(
    shapes=None,
    metrics=FULL_METRICS,
    repeats=3,
    *,
    scores_axis=FULL_SCORES,
    relevance_axis=None,
    memory=True,
    log=print,
    only=None,
    dtype=None,
):
    """Metrics without a cut-off, each alone, on one thread, against three floors
    timed in turns with them: a row ``np.argsort`` of the scores (the bound),
    a row ``np.sort`` and one read of both inputs; and tracemalloc's peak of
    each call against one row-block's worth of the inputs. ``dtype``: the
    dtype of ``y_true`` (default :data:`FULL_RELEVANCE`'s for each relevance)."""
    shapes = FULL_SHAPES if shapes is None else shapes
    rels_axis = (
        FULL_RELEVANCE if relevance_axis is None else {r: FULL_RELEVANCE[r] for r in relevance_axis}
    )
    if dtype is not None:
        rels_axis = dict.fromkeys(rels_axis, dtype)
    out = []
    for sname, shape in shapes.items():
        rng = np.random.default_rng(20261201)
        base = rng.random(shape)
        rels = {name: relevance(RELEVANCE[name][0], shape, rng) for name in rels_axis}
        for score_name in scores_axis:
            ys = full_scores(score_name, base)
            for rname, dt in rels_axis.items():
                label = f"{sname} | {score_name} | {rname} | {dt}"
                if only is not None and label not in only:
                    continue
                yt = rels[rname].astype(dt)
                log(f"grid: {label}")
                calls, refused, projected = {}, {}, {}
                trial = min(_TRIAL_ROWS, yt.shape[0])
                for m in metrics:
                    def trial_call(m=m, a=yt[:trial], b=ys[:trial]):
                        return skr.evaluate(a, b, [m], no_relevant=0.0)

                    try:  # a measure may refuse large tie groups (G's budget)
                        with one_thread():
                            t, _ = _timed(trial_call)
                            if t * yt.shape[0] / trial > FULL_CALL_CAP:
                                # (A first call makes the tables a process keeps.)
                                t, _ = _timed(trial_call)
                    except ValueError as exc:
                        refused[m] = str(exc).split(". ")[0]
                        continue
                    if t * yt.shape[0] / trial > FULL_CALL_CAP:
                        projected[m] = t * yt.shape[0] / trial
                        continue
                    calls[m] = lambda m=m, yt=yt, ys=ys: skr.evaluate(yt, ys, [m], no_relevant=0.0)
                best = {"argsort": float("inf"), "sort": float("inf"), "read": float("inf"),
                        "output": float("inf")}
                times = dict.fromkeys(calls, float("inf"))
                with one_thread():
                    gc.collect()
                    gc.disable()
                    try:
                        for _ in range(repeats):
                            if not calls:  # (every metric refused or past the cap)
                                best["argsort"] = min(
                                    best["argsort"],
                                    _timed(lambda ys=ys: np.argsort(ys, axis=1))[0],
                                )
                            # Each metric between two argsorts: the floor and the
                            # calls see the same moments of a busy machine.
                            for m, fn in calls.items():
                                best["argsort"] = min(
                                    best["argsort"],
                                    _timed(lambda ys=ys: np.argsort(ys, axis=1))[0],
                                )
                                times[m] = min(times[m], _timed(fn)[0])
                            t_sort, _ = _timed(lambda ys=ys: np.sort(ys, axis=1))
                            t_read, _ = _timed(lambda yt=yt, ys=ys: _read_both(yt, ys))
                            t_out, _ = _timed(lambda ys=ys: _fresh_output(ys))
                            best["sort"] = min(best["sort"], t_sort)
                            best["read"] = min(best["read"], t_read)
                            best["output"] = min(best["output"], t_out)
                    finally:
                        gc.enable()
                    peaks = {m: peak_extra(fn) for m, fn in calls.items()} if memory else {}
                blocks = {m: row_block_bytes(yt, ys, m) for m in calls}
                cell = FullCell(label, best, times, peaks, blocks)
                cell.refused = refused
                cell.projected = projected
                out.append(cell)
            del ys
        if "float32" in scores_axis and "float64" in scores_axis:
            for cell in out:
                if cell.label.startswith(f"{sname} | float32 | "):
                    rname = cell.label.split(" | ")[2]
                    yt = rels[rname].astype(rels_axis[rname])
                    cell.twin = twin_times(yt, base, list(cell.times), repeats)
        del base, rels
    return out


def twin_times(yt, base, metrics, repeats):
    """``{metric: (float64 best, float32 best)}``: each metric on the float64
    scores and on the same scores in float32, timed in turns on one thread
    (which goes first alternates), so that both see the same moments of a
    busy machine; two cells' best times taken minutes apart differ by more
    than the two dtypes do."""
    s64, s32 = full_scores("float64", base), full_scores("float32", base)
    out = {}
    with one_thread():
        for m in metrics:
            best = {"float64": float("inf"), "float32": float("inf")}
            pair = [("float64", s64), ("float32", s32)]
            for turn in range(max(repeats, 3)):
                for name, ys in pair if turn % 2 else pair[::-1]:
                    t, _ = _timed(lambda ys=ys, m=m: skr.evaluate(yt, ys, [m], no_relevant=0.0))
                    best[name] = min(best[name], t)
            out[m] = (best["float64"], best["float32"])
    return out


def full_table(cells, metrics=FULL_METRICS):
    """Markdown: one row per cell, each metric's time over the row argsort (over
    the bound in bold), the floors (a row sort, one read of both inputs, and
    the argsort's output written into fresh memory, :func:`_fresh_output`),
    and the worst peak extra memory over one row-block of the inputs."""
    ms = [m for m in metrics if any(m in c.times or m in c.projected for c in cells)]
    lines = [
        f"| {_cell_text('cell (shape | scores | relevance | y_true dtype)')} | argsort | "
        "sort / argsort | "
        "read / argsort | output / argsort | " + " | ".join(ms) + " | worst peak / row-block |",
        "|---|---:|---:|---:|---:|" + "---:|" * len(ms) + "---:|",
    ]
    for c in cells:
        parts = []
        for m in ms:
            if m in c.projected:
                parts.append(f"**~{c.ratio(m):.0f}× (projected)**")
                continue
            if m not in c.times:
                parts.append("refused" if m in c.refused else "—")
                continue
            r = c.ratio(m)
            parts.append(f"**{r:.2f}×**" if r > c.target else f"{r:.2f}×")
        per_block = {m: p / c.block_bytes[m] for m, p in c.peaks.items()}
        mem = (
            f"{max(per_block.values()):.2f} ({max(per_block, key=per_block.get)})"
            if per_block
            else "—"
        )
        lines.append(
            f"| {_cell_text(c.label)} | {fmt_s(c.floors['argsort'])} | "
            f"{c.floors['sort'] / c.floors['argsort']:.2f} | "
            f"{c.floors['read'] / c.floors['argsort']:.2f} | "
            f"{_share(c.floors, 'output')} | " + " | ".join(parts)
            + f" | {mem} |"
        )
    return lines


def _share(floors, name):
    """A floor's time over the argsort's, or a dash when not timed."""
    return f"{floors[name] / floors['argsort']:.2f}" if name in floors else "—"


def full_summary(cells, metrics=FULL_METRICS):
    """Worst cell per metric, and float32 cells slower than their float64 twins."""
    lines = []
    for m in metrics:
        rs = [(c.ratio(m), c.label) for c in cells if m in c.times]
        # A call past the cap counts as over the bound, at its projection.
        rs += [(c.ratio(m), c.label) for c in cells if m in c.projected]
        if rs:
            w = max(rs)
            n_over = sum(1 for r, _ in rs if r > FULL_TARGET)
            # Its peak extra memory over one row-block of the inputs, per cell.
            blocks = [c.peaks[m] / c.block_bytes[m] for c in cells if m in c.peaks]
            mem = (
                f"; peak extra memory a median {statistics.median(blocks):.2f} row-blocks, "
                f"at most {max(blocks):.2f}"
                if blocks
                else ""
            )
            lines.append(
                f"full depth, {m}: median {statistics.median(r for r, _ in rs):.2f}× a row "
                f"argsort, worst {w[0]:.2f}× ({w[1]}); {n_over} of {len(rs)} cells over "
                f"{FULL_TARGET:g}×{mem}"
            )
    for c in cells:
        for m, t in c.projected.items():
            lines.append(
                f"{c.label} {m}: not timed, one call projected at {t:.0f} s from its first "
                f"{_TRIAL_ROWS} rows (past the cap of {FULL_CALL_CAP:g} s)"
            )
    slower, pairs = [], 0
    for c in cells:
        # The twins timed in turns (twin_times), not the two cells' own best
        # times, taken minutes apart.
        for m, (t64, t32) in c.twin.items():
            pairs += 1
            if t32 > t64 * 1.05:
                slower.append(f"{c.label} {m}: {t32 / t64:.2f}× its float64 twin (in turns)")
    for c in cells:
        for m, why in c.refused.items():
            lines.append(f"{c.label} {m}: refused ({why})")
    if pairs:
        lines.append(
            f"float32 slower than its float64 twin (by over 5 %, the two timed in turns): "
            f"{len(slower)} of {pairs} pairs"
        )
    lines += slower
    return lines
