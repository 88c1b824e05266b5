"""Gain and discount conventions, checked once and turned into callables.

A *gain* maps relevance levels to what an item is worth; a *discount* maps
1-based positions to a weight. Both are resolved here into small objects the
engine applies to one row chunk at a time.
"""

from __future__ import annotations

import numbers
from collections.abc import Mapping

import numpy as np

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

    def __init__(self, name, func, monotone, allows_negative):
        self.name = name
        self._func = func
        self.monotone = monotone
        self.allows_negative = allows_negative

    def __call__(self, rel):
        return self._func(rel)

    def check_levels(self, rel, *, normalized, arg="y_true"):
        """Raise when ``rel`` holds levels this gain cannot take."""
        if rel.size == 0:
            return
        lo = rel.min()
        if lo < 0 and not self.allows_negative(normalized):
            what = (
                "a normalised metric (its ideal DCG would be meaningless)"
                if self.name == "linear"
                else f"the {self.name!r} gain"
            )
            raise ValueError(
                f"{arg} has negative relevance ({lo:g}), which {what} cannot take. "
                "Accepted: relevance >= 0, or a gain mapping/callable that turns "
                "negative levels into gains (for example {-1: 0, 0: 0, 1: 1})."
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
    return np.exp2(rel) - 1.0


def _mapping_gain(mapping):
    try:
        items = sorted((float(k), float(v)) for k, v in mapping.items())
    except (TypeError, ValueError):
        raise TypeError(
            "gain mapping must map numeric relevance levels to numeric gains, "
            f"got {mapping!r}."
        ) from None
    if not items:
        raise ValueError("gain mapping is empty; give at least one {level: gain}.")
    levels = np.array([k for k, _ in items])
    gains = np.array([v for _, v in items])
    if not np.all(np.isfinite(levels)) or not np.all(np.isfinite(gains)):
        raise ValueError("gain mapping must have finite levels and finite gains.")

    def func(rel):
        pos = np.searchsorted(levels, rel)
        pos_c = np.minimum(pos, len(levels) - 1)
        ok = levels[pos_c] == rel
        if not ok.all():
            missing = np.unique(rel[~ok])[:10]
            raise ValueError(
                "gain mapping has no entry for relevance level(s) "
                f"{missing.tolist()}; it maps {levels.tolist()}. Add every level "
                "that occurs in y_true."
            )
        return gains[pos_c]

    monotone = bool(np.all(np.diff(gains) >= 0))
    return _Gain("mapping", func, monotone, lambda normalized: True), gains


def _callable_gain(fn):
    def func(rel):
        rel = np.asarray(rel, dtype=float)
        out = np.asarray(fn(rel), dtype=float)
        if out.shape != rel.shape:
            raise ValueError(
                f"gain callable must return an array of the shape it was given "
                f"{rel.shape}, got {out.shape}."
            )
        if not np.all(np.isfinite(out)):
            raise ValueError("gain callable returned NaN or infinite gains.")
        return out

    return _Gain("callable", func, False, lambda normalized: True)


def resolve_gain(gain):
    """Turn the ``gain`` argument into a :class:`_Gain`."""
    if isinstance(gain, str):
        if gain == "linear":
            return _Gain("linear", _linear, True, lambda normalized: not normalized)
        if gain == "exponential":
            return _Gain("exponential", _exponential, True, lambda normalized: False)
        raise ValueError(
            f"gain={gain!r} is not a known gain. Accepted: 'linear', 'exponential', "
            "a mapping {level: gain} or a callable."
        )
    if isinstance(gain, Mapping):
        return _mapping_gain(gain)[0]
    if callable(gain):
        return _callable_gain(gain)
    raise TypeError(
        f"gain must be 'linear', 'exponential', a mapping or a callable, got "
        f"{type(gain).__name__}."
    )


def _check_log_base(log_base):
    if (
        isinstance(log_base, bool)
        or not isinstance(log_base, numbers.Real)
        or not np.isfinite(log_base)
        or log_base <= 0
        or log_base == 1
    ):
        raise ValueError(
            f"log_base must be a finite real number > 0 and != 1, got {log_base!r}."
        )
    return float(log_base)


def resolve_discount(discount, log_base):
    """Return ``f(n) -> ndarray`` of the discounts of positions 1..n."""
    if isinstance(discount, str):
        if discount == "log":
            base = _check_log_base(log_base)

            def f(n):
                return np.log(base) / np.log(np.arange(2, n + 2, dtype=float))

            return f
        if discount == "jarvelin":
            base = _check_log_base(log_base)
            if base <= 1:
                raise ValueError(
                    "discount='jarvelin' needs log_base > 1 (no discount for "
                    f"positions below the base), got {log_base!r}."
                )

            def f(n):
                p = np.arange(1, n + 1, dtype=float)
                out = np.ones(n)
                late = p >= base
                out[late] = np.log(base) / np.log(p[late])
                return out

            return f
        raise ValueError(
            f"discount={discount!r} is not a known discount. Accepted: 'log' "
            "(1/log_b(p + 1)), 'jarvelin' (1 for p < b, then 1/log_b(p)), a 1-D "
            "array of per-position discounts, or a callable of 1-based positions."
        )
    if callable(discount):

        def f(n):
            out = np.asarray(discount(np.arange(1, n + 1)), dtype=float)
            if out.shape != (n,) or not np.all(np.isfinite(out)):
                raise ValueError(
                    "discount callable must return a finite 1-D array with one "
                    f"value per position ({n}), got shape {out.shape}."
                )
            return out

        return f
    try:
        arr = np.asarray(discount, dtype=float)
    except (TypeError, ValueError):
        arr = None
    if arr is None or arr.ndim != 1 or arr.size == 0 or not np.all(np.isfinite(arr)):
        raise TypeError(
            "discount must be 'log', 'jarvelin', a non-empty finite 1-D array or a "
            f"callable, got {discount!r}."
        )

    def f(n):
        if n > arr.size:
            raise ValueError(
                f"discount array has {arr.size} positions but the ranking needs "
                f"{n}; give one discount per position up to k (or n_items)."
            )
        return arr[:n]

    return f
