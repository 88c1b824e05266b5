"""Python reads qrels and run files as the command line does: one reader choice
(named format, extension, content; compressed files by their first bytes)."""

from __future__ import annotations

import bz2
import contextlib
import gzip
import importlib.util
import io
import lzma

import numpy as np
import pytest

from sk_rankmetrics import evaluate_ranked, evaluate_run, read_qrels, read_run
from sk_rankmetrics._cli import main as cli_main
from sk_rankmetrics._files.formats import detect_format

QRELS = "q1 0 a 2\nq1 0 b 0\nq1 0 c 1\nq2 0 d 1\nq2 0 e 0\n"
RUN = ("q1 Q0 b 1 3.0 sys\nq1 Q0 a 2 2.5 sys\nq1 Q0 x 3 1.0 sys\nq1 Q0 c 4 0.5 sys\n"
       "q2 Q0 e 1 2.0 sys\nq2 Q0 d 2 1.0 sys\n")
ROWS = [line.split() for line in RUN.splitlines()]
#: pandas writes parquet through pyarrow or fastparquet (the test extra installs
#: pyarrow on Python 3.10 and later only).
NO_PARQUET = pytest.mark.skipif(
    not any(importlib.util.find_spec(m) for m in ("pyarrow", "fastparquet")),
    reason="no parquet engine (pyarrow or fastparquet) to write the file")


def _frame():
    pd = pytest.importorskip("pandas")
    return pd.DataFrame({"qid": [r[0] for r in ROWS], "docno": [r[2] for r in ROWS],
                         "score": [float(r[4]) for r in ROWS]})


@pytest.fixture
def trec(tmp_path):
    q, r = tmp_path / "qrels.txt", tmp_path / "run.txt"
    q.write_text(QRELS)
    r.write_text(RUN)
    return q, r


def _cli_all(qrels, run, *flags):
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = cli_main(["evaluate", str(qrels), str(run), "-m", "map", "-m", "ndcg@3",
                         "--format", "json", *flags])
    assert code == 0
    return out.getvalue()


def _writers(tmp_path):
    """Run files of every format, each under a telling name and a neutral one."""
    df = _frame()
    files = {}
    files["run.parquet"] = lambda p: df.to_parquet(p, index=False)
    files["run.csv"] = lambda p: df.to_csv(p, index=False)
    files["run.tsv"] = lambda p: df.to_csv(p, index=False, sep="\t")
    files["run.json"] = lambda p: p.write_text(
        '{"q1": {"b": 3.0, "a": 2.5, "x": 1.0, "c": 0.5}, "q2": {"e": 2.0, "d": 1.0}}')
    files["run.trec.gz"] = lambda p: p.write_bytes(gzip.compress(RUN.encode()))
    return files


@pytest.mark.parametrize("name", [pytest.param("run.parquet", marks=NO_PARQUET), "run.csv",
                                  "run.tsv", "run.json", "run.trec.gz"])
def test_every_format_by_extension_and_by_content(trec, tmp_path, name):
    """A run in any format gives the same values from evaluate_run, under its
    own name (by extension) and under a neutral name (by content), and the
    command reads it the same way."""
    q, r = trec
    want = evaluate_run(q, r, ["map", "ndcg@3"])
    write = _writers(tmp_path)[name]
    for path in (tmp_path / name, tmp_path / f"neutral_{name.replace('.', '_')}.data"):
        write(path)
        got = evaluate_run(q, path, ["map", "ndcg@3"])
        assert got.mean == pytest.approx(want.mean, abs=1e-12), path.name
        assert _cli_all(q, path) == _cli_all(q, r)
    assert detect_format(tmp_path / f"neutral_{name.replace('.', '_')}.data")[1] == \
        "its content"


@pytest.mark.parametrize(("compress", "suffix"), [(gzip.compress, ".gz"),
                                                  (bz2.compress, ".bz2"),
                                                  (lzma.compress, ".xz")])
def test_compressed_files_are_found_by_their_first_bytes(trec, tmp_path, compress, suffix):
    """gzip, bzip2 and xz files are read whatever their name (TREC and CSV)."""
    q, r = trec
    want = evaluate_run(q, r, ["map"])["map"]
    for body, name in ((RUN.encode(), "run_trec.bin"), (_frame().to_csv(index=False).encode(),
                                                        "run_csv")):
        path = tmp_path / name
        path.write_bytes(compress(body))
        assert evaluate_run(q, path, ["map"])["map"] == pytest.approx(want, abs=1e-12)
    qpath = tmp_path / f"qrels{suffix}.txt"
    qpath.write_bytes(compress(QRELS.encode()))
    assert len(read_qrels(qpath)) == 5


def test_format_override_and_its_error(trec, tmp_path):
    """format= (qrels_format=, run_format=) overrides the choice; a file read in
    the wrong format names the format it tried, why, and how to choose another."""
    q, r = trec
    data = tmp_path / "run.csv"
    data.write_text(RUN)  # TREC text under a .csv name
    with pytest.raises(ValueError, match=r"read as csv, chosen by its extension \.csv; .*"
                                         r"run_format=.*one of trec"):
        evaluate_run(q, data, ["map"])
    got = evaluate_run(q, data, ["map"], run_format="trec")
    assert got["map"] == evaluate_run(q, r, ["map"])["map"]
    assert len(read_run(data, format="trec")) == 6


@NO_PARQUET
def test_parquet_read_as_trec_names_the_format(trec, tmp_path):
    """A parquet file read as TREC text says it is not text, which format was
    tried and why, and the formats to choose from."""
    _, r = trec
    parquet = tmp_path / "run.parquet"
    _frame().to_parquet(parquet, index=False)
    with pytest.raises(ValueError, match=r"not UTF-8 text.*read as trec, chosen by "
                                         r"format='trec'.*one of csv, tsv, parquet, json"):
        read_run(parquet, format="trec")
    with pytest.raises(ValueError, match=r"qrels file.*read as trec.*qrels_format="):
        evaluate_run(parquet, r, ["map"], qrels_format="trec")


def test_qrels_in_csv_and_evaluate_ranked_reads_paths(trec, tmp_path):
    """Qrels go through the same choice; evaluate_ranked takes a qrels path as
    its truth and a run path as its recommendations."""
    pd = pytest.importorskip("pandas")
    q, r = trec
    rows = [line.split() for line in QRELS.splitlines()]
    csv = tmp_path / "judgements.csv"
    pd.DataFrame({"query": [x[0] for x in rows], "doc": [x[2] for x in rows],
                  "rel": [int(x[3]) for x in rows]}).to_csv(csv, index=False)
    assert evaluate_run(csv, r, ["map"])["map"] == evaluate_run(q, r, ["map"])["map"]
    ranked = evaluate_ranked(r, csv, ["ndcg@3", "mrr"])
    want = evaluate_run(q, r, ["ndcg@3", "mrr"])
    np.testing.assert_allclose(ranked.per_query["ndcg@3"], want.per_query["ndcg@3"])
    assert ranked["mrr"] == pytest.approx(want["mrr"])


def test_dask_reads_paths_as_evaluate_run(trec, tmp_path):
    pytest.importorskip("dask.dataframe")
    import dask.dataframe as dd

    q, r = trec
    path = tmp_path / "run.data"
    _frame().to_parquet(path, index=False)
    qrels = dd.from_pandas(_qrels_frame(), npartitions=1)
    got = evaluate_run(qrels, path, ["map"])
    assert got["map"] == pytest.approx(evaluate_run(q, r, ["map"])["map"], abs=1e-12)


def _qrels_frame():
    import pandas as pd

    rows = [line.split() for line in QRELS.splitlines()]
    return pd.DataFrame({"qid": [x[0] for x in rows], "docno": [x[2] for x in rows],
                         "relevance": [float(x[3]) for x in rows]})


def test_dask_evaluate_ranked_reads_paths(trec):
    """With a Dask side, evaluate_ranked reads the other side's path the same way."""
    pytest.importorskip("dask.dataframe")
    import dask.dataframe as dd

    q, r = trec
    want = evaluate_ranked(r, q, ["ndcg@3", "mrr"])
    truth = dd.from_pandas(_qrels_frame().rename(columns={"qid": "user", "docno": "item"}),
                           npartitions=1)
    got = evaluate_ranked(r, truth, ["ndcg@3", "mrr"])
    assert got.mean == pytest.approx(want.mean, abs=1e-12)
    rec = dd.from_pandas(_frame().assign(rank=[1, 2, 3, 4, 1, 2]).drop(columns="score")
                         .rename(columns={"qid": "user", "docno": "item"}), npartitions=1)
    got = evaluate_ranked(rec, q, ["ndcg@3", "mrr"])
    assert got.mean == pytest.approx(want.mean, abs=1e-12)


@pytest.mark.parametrize("bad", ["xml", "TREC", "", None, 3])
def test_unknown_format_names_are_refused_naming_the_argument(trec, bad):
    """A format that is not one of the readers' is a one-line error naming the
    argument and the accepted values, from the readers and from evaluate_run."""
    from sk_rankmetrics import InvalidParameterError, evaluate_run, read_qrels, read_run

    qrels, run = trec
    with pytest.raises(InvalidParameterError, match=r"format=.* is not accepted.*Accepted: "
                                                     r"'auto', 'trec', 'csv'"):
        read_run(run, format=bad)
    with pytest.raises(InvalidParameterError, match=r"format=.* is not accepted"):
        read_qrels(qrels, format=bad)
    with pytest.raises(InvalidParameterError, match=r"run_format=.* is not accepted"):
        evaluate_run(qrels, run, ["map"], run_format=bad)
