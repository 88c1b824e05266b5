"""Rows that tie in a few places read as the order given corrected at their tie
groups (``_ranking/few_ties.py``): nDCG, DCG, AP, RBP, bpref and ERR, with and
without a cut-off that may split a group, on blocks where a few rows tie (the
whole block read at once) and where most rows do; against the same rows
through the per-group path (the correction turned off) and through the
argsort route (``rank_by_levels`` turned off), row by row."""

from __future__ import annotations

from unittest import mock

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

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
            f"rbp@{k}"]


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
        patch = mock.patch.object(few_ties.FewTies, "of", lambda *a, **k: None)
    with patch:
        return skr.evaluate(y, s, metrics, per_row=True, no_relevant=0.0)


@SETTINGS
@given(data=st.data(), share=st.sampled_from([0.02, 0.2, 0.45, 0.8, 1.0]))
def test_few_ties_equal_the_per_group_path_and_the_argsort_route(data, share):
    rng = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1)))
    n, N = data.draw(st.integers(3, 40)), data.draw(st.integers(8, 120))
    top = data.draw(st.integers(1, 4))
    y = rng.integers(0, top + 1, (n, N)).astype(data.draw(st.sampled_from(["int8", "int64"])))
    if data.draw(st.booleans()):
        y[rng.random((n, N)) < 0.7] = 0  # sparse relevance
    s = _scores(data, rng, n, N, share)
    k = data.draw(st.integers(1, N))
    metrics = _metrics(k, top)
    made = []
    real = few_ties.FewTies.of

    def spy(*a, **kw):
        out = real(*a, **kw)
        made.append(out is not None)
        return out

    with mock.patch.object(few_ties.FewTies, "of", spy):
        got = skr.evaluate(y, s, metrics, per_row=True, no_relevant=0.0)
    if N >= 100:
        # Groups of at most 5 items, at most 3 a row (12 neighbours tied): a
        # few of a row of 100 (MOST_TIED).
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
    metrics = ["map", "ndcg", "mrr", ("bpref", {"max_docs": 20}), "r_precision"]
    views, spy = _recording(levels.RankedChunk.few_ties_view)
    parts, split_spy = _recording(levels.RankedChunk.split_by_ties)

    with mock.patch.object(levels.RankedChunk, "few_ties_view", spy), \
            mock.patch.object(levels.RankedChunk, "split_by_ties", split_spy):
        got = skr.evaluate(y, s, metrics, per_row=True, no_relevant=0.0)
    assert views and views[0] is not None and parts and parts[0]
    want = _off(y, s, metrics, "argsort")
    for key in want:
        np.testing.assert_allclose(got[key], want[key], rtol=1e-12, err_msg=key)
    with mock.patch.object(levels.RankedChunk, "split_by_ties", split_spy):
        parts.clear()
        skr.evaluate(y, s, ["map", "ndcg", "bpref"])
    assert not parts  # every measure read the block at once: no parts made


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


def test_rows_tied_in_many_places_take_the_per_group_path():
    # Rounded scores: every row's groups hold most of its items.
    rng = np.random.default_rng(6)
    s = np.round(rng.random((20, 50)), 1).astype(np.float32)
    y = rng.integers(0, 3, (20, 50))
    values = BlockValues(y, make_requests(["map"]))
    rc = levels.rank_by_levels(s, values)
    assert rc.few_ties is None and rc.few_ties_whole is None and rc.groups is not None


def test_bpref_refuses_rows_with_a_few_ties_and_unjudged_items():
    # The path assumes every item judged (rank_by_levels ranks matrices
    # only); rows with an unjudged item would read a wrong count, so they
    # raise instead of giving a number.
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
    with pytest.raises(RuntimeError, match="needs every item judged"):
        bpref(view, req)
