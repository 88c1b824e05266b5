"""The count vectors of G's tie groups (``gain_g._g_states``), which list the
vectors of a group's nonzero gains and draw each with every number of its
items of gain 0, and each group's distinct gains (``gain_g._distinct_values``),
which counts the zeros and sorts the others: against the plain enumeration of
every count vector (one digit per gain, 0 included) and a lexicographic sort of
every member."""

from __future__ import annotations

import itertools
from collections import defaultdict
from math import comb

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sk_rankmetrics._metrics.kernels import gain_g
from sk_rankmetrics._metrics.kernels.combinatorics import _log_factorials


def _brute_states(lg, lv, lc, sizes):
    """``{(group, j, T): chance}`` over every count vector of every group."""
    out = defaultdict(float)
    for g in range(sizes.shape[0]):
        mine = np.flatnonzero(lg == g)
        vals, counts = lv[mine], lc[mine]
        m = int(sizes[g])
        for drawn in itertools.product(*(range(int(c) + 1) for c in counts)):
            j = sum(drawn)
            T = float(np.dot(drawn, vals))
            if j == 0 or T == 0:
                continue
            ways = np.prod([comb(int(c), k) for c, k in zip(counts, drawn)])
            out[(g, j, T)] += ways / comb(m, j)
    return out


def _levels_of(draw_values):
    """``(lg, lv, lc, sizes)``: groups' distinct gains (sorted), from lists of
    member gains."""
    lg, lv, lc, sizes = [], [], [], []
    for g, members in enumerate(draw_values):
        vals, counts = np.unique(np.asarray(members, dtype=np.float64), return_counts=True)
        lg += [g] * vals.shape[0]
        lv += vals.tolist()
        lc += counts.tolist()
        sizes.append(len(members))
    return (np.array(lg, dtype=np.int64), np.array(lv), np.array(lc, dtype=np.int64),
            np.array(sizes, dtype=np.int64))


GAIN = st.sampled_from([0.0, 0.0, 0.0, 1.0, 3.0, 7.0, 0.5, -1.0, 2.25])


@settings(max_examples=200, deadline=None)
@given(groups=st.lists(st.lists(GAIN, min_size=1, max_size=9), min_size=1, max_size=6),
       batch=st.sampled_from([1, 7, 1 << 18]))
def test_states_against_every_count_vector(groups, batch):
    lg, lv, lc, sizes = _levels_of(groups)
    states = np.rint(np.exp(np.bincount(lg, weights=np.log(lc + 1.0),
                                        minlength=sizes.shape[0]))).astype(np.int64)
    lf = _log_factorials(int(sizes.max()))
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(gain_g, "_G_BATCH", batch)
        got = defaultdict(float)
        n_states = 0
        for grp, j, T, prob in gain_g._g_states(np.arange(sizes.shape[0]), lg, lv, lc, sizes,
                                                states, lf):
            assert np.all(j >= 1) and np.all(T != 0)
            assert np.all(j <= sizes[grp])
            n_states += grp.shape[0]
            for g, jj, TT, p in zip(grp.tolist(), j.tolist(), T.tolist(), prob.tolist()):
                got[(g, jj, TT)] += p
    want = _brute_states(lg, lv, lc, sizes)
    assert set(got) == set(want)
    for key, p in want.items():
        assert got[key] == pytest.approx(p, rel=1e-12, abs=1e-15)
    # Each count vector of nonzero gain listed once: as many as the brute force's.
    brute = sum(1 for g in range(sizes.shape[0])
                for drawn in itertools.product(*(range(int(c) + 1) for c in lc[lg == g]))
                if sum(drawn) and float(np.dot(drawn, lv[lg == g])) != 0)
    assert n_states == brute


def test_one_nonzero_gain_is_each_position_s_share():
    """One item of gain g among m: it is among the first j with chance j/m."""
    lg, lv, lc, sizes = _levels_of([[0.0] * 9 + [5.0]])
    lf = _log_factorials(10)
    (grp, j, T, prob), = gain_g._g_states(np.arange(1), lg, lv, lc, sizes, np.array([20]), lf)
    np.testing.assert_array_equal(grp, np.zeros(10))
    np.testing.assert_array_equal(j, np.arange(1, 11))
    np.testing.assert_array_equal(T, np.full(10, 5.0))
    np.testing.assert_allclose(prob, np.arange(1, 11) / 10.0, rtol=1e-14)


def test_zeros_only_give_no_state():
    lg, lv, lc, sizes = _levels_of([[0.0, 0.0, 0.0]])
    lf = _log_factorials(3)
    assert list(gain_g._g_states(np.arange(1), lg, lv, lc, sizes, np.array([4]), lf)) == []


def _sorted_reference(gid, v):
    order = np.lexsort((v, gid))
    gid, vals = gid[order], v[order]
    new = np.ones(gid.shape[0], dtype=bool)
    new[1:] = (gid[1:] != gid[:-1]) | (vals[1:] != vals[:-1])
    at = np.flatnonzero(new)
    return gid[at], vals[at], np.diff(np.append(at, gid.shape[0]))


@settings(max_examples=300, deadline=None)
@given(sizes=st.lists(st.integers(1, 8), min_size=0, max_size=20),
       seed=st.integers(0, 2**32 - 1),
       kind=st.sampled_from(["sparse", "dense", "negative", "zeros", "signed zero"]))
def test_distinct_values_against_a_sort_of_every_member(sizes, seed, kind):
    rng = np.random.default_rng(seed)
    gid = np.repeat(np.arange(len(sizes)), sizes).astype(np.int64)
    n = gid.shape[0]
    if kind == "sparse":
        v = np.where(rng.random(n) < 0.8, 0.0, rng.normal(size=n))
    elif kind == "dense":
        v = rng.integers(0, 4, n).astype(np.float64)
    elif kind == "negative":
        v = rng.integers(-2, 3, n).astype(np.float64)
    elif kind == "zeros":
        v = np.zeros(n)
    else:
        v = np.where(rng.random(n) < 0.5, -0.0, rng.integers(0, 3, n).astype(np.float64))
    got, want = gain_g._distinct_values(gid, v), _sorted_reference(gid, v)
    for a, b in zip(got, want):
        assert a.dtype.kind == b.dtype.kind
        np.testing.assert_array_equal(a, b)


class _Req:
    label = "g"


@settings(max_examples=200, deadline=None)
@given(groups=st.lists(st.lists(GAIN, min_size=1, max_size=9), min_size=1, max_size=6),
       seed=st.integers(0, 2**32 - 1), one_each=st.booleans())
def test_group_terms_against_every_count_vector(groups, seed, one_each):
    """The expected terms at each ranked position of the groups (those whose
    nonzero gains are one item's by their closed form, the others by their
    count vectors) against the brute force's sum over every count vector."""
    rng = np.random.default_rng(seed)
    if one_each:  # (every group one item of nonzero gain: the closed form alone)
        groups = [[0.0] * (len(g) - 1) + [float(rng.choice([1.0, 2.5, -1.0]))]
                  for g in groups]
    lg, lv, lc, sizes = _levels_of(groups)
    inside = np.minimum(sizes, rng.integers(1, 10, sizes.shape[0]))
    opens = np.cumsum(inside) - inside
    # A running cost at least the gain ranked (as G's): the logarithm's argument >= 2.
    S0 = rng.integers(0, 5, sizes.shape[0]).astype(np.float64)
    cost_at = (np.repeat(S0, inside) + np.repeat(np.abs(lv).max() * sizes, inside)
               + rng.integers(0, 4, int(inside.sum())))
    got = gain_g._g_group_terms(_Req(), sizes, inside, (lg, lv, lc), cost_at, S0)
    want = np.zeros(int(inside.sum()))
    for (g, j, T), p in _brute_states(lg, lv, lc, sizes).items():
        if j <= inside[g]:
            at = opens[g] + j - 1
            want[at] += p * T / np.log2(2.0 + cost_at[at] - S0[g] - T) / j
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-15)


@pytest.mark.parametrize("late", [None, 2.5, -1.0])
def test_distinct_values_with_a_value_past_the_first_members(late):
    """The values of the first members are read first: a value met only
    later (past them) still counts, by the sort."""
    rng = np.random.default_rng(3)
    sizes = rng.integers(1, 8, 2000)
    gid = np.repeat(np.arange(sizes.shape[0]), sizes).astype(np.int64)
    v = rng.integers(0, 2, gid.shape[0]).astype(np.float64)
    assert gid.shape[0] > gain_g._G_SAMPLE + 100
    if late is not None:
        v[gain_g._G_SAMPLE + 50] = late
    got, want = gain_g._distinct_values(gid, v), _sorted_reference(gid, v)
    for a, b in zip(got, want):
        np.testing.assert_array_equal(a, b)
