"""Long format in any row order: the grouping by query id against a plain sort.

Integer ids are grouped by sorting packed 32- or 64-bit keys (id offset, row
index), or, where NumPy's sort of integers is not vectorised and the ids span
fewer than 2**16 values, by a radix argsort of their 16-bit offsets; other ids,
and integers spanning 2**32 values or more, by an argsort.
Every path must give the order of a stable argsort (each query's entries in
input order, which ``ignore_ties=True`` reads), the groups a plain sort gives,
and the metrics the sorted input gives.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import sk_rankmetrics as skr
from sk_rankmetrics._inputs.long import _group_by_id


@pytest.fixture(autouse=True, params=[False, True], ids=["buckets", "vector-sort"])
def vector_sort(request, monkeypatch):
    """Every test twice: as on a machine whose np.sort of integers is
    vectorised (keys sorted by np.sort, 16-bit spans too) and as on one
    where it is not (16-bit spans by a radix argsort, keys by buckets)."""
    from sk_rankmetrics._utils import fast

    monkeypatch.setattr(fast, "VECTOR_SORT", request.param)
    monkeypatch.setattr(fast, "_BUCKET_MIN", 0)  # the buckets even for short keys
    return request.param


DTYPES = ["int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64"]


def _check_groups(qid):
    order, starts, ids = _group_by_id(qid)
    # A permutation, each group's entries in input order.
    np.testing.assert_array_equal(order, np.argsort(qid, kind="stable"))
    grouped = qid[order]
    assert np.all(grouped[1:] >= grouped[:-1])  # groups in sorted order
    np.testing.assert_array_equal(ids, np.unique(qid))
    np.testing.assert_array_equal(grouped[starts], ids)
    sizes = np.diff(np.append(starts, qid.shape[0]))
    np.testing.assert_array_equal(sizes, np.unique(qid, return_counts=True)[1])


@settings(max_examples=80, deadline=None)
@given(st.sampled_from(DTYPES), st.data())
def test_integer_ids_of_every_dtype_and_range(dtype, data):
    info = np.iinfo(dtype)
    lo = data.draw(st.integers(int(info.min), int(info.max)))
    width = data.draw(
        st.sampled_from([1, 3, 200, 2**16 - 1, 2**16, 2**16 + 1, 70_000, 2**32, 2**40])
    )
    hi = min(int(info.max), lo + width - 1)
    values = data.draw(st.lists(st.integers(lo, hi), min_size=1, max_size=60))
    _check_groups(np.array(values, dtype=dtype))


@pytest.mark.parametrize("qid", [
    np.array(["b", "a", "b", "c", "a"]),
    np.array([2.5, 1.0, 2.5, 1.0]),
    np.array([0, 2**62, 0, -(2**62)]),  # a span beyond 2**32: argsort
    np.array([7, 7, 7]),
])
def test_other_ids(qid):
    _check_groups(qid)


@settings(max_examples=40, deadline=None)
@given(st.integers(2, 40), st.integers(0, 2**31), st.sampled_from(["int64", "uint32", "int16"]),
       st.integers(0, 2**32 - 1))
def test_shuffled_rows_score_as_sorted_rows(n_queries, offset, dtype, seed):
    rng = np.random.default_rng(seed)
    lens = rng.integers(2, 9, n_queries)
    ids = (np.arange(n_queries) * 3 + offset % 1000).astype(dtype)
    qid = np.repeat(ids, lens)
    y = rng.integers(0, 4, qid.shape[0]).astype(float)
    s = rng.integers(0, 5, qid.shape[0]).astype(float)  # ties
    perm = rng.permutation(qid.shape[0])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # queries without a relevant item
        for name in ("ndcg_score", "mean_average_precision_score", "reciprocal_rank_score"):
            fn = getattr(skr, name)
            a = fn(y, s, qid=qid, k=3)
            b = fn(y[perm], s[perm], qid=qid[perm], k=3)
            assert a == pytest.approx(b, abs=1e-12)


def test_many_rows_and_ids():
    # Row indices beyond 16 bits and ids spread over most of 2**32.
    rng = np.random.default_rng(5)
    qid = rng.integers(-(2**31), 2**31 - 2, 150_000) // 7 * 7
    _check_groups(qid)
    _check_groups(qid.astype(np.int32))
    # Beyond 2**16 rows, ids spanning 2**16 values (the radix path) and one more.
    for span in (2**16, 2**16 + 1):
        qid = rng.integers(0, span, 150_000) - 40_000
        qid[:2] = [-40_000, span - 40_001]
        _check_groups(qid)
        _check_groups((qid - 2**31 + 40_000).astype(np.int32))  # from the int32 minimum


@pytest.mark.parametrize("gather_once", [True, False])
@pytest.mark.parametrize("ignore_ties", [False, True])
@pytest.mark.parametrize("scores", ["float64", "float32", "int"])
def test_shuffled_pairs_gathered_once_or_by_block(gather_once, ignore_ties, scores,
                                                  monkeypatch):
    """Shuffled pairs are gathered into their queries' order once (up to
    ``GATHER_ONCE`` pairs) or by each block through the order: both read
    what the sorted pairs give, bit for bit, judged flags, per-pair weights
    and the input order of ties (``ignore_ties=True``) included."""
    from sk_rankmetrics._inputs import long

    if not gather_once:
        monkeypatch.setattr(long, "GATHER_ONCE", 0)
    scattered = []
    real = long.LongInputs._scattered
    monkeypatch.setattr(long.LongInputs, "_scattered",
                        lambda self, *a: scattered.append(1) or real(self, *a))
    rng = np.random.default_rng(7)
    lens = rng.integers(2, 60, 300)
    qid = np.repeat(rng.permutation(300) * 5, lens)  # ids out of order, runs apart
    n = qid.shape[0]
    y = np.where(rng.random(n) < 0.3, rng.integers(1, 4, n), 0)
    s = rng.integers(0, 6, n) if scores == "int" else rng.random(n).astype(scores)
    judged = rng.random(n) < 0.8
    w = np.repeat(rng.random(300) + 0.5, lens)
    metrics = ["ndcg", "map", "bpref", "ndcg@5", "recip_rank"]
    kw = dict(per_row=True, no_relevant=0.0, ignore_ties=ignore_ties)
    perm = rng.permutation(n)
    y, s, qid, judged, w = y[perm], s[perm], qid[perm], judged[perm], w[perm]
    # The same pairs sorted by query, each query's pairs in their order here.
    order = np.argsort(qid, kind="stable")
    want = skr.evaluate(y[order], s[order], metrics, qid=qid[order], judged=judged[order],
                        **kw)
    assert not scattered  # (queries in runs: read as windows)
    got = skr.evaluate(y, s, metrics, qid=qid, judged=judged, **kw)
    assert bool(scattered) == (not gather_once)
    for m in metrics:
        np.testing.assert_array_equal(got[m], want[m])
    # Per-pair weights follow their pairs.
    a = skr.evaluate(y[order], s[order], ["ndcg"], qid=qid[order], sample_weight=w[order],
                     no_relevant=0.0)
    b = skr.evaluate(y, s, ["ndcg"], qid=qid, sample_weight=w, no_relevant=0.0)
    assert a["ndcg"] == b["ndcg"]
