"""Parsing numeric tokens exactly, eight digits at a time."""

from __future__ import annotations

import numpy as np

from .._utils.nonzero import flatnonzero
from .tokens import _MINUS, _STEP, PAD, gather_bytes

# -- numbers ------------------------------------------------------------------------

_POW10 = 10.0 ** np.arange(23)
#: Longest token parsed with word arithmetic (two 64-bit words).
_FAST_BYTES = 16


def parse_numbers(block, starts, lengths):
    """Parse decimal tokens of a block as float64; returns ``(values, ok)``.

    Tokens of the form ``[-]digits[.digits]`` with at most 16 characters are
    parsed exactly with word arithmetic (see :func:`_parse_words`), those
    of 17 to 24 characters with at most 19 significant digits (every double
    as Python's ``repr`` writes it without an exponent) through a long double:
    three words at a time when at most 19 bytes besides the sign
    (:func:`_parse_three_words`), else byte by byte (:func:`_parse_long`) when
    a block holds at least :data:`_FEW` such tokens. The others (exponents,
    ``+`` signs, longer mantissas, words, the rare tokens exactly half-way
    between two doubles) go through NumPy's own parser. ``ok`` is False where
    a token is not a finite number.
    """
    n = starts.shape[0]
    fast = lengths <= _FAST_BYTES
    if fast.all():
        vals, good = _parse_words(block, starts, lengths)
        if good.all():
            return vals, good
        slow = flatnonzero(~good)
    else:
        vals = np.empty(n)
        idx = flatnonzero(fast)
        good = np.zeros(n, dtype=bool)
        if idx.size:
            vals[idx], good[idx] = _parse_words(block, starts[idx], lengths[idx])
        slow = flatnonzero(~good)
    ok = np.ones(n, dtype=bool)
    if _EXTENDED and slow.size:
        size = lengths[slow]
        wide = (size > _FAST_BYTES) & (size <= _LONG_BYTES)  # (shorter ones failed the words)
        long_ = slow[wide]
        if long_.size:
            v, g = _parse_three_words(block, starts[long_], lengths[long_])
            vals[long_[g]] = v[g]
            rest = long_[~g]
            if rest.size >= _FEW:  # more than 19 digits and a dot, or a sign: byte by byte
                v, g = _parse_long(block, starts[rest], lengths[rest])
                vals[rest[g]] = v[g]
                rest = rest[~g]
            slow = np.union1d(slow[~wide], rest)
    if not slow.size:
        return vals, ok
    blob, off = gather_bytes(block.body, starts[slow], lengths[slow])
    vals[slow], ok[slow] = _parse_slow(blob, off)
    return vals, ok


#: Fewer tokens than this that the three-word parser refuses go to NumPy's
#: parser at once: :func:`_parse_long` costs one pass per byte whatever their
#: number (runs written by ``repr`` give a few per block: 0.0123... has 20 bytes).
_FEW = 1024
#: Whether ``np.longdouble`` holds a 64-bit mantissa or more (x87's extended
#: precision, IEEE quad): :func:`_parse_long` divides in it.
_EXTENDED = np.finfo(np.longdouble).nmant >= 63
#: Longest token :func:`_parse_long` reads (three 64-bit words).
_LONG_BYTES = 24
#: Powers of ten 10**0 .. 10**23 in long double, each exact (5**23 < 2**54).
_POW10_LONG = np.cumprod(np.r_[np.longdouble(1), np.full(23, 10, dtype=np.longdouble)])
_POW10_INT = np.array([10**i for i in range(20)], dtype=np.uint64)
#: _LOW[k] keeps the first k bytes of a little-endian word.
_LOW = np.array([(1 << (8 * k)) - 1 for k in range(9)], dtype=np.uint64)
#: x87's extended precision as NumPy stores it: the 64-bit mantissa (with its
#: leading 1) in the first 8 bytes of each value.
_X87 = (np.finfo(np.longdouble).nmant == 63 and np.dtype(np.longdouble).itemsize == 16
        and np.little_endian)


def _half_way(exact, v):
    """Whether each long double ``exact`` lies half-way between two doubles
    (``v``, its rounding to double, and a neighbour of ``v``)."""
    if _X87:  # the 11 mantissa bits a double drops are 1 then ten 0s
        words = exact.view(np.uint64).reshape(exact.shape[0], -1)[:, 0]
        return (words & _U(0x7FF)) == _U(0x400)
    out = np.zeros(v.shape[0], dtype=bool)
    with np.errstate(over="ignore"):
        for side in (np.inf, -np.inf):
            out |= exact == (v.astype(np.longdouble) + np.nextafter(v, side)) / 2
    return out


def _parse_three_words(block, s, n):
    """Tokens of 17 to 24 bytes of the form ``[-]digits[.digits]`` with at
    most 19 bytes besides the sign, 8 bytes at a time (as :func:`_parse_words`
    reads two words); returns ``(values, good)``, ``good`` False for the others.

    The token is right-aligned in three words. The dot reads as a 0 digit, so
    the words give ``m' = i * 10**(a + 1) + f`` for the integer part ``i``
    and the ``a`` digits ``f`` after the dot, below 10**19; then
    ``i = m' // 10**(a + 1)`` and the mantissa is ``m' - 9 * i * 10**a``. The
    quotient by ``10**a`` is rounded as in :func:`_parse_long`.
    """
    U = block.U
    end = s + n
    end += PAD - 8
    digits, n_nd, n_dot, after = [], 0, 0, 0
    for j in range(3):  # the last 8 bytes, the 8 before them, the first ones
        x = U[end - 8 * j]
        if j < 2:  # 17 bytes or more: the last 16 are the token's
            z, t, g = _classify(x, _M80)
        else:
            size = n - 16
            x &= _HI[size]
            z, t, g = _classify(x, _HI80[size])
        digits.append(_eight_digits(z))
        n_nd = n_nd + _high_bytes(t)
        dots = (g * _L01) >> _S56
        n_dot = n_dot + dots
        # Bytes after the dot: those after it in its word, and 8 per word after
        # that word (with more than one dot the token is refused anyway).
        after = after + _after_dot(g) + dots * _U(8 * j) if j else _after_dot(g)
    neg = block.body[s] == _MINUS
    good = n_nd == n_dot + neg
    good &= n_dot <= _U(1)
    good &= n_nd < n.astype(np.uint64)
    good &= (n - neg) <= 19
    mant = digits[2] * _U(10**16)
    mant += digits[1] * _U(10**8)
    mant += digits[0]
    a = np.minimum(after, _U(18)).astype(np.intp)
    dot = n_dot > 0
    whole = mant // _POW10_INT[a + 1]
    mant -= np.where(dot, whole * _U(9) * _POW10_INT[a], _U(0))
    return _rounded_once(mant, a, neg, good)


def _parse_long(block, s, n):
    """Tokens of at most 24 bytes of the form ``[-]digits[.digits]`` whose
    digits, read as an integer ``m`` (the dot dropped), stay below 10**19;
    returns ``(values, good)``, ``good`` False for the others.

    ``m`` is exact in a 64-bit integer and in a long double, and so is the
    power of ten it is divided by (:data:`_POW10_LONG`): the quotient is
    rounded once to the long double's 64-bit (or wider) mantissa, then to a
    double. Rounding twice differs from rounding once only when the first
    result lies exactly half-way between two doubles (the half-way points
    are long doubles, and rounding is monotone); those tokens are marked not
    good and go to NumPy's parser, with the malformed ones. The rest are the
    correctly rounded doubles, as C's ``strtod`` gives.
    """
    m = s.shape[0]
    words = np.empty((3, m), dtype="<u8")  # one row per word: its bytes' columns contiguous
    for j in range(3):
        w = words[j]
        w[...] = block.U[s + (PAD + 8 * j)]
        w &= _LOW[np.clip(n - 8 * j, 0, 8)]  # the bytes past the token are 0: no digit
    chars = words.view(np.uint8).reshape(3, m, 8).transpose(0, 2, 1).reshape(_LONG_BYTES, m)
    chars = np.ascontiguousarray(chars)  # (byte, token)
    mant = np.zeros(m, dtype=np.uint64)
    frac = np.zeros(m, dtype=np.int64)
    n_digits = np.zeros(m, dtype=np.int64)
    n_dots = np.zeros(m, dtype=np.int64)
    wide = np.zeros(m, dtype=bool)
    for j in range(int(n.max())):  # Horner's rule over the digits, byte by byte
        digit = chars[j] - np.uint8(48)
        is_digit = digit <= 9
        wide |= is_digit & (mant >= _U(10**18))  # one digit more reaches 10**19
        mant = np.where(is_digit, mant * _U(10) + digit, mant)
        n_dots += chars[j] == 46
        frac += is_digit & (n_dots > 0)
        n_digits += is_digit
    neg = chars[0] == _MINUS
    good = (n_digits + n_dots + neg == n) & (n_dots <= 1) & (n_digits > 0) & ~wide
    np.minimum(frac, _POW10_LONG.shape[0] - 1, out=frac)
    return _rounded_once(mant, frac, neg, good)


def _rounded_once(mant, frac, neg, good):
    """``(values, good)`` of the long tokens with mantissas ``mant`` (below
    10**19), ``frac`` digits after the dot and signs ``neg``: each quotient
    ``mant / 10**frac`` taken in long double, then rounded to a double, and
    ``good`` cleared where that can differ from rounding once
    (:func:`_half_way`)."""
    exact = mant.astype(np.longdouble) / _POW10_LONG[frac]
    v = exact.astype(np.float64)
    good &= ~_half_way(exact, v)
    np.negative(v, out=v, where=neg)
    return v, good


_U = np.uint64
_L01 = _U(0x0101010101010101)
_M80 = _U(0x8080808080808080)
_M7F = _U(0x7F7F7F7F7F7F7F7F)
_C30 = _U(0x3030303030303030)  # '0' in every byte
_C2E = _U(0x2E2E2E2E2E2E2E2E)  # '.' in every byte
_C76 = _U(0x7676767676767676)  # + this sets a byte's high bit iff the byte is above 9
_S7, _S8, _S56 = _U(7), _U(8), _U(56)
#: _HI[n] keeps the last n bytes of a word (a token right-aligned in it);
#: _HI80[n] keeps their high bits.
_HI = np.array([((1 << 64) - 1) ^ ((1 << (8 * (8 - i))) - 1) for i in range(9)],
               dtype=np.uint64)
_HI80 = _HI & _M80


def _eight_digits(x):
    """Value of 8 decimal digits (byte values 0-9, first digit in the lowest byte)."""
    x = (x * _U(2561)) >> _S8
    x &= _U(0x00FF00FF00FF00FF)
    x *= _U(6553601)
    x >>= _U(16)
    x &= _U(0x0000FFFF0000FFFF)
    x *= _U(42949672960001)
    x >>= _U(32)
    return x


def _classify(x, keep80):
    """For a word ``x`` holding token bytes where ``keep80`` has high bits:
    the digits as byte values 0-9 (every other byte 0), the high bit of each
    non-digit token byte, and the low bit of each '.' byte."""
    d = x ^ _C30
    t = d & _M7F
    t += _C76
    t |= d
    t &= _M80  # bytes above 9 once '0' is taken away: the non-digits
    keep = t >> _S7
    keep *= _U(0xFF)
    np.invert(keep, out=keep)
    d &= keep
    t &= keep80
    e = x ^ _C2E  # zero bytes where x holds '.'
    u = e & _M7F
    u += _M7F
    u |= e
    np.invert(u, out=u)
    u &= _M80
    u >>= _S7
    return d, t, u


def _high_bytes(flags):
    """Number of bytes of ``flags`` whose high bit (``shift=7``) is set."""
    return ((flags >> _S7) * _L01) >> _S56


def _drop_dot(z, g):
    """Digits ``z`` with the dot at byte flag ``g`` (0x01 there, or 0) taken out:
    the bytes before it move up by one byte."""
    below = np.maximum(g, _U(1))
    below -= _U(1)
    below &= z
    below *= _U(255)
    return z + below


def _after_dot(g):
    """Number of bytes of a word after the dot flagged by ``g`` (0 without one)."""
    h = g * _L01
    h -= g
    h *= _L01
    return h >> _S56


def _parse_words(block, s, n):
    """Tokens of 1 to 16 bytes of the form ``[-]digits[.digits]``, 8 bytes at a time.

    Each token is right-aligned in two 64-bit words (``lo`` holds its last 8
    bytes, ``hi`` the bytes before those, zeros in front), one load each.
    Non-digits and dots are flagged per byte; a token is well formed when its
    non-digits are at most one dot plus a leading minus sign, and it has a
    digit. The dot is taken out by moving the bytes before it up by one, the
    digits are combined eight at a time, and the number of bytes after the
    dot gives the power of ten. With a dot the mantissa has at most 15 digits
    (below 2**53), and dividing it by an exact power of ten rounds
    correctly; without one, the integer (up to 16 digits) is converted with
    one rounding.
    """
    U = block.U
    end = s + n
    end += PAD - 8
    lo = U[end]
    n_lo = np.minimum(n, 8)
    lo &= _HI[n_lo]
    neg = block.body[s] == _MINUS
    z_lo, nd, g_lo = _classify(lo, _HI80[n_lo])
    n_nd = _high_bytes(nd)
    n_dot = g_lo * _L01
    n_dot >>= _S56
    if int(n.max()) > 8:
        end -= 8
        hi = U[end]
        n_hi = np.clip(n - 8, 0, 8)
        hi &= _HI[n_hi]
        z_hi, nd_hi, g_hi = _classify(hi, _HI80[n_hi])
        n_nd += _high_bytes(nd_hi)
        n_dot += (g_hi * _L01) >> _S56
        # A dot in lo: the last byte of hi moves into lo; in hi: hi's bytes move.
        in_lo = g_lo != 0
        carry = z_hi >> _S56
        carry *= in_lo
        z_lo = _drop_dot(z_lo, g_lo)
        z_lo += carry
        z_hi = np.where(in_lo, z_hi << _S8, _drop_dot(z_hi, g_hi))
        mant = _eight_digits(z_hi)
        mant *= _U(10**8)
        mant += _eight_digits(z_lo)
        frac = _after_dot(g_lo)
        frac += np.where(g_hi != 0, _after_dot(g_hi) + _S8, _U(0))
    else:
        mant = _eight_digits(_drop_dot(z_lo, g_lo))
        frac = _after_dot(g_lo)
    good = n_nd == n_dot + neg
    good &= n_dot <= _U(1)
    good &= n_nd < n.astype(np.uint64)
    v = mant.astype(np.float64)
    frac = frac.view(np.int64)  # small values: the same numbers
    if frac.max(initial=0) > 22:  # malformed tokens only (several dots)
        np.minimum(frac, 22, out=frac)
    v /= _POW10[frac]
    np.negative(v, out=v, where=neg)
    return v, good


_UNDERSCORE = ord("_")


def _parse_slow(blob, off):
    n = off.shape[0] - 1
    lens = np.diff(off)
    out = np.empty(n)
    ok = np.ones(n, dtype=bool)
    # Bounded temporaries: tokens of one power-of-two width class at a time,
    # at most _STEP bytes per step (a very long token takes a step alone);
    # a few tokens (a block's half-way and malformed ones) in one step.
    if n * int(lens.max(initial=1)) <= _STEP:  # (n >= 1: called for the tokens left)
        steps = [np.arange(n)]
    else:
        width = np.left_shift(1, np.ceil(np.log2(np.maximum(lens, 1))).astype(np.int64))
        order = np.argsort(width, kind="stable")
        cuts = flatnonzero(np.diff(width[order])) + 1
        steps = []
        for cls in np.split(order, cuts):
            rows = max(1, _STEP // int(width[cls[0]]))
            steps += [cls[i : i + rows] for i in range(0, cls.size, rows)]
    for idx in steps:
        w = max(int(lens[idx].max()), 1)
        mat = np.zeros((idx.size, w), dtype=np.uint8)
        cols = np.arange(w)
        take = cols < lens[idx][:, None]
        mat[take] = blob[(off[idx][:, None] + cols)[take]]
        text = mat.view(f"S{w}").reshape(-1)
        try:
            v = text.astype(np.float64)
            out[idx] = v
            # NumPy, as Python, reads 1_000 as 1000; C's atof (trec_eval) stops at
            # the '_'. Only C's number syntax is accepted.
            ok[idx] = np.isfinite(v) & ~(mat == _UNDERSCORE).any(axis=1)
        except (ValueError, OverflowError):
            for i, t in zip(idx.tolist(), text.tolist()):
                try:
                    out[i] = float(t)
                    ok[i] = np.isfinite(out[i]) and b"_" not in t
                except (ValueError, OverflowError):
                    ok[i] = False
    return out, ok
