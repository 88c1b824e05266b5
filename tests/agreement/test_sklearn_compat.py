"""Drop-in compatibility with ``sklearn.metrics.ndcg_score`` and ``dcg_score``.

With scikit-learn's own arguments our two functions give scikit-learn's
numbers to 1e-12, on random matrices with and without ties; with
``gain="exponential"`` they give scikit-learn's numbers on ``2**y_true - 1``;
and they reject what scikit-learn rejects.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from sklearn import metrics as skm
from sklearn.exceptions import UndefinedMetricWarning

import sk_rankmetrics as skr

#: Slow (every metric against scikit-learn on many shapes): left out by pytest -m 'not slow'.
pytestmark = pytest.mark.slow

TOL = dict(rel=1e-12, abs=1e-12)


def _quiet(fn, *args, **kwargs):
    """Call ``fn`` with the no-relevant-row warning silenced (scikit-learn is silent)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedMetricWarning)
        return fn(*args, **kwargs)


def _case(seed, kind, n_rows=40, n_items=9):
    """``(y_true, y_score)`` of one kind of random input."""
    rng = np.random.default_rng(seed)
    if kind == "graded_ties":
        y = rng.integers(0, 5, size=(n_rows, n_items))
        s = rng.integers(0, 4, size=(n_rows, n_items))
    elif kind == "binary_ties":
        y = (rng.random((n_rows, n_items)) < 0.3).astype(int)
        s = rng.integers(0, 3, size=(n_rows, n_items)).astype(float) / 2
    elif kind == "float_no_ties":
        y = rng.random((n_rows, n_items)) * 3
        s = rng.normal(size=(n_rows, n_items))
    elif kind == "graded_no_ties":
        y = rng.integers(0, 4, size=(n_rows, n_items))
        s = rng.permuted(np.tile(np.arange(n_items, dtype=float), (n_rows, 1)), axis=1)
    elif kind == "all_tied_rows":
        y = rng.integers(0, 3, size=(n_rows, n_items))
        s = np.repeat(rng.integers(0, 2, size=(n_rows, 1)), n_items, axis=1)
    else:  # pragma: no cover
        raise ValueError(kind)
    y[: n_rows // 8] = 0  # some rows without any relevant item
    return y, s


KINDS = ["graded_ties", "binary_ties", "float_no_ties", "graded_no_ties", "all_tied_rows"]
UNTIED = ["float_no_ties", "graded_no_ties"]
KS = [None, 1, 2, 3, 5, 9, 15]


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("seed", [0, 1])
@pytest.mark.parametrize("k", KS)
def test_ndcg_equals_sklearn(kind, seed, k):
    y, s = _case(seed, kind)
    expected = skm.ndcg_score(y, s, k=k)
    assert _quiet(skr.ndcg_score, y, s, k=k) == pytest.approx(expected, **TOL)
    # Per-row values are scikit-learn's per-row values (its private helper).
    per_row = _quiet(skr.ndcg_score, y, s, k=k, per_row=True)
    np.testing.assert_allclose(
        per_row, skm._ranking._ndcg_sample_scores(y, s, k=k), rtol=1e-12, atol=1e-12
    )


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("k", KS)
@pytest.mark.parametrize("log_base", [2, 10, np.e, 1.5])
def test_dcg_equals_sklearn(kind, k, log_base):
    y, s = _case(3, kind)
    expected = skm.dcg_score(y, s, k=k, log_base=log_base)
    assert skr.dcg_score(y, s, k=k, log_base=log_base) == pytest.approx(expected, **TOL)


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("k", [None, 2, 4])
def test_sample_weight_equals_sklearn(kind, k):
    y, s = _case(4, kind)
    w = np.random.default_rng(5).random(y.shape[0]) * 3
    w[::7] = 0.0
    assert _quiet(skr.ndcg_score, y, s, k=k, sample_weight=w) == pytest.approx(
        skm.ndcg_score(y, s, k=k, sample_weight=w), **TOL
    )
    assert skr.dcg_score(y, s, k=k, sample_weight=w, log_base=3) == pytest.approx(
        skm.dcg_score(y, s, k=k, sample_weight=w, log_base=3), **TOL
    )


@pytest.mark.parametrize("kind", UNTIED)
@pytest.mark.parametrize("k", KS)
def test_ignore_ties_equals_sklearn_on_untied_scores(kind, k):
    y, s = _case(6, kind)
    assert _quiet(skr.ndcg_score, y, s, k=k, ignore_ties=True) == pytest.approx(
        skm.ndcg_score(y, s, k=k, ignore_ties=True), **TOL
    )
    assert skr.dcg_score(y, s, k=k, ignore_ties=True, log_base=5) == pytest.approx(
        skm.dcg_score(y, s, k=k, ignore_ties=True, log_base=5), **TOL
    )
    # Without ties, ignoring them changes nothing.
    assert _quiet(skr.ndcg_score, y, s, k=k, ignore_ties=True) == pytest.approx(
        _quiet(skr.ndcg_score, y, s, k=k), **TOL
    )


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("k", [None, 1, 3, 20])
def test_exponential_gain_is_sklearn_on_transformed_relevance(kind, k):
    y, s = _case(7, kind)
    y = np.round(y).astype(float)  # levels 0, 1, 2, ...
    g = 2.0**y - 1.0
    assert _quiet(skr.ndcg_score, y, s, k=k, gain="exponential") == pytest.approx(
        skm.ndcg_score(g, s, k=k), **TOL
    )
    assert skr.dcg_score(y, s, k=k, gain="exponential", log_base=3) == pytest.approx(
        skm.dcg_score(g, s, k=k, log_base=3), **TOL
    )
    # Float (non-integer) relevance goes through the same formula.
    yf = np.abs(np.random.default_rng(8).normal(size=y.shape)) * 2
    assert skr.dcg_score(yf, s, k=k, gain="exponential") == pytest.approx(
        skm.dcg_score(2.0**yf - 1.0, s, k=k), **TOL
    )


def test_negative_relevance_dcg_equals_sklearn():
    """scikit-learn's DCG takes negative relevance (linear gain): so do we."""
    rng = np.random.default_rng(9)
    y = rng.integers(-3, 4, size=(30, 6))
    s = rng.integers(0, 3, size=(30, 6))
    for k in (None, 2, 4):
        assert skr.dcg_score(y, s, k=k) == pytest.approx(skm.dcg_score(y, s, k=k), **TOL)


def test_list_input_and_sklearn_docstring_examples():
    """scikit-learn's own docstring examples, given as lists."""
    true_relevance = [[10, 0, 0, 1, 5]]
    cases = [
        (skm.dcg_score, skr.dcg_score, [[0.1, 0.2, 0.3, 4, 70]], {}),
        (skm.dcg_score, skr.dcg_score, [[0.1, 0.2, 0.3, 4, 70]], {"k": 2}),
        (skm.ndcg_score, skr.ndcg_score, [[0.1, 0.2, 0.3, 4, 70]], {}),
        (skm.ndcg_score, skr.ndcg_score, [[0.05, 1.1, 1.0, 0.5, 0.0]], {}),
        (skm.ndcg_score, skr.ndcg_score, [[0.05, 1.1, 1.0, 0.5, 0.0]], {"k": 4}),
        (skm.ndcg_score, skr.ndcg_score, true_relevance, {"k": 4}),
        (skm.dcg_score, skr.dcg_score, [[1, 0, 0, 0, 1]], {"k": 1}),
        (skm.ndcg_score, skr.ndcg_score, [[1, 0, 0, 0, 1]], {"k": 1}),
    ]
    for theirs, ours, scores, kw in cases:
        assert ours(true_relevance, scores, **kw) == pytest.approx(
            theirs(true_relevance, scores, **kw), **TOL
        )
    # The values scikit-learn's docstring explains: ties averaged, (10 + 5) / 2.
    assert skr.dcg_score(true_relevance, [[1, 0, 0, 0, 1]], k=1) == 7.5
    assert skr.ndcg_score(true_relevance, [[1, 0, 0, 0, 1]], k=1) == 0.75


def test_default_counts_rows_without_relevant_items_as_zero_like_sklearn():
    y = np.array([[0, 0, 0], [1, 0, 2], [0, 0, 0]])
    s = np.array([[1, 2, 3], [3, 2, 1], [1, 1, 1]])
    with pytest.warns(UndefinedMetricWarning, match="2 of 3 rows have no relevant item"):
        ours = skr.ndcg_score(y, s)
    assert ours == pytest.approx(skm.ndcg_score(y, s), **TOL)


def test_return_type_is_python_float():
    y, s = _case(0, "graded_ties")
    assert type(_quiet(skr.ndcg_score, y, s)) is float
    assert type(skr.dcg_score(y, s)) is float


# --- what scikit-learn rejects is rejected -----------------------------------

REJECTED = {
    "negative y_true (ndcg)": (skm.ndcg_score, skr.ndcg_score, [[-1, 2, 3]], [[3, 2, 1]]),
    "one item per row (ndcg)": (skm.ndcg_score, skr.ndcg_score, [[1], [2]], [[1], [2]]),
    "one item per row (dcg)": (skm.dcg_score, skr.dcg_score, [[1], [2]], [[1], [2]]),
    "1-D (ndcg)": (skm.ndcg_score, skr.ndcg_score, [1, 2, 3], [3, 2, 1]),
    "1-D (dcg)": (skm.dcg_score, skr.dcg_score, [1, 0, 3], [3, 2, 1]),
}


@pytest.mark.parametrize("case", list(REJECTED))
def test_rejects_what_sklearn_rejects(case):
    theirs, ours, y, s = REJECTED[case]
    with pytest.raises(ValueError):
        theirs(y, s)
    with pytest.raises(ValueError):
        ours(y, s)


def test_log_base_at_most_one_is_a_deliberate_difference():
    """scikit-learn accepts log_base in (0, 1), whose discounts are negative;
    here it raises (listed in docs/which_ndcg.md)."""
    y, s = [[1, 0, 2]], [[3, 2, 1]]
    assert np.isfinite(skm.dcg_score(y, s, log_base=0.5))
    for base in (0.5, 1, 0.999):
        with pytest.raises(ValueError, match=r"log_base=.* is not accepted .* > 1"):
            skr.dcg_score(y, s, log_base=base)
