"""``sk-rankmetrics compare``: several runs with paired significance tests."""

from __future__ import annotations

import json
import os

import numpy as np

from ._common import (
    UsageError,
    add_run_options,
    bounded_int,
    evaluate_one,
    fmt_value,
    read_input,
    table,
    write_text,
)
from .evaluate import DEFAULT_METRICS

#: Most sign-flip permutations accepted (10 million take about a minute for
#: 1,000 queries on one core).
MAX_PERMUTATIONS = 10_000_000


def run(args):
    from .._significance import paired_t_test, randomization_test

    if len(args.runs) < 2:
        raise UsageError("compare needs at least two runs")
    qrels = read_input(args.qrels, args.qrels_format, "qrels")
    results = [evaluate_one(qrels, p, args, DEFAULT_METRICS) for p in args.runs]
    common = results[0].query_ids
    for r in results[1:]:
        common = np.intersect1d(common, r.query_ids)
    if common.size == 0:
        from ._common import CommandError

        raise CommandError("the runs have no evaluated query in common.")
    names = results[0].metrics
    labels = [os.path.basename(p) for p in args.runs]
    rows, records = [], []
    for m in names:
        vals = [r.per_query[m][np.searchsorted(r.query_ids, common)] for r in results]
        base = vals[0]
        row = [m, fmt_value(float(np.nanmean(base)))]
        for lab, v in zip(labels[1:], vals[1:]):
            ok = ~(np.isnan(base) | np.isnan(v))
            p_t = paired_t_test(v[ok], base[ok])
            p_r = randomization_test(v[ok], base[ok], permutations=args.permutations,
                                     seed=args.seed)
            row += [fmt_value(float(np.nanmean(v))), f"{p_t:.4g}", f"{p_r:.4g}"]
            records.append({"metric": m, "run": lab, "baseline": labels[0],
                            "mean": float(np.nanmean(v)), "baseline_mean":
                            float(np.nanmean(base)), "p_ttest": p_t,
                            "p_randomization": p_r, "n_queries": int(ok.sum())})
        rows.append(row)
    header = ["metric", labels[0]]
    for lab in labels[1:]:
        header += [lab, "p(t-test)", "p(random.)"]
    print(f"{common.size} queries in common; baseline: {labels[0]}; paired two-sided tests, "
          f"{args.permutations} sign-flip permutations (seed {args.seed})")
    print(table(header, rows))
    if args.output:
        write_text(args.output, json.dumps(records, indent=1))
    return 0


def add_parser(sub, parents):
    cp = sub.add_parser(
        "compare", help="compare runs with paired significance tests", parents=parents,
        description="Score several runs against the same qrels; for each run after the "
                    "first, paired two-sided p-values against the first (baseline): the "
                    "t-test and a seeded randomisation (sign-flip) test.",
    )
    cp.add_argument("qrels", help="qrels file (judgements)")
    cp.add_argument("runs", nargs="+", metavar="RUN", help="run files; the first is the "
                    "baseline")
    add_run_options(cp, DEFAULT_METRICS)
    cp.add_argument("--permutations", type=bounded_int(1, MAX_PERMUTATIONS, "permutations"),
                    default=10_000,
                    help="sign-flip permutations of the randomisation test (default 10000, "
                         f"at most {MAX_PERMUTATIONS:,})")
    cp.add_argument("--seed", type=int, default=0, help="seed of the randomisation test")
    cp.add_argument("-o", "--output", metavar="FILE", help="also write the results as JSON")
    cp.set_defaults(func=run, parser=cp)
    return cp
