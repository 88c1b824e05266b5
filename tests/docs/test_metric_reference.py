"""The metric reference of the docs (docs/metrics.md and its extension
docs/_ext/metric_reference.py) and the claims of docs/which_ndcg.md.

- The generated measure table lists every registry entry, a new entry
  appears with no list to edit, and the tie column follows ``spec.ties``.
- Every example name of the names table gives, through the public entry
  points, the numbers of the metric, cut-off and options the page says it
  stands for.
- The numbers the pages quote for other tools: bpref of the worked example
  and interpolated precision against pytrec_eval (trec_eval 9) and
  ir_measures, pytrec_eval's per-query gm_map, ir_measures' providers of
  RBP, and what a sparse ``y_true`` means.
- The command line's help names measures that parse and points to the page.
"""

from __future__ import annotations

import dataclasses
import importlib.util
import math
import re
import subprocess
import sys

import numpy as np
import pytest
import scipy.sparse as sp
from conftest import ROOT
from reference import RANX_QRELS, RANX_RUN

from sk_rankmetrics import bpref_score, evaluate, evaluate_run
from sk_rankmetrics._files.trec_eval import MEASURES as TREC_MEASURES
from sk_rankmetrics._files.trec_eval import parse_measures
from sk_rankmetrics._metrics.names import IR_MEASURES, parse_name
from sk_rankmetrics._metrics.registry import METRICS, MetricSpec

pytest.importorskip("docutils")
pytest.importorskip("sphinx")  # the extension builds Sphinx cross-references


def _extension():
    path = ROOT / "docs" / "_ext" / "metric_reference.py"
    spec = importlib.util.spec_from_file_location("metric_reference", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


ext = _extension()


def _cells(table):
    """The text of each cell of a docutils table, row by row (header excluded)."""
    from docutils import nodes

    body = next(iter(table.findall(nodes.tbody)))
    return [[entry.astext() for entry in row.findall(nodes.entry)]
            for row in body.findall(nodes.row)]


# -- the measure table -------------------------------------------------------------


@pytest.mark.parametrize("part", ["names", "behaviour"])
def test_the_table_lists_every_registry_entry_once(part):
    rows = _cells(ext.measure_table(part))
    assert len(rows) == len(METRICS)
    first_words = [cells[0].split()[0] for cells in rows]
    assert first_words == list(METRICS)


def test_a_new_registry_entry_appears_with_no_list_to_edit(monkeypatch):
    base = METRICS["precision"]
    new = MetricSpec("my_precision", None, base.kernel, base.needs, base.options,
                     ties="refuse", aliases=("mine",), description="a test entry")
    monkeypatch.setitem(METRICS, "my_precision", new)
    names = _cells(ext.measure_table("names"))
    behaviour = _cells(ext.measure_table("behaviour"))
    assert names[-1][0].startswith("my_precision") and "mine" in names[-1][1]
    assert behaviour[-1][0].startswith("my_precision") and behaviour[-1][-1] == "refused"


def test_the_tie_column_reads_the_registry(monkeypatch):
    spec = METRICS["infap"]
    for rule, word in [("expected", "exact"), ("refuse", "refused")]:
        monkeypatch.setitem(METRICS, "infap", dataclasses.replace(spec, ties=rule))
        row = next(r for r in ext.measure_rows() if r["name"] == "infap")
        assert row["ties"] == word
        text = ext.metric_ties_role("metric-ties", "", "infap", 1, None)[0][0].astext()
        assert text.startswith("exact") == (rule == "expected")


def test_every_tool_name_of_the_parser_is_in_the_table():
    """Each ir_measures name and each supported trec_eval measure appears in the
    row of the metric the parser reads it as."""
    rows = {r["name"]: r for r in ext.measure_rows()}
    for name, (base, _) in IR_MEASURES.items():
        assert any(n.split("@")[0] == name for n in rows[base]["ir_measures"]), name
    for m in TREC_MEASURES.values():
        if m.metric is None:
            continue
        spec = parse_name(m.metric)[0]
        assert any(n == m.name or n.startswith(m.name + "_")
                   for n in rows[spec.name]["trec_eval"]), m.name
    assert "gm_map" in rows["map"]["trec_eval"] and "map_cut_k" in rows["map"]["trec_eval"]
    assert rows["num_q"]["trec_eval"] == ["num_q"]


def test_the_page_uses_the_extension():
    page = (ROOT / "docs" / "metrics.md").read_text(encoding="utf-8")
    assert "```{metric-table}\n:part: names" in page
    assert "```{metric-table}\n:part: behaviour" in page
    assert "```{metric-names}" in page
    conf = (ROOT / "docs" / "conf.py").read_text(encoding="utf-8")
    assert '"metric_reference"' in conf
    for role in re.findall(r"\{metric-ties\}`([^`]+)`", page):
        assert role in METRICS


# -- the names table ---------------------------------------------------------------------


def _data(seed=0, n_rows=30, n_items=9):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 3, (n_rows, n_items))
    y[:, 0] = 2  # every row has an item of each use (relevant at 1 and at 2)
    y[:, 1] = 1
    s = np.argsort(rng.random((n_rows, n_items)), axis=1).astype(float)  # no ties
    judged = rng.random((n_rows, n_items)) < 0.8
    judged[:, :2] = True
    return y, s, judged


def _pair(meaning):
    name = meaning["metric"] + ("" if meaning["k"] is None else f"@{meaning['k']}")
    return name, dict(meaning["options"])


def test_the_names_table_has_each_vocabulary():
    vocabularies = {r["vocabulary"] for r in ext.name_rows()}
    assert vocabularies == {"this package", "trec_eval, printed", "trec_eval, -m syntax",
                            "ir_measures"}
    rows = _cells(ext.names_table())
    assert len(rows) == sum(map(len, ext.EXAMPLE_NAMES.values()))


@pytest.mark.parametrize(
    "row", [r for r in ext.name_rows() if r["vocabulary"] != "trec_eval, -m syntax"],
    ids=lambda r: r["written"])
def test_each_name_gives_the_numbers_of_what_the_page_says(row):
    """A name and its meaning on the page (metric, cut-off, options) give the
    same per-row values on graded, partly judged, tie-free matrices."""
    y, s, judged = _data()
    (meaning,) = row["meanings"]
    got = evaluate(y, s, [row["written"]], judged=judged, per_row=True, no_relevant=0.0)
    want = evaluate(y, s, [_pair(meaning)], judged=judged, per_row=True, no_relevant=0.0)
    np.testing.assert_array_equal(got[row["written"]], want[_pair(meaning)[0]])
    got = evaluate(y, s, [row["written"]], judged=judged, no_relevant=0.0)
    want = evaluate(y, s, [_pair(meaning)], judged=judged, no_relevant=0.0)
    assert got[row["written"]] == want[_pair(meaning)[0]]
    spec = parse_name(row["written"])[0]
    assert spec.name == meaning["metric"]


@pytest.mark.parametrize(
    "row", [r for r in ext.name_rows() if r["vocabulary"] == "trec_eval, -m syntax"],
    ids=lambda r: r["written"])
def test_each_trec_eval_m_name_expands_as_the_page_says(row, tmp_path):
    y, s, judged = _data(n_rows=6)
    qrels, run = tmp_path / "qrels.txt", tmp_path / "run.txt"
    qrels.write_text("".join(f"q{i} 0 d{j} {y[i, j]}\n" for i in range(y.shape[0])
                             for j in range(y.shape[1]) if judged[i, j]))
    run.write_text("".join(f"q{i} Q0 d{j} 0 {s[i, j]} r\n" for i in range(y.shape[0])
                           for j in range(y.shape[1])))
    got = evaluate_run(qrels, run, [row["written"]], no_relevant=0.0)
    assert list(got.per_query) == [m["label"] for m in row["meanings"]]
    for meaning in row["meanings"]:
        want = evaluate_run(qrels, run, [_pair(meaning)], no_relevant=0.0)
        np.testing.assert_array_equal(got.per_query[meaning["label"]],
                                      want.per_query[_pair(meaning)[0]])


# -- the claims of the pages about other tools ---------------------------------------------


def test_the_worked_bpref_example_is_trec_evals():
    """docs/metrics.md: bpref with a judged mask on the matrix of the example is
    pytrec_eval's bpref (trec_eval's code) of the same qrels and run."""
    pytrec_eval = pytest.importorskip("pytrec_eval")
    docs = [f"d{i}" for i in range(1, 10)]
    y = np.array([[RANX_QRELS[q].get(d, 0) for d in docs] for q in RANX_RUN])
    judged = np.array([[d in RANX_QRELS[q] for d in docs] for q in RANX_RUN])
    s = np.array([[10 - RANX_RUN[q].index(d) if d in RANX_RUN[q] else 0 for d in docs]
                  for q in RANX_RUN])
    run = {q: {d: float(10 - i) for i, d in enumerate(ds)} for q, ds in RANX_RUN.items()}
    ref = pytrec_eval.RelevanceEvaluator(RANX_QRELS, {"bpref"}).evaluate(run)
    want = [ref[q]["bpref"] for q in RANX_RUN]
    np.testing.assert_allclose(bpref_score(y, s, judged=judged, per_row=True), want,
                               rtol=1e-12)
    np.testing.assert_allclose(want, [0.25, 0.5, 5 / 9, 0.4375], rtol=1e-12)
    # Without the mask the unjudged documents count as judged non-relevant.
    assert not np.allclose(bpref_score(y, s, per_row=True), want)


def test_sparse_y_true_marks_nothing_unjudged():
    y = np.array([[1, 0, 1, 0, 0], [0, 1, 0, 0, 1]])
    s = np.array([[5, 4, 3, 2, 1], [5, 4, 3, 2, 1]])
    sparse = bpref_score(sp.csr_matrix(y), s, per_row=True)
    np.testing.assert_array_equal(sparse, bpref_score(y, s, per_row=True))
    masked = bpref_score(sp.csr_matrix(y), s, judged=y != 0, per_row=True)
    np.testing.assert_array_equal(masked, [1.0, 1.0])
    assert not np.array_equal(sparse, masked)


#: docs/which_ndcg.md's interpolated-precision example: relevant at ranks 1, 4, 5 of 6.
IPREC_QRELS = {"1": {"a": 1, "d": 1, "e": 1, "b": 0, "c": 0}}
IPREC_RUN = {"1": {"a": 6.0, "b": 5.0, "c": 4.0, "d": 3.0, "e": 2.0, "f": 1.0}}


def test_interpolated_precision_rounds_as_trec_eval_10_or_as_9_when_asked():
    pytrec_eval = pytest.importorskip("pytrec_eval")
    ref = pytrec_eval.RelevanceEvaluator(IPREC_QRELS, {"iprec_at_recall", "11pt_avg"})
    ref = ref.evaluate(IPREC_RUN)["1"]
    assert ref["iprec_at_recall_0.40"] == pytest.approx(0.6)
    assert ref["11pt_avg"] == pytest.approx(0.7455, abs=5e-5)
    y, s = [[1, 0, 0, 1, 1, 0]], [[6, 5, 4, 3, 2, 1]]
    v9 = {"recall_rounding": "plus_0.9"}
    got = evaluate(y, s, ["iprec_at_recall@0.4", "IPrec@0.4", "11pt_avg",
                          ("11_pt_avg", v9), ("iprec@0.4", v9)])
    assert got["iprec_at_recall@0.4"] == 1.0
    assert got["11pt_avg"] == pytest.approx(0.7818, abs=5e-5)
    # trec_eval 9's rule, which ir_measures' IPrec implies.
    assert got["IPrec@0.4"] == got["iprec@0.4"] == ref["iprec_at_recall_0.40"]
    assert got["11_pt_avg"] == pytest.approx(ref["11pt_avg"], abs=1e-12)
    # The two rules agree where the fractional part of x R is outside [0.1, 0.5).
    for level in (0.0, 0.1, 0.2, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0):
        got = evaluate(y, s, [f"iprec_at_recall@{level}"])[f"iprec_at_recall@{level}"]
        assert got == pytest.approx(ref[f"iprec_at_recall_{level:.2f}"], abs=1e-12)


@pytest.mark.parametrize("bad", ["x", "trec_eval_9", 0.9, None])
def test_recall_rounding_refuses_what_it_does_not_know(bad):
    with pytest.raises(ValueError, match=r"recall_rounding=.* is not accepted .*Accepted: "
                                         r"'lround', 'plus_0.9'"):
        evaluate([[1, 0]], [[1, 0]], [("11pt_avg", {"recall_rounding": bad})])
    with pytest.raises(ValueError, match=r"'ndcg' does not read the option\(s\) "
                                         r"recall_rounding"):
        evaluate([[1, 0]], [[1, 0]], [("ndcg", {"recall_rounding": "plus_0.9"})])


def test_ir_measures_iprec_is_trec_eval_9s():
    ir_measures = pytest.importorskip("ir_measures")
    value = ir_measures.calc_aggregate([ir_measures.IPrec @ 0.4], IPREC_QRELS, IPREC_RUN)
    assert list(value.values()) == [pytest.approx(0.6)]
    got = evaluate([[1, 0, 0, 1, 1, 0]], [[6, 5, 4, 3, 2, 1]], ["IPrec@0.4"])
    assert got["IPrec@0.4"] == pytest.approx(0.6, abs=1e-12)


def test_ir_measures_computes_rbp_only_with_rel():
    ir_measures = pytest.importorskip("ir_measures")
    pipeline = ir_measures.DefaultPipeline.providers

    def providers(measure):
        return [p.NAME for p in pipeline if p.supports(measure)]

    assert providers(ir_measures.RBP(p=0.8)) == []
    assert providers(ir_measures.RBP(p=0.8, rel=1)) == ["cwl_eval"]
    assert ir_measures.RBP.SUPPORTED_PARAMS["p"].default == 0.8


def test_pytrec_eval_gives_the_log_of_gm_map_per_query():
    pytrec_eval = pytest.importorskip("pytrec_eval")
    ref = pytrec_eval.RelevanceEvaluator(IPREC_QRELS, {"map", "gm_map"}).evaluate(IPREC_RUN)
    assert ref["1"]["gm_map"] == pytest.approx(math.log(ref["1"]["map"]), abs=1e-12)


def test_gm_map_floors_at_1e_5():
    y = [[1, 0, 1, 0], [0, 1, 0, 0], [0, 0, 0, 0]]
    s = [[4, 3, 2, 1]] * 3
    got = evaluate(y, s, ["map", "gm_map"], no_relevant=0.0)
    aps = [(1 + 2 / 3) / 2, 0.5, 1e-5]
    assert got["gm_map"] == pytest.approx(math.exp(np.mean(np.log(aps))), rel=1e-12)


# -- the command line's help -------------------------------------------------------------------


def _help(*command):
    env = {"PYTHONPATH": str(ROOT)}
    out = subprocess.run([sys.executable, "-m", "sk_rankmetrics", *command, "--help"],
                         capture_output=True, text=True, env=env, timeout=120, check=True)
    return " ".join(out.stdout.split())


@pytest.mark.slow
@pytest.mark.parametrize("command", ["evaluate", "compare"])
def test_the_metric_help_names_measures_that_parse(command):
    text = _help(command)
    assert f"any of the {len(METRICS)} measures" in text
    assert "docs/metrics.md" in text
    listed = text.split("measures:", 1)[1].split("Every name", 1)[0]
    # trec_eval's -m syntax, listed in its own parentheses, parses as the
    # trec_eval command's -m does.
    head, syntax = listed.split("and their -m syntax (", 1)
    syntax, tail = syntax.split(")", 1)
    specs = [part.strip() for part in re.split(r", (?=[A-Za-z])", syntax)]
    assert specs == ["P.5,10", "ndcg.1=3,2=9", "rbp.p=0.8", "official", "all_trec"]
    parse_measures(specs)
    listed = head + tail
    tokens = re.findall(r"[A-Za-z0-9_]+(?:\.[0-9]+)?(?:\([a-z]+=[^)]*\))?(?:@[0-9.]+)?",
                        listed)
    names = [n for n in tokens if n not in ("trec_eval", "s", "names", "and", "ir_measures")]
    assert {"err@20", "bpref", "iprec_at_recall@0.5", "P(rel=2)@5", "RBP(p=0.8,rel=1)",
            "iprec_at_recall_0.10", "infAP"} <= set(names)
    for name in names:
        parse_name(name)


@pytest.mark.slow
def test_the_trec_eval_help_names_measures_that_parse():
    text = _help("trec_eval")
    listed = text.split("repeatable:", 1)[1].split("(default", 1)[0]
    specs = [part.strip() for part in listed.split(", ") if part.strip()]
    assert len(specs) > 10
    parse_measures(specs)
    assert "docs/metrics.md" in text
