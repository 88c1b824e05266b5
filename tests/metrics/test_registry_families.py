"""One registry of every measure: each family listed by ``metric_names``, each
name computed by an entry point of its family and refused by the others with
one message naming where it is computed."""

from __future__ import annotations

import numpy as np
import pytest

import sk_rankmetrics as skr
from sk_rankmetrics._metrics.names import by_family
from sk_rankmetrics._metrics.registry import DIVERSITY, FAMILIES, METRICS, REGISTRY
from sk_rankmetrics._utils.errors import InvalidParameterError

BEYOND = [n for n, s in REGISTRY.items() if s.family.startswith("beyond")]


def test_every_family_is_listed_and_counted():
    counts = {f: len(skr.metric_names(family=f)) for f in FAMILIES}
    # presets count with their base's family (ndcg_exp, dcg_exp, nerr, gm_map, gm_bpref)
    assert counts == {"accuracy": 18, "trec_eval": 25, "cwl": 8, "diversity": 9,
                      "beyond_list": 5, "beyond_set": 4}
    assert sorted(skr.metric_names()) == sorted(
        {n for f in FAMILIES for n in skr.metric_names(family=f)})
    assert set(REGISTRY) == {*METRICS, *DIVERSITY, *BEYOND}
    assert set(BEYOND) == {"coverage", "gini", "entropy", "personalization", "novelty",
                           "arp", "aplt", "ild", "serendipity"}


def test_each_spec_says_what_it_reads_and_computes():
    for spec in REGISTRY.values():
        assert spec.family in FAMILIES and spec.data
        if spec.family.startswith("beyond"):
            assert spec.data[0] == "lists" and callable(getattr(skr, spec.function))
    assert REGISTRY["gini"].greater_is_better is False
    assert REGISTRY["arp"].greater_is_better is False
    assert REGISTRY["coverage"].data == ("lists", "items")
    assert REGISTRY["serendipity"].data == ("lists", "popularity", "truth")


def test_family_argument_is_checked():
    with pytest.raises(InvalidParameterError, match="family"):
        skr.metric_names(family="fairness")


@pytest.mark.parametrize("name", [f"{n}@2" for n in BEYOND])
def test_beyond_names_are_refused_where_the_whole_list_set_is_not_seen(name):
    """RankingAccumulator and evaluate_run say where it works."""
    with pytest.raises(InvalidParameterError) as err:
        skr.RankingAccumulator([name])
    message = str(err.value)
    assert message.startswith(f"{name!r} is one of the beyond-accuracy measures")
    assert "Computed by evaluate_ranked" in message
    assert f"{REGISTRY[name[:-2]].function}()" in message
    if REGISTRY[name[:-2]].family == "beyond_set":
        assert "it needs the whole set of lists" in message


def test_coverage_in_the_accumulator_names_evaluate_ranked_and_return_top():
    with pytest.raises(InvalidParameterError) as err:
        skr.RankingAccumulator(["coverage@10"])
    assert str(err.value) == (
        "'coverage@10' is one of the beyond-accuracy measures of the whole set of lists "
        "(one value, no per-user values); it needs the whole set of lists. Computed by "
        "evaluate_ranked, evaluate_embeddings (the top k items of each user), evaluate "
        "(the top k of each row of scores), the scorers, the command line's -m, "
        "coverage_score().")


def test_beyond_name_in_evaluate_run_is_refused_with_where(tmp_path):
    run, qrels = tmp_path / "run", tmp_path / "qrels"
    run.write_text("q Q0 a 1 2.0 r\nq Q0 b 2 1.0 r\n")
    qrels.write_text("q 0 a 1\n")
    with pytest.raises(InvalidParameterError, match="Computed by evaluate_ranked"):
        skr.evaluate_run(qrels, run, ["novelty@2"])


@pytest.mark.parametrize("name", sorted(DIVERSITY))
def test_diversity_scorer_is_refused_when_built(name):
    with pytest.raises(InvalidParameterError) as err:
        skr.RankingScorer(name)
    assert str(err.value).startswith(f"RankingScorer: {name!r} is one of the diversity")
    assert "evaluate_run (a diversity qrels)" in str(err.value)


def test_each_beyond_name_is_computed_by_evaluate_ranked():
    rec = {"u": ["a", "b"], "v": ["b", "c"]}
    truth = {"u": ["a"], "v": ["c"]}
    feats = (["a", "b", "c"], np.eye(3))
    res = skr.evaluate_ranked(rec, truth, [f"{n}@2" for n in BEYOND], items=["a", "b", "c"],
                              popularity=(["x", "y", "y", "z"], ["a", "a", "b", "c"]),
                              item_features=feats)
    assert set(res.mean) == {f"{n}@2" for n in BEYOND}


def test_by_family_splits_every_vocabulary():
    fams = by_family(["ndcg@10", "coverage@5", "alpha_nDCG@20", "P_5", "MAP-IA", "gini"])
    assert fams.beyond == ["coverage@5", "gini"]
    assert fams.diversity == ["alpha_nDCG@20", "MAP-IA"]
    assert fams.others == ["ndcg@10", "alpha_nDCG@20", "P_5", "MAP-IA"]
    with pytest.raises(InvalidParameterError, match="'alpha_nDCG@20' is a diversity measure"):
        fams.diversity_only()
    assert by_family(["alpha_ndcg", "coverage"]).diversity_only() is True
    assert by_family("ndcg").others == "ndcg"  # the argument itself when nothing is split
