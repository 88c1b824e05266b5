"""Recommender evaluation over the whole catalogue, from user and item factors.

The scores of a block of users are one BLAS product of their factors (with
the biases appended as two more columns) and the item factors, in the
factors' dtype. Excluded items get the score ``-inf`` in the block; the
block is then cut down to the entries that can reach the top ``L``
(:func:`.topk.top_candidates`, which keeps every entry tied with the
``L``-th) plus the user's held-out items, and that small padded block goes
through the same ranking pass and kernels as the matrix functions. A
measure that reads the whole ranking (``"map"`` without a cut-off, bpref)
ranks the whole block instead. No users x items matrix is ever held.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import scipy.sparse as sp
from numpy.typing import ArrayLike, NDArray

from .._beyond.measures import BeyondData, refuse_unread_data
from .._beyond.measures import make_requests as make_beyond
from .._evaluation.pipeline import beyond_result, score_layout
from .._evaluation.result import EvaluationResult
from .._inputs.preranked import RankedLists
from .._metrics.names import by_family
from .._metrics.requests import make_requests
from .._utils.errors import InvalidParameterError, short_repr
from .._utils.nonzero import flatnonzero
from .._utils.params import validate
from .._utils.types import ExcludeRelevant, Metrics, NoRelevant, Progress
from .ids import IdIndex, id_form, pairs_by_id, top_ids
from .layout import EmbeddingInputs

WHERE = "evaluate_embeddings"


# -- inputs -------------------------------------------------------------------------


def _numbers(a, name, ndim, n_rows=None):
    """``a`` checked as the factors (``ndim=2``) or a bias (``ndim=1``, ``n_rows``
    entries), and its largest absolute value: the one check of every factor
    and bias argument. Refuses, naming ``name``: a sparse matrix, values that
    are not real numbers, the wrong shape (a 0-d array included), no rows,
    NaN and infinities."""
    what = "user" if name.startswith("user") else "item"
    if sp.issparse(a):
        raise TypeError(f"{WHERE}: {name} must be a dense {ndim}-D array, got a sparse matrix.")
    arr = np.asarray(a)
    if ndim == 2:
        form = f"a 2-D array of numbers (one row per {what}, one column per dimension)"
    else:
        form = f"a 1-D array of {n_rows} numbers (one per row of the {what} factors)"
    if arr.dtype.kind not in "biuf" or arr.ndim != ndim or (
        n_rows is not None and arr.shape[0] != n_rows
    ):
        raise ValueError(f"{WHERE}: {name} must be {form}, got {arr.dtype} of shape {arr.shape}.")
    if arr.shape[0] == 0:
        raise ValueError(
            f"{WHERE}: {name} has no rows (shape {arr.shape}); at least one {what} is needed."
        )
    if arr.dtype.kind != "f":
        arr = arr.astype(np.float64)
    elif arr.dtype.itemsize < 4:
        arr = arr.astype(np.float32)
    if not arr.size:  # no dimensions: nothing to be large
        return arr, 0.0
    # min and max propagate NaN: no factor-sized temporary unless one is bad.
    lo, hi = float(arr.min()), float(arr.max())
    if not (np.isfinite(lo) and np.isfinite(hi)):
        bad = ~np.isfinite(arr) if ndim == 1 else ~np.isfinite(arr).all(axis=1)
        unit = "entry" if ndim == 1 else "row"
        count = int(bad.sum())
        units = unit if count == 1 else ("entries" if ndim == 1 else "rows")
        raise ValueError(
            f"{WHERE}: {name} holds NaN or infinite values ({count} {units}, the "
            f"first: {unit} {int(flatnonzero(bad)[0])}); "
            f"{'biases' if ndim == 1 else 'factors'} must be finite."
        )
    return arr, max(abs(lo), abs(hi))


def _checked_factors(user_factors, item_factors, user_bias, item_bias):
    """``(users, items, user_bias, item_bias)`` in one float dtype, every
    score ``p.q + b_u + b_i`` computable in it without overflow or underflow."""
    users, pu = _numbers(user_factors, "user_factors", 2)
    items, qi = _numbers(item_factors, "item_factors", 2)
    if users.shape[1] != items.shape[1]:
        raise ValueError(
            f"{WHERE}: user_factors has {users.shape[1]} dimensions and item_factors "
            f"{items.shape[1]}; they must have the same number of columns."
        )
    biases = [
        None if b is None else _numbers(b, name, 1, n)
        for b, name, n in (
            (user_bias, "user_bias", users.shape[0]),
            (item_bias, "item_bias", items.shape[0]),
        )
    ]
    if users.shape[1] == 0 and all(b is None for b in biases):
        raise ValueError(
            f"{WHERE}: user_factors and item_factors have no columns (shapes "
            f"{users.shape} and {items.shape}) and no bias is given, so every score "
            "would be 0; give factors of one dimension or more, or user_bias / item_bias "
            "(a model of biases alone)."
        )
    dtype = np.result_type(users, items)
    info = np.finfo(dtype)
    # |s| <= d * max|p| * max|q| + max|b_u| + max|b_i|: refuse what could overflow.
    top = users.shape[1] * pu * qi
    bound = top + sum(b[1] for b in biases if b is not None)
    if not bound < float(info.max) / 4:
        shown = f"up to {bound:.3g}" if np.isfinite(bound) else f"beyond {float(info.max):.3g}"
        fix = (
            "pass float64 factors (scores are computed in the factors' dtype) or rescale "
            "them"
            if dtype != np.float64
            else "rescale them"
        )
        raise ValueError(
            f"{WHERE}: the factors and biases are so large that scores could overflow "
            f"{dtype} (|p.q| + |b_u| + |b_i| {shown}); {fix}: dividing user_factors, "
            "user_bias and item_bias by one positive number leaves every user's ranking "
            "unchanged."
        )
    # A product of the largest entries below the normal range (by the digits of the
    # dtype) rounds every score to a few digits or to 0: ties that are not in the model.
    if 0 < pu * qi < float(info.tiny) / float(info.eps):
        fix = "pass float64 factors or rescale them" if dtype != np.float64 else "rescale them"
        raise ValueError(
            f"{WHERE}: the factors are so small that scores would underflow {dtype} (the "
            f"largest product of a user and an item entry is {pu * qi:.3g}); {fix}: "
            "multiplying user_factors, user_bias and item_bias by one positive number "
            "leaves every user's ranking unchanged."
        )
    users, items = users.astype(dtype, copy=False), items.astype(dtype, copy=False)
    ub, ib = (None if b is None else b[0].astype(dtype) for b in biases)
    return users, items, ub, ib


def _from_pairs(pairs, shape, name):
    """``(users, items)`` or ``(users, items, relevance)``: row and column indices."""
    cols = [np.asarray(c) for c in pairs]
    n = cols[0].shape[0] if cols[0].ndim == 1 else -1
    if any(c.ndim != 1 or c.shape[0] != n for c in cols):
        raise ValueError(
            f"{WHERE}: {name} as a tuple must hold 1-D arrays of one length: (user "
            f"indices, item indices) or (user indices, item indices, relevance)."
        )
    for c, what, size in ((cols[0], "user", shape[0]), (cols[1], "item", shape[1])):
        if n and (c.dtype.kind not in "iu" or c.min() < 0 or c.max() >= size):
            raise ValueError(
                f"{WHERE}: the {what} indices of {name} must be integers in 0 .. "
                f"{size - 1} (rows of the {what} factors), got {c.dtype} values "
                f"from {c.min()} to {c.max()}."
            )
    values = cols[2] if len(cols) == 3 else np.ones(n)
    m = sp.csr_array((values, (cols[0], cols[1])), shape=shape)
    m.sum_duplicates()
    if name == "y_true" and m.nnz < n:  # a repeat in exclude excludes the pair once
        raise ValueError(
            f"{WHERE}: {name} names a (user, item) pair twice ({n - m.nnz} repeats); give "
            "each pair once (for a data frame: df.drop_duplicates(['user', 'item']))."
        )
    return m


def _matrix(a, shape, name, dtype):
    """``a`` as a canonical CSR array (sorted, summed, no stored zeros)."""
    if a is None:
        return None
    if sp.issparse(a):
        m = sp.csr_array(a)
    elif isinstance(a, tuple) and len(a) in (2, 3):
        m = _from_pairs(a, shape, name)
    else:
        arr = np.asarray(a)
        if arr.dtype.kind not in "biuf":
            raise TypeError(
                f"{WHERE}: {name} must be a scipy.sparse matrix or a 2-D array of "
                f"numbers, got {arr.dtype}."
            )
        m = sp.csr_array(np.atleast_2d(arr))
    if m.shape != shape:
        raise ValueError(
            f"{WHERE}: {name} has shape {m.shape}; it must be (n_users, n_items) = "
            f"{shape}, the rows of user_factors by the rows of item_factors."
        )
    m = sp.csr_array(m, dtype=dtype)  # shares the user's arrays when it can
    if not m.has_canonical_format or not m.data.all():
        m = m.copy()  # never change the user's matrix in place
        m.sum_duplicates()
        m.eliminate_zeros()
    if dtype == np.float64 and not np.isfinite(m.data).all():
        raise ValueError(f"{WHERE}: {name} holds NaN or infinite values.")
    return m


#: Users per step of the leak check (its temporaries grow with the step's pairs).
CHECK_USERS = 1 << 14


def _row_keys(m, a, b):
    """``row * n_cols + col`` of the entries of rows ``a:b`` (sorted: canonical CSR)."""
    lo, hi = m.indptr[a], m.indptr[b]
    rows = np.repeat(np.arange(a, b, dtype=np.int64), np.diff(m.indptr[a : b + 1]))
    return rows * m.shape[1] + m.indices[lo:hi]


def _without_excluded(truth, exclude, policy):
    """The truth without the excluded pairs, or the leak error (checked a few
    thousand users at a time)."""
    n_users = truth.shape[0]
    leaks = []
    for a in range(0, n_users, CHECK_USERS):
        b = min(a + CHECK_USERS, n_users)
        ek, tk = _row_keys(exclude, a, b), _row_keys(truth, a, b)
        if ek.size and tk.size:
            hit = ek[np.minimum(np.searchsorted(ek, tk), ek.shape[0] - 1)] == tk
            if hit.any():
                leaks.append(truth.indptr[a] + flatnonzero(hit))
    if not leaks:
        return truth
    leak = np.concatenate(leaks)
    if policy == "raise":
        first = int(np.searchsorted(truth.indptr, leak[0], side="right") - 1)
        raise ValueError(
            f"{WHERE}: y_true marks {leak.shape[0]} excluded (user, item) pairs as "
            f"relevant (the first: user {first}, item {int(truth.indices[leak[0]])}). An "
            "excluded item is never ranked, so these can never be found; a held-out item "
            "that is also a training item usually means the splits leak. Pass "
            "exclude_relevant='drop' to drop those pairs from the truth."
        )
    keep = np.ones(truth.nnz, dtype=bool)
    keep[leak] = False
    rows = np.repeat(np.arange(n_users), np.diff(truth.indptr))
    return sp.csr_array((truth.data[keep], (rows[keep], truth.indices[keep])), shape=truth.shape)


def _top_width(requests, beyond, k, metrics):
    """The length of the top lists: ``k``, or the deepest cut-off named (of a
    metric that takes one, or of a beyond-accuracy measure)."""
    if k is not None:
        return k
    cut = [r.depth for r in requests if r.depth is not None and r.spec.takes_k]
    cut += [r.k for r in beyond]
    if not cut:
        raise InvalidParameterError(
            f"{WHERE}: return_top=True needs the length of the lists: pass k, or "
            f"name a cut-off (metrics={short_repr(metrics)})."
        )
    return max(cut)


def _top_lists(top, users_by, items_by, truth):
    """The top lists (``top``: item indices, -1 past the last candidate) and the
    truth as ``(user ids, item ids, relevance)``, by id where ids are given."""
    lens = np.count_nonzero(top >= 0, axis=1)
    flat = items_by.ids[top[top >= 0]]
    rows = np.repeat(users_by.ids, np.diff(truth.indptr))
    pairs = (rows, items_by.ids[truth.indices], truth.data)
    return RankedLists(users_by.ids, lens, flat), pairs


# -- the public function -----------------------------------------------------------


@validate
def evaluate_embeddings(
    user_factors: ArrayLike,
    item_factors: ArrayLike,
    y_true: ArrayLike | sp.sparray | sp.spmatrix,
    metrics: Metrics,
    *,
    k: int | None = None,
    exclude: ArrayLike | sp.sparray | sp.spmatrix | None = None,
    exclude_relevant: ExcludeRelevant = "raise",
    user_bias: ArrayLike | None = None,
    item_bias: ArrayLike | None = None,
    ignore_ties: bool = False,
    no_relevant: NoRelevant = "warn",
    batch_size: int | None = None,
    sample_negatives: int | None = None,
    random_state: int | None = None,
    return_top: bool = False,
    progress: Progress | None = None,
    user_ids: ArrayLike | None = None,
    item_ids: ArrayLike | None = None,
    popularity: Any = None,
    item_features: Any = None,
    head_share: float = 0.2,
) -> EvaluationResult | tuple[EvaluationResult, NDArray[Any]]:
    r"""Score a factor model on the whole catalogue, one block of users at a time.

    The score of user :math:`u` for item :math:`i` is the dot product of
    their factors plus the biases,

    .. math::

        s_{ui} = \mathbf{p}_u \cdot \mathbf{q}_i + b_u + b_i ,

    each user's candidates are the items not excluded for it, and every
    metric reads the ranking of the candidates by :math:`s_{ui}`, against
    the user's row of ``y_true`` without its excluded items. The values are
    those of :func:`evaluate` on the dense score matrix in long format
    without the excluded pairs; the users x items matrix is never built.

    Parameters
    ----------
    user_factors : array-like of shape (n_users, n_dims)
        One row of factors per user (float32 stays float32).
    item_factors : array-like of shape (n_items, n_dims)
        One row of factors per item.
    y_true : scipy.sparse matrix, array-like of shape (n_users, n_items), tuple, dict or data frame
        Held-out relevance: the stored non-zero entries are the user's test
        items (graded or binary); every other item has relevance 0. A tuple
        ``(user_indices, item_indices)`` (binary) or ``(user_indices,
        item_indices, relevance)`` gives the pairs by the rows of the
        factors. By id (the forms of :func:`evaluate_ranked`'s truth): a
        dict ``{user: {item, ...}}`` or ``{user: {item: relevance}}``; a
        pandas or polars data frame with user, item and optionally
        relevance columns (named as :func:`evaluate_ranked` reads them:
        ``user``, ``user_id``, ``query``, ...; ``item``, ``item_id``,
        ``docno``, ...; ``relevance``, ``rel``, ``label``, ...; default 1);
        and, when ``user_ids`` or ``item_ids`` is given, a tuple ``(user ids,
        item ids[, relevance])``. Ids are looked up in ``user_ids`` and
        ``item_ids`` (a side without them is named by row index). A pair
        given twice raises.
    metrics : str or list of str or (name, options) pairs
        Names such as ``"ndcg@20"``, ``"recall@20"``, ``"map"``; every name
        :func:`evaluate` accepts, and the beyond-accuracy measures of the top
        lists (``"coverage@20"``, ``"gini@20"``, ``"entropy@20"``,
        ``"personalization@20"``; with ``popularity``: ``"novelty@20"``,
        ``"arp@20"``, ``"aplt@20"``, ``"serendipity@20"``; with
        ``item_features``: ``"ild@20"``; see Notes).
    k : int, optional
        Cut-off added to every name that has none, of a metric that takes
        one: ``"ndcg"`` is scored at ``k`` and its result keyed ``"ndcg@k"``,
        as if ``"ndcg@k"`` had been asked (``"r_precision"`` and
        ``"map@100"`` keep their names). Also the width of the lists
        ``return_top`` returns.
    exclude : scipy.sparse matrix, array-like of shape (n_users, n_items) or tuple, optional
        Items that are not candidates for a user (typically its training
        interactions): every stored non-zero entry, or the pairs of a tuple
        ``(user_indices, item_indices)``; or by id, in the forms ``y_true``
        takes (a pair given twice is excluded once; a pair whose relevance
        is 0 is not excluded). An excluded item is neither ranked nor part
        of the user's truth.
    exclude_relevant : {"raise", "drop"}, default="raise"
        What to do when ``y_true`` marks an excluded item relevant: raise,
        counting such pairs, or drop them from the truth.
    user_bias : array-like of shape (n_users,), optional
        :math:`b_u` (it shifts a user's scores and does not change their
        order).
    item_bias : array-like of shape (n_items,), optional
        :math:`b_i`, for example a popularity term.
    ignore_ties : bool, default=False
        True ranks tied scores in one order instead of taking the expected
        value over their orderings: the higher item index (the later row
        of ``item_factors``) first, as the matrix functions take the later
        column first.
    no_relevant : "warn", "skip" or float, default="warn"
        The value of a user without a relevant item (after exclusion).
    batch_size : int, optional
        Users per block; None sizes blocks to a fixed memory budget. The
        values do not depend on it.
    sample_negatives : int, optional
        Rank each user's held-out items among this many items drawn
        uniformly, without replacement, from its other non-excluded items,
        instead of among the whole catalogue (see Notes: a different
        measure). A user with no more such items than this takes all of
        them, so its values are the full catalogue's; at ``n_items`` or more
        every user does, and the whole catalogue is ranked (the cost never
        grows with this number past the catalogue).
    random_state : int, optional
        The seed of ``sample_negatives``; a user's sample depends on the seed
        and the user only. None draws a fresh seed.
    return_top : bool, default=False
        Also return the best ``k`` item indices of every user.
    progress : callable, optional
        Called as ``progress(done, total)`` after each block of users.
    user_ids : array-like of shape (n_users,), optional
        The id of each row of ``user_factors`` (integers or strings, each
        once). An id of ``y_true`` or ``exclude`` that is not here raises,
        counting them: a user without factors cannot be scored.
    item_ids : array-like of shape (n_items,), optional
        The id of each row of ``item_factors`` (integers or strings, each
        once). An id of ``y_true`` or ``exclude`` that is not here raises,
        counting them: a cold-start item cannot be ranked; drop its pairs
        first.
    popularity : tuple, data frame, sparse matrix or mapping, optional
        For ``novelty@k``, ``arp@k``, ``aplt@k`` and ``serendipity@k``: the
        training interactions ``(user_ids, item_ids)`` (or a data frame with
        user and item columns, or a users x items scipy.sparse matrix such as
        the ``exclude`` matrix), or a mapping item -> share of training users
        in (0, 1]; items by ``item_ids`` (by row index without them). Given
        without such a measure, it raises.
    item_features : tuple, mapping or data frame, optional
        For ``ild@k``: one feature vector per item, ``(ids, matrix)``, a
        mapping id -> vector or a data frame indexed by item id. Given
        without ``ild@k``, it raises.
    head_share : float, default=0.2
        The share of training interactions the head reaches (``aplt@k``).

    Returns
    -------
    result : EvaluationResult
        Per-user values (``result.per_query``, one row per row of
        ``user_factors``; ``result.query_ids`` holds ``user_ids``, or
        ``0 .. n_users - 1`` without them) and means. A beyond-accuracy
        measure of the whole set of lists (``coverage``, ``gini``,
        ``entropy``, ``personalization``) has one value, in ``result.mean``,
        no per-user values, and is named in ``result.whole_set``, as with
        :func:`evaluate_ranked`.
    top : ndarray of shape (n_users, k)
        Only with ``return_top``: item indices best first, ties by
        decreasing index (the order ``ignore_ties=True`` ranks); -1 past
        the user's last candidate. Always ``k`` columns (the cut-off, or the
        deepest named one without ``k``), also when ``k`` exceeds the
        catalogue: the columns past a user's candidates hold the fill. With
        ``item_ids``, the
        item ids instead (int64 for integer ids, str for text), and past the
        last candidate a fill that is never an id: ``""`` for text ids,
        ``-1`` for integer ids (or ``min(item_ids) - 1`` when -1 is an id).

    Notes
    -----
    Cost: the block products, :math:`O(n_u\, n_i\, d)`, plus one
    comparison pass over each block; memory is bounded by the block size
    whatever the number of users. For a cut-off :math:`L` (the deepest asked
    for), the items are taken in a fixed random order, and the first few
    thousand of them are dealt into :math:`G \ge L` groups; the
    :math:`L`-th largest group maximum of a user bounds its :math:`L`-th
    score from below, so the items at or above it hold the top :math:`L`
    and every item tied with the :math:`L`-th score (the random order keeps
    the bound tight however the catalogue is sorted). They and the user's
    held-out items are ranked as the dense functions rank a row, with the
    same tie rule. A measure of the whole ranking (``"map"`` or ``"ndcg"``
    without a cut-off, bpref, R-precision when :math:`R` is large) ranks
    whole blocks instead, which costs a sort per user.

    Blocks of users are scored on the engine's threads, with BLAS limited to
    an equal share of the cores each while the function runs
    (``threadpoolctl``; the limit is process-wide), so that products and
    ranking overlap. The product of a
    block is computed by BLAS; a different block layout can
    round a float score differently in its last bit, which can only matter
    for scores that tie to within that rounding. Factors whose scores could
    overflow their dtype raise, and so do factors so small that their
    products fall below its normal range (scores rounded to a few digits or
    to 0 would tie where the model does not); the message says how to
    rescale them without changing any ranking. Factors of no dimension are
    taken with a bias (a model of biases alone) and refused without one.

    A user whose candidates are all excluded, or without held-out item, is
    handled by ``no_relevant``. Every other user counts, as in the
    recommender libraries that score every test user.

    The beyond-accuracy measures read each user's top ``k`` items, the
    lists ``return_top`` returns (ties by decreasing item index; a user with
    fewer candidates has a shorter list), over every user; their values are
    those of :func:`evaluate_ranked` on those lists, with the catalogue
    (every row of ``item_factors``) as ``items`` and the truth as ``y_true``
    without its excluded items. The lists are as long as the deepest cut-off
    asked for, or ``k``.

    Sampled metrics (``sample_negatives``) rank each held-out item among a
    few hundred random items; they are not estimates of the full-catalogue
    metrics and can order two models differently (Krichene and Rendle,
    2020). Prefer the full ranking, which this function makes affordable.
    A sample as large as a user's candidates is all of them: the cost of the
    draws is bounded by the user's candidates (:math:`O(n_i)` per user at
    most), and ``sample_negatives >= n_items`` gives exactly the values of
    ``sample_negatives=None``.

    References
    ----------
    .. [1] W. Krichene and S. Rendle, "On Sampled Metrics for Item
       Recommendation", KDD 2020, pp. 1748-1757.

    Examples
    --------
    >>> import numpy as np
    >>> import scipy.sparse as sp
    >>> from sk_rankmetrics import evaluate_embeddings
    >>> users = np.array([[1.0, 0.0], [0.0, 1.0]], dtype=np.float32)
    >>> items = np.array([[3, 0], [2, 1], [1, 2], [0, 3]], dtype=np.float32)
    >>> train = sp.csr_array([[1, 0, 0, 0], [0, 0, 0, 1]])
    >>> test = sp.csr_array([[0, 1, 0, 0], [1, 0, 0, 0]])
    >>> res, top = evaluate_embeddings(users, items, test, ["recall", "ndcg"], k=2,
    ...                                exclude=train, return_top=True)
    >>> {name: round(v, 4) for name, v in res.mean.items()}
    {'recall@2': 0.5, 'ndcg@2': 0.5}
    >>> top.tolist()
    [[1, 2], [2, 1]]

    The beyond-accuracy measures of those lists (``popularity``: the share of
    training users of each item):

    >>> res = evaluate_embeddings(users, items, test, ["coverage", "novelty"], k=2,
    ...                           exclude=train, popularity={0: 0.5, 1: 0.5, 2: 0.25, 3: 0.5})
    >>> {name: round(v, 4) for name, v in res.mean.items()}, res.whole_set
    ({'coverage@2': 0.5, 'novelty@2': 1.5}, ('coverage@2',))

    The same by ids, the pairs in data frames (pandas or polars):

    >>> import pandas as pd
    >>> held_out = pd.DataFrame({"user": ["ann", "bo"], "item": ["b", "a"]})
    >>> seen = pd.DataFrame({"user": ["ann", "bo"], "item": ["a", "d"]})
    >>> res, top = evaluate_embeddings(users, items, held_out, ["recall", "ndcg"], k=2,
    ...                                exclude=seen, return_top=True,
    ...                                user_ids=["ann", "bo"], item_ids=["a", "b", "c", "d"])
    >>> res.query_ids.tolist(), res.per_query["recall@2"].tolist()
    (['ann', 'bo'], [1.0, 0.0])
    >>> top.tolist()
    [['b', 'c'], ['c', 'b']]
    """
    users, items, ub, ib = _checked_factors(user_factors, item_factors, user_bias, item_bias)
    n_users, n_items = users.shape[0], items.shape[0]
    users_by, items_by = IdIndex(user_ids, n_users, "user"), IdIndex(item_ids, n_items, "item")
    by_id = users_by.given or items_by.given
    if id_form(y_true, by_id):
        y_true = pairs_by_id(y_true, users_by, items_by, "y_true")
    if exclude is not None and id_form(exclude, by_id):
        exclude = pairs_by_id(exclude, users_by, items_by, "exclude")
    truth = _matrix(y_true, (n_users, n_items), "y_true", np.float64)
    excl = _matrix(exclude, (n_users, n_items), "exclude", np.bool_)
    if excl is not None:
        truth = _without_excluded(truth, excl, exclude_relevant)
        if not excl.nnz:
            excl = None
    families = by_family(metrics)
    beyond = make_beyond(families.beyond, k, where=WHERE) if families.beyond else []
    requests = (make_requests(families.others, WHERE, k=k)
                if families.others or not beyond else [])
    refuse_unread_data(beyond, WHERE, popularity=popularity, item_features=item_features,
                       head_share=head_share)
    top = None
    if return_top or beyond:
        width = _top_width(requests, beyond, k, metrics)
        top = np.full((n_users, width), -1, dtype=np.int64)
    if sample_negatives is not None and sample_negatives >= n_items:
        # Every user's candidates number fewer than n_items: a sample of that
        # size is all of them, which is the whole catalogue's ranking.
        sample_negatives = None
    seed = 0
    if sample_negatives is not None:
        seed = (
            random_state
            if random_state is not None
            else int(np.random.default_rng().integers(0, 1 << 62))
        )
    inputs = EmbeddingInputs(
        users,
        items,
        ub,
        ib,
        truth,
        excl,
        batch_size=batch_size,
        sample=sample_negatives,
        seed=seed,
        top=top,
    )
    result = score_layout(inputs, requests, ignore_ties=ignore_ties, no_relevant=no_relevant,
                          progress=progress, blas=True, ids=users_by.ids)
    if beyond:
        lists, pairs = _top_lists(top, users_by, items_by, truth)
        data = BeyondData(items=items_by.ids, popularity=popularity,
                          item_features=item_features, head_share=head_share)
        result = beyond_result(families.beyond, k, lists, pairs, data, threshold=None,
                               no_relevant=no_relevant, result=result,
                               order=families.labels, where=WHERE)
    if return_top and top is not None:
        return result, (top_ids(top, items_by) if items_by.given else top)
    return result
