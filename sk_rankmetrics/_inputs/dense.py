"""The dense layout: (n_rows, n_items) matrices, sparse truth densified per block."""

from __future__ import annotations

import copy

import numpy as np
import scipy.sparse as sp

from .._ranking.block import rank_block
from .._ranking.item_values import Extremes, few_nonzero_extremes
from .._ranking.narrow import narrowed
from .._ranking.padding import counted_padding
from .._ranking.relevant import DENSITY, requests_take_relevant_route
from .._utils.arrays import (
    MASK_BY_EXCLUDE,
    ScoreCheck,
    check_finite,
    exact_scores,
    sortable,
)
from .._utils.fast import row_counts
from .budget import _budget

# -- matrices ---------------------------------------------------------------------


class DenseInputs:
    """``(n_rows, n_items)`` matrices, dense or with sparse ``y_true``."""

    diversity = False  # the Layout contract (_inputs/layout.py)

    query_ids = None

    def __init__(self, y_true, y_score, judged=None):
        self.y_true = y_true
        self.y_score = y_score
        self.judged = judged
        self.exclude = None
        self.n_rows, self.n_cols = y_true.shape
        #: Whether the unjudged items leave the rankings (:meth:`judged_only`).
        self.drop_unjudged = False

    def judged_only(self):
        """The same rows with every unjudged item taken out of the ranking
        (ir_measures' ``judged_only``, trec_eval's ``-J``); without a ``judged``
        mask every item is judged."""
        if self.judged is None:
            return self
        out = copy.copy(self)
        out.drop_unjudged = True
        return out

    def blocks(self, requests):
        step = max(1, _budget(requests, dense=True) // self.n_cols)
        return [(slice(a, min(a + step, self.n_rows)), (a, min(a + step, self.n_rows)))
                for a in range(0, self.n_rows, step)]

    def ranked_chunk(self, payload, requests, *, ignore_ties=False):
        a, b = payload
        yt = self.y_true[a:b]
        yt = np.asarray(yt.toarray() if sp.issparse(yt) else yt)
        ys = sortable(np.asarray(self.y_score[a:b]))
        # Whole levels in -128..127 (binary, graded) go on as one byte each
        # (floats found whole are finite).
        yt, extremes = narrowed(yt)
        if extremes is None and yt.flags.c_contiguous:
            if (self.judged is None and self.exclude is None
                    and (requests_take_relevant_route(requests, ignore_ties)
                         or (yt.dtype.kind == "f" and any(r.needs_ideal for r in requests)))):
                # The relevant items' route, and the ideal of real-valued
                # relevance, read the nonzero entries: when they are few, the
                # min and max are theirs.
                extremes = few_nonzero_extremes(yt, DENSITY)
            if extremes is None and yt.dtype.kind == "f":
                extremes = Extremes(yt)
        if extremes is not None and yt.dtype.kind == "f":
            # The min and max of the relevance, which the checks of the gains
            # read anyway, tell whether it is finite (NaN spreads to both):
            # no pass of its own. check_finite then names the first place.
            if not (np.isfinite(extremes.min()) and np.isfinite(extremes.max())):
                check_finite(yt, "y_true", a)
        elif extremes is None:
            check_finite(yt, "y_true", a)
        # The scores are checked by the ranking's first pass over them.
        scores_checked = ScoreCheck(ys, "y_score", a, MASK_BY_EXCLUDE)
        judged = None if self.judged is None else self.judged[a:b]
        ex = None if self.exclude is None else self.exclude[a:b]
        if sp.issparse(ex):
            ex = ex.toarray()
        if self.drop_unjudged and judged is not None:  # judged_only: unjudged items go too
            ex = ~judged if ex is None else ex | ~judged
        if ex is None or not ex.any():  # (a block of no item left out: a matrix)
            return rank_block(yt, ys, requests, ignore_ties=ignore_ties, row0=a,
                              judged=judged, extremes=extremes, check=scores_checked)
        scores_checked.now()
        # Excluded items: padding, as the pairs long format leaves out; float
        # scores keep their type (-inf is one of theirs), and the block's
        # smallest score is a floor of the real ones. Integer scores in a
        # small span keep theirs too, padding one below the smallest (their
        # ties are counted, not sorted), where every row keeps an item.
        if self.drop_unjudged and judged is not None:
            # (An excluded entry holds no relevance: excluded() refused any;
            # an unjudged one may.)
            yt = np.where(ex, 0, yt)
        n_real = self.n_cols - row_counts(ex)
        counted = (counted_padding(ys, ex) if ys.dtype.kind in "iu" and n_real.all()
                   else None)
        if counted is not None:
            rc = rank_block(yt, counted, requests, ignore_ties=ignore_ties, row0=a,
                            judged=judged, n_items=np.maximum(n_real, 1), real=~ex)
            rc.n_ranked = n_real
            return rc
        if ys.dtype not in (np.float64, np.float32):
            ys = exact_scores(ys)
        floor = ys.min()
        ys = ys.copy()
        np.putmask(ys, ex, ys.dtype.type(-np.inf))
        rc = rank_block(yt, ys, requests, ignore_ties=ignore_ties, row0=a, judged=judged,
                        n_items=np.maximum(n_real, 1), floor=floor)
        rc.n_ranked = n_real
        return rc

    def exclude_items(self, exclude, where="evaluate"):
        """Leave the entries ``exclude`` marks out of their rows (see :func:`excluded`)."""
        self.exclude = excluded(self.y_true, exclude, where)


def excluded(y_true, exclude, where="evaluate"):
    """``exclude`` as a boolean matrix of ``y_true``'s shape, checked: a CSR
    matrix, or, for a dense ``exclude`` beside a dense ``y_true``, bools
    (each block slices its rows; a CSR copy of a dense mask costs more than
    the blocks' work).

    An excluded entry that ``y_true`` marks (a non-zero relevance) raises,
    counting such entries.
    """
    ex = exclude_mask(exclude, y_true.shape, where, keep_dense=not sp.issparse(y_true))
    if not sp.issparse(ex):
        n = int(np.count_nonzero(ex & (np.asarray(y_true) != 0)))
    else:
        marked = sp.csr_array(y_true).multiply(ex) if sp.issparse(y_true) else (
            np.asarray(y_true)[ex.nonzero()])
        n = int(np.count_nonzero(marked.data if sp.issparse(marked) else marked))
    if n:
        raise ValueError(
            f"{where}: y_true marks {n} excluded items as relevant; an excluded item is "
            "neither ranked nor part of its row's truth, so these can never be found "
            "(held-out items that are also training items usually mean the splits leak). "
            "To score without them, set those entries of y_true to 0 first."
        )
    return ex


def exclude_mask(exclude, shape, where="evaluate", keep_dense=False):
    """``exclude`` as a boolean CSR matrix of ``shape``: its type, flags and
    shape checked, not yet against ``y_true``'s relevant items. A dense
    ``exclude`` stays a dense array of bools with ``keep_dense``."""
    if sp.issparse(exclude):
        values = exclude.data if hasattr(exclude, "data") else sp.csr_array(exclude).data
        _check_flags(values, where)
        ex = sp.csr_array(exclude, dtype=bool)
    else:
        arr = np.asarray(exclude)
        check_exclude_type(arr.dtype, arr.shape, where)
        _check_flags(arr, where)
        check_exclude_shape(arr.shape, shape, where)
        if keep_dense:
            return arr.astype(bool, copy=False)
        ex = sp.csr_array(arr.astype(bool))
    check_exclude_shape(ex.shape, shape, where)
    ex.eliminate_zeros()
    return ex


def check_exclude_type(dtype, shape, where="evaluate"):
    """A mask of numbers (bool, 0/1) and two dimensions, else a one-line error."""
    if getattr(dtype, "kind", "O") not in "biuf" or len(shape) != 2:
        raise ValueError(
            f"{where}: exclude must be a boolean matrix (or scipy.sparse) of the shape "
            f"of y_true, got {dtype} of shape {tuple(shape)}."
        )


def check_exclude_shape(shape, y_shape, where="evaluate"):
    if tuple(shape) != tuple(y_shape):
        raise ValueError(
            f"{where}: exclude has shape {tuple(shape)}; it must have y_true's, "
            f"{tuple(y_shape)}."
        )


def _check_flags(values, where):
    """``exclude``'s entries are flags: bool, or numbers that are 0 or 1."""
    values = np.asarray(values)
    if values.dtype.kind == "b" or values.size == 0:
        return
    bad = (values != 0) & (values != 1)  # NaN included
    if bad.any():
        raise ValueError(
            f"{where}: exclude must hold True/False (or 0/1) flags, got the value "
            f"{values[bad].reshape(-1)[0].item()!r}; mark each excluded item with True."
        )


def drop_unjudged(ys, judged):
    """Scores with every unjudged item made padding (score ``-inf``, after
    every real item, as the padding of long-format rows), and the items left."""
    return np.where(judged, ys, -np.inf), np.count_nonzero(judged, axis=1)
