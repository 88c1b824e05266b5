"""The data of the beyond-accuracy measures: lists, catalogue, popularity, features.

Each argument is read once into sorted ids and arrays per id; the recommended
items are coded once (their sorted distinct ids, the *vocabulary*) and every
look-up is then done per distinct recommended item, not per entry. A
recommended item that an argument does not know is an error naming it.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import scipy.sparse as sp

from .._inputs.id_pairs import ITEM_COLUMNS, QUERY_COLUMNS
from .._utils.arrays import as_ids, id_array, refuse_first
from .._utils.errors import InvalidParameterError, short_repr, shown
from .._utils.fast import sort_keys, unique
from .._utils.nonzero import flatnonzero
from .kernels import TopLists

#: Rows of lists checked for repeats at a time (bounds the sort's temporaries).
_REPEAT_STEP = 1 << 22


def same_kind(a, b):
    """Two id arrays as one comparable type: int64 for both, else str for both."""
    if a.dtype.kind in "iu" and b.dtype.kind in "iu":
        return a.astype(np.int64, copy=False), b.astype(np.int64, copy=False)
    return a.astype(str), b.astype(str)


def positions(vocab, values):
    """Position of each of ``values`` in the sorted distinct ``vocab``; -1 if absent.

    Integers in a compact range are looked up in a table (no binary search).
    """
    vocab, values = same_kind(vocab, values)
    n = vocab.shape[0]
    if n == 0:
        return np.full(values.shape[0], -1, dtype=np.int64)
    if vocab.dtype.kind == "i":
        lo, hi = int(vocab[0]), int(vocab[-1])
        if hi - lo < 4 * (n + values.shape[0]):
            table = np.full(hi - lo + 1, -1, dtype=np.int64)
            table[vocab - lo] = np.arange(n)
            if values.size and lo <= values.min() and values.max() <= hi:
                return table[values - lo]  # every value in range: no mask
            out = np.full(values.shape[0], -1, dtype=np.int64)
            inside = (values >= lo) & (values <= hi)
            out[inside] = table[values[inside] - lo]
            return out
    p = np.minimum(np.searchsorted(vocab, values), n - 1)
    return np.where(vocab[p] == values, p, -1).astype(np.int64)


def top_lists(lens, flat, k, users, what="user", checked=False):
    """Cut each list to its first ``k`` items and code them.

    Returns ``(TopLists, vocabulary, keep)``: the codes index the sorted
    distinct recommended ids ``vocabulary``; ``keep`` marks the entries of
    ``flat`` inside the cut-off. An item twice in one list raises (unless
    ``checked``: the caller refused repeats in the whole lists already).
    """
    lens = np.asarray(lens, dtype=np.int64)
    flat = as_ids(
        np.asarray(flat) if not hasattr(flat, "dtype") else flat, "the ranked item ids"
    )
    starts = np.cumsum(lens) - lens
    keep = None
    if k is not None and lens.size and int(lens.max()) > k:
        pos = np.arange(flat.shape[0]) - np.repeat(starts, lens)
        keep = pos < k
        flat = flat[keep]
        lens = np.minimum(lens, k)
    indptr = np.concatenate(([0], np.cumsum(lens))).astype(np.int64)
    vocab = unique(flat)
    codes = positions(vocab, flat)
    lists = TopLists(indptr, codes, vocab.shape[0])
    if not checked:
        _no_repeats(lists, vocab, users, what)
    return lists, vocab, keep


def _no_repeats(lists, vocab, users, what):
    """Raise naming the user and the item when a list holds an item twice."""
    lens, codes, indptr = lists.lens, lists.codes, lists.indptr
    if codes.shape[0] < 2 or int(lens.max()) < 2:
        return
    firsts = np.searchsorted(indptr, np.arange(0, codes.shape[0], _REPEAT_STEP), side="right") - 1
    bounds = [*np.unique(firsts).tolist(), lens.shape[0]]
    for a, b in zip(bounds[:-1], bounds[1:]):
        block, bl = codes[indptr[a] : indptr[b]], lens[a:b]
        if bl.size and bl.min() == bl.max():
            s = np.sort(block.reshape(-1, int(bl[0])), axis=1)
            eq = (s[:, 1:] == s[:, :-1]).any(axis=1)
            if not eq.any():
                continue
            row = a + int(flatnonzero(eq)[0])
        else:
            rows = np.repeat(np.arange(bl.shape[0]), bl)
            key = sort_keys(rows * np.int64(lists.n_codes) + block)
            eq = key[1:] == key[:-1]
            if not eq.any():
                continue
            row = a + int(key[1:][eq][0] // lists.n_codes)
        mine = codes[indptr[row] : indptr[row + 1]]
        s = np.sort(mine)
        dup = s[1:][s[1:] == s[:-1]][0]
        raise InvalidParameterError(
            f"the ranked list of {what} {shown(users[row])!r} holds item "
            f"{shown(vocab[dup])!r} twice; rank each item once per {what}."
        )


# -- the arguments ------------------------------------------------------------------


def catalogue(items):
    """The sorted distinct ids of ``items=``; an id listed twice raises."""
    ids = as_ids(
        items, "items (the catalogue)"
    )
    s = np.sort(ids)
    if s.shape[0] > 1 and (s[1:] == s[:-1]).any():
        dup = s[1:][s[1:] == s[:-1]][0]
        raise InvalidParameterError(
            f"items (the catalogue) lists item {shown(dup)!r} twice; "
            "give each item of the catalogue once."
        )
    if s.shape[0] == 0:
        raise InvalidParameterError(
            "items (the catalogue) is empty; give every item that could be recommended."
        )
    return s


class Popularity:
    """Training popularity per item, sorted by id.

    ``ids`` (sorted, distinct), ``share`` (the share of training users who
    interacted with each item, in (0, 1]) and ``count`` (the number of
    training users per item; None when only shares were given).
    """

    def __init__(self, ids, share, count=None, n_users=None):
        self.ids, self.share, self.count, self.n_users = ids, share, count, n_users

    def order(self):
        """Ids from most to least popular, ties by ascending id (positions in ``ids``)."""
        return np.argsort(-self.weight(), kind="stable")

    def weight(self):
        """Each item's interactions (the counts, else the shares: proportional)."""
        return self.share if self.count is None else self.count.astype(np.float64)

    def head(self, head_share):
        """Whether each id is in the head: the most popular items whose
        interactions first reach ``head_share`` of all training interactions."""
        order = self.order()
        weight = self.weight()[order]
        reached = np.cumsum(weight) >= head_share * weight.sum() * (1 - 1e-12)
        n_head = int(np.argmax(reached)) + 1
        out = np.zeros(self.ids.shape[0], dtype=bool)
        out[order[:n_head]] = True
        return out

    def top(self, k):
        """Whether each id is among the ``k`` most popular (ties by ascending id)."""
        out = np.zeros(self.ids.shape[0], dtype=bool)
        out[self.order()[:k]] = True
        return out


def _frame_columns(df, arg):
    have = [str(c) for c in df.columns]
    out = []
    for role, names in (("user", QUERY_COLUMNS), ("item", ITEM_COLUMNS)):
        found = [c for c in names if c in have]
        if len(found) != 1:
            what = "no" if not found else f"{len(found)} ({', '.join(found)})"
            raise InvalidParameterError(
                f"{arg} as a data frame needs one {role} column, found {what}: looked for "
                f"{list(names)} among {have}; rename the one to use."
            )
        out.append(np.asarray(df[found[0]].to_numpy()))
    return out


def popularity(value):
    """A :class:`Popularity` from ``popularity=``: (user ids, item ids) of the
    training interactions (a pair of arrays, a data frame with user and item
    columns, or a users x items sparse matrix: row and column indices of its
    stored non-zero entries), or a mapping item -> share in (0, 1]."""
    arg = "popularity"
    if isinstance(value, Mapping):
        ids = as_ids(list(value.keys()), "the ids of popularity")
        try:
            share = np.array(list(value.values()), dtype=np.float64)
        except (TypeError, ValueError):
            raise InvalidParameterError(
                "popularity as a mapping must map items to shares (numbers in (0, 1])."
            ) from None
        bad = ~((share > 0) & (share <= 1))
        refuse_first(bad, lambda i: (
            f"popularity gives item {shown(ids[i])!r} the share {float(share[i])!r}; a "
            "share of training users must be in (0, 1]. Pass the training interactions "
            "(user_ids, item_ids) to have the package count them."))
        order = np.argsort(ids, kind="stable")
        ids, share = ids[order], share[order]
        if ids.shape[0] > 1 and (ids[1:] == ids[:-1]).any():
            dup = ids[1:][ids[1:] == ids[:-1]][0]
            raise InvalidParameterError(f"popularity gives item {shown(dup)!r} twice.")
        return Popularity(ids, share)
    if hasattr(value, "columns") and hasattr(value, "to_numpy"):
        u, i = _frame_columns(value, arg)
    elif sp.issparse(value):
        if value.ndim != 2:
            raise InvalidParameterError(
                f"popularity as a sparse matrix must be 2-D (users x items), got "
                f"{value.ndim}-D."
            )
        u, i = sp.csr_array(value).nonzero()  # stored non-zero entries: interactions
    elif isinstance(value, (tuple, list)) and len(value) == 2:
        u, i = value
    else:
        raise InvalidParameterError(
            "popularity must be the training interactions as a pair (user_ids, item_ids), "
            "a data frame with user and item columns or a users x items scipy.sparse "
            "matrix, or a mapping item -> share of "
            f"training users in (0, 1]; got {short_repr(value)}."
        )
    u = as_ids(u, "the user ids of popularity")
    i = as_ids(i, "the item ids of popularity")
    if u.shape != i.shape:
        raise InvalidParameterError(
            f"popularity's user ids and item ids must have one "
            f"length, got {u.shape[0]} and {i.shape[0]}."
        )
    if u.shape[0] == 0:
        raise InvalidParameterError("popularity holds no interaction.")
    users = unique(u)
    ucode = positions(users, u)
    ids = unique(i)
    icode = positions(ids, i)
    # Distinct users per item: distinct (item, user) pairs, counted per item.
    pairs = unique(icode * np.int64(users.shape[0]) + ucode)
    count = np.bincount(pairs // users.shape[0], minlength=ids.shape[0])
    return Popularity(ids, count / users.shape[0], count, users.shape[0])


def features(value):
    """``(sorted ids, unit feature rows)`` from ``item_features=``: a pair
    ``(ids, matrix)``, a mapping id -> vector, or a data frame indexed by id."""
    if isinstance(value, Mapping):
        ids = id_array(list(value.keys()))
        try:
            mat = np.array([np.asarray(v, dtype=np.float64) for v in value.values()])
        except (TypeError, ValueError):
            raise InvalidParameterError(
                "item_features as a mapping must map ids to numeric vectors of one length."
            ) from None
    elif hasattr(value, "index") and hasattr(value, "to_numpy") and hasattr(value, "columns"):
        ids = np.asarray(value.index)
        try:
            mat = value.to_numpy(dtype=np.float64)
        except (TypeError, ValueError):
            raise InvalidParameterError(
                "item_features as a data frame must hold numbers only (indexed by item id)."
            ) from None
    elif isinstance(value, (tuple, list)) and len(value) == 2:
        ids = value[0]
        try:
            mat = np.asarray(value[1], dtype=np.float64)
        except (TypeError, ValueError):
            raise InvalidParameterError(
                "item_features as (ids, matrix) needs a numeric matrix."
            ) from None
    else:
        raise InvalidParameterError(
            "item_features must be a pair (ids, matrix of one row per id), a mapping id -> "
            f"vector or a data frame indexed by item id; got {short_repr(value)}."
        )
    ids = as_ids(ids, "the ids of item_features")
    if mat.ndim != 2 or mat.shape[0] != ids.shape[0] or mat.shape[1] == 0:
        raise InvalidParameterError(
            f"item_features must give one vector per id: {ids.shape[0]} ids and a matrix "
            f"of shape {mat.shape}."
        )
    if not np.isfinite(mat).all():
        row = int(flatnonzero(~np.isfinite(mat).all(axis=1))[0])
        raise InvalidParameterError(
            f"item_features gives item {shown(ids[row])!r} a non-finite value (NaN or infinity)."
        )
    order = np.argsort(ids, kind="stable")
    ids, mat = ids[order], mat[order]
    if ids.shape[0] > 1 and (ids[1:] == ids[:-1]).any():
        dup = ids[1:][ids[1:] == ids[:-1]][0]
        raise InvalidParameterError(f"item_features gives item {shown(dup)!r} twice.")
    return ids, mat


def locate(known, vocab, arg, label, role):
    """Positions of the recommended ids ``vocab`` among ``known``; an id
    missing raises naming it, the measure and the argument."""
    pos = positions(known, vocab)
    if (pos < 0).any():
        missing = vocab[pos < 0]
        more = f" (and {missing.shape[0] - 1} more)" if missing.shape[0] > 1 else ""
        raise InvalidParameterError(
            f"{label}: the recommended item {shown(missing[0])!r}{more} is not in {arg} "
            f"({role}); every recommended item needs one."
        )
    return pos


def unit_rows(mat, ids, label):
    """Rows of ``mat`` scaled to unit length, whatever their scale.

    Each row is first divided by its largest absolute entry, so its squared
    length lies in [1, d] and neither overflows (entries past 1e154) nor
    underflows (entries under 1e-154); only an exact zero row, which has no
    direction, raises."""
    scale = np.abs(mat).max(axis=1)
    if (scale == 0).any():
        i = int(flatnonzero(scale == 0)[0])
        raise InvalidParameterError(
            f"{label}: item_features gives the recommended item {shown(ids[i])!r} a zero "
            "vector, whose cosine similarity is undefined."
        )
    scaled = mat / scale[:, None]
    norm = np.sqrt(np.einsum("ij,ij->i", scaled, scaled))
    return scaled / norm[:, None]


def relevant_flags(users, lens, flat, truth_users, truth_items, truth_rel=None, threshold=None):
    """Whether each entry of the lists ``(users, lens, flat)`` is relevant to
    its user: the truth names the (user, item) pair with a relevance >
    0 (>= ``threshold`` when given). A negative level is never relevant (an
    item in the pool, not judged, as for the accuracy metrics): a threshold
    at or below one raises."""
    tu = as_ids(truth_users, "the truth's user ids")
    ti = as_ids(truth_items, "the truth's item ids")
    if truth_rel is not None:
        rel = np.asarray(truth_rel, dtype=np.float64)
        good = rel > 0 if threshold is None else rel >= threshold
        if threshold is not None and threshold < 0 and (good & (rel < 0)).any():
            level = float(rel[good & (rel < 0)].max())
            raise ValueError(
                f"threshold={threshold:g} would count level {level:g} as relevant, but a "
                "negative level of an id truth marks an item in the pool that is not "
                "judged relevant (trec_eval's reading): it is never relevant. Accepted: "
                "threshold >= 0 (0 counts every judged level as relevant), or levels "
                "shifted up before scoring."
            )
        tu, ti = tu[good], ti[good]
    flat = as_ids(flat, "the ranked item ids")
    if flat.shape[0] == 0 or ti.shape[0] == 0:
        return np.zeros(flat.shape[0], dtype=bool)
    uvocab = unique(as_ids(users, "the user ids"))
    urow = positions(uvocab, tu)
    ivocab = unique(flat)
    icode = positions(ivocab, ti)
    ok = (urow >= 0) & (icode >= 0)
    truth_keys = unique(urow[ok] * np.int64(ivocab.shape[0]) + icode[ok])
    rec_rows = np.repeat(positions(uvocab, as_ids(users, "the user ids")), lens)
    rec_keys = rec_rows * np.int64(ivocab.shape[0]) + positions(ivocab, flat)
    return positions(truth_keys, rec_keys) >= 0
