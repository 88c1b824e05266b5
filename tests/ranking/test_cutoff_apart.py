"""Measures without a cut-off that read their relevant items' groups alone,
asked together with measures with a cut-off, over float64 scores too long
for a sort of narrow keys: the block is ranked through its relevant items
for the first (no row sort) and by a selection down to the deepest cut-off
for the others (``RankedChunk.apart``), where both read one sort of whole
rows before. Each measure with a cut-off gets the value it has
alone, bit for bit; each without one its value alone to rounding (those
share their route's choices with each other, as they did)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import sk_rankmetrics as skr
from sk_rankmetrics._metrics.requests import make_requests
from sk_rankmetrics._ranking.block import rank_block

FULL = ["ndcg", "dcg", "map", "bpref", "err", "rbp", "mrr", "r_precision"]
CUT = ["ndcg@10", "map@5", "P@3", "recall@20", "err@4", "dcg@1"]


def sparse(rng, shape, share=0.02):
    y = (rng.random(shape) < share) * rng.integers(1, 4, shape)
    y[:, 0] = np.maximum(y[:, 0], 1)  # a relevant item in every row
    return y.astype(np.int8)


def each_alone(y, s, metrics, **kw):
    return {m: np.asarray(skr.evaluate(y, s, [m], per_row=True, **kw)[m]) for m in metrics}


def test_the_cutoffs_are_ranked_apart_where_the_relevant_items_are_few():
    rng = np.random.default_rng(0)
    y, s = sparse(rng, (50, 600)), rng.random((50, 600))
    rc = rank_block(y, s, make_requests(["ndcg", "map", "mrr", "ndcg@10", "recall@20"]))
    assert rc.partial and rc.apart is not None
    apart, cut = rc.apart
    assert [r.label for r in cut] == ["ndcg@10", "recall@20"]
    assert apart.L == 20 and not apart.partial
    # Dense relevance: one sort of whole rows serves both, as before.
    dense = rng.integers(0, 4, (50, 600)).astype(np.int8)
    rc = rank_block(dense, s, make_requests(["ndcg", "ndcg@10"]))
    assert rc.apart is None and rc.L == 600
    # An eighth of the row at most (75 of 600) is selected apart.
    assert rank_block(y, s, make_requests(["ndcg", "ndcg@75"])).apart is not None
    # Under ignore_ties, with a cut-off only or without one only, beside
    # R-precision (its own depth), or with a cut-off past an eighth of the
    # row: no split. Nor where the sort of whole rows is one of narrow keys
    # (float32 scores; rows of at most 512) or of counts (integer scores):
    # cheaper than the two apart.
    both = ["ndcg", "ndcg@10"]
    for metrics, kw, scores in ((both, {"ignore_ties": True}, s), (["ndcg@10"], {}, s),
                                (["ndcg", "map"], {}, s), (["r_precision", "ndcg@5"], {}, s),
                                (["ndcg", "ndcg@600"], {}, s), (["ndcg", "ndcg@76"], {}, s),
                                (both, {}, s.astype(np.float32)), (both, {}, s[:, :500]),
                                (both, {}, np.floor(s * 10).astype(np.int64))):
        rc = rank_block(y[:, :scores.shape[1]], scores, make_requests(metrics), **kw)
        assert rc.apart is None, (metrics, kw, scores.dtype, scores.shape)


SCORES = st.sampled_from(["float64", "float64", "float32", "int 0..9", "three decimals"])


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1), scores=SCORES,
       rows=st.integers(1, 40), width=st.integers(30, 900),
       full=st.lists(st.sampled_from(FULL), min_size=1, max_size=4, unique=True),
       cut=st.lists(st.sampled_from(CUT), min_size=1, max_size=3, unique=True))
def test_mixed_requests_give_each_its_value_alone(seed, scores, rows, width, full, cut):
    rng = np.random.default_rng(seed)
    y = sparse(rng, (rows, width))
    y[rng.random(rows) < 0.2] = 0  # rows without a relevant item
    base = rng.random((rows, width))
    s = {"float64": base, "float32": base.astype(np.float32),
         "int 0..9": np.floor(base * 10).astype(np.int64),
         "three decimals": np.round(base, 3)}[scores]
    metrics = full + cut
    together = skr.evaluate(y, s, metrics, per_row=True, no_relevant=0.0)
    alone = each_alone(y, s, metrics, no_relevant=0.0)
    # Apart (float64 rows past 512 items; R-precision reads to R, not by the
    # relevant items' groups) the measures with a cut-off read the chunk they
    # read alone; ranked together (as before) they agree to rounding.
    apart = scores == "float64" and width > 512 and "r_precision" not in full
    for m in cut:
        if apart:
            np.testing.assert_array_equal(np.asarray(together[m]), alone[m], err_msg=m)
        np.testing.assert_allclose(np.asarray(together[m]), alone[m], rtol=1e-13,
                                   atol=1e-15, err_msg=m)
    for m in full:
        np.testing.assert_allclose(np.asarray(together[m]), alone[m], rtol=1e-13,
                                   atol=1e-15, err_msg=m)


@pytest.mark.parametrize("layout", ["exclude", "long"])
def test_padded_rows_rank_once_and_agree(layout):
    # Padded rows (items left out, or queries of uneven length) are not split:
    # their values still agree with each measure alone.
    rng = np.random.default_rng(3)
    y, s = sparse(rng, (40, 200)), rng.random((40, 200))
    metrics = ["ndcg", "map", "ndcg@10", "recall@20"]
    if layout == "exclude":
        ex = (rng.random((40, 200)) < 0.1) & (y == 0)
        got = skr.evaluate(y, s, metrics, per_row=True, exclude=ex)
        ref = each_alone(y, s, metrics, exclude=ex)
    else:
        keep = rng.random((40, 200)) < 0.7
        keep[:, 0] = True
        q, col = np.nonzero(keep)
        df = pd.DataFrame({"qid": q, "rel": y[q, col], "score": s[q, col]})
        got = skr.evaluate(df["rel"], df["score"], metrics, qid=df["qid"], per_row=True)
        ref = {m: np.asarray(skr.evaluate(df["rel"], df["score"], [m], qid=df["qid"],
                                          per_row=True)[m]) for m in metrics}
    for m in metrics:
        np.testing.assert_allclose(np.asarray(got[m]), ref[m], rtol=1e-13, atol=1e-15)
