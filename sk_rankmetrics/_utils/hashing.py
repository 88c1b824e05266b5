"""64-bit hashing shared by the file readers, the ID lists and the catalogue."""

from __future__ import annotations

import numpy as np

#: Fibonacci hashing's multiplier: 2**64 over the golden ratio, odd.
GOLDEN = np.uint64(0x9E3779B97F4A7C15)

#: The finaliser's first multiplier (also a multiplicative hash of its own).
M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)
_S30, _S27, _S31 = np.uint64(30), np.uint64(27), np.uint64(31)


def mix(x, inplace=False):
    """SplitMix64's finaliser: a bijection of uint64 in which every input bit
    affects every output bit. ``inplace`` reuses ``x`` when it is a uint64
    array (the hash passes over long tokens call it on every step)."""
    if inplace and isinstance(x, np.ndarray) and x.dtype == np.uint64:
        h = x
    else:
        h = np.array(x, dtype=np.uint64)
    with np.errstate(over="ignore"):  # multiplication modulo 2**64 is the point
        h ^= h >> _S30
        h *= M1
        h ^= h >> _S27
        h *= _M2
        h ^= h >> _S31
    return h
