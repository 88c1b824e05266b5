"""trec_eval's syntax and levels mean the same from Python and from the command.

Reference outputs are trec_eval 10.0's (tests/data/trec_eval10/README.md).
"""

import io
import warnings
from contextlib import redirect_stderr, redirect_stdout

import numpy as np
import pytest
from conftest import DATA as TEST_DATA

from sk_rankmetrics import InvalidParameterError, evaluate_run
from sk_rankmetrics._cli import main

DATA = TEST_DATA / "trec_eval10"


def cli(*args):
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        code = main([str(a) for a in args])
    return code, out.getvalue(), err.getvalue()


def reference(name):
    """{(printed name, qid): printed value} of a trec_eval output file."""
    rows = (line.split("\t") for line in (DATA / name).read_text().splitlines())
    return {(n.strip(), q): v.strip() for n, q, v in rows}


GAIN_SPECS = ["ndcg.1=3,2=9", "G.1=3,2=9", "ndcg_rel.1=3,2=9", "Rndcg.1=3,2=9"]


@pytest.mark.parametrize("spec", GAIN_SPECS)
def test_gain_syntax_from_python_equals_trec_eval(spec):
    """Levels 3 and 4 have no listed gain: they keep their level, as trec_eval's."""
    want = reference("out.gains")
    res = evaluate_run(DATA / "qrels.gains", DATA / "run.gains", [spec], setting="trec_eval")
    printed = spec.replace(".", "_", 1)
    assert list(res.per_query) == [printed]
    for i, q in enumerate(res.query_ids.astype(str).tolist()):
        assert f"{res.per_query[printed][i]:6.4f}" == want[(printed, q)]
    assert f"{res[printed]:6.4f}" == want[(printed, "all")]


def test_gain_syntax_command_prints_trec_eval_bytes():
    flags = [a for s in GAIN_SPECS for a in ("-m", s)]
    code, out, _ = cli("trec_eval", "-q", *flags, DATA / "qrels.gains", DATA / "run.gains")
    assert code == 0
    assert out == (DATA / "out.gains").read_text()


def test_python_and_command_value_agree_on_ndcg_gains():
    res = evaluate_run(DATA / "qrels.gains", DATA / "run.gains", ["ndcg.1=3,2=9"],
                       setting="trec_eval")
    _, out, _ = cli("trec_eval", "-m", "ndcg.1=3,2=9", DATA / "qrels.gains",
                    DATA / "run.gains")
    assert out.split("\t")[-1].strip() == f"{res['ndcg_1=3,2=9']:6.4f}" == "0.7805"


@pytest.mark.parametrize("measure_set", ["all_trec", "official"])
def test_sets_give_the_same_names_from_python_and_the_command(measure_set):
    res = evaluate_run(DATA / "qrels.ties", DATA / "run.ties", [measure_set],
                       setting="trec_eval")
    _, out, _ = cli("trec_eval", "-q", "-m", measure_set, DATA / "qrels.ties",
                    DATA / "run.ties")
    rows = [line.split("\t") for line in out.splitlines()]
    summary = [n.strip() for n, q, _ in rows if q == "all"]  # trec_eval's order
    printed = {n.strip() for n, *_ in rows}
    assert "num_q" in res.per_query
    # runid and relstring are text: the command prints them, evaluate_run refuses them.
    assert list(res.per_query) == [n for n in summary if n != "runid"]
    assert set(res.per_query) == printed - {"runid", "relstring"}
    assert "runid" in printed
    assert res["num_q"] == len(res.query_ids) == 12


@pytest.mark.parametrize("name", ["runid", "relstring", "relstring.5"])
def test_text_measures_are_refused_from_python_naming_the_command(name):
    with pytest.raises(InvalidParameterError, match="sk-rankmetrics trec_eval"):
        evaluate_run(DATA / "qrels.ties", DATA / "run.ties", [name], setting="trec_eval")


def test_levels_truncated_toward_zero_under_trec_eval_setting():
    """qrels 1.7, 2.9, 0.5 are levels 1, 2, 0 for trec_eval (atol)."""
    with pytest.warns(UserWarning, match=r"qrels\.frac'?, line 1: relevance 1\.7") as rec:
        res = evaluate_run(DATA / "qrels.frac", DATA / "run.frac", ["map", "P_1", "ndcg"],
                           setting="trec_eval")
    assert len([w for w in rec if "not an integer" in str(w.message)]) == 1
    want = reference("out.frac")
    for name in ("map", "P_1", "ndcg"):
        assert f"{res[name]:6.4f}" == want[(name, "all")]
    assert [want[(n, "all")] for n in ("map", "P_1", "ndcg")] == ["0.5833", "0.0000", "0.6199"]


def test_default_setting_keeps_real_valued_levels():
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no truncation warning
        res = evaluate_run(DATA / "qrels.frac", DATA / "run.frac", ["map", "P_1", "ndcg"])
    assert res["P_1"] == 1.0  # d3 at 0.5 is relevant
    assert res["map"] == 1.0
    assert res["ndcg"] == pytest.approx(0.7158, abs=5e-5)


def test_command_truncates_levels_with_one_warning():
    code, out, err = cli("trec_eval", "-q", "-m", "map", "-m", "P.1", "-m", "ndcg",
                         DATA / "qrels.frac", DATA / "run.frac")
    assert code == 0
    assert out == (DATA / "out.frac").read_text()
    assert err.count("not an integer") == 1
    assert "qrels.frac', line 1" in err


def test_truncation_warning_names_the_first_non_integer_line(tmp_path):
    qrels = tmp_path / "qrels.txt"
    qrels.write_text("# judged\n1 0 a 1\n1 0 b -1.5\n1 0 c 2.5\n")
    run = tmp_path / "run.txt"
    run.write_text("1 Q0 a 1 2 r\n1 Q0 c 2 1 r\n")
    with pytest.warns(UserWarning, match=r"line 3: relevance -1\.5") as rec:
        res = evaluate_run(qrels, run, ["num_rel", "P_1"], setting="trec_eval")
    assert len([w for w in rec if "not an integer" in str(w.message)]) == 1
    assert res["num_rel"] == 2  # a (1) and c (2.5 -> 2); b (-1.5 -> -1) is not relevant
    assert res["P_1"] == 1.0


@pytest.mark.parametrize("setting", ["sk_rankmetrics", "trec_eval"])
def test_ir_measures_rbp_keeps_its_meaning_under_both_settings(setting):
    """ir_measures' RBP (cwl_eval): binary at level >= rel, p=0.8 unless given."""
    res = evaluate_run(DATA / "qrels.gains", DATA / "run.gains",
                       ["RBP(rel=2,p=0.5)", "RBP(rel=1)", "rbp"], setting=setting)
    # query 1 ranks levels 3, 1, 2, unjudged, 4; query 2 ranks 1, 2
    np.testing.assert_allclose(res.per_query["RBP(rel=2,p=0.5)"],
                               [0.5 * (1 + 0.5**2 + 0.5**4), 0.5 * 0.5])
    np.testing.assert_allclose(res.per_query["RBP(rel=1)"],
                               [0.2 * (1 + 0.8 + 0.8**2 + 0.8**4), 0.2 * (1 + 0.8)])
    if setting == "trec_eval":  # trec_eval's own name keeps trec_eval's p=0.9 and gains
        assert res["rbp"] != pytest.approx(res["RBP(rel=1)"])
