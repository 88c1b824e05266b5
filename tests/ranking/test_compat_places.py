"""Compat's places of the ranked items in the ideal ordering
(``orderings._ideal_positions``): counted for every gain at once in the bit
fields of one running sum, or, when the gains are too many for the fields,
by sorting the items by (row, gain). Both routes are checked against the
reference formula of ``tests/reference.py`` on untied scores, with padding
(``exclude``, ``max_docs``), ``judged`` masks, many gain levels and rows
long enough to need wide fields, and against each other."""

from __future__ import annotations

import numpy as np
import pytest
import reference as ref
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sk_rankmetrics import evaluate
from sk_rankmetrics._metrics.kernels import orderings

SETTINGS = settings(max_examples=80, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow,
                                           HealthCheck.function_scoped_fixture])


@pytest.fixture(params=["packed", "sorted"])
def route(request, monkeypatch):
    """Each route of the places, the other made unreachable."""
    if request.param == "sorted":
        monkeypatch.setattr(orderings, "_PACKED_BITS", 0)
    else:
        def refuse(*a, **k):
            raise AssertionError("the sorted route was taken")
        monkeypatch.setattr(orderings, "_ideal_positions_sorted", refuse)
    return request.param


@SETTINGS
@given(data=st.data())
def test_compat_matches_reference(data, route):
    n_rows = data.draw(st.integers(1, 4))
    n_items = data.draw(st.integers(2, 9))
    top = data.draw(st.sampled_from([1, 3, 6]))
    cells = n_rows * n_items
    y = np.array(data.draw(st.lists(st.integers(0, top), min_size=cells, max_size=cells)))
    y = y.reshape(n_rows, n_items)
    s = np.array(data.draw(st.permutations(range(cells))), dtype=np.float64)
    s = s.reshape(n_rows, n_items)
    opts = {"p": data.draw(st.sampled_from([0.5, 0.95])),
            "normalize": data.draw(st.booleans())}
    max_docs = data.draw(st.none() | st.integers(1, 8))
    if max_docs is not None:
        opts["max_docs"] = max_docs
    exclude = judged = None
    if data.draw(st.booleans()):
        exclude = np.array(data.draw(st.lists(st.booleans(), min_size=cells, max_size=cells)))
        exclude = exclude.reshape(n_rows, n_items)
        y = np.where(exclude, 0, y)
    if data.draw(st.booleans()):
        judged = np.array(data.draw(st.lists(st.booleans(), min_size=cells, max_size=cells)))
        judged = judged.reshape(n_rows, n_items)
    got = evaluate(y, s, [("compat", opts)], per_row=True, no_relevant=np.nan,
                   exclude=exclude, judged=judged)["compat"]
    want = []
    for i in range(n_rows):
        keep = np.ones(n_items, bool) if exclude is None else ~exclude[i]
        items = np.flatnonzero(keep)
        order = list(items[np.argsort(-s[i][items])])[:max_docs]
        ji = None if judged is None else [bool(j) and k for j, k in zip(judged[i], keep)]
        v = ref.compat([int(v) for v in y[i]], order, p=opts["p"],
                       normalize=opts["normalize"], judged=ji)
        want.append(np.nan if v is None else v)
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-14)


@pytest.mark.parametrize("shape, top", [((400, 100), 4), ((60, 1100), 4), ((50, 300), 12),
                                        ((300, 40), 200)])
def test_routes_agree_on_large_rows(shape, top, monkeypatch):
    """Rows of 1,100 (fields of 11 bits), a dozen levels (more than the
    fields of rows of 300: the sorted route) and 200 levels."""
    rng = np.random.default_rng(11)
    y = np.where(rng.random(shape) < 0.6, rng.integers(1, top + 1, shape), 0)
    s = rng.random(shape)
    got = evaluate(y, s, ["compat"], per_row=True, no_relevant=0.0)["compat"]
    monkeypatch.setattr(orderings, "_PACKED_BITS", 0)
    want = evaluate(y, s, ["compat"], per_row=True, no_relevant=0.0)["compat"]
    np.testing.assert_array_equal(got, want)
    assert ((0 < got) & (got <= 1)).all()
