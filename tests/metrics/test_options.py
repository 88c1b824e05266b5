"""The options: no_relevant, threshold, denominator, adaptive_k, discounts,
gains, ignore_ties and sparse y_true — each checked against closed-form
values or the brute-force reference."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from conftest import (
    METRIC_NAMES,
    UNDEFINABLE,
    default_options,
    random_relevance,
    score,
    scores_for,
    tied_scores,
)
from reference import METRICS as REF
from reference import orderings, reference_mean
from sklearn.exceptions import UndefinedMetricWarning

import sk_rankmetrics as skr
from sk_rankmetrics._metrics.registry import METRICS

#: Slow (every option of every metric): left out by pytest -m 'not slow'.
pytestmark = pytest.mark.slow

TOL = dict(rel=1e-12, abs=1e-12)

#: Row 1 has no relevant item; rows 0 and 2 have.
Y = np.array([[0, 1, 2, 0], [0, 0, 0, 0], [1, 0, 0, 1]])
S = np.array([[4, 3, 2, 1], [4, 3, 2, 1], [1, 2, 3, 4]])


def _k(name):
    return 2 if METRICS[name].takes_k else None


# --- no_relevant ------------------------------------------------------------------------


@pytest.mark.parametrize("name", UNDEFINABLE)
def test_no_relevant_warn_scores_zero_and_counts_the_row(name):
    with pytest.warns(UndefinedMetricWarning, match=r"1 of 3 rows have no relevant item"):
        got = score(name, Y, S, k=_k(name))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        zero = score(name, Y, S, k=_k(name), no_relevant=0.0)
    assert got == zero
    with pytest.warns(UndefinedMetricWarning):
        rows = score(name, Y, S, k=_k(name), per_row=True)
    assert rows[1] == 0.0
    assert got == pytest.approx(rows.mean(), **TOL)


@pytest.mark.parametrize("name", UNDEFINABLE)
def test_no_relevant_skip_drops_the_row_and_its_weight(name):
    k = _k(name)
    w = np.array([1.0, 5.0, 3.0])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        skipped = score(name, Y, S, k=k, no_relevant="skip", sample_weight=w)
        rows = score(name, Y, S, k=k, no_relevant="skip", per_row=True)
    kept = score(name, Y[[0, 2]], S[[0, 2]], k=k, sample_weight=w[[0, 2]])
    assert skipped == pytest.approx(kept, **TOL)
    assert np.isnan(rows[1]) and not np.isnan(rows[[0, 2]]).any()
    # Every row skipped: the score is NaN, with a warning.
    with pytest.warns(UndefinedMetricWarning, match=r"every row was skipped"):
        assert np.isnan(score(name, Y[[1]], S[[1]], k=k, no_relevant="skip"))


@pytest.mark.parametrize("name", UNDEFINABLE)
@pytest.mark.parametrize("value", [1.0, 0.25, 0, np.nan])
def test_no_relevant_number_replaces_the_value(name, value):
    k = _k(name)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        rows = score(name, Y, S, k=k, no_relevant=value, per_row=True)
        mean = score(name, Y, S, k=k, no_relevant=value)
    defined = score(name, Y, S, k=k, no_relevant="skip", per_row=True)
    np.testing.assert_array_equal(rows[[0, 2]], defined[[0, 2]])
    if np.isnan(value):
        assert np.isnan(rows[1]) and np.isnan(mean)
    else:
        assert rows[1] == value
        assert mean == pytest.approx(rows.mean(), **TOL)


@pytest.mark.parametrize("name", ["dcg", "cg"])
def test_unnormalised_metrics_have_no_policy(name):
    """DCG and CG are defined (0) on rows without relevant items: no warning,
    no ``no_relevant`` argument."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        rows = score(name, Y, S, k=_k(name), per_row=True)
    assert rows[1] == 0.0
    with pytest.raises(TypeError, match="no_relevant"):
        skr.dcg_score(Y, S, no_relevant="skip") if name == "dcg" else (
            skr.cumulative_gain_score(Y, S, no_relevant="skip"))


def test_ndcg_row_with_only_zero_gains_is_undefined():
    """nDCG is undefined when the ideal DCG is 0, also under a gain mapping."""
    y = np.array([[0, 1, 2], [1, 0, 1]])
    s = np.array([[3, 2, 1], [3, 2, 1]])
    rows = skr.ndcg_score(y, s, gain={0: 0, 1: 0, 2: 1}, no_relevant=np.nan, per_row=True)
    assert rows[0] == pytest.approx(1 / math.log2(4), **TOL)
    assert np.isnan(rows[1])


# --- threshold -------------------------------------------------------------------------------

# Rndcg reads threshold only to leave rows without a relevant item undefined (as
# trec_eval's -l): its gains stay graded (test_rndcg_threshold_only_decides_defined).
BINARY = [n for n in METRIC_NAMES if "threshold" in METRICS[n].options and n != "rndcg"]


def test_rndcg_threshold_only_decides_defined():
    rng = np.random.default_rng(0)
    y = random_relevance(rng, 30, 6)
    s = tied_scores(rng, 30, 6)
    plain = score("rndcg", y, s, no_relevant=np.nan, per_row=True)
    at3 = score("rndcg", y, s, threshold=3, no_relevant=np.nan, per_row=True)
    none_at3 = ~(y >= 3).any(axis=1)
    assert none_at3.any() and (~none_at3 & ~np.isnan(plain)).any()
    assert np.isnan(at3[none_at3]).all()
    np.testing.assert_allclose(at3[~none_at3], plain[~none_at3], rtol=0, atol=1e-12)


@pytest.mark.parametrize("name", BINARY)
@pytest.mark.parametrize("threshold", [None, 1, 2, 2.5, 3, -1])
def test_threshold_is_the_metric_of_the_indicator(name, threshold):
    rng = np.random.default_rng(0)
    y = random_relevance(rng, 30, 6)
    s = tied_scores(rng, 30, 6)
    s = scores_for(name, s)
    indicator = (y > 0) if threshold is None else (y >= threshold)
    for k in ([None, 1, 3] if METRICS[name].takes_k else [None]):
        got = score(name, y, s, k=k, threshold=threshold, no_relevant=0.0)
        want = score(name, indicator, s, k=k, no_relevant=0.0)
        assert got == pytest.approx(want, **TOL)


def test_threshold_closed_form():
    y = [[3, 1, 2, 0]]
    s = [[4, 3, 2, 1]]  # ranked as shown
    assert skr.precision_at_k_score(y, s, k=2) == 1.0
    assert skr.precision_at_k_score(y, s, k=2, threshold=2) == 0.5
    assert skr.recall_at_k_score(y, s, k=2, threshold=2) == 0.5
    assert skr.reciprocal_rank_score([[1, 3, 0]], [[3, 2, 1]], threshold=3) == 0.5
    assert skr.hit_rate_score([[1, 3, 0]], [[3, 2, 1]], k=1, threshold=3) == 0.0
    assert skr.r_precision_score(y, s, threshold=3) == 1.0


# --- denominator ----------------------------------------------------------------------------


def test_denominator_closed_form():
    # Relevant at positions 1 and 4 of 5; R = 3 (one relevant item ranked last).
    y = [[1, 0, 0, 1, 0, 1]]
    s = [[6, 5, 4, 3, 2, 1]]
    ap3 = 1.0  # only the hit at position 1 is inside the top 3
    assert skr.mean_average_precision_score(y, s, k=3) == pytest.approx(ap3 / 3, **TOL)
    assert skr.mean_average_precision_score(
        y, s, k=3, denominator="relevant"
    ) == pytest.approx(ap3 / 3, **TOL)
    ap5 = 1.0 + 2 / 4
    assert skr.mean_average_precision_score(y, s, k=5) == pytest.approx(ap5 / 3, **TOL)
    ap_all = 1.0 + 2 / 4 + 3 / 6
    assert skr.mean_average_precision_score(y, s) == pytest.approx(ap_all / 3, **TOL)
    # min(k, R) differs from R when k < R: a perfect top 2 scores 1 or 2/3.
    assert skr.mean_average_precision_score(y, y, k=2) == 1.0
    assert skr.mean_average_precision_score(
        y, y, k=2, denominator="relevant"
    ) == pytest.approx(2 / 3, **TOL)


@pytest.mark.parametrize("k", [None, 1, 2, 4, 9])
def test_denominators_agree_when_k_is_at_least_r_and_scale_otherwise(k):
    rng = np.random.default_rng(1)
    y = random_relevance(rng, 40, 7)
    s = tied_scores(rng, 40, 7)
    a = skr.mean_average_precision_score(y, s, k=k, no_relevant=np.nan, per_row=True)
    b = skr.mean_average_precision_score(y, s, k=k, no_relevant=np.nan, per_row=True,
                                         denominator="relevant")
    R = (y > 0).sum(axis=1)
    big = (R <= (k or 7)) & (R > 0)
    np.testing.assert_allclose(a[big], b[big], rtol=1e-12)
    if k is not None:
        small = R > k
        assert small.any() or k >= 7
        np.testing.assert_allclose(a[small] * k / R[small], b[small], rtol=1e-12)


# --- adaptive_k -------------------------------------------------------------------------------


def test_adaptive_k_divides_by_the_row_length():
    y = [[1, 0, 1, 1]]
    s = [[4, 3, 2, 1]]
    assert skr.precision_at_k_score(y, s, k=10) == pytest.approx(3 / 10, **TOL)
    assert skr.precision_at_k_score(y, s, k=10, adaptive_k=True) == pytest.approx(3 / 4, **TOL)
    # k within the row: no difference.
    assert skr.precision_at_k_score(y, s, k=3, adaptive_k=True) == skr.precision_at_k_score(
        y, s, k=3
    )
    # Without k: the row length, either way.
    assert skr.precision_at_k_score(y, s) == skr.precision_at_k_score(y, s, adaptive_k=True)


def test_adaptive_k_with_long_format_rows_of_different_lengths():
    y = [1, 0, 1, 1, 0, 1]
    s = [5, 4, 3, 2, 1, 0]
    qid = [1, 1, 1, 1, 2, 2]
    rows = skr.precision_at_k_score(y, s, qid=qid, k=3, per_row=True)
    np.testing.assert_allclose(rows, [2 / 3, 1 / 3], rtol=1e-12)
    rows = skr.precision_at_k_score(y, s, qid=qid, k=3, adaptive_k=True, per_row=True)
    np.testing.assert_allclose(rows, [2 / 3, 1 / 2], rtol=1e-12)


# --- discounts ------------------------------------------------------------------------------


def _one_hot_dcg(p, n=8, **kwargs):
    """DCG of a row whose only relevant item (gain 1) is ranked at position p."""
    y = np.zeros((1, n))
    y[0, p - 1] = 1
    return skr.dcg_score(y, np.arange(n, 0, -1).reshape(1, -1), **kwargs)


@pytest.mark.parametrize("base", [2, 3, 10, 2.5])
def test_jarvelin_discount_closed_form(base):
    for p in range(1, 9):
        want = 1.0 if p < base else 1.0 / math.log(p, base)
        assert _one_hot_dcg(p, discount="jarvelin", log_base=base) == pytest.approx(want, **TOL)


def test_jarvelin_base_2_positions_1_and_2_both_undiscounted():
    assert _one_hot_dcg(1, discount="jarvelin") == 1.0
    assert _one_hot_dcg(2, discount="jarvelin") == 1.0
    assert _one_hot_dcg(3, discount="jarvelin") == pytest.approx(1 / math.log2(3), **TOL)
    # The standard discount does discount position 2.
    assert _one_hot_dcg(2) == pytest.approx(1 / math.log2(3), **TOL)


def test_jarvelin_base_matters_for_ndcg_standard_base_does_not():
    y = np.array([[1, 3, 0, 2, 2, 0, 1]])
    s = np.arange(7, 0, -1).reshape(1, -1)
    j = {b: skr.ndcg_score(y, s, discount="jarvelin", log_base=b) for b in (2, 3, 6)}
    assert len({round(v, 12) for v in j.values()}) == 3
    std = {b: skr.ndcg_score(y, s, log_base=b) for b in (2, 3, 6)}
    assert max(std.values()) - min(std.values()) < 1e-12


@pytest.mark.parametrize("base", [2, 3, 10, np.e, 1.01])
def test_log_discount_closed_form(base):
    for p in range(1, 9):
        assert _one_hot_dcg(p, log_base=base) == pytest.approx(1 / math.log(p + 1, base), **TOL)


def test_discount_array_and_callable():
    rng = np.random.default_rng(2)
    y = random_relevance(rng, 20, 6)
    s = tied_scores(rng, 20, 6)
    d = np.array([1.0, 0.9, 0.5, 0.4, 0.1, 0.05])
    for k in (None, 1, 3, 6, 10):
        arr = skr.dcg_score(y, s, k=k, discount=d)
        assert arr == pytest.approx(
            reference_mean("dcg", y.tolist(), s.tolist(), k=k, discount=d.tolist()), **TOL
        )
        assert skr.dcg_score(y, s, k=k, discount=lambda p: d[p - 1]) == pytest.approx(arr, **TOL)
        assert skr.dcg_score(y, s, k=k, discount=list(d)) == pytest.approx(arr, **TOL)
    # A callable equal to the standard discount gives the standard numbers.
    std = lambda p: 1 / np.log2(p + 1)  # noqa: E731
    for k in (None, 2):
        assert skr.ndcg_score(y, s, k=k, discount=std, no_relevant=0.0) == pytest.approx(
            skr.ndcg_score(y, s, k=k, no_relevant=0.0), **TOL
        )
    # The reciprocal-rank discount 1/p, as an array longer than needed.
    assert _one_hot_dcg(4, discount=1 / np.arange(1, 20)) == pytest.approx(0.25, **TOL)


def test_discount_array_only_needs_k_positions():
    y = np.array([[1, 2, 0, 3, 1]])
    s = np.array([[5, 4, 3, 2, 1]])
    assert skr.dcg_score(y, s, k=2, discount=[1.0, 0.5]) == pytest.approx(2.0, **TOL)
    with pytest.raises(ValueError, match=r"discount array has 2 positions but the ranking needs 5"):
        skr.dcg_score(y, s, discount=[1.0, 0.5])


# --- gains ------------------------------------------------------------------------------------


def test_gain_mapping_and_callable_equal_exponential():
    rng = np.random.default_rng(3)
    y = random_relevance(rng, 25, 6)
    s = tied_scores(rng, 25, 6)
    for fn in (skr.ndcg_score, skr.dcg_score, skr.cumulative_gain_score):
        kw = {"no_relevant": 0.0} if fn is skr.ndcg_score else {}
        for k in (None, 2):
            exp = fn(y, s, k=k, gain="exponential", **kw)
            assert fn(y, s, k=k, gain={0: 0, 1: 1, 2: 3, 3: 7}, **kw) == pytest.approx(exp, **TOL)
            assert fn(y, s, k=k, gain=lambda r: 2.0**r - 1, **kw) == pytest.approx(exp, **TOL)
            assert fn(y, s, k=k, gain=lambda r: r, **kw) == pytest.approx(
                fn(y, s, k=k, **kw), **TOL
            )


@pytest.mark.parametrize("gain_kind", ["mapping", "callable"])
def test_non_monotone_gain_ideal_orders_by_gain(gain_kind):
    """A gain that is not increasing in relevance: the ideal DCG sorts gains,
    not relevance levels."""
    mapping = {0: 0.0, 1: 5.0, 2: 1.0, 3: 2.0}
    table = np.array([mapping[i] for i in range(4)])
    gain = mapping if gain_kind == "mapping" else (lambda r: table[r.astype(int)])
    rng = np.random.default_rng(4)
    y = random_relevance(rng, 20, 6)
    s = tied_scores(rng, 20, 6)
    for k in (None, 1, 2, 4):
        got = skr.ndcg_score(y, s, k=k, gain=gain, no_relevant=0.0)
        want = reference_mean("ndcg", y.tolist(), s.tolist(), k=k, gain=mapping)
        assert got == pytest.approx(want, **TOL)
    # Perfect = ranking by gain: level 1 first.
    assert skr.ndcg_score([[1, 2, 3]], [[3, 1, 2]], gain=gain) == pytest.approx(1.0, **TOL)
    assert skr.ndcg_score([[1, 2, 3]], [[1, 2, 3]], gain=gain) < 1.0


def test_gain_mapping_with_float_levels_and_negative_levels():
    y = [[0.5, 1.5, 0.0]]
    s = [[3, 2, 1]]
    assert skr.dcg_score(y, s, gain={0.0: 0, 0.5: 1, 1.5: 4}) == pytest.approx(
        1 + 4 / math.log2(3), **TOL
    )
    assert skr.dcg_score([[-1, 1, 0]], s, gain={-1: 0.5, 0: 0, 1: 2}) == pytest.approx(
        0.5 + 2 / math.log2(3), **TOL
    )


# --- ignore_ties ----------------------------------------------------------------------------------


@pytest.mark.parametrize("name", METRIC_NAMES)
def test_ignore_ties_on_tied_scores_gives_one_of_the_orderings(name):
    """With ties, ``ignore_ties=True`` takes one admissible ordering: its value
    is the metric of some ordering the scores allow."""
    rng = np.random.default_rng(5)
    y = random_relevance(rng, 15, 5, p_zero=0.3)
    s = tied_scores(rng, 15, 5, n_levels=2)
    k = _k(name)
    rows = score(name, y, s, k=k, ignore_ties=True, per_row=True, no_relevant=np.nan)
    kw = {**default_options(name), **({"k": k} if METRICS[name].takes_k else {})}
    for i in range(len(y)):
        vals = {REF[name](list(y[i]), o, **kw) for o in orderings(list(s[i]))}
        # Undefined (None) in some ordering: accuracy@k is undefined when the
        # top k holds no relevant item, which depends on the ordering.
        if np.isnan(rows[i]):
            assert None in vals
        else:
            assert min(abs(rows[i] - v) for v in vals if v is not None) < 1e-12


# --- sparse y_true ----------------------------------------------------------------------


@pytest.mark.parametrize(
    "fmt", ["csr_matrix", "csc_matrix", "coo_array", "lil_matrix", "csr_array"]
)
def test_sparse_truth_equals_dense(fmt, small_chunks):
    rng = np.random.default_rng(6)
    y = random_relevance(rng, 200, 12, p_zero=0.85)
    s = tied_scores(rng, 200, 12, n_levels=5)
    ys = getattr(sp, fmt)(y)
    requests = ["ndcg@3", "dcg", "cg@4", "map@5", "precision@2", "recall@6",
                "hit_rate@1", "mrr", "r_precision", "ndcg_exp@5"]
    dense = skr.evaluate(y, s, requests, no_relevant=np.nan, per_row=True)
    sparse = skr.evaluate(ys, s, requests, no_relevant=np.nan, per_row=True)
    for r in requests:
        np.testing.assert_allclose(sparse[r], dense[r], rtol=1e-12, atol=1e-15, err_msg=r)


def test_sparse_truth_with_explicit_zeros_and_float_data():
    y = sp.csr_array((np.array([0.0, 2.0, 1.5, 0.0]), (np.array([0, 0, 1, 1]),
                      np.array([0, 2, 1, 3]))), shape=(2, 4))
    s = np.array([[4, 3, 2, 1], [1, 2, 3, 4]])
    for name in METRIC_NAMES:
        if "grades" in METRICS[name].needs:  # ERR reads integer grades only
            continue
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            got = score(name, y, s, k=_k(name))
            want = score(name, y.toarray(), s, k=_k(name))
        assert got == pytest.approx(want, **TOL)
        # accuracy@2 alone is undefined here (no relevant item in either row's
        # top 2): it says so, for the sparse and the dense truth alike.
        expected = (["accuracy@2: 2 of 2 rows have no relevant item; they score 0 and count "
                     "in the mean. Set no_relevant='skip', 0.0, 1.0 or nan to choose (and "
                     "silence this warning)."] * 2 if name == "accuracy" else [])
        assert [str(w.message) for w in caught] == expected, name
        assert all(issubclass(w.category, UndefinedMetricWarning) for w in caught), name
