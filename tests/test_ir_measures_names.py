"""ir_measures' names give ir_measures' numbers where its parameters mean
something other than the package's option of the same name.

Expected values computed with ir_measures 0.4.3 (``ir_measures.calc_aggregate``)
on the files below.
"""

from __future__ import annotations

import pytest

from sk_rankmetrics import evaluate_run
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
