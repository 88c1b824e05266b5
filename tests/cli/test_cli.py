"""The command line, run as a subprocess (``python -m sk_rankmetrics ...``)."""

from __future__ import annotations

import csv
import json
import os
import re
import subprocess
import sys

import pytest
from conftest import DATA, ROOT, run_cli

#: Slow (the command line, run as a subprocess): left out by pytest -m 'not slow'.
pytestmark = pytest.mark.slow

@pytest.fixture
def files(tmp_path):
    qrels = tmp_path / "qrels.txt"
    qrels.write_text("q1 0 a 2\nq1 0 b 1\nq1 0 c 0\nq2 0 d 1\nq2 0 e 1\nq3 0 f 1\n")
    run_a = tmp_path / "run_a.txt"
    run_a.write_text("q1 Q0 a 1 3 A\nq1 Q0 c 2 2 A\nq1 Q0 b 3 1 A\n"
                     "q2 Q0 x 1 2 A\nq2 Q0 d 2 1 A\n")
    run_b = tmp_path / "run_b.txt"
    run_b.write_text("q1 Q0 c 1 3 B\nq1 Q0 x 2 2 B\nq1 Q0 y 3 1 B\n"
                     "q2 Q0 x 1 2 B\nq2 Q0 y 2 1 B\n")
    return qrels, run_a, run_b


@pytest.mark.parametrize("command", [[], ["evaluate"], ["compare"], ["demo"]])
def test_help(command):
    out = run_cli(*command, "--help")
    assert out.returncode == 0
    assert out.stdout.startswith("usage: sk-rankmetrics")
    if command:
        assert f"sk-rankmetrics {command[0]}" in out.stdout


def test_evaluate_table_per_query_and_outputs(files, tmp_path):
    qrels, run_a, _ = files
    out = run_cli("evaluate", qrels, run_a, "-m", "mrr", "-m", "P@2", "-q",
                  "-o", tmp_path / "o.csv")
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert lines[0].startswith("2 queries")
    table = {line.split()[0]: line.split()[1:] for line in lines[2:]}
    assert table["q1"] == ["1.0000", "0.5000"]
    assert table["q2"] == ["0.5000", "0.5000"]
    assert table["all"] == ["0.7500", "0.5000"]
    with open(tmp_path / "o.csv", newline="") as fh:
        rows = list(csv.reader(fh))
    assert rows[0] == ["query", "mrr", "P@2"]
    assert rows[-1] == ["all", "0.75", "0.5"]
    out = run_cli("evaluate", qrels, run_a, "-m", "mrr", "-c", "-o", tmp_path / "o.json")
    assert out.returncode == 0
    doc = json.loads((tmp_path / "o.json").read_text())
    assert doc["mean"]["mrr"] == pytest.approx(0.5)  # q3 missing from the run counts 0
    assert doc["per_query"]["q3"]["mrr"] == 0.0


def test_evaluate_default_metrics_and_trec_eval_flag(files):
    qrels, run_a, _ = files
    out = run_cli("evaluate", qrels, run_a)
    assert out.returncode == 0
    for name in ("ndcg@10", "map", "P@10", "recall@100", "mrr"):
        assert name in out.stdout
    out = run_cli("evaluate", qrels, run_a, "--trec-eval", "-m", "P_1", "-l", "2")
    assert "setting: trec_eval" in out.stdout
    assert out.stdout.splitlines()[-1].split() == ["all", "0.5000"]


def test_evaluate_takes_trec_eval_measure_syntax(files):
    """-m P.5,10 and sets such as official, as the trec_eval command takes them."""
    qrels, run_a, _ = files
    args = ["-m", "P.5,10", "-m", "ndcg_cut.10", "-m", "rbp.p=0.8"]
    ours = run_cli("evaluate", qrels, run_a, "--trec-eval", *args, "--format", "trec_eval")
    assert ours.returncode == 0, ours.stderr
    theirs = run_cli("trec_eval", *args, qrels, run_a)
    assert ours.stdout == theirs.stdout
    assert [line.split()[0] for line in ours.stdout.splitlines()] == [
        "P_5", "P_10", "ndcg_cut_10", "rbp_p=0.8"]
    bad = run_cli("evaluate", qrels, run_a, "-m", "rbp.0.8")
    assert bad.returncode == 2 and "'0.8' is not a name=value pair" in bad.stderr


def test_evaluate_reproduces_trec_eval_on_reference_files():
    te = DATA / "trec_eval"
    out = run_cli("evaluate", te / "qrels.test", te / "results.test", "--trec-eval",
                  "-m", "ndcg_cut_10", "-m", "map", "-m", "P_5")
    assert out.returncode == 0
    assert out.stdout.splitlines()[-1].split() == ["all", "0.3016", "0.1785", "0.2667"]


def test_formats_detected_or_named(files, tmp_path):
    qrels = files[0]
    (tmp_path / "run.csv").write_text("query,item,score\nq1,a,3\nq1,c,2\nq1,b,1\n")
    (tmp_path / "qrels.json").write_text(json.dumps({"q1": {"a": 2, "b": 1}}))
    out = run_cli("evaluate", tmp_path / "qrels.json", tmp_path / "run.csv", "-m", "P@1")
    assert out.returncode == 0, out.stderr
    assert out.stdout.splitlines()[-1].split() == ["all", "1.0000"]
    (tmp_path / "run.data").write_text("query\titem\tscore\nq1\tc\t3\n")
    out = run_cli("evaluate", qrels, tmp_path / "run.data", "--run-format", "tsv",
                  "-m", "P@1")
    assert out.returncode == 0, out.stderr
    assert out.stdout.splitlines()[-1].split() == ["all", "0.0000"]


def test_compare_prints_p_values_and_is_seeded(files, tmp_path):
    qrels, run_a, run_b = files
    args = ("compare", qrels, run_a, run_b, "-m", "mrr", "-m", "ndcg@3", "--test",
            "randomization", "--permutations", "500", "--seed", "3", "-o", tmp_path / "c.json")
    first, second = run_cli(*args), run_cli(*args)
    assert first.returncode == 0, first.stderr
    assert first.stdout == second.stdout
    assert "p (raw)" in first.stdout and "randomisation" in first.stdout
    doc = json.loads((tmp_path / "c.json").read_text())
    assert {r["metric"] for r in doc["comparisons"]} == {"mrr", "ndcg@3"}
    for r in doc["comparisons"]:
        assert 0 < r["p_raw"] <= 1 and 0 < r["p"] <= 1
        assert (r["system_a"], r["system_b"]) == ("A", "B")  # the run tags


def test_demo_prints_table_and_grid_search():
    out = run_cli("demo")
    assert out.returncode == 0, out.stderr
    assert "ndcg@10" in out.stdout and "noisy ranker" in out.stdout
    assert "GridSearchCV" in out.stdout and "best:" in out.stdout


def test_forced_progress_bar_on_stderr(files):
    qrels, run_a, _ = files
    out = run_cli("evaluate", qrels, run_a, "-m", "mrr", "--progress")
    assert out.returncode == 0
    assert "run_a.txt [" in out.stderr and "1/1" in out.stderr


def _paths(files, tmp_path):
    qrels, run_a, run_b = files
    (tmp_path / "bad.txt").write_text("q 0 a 1\nq 0 b\n")
    (tmp_path / "bad.json").write_text("{not json")
    return {"missing": tmp_path / "missing.txt", "bad": tmp_path / "bad.txt",
            "qrels": qrels, "run_a": run_a, "run_b": run_b,
            "badjson": tmp_path / "bad.json"}


@pytest.mark.parametrize(
    ("args", "match"),
    [
        (["evaluate", "{missing}", "{run_a}"], "cannot read qrels file"),
        (["evaluate", "{bad}", "{run_a}"], "line 2: expected 4 fields"),
        (["evaluate", "{qrels}", "{badjson}"], "not valid JSON"),
        (["evaluate", "{qrels}", "{run_a}", "-m", "ndcg", "-l", "2"],
         "-l 2.0 is read by none of the requested metrics (ndcg)"),
    ],
)
def test_data_errors_exit_1_with_one_line(files, tmp_path, args, match):
    out = run_cli(*[a.format(**_paths(files, tmp_path)) for a in args])
    assert out.returncode == 1, out.stderr
    assert out.stdout == ""
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1, out.stderr
    assert lines[0].startswith("sk-rankmetrics: error: ")
    assert match in lines[0]


@pytest.mark.parametrize(
    ("args", "match"),
    [
        (["evaluate", "{qrels}", "{run_a}", "-m", "ndgc@10"],
         "argument -m/--metric: unknown metric 'ndgc'. Did you mean 'ndcg'"),
        (["evaluate", "{qrels}", "{run_a}", "-M", "0"],
         "argument -M/--max-docs: '0' is not accepted: give an integer >= 1"),
        (["evaluate", "{qrels}", "{run_a}", "-M", "x"],
         "argument -M/--max-docs: 'x' is not an integer"),
        (["evaluate", "{qrels}", "{run_a}", "-l", "nan"],
         "argument -l/--threshold: 'nan' is not accepted: give a finite real number"),
        (["compare", "{qrels}", "{run_a}"], "compare needs at least two runs"),
        (["compare", "{qrels}", "{run_a}", "{run_b}", "--permutations", "0"],
         "argument --permutations: '0' is not accepted: give an integer >= 100 and <= "
         "10000000"),
        (["compare", "{qrels}", "{run_a}", "{run_b}", "--permutations", str(10**12)],
         "is not accepted: give an integer >= 100 and <= 10000000"),
    ],
)
def test_usage_errors_exit_2_with_the_usage_line(files, tmp_path, args, match):
    out = run_cli(*[a.format(**_paths(files, tmp_path)) for a in args])
    assert out.returncode == 2, out.stderr
    assert out.stdout == ""
    assert out.stderr.startswith(f"usage: sk-rankmetrics {args[0]}")
    last = out.stderr.strip().splitlines()[-1]
    assert last.startswith(f"sk-rankmetrics {args[0]}: error: "), last
    assert match in last, last


def test_traceback_flag_shows_the_full_traceback(files, tmp_path):
    paths = _paths(files, tmp_path)
    out = run_cli("evaluate", paths["bad"], paths["run_a"], "--traceback")
    assert out.returncode == 1
    assert "Traceback (most recent call last)" in out.stderr
    assert "line 2: expected 4 fields" in out.stderr


def test_usage_errors_exit_2():
    out = run_cli()
    assert out.returncode == 2 and out.stdout == ""
    assert out.stderr.startswith("usage: sk-rankmetrics")
    for command, summary in (("evaluate", "score one run or several against qrels"),
                             ("compare", "compare runs with paired significance tests"),
                             ("trec_eval", "trec_eval's flags and output"),
                             ("demo", "score three rankers"),
                             ("agreement", "compare two qrels: assessor agreement"),
                             ("fuse", "fuse several runs into one TREC run")):
        assert re.search(rf"^ +{command} +{re.escape(summary)}", out.stderr, re.M), command
    assert out.stderr.splitlines()[-1] == (
        "sk-rankmetrics: error: give a command (evaluate, compare, leaderboard, trec_eval, "
        "demo, agreement, fuse); "
        "'sk-rankmetrics COMMAND --help' describes one")
    out = run_cli("evaluate", "only-one-file")
    assert out.returncode == 2


def test_console_script_entry_point():
    text = (ROOT / "pyproject.toml").read_text()
    assert 'sk-rankmetrics = "sk_rankmetrics._cli:main"' in text
    from sk_rankmetrics._cli import main

    assert main(["demo", "--no-grid-search"]) == 0


def test_trec_eval_command_imports_neither_sklearn_nor_pandas():
    """The command's file path starts as fast as NumPy: importing the command
    module and scoring the bundled files leaves scikit-learn, pandas and
    matplotlib unimported (the package's public names load lazily)."""
    data = ROOT / "sk_rankmetrics" / "data"
    code = (
        "import io, sys, contextlib\n"
        "from sk_rankmetrics._cli import main\n"
        "out = io.StringIO()\n"
        "with contextlib.redirect_stdout(out):\n"
        f"    rc = main(['trec_eval', '-m', 'map', {str(data / 'qrels.txt')!r}, "
        f"{str(data / 'bm25.txt')!r}])\n"
        "heavy = sorted({m.split('.')[0] for m in sys.modules} "
        "& {'sklearn', 'pandas', 'matplotlib'})\n"
        "print(rc, out.getvalue().split(), heavy)\n"
    )
    env = dict(os.environ)
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         env=env, timeout=300)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "0 ['map', 'all', '0.4443'] []"


def test_public_names_load_lazily_and_all_are_listed():
    code = (
        "import sys, sk_rankmetrics as s\n"
        "before = 'sklearn' in sys.modules or 'pandas' in sys.modules\n"
        "missing = sorted(set(s.__all__) - set(dir(s)))\n"
        "from sk_rankmetrics import get_scorer, ndcg_score\n"
        "objs = [getattr(s, n) for n in s.__all__]\n"
        "print(before, missing, 'sklearn' in sys.modules, ndcg_score is s.ndcg_score)\n"
        "try:\n"
        "    s.no_such_name\n"
        "except AttributeError as exc:\n"
        "    print(exc)\n"
    )
    env = dict(os.environ)
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         env=env, timeout=300)
    assert out.returncode == 0, out.stderr
    assert out.stdout.splitlines() == [
        "False [] True True",
        "module 'sk_rankmetrics' has no attribute 'no_such_name'",
    ]


@pytest.fixture
def three_runs(files, tmp_path):
    """The runs of ``files`` and a third, run_c.txt, with run_b's rankings and tag A."""
    qrels, run_a, run_b = files
    run_c = tmp_path / "run_c.txt"
    run_c.write_text(run_b.read_text().replace(" B\n", " A\n"))
    return qrels, run_a, run_b, run_c


def test_evaluate_several_runs_one_table_named_by_tag(three_runs):
    qrels, run_a, run_b, _ = three_runs
    out = run_cli("evaluate", qrels, run_a, run_b, "-m", "mrr", "-m", "P@2", "--progress")
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert lines[0] == "2 runs, 2 queries each, setting: sk_rankmetrics"
    assert [line.split() for line in lines[1:]] == [
        ["run", "mrr", "P@2"], ["A", "0.7500", "0.5000"], ["B", "0.0000", "0.0000"]]
    # the phases of the progress bar, in order: the qrels are read once
    labels = [line.split(" [")[0] for line in out.stderr.splitlines() if " [" in line]
    phases = [p for i, p in enumerate(labels) if i == 0 or p != labels[i - 1]]
    assert phases == ["reading qrels qrels.txt", "reading run run_a.txt", "matching",
                      "evaluating", "reading run run_b.txt", "matching", "evaluating"]
    # a warning shared by both runs: one line naming them
    warned = [line for line in out.stderr.splitlines() if "warning" in line]
    assert warned == [f"sk-rankmetrics: warning: {run_a}, {run_b}: 1 of 3 judged queries are "
                      "not in the ranking ('q3') and are left out (-c scores them 0)."]
    out = run_cli("evaluate", qrels, run_a, run_b, "-m", "mrr", "-q")
    rows = [line.split() for line in out.stdout.splitlines()[1:]]
    assert rows == [["run", "query", "mrr"], ["A", "q1", "1.0000"], ["A", "q2", "0.5000"],
                    ["A", "all", "0.7500"], ["B", "q1", "0.0000"], ["B", "q2", "0.0000"],
                    ["B", "all", "0.0000"]]


def test_evaluate_several_runs_clashing_tags_or_names(three_runs):
    qrels, run_a, run_b, run_c = three_runs
    out = run_cli("evaluate", qrels, run_a, run_b, run_c, "-m", "mrr")
    assert out.returncode == 0, out.stderr
    # run_a and run_c share the tag A: every run is named by its file name
    assert [line.split()[0] for line in out.stdout.splitlines()[2:]] == [
        "run_a.txt", "run_b.txt", "run_c.txt"]
    out = run_cli("evaluate", qrels, run_a, run_b, run_c, "-m", "mrr", "--names", "x,y,z")
    assert [line.split()[0] for line in out.stdout.splitlines()[2:]] == ["x", "y", "z"]
    for names, match in (("x,y", "--names gives 2 name(s) for 3 run(s)"),
                         ("x,y,x", "--names gives 'x' twice"),
                         ("x,,z", "argument --names: 'x,,z' has an empty name")):
        bad = run_cli("evaluate", qrels, run_a, run_b, run_c, "--names", names)
        assert bad.returncode == 2 and bad.stdout == ""
        assert match in bad.stderr.strip().splitlines()[-1]
    bad = run_cli("evaluate", qrels, run_a, run_b, run_a)
    assert bad.returncode == 2 and f"run {str(run_a)!r} is given twice" in bad.stderr


def test_evaluate_several_runs_every_output_format(three_runs, tmp_path):
    qrels, run_a, run_b, _ = three_runs
    args = ("evaluate", qrels, run_a, run_b, "-m", "mrr")
    flat = [["run", "query", "mrr"], ["A", "q1", "1.0"], ["A", "q2", "0.5"],
            ["A", "all", "0.75"], ["B", "q1", "0.0"], ["B", "q2", "0.0"], ["B", "all", "0.0"]]
    for fmt, sep in (("csv", ","), ("tsv", "\t")):
        out = run_cli(*args, "--format", fmt, "-o", tmp_path / f"o.{fmt}")
        assert out.returncode == 0, out.stderr
        assert [line.split(sep) for line in out.stdout.splitlines()] == flat
        assert (tmp_path / f"o.{fmt}").read_text() == out.stdout
    out = run_cli(*args, "--format", "json", "-o", tmp_path / "o.json")
    doc = json.loads(out.stdout)
    assert list(doc["runs"]) == ["A", "B"]
    assert doc["runs"]["A"] == {"mean": {"mrr": 0.75},
                                "per_query": {"q1": {"mrr": 1.0}, "q2": {"mrr": 0.5}}}
    assert json.loads((tmp_path / "o.json").read_text()) == doc
    out = run_cli(*args, "--format", "trec_eval")
    assert [line.split() for line in out.stdout.splitlines()] == [
        ["runid", "all", "A"], ["mrr", "all", "0.7500"],
        ["runid", "all", "B"], ["mrr", "all", "0.0000"]]
    pd = pytest.importorskip("pandas")
    pytest.importorskip("pyarrow")
    out = run_cli(*args, "-o", tmp_path / "o.parquet")
    assert out.returncode == 0, out.stderr
    frame = pd.read_parquet(tmp_path / "o.parquet")
    assert frame.columns.tolist() == ["run", "query", "mrr"]
    assert frame.values.tolist() == [[r[0], r[1], float(r[2])] for r in flat[1:]]


def test_compare_names_runs_by_tag_names_or_file(three_runs):
    qrels, run_a, run_b, run_c = three_runs
    common = ("-m", "mrr", "--format", "json", "--permutations", "100")
    out = run_cli("compare", qrels, run_a, run_b, "--baseline", "B", *common)
    assert out.returncode == 0, out.stderr
    doc = json.loads(out.stdout)
    assert doc["systems"] == ["A", "B"]
    assert [(r["system_a"], r["system_b"]) for r in doc["comparisons"]] == [("A", "B")]
    out = run_cli("compare", qrels, run_a, run_c, *common)
    assert json.loads(out.stdout)["systems"] == ["run_a.txt", "run_c.txt"]  # tags clash
    out = run_cli("compare", qrels, run_a, run_c, "--names", "bm25,dense",
                  "--baseline", "run_c.txt", *common)
    doc = json.loads(out.stdout)
    assert doc["systems"] == ["bm25", "dense"]
    assert [(r["system_a"], r["system_b"]) for r in doc["comparisons"]] == [("bm25", "dense")]
    bad = run_cli("compare", qrels, run_a, run_c, "--baseline", "A", *common)
    assert bad.returncode == 2
    assert "--baseline 'A' matches 2 runs (run_a.txt, run_c.txt)" in bad.stderr


def test_compare_markdown_and_latex_carry_the_comparisons(files):
    qrels, run_a, run_b = files
    common = ("-m", "mrr", "--permutations", "100", "-c")
    out = run_cli("compare", qrels, run_a, run_b, *common, "--format", "markdown", "-q")
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert "| metric | comparison | difference | 95% CI | effect | W/T/L | p (raw) | p (holm) |" \
        in lines
    (pair,) = [line for line in lines if line.startswith("| mrr | A - B |")]
    assert len(pair.split(" | ")) == 8
    # -q: each query's values as a Markdown table too
    assert "| query | A | B | A - B |" in lines
    assert "| q1 | 1.0000 | 0.0000 | +1.0000 |" in lines
    out = run_cli("compare", qrels, run_a, run_b, *common, "--format", "latex")
    assert out.returncode == 0, out.stderr
    assert out.stdout.count("\\begin{tabular}") == 2
    assert "\\caption{Paired comparisons" in out.stdout
    assert "mrr & A $-$ B & +0.5000 &" in out.stdout


def test_users_without_recommendations_warn_or_score_zero(tmp_path):
    """Issue 25's example from the command line: truth for u1, u4 and u5, a
    recommendation list for u1 only."""
    truth = tmp_path / "truth.csv"
    truth.write_text("user,item,relevance\nu1,a,1\nu4,b,1\nu5,c,1\n")
    recs = tmp_path / "recs.csv"
    recs.write_text("user,item,score\nu1,x,2\nu1,a,1\n")
    out = run_cli("evaluate", truth, recs, "-m", "ndcg@10")
    assert out.returncode == 0, out.stderr
    assert out.stdout.splitlines()[-1].split() == ["all", "0.6309"]
    assert out.stderr == ("sk-rankmetrics: warning: 2 of 3 judged users are not in the "
                          "ranking ('u4', 'u5') and are left out (-c scores them 0).\n")
    out = run_cli("evaluate", truth, recs, "-m", "ndcg@10", "--complete")
    assert out.returncode == 0, out.stderr
    assert out.stdout.splitlines()[-1].split() == ["all", "0.2103"]
    assert out.stderr == ""
