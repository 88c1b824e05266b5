"""Data frames to TREC qrels and runs: the column roles and their names."""

from __future__ import annotations

import textwrap
from collections.abc import Sequence
from typing import Any

from numpy.typing import NDArray

from .._inputs.id_pairs import ITEM_COLUMNS, QUERY_COLUMNS, RELEVANCE_COLUMNS, first_missing
from .._inputs.id_pairs import column_numbers as _numbers
from .._utils.columns import column_array
from .._utils.docstrings import shared_doc_with
from .._utils.types import Frame
from .trec import TrecQrels, TrecRun


def _columns(df: Frame, roles: dict[str, tuple[str, str | None, Sequence[str]]],
             where: str) -> dict[str, NDArray[Any]]:
    """The columns of a data frame (pandas or polars) for each role, as arrays.

    ``roles`` maps a role (``"query"``, ...) to ``(argument, given name,
    candidate names)``. A role without a given name takes the one candidate
    the frame has: none, or several (``qid`` and ``query``, say), is an
    error naming them. Two roles may not share a column, and a column may
    not hold a missing value (None, NaN, pandas' NA, polars' null).
    """
    have = [str(c) for c in df.columns]
    chosen = {}
    for role, (arg, given, names) in roles.items():
        if given is not None:
            if given not in have:
                raise ValueError(f"{where}: the data frame has no column {given!r} for the "
                                 f"{role} ({arg}={given!r}); its columns are {have}.")
            chosen[role] = given
            continue
        found = [c for c in names if c in have]
        if not found:
            raise ValueError(f"{where}: cannot find the {role} column: looked for "
                             f"{list(names)}, the data frame has {have}; name it with "
                             f"{arg}=....")
        if len(found) > 1:
            raise ValueError(f"{where}: the data frame has {len(found)} columns that could "
                             f"hold the {role}: {found}; name the one to use with "
                             f"{arg}={found[0]!r} (or drop the others).")
        chosen[role] = found[0]
    names = list(chosen.values())
    for name in set(names):
        if names.count(name) > 1:
            roles_of = [r for r, c in chosen.items() if c == name]
            raise ValueError(f"{where}: column {name!r} is chosen for both the "
                             f"{' and the '.join(roles_of)}; each needs a column of its own.")
    out = {}
    for role, name in chosen.items():
        col = df[name]
        missing = first_missing(col)
        if missing is not None:
            raise ValueError(f"{where}: the {role} column {name!r} has a missing value "
                             f"(row {missing}); every row needs one.")
        out[role] = column_array(col)
    return out


SCORE_COLUMNS = ("score", "sim", "y_score", "prediction")


def _names(columns: Sequence[str]) -> str:
    quoted = [f"``{c}``" for c in columns]
    return ", ".join(quoted[:-1]) + " or " + quoted[-1]


def _columns_doc(roles: str, defaults: str, example: str = "") -> str:
    """The docstring block of the column-name arguments ``roles``, the default
    names written from the tuples the readers look them up in."""
    text = ("Column names. By default each is the one column of the frame named like "
            f"it: {defaults}. A frame with two of them for one role{example} must name "
            "the one to use.")
    return f"{roles} : str, optional\n" + textwrap.fill(text, 74, initial_indent="    ",
                                                          subsequent_indent="    ")


_frame_doc = shared_doc_with(
    qrels_columns=_columns_doc(
        "query, item, relevance",
        f"{_names(QUERY_COLUMNS)}; {_names(ITEM_COLUMNS)}; {_names(RELEVANCE_COLUMNS)}",
        " (``qid`` and ``query``)"),
    run_columns=_columns_doc(
        "query, item, score",
        "as in :func:`qrels_from_frame` for the query and the item; "
        f"{_names(SCORE_COLUMNS)} for the score"),
)


@_frame_doc
def qrels_from_frame(df: Frame, *, query: str | None = None, item: str | None = None,
                     relevance: str | None = None) -> TrecQrels:
    r"""Judgements from a long-format data frame (query, item, relevance).

    Parameters
    ----------
    df : pandas.DataFrame or polars.DataFrame
        One row per judged (query, item) pair.
    %(qrels_columns)s

    Returns
    -------
    qrels : TrecQrels
        The judgements, ready for :func:`evaluate_run`.

    %(raises_frame)s

    Notes
    -----
    Row :math:`i` sets :math:`\mathrm{rel}(q_i, d_i)`; ids keep their dtype.
    pandas and polars frames are read the same way (neither is required by
    the package).

    Examples
    --------
    >>> import pandas as pd
    >>> from sk_rankmetrics import qrels_from_frame
    >>> df = pd.DataFrame({"qid": [1, 1], "docno": ["a", "b"], "rel": [2, 0]})
    >>> qrels_from_frame(df)
    TrecQrels(2 judgements, 1 queries)
    >>> both = df.assign(query=["x", "x"])
    >>> qrels_from_frame(both, query="qid").qid.tolist()
    [1, 1]
    """
    cols = _columns(df, {"query": ("query", query, QUERY_COLUMNS),
                         "item": ("item", item, ITEM_COLUMNS),
                         "relevance": ("relevance", relevance, RELEVANCE_COLUMNS)},
                    "qrels_from_frame")
    qrels = TrecQrels(cols["query"], cols["item"], _numbers(cols["relevance"], "relevance"),
                      source="data frame")
    qrels._unit = _unit_of(df, query)
    return qrels


@_frame_doc
def run_from_frame(df: Frame, *, query: str | None = None, item: str | None = None,
                   score: str | None = None, tag: str = "run") -> TrecRun:
    """A run from a long-format data frame (query, item, score).

    Parameters
    ----------
    df : pandas.DataFrame or polars.DataFrame
        One row per ranked (query, item) pair.
    %(run_columns)s
    tag : str, default="run"
        Run tag.

    Returns
    -------
    run : TrecRun
        The ranking, ready for :func:`evaluate_run`.

    %(raises_frame)s

    Notes
    -----
    Row :math:`i` gives the score :math:`s(q_i, d_i)`; ids keep their dtype.

    Examples
    --------
    >>> import pandas as pd
    >>> from sk_rankmetrics import run_from_frame
    >>> df = pd.DataFrame({"qid": [1, 1], "docno": ["a", "b"], "score": [0.3, 0.9]})
    >>> run_from_frame(df, tag="bm25")
    TrecRun(2 documents, 1 queries, tag='bm25')
    """
    cols = _columns(df, {"query": ("query", query, QUERY_COLUMNS),
                         "item": ("item", item, ITEM_COLUMNS),
                         "score": ("score", score, SCORE_COLUMNS)}, "run_from_frame")
    run = TrecRun(cols["query"], cols["item"], _numbers(cols["score"], "score"), tag=tag,
                  source="data frame")
    run._unit = _unit_of(df, query)
    return run


def _unit_of(df: Frame, query: str | None) -> str:
    """"user" when the frame's query column is a user column, else "query"."""
    name = query if query is not None else next(
        (c for c in QUERY_COLUMNS if c in [str(c) for c in df.columns]), "")
    return "user" if str(name).lower().startswith("user") else "query"
