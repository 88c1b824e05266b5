"""The beyond-accuracy measures on Dask bags and frames give the in-memory numbers."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest

import sk_rankmetrics as skr
from sk_rankmetrics import InvalidParameterError

dask = pytest.importorskip("dask")
dd = pytest.importorskip("dask.dataframe")
db = pytest.importorskip("dask.bag")

NAMES = [
    "ndcg@5",
    "coverage@5",
    "gini@5",
    "entropy@5",
    "personalization@5",
    "novelty@5",
    "arp@5",
    "aplt@5",
    "ild@5",
    "serendipity@5",
    "coverage@3",
]


def _data(seed, n=60, m=40, ids=int):
    rng = np.random.default_rng(seed)
    lens = rng.integers(0, 9, size=n)
    rec = [rng.choice(m, size=L, replace=False) for L in lens]
    name = (lambda i: i) if ids is int else (lambda i: f"i{i}")
    df = pd.DataFrame(
        {
            "user": np.repeat(np.arange(n), lens),
            "item": [name(i) for r in rec for i in r],
            "rank": np.concatenate([np.arange(1, L + 1) for L in lens]),
        }
    )
    truth = pd.DataFrame(
        {"user": rng.integers(0, n + 5, 150), "item": [name(i) for i in rng.integers(0, m, 150)]}
    )
    truth = truth.drop_duplicates()
    items = [name(i) for i in range(m)]
    train = (rng.integers(0, 30, 400), items + [name(i) for i in rng.integers(0, m, 400 - m)])
    feats = (items, rng.normal(size=(m, 4)))
    return df, truth, {"items": items, "popularity": train, "item_features": feats}


@pytest.mark.parametrize(
    "seed, ids, complete", [(0, int, False), (1, str, False), (2, int, True), (3, str, True)]
)
def test_frames_give_the_in_memory_numbers(seed, ids, complete):
    df, truth, kw = _data(seed, ids=ids)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        want = skr.evaluate_ranked(df, truth, NAMES, complete=complete, no_relevant="skip", **kw)
        with dask.config.set(scheduler="sync"):
            got = skr.evaluate_ranked(
                dd.from_pandas(df, npartitions=3),
                dd.from_pandas(truth, npartitions=2),
                NAMES,
                complete=complete,
                no_relevant="skip",
                **kw,
            )
    assert got.metrics == want.metrics == NAMES
    assert got.whole_set == want.whole_set
    for name in NAMES:
        assert got[name] == pytest.approx(want[name], abs=1e-12, nan_ok=True), name
    np.testing.assert_array_equal(got.query_ids, np.sort(want.query_ids))
    order = np.argsort(want.query_ids, kind="stable")
    for name in want.per_query:
        np.testing.assert_allclose(
            got.per_query[name], want.per_query[name][order], atol=1e-12, equal_nan=True
        )


def test_bag_and_lists_alone():
    df, _, kw = _data(4)
    lists = {u: g.sort_values("rank")["item"].tolist() for u, g in df.groupby("user")}
    bag = db.from_sequence(list(lists.items()), npartitions=3)
    names = ["coverage@5", "personalization@5", "novelty@5"]
    with dask.config.set(scheduler="sync"):
        got = skr.evaluate_ranked(bag, None, names, items=kw["items"],
                                  popularity=kw["popularity"])
    want = skr.evaluate_ranked(lists, None, names, items=kw["items"],
                               popularity=kw["popularity"])
    for name in names:
        assert got[name] == pytest.approx(want[name], abs=1e-12)


def test_dask_errors():
    df, truth, kw = _data(5)
    frame = dd.from_pandas(df, npartitions=2)
    with pytest.raises(InvalidParameterError, match="compute=False"):
        skr.evaluate_ranked(
            frame, dd.from_pandas(truth, npartitions=1), ["coverage@5"], compute=False,
            items=kw["items"])
    with pytest.raises(InvalidParameterError, match="items="):
        skr.evaluate_ranked(frame, None, ["coverage@5"])
    bad = df.assign(item=df["item"].where(df.index != 3, 999))
    with (
        dask.config.set(scheduler="sync"),
        pytest.raises(InvalidParameterError, match="999 is not in items"),
    ):
        skr.evaluate_ranked(dd.from_pandas(bad, npartitions=2), None, ["coverage@5"],
                            items=kw["items"])
