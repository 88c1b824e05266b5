"""float64 scores rounded to a few decimals, ranked by one sort of short integer
keys (``levels._by_decimal_key``): each score is ``k / 10**d`` for a whole
``k``, so the keys tie exactly where the scores do. Checked against the
argsort route (``rank_by_levels`` turned off), row by row, on every measure
of the full-depth family and some with a cut-off; and the scores that are
not so rounded (an ulp off, a span too wide, a value not finite) are left to
the other routes."""

from __future__ import annotations

from unittest import mock

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import sk_rankmetrics as skr
from sk_rankmetrics._metrics.requests import make_requests
from sk_rankmetrics._ranking import block, levels
from sk_rankmetrics._ranking.item_values import BlockValues

SETTINGS = settings(max_examples=60, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow])

METRICS = ["ndcg", "dcg", "map", "bpref", "rbp", "mrr", "r_precision", "ndcg_rel",
           "rndcg", ("err", {"max_grade": 4}), "ndcg@5", "map@10"]


def _spied(y, s, metrics):
    """evaluate's per-row values, and what each ``_by_decimal_key`` call gave."""
    made, real = [], levels._by_decimal_key

    def spy(*a, **k):
        out = real(*a, **k)
        made.append(out is not None)
        return out

    with mock.patch.object(levels, "_by_decimal_key", spy):
        got = skr.evaluate(y, s, metrics, per_row=True, no_relevant=0.0)
    return got, made


def _argsort(y, s, metrics):
    with mock.patch.object(block, "rank_by_levels", lambda *a: None):
        return skr.evaluate(y, s, metrics, per_row=True, no_relevant=0.0)


def _same(got, want):
    for key in want:
        np.testing.assert_allclose(got[key], want[key], rtol=1e-12, atol=1e-13, err_msg=key)


@SETTINGS
@given(data=st.data(), d=st.integers(0, 4),
       where=st.sampled_from([(0.0, 1.0), (-1.0, 2.0), (1000.0, 5.0), (-50.0, 0.5)]))
def test_rounded_scores_equal_the_argsort_route(data, d, where):
    rng = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1)))
    n, N = data.draw(st.integers(1, 40)), data.draw(st.integers(2, 120))
    lo, width = where
    s = np.round(lo + width * rng.random((n, N)), d)
    if data.draw(st.booleans()):
        s[rng.random((n, N)) < 0.1] = -0.0  # ties with 0.0
    y = rng.integers(0, 5, (n, N)).astype(data.draw(st.sampled_from(["int8", "int64"])))
    if data.draw(st.booleans()):
        y[rng.random((n, N)) < 0.8] = 0  # sparse relevance
    if data.draw(st.booleans()):
        s = np.asfortranarray(s)  # (a transposed matrix, say)
    got, made = _spied(y, s, METRICS)
    _same(got, _argsort(y, s, METRICS))
    # Most rows tie (the first rows' scores rounded to float32 tie), the
    # relevance takes a few levels and no relevant items' route was taken:
    # the decimal key was tried, and it fits whenever its span does.
    if made:
        span = (round(s.max() * 10**d) - round(s.min() * 10**d) + 1) * 8
        assert made[0] == (span <= 2**32), (made, span)


def test_a_short_and_a_wide_key():
    # Three decimals on [0, 1): 1,001 values of 3 bits of levels, a 16-bit
    # key; four decimals on [0, 10): 100,001 values, a 32-bit key.
    rng = np.random.default_rng(3)
    y = rng.integers(0, 5, (300, 100)).astype(np.int8)
    for scale, d, dtype in ((1.0, 3, np.uint16), (10.0, 4, np.uint32)):
        s = np.round(scale * rng.random((300, 100)), d)
        s[:, 1] = s[:, 0]  # a tie in every row
        keys, real = [], levels._tied_pairs

        def spy(high, *a, keys=keys, real=real, **k):
            keys.append(high.dtype)
            return real(high, *a, **k)

        with mock.patch.object(levels, "_tied_pairs", spy):
            got, made = _spied(y, s, METRICS)
        assert made and all(made)
        assert set(keys) == {np.dtype(dtype)}
        _same(got, _argsort(y, s, METRICS))


@pytest.mark.parametrize("case", ["ulp", "wide", "nan", "inf"])
def test_scores_not_so_rounded_take_another_key(case):
    rng = np.random.default_rng(5)
    s = np.round(rng.random((200, 100)), 3)
    y = rng.integers(0, 4, s.shape).astype(np.int8)
    values = BlockValues(y, make_requests(["ndcg"]))
    fit = levels.padded_level_codes(values, False)
    if case == "ulp":  # one score an ulp off its grid: kept apart from its twin
        s[7, 5] = np.nextafter(s[7, 4], 2.0)
    elif case == "wide":  # eight decimals on [0, 100): 1e10 values, no 32-bit key
        s = np.round(100 * rng.random((200, 100)), 8)
        s[:, 1] = s[:, 0]
    else:
        s[9, 3] = np.nan if case == "nan" else np.inf
    assert levels._by_decimal_key(s, values, fit, None) is None
    if case in ("nan", "inf"):
        with pytest.raises(ValueError, match=r"y_score.*row 9"):
            skr.evaluate(y, s, ["ndcg"])
        return
    got = skr.evaluate(y, s, METRICS, per_row=True, no_relevant=0.0)
    _same(got, _argsort(y, s, METRICS))


def test_ties_of_one_level_in_a_few_rows_are_refused_as_ties():
    # A few rows tie, each between two items of relevance 0 (one code): read
    # as untied, and a measure that refuses ties still refuses the block.
    rng = np.random.default_rng(6)
    s = rng.permutation(60 * 50).reshape(60, 50) / 1000.0  # three decimals, distinct
    y = np.zeros((60, 50), dtype=np.int8)
    y[:, :5] = rng.integers(1, 4, (60, 5))
    for r in (3, 17, 40):
        s[r, 9] = s[r, 8]  # two items of relevance 0
    values = BlockValues(y, make_requests(["ndcg"]))
    rc = levels._by_decimal_key(s, values, levels.padded_level_codes(values, False), None)
    assert rc is not None and rc.equal_ties and not rc.real_ties
    _same(skr.evaluate(y, s, METRICS, per_row=True, no_relevant=0.0),
          _argsort(y, s, METRICS))
    with pytest.raises(ValueError, match="tie"):
        skr.evaluate(y, s, ["compat"])


def _reference(y, s, metrics, **kw):
    """The float scores ranked by argsort: neither read as integers nor keyed."""
    with mock.patch.object(block, "decimal_integers", lambda *a: None), \
            mock.patch.object(block, "rank_by_levels", lambda *a: None):
        return skr.evaluate(y, s, metrics, per_row=True, no_relevant=0.0, **kw)


@SETTINGS
@given(data=st.data(), d=st.integers(0, 2), shift=st.sampled_from([0.0, -3.0, 1e6]))
def test_whole_and_decimal_scores_in_a_small_span_read_as_integers(data, d, shift):
    # Float scores that stand for integers in a span of at most a row's
    # length (ratings as floats, scores of a decimal or two) are ranked as
    # those integers (counted, not sorted): the same numbers as the argsort
    # of the floats, with and without a cut-off, a judged mask, -0.0.
    rng = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1)))
    n, N = data.draw(st.integers(1, 40)), data.draw(st.integers(12, 120))
    values = data.draw(st.integers(1, N))  # k spans at most N values
    s = np.round(shift + rng.integers(0, values, (n, N)) / 10.0**d, d)
    if shift == 0.0 and data.draw(st.booleans()):
        s[rng.random((n, N)) < 0.1] = -0.0
    y = rng.integers(0, 4, (n, N)).astype(np.int8)
    if data.draw(st.booleans()):
        y[rng.random((n, N)) < 0.8] = 0
    kw = {}
    if data.draw(st.booleans()):
        kw["judged"] = (rng.random((n, N)) < 0.8) | (y > 0)
    metrics = [*METRICS, "P@3", ("err@4", {"max_grade": 4})]
    made, real = [], levels.decimal_integers

    def spy(*a):
        out = real(*a)
        made.append(out)
        return out

    with mock.patch.object(block, "decimal_integers", spy):
        got = skr.evaluate(y, s, metrics, per_row=True, no_relevant=0.0, **kw)
    _same(got, _reference(y, s, metrics, **kw))
    # Read as integers unless the relevant items' route took the block first.
    assert all(m is not None and m.dtype == np.int32 for m in made)


@pytest.mark.parametrize("case", ["wide", "inf", "ignore_ties", "off"])
def test_scores_not_read_as_integers(case):
    rng = np.random.default_rng(8)
    s = np.floor(rng.random((300, 50)) * 10)  # whole numbers 0..9
    y = rng.integers(0, 4, s.shape).astype(np.int8)
    if case == "wide":  # 51 values in rows of 50
        s[:, 0] = 50.0
    elif case == "inf":
        s[7, 3] = np.inf
    elif case == "off":
        s[4, 4] += 1e-9
    if case == "inf":
        assert levels.decimal_integers(s, 50) is None
        with pytest.raises(ValueError, match=r"y_score.*row 7"):
            skr.evaluate(y, s, ["ndcg"])
        return
    kw = {"ignore_ties": True} if case == "ignore_ties" else {}
    if case != "ignore_ties":
        assert levels.decimal_integers(s, 50) is None
    with mock.patch.object(block, "decimal_integers",
                           mock.Mock(side_effect=levels.decimal_integers)) as spy:
        got = skr.evaluate(y, s, METRICS[:-1], per_row=True, no_relevant=0.0, **kw)
    if case == "ignore_ties":  # one order of the ties, by column: the floats' own
        spy.assert_not_called()
    _same(got, _reference(y, s, METRICS[:-1], **kw))


@SETTINGS
@given(data=st.data(), d=st.integers(0, 3), piece=st.sampled_from([1, 7, 64, 1 << 15]),
       order=st.sampled_from(["C", "F"]), dtype=st.sampled_from(["int32", "uint16", "uint32"]))
def test_the_round_trip_in_pieces_is_the_whole_blocks(data, d, piece, order, dtype):
    # levels._round_trips reads a piece of the scores at a time (rows at a
    # time for a view of other strides): its answer and the whole numbers it
    # writes are the one-line check's over the whole block, wherever the
    # score off its grid lies (a first, a middle or a last, short piece).
    rng = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1)))
    n, N = data.draw(st.integers(1, 30)), data.draw(st.integers(1, 40))
    s = np.round(rng.random((n, N)) * 60.0, d)
    if data.draw(st.booleans()):
        at = data.draw(st.integers(0, n * N - 1))
        s.reshape(-1)[at] = np.nextafter(s.reshape(-1)[at], np.inf)
    s = np.asarray(s, order=order)
    scale = 10.0**d
    whole = np.rint(s * scale)
    hi = float(whole.max())
    reverse = dtype != "int32"
    k = np.empty(s.shape, dtype=dtype)
    with mock.patch.object(levels, "_TRIP_PIECE", piece):
        got = levels._round_trips(s, scale, k, hi if reverse else None)
    assert got == np.array_equal(whole / scale if d else whole, s)
    if got:
        np.testing.assert_array_equal(k, hi - whole if reverse else whole)
