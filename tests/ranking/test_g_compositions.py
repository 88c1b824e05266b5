"""G over tie groups that share a composition (how many items of each gain):
each composition's distribution of the gain of a group's first j items is
made once, gain after gain (``gain_g._g_composition_terms``), and every
group of it reads its pairs. Checked against each group's own count vectors
(the table turned off), against the brute force over the tie orderings, and
through both ways of summing the pairs that meet (a table of cells for
whole gains, a sort for others)."""

from __future__ import annotations

from unittest import mock

import numpy as np
import pytest
import reference as ref
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sk_rankmetrics import evaluate
from sk_rankmetrics._metrics.kernels import gain_g

GAINS = {
    "linear": "linear",
    "exponential": "exponential",
    "negative": {-1: 0.0, 0: 0.0, 1: 1.0, 2: 3.0, 3: 7.0, 4: 15.0},
    "fractions": {0: 0.0, 1: 0.5, 2: 1.25, 3: 2.5, 4: 3.75},
    "two of one gain": {0: 0.0, 1: 2.0, 2: 2.0, 3: 5.0, 4: 5.0},
}
TOL = dict(rtol=1e-12, atol=1e-13)


def _g(y, s, gain, max_docs=None):
    opts = {"gain": gain} if max_docs is None else {"gain": gain, "max_docs": max_docs}
    return evaluate(y, s, [("g", opts)], per_row=True, no_relevant=0.0)["g"]


def _levels(rng, shape, gain, dense):
    y = rng.integers(0, 5, shape)
    if not dense:
        y[rng.random(shape) < 0.7] = 0
    if gain == "negative":
        y[rng.random(shape) < 0.1] = -1
    return y


def _spy_tables(monkeypatch):
    """The list of what each call of ``gain_g._g_composition_terms`` answers
    (the function still runs)."""
    made = []
    real = gain_g._g_composition_terms
    monkeypatch.setattr(gain_g, "_g_composition_terms",
                        lambda *a: made.append(out := real(*a)) or out)
    return made


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(1, 80), N=st.integers(2, 14),
       gain=st.sampled_from(sorted(GAINS)), dense=st.booleans(), top=st.integers(1, 4),
       max_docs=st.sampled_from([None, 1, 3, 6]), cells=st.sampled_from([None, 0]))
def test_compositions_equal_each_group_s_own_count_vectors(seed, n, N, gain, dense, top,
                                                            max_docs, cells):
    rng = np.random.default_rng(seed)
    y = _levels(rng, (n, N), gain, dense)
    s = rng.integers(0, top + 1, (n, N))  # (ties everywhere)
    limit = gain_g._G_TABLE_CELLS if cells is None else cells  # 0: whole gains by a sort
    with mock.patch.object(gain_g, "_G_TABLE_CELLS", limit):
        got = _g(y, s, GAINS[gain], max_docs)
    with mock.patch.object(gain_g, "_g_composition_terms", lambda *a: None):
        want = _g(y, s, GAINS[gain], max_docs)
    np.testing.assert_allclose(got, want, **TOL)


@pytest.mark.parametrize("gain", sorted(GAINS))
@pytest.mark.parametrize("dense", [False, True])
def test_compositions_are_read_and_match_the_brute_force(gain, dense, monkeypatch):
    # 400 rows of 7 scored 0..2: groups of a few items, whose compositions
    # repeat; the table is made, and each row's G is the brute force's.
    rng = np.random.default_rng(5)
    y = _levels(rng, (400, 7), gain, dense)
    s = rng.integers(0, 3, (400, 7))
    made = _spy_tables(monkeypatch)
    got = _g(y, s, GAINS[gain])
    assert any(t is not None for t in made)
    rows = range(0, 400, 23)
    want = [ref.brute_force("g", y[r], s[r], gain=GAINS[gain]) or 0.0 for r in rows]
    np.testing.assert_allclose(got[list(rows)], want, **TOL)


def test_large_groups_and_many_gains_keep_each_group_s_own_count_vectors(monkeypatch):
    # Groups past _G_TABLE_SIZE items (their binomial weights would near
    # float64's largest number) and gains too many to number the
    # compositions as one int64 take each group's own count vectors.
    made = _spy_tables(monkeypatch)
    rng = np.random.default_rng(3)
    y = (rng.random((8, 600)) < 0.01).astype(int)
    _g(y, np.zeros((8, 600)), "linear")
    assert made and made[-1] is None
    made.clear()
    y = rng.integers(0, 60, (40, 30))
    gains = {level: 1.0 + level / 7.0 for level in range(60)}
    got = _g(y, rng.integers(0, 8, (40, 30)), gains)
    assert made and made[-1] is None
    assert np.isfinite(got).all()


@pytest.mark.parametrize("gain", ["linear", "exponential"])
def test_groups_of_many_count_vectors_make_their_pairs_though_few_share(gain, monkeypatch):
    # Rows of 40 items scored 0..1 over dense relevance: groups of about 20
    # items, thousands of count vectors each, whose compositions seldom
    # repeat; their pairs are made all the same (_G_PAIRS_FROM), and equal
    # each group's own count vectors.
    rng = np.random.default_rng(11)
    y = _levels(rng, (60, 40), gain, True)
    s = rng.integers(0, 2, (60, 40))
    made = _spy_tables(monkeypatch)
    got = _g(y, s, GAINS[gain])
    assert made and all(t is not None for t in made)
    comp_of = made[0][0]
    assert 2 * (int(comp_of.max()) + 1) > comp_of.shape[0]  # (few groups share one)
    monkeypatch.setattr(gain_g, "_g_composition_terms", lambda *a: None)
    want = _g(y, s, GAINS[gain])
    np.testing.assert_allclose(got, want, **TOL)
