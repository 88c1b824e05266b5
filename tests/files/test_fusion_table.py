"""fuse's candidate table (_files/fusion_table.py): ids packed into keys in
their order, every way of keying the documents giving the same fused run,
runs given out of order, the block and the whole-array sort, the ranking's
exact repair of scores tied in their dropped bits; against a fusion written
with a Python loop over queries and documents."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sk_rankmetrics import TrecRun, fuse
from sk_rankmetrics._files import fusion, fusion_table
from sk_rankmetrics._files.fusion_table import PackedIds, rank_within_queries
from sk_rankmetrics._utils.text_ids import pack_ids, unpack_ids

#: Untrained methods and normalisations whose table paths differ.
CASES = [("rrf", None, {"k": 10}), ("rbc", None, {}), ("isr", None, {}),
         ("logn_isr", None, {}), ("sum", None, {}), ("sum", "zmuv", {}),
         ("wsum", "min-max", {"weights": [0.2, 0.5, 0.3]}), ("anz", "sum", {}),
         ("mnz", "max", {}), ("gmnz", "min-max", {"gamma": 1.5}),
         ("wmnz", "zmuv", {"weights": [1.0, -0.5, 2.0]}),
         ("mixed", "rank", {"weights": [0.2, 0.5, 0.3]}), ("max", "min-max", {}),
         ("min", None, {}), ("med", "zmuv", {}), ("bordafuse", None, {}),
         ("sum", "borda", {}), ("condorcet", None, {})]


def _ids(rng, n, alphabet, longest, shortest=0):
    return ["".join(rng.choice(list(alphabet), size=int(rng.integers(shortest, longest + 1))))
            for _ in range(n)]


def make_runs(seed, n_runs=3, n_q=7, pool=25, alphabet="0123456789", longest=6,
              ties=True, sizes=None, shortest=0, missing=0.15):
    """Runs as (qid, docno, score) arrays, ranked within each query (ties in
    the order given), documents missing across runs, some queries absent
    from some runs."""
    rng = np.random.default_rng(seed)
    names = sorted(set(_ids(rng, pool * 3, alphabet, longest, shortest)))
    runs = []
    for r in range(n_runs):
        q, d, s = [], [], []
        for i in range(n_q):
            if r and rng.random() < missing:
                continue  # this run lacks the query
            n = int(sizes[r][i] if np.ndim(sizes) == 2 else sizes[i]) if sizes is not None \
                else int(rng.integers(1, pool + 1))
            docs = rng.choice(len(names), size=min(n, len(names)), replace=False)
            score = rng.normal(size=docs.shape[0]) * (r + 1)
            score = np.round(score, 0) if ties else score
            order = np.argsort(-score, kind="stable")
            q += [f"q{i}"] * docs.shape[0]
            d += [names[j] for j in docs[order]]
            s += score[order].tolist()
        runs.append((np.array(q), np.array(d), np.array(s)))
    return runs


def as_trec(runs):
    return [TrecRun(q, d, s, tag=f"r{i}") for i, (q, d, s) in enumerate(runs)]


def rows_of(out):
    return list(zip(out.qid.tolist(), out.docno.tolist(), out.score.tolist()))


def reference_fuse(runs, method, norm, params):
    """rrf, wsum, sum, anz or mnz (no norm, min-max or max) by loops: scores
    per query and document, then sorted by score descending, docno ascending."""
    per_run = []
    for q, d, s in runs:
        by_q = {}
        for qi, di, si in zip(q.tolist(), d.tolist(), s.tolist()):
            by_q.setdefault(qi, []).append((di, si))
        out = {}
        for qi, docs in by_q.items():
            scores = [si for _, si in docs]
            hi, lo = max(scores), min(scores)
            for pos, (di, si) in enumerate(docs):
                v = si
                if norm == "min-max":
                    v = (si - lo) / max(hi - lo, 1e-9)
                elif norm == "max":
                    v = si / max(hi, 1e-9)
                out[qi, di] = (pos, v)
        per_run.append(out)
    fused = {}
    keys = sorted({k for run in per_run for k in run})
    for key in keys:
        total, n = 0.0, 0
        for r, run in enumerate(per_run):
            if key in run:
                pos, v = run[key]
                n += 1
                if method == "rrf":
                    total += 1.0 / (params.get("k", 60) + pos + 1.0)
                elif method == "wsum":
                    total += params["weights"][r] * v
                else:
                    total += v
        fused[key] = total / n if method == "anz" else total * n if method == "mnz" else total
    ranked = sorted(fused.items(), key=lambda kv: (kv[0][0], -kv[1], kv[0][1]))
    return [(q, d, v) for (q, d), v in ranked]


def assert_same_rows(got, want):
    assert [(q, d) for q, d, _ in got] == [(q, d) for q, d, _ in want]
    np.testing.assert_allclose([v for *_, v in got], [v for *_, v in want],
                               rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("method,norm,params", [
    ("rrf", None, {"k": 60}), ("wsum", "min-max", {"weights": [0.2, 0.5, 0.3]}),
    ("sum", "max", {}), ("anz", None, {}), ("mnz", "min-max", {})])
@pytest.mark.parametrize("seed", range(4))
def test_fuse_equals_a_loop_over_queries(method, norm, params, seed):
    runs = make_runs(seed, ties=method != "rrf")
    got = rows_of(fuse(as_trec(runs), method=method, norm=norm, **params))
    assert_same_rows(got, reference_fuse(runs, method, norm, params))


@pytest.mark.parametrize("method,norm,params", [
    ("rrf", None, {"k": 60}), ("wsum", "min-max", {"weights": [0.2, 0.5, 0.3]}),
    ("sum", "max", {}), ("mnz", "min-max", {})])
@pytest.mark.parametrize("seed", range(3))
def test_runs_as_long_for_every_query_fill_the_block(method, norm, params, seed):
    """Each run as long for every query (its own length: 1,000 documents a
    query in a retrieval run): the block is filled run by run, not scattered."""
    lengths = [[n] * 7 for n in (25, 12, 1)]
    runs = make_runs(seed, ties=method != "rrf", sizes=lengths, missing=0.0)
    assert [np.unique(np.unique(q, return_counts=True)[1]).tolist() for q, _, _ in runs] \
        == [[25], [12], [1]]
    got = rows_of(fuse(as_trec(runs), method=method, norm=norm, **params))
    assert_same_rows(got, reference_fuse(runs, method, norm, params))


@pytest.mark.parametrize("method,norm,params", CASES)
def test_every_document_key_gives_the_same_run(method, norm, params, monkeypatch):
    """Packed ids, packed by a mixed radix, numbered in sorted order, and ids
    read from a file (the reader's codes): identical fused runs."""
    runs = make_runs(3, alphabet="abz09", longest=8)
    packed = rows_of(fuse(as_trec(runs), method=method, norm=norm, **params))
    assert_same_rows(packed, reference_order(packed))
    with monkeypatch.context() as m:  # too few bits for the plain packing: the mixed radix
        m.setattr(fusion, "key_bits", lambda q_runs, n_q: 28)
        built = []
        m.setattr(fusion_table.PackedIds, "__init__", _spy(PackedIds.__init__, built))
        radix = rows_of(fuse(as_trec(runs), method=method, norm=norm, **params))
        assert built and built[0].radix is not None
    with monkeypatch.context() as m:
        m.setattr(fusion_table, "pack_ids", lambda values, out=None: None)
        numbered = rows_of(fuse(as_trec(runs), method=method, norm=norm, **params))
    assert radix == packed and numbered == packed


def _spy(init, built):
    def wrapped(self, keys, bits, stats=None):
        init(self, keys, bits, stats)
        built.append(self)
    return wrapped


def reference_order(rows):
    """The rows sorted by query, score descending, docno ascending."""
    return sorted(rows, key=lambda r: (r[0], -r[2], r[1]))


def test_ids_from_a_file_give_the_same_run(tmp_path):
    runs = make_runs(5, alphabet="abcxyz-_", longest=12, shortest=1)
    paths = []
    for i, (q, d, s) in enumerate(runs):
        path = tmp_path / f"run{i}.txt"
        path.write_text("".join(f"{a} Q0 {b} {k} {v!r} r{i}\n"
                                for k, (a, b, v) in enumerate(zip(q, d, s.tolist()))))
        paths.append(path)
    for method, norm in [("rrf", None), ("wsum", "zmuv"), ("med", "min-max")]:
        assert rows_of(fuse(paths, method=method, norm=norm)) == \
            rows_of(fuse(as_trec(runs), method=method, norm=norm))


def test_long_and_wide_ids_are_numbered():
    """Ids over 8 characters or beyond U+00FF: numbered, same order of ties."""
    for alphabet, longest in [("ab", 12), ("aé日", 4)]:
        runs = make_runs(11, alphabet=alphabet, longest=longest)
        assert pack_ids(np.concatenate([d for _, d, _ in runs])) is None
        got = rows_of(fuse(as_trec(runs), method="sum", norm="max"))
        assert_same_rows(got, reference_fuse(runs, "sum", "max", {}))


def _stable_shuffle(rng, q, d, s):
    """The entries in a random order that keeps each tie (query, score) in
    its given order: a run neither grouped by query nor ranked."""
    perm = rng.permutation(q.shape[0])
    slots = {}
    for i in perm.tolist():
        slots.setdefault((q[i], s[i]), []).append(i)
    out = perm.copy()
    for members in slots.values():
        where = sorted(np.flatnonzero(np.isin(perm, members)).tolist())
        out[where] = sorted(members)
    return q[out], d[out], s[out]


@pytest.mark.parametrize("method,norm,params", CASES)
def test_runs_out_of_order_give_the_same_run(method, norm, params):
    rng = np.random.default_rng(8)
    runs = make_runs(9)
    shuffled = [_stable_shuffle(rng, *run) for run in runs]
    assert any((a[0] != b[0]).any() for a, b in zip(runs, shuffled))
    assert rows_of(fuse(as_trec(shuffled), method=method, norm=norm, **params)) == \
        rows_of(fuse(as_trec(runs), method=method, norm=norm, **params))


def test_uneven_queries_take_the_whole_array_sort():
    """One query of 400 documents beside 60 of one: no padded block."""
    sizes = np.ones(61, dtype=int)
    sizes[3] = 400
    runs = make_runs(4, n_q=61, pool=500, longest=5, sizes=sizes)
    for method, norm, params in [("rrf", None, {}), ("wsum", "min-max",
                                                      {"weights": [1.0, 2.0, 0.5]})]:
        got = rows_of(fuse(as_trec(runs), method=method, norm=norm, **params))
        assert_same_rows(got, reference_fuse(runs, method, norm, params))


def test_a_document_twice_in_a_run_is_refused():
    runs = make_runs(2)
    q, d, s = runs[1]
    d = d.copy()
    d[1] = d[0] if q[1] == q[0] else d[1]
    assert q[1] == q[0]
    with pytest.raises(ValueError, match=r"runs\[1\] ranks a document twice"):
        fuse([as_trec(runs)[0], TrecRun(q, d, s)], method="rrf")


@settings(max_examples=60, deadline=None)
@given(ids=st.lists(st.text(alphabet=st.characters(max_codepoint=255, exclude_characters="\x00"),
                            max_size=8), min_size=1, max_size=40))
def test_packed_ids_keep_the_order_and_come_back(ids):
    values = np.array(ids)
    keys = pack_ids(values)
    assert keys is not None
    assert np.argsort(keys, kind="stable").tolist() == \
        np.argsort(values, kind="stable").tolist()
    for bits in (63, 24):
        try:
            packed = PackedIds([keys[:3].copy(), keys[3:].copy()], bits)  # shifted in place
        except OverflowError:
            assert bits == 24
            continue
        every = np.concatenate(packed.keys)
        assert int(every.max()) < 1 << bits
        assert np.argsort(every, kind="stable").tolist() == \
            np.argsort(values, kind="stable").tolist()
        assert packed.strings(every).tolist() == ids


@pytest.mark.parametrize("width", range(1, 9))
def test_unpacked_ids_from_strided_keys(width):
    rng = np.random.default_rng(width)
    chars = rng.integers(1, 256, size=(50, width))
    chars[rng.random((50, width)) < 0.3] = 0  # shorter ids, and interior NULs
    chars[:, 0] = rng.integers(1, 256, size=50)
    values = np.array(["".join(map(chr, row)) for row in chars.tolist()])
    keys = np.repeat(pack_ids(values), 2)[::2]  # a strided view
    out = unpack_ids(keys, width)
    assert out.dtype == np.dtype(f"U{width}")
    assert out.tolist() == values.tolist()
    assert unpack_ids(keys[:0], width).shape == (0,)
    from sk_rankmetrics._utils import text_ids

    # A column at a time (few ids) or in one copy (many): the same text.
    with pytest.MonkeyPatch.context() as m:
        m.setattr(text_ids, "_COLUMN_ROWS", 0)
        assert unpack_ids(keys, width).tolist() == values.tolist()


def test_ids_that_do_not_pack():
    assert pack_ids(np.array(["abcdefghi"])) is None  # 9 characters
    assert pack_ids(np.array(["aĀ"])) is None  # U+0100
    assert pack_ids(np.array(["", "a"])).tolist()[0] == 0


@settings(max_examples=80, deadline=None)
@given(data=st.data())
def test_ranking_equals_a_stable_sort(data):
    """Scores tied exactly, apart by one or a few units in the last place
    (inside the bits the block sort drops), signed zeros, uneven queries."""
    n_q = data.draw(st.integers(1, 6))
    sizes = data.draw(st.lists(st.integers(1, 40), min_size=n_q, max_size=n_q))
    if data.draw(st.booleans()):
        sizes[0] = 300  # uneven: the whole-array sort
    n = sum(sizes)
    rng = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1)))
    base = rng.choice([0.0, -0.0, 1.0 / 61 + 1.0 / 63, 0.5, -2.5, 1e300], size=n)
    ulps = rng.integers(-3, 4, size=n) * rng.integers(0, 2, size=n)
    fused = base + ulps * np.spacing(np.abs(base) + 1e-300)
    q_of_row = np.repeat(np.arange(n_q), sizes)
    order, ranked = rank_within_queries(fused, q_of_row, n_q)
    assert ranked.tolist() == fused[order].tolist()
    want = np.lexsort((np.arange(n), -(fused + 0.0), q_of_row))
    assert order.tolist() == want.tolist()


@pytest.mark.parametrize("method,norm,params", CASES)
def test_blocks_of_queries_give_the_same_run(method, norm, params, monkeypatch):
    """Fused a few queries at a time (blocks of 1 to 40 entries: a query of
    more is a block of its own) or all at once: the same run, from runs that
    list their queries in different orders and lack some."""
    runs = make_runs(12, n_q=9)
    runs[1] = tuple(a[::-1] for a in runs[1])  # queries (and ranks) reversed
    runs[1] = _stable_shuffle(np.random.default_rng(1), *runs[1])
    whole = rows_of(fuse(as_trec(runs), method=method, norm=norm, **params))
    for limit in (1, 40):
        monkeypatch.setattr(fusion_table, "BLOCK_ENTRIES", limit)
        assert rows_of(fuse(as_trec(runs), method=method, norm=norm, **params)) == whole


def test_blocks_on_threads_give_one_threads_run(monkeypatch):
    """Blocks fused on four threads (each taking its place in the output
    after the block before it, whichever finishes first) or in the calling
    thread only: the same run, rows in the same order."""
    from sk_rankmetrics._utils.threads import one_thread

    runs = make_runs(5, n_q=40, pool=30)
    monkeypatch.setattr(fusion, "N_THREADS", 4)
    monkeypatch.setattr(fusion_table, "BLOCK_ENTRIES", 7)
    threaded = rows_of(fuse(as_trec(runs), method="rrf"))
    with one_thread():
        assert rows_of(fuse(as_trec(runs), method="rrf")) == threaded
    assert threaded == rows_of(fuse(as_trec(runs), method="rrf"))


@pytest.mark.parametrize("where", [0, 17, 39])
def test_a_failing_block_on_threads_raises_and_nothing_waits(monkeypatch, where):
    """A document twice in the first, a middle or the last of many blocks
    fused on threads: the error reaches the caller (the blocks after it do
    not wait for ever for the failed block's place)."""
    runs = make_runs(5, n_q=40, pool=30)
    q, d, s = runs[0]
    d = d.copy()
    at = int(np.flatnonzero(q == f"q{where}")[1])
    d[at] = d[at - 1]
    monkeypatch.setattr(fusion, "N_THREADS", 4)
    monkeypatch.setattr(fusion_table, "BLOCK_ENTRIES", 7)
    with pytest.raises(ValueError, match=r"runs\[0\] ranks a document twice"):
        fuse([TrecRun(q, d, s), *as_trec(runs)[1:]], method="rrf")


def test_places_are_taken_in_block_order_whoever_finishes_first():
    import threading
    import time

    from sk_rankmetrics._utils.threads import Places

    places = Places()
    got = {}

    def block(i, n, delay, fail=False):
        try:
            with places.turn(i) as take:
                time.sleep(delay)
                if fail:
                    raise RuntimeError("block failed")
                got[i] = take(n)
        except RuntimeError:
            got[i] = None

    threads = [threading.Thread(target=block, args=args) for args in
               [(3, 4, 0.0), (1, 10, 0.05), (2, 5, 0.0, True), (0, 3, 0.1)]]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=10)
    assert not any(t.is_alive() for t in threads)
    assert got == {0: 0, 1: 3, 2: None, 3: 13}  # block 2 failed and took nothing


def test_ids_packed_in_slices_give_the_same_run(monkeypatch):
    """The ids packed a few at a time on threads: the same run as packed at
    once; one id too long to pack, in a later slice of the last run, and
    every run's ids are numbered instead (the same run as a loop gives)."""
    runs = make_runs(3, alphabet="abz09", longest=8)
    whole = rows_of(fuse(as_trec(runs), method="rrf"))
    monkeypatch.setattr(fusion_table, "_PACK_ROWS", 5)
    monkeypatch.setattr(fusion, "N_THREADS", 3)
    assert rows_of(fuse(as_trec(runs), method="rrf")) == whole
    q, d, s = runs[2]
    d = d.astype("U12")
    d[-1] = "zzzzzzzzzzzz"  # 12 characters: no 64-bit key
    longer = [runs[0], runs[1], (q, d, s)]
    numbered = []
    real = fusion_table.NumberedIds.__init__

    def spy(self, codes, ids):
        real(self, codes, ids)
        numbered.append(self)

    monkeypatch.setattr(fusion_table.NumberedIds, "__init__", spy)
    got = rows_of(fuse(as_trec(longer), method="rrf"))
    assert numbered
    assert_same_rows(got, reference_fuse(longer, "rrf", None, {}))


def test_blocks_of_queries_cover_every_query_once():
    q_runs = [np.array([2, 2, 0, 5, 5, 5]), np.array([5, 1, 1, 0]), np.array([3])]
    keys = [np.arange(q.shape[0], dtype=np.uint64) for q in q_runs]
    ids = fusion_table.NumberedIds(keys, np.array([str(i) for i in range(6)]))
    queries = np.array([f"q{i}" for i in range(6)])
    for limit in (1, 3, 100):
        blocks = [(a, make()) for a, make in fusion_table.candidate_blocks(
            queries, q_runs, ids, [np.zeros(q.shape[0]) for q in q_runs], ["a", "b", "c"],
            limit=limit)]
        seen = [a + int(q) for a, t in blocks for q in np.unique(t.q_of_row)]
        assert seen == [0, 1, 2, 3, 5]  # query 4 is in no run
        assert all(t.queries.shape[0] >= 1 for _, t in blocks)
        if limit == 100:
            assert len(blocks) == 1
