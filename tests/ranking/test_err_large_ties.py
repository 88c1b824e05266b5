"""ERR over large tie groups against a slow, obviously correct reference.

ERR's tie expectation skips the tie groups the user reaches with a share of
the value below rounding and the subset means past the column where they fall
below it (``_err_kept_groups``). The small rows of
``tests/ranking/test_full_depth_kernels.py`` never reach either cut, so here
rows of up to 300 items in a few tie groups, with dense graded relevance (the
case the cuts are for), are checked against the expectation written from its
definition: ``Q[t] = e_t(y) / C(m, t)`` (the elementary symmetric polynomials
of the group's ``1 - R``, from the polynomial ``prod (1 + y x)``, a different
route from the kernel's growing pool), every group and every position kept.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import sk_rankmetrics as skr

SETTINGS = settings(max_examples=40, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow])

SCORE_DTYPES = ["float64", "float32", "float16", "int8", "int16", "int32", "int64",
                "uint8", "bool"]


def err_reference(rel, score, max_grade, k=None):
    """ERR (at k) from its definition, every tie group and position kept."""
    stop = (2.0 ** np.asarray(rel, dtype=np.float64) - 1.0) / 2.0**max_grade
    values = np.asarray(score, dtype=np.float64)
    n = len(rel) if k is None else min(k, len(rel))
    total, reach, start = 0.0, 1.0, 0
    for s in sorted(set(values.tolist()), reverse=True):
        if start >= n:
            break
        ys = 1.0 - stop[values == s]
        m = len(ys)
        poly = np.array([1.0])
        for yi in ys:  # prod (1 + y x): its coefficients are e_0..e_m
            poly = np.convolve(poly, [1.0, yi])
        Q = [poly[t] / math.comb(m, t) for t in range(m + 1)]
        for j in range(1, min(m, n - start) + 1):
            total += reach * (Q[j - 1] - Q[j]) / (start + j)
        reach *= Q[m]
        start += m
    return total


@SETTINGS
@given(st.data())
def test_err_large_tie_groups_match_definition(data):
    n = data.draw(st.integers(30, 300))
    levels = data.draw(st.integers(1, 6))
    dtype = data.draw(st.sampled_from(SCORE_DTYPES))
    dense = data.draw(st.sampled_from([0.02, 0.3, 0.8, 1.0]))
    seed = data.draw(st.integers(0, 2**32 - 1))
    k = data.draw(st.sampled_from([None, 5, 50, 1000]))
    rng = np.random.default_rng(seed)
    rel = np.where(rng.random(n) < dense, rng.integers(1, 5, n), 0)
    score = rng.integers(0, levels, n)
    if dtype == "bool":
        score = score % 2
    score = score.astype(dtype)
    name = "err" if k is None else f"err@{k}"
    got = skr.evaluate(rel[None], score[None], [(name, {"max_grade": 4, "normalize": False})],
                       per_row=True, no_relevant=0.0)
    value = next(iter(got.values()))[0]
    assert value == pytest.approx(err_reference(rel, score, 4, k), rel=1e-12, abs=1e-15)


@pytest.mark.parametrize("dtype", ["float64", "float32", "int64"])
def test_err_ties_in_many_rows_match_definition(dtype):
    # Many rows in one call (several chunks' worth of tied groups at once),
    # each row against the definition.
    rng = np.random.default_rng(7)
    rel = rng.integers(0, 5, (200, 150))
    score = rng.integers(0, 4, (200, 150)).astype(dtype)
    score[::3] = rng.random((67, 150)).astype(dtype)  # some rows nearly untied
    rel[5] = 0  # a row without a relevant item
    got = skr.evaluate(rel, score, [("err", {"max_grade": 4, "normalize": False})],
                       per_row=True, no_relevant=0.0)
    values = next(iter(got.values()))
    ref = [err_reference(rel[i], score[i], 4) for i in range(rel.shape[0])]
    np.testing.assert_allclose(values, ref, rtol=1e-12, atol=1e-15)


def test_err_extreme_scores_tie_as_equal_values():
    # Huge and tiny scores, and -0.0 tied with 0.0; infinity is refused.
    rel = np.array([3, 0, 4, 1, 2, 4, 0, 1, 2, 3] * 4)
    base = np.array([1e308, -1e308, 1e308, 5e-324, -0.0, 0.0, 1.0, -1e308, 0.0, -0.0])
    score = np.tile(base, 4)
    got = skr.evaluate(rel[None], score[None], [("err", {"max_grade": 4, "normalize": False})],
                       per_row=True, no_relevant=0.0)
    value = next(iter(got.values()))[0]
    assert value == pytest.approx(err_reference(rel, score, 4), rel=1e-12)
    with pytest.raises(ValueError, match="y_score contains NaN or infinity"):
        skr.evaluate(rel[None], np.where(score == 1.0, np.inf, score)[None], ["err"])


@pytest.mark.parametrize("case", ["shared", "distinct", "wide"])
def test_err_tie_compositions_made_once_per_call(case, monkeypatch):
    # The stop probabilities of a tied group depend on its size and grade
    # counts (its composition) only: they are made once per call and shared
    # by every row block (the blocks made small here, so that a call spans
    # many), except where one number per composition would pass 2**53 (so
    # many grades on rows so long that each block numbers its own; max_grade
    # 6 on rows of 200 takes the int64 number). Many rows of a few
    # compositions, rows whose compositions are mostly their own, and the
    # wide case; each row against the definition, and what was made checked.
    from sk_rankmetrics._inputs import budget
    from sk_rankmetrics._metrics.kernels import tie_stops

    made = []
    make = tie_stops._TieStops._make

    def spy(self, counts, size, n, base, **kw):
        made.append((np.column_stack([size, counts]).astype(np.int64), self.place is None))
        return make(self, counts, size, n, base, **kw)

    monkeypatch.setattr(tie_stops._TieStops, "_make", spy)
    monkeypatch.setattr(budget, "FULL_DENSE_ELEMENTS", 2**11)
    rng = np.random.default_rng({"shared": 1, "distinct": 2, "wide": 3}[case])
    top = {"shared": 1, "distinct": 6, "wide": 40}[case]
    if case == "shared":  # binary relevance on 2 %, groups of about 30
        rel = (rng.random((400, 120)) < 0.02).astype(np.int64)
        score = rng.integers(0, 4, (400, 120))
    else:  # every grade, groups of uneven size
        rel = rng.integers(0, top + 1, (60, 200))
        score = np.minimum(rng.geometric(0.15, (60, 200)), 12)
    got = skr.evaluate(rel, score, [("err", {"max_grade": top, "normalize": False})],
                       per_row=True, no_relevant=0.0)
    values = next(iter(got.values()))
    ref = [err_reference(rel[i], score[i], top) for i in range(rel.shape[0])]
    np.testing.assert_allclose(values, ref, rtol=1e-12, atol=1e-15)
    # The tied groups holding a relevant item, by composition.
    groups = []
    for r, sc in zip(rel, score):
        for v in np.unique(sc):
            g = r[sc == v]
            if g.shape[0] > 1 and g.any():
                groups.append([g.shape[0], *np.bincount(g, minlength=top + 1)[1:]])
    distinct = np.unique(np.array(groups), axis=0)
    rows = np.concatenate([m for m, _ in made])
    assert made and all(wide == (case == "wide") for _, wide in made)
    assert len(made) > 3  # several blocks made compositions
    # Every composition made is one of the data's.
    assert {tuple(x) for x in rows.tolist()} <= {tuple(x) for x in distinct.tolist()}
    if case != "wide":  # once per call
        assert np.unique(rows, axis=0).shape[0] == rows.shape[0]
    if case == "shared":
        assert rows.shape[0] * 4 < len(groups)


def test_tie_stops_shared_by_threads_and_full():
    # Blocks on two threads share one table (each finds its groups' terms,
    # whatever the other added meanwhile), and past its size a block's
    # compositions are made for it alone: the same values all ways (to
    # rounding: the compositions are made in other batches).
    from concurrent.futures import ThreadPoolExecutor

    from sk_rankmetrics._metrics.kernels import tie_stops

    top = 4
    y = 1.0 - (2.0 ** np.arange(1, top + 1) - 1.0) / 2.0**top
    rng = np.random.default_rng(11)
    blocks = []
    for _ in range(24):
        size = rng.integers(2, 30, 400)
        counts = np.minimum(rng.integers(0, 4, (top, 400)), size // top).astype(np.float64)
        counts[0] += counts.sum(axis=0) == 0  # every group holds a relevant item
        blocks.append((counts, size))

    def terms(table, counts, size):
        off, n, flat = table.lookup(counts, size)
        return [flat[o:o + k].copy() for o, k in zip(off.tolist(), n.tolist())]

    alone = [terms(tie_stops._TieStops(y, 30), c, s) for c, s in blocks]
    shared = tie_stops._TieStops(y, 30)
    with ThreadPoolExecutor(2) as pool:
        both = list(pool.map(lambda b: terms(shared, *b), blocks))
    small = tie_stops._TieStops(y, 30)
    full = tie_stops._TIE_STOPS_MAX
    try:
        tie_stops._TIE_STOPS_MAX = 5000
        capped = [terms(small, c, s) for c, s in blocks]
    finally:
        tie_stops._TIE_STOPS_MAX = full
    assert small.used <= 5000
    for a, b, c in zip(alone, both, capped):
        for x, y_, z in zip(a, b, c):
            # (made in other batches: equal to rounding; the terms are
            # differences of means at most 1)
            np.testing.assert_allclose(y_, x, rtol=1e-13, atol=1e-15)
            np.testing.assert_allclose(z, x, rtol=1e-13, atol=1e-15)
    keys = {tuple(np.column_stack([s, c.T]).tolist()[i]) for c, s in blocks
            for i in range(s.shape[0])}
    assert shared.made == shared.table.keys.shape[0] == len(keys)


def test_compositions_number_equal_groups_alike_on_both_ways():
    # The one-number key (made in float64 below 2**53, in int64 up to 2**62)
    # and the whole-row comparison (when the key would overflow) number the
    # same groups alike.
    from sk_rankmetrics._metrics.kernels.tie_stops import _compositions

    rng = np.random.default_rng(5)
    size = rng.integers(1, 4, 500)
    counts = rng.integers(0, 3, (500, 3)).astype(np.float64)
    # 40 more columns of 0..3 (at least 4**39 numbers): compared whole.
    wide = np.hstack([counts, rng.integers(0, 4, (500, 40)) * (size[:, None] == 1)])
    # 24 more (4 * 27 * 4**24, about 2**54.8): the int64 key.
    middle = np.hstack([counts, rng.integers(0, 4, (500, 24)) * (size[:, None] == 1)])
    for c in (counts, middle, wide):
        comp, first = _compositions(size, c)
        parts = np.column_stack([size, c])
        np.testing.assert_array_equal(parts[first[comp]], parts)  # each names its own
        assert np.unique(parts, axis=0).shape[0] == first.shape[0]  # one number each


def _err_against_definition(rel, score, cut):
    """ERR (grades 0..4, not normalised) of each row, whole and cut at
    ``cut``, against the definition."""
    for k in (None, cut):
        name = "err" if k is None else f"err@{k}"
        got = skr.evaluate(rel, score, [(name, {"max_grade": 4, "normalize": False})],
                           per_row=True, no_relevant=0.0)
        ref = [err_reference(rel[i], score[i], 4, k) for i in range(rel.shape[0])]
        np.testing.assert_allclose(next(iter(got.values())), ref, rtol=1e-12, atol=1e-15)


@pytest.mark.parametrize("by_term", [True, False])
def test_err_group_sums_both_ways(by_term, monkeypatch):
    # A block's tied groups sum their terms one term of every group at a
    # time (many groups) or all terms in one array (few): both ways against
    # the definition, with a cut inside the groups, and the sums themselves
    # against a plain loop.
    from sk_rankmetrics._metrics.kernels import tie_stops

    monkeypatch.setattr(tie_stops, "_SUM_BY_TERM", 0 if by_term else 10**9)
    rng = np.random.default_rng(17)
    _err_against_definition(rng.integers(0, 5, (300, 90)), rng.integers(0, 6, (300, 90)), 40)
    flat = rng.random(500)
    n = rng.integers(1, 20, 300)
    offset = rng.integers(0, 480, 300)
    start = rng.integers(0, 50, 300)
    want = [sum(flat[o + j] / (s + j + 1) for j in range(k))
            for o, k, s in zip(offset.tolist(), n.tolist(), start.tolist())]
    np.testing.assert_allclose(tie_stops._sum_terms(flat, offset, n, start), want,
                               rtol=1e-13)


@pytest.mark.parametrize("room", [True, False])
def test_err_group_sums_by_windows(room, monkeypatch):
    # Groups of many terms read theirs as windows of the stored terms, the
    # entries past a group's own set to 0: whatever they hold (NaN here,
    # as memory not yet written may) adds nothing. A table too short for a
    # window takes the term-at-a-time sums. Both against a plain loop, and
    # ERR over long tied groups (rows of 400 scored 0..3: about 100 items a
    # group) against the definition, with the windows made a few groups at
    # a time.
    from sk_rankmetrics._metrics.kernels import tie_stops

    rng = np.random.default_rng(29)
    n = rng.integers(40, 70, 3000)
    offset = rng.integers(0, 20000, 3000)
    start = rng.integers(0, 300, 3000)
    # Each group's own terms within the first 20,030 entries; past them NaN
    # (room for the widest window) or the end (none).
    flat = np.full(20100 if room else 20030, np.nan)
    flat[:20030] = rng.random(20030)
    n = np.minimum(n, 20030 - offset)
    want = [sum(flat[o + j] / (s + j + 1) for j in range(k))
            for o, k, s in zip(offset.tolist(), n.tolist(), start.tolist())]
    got = tie_stops._sum_terms(flat, offset, n, start)
    np.testing.assert_allclose(got, want, rtol=1e-13)
    assert np.isfinite(got).all()
    monkeypatch.setattr(tie_stops, "_WINDOW_CELLS", 1000)
    monkeypatch.setattr(tie_stops, "_SUM_BY_TERM", 0)
    windows = []
    by_windows = tie_stops._sum_windows
    monkeypatch.setattr(tie_stops, "_sum_windows",
                        lambda *a: windows.append(a[2].shape[0]) or by_windows(*a))
    _err_against_definition(rng.integers(0, 5, (40, 400)), rng.integers(0, 4, (40, 400)), 250)
    assert windows and sum(windows) > 1000 // 100  # more than one piece of groups


@pytest.mark.parametrize("room", ["every", "some", "none"])
def test_err_group_sums_read_off_weighted_rows(room, monkeypatch):
    # On short rows each composition keeps its sums weighted at every start
    # (a row of them), which a group whose terms all lie before the cut reads
    # at its start; a group the cut splits, or whose composition came after
    # the rows were full (``some``), sums its terms; rows too long keep none.
    # Each way against the plain sums of the terms, and ERR (whole and cut
    # inside the groups, over rows of 80 scored 0..7) against the definition.
    from sk_rankmetrics._metrics.kernels import tie_stops

    if room == "some":
        monkeypatch.setattr(tie_stops, "_WEIGHTED_MAX", 60 * 40)
    if room == "none":
        monkeypatch.setattr(tie_stops, "_WEIGHTED_MAX_L", 10)
    top = 4
    y = 1.0 - (2.0 ** np.arange(1, top + 1) - 1.0) / 2.0**top
    rng = np.random.default_rng(37)
    table = tie_stops._TieStops(y, 60)
    for _ in range(6):
        size = rng.integers(2, 25, 500)
        counts = np.minimum(rng.integers(0, 5, (top, 500)), size // top).astype(np.float64)
        counts[0] += counts.sum(axis=0) == 0
        start = rng.integers(0, 60, 500) % (61 - size)  # each group within the row
        kc = 45
        keep = start < kc
        got = table.group_sums(counts[:, keep], size[keep], start[keep], kc)
        off, n, flat = table.lookup(counts[:, keep], size[keep])
        n = np.minimum(n, kc - start[keep])
        want = [sum(flat[o + j] / (s + j + 1) for j in range(k))
                for o, k, s in zip(off.tolist(), n.tolist(), start[keep].tolist())]
        np.testing.assert_allclose(got, want, rtol=1e-13, atol=1e-16)
    rows = 0 if table.weighted is None else table.n_weighted
    assert rows == {"every": table.offsets.shape[0], "some": 40, "none": 0}[room]
    _err_against_definition(rng.integers(0, 5, (200, 80)), rng.integers(0, 8, (200, 80)), 33)


def test_tie_tables_let_go_after_each_call():
    # The compositions' table lives for one call: requests that outlive it
    # (an accumulator's, pickled with it) keep nothing, and a later call
    # starts afresh with the same numbers.
    import pickle

    from sk_rankmetrics import RankingAccumulator

    rng = np.random.default_rng(3)
    rel = rng.integers(0, 5, (300, 100))
    score = rng.integers(0, 10, (300, 100))
    acc = RankingAccumulator(["err"])
    seen = []
    from sk_rankmetrics._metrics.kernels import tie_stops

    find = tie_stops._TieStops._find

    def spy(self, counts, size, **kw):
        seen.append(self)
        return find(self, counts, size, **kw)

    tie_stops._TieStops._find = spy
    try:
        acc.update(rel, score)
        acc.update(rel, score)
    finally:
        tie_stops._TieStops._find = find
    assert len({id(t) for t in seen}) == 2  # one table per call
    assert all(r.memo == {} for r in acc._requests)
    assert len(pickle.dumps(acc)) < 200_000
    direct = skr.evaluate(rel, score, ["err"])["err"]
    np.testing.assert_allclose(float(acc.compute()["err"]), direct, rtol=1e-12)


@pytest.mark.parametrize("N", [120, 400])  # the harmonic table (up to 361), computed sums
@pytest.mark.parametrize("k", [None, 37, 95])
def test_err_groups_of_one_or_two_relevant_items_in_closed_form(N, k, monkeypatch):
    # A tie group of m items holding one relevant item stops the user at each
    # of its places alike (R / m each), and one holding two at place j with
    # (R1 + R2) / m - 2 R1 R2 j / (m (m - 1)): their terms come from the
    # harmonic sums of their places before the cut, with no table of
    # compositions. Rows of sparse relevance in groups of about ten, a cut
    # inside groups, each row against the definition; no composition is made
    # for those groups.
    from sk_rankmetrics._metrics.kernels import tie_stops

    made = []
    make = tie_stops._TieStops._make

    def spy(self, counts, size, n, base):
        made.append(np.rint(counts.sum(axis=1)))
        return make(self, counts, size, n, base)

    monkeypatch.setattr(tie_stops._TieStops, "_make", spy)
    rng = np.random.default_rng(N)
    rel = np.where(rng.random((60, N)) < 0.06, rng.integers(1, 5, (60, N)), 0)
    score = rng.integers(0, N // 10, (60, N))
    # With the whole ERR in the same call, ERR@k reads the whole rows' groups
    # and cuts them at k (a group may straddle the cut).
    names = ["err"] if k is None else ["err", f"err@{k}"]
    got = skr.evaluate(rel, score, [(m, {"max_grade": 4, "normalize": False}) for m in names],
                       per_row=True, no_relevant=0.0)
    for key, cut in zip(got, [None, k]):
        ref = [err_reference(rel[i], score[i], 4, cut) for i in range(rel.shape[0])]
        np.testing.assert_allclose(got[key], ref, rtol=1e-13, atol=1e-16, err_msg=str(key))
    # Compositions are made for groups of three relevant items or more only.
    assert all((c >= 3).all() for c in made)


@pytest.mark.parametrize("holding", ["most", "few"])
def test_err_groups_without_a_relevant_item(holding):
    # Groups that hold no relevant item add nothing and change no reach: left
    # in place where they are few (one score value in six), copied out where
    # they are most (only one value's group holds relevant items); both
    # against the definition, whole and cut inside the groups.
    rng = np.random.default_rng(23)
    score = rng.integers(0, 6, (400, 60))
    rel = rng.integers(1, 5, (400, 60))
    if holding == "most":
        rel[score == 0] = 0
    else:
        rel[score != 5] = 0
    rel[7] = 0  # a row without a relevant item at all
    _err_against_definition(rel, score, 25)
