"""``ranked_order``: trec_eval's order of a run's lines (query, score
descending, docno descending), against a sort of the whole strings.

The fast order numbers the queries by their stretches, skips the sort when a
run comes ranked and orders only the entries tied on score by docno; the
reference is the plain sort it replaced (a lexicographic sort of the strings,
reversed, then a stable sort by query).
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import sk_rankmetrics as skr
from sk_rankmetrics._inputs.preranked import group_long, ranked_order


def reference_order(qid, docno, score):
    """Score descending, docno descending, later entry first; then by query (stable)."""
    order = np.lexsort((docno, score))[::-1]
    return order[np.argsort(qid[order], kind="stable")]


#: Document ids: short ASCII (packed), long, non-ASCII (numbered), integers.
DOC_KINDS = {
    "short": lambda i: f"d{i}",
    "long": lambda i: f"document-{i:04d}-of-the-collection",
    "accents": lambda i: f"d\u00e9{i}\u0101",
    "integer": lambda i: i,
}


def _run(draw, n_q, n_docs, doc_kind, q_kind, layout, score_kind):
    rng = np.random.default_rng(draw)
    qid, docno, score = [], [], []
    for q in range(n_q):
        m = int(rng.integers(1, n_docs + 1))
        docs = rng.choice(n_docs, size=m, replace=False)
        if score_kind == "ties":
            s = rng.integers(0, 3, size=m).astype(np.float64)
        elif score_kind == "signed zero":
            s = rng.choice([-0.0, 0.0, 1.0], size=m)
        else:
            s = rng.normal(size=m)
        name = f"q{q}" if q_kind == "text" else 1000 - 7 * q
        qid += [name] * m
        docno += [DOC_KINDS[doc_kind](int(d)) for d in docs]
        score += s.tolist()
    qid, docno, score = np.array(qid), np.array(docno), np.array(score)
    if layout == "ranked":  # each query's lines by score descending, as run files come
        o = np.lexsort((-score, qid))
    elif layout == "shuffled":
        o = rng.permutation(qid.shape[0])
    elif layout == "split":  # a query's lines in two stretches
        o = np.argsort(np.arange(qid.shape[0]) % 2, kind="stable")
    else:
        o = np.arange(qid.shape[0])
    return qid[o], docno[o], score[o]


@settings(max_examples=150, deadline=None)
@given(st.integers(0, 2**31), st.integers(1, 12), st.integers(1, 30),
       st.sampled_from(sorted(DOC_KINDS)), st.sampled_from(["text", "integer"]),
       st.sampled_from(["ranked", "given", "shuffled", "split"]),
       st.sampled_from(["ties", "signed zero", "floats"]))
def test_ranked_order_equals_sorting_the_strings(seed, n_q, n_docs, doc_kind, q_kind, layout,
                                                 score_kind):
    qid, docno, score = _run(seed, n_q, n_docs, doc_kind, q_kind, layout, score_kind)
    np.testing.assert_array_equal(ranked_order(qid, docno, score),
                                  reference_order(qid, docno, score))


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**31), st.sampled_from(sorted(DOC_KINDS)),
       st.sampled_from(["ranked", "shuffled"]), st.booleans())
def test_ranked_order_ties_by_three_keys(seed, doc_kind, layout, repeat):
    # The sort by three keys that stands in when the packed keys do not fit.
    from sk_rankmetrics._inputs import preranked

    qid, docno, score = _run(seed, 6, 20, doc_kind, "text", layout, "ties")
    if repeat:  # a line given twice: the later one first
        qid, docno, score = (np.append(a, a[:3]) for a in (qid, docno, score))
    old = preranked._TIE_KEY_BITS
    preranked._TIE_KEY_BITS = 0
    try:
        got = ranked_order(qid, docno, score)
    finally:
        preranked._TIE_KEY_BITS = old
    np.testing.assert_array_equal(got, reference_order(qid, docno, score))
    np.testing.assert_array_equal(ranked_order(qid, docno, score), got)


def test_ranked_order_repeated_lines_later_first():
    # The same (query, docno, score) twice: the later line first, as before.
    qid = np.array(["q", "q", "q", "p"])
    docno = np.array(["a", "b", "a", "a"])
    score = np.array([1.0, 1.0, 1.0, 0.0])
    np.testing.assert_array_equal(ranked_order(qid, docno, score), [3, 1, 2, 0])
    np.testing.assert_array_equal(ranked_order(qid, docno, score),
                                  reference_order(qid, docno, score))
    # Shuffled (the sort by score path), repeats of a line among ties.
    rng = np.random.default_rng(0)
    qid = rng.choice(["a", "b"], size=200)
    docno = rng.choice(["x", "y", "z"], size=200)
    score = rng.integers(0, 2, size=200).astype(float)
    np.testing.assert_array_equal(ranked_order(qid, docno, score),
                                  reference_order(qid, docno, score))


@pytest.mark.parametrize("layout", ["ranked", "shuffled"])
def test_evaluate_run_from_arrays_equals_from_its_file(tmp_path, layout):
    # The array path (ranked_order) and the file path (the columns) agree on a
    # run with tied scores, whatever the order of its lines.
    qid, docno, score = _run(7, 40, 60, "short", "text", layout, "ties")
    rng = np.random.default_rng(3)
    pick = rng.random(qid.shape[0]) < 0.3
    qrels = skr.TrecQrels(qid[pick], docno[pick], rng.integers(1, 3, pick.sum()).astype(float))
    run = skr.TrecRun(qid, docno, score)
    path = tmp_path / "run.txt"
    skr.write_trec_run(path, run)
    metrics = ["ndcg@5", "P@3", "map", "recip_rank"]
    # A query that no pick judged (which ones depends on NumPy's random
    # streams) is left out by both paths, with the same warning.
    with warnings.catch_warnings(record=True) as got_warned:
        warnings.simplefilter("always")
        got = skr.evaluate_run(qrels, run, metrics)
    with warnings.catch_warnings(record=True) as want_warned:
        warnings.simplefilter("always")
        want = skr.evaluate_run(qrels, skr.read_run(path), metrics)
    said = [str(w.message) for w in got_warned]
    assert said == [str(w.message) for w in want_warned]
    assert all("have no judgements" in m for m in said), said
    assert list(got.query_ids) == list(want.query_ids)
    for m in metrics:
        np.testing.assert_allclose(got.per_query[m], want.per_query[m], rtol=0, atol=1e-12)


def test_group_long_by_score_keeps_each_querys_ranking():
    qid = np.array(["b", "a", "b", "a", "b"])
    docno = np.array(["x", "y", "z", "x", "y"])
    score = np.array([1.0, 2.0, 1.0, 3.0, 5.0])
    ids, lens, items, scores = group_long(qid, docno, score, order="score")
    assert ids.tolist() == ["a", "b"] and lens.tolist() == [2, 3]
    assert items.tolist() == ["x", "y", "y", "z", "x"]
    assert scores.tolist() == [3.0, 2.0, 5.0, 1.0, 1.0]
