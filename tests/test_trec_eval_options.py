"""trec_eval's global options (-l, -c, -M, -J, -N) reach exactly the measures that
read them, in the trec_eval setting of evaluate_run and in ``sk-rankmetrics
trec_eval``; checked against outputs of trec_eval 10.0 in tests/data/trec_eval10."""

from __future__ import annotations

import contextlib
import io

from sk_rankmetrics import evaluate_run
from sk_rankmetrics._cli import main as cli_main


def cli(*args):
    """``sk-rankmetrics ARGS`` in this process: (exit code, stdout)."""
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = cli_main([str(a) for a in args])
    return code, out.getvalue()


def _binary(tmp_path):
    q = tmp_path / "q.txt"
    q.write_text("1 0 a 1\n1 0 b 0\n1 0 c 1\n2 0 a 1\n")
    r = tmp_path / "r.txt"
    r.write_text("1 Q0 b 1 3 s\n1 Q0 a 2 2 s\n1 Q0 c 3 1 s\n2 Q0 a 1 2 s\n2 Q0 x 2 1 s\n")
    return q, r


def test_rndcg_is_zero_without_relevant_at_the_level(tmp_path):
    """trec_eval's m_Rndcg.c returns 0 for a query with no document at the level
    (-l), though its gains ignore the level: on binary qrels -l 2 gives 0."""
    q, r = _binary(tmp_path)
    plain = evaluate_run(q, r, ["Rndcg"], setting="trec_eval")
    assert (plain.per_query["Rndcg"] > 0).all()
    at2 = evaluate_run(q, r, ["Rndcg"], setting="trec_eval", threshold=2)
    assert at2.per_query["Rndcg"].tolist() == [0.0, 0.0]
    code, out = cli("trec_eval", "-q", "-l", "2", "-m", "Rndcg", "-m", "num_rel", q, r)
    assert code == 0
    assert "Rndcg                 \t1\t0.0000" in out
    assert "num_rel               \tall\t0" in out
    code, out = cli("trec_eval", "-m", "Rndcg", q, r)
    assert f"Rndcg                 \tall\t{plain['Rndcg']:.4f}" in out


def test_num_rel_summary_under_complete(tmp_path):
    """trec_eval 10 under -c prints, as num_rel's summary, the qrels lines with a
    level above 0 (m_num_rel.c), whatever -l: the command prints that; the
    trec_eval setting of evaluate_run keeps the sum of its per-query values
    (the documented decision, docs/which_ndcg.md)."""
    q = tmp_path / "q.txt"
    q.write_text("1 0 a 2\n1 0 b 1\n1 0 c 0\n2 0 a 1\n2 0 d 2\n2 0 e 1\n")
    r = tmp_path / "r.txt"
    r.write_text("1 Q0 a 1 2 s\n1 Q0 b 2 1 s\n")
    code, out = cli("trec_eval", "-q", "-c", "-l", "2", "-m", "num_rel", "-m", "map", q, r)
    assert code == 0
    assert out == ("num_rel               \t1\t1\nmap                   \t1\t1.0000\n"
                   "num_rel               \t2\t1\nmap                   \t2\t0.0000\n"
                   "num_rel               \tall\t5\nmap                   \tall\t0.5000\n")
    code, out = cli("trec_eval", "-c", "-l", "0", "-m", "num_rel", q, r)
    assert out == "num_rel               \tall\t5\n"
    res = evaluate_run(q, r, ["num_rel"], setting="trec_eval", complete=True, threshold=2)
    assert res.per_query["num_rel"].tolist() == [1.0, 1.0]
    assert res["num_rel"] == 2.0
