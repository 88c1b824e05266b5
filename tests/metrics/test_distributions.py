"""The engine's selection steps on every distribution of values.

NumPy's selection is fast on distinct values and an order of magnitude slower
where one value dominates a row (the zeros of sparse relevance), so the
engine picks its route by dtype and sparsity: one-byte types partitioned,
sparse rows gathered, repeating blocks sorted, integer levels counted. Every
route must give the number of the plain sort, and every metric the number of
the brute force over tie orderings, whatever the dtype and sparsity of
``y_true`` and however the scores tie.
"""

from __future__ import annotations

import numpy as np
import pytest
from conftest import default_options, score
from hypothesis import given, settings
from hypothesis import strategies as st
from test_brute_force import LARGE_REQUESTS, _label, _large_case, _reference_rows

from sk_rankmetrics import evaluate
from sk_rankmetrics._metrics.gains import resolve_gain
from sk_rankmetrics._metrics.registry import METRICS
from sk_rankmetrics._ranking.ideal import ideal_gains, top_values

DTYPES = ["bool", "int8", "uint8", "int16", "int32", "int64", "uint32", "float32", "float64"]


def _sparse(rng, shape, density, dtype, negative=False):
    """Relevance with ``density`` of its entries non-zero, in ``dtype``."""
    if dtype == "bool":
        return rng.random(shape) < density
    hot = rng.random(shape) < density
    if np.dtype(dtype).kind == "f":
        levels = rng.random(shape) * 4 + 0.01
        levels = np.where(rng.random(shape) < 0.5, np.ceil(levels), levels)
    else:
        levels = rng.integers(1, 5, size=shape)
    out = np.where(hot, levels, 0)
    if negative and np.dtype(dtype).kind in "if":
        out[rng.random(shape) < 0.1] = -1
    return out.astype(dtype)


@settings(max_examples=300, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(1, 30), N=st.integers(1, 60),
       dtype=st.sampled_from(DTYPES), density=st.sampled_from([0.0, 0.01, 0.05, 0.3, 1.0]),
       negative=st.booleans(), width=st.integers(1, 70))
def test_top_values_equal_the_plain_sort(seed, n, N, dtype, density, negative, width):
    """Whatever the route (partition, gathered positives, sort), the largest
    ``width`` entries of each row, increasing, as a full sort gives them."""
    rng = np.random.default_rng(seed)
    a = _sparse(rng, (n, N), density, dtype, negative)
    w = min(width, N)
    got = top_values(a, w)
    expected = np.sort(a.view(np.uint8) if dtype == "bool" else a, axis=1)[:, N - w:]
    np.testing.assert_array_equal(got, expected)


def test_top_values_routes_are_all_reached():
    """The gathered route, the repeating-block sort and the plain partition each
    give the plain sort's answer on a block large enough to choose them."""
    rng = np.random.default_rng(0)
    blocks = {
        "sparse": _sparse(rng, (200, 300), 0.02, "float64"),
        "sparse with negatives in short rows": _sparse(rng, (200, 300), 0.02, "int64", True),
        "dense repeating": rng.integers(0, 3, size=(200, 300)).astype(np.float64) / 2,
        "dense distinct": rng.random((200, 300)),
        "one wide row": np.vstack([rng.random((1, 300)), np.zeros((199, 300))]),
    }
    for name, a in blocks.items():
        for w in (1, 10, 299):
            np.testing.assert_array_equal(top_values(a, w), np.sort(a, axis=1)[:, 300 - w:],
                                          err_msg=f"{name}, width {w}")


GAINS = ["linear", "exponential", {0: 0.0, 1: 1.0, 2: 1.0, 3: 5.0, 4: 6.0},
         {0: 0.5, 1: 1.0, 2: 2.0, 3: 3.0, 4: 3.0}]


@settings(max_examples=200, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(1, 20), N=st.integers(2, 50),
       dtype=st.sampled_from(DTYPES), density=st.sampled_from([0.0, 0.02, 0.1, 0.5, 1.0]),
       gain=st.sampled_from(range(len(GAINS))), width=st.integers(1, 60))
def test_ideal_gains_equal_the_sorted_gains(seed, n, N, dtype, density, gain, width):
    """Counted levels, gathered positives or a sort: the ``width`` best gains."""
    rng = np.random.default_rng(seed)
    yt = _sparse(rng, (n, N), density, dtype)
    if isinstance(GAINS[gain], dict):
        if np.dtype(dtype).kind == "f":
            yt = np.floor(yt)
        yt = np.minimum(yt, 4)
    g = resolve_gain(GAINS[gain])
    full = np.asarray(g(yt.astype(float)), dtype=float)
    w = min(width, N)
    got = ideal_gains(yt, g, lambda: full, w)
    expected = np.sort(full, axis=1)[:, N - w:]
    np.testing.assert_allclose(got, expected, rtol=1e-15, atol=0)


SPARSE_DTYPES = ["bool", "int8", "int32", "int64", "float32", "float64", "fractional"]


def _as_dtype(y, dtype):
    if dtype == "bool":
        return y > 0
    if dtype == "fractional":  # real-valued relevance: levels 0.5 apart
        return y / 2.0
    return y.astype(dtype)


@pytest.mark.usefixtures("small_chunks")
@pytest.mark.parametrize("dtype", SPARSE_DTYPES)
def test_sparse_relevance_of_every_dtype_matches_the_brute_force(dtype):
    """Sparse relevance (97 % zeros) and tie groups across the cut-offs, in
    chunks on the thread pool: every row equals the brute force."""
    y, s = _large_case(2, n_rows=200)
    y[np.random.default_rng(3).random(y.shape) < 0.93] = 0
    y = _as_dtype(y, dtype)
    requests = [(_label(n, o), {x: v for x, v in o.items() if x != "k"})
                for n, o in LARGE_REQUESTS]
    got = evaluate(y, s, requests, per_row=True, no_relevant=np.nan)
    for (label, _), (name, opts) in zip(requests, LARGE_REQUESTS):
        expected = _reference_rows(name, y.astype(float), s, **opts)
        np.testing.assert_allclose(got[label], expected, rtol=1e-12, atol=1e-12,
                                   err_msg=f"{label} {dtype}")


@pytest.mark.parametrize("dtype", SPARSE_DTYPES)
@pytest.mark.parametrize("name", [n for n, s in METRICS.items() if s.takes_k])
def test_every_row_tied_across_the_cut(dtype, name):
    """Integer scores of two values: the tie group at the cut-off runs past it
    in every row (the whole block's group statistics are read at once)."""
    rng = np.random.default_rng(4)
    y = rng.integers(0, 3, size=(40, 6))
    y[rng.random(y.shape) < 0.7] = 0
    y = _as_dtype(y, dtype)
    s = rng.integers(0, 2, size=(40, 6)).astype(float)
    s[:, 0], s[:, 1] = 1, 0  # both values in every row
    spec = METRICS[name]
    if spec.ties == "refuse" or (dtype == "fractional" and "grades" in spec.needs):
        return  # no expected value over ties; ERR reads integer grades
    opts = default_options(name)
    got = score(name, y, s, k=2, per_row=True, no_relevant=np.nan, **opts)
    expected = _reference_rows(name, y.astype(float), s, k=2, **opts)
    np.testing.assert_allclose(got, expected, rtol=1e-12, atol=1e-12)


def test_float32_relevance_gets_float64_gains():
    """The exponential gain of float32 levels is computed in float64: the same
    number as for the levels converted first (float32 arithmetic was 1e-7 off)."""
    rng = np.random.default_rng(6)
    y = (rng.random((50, 30)) * 4).astype(np.float32)
    s = rng.random((50, 30))
    for k in (5, None):
        got = score("ndcg", y, s, k=k, gain="exponential", per_row=True)
        expected = score("ndcg", y.astype(np.float64), s, k=k, gain="exponential", per_row=True)
        np.testing.assert_allclose(got, expected, rtol=1e-15, atol=0)


def _check_selection(a, L, top, below, rest=None):
    n, N = a.shape
    expected = np.sort(a, axis=1)[:, ::-1]
    got = np.sort(np.take(a.reshape(-1), top), axis=1)[:, ::-1]
    np.testing.assert_array_equal(got, expected[:, :L])
    np.testing.assert_array_equal(below, expected[:, L])
    assert ((top // N) == np.arange(n)[:, None]).all()  # each row's own entries
    assert all(len(set(row)) == L for row in top.tolist())  # no entry twice
    if rest is not None:
        # The entries tying with the L-th largest that were left out, in order.
        tied = a == expected[:, L - 1][:, None]
        left = np.ones(a.size, dtype=bool)
        left[top.reshape(-1)] = False
        np.testing.assert_array_equal(rest, np.flatnonzero(tied.reshape(-1) & left))


@settings(max_examples=300, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(1, 30), N=st.integers(2, 300),
       L=st.integers(1, 40), dtype=st.sampled_from(["float64", "float32", "int64", "int16"]),
       density=st.sampled_from([0.01, 0.1, 0.4, 0.7]), v=st.sampled_from([0, 5, -3]),
       late=st.booleans())
def test_selection_around_a_dominant_score(seed, n, N, L, dtype, density, v, late):
    """Scores where one value fills most of each row (``late``: the rows' first
    columns hold none of it): the entries above it, filled up with entries
    equal to it, are the L largest, and ``below`` the largest of the rest."""
    from sk_rankmetrics._ranking.select import _select_above, select_top

    rng = np.random.default_rng(seed)
    L = min(L, N - 1)
    other = rng.integers(-10, 10, size=(n, N)) if dtype[0] == "i" else rng.random((n, N)) * 20 - 10
    a = np.where(rng.random((n, N)) < density, other, v).astype(dtype)
    if late:
        a[:, : N // 2] = np.where(a[:, : N // 2] == v, v - 1, a[:, : N // 2])
    picked = _select_above(a, L, a.dtype.type(v))
    if picked is not None:
        _check_selection(a, L, *picked)
    _check_selection(a, L, *select_top(a, L))


@settings(max_examples=300, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(1, 30), N=st.integers(2, 300),
       L=st.integers(1, 40),
       dtype=st.sampled_from(["float64", "float32", "int64", "int16", "int8", "uint8",
                              "uint64"]),
       levels=st.sampled_from([1, 2, 5, 50, None]), padded=st.booleans())
def test_selection_by_partitioned_values(seed, n, N, L, dtype, levels, padded):
    """Rows partitioned by value (float scores, and integers beyond a small
    span), with ties at the boundary and long format's -inf padding: the L
    largest, the largest of the rest, and the left-out members of the tie
    group the cut splits."""
    from sk_rankmetrics._ranking.select import _select_partitioned

    rng = np.random.default_rng(seed)
    L = min(L, N - 1)
    a = rng.random((n, N)) * 100 if levels is None else rng.integers(0, levels, (n, N))
    a = a.astype(dtype)
    if padded and dtype[0] == "f":
        a[np.arange(N) >= rng.integers(1, N + 1, size=n)[:, None]] = -np.inf
    _check_selection(a, L, *_select_partitioned(a, L))


@settings(max_examples=300, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(1, 30), N=st.integers(300, 2500),
       L=st.integers(1, 40), dtype=st.sampled_from(["float64", "float32"]),
       order=st.sampled_from(["random", "increasing", "decreasing", "sample low",
                              "sample high", "levels", "padded", "huge"]),
       later=st.booleans())
def test_selection_from_a_sample_equals_the_partition(seed, n, N, L, dtype, order, later):
    """Rows many times longer than L, selected from a threshold read off
    every step-th column: where the route is taken, the same L entries,
    largest of the rest and left-out members of the split tie group as the
    partition of whole rows, whatever the rows' order (the sample read
    from the lowest or the highest columns), ties, -inf padding and
    magnitudes; and the right ones (brute force)."""
    from sk_rankmetrics._ranking.select import _select_partitioned, _select_sampled

    rng = np.random.default_rng(seed)
    a = rng.random((n, N)) * 100
    if order == "increasing":
        a.sort(axis=1)
    elif order == "decreasing":
        a = -np.sort(a, axis=1)
    elif order == "sample low":
        a[:, ::8] -= 200.0
    elif order == "sample high":
        a[:, ::8] += 200.0
    elif order == "levels":
        a = np.floor(a / 10)
    elif order == "padded":
        a[np.arange(N) >= rng.integers(1, N + 1, size=n)[:, None]] = -np.inf
    elif order == "huge":
        a *= 1e36 if dtype == "float32" else 1e305
    a = a.astype(dtype)
    picked = _select_sampled(a, L, later)
    if picked is None:
        return
    _check_selection(a, L, *picked)
    for got, expected in zip(picked, _select_partitioned(a, L, later)):
        np.testing.assert_array_equal(got, expected)


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize(("N", "L", "taken"), [(1000, 10, True), (1000, 30, True),
                                               (5000, 100, True), (300, 10, False),
                                               (1000, 40, False), (40_000, 10, True),
                                               (40_000, 300, True)])
@pytest.mark.parametrize("ties", [False, True])
def test_selection_from_a_sample_is_taken_on_long_rows(dtype, N, L, taken, ties):
    """The route is taken where the rows are at least 32 (L + 1) long (on
    rows of 32,768 or more, sampling every 64th column), and ``select_top``
    gives its entries, those of the whole rows' partition; below that it
    declines."""
    from sk_rankmetrics._ranking.select import _select_partitioned, _select_sampled, select_top

    rng = np.random.default_rng(N + L)
    a = rng.random((8, N))
    if ties:  # the L-th largest tied across the cut in every row
        a[:, rng.choice(N, 3 * L, replace=False)] = 2.0
        a[:, rng.choice(N, L - 1, replace=False)] = 3.0
    a = a.astype(dtype)
    picked = _select_sampled(a, L, later=ties)
    assert (picked is not None) == taken
    if taken:
        _check_selection(a, L, *picked)
        for got, routed, expected in zip(picked, select_top(a, L, later=ties),
                                         _select_partitioned(a, L, later=ties)):
            np.testing.assert_array_equal(got, expected)
            np.testing.assert_array_equal(routed, expected)


@pytest.mark.parametrize(("N", "L", "step"), [
    (1000, 10, 2), (2000, 10, 4), (5000, 10, 8), (10_000, 10, 8), (1000, 1, 8),
    (352, 10, 2), (351, 10, 0), (300, 10, 0), (200, 1, 4), (1000, 30, 2),
    (1000, 31, 0), (40_000, 10, 64), (40_000, 300, 16), (40_000, 1300, 0)])
def test_sample_step_keeps_candidates_near_one_in_25(N, L, step):
    """Rows shorter than 32,768: sampled where every 4th column's expected
    candidates stay within an eighth of the row, at the widest step up to 8
    whose candidates stay within one entry in 25, every 2nd column at the
    narrowest. Wider rows: from every 64th, the widest step within an
    eighth, down to every 4th."""
    from sk_rankmetrics._ranking.select import _sample_step

    assert _sample_step(N, L) == step
    if step and N < 2**15:
        assert 8 * (L + 1) * 4 <= N
        assert step == 2 or 25 * (L + 1) * step <= N
        assert step == 8 or 25 * (L + 1) * 2 * step > N


def test_selection_from_a_sample_declines_rows_short_of_candidates():
    """NaN in the sample (fewer than the threshold's rank) leave a row fewer
    than L + 1 entries at or above its threshold (a NaN compares below
    every number): the route declines, and the whole rows' partition (and
    the scores' check) read them."""
    from sk_rankmetrics._ranking.select import _select_sampled

    a = np.zeros((4, 1000))
    a[:, ::8] = np.arange(125.0) + 1.0  # the sample: every eighth column
    assert _select_sampled(a, 10) is not None
    a[2, 8:48:8] = np.nan  # five NaN: the eleventh largest is the sixth number
    assert _select_sampled(a, 10) is None


@pytest.mark.parametrize("fill", [0.0, 1.0, -1e300])
def test_metrics_with_a_dominant_score_equal_the_partitioned_path(monkeypatch, fill):
    """Every metric with a cut-off, on scores that are mostly one value (the
    lowest or the highest), gives the number of the plain partition: the
    routes differ in cost only."""
    from sk_rankmetrics._ranking import select as _ordering

    rng = np.random.default_rng(7)
    y = rng.integers(0, 3, size=(300, 60))
    y[rng.random(y.shape) < 0.8] = 0
    s = np.where(rng.random(y.shape) < 0.15, rng.random(y.shape), fill)
    s[:, 0] = 0.5  # never a row of one value only
    names = [n for n, spec in METRICS.items() if spec.takes_k and spec.ties != "refuse"]
    reqs = [(f"{n}@{k}", default_options(n)) for n in names for k in (1, 5, 20)]
    fast = evaluate(y, s, reqs, per_row=True, no_relevant=np.nan)
    monkeypatch.setattr(_ordering, "_dominant", lambda a: None)
    plain = evaluate(y, s, reqs, per_row=True, no_relevant=np.nan)
    for r, _ in reqs:
        np.testing.assert_allclose(fast[r], plain[r], rtol=1e-12, atol=1e-12, err_msg=r)


def test_long_format_with_a_dominant_score_equals_the_partitioned_path(monkeypatch):
    """Long format (padded blocks, padding scored -inf) whose scores are mostly
    zero: the selection around the dominant score is taken, and gives the
    plain partition's numbers."""
    from sk_rankmetrics._ranking import select as _ordering

    rng = np.random.default_rng(8)
    sizes = rng.integers(25, 80, size=400)
    qid = np.repeat(np.arange(sizes.size), sizes)
    y = np.where(rng.random(qid.size) < 0.1, rng.integers(1, 4, qid.size), 0)
    s = np.where(rng.random(qid.size) < 0.2, rng.integers(1, 5, qid.size), 0).astype(float)
    reqs = ["ndcg@10", "map@10", "precision@5", "recall@20", "mrr@10", "err@10"]
    taken = []
    select = _ordering._select_above
    monkeypatch.setattr(_ordering, "_select_above",
                        lambda a, L, v, *tie: taken.append(select(a, L, v, *tie)) or taken[-1])
    fast = evaluate(y, s, reqs, qid=qid, per_row=True, no_relevant=np.nan)
    assert any(t is not None for t in taken)
    monkeypatch.setattr(_ordering, "_dominant", lambda a: None)
    plain = evaluate(y, s, reqs, qid=qid, per_row=True, no_relevant=np.nan)
    for r in reqs:
        np.testing.assert_allclose(fast[r], plain[r], rtol=1e-12, atol=1e-12, err_msg=r)


@settings(max_examples=300, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(1, 30), N=st.integers(2, 200),
       top=st.integers(0, 5), zeros=st.floats(0, 1),
       dtype=st.sampled_from(["int8", "int64", "uint16", "float64", "float32", "halves"]),
       gain=st.sampled_from(["linear", "exponential"]), passes=st.integers(1, 3),
       width=st.integers(1, 199))
def test_ideal_read_off_the_highest_levels(seed, n, N, top, zeros, dtype, gain, passes, width):
    """Dense graded relevance: the top gains read level by level from the
    highest (rows still short counted) equal the sorted gains, when taken."""
    from sk_rankmetrics._ranking.ideal import _top_levels

    rng = np.random.default_rng(seed)
    y = rng.integers(0, top + 1, size=(n, N))
    y[rng.random((n, N)) < zeros] = 0
    y = y / 2.0 if dtype == "halves" else y.astype(dtype)  # halves: levels between integers
    w = min(width, N - 1)
    g = resolve_gain(gain)
    got = _top_levels(y, g, None, w, passes=passes)
    if got is not None:
        expected = np.sort(np.asarray(g(y.astype(float))), axis=1)[:, N - w:]
        np.testing.assert_array_equal(got, expected)


@settings(max_examples=300, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(0, 40), N=st.integers(0, 700),
       density=st.floats(0, 1), view=st.sampled_from(["whole", "columns", "rows", "reversed"]))
def test_row_counts_equal_count_nonzero(seed, n, N, density, view):
    """The per-row counts read as byte lanes of 64-bit words equal
    np.count_nonzero's, for every width (a partial last word, rows past the
    word route) and for views whose rows do not start on a word."""
    from sk_rankmetrics._utils.fast import row_counts

    rng = np.random.default_rng(seed)
    m = rng.random((n, N)) < density
    m = {"whole": m, "columns": m[:, 1:], "rows": m[1::2],
         "reversed": m[:, ::-1]}[view]
    np.testing.assert_array_equal(row_counts(m), np.count_nonzero(m, axis=1))


@settings(max_examples=200, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(1, 30), N=st.integers(2, 200),
       levels=st.integers(1, 12), density=st.sampled_from([0.01, 0.05, 0.3, 1.0]),
       dtype=st.sampled_from(["int64", "int8", "uint16", "float64", "float32", "bool"]),
       gain=st.sampled_from(["linear", "exponential", "mapping"]), width=st.integers(1, 199))
def test_ideal_of_sparse_graded_levels(seed, n, N, levels, density, dtype, gain, width):
    """Sparse graded relevance (levels 1..levels on a fraction of the items,
    0 elsewhere, integers of any type or floats holding integers): the top
    gains read level by level equal the sorted gains, whichever route takes
    them, and the level route is taken when there are few levels."""
    from sk_rankmetrics._ranking.ideal import _LEVEL_PASSES, _top_levels, ideal_gains

    rng = np.random.default_rng(seed)
    top = 1 if dtype == "bool" else levels
    y = np.where(rng.random((n, N)) < density, rng.integers(1, top + 1, size=(n, N)), 0)
    y = y.astype(dtype)
    w = min(width, N - 1)
    g = resolve_gain({v: float(v * v + 1) for v in range(top + 1)} | {0: 0.0}
                     if gain == "mapping" else gain)
    expected = np.sort(np.asarray(g(y.astype(float)), dtype=float), axis=1)[:, N - w:]
    got = _top_levels(y, g, None, w)
    if top <= _LEVEL_PASSES and y.any():
        assert got is not None
    if got is not None:
        np.testing.assert_array_equal(got, expected)
    np.testing.assert_array_equal(ideal_gains(y, g, lambda: None, w), expected)


@settings(max_examples=200, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), size=st.integers(0, 300),
       dtype=st.sampled_from(["int64", "int8", "uint8", "int32", "float64", "bool", "U3",
                              "object", "uint64"]),
       nan=st.booleans())
def test_unique_is_numpys_unique(seed, size, dtype, nan):
    """The sort-based distinct values (NumPy's hashed np.unique is ten times
    slower on a million integers) equal np.unique's, for every dtype."""
    from sk_rankmetrics._utils.fast import unique

    rng = np.random.default_rng(seed)
    a = rng.integers(0, 20, size=size)
    if dtype == "int8":  # the whole range: differences beyond the type
        a = rng.integers(-128, 128, size=size)
    if dtype == "int64" and nan:  # wide: sorted, not marked in a table
        a = a * (2**50)
    if dtype == "float64" and nan and size:
        a = a.astype(float)
        a[rng.random(size) < 0.2] = np.nan
    a = a.astype(dtype)
    if dtype == "uint64":  # keys past 2**63 (packed text ids), in a compact range or not
        a = a * np.uint64(2**40 if nan else 1) + np.uint64(2**63 + 12345)
    np.testing.assert_array_equal(unique(a), np.unique(a))


@settings(max_examples=200, deadline=None)
@given(ids=st.lists(st.text(st.sampled_from("ab0_Zé\x01\xff€"), max_size=10), max_size=60),
       repeat=st.integers(1, 3))
def test_unique_of_text_is_numpys_unique(ids, repeat):
    """Text ids packed into integers and unpacked once distinct (ids of at
    most 8 characters below U+0100), or through np.unique (longer ids, other
    characters): np.unique's values in its order and dtype, empty ids and ids
    that are prefixes of others included."""
    from sk_rankmetrics._utils.fast import unique

    a = np.array(ids * repeat, dtype=str)
    got, want = unique(a), np.unique(a)
    assert got.dtype == want.dtype
    np.testing.assert_array_equal(got, want)


@settings(max_examples=200, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), size=st.integers(0, 300), wide=st.booleans())
def test_codes_of_number_the_distinct_keys_in_order(seed, size, wide):
    """``codes_of`` (a table for compact keys, np.unique otherwise) numbers
    the distinct keys as np.unique's inverse does, and ``first`` points at
    a key of each code."""
    from sk_rankmetrics._utils.fast import codes_of

    rng = np.random.default_rng(seed)
    keys = rng.integers(0, 20, size=size) * (2**50 if wide else 1)
    codes, first = codes_of(keys)
    distinct, inverse = np.unique(keys, return_inverse=True)
    np.testing.assert_array_equal(codes, inverse)
    np.testing.assert_array_equal(keys[first], distinct)


@settings(max_examples=300, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(1, 30), N=st.integers(2, 120),
       L=st.integers(1, 60), dtype=st.sampled_from(["int64", "int32", "int16", "uint16"]),
       hi=st.integers(0, 40), mostly_low=st.booleans())
def test_selection_of_integer_scores_by_counting(seed, n, N, L, dtype, hi, mostly_low):
    """Integer scores in a small span, counted per row: the L largest and the
    largest of the rest, ties at the boundary cut in order of position."""
    from sk_rankmetrics._ranking.select import _select_by_counts

    rng = np.random.default_rng(seed)
    L = min(L, N - 1)
    lo = 0 if dtype[0] == "u" else -3
    a = rng.integers(lo, hi + 1, size=(n, N))
    if mostly_low:
        a[rng.random((n, N)) < 0.9] = lo
    a = a.astype(dtype)
    picked = _select_by_counts(a, L)
    if picked is not None:
        _check_selection(a, L, *picked)


@pytest.mark.parametrize("dtype", ["int64", "int16", "uint32"])
def test_integer_scores_counted_equal_the_partitioned_path(monkeypatch, dtype):
    """Every metric with a cut-off on heavily tied integer scores: the chunk
    ranked from the counts of each score (ties averaged), and the counted
    selection (which the kernels reading items take), give the plain
    partition's numbers."""
    from sk_rankmetrics._ranking import chunk as _chunk
    from sk_rankmetrics._ranking import select as _ordering

    rng = np.random.default_rng(9)
    y = rng.integers(0, 3, size=(300, 60))
    y[rng.random(y.shape) < 0.8] = 0
    s = rng.integers(0, 6, size=y.shape).astype(dtype)
    s[:3] = np.arange(60)  # rows without ties
    names = [n for n, spec in METRICS.items() if spec.takes_k and spec.ties != "refuse"]
    reqs = [(f"{n}@{k}", default_options(n)) for n in names for k in (1, 5, 20)]
    taken = []
    counts = _chunk.score_counts
    monkeypatch.setattr(_chunk, "score_counts",
                        lambda a, L, *known: taken.append(counts(a, L, *known)) or taken[-1])
    monkeypatch.setattr(_chunk, "top_tie_groups", lambda a, L: None)
    fast = evaluate(y, s, reqs, per_row=True, no_relevant=np.nan)
    assert any(t is not None for t in taken)
    monkeypatch.setattr(_chunk, "score_counts", lambda a, L, *known: None)
    selected = evaluate(y, s, reqs, per_row=True, no_relevant=np.nan)
    monkeypatch.setattr(_ordering, "_select_by_counts", lambda a, L, *tie: None)
    plain = evaluate(y, s, reqs, per_row=True, no_relevant=np.nan)
    for r, _ in reqs:
        np.testing.assert_allclose(fast[r], plain[r], rtol=1e-12, atol=1e-12, err_msg=r)
        np.testing.assert_allclose(selected[r], plain[r], rtol=1e-12, atol=1e-12, err_msg=r)


@settings(max_examples=300, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(1, 30), N=st.integers(2, 150),
       L=st.integers(1, 40), span=st.integers(1, 40),
       dtype=st.sampled_from(["int64", "int32", "int16", "uint16", "uint64"]),
       wide=st.booleans())
def test_ranking_from_score_counts_equals_the_sorted_ranking(seed, n, N, L, span, dtype,
                                                             wide):
    """Integer scores in a small span ranked from each row's count of each
    score: the tie groups (first position, size, summed values) of the top L
    equal those of the sorted ranking, also for scores near the ends of
    64-bit integers."""
    from unittest import mock

    from sk_rankmetrics._ranking import chunk as _chunk

    rng = np.random.default_rng(seed)
    L = min(L, N - 1)
    a = rng.integers(0, span, size=(n, N)).astype(dtype)
    if wide and dtype in ("int64", "uint64"):
        a += np.dtype(dtype).type(2**62)
    values = {"v": rng.random((n, N)), "w": (rng.random((n, N)) < 0.3).astype(float)}
    counted = _chunk.score_counts(a, L)
    if counted is None:
        assert int(a.max()) - int(a.min()) + 1 > N
        return
    # (Counted whole: not only the top tie group, which test_top_tie_groups checks.)
    with mock.patch.object(_chunk, "top_tie_groups", lambda a, L: None):
        got = _chunk.rank_chunk(a, values, L)
        with mock.patch.object(_chunk, "score_counts", lambda a, L, *known: None):
            expected = _chunk.rank_chunk(a, values, L)
    assert got.tied == expected.tied and got.real_ties == expected.real_ties
    np.testing.assert_array_equal(got.start, expected.start)
    np.testing.assert_array_equal(got.size, expected.size)
    for name in values:
        np.testing.assert_allclose(got.sums[name], expected.sums[name], rtol=1e-12,
                                   atol=1e-12)


@pytest.mark.parametrize(("dtype", "base"), [(np.uint64, 2**63), (np.int64, -(2**62)),
                                             (np.int64, 2**62), (np.uint64, 2**64 - 50)])
def test_counting_wide_integer_scores_stays_in_their_type(dtype, base):
    """Scores near the ends of 64-bit integers (beyond float64's precision)
    are counted relative to the smallest, in their own type."""
    from sk_rankmetrics._ranking.select import _select_by_counts

    rng = np.random.default_rng(10)
    a = (rng.integers(0, 20, size=(30, 40)).astype(dtype) + dtype(base))
    _check_selection(a, 7, *_select_by_counts(a, 7))


@settings(max_examples=200, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(0, 50), m=st.integers(0, 200),
       dtype=st.sampled_from(["int64", "int8", "uint16", "U4"]), wide=st.booleans())
def test_rows_of_ids_by_table_or_search(seed, n, m, dtype, wide):
    """The row of each id, looked up in a table (compact integers) or by binary
    search, -1 for ids of no row."""
    from sk_rankmetrics._inputs.id_checks import rows_of

    rng = np.random.default_rng(seed)
    top = 120 if dtype == "int8" else (2**40 if wide else 3 * n + 5)
    low = -top if dtype == "int8" else 0
    users = rng.permutation(np.unique(rng.integers(low, top, size=n)))  # distinct
    ids = np.concatenate([rng.integers(low, top, size=m), users[: m // 2]])
    users, ids = users.astype(dtype), ids.astype(dtype)
    order = np.argsort(users, kind="stable")
    got = rows_of(users[order], order, ids)
    expected = [users.tolist().index(i) if i in users.tolist() else -1 for i in ids.tolist()]
    assert got.tolist() == expected


@pytest.mark.parametrize("density", [0.02, 0.3, 1.0])
@pytest.mark.parametrize("dtype", ["int64", "int8", "float64"])
@pytest.mark.parametrize("scores", ["float64", "float32", "int"])
def test_gain_mapping_with_unnamed_levels_between(density, dtype, scores):
    """A gain mapping names only the levels that occur (0, 1, 3, not 2): the
    routes that read values per level (the ideal's counts, the sort that
    carries levels in the scores, the tie sums of integer scores) never
    evaluate it at level 2, and the numbers are those of the same gains
    given as a callable. float32 scores tie in some rows, integer scores in
    every row."""
    rng = np.random.default_rng(11)
    y = np.where(rng.random((300, 80)) < density, rng.choice([1, 3], size=(300, 80)), 0)
    y = y.astype(dtype)
    s = rng.random((300, 80))
    s = rng.integers(0, 6, size=s.shape) if scores == "int" else s.astype(scores)
    mapping = {0: 0.0, 1: 1.0, 3: 5.0}

    def as_callable(r):
        return np.select([r == 3, r == 1], [5.0, 1.0], 0.0)

    for name in ("ndcg", "g", "ndcg_rel", "rndcg"):
        spec = METRICS[name]
        k = 5 if spec.takes_k else None
        got = score(name, y, s, k=k, gain=mapping, per_row=True, no_relevant=np.nan)
        expected = score(name, y, s, k=k, gain=as_callable, per_row=True, no_relevant=np.nan)
        np.testing.assert_allclose(got, expected, rtol=1e-12, atol=1e-12, err_msg=name)


@pytest.mark.parametrize("dtype", ["bool", "int8", "int64"])
def test_binary_relevance_ideal_in_one_pass(dtype):
    """Binary relevance: the highest level is the only one of positive gain, so
    the rows short of it are complete after one pass (the rest is worth 0)."""
    from sk_rankmetrics._ranking.ideal import _top_levels

    rng = np.random.default_rng(12)
    y = (rng.random((200, 60)) < 0.03).astype(dtype)
    for gain in ("linear", "exponential"):
        g = resolve_gain(gain)
        got = _top_levels(y, g, None, 10)
        assert got is not None  # taken however sparse the block
        expected = np.sort(np.asarray(g(y.astype(float))), axis=1)[:, 50:]
        np.testing.assert_array_equal(got, expected)


@pytest.mark.parametrize("graded", [False, True, "fractional", "wide"])
def test_truth_sorted_by_packed_keys_or_by_order(graded):
    """The truth of ID lists, shuffled: sorted by packed (user, item, level)
    keys when the relevance takes a few integer levels, by an order otherwise
    (fractional levels, a span of levels too wide to pack); the same numbers,
    and a pair judged twice is named either way."""
    from sk_rankmetrics import evaluate_ranked

    rng = np.random.default_rng(13)
    rec = np.array([rng.permutation(500)[:20] for _ in range(300)])  # distinct per user
    users = np.repeat(np.arange(300), 5)
    items = np.concatenate([rng.permutation(500)[:5] for _ in range(300)])
    rel = rng.integers(1, 4, size=users.size) if graded else np.ones(users.size, dtype=int)
    if graded == "fractional":
        rel = rel / 2.0
    elif graded == "wide":
        rel = rng.integers(1, 100, size=users.size)
    p = rng.permutation(users.size)
    a = evaluate_ranked(rec, (users[p], items[p], rel[p]), ["ndcg@10", "map@20"])
    b = evaluate_ranked(rec, (users, items, rel), ["ndcg@10", "map@20"])
    for name in ("ndcg@10", "map@20"):
        np.testing.assert_allclose(a.per_query[name], b.per_query[name], rtol=0, atol=1e-15)
    users2 = np.append(users[p], users[p][7])
    items2 = np.append(items[p], items[p][7])
    rel2 = np.append(rel[p], rel[p][7])
    with pytest.raises(ValueError, match=rf"judges item {items[p][7]} twice for user "
                                         rf"{users[p][7]};"):
        evaluate_ranked(rec, (users2, items2, rel2), ["ndcg@10"])


@settings(max_examples=150, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(0, 40), m=st.integers(0, 80),
       dtype=st.sampled_from(["float64", "float32", "int64", "bool"]), view=st.booleans())
def test_row_sums_and_running_sums_equal_numpys(seed, n, m, dtype, view):
    """Row sums by a product with ones, running sums a column at a time: the
    values of ``sum(axis=1)`` and ``cumsum(axis=1)`` (running sums exactly: the
    same additions in the same order), on strided views too."""
    from sk_rankmetrics._utils.fast import row_cumsum, row_sums

    rng = np.random.default_rng(seed)
    a = (rng.random((n, m + 3)) * 10 - 2).astype(dtype)
    if dtype == "bool":
        a = rng.random((n, m + 3)) < 0.3
    a = a[:, 1 : m + 1] if view else a[:, :m]
    np.testing.assert_array_equal(row_cumsum(a), np.cumsum(a, axis=1))
    out = np.zeros((n, m + 1))
    row_cumsum(a.astype(np.float64), out=out[:, 1:])
    np.testing.assert_array_equal(out[:, 1:], np.cumsum(a.astype(np.float64), axis=1))
    assert not out[:, 0].any()
    if dtype != "bool":
        np.testing.assert_allclose(row_sums(a), a.sum(axis=1), rtol=1e-6 if dtype == "float32"
                                   else 1e-12, atol=1e-5)


def test_some_ranked_item_judged_by_prefix_or_whole():
    """Whether any ranked item is judged: a match in the first rows of both
    sides, a match only in later rows, in another row than its own, or none."""
    from sk_rankmetrics._inputs.id_checks import any_in

    n, w = 3000, 5
    ranked = np.arange(n * w).reshape(n, w) + 10**6  # distinct, none judged
    indptr = np.arange(n + 1) * w
    truth = np.arange(n) + 5 * 10**6
    tptr = np.arange(n + 1)
    assert not any_in(ranked.reshape(-1), truth, indptr, tptr)
    t2 = truth.copy()
    t2[2] = ranked[2, 3]  # the first rows
    assert any_in(ranked.reshape(-1), t2, indptr, tptr)
    t3 = truth.copy()
    t3[-1] = ranked[-1, 0]  # the last row only
    assert any_in(ranked.reshape(-1), t3, indptr, tptr)
    t4 = truth.copy()
    t4[0] = ranked[-1, 4]  # judged for another row: still an id the truth knows
    assert any_in(ranked.reshape(-1), t4, indptr, tptr)


@pytest.mark.parametrize("dtype", ["int8", "int64", "float64", "float32", "uint16"])
@pytest.mark.parametrize("density", [0.002, 0.05, 0.2])
def test_sparse_levels_counted_from_their_entries(monkeypatch, dtype, density):
    """Few entries at the levels of positive gain: the counts per (level,
    row) of floats holding levels come from one pass over the block; the
    ideal equals the one read a level at a time, and the sorted gains. The
    route is taken exactly for floats whose sample shows at most one entry
    in eight at those levels; integers are cut to one byte and counted a
    level at a time."""
    from sk_rankmetrics._ranking import ideal

    rng = np.random.default_rng(15)
    y = np.where(rng.random((400, 90)) < density, rng.integers(1, 5, size=(400, 90)), 0)
    y[3, :12] = 4  # a row filled past the width by its highest level
    y = y.astype(dtype)
    taken = []
    real = ideal._sparse_levels
    monkeypatch.setattr(ideal, "_sparse_levels",
                        lambda *a: taken.append(1) or real(*a))
    for gain in ("linear", "exponential"):
        g = resolve_gain(gain)
        got = ideal._top_levels(y, g, None, 10)
        expected = np.sort(np.asarray(g(y.astype(float))), axis=1)[:, 80:]
        np.testing.assert_array_equal(got, expected)
        with monkeypatch.context() as m:
            m.setattr(ideal, "_SPARSE_LEVELS", 10**9)  # never: a level at a time
            np.testing.assert_array_equal(ideal._top_levels(y, g, None, 10), got)
    sample = y.reshape(-1)[: ideal._SAMPLE]
    sparse = np.count_nonzero(sample >= 1) * ideal._SPARSE_LEVELS <= sample.size
    assert bool(taken) == (sparse and y.dtype.kind == "f")
    assert sparse == (density < 0.1)  # the sample says what the data are


@settings(max_examples=100, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(0, 40), m=st.integers(1, 80),
       dtype=st.sampled_from(["float64", "float32", "int64", "int8"]))
def test_row_min_equals_numpys(seed, n, m, dtype):
    """The minimum of each row, a column at a time for short rows (also -inf
    and strided views): NumPy's ``min(axis=1)``."""
    from sk_rankmetrics._utils.fast import row_min

    rng = np.random.default_rng(seed)
    a = (rng.random((n, m + 2)) * 200 - 100).astype(dtype)
    if dtype.startswith("float") and n:
        a[0, -1] = -np.inf
    a = a[:, 2:]
    np.testing.assert_array_equal(row_min(a), a.min(axis=1))


@pytest.mark.parametrize("odd", [0.5, 2.5, -0.5, 1e-9, 4.0 - 1e-12])
def test_sparse_float_levels_past_a_whole_sample(odd):
    """Float relevance whose sample (the block's first entries) holds whole
    levels but a later entry does not: an entry between two levels or a
    fraction above the lowest level read. The level routes never read it as
    a whole level: the ideal equals the sorted gains."""
    from sk_rankmetrics._ranking import ideal

    rng = np.random.default_rng(16)
    n, N = 400, 90
    y = np.where(rng.random((n, N)) < 0.04, rng.integers(1, 5, size=(n, N)), 0).astype(float)
    assert y.size > ideal._SAMPLE
    y[-3, 7] = odd  # past the sample
    for gain in ("linear", "exponential"):
        g = resolve_gain(gain)
        if odd < 0 and gain == "exponential":
            continue
        expected = np.sort(np.asarray(g(y), dtype=float), axis=1)[:, N - 10:]
        got = ideal._top_levels(y, g, None, 10)
        if got is not None:
            np.testing.assert_array_equal(got, expected)
        np.testing.assert_array_equal(ideal.ideal_gains(y, g, lambda: None, 10), expected)


def test_mix_is_splitmix64s_finaliser():
    """The one 64-bit finaliser the readers, the ID lists and the catalogue
    share: SplitMix64's, computed here with Python integers; in place only
    on a uint64 array when asked."""
    from sk_rankmetrics._utils.hashing import GOLDEN, mix

    def reference(x):
        m = (1 << 64) - 1
        x = ((x ^ (x >> 30)) * 0xBF58476D1CE4E5B9) & m
        x = ((x ^ (x >> 27)) * 0x94D049BB133111EB) & m
        return x ^ (x >> 31)

    xs = [0, 1, 2**63, 2**64 - 1, 12345678901234567, int(GOLDEN)]
    a = np.array(xs, dtype=np.uint64)
    got = mix(a)
    assert [int(v) for v in got] == [reference(x) for x in xs]
    assert [int(v) for v in a] == xs  # not in place by default
    same = mix(a, inplace=True)
    assert same is a and [int(v) for v in a] == [reference(x) for x in xs]
    assert int(mix(np.uint64(7))) == reference(7)
    assert len(set(int(v) for v in mix(np.arange(10_000, dtype=np.uint64)))) == 10_000


@settings(max_examples=200, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), m=st.integers(0, 80), n=st.integers(0, 50),
       dtype=st.sampled_from(["bool", "int8", "uint8", "int32", "int64", "uint64", "float64"]))
def test_cumsum_down_equals_numpys(seed, m, n, dtype):
    """Running sums down the columns a row at a time equal np.cumsum(axis=0):
    values and dtype (small integers widened as NumPy widens them), past the
    row-at-a-time limit too; the input is left as it was."""
    from sk_rankmetrics._utils.fast import cumsum_down

    rng = np.random.default_rng(seed)
    a = rng.integers(0, 5, size=(m, n)).astype(dtype)
    before = a.copy()
    got, expected = cumsum_down(a), np.cumsum(a, axis=0)
    assert got.dtype == expected.dtype
    np.testing.assert_array_equal(got, expected)
    np.testing.assert_array_equal(a, before)


@settings(max_examples=300, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(0, 3000),
       dtype=st.sampled_from(["int8", "uint8", "int16", "uint16", "int32", "uint32", "int64",
                              "uint64"]),
       spread=st.sampled_from(["full", "few", "one", "ends", "skewed", "sorted", "reversed"]),
       per=st.sampled_from([1, 4, 256]))
def test_sort_keys_equals_numpys_sort(seed, n, dtype, spread, per):
    """Keys sorted bucket by bucket equal np.sort's, in their dtype: the full
    range of every integer type (int64 and uint64 spans past 2**63), a few
    values, one value, only the two extremes, most keys in one bucket,
    sorted and reversed input; with buckets of one key and of many."""
    from sk_rankmetrics._utils import fast as arrays

    rng = np.random.default_rng(seed)
    info = np.iinfo(dtype)
    if spread == "full":
        a = rng.integers(info.min, info.max, size=n, dtype=dtype, endpoint=True)
    elif spread == "few":
        a = rng.integers(0, 3, size=n).astype(dtype)
    elif spread == "one":
        a = np.full(n, info.max, dtype=dtype)
    elif spread == "ends":
        a = np.where(rng.random(n) < 0.5, info.min, info.max).astype(dtype)
    elif spread == "skewed":
        a = np.where(rng.random(n) < 0.95, info.min + 1, rng.integers(
            info.min, info.max, size=n, dtype=dtype, endpoint=True)).astype(dtype)
    else:
        a = np.sort(rng.integers(info.min, info.max, size=n, dtype=dtype, endpoint=True))
        if spread == "reversed":
            a = a[::-1].copy()
    before = a.copy()
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(arrays, "VECTOR_SORT", False)  # the buckets, whatever the machine
        mp.setattr(arrays, "_BUCKET_MIN", 0)
        mp.setattr(arrays, "_BUCKET_KEYS", per)
        got = arrays.sort_keys(a)
    expected = np.sort(a)
    assert got.dtype == expected.dtype
    np.testing.assert_array_equal(got, expected)
    np.testing.assert_array_equal(a, before)  # a new array


@pytest.mark.parametrize("vector_sort", [False, True])
def test_sort_keys_takes_buckets_only_for_long_integer_arrays(monkeypatch, vector_sort):
    """Without a vectorised np.sort, integer arrays of at least _BUCKET_MIN
    keys go through the buckets (one radix argsort of their numbers);
    shorter ones, floats and 2-D arrays to np.sort as they are. With one,
    every array of 32- or 64-bit keys goes to np.sort; 16-bit keys still to
    the buckets."""
    from sk_rankmetrics._utils import fast as arrays

    monkeypatch.setattr(arrays, "VECTOR_SORT", vector_sort)
    calls = []
    real = np.argsort

    def spy(a, *args, **kw):
        calls.append(a.dtype)
        return real(a, *args, **kw)

    monkeypatch.setattr(arrays.np, "argsort", spy)
    rng = np.random.default_rng(0)
    big = rng.integers(-(2**62), 2**62, size=arrays._BUCKET_MIN)
    np.testing.assert_array_equal(arrays.sort_keys(big), np.sort(big))
    assert calls == ([] if vector_sort else [np.dtype(np.uint16)])
    calls.clear()
    for a in (big[:100], big.astype(np.float64), big[:1000].reshape(10, 100)):
        np.testing.assert_array_equal(arrays.sort_keys(a), np.sort(a))
    assert calls == []
    short = big.astype(np.int16)
    np.testing.assert_array_equal(arrays.sort_keys(short), np.sort(short))
    assert calls == [np.dtype(np.uint16)]


def test_vector_sort_is_read_from_numpys_cpu_features():
    """VECTOR_SORT is a bool from NumPy's table of CPU features: True only
    with AVX2 on NumPy 2 or AVX-512."""
    from sk_rankmetrics._utils import fast

    assert fast.VECTOR_SORT is fast._has_vector_sort()
    assert isinstance(fast.VECTOR_SORT, bool)
    try:
        from numpy._core._multiarray_umath import __cpu_features__ as features
    except ImportError:
        from numpy.core._multiarray_umath import __cpu_features__ as features
    if not (features.get("AVX2") or features.get("AVX512_SKX")):
        assert not fast.VECTOR_SORT


def test_sparse_float_levels_claim_whole_only_what_they_read():
    """The sparse route of float relevance checks only the entries above the
    levels of gain 0 (here 0 and 1 under a mapping); a fraction below them
    (0.5) is worth 0 and the ideal is right, but the block's levels must not
    then be taken as whole numbers (ERR's grade check and the counting of
    other gains read that)."""
    from sk_rankmetrics._ranking import ideal
    from sk_rankmetrics._ranking.item_values import Extremes

    rng = np.random.default_rng(3)
    n, N = 400, 90
    y = np.where(rng.random((n, N)) < 0.04, rng.integers(2, 4, size=(n, N)), 0).astype(float)
    assert y.size > ideal._SAMPLE
    y[-3, 7] = 0.5  # past the sample
    g = resolve_gain({0: 0.0, 0.5: 0.0, 1: 0.0, 2: 1.0, 3: 3.0})
    expected = np.sort(np.asarray(g(y), dtype=float), axis=1)[:, N - 10:]
    ex = Extremes(y)
    got = ideal._top_levels(y, g, ex, 10)
    assert got is not None  # the sparse route
    np.testing.assert_array_equal(got, expected)
    assert ex.integral_known is not True
    assert ex.integral is False
    whole = np.where(y == 0.5, 0.0, y)
    ex = Extremes(whole)
    np.testing.assert_array_equal(ideal._top_levels(whole, g, ex, 10),
                                  np.sort(np.asarray(g(whole), dtype=float), axis=1)[:, N - 10:])


def test_two_gains_over_a_fraction_below_the_levels_of_gain_0():
    """evaluate of two gains on one block, the first a mapping worth 0 up to
    1 (its sparse route reads only the entries above 1), the second
    exponential (worth something at 0.5): each equals its own call and the
    brute force. The first once marked the levels whole, and the second then
    read 0.5 as a level and failed in a reshape."""
    rng = np.random.default_rng(3)
    n, N = 400, 90
    y = np.where(rng.random((n, N)) < 0.04, rng.integers(2, 4, size=(n, N)), 0).astype(float)
    y[-3, 7] = 0.5  # past the sample the routes look at
    s = rng.random((n, N))
    m = {0: 0.0, 0.5: 0.0, 1: 0.0, 2: 1.0, 3: 3.0}
    both = evaluate(y, s, [("ndcg@10", {"gain": m}), "ndcg_exp@10"], no_relevant=0.0)
    assert both["ndcg@10"] == evaluate(y, s, [("ndcg@10", {"gain": m})],
                                       no_relevant=0.0)["ndcg@10"]
    assert both["ndcg_exp@10"] == evaluate(y, s, ["ndcg_exp@10"], no_relevant=0.0)["ndcg_exp@10"]
    # The exponential ideal by a plain sort, the DCG of the scores' order.
    gains = 2.0 ** y - 1
    order = np.argsort(-s, axis=1, kind="stable")[:, :10]
    disc = 1 / np.log2(np.arange(2, 12))
    dcg = (np.take_along_axis(gains, order, axis=1) * disc).sum(axis=1)
    idcg = (-np.sort(-gains, axis=1)[:, :10] * disc).sum(axis=1)
    ok = idcg > 0
    expected = np.mean(np.where(ok, dcg / np.where(ok, idcg, 1), 0.0))
    np.testing.assert_allclose(both["ndcg_exp@10"], expected, rtol=1e-12)


@settings(max_examples=150, deadline=None)
@given(a=st.lists(st.text(st.sampled_from("ab0Zé€\x01"), max_size=10), max_size=30),
       b=st.lists(st.text(st.sampled_from("ab0Zé€\x01"), max_size=10), max_size=30),
       pad=st.integers(0, 5000))
def test_some_text_id_in_the_other_side(a, b, pad):
    """``any_in`` of text ids (packed into integers where both sides allow,
    compared as text otherwise, past the prefix it tries first when
    ``pad`` entries come before): np.isin's answer."""
    from sk_rankmetrics._inputs.id_checks import any_in

    head = [f"p{i}" for i in range(pad)]  # (never among b: no digit-only ids there)
    left, right = np.array(head + a, dtype=str), np.array(b, dtype=str)
    assert any_in(left, right) == bool(np.isin(left, right).any())
