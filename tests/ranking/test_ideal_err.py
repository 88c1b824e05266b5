"""nERR's ideal ERR read off the ideal's levels (``_ideal_err_of_levels``).

Where the ranking counted each row's grades (the whole ideal, no sort), the
ideal ERR is summed level by level, each level's positions made only while
the user reaches them with a share of the value above rounding. Its values
must be the definition's (the row's grades sorted, best first, summed
position by position) to rounding, from the counted levels and from a list
of levels alike, with a cut-off or not; and nERR over the package's calls
must equal the definition's on rows long enough for the rule to drop
positions.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from reference import err

import sk_rankmetrics as skr
from sk_rankmetrics._metrics.kernels import user_models
from sk_rankmetrics._ranking.ideal import IdealLevels


def _stop(top):
    return (2.0 ** np.arange(1, top + 1) - 1.0) / 2.0**top


def _ideal_err(grades, k, top):
    """The definition: the grades sorted, best first, position by position."""
    best = sorted(grades, reverse=True)[:k]
    out, reach = 0.0, 1.0
    for p, g in enumerate(best, start=1):
        r = (2.0**g - 1.0) / 2.0**top
        out += reach * r / p
        reach *= 1.0 - r
    return out


def _both_levels(y, top):
    """The rows' levels counted (CountedLevels) and listed (IdealLevels)."""
    gains = np.arange(top, 0, -1, dtype=np.float64)  # positive grades, best first
    counts = np.stack([(y == g).sum(axis=1) for g in range(top, 0, -1)], axis=1)
    counted = IdealLevels.from_counts(counts, gains)
    counted.complete = True
    listed = IdealLevels.from_sorted(np.sort(y.astype(np.float64), axis=1))
    return counted, listed


@settings(max_examples=60, deadline=None)
@given(n=st.integers(1, 6), N=st.integers(1, 40), top=st.integers(1, 6),
       share=st.sampled_from([0.0, 0.05, 0.5, 1.0]), k=st.sampled_from([None, 1, 3, 25]),
       seed=st.integers(0, 2**32 - 1))
def test_levels_give_the_definition(n, N, top, share, k, seed):
    rng = np.random.default_rng(seed)
    y = np.where(rng.random((n, N)) < share, rng.integers(1, top + 1, (n, N)), 0)
    want = np.array([_ideal_err(list(row), k, top) for row in y])
    for levels in _both_levels(y, top):
        got = user_models._ideal_err_of_levels(levels, _stop(top), k)
        np.testing.assert_allclose(got, want, rtol=1e-13, atol=0)


def test_long_rows_drop_only_positions_below_rounding():
    # Rows of 2,000 items of grade 1 (the user goes on with 15/16 at each) and
    # rows of grade 4 first: the first stop making positions after a few
    # hundred, the second after about 17; the values are the definition's.
    rng = np.random.default_rng(3)
    y = np.zeros((4, 2000), dtype=np.int64)
    y[0] = 1
    y[1, :1500] = 4
    y[1, 1500:] = 1
    y[2] = rng.integers(0, 5, 2000)
    y[3, :3] = [2, 1, 3]
    want = np.array([_ideal_err(list(row), None, 4) for row in y])
    for levels in _both_levels(y, 4):
        got = user_models._ideal_err_of_levels(levels, _stop(4), None)
        np.testing.assert_allclose(got, want, rtol=1e-13, atol=0)


@pytest.mark.parametrize("scores", ["float64", "float32 ties", "int 0..9"])
@pytest.mark.parametrize("share", [0.02, 0.3, 1.0])
def test_nerr_equals_the_definition(scores, share):
    # Whole rows (the ideal's levels counted) over every score route: untied
    # rows, rows with a few float32 ties, tie groups of integer scores; and
    # nerr with a cut-off beside it (the ideal's best grades instead).
    rng = np.random.default_rng(4)
    n, N = 1200, 60
    y = np.where(rng.random((n, N)) < share, rng.integers(1, 5, (n, N)), 0)
    s = rng.random((n, N))
    if scores == "float32 ties":
        s = np.round(s, 3).astype(np.float32)
    elif scores == "int 0..9":
        s = np.floor(s * 10).astype(np.int64)
    got = skr.evaluate(y, s, ["nerr", "nerr@5"], per_row=True, no_relevant=0.0)
    step = 1 if scores == "float64" else 37
    for r in range(0, n, step):
        if scores == "float64":
            order = np.argsort(-s[r], kind="stable")
            for name, k in (("nerr", None), ("nerr@5", 5)):
                want = err(y[r], order, k, normalize=True) or 0.0
                assert got[name][r] == pytest.approx(want, rel=1e-13, abs=1e-15)
        else:
            # The expectation over ties: ERR's own value over the ideal's.
            plain = skr.evaluate(y[r:r + 1], s[r:r + 1], ["err", "err@5"], per_row=True,
                                 no_relevant=0.0)
            for name, k in (("nerr", None), ("nerr@5", 5)):
                ideal = _ideal_err(list(y[r]), k, 4)
                want = plain[name[1:]][0] / ideal if ideal > 0 else 0.0
                assert got[name][r] == pytest.approx(want, rel=1e-13, abs=1e-15)


def test_the_levels_route_is_taken(monkeypatch):
    # nerr without a cut-off over whole rows reads the counted levels: no
    # row's ideal grades are made.
    taken, real = [], user_models._ideal_err_of_levels
    monkeypatch.setattr(user_models, "_ideal_err_of_levels",
                        lambda *a: taken.append(type(a[0]).__name__) or real(*a))
    rng = np.random.default_rng(5)
    y = rng.integers(0, 5, (3000, 50))
    skr.evaluate(y, rng.random((3000, 50)), ["nerr"], no_relevant=0.0)
    assert taken and set(taken) == {"CountedLevels"}


def test_level_table_holds_the_sums():
    # Every (b, e) entry: the level's terms summed exactly (fractions), rounded once.
    from fractions import Fraction

    from sk_rankmetrics._metrics.kernels import SPAN_TABLE_MOST

    W = SPAN_TABLE_MOST + 1
    for q in (1.0 / 16.0, 0.5, 15.0 / 16.0):
        T = user_models._err_level_table(q, SPAN_TABLE_MOST)
        assert T.shape == (W * W,) and not T.flags.writeable
        qf = Fraction(q)
        for b, e in [(0, 0), (0, 1), (0, 5), (3, 40), (200, 361), (360, 361), (7, 3)]:
            want = sum((qf ** (p - b) / (p + 1) for p in range(b, e)), Fraction(0))
            assert T[b * W + e] == pytest.approx(float(want), rel=2e-16, abs=0)
        # A shorter table holds the same entries (rows of every length up to it).
        small = user_models._err_level_table(q, 64)
        b, e = np.divmod(np.arange(65 * 65), 65)
        np.testing.assert_array_equal(small, T[b * W + e])


@settings(max_examples=40, deadline=None)
@given(n=st.integers(1, 6), N=st.integers(1, 60), top=st.integers(1, 5),
       share=st.sampled_from([0.05, 0.5, 1.0]), k=st.sampled_from([None, 2, 30]),
       seed=st.integers(0, 2**32 - 1))
def test_tables_agree_with_the_levels_made_position_by_position(n, N, top, share, k, seed):
    # Levels ending within SPAN_TABLE_MOST read the tables; past it, positions
    # are made level by level: the two agree on the same levels.
    rng = np.random.default_rng(seed)
    y = np.where(rng.random((n, N)) < share, rng.integers(1, top + 1, (n, N)), 0)
    for levels in _both_levels(y, top):
        tables = user_models._ideal_err_of_levels(levels, _stop(top), k)
        with pytest.MonkeyPatch.context() as mp:
            mp.setattr(user_models, "SPAN_TABLE_MOST", -1)
            made = user_models._ideal_err_of_levels(levels, _stop(top), k)
        np.testing.assert_allclose(tables, made, rtol=1e-14, atol=0)
