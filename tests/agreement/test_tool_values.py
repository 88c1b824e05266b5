"""The measures beyond trec_eval against the values other tools state for them.

- ir_measures' tests: ERR@k and nDCG@k as its gdeval provider computes them
  (the TREC Web track's gdeval.pl: grades up to 4, exponential gain), Judged@k,
  and RBP, AP, P@k and RR on the cwl-eval example (tests/data/ir_measures).
- ranx's tests: bpref, RBP at three persistences, and F1 as the harmonic mean
  of its precision and recall.

Each expected value is the other tool's number, as its own tests state it.
"""

from __future__ import annotations

import numpy as np
import pytest
from conftest import DATA
from reference import RANX_QRELS, RANX_RUN

from sk_rankmetrics import TrecQrels, TrecRun, evaluate_ranked, evaluate_run

IRM = DATA / "ir_measures"


def _lines(text, n_fields):
    rows = [line.split() for line in text.strip().splitlines()]
    assert all(len(r) == n_fields for r in rows)
    return list(zip(*rows))


def _qrels(text):
    q, _, d, r = _lines(text, 4)
    return TrecQrels(np.array(q), np.array(d), np.array(r, dtype=float))


def _run(text):
    q, _, d, _, s, _ = _lines(text, 6)
    return TrecRun(np.array(q), np.array(d), np.array(s, dtype=float))


# The example of ir_measures' tests (test_gdeval.py, test_judged.py).
IRM_QRELS = _qrels("""
0 0 D0 0
0 0 D1 1
0 0 D2 1
0 0 D3 2
0 0 D4 0
1 0 D0 1
1 0 D3 2
1 0 D5 2
""")
IRM_RUN = _run("""
0 0 D0 1 0.8 run
0 0 D2 2 0.7 run
0 0 D1 3 0.3 run
0 0 D3 4 0.4 run
0 0 D4 5 0.1 run
1 0 D1 1 0.8 run
1 0 D3 2 0.7 run
1 0 D4 3 0.3 run
1 0 D2 4 0.4 run
""")


@pytest.mark.parametrize(("name", "per_query", "mean"), [
    ("ERR@20", [0.10175, 0.09375], 0.09775),
    ("ERR@2", [0.03125, 0.09375], 0.0625),
    ("nDCG(dcg='exp-log2')@20", [0.6201, 0.35099], 0.485545),
    ("nDCG(dcg='exp-log2')@2", [0.17377, 0.38685], 0.28031),
])
def test_gdeval_values_of_ir_measures(name, per_query, mean):
    """gdeval prints 5 decimals; its ERR reads grades up to 4 (max_grade=4)."""
    res = evaluate_run(IRM_QRELS, IRM_RUN, [name], no_relevant=0.0)
    assert res.query_ids.tolist() == ["0", "1"]
    np.testing.assert_allclose(res.per_query[name], per_query, atol=5e-6)
    assert res[name] == pytest.approx(mean, abs=5e-6)


@pytest.mark.parametrize(("name", "per_query"), [
    ("Judged", [1.0, 1 / 4]),
    ("Judged@1000", [1.0, 1 / 4]),
    ("Judged@10", [1.0, 1 / 4]),
    ("Judged@3", [1.0, 1 / 3]),
    ("Judged@1", [1.0, 0.0]),
])
def test_judged_values_of_ir_measures(name, per_query):
    """Judged@k divides by min(k, ranked): a query ranking 4 documents, 1 judged,
    has Judged@10 = 1/4."""
    res = evaluate_run(IRM_QRELS, IRM_RUN, [name])
    np.testing.assert_allclose(res.per_query[name], per_query, atol=1e-12)


def _cwl(name):
    return IRM / name


def test_cwl_eval_values_of_ir_measures():
    """AP, P@k, RR and RBP(p=0.9, rel=1) on the cwl-eval example (binary
    qrels, unjudged documents), 4 decimals."""
    expected = {}
    for line in _cwl("cwl_expected_from_test_cwl_eval.tsv").read_text().splitlines():
        if line.startswith("#"):
            continue
        name, *values = line.split("\t")
        expected[name] = [float(v) for v in values]
    names = ["AP", "P@1", "P@5", "P@10", "P@20", "RR", "RBP(p=0.9,rel=1)"]
    assert set(names) <= set(expected)
    res = evaluate_run(_cwl("cwl.qrels"), _cwl("cwl.run"), names, no_relevant=0.0)
    assert res.query_ids.tolist() == ["T1", "T2", "T3"]
    for name in names:
        np.testing.assert_allclose(res.per_query[name], expected[name], atol=5e-5,
                                   err_msg=name)


# ranx's tests (bpref_test.py, f1_test.py, rank_biased_precision_test.py), on
# tests/reference.py's RANX_QRELS and RANX_RUN.


def test_bpref_values_of_ranx():
    res = evaluate_ranked(RANX_RUN, RANX_QRELS, ["bpref"])
    want = [1 / 2 * (1 - 1 / 2),
            1 / 2 * ((1 - 1 / 2) + (1 - 1 / 2)),
            1 / 3 * ((1 - 1 / 3) + (1 - 1 / 3) + (1 - 2 / 3)),
            1 / 4 * ((1 - 1 / 4) + (1 - 2 / 4) + (1 - 2 / 4))]
    np.testing.assert_allclose(res.per_query["bpref"], want, rtol=1e-12)


def test_f1_of_ranx_is_the_harmonic_mean_of_precision_and_recall():
    res = evaluate_ranked(RANX_RUN, RANX_QRELS, ["f1", "precision", "recall"])
    p, r = res.per_query["precision"], res.per_query["recall"]
    np.testing.assert_allclose(res.per_query["f1"], 2 * p * r / (p + r), rtol=1e-12)
    for k in (1, 3, 5):
        at = evaluate_ranked(RANX_RUN, RANX_QRELS, ["f1", "precision", "recall"], k=k,
                             no_relevant=0.0)
        p, r = at.per_query[f"precision@{k}"], at.per_query[f"recall@{k}"]
        want = np.where(p + r > 0, 2 * p * r / np.where(p + r > 0, p + r, 1), 0.0)
        np.testing.assert_allclose(at.per_query[f"f1@{k}"], want, rtol=1e-12)


@pytest.mark.parametrize(("p", "value"), [(0.5, 0.7661), (0.8, 0.4526), (0.95, 0.1881)])
def test_rbp_values_of_ranx(p, value):
    """Relevant documents at ranks 1, 2, 6, 11 and 17 of 20."""
    run = {"q1": [f"d{i}" for i in range(1, 21)]}
    truth = {"q1": {"d1", "d2", "d6", "d11", "d17"}}
    res = evaluate_ranked(run, truth, [("rbp", {"p": p})])
    assert round(res["rbp"], 4) == value
