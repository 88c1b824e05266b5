"""The command line: ``sk-rankmetrics`` (also ``python -m sk_rankmetrics``).

Commands, one module each: ``evaluate`` (metrics of one run), ``compare``
(several runs with paired significance tests), ``leaderboard`` (runs of
several collections ranked, with rank intervals), ``trec_eval`` (trec_eval's
flags and output), ``demo`` (on seeded data it generates) and ``agreement``
(two qrels: assessor agreement, and how they order runs) and ``fuse``
(several runs fused into one, by ranx's methods).

Exit codes: 0 on success; 2 for a usage error (argparse's usage line and
one line naming the flag, also for checks made after parsing); 1 for a data
error (one line naming the file and line where there is one). ``--traceback``
shows the full traceback instead, for bug reports.
"""

from __future__ import annotations

import argparse
import sys
import traceback

from . import agreement, compare, demo, evaluate, fuse, leaderboard, trec_eval
from .common import CommandError, UsageError

EXIT_DATA = 1
EXIT_USAGE = 2

COMMANDS = (evaluate, compare, leaderboard, trec_eval, demo, agreement, fuse)


def build_parser():
    from .._utils.version import __version__
    from .messages import Parser

    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--traceback", action="store_true",
                        help="on an error, show the full Python traceback (for bug reports)")
    parser = Parser(
        prog="sk-rankmetrics", parents=[common],
        description="Ranking metrics (nDCG, MAP, P@k, recall@k, MRR, ERR, RBP, bpref, "
                    "infAP and every numeric measure of trec_eval) for TREC runs, "
                    "CSV/Parquet/JSON rankings, and a demo on generated data.",
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for command in COMMANDS:
        # Each command module gives its summary (HELP), its description, the
        # arguments it adds and its main; it is added here, one way for all.
        cp = sub.add_parser(command.__name__.rpartition(".")[2], help=command.HELP,
                            parents=[common], description=command.DESCRIPTION)
        command.add_arguments(cp)
        cp.set_defaults(func=command.main, parser=cp)
    return parser


def _no_command(parser):
    """No command given: the help, which lists every command with its summary,
    then the error line (exit code 2, as for any missing argument)."""
    parser.print_help(sys.stderr)
    names = ", ".join(c.__name__.rpartition(".")[2] for c in COMMANDS)
    sys.stderr.write(f"{parser.prog}: error: give a command ({names}); "
                     f"'{parser.prog} COMMAND --help' describes one\n")
    return EXIT_USAGE


def _one_line(exc):
    return " ".join(str(exc).split()) or type(exc).__name__


def main(argv=None):
    """Run the command line; return the exit code."""
    from .messages import Notices, Speaker

    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command is None:
        return _no_command(parser)
    # Every message shown names the command's flags (messages.py); warnings
    # are gathered and printed once each, after the work or before the error.
    speaker = Speaker(args.parser)
    args.notices = Notices(speaker)
    try:
        with args.notices.collect():
            return args.func(args)
    except UsageError as exc:
        args.notices.flush()
        if args.traceback:
            traceback.print_exc()
        args.parser.print_usage(sys.stderr)
        sys.stderr.write(f"{args.parser.prog}: error: {speaker.speak(_one_line(exc))}\n")
        return EXIT_USAGE
    except (CommandError, ValueError, TypeError, OSError, ImportError, MemoryError) as exc:
        args.notices.flush()
        if args.traceback:
            traceback.print_exc()
        else:
            sys.stderr.write(f"sk-rankmetrics: error: {speaker.speak(_one_line(exc))}\n")
        return EXIT_DATA
    except KeyboardInterrupt:
        args.notices.flush()
        sys.stderr.write("sk-rankmetrics: interrupted\n")
        return 130
    finally:
        args.notices.flush()
