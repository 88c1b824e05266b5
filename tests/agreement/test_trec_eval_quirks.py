"""trec_eval 10's deterministic quirks: the command prints them byte for byte,
evaluate_run(setting="trec_eval") keeps the intended values (docs/which_ndcg.md,
"trec_eval's quirks"). Reference outputs: tests/data/trec_eval10/README.md."""

import io
from contextlib import redirect_stderr, redirect_stdout

import numpy as np
import pytest
from conftest import DATA as TEST_DATA

from sk_rankmetrics import evaluate_run

DATA = TEST_DATA / "trec_eval10"

QUIRKS = [  # (case, flags of the command, evaluate_run's arguments)
    ("quirkJ", ["-J"], {"judged_only": True}),
    ("quirkl0", ["-l", "0"], {"threshold": 0}),
    ("quirkc", ["-c", "-m", "utility.1,-1,0,0", "-m", "rbp_resid.p=0.5", "-m", "relstring.3"],
     {"complete": True}),
]


def cli(*args):
    from sk_rankmetrics._cli import main

    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        code = main([str(a) for a in args])
    return code, out.getvalue(), err.getvalue()


def lines(case):
    return [line.split("\t") for line in (DATA / f"out.{case}").read_text().splitlines()]


@pytest.mark.parametrize(("case", "flags", "kwargs"), QUIRKS, ids=[q[0] for q in QUIRKS])
def test_command_prints_trec_eval_10s_quirks_byte_for_byte(case, flags, kwargs):
    code, out, _ = cli("trec_eval", "-q", "-m", "all_trec", *flags,
                       DATA / f"qrels.{case}", DATA / f"run.{case}")
    assert code == 0
    assert out == (DATA / f"out.{case}").read_text()


def test_reference_outputs_hold_the_quirks():
    """The files show what docs/which_ndcg.md says they show."""
    j = {(n.strip(), q): v for n, q, v in lines("quirkJ")}
    assert j[("11pt_avg", "2")] == j[("11pt_avg", "all")] == "  -nan"
    assert j[("iprec_at_recall_0.00", "all")] == "  -nan"
    assert j[("iprec_at_recall_0.50", "2")] == "0.0000"  # lround(0.5 * 1) = 1: no 0 / 0
    l0 = {(n.strip(), q): v for n, q, v in lines("quirkl0")}
    assert l0[("Rndcg", "2")] == l0[("Rndcg", "all")] == "  -nan"
    c = {(n.strip(), q): v for n, q, v in lines("quirkc")}
    assert c[("utility_1,-1,0,0", "2")] == "-1.0000"
    assert c[("rbp_resid_p=0.5", "2")] == "1.0000"
    assert c[("relstring_3", "2")] == "'-'"
    lm1 = {(n.strip(), q): v for n, q, v in lines("quirklm1")}
    assert lm1[("map", "all")] == "1.5000"


@pytest.mark.parametrize(("case", "flags", "kwargs"), QUIRKS, ids=[q[0] for q in QUIRKS])
def test_trec_eval_setting_keeps_the_intended_values(case, flags, kwargs):
    """One rule: evaluate_run(setting="trec_eval") gives trec_eval's values where they
    follow its measures' definitions, the intended value where trec_eval prints an
    artefact (0 / 0, its stand-in document for a missing query)."""
    metrics = ["all_trec", *(f for f in flags if f.startswith(("utility.", "rbp_resid.")))]
    res = evaluate_run(DATA / f"qrels.{case}", DATA / f"run.{case}", metrics,
                       setting="trec_eval", **kwargs)
    qids = res.query_ids.astype(str).tolist()
    for name, values in res.per_query.items():
        assert np.isfinite(values).all(), name
        assert np.isfinite(res[name]), name
    i = qids.index("2")
    if case == "quirkJ":  # nothing judged retrieved: nothing found
        assert res.per_query["11pt_avg"][i] == 0.0
        assert res.per_query["iprec_at_recall_0.00"][i] == 0.0
    elif case == "quirkl0":  # no gain to find: 0, as for a query without relevant documents
        assert res.per_query["Rndcg"][i] == 0.0
    else:  # the missing query retrieved nothing
        assert res.per_query["utility_1,-1,0,0"][i] == 0.0


def test_command_refuses_a_negative_relevance_level():
    code, out, err = cli("trec_eval", "-q", "-l", "-1", "-m", "map",
                         DATA / "qrels.quirklm1", DATA / "run.quirklm1")
    assert code == 2
    assert out == ""
    assert "-l -1: a relevance level below 0 is not reproduced" in err


def test_command_reads_the_level_as_an_integer():
    """trec_eval reads -l with atol: -l 0.7 is -l 0."""
    args = ["-q", "-m", "P.5", "-m", "num_rel", DATA / "qrels.ties", DATA / "run.ties"]
    assert cli("trec_eval", "-l", "0.7", *args)[1] == cli("trec_eval", "-l", "0", *args)[1]
    assert cli("trec_eval", "-l", "0.7", *args)[1] != cli("trec_eval", "-l", "1", *args)[1]
