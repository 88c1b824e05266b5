"""The ideal ordering of a diversity qrels: ndeval's greedy, rows at a time."""

from __future__ import annotations

import numpy as np

from .._utils.fast import ranges
from .._utils.nonzero import flatnonzero


def greedy_novelty_gains(cand_row, entry_ptr, entry_sub, n_subs, n_rows, depth, keep):
    """Novelty gains of the greedy ideal ordering of each row, position by position.

    Parameters
    ----------
    cand_row : ndarray of shape (n_cand,), int
        The row of each candidate document (a document relevant to some
        subtopic), candidates sorted by row, then by document id ascending.
    entry_ptr : ndarray of shape (n_cand + 1,), int
        Candidate ``c``'s subtopic entries are ``entry_ptr[c]:entry_ptr[c + 1]``.
    entry_sub : ndarray of shape (n_entries,), int
        The (row, subtopic) pair of each entry, in ``0 .. n_subs - 1``; the
        entries of a candidate by subtopic ascending.
    n_subs, n_rows, depth : int
        Number of (row, subtopic) pairs, of rows, of ideal positions wanted.
    keep : float
        ``1 - alpha``: what a subtopic's gain keeps each time a document
        covers it.

    Returns
    -------
    gains : ndarray of shape (n_rows, depth)
        ``gains[r, t]``: the novelty gain of the document the greedy puts at
        position ``t`` of row ``r``, ``sum_s (1 - alpha) ** c_s`` over the
        subtopics ``s`` it covers (``c_s``: the documents before it that cover
        ``s``); 0 once every candidate is placed.

    Notes
    -----
    ndeval's rule, exactly: at each position, the document of the largest
    gain, ties to the largest document id; each subtopic's gain is multiplied
    by ``keep`` when a document covering it is placed. A gain is summed over
    its subtopics in ascending order, as ndeval sums it, so that equal gains
    compare equal. One pass per position, each over every candidate of the
    rows (no loop over rows); the loop stops when no row has a candidate left.
    """
    out = np.zeros((n_rows, depth))
    n_cand = cand_row.shape[0]
    if n_cand == 0 or depth == 0:
        return out
    counts_e = np.diff(entry_ptr)
    entry_cand = np.repeat(np.arange(n_cand), counts_e)
    new = np.ones(n_cand, dtype=bool)
    new[1:] = cand_row[1:] != cand_row[:-1]
    starts = flatnonzero(new)
    rows = cand_row[starts]
    per_row = np.diff(np.append(starts, n_cand))
    gain = np.ones(n_subs)
    used = np.zeros(n_cand, dtype=bool)
    idx = np.arange(n_cand)
    for t in range(min(depth, int(per_row.max()))):
        score = np.bincount(entry_cand, weights=gain[entry_sub], minlength=n_cand)
        score[used] = -1.0
        best_score = np.maximum.reduceat(score, starts)
        at_best = score == np.repeat(best_score, per_row)
        best = np.maximum.reduceat(np.where(at_best, idx, -1), starts)
        ok = best_score > 0
        if not ok.any():
            break
        out[rows[ok], t] = best_score[ok]
        pick = best[ok]
        used[pick] = True
        e = ranges(entry_ptr[pick], counts_e[pick])
        gain[entry_sub[e]] *= keep
    return out


class Subtopics:
    """Subtopic relevance of one block of ranked rows, at one relevance threshold.

    Attributes
    ----------
    rel : ndarray of shape (n, L, S)
        1.0 where the document at a position is relevant to the row's
        subtopic ``s`` (the row's subtopics with some relevant document,
        numbered from 0; ``S`` is the block's largest count).
    n_sub : ndarray of shape (n,)
        The row's subtopics with some relevant document (ndeval's
        ``actualSubtopics``).
    n_rel_sub : ndarray of shape (n, S)
        Relevant documents of each subtopic.
    ideal : dict of float -> ndarray of shape (n, Li)
        Per ``1 - alpha``: the novelty gains of the greedy ideal ordering.
    """

    def __init__(self, rel, n_sub, n_rel_sub, ideal):
        self.rel, self.n_sub, self.n_rel_sub, self.ideal = rel, n_sub, n_rel_sub, ideal
        self._gains = {}

    def gains(self, keep):
        """Novelty gain per position: ``sum_s rel[i, s] * keep ** c[i, s]``,
        ``c`` the documents before ``i`` relevant to ``s``."""
        if keep not in self._gains:
            before = np.cumsum(self.rel, axis=1) - self.rel
            self._gains[keep] = (self.rel * np.power(keep, before)).sum(axis=2)
        return self._gains[keep]


def subtopic_key(req):
    """The key of the :class:`Subtopics` a request reads: its relevance threshold."""
    return f"sub:{req.options.get('threshold')!r}"
