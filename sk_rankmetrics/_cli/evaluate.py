"""``sk-rankmetrics evaluate``: the metrics of one run against qrels."""

from __future__ import annotations

import json
import os

import numpy as np

from ._common import (
    add_run_options,
    evaluate_one,
    fmt_value,
    read_input,
    table,
    write_text,
)

DEFAULT_METRICS = ("ndcg@10", "map", "P@10", "recall@100", "mrr")


def _write_output(path, result, fmt=None):
    fmt = fmt or ("json" if os.fspath(path).lower().endswith(".json") else "csv")
    names = result.metrics
    if fmt == "json":
        doc = {
            "mean": {m: float(result.mean[m]) for m in names},
            "per_query": {
                str(q): {m: float(result.per_query[m][i]) for m in names}
                for i, q in enumerate(result.query_ids.tolist())
            },
        }
        text = json.dumps(doc, indent=1, allow_nan=True)
    else:
        cols = [np.asarray(result.query_ids).astype(str)]
        cols += [np.char.mod("%.6g", result.per_query[m]) for m in names]
        body = cols[0]
        for c in cols[1:]:
            body = np.char.add(np.char.add(body, ","), c)
        text = "\n".join(["query," + ",".join(names), *body.tolist(),
                          "all," + ",".join(f"{result.mean[m]:.6g}" for m in names)]) + "\n"
    write_text(path, text)


def run(args):
    qrels = read_input(args.qrels, args.qrels_format, "qrels")
    res = evaluate_one(qrels, args.run, args, DEFAULT_METRICS)
    names = res.metrics
    rows = []
    if args.per_query:
        rows += [[str(q)] + [fmt_value(res.per_query[m][i]) for m in names]
                 for i, q in enumerate(res.query_ids.tolist())]
    rows.append(["all"] + [fmt_value(res.mean[m]) for m in names])
    print(f"{len(res.query_ids)} queries, setting: "
          f"{'trec_eval' if args.trec_eval else 'sk_rankmetrics'}")
    print(table(["query", *names], rows))
    if args.output:
        _write_output(args.output, res, args.output_format)
    return 0


def add_parser(sub, parents):
    ev = sub.add_parser(
        "evaluate", help="score one run against qrels", parents=parents,
        description="Score a run against qrels and print a table of metrics. Files: TREC "
                    "(qrels 'qid iter docno rel', run 'qid Q0 docno rank score tag'), CSV/TSV "
                    "or Parquet in long format (columns query, item, relevance / score), or "
                    "JSON {query: {doc: value}}.",
    )
    ev.add_argument("qrels", help="qrels file (judgements)")
    ev.add_argument("run", help="run file (the ranking to score)")
    add_run_options(ev, DEFAULT_METRICS)
    ev.add_argument("-q", "--per-query", action="store_true",
                    help="print one line per query as well as the mean")
    ev.add_argument("-o", "--output", metavar="FILE",
                    help="also write per-query values and means to FILE (.csv or .json)")
    ev.add_argument("--output-format", choices=("csv", "json"), default=None,
                    help="format of --output (default: from its extension, CSV otherwise)")
    ev.set_defaults(func=run, parser=ev)
    return ev
