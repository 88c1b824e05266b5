"""Rows that tie in a few places read as the order given corrected at their tie
groups (``_ranking/few_ties.py``): nDCG, DCG, AP, RBP, bpref and ERR, with and
without a cut-off that may split a group, infAP, and ndcg_rel and Rndcg read at the
grouped positions' mean gains (``kernels/gain_down.py``), on blocks where a
few rows tie (the whole block read at once) and where most rows do; against
the same rows through the per-group path (the correction turned off) and
through the argsort route (``rank_by_levels`` turned off), row by row."""

from __future__ import annotations

from unittest import mock

import numpy as np
import pytest
from draws import mixed_ties
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from spies import count_calls

import sk_rankmetrics as skr
from sk_rankmetrics._metrics.requests import make_requests
from sk_rankmetrics._ranking import block, few_ties, levels
from sk_rankmetrics._ranking.item_values import BlockValues

SETTINGS = settings(max_examples=60, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow])


def _metrics(k, top):
    return ["ndcg", "dcg", "map", "bpref", "rbp",
            ("rank_biased_precision", {"graded": True, "p": 0.6}),
            ("err", {"max_grade": top}),
            ("expected_reciprocal_rank", {"max_grade": top, "normalize": True}),
            f"ndcg@{k}", f"dcg@{k}", f"map@{k}", (f"err@{k}", {"max_grade": top}),
            f"rbp@{k}", "ndcg_rel", ("rndcg", {"gain": "exponential"}), "infap", "g",
            ("iprec_at_recall", {"recall": 0.3}), "11pt_avg", "bing"]


def _scores(data, rng, n, N, share):
    """float32 scores whose rows (a ``share`` of them) tie in a few places:
    pairs and small groups, some at the top (where a cut-off splits them)."""
    s = (rng.permutation(n * N).reshape(n, N).astype(np.float32) + 1) / np.float32(4 * n * N)
    tied = rng.choice(n, size=max(1, int(share * n)), replace=False)
    for r in tied:
        for _ in range(data.draw(st.integers(1, 3))):
            size = data.draw(st.integers(2, 5))
            cols = rng.choice(N, size=size, replace=False)
            if data.draw(st.booleans()):  # among the best: a cut-off may split it
                s[r, cols] = s[r].max() + np.float32(data.draw(st.integers(0, 2)))
            else:
                s[r, cols] = s[r, cols[0]]
    return s


def _recording(method):
    """``(calls, spy)``: ``spy`` calls ``method`` and records what it returns."""
    calls = []

    def spy(self):
        out = method(self)
        calls.append(out)
        return out

    return calls, spy


def _off(y, s, metrics, what):
    if what == "argsort":
        patch = mock.patch.object(block, "rank_by_levels", lambda *a: None)
    else:
        patch = mock.patch.object(few_ties.FewTies, "of_pairs", lambda *a, **k: None)
    with patch:
        return skr.evaluate(y, s, metrics, per_row=True, no_relevant=0.0)


@SETTINGS
@given(data=st.data(), share=st.sampled_from([0.02, 0.2, 0.45, 0.8, 1.0]))
def test_few_ties_equal_the_per_group_path_and_the_argsort_route(data, share):
    rng = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1)))
    n, N = data.draw(st.integers(3, 40)), data.draw(st.integers(8, 120))
    top = data.draw(st.sampled_from([1, 2, 3, 4, 30]))  # (30: past ERR's exact squares)
    y = rng.integers(0, top + 1, (n, N)).astype(data.draw(st.sampled_from(["int8", "int64"])))
    if data.draw(st.booleans()):
        y[rng.random((n, N)) < 0.7] = 0  # sparse relevance
    s = _scores(data, rng, n, N, share)
    k = data.draw(st.integers(1, N))
    metrics = _metrics(k, top)
    made = []
    real = few_ties.FewTies.of_pairs

    def spy(*a, **kw):
        out = real(*a, **kw)
        made.append(out is not None)
        return out

    with mock.patch.object(few_ties.FewTies, "of_pairs", spy):
        got = skr.evaluate(y, s, metrics, per_row=True, no_relevant=0.0)
    sv = np.sort(s, axis=1)
    tied_pairs = np.count_nonzero(sv[:, 1:] == sv[:, :-1], axis=1)
    if N >= 100 and (tied_pairs <= few_ties.MOST_TIED * N / 2).all() and mixed_ties(y, s):
        # Groups of at most 5 items, at most 3 a row (12 neighbours tied, a
        # few of a row of 100: MOST_TIED), unless two groups drawn at the
        # top tie with the row's best and with each other (13 or more); a
        # tie of items of one relevance is read as no tie.
        assert any(made)
    for what in ("groups", "argsort"):
        want = _off(y, s, metrics, what)
        for key in want:
            np.testing.assert_allclose(got[key], want[key], rtol=1e-12, atol=1e-13,
                                       err_msg=f"{key} against {what}")


def test_a_block_of_a_few_tied_rows_is_read_at_once_unless_a_measure_reads_positions():
    # Measures that read tie groups only (reads_groups) take the whole block
    # with its few ties; MRR and a measure cut at max_docs read the parts; the
    # numbers are those of the argsort route.
    rng = np.random.default_rng(4)
    s = rng.random((60, 50)).astype(np.float32)
    for r in (3, 20, 41):
        s[r, [1, 7, 9]] = s[r, 30]
    y = rng.integers(0, 4, (60, 50)).astype(np.int8)
    metrics = ["map", "ndcg", "mrr", ("bpref", {"max_docs": 20}), "r_precision", "ndcg_rel",
               "rndcg", "infap"]
    views, spy = _recording(levels.RankedChunk.few_ties_view)
    parts, split_spy = _recording(levels.RankedChunk.split_by_ties)

    with mock.patch.object(levels.RankedChunk, "few_ties_view", spy), \
            mock.patch.object(levels.RankedChunk, "split_by_ties", split_spy):
        got = skr.evaluate(y, s, metrics, per_row=True, no_relevant=0.0)
    assert views and views[0] is not None and parts and parts[0]
    want = _off(y, s, metrics, "argsort")
    for key in want:
        np.testing.assert_allclose(got[key], want[key], rtol=1e-12, err_msg=key)
    # ndcg_rel and Rndcg too: the block down the positions at the grouped
    # positions' mean gains, ndcg_rel put right there (gain_down).
    for names in (["map", "ndcg", "bpref"], ["map", "ndcg_rel"], ["rndcg", "infap"]):
        with mock.patch.object(levels.RankedChunk, "split_by_ties", split_spy):
            parts.clear()
            got = skr.evaluate(y, s, names, per_row=True, no_relevant=0.0)
        assert not parts, names  # every measure read the block at once: no parts made
        for name in names:
            if name != "bpref":  # (want's is cut at max_docs)
                np.testing.assert_allclose(got[name], want[name], rtol=1e-12, err_msg=name)


def test_the_whole_block_view_has_no_per_position_statistics():
    rng = np.random.default_rng(5)
    s = rng.random((30, 40)).astype(np.float32)
    s[4, [2, 3]] = s[4, 10]
    y = rng.integers(0, 3, (30, 40))
    values = BlockValues(y, make_requests(["map", "ndcg"]))
    rc = levels.rank_by_levels(s, values)
    rc.totals = values.totals
    view = rc.few_ties_view()
    assert view is not None and view.few_ties is not None
    for read in (lambda: view.start, lambda: view.size, lambda: view.sums["rel:None"],
                 lambda: view.mean("rel:None")):
        with pytest.raises(RuntimeError, match="reads_groups is wrong"):
            read()


def test_rows_tied_in_many_places_read_their_groups_in_weighted_sums():
    # Rounded scores: every row's groups hold most of its items. The
    # kernels of weighted sums (DCG, RBP) read the groups, and the few
    # ties' arrays are never made for them; AP, ERR, ndcg_rel read the few
    # ties whatever their share; all as the argsort route.
    rng = np.random.default_rng(6)
    s = np.round(rng.random((20, 50)), 1).astype(np.float32)
    y = rng.integers(0, 3, (20, 50))
    values = BlockValues(y, make_requests(["map"]))
    rc = levels.rank_by_levels(s, values)
    assert rc.groups is not None and rc.few_ties is not None
    assert rc.few_ties.share > few_ties.MOST_TIED and not rc.few_ties.few
    weighted = ["ndcg", "dcg@5", "rbp", "ndcg@3"]
    with mock.patch.object(few_ties.FewTies, "_make", side_effect=AssertionError("made")):
        got = skr.evaluate(y, s, weighted, per_row=True, no_relevant=0.0)
    rest = ["map", "map@5", ("err", {"max_grade": 2}), "ndcg_rel", "rndcg", "bpref", "infap"]
    made, real = [], few_ties.FewTies._make

    def spy(self):
        made.append(self.share)
        real(self)

    with mock.patch.object(few_ties.FewTies, "_make", spy):
        got.update(skr.evaluate(y, s, rest, per_row=True, no_relevant=0.0))
    assert made and min(made) > few_ties.MOST_TIED
    want = _off(y, s, weighted + rest, "argsort")
    for key in want:
        np.testing.assert_allclose(got[key], want[key], rtol=1e-12, atol=1e-13, err_msg=key)


def test_bpref_reads_few_ties_only_when_every_item_is_judged():
    # The path counts the judged non-relevant items above a position as the
    # position less the relevant ones. Rows with an unjudged item take the
    # per-group path; a whole-block view, which has no other, raises rather
    # than give a number.
    from sk_rankmetrics._metrics.kernels.judgements import bpref

    rng = np.random.default_rng(7)
    s = rng.random((30, 40)).astype(np.float32)
    s[4, [2, 3]] = s[4, 10]
    y = rng.integers(0, 3, (30, 40))
    req = make_requests(["bpref"])[0]
    values = BlockValues(y, make_requests(["bpref"]))
    rc = levels.rank_by_levels(s, values)
    rc.totals = {key: values.totals[key] for key in (req.rel_key, "judged")}
    view = rc.few_ties_view()
    assert view.few_ties is not None
    value, relevant = bpref(view, req)
    want = _off(y, s, ["bpref"], "argsort")["bpref"]
    np.testing.assert_allclose(value[relevant], want[relevant], rtol=1e-12)
    judged = rc.totals["judged"].copy()
    judged[5] -= 1
    view.totals = dict(rc.totals, judged=judged)
    with pytest.raises(RuntimeError, match="reads_groups is wrong"):
        bpref(view, req)


@pytest.mark.parametrize("scale", [1.0, np.pi, -1.0, 1e6])
def test_float64_scores_rounded_to_decimals_take_the_few_ties_path(scale):
    # Scores rounded to 4 decimals (of either sign, large or small) rank by
    # their levels' key, their ties exact there; scaled by pi they are on no
    # decimal grid and take the argsort's route. Both describe rows tied in
    # a few places as FewTies, and their numbers equal the per-group path's;
    # with a judged mask too (the argsort's route; bpref then takes the
    # per-group path).
    rng = np.random.default_rng(8)
    if scale == np.pi:
        s = np.round(rng.random((200, 300)), 4) * scale
    else:  # large scores rounded to hundreds: a few ties a row too
        s = np.round(rng.random((200, 300)) * scale, 4 if abs(scale) == 1 else -2)
    y = rng.integers(0, 4, (200, 300)).astype(np.int8)
    metrics = ["ndcg", "dcg", "map", "bpref", "err", "rbp", "mrr", "r_precision",
               "ndcg@10", "map@20", "ndcg_rel", "rndcg", "infap"]
    by_levels = levels.rank_by_levels(s, BlockValues(y, make_requests(metrics)))
    assert (by_levels is None) == (scale == np.pi)
    made = []
    real_of = few_ties.FewTies.of_pairs

    def spy(*a, **k):
        out = real_of(*a, **k)
        made.append(out)
        return out

    for judged in (None, rng.random(s.shape) < 0.9):
        made.clear()
        with mock.patch.object(few_ties.FewTies, "of_pairs", spy):
            got = skr.evaluate(y, s, metrics, per_row=True, no_relevant=0.0, judged=judged)
        assert any(m is not None for m in made)
        with mock.patch.object(few_ties.FewTies, "of_pairs", lambda *a, **k: None):
            want = skr.evaluate(y, s, metrics, per_row=True, no_relevant=0.0, judged=judged)
        with mock.patch.object(block, "rank_by_levels", lambda *a: None), \
                mock.patch.object(few_ties.FewTies, "of_pairs", lambda *a, **k: None):
            argsort = skr.evaluate(y, s, metrics, per_row=True, no_relevant=0.0, judged=judged)
        for key in want:
            for other, what in ((want, "per-group"), (argsort, "argsort")):
                np.testing.assert_allclose(got[key], other[key], rtol=1e-12, atol=1e-13,
                                           err_msg=f"{key} against {what}")


def test_scores_near_a_decimal_grid_are_not_read_as_on_it():
    # A score off the grid by an ulp, or a grid too fine for the key's
    # bits, or an infinity: the argsort's route decides the ties.
    rng = np.random.default_rng(9)
    s = np.round(rng.random((50, 40)), 3)
    assert levels._on_a_decimal_grid(s, 3)
    off = s.copy()
    off[7, 5] = np.nextafter(off[7, 5], 2.0)
    assert not levels._on_a_decimal_grid(off, 3)
    assert not levels._on_a_decimal_grid(np.round(rng.random((5, 40)) * 1e12, 8), 3)
    inf = s.copy()
    inf[3, 3] = np.inf
    assert not levels._on_a_decimal_grid(inf, 3)
    # Distinct scores an ulp apart, both rounded: kept apart by the argsort.
    y = rng.integers(0, 3, (50, 40)).astype(np.int8)
    got = skr.evaluate(y, off, ["map", "ndcg", "err"], per_row=True, no_relevant=0.0)
    want = _off(y, off, ["map", "ndcg", "err"], "argsort")
    for key in want:
        np.testing.assert_allclose(got[key], want[key], rtol=1e-12, err_msg=key)


@pytest.mark.parametrize("off_grid", [False, True])
def test_only_the_rows_that_look_tied_need_be_on_a_decimal_grid(off_grid):
    # 40 rows of 100 tie on a 4-decimal grid; the other 60 hold raw float64
    # scores, untied (their keys all differ: ranked by them, whatever the
    # grid). The levels' key then decides; with one tied row's pair an ulp
    # apart (off the grid) the argsort's route decides, and both give the
    # argsort route's numbers.
    rng = np.random.default_rng(11)
    s = rng.random((100, 60))
    tied = rng.choice(100, size=40, replace=False)
    grid = np.round(rng.random((40, 60)), 4)
    grid[:, 1] = grid[:, 0]  # a tie in every one of those rows
    if off_grid:
        grid[5, 1] = np.nextafter(grid[5, 0], 2.0)
    s[tied] = grid
    y = rng.integers(0, 4, s.shape).astype(np.int8)
    metrics = ["ndcg", "map", "bpref", "err", "mrr", "r_precision", "ndcg@10"]
    by_levels = levels.rank_by_levels(s, BlockValues(y, make_requests(metrics)))
    assert (by_levels is None) == off_grid
    got = skr.evaluate(y, s, metrics, per_row=True, no_relevant=0.0)
    with mock.patch.object(block, "rank_by_levels", lambda *a: None):
        want = skr.evaluate(y, s, metrics, per_row=True, no_relevant=0.0)
    for key in want:
        np.testing.assert_allclose(got[key], want[key], rtol=1e-12, atol=1e-13, err_msg=key)


@pytest.mark.parametrize("tied_rows", [0.05, 0.9])
def test_many_rows_of_dense_relevance_read_down_the_positions(tied_rows):
    # 400 rows of 60, most items relevant: infAP's order given is made down
    # the positions (its running counts kept, the grouped positions' counts
    # above read off them), ndcg_rel's and Rndcg's too; a few rows tie, or
    # most do. Against the per-group path and the argsort route.
    from sk_rankmetrics._metrics.kernels import judgements

    rng = np.random.default_rng(12)
    s = np.round(rng.random((400, 60)), 6)
    tied = rng.random(400) < tied_rows
    s[tied, 1] = s[tied, 0]
    s[tied, 7] = s[tied, 5]
    y = rng.integers(0, 4, s.shape).astype(np.int8)
    y[rng.random(s.shape) < 0.1] = 0
    metrics = ["infap", "ndcg_rel", "rndcg", "map", "bpref"]
    downs, real = [], judgements._infap_all_judged_down

    def spy(flags, down=None):
        downs.append(down is not None)
        return real(flags, down)

    with mock.patch.object(judgements, "_infap_all_judged_down", spy):
        got = skr.evaluate(y, s, metrics, per_row=True, no_relevant=0.0)
    assert downs and all(downs)  # the few ties' own running counts, read
    for what in ("groups", "argsort"):
        want = _off(y, s, metrics, what)
        for key in want:
            np.testing.assert_allclose(got[key], want[key], rtol=1e-12, atol=1e-13,
                                       err_msg=f"{key} against {what}")


def _rows_tied_in_a_few_places(seed, tied_rows, density, first, four=False):
    """400 rows of 60: a share ``tied_rows`` tie at columns 0-1 and 5-7-9
    (and 40 in every third, ``four``), relevance on ``density`` of the
    items, and each tied row's group at 0-1 holding levels ``first`` and 0."""
    rng = np.random.default_rng(seed)
    s = np.round(rng.random((400, 60)), 6)
    tied = rng.random(400) < tied_rows
    s[tied, 1] = s[tied, 0]
    s[tied, 7] = s[tied, 5]
    s[tied, 9] = s[tied, 5]
    if four:
        rows = np.flatnonzero(tied)[::3]
        s[rows, 40] = s[rows, 5]  # (a group of four)
    y = rng.integers(0, 4, s.shape).astype(np.int8)
    y[rng.random(s.shape) > density] = 0
    y[tied, 0], y[tied, 1] = first, 0
    return y, s


@pytest.mark.parametrize("gain", ["linear", "exponential", {0: 0.0, 1: 0.5, 2: 2.25, 3: 2.25}])
@pytest.mark.parametrize("density", [0.03, 0.9])
@pytest.mark.parametrize("tied_rows", [0.05, 0.9])
def test_g_over_few_ties_is_the_order_given_put_right_at_the_groups(tied_rows, density, gain,
                                                                     monkeypatch):
    # G over 400 rows of 60 that tie in a few places: the order given's sums
    # (its nonzero gains listed where few, else made down the positions; the
    # logarithms read off a table for whole gains, made for real-valued
    # ones), its terms at the grouped positions replaced by their expected
    # ones. Against the per-group path and the argsort route.
    from sk_rankmetrics._metrics.kernels import gain_g

    # (Every tied row holds a group of two gains.) Sparse relevance in few
    # tied rows is ranked through its relevant items, the order given put
    # right at their groups too (_g_relevant_ties).
    y, s = _rows_tied_in_a_few_places(7, tied_rows, density, 2, four=True)
    calls = count_calls(monkeypatch, gain_g, "_g_few_ties")
    relevant = count_calls(monkeypatch, gain_g, "_g_relevant_ties")
    for options in ({"gain": gain}, {"gain": gain, "max_docs": 10}):
        metrics = [("g", options)]
        got = skr.evaluate(y, s, metrics, per_row=True, no_relevant=0.0)
        for what in ("groups", "argsort"):
            want = _off(y, s, metrics, what)
            np.testing.assert_allclose(got["g"], want["g"], rtol=1e-12, atol=1e-13,
                                       err_msg=f"{options} against {what}")
    assert calls or relevant


@pytest.mark.parametrize("threshold", [None, 2])
@pytest.mark.parametrize("density", [0.03, 0.9])
@pytest.mark.parametrize("tied_rows", [0.05, 0.9])
def test_interpolated_precision_over_few_ties_reads_the_mixed_rows_again(tied_rows, density,
                                                                           threshold, monkeypatch):
    # iprec_at_recall and 11pt_avg over 400 rows of 60 that tie in a few
    # places: every row in the order given, and the rows holding a group of
    # relevant and other items again with those groups' expectations; binG
    # the order given put right at those groups. Against the per-group path
    # and the argsort route.
    from sk_rankmetrics._metrics.kernels import interpolated

    # (Every tied row holds a mixed group.)
    y, s = _rows_tied_in_a_few_places(11, tied_rows, density, 3)
    opts = {} if threshold is None else {"threshold": threshold}
    metrics = [("iprec_at_recall", {"recall": 0.4, **opts}), ("11pt_avg", opts), ("bing", opts)]
    calls = count_calls(monkeypatch, interpolated, "_interpolated_few_ties")
    got = skr.evaluate(y, s, metrics, per_row=True, no_relevant=0.0)
    assert calls
    for what in ("groups", "argsort"):
        want = _off(y, s, metrics, what)
        for key in want:
            np.testing.assert_allclose(got[key], want[key], rtol=1e-12, atol=1e-13,
                                       err_msg=f"{key} against {what}")


def _groups_by_brute_force(level_rows, tied_rows_sorted):
    """Per row, the tie groups (first position, size) of two items or more
    whose level codes are not all one, read off sorted rows one by one."""
    out = set()
    for r, (codes, keys) in enumerate(zip(level_rows, tied_rows_sorted)):
        p = 0
        while p < len(keys):
            q = p
            while q + 1 < len(keys) and keys[q + 1] == keys[p]:
                q += 1
            if q > p and len(set(codes[p:q + 1].tolist())) > 1:
                out.add((r, p, q - p + 1))
            p = q + 1
    return out


@pytest.mark.parametrize("density", [0.0, 0.05, 0.5, 1.0])
def test_few_ties_hold_the_groups_that_join_two_levels(density):
    # A group whose items all hold one level code has the same values in
    # every order: FewTies leaves it out (its correction would be 0), keeps
    # every other, and the values stay the argsort route's. With no
    # relevant item (density 0) no group is kept, and the block is still
    # read through its few ties.
    rng = np.random.default_rng(11)
    s = np.round(rng.random((400, 100)), 3)  # about five tied pairs a row
    y = (rng.random(s.shape) < density) * rng.integers(1, 4, s.shape)
    made = []
    real = few_ties.FewTies.of_pairs

    def spy(*a, **kw):
        out = real(*a, **kw)
        made.append((a, out))
        return out

    metrics = _metrics(10, 3)
    with mock.patch.object(few_ties.FewTies, "of_pairs", spy):
        got = skr.evaluate(y, s, metrics, per_row=True, no_relevant=0.0)
    assert made and all(ties is not None for _, ties in made)
    (pairs, values, n, *_), ties = made[0]
    level = values.codes
    keys = -np.sort(-s[:n], axis=1)  # (one block: the scores in rank order)
    want = _groups_by_brute_force(level, keys)
    assert {(int(r), int(p), int(m)) for r, p, m in zip(ties.row, ties.start, ties.size)} == want
    assert (len(want) == 0) == (density == 0.0)
    assert len(want) < pairs.shape[0]  # (groups of one code were left out)
    for what in ("groups", "argsort"):
        ref = _off(y, s, metrics, what)
        for key in ref:
            np.testing.assert_allclose(got[key], ref[key], rtol=1e-12, atol=1e-13,
                                       err_msg=f"{key} against {what}")
