"""Speed and memory of sk_rankmetrics against scikit-learn, NumPy and pytrec_eval.

Usage::

    python benchmarks/bench.py            # full run (a few minutes on 2 cores)
    python benchmarks/bench.py --quick    # smaller inputs, under a minute
    python benchmarks/bench.py --only sklearn-k10 --only memory
    python benchmarks/bench.py --only grid  # the grid of benchmarks/grid.py (minutes)
    python benchmarks/bench.py --only grid --quick --shapes 2000x1000 --metrics ndcg@10
    python benchmarks/bench.py --only grid --parts full   # metrics without a cut-off
    python benchmarks/bench.py --only grid --parts full --quick --metrics map --scores float32

Every case builds seeded data, times each side as the best of a few repeats
(``time.perf_counter``) in the same process, and the script prints one
Markdown table at the end (progress goes to stderr). Numbers that must agree
(sk_rankmetrics against scikit-learn, ``evaluate`` against the single-metric
functions, per-query values against pytrec_eval) are checked; a failed check
is printed and makes the script exit with status 1.

Needs only sk_rankmetrics and the ``bench`` extra; a case whose optional
package is missing prints why and is skipped.
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import datetime
import gc
import os
import platform
import sys
import time
import tracemalloc

import numpy as np
import sklearn
import sklearn.metrics as skm

import sk_rankmetrics as skr
import sk_rankmetrics._evaluation.engine as skr_engine
import sk_rankmetrics._metrics.registry as skr_registry
import sk_rankmetrics._utils.params as skr_params

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import grid  # benchmarks/grid.py

MiB = 2.0**20


@dataclasses.dataclass
class Config:
    quick: bool
    n_rows: int  # matrix cases
    n_items: int
    mem_rows: int  # memory case
    mem_items: int
    n_queries: int  # long format case
    repeats: int  # repeats of sk_rankmetrics calls
    base_repeats: int  # repeats of the (slower) baselines
    n_check: int  # queries compared with pytrec_eval
    grid_shapes: tuple = ()  # names of grid.SHAPES / grid.QUICK_SHAPES (empty: all)
    grid_metrics: tuple = ()  # names of grid.METRICS (empty: all)
    grid_parts: tuple = ()  # names of grid.PARTS (empty: all)
    grid_scores: tuple = ()  # full-depth part: names of grid.FULL_SCORES (empty: all)
    grid_relevance: tuple = ()  # full-depth part: names of grid.FULL_RELEVANCE (empty: all)
    grid_repeats: int = 0  # timings per call in the grid (0: 3, long format and Dask 2)


FULL = Config(False, 10_000, 1_000, 2_000, 20_000, 100_000, 5, 3, 2_000)
QUICK = Config(True, 2_000, 1_000, 500, 20_000, 10_000, 3, 1, 500)


@dataclasses.dataclass
class Row:
    case: str
    ours: str
    baseline: str
    ratio: str
    target: str
    met: str


class Report:
    """Collects table rows, check lines and failures."""

    def __init__(self):
        self.rows = []
        self.checks = []
        self.failed = []
        self.skipped = []
        self.extra = []  # lines printed after the table (the grid's)

    def check(self, label, ours, theirs, tol):
        diff = abs(float(ours) - float(theirs))
        ok = diff <= tol
        line = (
            f"{label}: sk_rankmetrics {float(ours):.15f}, baseline {float(theirs):.15f}, "
            f"|diff| = {diff:.2e} (tolerance {tol:g}) {'OK' if ok else 'FAILED'}"
        )
        self.checks.append(line)
        log(line)
        if not ok:
            self.failed.append(line)


def log(msg):
    print(msg, file=sys.stderr, flush=True)


def best_of(fn, repeats):
    """Best wall time of ``repeats`` calls and the last call's result."""
    best = float("inf")
    result = None
    for _ in range(repeats):
        result = None
        gc.collect()
        t0 = time.perf_counter()
        result = fn()
        best = min(best, time.perf_counter() - t0)
    return best, result


def peak_extra(fn):
    """Peak memory (bytes) allocated by ``fn()`` while it runs, and its result."""
    gc.collect()
    tracemalloc.start()
    tracemalloc.reset_peak()
    try:
        result = fn()
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    return peak, result


def fmt_s(t):
    return f"{t:.3f} s" if t >= 0.01 else f"{t * 1e3:.2f} ms"


def speed_row(case, ours, base, target_speedup=None, informational=False):
    """A row comparing times; the ratio is written as a speed-up (base / ours)."""
    speedup = base / ours
    ratio = f"{speedup:.1f}× faster" if speedup >= 1 else f"{1 / speedup:.2f}× slower"
    if informational or target_speedup is None:
        target, met = "(informational)", "—"
    else:
        target = f"≥ {target_speedup:g}× faster"
        met = "yes" if speedup >= target_speedup else "**no**"
    return Row(case, fmt_s(ours), fmt_s(base), ratio, target, met)


# ---------------------------------------------------------------- data

_MATRIX = {}


def matrix_data(cfg):
    """Graded ``y_true`` (integers 0..4) and float scores, seeded."""
    key = (cfg.n_rows, cfg.n_items)
    if key not in _MATRIX:
        rng = np.random.default_rng(20240601)
        y_score = rng.random(key)
        y_true = rng.integers(0, 5, size=key)
        _MATRIX.clear()
        _MATRIX[key] = (y_true, y_score)
    return _MATRIX[key]


def shape_label(cfg):
    return f"{cfg.n_rows:,} × {cfg.n_items:,}"


# ---------------------------------------------------------------- cases


@contextlib.contextmanager
def one_thread():
    """Rank every chunk in the calling thread (the package's default uses a pool)."""
    saved = skr_engine.N_THREADS
    skr_engine.N_THREADS = 1
    try:
        yield
    finally:
        skr_engine.N_THREADS = saved


def case_sklearn_k10(cfg, rep):
    y_true, y_score = matrix_data(cfg)
    t_ours, v_ours = best_of(lambda: skr.ndcg_score(y_true, y_score, k=10), cfg.repeats)
    t_sk, v_sk = best_of(lambda: skm.ndcg_score(y_true, y_score, k=10), cfg.base_repeats)
    rep.check("ndcg@10 (ties averaged) vs sklearn.metrics.ndcg_score", v_ours, v_sk, 1e-12)
    rep.rows.append(
        speed_row(f"1. ndcg_score k=10, {shape_label(cfg)} vs scikit-learn", t_ours, t_sk, 15)
    )
    with one_thread():
        t_one, _ = best_of(lambda: skr.ndcg_score(y_true, y_score, k=10), cfg.repeats)
    rep.rows.append(speed_row("1b. same, sk_rankmetrics on one thread", t_one, t_sk, 15))


def case_argpartition_k10(cfg, rep):
    y_true, y_score = matrix_data(cfg)
    t_ours, _ = best_of(lambda: skr.ndcg_score(y_true, y_score, k=10), cfg.repeats)
    t_np, _ = best_of(lambda: np.argpartition(-y_score, 10, axis=1), cfg.repeats)
    ratio = t_ours / t_np
    rep.rows.append(
        Row(
            f"2. ndcg_score k=10, {shape_label(cfg)} vs bare np.argpartition",
            fmt_s(t_ours),
            fmt_s(t_np),
            f"{ratio:.2f}× argpartition's time",
            "≤ 3× argpartition's time",
            "yes" if ratio <= 3 else "**no**",
        )
    )


def case_sklearn_full(cfg, rep):
    y_true, y_score = matrix_data(cfg)
    t_ours, v_ours = best_of(lambda: skr.ndcg_score(y_true, y_score), cfg.repeats)
    t_sk, v_sk = best_of(lambda: skm.ndcg_score(y_true, y_score), cfg.base_repeats)
    rep.check("ndcg (k=None) vs sklearn.metrics.ndcg_score", v_ours, v_sk, 1e-12)
    rep.rows.append(
        speed_row(f"3. ndcg_score k=None, {shape_label(cfg)} vs scikit-learn", t_ours, t_sk, 5)
    )
    with one_thread():
        t_one, _ = best_of(lambda: skr.ndcg_score(y_true, y_score), cfg.repeats)
    rep.rows.append(speed_row("3b. same, sk_rankmetrics on one thread", t_one, t_sk, 5))


def case_ignore_ties(cfg, rep):
    y_true, y_score = matrix_data(cfg)
    t_ours, v_ours = best_of(
        lambda: skr.ndcg_score(y_true, y_score, k=10, ignore_ties=True), cfg.repeats
    )
    t_sk, v_sk = best_of(
        lambda: skm.ndcg_score(y_true, y_score, k=10, ignore_ties=True), cfg.base_repeats
    )
    rep.check("ndcg@10 ignore_ties=True vs scikit-learn ignore_ties=True", v_ours, v_sk, 1e-12)
    rep.rows.append(
        speed_row(
            f"4. ndcg_score k=10 ignore_ties=True, {shape_label(cfg)} vs scikit-learn",
            t_ours,
            t_sk,
            informational=True,
        )
    )


def case_heavy_ties(cfg, rep):
    """Scores with only 20 distinct values per row: large tie groups everywhere."""
    y_true, y_score = matrix_data(cfg)
    tied = np.floor(y_score * 20)
    for k, num in ((10, "8"), (None, "8b")):
        t_ours, v_ours = best_of(lambda k=k: skr.ndcg_score(y_true, tied, k=k), cfg.repeats)
        t_sk, v_sk = best_of(lambda k=k: skm.ndcg_score(y_true, tied, k=k), cfg.base_repeats)
        rep.check(f"ndcg@{k} on heavily tied scores vs scikit-learn", v_ours, v_sk, 1e-12)
        rep.rows.append(
            speed_row(
                f"{num}. ndcg_score k={k}, {shape_label(cfg)}, 20 distinct scores per row, "
                "vs scikit-learn",
                t_ours,
                t_sk,
                informational=True,
            )
        )


EVAL_METRICS = ["ndcg@10", "map@10", "mrr@10", "precision@10", "recall@10", "hit_rate@10"]
SINGLES = {
    "ndcg@10": skr.ndcg_score,
    "map@10": skr.mean_average_precision_score,
    "mrr@10": skr.reciprocal_rank_score,
    "precision@10": skr.precision_at_k_score,
    "recall@10": skr.recall_at_k_score,
    "hit_rate@10": skr.hit_rate_score,
}


def case_evaluate(cfg, rep):
    y_true, y_score = matrix_data(cfg)

    def six_calls():
        return {name: f(y_true, y_score, k=10) for name, f in SINGLES.items()}

    t_ours, v_ours = best_of(lambda: skr.evaluate(y_true, y_score, EVAL_METRICS), cfg.repeats)
    t_six, v_six = best_of(six_calls, cfg.repeats)
    for name in EVAL_METRICS:
        rep.check(
            f"evaluate()[{name!r}] vs the single-metric function", v_ours[name], v_six[name], 1e-12
        )
    rep.rows.append(
        speed_row(
            f"5. evaluate(6 metrics @10), {shape_label(cfg)} vs 6 single-metric calls",
            t_ours,
            t_six,
            informational=True,
        )
    )


#: Measures without a cut-off asked with some of a cut-off, as users ask
#: for them together (:func:`case_mixed`).
MIXED_METRICS = ["ndcg", "ndcg@10", "map", "recall@100"]


def case_mixed(cfg, rep):
    """``evaluate`` of measures with and without a cut-off together, over
    sparse graded relevance (2 % of the items, levels 1..3) and float64
    scores, on one thread, against the sum of each measure alone: one call
    should cost no more than the calls apart. (Where the relevant items are
    few, those without a cut-off are ranked through them and those with
    one by a selection, each as it is alone.)"""
    rng = np.random.default_rng(20261206)
    shape = (cfg.n_rows, cfg.n_items)
    y_true = ((rng.random(shape) < 0.02) * rng.integers(1, 4, shape)).astype(np.int8)
    y_score = rng.random(shape)

    def apart():
        return {m: skr.evaluate(y_true, y_score, [m], no_relevant=0.0)[m]
                for m in MIXED_METRICS}

    with one_thread():
        t_ours, v_ours = best_of(
            lambda: skr.evaluate(y_true, y_score, MIXED_METRICS, no_relevant=0.0), cfg.repeats)
        t_apart, v_apart = best_of(apart, cfg.repeats)
    for name in MIXED_METRICS:
        rep.check(f"evaluate()[{name!r}] together vs alone", v_ours[name], v_apart[name],
                  1e-12)
    rep.rows.append(
        speed_row(
            f"5b. evaluate({', '.join(MIXED_METRICS)}), {shape_label(cfg)}, sparse graded "
            "relevance, one thread, vs the four alone",
            t_ours,
            t_apart,
            target_speedup=1.0,
        )
    )


#: The package's first nine metrics; every other registry entry came with the
#: measures of trec_eval, ir_measures and ranx.
FIRST_NINE = ("ndcg", "dcg", "cg", "map", "precision", "recall", "hit_rate", "mrr", "r_precision")


def every_measure(depth):
    """Every registered measure at cut-off ``depth``: ``name@depth`` for those that
    take a cut-off, ``max_docs=depth`` for measures of the whole ranking (trec_eval's
    ``-M``), the default parameter for ``rprec_mult`` / ``iprec_at_recall``."""
    out = []
    for name, spec in skr_registry.METRICS.items():
        if spec.takes_k:
            out.append(f"{name}@{depth}")
        elif spec.at_option is not None:
            at = skr_params.PARAMS[spec.at_option].examples[0]
            out.append((f"{name}@{at}", {"max_docs": depth}))
        elif "max_docs" in spec.options:
            out.append((name, {"max_docs": depth}))
        else:
            out.append(name)
    return out


def _label(item):
    return item if isinstance(item, str) else item[0]


def case_every_measure(cfg, rep):
    """evaluate() with every measure at k=100 against ndcg_score(k=100) alone."""
    y_true, y_score = matrix_data(cfg)
    every = every_measure(100)
    new = [m for m in every if _label(m).split("@")[0] not in FIRST_NINE]
    kw = {"no_relevant": 0.0}
    t_ndcg, _ = best_of(lambda: skr.ndcg_score(y_true, y_score, k=100), cfg.repeats)
    t_new, _ = best_of(lambda: skr.evaluate(y_true, y_score, new, **kw), cfg.repeats)
    t_all, _ = best_of(lambda: skr.evaluate(y_true, y_score, every, **kw), cfg.repeats)
    with one_thread():
        t_ndcg1, _ = best_of(lambda: skr.ndcg_score(y_true, y_score, k=100), cfg.repeats)
        t_new1, _ = best_of(lambda: skr.evaluate(y_true, y_score, new, **kw), cfg.repeats)
    # The crowd reads what each measure reads alone (first rows, to keep it short).
    head = slice(0, min(500, cfg.n_rows))
    crowd = skr.evaluate(y_true[head], y_score[head], every, **kw)
    worst, worst_label = 0.0, ""
    for item in every:
        alone = skr.evaluate(y_true[head], y_score[head], [item], **kw)[_label(item)]
        if abs(alone - crowd[_label(item)]) >= worst:
            worst, worst_label = abs(alone - crowd[_label(item)]), _label(item)
    rep.check(
        f"every measure: evaluate() of all {len(every)} vs each alone, largest "
        f"difference ({worst_label})",
        worst,
        0.0,
        1e-12,
    )
    rep.checks.append(f"every measure: {', '.join(_label(m) for m in every)}")

    def ratio_row(case, t_ours, t_base, target):
        ratio = t_ours / t_base
        met = "—" if target is None else ("yes" if ratio <= target else "**no**")
        return Row(
            case,
            fmt_s(t_ours),
            fmt_s(t_base),
            f"{ratio:.2f}× ndcg_score's time",
            "(informational)" if target is None else f"≤ {target:g}× ndcg_score's time",
            met,
        )

    shape = shape_label(cfg)
    rep.rows.append(
        ratio_row(
            f"9. evaluate(the {len(new)} measures added for trec_eval, ir_measures and ranx, "
            f"at 100), {shape} vs ndcg_score(k=100) alone",
            t_new,
            t_ndcg,
            3,
        )
    )
    rep.rows.append(ratio_row("9b. same, both on one thread", t_new1, t_ndcg1, 3))
    rep.rows.append(
        ratio_row(
            f"9c. evaluate(all {len(every)} measures at 100, R-precision included), {shape} "
            "vs ndcg_score(k=100) alone",
            t_all,
            t_ndcg,
            None,
        )
    )


def case_memory(cfg, rep):
    shape = (cfg.mem_rows, cfg.mem_items)
    rng = np.random.default_rng(20240602)
    y_score = rng.random(shape)
    y_true = rng.integers(0, 5, size=shape).astype(np.float64)
    inputs = y_true.nbytes + y_score.nbytes
    log(f"memory: inputs {inputs / MiB:.1f} MiB")
    m_ours, v_ours = peak_extra(lambda: skr.ndcg_score(y_true, y_score, k=10))
    m_sk, v_sk = peak_extra(lambda: skm.ndcg_score(y_true, y_score, k=10))
    rep.check("ndcg@10 on the memory input vs scikit-learn", v_ours, v_sk, 1e-12)
    rep.checks.append(
        f"memory: inputs {inputs / MiB:.1f} MiB; peak extra sk_rankmetrics "
        f"{m_ours / MiB:.1f} MiB ({m_ours / inputs:.3f}× inputs), scikit-learn "
        f"{m_sk / MiB:.1f} MiB ({m_sk / inputs:.2f}× inputs)"
    )
    rep.rows.append(
        Row(
            f"6. peak extra memory, ndcg_score k=10, {shape[0]:,} × {shape[1]:,} float64 "
            f"(inputs {inputs / MiB:.0f} MiB) vs scikit-learn",
            f"{m_ours / MiB:.1f} MiB ({m_ours / inputs:.3f}× inputs)",
            f"{m_sk / MiB:.1f} MiB ({m_sk / inputs:.2f}× inputs)",
            f"{m_ours / m_sk:.4f}× scikit-learn's",
            "≤ 0.25× inputs",
            "yes" if m_ours <= 0.25 * inputs else "**no**",
        )
    )


def long_data(cfg):
    """Queries of 10..200 documents, sorted and contiguous by qid."""
    rng = np.random.default_rng(20240603)
    lengths = rng.integers(10, 201, size=cfg.n_queries)
    qid = np.repeat(np.arange(cfg.n_queries), lengths)
    n = qid.shape[0]
    y_true = rng.integers(0, 5, size=n)
    y_score = rng.random(n)
    perm = rng.permutation(n)
    return qid, y_true, y_score, perm


def to_pytrec(qid, y_true, y_score):
    """Arrays (sorted by qid) -> pytrec_eval's qrels and run dicts of dicts."""
    bounds = np.flatnonzero(qid[1:] != qid[:-1]) + 1
    starts = [0, *bounds.tolist()]
    ends = [*bounds.tolist(), qid.shape[0]]
    names = [f"d{i}" for i in range(max(e - s for s, e in zip(starts, ends)))]
    rel = y_true.tolist()
    score = y_score.tolist()
    qids = qid[starts].tolist()
    qrels, run = {}, {}
    for q, s, e in zip(qids, starts, ends):
        key = str(q)
        docs = names[: e - s]
        qrels[key] = dict(zip(docs, rel[s:e]))
        run[key] = dict(zip(docs, score[s:e]))
    return qrels, run


def case_long(cfg, rep):
    try:
        import pytrec_eval
    except ImportError:
        pytrec_eval = None
        msg = (
            "7. long format: pytrec_eval not installed (pip install "
            "pytrec-eval-terrier, or the bench extra); baseline skipped"
        )
        log(msg)
        rep.skipped.append(msg)

    qid, y_true, y_score, perm = long_data(cfg)
    n = qid.shape[0]
    label = f"{cfg.n_queries:,} queries, {n:,} rows"
    log(f"long format: {label}")
    t_ours, v_ours = best_of(lambda: skr.ndcg_score(y_true, y_score, qid=qid, k=10), cfg.repeats)
    qid_s, yt_s, ys_s = qid[perm], y_true[perm], y_score[perm]
    t_shuf, v_shuf = best_of(
        lambda: skr.ndcg_score(yt_s, ys_s, qid=qid_s, k=10), max(2, cfg.repeats // 2)
    )
    rep.check("long format: shuffled rows vs sorted rows (sk_rankmetrics)", v_shuf, v_ours, 1e-12)

    if pytrec_eval is None:
        rep.rows.append(
            Row(
                f"7. ndcg@10 long format (qid sorted), {label}",
                fmt_s(t_ours),
                "pytrec_eval not installed",
                "—",
                "≥ 3× faster",
                "skipped",
            )
        )
        rep.rows.append(
            Row(
                f"7b. same, rows shuffled, {label}", fmt_s(t_shuf), "—", "—", "(informational)", "—"
            )
        )
        return

    def baseline():
        qrels, run = to_pytrec(qid, y_true, y_score)
        evaluator = pytrec_eval.RelevanceEvaluator(qrels, {"ndcg_cut.10"})
        return evaluator.evaluate(run)

    t_pt, res = best_of(baseline, cfg.base_repeats)
    t0 = time.perf_counter()
    to_pytrec(qid, y_true, y_score)
    t_conv = time.perf_counter() - t0
    rep.checks.append(
        f"long format: pytrec_eval {fmt_s(t_pt)} of which about {fmt_s(t_conv)} is the "
        "conversion of the arrays to dicts"
    )

    # Per-query agreement on a seeded subsample of queries with no tied scores,
    # not even in single precision (see the README: pytrec_eval separates
    # scores that are equal in float32 by document name).
    ours_q = skr.ndcg_score(y_true, y_score, qid=qid, k=10, per_row=True)
    theirs_q = np.array([res[str(q)]["ndcg_cut_10"] for q in range(cfg.n_queries)])
    starts = np.concatenate(([0], np.flatnonzero(qid[1:] != qid[:-1]) + 1, [n]))
    ys32 = y_score.astype(np.float32)

    def tie_free(q):
        s = ys32[starts[q] : starts[q + 1]]
        return np.unique(s).shape[0] == s.shape[0]

    rng = np.random.default_rng(20240604)
    sample = [q for q in rng.choice(cfg.n_queries, cfg.n_check, replace=False) if tie_free(q)]
    worst = int(sample[np.argmax(np.abs(ours_q[sample] - theirs_q[sample]))])
    rep.check(
        f"long format: per-query ndcg@10 vs pytrec_eval ndcg_cut_10, worst of "
        f"{len(sample)} sampled tie-free queries (query {worst})",
        ours_q[worst],
        theirs_q[worst],
        1e-6,
    )
    differ = np.flatnonzero(np.abs(ours_q - theirs_q) > 1e-6)
    tied = sum(not tie_free(q) for q in differ)
    rep.checks.append(
        f"long format: {differ.shape[0]} of {cfg.n_queries:,} queries differ from "
        f"pytrec_eval by more than 1e-6; {tied} of them have scores equal in float32; "
        f"mean ndcg@10 {v_ours:.9f} (sk_rankmetrics) vs {theirs_q.mean():.9f} (pytrec_eval)"
    )
    rep.rows.append(
        speed_row(
            f"7. ndcg@10 long format (qid sorted), {label} vs pytrec_eval incl. dict conversion",
            t_ours,
            t_pt,
            3,
        )
    )
    rep.rows.append(
        speed_row(
            f"7b. same, rows shuffled, {label} vs the same pytrec_eval time",
            t_shuf,
            t_pt,
            informational=True,
        )
    )


def case_grid(cfg, rep):
    """Every cell of the grid (benchmarks/grid.py) against its floor, one thread."""
    shapes = grid.QUICK_SHAPES if cfg.quick else grid.SHAPES
    if cfg.grid_shapes:
        shapes = {name: shapes[name] for name in cfg.grid_shapes}
    full_metrics = [m for m in cfg.grid_metrics if m in grid.FULL_METRICS] or grid.FULL_METRICS
    metrics = [m for m in cfg.grid_metrics if m in grid.METRICS] or list(grid.METRICS)
    parts = cfg.grid_parts or grid.PARTS

    agreed = []

    def check(label, ours, theirs):
        # Two ways to the same ndcg@10 must agree in every cell; only
        # disagreements are listed.
        if abs(float(ours) - float(theirs)) <= 1e-12:
            agreed.append(label)
        else:
            rep.check(f"grid: {label}: ndcg@10 two ways", ours, theirs, 1e-12)

    # A few timings per call keep the full grid within minutes; the larger
    # inputs (long format, Dask) vary less between timings.
    reps, reps_big = cfg.grid_repeats or 3, cfg.grid_repeats or 2
    cells = []
    t0 = time.perf_counter()
    if "matrix" in parts:
        cells += grid.matrix_cells(shapes, metrics, reps, log=log, check=check)
    if "full" in parts:
        full_shapes = grid.QUICK_FULL_SHAPES if cfg.quick else grid.FULL_SHAPES
        if cfg.grid_shapes:
            full_shapes = {n: full_shapes[n] for n in cfg.grid_shapes if n in full_shapes}
        full = grid.full_cells(
            full_shapes,
            full_metrics,
            reps,
            scores_axis=cfg.grid_scores or grid.FULL_SCORES,
            relevance_axis=cfg.grid_relevance or None,
            log=log,
        )
        rep.extra += [
            "Full depth: metrics without a cut-off, each alone (evaluate(y_true, y_score, "
            f"[name])) on one thread, best of {reps}, over the best of a row np.argsort of "
            "the scores timed between them (bound "
            f"{grid.FULL_TARGET:g}×); the floors np.sort and one read of both inputs as "
            "ratios to the argsort; peak extra memory (tracemalloc) of the worst metric "
            "over one row-block of both inputs. A call projected past "
            f"{grid.FULL_CALL_CAP:g} s from its first rows is not timed (its projection "
            "shown).",
            "",
            *grid.full_table(full),
            "",
            *[f"- {line}" for line in grid.full_summary(full)],
            "",
        ]
    if "long" in parts:
        cells += grid.long_cells(cfg.n_queries, metrics, reps_big, log=log, check=check)
    if "ranked" in parts:
        cells += grid.ranked_cells(cfg.n_queries, 100, metrics, reps, log=log, check=check)
    if "files" in parts:
        cells += grid.file_cells(100 if cfg.quick else 500, reps, log=log)
    if "dask" in parts:
        cells += grid.dask_cells(max(10_000, cfg.n_queries // 4), reps_big, log=log, check=check)
    rep.checks.append(
        f"grid: {len(agreed)} agreement checks passed to 1e-12 (evaluate()'s "
        "ndcg@10 against ndcg_score(k=10) or evaluate_ranked's single-metric "
        "call; Dask against the in-memory call); failed ones are listed above"
    )
    ex = rep.extra
    ex.append(
        f"Grid ({time.perf_counter() - t0:.0f} s): sk_rankmetrics on one thread "
        f"(one_thread()), each ratio the best of {reps} (long format and Dask: "
        f"{reps_big}) timings over the best of the floor's, timed in turns; bounds: "
        + ", ".join(f"{m} {grid.TARGET[m]:g}×" for m in metrics)
        + f" (matrices), {grid.LONG_TARGET:g}× (long format, ranked lists, files, "
        "Dask)."
    )
    ex.append("")
    ex += grid.table(cells, metrics)
    ex.append("")
    ex += [f"- {line}" for line in grid.summary(cells, metrics)]
    ex += [f"- skipped: {line}" for line in grid.SKIPPED]
    over = [(c.label, m) for c in cells for m in c.over()]
    ex.append(f"- {len(over)} of {sum(len(c.times) for c in cells)} measurements over their bound")
    if "sklearn" in parts:
        shape = (cfg.n_rows, cfg.n_items)
        t_ours, t_sk = grid.sklearn_row(
            shape,
            cfg.repeats,
            cfg.base_repeats,
            log=log,
            check=lambda lab, a, b: rep.check(lab, a, b, 1e-12),
        )
        rep.rows.append(
            speed_row(
                f"grid. ndcg_score k=10, {shape[0]:,} × {shape[1]:,}, graded 1..4 on 5 % of "
                "the items (int64), default threads, vs scikit-learn",
                t_ours,
                t_sk,
                grid.SKLEARN_TARGET,
            )
        )


CASES = {
    "sklearn-k10": case_sklearn_k10,
    "argpartition-k10": case_argpartition_k10,
    "sklearn-full": case_sklearn_full,
    "ignore-ties": case_ignore_ties,
    "evaluate": case_evaluate,
    "mixed": case_mixed,
    "every-measure": case_every_measure,
    "memory": case_memory,
    "long": case_long,
    "heavy-ties": case_heavy_ties,
    "grid": case_grid,
}


def print_table(rep, cfg, elapsed):
    now = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    print(
        f"sk_rankmetrics {skr.__version__} benchmarks ({'quick' if cfg.quick else 'full'} "
        f"run), {now}; {os.cpu_count()} CPUs, Python {platform.python_version()}, "
        f"NumPy {np.__version__}, scikit-learn {sklearn.__version__}; best of "
        f"{cfg.repeats} (sk_rankmetrics) / {cfg.base_repeats} (baselines) repeats; "
        f"total {elapsed:.0f} s"
    )
    print()
    header = ["case", "sk_rankmetrics", "baseline", "ratio", "target", "met"]
    print("| " + " | ".join(header) + " |")
    print("|" + "|".join(["---"] * len(header)) + "|")
    for r in rep.rows:
        print(f"| {r.case} | {r.ours} | {r.baseline} | {r.ratio} | {r.target} | {r.met} |")
    print()
    for line in rep.skipped:
        print(f"- skipped: {line}")
    for line in rep.checks:
        print(f"- {line}")
    if rep.extra:
        print()
        print(*rep.extra, sep="\n")


def _listed(names):
    """Names for an argparse help text (which reads '%' as a format)."""
    return ", ".join(names).replace("%", "%%")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--quick", action="store_true", help="smaller inputs and fewer repeats (under a minute)"
    )
    parser.add_argument(
        "--only",
        action="append",
        metavar="NAME",
        choices=list(CASES),
        help=f"run only this case (repeatable): {_listed(CASES)}",
    )
    parser.add_argument(
        "--repeats",
        type=int,
        default=None,
        help="repeats of each sk_rankmetrics call (best is kept)",
    )
    parser.add_argument(
        "--shapes",
        action="append",
        metavar="SHAPE",
        default=[],
        help="grid: matrix shapes to run (repeatable): "
        f"{_listed(grid.SHAPES)}; with --quick {_listed(grid.QUICK_SHAPES)}",
    )
    parser.add_argument(
        "--metrics",
        action="append",
        metavar="METRIC",
        default=[],
        choices=list(grid.METRICS) + list(grid.FULL_METRICS),
        help=f"grid: metrics to time (repeatable): {_listed(grid.METRICS)}; in the "
        f"full-depth part (--parts full) {_listed(grid.FULL_METRICS)}",
    )
    parser.add_argument(
        "--scores",
        action="append",
        metavar="KIND",
        default=[],
        choices=list(grid.FULL_SCORES) + list(grid.MORE_FULL_SCORES),
        help=f"grid, full-depth part: score kinds (repeatable): {_listed(grid.FULL_SCORES)} "
        f"(the default), and {_listed(grid.MORE_FULL_SCORES)}",
    )
    parser.add_argument(
        "--relevance",
        action="append",
        metavar="DIST",
        default=[],
        choices=list(grid.FULL_RELEVANCE),
        help="grid, full-depth part: relevance distributions (repeatable): "
        f"{_listed(grid.FULL_RELEVANCE)}",
    )
    parser.add_argument(
        "--parts",
        action="append",
        metavar="PART",
        default=[],
        choices=list(grid.PARTS),
        help=f"grid: parts to run (repeatable): {_listed(grid.PARTS)}",
    )
    args = parser.parse_args(argv)
    cfg = QUICK if args.quick else FULL
    known = grid.QUICK_SHAPES if args.quick else grid.SHAPES
    for name in args.shapes:
        if name not in known:
            parser.error(
                f"--shapes: {name!r} is not a grid shape"
                f"{' of --quick' if args.quick else ''}; use one of "
                f"{', '.join(known)}"
            )
    cfg = dataclasses.replace(
        cfg,
        grid_shapes=tuple(args.shapes),
        grid_metrics=tuple(args.metrics),
        grid_parts=tuple(args.parts),
        grid_scores=tuple(args.scores),
        grid_relevance=tuple(args.relevance),
    )
    if args.repeats is not None:
        if args.repeats < 1:
            parser.error("--repeats must be at least 1")
        cfg = dataclasses.replace(cfg, repeats=args.repeats, grid_repeats=args.repeats)
    # The grid takes minutes: it runs when asked for (--only grid).
    names = args.only or [name for name in CASES if name != "grid"]
    rep = Report()
    t0 = time.perf_counter()
    for name in CASES:
        if name in names:
            log(f"== {name}")
            CASES[name](cfg, rep)
    print_table(rep, cfg, time.perf_counter() - t0)
    if rep.failed:
        print("\nFAILED checks:", *rep.failed, sep="\n", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
