"""Every metric against the brute-force reference (``tests/reference.py``).

The reference averages the plain metric over *every* ordering that tied
scores allow; the package computes that expected value in closed form from
tie-group statistics. Small rows (up to 7 items) are compared for every
metric, cut-off, gain, discount, threshold, denominator, policy and weight;
large matrices are compared row by row with the engine forced to cut them
into many chunks and to run them on its thread pool.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from conftest import (
    METRIC_NAMES,
    NORMALIZED,
    default_options,
    k_values,
    option_grid,
    random_relevance,
    reference_kwargs,
    score,
    scores_for,
    tied_scores,
)
from reference import METRICS as REF
from reference import brute_force, orderings, reference_mean

from sk_rankmetrics import evaluate
from sk_rankmetrics._metrics.registry import METRICS

#: Slow (brute force over every option, cut-off and tie ordering): left out by pytest -m 'not slow'.
pytestmark = pytest.mark.slow

TOL = dict(rel=1e-12, abs=1e-12)


def _small_matrix(seed, n_items, n_rows=5):
    rng = np.random.default_rng(seed)
    y = random_relevance(rng, n_rows, n_items)
    s = tied_scores(rng, n_rows, n_items, n_levels=3)
    s[0] = 1  # one row tied throughout (every permutation of the row)
    y[1] = 0  # one row without relevant items
    return y, s


def _check(name, y, s, *, k=None, weights=None, policy=0.0, ignore_ties=False, **options):
    spec = METRICS[name]
    kk = k if spec.takes_k else None
    options = {**default_options(name), **options}
    if spec.ties == "refuse" and not ignore_ties:
        # No closed form over tie orderings: tied scores raise, tie-free ones match.
        if (np.diff(np.sort(s, axis=1), axis=1) == 0).any():
            with pytest.raises(ValueError, match=r"has no closed form for its expected"):
                score(name, y, s, k=kk, no_relevant=policy, **options)
        s = scores_for(name, s)
    got = score(name, y, s, k=kk, sample_weight=weights, no_relevant=policy,
                ignore_ties=ignore_ties, **options)
    ref_opts = reference_kwargs(options)
    if spec.takes_k:
        ref_opts["k"] = k
    # DCG and CG have no policy: their value is defined on every row.
    expected = reference_mean(name, y.tolist(), s.tolist(), weights=weights,
                              no_relevant=policy, **ref_opts)
    assert got == pytest.approx(expected, **TOL), (name, k, options)


@pytest.mark.parametrize("name", METRIC_NAMES)
@pytest.mark.parametrize("n_items", [2, 3, 5, 7])
def test_every_option_and_cutoff_matches_reference(name, n_items):
    y, s = _small_matrix(n_items, n_items)
    ks = k_values(n_items) if METRICS[name].takes_k else [None]
    for options, k in itertools.product(option_grid(name, n_items), ks):
        _check(name, y, s, k=k, **options)


@pytest.mark.parametrize("name", NORMALIZED)
@pytest.mark.parametrize("policy", ["skip", 1.0, 0.0])
def test_no_relevant_policies_match_reference(name, policy):
    y, s = _small_matrix(11, 6, n_rows=8)
    y[5] = 0
    for k in k_values(6) if METRICS[name].takes_k else [None]:
        _check(name, y, s, k=k, policy=policy)
        _check(name, y, s, k=k, policy=policy, weights=np.arange(1.0, 9.0))


@pytest.mark.parametrize("name", METRIC_NAMES)
def test_sample_weight_matches_reference(name):
    y, s = _small_matrix(12, 6, n_rows=7)
    w = np.array([0.5, 2.0, 0.0, 1.0, 3.0, 0.25, 1.5])
    for options in option_grid(name, 6)[:3]:
        for k in k_values(6) if METRICS[name].takes_k else [None]:
            _check(name, y, s, k=k, weights=w, **options)


@pytest.mark.parametrize("name", METRIC_NAMES)
@pytest.mark.parametrize("n_items", [2, 4, 7])
def test_ignore_ties_on_untied_scores_matches_plain_reference(name, n_items):
    rng = np.random.default_rng(n_items)
    y = random_relevance(rng, 6, n_items)
    s = rng.permuted(np.tile(np.arange(n_items) * 1.5, (6, 1)), axis=1)
    ks = k_values(n_items) if METRICS[name].takes_k else [None]
    for options, k in itertools.product(option_grid(name, n_items), ks):
        _check(name, y, s, k=k, ignore_ties=True, **options)


def test_reference_enumerates_every_tie_ordering():
    """The reference itself: 3! * 2! orderings for scores with groups of 3 and 2."""
    assert len(list(orderings([1, 1, 1, 0, 0]))) == 12
    assert len({tuple(o) for o in orderings([2, 1, 2, 1, 2])}) == 12
    # Expected DCG@1 of a three-way tie: the mean gain of the group.
    assert brute_force("dcg", [3, 0, 0], [1, 1, 1], k=1) == pytest.approx(1.0)


# --- large matrices: chunking, threads, argpartition ---------------------------


def _large_case(seed, n_rows=300, n_items=40, boundaries=(4, 9)):
    """Rows whose tie groups straddle the cut-offs ``boundaries``.

    Scores are a random permutation of distinct values; in each row, the
    items ranked around each boundary (and one random pair) are then tied,
    with the group's start shifted at random so that the boundary falls at
    different places inside the group. Small groups keep the brute force
    cheap (at most 2 * 3 * 2 orderings per row).
    """
    rng = np.random.default_rng(seed)
    y = random_relevance(rng, n_rows, n_items, p_zero=0.6)
    y[rng.random(n_rows) < 0.05] = 0
    s = np.empty((n_rows, n_items))
    for i in range(n_rows):
        by_rank = rng.permutation(n_items)  # item at each rank, best first
        level = np.arange(n_items, 0, -1, dtype=float)  # score of each rank
        for b, size in zip(boundaries, (2, 3)):
            first = b - rng.integers(0, size)  # group covers ranks first..first+size-1
            level[first : first + size] = level[first]
        if rng.random() < 0.5:
            first = rng.integers(20, n_items - 1)
            level[first : first + 2] = level[first]
        s[i, by_rank] = level
    return y, s


def _reference_rows(name, y, s, **options):
    """Per-row brute-force values (NaN where the metric is undefined)."""
    fn = REF[name]
    options = {**default_options(name), **options}
    out = []
    for yr, sr in zip(y.tolist(), s.tolist()):
        vals = [fn(yr, order, **options) for order in orderings(sr)]
        out.append(np.nan if vals[0] is None else sum(vals) / len(vals))
    return np.array(out)


LARGE_REQUESTS = [
    ("ndcg", {"k": 4}), ("ndcg", {"k": 5}), ("ndcg", {"k": 10}),
    ("dcg", {"k": 9}), ("cg", {"k": 4}),
    ("map", {"k": 4}), ("map", {"k": 10, "denominator": "relevant"}),
    ("precision", {"k": 5}), ("recall", {"k": 9}),
    ("hit_rate", {"k": 1}), ("hit_rate", {"k": 4}),
    ("mrr", {"k": 10}), ("r_precision", {}),
]


def _label(name, opts):
    return f"{name}@{opts['k']}" if "k" in opts else name


@pytest.mark.usefixtures("small_chunks")
@pytest.mark.parametrize("with_full_sort", [False, True])
def test_large_matrix_chunked_and_threaded_matches_reference(with_full_sort):
    """300 x 40 with ties across the cut-offs: per-row values equal the reference.

    Without a metric lacking ``k`` the engine ranks with ``argpartition`` (top
    10 of 40); with one (``mrr`` without ``k``) it sorts every row fully.
    """
    y, s = _large_case(0)
    requests = [(_label(n, o), {x: v for x, v in o.items() if x != "k"})
                for n, o in LARGE_REQUESTS]
    if with_full_sort:
        requests.append(("mrr", {}))
    got = evaluate(y, s, requests, per_row=True, no_relevant=np.nan)
    wanted = LARGE_REQUESTS + ([("mrr", {"k": None})] if with_full_sort else [])
    for (label, _), (name, opts) in zip(requests, wanted):
        expected = _reference_rows(name, y, s, **opts)
        np.testing.assert_allclose(got[label], expected, rtol=1e-12, atol=1e-12,
                                   err_msg=label)


@pytest.mark.usefixtures("small_chunks")
@pytest.mark.parametrize("name", METRIC_NAMES)
def test_large_matrix_single_metric_functions(name):
    """Each public function on the chunked, threaded path, cut-off at a tie."""
    y, s = _large_case(1, n_rows=120, boundaries=(5, 12))
    s = scores_for(name, s)
    spec = METRICS[name]
    for k in ([5, 6, 12, 13, 45, None] if spec.takes_k else [None]):
        got = score(name, y, s, k=k, per_row=True, no_relevant=np.nan)
        expected = _reference_rows(name, y, s, **({"k": k} if spec.takes_k else {}))
        np.testing.assert_allclose(got, expected, rtol=1e-12, atol=1e-12,
                                   err_msg=f"{name} k={k}")
        # The mean (the sum, for counts) of the per-row values is the score.
        combine = np.sum if spec.aggregate == "sum" else np.mean
        mean = score(name, y, s, k=k, no_relevant=0.0)
        assert mean == pytest.approx(combine(np.nan_to_num(expected)), **TOL)
