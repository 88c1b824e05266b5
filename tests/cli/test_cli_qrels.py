"""The qrels of evaluate, compare and leaderboard are read by one function,
as the requested metrics read them: a diversity qrels when every -m is a
diversity measure (compare took it for an ordinary qrels and refused the
measures), levels truncated once under --trec-eval (leaderboard warned once
per run)."""

from __future__ import annotations

import json
import shutil

import pytest
from conftest import DATA, run_cli

pytestmark = pytest.mark.slow


@pytest.fixture
def diversity(tmp_path):
    shutil.copy(DATA / "ndeval" / "qrels.norel", tmp_path / "qrels.txt")
    (tmp_path / "a.txt").write_text(
        "1 Q0 a 1 3 A\n1 Q0 c 2 2 A\n1 Q0 b 3 1 A\n2 Q0 x 1 1 A\n")
    (tmp_path / "b.txt").write_text(
        "1 Q0 b 1 3 B\n1 Q0 a 2 2 B\n1 Q0 c 3 1 B\n2 Q0 x 1 1 B\n")
    return tmp_path


def test_compare_reads_a_diversity_qrels_as_evaluate_does(diversity):
    ev = run_cli("evaluate", "qrels.txt", "a.txt", "b.txt", "-m", "alpha_ndcg@10",
                 "--no-relevant", "skip", "--format", "json", cwd=diversity)
    assert ev.returncode == 0, ev.stderr
    means = {run: v["mean"]["alpha_ndcg@10"] for run, v in json.loads(ev.stdout)["runs"].items()}
    cmp = run_cli("compare", "qrels.txt", "a.txt", "b.txt", "-m", "alpha_ndcg@10",
                  "--no-relevant", "skip", "--format", "json", cwd=diversity)
    assert cmp.returncode == 0, cmp.stderr
    (row,) = json.loads(cmp.stdout)["comparisons"]
    assert (row["mean_a"], row["mean_b"]) == pytest.approx((means["A"], means["B"]))
    assert row["mean_a"] != row["mean_b"]


def test_leaderboard_truncates_levels_once_per_collection(tmp_path):
    (tmp_path / "runs").mkdir()
    (tmp_path / "qrels.txt").write_text("1 0 a 0.5\n1 0 b 2\n1 0 c 1.7\n2 0 a 1\n2 0 d 0.4\n")
    (tmp_path / "runs" / "x.txt").write_text(
        "1 Q0 a 1 3 x\n1 Q0 b 2 2 x\n1 Q0 c 3 1 x\n2 Q0 d 1 2 x\n2 Q0 a 2 1 x\n")
    (tmp_path / "runs" / "y.txt").write_text(
        "1 Q0 c 1 3 y\n1 Q0 b 2 2 y\n1 Q0 a 3 1 y\n2 Q0 a 1 2 y\n2 Q0 d 2 1 y\n")
    out = run_cli("leaderboard", ".", "-m", "map", "--trec-eval", "--format", "json",
                  cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    assert out.stderr.count("relevance 0.5 is not an integer") == 1
    ev = run_cli("evaluate", "qrels.txt", "runs/x.txt", "runs/y.txt", "-m", "map",
                 "--trec-eval", "--format", "json", cwd=tmp_path)
    means = {run: v["mean"]["map"] for run, v in json.loads(ev.stdout)["runs"].items()}
    got = json.loads(out.stdout)
    scores = {row["system"]: row["score"] for row in got["systems"]}
    assert scores == pytest.approx(means)
    assert means == pytest.approx({"x": 0.5416666666666666, "y": 1.0})
    # FOLDER "." is named by the folder itself, not "."
    assert got["collections"] == [tmp_path.name]
