"""Padded rows (long format of uneven lengths, ``exclude``) ranked through
their relevant items only (``_ranking/relevant.py``): the padding scores below
every real item (``-inf``, or one below every integer score) and holds level
0, so it is never above a relevant item nor in its tie group, and each row's
ranking is its real items. Every full-depth measure that reads tie groups
against the same rows with the route turned off (the levels' or the
argsort's route), and against each row alone, on float64, float32 and
integer scores with ties, and sparse binary, graded and real-valued
relevance."""

from __future__ import annotations

from unittest import mock

import numpy as np
import pytest
from draws import assert_same_results, padded_call, route_spy
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_rank_by_levels import _scores

import sk_rankmetrics as skr
from sk_rankmetrics._ranking import block

SETTINGS = settings(max_examples=60, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow])

#: Every measure of the route (reads_groups) and those that scan rows or read
#: the ranked set beside them (R-precision, which reads down to R, does not
#: take the route).
METRICS = ["ndcg", "dcg", "map", "bpref", "rbp", "infap", "ndcg_rel", "rndcg", "g",
           "11pt_avg", "mrr", "recall", "num_rel_ret", "num_ret", "P",
           ("cumulative_gain", {"gain": "exponential"})]
#: The measures that weigh the relevant groups only (``MetricSpec.weighs_groups``),
#: and those beside them that take no ranking.
WEIGHED = ["ndcg", "dcg", "rbp", ("rank_biased_precision", {"graded": True}),
           ("ndcg_exp", {"gain": "exponential"}), "mrr", "P", "num_ret"]


def _evaluate(y, s, metrics, route=True, **kw):
    def call():
        return skr.evaluate(y, s, metrics, per_row=True, no_relevant=0.0, **kw)

    if route:
        return call()
    with mock.patch.object(block, "takes_relevant_route", lambda *a: False):
        return call()


def _taken():
    return route_spy(block, "rank_relevant")




def _data(rng, n, N, relevance, scores, share):
    """Sparse relevance on ``share`` of the items, and scores with ties."""
    on = rng.random((n, N)) < share
    if relevance == "binary":
        y = on.astype(np.int8)
    elif relevance == "graded":
        y = (rng.integers(1, 5, (n, N)) * on).astype(np.int8)
    else:  # real-valued gains
        y = np.where(on, rng.random((n, N)) * 3.0 + 1e-3, 0.0)
    if scores == "int64":
        s = rng.integers(0, 10, (n, N))
    else:
        s = rng.standard_normal((n, N)).astype(scores)
        for r in np.flatnonzero(rng.random(n) < 0.3):  # a tie of 2..N items
            cols = rng.choice(N, size=rng.integers(2, N + 1), replace=False)
            s[r, cols] = s[r, cols[0]]
    return y, s


@SETTINGS
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(1, 40), N=st.integers(2, 60),
       relevance=st.sampled_from(["binary", "graded", "real"]),
       scores=st.sampled_from(["float64", "float32", "int64", "float64 extremes",
                               "float32 extremes"]),
       layout=st.sampled_from(["long", "exclude"]), share=st.sampled_from([0.0, 0.02, 0.08]),
       data=st.data())
def test_padded_rows_through_their_relevant_items_equal_the_other_routes(
        seed, n, N, relevance, scores, layout, share, data):
    rng = np.random.default_rng(seed)
    y, s = _data(rng, n, N, relevance, scores.split()[0], share)
    if scores.endswith("extremes"):
        # Whole numbers, a decimal grid, or normal scores with ties, values an
        # ulp apart, and the extreme finite values (float64's past float32's
        # range: they round to an infinity, as the padding is).
        s = _scores(data, rng, np.dtype(scores.split()[0]).type, n, N)
    if data.draw(st.booleans()):
        metrics = list(METRICS)
        if relevance != "real":
            metrics.append(("err", {"max_grade": 4}))
    else:  # weighted sums only: each relevant item a group of its own
        metrics = list(WEIGHED)
    keep = rng.random((n, N)) < rng.choice([0.3, 0.8, 1.0])
    if layout == "exclude":
        keep |= y != 0  # (an excluded item holds no relevance)
    else:
        keep[:, :2] = True  # every query holds two items at least
    args, kw = padded_call(y, s, keep, layout)
    try:
        want = _evaluate(*args, metrics, route=False, **kw)
    except ValueError as refused:  # (G's tie of too many gains): refused alike
        with pytest.raises(ValueError, match=str(refused)[:30].replace("(", r"\(")):
            _evaluate(*args, metrics, **kw)
        return
    seen, spy = _taken()
    with spy:
        got = _evaluate(*args, metrics, **kw)
    assert seen  # (each block tried the route; it declines where relevance is not sparse)
    assert_same_results(got, want)


@pytest.mark.parametrize("scores", ["float64", "float32", "int64"])
@pytest.mark.parametrize("relevance", ["binary", "real"])
@pytest.mark.parametrize("layout", ["long", "exclude"])
def test_the_route_takes_padded_rows_and_gives_each_row_alone(scores, relevance, layout):
    """Blocks of 300 rows of uneven lengths (30 to 80 items), relevant items
    on 3 %: the route ranks every block, and each row scores what it scores
    alone as a matrix of its real items."""
    rng = np.random.default_rng(7)
    n, N = 300, 80
    y, s = _data(rng, n, N, relevance, scores, 0.03)
    keep = np.arange(N) < rng.integers(30, N + 1, n)[:, None]
    if layout == "exclude":
        keep |= y != 0
    args, kw = padded_call(y, s, keep, layout)
    metrics = [m for m in METRICS if m != "g"] + (
        [("err", {"max_grade": 4})] if relevance != "real" else [])
    seen, spy = _taken()
    with spy:
        got = _evaluate(*args, metrics, **kw)
    assert seen and all(rc is not None for rc in seen)
    assert (keep.sum(axis=1) < N).any()  # some rows padded
    for i in range(0, n, 23):
        alone = _evaluate(y[i][keep[i]][None], s[i][keep[i]][None], metrics)
        for key in alone:
            np.testing.assert_allclose(np.asarray(got[key])[i], np.asarray(alone[key])[0],
                                       rtol=1e-12, atol=1e-15, err_msg=f"{key}, row {i}")


def test_a_row_left_out_whole_and_a_row_without_relevant_items():
    """Under ``exclude``: a row whose every item is left out ranks nothing
    (scored by ``no_relevant``), one without a relevant item scores 0, and
    the others what they score alone; the route ranks the block."""
    rng = np.random.default_rng(11)
    n, N = 60, 40
    y, s = _data(rng, n, N, "real", "float32", 0.04)
    y[0] = 0.0
    y[1] = 0.0
    keep = rng.random((n, N)) < 0.7
    keep[0] = False  # every item of row 0 left out
    keep |= y != 0
    metrics = [m for m in METRICS if m != "g"]
    seen, spy = _taken()
    with spy:
        got = _evaluate(y, s, metrics, exclude=~keep)
    assert seen and all(rc is not None for rc in seen)
    want = _evaluate(y, s, metrics, route=False, exclude=~keep)
    assert_same_results(got, want)
    for key in ("ndcg", "map", "ndcg_rel", "bpref", "mrr"):
        assert np.asarray(got[key])[0] == 0.0 and np.asarray(got[key])[1] == 0.0, key
    # Every relevant item is kept, and ranked.
    np.testing.assert_array_equal(np.asarray(got["num_rel_ret"]), (y > 0).sum(axis=1))


def test_short_queries_whose_relevant_items_fill_them():
    """Queries of 2 to 4 items in the long format, some all relevant: each
    query's ranking is its real items (Rndcg reads whether the ranking
    outlives the ideal's positive gains, num_ret and P the ranked items),
    as each scores alone."""
    rng = np.random.default_rng(5)
    n = 400
    lens = rng.integers(2, 5, n)
    N = int(lens.max())
    keep = np.arange(N) < lens[:, None]
    y = np.zeros((n, N))
    first = np.flatnonzero(rng.random(n) < 0.05)
    y[first, 0] = rng.random(first.shape[0]) + 0.5  # sparse: a few queries, one or all
    whole = first[: first.shape[0] // 2]
    y[whole] = np.where(keep[whole], rng.random((whole.shape[0], N)) + 0.5, 0.0)
    s = rng.standard_normal((n, N))
    kw = {"qid": np.repeat(np.arange(n), lens)}
    metrics = ["rndcg", "num_ret", "P", "ndcg_rel", "map", "ndcg"]
    seen, spy = _taken()
    with spy:
        got = _evaluate(y[keep], s[keep], metrics, **kw)
    assert seen and all(rc is not None for rc in seen)
    for i in np.concatenate((whole[:8], first[-8:], [0, 1, 2])):
        alone = _evaluate(y[i][keep[i]][None], s[i][keep[i]][None], metrics)
        for key in alone:
            np.testing.assert_allclose(np.asarray(got[key])[i], np.asarray(alone[key])[0],
                                       rtol=1e-12, atol=1e-15, err_msg=f"{key}, query {i}")
