"""The engine's shortcuts against its general paths.

The engine avoids work where it can: item values are derived at the ranked
positions only, R-precision reads the R-th largest score instead of ranking
down to R, the ideal of trec_eval's whole-ranking gain measures is counted
per relevance level instead of sorted, and untied chunks take closed forms
without tie statistics. Each shortcut must give the number of the general
path, on inputs chosen to reach both.
"""

from __future__ import annotations

import numpy as np
import pytest
from conftest import score
from hypothesis import given, settings
from hypothesis import strategies as st

import sk_rankmetrics as skr
from sk_rankmetrics._metrics.gains import resolve_gain
from sk_rankmetrics._metrics.registry import METRICS
from sk_rankmetrics._ranking import ideal as _ordering
from sk_rankmetrics._ranking.ideal import IdealLevels, ideal_gains, ideal_levels

GAINS = ["linear", "exponential", {-1: 0.0, 0: 0.0, 1: 1.0, 2: 1.0, 3: 5.0},
         {-1: 0.0, 0: 0.0, 1: 2.0, 2: 2.0, 3: 2.0}]


def _fields(runs):
    return (runs.rows, runs.end, runs.gain, runs.idcg, runs.P, runs.total, runs.full_idcg)


def _brute_runs(yt, gain):
    """Per row: the positive ideal gains best first, their runs and DCGs, by loops."""
    out = []
    for row in yt:
        g = sorted((float(v) for v in gain(np.asarray(row, dtype=float))), reverse=True)
        g = [v for v in g if v > 0]
        ends, dcg, idcgs = [], 0.0, []
        for i, v in enumerate(g):
            dcg += v / np.log2(i + 2)
            if i + 1 == len(g) or g[i + 1] != v:
                ends.append(i + 1)
                idcgs.append(dcg)
        out.append((len(g), sum(g), dcg, ends, idcgs))
    return out


@pytest.mark.slow
@settings(max_examples=150, deadline=None)
@given(
    n=st.integers(1, 6), N=st.integers(1, 9), lo=st.integers(-1, 1), hi=st.integers(0, 3),
    dtype=st.sampled_from(["int64", "float64", "uint8", "bool"]),
    gain=st.sampled_from(range(len(GAINS))), seed=st.integers(0, 2**32 - 1),
    count=st.sampled_from([1, 7, 1 << 17]),
)
def test_counted_ideal_runs_equal_the_sorted_ones_and_a_loop(n, N, lo, hi, dtype, gain, seed,
                                                             count):
    """``count``: the entries counted at once (1 and 7 count a row, or a few, at
    a time)."""
    rng = np.random.default_rng(seed)
    lo = max(lo, 0) if dtype in ("uint8", "bool") else lo
    hi = 1 if dtype == "bool" else max(hi, lo)
    yt = rng.integers(lo, hi + 1, size=(n, N)).astype(dtype)
    g = resolve_gain(GAINS[gain])
    if isinstance(GAINS[gain], dict) and yt.min() < -1:
        return
    before = _ordering._COUNT_ELEMENTS
    _ordering._COUNT_ELEMENTS = count
    try:
        counted = ideal_levels(yt, g, None)
    finally:
        _ordering._COUNT_ELEMENTS = before
    full = np.asarray(g(yt.astype(float)), dtype=float)
    by_sort = IdealLevels.from_sorted(ideal_gains(yt.astype(float), g, lambda: full, N))
    for a, b in zip(_fields(counted), _fields(by_sort)):
        np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-12)
    for r, (P, total, dcg, ends, idcgs) in enumerate(_brute_runs(yt, g)):
        assert counted.P[r] == P
        assert counted.total[r] == pytest.approx(total)
        assert counted.full_idcg[r] == pytest.approx(dcg)
        mine = counted.rows == r
        assert counted.end[mine].tolist() == ends
        np.testing.assert_allclose(counted.idcg[mine], idcgs, rtol=1e-12)
        width = N + 2
        top = counted.top(width)[r]
        g_sorted = sorted((v for v in full[r] if v > 0), reverse=True)
        np.testing.assert_allclose(top, g_sorted + [0.0] * (width - len(g_sorted)))


def test_wide_or_fractional_levels_take_the_sorted_path():
    """Levels spanning more than the counted range, or fractional ones, sort."""
    rng = np.random.default_rng(3)
    for yt in (rng.integers(0, 500, size=(4, 30)).astype(float),
               rng.integers(0, 8, size=(4, 30)) / 2.0):
        g = resolve_gain("linear")
        runs = ideal_levels(yt, g, None)
        expected = IdealLevels.from_sorted(np.sort(yt, axis=1))
        for a, b in zip(_fields(runs), _fields(expected)):
            np.testing.assert_allclose(a, b)


@settings(max_examples=100, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n_levels=st.integers(1, 4), N=st.integers(2, 12),
       threshold=st.sampled_from([None, 2]))
def test_r_precision_beyond_the_ranked_positions(seed, n_levels, N, threshold):
    """R-precision next to a shallow metric (the block is ranked to 1 position)
    equals R-precision ranked down to R, with ties at the R-th score."""
    rng = np.random.default_rng(seed)
    yt = rng.integers(0, 4, size=(7, N))
    ys = rng.integers(0, n_levels, size=(7, N)).astype(float)
    kw = {} if threshold is None else {"threshold": threshold}
    together = skr.evaluate(yt, ys, [("r_precision", kw), "precision@1"], per_row=True,
                            no_relevant=0.0)["r_precision"]
    # The expected value by hand: relevant items above the R-th score, plus the
    # tied share.
    rel = yt > 0 if threshold is None else yt >= threshold
    R = rel.sum(axis=1)
    expected = np.zeros(7)
    for i in range(7):
        if R[i] == 0:
            continue
        t = np.sort(ys[i])[::-1][R[i] - 1]
        above, at = ys[i] > t, ys[i] == t
        hits = rel[i][above].sum() + rel[i][at].sum() * (R[i] - above.sum()) / at.sum()
        expected[i] = hits / R[i]
    np.testing.assert_allclose(together, expected, atol=1e-12)


def test_r_precision_under_ignore_ties_ranks_down_to_r():
    """With ignore_ties the order of the ranking counts, so R-precision ranks to R:
    on tie-free scores it equals the default."""
    rng = np.random.default_rng(5)
    yt = rng.integers(0, 3, size=(50, 40))
    ys = rng.random((50, 40))
    a = skr.evaluate(yt, ys, ["r_precision", "ndcg@3"], ignore_ties=True, no_relevant=0.0)
    b = skr.evaluate(yt, ys, ["r_precision", "ndcg@3"], no_relevant=0.0)
    assert a == pytest.approx(b, abs=1e-12)


def test_every_metric_reads_the_same_number_alone_and_in_a_crowd():
    """The deepest cut-off of a call, the shared caches (means, running sums,
    DCG, ideal runs) and the untied shortcuts leave each value unchanged."""
    rng = np.random.default_rng(11)
    yt = rng.integers(0, 4, size=(60, 25))
    for ys in (rng.random((60, 25)), rng.integers(0, 4, size=(60, 25)).astype(float)):
        names = []
        for name, spec in METRICS.items():
            if spec.ties == "refuse" and ys.dtype == float and (ys % 1 == 0).all():
                continue
            if spec.at_option:
                names.append(f"{name}@{0.5 if spec.at_option == 'recall' else 1}")
            elif spec.takes_k:
                names.append(f"{name}@{rng.integers(1, 30)}")
            else:
                names.append(name)
        crowd = skr.evaluate(yt, ys, names, no_relevant=0.0, per_row=True)
        for label in names:
            alone = skr.evaluate(yt, ys, [label], no_relevant=0.0, per_row=True)[label]
            np.testing.assert_allclose(crowd[label], alone, atol=1e-12, err_msg=label)


def test_every_request_checks_its_own_gain_rules():
    """A non-normalised metric listed first does not spare a normalised one the
    check of negative relevance (the checks run per gain and normalisation)."""
    yt = np.array([[2, -1, 0, 1]])
    ys = np.array([[0.4, 0.3, 0.2, 0.1]])
    assert skr.evaluate(yt, ys, ["dcg@3"])["dcg@3"] == pytest.approx(2.0 - 1 / np.log2(3))
    with pytest.raises(ValueError, match="negative relevance"):
        skr.evaluate(yt, ys, ["dcg@3", "ndcg@3"])
    with pytest.raises(ValueError, match="negative relevance"):
        score("ndcg", yt, ys, k=3)


def test_blocks_leave_no_reference_cycles():
    """A ranked block and its values are freed as soon as the engine drops them:
    no reference cycle keeps their arrays until a garbage collection (the
    memory bound of the block budget depends on it)."""
    import gc

    rng = np.random.default_rng(3)
    y = rng.integers(0, 3, (600, 40))
    s = rng.integers(0, 5, (600, 40)).astype(float)
    qid = np.repeat(np.arange(600), 40)
    rec = {f"u{i}": [f"i{j}" for j in rng.permutation(30)[:10]] for i in range(200)}
    truth = {f"u{i}": {f"i{j}": 1 for j in rng.permutation(30)[:3]} for i in range(200)}
    metrics = ["ndcg@10", "map@10", "recall@10", "g", "r_precision", "err@5"]
    calls = [
        lambda: skr.evaluate(y, s, metrics),
        lambda: skr.evaluate(y.ravel(), s.ravel(), metrics, qid=qid),
        lambda: skr.evaluate_ranked(rec, truth, ["ndcg@10", "map@10", "recall@10"]),
    ]
    for call in calls:
        call()  # first calls import and cache what they need
    gc.collect()
    gc.disable()
    gc.set_debug(gc.DEBUG_SAVEALL)  # the collected garbage kept, to be looked at
    try:
        for call in calls:
            call()
            gc.collect()
            # Only the package's objects and arrays count: another library's
            # background thread (a Dask cluster of an earlier test) may
            # leave garbage of its own meanwhile.
            ours = [o for o in gc.garbage if isinstance(o, np.ndarray)
                    or type(o).__module__.startswith("sk_rankmetrics")]
            assert not ours, ours[:5]
            gc.garbage.clear()
    finally:
        gc.set_debug(0)
        gc.garbage.clear()
        gc.enable()
