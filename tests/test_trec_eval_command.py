"""``sk-rankmetrics trec_eval``: byte for byte against trec_eval's own outputs, and
per query against pytrec_eval on random tie-heavy files."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from sk_rankmetrics import evaluate_run
from sk_rankmetrics._trec_eval import MEASURES, SETS, parse_measures, requests

ROOT = Path(__file__).resolve().parents[1]
TREC = ROOT.parent / "shared" / "reference" / "trec_eval"

SUPPORTED = [n for n, m in MEASURES.items() if m.supported]
#: Output lines of the supported measures.
LINE = re.compile(r"^(runid|num_q|map|Rprec|recip_rank|ndcg|P_\d+|recall_\d+|ndcg_cut_\d+|"
                  r"map_cut_\d+|success_\d+) *\t")


def run_cli(*args):
    env = dict(os.environ)
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    return subprocess.run([sys.executable, "-m", "sk_rankmetrics", *map(str, args)],
                          capture_output=True, text=True, env=env, timeout=300)


def _need(name):
    path = TREC / name
    if not path.exists():
        pytest.skip("../shared/reference is not available")
    return path


CASES = [
    # expected output, qrels, run, trec_eval flags (as in the reference README)
    ("out.test", "qrels.test", "results.test", []),
    ("out.test.a", "qrels.test", "results.test", []),
    ("out.test.aq", "qrels.test", "results.test", ["-q"]),
    ("out.test.aqc", "qrels.test", "results.trunc", ["-q", "-c"]),
    ("out.test.aqcM", "qrels.test", "results.trunc", ["-q", "-c", "-M100"]),
    ("out.test.aql", "qrels.rel_level", "results.test", ["-q", "-l2"]),
    ("out.comment.test", "qrels.comment.test", "results.comment.test", []),
]


@pytest.mark.parametrize(("out", "qrels", "run", "flags"), CASES, ids=[c[0] for c in CASES])
def test_byte_for_byte_against_trec_eval(out, qrels, run, flags):
    expected = [line for line in _need(out).read_text().splitlines() if LINE.match(line)]
    present = {LINE.match(line).group(1) for line in expected}
    measures = []
    for name in SUPPORTED:
        if name in present or any(p.startswith(name + "_") and p[len(name) + 1].isdigit()
                                  for p in present):
            measures += ["-m", name]
    got = run_cli("trec_eval", *flags, *measures, _need(qrels), _need(run))
    assert got.returncode == 0, got.stderr
    assert got.stdout.splitlines() == expected
    assert len(expected) >= 8


def test_measure_parameters_byte_for_byte():
    expected = [line for line in _need("out.test.meas_params").read_text().splitlines()
                if LINE.match(line) or line.startswith("ndcg_1=3,2=9,4=4.5")]
    got = run_cli("trec_eval", "-q", "-m", "P.5,7,3", "-m", "recall.20,2000",
                  "-mndcg.1=3,2=9,4=4.5", "-mndcg_cut.10,20,23.4", "-msuccess.2,5,20",
                  _need("qrels.test"), _need("results.test"))
    assert got.returncode == 0, got.stderr
    assert got.stdout.splitlines() == expected
    assert len(expected) == 4 * 12


@pytest.mark.parametrize(
    ("args", "match"),
    [
        ([], "not supported yet: num_ret, num_rel, num_rel_ret, gm_map, bpref, iprec_at_recall"),
        (["-m", "official"], "not supported yet: num_ret"),
        (["-m", "all_trec"], "relstring"),
        (["-m", "bpref"], "trec_eval measure not supported yet: bpref;"),
        (["-m", "nosuch"], "unknown trec_eval measure 'nosuch'"),
        (["-m", "P.x"], "cut-off 'x' is not a positive integer"),
        (["-m", "map.5"], "map takes no parameters"),
        (["-m", "ndcg.1:3"], "not a level=gain pair"),
        (["-J", "-m", "map"], "-J (judged documents only) is not supported yet"),
    ],
)
def test_unsupported_or_bad_measures_are_usage_errors(tmp_path, args, match):
    q = tmp_path / "q.txt"
    q.write_text("1 0 a 1\n")
    r = tmp_path / "r.txt"
    r.write_text("1 Q0 a 1 1.0 t\n")
    got = run_cli("trec_eval", *args, q, r)
    assert got.returncode == 2, got.stderr
    assert got.stdout == ""
    last = got.stderr.strip().splitlines()[-1]
    assert last.startswith("sk-rankmetrics trec_eval: error: ") and match in last, last


def test_sets_and_order():
    assert set(SETS["official"]) <= set(MEASURES)
    chosen = parse_measures(["ndcg_cut.10", "map", "P.10,5", "runid", "num_q"])
    assert list(chosen) == ["runid", "num_q", "map", "P", "ndcg_cut"]  # trec_eval's order
    assert [r[1] for r in requests(chosen)] == ["map", "P_5", "P_10", "ndcg_cut_10"]


def test_no_summary_and_runid(tmp_path):
    q = tmp_path / "q.txt"
    q.write_text("1 0 a 1\n2 0 b 1\n")
    r = tmp_path / "r.txt"
    r.write_text("1 Q0 a 1 1.0 mytag\n2 Q0 c 1 1.0 mytag\n")
    got = run_cli("trec_eval", "-q", "-n", "-m", "map", "-m", "runid", q, r)
    assert got.returncode == 0, got.stderr
    assert got.stdout == f"{'map':<22}\t1\t1.0000\n{'map':<22}\t2\t0.0000\n"
    got = run_cli("trec_eval", "-m", "runid", "-m", "num_q", "-m", "map", q, r)
    assert got.stdout.splitlines() == [f"{'runid':<22}\tall\tmytag", f"{'num_q':<22}\tall\t2",
                                       f"{'map':<22}\tall\t0.5000"]


# -- against pytrec_eval on random tie-heavy files -------------------------------

PYTREC = ["map", "P_5", "P_10", "recall_5", "recall_100", "ndcg", "ndcg_cut_5", "ndcg_cut_10",
          "recip_rank", "Rprec", "success_1", "success_5", "map_cut_5"]


def _random_files(rng, tmp_path, n_q=12):
    qrels, run = [], []
    for i in range(n_q):
        q = f"q{i}"
        docs = [f"d{j}" for j in rng.permutation(40)[: rng.integers(1, 40)]]
        for d in docs[: rng.integers(0, len(docs) + 1)]:
            qrels.append((q, d, int(rng.integers(-1, 4))))
        if rng.random() < 0.85:  # some judged queries have no ranking
            for d in rng.permutation(docs + [f"u{j}" for j in range(10)]).tolist():
                run.append((q, d, float(rng.integers(0, 6)) / 2))  # many ties
    run.append(("extra", "d1", 1.0))  # a ranked query without judgements
    (tmp_path / "q.txt").write_text("".join(f"{q} 0 {d} {r}\n" for q, d, r in qrels))
    (tmp_path / "r.txt").write_text("".join(f"{q} Q0 {d} 0 {s} t\n" for q, d, s in run))
    return qrels, run


@pytest.mark.parametrize("seed", range(6))
def test_matches_pytrec_eval_per_query(tmp_path, seed):
    pytrec_eval = pytest.importorskip("pytrec_eval")
    rng = np.random.default_rng(seed)
    qrels, run = _random_files(rng, tmp_path)
    level = int(rng.integers(1, 3))
    max_docs = int(rng.choice([5, 20, 1000]))
    complete = bool(seed % 2)
    qd, rd = {}, {}
    for q, d, r in qrels:
        qd.setdefault(q, {})[d] = r
    # -M: trec_eval's order (score descending, docno descending), then the cut.
    by_docno = sorted(run, key=lambda t: t[1].encode(), reverse=True)
    for q, d, s in sorted(by_docno, key=lambda t: (t[0], -t[2])):
        rows = rd.setdefault(q, {})
        if len(rows) < max_docs:
            rows[d] = s
    ev = pytrec_eval.RelevanceEvaluator(qd, {"map", "P", "recall", "ndcg", "ndcg_cut",
                                             "recip_rank", "Rprec", "success", "map_cut"},
                                        relevance_level=level)
    ref = ev.evaluate({q: v for q, v in rd.items() if q in qd})
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = evaluate_run(tmp_path / "q.txt", tmp_path / "r.txt", PYTREC, setting="trec_eval",
                           threshold=level, max_docs=max_docs, complete=complete)
    judged = sorted(qd)
    expected_q = judged if complete else sorted(q for q in judged if q in rd)
    assert res.query_ids.tolist() == expected_q
    for m in PYTREC:
        for i, q in enumerate(res.query_ids.tolist()):
            want = ref[q][m] if q in ref else 0.0
            assert abs(res.per_query[m][i] - want) <= 1e-9, (seed, m, q)
