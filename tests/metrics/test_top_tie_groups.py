"""Cut-off rankings of integer scores whose top tie group covers the cut.

Where every row of a block holds its best score at least ``k`` times (integer
scores of a few values on long rows), the first ``k`` positions all lie in
that one tie group: the ranking finds the group by a row maximum and one
comparison (``select.top_tie_groups``) instead of counting every score of
every row. Its tie groups must be those of the sorted ranking, its metrics
the brute force's over every ordering of the ties, and a block where one
row falls short (beyond the rows sampled first) must take the other way.
"""

from __future__ import annotations

import numpy as np
import pytest
from conftest import default_options, score
from hypothesis import given, settings
from hypothesis import strategies as st
from test_brute_force import _reference_rows

from sk_rankmetrics import evaluate
from sk_rankmetrics._metrics.registry import METRICS
from sk_rankmetrics._ranking import chunk as _chunk
from sk_rankmetrics._ranking import select as _select

#: Every measure with a cut-off that averages over ties.
CUT_OFF = [n for n, spec in METRICS.items() if spec.takes_k and spec.ties != "refuse"]


def _spied(monkeypatch):
    """Record what each call of ``top_tie_groups`` found (None: not taken)."""
    found, real = [], _select.top_tie_groups
    monkeypatch.setattr(_chunk, "top_tie_groups",
                        lambda a, L: found.append(real(a, L)) or found[-1])
    return found


def _tied_at_the_top(rng, n, N, at_least, hi, dtype):
    """Integer scores in 0..hi-1 whose best value each row holds at least
    ``at_least`` times (and, unless every score is 0, a lower one too)."""
    s = rng.integers(0, hi, size=(n, N))
    top = s.max(axis=1, keepdims=True)
    perm = np.argsort(rng.random((n, N)), axis=1)  # at_least < N: two column sets
    np.put_along_axis(s, perm[:, :at_least], top, axis=1)
    np.put_along_axis(s, perm[:, -1:], np.where(top > 0, top - 1, 0), axis=1)
    return s.astype(dtype)


@pytest.mark.parametrize("name", CUT_OFF)
def test_metrics_over_a_top_tie_group_equal_the_brute_force(monkeypatch, name):
    # Rows of 7 scored 0..2, the best held at least 3 times: k = 1..3 lie in
    # that group; each metric is the mean over every ordering of the ties.
    rng = np.random.default_rng(17)
    y = rng.integers(0, 4, size=(60, 7))
    y[rng.random(y.shape) < 0.5] = 0
    s = _tied_at_the_top(rng, 60, 7, 3, 3, np.int64)
    spec = METRICS[name]
    opts = default_options(name)
    found = _spied(monkeypatch)
    for k in (1, 2, 3):
        got = score(name, y, s, k=k, per_row=True, no_relevant=np.nan, **opts)
        expected = _reference_rows(name, y.astype(float), s.astype(float), k=k, **opts)
        np.testing.assert_allclose(got, expected, rtol=1e-12, atol=1e-12,
                                   err_msg=f"{name}@{k}")
    if not spec.reads_items:
        assert found and all(f is not None for f in found)


@settings(max_examples=200, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(1, 40), N=st.integers(3, 120),
       L=st.integers(1, 30), hi=st.integers(1, 30),
       dtype=st.sampled_from(["int8", "uint8", "int16", "uint16", "int32", "int64", "uint64"]),
       shift=st.booleans())
def test_top_tie_groups_equal_the_sorted_ranking(seed, n, N, L, hi, dtype, shift):
    # The chunk ranked from the top tie group: each position's group (first
    # position, size, summed values) is the sorted ranking's, with scores near
    # the top of their type too.
    rng = np.random.default_rng(seed)
    L = min(L, N - 1)
    a = _tied_at_the_top(rng, n, N, L, min(hi, 100), dtype)
    if shift:
        a = a + np.iinfo(dtype).max - a.max()
    values = {"v": rng.random((n, N)), "w": (rng.random((n, N)) < 0.3).astype(float)}
    assert _select.top_tie_groups(a, L) is not None
    got = _chunk.rank_chunk(a, values, L)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(_chunk, "top_tie_groups", lambda a, L: None)
        mp.setattr(_chunk, "score_counts", lambda a, L, *known: None)
        expected = _chunk.rank_chunk(a, values, L)
    assert got.tied == expected.tied and got.real_ties == expected.real_ties
    if expected.tied:
        np.testing.assert_array_equal(got.start, expected.start)
        np.testing.assert_array_equal(got.size, expected.size)
    for name in values:
        np.testing.assert_allclose(got.sums[name], expected.sums[name], rtol=1e-12,
                                   atol=1e-12)


@pytest.mark.parametrize("short_row", [0, 5, 39])
def test_one_short_row_sends_the_block_the_other_way(monkeypatch, short_row):
    # A row whose best score appears fewer than k times, in the rows sampled
    # first or after them: the top groups are not taken, and the numbers are
    # those of the counted ranking.
    rng = np.random.default_rng(3)
    y = rng.integers(0, 3, size=(40, 50))
    s = _tied_at_the_top(rng, 40, 50, 10, 5, np.int32)
    s[short_row] = np.arange(50)  # one best, no ties
    assert _select.top_tie_groups(s, 10) is None
    assert _select.top_tie_groups(np.delete(s, short_row, axis=0), 10) is not None
    found = _spied(monkeypatch)
    got = evaluate(y, s, ["ndcg@10", "map@10", "precision@10"], per_row=True)
    assert found == [None]
    expected = {}
    for i in range(40):  # each row alone
        row = evaluate(y[i:i + 1], s[i:i + 1], ["ndcg@10", "map@10", "precision@10"],
                       per_row=True)
        for key, v in row.items():
            expected.setdefault(key, []).append(v[0])
    for key in got:
        np.testing.assert_allclose(got[key], expected[key], rtol=1e-12, atol=1e-12)


def test_r_precision_beside_a_cut_off_keeps_the_counts(monkeypatch):
    # R-precision reads rows beyond the cut-off from each row's count of each
    # score: with it in the call, the top groups alone are not taken.
    rng = np.random.default_rng(5)
    y = rng.integers(0, 2, size=(30, 40))
    s = _tied_at_the_top(rng, 30, 40, 5, 4, np.int64)
    found = _spied(monkeypatch)
    with_r = evaluate(y, s, ["ndcg@3", "r_precision"], per_row=True)
    assert not found
    alone = evaluate(y, s, ["ndcg@3"], per_row=True)
    assert found and found[-1] is not None
    np.testing.assert_allclose(with_r["ndcg@3"], alone["ndcg@3"], rtol=1e-12, atol=1e-12)
