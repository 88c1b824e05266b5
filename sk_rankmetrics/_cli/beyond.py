"""The beyond-accuracy measures on the command line (``sk-rankmetrics evaluate``).

``-m coverage@10`` and the other names of :mod:`sk_rankmetrics._beyond` read
each run's lists (ranked by score, as trec_eval ranks them) with the data of
``--items``, ``--popularity``, ``--item-features`` and ``--head-share``; the
truth (for serendipity) is the qrels.
"""

from __future__ import annotations

import argparse
import os

import numpy as np

from .._beyond.measures import is_beyond
from .._metrics.names import by_family


def add_beyond_options(p):
    """The data options of the beyond-accuracy measures."""
    p.add_argument(
        "--items",
        metavar="FILE",
        help="the catalogue, for coverage@k and gini@k: a text file of item ids "
        "(whitespace-separated), or CSV/TSV/Parquet with an item column",
    )
    p.add_argument(
        "--popularity",
        metavar="FILE",
        help="training interactions, for novelty@k, arp@k, aplt@k and "
        "serendipity@k: a text file of 'user item' lines, or CSV/TSV/Parquet "
        "with user and item columns",
    )
    p.add_argument(
        "--item-features",
        metavar="FILE",
        help="item feature vectors, for ild@k: CSV/TSV/Parquet with an item "
        "column and numeric columns",
    )
    p.add_argument(
        "--head-share",
        type=_share,
        default=0.2,
        metavar="X",
        help="the share of training interactions the head reaches, for aplt@k (default 0.2)",
    )


def _share(text):
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
    if not 0 < value <= 1:
        raise argparse.ArgumentTypeError(
            f"{value} is out of range: the head share must be in (0, 1]"
        )
    return value


def _frame(path):
    import pandas as pd

    ext = os.path.splitext(os.fspath(path))[1].lower()
    if ext == ".parquet":
        return pd.read_parquet(path)
    return pd.read_csv(path, sep="\t" if ext == ".tsv" else ",", dtype=str)


def _tabular(path):
    return os.path.splitext(os.fspath(path))[1].lower() in (".csv", ".tsv", ".parquet")


def _items(path):
    if _tabular(path):
        from .._inputs.id_pairs import ITEM_COLUMNS

        df = _frame(path)
        found = [c for c in ITEM_COLUMNS if c in df.columns]
        if len(found) != 1:
            raise ValueError(
                f"--items {os.fspath(path)!r}: needs one item column "
                f"({', '.join(ITEM_COLUMNS)}), found {found or 'none'}."
            )
        return df[found[0]].astype(str).to_numpy()
    with open(path, encoding="utf-8") as f:
        return np.array(f.read().split(), dtype=str)


def _popularity(path):
    if _tabular(path):
        return _frame(path).astype(str)
    users, items = [], []
    with open(path, encoding="utf-8") as f:
        for number, line in enumerate(f, 1):
            words = line.split()
            if not words:
                continue
            if len(words) < 2:
                raise ValueError(
                    f"--popularity {os.fspath(path)!r} line {number}: needs "
                    "'user item', got one word."
                )
            users.append(words[0])
            items.append(words[1])
    return np.array(users, dtype=str), np.array(items, dtype=str)


def _features(path):
    from .._inputs.id_pairs import ITEM_COLUMNS

    df = _frame(path) if _tabular(path) else None
    if df is None:
        raise ValueError(
            f"--item-features {os.fspath(path)!r}: give a .csv, .tsv or "
            ".parquet file with an item column and numeric columns."
        )
    found = [c for c in ITEM_COLUMNS if c in df.columns]
    if len(found) != 1:
        raise ValueError(
            f"--item-features {os.fspath(path)!r}: needs one item column "
            f"({', '.join(ITEM_COLUMNS)}), found {found or 'none'}."
        )
    ids = df[found[0]].astype(str).to_numpy()
    return ids, df.drop(columns=found[0]).to_numpy(dtype=np.float64)


def has_beyond(metrics):
    return any(map(is_beyond, metrics or ()))


def score_run(qrels, run, metrics, args, evaluate_run, **settings):
    """``evaluate_run`` for the other metrics, the beyond-accuracy ones added
    from the run's lists (ranked by score, ties by document id descending)."""
    from .._beyond.measures import BeyondData
    from .._evaluation.pipeline import beyond_result
    from .._inputs.preranked import RankedLists, group_long

    others, _, beyond, order = by_family(metrics)
    result = evaluate_run(qrels, run, others, **settings) if others else None
    ids, lens, flat, _ = group_long(run.qid, run.docno, run.score, order="score")
    data = {
        "items": _items(args.items) if getattr(args, "items", None) else None,
        "popularity": (_popularity(args.popularity) if getattr(args, "popularity", None) else None),
        "item_features": (
            _features(args.item_features) if getattr(args, "item_features", None) else None
        ),
    }
    return beyond_result(
        beyond, None, RankedLists(ids, lens, flat), (qrels.qid, qrels.docno, qrels.relevance),
        BeyondData(**data, head_share=getattr(args, "head_share", 0.2)),
        threshold=settings.get("threshold"),
        no_relevant="warn" if settings.get("no_relevant") is None else settings["no_relevant"],
        result=result, order=order)


def query_values(res, name):
    """A measure's per-query values; NaN for a measure of the whole list set
    (it has one value, in the mean)."""
    values = res.per_query.get(name)
    return np.full(len(res.query_ids), np.nan) if values is None else values
