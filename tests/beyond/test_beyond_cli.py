"""``sk-rankmetrics evaluate -m coverage@10 --items ...``: the beyond-accuracy
measures on the command line give evaluate_ranked's numbers."""

from __future__ import annotations

import json

import pytest
from conftest import run_cli

import sk_rankmetrics as skr

pytestmark = pytest.mark.slow


@pytest.fixture
def files(tmp_path):
    qrels = tmp_path / "qrels.txt"
    qrels.write_text("u1 0 a 1\nu1 0 c 1\nu2 0 d 1\nu3 0 b 1\n")
    run = tmp_path / "run.txt"
    run.write_text(
        "u1 Q0 a 1 3 A\nu1 Q0 b 2 2 A\nu1 Q0 c 3 1 A\n"
        "u2 Q0 a 1 2 A\nu2 Q0 d 2 1 A\nu3 Q0 b 1 5 A\nu3 Q0 e 2 4 A\n"
    )
    items = tmp_path / "items.txt"
    items.write_text("a b c d e f g h\n")
    train = tmp_path / "train.txt"
    train.write_text("x a\ny a\nz a\nx b\ny c\nx d\nz e\n")
    return qrels, run, items, train


def test_cli_gives_evaluate_ranked_numbers(files):
    qrels, run, items, train = files
    names = ["ndcg@2", "coverage@2", "gini@2", "novelty@2", "serendipity@2", "personalization@2"]
    args = [a for n in names for a in ("-m", n)]
    out = run_cli(
        "evaluate", qrels, run, *args, "--items", items, "--popularity", train, "--format", "json"
    )
    assert out.returncode == 0, out.stderr
    got = json.loads(out.stdout)
    rec = {"u1": ["a", "b", "c"], "u2": ["a", "d"], "u3": ["b", "e"]}
    truth = {"u1": {"a", "c"}, "u2": {"d"}, "u3": {"b"}}
    pop = (["x", "y", "z", "x", "y", "x", "z"], ["a", "a", "a", "b", "c", "d", "e"])
    want = skr.evaluate_ranked(rec, truth, names, items=list("abcdefgh"), popularity=pop)
    assert got["mean"] == pytest.approx(want.mean, abs=1e-12)
    # A whole-set measure has no per-query value (NaN in the per-query outputs).
    assert got["per_query"]["u1"]["coverage@2"] != got["per_query"]["u1"]["coverage@2"]
    table = run_cli("evaluate", qrels, run, "-m", "coverage@2", "--items", items, "-q")
    assert table.returncode == 0 and "0.5000" in table.stdout  # 4 of 8 items


def test_cli_names_the_missing_data(files):
    qrels, run, items, _ = files
    out = run_cli("evaluate", qrels, run, "-m", "coverage@2")
    assert out.returncode == 1
    assert out.stderr == "sk-rankmetrics: error: coverage@2 needs --items FILE; give it.\n"
    out = run_cli("evaluate", qrels, run, "-m", "novelty@2", "--items", items)
    assert out.returncode == 1 and "novelty@2 needs --popularity FILE; give it." in out.stderr
    out = run_cli("evaluate", qrels, run, "-m", "ndcg@2", "--head-share", "1.5")
    assert out.returncode != 0 and "head share must be in (0, 1]" in out.stderr
