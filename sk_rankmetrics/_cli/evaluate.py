"""``sk-rankmetrics evaluate``: the metrics of one run against qrels."""

from __future__ import annotations

import json
import os

from ._common import (
    Progress,
    UsageError,
    add_run_options,
    evaluate_one,
    fmt_value,
    read_input,
    table,
    write_text,
)

DEFAULT_METRICS = ("ndcg@10", "map", "P@10", "recall@100", "mrr")


#: Output formats of -o by file extension.
OUTPUTS = {".csv": "csv", ".tsv": "tsv", ".json": "json", ".parquet": "parquet"}


def output_format(path, fmt=None):
    """The format of ``-o FILE``: named, or from the extension (unknown: an error)."""
    if fmt:
        return fmt
    ext = os.path.splitext(os.fspath(path))[1].lower()
    if ext not in OUTPUTS:
        raise UsageError(f"-o {os.fspath(path)!r}: unknown extension {ext or '(none)'!r}; "
                         f"use {', '.join(OUTPUTS)} or name the format with --output-format")
    return OUTPUTS[ext]


def _write_output(path, result, fmt):
    names = result.metrics
    ids = [str(q) for q in result.query_ids.tolist()]
    if fmt == "json":
        doc = {
            "mean": {m: float(result.mean[m]) for m in names},
            "per_query": {q: {m: float(result.per_query[m][i]) for m in names}
                          for i, q in enumerate(ids)},
        }
        write_text(path, json.dumps(doc, indent=1, allow_nan=True) + "\n")
        return
    if fmt == "parquet":
        import pandas as pd

        frame = pd.DataFrame({"query": [*ids, "all"],
                              **{m: [*result.per_query[m].tolist(), result.mean[m]]
                                 for m in names}})
        frame.to_parquet(path, index=False)
        return
    sep = "\t" if fmt == "tsv" else ","
    # repr: the shortest text that reads back as the same float.
    rows = [sep.join(["query", *names])]
    cols = [result.per_query[m].tolist() for m in names]
    rows += [sep.join([q, *(repr(c[i]) for c in cols)]) for i, q in enumerate(ids)]
    rows.append(sep.join(["all", *(repr(float(result.mean[m])) for m in names)]))
    write_text(path, "\n".join(rows) + "\n")


def _trec_eval_lines(res, per_query):
    from .._trec_eval import _line

    names = res.metrics
    lines = []
    if per_query:
        for i, q in enumerate(res.query_ids.tolist()):
            lines += [_line(m, q, f"{res.per_query[m][i]:6.4f}") for m in names]
    lines += [_line(m, "all", f"{res.mean[m]:6.4f}") for m in names]
    return lines


def run(args):
    out_fmt = output_format(args.output, args.output_format) if args.output else None
    prog = Progress("", force=args.progress)
    qrels = read_input(args.qrels, args.qrels_format, "qrels", prog)
    res = evaluate_one(qrels, args.run, args, DEFAULT_METRICS, prog)
    names = res.metrics
    if args.format == "trec_eval":
        print("\n".join(_trec_eval_lines(res, args.per_query)))
    elif args.format in ("csv", "json"):
        import tempfile

        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "out." + args.format)
            _write_output(path, res, args.format)
            with open(path, encoding="utf-8") as fh:
                print(fh.read(), end="")
    if args.output:
        _write_output(args.output, res, out_fmt)
    if args.format != "table":
        return 0
    rows = []
    if args.per_query:
        rows += [[str(q)] + [fmt_value(res.per_query[m][i]) for m in names]
                 for i, q in enumerate(res.query_ids.tolist())]
    rows.append(["all"] + [fmt_value(res.mean[m]) for m in names])
    print(f"{len(res.query_ids)} queries, setting: "
          f"{'trec_eval' if args.trec_eval else 'sk_rankmetrics'}")
    print(table(["query", *names], rows))
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
                    help="also write per-query values and means to FILE (.csv, .tsv, .json "
                         "or .parquet, by extension; full float precision)")
    ev.add_argument("--output-format", choices=("csv", "tsv", "json", "parquet"), default=None,
                    help="format of --output (default: from its extension)")
    ev.add_argument("--format", choices=("table", "trec_eval", "csv", "json"), default="table",
                    help="what to print: a table (default), trec_eval's lines, CSV or JSON")
    ev.set_defaults(func=run, parser=ev)
    return ev
