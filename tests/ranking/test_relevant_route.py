"""Whole rows ranked through their relevant items only (sparse relevance).

Without a cut-off, DCG, nDCG, RBP, AP, bpref, ndcg_rel and Rndcg read only the tie
groups that hold an
item of nonzero value; `_ranking/relevant.py` finds them by a row sort of the
scores and a binary search of each such item's score (integer scores in a
small span: each row's count of each score). Its values equal the
full ranking's (the route switched off) on every score dtype, ties, extreme
values, rows without a relevant item, every gain and option of these metrics.
"""

from __future__ import annotations

import numpy as np
import pytest
from draws import assert_same_results, route_spy
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from spies import REFUSE, answers

import sk_rankmetrics as skr
from sk_rankmetrics._inputs import dense as dense_mod
from sk_rankmetrics._ranking import block as block_mod
from sk_rankmetrics._ranking import relevant

SETTINGS = settings(max_examples=120, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow])

#: The share the route keeps to beside the levels' narrow sort, per call.
BESIDE_NARROW = relevant.density_beside_narrow


@pytest.fixture(autouse=True)
def _beside_narrow_as_elsewhere(monkeypatch):
    """The tests of this module take the route at one nonzero entry in ten
    (:data:`relevant.DENSITY`) whatever the scores; the stricter density
    beside the levels' narrow sort has its own test."""
    monkeypatch.setattr(relevant, "density_beside_narrow", lambda requests: 1)  # (never stricter)


SCORE_DTYPES = ["float64", "float32", "float16", "int8", "int16", "int32", "int64",
                "uint8", "uint32", "bool"]
#: (metric names, options of evaluate)
CALLS = [
    (["ndcg"], {}),
    (["dcg"], {}),
    (["map"], {}),
    (["rbp"], {}),
    (["ndcg_exp", "dcg_exp"], {}),
    (["ndcg", "map", "mrr", "rbp", "dcg"], {}),
    (["bpref"], {}),
    (["bpref", "map", "ndcg"], {}),
    (["ndcg_rel"], {}),
    (["rndcg"], {}),
    ([("rndcg", {"threshold": 2})], {}),
    (["ndcg_rel", "rndcg", "ndcg", "map"], {}),
    ([("ndcg_rel", {"gain": "exponential"}), ("rndcg", {"gain": "exponential"})], {}),
]


def _scores(rng, dtype, shape, kind):
    if dtype == "bool":
        return rng.random(shape) < 0.5
    if dtype.startswith(("int", "uint")):
        info = np.iinfo(dtype)
        if kind == "extreme":
            return rng.choice(np.array([info.min, info.max, 0, 1], dtype=dtype), size=shape)
        return rng.integers(0, 3 if kind == "ties" else 100, shape).astype(dtype)
    if kind == "extreme":
        big, tiny = np.finfo(dtype).max, np.finfo(dtype).tiny
        pool = np.array([-big, big, 0.0, -0.0, tiny, -tiny, 1.0], dtype=dtype)
        return rng.choice(pool, size=shape)
    if kind == "ties":
        return (rng.integers(0, 4, shape) / 4).astype(dtype)
    return rng.random(shape).astype(dtype)


def _both(call, target=block_mod, name="rank_relevant"):
    """``call()`` with the route ``target.name`` (default: through the
    relevant items) and with it refused (the full ranking), and per block
    whether the route was taken."""
    with answers(target, name) as taken:
        fast = call()
    with answers(target, name, REFUSE):
        full = call()
    return fast, full, taken


@SETTINGS
@given(data=st.data())
def test_relevant_items_route_equals_the_full_ranking(data):
    n = data.draw(st.integers(1, 12))
    N = data.draw(st.integers(2, 80))
    rng = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1)))
    dtype = data.draw(st.sampled_from(SCORE_DTYPES))
    kind = data.draw(st.sampled_from(["uniform", "ties", "extreme"]))
    ys = _scores(rng, dtype, (n, N), kind)
    rel_kind = data.draw(st.sampled_from(["binary", "graded", "whole", "float", "all",
                                          "none"]))
    density = data.draw(st.sampled_from([0.02, 0.05, 0.3]))
    mask = rng.random((n, N)) < density
    if rel_kind == "binary":
        yt = mask.astype(data.draw(st.sampled_from([np.int8, np.int64, bool])))
    elif rel_kind == "graded":
        yt = (mask * rng.integers(1, 5, (n, N))).astype(np.int16)
    elif rel_kind == "whole":  # whole numbers in float64: counted, as integers are
        yt = mask * rng.integers(1, 5, (n, N)).astype(np.float64)
    elif rel_kind == "float":
        yt = mask * (4.0 * rng.random((n, N)) + 1e-3)
    elif rel_kind == "all":
        yt = rng.integers(1, 4, (n, N))
    else:
        yt = np.zeros((n, N), dtype=np.int64)
    if n > 1 and data.draw(st.booleans()):
        yt[0] = 0  # a row without a relevant item
    names, kw = data.draw(st.sampled_from(CALLS))
    if rel_kind == "float":
        names = [m for m in names if m not in ("ndcg_exp", "dcg_exp")
                 and not isinstance(m, tuple)] or ["ndcg"]
    # Every density through the route (its own rule would leave dense rows out).
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(relevant, "DENSITY", 1)
        mp.setattr(relevant, "_few_for_counts", lambda *a: True)
        fast, full, taken = _both(lambda: skr.evaluate(yt, ys, names, per_row=True,
                                                       no_relevant=0.0, **kw))
    assert any(taken) or not np.asarray(yt).any()
    for name in fast:
        np.testing.assert_allclose(fast[name], full[name], rtol=1e-12, atol=1e-14,
                                   err_msg=name)


@pytest.mark.parametrize("options", [{"p": 0.5}, {"graded": True}, {"p": 0.95, "graded": True}])
def test_rbp_options_through_the_route(options):
    rng = np.random.default_rng(3)
    yt = (rng.random((50, 300)) < 0.03) * rng.integers(1, 5, (50, 300))
    ys = (rng.integers(0, 40, (50, 300)) / 7).astype(np.float32)
    fast, full, taken = _both(lambda: skr.rbp_score(yt, ys, per_row=True, **options))
    assert all(taken) and taken
    np.testing.assert_allclose(fast, full, rtol=1e-12, atol=1e-15)


def test_route_left_to_dense_relevance_and_other_requests():
    """Dense relevance, a cut-off, a measure that reads positions (R-precision),
    ignore_ties, a judged mask or a gain worth something at level 0
    take the full ranking."""
    rng = np.random.default_rng(5)
    sparse = (rng.random((20, 200)) < 0.03).astype(int)
    dense = rng.integers(0, 3, (20, 200))
    ys = rng.random((20, 200))
    cases = [
        (dense, ["ndcg"], {}),
        (sparse, ["ndcg@10"], {}),
        (sparse, ["ndcg", "r_precision"], {}),
        (sparse, ["bpref"], {"judged": rng.random((20, 200)) < 0.9}),
        (sparse, ["ndcg"], {"ignore_ties": True}),
        (sparse, ["map"], {"judged": rng.random((20, 200)) < 0.9}),
    ]
    for yt, names, kw in cases:
        with answers(block_mod, "rank_relevant") as taken:
            skr.evaluate(yt, ys, names, no_relevant=0.0, **kw)
        assert not any(taken), (names, kw)
    # ... and sparse relevance alone takes it.
    with answers(block_mod, "rank_relevant") as taken:
        skr.evaluate(sparse, ys, ["ndcg", "map", "mrr"], no_relevant=0.0)
    assert taken and all(taken)


@pytest.mark.parametrize("counted", [True, False])
def test_counts_above_and_tied_of_each_relevant_item(monkeypatch, counted):
    """The binary searches (and, for integer scores in a small span, each row's
    count of each score) give each relevant item the items scoring above it
    and the size of its tie group, as counting the row directly does."""
    monkeypatch.setattr(relevant, "DENSITY", 1)
    if not counted:  # every score dtype through the row sort and binary searches
        monkeypatch.setattr(relevant, "score_counts", lambda y_score, L, span=None: None)
    rng = np.random.default_rng(11)
    for dtype in ("float64", "float32", "int16", "int64", "uint32", "bool"):
        ys = _scores(rng, dtype, (30, 97), "ties")
        assert (relevant.score_counts(ys, 1) is not None) == (
            counted and dtype in ("int16", "int64", "uint32"))
        ys[0, :5] = ys[0, 5]  # a group of six
        yt = (rng.random((30, 97)) < 0.2).astype(int)
        yt[0, 5] = 1

        class Values:  # what rank_relevant reads of a block's values
            def __init__(self, yt):
                self.yt = yt
                self.nonzero = None  # not found with the block's extremes
                self.requests = ()  # (their share beside the narrow sort: the fixture's)

            def at_nonzero(self, order):
                flat = np.take(self.nonzero.flat, order)
                return {"v": np.take(self.yt.reshape(-1), flat).astype(np.float64)}

        rc = relevant.rank_relevant(ys, Values(yt))
        g = rc.groups
        for i in range(g.first.shape[0]):
            r, s, m = int(g.row[i]), int(g.start[i]), int(g.size[i])
            x = ys[r][yt[r] > 0]
            scores_in_group = {v for v in x if np.count_nonzero(ys[r] > v) == s}
            assert len(scores_in_group) == 1
            v = scores_in_group.pop()
            assert np.count_nonzero(ys[r] == v) == m
            assert g.sums["v"][i] == np.count_nonzero((ys[r] == v) & (yt[r] > 0))
        with pytest.raises(RuntimeError, match="per-position"):
            rc.start  # noqa: B018 - no per-position statistic of left-out groups


@pytest.mark.parametrize(("N", "rel", "taken"), [
    (1000, "graded", False),  # 5 %: 500 relevant items a row against 10 groups
    (1000, "float", True),  # real-valued gains: no levels to count
    (100, "graded", True),  # 5 %: 5 relevant items a row against 10 groups
])
def test_integer_scores_leave_the_route_where_their_counts_cost_less(N, rel, taken):
    # Integer scores in a small span whose relevance takes integer levels are
    # ranked by counting (row, score, level) at once, which reads about one
    # group per row and score: the route declines where that costs less than
    # its work per relevant item (relevant._few_for_counts), and the numbers
    # are the same either way.
    rng = np.random.default_rng(5)
    n = 40_000 // N
    ys = rng.integers(0, 10, (n, N))
    mask = rng.random((n, N)) < 0.05
    yt = mask * (rng.integers(1, 5, (n, N)) if rel == "graded" else 4.0 * rng.random((n, N)))
    names = ["ndcg", "map", "bpref", "rbp"]
    fast, full, seen = _both(lambda: skr.evaluate(yt, ys, names, per_row=True,
                                                  no_relevant=0.0))
    assert seen and all(t == taken for t in seen)
    for name in names:
        np.testing.assert_allclose(fast[name], full[name], rtol=1e-12, atol=1e-14,
                                   err_msg=name)
    m, width = int(mask.sum()), 10
    assert relevant._few_for_counts(m, n, N, width) == (N == 100)


def _plain(name, rel):
    """One ordering's value of ``name`` (``rel``: levels in rank order)."""
    b = rel > 0
    R = b.sum()
    if name == "dcg":
        return float(rel @ (1.0 / np.log2(np.arange(2, rel.shape[0] + 2))))
    if name == "map":
        hits = np.cumsum(b)
        return float(np.sum(b * hits / np.arange(1, b.shape[0] + 1)) / R) if R else 0.0
    if name == "rbp":
        return float(0.2 * np.sum(b * 0.8 ** np.arange(b.shape[0])))
    if name == "bpref":
        N = (~b).sum()
        above = np.cumsum(~b) - ~b
        den = max(min(N, R), 1)
        return float(np.sum(np.where(b, 1.0 - np.minimum(above, R) / den, 0.0)) / R) if R else 0.0
    raise ValueError(name)


@pytest.mark.parametrize("name", ["dcg", "map", "rbp", "bpref"])
def test_route_is_the_expectation_over_every_ordering(name, monkeypatch):
    """Tiny rows with ties through the relevant items' route: the value is the
    mean over every ordering of the items (each tie broken every way)."""
    import itertools

    monkeypatch.setattr(relevant, "DENSITY", 1)
    rng = np.random.default_rng(21)
    for _ in range(6):
        m = 7
        yt = (rng.random(m) < 0.4) * rng.integers(1, 3, m)
        ys = rng.integers(0, 3, m).astype(np.float64)
        got = skr.evaluate(yt[None], ys[None], [name], per_row=True, no_relevant=0.0)[name][0]
        values = []
        for perm in itertools.permutations(range(m)):
            order = np.lexsort((np.array(perm), -ys))  # by score, ties every way
            values.append(_plain(name, yt[order]))
        assert got == pytest.approx(float(np.mean(values)), rel=1e-12, abs=1e-14)


@pytest.mark.parametrize("dtype", ["int8", "int64", "float64", "bool"])
def test_ideal_counts_read_the_routes_nonzero_entries(dtype, monkeypatch):
    # The route finds the entries of nonzero relevance; nDCG's ideal counts
    # them from those indices (no second pass over the block) and equals the
    # ideal counted from the whole block.
    from sk_rankmetrics._ranking import ideal

    rng = np.random.default_rng(3)
    yt = (rng.random((300, 50)) < 0.05) * rng.integers(1, 4, (300, 50))
    yt = (yt > 0) if dtype == "bool" else yt.astype(dtype)
    ys = rng.random((300, 50))
    given, real = [], ideal._counted_above
    monkeypatch.setattr(ideal, "_counted_above",
                        lambda *a: given.append(a[5] is not None) or real(*a))
    def call():
        return skr.evaluate(yt, ys, ["ndcg", "ndcg_exp"], per_row=True, no_relevant=0.0)

    fast, full, taken = _both(call)
    assert all(taken) and given and all(given[:len(given) // 2])
    # With the route refused, the indices are there only when the block's
    # extremes were made from the nonzero entries (int8; bool is read as is, int64
    # is copied to one byte, with its min and max, before).
    assert all(given[len(given) // 2:]) == (dtype == "int8")
    given.clear()
    with answers(block_mod, "rank_relevant", REFUSE), monkeypatch.context() as m:
        m.setattr(dense_mod, "few_nonzero_extremes", lambda *a: None)
        whole = call()
    assert given and not any(given)  # the ideal counted from the whole block
    for name in ("ndcg", "ndcg_exp"):
        np.testing.assert_allclose(fast[name], whole[name], rtol=1e-12, atol=1e-14)
        np.testing.assert_allclose(full[name], whole[name], rtol=1e-12, atol=1e-14)


@SETTINGS
@given(data=st.data())
def test_extremes_from_the_nonzero_entries(data):
    # The min and max made from the nonzero entries (and 0 when one is 0)
    # are the block's, NaN and infinities included; the indices are the
    # nonzero entries'; a block with many nonzero entries gives None.
    from sk_rankmetrics._ranking.item_values import few_nonzero_extremes

    n = data.draw(st.integers(1, 40))
    N = data.draw(st.integers(1, 60))
    rng = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1)))
    dtype = data.draw(st.sampled_from(["float64", "float32", "int8", "int64", "uint8"]))
    density = data.draw(st.sampled_from([0.0, 0.01, 0.05, 0.2, 1.0]))
    pool = {"f": [-2.5, -0.0, 0.5, 3.0, np.inf, -np.inf, np.nan, 1e300],
            "i": [-7, 1, 4, 120], "u": [1, 9, 255]}[np.dtype(dtype).kind]
    if dtype == "float32":
        pool = pool[:-1]  # 1e300 overflows float32
    yt = np.where(rng.random((n, N)) < density, rng.choice(np.array(pool), (n, N)),
                  0).astype(dtype)
    ex = few_nonzero_extremes(yt, relevant.DENSITY)
    m = np.count_nonzero(yt)
    if ex is None:
        assert m * relevant.DENSITY > yt.size or np.count_nonzero(
            yt.reshape(-1)[::max(1, yt.size // 4096)]) * relevant.DENSITY > 2 * min(yt.size, 4096)
        return
    assert m * relevant.DENSITY <= yt.size
    np.testing.assert_array_equal(ex.nonzero.flat, np.flatnonzero(yt))
    np.testing.assert_array_equal(ex.nonzero.values, yt[yt != 0])
    for got, want in ((ex.min(), yt.min()), (ex.max(), yt.max())):
        assert (np.isnan(got) and np.isnan(want)) or got == want
        assert np.asarray(got).dtype == yt.dtype


@SETTINGS
@given(data=st.data())
def test_counts_of_relevant_items_from_the_nonzero_entries(data):
    # Real-valued and graded relevance (negative levels too), thresholds: the
    # rows' counts of relevant items read off the nonzero entries equal those
    # of the whole block (the extremes made from every entry).
    n = data.draw(st.integers(1, 30))
    N = data.draw(st.integers(2, 80))
    rng = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1)))
    kind = data.draw(st.sampled_from(["float", "graded", "negative"]))
    mask = rng.random((n, N)) < data.draw(st.sampled_from([0.02, 0.05, 0.09]))
    yt = {"float": lambda: np.where(mask, rng.random((n, N)), 0.0),
          "graded": lambda: (mask * rng.integers(1, 5, (n, N))).astype(np.int8),
          "negative": lambda: (mask * rng.choice([-1, 1, 2], (n, N))).astype(np.int64)}[kind]()
    ys = _scores(rng, data.draw(st.sampled_from(["float64", "float32", "int64"])), (n, N),
                 data.draw(st.sampled_from(["uniform", "ties"])))
    t = data.draw(st.sampled_from([None, 0.5, 2]))
    names = (["map", "r_precision", "recall", "bpref", "success"] if t is None else
             [f"{m}(rel={t})" for m in ("AP", "Rprec", "R", "Bpref", "Success")])
    if kind != "negative":
        names += ["ndcg", "ndcg_exp"]
    opts = {"no_relevant": 0.0, "per_row": True}
    got = skr.evaluate(yt, ys, names, **opts)
    with pytest.MonkeyPatch.context() as m:
        m.setattr(dense_mod, "few_nonzero_extremes", lambda *a: None)
        want = skr.evaluate(yt, ys, names, **opts)
    for name in names:
        np.testing.assert_allclose(got[name], want[name], rtol=1e-12, atol=1e-14)


@given(n=st.integers(1, 30), N=st.integers(1, 140), data=st.data())
@SETTINGS
def test_the_binary_search_counts_as_searchsorted(n, N, data):
    # Every row width (the probes halve N without a bound on any), queries in
    # the row, between its values and past either end, and ties.
    rng = np.random.default_rng(data.draw(st.integers(0, 2**16)))
    srt = np.sort(rng.integers(-3, 4, (n, N)).astype(np.float64) / 2, axis=1)
    m = data.draw(st.integers(0, 60))
    row = rng.integers(0, n, m)
    v = rng.integers(-9, 10, m).astype(np.float64) / 4
    for below, side in ((np.less_equal, "right"), (np.less, "left")):
        got = relevant._count_at_most(srt.reshape(-1), row * N, v, N, below)
        want = [np.searchsorted(srt[r], x, side=side) for r, x in zip(row, v)]
        np.testing.assert_array_equal(got, np.asarray(want, dtype=np.intp).reshape(m))


@pytest.mark.parametrize("bound", [1, 7, 1 << 16, (1 << 16) + 1, 1 << 20, 1 << 31, (1 << 31) + 1,
                                   1 << 40])
@pytest.mark.parametrize("dtype", [np.int64, np.int32, np.uint16])
def test_stable_order_is_the_stable_argsort(bound, dtype):
    from sk_rankmetrics._utils.fast import stable_order

    if np.iinfo(dtype).max < bound - 1:
        pytest.skip("keys of this bound do not fit the dtype")
    rng = np.random.default_rng(bound % 1000)
    for m in (0, 1, 5, 13000):
        key = (rng.integers(0, min(bound, 50), m) * (bound // min(bound, 50))).astype(dtype)
        kept = key.copy()
        order, sorted_key = stable_order(key, bound)
        want = np.argsort(key, kind="stable")
        np.testing.assert_array_equal(order, want)
        np.testing.assert_array_equal(sorted_key, key[want].astype(np.int64))
        assert sorted_key.dtype == np.int64
        np.testing.assert_array_equal(key, kept)  # the keys are not written


@pytest.mark.parametrize("gain", ["linear", "exponential"])
@given(n=st.integers(0, 25), N=st.integers(1, 40), data=st.data())
@SETTINGS
def test_ideal_levels_of_the_nonzero_entries_equal_the_sorted_rows(gain, n, N, data):
    # Real-valued relevance on a few entries (ties between them, empty rows,
    # a block with none): the levels made from those entries alone equal
    # those of every row's gains sorted.
    from sk_rankmetrics._metrics.gains import resolve_gain
    from sk_rankmetrics._ranking.ideal import IdealLevels, _positive_levels
    from sk_rankmetrics._ranking.item_values import NonzeroEntries

    rng = np.random.default_rng(data.draw(st.integers(0, 2**16)))
    y = np.where(rng.random((n, N)) < data.draw(st.sampled_from([0.0, 0.05, 0.3, 1.0])),
                 rng.integers(1, 5, (n, N)) / data.draw(st.sampled_from([1, 3, 7.5])), 0.0)
    g = resolve_gain(gain)
    got = _positive_levels(y, g, 0.0, NonzeroEntries(y, np.flatnonzero(y)))
    want = IdealLevels.from_sorted(np.sort(np.asarray(g(y), dtype=np.float64), axis=1))
    for name in ("rows", "end", "gain", "begin", "P", "total", "full_idcg"):
        np.testing.assert_allclose(getattr(got, name), getattr(want, name), rtol=1e-15,
                                   err_msg=name)
    assert got.complete and want.complete
    below = y - 1.0
    assert _positive_levels(below, g, -1.0, NonzeroEntries(below, np.flatnonzero(below))) is None
    assert _positive_levels(y, g, 0.0, None) is None  # the entries unknown


@pytest.mark.parametrize("gain", ["linear", "exponential"])
@given(n=st.integers(1, 25), N=st.integers(2, 60), data=st.data())
@SETTINGS
def test_ideal_top_from_the_nonzero_entries_equals_the_whole_rows(gain, n, N, data):
    # Real-valued relevance on a few entries (ties, rows with none, rows with
    # more than the cut): the top of each row read off its nonzero entries
    # equals that of the whole rows.
    from sk_rankmetrics._metrics.gains import resolve_gain
    from sk_rankmetrics._ranking.ideal import ideal_gains
    from sk_rankmetrics._ranking.item_values import few_nonzero_extremes

    rng = np.random.default_rng(data.draw(st.integers(0, 2**16)))
    y = np.where(rng.random((n, N)) < data.draw(st.sampled_from([0.0, 0.03, 0.08])),
                 rng.integers(1, 9, (n, N)) / data.draw(st.sampled_from([3, 7.5])), 0.0)
    width = data.draw(st.integers(1, N - 1))
    g = resolve_gain(gain)
    ex = few_nonzero_extremes(y, relevant.DENSITY)
    if ex is None:
        return
    got = ideal_gains(y, g, None, width, extremes=ex, nonzero=ex.nonzero)
    want = ideal_gains(y, g, None, width)
    np.testing.assert_array_equal(got, want)


def _float32_counts(call):
    """``call()`` with float64 scores counted in float32 and by the float64
    sort, and per block whether the float32 counts answered."""
    return _both(call, relevant, "_count_in_float32")


@SETTINGS
@given(data=st.data())
def test_float64_scores_counted_in_float32_equal_the_float64_sort(data):
    # Scores that round to one float32 but differ in float64 (a few float64
    # steps apart), exact ties, -0.0 beside 0.0, values past float32's range:
    # the counts are the float64 sort's, so the metrics are equal bit for bit.
    rng = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1)))
    n, N = data.draw(st.integers(1, 10)), data.draw(st.integers(2, 60))
    ys = rng.random((n, N))
    pick = lambda share: rng.random((n, N)) < share  # noqa: E731
    steps = data.draw(st.sampled_from([0, 1, 3, 2**20]))  # float64 steps apart
    near = pick(data.draw(st.sampled_from([0.0, 0.1, 0.5])))
    ys[near] = ys.flat[0] + steps * np.spacing(ys.flat[0])
    ys[pick(0.05)] = ys.flat[0]  # exact ties
    ys[pick(0.05)] = -0.0
    ys[pick(0.05)] = 0.0
    if data.draw(st.booleans()):
        ys[pick(0.02)] = data.draw(st.sampled_from([1e300, -1e300, 3.5e38]))
    yt = pick(data.draw(st.sampled_from([0.03, 0.08]))) * rng.integers(1, 5, (n, N))
    if not yt.any():
        yt[0, 0] = 1
    names = data.draw(st.sampled_from([["ndcg", "map", "bpref"], ["dcg", "rbp"],
                                       [("err", {"max_grade": 4})]]))
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(relevant, "DENSITY", 1)
        mp.setattr(relevant, "_MOST_TIED_32", 0)  # however many are in doubt
        fast, full, _ = _float32_counts(lambda: skr.evaluate(yt, ys, names, per_row=True,
                                                            no_relevant=0.0))
    for name in full:
        np.testing.assert_array_equal(fast[name], full[name], err_msg=str(name))


def test_float32_counts_taken_and_left():
    rng = np.random.default_rng(21)
    yt = (rng.random((400, 100)) < 0.05) * rng.integers(1, 5, (400, 100))
    ys = rng.random((400, 100))
    # Uniform float64 scores: counted in float32.
    _, _, taken = _float32_counts(lambda: skr.evaluate(yt, ys, ["ndcg"], no_relevant=0.0))
    assert taken == [True]
    # A few relevant items beside a score one float64 step away (the same
    # float32) or tied: counted against the float64 scores.
    few = ys.copy()
    rows = np.flatnonzero(yt.any(axis=1))[:20]
    cols = yt[rows].argmax(axis=1)
    other = (cols + 1) % 100
    few[rows[:10], other[:10]] = np.nextafter(few[rows[:10], cols[:10]], 2.0)
    few[rows[10:], other[10:]] = few[rows[10:], cols[10:]]
    fast, full, taken = _float32_counts(lambda: skr.evaluate(yt, few, ["ndcg", "bpref"],
                                                            per_row=True, no_relevant=0.0))
    assert taken == [True]
    for name in full:
        np.testing.assert_array_equal(fast[name], full[name])
    # Each relevant item beside a score one float64 step away (the same
    # float32): most items in doubt, so the float64 sort.
    close = ys.copy()
    close[:, 1::2] = np.nextafter(close[:, ::2], 2.0)
    yt2 = np.zeros_like(yt)
    yt2[:, ::10] = 1
    _, _, taken = _float32_counts(lambda: skr.evaluate(yt2, close, ["ndcg"], no_relevant=0.0))
    assert taken == [False]
    # A score past float32's range (finite in float64): the float64 sort.
    big = ys.copy()
    big[3, 4] = 1e39
    fast, full, taken = _float32_counts(lambda: skr.evaluate(yt, big, ["map"], per_row=True,
                                                            no_relevant=0.0))
    assert taken == [False]
    np.testing.assert_array_equal(fast["map"], full["map"])
    # NaN: the float64 sort's check names the place.
    bad = ys.copy()
    bad[5, 6] = np.nan
    with pytest.raises(ValueError, match=r"row 5, column 6"):
        skr.evaluate(yt, bad, ["ndcg"], no_relevant=0.0)


@pytest.mark.parametrize("name", ["ndcg_rel", "rndcg"])
@pytest.mark.parametrize("ties", [False, True])
def test_ndcg_rel_and_rndcg_through_the_route(name, ties):
    """ndcg_rel and Rndcg through the relevant items: untied scores read the
    list of the rows' relevant items (``gain_curves._Listed``), tied scores
    their tie groups; every row against the reference formula (untied) or
    the full ranking (tied), with a row of no relevant item, one whose
    relevant items all tie, and rows whose relevant items come last."""
    import reference as ref

    rng = np.random.default_rng(8)
    n, N = 40, 300
    yt = ((rng.random((n, N)) < 0.03) * rng.integers(1, 5, (n, N))).astype(np.int8)
    yt[0] = 0
    yt[1, :5] = 3
    ys = (rng.integers(0, 20, (n, N)) / 4.0) if ties else rng.random((n, N))
    ys[1, :5] = ys[1].max() + 1.0  # its relevant items first (tied when ties)
    if not ties:
        ys[1, :5] += np.arange(5.0)
    ys[2] = -np.arange(N, dtype=np.float64)
    yt[2] = 0
    yt[2, -3:] = [1, 2, 4]  # the relevant items ranked last
    fast, full, taken = _both(lambda: skr.evaluate(yt, ys, [name], per_row=True,
                                                   no_relevant=0.0))
    assert taken and all(taken)
    np.testing.assert_allclose(fast[name], full[name], rtol=1e-12, atol=1e-14)
    if not ties:
        want = [ref.METRICS[name](list(y), list(np.argsort(-s, kind="stable"))) or 0.0
                for y, s in zip(yt, ys)]
        np.testing.assert_allclose(fast[name], want, rtol=1e-12, atol=1e-14)


@pytest.mark.parametrize(("scores", "N", "share", "metrics", "taken"), [
    ("float32", 100, 0.03, ["ndcg", "map"], True),
    ("float32", 100, 0.05, ["ndcg", "map"], True),    # nDCG's 18, AP's 16
    ("float32", 100, 0.05, ["map", "rndcg"], False),  # the largest figure: Rndcg's 25
    ("float32", 100, 0.06, ["ndcg"], False),          # one in 16.7 against nDCG's 18
    ("float32", 100, 0.06, ["map", "bpref", "ndcg_rel", "g"], True),
    ("float32", 100, 0.06, ["map", "mrr"], True),     # MRR scans the rows: not ranked
    ("float32", 100, 0.08, ["map"], False),
    ("float32", 1000, 0.08, ["ndcg", "rndcg"], True),  # rows of more than 512: the wider rule
    ("float64", 100, 0.03, ["ndcg", "rndcg"], True),
    ("float64", 100, 0.05, ["ndcg", "rndcg"], False),
    ("float64", 100, 0.05, ["rbp", "dcg"], True),
    ("float64", 100, 0.06, ["bpref"], True),
    ("float64", 100, 0.06, ["bpref", "dcg"], False),
    ("float64", 1000, 0.08, ["ndcg", "rndcg"], True),  # the levels' route sorts wide keys
    ("float16", 100, 0.08, ["ndcg", "rndcg"], True),   # no levels' route
])
def test_route_beside_the_levels_narrow_sort(scores, N, share, metrics, taken, monkeypatch):
    """Where the levels' route would sort narrow keys (rows of at most 512
    float scores) the route is taken up to one nonzero entry in the largest
    of the ranked measures' ``sparse_beside_sort`` (25; 18 for nDCG, DCG and
    RBP; 16 for AP, bpref, infAP, G and ndcg_rel), elsewhere up to one in
    :data:`relevant.DENSITY`;
    real-valued relevance (no levels) keeps the wider rule. The numbers are
    the same either way."""
    monkeypatch.setattr(relevant, "density_beside_narrow", BESIDE_NARROW)
    rng = np.random.default_rng(9)
    n = 200_000 // N
    mask = np.zeros((n, N), dtype=bool)
    mask.reshape(-1)[rng.choice(n * N, int(share * n * N), replace=False)] = True
    ys = rng.random((n, N)).astype(scores)
    for yt in (mask * rng.integers(1, 5, (n, N)), mask * (rng.random((n, N)) + 0.5)):
        fast, full, route = _both(lambda yt=yt: skr.evaluate(yt, ys, metrics,
                                                             per_row=True, no_relevant=0.0))
        levels = yt.dtype.kind == "i"
        assert all(route) == (taken or not levels) and any(route) == all(route)
        for name in fast:
            np.testing.assert_allclose(fast[name], full[name], rtol=1e-12, atol=1e-14)


@SETTINGS
@given(st.data())
def test_order_of_distinct_keys_is_the_sorts(data):
    """The flag tables order distinct keys as the stable sort does; keys
    that repeat, or too few for the bound, are left to the sort (None)."""
    from sk_rankmetrics._utils.fast import stable_order

    bound = data.draw(st.integers(1, 3000))
    keys = data.draw(st.lists(st.integers(0, bound - 1), max_size=200))
    key = np.array(keys, dtype=np.int64)
    got = relevant._order_of_distinct(key, bound)
    if len(set(keys)) < len(keys) or len(keys) * relevant._SPARSEST_TABLE < bound:
        assert got is None
    else:
        assert got.dtype == np.intp
        np.testing.assert_array_equal(got, stable_order(key, bound)[0])


def test_order_of_distinct_keys_by_hand():
    key = np.array([7, 2, 30, 5, 0])
    np.testing.assert_array_equal(relevant._order_of_distinct(key, 31), [4, 1, 3, 0, 2])
    assert relevant._order_of_distinct(np.array([3, 3]), 4) is None  # a tie: the sort
    assert relevant._order_of_distinct(np.array([3]), 65) is None  # too sparse: the sort


@SETTINGS
@given(st.data())
def test_group_order_is_the_stable_sort_and_marks_each_run(data):
    """Row-major keys (a row's keys after the rows before it, in any order
    within the row), few or many a row, distinct or repeated: the order is
    the stable argsort's, and ``first`` marks each key that differs from the
    one before it in that order (None when none repeats)."""
    n = data.draw(st.integers(1, 30))
    width = data.draw(st.integers(1, 40))
    per_row = data.draw(st.lists(st.integers(0, 3 * relevant._FEW_PER_ROW), min_size=n,
                                 max_size=n))
    parts = [r * width + np.array(data.draw(st.lists(st.integers(0, width - 1), min_size=c,
                                                      max_size=c)), dtype=np.int64)
             for r, c in enumerate(per_row)]
    key = np.concatenate(parts) if parts else np.zeros(0, dtype=np.int64)
    order, first = relevant._group_order(key.copy(), n * width, n)
    want = np.argsort(key, kind="stable")
    np.testing.assert_array_equal(order, want)
    s = key[want]
    opens = np.r_[True, s[1:] != s[:-1]][: s.shape[0]]
    if opens.all():
        assert first is None
    else:
        np.testing.assert_array_equal(first, opens)


def test_group_order_takes_each_route():
    """Few keys a row take the merge sort; many distinct keys the flag
    tables; many repeated keys the radix sort: each gives the stable order."""
    few = np.array([3, 1, 2, 10, 12, 11], dtype=np.int64)  # rows of 3, width 10
    order, first = relevant._group_order(few, 20, 2)
    np.testing.assert_array_equal(order, [1, 2, 0, 3, 5, 4])
    assert first is None
    many = np.arange(40, dtype=np.int64)[::-1].copy()  # one row of 40 distinct keys
    order, first = relevant._group_order(many, 40, 1)
    np.testing.assert_array_equal(order, np.arange(40)[::-1])
    assert first is None
    tied = np.repeat(np.arange(20, dtype=np.int64), 2)[::-1].copy()  # one row, pairs
    order, first = relevant._group_order(tied, 40, 1)
    np.testing.assert_array_equal(order, np.argsort(tied, kind="stable"))
    np.testing.assert_array_equal(first, np.tile([True, False], 20))


@pytest.mark.parametrize("scores", ["float32", "int64"])
@pytest.mark.parametrize(("names", "each_item"), [
    (["ndcg"], True),
    (["dcg", "rbp", "ndcg_exp", ("rank_biased_precision", {"graded": True})], True),
    (["ndcg", "mrr", "precision"], True),  # MRR scans the rows, precision reads the set
    (["ndcg", "map"], False),
    (["rbp", "err"], False),
    (["g"], False),
])
def test_weighted_measures_take_each_relevant_item_as_its_group(scores, names, each_item):
    """nDCG, DCG and RBP (a weighted sum over the items) read each relevant
    item as a group of its own: as many groups as relevant items, those
    sharing a tie group included; with any other ranked measure beside them
    the groups are merged, one per tie group. The values are the same
    either way."""
    rng = np.random.default_rng(11)
    yt = (rng.random((300, 60)) < 0.08) * rng.integers(1, 5, (300, 60))
    ys = rng.integers(0, 12, (300, 60))  # many relevant items share a tie group
    ys = (ys / 7).astype(np.float32) if scores == "float32" else ys
    m = np.count_nonzero(yt)
    seen, patch = route_spy(block_mod, "rank_relevant")
    with patch:
        got = skr.evaluate(yt, ys, names, per_row=True, no_relevant=0.0)
    assert seen and all(rc is not None for rc in seen)
    n_groups = sum(rc.groups.size.shape[0] for rc in seen)
    assert (n_groups == m) if each_item else (n_groups < m)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(relevant, "_weighs_only", lambda requests: False)
        want = skr.evaluate(yt, ys, names, per_row=True, no_relevant=0.0)
    assert_same_results(got, want)


def test_the_measures_weighing_groups_read_groups_and_take_the_route_within_its_bound():
    """``weighs_groups`` is a refinement of ``reads_groups`` (nDCG, DCG and
    RBP, whose kernels read ``rc.weighted`` only), and every measure's share
    beside the narrow sort is within the route's own (:data:`DENSITY`)."""
    from sk_rankmetrics._metrics.registry import REGISTRY

    weighing = {name for name, spec in REGISTRY.items() if spec.weighs_groups}
    assert weighing == {"ndcg", "dcg", "rbp"}
    for spec in REGISTRY.values():
        assert spec.reads_groups or not spec.weighs_groups
        assert spec.sparse_beside_sort >= relevant.DENSITY
