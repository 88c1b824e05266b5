"""This checkout's sk_rankmetrics against an earlier commit's, timed in turns.

Usage::

    python benchmarks/ab.py --old 02a43db                  # nDCG, the grid's full-depth data
    python benchmarks/ab.py --old aa7eaae --metric map --metric bpref \\
        --scores float64 --scores "int 0..9" --relevance "dense graded 0..4" \\
        --shape 100000x100 --turns 9
    python benchmarks/ab.py --old 91702e7 --metric map --layout exclude   # padded rows

The earlier package is taken from the repository's history (``git archive
<commit> sk_rankmetrics``) into a temporary folder and imported under another
name beside this one (the package imports itself by relative imports only).
Both run in one process on one core (each package's ``one_thread()``, BLAS held to one
thread: ``grid.one_thread``), on the data of the
grid's full-depth part (``benchmarks/grid.py``: its score kinds and relevance
distributions), the two calls alternating, the first one of each turn
alternating too: on a shared machine whose speed drifts by 20-30 % between
runs, only the ratio of calls made side by side is steady. Each line gives
both packages' best time, a row ``np.argsort`` of the scores (the full-depth
floor) timed in the same turns, the median over the turns of new/old, and
the largest difference between the two packages' per-row values.
``--layout`` lays the cell out with ``exclude`` or in long format (see
:data:`LAYOUTS`); the floor stays the matrix's row argsort.
"""

from __future__ import annotations

import argparse
import importlib
import io
import pathlib
import subprocess
import sys
import tarfile
import tempfile
import time

import numpy as np

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import grid

import sk_rankmetrics as new

ROOT = pathlib.Path(__file__).resolve().parent.parent


def load_old(commit, folder):
    """The package of ``commit`` imported as ``skr_ab_old`` from ``folder``."""
    done = subprocess.run(["git", "archive", commit, "sk_rankmetrics"], cwd=ROOT,
                          capture_output=True)
    if done.returncode:
        sys.exit(f"ab.py: --old {commit!r} is not a commit of this repository that holds "
                 f"sk_rankmetrics/ (git archive: {done.stderr.decode().strip()}); give a "
                 "commit id or tag, for example --old HEAD~3.")
    data = done.stdout
    with tarfile.open(fileobj=io.BytesIO(data)) as tar:
        tar.extractall(folder, filter="data")
    (pathlib.Path(folder) / "sk_rankmetrics").rename(pathlib.Path(folder) / "skr_ab_old")
    sys.path.insert(0, str(folder))
    return importlib.import_module("skr_ab_old")


def data(shape, score_kind, relevance):
    """The grid's full-depth inputs of one cell, as it draws them:
    ``(y_true, y_score)``."""
    rng = np.random.default_rng(20261201)
    base = rng.random(shape)
    rels = {name: grid.relevance(grid.RELEVANCE[name][0], shape, rng)
            for name in grid.FULL_RELEVANCE}
    return (grid.as_dtype(rels[relevance], grid.FULL_RELEVANCE[relevance]),
            grid.full_scores(score_kind, base))


#: The layouts of one cell's data: the matrix itself; with ``exclude``
#: marking a tenth of each row's items of relevance 0 (held-out items of a
#: recommender); in long format, each row cut to a length drawn from 20 to
#: its width (queries of uneven lengths, padded inside a block); and the same
#: pairs shuffled (a data frame not sorted by query).
LAYOUTS = ("matrix", "exclude", "long", "long-shuffled")


def laid_out(y, s, layout):
    """``(y_true, y_score, keywords of evaluate)`` of a cell in ``layout``."""
    if layout == "matrix":
        return y, s, {}
    rng = np.random.default_rng(20261203)
    if layout == "exclude":
        return y, s, {"exclude": (rng.random(y.shape) < 0.1) & (y == 0)}
    n, N = y.shape
    keep = np.arange(N) < rng.integers(min(20, N), N + 1, n)[:, None]
    yl, sl, qid = y[keep], s[keep], np.repeat(np.arange(n), keep.sum(axis=1))
    if layout == "long-shuffled":
        perm = rng.permutation(qid.shape[0])
        yl, sl, qid = yl[perm], sl[perm], qid[perm]
    return yl, sl, {"qid": qid}


def compare(old, metric, y, s, turns, layout="matrix"):
    """``(new best, old best, argsort best, median new/old, largest difference)``;
    the floor is a row argsort of the matrix's scores whatever the layout."""
    yl, sl, kw = laid_out(y, s, layout)
    calls = [lambda p=p: p.evaluate(yl, sl, [metric], per_row=True, no_relevant=0.0,
                                    **kw)[metric]
             for p in (new, old)]
    a, b = (np.asarray(c()) for c in calls)
    best = [np.inf, np.inf, np.inf]
    ratios = []
    for t in range(turns):
        took = [0.0, 0.0]
        for i in ((0, 1) if t % 2 == 0 else (1, 0)):
            t0 = time.perf_counter()
            calls[i]()
            took[i] = time.perf_counter() - t0
        t0 = time.perf_counter()
        np.argsort(s, axis=1)
        floor = time.perf_counter() - t0
        best = [min(best[0], took[0]), min(best[1], took[1]), min(best[2], floor)]
        ratios.append(took[0] / took[1])
    return (*best, float(np.median(ratios)), float(np.max(np.abs(a - b), initial=0.0)))


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--old", required=True, help="the commit to compare with")
    parser.add_argument("--metric", action="append", help="metric names (default: ndcg)")
    kinds = ", ".join(grid.FULL_SCORES + grid.MORE_FULL_SCORES)
    parser.add_argument("--scores", action="append",
                        help=_escaped(f"score kinds: {kinds} (default: the first three)"))
    relevance = ", ".join(grid.FULL_RELEVANCE)
    parser.add_argument("--relevance", action="append",
                        help=_escaped(f"relevance: {relevance} (default: all)"))
    parser.add_argument("--dtype", action="append",
                        choices=["bool", "int8", "int16", "int32", "int64", "uint8", "uint16",
                                 "uint32", "float32", "float64"],
                        help="y_true's dtypes (default: the grid's, int8 or float64); "
                             "integer and bool dtypes skip real-valued relevance")
    parser.add_argument("--shape", default=(100000, 100), type=grid.shape_arg, help="rows x items")
    parser.add_argument("--turns", type=int, default=9)
    parser.add_argument("--layout", choices=LAYOUTS, default="matrix",
                        help="the matrix; with exclude marking a tenth of each row's items of "
                             "relevance 0; or in long format, rows cut to uneven lengths, in "
                             "query order or shuffled "
                             "(default: matrix)")
    args = parser.parse_args(argv)
    shape = args.shape
    with tempfile.TemporaryDirectory() as folder, grid.one_thread():
        old = load_old(args.old, folder)
        # Each package keeps its own thread setting: the old one's too.
        old_one_thread = importlib.import_module("skr_ab_old._utils.threads").one_thread()
        old_one_thread.__enter__()
        print(f"new: this checkout; old: {args.old}; {shape[0]}x{shape[1]}; "
              f"{args.layout}; one thread; {args.turns} turns\n")
        print("| metric | scores | relevance | new | old | argsort | new / argsort "
              "| old / argsort | new / old (median of turns) | largest difference |")
        print("|---|---|---|---:|---:|---:|---:|---:|---:|---:|")
        for metric in args.metric or ["ndcg"]:
            for kind in args.scores or list(grid.FULL_SCORES):
                for rel in args.relevance or list(grid.FULL_RELEVANCE):
                    y0, s = data(shape, kind, rel)
                    for dt in args.dtype or [None]:
                        if dt is not None and y0.dtype.kind == "f" and dt[0] in "iub":
                            continue  # real-valued gains would be truncated
                        y = y0 if dt is None else grid.as_dtype(y0, dt)
                        cell = f"{rel}" if dt is None else f"{rel} ({dt})"
                        try:
                            t_new, t_old, floor, ratio, diff = compare(
                                old, metric, y, s, args.turns, args.layout)
                        except ValueError as exc:  # a metric that refuses the data (ERR)
                            print(f"| {metric} | {kind} | {cell} | refused: {str(exc)[:60]} |")
                            continue
                        print(f"| {metric} | {kind} | {cell} | {t_new:.3f} s | {t_old:.3f} s | "
                              f"{floor:.3f} s | {t_new / floor:.2f} | {t_old / floor:.2f} | "
                              f"{ratio:.3f} | {diff:.1e} |", flush=True)


def _escaped(text):
    """Help text with its percent signs kept (argparse formats help with %)."""
    return text.replace("%", "%%")


if __name__ == "__main__":
    main()
