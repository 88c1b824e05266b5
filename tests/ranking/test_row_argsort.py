"""``row_argsort`` (scores of 32 bits or fewer sorted as packed 64-bit keys)
against NumPy's stable argsort, on every dtype, with ties, extreme values,
-0.0 beside 0.0, infinities (the padding of long-format rows) and empty rows."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sk_rankmetrics._utils.fast import row_argsort

SETTINGS = settings(max_examples=80, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow])

FLOATS = {"float32": [-np.inf, np.inf, -0.0, 0.0, 1e-45, -1e-45, 1e-38, 3.4e38, -3.4e38, 1.5,
                      -1.5],
          "float16": [-np.inf, np.inf, -0.0, 0.0, 6e-8, -6e-8, 65504.0, -65504.0, 1.5],
          "float64": [-np.inf, np.inf, -0.0, 0.0, 5e-324, 1e308, -1e308, 1.5]}
INTS = ["int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64"]


def scores(data, dtype, shape):
    rng = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1)))
    if dtype == "bool":
        return rng.random(shape) < 0.5
    if dtype in FLOATS:
        if data.draw(st.booleans()):
            return rng.choice(np.array(FLOATS[dtype]), shape).astype(dtype)
        return rng.standard_normal(shape).astype(dtype)
    info = np.iinfo(dtype)
    wide = data.draw(st.sampled_from(["full", "int32", "small"]))
    lo, hi = {"full": (int(info.min), int(info.max)),
              "int32": (max(int(info.min), -(2**31)), min(int(info.max), 2**31 - 1)),
              "small": (0, 3)}[wide]
    return rng.integers(lo, hi, shape, endpoint=True, dtype=dtype)


@SETTINGS
@pytest.mark.parametrize("dtype", ["float32", "float16", "float64", "bool", *INTS])
@given(data=st.data())
def test_row_argsort_is_a_stable_argsort(dtype, data):
    shape = (data.draw(st.integers(0, 6)), data.draw(st.integers(0, 40)))
    a = scores(data, dtype, shape)
    order, stable = row_argsort(a)
    assert order.shape == a.shape
    ref = np.argsort(a, axis=1, kind="stable")
    if stable:
        np.testing.assert_array_equal(order, ref)
    else:
        np.testing.assert_array_equal(np.take_along_axis(a, order, axis=1),
                                      np.take_along_axis(a, ref, axis=1))
    if a.size and (dtype in ("float32", "float16", "bool") or dtype in INTS[:3] + INTS[4:7]):
        assert stable  # 32 bits or fewer: the packed keys


def test_wide_integers_outside_32_bits_take_argsort():
    a = np.array([[2**40, 1, -5], [0, 0, 1]], dtype=np.int64)
    order, stable = row_argsort(a)
    assert not stable
    np.testing.assert_array_equal(np.take_along_axis(a, order, axis=1), np.sort(a, axis=1))


@SETTINGS
@given(data=st.data())
def test_float32_rows_sorted_as_numpy_sorts_them(data):
    # sort_float32_rows sorts rows of scores >= 0 as int32 and sorts again
    # those holding a negative score, -0.0 or a NaN of sign 1 (first row
    # negative: every row as float32): the values of np.sort's rows, NaN last,
    # whatever mix of signs, extremes, ties and empty rows.
    from sk_rankmetrics._utils.fast import sort_float32_rows

    n = data.draw(st.integers(0, 12))
    N = data.draw(st.integers(0, 30))
    a = scores(data, "float32", (n, N))
    mix = data.draw(st.sampled_from(["signed", "nonnegative", "few negative", "nan"]))
    rng = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1)))
    if mix != "signed":
        a = np.abs(a)
    if mix == "few negative" and a.size:
        a[1:][rng.random(a[1:].shape) < 0.1] *= -1
    if mix == "nan" and a.size:
        a[rng.random(a.shape) < 0.1] = np.nan
        a[rng.random(a.shape) < 0.05] = -np.float32(np.nan)
    want = np.sort(a, axis=1)
    got = a.copy()
    assert sort_float32_rows(got) is got
    np.testing.assert_array_equal(got, want)  # NaN equal to NaN, -0.0 to 0.0
    # sorted_rows: a new array, the input left as it was, whatever its layout.
    from sk_rankmetrics._utils.fast import sorted_rows

    before = a.copy()
    np.testing.assert_array_equal(sorted_rows(a), want)
    np.testing.assert_array_equal(a, before)
    transposed = np.asfortranarray(a)
    np.testing.assert_array_equal(sorted_rows(transposed), want)
    np.testing.assert_array_equal(sort_float32_rows(transposed), want)
