"""The scores' finiteness check, put off to the ranking's row sort.

The routes that sort each row (the relevant items' route, the levels' key
sort) read the block's NaN and infinities off the two ends of the sorted rows
instead of a pass of their own; a selection by partition reads NaN and +inf
off each row's top (they sort last) and -inf off the block's minimum; the
others check the block before they read it. Whatever the route, a block
holding NaN or an infinity raises naming its first place, and a finite block
(extreme finite values included) is scored as before.
"""

from __future__ import annotations

from unittest import mock

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import sk_rankmetrics as skr
from sk_rankmetrics._utils.arrays import ScoreCheck

SETTINGS = settings(max_examples=40, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow])

BIG = np.finfo(np.float64).max
BAD = [np.nan, -np.nan, np.inf, -np.inf]

#: (relevance, metric, what the route reads the check off: a row sort's ends,
#: a partition's top, or nothing of its own)
ROUTES = [
    ("graded 5 %", "ndcg", "by_ends"),  # the relevant items' route
    ("dense", "map", "by_ends"),  # the levels' key sort
    ("float dense", "ndcg", None),  # the argsort (gains other than levels)
    ("dense", "ndcg@10", "by_top"),  # a cut-off: a selection by partition
    ("dense", "mrr", None),  # no ranking at all
    ("dense", "r_precision", None),
]


def _data(rel, shape, seed):
    rng = np.random.default_rng(seed)
    s = rng.random(shape)
    if rel == "graded 5 %":
        y = np.where(rng.random(shape) < 0.05, rng.integers(1, 5, shape), 0)
    elif rel == "dense":
        y = rng.integers(0, 5, shape)
    else:
        y = rng.random(shape)
    y[:, 0] = np.maximum(y[:, 0], 1)  # every row has a relevant item
    return y, s


def _first_place(s):
    bad = np.argwhere(~np.isfinite(s))
    return f"row {bad[0][0]}, column {bad[0][1]}"


@pytest.mark.parametrize(("rel", "metric", "reads"), ROUTES)
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@given(data=st.data())
@SETTINGS
def test_a_bad_score_is_named_on_every_route(rel, metric, reads, dtype, data):
    n = data.draw(st.sampled_from([3, 40, 5000]))  # 5000: more than one block
    y, s = _data(rel, (n, 60), data.draw(st.integers(0, 2**16)))
    s = s.astype(dtype)
    k = data.draw(st.integers(1, 3))
    for _ in range(k):
        i, j = data.draw(st.integers(0, n - 1)), data.draw(st.integers(0, 59))
        s[i, j] = data.draw(st.sampled_from(BAD))
    with mock.patch.object(ScoreCheck, "by_ends", autospec=True,
                           side_effect=ScoreCheck.by_ends) as ends, \
            mock.patch.object(ScoreCheck, "by_top", autospec=True,
                              side_effect=ScoreCheck.by_top) as top, \
            pytest.raises(ValueError, match=f"y_score contains NaN or infinity "
                                            f"\\(first at {_first_place(s)}\\)"):
        skr.evaluate(y, s, [metric])
    assert ends.called == (reads == "by_ends")
    assert top.called == (reads == "by_top")


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@given(data=st.data())
@SETTINGS
def test_a_bad_score_is_named_by_the_selection_from_a_sample(dtype, data):
    # Rows of 1,000 at a cut-off of 10: the selection reads a sample of
    # every eighth column and the entries above its threshold only. A bad
    # score in a sampled column or not, above the threshold or not, and
    # NaN in numbers enough to be the threshold, is named all the same.
    n = data.draw(st.sampled_from([3, 40, 600]))  # 600: more than one block
    y, s = _data("dense", (n, 1000), data.draw(st.integers(0, 2**16)))
    s = s.astype(dtype)
    i = data.draw(st.integers(0, n - 1))
    cols = data.draw(st.sampled_from(["one", "sampled", "many"]))
    j = {"one": [data.draw(st.integers(0, 999))], "sampled": [8 * data.draw(st.integers(0, 124))],
         "many": list(range(0, 1000, 8))}[cols]
    s[i, j] = data.draw(st.sampled_from(BAD))
    with mock.patch.object(ScoreCheck, "by_top", autospec=True,
                           side_effect=ScoreCheck.by_top) as top, \
            pytest.raises(ValueError, match=f"y_score contains NaN or infinity "
                                            f"\\(first at {_first_place(s)}\\)"):
        skr.evaluate(y, s, ["ndcg@10"])
    assert top.called


@pytest.mark.parametrize("extreme", [BIG, -BIG, 0.0, -0.0])
def test_finite_extremes_are_selected_from_a_sample_as_when_checked_first(extreme):
    # The largest and smallest float64 in sampled columns and elsewhere: a
    # threshold below the sampled selection's filling sends the block to the
    # partition of whole rows, with the same numbers.
    y, s = _data("dense", (300, 1000), 7)
    s[::7, ::8] = extreme
    s[5, :] = -extreme
    s[9, 3] = extreme
    got = skr.evaluate(y, s, ["ndcg@10", "map@5"], per_row=True)
    with mock.patch.object(ScoreCheck, "by_top", autospec=True,
                           side_effect=lambda self, *a, **k: self.now()):
        checked_first = skr.evaluate(y, s, ["ndcg@10", "map@5"], per_row=True)
    for name in got:
        np.testing.assert_array_equal(np.asarray(got[name]), np.asarray(checked_first[name]))


@pytest.mark.parametrize(("rel", "metric", "reads"), ROUTES)
@pytest.mark.parametrize("extreme", [BIG, -BIG, 0.0, -0.0])
def test_finite_extremes_are_scored_as_when_checked_first(rel, metric, reads, extreme):
    # The largest and smallest float64, zeros of both signs: finite keys,
    # ranked as the scores say (and as when the block is checked first).
    y, s = _data(rel, (300, 50), 7)
    s[::7, 3] = extreme
    s[5, :] = -extreme
    got = skr.evaluate(y, s, [metric], per_row=True)[metric]
    with mock.patch.object(ScoreCheck, "by_ends", autospec=True,
                           side_effect=lambda self, *a, **k: self.now()), \
            mock.patch.object(ScoreCheck, "by_top", autospec=True,
                              side_effect=lambda self, *a, **k: self.now()):
        checked_first = skr.evaluate(y, s, [metric], per_row=True)[metric]
    np.testing.assert_array_equal(np.asarray(got), np.asarray(checked_first))


def test_integer_scores_need_no_check():
    check = ScoreCheck(np.arange(6).reshape(2, 3), "y_score")
    assert check.done
    check.by_ends(np.array([np.nan]), np.array([np.nan]))  # nothing to read again
    assert ScoreCheck(np.zeros((2, 3)), "y_score").done is False


def test_the_check_reads_the_block_once_at_most():
    block = np.array([[1.0, np.inf]])
    check = ScoreCheck(block, "y_score", row0=10)
    with pytest.raises(ValueError, match="first at row 10, column 1"):
        check.by_ends(np.array([1.0]), np.array([np.inf]))
    ok = ScoreCheck(np.array([[1.0, 2.0]]), "y_score")
    ok.by_ends(np.array([1.0]), np.array([2.0]))
    assert ok.done
    with mock.patch("sk_rankmetrics._utils.arrays.check_finite") as full:
        ok.now()  # made already
    full.assert_not_called()


@SETTINGS
@pytest.mark.parametrize("dtype", ["float64", "float32", "float16"])
@given(data=st.data())
def test_first_non_finite_names_the_first_bad_place(dtype, data):
    # A block is finite exactly when no entry is NaN or infinite (a sum that
    # overflows is scanned, and found finite), and a bad block names its
    # first bad place in row-major order, in every float type.
    from sk_rankmetrics._utils.arrays import first_non_finite

    shape = data.draw(st.sampled_from([(1, 1), (3, 7), (40, 130), (17,), (0, 5)]))
    rng = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1)))
    info = np.finfo(dtype)
    scale = data.draw(st.sampled_from([1.0, float(info.max)]))
    x = (rng.uniform(-1.0, 1.0, shape) * scale).astype(dtype)  # finite, up to the largest
    if data.draw(st.booleans()) and x.size:
        x.reshape(-1)[: max(1, x.size // 3)] = info.max  # sums that overflow
    assert first_non_finite(x) is None
    if not x.size:
        return
    k = data.draw(st.integers(1, 3))
    places = sorted({int(i) for i in rng.integers(0, x.size, k)})
    for p in places:
        x.reshape(-1)[p] = data.draw(st.sampled_from(BAD))
    assert first_non_finite(x) == np.unravel_index(places[0], shape)
