"""A data argument of the beyond-accuracy measures (items=, popularity=,
item_features=, head_share=) that none of the requested measures reads is
refused by every entry point that takes it: evaluate, evaluate_ranked (in
memory and on Dask), evaluate_embeddings, the scorers and the command line.
Read by a requested measure, the same argument is accepted."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import run_cli

import sk_rankmetrics as skr
from sk_rankmetrics._beyond.measures import MEASURES, unread_data
from sk_rankmetrics._utils.errors import InvalidParameterError

LISTS = {"u": ["a", "b", "c"], "v": ["b", "a"]}
TRUTH = {"u": ["a"], "v": ["c"]}
DATA = {
    "items": ["a", "b", "c"],
    "popularity": (["x", "y", "y", "z"], ["a", "a", "b", "c"]),  # training interactions
    "item_features": {"a": [1.0, 0.0], "b": [0.0, 1.0], "c": [1.0, 1.0]},
    "head_share": 0.5,
}
#: The measures that read each argument, from the registry's data.
READERS = {
    "items": set(MEASURES),  # coverage and gini need it; every measure checks its lists
    "popularity": {"novelty", "arp", "aplt", "serendipity"},
    "item_features": {"ild"},
    "head_share": {"aplt"},
}


def test_readers_follow_the_registry():
    assert {n for n, s in MEASURES.items() if "items" in s.data} == {"coverage", "gini"}
    for arg in ("popularity", "item_features"):
        assert READERS[arg] == {n for n, s in MEASURES.items() if arg in s.data}


@pytest.mark.parametrize("arg", sorted(DATA))
@pytest.mark.parametrize("name", sorted(MEASURES))
def test_evaluate_ranked_refuses_what_no_measure_reads(arg, name):
    kwargs = {arg: DATA[arg]}
    if name in READERS["popularity"]:  # what each measure needs, besides arg
        kwargs["popularity"] = DATA["popularity"]
    if name in READERS["item_features"]:
        kwargs["item_features"] = DATA["item_features"]
    if name in READERS["items"]:
        kwargs["items"] = DATA["items"]
    metrics = ["ndcg@2", f"{name}@2"]
    if name in READERS[arg]:
        res = skr.evaluate_ranked(LISTS, TRUTH, metrics, **kwargs)
        assert f"{name}@2" in res.mean
    else:
        readers = ", ".join(f"{n}@k" for n in sorted(READERS[arg]))
        assert arg != "items"  # every beyond measure reads it
        with pytest.raises(InvalidParameterError, match=(
                f"^evaluate_ranked: {arg}= is read by none of the requested metrics; "
                f"it is read by {readers}.$")):
            skr.evaluate_ranked(LISTS, TRUTH, metrics, **kwargs)


@pytest.mark.parametrize("arg", sorted(DATA))
def test_no_beyond_measure_reads_nothing(arg):
    with pytest.raises(InvalidParameterError, match=f"evaluate_ranked: {arg}= is read by none"):
        skr.evaluate_ranked(LISTS, TRUTH, ["ndcg@2", "mrr"], **{arg: DATA[arg]})


def test_default_head_share_is_not_an_argument_given():
    assert unread_data(["ndcg@2"], head_share=0.2) is None
    assert unread_data(["ndcg@2"], head_share=0.3).startswith("head_share= is read by none")


def test_evaluate_and_its_scorer_refuse_unread_popularity():
    y_true = np.array([[1, 0, 1], [0, 1, 0]])
    y_score = np.array([[0.3, 0.2, 0.1], [0.1, 0.3, 0.2]])
    with pytest.raises(InvalidParameterError, match=r"^evaluate: popularity= is read by none"):
        skr.evaluate(y_true, y_score, ["ndcg"], popularity={0: 0.5})
    with pytest.raises(InvalidParameterError, match=r"^evaluate: item_features= is read by none"):
        skr.evaluate(y_true, y_score, ["novelty@2"], popularity={0: 0.5, 1: 0.5, 2: 0.5},
                     item_features={0: [1.0], 1: [2.0], 2: [3.0]})
    got = skr.evaluate(y_true, y_score, ["novelty@2"], popularity={0: 0.5, 1: 0.25, 2: 0.5})
    assert np.isfinite(got["novelty@2"])


def test_evaluate_embeddings_refuses_unread_head_share():
    rng = np.random.default_rng(0)
    users, items = rng.normal(size=(4, 3)), rng.normal(size=(6, 3))
    truth = np.eye(4, 6)
    with pytest.raises(InvalidParameterError,
                       match=r"^evaluate_embeddings: head_share= is read by none.*aplt@k\.$"):
        skr.evaluate_embeddings(users, items, truth, ["ndcg@2", "coverage@2"], head_share=0.4)


def test_dask_evaluate_ranked_refuses_before_computing():
    db = pytest.importorskip("dask.bag")
    bag = db.from_sequence(list(LISTS.items()), npartitions=2)
    truth = db.from_sequence(list(TRUTH.items()), npartitions=1)
    with pytest.raises(InvalidParameterError, match=r"^evaluate_ranked: items= is read by none"):
        skr.evaluate_ranked(bag, truth, ["ndcg@2"], items=DATA["items"])


@pytest.mark.slow
@pytest.mark.parametrize("option, value, message", [
    ("--items", "items.txt", "--items is read by none of the requested metrics; it is read "
     "by every beyond-accuracy measure (coverage@k and gini@k need it, the others check "
     "their lists against it)."),
    ("--popularity", "train.txt", "--popularity is read by none"),
    ("--head-share", "0.4", "--head-share is read by none of the requested metrics; it is "
     "read by aplt@k."),
])
@pytest.mark.parametrize("command", ["evaluate", "compare"])
def test_command_refuses_an_unread_option(tmp_path, command, option, value, message):
    (tmp_path / "qrels.txt").write_text("u1 0 a 1\nu2 0 d 1\n")
    (tmp_path / "run.txt").write_text("u1 Q0 a 1 3 A\nu1 Q0 b 2 2 A\nu2 Q0 d 1 1 A\n")
    (tmp_path / "run2.txt").write_text("u1 Q0 b 1 3 B\nu1 Q0 a 2 2 B\nu2 Q0 d 1 1 B\n")
    (tmp_path / "items.txt").write_text("a b c d\n")
    (tmp_path / "train.txt").write_text("x a\ny b\n")
    runs = ["run.txt", "run2.txt"] if command == "compare" else ["run.txt"]
    out = run_cli(command, "qrels.txt", *runs, "-m", "ndcg@2", option, value, cwd=tmp_path)
    assert out.returncode == 2
    assert f"sk-rankmetrics {command}: error: {message}" in out.stderr


def test_scorer_refuses_unread_data_when_made():
    with pytest.raises(InvalidParameterError, match=(
            r"^RankingScorer\('coverage@2'\): head_share= is read by none of the requested "
            r"metrics; it is read by aplt@k\.$")):
        skr.make_ranking_scorer("coverage@2", head_share=0.3)
    with pytest.raises(InvalidParameterError, match=r"^RankingScorer\('novelty@2'\): item_feat"):
        skr.make_ranking_scorer("novelty@2", popularity=DATA["popularity"],
                                item_features=DATA["item_features"])
    assert skr.make_ranking_scorer("aplt@2", popularity=DATA["popularity"], head_share=0.3)
