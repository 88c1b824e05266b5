"""ERR one term per tie group (whole rows ranked with their groups: integer
scores, most rows tied, or sparse relevance ranked through its relevant items
only) against ERR per position (the kernel's path for rows ranked to a cut-off)
on the same rows, and against every ordering of small ties, with a cut-off."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from reference import err_over_orderings

import sk_rankmetrics as skr
from sk_rankmetrics._metrics.kernels.user_models import err
from sk_rankmetrics._metrics.requests import make_requests
from sk_rankmetrics._ranking.block import attach_ideals, rank_block
from sk_rankmetrics._ranking.chunk import rank_chunk
from sk_rankmetrics._ranking.item_values import BlockValues

SETTINGS = settings(max_examples=80, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow])


def _scores(rng, kind, n, N):
    if kind == "int":  # a few values: large tie groups
        return rng.integers(0, 4, (n, N)).astype(np.int64)
    if kind == "float32":  # ties in most rows
        return rng.integers(0, 3 * N, (n, N)).astype(np.float32) / 7
    s = rng.random((n, N))  # float64: a tie in a few rows
    for r in rng.choice(n, size=max(1, n // 3), replace=False):
        cols = rng.choice(N, size=rng.integers(2, N + 1), replace=False)
        s[r, cols] = s[r, cols[0]]
    return s


def _per_position(y_true, y_score, requests):
    """The rows ranked whole, their tie statistics read per position."""
    values = BlockValues(y_true, requests)
    rc = rank_chunk(y_score, values, y_score.shape[1])
    rc.groups = None  # the kernel's path for a chunk without groups
    rc.totals = values.totals
    return attach_ideals(rc, y_true, values, requests, y_score.shape[1])


@SETTINGS
@given(st.data())
def test_err_by_group_equals_err_per_position(data):
    rng = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1)))
    n, N = data.draw(st.integers(1, 8)), data.draw(st.integers(2, 80))
    top = data.draw(st.integers(1, 6))
    density = data.draw(st.sampled_from([0.02, 0.08, 0.4, 1.0]))
    y_true = (rng.random((n, N)) < density) * rng.integers(1, top + 1, (n, N))
    y_score = _scores(rng, data.draw(st.sampled_from(["int", "float32", "float64"])), n, N)
    k = data.draw(st.sampled_from([None, 1, 3, N // 2 + 1, N + 5]))
    name = "err" if k is None else f"err@{k}"
    opts = {"max_grade": top, "normalize": data.draw(st.booleans())}
    requests = make_requests([(name, opts), "ndcg"])
    rc = rank_block(y_true, y_score, requests)
    ref = _per_position(y_true, y_score, requests)
    if not ref.tied:
        return
    got, _ = err(rc, requests[0])
    want, _ = err(ref, requests[0])
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-15)


def test_sparse_rows_take_the_group_path():
    # 1 % relevance: ranked through the relevant items only (no per-position
    # statistic exists), and equal to the per-position path.
    rng = np.random.default_rng(3)
    y_true = (rng.random((50, 400)) < 0.01) * rng.integers(1, 5, (50, 400))
    y_score = rng.integers(0, 50, (50, 400))
    requests = make_requests([("err", {"max_grade": 4, "normalize": True})])
    rc = rank_block(y_true, y_score, requests)
    assert rc.partial
    np.testing.assert_allclose(err(rc, requests[0])[0],
                               err(_per_position(y_true, y_score, requests), requests[0])[0],
                               rtol=1e-12, atol=1e-15)


@pytest.mark.parametrize("k", [1, 2, 4, 7])
@SETTINGS
@given(st.data())
def test_err_with_a_cut_off_against_every_ordering(k, data):
    N = data.draw(st.integers(2, 7))
    rel = np.array([data.draw(st.integers(0, 3)) for _ in range(N)])
    score = np.array([data.draw(st.integers(0, 2)) for _ in range(N)])
    # Beside ERR without a cut-off the rows are ranked whole, with their groups.
    opts = {"max_grade": 3}
    got = skr.evaluate(rel[None], score[None], [(f"err@{k}", opts), ("err", opts)],
                       per_row=True, no_relevant=0.0)
    assert got[f"err@{k}"][0] == pytest.approx(err_over_orderings(rel, score, 3, k),
                                               abs=1e-12)
    assert got["err"][0] == pytest.approx(err_over_orderings(rel, score, 3), abs=1e-12)


@pytest.mark.parametrize("share, N, stops_early", [
    (1.0, 1000, True), (0.3, 1000, None), (0.02, 1000, False), (0.15, 300, None),
    (1.0, 100, False)])
def test_err_in_stretches_equals_one_pass(share, N, stops_early):
    # Over dense graded relevance every user has stopped, up to rounding,
    # within the first positions, and the running product ends there; over
    # sparse relevance the rest of the rows is made at once. The columns made
    # are those of one pass, bit for bit, and ERR (untied rows, rows with a
    # few ties, with a cut-off or not) equals one pass's to rounding.
    from unittest import mock

    from sk_rankmetrics._metrics.kernels import user_models

    rng = np.random.default_rng(11)
    n = 300
    y = np.where(rng.random((n, N)) < share, rng.integers(1, 5, (n, N)), 0).astype(np.int8)
    stop = np.append(0.0, (2.0 ** np.arange(1, 5) - 1.0) / 2.0**4)  # grades 0..4
    reach, p_stop = user_models._err_in_order(y.astype(np.float64), stop)
    with mock.patch.object(user_models, "_ERR_FIRST", 10**9):
        reach1, p_stop1 = user_models._err_in_order(y.astype(np.float64), stop)
    assert reach1.shape == (n, N)
    if stops_early is not None:
        assert (reach.shape[1] < N) == stops_early
    c = reach.shape[1]
    np.testing.assert_array_equal(reach, reach1[:, :c])
    np.testing.assert_array_equal(p_stop, p_stop1[:, :c])
    if c < N:  # every row past c: a share below 1e-18 of its value
        at = reach1[:, c]
        assert (at * N < 1e-18 * (1 - at)).all()
    s = rng.random((n, N))
    tied = np.round(rng.random((n, N)), 4).astype(np.float32)
    metrics = ["err", "err@100", "nerr"]
    for scores in (s, tied):
        got = skr.evaluate(y, scores, metrics, per_row=True, no_relevant=0.0)
        with mock.patch.object(user_models, "_ERR_FIRST", 10**9):
            want = skr.evaluate(y, scores, metrics, per_row=True, no_relevant=0.0)
        for key in want:
            np.testing.assert_allclose(got[key], want[key], rtol=1e-14, atol=0, err_msg=key)


@pytest.mark.parametrize("few_ties", [True, False])
def test_tied_groups_past_the_users_reach_with_many_grades(few_ties):
    # max_grade 30: the compositions are not numbered as one int64 (each
    # block numbers its own), and three items of grade 30 above a tie leave
    # its users a reach below rounding, so no tied group is kept: ERR is the
    # order given's above it (this raised on an empty set of groups).
    from unittest import mock

    from sk_rankmetrics._ranking import few_ties as ft

    y = np.array([[30, 30, 30, 5, 7, 3, 0, 2], [30, 30, 30, 0, 9, 1, 4, 0]])
    s = np.array([[9, 8, 7, 1, 1, 1, 0, 0], [9, 8, 7, 2, 2, 1, 1, 0]], dtype=float)
    metrics = [("err", {"max_grade": 30}),
               ("expected_reciprocal_rank", {"max_grade": 30, "normalize": True})]
    patch = (mock.patch.object(ft.FewTies, "of_pairs", lambda *a, **k: None) if not few_ties
             else mock.patch.object(ft.FewTies, "of_pairs", ft.FewTies.of_pairs))
    with patch:
        got = skr.evaluate(y, s, metrics, per_row=True)
    want = [err_over_orderings(y[r], s[r], 30) for r in range(2)]
    np.testing.assert_allclose(got["err"], want, rtol=1e-12, atol=1e-15)
    assert np.isfinite(got["expected_reciprocal_rank"]).all()
