"""Ranked ID lists (recommender output) scored by ``evaluate_ranked``.

Checked against the slow per-row reference of ``tests/reference.py``, the
playlist nDCG formula of the article "추천시스템의 성능을 비교 평가하기 위한
지표인 nDCG" ("nDCG, a metric to compare the performance of recommender
systems"), and a
per-user loop on a subsample of a large vectorised case.
"""

from __future__ import annotations

import inspect
import warnings

import numpy as np
import pytest
import reference as ref
from conftest import default_options
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.exceptions import UndefinedMetricWarning

from sk_rankmetrics import (
    EvaluationResult,
    TrecQrels,
    TrecRun,
    evaluate,
    evaluate_ranked,
    evaluate_run,
    qrels_from_frame,
    run_from_frame,
)
from sk_rankmetrics._inputs.preranked import RankedLists, Truth, build_preranked
from sk_rankmetrics._metrics.registry import METRICS
from sk_rankmetrics._utils.arrays import as_ids


def _random_lists(rng, n_users, n_pool=40, max_len=12, graded=True):
    rec, truth = {}, {}
    for u in range(n_users):
        n = int(rng.integers(0, max_len + 1))
        rec[f"u{u}"] = [f"i{j}" for j in rng.choice(n_pool, size=n, replace=False)]
        m = int(rng.integers(0, 8))
        ids = rng.choice(n_pool, size=m, replace=False)
        rel = rng.integers(1, 4, size=m) if graded else np.ones(m, dtype=int)
        truth[f"u{u}"] = {f"i{j}": int(r) for j, r in zip(ids, rel)}
    return rec, truth


def _reference_value(name, recs, truth, k, **kw):
    """Reference value of one user: items = recommended + unrecommended truth;
    an item the truth does not name is unjudged."""
    items = list(recs) + [i for i in truth if i not in set(recs)]
    y = [truth.get(i, 0) for i in items]
    judged = [i in truth for i in items]
    order = list(range(len(recs)))
    fn = ref.METRICS[name]
    params = inspect.signature(fn).parameters
    kwargs = {**default_options(name), **kw}
    for flag in ("judged", "pool"):
        if flag in params:
            kwargs[flag] = judged
    if METRICS[name].takes_k:
        kwargs["k"] = k
    if name == "precision" and k is None and not recs:
        # An empty list scores 0 here (the reference would divide by 0).
        return None if not any(v > 0 for v in y) else 0.0
    return fn(y, order, **kwargs)


CASES = [(name, k) for name, spec in METRICS.items()
         for k in ((None, 1, 3, 10, 20) if spec.takes_k else (None,))]


@pytest.mark.parametrize(("name", "k"), CASES)
def test_matches_reference_per_user(name, k):
    rng = np.random.default_rng(7)
    rec, truth = _random_lists(rng, 60)
    label = name if k is None else f"{name}@{k}"
    res = evaluate_ranked(rec, truth, [(label, default_options(name))], no_relevant="skip")
    assert res.query_ids.tolist() == list(rec)
    for u, got in zip(res.query_ids, res.per_query[label]):
        expected = _reference_value(name, rec[u], truth[u], k)
        if expected is None:
            assert np.isnan(got)
        else:
            assert got == pytest.approx(expected, abs=1e-12), (u, label)


def test_threshold_and_map_denominator_options():
    rng = np.random.default_rng(3)
    rec, truth = _random_lists(rng, 40)
    res = evaluate_ranked(rec, truth, [("map@5", {"denominator": "relevant"}), "recall@5"],
                          threshold=2, no_relevant="skip")
    for i, u in enumerate(res.query_ids):
        items = list(rec[u]) + [x for x in truth[u] if x not in rec[u]]
        y = [truth[u].get(x, 0) for x in items]
        order = list(range(len(rec[u])))
        for label, fn, kw in (("map@5", ref.average_precision, {"denominator": "relevant"}),
                              ("recall@5", ref.recall, {})):
            expected = fn(y, order, 5, threshold=2, **kw)
            got = res.per_query[label][i]
            assert np.isnan(got) if expected is None else got == pytest.approx(expected)


def test_korean_playlist_example():
    # 100 recommended songs per playlist, binary truth of 1..180 songs.
    rng = np.random.default_rng(2021)
    n_songs = 600
    gt, rec = {}, {}
    for p in range(80):
        rec[p] = rng.choice(n_songs, size=100, replace=False).tolist()
        size = int(rng.integers(1, 181))
        gt[p] = set(rng.choice(n_songs, size=size, replace=False).tolist())
    gt[80], rec[80] = set(range(150)), list(range(100))  # a perfect playlist, |truth| > 100
    res = evaluate_ranked(rec, gt, ["ndcg@100"])
    expected = [ref.article_playlist_ndcg(gt[p], rec[p]) for p in res.query_ids.tolist()]
    np.testing.assert_allclose(res.per_query["ndcg@100"], expected, rtol=1e-12)
    score = sum(ref.article_playlist_ndcg(gt[i], rec[i]) for i in rec) / len(rec)
    assert res["ndcg@100"] == pytest.approx(score, rel=1e-12)
    assert res.per_query["ndcg@100"][-1] == pytest.approx(1.0)


def test_input_forms_agree():
    rng = np.random.default_rng(5)
    n, w = 30, 8
    mat = np.stack([rng.choice(50, size=w, replace=False) for _ in range(n)])
    truth_sets = [set(rng.choice(50, size=4, replace=False).tolist()) for _ in range(n)]
    metrics = ["ndcg@5", "map@8", "mrr", "precision@3", "ndcg@12", "recall@20"]
    base = evaluate_ranked(mat, truth_sets, metrics, no_relevant=0.0)
    tu = np.concatenate([[u] * len(s) for u, s in enumerate(truth_sets)])
    ti = np.concatenate([sorted(s) for s in truth_sets])
    forms = [
        evaluate_ranked({u: list(r) for u, r in enumerate(mat)},
                        {u: s for u, s in enumerate(truth_sets)}, metrics, no_relevant=0.0),
        evaluate_ranked(mat.tolist(), (tu, ti), metrics, no_relevant=0.0),
        evaluate_ranked(mat, (tu, ti, np.ones(len(ti))), metrics, no_relevant=0.0),
        evaluate_ranked(mat.astype(str), [{str(i) for i in s} for s in truth_sets], metrics,
                        no_relevant=0.0),
        evaluate_ranked(mat, {u: dict.fromkeys(s, 1) for u, s in enumerate(truth_sets)},
                        metrics, no_relevant=0.0),
    ]
    for other in forms:
        for m in metrics:
            np.testing.assert_allclose(other.per_query[m], base.per_query[m], rtol=1e-12)


def test_matches_dense_evaluate_when_truth_is_recommended():
    # Every judged item is in the list: the ID-list layout and the dense matrix agree.
    rng = np.random.default_rng(11)
    n, w = 25, 10
    rel = rng.integers(0, 4, size=(n, w))
    rel[0] = 0  # a row without relevant items
    rec = np.tile(np.arange(w), (n, 1))
    tu, ti = np.nonzero(rel)
    metrics = ["ndcg@5", "ndcg", "dcg@3", "cg@4", "map@5", "map", "precision@5", "recall@5",
               "hit_rate@2", "mrr", "r_precision"]
    with pytest.warns(UserWarning, match=r"1 of 25 users of the ranking have no judgements"):
        res = evaluate_ranked(rec, (tu, ti, rel[tu, ti]), metrics, no_relevant="skip")
    dense = evaluate(rel, -np.arange(w)[None, :].repeat(n, 0).astype(float), metrics,
                     per_row=True, no_relevant="skip")
    for m in metrics:
        np.testing.assert_allclose(res.per_query[m], dense[m], rtol=1e-12, equal_nan=True)


def test_complete_users_and_users_argument():
    rec = [["a", "b"], ["c"]]
    truth = {"x": {"a"}, "y": {"c"}, "z": {"q"}}
    with pytest.warns(UserWarning, match=r"^1 of 3 judged users are not in the ranking "
                      r"\('z'\) and are left out \(complete=True scores them 0\)\.$"):
        res = evaluate_ranked(rec, truth, ["mrr"], users=["x", "y"])
    assert res.query_ids.tolist() == ["x", "y"]
    assert res.per_query["mrr"].tolist() == [1.0, 1.0]
    res = evaluate_ranked(rec, truth, ["mrr", "precision"], users=["x", "y"], complete=True)
    assert res.query_ids.tolist() == ["x", "y", "z"]
    assert res.per_query["mrr"].tolist() == [1.0, 1.0, 0.0]
    assert res["mrr"] == pytest.approx(2 / 3)
    assert res.per_query["precision"][2] == 0.0  # empty list: 0, not 0/0


def test_k_argument_and_labels():
    res = evaluate_ranked({"u": ["a", "b", "c"]}, {"u": {"c"}}, ["precision", "mrr@1"], k=2)
    assert res.metrics == ["precision@2", "mrr@1"]  # k gives its cut-off to the key
    assert res["precision@2"] == 0.0
    assert res["mrr@1"] == 0.0
    assert "1 queries" in repr(res)
    assert isinstance(res, EvaluationResult)


def test_user_without_relevant_items_warns_by_default():
    with pytest.warns(UndefinedMetricWarning, match="no relevant item"):
        res = evaluate_ranked({"u": ["a"], "v": ["b"]}, {"u": {"a"}, "v": set()}, ["ndcg"])
    assert res["ndcg"] == 0.5
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        res = evaluate_ranked({"u": ["a"], "v": ["b"]}, {"u": {"a"}, "v": set()}, ["ndcg"],
                              no_relevant="skip")
    assert res["ndcg"] == 1.0


def test_to_frame():
    pd = pytest.importorskip("pandas")
    res = evaluate_ranked({"u": ["a", "b"], "v": ["b"]}, {"u": {"b"}, "v": {"b"}}, ["mrr"])
    df = res.to_frame()
    assert isinstance(df, pd.DataFrame)
    assert df.loc["u", "mrr"] == 0.5 and df.loc["v", "mrr"] == 1.0


@pytest.mark.parametrize(
    ("rec", "truth", "kwargs", "exc", "match"),
    [
        ({"u": ["a", "a"]}, {"u": {"a"}}, {}, ValueError, "user .u. holds item .a. twice"),
        ([["a"]], {"u": {"a"}}, {"users": ["u", "v"]}, ValueError, "one id per row"),
        ({"u": ["a"]}, {"u": {"a": 1}, "v": {"b"}}, {}, TypeError, "mixes"),
        ({"u": ["a"]}, (["u", "u"], ["a", "a"]), {}, ValueError, "twice"),
        ({"u": ["a"]}, {"v": {"a"}}, {"complete": "yes"}, TypeError, "complete"),
        ({"u": ["a"]}, {"u": {"a"}}, {}, ValueError, "unknown metric"),
        (42, {"u": {"a"}}, {}, TypeError, "recommended must be"),
        ({"u": ["a"]}, 42, {}, TypeError, "truth must be"),
        ({"u": ["a"]}, (["u"],), {}, ValueError, "tuple"),
        ({"u": ["a"]}, (["u"], ["a"], [np.nan]), {}, ValueError, "NaN"),
        ([[0.5, 1.5]], [{1}], {}, TypeError, "ids"),
        ({"u": ["a"]}, {"u": {"a": "high"}}, {}, TypeError, "numeric relevance"),
        ({"u": ["a"]}, {"u": "abc"}, {}, TypeError, r"truth .* got a string"),
        ({"u": "abc"}, {"u": {"a"}}, {}, TypeError, r"recommended .* got a string"),
    ],
)
def test_errors(rec, truth, kwargs, exc, match):
    metrics = ["nope"] if match == "unknown metric" else ["mrr"]
    with pytest.raises(exc, match=match):
        evaluate_ranked(rec, truth, metrics, **kwargs)


def test_malformed_metric_pair_and_trec_gains():
    with pytest.raises(TypeError, match=r"\(name, options\) pairs, got \('mrr',\)"):
        evaluate_ranked({"u": ["a"]}, {"u": {"a"}}, [("mrr",)])
    q = TrecQrels(np.array(["q"]), np.array(["a"]), np.array([1.0]))
    r = TrecRun(np.array(["q"]), np.array(["a"]), np.array([1.0]))
    with pytest.raises(TypeError, match=r"gains must map numeric relevance levels"):
        evaluate_run(q, r, ["ndcg"], gains={"a": 1})


def test_duplicate_user_lists_raise():
    with pytest.raises(ValueError, match="two ranked lists"):
        build_preranked(RankedLists(np.array(["u", "u"]), np.array([1, 1]), np.array(["a", "b"])),
                        Truth(np.array(["u"]), np.array(["a"]), np.array([1.0])))


def test_no_common_users_raise():
    with pytest.raises(ValueError, match="no query"):
        build_preranked(RankedLists(np.array(["u"]), np.array([1]), np.array(["a"])),
                        Truth(np.array(["v"]), np.array(["a"]), np.array([1.0])), queries="both")


@pytest.mark.slow
def test_large_vectorised_case_against_loop():
    # 200,000 users x 100 recommendations (integer ids), in many row blocks.
    rng = np.random.default_rng(0)
    n_users, n_rec, n_items = 200_000, 100, 50_000
    start = rng.integers(0, n_items, size=(n_users, 1))
    rec = (start + np.arange(n_rec) * 37) % n_items
    n_truth = rng.integers(0, 12, size=n_users)
    tu = np.repeat(np.arange(n_users), n_truth)
    ti = (start[tu, 0] + rng.integers(0, 250, size=tu.size) * 37) % n_items
    keep = np.unique(tu * n_items + ti, return_index=True)[1]
    tu, ti = tu[keep], ti[keep]
    rel = rng.integers(1, 4, size=tu.size).astype(float)
    metrics = ["ndcg@100", "ndcg@10", "map@100", "recall@50", "precision@10", "mrr",
               "hit_rate@5", "r_precision"]
    with pytest.warns(UserWarning, match=r"of 200000 users of the ranking have no judgements"):
        res = evaluate_ranked(rec, (tu, ti, rel), metrics, no_relevant="skip")
    assert res.query_ids.shape == (n_users,)
    sample = rng.choice(n_users, size=150, replace=False)
    bounds = np.searchsorted(tu, np.arange(n_users + 1))
    for u in sample:
        truth = {int(i): float(r) for i, r in zip(ti[bounds[u]:bounds[u + 1]],
                                                  rel[bounds[u]:bounds[u + 1]])}
        recs = rec[u].tolist()
        for m in metrics:
            name, _, k = m.partition("@")
            expected = _reference_value(name, recs, truth, int(k) if k else None)
            got = res.per_query[m][u]
            if expected is None:
                assert np.isnan(got)
            else:
                assert got == pytest.approx(expected, abs=1e-12), (u, m)


def test_fractional_object_ids_are_not_truncated_to_integers():
    # 2.5 is not item 2: floats are refused as ids, or compared as text.
    with pytest.raises(TypeError, match=r"ranked item ids holds the value 2.5, which is not"):
        evaluate_ranked([np.array([1, 2.5], dtype=object)], [{2}], ["mrr"])
    with pytest.raises(TypeError, match=r"ranked item ids holds the value 2.5, which is not"):
        evaluate_ranked({"u": [1, 2.5]}, {"u": {2}}, ["mrr"])
    with pytest.raises(TypeError, match=r"ids must hold ids of one type"):
        as_ids(np.array([1, 2.5], dtype=object), "ids")
    with pytest.raises(ValueError, match=r"truth's item ids holds the value 2.5"):
        evaluate_ranked({"u": [2]}, (np.array(["u"]), np.array([2.5])), ["mrr"])


# -- one policy for judged users without recommendations --------------------------

#: Truth for u1, u4 and u5, recommendations for u1 only (issue 25's example).
U145_TRUTH = {"u1": {"a"}, "u4": {"b"}, "u5": {"c"}}
U145_RECS = {"u1": ["x", "a"]}
U145_WARNING = (r"^2 of 3 judged users are not in the ranking \('u4', 'u5'\) and are left "
                r"out \(complete=True scores them 0\)\.$")


def test_users_without_recommendations_warn_or_score_zero():
    u1 = 1 / np.log2(3)  # the relevant item at rank 2
    with pytest.warns(UserWarning, match=U145_WARNING):
        res = evaluate_ranked(U145_RECS, U145_TRUTH, ["ndcg@10"])
    assert res.query_ids.tolist() == ["u1"]
    assert res["ndcg@10"] == pytest.approx(u1)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        res = evaluate_ranked(U145_RECS, U145_TRUTH, ["ndcg@10"], complete=True)
    assert res.query_ids.tolist() == ["u1", "u4", "u5"]
    assert res.per_query["ndcg@10"].tolist() == pytest.approx([u1, 0.0, 0.0])
    assert res["ndcg@10"] == pytest.approx(u1 / 3)


def test_users_without_recommendations_in_data_frames():
    """The same policy and the same words for long-format frames with a user column."""
    pd = pytest.importorskip("pandas")
    truth = qrels_from_frame(pd.DataFrame({"user": ["u1", "u4", "u5"],
                                           "item": ["a", "b", "c"], "relevance": 1}))
    recs = run_from_frame(pd.DataFrame({"user": ["u1", "u1"], "item": ["x", "a"],
                                        "score": [2.0, 1.0]}))
    with pytest.warns(UserWarning, match=U145_WARNING):
        res = evaluate_run(truth, recs, ["ndcg@10"])
    assert res.query_ids.tolist() == ["u1"]
    res = evaluate_run(truth, recs, ["ndcg@10"], complete=True)
    assert res.per_query["ndcg@10"].tolist() == pytest.approx([1 / np.log2(3), 0.0, 0.0])


@settings(max_examples=300, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(1, 40), size=st.integers(0, 300),
       width=st.integers(1, 30),
       gains=st.sampled_from(["levels", "many levels", "real", "negative", "wide"]))
def test_ideal_of_the_truth_is_its_sorted_gains(seed, n, size, width, gains):
    """The ``width`` best truth gains of each row (best last, 0 where a row has
    fewer items), counted per row for a few gain values and sorted otherwise,
    equal each row's gains sorted by hand."""
    from sk_rankmetrics._inputs.preranked import _ideal_from_truth

    rng = np.random.default_rng(seed)
    trow = np.sort(rng.integers(0, n, size=size))
    g = {"levels": lambda: rng.integers(1, 5, size).astype(float),
         "many levels": lambda: rng.integers(0, 40, size).astype(float),
         "real": lambda: rng.random(size) * 3,
         "negative": lambda: rng.integers(-2, 3, size).astype(float),
         "wide": lambda: rng.integers(0, 2, size) * 2.0**40}[gains]()
    expected = np.zeros((n, width))
    for r in range(n):
        best = np.sort(g[trow == r])[::-1][:width]
        expected[r, width - best.shape[0]:] = best[::-1]
    np.testing.assert_array_equal(_ideal_from_truth(g, trow, n, width), expected)


@settings(max_examples=200, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(1, 30), w=st.integers(2, 40),
       dup=st.booleans())
def test_a_repeated_item_is_found_in_lists_of_one_length(seed, n, w, dup):
    """Lists of one length are sorted row by row and neighbours compared over
    the flattened rows: a repeat is found in its own row, never across two."""
    from sk_rankmetrics._inputs.id_checks import _repeat_in

    rng = np.random.default_rng(seed)
    # Row r draws from r * 1000 .. r * 1000 + 999, but starts with the largest
    # code of the row before: sorted, the two rows meet on equal codes.
    codes = np.stack([r * 1000 + rng.permutation(1000)[:w] for r in range(n)])
    codes[1:, 0] = codes[:-1].max(axis=1)
    if dup:
        r = int(rng.integers(n))
        codes[r, -1] = codes[r, 0]
    found = _repeat_in(codes.reshape(-1), np.full(n, w), 0, 0)
    if dup:
        assert found is not None and codes[found[0]].tolist().count(found[1]) == 2
    else:
        assert found is None


@settings(max_examples=200, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n_keys=st.integers(0, 300), n_q=st.integers(0, 300),
       wide=st.booleans(), two_d=st.booleans())
def test_screened_search_finds_every_key(seed, n_keys, n_q, wide, two_d):
    """The truth's keys are looked up through a hash-table screen, then a binary
    search of those that pass: the same positions and hits as a plain search
    of every query (negative keys, keys near the ends of int64, misses)."""
    from sk_rankmetrics._inputs.preranked import _find

    rng = np.random.default_rng(seed)
    top = 2**62 if wide else 1000
    keys = np.unique(rng.integers(-top, top, size=n_keys))
    q = np.concatenate([rng.integers(-top, top, size=n_q), rng.choice(keys, n_q // 2)
                        if keys.size else np.zeros(0, dtype=np.int64)])
    q = np.concatenate([q, [-1, -(2**63), 2**63 - 1]])
    if two_d:
        q = q[: (q.size // 3) * 3].reshape(-1, 3)
    pos, found = _find(keys, q)
    assert pos.shape == found.shape == q.shape
    expected = np.isin(q, keys)
    np.testing.assert_array_equal(found, expected)
    np.testing.assert_array_equal(keys[pos[found]], q[found])


@settings(max_examples=200, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), size=st.integers(0, 200),
       dtype=st.sampled_from(["int8", "uint8", "int64", "uint16", "bool", "float64"]),
       levels=st.sampled_from([1, 2, 5, 16, 17]), base=st.sampled_from([0, -3, 100]))
def test_truth_sorted_by_packed_keys_equals_a_lexsort(seed, size, dtype, levels, base):
    """Packing (row, code, level) into bit fields and sorting once gives the
    (row, code) order of a lexsort with each pair's level, for every type of
    relevance, negative levels and one level; too many levels or fractional
    ones are refused (None)."""
    from sk_rankmetrics._inputs.preranked import _sort_packed

    rng = np.random.default_rng(seed)
    n = 40
    pairs = np.unique(rng.integers(0, n * 300, size=size))
    rows, codes = pairs // 300, pairs % 300 - 50
    p = rng.permutation(pairs.size)
    rows, codes = rows[p], codes[p]
    if dtype == "bool":
        base, levels = 0, min(levels, 2)
    if dtype.startswith("u"):
        base = abs(base)
    rel = (base + rng.integers(0, levels, size=pairs.size)).astype(dtype)
    got = _sort_packed(rows, codes, rel, n)
    if pairs.size < 2 or int(rel.max()) - int(rel.min()) >= 16:
        assert got is None
        return
    assert got is not None
    o = np.lexsort((codes, rows))
    np.testing.assert_array_equal(got[0], rows[o])
    np.testing.assert_array_equal(got[1], codes[o])
    np.testing.assert_array_equal(np.asarray(got[2], dtype=float), rel[o].astype(float))
    half = rel.astype(float) + 0.5
    assert _sort_packed(rows, codes, half, n) is None


@settings(max_examples=150, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n_run=st.integers(1, 30), n_truth=st.integers(0, 30),
       shared=st.integers(0, 30), queries=st.sampled_from(["run", "truth", "both"]))
def test_overlap_from_rows_says_what_the_sorts_say(seed, n_run, n_truth, shared, queries):
    """The overlap of the ranking's and the truth's ids, read from the truth's
    rows, raises and warns with the words of the sorted test."""
    from sk_rankmetrics._inputs.id_checks import check_overlap, rows_of

    rng = np.random.default_rng(seed)
    run = rng.permutation(np.arange(100, 100 + n_run))
    tq = np.concatenate([rng.choice(run, min(shared, n_truth)),
                         rng.integers(500, 520, size=max(n_truth - shared, 0))])
    tq = rng.permutation(tq).astype(np.int64)

    def said(**kw):
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            try:
                check_overlap(run, tq, queries, "user", **kw)
            except ValueError as e:
                return "error", str(e)
        return "ok", [str(x.message) for x in w]

    order = np.argsort(run, kind="stable")
    assert said(rows=rows_of(run[order], order, tq)) == said()


@settings(max_examples=150, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(1, 20), w=st.integers(1, 12),
       ragged=st.booleans(), wide=st.booleans(), dup=st.booleans())
def test_repeats_of_raw_item_ids(seed, n, w, ragged, wide, dup):
    """Integer item ids are checked for repeats as they are (negative ids too;
    ids beyond 32 bits are not narrowed): an error exactly when a list holds
    an id twice, naming the list and the id."""
    from sk_rankmetrics._inputs.id_checks import no_repeated_item

    rng = np.random.default_rng(seed)
    top = 2**40 if wide else 50
    lens = rng.integers(0, w + 1, size=n) if ragged else np.full(n, w)
    lists = [rng.permutation(np.unique(rng.integers(-top, top, size=3 * w + 3)))[:k]
             for k in lens]
    lens = np.array([x.size for x in lists], dtype=np.int64)
    if dup and lens.max() >= 2:
        r = int(np.flatnonzero(lens >= 2)[0])
        lists[r][-1] = lists[r][0]
    items = np.concatenate(lists).astype(np.int64)
    indptr = np.concatenate(([0], np.cumsum(lens)))
    ids = np.arange(n) + 1000
    repeated = [r for r, x in enumerate(lists) if np.unique(x).size < x.size]
    if repeated:
        with pytest.raises(ValueError, match=rf"user {ids[repeated[0]]} holds item -?\d+ twice"):
            no_repeated_item(indptr, lens, items, items, ids, "user", coded=False)
    else:
        no_repeated_item(indptr, lens, items, items, ids, "user", coded=False)


@pytest.mark.parametrize("far", [2**62, -(2**62), 2**31 + 5, -1])
def test_ranked_ids_far_outside_the_truth_are_unjudged(far):
    """Ranked ids below or above every judged id (by far) are looked up as
    unjudged: the numbers are those of ids just outside the judged range."""
    rng = np.random.default_rng(14)
    rec = np.array([rng.permutation(60)[:12] + 1000 for _ in range(50)])
    users = np.repeat(np.arange(50), 4)
    items = np.concatenate([rng.permutation(60)[:4] + 1000 for _ in range(50)])
    rel = rng.integers(1, 4, size=users.size)
    near = rec.copy()
    near[:, 1::3] = 5000 + np.arange(near[:, 1::3].size).reshape(50, -1)
    far_rec = rec.copy()
    far_rec[:, 1::3] = far + np.sign(far) * np.arange(near[:, 1::3].size).reshape(50, -1)
    names = ["ndcg@10", "map@10", "recall@5", "mrr"]
    a = evaluate_ranked(near, (users, items, rel), names, no_relevant=0.0)
    b = evaluate_ranked(far_rec, (users, items, rel), names, no_relevant=0.0)
    for name in names:
        np.testing.assert_array_equal(a.per_query[name], b.per_query[name])
    assert a.per_query["ndcg@10"].max() > 0


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), alphabet=st.sampled_from(["ab", "az09", "aé", "aĀ"]),
       width=st.integers(1, 8), dup=st.booleans())
def test_short_text_ids_score_as_long_ones(seed, alphabet, width, dup):
    # Text ids of at most 8 characters below U+0100 are compared as packed
    # integers (preranked._text_keys); the same ids made 9 characters long (or
    # holding U+0100) are compared as strings: the values, the judged items
    # found and the duplicate named must be the same.
    rng = np.random.default_rng(seed)
    chars = np.array(list(alphabet))

    def ids(k):
        return ["".join(rng.choice(chars, size=rng.integers(1, width + 1))) for _ in range(k)]

    pool = list(dict.fromkeys(ids(60)))
    rec = {f"u{u}": list(rng.permutation(pool)[: rng.integers(1, len(pool) + 1)])
           for u in range(8)}
    truth = {u: {str(i): int(rng.integers(0, 3)) for i in rng.choice(pool + ids(5), 4)}
             for u in rec}
    if dup and len(rec["u3"]) >= 2:
        rec["u3"].append(rec["u3"][0])

    def longer(x):
        return "~~~~~~~~~" + x

    long_rec = {u: [longer(i) for i in v] for u, v in rec.items()}
    long_truth = {u: {longer(i): r for i, r in v.items()} for u, v in truth.items()}
    metrics = ["ndcg@5", "map", "recall@3", "mrr"]
    repeated = len(set(rec["u3"])) < len(rec["u3"])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # users without a relevant item
        if repeated:
            with pytest.raises(ValueError, match="holds item") as exc:
                evaluate_ranked(long_rec, long_truth, metrics)
            with pytest.raises(ValueError, match="holds item") as got:
                evaluate_ranked(rec, truth, metrics)
            assert str(got.value) == str(exc.value).replace("~~~~~~~~~", "")
            return
        want = evaluate_ranked(long_rec, long_truth, metrics)
        got = evaluate_ranked(rec, truth, metrics)
    assert list(got.query_ids) == list(want.query_ids)
    for m in metrics:
        np.testing.assert_array_equal(got.per_query[m], want.per_query[m])


@settings(max_examples=120, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(1, 15), w=st.integers(3, 10),
       ids=st.sampled_from(["short text", "long text", "wide int"]),
       ragged=st.booleans(), dup=st.sampled_from([None, "judged", "unjudged"]))
def test_repeats_of_ids_in_and_outside_the_truth(seed, n, w, ids, ragged, dup):
    """A ranked list holding an id twice raises, naming the user and the id,
    whether the id is judged or not: text ids packed into integer keys (lists
    of one length are then checked on the keys), text too long to pack, and
    integer ids too far apart to be used as codes. Lists without a repeat score."""
    rng = np.random.default_rng(seed)
    name = {"short text": lambda i: f"i{i}", "long text": lambda i: f"item-number-{i}",
            "wide int": lambda i: int(i) * 2**41 - 2**60}[ids]
    lens = rng.integers(3, w + 1, size=n) if ragged else np.full(n, w)
    rec, truth = {}, {}
    for u, k in enumerate(lens.tolist()):
        pool = rng.permutation(4 * w)[:k]
        rec[f"u{u}"] = [name(i) for i in pool]
        truth[f"u{u}"] = {name(pool[0]), name(4 * w + 1)}  # one judged, one not ranked
    bad = None
    if dup is not None:
        u = int(rng.integers(n))
        lst = rec[f"u{u}"]
        lst[-1] = lst[0] if dup == "judged" else lst[1]  # lst[1] is outside the truth
        bad = u, lst[-1]
    if bad is None:
        res = evaluate_ranked(rec, truth, ["ndcg@10", "mrr"])
        np.testing.assert_array_equal(res.per_query["mrr"], np.ones(n))
    else:
        with pytest.raises(ValueError, match=rf"user 'u{bad[0]}' holds item '?{bad[1]}'? twice"):
            evaluate_ranked(rec, truth, ["ndcg@10", "mrr"])


@pytest.mark.parametrize("kind", ["text", "bytes", "int"])
def test_the_callers_id_arrays_are_left_as_they_were(kind):
    """The ranked and judged ids are read without copies where their type
    already fits (text ids stay text, integer ids int64): nothing the call
    does may write into the caller's arrays."""
    rng = np.random.default_rng(21)
    ids = rng.permutation(200)[:120].reshape(20, 6)
    tu = np.repeat(np.arange(20), 3)
    ti = np.concatenate([row[:3] for row in ids])
    conv = {"text": lambda a: np.char.add("d", a.astype(str)),
            "bytes": lambda a: np.char.add(b"d", a.astype(bytes)),
            "int": lambda a: a.astype(np.int64) * 2**41}[kind]
    rec, items = conv(ids), conv(ti)
    rec[3, 5] = conv(np.array([999]))[0]  # one id outside the truth
    before = rec.copy(), items.copy(), tu.copy()
    res = evaluate_ranked(rec, (tu, items), ["ndcg@5", "mrr", "recall@6"])
    for a, b in zip((rec, items, tu), before):
        np.testing.assert_array_equal(a, b)
    np.testing.assert_array_equal(res.per_query["mrr"], np.ones(20))
