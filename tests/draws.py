"""Test helper: hypothesis draws shared by the kernels' reference checks."""

from __future__ import annotations

import numpy as np
from hypothesis import strategies as st


def untied_rows(data, levels, max_rows=5, max_items=12):
    """``(y, s)``: 1..``max_rows`` rows of 2..``max_items`` items, relevance
    drawn from ``levels`` (repeat a level to weigh it) and distinct float64
    scores (a permutation of the cells: no two tie)."""
    n, m = data.draw(st.integers(1, max_rows)), data.draw(st.integers(2, max_items))
    y = np.array(data.draw(st.lists(st.sampled_from(levels), min_size=n * m,
                                    max_size=n * m))).reshape(n, m)
    s = np.array(data.draw(st.permutations(range(n * m))), dtype=np.float64).reshape(n, m)
    return y, s


def tied_rows(data, levels):
    """``(y, s, exclude)``: 1..4 rows of 2..7 items, relevance from ``levels``,
    integer scores 0..2 (ties everywhere, the first two of the first row
    tied above the rest) and, half the time, an ``exclude`` mask that leaves
    two candidates a row (its entries' relevance set to 0)."""
    n, m = data.draw(st.integers(1, 4)), data.draw(st.integers(2, 7))
    y = np.array(data.draw(st.lists(st.sampled_from(levels), min_size=n * m,
                                    max_size=n * m))).reshape(n, m)
    s = np.array(data.draw(st.lists(st.integers(0, 2), min_size=n * m,
                                    max_size=n * m))).reshape(n, m)
    s[0, :2] = 5
    exclude = None
    if data.draw(st.booleans()):
        exclude = np.array(data.draw(st.lists(st.booleans(), min_size=n * m,
                                              max_size=n * m))).reshape(n, m)
        exclude[:, :2] = False
        y = np.where(exclude, 0, y)
    return y, s, exclude


def mixed_ties(y, s, exclude=None):
    """Whether a tie of scores joins items of different relevance in some row
    (the items ``exclude`` marks left out): a tie of items of one relevance
    gives every measure one value in every order, and is ranked as no tie."""
    for r in range(y.shape[0]):
        keep = np.ones(y.shape[1], bool) if exclude is None else ~exclude[r]
        yr, sr = y[r][keep], s[r][keep]
        if any(np.unique(yr[sr == v]).shape[0] > 1 for v in np.unique(sr)):
            return True
    return False


def cut_options(data, m):
    """Options of a thresholded measure: ``threshold`` 2 and a ``max_docs``
    of 1..``m``, each half the time."""
    opts = {}
    if data.draw(st.booleans()):
        opts["threshold"] = 2
    if data.draw(st.booleans()):
        opts["max_docs"] = data.draw(st.integers(1, m))
    return opts


def ideal_levels_of(counts, gains, listed):
    """The ideal's levels of rows holding ``counts[row, u]`` items of gain
    ``gains[u]`` (decreasing): counted (:class:`CountedLevels`, empty levels
    kept) or, with ``listed``, from each row's gains sorted
    (:class:`IdealLevels`, empty levels absent)."""
    from sk_rankmetrics._ranking.ideal import CountedLevels, IdealLevels

    if not listed:
        return CountedLevels(counts, gains)
    width = max(int(counts.sum(axis=1).max()), 1)
    rows = np.zeros((counts.shape[0], width))
    for r, c in enumerate(counts):
        g = np.repeat(gains, c)
        rows[r, width - g.shape[0]:] = g[::-1]
    return IdealLevels.from_sorted(rows)


def route_spy(module, name):
    """``(seen, patch)``: a patch of the route ``module.name`` that records
    what each call returned (a chunk, or None where the route declined)."""
    from unittest import mock

    seen = []
    real = getattr(module, name)

    def spy(*a, **kw):
        rc = real(*a, **kw)
        seen.append(rc)
        return rc

    return seen, mock.patch.object(module, name, spy)


def assert_same_results(got, want):
    """Every result of ``want`` (per-row values of ``evaluate``) in ``got``,
    to 1e-12 relative (1e-13 absolute)."""
    for key in want:
        np.testing.assert_allclose(np.asarray(got[key]), np.asarray(want[key]),
                                   rtol=1e-12, atol=1e-13, err_msg=str(key))


def padded_call(y, s, keep, layout):
    """``(args, kw)`` of ``evaluate`` for the rows ``y``, ``s`` of which the
    items ``keep`` are real: under ``"exclude"`` the matrices with the other
    items left out; in the long format (``"long"``) one query per row of its
    kept items, in row order."""
    if layout == "exclude":
        return (y, s), {"exclude": ~keep}
    n = keep.shape[0]
    return (y[keep], s[keep]), {"qid": np.repeat(np.arange(n), keep.sum(axis=1))}
