"""``sk-rankmetrics trec_eval``: trec_eval's command line and output, line for line.

Flags and measure syntax are trec_eval's (``-q -c -n -M N -l N -m P.5,10
-m ndcg.1=3,2=9 -m official``); the output is trec_eval's: one line per
measure, ``name<TAB>qid<TAB>value`` with the name padded to 22 characters and
4 decimals, per-query lines first with ``-q``, then ``all``. A measure this
package does not compute yet is an error naming it, never skipped.
"""

from __future__ import annotations

import math
import sys

import numpy as np

from .common import Progress, UsageError, first_parameters, read_input, table_type


def _refuse_negative_gains(metrics, chosen):
    """A gain given for a negative level (ndcg.-1=2) is not reproduced: refused."""
    from .._files.trec_eval import NEGATIVE_GAIN_WHY, negative_gain

    for printed, options, _ in metrics:
        found = negative_gain(options.get("gain"))
        if found is not None:
            name = max((n for n in chosen if printed.startswith(n + "_")), key=len)
            raise UsageError(
                f"-m {name}.{chosen[name][0]}: a gain for the negative level {found[0]:g} "
                f"is not reproduced: {NEGATIVE_GAIN_WHY}. Give gains for levels >= 0 "
                "(negative levels are then worth 0, as trec_eval gives them), or use "
                f"sk-rankmetrics evaluate -m {name}.{chosen[name][0]}, where a gain listed "
                "for a negative level is that level's gain in the DCG and the ideal."
            )


def _relstrings(param, args, qrels, run_, res, missing):
    """``{printed name: each query's relevance string}`` of relstring(.N) under -q."""
    from .._files.runs import relevance_strings

    length = 10 if param is None else int(param[1][0])
    name = "relstring" if param is None else f"relstring_{param[0]}"
    relstrings = {name: relevance_strings(qrels, run_, res.query_ids, length,
                                          max_docs=args.max_docs,
                                          judged_only=args.judged_only)}
    if param is not None and missing is not None and length > 0:
        # trec_eval resets only "relstring": relstring.N shows its stand-in document
        relstrings[name] = np.where(missing, "-", np.asarray(relstrings[name],
                                                             dtype=object)).tolist()
    return relstrings


def main(args):
    from .._files.runs import evaluate_run, trec_levels
    from .._files.trec_eval import (
        UnsupportedMeasure,
        complete_num_rel,
        format_lines,
        metric_requests,
        parse_measures,
        quirk_needs,
        reads_option,
        reproduce_quirks,
        requests,
    )
    from .._metrics.names import parse_name

    args.measure = first_parameters(args.measure)  # trec_eval reads the first
    try:
        chosen = parse_measures(args.measure)
        rows = requests(chosen)
    except (UnsupportedMeasure, ValueError) as exc:
        raise UsageError(str(exc)) from None
    level = None if args.level is None else float(math.trunc(args.level))  # atol, as trec_eval
    if level is not None and level < 0:
        raise UsageError(
            f"-l {args.level:g}: a relevance level below 0 is not reproduced. trec_eval 10 then "
            "counts retrieved unjudged documents as relevant but not in num_rel (map can "
            "exceed 1; docs/which_ndcg.md, trec_eval's quirks); use -l 0 to count every "
            "judged document as relevant."
        )
    prog = Progress("", force=args.progress)
    # Levels as trec_eval reads them (atol), warned once; the gains of
    # ndcg.L=G are completed over them by the path evaluate_run takes too.
    qrels = trec_levels(read_input(args.qrels, args.qrels_format, "qrels", prog, args.parser))
    run_ = read_input(args.run, args.run_format, "run", prog, args.parser)
    levels = qrels.relevance[qrels.relevance >= 0]
    metrics = metric_requests(chosen, levels)  # [(printed name, options, metric)]
    _refuse_negative_gains(metrics, chosen)
    rows = [(top, name, name, options) for top, name, _, options in rows]
    if not metrics:  # only runid / relstring: any metric finds the queries
        metrics = ["num_q"]
    # A global option reaches the measures that read it (trec_eval's table,
    # _files/trec_eval.py READS); trec_eval ignores it for the others (-l for ndcg).
    specs = [parse_name(m if isinstance(m, str) else m[2])[0] for m in metrics]

    def given(option, value):
        return value if any(reads_option(s, option, True) for s in specs) else None

    # Counts trec_eval's quirks need (reproduce_quirks), under labels no measure prints.
    metrics += [(label, {}, metric) for label, metric in
                quirk_needs(chosen, judged_only=args.judged_only, complete=args.complete)]

    try:
        res = evaluate_run(qrels, run_, metrics, setting="trec_eval", complete=args.complete,
                           threshold=given("threshold", level),
                           max_docs=given("max_docs", args.max_docs),
                           judged_only=bool(given("judged_only", args.judged_only)),
                           n_docs=given("n_docs", args.n_docs), progress=prog)
    finally:
        prog.close()
    missing = reproduce_quirks(res, chosen, rows, metrics, qrels=qrels, run_qids=run_.qid,
                               judged_only=args.judged_only, complete=args.complete,
                               n_docs=args.n_docs)
    relstrings = None
    if "relstring" in chosen and args.query:
        relstrings = _relstrings(chosen["relstring"], args, qrels, run_, res, missing)
    # trec_eval's own rule for num_rel's summary under -c (see complete_num_rel).
    summaries = {"num_rel": complete_num_rel(qrels.relevance)} if args.complete else None
    lines = format_lines(chosen, rows, res, tag=run_.tag, per_query=args.query,
                         summary=not args.no_summary, relstrings=relstrings,
                         summaries=summaries)
    if lines:
        sys.stdout.write("\n".join(lines) + "\n")
    return 0


HELP = "trec_eval's flags and output (a drop-in for trec_eval)"
DESCRIPTION = ("Score a run against qrels with trec_eval's flags and print exactly the "
               "lines trec_eval prints: every measure of all_trec (the preference and "
               "judgement-group measures, which need other files, are an error naming "
               "them).")


def add_arguments(p):
    from .._files.formats import FORMATS

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
                   help="lowest relevance level that counts as relevant (default 1; read as "
                        "trec_eval reads it, truncated to an integer; below 0 is refused)")
    p.add_argument("-N", dest="n_docs", type=table_type("n_docs", int), metavar="N",
                   help="number of documents in the collection (utility's missed "
                        "non-relevant documents)")
    p.add_argument("-J", dest="judged_only", action="store_true",
                   help="evaluate over judged documents only: unjudged ones are removed from "
                        "the ranking first")
    p.add_argument("-m", dest="measure", action="append", metavar="MEASURE[.PARAMS]",
                   help="measure or set, repeatable: map, P.5,10, ndcg_cut.10, "
                        "ndcg.1=3,2=9, recall.100, success.1,5, bpref, infAP, gm_map, "
                        "iprec_at_recall.0.5, set_F.0.5, rbp.p=0.8, utility.1,-1,0,0, "
                        "official, all_trec (default: official); the metric reference of "
                        "the documentation (docs/metrics.md) lists every one")
    p.add_argument("--qrels-format", choices=FORMATS, default="auto",
                   help="qrels file format (default: from the extension; TREC otherwise)")
    p.add_argument("--run-format", choices=FORMATS, default="auto",
                   help="run file format (default: from the extension; TREC otherwise)")
    p.add_argument("--progress", action="store_true",
                   help="always show the progress bar on stderr")
    return p
