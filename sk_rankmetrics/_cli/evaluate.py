"""``sk-rankmetrics evaluate``: the metrics of one run or several against qrels.

The qrels are read once; each run is read and scored in turn. Runs are named
by their tag (the 6th column of a TREC run), by file name where two tags are
the same, or by ``--names``.
"""

from __future__ import annotations

import csv
import io
import json

from .._utils.errors import printable as _printable
from .beyond import query_values
from .common import (
    Progress,
    add_scoring_options,
    fmt_value,
    output_format,
    score_runs,
    table,
    write_text,
)

DEFAULT_METRICS = ("ndcg@10", "map", "P@10", "recall@100", "mrr")


#: Output formats of -o by file extension.
OUTPUTS = {".csv": "csv", ".tsv": "tsv", ".json": "json", ".parquet": "parquet"}


def _flat_rows(results):
    """Header and rows of the flat outputs (CSV, TSV, Parquet): per query, then
    ``all`` (the mean), for each run; a leading ``run`` column with several runs."""
    first = next(iter(results.values()))
    names = first.metrics
    several = len(results) > 1
    header = (["run"] if several else []) + ["query", *names]
    rows = []
    for run_name, res in results.items():
        lead = [run_name] if several else []
        cols = [query_values(res, m).tolist() for m in names]
        rows += [[*lead, str(q), *(c[i] for c in cols)]
                 for i, q in enumerate(res.query_ids.tolist())]
        rows.append([*lead, "all", *(float(res.mean[m]) for m in names)])
    return header, rows


def _json_doc(res):
    names = res.metrics
    ids = [str(q) for q in res.query_ids.tolist()]
    return {
        "mean": {m: float(res.mean[m]) for m in names},
        "per_query": {q: {m: float(query_values(res, m)[i]) for m in names}
                      for i, q in enumerate(ids)},
    }


def _render(results, fmt):
    """The text of a CSV, TSV or JSON output (full float precision)."""
    if fmt == "json":
        if len(results) == 1:
            doc = _json_doc(next(iter(results.values())))
        else:
            doc = {"runs": {name: _json_doc(res) for name, res in results.items()}}
        return json.dumps(doc, indent=1, allow_nan=True) + "\n"
    header, rows = _flat_rows(results)
    out = io.StringIO()
    # csv quotes a name or id holding the separator, a quote or a line break.
    writer = csv.writer(out, delimiter="\t" if fmt == "tsv" else ",", lineterminator="\n")
    writer.writerow(header)
    # repr: the shortest text that reads back as the same float.
    writer.writerows([v if isinstance(v, str) else repr(v) for v in row] for row in rows)
    return out.getvalue()


def _write_output(path, results, fmt):
    if fmt == "parquet":
        import pandas as pd

        header, rows = _flat_rows(results)
        pd.DataFrame(rows, columns=header).to_parquet(path, index=False)
        return
    write_text(path, _render(results, fmt))


def _trec_eval_lines(results, per_query):
    from .._files.trec_eval import format_line

    lines = []
    for run_name, res in results.items():
        names = res.metrics
        if len(results) > 1:  # trec_eval's runid line starts each run's block
            lines.append(format_line("runid", "all", _printable(run_name)))
        if per_query:
            for i, q in enumerate(res.query_ids.tolist()):
                lines += [format_line(m, q, f"{res.per_query[m][i]:6.4f}") for m in names
                          if m in res.per_query]  # a whole-set measure: its "all" line
        lines += [format_line(m, "all", f"{res.mean[m]:6.4f}") for m in names]
    return lines


def _table(results, per_query, setting):
    """The text table: one run as before (query and metrics), several runs with a
    leading ``run`` column and one row per run (per query as well with ``-q``)."""
    first = next(iter(results.values()))
    names = first.metrics
    if len(results) == 1:
        rows = []
        if per_query:
            rows += [[str(q)] + [fmt_value(query_values(first, m)[i]) for m in names]
                     for i, q in enumerate(first.query_ids.tolist())]
        rows.append(["all"] + [fmt_value(first.mean[m]) for m in names])
        return (f"{len(first.query_ids)} queries, setting: {setting}\n"
                + table(["query", *names], rows))
    shown = [(_printable(name), res) for name, res in results.items()]  # one line each
    counts = [len(res.query_ids) for _, res in shown]
    if len(set(counts)) == 1:
        queries = f"{counts[0]} queries each"
    else:
        queries = "queries: " + ", ".join(f"{k} {n}" for (k, _), n in zip(shown, counts))
    rows = []
    for run_name, res in shown:
        if per_query:
            rows += [[run_name, str(q)] + [fmt_value(query_values(res, m)[i]) for m in names]
                     for i, q in enumerate(res.query_ids.tolist())]
            rows.append([run_name, "all"] + [fmt_value(res.mean[m]) for m in names])
        else:
            rows.append([run_name] + [fmt_value(res.mean[m]) for m in names])
    header = ["run", "query", *names] if per_query else ["run", *names]
    return f"{len(results)} runs, {queries}, setting: {setting}\n" + table(header, rows)


def main(args):
    out_fmt = output_format(args, OUTPUTS)
    prog = Progress("", force=args.progress)
    results, _ = score_runs(args, DEFAULT_METRICS, prog)
    if args.format == "trec_eval":
        print("\n".join(_trec_eval_lines(results, args.per_query)))
    elif args.format in ("csv", "tsv", "json"):
        print(_render(results, args.format), end="")
    if args.output:
        _write_output(args.output, results, out_fmt)
    if args.format == "table":
        print(_table(results, args.per_query,
                     "trec_eval" if args.trec_eval else "sk_rankmetrics"))
    return 0


HELP = "score one run or several against qrels"
DESCRIPTION = ("Score runs against qrels (read once) and print a table of metrics, "
               "one row per run, named by the run tag (the file name where two runs "
               "share a tag, or --names). Files: TREC "
               "(qrels 'qid iter docno rel', run 'qid Q0 docno rank score tag'), CSV/TSV "
               "or Parquet in long format (columns query, item, relevance / score), or "
               "JSON {query: {doc: value}}.")


def add_arguments(ev):
    ev.add_argument("qrels", help="qrels file (judgements)")
    ev.add_argument("runs", nargs="+", metavar="RUN",
                    help="run file(s): the rankings to score")
    add_scoring_options(ev, DEFAULT_METRICS)
    ev.add_argument("-q", "--per-query", action="store_true",
                    help="print one line per query as well as the mean")
    ev.add_argument("-o", "--output", metavar="FILE",
                    help="also write per-query values and means to FILE (.csv, .tsv, .json "
                         "or .parquet, by extension; full float precision)")
    ev.add_argument("--output-format", choices=("csv", "tsv", "json", "parquet"), default=None,
                    help="format of --output (default: from its extension)")
    ev.add_argument("--format", choices=("table", "trec_eval", "csv", "tsv", "json"),
                    default="table",
                    help="what to print: a table (default), trec_eval's lines (a runid line "
                         "before each run's when there are several), CSV, TSV or JSON; CSV, "
                         "TSV and Parquet get a leading run column with several runs, JSON "
                         "an object {\"runs\": {name: ...}}")
    return ev
