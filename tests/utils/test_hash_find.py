"""``hash_find`` (a hash table of 64-bit keys) and ``_find`` (a screen, then
the table) against a plain search of the sorted keys, on keys chosen to share
their home slots (long probe chains), absent queries that land on those chains,
repeated queries, the extreme values and negative int64 keys."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sk_rankmetrics._inputs.preranked import _find
from sk_rankmetrics._utils.hashing import _slots, hash_find

SETTINGS = settings(max_examples=80, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow])


def reference(keys, queries):
    """Index of each query in ``keys`` by a search of the sorted keys."""
    order = np.argsort(keys, kind="stable")
    s = keys[order]
    p = np.minimum(np.searchsorted(s, queries), max(s.shape[0] - 1, 0))
    found = (s[p] == queries) if s.shape[0] else np.zeros(queries.shape[0], dtype=bool)
    return np.where(found, order[p] if s.shape[0] else 0, 0), found


def colliding(rng, n, share):
    """``n`` distinct uint64 keys, ``share`` of them with one home slot in the
    table ``hash_find`` makes for ``n`` keys."""
    bits = max(int(2 * n - 1).bit_length(), 6)
    pool = np.unique(rng.integers(0, 2**64 - 1, 200 * n + 4000, dtype=np.uint64,
                                  endpoint=True))
    home = _slots(pool, np.uint64(64 - bits))
    target = np.bincount(home).argmax()
    same = pool[home == target][:share]
    rest = pool[home != target][: n - same.shape[0]]
    keys = np.concatenate([same, rest])
    rng.shuffle(keys)
    return keys, pool


@SETTINGS
@given(st.data())
def test_hash_find_matches_a_search(data):
    rng = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1)))
    n = data.draw(st.integers(0, 300))
    share = data.draw(st.integers(0, n))
    keys, pool = colliding(rng, n, share) if n else (np.zeros(0, np.uint64),
                                                    np.arange(50, dtype=np.uint64))
    extremes = np.array([0, 1, 2**63, 2**64 - 1], dtype=np.uint64)
    if data.draw(st.booleans()):
        keys = np.unique(np.concatenate([keys, extremes]))
        rng.shuffle(keys)
    m = data.draw(st.integers(0, 500))
    # Queries: keys (some repeated), absent values of the pool (many on the
    # keys' chains), extremes.
    parts = [keys[rng.integers(0, keys.shape[0], m)] if keys.shape[0] else pool[:0],
             pool[rng.integers(0, pool.shape[0], m)], extremes]
    queries = np.concatenate(parts)
    rng.shuffle(queries)
    pos, found = hash_find(keys, queries)
    ref_pos, ref_found = reference(keys, queries)
    np.testing.assert_array_equal(found, ref_found)
    np.testing.assert_array_equal(pos[found], ref_pos[ref_found])
    assert (pos[~found] == 0).all()
    # _find: sorted keys, the same answers through its screen.
    s = np.sort(keys)
    f_pos, f_found = _find(s, queries)
    np.testing.assert_array_equal(f_found, ref_found)
    np.testing.assert_array_equal(s[f_pos[f_found]], queries[f_found])


def test_hash_find_negative_int64_keys():
    keys = np.array([-(2**63), -1, 0, 5, 2**63 - 1, -7], dtype=np.int64)
    queries = np.array([-1, -7, 6, -(2**63), 2**63 - 1, 0, -2, 5], dtype=np.int64)
    pos, found = hash_find(keys, queries)
    assert found.tolist() == [True, True, False, True, True, True, False, True]
    assert (keys[pos[found]] == queries[found]).all()


def test_hash_find_one_home_slot_for_every_key():
    # Every key hashed to one slot: the chain is as long as the keys, and each
    # key, and each absent value on its slot, is still told apart.
    rng = np.random.default_rng(3)
    keys, pool = colliding(rng, 40, 40)
    assert keys.shape[0] == 40
    absent = np.setdiff1d(pool, keys)[:1000]
    pos, found = hash_find(keys, np.concatenate([keys, absent]))
    assert found[:40].all() and not found[40:].any()
    assert (pos[:40] == np.arange(40)).all()


@SETTINGS
@given(st.data())
def test_key_table_grown_in_batches_finds_every_key(data):
    # A KeyTable filled batch by batch (placed into the table it has, or the
    # table remade twice as large) numbers its keys in the order added and
    # finds each of them, and none of the others, after every batch; keys
    # share home slots (long probe chains across batches), extreme values.
    from sk_rankmetrics._utils.hashing import KeyTable

    rng = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1)))
    n = data.draw(st.integers(1, 1000))
    keys, pool = colliding(rng, n, data.draw(st.integers(0, min(n, 60))))
    keys = keys.view(np.int64)
    cuts = sorted(data.draw(st.lists(st.integers(0, n), max_size=8)))
    table = KeyTable()
    for lo, hi in zip([0, *cuts], [*cuts, n]):
        number = table.add(keys[lo:hi])
        np.testing.assert_array_equal(number, np.arange(lo, hi))
        queries = np.concatenate([keys[:hi], pool[:200].view(np.int64),
                                  np.array([-(2**63), 2**63 - 1, 0, -1])])
        pos, found = table.find(queries)
        want_pos, want_found = reference(keys[:hi], queries)
        np.testing.assert_array_equal(found, want_found)
        np.testing.assert_array_equal(pos[found], want_pos[want_found])
        assert 2 * hi <= table.table.shape[0]  # at most half full


@pytest.mark.parametrize(("n_keys", "n_queries"), [(120_000, 40_000), (120_000, 70_000),
                                                   (20_000, 15_000), (20_000, 25_000)])
def test_find_takes_either_route_with_one_answer(n_keys, n_queries, monkeypatch):
    """``_find`` over many keys, where the share of queries picks the hash table
    or the search (:func:`_hash_share`): each route, and the one it picks, give
    the plain search's answers."""
    from sk_rankmetrics._inputs import preranked

    rng = np.random.default_rng(n_keys + n_queries)
    keys = np.unique(rng.integers(-(2**62), 2**62, n_keys))
    queries = np.concatenate([keys[rng.integers(0, keys.shape[0], n_queries // 2)],
                              rng.integers(-(2**62), 2**62, n_queries - n_queries // 2)])
    ref_pos, ref_found = reference(keys, queries)
    answers = [_find(keys, queries)]
    for share in (0.0, np.inf):
        monkeypatch.setattr(preranked, "_hash_share", lambda n, share=share: share)
        answers.append(_find(keys, queries))
    for pos, found in answers:
        np.testing.assert_array_equal(found, ref_found)
        np.testing.assert_array_equal(pos[found], ref_pos[ref_found])
