"""``sk-rankmetrics compare``: several runs, paired significance tests, a table with markers.

The statistics are :func:`sk_rankmetrics.compare`'s; this module reads the
files, names the runs, and writes the report in the format asked for.
"""

from __future__ import annotations

import csv
import io
import os

from .._utils.errors import printable as _printable
from .._utils.params import PARAMS
from .common import (
    UsageError,
    add_output_options,
    add_report_format_option,
    add_scoring_options,
    fmt_value,
    output_format,
    score_runs,
    table,
    table_type,
    write_text,
)
from .evaluate import DEFAULT_METRICS

#: Most resamples accepted (the table's upper bound: 10 million sign flips
#: take about a minute for 1,000 queries on one core).
MAX_PERMUTATIONS = PARAMS["n_resamples"].constraints[0].high

TESTS = PARAMS["test"].constraints[0].values
CORRECTIONS = (*PARAMS["correction"].constraints[0].values, "none")
FORMATS = ("table", "markdown", "latex", "csv", "json")
#: Formats of -o by file extension.
OUTPUTS = {".txt": "table", ".md": "markdown", ".tex": "latex", ".csv": "csv", ".json": "json"}

CSV_FIELDS = ("metric", "system_a", "system_b", "mean_a", "mean_b", "difference", "ci_low",
              "ci_high", "effect_size", "wins", "ties", "losses", "p_raw", "p", "significant",
              "n_queries")


def _whole_set(name):
    """Whether ``name`` is a beyond-accuracy measure of the whole list set (coverage@k, ...)."""
    from .._beyond.measures import is_beyond, is_whole_set

    return is_beyond(name) and is_whole_set(name.partition("@")[0].strip().lower())


def _baseline(text, paths, names, tags):
    """The run ``--baseline`` names: by its name, tag, path or file name."""
    if text is None:
        return None
    if text in names:
        return text
    found = [name for name, path, tag in zip(names, paths, tags)
             if text in (tag, path, os.path.basename(path))]
    if len(found) == 1:
        return found[0]
    if found:
        raise UsageError(f"--baseline {text!r} matches {len(found)} runs "
                         f"({', '.join(found)}); give one of their names")
    raise UsageError(f"--baseline {text!r} is not one of the runs ({', '.join(names)})")


def _csv(report):
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=CSV_FIELDS, lineterminator="\n")
    writer.writeheader()
    for row in report._pair_rows():
        writer.writerow({k: (repr(v) if isinstance(v, float) else v) for k, v in row.items()})
    return out.getvalue()


def _per_query(report, markdown=False):
    """Per metric: each run's value and each pair's difference, one line per query
    (a text table, or a Markdown table with ``markdown``)."""
    from .._stats.render import escape_markdown

    name = escape_markdown if markdown else _printable
    blocks = []
    for m in report.metrics:
        values = report.per_query[m]
        header = ["query", *map(name, report.systems),
                  *(f"{name(a)} - {name(b)}" for a, b in report.pairs)]
        rows = []
        diffs = [values[a] - values[b] for a, b in report.pairs]
        for i, q in enumerate(report.query_ids[m].tolist()):
            rows.append([name(q), *(fmt_value(values[s][i]) for s in report.systems),
                         *(f"{d[i]:+.4f}" for d in diffs)])
        if markdown:
            lines = ["| " + " | ".join(header) + " |", "|---|" + "---:|" * (len(header) - 1)]
            lines += ["| " + " | ".join(row) + " |" for row in rows]
            blocks.append(f"{name(m)}, per query:\n\n" + "\n".join(lines))
        else:
            blocks.append(f"{name(m)}, per query:\n" + table(header, rows))
    return "\n\n".join(blocks)


def _render(report, fmt, per_query):
    if fmt == "markdown":
        text = report.to_markdown()
    elif fmt == "latex":
        text = report.to_latex()
    elif fmt == "json":
        text = report.to_json()
    elif fmt == "csv":
        return _csv(report)
    else:
        text = str(report)
    if per_query and fmt in ("table", "markdown"):
        text += "\n\n" + _per_query(report, markdown=fmt == "markdown")
    return text + "\n"


def main(args):
    from .._stats.compare import compare
    from .._stats.tukey import TUKEY_TESTS

    if len(args.runs) < 2:
        raise UsageError("compare needs at least two runs")
    whole = [m for m in args.metric or () if _whole_set(m)]
    if whole:  # compare reads per-query values; these have one value per run
        raise UsageError(f"-m {whole[0]} is one value for each whole run (no value per query), "
                         "which compare cannot test; score it with sk-rankmetrics evaluate")
    if args.test in TUKEY_TESTS and args.correction not in ("auto", "none"):
        raise UsageError(f"--correction {args.correction} cannot be applied on top of --test "
                         f"{args.test}: Tukey's HSD already controls the family-wise error over "
                         "every pair of runs; use --correction none (or auto, the default)")
    out_fmt = output_format(args, OUTPUTS)
    results, tags = score_runs(args, DEFAULT_METRICS)
    labels = list(results)
    baseline = _baseline(args.baseline, args.runs, labels, tags)
    report = compare(results, test=args.test,
                     correction=None if args.correction == "none" else args.correction,
                     baseline=baseline, alpha=args.alpha,
                     confidence_level=args.confidence_level, n_resamples=args.permutations,
                     random_state=args.seed, on_missing=args.on_missing)
    report.notes = [args.notices.speaker.speak(n) for n in report.notes]  # flags, not keywords
    setting = "trec_eval" if args.trec_eval else "sk_rankmetrics"
    text = _render(report, args.format, args.per_query)
    if args.format == "table":
        text = f"{len(labels)} runs, setting: {setting}\n\n" + text
    print(text, end="")
    if args.output:
        write_text(args.output, _render(report, out_fmt, False))
    return 0


def add_test_options(p, *, test, correction):
    """--test and --correction, with the command's help texts."""
    p.add_argument("--test", choices=TESTS, default=PARAMS["test"].default, help=test)
    p.add_argument("--correction", choices=CORRECTIONS, default=PARAMS["correction"].default,
                   help=correction)


def add_resample_options(p, *, alpha, resamples, seed, on_missing):
    """--alpha, --confidence-level, --permutations, --seed and --on-missing, checked
    against the parameter table, with the command's help texts."""
    p.add_argument("--alpha", type=table_type("alpha", float),
                   default=PARAMS["alpha"].default, help=alpha)
    p.add_argument("--confidence-level", type=table_type("confidence_level", float),
                   default=PARAMS["confidence_level"].default, metavar="LEVEL",
                   help="level of the bootstrap intervals (default: 0.95)")
    p.add_argument("--permutations", type=table_type("n_resamples", int),
                   default=PARAMS["n_resamples"].default, metavar="N",
                   help=f"{resamples} (default: 10000, at most {MAX_PERMUTATIONS:,})")
    p.add_argument("--seed", type=table_type("random_state", int), default=0, help=seed)
    p.add_argument("--on-missing", choices=PARAMS["on_missing"].constraints[0].values,
                   default=PARAMS["on_missing"].default, help=on_missing)


HELP = "compare runs with paired significance tests"
DESCRIPTION = ("Score several runs against the same qrels and compare them: each "
               "run's mean per metric, with markers naming the runs it beats "
               "significantly (paired two-sided tests over the queries, corrected for "
               "the comparisons of each metric), then every comparison's difference, "
               "bootstrap interval, effect size, wins/ties/losses and p-values.")


def add_arguments(cp):
    cp.add_argument("qrels", help="qrels file (judgements)")
    cp.add_argument("runs", nargs="+", metavar="RUN", help="run files (two or more)")
    add_scoring_options(cp, DEFAULT_METRICS)
    add_test_options(cp, test="paired test (default: t-test); tukey, tukey_oneway and "
                              "randomized_tukey are Tukey's HSD (topics as blocks, one-way, "
                              "randomised), which take every pair of runs as one family",
                     correction="multiple-testing correction over the comparisons of each "
                                "metric (default: auto, which is holm, or none under Tukey's "
                                "tests)")
    cp.add_argument("--baseline", metavar="RUN",
                    help="compare every run with this one (its name, run tag, file name or "
                         "path) instead of every pair")
    add_resample_options(
        cp, alpha="significance level of the markers (default: 0.05)",
        resamples="bootstrap resamples, random sign flips and random permutations",
        seed="seed of the resamples and sign flips (default: 0)",
        on_missing="queries scored in some runs only: raise an error (default) or leave "
                   "them out ('drop'); -c scores them as 0 instead")
    add_report_format_option(cp, FORMATS, "comparison")
    cp.add_argument("-q", "--per-query", action="store_true",
                    help="also print each query's values and differences (table and "
                         "markdown formats)")
    add_output_options(cp, FORMATS, ".txt: the text table, .md, .tex, .csv, .json")
    return cp
