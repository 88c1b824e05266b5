"""Shared docstring blocks, filled with ``%(name)s`` templates.

A public function's docstring holds ``%(parameters)s``; :func:`fill_doc`
replaces it with one block per parameter, in the order of the function's
signature, taken from the parameter table's ``doc`` (or, for the data
arguments, :data:`DATA_DOCS`) unless the function gives its own. ``%(name)s``
cannot meet the braces of LaTeX formulas, and a literal percent sign is written
``%%``.
"""

from __future__ import annotations

import inspect
import textwrap
from typing import Any, Callable, TypeVar

F = TypeVar("F", bound=Callable[..., Any])

#: One block per parameter: ``"name : type\n    description"`` (4-space body).
#: The data arguments' blocks. Every other parameter's block is the ``doc`` of its
#: entry in the parameter table (``_utils/params.py``), next to its check.
DATA_DOCS = {
    "y_true": """y_true : array-like or sparse matrix of shape (n_rows, n_items)
    Relevance of each item of each row (graded: 0, 1, 2, ...; or binary;
    bool, int or float). scipy.sparse is accepted and densified one row
    block at a time. With ``qid``: 1-D, one entry per query-item pair.""",
    "y_score": """y_score : array-like of shape (n_rows, n_items)
    Scores of the items; higher ranks earlier. Integer and long double
    scores are compared in their own type. With ``qid``: 1-D.""",
    "sample_weight": """sample_weight : array-like of shape (n_rows,), default=None
    Weight of each row in the mean. With ``qid``: one weight per query (in
    sorted qid order), or one per pair that is constant within a query.""",
    "qid": """qid : array-like of shape (n_pairs,), default=None
    Query id of each entry, for long-format input (queries need not be
    contiguous or sorted). Each query is scored, then the mean is taken
    over queries.""",
    "exclude": """exclude : array-like of bool or sparse matrix of the shape of y_true, default=None
    Items that are not candidates of their row (a recommender's training
    items): an excluded item is neither ranked nor part of the row's truth,
    as if its pair were left out of long format; one that ``y_true`` marks
    relevant raises. Matrices only (NumPy, scipy.sparse or Dask; a Dask
    mask, or an in-memory one beside Dask arrays, is read by y_true's row
    blocks); in long format (``qid``) leave the excluded pairs out instead.""",
    "popularity": """popularity : tuple, data frame, sparse matrix or mapping, default=None
    For the beyond-accuracy measures ``novelty``, ``arp``, ``aplt`` and
    ``serendipity``: the training interactions ``(user_ids, item_ids)``
    (item ids: column indices for matrices) or a users x items scipy.sparse
    matrix of them (its stored non-zero entries), or a mapping item -> share
    of training users in (0, 1].""",
    "item_features": """item_features : tuple, mapping or data frame, default=None
    For ``ild``: one feature vector per item, ``(ids, matrix)``, a mapping
    id -> vector or a data frame indexed by id.""",
    "judged": """judged : array-like of bool of the shape of y_true, default=None
    Which items are judged; None means all. An item that is not judged is
    never relevant and worth nothing, and judgement-based measures (bpref,
    Judged@k, ...) leave it out. A sparse ``y_true`` does not imply one:
    its missing entries are judged with relevance 0.""",
}

#: References cited by several docstrings (continuation lines aligned for ``.. [n]``).
REFERENCES = {
    "jk": "Järvelin, K. and Kekäläinen, J. (2002). Cumulated gain-based evaluation\n"
          "           of IR techniques. ACM Transactions on Information Systems,\n"
          "           20(4), 422-446.",
    "mn": "McSherry, F. and Najork, M. (2008). Computing information retrieval\n"
          "           performance measures efficiently in the presence of tied\n"
          "           scores. ECIR 2008, LNCS 4956, 414-421.",
    "iir": "Manning, C. D., Raghavan, P. and Schütze, H. (2008). Introduction to\n"
           "           Information Retrieval, chapter 8. Cambridge University Press.",
    "chapelle": "Chapelle, O., Metzler, D., Zhang, Y. and Grinspan, P. (2009).\n"
                "           Expected reciprocal rank for graded relevance. CIKM 2009,\n"
                "           621-630.",
}

RETURNS_SCORE = """Returns
    -------
    score : float or ndarray of shape (n_rows,)
        The (weighted) mean over rows, or per-row values if ``per_row``."""


def _indent_block(block: str, pad: str = "    ") -> str:
    """A parameter block indented for a docstring whose sections stand at ``pad``
    (first line as is)."""
    first, _, rest = block.partition("\n")
    return first + "\n" + textwrap.indent(rest, pad) if rest else first


def _pad(doc: str, name: str) -> str:
    """The indentation of the line of ``doc`` that holds ``%(name)s`` (a method's
    sections stand deeper than a function's)."""
    for line in doc.split("\n"):
        if f"%({name})s" in line:
            return line[: len(line) - len(line.lstrip())]
    return "    "


def _table_doc(name: str, func: Callable[..., Any]) -> str | None:
    from .params import param

    try:
        return param(name, func.__qualname__).doc or None
    except KeyError:
        return None


def parameter_blocks(func: Callable[..., Any], own: dict[str, str], *,
                     data: bool, pad: str = "    ") -> list[str]:
    """One block per parameter of ``func``, in the order of its signature,
    indented for its docstring (``self`` aside): ``own[name]``, else (with
    ``data``) the block of :data:`DATA_DOCS`, else the ``doc`` of the parameter
    table's entry."""
    blocks = []
    for name in inspect.signature(func).parameters:
        if name == "self":
            continue
        block = own.get(name) or (DATA_DOCS.get(name) if data else None) or _table_doc(name, func)
        if block is None:
            raise KeyError(f"{func.__name__}: no docstring block for parameter {name!r}")
        blocks.append(_indent_block(block, pad))
    return blocks


class _LeaveShared(dict):
    """The mapping of :func:`fill_doc`: a block of :data:`SHARED_DOCS` is left as
    its placeholder for :func:`shared_doc`, applied next; any other name raises."""

    def __missing__(self, name: str) -> str:
        if name not in SHARED_DOCS:
            raise KeyError(name)
        return f"%({name})s"


def fill_doc(**own: str) -> Callable[[F], F]:
    """Decorator: fill ``%(parameters)s`` and ``%(returns)s`` of a docstring.

    ``own`` gives a function's own blocks for some parameters (same format
    as the table's ``doc``).
    """

    def deco(func: F) -> F:
        if func.__doc__ is None:
            raise TypeError(f"{func.__name__}: fill_doc needs a docstring to fill")
        pad = _pad(func.__doc__, "parameters")
        blocks = parameter_blocks(func, own, data=True, pad=pad)
        func.__doc__ = func.__doc__ % _LeaveShared({
            "parameters": f"\n\n{pad}".join(blocks),
            "returns": RETURNS_SCORE,
            **REFERENCES,
        })
        return func

    return deco


#: Blocks of the plot displays' docstrings, filled by :func:`display_doc`
#: (``{display}``: the display class's name).
DISPLAY_DOCS = {
    "ax": """ax : matplotlib Axes, default=None
    Axes to plot on; a new figure when None.""",
    "plot_ax": """ax : matplotlib Axes, default=None
    Axes to plot on; a new figure and axes when None.""",
    "kwargs_plot": """**kwargs : dict
    Passed to matplotlib's ``plot``.""",
    "curve_sample_weight": """sample_weight : array-like of shape (n_rows,), default=None
    Weight of each row in the means.""",
    "curve_ignore_ties": """ignore_ties : bool, default=False
    Rank tied scores in one order (of equal scores the later column, or
    with ``qid`` the later entry, first) instead of their expected value.""",
    "metric_curve_options": """ax : matplotlib Axes, default=None
    Axes to plot on; a new figure when None.
""" + DATA_DOCS["exclude"] + """
**kwargs : dict
    Passed to matplotlib's ``plot``.""",
    "curve_options": """name : str, default=None
    Name shown in the legend.
ax : matplotlib Axes, default=None
    Axes to plot on; a new figure when None.
**kwargs : dict
    Passed to matplotlib's ``plot``.""",
    "kwargs_bar": """**kwargs : dict
    Passed to matplotlib's ``bar``.""",
    "attributes": """ax_ : matplotlib Axes
    Axes with the plot (set by :meth:`plot`).
figure_ : matplotlib Figure
    Figure containing the plot.""",
    "returns_drawn": """Returns
-------
display : {display}
    The display, with its plot drawn.""",
    "returns_curves_drawn": """Returns
-------
display : {display}
    The display, with its curves drawn.""",
}


#: Blocks that several docstrings share (the reports' ``to_frame``, the
#: scorers, the frame readers), filled by :func:`shared_doc`.
SHARED_DOCS = {
    "returns_frame": """Returns
-------
frame : pandas.DataFrame
    The table.""",
    "returns_scorer": r"""Returns
-------
scorer : RankingScorer
    Computes :math:`\frac{1}{\sum_q w_q}\sum_q w_q\, m_k(y_q, \hat s_q)`
    over the rows (or queries) of the data it is given.""",
    "raises_frame": """Raises
------
ValueError
    A role with no column or with several candidate columns, one column
    for two roles, or a missing value (None, NaN, null).""",
}


def _fill_lines(func: F, blocks: dict[str, str]) -> F:
    """Replace each line ``%(name)s`` of ``func``'s docstring with ``blocks[name]``,
    indented as that line."""
    lines = []
    for line in (func.__doc__ or "").split("\n"):
        text = line.strip()
        name = text[2:-2] if text.startswith("%(") and text.endswith(")s") else None
        if name is None:
            lines.append(line)
            continue
        if name not in blocks:
            raise KeyError(f"{func.__name__}: no docstring block for {name!r}")
        pad = line[: len(line) - len(line.lstrip())]
        lines.append(textwrap.indent(blocks[name], pad))
    func.__doc__ = "\n".join(lines)
    return func


def data_doc(func: F) -> F:
    """Decorator: replace each line ``%(name)s`` of a docstring with the block
    of ``name`` in :data:`DATA_DOCS`, indented as that line (for methods, whose
    other parameters are written out)."""
    return _fill_lines(func, DATA_DOCS)


def display_doc(display: str) -> Callable[[F], F]:
    """Decorator: as :func:`data_doc`, with the blocks of :data:`DISPLAY_DOCS`
    too, for the display class ``display`` and its methods."""
    blocks = {**DATA_DOCS,
              **{k: v.replace("{display}", display) for k, v in DISPLAY_DOCS.items()}}
    return lambda func: _fill_lines(func, blocks)


def shared_doc(func: F) -> F:
    """Decorator: as :func:`data_doc`, with the blocks of :data:`SHARED_DOCS`."""
    return _fill_lines(func, SHARED_DOCS)


def shared_doc_with(**blocks: str) -> Callable[[F], F]:
    """Decorator: as :func:`shared_doc`, with a module's own ``blocks`` too."""
    return lambda func: _fill_lines(func, {**SHARED_DOCS, **blocks})
