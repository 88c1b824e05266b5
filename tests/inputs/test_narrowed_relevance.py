"""Relevance blocks of whole levels in -128..127 read as one byte each.

The dense layout copies a block of ``y_true`` to int8 when every entry is a
whole number in -128..127 (``narrow.narrowed``), whatever its dtype, so
that every later pass reads a byte per entry. The copy must happen exactly
when every entry fits, hold the same numbers, and leave every metric's value
and every error about the relevance as they were.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import sk_rankmetrics as skr
from sk_rankmetrics._ranking import narrow
from sk_rankmetrics._ranking.narrow import narrowed

DTYPES = ["int16", "uint16", "int32", "int64", "uint64", "float32", "float64"]
ODD = [np.nan, np.inf, -np.inf, 0.5, -0.25, 128.0, -129.0, 255.0, 1e300, 2.0**40]


def _fits(a):
    """Whether every entry is a whole number in -128..127 (the slow way)."""
    with np.errstate(invalid="ignore"):
        f = a.astype(np.float64)
    return bool(np.all(np.isfinite(f)) and np.all(f == np.floor(f))
                and np.all((f >= -128) & (f <= 127)))


@settings(max_examples=300, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(1, 30), N=st.integers(1, 300),
       dtype=st.sampled_from(DTYPES), lo=st.integers(-130, 10), span=st.integers(1, 140),
       odd=st.sampled_from([None, *ODD]), at=st.floats(0, 1), big=st.booleans(),
       piece=st.sampled_from([None, 1, 7, 64, 1000]), contiguous=st.booleans())
def test_the_copy_is_made_exactly_when_every_entry_fits(seed, n, N, dtype, lo, span, odd, at,
                                                        big, piece, contiguous):
    # Levels of every dtype, with one odd entry (NaN, an infinity, a fraction,
    # a value out of range) anywhere, also past the sample of the first ones.
    rng = np.random.default_rng(seed)
    if big:  # past the sample of the first entries
        n, N = 40, 300
    info = np.iinfo(dtype) if dtype[0] in "iu" else None
    if info is not None:
        lo = max(lo, int(info.min))
    y = rng.integers(lo, lo + span, size=(n, N))
    if odd is not None and dtype[0] == "f":
        y = y.astype(np.float64)
        y.reshape(-1)[int(at * (y.size - 1))] = odd
    with np.errstate(invalid="ignore", over="ignore"):
        y = y.astype(dtype)
    if not contiguous:  # a column-major block: read whole, not by pieces
        y = np.asfortranarray(y)
    # Pieces of a few entries too, so that the odd entry, the smallest and
    # the largest fall in any of them.
    with pytest.MonkeyPatch.context() as mp:
        if piece is not None:
            mp.setattr(narrow, "_PIECE", piece)
        small, ex = narrowed(y)
    if _fits(y) and y.dtype.itemsize > 1:
        assert small.dtype == np.int8
        np.testing.assert_array_equal(small.astype(np.float64), y.astype(np.float64))
        assert ex.a is small and ex.integral
        assert int(ex.min()) == int(small.min()) and int(ex.max()) == int(small.max())
    else:
        assert small is y
        assert ex is None or ex.a is y


@pytest.mark.parametrize("order", ["C", "F"])
@pytest.mark.parametrize("dtype", DTYPES)
def test_metrics_of_every_dtype_equal_those_of_int8(dtype, order):
    # Graded levels held in any dtype, in C or Fortran order (blocks that
    # are not contiguous): every measure as over int8 levels.
    rng = np.random.default_rng(2)
    y = np.where(rng.random((400, 60)) < 0.1, rng.integers(1, 5, (400, 60)), 0)
    s = rng.random((400, 60))
    names = ["ndcg@10", "ndcg", "map", "err@10", "precision@5", "bpref", "rbp"]
    want = skr.evaluate(y.astype(np.int8), s, names, per_row=True, no_relevant=0.0)
    got = skr.evaluate(np.asarray(y.astype(dtype), order=order), s, names, per_row=True,
                       no_relevant=0.0)
    for name in names:
        np.testing.assert_array_equal(got[name], want[name], err_msg=name)


@pytest.mark.parametrize("bad", [np.nan, np.inf])
def test_a_bad_float_past_the_sample_is_still_named(bad):
    # A whole-valued sample, then a NaN or infinity deep in the block: the
    # copy is refused and the error names the place, as without the copy.
    y = np.zeros((200, 100))
    y[:, 3] = 1.0
    y[150, 7] = bad
    with pytest.raises(ValueError, match=r"y_true contains NaN or infinity \(first at "
                                         r"row 150, column 7\)"):
        skr.evaluate(y, np.random.default_rng(0).random((200, 100)), ["ndcg@10"])


def test_a_fraction_past_the_sample_keeps_its_value():
    # One real-valued level after thousands of whole ones: not cut to a byte.
    y = np.zeros((200, 100))
    y[:, 3] = 1.0
    y[150, 7] = 0.5
    s = np.tile(np.arange(100.0)[::-1], (200, 1))  # column 0 ranked first
    got = skr.evaluate(y, s, ["dcg@10"], per_row=True)["dcg@10"]
    assert got[150] == pytest.approx(1 / np.log2(5) + 0.5 / np.log2(9))
    assert got[0] == pytest.approx(1 / np.log2(5))


@pytest.mark.parametrize("dtype", ["int64", "uint16", "float64", "float32"])
@pytest.mark.parametrize("odd", [None, 128, -129, 0.5, np.nan])
def test_each_piece_is_read(dtype, odd, monkeypatch):
    """Read a piece of 7 entries at a time: the smallest and largest levels
    sit in a middle piece, and an entry that does not fit in the last one,
    past the float sample of the first entries; it is found there, and the
    extremes are the block's."""
    if odd is not None and ((dtype[0] != "f" and not float(odd).is_integer())
                            or (dtype == "uint16" and odd < 0)):
        pytest.skip("not a value of this dtype")
    monkeypatch.setattr(narrow, "_PIECE", 7)
    y = np.ones((100, 50), dtype=np.float64)
    y[50, 3], y[50, 4] = 0, 9
    if odd is not None:
        y[-1, -1] = odd
    y = y.astype(dtype)
    small, ex = narrowed(y)
    if odd is None:
        assert small.dtype == np.int8 and ex.integral
        np.testing.assert_array_equal(small, y)
        assert (int(ex.min()), int(ex.max())) == (0, 9)
    else:
        assert small is y
