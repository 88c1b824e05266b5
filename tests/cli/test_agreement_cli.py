"""``sk-rankmetrics agreement`` run as a subprocess: the numbers, formats, flags, errors."""

from __future__ import annotations

import re
from importlib.resources import files

import pytest
from conftest import run_cli

from sk_rankmetrics import cohen_kappa, compare_qrels, krippendorff_alpha

#: Slow (the agreement command, run as a subprocess): left out by pytest -m 'not slow'.
pytestmark = pytest.mark.slow

DATA = files("sk_rankmetrics") / "data"


@pytest.fixture
def bundled(tmp_path):
    """The bundled qrels, judge qrels and runs, copied to a folder."""
    for name in ("qrels.txt", "judge.txt", "bm25.txt", "rerank.txt"):
        (tmp_path / name).write_bytes((DATA / name).read_bytes())
    # A third run: rerank's scores for the top half of each query, bm25's below.
    lines = (tmp_path / "rerank.txt").read_text().splitlines()
    (tmp_path / "mixed.txt").write_text("\n".join(
        line.rsplit(" ", 1)[0] + " mixed" if i % 30 < 15 else
        line.rsplit(" ", 2)[0] + f" {float(line.split()[4]) - 100:.3f} mixed"
        for i, line in enumerate(lines)) + "\n")
    return tmp_path


def _value(stdout, label):
    line = next(line for line in stdout.splitlines() if line.startswith(label))
    return float(line[len(label):].split()[0])


def test_the_assessor_table_is_the_librarys(bundled):
    out = run_cli("agreement", "qrels.txt", "judge.txt", "--permutations", "500", cwd=bundled)
    assert out.returncode == 0, out.stderr
    a, b = str(bundled / "qrels.txt"), str(bundled / "judge.txt")
    assert " ".join(out.stdout.split()).startswith(
        "Assessor agreement of qrels.txt and judge.txt on the 180 (query, document) pairs "
        "both judged, over 10 queries")
    for label, weights in (("Cohen's kappa  ", None), ("Cohen's kappa, linear weights", "linear"),
                           ("Cohen's kappa, quadratic weights", "quadratic")):
        res = cohen_kappa(a, b, weights=weights, n_resamples=500, random_state=0)
        assert _value(out.stdout, label) == round(float(res), 4)
        assert f"[{res.interval[0]:.4f}, {res.interval[1]:.4f}]" in out.stdout
    alpha = krippendorff_alpha([a, b], n_resamples=500, random_state=0)
    assert _value(out.stdout, "Krippendorff's alpha, ordinal") == round(float(alpha), 4)
    assert "71 of 251 (query, document) pairs were left out" in out.stdout


def test_with_runs_the_orderings_are_compare_qrels(bundled):
    out = run_cli("agreement", "qrels.txt", "judge.txt", "bm25.txt", "rerank.txt", "mixed.txt",
                  "-m", "P@10", "--qrels-names", "human,judge", "--permutations", "500",
                  cwd=bundled)
    assert out.returncode == 0, out.stderr
    runs = {n: str(bundled / f"{n}.txt") for n in ("bm25", "rerank", "mixed")}
    cmp = compare_qrels(str(bundled / "qrels.txt"), str(bundled / "judge.txt"), runs,
                        metric="P@10", names=("human", "judge"), n_resamples=500,
                        random_state=0)
    assert "P@10 of 3 systems under human and judge (10 queries)" in out.stdout
    assert _value(out.stdout, "Kendall's tau_b") == round(cmp.kendall_tau, 4)
    assert f"Swapped pairs: {len(cmp.swaps)} of 3" in out.stdout
    assert "Assessor agreement of human and judge" in out.stdout


@pytest.mark.parametrize(("fmt", "marker"), [("markdown", "| coefficient | value |"),
                                             ("latex", "\\begin{tabular}{lrr}")])
def test_formats_and_the_output_file(bundled, fmt, marker):
    out = run_cli("agreement", "qrels.txt", "judge.txt", "bm25.txt", "rerank.txt", "--format",
                  fmt, "-o", "report.txt", "--permutations", "200", cwd=bundled)
    assert out.returncode == 0, out.stderr
    assert marker in out.stdout
    written = (bundled / "report.txt").read_text()
    assert written.startswith("Assessor agreement of qrels.txt")  # .txt: the text table
    assert "Kendall's tau_b" in written


def test_notes_name_flags_not_python_keywords(bundled):
    # rerank and a copy of it under another tag tie under both qrels: tau_AP has no
    # strict reference, and the note says which flag takes ties.
    (bundled / "copy.txt").write_text((bundled / "rerank.txt").read_text().replace(
        " rerank\n", " copy\n"))
    out = run_cli("agreement", "qrels.txt", "judge.txt", "rerank.txt", "copy.txt",
                  "--permutations", "200", cwd=bundled)
    assert out.returncode == 0, out.stderr
    assert "--symmetric takes ties" in " ".join(out.stdout.split())
    assert "symmetric=True" not in out.stdout


def test_a_missing_query_is_a_data_error_naming_the_flag(bundled):
    lines = (bundled / "judge.txt").read_text().splitlines()
    (bundled / "partial.txt").write_text("\n".join(x for x in lines if not x.startswith("410"))
                                         + "\n")
    out = run_cli("agreement", "qrels.txt", "partial.txt", "bm25.txt", "rerank.txt",
                  "--permutations", "200", cwd=bundled)
    assert out.returncode == 1
    error = out.stderr.strip().splitlines()[-1]
    assert error.startswith("sk-rankmetrics: error: the systems do not have the same "
                            "queries")
    assert "'410'" in error and "--on-missing drop" in error
    out = run_cli("agreement", "qrels.txt", "partial.txt", "bm25.txt", "rerank.txt",
                  "--on-missing", "drop", "--permutations", "200", cwd=bundled)
    assert out.returncode == 0, out.stderr
    assert "(9 queries)" in out.stdout


@pytest.mark.parametrize(("args", "match"), [
    (["qrels.txt"], "give two qrels files, QRELS_A and QRELS_B"),
    (["qrels.txt", "judge.txt", "bm25.txt"], "give at least two RUN files"),
    (["qrels.txt", "judge.txt", "--level", "rank"], "argument --level: invalid choice: 'rank'"),
    (["qrels.txt", "judge.txt", "--qrels-names", "a,b,c"], "--qrels-names gives 3 name(s)"),
    (["qrels.txt", "qrels.txt"], "qrels 'qrels.txt' is given twice"),
    (["qrels.txt", "judge.txt", "bm25.txt", "bm25.txt"], "run 'bm25.txt' is given twice"),
    (["qrels.txt", "judge.txt", "--permutations", "5"], "argument --permutations: '5' is not "
                                                         "accepted"),
    (["qrels.txt", "judge.txt", "-o", "r.html"], "-o 'r.html': unknown extension '.html'"),
    (["qrels.txt", "judge.txt", "-m", "ndgc@10"], "argument -m/--metric"),
])
def test_usage_errors_exit_2(bundled, args, match):
    out = run_cli("agreement", *args, cwd=bundled)
    assert out.returncode == 2, out.stderr
    assert out.stderr.startswith("usage: sk-rankmetrics agreement")
    assert match in out.stderr.strip().splitlines()[-1]


def test_an_unreadable_file_is_a_data_error(bundled):
    out = run_cli("agreement", "qrels.txt", "nowhere.txt", cwd=bundled)
    assert out.returncode == 1
    assert re.search(r"cannot read qrels file 'nowhere.txt'", out.stderr)


def test_listed_in_the_help():
    out = run_cli("--help")
    assert out.returncode == 0 and "agreement" in out.stdout
