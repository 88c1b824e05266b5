"""trec_eval's binG over tied whole rows, one term per tie group
(``gain_curves._binary_g_by_group``; rows tied in a few places: the order
given, put right at its groups, ``_binary_g_few_ties``), against the mean
of the reference formula of ``tests/reference.py`` over every ordering of
the tie groups, with
excluded items (padding after every real item) and rows without a relevant
item; ``max_docs`` (a cut through a group) takes the per-position rule."""

from __future__ import annotations

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
    """The calls of either route that reads the tie groups of whole rows."""
    seen = count_calls(monkeypatch, gain_curves, "_binary_g_by_group")
    few = count_calls(monkeypatch, gain_curves, "_binary_g_few_ties")

    class Both:
        def clear(self):
            seen.clear()
            few.clear()

        def __bool__(self):
            return bool(seen or few)

    return Both()


def _brute(y, s, order_of):
    vals = [ref.bing(y, [order_of[i] for i in o]) for o in ref.orderings(list(s[order_of]))]
    vals = [v for v in vals if v is not None]
    return sum(vals) / len(vals) if vals else np.nan


@SETTINGS
@given(data=st.data())
def test_tied_rows_match_every_ordering(data, by_group):
    y, s, exclude = tied_rows(data, [0, 0, 1, 2])
    n, m = y.shape
    by_group.clear()
    got = evaluate(y, s, ["bing"], per_row=True, no_relevant=np.nan, exclude=exclude)["bing"]
    want = []
    for i in range(n):
        keep = np.flatnonzero(np.ones(m, bool) if exclude is None else ~exclude[i])
        want.append(_brute([int(v) for v in y[i]], s[i].astype(float), keep))
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-14)
    assert by_group or not mixed_ties(y, s, exclude)


def test_a_cut_through_a_group_takes_the_per_position_rule(by_group):
    y = np.array([[1, 0, 1, 0, 0, 1]])
    s = np.array([[2, 2, 2, 2, 1, 0]])
    got = evaluate(y, s, [("bing", {"max_docs": 3})], per_row=True)["bing"]
    assert not by_group
    # The first three of a group of four: 0, 1 or 2 of its relevant items.
    orders = [o[:3] for o in ref.orderings([2.0, 2.0, 2.0, 2.0, 1.0, 0.0])]
    want = np.mean([ref.bing(list(y[0]), o) for o in orders])
    assert got[0] == pytest.approx(want, rel=1e-12)
