"""A block's tied rows through the kernels' tie path, its untied rows through
the path without ties (``RankedChunk.split_by_ties``), and nDCG's IDCG without
a cut-off from the ideal's counted levels: against each row evaluated alone
(a block of one row is never split), on scores of every dtype with a few tied
rows, empty rows and extreme values (the largest and smallest finite, subnormal,
-0.0 beside 0.0)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import sk_rankmetrics as skr
from sk_rankmetrics._metrics.requests import make_requests
from sk_rankmetrics._ranking.block import rank_block

SETTINGS = settings(max_examples=40, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow])

FULL = ["ndcg", "dcg", "map", "mrr", "r_precision", "bpref", "err", "rbp", "precision",
        "recall", "ndcg@5", "map@5", "dcg@3"]
DTYPES = ["float64", "float32", "int8", "int16", "int32", "int64", "uint8", "bool"]
EXTREMES = {"float64": [1e308, -1e308, 1e-308, 5e-324, 0.0, -0.0],
            "float32": [3e38, -3e38, 1e-38, 1e-45, 0.0, -0.0]}


def row_by_row(y_true, y_score, metrics):
    """The slow reference: every row evaluated alone (no block to split)."""
    out = {m: np.empty(y_true.shape[0]) for m in metrics}
    for i in range(y_true.shape[0]):
        one = skr.evaluate(y_true[i:i + 1], y_score[i:i + 1], metrics, per_row=True,
                           no_relevant=0.0)
        for m in metrics:
            out[m][i] = np.asarray(one[m])[0]
    return out


def scores_with_few_ties(data, n, N, dtype):
    rng = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1)))
    if dtype == "bool":
        # Rows of two items (more always tie): True/False in either order, a
        # few rows tied.
        base = np.zeros((n, 2), dtype=bool)
        base[np.arange(n), rng.integers(0, 2, n)] = True
        tied = rng.choice(n, size=data.draw(st.integers(1, max(1, n // 4))), replace=False)
        base[tied] = data.draw(st.booleans())
        return base
    hi = {"int8": 120, "uint8": 250}.get(dtype, 10_000)
    base = np.stack([rng.permutation(hi)[:N] for _ in range(n)]).astype(np.float64)
    if dtype.startswith("float"):
        base = base / 7.0
        for r in rng.choice(n, size=min(3, n), replace=False):
            base[r, rng.integers(N)] = data.draw(st.sampled_from(EXTREMES[dtype]))
    tied = rng.choice(n, size=data.draw(st.integers(1, max(1, n // 4))), replace=False)
    for r in tied:  # a tie of 2..N items in a few rows
        k = data.draw(st.integers(2, N))
        cols = rng.choice(N, size=k, replace=False)
        base[r, cols] = base[r, cols[0]]
    return base.astype(dtype)


@SETTINGS
@pytest.mark.parametrize("dtype", DTYPES)
@given(data=st.data())
def test_split_chunk_equals_rows_alone(dtype, data):
    n, N = data.draw(st.integers(4, 24)), data.draw(st.integers(2, 12))
    y_score = scores_with_few_ties(data, n, N, dtype)
    N = y_score.shape[1]
    rng = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1)))
    y_true = (rng.random((n, N)) < data.draw(st.sampled_from([0.1, 0.3, 0.9]))) * \
        rng.integers(1, 5, (n, N))
    y_true[rng.integers(n)] = 0  # an empty row
    got = skr.evaluate(y_true, y_score, FULL, per_row=True, no_relevant=0.0)
    ref = row_by_row(y_true, y_score, FULL)
    for m in FULL:
        np.testing.assert_allclose(np.asarray(got[m]), ref[m], rtol=1e-12, atol=1e-15,
                                   err_msg=m)


def test_a_block_with_few_tied_rows_is_split():
    rng = np.random.default_rng(0)
    y_score = rng.random((40, 30))
    y_score[[3, 17], 5] = y_score[[3, 17], 6]  # two rows of forty tie
    y_true = (rng.random((40, 30)) < 0.2).astype(np.int8)
    y_true[[3, 17], 5], y_true[[3, 17], 6] = 1, 0  # each tie joins two relevances
    rc = rank_block(y_true, y_score, make_requests(["ndcg", "map"]))
    parts = rc.split_by_ties()
    assert parts is not None
    (plain, untied), (tied, with_ties) = parts
    assert tied.tolist() == [3, 17] and plain.shape[0] == 38
    assert not untied.tied and with_ties.tied
    got = skr.evaluate(y_true, y_score, ["ndcg", "map", "mrr", "bpref"], per_row=True)
    ref = row_by_row(y_true, y_score, ["ndcg", "map", "mrr", "bpref"])
    for m in ref:
        np.testing.assert_allclose(np.asarray(got[m]), ref[m], rtol=1e-12, atol=1e-15)


GAINS = [{}, {"gain": "exponential"}, {"gain": "exponential", "log_base": 3}]


@SETTINGS
@given(data=st.data())
def test_ndcg_without_cutoff_from_counted_levels(data):
    # The IDCG read off the ideal's counted levels against the DCG of the
    # ideal order itself (the relevance as scores: its ties hold equal gains).
    n, N = data.draw(st.integers(1, 30)), data.draw(st.integers(2, 40))
    rng = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1)))
    dtype = data.draw(st.sampled_from(["int8", "int64", "uint8", "float64", "bool"]))
    hi = 2 if dtype == "bool" else data.draw(st.integers(1, 6))
    y_true = ((rng.random((n, N)) < data.draw(st.sampled_from([0.05, 0.5, 1.0])))
              * rng.integers(0, hi, (n, N))).astype(dtype)
    y_score = rng.integers(0, data.draw(st.sampled_from([2, 5, 1000])), (n, N)).astype(
        data.draw(st.sampled_from(["float64", "float32", "int64"])))
    opts = data.draw(st.sampled_from(GAINS))
    got = np.asarray(skr.evaluate(y_true, y_score, [("ndcg", opts)], per_row=True,
                                  no_relevant=0.0)["ndcg"])
    dcg = np.asarray(skr.evaluate(y_true, y_score, [("dcg", opts)], per_row=True)["dcg"])
    ideal = np.asarray(skr.evaluate(y_true, y_true.astype(np.float64), [("dcg", opts)],
                                    per_row=True)["dcg"])
    ref = np.where(ideal > 0, dcg / np.where(ideal > 0, ideal, 1.0), 0.0)
    np.testing.assert_allclose(got, ref, rtol=1e-12, atol=1e-15)


def mean_over_orderings(y_true, y_score, value):
    """The slow reference of a tie expectation: ``value(rel, R)`` (``rel`` the
    relevance of a row in one order) averaged over every ordering of each tie
    group, enumerated (small rows)."""
    import itertools
    out = []
    for yt, ys in zip(y_true, y_score):
        levels = sorted(set(ys.tolist()), reverse=True)
        groups = [[j for j in range(len(ys)) if ys[j] == v] for v in levels]
        vals = [value(yt[[j for g in perm for j in g]] > 0, int((yt > 0).sum()))
                for perm in itertools.product(*[itertools.permutations(g) for g in groups])]
        out.append(float(np.mean(vals)))
    return np.array(out)


def ap_per_position(y_true, y_score, k, over=None):
    """AP at ``k`` over every ordering; the sum over ``min(over, R)`` (map@k's
    default), or R."""
    def ap(rel, R):
        rel = rel[:k]
        den = R if over is None else min(over, R)
        return float((rel * np.cumsum(rel) / np.arange(1, len(rel) + 1)).sum() / den) if R else 0.0
    return mean_over_orderings(y_true, y_score, ap)


@SETTINGS
@given(data=st.data())
def test_ap_per_tie_group_against_every_ordering(data):
    n, N = data.draw(st.integers(1, 4)), data.draw(st.integers(2, 7))
    rng = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1)))
    y_true = (rng.random((n, N)) < data.draw(st.sampled_from([0.2, 0.5, 1.0]))).astype(
        data.draw(st.sampled_from(["int8", "bool", "float64"])))
    y_score = rng.integers(0, data.draw(st.integers(1, 4)), (n, N)).astype(
        data.draw(st.sampled_from(["int64", "float32", "int8", "uint8"])))
    k = data.draw(st.integers(1, N))
    got = skr.evaluate(y_true, y_score, ["map", f"map@{k}"], per_row=True, no_relevant=0.0)
    np.testing.assert_allclose(np.asarray(got["map"]), ap_per_position(y_true, y_score, N),
                               rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(np.asarray(got[f"map@{k}"]),
                               ap_per_position(y_true, y_score, k, over=k), rtol=1e-12,
                               atol=1e-15)


def rr_every_ordering(y_true, y_score):
    """RR over every ordering."""
    return mean_over_orderings(
        y_true, y_score, lambda rel, R: 1.0 / (int(rel.argmax()) + 1) if R else 0.0)


@SETTINGS
@given(data=st.data())
def test_mrr_without_a_sort_against_every_ordering(data):
    # MRR alone scans the scores (nothing ranked); beside nDCG it reads the ranking.
    n, N = data.draw(st.integers(1, 4)), data.draw(st.integers(2, 7))
    rng = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1)))
    y_true = (rng.random((n, N)) < data.draw(st.sampled_from([0.0, 0.2, 0.5, 1.0]))).astype(
        data.draw(st.sampled_from(["int8", "bool", "float64"])))
    dtype = data.draw(st.sampled_from(["int64", "float32", "float64", "int8", "uint8", "bool"]))
    y_score = rng.integers(0, data.draw(st.integers(1, 4)), (n, N)).astype(dtype)
    if dtype.startswith("float") and data.draw(st.booleans()):
        y_score[0, 0], y_score[0, -1] = -0.0, 0.0  # equal scores: a tie
    if dtype == "float64" and data.draw(st.booleans()):
        y_score[-1, :2] = [1e308, -1e308]
    want = rr_every_ordering(y_true, y_score)
    alone = skr.evaluate(y_true, y_score, ["mrr"], per_row=True, no_relevant=0.0)["mrr"]
    ranked = skr.evaluate(y_true, y_score, ["mrr", "ndcg"], per_row=True,
                          no_relevant=0.0)["mrr"]
    np.testing.assert_allclose(np.asarray(alone), want, rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(np.asarray(ranked), want, rtol=1e-12, atol=1e-15)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_ties_of_items_of_one_relevance_are_read_as_none(dtype):
    """A tie joining items of one relevance gives one sequence of values in
    every order: the block is ranked as untied (no split, no tie groups),
    its values those of each row alone; a measure that refuses ties still
    refuses it, as it does where the scores are integers."""
    rng = np.random.default_rng(5)
    y_true = np.where(rng.random((60, 30)) < 0.2, rng.integers(1, 4, (60, 30)), 0)
    y_score = rng.random((60, 30)).astype(dtype)
    for r in (4, 9, 33):  # three rows tie two items of relevance 0, or of 2
        a, b = np.flatnonzero(y_true[r] == 0)[:2]
        y_score[r, b] = y_score[r, a]
    y_true[9, [0, 1]], y_score[9, 1] = 2, y_score[9, 0]
    rc = rank_block(y_true, y_score, make_requests(["ndcg", "map"]))
    assert not rc.tied and rc.equal_ties and rc.split_by_ties() is None
    got = skr.evaluate(y_true, y_score, FULL, per_row=True, no_relevant=0.0)
    ref = row_by_row(y_true, y_score, FULL)
    for m in FULL:
        np.testing.assert_allclose(np.asarray(got[m]), ref[m], rtol=1e-12, atol=1e-15,
                                   err_msg=m)
    with pytest.raises(ValueError, match="scores of some rows tie"):
        skr.evaluate(y_true, y_score, ["compat"])
    y_true[33, y_score[33] == y_score[33][np.flatnonzero(y_true[33] == 0)[0]]] = [0, 3]
    rc = rank_block(y_true, y_score, make_requests(["ndcg", "map"]))
    assert rc.tied and rc.split_by_ties() is not None  # a tie of two relevances
