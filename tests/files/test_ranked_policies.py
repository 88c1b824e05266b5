"""ignore_identical_ids and duplicates on every ranked input: dicts, named
tuples, TREC objects, files (TREC, CSV), data frames, ID lists, the command."""

from __future__ import annotations

import warnings
from collections import namedtuple

import numpy as np
import pytest

from sk_rankmetrics import InvalidParameterError, TrecRun, evaluate_ranked, evaluate_run

GenericScoredDoc = namedtuple("GenericScoredDoc", "query_id doc_id score")
METRICS = ["ndcg", "map", "recip_rank", "P@3"]


def data(seed):
    rng = np.random.default_rng(seed)
    qrels, run = {}, {}
    for q in range(8):
        qid = f"q{q}"
        docs = [f"d{i}" for i in rng.choice(20, size=8, replace=False)]
        qrels[qid] = {d: int(rng.integers(0, 3)) for d in docs[:5]}
        qrels[qid][qid] = 2  # the query judged relevant to itself, as in ArguAna's qrels
        run[qid] = {d: float(np.round(rng.random(), 1)) for d in docs}
        run[qid][qid] = 5.0  # ... and retrieved first
    return qrels, run


def same(a, b):
    assert a.query_ids.tolist() == b.query_ids.tolist()
    for m in a.per_query:
        np.testing.assert_allclose(a.per_query[m], b.per_query[m], rtol=0, atol=1e-12)


@pytest.mark.parametrize("seed", [0, 1])
def test_ignore_identical_ids_equals_the_run_without_them(tmp_path, seed):
    qrels, run = data(seed)
    without = {q: {d: s for d, s in ds.items() if d != q} for q, ds in run.items()}
    want = evaluate_run(qrels, without, METRICS)
    with pytest.warns(UserWarning, match=r"evaluate_run: run: 8 retrieved documents whose "
                                         r"id is the query's dropped"):
        got = evaluate_run(qrels, run, METRICS, ignore_identical_ids=True)
    same(got, want)
    # The qrels keep the query's own judgement: the metrics differ from a qrels without it.
    assert evaluate_run(qrels, run, METRICS)["ndcg"] != got["ndcg"]
    path = tmp_path / "run.txt"
    path.write_text("".join(f"{q} Q0 {d} 0 {s} t\n" for q, ds in run.items()
                            for d, s in ds.items()))
    with pytest.warns(UserWarning, match="8 retrieved documents"):
        same(evaluate_run(qrels, path, METRICS, ignore_identical_ids=True), want)
    trec = TrecRun(*map(np.array, zip(*[(q, d, s) for q, ds in run.items()
                                        for d, s in ds.items()])))
    with pytest.warns(UserWarning, match="8 retrieved documents"):
        same(evaluate_run(qrels, trec, METRICS, ignore_identical_ids=True), want)


def test_duplicates_first_equals_the_deduplicated_run(tmp_path):
    qrels, run = data(2)
    rows = [GenericScoredDoc(q, d, s) for q, ds in run.items() for d, s in ds.items()]
    # Each document again, lower: the first in ranked order is the original score.
    repeated = rows + [GenericScoredDoc(r.query_id, r.doc_id, r.score - 1.0) for r in rows[::3]]
    want = evaluate_run(qrels, run, METRICS)
    with pytest.raises(ValueError, match=r"run, entry \d+: duplicate document"):
        evaluate_run(qrels, repeated, METRICS)
    with pytest.warns(UserWarning, match=rf"{len(rows[::3])} repeated documents dropped"):
        same(evaluate_run(qrels, repeated, METRICS, duplicates="first"), want)
    # The repeat first in the file, with the higher score: the higher score is kept.
    path = tmp_path / "run.txt"
    path.write_text("".join(f"{r.query_id} Q0 {r.doc_id} 0 {r.score} t\n"
                            for r in repeated[len(rows):] + rows))
    with pytest.raises(ValueError, match="duplicate document"):
        evaluate_run(qrels, path, METRICS)
    with pytest.warns(UserWarning, match="repeated documents dropped"):
        same(evaluate_run(qrels, path, METRICS, duplicates="first"), want)
    csv = tmp_path / "run.csv"
    csv.write_text("qid,docno,score\n" + "".join(f"{r.query_id},{r.doc_id},{r.score}\n"
                                                 for r in repeated))
    with pytest.warns(UserWarning, match="repeated documents dropped"):
        same(evaluate_run(qrels, csv, METRICS, duplicates="first"), want)


def test_duplicates_first_on_frames():
    pd = pytest.importorskip("pandas")
    qrels, run = data(3)
    frame = pd.DataFrame([(q, d, s) for q, ds in run.items() for d, s in ds.items()],
                         columns=["qid", "docno", "score"])
    twice = pd.concat([frame.assign(score=frame.score - 2.0), frame])
    with pytest.warns(UserWarning, match=f"{len(frame)} repeated documents dropped"):
        same(evaluate_run(qrels, twice, METRICS, duplicates="first"),
             evaluate_run(qrels, frame, METRICS))


def test_lists_keep_the_earliest_position():
    truth = {"u1": {"b": 1, "u1": 1}, "u2": {"d": 2}}
    rec = {"u1": ["u1", "a", "b", "a"], "u2": ["c", "c", "d", "u2"]}
    want = evaluate_ranked({"u1": ["a", "b"], "u2": ["c", "d"]}, truth, ["mrr", "ndcg"])
    with pytest.raises(ValueError, match="holds item 'a' twice"):
        evaluate_ranked(rec, truth, ["mrr", "ndcg"])
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        got = evaluate_ranked(rec, truth, ["mrr", "ndcg"], duplicates="first",
                              ignore_identical_ids=True)
    same(got, want)
    said = sorted(str(w.message) for w in caught)
    assert said == [
        "evaluate_ranked: recommended: 2 ranked items whose id is the user's dropped "
        "(ignore_identical_ids=True; the truth is not changed).",
        "evaluate_ranked: recommended: 2 repeated items dropped (duplicates='first' keeps "
        "each item's first occurrence, its earliest position)."]
    matrix = np.array([["a", "b", "a"], ["d", "c", "c"]])
    with pytest.warns(UserWarning, match="2 repeated items"):
        got = evaluate_ranked(matrix, [{"b"}, {"c"}], ["mrr"], duplicates="first")
    assert got.per_query["mrr"].tolist() == [0.5, 0.5]


def test_nothing_to_drop_changes_nothing():
    qrels, run = data(4)
    run = {q: {d: s for d, s in ds.items() if d != q} for q, ds in run.items()}
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        got = evaluate_run(qrels, run, METRICS, ignore_identical_ids=True, duplicates="first")
    same(got, evaluate_run(qrels, run, METRICS))


def test_bad_values_are_refused():
    with pytest.raises(InvalidParameterError, match="duplicates"):
        evaluate_run({"q": {"a": 1}}, {"q": {"a": 1.0}}, ["map"], duplicates="last")
    with pytest.raises(InvalidParameterError, match="ignore_identical_ids"):
        evaluate_ranked({"u": ["a"]}, {"u": {"a"}}, ["mrr"], ignore_identical_ids="yes")


@pytest.mark.slow
def test_dask_refuses_the_policies():
    pytest.importorskip("dask.dataframe")
    import dask.dataframe as dd
    import pandas as pd

    frame = dd.from_pandas(pd.DataFrame({"qid": ["q"], "docno": ["a"], "score": [1.0]}),
                           npartitions=1)
    with pytest.raises(InvalidParameterError, match="with a Dask collection, drop those rows"):
        evaluate_run({"q": {"a": 1}}, frame, ["map"], duplicates="first")


def test_command_flags(tmp_path, capsys):
    from sk_rankmetrics._cli import main

    qrels = tmp_path / "qrels.txt"
    qrels.write_text("q1 0 a 1\nq1 0 b 2\nq1 0 q1 2\nq2 0 c 1\n")
    run = tmp_path / "run.txt"
    run.write_text("q1 Q0 a 1 0.5 t\nq1 Q0 b 2 0.9 t\nq1 Q0 a 3 0.95 t\nq1 Q0 q1 4 0.99 t\n"
                   "q2 Q0 c 1 1 t\n")
    clean = tmp_path / "clean.txt"
    clean.write_text("q1 Q0 a 1 0.95 t\nq1 Q0 b 2 0.9 t\nq2 Q0 c 1 1 t\n")
    assert main(["evaluate", str(qrels), str(run), "-m", "ndcg", "-q"]) != 0
    assert "pass --duplicates first" in capsys.readouterr().err
    assert main(["evaluate", str(qrels), str(clean), "-m", "ndcg", "-q"]) == 0
    want = capsys.readouterr().out
    assert main(["evaluate", str(qrels), str(run), "-m", "ndcg", "-q", "--duplicates", "first",
                 "--ignore-identical-ids"]) == 0
    out = capsys.readouterr()
    assert out.out == want
    assert "1 repeated document dropped (--duplicates first" in out.err
    assert "1 retrieved document whose id is the query's dropped (--ignore-identical-ids" \
        in out.err
