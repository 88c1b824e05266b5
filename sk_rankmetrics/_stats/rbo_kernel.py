"""Rank-biased overlap of many pairs of ranked lists at once, with tie groups.

The definitions are Corsi and Urbano's (SIGIR 2024), which extend Webber,
Moffat and Zobel's RBO to rankings with ties. A list of ``n`` items is cut
into tie groups; an item of a group that spans positions ``t..b`` (1-based)
contributes to the prefix of depth ``d``

- ``w`` (ties are equal ranks): 1 from ``d = t`` on;
- ``a`` and ``b`` (ties are uncertain orders): ``(d - t + 1) / (b - t + 1)``
  for ``t <= d <= b`` and 1 after, the chance that a random order of the
  group puts it within the prefix.

The overlap at depth ``d`` is ``X_d = sum_i c_S(i, d) c_L(i, d)`` over the
items of both lists (``S`` the shorter, of length ``s``, ``L`` the longer,
of length ``l``), and the agreement is ``X_d`` over the prefix sizes:
``2 X_d / (|S_d| + |L_d|)`` (``w``, ``|S_d|`` the items whose group starts
by ``d``), ``X_d / d`` (``a``) or ``X_d / sqrt(sum c_S^2 sum c_L^2)``
(``b``). Depths ``s < d <= l`` see only ``L``; there ``S`` holds ``d``
items, the unseen ones counting 1 each, and the unseen part adds nothing
(MIN), the ``L``-only items in ``L``'s order (MAX), or ``(d - s) A_s`` times
the mean contribution of the ``L``-only items of the prefix (EXT). Past ``l``
the closed forms of the tails hold: ``X_l / d`` (MIN), ``min(1, (2 d - l - s
+ X_l) / d)`` (MAX) and ``(X_l + (l - s) A_s) / l`` (EXT); ``X_l`` is the
number of items the lists share, a whole number in every variant. Then

    RBO = (1 - p) / p * (sum_{d=1}^{l} A_d p^d + tail).

How it is vectorised: rows (pairs of lists) are sorted by the longer length
and cut into blocks of bounded size. In a block, the items each pair shares
come from one row-wise sort of packed keys (item code, side, position). Each
quantity that is a sum over items of piecewise polynomials of the depth (the
overlap is a sum of products of two ramps) is built by scattering each
piece's coefficients at its first depth and their negatives after its last
(``np.bincount``), then a running sum along the depths: O(items + depths)
per row, no loop over rows or items.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np
from numpy.typing import NDArray

from .._utils.fast import row_cumsum
from .._utils.nonzero import nonzero_2d

#: The scores, in the order of the results.
SCORES = ("ext", "min", "max", "res")
#: Elements of a block's largest matrix, its items of both lists (rows x 2 depths):
#: its (rows x depths) matrices of 8-byte numbers then take 1 MiB, small enough to
#: stay in the CPU's cache between the passes over them.
BLOCK_ELEMENTS = 1 << 18
#: Item codes of one pair may span at most this many bits (with the position
#: and the side, a key fits in 63 bits).
CODE_BITS = 40
_SENTINEL = np.iinfo(np.int64).max


class Lists(NamedTuple):
    """Ranked lists, one per row, with their scores (equal scores tie).

    Row ``i`` is entries ``starts[i] : starts[i] + lens[i]`` of ``codes``
    (integer item codes, best first) and ``scores`` (non-increasing within
    the row: two adjacent equal scores are one tie group).
    """

    starts: NDArray[np.int64]
    lens: NDArray[np.int64]
    codes: NDArray[np.int64]
    scores: NDArray[np.float64]


class RepeatedItem(ValueError):
    """A list holds an item twice: ``side`` (0: x, 1: y), ``row`` and the item's ``code``."""

    def __init__(self, side, row, code):
        super().__init__(f"list {side} of row {row} holds item {code} twice")
        self.side, self.row, self.code = side, row, code


def _padded(lists, rows, width):
    """The lists of ``rows`` as (len(rows), width) matrices of item codes, of the
    1-based position where each item's tie group starts and of its size, and
    a mask of the filled cells (a cell past a list's end is a group of one).

    Each row is read where it lies (its entries are contiguous): one gather
    of ``width`` entries per row, clipped to the row's last. The tie groups
    come from the scores of the block: a group starts where the score
    changes, and its top and size are running maxima and minima of the group
    bounds along each row.
    """
    starts, lens = lists.starts[rows], lists.lens[rows]
    pos = np.arange(width)
    mask = pos < lens[:, None]
    idx = starts[:, None] + np.minimum(pos, lens[:, None] - 1)
    codes = lists.codes[idx]
    scores = lists.scores[idx]
    first = np.ones(idx.shape, dtype=bool)  # the first cell of each group
    np.not_equal(scores[:, 1:], scores[:, :-1], out=first[:, 1:])
    first[:, 1:] |= ~mask[:, 1:]
    if first.all():  # no tie in the block: every item is a group of one
        return (codes, np.broadcast_to(pos + 1, idx.shape), np.ones(idx.shape, np.int64)), mask
    last = np.ones(idx.shape, dtype=bool)
    last[:, :-1] = first[:, 1:]
    top = np.maximum.accumulate(np.where(first, pos, 0), axis=1)
    end = np.minimum.accumulate(np.where(last, pos, width)[:, ::-1], axis=1)[:, ::-1]
    return (codes, top + 1, end - top + 1), mask


def _shared(cx, cy, mask_x, mask_y):
    """The items each row's two lists share: ``(row, pos_x, pos_y)`` (0-based).

    Keys ``(code << (bits + 1)) | (side << bits) | position`` are sorted
    within each row; two keys of one code sit side by side, ``x``'s first.
    """
    n, wx = cx.shape
    wy = cy.shape[1]
    bits = max(int(max(wx, wy)).bit_length(), 1)
    vx, vy = cx[mask_x], cy[mask_y]
    lo = min(int(vx.min(initial=0)), int(vy.min(initial=0)))
    hi = max(int(vx.max(initial=0)), int(vy.max(initial=0)))
    if (hi - lo).bit_length() + bits + 1 > 62:  # codes too far apart: renumber them
        vocab = np.unique(np.concatenate((vx, vy)))
        cx = np.where(mask_x, np.searchsorted(vocab, cx), 0)
        cy = np.where(mask_y, np.searchsorted(vocab, cy), 0)
        r, px, py = _shared(cx, cy, mask_x, mask_y)
        return r, px, py
    keys = np.empty((n, wx + wy), dtype=np.int64)
    kx, ky = keys[:, :wx], keys[:, wx:]
    np.subtract(cx, lo, out=kx)
    kx <<= bits + 1
    kx |= np.arange(wx)
    np.subtract(cy, lo, out=ky)
    ky <<= bits + 1
    ky |= (1 << bits) | np.arange(wy)
    for k, m in ((kx, mask_x), (ky, mask_y)):
        if not m.all():
            k[~m] = _SENTINEL
    keys.sort(axis=1)
    high = keys >> (bits + 1)
    same = (high[:, 1:] == high[:, :-1]) & (keys[:, 1:] != _SENTINEL)
    r, j = nonzero_2d(same)
    first, second = keys[r, j], keys[r, j + 1]
    side_a, side_b = (first >> bits) & 1, (second >> bits) & 1
    twice = side_a == side_b
    if twice.any():
        i = int(np.argmax(twice))
        pos = int(first[i] & ((1 << bits) - 1))
        code = (cx if side_a[i] == 0 else cy)[r[i], pos]
        raise RepeatedItem(int(side_a[i]), int(r[i]), int(code))
    mask = (1 << bits) - 1
    return r, first & mask, second & mask


def _pieces(n, width, parts):
    """Running sums along the depths of piecewise polynomials.

    ``parts`` is a list of ``(row, lo, hi, coefficients)``: each entry adds
    ``sum_k coefficients[k] * d**k`` at depths ``lo..hi`` of its row (``hi``
    None: to the end). Returns the (n, width) matrix of the sums, depth ``d``
    in column ``d``.
    """
    degree = max(len(c) for *_, c in parts)
    size = n * width
    acc = [np.zeros(size) for _ in range(degree)]
    for row, lo, hi, coefs in parts:
        # An empty piece (lo > hi) or one past the last depth adds nothing:
        # its weights are 0 (multiplied, cheaper than selecting the others).
        keep = lo < width
        if hi is not None:
            keep &= lo <= hi
        whole = bool(keep.all())
        base = row * width
        start = base + np.minimum(lo, width - 1)
        end = None if hi is None else base + np.clip(hi + 1, 0, width - 1)
        for k, c in enumerate(coefs):
            if whole and np.ndim(c) == 0 and c == 1.0:
                w = None  # a count
            else:
                w = np.where(keep, c, 0.0)
            acc[k] += np.bincount(start, weights=w, minlength=size)
            if end is not None:
                acc[k] -= np.bincount(end, weights=w, minlength=size)
    d = np.arange(width, dtype=np.float64)
    out = row_cumsum(acc[0].reshape(n, width))
    for k in range(1, degree):
        out += row_cumsum(acc[k].reshape(n, width)) * d**k
    return out


def _ramp_parts(row, top, size, start=None, tied=True):
    """The pieces of each item's contribution ``c(d)`` from depth ``start`` on
    (default: its group's top): linear ``(d - t + 1) / g`` before the group's
    bottom ``b``, 1 from ``b`` (from ``t`` when ``tied`` is False)."""
    if start is None:
        start = top
    if not tied:
        return [(row, start, None, (1.0,))]
    bottom = top + size - 1
    g = size.astype(np.float64)
    return [(row, start, bottom - 1, ((1.0 - top) / g, 1.0 / g)),
            (row, np.maximum(start, bottom), None, (1.0,))]


def _overlap(n, width, r, tx, gx, ty, gy, tied):
    """``X_d``: the sum over shared items of ``c_x(d) c_y(d)``. Every pair has
    the piece where both items are whole; the ramps of tied items add up to
    three pieces (both ramps, and each ramp against the other's whole item),
    built for the pairs that have them only."""
    if not tied:
        return _pieces(n, width, [(r, np.maximum(tx, ty), None, (1.0,))])
    bx, by = tx + gx - 1, ty + gy - 1
    parts = [(r, np.maximum(bx, by), None, (1.0,))]
    fx, fy = gx.astype(np.float64), gy.astype(np.float64)
    ax, ay = (1.0 - tx) / fx, (1.0 - ty) / fy  # c(d) = a + d / g on a ramp
    tied_x, tied_y = bool((gx > 1).any()), bool((gy > 1).any())
    # A ramp against the other's whole item (an untied item's ramp is empty).
    if tied_x:
        parts.append((r, np.maximum(tx, by), bx - 1, (ax, 1.0 / fx)))
    if tied_y:
        parts.append((r, np.maximum(ty, bx), by - 1, (ay, 1.0 / fy)))
    if tied_x and tied_y:  # both ramps: (d - tx + 1)(d - ty + 1) / (gx gy)
        parts.append((r, np.maximum(tx, ty), np.minimum(bx, by) - 1,
                      (ax * ay, ax / fy + ay / fx, 1.0 / (fx * fy))))
    return _pieces(n, width, parts)


def _series(p, n):
    """``G[k] = sum_{d<=k} p^d`` and ``H[k] = sum_{d<=k} p^d / d`` for k = 0..n."""
    d = np.arange(1, n + 1, dtype=np.float64)
    pd = p**d
    G = np.concatenate(([0.0], np.cumsum(pd)))
    H = np.concatenate(([0.0], np.cumsum(pd / d)))
    return G, H


def rbo_lists(x, y, *, p, ties, scores):
    """RBO of each row's two lists.

    Parameters
    ----------
    x, y : Lists
        The two lists of every row (non-empty, each item at most once).
    p : float
        Persistence, 0 < p < 1.
    ties : {"w", "a", "b"}
        The variant.
    scores : sequence of str
        Among ``SCORES``.

    Returns
    -------
    dict of str -> ndarray of shape (n,)
        Each score asked for, clipped to [0, 1] (round-off only).

    Raises
    ------
    RepeatedItem
        A list that holds an item twice.
    """
    n = x.lens.shape[0]
    longer = np.maximum(x.lens, y.lens)
    want = set(scores)
    if "res" in want:
        want |= {"min", "max"}
    out = {s: np.empty(n) for s in want}
    if n == 0:
        return {s: np.empty(0) for s in scores}
    G, H = _series(p, 2 * int(longer.max()) + 1)
    order = np.argsort(longer, kind="stable")
    start = 0
    while start < n:
        step = max(1, BLOCK_ELEMENTS // (2 * int(longer[order[start]]) + 2))
        end = min(n, start + step)
        step = max(1, BLOCK_ELEMENTS // (2 * int(longer[order[end - 1]]) + 2))
        end = min(end, start + step)
        rows = order[start:end]
        try:
            vals = _block(x, y, rows, p, ties, want, G, H)
        except RepeatedItem as exc:
            raise RepeatedItem(exc.side, int(rows[exc.row]), exc.code) from None
        for s, v in vals.items():
            out[s][rows] = v
        start = end
    if "res" in scores:  # max - min, never below 0 by round-off
        out["res"] = np.maximum(out["max"] - out["min"], 0.0)
    return {s: out[s] for s in scores}


def _by_depth(tm, gm, what, width):
    """A (rows, width) matrix of a per-position quantity (column d: position d)."""
    m = np.ones((tm.shape[0], width))
    w = tm.shape[1]
    t, g = tm.astype(np.float64), gm.astype(np.float64)
    if what == "bottom":  # items whose group starts by depth d (w)
        v = t + g - 1
    else:  # sum of c^2 over the list's items (b)
        dd = np.arange(1, w + 1, dtype=np.float64)
        v = (t - 1) + (dd - t + 1) ** 2 / g
    m[:, 1:w + 1] = v
    return m


def _extras(want, xs, ys, r, x_longer, n_short, A_s, sec2, width, tied):
    """The agreement the longer list's items that the other lacks add at the
    depths past the shorter list, for the ``"max"`` and ``"ext"`` scores.
    ``xs``, ``ys``: each side's (mask, tie starts, group sizes, shared positions)."""
    (mx, tx, gx, px), (my, ty, gy, py) = xs, ys
    nb = mx.shape[0]
    d = np.arange(width, dtype=np.float64)
    extra = {}
    un_x = mx & x_longer[:, None]
    un_x[r, px] = False
    un_y = my & ~x_longer[:, None]
    un_y[r, py] = False
    only = np.concatenate((un_x, un_y), axis=1)
    tl = np.concatenate((tx, ty), axis=1)
    gl = np.concatenate((gx, gy), axis=1)
    ur, uc = nonzero_2d(only)
    ut, ug = tl[ur, uc], gl[ur, uc]
    if "max" in want:
        # The k-th of them fills S's position s + k.
        k = row_cumsum(only.astype(np.int64))[ur, uc]
        lo = n_short[ur] + k
        extra["max"] = _pieces(nb, width, _ramp_parts(ur, ut, ug, lo, tied))
    if "ext" in want:
        mean_c = np.divide(
            _pieces(nb, width, _ramp_parts(ur, ut, ug, tied=tied)),
            _pieces(nb, width, [(ur, ut, None, (1.0,))]),
            out=np.zeros((nb, width)), where=sec2)
        extra["ext"] = (d - n_short[:, None]) * A_s[:, None] * mean_c
    return extra


def _block(x, y, rows, p, ties, want, G, H):
    nb = rows.shape[0]
    lx, ly = x.lens[rows], y.lens[rows]
    W = int(max(lx.max(), ly.max()))
    (cx, tx, gx), mx = _padded(x, rows, int(lx.max()))
    (cy, ty, gy), my = _padded(y, rows, int(ly.max()))
    r, px, py = _shared(cx, cy, mx, my)
    width = W + 2  # depths 0..W+1: column d is depth d
    tied = ties != "w" and bool((gx[mx] > 1).any() or (gy[my] > 1).any())
    # The w variant counts an item from its group's top: a ramp of one step.
    X = _overlap(nb, width, r, tx[r, px], gx[r, px], ty[r, py], gy[r, py], tied)
    n_shared = np.bincount(r, minlength=nb).astype(np.float64)
    n_short, n_long = np.minimum(lx, ly), np.maximum(lx, ly)
    x_longer = lx >= ly
    d = np.arange(width, dtype=np.float64)
    sec1 = (d >= 1) & (d <= n_short[:, None])
    sec2 = (d > n_short[:, None]) & (d <= n_long[:, None])

    if ties == "w":
        bx, by_ = _by_depth(tx, gx, "bottom", width), _by_depth(ty, gy, "bottom", width)
        den1 = (bx + by_) / 2
        den_l = (d + np.where(x_longer[:, None], bx, by_)) / 2
    elif ties == "b":
        qx, qy = _by_depth(tx, gx, "sq", width), _by_depth(ty, gy, "sq", width)
        den1 = np.sqrt(qx * qy)
        den_l = np.sqrt(d * np.where(x_longer[:, None], qx, qy))
    else:
        den1 = den_l = np.broadcast_to(np.maximum(d, 1.0), (nb, width))
    A1 = np.divide(X, den1, out=np.zeros((nb, width)), where=sec1)
    A_s = A1[np.arange(nb), n_short]
    uneven = bool((n_short < n_long).any())

    # The L side's items that the other list lacks, in L's order (max, ext).
    extra = {}
    if uneven and want & {"max", "ext"}:
        extra = _extras(want, (mx, tx, gx, px), (my, ty, gy, py), r, x_longer, n_short,
                        A_s, sec2, width, tied)
    pw = p ** d
    pw[0] = 0.0
    q = (1 - p) / p
    sf, lf = n_short.astype(np.float64), n_long.astype(np.float64)
    results = {}
    for score in ("ext", "min", "max"):
        if score not in want:
            continue
        A = A1
        if uneven:
            num = X + extra[score] if score in extra else X
            A = A1 + np.divide(num, den_l, out=np.zeros((nb, width)), where=sec2)
        seen = A @ pw
        if score == "min":
            tail = n_shared * (-math.log1p(-p) - H[n_long])
        elif score == "max":
            f = n_long + n_short - n_shared.astype(np.int64)
            tail = (2 * (G[f] - G[n_long]) - f * (H[f] - H[n_long]) + p ** (f + 1.0) / (1 - p))
        else:
            tail = (n_shared + (lf - sf) * A_s) / lf * p ** (lf + 1) / (1 - p)
        results[score] = np.clip(q * (seen + tail), 0.0, 1.0)
    return results
