"""fuse's TrecRun output kept as a file reader's id columns (keys, text made
on first read): the same ids, scores, evaluation and written file as the
run built from the text ids, on every kind of id that takes or leaves that
route."""

from __future__ import annotations

import os

import numpy as np
import pytest

from sk_rankmetrics import (
    TrecRun,
    evaluate_run,
    fuse,
    read_trec_qrels,
    read_trec_run,
    write_trec_run,
)
from sk_rankmetrics._files.tokens import TokenColumn

METRICS = ["ndcg", "ndcg_cut_10", "map", "P_5", "recip_rank", "bpref", "Rprec",
           "recall_100", "err", "num_rel_ret"]


def _runs(rng, queries, docs, n_runs=3, depth=15):
    """Runs of ``queries`` over the pool ``docs``, scores rounded (ties)."""
    runs = []
    for r in range(n_runs):
        qid, docno, score = [], [], []
        for q in queries:
            n = int(rng.integers(1, min(depth, len(docs)) + 1))
            picked = rng.choice(docs, size=n, replace=False)
            s = np.round(rng.normal(size=n) * (r + 1), 1)
            qid += [q] * n
            docno += list(picked)
            score += list(s)
        runs.append(TrecRun(np.array(qid), np.array(docno), np.array(score), tag=f"r{r}"))
    return runs


def _qrels_file(tmp_path, rng, queries, docs):
    path = os.path.join(tmp_path, "qrels.txt")
    with open(path, "w", encoding="utf-8") as fh:
        for q in queries:
            for d in rng.choice(docs, size=min(len(docs), 12), replace=False):
                fh.write(f"{q} 0 {d} {int(rng.integers(0, 3))}\n")
    return read_trec_qrels(path)


ASCII_Q = [f"q{i}" for i in range(9)]
#: (query ids, document ids, whether the ids stay keys)
CASES = {
    "short ids": (ASCII_Q, [f"d{i}" for i in range(40)], True),
    "ids in a mixed radix": (ASCII_Q, [f"{c}{i:07d}" for c in "amz" for i in
                                       (0, 1, 5, 9_999_999, 1_234_567, 7_654_321)], True),
    "long and non-ASCII query ids": (["query-number-one-of-many", "q2", "ключ-3", "é"],
                                     [f"d{i}" for i in range(30)], True),
    "one-character ids": (ASCII_Q, list("abcdefgh"), True),
    "non-ASCII document ids": (ASCII_Q, [f"é{i}" for i in range(30)], False),
    "long document ids": (ASCII_Q, [f"document-{i:05d}" for i in range(30)], False),
    "a NUL in a query id": (["q\0x", "q2"], [f"d{i}" for i in range(30)], False),
}


@pytest.mark.parametrize("case", list(CASES))
@pytest.mark.parametrize("method, kwargs", [("rrf", {}),
                                            ("wsum", {"norm": "min-max",
                                                      "weights": [0.2, 0.5, 0.3]})])
def test_columns_give_the_text_runs_numbers(case, method, kwargs, tmp_path):
    queries, docs, keyed = CASES[case]
    rng = np.random.default_rng(len(case))
    runs = _runs(rng, queries, np.array(docs))
    fused = fuse(runs, method=method, **kwargs)
    assert (fused._columns is not None) == keyed
    # The same entries as the text form (dicts in, dicts out), in the same order.
    as_dicts = [{q: {} for q in queries} for _ in runs]
    for run, out in zip(runs, as_dicts):
        for q, d, s in zip(run.qid.tolist(), run.docno.tolist(), run.score.tolist()):
            out[q][d] = s
    want = fuse([{q: v for q, v in r.items() if v} for r in as_dicts], method=method,
                **kwargs)
    flat = [(q, d, s) for q, ds in want.items() for d, s in ds.items()]
    assert list(zip(fused.qid.tolist(), fused.docno.tolist(), fused.score.tolist())) == flat
    if "\0" in "".join(queries):
        return  # no qrels file can name that query
    # Evaluated against a qrels file (the columns' own route) and as text.
    qrels = _qrels_file(tmp_path, rng, queries, docs)
    again = fuse(runs, method=method, **kwargs)  # its ids not yet read as text
    text = TrecRun(fused.qid, fused.docno, fused.score)
    got = evaluate_run(qrels, again, metrics=METRICS, complete=True)
    ref = evaluate_run(qrels, text, metrics=METRICS, complete=True)
    assert got.per_query.keys() == ref.per_query.keys()
    for name in METRICS:
        np.testing.assert_allclose(got.per_query[name], ref.per_query[name], rtol=0,
                                   atol=1e-15, err_msg=name)
    assert got.query_ids.tolist() == ref.query_ids.tolist()


def test_written_and_fused_again_as_from_text(tmp_path):
    rng = np.random.default_rng(7)
    runs = _runs(rng, ASCII_Q, np.array([f"d{i}" for i in range(40)]))
    fused = fuse(runs, method="rrf")
    assert fused._columns is not None
    text = TrecRun(fused.qid, fused.docno, fused.score, tag="fused")
    a, b = os.path.join(tmp_path, "a"), os.path.join(tmp_path, "b")
    write_trec_run(a, fuse(runs, method="rrf"))  # written straight from the columns
    write_trec_run(b, text)
    assert open(a, "rb").read() == open(b, "rb").read()
    # A fused run fused again reads its columns as a file's.
    twice = fuse([fuse(runs, method="rrf"), runs[0]], method="sum")
    ref = fuse([text, runs[0]], method="sum")
    assert twice.qid.tolist() == ref.qid.tolist()
    assert twice.docno.tolist() == ref.docno.tolist()
    np.testing.assert_array_equal(twice.score, ref.score)
    # Setting one id array keeps the other as text.
    other = fuse(runs, method="rrf")
    other.qid = other.qid.astype(object)
    assert other._columns is None and other.docno.tolist() == text.docno.tolist()


def test_token_column_of_strings_is_a_file_readers(tmp_path):
    ids = ["q1", "a-query-id-longer-than-eight", "é", "x" * 8, "y" * 9, "Δέλτα-ω", "",
           "12345678"]
    path = os.path.join(tmp_path, "run.txt")
    with open(path, "w", encoding="utf-8") as fh:
        for i, q in enumerate(ids[:-2] + ids[-1:]):  # a file holds no empty id
            fh.write(f"{q} Q0 d{i} 1 1.0 t\n")
    read = read_trec_run(path)._columns["qid"].heads
    mine = TokenColumn.of_strings(np.array(ids[:-2] + ids[-1:]))
    np.testing.assert_array_equal(mine.keys, read.keys)
    np.testing.assert_array_equal(mine.long_rows, read.long_rows)
    assert mine.to_strings().tolist() == ids[:-2] + ids[-1:]
    assert TokenColumn.of_strings(np.array(ids)).to_strings().tolist() == ids
    assert TokenColumn.of_strings(np.array(["a\0b"])) is None
    assert TokenColumn.of_strings(np.array([], dtype=str)).to_strings().tolist() == []


def test_short_non_ascii_ids_read_from_a_file(tmp_path):
    """The short-id fast path of ``to_strings`` leaves UTF-8 ids to the decoder."""
    path = os.path.join(tmp_path, "run.txt")
    with open(path, "w", encoding="utf-8") as fh:
        fh.write("q1 Q0 é 1 2.0 t\nq1 Q0 d2 2 1.0 t\nq2 Q0 ab 1 1.0 t\n")
    run = read_trec_run(path)
    assert run.docno.tolist() == ["é", "d2", "ab"]
    assert run.qid.tolist() == ["q1", "q1", "q2"]
