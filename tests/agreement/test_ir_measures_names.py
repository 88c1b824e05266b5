"""ir_measures' names give ir_measures' numbers where its parameters mean
something other than the package's option of the same name.

Expected values computed with ir_measures 0.4.3 (``ir_measures.calc_aggregate``)
on the files below.
"""

from __future__ import annotations

import re

import numpy as np
import pytest
from conftest import ROOT

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


# -- every ir_measures name the documentation cites is one ir_measures computes ---------

#: Names the pages cite as ones ir_measures refuses (no provider computes them):
#: asserted so, below.
REFUSED = {"RBP(p=0.8)"}


def _cited_names():
    """``{name: where}``: the ir_measures names cited in README.md, docs/*.md,
    the names table of the metric reference, the command line's help and the
    public docstrings. A name is a token whose head is in ir_measures'
    registry with an ``@`` cut-off or ``(key=value)`` parameters; a
    placeholder cut-off (``@k``, ``@x``) becomes a number, and templates
    (``RBP(p=x,rel=r)``, ``nDCG(gains={...})``, ``…``) are left out."""
    ir_measures = pytest.importorskip("ir_measures")
    import ast
    import inspect

    import sk_rankmetrics
    from sk_rankmetrics._cli import common

    registry = set(ir_measures.measures.registry)
    texts = {str(p.relative_to(ROOT)): p.read_text()
             for p in [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]}
    table = (ROOT / "docs" / "_ext" / "metric_reference.py").read_text()
    texts["docs/_ext/metric_reference.py"] = table
    texts["sk-rankmetrics evaluate --help"] = inspect.getsource(common.add_run_options)
    for name in sk_rankmetrics.__all__:
        doc = getattr(getattr(sk_rankmetrics, name), "__doc__", None) or ""
        texts[f"{name}'s docstring"] = doc
    token = re.compile(r"[A-Za-z_α][A-Za-z0-9_]*(?:\((?:[^()`\"]|\{[^}]*\})*\))?"
                       r"(?:@(?:[0-9]+(?:\.[0-9]+)?|k|x)\b)?")
    out = {}
    for where, text in texts.items():
        for m in token.finditer(text):
            name = m.group(0)
            if m.start() and text[m.start() - 1] in "{\\.":
                continue  # a formula's \mathrm{RBP@k}, a module's .P
            head = re.match(r"[A-Za-z_α][A-Za-z0-9_]*", name).group(0)
            params = name[len(head):].partition("@")[0]
            if head not in registry or not ("@" in name or "=" in params):
                continue
            if any(t in name for t in ("…", "...", "=x", "=r", "={...}")):
                continue  # a template, not a name
            name = re.sub(r"@k$", "@10", re.sub(r"@x$", "@0.5", name))
            if name.endswith("@"):
                continue
            try:
                ast.parse("f" + (params or "()"))
            except SyntaxError:
                continue  # prose such as "P(rel" cut by a line end
            out.setdefault(name, where)
    return out


def test_every_cited_ir_measures_name_is_one_ir_measures_computes():
    ir_measures = pytest.importorskip("ir_measures")
    cited = _cited_names()
    assert {"nDCG@10", "P(rel=2)@5", "RBP(p=0.8,rel=1)", "NERR10(max_rel=3)"} <= set(cited)
    assert REFUSED <= set(cited)
    wrong = []
    for name, where in sorted(cited.items()):
        try:
            measure = ir_measures.parse_measure(name)
            providers = [p.NAME for p in ir_measures.DefaultPipeline.providers
                         if p.supports(measure)]
        except Exception as exc:  # any refusal is a wrong citation
            wrong.append((name, where, f"ir_measures refuses it: {exc!r}"))
            continue
        if name in REFUSED:
            assert providers == [], name
        elif not providers:
            wrong.append((name, where, "no provider of ir_measures' default pipeline"))
    assert not wrong, wrong


def test_compat_orders_ranked_items_first_whatever_their_scores():
    """ir_measures' Compat gives an unranked document the score 0.0 when it
    orders its ideal: with negative scores its number moves with a shift of
    the scores. The name gives the measure's value (ranked items first in the
    ideal's ties), ir_measures' number for positive scores, the same for any
    shift (docs/metrics.md, "Compat and Accuracy")."""
    ir_measures = pytest.importorskip("ir_measures")
    qrels = {"a": 2, "b": 1, "c": 1, "d": 0}  # c: relevant, not ranked
    docs, scores = ["x", "b", "a"], np.array([3.0, 2.0, 1.0])
    q = TrecQrels(np.array(["1"] * 4), np.array(list(qrels)), np.array(list(qrels.values())))
    irq = [ir_measures.Qrel("1", d, r) for d, r in qrels.items()]
    got, want = {}, {}
    for shift in (0.0, -10.0, 100.0):
        r = TrecRun(np.array(["1"] * 3), np.array(docs), scores + shift)
        got[shift] = evaluate_run(q, r, ["Compat"])["Compat"]
        irr = [ir_measures.ScoredDoc("1", d, float(s)) for d, s in zip(docs, scores + shift)]
        want[shift] = ir_measures.calc_aggregate([ir_measures.Compat], irq, irr)[
            ir_measures.Compat]
    assert got[0.0] == got[-10.0] == got[100.0]
    assert got[0.0] == pytest.approx(want[0.0], abs=1e-12) == want[100.0]
    # Scores below 0: ir_measures puts c (unranked, 0.0) before b (-8.0) in its
    # ideal, and its number drops.
    assert want[-10.0] == pytest.approx(0.21092608822670172, abs=1e-12)
    assert got[-10.0] == pytest.approx(0.37744668419515043, abs=1e-12)
