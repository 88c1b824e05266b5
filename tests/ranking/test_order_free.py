"""Measures of the ranked set without a cut-off (precision, recall, hit rate,
F1, Judged, CG, the set measures, the counts): their value depends on which
items are ranked, not on their order, so a matrix block is not ranked for
them (``MetricSpec.order_free``) and the sums over the whole ranking are the
row totals (``RankedChunk.ranks_every_item``). Checked against the formulas
of a ranking that holds every item, on every layout the route must leave
alone (padding from ``exclude``, ``max_docs``) and beside measures that rank
to a cut-off."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import sk_rankmetrics as skr

SETTINGS = settings(max_examples=60, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow])

ORDER_FREE = ["precision", "recall", "hit_rate", "f1", "relative_p", "judged", "unjudged",
              "num_ret", "num_rel_ret", "num_nonrel_judged_ret", "set_p", "set_recall",
              "set_f", "set_map", "set_relative_p", "utility", "cg", "num_rel", "num_q"]
DTYPES = ["float64", "float32", "int8", "int64", "uint8", "bool"]


def _expected(yt, judged, exclude, payoffs=(1.0, -1.0, 0.0, 0.0), n_docs=0):
    """Each measure of a ranking holding every (not excluded) item of each row."""
    real = np.ones(yt.shape, dtype=bool) if exclude is None else ~exclude
    jm = real if judged is None else judged & real
    N = real.sum(axis=1).astype(np.float64)
    R = ((yt > 0) & real).sum(axis=1).astype(np.float64)
    J = jm.sum(axis=1).astype(np.float64)
    Nd = np.maximum(N, 1.0)
    some = (R > 0).astype(np.float64)
    w1, w2, w3, w4 = payoffs
    with np.errstate(divide="ignore", invalid="ignore"):
        return {
            "precision": R / Nd, "recall": some, "hit_rate": some,
            "f1": np.where(R > 0, 2 * R / (R + N), 0.0), "relative_p": some,
            "judged": np.where(N > 0, J / Nd, 0.0), "unjudged": np.where(N > 0, (N - J) / Nd, 0.0),
            "num_ret": N, "num_rel_ret": R, "num_nonrel_judged_ret": J - R,
            "set_p": np.where(N > 0, R / Nd, 0.0), "set_recall": some,
            "set_f": np.where(R > 0, 2 * R / (R + N), 0.0),
            "set_map": np.where(R > 0, R / Nd, 0.0), "set_relative_p": some,
            "utility": w1 * R + w2 * (N - R) + w3 * 0.0 + w4 * (n_docs - N),
            "cg": np.where(real, yt, 0).sum(axis=1).astype(np.float64),
            "num_rel": R, "num_q": np.ones(yt.shape[0]),
        }


def _ranked_calls(monkeypatch):
    """Record each ranking of a matrix block (every route that ranks one)."""
    from sk_rankmetrics._ranking import block

    ranked = []
    for name in ("rank_chunk", "rank_by_levels", "rank_relevant"):
        real = getattr(block, name)
        monkeypatch.setattr(block, name,
                            lambda *a, real=real, **k: ranked.append(1) or real(*a, **k))
    return ranked


@SETTINGS
@given(data=st.data())
def test_order_free_measures_rank_nothing_and_equal_the_set_formulas(data):
    rng = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1)))
    n, N = data.draw(st.integers(1, 20)), data.draw(st.integers(2, 30))
    dtype = data.draw(st.sampled_from(DTYPES))
    span = data.draw(st.sampled_from([2, 5, 1000]))
    ys = rng.integers(0, span, (n, N)).astype(dtype) if dtype != "bool" else \
        rng.random((n, N)) < 0.5
    yt = np.where(rng.random((n, N)) < data.draw(st.floats(0.0, 1.0)),
                  rng.integers(1, 4, (n, N)), 0)
    yt[0] = 0  # nothing relevant
    if n > 1:
        yt[1] = 2  # every item relevant
    judged = (rng.random((n, N)) < 0.7) | (yt > 0) if data.draw(st.booleans()) else None
    exclude = None
    if data.draw(st.booleans()):  # excluded items: padding, which is never ranked
        exclude = (rng.random((n, N)) < 0.3) & (yt == 0)
    companions = data.draw(st.sampled_from([[], ["ndcg@3"], ["rbp"], ["mrr"],
                                            ["map", "r_precision"]]))
    ignore = data.draw(st.booleans())
    metrics = data.draw(st.lists(st.sampled_from(ORDER_FREE), min_size=1, unique=True))
    with pytest.MonkeyPatch.context() as mp:
        ranked = _ranked_calls(mp)
        got = skr.evaluate(yt, ys, metrics + companions, per_row=True, no_relevant=0.0,
                           judged=judged, exclude=exclude, ignore_ties=ignore)
    padded = exclude is not None and exclude.any()
    if not companions and not padded:
        assert not ranked, "a block asked only for measures of the ranked set was ranked"
    want = _expected(yt, judged, exclude)
    for m in metrics:
        np.testing.assert_allclose(got[m], want[m], rtol=1e-12, atol=1e-12, err_msg=m)


def test_max_docs_still_ranks_and_cuts_tie_groups():
    # set_map with max_docs reads the ranking (a cut splits a tie group, whose
    # hits inside the cut are random: E[hits**2] adds their variance), never
    # the totals: 2 items of 4 tied, one relevant, cut after 2.
    yt = np.array([[1, 0, 0, 0]])
    ys = np.zeros((1, 4))
    got = skr.evaluate(yt, ys, [("set_map", {"max_docs": 2}), ("set_p", {"max_docs": 2}),
                                "num_rel_ret"], per_row=True)
    # hits ~ Bernoulli(1/2): E[hits] = 1/2, E[hits**2] = 1/2; set_map = E[h^2] / (2 * 1).
    np.testing.assert_allclose(got["set_p"], [0.25])
    np.testing.assert_allclose(got["set_map"], [0.25])
    np.testing.assert_allclose(got["num_rel_ret"], [1.0])


def test_a_cut_off_beside_them_does_not_cut_them():
    # precision without a cut-off beside ndcg@2: the block is ranked to 2
    # positions only, and the set measures still count the whole rows.
    rng = np.random.default_rng(3)
    yt = (rng.random((50, 40)) < 0.2).astype(int)
    ys = rng.integers(0, 4, (50, 40))
    got = skr.evaluate(yt, ys, ["ndcg@2", "precision", "set_map", "utility", "hit_rate"],
                       per_row=True, no_relevant=0.0)
    want = _expected(yt, None, None)
    for m in ("precision", "set_map", "utility", "hit_rate"):
        np.testing.assert_allclose(got[m], want[m], rtol=1e-12, err_msg=m)
    np.testing.assert_allclose(got["ndcg@2"], skr.ndcg_score(yt, ys, k=2, per_row=True,
                                                              no_relevant=0.0))


def test_utility_options_and_long_format_agree():
    # utility's payoffs and n_docs; the same rows in long format (rows of
    # unequal length: padded, so ranked) give the same numbers.
    rng = np.random.default_rng(5)
    yt = (rng.random((30, 12)) < 0.3).astype(int)
    ys = rng.random((30, 12))
    opts = {"payoffs": (2.0, -1.0, -0.5, 0.25), "n_docs": 100}
    got = skr.evaluate(yt, ys, [("utility", opts), "set_f"], per_row=True, no_relevant=0.0)
    want = _expected(yt, None, None, opts["payoffs"], opts["n_docs"])
    np.testing.assert_allclose(got["utility"], want["utility"], rtol=1e-12)
    keep = rng.random(yt.shape) < 0.8
    keep[:, 0] = True
    qid = np.repeat(np.arange(30), keep.sum(axis=1))
    long = skr.evaluate(yt[keep], ys[keep], [("utility", opts), "set_f"], qid=qid,
                        per_row=True, no_relevant=0.0)
    want = _expected(np.where(keep, yt, 0), None, ~keep, opts["payoffs"], opts["n_docs"])
    np.testing.assert_allclose(long["utility"], want["utility"], rtol=1e-12)
    np.testing.assert_allclose(long["set_f"], want["set_f"], rtol=1e-12)


@pytest.mark.parametrize("gain", ["linear", "exponential"])
@pytest.mark.parametrize("kind", ["float64", "float32", "int16"])
def test_cg_without_a_cut_off_ranks_nothing_and_sums_the_gains(monkeypatch, gain, kind):
    # CG of the whole ranking is each row's total gain, whatever the order
    # and the ties; only a cut-off ranks.
    rng = np.random.default_rng(11)
    yt = np.where(rng.random((200, 40)) < 0.3, rng.integers(1, 5, (200, 40)), 0)
    ys = rng.integers(0, 6, (200, 40)).astype(kind)  # ties throughout
    ranked = _ranked_calls(monkeypatch)
    got = skr.evaluate(yt, ys, [("cg", {"gain": gain})], per_row=True)["cg"]
    assert not ranked
    gains = yt if gain == "linear" else 2.0 ** yt - 1.0
    np.testing.assert_array_equal(np.asarray(got), gains.sum(axis=1).astype(np.float64))
    cut = skr.evaluate(yt, ys, [("cg@40", {"gain": gain})], per_row=True)["cg@40"]
    assert ranked  # a cut-off ranks, and the whole row's cut gives the same sums
    np.testing.assert_allclose(np.asarray(cut), np.asarray(got), rtol=1e-13)
