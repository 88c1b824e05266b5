"""Shared docstring blocks, filled with ``%(name)s`` templates.

A public function's docstring holds ``%(parameters)s``; :func:`fill_doc`
replaces it with one block per parameter, in the order of the function's
signature, taken from :data:`PARAMETER_DOCS` unless the function gives its
own. ``%(name)s`` cannot meet the braces of LaTeX formulas, and a literal
percent sign is written ``%%``.
"""

from __future__ import annotations

import inspect
import textwrap

#: One block per parameter: ``"name : type\n    description"`` (4-space body).
PARAMETER_DOCS = {
    "y_true": """y_true : array-like or sparse matrix of shape (n_rows, n_items)
    Relevance of each item of each row (graded: 0, 1, 2, ...; or binary;
    bool, int or float). scipy.sparse is accepted and densified one row
    block at a time. With ``qid``: 1-D, one entry per query-item pair.""",
    "y_score": """y_score : array-like of shape (n_rows, n_items)
    Scores of the items; higher ranks earlier. Integer and long double
    scores are compared in their own type. With ``qid``: 1-D.""",
    "k": """k : int, default=None
    Cut-off: only the first ``k`` positions count. ``None`` means all.
    A ``k`` larger than the row counts every item (the work stays
    proportional to the row).""",
    "sample_weight": """sample_weight : array-like of shape (n_rows,), default=None
    Weight of each row in the mean. With ``qid``: one weight per query (in
    sorted qid order), or one per pair that is constant within a query.""",
    "ignore_ties": """ignore_ties : bool, default=False
    By default a tie in ``y_score`` scores the exact expected value of the
    metric over every ordering of the tied items, all equally likely.
    ``True`` takes the order of the sort as it comes (faster; only correct
    when scores have no ties).""",
    "gain": """gain : {"linear", "exponential"}, mapping or callable, default="linear"
    What an item of relevance ``r`` is worth: ``"linear"`` is ``r``
    (scikit-learn, trec_eval, ranx), ``"exponential"`` is ``2**r - 1``
    (XGBoost, LightGBM, most web-search practice), a mapping
    ``{level: gain}`` must name every level present (trec_eval's
    ``ndcg.L=G``), a callable maps an array of levels to gains.""",
    "discount": """discount : {"log", "jarvelin"}, array-like or callable, default="log"
    What position ``p`` (1-based) is worth: ``"log"`` is
    ``1 / log_b(p + 1)``; ``"jarvelin"`` is the original Järvelin and
    Kekäläinen form, 1 for ``p < b`` and ``1 / log_b(p)`` after (the base
    changes nDCG); an array gives one discount per position, a callable
    maps 1-based positions to discounts. Discounts must be >= 0 and, for
    nDCG, must not grow with the position.""",
    "log_base": """log_base : float, default=2
    The base ``b`` of the logarithmic discounts; it must exceed 1.""",
    "threshold": """threshold : float, default=None
    An item is relevant when ``y_true >= threshold``; ``None`` means any
    positive value (``y_true > 0``).""",
    "denominator": """denominator : {"min_k_relevant", "relevant"}, default="min_k_relevant"
    ``D``: ``min(k, R)`` with ``R`` the relevant items of the row, so that
    a perfect top ``k`` scores 1 (LightGBM, Spark ``MAP@k``, recommender
    practice); or ``R`` (trec_eval ``map_cut_k``, ranx, XGBoost 1.x
    ``map@k``). Without ``k`` both are ``R``.""",
    "adaptive_k": """adaptive_k : bool, default=False
    Divide by ``min(k, n_items)`` instead of ``k`` when a row has fewer
    than ``k`` items. ``False`` is trec_eval, ranx and torchmetrics.""",
    "no_relevant": """no_relevant : "warn", "skip" or float, default="warn"
    Rows with no relevant item (for nDCG: an ideal DCG of 0). ``"warn"``
    scores them 0 and counts them, as scikit-learn does, with an
    ``UndefinedMetricWarning``; ``"skip"`` drops them from the mean and its
    weight; a number in [0, 1] (``0.0``, ``1.0``) or ``nan`` replaces their
    value silently.""",
    "qid": """qid : array-like of shape (n_pairs,), default=None
    Query id of each entry, for long-format input (queries need not be
    contiguous or sorted). Each query is scored, then the mean is taken
    over queries.""",
    "mean": """mean : {"arithmetic", "geometric"}, default="arithmetic"
    How the rows' values are combined: their (weighted) arithmetic mean, or
    the geometric mean of ``max(value, 1e-5)`` (trec_eval's ``gm_map``,
    ``gm_bpref``), which rewards systems that do well on every query.""",
    "judged": """judged : array-like of bool of the shape of y_true, default=None
    Which items are judged; None means all. An item that is not judged is
    never relevant and worth nothing, and judgement-based measures (bpref,
    Judged@k, ...) leave it out. A sparse ``y_true`` does not imply one:
    its missing entries are judged with relevance 0.""",
    "max_grade": """max_grade : int, default=4
    The largest grade of the relevance scale: the user stops at an item of
    grade ``g`` with probability ``(2**g - 1) / 2**max_grade``. 4 is the
    TREC Web track's (``gdeval``, which ir_measures' ERR calls).""",
    "normalize": """normalize : bool, default=False
    Divide by the ERR of the ideal ranking (nERR, in [0, 1]).""",
    "p": """p : float, default=0.8
    Persistence: the probability that the user goes on to the next item
    (ir_measures' and ranx's default 0.8; trec_eval's is 0.9).""",
    "graded": """graded : bool, default=False
    Read graded gains (each level over the row's largest level when that
    exceeds 1, as trec_eval's ``rbp``) instead of the relevant / not
    relevant indicator at ``threshold``.""",
    "beta": """beta : float, default=1.0
    Weight of recall against precision:
    ``F_beta = (1 + beta**2) P R / (beta**2 P + R)``.""",
    "max_docs": """max_docs : int, default=None
    Read only the first ``max_docs`` ranked items: the ranking is cut there
    first, as trec_eval's ``-M`` (R and the other totals still count every
    item of the row). None reads the whole ranking.""",
    "per_row": """per_row : bool, default=False
    Return the array of per-row (per-query, in sorted qid order) values
    instead of their mean; rows skipped by ``no_relevant="skip"`` are NaN.""",
    "compute": """compute : bool, default=True
    For Dask inputs (the guide's "Evaluating at scale"): ``True`` computes
    the result and returns it as for in-memory inputs; ``False`` returns
    lazy Dask objects instead, as dask-ml does: the mean as a 0-d Dask
    array, per-row values as a Dask array (matrices) or a Dask Series
    indexed by query id (long format). In-memory inputs are always
    computed.""",
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


def _indent_block(block):
    """A parameter block indented for a function's docstring (first line as is)."""
    first, _, rest = block.partition("\n")
    return first + "\n" + textwrap.indent(rest, "    ") if rest else first


def fill_doc(**own):
    """Decorator: fill ``%(parameters)s`` and ``%(returns)s`` of a docstring.

    ``own`` gives a function's own blocks for some parameters (same format
    as :data:`PARAMETER_DOCS`).
    """

    def deco(func):
        sig = inspect.signature(func)
        blocks = []
        for name in sig.parameters:
            block = own.get(name) or PARAMETER_DOCS.get(name)
            if block is None:
                raise KeyError(f"{func.__name__}: no docstring block for parameter {name!r}")
            blocks.append(_indent_block(block))
        func.__doc__ = func.__doc__ % {
            "parameters": "\n\n    ".join(blocks),
            "returns": RETURNS_SCORE,
            **REFERENCES,
        }
        return func

    return deco
