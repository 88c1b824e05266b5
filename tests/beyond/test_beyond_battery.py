"""The nine public beyond-accuracy functions against evaluate_ranked, on a
generated grid of inputs: each refuses exactly what evaluate_ranked refuses
(same error class and message) and gives the same values, since both read the
lists and truth through one parser and compute through one path.

The grid: lists as dicts, lists of lists, 2-D arrays, with sets, repeated
items, empty lists, unknown items (not in the catalogue or the popularity),
truth as dicts of ids, dicts of levels, a mix of both, tuples, and the cut-off
as k=, as '@k', absent, or both."""

from __future__ import annotations

import itertools
import math
import warnings
from functools import partial

import numpy as np
import pytest

import sk_rankmetrics as skr

ITEMS = ["a", "b", "c", "d", "e"]
POPULARITY = (["x", "y", "y", "z", "z", "z", "w"], ["a", "a", "b", "c", "a", "d", "e"])
FEATURES = (ITEMS, np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0], [2.0, 1.0], [0.5, 3.0]]))

RECOMMENDED = {
    "dict": {"u": ["a", "b", "c"], "v": ["c", "d"], "w": ["e"]},
    "list": [["a", "b", "c"], ["c", "d"], ["e"]],
    "array": np.array([["a", "b"], ["c", "d"], ["e", "a"]]),
    "empty list": {"u": ["a", "b"], "v": [], "w": ["e"]},
    "set": {"u": {"a", "b", "c"}, "v": ["a"], "w": ["e"]},
    "frozenset": [["a"], frozenset({"b", "c"}), ["e"]],
    "repeat": {"u": ["a", "b", "a"], "v": ["c"], "w": ["e"]},
    "unknown item": {"u": ["a", "q"], "v": ["c"], "w": ["e"]},
    "string list": {"u": "ab", "v": ["c"], "w": ["e"]},
    "int ids": {"u": [0, 1], "v": [2], "w": [3]},
}
TRUTH = {
    "none": None,
    "ids": {"u": ["a"], "v": ["d"], "w": ["e"]},
    "levels": {"u": {"a": 2, "c": 1}, "v": {"d": 1}, "w": {"e": 0}},
    "mixed": {"u": {"a": 1}, "v": ["d"], "w": ["e"]},
    "tuple": (["u", "v"], ["a", "d"], [1, 2]),
    "bad tuple": (["u"],),
    "set truth": {"u": {"a", "c"}, "v": {"d"}, "w": set()},
}
CUTOFF = {"none": (None, ""), "k=2": (2, ""), "@2": (None, "@2"), "k and @": (2, "@2")}

#: Each function, the name evaluate_ranked knows it by, and its data keywords.
FUNCTIONS = {
    "coverage": (skr.coverage_score, {"items": ITEMS}),
    "gini": (skr.gini_score, {"items": ITEMS}),
    "entropy": (skr.entropy_score, {}),
    "personalization": (skr.personalization_score, {}),
    "novelty": (skr.novelty_score, {"popularity": POPULARITY}),
    "arp": (skr.arp_score, {"popularity": POPULARITY}),
    "aplt": (skr.aplt_score, {"popularity": POPULARITY}),
    "ild": (skr.ild_score, {"item_features": FEATURES}),
    "serendipity": (skr.serendipity_score, {"popularity": POPULARITY}),
}
TAKES_TRUTH = {"serendipity"}


def _outcome(call):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return "value", call()
        except Exception as exc:
            return "error", (type(exc).__name__, str(exc))


def _strip_where(outcome, name):
    """Messages name the function called (``novelty_score:`` vs ``evaluate_ranked:``)."""
    kind, got = outcome
    if kind == "error":
        cls, text = got
        for where in (f"{name}_score: ", "evaluate_ranked: "):
            text = text.replace(where, "")
        return kind, (cls, text)
    return outcome


def _same(a, b):
    if a[0] != b[0]:
        return False
    if a[0] == "error":
        return a[1] == b[1]
    x, y = a[1], b[1]
    return (math.isnan(x) and math.isnan(y)) or x == pytest.approx(y, rel=1e-12, abs=1e-15)


CASES = [
    (name, rec, truth, cut)
    for name in FUNCTIONS
    for rec, truth, cut in itertools.product(RECOMMENDED, TRUTH, CUTOFF)
    if (truth != "none") == (name in TAKES_TRUTH) or (name in TAKES_TRUTH and truth == "none")
]


@pytest.mark.parametrize(("name", "rec", "truth", "cut"), CASES)
def test_function_answers_as_evaluate_ranked(name, rec, truth, cut):
    func, data = FUNCTIONS[name]
    recommended, t = RECOMMENDED[rec], TRUTH[truth]
    k, at = CUTOFF[cut]
    users = None
    args = (recommended, t) if name in TAKES_TRUTH else (recommended,)
    if at:
        # the functions take the cut-off as k= only; '@k' is evaluate_ranked's spelling
        mine = _outcome(lambda: func(*args, k=2, users=users, **data))
    else:
        mine = _outcome(lambda: func(*args, k=k, users=users, **data))
    theirs = _outcome(lambda: _ranked(name, recommended, t, k, at, data))
    assert _same(_strip_where(mine, name), _strip_where(theirs, name)), (mine, theirs)


def _ranked(name, recommended, truth, k, at, data):
    label = f"{name}{at}"
    if at and k is not None:  # the cut-off twice: evaluate_ranked keys the name as written
        k = None
    result = skr.evaluate_ranked(recommended, truth, [label], k=k, **data)
    return next(iter(result.mean.values()))


def test_the_grid_reaches_every_answer():
    """The battery is not vacuous: it holds values and each refusal."""
    seen = []
    for name, rec, truth, cut in CASES:
        func, data = FUNCTIONS[name]
        args = (RECOMMENDED[rec], TRUTH[truth]) if name in TAKES_TRUTH else (RECOMMENDED[rec],)
        seen.append(_outcome(partial(func, *args, k=CUTOFF[cut][0], **data)))
    assert sum(kind == "value" for kind, _ in seen) > 100
    messages = " ".join(got[1] for kind, got in seen if kind == "error")
    for refusal in ("a set has no order", "holds item 'a' twice", "mixes {id: relevance}",
                    "'q' is not in",
                    "got a string", "needs a cut-off", "as a tuple must be"):
        assert refusal in messages, refusal


@pytest.mark.parametrize("name", sorted(FUNCTIONS))
def test_per_row_values_are_evaluate_rankeds(name):
    func, data = FUNCTIONS[name]
    rec = RECOMMENDED["dict"]
    truth = TRUTH["levels"]
    args = (rec, truth) if name in TAKES_TRUTH else (rec,)
    if name in ("coverage", "gini", "entropy", "personalization"):
        pytest.skip("a measure of the whole list set has no per-user values")
    policy = {} if name in TAKES_TRUTH else {"no_relevant": "skip"}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        mine = func(*args, k=2, per_row=True, **policy, **data)
        res = skr.evaluate_ranked(rec, truth if name in TAKES_TRUTH else None, [f"{name}@2"],
                                  **policy, **data)
    np.testing.assert_array_equal(mine, res.per_query[f"{name}@2"])


def test_the_drifts_take_evaluate_rankeds_answer():
    """The examples of issue 34: a set cut at k in hash order, a mixed truth."""
    with pytest.raises(skr.InvalidParameterError, match="a set has no order"):
        skr.coverage_score({"u": {"a", "b", "c"}, "v": ["a"]}, items=["a", "b", "c"], k=1)
    with pytest.raises(skr.InvalidParameterError, match="a set has no order"):
        skr.novelty_score({"u1": {"a", "b"}}, popularity={"a": 0.5, "b": 0.5})
    with pytest.raises(skr.InvalidParameterError, match=r"mixes \{id: relevance\} mappings"):
        skr.serendipity_score({"u": ["a"], "v": ["b"]}, {"u": {"a": 1}, "v": ["b"]},
                              popularity={"a": 0.5, "b": 0.5}, k=1)
    with pytest.raises(ValueError, match="the ranked list of user 'u' holds item 'a' twice"):
        skr.entropy_score({"u": ["a", "b", "a"]})
