"""ERR of many short rows made down the columns (``_err_down_summed``).

From :data:`_ERR_DOWN_ROWS` rows of fewer than ``4 * _ERR_FIRST`` positions,
ERR's running product is made a column at a time in a transposed copy and
its terms summed a position after the other, a few positions at a time; a
block with a few tied rows keeps the chances at its tied positions on the
way (the tie fix reads those). Its values must be
the brute force's (each row's ERR position by position, every ordering of a
tie), and those of the same rows in blocks too small for the route, to
rounding; the stretches' sums must be those of the whole, bit for bit.
"""

from __future__ import annotations

import numpy as np
import pytest
from reference import err, err_over_orderings

import sk_rankmetrics as skr
from sk_rankmetrics._metrics.kernels import user_models


def _spied(monkeypatch):
    """Count the calls of the transposed routes (whole, or in stretches)."""
    taken = []
    real = user_models._err_down_summed
    monkeypatch.setattr(user_models, "_err_down_summed",
                        lambda g, lookup, at=None: taken.append(g.shape) or real(g, lookup, at))
    return taken


def _rows(rng, n, N, tied_rows):
    y = rng.integers(0, 5, (n, N))
    y[rng.random((n, N)) < 0.3] = 0
    s = rng.random((n, N))
    for r in tied_rows:  # a tie of two or three items
        cols = rng.choice(N, size=int(rng.integers(2, 4)), replace=False)
        s[r, cols] = s[r, cols[0]]
    return y, s


@pytest.mark.parametrize(("k", "n_tied"), [(None, 40), (None, 0), (3, 0)])
def test_many_short_rows_equal_the_brute_force(monkeypatch, k, n_tied):
    # (Tied rows are ranked apart, by their groups; with a cut-off, a block
    # holding ties is ranked per position: the route sees untied rows.)
    rng = np.random.default_rng(8)
    n, N = 1500, 6
    tied = rng.choice(n, size=n_tied, replace=False)
    y, s = _rows(rng, n, N, tied)
    name = "err" if k is None else f"err@{k}"
    taken = _spied(monkeypatch)
    got = skr.evaluate(y, s, [name], per_row=True, no_relevant=0.0)[name]
    assert taken and taken[0][0] >= user_models._ERR_DOWN_ROWS
    for r in range(n):
        if r in set(tied.tolist()):
            want = err_over_orderings(y[r], s[r], 4, k)
        else:
            want = err(y[r], np.argsort(-s[r], kind="stable"), k) or 0.0
        assert got[r] == pytest.approx(want, rel=1e-13, abs=1e-15)


def test_the_route_agrees_with_small_blocks(monkeypatch):
    # The same rows evaluated 100 at a time (no block takes the route): the
    # values agree to rounding (the sums' order of additions differs).
    rng = np.random.default_rng(9)
    n, N = 2000, 40
    y, s = _rows(rng, n, N, rng.choice(n, size=25, replace=False))
    s = s.astype(np.float32)  # and a few float32 ties of their own
    for name in ("err", "nerr"):
        taken = _spied(monkeypatch)
        whole = skr.evaluate(y, s, [name], per_row=True, no_relevant=0.0)[name]
        assert taken
        taken.clear()
        parts = np.concatenate([
            skr.evaluate(y[a:a + 100], s[a:a + 100], [name], per_row=True,
                         no_relevant=0.0)[name] for a in range(0, n, 100)])
        assert not taken
        np.testing.assert_allclose(whole, parts, rtol=1e-14, atol=0)


def test_long_rows_keep_the_stretches(monkeypatch):
    # Rows of 4 * _ERR_FIRST positions or more are made by rows, in stretches.
    rng = np.random.default_rng(10)
    N = 4 * user_models._ERR_FIRST
    y, s = _rows(rng, user_models._ERR_DOWN_ROWS, N, [])
    taken = _spied(monkeypatch)
    got = skr.evaluate(y, s, ["err"], per_row=True, no_relevant=0.0)["err"]
    assert not taken
    for r in range(0, y.shape[0], 97):
        assert got[r] == pytest.approx(err(y[r], np.argsort(-s[r], kind="stable")), rel=1e-13)


@pytest.mark.parametrize(("share", "N", "cells"), [
    (0.02, 100, 1 << 16), (0.05, 255, 1 << 16), (1.0, 100, 1 << 16), (1.0, 100, 1),
    (0.3, 7, 1 << 16), (0.3, 2, 1)])
def test_stretches_sum_as_the_whole(monkeypatch, share, N, cells):
    # The sums made a few positions at a time are those of the whole
    # transposed block, bit for bit: the same products, the same additions in
    # the same order. Over dense relevance the stretches stop once every
    # user has stopped (up to rounding): the terms left are below rounding.
    monkeypatch.setattr(user_models, "_DOWN_CELLS", cells)
    rng = np.random.default_rng(12)
    n = 2000
    y = np.where(rng.random((n, N)) < share, rng.integers(1, 5, (n, N)), 0).astype(np.int8)
    lookup = np.append(0.0, (2.0 ** np.arange(1, 5) - 1.0) / 2.0**4)  # grades 0..4
    got = user_models._err_down_summed(y, lookup)
    # The whole block a position after the other: each row's running product
    # and sum, one multiplication and one addition at a time.
    p = lookup[y.astype(np.intp)]
    reach, want = np.ones(n), np.zeros(n)
    for j in range(N):
        want = want + reach * p[:, j] * (1.0 / (j + 1.0))
        reach = reach * (1.0 - p[:, j])
    np.testing.assert_array_equal(got, want)


def test_tied_rows_read_their_groups_from_the_stretches(monkeypatch):
    # A block of many rows with a few ties keeps them in place (FewTies): the
    # order given's terms from the stretches, and each tie group's expected
    # terms from the chances kept at its positions on the way. Stretches of
    # two positions or of the whole row give the same values bit for bit,
    # and the tied rows the brute force's over their orderings.
    rng = np.random.default_rng(13)
    n, N = 3000, 30
    tied = rng.choice(n, size=12, replace=False)
    y, s = _rows(rng, n, N, tied)
    y[tied[:4]] = rng.integers(1, 5, (4, N))  # ties the user reaches late, or not at all
    got = {}
    for cells in (1, 1 << 20):
        monkeypatch.setattr(user_models, "_DOWN_CELLS", cells)
        taken = _spied(monkeypatch)
        got[cells] = skr.evaluate(y, s, ["err", "nerr"], per_row=True, no_relevant=0.0)
        assert taken
    for name in ("err", "nerr"):
        np.testing.assert_array_equal(got[1][name], got[1 << 20][name])
    for r in tied.tolist():
        want = err_over_orderings(y[r], s[r], 4, None)
        assert got[1]["err"][r] == pytest.approx(want, rel=1e-13, abs=1e-15)
