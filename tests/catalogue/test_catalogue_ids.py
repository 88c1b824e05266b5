"""evaluate_embeddings with user_ids / item_ids: y_true and exclude by id.

Every id form (dict, id tuple, pandas and polars data frames) must give
exactly the numbers of the index form (a sparse matrix over the rows of the
factors), whatever the order of the ids; ids that name no row raise.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import sk_rankmetrics as skr

NAN = float("nan")
METRICS = ["ndcg@3", "recall@5", "map@4", "precision@2", "mrr"]


def _case(seed, n_users, n_items, p_excl=0.3, p_true=0.2):
    rng = np.random.default_rng(seed)
    U = rng.integers(-3, 4, size=(n_users, 3)).astype(np.float32)
    V = rng.integers(-3, 4, size=(n_items, 3)).astype(np.float32)
    E = rng.random((n_users, n_items)) < p_excl
    Y = rng.integers(1, 4, size=(n_users, n_items)) * (rng.random((n_users, n_items)) < p_true)
    Y[E] = 0
    return U, V, Y, E


def _ids(rng, n, kind):
    """``n`` distinct ids in a random order: text, or integers (some negative, -1 among them)."""
    if kind == "str":
        return np.array([f"id{v}" for v in rng.permutation(n * 3)[:n]])
    return rng.permutation(np.arange(-n, 2 * n))[:n].astype(np.int64)


def _form(form, u, i, rel=None):
    """Pairs ``(u, i[, rel])`` (ids) in the form asked for."""
    if form == "tuple":
        return (u, i) if rel is None else (u, i, rel)
    if form == "dict":
        out = {}
        for k in range(u.shape[0]):
            key, item = u[k].item(), i[k].item()
            if rel is None:
                out.setdefault(key, set()).add(item)
            else:
                out.setdefault(key, {})[item] = float(rel[k])
        return out
    cols = {"user_id": u, "item": i}
    if rel is not None:
        cols["rel"] = rel
    if form == "pandas":
        pd = pytest.importorskip("pandas")
        return pd.DataFrame(cols)
    pl = pytest.importorskip("polars")
    return pl.DataFrame(cols)


def _score(*args, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return skr.evaluate_embeddings(*args, no_relevant=NAN, **kw)


FORMS = ["tuple", "dict", "pandas", "polars"]


@settings(max_examples=30, deadline=None, suppress_health_check=list(HealthCheck))
@given(
    seed=st.integers(0, 2**31),
    n_users=st.integers(1, 12),
    n_items=st.integers(1, 25),
    kinds=st.tuples(st.sampled_from(["str", "int"]), st.sampled_from(["str", "int"])),
    forms=st.tuples(st.sampled_from(FORMS), st.sampled_from(FORMS)),
    graded=st.booleans(),
    ignore_ties=st.booleans(),
)
def test_id_forms_give_the_index_forms_numbers(
    seed, n_users, n_items, kinds, forms, graded, ignore_ties
):
    if "polars" in forms:
        pytest.importorskip("polars")
    if "pandas" in forms:
        pytest.importorskip("pandas")
    U, V, Y, E = _case(seed, n_users, n_items)
    if not graded:
        Y = (Y > 0).astype(np.int64)
    rng = np.random.default_rng(seed + 1)
    uids, iids = _ids(rng, n_users, kinds[0]), _ids(rng, n_items, kinds[1])
    k = 4
    want, want_top = _score(
        U,
        V,
        sp.csr_array(Y),
        METRICS,
        k=k,
        exclude=sp.csr_array(E),
        ignore_ties=ignore_ties,
        return_top=True,
    )
    # An excluded item is never in a top list (-1 pads a short one).
    rows = np.broadcast_to(np.arange(n_users)[:, None], want_top.shape)
    assert not E[rows[want_top >= 0], want_top[want_top >= 0]].any()
    assert ((want_top >= 0).sum(axis=1) == np.minimum((~E).sum(axis=1), want_top.shape[1])).all()
    # The pairs by id, in a shuffled order.
    yu, yi = np.nonzero(Y)
    p = rng.permutation(yu.shape[0])
    yu, yi = yu[p], yi[p]
    eu, ei = np.nonzero(E)
    q = rng.permutation(eu.shape[0])
    eu, ei = eu[q], ei[q]
    y_true = _form(forms[0], uids[yu], iids[yi], Y[yu, yi].astype(float) if graded else None)
    exclude = _form(forms[1], uids[eu], iids[ei]) if eu.size else None
    got, top = _score(
        U,
        V,
        y_true,
        METRICS,
        k=k,
        exclude=exclude,
        ignore_ties=ignore_ties,
        return_top=True,
        user_ids=uids,
        item_ids=iids,
    )
    assert list(got.mean) == list(want.mean)
    for m in want.mean:
        np.testing.assert_array_equal(got.per_query[m], want.per_query[m], err_msg=m)
        np.testing.assert_equal(got.mean[m], want.mean[m])
    np.testing.assert_array_equal(got.query_ids, uids)
    # The top lists: the same rows, as ids, padded with a value that is no id.
    assert top.dtype == iids.dtype and top.shape == want_top.shape
    fill = "" if kinds[1] == "str" else min(-1, int(iids.min()) - 1)
    assert fill not in set(iids.tolist())
    expect = np.where(want_top >= 0, iids[np.maximum(want_top, 0)], fill)
    np.testing.assert_array_equal(top, expect)


def test_a_short_top_list_is_padded_with_a_value_that_is_no_id():
    U, V, _, _ = _case(3, 2, 5)
    E = np.zeros((2, 5), dtype=bool)
    E[0, :4] = True  # user 0 keeps one candidate
    Y = np.zeros((2, 5))
    Y[0, 4] = Y[1, 0] = 1
    _, idx = _score(U, V, sp.csr_array(Y), ["recall@3"], exclude=E, return_top=True)
    assert (idx[0, 1:] == -1).all() and idx[0, 0] == 4
    for iids, fill in (
        (np.array([10, 11, 12, 13, 14]), -1),
        (np.array([-1, 0, 5, 7, 9]), -2),
        (np.array([-7, -1, 3, 4, 2]), -8),
        (np.array(["a", "b", "c", "d", "e"]), ""),
    ):
        _, top = _score(
            U,
            V,
            (np.array([0, 1]), iids[[4, 0]]),
            ["recall@3"],
            exclude=(np.zeros(4, dtype=int), iids[:4]),
            return_top=True,
            item_ids=iids,
        )
        assert top.dtype == iids.dtype
        assert top[0, 0] == iids[4]
        assert (top[0, 1:] == fill).all(), (iids, top)
        np.testing.assert_array_equal(top[1], iids[idx[1]])


def test_users_by_id_items_by_index_and_the_reverse():
    U, V, Y, E = _case(11, 5, 9)
    want = _score(U, V, sp.csr_array(Y), METRICS, exclude=E)
    yu, yi = np.nonzero(Y)
    eu, ei = np.nonzero(E)
    names = np.array(["e", "d", "c", "b", "a"])
    got = _score(U, V, (names[yu], yi, Y[yu, yi]), METRICS, exclude=(names[eu], ei), user_ids=names)
    items = np.arange(9)[::-1] * 10
    got2 = _score(
        U, V, (yu, items[yi], Y[yu, yi]), METRICS, exclude=(eu, items[ei]), item_ids=items
    )
    assert list(got.mean) == list(want.mean)
    for m in want.mean:
        np.testing.assert_array_equal(got.per_query[m], want.per_query[m])
        np.testing.assert_array_equal(got2.per_query[m], want.per_query[m])
    np.testing.assert_array_equal(got.query_ids, names)
    np.testing.assert_array_equal(got2.query_ids, np.arange(5))


def test_dicts_and_frames_without_ids_name_rows_by_index():
    pd = pytest.importorskip("pandas")
    U, V, Y, E = _case(12, 4, 7)
    want = _score(U, V, sp.csr_array(Y), METRICS, exclude=E)
    yu, yi = np.nonzero(Y)
    eu, ei = np.nonzero(E)
    frame = pd.DataFrame({"user": yu, "item": yi, "relevance": Y[yu, yi]})
    as_dict = {}
    for u, i in zip(eu.tolist(), ei.tolist()):
        as_dict.setdefault(u, set()).add(i)
    got = _score(U, V, frame, METRICS, exclude=as_dict)
    assert list(got.mean) == list(want.mean)
    for m in want.mean:
        np.testing.assert_array_equal(got.per_query[m], want.per_query[m])
    # Without ids a tuple still holds row and column indices, as before.
    with pytest.raises(ValueError, match=r"item indices of y_true must be integers in 0 \.\. 6"):
        _score(U, V, (yu, yi + 7), METRICS)


def test_a_repeated_training_pair_excludes_once_a_repeated_held_out_pair_raises():
    pd = pytest.importorskip("pandas")
    U, V, Y, E = _case(13, 4, 8)
    eu, ei = np.nonzero(E)
    ids = np.array(["w", "x", "y", "z"])
    want = _score(U, V, sp.csr_array(Y), METRICS, exclude=E)
    twice = pd.DataFrame({"user": ids[np.r_[eu, eu]], "item": np.r_[ei, ei]})
    got = _score(U, V, sp.csr_array(Y), METRICS, exclude=twice, user_ids=ids)
    assert list(got.mean) == list(want.mean)
    for m in want.mean:
        np.testing.assert_array_equal(got.per_query[m], want.per_query[m])
    yu, yi = np.nonzero(Y)
    with pytest.raises(ValueError, match=r"names a \(user, item\) pair twice \(1 repeats\)"):
        _score(U, V, (ids[np.r_[yu, yu[:1]]], np.r_[yi, yi[:1]]), METRICS, user_ids=ids)
    with pytest.raises(ValueError, match=r"names a \(user, item\) pair twice"):
        _score(U, V, (np.r_[yu, yu[:1]], np.r_[yi, yi[:1]]), METRICS)  # indices too


def test_ids_that_name_no_row_raise_counting_them():
    pd = pytest.importorskip("pandas")
    U, V, _, _ = _case(14, 3, 4)
    uids, iids = np.array(["u0", "u1", "u2"]), np.array([100, 200, 300, 400])
    cold = pd.DataFrame({"user": ["u0", "u1", "u1", "u2"], "item": [100, 999, 998, 999]})
    with pytest.raises(
        ValueError,
        match=r"y_true names 2 item id\(s\) that are not in item_ids, in 3 pair\(s\) "
        r"\(the first: 999\)\. An item without factors \(a cold-start item\) cannot be "
        r"ranked; drop its pairs first",
    ):
        _score(U, V, cold, ["ndcg@2"], user_ids=uids, item_ids=iids)
    stranger = {"u0": {100}, "zed": {200}}
    with pytest.raises(ValueError, match=r"exclude names 1 user id\(s\).*'zed'"):
        _score(U, V, cold.iloc[:1], ["ndcg@2"], exclude=stranger, user_ids=uids, item_ids=iids)
    with pytest.raises(ValueError, match=r"gives its items as text, item_ids as integers"):
        _score(U, V, (uids[:1], np.array(["100"])), ["ndcg@2"], user_ids=uids, item_ids=iids)
    with pytest.raises(ValueError, match=r"not a row of user_factors \(0 \.\. 2; pass user_ids="):
        _score(U, V, {0: {1}, 3: {2}}, ["ndcg@2"])


def test_bad_id_mappings_are_errors_naming_the_argument():
    U, V, Y, _ = _case(15, 3, 4)
    with pytest.raises(ValueError, match=r"item_ids gives the id 'a' twice \(at positions 0 and 2"):
        _score(U, V, Y, ["ndcg@2"], item_ids=["a", "b", "a", "c"])
    with pytest.raises(ValueError, match=r"user_ids gives the id 7 twice \(at positions 1 and 2"):
        _score(U, V, Y, ["ndcg@2"], user_ids=[3, 7, 7])
    with pytest.raises(
        ValueError, match=r"user_ids must give one id per row of user_factors \(3\)"
    ):
        _score(U, V, Y, ["ndcg@2"], user_ids=["a", "b"])
    with pytest.raises(skr.InvalidParameterError, match="user_ids"):
        _score(U, V, Y, ["ndcg@2"], user_ids=["a", None, "c"])
    with pytest.raises(skr.InvalidParameterError, match="cannot find the item column of y_true"):
        pd = pytest.importorskip("pandas")
        _score(U, V, pd.DataFrame({"user": [0], "thing": [1]}), ["ndcg@2"])


def test_a_wide_frame_of_numbers_is_still_a_matrix():
    pd = pytest.importorskip("pandas")
    U, V, Y, E = _case(16, 4, 6)
    want = _score(U, V, sp.csr_array(Y), METRICS, exclude=E)
    got = _score(U, V, pd.DataFrame(Y), METRICS, exclude=pd.DataFrame(E))
    assert list(got.mean) == list(want.mean)
    for m in want.mean:
        np.testing.assert_array_equal(got.per_query[m], want.per_query[m])
