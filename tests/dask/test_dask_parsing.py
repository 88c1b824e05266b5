"""The Dask readers of ranked lists and truth read them with the one parser of
evaluate_ranked (:mod:`sk_rankmetrics._inputs.id_pairs`): a set for a ranked
list, an item listed twice, a truth mixing ``{id: relevance}`` mappings and
plain collections (also across the partitions of a bag) get the in-memory
answer and message (the Dask one adds where it was found), for the core
measures and the beyond-accuracy ones alike."""

from __future__ import annotations

import re
import warnings

import pytest

import sk_rankmetrics as skr

db = pytest.importorskip("dask.bag")

CASES = {
    "a set for a ranked list": ({"u": {"a", "b"}, "v": ["a"]}, {"u": ["a"], "v": ["a"]}),
    "an item listed twice": ({"u": ["a", "b", "a"], "v": ["a"]}, {"u": ["a"], "v": ["a"]}),
    "mixed truth forms": ({"u": ["a", "b"], "v": ["a"]}, {"u": {"a": 1}, "v": ["a"]}),
    "mixed truth forms, an empty set": ({"u": ["a", "b"], "v": ["a"]},
                                        {"u": {"a": 2}, "v": set()}),
    "a string for a list": ({"u": "ab", "v": ["a"]}, {"u": ["a"], "v": ["a"]}),
    "tuples and graded truth": ({"u": ("a", "b"), "v": ["b", "a"]},
                                {"u": {"a": 2, "b": 1}, "v": {"a": 1}}),
    "plain truth, a user without items": ({"u": ["a", "b"], "v": ["b"]},
                                          {"u": {"a", "b"}, "v": set()}),
}
METRICS = {"core": ["ndcg@2", "recall@2"],
           "beyond": ["coverage@2", "novelty@2", "serendipity@2"]}
DATA = {"items": ["a", "b"], "popularity": {"a": 0.5, "b": 0.25}}

#: What a Dask message adds: where in the partitions it was found.
WHERE = re.compile(r" \((?:recommended |truth )?in partition \d+[^)]*\)$")


def _answer(rec, truth, metrics):
    kw = DATA if metrics == METRICS["beyond"] else {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            res = skr.evaluate_ranked(rec, truth, metrics, no_relevant="skip", **kw)
        except Exception as err:
            return type(err).__name__, WHERE.sub("", str(err))
    return "values", {k: round(v, 12) for k, v in res.mean.items()}


def _bag(d):
    return db.from_sequence(list(d.items()), npartitions=2)  # one user per partition


@pytest.mark.parametrize("family", sorted(METRICS))
@pytest.mark.parametrize("case", sorted(CASES))
def test_dask_bags_answer_as_evaluate_ranked(case, family):
    rec, truth = CASES[case]
    want = _answer(rec, truth, METRICS[family])
    assert _answer(_bag(rec), truth, METRICS[family]) == want
    assert _answer(_bag(rec), _bag(truth), METRICS[family]) == want


def test_the_battery_sees_each_answer():
    """Errors of each kind and values: a battery whose cases could all pass alike
    would show nothing."""
    got = {case: _answer(*CASES[case], METRICS["core"])[1] for case in CASES}
    assert "a set has no order" in got["a set for a ranked list"]
    assert "holds item 'a' twice" in got["an item listed twice"]
    assert got["mixed truth forms"] == got["mixed truth forms, an empty set"] == (
        "truth mixes {id: relevance} mappings and plain id collections; use one form for "
        "every user.")
    assert "got a string for some user" in got["a string for a list"]
    assert isinstance(got["tuples and graded truth"], dict)
    assert isinstance(got["plain truth, a user without items"], dict)
