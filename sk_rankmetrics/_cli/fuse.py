"""sk-rankmetrics fuse: several run files fused into one TREC run (ranx's methods)."""

from __future__ import annotations

import argparse

from .._utils.errors import InvalidParameterError
from .common import (
    CommandError,
    UsageError,
    add_ranked_input_options,
    check_paths,
    read_ranked_input,
)

METHODS = ("sum", "max", "min", "med", "anz", "mnz", "gmnz", "rrf", "isr", "log_isr",
           "logn_isr", "bordafuse", "rbc", "wsum", "wmnz", "w_bordafuse", "mixed", "condorcet",
           "w_condorcet", "probfuse", "segfuse", "slidefuse", "posfuse", "bayesfuse",
           "mapfuse")
TRAINED = ("probfuse", "segfuse", "slidefuse", "posfuse", "bayesfuse", "mapfuse")
NORMS = ("none", "min-max", "max", "sum", "zmuv", "rank", "borda")


def _weights(text):
    try:
        values = [float(x) for x in text.split(",")]
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"{text!r} is not a list of numbers; give one weight per run, separated by "
            "commas (--weights 0.3,0.7)") from None
    return values


def main(args):
    from .._files.fusion import fuse
    from .._files.trec import write_trec_run

    if len(args.runs) < 2:
        raise CommandError("fuse needs at least two runs")
    trained = args.method in TRAINED
    if trained != (args.train_qrels is not None):
        raise CommandError(f"--method {args.method} " + (
            "is trained: give --train-qrels QRELS (the judgements it learns from)"
            if trained else "is not trained: leave out --train-qrels"))
    check_paths(args.runs)
    runs = [read_ranked_input(path, args) for path in args.runs]
    if trained:
        kwargs_train = {"qrels": args.train_qrels}
    else:
        kwargs_train = {}
    given = {"k": args.k, "phi": args.phi, "gamma": args.gamma, "sigma": args.sigma,
             "weights": args.weights}
    kwargs = {name: value for name, value in given.items() if value is not None}
    try:
        fused = fuse(runs, method=args.method, norm=None if args.norm == "none" else args.norm,
                     tag=args.tag or args.method, **kwargs, **kwargs_train)
    except InvalidParameterError as exc:  # an argument or a run fusion refuses: exit 2
        raise UsageError(str(exc)) from None
    write_trec_run(args.output, fused)
    return 0


HELP = "fuse several runs into one TREC run (hybrid search)"
DESCRIPTION = ("Fuse run files of the same queries into one run, written as a TREC "
               "run, by one of ranx's fusion methods after one of its normalisations "
               "(the numbers of ranx.fuse).")


def add_arguments(fp):
    fp.add_argument("runs", nargs="+", metavar="RUN", help="run files (two or more)")
    fp.add_argument("--method", choices=METHODS, default="rrf",
                    help="fusion method (default: rrf)")
    fp.add_argument("--norm", choices=NORMS, default="none",
                    help="score normalisation per query and run before fusing (default: none)")
    fp.add_argument("--weights", type=_weights, default=None, metavar="W1,W2,...",
                    help="one weight per run (wsum, wmnz, w_bordafuse, mixed, w_condorcet; "
                         "default: all 1)")
    fp.add_argument("--train-qrels", default=None, metavar="QRELS",
                    help="training judgements (a qrels file) for the trained methods: "
                         "probfuse, segfuse, slidefuse, posfuse, bayesfuse, mapfuse (probfuse's "
                         "segments and slidefuse's window are chosen by nDCG, as ranx's "
                         "optimize_fusion does)")
    fp.add_argument("--k", type=float, default=None,
                    help="rrf's rank offset (default 60)")
    fp.add_argument("--phi", type=float, default=None, help="rbc's persistence (default 0.8)")
    fp.add_argument("--gamma", type=float, default=None, help="gmnz's exponent (default 1)")
    fp.add_argument("--sigma", type=float, default=None,
                    help="logn_isr's offset (default 0.01)")
    fp.add_argument("--tag", default=None, help="run tag of the output (default: the method)")
    fp.add_argument("-o", "--output", required=True, metavar="OUT",
                    help="the TREC run file to write")
    fp.add_argument("--run-format", choices=("auto", "trec", "csv", "tsv", "parquet", "json"),
                    default="auto", help="run file format (default: from the extension)")
    add_ranked_input_options(fp)
