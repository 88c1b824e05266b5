"""Interpolated precision (iprec_at_recall, 11pt_avg) of whole rows read
through their tie groups (``interpolated._interpolated_by_group``): the
groups of every item (integer scores, counted) or of the relevant items
only (sparse relevance: ``ranking.relevant.rank_relevant``), the groups
mixing relevant and other items read again with their expectations.
Against the per-position route (the same rows ranked by the argsort, every
position's statistics made) and, on small rows, against the mean over every
order of the ties of ``tests/reference.py``'s single-order value."""

from __future__ import annotations

import itertools
from unittest import mock

import numpy as np
import reference as ref
from hypothesis import given, settings
from hypothesis import strategies as st
from spies import count_calls

import sk_rankmetrics as skr
from sk_rankmetrics._metrics.kernels import interpolated
from sk_rankmetrics._ranking import block

SETTINGS = settings(max_examples=60, deadline=None)


def _metrics(threshold, rounding):
    opts = {"recall_rounding": rounding}
    if threshold is not None:
        opts["threshold"] = threshold
    return [(f"iprec_at_recall@{level}", opts) for level in ("0.0", "0.5", "1.0")] + [
        ("11pt_avg", opts)]


def _per_position(y, s, metrics):
    """The same call through the per-position route: no relevant items'
    route, no groups read."""
    with mock.patch.object(block, "takes_relevant_route", lambda *a, **k: False), \
            mock.patch.object(interpolated, "whole_row_groups", lambda rc: None):
        return skr.evaluate(y, s, metrics, per_row=True, no_relevant=0.0)


def _relevance(data, rng, n, N):
    kind = data.draw(st.sampled_from(["real sparse", "graded sparse", "graded dense"]))
    if kind == "real sparse":  # float64 y_true: only the relevant items' route counts it
        y = np.where(rng.random((n, N)) < 0.08, rng.random((n, N)) * 3.0, 0.0)
    else:
        y = rng.integers(0, 4, (n, N)).astype(np.int8)
        if kind == "graded sparse":
            y[rng.random((n, N)) < 0.9] = 0
    y[0] = 0  # a row without a relevant item
    return y


def _scores(data, rng, n, N):
    kind = data.draw(st.sampled_from(["int", "one decimal", "distinct", "all tied"]))
    if kind == "int":
        return rng.integers(0, data.draw(st.integers(1, 9)) + 1, (n, N)).astype(np.float64)
    if kind == "one decimal":
        return np.round(rng.random((n, N)), 1)
    if kind == "all tied":
        return np.ones((n, N))
    return rng.random((n, N))


@SETTINGS
@given(data=st.data(), threshold=st.sampled_from([None, 1, 2]),
       rounding=st.sampled_from(["lround", "plus_0.9"]))
def test_groups_equal_the_per_position_route(data, threshold, rounding):
    rng = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1)))
    n, N = data.draw(st.integers(2, 40)), data.draw(st.integers(4, 60))
    y, s = _relevance(data, rng, n, N), _scores(data, rng, n, N)
    metrics = _metrics(threshold, rounding)
    got = skr.evaluate(y, s, metrics, per_row=True, no_relevant=0.0)
    want = _per_position(y, s, metrics)
    assert got.keys() == want.keys()
    for key in want:
        np.testing.assert_allclose(got[key], want[key], rtol=1e-12, atol=1e-13, err_msg=key)


def test_sparse_relevance_over_tied_scores_reads_the_relevant_groups(monkeypatch):
    # Real-valued relevance on about 5 % of rows of 80, scores of one
    # decimal: ranked through the relevant items alone (no argsort), and
    # read through their groups, some of which mix relevant and other items.
    rng = np.random.default_rng(7)
    y = np.where(rng.random((300, 80)) < 0.05, rng.random((300, 80)) + 0.5, 0.0)
    s = np.round(rng.random((300, 80)), 1)
    metrics = _metrics(None, "lround")
    relevant = count_calls(monkeypatch, block, "rank_relevant")
    by_group = count_calls(monkeypatch, interpolated, "_interpolated_by_group")
    mixed = count_calls(monkeypatch, interpolated, "_interpolated_ties")
    got = skr.evaluate(y, s, metrics, per_row=True, no_relevant=0.0)
    assert relevant and by_group and mixed
    want = _per_position(y, s, metrics)
    for key in want:
        np.testing.assert_allclose(got[key], want[key], rtol=1e-12, atol=1e-13, err_msg=key)


def _mean_over_tie_orders(y_row, s_row, name, kwargs):
    """The reference's value averaged over every order of the row's ties."""
    items = np.argsort(-s_row, kind="stable")
    values = []
    for perm in itertools.permutations(items.tolist()):
        if all(s_row[a] >= s_row[b] for a, b in zip(perm, perm[1:])):
            v = ref.METRICS[name.split("@")[0]](list(y_row), list(perm), **kwargs)
            values.append(0.0 if v is None else v)
    return float(np.mean(values))


def test_small_rows_equal_the_mean_over_every_order_of_their_ties():
    rng = np.random.default_rng(3)
    n, N = 40, 6
    y = np.where(rng.random((n, N)) < 0.3, rng.random((n, N)) + 0.5, 0.0)
    s = rng.integers(0, 3, (n, N)).astype(np.float64)
    cases = [("iprec_at_recall@0.5", {}), ("11pt_avg", {})]
    refs = [("iprec_at_recall", {"recall": 0.5}), ("11pt_avg", {})]
    for rows in (y, (y > 0).astype(np.int8)):  # real-valued, and counted levels
        got = skr.evaluate(rows, s, cases, per_row=True, no_relevant=0.0)
        for (name, kw), key in zip(refs, got):
            want = [_mean_over_tie_orders(rows[r], s[r], name, kw) for r in range(n)]
            np.testing.assert_allclose(got[key], want, rtol=1e-12, atol=1e-14,
                                       err_msg=key)
