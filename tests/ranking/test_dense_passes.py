"""The cheaper passes of the full-depth path equal the ones they replace.

- :func:`row_sums_in_order` adds each row left to right, bit for bit as
  ``np.cumsum(a, axis=1)[:, -1]`` (trec_eval's order of additions), on every
  row count (one row is the case NumPy would sum pairwise);
- the running counts of an indicator (relevant, judged) are taken in int32 on
  untied chunks: the same as float64's running sums;
- bpref per tie group (integer scores: a few groups per row) equals the
  kernel's per-position form, and the expectation over every ordering.
"""

from __future__ import annotations

import itertools
from unittest import mock

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from spies import REFUSE, answers

import sk_rankmetrics as skr
from sk_rankmetrics._ranking import block as block_mod
from sk_rankmetrics._ranking import chunk as chunk_mod
from sk_rankmetrics._ranking import groups as groups_mod
from sk_rankmetrics._utils.fast import row_sums_in_order

SETTINGS = settings(max_examples=60, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow])


@pytest.mark.parametrize("n", [0, 1, 2, 3, 65, 2000])
@pytest.mark.parametrize("m", [0, 1, 7, 100, 1000])
@pytest.mark.parametrize("view", [False, True])
def test_row_sums_in_order_add_left_to_right(n, m, view):
    # 65 x 1000 and 2000 x 100 are copied in pieces of columns (2 and 4), the
    # view (a block's running counts less their last column) read in place.
    rng = np.random.default_rng(n * 1000 + m)
    a = rng.random((n, m + view)) * 10.0 ** rng.integers(-12, 12, size=(n, m + view))
    a *= rng.choice([-1.0, 1.0], size=a.shape)
    a = a[:, :m] if view else a
    expected = np.cumsum(a, axis=1)[:, -1] if m else np.zeros(n)
    got = row_sums_in_order(a)
    assert got.shape == (n,)
    assert np.array_equal(got, expected)  # bit for bit, not approximately


def test_row_sums_in_order_differ_from_a_pairwise_sum():
    # The test above could not fail if every order gave the same sums.
    rng = np.random.default_rng(0)
    a = rng.random((65, 1000)) * 10.0 ** rng.integers(-12, 12, size=(65, 1000))
    assert not np.array_equal(a.sum(axis=1), row_sums_in_order(a))


@SETTINGS
@given(data=st.data())
def test_bpref_per_group_equals_per_position(data):
    n = data.draw(st.integers(1, 6))
    m = data.draw(st.integers(2, 40))
    span = data.draw(st.sampled_from([1, 2, 3, 10]))
    rng = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1)))
    yt = rng.integers(0, 3, size=(n, m)) * (rng.random((n, m)) < 0.4)
    ys = rng.integers(0, span, size=(n, m)).astype(
        data.draw(st.sampled_from([np.int8, np.int64, np.float32, np.float64])))
    judged = None if data.draw(st.booleans()) else rng.random((n, m)) < 0.7
    kw = {} if judged is None else {"judged": judged}
    with answers(block_mod, "rank_relevant", REFUSE):  # the sort's groups, not the relevant items'
        grouped = skr.evaluate(yt, ys, ["bpref"], per_row=True, no_relevant=0.0,
                               **kw)["bpref"]
    seen = []
    real = chunk_mod.rank_chunk

    def without_groups(*args, **kwargs):
        rc = real(*args, **kwargs)
        seen.append(rc.groups is not None or rc._tied_groups is not None)
        rc.groups = None
        rc._tied_groups = None
        return rc

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(chunk_mod, "rank_chunk", without_groups)
        mp.setattr(block_mod, "rank_chunk", without_groups)
        mp.setattr(block_mod, "rank_relevant", REFUSE)
        mp.setattr(block_mod, "rank_by_levels", REFUSE)  # the patched rank_chunk ranks
        positions = skr.evaluate(yt, ys, ["bpref"], per_row=True, no_relevant=0.0,
                                 **kw)["bpref"]
    assert seen  # the patched ranking was the one used
    if span == 1:  # every row one tie group: the per-group form was the one taken
        assert all(seen)
    np.testing.assert_allclose(grouped, positions, rtol=1e-12, atol=1e-14)


def _bpref_of_order(rel, judged):
    """bpref of one ordering (relevance indicator, judged indicator)."""
    R = rel.sum()
    N = (judged & ~rel).sum()
    if R == 0:
        return 0.0
    den = max(min(N, R), 1)
    above = np.cumsum(judged & ~rel) - (judged & ~rel)
    return float(np.sum(np.where(rel, 1.0 - np.minimum(above, R) / den, 0.0)) / R)


def test_bpref_per_group_is_the_expectation_over_every_ordering():
    rng = np.random.default_rng(7)
    for _ in range(30):
        m = 7
        yt = (rng.random(m) < 0.5).astype(int)
        ys = rng.integers(0, 3, size=m)
        judged = rng.random(m) < 0.8
        got = skr.evaluate(yt[None], ys[None], ["bpref"], per_row=True, no_relevant=0.0,
                           judged=judged[None])["bpref"][0]
        total, count = 0.0, 0
        for perm in itertools.permutations(range(m)):
            p = np.array(perm)
            key = np.lexsort((p, -ys))  # by score descending, ties by the permutation
            total += _bpref_of_order((yt[key] > 0) & judged[key], judged[key])
            count += 1
        assert got == pytest.approx(total / count, rel=1e-12, abs=1e-14)


# (Precision and recall without a cut-off rank nothing: tests/ranking/test_order_free.py.)
FULL = ["ndcg", "dcg", "map", "bpref", "rbp", "r_precision", "mrr", "err", "rprec_mult@0.5",
        "bing", "infap", "rbp_resid"]


@SETTINGS
@given(data=st.data())
def test_integer_scores_counted_equal_the_same_scores_sorted(data):
    """Whole rows of integer scores in a small span are ranked by counting
    (tie groups from the counts of each score, no sort); the same scores as
    float64 take the sort. Every measure of the whole ranking agrees."""
    n = data.draw(st.integers(1, 8))
    m = data.draw(st.integers(2, 60))
    span = data.draw(st.sampled_from([1, 2, 3, 10, 60]))
    rng = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1)))
    dtype = data.draw(st.sampled_from([np.int16, np.int32, np.int64, np.uint16, np.uint32]))
    low = 0 if np.dtype(dtype).kind == "u" else data.draw(st.sampled_from([-5, 0, 7]))
    ys = (rng.integers(0, span, size=(n, m)) + low).astype(dtype)
    kind = data.draw(st.sampled_from(["binary", "graded", "float"]))
    yt = rng.integers(0, 2 if kind == "binary" else 4, size=(n, m)) * (rng.random((n, m)) < 0.5)
    if kind == "float":
        yt = yt * rng.random((n, m))
    if data.draw(st.booleans()):
        yt[0] = 0  # a row without a relevant item
    metric = data.draw(st.sampled_from(FULL))
    if metric == "err" and kind == "float":
        metric = "ndcg"
    kw = {}
    if metric in ("bpref", "infap", "rbp_resid") and data.draw(st.booleans()):
        kw["judged"] = rng.random((n, m)) < 0.7
    # (Sparse relevance would take the relevant items' route before either.)
    with answers(block_mod, "rank_relevant", REFUSE):
        with answers(chunk_mod, "_whole_rows_by_counts") as seen:
            counted = skr.evaluate(yt, ys, [metric], per_row=True, no_relevant=0.0,
                                   **kw)[metric]
        sorted_ = skr.evaluate(yt, ys.astype(np.float64), [metric], per_row=True,
                               no_relevant=0.0, **kw)[metric]
    np.testing.assert_allclose(counted, sorted_, rtol=1e-12, atol=1e-14)
    if span <= 3 and m >= 4 and metric not in ("mrr", "err", "r_precision"):
        assert any(seen)  # ties in every row: the counted route was the one taken


@SETTINGS
@given(data=st.data())
def test_per_position_statistics_made_from_groups_equal_the_eager_ones(data):
    n = data.draw(st.integers(1, 8))
    L = data.draw(st.integers(4, 30))
    rng = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1)))
    # Three values at most over four items or more: every row ties.
    sv = -np.sort(-rng.integers(0, data.draw(st.integers(1, 3)), (n, L)).astype(np.float64),
                  axis=1)
    vals = {"a": rng.random((n, L)), "b": rng.integers(0, 3, (n, L)).astype(np.float64)}
    start, size, sums, _, groups = groups_mod._tie_groups_of_tied_rows(sv, vals, lazy=True)
    want = groups_mod.tie_groups(sv, vals)
    assert start is None and size is None  # left for the chunk to make
    rc = chunk_mod.RankedChunk(L, None, None, sums, np.full(n, L), groups=groups)
    assert rc.tied
    np.testing.assert_array_equal(rc.start, want[0])
    np.testing.assert_array_equal(rc.size, want[1])
    assert set(rc.sums) == set(vals)
    for k in vals:
        np.testing.assert_array_equal(rc.sums[k], want[2][k])
    w = rng.random(data.draw(st.integers(1, L)))
    for k in vals:
        per_position = (want[2][k] / want[1])[:, : w.shape[0]] @ w
        np.testing.assert_allclose(rc.weighted(k, w), per_position, rtol=1e-12, atol=1e-15)
    cut = rc.truncated(max(1, L // 2))
    np.testing.assert_array_equal(cut.start, want[0][:, : max(1, L // 2)])


@pytest.mark.parametrize("N", [8, 9, 1000, 2040, 2047, 2048, 2049, 4100])
@pytest.mark.parametrize("density", [0.0, 0.3, 1.0])
def test_row_counts_of_wide_rows(N, density):
    """Rows of more than 255 words are summed 255 words at a time (a byte lane
    holds 255): every width, whole rows, rows not starting on a word."""
    from sk_rankmetrics._utils.fast import row_counts

    rng = np.random.default_rng(N)
    m = rng.random((9, N + 3)) < density
    for view in (m[:, :N], m[:, 3:], m[:, ::-1], m[1::2, :N]):
        np.testing.assert_array_equal(row_counts(view), np.count_nonzero(view, axis=1))


@pytest.mark.parametrize("N", [16, 17, 63, 100, 128, 129])
@pytest.mark.parametrize("density", [0.0, 0.3, 1.0])
def test_row_counts_of_many_short_rows(N, density):
    """Many rows of at most 128 entries are summed down the transposed words
    (a route of their own, from 4 N rows): widths around the bounds, whole
    rows, rows not starting on a word, every byte lane full."""
    from sk_rankmetrics._utils.fast import row_counts

    rng = np.random.default_rng(N)
    m = rng.random((8 * N + 5, N + 3)) < density
    # 8 N + 5 rows (and half of them) take the route; 4 N - 1 rows do not.
    for view in (m[:, :N], m[:, 3:], m[:, ::-1], m[1::2, :N], m[: 4 * N - 1, :N]):
        np.testing.assert_array_equal(row_counts(view), np.count_nonzero(view, axis=1))


@given(st.data())
@SETTINGS
def test_rows_with_equal_neighbours(data):
    """The rows where two neighbours are equal, found over the flat matrix
    (the pairs that straddle two rows struck out), are those the per-row
    reduction finds: ties at a row's first and last place, equal values at
    the end of one row and the start of the next, views, -0.0 and 0.0."""
    from sk_rankmetrics._utils.fast import rows_with_equal_neighbours

    n = data.draw(st.integers(0, 40))
    N = data.draw(st.integers(1, 30))
    dtype = data.draw(st.sampled_from([np.float64, np.float32, np.int64, np.uint8]))
    spread = data.draw(st.sampled_from([2, 50, 10**6]))
    seed = data.draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    a = rng.integers(0, spread, size=(n, N + 1)).astype(dtype)
    if dtype is np.float64 and a.size:
        a[rng.random(a.shape) < 0.1] = -0.0
    a.sort(axis=1)
    if n > 1:  # a row ending where the next begins
        a[1, 0] = a[0, -1]
    for view in (a, a[:, :N], a[::2], np.ascontiguousarray(a[:, 1:])):
        want = np.flatnonzero((view[:, 1:] == view[:, :-1]).any(axis=1))
        got = rows_with_equal_neighbours(view)
        np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("kc", [2, 3, 100, 128, 129])
@pytest.mark.parametrize("density", [0.0, 0.05, 0.8, 1.0])
@pytest.mark.parametrize("flags", [True, False])
def test_ap_of_many_short_rows(kc, density, flags):
    """AP's sums over rows in one order read transposed (many rows of at
    most 128 positions; 4 kc - 1 rows and 129 positions do not) equal the
    running counts' definition, on bools and on float64 indicators."""
    from sk_rankmetrics._metrics.kernels.cutoff import _ap_of_flags

    rng = np.random.default_rng(kc)
    for n in (4 * kc - 1, 4 * kc, 9 * kc + 5):
        rel = rng.random((n, kc)) < density
        want = (np.cumsum(rel, axis=1) * rel / np.arange(1.0, kc + 1.0)).sum(axis=1)
        got = _ap_of_flags(rel if flags else rel.astype(np.float64))
        np.testing.assert_allclose(got, want, rtol=1e-13, atol=0)


@pytest.mark.parametrize("scores", ["float64", "float32", "pairs", "decimals"])
@pytest.mark.parametrize("relevance", ["dense", "binary", "none"])
@pytest.mark.parametrize("shape", [(900, 60), (300, 400)])
def test_map_and_bpref_of_short_rows_read_transposed(scores, relevance, shape):
    """MAP and bpref over many short rows read transposed (the order given's
    sums, and those of rows that tie in a few places), and bpref over many
    rows of any length (300 of 400), equal the row-wise route they replace:
    bpref bit for bit (trec_eval's order of additions), MAP to rounding; the
    positions of the tied rows' members read off the transposed counts."""
    from sk_rankmetrics._metrics.kernels import cutoff, judgements
    from sk_rankmetrics._ranking import few_ties

    rng = np.random.default_rng(7)
    base = rng.random(shape)
    if scores == "float32":
        s = base.astype(np.float32)
    elif scores == "pairs":  # a pair tied in a few rows: read through FewTies
        s = base.copy()
        s[::20, 3] = s[::20, 5]
        s[::31, 0] = s[::31, -1]
    elif scores == "decimals":
        s = np.round(base, 3)
    else:
        s = base
    y = {"dense": rng.integers(0, 5, shape), "binary": (rng.random(shape) < 0.05).astype(int),
         "none": np.zeros(shape, dtype=int)}[relevance].astype(np.int8)
    metrics = ["map", "bpref", "map@20"]
    got = skr.evaluate(y, s, metrics, per_row=True, no_relevant=0.0)
    if shape[1] > 60:  # rows too long for the short rows' route: bpref's alone
        assert few_ties.short_rows(shape) is False and few_ties.many_rows(shape) is True
    with mock.patch.object(cutoff, "short_rows", lambda shape: False), \
            mock.patch.object(judgements, "many_rows", lambda shape: False), \
            mock.patch.object(few_ties, "short_rows", lambda shape: False), \
            mock.patch.object(few_ties, "many_rows", lambda shape: False):
        want = skr.evaluate(y, s, metrics, per_row=True, no_relevant=0.0)
    np.testing.assert_array_equal(np.asarray(got["bpref"]), np.asarray(want["bpref"]))
    for m in ("map", "map@20"):
        np.testing.assert_allclose(np.asarray(got[m]), np.asarray(want[m]), rtol=1e-13, atol=0)


@pytest.mark.parametrize("scores", ["0..9", "-1..1 int16", "wide", "0..29 int32"])
@pytest.mark.parametrize("relevance", ["dense", "sparse", "bool", "2..4", "none"])
def test_integer_scores_counted_once_with_their_levels(scores, relevance):
    """Whole rows of integer scores counted once by (row, score, level) give
    the tie groups' sums, the score counts and the ideal's level counts
    that the separate counts gave: every full-depth measure bit for bit
    (MAP to rounding: its short rows are summed by columns either way)."""
    from sk_rankmetrics._ranking import chunk
    from sk_rankmetrics._ranking.item_values import BlockValues

    rng = np.random.default_rng(11)
    shape = (700, 40)
    base = rng.random(shape)
    s = {"0..9": np.floor(base * 10).astype(np.int64),
         "-1..1 int16": np.floor(base * 3).astype(np.int16) - 1,
         "wide": (np.floor(base * 10) + 2**50).astype(np.int64),
         "0..29 int32": np.floor(base * 30).astype(np.int32)}[scores]
    y = {"dense": rng.integers(0, 5, shape), "sparse": (rng.random(shape) < 0.05) * 3,
         "bool": rng.random(shape) < 0.3, "2..4": rng.integers(2, 5, shape).astype(np.int16),
         "none": np.zeros(shape, dtype=int)}[relevance]
    metrics = ["ndcg", "dcg", "map", "bpref", "rbp", "mrr", "r_precision", "ndcg_rel", "Rndcg"]
    if relevance != "2..4":
        metrics.append("err")
    counted = []
    real = chunk._counted_with_levels

    def spy(y_score, values, span):
        out = real(y_score, values, span)
        counted.append(out is not None and isinstance(values, BlockValues))
        return out

    with mock.patch.object(chunk, "_counted_with_levels", spy):
        got = skr.evaluate(y, s, metrics, per_row=True, no_relevant=0.0)
    assert counted and all(counted)
    with mock.patch.object(chunk, "_counted_with_levels", lambda *a: None):
        want = skr.evaluate(y, s, metrics, per_row=True, no_relevant=0.0)
    for m in metrics:
        if m == "map":
            np.testing.assert_allclose(np.asarray(got[m]), np.asarray(want[m]), rtol=1e-13)
        else:
            np.testing.assert_array_equal(np.asarray(got[m]), np.asarray(want[m]), err_msg=m)


def test_sum_along_short_axes():
    from sk_rankmetrics._utils.fast import sum_along

    rng = np.random.default_rng(2)
    # (The last two pass _SUM_EINSUM entries: summed by np.einsum; counts
    # near int64's top, whose sums stay within it, must come back whole.)
    for shape in [(50, 10, 5), (3, 33, 2), (4, 0, 3), (7, 1, 1), (3000, 10, 5), (600, 40, 7)]:
        a = rng.integers(0, 1000, size=shape)
        if a.size:
            a[0, 0, 0] = 2**62
        for axis in [*range(3), -1]:
            np.testing.assert_array_equal(sum_along(a, axis), a.sum(axis=axis))
            assert sum_along(a, axis).dtype == a.sum(axis=axis).dtype


@pytest.mark.parametrize("gain", ["linear", "exponential"])
@pytest.mark.parametrize("shape", [(300, 100), (40, 1000), (7, 3), (600, 100)])
def test_counted_levels_equal_their_list(gain, shape):
    """The ideal's levels held as counts (:class:`CountedLevels`) give the
    IDCG bit for bit as their list of levels adds it, and the same list:
    rows without a relevant item, levels that are empty in a row."""
    from sk_rankmetrics._metrics.gains import resolve_gain
    from sk_rankmetrics._ranking.ideal import CountedLevels, IdealLevels, _counted

    rng = np.random.default_rng(shape[0])
    yt = rng.integers(0, 5, size=shape).astype(np.int8)
    yt[::3] = np.where(yt[::3] == 2, 0, yt[::3])
    yt[1] = 0
    levels = _counted(yt, resolve_gain(gain))
    assert isinstance(levels, CountedLevels)
    # (600 x 100: many short rows, the levels compared transposed.)
    g = (2.0 ** yt - 1.0) if gain == "exponential" else yt.astype(np.float64)
    listed = IdealLevels.from_sorted(np.sort(g, axis=1))
    for name in ("rows", "end", "gain", "begin"):
        np.testing.assert_array_equal(getattr(levels, name), getattr(listed, name))
    assert levels.deepest == listed.deepest == int((yt > 0).sum(axis=1).max())
    D = np.zeros(shape[1] + 1)
    np.cumsum(1.0 / np.log2(np.arange(2.0, shape[1] + 2.0)), out=D[1:])
    np.testing.assert_array_equal(levels.dcg_through(D), listed.dcg_through(D))
    # Read off the columns (no list made) before the list is, bit for bit.
    fresh = _counted(yt, resolve_gain(gain))
    for name in ("full_idcg", "P", "total"):
        np.testing.assert_array_equal(getattr(fresh, name), getattr(listed, name))
    assert "_listed" not in vars(fresh)
    np.testing.assert_array_equal(levels.full_idcg, listed.full_idcg)


@settings(max_examples=60, deadline=None)
@given(data=st.data())
def test_segment_cumsum_sums_each_segment_of_its_own_entries(data):
    """Each segment's running sums: equal to its own running sums to
    rounding, and bit for bit what the segment gives alone (none of the
    other segments' rounding), over empty, single and long segments and
    values of every size."""
    from sk_rankmetrics._utils.fast import segment_cumsum

    lengths = data.draw(st.lists(st.integers(1, 40), min_size=0, max_size=30))
    rng = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1)))
    scale = 10.0 ** rng.integers(-8, 9, size=sum(lengths))
    v = rng.standard_normal(sum(lengths)) * scale
    first = np.zeros(v.size, dtype=bool)
    starts = np.cumsum([0, *lengths])[:-1].astype(np.int64)
    first[starts] = True
    got = segment_cumsum(v, first)
    assert got.shape == v.shape and got.dtype == np.float64
    for a, n in zip(starts.tolist(), lengths):
        own = v[a:a + n]
        np.testing.assert_array_equal(got[a:a + n],
                                      segment_cumsum(own, np.r_[True, np.zeros(n - 1, bool)]))
        np.testing.assert_allclose(got[a:a + n], np.cumsum(own),
                                   rtol=1e-12, atol=1e-12 * np.abs(own).sum())


def test_segment_cumsum_of_a_long_run_of_segments_carries_nothing():
    """Over 100,000 segments a running sum less its value before each segment
    is off by more than rounding; segment_cumsum gives each segment's own."""
    from sk_rankmetrics._utils.fast import segment_cumsum

    rng = np.random.default_rng(3)
    v = rng.random(400_000) * 50.0
    first = np.zeros(v.size, dtype=bool)
    first[::4] = True
    want = np.cumsum(v.reshape(-1, 4), axis=1).reshape(-1)
    got = segment_cumsum(v, first)
    c = np.cumsum(v)
    carried = c - np.repeat(np.r_[0.0, c[3::4][:-1]], 4)
    assert np.abs(carried - want).max() > 1e-9  # the carried rounding
    np.testing.assert_allclose(got, want, rtol=4e-16, atol=0)


@pytest.mark.parametrize("kind", ["counted", "listed", "real"])
def test_ideal_dcg_at_level_ends_is_each_rows_own_running_sum(kind):
    """The ideal's DCG at each level's end (Rndcg's denominators) is its
    row's own running sum of the levels' parts, added from the row's first
    level: bit for bit ``np.cumsum`` of that row's parts, and the last level
    reads the row's full IDCG. (A running sum over the whole block less its
    value before the row carried the rounding of the rows before it: 2e-10
    over 5,000 rows of dense graded relevance.)"""
    from sk_rankmetrics._metrics.gains import resolve_gain
    from sk_rankmetrics._ranking.ideal import IdealLevels, _counted

    rng = np.random.default_rng(11)
    yt = rng.integers(0, 5, size=(5000, 100)).astype(np.int8)
    yt[7] = 0  # a row without levels
    if kind == "real":
        g = np.where(yt > 0, rng.random(yt.shape) * 30.0, 0.0)
        levels = IdealLevels.from_sorted(np.sort(g, axis=1))
    elif kind == "listed":
        levels = IdealLevels.from_sorted(np.sort(2.0 ** yt - 1.0, axis=1))
    else:
        levels = _counted(yt, resolve_gain("exponential"))
    got = levels.idcg
    rows, part = levels.rows, levels._part
    bounds = np.searchsorted(rows, np.arange(yt.shape[0] + 1))
    want = np.concatenate([np.cumsum(part[a:b]) for a, b in zip(bounds[:-1], bounds[1:])])
    np.testing.assert_array_equal(got, want)
    last = np.r_[rows[1:] != rows[:-1], True]
    np.testing.assert_array_equal(got[last], levels.full_idcg[rows[last]])


@pytest.mark.parametrize("dtype", [np.int8, np.int16, np.int64, np.uint8, np.float64, bool])
@pytest.mark.parametrize("gain", ["linear", "exponential",
                                  {0: 0.0, 1: 0.0, 2: 1.0, 3: 2.0, 4: 5.0},
                                  {0: 0.0, 1: 0.0, 2: 3.0, 3: 1.0, 4: 2.0}])
def test_ideal_of_levels_compared_one_by_one(dtype, gain):
    """nDCG's ideal from levels in a small span counted by one comparison per
    level (levels of gain 0, a non-monotone mapping that takes the sorted
    route) equals the ideal of each row sorted."""
    rng = np.random.default_rng(4)
    hi = 1 if dtype is bool else 4
    yt = rng.integers(0, hi + 1, size=(40, 120)).astype(dtype)
    yt[3] = 0
    ys = rng.random((40, 120))
    g = np.asarray(yt, dtype=np.float64)
    if gain == "exponential":
        g = 2.0 ** g - 1.0
    elif isinstance(gain, dict):
        g = np.vectorize(gain.get)(g.astype(int)).astype(np.float64)
    ideal = -np.sort(-g, axis=1)
    disc = 1.0 / np.log2(np.arange(2, 122))
    idcg = ideal @ disc
    order = np.argsort(-ys, axis=1)
    dcg = np.take_along_axis(g, order, axis=1) @ disc
    want = np.where(idcg > 0, dcg / np.where(idcg > 0, idcg, 1.0), 0.0)
    got = skr.ndcg_score(yt, ys, gain=gain, per_row=True, no_relevant=0.0)
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-15)


@pytest.mark.parametrize("n,m", [(1, 7), (3, 1000), (65, 1000), (2000, 100), (5, 0)])
def test_row_dots_of_pieces_equal_the_product(n, m):
    # 65 x 1000 and 2000 x 100 are taken in pieces of columns: each row's dot
    # product the same up to the order of additions.
    from sk_rankmetrics._utils.fast import row_dots_of

    rng = np.random.default_rng(n + m)
    a, w = rng.random((n, m)), rng.random(m)
    asked = []

    def columns(j0, j1):
        asked.append((j0, j1))
        return a[:, j0:j1]

    got = row_dots_of(columns, w, n)
    np.testing.assert_allclose(got, a @ w, rtol=1e-13)
    assert [j for pair in asked for j in pair] == sorted(j for pair in asked for j in pair)
    assert (len(asked) > 1) == (n * m > 2**15)


def _level_values(y, s, metrics):
    from sk_rankmetrics._metrics.requests import make_requests
    from sk_rankmetrics._ranking import levels
    from sk_rankmetrics._ranking.item_values import BlockValues

    rc = levels.rank_by_levels(s, BlockValues(y, make_requests(metrics)))
    assert rc is not None
    return rc


@pytest.mark.parametrize("metrics,key", [(["map"], "rel:None"), (["bpref"], "rel:None"),
                                         ([("map", {"threshold": 2})], "rel:2")])
def test_indicator_flags_are_the_values(metrics, key):
    # A relevance indicator read as bools (no float64 copy) holds the values
    # the float64 copy holds; a value that is no indicator gives None.
    from sk_rankmetrics._ranking.item_values import LevelValues, as_flags

    rng = np.random.default_rng(4)
    y = rng.integers(0, 4, (30, 50)).astype(np.int8)
    rc = _level_values(y, rng.random((30, 50)), metrics)
    values = rc.sums
    assert isinstance(values, LevelValues)
    keys = [k for k in values if k.startswith("rel:")]
    assert keys == [key]
    flags = as_flags(values, key)
    assert flags.dtype == bool and flags.any() and not flags.all()
    assert np.array_equal(flags.astype(np.float64), values[key])
    assert as_flags(values, key) is values[key]  # once made, the copy itself
    gains = _level_values(y, rng.random((30, 50)), [("ndcg", {"gain": "exponential"})]).sums
    gain_key = next(k for k in gains if not k.startswith("rel:"))
    assert gains.indicator(gain_key) is None


def _made_values(y, s, metric):
    """``evaluate(y, s, [metric])`` per row, and the item values whose
    float64 copy the level codes made on the way."""
    from sk_rankmetrics._ranking.item_values import LevelValues

    made = []
    real = LevelValues._make

    def spy(self, key):
        made.append(key)
        return real(self, key)

    with mock.patch.object(LevelValues, "_make", spy):
        return skr.evaluate(y, s, [metric], per_row=True, no_relevant=0.0), made


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("metric", ["map", "bpref", "map@30"])
def test_ap_and_bpref_make_no_float64_relevance(metric, dtype):
    # Rows without ties (float64 scores) and rows tied in a few places
    # (float32 scores) read the relevance as bools and their running counts
    # in int32: the block's float64 relevance is never made; the numbers are
    # the per-group path's and the argsort route's.
    from sk_rankmetrics._ranking import few_ties

    rng = np.random.default_rng(9)
    y = rng.integers(0, 5, (400, 1000)).astype(np.int8)
    s = rng.random((400, 1000)).astype(dtype)
    got, made = _made_values(y, s, metric)
    got = got[metric]
    assert not [k for k in made if k.startswith("rel:")], made
    with mock.patch.object(few_ties.FewTies, "of_pairs", lambda *a, **k: None):
        grouped = skr.evaluate(y, s, [metric], per_row=True, no_relevant=0.0)[metric]
    with mock.patch.object(block_mod, "rank_by_levels", lambda *a: None):
        argsort = skr.evaluate(y, s, [metric], per_row=True, no_relevant=0.0)[metric]
    np.testing.assert_allclose(got, grouped, rtol=1e-12)
    np.testing.assert_allclose(got, argsort, rtol=1e-12)


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("max_grade", [4, 6])
def test_err_reads_the_level_codes(dtype, max_grade):
    # ERR over rows without ties (float64) and tied in a few places (float32)
    # reads each position's stop chance off its level code: the grades'
    # float64 copy is never made, and the numbers are the argsort route's.
    rng = np.random.default_rng(max_grade)
    y = rng.integers(0, 5, (300, 1000)).astype(np.int8)
    y[y == 3] = 0  # a level missing: the codes are not the grades
    s = rng.random((300, 1000)).astype(dtype)
    metric = ("err", {"max_grade": max_grade})
    got, made = _made_values(y, s, metric)
    assert not made, made
    with mock.patch.object(block_mod, "rank_by_levels", lambda *a: None):
        want = skr.evaluate(y, s, [metric], per_row=True, no_relevant=0.0)
    for key in want:
        np.testing.assert_allclose(got[key], want[key], rtol=1e-12, atol=1e-15)


@pytest.mark.parametrize("n,m", [(0, 5), (3, 0), (1, 1), (5, 1), (2564, 100), (600, 128),
                                 (100, 129), (7, 100), (256, 1000)])
@pytest.mark.parametrize("kind", ["bool", "uint8", "view"])
def test_count_cumsum_equals_the_running_sum(n, m, kind):
    # Short rows, many of them, are counted a column at a time down a
    # transposed copy; the others by NumPy's running sum: the same counts.
    from sk_rankmetrics._utils.fast import count_cumsum

    rng = np.random.default_rng(n + m)
    a = rng.random((n, m + 3)) < 0.4
    a = a[:, 1:m + 1] if kind == "view" else a[:, :m]
    if kind == "uint8":
        a = a.astype(np.uint8)
    got = count_cumsum(a)
    assert got.shape == (n, m) and got.dtype.kind == "i"
    assert np.array_equal(got, np.cumsum(a, axis=1, dtype=np.int64))


def test_only_the_package_gains_are_taken_as_monotone():
    """Compat's and C/W/L's gains (callables of the package) never decrease
    with the level, so their ideal is counted by level; a user's callable is
    not assumed to, whatever it computes, and the ideal is then sorted."""
    from sk_rankmetrics._metrics.gains import resolve_gain
    from sk_rankmetrics._metrics.kernels.cwl import LevelScale
    from sk_rankmetrics._metrics.kernels.orderings import PositiveLevel
    from sk_rankmetrics._ranking.ideal import CountedLevels, _counted

    yt = np.random.default_rng(4).integers(-1, 5, (50, 30)).astype(np.int8)
    for fn in (PositiveLevel(), LevelScale(0, 4)):
        gain = resolve_gain(fn)
        assert gain.monotone
        levels = _counted(yt, gain)
        assert isinstance(levels, CountedLevels)
        want = np.sort(np.where(fn(yt) > 0, fn(yt), 0.0), axis=1)[:, ::-1]
        np.testing.assert_array_equal(levels.top(30), want)
    assert not resolve_gain(lambda r: np.maximum(r, 0.0)).monotone
    assert _counted(yt, resolve_gain(lambda r: np.maximum(r, 0.0))) is None


@pytest.mark.parametrize("pattern", ["0100", "0111", "01110", "011100", "0110110", "1000",
                                     "1110", "0000", "1111", "0010"])
@pytest.mark.parametrize("dtype", ["int8", "uint8"])
def test_indicator_of_each_pattern_of_codes(pattern, dtype):
    """An indicator table of 0 and 1 per code (one code, every code from one
    on, a run with padding's code after it, scattered, none, all) read as
    bools is the table read by the codes."""
    from sk_rankmetrics._ranking.item_values import LevelValues

    t = np.array([float(c) for c in pattern])
    rng = np.random.default_rng(len(pattern))
    codes = rng.integers(0, t.shape[0], (40, 30)).astype(dtype)
    flags = LevelValues(codes, {"rel:None": t}).indicator("rel:None")
    assert flags.dtype == bool and flags.shape == codes.shape
    np.testing.assert_array_equal(flags, t[codes.astype(np.intp)] != 0.0)
