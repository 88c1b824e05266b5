"""``sk-rankmetrics trec_eval``: byte for byte against trec_eval's own outputs, and
per query against pytrec_eval on random tie-heavy files."""

from __future__ import annotations

import os
import subprocess
import sys

import numpy as np
import pytest
from conftest import ROOT

from sk_rankmetrics import evaluate_run
from sk_rankmetrics._files.trec_eval import MEASURES, SETS, parse_measures, requests

#: Slow (the trec_eval command, run as a subprocess): left out by pytest -m 'not slow'.
pytestmark = pytest.mark.slow

TREC = ROOT / "tests" / "data" / "trec_eval"

def run_cli(*args):
    env = dict(os.environ)
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    return subprocess.run([sys.executable, "-m", "sk_rankmetrics", *map(str, args)],
                          capture_output=True, text=True, env=env, timeout=300)


#: Every output of trec_eval 10.0 in tests/data/trec_eval, with the flags that made it.
ALL = ["-m", "all_trec"]
CASES = [
    ("out.test", "qrels.test", "results.test", []),
    ("out.test.a", "qrels.test", "results.test", ALL),
    ("out.test.aq", "qrels.test", "results.test", [*ALL, "-q"]),
    ("out.test.aqc", "qrels.test", "results.trunc", [*ALL, "-q", "-c"]),
    ("out.test.aqcM", "qrels.test", "results.trunc", [*ALL, "-q", "-c", "-M100"]),
    ("out.test.aql", "qrels.rel_level", "results.test",
     [*ALL, "-mrelstring.20", "-q", "-l2"]),
    ("out.test.meas_params", "qrels.test", "results.test",
     ["-q", "-m", "P.5,7,3", "-m", "recall.20,2000", "-mndcg.1=3,2=9,4=4.5",
      "-mndcg_cut.10,20,23.4", "-msuccess.2,5,20", "-miprec_at_recall.0.1,0.2,0.25,0.5,0.75",
      "-mRprec_mult.0.2,0.35,5", "-mutility.2,-1,0,0", "-m11pt_avg..25,.5,.75"]),
    ("out.comment.test", "qrels.comment.test", "results.comment.test", []),
]


@pytest.mark.parametrize(("out", "qrels", "run", "flags"), CASES, ids=[c[0] for c in CASES])
def test_byte_for_byte_against_trec_eval(out, qrels, run, flags):
    """The whole output, every line: every measure of all_trec, relstring,
    parameters, -c, -M and -l, with graded and negative levels."""
    expected = (TREC / out).read_text()
    got = run_cli("trec_eval", *flags, TREC / qrels, TREC / run)
    assert got.returncode == 0, got.stderr
    assert got.stdout == expected


@pytest.mark.parametrize(
    ("args", "match"),
    [
        (["-m", "prefs_simp"], "trec_eval measure not supported: prefs_simp (preference"),
        (["-m", "qrels_jg"], "not supported: map_avgjg, P_avgjg, Rprec_mult_avgjg"),
        (["-m", "dcg"], "trec_eval measure not supported: dcg"),
        (["-m", "utility.1,2"], "utility takes 4 values"),
        (["-m", "rbp.1=2"], "'1=2' is not a name=value pair"),
        (["-m", "rbp.q=2"], "rbp takes p=VALUE"),
        (["-m", "nosuch"], "unknown trec_eval measure 'nosuch'"),
        (["-m", "P.x"], "cut-off 'x' is not a positive integer"),
        (["-m", "map.5"], "map takes no parameters"),
        (["-m", "ndcg.1:3"], "not a level=gain pair"),
        (["-m", "P.5,5"], "measure 'P.5,5': cut-off 5 is given twice; give each once."),
        (["-m", "P.5,5.5"], "cut-off 5 is given twice"),  # atol: 5.5 is 5, as trec_eval
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


TREC10 = ROOT / "tests" / "data" / "trec_eval10"


def test_a_measure_given_parameters_twice_keeps_the_first_as_trec_eval():
    """trec_eval reads the first -m entry that names a measure (meas_init.c:
    the first match in its -m list, then break); a set takes the parameters
    given for its measures. Byte for byte against trec_eval 10.0
    (tests/data/trec_eval10/out.twice), with one warning per entry left out."""
    flags = ["-q", "-m", "P.10", "-m", "P.5", "-m", "official", "-m", "recall.5",
             "-m", "recall.10,20", "-m", "ndcg.1=3", "-m", "ndcg.1=9,2=1", "-m", "map_cut",
             "-m", "map_cut.5", "-m", "ndcg_cut.20,5", "-m", "ndcg_cut.5"]
    got = run_cli("trec_eval", *flags, TREC / "qrels.rel_level", TREC / "results.test")
    assert got.returncode == 0, got.stderr
    assert got.stdout == (TREC10 / "out.twice").read_text()
    said = "is left out: trec_eval reads only the first parameters given for a measure"
    assert got.stderr.splitlines() == [
        f"sk-rankmetrics: warning: -m {later} {said} (here -m {first}); give all of them in "
        "one -m." for later, first in [("P.5", "P.10"), ("recall.10,20", "recall.5"),
                                       ("ndcg.1=9,2=1", "ndcg.1=3"),
                                       ("ndcg_cut.5", "ndcg_cut.20,5")]]
    # The same parameters twice lose nothing: no warning.
    got = run_cli("trec_eval", "-m", "P.5,10", "-m", "P.10,5", TREC / "qrels.test",
                  TREC / "results.test")
    assert got.stderr == "" and [line.split()[0] for line in got.stdout.splitlines()] == [
        "P_5", "P_10"]


def test_parse_measures_keeps_the_first_parameters():
    ignored = []
    chosen = parse_measures(["P", "P.10", "official", "P.5,20", "P.20,10", "ndcg.1=3",
                             "ndcg.1=3"], ignored)
    assert chosen["P"] == (10,) and chosen["ndcg"][0] == "1=3"
    assert ignored == [("P.5,20", "P.10"), ("P.20,10", "P.10")]  # ndcg.1=3 twice: the same
    assert parse_measures(["P.5", "P.10"])["P"] == (5,)


def test_sets_and_order():
    assert set(SETS["official"]) <= set(MEASURES)
    chosen = parse_measures(["ndcg_cut.10", "map", "P.10,5", "runid", "num_q"])
    assert list(chosen) == ["runid", "num_q", "map", "P", "ndcg_cut"]  # trec_eval's order
    assert [r[1] for r in requests(chosen)] == ["num_q", "map", "P_5", "P_10", "ndcg_cut_10"]


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

#: Every numeric measure pytrec_eval (trec_eval 9) computes, at its defaults.
PYTREC_MEASURES = {"map", "gm_map", "Rprec", "bpref", "recip_rank", "iprec_at_recall", "P",
                   "recall", "infAP", "gm_bpref", "Rprec_mult", "utility", "11pt_avg", "binG",
                   "G", "ndcg", "ndcg_rel", "Rndcg", "ndcg_cut", "map_cut", "relative_P",
                   "success", "set_P", "set_relative_P", "set_recall", "set_map", "set_F",
                   "num_nonrel_judged_ret", "num_ret", "num_rel", "num_rel_ret"}
#: Measures trec_eval prints only in its summary line (geometric means).
SUMMARY_ONLY = {"gm_map", "gm_bpref"}
#: trec_eval 10 rounds a recall level times R to the nearest count (lround);
#: trec_eval 9, inside pytrec_eval, added 0.9 and truncated. The reference
#: outputs of trec_eval 10 check these two (test_byte_for_byte_against_trec_eval).
VERSION_10_ROUNDING = {"iprec_at_recall", "11pt_avg"}


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


@pytest.mark.parametrize("seed", range(8))
def test_matches_pytrec_eval_per_query(tmp_path, seed):
    """Every measure pytrec_eval computes, per query to 1e-9, on random files with
    ties, unjudged and pooled-unjudged documents, graded and negative levels,
    and every combination of -c, -l, -M and -J."""
    pytrec_eval = pytest.importorskip("pytrec_eval")
    rng = np.random.default_rng(seed)
    qrels, run = _random_files(rng, tmp_path)
    level = int(rng.integers(1, 3))
    max_docs = int(rng.choice([5, 20, 1000]))
    complete = bool(seed % 2)
    judged_only = seed % 4 >= 2
    qd, rd = {}, {}
    for q, d, r in qrels:
        qd.setdefault(q, {})[d] = r
    # -M in trec_eval's order (score descending, docno descending); -J after
    # it, as trec_eval does (pytrec_eval removes the unjudged documents itself).
    by_docno = sorted(run, key=lambda t: t[1].encode(), reverse=True)
    for q, d, s in sorted(by_docno, key=lambda t: (t[0], -t[2])):
        rows = rd.setdefault(q, {})
        if len(rows) < max_docs:
            rows[d] = s
    ev = pytrec_eval.RelevanceEvaluator(qd, PYTREC_MEASURES, relevance_level=level,
                                        judged_docs_only_flag=judged_only)
    ref = ev.evaluate({q: v for q, v in rd.items() if q in qd})
    names = sorted(m for m in next(iter(ref.values()))
                   if m.rpartition("_")[0] not in VERSION_10_ROUNDING
                   and m not in VERSION_10_ROUNDING)
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = evaluate_run(tmp_path / "q.txt", tmp_path / "r.txt", names, setting="trec_eval",
                           threshold=level, max_docs=max_docs, complete=complete,
                           judged_only=judged_only)
    judged = sorted(qd)
    expected_q = judged if complete else sorted(q for q in judged if q in rd)
    assert res.query_ids.tolist() == expected_q
    assert len(names) > 60  # every cut-off, level and multiple of every measure
    for m in names:
        for i, q in enumerate(res.query_ids.tolist()):
            if q not in ref:  # -c: a judged query the run does not rank
                continue
            want = ref[q][m]
            if m in SUMMARY_ONLY:  # pytrec_eval gives log(max(x, 1e-5)) per query
                want = np.exp(want)
                got = max(res.per_query[m][i], 1e-5)
            else:
                got = res.per_query[m][i]
            assert abs(got - want) <= 1e-9, (seed, m, q, got, want)
    # trec_eval 9's rounding of the recall levels: recall_rounding="plus_0.9",
    # which ir_measures' IPrec implies.
    v9 = [(m, {"recall_rounding": "plus_0.9"}) for m in ref[judged[0]]
          if m.rpartition("_")[0] in VERSION_10_ROUNDING or m in VERSION_10_ROUNDING]
    assert len(v9) == 12
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res9 = evaluate_run(tmp_path / "q.txt", tmp_path / "r.txt", v9, setting="trec_eval",
                            threshold=level, max_docs=max_docs, complete=complete,
                            judged_only=judged_only)
        irm = evaluate_run(tmp_path / "q.txt", tmp_path / "r.txt",
                           [f"IPrec(rel={level})@0.4"], setting="trec_eval",
                           max_docs=max_docs, complete=complete, judged_only=judged_only)
    for m, _ in v9:
        for i, q in enumerate(res9.query_ids.tolist()):
            if q not in ref:
                continue
            # With no document left to rank (-J removing every one), trec_eval 9
            # divides 0 by 0; trec_eval 10 and this package give 0.
            want = 0.0 if np.isnan(ref[q][m]) else ref[q][m]
            assert abs(res9.per_query[m][i] - want) <= 1e-9, (seed, m, q)
    np.testing.assert_allclose(irm.per_query[f"IPrec(rel={level})@0.4"],
                               res9.per_query["iprec_at_recall_0.40"], atol=0, rtol=0)
