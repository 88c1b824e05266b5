"""Whole rows ranked by one sort of scores carrying their levels
(``_ranking/levels.py``) against the same rows ranked by ``np.argsort`` and
gathered (the route turned off): every full-depth measure, on float64 and
float32 scores with ties, ``-0.0`` beside ``0.0``, neighbours one unit in the
last place apart, the extreme finite values and subnormals, and levels of
every kind (integers, bool, whole floats, shifted, up to 256 of them)."""

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
from sk_rankmetrics._ranking.levels import rank_by_levels
from sk_rankmetrics._utils.arrays import ScoreCheck

SETTINGS = settings(max_examples=120, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow])

FULL = ["ndcg", "dcg", "map", "bpref", "rbp", "r_precision", "mrr", "infap",
        ("cumulative_gain", {"gain": "exponential"}),
        ("rank_biased_precision", {"graded": True, "p": 0.5})]
EXTREMES = {np.float64: [1.7e308, -1.7e308, 2.2e-308, 5e-324, -5e-324, 0.0, -0.0],
            np.float32: [3.4e38, -3.4e38, 1.2e-38, 1e-45, -1e-45, 0.0, -0.0]}


def _without_route(y_true, y_score, metrics):
    with mock.patch.object(block, "rank_by_levels", lambda *a: None):
        return skr.evaluate(y_true, y_score, metrics, per_row=True, no_relevant=0.0)


#: The relevance kinds: integer dtypes, bool, whole floats, levels shifted to
#: 3..3 + top (the codes are the levels less 3), and the largest levels of int64
#: and uint64 (the levels' values derived in their own type).
KINDS = ["int8", "int64", "uint64", "uint8", "bool", "float", "shifted", "int64 top",
         "uint64 top", "negative"]


def _relevance(data, rng, n, N, kinds=KINDS):
    """``(kind, top, y, metrics)``: relevance of one kind, its largest grade,
    and the full-depth measures it can take (ERR for grades from 0 only,
    the exponential gain not for the largest levels of a type)."""
    top = data.draw(st.sampled_from([1, 4, 9]))
    kind = data.draw(st.sampled_from(kinds))
    y = rng.integers(0, top + 1, (n, N)) * (rng.random((n, N)) < data.draw(
        st.sampled_from([0.1, 0.3, 1.0])))
    if kind == "bool":
        y = y > 0
    elif kind == "float":
        y = y.astype(np.float64)
    elif kind == "shifted":
        y = (y + 3).astype(np.int16)
    elif kind == "negative":  # one byte from -128: codes less the smallest modulo 256
        y = (y * (255 // top) - 128).astype(np.int64)
    elif kind.endswith(" top"):
        dtype = kind.split()[0]
        y = np.iinfo(dtype).max - y.astype(dtype)
    else:
        y = y.astype(kind)
    metrics = FULL + ([("err", {"max_grade": top})] if kind in (
        "int8", "int64", "uint64", "uint8", "bool", "float") else [])
    if kind.endswith(" top"):
        metrics = [m for m in metrics if not isinstance(m, tuple)]
    if kind == "negative":  # no normalised measure takes a negative level
        metrics = ["dcg", "map", "bpref", "rbp", "r_precision", "mrr"]
    return kind, top, y, metrics


def _scores(data, rng, dtype, n, N):
    kind = data.draw(st.sampled_from(["whole", "rounded", "normal"]))
    if kind == "whole":  # whole numbers: no bit below the level's
        return rng.integers(-5, 6, (n, N)).astype(dtype) * data.draw(
            st.sampled_from([1, 2**20, 2.0**-30]))
    if kind == "rounded":  # on a decimal grid (ties in every row), or an ulp off it
        scale = data.draw(st.sampled_from([1.0, -1.0, 1e3, 1e-3, 1e8, 1e15]))
        d = data.draw(st.integers(0, 9))
        s = np.round(rng.standard_normal((n, N)) * scale, d).astype(dtype)
        if data.draw(st.booleans()):
            r, c = rng.integers(n), rng.integers(N)
            s[r, c] = np.nextafter(s[r, c], np.inf, dtype=dtype)
        return s
    s = rng.standard_normal((n, N)).astype(dtype)
    rows = rng.random(n)
    for r in np.flatnonzero(rows < 0.3):  # a tie of 2..N items
        cols = rng.choice(N, size=rng.integers(1, N + 1), replace=False)
        s[r, cols] = s[r, cols[0]]
    for r in np.flatnonzero((rows >= 0.3) & (rows < 0.5)):  # one ulp apart
        cols = rng.choice(N, size=rng.integers(1, N + 1), replace=False)
        s[r, cols] = np.nextafter(s[r, cols[0]], np.inf, dtype=dtype) * np.ones(1, dtype)
        s[r, cols[0]] = np.nextafter(s[r, cols[1 % len(cols)]], -np.inf, dtype=dtype)
    for r in np.flatnonzero((rows >= 0.5) & (rows < 0.65)):
        s[r, rng.integers(N)] = data.draw(st.sampled_from(EXTREMES[dtype]))
        s[r, rng.integers(N)] = data.draw(st.sampled_from(EXTREMES[dtype]))
    return s


@SETTINGS
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@given(data=st.data())
def test_levels_route_equals_the_argsort_route(dtype, data):
    rng = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1)))
    n, N = data.draw(st.integers(1, 30)), data.draw(st.integers(2, 40))
    _, _, y, metrics = _relevance(data, rng, n, N)
    y_score = _scores(data, rng, dtype, n, N)
    got = skr.evaluate(y, y_score, metrics, per_row=True, no_relevant=0.0)
    want = _without_route(y, y_score, metrics)
    for key in want:
        np.testing.assert_allclose(np.asarray(got[key]), np.asarray(want[key]),
                                   rtol=1e-12, atol=1e-15, err_msg=str(key))


def _values(y_true, metrics=("ndcg",)):
    return BlockValues(np.asarray(y_true), make_requests(list(metrics)))


@pytest.mark.parametrize("dtype, lo, hi, small", [
    ("int64", 0, 4, True), ("int64", -128, 127, True), ("uint16", 0, 127, True),
    ("int8", -3, 9, True), ("int64", 0, 128, False), ("int64", -129, 0, False),
    ("uint8", 0, 200, False), ("float64", 0, 4, True), ("bool", 0, 1, False)])
def test_levels_in_one_byte_where_they_fit(dtype, lo, hi, small):
    """The block's levels as int8 (made once, shared by the level codes and
    the ideal's counts) exactly when every level fits in -128..127: the same
    values and extremes; otherwise the relevance as it is. Floats only once
    known whole (here, by the level codes)."""
    from sk_rankmetrics._ranking.item_values import level_codes

    rng = np.random.default_rng(2)
    y = rng.integers(lo, hi + 1, (30, 40))
    y[0, :2] = lo, hi
    y = y.astype(dtype)
    values = _values(y, ["dcg"])
    if dtype == "float64":
        level_codes(values)  # finds the floats whole
    got, ex = values.one_byte()
    assert (got.dtype == np.int8) == small
    assert got is values.one_byte()[0]  # made once
    np.testing.assert_array_equal(got, y)
    assert (ex.min(), ex.max()) == (y.min(), y.max())
    if small:
        assert ex.a is got and ex.integral
    floats = _values(y.astype(np.float64), ["dcg"])
    assert floats.one_byte()[0].dtype == np.float64  # not yet known whole


def test_route_taken_and_refused():
    rng = np.random.default_rng(0)
    s = rng.random((5, 50))
    y = rng.integers(0, 5, (5, 50))
    assert rank_by_levels(s, _values(y)) is not None
    assert rank_by_levels(s.astype(np.float32), _values(y)) is not None
    assert rank_by_levels(s, _values(y * 0.5 + 0.25)) is None  # levels not whole
    many = np.tile(np.arange(256), (5, 1))  # 256 levels: the low byte whole
    assert rank_by_levels(rng.random((5, 256)), _values(many, ["dcg"])) is not None
    wide = np.tile(np.arange(50) * 6, (5, 1))  # 295 levels
    assert rank_by_levels(s, _values(wide)) is None
    assert rank_by_levels((s * 100).astype(np.int64), _values(y)) is None  # by counts


def test_span_of_256_levels_against_argsort():
    rng = np.random.default_rng(1)
    s = rng.random((20, 300))
    y = rng.integers(0, 256, (20, 300))
    assert rank_by_levels(s, _values(y)) is not None
    got = skr.evaluate(y, s, ["dcg", "ndcg", "rbp"], per_row=True)
    want = _without_route(y, s, ["dcg", "ndcg", "rbp"])
    for key in want:
        np.testing.assert_allclose(got[key], want[key], rtol=1e-12)


def test_negative_zero_ties_with_zero():
    # -0.0 and 0.0 tie: the expected nDCG of the tied pair, not one order.
    y = np.array([[0, 3, 1]])
    s = np.array([[-0.0, 0.0, -1.0]])
    got = skr.evaluate(y, s, ["dcg"], per_row=True)["dcg"][0]
    assert got == pytest.approx((3 / 1 + 3 / np.log2(3)) / 2 + 1 / 2)


def test_fortran_ordered_scores():
    rng = np.random.default_rng(2)
    s = np.asfortranarray(rng.random((7, 30)))
    y = rng.integers(0, 4, (7, 30))
    for scores in (s, s.astype(np.float32)):
        got = skr.evaluate(y, scores, ["ndcg", "map"], per_row=True)
        want = _without_route(y, np.ascontiguousarray(scores), ["ndcg", "map"])
        for key in want:
            np.testing.assert_allclose(got[key], want[key], rtol=1e-12)


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_infinite_scores_are_named_and_extreme_finite_ones_ranked(dtype):
    # Scores reach the route checked, or with their check, made from the
    # sorted keys' ends: a level in the low bits leaves the exponent as it is,
    # so an infinity or a NaN stays one and sorts to an end, where the check
    # names it; the extreme finite values are ranked as the argsort ranks them.
    big = np.finfo(dtype).max
    rng = np.random.default_rng(4)
    s = rng.random((20, 6)).astype(dtype)  # the rows that look tied are few: ranked again
    s[:2] = [[big, -big, 0.0, 1.0, 2.0, 3.0],
             [-big, 3.0, big, -0.0, 0.5, 0.25]]
    y = rng.integers(0, 5, (20, 6))
    values = _values(y, ["dcg"])
    rc = rank_by_levels(s, values, ScoreCheck(s, "y_score"))
    order = np.argsort(-s, axis=1, kind="stable")
    np.testing.assert_array_equal(np.asarray(rc.sums["gain:linear"]),
                                  np.take_along_axis(y, order, axis=1))
    for bad in (np.inf, -np.inf, np.nan):
        worse = s.copy()
        worse[1, 2] = bad
        with pytest.raises(ValueError, match=r"y_score contains NaN or infinity \(first at "
                                             r"row 1, column 2\)"):
            rank_by_levels(worse, _values(y, ["dcg"]), ScoreCheck(worse, "y_score"))


def test_ties_in_many_rows_of_float64_take_the_argsort_route_off_a_decimal_grid():
    rng = np.random.default_rng(5)
    y = rng.integers(0, 5, (40, 200))
    rounded = np.round(rng.random((40, 200)), 2)  # 0.01 steps: every row ties
    rc = rank_by_levels(rounded, _values(y))  # on a decimal grid: exact ties in the key
    assert rc is not None and rc.real_ties
    scaled = rounded * np.pi  # the same ties, on no decimal grid: the argsort's route
    assert rank_by_levels(scaled, _values(y)) is None
    whole = np.floor(rng.random((40, 200)) * 50)  # whole numbers: exact ties, no re-rank
    rc = rank_by_levels(whole, _values(y))
    assert rc is not None and rc.real_ties
    for s in (rounded, scaled, whole):
        got = skr.evaluate(y, s, ["ndcg", "map", "bpref"], per_row=True)
        want = _without_route(y, s, ["ndcg", "map", "bpref"])
        for key in want:
            np.testing.assert_allclose(got[key], want[key], rtol=1e-12)


def _key_widths(s, y):
    """The key widths (bytes) :func:`rank_by_levels` tried on ``s``, in order
    ("offset": the exact 32-bit key, when it ranked them), and its chunk."""
    tried = []
    real, real_offset = levels._by_key, levels._by_offset_key

    def spy(y_score, values, fit, check, key, n_items=None):
        tried.append(key.width)
        return real(y_score, values, fit, check, key, n_items)

    def spy_offset(y_score, values, fit, check, n_items=None):
        rc = real_offset(y_score, values, fit, check, n_items)
        if rc is not None:
            tried.append("offset")
        return rc

    with (mock.patch.object(levels, "_by_key", spy),
          mock.patch.object(levels, "_by_offset_key", spy_offset)):
        rc = rank_by_levels(s, _values(y, ["dcg"]))
    return tried, rc


def test_float32_in_short_rows_keyed_in_32_bits():
    # Rows of 100 with 5 levels: 32-bit keys, a few rows re-ranked where
    # neighbours look tied (true ties, and pairs agreeing above the level's
    # bits); rows of 1,000 take the exact 32-bit key (their span leaves room
    # for the level's bits), and 2**8 levels in rows of 40 widen to float64.
    rng = np.random.default_rng(7)
    y = rng.integers(0, 5, (3000, 100)).astype(np.int8)
    s = rng.random((3000, 100)).astype(np.float32)
    s[5, :3] = s[5, 3]  # a true tie
    assert _key_widths(s, y)[0] == [4]
    metrics = ["ndcg", "map", "bpref", ("err", {"max_grade": 4})]
    got = skr.evaluate(y, s, metrics, per_row=True)
    want = _without_route(y, s, metrics)
    for key in want:
        np.testing.assert_allclose(got[key], want[key], rtol=1e-12, err_msg=str(key))
    assert _key_widths(rng.random((20, 1000)).astype(np.float32),
                       rng.integers(0, 5, (20, 1000)))[0] == ["offset"]
    assert _key_widths(rng.random((20, 40)).astype(np.float32),
                       rng.integers(0, 256, (20, 40)))[0] == [8]
    # float64 scores, rounded to float32 in the exact key (no row ties there).
    assert _key_widths(rng.random((20, 100)), rng.integers(0, 5, (20, 100)))[0] == ["offset"]


@pytest.mark.parametrize("spread", [1e-4, 0.0])
def test_float32_that_look_tied_in_many_rows_widen_to_float64(spread):
    # Scores within 1e-4 of 1 share their bits above the level's in most
    # rows (float32 steps of 2**-23 there): the 32-bit key gives way to the
    # exact 32-bit key (offsets from the block's smallest), after the block's
    # whole pass when its first rows gave no sign of it (uniform there), at
    # once when they did; whole numbers (spread 0: every row ties) keep
    # every bit in 32.
    rng = np.random.default_rng(8)
    y = rng.integers(0, 5, (200, 100)).astype(np.int8)
    if spread:
        s = (1.0 + rng.random((200, 100)) * spread).astype(np.float32)
    else:
        s = rng.integers(0, 20, (200, 100)).astype(np.float32)
    probe_passes = s.copy()
    probe_passes[:levels._PROBE_ROWS] = rng.random((levels._PROBE_ROWS, 100))
    # (Whole numbers below uniform first rows: the block is not exact in 32.)
    # (Whole numbers 0..19 with a 0 span 2**30 keys: no room for 3 bits.)
    for scores, want_tried in [(probe_passes, [4, "offset" if spread else 8]),
                               (s, ["offset"] if spread else [4])]:
        tried, rc = _key_widths(scores, y)
        assert tried == want_tried and rc is not None
        got = skr.evaluate(y, scores, ["ndcg", "map", "rbp"], per_row=True)
        want = _without_route(y, scores, ["ndcg", "map", "rbp"])
        for key in want:
            np.testing.assert_allclose(got[key], want[key], rtol=1e-12)


def test_probabilities_near_one_go_to_the_exact_key_at_once():
    # Model outputs bunched near 1 (a sigmoid of scores around 6): most rows
    # of 100 look tied in 32-bit keys, which their first rows tell; their
    # span leaves room for the levels in the exact 32-bit key.
    rng = np.random.default_rng(10)
    s = (1 / (1 + np.exp(-(rng.standard_normal((300, 100)) + 6)))).astype(np.float32)
    y = rng.integers(0, 5, (300, 100)).astype(np.int8)
    assert not levels._few_look_tied(s[:levels._PROBE_ROWS], 3)
    assert levels._few_look_tied(rng.random((64, 100)).astype(np.float32), 3)
    tried, rc = _key_widths(s, y)
    assert tried == ["offset"] and rc is not None
    got = skr.evaluate(y, s, ["ndcg", "map", "bpref"], per_row=True)
    want = _without_route(y, s, ["ndcg", "map", "bpref"])
    for key in want:
        np.testing.assert_allclose(got[key], want[key], rtol=1e-12)


def test_infinite_float32_scores_in_32_bit_keys():
    big = np.finfo(np.float32).max
    rng = np.random.default_rng(9)
    s = rng.random((20, 6)).astype(np.float32)
    s[:2] = [[np.inf, big, -big, -np.inf, 0.0, 1.0],
             [-np.inf, -big, 3.0, big, np.inf, -0.0]]
    y = rng.integers(0, 5, (20, 6))
    tried, rc = _key_widths(s, y)
    assert tried == [4]
    order = np.argsort(-s, axis=1, kind="stable")
    np.testing.assert_array_equal(np.asarray(rc.sums["gain:linear"]),
                                  np.take_along_axis(y, order, axis=1))


def test_few_tied_rows_come_as_two_parts_equal_to_the_argsort_chunk():
    # float32 scores tying in a few rows: the untied and the tied rows are two
    # chunks from the start (no copies of a split); the whole chunk's
    # statistics, put together from them on first read, and each part's are
    # those of the chunk ranked by argsort.
    from sk_rankmetrics._ranking.chunk import rank_chunk

    rng = np.random.default_rng(6)
    s = rng.random((40, 60)).astype(np.float32)
    tied = [3, 17, 31]
    for r in tied:
        s[r, rng.choice(60, 5, replace=False)] = s[r, 0]
    y = rng.integers(0, 5, (40, 60)).astype(np.int8)
    metrics = ["ndcg", "map", ("err", {"max_grade": 4})]
    rc = rank_by_levels(s, _values(y, metrics))
    want = rank_chunk(s, _values(y, metrics), 60)
    assert rc._parts is not None and rc.real_ties
    np.testing.assert_array_equal(rc.tied_rows, tied)
    parts = rc.split_by_ties()
    assert [rows.tolist() for rows, _ in parts] == [
        sorted(set(range(40)) - set(tied)), tied]
    assert not parts[0][1].tied and parts[1][1].tied and parts[1][1].groups is not None
    for rows, part in parts:
        np.testing.assert_array_equal(part.start, want.start[rows])
        np.testing.assert_array_equal(part.size, want.size[rows])
    np.testing.assert_array_equal(rc.start, want.start)
    np.testing.assert_array_equal(rc.size, want.size)
    assert set(rc.sums) == set(want.sums)
    for key in want.sums:
        np.testing.assert_allclose(rc.sums[key], want.sums[key], rtol=1e-15, err_msg=key)
        for rows, part in parts:
            np.testing.assert_allclose(part.sums[key], want.sums[key][rows], rtol=1e-15)
    got = skr.evaluate(y, s, metrics, per_row=True)
    off = _without_route(y, s, metrics)
    for key in off:
        np.testing.assert_allclose(got[key], off[key], rtol=1e-12)


@SETTINGS
@given(data=st.data())
def test_group_sums_by_level_counts_equal_the_weighted_sums(data):
    # Whole rows of integer scores are ranked by counting each score
    # (chunk._whole_rows_by_counts); each item value's group sums come from
    # counts of each (group, level) times the level's value, against one
    # weighted sum per value over the block (level_codes turned off).
    from sk_rankmetrics._ranking import chunk

    # With exclude, each row's padding is its last group, one score below
    # every real one (padding.counted_padding), coded as level 0 or apart;
    # also against float64 scores, whose padding holds -inf.
    rng = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1)))
    n, N = data.draw(st.integers(1, 25)), data.draw(st.integers(2, 60))
    _, _, y, metrics = _relevance(data, rng, n, N)
    s = rng.integers(0, data.draw(st.sampled_from([2, 5, 20])), (n, N))
    kw = {}
    if data.draw(st.booleans()):
        kw["exclude"] = (rng.random((n, N)) < data.draw(st.sampled_from([0.1, 0.5, 1.0]))) & (
            np.asarray(y) == 0)
    got = skr.evaluate(y, s, metrics, per_row=True, no_relevant=0.0, **kw)
    with mock.patch.object(chunk, "padded_level_codes", lambda *a: None):
        want = skr.evaluate(y, s, metrics, per_row=True, no_relevant=0.0, **kw)
    as_float = skr.evaluate(y, s.astype(np.float64), metrics, per_row=True, no_relevant=0.0,
                            **kw)
    for key in want:
        np.testing.assert_allclose(np.asarray(got[key]), np.asarray(want[key]),
                                   rtol=1e-12, atol=1e-15, err_msg=str(key))
        np.testing.assert_allclose(np.asarray(got[key]), np.asarray(as_float[key]),
                                   rtol=1e-12, atol=1e-15, err_msg=str(key))


def test_group_sums_by_level_counts_are_taken():
    from sk_rankmetrics._ranking import chunk

    calls = []
    real = chunk.level_values

    def spy(*a):
        calls.append(a[1:])
        return real(*a)

    rng = np.random.default_rng(8)
    y = rng.integers(0, 5, (30, 100)).astype(np.int8)
    s = rng.integers(0, 10, (30, 100))
    with mock.patch.object(chunk, "level_values", spy):
        skr.evaluate(y, s, ["ndcg", ("err", {"max_grade": 4})])
    assert calls and all(c[:2] == (0, 5) for c in calls)


@pytest.mark.parametrize("lo", [0, 3, -128])
@pytest.mark.parametrize("metrics", [
    ["dcg"], [("dcg", {"gain": "exponential"})], ["map", "bpref"],
    [("err", {"max_grade": 4})], [("dcg", {"gain": {0: 0.0, 1: 2.5, 2: 2.5, 3: 7.0, 4: 9.0}})],
    [("precision", {"threshold": 3})]])
def test_level_values_from_codes_equal_derived(lo, metrics):
    """Every item value made from the level codes (cast and scaled when affine
    in the code, compared when an indicator, read off the table otherwise)
    equals, bit for bit, the value derived from the levels themselves."""
    from sk_rankmetrics._ranking.item_values import (
        LevelValues,
        derive_values,
        level_codes,
        level_values,
    )

    options = metrics[0][1] if isinstance(metrics[0], tuple) else {}
    if lo and ("max_grade" in options or isinstance(options.get("gain"), dict)):
        pytest.skip("ERR's grades and the mapping's levels are 0..4")
    if lo < 0 and options.get("gain") == "exponential":
        pytest.skip("the exponential gain refuses negative levels")
    rng = np.random.default_rng(4)
    y = (rng.integers(0, 5, (40, 60)) + lo).astype(np.int64)
    y[0, :5] = np.arange(5) + lo  # every level held
    values = _values(y, metrics)
    codes, _, got_lo, n_levels = level_codes(values)
    assert got_lo == lo
    made = LevelValues(codes, level_values(values, lo, n_levels, codes))
    want = derive_values(y, values.requests)
    assert set(made) == set(want)
    for key in want:
        np.testing.assert_array_equal(made[key], want[key], err_msg=key)


@pytest.mark.parametrize("mask", [False, True])
def test_parts_of_a_block_read_judged_positions_as_the_block_does(mask):
    # bpref's judged items above each position are the position itself when
    # every item of the block is judged; the parts of a block with a few tied
    # rows know the block's width (RankedChunk.row_width) and take that path,
    # and with a judged mask (some rows not wholly judged) they count. Either
    # way bpref equals the argsort route's, row by row.
    from sk_rankmetrics._metrics.kernels import judgements

    rng = np.random.default_rng(11)
    s = rng.random((40, 60)).astype(np.float32)
    for r in (2, 19, 33):
        s[r, rng.choice(60, 4, replace=False)] = s[r, 5]
    y = rng.integers(0, 3, (40, 60)).astype(np.int8)
    kw = {}
    if mask:
        judged = np.ones(y.shape, dtype=bool)
        judged[[2, 7, 19], :10] = False  # a tied row and an untied one unjudged in part
        kw["judged"] = judged
    values = _values(y, ["bpref"])
    rc = rank_by_levels(s, values)
    assert rc._parts is not None and rc.row_width is None
    rc.block = (s, values)  # as rank_block sets it
    assert all(part.row_width == 60 for _, part in rc.split_by_ties())
    calls = []
    real = judgements._judged_running

    def spy(chunk):
        out = real(chunk)
        calls.append(np.ndim(out))
        return out

    # The parts, not the block at once (RankedChunk.few_ties_view).
    with mock.patch.object(judgements, "_judged_running", spy), \
            mock.patch.object(type(rc), "few_ties_view", lambda self: None):
        got = skr.evaluate(y, s, ["bpref"], per_row=True, no_relevant=0.0, **kw)["bpref"]
    assert calls and set(calls) == ({2} if mask else {1})  # counted, or the positions
    with mock.patch.object(block, "rank_by_levels", lambda *a: None):
        want = skr.evaluate(y, s, ["bpref"], per_row=True, no_relevant=0.0, **kw)["bpref"]
    np.testing.assert_allclose(got, want, rtol=1e-12)


def _offset_taken(s, y, metrics):
    """The metrics of ``s`` with every float32 block offered the exact 32-bit
    key first (the narrow key's bound set to 0), and whether it ranked any."""
    taken, real = [], levels._by_offset_key

    def spy(*a):
        rc = real(*a)
        taken.append(rc is not None)
        return rc

    with (mock.patch.object(levels, "_NARROW_MOST", 0),
          mock.patch.object(levels, "_by_offset_key", spy)):
        got = skr.evaluate(y, s, metrics, per_row=True, no_relevant=0.0)
    return got, any(taken)


@SETTINGS
@given(st.data())
def test_exact_32_bit_key_equals_the_argsort(data):
    # float32 scores of either sign, -0.0 beside 0.0, neighbours one step
    # apart, ties; the levels' bits from 1 (binary) to 3: ranked by offsets
    # from the block's smallest where they fit, else by the float64 key.
    rng = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1)))
    n, N = data.draw(st.integers(1, 12)), data.draw(st.integers(2, 30))
    top = data.draw(st.sampled_from([1, 3, 4]))
    y = rng.integers(0, top + 1, (n, N))
    scale = data.draw(st.sampled_from([1e-3, 1.0, 1e6, 3e38]))
    low = data.draw(st.sampled_from([-1.0, 0.0, 0.5]))
    s = (low + rng.random((n, N)) * (1 - low)).astype(np.float32) * np.float32(scale)
    if data.draw(st.booleans()):  # ties, -0.0 and neighbours a step apart
        s[rng.random((n, N)) < 0.2] = s.flat[0]
        s[rng.random((n, N)) < 0.1] = -0.0
        s[rng.random((n, N)) < 0.1] = 0.0
        near = rng.random((n, N)) < 0.1
        s[near] = np.nextafter(s.flat[0], np.float32(np.inf))
    if data.draw(st.booleans()):
        s = np.asfortranarray(s)
    metrics = ["ndcg", "map", "bpref", "r_precision", ("err", {"max_grade": top})]
    got, _ = _offset_taken(s, y, metrics)
    want = _without_route(y, s, metrics)
    for key in want:
        np.testing.assert_allclose(got[key], want[key], rtol=1e-12, atol=1e-15,
                                   err_msg=str(key))


@pytest.mark.parametrize(("low", "high", "top", "taken"), [
    (1e-6, 1.0, 4, True),  # probabilities away from 0: 2**27.3 keys, 3 bits
    (0.0, 1.0, 3, True),  # with a 0: 2**30 keys, 2 bits
    (0.0, 1.0, 4, False),  # with a 0, 3 bits: no room
    (-1.0, 1.0, 1, True),  # logits of both signs, binary relevance: 2**31 keys, 1 bit
    (-1.0, 1.0, 4, False),  # both signs and 3 bits: no room, the float64 key
    (-3e38, 3e38, 1, False),  # the whole range
])
def test_exact_32_bit_key_only_where_it_fits(low, high, top, taken):
    rng = np.random.default_rng(11)
    s = (low + rng.random((40, 1000)) * (high - low)).astype(np.float32)
    s[:, 0], s[:, 1] = low, high
    y = rng.integers(0, top + 1, s.shape)
    metrics = ["ndcg", "map", ("err", {"max_grade": top})]
    got, was_taken = _offset_taken(s, y, metrics)
    assert was_taken is taken
    want = _without_route(y, s, metrics)
    for key in want:
        np.testing.assert_allclose(got[key], want[key], rtol=1e-12, err_msg=str(key))


@pytest.mark.parametrize("bad", [np.inf, -np.inf, np.nan])
def test_exact_32_bit_key_leaves_non_finite_scores_to_the_check(bad):
    # The key declines a block with a score that is not finite; the check of
    # the key that follows names its place.
    rng = np.random.default_rng(12)
    s = rng.random((30, 1000)).astype(np.float32)
    y = rng.integers(0, 5, s.shape)
    s[7, 3] = bad
    declined, real = [], levels._by_offset_key
    with mock.patch.object(levels, "_by_offset_key",
                           lambda *a: declined.append(real(*a) is None) or None):
        with pytest.raises(ValueError, match=r"y_score contains NaN or infinity \(first at "
                                             r"row 7, column 3\)"):
            skr.evaluate(y, s, ["ndcg", "map"])
    assert declined == [True]


@pytest.mark.parametrize("rows_apart", [3, 40])
def test_float64_rounded_to_float32_ranked_again_where_they_meet(rows_apart):
    # float64 scores in short rows keyed rounded to float32: the rows where
    # two scores round to one float32 (a float64 step or a few apart, or
    # truly tied) are ranked again in float64, their groups the true ties;
    # past one row in eight, the float64 key.
    rng = np.random.default_rng(13)
    s = rng.random((200, 50))
    y = rng.integers(0, 4, s.shape)  # 2 bits: room for the span down to 0
    for r in range(0, 200, rows_apart):
        a, b = rng.choice(50, size=2, replace=False)
        s[r, b] = s[r, a] + (r % 3) * np.spacing(s[r, a])  # 0: a true tie
    s[7, :3] = -0.0
    s[7, 3] = 0.0
    # (Ties in a third of the rows: the float64 key declines too, the argsort.)
    tried, _ = _key_widths(s, y)
    assert tried == (["offset"] if rows_apart == 40 else [8])
    metrics = ["ndcg", "map", "bpref", ("err", {"max_grade": 3})]
    got = skr.evaluate(y, s, metrics, per_row=True)
    want = _without_route(y, s, metrics)
    for key in want:
        np.testing.assert_allclose(got[key], want[key], rtol=1e-12, err_msg=str(key))


@pytest.mark.parametrize("dtype", ["int64", "uint64"])
def test_g_refuses_gains_past_2_53(dtype):
    """G subtracts the gain ranked from the ideal's running cost: past 2**53
    float64 loses that difference, so a clear error, not a value."""
    y = np.iinfo(dtype).max - np.array([[0, 1, 2, 0], [1, 0, 0, 2]], dtype=dtype)
    s = np.array([[0.4, 0.3, 0.2, 0.1], [0.1, 0.2, 0.3, 0.4]])
    with pytest.raises(ValueError, match=r"g: y_true's gains sum to .* past 2\*\*53"):
        skr.evaluate(y, s, ["g"])
    small = np.array([[2**40, 1, 0, 3]])
    assert 0 < skr.evaluate(small, s[:1], ["g"])["g"] <= 1


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("decimals", [None, 4, 2, 1])
def test_g_reads_the_levels_routes_items(dtype, decimals):
    """G reads the item values inside its tie groups (``rc.items``): the
    levels route's chunks hold them (whole, split in parts, or few ties), and
    G on them equals G on the argsort route, sparse and dense relevance.
    (Sparse relevance over scores of a decimal, counted, may be ranked
    through its relevant items instead, whose groups list their members:
    either route is taken.)"""
    rng = np.random.default_rng(decimals or 0)
    s = rng.random((3000, 60))
    if decimals is not None:
        s = np.round(s, decimals)
    s = s.astype(dtype)
    for y in (np.where(rng.random(s.shape) < 0.05, rng.integers(1, 5, s.shape), 0),
              rng.integers(0, 3, s.shape)):
        for gain in ("linear", "exponential"):
            metrics = [("g", {"gain": gain})]
            taken = []
            with mock.patch.object(block, "rank_by_levels",
                                   lambda *a, real=block.rank_by_levels, taken=taken:
                                   taken.append(1) or real(*a)), \
                    mock.patch.object(block, "rank_relevant",
                                      lambda *a, real=block.rank_relevant, taken=taken:
                                      ((out := real(*a)) is not None and taken.append(1))
                                      or out):
                got = skr.evaluate(y, s, metrics, per_row=True, no_relevant=0.0)
            assert taken
            want = _without_route(y, s, metrics)
            np.testing.assert_allclose(got["g"], want["g"], rtol=1e-13, atol=1e-15)


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("top, tried", [(1, True), (4, False)])
def test_offset_key_not_tried_where_the_first_rows_leave_no_room(dtype, top, tried):
    """Scores in [0, 1) span 2**30 float32 values: room for a level bit or
    two (binary relevance), not three (grades 0..4). Where the first rows'
    span already leaves no room, the block's float32 copy is not made; the
    ranking is the same either way."""
    rng = np.random.default_rng(14)
    s = rng.random((300, 100)).astype(dtype)
    s[:, 0] = 0.0  # (every row spans [0, 1))
    y = rng.integers(0, top + 1, s.shape)
    calls, real = [], levels._by_offset_key

    def spy(*a):
        calls.append(1)
        return real(*a)

    with mock.patch.object(levels, "_by_offset_key", spy):
        got = skr.evaluate(y, s, ["ndcg", "map"], per_row=True, no_relevant=0.0)
    if not tried:
        assert not calls
    elif dtype == np.float64:  # (float32 rows of 100 take the narrow key first)
        assert calls
    off = _without_route(y, s, ["ndcg", "map"])
    for key in off:
        np.testing.assert_allclose(got[key], off[key], rtol=1e-12)
