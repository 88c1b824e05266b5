"""``sk-rankmetrics compare`` run as a subprocess: formats, flags, errors."""

from __future__ import annotations

import csv
import io
import json
import re

import numpy as np
import pytest
import scipy.stats as st
from conftest import DATA, run_cli

from sk_rankmetrics import evaluate_run, read_trec_qrels, read_trec_run

#: Slow (the compare command, run as a subprocess): left out by pytest -m 'not slow'.
pytestmark = pytest.mark.slow

N_QUERIES = 12


@pytest.fixture
def runs(tmp_path):
    """Qrels of 12 queries and three runs of increasing quality."""
    rng = np.random.default_rng(7)
    qrels, paths = [], []
    for q in range(N_QUERIES):
        for d in range(8):
            qrels.append(f"q{q} 0 d{q}_{d} {int(d < 3)}")
    (tmp_path / "qrels.txt").write_text("\n".join(qrels) + "\n")
    for name, skill in (("weak", 0.0), ("good", 1.5), ("best", 3.0)):
        lines = []
        for q in range(N_QUERIES):
            scores = skill * (np.arange(8) < 3) + rng.normal(size=8)
            lines += [f"q{q} Q0 d{q}_{d} 0 {scores[d]:.6f} {name}" for d in range(8)]
        path = tmp_path / f"{name}.txt"
        path.write_text("\n".join(lines) + "\n")
        paths.append(path)
    return tmp_path / "qrels.txt", paths


def test_table_with_markers_legend_and_comparisons(runs):
    qrels, paths = runs
    out = run_cli("compare", qrels, *paths, "-m", "ndcg@5", "-m", "P@3")
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert lines[0] == "3 runs, setting: sk_rankmetrics"
    assert lines[2].split() == ["#", "system", "ndcg@5", "P@3"]
    best = next(line for line in lines if line.startswith("c  best "))  # the run tag
    assert re.search(r"\^ab", best)  # beats weak (a) and good (b)
    assert ("^x: significantly better than system x (paired t-test, Holm correction over "
            "the 3 comparisons") in " ".join(out.stdout.split())
    comparisons = [line for line in lines if line.startswith(("ndcg@5 ", "P@3 "))]
    assert len(comparisons) == 6
    for line in comparisons:
        for p in line.split()[-2:]:
            assert re.fullmatch(r"<0\.0001|[01]\.\d{4}", p), line


def test_p_values_are_the_librarys_and_scipys(runs):
    qrels, paths = runs
    out = run_cli("compare", qrels, *paths[:2], "-m", "map", "--format", "json",
                  "--correction", "none")
    assert out.returncode == 0, out.stderr
    doc = json.loads(out.stdout)
    q = read_trec_qrels(qrels)
    a, b = (evaluate_run(q, read_trec_run(p), ["map"]).per_query["map"] for p in paths[:2])
    (row,) = doc["comparisons"]
    assert row["p"] == row["p_raw"] == pytest.approx(st.ttest_rel(a, b).pvalue, rel=1e-9)
    assert row["difference"] == pytest.approx((a - b).mean())
    assert doc["settings"]["correction"] is None


def _check(fmt, text):
    if fmt == "markdown":
        assert text.startswith("| # | system | mrr |\n|---|---|---:|\n")
        assert "| c | best | **" in text
    elif fmt == "latex":
        assert text.startswith("\\begin{table}") and text.rstrip().endswith("\\end{table}")
        assert "c & best & \\textbf{" in text and "sign test" in text
    elif fmt == "csv":
        rows = list(csv.DictReader(io.StringIO(text)))
        assert len(rows) == 3
        assert [(r["system_a"], r["system_b"]) for r in rows] == [
            ("weak", "good"), ("weak", "best"), ("good", "best")]
        assert all(0 < float(r["p"]) <= 1 and r["n_queries"] == str(N_QUERIES) for r in rows)
    else:
        doc = json.loads(text)
        assert doc["settings"]["test"] == "sign" and doc["systems"] == [
            "weak", "good", "best"]


@pytest.mark.parametrize(("fmt", "also"), [("markdown", "json"), ("csv", "tex")])
def test_formats_on_stdout_and_in_the_output_file(runs, tmp_path, fmt, also):
    """--format sets what is printed; -o FILE writes the format of FILE's extension."""
    qrels, paths = runs
    out = run_cli("compare", qrels, *paths, "-m", "mrr", "--format", fmt, "--test", "sign",
                  "-o", tmp_path / f"report.{also}")
    assert out.returncode == 0, out.stderr
    _check(fmt, out.stdout)
    _check({"tex": "latex"}.get(also, also), (tmp_path / f"report.{also}").read_text())


def test_baseline_per_query_and_output_file(runs, tmp_path):
    qrels, paths = runs
    out = run_cli("compare", qrels, *paths, "-m", "P@3", "--baseline", "weak.txt", "-q",
                  "-o", tmp_path / "report.txt", "--test", "randomization",
                  "--permutations", "1000", "--seed", "1")
    assert out.returncode == 0, out.stderr
    assert "good - weak" in out.stdout and "weak - good" not in out.stdout
    assert "P@3, per query:" in out.stdout
    per_query = [line for line in out.stdout.splitlines() if re.match(r"q\d+ ", line)]
    assert len(per_query) == N_QUERIES
    assert len(per_query[0].split()) == 1 + 3 + 2  # query, 3 runs, 2 differences
    assert "exact, every sign flip of the 12 queries enumerated" in out.stdout
    assert (tmp_path / "report.txt").read_text().startswith("#  system")  # the text table
    same = run_cli("compare", qrels, *paths, "-m", "P@3", "--baseline", str(paths[0]),
                   "--test", "randomization", "--permutations", "1000", "--seed", "1", "-q")
    assert same.stdout == out.stdout


def test_missing_queries_are_a_data_error_or_dropped(runs, tmp_path):
    qrels, paths = runs
    short = tmp_path / "short.txt"
    short.write_text("".join(line + "\n" for line in paths[1].read_text().splitlines()
                             if not line.startswith(("q3 ", "q7 "))))
    out = run_cli("compare", qrels, paths[0], short, "-m", "mrr")
    assert out.returncode == 1 and out.stdout == ""
    warning, line = out.stderr.strip().splitlines()  # evaluate_run warns first
    assert "are not in the ranking ('q3', 'q7')" in warning
    assert line == ("sk-rankmetrics: error: the systems do not have the same queries: 'good' "
                    "lacks 2 ('q3', 'q7'). Score every query in every system (-c scores a "
                    "query missing from a run as 0), or compare on the 10 queries they share "
                    "with --on-missing drop.")
    out = run_cli("compare", qrels, paths[0], short, "-m", "mrr", "--on-missing", "drop")
    assert out.returncode == 0, out.stderr
    assert ("2 of 12 queries, not scored in every system, were left out (--on-missing drop)"
            in out.stdout)
    out = run_cli("compare", qrels, paths[0], short, "-m", "mrr", "-c", "--format", "json")
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout)["n_queries"] == {"mrr": N_QUERIES}


@pytest.mark.parametrize(
    ("args", "match"),
    [
        (["--baseline", "nobody.txt"], "--baseline 'nobody.txt' is not one of the runs"),
        (["--test", "anova"], "argument --test: invalid choice: 'anova'"),
        (["--alpha", "1.5"], "argument --alpha: '1.5' is not accepted: give a finite real "
                             "number > 0 and < 1"),
        (["--seed", "-3"], "argument --seed: '-3' is not accepted: give an integer >= 0"),
        (["--permutations", "50"], "argument --permutations: '50' is not accepted"),
        (["-o", "report.html"], "-o 'report.html': unknown extension '.html'; use .txt, .md, "
                                ".tex, .csv, .json or name the format with --output-format"),
    ],
)
def test_usage_errors_exit_2(runs, args, match):
    qrels, paths = runs
    out = run_cli("compare", qrels, *paths[:2], *args)
    assert out.returncode == 2, out.stderr
    assert out.stderr.startswith("usage: sk-rankmetrics compare")
    assert match in out.stderr.strip().splitlines()[-1]


def test_runs_with_the_same_file_name_are_named_by_path(runs, tmp_path):
    qrels, paths = runs
    other = tmp_path / "sub"
    other.mkdir()
    (other / "weak.txt").write_text(paths[2].read_text().replace(" best\n", " weak\n"))
    out = run_cli("compare", qrels, paths[0], other / "weak.txt", "-m", "mrr",
                  "--format", "json")
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout)["systems"] == [str(paths[0]), str(other / "weak.txt")]
    out = run_cli("compare", qrels, paths[0], paths[0])
    assert out.returncode == 2 and "is given twice" in out.stderr


def test_reference_runs_compare_under_the_trec_eval_setting(tmp_path):
    te = DATA / "trec_eval"
    # The reference run against a copy of itself with every score negated
    # (the ranking reversed): the reference run must win on every query it
    # has a relevant document for.
    lines = (te / "results.test").read_text().splitlines()
    flipped = tmp_path / "reversed.test"
    flipped.write_text("\n".join(" ".join([*f.split()[:4], str(-float(f.split()[4])),
                                            "rev"]) for f in map(str.strip, lines) if f)
                       + "\n")
    out = run_cli("compare", te / "qrels.test", te / "results.test", flipped, "--trec-eval",
                  "-m", "map", "--format", "json")
    assert out.returncode == 0, out.stderr
    doc = json.loads(out.stdout)
    assert doc["means"]["map"]["STANDARD"] == pytest.approx(0.1785, abs=5e-5)
    (row,) = doc["comparisons"]
    assert row["wins"] == 3 and row["losses"] == 0
