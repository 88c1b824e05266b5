"""Every ranking measure without a cut-off against a row argsort of the scores.

The grid's full-depth part (``bench.py --only grid --parts full``) times the
eight measures users call most (nDCG, DCG, MAP, MRR, R-precision, bpref, ERR,
RBP) with floors and memory. This script times the rest of the family too:
every measure and preset of the ranking families (accuracy, trec_eval, cwl)
that ``evaluate`` takes on a score matrix without a cut-off, each alone, on
one thread, against a row ``np.argsort`` of the same scores timed between
them. A measure that refuses the scores (no closed form for its expectation
over the orderings of a tie) is listed as refused; one whose single call on
a tenth of the rows says the whole would pass ``--budget`` seconds is listed
with that estimate and not timed.

Run ``python benchmarks/full_family.py`` (about ten minutes on 2 cores);
``--shape 10000x1000``, ``--scores``, ``--relevance`` and ``--repeats`` narrow
or widen it. Prints a table of ratios (best of the repeats over the best
argsort) and the measures over 1.5x.
"""

from __future__ import annotations

import argparse
import gc
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

import grid

import sk_rankmetrics as skr
from sk_rankmetrics._metrics.registry import FAMILIES, PRESETS, REGISTRY

#: The bound of the issue: every measure without a cut-off within 1.5x.
BOUND = 1.5

#: Measures whose name needs a parameter after '@' (not a cut-off): one each.
WITH_PARAMETER = {"iprec_at_recall": "iprec_at_recall@0.5", "rprec_mult": "rprec_mult@0.5"}


def ranking_measures():
    """The names of the ranking families' measures and presets, sorted."""
    names = [n for n, spec in REGISTRY.items() if FAMILIES[spec.family].ranking]
    names += [n for n, p in PRESETS.items() if FAMILIES[REGISTRY[p.base].family].ranking]
    return sorted(WITH_PARAMETER.get(n, n) for n in set(names))


def _best(fn, repeats):
    best = float("inf")
    for _ in range(repeats):
        t = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t)
    return best


def run(shape, scores, relevance, repeats, budget, log=print):
    """``{(score kind, relevance): {name: ratio or str}}`` and the argsorts."""
    rng = np.random.default_rng(20261202)
    base = rng.random(shape)
    rels = {r: grid.relevance(grid.RELEVANCE[r][0], shape, rng).astype(grid.FULL_RELEVANCE[r])
            for r in relevance}
    names = ranking_measures()
    out, floors = {}, {}
    with grid.one_thread():
        for kind in scores:
            s = grid.full_scores(kind, base)
            for rname, y in rels.items():
                cell, floor = {}, float("inf")
                tenth = max(2, shape[0] // 10)
                for name in names:
                    def call(y=y[:tenth], s=s[:tenth], name=name):
                        return skr.evaluate(y, s, [name], no_relevant=0.0)

                    def whole(y=y, s=s, name=name):
                        return skr.evaluate(y, s, [name], no_relevant=0.0)

                    def floor_call(s=s):
                        return np.argsort(s, axis=1)

                    try:
                        call()
                        t = _best(call, 1)
                    except ValueError as exc:
                        cell[name] = "refused: " + str(exc).split(". ")[0].split(": ", 1)[-1]
                        continue
                    if t * shape[0] / tenth > budget:
                        cell[name] = f"over budget (about {t * shape[0] / tenth:.0f} s)"
                        continue
                    gc.collect()
                    times = []
                    try:
                        for _ in range(repeats):
                            floor = min(floor, _best(floor_call, 1))
                            times.append(_best(whole, 1))
                    except ValueError as exc:  # ties beyond the tenth
                        cell[name] = "refused: " + str(exc).split(". ")[0].split(": ", 1)[-1]
                        continue
                    cell[name] = min(times)
                floors[(kind, rname)] = floor
                out[(kind, rname)] = {n: (v / floor if isinstance(v, float) else v)
                                      for n, v in cell.items()}
                log(f"- {kind} | {rname}: argsort {floor:.3f} s", flush=True)
    return out, floors


def table(out, floors, shape):
    cells = list(out)
    names = sorted({n for c in cells for n in out[c]})
    lines = [
        f"Full depth, every ranking measure, {shape[0]}x{shape[1]}, one thread: best time "
        "over the best row np.argsort of the scores (timed between them).",
        "",
        "| measure | " + " | ".join(f"{k} \\| {r}" for k, r in cells) + " |",
        "|---|" + "---:|" * len(cells),
        "| (argsort) | " + " | ".join(f"{floors[c]:.3f} s" for c in cells) + " |",
    ]
    notes, over = [], []
    for n in names:
        row = []
        for c in cells:
            v = out[c].get(n)
            if isinstance(v, float):
                row.append(f"**{v:.2f}×**" if v > BOUND else f"{v:.2f}×")
                if v > BOUND:
                    over.append((v, n, c))
            elif v is None:
                row.append("")
            elif v.startswith("over budget"):
                row.append(v)
                over.append((float("inf"), n, c))
            else:
                row.append("refused")
                notes.append(f"- {n}, {c[0]} | {c[1]}: {v}")
        lines.append(f"| {n} | " + " | ".join(row) + " |")
    lines.append("")
    values = [v for c in cells for v in out[c].values()]
    timed = sum(isinstance(v, float) for v in values)
    untimed = sum(isinstance(v, str) and v.startswith("over") for v in values)
    lines.append(f"- {len(over)} cells over {BOUND}× (or over budget), of {timed} timed "
                 f"and {untimed} not timed")
    for v, n, c in sorted(over, reverse=True):
        lines.append(f"  - {n}, {c[0]} | {c[1]}: " + ("over budget" if v == float("inf")
                                                       else f"{v:.2f}×"))
    lines.extend(sorted(set(notes)))
    return "\n".join(lines)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--shape", default=(100000, 100), type=grid.shape_arg,
                    help="rows x items (default 100000x100)")
    ap.add_argument("--scores", action="append", choices=grid.FULL_SCORES + grid.MORE_FULL_SCORES,
                    help="score kinds (default: float64, float32, int 0..9)")
    ap.add_argument("--relevance", action="append", choices=list(grid.FULL_RELEVANCE),
                    help="relevance (default: graded 1..4 on 5 %%, dense graded 0..4)")
    ap.add_argument("--repeats", type=int, default=3, help="timings per measure (default 3)")
    ap.add_argument("--budget", type=float, default=10.0,
                    help="seconds a call may be estimated to take and be timed (default 10)")
    args = ap.parse_args(argv)
    shape = args.shape
    scores = args.scores or list(grid.FULL_SCORES)
    relevance = args.relevance or ["graded 1..4 on 5 %", "dense graded 0..4"]
    out, floors = run(shape, scores, relevance, args.repeats, args.budget)
    print(table(out, floors, shape))


if __name__ == "__main__":
    main()
