"""``sk-rankmetrics demo``: what it prints is true, explained and in order."""

import re
import subprocess
import sys

import numpy as np
import pytest
from conftest import ROOT

from sk_rankmetrics import evaluate
from sk_rankmetrics._cli import demo_data as _demo
from sk_rankmetrics._cli import main

#: Slow (the demo's rankers and searches): left out by pytest -m 'not slow'.
pytestmark = pytest.mark.slow



@pytest.fixture(scope="module")
def output():
    out = subprocess.run([sys.executable, "-m", "sk_rankmetrics", "demo"], cwd=ROOT,
                         capture_output=True, text=True, check=False)
    assert out.returncode == 0, out.stderr
    assert out.stderr == ""  # no warning, no log noise
    return out.stdout


def _table(output):
    """{metric: [random, noisy, good]} read from the printed table."""
    rows = {}
    for line in output.splitlines():
        parts = line.split()
        if len(parts) == 4 and re.fullmatch(r"[0-9.]+", parts[1]):
            rows[parts[0]] = [float(v) for v in parts[1:]]
    return rows


def test_the_rankers_and_metrics_are_defined_in_words(output):
    for name, _, what in _demo.RANKERS:
        assert f"{name}" in output and what in output
    for name, what in _demo.DEMO_METRICS:
        assert f"  {name:<13}{what}" in output
    assert "no_relevant='skip'" in output


def test_the_table_is_the_packages_numbers_and_tells_the_rankers_apart(output):
    table = _table(output)
    names = [name for name, _ in _demo.DEMO_METRICS]
    assert list(table) == names
    for column, (_, noise, _) in enumerate(_demo.RANKERS):
        y_true, y_score = _demo.make_demo_data(noise=noise)
        want = evaluate(y_true, y_score, names, no_relevant="skip")
        for name in names:
            assert table[name][column] == pytest.approx(want[name], abs=5e-5)
    for name in names:  # every metric orders random < noisy < good
        random, noisy, good = table[name]
        assert random < noisy < good or (name.startswith(("recall", "hit_rate"))
                                         and random < noisy <= good), name
    assert table["hit_rate@10"][0] < 0.9  # not 1.0 for every ranker


def test_the_printed_code_is_the_code_that_runs(output):
    import textwrap

    block = output.split("This code runs now:\n", 1)[1].split("\nparams", 1)[0]
    assert textwrap.dedent(block).strip() == _demo.GRID_SEARCH_CODE.strip()
    X, y, qid = _demo.make_ltr_data()
    search = _demo.run_grid_search(X, y, qid)
    assert f"best: {search.best_params_} (nDCG@10 = {search.best_score_:.4f})" in output
    assert np.isfinite(search.cv_results_["mean_test_score"]).all()
    assert len(set(search.cv_results_["mean_test_score"])) == 4  # the grid matters


def test_what_the_demo_says_about_scikit_learns_scoring_is_true():
    from sklearn.ensemble import HistGradientBoostingRegressor
    from sklearn.metrics import get_scorer_names
    from sklearn.model_selection import GridSearchCV

    assert "ndcg@10" not in get_scorer_names()
    X, y, _ = _demo.make_ltr_data(n_queries=10)
    with pytest.raises(ValueError, match="ndcg@10"):
        GridSearchCV(HistGradientBoostingRegressor(max_iter=2), {"max_depth": [1]},
                     scoring="ndcg@10", cv=2).fit(X, y)


def test_the_random_baseline_is_the_expected_value_of_a_random_order():
    from sk_rankmetrics import ndcg_score

    _, y, qid = _demo.make_ltr_data(n_queries=20)
    tied = ndcg_score(y, np.zeros(y.shape), qid=qid, k=10)
    rng = np.random.default_rng(0)
    shuffled = np.mean([ndcg_score(y, rng.random(y.shape), qid=qid, k=10)
                        for _ in range(400)])
    assert tied == pytest.approx(shuffled, abs=0.01)


def test_every_query_of_the_grid_search_data_has_a_relevant_document():
    _, y, qid = _demo.make_ltr_data()
    assert np.all(np.bincount(qid, weights=y > 0) >= 1)


def test_the_demo_speaks_before_it_computes(monkeypatch, capsys):
    said = {}
    table, search = _demo.demo_table, _demo.run_grid_search

    def recording_table(*args, **kwargs):
        said["before the table"] = capsys.readouterr().out
        return table(*args, **kwargs)

    def recording_search(*args, **kwargs):
        said["before the search"] = capsys.readouterr().out
        return search(*args, **kwargs)

    monkeypatch.setattr(_demo, "demo_table", recording_table)
    monkeypatch.setattr(_demo, "run_grid_search", recording_search)
    assert main(["demo"]) == 0
    assert "Part 1." in said["before the table"]
    assert "random ranker" in said["before the table"]
    assert "This code runs now" in said["before the search"]
    assert "search.fit(X, y, qid=qid, groups=qid)" in said["before the search"]
    assert "best:" in capsys.readouterr().out


def test_no_grid_search():
    out = subprocess.run([sys.executable, "-m", "sk_rankmetrics", "demo", "--no-grid-search"],
                         cwd=ROOT, capture_output=True, text=True, check=False)
    assert out.returncode == 0, out.stderr
    assert "Part 1." in out.stdout and "Part 2." not in out.stdout
