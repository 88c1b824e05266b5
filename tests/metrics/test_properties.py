"""Property-based tests (hypothesis): random small matrices with ties.

Scores come from a tiny integer range (ties everywhere), relevance may be
all zero in a row, and ``k`` may exceed the row. Every metric must equal the
brute-force reference and keep its bounds and invariances.
"""

from __future__ import annotations

import numpy as np
import pytest
from conftest import METRIC_NAMES, option_grid, reference_kwargs, score, scores_for
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from reference import reference_mean

import sk_rankmetrics as skr
from sk_rankmetrics._metrics.registry import METRICS

#: Slow (property-based checks of every metric (hypothesis)): left out by pytest -m 'not slow'.
pytestmark = pytest.mark.slow

TOL = dict(rel=1e-12, abs=1e-12)
SETTINGS = settings(max_examples=60, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow])


@st.composite
def problems(draw, max_rows=4, max_items=6):
    """``(y_true, y_score)``: graded relevance 0..3, integer scores 0..2."""
    n_rows = draw(st.integers(1, max_rows))
    n_items = draw(st.integers(2, max_items))
    cells = n_rows * n_items
    y = draw(st.lists(st.integers(0, 3), min_size=cells, max_size=cells))
    s = draw(st.lists(st.integers(0, 2), min_size=cells, max_size=cells))
    y = np.array(y).reshape(n_rows, n_items)
    s = np.array(s).reshape(n_rows, n_items)
    if draw(st.booleans()):
        y[draw(st.integers(0, n_rows - 1))] = 0  # a row without relevant items
    return y, s


def cutoffs(name):
    if not METRICS[name].takes_k:
        return st.none()
    return st.one_of(st.none(), st.integers(1, 9))


@pytest.mark.parametrize("name", METRIC_NAMES)
@SETTINGS
@given(data=st.data())
def test_matches_brute_force(name, data):
    y, s = data.draw(problems())
    s = scores_for(name, s)
    k = data.draw(cutoffs(name))
    options = data.draw(st.sampled_from(option_grid(name, y.shape[1])))
    policy = data.draw(st.sampled_from([0.0, 1.0, "skip"]))
    weights = data.draw(st.one_of(
        st.none(),
        st.lists(st.floats(0.1, 10), min_size=len(y), max_size=len(y)).map(np.array),
    ))
    if policy == "skip" and np.isnan(
        score(name, y, s, k=k, no_relevant=np.nan, per_row=True, **options)
    ).all():
        policy = 0.0  # every row undefined (NaN, with a warning): see test_options
    got = score(name, y, s, k=k, sample_weight=weights, no_relevant=policy, **options)
    ref_opts = reference_kwargs(options)
    if METRICS[name].takes_k:
        ref_opts["k"] = k
    want = reference_mean(name, y.tolist(), s.tolist(), weights=weights,
                          no_relevant=policy, **ref_opts)
    assert got == pytest.approx(want, **TOL)


@pytest.mark.parametrize("name", METRIC_NAMES)
@SETTINGS
@given(data=st.data())
def test_bounds_and_invariances(name, data):
    y, s = data.draw(problems(max_rows=5, max_items=7))
    s = scores_for(name, s, y)
    k = data.draw(cutoffs(name))
    rows = score(name, y, s, k=k, per_row=True, no_relevant=0.0)
    assert np.all(np.isfinite(rows))
    if METRICS[name].normalized:
        assert np.all((rows >= 0) & (rows <= 1 + 1e-12))
    elif name != "utility":  # utility pays -1 for each non-relevant item
        assert np.all(rows >= 0)  # non-negative relevance, linear gain
    # Ranking by the truth is never worse.
    best = score(name, y, scores_for(name, y, y), k=k, per_row=True, no_relevant=0.0)
    assert np.all(rows <= best + 1e-12)
    # Same column permutation; strictly increasing transform; row order.
    perm = np.asarray(data.draw(st.permutations(range(y.shape[1]))))
    np.testing.assert_allclose(
        score(name, y[:, perm], np.exp(s[:, perm] / 2.0), k=k, per_row=True, no_relevant=0.0),
        rows, rtol=1e-12, atol=1e-12,
    )
    rperm = np.asarray(data.draw(st.permutations(range(y.shape[0]))))
    np.testing.assert_allclose(
        score(name, y[rperm], s[rperm], k=k, per_row=True, no_relevant=0.0),
        rows[rperm], rtol=1e-12, atol=1e-12,
    )
    combine = np.sum if METRICS[name].aggregate == "sum" else np.mean
    assert score(name, y, s, k=k, no_relevant=0.0) == pytest.approx(combine(rows), **TOL)


@SETTINGS
@given(problem=problems(max_rows=5, max_items=7), k=st.one_of(st.none(), st.integers(1, 9)))
def test_metric_relations(problem, k):
    """Relations between metrics that hold row by row under ties too."""
    y, s = problem
    kw = dict(k=k, per_row=True, no_relevant=0.0)
    p = skr.precision_at_k_score(y, s, **kw)
    r = skr.recall_at_k_score(y, s, **kw)
    hit = skr.hit_rate_score(y, s, **kw)
    rr = skr.reciprocal_rank_score(y, s, **kw)
    ap = skr.mean_average_precision_score(y, s, **kw)
    n = y.shape[1]
    kk = n if k is None else k
    R = (y > 0).sum(axis=1)
    # precision@k * k = recall@k * R = expected hits in the top k.
    np.testing.assert_allclose(p * kk, r * R, rtol=1e-12, atol=1e-12)
    # RR <= hit rate, and RR >= hit rate / k (the first hit is at most at k).
    assert np.all(rr <= hit + 1e-12)
    assert np.all(rr >= hit / kk - 1e-12)
    # AP <= 1 and AP > 0 iff some relevant item can be in the top k.
    assert np.all((ap > 0) == (hit > 0))
    # CG@k of binary relevance = expected hits.
    binary = (y > 0).astype(int)
    np.testing.assert_allclose(
        skr.cumulative_gain_score(binary, s, k=k, per_row=True), p * kk, rtol=1e-12, atol=1e-12
    )
    # R-precision = precision@R = recall@R, row by row.
    rp = skr.r_precision_score(y, s, per_row=True, no_relevant=0.0)
    for i in np.flatnonzero(R):
        ri = int(R[i])
        assert rp[i] == pytest.approx(
            skr.precision_at_k_score(y[i : i + 1], s[i : i + 1], k=ri), **TOL
        )
        assert rp[i] == pytest.approx(
            skr.recall_at_k_score(y[i : i + 1], s[i : i + 1], k=ri), **TOL
        )
    # nDCG with exponential gain equals nDCG (linear) of 2**y - 1.
    np.testing.assert_allclose(
        skr.ndcg_score(y, s, gain="exponential", **kw),
        skr.ndcg_score(2**y - 1, s, **kw), rtol=1e-12, atol=1e-12,
    )


@SETTINGS
@given(problem=problems(max_rows=6, max_items=6), k=st.one_of(st.none(), st.integers(1, 8)),
       data=st.data())
def test_long_format_equals_matrix(problem, k, data):
    """Rows written as long format (shuffled, with qids) give the same values."""
    y, s = problem
    n_rows, n_items = y.shape
    qid = np.repeat(np.arange(n_rows) * 7 - 3, n_items)
    perm = np.asarray(data.draw(st.permutations(range(qid.size))))
    names = ["ndcg", "dcg", "map", "precision", "recall", "hit_rate", "mrr"]
    names = [n if k is None else f"{n}@{k}" for n in names] + ["r_precision"]
    long_ = skr.evaluate(y.ravel()[perm], s.ravel()[perm], names, qid=qid[perm],
                         per_row=True, no_relevant=np.nan)
    dense = skr.evaluate(y, s, names, per_row=True, no_relevant=np.nan)
    for name in names:
        np.testing.assert_allclose(long_[name], dense[name], rtol=1e-12, atol=1e-12)
