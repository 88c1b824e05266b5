"""Runs and qrels as benchmark code holds them (dicts of dicts, ir_datasets-style
named tuples), EvaluationResult.to_dict, and the ranked-input policies
(ignore_identical_ids, duplicates)."""

from __future__ import annotations

import warnings
from collections import namedtuple

import numpy as np
import pytest

from sk_rankmetrics import (
    InvalidParameterError,
    compare,
    evaluate_run,
    read_qrels,
    read_run,
    write_trec_run,
)

# ir_datasets' field names (no ir_datasets import: the package duck-types them).
TrecQrel = namedtuple("TrecQrel", "query_id doc_id relevance iteration")
GenericScoredDoc = namedtuple("GenericScoredDoc", "query_id doc_id score")

METRICS = ["ndcg_cut_10", "map", "recip_rank", "P_5", "recall_10", "bpref"]


def random_data(seed, n_q=12, n_docs=30):
    rng = np.random.default_rng(seed)
    qrels, run = {}, {}
    for q in range(n_q):
        docs = [f"d{i}" for i in rng.choice(n_docs, size=12, replace=False)]
        qrels[f"q{q}"] = {d: int(rng.integers(0, 3)) for d in docs[:6]}
        # Scores with ties (rounded).
        run[f"q{q}"] = {f"d{i}": float(np.round(rng.random(), 1))
                        for i in rng.choice(n_docs, size=10, replace=False)}
    return qrels, run


def write_files(tmp_path, qrels, run):
    qp, rp = tmp_path / "qrels.txt", tmp_path / "run.txt"
    qp.write_text("".join(f"{q} 0 {d} {v}\n" for q, dd in qrels.items() for d, v in dd.items()))
    write_trec_run(rp, ([q for q, dd in run.items() for _ in dd],
                        [d for dd in run.values() for d in dd],
                        [s for dd in run.values() for s in dd.values()]))
    return qp, rp


@pytest.mark.parametrize("setting", ["sk_rankmetrics", "trec_eval"])
@pytest.mark.parametrize("seed", [0, 1])
def test_dicts_and_tuples_equal_files(tmp_path, seed, setting):
    qrels, run = random_data(seed)
    qp, rp = write_files(tmp_path, qrels, run)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        want = evaluate_run(qp, rp, METRICS, setting=setting)
        got_dict = evaluate_run(qrels, run, METRICS, setting=setting)
        got_tuples = evaluate_run(
            (TrecQrel(q, d, v, "0") for q, dd in qrels.items() for d, v in dd.items()),
            [GenericScoredDoc(q, d, s) for q, dd in run.items() for d, s in dd.items()],
            METRICS, setting=setting)
    for got in (got_dict, got_tuples):
        assert got.query_ids.tolist() == want.query_ids.tolist()
        for m in METRICS:
            np.testing.assert_allclose(got.per_query[m], want.per_query[m], rtol=0, atol=1e-12)


def test_int_keys_are_their_text():
    qrels = {1: {10: 1, 11: 0}, 2: {20: 2}}
    run = {"1": {"10": 0.1, "11": 0.9}, 2: {20: 0.5, "21": 0.7}}
    a = evaluate_run(qrels, run, ["ndcg", "recip_rank"])
    b = evaluate_run({"1": {"10": 1, "11": 0}, "2": {"20": 2}},
                     {"1": {"10": 0.1, "11": 0.9}, "2": {"20": 0.5, "21": 0.7}},
                     ["ndcg", "recip_rank"])
    assert a.to_dict() == b.to_dict()
    assert a.query_ids.tolist() == ["1", "2"]


def test_an_id_longer_than_the_sampled_ones_is_kept_whole():
    # 10,000 short document ids and one long one between the sampled keys:
    # the array is made at the sampled width first, and must not cut it.
    n = 10_001
    docs = [f"d{i}" for i in range(n)]
    long = "a-much-longer-document-id-" + "x" * 40
    docs[5_001] = long
    qrels = {"q": {long: 1, "d0": 0}, "q-" + "y" * 60: {"d1": 1}}
    run = {"q": {d: float(n - i) for i, d in enumerate(docs)}, "q-" + "y" * 60: {"d1": 1.0}}
    got = evaluate_run(qrels, run, ["recip_rank"])
    want = {"q": 1 / 5_002, "q-" + "y" * 60: 1.0}
    assert sorted(got.query_ids.tolist()) == sorted(want)
    for q, v in zip(got.query_ids.tolist(), got.per_query["recip_rank"]):
        assert v == pytest.approx(want[q], rel=1e-12)
    with pytest.raises(InvalidParameterError, match="an id is the empty string"):
        evaluate_run(qrels, {"q": {"d1": 1.0, "": 0.5}}, ["map"])


def test_a_run_from_dicts_skips_the_repeat_search_only_while_its_ids_stand():
    from sk_rankmetrics._files.pairs import distinct_pairs, run_from_pairs

    run = run_from_pairs({"q": {"a": 1.0, "b": 0.5}, "r": {"a": 0.3}})
    assert distinct_pairs(run)
    # Named tuples may repeat a pair: known distinct once checked (raise), not
    # when repeats are kept for duplicates='first' to drop.
    tuples = [GenericScoredDoc("q", "a", 1.0), GenericScoredDoc("q", "b", 0.5)]
    assert distinct_pairs(run_from_pairs(tuples))
    assert not distinct_pairs(run_from_pairs(tuples, duplicates="first"))
    run.docno = np.array(["a", "a", "a"])  # ids replaced: repeats possible again
    assert not distinct_pairs(run)
    with pytest.raises(ValueError, match="holds item 'a' twice"):
        evaluate_run({"q": {"a": 1}, "r": {"a": 1}}, run, ["map"])


def test_mixed_key_given_twice_is_refused():
    with pytest.raises(InvalidParameterError, match="query '7' is a key twice"):
        evaluate_run({7: {"a": 1}, "7": {"b": 1}}, {"7": {"a": 1.0}}, ["map"])
    with pytest.raises(ValueError, match="duplicate document '3' for query 'q'"):
        evaluate_run({"q": {"3": 1}}, {"q": {3: 1.0, "3": 0.5}}, ["map"])


@pytest.mark.parametrize("bad, message", [
    ({"q1": [1, 2]}, "query 'q1' maps to a list; a dict qrels maps each query id to a dict"),
    ({1.5: {"a": 1}}, "the id 1.5 is a float; ids must be strings or integers"),
    ({None: {"a": 1}}, "the id None is a NoneType"),
    ({"q1": {"a": "high"}}, "every relevance must be a number"),
    ({"q1": {"a": float("inf")}}, "relevance of document 'a' for query 'q1' is inf"),
    ({"q1": {}}, "hold no judgement"),
    ({"q1": {"": 1}}, "an id is the empty string"),
])
def test_bad_dict_qrels(bad, message):
    with pytest.raises(ValueError, match=message):
        evaluate_run(bad, {"q1": {"a": 1.0}}, ["map"])


def test_bad_tuples():
    Wrong = namedtuple("Wrong", "query_id doc_id grade")
    with pytest.raises(InvalidParameterError, match="none of them the relevance"):
        evaluate_run([Wrong("q", "a", 1)], {"q": {"a": 1.0}}, ["map"])
    with pytest.raises(ValueError, match=r"entry 2: duplicate document 'a' for query 'q' "
                                         r"\(first at entry 0\)"):
        evaluate_run({"q": {"a": 1}}, [GenericScoredDoc("q", "a", 1.0),
                                      GenericScoredDoc("q", "b", 0.5),
                                      GenericScoredDoc("q", "a", 0.2)], ["map"])
    with pytest.raises(InvalidParameterError, match=r"a dict \{qid: \{docid: score\}\} or named"):
        evaluate_run({"q": {"a": 1}}, [("q", "a", 1.0)], ["map"])


def test_empty_inner_run_dict_is_an_absent_query():
    qrels = {"q1": {"a": 1}, "q2": {"b": 1}}
    with pytest.warns(UserWarning, match=r"1 of 2 judged queries are not in the ranking \(.q2.\)"):
        res = evaluate_run(qrels, {"q1": {"a": 1.0}, "q2": {}}, ["recip_rank"])
    assert res.to_dict() == {"q1": {"recip_rank": 1.0}}
    res = evaluate_run(qrels, {"q1": {"a": 1.0}, "q2": {}}, ["recip_rank"], complete=True)
    assert res.to_dict() == {"q1": {"recip_rank": 1.0}, "q2": {"recip_rank": 0.0}}


def test_to_dict_is_pytrec_evals_shape():
    pytrec_eval = pytest.importorskip("pytrec_eval")
    qrels, run = random_data(3)
    measures = {"ndcg_cut.1,3,5,10", "map_cut.10", "recall.10", "P.10", "recip_rank"}
    want = pytrec_eval.RelevanceEvaluator(qrels, measures).evaluate(run)
    got = evaluate_run(qrels, run, sorted(measures), setting="trec_eval").to_dict()
    assert set(got) == set(want)
    for q in want:
        assert set(got[q]) == set(want[q])
        for m in want[q]:
            assert got[q][m] == pytest.approx(want[q][m], abs=1e-12), (q, m)


def beir_evaluate(qrels, results, k_values, scores):
    """BEIR's EvaluateRetrieval.evaluate after pytrec_eval: the averages it prints."""
    out = {}
    for name, measure in (("NDCG", "ndcg_cut"), ("MAP", "map_cut"), ("Recall", "recall"),
                          ("P", "P")):
        for k in k_values:
            out[f"{name}@{k}"] = round(
                sum(s[f"{measure}_{k}"] for s in scores.values()) / len(scores), 5)
    return out


def test_beir_recipe_equals_pytrec_eval():
    pytrec_eval = pytest.importorskip("pytrec_eval")
    qrels, results = random_data(4, n_q=30)
    k_values = [1, 3, 5, 10]
    ks = ",".join(map(str, k_values))
    measures = {f"map_cut.{ks}", f"ndcg_cut.{ks}", f"recall.{ks}", f"P.{ks}"}
    want = beir_evaluate(qrels, results, k_values,
                         pytrec_eval.RelevanceEvaluator(qrels, measures).evaluate(results))
    # The one line that replaces the evaluator:
    scores = evaluate_run(qrels, results, sorted(measures), setting="trec_eval").to_dict()
    assert beir_evaluate(qrels, results, k_values, scores) == want


def test_compare_reads_per_query_dicts():
    qrels, run = random_data(5)
    _, other = random_data(6)
    a = evaluate_run(qrels, run, ["ndcg", "map"])
    b = evaluate_run(qrels, {q: other[q] for q in run}, ["ndcg", "map"])
    want = compare({"a": a, "b": b}, random_state=0).to_frame()
    got = compare({"a": a.to_dict(), "b": b.to_dict()}, random_state=0).to_frame()
    assert got.equals(want)
    with pytest.raises(ValueError, match="every query needs the same metrics"):
        compare({"a": {"q1": {"ndcg": 1.0}, "q2": {"map": 0.5}}, "b": b.to_dict()})


def test_reads_files_then_dicts_same(tmp_path):
    qrels, run = random_data(7)
    qp, rp = write_files(tmp_path, qrels, run)
    q, r = read_qrels(qp), read_run(rp)
    assert sorted(zip(q.qid.tolist(), q.docno.tolist())) == sorted(
        (a, b) for a, dd in qrels.items() for b in dd)
    assert len(r) == sum(map(len, run.values()))


@pytest.mark.slow
def test_dask_reads_dicts():
    pytest.importorskip("dask.dataframe")
    import dask.dataframe as dd
    import pandas as pd

    qrels, run = random_data(8)
    frame = pd.DataFrame([(q, d, s) for q, ds in run.items() for d, s in ds.items()],
                         columns=["qid", "docno", "score"])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        want = evaluate_run(qrels, run, ["ndcg", "map"])
        got = evaluate_run(qrels, dd.from_pandas(frame, npartitions=2), ["ndcg", "map"])
        got_tuples = evaluate_run(
            [TrecQrel(q, d, v, "0") for q, ds in qrels.items() for d, v in ds.items()],
            dd.from_pandas(frame, npartitions=2), ["ndcg", "map"])
    for g in (got, got_tuples):
        for m in ("ndcg", "map"):
            assert g[m] == pytest.approx(want[m], abs=1e-12)
