"""TREC qrels and run files: reading, every reader error, writing and round trips."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import DATA
from hypothesis import given, settings
from hypothesis import strategies as st

from sk_rankmetrics import (
    TrecQrels,
    TrecRun,
    evaluate_run,
    qrels_from_frame,
    read_trec_qrels,
    read_trec_run,
    run_from_frame,
    write_trec_run,
)
from sk_rankmetrics._inputs.preranked import ranked_order

TREC = DATA / "trec_eval"


def _write(tmp_path, text, name="f.txt", mode="w"):
    path = tmp_path / name
    if mode == "wb":
        path.write_bytes(text)
    else:
        path.write_text(text, encoding="utf-8")
    return path


def test_qrels_comments_blank_lines_and_hash_in_docno(tmp_path):
    path = _write(tmp_path, "# a comment line\n\n301 0 CR#93E-1860 2\n  \n"
                            "301\t0\tdoc-2\t0\n# another\n302 0 x -1\n")
    q = read_trec_qrels(path)
    assert q.qid.tolist() == ["301", "301", "302"]
    assert q.docno.tolist() == ["CR#93E-1860", "doc-2", "x"]
    assert q.relevance.tolist() == [2.0, 0.0, -1.0]
    assert "3 judgements" in repr(q) and len(q) == 3


def test_crlf_no_final_newline_and_utf8(tmp_path):
    path = _write(tmp_path, "q1 Q0 d\u00e9j\u00e0 1 2.5 t\r\nq1 Q0 b 2 1e-3 t".encode(),
                  mode="wb")
    r = read_trec_run(path)
    assert r.docno.tolist() == ["d\u00e9j\u00e0", "b"]
    assert r.score.tolist() == [2.5, 0.001]
    assert r.rank is None  # not read, as trec_eval does not read it
    assert r.tag == "t"


def test_run_text_after_sixth_field_is_ignored(tmp_path):
    path = _write(tmp_path, "q Q0 a 1 0.5 tag some trailing words\nq Q0 b 2 0.25 tag\n")
    r = read_trec_run(path)
    assert r.docno.tolist() == ["a", "b"] and r.score.tolist() == [0.5, 0.25]


def test_empty_file(tmp_path):
    q = read_trec_qrels(_write(tmp_path, ""))
    r = read_trec_run(_write(tmp_path, "# only a comment\n\n", name="r.txt"))
    assert len(q) == 0 and len(r) == 0


def test_with_comments_file_equals_plain_file():
    plain = read_trec_qrels(TREC / "qrels.test")
    commented = read_trec_qrels(TREC / "qrels.test.with-comments")
    np.testing.assert_array_equal(plain.relevance, commented.relevance)
    np.testing.assert_array_equal(plain.qid, commented.qid)
    # the commented file changes one docno to hold a '#'
    assert (plain.docno != commented.docno).sum() == 1
    assert "CR#93E-1860" in commented.docno.tolist()


def test_large_file_matches_a_plain_parse(tmp_path):
    rng = np.random.default_rng(0)
    n = 50_000
    qid = rng.integers(0, 500, size=n)
    lines = [f"{q} Q0 doc{i}-{q} {i} {s!r} run" for i, (q, s) in
             enumerate(zip(qid, rng.normal(size=n).tolist()))]
    path = _write(tmp_path, "\n".join(lines) + "\n")
    r = read_trec_run(path)
    fields = [line.split() for line in lines]
    assert r.qid.tolist() == [f[0] for f in fields]
    assert r.docno.tolist() == [f[2] for f in fields]
    assert r.score.tolist() == [float(f[4]) for f in fields]


@pytest.mark.parametrize(
    ("reader", "text", "match"),
    [
        (read_trec_qrels, "q 0 a 1\nq 0 b\n", r"line 2: expected 4 fields .*found 3"),
        (read_trec_qrels, "q 0 a 1\n\nq 0 b 1 extra\n", r"line 3: expected 4 fields"),
        (read_trec_qrels, "# c\nq 0 a high\n", r"line 2: relevance 'high' is not a finite"),
        (read_trec_qrels, "q 0 a 1\nq 0 b nan\n", r"line 2: relevance 'nan'"),
        (read_trec_qrels, "q 0 a 1\nq 0 b 0\nq 0 a 2\n",
         r"line 3: duplicate document 'a' for query 'q' \(first on line 1\)"),
        (read_trec_run, "q Q0 a 1 0.5\n", r"line 1: expected at least 6 fields"),
        (read_trec_run, "q Q0 a 1 0.5 t\nq Q0 b 2 x t\n", r"line 2: score 'x'"),
        (read_trec_run, "q Q0 a 1 0.5 t\nq Q0 b 2 inf t\n", r"line 2: score 'inf'"),
        (read_trec_run, "q Q0 a 1 0.5 t\nr Q0 a 1 0.5 t\nq Q0 a 2 0.1 t\n",
         r"line 3: duplicate document 'a' for query 'q' \(first on line 1\)"),
    ],
)
def test_reader_errors_name_file_and_line(tmp_path, reader, text, match):
    path = _write(tmp_path, text, name="bad_input.txt")
    with pytest.raises(ValueError, match=match) as info:
        reader(path)
    assert "bad_input.txt" in str(info.value)


def test_missing_file_and_bad_path_type(tmp_path):
    with pytest.raises(ValueError, match=r"cannot read qrels file .*nope"):
        read_trec_qrels(tmp_path / "nope")
    with pytest.raises(TypeError, match="file path"):
        read_trec_run(42)


def test_write_then_read_round_trip(tmp_path):
    rng = np.random.default_rng(1)
    n = 300
    qid = rng.choice(["q1", "q2", "q10"], size=n)
    docno = np.array([f"d{i}" for i in range(n)])
    score = rng.integers(0, 20, size=n) / 4.0  # ties
    path = tmp_path / "run.txt"
    write_trec_run(path, TrecRun(qid, docno, score, tag="mine"))
    back = read_trec_run(path)
    order = ranked_order(qid, docno, score)
    np.testing.assert_array_equal(back.qid, qid[order])
    np.testing.assert_array_equal(back.docno, docno[order])
    np.testing.assert_array_equal(back.score, score[order])
    assert back.tag == "mine"
    # ranks restart at 1 for each query, and the file is already in ranked order
    ranks = np.array([int(line.split()[3]) for line in path.read_text().splitlines()])
    for q in np.unique(qid):
        np.testing.assert_array_equal(ranks[back.qid == q], np.arange(1, (qid == q).sum() + 1))
    write_trec_run(tmp_path / "again.txt", back)
    assert (tmp_path / "again.txt").read_text() == path.read_text()


def test_write_order_is_trec_eval_order(tmp_path):
    path = tmp_path / "run.txt"
    write_trec_run(path, (["q", "q", "q"], ["a", "c", "b"], [1.0, 1.0, 2.0]))
    assert [line.split()[2] for line in path.read_text().splitlines()] == ["b", "c", "a"]


@pytest.mark.parametrize(
    ("run", "exc", "match"),
    [
        ((["q"], ["a b"], [1.0]), ValueError, "free of spaces"),
        ((["q"], ["a"], [np.nan]), ValueError, "NaN"),
        ((["q", "q"], ["a"], [1.0]), ValueError, "one length"),
        ("run", TypeError, "TrecRun"),
    ],
)
def test_write_errors(tmp_path, run, exc, match):
    with pytest.raises(exc, match=match):
        write_trec_run(tmp_path / "x.txt", run)


def test_frames():
    pd = pytest.importorskip("pandas")
    qrels = qrels_from_frame(pd.DataFrame({"query": [1, 1], "item": [5, 6],
                                           "relevance": [2, 0]}))
    assert isinstance(qrels, TrecQrels) and qrels.relevance.tolist() == [2.0, 0.0]
    run = run_from_frame(pd.DataFrame({"user": ["u"], "doc_id": ["x"], "y_score": [0.5]}))
    assert run.qid.tolist() == ["u"] and run.score.tolist() == [0.5]
    run = run_from_frame(pd.DataFrame({"a": [1], "b": [2], "c": [0.5]}), query="a", item="b",
                         score="c")
    assert run.docno.tolist() == [2]
    with pytest.raises(ValueError, match="cannot find the score column"):
        run_from_frame(pd.DataFrame({"query": [1], "item": [2]}))
    with pytest.raises(ValueError, match="no column 'zz'"):
        qrels_from_frame(pd.DataFrame({"query": [1], "item": [2], "rel": [1]}), query="zz")
    with pytest.raises(TypeError, match="relevance column must hold numbers"):
        qrels_from_frame(pd.DataFrame({"query": [1], "item": [2], "rel": ["high"]}))


@pytest.mark.parametrize("library", ["pandas", "polars"])
def test_frames_of_either_library_score_as_arrays(library):
    lib = pytest.importorskip(library)
    rng = np.random.default_rng(4)
    q = {"qid": np.repeat(["q1", "q2", "q3"], 4), "docno": np.tile(["a", "b", "c", "d"], 3),
         "rel": rng.integers(0, 3, 12)}
    r = {"topic": np.repeat(["q1", "q2", "q4"], 3), "doc": np.tile(["a", "c", "x"], 3),
         "sim": rng.integers(0, 3, 9).astype(float)}
    arrays = (TrecQrels(q["qid"], q["docno"], q["rel"]), TrecRun(r["topic"], r["doc"], r["sim"]))
    frames = (qrels_from_frame(lib.DataFrame(q)), run_from_frame(lib.DataFrame(r)))
    metrics = ["ndcg_cut_10", "map", "P_2"]
    with pytest.warns(UserWarning, match="no judgements"):
        want = evaluate_run(*arrays, metrics, setting="trec_eval")
    with pytest.warns(UserWarning, match="no judgements"):
        got = evaluate_run(lib.DataFrame(q), lib.DataFrame(r), metrics, setting="trec_eval")
    assert got.mean == want.mean and got.query_ids.tolist() == want.query_ids.tolist()
    assert frames[0].docno.tolist() == q["docno"].tolist()
    assert frames[1].score.tolist() == r["sim"].tolist()


@pytest.mark.parametrize("library", ["pandas", "polars"])
def test_frame_columns_are_never_guessed(library):
    lib = pytest.importorskip(library)
    both = lib.DataFrame({"qid": ["q1"], "query": ["other"], "docno": ["a"], "rel": [1]})
    with pytest.raises(ValueError, match=r"2 columns that could hold the query: \['query', "
                                         r"'qid'\]; name the one to use with query="):
        qrels_from_frame(both)
    assert qrels_from_frame(both, query="qid").qid.tolist() == ["q1"]
    assert qrels_from_frame(both, query="query").qid.tolist() == ["other"]
    two_scores = lib.DataFrame({"qid": ["q"], "docno": ["a"], "score": [1.0], "sim": [2.0]})
    with pytest.raises(ValueError, match=r"could hold the score: \['score', 'sim'\]"):
        run_from_frame(two_scores)
    assert run_from_frame(two_scores, score="sim").score.tolist() == [2.0]
    with pytest.raises(ValueError, match="'qid' is chosen for both the query and the item"):
        qrels_from_frame(both, query="qid", item="qid")
    with pytest.raises(ValueError, match="cannot find the relevance column"):
        qrels_from_frame(lib.DataFrame({"qid": ["q"], "docno": ["a"]}))


@pytest.mark.parametrize("library", ["pandas", "polars"])
@pytest.mark.parametrize(("column", "values"), [("qid", ["q1", None]), ("rel", [1.0, None]),
                                                ("rel", [1.0, float("nan")])])
def test_frame_missing_values_are_errors(library, column, values):
    lib = pytest.importorskip(library)
    data = {"qid": ["q1", "q2"], "docno": ["a", "b"], "rel": [1.0, 2.0], column: values}
    with pytest.raises(ValueError, match=f"column '{column}' has a missing value \\(row 1\\)"):
        qrels_from_frame(lib.DataFrame(data))


@settings(max_examples=200, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(1, 60), m=st.integers(0, 80),
       prefix=st.sampled_from(["", "D", "clueweb09-en0000-", "doc-00000000"]))
def test_byte_order_ranks_of_ids(seed, n, m, prefix):
    """TokenColumn.lex_rank (trec_eval's order of equal scores by document
    name): each entry's rank is the number of the given entries whose bytes
    sort before its own, for ids of one word and of several (long ids, equal
    first words, one a prefix of another), repeats included."""
    from sk_rankmetrics._files.tokens import Block, TokenColumn

    rng = np.random.default_rng(seed)
    ids = [(prefix + "".join(rng.choice(list("ab9Z"), size=int(rng.integers(1, 12)))))
           .encode() for _ in range(n)]
    data = b" ".join(ids)
    lengths = np.array([len(b) for b in ids], dtype=np.int64)
    starts = np.concatenate(([0], np.cumsum(lengths[:-1] + 1))).astype(np.int64)
    block = Block.from_bytes(data + b"\n")
    col = TokenColumn.concat([TokenColumn.from_block(block, starts, lengths)])
    rows = rng.integers(0, n, size=m)
    got = col.lex_rank(rows)
    chosen = [ids[r] for r in rows.tolist()]
    expected = [sum(other < mine for other in chosen) for mine in chosen]
    assert got.tolist() == expected


def test_write_scores_as_numpy_writes_them_and_tag_with_percent(tmp_path):
    # Each score as NumPy's astype(str) writes a float64 (its shortest repr);
    # a '%' in the tag is written as given.
    rng = np.random.default_rng(5)
    score = np.concatenate([rng.normal(size=300) * 10.0 ** rng.integers(-30, 30, 300),
                            [0.0, -0.0, 1e16, 1e-5, 5e-324, 1.7976931348623157e308, 2.5]])
    n = score.shape[0]
    qid = np.array([f"q{i % 3}" for i in range(n)])
    docno = np.array([f"d{i}" for i in range(n)])
    path = tmp_path / "run.txt"
    write_trec_run(path, TrecRun(qid, docno, score, tag="run%d"))
    order = ranked_order(qid, docno, score)
    q = qid[order]
    rank = np.concatenate([np.arange(1, (q == x).sum() + 1) for x in ["q0", "q1", "q2"]])
    want = [f"{a} Q0 {b} {c} {d} run%d" for a, b, c, d in
            zip(q.tolist(), docno[order].tolist(), rank.tolist(),
                score[order].astype(str).tolist())]
    assert path.read_text().splitlines() == want
