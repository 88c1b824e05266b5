"""``sk-rankmetrics trec_eval``: trec_eval's command line and output, line for line.

Flags and measure syntax are trec_eval's (``-q -c -n -M N -l N -m P.5,10
-m ndcg.1=3,2=9 -m official``); the output is trec_eval's: one line per
measure, ``name<TAB>qid<TAB>value`` with the name padded to 22 characters and
4 decimals, per-query lines first with ``-q``, then ``all``. A measure this
package does not compute yet is an error naming it, never skipped.
"""

from __future__ import annotations

import sys

from ._common import Progress, UsageError, read_input, table_type


def run(args):
    from .._runs import _trec_gain, evaluate_run
    from .._trec_eval import UnsupportedMeasure, format_lines, parse_measures, requests

    if args.judged_only:
        raise UsageError("-J (judged documents only) is not supported yet")
    try:
        chosen = parse_measures(args.measure)
    except (UnsupportedMeasure, ValueError) as exc:
        raise UsageError(str(exc)) from None
    rows = requests(chosen)
    qrels = read_input(args.qrels, args.qrels_format, "qrels")
    run_ = read_input(args.run, args.run_format, "run")
    levels = qrels.relevance[qrels.relevance >= 0]
    metrics = [key if gains is None else (key, {"gain": _trec_gain(levels, gains)})
               for _, _, key, gains in rows]
    if not metrics:  # only runid / num_q: any metric finds the evaluated queries
        metrics = ["mrr"]
    prog = Progress("trec_eval", force=args.progress)
    res = evaluate_run(qrels, run_, metrics, setting="trec_eval", complete=args.complete,
                       threshold=args.level, max_docs=args.max_docs, progress=prog)
    lines = format_lines(chosen, rows, res, tag=run_.tag, per_query=args.query,
                         summary=not args.no_summary)
    if lines:
        sys.stdout.write("\n".join(lines) + "\n")
    return 0


def add_parser(sub, parents):
    from ._common import FORMATS

    p = sub.add_parser(
        "trec_eval", help="trec_eval's flags and output (a drop-in for trec_eval)",
        parents=parents,
        description="Score a run against qrels with trec_eval's flags and print exactly the "
                    "lines trec_eval prints for the measures this package supports: map, "
                    "Rprec, recip_rank, P, recall, success, map_cut, ndcg, ndcg_cut, num_q, "
                    "runid. A measure not supported yet is an error naming it.",
    )
    p.add_argument("qrels", help="qrels file")
    p.add_argument("run", help="run file")
    p.add_argument("-q", dest="query", action="store_true",
                   help="print each query's values before the summary")
    p.add_argument("-c", dest="complete", action="store_true",
                   help="average over every query of the qrels (missing ones count 0)")
    p.add_argument("-n", dest="no_summary", action="store_true",
                   help="no summary ('all') lines")
    p.add_argument("-M", dest="max_docs", type=table_type("max_docs", int), metavar="N",
                   help="only the first N ranked documents of each query")
    p.add_argument("-l", dest="level", type=table_type("threshold", float), metavar="N",
                   help="lowest relevance level that counts as relevant (default 1)")
    p.add_argument("-J", dest="judged_only", action="store_true",
                   help="judged documents only (not supported yet: an error)")
    p.add_argument("-m", dest="measure", action="append", metavar="MEASURE[.PARAMS]",
                   help="measure or set, repeatable: map, P.5,10, ndcg_cut.10, "
                        "ndcg.1=3,2=9, recall.100, success.1,5, official, all_trec "
                        "(default: official)")
    p.add_argument("--qrels-format", choices=FORMATS, default="auto",
                   help="qrels file format (default: from the extension; TREC otherwise)")
    p.add_argument("--run-format", choices=FORMATS, default="auto",
                   help="run file format (default: from the extension; TREC otherwise)")
    p.add_argument("--progress", action="store_true",
                   help="always show the progress bar on stderr")
    p.set_defaults(func=run, parser=p)
    return p
