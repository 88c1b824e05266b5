"""ir_measures' names give ir_measures' numbers where its parameters mean
something other than the package's option of the same name.

Expected values computed with ir_measures 0.4.3 (``ir_measures.calc_aggregate``)
on the files below.
"""

from __future__ import annotations

import re

import numpy as np
import pytest

from sk_rankmetrics import TrecQrels, TrecRun, evaluate_run
from sk_rankmetrics._utils.errors import InvalidParameterError

QRELS = "1 0 a 2\n1 0 b 1\n1 0 c 0\n1 0 d 1\n1 0 e 1\n"
RUN = "1 Q0 b 1 3 r\n1 Q0 x 2 2 r\n1 Q0 a 3 1 r\n"

#: ir_measures 0.4.3's values on QRELS and RUN.
IR_MEASURES = {
    "NumRet": 3.0,
    "NumRet(rel=1)": 2.0,  # ir_measures: NumRelRet = NumRet(rel=1)
    "NumRet(rel=2)": 1.0,
    "NumRelRet": 2.0,
    "SetF": 0.5714285714285715,
    "SetF(beta=0.5)": 0.6000000000000001,  # trec_eval's set_F: (b+1)PR/(bP+R)
}


@pytest.fixture
def files(tmp_path):
    q, r = tmp_path / "qrels.txt", tmp_path / "run.txt"
    q.write_text(QRELS)
    r.write_text(RUN)
    return q, r


@pytest.mark.parametrize("setting", [None, "trec_eval"])
def test_num_ret_and_set_f_parameters_mean_what_ir_measures_means(files, setting):
    kw = {} if setting is None else {"setting": setting}
    got = evaluate_run(*files, list(IR_MEASURES), **kw).mean
    for name, value in IR_MEASURES.items():
        assert got[name] == pytest.approx(value, abs=1e-12), name


def test_set_f_beta_must_be_positive(files):
    with pytest.raises(InvalidParameterError, match=r"beta must be a positive number"):
        evaluate_run(*files, ["SetF(beta=0)"])


# -- judged_only on one measure, and the parameters ir_measures' names take ---------


def test_judged_only_on_one_measure_is_the_ranking_without_its_unjudged_items():
    import numpy as np

    from sk_rankmetrics import evaluate

    y = np.array([[1, 0, 2, 1, 0], [0, 3, 1, 0, 1]])
    s = np.array([[5, 4, 3, 2, 1], [1, 2, 3, 4, 5]])
    judged = np.array([[False, True, True, False, True], [True, True, False, True, True]])
    names = [
        "P(judged_only=True)@2",
        "nDCG(judged_only=True)",
        "RR(judged_only=True)",
        ("map", {"judged_only": True}),
    ]
    got = evaluate(y, s, names, judged=judged, per_row=True, no_relevant=0.0)
    for row in range(2):
        keep = judged[row]
        plain = evaluate(
            y[row : row + 1, keep],
            s[row : row + 1, keep],
            ["P@2", "ndcg", "mrr", "AP"],
            per_row=True,
            no_relevant=0.0,
        )
        for name, same in zip(names, ["P@2", "ndcg", "mrr", "AP"]):
            label = name if isinstance(name, str) else name[0]
            assert got[label][row] == pytest.approx(plain[same][0], abs=1e-12), name
    # Without judged_only the unjudged relevant item of row 0 is not relevant.
    assert evaluate(y, s, ["P@2"], judged=judged, per_row=True)["P@2"][0] == 0.0
    assert got["P(judged_only=True)@2"][0] == 0.5
    # The same in long format, and with no mask (every item judged) nothing changes.
    qid = np.repeat([0, 1], 5)
    long = evaluate(
        y.ravel(), s.ravel(), names, qid=qid, judged=judged.ravel(), per_row=True, no_relevant=0.0
    )
    for name in names:
        label = name if isinstance(name, str) else name[0]
        np.testing.assert_allclose(long[label], got[label], atol=1e-12)
    assert (
        evaluate(y, s, ["nDCG(judged_only=True)"])["nDCG(judged_only=True)"]
        == evaluate(y, s, ["nDCG"])["nDCG"]
    )


def test_judged_only_in_evaluate_run_and_evaluate_ranked(files):
    from sk_rankmetrics import evaluate_ranked

    # x is ranked second and unjudged: without it, a and b are the top 2.
    for result in (
        evaluate_run(*files, ["P(judged_only=True)@2", "P@2"]),
        evaluate_ranked(files[1], files[0], ["P(judged_only=True)@2", "P@2"]),
    ):
        assert result["P(judged_only=True)@2"] == 1.0
        assert result["P@2"] == 0.5


@pytest.mark.parametrize(
    ("name", "message"),
    [
        ("NERR10", r"NERR10 needs its gain scale's top level, e.g. 'NERR10\(max_rel=3\)'"),
        ("SDCG(min_rel=2,max_rel=2)@5", r"max_rel=2 must exceed min_rel=2"),
        ("P(relative=True)@5", r"parameter 'relative' is not supported here"),
        ("SetP(relative=1)", r"relative must be True or False"),
        ("P(judged_only=1)@5", r"judged_only=1 is not accepted"),
    ],
)
def test_ir_measures_parameters_are_checked(files, name, message):
    with pytest.raises(InvalidParameterError, match=message):
        evaluate_run(*files, [name])


def test_set_rel_p_and_gains_with_unlisted_levels(files):
    got = evaluate_run(
        *files,
        [
            "SetRelP",
            "SetP(relative=True)",
            "set_relative_P",
            "nDCG(gains={2:5})",
            ("ndcg", {"gain": {0: 0, 1: 1, 2: 5}}),
        ],
    )
    assert got["SetRelP"] == got["SetP(relative=True)"] == got["set_relative_P"]
    assert got["SetRelP"] == pytest.approx(2 / 3)  # 2 relevant of min(3 ranked, 4 relevant)
    assert got["nDCG(gains={2:5})"] == pytest.approx(got["ndcg"], abs=1e-12)


def test_the_trec_eval_setting_gives_its_p_to_trec_eval_measures_only(files):
    got = evaluate_run(
        *files,
        ["compat", "Compat(p=0.95)", "nerr10", "NERR10(p=0.9,max_rel=4)"],
        setting="trec_eval",
    )
    assert got["compat"] == got["Compat(p=0.95)"]
    assert got["nerr10"] == got["NERR10(p=0.9,max_rel=4)"]


def test_the_cwl_kernels_work_a_slice_of_rows_at_a_time(monkeypatch):
    """cwl_eval reads 1,000 positions per row: the kernels take the rows in
    slices, and the slicing changes no value."""
    import numpy as np

    from sk_rankmetrics import evaluate
    from sk_rankmetrics._metrics.kernels import cwl

    rng = np.random.default_rng(0)
    y, s = rng.integers(0, 5, (50, 20)), rng.random((50, 20))
    names = ["nerr8@5", "nerr9@5", "nerr10", "nerr11", "inst", "bpm@7", "insq", "sdcg@4"]
    whole = evaluate(y, s, names, per_row=True)
    monkeypatch.setattr(cwl, "ROWS_AT_ONCE", 3)
    sliced = evaluate(y, s, names, per_row=True)
    for name in names:
        np.testing.assert_array_equal(sliced[name], whole[name])


@pytest.mark.parametrize("name", ["RBP(p=1.5,rel=1)", "Compat(p=7)", "RBP(p=0,rel=1)"])
def test_a_parameter_given_in_a_name_is_checked_as_an_option_is(name):
    """A value out of range inside a name is an error naming the name and the
    parameter, never a number (RBP(p=1.5) once gave -1.25)."""
    qrels = TrecQrels(np.array(["1", "1", "1"]), np.array(["a", "b", "c"]), np.array([1, 2, 0]))
    run = TrecRun(np.array(["1", "1", "1"]), np.array(["a", "b", "x"]), np.array([3.0, 2.0, 1.0]))
    for setting in ("sk_rankmetrics", "trec_eval"):
        with pytest.raises(InvalidParameterError, match=re.escape(repr(name)) + ".*p="):
            evaluate_run(qrels, run, [name], setting=setting)


def test_a_diversity_parameter_given_in_a_name_is_checked():
    qrels = TrecQrels(np.array(["1", "1", "1"]), np.array(["a", "b", "a"]), np.array([1, 1, 1]),
                      subtopic=np.array(["1", "1", "2"]))
    run = TrecRun(np.array(["1", "1"]), np.array(["a", "b"]), np.array([2.0, 1.0]))
    with pytest.raises(InvalidParameterError, match=r"'NRBP\(beta=2.0\)'.*patience=2.0"):
        evaluate_run(qrels, run, ["NRBP(beta=2.0)"])
    assert evaluate_run(qrels, run, ["NRBP(beta=0.5)"]).mean["NRBP(beta=0.5)"] == pytest.approx(
        0.84375)
