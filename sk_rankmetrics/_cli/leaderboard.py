"""``sk-rankmetrics leaderboard``: runs of several collections ranked, with rank intervals.

The statistics are :func:`sk_rankmetrics.leaderboard`'s; this module finds the
collections, qrels and runs in a folder, scores every run, and writes the
report in the format asked for.

The folder::

    FOLDER/
      <collection>/
        qrels.txt          the judgements (any name that starts with "qrels")
        runs/
          <system>.txt     one run per system, named by its file name
          <system>/        or a folder of runs of one system, one per seed
            <seed>.txt

``FOLDER`` itself may be one collection (``FOLDER/qrels.txt`` and
``FOLDER/runs/``). Every collection needs a run of every system (and, for
systems given as folders, the same seeds).
"""

from __future__ import annotations

import csv
import io
import os
import warnings

from .._utils.params import PARAMS
from .common import (
    CommandError,
    UsageError,
    add_output_options,
    add_report_format_option,
    add_run_options,
    evaluate_one,
    output_format,
    read_qrels_once,
    table_type,
    write_text,
)
from .compare import FORMATS, OUTPUTS

DEFAULT_METRIC = ("ndcg@10",)
CORRECTIONS = (*PARAMS["correction"].constraints[0].values, "none")


def _visible(path):
    return sorted(e for e in os.listdir(path) if not e.startswith("."))


def _qrels_file(folder):
    found = [e for e in _visible(folder)
             if e.split(".")[0] == "qrels" and os.path.isfile(os.path.join(folder, e))]
    if not found:
        raise CommandError(f"{folder}: no qrels file (a file named qrels, qrels.txt, "
                           "qrels.csv, ...)")
    if len(found) > 1:
        raise CommandError(f"{folder}: {len(found)} qrels files ({', '.join(found)}); keep one")
    return os.path.join(folder, found[0])


def _runs(folder):
    """``{system: {seed: path}}`` of one collection's runs folder (seed None: one file)."""
    runs_dir = os.path.join(folder, "runs")
    if not os.path.isdir(runs_dir):
        raise CommandError(f"{folder}: no runs folder ({runs_dir})")
    out = {}
    for entry in _visible(runs_dir):
        path = os.path.join(runs_dir, entry)
        if os.path.isdir(path):
            seeds = {os.path.splitext(f)[0]: os.path.join(path, f) for f in _visible(path)
                     if os.path.isfile(os.path.join(path, f))}
            if not seeds:
                raise CommandError(f"{path}: an empty folder of runs")
            out[entry] = seeds
        elif os.path.isfile(path):
            name = os.path.splitext(entry)[0]
            if name in out:
                raise CommandError(f"{runs_dir}: two runs named {name!r}; one file or "
                                   "folder per system")
            out[name] = {None: path}
    if not out:
        raise CommandError(f"{runs_dir}: no run files")
    return out


def find_collections(folder):
    """``{collection: (qrels path, {system: {seed: run path}})}`` of ``folder``."""
    if not os.path.isdir(folder):
        raise CommandError(f"{folder}: not a folder")
    if os.path.isdir(os.path.join(folder, "runs")):
        name = os.path.basename(os.path.abspath(folder)) or "collection"
        return {name: (_qrels_file(folder), _runs(folder))}
    subs = [e for e in _visible(folder) if os.path.isdir(os.path.join(folder, e))]
    if not subs:
        raise CommandError(f"{folder}: no collection folders (FOLDER/<collection>/qrels.txt "
                           "and FOLDER/<collection>/runs/)")
    return {c: (_qrels_file(os.path.join(folder, c)), _runs(os.path.join(folder, c)))
            for c in subs}


def _check_same(found):
    names = list(found)
    first_runs = found[names[0]][1]
    for c in names[1:]:
        runs = found[c][1]
        for a, b, where in ((first_runs, runs, c), (runs, first_runs, names[0])):
            lacking = sorted(set(a) - set(b))
            if lacking:
                raise CommandError(f"collection {where!r} has no run of {', '.join(lacking)}; "
                                   "every collection needs a run of every system")
        for s in first_runs:
            if set(first_runs[s]) != set(runs[s]):
                raise CommandError(f"system {s!r} has the seeds "
                                   f"{sorted(map(str, first_runs[s]))} in {names[0]!r} but "
                                   f"{sorted(map(str, runs[s]))} in {c!r}; give it the same "
                                   "seeds in every collection")
    seeded = any(seed is not None for runs in (found[c][1] for c in names)
                 for seeds in runs.values() for seed in seeds)
    return seeded


def _score(found, args, seeded):
    """The nested results of :func:`leaderboard`, and the metrics scored."""
    results, metrics = {}, set()
    for c, (qrels_path, runs) in found.items():
        qrels = read_qrels_once(args, path=qrels_path)
        results[c] = {}
        for system, seeds in runs.items():
            scored = {}
            for seed, path in seeds.items():
                with warnings.catch_warnings(record=True) as caught:
                    _, res = evaluate_one(qrels, path, args, DEFAULT_METRIC)
                for w in caught:
                    warnings.warn(f"{path}: {w.message}", w.category, stacklevel=2)
                metrics |= set(res.per_query)
                key = seed if seed is not None else os.path.splitext(
                    os.path.basename(path))[0]
                scored[key] = res
            results[c][system] = scored if seeded else next(iter(scored.values()))
    return results, metrics


def _csv(report):
    frame_rows = report._system_rows()
    out = io.StringIO()
    fields = list(frame_rows[0]) + [f"mean:{c}" for c in report.collections]
    writer = csv.DictWriter(out, fieldnames=fields, lineterminator="\n")
    writer.writeheader()
    for row in frame_rows:
        row = {k: (repr(v) if isinstance(v, float) else v) for k, v in row.items()}
        row.update({f"mean:{c}": repr(report.means[c][row["system"]])
                    for c in report.collections})
        writer.writerow(row)
    return out.getvalue()


def _render(report, fmt):
    if fmt == "markdown":
        return report.to_markdown() + "\n"
    if fmt == "latex":
        return report.to_latex() + "\n"
    if fmt == "json":
        return report.to_json() + "\n"
    if fmt == "csv":
        return _csv(report)
    return str(report) + "\n"


def main(args):
    from .._stats.leaderboard import leaderboard

    if args.metric and len(args.metric) > 1:
        raise UsageError(f"leaderboard ranks by one metric; -m is given {len(args.metric)} "
                         "times")
    if args.plot and os.path.splitext(args.plot)[1].lower() not in (".png", ".pdf", ".svg"):
        raise UsageError(f"--plot {args.plot!r}: give a .png, .pdf or .svg file")
    out_fmt = output_format(args, OUTPUTS)
    found = find_collections(args.folder)
    seeded = _check_same(found)
    systems = list(next(iter(found.values()))[1])
    if len(systems) < 2:
        raise CommandError(f"{args.folder}: one system ({systems[0]}); a leaderboard ranks "
                           "at least two")
    for b in args.baseline or []:
        if b not in systems:
            raise UsageError(f"--baseline {b!r} is not one of the systems "
                             f"({', '.join(systems)})")
    results, metrics = _score(found, args, seeded)
    if len(metrics) != 1:
        named = args.metric[0] if args.metric else DEFAULT_METRIC[0]
        raise UsageError(f"leaderboard ranks by one metric; -m {named} gives "
                         f"{len(metrics)} ({', '.join(sorted(metrics))}); give one")
    layout = "collection/system/seed" if seeded else "collection/system"
    report = leaderboard(results, aggregate=args.aggregate, layout=layout,
                         intervals=args.intervals, baselines=args.baseline,
                         correction=None if args.correction == "none" else args.correction,
                         alpha=args.alpha, n_resamples=args.resamples,
                         confidence_level=args.confidence_level, random_state=args.seed,
                         on_missing=args.on_missing)
    text = _render(report, args.format)
    if args.format == "table":
        setting = "trec_eval" if args.trec_eval else "sk_rankmetrics"
        text = (f"{len(systems)} systems, {len(found)} collection"
                f"{'s' if len(found) > 1 else ''}, setting: {setting}\n\n") + text
    print(text, end="")
    if args.output:
        write_text(args.output, _render(report, out_fmt))
    if args.plot:
        try:
            import matplotlib

            matplotlib.use("Agg")
        except ImportError:
            raise CommandError("--plot needs matplotlib (pip install matplotlib)") from None
        from .._plot.leaderboard import LeaderboardDisplay

        display = LeaderboardDisplay.from_report(report)
        try:
            display.figure_.savefig(args.plot, dpi=120)
        except OSError as exc:
            raise CommandError(f"cannot write {args.plot!r}: {exc.strerror or exc}") from None
    return 0


HELP = "rank runs over several collections, with rank intervals"
DESCRIPTION = ("Score every run of every collection of FOLDER and rank the systems by "
               "the mean of their per-collection means (or their Borda count), each "
               "with a bootstrap rank interval and whether it may be the best. FOLDER "
               "holds one folder per collection, each with a qrels file (qrels.txt, "
               "qrels.csv, ...) and a runs/ folder: runs/<system>.txt, one run per "
               "system, or runs/<system>/<seed>.txt, one run per training seed. FOLDER "
               "may also be one collection (FOLDER/qrels.txt and FOLDER/runs/). Every "
               "collection needs a run of every system.")


def add_arguments(lp):
    lp.add_argument("folder", metavar="FOLDER", help="folder of collections (see above)")
    add_run_options(lp, DEFAULT_METRIC)
    lp.add_argument("--aggregate", choices=PARAMS["aggregate"].constraints[0].values,
                    default=PARAMS["aggregate"].default,
                    help="a system's score: the mean of its per-collection means (default) "
                         "or its Borda count over the collections (MTEB's rank)")
    lp.add_argument("--intervals", choices=PARAMS["intervals"].constraints[0].values,
                    default=PARAMS["intervals"].default,
                    help="rank intervals that hold for every system at once (default) or "
                         "for each system alone (narrower)")
    lp.add_argument("--baseline", action="append", metavar="SYSTEM",
                    help="test every other system against this one, repeatable; all the "
                         "tests are one family for --correction")
    lp.add_argument("--correction", choices=CORRECTIONS, default=PARAMS["correction"].default,
                    help="multiple-testing correction of the baseline tests (default: auto, "
                         "which is holm)")
    lp.add_argument("--alpha", type=table_type("alpha", float),
                    default=PARAMS["alpha"].default,
                    help="significance level of the baseline tests (default: 0.05)")
    lp.add_argument("--confidence-level", type=table_type("confidence_level", float),
                    default=PARAMS["confidence_level"].default, metavar="LEVEL",
                    help="level of the rank intervals (default: 0.95)")
    lp.add_argument("--resamples", type=table_type("n_resamples", int),
                    default=PARAMS["leaderboard.n_resamples"].default, metavar="N",
                    help="bootstrap resamples of the queries, stratified by collection "
                         "(default: 1000)")
    lp.add_argument("--seed", type=table_type("random_state", int), default=0,
                    help="seed of the resamples (default: 0)")
    lp.add_argument("--on-missing", choices=PARAMS["on_missing"].constraints[0].values,
                    default=PARAMS["on_missing"].default,
                    help="queries scored by some runs of a collection only: an error "
                         "(default) or left out of that collection ('drop'); -c scores them "
                         "as 0 instead")
    add_report_format_option(lp, FORMATS, "system")
    add_output_options(lp, FORMATS, ", ".join(OUTPUTS))
    lp.add_argument("--plot", metavar="FILE",
                    help="also draw the ranks and their intervals to FILE (.png, .pdf or "
                         ".svg; needs matplotlib)")
    return lp
