"""Integer scores of padded rows (``exclude``, long-format queries of uneven
lengths) keep their type: each row's padding takes one score below every
real one (``padding.counted_padding``), and the rows are ranked by counting
each score, the padding being each row's last tie group.

Every value is checked against the same rows with float64 scores (padding
``-inf``, ranked by the levels' or the argsort's route), and the routes are
spied on: the counts' route is taken, and padding's ties are no real ties
(a measure that refuses tied scores takes rows of distinct integers).
"""

from __future__ import annotations

from unittest import mock

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import sk_rankmetrics as skr
from sk_rankmetrics._ranking import chunk, padding

METRICS = ["ndcg", "dcg", "map", "bpref", "infap", "err", "rbp", "r_precision", "mrr",
           "ndcg@3", "map@5", "P@2", "recall@4", "num_ret", "ndcg_rel", "rndcg", "11pt_avg",
           "rprec_mult@0.5", "judged", ("cumulative_gain", {"gain": {0: 0.5, 1: 1, 2: 4}})]
#: A call with G reads each tie group's members: the argsort's route.
WITH_ITEMS = ["g", "ndcg", "map", "bpref"]
#: Measures that refuse tied scores (distinct integers only).
UNTIED = ["compat", "inst", "bpm", "nerr9"]


def _same(got, want):
    assert got.keys() == want.keys()
    for key in want:
        np.testing.assert_allclose(np.asarray(got[key], float), np.asarray(want[key], float),
                                   rtol=1e-12, atol=1e-15, err_msg=str(key))


def _spy():
    """``(widths, patch)``: the padded blocks ``_whole_rows_by_counts`` ranks."""
    seen = []
    real = chunk._whole_rows_by_counts

    def spy(y_score, values, n_items, *a, **k):
        seen.append(bool((n_items < y_score.shape[1]).any()))
        return real(y_score, values, n_items, *a, **k)

    return seen, mock.patch.object(chunk, "_whole_rows_by_counts", spy)


@settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(1, 30), N=st.integers(2, 40),
       dtype=st.sampled_from(["int16", "int32", "int64", "uint16", "uint64"]),
       levels=st.sampled_from([2, 5, 12]), share=st.sampled_from([0.05, 0.3, 1.0]),
       ignore_ties=st.booleans(), offset=st.sampled_from([0, 1, 1000]))
def test_exclude_over_integer_scores_equals_float_scores(seed, n, N, dtype, levels, share,
                                                         ignore_ties, offset):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 3, (n, N)) * (rng.random((n, N)) < 0.5)
    s = (rng.integers(0, levels, (n, N)) + offset).astype(dtype)
    ex = (rng.random((n, N)) < share) & (y == 0)
    kw = {"per_row": True, "no_relevant": 0.0, "ignore_ties": ignore_ties, "exclude": ex}
    for metrics in (METRICS, WITH_ITEMS):
        got = skr.evaluate(y, s, metrics, **kw)
        _same(got, skr.evaluate(y, s.astype(np.float64), metrics, **kw))


def test_exclude_over_integer_scores_is_counted():
    rng = np.random.default_rng(3)
    y = rng.integers(0, 3, (200, 50)) * (rng.random((200, 50)) < 0.3)
    s = rng.integers(0, 10, (200, 50))
    ex = (rng.random(y.shape) < 0.2) & (y == 0)
    seen, spy = _spy()
    with spy:
        got = skr.evaluate(y, s, ["ndcg", "bpref"], per_row=True, no_relevant=0.0, exclude=ex)
    assert seen and all(seen)  # padded blocks, counted
    want = skr.evaluate(y, s.astype(float), ["ndcg", "bpref"], per_row=True, no_relevant=0.0,
                        exclude=ex)
    _same(got, want)
    # Each row scored alone, its excluded items left out.
    for i in range(0, 200, 37):
        keep = ~ex[i]
        alone = skr.evaluate(y[i][keep][None], s[i][keep][None], ["ndcg", "bpref"],
                             no_relevant=0.0, per_row=True)
        for key in alone:
            np.testing.assert_allclose(got[key][i], alone[key][0], rtol=1e-12)


@pytest.mark.parametrize("dtype", ["int16", "int64"])
def test_distinct_integers_beside_padding_are_untied(dtype):
    # Rank positions given as scores: the padding's ties with itself are no
    # ties of real items, so the measures that refuse ties take the rows.
    rng = np.random.default_rng(5)
    y = rng.integers(0, 3, (40, 30))
    ex = (rng.random(y.shape) < 0.3) & (y == 0)
    y[:, 0], ex[:, 0] = 0, True  # (so that the real items' scores and padding's fit)
    # Distinct scores 1.. among each row's real items (excluded ones score 1).
    s = np.where(ex, 1, np.cumsum(~ex, axis=1)).astype(dtype)
    kw = {"per_row": True, "no_relevant": 0.0, "exclude": ex}
    seen, spy = _spy()
    with spy:
        got = skr.evaluate(y, s, [*UNTIED, "ndcg"], **kw)
    assert seen and all(seen)
    _same(got, skr.evaluate(y, s.astype(float), [*UNTIED, "ndcg"], **kw))
    # G reads the tie groups' members: the argsort's route, where padding's
    # ties are told from real ones by each row's count of real items.
    _same(skr.evaluate(y, s, [*UNTIED, "g"], **kw),
          skr.evaluate(y, s.astype(float), [*UNTIED, "g"], **kw))
    q = np.repeat(np.arange(40), 30)
    keep = ~ex.reshape(-1)
    _same(skr.evaluate(y.reshape(-1)[keep], s.reshape(-1)[keep], UNTIED, qid=q[keep],
                       per_row=True, no_relevant=0.0),
          skr.evaluate(y.reshape(-1)[keep], s.reshape(-1)[keep].astype(float), UNTIED,
                       qid=q[keep], per_row=True, no_relevant=0.0))


def test_counted_padding_declines_what_the_counts_do_not_take():
    ex = np.zeros((2, 8), dtype=bool)
    ex[0, 1] = True
    s = np.array([[3, 1, 2, 2, 0, 1, 3, 2], [0, 1, 1, 5, 2, 2, 3, 4]])
    got = padding.counted_padding(s, ex)
    np.testing.assert_array_equal(got, [[3, -1, 2, 2, 0, 1, 3, 2], [0, 1, 1, 5, 2, 2, 3, 4]])
    assert got.dtype == s.dtype
    assert padding.counted_padding(s, np.zeros_like(ex)) is None  # no padding
    assert padding.counted_padding(s.astype(np.int8), ex) is None  # one byte: not counted
    assert padding.counted_padding(s + np.array([[0], [2]]), ex) is None  # 8 scores and padding's
    assert padding.counted_padding(s * 1000, ex) is None  # too wide a span for rows of 8
    low = s.astype(np.int16)
    low[1, 0] = np.iinfo(np.int16).min  # no score below the smallest
    assert padding.counted_padding(low, ex) is None


@settings(max_examples=40, deadline=None, suppress_health_check=list(HealthCheck))
@given(seed=st.integers(0, 2**32 - 1), n_q=st.integers(1, 40),
       dtype=st.sampled_from(["int16", "int32", "int64", "uint32"]),
       levels=st.sampled_from([2, 6, 30]), shuffled=st.booleans(), judged=st.booleans(),
       wide=st.booleans())
def test_long_format_integer_scores_equal_float_scores(seed, n_q, dtype, levels, shuffled,
                                                       judged, wide):
    rng = np.random.default_rng(seed)
    counts = rng.integers(1, 40, n_q)
    counts[0] = max(counts[0], 2)  # (a query of two items at least)
    qid = np.repeat(np.arange(n_q), counts)
    if shuffled:
        qid = rng.permutation(qid)
    n = qid.shape[0]
    y = rng.integers(0, 3, n) * (rng.random(n) < 0.4)
    s = rng.integers(0, 5000 if wide else levels, n).astype(dtype)
    kw = {"qid": qid, "per_row": True, "no_relevant": 0.0}
    if judged:
        kw["judged"] = (rng.random(n) < 0.8) | (y > 0)
    for metrics in (METRICS, WITH_ITEMS):
        _same(skr.evaluate(y, s, metrics, **kw),
              skr.evaluate(y, s.astype(np.float64), metrics, **kw))


def test_long_format_integer_scores_keep_their_type_where_counted():
    rng = np.random.default_rng(11)
    qid = np.repeat(np.arange(300), rng.integers(5, 60, 300))
    y = rng.integers(0, 3, qid.shape[0])
    s = rng.integers(0, 10, qid.shape[0])
    assert padding.padding_score(s) == -1
    assert padding.padding_score(s.astype(np.int8)) is None  # one byte: not counted
    assert padding.padding_score(s * 1000) is None  # too wide a span
    assert padding.padding_score(s.astype(float)) is None
    seen, spy = _spy()
    with spy:
        got = skr.evaluate(y, s, ["ndcg", "map", "err"], qid=qid, per_row=True, no_relevant=0.0)
    assert any(seen)
    _same(got, skr.evaluate(y, s.astype(float), ["ndcg", "map", "err"], qid=qid, per_row=True,
                            no_relevant=0.0))


@pytest.mark.parametrize("dtype", ["float64", "int64"])
def test_a_row_of_padding_alone_at_a_cut_off_of_one_is_no_tie(dtype):
    # A row whose every item is left out counts one real item (n_items is at
    # least 1); at a cut-off of 1 its padding ties with the best left out,
    # which is no tie of real items.
    from sk_rankmetrics._ranking import block

    ties = []
    real = block.check_ties

    def spy(rc, *a):
        ties.append(rc.real_ties)
        return real(rc, *a)

    y = np.array([[0, 0, 0], [0, 1, 0]])
    s = np.array([[0, 1, 2], [3, 4, 5]], dtype=dtype)
    ex = np.array([[True, True, True], [False, False, False]])
    with mock.patch.object(block, "check_ties", spy):
        got = skr.evaluate(y, s, ["ndcg@1", "P@1"], per_row=True, no_relevant=0.0, exclude=ex)
    assert ties == [False]
    np.testing.assert_allclose(got["ndcg@1"], [0.0, 0.0])
    np.testing.assert_allclose(got["P@1"], [0.0, 0.0])


def test_padding_inside_a_catalogues_candidates_is_no_tie():
    # The catalogue's candidates count the whole catalogue as each row's
    # items (n_items past the block's width); a user with fewer candidates
    # than the cut-off has -inf padding among its first positions, whose
    # ties with each other are no ties of real items: a measure refusing
    # tied scores takes distinct scores.
    rng = np.random.default_rng(2)
    U, V = rng.standard_normal((6, 4)), rng.standard_normal((200, 4))
    Y = (rng.random((6, 200)) < 0.02).astype(np.int64)
    Y[:, 0] = 1
    E = (rng.random((6, 200)) < 0.1) & (Y == 0)
    E[0, 1:] = True  # a user with one candidate
    Y[0, 1:] = 0
    metrics = ["nerr8@3", "bpm@3", "ndcg@3"]
    got = skr.evaluate_embeddings(U, V, Y, metrics, exclude=E, no_relevant=0.0)
    S = U @ V.T
    keep = ~E.reshape(-1)
    keep[1] = True  # (the long format needs two items in a query; item 1 scores last)
    S[0, 1] = S.min() - 1.0
    q = np.repeat(np.arange(6), 200)[keep]
    want = skr.evaluate(Y.reshape(-1)[keep], S.reshape(-1)[keep], metrics, qid=q,
                        per_row=True, no_relevant=0.0)
    for key in want:
        np.testing.assert_allclose(got.per_query[key], want[key], rtol=1e-12, err_msg=key)
