"""trec_eval's ndcg_rel over tied whole rows, one term per tie group
(``gain_curves._ndcg_rel_by_group``) or the order given corrected at its
few groups (``gain_down.ndcg_rel_few_ties``), against the mean of the reference
formula of ``tests/reference.py`` over every ordering of the tie groups:
linear and exponential gain, excluded items (padding), rows whose positive
items outnumber or fall short of the ideal's; and against an exact
(40-digit) evaluation of the tie rule on rows of many groups, where the
sums of every row of a block must not carry each other's rounding."""

from __future__ import annotations

import mpmath as mp
import numpy as np
import pytest
import reference as ref
from draws import mixed_ties, tied_rows
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from spies import count_calls

from sk_rankmetrics import evaluate
from sk_rankmetrics._metrics.kernels import gain_curves

SETTINGS = settings(max_examples=60, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow,
                                           HealthCheck.function_scoped_fixture])


@pytest.fixture
def by_group(monkeypatch):
    return count_calls(monkeypatch, gain_curves, "_ndcg_rel_by_group")


@pytest.fixture
def few(monkeypatch):
    return count_calls(monkeypatch, gain_curves, "ndcg_rel_few_ties")


@SETTINGS
@given(data=st.data())
def test_tied_rows_match_every_ordering(data, by_group, few):
    gain = data.draw(st.sampled_from(["linear", "exponential"]))
    y, s, exclude = tied_rows(data, [0, 0, 1, 2, 3])
    n, m = y.shape
    by_group.clear()
    few.clear()
    got = evaluate(y, s, [("ndcg_rel", {"gain": gain})], per_row=True, no_relevant=np.nan,
                   exclude=exclude)["ndcg_rel"]
    want = []
    for i in range(n):
        keep = np.flatnonzero(np.ones(m, bool) if exclude is None else ~exclude[i])
        yi = [int(v) for v in y[i]]
        vals = [ref.ndcg_rel(yi, [keep[j] for j in o], gain=gain)
                for o in ref.orderings(list(s[i][keep].astype(float)))]
        want.append(np.nan if vals[0] is None else sum(vals) / len(vals))
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-14)
    # Rows whose groups hold at most half their items read the order given
    # corrected at the groups (gain_down.ndcg_rel_few_ties), the others one
    # term per group.
    assert by_group or few or not mixed_ties(y, s, exclude)


def _exact(y, s):
    """The tie rule of ``ndcg_rel`` (linear gain) evaluated in 40 digits."""
    mp.mp.dps = 40
    L = len(y)
    order = sorted(range(L), key=lambda i: -s[i])
    disc = [1 / mp.log(p + 2, 2) for p in range(L)]
    Dc = [mp.mpf(0)]
    for x in disc:
        Dc.append(Dc[-1] + x)
    ideal = sorted((v for v in y if v > 0), reverse=True)
    P = len(ideal)
    if not P:
        return 0.0
    idcg = [mp.mpf(0)]
    for k, v in enumerate(ideal):
        idcg.append(idcg[-1] + v * disc[k])
    total = before = mp.mpf(0)
    p = 0
    while p < L:
        q = p
        while q < L and s[order[q]] == s[order[p]]:
            q += 1
        m, g = q - p, [y[order[i]] for i in range(p, q)]
        G, r = mp.mpf(sum(g)), sum(v > 0 for v in g)
        pair = (r - 1) * G / (m * (m - 1)) if m > 1 else 0
        for x in range(p, q):
            at = mp.mpf(r) / m * before + G / m * disc[x] + pair * (Dc[x] - Dc[p])
            total += at / idcg[min(x + 1, P)]
        before += G / m * (Dc[q] - Dc[p])
        p = q
    return float(total / P)


def test_many_rows_of_many_groups_to_the_last_bits(by_group):
    rng = np.random.default_rng(4)
    y = rng.integers(0, 5, (3000, 40))
    s = rng.integers(0, 12, (3000, 40))
    got = evaluate(y, s, ["ndcg_rel"], per_row=True, no_relevant=0.0)["ndcg_rel"]
    assert by_group
    for i in range(0, 3000, 97):
        assert got[i] == pytest.approx(_exact([int(v) for v in y[i]], list(s[i])), rel=4e-16, abs=0)


def test_span_tables_hold_the_exact_differences():
    L = 30
    H, F = gain_curves._discount_spans(L)
    mp.mp.dps = 40
    Dc = [mp.mpf(0)]  # the float64 discounts the kernels read, summed exactly
    for x in 1.0 / np.log2(np.arange(2.0, L + 2.0)):
        Dc.append(Dc[-1] + mp.mpf(float(x)))
    for a in range(L + 1):
        for b in range(L + 1):
            h = Dc[b] - Dc[a] if b >= a else 0
            f = sum((Dc[p] - Dc[a] for p in range(a, b)), mp.mpf(0))
            assert H[a * (L + 1) + b] == pytest.approx(float(h), rel=2e-16, abs=0)
            assert F[a * (L + 1) + b] == pytest.approx(float(f), rel=4e-16, abs=0)
    with pytest.raises(ValueError):
        H[0] = 1.0  # shared between calls: read-only


def test_span_tables_agree_with_long_double_sums(by_group, monkeypatch):
    """Rows past :data:`SPAN_TABLE_MOST` take the long-double differences:
    the two give the same values to the last bits on one tied block."""
    rng = np.random.default_rng(7)
    y = np.where(rng.random((400, 120)) < 0.3, rng.integers(1, 5, (400, 120)), 0)
    s = rng.integers(0, 15, (400, 120))
    tables = evaluate(y, s, ["ndcg_rel"], per_row=True, no_relevant=0.0)["ndcg_rel"]
    assert by_group
    monkeypatch.setattr(gain_curves, "SPAN_TABLE_MOST", 0)
    by_group.clear()
    long_double = evaluate(y, s, ["ndcg_rel"], per_row=True, no_relevant=0.0)["ndcg_rel"]
    assert by_group
    np.testing.assert_allclose(tables, long_double, rtol=1e-15, atol=0)


def test_rows_down_the_positions_equal_each_row_alone(by_group):
    """Many rows make the tables down the positions (one array of the three
    sums side by side), a row alone along its positions: the same additions,
    so the same values bit for bit, rows without a positive gain among them
    (their ideal DCG is 0 at every position: the tables must stay finite)."""
    rng = np.random.default_rng(11)
    y = np.where(rng.random((600, 12)) < 0.25, rng.integers(1, 5, (600, 12)), 0)
    y[::7] = 0
    s = rng.integers(0, 4, (600, 12))
    many = evaluate(y, s, ["ndcg_rel"], per_row=True, no_relevant=0.0)["ndcg_rel"]
    assert by_group
    assert gain_curves.many_rows(y.shape)
    alone = [evaluate(y[i:i + 1], s[i:i + 1], ["ndcg_rel"], no_relevant=0.0)["ndcg_rel"]
             for i in range(0, 600, 5)]
    assert not gain_curves.many_rows((1, 12))
    np.testing.assert_array_equal(many[::5], alone)
    assert np.isfinite(many).all() and (many[::7] == 0).all()
