"""The dense layout: (n_rows, n_items) matrices, sparse truth densified per block."""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from .._ranking.block import rank_block
from .arrays import _sortable, check_finite
from .budget import _budget

# -- matrices ---------------------------------------------------------------------


class DenseInputs:
    """``(n_rows, n_items)`` matrices, dense or with sparse ``y_true``."""

    query_ids = None

    def __init__(self, y_true, y_score, judged=None):
        self.y_true = y_true
        self.y_score = y_score
        self.judged = judged
        self.n_rows, self.n_cols = y_true.shape

    def blocks(self, requests):
        step = max(1, _budget(requests, dense=True) // self.n_cols)
        return [(slice(a, min(a + step, self.n_rows)), (a, min(a + step, self.n_rows)))
                for a in range(0, self.n_rows, step)]

    def ranked_chunk(self, payload, requests, *, ignore_ties=False):
        a, b = payload
        yt = self.y_true[a:b]
        yt = np.asarray(yt.toarray() if sp.issparse(yt) else yt)
        ys = _sortable(np.asarray(self.y_score[a:b]))
        check_finite(yt, "y_true", a)
        check_finite(ys, "y_score", a)
        judged = None if self.judged is None else self.judged[a:b]
        return rank_block(yt, ys, requests, ignore_ties=ignore_ties, row0=a, judged=judged)
