"""infAP of untied rows whose every item is judged, read at the relevant items
alone (``judgements._infap_all_judged``): the items above a position are
the position itself, all pooled. Checked against the reference formula of
``tests/reference.py`` on untied scores, with thresholds, ``max_docs``
and sparse and dense relevance; rows with a ``judged`` mask must take the
general path and agree too."""

from __future__ import annotations

import numpy as np
import pytest
import reference as ref
from draws import cut_options, untied_rows
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from spies import count_calls

from sk_rankmetrics import evaluate
from sk_rankmetrics._metrics.kernels import judgements
from sk_rankmetrics._ranking import relevant
from sk_rankmetrics._ranking.chunk import RankedChunk

SETTINGS = settings(max_examples=80, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow,
                                           HealthCheck.function_scoped_fixture])


@pytest.fixture
def taken(monkeypatch):
    return count_calls(monkeypatch, judgements, "_infap_all_judged")


@SETTINGS
@given(data=st.data())
def test_infap_of_fully_judged_rows_matches_reference(data, taken):
    levels = data.draw(st.sampled_from([[0, 0, 0, 0, 1], [0, 1, 2, 3], [0, 0, 1, 2, 3]]))
    y, s = untied_rows(data, levels)
    n, m = y.shape
    opts = cut_options(data, m)
    judged = None
    if data.draw(st.booleans()):
        judged = np.array(data.draw(st.lists(st.booleans(), min_size=n * m,
                                             max_size=n * m))).reshape(n, m)
    taken.clear()
    got = evaluate(y, s, [("infap", opts)], per_row=True, no_relevant=np.nan,
                   judged=judged)["infap"]
    want = []
    for i in range(n):
        order = list(np.argsort(-s[i]))[:opts.get("max_docs")]
        v = ref.infap(list(y[i]), order, threshold=opts.get("threshold"),
                      judged=None if judged is None else list(judged[i]))
        want.append(np.nan if v is None else v)
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-14, err_msg=str(opts))
    if judged is not None and not judged.all():
        assert not taken
    elif (y >= opts.get("threshold", 1)).any():
        assert taken


def test_fully_judged_route_equals_the_general_one_on_large_blocks(monkeypatch):
    rng = np.random.default_rng(2)
    for share in (0.03, 0.8):
        y = np.where(rng.random((4000, 80)) < share, rng.integers(1, 4, (4000, 80)), 0)
        s = rng.random((4000, 80)).astype(np.float32)
        fast = evaluate(y, s, ["infap"], per_row=True, no_relevant=0.0)["infap"]
        with monkeypatch.context() as mp:
            # (The relevance read as values, not flags: the general path.)
            mp.setattr(judgements, "is_indicator", lambda key: False)
            general = evaluate(y, s, ["infap"], per_row=True, no_relevant=0.0)["infap"]
        np.testing.assert_allclose(fast, general, rtol=1e-13, atol=1e-15)
        assert ((fast >= 0) & (fast <= 1)).all()


@pytest.mark.parametrize("span", [2, 5, 10, 40])
def test_tied_fully_judged_groups_equal_the_general_tie_rule(span, monkeypatch):
    """Integer scores (tie groups of every size, rows of 1,000 where the
    running sums of the group rule grow), sparse and dense relevance: the
    per-group sums equal the per-item rule over tie orderings."""
    rng = np.random.default_rng(span)
    for shape, share in (((300, 60), 0.05), ((300, 60), 0.7), ((20, 1000), 0.3)):
        y = np.where(rng.random(shape) < share, rng.integers(1, 4, shape), 0)
        s = rng.integers(0, span, shape)
        got = evaluate(y, s, ["infap"], per_row=True, no_relevant=0.0)["infap"]
        # The general rule: the chunk's groups hidden from the kernel.
        with monkeypatch.context() as mp:
            seen = []
            mp.setattr(judgements, "_infap_groups_all_judged",
                       lambda *a, real=judgements._infap_groups_all_judged, seen=seen:
                       seen.append(1) or real(*a))
            evaluate(y, s, ["infap"], no_relevant=0.0)
            mp.setattr(RankedChunk, "groups", property(lambda self: None))
            mp.setattr(relevant, "DENSITY", 10**9)  # (its rows have groups only)
            want = evaluate(y, s, ["infap"], per_row=True, no_relevant=0.0)["infap"]
        assert seen
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-14)
        assert ((got >= 0) & (got <= 1)).all()


def test_span_tables_are_the_long_double_sums_rounded_once():
    """Rows of at most ``SPAN_TABLE_MOST`` positions read each group's sums
    off tables: every (start, end) entry is the long-double difference of
    running sums, rounded once; read-only."""
    L = 50
    tables = judgements._infap_spans(L)
    A, B, PB = judgements._infap_running(L)
    for s in range(L + 1):
        for end in range(L + 1):
            at = s * (L + 1) + end
            want = ((A[end] - A[s], B[end] - B[s], (PB[end] - PB[s]) - s * (B[end] - B[s]))
                    if end >= s else (0.0, 0.0, 0.0))
            assert [T[at] for T in tables] == [np.float64(w) for w in want]
    with pytest.raises(ValueError):
        tables[0][0] = 1.0


def test_long_rows_read_groups_of_one_and_of_several_alike(monkeypatch):
    """Past ``SPAN_TABLE_MOST`` a group of one item reads one step of the
    running sums and the others their long-double differences: the same
    values as the tables, on rows mixing both (scores 0..199 on 120 items)."""
    from sk_rankmetrics._metrics import kernels
    from sk_rankmetrics._ranking import few_ties

    rng = np.random.default_rng(11)
    y = np.where(rng.random((300, 120)) < 0.3, rng.integers(1, 4, (300, 120)), 0)
    s = rng.integers(0, 200, (300, 120))
    seen = []
    # The per-group path (every group, one item or several): not the few
    # ties' correction, whose groups hold two items or more.
    monkeypatch.setattr(few_ties.FewTies, "of_pairs", lambda *a, **k: None)
    monkeypatch.setattr(judgements, "_infap_groups_all_judged",
                        lambda groups, *a, real=judgements._infap_groups_all_judged:
                        seen.append(groups.size) or real(groups, *a))
    tables = evaluate(y, s, ["infap"], per_row=True, no_relevant=0.0)["infap"]
    sizes = np.concatenate(seen)
    assert (sizes == 1).any() and (sizes > 1).any()
    monkeypatch.setattr(judgements, "SPAN_TABLE_MOST", 0)
    monkeypatch.setattr(kernels, "SPAN_TABLE_MOST", 0)
    long_rows = evaluate(y, s, ["infap"], per_row=True, no_relevant=0.0)["infap"]
    np.testing.assert_allclose(long_rows, tables, rtol=1e-15, atol=0)
