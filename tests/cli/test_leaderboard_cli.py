"""``sk-rankmetrics leaderboard`` run as a subprocess: the folder, formats, errors."""

from __future__ import annotations

import csv
import io
import json
import os
import subprocess
import sys

import numpy as np
import pytest
from conftest import ROOT

from sk_rankmetrics import evaluate_run, leaderboard, read_trec_qrels, read_trec_run

#: Slow (the leaderboard command, run as a subprocess): left out by pytest -m 'not slow'.
pytestmark = pytest.mark.slow



def run_cli(*args):
    env = dict(os.environ)
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    return subprocess.run([sys.executable, "-m", "sk_rankmetrics", *map(str, args)],
                          capture_output=True, text=True, env=env, timeout=600)


SYSTEMS = (("weak", 0.0), ("good", 1.5), ("dense/s1", 2.5), ("dense/s2", 2.8))


def _collection(folder, seed, systems=SYSTEMS, n_queries=12):
    rng = np.random.default_rng(seed)
    (folder / "runs").mkdir(parents=True)
    lines = [f"q{q} 0 d{q}_{d} {int(d < 3)}" for q in range(n_queries) for d in range(8)]
    (folder / "qrels.txt").write_text("\n".join(lines) + "\n")
    for name, skill in systems:
        path = folder / "runs" / f"{name}.txt"
        path.parent.mkdir(parents=True, exist_ok=True)
        rows = []
        for q in range(n_queries):
            scores = skill * (np.arange(8) < 3) + rng.normal(size=8)
            rows += [f"q{q} Q0 d{q}_{d} 0 {scores[d]:.6f} {name.split('/')[0]}"
                     for d in range(8)]
        path.write_text("\n".join(rows) + "\n")


@pytest.fixture
def board(tmp_path):
    for i, name in enumerate(("news", "web")):
        _collection(tmp_path / "board" / name, i)
    return tmp_path / "board"


def test_table_of_a_folder_of_collections(board):
    out = run_cli("leaderboard", board, "-m", "ndcg@5", "--baseline", "weak")
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert lines[0] == "3 systems, 2 collections, setting: sk_rankmetrics"
    assert lines[2].split()[:5] == ["rank", "95%", "interval", "system", "score"]
    assert [line.split()[2] for line in lines[3:6]] == ["dense", "good", "weak"]
    assert "vs weak" in lines[2] and "baseline" in lines[5]


def test_the_numbers_are_the_python_functions(board):
    """The command scores each run and calls leaderboard() with the seeds nested."""
    out = run_cli("leaderboard", board, "-m", "ndcg@5", "--format", "json", "--seed", "3")
    assert out.returncode == 0, out.stderr
    doc = json.loads(out.stdout)
    results = {}
    for c in ("news", "web"):
        qrels = read_trec_qrels(board / c / "qrels.txt")
        results[c] = {}
        for s in ("dense", "good", "weak"):
            paths = ([board / c / "runs" / "dense" / f"{x}.txt" for x in ("s1", "s2")]
                     if s == "dense" else [board / c / "runs" / f"{s}.txt"])
            results[c][s] = {p.stem: evaluate_run(qrels, read_trec_run(p), ["ndcg@5"])
                             for p in paths}
    ref = leaderboard(results, layout="collection/system/seed", random_state=3)
    assert [(s["system"], s["rank"], s["rank_low"], s["rank_high"]) for s in doc["systems"]] \
        == [(s, ref.rank[s], ref.rank_low[s], ref.rank_high[s]) for s in ref.order]
    assert doc["systems"][0]["score"] == pytest.approx(ref.score[ref.order[0]], abs=1e-12)
    assert doc["settings"]["layout"] == "collection/system/seed"


def test_formats_output_file_and_plot(board, tmp_path):
    out = run_cli("leaderboard", board, "--format", "csv", "-o", tmp_path / "board.md",
                  "--plot", tmp_path / "ranks.png", "--intervals", "per_system",
                  "--aggregate", "borda")
    assert out.returncode == 0, out.stderr
    rows = list(csv.DictReader(io.StringIO(out.stdout)))
    assert [r["system"] for r in rows] == ["dense", "good", "weak"]
    assert {"rank", "rank_low", "rank_high", "tied_with_best", "score", "mean:news",
            "mean:web"} <= set(rows[0])
    assert (tmp_path / "board.md").read_text().startswith("| rank | 95% interval |")
    assert (tmp_path / "ranks.png").read_bytes()[:4] == b"\x89PNG"


def test_one_collection_folder(tmp_path):
    _collection(tmp_path / "solo", 5, systems=SYSTEMS[:2])
    out = run_cli("leaderboard", tmp_path / "solo", "-m", "P@3", "--format", "markdown")
    assert out.returncode == 0, out.stderr
    assert "over one collection" in " ".join(out.stdout.split())


@pytest.mark.parametrize(("change", "args", "code", "message"), [
    ("drop", (), 1, "collection 'web' has no run of good; every collection needs a run of "
                    "every system"),
    (None, ("--baseline", "nope"), 2, "--baseline 'nope' is not one of the systems "
                                       "(dense, good, weak)"),
    (None, ("-m", "map", "-m", "P@5"), 2, "leaderboard ranks by one metric; -m is given 2 "
                                          "times"),
    (None, ("-m", "P.5,10"), 2, "-m P.5,10 gives 2 (P_10, P_5); give one"),
    (None, ("--plot", "x.gif"), 2, "--plot 'x.gif': give a .png, .pdf or .svg file"),
    (None, ("--resamples", "5"), 2, "argument --resamples: '5' is not accepted"),
    ("noqrels", (), 1, "no qrels file"),
    ("seed", (), 1, "system 'dense' has the seeds ['s1', 's2'] in 'news' but ['s1'] in 'web'"),
])
def test_errors_name_the_flag_or_the_folder(board, change, args, code, message):
    if change == "drop":
        (board / "web" / "runs" / "good.txt").unlink()
    elif change == "noqrels":
        (board / "web" / "qrels.txt").unlink()
    elif change == "seed":
        (board / "web" / "runs" / "dense" / "s2.txt").unlink()
    out = run_cli("leaderboard", board, *args)
    assert out.returncode == code, out.stderr
    assert message in " ".join(out.stderr.split())
    assert "results=" not in out.stderr and "baselines=" not in out.stderr


def test_missing_folder_and_help(tmp_path):
    out = run_cli("leaderboard", tmp_path / "nowhere")
    assert out.returncode == 1 and "not a folder" in out.stderr
    helped = run_cli("leaderboard", "--help")
    text = " ".join(helped.stdout.split())
    assert "runs/<system>/<seed>.txt" in text and "--intervals" in text
