"""Beyond-accuracy kernels over top-k lists encoded as item codes.

Every kernel reads a :class:`TopLists` (a CSR of item codes: ``indptr`` and
``codes``, codes in ``[0, n_codes)``, no code twice in one list) and arrays
indexed by code; none sorts a list, none loops over users in Python. The
whole-set measures return one float; the per-user measures return
``(values, defined)`` as the metric kernels do.
"""

from __future__ import annotations

import numpy as np

#: Feature values summed at a time by :func:`ild` (bounds its temporaries).
ILD_BLOCK_ELEMENTS = 1 << 21


class TopLists:
    """The top-k lists of ``n_rows`` users as item codes in CSR form.

    Parameters
    ----------
    indptr : ndarray of int64 of shape (n_rows + 1,)
        Row ``u`` holds ``codes[indptr[u]:indptr[u + 1]]``, best first.
    codes : ndarray of int64
        Item codes in ``[0, n_codes)``; no code twice in one row.
    n_codes : int
        Number of distinct codes (the recommended items' vocabulary).
    """

    def __init__(self, indptr, codes, n_codes):
        self.indptr = indptr
        self.codes = codes
        self.n_codes = int(n_codes)
        self.lens = np.diff(indptr)
        self.n_rows = self.lens.shape[0]

    def rows(self):
        """The row of every entry of ``codes``."""
        return np.repeat(np.arange(self.n_rows), self.lens)


def list_sums(lists, values):
    """Sum of ``values`` (one per entry of ``lists.codes``) over each row.

    Rows are summed with ``np.add.reduceat`` on the non-empty rows (pairwise
    within a row, no running total across rows), so a row's sum does not
    depend on the rows before it. Empty rows sum to 0.
    """
    out = np.zeros(lists.n_rows, dtype=np.float64)
    nonempty = lists.lens > 0
    if values.shape[0]:
        out[nonempty] = np.add.reduceat(
            values.astype(np.float64, copy=False), lists.indptr[:-1][nonempty]
        )
    return out


def exposure(lists):
    """How many lists each code appears in, ``c_i`` (length ``n_codes``)."""
    return np.bincount(lists.codes, minlength=lists.n_codes)


def coverage(lists, n_catalogue):
    r"""Catalogue coverage :math:`|\bigcup_u L_u| / |C|`."""
    return float(np.count_nonzero(exposure(lists))) / n_catalogue


def gini(counts, n_catalogue):
    r"""Gini index of the exposure over a catalogue of ``n_catalogue`` items.

    ``counts`` are the exposures of the recommended items; the other
    ``n - len(counts)`` items of the catalogue have exposure 0 and come first
    in the ascending order, where they add nothing to the sum:

    .. math:: G = \frac{\sum_{j=1}^{n} (2j - n - 1)\, c_{(j)}}{n \sum_j c_{(j)}}

    NaN when nothing is recommended.
    """
    c = np.sort(np.asarray(counts, dtype=np.float64))
    total = c.sum()
    if total == 0:
        return float("nan")
    n = int(n_catalogue)
    j = np.arange(n - c.shape[0] + 1, n + 1, dtype=np.float64)
    return float(((2.0 * j - n - 1.0) @ c) / (n * total))


def entropy(counts):
    r"""Shannon entropy in bits of :math:`p_i = c_i / \sum_j c_j` (NaN when empty)."""
    c = np.asarray(counts, dtype=np.float64)
    c = c[c > 0]
    total = c.sum()
    if total == 0:
        return float("nan")
    p = c / total
    return float(-(p @ np.log2(p)))


def list_mean(lists, per_code):
    """Per-user mean of a per-item value; undefined (False) for an empty list."""
    sums = list_sums(lists, per_code[lists.codes])
    defined = lists.lens > 0
    with np.errstate(invalid="ignore", divide="ignore"):
        values = np.where(defined, sums / np.maximum(lists.lens, 1), 0.0)
    return values, defined


def novelty(lists, share):
    r"""Per user :math:`\frac{1}{|L_u|}\sum_{i \in L_u} -\log_2 p(i)` (``share`` > 0)."""
    return list_mean(lists, -np.log2(share))


def arp(lists, count):
    """Per user: the mean number of training users of the recommended items."""
    return list_mean(lists, count.astype(np.float64))


def aplt(lists, in_head):
    """Per user: the share of the list outside the head."""
    return list_mean(lists, (~in_head).astype(np.float64))


def serendipity(lists, relevant, in_top_k, k):
    r"""Per user :math:`|\{i \in L_u: \mathrm{rel}(u, i), i \notin \mathrm{Top}_k\}| / k`.

    ``relevant`` has one flag per entry of ``lists.codes``, ``in_top_k`` one
    per code. Every user is defined (an empty list scores 0, as precision).
    """
    hits = relevant & ~in_top_k[lists.codes]
    return list_sums(lists, hits) / k, np.ones(lists.n_rows, dtype=bool)


def ild(lists, unit):
    r"""Intra-list diversity from unit feature vectors ``unit`` (one row per code).

    The mean of :math:`1 - \mathrm{cos}(f_i, f_j)` over the :math:`L(L-1)/2` pairs of
    a list is, with :math:`s = \sum_{i \in L_u} \hat f_i` and
    :math:`\sum_{i<j} \hat f_i \cdot \hat f_j = (\lVert s\rVert^2 - L)/2`,

    .. math:: \mathrm{ILD}(L_u) = 1 - \frac{\|s\|^2 - L}{L (L - 1)},

    so the cost is O(users x k x dims), not O(users x k^2 x dims). Lists of
    fewer than two items are undefined. Values are clipped to [0, 2] (the
    range of :math:`1 - \cos`), against rounding.
    """
    n, d = lists.n_rows, unit.shape[1]
    values = np.zeros(n, dtype=np.float64)
    defined = lists.lens >= 2
    # A zero row after the unit vectors, and one code past the last entry
    # pointing at it: a list shorter than position j adds nothing there.
    padded = np.vstack((unit, np.zeros((1, d))))
    codes = np.append(lists.codes, unit.shape[0])
    end = lists.codes.shape[0]
    step = max(1, ILD_BLOCK_ELEMENTS // max(1, d))
    for lo in range(0, n, step):  # blocks of users bound the temporaries
        hi = min(n, lo + step)
        lens, starts = lists.lens[lo:hi], lists.indptr[lo:hi]
        if not lens.any():
            continue
        # Position by position (k steps, never one per user): the unit vectors
        # at position j of every list of the block, added up.
        s = np.zeros((hi - lo, d), dtype=np.float64)
        for j in range(int(lens.max())):
            s += padded[codes[np.where(lens > j, starts + j, end)]]
        sq = np.einsum("ij,ij->i", s, s)
        L = lens.astype(np.float64)
        with np.errstate(invalid="ignore", divide="ignore"):
            v = 1.0 - (sq - L) / (L * (L - 1.0))
        values[lo:hi] = np.where(defined[lo:hi], np.clip(v, 0.0, 2.0), 0.0)
    return values, defined


def personalization(lists):
    r"""One minus the mean cosine overlap of the lists of every pair of users.

    With :math:`w_u = 1/\sqrt{|L_u|}`, the sum over pairs of users of
    :math:`|L_u \cap L_v| / \sqrt{|L_u||L_v|}` is, item by item,

    .. math:: \sum_i \frac{(\sum_{u: i \in L_u} w_u)^2 - \sum_{u: i \in L_u} w_u^2}{2},

    so the cost is O(users x k), never quadratic in users. Users with an
    empty list take no part in a pair; fewer than two others give NaN.
    """
    return personalization_from_parts(*personalization_parts(lists))


def personalization_parts(lists):
    """The sums personalization needs, as partial counts of a block of users:
    ``(s1, s2, n)`` with ``s1``/``s2`` per code. Blocks add up; the value is
    :func:`personalization_from_parts` of the total."""
    lens = lists.lens
    n = int(np.count_nonzero(lens))
    if n and lens.min() == lens.max():  # one weight for every user: exposure times it
        w = 1.0 / np.sqrt(float(lens[0]))
        c = exposure(lists).astype(np.float64)
        return c * w, c * (w * w), n
    w = np.zeros(lists.n_rows, dtype=np.float64)
    w[lens > 0] = 1.0 / np.sqrt(lens[lens > 0])
    per_entry = np.repeat(w, lens)
    s1 = np.bincount(lists.codes, weights=per_entry, minlength=lists.n_codes)
    s2 = np.bincount(lists.codes, weights=per_entry * per_entry, minlength=lists.n_codes)
    return s1, s2, n


def personalization_from_parts(s1, s2, n):
    """Personalization from summed :func:`personalization_parts`."""
    if n < 2:
        return float("nan")
    mean = float((s1 @ s1 - s2.sum()) / 2.0) / (n * (n - 1) / 2.0)
    return float(min(1.0, max(0.0, 1.0 - mean)))
