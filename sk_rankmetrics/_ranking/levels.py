"""Whole rows ranked by one sort of scores that carry each item's level.

Ranking whole rows by ``np.argsort`` and then gathering the sorted scores and
each item's relevance costs the argsort and two gathers of the block. When the
relevance takes a few integer levels (at most 256), each item's level is
written into the lowest bits of its float score's mantissa; one ``np.sort`` of
those values (NumPy's vectorised sort, a third to a half of an argsort) gives
each row's levels in rank order, and the bits above say which neighbours tie:
nothing is gathered.

A score's lowest bits give way to the level, so two scores that differ only
there look tied (and a negative score's levels come in reverse, a zero's become
a subnormal): every row where neighbours look tied is ranked again exactly by
``np.argsort`` (a few rows: the rows that truly tie, and about one pair in
2**(52 - bits) of random float64 neighbours). float32 scores in short rows are
keyed in 32 bits (half the bytes sorted, and NumPy's sort takes twice the
values a step): about one pair in 2**(23 - bits) looks tied, a few rows of 100
in a thousand. Where more rows look tied, or the rows are long, float32 scores
are keyed in 32 bits without losing one: each score's bits as a sortable
integer less the block's smallest, the level below, when the block's span
leaves room for the level's bits. Where it does not, they are widened to
float64, whose 29 extra bits hold the level: their ties are exact. float64
scores in short rows take the same 32-bit key rounded to float32, the rows
where two round to one float32 ranked again exactly.
"""

from __future__ import annotations

import numpy as np

from .._utils.fast import rows_with_equal_neighbours, sort_float32_rows, sortable_int32
from .._utils.nonzero import flatnonzero
from .chunk import RankedChunk
from .few_ties import FewTies, joins_two_codes
from .groups import LazyGroups, _GroupSums
from .item_values import LevelValues, level_span, level_values
from .padding import padded_level_codes

#: Scores whose lowest bits look tied in more than one row in this many take
#: another route (ranking every row twice costs more than the sort saves):
#: float32 keys the float64 one, float64 keys the argsort's.
_MOST_ROWS = 8

#: float32 scores are keyed in 32 bits in rows of ``N`` items when ``N * N *
#: 2**bits`` is at most this: uniform scores then look tied in about one row
#: in 64 (a pair of neighbours in ``2**(24 - bits) / N``), well under
#: :data:`_MOST_ROWS`. (Rows of 100 with 5 levels: about 4 rows in 1,000.)
_NARROW_MOST = 2**18


class _Key:
    """One width of key: the float type whose bits carry the level, its
    integer twin, and the byte holding its lowest bits."""

    def __init__(self, ftype, itype):
        self.ftype, self.itype = ftype, itype
        self.width = np.dtype(ftype).itemsize
        self.low_byte = 0 if np.little_endian else self.width - 1


_WIDE, _NARROW = _Key(np.float64, np.int64), _Key(np.float32, np.int32)


def rank_by_levels(y_score, values, check=None, n_items=None, floor=None):
    """:func:`~._ranking.chunk.rank_chunk` of whole rows ``y_score`` (n, N), every
    item judged, ranked by one sort of scores carrying their levels; or None
    when the relevance or the scores do not fit (levels not integers, more
    than 256 of them, scores other than float64 and float32). ``check``:
    the scores' :class:`~.._utils.arrays.ScoreCheck` (None: checked already),
    made from the ends of the sorted keys (a non-finite score's key is not
    finite either, and sorts to an end).

    ``n_items``: the real items of padded rows (their padding holds the
    score ``-inf`` and the relevance 0, checked already), or None. Padding
    takes distinct scores below every real one (:func:`_below_the_real`),
    so it is ranked last and ties with nothing, with the code of level 0
    where that is worth what padding is, else with a code of its own
    (:func:`~.padding.padded_level_codes`).
    ``floor``: a score no real item's is below (None: the smallest is read)."""
    padded = n_items is not None
    if y_score.dtype not in (np.float64, np.float32):
        return None
    fit = padded_level_codes(values, padded)
    if fit is None:
        return None
    if padded:
        y_score = _below_the_real(y_score, values.masks.real, fit[1], floor)
        if y_score is None:
            return None
    return _rank_by_levels(y_score, values, check, fit, n_items)


def sorts_narrow(y_score, values):
    """Whether :func:`rank_by_levels` ranks unpadded rows ``y_score`` of at
    most 512 float32 or float64 scores by a sort of 32-bit keys or of
    float32 offsets, the relevance's levels fitting a code: a sort of about
    what a row sort of the scores rounded to float32 costs. Read off the
    dtype, the width and the block's extremes (no codes made)."""
    N = y_score.shape[1]
    return (y_score.dtype in (np.float32, np.float64) and _rounds_short(N)
            and level_span(values) is not None)


def _rank_by_levels(y_score, values, check, fit, n_items):
    """:func:`rank_by_levels` of rows whose padding (if any) is scored."""
    bits, N = fit[1], y_score.shape[1]
    if (y_score.dtype == np.float32 and (N * N) << bits <= _NARROW_MOST
            and _few_look_tied(y_score[:_PROBE_ROWS], bits)):
        ranked = _by_key(y_score, values, fit, check, _NARROW, n_items)
        if ranked is not _TOO_MANY:
            return ranked
    if (y_score.dtype == np.float32 or (_rounds_short(N)
                                        and _few_round_tied(y_score[:_PROBE_ROWS]))) \
            and _offset_may_fit(y_score[:_PROBE_ROWS], bits):
        ranked = _by_offset_key(y_score, values, fit, check, n_items)
        if ranked is not None:
            return ranked
    if y_score.dtype == np.float64 and n_items is None:
        # (float64 scores in short rows that tie in a few rows went above.)
        ranked = _by_decimal_key(y_score, values, fit, check)
        if ranked is not None:
            return ranked
    ranked = _by_key(y_score, values, fit, check, _WIDE, n_items)
    return None if ranked is _TOO_MANY else ranked


def _below_the_real(y_score, real, bits, floor=None):
    """``y_score`` with its padding (``-inf``, where ``real`` is False)
    replaced by distinct scores below every real one, or None when there is
    no room.

    The padding of a row takes float32 values (exact in float64 too) spaced
    ``2**bits`` float32 steps apart below ``floor`` (None: the block's
    smallest real score; below the negative ones from ``-2**bits`` steps
    under 0, when that is not negative): the keys that give a score's lowest
    ``bits`` to its level keep them apart, and none is a zero, which would
    tie with a real 0. Each column's padding score is the larger of it and
    the column's: one pass, no mask read."""
    m = floor
    if m is None:
        m = np.where(real, y_score, np.inf).min()  # (a reduction with where= costs twice this)
    with np.errstate(over="ignore"):  # past float32's range: an infinity, declined
        m = np.float32(m) + np.float32(0)
    if not np.isfinite(m):
        return None  # (a NaN, or only padding: the argsort's route reads it)
    N, step = y_score.shape[1], 1 << bits
    top = int(sortable_int32(np.array([m]))[0]) if m < 0 else -step
    keys = top - step * np.arange(1, N + 1, dtype=np.int64)
    if keys[-1] <= _LOWEST_FINITE:
        return None
    pads = sortable_int32(keys.astype(np.int32).view(np.float32)).view(np.float32)
    return np.maximum(y_score, pads.astype(y_score.dtype))


#: The sortable int32 (:func:`sortable_int32`) of the lowest finite float32.
_LOWEST_FINITE = int(sortable_int32(np.array([np.finfo(np.float32).min]))[0])


#: float64 scores are keyed rounded to float32 (:func:`_by_offset_key`) in
#: rows of ``N`` items when ``N * N`` is at most this: uniform scores then
#: round to one float32 in about one row in 60 (a pair of neighbours in
#: ``2**-24 * N``), ranked again. (Rows of 1,000: about one row in 16, whose
#: argsort costs what the shorter sort saves.)
_ROUNDED_MOST = 2**18


def _rounds_short(N):
    """Whether float64 rows of ``N`` scores are short enough to be keyed
    rounded to float32 (:data:`_ROUNDED_MOST`)."""
    return N * N <= _ROUNDED_MOST


#: :func:`_by_key`'s answer when too many rows look tied.
_TOO_MANY = object()

#: The first rows of a block whose 32-bit keys are tried first
#: (:func:`_few_look_tied`): an eightieth of the work of a block of 5,242
#: rows (rows of 100 without a cut-off).
_PROBE_ROWS = 64


def _few_look_tied(probe, bits):
    """Whether at most one row in :data:`_MOST_ROWS` of the float32 rows
    ``probe`` looks tied in 32-bit keys of ``bits`` low bits: scores bunched
    together (probabilities near 1, say) would send every row of the block
    to the float64 key after a whole 32-bit pass (1.17-1.26 times the time
    of the float64 key alone on rows of 100). A row sort's neighbours that
    share their bits above the lowest ``bits`` are the key's equal
    neighbours, whatever those bits hold; scores whose lowest bits are
    zeros (whole numbers) tie exactly there, however many rows tie."""
    keys = np.sort(probe + np.float32(0), axis=1).view(np.int32)
    if not np.bitwise_and(keys, (1 << bits) - 1).any():
        return True
    keys >>= bits
    return rows_with_equal_neighbours(keys).shape[0] * _MOST_ROWS <= probe.shape[0]


def _by_offset_key(y_score, values, fit, check, n_items=None):
    """:func:`rank_by_levels` of float32 scores keyed in 32 bits with every bit
    kept, or None when they do not fit (or a score is not finite: the other
    keys check them and name the place).

    A float32's bits, read as an integer (negatives' flipped), order the
    scores; less the block's smallest, the scores of a block between ``lo``
    and ``hi`` take ``key(hi) - key(lo) + 1`` values, and when those times
    ``2**bits`` fit in 32 bits, the level goes below them and nothing is
    lost: the key's ties are the scores' own, whatever the row length.
    (Scores in [1e-6, 1] span 2**27.3 values: room for 4 bits of levels;
    with 0 itself 2**30, room for 2. Scores of both signs, logits say, span
    up to 2**31: binary relevance alone.) NumPy sorts 32-bit
    values at twice the rate of 64-bit ones: on rows of 1,000, where the
    lowest bits given to the level would make a third of the rows look
    tied, the float64 key cost twice this sort.

    float64 scores in short rows (:data:`_ROUNDED_MOST`) are keyed rounded
    to float32, which keeps their order: the rows where two round to one
    float32 are ranked again exactly (:func:`_rank_exactly`, each score's
    rank among the row's distinct ones standing for its bits), or, past
    one row in :data:`_MOST_ROWS`, the float64 key takes the block.
    """
    codes, bits, lo, n_levels, padding = fit
    n, N = y_score.shape
    v = np.empty((n, N), dtype=np.float32)  # C-ordered: the bytes below are read as its rows
    with np.errstate(over="ignore"):  # float64 past float32's range: an infinity, declined
        np.add(y_score, y_score.dtype.type(0), out=v)  # -0.0 as 0.0; float64 rounded
    ends = np.array([v.min(), v.max()])
    if not np.isfinite(ends).all():
        return None
    first, last = (int(k) for k in sortable_int32(ends.copy()))
    if (last - first + 1) << bits > 2**32:
        return None
    u = (sortable_int32(v) if ends[0] < 0 else v.view(np.int32)).view(np.uint32)
    u -= np.uint32(first & 0xFFFFFFFF)  # modulo 2**32: the offsets 0..last - first
    u <<= np.uint32(bits)
    np.bitwise_or(u, codes, out=u, casting="unsafe")
    u.sort(axis=1)
    low = u.view(np.uint8).reshape(n, N, 4)[..., _NARROW.low_byte]
    level = np.bitwise_and(low[:, ::-1], np.uint8((1 << bits) - 1))
    table = level_values(values, lo, n_levels, codes, padding)
    if check is not None:
        check.by_ends(ends[:1], ends[1:])
    u >>= np.uint32(bits)  # the offsets alone: equal where the scores tie
    pairs = _tied_pairs(u)
    look_tied = _rows_of(pairs, N)
    if y_score.dtype == np.float64 and look_tied.size:
        # Rounded float64: rows whose neighbours share a float32, ranked
        # again exactly, and of those the rows that truly tie.
        if look_tied.size * _MOST_ROWS > n:
            return None
        _rank_exactly(y_score, codes, look_tied, level, u)
        look_tied = look_tied[(u[look_tied, 1:] == u[look_tied, :-1]).any(axis=1)]
        pairs = None
    return _chunk_of(level, u, table, look_tied, n_items, not padding, pairs)


def _offset_may_fit(probe, bits):
    """Whether :func:`_by_offset_key`'s 32-bit key may fit a block whose first
    rows are ``probe``: the span of their float32 values leaves room for
    ``bits`` bits of levels (the block's span is at least theirs). False
    spares the block's float32 copy and its ends: float64 scores in [0, 1)
    span 2**30 float32 values, room for 2 bits only (5 levels take 3). A
    score that is not finite leaves it to the block's key, which names it."""
    with np.errstate(over="ignore", invalid="ignore"):
        ends = np.array([probe.min(), probe.max()]).astype(np.float32) + np.float32(0)
    if not np.isfinite(ends).all():
        return True
    first, last = (int(k) for k in sortable_int32(ends))
    return (last - first + 1) << bits <= 2**32


def _few_round_tied(probe):
    """Whether at most one row in :data:`_MOST_ROWS` of the float64 rows
    ``probe`` holds two scores that round to one float32 (ties included):
    scores rounded to a few decimals tie in most rows, and would be ranked
    twice."""
    with np.errstate(over="ignore"):  # (past float32's range: the ends decline)
        rounded = np.sort(probe.astype(np.float32), axis=1)
    return rows_with_equal_neighbours(rounded).shape[0] * _MOST_ROWS <= probe.shape[0]


def _by_key(y_score, values, fit, check, key, n_items=None):
    """:func:`rank_by_levels` with keys of one width (:class:`_Key`), or
    :data:`_TOO_MANY` when too many rows look tied (float64 scores off a
    decimal grid; float32 ones in 32 bits)."""
    codes, bits, lo, n_levels, padding = fit
    n, N = y_score.shape
    # A copy as keys: -0.0 as 0.0 (the two tie), widened in the same pass if
    # need be; the level in the low bits. A float32 score widened to float64
    # has 29 bits of zeros there: its ties are exact. The low bits leave the
    # exponent as it is: a finite score's key is finite, and an infinity's or
    # a NaN's is an infinity or a NaN, at a sorted row's end.
    exact = y_score.dtype == np.float32 and key is _WIDE
    v = np.empty((n, N), dtype=key.ftype)  # C-ordered: the bytes below are read as its rows
    np.add(y_score, key.ftype(0), out=v)
    i = v.view(key.itype)
    low = i.view(np.uint8).reshape(n, N, key.width)[..., key.low_byte]  # a view: sorted with v
    if not exact:
        # Scores whose lowest bits are zeros (whole numbers, say) keep every
        # bit: their ties are exact too. (The first row first: most scores
        # have some of those bits set there already.)
        mask = np.uint8((1 << bits) - 1)
        exact = not np.bitwise_and(low[0], mask).any() and not np.bitwise_and(low, mask).any()
    i &= ~key.itype((1 << bits) - 1)
    np.bitwise_or(i, codes, out=i, casting="unsafe")
    if key is _NARROW:
        sort_float32_rows(v)  # (as int32 where the scores are >= 0: faster)
    else:
        v.sort(axis=1)
    # Each row's level codes, the best-scored first: the low byte, reversed.
    # The item values are made from them and a table of the levels' values.
    level = np.bitwise_and(low[:, ::-1], np.uint8((1 << bits) - 1))
    table = level_values(values, lo, n_levels, codes, padding)
    # A NaN key sorts last, -inf first and +inf last.
    if check is not None:
        check.by_ends(v[:, 0], v[:, -1])
    high = i
    high >>= bits  # in place: a new array of the block costs its pages' first touch
    pairs = _tied_pairs(high)
    look_tied = _rows_of(pairs, N)
    if look_tied.size and not exact and look_tied.size * _MOST_ROWS > n:
        if key is _NARROW:
            return _TOO_MANY
        # Ties in many rows: scores rounded to decimals, whose ties are
        # exact in the key; else the argsort's route. Only the rows that
        # look tied need be: a row whose keys all differ is in its scores'
        # order whatever its scores (read apart when they are a few).
        exact = _on_a_decimal_grid(y_score if 2 * look_tied.size > n else
                                   y_score[look_tied], bits)
        if not exact:
            return _TOO_MANY
    if look_tied.size and not exact:
        # Rows where neighbours look tied: ranked again exactly, and of those
        # the rows that truly tie.
        _rank_exactly(y_score, codes, look_tied, level, high)
        look_tied = look_tied[(high[look_tied, 1:] == high[look_tied, :-1]).any(axis=1)]
        pairs = None
    return _chunk_of(level, high, table, look_tied, n_items, not padding, pairs)


def _chunk_of(level, high, table, look_tied, n_items=None, whole_few_ties=True, pairs=None):
    """The chunk of rows ranked by a key: ``level`` their level codes in rank
    order (their values made with ``table``), ``high`` their keys ascending,
    equal exactly where the scores tie, ``look_tied`` the rows that tie;
    ``n_items`` the real items of padded rows (None: every item is).
    ``whole_few_ties``: whether the kernels that read tie groups only may
    read the whole block through its few ties (not where padding has a code
    of its own: bpref reads them only where every item is judged).
    ``pairs``: the ties' :func:`_tied_pairs`, when found already (``high``
    is read only without them, as keys that ascend with the scores)."""
    n, N = level.shape
    if n_items is None:
        n_items = np.full(n, N, dtype=np.int64)
    equal_ties = False
    if look_tied.size and pairs is None:
        pairs = _tied_pairs(high, look_tied)
    if look_tied.size and 2 * look_tied.size < n:
        mixed = _mixed_ties(pairs, level)
        if mixed.size < look_tied.size:
            equal_ties, look_tied = True, mixed
            kept = np.zeros(n, dtype=bool)
            kept[mixed] = True
            pairs = pairs[kept[pairs // N]]
    if not look_tied.size:
        rc = _untied(level, table, n_items)
        rc.equal_ties = equal_ties
        return rc
    if 2 * look_tied.size < n:
        # A few rows tie (float32 scores: about 3 % of rows of 1,000): the
        # others are a chunk without ties, each ranked values derived on
        # first read, and the tied rows one with their tie groups.
        untied = np.ones(n, dtype=bool)
        untied[look_tied] = False
        plain = flatnonzero(untied)
        # The tied rows' pairs, in their own layout.
        own = np.searchsorted(look_tied, pairs // N) * N + pairs % N
        rc = RankedChunk.of_whole_rows(
            N, n, list(table), look_tied,
            lambda: [(plain, _untied(level[plain], table, n_items[plain])),
                     (look_tied, _tied(level[look_tied], own, table,
                                       n_items=n_items[look_tied]))],
            # The kernels that read tie groups only take the whole block at
            # once: the order given, corrected at the few groups.
            FewTies.of_pairs(pairs, LevelValues(level, table), n, N, look_tied.shape[0])
            if whole_few_ties else None,
            n_items)
        rc.items = LevelValues(level, table)
        rc.equal_ties = equal_ties
        return rc
    return _tied(level, pairs, table, look_tied, n_items)


def _tied_pairs(high, rows=None, best_first=False):
    """The ties of rows of keys ``high`` (n, N) sorted ascending, equal exactly
    where the scores tie, in rank order (the best first): the flat positions
    (increasing, in the (n, N) layout) of the first of each two neighbours
    that tie; looked for in the rows ``rows`` only (sorted), when given.
    ``best_first``: the keys ascend as the scores descend (rank order).
    Each key is compared with the next over the block as one flat array (a
    third of the time of the reversed rows' keys compared), and the pairs
    found reversed within each row (a fifth of the time of their sort)."""
    N = high.shape[1]
    flat = (high if rows is None else high[rows]).reshape(-1)
    equal = np.empty(flat.shape[0], dtype=bool)
    np.equal(flat[1:], flat[:-1], out=equal[:-1])
    equal[N - 1::N] = False  # the last of a row against the next row's first
    if not equal.any():
        return np.zeros(0, dtype=np.intp)
    at = flatnonzero(equal)  # (row, c) ties with (row, c + 1)
    if best_first and rows is None:
        return at
    row, c = np.divmod(at, N)
    if rows is not None:
        row = rows[row]
    if best_first:
        return row * N + c
    # Rank order reverses a row: (row, c) and (row, c + 1) are its positions
    # N - 1 - c and N - 2 - c. Each row's run of pairs, found in increasing
    # c, is put in reverse.
    at = row * N + (N - 2 - c)
    m = at.shape[0]
    first = np.empty(m, dtype=bool)
    first[:1] = True
    np.not_equal(row[1:], row[:-1], out=first[1:])
    starts = flatnonzero(first)
    ends = np.append(starts[1:], m)
    out = np.empty_like(at)
    out[np.repeat(starts + ends - 1, ends - starts) - np.arange(m)] = at
    return out


def _rows_of(pairs, N):
    """The rows (sorted, distinct) of the sorted flat positions ``pairs`` in
    rows of ``N``."""
    row = pairs // N
    first = np.empty(row.shape[0], dtype=bool)
    first[:1] = True
    np.not_equal(row[1:], row[:-1], out=first[1:])
    return row[first]


def _mixed_ties(pairs, level):
    """The rows where a tie joins items of different level codes (``level``,
    rank order; ``pairs``, the ties' :func:`_tied_pairs`).

    Items of one code hold the same value of every item value read (the
    codes are made from those values), so a tie among them gives one
    sequence of values in every order: the metric's expectation over the
    orderings is its value in the order given, and the row is read as
    untied. A tie group holds two codes exactly where two of its neighbours
    differ. (Read where a few rows tie, float32 scores on sparse relevance:
    most of their ties join two items of relevance 0.)"""
    return _rows_of(pairs[joins_two_codes(pairs, level)], level.shape[1])


def _untied(level, table, n_items):
    """The chunk of rows without ties whose level codes in rank order are
    ``level``, their item values made with ``table`` (:class:`LevelValues`),
    ``n_items`` real items in each."""
    rc = RankedChunk(level.shape[1], None, None, LevelValues(level, table), n_items)
    rc.items = rc.sums  # (every position its own group)
    return rc


def _tied(level, pairs, table, rows=None, n_items=None):
    """The chunk of rows ranked with their tie groups: ``level`` the level
    codes in rank order (their values made with ``table``), ``pairs`` their
    ties (:func:`_tied_pairs`). When the groups hold a few items of the rows
    (float32 scores: a pair in a row of 1,000), the chunk also describes
    them as :class:`~.few_ties.FewTies` (the order given and its groups of
    two or more items). ``rows``: the rows that tie, when not all do
    (sorted); ``n_items``, the real items of each row (None: all ``N``;
    padding is ranked last and ties with nothing)."""
    n, N = level.shape
    ranked = LevelValues(level, table)
    if n_items is None:
        n_items = np.full(n, N, dtype=np.int64)
    # Most rows tie (or all): the groups of every row, found on first read
    # (a chunk read through its few ties never reads them), and the
    # per-position statistics made from them on first read.
    groups = LazyGroups(None, ranked, lambda: _opens(pairs, n, N))
    rc = RankedChunk(N, None, None, _GroupSums(groups, list(ranked)), n_items, groups=groups)
    rc.real_ties = True
    rc.items = ranked
    rc.few_ties = FewTies.of_pairs(pairs, LevelValues(level, table), n, N,
                                   n if rows is None else rows.shape[0])
    return rc


def _opens(pairs, n, N):
    """Whether each position of the (n, N) rows opens a tie group (the second
    of each pair of ``pairs`` does not)."""
    new = np.ones(n * N, dtype=bool)
    new[pairs + 1] = False
    return new.reshape(n, N)


#: The most decimals :func:`_on_a_decimal_grid` tries.
_MOST_DECIMALS = 8


def _decimals(probe):
    """The fewest decimals ``d`` (at most :data:`_MOST_DECIMALS`) to which the
    float64 scores ``probe`` (a block's first rows: one row may hold scores
    of fewer decimals than the others, zeros say) are rounded (each equals
    ``np.round(score, d)``), or None. Their first :data:`_SAMPLE_SCORES`
    are tried first: scores on no grid (most float scores) are told there,
    and the whole probe is tried from the sample's ``d`` on."""
    flat = probe.reshape(-1)
    least = 0
    with np.errstate(over="ignore", invalid="ignore"):  # (huge scores: inf, not equal)
        for part in (flat[:_SAMPLE_SCORES], flat):
            least = next((d for d in range(least, _MOST_DECIMALS + 1)
                          if np.array_equal(np.round(part, d), part)), None)
            if least is None:
                return None
    return least


#: The scores :func:`_decimals` tries before the whole probe.
_SAMPLE_SCORES = 256


def _decimal_ends(y_score, most, limit=2.0**52):
    """``(scale, lo, hi)``: for float64 scores ``y_score`` that may each be
    the float64 nearest ``k / 10**d`` for a whole ``k`` (``d`` read off
    the first rows, :func:`_decimals`; ``scale`` is ``10**d``), the ends of
    their ``k``, when those span fewer than ``most`` values within
    ``(-limit, limit)``; else None. The ends are the scores' own times
    ``scale``, rounded (a product by ``scale`` and ``rint`` keep the
    scores' order): no ``k`` is made. Whether every score is such a
    multiple is :func:`_round_trips`' to tell. A score not finite gives
    None (the other routes name it)."""
    probe = y_score[:_PROBE_ROWS]
    d = _decimals(probe)
    if d is None:
        return None
    scale = 10.0**d  # (np.round's: exact for d <= 22)
    with np.errstate(over="ignore", invalid="ignore"):  # (past the range: inf, declined)
        ends = np.rint(np.array([probe.min(), probe.max()]) * scale)
        if not (np.isfinite(ends).all() and ends[1] - ends[0] < most):
            return None  # (the probe's span is the block's at least)
        lo, hi = np.rint(np.array([y_score.min(), y_score.max()]) * scale).tolist()
    if not (np.isfinite(lo) and np.isfinite(hi) and hi - lo < most and max(-lo, hi) < limit):
        return None
    return scale, lo, hi


#: Scores :func:`_round_trips` reads at a time (1 MiB of float64: its
#: arrays of a piece stay in cache; pieces of 256 KiB and of 8 MiB were
#: 2-3 % slower, their loop's calls or their reads from memory).
_TRIP_PIECE = 1 << 17


def _round_trips(y_score, scale, k, hi=None):
    """Whether each float64 score equals ``rint(score * scale) / scale``
    (``rint(score)`` for ``scale`` 1), writing ``rint(score * scale)``
    (``hi`` less it, when given) to the integers ``k`` (C-ordered, of the
    scores' shape) on the way. A piece of the scores at a time, each step in
    arrays of a piece: a float64 array of the block's per step costs about
    twice as much (new pages, read back from memory). Stops at the first
    piece that does not round-trip."""
    flat_k = k.reshape(-1)
    rows = not y_score.flags.c_contiguous  # (a view of other strides: rows at a time)
    flat = y_score if rows else y_score.reshape(-1)
    step = max(1, _TRIP_PIECE // y_score.shape[1]) if rows else _TRIP_PIECE
    whole = np.empty((min(step, flat.shape[0]), *flat.shape[1:]))
    quotient = np.empty_like(whole)
    equal = np.empty(whole.shape, dtype=bool)
    out = k if rows else flat_k
    for a in range(0, flat.shape[0], step):
        b = min(flat.shape[0], a + step)
        part, w = flat[a:b], whole[:b - a]
        np.multiply(part, scale, out=w)
        np.rint(w, out=w)
        q = w if scale == 1.0 else np.divide(w, scale, out=quotient[:b - a])
        if not np.equal(q, part, out=equal[:b - a]).all():
            return False
        if hi is None:
            out[a:b] = w  # (whole numbers within the dtype's range: exact)
        else:
            np.subtract(hi, w, out=w)
            out[a:b] = w
    return True


def decimal_integers(y_score, most):
    """Float64 scores ``y_score`` as the whole numbers ``k`` (int32) of which
    each is the float64 nearest ``k / 10**d`` (whole-number scores, ratings
    say, or scores of a decimal or two: :func:`_decimal_ends` and
    :func:`_round_trips`), when those span at most ``most`` values; else
    None. ``k`` ties and orders as the scores do, so the block is ranked as
    integer scores in a small span are: by counting each score
    (:func:`~.select.score_counts`), not by sorting."""
    if y_score.dtype != np.float64 or not y_score.size:
        return None
    found = _decimal_ends(y_score, most, limit=2.0**31)
    if found is None:
        return None
    # (int32: half the bytes of int64 for the counts' passes.)
    k = np.empty(y_score.shape, dtype=np.int32)
    return k if _round_trips(y_score, found[0], k) else None


#: Keys of at most this many values (the scores' span in steps of
#: ``10**-d`` times the level codes) are sorted in 16 bits, the rest in 32.
_SHORT_KEYS = 2**16


def _by_decimal_key(y_score, values, fit, check):
    """:func:`rank_by_levels` of unpadded float64 scores rounded to ``d``
    decimals (as ``np.round`` leaves them, or as a run file prints them and
    its reader parses them): each score is ``k / 10**d`` for a whole ``k``,
    the nearest float64 to it, so the scores tie exactly where their ``k``
    do, and in the same order. The block's largest ``k`` less each, the
    level below, is a key of 16 or 32 bits (where the span leaves room),
    whose ties are the scores' own, ascending in rank order: where most rows
    tie (scores of three decimals, rows of 100), one sort of the short keys
    (a third of a sort of the float64 ones, a half for 32 bits) and nothing
    ranked again. None when the scores are not so rounded
    (:func:`_decimal_ends`, :func:`_round_trips`), or when the span leaves
    no room."""
    codes, bits, lo, n_levels, padding = fit
    n, N = y_score.shape
    found = _decimal_ends(y_score, 1 << (32 - bits))  # (the key's 32 bits)
    if found is None:
        return None
    scale, k_lo, k_hi = found
    width = (int(k_hi - k_lo) + 1) << bits
    itype = np.uint16 if width <= _SHORT_KEYS else np.uint32
    # The largest k less each: sorted ascending, the rows come best first,
    # in rank order (the levels read forwards, no row reversed).
    u = np.empty(y_score.shape, dtype=itype)
    if not _round_trips(y_score, scale, u, k_hi):
        return None
    u <<= itype(bits)
    np.bitwise_or(u, codes, out=u, casting="unsafe")
    u.sort(axis=1)
    low = u.view(np.uint8).reshape(n, N, u.itemsize)[..., 0 if np.little_endian else -1]
    level = np.bitwise_and(low, np.uint8((1 << bits) - 1))
    table = level_values(values, lo, n_levels, codes, padding)
    if check is not None:
        check.finite()  # (every k is: read above)
    u >>= itype(bits)  # the k alone: equal where the scores tie
    pairs = _tied_pairs(u, best_first=True)
    return _chunk_of(level, u, table, _rows_of(pairs, N), None, not padding, pairs)


def _on_a_decimal_grid(y_score, bits):
    """Whether the float64 scores are rounded to ``d`` decimals (each equals
    ``np.round(score, d)``, ``d`` at most :data:`_MOST_DECIMALS`, read off
    the first rows) on a grid so coarse that two distinct scores never share
    their bits above the lowest ``bits``: then neighbours that look tied in
    :func:`rank_by_levels`' key tie exactly, and the order of the others is
    theirs. Two distinct scores differ by ``10**-d`` less a few ulps of the
    largest magnitude ``M``; the lowest ``bits`` bits span ``2**bits`` ulps."""
    d = _decimals(y_score[:_PROBE_ROWS])
    if d is None:
        return False
    M = max(float(y_score.max()), -float(y_score.min()))  # no |score| array made; NaN stays
    if not np.isfinite(M) or 10.0**-d <= 2.0 ** (bits + 4) * np.spacing(M):
        return False
    return bool(np.array_equal(np.round(y_score, d), y_score))


def _rank_exactly(y_score, codes, rows, level, high):
    """Rank the rows ``rows`` again by ``np.argsort``: their level codes
    (``codes``, the block's) in rank order, and in ``high`` the bits of their
    sorted scores (``-0.0`` as ``0.0``), equal exactly where the scores tie
    (ascending, as the sorted values; only equality is read)."""
    sub = y_score[rows] + y_score.dtype.type(0)  # -0.0 ties with 0.0
    order = np.argsort(sub, axis=1)
    level[rows] = np.take_along_axis(codes[rows], order[:, ::-1], axis=1)
    srt = np.take_along_axis(sub, order, axis=1)
    if srt.dtype.itemsize == high.dtype.itemsize:
        high[rows] = srt.view(high.dtype)
    else:  # float64 scores in 32-bit keys: each score's rank among the row's distinct ones
        ranks = np.zeros(srt.shape, dtype=high.dtype)
        np.cumsum(srt[:, 1:] != srt[:, :-1], axis=1, out=ranks[:, 1:])
        high[rows] = ranks
