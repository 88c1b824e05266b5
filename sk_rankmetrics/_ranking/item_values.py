"""What each item is worth to a request: gains, relevance masks, judgements."""

from __future__ import annotations

import weakref
from collections.abc import Mapping

import numpy as np

from .._utils.fast import row_counts
from .._utils.nonzero import flatnonzero


class _GivenValues:
    """Item values given over whole rows, with :class:`BlockValues`' interface."""

    def __init__(self, values):
        self.values = {k: np.ascontiguousarray(v) for k, v in values.items()}

    def at(self, flat):
        return {k: np.take(v.reshape(-1), flat) for k, v in self.values.items()}

    def of_rows(self, rows):
        return {k: v[rows] for k, v in self.values.items()}


# -- item values ----------------------------------------------------------------


class ItemMasks:
    """Which entries of a block are real items, judged, and named by the truth.

    Each is a bool array of the block's shape, or None (every entry is).
    ``judged`` implies ``pool`` implies ``real``. ``zero_padding``: every
    entry that is not real holds the relevance 0 (a padded block's).
    """

    def __init__(self, real=None, judged=None, pool=None, zero_padding=False):
        self.real = real
        self.judged = judged if judged is not None else real
        self.pool = pool if pool is not None else self.judged
        self.zero_padding = zero_padding

    def map(self, fn):
        """The masks with ``fn`` applied to each array (shared arrays stay shared)."""
        done = {}

        def f(a):
            if a is None:
                return None
            if id(a) not in done:
                done[id(a)] = fn(a)
            return done[id(a)]

        return ItemMasks(f(self.real), f(self.judged), f(self.pool), self.zero_padding)


def _indicator(mask, shape):
    return np.ones(shape) if mask is None else mask.astype(np.float64)


def _unjudged_worthless(yt, requests, masks):
    """Whether unjudged entries must be masked out of the gains and relevance of
    ``yt``: only when one of them could be worth something (see worth_counts)."""
    if masks.judged is None:
        return None
    unjudged = ~masks.judged
    if worth_counts(requests) or (
            # (Padding alone is unjudged, and holds the relevance 0: no entry read.)
            not (masks.zero_padding and masks.judged is masks.real)
            and (yt[unjudged] != 0).any()):
        return unjudged
    return None


def check_item_values(yt, requests, row0=0, masks=None):
    """Raise on relevance the requests' gains or grades cannot take.

    Returns the mask of worthless entries (see :func:`_unjudged_worthless`);
    :func:`_checked_extremes` also gives the block's extreme levels.
    """
    return _checked_extremes(yt, requests, row0, masks)[0]


def _checked_extremes(yt, requests, row0=0, masks=None, extremes=None):
    """:func:`check_item_values`, returning ``(worthless, extremes)``.

    Looks at every judged item of the block (ranked or not): a level a gain
    mapping does not name, a negative level under a normalised metric, a gain
    that overflows float64, a grade outside ERR's scale. Monotone elementwise
    gains (linear, exponential) are checked at the extreme levels only.
    ``extremes`` (an :class:`Extremes`) holds the min and max of the
    entries that are not worthless, once computed; a caller that already
    has those of ``yt`` passes them (used when nothing is worthless).
    """
    masks = masks or ItemMasks()
    worthless = _unjudged_worthless(yt, requests, masks)
    real = yt if worthless is None else yt[~worthless]
    if extremes is None or extremes.a is not real:
        extremes = Extremes(real)
    seen = set()
    for req in requests:
        # ERR's levels are grades: their own check below says what is accepted.
        grades = "grades" in req.spec.needs
        if (req.gain_key is not None and not grades
                and (req.gain_key, req.spec.normalized) not in seen):
            seen.add((req.gain_key, req.spec.normalized))
            req.gain.check_levels(extremes, normalized=req.spec.normalized, metric=req.label)
            if req.gain.formula:  # finite at the extremes: finite between them
                probe = np.array([extremes.min(), extremes.max()]) if real.size else real
            else:
                probe = real
            g = np.asarray(req.gain(probe), dtype=np.float64)
            if not np.all(np.isfinite(g)):
                raise ValueError(
                    f"the {req.gain.name!r} gain overflows for some relevance in "
                    f"y_true (rows from {row0}); use a smaller gain."
                )
            if req.spec.normalized and g.size and g.min() < 0:
                raise ValueError(
                    f"the {req.gain.name!r} gain gives negative gains, which "
                    f"{req.label} cannot normalise; map every level to a gain >= 0."
                )
        if grades:
            judged = real if masks.judged is None else yt[masks.judged]
            _check_grades(extremes if judged is real else Extremes(judged), req)
    if masks.judged is not None and masks.pool is not None and masks.pool is not masks.judged:
        _check_pooled(yt, requests, masks)
    return worthless, extremes


def _check_pooled(yt, requests, masks):
    """Raise where a request reads the pooled (negative) levels against the
    rule: a gain that names one must give it a finite gain (>= 0 for a
    normalised metric), and a threshold at or below one would call relevant a
    document the truth marks as not judged relevant."""
    for req in requests:
        if req.gain_key is not None:
            named = _named_pooled(yt, req, masks)
            if named is not None:
                levels = yt[named]
                g = np.asarray(req.gain(levels), dtype=np.float64)
                bad = ~np.isfinite(g) | ((g < 0) if req.spec.normalized else False)
                if bad.any():
                    i = int(np.argmax(bad))
                    what = ("a normalised metric cannot take" if req.spec.normalized
                            else "is not finite")
                    way = ("a callable gain is called on every level, negative ones "
                           "included: return a gain >= 0 for them, or give a mapping that "
                           "leaves them out" if req.gain.name == "callable" else
                           "map every level to a gain >= 0, or leave the negative levels "
                           "out of the mapping")
                    raise ValueError(
                        f"{req.label}: the {req.gain.name!r} gain gives level "
                        f"{levels[i]:g} the gain {g[i]:g}, which {what}. Negative levels "
                        "of qrels and id truths are in the pool but not judged, worth 0 "
                        f"unless the gain names them; {way}.")
        t = req.threshold if req.rel_key is not None else None
        if t is not None and t < 0:
            p = pooled(masks)
            counted = None if p is None else yt[p][(yt[p] >= t) & (yt[p] < 0)]
            if counted is not None and counted.size:
                lvl = float(counted.max())
                raise ValueError(
                    f"{req.label}: threshold={t:g} would count level {lvl:g} as relevant, "
                    "but a negative level of qrels or of an id truth marks a document in "
                    "the pool that is not judged relevant (trec_eval's reading): it is "
                    "never relevant. Accepted: threshold >= 0 (0 counts every judged "
                    "level as relevant), or levels shifted up before scoring.")


class NonzeroEntries:
    """The nonzero entries of a block of relevance ``yt``: their flat indices
    ``flat`` (row-major) and their :attr:`values`, gathered once.

    A gather from a float64 block that has left the CPU cache costs about
    what a pass over the whole block does (5 % of 100,000 x 100 entries:
    5 ms): the relevant items' values, the rows' counts of relevant items
    and the ideal's gains share one.
    """

    def __init__(self, yt, flat, values=None):
        self.yt, self.flat, self._values = yt, flat, values

    @property
    def values(self):
        """The entries' values, in the order of :attr:`flat`."""
        if self._values is None:
            self._values = np.take(self.yt.reshape(-1), self.flat)
        return self._values


class Extremes:
    """An array's size, min and max, each computed once (the checks share them)."""

    def __init__(self, a, lo=None, hi=None):
        """``lo``, ``hi``: the min and max when already known (of a copy)."""
        self.a, self.size, self._min, self._max = a, a.size, lo, hi
        self._integral = None
        #: The :class:`NonzeroEntries` of ``a``, when the min and max were
        #: made from those alone (:func:`few_nonzero_extremes`).
        self.nonzero = None

    def min(self):
        if self._min is None:
            self._min = self.a.min()
        return self._min

    def max(self):
        if self._max is None:
            self._max = self.a.max()
        return self._max

    @property
    def integral(self):
        """Whether every entry is a whole number (computed on first use)."""
        if self._integral is None:
            a = self.a
            self._integral = a.dtype.kind in "iub" or bool(np.array_equal(a, np.floor(a)))
        return self._integral

    @integral.setter
    def integral(self, value):
        # A caller that found out (a sample with a fraction, a failed
        # conversion) spares the pass over the whole array.
        self._integral = bool(value)

    @property
    def integral_known(self):
        """:attr:`integral` if already known, else None (no pass made)."""
        return self._integral


#: Entries of a block looked at, spread over it, to guess whether its nonzero
#: entries are few (:func:`few_nonzero_extremes`).
_NONZERO_SAMPLE = 1 << 12


def looks_dense(yt, density, above=None):
    """Whether a sample of the entries of ``yt`` spread over it holds over
    twice one nonzero entry in ``density`` (``above``: one entry greater than
    it); then they are not few. A block that is not contiguous is sampled
    every few rows (its reshape would copy all of it)."""
    if yt.flags.c_contiguous or yt.ndim != 2:
        flat = yt.reshape(-1)
        sample = flat[::max(1, flat.shape[0] // _NONZERO_SAMPLE)]
    else:
        sample = yt[::max(1, yt.shape[0] // max(1, _NONZERO_SAMPLE // max(yt.shape[1], 1)))]
    hits = np.count_nonzero(sample if above is None else sample > above)
    return hits * density > 2 * sample.size


def few_nonzero_extremes(yt, density):
    """The :class:`Extremes` of a C-contiguous block of numbers ``yt`` made
    from its nonzero entries alone, with their flat indices
    (:attr:`Extremes.nonzero`), when at most one entry in ``density``
    is nonzero; else None.

    The min and max of the block are those of its nonzero entries, with 0
    when some entry is 0 (a NaN is nonzero: it reaches both, and the
    finiteness check that reads them). One pass makes the mask of the
    nonzero entries, in place of one pass each for the min and the max (a
    float64 block of 100,000 x 100 is 80 MB), and its indices serve every
    later reader of the nonzero entries: the relevant items' ranking, the
    ideal, the rows' counts of relevant items. A sample of the entries
    spread over the block comes first: where it holds many nonzero entries
    (dense relevance), no mask is made.
    """
    flat = yt.reshape(-1)
    size = flat.shape[0]
    if yt.dtype.kind not in "iuf" or not size or looks_dense(yt, density):
        return None
    # (One-byte levels are their own mask: flatnonzero reads them as bytes.)
    nonzero = yt if yt.dtype.itemsize == 1 else yt != 0
    m = int(np.count_nonzero(nonzero))
    if m * density > size:
        return None
    at = flatnonzero(nonzero)
    v = np.take(flat, at)
    lo, hi = (v.min(), v.max()) if m else (flat[0], flat[0])
    if m < size:  # a 0 of their dtype (NumPy 1.x made float32 and 0 a float64)
        zero = v.dtype.type(0)
        lo, hi = np.minimum(lo, zero), np.maximum(hi, zero)
    out = Extremes(yt, lo, hi)
    out.nonzero = NonzeroEntries(yt, at, v)
    return out


def _in_one_byte(yt, ex):
    """``(small, extremes)``: whole levels ``yt`` within -128..127 (``ex``
    their :class:`Extremes`, min and max known) as int8, a view of one-byte
    types, with the min and max carried over."""
    small = yt.view(np.int8) if yt.dtype.itemsize == 1 else yt.astype(np.int8)
    out = Extremes(small, np.int8(ex.min()), np.int8(ex.max()))
    out.integral = True
    return small, out


def _check_grades(real, req):
    """ERR reads integer grades 0..max_grade (``real``: an :class:`Extremes`)."""
    top = req.options["max_grade"]
    if real.size and (real.min() < 0 or real.max() > top or not real.integral):
        a = real.a
        bad = a[(a < 0) | (a > top) | (a != np.floor(a))][0]
        raise ValueError(
            f"{req.label}: relevance {bad:g} is not a grade of the scale 0..{top}; ERR "
            "reads integer grades from 0 to max_grade (raise max_grade, or map the "
            "relevance to grades)."
        )


def derive_values(yt, requests, masks=None, keys=None):
    """The item values ``keys`` (None: every key the requests read) of the
    entries ``yt``, float64 arrays of its shape, unchecked.

    Items that are not judged (padding, unjudged items of ranked lists, items
    a ``judged`` mask leaves out) are worth nothing and are never relevant,
    whatever the gain of level 0 or the threshold; the gain is not even
    evaluated on them (a mapping need not name their level).
    """
    masks = masks or ItemMasks()
    judged = masks.judged
    values = {}
    for req in requests:
        for key in req.keys:
            if key in values or (keys is not None and key not in keys):
                continue
            if key == req.gain_key:
                if judged is None:
                    g = np.array(req.gain(yt), dtype=np.float64)
                else:
                    g = np.zeros(yt.shape)
                    g[judged] = req.gain(yt[judged])
                    named = _named_pooled(yt, req, masks)
                    if named is not None:
                        g[named] = req.gain(yt[named])
                values[key] = g
            elif key == req.rel_key:
                values[key] = _relevant(yt, req.threshold, judged)
            elif key == "judged":
                values[key] = _indicator(masks.judged, yt.shape)
            elif key == "pool":
                values[key] = _indicator(masks.pool, yt.shape)
            elif key.startswith("pos:"):  # whether the gain is positive
                g = values.get(key[4:])
                if g is None:
                    g = derive_values(yt, [req], masks, {key[4:]})[key[4:]]
                values[key] = (g > 0).astype(np.float64)
            elif key.startswith("grade:"):
                out = yt == int(key[6:])
                if judged is not None:
                    out &= judged
                values[key] = out.astype(np.float64)
    return values


#: Item values that are 0 or 1 (indicators: relevant, judged, pooled, a
#: positive gain, one grade), whose running sums are exact small integers.
_INDICATOR_PREFIXES = ("rel:", "pos:", "grade:")


def is_indicator(key):
    """Whether the item value ``key`` is an indicator (0 or 1 at every item)."""
    return key in ("judged", "pool") or key.startswith(_INDICATOR_PREFIXES)


def as_flags(values, key):
    """``values[key]``, an indicator, as bools where ``values`` give them
    without their float64 copy (:meth:`LevelValues.indicator`, the copy not
    made yet: a byte an item where the copy takes eight), else the values."""
    if isinstance(values, LevelValues) and not values.is_made(key):
        flags = values.indicator(key)
        if flags is not None:
            return flags
    return values[key]


def pooled(masks):
    """The entries the truth names without judging them (the negative levels of
    qrels and of id truths, as trec_eval reads them), or None when there are none."""
    if masks.judged is None or masks.pool is None or masks.pool is masks.judged:
        return None
    out = masks.pool & ~masks.judged
    return out if out.any() else None


def _named_pooled(yt, req, masks):
    """The pooled entries whose (negative) level the request's gain names: a
    mapping's key, or any level for a callable; those take the user's gain."""
    covers = getattr(req.gain, "covers", None)
    if covers is None:
        return None
    p = pooled(masks)
    if p is None:
        return None
    p[p] = covers(yt[p])
    return p if p.any() else None


def _relevant_mask(yt, threshold, judged):
    rel = yt > 0 if threshold is None else yt >= threshold
    if judged is not None:
        rel &= judged
    return rel


def _relevant(yt, threshold, judged):
    return _relevant_mask(yt, threshold, judged).astype(np.float64)


def item_values(yt, requests, row0=0, masks=None):
    """Every item value the requests read, float64, one array per key: the
    values of :func:`derive_values`, after the checks of :func:`check_item_values`."""
    masks = masks or ItemMasks()
    check_item_values(yt, requests, row0, masks)
    return derive_values(yt, requests, masks)


class BlockValues:
    """The item values of a block of rows, derived where they are read.

    Only the relevance ``yt`` and the item masks are kept at the block's
    full width; the values (gains, relevance indicators, grades) are derived
    for the ranked positions (:meth:`at`), for whole rows when a tie group
    crosses the cut (:meth:`of_rows`), and summed over rows on demand
    (:attr:`totals`). The checks run once, over the whole block.
    """

    def __init__(self, yt, requests, row0=0, masks=None, extremes=None):
        self.yt = np.ascontiguousarray(yt)
        self.masks = (masks or ItemMasks()).map(np.ascontiguousarray)
        self.requests = requests
        self.worthless, self.extremes = _checked_extremes(self.yt, requests, row0, self.masks,
                                                          extremes)
        self.totals = _Totals(self)
        self._one_byte = None
        #: The :class:`NonzeroEntries` of the relevance, when a ranking found
        #: them (:func:`~._ranking.relevant.rank_relevant`), for the ideal's
        #: counts to read again (None: not found), or when the block's
        #: extremes were made from them (:func:`few_nonzero_extremes`).
        self.nonzero = None if extremes is None else extremes.nonzero
        #: ``(lo, table)``: each row's count of each (score, level) ``lo``,
        #: ``lo + 1``, ... (shape (n, scores, levels)), when a ranking counted
        #: them (:func:`~._ranking.chunk._counted_with_levels`), for the
        #: ideal's counts to read instead of a pass of their own (None: not
        #: counted).
        self.level_counts = None

    def one_byte(self, if_made=False):
        """``(levels, extremes)``: the relevance as int8, with its
        :class:`Extremes`, when every entry is a whole number within
        -128..127 (known without a pass of its own: an integer type, or floats
        already found whole), else ``yt`` and its extremes as they are.

        The copy is made once per block, on first use: each later pass over
        the levels (the ideal's counts, the level codes of a sort that
        carries them) reads an eighth of the memory of int64 or float64.
        ``if_made``: the copy only if already made (a reader of a few
        entries, or of one pass, would pay the copy for nothing).
        """
        if self._one_byte is None and if_made:
            return self.yt, self.extremes
        if self._one_byte is None:
            yt, ex = self.yt, self.extremes
            self._one_byte = (yt, ex)
            if (self.worthless is None and ex.a is yt and yt.size
                    and (yt.dtype.kind in "iu" or (yt.dtype.kind == "f" and ex.integral_known))
                    and -128 <= ex.min() and ex.max() <= 127):
                self._one_byte = _in_one_byte(yt, ex)
        return self._one_byte

    def at(self, flat):
        """Values of the entries at the flat indices ``flat`` (shaped like it),
        each derived on its first read (:class:`DerivedValues`)."""
        yt = np.take(self.yt.reshape(-1), flat)
        masks = self.masks.map(lambda a: np.take(a.reshape(-1), flat))
        return DerivedValues(yt, self.requests, masks)

    def at_nonzero(self, order=None):
        """:meth:`at` the nonzero entries (:attr:`nonzero`) in the order ``order``
        (None: row-major), their relevance read off the values gathered already."""
        nz = self.nonzero
        flat = nz.flat if order is None else np.take(nz.flat, order)
        masks = self.masks.map(lambda a: np.take(a.reshape(-1), flat))
        return DerivedValues(nz.values if order is None else np.take(nz.values, order),
                             self.requests, masks)

    def of_rows(self, rows, keys=None):
        """Values over the whole rows ``rows``."""
        masks = self.masks.map(lambda a: a[rows])
        return derive_values(self.yt[rows], self.requests, masks, keys)

    def relevant(self, rows, key):
        """Whether each item of the whole rows ``rows`` is relevant under the
        relevance key ``key`` (bool, not float64: cheaper to count)."""
        req = next(r for r in self.requests if r.rel_key == key)
        judged = None if self.masks.judged is None else self.masks.judged[rows]
        return _relevant_mask(self.yt[rows], req.threshold, judged)

    def full(self, key):
        """One value over the whole block."""
        return self.of_rows(slice(None), {key})[key]


#: The most levels :func:`level_codes` numbers (a byte).
MAX_LEVEL_BITS = 8


def level_codes(values, padded=False):
    """``(codes, bits, lo, n_levels)`` of a block's relevance (``values``, a
    :class:`BlockValues`): each item's level less the smallest, ``lo``, as
    uint8 codes below ``n_levels`` in ``bits`` bits; or None when the levels
    are not integers or span more than 256 values, or when masks or
    worthless entries make an item's values depend on more than its level.
    Every item value of an item is then a function of its code: derived once
    per level (``derive_values`` of the ``n_levels`` levels), summed over
    items by counting the codes. ``padded``: padding (``masks.real``, the
    only mask, over entries of relevance 0: ``masks.zero_padding``) is
    allowed, coded as its relevance, 0, worthless or not; the caller codes
    it apart where level 0 is worth more (:func:`~.padding.padding_is_level_zero`)."""
    fit = level_span(values, padded)
    if fit is None:
        return None
    lo, n_levels, bits = fit
    yt = values.yt
    if yt.dtype.kind == "b":
        return yt.view(np.uint8), 1, 0, 2
    small = values.one_byte()[0]
    if small.dtype.itemsize == 1 and small.dtype.kind in "iu":
        # The levels' own bytes; less the smallest level modulo 256 (the
        # codes are 0..span, below 256, whatever the bytes' sign).
        codes = small.view(np.uint8)
        return (codes if lo == 0 else codes - np.uint8(int(lo) % 256)), bits, lo, n_levels
    if lo == 0:
        return yt.astype(np.uint8), bits, 0, n_levels
    return (yt - lo).astype(np.uint8), bits, lo, n_levels


#: Entries of a block of float relevance read for a fraction before the
#: whole block is checked for whole numbers (:func:`level_span`).
_INTEGRAL_SAMPLE = 1 << 14


def level_span(values, padded=False):
    """``(lo, n_levels, bits)`` of :func:`level_codes` (None where it gives
    None), read off the block's extremes: no codes made."""
    masks = values.masks
    if padded and masks.real is not None:
        # Padding the only mask (then the only worthless entries too).
        if not (masks.judged is masks.real and masks.pool is masks.real
                and masks.zero_padding):
            return None
    elif (masks.real is not None or masks.judged is not None
          or values.worthless is not None):
        return None
    yt, ext = values.yt, values.extremes
    if not ext.size or yt.dtype.kind not in "biuf":  # (ext: the entries not worthless)
        return None
    if yt.dtype.kind == "f" and ext.integral_known is None:
        # A fraction among the first entries spares the pass over the block.
        sample = yt.reshape(-1)[:_INTEGRAL_SAMPLE]
        if not np.array_equal(sample, np.floor(sample)):
            ext.integral = False
    if yt.dtype.kind == "f" and not ext.integral:
        return None
    if yt.dtype.kind == "b":
        return 0, 2, 1
    lo, hi = ext.min(), ext.max()
    span = int(hi) - int(lo)
    if span >= 1 << MAX_LEVEL_BITS:
        return None
    return lo, span + 1, max(span.bit_length(), 1)


def level_values(values, lo, n_levels, codes, padding=False):
    """Each item value of the levels ``lo .. lo + n_levels - 1`` of a block
    (:func:`level_codes`, whose ``codes`` these are), float64 arrays of
    ``n_levels``. ``padding``: the last code is padding's instead (a padded
    block's, where level 0 is worth more than padding), worth nothing in
    every value.

    A linear or exponential gain is worth something at every level; any
    other gain (a mapping names only the levels of the data, a callable may
    refuse others) is evaluated on the levels some entry holds, and a level
    between them that none holds is worth 0 (no code reads it).
    """
    dtype = values.yt.dtype
    n_real = n_levels - 1 if padding else n_levels
    if dtype.kind == "b":
        levels = np.arange(n_real) > 0
    else:
        # In the relevance's own type, counted from its smallest level: the
        # levels stay within its range (a Python range from lo may not).
        levels = np.asarray(lo, dtype=dtype) + np.arange(n_real, dtype=dtype)
    if all(r.gain is None or r.gain.formula for r in values.requests):
        held = np.arange(n_real)
    else:
        held = flatnonzero(np.bincount(codes.reshape(-1), minlength=n_levels)[:n_real])
    out = {}
    for key, v in derive_values(levels[held], values.requests).items():
        out[key] = np.zeros(n_levels)
        out[key][held] = v
    return out


class OnFirstRead(Mapping):
    """A mapping of arrays each made on its first read (``_make``) from a
    fixed set of keys; a membership test makes nothing, iterating makes
    every value."""

    def __init__(self, keys):
        self._keys, self._made = keys, {}

    def _make(self, key):
        raise NotImplementedError

    def __getitem__(self, key):
        if key not in self._made:
            if key not in self._keys:
                raise KeyError(key)
            self._made[key] = self._make(key)
        return self._made[key]

    def __contains__(self, key):
        return key in self._keys

    def is_made(self, key):
        """Whether the value ``key`` is made (read once already)."""
        return key in self._made

    def __iter__(self):
        return iter(self._keys)

    def __len__(self):
        return len(self._keys)


class DerivedValues(OnFirstRead):
    """The item values of :func:`derive_values` for some entries, each derived
    on its first read: a kernel of a chunk without ties reads the ranked
    values themselves, and a key it does not read (ERR's grade indicators
    beside its grades) is never made."""

    def __init__(self, yt, requests, masks):
        super().__init__(list(dict.fromkeys(k for r in requests for k in r.keys)))
        self._yt, self._requests, self._masks = yt, requests, masks

    def _make(self, key):
        return derive_values(self._yt, self._requests, self._masks, {key})[key]


class LevelValues(OnFirstRead):
    """The item values of entries given as level codes (:func:`level_codes`),
    each made from its table of the levels' values (:func:`level_values`) on
    first read: the same float64 values :class:`DerivedValues` would derive
    from the levels themselves, without a copy of the levels in their own
    type.

    A value affine in the code (a linear gain: ``a + b * code``, exactly, at
    every level) is the codes cast and scaled; an indicator of the codes from
    one on, or of one code (relevant, one grade), a comparison; any other (an
    exponential gain, a mapping) is read off the table by indexing with the
    codes (a tenth of the time of ``np.exp2``, but ten times a cast).
    """

    def __init__(self, codes, table):
        super().__init__(list(table))
        self._codes, self._table = codes, table

    def take(self, key, flat):
        """``self[key]`` at the flat indices ``flat`` (the same values),
        without making the whole array when it is not made yet."""
        if key in self._made:
            return np.take(self._made[key].reshape(-1), flat)
        if key not in self._keys:
            raise KeyError(key)
        return np.take(self._table[key], np.take(self._codes.reshape(-1), flat))

    @property
    def codes(self):
        """The level codes (shared: not to be written). Items of one code
        hold the same value of every key."""
        return self._codes

    def coded(self, key):
        """``(codes, table)``: ``table[codes]`` is ``self[key]`` (the level
        codes themselves, shared: not to be written)."""
        if key not in self._keys:
            raise KeyError(key)
        return self._codes, self._table[key]

    def indicator(self, key):
        """``self[key]`` as a bool array, for a value that is 0 or 1 at each
        level (relevant, one grade, judged), made from the codes without its
        float64 copy (nor kept): a comparison for one code or every code from
        one on; None for any other value."""
        t, codes = self._table[key], self._codes
        if not np.isin(t, (0.0, 1.0)).all():
            return None
        ones = flatnonzero(t)
        if ones.shape[0] == 1:
            return codes == ones[0]
        if ones.shape[0] and ones.shape[0] == t.shape[0] - ones[0]:  # every code from the first one
            return codes >= ones[0]
        if ones.shape[0] and ones.shape[0] == ones[-1] - ones[0] + 1:
            # A run of codes (a padded block's, whose last code is padding's):
            # two comparisons, a twentieth of the time of a table read by
            # the codes (rows of 200, 600,000 items: 0.06 ms against 1.2).
            out = codes >= ones[0]
            out &= codes <= ones[-1]
            return out
        # Others: a table of bools read by the codes, a byte an item.
        return (t != 0.0)[codes]

    def _make(self, key):
        t, codes = self._table[key], self._codes
        a, b = t[0], (t[1] - t[0] if t.shape[0] > 1 else 0.0)
        if np.array_equal(np.arange(t.shape[0], dtype=np.float64) * b + a, t):
            out = codes.astype(np.float64)
            if b != 1.0:
                out *= b
            if a != 0.0:
                out += a
            return out
        flags = self.indicator(key)
        return t[codes] if flags is None else flags.astype(np.float64)


class _Totals(dict):
    """Row totals of the item values, computed on first use.

    It holds its block weakly: a block and its totals would otherwise form a
    reference cycle, whose arrays only the garbage collector frees.
    """

    def __init__(self, block):
        super().__init__()
        self._block = weakref.ref(block)

    def __missing__(self, key):
        b = self._block()
        width = b.yt.shape[1]
        if key in ("judged", "pool") and getattr(b.masks, key) is None:
            total = np.full(b.yt.shape[0], float(width))
        elif key.startswith("rel:"):
            # The relevant items, counted (a count of a mask costs less than
            # summing an indicator); "rel:None" may be asked by no request
            # (ERR's rows with no relevant grade): any relevant item at all.
            req = next((r for r in b.requests if r.rel_key == key), None)
            threshold = None if req is None else req.threshold
            nz = b.nonzero
            if nz is not None and b.masks.judged is None and (threshold is None
                                                              or threshold > 0):
                # An entry of 0 is not relevant: the nonzero ones alone are read.
                flat = nz.flat[_relevant_mask(nz.values, threshold, None)]
                total = np.bincount(flat // width, minlength=b.yt.shape[0])
            else:
                total = row_counts(_relevant_mask(b.yt, threshold, b.masks.judged))
            total = total.astype(np.float64)
        else:
            total = b.full(key).sum(axis=1)
        self[key] = total
        return total


def worth_counts(requests):
    """Whether an item of relevance 0 could be worth something: a gain other
    than linear or exponential (which give level 0 nothing), or a threshold
    <= 0. Only then must unjudged items be masked out of gains and relevance."""
    return any(
        (req.gain is not None and not req.gain.zero_at_zero)
        or (req.rel_key is not None and req.threshold is not None and req.threshold <= 0)
        for req in requests
    )
