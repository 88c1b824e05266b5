"""Long format: 1-D ``y_true``, ``y_score`` and ``qid``, one entry per
query-item pair.

Each query is scored as if it were alone (brute-force reference per query,
or the dense function on that query's matrix); queries need not be
contiguous or sorted and may differ in length; per-row output follows the
sorted unique qids; weights come per query or per pair.
"""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest
from conftest import (
    METRIC_NAMES,
    default_options,
    k_values,
    option_grid,
    reference_kwargs,
    score,
    scores_for,
)
from reference import brute_force

import sk_rankmetrics as skr
from sk_rankmetrics._metrics.registry import METRICS

TOL = dict(rel=1e-12, abs=1e-12)


def _long_case(seed, n_queries=12, max_len=7, min_len=1, shuffle=True, qid_kind="int",
               ties=True):
    """Queries of lengths min_len..max_len, tied scores (unless ``ties`` is
    False), some without relevant items.

    Returns the 1-D arrays, the qids, and ``{qid: (y, s)}`` per query.
    """
    rng = np.random.default_rng(seed)
    lengths = rng.integers(min_len, max_len + 1, size=n_queries)
    ids = rng.choice(1000, size=n_queries, replace=False)
    if qid_kind == "str":
        ids = np.array([f"q{i}" for i in ids])
    parts = {}
    for qid, n in zip(ids, lengths):
        y = rng.integers(0, 4, size=n) * (rng.random(n) < 0.6)
        if rng.random() < 0.2:
            y[:] = 0
        s = rng.integers(0, 3, size=n).astype(float) if ties else rng.random(n)
        parts[qid] = (y, s)
    qid = np.concatenate([np.full(len(parts[q][0]), q) for q in ids])
    y = np.concatenate([parts[q][0] for q in ids])
    s = np.concatenate([parts[q][1] for q in ids])
    if shuffle:
        perm = rng.permutation(len(y))
        y, s, qid = y[perm], s[perm], qid[perm]
    return y, s, qid, parts


def _options(name):
    """The reference's option grid plus settings under which padding of short
    queries must stay invisible: level 0 worth something, threshold <= 0."""
    grid = list(option_grid(name, 1))
    grid = [o for o in grid if "discount" not in o or isinstance(o["discount"], str)]
    base = default_options(name)
    options = METRICS[name].options
    if "gain" in options:
        grid.append({**base, "gain": {0: 0.5, 1: 1.0, 2: 2.0, 3: 4.0}})
        if "discount" in options:
            grid.append({**base, "discount": np.linspace(1, 0.1, 7)})
    if "threshold" in options:
        grid += [{**base, "threshold": 0}, {**base, "threshold": -1}]
    return grid


def _ties(name):
    return METRICS[name].ties != "refuse"


@pytest.mark.parametrize("name", METRIC_NAMES)
@pytest.mark.parametrize("shuffle", [True, False])
def test_each_query_scored_alone(name, shuffle):
    y, s, qid, parts = _long_case(1, shuffle=shuffle, ties=_ties(name))
    order = sorted(parts)
    ks = k_values(7) if METRICS[name].takes_k else [None]
    for options, k in itertools.product(_options(name), ks):
        rows = score(name, y, s, qid=qid, k=k, per_row=True, no_relevant=np.nan, **options)
        ref_opts = reference_kwargs(options)
        if METRICS[name].takes_k:
            ref_opts["k"] = k
        want = []
        for q in order:
            v = brute_force(name, parts[q][0].tolist(), parts[q][1].tolist(), **ref_opts)
            want.append(np.nan if v is None else v)
        np.testing.assert_allclose(rows, want, rtol=1e-12, atol=1e-12,
                                   err_msg=f"{name} k={k} {options}")


@pytest.mark.parametrize("name", METRIC_NAMES)
def test_equals_the_dense_function_per_query(name):
    """Queries of at least 2 items: the dense function on each query's 1 x n
    matrix gives that query's value."""
    y, s, qid, parts = _long_case(2, n_queries=15, min_len=2, max_len=9, ties=_ties(name))
    k = 3 if METRICS[name].takes_k else None
    rows = score(name, y, s, qid=qid, k=k, per_row=True, no_relevant=np.nan)
    for q, v in zip(sorted(parts), rows):
        yq, sq = parts[q]
        alone = score(name, yq.reshape(1, -1), sq.reshape(1, -1), k=k, no_relevant=np.nan)
        assert v == pytest.approx(alone, nan_ok=True, **TOL)
    mean = score(name, y, s, qid=qid, k=k, no_relevant=0.0)
    combine = np.sum if METRICS[name].aggregate == "sum" else np.mean
    assert mean == pytest.approx(combine(np.nan_to_num(rows)), **TOL)


@pytest.mark.parametrize("name", METRIC_NAMES)
@pytest.mark.parametrize("ties", [True, False])
def test_float32_scores_equal_their_float64_values(name, ties):
    """float32 scores are ranked in float32 (their padding too): the values
    equal those of the same scores given as float64, on queries short and
    long (up to 300 items: the cut-off selections and the relevant items'
    route), tied or not, shuffled, under either tie rule."""
    rng = np.random.default_rng(11 + ties)
    lengths = rng.integers(1, 300, 40)
    qid = np.repeat(rng.choice(10_000, 40, replace=False), lengths)
    n = qid.shape[0]
    y = rng.integers(1, 4, n) * (rng.random(n) < 0.08)
    s = (rng.integers(0, 8, n) / 4 if ties else rng.random(n)).astype(np.float32)
    s = np.asarray(scores_for(name, s), dtype=np.float32)  # ranks: exact in float32
    perm = rng.permutation(n)
    y, s, qid = y[perm], s[perm], qid[perm]
    k = 10 if METRICS[name].takes_k else None
    for ignore_ties in (False, True):
        if ignore_ties and METRICS[name].ties == "refuse":
            continue
        kw = dict(qid=qid, k=k, per_row=True, no_relevant=np.nan, ignore_ties=ignore_ties)
        got = score(name, y, s, **kw)
        want = score(name, y, np.asarray(s).astype(np.float64), **kw)
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12,
                                   err_msg=f"{name} ignore_ties={ignore_ties}")


@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf])
def test_float32_scores_not_finite_are_named_as_float64_ones(bad):
    """float32 scores stay float32 in the long format: a NaN or an infinity
    among them raises the error float64 scores raise, naming the index."""
    messages = []
    for dtype in (np.float32, np.float64):
        s = np.array([0.5, 0.2, 0.7, bad, 0.1], dtype=dtype)
        with pytest.raises(ValueError, match=r"y_score contains NaN or infinity "
                                             r"\(first at index 3\)") as err:
            skr.evaluate([1, 0, 1, 1, 0], s, ["ndcg@2", "map"], qid=[1, 1, 1, 2, 2])
        messages.append(str(err.value))
    assert messages[0] == messages[1]


@pytest.mark.parametrize("name", METRIC_NAMES)
def test_equal_lengths_equal_the_matrix(name):
    rng = np.random.default_rng(3)
    Y = rng.integers(0, 3, size=(20, 5))
    S = scores_for(name, rng.integers(0, 3, size=(20, 5)))
    qid = np.repeat(np.arange(20), 5)
    perm = rng.permutation(qid.size)
    k = 2 if METRICS[name].takes_k else None
    long_ = score(name, Y.ravel()[perm], S.ravel()[perm], qid=qid[perm], k=k,
                  per_row=True, no_relevant=0.0)
    dense = score(name, Y, S, k=k, per_row=True, no_relevant=0.0)
    np.testing.assert_allclose(long_, dense, rtol=1e-12, atol=1e-12)


@pytest.mark.slow
def test_chunked_and_threaded(small_chunks):
    y, s, qid, parts = _long_case(4, n_queries=300, max_len=30)
    names = ["ndcg@5", "dcg", "cg@3", "map@10", "precision@4", "recall@2",
             "hit_rate@1", "mrr", "r_precision", "ndcg_exp"]
    got = skr.evaluate(y, s, names, qid=qid, per_row=True, no_relevant=np.nan)
    order = sorted(parts)
    for name in names:
        want = []
        for q in order:
            yq, sq = parts[q]
            if len(yq) == 1:  # the dense functions need 2 items: pad by hand
                yq, sq = np.append(yq, 0), np.append(sq, -1e9)
            want.append(skr.evaluate(yq.reshape(1, -1), sq.reshape(1, -1), [name],
                                     no_relevant=np.nan)[name])
        np.testing.assert_allclose(got[name], want, rtol=1e-12, atol=1e-12, err_msg=name)


def test_per_row_order_is_sorted_unique_qid():
    y = [1, 0, 0, 1, 1, 0, 1]
    s = [1, 2, 3, 4, 5, 6, 7]
    qid = [30, 10, 30, 20, 10, -5, -5]
    # Queries sorted: -5 (items 5, 6), 10 (1, 4), 20 (3), 30 (0, 2).
    rows = skr.reciprocal_rank_score(y, s, qid=qid, per_row=True)
    np.testing.assert_allclose(rows, [1.0, 1.0, 1.0, 0.5])
    rows = skr.reciprocal_rank_score(y, s, qid=np.array(qid, dtype=float), per_row=True)
    np.testing.assert_allclose(rows, [1.0, 1.0, 1.0, 0.5])


@pytest.mark.parametrize("qid_kind", ["str", "object_str", "pandas"])
def test_string_and_pandas_qids(qid_kind):
    y, s, qid, parts = _long_case(5, qid_kind="str")
    order = sorted(parts)  # lexicographic
    want = skr.ndcg_score(y, s, qid=qid, k=3, per_row=True, no_relevant=np.nan)
    if qid_kind == "object_str":
        qid = qid.astype(object)
    elif qid_kind == "pandas":
        y, s, qid = pd.Series(y), pd.Series(s), pd.Series(qid)
    got = skr.ndcg_score(y, s, qid=qid, k=3, per_row=True, no_relevant=np.nan)
    np.testing.assert_allclose(got, want, rtol=0, atol=0)
    for q, v in zip(order, got):
        ref = brute_force("ndcg", parts[q][0].tolist(), parts[q][1].tolist(), k=3)
        assert v == pytest.approx(np.nan if ref is None else ref, nan_ok=True, **TOL)


# --- sample_weight -------------------------------------------------------------------


@pytest.mark.parametrize("name", METRIC_NAMES)
def test_weights_per_query_and_per_pair(name):
    y, s, qid, parts = _long_case(6, n_queries=10, ties=_ties(name))
    order = sorted(parts)
    w_query = np.arange(1.0, len(order) + 1)  # in sorted qid order
    w_pair = w_query[np.searchsorted(order, qid)]
    k = 2 if METRICS[name].takes_k else None
    rows = score(name, y, s, qid=qid, k=k, per_row=True, no_relevant=0.0)
    by_query = score(name, y, s, qid=qid, k=k, sample_weight=w_query, no_relevant=0.0)
    by_pair = score(name, y, s, qid=qid, k=k, sample_weight=w_pair, no_relevant=0.0)
    if METRICS[name].aggregate == "sum":
        assert by_query == pytest.approx(np.sum(rows * w_query), **TOL)
    else:
        assert by_query == pytest.approx(np.average(rows, weights=w_query), **TOL)
    assert by_pair == pytest.approx(by_query, **TOL)
    # Zero weight drops a query, as in the matrix layout.
    w0 = w_query.copy()
    w0[3] = 0
    keep = qid != order[3]
    assert score(name, y, s, qid=qid, k=k, sample_weight=w0, no_relevant=0.0) == pytest.approx(
        score(name, y[keep], s[keep], qid=qid[keep], k=k, sample_weight=np.delete(w_query, 3),
              no_relevant=0.0), **TOL
    )


def test_skip_policy_drops_queries_and_their_weights():
    y = [1, 0, 0, 0, 0, 1, 1]
    s = [3, 2, 1, 2, 1, 1, 2]
    qid = [1, 1, 1, 2, 2, 3, 3]  # query 2 has no relevant item
    w = [1.0, 100.0, 3.0]
    rows = skr.recall_at_k_score(y, s, qid=qid, k=1, no_relevant="skip", per_row=True)
    np.testing.assert_array_equal(np.isnan(rows), [False, True, False])
    got = skr.recall_at_k_score(y, s, qid=qid, k=1, no_relevant="skip", sample_weight=w)
    assert got == pytest.approx((1.0 * 1 + 3.0 * 0.5) / 4.0, **TOL)


def test_per_pair_weights_varying_inside_a_query_is_an_error():
    y, s, qid = [1, 0, 1, 1], [1, 2, 3, 4], ["b", "a", "b", "a"]
    with pytest.raises(
        ValueError, match=r"differs inside query (np\.str_\()?'b'.* one weight per query \(length 2"
    ):
        skr.ndcg_score(y, s, qid=qid, sample_weight=[1, 2, 3, 2])


def test_weights_of_wrong_length():
    y, s, qid = [1, 0, 1, 1, 0], [1, 2, 3, 4, 5], [1, 1, 2, 2, 2]
    with pytest.raises(ValueError, match=r"sample_weight must be 1-D .* got shape \(3,\)"):
        skr.ndcg_score(y, s, qid=qid, sample_weight=[1, 2, 3])
    with pytest.raises(ValueError, match=r"sample_weight must be non-negative"):
        skr.ndcg_score(y, s, qid=qid, sample_weight=[1, -2])


# --- errors -----------------------------------------------------------------------------


def test_qid_length_mismatch():
    with pytest.raises(ValueError, match=r"same length .* got 4, 4 and 3"):
        skr.ndcg_score([1, 0, 1, 1], [1, 2, 3, 4], qid=[1, 1, 2])
    with pytest.raises(ValueError, match=r"same length .* got 4, 3 and 4"):
        skr.ndcg_score([1, 0, 1, 1], [1, 2, 3], qid=[1, 1, 2, 2])


@pytest.mark.parametrize("which", ["y_true", "y_score", "qid"])
def test_two_dimensional_input_with_qid(which):
    args = {"y_true": [1, 0, 1, 1], "y_score": [1, 2, 3, 4], "qid": [1, 1, 2, 2]}
    args[which] = np.reshape(args[which], (2, 2))
    with pytest.raises(ValueError, match=rf"{which} must be 1-D .* got shape \(2, 2\)"):
        skr.ndcg_score(args["y_true"], args["y_score"], qid=args["qid"])


def test_bad_qids_and_values():
    with pytest.raises(TypeError, match=r"qid holds the value nan, which is not an id"):
        skr.ndcg_score([1, 0], [1, 2], qid=[np.nan, 1.0])
    with pytest.raises(ValueError, match=r"y_score contains NaN or infinity \(first at index 1\)"):
        skr.ndcg_score([1, 0, 1], [1, np.inf, 3], qid=[1, 1, 2])
    with pytest.raises(ValueError, match=r"y_true contains NaN or infinity"):
        skr.ndcg_score([1, np.nan, 1], [1, 2, 3], qid=[1, 1, 2])
    with pytest.raises(ValueError, match=r"empty"):
        skr.ndcg_score([], [], qid=[])
    with pytest.raises(TypeError, match=r"y_true must hold numbers"):
        skr.ndcg_score(["a", "b"], [1, 2], qid=[1, 1])


def test_object_qids_are_never_coerced_into_other_queries():
    y, s = [1, 0, 1, 0], [1, 2, 3, 4]
    for bad, match in (
        ([1, 1, 1.5, 1.5], r"qid (must hold ids of one type .* such as|holds the value) 1\.5"),
        (["a", 1, "b", "b"], r"qid must hold ids of one type .* such as 'a' and 1"),
        ([1, None, 2, 2], r"qid holds a missing id \(None at entry 1\)"),
        (["a", "a", float("nan"), "b"], r"qid holds a missing id \(nan at entry 2\)"),
    ):
        with pytest.raises(TypeError, match=match):
            skr.ndcg_score(y, s, qid=np.array(bad, dtype=object))
        with pytest.raises(TypeError, match=match):  # a list: NumPy would write nan as text
            skr.ndcg_score(y, s, qid=bad)
    by_obj = skr.ndcg_score(y, s, qid=np.array(["a", "a", "b", "b"], dtype=object), per_row=True)
    by_int = skr.ndcg_score(y, s, qid=np.array([3, 3, 4, 4], dtype=object), per_row=True)
    np.testing.assert_array_equal(by_obj, skr.ndcg_score(y, s, qid=[3, 3, 4, 4], per_row=True))
    np.testing.assert_array_equal(by_int, by_obj)


@pytest.mark.parametrize("judged", [False, True])
@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.int64])
@pytest.mark.parametrize("last_long", [False, True])
@pytest.mark.parametrize("binary", [False, True])
def test_contiguous_queries_read_as_windows_equal_the_scattered_pairs(judged, dtype,
                                                                      last_long, binary):
    """Queries held as contiguous runs are read as rows of a strided view
    (each row the block's width of pairs from its start, then padded); the
    last runs have fewer pairs left than the width. They equal the pairs
    scattered one by one, relevance, scores and judged flags alike."""
    from sk_rankmetrics._inputs.long import LongInputs

    rng = np.random.default_rng(5)
    lens = rng.integers(2, 30, 40)
    lens[-1] = 40 if last_long else 2
    qid = np.repeat(np.arange(40), lens)
    n = qid.shape[0]
    y = rng.integers(0, 4, n)
    y = y > 1 if binary else y
    s = (rng.random(n) * 100).astype(dtype)
    inputs = LongInputs(y, s, qid, judged=rng.random(n) < 0.7 if judged else None)
    assert inputs.order is None
    for qs in (np.arange(40), np.array([39, 3, 38]), np.array([0, 39])):
        cnt = inputs.counts[qs]
        width = int(cnt.max())
        got = inputs._windows(qs, cnt, width)
        inputs.order = np.arange(n)
        want = inputs._scattered(qs, cnt, width)
        inputs.order = None
        assert len(got) == len(want)
        for g, w in zip(got, want):
            if w is None:
                assert g is None
                continue
            assert g.dtype == w.dtype and g.shape == w.shape
            np.testing.assert_array_equal(g, w)
