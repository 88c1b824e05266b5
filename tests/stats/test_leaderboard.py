"""leaderboard(), LeaderboardReport and LeaderboardDisplay.

The vectorised statistics against plain loops written from the definitions
(the stratified bootstrap with its seeds, the Borda count, the step-down rank
intervals), the baseline tests against SciPy and compare(), the inputs (every
layout, hostile ones), the outputs, and the coverage of the rank intervals
over simulated leaderboards with known true ranks.
"""

from __future__ import annotations

import json
import math
import re
import warnings

import numpy as np
import pandas as pd
import pytest
import scipy.stats as st
from conftest import ROOT
from hypothesis import given, settings
from hypothesis import strategies as hs

from sk_rankmetrics import (
    EvaluationResult,
    InvalidParameterError,
    LeaderboardDisplay,
    LeaderboardReport,
    compare,
    leaderboard,
)
from sk_rankmetrics._stats import leaderboard as lb
from sk_rankmetrics._stats.significance import rng_from


def _board(seed=0, k=4, C=3, n=30, gap=0.05, noise=0.15):
    rng = np.random.default_rng(seed)
    out = {}
    for c in range(C):
        topic = rng.normal(0, noise, (n, 1))
        X = 0.5 + gap * np.arange(k) + topic + rng.normal(0, noise, (n, k))
        out[f"c{c}"] = {f"s{j}": X[:, j] for j in range(k)}
    return out


# -- the statistics against plain loops ---------------------------------------------------


def _reference_bootstrap(matrices, owner, k, aggregate, B, seed):
    """One resample at a time, drawing what bootstrap_scores draws, in its order."""
    rng = rng_from(seed)
    n_cols = owner.size
    seeded = n_cols > k
    seed_draw = rng.random((B, n_cols)) if seeded else None
    draws = [rng.integers(0, V.shape[0], (B, V.shape[0])) for V in matrices.values()]
    cols_of = [[c for c in range(n_cols) if owner[c] == j] for j in range(k)]
    out = np.zeros((B, k))
    for b in range(B):
        per_collection = []
        for V, idx in zip(matrices.values(), draws):
            col_means = V[idx[b]].mean(axis=0)
            row = []
            for j in range(k):
                cols = cols_of[j]
                if seeded:  # one draw per seed column, among the system's seeds
                    picks = [cols[math.floor(seed_draw[b, c] * len(cols))] for c in cols]
                    row.append(np.mean([col_means[p] for p in picks]))
                else:
                    row.append(col_means[cols[0]])
            per_collection.append(row)
        M = np.array(per_collection)
        if aggregate == "borda":
            M = np.round(M, 10)  # round-off makes no tie and breaks none
            out[b] = [sum(((M[c] < M[c, j]).sum() + 0.5 * ((M[c] == M[c, j]).sum() - 1))
                          for c in range(M.shape[0])) for j in range(k)]
        else:
            out[b] = M.mean(axis=0)
    return out


@pytest.mark.parametrize("aggregate", ["mean", "borda"])
@pytest.mark.parametrize("seeded", [False, True])
def test_the_bootstrap_is_the_plain_loop(aggregate, seeded):
    rng = np.random.default_rng(4)
    k = 3
    owner = np.array([0, 0, 1, 2, 2, 2]) if seeded else np.arange(k)
    matrices = {c: np.round(rng.uniform(size=(n, owner.size)), 2)  # ties for the Borda count
                for c, n in (("a", 7), ("b", 5), ("c", 9))}
    fast = lb.bootstrap_scores(matrices, owner, k, aggregate, 50, rng_from(11))
    slow = _reference_bootstrap(matrices, owner, k, aggregate, 50, 11)
    np.testing.assert_allclose(fast, slow, rtol=0, atol=1e-12)


def _reference_intervals(T, Tb, level, per_system):
    """Step-down rank intervals, pair by pair and resample by resample."""
    k, B = T.size, Tb.shape[0]
    se = [[float(np.std(Tb[:, j] - Tb[:, m], ddof=1)) for m in range(k)] for j in range(k)]
    different = set()  # ordered pairs (j, m) found different, read from j's side

    def quantile(values):
        values = sorted(values)
        return values[math.ceil(level * (B - 1))]

    def dev(b, j, m):
        if (j, m) in different or se[j][m] == 0:
            return 0.0
        return abs((Tb[b, j] - Tb[b, m]) - (T[j] - T[m])) / se[j][m]

    while True:
        if per_system:
            crit = [quantile([max(dev(b, j, m) for m in range(k) if m != j) for b in range(B)])
                    for j in range(k)]
        else:
            c = quantile([max(dev(b, j, m) for j in range(k) for m in range(k) if m != j)
                          for b in range(B)])
            crit = [c] * k
        new = {(j, m) for j in range(k) for m in range(k)
               if m != j and (j, m) not in different and T[j] != T[m]
               and abs(T[j] - T[m]) > crit[j] * se[j][m]}
        if not new:
            break
        different |= new
    low = [1 + sum((j, m) in different and T[m] > T[j] for m in range(k)) for j in range(k)]
    high = [k - sum((j, m) in different and T[j] > T[m] for m in range(k)) for j in range(k)]
    return low, high


@pytest.mark.parametrize("per_system", [False, True])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_rank_intervals_are_the_step_down_of_their_definition(per_system, seed):
    rng = np.random.default_rng(seed)
    k = 6
    T = np.sort(rng.uniform(size=k))[::-1] * 0.3
    Tb = T + rng.normal(scale=0.04, size=(200, k)) + rng.normal(scale=0.05, size=(200, 1))
    rank, low, high = lb.rank_intervals(T, Tb, 0.9, per_system)
    ref_low, ref_high = _reference_intervals(T, Tb, 0.9, per_system)
    assert low.tolist() == ref_low and high.tolist() == ref_high
    assert rank.tolist() == list(range(1, k + 1))


def test_scores_ranks_and_the_borda_count():
    results = {"x": {"A": [0.1, 0.2], "B": [0.5, 0.5], "C": [0.5, 0.5]},
               "y": {"A": [0.9, 0.9], "B": [0.1, 0.2], "C": [0.3, 0.2]}}
    mean = leaderboard(results, random_state=0)
    assert mean.score == pytest.approx({"A": 0.525, "B": 0.325, "C": 0.375})
    assert mean.rank == {"A": 1, "B": 3, "C": 2}
    assert mean.means["x"] == pytest.approx({"A": 0.15, "B": 0.5, "C": 0.5})
    borda = leaderboard(results, aggregate="borda", random_state=0)
    # x: B and C tie above A (1.5 each, A 0); y: A 2, C 1, B 0
    assert borda.score == {"A": 2.0, "B": 1.5, "C": 2.5}
    assert borda.rank == {"C": 1, "A": 2, "B": 3}
    assert borda.order == ["C", "A", "B"]


def test_ties_share_the_best_rank():
    same = [0.2, 0.4, 0.6]
    report = leaderboard({"A": same, "B": list(same), "C": [0.1, 0.1, 0.2]},
                         layout="system", random_state=0)
    assert report.rank == {"A": 1, "B": 1, "C": 3}
    assert report.tied_with_best["A"] and report.tied_with_best["B"]
    # identical systems never differ: each may hold rank 1 or 2
    assert (report.rank_low["A"], report.rank_high["A"]) == (1, 2)


@settings(max_examples=30, deadline=None)
@given(hs.integers(2, 6), hs.integers(1, 3), hs.integers(2, 8), hs.integers(0, 2**31))
def test_intervals_hold_the_observed_rank_and_survive_reordering(k, C, n, seed):
    rng = np.random.default_rng(seed)
    data = {f"c{c}": {f"s{j}": np.round(rng.uniform(size=n), 1) for j in range(k)}
            for c in range(C)}
    report = leaderboard(data, n_resamples=200, random_state=seed % 1000)
    for s in report.systems:
        assert 1 <= report.rank_low[s] <= report.rank[s] <= report.rank_high[s] <= k
    best = report.order[0]
    assert report.tied_with_best[best]
    flipped = {c: dict(reversed(list(v.items()))) for c, v in data.items()}
    again = leaderboard(flipped, n_resamples=200, random_state=seed % 1000)
    assert again.rank_low == report.rank_low and again.rank_high == report.rank_high


def test_seeded_by_random_state():
    data = _board(3)
    a = leaderboard(data, random_state=5)
    b = leaderboard(data, random_state=5)
    assert a.to_json() == b.to_json()


# -- baselines ---------------------------------------------------------------------------


def test_one_collection_baseline_test_is_the_paired_t_test():
    data = _board(1, C=1)["c0"]
    report = leaderboard(data, layout="system", baselines="s0", correction=None)
    cmp = compare(data, baseline="s0", correction=None)
    for r in report.baseline_tests:
        assert r["test"] == "paired t-test"
        assert r["p"] == pytest.approx(cmp.pvalues["score"][(r["system"], "s0")], abs=1e-12)


def test_stratified_baseline_test_and_one_family():
    data = _board(2, C=3, gap=0.02)
    report = leaderboard(data, baselines=["s0", "s1"], correction="bonferroni")
    assert len(report.baseline_tests) == 6  # 3 others x 2 baselines: one family
    r = next(t for t in report.baseline_tests if (t["system"], t["baseline"]) == ("s3", "s0"))
    d = [np.asarray(data[c]["s3"]) - np.asarray(data[c]["s0"]) for c in data]
    v = [x.var(ddof=1) / x.size for x in d]
    mean = np.mean([x.mean() for x in d])
    var = sum(v) / 9
    df = var**2 / sum((vi / 9) ** 2 / (x.size - 1) for vi, x in zip(v, d))
    p = 2 * st.t.sf(abs(mean) / math.sqrt(var), df)
    assert r["test"] == "stratified t-test"
    assert r["difference"] == pytest.approx(mean, abs=1e-12)
    assert r["p_raw"] == pytest.approx(p, abs=1e-12)
    assert r["p"] == pytest.approx(min(1.0, 6 * p), abs=1e-12)
    frame = report.to_frame(rows="baselines")
    assert list(frame.columns) == ["system", "baseline", "difference", "p_raw", "p",
                                   "significant", "test"]


def test_borda_and_seeded_baselines_use_the_bootstrap():
    data = _board(5, C=2)
    report = leaderboard(data, aggregate="borda", baselines="s0", random_state=0)
    assert {r["test"] for r in report.baseline_tests} == {"bootstrap z-test"}


# -- layouts -----------------------------------------------------------------------------


def test_every_layout_reads_the_same_numbers():
    data = _board(6, C=2)
    nested = leaderboard(data, random_state=1)
    seeds = {c: {s: {0: v} for s, v in sys.items()} for c, sys in data.items()}
    as_seeds = leaderboard(seeds, layout="collection/system/seed", random_state=1)
    assert as_seeds.score == pytest.approx(nested.score)
    one = leaderboard(data["c0"], layout="system", random_state=1)
    assert one.collections == ["results"]
    one_seed = leaderboard({s: {"a": v} for s, v in data["c0"].items()}, layout="system/seed",
                           random_state=1)
    assert one_seed.score == pytest.approx(one.score)


def test_seeds_average_per_query_and_are_resampled():
    rng = np.random.default_rng(0)
    base = rng.uniform(size=20)
    runs = {"A": {"s1": base + 0.1, "s2": base + 0.3}, "B": {"s1": base + 0.2}}
    report = leaderboard(runs, layout="system/seed", random_state=0)
    assert report.score == pytest.approx({"A": base.mean() + 0.2, "B": base.mean() + 0.2})
    assert report.n_seeds == {"A": 2, "B": 1}
    # the seeds disagree by 0.2 on every query: A's score varies over the resamples
    assert (report.rank_low["A"], report.rank_high["A"]) == (1, 2)


def test_every_input_form_of_compare_is_taken():
    ids = np.array(["q1", "q2", "q3", "q4"])
    a = EvaluationResult(ids, {"ndcg": np.array([0.1, 0.2, 0.3, 0.4])}, {"ndcg": 0.25})
    b = pd.Series([0.4, 0.3, 0.2, 0.5], index=ids[::-1])  # paired by id
    report = leaderboard({"web": {"A": a, "B": b.rename("ndcg").to_frame()}}, random_state=0)
    assert report.metric == "ndcg"
    assert report.score["B"] == pytest.approx(np.mean([0.5, 0.2, 0.3, 0.4]))


@pytest.mark.parametrize(("results", "kwargs", "error", "match"), [
    ([1, 2], {}, InvalidParameterError, r"results must be a mapping \{collection: ...\}"),
    ({}, {}, ValueError, "results is empty"),
    ({"c": [0.1, 0.2]}, {}, InvalidParameterError, r"results\['c'\] must be a mapping"),
    ({1: {"A": [0.1, 0.2]}}, {}, InvalidParameterError, "keyed by collection names"),
    ({"c": {"A": [0.1, 0.2]}}, {}, ValueError, "holds 1 system; a leaderboard ranks"),
    ({"c": {"A": [0.1, 0.2], "B": [0.2, 0.3]}, "d": {"A": [0.1, 0.2]}}, {}, ValueError,
     r"every collection needs every system \('B' not in 'd'\)"),
    ({"c": {"A": [0.1], "B": [0.2]}}, {}, ValueError, "has 1 query .* at least 2"),
    ({"c": {"A": {"m": [0.1, 0.2], "n": [0.1, 0.1]}, "B": {"m": [0.2, 0.3],
                                                         "n": [0.3, 0.1]}}},
     {}, InvalidParameterError, "hold the metrics m, n; .* metric=..."),
    ({"c": {"A": {"m": [0.1, 0.2]}, "B": {"m": [0.2, 0.3]}}}, {"metric": "x"}, ValueError,
     "metric 'x' is not among"),
    ({"c": {"A": [0.1, 0.2], "B": [0.2, 0.3]}}, {"baselines": "C"}, InvalidParameterError,
     "baseline 'C' is not one of the systems"),
    ({"c": {"A": [0.1, 0.2], "B": [0.2, np.inf]}}, {}, ValueError, "is infinite"),
    ({"c": {"A": {"x": [0.1, 0.2]}, "B": {"x": [0.1, 0.2]}},
      "d": {"A": {"y": [0.1, 0.2]}, "B": {"x": [0.1, 0.2]}}},
     {"layout": "collection/system/seed"}, ValueError,
     r"system 'A' has the seeds \['x'\] in 'c' but \['y'\] in 'd'"),
    ({"c": {"A": [0.1, 0.2], "B": [0.2, 0.3]}}, {"aggregate": "median"},
     InvalidParameterError, "aggregate='median' is not accepted"),
])
def test_hostile_inputs_raise_clearly(results, kwargs, error, match):
    with pytest.raises(error, match=match):
        leaderboard(results, **kwargs)


def test_a_metric_mapping_read_as_systems_is_named_not_guessed():
    """{system: {metric: values}} given without layout="system" reads its metrics as
    systems; the message names the layout that would read it."""
    one = {"A": {"ndcg": [0.1, 0.2, 0.3]}, "B": {"ndcg": [0.2, 0.3, 0.5]}}
    with pytest.raises(ValueError, match="holds 1 system"):
        leaderboard(one)
    assert leaderboard(one, layout="system").rank == {"A": 2, "B": 1}


def test_nan_queries_are_left_out_per_collection():
    data = {"c": {"A": [0.1, np.nan, 0.3, 0.2], "B": [0.2, 0.5, np.nan, 0.4]}}
    with pytest.warns(UserWarning, match="NaN in some systems but not in others"):
        report = leaderboard(data, random_state=0)
    assert report.n_queries == {"c": 2}
    assert any("2 queries with NaN" in n for n in report.notes)


# -- outputs -----------------------------------------------------------------------------


def test_frame_columns_and_order():
    report = leaderboard(_board(0, k=5), baselines="s0", random_state=0)
    frame = report.to_frame()
    assert list(frame.columns[:6]) == ["system", "rank", "rank_low", "rank_high",
                                       "tied_with_best", "score"]
    assert frame["system"].tolist() == report.order
    assert frame["rank"].is_monotonic_increasing
    long = report.to_frame(rows="collections")
    assert len(long) == 5 * 3 and set(long.columns) == {"system", "collection", "mean",
                                                       "n_queries"}
    with pytest.raises(InvalidParameterError, match="rows='pairs' is not accepted"):
        report.to_frame(rows="pairs")


def test_markdown_and_latex_escape_names():
    evil = "a|b_c*&%$#{}~^\\<x>\nnew"
    data = {"q&a": {evil: [0.9, 0.8, 0.9], "plain": [0.1, 0.2, 0.1]},
            "web": {evil: [0.7, 0.8, 0.9], "plain": [0.1, 0.3, 0.2]}}
    report = leaderboard(data, baselines="plain", random_state=0)
    md = report.to_markdown()
    table = [line for line in md.splitlines() if line.startswith("|")]
    assert all(line.count("|") - line.count("\\|") == table[0].count("|") for line in table)
    assert "\\*" in md
    tex = report.to_latex()
    assert "q\\&a" in tex and "a\\textbar{}b\\_c" in tex and "\n new" not in tex
    body = tex.split("\\hline")[2]
    assert body.count("\\\\") == 2
    assert "$*$ significant" in tex and "$p < 0.05$" in tex


def test_text_json_and_repr():
    report = leaderboard(_board(0, k=3), random_state=0, baselines=["s0"])
    text = str(report)
    assert text.splitlines()[0].split()[:4] == ["rank", "95%", "interval", "system"]
    assert re.search(r"^\s+1\s+\d-\d\s+s2\s", text, flags=re.M)
    doc = json.loads(report.to_json())
    assert [s["system"] for s in doc["systems"]] == report.order
    assert set(doc["systems"][0]["means"]) == {"c0", "c1", "c2"}
    assert repr(report) == ("LeaderboardReport(3 systems, 3 collections, metric='score', "
                            "aggregate='mean')")
    assert isinstance(report, LeaderboardReport)


def test_many_collections_leave_the_columns_to_the_frame():
    report = leaderboard(_board(0, k=2, C=13, n=5), random_state=0)
    assert "c12" not in str(report)
    assert "c12" in report.to_frame(rows="collections")["collection"].tolist()


# -- the display --------------------------------------------------------------------------


def test_display_draws_ranks_and_intervals(tmp_path):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    report = leaderboard(_board(0, k=5, gap=0.02), random_state=0)
    display = LeaderboardDisplay.from_report(report)
    labels = [t.get_text() for t in display.ax_.get_yticklabels()]
    assert labels == report.order
    segments = display.bars_.get_segments()
    for s, seg in zip(report.order, segments):
        (x0, _), (x1, _) = seg
        assert (x0, x1) == pytest.approx((report.rank_low[s] - 0.3, report.rank_high[s] + 0.3))
    offsets = display.points_.get_offsets()
    assert offsets[:, 0].tolist() == [report.rank[s] for s in report.order]
    display.figure_.savefig(tmp_path / "board.png")
    plt.close("all")
    with pytest.raises(ValueError, match="an interval holds the rank"):
        LeaderboardDisplay(systems=["a", "b"], rank=[1, 2], rank_low=[2, 1],
                           rank_high=[2, 2]).plot()
    with pytest.raises(InvalidParameterError, match="report must be a LeaderboardReport"):
        LeaderboardDisplay.from_report({"a": 1})
    plt.close("all")


# -- coverage over simulated leaderboards ---------------------------------------------------


def _simulate(rng, mu, n, noise=0.15, shared=0.6):
    out = {}
    for c in range(mu.shape[0]):
        topic = rng.normal(0, noise * math.sqrt(shared), (n, 1))
        X = mu[c] + topic + rng.normal(0, noise * math.sqrt(1 - shared), (n, mu.shape[1]))
        out[f"c{c}"] = {f"s{j}": X[:, j] for j in range(mu.shape[1])}
    return out


@pytest.mark.slow
def test_rank_intervals_cover_the_true_ranks():
    """Known true means: the per-system intervals cover each true rank, the
    simultaneous ones all of them at once, in at least 95% of 60 leaderboards
    (within Monte Carlo error), and neither is the whole range."""
    rng = np.random.default_rng(2024)
    k, C, n = 8, 3, 40
    mu = rng.normal(0.5, 0.02, k) + rng.normal(0, 0.01, (C, k))
    T = mu.mean(axis=0)
    true_rank = 1 + (T[None, :] > T[:, None]).sum(axis=1)
    covered = {"simultaneous": [], "per_system": []}
    sizes = {"simultaneous": [], "per_system": []}
    reps = 60
    for rep in range(reps):
        data = _simulate(rng, mu, n)
        for kind in covered:
            r = leaderboard(data, intervals=kind, n_resamples=500, random_state=rep)
            lo = np.array([r.rank_low[f"s{j}"] for j in range(k)])
            hi = np.array([r.rank_high[f"s{j}"] for j in range(k)])
            ok = (lo <= true_rank) & (true_rank <= hi)
            covered[kind].append(ok.all() if kind == "simultaneous" else ok.mean())
            sizes[kind].append((hi - lo + 1).mean())
    slack = 2 * math.sqrt(0.05 * 0.95 / reps)
    assert np.mean(covered["simultaneous"]) >= 0.95 - slack
    assert np.mean(covered["per_system"]) >= 0.95 - slack
    assert np.mean(sizes["per_system"]) <= np.mean(sizes["simultaneous"]) < k


def test_coverage_script_runs(capsys):
    import importlib.util

    path = ROOT / "benchmarks" / "coverage_leaderboard.py"
    spec = importlib.util.spec_from_file_location("coverage_leaderboard", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        module.run("tiny", 4, 2, 10, 0.05, reps=2)
    out = capsys.readouterr().out
    assert "simultaneous" in out and "oracle" in out and "percentile" in out
