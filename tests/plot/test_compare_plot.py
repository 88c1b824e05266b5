"""QueryDifferenceDisplay: the sorted per-query differences of two systems."""

from __future__ import annotations

import os
import subprocess
import sys

import matplotlib
import numpy as np
import pytest
from conftest import ROOT

from sk_rankmetrics import (
    EvaluationResult,
    InvalidParameterError,
    QueryDifferenceDisplay,
    evaluate,
)

matplotlib.use("Agg")
import matplotlib.pyplot as plt

#: Slow (matplotlib figures): left out by pytest -m 'not slow'.
pytestmark = pytest.mark.slow



@pytest.fixture(autouse=True)
def _close_figures():
    yield
    plt.close("all")


def _result(ids, values):
    values = np.asarray(values, dtype=float)
    return EvaluationResult(np.asarray(ids), {"ndcg@10": values},
                            {"ndcg@10": float(np.nanmean(values))})


def test_constructor_stores_its_arguments_unchanged():
    diffs, ids, names = [0.1, -0.2], ("q1", "q2"), ["A", "B"]
    display = QueryDifferenceDisplay(differences=diffs, query_ids=ids, metric="mrr",
                                     names=names)
    assert display.differences is diffs and display.query_ids is ids
    assert display.names is names and display.metric == "mrr"
    assert not any(a.endswith("_") for a in vars(display))


def test_plot_draws_sorted_bars_labels_and_mean():
    d = QueryDifferenceDisplay(differences=[0.1, -0.3, 0.0, 0.4, 0.2],
                               query_ids=["q1", "q2", "q3", "q4", "q5"], metric="ndcg@10",
                               names=("rerank", "bm25")).plot()
    heights = [b.get_height() for b in d.bars_]
    assert heights == sorted(heights, reverse=True) == [0.4, 0.2, 0.1, 0.0, -0.3]
    assert [t.get_text() for t in d.ax_.get_xticklabels()] == ["q4", "q5", "q1", "q3", "q2"]
    assert d.ax_.get_title() == "ndcg@10 per query: rerank - bm25"
    assert d.ax_.get_ylabel() == "ndcg@10 difference (rerank - bm25)"
    assert d.ax_.get_xlabel() == "queries, sorted by difference (5 queries, 1 tie)"
    assert d.mean_line_.get_ydata()[0] == pytest.approx(0.08)
    labels = [t.get_text() for t in d.ax_.get_legend().get_texts()]
    assert labels == ["rerank higher (3 queries)", "bm25 higher (1 query)",
                      "mean difference +0.0800"]
    colors = {tuple(b.get_facecolor()) for b in d.bars_[:3]}
    assert len(colors) == 1 and colors != {tuple(d.bars_[4].get_facecolor())}
    assert d.figure_ is d.ax_.figure


def test_many_queries_get_rank_ticks_and_an_existing_axes_is_used():
    fig, ax = plt.subplots()
    d = QueryDifferenceDisplay(differences=np.linspace(-1, 1, 200),
                               query_ids=np.arange(200)).plot(ax=ax, color="gray")
    assert d.ax_ is ax and d.figure_ is fig
    assert len(d.bars_) == 200
    ticks = ax.get_xticks()
    assert 3 <= len(ticks) <= 12 and all(float(t).is_integer() for t in ticks)
    assert ax.get_title() == "metric per query: a - b"


def test_from_results_pairs_queries_by_id():
    a = _result(["q1", "q2", "q3", "q4"], [0.5, 0.2, 0.9, np.nan])
    b = _result(["q4", "q3", "q2", "q1"], [0.1, 0.4, 0.2, 0.1])
    d = QueryDifferenceDisplay.from_results({"A": a, "B": b})
    assert d.differences.tolist() == pytest.approx([0.4, 0.0, 0.5])  # q4: NaN, left out
    assert d.query_ids.tolist() == ["q1", "q2", "q3"]
    assert d.names == ("A", "B") and d.metric == "ndcg@10"
    assert d.differences[1] == 0.0  # 0.2 - 0.2 exactly a tie
    c = _result(["q1", "q2", "q3", "q4"], [0.0, 0.0, 0.0, 0.0])
    d = QueryDifferenceDisplay.from_results({"A": a, "B": b, "C": c}, systems=("C", "A"))
    assert d.names == ("C", "A") and d.differences.tolist() == pytest.approx([-0.5, -0.2,
                                                                              -0.9])


def test_from_predictions_plots_per_row_differences():
    rng = np.random.default_rng(0)
    y = rng.integers(0, 3, size=(12, 6))
    y[:, 0] = 1
    s1, s2 = rng.normal(size=(12, 6)), rng.normal(size=(12, 6))
    d = QueryDifferenceDisplay.from_predictions(y, {"one": s1, "two": s2}, metric="ndcg@3")
    expected = (evaluate(y, s1, ["ndcg@3"], per_row=True)["ndcg@3"]
                - evaluate(y, s2, ["ndcg@3"], per_row=True)["ndcg@3"])
    np.testing.assert_allclose(d.differences, expected, atol=1e-12)
    assert d.ax_.get_ylabel() == "ndcg@3 difference (one - two)"
    qid = np.repeat([30, 10, 20], 4)
    d = QueryDifferenceDisplay.from_predictions(y[:, 0] * 0 + y[:, 1], {"one": s1[:, 0],
                                                "two": s2[:, 0]}, metric="mrr", qid=qid,
                                                no_relevant=0.0)
    assert d.query_ids.tolist() == [10, 20, 30]


@pytest.mark.parametrize(
    ("call", "match"),
    [
        (lambda: QueryDifferenceDisplay.from_results(
            {"A": [0.1], "B": [0.2], "C": [0.3]}), "holds 3 systems .* systems=\\(a, b\\)"),
        (lambda: QueryDifferenceDisplay.from_results(
            {"A": [0.1], "B": [0.2]}, systems=("A", "Z")), "'Z' is not one of the systems"),
        (lambda: QueryDifferenceDisplay.from_results(
            {"A": [0.1], "B": [0.2]}, systems=("A", "A")), "names 'A' twice"),
        (lambda: QueryDifferenceDisplay.from_results(
            {"A": {"m": [0.1], "n": [0.2]}, "B": {"m": [0.1], "n": [0.2]}}),
         "the systems have 2 metrics \\(m, n\\); name the one"),
        (lambda: QueryDifferenceDisplay.from_results(
            {"A": [0.1], "B": [0.2]}, on_missing="skip"),
         "QueryDifferenceDisplay.from_results: on_missing='skip' is not accepted"),
        (lambda: QueryDifferenceDisplay.from_predictions([[1, 0]], {"A": [[1, 2]]}),
         "exactly two systems"),
    ],
)
def test_bad_arguments_raise(call, match):
    with pytest.raises(InvalidParameterError, match=match):
        call()


def test_plot_checks_its_data():
    with pytest.raises(ValueError, match="non-empty 1-D"):
        QueryDifferenceDisplay(differences=[]).plot()
    with pytest.raises(ValueError, match="query_ids has shape \\(1,\\)"):
        QueryDifferenceDisplay(differences=[0.1, 0.2], query_ids=["q"]).plot()


def test_renders_to_png(tmp_path):
    rng = np.random.default_rng(1)
    d = QueryDifferenceDisplay(differences=rng.normal(size=50), metric="map",
                               names=("new", "old")).plot()
    d.figure_.savefig(tmp_path / "d.png", dpi=50)
    assert (tmp_path / "d.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


@pytest.mark.slow
def test_importing_the_package_does_not_import_matplotlib():
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    code = ("import sys, sk_rankmetrics; sk_rankmetrics.compare({'a': [0.1, 0.2], "
            "'b': [0.3, 0.1]}, random_state=0); print('matplotlib' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         env=env, timeout=120)
    assert out.stdout.strip() == "False", out.stderr
