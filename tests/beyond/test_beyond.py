"""Beyond-accuracy measures: hand-computed numbers, plain-loop references,
random lists (hypothesis), the arguments' errors and evaluate_ranked's frames."""

from __future__ import annotations

import math
import warnings
from fractions import Fraction
from itertools import combinations

import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp
from conftest import sparse_random
from hypothesis import given, settings
from hypothesis import strategies as st

import sk_rankmetrics as skr
from sk_rankmetrics import InvalidParameterError

REC = {"u1": ["a", "b"], "u2": ["a", "c"]}
ITEMS = ["a", "b", "c", "d"]
TRAIN = (["x", "y", "z", "w", "x", "x", "y"], ["a", "a", "a", "a", "b", "c", "c"])
FEATS = {"a": [1.0, 0.0], "b": [0.0, 1.0], "c": [1.0, 1.0]}
TRUTH = {"u1": {"b"}, "u2": {"a"}}


# -- plain-loop references ----------------------------------------------------------


def ref_counts(lists):
    c = {}
    for lst in lists:
        for i in lst:
            c[i] = c.get(i, 0) + 1
    return c


def ref_coverage(lists, items):
    return len({i for lst in lists for i in lst}) / len(items)


def ref_gini(lists, items):
    c = ref_counts(lists)
    x = sorted(c.get(i, 0) for i in items)
    n, total = len(x), sum(x)
    if total == 0:
        return math.nan
    return sum((2 * j - n - 1) * x[j - 1] for j in range(1, n + 1)) / (n * total)


def ref_entropy(lists):
    c = ref_counts(lists)
    total = sum(c.values())
    return -sum(v / total * math.log2(v / total) for v in c.values())


def ref_popularity(train):
    users = set(train[0])
    per_item = {}
    for u, i in zip(*train):
        per_item.setdefault(i, set()).add(u)
    return {i: len(us) for i, us in per_item.items()}, len(users)


def ref_novelty(lists, train):
    count, n = ref_popularity(train)
    vals = [sum(-math.log2(count[i] / n) for i in lst) / len(lst) for lst in lists if lst]
    return sum(vals) / len(vals)


def ref_arp(lists, train):
    count, _ = ref_popularity(train)
    vals = [sum(count[i] for i in lst) / len(lst) for lst in lists if lst]
    return sum(vals) / len(vals)


def ref_ranked_items(train):
    count, _ = ref_popularity(train)
    return sorted(count, key=lambda i: (-count[i], i)), count


def ref_head(train, share):
    ranked, count = ref_ranked_items(train)
    total, run, head = sum(count.values()), 0, set()
    for i in ranked:
        head.add(i)
        run += count[i]
        if run >= share * total - 1e-9:
            break
    return head


def ref_aplt(lists, train, share=0.2):
    head = ref_head(train, share)
    vals = [sum(i not in head for i in lst) / len(lst) for lst in lists if lst]
    return sum(vals) / len(vals)


def ref_ild(lists, feats):
    vals = []
    for lst in lists:
        if len(lst) < 2:
            continue
        d = []
        for i, j in combinations(lst, 2):
            a, b = np.asarray(feats[i], float), np.asarray(feats[j], float)
            d.append(1 - a @ b / (np.linalg.norm(a) * np.linalg.norm(b)))
        vals.append(sum(d) / len(d))
    return sum(vals) / len(vals)


def ref_personalization(lists):
    lists = [lst for lst in lists if lst]
    sims = [len(set(a) & set(b)) / math.sqrt(len(a) * len(b)) for a, b in combinations(lists, 2)]
    return 1 - sum(sims) / len(sims)


def ref_serendipity(lists, truth, train, k):
    ranked, _ = ref_ranked_items(train)
    top = set(ranked[:k])
    vals = [sum(i in rel and i not in top for i in lst[:k]) / k for lst, rel in zip(lists, truth)]
    return sum(vals) / len(vals)


# -- hand-computed examples -----------------------------------------------------------


def test_hand_computed():
    # counts a=2, b=1, c=1, d=0: sorted 0,1,1,2 -> (-1 + 1 + 6) / (4 * 4) = 0.375;
    # p = 1/2, 1/4, 1/4 -> 1.5 bits; one shared item of two: 1 - 1/2.
    # Training users per item a=4, b=1, c=2 of 4 users: -log2 p = 0, 2, 1.
    res = skr.evaluate_ranked(
        REC,
        TRUTH,
        [
            "coverage@2",
            "gini@2",
            "entropy@2",
            "personalization@2",
            "novelty@2",
            "arp@2",
            "aplt@2",
            "ild@2",
            "serendipity@2",
        ],
        items=ITEMS,
        popularity=TRAIN,
        item_features=FEATS,
    )
    expected = {
        "coverage@2": 0.75,
        "gini@2": 0.375,
        "entropy@2": 1.5,
        "personalization@2": 0.5,
        "novelty@2": 0.75,
        "arp@2": 2.75,
        "aplt@2": 0.5,
        "ild@2": (1 + 1 - 1 / math.sqrt(2)) / 2,
        "serendipity@2": 0.25,
    }
    assert res.mean == pytest.approx(expected, abs=1e-12)
    assert list(res.mean) == list(expected)
    assert res.whole_set == ("coverage@2", "gini@2", "entropy@2", "personalization@2")
    assert set(res.per_query) == {"novelty@2", "arp@2", "aplt@2", "ild@2", "serendipity@2"}
    np.testing.assert_allclose(res.per_query["novelty@2"], [1.0, 0.5])
    assert "of the whole list set: coverage@2=0.7500" in repr(res)
    assert "coverage@2" not in res.to_frame().columns


def test_public_functions_match_evaluate_ranked():
    assert skr.coverage_score(REC, items=ITEMS) == 0.75
    assert skr.gini_score(REC, items=ITEMS) == 0.375
    assert skr.entropy_score(REC) == 1.5
    assert skr.personalization_score(REC) == 0.5
    assert skr.novelty_score(REC, popularity=TRAIN) == 0.75
    assert skr.arp_score(REC, popularity=TRAIN) == 2.75
    assert skr.aplt_score(REC, popularity=TRAIN) == 0.5
    assert skr.aplt_score(REC, popularity=TRAIN, head_share=1.0) == 0.0
    assert skr.serendipity_score(REC, TRUTH, popularity=TRAIN, k=2) == 0.25
    np.testing.assert_allclose(
        skr.ild_score(REC, item_features=FEATS, per_row=True), [1.0, 1 - 1 / math.sqrt(2)]
    )


def test_cut_off_and_integer_ids():
    rec = [[3, 1, 2], [1, 4, 5]]
    items = [1, 2, 3, 4, 5, 6]
    assert skr.coverage_score(rec, items=items, k=1) == 2 / 6
    assert skr.coverage_score(rec, items=items) == 5 / 6
    res = skr.evaluate_ranked(rec, None, ["coverage@1", "coverage"], items=items)
    assert res["coverage@1"] == 2 / 6 and res["coverage"] == 5 / 6
    res = skr.evaluate_ranked(rec, None, ["coverage"], items=items, k=2)
    assert res.metrics == ["coverage@2"] and res["coverage@2"] == 3 / 6


def test_popularity_forms_agree():
    share = {"a": 1.0, "b": 0.25, "c": 0.5}
    frame = pd.DataFrame({"user_id": TRAIN[0], "item_id": TRAIN[1]})
    for pop in (TRAIN, share, frame):
        assert skr.novelty_score(REC, popularity=pop) == 0.75
        assert skr.aplt_score(REC, popularity=pop) == 0.5
    # A pair seen twice counts its user once.
    twice = (TRAIN[0] + ["x"], TRAIN[1] + ["b"])
    assert skr.arp_score(REC, popularity=twice) == 2.75


def test_popularity_as_a_sparse_interaction_matrix():
    """A users x items sparse matrix of the training interactions: its
    stored non-zero entries are the pairs, its column indices the item ids
    (explicit zeros are no interaction)."""
    rng = np.random.default_rng(4)
    train = sparse_random((30, 12), 0.3, rng)
    train.data[:3] = 0.0  # stored zeros: not interactions
    users, items = train.nonzero()
    rec = np.array([rng.permutation(12)[:4] for _ in range(8)])
    for fn in (skr.novelty_score, skr.arp_score, skr.aplt_score):
        assert fn(rec, popularity=train) == fn(rec, popularity=(users, items))
        assert fn(rec, popularity=sp.csr_matrix(train)) == fn(rec, popularity=(users, items))
    res = skr.evaluate_ranked(rec, None, ["novelty@4"],
                              popularity=train.tocoo())
    assert res.mean["novelty@4"] == skr.novelty_score(rec, popularity=(users, items))


@pytest.mark.skipif(sp.coo_array(np.ones(3)).ndim != 1,
                    reason="SciPy has 1-D sparse arrays from 1.13")
def test_popularity_as_a_one_dimensional_sparse_array_is_refused():
    rec = np.array([[0, 1, 2, 3]])
    with pytest.raises(InvalidParameterError, match="sparse matrix must be 2-D"):
        skr.novelty_score(rec, popularity=sp.coo_array(np.ones(12)))


def test_head_ties_by_ascending_id():
    # b and c both have 2 users: the head of share 0.5 (2 of 4 interactions) is b.
    train = (["x", "y", "x", "y"], ["c", "c", "b", "b"])
    assert skr.aplt_score({"u": ["b"]}, popularity=train, head_share=0.5) == 0.0
    assert skr.aplt_score({"u": ["c"]}, popularity=train, head_share=0.5) == 1.0
    # The k most popular of serendipity: ties by ascending id as well.
    assert skr.serendipity_score({"u": ["c"]}, {"u": {"c"}}, popularity=train, k=1) == 1.0
    assert skr.serendipity_score({"u": ["b"]}, {"u": {"b"}}, popularity=train, k=1) == 0.0


def test_undefined_users_follow_the_policy():
    rec = {"u1": ["a"], "u2": ["a", "b"]}
    feats = {"a": [1.0, 0.0], "b": [0.0, 1.0]}
    with pytest.warns(Warning, match="fewer than two items"):
        assert skr.ild_score(rec, item_features=feats) == 0.5
    assert skr.ild_score(rec, item_features=feats, no_relevant="skip") == 1.0
    assert skr.ild_score(rec, item_features=feats, no_relevant=1.0) == 1.0
    vals = skr.ild_score(rec, item_features=feats, no_relevant="skip", per_row=True)
    assert np.isnan(vals[0]) and vals[1] == 1.0
    assert math.isnan(skr.personalization_score({"u": ["a"]}))


# -- errors -------------------------------------------------------------------------


@pytest.mark.parametrize(
    "call, match",
    [
        (lambda: skr.coverage_score({"u": ["a", "z"]}, items=ITEMS), r"'z' is not in items"),
        (
            lambda: skr.novelty_score({"u": ["a", "d"]}, popularity=TRAIN),
            r"'d' is not in popularity",
        ),
        (
            lambda: skr.ild_score({"u": ["a", "d"]}, item_features=FEATS),
            r"'d' is not in item_features",
        ),
        (lambda: skr.evaluate_ranked(REC, None, ["coverage@2"]), r"items="),
        (lambda: skr.evaluate_ranked(REC, None, ["novelty@2"]), r"popularity="),
        (lambda: skr.evaluate_ranked(REC, None, ["ild@2"]), r"item_features="),
        (
            lambda: skr.evaluate_ranked(REC, None, ["serendipity@2"], popularity=TRAIN),
            r"needs the truth",
        ),
        (lambda: skr.serendipity_score(REC, TRUTH, popularity=TRAIN), r"needs a cut-off"),
        (
            lambda: skr.coverage_score({"u": ["a", "b", "a"]}, items=ITEMS),
            r"user 'u' holds item 'a' twice",
        ),
        (lambda: skr.entropy_score([[1, 2], [3, 3]]), r"user 1 holds item 3 twice"),
        (lambda: skr.coverage_score(REC, items=["a", "a", "b", "c"]), r"'a' twice"),
        (lambda: skr.arp_score(REC, popularity={"a": 1.0, "b": 0.5, "c": 0.5}), r"no counts"),
        (lambda: skr.novelty_score(REC, popularity={"a": 1.5, "b": 0.5, "c": 0.5}), r"share 1.5"),
        (
            lambda: skr.ild_score(REC, item_features={"a": [0, 0], "b": [1, 0], "c": [1, 1]}),
            r"'a' a zero vector",
        ),
        (lambda: skr.aplt_score(REC, popularity=TRAIN, head_share=0), r"head_share"),
        (
            lambda: skr.evaluate_ranked(REC, None, [("coverage@2", {"k": 3})], items=ITEMS),
            r"takes no options",
        ),
    ],
)
def test_errors_name_the_problem(call, match):
    with pytest.raises(InvalidParameterError, match=match):
        call()


def test_catalogue_checked_for_every_measure_when_given():
    with pytest.raises(InvalidParameterError, match="'z' is not in items"):
        skr.evaluate_ranked({"u": ["a", "z"]}, None, ["entropy"], items=ITEMS)


# -- random lists against the references ----------------------------------------------


@st.composite
def cases(draw):
    n_items = draw(st.integers(2, 12))
    n_users = draw(st.integers(2, 8))
    lists = [
        draw(st.lists(st.integers(0, n_items - 1), unique=True, max_size=6)) for _ in range(n_users)
    ]
    if not any(lists):
        lists[0] = [0]
    n_train = draw(st.integers(1, 6))
    # Every item gets a training user (ties in popularity are likely).
    train_u = list(range(n_items)) + draw(
        st.lists(st.integers(0, n_train - 1), min_size=0, max_size=20)
    )
    train_i = list(range(n_items)) + draw(
        st.lists(
            st.integers(0, n_items - 1),
            min_size=len(train_u) - n_items,
            max_size=len(train_u) - n_items,
        )
    )
    feats = {
        i: draw(st.lists(st.integers(-3, 3), min_size=3, max_size=3).filter(any))
        for i in range(n_items)
    }
    truth = [draw(st.sets(st.integers(0, n_items - 1), max_size=4)) for _ in range(n_users)]
    k = draw(st.integers(1, 6))
    share = draw(st.sampled_from([0.1, 0.2, 0.5, 0.8, 1.0]))
    return n_items, lists, (train_u, train_i), feats, truth, k, share


@settings(max_examples=150, deadline=None)
@given(cases())
def test_against_references(case):
    n_items, lists, train, feats, truth, k, share = case
    items = list(range(n_items))
    top = [lst[:k] for lst in lists]
    assert skr.coverage_score(lists, items=items, k=k) == pytest.approx(ref_coverage(top, items))
    assert skr.gini_score(lists, items=items, k=k) == pytest.approx(ref_gini(top, items))
    assert skr.entropy_score(lists, k=k) == pytest.approx(ref_entropy(top))
    if sum(map(bool, top)) >= 2:
        assert skr.personalization_score(lists, k=k) == pytest.approx(
            ref_personalization(top), abs=1e-12
        )
    kw = {"k": k, "no_relevant": "skip"}
    assert skr.novelty_score(lists, popularity=train, **kw) == pytest.approx(
        ref_novelty(top, train)
    )
    assert skr.arp_score(lists, popularity=train, **kw) == pytest.approx(ref_arp(top, train))
    assert skr.aplt_score(lists, popularity=train, head_share=share, **kw) == pytest.approx(
        ref_aplt(top, train, share)
    )
    if any(len(t) >= 2 for t in top):
        assert skr.ild_score(lists, item_features=feats, **kw) == pytest.approx(
            ref_ild(top, feats), abs=1e-9
        )
    assert skr.serendipity_score(lists, truth, popularity=train, k=k) == pytest.approx(
        ref_serendipity(lists, truth, train, k)
    )


@settings(max_examples=60, deadline=None)
@given(cases())
def test_string_ids_give_the_same_numbers(case):
    n_items, lists, train, _feats, _truth, k, share = case
    name = [f"i{j:02d}" for j in range(n_items)]
    slists = [[name[i] for i in lst] for lst in lists]
    strain = ([f"u{u}" for u in train[0]], [name[i] for i in train[1]])
    assert skr.gini_score(slists, items=name, k=k) == pytest.approx(
        skr.gini_score(lists, items=list(range(n_items)), k=k)
    )
    assert skr.aplt_score(
        slists, popularity=strain, k=k, head_share=share, no_relevant="skip"
    ) == pytest.approx(
        skr.aplt_score(lists, popularity=train, k=k, head_share=share, no_relevant="skip")
    )


# -- evaluate_ranked with data frames in memory ---------------------------------------

LONG = pd.DataFrame(
    {"user": ["u1", "u1", "u2", "u2"], "item": ["b", "a", "a", "c"], "rank": [2, 1, 1, 2]}
)
HELD = pd.DataFrame({"user_id": ["u1", "u2"], "item_id": ["b", "a"]})


def test_frames_match_dicts():
    metrics = ["ndcg@2", "recall@2", "coverage@2", "novelty@2"]
    want = skr.evaluate_ranked(REC, TRUTH, metrics, items=ITEMS, popularity=TRAIN)
    got = skr.evaluate_ranked(LONG, HELD, metrics, items=ITEMS, popularity=TRAIN)
    assert got.mean == pytest.approx(want.mean)
    by_score = LONG.drop(columns="rank").assign(score=[0.1, 0.9, 0.8, 0.7])
    got = skr.evaluate_ranked(by_score, HELD, metrics, items=ITEMS, popularity=TRAIN)
    assert got.mean == pytest.approx(want.mean)
    graded = HELD.assign(rel=[2, 0])
    assert skr.evaluate_ranked(LONG, graded, "recall@2", no_relevant=0.0)["recall@2"] == 0.5


def test_polars_frames():
    pl = pytest.importorskip("polars")
    got = skr.evaluate_ranked(pl.from_pandas(LONG), pl.from_pandas(HELD), ["ndcg@2"])
    want = skr.evaluate_ranked(REC, TRUTH, ["ndcg@2"])
    assert got.mean == pytest.approx(want.mean)


@pytest.mark.parametrize(
    "rec, truth, match",
    [
        (LONG.assign(user_id=LONG["user"]), HELD, "2 columns that could hold the user"),
        (LONG.assign(position=LONG["rank"]), HELD, "could hold the rank"),
        (LONG.drop(columns="rank"), HELD, "needs a rank column"),
        (LONG.assign(rank=[1, 1, 1, 2]), HELD, "rank 1 twice to user 'u1'"),
        (LONG, HELD.rename(columns={"item_id": "thing"}), "cannot find the item column"),
    ],
)
def test_frame_errors(rec, truth, match):
    with pytest.raises(InvalidParameterError, match=match):
        skr.evaluate_ranked(rec, truth, ["ndcg@2"])


def test_complete_rows_get_empty_lists():
    truth = {"u1": {"b"}, "u2": {"a"}, "u3": {"a"}}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = skr.evaluate_ranked(
            REC,
            truth,
            ["ndcg@2", "novelty@2", "coverage@2"],
            complete=True,
            popularity=TRAIN,
            items=ITEMS,
            no_relevant="skip",
        )
    assert list(res.query_ids) == ["u1", "u2", "u3"]
    assert np.isnan(res.per_query["novelty@2"][2])
    assert res["novelty@2"] == 0.75 and res["coverage@2"] == 0.75


def test_order_of_the_metrics_is_kept():
    res = skr.evaluate_ranked(
        REC, TRUTH, ["coverage@2", "ndcg@2", "novelty@2", "mrr"], items=ITEMS, popularity=TRAIN
    )
    assert res.metrics == ["coverage@2", "ndcg@2", "novelty@2", "mrr"]
    assert list(res.per_query) == ["ndcg@2", "novelty@2", "mrr"]


# -- evaluate on matrices: the columns are the catalogue ------------------------------


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 6), st.integers(2, 9), st.integers(1, 9), st.integers(0, 10**6))
def test_matrix_rows_are_lists_of_their_top_k(n, m, k, seed):
    rng = np.random.default_rng(seed)
    y_score = rng.permutation(n * m).reshape(n, m).astype(float)  # no ties
    y_true = rng.integers(0, 3, size=(n, m))
    train = (np.arange(m), np.arange(m))
    feats = (np.arange(m), rng.normal(size=(m, 3)))
    names = [
        f"{b}@{k}"
        for b in (
            "coverage",
            "gini",
            "entropy",
            "novelty",
            "aplt",
            "serendipity",
            "personalization",
            "ild",
        )
    ]
    kw = {"popularity": train, "item_features": feats, "no_relevant": "skip"}
    if k == 1:  # ild has no pair of items to compare in any list: its mean is NaN, said
        with pytest.warns(UserWarning, match=r"ild@1: every user was skipped \(all users "
                                             r"have fewer than two items in their list\)"):
            got = skr.evaluate(y_true, y_score, names, **kw)
    else:
        got = skr.evaluate(y_true, y_score, names, **kw)
    lists = np.argsort(-y_score, axis=1)[:, :k]
    truth = (np.repeat(np.arange(n), m), np.tile(np.arange(m), n), y_true.reshape(-1))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        want = skr.evaluate_ranked(lists, truth, names, items=np.arange(m), **kw)
    assert list(got) == names
    for name in names:
        assert got[name] == pytest.approx(want[name], nan_ok=True), name


def test_matrix_ties_across_the_cut_off():
    y_true = [[0, 1, 0, 0], [1, 0, 0, 1]]
    with pytest.raises(InvalidParameterError, match="row 0 has tied scores across the cut"):
        skr.evaluate(y_true, [[1, 1, 1, 0], [1, 2, 3, 4]], ["coverage@2"])
    # Ties inside the top k are one set; ignore_ties takes the later column of a
    # tie first: row 0's top 2 is columns 2 and 1, row 1's 3 and 2, so column 0
    # is never listed.
    assert skr.evaluate(y_true, [[2, 2, 1, 0], [1, 2, 3, 4]], ["coverage@2"]) == {"coverage@2": 1.0}
    assert skr.evaluate(y_true, [[1, 1, 1, 0], [1, 2, 3, 4]], ["coverage@2"], ignore_ties=True) == {
        "coverage@2": 0.75
    }
    out = skr.evaluate(y_true, [[3, 2, 1, 0], [1, 3, 0, 2]], ["ndcg@2", "coverage@2"], per_row=True)
    assert out["coverage@2"] == 0.75 and out["ndcg@2"].shape == (2,)
    with pytest.raises(InvalidParameterError, match="without qid or sample_weight"):
        skr.evaluate(y_true, [[3, 2, 1, 0], [1, 3, 0, 2]], ["coverage@2"], sample_weight=[1, 2])


# -- recmetrics' numbers on shared data -------------------------------------------------
# recmetrics 0.1.5 (prediction_coverage, novelty, personalization,
# intra_list_similarity) run on the data below gave these values; the settings
# that reproduce each are in docs/beyond_accuracy.md.

RM_PREDICTED = [
    ["a", "b", "c"],
    ["a", "c", "d"],
    ["b", "e", "a"],
    ["f", "a", "g"],
    ["a", "b", "h"],
    ["c", "d", "e"],
]
RM_TRAIN = (
    [
        "u6",
        "u5",
        "u1",
        "u2",
        "u3",
        "u4",
        "u5",
        "u1",
        "u2",
        "u3",
        "u1",
        "u4",
        "u2",
        "u5",
        "u6",
        "u6",
        "u3",
        "u4",
        "u5",
        "u6",
        "u1",
        "u2",
    ],
    [
        "i",
        "j",
        "a",
        "a",
        "a",
        "a",
        "a",
        "b",
        "b",
        "b",
        "c",
        "c",
        "d",
        "d",
        "e",
        "f",
        "g",
        "h",
        "e",
        "a",
        "f",
        "h",
    ],
)
RM_FEATURES = pd.DataFrame(
    {"x": [1, 0, 1, 0, 2, 1, 0, 1], "y": [0, 1, 1, 2, 0, 1, 1, 3], "z": [1, 1, 0, 0, 1, 2, 0, 1]},
    index=list("abcdefgh"),
)
RECMETRICS = {
    "prediction_coverage": 80.0,
    "novelty": 1.1027569448450867,
    "personalization": 0.5999999999999999,
    "intra_list_similarity": 0.4925032306031159,
}


def test_recmetrics_numbers():
    catalogue = sorted(set(RM_TRAIN[1]))  # recmetrics: the items of the training data
    cov = skr.coverage_score(RM_PREDICTED, items=catalogue)
    assert round(100 * cov, 2) == RECMETRICS["prediction_coverage"]
    assert skr.novelty_score(RM_PREDICTED, popularity=RM_TRAIN) == pytest.approx(
        RECMETRICS["novelty"], rel=1e-12
    )
    assert skr.personalization_score(RM_PREDICTED) == pytest.approx(
        RECMETRICS["personalization"], rel=1e-12
    )
    assert 1 - skr.ild_score(RM_PREDICTED, item_features=RM_FEATURES) == pytest.approx(
        RECMETRICS["intra_list_similarity"], rel=1e-12
    )


@settings(max_examples=40, deadline=None)
@given(cases(), st.randoms(use_true_random=False))
def test_shuffled_frames_give_the_numbers_of_dicts(case, rnd):
    n_items, lists, train, feats, truth, k, share = case
    users = [f"u{i}" for i in range(len(lists))]
    rows = [(u, item, r + 1) for u, lst in zip(users, lists) for r, item in enumerate(lst)]
    rnd.shuffle(rows)  # the rank column, not the order of rows, ranks
    frame = pd.DataFrame(rows, columns=["user_id", "item_id", "rank"])
    held = pd.DataFrame([(u, i) for u, t in zip(users, truth) for i in t], columns=["user", "item"])
    if held.empty:
        return
    names = [
        f"{b}@{k}"
        for b in (
            "coverage",
            "gini",
            "entropy",
            "personalization",
            "novelty",
            "aplt",
            "ild",
            "serendipity",
        )
    ]
    kw = {
        "items": list(range(n_items)),
        "popularity": train,
        "item_features": feats,
        "no_relevant": "skip",
        "head_share": share,
    }
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        got = skr.evaluate_ranked(frame, held, names, **kw)
        # Users without a list are absent from the frame: drop them from the dict.
        want = skr.evaluate_ranked(
            {u: lst for u, lst in zip(users, lists) if lst},
            {u: set(t) for u, t in zip(users, truth)},
            names,
            **kw,
        )
    assert got.mean == pytest.approx(want.mean, nan_ok=True, abs=1e-12)


def test_matrix_excluded_items_are_never_in_the_top_k():
    y_true = [[0, 1, 0, 0], [1, 0, 0, 1]]
    y_score = [[3, 2, 1, 0], [1, 3, 0, 2]]
    exclude = np.array([[True, False, False, False], [False, True, True, True]])
    # Row 0's top 2 without item 0: {1, 2}; row 1 has one candidate left: {0}.
    out = skr.evaluate(y_true, y_score, ["coverage@2", "entropy@2"], exclude=exclude)
    assert out["coverage@2"] == 0.75
    assert out["entropy@2"] == pytest.approx(np.log2(3))


# -- ILD at every scale of the features ------------------------------------------------


def exact_ild(lists, feats):
    """ILD from exact rationals: cos^2 = (a.b)^2 / (|a|^2 |b|^2) as a Fraction,
    which no scale of a or b over- or underflows, then one float sqrt."""
    vals = []
    for lst in lists:
        if len(lst) < 2:
            continue
        dists = []
        for i, j in combinations(lst, 2):
            a = [Fraction(x) for x in feats[i]]
            b = [Fraction(x) for x in feats[j]]
            dot = sum(x * y for x, y in zip(a, b))
            cos2 = dot * dot / (sum(x * x for x in a) * sum(y * y for y in b))
            sign = 1.0 if dot >= 0 else -1.0
            dists.append(1.0 - sign * math.sqrt(float(cos2)))
        vals.append(math.fsum(dists) / len(dists))
    return math.fsum(vals) / len(vals)


@st.composite
def scaled_features(draw):
    n_items = draw(st.integers(2, 6))
    dims = draw(st.integers(1, 4))
    base = {
        i: draw(st.lists(st.integers(-3, 3), min_size=dims, max_size=dims).filter(any))
        for i in range(n_items)
    }
    # One positive factor per vector, from 1e-300 to 1e300 (mantissa and exponent drawn).
    factor = {
        i: draw(st.floats(1.0, 9.99)) * 10.0 ** draw(st.integers(-300, 300))
        for i in range(n_items)
    }
    lists = [
        draw(st.lists(st.integers(0, n_items - 1), unique=True, min_size=2, max_size=6))
        for _ in range(draw(st.integers(1, 4)))
    ]
    return lists, base, factor


@settings(max_examples=150, deadline=None)
@given(scaled_features())
def test_ild_does_not_depend_on_the_scale_of_the_features(case):
    lists, base, factor = case
    plain = {i: [float(x) for x in v] for i, v in base.items()}
    scaled = {i: [x * factor[i] for x in v] for i, v in base.items()}
    want = exact_ild(lists, plain)
    got_plain = skr.ild_score(lists, item_features=plain)
    got_scaled = skr.ild_score(lists, item_features=scaled, per_row=True)
    assert got_plain == pytest.approx(ref_ild(lists, plain), abs=1e-9)
    assert got_plain == pytest.approx(want, abs=1e-9)
    # The scaled features hold the same directions: the same value at any scale,
    # and the exact reference on them agrees.
    assert float(np.mean(got_scaled)) == pytest.approx(want, abs=1e-9)
    assert exact_ild(lists, scaled) == pytest.approx(want, abs=1e-12)
    assert ((got_scaled >= 0) & (got_scaled <= 2)).all()


@settings(max_examples=150, deadline=None)
@given(
    st.lists(
        st.lists(st.floats(allow_nan=False, allow_infinity=False), min_size=3, max_size=3),
        min_size=2,
        max_size=5,
    )
)
def test_ild_in_its_range_for_any_finite_features(vectors):
    feats = dict(enumerate(vectors))
    lists = [list(range(len(vectors)))]
    if any(not any(v) for v in vectors):  # only an exact zero has no direction
        with pytest.raises(InvalidParameterError, match="a zero vector"):
            skr.ild_score(lists, item_features=feats)
        return
    got = skr.ild_score(lists, item_features=feats)
    assert 0.0 <= got <= 2.0
    assert got == pytest.approx(exact_ild(lists, feats), abs=1e-9)


@pytest.mark.parametrize("scale", [5e-324, 1e-300, 1e-170, 1.0, 1e154, 1e155, 1e300, 1.7e308])
def test_ild_of_the_issue_example_at_every_scale(scale):
    feats = {"a": [scale, 0.0], "c": [scale, scale]}
    assert skr.ild_score({"u": ["a", "c"]}, item_features=feats) == pytest.approx(
        1 - 1 / math.sqrt(2), abs=1e-15
    )


# -- a missing id is never an id ---------------------------------------------------------


@pytest.mark.parametrize(
    "call, match",
    [
        # NumPy would read ["x", nan, "y"] as the strings "x", "nan", "y": a user "nan".
        (lambda m: skr.arp_score(REC, popularity=(["x", m, "y"], ["a", "a", "b"])),
         r"the user ids of popularity holds a missing id \((nan|None) at entry 1\); every "
         r"entry needs an id"),
        (lambda m: skr.novelty_score(REC, popularity=(["x", "x", "y"], ["a", m, "b"])),
         r"the item ids of popularity holds a missing id"),
        (lambda m: skr.novelty_score(
            REC, popularity=pd.DataFrame({"user": ["x", m, "y"], "item": ["a", "a", "b"]})),
         r"the user ids of popularity (holds a missing id|must hold ids of one type)"),
        (lambda m: skr.novelty_score(REC, popularity={"a": 0.5, "b": 0.5, m: 0.5}),
         r"the ids of popularity holds a missing id"),
        (lambda m: skr.coverage_score({"u": ["a", m]}, items=ITEMS),
         r"the ranked item ids holds a missing id"),
        (lambda m: skr.coverage_score(REC, items=["a", "b", "c", m]),
         r"items \(the catalogue\) holds a missing id \((nan|None) at entry 3\)"),
        (lambda m: skr.ild_score(REC, item_features={**FEATS, m: [1.0, 2.0]}),
         r"the ids of item_features holds a missing id"),
        (lambda m: skr.evaluate_ranked({"u": ["a", m]}, {"u": {"a"}}, "mrr"),
         r"the ranked item ids holds a missing id"),
        (lambda m: skr.evaluate_ranked({"u": ["a", "b"], m: ["a"]}, {"u": {"a"}}, "mrr"),
         r"the user ids of the ranked lists holds a missing id"),
        (lambda m: skr.evaluate_ranked({"u": ["a", "b"]}, {"u": ["a", m]}, "mrr"),
         r"the truth's item ids holds a missing id"),
    ],
)
@pytest.mark.parametrize("missing", [float("nan"), None])
def test_a_missing_id_is_refused_not_read_as_text(call, match, missing):
    with pytest.raises(InvalidParameterError, match=match):
        call(missing)


def test_numbers_among_text_ids_are_refused_naming_both():
    with pytest.raises(
        InvalidParameterError,
        match=r"the user ids of popularity must hold ids of one type \(integers or strings\), "
        r"got mixed types or values such as 'x' and 3",
    ):
        skr.arp_score(REC, popularity=(["x", 3, "y"], ["a", "a", "b"]))
