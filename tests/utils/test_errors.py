"""Bad input raises a ValueError or TypeError that says what was wrong.

Every error is checked with its message: which argument, what was found and
(where it helps) what would be accepted.
"""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
from conftest import METRIC_NAMES, score

import sk_rankmetrics as skr

Y = np.array([[1, 0, 2], [0, 1, 1]])
S = np.array([[3, 2, 1], [1, 2, 3]])


def _call(name, y_true, y_score, **kwargs):
    return score(name, y_true, y_score, no_relevant=0.0, **kwargs)


# --- shapes ---------------------------------------------------------------------


@pytest.mark.parametrize("name", METRIC_NAMES)
def test_rows_differ(name):
    with pytest.raises(ValueError, match=r"different numbers of rows: 2 and 1"):
        _call(name, Y, S[:1])


@pytest.mark.parametrize("name", METRIC_NAMES)
def test_columns_differ(name):
    with pytest.raises(ValueError, match=r"different numbers of items \(columns\): 3 and 2"):
        _call(name, Y, S[:, :2])


@pytest.mark.parametrize("name", METRIC_NAMES)
@pytest.mark.parametrize("which", ["y_true", "y_score", "both"])
def test_one_dimensional_input_says_what_to_do(name, which):
    y = Y[0] if which in ("y_true", "both") else Y[:1]
    s = S[0] if which in ("y_score", "both") else S[:1]
    arg = "y_score" if which == "y_score" else "y_true"
    with pytest.raises(ValueError, match=rf"{arg} is 1-D .* pass qid=.*reshape\(1, -1\)"):
        _call(name, y, s)


def test_three_dimensional_input():
    with pytest.raises(ValueError, match=r"y_true must be 2-D .* got 3 dimensions"):
        skr.ndcg_score(Y[None], S[None])


@pytest.mark.parametrize("name", METRIC_NAMES)
def test_single_item_per_row(name):
    with pytest.raises(ValueError, match=r"1 item per row; .* at least 2 items per row"):
        _call(name, [[1], [0]], [[1], [2]])


def test_no_rows():
    with pytest.raises(ValueError, match=r"no rows; at least one is needed"):
        skr.ndcg_score(np.zeros((0, 3)), np.zeros((0, 3)))


def test_none_input():
    with pytest.raises(ValueError, match=r"y_true is None"):
        skr.ndcg_score(None, S)


@pytest.mark.parametrize("name", METRIC_NAMES)
def test_ragged_lists(name):
    with pytest.raises(ValueError, match=r"y_true could not be read as a rectangular array"):
        _call(name, [[1, 0, 1], [0, 1]], [[1, 2, 3], [3, 4]])
    with pytest.raises(ValueError, match=r"y_score could not be read .* long format with qid"):
        _call(name, [[1, 0], [0, 1]], [[1, 2, 3], [3, 4]])


# --- values ------------------------------------------------------------------------


@pytest.mark.parametrize("name", METRIC_NAMES)
@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf])
@pytest.mark.parametrize("arg", ["y_true", "y_score"])
def test_nan_or_inf_anywhere(name, bad, arg):
    y, s = Y.astype(float), S.astype(float)
    (y if arg == "y_true" else s)[1, 2] = bad
    with pytest.raises(
        ValueError, match=rf"{arg} contains NaN or infinity \(first at row 1, column 2\)"
    ):
        _call(name, y, s)


def test_nan_in_a_later_chunk_and_in_sparse_truth(small_chunks):
    y = np.ones((500, 4))
    s = np.tile(np.arange(4.0), (500, 1))
    y[437, 3] = np.nan
    with pytest.raises(ValueError, match=r"y_true contains NaN or infinity \(first at row 437"):
        skr.ndcg_score(y, s)
    s[499, 0] = np.inf
    with pytest.raises(ValueError, match=r"y_score contains NaN or infinity \(first at row 499"):
        skr.ndcg_score(np.ones((500, 4)), s)
    y = sp.csr_array(np.array([[1.0, 0, 0], [0, np.nan, 1]]))
    with pytest.raises(
        ValueError, match=r"y_true contains NaN or infinity \(first at row 1, column 1\)"
    ):
        skr.recall_at_k_score(y, S)


@pytest.mark.parametrize("name", METRIC_NAMES)
def test_strings(name):
    with pytest.raises(TypeError, match=r"y_true must hold numbers .* got dtype <U1"):
        _call(name, [["a", "b"], ["c", "d"]], [[1, 2], [3, 4]])
    with pytest.raises(TypeError, match=r"y_score must hold numbers"):
        _call(name, [[1, 0], [0, 1]], [["a", "b"], ["c", "d"]])
    with pytest.raises(TypeError, match=r"y_true has missing values \(None or pandas.NA\)"):
        _call(name, np.array([[1, None], [0, 1]], dtype=object), [[1, 2], [3, 4]])
    with pytest.raises(TypeError, match=r"y_true must hold numbers .* got dtype object with a "
                                         r"non-numeric entry such as 'x'"):
        _call(name, np.array([[1, "x"], [0, 1]], dtype=object), [[1, 2], [3, 4]])


def test_sparse_scores_are_refused():
    with pytest.raises(
        TypeError, match=r"y_score is a scipy.sparse matrix, which is accepted for y_true only"
    ):
        skr.ndcg_score(Y, sp.csr_array(S))


# --- relevance a gain cannot take ------------------------------------------------------


def test_negative_relevance_linear_ndcg():
    with pytest.raises(ValueError, match=r"negative relevance \(-1\), which a normalised metric"):
        skr.ndcg_score([[-1, 0, 2]], [[1, 2, 3]])


@pytest.mark.parametrize("name", ["ndcg", "dcg", "cg"])
def test_negative_relevance_exponential_anything(name):
    with pytest.raises(
        ValueError, match=r"negative relevance \(-2\), which the 'exponential' gain"
    ):
        _call(name, [[-2, 0, 2]], [[1, 2, 3]], gain="exponential")


def test_negative_gains_from_a_mapping_cannot_be_normalised():
    with pytest.raises(
        ValueError, match=r"gives negative gains, which ndcg_score cannot normalise"
    ):
        skr.ndcg_score([[-1, 0, 1]], [[1, 2, 3]], gain={-1: -1, 0: 0, 1: 1})


def test_negative_relevance_is_fine_where_meaningful():
    """Linear DCG and CG add negative gains (as scikit-learn's DCG); binary
    metrics read negative relevance as not relevant; a mapping may lift it."""
    assert skr.dcg_score([[-1, 0, 2]], [[1, 2, 3]]) == pytest.approx(2 - 1 / np.log2(4))
    assert skr.cumulative_gain_score([[-1, 0, 2]], [[1, 2, 3]], k=3) == 1.0
    assert skr.mean_average_precision_score([[-1, 0, 2]], [[1, 2, 3]]) == 1.0
    assert skr.ndcg_score([[-1, 0, 2]], [[1, 2, 3]], gain={-1: 0, 0: 0, 2: 3}) == 1.0


@pytest.mark.parametrize("name", ["ndcg", "dcg", "cg"])
def test_exponential_gain_overflow(name):
    with pytest.raises(
        ValueError, match=r"relevance 2000: the exponential gain 2\*\*rel - 1 overflows"
    ):
        _call(name, [[2000, 0, 2]], [[1, 2, 3]], gain="exponential")


@pytest.mark.parametrize("name", ["ndcg", "dcg", "cg"])
def test_exponential_gains_overflowing_in_the_sum(name, small_chunks):
    """Every gain 2**1023 - 1 is finite; their sum is not."""
    for dtype in (float, np.int64, np.int32):
        y = np.zeros((50, 3), dtype=dtype)
        y[37] = 1023
        with pytest.raises(ValueError, match=r"overflows float64 .* too large to add up"):
            _call(name, y, np.tile([1, 1, 3], (50, 1)), gain="exponential")
    # Near the limit but finite: fine, and exact.
    assert skr.ndcg_score([[1023, 1023, 0]], [[1, 2, 3]], gain="exponential") == pytest.approx(
        (1 / np.log2(3) + 1 / 2) / (1 + 1 / np.log2(3))
    )


def test_gain_mapping_missing_a_level():
    with pytest.raises(
        ValueError, match=r"no entry for relevance level\(s\) \[2(\.0)?\]; it maps \[0.0, 1.0\]"
    ):
        skr.ndcg_score(Y, S, gain={0: 0, 1: 1})


def test_gain_mapping_malformed():
    with pytest.raises(ValueError, match=r"gain mapping is empty"):
        skr.ndcg_score(Y, S, gain={})
    with pytest.raises(TypeError, match=r"gain mapping must map numeric relevance levels"):
        skr.ndcg_score(Y, S, gain={"a": 1})
    with pytest.raises(ValueError, match=r"finite levels and finite gains"):
        skr.ndcg_score(Y, S, gain={0: 0, 1: np.inf, 2: 3})


def test_gain_callable_malformed():
    with pytest.raises(ValueError, match=r"gain callable must return an array of the shape"):
        skr.dcg_score(Y, S, gain=lambda r: 1.0)
    with pytest.raises(ValueError, match=r"gain callable returned NaN or infinite gains"):
        skr.dcg_score(Y, S, gain=lambda r: np.where(r > 1, np.nan, r))
    with pytest.raises(TypeError, match=r"dcg_score: gain=5 is not accepted .* Accepted: "
                                        r"'linear', 'exponential', a mapping or a callable"):
        skr.dcg_score(Y, S, gain=5)


# --- k -------------------------------------------------------------------------------------

def test_numpy_integer_k_is_accepted():
    assert skr.ndcg_score(Y, S, k=np.int64(2)) == skr.ndcg_score(Y, S, k=2)


def test_r_precision_takes_no_k():
    with pytest.raises(TypeError, match=r"r_precision_score\(\): got an unexpected keyword "
                                        r"argument 'k'"):
        skr.r_precision_score(Y, S, k=2)


# --- sample_weight ----------------------------------------------------------------------


@pytest.mark.parametrize("name", METRIC_NAMES)
def test_sample_weight_wrong_length(name):
    with pytest.raises(
        ValueError,
        match=r"sample_weight must be 1-D with one weight per row.* \(2\), got shape \(3,\)",
    ):
        _call(name, Y, S, sample_weight=[1, 2, 3])
    with pytest.raises(ValueError, match=r"got shape \(1, 2\)"):
        _call(name, Y, S, sample_weight=[[1, 2]])


@pytest.mark.parametrize("name", METRIC_NAMES)
def test_sample_weight_negative_or_nan(name):
    with pytest.raises(ValueError, match=r"sample_weight must be non-negative"):
        _call(name, Y, S, sample_weight=[1, -2])
    with pytest.raises(ValueError, match=r"sample_weight contains NaN or infinity"):
        _call(name, Y, S, sample_weight=[1, np.nan])
    with pytest.raises(ValueError, match=r"sample_weight contains NaN or infinity"):
        _call(name, Y, S, sample_weight=[1, np.inf])


def test_sample_weight_all_zero_or_not_numbers():
    with pytest.raises(ValueError, match=r"sample_weight sums to zero"):
        skr.ndcg_score(Y, S, sample_weight=[0, 0])
    with pytest.raises(TypeError, match=r"sample_weight must hold numbers"):
        skr.ndcg_score(Y, S, sample_weight=["a", "b"])


def test_bad_discounts():
    with pytest.raises(ValueError, match=r"dcg_score: the discount array has 2 positions but "
                                         r"the ranking needs 3"):
        skr.dcg_score(Y, S, discount=[1, 0.5])
    with pytest.raises(TypeError, match=r"discount=.* is not accepted"):
        skr.dcg_score(Y, S, discount="foo")
    with pytest.raises(TypeError, match=r"discount must be 'log', 'jarvelin', a non-empty 1-D"):
        skr.dcg_score(Y, S, discount=[[1, 0.5, 0.2]])
    with pytest.raises(TypeError, match=r"the discount array must give one finite value"):
        skr.dcg_score(Y, S, discount=[1, np.nan, 0.2])
    with pytest.raises(
        ValueError,
        match=r"the discount callable must give one finite value per position \(3\)",
    ):
        skr.dcg_score(Y, S, discount=lambda p: 1.0)
    with pytest.raises(ValueError, match=r"the discount callable is negative at position 3 \(-1\)"):
        skr.dcg_score(Y, S, discount=lambda p: 2.0 - p)


# --- evaluate --------------------------------------------------------------------------------


def test_unknown_metric_name_suggests_close_matches():
    with pytest.raises(ValueError, match=r"unknown metric 'ndgc'. Did you mean 'ndcg'"):
        skr.evaluate(Y, S, ["ndgc@10"])
    with pytest.raises(ValueError, match=r"unknown metric 'mapp'. Did you mean 'map'"):
        skr.evaluate(Y, S, ["ndcg@3", "mapp@3"])
    with pytest.raises(ValueError, match=r"^unknown metric 'xyzzy'. sk_rankmetrics."
                       r"metric_names\(\) lists every name \(add '@k' for a cut-off"):
        skr.evaluate(Y, S, "xyzzy")
    # No far-fetched guess and no list of every name (issue 25: "coverage", a
    # measure since, got "eleven_point_average" and 70 names).
    with pytest.raises(ValueError) as caught:
        skr.evaluate(Y, S, ["diversity@10"])
    message = str(caught.value)
    assert message.startswith("unknown metric 'diversity'. sk_rankmetrics.metric_names()")
    assert "Did you mean" not in message and "num_nonrel_judged_ret" not in message
    with pytest.raises(ValueError, match=r"'mmr'. Did you mean 'mrr'\?"):
        skr.evaluate(Y, S, "mmr")


def test_bad_metric_requests():
    with pytest.raises(ValueError, match=r"metrics is empty"):
        skr.evaluate(Y, S, [])
    with pytest.raises(ValueError, match=r"metric 'r_precision' takes no cut-off"):
        skr.evaluate(Y, S, ["r_precision@3"])
    with pytest.raises(ValueError, match=r"the cut-off in 'ndcg@0' must be a positive integer"):
        skr.evaluate(Y, S, ["ndcg@0"])
    with pytest.raises(ValueError, match=r"cut-off in 'ndcg@2.5' must be a positive integer"):
        skr.evaluate(Y, S, ["ndcg@2.5"])
    with pytest.raises(
        TypeError,
        match=r"metrics must be names such as 'ndcg@10' or \(name, options\) pairs, got 5",
    ):
        skr.evaluate(Y, S, [5])
    with pytest.raises(TypeError, match=r"metrics must be a name .* got NoneType"):
        skr.evaluate(Y, S, None)
    with pytest.raises(
        TypeError,
        match=r"evaluate: 'map@3' does not read the option\(s\) gain; map reads threshold, "
              r"denominator",
    ):
        skr.evaluate(Y, S, [("map@3", {"gain": "linear"})])
    with pytest.raises(TypeError, match=r"evaluate: threshold='2' is not accepted"):
        skr.evaluate(Y, S, [("map@3", {"threshold": "2"})])


def test_metric_named_twice_in_evaluate():
    with pytest.raises(ValueError, match=r"evaluate: metrics names a metric twice: "
                                         r"\['map@3', 'map@3'\]; results are keyed by name"):
        skr.evaluate(Y, S, ["map@3", ("map@3", {"denominator": "relevant"})])
    # Aliases give distinct names.
    out = skr.evaluate(Y, S, ["map@3", ("ap@3", {"denominator": "relevant"})])
    assert set(out) == {"map@3", "ap@3"}
