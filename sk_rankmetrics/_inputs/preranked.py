"""The preranked layout: ranked lists with sparse truth (TREC runs, ID lists)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from .._ranking.block import check_ties, depth
from .._ranking.chunk import RankedChunk
from .._ranking.groups import tie_groups
from .._ranking.ideal import gains_by_reach
from .._ranking.item_values import ItemMasks, item_values
from .._utils.arrays import as_ids, as_numeric_array, check_finite, exact_scores
from .._utils.errors import example_ids, plural, shown, warn
from .._utils.fast import cumsum_down, ranges, sort_keys, tied_stretches, unique
from .._utils.hashing import GOLDEN, hash_find
from .._utils.nonzero import flatnonzero, neighbours_differ
from .._utils.text_ids import ordered_codes, pack_ids
from .budget import _KEY_LIMIT, _budget
from .id_checks import any_in, check_overlap, no_repeated_item, rows_of

# -- ranked lists and sparse truth ---------------------------------------------------


def _row_of(indptr, a, b):
    """Local row index of each entry of rows ``a:b`` and the row lengths."""
    lens = np.diff(indptr[a : b + 1])
    return np.repeat(np.arange(b - a), lens), lens


@dataclass(eq=False, repr=False)
class PrerankedInputs:
    """Ranked item codes and sparse truth of ``n_rows`` rows, in CSR form.

    - ``rec_indptr``, ``rec_codes`` (and optionally ``rec_scores``): the
      ranked item codes of each row, in rank order;
    - ``truth_indptr``, ``truth_codes``, ``truth_rel``: the items the truth
      names for each row, sorted by code, with their relevance;
      ``truth_judged`` (optional) is False for items the truth names without
      judging them; by default those of a negative level (trec_eval's and
      ir_measures' reading of qrels: in the pool, not judged, never relevant,
      worth nothing unless a gain names the level).

    Item codes are integers. The relevance of every ranked item is found by
    one ``searchsorted`` per row block on the keys ``row * span + code``
    (sorted on the truth side by construction); a ranked item that the truth
    does not name is *unjudged*: it is never relevant and earns no gain,
    whatever the threshold or the gain of level 0. The ideal ranking of a row
    is built from its truth, so it may be longer than the ranked list.
    ``distinct`` says that no list ranks an item twice (checked by the
    builder); otherwise each block's judged items are checked for repeats.
    """

    diversity = False  # the Layout contract (_inputs/layout.py)

    query_ids: Any
    rec_indptr: Any
    rec_codes: Any
    truth_indptr: Any
    truth_codes: Any
    truth_rel: Any
    rec_scores: Any = None
    truth_judged: Any = None
    distinct: bool = False

    def __post_init__(self):
        truth_rel, truth_judged = self.truth_rel, self.truth_judged
        negative = bool(truth_rel.size) and truth_rel.min() < 0
        if truth_judged is None and negative:
            # A negative level is in the pool but not judged, as trec_eval and
            # ir_measures read qrels (TREC Web track: spam -2, junk -1).
            truth_judged = truth_rel >= 0
        if truth_judged is not None and truth_judged.all() and not negative:
            truth_judged = None  # (kept where it says negative levels are judged)
        self.truth_judged = truth_judged
        self.n_rows = self.query_ids.shape[0]
        rec_lens = np.diff(self.rec_indptr)
        truth_lens = np.diff(self.truth_indptr)
        self.n_cols = int(rec_lens.max()) if self.n_rows else 0
        self._one_length = bool(self.n_rows) and int(rec_lens.min()) == self.n_cols
        self.max_truth = int(truth_lens.max()) if self.n_rows else 0
        codes = self.truth_codes
        if codes.size:
            self.cmin, self.cmax = int(codes.min()), int(codes.max())
        else:
            self.cmin, self.cmax = 0, 0
        self.span = self.cmax - self.cmin + 2

    def judged_only(self):
        """The same rows with every ranked item the truth does not judge removed
        (trec_eval's ``-J``): the lists shrink, the truth stays."""
        n = self.n_rows
        if n == 0:
            return self
        row, offs, _, judged, _, lens = self._lookup(0, n, max(self.n_cols, 1))
        if row is None:  # lists of one length: (n, width) arrays
            keep = judged.reshape(-1)
        else:
            keep = np.zeros(self.rec_codes.shape[0], dtype=bool)
            keep[self.rec_indptr[row] + offs] = judged
        new_lens = np.bincount(np.repeat(np.arange(n), lens), weights=keep,
                               minlength=n).astype(np.int64)
        indptr = np.concatenate(([0], np.cumsum(new_lens))).astype(np.int64)
        scores = None if self.rec_scores is None else self.rec_scores[keep]
        return PrerankedInputs(self.query_ids, indptr, self.rec_codes[keep],
                               self.truth_indptr, self.truth_codes, self.truth_rel,
                               rec_scores=scores, truth_judged=self.truth_judged,
                               distinct=self.distinct)

    def _plan(self, requests):
        """``(L, Li)``: ranked positions and ideal positions every block describes.

        Both are bounded by the data (the longest list, the largest truth), so
        the work is O(min(k, n)) per row whatever ``k`` is.
        """
        needs_full, k_max = depth(requests)
        L = self.n_cols if needs_full else min(k_max, self.n_cols)
        if any(r.reads_to_r for r in requests):
            L = self.n_cols  # R-precision reads down to R (at most the list)
        ks = [r.k for r in requests if r.needs_ideal]
        Li = 0
        if ks:
            Li = self.max_truth if None in ks else min(max(ks), self.max_truth)
        return max(L, 1), max(Li, 1)

    def blocks(self, requests):
        L, Li = self._plan(requests)
        # Items a block holds per row: lists of one length without scores are
        # read to L only (a 2-D view); ragged lists and tie groups whole.
        reads = L if self.rec_scores is None and self._one_length else self.n_cols
        truth = -(-self.truth_codes.shape[0] // max(self.n_rows, 1))
        width = max(L, Li, reads, truth, 1)
        step = max(1, _budget(requests) // width)
        step = min(step, max(1, _KEY_LIMIT // self.span))
        return [(slice(a, min(a + step, self.n_rows)), (a, min(a + step, self.n_rows)))
                for a in range(0, self.n_rows, step)]

    def _lookup(self, a, b, limit):
        """Relevance of the first ``limit`` ranked items of rows ``a:b``.

        Returns the local row, the position, whether each looked-up item is
        named by the truth (in the pool) and whether it is judged, its
        relevance (0 if unjudged) and the full list lengths.
        """
        ra, rb = self.rec_indptr[a], self.rec_indptr[b]
        ta, tb = self.truth_indptr[a], self.truth_indptr[b]
        n = b - a
        lens = np.diff(self.rec_indptr[a : b + 1])
        if n and lens.min() == lens.max():
            # Lists of one length (a 2-D array of ids): work on (n, m) blocks.
            w = int(lens[0])
            codes = self.rec_codes[ra:rb].reshape(n, w)[:, : min(limit, w)]
            row = offs = None
            row_key = (np.arange(n) * self.span)[:, None]
        else:
            row = np.repeat(np.arange(n), lens)
            offs = np.arange(rb - ra) - np.repeat(self.rec_indptr[a:b] - ra, lens)
            codes = self.rec_codes[ra:rb]
            if lens.size and limit < lens.max():
                keep = offs < limit
                row, offs, codes = row[keep], offs[keep], codes[keep]
            row_key = row * self.span
        if tb == ta:
            none = np.zeros(codes.shape, dtype=bool)
            return row, offs, none, none, np.zeros(codes.shape), lens
        trow, _ = _row_of(self.truth_indptr, a, b)
        tkeys = trow * self.span + (self.truth_codes[ta:tb] - self.cmin)
        # Codes outside the truth's range are clipped to offset -1 or span - 1,
        # keys no truth item has (truth offsets are 0 .. span - 2).
        rkeys = np.subtract(codes, self.cmin, dtype=np.int64)
        np.clip(rkeys, -1, self.span - 1, out=rkeys)
        rkeys += row_key
        pos, found = _find(tkeys, rkeys)
        hit = rkeys[found] if not self.distinct else rkeys[:0]
        if hit.size > 1:
            s = np.sort(hit)
            dup = s[1:] == s[:-1]
            if dup.any():
                r = int(s[1:][dup][0] // self.span) + a
                raise ValueError(
                    f"the ranked list of query {shown(self.query_ids[r])!r} holds the same "
                    "judged item twice; each item may be ranked once per query."
                )
        judged = found
        if self.truth_judged is not None:
            judged = found & self.truth_judged[ta + pos]
        # A pooled item keeps its (negative) level: a gain that names it gives
        # it a value (item_values); the masks keep it unjudged otherwise.
        rel = np.where(found, self.truth_rel[ta + pos], 0.0)
        return row, offs, found, judged, rel, lens

    def ranked_chunk(self, payload, requests, *, ignore_ties=False):
        a, b = payload
        n = b - a
        L, Li = self._plan(requests)
        has_ties = self.rec_scores is not None and not ignore_ties
        # Without ties only the first L positions matter; tie groups may cross L.
        row, offs, found, judged, rel, lens = self._lookup(
            a, b, self.n_cols if has_ties else L)
        W = max(int(lens.max()) if n and has_ties else 0, L)
        if row is None and rel.shape[1] == W:
            real = None  # every position holds a ranked item
            yt, pool_m, judged_m = rel, found, judged
        else:
            if row is None:
                m = rel.shape[1]
                row, offs = np.repeat(np.arange(n), m), np.tile(np.arange(m), n)
                rel, found, judged = rel.ravel(), found.ravel(), judged.ravel()
            real = np.zeros((n, W), dtype=bool)
            real[row, offs] = True
            yt = np.zeros((n, W))
            yt[row, offs] = rel
            pool_m = np.zeros((n, W), dtype=bool)
            pool_m[row, offs] = found
            judged_m = np.zeros((n, W), dtype=bool)
            judged_m[row, offs] = judged
        values = item_values(yt, requests, a, ItemMasks(real=real, judged=judged_m,
                                                        pool=pool_m))
        # Truth side: the row totals (R, judged items, ...) and the ideal gains.
        ta, tb = self.truth_indptr[a], self.truth_indptr[b]
        trow, _ = _row_of(self.truth_indptr, a, b)
        tj = None if self.truth_judged is None else self.truth_judged[None, ta:tb]
        tvals = item_values(self.truth_rel[None, ta:tb], requests, a,
                            ItemMasks(judged=tj, pool=np.ones((1, tb - ta), dtype=bool)))
        totals = {key: np.bincount(trow, weights=v[0], minlength=n)
                  for key, v in tvals.items()}
        grades = [key for key in totals if key.startswith("grade:")]
        if grades:  # ERR's rows with some relevant grade
            totals.setdefault("rel:None", sum(totals[key] for key in grades))

        tied = False
        if has_ties and n:
            scores = self.rec_scores[self.rec_indptr[a]:self.rec_indptr[b]]
            if real is None:
                sv = scores.reshape(n, W)
                same = sv[:, 1:] == sv[:, :-1]
            else:
                sv = np.full((n, W), -np.inf)
                sv[row, offs] = scores
                same = (sv[:, 1:] == sv[:, :-1]) & real[:, 1:]
            tied = bool(same.any())
        n_items = np.maximum(lens, 1)
        if tied:
            start, size, sums = tie_groups(sv, values)
            sums = {key: v[:, :L] for key, v in sums.items()}
            rc = RankedChunk(L, start[:, :L], size[:, :L], sums, n_items, lens)
        else:
            rc = RankedChunk(L, None, None, {k: v[:, :L] for k, v in values.items()},
                             n_items, lens)
        rc.totals = totals
        if any(r.spec.reads_items for r in requests):
            rc.items = values  # every ranked position (W >= L when tied)
        check_ties(rc, requests, ignore_ties)
        for req in requests:
            if req.needs_ideal and req.gain_key not in rc.ideal:
                rc.ideal[req.gain_key] = _ideal_from_truth(tvals[req.gain_key][0], trow, n,
                                                           Li)
        return rc


#: Bits of the hash table that screens the keys looked up in the truth: the
#: table has at least this many slots per truth key.
_SCREEN_SLOTS = 8


#: :func:`_find` looks up the queries that pass its screen in a hash table when
#: they are at least this many times as many as the keys (measured: 1,849
#: packed ids and 1,000,000 queries, 74 -> 48 ms; blocks of 10,000 keys and
#: 3,300 queries, searched, 0.6 ms each where the table took 1.5 ms).
_HASH_FROM = 4


def _hash_share(n_keys):
    """The least share of queries to keys that :func:`_find` looks up in a hash
    table: :data:`_HASH_FROM` below 10,000 keys, 1 below 100,000, 0.5 from
    there (a binary search among keys that leave the CPU's caches misses at
    each step). Random uint64 keys, half the queries among them, the table's
    time over the search's at a third as many queries as keys and at as many:
    3,000 keys 21.7 and 3.13; 10,000 keys 2.05 and 0.68; 30,000 keys 1.56 and
    0.66; 100,000 keys 1.09 and 0.51; 600,000 keys 0.86 and 0.40 (the truth
    of 200,000 users' lists: 44 against 110 ms); 4,000,000 keys 0.43 and
    0.28."""
    if n_keys < 10_000:
        return _HASH_FROM
    return 1.0 if n_keys < 100_000 else 0.5


def _find(keys, queries):
    """``(pos, found)``: where each of ``queries`` is in ``keys`` (sorted), and
    whether it is there (``pos`` is 0 where not).

    Most queries are ranked items the truth does not name: a table of the keys'
    hashes (a byte per slot, 8 slots per key, so ~1 in 8 absent keys pass)
    screens them out. Those that pass are looked up in a hash table of the
    keys (:func:`hash_find`) when they are many against the keys
    (:func:`_hash_share`), else searched: a binary search takes
    ``log2(len(keys))`` steps, each a cache miss in a large block of keys,
    and the table costs a pass over the keys to build.
    """
    flat = queries.reshape(-1)
    pos = np.zeros(flat.shape[0], dtype=np.intp)
    found = np.zeros(flat.shape[0], dtype=bool)
    if keys.shape[0] and flat.shape[0]:
        bits = max(int(keys.shape[0] * _SCREEN_SLOTS - 1).bit_length(), 6)
        shift = np.uint64(64 - bits)
        table = np.zeros(1 << bits, dtype=bool)
        with np.errstate(over="ignore"):  # multiplication modulo 2**64
            table[(keys.view(np.uint64) * GOLDEN) >> shift] = True
            maybe = flatnonzero(table[(flat.view(np.uint64) * GOLDEN) >> shift])
        q = flat[maybe]
        if q.shape[0] >= _hash_share(keys.shape[0]) * keys.shape[0]:
            pos[maybe], found[maybe] = hash_find(keys, q)
        else:
            p = np.minimum(np.searchsorted(keys, q), keys.shape[0] - 1)
            pos[maybe], found[maybe] = p, keys[p] == q
    return pos.reshape(queries.shape), found.reshape(queries.shape)


def _ideal_from_truth(gains, trow, n, width):
    """The ``width`` largest truth gains of each row, increasing (best last);
    0 where a row has fewer truth items. ``trow`` is nondecreasing."""
    out = np.zeros((n, width))
    if gains.size == 0:
        return out
    levels, inv = _levels_of(gains)
    m = levels.shape[0]
    if m <= _COUNTED_GAINS:
        # Each row's count of each gain, the best first, then the positions
        # each gain reaches (0 past the row's items). No sort.
        # Level-major counts: the running sums over levels are row vectors.
        counts = np.bincount((m - 1 - inv) * n + trow, minlength=n * m).reshape(m, n)
        reach = cumsum_down(counts)
        return gains_by_reach(levels[::-1], list(reach), width, n)[:, ::-1]
    # By row, then by gain descending: one integer key.
    order = np.argsort(trow * m + (m - 1 - inv), kind="stable")
    r = trow[order]
    new = np.ones(r.shape[0], dtype=bool)
    new[1:] = r[1:] != r[:-1]
    first = flatnonzero(new)
    rank = np.arange(r.shape[0]) - np.repeat(first, np.diff(np.append(first, r.shape[0])))
    keep = rank < width
    out[r[keep], width - 1 - rank[keep]] = gains[order][keep]
    return out


#: Truth gains taking at most this many values are counted per row, not sorted.
_COUNTED_GAINS = 16


def _levels_of(gains):
    """``(levels, inverse)``: the distinct gains, increasing, and each gain's
    index among them. Whole gains in a span of at most 1,024 are counted
    (NumPy's hashed ``np.unique`` of a million floats is slow); others go to
    ``np.unique``."""
    lo, hi = float(gains.min()), float(gains.max())
    if hi - lo <= 1024 and np.array_equal(gains, np.floor(gains)):
        offset = (gains - lo).astype(np.intp)
        present = np.bincount(offset, minlength=int(hi - lo) + 1) > 0
        index = np.cumsum(present) - 1  # each present offset's place among them
        return flatnonzero(present) + lo, index[offset]
    levels, inv = np.unique(gains, return_inverse=True)
    return levels, inv.reshape(-1)


def _common_id_type(a, b):
    """Cast two id arrays to one comparable type (int64, or str for both); an
    array already of that type is not copied (the ranked ids of a million
    users' lists of 20 ids of 6 characters: 480 MB)."""
    if a.dtype.kind in "iu" and b.dtype.kind in "iu":
        return a.astype(np.int64, copy=False), b.astype(np.int64, copy=False)
    return a.astype(str, copy=False), b.astype(str, copy=False)


def indptr_of(codes, n):
    return np.concatenate(([0], np.cumsum(np.bincount(codes, minlength=n)))).astype(np.int64)


def group_long(rec_query, rec_item, rec_score=None, *, order="given"):
    """Long ranked entries -> ``(query_ids, lengths, items, scores)`` grouped by query.

    With ``order="given"`` the entries of each query keep their order (rank
    order, best first); with ``order="score"`` they are ranked by score
    descending, ties broken by item id descending (as trec_eval does).
    """
    rq = as_ids(rec_query, "the ranked lists' query ids")
    ri = as_ids(rec_item, "the ranked item ids")
    if rq.shape != ri.shape:
        raise ValueError("the ranked lists' query ids and item ids must have one length, "
                         f"got {rq.shape[0]} and {ri.shape[0]}.")
    score = None
    if rec_score is not None:
        score = as_numeric_array(rec_score, "the ranked lists' scores")
        if score.shape != rq.shape:
            raise ValueError("the ranked lists' scores must have one entry per ranked "
                             f"item ({rq.shape[0]}), got {score.shape[0]}.")
        check_finite(score, "the ranked lists' scores")
        score = exact_scores(score)
    if order == "score":
        if score is None:
            raise ValueError("order='score' needs scores.")
        o = ranked_order(rq, ri, score)
    elif (rq[1:] < rq[:-1]).any():
        o = np.argsort(rq, kind="stable")
    else:  # (grouped by query already: the rows stay where they are)
        o = None
    if o is not None:
        rq, ri = rq[o], ri[o]
        if score is not None:
            score = score[o]
    new = np.ones(rq.shape[0], dtype=bool)
    new[1:] = rq[1:] != rq[:-1]
    starts = flatnonzero(new)
    lens = np.diff(np.append(starts, rq.shape[0]))
    return rq[starts], lens, ri, score


def sort_pairs(rows, codes, n):
    """Order of (row, code) pairs, or None when they are sorted already."""
    if rows.size < 2:
        return None
    cmin = int(codes.min())
    span = int(codes.max()) - cmin + 1
    if n * span < _KEY_LIMIT:
        key = rows * span + (codes - cmin)
        if not (key[1:] < key[:-1]).any():
            return None
        return np.argsort(key, kind="stable")
    return np.lexsort((codes, rows))


#: Relevance levels packed into the truth's sort keys: at most this many.
_PACKED_LEVELS = 16


def _sort_packed(rows, codes, rel, n):
    """``(rows, codes, rel)`` sorted by (row, code) through one sort of packed
    keys, or None: the relevance must take a few integer levels, and the keys
    fit in 63 bits. The fields are bit fields (row, code, level), so packing
    and unpacking are shifts and masks, no integer division."""
    if rows.size < 2:
        return None
    if rel.dtype.kind == "b":
        rel = rel.view(np.uint8)
    lo, hi = rel.min().item(), rel.max().item()
    if hi - lo >= _PACKED_LEVELS:
        return None
    if rel.dtype.kind == "f" and not np.array_equal(rel, np.floor(rel)):
        return None
    lbits = int(hi - lo).bit_length()
    cmin = int(codes.min())
    cbits = (int(codes.max()) - cmin).bit_length()
    if (max(n - 1, 1).bit_length() + cbits + lbits) > 62:
        return None
    key = np.left_shift(rows, cbits + lbits, dtype=np.int64)
    field = np.subtract(codes, cmin, dtype=np.int64)
    if lbits:
        field <<= lbits
        key |= field
        np.subtract(rel, lo, out=field, casting="unsafe")  # whole levels 0 .. 2**lbits - 1
    key |= field
    del field  # (arrays of the truth's size are paged in afresh: as few as may be)
    if not (key[1:] < key[:-1]).any():
        return rows, codes, rel
    key = sort_keys(key)
    if lbits:
        out_rel = np.empty(key.shape[0])
        np.bitwise_and(key, (1 << lbits) - 1, out=out_rel, casting="unsafe")
        if lo:
            out_rel += lo
    else:
        out_rel = rel
    key >>= lbits
    out_codes = key & ((1 << cbits) - 1)
    if cmin:
        out_codes += cmin
    key >>= cbits
    return key, out_codes, out_rel


@dataclass(frozen=True)
class RankedLists:
    """Ranked lists, one per query (user), list after list.

    Parameters
    ----------
    ids : array-like of shape (n_lists,)
        The query (user) of each list, each once.
    lengths : array-like of shape (n_lists,), int
        Length of each list.
    items : array-like of shape (sum(lengths),)
        The ranked item ids, list after list, each list best first.
    scores : array-like of shape (sum(lengths),), optional
        Scores of the ranked items, non-increasing within each list.
    distinct : bool, default=False
        The lists are known to hold each item once (a run built from one
        dict per query, or already checked): the search for a repeat is
        skipped.
    """

    ids: Any
    lengths: Any
    items: Any
    scores: Any = None
    distinct: bool = False


@dataclass(frozen=True)
class Truth:
    """Judgements in long form: one entry per judged (query, item) pair.

    Parameters
    ----------
    query, item, relevance : array-like of shape (n_truth,)
        The judged items of each query and their relevance.
    judged : ndarray of bool of shape (n_truth,), optional
        False marks entries that name an item without judging it: it is in
        the pool, but never relevant and worth nothing unless a gain names its
        level. Default: the entries of a negative level (trec_eval's reading).
    queries : array-like, optional
        Every query (user) the truth knows, also those with no judged item (a
        user whose set of relevant ids is empty). Default: those of ``query``.
    """

    query: Any
    item: Any
    relevance: Any
    judged: Any = None
    queries: Any = None


def _checked_truth(truth, what):
    """The truth's arrays checked: ``(query ids, item ids, relevance, every query
    it names or None, judged flags or None)``."""
    tq = as_ids(truth.query, f"the truth's {what} ids")
    ti = as_ids(truth.item, "the truth's item ids")
    tr = as_numeric_array(truth.relevance, "the truth's relevance")
    if not (tq.shape == ti.shape == tr.shape):
        raise ValueError(f"the truth's {what} ids, item ids and relevance must have one "
                         f"length, got {tq.shape[0]}, {ti.shape[0]} and {tr.shape[0]}.")
    check_finite(tr, "the truth's relevance")
    if tr.dtype.kind == "b":
        tr = tr.view(np.uint8)
    if tr.dtype.kind not in "iu":  # integers stay so until the truth is sorted
        tr = tr.astype(np.float64)
    all_tq = (None if truth.queries is None
              else as_ids(truth.queries, f"the truth's {plural(what)}"))
    tj = None
    if truth.judged is not None:  # given: kept, also all True (negative levels judged)
        tj = np.asarray(truth.judged, dtype=bool)
    return tq, ti, tr, all_tq, tj


def _rows(uq, lens, ri, score, tq, all_tq, queries, what):
    """The rows: the ranked lists (kept, dropped or completed by the truth's
    queries). Returns ``(uq, lens, ri, score, tq, indptr, u_order, u_sorted,
    trows)``; ``trows`` (the row of each truth entry) or None."""
    if all_tq is not None:
        _, all_tq = _common_id_type(uq, all_tq)
    uq, tq = _common_id_type(uq, tq)
    u_order = np.argsort(uq, kind="stable")
    u_sorted = uq[u_order]
    if u_sorted.size > 1 and (u_sorted[1:] == u_sorted[:-1]).any():
        i = int(flatnonzero(u_sorted[1:] == u_sorted[:-1])[0])
        raise ValueError(f"{what} {shown(u_sorted[i])!r} has two ranked lists; give one list "
                         f"per {what}.")
    trows = None
    if queries == "run" and all_tq is None:
        # The rows stay those of the lists: the truth's rows tell the overlap.
        trows = rows_of(u_sorted, u_order, tq)
        check_overlap(uq, tq, queries, what, rows=trows)
    else:
        check_overlap(uq, tq if all_tq is None else all_tq, queries, what)
    truth_q = unique(tq if all_tq is None else all_tq) if queries != "run" else None
    indptr = np.concatenate(([0], np.cumsum(lens))).astype(np.int64)
    if queries != "run":
        keep = np.isin(uq, truth_q)
        if not keep.all():
            flat_keep = np.repeat(keep, lens)
            uq, lens, ri = uq[keep], lens[keep], ri[flat_keep]
            score = None if score is None else score[flat_keep]
        if queries == "truth":
            extra = np.setdiff1d(truth_q, uq, assume_unique=True)
            uq = np.concatenate((uq, extra))
            lens = np.concatenate((lens, np.zeros(extra.shape[0], dtype=np.int64)))
        indptr = np.concatenate(([0], np.cumsum(lens))).astype(np.int64)
        u_order = np.argsort(uq, kind="stable")
        u_sorted = uq[u_order]
    return uq, lens, ri, score, tq, indptr, u_order, u_sorted, trows


def _item_codes(ri, ti):
    """Item codes: integers as they are when they fit, else codes in the truth's
    vocabulary. Returns ``(ri, ti, coded, truth codes, ranked codes, ranked
    keys)``: the keys stand for the ranked ids in comparisons (the ids, or
    :func:`_text_keys` of text ids)."""
    ri, ti = _common_id_type(ri, ti)
    coded = not (ti.dtype.kind == "i"
                 and (ti.size == 0 or int(ti.max()) - int(ti.min()) < (1 << 40)))
    if not coded:
        return ri, ti, coded, ti, ri, ri
    kr, kt = _text_keys(ri, ti)
    vocab, t_codes = np.unique(kt, return_inverse=True)
    t_codes = t_codes.reshape(-1).astype(np.int64)
    if vocab.size and vocab.dtype == np.uint64:  # packed ids: found through hash tables
        p, found = _find(vocab, kr)
        r_codes = np.where(found, p, -1).astype(np.int64, copy=False)
    elif vocab.size:
        p = np.minimum(np.searchsorted(vocab, kr), vocab.size - 1)
        r_codes = np.where(vocab[p] == kr, p, -1).astype(np.int64, copy=False)
    else:
        r_codes = np.full(ri.shape[0], -1, dtype=np.int64)
    return ri, ti, coded, t_codes, r_codes, kr


def _text_keys(ri, ti):
    """Text ids of at most 8 characters below U+0100 (user and item ids such as
    ``"u1234"``) as one ``uint64`` each, in the ids' order (``pack_ids``):
    NumPy sorts and searches those several times faster than strings (1,000,000
    users' lists of 20 ids: ``np.searchsorted`` of the ranked ids among the
    judged ones took 7 of 11 s on the strings). Other ids as they are."""
    if ri.dtype.kind == "U" and ti.dtype.kind == "U":
        kr, kt = pack_ids(ri), pack_ids(ti)
        if kr is not None and kt is not None:
            return kr, kt
    return ri, ti


def _sorted_truth(trows, t_codes, tr, tj, ti, uq, n, what):
    """Truth rows, sorted by (row, code); a duplicate judgement is an error.
    Returns ``(trows, t_codes, tr, tj)``."""
    tkeep = trows >= 0
    if tkeep.all():
        ti_kept = ti
    else:
        trows = trows[tkeep]
        t_codes, tr, ti_kept = t_codes[tkeep], tr[tkeep], ti[tkeep]
        tj = None if tj is None else tj[tkeep]
    del tkeep
    packed = _sort_packed(trows, t_codes, tr, n) if tj is None else None
    if packed is not None:
        # Relevance of a few integer levels (clicks, grades): the (row, code,
        # level) keys are sorted as values, no permutation needed.
        unsorted = trows, t_codes
        trows, t_codes, tr = packed
        t_order = None
    else:
        t_order = sort_pairs(trows, t_codes, n)
        if t_order is not None:
            trows, t_codes, tr = trows[t_order], t_codes[t_order], tr[t_order]
            tj = None if tj is None else tj[t_order]
        else:
            t_order = np.arange(trows.shape[0])
    if trows.size > 1:
        dup = (trows[1:] == trows[:-1]) & (t_codes[1:] == t_codes[:-1])
        if dup.any():
            if t_order is None:  # the error names the item: find its line
                t_order = sort_pairs(*unsorted, n)
                t_order = np.arange(trows.shape[0]) if t_order is None else t_order
            i = int(flatnonzero(dup)[0])
            raise ValueError(
                f"the truth judges item {shown(ti_kept[t_order[i]])!r} twice for {what} "
                f"{shown(uq[trows[i]])!r}; give each ({what}, item) pair once."
            )
    return trows, t_codes, tr, tj


def build_preranked(lists, truth, *, queries="run", what="query"):
    """Build :class:`PrerankedInputs` from :class:`RankedLists` and a :class:`Truth`.

    Parameters
    ----------
    lists : RankedLists
        The ranked lists.
    truth : Truth
        The judgements.
    queries : {"run", "truth", "both"}
        Which queries become rows: those with a ranked list, those with
        judgements (queries without a list score as empty lists), or both.
    what : str
        What a row is called in messages ("query", "user").
    """
    uq = as_ids(lists.ids, f"the {what} ids of the ranked lists")
    ri = as_ids(lists.items, "the ranked item ids")
    lens = np.asarray(lists.lengths, dtype=np.int64)
    tq, ti, tr, all_tq, tj = _checked_truth(truth, what)
    score = None if lists.scores is None else np.asarray(lists.scores, dtype=np.float64)
    uq, lens, ri, score, tq, indptr, u_order, u_sorted, trows = _rows(
        uq, lens, ri, score, tq, all_tq, queries, what)
    n = uq.shape[0]
    if n == 0:
        raise ValueError(f"no {what} has both a ranking and judgements; check that the "
                         f"{what} ids of the ranking and of the truth match.")
    ri, ti, coded, t_codes, r_codes, r_keys = _item_codes(ri, ti)
    if trows is None:
        trows = rows_of(u_sorted, u_order, tq)
    del tq
    trows, t_codes, tr, tj = _sorted_truth(trows, t_codes, tr, tj, ti, uq, n, what)
    if not lists.distinct:
        no_repeated_item(indptr, lens, ri, r_codes, uq, what, coded=coded, keys=r_keys)
    truth_indptr = indptr_of(trows, n)
    if tr.size and ri.size and not any_in(r_codes, t_codes, indptr, truth_indptr):
        warn(
            f"no ranked item appears in the truth (ranked ids such as {example_ids(ri)}, "
            f"judged ids such as {example_ids(ti)}): every {what} scores as if nothing "
            "relevant was ranked. Check that both use the same item ids.", UserWarning,
        )
    return PrerankedInputs(uq, indptr, r_codes, truth_indptr, t_codes,
                           tr.astype(np.float64, copy=False), rec_scores=score,
                           truth_judged=tj, distinct=True)


def ranked_order(qid, docno, score):
    """Order of a run as trec_eval ranks it.

    By query, then score descending, then docno descending (as strings: code
    point order, which is the byte order of UTF-8), then the later entry
    first. Strings are not sorted whole: the queries are numbered by their
    stretches of equal neighbours (a run comes grouped by query), the entries
    put in order by their scores (no sort at all when each query's entries
    come together, by score descending), and only the entries tied with a
    neighbour on score are ordered by docno (:func:`_order_ties`).
    """
    n = len(qid)
    if n == 0:
        return np.zeros(0, dtype=np.int64)
    new = np.ones(n, dtype=bool)
    neighbours_differ(qid, new[1:])
    starts = flatnonzero(new)
    lens = np.diff(np.append(starts, n))
    codes = ordered_codes(qid[starts])
    falls = score[1:] <= score[:-1]
    falls |= new[1:]  # from one stretch to the next
    distinct = unique(codes)
    if distinct.shape[0] == codes.shape[0] and falls.all():
        # Each query one stretch, ranked: the stretches in query order.
        by_q = np.argsort(codes, kind="stable")
        order = ranges(starts[by_q], lens[by_q])
        first = np.zeros(n, dtype=bool)
        first[np.cumsum(lens[by_q]) - lens[by_q]] = True
    else:
        # By score descending, then by query (stable), whose dense codes
        # NumPy sorts by radix when they fit 16 bits.
        dense = np.searchsorted(distinct, codes)
        q = np.repeat(dense.astype(np.uint16) if distinct.shape[0] <= 1 << 16 else dense, lens)
        order = np.argsort(-score)  # ties: _order_ties
        qo = q[order]
        by_q = np.argsort(qo, kind="stable")
        order, qo = order[by_q], qo[by_q]
        first = np.ones(n, dtype=bool)
        neighbours_differ(qo, first[1:])
    s = score[order]
    tied = s[1:] == s[:-1]
    tied &= ~first[1:]
    if tied.any():
        _order_ties(order, tied, docno)
    return order


#: The bits of the packed keys of :func:`_order_ties` (a sort by three keys beyond).
_TIE_KEY_BITS = 64


def _order_ties(order, tied, docno):
    """Each stretch of ``order`` whose scores tie (``tied[i]``: places ``i``
    and ``i + 1``) put in docno descending order, the later entry first among
    equal docnos (whatever their order before); in place."""
    places, stretch = tied_stretches(tied)
    rows = order[places]
    keys = ordered_codes(docno[rows])
    # One sort of (stretch, docno rank descending, entry descending) packed in
    # 64 bits when they fit (a vectorised sort of numbers), else a sort by
    # three keys. The order of a stretch's entries before it does not matter.
    distinct = unique(keys)
    last = order.shape[0] - 1
    kb, ib = max(distinct.shape[0] - 1, 1).bit_length(), max(last, 1).bit_length()
    if int(stretch[-1]).bit_length() + kb + ib > _TIE_KEY_BITS:
        order[places] = rows[np.lexsort((~rows, ~keys, stretch))]
        return
    down = np.uint64(distinct.shape[0] - 1) - np.searchsorted(distinct, keys).astype(np.uint64)
    packed = stretch.astype(np.uint64) << np.uint64(kb + ib)
    packed |= down << np.uint64(ib)
    packed |= np.uint64(last) - rows.astype(np.uint64)
    packed = sort_keys(packed)
    packed &= np.uint64((1 << ib) - 1)
    order[places] = last - packed.astype(np.intp)
