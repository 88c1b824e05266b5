"""The command line: ``sk-rankmetrics`` (also ``python -m sk_rankmetrics``).

Commands: ``evaluate`` (metrics of one run), ``compare`` (several runs with
paired significance tests) and ``demo`` (bundled data). Bad input gives a
one-line error on stderr and a non-zero exit code.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
import warnings
from itertools import chain, repeat

import numpy as np

DEFAULT_METRICS = ("ndcg@10", "map", "P@10", "recall@100", "mrr")
FORMATS = ("auto", "trec", "csv", "tsv", "parquet", "json")

EXIT_ERROR = 1


class CommandError(Exception):
    """A user-facing error: printed as one line, exit code 1."""


# -- progress bar -----------------------------------------------------------

class Progress:
    """A small progress bar on stderr, shown only once work takes over ``delay`` s.

    Shown when stderr is a terminal, or always when ``force`` is true.
    """

    def __init__(self, label, *, force=False, delay=2.0, stream=None):
        self.label = label
        self.stream = sys.stderr if stream is None else stream
        isatty = getattr(self.stream, "isatty", lambda: False)()
        self.enabled = bool(force or isatty)
        self.delay = 0.0 if force else delay
        self.t0 = time.monotonic()
        self.shown = False

    def __call__(self, done, total):
        if not self.enabled:
            return
        elapsed = time.monotonic() - self.t0
        if elapsed < self.delay and not self.shown:
            return
        self.shown = True
        frac = done / total if total else 1.0
        width = 30
        bar = "#" * int(frac * width)
        self.stream.write(f"\r{self.label} [{bar:<{width}}] {done}/{total} {elapsed:5.1f}s")
        if done >= total:
            self.stream.write("\n")
        self.stream.flush()


# -- reading inputs ---------------------------------------------------------

def _detect(path, fmt):
    if fmt != "auto":
        return fmt
    low = os.fspath(path).lower()
    for ext, name in ((".csv", "csv"), (".tsv", "tsv"), (".parquet", "parquet"),
                      (".pq", "parquet"), (".json", "json")):
        if low.endswith(ext) or low.endswith(ext + ".gz"):
            return name
    return "trec"


def _pandas(what):
    try:
        import pandas as pd
    except ImportError:
        raise CommandError(f"reading {what} needs pandas; install it (pip install pandas) "
                           "or use TREC files.") from None
    return pd


def _read_frame(path, fmt):
    pd = _pandas(f"{fmt} files")
    if fmt == "parquet":
        return pd.read_parquet(path)
    return pd.read_csv(path, sep="\t" if fmt == "tsv" else ",")


def _read_json(path, kind):
    """ranx-style JSON: {query: {doc: relevance or score}}."""
    from ._trec import TrecQrels, TrecRun

    try:
        with open(path, encoding="utf-8") as fh:
            data = json.load(fh)
    except OSError as exc:
        raise CommandError(f"cannot read {path!r}: {exc.strerror or exc}.") from None
    except json.JSONDecodeError as exc:
        raise CommandError(f"{path!r} is not valid JSON ({exc.msg}, line {exc.lineno}).") \
            from None
    if not isinstance(data, dict) or not all(map(isinstance, data.values(), repeat(dict))):
        raise CommandError(f"{path!r}: JSON {kind} must map each query to an object "
                           "{doc: value}.")
    lens = np.fromiter(map(len, data.values()), dtype=np.int64, count=len(data))
    q = np.repeat(np.array(list(data.keys()), dtype=str), lens)
    docs = np.array(list(chain.from_iterable(data.values())), dtype=str)
    try:
        vals = np.fromiter(chain.from_iterable(map(dict.values, data.values())), dtype=float,
                           count=int(lens.sum()))
    except (TypeError, ValueError):
        raise CommandError(f"{path!r}: JSON {kind} values must be numbers.") from None
    if kind == "qrels":
        return TrecQrels(q, docs, vals, source=path)
    return TrecRun(q, docs, vals, tag=os.path.basename(path), source=path)


def _read(path, fmt, kind):
    """Qrels (``kind="qrels"``) or a run from a file in any of ``FORMATS``."""
    from ._ranked import qrels_from_frame, run_from_frame
    from ._trec import read_trec_qrels, read_trec_run

    fmt = _detect(path, fmt)
    if fmt == "trec":
        return read_trec_qrels(path) if kind == "qrels" else read_trec_run(path)
    if fmt == "json":
        return _read_json(path, kind)
    frame = _read_frame(path, fmt)
    if kind == "qrels":
        return qrels_from_frame(frame)
    return run_from_frame(frame, tag=os.path.basename(path))


# -- output -----------------------------------------------------------------

def _fmt(v):
    return "nan" if np.isnan(v) else f"{v:.4f}"


def _table(header, rows):
    widths = [max(len(str(r[i])) for r in [header, *rows]) for i in range(len(header))]
    lines = ["  ".join(f"{c:<{w}}" if i == 0 else f"{c:>{w}}"
                       for i, (c, w) in enumerate(zip(r, widths))) for r in [header, *rows]]
    return "\n".join(lines)


def _write_output(path, result, fmt=None):
    fmt = fmt or ("json" if os.fspath(path).lower().endswith(".json") else "csv")
    names = result.metrics
    if fmt == "json":
        doc = {
            "mean": {m: float(result.mean[m]) for m in names},
            "per_query": {
                str(q): {m: float(result.per_query[m][i]) for m in names}
                for i, q in enumerate(result.query_ids.tolist())
            },
        }
        text = json.dumps(doc, indent=1, allow_nan=True)
    else:
        cols = [np.asarray(result.query_ids).astype(str)]
        cols += [np.char.mod("%.6g", result.per_query[m]) for m in names]
        body = cols[0]
        for c in cols[1:]:
            body = np.char.add(np.char.add(body, ","), c)
        text = "\n".join(["query," + ",".join(names), *body.tolist(),
                          "all," + ",".join(f"{result.mean[m]:.6g}" for m in names)]) + "\n"
    try:
        with open(path, "w", encoding="utf-8") as fh:
            fh.write(text)
    except OSError as exc:
        raise CommandError(f"cannot write {os.fspath(path)!r}: {exc.strerror or exc}.") \
            from None


# -- commands ---------------------------------------------------------------

def _settings(args):
    return dict(setting="trec_eval" if args.trec_eval else "sk_rankmetrics",
                complete=args.complete, threshold=args.threshold, max_docs=args.max_docs)


def _evaluate_one(qrels, run_path, args):
    from ._ranked import evaluate_run

    run = _read(run_path, args.run_format, "run")
    prog = Progress(os.path.basename(run_path), force=args.progress)
    return evaluate_run(qrels, run, args.metric or list(DEFAULT_METRICS),
                        progress=prog, **_settings(args))


def cmd_evaluate(args):
    qrels = _read(args.qrels, args.qrels_format, "qrels")
    res = _evaluate_one(qrels, args.run, args)
    names = res.metrics
    rows = []
    if args.per_query:
        rows += [[str(q)] + [_fmt(res.per_query[m][i]) for m in names]
                 for i, q in enumerate(res.query_ids.tolist())]
    rows.append(["all"] + [_fmt(res.mean[m]) for m in names])
    print(f"{len(res.query_ids)} queries, setting: "
          f"{'trec_eval' if args.trec_eval else 'sk_rankmetrics'}")
    print(_table(["query", *names], rows))
    if args.output:
        _write_output(args.output, res, args.output_format)
    return 0


def cmd_compare(args):
    from ._significance import paired_t_test, randomization_test

    if len(args.runs) < 2:
        raise CommandError("compare needs at least two runs.")
    if args.permutations < 1:
        raise CommandError(f"--permutations must be >= 1, got {args.permutations}.")
    qrels = _read(args.qrels, args.qrels_format, "qrels")
    results = [_evaluate_one(qrels, p, args) for p in args.runs]
    common = results[0].query_ids
    for r in results[1:]:
        common = np.intersect1d(common, r.query_ids)
    if common.size == 0:
        raise CommandError("the runs have no evaluated query in common.")
    names = results[0].metrics
    labels = [os.path.basename(p) for p in args.runs]
    rows, records = [], []
    for m in names:
        vals = [r.per_query[m][np.searchsorted(r.query_ids, common)] for r in results]
        base = vals[0]
        row = [m, _fmt(float(np.nanmean(base)))]
        for lab, v in zip(labels[1:], vals[1:]):
            ok = ~(np.isnan(base) | np.isnan(v))
            p_t = paired_t_test(v[ok], base[ok])
            p_r = randomization_test(v[ok], base[ok], permutations=args.permutations,
                                     seed=args.seed)
            row += [_fmt(float(np.nanmean(v))), f"{p_t:.4g}", f"{p_r:.4g}"]
            records.append({"metric": m, "run": lab, "baseline": labels[0],
                            "mean": float(np.nanmean(v)), "baseline_mean":
                            float(np.nanmean(base)), "p_ttest": p_t,
                            "p_randomization": p_r, "n_queries": int(ok.sum())})
        rows.append(row)
    header = ["metric", labels[0]]
    for lab in labels[1:]:
        header += [lab, "p(t-test)", "p(random.)"]
    print(f"{common.size} queries in common; baseline: {labels[0]}; paired two-sided tests, "
          f"{args.permutations} sign-flip permutations (seed {args.seed})")
    print(_table(header, rows))
    if args.output:
        try:
            with open(args.output, "w", encoding="utf-8") as fh:
                json.dump(records, fh, indent=1)
        except OSError as exc:
            raise CommandError(f"cannot write {args.output!r}: {exc.strerror or exc}.") \
                from None
    return 0


def demo_grid_search(seed=0, n_queries=150, n_items=20, n_features=5):
    """GridSearchCV of a regressor on seeded long-format data, scored by nDCG@10.

    Returns the text lines of the result.
    """
    import sklearn
    from sklearn.ensemble import HistGradientBoostingRegressor
    from sklearn.model_selection import GridSearchCV, GroupKFold

    from ._scorer import get_scorer

    rng = np.random.default_rng(seed)
    n = n_queries * n_items
    X = rng.normal(size=(n, n_features))
    w = np.array([1.0, 0.7, -0.5, 0.0, 0.0])[:n_features]
    quality = X @ w + 0.5 * np.sin(2 * X[:, 0]) + 0.5 * rng.normal(size=n)
    y = np.digitize(quality, [0.8, 1.5, 2.2])
    qid = np.repeat(np.arange(n_queries), n_items)
    grid = {"max_depth": [2, 4], "learning_rate": [0.03, 0.3]}
    with sklearn.config_context(enable_metadata_routing=True):
        scorer = get_scorer("ndcg@10", no_relevant="skip").set_score_request(qid=True)
        search = GridSearchCV(HistGradientBoostingRegressor(max_iter=40, random_state=seed),
                              grid, scoring=scorer, cv=GroupKFold(n_splits=3))
        search.fit(X, y, groups=qid, qid=qid)
    lines = [f"GridSearchCV: HistGradientBoostingRegressor on {n_queries} queries x "
             f"{n_items} documents, 3 query-grouped folds, scoring='ndcg@10'"]
    table = [[str(p), f"{s:.4f}"] for p, s in zip(search.cv_results_["params"],
                                                   search.cv_results_["mean_test_score"])]
    lines.append(_table(["params", "mean ndcg@10"], table))
    lines.append(f"best: {search.best_params_} (ndcg@10 = {search.best_score_:.4f})")
    return lines


def cmd_demo(args):
    from ._demo import demo_table

    print("sk_rankmetrics demo: 300 queries x 50 items, graded relevance 0-3")
    print(demo_table(seed=args.seed))
    if not args.no_grid_search:
        print()
        print("\n".join(demo_grid_search(seed=args.seed)))
    return 0


# -- parser -----------------------------------------------------------------

def _common(p):
    p.add_argument("-m", "--metric", action="append", metavar="NAME",
                   help="metric to compute, repeatable: ndcg@10, map, map@100, P@5, "
                        "recall@100, mrr, hit_rate@10, r_precision, ... or trec_eval names "
                        "(P_5, ndcg_cut_10, map_cut_100, recip_rank, Rprec). Default: "
                        + ", ".join(DEFAULT_METRICS))
    p.add_argument("--trec-eval", action="store_true",
                   help="reproduce trec_eval: ties broken by docno descending, AP divided "
                        "by all relevant documents, negative levels non-relevant, queries "
                        "without relevant documents score 0")
    p.add_argument("-c", "--complete", action="store_true",
                   help="count queries of the qrels missing from the run as 0 "
                        "(trec_eval -c)")
    p.add_argument("-l", "--threshold", type=float, default=None, metavar="LEVEL",
                   help="lowest relevance level that counts as relevant (trec_eval -l)")
    p.add_argument("-M", "--max-docs", type=int, default=None, metavar="N",
                   help="score only the first N ranked documents of each query "
                        "(trec_eval -M)")
    p.add_argument("--qrels-format", choices=FORMATS, default="auto",
                   help="qrels file format (default: from the extension; TREC otherwise)")
    p.add_argument("--run-format", choices=FORMATS, default="auto",
                   help="run file format (default: from the extension; TREC otherwise)")
    p.add_argument("--progress", action="store_true",
                   help="always show the progress bar on stderr (default: only on a "
                        "terminal, for inputs that take over 2 seconds)")


def build_parser():
    parser = argparse.ArgumentParser(
        prog="sk-rankmetrics",
        description="Ranking metrics (nDCG, MAP, P@k, recall@k, MRR, ...) for TREC runs, "
                    "CSV/Parquet/JSON rankings and the bundled demo.",
    )
    from . import __version__

    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True

    ev = sub.add_parser(
        "evaluate", help="score one run against qrels",
        description="Score a run against qrels and print a table of metrics. Files: TREC "
                    "(qrels 'qid iter docno rel', run 'qid Q0 docno rank score tag'), CSV/TSV "
                    "or Parquet in long format (columns query, item, relevance / score), or "
                    "JSON {query: {doc: value}}.",
    )
    ev.add_argument("qrels", help="qrels file (judgements)")
    ev.add_argument("run", help="run file (the ranking to score)")
    _common(ev)
    ev.add_argument("-q", "--per-query", action="store_true",
                    help="print one line per query as well as the mean")
    ev.add_argument("-o", "--output", metavar="FILE",
                    help="also write per-query values and means to FILE (.csv or .json)")
    ev.add_argument("--output-format", choices=("csv", "json"), default=None,
                    help="format of --output (default: from its extension, CSV otherwise)")
    ev.set_defaults(func=cmd_evaluate)

    cp = sub.add_parser(
        "compare", help="compare runs with paired significance tests",
        description="Score several runs against the same qrels; for each run after the "
                    "first, paired two-sided p-values against the first (baseline): the "
                    "t-test and a seeded randomisation (sign-flip) test.",
    )
    cp.add_argument("qrels", help="qrels file (judgements)")
    cp.add_argument("runs", nargs="+", metavar="RUN", help="run files; the first is the "
                    "baseline")
    _common(cp)
    cp.add_argument("--permutations", type=int, default=10_000,
                    help="sign-flip permutations of the randomisation test (default 10000)")
    cp.add_argument("--seed", type=int, default=0, help="seed of the randomisation test")
    cp.add_argument("-o", "--output", metavar="FILE", help="also write the results as JSON")
    cp.set_defaults(func=cmd_compare)

    dm = sub.add_parser(
        "demo", help="run on bundled demo data",
        description="Print every metric on seeded demo data (300 queries), then a short "
                    "GridSearchCV scored by nDCG@10 per query.",
    )
    dm.add_argument("--seed", type=int, default=0, help="seed of the demo data")
    dm.add_argument("--no-grid-search", action="store_true",
                    help="skip the GridSearchCV part")
    dm.set_defaults(func=cmd_demo)
    return parser


def _one_line(exc):
    return " ".join(str(exc).split()) or type(exc).__name__


def main(argv=None):
    """Run the command line; return the exit code."""
    parser = build_parser()
    args = parser.parse_args(argv)

    def show(message, category, filename, lineno, file=None, line=None):
        sys.stderr.write(f"sk-rankmetrics: warning: {' '.join(str(message).split())}\n")

    old = warnings.showwarning
    warnings.showwarning = show
    try:
        return args.func(args)
    except (CommandError, ValueError, TypeError, OSError, ImportError) as exc:
        sys.stderr.write(f"sk-rankmetrics: error: {_one_line(exc)}\n")
        return EXIT_ERROR
    except KeyboardInterrupt:
        sys.stderr.write("sk-rankmetrics: interrupted\n")
        return 130
    finally:
        warnings.showwarning = old
