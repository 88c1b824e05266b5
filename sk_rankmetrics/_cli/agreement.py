"""``sk-rankmetrics agreement``: two qrels compared, as assessors and through the runs they rank.

The statistics are :func:`sk_rankmetrics.cohen_kappa`,
:func:`sk_rankmetrics.krippendorff_alpha` and
:func:`sk_rankmetrics.compare_qrels`; this module reads the files, names
them, and writes the report in the format asked for.
"""

from __future__ import annotations

import os

from .._utils.params import PARAMS
from .common import (
    UsageError,
    add_format_options,
    add_names_option,
    add_output_options,
    check_paths,
    metric_type,
    names_type,
    output_format,
    read_input,
    run_names,
    write_text,
)
from .compare import add_resample_options, add_test_options

FORMATS = ("table", "markdown", "latex")
#: Formats of -o by file extension.
OUTPUTS = {".txt": "table", ".md": "markdown", ".tex": "latex"}
LEVELS = PARAMS["level"].constraints[0].values
#: The Python keywords of the notes, as the flags that set them here.
_FLAGS = {"symmetric=True": "--symmetric", "on_missing='drop'": "--on-missing drop"}


def _flags(text):
    for word, flag in _FLAGS.items():
        text = text.replace(word, flag)
    return text


def _assessors(qa, qb, names, args):
    from .._stats.assessors import cohen_kappa, krippendorff_alpha

    common = dict(confidence_level=args.confidence_level, n_resamples=args.permutations,
                  random_state=args.seed)
    results = [cohen_kappa(qa, qb, weights=w, **common) for w in (None, "linear", "quadratic")]
    results.append(krippendorff_alpha([qa, qb], level=args.level, **common))
    labels = ["Cohen's kappa", "Cohen's kappa, linear weights",
              "Cohen's kappa, quadratic weights", f"Krippendorff's alpha, {args.level}"]
    first = results[0]
    title = (f"Assessor agreement of {names[0]} and {names[1]} on the {first.n_pairs_total} "
             f"(query, document) pairs both judged, over {first.n_queries} queries")
    return results, labels, title


def _render(parts, fmt):
    """The report's parts in one format."""
    (results, labels, title), comparison = parts
    from .._stats.qrels_report import assessor_table

    texts = [assessor_table(results, labels, fmt, title)]
    if comparison is not None:
        if fmt == "markdown":
            texts.append(comparison.to_markdown())
        elif fmt == "latex":
            texts.append(comparison.to_latex())
        else:
            texts.append(str(comparison))
    return _flags("\n\n".join(texts)) + "\n"


def main(args):
    from .._stats.qrels_agreement import compare_qrels

    if args.qrels_b is None:
        raise UsageError("give two qrels files, QRELS_A and QRELS_B")
    if len(args.runs) == 1:
        raise UsageError("agreement compares the orderings of two or more runs: give at least "
                         "two RUN files, or none for the assessor agreement only")
    check_paths(args.runs)
    names = args.qrels_names or [os.path.basename(args.qrels_a), os.path.basename(args.qrels_b)]
    if len(names) != 2:
        raise UsageError(f"--qrels-names gives {len(names)} name(s); give two, one per qrels "
                         "file (--qrels-names human,judge)")
    if names[0] == names[1]:
        names = [os.fspath(args.qrels_a), os.fspath(args.qrels_b)]
        if names[0] == names[1]:
            raise UsageError(f"qrels {names[0]!r} is given twice")
    out_fmt = output_format(args, OUTPUTS)
    qa = read_input(args.qrels_a, args.qrels_format, "qrels")
    qb = read_input(args.qrels_b, args.qrels_format, "qrels")
    assessors = _assessors(qa, qb, names, args)
    comparison = None
    if args.runs:
        if args.names is not None:
            run_names(args.runs, args.runs, args.names)  # a wrong count fails before reading
        runs = [read_input(p, args.run_format, "run") for p in args.runs]
        labels = run_names(args.runs, [r.tag for r in runs], args.names)
        comparison = compare_qrels(
            qa, qb, dict(zip(labels, runs)), metric=args.metric, names=tuple(names),
            setting="trec_eval" if args.trec_eval else "sk_rankmetrics",
            complete=args.complete, symmetric=args.symmetric, test=args.test,
            correction=None if args.correction == "none" else args.correction,
            alpha=args.alpha, confidence_level=args.confidence_level,
            n_resamples=args.permutations, random_state=args.seed,
            on_missing=args.on_missing)
    parts = (assessors, comparison)
    print(_render(parts, args.format), end="")
    if args.output:
        write_text(args.output, _render(parts, out_fmt))
    return 0


HELP = "compare two qrels: assessor agreement, and how they order runs"
DESCRIPTION = ("Compare two qrels of the same topics, such as human judgements and a "
               "language model's: Cohen's kappa (unweighted, linear, quadratic) and "
               "Krippendorff's alpha on the (query, document) pairs both judged, with "
               "bootstrap intervals over queries; and, given two or more runs, how the "
               "two qrels order them: Kendall's tau and tau_AP between the orderings, "
               "the pairs of runs they swap with paired tests under each qrels, and "
               "each query's tau.")


def add_arguments(ap):
    ap.add_argument("qrels_a", metavar="QRELS_A",
                    help="the reference qrels (say, human judgements)")
    ap.add_argument("qrels_b", metavar="QRELS_B", nargs="?",  # checked in main
                    help="the qrels compared with it")
    ap.add_argument("runs", nargs="*", metavar="RUN",
                    help="run files whose orderings the two qrels give (two or more)")
    ap.add_argument("-m", "--metric", type=metric_type, default="ndcg@10", metavar="NAME",
                    help="the metric that orders the runs (default: ndcg@10)")
    ap.add_argument("--qrels-names", type=names_type, metavar="A,B",
                    help="names of the two qrels in the report (default: their file names)")
    add_names_option(ap)
    ap.add_argument("--level", choices=LEVELS, default=PARAMS["level"].default,
                    help="scale of the relevance levels for Krippendorff's alpha "
                         "(default: ordinal)")
    ap.add_argument("--symmetric", action="store_true",
                    help="tau_AP,b, symmetric in the two qrels, instead of tau_AP with "
                         "QRELS_A as the reference")
    ap.add_argument("--trec-eval", action="store_true",
                    help="score the runs as trec_eval does (see 'evaluate --help')")
    ap.add_argument("-c", "--complete", action="store_true",
                    help="score a query a qrels judges but a run lacks as 0 (trec_eval -c)")
    add_test_options(ap, test="paired test of each swapped pair under each qrels (default: "
                              "t-test)",
                     correction="multiple-testing correction over the pairs of runs (default: "
                                "holm)")
    add_resample_options(
        ap, alpha="significance level of the swaps' tests (default: 0.05)",
        resamples="bootstrap resamples of the queries",
        seed="seed of the resamples (default: 0)",
        on_missing="a query scored under one qrels (or for one run) only: raise an error "
                   "(default) or leave it out ('drop')")
    add_format_options(ap)
    ap.add_argument("--format", choices=FORMATS, default="table",
                    help="output: a text table (default), Markdown or LaTeX")
    add_output_options(ap, FORMATS, ".txt, .md, .tex")
    return ap
