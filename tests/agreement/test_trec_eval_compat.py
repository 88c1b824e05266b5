"""The trec_eval setting against trec_eval's own outputs, and other tools' examples.

Reference files live in tests/data (see its README.md): trec_eval's test
inputs and outputs, the ranx README example and the ir_measures cwl example.
Every measure this package supports is compared per query and for ``all``, to
the 4 decimals trec_eval prints.
"""

from __future__ import annotations

import re
import warnings

import numpy as np
import pytest
from conftest import DATA

from sk_rankmetrics import (
    TrecQrels,
    TrecRun,
    evaluate,
    evaluate_run,
    read_trec_qrels,
    read_trec_run,
)

TREC = DATA / "trec_eval"

#: trec_eval measures with an equivalent here (the name is passed as is).
MATCHED = re.compile(
    r"^(P_\d+|recall_\d+|success_\d+|map_cut_\d+|ndcg_cut_\d+|map|ndcg|recip_rank|Rprec)$"
)


def _expected(name):
    """``{(measure, qid): value}`` from a trec_eval output file."""
    out = {}
    for line in (TREC / name).read_text().splitlines():
        measure, qid, value = (f.strip() for f in line.split("\t"))
        out[(measure, qid)] = value
    return out


def _value(res, measure, qid):
    if qid == "all":
        return res.mean[measure]
    i = np.flatnonzero(res.query_ids == qid)
    assert i.size == 1, f"query {qid} missing from the result"
    return res.per_query[measure][i[0]]


CASES = [
    # output file, qrels, run, options (the trec_eval flags of the README)
    ("out.test.aq", "qrels.test", "results.test", {}),
    ("out.test.a", "qrels.test", "results.test", {}),
    ("out.test", "qrels.test", "results.test", {}),
    ("out.test.aqc", "qrels.test", "results.trunc", {"complete": True}),
    ("out.test.aqcM", "qrels.test", "results.trunc", {"complete": True, "max_docs": 100}),
    ("out.test.aql", "qrels.rel_level", "results.test", {"threshold": 2}),
    ("out.comment.test", "qrels.comment.test", "results.comment.test", {}),
]


@pytest.mark.parametrize(("out", "qrels", "run", "options"), CASES,
                         ids=[c[0] for c in CASES])
def test_matches_trec_eval(out, qrels, run, options):
    expected = _expected(out)
    measures = sorted({m for m, _ in expected if MATCHED.match(m)})
    assert len(measures) >= 9
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        res = evaluate_run(TREC / qrels, TREC / run, measures,
                           setting="trec_eval", **options)
    # The comment run ranks 301 topics, of which 31 are judged: said once.
    said = [str(w.message) for w in caught]
    if out == "out.comment.test":
        assert len(said) == 1, said
        assert said[0].startswith("270 of 301 queries of the ranking have no judgements (")
        assert said[0].endswith("...) and are left out.")
    else:
        assert not said, said
    n_checked = 0
    for (measure, qid), value in expected.items():
        if measure in measures:
            got = _value(res, measure, qid)
            assert abs(got - float(value)) <= 5e-5 + 1e-12, (out, measure, qid, value, got)
            n_checked += 1
    assert n_checked >= len(measures)
    if ("num_q", "all") in expected:  # the same queries are averaged
        assert len(res.query_ids) == int(expected[("num_q", "all")])


def test_num_rel_and_num_rel_ret():
    # cumulative gain with a 0/1 gain counts relevant documents retrieved.
    expected = _expected("out.test.aq")
    qrels = read_trec_qrels(TREC / "qrels.test")
    run = read_trec_run(TREC / "results.test")
    res = evaluate_run(qrels, run, ["cg", "recall"], setting="trec_eval")
    for qid in res.query_ids:
        num_rel = int(expected[("num_rel", qid)])
        num_rel_ret = int(expected[("num_rel_ret", qid)])
        assert _value(res, "cg", qid) == num_rel_ret  # binary qrels: gain = 1
        assert _value(res, "recall", qid) * num_rel == pytest.approx(num_rel_ret)


def test_measure_parameters_and_per_level_gains():
    # trec_eval -m P.5,7,3 -m recall.20,2000 -mndcg.1=3,2=9,4=4.5
    #           -mndcg_cut.10,20,23.4 -msuccess.2,5,20
    expected = _expected("out.test.meas_params")
    names = {"P_3": "P_3", "P_5": "P_5", "P_7": "P_7", "recall_20": "recall_20",
             "recall_2000": "recall_2000", "ndcg_1=3,2=9,4=4.5": "ndcg",
             "ndcg_cut_10": "ndcg_cut_10", "ndcg_cut_20": "ndcg_cut_20",
             "ndcg_cut_23": "ndcg_cut_23", "success_2": "success_2",
             "success_5": "success_5", "success_20": "success_20"}
    res = evaluate_run(TREC / "qrels.test", TREC / "results.test",
                       sorted(set(names.values())), setting="trec_eval",
                       gains={1: 3, 2: 9, 4: 4.5})
    n = 0
    for (measure, qid), value in expected.items():
        if measure in names:
            assert abs(_value(res, names[measure], qid) - float(value)) <= 5e-5, (measure, qid)
            n += 1
    assert n == 4 * len(names)


def test_per_level_gains_change_graded_ndcg():
    # On graded qrels the gain mapping matters: check it against the definition.
    qrels = TrecQrels(np.array(["q"] * 4), np.array(["a", "b", "c", "d"]),
                      np.array([1, 2, 4, -1]))
    run = TrecRun(np.array(["q"] * 3), np.array(["a", "b", "d"]), np.array([3.0, 2.0, 1.0]))
    gains = {1: 3, 2: 9, 4: 4.5}
    res = evaluate_run(qrels, run, ["ndcg", "ndcg@2"], setting="trec_eval", gains=gains)
    disc = 1 / np.log2(np.arange(2, 6))
    dcg = 3 * disc[0] + 9 * disc[1]  # d has level -1: gain 0
    ideal = 9 * disc[0] + 4.5 * disc[1] + 3 * disc[2]
    assert res["ndcg"] == pytest.approx(dcg / ideal)
    assert res["ndcg@2"] == pytest.approx(dcg / (9 * disc[0] + 4.5 * disc[1]))


def test_ties_broken_by_docno_descending():
    qrels = TrecQrels(np.array(["q", "q"]), np.array(["a", "b"]), np.array([1, 0]))
    run = TrecRun(np.array(["q", "q"]), np.array(["a", "b"]), np.array([1.0, 1.0]))
    trec = evaluate_run(qrels, run, ["recip_rank", "P_1"], setting="trec_eval")
    assert trec["recip_rank"] == 0.5 and trec["P_1"] == 0.0  # "b" ranks first
    ours = evaluate_run(qrels, run, ["mrr", "P@1"])  # tie averaged
    assert ours["mrr"] == pytest.approx(0.75) and ours["P@1"] == pytest.approx(0.5)


def test_default_setting_matches_long_format_when_all_judged_are_retrieved():
    # With every judged document retrieved, the run layout and the long format agree,
    # ties included (expected value over tie orderings).
    rng = np.random.default_rng(4)
    n_q, n_d = 20, 15
    qid = np.repeat([f"q{i:02d}" for i in range(n_q)], n_d)
    doc = np.tile([f"d{j}" for j in range(n_d)], n_q)
    rel = rng.integers(0, 3, size=qid.size).astype(float)
    score = rng.integers(0, 5, size=qid.size).astype(float)  # many ties
    metrics = ["ndcg@5", "ndcg", "map@5", "precision@3", "recall@4", "hit_rate@2", "mrr",
               "r_precision", "dcg@5"]
    res = evaluate_run(TrecQrels(qid, doc, rel), TrecRun(qid, doc, score), metrics,
                       no_relevant="skip")
    long = evaluate(rel, score, metrics, qid=qid, per_row=True, no_relevant="skip")
    for m in metrics:
        np.testing.assert_allclose(res.per_query[m], long[m], rtol=1e-12, equal_nan=True)


def test_ranx_readme_example():
    expected = {}
    for line in (DATA / "ranx" / "README_example_expected.tsv").read_text().splitlines():
        if line and not line.startswith("#"):
            metric, qid, value = line.split("\t")
            expected[(metric, qid)] = float(value)
    res = evaluate_run(DATA / "ranx" / "notebooks_small_qrels.trec",
                       DATA / "ranx" / "README_example_run.trec",
                       ["ndcg@5", "map@5", "mrr"], setting="trec_eval")
    for (metric, qid), value in expected.items():
        assert abs(_value(res, metric, qid) - value) <= 1e-4, (metric, qid)
    assert len(expected) == 9


def test_ir_measures_cwl_example():
    path = DATA / "ir_measures" / "cwl_expected_from_test_cwl_eval.tsv"
    rows = [line.split("\t") for line in path.read_text().splitlines()
            if line and not line.startswith("#")]
    names = {"AP": "map", "P@1": "P@1", "P@5": "P@5", "P@10": "P@10", "P@20": "P@20",
             "RR": "mrr"}
    res = evaluate_run(DATA / "ir_measures" / "cwl.qrels", DATA / "ir_measures" / "cwl.run",
                       sorted(set(names.values())), setting="trec_eval")
    n = 0
    for measure, *values in rows:
        if measure in names:
            for qid, value in zip(("T1", "T2", "T3"), values):
                assert abs(_value(res, names[measure], qid) - float(value)) <= 5e-5, \
                    (measure, qid)
                n += 1
    assert n == 18


def test_settings_rejected_and_empty_run():
    qrels = TrecQrels(np.array(["q"]), np.array(["a"]), np.array([1]))
    run = TrecRun(np.array(["q"]), np.array(["a"]), np.array([1.0]))
    with pytest.raises(ValueError, match="setting"):
        evaluate_run(qrels, run, ["map"], setting="trec")
    with pytest.raises(ValueError, match="empty"):
        evaluate_run(qrels, TrecRun(np.array([], str), np.array([], str), np.array([])),
                     ["map"])
    with pytest.raises(TypeError, match="qrels must be"):
        evaluate_run(42, run, ["map"])
    with pytest.raises(TypeError, match="run must be"):
        evaluate_run(qrels, 42, ["map"])
    with pytest.raises(ValueError, match="max_docs"):
        evaluate_run(qrels, run, ["map"], max_docs=0)
    with pytest.raises(TypeError, match="gains"):
        evaluate_run(qrels, run, ["ndcg"], gains=[1, 2])
    with pytest.raises(ValueError, match="no query"):
        evaluate_run(qrels, TrecRun(np.array(["x"]), np.array(["a"]), np.array([1.0])),
                     ["map"])
