"""One rule for the keys of results, across every entry point.

A name without a cut-off, of a metric that takes one, scored at a global
``k`` (``evaluate_ranked``, ``evaluate_embeddings``, their beyond-accuracy
and diversity measures, Dask included) is keyed ``name@k``, with the value of
the name written ``name@k``; a name with its own cut-off and a metric without
one keep their names; entry points without a global ``k`` (``evaluate``,
``evaluate_run``, the accumulator, ``compare``, the Displays) key each result
by the name as written. Also: ``return_top`` has ``k`` columns, filled past
the last candidate.
"""

from __future__ import annotations

import warnings

import matplotlib
import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp

import sk_rankmetrics as skr

matplotlib.use("Agg")

REC = {"u1": ["a", "b", "c", "d"], "u2": ["c", "b", "a"], "u3": ["d", "a"]}
TRUTH = {"u1": {"a": 1, "c": 2}, "u2": {"b": 1}, "u3": {"b": 1, "d": 1}}
DATA = {
    "items": ["a", "b", "c", "d", "e"],
    "popularity": (["x", "y", "z", "x", "y"], ["a", "a", "b", "c", "d"]),
}
# name as written -> (key with k=2, the same metric written with its cut-off)
GIVEN = {
    "ndcg": ("ndcg@2", "ndcg@2"),
    "nDCG": ("nDCG@2", "nDCG@2"),  # ir_measures' spelling keeps its spelling
    "P": ("P@2", "P@2"),
    "map@3": ("map@3", "map@3"),  # its own cut-off wins
    "Rprec": ("Rprec", "Rprec"),  # takes no cut-off
    "bpref": ("bpref", "bpref"),
    "coverage": ("coverage@2", "coverage@2"),
    "novelty": ("novelty@2", "novelty@2"),
    "gini@3": ("gini@3", "gini@3"),
}


def _quiet(call, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return call(*args, **kwargs)


def _assert_keys_and_values(got, want, expected_keys):
    assert list(got.mean) == expected_keys
    assert list(got.per_query) == [key for key in expected_keys if key not in got.whole_set]
    for key, explicit in zip(expected_keys, want.mean):
        assert got.mean[key] == pytest.approx(want.mean[explicit], rel=1e-15, nan_ok=True)


def test_evaluate_ranked_keys_the_global_cut_off():
    got = _quiet(skr.evaluate_ranked, REC, TRUTH, list(GIVEN), k=2, **DATA)
    want = _quiet(skr.evaluate_ranked, REC, TRUTH, [w for _, w in GIVEN.values()], **DATA)
    _assert_keys_and_values(got, want, [key for key, _ in GIVEN.values()])
    assert got.whole_set == ("coverage@2", "gini@3")


def test_evaluate_ranked_on_dask_frames_keys_the_same():
    dd = pytest.importorskip("dask.dataframe")
    frame = pd.DataFrame(
        [(u, item, r + 1) for u, items in REC.items() for r, item in enumerate(items)],
        columns=["user", "item", "rank"],
    )
    names = ["ndcg", "map@3", "Rprec", "coverage", "novelty"]
    lazy = _quiet(skr.evaluate_ranked, dd.from_pandas(frame, npartitions=2), TRUTH, names,
                  k=2, **DATA)
    got = _quiet(lazy.compute) if hasattr(lazy, "compute") else lazy
    want = _quiet(skr.evaluate_ranked, REC, TRUTH, names, k=2, **DATA)
    assert list(got.mean) == list(want.mean) == [
        "ndcg@2", "map@3", "Rprec", "coverage@2", "novelty@2"]
    for key in want.mean:
        assert got.mean[key] == pytest.approx(want.mean[key], rel=1e-12)


def test_one_metric_functions_with_k_read_their_own_key():
    got = skr.coverage_score(REC, items=DATA["items"], k=2)
    assert got == skr.evaluate_ranked(REC, None, ["coverage@2"], items=DATA["items"])[
        "coverage@2"]
    assert skr.novelty_score(REC, popularity=DATA["popularity"], k=2, per_row=True).shape == (3,)


def test_evaluate_ranked_diversity_names_key_the_global_cut_off():
    truth = (np.array(["u1", "u1", "u1"]), np.array([1, 2, 2]),
             np.array(["a", "a", "c"]), np.array([1, 1, 1]))
    got = skr.evaluate_ranked({"u1": ["a", "b", "c"]}, truth, ["alpha_ndcg", "p_ia@2"], k=3)
    want = skr.evaluate_ranked({"u1": ["a", "b", "c"]}, truth, ["alpha_ndcg@3", "p_ia@2"])
    assert list(got.mean) == list(want.mean) == ["alpha_ndcg@3", "p_ia@2"]
    assert got.mean == want.mean


def _factors():
    users = np.array([[1.0, 0.0], [0.0, 1.0], [0.5, 0.5]])
    items = np.array([[3, 0], [2, 1], [1, 2], [0, 3]], dtype=float)
    test = sp.csr_array([[0, 1, 0, 0], [1, 0, 0, 1], [0, 0, 1, 0]])
    return users, items, test


def test_evaluate_embeddings_keys_the_global_cut_off():
    users, items, test = _factors()
    names = ["ndcg", "map", "recall@3", "r_precision", "mrr"]
    got = skr.evaluate_embeddings(users, items, test, names, k=2)
    want = skr.evaluate_embeddings(users, items, test,
                                   ["ndcg@2", "map@2", "recall@3", "r_precision", "mrr@2"])
    assert list(got.mean) == list(got.per_query) == list(want.mean)
    assert got.mean == want.mean
    # Without k, every name as written.
    assert list(skr.evaluate_embeddings(users, items, test, ["ndcg", "map@2"]).mean) == [
        "ndcg", "map@2"]


def test_a_name_and_its_global_cut_off_spelled_out_are_one_metric():
    message = (r"metrics names a metric twice: \['ndcg@2', 'ndcg@2'\] \(with k=2, a name "
               r"without a cut-off is scored and keyed at @2\)")
    with pytest.raises(skr.InvalidParameterError, match="evaluate_ranked: " + message):
        skr.evaluate_ranked(REC, TRUTH, ["ndcg", "ndcg@2"], k=2)
    users, items, test = _factors()
    with pytest.raises(skr.InvalidParameterError, match="evaluate_embeddings: " + message):
        skr.evaluate_embeddings(users, items, test, ["ndcg", "ndcg@2"], k=2)


@pytest.mark.parametrize("names", [["ndcg@3", "map", "P_5", "nDCG@2"], ["mrr"]])
def test_entry_points_without_a_global_k_key_names_as_written(names):
    y = np.array([[2, 0, 1, 0, 1, 0], [0, 1, 0, 0, 2, 1]])
    s = np.array([[0.9, 0.8, 0.1, 0.3, 0.2, 0.5], [0.1, 0.2, 0.3, 0.4, 0.5, 0.6]])
    res = skr.evaluate(y, s, names, per_row=True)
    assert list(res) == names
    acc = skr.RankingAccumulator(names)
    acc.update(y, s)
    assert list(acc.compute().mean) == names
    qid = np.repeat([1, 2], 6)
    docs = np.tile(np.array([f"d{j}" for j in range(6)]), 2)
    qrels = skr.TrecQrels(qid.astype(str), docs, y.reshape(-1))
    run = skr.TrecRun(qid.astype(str), docs, s.reshape(-1))
    assert list(skr.evaluate_run(qrels, run, names).mean) == names


def test_compare_and_the_displays_take_the_keys_as_results_have_them():
    a = skr.evaluate_ranked(REC, TRUTH, ["ndcg", "mrr"], k=2)
    b = skr.evaluate_ranked({"u1": ["c", "a"], "u2": ["b"], "u3": ["b", "d"]}, TRUTH,
                            ["ndcg", "mrr"], k=2)
    report = skr.compare({"a": a, "b": b})
    assert list(report.metrics) == ["ndcg@2", "mrr@2"]
    assert "ndcg@2" in report.to_markdown()
    with pytest.raises(ValueError, match=r"'ndcg' is not among the metrics of system 'a' "
                       r"\(ndcg@2, mrr@2\)"):
        skr.compare({"a": a, "b": b}, metrics=["ndcg"])
    display = skr.QueryDifferenceDisplay.from_results({"a": a, "b": b}, metric="ndcg@2")
    assert display.metric == "ndcg@2"
    # MetricAtKDisplay draws a curve over its ks: its values are keyed by the bare name.
    y = np.array([[2, 0, 1, 0], [0, 1, 0, 1]])
    s = np.array([[0.9, 0.8, 0.1, 0.3], [0.1, 0.2, 0.3, 0.4]])
    curves = skr.MetricAtKDisplay.from_predictions(y, s, metric=["ndcg", "mrr"], ks=[1, 2, 3])
    assert list(curves.values) == ["ndcg", "mrr"]
    assert curves.values["ndcg"][1] == skr.evaluate(y, s, "ndcg@2")["ndcg@2"]


@pytest.mark.parametrize(
    "item_ids, fill",
    [(None, -1), (["a", "b", "c", "d"], ""), ([5, -1, 3, 4], -2), ([7, 8, 9, 10], -1)],
)
def test_return_top_has_k_columns_filled_past_the_candidates(item_ids, fill):
    users, items, test = _factors()
    train = sp.csr_array([[1, 0, 0, 0], [0, 0, 0, 0], [0, 1, 0, 0]])
    res, top = skr.evaluate_embeddings(users, items, test, ["ndcg", "recall"], k=6,
                                       exclude=train, return_top=True, item_ids=item_ids)
    assert top.shape == (3, 6)
    assert list(res.mean) == ["ndcg@6", "recall@6"]
    n_candidates = [3, 4, 3]
    for row, n in zip(top.tolist(), n_candidates):
        assert fill not in row[:n]
        assert row[n:] == [fill] * (6 - n)
    # Without k, the width is the deepest cut-off named.
    _, top = skr.evaluate_embeddings(users, items, test, ["ndcg@5", "mrr"], return_top=True)
    assert top.shape == (3, 5) and (top[:, 4] == -1).all()
