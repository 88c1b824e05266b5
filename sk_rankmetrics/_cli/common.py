"""What the commands share: errors, argument types, the progress bar, file reading."""

from __future__ import annotations

import argparse
import os
import sys
import time
import warnings

import numpy as np

from .._files.formats import FORMATS
from .._metrics.registry import METRICS
from .._utils.constraints import Constant, check_param
from .._utils.params import PARAMS
from .beyond import add_beyond_options


class CommandError(Exception):
    """A data error: printed as one line, exit code 1."""


class UsageError(Exception):
    """A usage error found after parsing: printed with the usage line, exit code 2."""


# -- argument types: checked at parse time, named by their flag ---------------------


def table_type(name, convert):
    """An argparse type that converts a value and checks it against ``PARAMS[name]``.

    argparse names the flag in its message ("argument -M/--max-docs: ...")
    and exits with status 2.
    """

    def parse(text):
        try:
            value = convert(text)
        except ValueError:
            raise argparse.ArgumentTypeError(
                f"{text!r} is not {'an integer' if convert is int else 'a number'}"
            ) from None
        try:
            return check_param(name, value, PARAMS[name])
        except ValueError:
            accepted = " or ".join(c.describe() for c in PARAMS[name].constraints
                                   if not (isinstance(c, Constant) and c.value is None))
            raise argparse.ArgumentTypeError(
                f"{text!r} is not accepted: give {accepted}"
            ) from None

    parse.__name__ = name  # argparse's "invalid <name> value" wording
    return parse


def metric_type(text):
    """A metric name (this package's, trec_eval's such as P_5, or trec_eval's -m
    syntax such as P.5,10 or all_trec), checked now."""
    from .._beyond.measures import is_beyond
    from .._files.trec_eval import MEASURES, SETS, parse_measures
    from .._metrics.names import parse_name

    if is_beyond(text):  # coverage@10, ...: checked with their data
        return text
    try:
        if text in SETS or ("." in text and text.partition(".")[0] in MEASURES):
            parse_measures([text])
        else:
            parse_name(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(" ".join(str(exc).split())) from None
    return text


def bounded_int(low, high, what):
    def parse(text):
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not an integer") from None
        if not low <= value <= high:
            raise argparse.ArgumentTypeError(
                f"{value} is out of range: {what} must be from {low:,} to {high:,}"
            )
        return value

    parse.__name__ = what
    return parse


# -- progress bar -----------------------------------------------------------


class Progress:
    """A progress bar on stderr, one line per phase of the work.

    Each phase ("reading run run.txt", "matching", "evaluating") gets its own
    labelled line, drawn once the phase has run for ``delay`` seconds, so
    that only the slow phases show. Shown when stderr is a terminal, or
    always (from the start of each phase) when ``force`` is true. Called as
    ``progress(done, total)``; :meth:`phase` starts the next phase.
    """

    def __init__(self, label, *, force=False, delay=2.0, stream=None):
        self.stream = sys.stderr if stream is None else stream
        isatty = getattr(self.stream, "isatty", lambda: False)()
        self.enabled = bool(force or isatty)
        self.delay = 0.0 if force else delay
        self.label = label
        self.t0 = time.monotonic()
        self.shown = False
        self.last = (0, 0)
        self.unit = None

    def phase(self, label, unit=None):
        """End the current phase's line (if drawn) and start a new phase;
        ``unit="bytes"`` shows its counts in MiB."""
        self.close()
        self.label, self.t0, self.shown, self.last = label, time.monotonic(), False, (0, 0)
        self.unit = unit
        if self.enabled and self.delay == 0:
            self(0, 0)

    def __call__(self, done, total):
        if not self.enabled:
            return
        self.last = (done, total)
        elapsed = time.monotonic() - self.t0
        if elapsed < self.delay and not self.shown:
            return
        self.shown = True
        frac = min(done / total, 1.0) if total else 0.0
        width = 30
        bar = "#" * int(frac * width)
        if self.unit == "bytes":
            count = f"{done / 2**20:.1f}/{total / 2**20:.1f} MiB"
        else:
            count = f"{done}/{total}"
        self.stream.write(f"\r{self.label} [{bar:<{width}}] {100 * frac:3.0f}% {count} "
                          f"{elapsed:.1f}s")
        self.stream.flush()

    def close(self):
        """Finish the current phase's line: complete, with a newline."""
        if self.shown:
            done, total = self.last
            if total and done < total:
                self(total, total)
            elif not total:
                self(1, 1)
            self.stream.write("\n")
            self.stream.flush()
            self.shown = False


# -- reading inputs ---------------------------------------------------------


def read_input(path, fmt, kind, progress=None, parser=None):
    """Qrels (``kind="qrels"``) or a run from a file in any of ``FORMATS``, read as
    :func:`~sk_rankmetrics.evaluate_run` reads a path (:mod:`sk_rankmetrics._files.formats`).

    ``progress`` (a :class:`Progress`) shows the reading of TREC files as a
    phase of its own. An error names ``parser``'s flag for the file's format
    (``--run-format``, ``--qrels-format``) where the reader speaks of
    ``format=``.
    """
    from .._files.formats import read_qrels, read_run

    if progress is not None:
        progress.phase(f"reading {kind} {os.path.basename(path)}", unit="bytes")
    reader = read_qrels if kind == "qrels" else read_run
    try:
        return reader(path, format=fmt, progress=progress)
    except (ValueError, ImportError) as exc:
        # format=... is --qrels-format or --run-format, by the file's kind.
        from .messages import Speaker

        speaker = Speaker(parser, {"format": (f"{kind}_format",)}) if parser else None
        text = str(exc) if speaker is None else speaker.speak(exc)
        raise CommandError(text) from None


# -- output -----------------------------------------------------------------


def fmt_value(v):
    return "nan" if np.isnan(v) else f"{v:.4f}"


def table(header, rows):
    widths = [max(len(str(r[i])) for r in [header, *rows]) for i in range(len(header))]
    lines = ["  ".join(f"{c:<{w}}" if i == 0 else f"{c:>{w}}"
                       for i, (c, w) in enumerate(zip(r, widths))) for r in [header, *rows]]
    return "\n".join(lines)


def write_text(path, text):
    try:
        with open(path, "w", encoding="utf-8") as fh:
            fh.write(text)
    except OSError as exc:
        raise CommandError(f"cannot write {os.fspath(path)!r}: {exc.strerror or exc}.") \
            from None


# -- options shared by evaluate and compare --------------------------------------


def add_run_options(p, default_metrics):
    p.add_argument("-m", "--metric", action="append", metavar="NAME", type=metric_type,
                   help=f"metric to compute, repeatable; any of the {len(METRICS)} measures: "
                        "ndcg@10, map, map@100, P@5, recall@100, mrr, hit_rate@10, "
                        "r_precision, err@20, nerr@20, rbp, rbp_resid, f1@10, bpref, gm_map, "
                        "infap, judged@10, unjudged@10, iprec_at_recall@0.5, 11pt_avg, "
                        "set_f, num_rel_ret, ...; trec_eval's names (P_5, ndcg_cut_10, "
                        "map_cut_100, recip_rank, Rprec, iprec_at_recall_0.10, set_F, infAP) "
                        "and their -m syntax (P.5,10, ndcg.1=3,2=9, rbp.p=0.8, official, "
                        "all_trec), and ir_measures' (nDCG@10, AP@100, P(rel=2)@5, "
                        "RBP(p=0.8,rel=1), ERR@20). "
                        "Every name: the metric reference of the documentation "
                        "(docs/metrics.md) or sk_rankmetrics.metric_names(). Default: "
                        + ", ".join(default_metrics))
    p.add_argument("--trec-eval", action="store_true",
                   help="reproduce trec_eval: ties broken by docno descending, AP divided "
                        "by all relevant documents, queries "
                        "without relevant documents score 0, RBP with p=0.9 and graded "
                        "gains")
    p.add_argument("-c", "--complete", action="store_true",
                   help="count queries of the qrels missing from the run as 0 "
                        "(trec_eval -c)")
    p.add_argument("-l", "--threshold", type=table_type("threshold", float), default=None,
                   metavar="LEVEL",
                   help="lowest relevance level that counts as relevant (trec_eval -l); "
                        "negative qrels levels never count")
    p.add_argument("-M", "--max-docs", type=table_type("max_docs", int), default=None,
                   metavar="N",
                   help="score only the first N ranked documents of each query "
                        "(trec_eval -M)")
    p.add_argument("--no-relevant", type=no_relevant_type, default=None, metavar="POLICY",
                   help="what a query without a relevant document scores: 'warn' (0, counted "
                        "in the mean, with one warning naming the metrics; the default), "
                        "'skip' (left out of the mean) or a number from 0 to 1, or nan "
                        "(default with --trec-eval: 0, as trec_eval)")
    add_format_options(p)
    p.add_argument("--progress", action="store_true",
                   help="always show the progress bar on stderr (default: only on a "
                        "terminal, for inputs that take over 2 seconds)")


def add_ranked_input_options(p):
    """--ignore-identical-ids and --duplicates (read by :func:`read_ranked_input`)."""
    p.add_argument("--ignore-identical-ids", action="store_true",
                   help="drop each retrieved document whose id is the query's own id, as "
                        "BEIR and MTEB do (the qrels are not changed); the count is reported")
    p.add_argument("--duplicates", choices=("raise", "first"), default="raise",
                   help="a document ranked twice for one query: 'raise' (the default) "
                        "refuses the file naming the line; 'first' keeps its highest score "
                        "and reports the count dropped")


def read_ranked_input(run_path, args, progress=None):
    """A run file read for ``evaluate`` and ``compare``, with the policies of
    :func:`add_ranked_input_options` applied (warnings give the counts)."""
    ignore = getattr(args, "ignore_identical_ids", False)
    duplicates = getattr(args, "duplicates", "raise")
    if duplicates == "raise":
        run = read_input(run_path, args.run_format, "run", progress, args.parser)
    else:
        from .._files.pairs import ranked_run

        try:
            run = ranked_run(run_path, args.run_format, duplicates=duplicates,
                             where=f"run {os.fspath(run_path)!r}")
        except ValueError as exc:
            raise CommandError(str(exc)) from None
    from .._files.pairs import prepare_run

    return prepare_run(run, ignore_identical_ids=ignore, duplicates=duplicates,
                       where=f"run {os.fspath(run_path)!r}")


def add_format_options(p):
    """--qrels-format and --run-format."""
    p.add_argument("--qrels-format", choices=FORMATS, default="auto",
                   help="qrels file format (default: from the extension; TREC otherwise)")
    p.add_argument("--run-format", choices=FORMATS, default="auto",
                   help="run file format (default: from the extension; TREC otherwise)")


def run_settings(args):
    return dict(setting="trec_eval" if args.trec_eval else "sk_rankmetrics",
                complete=args.complete, threshold=args.threshold, max_docs=args.max_docs,
                no_relevant=args.no_relevant)


def no_relevant_type(text):
    """``--no-relevant``: warn, skip, a number in [0, 1] or nan (``no_relevant``
    of :func:`~sk_rankmetrics.evaluate_run`)."""
    value = text.strip().lower()
    if value not in ("warn", "skip"):
        try:
            value = float(value)
        except ValueError:
            value = None
    try:
        check_param("no_relevant", value, PARAMS["evaluate_run.no_relevant"])
    except ValueError:
        value = None
    if value is None:
        raise argparse.ArgumentTypeError(
            f"{text!r} is not accepted: give warn, skip, a number from 0 to 1, or nan")
    return value


def first_parameters(specs, flag="-m"):
    """The ``-m`` entries trec_eval reads: an entry that gives a measure other
    parameters than an earlier one is left out, with a warning (trec_eval reads
    the first; ``-m P.5 -m P.10`` is P_5)."""
    from .._files.trec_eval import ignored_parameters

    ignored = ignored_parameters(specs or [])
    for spec, first in ignored:
        warnings.warn(f"{flag} {spec} is left out: trec_eval reads only the first parameters "
                      f"given for a measure (here {flag} {first}); give all of them in one "
                      f"{flag}.", UserWarning, stacklevel=2)
    dropped = {spec for spec, _ in ignored}
    return [s for s in specs if s not in dropped] if specs else specs


def names_type(text):
    """``--names a,b,...``: one name per run, comma-separated, none empty."""
    names = [n.strip() for n in text.split(",")]
    if any(not n for n in names):
        raise argparse.ArgumentTypeError(f"{text!r} has an empty name; give one name per "
                                         "run, separated by commas (--names bm25,dense)")
    return names


def add_names_option(p):
    p.add_argument("--names", type=names_type, metavar="A,B,...",
                   help="names of the runs, comma-separated, in the order of the files "
                        "(default: each run's tag, the 6th column of a TREC run; the file "
                        "names when two runs share a tag)")


def add_scoring_options(p, default_metrics):
    """The options of the commands that score runs against qrels (evaluate,
    compare): metrics and cut-offs, ranked input, --names, beyond-accuracy data."""
    add_run_options(p, default_metrics)
    add_ranked_input_options(p)
    add_names_option(p)
    add_beyond_options(p)


def check_paths(paths):
    """The same file may not be given twice."""
    seen = set()
    for p in paths:
        key = os.path.normcase(os.path.abspath(p))
        if key in seen:
            raise UsageError(f"run {p!r} is given twice")
        seen.add(key)


def run_names(paths, tags, names=None):
    """The runs' names: ``names`` if given; else the run tags if no two runs
    share one; else the file names, or the paths as given where two file
    names are the same."""
    if names is not None:
        if len(names) != len(paths):
            raise UsageError(f"--names gives {len(names)} name(s) for {len(paths)} run(s); "
                             "give one per run, in the order of the files")
        twice = [n for n in names if names.count(n) > 1]
        if twice:
            raise UsageError(f"--names gives {twice[0]!r} twice; each run needs its own name")
        return list(names)
    for candidate in (list(tags), [os.path.basename(p) for p in paths], list(paths)):
        if len(set(candidate)) == len(candidate):
            return candidate
    twice = next(p for p in paths if list(paths).count(p) > 1)
    raise UsageError(f"run {twice!r} is given twice")


def refuse_unread_options(args):
    """Refuse ``--items``, ``--popularity``, ``--item-features`` or
    ``--head-share`` when no requested measure reads it (before any file is read)."""
    from .._beyond.measures import HEAD_SHARE, unread_data
    from .._metrics.names import by_family

    message = unread_data(
        by_family(args.metric or []).beyond, spell="--{}",
        items=getattr(args, "items", None), popularity=getattr(args, "popularity", None),
        item_features=getattr(args, "item_features", None),
        head_share=getattr(args, "head_share", HEAD_SHARE))
    if message is not None:
        raise UsageError(message)


def evaluate_one(qrels, run_path, args, default_metrics, progress=None):
    """The run tag and the metrics of one run file against ``qrels``; the
    phases (reading the run, matching, evaluating) shown by ``progress``
    (default: a new bar)."""
    from .._files.runs import evaluate_run
    from .beyond import has_beyond, score_run

    refuse_unread_options(args)
    prog = Progress("", force=args.progress) if progress is None else progress
    run = read_ranked_input(run_path, args, prog)

    try:
        if has_beyond(args.metric):
            return run.tag, score_run(qrels, run, args.metric, args, evaluate_run,
                                      progress=prog, **run_settings(args))
        return run.tag, evaluate_run(qrels, run, args.metric or list(default_metrics),
                                     progress=prog, **run_settings(args))
    finally:
        prog.close()


def evaluate_runs(qrels, paths, args, default_metrics, progress=None):
    """Each run file's metrics against the same ``qrels``, by run name
    (:func:`run_names`), in the order of ``paths``, and the run tags. One run
    is read at a time; the warnings of each are gathered by ``args.notices``
    (a :class:`~sk_rankmetrics._cli.messages.Notices`), which names the runs
    a warning concerns."""
    check_paths(paths)
    names = getattr(args, "names", None)
    if names is not None:
        run_names(paths, paths, names)  # a wrong count fails before any file is read
    args.metric = first_parameters(args.metric)
    notices = args.notices
    notices.runs = [os.fspath(p) for p in paths]
    tags, results = [], []
    for path in paths:
        try:
            with notices.collect(run=os.fspath(path)):
                tag, res = evaluate_one(qrels, path, args, default_metrics, progress)
        except (ValueError, TypeError) as exc:
            if len(paths) > 1 and os.fspath(path) not in str(exc):  # which run failed
                raise CommandError(f"{os.fspath(path)}: {exc}") from exc
            raise
        tags.append(tag)
        results.append(res)
    return dict(zip(run_names(paths, tags, names), results)), tags


def score_runs(args, default_metrics, progress=None):
    """Every run of ``args.runs`` scored against ``args.qrels``, read once
    (:func:`read_qrels_once`): the results by run name and the run tags
    (:func:`evaluate_runs`); the command's ``progress`` bar, if any, shows
    both."""
    qrels = read_qrels_once(args, progress)
    return evaluate_runs(qrels, args.runs, args, default_metrics, progress)


def read_qrels_once(args, progress=None, path=None):
    """The qrels of ``evaluate``, ``compare`` and ``leaderboard`` (``path``,
    default ``args.qrels``), read once, as the requested metrics read them: a
    diversity qrels (ndeval's ``query subtopic document level``) when every
    ``-m`` is a diversity measure; with ``--trec-eval`` their levels as
    trec_eval reads them (one warning for a non-integer level, not one per run)."""
    from .._metrics.names import by_family

    path = args.qrels if path is None else path
    if args.metric and by_family(args.metric).diversity_only():
        from .._files.trec import read_trec_qrels

        if progress is not None:
            progress.phase(f"reading qrels {os.path.basename(path)}", unit="bytes")
        return read_trec_qrels(path, diversity=True, progress=progress)
    qrels = read_input(path, args.qrels_format, "qrels", progress, args.parser)
    if args.trec_eval:
        from .._files.runs import trec_levels

        qrels = trec_levels(qrels)
    return qrels


# -- options shared by the report commands (compare, leaderboard, agreement) -----


def add_report_format_option(p, formats, csv_line):
    """--format of a report: text table, Markdown, LaTeX, CSV (one line per
    ``csv_line``) or JSON."""
    p.add_argument("--format", choices=formats, default="table",
                   help="output: a text table (default), Markdown, LaTeX, CSV (one line per "
                        f"{csv_line}) or JSON (everything)")


def add_output_options(p, formats, extensions):
    """-o FILE and --output-format, the formats of ``extensions`` named in the help."""
    p.add_argument("-o", "--output", metavar="FILE",
                   help="also write the report to FILE, in the format of its extension "
                        f"({extensions})")
    p.add_argument("--output-format", choices=formats, default=None,
                   help="format of --output (default: from its extension)")


def output_format(args, outputs):
    """The format of ``-o FILE`` (None without ``-o``): named by
    ``--output-format``, or from the extension by the command's ``outputs``
    (unknown: an error)."""
    path = args.output
    if path is None:
        return None
    if args.output_format:
        return args.output_format
    ext = os.path.splitext(os.fspath(path))[1].lower()
    if ext not in outputs:
        raise UsageError(f"-o {os.fspath(path)!r}: unknown extension {ext or '(none)'!r}; "
                         f"use {', '.join(outputs)} or name the format with --output-format")
    return outputs[ext]
