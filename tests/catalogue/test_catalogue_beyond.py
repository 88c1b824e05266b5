"""evaluate_embeddings' beyond-accuracy measures: the values of evaluate_ranked
on the lists evaluate_embeddings(..., return_top=True) returns, for every
beyond-accuracy name of the registry, with ties in the scores (small integer
factors), users without candidates, and ids or row indices."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp

import sk_rankmetrics as skr
from sk_rankmetrics import InvalidParameterError
from sk_rankmetrics._metrics.registry import REGISTRY

BEYOND = sorted(n for n, s in REGISTRY.items() if s.family.startswith("beyond"))
NAN = float("nan")


def _case(seed, n_users=9, n_items=12):
    rng = np.random.default_rng(seed)
    U = rng.integers(-1, 2, size=(n_users, 2)).astype(np.float32)  # many ties
    V = rng.integers(-1, 2, size=(n_items, 2)).astype(np.float32)
    E = rng.random((n_users, n_items)) < 0.3
    E[0] = True  # a user without candidates: an empty list
    Y = rng.integers(1, 3, size=(n_users, n_items)) * (rng.random((n_users, n_items)) < 0.3)
    Y[E] = 0
    return U, V, sp.csr_array(Y.astype(float)), sp.csr_array(E.astype(float)), rng


def _ranked_inputs(top, users, items, truth):
    """The top lists and the truth in evaluate_ranked's forms (by id)."""
    fill = -1 if top.dtype.kind in "iu" else ""
    lists = {u: [i for i in row if i != fill] for u, row in zip(users, top.tolist())}
    t = sp.coo_array(truth)
    pairs = {}
    for r, c, v in zip(t.row, t.col, t.data):
        pairs.setdefault(users[r], {})[items[c]] = float(v)
    return lists, pairs


@pytest.mark.parametrize("by_id", [False, True])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_every_beyond_name_equals_evaluate_ranked_on_the_top_lists(seed, by_id):
    U, V, Y, E, rng = _case(seed)
    n_users, n_items = Y.shape
    users = [f"u{i}" for i in range(n_users)] if by_id else list(range(n_users))
    items = [f"i{i}" for i in range(n_items)] if by_id else list(range(n_items))
    # 40 random interactions, and one of every item (each needs a popularity).
    popularity = ([users[j] for j in rng.integers(0, n_users, 40)] + users[:1] * n_items,
                  [items[j] for j in rng.integers(0, n_items, 40)] + items)
    features = (items, rng.random((n_items, 3)))
    names = [f"{n}@4" for n in BEYOND]
    data = {"popularity": popularity, "item_features": features}
    ids = {"user_ids": users, "item_ids": items} if by_id else {}
    res, top = skr.evaluate_embeddings(U, V, Y, ["ndcg@4", *names], exclude=E,
                                       no_relevant=NAN, return_top=True, **data, **ids)
    lists, truth = _ranked_inputs(top, users, items, Y)
    want = skr.evaluate_ranked(lists, truth, names, items=items, no_relevant=NAN, **data)
    assert list(res.mean) == ["ndcg@4", *names]
    assert res.whole_set == want.whole_set
    assert set(res.whole_set) == {f"{n}@4" for n in BEYOND
                                  if REGISTRY[n].family == "beyond_set"}
    for name in names:
        np.testing.assert_allclose(res.mean[name], want.mean[name], rtol=1e-12, equal_nan=True)
        if name in want.per_query:
            assert list(want.query_ids) == list(res.query_ids)
            np.testing.assert_allclose(res.per_query[name], want.per_query[name],
                                       rtol=1e-12, equal_nan=True)
        else:
            assert name not in res.per_query


def test_the_whole_set_measures_need_no_argument_and_no_accuracy_metric():
    U, V, Y, E, _ = _case(3)
    names = [f"{n}@3" for n in BEYOND if REGISTRY[n].family == "beyond_set"]
    res, top = skr.evaluate_embeddings(U, V, Y, names, exclude=E, return_top=True)
    assert top.shape == (Y.shape[0], 3)  # the deepest cut-off named
    lists, _ = _ranked_inputs(top, list(range(Y.shape[0])), list(range(Y.shape[1])), Y)
    assert lists[0] == []  # the user without candidates
    want = skr.evaluate_ranked(lists, None, names, items=np.arange(Y.shape[1]))
    assert res.mean == pytest.approx(want.mean)
    assert res.per_query == {}


def test_the_global_k_reaches_the_beyond_names():
    U, V, Y, E, _ = _case(4)
    res = skr.evaluate_embeddings(U, V, Y, ["recall", "coverage"], k=5, exclude=E,
                                  no_relevant="skip")
    assert list(res.mean) == ["recall@5", "coverage@5"]


def test_popularity_no_measure_reads_is_refused():
    U, V, Y, _, _ = _case(5)
    with pytest.raises(InvalidParameterError) as err:
        skr.evaluate_embeddings(U, V, Y, ["ndcg@5", "coverage@5"], popularity=Y)
    readers = sorted(n for n, s in REGISTRY.items() if "popularity" in s.data)
    assert {"aplt", "arp", "novelty", "serendipity"} <= set(readers)
    assert str(err.value) == (
        "evaluate_embeddings: popularity= is read by none of the requested metrics; it is "
        f"read by {', '.join(f'{n}@k' for n in readers)}.")


def test_a_beyond_measure_without_its_data_names_the_argument():
    U, V, Y, _, _ = _case(6)
    with pytest.raises(InvalidParameterError, match=r"ild@5 needs item_features="):
        skr.evaluate_embeddings(U, V, Y, ["ild@5"])
