"""Hostile and unusual input: every dtype, extreme magnitudes, huge k, odd containers.

Each case asserts the right number (against the slow reference of
``tests/reference.py``, which computes with Python integers and exact
fractions) or the error message. The classes covered, one test each:

- integer relevance near the limits of its dtype (sums must not overflow);
- scores that float64 cannot hold apart (int64, uint64, long double);
- every dtype and container scikit-learn accepts (object arrays of numbers,
  pandas nullable frames) and what it refuses (missing values, masks);
- huge cut-offs, in the work done as well as in the value;
- sample weights near the float64 limit;
- long and odd query ids.
"""

from __future__ import annotations

import tracemalloc
from fractions import Fraction

import numpy as np
import pandas as pd
import pytest
from conftest import (
    METRIC_NAMES,
    default_options,
    option_grid,
    reference_kwargs,
    score,
    scores_for,
)
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from reference import reference_mean

import sk_rankmetrics as skr
from sk_rankmetrics import InvalidParameterError
from sk_rankmetrics._metrics.registry import METRICS

SETTINGS = settings(max_examples=40, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow])
INT_DTYPES = [np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64]
FLOAT_DTYPES = [np.float16, np.float32, np.float64, np.longdouble]


def exact(values):
    """Row-wise exact Python numbers (ints, or Fractions of floats of any width)."""
    out = []
    for row in np.asarray(values):
        if row.dtype.kind in "iub":
            out.append([int(v) for v in row.tolist()])
        else:
            out.append([Fraction(*v.as_integer_ratio()) for v in row])
    return out


def expected(name, y, s, k=None, policy=0.0, **options):
    spec = METRICS[name]
    ref = reference_kwargs({**default_options(name), **options})
    if spec.takes_k:
        ref["k"] = k
    return reference_mean(name, [[float(v) for v in r] for r in exact(y)], exact(s),
                          no_relevant=policy, **ref)


def got(name, y, s, k=None, policy=0.0, **options):
    return score(name, y, s, k=k, no_relevant=policy, **options)


# --- relevance near the limits of its dtype -------------------------------------------


@pytest.mark.slow
@pytest.mark.parametrize("dtype", INT_DTYPES)
@pytest.mark.parametrize("name", ["ndcg", "dcg", "cg"])
@SETTINGS
@given(data=st.data())
def test_integer_relevance_near_its_limits_never_overflows(name, dtype, data):
    info = np.iinfo(dtype)
    n = data.draw(st.integers(2, 6))
    y = np.array(data.draw(st.lists(st.sampled_from([0, 1, info.max, info.max - 1, info.max // 2]),
                                    min_size=n, max_size=n)), dtype=dtype)[None, :]
    s = np.array(data.draw(st.lists(st.integers(0, 2), min_size=n, max_size=n)))[None, :]
    k = data.draw(st.one_of(st.none(), st.integers(1, n + 1)))
    value = got(name, y, s, k)
    want = expected(name, y, s, k)
    assert value == pytest.approx(want, rel=1e-12, abs=1e-12)
    if METRICS[name].normalized:
        assert 0.0 <= value <= 1.0


def test_the_issues_overflow_examples():
    assert skr.ndcg_score(np.array([[2**62, 2**62, 0]]), [[1, 1, 0]]) == 1.0
    assert skr.cumulative_gain_score(np.array([[2**62, 2**62, 0]]), [[1, 1, 0]]) == 2.0**63
    # uint64 2**63 in a tie with a 0: the expected gain of each tied position is 2**62.
    y = np.array([[2**63, 0, 0]], dtype=np.uint64)
    assert skr.ndcg_score(y, [[1, 1, 0]]) == pytest.approx((1 + 1 / np.log2(3)) / 2)
    y32 = np.array([[2**30] * 5 + [0]], dtype=np.int32)
    assert skr.ndcg_score(y32, [[1] * 5 + [0]], k=2) == 1.0


# --- scores float64 cannot hold apart -----------------------------------------------------


@pytest.mark.slow
@pytest.mark.parametrize("name", METRIC_NAMES)
@SETTINGS
@given(data=st.data())
def test_wide_integer_scores_are_ranked_in_their_own_type(name, data):
    dtype = data.draw(st.sampled_from([np.int64, np.uint64]))
    base = data.draw(st.sampled_from([2**53, 2**62, 2**63 - 8] if dtype is np.int64
                                     else [2**53, 2**63, 2**64 - 8]))
    n_rows, n = data.draw(st.integers(1, 3)), data.draw(st.integers(2, 5))
    offs = data.draw(st.lists(st.integers(0, 3), min_size=n_rows * n, max_size=n_rows * n))
    if METRICS[name].ties == "refuse":  # distinct offsets: no ties
        offs = list(np.arange(n_rows * n) % n)
    s = (np.array(offs, dtype=dtype) + dtype(base)).reshape(n_rows, n)
    y = np.array(data.draw(st.lists(st.integers(0, 3), min_size=n_rows * n,
                                    max_size=n_rows * n))).reshape(n_rows, n)
    k = data.draw(st.one_of(st.none(), st.integers(1, n))) if METRICS[name].takes_k else None
    assert got(name, y, s, k) == pytest.approx(expected(name, y, s, k), rel=1e-12, abs=1e-12)
    # Long format: the same numbers through qid.
    qid = np.repeat(np.arange(n_rows), n)
    long = score(name, y.ravel(), s.ravel(), k=k, qid=qid, no_relevant=0.0)
    assert long == pytest.approx(expected(name, y, s, k), rel=1e-12, abs=1e-12)


def test_scores_beyond_float64_precision():
    s = np.array([[2**53, 2**53 + 1]])
    assert skr.ndcg_score([[0, 1]], s) == 1.0
    ld = np.ones((1, 3), dtype=np.longdouble)
    ld[0, 1] += np.longdouble(2) ** -60
    if ld[0, 1] == ld[0, 0]:
        pytest.skip("long double is float64 on this platform")
    assert skr.ndcg_score([[0, 1, 0]], ld) == 1.0
    assert skr.ndcg_score([0, 1, 0], ld[0], qid=[1, 1, 1]) == 1.0
    ts = np.array([1_700_000_000_000_000_001, 1_700_000_000_000_000_000])  # nanoseconds
    assert skr.mean_average_precision_score([[1, 0]], ts[None, :]) == 1.0


# --- every dtype and container -------------------------------------------------------------


@pytest.mark.slow
@pytest.mark.parametrize("name", METRIC_NAMES)
@SETTINGS
@given(data=st.data())
def test_every_dtype_and_option_gives_the_reference_number(name, data):
    n_rows, n = data.draw(st.integers(1, 3)), data.draw(st.integers(2, 6))
    cells = n_rows * n
    y = np.array(data.draw(st.lists(st.integers(0, 3), min_size=cells, max_size=cells)))
    s = np.array(data.draw(st.lists(st.integers(0, 3), min_size=cells, max_size=cells)))
    y, s = y.reshape(n_rows, n), s.reshape(n_rows, n)
    if METRICS[name].ties == "refuse":  # distinct small integers: no ties
        s = np.argsort(np.argsort(s * n + np.arange(n), axis=1), axis=1)
    ydt = data.draw(st.sampled_from(INT_DTYPES + FLOAT_DTYPES))
    sdt = data.draw(st.sampled_from(INT_DTYPES + FLOAT_DTYPES + [bool]))
    if METRICS[name].ties == "refuse" and sdt is bool:
        sdt = np.int64  # bool scores tie
    yy, ss = y.astype(ydt), s.astype(sdt)
    container = data.draw(st.sampled_from(["array", "list", "object", "nullable"]))
    if container == "list":
        yy_in, ss_in = yy.tolist(), ss.tolist()
    elif container == "object":
        yy_in, ss_in = yy.astype(object), ss.astype(object)
    elif container == "nullable":
        yy_in = pd.DataFrame(y).astype("Int64")
        ss_in = pd.DataFrame(s.astype(float)).astype("Float64")
        ss = s.astype(float)
    else:
        yy_in, ss_in = yy, ss
    options = data.draw(st.sampled_from(option_grid(name, n)))
    k = data.draw(st.one_of(st.none(), st.integers(1, n + 2))) if METRICS[name].takes_k else None
    policy = data.draw(st.sampled_from([0.0, 1.0]))
    value = got(name, yy_in, ss_in, k, policy, **options)
    assert value == pytest.approx(expected(name, yy, ss, k, policy, **options),
                                  rel=1e-9, abs=1e-12)


def test_missing_values_and_masks_are_refused():
    with pytest.raises(InvalidParameterError, match=r"y_true has missing values"):
        skr.ndcg_score(pd.DataFrame([[1, None, 2]], dtype="Int64"), [[3, 2, 1]])
    with pytest.raises(InvalidParameterError, match=r"y_score has missing values"):
        skr.ndcg_score([[1, 0, 2]], pd.DataFrame([[1.0, None, 2]], dtype="Float64"))
    masked = np.ma.masked_array([[1, 0, 2]], mask=[[0, 1, 0]])
    with pytest.raises(InvalidParameterError, match=r"y_true is a masked array with masked"):
        skr.ndcg_score(masked, [[3, 2, 1]])
    with pytest.raises(InvalidParameterError, match=r"y_score is a masked array"):
        skr.ndcg_score([[1, 0, 2]], np.ma.masked_array([[3, 2, 1]], mask=[[1, 0, 0]]))
    with pytest.raises(InvalidParameterError, match=r"sample_weight is a masked array"):
        skr.ndcg_score([[1, 0, 2]], [[3, 2, 1]],
                       sample_weight=np.ma.masked_array([1.0], mask=[True]))
    # A mask with nothing masked is a plain array.
    plain = np.ma.masked_array([[1, 0, 2]], mask=[[0, 0, 0]])
    assert skr.ndcg_score(plain, [[3, 2, 1]]) == skr.ndcg_score([[1, 0, 2]], [[3, 2, 1]])
    with pytest.raises(InvalidParameterError, match=r"holds integers beyond the 64-bit range"):
        skr.ndcg_score(np.array([[2**70, 0]], dtype=object), [[1, 2]])


def test_errors_are_value_errors_as_in_scikit_learn():
    """Code written for sklearn.metrics.ndcg_score catches ValueError."""
    for kwargs in ({"k": 1.5}, {"ignore_ties": 1}, {"k": "3"}):
        with pytest.raises(ValueError):
            skr.ndcg_score([[1, 0, 2]], [[3, 2, 1]], **kwargs)
    with pytest.raises(ValueError):
        skr.ndcg_score([["a", "b"]], [[1, 2]])
    with pytest.raises(ValueError):
        skr.dcg_score([[1, 0, 2]], [[3, 2, 1]], log_base=1)


# --- huge k ---------------------------------------------------------------------------------


@pytest.mark.parametrize("name", [n for n in METRIC_NAMES if METRICS[n].takes_k])
@pytest.mark.parametrize("k", [2**63, 10**400])
def test_huge_k_gives_the_reference_number(name, k):
    y, s = np.array([[1, 0, 2, 0], [0, 0, 1, 1]]), np.array([[3, 2, 2, 1], [1, 2, 3, 3]])
    s = scores_for(name, s)  # tie-free for a metric that refuses ties
    value = got(name, y, s, k)
    assert value == pytest.approx(expected(name, y, s, k), rel=1e-12, abs=1e-300)


@pytest.mark.parametrize("k", [10**7, 10**12, 10**400])
def test_huge_k_costs_what_the_ranking_costs_on_ranked_lists(k):
    """The work (and memory) of a pre-ranked evaluation follows the lists, not k."""
    rec = np.tile(np.arange(100), (1000, 1))
    truth = (np.repeat(np.arange(1000), 3), np.tile([5, 50, 150], 1000))
    metrics = [f"P@{k}", f"ndcg@{k}", f"map@{k}", f"recall@{k}"]
    tracemalloc.start()
    res = skr.evaluate_ranked(rec, truth, metrics)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert peak < 64 * 2**20, peak  # tens of MB for 1,000 x 100, whatever k is
    assert res[f"recall@{k}"] == pytest.approx(2 / 3)
    assert res[f"P@{k}"] == pytest.approx(2 / k)


def test_huge_k_in_metric_names_and_on_the_command_line(tmp_path):
    out = skr.evaluate([[1, 0, 2]], [[3, 2, 1]], ["ndcg@1000000000000", "P@1000000000000"])
    assert out["ndcg@1000000000000"] == skr.ndcg_score([[1, 0, 2]], [[3, 2, 1]])
    assert out["P@1000000000000"] == pytest.approx(2e-12)


# --- weights and ids ------------------------------------------------------------------------


def test_weights_near_the_float64_limit():
    y, s = [[1, 0, 2], [0, 1, 0]], [[3, 2, 1], [1, 2, 3]]
    plain = skr.ndcg_score(y, s)
    assert skr.ndcg_score(y, s, sample_weight=[1e308, 1e308]) == pytest.approx(plain)
    assert skr.ndcg_score(y, s, sample_weight=[1.7e308, 0.0]) == pytest.approx(
        skr.ndcg_score(y[:1], s[:1]))
    assert skr.ndcg_score(y, s, sample_weight=[5e-324, 5e-324]) == pytest.approx(plain)


def test_single_item_queries_only_are_refused_in_long_format():
    """With one pair per query, per-query and per-pair weights would be the same
    length: the reading would be a guess. Such data has nothing to rank."""
    with pytest.raises(ValueError, match=r"every query has a single item \(2 queries, 2 pairs\)"):
        skr.dcg_score([3, 1], [0.5, 0.2], qid=[2, 1], sample_weight=[1, 0])
    # One query with two items makes the two readings different lengths:
    # two weights are per query, in sorted qid order (query 1, then query 2).
    assert skr.dcg_score([3, 1, 2], [0.5, 0.2, 0.1], qid=[2, 1, 1],
                         sample_weight=[0, 1]) == 3.0
    assert skr.dcg_score([3, 1, 2], [0.5, 0.2, 0.1], qid=[2, 1, 1],
                         sample_weight=[1, 0]) == pytest.approx(1 + 2 / np.log2(3))


@pytest.mark.parametrize(("qid", "first_is_second_query"), [
    (["q" * 5000, "q" * 5000, "r" * 4999 + "\u00e9", "r" * 4999 + "\u00e9"], False),
    ([2**63 - 1, 2**63 - 1, -(2**63), -(2**63)], True),
    (np.array([1.0, 1.0, 2.0, 2.0]), False),
    (np.array([2**64 - 1, 2**64 - 1, 0, 0], dtype=np.uint64), True),
])
def test_long_and_extreme_query_ids(qid, first_is_second_query):
    y, s = [1, 0, 0, 1], [2, 1, 2, 1]
    by_query = [1.0, 1 / np.log2(3)]  # the first pair's query, then the second's
    want = by_query[::-1] if first_is_second_query else by_query
    assert skr.ndcg_score(y, s, qid=qid, per_row=True).tolist() == pytest.approx(want)


@pytest.mark.parametrize("qid", [[1, 1, 1.5, 1.5], ["a", "a", 1, 1], [1, 1, np.nan, np.nan],
                                 [1e17, 1e17, 2.0, 2.0]])
def test_ids_that_would_be_coerced_are_refused(qid):
    with pytest.raises(InvalidParameterError, match=r"qid"):
        skr.ndcg_score([1, 0, 0, 1], [2, 1, 2, 1], qid=np.array(qid, dtype=object))


def test_unjudged_items_are_never_relevant_nor_worth_a_gain(tmp_path):
    """A threshold <= 0, or a gain for level 0, never reaches a document the qrels
    do not name: trec_eval 10's numbers (-l0 and -m ndcg.0=1,1=4) on the run that
    ranks an unjudged d3 first, then d1 (level 0), then d2 (level 1)."""
    qrels, run = tmp_path / "q.txt", tmp_path / "r.txt"
    qrels.write_text("q1 0 d1 0\nq1 0 d2 1\n")
    run.write_text("q1 Q0 d3 1 3 t\nq1 Q0 d1 2 2 t\nq1 Q0 d2 3 1 t\n")
    got = skr.evaluate_run(qrels, run, ["P_1", "map", "recall_3"], setting="trec_eval",
                           threshold=0).mean
    assert got == pytest.approx({"P_1": 0.0, "map": 0.5833333333333333, "recall_3": 1.0})
    ndcg = skr.evaluate_run(qrels, run, [("ndcg", {"gain": {0: 1, 1: 4}})],
                            setting="trec_eval").mean["ndcg"]
    assert ndcg == pytest.approx(0.5681212831057167, abs=1e-12)  # trec_eval: 0.5681
    ranked = skr.evaluate_ranked({"q1": ["d3", "d1", "d2"]}, {"q1": {"d1": 0, "d2": 1}},
                                 ["precision@1", "map", "recall@3"], threshold=0).mean
    assert ranked == pytest.approx({"precision@1": 0.0, "map": 0.5833333333333333,
                                    "recall@3": 1.0})


# -- issue 25, point 4: inputs that crashed or misled --------------------------------------


def _empty_qrels(tmp_path, text):
    qrels, run = tmp_path / "q.txt", tmp_path / "r.txt"
    qrels.write_text(text)
    run.write_text("q1 Q0 a 1 1.0 t\n")
    return qrels, run, (f"the qrels ({qrels}) hold no judgement (an empty file, or only "
                        "comments and blank lines); they must judge at least one document.")


@pytest.mark.parametrize("text", ["", "# only a comment\n\n", "\n  \n"])
def test_empty_or_comment_only_qrels_are_one_line_errors(tmp_path, text):
    qrels, run, want = _empty_qrels(tmp_path, text)
    with pytest.raises(ValueError) as caught:
        skr.evaluate_run(qrels, run, ["map"])
    assert str(caught.value) == want


@pytest.mark.slow
def test_empty_qrels_from_the_command_line(tmp_path):
    from conftest import run_cli

    qrels, run, want = _empty_qrels(tmp_path, "# only a comment\n")
    for command in ("evaluate", "trec_eval"):
        out = run_cli(command, qrels, run)
        assert out.returncode == 1 and out.stdout == ""
        assert out.stderr == f"sk-rankmetrics: error: {want}\n"


@pytest.mark.parametrize("unordered", [{"a", "b"}, frozenset({"a", "b"}),
                                       {"a": 1, "b": 2}.keys()])
def test_unordered_containers_are_not_ranked_lists(unordered):
    kind = type(unordered).__name__
    with pytest.raises(InvalidParameterError,
                       match=rf"^recommended gives a {kind} for user 'u': a ranked list must "
                             r"be ordered, best first"):
        skr.evaluate_ranked({"v": ["a"], "u": unordered}, {"u": {"a"}}, ["mrr"])
    with pytest.raises(InvalidParameterError, match=rf"gives a {kind} for row 0:"):
        skr.evaluate_ranked([unordered], [{"a"}], ["mrr"])
    # A set as the truth is fine: relevance has no order.
    assert skr.evaluate_ranked({"u": ["b", "a"]}, {"u": unordered}, ["mrr"])["mrr"] == 1.0


@pytest.mark.parametrize("token", ["1_000", "1_0.5", "inf", "nan"])
def test_scores_in_c_syntax_only(tmp_path, token):
    """trec_eval reads numbers with C's atof: 1_000 is 1 there and 1000 in Python;
    such a score is refused rather than read either way."""
    run = tmp_path / "r.txt"
    run.write_text(f"q1 Q0 a 1 2.5 t\nq1 Q0 b 2 {token} t\n")
    with pytest.raises(ValueError, match=rf"^run file '.*r.txt', line 2: score '{token}' "
                                         r"is not a finite number \(C's syntax"):
        skr.read_trec_run(run)
    qrels = tmp_path / "q.txt"
    qrels.write_text(f"q1 0 a {token}\n")
    with pytest.raises(ValueError, match=rf"line 1: relevance '{token}' is not a finite"):
        skr.read_trec_qrels(qrels)


def test_underscored_numbers_in_data_frames_are_refused():
    frame = pd.DataFrame({"qid": ["q1", "q1"], "docno": ["a", "b"], "score": ["2", "1_000"]})
    with pytest.raises(InvalidParameterError,
                       match=r"^the score column holds '1_000', not a number in C's syntax"):
        skr.run_from_frame(frame)
    ok = frame.assign(score=["2", "1e3"])
    assert skr.run_from_frame(ok).score.tolist() == [2.0, 1000.0]


@pytest.mark.parametrize("ranked", [["x", "a", "x"], ["a", "x", "a"]], ids=["unjudged", "judged"])
def test_repeated_items_are_refused_judged_or_not(ranked):
    item = ranked[2]
    with pytest.raises(ValueError, match=rf"^the ranked list of user 'u2' holds item "
                                         rf"'{item}' twice; rank each item once per user "
                                         r"\(duplicates='first' keeps its first "
                                         r"occurrence\)\.$"):
        skr.evaluate_ranked({"u1": ["a"], "u2": ranked}, {"u1": {"a"}, "u2": {"a"}}, ["mrr"])
    with pytest.raises(ValueError, match=rf"holds item '{item}' twice"):
        skr.evaluate_ranked(np.array([["a", "x", "y"], ranked]), [{"a"}, {"a"}], ["mrr"])
    with pytest.raises(ValueError, match=rf"^the ranked list of query 'q' holds item '{item}'"):
        skr.evaluate_run(skr.TrecQrels(np.array(["q"]), np.array(["a"]), np.array([1.0])),
                         skr.TrecRun(np.array(["q"] * 3), np.array(ranked),
                                     np.array([3.0, 2.0, 1.0])), ["mrr"])


def test_ids_in_messages_are_shown_as_written():
    """No np.str_('u1') in a message: ids appear as the user wrote them."""
    with pytest.raises(ValueError) as caught:
        skr.evaluate_ranked([["a"], ["b"]], [{"a"}, {"a"}], ["mrr"], users=["u1", "u1"])
    assert str(caught.value) == "user 'u1' has two ranked lists; give one list per user."
    with pytest.raises(ValueError) as caught:
        skr.evaluate_ranked({"u1": ["a", "a"]}, {"u1": {"a"}}, ["mrr"])
    assert str(caught.value).startswith("the ranked list of user 'u1' holds item 'a' twice")


def test_repeated_items_found_in_any_block(monkeypatch):
    """The repeat check works a block of rows at a time: a repeat in a later block,
    in lists of one length or of several, is found and named."""
    from sk_rankmetrics._inputs import id_checks as _inputs

    monkeypatch.setattr(_inputs, "_REPEAT_STEP", 4)
    same = {f"u{i}": ["a", "b", "c"] for i in range(10)}
    same["u7"] = ["a", "c", "c"]
    others = pytest.warns(UserWarning, match="9 of 10 users of the ranking have no judgements")
    with others, pytest.raises(ValueError,
                               match=r"^the ranked list of user 'u7' holds item 'c' twice"):
        skr.evaluate_ranked(same, {"u7": {"a"}}, ["mrr"], complete=True)
    ragged = {f"u{i}": ["a", "b", "c"][: 1 + i % 3] for i in range(10)}
    ragged["u8"] = ["q", "r", "q", "s"]
    with pytest.warns(UserWarning, match="9 of 10 users"), pytest.raises(
            ValueError, match=r"^the ranked list of user 'u8' holds item 'q' twice"):
        skr.evaluate_ranked(ragged, {"u8": {"a"}}, ["mrr"], complete=True)
    ragged["u8"] = ["q", "r", "t", "s"]
    with pytest.warns(UserWarning, match="9 of 10 users"):
        res = skr.evaluate_ranked(ragged, {"u8": {"t"}}, ["mrr"], complete=True)
    assert res["mrr"] == 1 / 3
