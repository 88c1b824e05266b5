"""What ID inputs must satisfy, and the row of each id.

The ranking's and the truth's query ids overlap (a warning names those that
do not match, an error says when none do); no ranked list holds an item twice;
some ranked item is judged. Shared by the ID lists (:mod:`.preranked`) and the
diversity inputs (:mod:`.diversity`).
"""

from __future__ import annotations

import numpy as np

from .._utils.errors import example_ids, plural, shown, warn
from .._utils.fast import sort_keys, unique
from .._utils.nonzero import flatnonzero
from .._utils.text_ids import pack_ids
from .budget import _KEY_LIMIT


def check_overlap(run_q, truth_q, queries, what, *, rows=None):
    """Say so when the ranking's and the truth's query ids do not (all) match.

    Nothing in common raises; a partial overlap warns with the counts, since
    the queries that do not match are left out or score as queries without
    a relevant item. ``rows`` (optional, with ``run_q`` distinct): the index
    in ``run_q`` of each id of ``truth_q``, -1 for none; the test then needs
    no sort of the truth's ids.
    """
    if rows is None:
        run_u, truth_u = unique(run_q), unique(truth_q)
        # Both sorted and distinct: membership by binary search (np.intersect1d
        # and np.setdiff1d sort the two together again).
        run_judged = _sorted_in(run_u, truth_u)
        missing_truth = run_u[~run_judged]
        n_truth = truth_u.size
        missing_run = truth_u[~_sorted_in(truth_u, run_u)]
    else:
        run_judged = np.zeros(run_q.shape[0], dtype=bool)
        if rows.size and int(rows.min()) < 0:
            missing_run = unique(truth_q[rows < 0])
            run_judged[rows[rows >= 0]] = True
        else:
            missing_run = truth_q[:0]
            run_judged[rows] = True
        missing_truth = np.sort(run_q[~run_judged])
        n_truth = int(run_judged.sum()) + missing_run.size
    if n_truth and not run_judged.any():
        raise ValueError(
            f"no {what} of the ranking has judgements: the ranking's ids "
            f"({example_ids(unique(run_q))}) and the truth's ({example_ids(unique(truth_q))}) "
            "have none in common. Check that both use the same ids (and the same type: 1 "
            "and '1' match, 1 and 'q1' do not)."
        )
    notes = []
    if missing_truth.size:
        fate = ("score as having no relevant item" if queries == "run"
                else "are left out")
        notes.append(f"{missing_truth.size} of {run_judged.size} {plural(what)} of the ranking "
                     f"have no judgements ({example_ids(missing_truth)}) and {fate}")
    if missing_run.size and queries != "truth":
        notes.append(f"{missing_run.size} of {n_truth} judged {plural(what)} are not in the "
                     f"ranking ({example_ids(missing_run)}) and are left out (complete=True "
                     "scores them 0)")
    if notes:
        warn("; ".join(notes) + ".", UserWarning)


def _sorted_in(a, b):
    """Whether each entry of ``a`` is in ``b`` (``b`` sorted)."""
    if not b.size:
        return np.zeros(a.shape[0], dtype=bool)
    pos = np.minimum(np.searchsorted(b, a), b.shape[0] - 1)
    return b[pos] == a


#: Ranked items checked for repeats at a time: a block's codes (int32 when they
#: fit) and their sorted rows stay in cache, which halved the time of the row
#: sorts against blocks of 2**22 int64 codes.
_REPEAT_STEP = 1 << 18


def no_repeated_item(indptr, lens, items, codes, row_ids, what, *, coded=True, keys=None):
    """Raise when one ranked list holds an item twice, judged or not.

    With ``coded`` (codes in the truth's vocabulary), items outside the truth
    have code -1 and get codes of their own first (from ``keys``, standing for
    the items in comparisons, when given), unless the lists have one length
    and ``keys`` are integers: those are then compared instead of the codes.
    Without ``coded`` the codes are the item ids themselves, whatever their
    sign. The lists are checked a block of rows at a time (about
    ``_REPEAT_STEP`` items): lists of one length sorted row by row, others by
    (row, code) keys.
    """
    n_items = items.shape[0]
    if n_items < 2:
        return
    if coded and keys is not None and keys.dtype.kind in "iu" and lens.min() == lens.max():
        # Lists of one length are sorted row by row: integer keys (one per id,
        # equal only for equal ids) are compared as they are, and the items
        # outside the truth need no codes (a sort and a binary search of all
        # of them: 0.70 of 2.7 s for 200,000 users' lists of 20 text ids).
        codes = keys
    elif coded:
        unknown = codes < 0
        if unknown.any():
            codes = codes.copy()
            others = (items if keys is None else keys)[unknown]
            inv = np.searchsorted(unique(others), others)  # a sort: no hashed np.unique
            codes[unknown] = int(codes.max(initial=-1)) + 1 + inv
    if lens.min() == lens.max():  # lists of one length: rows sorted, no keys
        found = _repeat_in_rows(codes.reshape(lens.shape[0], int(lens[0])))
    else:
        found = None
        cmin = int(codes.min())
        span = int(codes.max()) - cmin + 1
        firsts = np.searchsorted(indptr, np.arange(0, n_items, _REPEAT_STEP), side="right") - 1
        bounds = [*np.unique(firsts).tolist(), lens.shape[0]]
        for a, b in zip(bounds[:-1], bounds[1:]):
            found = _repeat_in(codes[indptr[a]:indptr[b]], lens[a:b], cmin, span)
            if found is not None:
                found = a + found[0], found[1]
                break
    if found is not None:
        row, dup = found
        start = int(indptr[row])
        at = start + int(flatnonzero(codes[start:indptr[row + 1]] == dup)[0])
        raise ValueError(f"the ranked list of {what} {shown(row_ids[row])!r} holds item "
                         f"{shown(items[at])!r} twice; rank each item once per {what} "
                         "(duplicates='first' keeps its first occurrence).")


def _repeat_in_rows(codes):
    """``(row, code)`` of a code repeated within a row of the matrix ``codes``,
    or None.

    A block of rows at a time (about ``_REPEAT_STEP`` codes) is copied into one
    buffer (int32 when the codes fit), sorted row by row in place, and its
    neighbours compared into one mask: the same two arrays for every block,
    so no block pays for memory handed back to the system by the one before.
    """
    n, w = codes.shape
    if n == 0 or w < 2:
        return None
    lo, hi = int(codes.min()), int(codes.max())
    fits = -(1 << 31) <= lo and hi < (1 << 31)
    step = max(1, _REPEAT_STEP // w)
    buf = np.empty((min(step, n), w), dtype=np.int32 if fits else codes.dtype)
    same = np.empty(buf.size - 1, dtype=bool)
    for a in range(0, n, step):
        block = buf[: min(step, n - a)]
        block[...] = codes[a : a + block.shape[0]]
        block.sort(axis=1)
        s = block.reshape(-1)
        eq = same[: s.shape[0] - 1]
        np.equal(s[1:], s[:-1], out=eq)
        eq[w - 1 :: w] = False  # the pairs that straddle two rows
        if eq.any():
            at = int(flatnonzero(eq)[0])
            return a + at // w, s[at]
    return None


def _narrow(a, lo, hi):
    """``a`` (integers in ``lo..hi``) as int32 when they fit: rows of int32 sort
    twice as fast as rows of int64."""
    if a.dtype.itemsize > 4 and -(1 << 31) <= lo and hi < (1 << 31):
        return a.astype(np.int32)
    return a


def _repeat_in(codes, lens, cmin, span):
    """``(row, code)`` of a code repeated within one row of a block, or None."""
    if lens.size == 0 or int(lens.max()) < 2:
        return None
    if lens.min() == lens.max():
        return _repeat_in_rows(codes.reshape(-1, int(lens[0])))
    rows = np.repeat(np.arange(lens.shape[0]), lens)
    if lens.shape[0] * span < _KEY_LIMIT:
        key = sort_keys(_narrow(rows * span + (codes - cmin), 0, lens.shape[0] * span))
        eq = key[1:] == key[:-1]
        if not eq.any():
            return None
        k = int(key[1:][eq][0])
        return k // span, k % span + cmin
    o = np.lexsort((codes, rows))
    eq = (rows[o][1:] == rows[o][:-1]) & (codes[o][1:] == codes[o][:-1])
    if not eq.any():
        return None
    i = int(o[1:][eq][0])
    return int(rows[i]), codes[i]


def rows_of(u_sorted, u_order, ids):
    """The row of each id (``u_sorted[i]`` is the id of row ``u_order[i]``),
    -1 for an id of no row. Integer ids in a compact range are looked up in a
    table; others are found by binary search."""
    n = u_sorted.shape[0]
    if n == 0:
        return np.full(ids.shape[0], -1, dtype=np.intp)
    if u_sorted.dtype.kind in "iu" and ids.dtype.kind in "iu":
        lo, hi = int(u_sorted[0]), int(u_sorted[-1])
        if hi - lo < 4 * (n + ids.shape[0]):
            # int32 rows when they fit: half the memory to page in and read.
            table = np.full(hi - lo + 1, -1, dtype=np.int32 if n < 2**31 else np.intp)
            table[np.subtract(u_sorted, lo, dtype=np.intp)] = u_order
            if ids.size and lo <= int(ids.min()) and int(ids.max()) <= hi:
                return table[np.subtract(ids, lo, dtype=np.intp) if lo else ids]
            rows = np.full(ids.shape[0], -1, dtype=np.intp)
            inside = (ids >= lo) & (ids <= hi)
            rows[inside] = table[np.subtract(ids[inside], lo, dtype=np.intp)]
            return rows
    pos = np.minimum(np.searchsorted(u_sorted, ids), n - 1)
    return np.where(u_sorted[pos] == ids, u_order[pos], -1)


def any_in(a, b, a_indptr=None, b_indptr=None):
    """Whether some entry of ``a`` is in ``b``.

    A match in a small prefix spares the whole test: with the row pointers of
    both (``a`` and ``b`` split in the same rows), the first rows of each are
    compared (an item ranked for a user and judged for that user is in ``b``);
    without them, the first entries of ``a`` against all of ``b``. Text ids of
    at most 8 characters below U+0100 are compared as their packed integers
    (:func:`pack_ids`: NumPy's membership test sorts text several times
    slower).
    """
    if a.dtype.kind == "U" and b.dtype.kind == "U":
        ka, kb = pack_ids(a), pack_ids(b)
        if ka is not None and kb is not None:
            a, b = ka, kb
    if a_indptr is not None and b_indptr is not None and a_indptr.shape[0] > 1:
        rows = max(int(np.searchsorted(a_indptr, _PREFIX, side="right")) - 1, 1)
        rows = min(rows, int(np.searchsorted(b_indptr, _PREFIX, side="right")) - 1)
        rows = max(rows, 1)
        head_a, head_b = a[: a_indptr[rows]], b[: b_indptr[rows]]
        if bool(np.isin(head_a, head_b).any()):
            return True
    head = a[:_PREFIX]
    return bool(np.isin(head, b).any()) or (a.shape[0] > head.shape[0]
                                             and bool(np.isin(a, b).any()))


#: Entries of the prefix :func:`any_in` tries first.
_PREFIX = 4096
