"""The ideal gains made down the positions from the levels' bounds
(``gain_down.top_down``: the top gains, or G's costs ``max(top, 1)``) and
the running ideal DCG made from them (``gain_down.idcg_down``), where the
gains are whole numbers, from the top gains otherwise; either way the same
values, bit for bit, as the top gains read across, for counted levels
(empty levels included) and listed ones, any block of rows and any depth."""

from __future__ import annotations

import numpy as np
from draws import ideal_levels_of
from hypothesis import example, given, settings
from hypothesis import strategies as st

from sk_rankmetrics._metrics.kernels import gain_down
from sk_rankmetrics._utils.fast import accumulate_down

GAINS = {
    "linear": np.array([4.0, 3.0, 2.0, 1.0]),
    "exponential": np.array([15.0, 7.0, 3.0, 1.0]),
    "large": np.array([2.0**50, 2.0**40, 3.0, 1.0]),
    "too large": np.array([2.0**52, 2.0**40, 3.0, 1.0]),  # (whole, not stepped)
    "fractions": np.array([3.75, 2.5, 1.25, 0.5]),
    "below one": np.array([4.0, 2.0, 1.0, 0.0]),  # (no level holds 0: a cost of 1 each)
}


def _expected(levels, a, b, Pm, disc):
    top = levels.top(Pm)[a:b]
    return accumulate_down(np.ascontiguousarray((top * disc[:Pm]).T))


@st.composite
def _case(draw):
    n = draw(st.integers(1, 12))
    n_lev = draw(st.integers(0, 4))
    counts = np.array(draw(st.lists(st.lists(st.integers(0, 6), min_size=n_lev,
                                             max_size=n_lev), min_size=n, max_size=n)),
                      dtype=np.int64).reshape(n, n_lev)
    gains = GAINS[draw(st.sampled_from(sorted(GAINS)))][:n_lev]
    a = draw(st.integers(0, n - 1))
    b = draw(st.integers(a + 1, n))
    deepest = max(int(counts.sum(axis=1).max()), 1)
    Pm = draw(st.integers(1, deepest + 2))
    listed = draw(st.booleans())
    return counts, gains, a, b, Pm, listed



@settings(max_examples=300, deadline=None)
@given(_case())
@example((np.array([[0, 2, 0, 1], [3, 0, 0, 0]]), GAINS["exponential"], 0, 2, 3, False))
@example((np.array([[0, 0], [0, 0]]), GAINS["linear"][:2], 1, 2, 1, True))
@example((np.zeros((3, 0), dtype=np.int64), GAINS["linear"][:0], 0, 3, 2, False))
def test_idcg_down_is_the_running_sum_of_the_top_gains(case):
    counts, gains, a, b, Pm, listed = case
    disc = 1.0 / np.log2(np.arange(2.0, Pm + 2.0))
    levels = ideal_levels_of(counts, gains, listed)
    steps = gain_down._level_steps(levels, a, b, Pm)
    if np.all(gains == np.rint(gains)) and gains.max(initial=0.0) < 2.0**51:
        assert steps is not None
    elif not listed:  # (listed: where rows a:b list no level, steps of none)
        assert steps is None
    got = gain_down.idcg_down(levels, a, b, Pm, disc)
    assert got.dtype == np.float64 and got.shape == (Pm, b - a)
    assert np.array_equal(got, _expected(ideal_levels_of(counts, gains, listed), a, b, Pm, disc))
    top = ideal_levels_of(counts, gains, listed).top(Pm)[a:b].T
    for cost, want in ((False, top), (True, np.maximum(top, 1.0))):
        made = gain_down.top_down(ideal_levels_of(counts, gains, listed), a, b, Pm, cost=cost)
        assert (made is None) == (steps is None)
        if made is not None:
            assert made.dtype == np.float64 and np.array_equal(made, want)
