"""The indices of nonzero entries (``_utils/nonzero.py``): every route gives
NumPy's indices, in its order and dtype, and each route is taken where its
rule says."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import sk_rankmetrics
from sk_rankmetrics._utils import nonzero as nz


@settings(max_examples=300, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(0, 30), N=st.integers(0, 300),
       density=st.sampled_from([0.0, 0.001, 0.01, 0.04, 0.05, 0.07, 0.0769, 0.1, 0.1001,
                                0.3, 1.0]),
       exact=st.booleans(),
       view=st.sampled_from(["whole", "columns", "rows", "flat", "offset", "every other",
                             "strided"]),
       dtype=st.sampled_from(["bool", "bool", "int8", "uint8", "int16", "float64"]),
       high=st.booleans())
def test_flatnonzero_equals_numpys(seed, n, N, density, exact, view, dtype, high):
    """Every route (eight bytes at a time, padded, NumPy's own) gives
    np.flatnonzero's indices, in its order and dtype, for every density
    across the edges, exact counts (the top of rows of 10, exactly 1 in
    10), views (a flat view starting off a word's boundary, and strided
    views that flatten without a copy, among them),
    lengths that are not a whole number of words, one-byte integers whose
    nonzero entries are any byte (the high bit set, for int8 negative) and
    wider dtypes."""
    rng = np.random.default_rng(seed)
    if exact and n * N:
        m = np.zeros(n * N, dtype=bool)
        m[rng.choice(n * N, round(density * n * N), replace=False)] = True
        m = m.reshape(n, N)
    else:
        m = rng.random((n, N)) < density
    if dtype in ("int8", "uint8"):
        m = m.astype(np.uint8) * rng.integers(1, 256, m.shape, dtype=np.uint8)
        if high:
            m[m != 0] |= 0x80
        m = m.view(dtype)
    else:
        m = m.astype(dtype)
    # The view last (a cast would copy it to a contiguous array).
    m = {"whole": m, "columns": m[:, 1:], "rows": m[1::2], "flat": m.reshape(-1),
         "offset": m.reshape(-1)[3:], "every other": m[:, ::2],
         "strided": m.reshape(-1)[::3]}[view]
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(nz, "_PAD_MIN_SIZE", 0)
        got = nz.flatnonzero(m)
    expected = np.flatnonzero(m)
    assert got.dtype == expected.dtype
    np.testing.assert_array_equal(got, expected)


def test_each_route_is_taken_inside_its_band(monkeypatch):
    """One-byte masks of the least size or more: at most 1 in 13 nonzero,
    eight bytes at a time; more, up to 1 in 10, padded past 1 in 10;
    denser, NumPy's loop over the mask. Short arrays go to NumPy (compared
    with 0 when not bool); wider ones are compared with 0 and take the
    routes of that mask."""
    seen, words = [], []
    real, real_words = np.flatnonzero, nz._by_words

    def spy(a):
        seen.append((a.size, a.dtype))
        return real(a)

    def spy_words(flat):
        words.append(flat.size)
        return real_words(flat)

    monkeypatch.setattr(nz.np, "flatnonzero", spy)
    monkeypatch.setattr(nz, "_by_words", spy_words)
    size = 1 << 17
    for count, route in [(0, "words"), (size // 13, "words"), (size // 13 + 1, "padded"),
                         (size // 20, "words"), (size // 25 + 1, "words"),
                         (size // 10, "padded"), (size // 10 + 1, "numpy"),
                         (size, "numpy")]:
        for dtype in (bool, np.int8, np.uint8):
            m = np.zeros(size, dtype=dtype)
            m[:count] = 1
            seen.clear()
            words.clear()
            got = nz.flatnonzero(m)
            np.testing.assert_array_equal(got, np.arange(count))
            assert (words[:1] == [size]) == (route == "words"), (count, dtype, words)
            if route == "padded":  # past 1 in 10: NumPy's branch-free loop
                extra = seen[-1][0] - size
                assert extra > 0 and 10 * (count + extra) > seen[-1][0]
            if route == "numpy":  # NumPy's loop reads a bool mask, never the bytes
                assert seen == [(size, np.bool_)]
    seen.clear()
    words.clear()
    nz.flatnonzero(np.zeros(1000, dtype=bool))
    nz.flatnonzero(np.zeros(1000, dtype=np.float32))
    assert seen == [(1000, np.bool_)] * 2 and not words
    for dtype in (np.int16, np.float64):  # compared with 0, then the routes of the mask
        for count, route in [(0, "words"), (size // 10, "padded"), (size, "numpy")]:
            m = np.zeros(size, dtype=dtype)
            m[:count] = -0.5 if dtype == np.float64 else -3
            seen.clear()
            words.clear()
            np.testing.assert_array_equal(nz.flatnonzero(m), np.arange(count))
            assert (words[:1] == [size]) == (route == "words"), (count, dtype, words)
            assert all(d == np.bool_ for _, d in seen), seen
            assert (seen[-1][0] > size) == (route == "padded"), (count, dtype, seen)


def test_words_route_finds_each_byte_of_a_word():
    """Each of a word's eight places, alone and all together, and a tail
    past the last whole word: the index is the word's times 8 plus the
    place, in memory order."""
    size = (1 << 16) + 5
    m = np.zeros(size, dtype=np.uint8)
    places = [8 * w + p for w, p in enumerate(range(8))] + [800 + p for p in range(8)]
    places += [size - 5, size - 1]
    m[places] = [1, 2, 4, 8, 16, 32, 64, 128] * 2 + [255, 7]
    got = nz._by_words(m)
    np.testing.assert_array_equal(got, sorted(places))
    assert got.dtype == np.flatnonzero(m).dtype


def test_every_flatnonzero_goes_through_the_one_of_the_package():
    """No module of the package calls NumPy's flatnonzero or nonzero itself
    (1-D ``nonzero()[0]`` included): ``_utils/nonzero.py``'s
    ``flatnonzero`` takes the fastest route for the density, and its
    ``nonzero_2d`` spares the general iterator of matrices."""
    package = Path(sk_rankmetrics.__file__).parent
    pattern = re.compile(r"np\.flatnonzero\(|np\.nonzero\(|\.nonzero\(\)\[0\]")
    found = [
        f"{path.relative_to(package.parent)}:{i}"
        for path in sorted(package.rglob("*.py"))
        if path.relative_to(package).as_posix() != "_utils/nonzero.py"
        for i, line in enumerate(path.read_text().splitlines(), 1)
        if pattern.search(line)
    ]
    assert not found, found


@settings(max_examples=200, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(0, 40), N=st.integers(0, 120),
       density=st.sampled_from([0.0, 0.02, 0.05, 0.1, 0.5, 1.0]),
       view=st.sampled_from(["whole", "columns", "rows", "reversed"]),
       dtype=st.sampled_from(["bool", "int8", "int64", "float64"]))
def test_nonzero_2d_equals_numpys(seed, n, N, density, view, dtype):
    """Rows and columns from the flat indices equal np.nonzero's (order,
    values, dtype), for views, empty shapes and non-bool matrices."""
    rng = np.random.default_rng(seed)
    m = rng.random((n, N)) < density
    m = {"whole": m, "columns": m[:, 1:], "rows": m[1::2], "reversed": m[:, ::-1]}[view]
    m = m.astype(dtype)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(nz, "_PAD_MIN_SIZE", 0)
        got = nz.nonzero_2d(m)
    expected = np.nonzero(m)
    for g, e in zip(got, expected):
        assert g.dtype == e.dtype
        np.testing.assert_array_equal(g, e)
    with pytest.raises(ValueError, match="matrix"):
        nz.nonzero_2d(m.reshape(-1))


@pytest.mark.parametrize("values", [
    np.array(["q1", "q1", "q10", "q2", "q2", ""]),  # str (NumPy 1.x: no loop of np.not_equal)
    np.array([b"a", b"a", b"ab", b"b"]),
    np.array(["x", 3, 3, None, None], dtype=object),
    np.array([0.0, -0.0, np.nan, np.nan, 1.5]),  # -0.0 == 0.0; NaN != NaN
    np.array([3, 3, 3], dtype=np.uint8),
    np.array(["only"]),
    np.array([], dtype=np.int64),
])
def test_neighbours_differ_on_every_dtype(values):
    out = np.full(max(values.shape[0] - 1, 0), True)
    got = nz.neighbours_differ(values, out)
    assert got is out
    want = [values[i + 1] != values[i] for i in range(values.shape[0] - 1)]
    assert out.tolist() == [bool(w) for w in want]
