r"""The candidate table of :func:`~.fusion.fuse`, built per query on padded blocks.

Every entry of every run becomes one unsigned 64-bit number
``(document key, run, position)`` with the document key in the high bits;
the entries of each query (all runs together) sit in one row of a padded
block, and one row sort (NumPy's vectorised sort of plain numbers) brings
the entries of one document side by side, by run. Equal neighbouring keys
are one candidate; nothing is hashed per entry and no Python object is made
per entry or per query.

A document key keeps the order of the ids (ties of the fused run are broken
by document id): ids of at most 8 characters below U+0100 are packed into
the number itself, first character most significant (and unpacked for the
output); other ids are numbered in sorted order (:func:`.fusion_codes._factorize`).
"""

from __future__ import annotations

import copy
from functools import cached_property, partial

import numpy as np

from .._utils.arrays import flatnonzero
from .._utils.fast import ranges
from .._utils.nonzero import neighbours_differ
from .._utils.text_ids import pack_ids, text_of_bytes, unpack_ids
from .._utils.threads import bounded_map

#: The padding of a block: at or above every key (the keys are sorted as
#: int64, which NumPy sorts faster than uint64; a packed entry keeps the top
#: bit 0). Rows are read back by their number of keys, never by value.
_PAD = np.iinfo(np.int64).max


def _bits(n):
    """The bits that number ``0 .. n - 1``: at least 1."""
    return max(int(n - 1).bit_length(), 1)


class QueryCodes:
    """A run's query code of every entry, held as stretches of equal
    neighbours (a run lists each query's entries together: one stretch a
    query, a few thousand numbers for millions of entries): ``starts``, the
    first entry of each stretch, and ``codes``, its query code; ``n``
    entries in all."""

    def __init__(self, starts, codes, n):
        self.starts, self.codes, self.n = starts, codes, n

    @classmethod
    def of(cls, q):
        """The stretches of a code per entry."""
        q = np.asarray(q)
        n = q.shape[0]
        new = np.ones(n, dtype=bool)
        neighbours_differ(q, new[1:])
        starts = flatnonzero(new)
        return cls(starts, q[starts].astype(np.int64, copy=False), n)

    @property
    def sizes(self):
        """The entries of each stretch."""
        return np.diff(np.append(self.starts, self.n))

    def full(self):
        """The code of every entry."""
        return np.repeat(self.codes, self.sizes)

    def counts(self, n_q):
        """The entries of each query code ``0 .. n_q - 1``."""
        return np.bincount(self.codes, weights=self.sizes, minlength=n_q).astype(np.int64)

    def renumbered(self, table):
        """The same stretches, each code ``c`` read as ``table[c]``."""
        return QueryCodes(self.starts, table[self.codes], self.n)


def _as_query_codes(q):
    return q if isinstance(q, QueryCodes) else QueryCodes.of(q)


def key_bits(q_runs, n_q):
    """The bits left for a document key beside the run and the position."""
    longest = max(int(_as_query_codes(q).counts(n_q).max(initial=1)) for q in q_runs)
    return 63 - _bits(len(q_runs)) - _bits(longest)


class PackedIds:
    """Document keys packed from the ids themselves (:func:`~.._utils.text_ids.pack_ids`) into at
    most ``bits`` bits, the ids' order kept: the bytes no id uses dropped and
    the smallest key subtracted; when that is still too wide, each character
    position numbers only the bytes used there (a mixed radix: ids of digits
    take about 3.5 bits a character). Raises OverflowError when even that
    does not fit. The keys are handed over: shifted in place when they fit."""

    def __init__(self, keys, bits, stats=None):
        given = [k for k in keys if k.shape[0]] or [np.zeros(1, dtype=np.uint64)]
        if stats is None:  # the keys' bitwise or, least and largest
            seen = 0
            for k in given:
                seen |= int(np.bitwise_or.reduce(k))
            stats = (seen, int(min(k.min() for k in given)), int(max(k.max() for k in given)))
        seen, least, largest = stats
        # ASCII ids are their own UTF-8 bytes: :meth:`token_keys` gives a file's keys.
        self.ascii = not seen & 0x8080808080808080
        self.width = 8 - (((seen & -seen).bit_length() - 1) // 8 if seen else 8)
        self.shift = np.uint64(8 * (8 - self.width)) if self.width else np.uint64(0)
        self.low = np.uint64(least) >> self.shift
        self.radix = None
        self.span = int((np.uint64(largest) >> self.shift) - self.low) + 1
        if self.span <= 1 << bits:
            for k in keys:  # in place: no array of the runs' size made afresh
                k >>= self.shift
                k -= self.low
            self.keys = keys
            return
        every = np.concatenate(keys)
        chars = self._chars(every)
        used = np.zeros((self.width, 256), dtype=bool)
        for j in range(self.width):
            used[j, chars[:, j]] = True
        radix = used.sum(axis=1)
        self.span = int(np.prod(radix.astype(object)))
        if self.span > 1 << bits:
            raise OverflowError("document ids too wide to pack beside runs and positions")
        self.rank = (np.cumsum(used, axis=1) - 1).astype(np.uint64)
        self.byte = [flatnonzero(u).astype(np.uint8) for u in used]
        self.radix = [np.uint64(x) for x in radix]
        self.keys = [self._mixed(self._chars(k)) for k in keys]

    def _chars(self, keys):
        """The characters of packed keys, first character first: ``(n, width)``."""
        return keys.view(np.uint8).reshape(keys.shape[0], 8)[:, ::-1][:, :self.width]

    def _mixed(self, chars):
        out = np.zeros(chars.shape[0], dtype=np.uint64)
        for j in range(self.width):
            out *= self.radix[j]
            out += self.rank[j][chars[:, j]]
        return out

    @property
    def dtype(self):
        """The dtype of :meth:`strings`."""
        return np.dtype(f"U{max(self.width, 1)}")

    def strings(self, keys, out=None):
        """The ids of ``keys``, written into ``out`` when given."""
        if self.radix is None:
            keys = keys + self.low
            keys <<= self.shift
            return unpack_ids(keys, self.width, out)
        chars = np.empty((keys.shape[0], self.width), dtype=np.uint8)
        rest = keys.copy()
        for j in range(self.width - 1, -1, -1):
            chars[:, j] = self.byte[j][(rest % self.radix[j]).astype(np.intp)]
            rest //= self.radix[j]
        return text_of_bytes(chars, self.width, out)

    def token_keys(self, keys, out):
        """The 64-bit key that a file reader gives each id of ``keys``
        (:class:`~.tokens.TokenColumn`: the id's bytes read as one
        little-endian word), written into ``out``; for ASCII ids (``ascii``)
        on a little-endian machine."""
        if self.radix is None:
            np.add(keys, self.low, out=out)
            out <<= self.shift  # the packed id: first character most significant
            return out.byteswap(inplace=True)
        chars = out.view(np.uint8).reshape(keys.shape[0], 8)
        chars[:, self.width:] = 0
        rest = keys.copy()
        for j in range(self.width - 1, -1, -1):
            chars[:, j] = self.byte[j][(rest % self.radix[j]).astype(np.intp)]
            rest //= self.radix[j]
        return out

    def sorted_ids(self, keys):
        """``(codes, ids)`` of the keys: ``ids`` sorted and distinct."""
        uniq, codes = np.unique(keys, return_inverse=True)
        return codes.reshape(-1), self.strings(uniq)


#: Ids packed per task when runs are coded on threads (:func:`.fusion._coded`).
_PACK_ROWS = 1 << 21


def packed_keys(docs, n_threads):
    """:func:`~.._utils.text_ids.pack_ids` of every run's ids (None for a run whose
    ids are codes or do not pack), in slices of :data:`_PACK_ROWS` ids on
    threads, with the bitwise or, the least and the largest key of them all
    (what :class:`~.fusion_table.PackedIds` reads); ``(None, None)`` when a
    run's ids do not pack."""
    if any(isinstance(d, tuple) for d in docs):
        return None, None
    out = [np.empty(d.shape[0], dtype=np.uint64) for d in docs]
    tasks = [(r, a, min(a + _PACK_ROWS, d.shape[0]))
             for r, d in enumerate(docs) for a in range(0, d.shape[0], _PACK_ROWS)]

    def pack(task):
        r, a, b = task
        keys = pack_ids(docs[r][a:b], out=out[r][a:b])
        if keys is None:
            return None
        return int(np.bitwise_or.reduce(keys)), int(keys.min()), int(keys.max())

    stats = list(bounded_map(pack, tasks, n_threads))
    if not stats or any(x is None for x in stats):
        return None, None
    seen = 0
    for x in stats:
        seen |= x[0]
    return out, (seen, min(x[1] for x in stats), max(x[2] for x in stats))


class NumberedIds:
    """Document keys that number the sorted distinct ids."""

    def __init__(self, codes, ids):
        self.keys = [c.astype(np.uint64) for c in codes]
        self.ids = ids
        self.span = ids.shape[0]

    @property
    def dtype(self):
        """The dtype of :meth:`strings`."""
        return self.ids.dtype

    def strings(self, keys, out=None):
        """The ids of ``keys``, written into ``out`` when given."""
        return np.take(self.ids, keys.astype(np.int64), out=out)

    def sorted_ids(self, keys):
        return keys.astype(np.int64), self.ids


def ranked_grouped(q, key, score, n_q):
    """The entries of one run grouped by query and ranked by score descending
    (ties in the order given), as every position reads them: unchanged when
    they come so (a run file, a ranked dict), else stably sorted. Returns
    ``(q, key, score, start, length, starts)``: each query's first entry and
    number of entries, and the first entry of each query in entry order."""
    n = q.shape[0]
    new = np.ones(n, dtype=bool)
    neighbours_differ(q, new[1:])
    starts = flatnonzero(new)
    grouped = int(np.bincount(q[starts], minlength=n_q).max(initial=0)) <= 1
    if not grouped or (score[1:] > score[:-1])[~new[1:]].any():
        order = np.lexsort((np.arange(n), -score, q))
        q, key, score = q[order], key[order], score[order]
        neighbours_differ(q, new[1:])
        starts = flatnonzero(new)
    length = np.bincount(q, minlength=n_q)
    start = np.zeros(n_q, dtype=np.int64)
    start[q[starts]] = starts
    return q, key, score, start, length, starts


#: The normalisations made per run and query on the run's own entries.
ENTRY_NORMS = ("min-max", "max", "sum", "zmuv")


def normalised(score, starts, norm):
    """A run's scores (grouped by query, ranked) under ``norm``, each query
    apart, as ranx normalises: ``min-max`` :math:`(s - lo)/(hi - lo)`, ``max``
    :math:`s/hi`, ``sum`` :math:`(s - lo)/\\sum(s - lo)`, ``zmuv``
    :math:`(s - \\mu)/\\sigma` (population), each divisor at least 1e-9."""
    if norm is None or score.shape[0] == 0:
        return score
    ends = np.append(starts[1:], score.shape[0])
    size = ends - starts
    hi, lo = score[starts], score[ends - 1]  # ranked: the first is the largest
    if norm == "min-max":
        return (score - np.repeat(lo, size)) / np.repeat(np.maximum(hi - lo, 1e-9), size)
    if norm == "max":
        return score / np.repeat(np.maximum(hi, 1e-9), size)
    total = np.add.reduceat(score, starts)
    if norm == "sum":
        return (score - np.repeat(lo, size)) / np.repeat(np.maximum(total - lo * size, 1e-9),
                                                         size)
    mean = np.repeat(total / size, size)
    dev = score - mean
    std = np.sqrt(np.add.reduceat(dev * dev, starts) / size)
    return dev / np.repeat(np.maximum(std, 1e-9), size)


def _sorted_entries(entries, q_runs, pos_runs, lengths):
    """``(query, entry)`` of every entry of every run, sorted by query then
    entry: each query's entries on one row of a padded block sorted by row
    (a run's entries of a query at its columns ``offset + position``), or
    (when the queries' sizes differ too much for a block) one sort by both."""
    per_query = lengths.sum(axis=0)
    n_q, width, total = per_query.shape[0], int(per_query.max(initial=0)), int(per_query.sum())
    if n_q * width > 2 * total + 1024:
        q_all, every = np.concatenate(q_runs), np.concatenate(entries)
        order = np.lexsort((every, q_all))
        return q_all[order], every[order]
    if n_q and (lengths == lengths[:, :1]).all():
        # Every query as long in each run (a run of 1,000 documents a query):
        # each run's entries fill their columns of the block as they come.
        block = np.empty((n_q, width), dtype=np.int64)
        at = 0
        for entry, size in zip(entries, lengths[:, 0].tolist()):
            block[:, at:at + size] = entry.view(np.int64).reshape(n_q, size)
            at += size
        block.sort(axis=1)
        return np.repeat(np.arange(n_q), width), block.reshape(-1).view(np.uint64)
    block = np.full((n_q, width), _PAD)
    # Each run's first flat index per query: the row's start plus the runs before.
    base = np.arange(n_q) * width + (np.cumsum(lengths, axis=0) - lengths)
    for r, (entry, q, pos) in enumerate(zip(entries, q_runs, pos_runs)):
        block.reshape(-1)[base[r][q] + pos] = entry.view(np.int64)
    block.sort(axis=1)
    keep = np.arange(width) < per_query[:, None]
    return np.repeat(np.arange(n_q), per_query), block[keep].view(np.uint64)


class Candidates:
    """The candidates of every query and each run's score and position there.

    ``queries`` are the sorted distinct query ids, ``q_runs`` each run's
    query code per entry, ``ids`` its document keys (:class:`PackedIds` or
    :class:`NumberedIds`), ``scores`` its scores and ``names`` how messages
    name each run. One row per (query, document) that some run retrieves, by
    query then document id: ``q_of_row``, ``doc_key``; one column per run:
    ``present``, ``score``, ``pos`` (0-based, by score descending, ties in
    the order given), ``length`` (the run's list length for the query);
    ``n_cand``, the query's candidates; ``query_of_run``, the queries each
    run holds. What a method may not read (``score``, ``pos``, ``length``,
    ``n_cand``, and ``docs`` and ``d_of_row``, the sorted distinct document
    ids and each row's index there) is made when first read.
    """

    def __init__(self, queries, q_runs, ids, scores, names, norm=None):
        n_q, n_runs = queries.shape[0], len(q_runs)
        runs = [ranked_grouped(q, k, s, n_q) for q, k, s in zip(q_runs, ids.keys, scores)]
        self._scores = [normalised(run[2], run[5], norm) for run in runs]
        lengths = np.array([run[4] for run in runs])  # (runs, queries)
        pos_bits, run_bits = _bits(int(lengths.max(initial=1))), _bits(n_runs)
        shift = run_bits + pos_bits
        if max(ids.span, 1) > 1 << (63 - shift):
            raise OverflowError("document keys too wide to pack beside runs and positions")
        pos_runs = [np.arange(run[0].shape[0]) - run[3][run[0]] for run in runs]
        entries = [(run[1] << np.uint64(shift)) | np.uint64(r << pos_bits) | pos.astype(np.uint64)
                   for r, (run, pos) in enumerate(zip(runs, pos_runs))]
        q_f, e_f = _sorted_entries(entries, [run[0] for run in runs], pos_runs, lengths)
        doc = e_f >> np.uint64(shift)
        run = ((e_f >> np.uint64(pos_bits)) & np.uint64((1 << run_bits) - 1)).astype(
            np.min_scalar_type(n_runs))
        pos = (e_f & np.uint64((1 << pos_bits) - 1)).astype(np.int32 if pos_bits < 31 else
                                                             np.int64)
        n = e_f.shape[0]
        new = np.ones(n, dtype=bool)
        new[1:] = (doc[1:] != doc[:-1]) | (q_f[1:] != q_f[:-1])
        twice = ~new[1:] & (run[1:] == run[:-1])
        if twice.any():
            at = int(flatnonzero(twice)[0]) + 1
            raise ValueError(f"fuse: {names[int(run[at])]} ranks a document twice "
                             "for one query; keep one line of each (duplicates='first' of "
                             "evaluate_run shows which).")
        self.queries, self._ids = queries, ids
        self._row_start = flatnonzero(new)
        self.doc_key, self.q_of_row = doc[self._row_start], q_f[self._row_start]
        self._q_f, self._entry_pos, self._lengths = q_f, pos, lengths
        first = np.array([run_[3] for run_ in runs])  # each run's first entry per query
        first += np.cumsum([0, *(run_[0].shape[0] for run_ in runs[:-1])])[:, None]
        self._first = first
        self._run = run
        self.query_of_run = [flatnonzero(lens) for lens in lengths]

    @cached_property
    def _at(self):
        """Each entry's cell in ``(runs, rows)`` matrices (one run a row)."""
        return self._run.astype(np.int64) * self._row_start.shape[0] + self._row_of_entry

    @cached_property
    def present(self):
        """Whether each run retrieves each row's document, ``(rows, runs)``."""
        present = np.zeros((len(self._scores), self._row_start.shape[0]), dtype=bool)
        present.reshape(-1)[self._at] = True
        return present.T  # column-major: each run's column contiguous

    def _by_run(self, values, fill=0.0):
        out = np.full((len(self._scores), self._row_start.shape[0]), fill)
        out.reshape(-1)[self._at] = values
        return out.T

    @cached_property
    def pos(self):
        """Each run's 0-based position of each row (0 where absent)."""
        return self._by_run(self._entry_pos)

    @cached_property
    def entry_score(self):
        """The (normalised) score of each entry, entries by row then run."""
        n_q = self._first.shape[1]
        at = self._first.reshape(-1)[self._run.astype(np.int64) * n_q + self._q_f] + self._entry_pos
        return np.concatenate(self._scores)[at]

    @property
    def entry_pos(self):
        """The position of each entry, entries by row then run."""
        return self._entry_pos

    @property
    def entry_run(self):
        """The run of each entry, entries by row then run."""
        return self._run

    @cached_property
    def _row_of_entry(self):
        return np.repeat(np.arange(self._row_start.shape[0]), self._n_entries)

    def row_sum(self, values):
        """Per row, the sum of its entries' ``values`` added one run after the
        other, from 0 (as ranx adds; NumPy's reductions pair the terms): the
        first entry of every row, then the second of the rows that have one,
        and so on (a row holds at most one entry per run)."""
        start = self._row_start
        total = values[start] + 0.0  # 0 + first entry (-0.0 read as 0.0)
        count = self._n_entries
        rows = None
        for j in range(1, len(self._scores)):
            rows = flatnonzero(count > j) if rows is None else rows[count[rows] > j]
            if rows.shape[0] == 0:
                break
            total[rows] += values[start[rows] + j]
        return total

    @cached_property
    def _n_entries(self):
        """The number of entries of each row (an integer :attr:`n_present`)."""
        return np.diff(np.append(self._row_start, self._run.shape[0]))

    @cached_property
    def n_present(self):
        """The number of runs that retrieve each row's document."""
        return self._n_entries.astype(np.float64)

    @cached_property
    def score(self):
        """Each run's (normalised) score of each row (0 where absent)."""
        return self._by_run(self.entry_score)

    @cached_property
    def length(self):
        """Each run's list length for the row's query."""
        return np.array([lens.astype(np.float64)[self.q_of_row] for lens in self._lengths]).T

    @cached_property
    def n_cand(self):
        """The number of candidates of the row's query."""
        return np.bincount(self.q_of_row, minlength=self.queries.shape[0])[self.q_of_row]

    def doc_ids(self, rows):
        """The document id of each of ``rows``."""
        return self._ids.strings(self.doc_key[rows])

    @cached_property
    def _sorted_docs(self):
        return self._ids.sorted_ids(self.doc_key)

    @property
    def docs(self):
        """The sorted distinct document ids of all runs."""
        return self._sorted_docs[1]

    @property
    def d_of_row(self):
        """Each row's index in :attr:`docs`."""
        return self._sorted_docs[0]


def _descending_keys(x):
    """``int64`` keys of finite floats whose ascending order is the floats'
    descending order (``-0.0`` read as ``0.0``): a float's bits read as an
    integer order the floats of one sign, so the bits of a negative float
    but its sign are flipped, and then all bits (a decreasing map)."""
    bits = (x + 0.0).view(np.int64)
    keys = bits >> 63  # -1 for a negative float, else 0
    keys &= np.iinfo(np.int64).max
    keys ^= bits
    return np.invert(keys, out=keys)


def rank_within_queries(fused, q_of_row, n_q):
    """``(order, fused[order])``: the rows ordered by query, fused score
    descending, then row (rows come in (query, document) order, so ties keep
    document order).

    Each query's scores go on a row of a padded block as one number: the
    score's key with its low bits replaced by the row's slot in its query,
    sorted by one row sort; two scores that differ in those low bits only
    (2**-40 apart, relatively) may come out of order, and the queries where
    they do are ordered again by an exact stable sort."""
    n = fused.shape[0]
    counts = np.bincount(q_of_row, minlength=n_q)
    width = int(counts.max(initial=0))
    if n == 0 or n_q * width > 2 * n + 1024:
        order = np.lexsort((-fused, q_of_row))
        return order, fused[order]
    first = np.cumsum(counts) - counts
    # Rows come by query: each row's query read by repeating per query, not gathered.
    row_first = np.repeat(first, counts)
    slot = np.arange(n) - row_first
    low = (1 << _bits(width)) - 1
    keys = _descending_keys(fused)
    keys &= ~low
    keys |= slot
    block = np.full((n_q, width), _PAD)
    block.reshape(-1)[slot + np.repeat(np.arange(n_q) * width, counts)] = keys
    block.sort(axis=1)
    keep = np.arange(width) < counts[:, None]
    ranked = block[keep]
    order = (ranked & low) + row_first
    # Neighbours of one query whose keys tie without the slot: their scores may
    # differ in the dropped bits; each such stretch is sorted again exactly.
    top = ranked & ~low
    tie = (top[1:] == top[:-1]) & (q_of_row[1:] == q_of_row[:-1])
    ahead = fused[order]
    unsure = tie & (ahead[1:] != ahead[:-1])
    if unsure.any():
        bounds = flatnonzero(~tie) + 1  # where a stretch of tied keys starts (after 0)
        pick = flatnonzero(unsure)
        lo = np.append(0, bounds)[np.searchsorted(bounds, pick, side="right")]
        hi = np.append(bounds, n)[np.searchsorted(bounds, pick, side="right")]
        lo, keep_first = np.unique(lo, return_index=True)
        hi = hi[keep_first]
        size = hi - lo
        at = ranges(lo, size)
        stretch = np.repeat(np.arange(lo.shape[0]), size)
        order[at] = order[at][np.lexsort((order[at], -ahead[at], stretch))]
        ahead[at] = fused[order[at]]
    return order, ahead


#: The entries (all runs) of one block of queries fused at a time: temporaries
#: of a few MB, which stay in the processor's cache longer and which the
#: allocator reuses instead of mapping anew; blocks are fused on threads.
BLOCK_ENTRIES = 1 << 18


def _query_stretches(q, n_q):
    """``(first, count)`` of a run whose entries come grouped by query (each
    query's entries one stretch, in any order of the queries; ``q`` a
    :class:`QueryCodes`): query ``c``'s entries are ``first[c] : first[c] +
    count[c]``. None when a query's entries come in two stretches or more."""
    if np.bincount(q.codes, minlength=n_q).max(initial=0) > 1:
        return None
    first = np.zeros(n_q, dtype=np.int64)
    count = np.zeros(n_q, dtype=np.int64)
    first[q.codes] = q.starts
    count[q.codes] = q.sizes
    return first, count


class _RunBlocks:
    """One run's entries of consecutive blocks of queries: a slice when the
    run lists its queries in code order, the block's stretches gathered
    (in the block's thread) when it lists them in another order, and the
    run sorted by query once when a query comes in two stretches."""

    def __init__(self, q, key, score, n_q):
        q = _as_query_codes(q)
        stretches = _query_stretches(q, n_q)
        if stretches is None:
            full = q.full()
            order = np.argsort(full, kind="stable")
            key, score = key[order], score[order]
            stretches = _query_stretches(QueryCodes.of(full[order]), n_q)
        self.first, self.count = stretches
        self.key, self.score = key, score
        self.bounds = np.append(0, np.cumsum(self.count))
        self.in_order = bool((self.first == self.bounds[:-1]).all())

    def block(self, a, b):
        """``(query codes from a, keys, scores)`` of queries ``a`` to ``b``."""
        size = self.count[a:b]
        q = np.repeat(np.arange(b - a), size)
        if self.in_order:
            i, j = int(self.bounds[a]), int(self.bounds[b])
            return q, self.key[i:j], self.score[i:j]
        at = ranges(self.first[a:b], size)
        return q, self.key[at], self.score[at]


def candidate_blocks(queries, q_runs, ids, scores, names, norm=None, limit=None):
    """The :class:`Candidates` of consecutive blocks of queries, each block
    with at most ``limit`` entries over all runs (:data:`BLOCK_ENTRIES`; a
    query larger than that is a block of its own), as ``(first query,
    make)``: ``make()`` gathers the block's entries and builds its table
    (its query codes counted from the block's first query), so that blocks
    are gathered and built on threads."""
    limit = BLOCK_ENTRIES if limit is None else limit
    n_q = queries.shape[0]
    runs = [_RunBlocks(q, key, score, n_q) for q, key, score in zip(q_runs, ids.keys, scores)]
    total = np.cumsum(sum(run.count for run in runs))
    ends = np.unique(np.searchsorted(total, np.arange(1, total[-1] // limit + 1) * limit,
                                     side="right"))
    bounds = np.unique(np.concatenate([[0], np.maximum(ends, 1), [n_q]]))

    def make(a, b):
        parts = [run.block(a, b) for run in runs]
        block_ids = copy.copy(ids)
        block_ids.keys = [p[1] for p in parts]
        return Candidates(queries[a:b], [p[0] for p in parts], block_ids,
                          [p[2] for p in parts], names, norm)

    for a, b in zip(bounds[:-1].tolist(), bounds[1:].tolist()):
        yield a, partial(make, a, b)
