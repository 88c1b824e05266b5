"""rbo: Corsi and Urbano's rank-biased overlap with ties.

Checked against the reference implementation's own 10,000 test cases
(tests/data/rbo/test.csv.gz), against the definitions computed depth after
depth (tests/reference_rbo.py) on generated rankings with ties and uneven
lengths, and for the properties every score has.
"""

from __future__ import annotations

import csv
import gzip
import math

import numpy as np
import pytest
from conftest import DATA as TEST_DATA
from hypothesis import given, settings
from hypothesis import strategies as st
from reference_rbo import parse, rbo_reference

import sk_rankmetrics as skr
from sk_rankmetrics import InvalidParameterError, TrecRun, rbo

DATA = TEST_DATA / "rbo" / "test.csv.gz"
SCORES = ("ext", "min", "max", "res")


def _cases():
    with gzip.open(DATA, "rt", newline="") as fh:
        return list(csv.DictReader(fh))


CASES = _cases()


def _as_ranking(groups):
    return [g[0] if len(g) == 1 else set(g) for g in groups]


def _check_cases(rows):
    worst = 0.0
    for row in rows:
        x, y, p = _as_ranking(parse(row["x"])), _as_ranking(parse(row["y"])), float(row["p"])
        for ties in "wab":
            got = rbo(x, y, p=p, ties=ties, score="all")
            for s in SCORES:
                worst = max(worst, abs(got[s] - float(row[f"{ties}.{s}"])))
    return worst


def test_the_reference_cases_hold_every_variant_and_score():
    assert len(CASES) == 10_000
    assert set(CASES[0]) == {"x", "y", "p", *(f"{t}.{s}" for t in "wab" for s in SCORES)}


def test_equals_the_reference_implementation_on_its_first_500_cases():
    assert _check_cases(CASES[:500]) < 1e-12


@pytest.mark.slow
def test_equals_the_reference_implementation_on_all_10000_cases():
    assert _check_cases(CASES) < 1e-12


def test_the_depth_by_depth_reference_equals_the_reference_cases():
    # The slow reference of these tests is itself right.
    for row in CASES[:100]:
        for ties in "wab":
            ref = rbo_reference(parse(row["x"]), parse(row["y"]), float(row["p"]), ties)
            for s in SCORES:
                assert ref[s] == pytest.approx(float(row[f"{ties}.{s}"]), abs=1e-12)


def test_readme_example_of_the_reference_implementation():
    x = ["red", {"blue", "green"}, "yellow", "pink"]
    y = [{"blue", "red"}, "white", {"yellow", "black", "purple"}, "green"]
    # The values its README prints, to its 7 decimals.
    expected = {"a": (0.6922853, 0.3310519, 0.8930692, 0.5620173),
                "w": (0.7068257, 0.3429684, 0.9049857, 0.5620173),
                "b": (0.7207131, 0.3509163, 0.9129336, 0.5620173)}
    for ties, values in expected.items():
        got = rbo(x, y, p=0.95, ties=ties, score="all")
        assert [round(got[s], 7) for s in SCORES] == list(values)


# -- generated rankings: the definitions, and the properties ------------------------


@st.composite
def rankings(draw, max_items=14, vocabulary=18):
    """A ranking of distinct items from a small vocabulary, cut into tie groups."""
    n = draw(st.integers(1, max_items))
    items = draw(st.permutations(range(vocabulary)))[:n]
    cuts = sorted(draw(st.sets(st.integers(1, max(n - 1, 1)), max_size=n)) if n > 1 else [])
    bounds = [0, *[c for c in cuts if c < n], n]
    return [list(items[a:b]) for a, b in zip(bounds, bounds[1:]) if b > a]


PERSISTENCE = st.floats(0.05, 0.97)


@settings(max_examples=150, deadline=None)
@given(rankings(), rankings(), PERSISTENCE, st.sampled_from("wab"))
def test_equals_the_definitions_depth_by_depth(x, y, p, ties):
    ref = rbo_reference(x, y, p, ties)
    got = rbo(_as_ranking(x), _as_ranking(y), p=p, ties=ties, score="all")
    for s in SCORES:
        assert got[s] == pytest.approx(ref[s], abs=1e-9), s


@settings(max_examples=200, deadline=None)
@given(rankings(max_items=30, vocabulary=40), rankings(max_items=30, vocabulary=40),
       st.floats(0.01, 0.999), st.sampled_from("wab"))
def test_properties(x, y, p, ties):
    xs, ys = _as_ranking(x), _as_ranking(y)
    got = rbo(xs, ys, p=p, ties=ties, score="all")
    for s in SCORES:
        assert 0.0 <= got[s] <= 1.0
    assert got["min"] <= got["ext"] + 1e-12
    assert got["ext"] <= got["max"] + 1e-12
    assert got["res"] >= 0.0
    assert got["res"] == pytest.approx(got["max"] - got["min"], abs=1e-12)
    back = rbo(ys, xs, p=p, ties=ties, score="all")  # symmetric in every variant
    for s in SCORES:
        assert back[s] == pytest.approx(got[s], abs=1e-12)


@settings(max_examples=100, deadline=None)
@given(rankings(max_items=30, vocabulary=40), st.floats(0.01, 0.999))
def test_a_ranking_with_itself(x, p):
    xs = _as_ranking(x)
    for ties in "wb":  # 1 even with ties (MIN assumes nothing more in common: below 1)
        got = rbo(xs, xs, p=p, ties=ties, score="all")
        assert got["ext"] == pytest.approx(1.0, abs=1e-12)
        assert got["max"] == pytest.approx(1.0, abs=1e-12)
    untied = [i for g in x for i in g]
    for ties in "wab":
        assert rbo(untied, untied, p=p, ties=ties) == pytest.approx(1.0, abs=1e-12)
    # The a variant is the expected RBO over the orders of the ties: at most the b
    # variant's, and clearly below 1 with a tie at the top.
    assert rbo(xs, xs, p=p, ties="a") <= rbo(xs, xs, p=p, ties="b") + 1e-15
    if len(x[0]) > 1:  # the tie at depth 1 costs about (1 - p) / 2: small as p nears 1
        assert rbo(xs, xs, p=p, ties="a") < 1.0 - (1.0 - p) / 4


def test_the_a_variant_is_the_mean_over_the_orders_of_the_ties():
    from itertools import permutations, product

    x = [["a"], ["b", "c", "d"], ["e"]]
    y = [["c", "f"], ["a"], ["b", "e"]]
    orders = []
    for gx in product(*[list(permutations(g)) for g in x]):
        for gy in product(*[list(permutations(g)) for g in y]):
            fx = [i for g in gx for i in g]
            fy = [i for g in gy for i in g]
            orders.append(rbo(fx, fy, p=0.8, score="all"))
    got = rbo(_as_ranking(x), _as_ranking(y), p=0.8, score="all")
    for s in ("min", "ext"):
        assert got[s] == pytest.approx(np.mean([o[s] for o in orders]), abs=1e-12)


def test_lists_without_ties_agree_in_every_variant():
    x, y = list("abcdefg"), list("bxaeyc")
    values = [rbo(x, y, p=0.85, ties=t, score="all") for t in "wab"]
    for s in SCORES:
        assert values[0][s] == pytest.approx(values[1][s]) == pytest.approx(values[2][s])


def test_closed_forms_of_a_small_case():
    # x = (a b), y = (b a): A_1 = 0, A_2 = 1, and 1 after (EXT, MAX) or 2/d (MIN).
    p = 0.9
    ext = (1 - p) / p * (p**2 + p**3 / (1 - p))
    low = (1 - p) / p * (p**2 + 2 * (-math.log1p(-p) - p - p**2 / 2))
    got = rbo(["a", "b"], ["b", "a"], p=p, score="all")
    assert got["ext"] == pytest.approx(ext, rel=1e-14)
    assert got["max"] == pytest.approx(ext, rel=1e-14)
    assert got["min"] == pytest.approx(low, rel=1e-14)


def test_disjoint_lists():
    got = rbo(["a", "b"], ["c", "d", "e"], p=0.9, score="all")
    assert got["ext"] == 0.0 and got["min"] == 0.0
    assert 0 < got["max"] < 1


# -- the input forms ---------------------------------------------------------------


def test_scores_in_a_mapping_tie_when_equal():
    by_score = rbo({"a": 3, "b": 2, "c": 2, "d": 1}, {"b": 9.5, "a": 7.0, "d": 1.0, "c": 0.0})
    by_list = rbo(["a", {"b", "c"}, "d"], ["b", "a", "d", "c"])
    assert by_score == by_list


def test_a_list_of_scores_and_several_scores():
    both = rbo(["a", "b", "c"], ["b", "c"], score=["min", "max"])
    assert list(both) == ["min", "max"]
    assert both["min"] == rbo(["a", "b", "c"], ["b", "c"], score="min")


def _random_runs(rng, n_queries, depth, vocabulary, ties):
    q, d, s = [], [], []
    for i in range(n_queries):
        m = int(rng.integers(1, depth + 1))
        docs = rng.choice(vocabulary, size=m, replace=False)
        scores = rng.integers(0, 4, size=m) if ties else rng.permutation(m)
        q += [f"q{i}"] * m
        d += [f"d{k}" for k in docs]
        s += scores.tolist()
    return np.array(q), np.array(d), np.array(s, dtype=np.float64)


def _per_pair(qa, da, sa, qb, db, sb, **kw):
    out = []
    for query in sorted(set(qa.tolist())):
        x = dict(zip(da[qa == query].tolist(), sa[qa == query].tolist()))
        y = dict(zip(db[qb == query].tolist(), sb[qb == query].tolist()))
        out.append(rbo(x, y, **kw))
    return out


@pytest.mark.parametrize("ties", ["a", "b", "w"])
def test_two_runs_equal_the_pairs_one_by_one(ties):
    rng = np.random.default_rng(7)
    qa, da, sa = _random_runs(rng, 60, 25, 40, ties=True)
    qb, db, sb = _random_runs(rng, 60, 25, 40, ties=True)
    res = rbo(TrecRun(qa, da, sa), TrecRun(qb, db, sb), p=0.8, ties=ties, score="all")
    expected = _per_pair(qa, da, sa, qb, db, sb, p=0.8, ties=ties, score="all")
    assert res.query_ids.tolist() == sorted(set(qa.tolist()))
    for s in SCORES:
        np.testing.assert_allclose(res.per_query[f"rbo_{s}"], [e[s] for e in expected],
                                   rtol=0, atol=1e-13)
        assert res[f"rbo_{s}"] == pytest.approx(np.mean([e[s] for e in expected]))


def test_many_blocks_and_lengths(monkeypatch):
    # Blocks of a few rows: the rows are sorted by length and split.
    from sk_rankmetrics._stats import rbo_kernel

    monkeypatch.setattr(rbo_kernel, "BLOCK_ELEMENTS", 64)
    rng = np.random.default_rng(3)
    qa, da, sa = _random_runs(rng, 40, 30, 50, ties=True)
    qb, db, sb = _random_runs(rng, 40, 30, 50, ties=False)
    res = rbo(TrecRun(qa, da, sa), TrecRun(qb, db, sb), score="all")
    expected = _per_pair(qa, da, sa, qb, db, sb, score="all")
    for s in SCORES:
        np.testing.assert_allclose(res.per_query[f"rbo_{s}"], [e[s] for e in expected],
                                   rtol=0, atol=1e-13)


def test_every_form_of_a_run_gives_the_same(tmp_path):
    pd = pytest.importorskip("pandas")
    qa = ["q1"] * 4 + ["q2"] * 3
    da = ["a", "b", "c", "d", "x", "y", "z"]
    sa = [4.0, 3.0, 3.0, 1.0, 2.0, 2.0, 1.0]
    run_b = {"q1": {"b": 2.0, "a": 1.0, "e": 0.5}, "q2": {"z": 3.0, "x": 2.0}}
    expected = rbo(TrecRun(np.array(qa), np.array(da), np.array(sa)), run_b)
    as_dicts = {"q1": dict(zip(da[:4], sa[:4])), "q2": dict(zip(da[4:], sa[4:]))}
    as_lists = {"q1": ["a", {"b", "c"}, "d"], "q2": [{"x", "y"}, "z"]}
    frame = pd.DataFrame({"qid": qa, "docno": da, "score": sa})
    path = tmp_path / "run.txt"
    path.write_text("".join(f"{q} Q0 {d} {i} {s} t\n" for i, (q, d, s) in
                            enumerate(zip(qa, da, sa))))
    shuffled = np.random.default_rng(0).permutation(len(qa))  # lines in any order
    loose = TrecRun(np.array(qa)[shuffled], np.array(da)[shuffled], np.array(sa)[shuffled])
    for form in (as_dicts, as_lists, frame, str(path), path, loose):
        got = rbo(form, run_b)
        assert got.query_ids.tolist() == ["q1", "q2"]
        np.testing.assert_allclose(got.per_query["rbo_ext"], expected.per_query["rbo_ext"],
                                   rtol=0, atol=1e-15)


def test_integer_ids_of_any_span():
    far = 2**60
    x = {1: {5: 3.0, far: 2.0, 7: 1.0}}
    y = {1: {far: 3.0, 5: 2.0}}
    near = rbo({1: {5: 3.0, 6: 2.0, 7: 1.0}}, {1: {6: 3.0, 5: 2.0}}, score="all")
    got = rbo(x, y, score="all")
    assert got.mean == pytest.approx(near.mean, abs=1e-15)


def test_on_missing():
    x = {"q1": ["a", "b"], "q2": ["c"]}
    y = {"q1": ["b", "a"], "q3": ["c"]}
    with pytest.raises(ValueError, match=r"do not rank the same queries: only x ranks 1 "
                                         r"query \('q2'\); only y ranks 1 query \('q3'\); "
                                         r"compare the 1 query both rank with "
                                         r"on_missing='drop'"):
        rbo(x, y)
    res = rbo(x, y, on_missing="drop")
    assert res.query_ids.tolist() == ["q1"]
    with pytest.raises(ValueError, match="share no query at all"):
        rbo({"q9": ["a"]}, y, on_missing="drop")


# -- errors --------------------------------------------------------------------------


@pytest.mark.parametrize(("x", "y", "message"), [
    ([], ["a"], r"rbo: x is empty; each ranking needs at least one item"),
    (["a", "b", "a"], ["a"], r"rbo: x holds 'a' twice; a ranking holds each item once"),
    (["a", {"b", "a"}], ["a"], r"rbo: x holds 'a' twice"),
    (["a"], ["a", set()], r"rbo: y holds an empty set"),
    ({"a": 1.0, "b": float("nan")}, ["a"], r"rbo: x gives item 'b' the score nan; scores "
                                           r"must be finite"),
    ({"a": "high"}, ["a"], r"rbo: x maps items to scores, which must be numbers; got "
                           r"'high'"),
    ("a b c", ["a"], r"rbo: x is a run \(a path\) and y a single ranking"),
    (["a"], 5, r"rbo: y must be a ranking .* got int"),
    (["a"], [["b"]], r"rbo: y holds \['b'\], which is not hashable"),
    ({"q1": ["a"]}, ["a"], r"rbo: x is a run and y a single ranking"),
    ({"q1": ["a"], "a": 1.0}, ["a"], r"this one mixes both"),
    ({"q1": ["a", "a"]}, {"q1": ["a"]}, r"rbo: x ranks document 'a' twice for query 'q1'"),
    ({"q1": ["a"]}, {1: ["a"]}, r"x has string query ids and y integer ones"),
    # 1 and "1" are two items, never one string
    ({"q1": ["a", 1]}, {"q1": ["a"]}, r"the document ids of x must hold ids of one type"),
    ({"q1": [["a"]]}, {"q1": ["a"]}, r"the document ids of x must hold ids of one type"),
])
def test_bad_input_is_named(x, y, message):
    with pytest.raises((ValueError, TypeError), match=message):
        rbo(x, y)


@pytest.mark.parametrize(("kw", "message"), [
    ({"p": 1.0}, r"rbo: p=1.0 is not accepted \(RBO's persistence"),
    ({"p": 0}, r"rbo: p=0 is not accepted"),
    ({"ties": "c"}, r"rbo: ties='c' is not accepted .* Accepted: 'a', 'b', 'w'"),
    ({"score": "mean"}, r"rbo: score='mean' is not accepted"),
    ({"score": ["min", "all"]}, r"rbo: score=\['min', 'all'\] is not accepted"),
    ({"score": []}, r"rbo: score=\[\] is not accepted"),
    ({"on_missing": "skip"}, r"rbo: on_missing='skip' is not accepted"),
])
def test_bad_options_are_named(kw, message):
    with pytest.raises(InvalidParameterError, match=message):
        rbo(["a"], ["a"], **kw)


def test_exported():
    assert skr.rbo is rbo and "rbo" in skr.__all__
