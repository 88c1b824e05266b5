"""Gain and discount conventions, checked once and turned into callables.

A *gain* maps relevance levels to what an item is worth; a *discount* maps
1-based positions to a weight. Both are resolved here into small objects the
engine applies to one row chunk at a time.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from .._utils.errors import InvalidParameterError, short_repr
from .._utils.nonzero import flatnonzero

# 2.0**1024 overflows float64; 1023 is the largest level the exponential gain takes.
_MAX_EXP_LEVEL = 1023.0


class _Gain:
    """A resolved gain convention.

    Attributes
    ----------
    name : str
        Short description used in error messages.
    monotone : bool
        True when the gain never decreases with relevance, so that the ideal
        ordering of relevance equals the ideal ordering of gain (lets the
        engine partition relevance and transform only the top k).
    """

    def __init__(self, name, func, monotone, allows_negative, zero_at_zero=None, covers=None):
        self.name = name
        self._func = func
        self.monotone = monotone
        self.allows_negative = allows_negative
        #: ``covers(levels) -> bool array``: the negative levels this gain names
        #: (a mapping's keys; every level for a callable); None: it names none.
        #: A negative level of qrels or of an id truth is in the pool but not
        #: judged, worth nothing, unless the gain names it (item_values).
        self.covers = covers
        #: Whether level 0 (an unjudged item's) is worth nothing, so that the
        #: unjudged items need no mask (linear, exponential, C/W/L's scale).
        self.zero_at_zero = (name in ("linear", "exponential") if zero_at_zero is None
                             else zero_at_zero)
        #: Whether the gain is a formula of the level (linear, exponential):
        #: defined at every level, monotone, so finite between two levels where
        #: it is finite. A mapping names some levels only and a callable may
        #: fail anywhere: those are evaluated on the levels held.
        self.formula = name in ("linear", "exponential")

    def __call__(self, rel):
        return self._func(rel)

    def check_levels(self, rel, *, normalized, arg="y_true", metric=None):
        """Raise when ``rel`` holds levels this gain cannot take (``metric``: the
        label of the metric that reads them, for the message)."""
        if rel.size == 0:
            return
        lo = rel.min()
        if lo < 0 and not self.allows_negative(normalized):
            what = (
                "a normalised metric"
                if self.name == "linear"
                else f"the {self.name!r} gain"
            )
            if metric is not None:
                what = f"{what}, here {metric},"
            why = ("its ideal would be meaningless; scikit-learn's ndcg_score refuses it "
                   "too" if self.name == "linear" else "2**rel - 1 would be a negative gain")
            raise ValueError(
                f"{arg} has negative relevance ({lo:g}), which {what} cannot take ({why}). "
                f"Accepted: {arg} >= 0 (np.maximum({arg}, 0) reads negative levels as not "
                "relevant and worth 0, as evaluate_run and evaluate_ranked read the "
                "negative levels of qrels), or gain= a mapping or callable that gives "
                "every level a gain >= 0 (for example gain={-1: 0, 0: 0, 1: 1, 2: 2})."
            )
        if self.name == "exponential":
            hi = rel.max()
            if hi > _MAX_EXP_LEVEL:
                raise ValueError(
                    f"{arg} has relevance {hi:g}: the exponential gain 2**rel - 1 "
                    f"overflows float64 above {_MAX_EXP_LEVEL:g}. Use gain='linear' "
                    "or rescale the relevance levels."
                )


def _linear(rel):
    return rel


def _exponential(rel):
    # In float64 whatever the levels' dtype: float32 levels would lose
    # digits of 2**rel - 1 (1e-7 of the value).
    return np.exp2(np.asarray(rel, dtype=np.float64)) - 1.0


def _mapping_gain(mapping):
    try:
        items = sorted((float(k), float(v)) for k, v in mapping.items())
    except (TypeError, ValueError):
        raise InvalidParameterError(
            "gain mapping must map numeric relevance levels to numeric gains, "
            f"got {mapping!r}."
        ) from None
    if not items:
        raise InvalidParameterError("gain mapping is empty; give at least one {level: gain}.")
    levels = np.array([k for k, _ in items])
    gains = np.array([v for _, v in items])
    if not np.all(np.isfinite(levels)) or not np.all(np.isfinite(gains)):
        raise InvalidParameterError("gain mapping must have finite levels and finite gains.")

    def func(rel):
        pos = np.searchsorted(levels, rel)
        pos_c = np.minimum(pos, len(levels) - 1)
        ok = levels[pos_c] == rel
        if not ok.all():
            missing = np.unique(rel[~ok])[:10]
            raise InvalidParameterError(
                "gain mapping has no entry for relevance level(s) "
                f"{missing.tolist()}; it maps {levels.tolist()}. Add every level "
                "that occurs in y_true."
            )
        return gains[pos_c]

    monotone = bool(np.all(np.diff(gains) >= 0))
    named = levels[levels < 0]

    def covers(rel):
        return np.isin(rel, named)

    return _Gain("mapping", func, monotone, lambda normalized: True, covers=covers), gains


def _callable_gain(fn):
    def func(rel):
        rel = np.asarray(rel, dtype=float)
        out = np.asarray(fn(rel), dtype=float)
        if out.shape != rel.shape:
            raise InvalidParameterError(
                f"gain callable must return an array of the shape it was given "
                f"{rel.shape}, got {out.shape}."
            )
        if not np.all(np.isfinite(out)):
            raise InvalidParameterError("gain callable returned NaN or infinite gains.")
        return out

    covers = getattr(fn, "covers", None)
    if covers is None:

        def covers(rel):  # a callable is the user's gain of every level
            return np.ones(np.shape(rel), dtype=bool)

    # The package's own callables (Compat's and C/W/L's gains) say whether they
    # never decrease with the level (a user's callable is not assumed to).
    return _Gain("callable", func, bool(getattr(fn, "_monotone_gain", False)),
                 lambda normalized: True,
                 zero_at_zero=bool(getattr(fn, "zero_at_zero", False)), covers=covers)


class ListedGains:
    """Gains listed for some levels; every other level is its own gain.

    ir_measures' ``nDCG(gains={...})`` maps a level with ``gains.get(level,
    level)``, as trec_eval's ``ndcg.L=G`` does. A callable with a ``key``
    (its requests share one column of gains) that compares by its mapping.
    """

    def __init__(self, mapping):
        try:
            items = sorted((float(k), float(v)) for k, v in mapping.items())
        except (AttributeError, TypeError, ValueError):
            raise InvalidParameterError(
                "gains must map numeric relevance levels to numeric gains, got "
                f"{short_repr(mapping)}."
            ) from None
        self.levels = np.array([k for k, _ in items])
        self.gains = np.array([v for _, v in items])
        self.key = "listed:" + ",".join(f"{k!r}={v!r}" for k, v in items)

    def __call__(self, rel):
        rel = np.asarray(rel, dtype=np.float64)
        if self.levels.size == 0:
            return rel
        pos = np.minimum(np.searchsorted(self.levels, rel), self.levels.size - 1)
        return np.where(self.levels[pos] == rel, self.gains[pos], rel)

    def covers(self, rel):
        """The negative levels given a gain >= 0: ir_measures maps a qrels level
        before trec_eval reads it, so such a level becomes a judged one; a level
        still negative after the mapping stays in the pool, unjudged."""
        return np.isin(rel, self.levels[(self.levels < 0) & (self.gains >= 0)])

    def __eq__(self, other):
        return isinstance(other, ListedGains) and self.key == other.key

    def __hash__(self):
        return hash(self.key)

    def __repr__(self):
        return f"ListedGains({dict(zip(self.levels.tolist(), self.gains.tolist()))})"


def resolve_gain(gain):
    """Turn the ``gain`` argument into a :class:`_Gain`."""
    if isinstance(gain, str):
        if gain == "linear":
            return _Gain("linear", _linear, True, lambda normalized: not normalized)
        if gain == "exponential":
            return _Gain("exponential", _exponential, True, lambda normalized: False)
        raise InvalidParameterError(
            f"gain={gain!r} is not a known gain. Accepted: 'linear', 'exponential', "
            "a mapping {level: gain} or a callable."
        )
    if isinstance(gain, Mapping):
        return _mapping_gain(gain)[0]
    if callable(gain):
        return _callable_gain(gain)
    raise InvalidParameterError(
        f"gain must be 'linear', 'exponential', a mapping or a callable, got "
        f"{type(gain).__name__}."
    )


def _checked_discounts(values, n, *, normalized, metric, source):
    """Discounts of positions 1..n from ``source``: finite, >= 0 and, for a
    normalised metric, non-increasing (else its ideal would not be the best
    ordering and values above 1 could come out)."""
    if values.shape != (n,) or not np.all(np.isfinite(values)):
        raise InvalidParameterError(
            f"{metric}: the discount {source} must give one finite value per position "
            f"({n}), got shape {values.shape}."
        )
    if n and values.min() < 0:
        p = int(np.argmin(values)) + 1
        raise InvalidParameterError(
            f"{metric}: the discount {source} is negative at position {p} "
            f"({values[p - 1]:g}); discounts must be >= 0."
        )
    if normalized and n > 1 and (np.diff(values) > 0).any():
        p = int(flatnonzero(np.diff(values) > 0)[0]) + 2
        raise InvalidParameterError(
            f"{metric}: the discount {source} grows at position {p} ({values[p - 2]:g} "
            f"then {values[p - 1]:g}); a normalised metric needs discounts that never "
            "grow with the position (the ideal ordering puts the best item first)."
        )
    return values


def resolve_discount(discount, log_base, *, normalized=False, metric="the metric"):
    """Return ``f(n) -> ndarray`` of the discounts of positions 1..n.

    ``log_base`` > 1 is checked by the parameter table. Arrays and callables
    are checked for sign and, for normalised metrics, monotonicity.
    """
    base = float(log_base)
    if isinstance(discount, str):
        if discount == "log":

            def f(n):
                return np.log(base) / np.log(np.arange(2, n + 2, dtype=float))

            return f
        if discount == "jarvelin":

            def f(n):
                p = np.arange(1, n + 1, dtype=float)
                out = np.ones(n)
                late = p >= base
                out[late] = np.log(base) / np.log(p[late])
                return out

            return f
        raise InvalidParameterError(
            f"discount={discount!r} is not a known discount. Accepted: 'log' "
            "(1/log_b(p + 1)), 'jarvelin' (1 for p < b, then 1/log_b(p)), a 1-D "
            "array of per-position discounts, or a callable of 1-based positions."
        )
    if callable(discount):

        def f(n):
            try:
                out = np.asarray(discount(np.arange(1, n + 1)), dtype=float)
            except (TypeError, ValueError) as exc:
                raise InvalidParameterError(
                    f"{metric}: the discount callable must return numbers ({exc})."
                ) from None
            return _checked_discounts(out, n, normalized=normalized, metric=metric,
                                      source="callable")

        return f
    try:
        arr = np.asarray(discount, dtype=float)
    except (TypeError, ValueError):
        arr = None
    if arr is None or arr.ndim != 1 or arr.size == 0:
        raise InvalidParameterError(
            "discount must be 'log', 'jarvelin', a non-empty 1-D array of numbers or a "
            f"callable, got {short_repr(discount)}."
        )
    arr = _checked_discounts(arr, arr.size, normalized=normalized, metric=metric,
                             source="array")

    def f(n):
        if n > arr.size:
            raise InvalidParameterError(
                f"{metric}: the discount array has {arr.size} positions but the ranking "
                f"needs {n}; give one discount per position up to k (or n_items)."
            )
        return arr[:n]

    return f
