"""ERR's tied groups by composition: the stop probabilities of each
composition (size and grade counts) of a tie group, made once per call and
shared by its row blocks (:class:`_TieStops`), and each group's terms summed
from them (:func:`_sum_terms`)."""

from __future__ import annotations

import math
import threading

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

from ..._utils.fast import codes_of
from ..._utils.hashing import KeyTable
from ..._utils.nonzero import flatnonzero
from .combinatorics import _subset_products

#: The share of a row's ERR that a skipped tail may hold: below float64 rounding.
_ERR_DROP = 1e-18



#: Terms from which :func:`_sum_terms` sums a term of every group at a time
#: (below it, all terms in arrays of this size at most: 512 KiB of float64).
_SUM_BY_TERM = 1 << 16


def _sum_terms(flat, offset, n, start):
    """Per group, ``sum_j flat[offset + j] / (start + j + 1)`` for j < n (n >= 1).

    ``flat`` may be read up to ``max(n)`` entries past a group's terms
    (whatever they hold: :func:`_sum_windows` masks them), within its
    length; where it is too short for that, the groups are summed a term
    of every group at a time."""
    total = int(n.sum())
    if total <= _SUM_BY_TERM:
        # Few terms (a few groups, or groups of a few relevant items):
        # every term in one array, summed group by group.
        first = np.cumsum(n) - n
        r = np.arange(total)
        at = np.repeat(offset - first, n)
        at += r
        pos = np.repeat(start + 1 - first, n)
        pos += r
        v = np.take(flat, at)
        v /= pos
        return np.add.reduceat(v, first)
    widest = int(n.max())
    if (total >= _WINDOW_TERMS * n.shape[0] and n.shape[0] * widest <= 2 * total
            and int(offset.max()) + widest <= flat.shape[0]):
        return _sum_windows(flat, offset, n, start, widest)
    # Many terms (about one per entry of the block): one pass per term, over
    # the groups that have it. The groups with the most terms first make
    # those a prefix, read through views (no gather). (A stable sort of
    # 16-bit numbers is a radix sort: a tenth of the time.)
    order = np.argsort(-n.astype(np.int16 if widest < 2**15 else np.int64), kind="stable")
    n = n[order]
    at = offset[order]
    pos = start[order].astype(np.float64) + 1.0
    acc = np.zeros(n.shape[0])
    term = np.empty(n.shape[0])
    for a in np.searchsorted(-n, -np.arange(int(n[0])), side="left").tolist():
        t = np.take(flat, at[:a], out=term[:a])
        t /= pos[:a]
        acc[:a] += t
        at[:a] += 1
        pos[:a] += 1.0
    out = np.empty(n.shape[0])
    out[order] = acc
    return out


#: Terms per group from which :func:`_sum_terms` reads each group's terms as
#: a window of ``flat`` (:func:`_sum_windows`), when the windows, as wide as
#: the widest group's terms, at most double the terms read. (Measured on
#: one thread, per block, rows of 1,000 scored 0..9, graded relevance on
#: 5 %: 4,400 groups of 100 terms, 6.0-6.3 ms a term at a time, 3.3-4.9 ms
#: by windows; on rows of 100, 36,000 groups of 10 terms, 3.0-6.0 ms
#: against 6.3-7.5 ms.)
_WINDOW_TERMS = 32

#: Entries of the arrays :func:`_sum_windows` makes at a time (512 KiB of
#: float64).
_WINDOW_CELLS = 1 << 16


def _sum_windows(flat, offset, n, start, widest):
    """:func:`_sum_terms` of groups of many terms: each group's terms read
    as one row of the windows of ``widest`` entries of ``flat`` (a copy of
    contiguous runs, where a term at a time gathers one entry of every
    group), the entries past its ``n`` set to 0 (they hold the next
    composition's terms, or memory not yet written: set, not multiplied),
    and each row's dot product with the windows of the weights ``1 / (s + j
    + 1)`` at its start ``s``. A few thousand groups at a time: no array
    of the block's size."""
    terms = sliding_window_view(flat, widest)
    w = 1.0 / np.arange(1.0, int(start.max()) + widest + 1.0)
    weights = sliding_window_view(w, widest)
    out = np.empty(n.shape[0])
    cols = np.arange(widest)
    step = max(1, _WINDOW_CELLS // widest)
    for a in range(0, n.shape[0], step):
        b = min(n.shape[0], a + step)
        t = terms[offset[a:b]]
        np.putmask(t, cols >= n[a:b, None], 0.0)
        out[a:b] = np.einsum("ij,ij->i", t, weights[start[a:b]])
    return out


#: The most stop probabilities a :class:`_TieStops` keeps (32 MiB, a dozen
#: float64 temporaries of a block); once full, each block makes its own.
#: (ERR over 10,000 x 1,000 integer scores, graded relevance on 5 %: 19,000
#: compositions of about 100 terms; best of 8, 0.36 s with this bound, 0.50 s
#: with 2**20, 0.53 s each block its own.)
_TIE_STOPS_MAX = 2**22

_TIE_STOPS_LOCK = threading.Lock()

#: Rows of at most this many positions keep a row of weighted sums per
#: composition (:meth:`_TieStops._weigh`): a composition's row costs ``L``
#: entries and ``L`` times its terms in a matrix product, paid back where
#: groups repeat compositions, as on short rows. (Rows of 1,000 scored
#: 0..9: nearly every group a composition of its own.)
_WEIGHTED_MAX_L = 256

#: The most weighted sums a :class:`_TieStops` keeps (32 MiB); compositions
#: past them sum their terms.
_WEIGHTED_MAX = 2**22

#: A call stops keeping compositions when a block (past the first 1,024
#: groups) needs new ones for more than this share of its groups: on rows of
#: 1,000 with dense graded relevance nearly every tied group is a composition
#: of its own (about 265 a block, 265 new), and keeping them cost 10-40 % of
#: ERR's time. Over sparse graded relevance the blocks need new compositions
#: for 83, 61, 49, 41 % ... of their groups.
_TIE_STOPS_SHARED = 0.9


class _TieStops:
    """The stop probabilities ``d[j] = Q[j] - Q[j + 1]`` of tied groups by
    composition (size and grade counts), made once and shared by the row
    blocks of a call (blocks may run on threads: one at a time looks up and
    adds, under a lock; a block keeps reading the array it was given, and
    later additions go past its entries or into a new array).

    Each composition keeps its first ``n`` terms, ``n`` its size or fewer:
    past column ``t* = log(1e-18 / (2 (L + size))) / log(ybar)`` the terms
    are below rounding for a group starting anywhere in a row of ``L``
    (:func:`_err_kept_groups`; ``L + size`` bounds its ``s + m``).
    A composition is one number, ``size + (L + 1) * (c_1 + (L + 1) * (c_2 +
    ...))``, found in a hash table (:class:`KeyTable`), while that number
    stays below ``2**62``; otherwise (a large ``max_grade`` on long rows)
    each block numbers its own compositions (:func:`_compositions`) and
    keeps nothing.
    """

    def __init__(self, y, L):
        self.y = np.asarray(y, dtype=np.float64)
        self.L = int(L)
        k = self.y.shape[0]
        # One number per composition: made in float64 below 2**53 (one
        # product), in int64 below 2**62, not made past it.
        self.place = None
        if (self.L + 1) ** (k + 1) < 2**53:
            self.place = float(self.L + 1) ** np.arange(1, k + 1)
        elif (self.L + 1) ** (k + 1) < 2**62:
            self.place = (self.L + 1) ** np.arange(1, k + 1, dtype=np.int64)
        self.table = KeyTable()
        self.offsets = np.zeros(0, dtype=np.int64)  # by composition number
        self.lengths = np.zeros(0, dtype=np.int64)
        self.flat = np.zeros(0)
        self.used = 0  # entries of flat written
        self.made = 0  # compositions made
        self.looked = 0  # groups looked up in the table
        self.unshared = False  # from now on, each block its own
        # The compositions' weighted sums (:meth:`_weigh`), on rows short
        # enough for a row of them per composition to pay.
        self.weighted = np.zeros((0, self.L)) if self.L <= _WEIGHTED_MAX_L else None
        self.n_weighted = 0  # rows of weighted made

    def lookup(self, counts, size):
        """``(offset, length, flat)``: each group's terms are
        ``flat[offset:offset + length]``."""
        return self._find(counts, size)[1:4]

    def group_sums(self, counts, size, start, kc):
        """Each group's ``sum_j d[j] / (start + j + 1)`` over its terms before
        the cut ``kc`` (``start``: its 0-based first position, int64).

        A group whose terms all lie before the cut reads the sum off
        :attr:`weighted` (its composition's row, at its start) when its
        composition has one; the others sum their terms
        (:func:`_sum_terms`)."""
        found = self._find(counts, size, where=False)
        pos, weighted = found[0], found[4]
        if weighted is None:
            offset, length, flat = found[1:4]
            return _sum_terms(flat, offset, np.minimum(length, kc - start), start)
        # A group ends before the cut (its terms, at most its size, too), or
        # its terms may: their number is read for those only.
        read = pos < weighted.shape[0]
        split = flatnonzero(start + size > kc)
        if split.size:
            read[split] &= start[split] + self.lengths[pos[split]] <= kc
        at = pos * self.L
        at += start
        if read.all():
            return np.take(weighted.reshape(-1), at)
        out = np.empty(pos.shape[0])
        some = flatnonzero(read)
        out[some] = np.take(weighted.reshape(-1), at[some])
        rest = flatnonzero(~read)
        p, s = pos[rest], start[rest]
        length = self.lengths[p]
        out[rest] = _sum_terms(self.flat, self.offsets[p], np.minimum(length, kc - s), s)
        return out

    def _find(self, counts, size, where=True):
        """``(pos, offset, length, flat, weighted)``: each group's composition
        number ``pos`` (None when the block numbered its own), its terms
        ``flat[offset:offset + length]``, and the compositions' weighted sums
        made so far (a view of their rows; None: not kept). Without
        ``where``, offset and length are None where ``weighted`` is not
        (then read from :attr:`offsets` and :attr:`lengths`, whose entries
        stay as they are while compositions are added)."""
        if self.place is None or self.unshared:
            return (None, *self._block_own(counts, size), None)
        if self.place.dtype == np.int64:
            key = np.asarray(size, dtype=np.int64).copy()
            for place, c in zip(self.place.tolist(), counts):
                key += place * np.rint(c).astype(np.int64)
        else:
            key = np.rint(self.place @ counts)
            key += size
            key = key.astype(np.int64)
        with _TIE_STOPS_LOCK:
            pos, found = self.table.find(key)
            missing = flatnonzero(~found)
            if missing.size:
                new, first = np.unique(key[missing], return_index=True)
                if (new.shape[0] > _TIE_STOPS_SHARED * key.shape[0]
                        and 1024 < self.looked):
                    # The groups of these rows repeat few compositions: kept
                    # for nothing, and read from a large table out of cache.
                    self.unshared = True
                c_new, size_new = counts[:, missing[first]].T, size[missing[first]]
                n = self._lengths(c_new, size_new)
                if self.used + int(n.sum()) > _TIE_STOPS_MAX:  # full
                    self.unshared = True
                    return (None, *self._block_own(counts, size), None)
                off, n, terms = self._make(c_new, size_new, n, self.used)
                # Grown by doubling, with room for a window of the longest
                # terms past the last (:func:`_sum_windows`; a group has at
                # most L).
                if self.used + terms.shape[0] + self.L > self.flat.shape[0]:
                    grown = np.empty(max(2 * self.flat.shape[0],
                                         self.used + terms.shape[0] + self.L, 4096))
                    grown[:self.used] = self.flat[:self.used]
                    self.flat = grown
                self.flat[self.used:self.used + terms.shape[0]] = terms
                self.used += terms.shape[0]
                number = self.table.add(new)
                self.offsets = np.concatenate([self.offsets, off])
                self.lengths = np.concatenate([self.lengths, n])
                self._weigh()
                pos[missing] = number[np.searchsorted(new, key[missing])]
            self.looked += key.shape[0]
            if self.weighted is not None and not where:
                return pos, None, None, self.flat, self.weighted[:self.n_weighted]
            return pos, self.offsets[pos], self.lengths[pos], self.flat, None

    def _weigh(self):
        """Each composition's weighted sums ``sum_j d[j] / (s + j + 1)`` at
        every start ``s`` of a row of ``L`` (a row of :attr:`weighted` each),
        made for the compositions added since the last call while they fit
        in :data:`_WEIGHTED_MAX` entries: one matrix product of their terms
        (zero past each one's own) with the weights ``1 / (s + j + 1)``.
        Compositions repeat over a call's groups (rows of 100 scored 0..9:
        about 50 groups each), and each group then reads one number instead
        of gathering and dividing its terms."""
        if self.weighted is None:
            return
        a = self.n_weighted
        b = min(self.offsets.shape[0], _WEIGHTED_MAX // max(self.L, 1))
        if b <= a:
            return
        off, n = self.offsets[a:b], self.lengths[a:b]
        T = int(n.max())
        cols = np.arange(T)
        # (flat holds room for L entries past the last terms: T <= L.)
        D = np.take(self.flat, off[:, None] + cols)
        np.putmask(D, cols >= n[:, None], 0.0)  # set, not multiplied: may be unwritten
        W = 1.0 / np.add.outer(cols + 1.0, np.arange(self.L, dtype=np.float64))
        if b > self.weighted.shape[0]:
            grown = np.empty((min(max(2 * self.weighted.shape[0], b, 256),
                                  _WEIGHTED_MAX // max(self.L, 1)), self.L))
            grown[:a] = self.weighted[:a]
            self.weighted = grown
        self.weighted[a:b] = D @ W
        self.n_weighted = b

    def _block_own(self, counts, size):
        """:meth:`lookup` for this block alone, nothing kept."""
        comp, first = _compositions(size, counts.T)
        c, n_items = counts[:, first].T, size[first]
        n = self._lengths(c, n_items)
        offset, length, flat = self._make(c, n_items, n, 0, room=int(n.max(initial=0)))
        return offset[comp], length[comp], flat

    def _lengths(self, counts, size):
        """The terms each composition given (one group each) keeps."""
        held = counts @ np.ones(counts.shape[1])
        whole = np.asarray(size, dtype=np.float64)
        ybar = (whole - held + counts @ self.y) / whole
        with np.errstate(divide="ignore"):
            need = np.log(_ERR_DROP / (2.0 * (self.L + whole))) / np.log(ybar)
        t_star = np.where(ybar < 1.0, np.ceil(np.nan_to_num(need, posinf=np.inf)), whole)
        return np.maximum(np.minimum(t_star, whole), 1.0).astype(np.int64)

    def _make(self, counts, size, n, base, room=0):
        """The first ``n`` terms of the compositions given (one group each),
        stored from ``base``: ``(offsets, lengths, terms)``, ``terms``
        followed by ``room`` entries not written (a window's reach past the
        last, :func:`_sum_windows`)."""
        y = self.y
        self.made += n.shape[0]
        terms = np.empty(int(n.sum()) + room)
        if not n.shape[0]:  # (no composition: nothing to make)
            return np.zeros(0, dtype=np.int64), n, terms
        # The compositions by the terms they need, in powers of two: one call
        # each, its arrays as wide as its widest; all in one call where the
        # padding costs less than the calls (a call costs about as much as
        # 2**16 entries).
        width = np.ceil(np.log2(n)).astype(np.int64)
        if n.shape[0] * int(n.max()) <= 2 * int(n.sum()) + 2**16:
            width[:] = 0
        order = np.argsort(width, kind="stable")
        ends = np.cumsum(n[order])
        offsets = np.empty(n.shape[0], dtype=np.int64)
        offsets[order] = ends - n[order] + base
        lo = 0
        for b in np.unique(width).tolist():
            mine = order[np.searchsorted(width[order], b):np.searchsorted(width[order], b,
                                                                           side="right")]
            T = int(n[mine].max())
            Q = _subset_products(counts[mine], size[mine], y, T)  # (groups, T + 1)
            d = Q[:, :-1] - Q[:, 1:]
            part = d[np.arange(T) < n[mine][:, None]]  # row by row: each its first n
            terms[lo:lo + part.shape[0]] = part
            lo += part.shape[0]
        return offsets, n, terms


def _compositions(size, counts):
    """``(comp, first)``: the groups numbered by their size and grade counts
    (:func:`~sk_rankmetrics._utils.fast.codes_of`), ``first[k]`` a group of
    composition ``k``."""
    counts = np.rint(counts)
    top = (counts.max(axis=0, initial=0) + 1).astype(np.int64).tolist()
    radix = [int(np.max(size, initial=0)) + 1, *top]
    if math.prod(radix) < 2**53:
        # One mixed-radix number per composition, made as a product (float64
        # holds it exactly): a few columns stacked and cast cost far more.
        place = np.cumprod([1, *radix[:-1]]).astype(np.float64)
        key = counts @ place[1:]
        key += np.asarray(size, dtype=np.float64)
        return codes_of(key.astype(np.int64))
    parts = np.column_stack([size, counts]).astype(np.int64)
    if math.prod(radix) >= 2**62:  # one number per composition would overflow
        _, first, comp = np.unique(parts, axis=0, return_index=True, return_inverse=True)
        return comp.reshape(-1), first
    key = parts[:, -1].copy()
    for j in range(parts.shape[1] - 2, -1, -1):
        key *= radix[j]
        key += parts[:, j]
    return codes_of(key)
