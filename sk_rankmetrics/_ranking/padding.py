"""Padding: the entries of a block that hold no item (items ``exclude`` leaves
out, long-format queries shorter than their block), ranked last and worth
nothing.

A padded block's padding holds the relevance 0 and, in float scores,
``-inf``; integer scores cannot hold ``-inf``, and take one score below
every real one instead (:func:`counted_padding`), which keeps them on the
counts' route. The routes that code each item by its level code padding as
level 0 where that is worth what padding is, else apart
(:func:`padded_level_codes`).
"""

from __future__ import annotations

import numpy as np

from .item_values import BlockValues, derive_values, level_codes
from .select import _MAX_SCORE_SPAN, score_span


def padding_is_level_zero(values):
    """Whether every item value of padding (0 and never relevant: see
    :func:`~.item_values.derive_values`) is that of a real item of level 0:
    the gains are formulas (a mapping or a callable is not evaluated where
    the data hold no level 0) and level 0 is worth nothing, relevant to no
    request, and no request reads which items are judged or pooled."""
    if any(r.gain is not None and not r.gain.formula for r in values.requests):
        return False
    zero = np.zeros(1, dtype=values.yt.dtype)
    return not any(v.any() for v in derive_values(zero, values.requests).values())


def coded_padding(fit, real):
    """``fit`` (:func:`~.item_values.level_codes`' with a last flag: whether
    the last code is padding's) with padding given a code of its own, after
    the levels' (worth nothing in every value:
    :func:`~.item_values.level_values`), or None when 256 codes are taken.
    For padded blocks whose level 0 is worth more than padding (bpref and
    infAP read which items are judged; a gain or a threshold may value level
    0); a copy of the codes, a byte an item."""
    codes, bits, lo, n_levels, _ = fit
    if n_levels >= 256:
        return None
    codes = np.where(real, codes, np.uint8(n_levels))
    return codes, max(bits, int(n_levels).bit_length()), lo, n_levels + 1, True


def padded_level_codes(values, padded):
    """``(codes, bits, lo, n_levels, padding)``: :func:`~.item_values.level_codes`
    of a block, its padding (``padded``: whether it has any) coded as level 0
    where that is worth what padding is (:func:`padding_is_level_zero`), else
    with a code of its own (``padding`` True: :func:`coded_padding`); or None
    where the levels fit no code."""
    fit = level_codes(values, padded)
    if fit is None:
        return None
    fit = (*fit, False)
    if padded:
        lo = int(fit[2])  # (in the relevance's own type, which lo + n_levels may overflow)
        if not (lo <= 0 < lo + fit[3] and padding_is_level_zero(values)):
            return coded_padding(fit, values.masks.real)
    return fit


def counted_padding(y_score, padding):
    """Integer scores ``y_score`` with their ``padding`` (a bool mask) set to
    one below the smallest score, or None where the counts' route would not
    count them (:func:`~.select.score_span`: 16-bit integers or wider,
    spanning few values, with that score one of their type's).

    Each row's padding is then one tie group, ranked after every real item,
    of items worth nothing: each tie group of integer scores is counted where
    it lies, nothing sorted (:func:`~.chunk.rank_chunk`). In float64, with
    ``-inf`` for padding, the same rows took the levels' route through
    whole ties (2.3-4.8 times a row argsort on 100,000 x 100)."""
    span = score_span(y_score)
    if span is None or not padding.any():
        return None
    lo = span[0]
    if lo <= np.iinfo(y_score.dtype).min:
        return None
    scores = np.where(padding, y_score.dtype.type(lo - 1), y_score)
    return scores if score_span(scores) is not None else None


def padding_score(y_score):
    """One below the smallest of integer scores (any shape) that the counts'
    route may take, for the padding of every block cut from them: 16-bit
    integers or wider, spanning fewer than :data:`~.select._MAX_SCORE_SPAN`
    values, within +-2**53 (so that a block whose rows are too short for
    the span converts to float64 exactly); or None."""
    if y_score.dtype.kind not in "iu" or y_score.dtype.itemsize < 2 or not y_score.size:
        return None
    lo, hi = int(y_score.min()), int(y_score.max())
    if lo <= np.iinfo(y_score.dtype).min or lo <= -(2**53) or hi > 2**53:
        return None
    return lo - 1 if hi - lo + 2 <= _MAX_SCORE_SPAN else None


def real_groups_tie(sizes, values):
    """Whether a group of two or more real items is among ``sizes`` (each
    row's count of each integer score, the best first): the lowest score of
    a padded block (``values``' masks) is its padding's
    (:func:`counted_padding`), whose ties are no real ties (a measure that
    refuses tied scores takes rows of distinct scores and padding)."""
    if isinstance(values, BlockValues) and values.masks.real is not None:
        sizes = sizes[:, :-1]
    return bool((sizes > 1).any())
