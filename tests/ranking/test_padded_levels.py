"""Padded rows (``exclude``, long format of uneven lengths) ranked by one sort
of scores carrying their levels (``_ranking/levels.py``): the padding takes
distinct scores below every real one, so it is ranked last and ties with
nothing. Every full-depth measure against the same rows ranked by
``np.argsort`` (the route turned off) and against each row alone, on scores
with ties, ``-0.0`` beside ``0.0``, subnormals and the extreme finite values;
and the route declined where padding is worth more than level 0."""

from __future__ import annotations

import re
from unittest import mock

import numpy as np
import pytest
from draws import assert_same_results, padded_call, route_spy
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from test_rank_by_levels import _relevance, _scores

import sk_rankmetrics as skr
from sk_rankmetrics._metrics.requests import make_requests
from sk_rankmetrics._ranking import block, levels, padding
from sk_rankmetrics._ranking.item_values import BlockValues, ItemMasks
from sk_rankmetrics._utils.fast import sortable_int32

SETTINGS = settings(max_examples=100, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow])

#: More measures whose item values at level 0 are padding's (nothing); of the
#: others, bpref and infAP read which items are judged: the route declines them.
EXTRA = ["g", "ndcg_rel", "rndcg", "11pt_avg", "recall", "P", "success", "dcg_exp", "num_ret",
         "num_rel_ret"]


def _evaluate(y, s, metrics, route=True, **kw):
    # (The relevant items' route, which takes padded rows of sparse relevance
    # first, is off in both: tests/ranking/test_relevant_padded.py tests it.)
    with mock.patch.object(block, "takes_relevant_route", lambda *a: False):
        if route:
            return skr.evaluate(y, s, metrics, per_row=True, no_relevant=0.0, **kw)
        with mock.patch.object(block, "rank_by_levels", lambda *a: None):
            return skr.evaluate(y, s, metrics, per_row=True, no_relevant=0.0, **kw)


def _taken():
    return route_spy(block, "rank_by_levels")




@SETTINGS
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("layout", ["exclude", "long"])
@given(data=st.data())
def test_padded_levels_route_equals_the_argsort_route(dtype, layout, data):
    rng = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1)))
    n, N = data.draw(st.integers(1, 30)), data.draw(st.integers(2, 40))
    kind, top, y, metrics = _relevance(data, rng, n, N)
    s = _scores(data, rng, dtype, n, N)
    if kind in ("int8", "int64", "uint64", "uint8", "bool", "float"):
        metrics = metrics + EXTRA + [("nerr", {"max_grade": top})]
    # Rows from all padding to none; a row padded whole in the exclude layout.
    keep = rng.random((n, N)) < data.draw(st.sampled_from([0.3, 0.8, 1.0]))
    if layout == "exclude":
        if data.draw(st.booleans()):
            keep[0] = False
        y = np.where(keep, y, np.zeros(1, y.dtype))
    else:
        keep[:, :2] = True  # every query holds two items at least
    args, kw = padded_call(y, s, keep, layout)
    seen, spy = _taken()
    try:
        want = _evaluate(*args, metrics, route=False, **kw)
    except ValueError as refused:  # (G's tie of too many gains): refused alike
        with spy, pytest.raises(ValueError, match=re.escape(str(refused)[:40])):
            _evaluate(*args, metrics, **kw)
        return
    with spy:
        got = _evaluate(*args, metrics, **kw)
    assert_same_results(got, want)
    for rc in seen:  # padding ties with nothing
        if rc is not None and not rc.real_ties:
            assert not rc.tied


def test_padded_route_is_taken_and_gives_each_row_alone():
    rng = np.random.default_rng(3)
    n, N = 400, 50
    y = rng.integers(0, 4, (n, N)) * (rng.random((n, N)) < 0.3)
    s = rng.random((n, N)).astype(np.float32)
    s[::7, :5] = s[::7, :1]  # a tie in some rows
    exclude = (rng.random((n, N)) < 0.2) & (y == 0)
    metrics = ["ndcg", "map", "err", "rbp", "recall", "dcg"]
    seen, spy = _taken()
    with spy:
        got = _evaluate(y, s, metrics, exclude=exclude)
    assert seen and all(rc is not None for rc in seen)
    assert any(rc.real_ties for rc in seen)
    for i in range(0, n, 37):
        keep = ~exclude[i]
        alone = _evaluate(y[i][keep][None], s[i][keep][None], metrics)
        for key in metrics:
            np.testing.assert_allclose(got[key][i], alone[key][0], rtol=1e-12, err_msg=key)


@pytest.mark.parametrize("metrics, gain, code", [
    (["map"], None, False),
    (["bpref"], None, True),  # reads which items are judged
    (["infap", "bpref", "ndcg"], None, True),
    (["ndcg"], {0: 1.0, 1: 2.0, 2: 3.0}, True),  # a mapping: level 0 worth something
    (["ndcg"], {1: 2.0, 2: 3.0}, True),  # nor need it name level 0
    (["ndcg"], lambda g: g + 1.0, True)])
def test_padding_takes_a_code_of_its_own_where_level_0_is_worth_more(metrics, gain, code):
    rng = np.random.default_rng(4)
    y = rng.integers(1 if isinstance(gain, dict) and 0 not in gain else 0, 3, (50, 20))
    s = rng.random((50, 20))
    exclude = rng.random((50, 20)) < 0.2
    y[exclude] = 0
    kw = {} if gain is None else {"gain": gain}
    seen, spy = _taken()
    coded = []
    real = padding.coded_padding
    with spy, mock.patch.object(padding, "coded_padding",
                                lambda *a: coded.append(1) or real(*a)):
        got = _evaluate(y, s, [(m, kw) for m in metrics], exclude=exclude)
    want = _evaluate(y, s, [(m, kw) for m in metrics], exclude=exclude, route=False)
    assert_same_results(got, want)
    assert seen[0] is not None and bool(coded) == code
    for i in range(0, 50, 7):
        keep = ~exclude[i]
        alone = _evaluate(y[i][keep][None], s[i][keep][None], [(m, kw) for m in metrics])
        for key in alone:
            np.testing.assert_allclose(got[key][i], alone[key][0], rtol=1e-12, err_msg=key)


def test_padding_without_a_code_left_takes_the_argsort_route():
    rng = np.random.default_rng(7)
    y = np.tile(np.arange(256), (4, 1))  # 256 levels: no code left for padding
    s = rng.random(y.shape)
    exclude = np.zeros(y.shape, dtype=bool)
    exclude[:, 0] = True  # (the entries of level 0)
    seen, spy = _taken()
    with spy:
        got = _evaluate(y, s, ["bpref", "dcg"], exclude=exclude)
    assert seen == [None]
    assert_same_results(got, _evaluate(y, s, ["bpref", "dcg"], exclude=exclude, route=False))


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("low", [0.0, -0.0, 1e-45, -1e-45, 2.0**-126, 5.0, -5.0, 1e30,
                                 -3.4e38, float(np.finfo(np.float32).min), -1e39])
def test_padding_scores_lie_below_the_real_ones_and_apart(dtype, low):
    """Padding's scores: finite, distinct, none a zero, below the smallest
    real score by at least ``2**bits`` float32 steps apart (so the keys'
    lowest bits keep them apart); None where float32 has no room below."""
    N, bits = 30, 3
    real = np.ones((2, N), dtype=bool)
    real[0, 5:] = False
    with np.errstate(over="ignore"):  # (-1e39: -inf in float32, which has no room)
        s = np.tile(low + np.arange(N) * max(abs(low), 1.0), (2, 1)).astype(dtype)
    s[~real] = -np.inf
    out = levels._below_the_real(s, real, bits)
    if low <= float(np.finfo(np.float32).min):
        assert out is None
        return
    pads = out[~real]
    assert np.isfinite(pads).all() and (pads != 0).all()
    assert pads.max() < s[real].min()
    np.testing.assert_array_equal(out[real], s[real])
    keys = sortable_int32(pads.astype(np.float32)).astype(np.int64)
    assert len(set(keys >> bits)) == len(keys)
    assert len(set((keys | ((1 << bits) - 1)) >> bits)) == len(keys)


def test_padded_level_codes_allow_the_padding_mask_only():
    from sk_rankmetrics._ranking.item_values import level_codes

    y = np.array([[1, 0, 2], [0, 3, 0]])
    real = np.array([[True, False, True], [True, True, False]])
    req = make_requests(["ndcg"])
    padded = BlockValues(y, req, 0, ItemMasks(real=real, zero_padding=True))
    assert level_codes(padded) is None
    assert level_codes(padded, padded=True) is not None
    # Padding not known to hold relevance 0 (masks made elsewhere).
    assert level_codes(BlockValues(y, req, 0, ItemMasks(real=real)), padded=True) is None
    judged = BlockValues(y, req, 0, ItemMasks(real=real, judged=real & (y > 0)))
    assert level_codes(judged, padded=True) is None


@pytest.mark.parametrize("gain", [None, {0: 0.0, 1: 1.0, 2: 3.0}])
def test_a_block_of_padding_alone(gain):
    """A block whose every item is left out: no real level to code (the
    worthless padding leaves no extremes), scored as the argsort's route
    scores it."""
    y = np.zeros((1, 4), dtype=np.int64)
    s = np.array([[0.0, 1.0, 0.5, 0.25]])
    metrics = [(m, {} if gain is None else {"gain": gain}) for m in ("ndcg", "g", "dcg")]
    exclude = np.ones((1, 4), dtype=bool)
    seen, spy = _taken()
    with spy:
        got = _evaluate(y, s, metrics, exclude=exclude)
    assert seen == [None] if gain else seen[0] is not None
    assert_same_results(got, _evaluate(y, s, metrics, route=False, exclude=exclude))


@SETTINGS
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(1, 40), N=st.integers(2, 30),
       scores=st.sampled_from(["float64", "float32", "int64"]),
       layout=st.sampled_from(["exclude", "long"]), judged=st.sampled_from([None, 1.0, 0.7, 0.1]),
       share=st.sampled_from([0.0, 0.3, 1.0]), max_docs=st.sampled_from([None, 1, 3]))
@example(seed=13067, n=1, N=5, scores="float64", layout="long", judged=None, share=0.3,
         max_docs=None)  # (one query: items left out, no padding)
def test_bpref_and_infap_read_padded_rows_as_judged_throughout(seed, n, N, scores, layout,
                                                                judged, share, max_docs):
    # Padding is ranked after every real item and holds no relevant one: where
    # every real item is judged, bpref and infAP take the judged items above a
    # position to be the position itself (judgements._every_item_judged), as
    # in a matrix of no padding; a judged mask that leaves a real item out
    # keeps the running count, as does a ranking cut short (max_docs), whose
    # ranked items are not all of the real ones.
    from sk_rankmetrics._metrics.kernels import judgements

    rng = np.random.default_rng(seed)
    y = rng.integers(0, 3, (n, N)) * (rng.random((n, N)) < 0.4)
    s = rng.integers(0, 4, (n, N)).astype(scores)
    ex = (rng.random((n, N)) < share) & (y == 0)
    kw = {}
    if judged is not None:
        kw["judged"] = (rng.random((n, N)) < judged) | (y > 0)
    if layout == "long":
        keep = ~ex.reshape(-1)
        keep[::N] = True  # (every query keeps an item)
        y, s = y.reshape(-1)[keep], s.reshape(-1)[keep]
        kw = {k: v.reshape(-1)[keep] for k, v in kw.items()}
        kw["qid"] = np.repeat(np.arange(n), N)[keep]
        if kw["qid"].shape[0] == n:
            return  # (every query of one item: refused)
    else:
        kw["exclude"] = ex
    metrics = [(m, {} if max_docs is None else {"max_docs": max_docs})
               for m in ("bpref", "infap")]
    seen = []
    real = judgements._every_item_judged
    with mock.patch.object(judgements, "_every_item_judged",
                           lambda rc: seen.append(real(rc)) or seen[-1]):
        got = _evaluate(y, s, metrics, **kw)
    with mock.patch.object(judgements, "_every_item_judged", lambda rc: False):
        want = _evaluate(y, s, metrics, **kw)
    assert_same_results(got, want)
    if ("judged" not in kw or np.asarray(kw["judged"]).all()) and max_docs is None:
        # (Rows of no padding and no judged mask may be ranked through their
        # relevant items, where no kernel asks; rows that keep as many items
        # each, one query say, need no padding.)
        kept = N - ex.sum(axis=1) if layout == "exclude" else np.bincount(kw["qid"])
        assert all(seen) and (seen or kept.min() == kept.max())


@pytest.mark.parametrize("exclude", [False, True])
def test_a_ranking_cut_short_counts_the_judged_items_above(exclude):
    # max_docs=3 over a row of four items, three of them judged: the ranked
    # three are not all judged though as many are judged as are ranked, so
    # the judged items above a position are counted (bpref: none above the
    # relevant item at rank 2; read as the position, one).
    from sk_rankmetrics._metrics.kernels import judgements

    y = np.array([[0, 1, 0, 0, 0]])
    s = np.array([[4.0, 3.0, 2.0, 1.0, 0.0]])
    judged = np.array([[False, True, True, True, False]])
    kw = {"judged": judged}
    if exclude:
        kw["exclude"] = np.array([[False, False, False, False, True]])
    else:
        y, s, judged = y[:, :4], s[:, :4], judged[:, :4]
        kw["judged"] = judged
    got = _evaluate(y, s, [("bpref", {"max_docs": 3}), ("infap", {"max_docs": 3})], **kw)
    with mock.patch.object(judgements, "_every_item_judged", lambda rc: False):
        want = _evaluate(y, s, [("bpref", {"max_docs": 3}), ("infap", {"max_docs": 3})], **kw)
    assert_same_results(got, want)
    np.testing.assert_allclose(got["bpref"], [1.0])
