"""The command speaks command: every message names the flag, not the Python keyword;
one warning per cause; no scikit-learn on the file commands' paths.

The fast tests check the mechanism (``sk_rankmetrics/_cli/messages.py``) on
library messages, and scan the library's messages for Python remedies no flag
says; the slow ones run the commands as subprocesses on bad inputs and read
what a user sees.
"""

from __future__ import annotations

import ast
import json
import os
import subprocess
import sys
import textwrap
import warnings

import pytest
from conftest import ROOT
from sklearn.exceptions import UndefinedMetricWarning

from sk_rankmetrics import evaluate_run, ndcg_score
from sk_rankmetrics._cli import build_parser
from sk_rankmetrics._cli.messages import _KEYWORD, Notices, Speaker, python_keywords
from sk_rankmetrics._utils.errors import UndefinedRows, collect_undefined, warn_undefined

PACKAGE = ROOT / "sk_rankmetrics"
TREC = ROOT / "tests" / "data" / "trec_eval"

#: The file commands.
COMMANDS = ("evaluate", "compare", "trec_eval", "leaderboard", "agreement")


def _parser(command):
    sub = next(a for a in build_parser()._actions if a.dest == "command")
    return sub.choices[command]


def speaker(command, aliases=None):
    return Speaker(_parser(command), aliases)


# -- the mechanism -----------------------------------------------------------------

TIES = ("G: a tie group of 3000 items with 2 distinct gains needs 1,105,960 terms for its "
        "exact expected value over the orderings of the tie, beyond the 262,144 this measure "
        "allows. Break the ties (ignore_ties=True takes them in the order of the sort), or use "
        "evaluate_run(..., setting='trec_eval'), which orders them by document id.")
MISSING = ("results: the systems do not have the same queries: 'B' lacks 1 ('q2'). Score every "
           "query in every system (evaluate_run(..., complete=True) scores a query missing "
           "from a run as 0), or compare on the 1 query they share with on_missing='drop'.")


@pytest.mark.parametrize(
    ("command", "text", "said"),
    [
        ("evaluate", "evaluate_run: threshold=2.0 is read by none of the requested metrics "
         "(ndcg).", "-l 2.0 is read by none of the requested metrics (ndcg)."),
        ("trec_eval", "evaluate_run: threshold=2.0 is read by none of the requested metrics "
         "(ndcg).", "-l 2.0 is read by none of the requested metrics (ndcg)."),
        ("compare", "1 of 3 judged queries are not in the ranking ('q3') and are left out "
         "(complete=True scores them 0).", "1 of 3 judged queries are not in the ranking "
         "('q3') and are left out (-c scores them 0)."),
        ("evaluate", TIES, TIES.split(" Break")[0] + " Break the ties, or use --trec-eval, "
         "which orders them by document id."),
        # the trec_eval command has no flag for the advice: the statement is kept
        ("trec_eval", TIES, TIES.split(" Break")[0]),
        ("compare", MISSING, "the systems do not have the same queries: 'B' lacks 1 ('q2'). "
         "Score every query in every system (-c scores a query missing from a run as 0), or "
         "compare on the 1 query they share with --on-missing drop."),
        ("evaluate", "coverage@10 needs items=... (the catalogue: every item that could be "
         "recommended); give it.", "coverage@10 needs --items FILE; give it."),
        ("evaluate", "evaluate_run: metrics names a metric twice: ['P_10', 'P_10'].",
         "-m names a metric twice: ['P_10', 'P_10']."),
        ("evaluate", "run file 'r.csv': cannot find the score column: looked for ['score', "
         "'sim'], the data frame has ['query', 'item']; name it with score=...",
         "run file 'r.csv': cannot find the score column: looked for ['score', 'sim'], the "
         "file has ['query', 'item']; give the column one of those names"),
        ("evaluate", "'alpha_nDCG(judged_only=True)@10': judged_only=True is not supported "
         "for diversity measures; pass judged_only=True to evaluate_run (trec_eval's -J), "
         "which removes the unjudged documents from the ranking.",
         "'alpha_nDCG(judged_only=True)@10': judged_only=True is not supported for "
         "diversity measures."),
        ("evaluate", "unknown metric 'ndgc'. Did you mean 'ndcg'? "
         "sk_rankmetrics.metric_names() lists every name (add '@k' for a cut-off).",
         "unknown metric 'ndgc'. Did you mean 'ndcg'? the metric reference of the "
         "documentation (docs/metrics.md) lists every name (add '@k' for a cut-off)."),
        # metric syntax and ids are not keywords
        ("evaluate", "'P(rel=2)@5' and 'rbp.p=0.8' for query 'complete=1'.",
         "'P(rel=2)@5' and 'rbp.p=0.8' for query 'complete=1'."),
        ("trec_eval", "measure 'ndcg.1:3': '1:3' is not a level=gain pair.",
         "measure 'ndcg.1:3': '1:3' is not a level=gain pair."),
    ],
)
def test_speaker_says_each_python_remedy_by_its_flag(command, text, said):
    assert speaker(command).speak(text) == said


def test_the_format_keyword_is_the_flag_of_the_files_kind():
    """``format=`` of the readers is --run-format for a run and --qrels-format for
    qrels (what common.read_input tells the speaker), never evaluate's output
    --format."""
    text = ("run file 'r.txt': not valid JSON (Expecting value, line 1) (read as json, chosen "
            "by format='json'; if it is another format, name it with format=... "
            "(run_format=... in evaluate_run and evaluate_ranked), one of trec, csv).")
    assert speaker("evaluate", {"format": ("run_format",)}).speak(text) == (
        "run file 'r.txt': not valid JSON (Expecting value, line 1) (read as json, chosen by "
        "--run-format json; if it is another format, name it with --run-format, one of trec, "
        "csv).")
    qrels = text.replace("run_format", "qrels_format")
    said = speaker("trec_eval", {"format": ("qrels_format",)}).speak(qrels)
    assert "--qrels-format json" in said and "--run-format" not in said
    assert "--format" not in speaker("evaluate").speak(text)


#: The folders and modules no file command imports (checked by
#: test_file_commands_import_no_sklearn_even_to_warn), and the command line's own.
NOT_ON_THE_FILE_COMMANDS = ("_sklearn", "_training", "_catalogue", "_plot", "_dask/",
                            "_stats/estimators.py", "_cli/")

#: The commands that can show a module's messages (default: every file command):
#: compare() and its report only on compare, the beyond-accuracy measures not
#: on trec_eval (its -m takes trec_eval's names).
SHOWN_BY = {
    # fuse's messages reach only the fuse command, whose flags bear the names of
    # fuse's keywords (--method, --norm, --weights, --k, ...).
    "_files/fusion.py": (),
    "_files/fusion_search.py": (),  # optimize_fusion: no command
    "_stats/power.py": (),  # topics_needed: no command
    "_stats/leaderboard": ("leaderboard",),
    "_stats/rbo": (), "_stats/rank_correlation.py": ("agreement",),
    "_stats/assessors.py": ("agreement",), "_stats/qrels_": ("agreement",),
    "_stats/compare.py": ("compare", "agreement"),
    "_stats/": ("compare", "leaderboard", "agreement"),
    "_beyond/": ("evaluate", "compare"),
}

#: Keywords a library message may leave in a command's message, with why.
LEFT_AS_WRITTEN = {
    # The user's own metric syntax, quoted back (a metric name's options).
    ("_metrics/diversity.py", "judged_only"): "the option of an ir_measures name",
    ("_metrics/gains.py", "gain"): "a metric name's gain option",
    ("_metrics/gains.py", "discount"): "a metric name's discount option",
    ("_metrics/registry.py", "max_rel"): "the option of a C/W/L name",
    ("_metrics/registry.py", "min_rel"): "the option of a C/W/L name",
    # Unreachable from a command.
    ("_files/formats.py", "format"): "--qrels-format and --run-format take known formats only",
    ("_files/lists.py", "compute"): "evaluate_ranked(compute=False): no command calls it",
    ("_utils/arrays.py", "exclude"): "the -inf hint of score matrices; a file's -inf score is "
                                     "refused by the long-format check, which says to drop "
                                     "the pair",
    ("_stats/assessors.py", "labels"): "cohen_kappa(labels=...): the agreement command has no "
                                       "labels, it reads the levels the qrels use",
    ("_stats/compare.py", "baseline"): "the agreement command's compare() takes no baseline",
    ("_stats/leaderboard.py", "layout"): "the leaderboard command reads the layout off its "
                                         "folder",
    ("_files/pairs.py", "ignore_identical_ids"): "refused on Dask inputs only, which no "
                                                 "command reads",
    ("_files/pairs.py", "duplicates"): "refused on Dask inputs only, which no command reads",
}


def _messages(path):
    """``(line, text)`` of each string of a module that reads as a sentence
    (holds a space), f-strings with their fields as ``'x'``; docstrings, the
    ``doc=``/``help=`` texts of parameters and reprs are left out."""
    tree = ast.parse(path.read_text())
    skip = set()
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        if (isinstance(body, list) and body and isinstance(body[0], ast.Expr)
                and isinstance(body[0].value, ast.Constant)):
            skip.add(id(body[0].value))
        if isinstance(node, ast.keyword) and node.arg in ("doc", "help", "description"):
            skip.update(id(n) for n in ast.walk(node.value))
        if isinstance(node, ast.JoinedStr):
            skip.update(id(n) for n in node.values)
        if isinstance(node, ast.FunctionDef) and node.name == "__repr__":  # no message
            skip.update(id(n) for n in ast.walk(node))
    for node in ast.walk(tree):
        if id(node) in skip:
            continue
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            text = node.value
        elif isinstance(node, ast.JoinedStr):
            text = "".join(v.value if isinstance(v, ast.Constant) else "'x'"
                           for v in node.values)
        else:
            continue
        if " " in text.strip() and "``" not in text and ":func:" not in text:  # not reST
            yield node.lineno, text


def test_no_library_message_leaves_a_python_remedy_in_a_command():
    """The class, not the cases: every sentence of every module a file command
    imports, put in each command's words, names no Python keyword (nor calls a
    function) the command has no flag for, except the known cases above."""
    keywords = python_keywords()
    speakers = {c: speaker(c) for c in COMMANDS}
    left, seen = [], set()
    for path in sorted(PACKAGE.rglob("*.py")):
        rel = path.relative_to(PACKAGE).as_posix()
        if rel.startswith(NOT_ON_THE_FILE_COMMANDS):
            continue
        shown_by = next((c for p, c in SHOWN_BY.items() if rel.startswith(p)), COMMANDS)
        for line, text in _messages(path):
            for command in shown_by:
                sp = speakers[command]
                said = sp.speak(text)
                for m in _KEYWORD.finditer(said):
                    if m["kw"] in keywords:
                        seen.add((rel, m["kw"]))
                        if (rel, m["kw"]) not in LEFT_AS_WRITTEN:
                            left.append(f"{rel}:{line} [{command}] {said}")
                if sp._called.search(said):
                    left.append(f"{rel}:{line} [{command}] {said}")
    assert not left, "\n".join(left)
    assert set(LEFT_AS_WRITTEN) <= seen  # no stale entry


def test_the_speaker_knows_every_public_function():
    import sk_rankmetrics
    from sk_rankmetrics._cli.messages import PUBLIC_FUNCTIONS

    assert set(PUBLIC_FUNCTIONS) == {n for n in sk_rankmetrics.__all__ if n[:1].islower()}


def test_python_users_keep_scikit_learns_warning_class():
    """Outside the command line the undefined rows warn with scikit-learn's
    UndefinedMetricWarning (so filters on it work); collect_undefined gathers
    the reports instead, which is how the commands avoid importing it."""
    with pytest.warns(UndefinedMetricWarning, match="1 of 2 rows have no relevant item"):
        assert ndcg_score([[0, 0], [1, 0]], [[1, 2], [2, 1]]) == 0.5
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with collect_undefined() as reports:
            ndcg_score([[0, 0], [1, 0]], [[1, 2], [2, 1]])
            ndcg_score([[0, 0]], [[1, 2]], no_relevant="skip")
    assert reports == [UndefinedRows("ndcg_score", 1, 2),
                       UndefinedRows("ndcg_score", 1, 1, skipped_all=True)]


def test_notices_word_one_line_per_cause():
    notices = Notices(speaker("evaluate"))
    notices.runs = ["a.txt", "b.txt"]
    for run in notices.runs:
        with notices.collect(run=run):
            for label in ("ndcg@10", "map", "mrr", "P@5"):
                warn_undefined(UndefinedRows(label, 1, 2))
            warn_undefined(UndefinedRows("P(rel=2)@5", 2, 2))
            warnings.warn("queries left out (complete=True scores them 0).", UserWarning,
                          stacklevel=1)
    with notices.collect():
        warnings.warn("qrels file 'q.txt', line 1: a level.", UserWarning, stacklevel=1)
    assert notices.lines() == [
        "a.txt, b.txt: queries left out (-c scores them 0).",
        "qrels file 'q.txt', line 1: a level.",
        "a.txt, b.txt: 1 of 2 queries have no relevant item: ndcg@10, map, mrr and P@5 score "
        "it 0, counted in the mean. Choose with --no-relevant: skip leaves it out of the mean; "
        "a number (0, 1 or nan) is its score, without this warning.",
        "a.txt, b.txt: 2 of 2 queries have no relevant item: P(rel=2)@5 scores them 0, "
        "counted in the mean. Choose with --no-relevant: skip leaves them out of the mean; a "
        "number (0, 1 or nan) is their score, without this warning.",
    ]


def test_evaluate_run_reads_the_first_parameters_of_a_measure_as_trec_eval():
    """evaluate_run's -m syntax (and so evaluate's -m) reads its entries as
    trec_eval reads its -m list: the first parameters of a measure, a set
    taking the parameters given for its measures."""
    qrels, run = TREC / "qrels.test", TREC / "results.test"
    with pytest.warns(UserWarning, match=r"metrics: 'P.10' is left out: trec_eval reads only "
                                         r"the first parameters given for a measure \(here "
                                         r"'P.5'\); give all of them in one entry."):
        res = evaluate_run(qrels, run, ["P.5", "map", "P.10"], setting="trec_eval")
    assert res.metrics == ["P_5", "map"]
    assert res.mean["P_5"] == pytest.approx(0.2667, abs=5e-5)
    # trec_eval -m official -m P.10 prints these (runid aside, which is text), in this order
    official = evaluate_run(qrels, run, ["official", "P.10"], setting="trec_eval")
    assert official.metrics == [
        "num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map", "Rprec", "bpref",
        "recip_rank", *(f"iprec_at_recall_{r / 10:.2f}" for r in range(11)), "P_10"]


# -- the commands, as subprocesses ------------------------------------------------


def _env():
    env = dict(os.environ)
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    return env


def run_many(calls):
    """Run ``main(args)`` for each argument list in one fresh interpreter; each
    call's exit code, stdout and stderr, and what the interpreter imported."""
    code = textwrap.dedent("""
        import contextlib, io, json, sys
        from sk_rankmetrics._cli import main
        out = []
        for args in json.loads(sys.argv[1]):
            o, e = io.StringIO(), io.StringIO()
            with contextlib.redirect_stdout(o), contextlib.redirect_stderr(e):
                try:
                    rc = main(args)
                except SystemExit as exc:  # argparse's usage errors
                    rc = exc.code
            out.append([rc, o.getvalue(), e.getvalue()])
        mods = sorted(m for m in sys.modules if m.split(".")[0] in ("sklearn", "sk_rankmetrics"))
        print(json.dumps({"calls": out, "modules": mods}))
    """)
    proc = subprocess.run([sys.executable, "-c", code, json.dumps([list(map(str, c))
                                                                   for c in calls])],
                          capture_output=True, text=True, env=_env(), timeout=600)
    assert proc.returncode == 0, proc.stderr
    doc = json.loads(proc.stdout)
    return doc["calls"], doc["modules"]


@pytest.fixture
def files(tmp_path):
    """q1 judged 0 only: no relevant document; q2 has one."""
    qrels = tmp_path / "qrels.txt"
    qrels.write_text("q1 0 a 0\nq1 0 b 0\nq2 0 c 1\nq2 0 d 0\n")
    runs = []
    for tag in ("A", "B"):
        run = tmp_path / f"run{tag}.txt"
        run.write_text(f"q1 Q0 a 1 3 {tag}\nq1 Q0 b 2 2 {tag}\nq2 Q0 d 1 2 {tag}\n"
                       f"q2 Q0 c 2 1 {tag}\n")
        runs.append(run)
    return qrels, *runs


FOUR = ["-m", "ndcg@10", "-m", "map", "-m", "mrr", "-m", "P@5"]


@pytest.mark.slow
def test_a_query_without_relevant_documents_warns_once_without_sklearn(files):
    """Four metrics, two runs: one warning line naming them and --no-relevant
    (it was 8 lines naming no_relevant=, and imported scikit-learn for its
    warning class); --no-relevant chooses, and silences it. No command path
    imports scikit-learn or a module of NOT_ON_THE_FILE_COMMANDS."""
    qrels, run_a, run_b = files
    calls, modules = run_many([
        ["evaluate", qrels, run_a, run_b, *FOUR],
        ["evaluate", qrels, run_a, run_b, *FOUR, "--no-relevant", "skip"],
        ["evaluate", qrels, run_a, *FOUR, "--no-relevant", "0"],
        ["compare", qrels, run_a, run_b, "-m", "ndcg@10", "-m", "map"],
        ["compare", qrels, run_a, run_b, "-m", "ndcg@10", "--no-relevant", "1"],
        ["trec_eval", "-m", "all_trec", qrels, run_a],
        ["evaluate", qrels, run_a, "-m", "ndcg@10", "--trec-eval", "-m", "P.5,10"],
    ])
    assert "sklearn" not in {m.split(".")[0] for m in modules}
    # _dask/__init__.py registers the backend without importing Dask: its modules are not
    prefixes = tuple("sk_rankmetrics." + (p.replace("/", ".") if p.endswith("/")
                                          else p.removesuffix(".py").replace("/", ".") + ".")
                     for p in NOT_ON_THE_FILE_COMMANDS if p != "_cli/")
    assert [m for m in modules if (m + ".").startswith(prefixes) and m + "." not in (
        "sk_rankmetrics._dask.",)] == []
    (rc, out, err), (rc_skip, out_skip, err_skip), (rc0, out0, err0) = calls[:3]
    assert rc == 0, err
    assert err.splitlines() == [
        f"sk-rankmetrics: warning: {run_a}, {run_b}: 1 of 2 queries have no relevant item: "
        "ndcg@10, map, mrr and P@5 score it 0, counted in the mean. Choose with "
        "--no-relevant: skip leaves it out of the mean; a number (0, 1 or nan) is its score, "
        "without this warning."]
    # q2 ranks its relevant document second: nDCG 1/log2(3), AP 1/2, RR 1/2, P@5 1/5
    assert [line.split() for line in out.splitlines()[2:]] == [
        ["A", "0.3155", "0.2500", "0.2500", "0.1000"],
        ["B", "0.3155", "0.2500", "0.2500", "0.1000"]]
    assert rc_skip == 0 and err_skip == ""
    assert [line.split() for line in out_skip.splitlines()[2:]] == [
        ["A", "0.6309", "0.5000", "0.5000", "0.2000"],
        ["B", "0.6309", "0.5000", "0.5000", "0.2000"]]
    assert rc0 == 0 and err0 == "" and out0.splitlines()[-1].split() == [
        "all", "0.3155", "0.2500", "0.2500", "0.1000"]
    rc, out, err = calls[3]
    assert rc == 0 and len(err.splitlines()) == 1 and "ndcg@10 and map score it 0" in err
    rc, out, err = calls[4]
    assert rc == 0 and err == "", err
    assert [line.split()[:3] for line in out.splitlines()[3:5]] == [
        ["a", "A", "0.8155"], ["b", "B", "0.8155"]]  # q1 scores 1: (1 + 0.6309) / 2
    for rc, out, err in calls[5:]:  # trec_eval's setting: such a query scores 0, silently
        assert rc == 0 and err == "" and out, err


@pytest.mark.slow
def test_no_relevant_flag_takes_what_no_relevant_takes(files):
    qrels, run_a, _ = files
    calls, _ = run_many([["evaluate", qrels, run_a, "--no-relevant", bad]
                         for bad in ("2", "foo", "-0.5")])
    for (rc, out, err), bad in zip(calls, ("2", "foo", "-0.5")):
        assert rc == 2 and out == ""
        assert err.splitlines()[-1] == (
            f"sk-rankmetrics evaluate: error: argument --no-relevant: {bad!r} is not "
            "accepted: give warn, skip, a number from 0 to 1, or nan")


@pytest.mark.slow
def test_every_message_of_bad_inputs_names_the_flag_and_the_file(files, tmp_path):
    """Bad inputs driven through the commands: the message of each, and no
    Python keyword or function in any line a command prints."""
    qrels, run_a, run_b = files
    contents = {
        "empty.txt": "",
        "dup.txt": "q1 Q0 a 1 3 D\nq1 Q0 a 2 2 D\n",
        "qdup.txt": "q1 0 a 1\nq1 0 a 0\n",
        "dup.csv": "query,item,score\nq1,a,2\nq2,c,1\nq1,a,1\n",
        "dup.json": '{"q1": {"a": 1, "a": 2}}',
        "empty.csv": "query,item,score\n",
        "noscore.csv": "query,item\nq1,a\n",
        "bad.txt": "q1 Q0 a 1 x A\n",
        "short.txt": "q2 Q0 c 1 1 S\n",
        "other.txt": "q9 Q0 c 1 1 O\n",
        "ties_qrels.txt": "".join(f"q 0 d{d} {1 + d % 2}\n" for d in range(0, 3000, 7)),
        "ties_run.txt": "".join(f"q Q0 d{d} {d + 1} 1 T\n" for d in range(3000)),
    }
    for name, text in contents.items():
        (tmp_path / name).write_text(text)
    (empty, dup, qdup, dup_csv, dup_json, empty_csv, no_score, bad_score, short, other,
     ties_q, ties_r) = (tmp_path / name for name in contents)
    cases = [
        (["evaluate", qrels, run_a, empty],
         f"sk-rankmetrics: error: the run ({empty}) ranks no document (an empty file, or only "
         "comments and blank lines); it must rank at least one."),
        (["evaluate", qrels, run_a, other],  # an error while scoring one of several runs
         f"sk-rankmetrics: error: {other}: no query of the ranking has judgements: the "
         "ranking's ids ('q9') and the truth's ('q1', 'q2') have none in common."),
        (["evaluate", qrels, empty_csv],
         f"sk-rankmetrics: error: the run ({empty_csv}) ranks no document"),
        (["evaluate", qrels, run_a, dup],
         f"sk-rankmetrics: error: run file '{dup}', line 2: duplicate document 'a' for query "
         "'q1' (first on line 1). A run ranks each document at most once per query (trec_eval "
         "refuses it too); keep one line of each, or pass --duplicates first to keep the first "
         "in ranked order (read as trec, chosen by its extension .txt; "
         "if it is another format, name it with --run-format, one of csv, tsv, parquet, json)."),
        (["trec_eval", qdup, run_a],
         f"sk-rankmetrics: error: qrels file '{qdup}', line 2: duplicate document 'a' for "
         "query 'q1' (first on line 1). A diversity qrels, which judges a document once per "
         "subtopic, is read as one by 'sk-rankmetrics evaluate' when every -m is one of the "
         "diversity measures (alpha_nDCG@k, ERR_IA@k, ...) (read as trec"),
        (["evaluate", qrels, dup_csv],
         f"sk-rankmetrics: error: run file '{dup_csv}', line 4: duplicate document 'a' for "
         "query 'q1' (first on line 2); a run ranks each document at most once per query; "
         "keep one row of each, or pass --duplicates first to keep the first in ranked "
         "order (read as csv"),
        (["evaluate", qrels, dup_json],
         f"sk-rankmetrics: error: run file '{dup_json}': an object gives the key 'a' twice"),
        (["evaluate", qrels, bad_score],
         f"sk-rankmetrics: error: run file '{bad_score}', line 1: score 'x' is not a finite "
         "number"),
        (["evaluate", qrels, run_a, "--run-format", "json"],
         "(read as json, chosen by --run-format json; if it is another format, name it with "
         "--run-format, one of trec, csv, tsv, parquet)."),
        (["compare", qrels, run_a, run_b, "--qrels-format", "csv"],
         "chosen by --qrels-format csv; if it is another format, name it with --qrels-format,"),
        (["evaluate", qrels, no_score],
         "cannot find the score column: looked for ['score', 'sim', 'y_score', 'prediction'], "
         "the file has ['query', 'item']; give the column one of those names (read as csv"),
        (["evaluate", qrels, run_a, "-m", "ndcg", "-l", "2"],
         "sk-rankmetrics: error: -l 2.0 is read by none of the requested metrics (ndcg); "),
        (["evaluate", qrels, run_a, "-m", "coverage@2"],
         "sk-rankmetrics: error: coverage@2 needs --items FILE; give it."),
        (["evaluate", ties_q, ties_r, "-m", "G"],
         "this measure allows. Break the ties, or use --trec-eval, which orders them by "
         "document id."),
        (["compare", qrels, run_a, short, "-m", "P@5"],
         "sk-rankmetrics: error: the systems do not have the same queries: 'S' lacks 1 "
         "('q1'). Score every query in every system (-c scores a query missing from a run as "
         "0), or compare on the 1 query they share with --on-missing drop."),
        (["evaluate", qrels, run_a, "--trec-eval", "-m", "P.5,10", "-m", "P_10"],
         "sk-rankmetrics: error: -m names a metric twice: ['P_5', 'P_10', 'P_10']; results "
         "are keyed by name, so each must be unique."),
        (["evaluate", qrels, run_a, "--trec-eval", "-m", "P.5", "-m", "map", "-m", "P.10"],
         "sk-rankmetrics: warning: -m P.10 is left out: trec_eval reads only the first "
         "parameters given for a measure (here -m P.5); give all of them in one -m."),
    ]
    calls, _ = run_many([args for args, _ in cases])
    sp = {c: speaker(c) for c in COMMANDS}
    for i, ((args, expected), (rc, out, err)) in enumerate(zip(cases, calls)):
        assert expected in err, (args, err)
        for line in err.splitlines():
            assert not sp[args[0]].python(line), line
        if i < len(cases) - 1:  # data errors: exit code 1, nothing on stdout
            assert rc == 1 and out == "", (args, rc, out)
    rc, out, err = calls[-1]
    assert rc == 0 and out.splitlines()[1].split() == ["query", "P_5", "map"]


RUN_TWICE = ("run file 'r.txt', line 2: duplicate document 'd1' for query '1' (first on line "
             "1). A run ranks each document at most once per query (trec_eval refuses it too); "
             "keep one line of each, or pass duplicates='first' to keep the first in ranked "
             "order (read as trec, chosen by its extension .txt; if it is another format, name "
             "it with format=..., one of csv, tsv, parquet, json).")


@pytest.mark.parametrize("command", COMMANDS)
def test_advice_left_out_keeps_the_remark_that_ends_it(command):
    """A command without --duplicates drops that advice but not the remark on
    how the file was read, and never leaves a parenthesis open or unopened."""
    said = speaker(command, {"format": ("run_format",)}).speak(RUN_TWICE)  # as for a run file
    depth = 0
    for ch in said:
        depth += (ch == "(") - (ch == ")")
        assert depth >= 0, said
    assert depth == 0, said
    assert "duplicates=" not in said and "format=" not in said
    assert said.endswith("(read as trec, chosen by its extension .txt; if it is another "
                         "format, name it with --run-format, one of csv, tsv, parquet, json).")
    has_flag = any("--duplicates" in a.option_strings for a in _parser(command)._actions)
    assert ("--duplicates first" in said) == has_flag
    if not has_flag:
        assert said.startswith(RUN_TWICE.split("; keep")[0] + " (read as trec")
