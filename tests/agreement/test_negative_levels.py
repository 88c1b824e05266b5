"""Negative relevance levels, as TREC Web track qrels have them (spam -2, junk -1).

A negative level of qrels or of an id truth (files, data frames, ``{id: level}``
dicts, Dask collections, the command line) marks a document in the pool that
is not judged, as trec_eval and ir_measures read it: never relevant, worth 0,
skipped by bpref, pooled for Judged@k and infAP; a gain that names the level
gives it that gain. A user's own matrix keeps scikit-learn's rule: a
normalised metric refuses a negative gain. Reference values: trec_eval 10's
outputs in ``tests/data/trec_eval10`` (its README), pytrec_eval and
ir_measures when installed.
"""

from __future__ import annotations

import math
import os
import subprocess
import sys
import warnings

import numpy as np
import pytest
from conftest import ROOT
from hypothesis import given, settings
from hypothesis import strategies as st

import sk_rankmetrics as skr
from sk_rankmetrics import TrecQrels, TrecRun, evaluate, evaluate_ranked, evaluate_run
from sk_rankmetrics._metrics.registry import METRICS

DATA = ROOT / "tests" / "data" / "trec_eval10"
QRELS, RUN = DATA / "qrels.webtrack", DATA / "run.webtrack"
#: The relevant document at rank 2 below the junk one: nDCG = 1 / log2(3).
WEB = 1 / math.log2(3)

#: The Web track example, as a dict truth and ranked lists.
TRUTH = {"201": {"clueweb09-en0003-55-31884": -1, "clueweb09-en0011-77-17391": 1}}
LISTS = {"201": ["clueweb09-en0003-55-31884", "clueweb09-en0011-77-17391"]}


def run_cli(*args):
    env = dict(os.environ)
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    return subprocess.run([sys.executable, "-m", "sk_rankmetrics", *map(str, args)],
                          capture_output=True, text=True, env=env, timeout=300)


# -- the Web track example: 0.6309 wherever qrels are read ------------------------------


@pytest.mark.parametrize("setting", ["sk_rankmetrics", "trec_eval"])
def test_the_web_track_example_from_a_file(setting):
    res = evaluate_run(QRELS, RUN, ["nDCG@10", "ndcg@10", "ndcg_cut_10", "ndcg", "map",
                                    "P@5", "mrr", "bpref", "Judged@10", "infAP", "num_rel"],
                       setting=setting)
    assert res.mean == pytest.approx({
        "nDCG@10": WEB, "ndcg@10": WEB, "ndcg_cut_10": WEB, "ndcg": WEB, "map": 0.5,
        "P@5": 0.2, "mrr": 0.5,
        # In the pool, not judged: bpref does not count the -1 document above
        # the relevant one (trec_eval prints 1.0000), Judged@10 does.
        "bpref": 1.0, "Judged@10": 1.0, "infAP": 0.75, "num_rel": 1.0}, abs=1e-12)


def test_the_web_track_example_from_frames_and_id_truths():
    pd = pytest.importorskip("pandas")
    qrels = pd.DataFrame({"query_id": ["201", "201"], "doc_id": list(TRUTH["201"]),
                          "relevance": [-1, 1]})
    run = pd.DataFrame({"query_id": ["201", "201"], "doc_id": LISTS["201"],
                        "score": [2.0, 1.0]})
    assert evaluate_run(qrels, run, ["nDCG@10"])["nDCG@10"] == pytest.approx(WEB, abs=1e-12)
    for truth in (TRUTH, qrels.rename(columns={"query_id": "query", "doc_id": "item"})):
        res = evaluate_ranked(LISTS, truth, ["nDCG@10", "ndcg@10", "bpref", "judged@10"])
        assert res.mean == pytest.approx(
            {"nDCG@10": WEB, "ndcg@10": WEB, "bpref": 1.0, "judged@10": 1.0}, abs=1e-12)
    q = TrecQrels(np.array(["201", "201"]), np.array(list(TRUTH["201"])), np.array([-1, 1]))
    r = TrecRun(np.array(["201", "201"]), np.array(LISTS["201"]), np.array([2.0, 1.0]))
    assert evaluate_run(q, r, ["ndcg@10"])["ndcg@10"] == pytest.approx(WEB, abs=1e-12)


def test_the_web_track_example_on_dask():
    dd = pytest.importorskip("dask.dataframe")
    pd = pytest.importorskip("pandas")
    qrels = dd.from_pandas(pd.DataFrame({"query_id": ["201", "201"],
                                         "doc_id": list(TRUTH["201"]),
                                         "relevance": [-1, 1]}), npartitions=1)
    run = dd.from_pandas(pd.DataFrame({"query_id": ["201", "201"], "doc_id": LISTS["201"],
                                       "score": [2.0, 1.0]}), npartitions=1)
    res = evaluate_run(qrels, run, ["nDCG@10", "bpref"])
    assert res.mean == pytest.approx({"nDCG@10": WEB, "bpref": 1.0}, abs=1e-12)


def test_the_tools_give_the_web_track_example_0_6309():
    ir_measures = pytest.importorskip("ir_measures")
    pytrec_eval = pytest.importorskip("pytrec_eval")
    qrels = list(ir_measures.read_trec_qrels(str(QRELS)))
    run = list(ir_measures.read_trec_run(str(RUN)))
    got = ir_measures.calc_aggregate([ir_measures.parse_measure("nDCG@10")], qrels, run)
    assert list(got.values()) == [pytest.approx(WEB, abs=1e-12)]
    ev = pytrec_eval.RelevanceEvaluator(TRUTH, {"ndcg_cut_10", "bpref"})
    scores = {"201": {"clueweb09-en0003-55-31884": 2.0, "clueweb09-en0011-77-17391": 1.0}}
    assert ev.evaluate(scores)["201"] == pytest.approx({"ndcg_cut_10": WEB, "bpref": 1.0})


@pytest.mark.slow
def test_the_web_track_example_from_the_command_line():
    for flags in ([], ["--trec-eval"]):
        out = run_cli("evaluate", QRELS, RUN, "-m", "nDCG@10", "-m", "bpref", *flags)
        assert out.returncode == 0, out.stderr
        assert out.stderr == ""
        assert out.stdout.splitlines()[-1].split() == ["all", "0.6309", "1.0000"]
    # sk-rankmetrics trec_eval: trec_eval 10's bytes.
    out = run_cli("trec_eval", "-q", "-m", "all_trec", QRELS, RUN)
    assert out.returncode == 0, out.stderr
    assert out.stdout == (DATA / "out.webtrack").read_text()


# -- every layout the same: a negative level is a pooled, unjudged document -------------


def _names():
    """Every registered metric by a name with its cut-off where it takes one
    (those without an expected value over tied orders left out: the C/W/L
    measures, compared with ir_measures in test_ir_measures_registry.py)."""
    out = []
    for name, spec in METRICS.items():
        if spec.ties == "refuse":
            continue
        if spec.at_option is not None:
            out.append(f"{name}@0.5" if spec.at_option == "recall" else f"{name}@1.2")
        else:
            out.append(f"{name}@3" if spec.takes_k else name)
    return out


NAMES = _names()
#: Metrics that read the pool: the pooled documents count there (Judged@k, infAP).
POOL = {n for n in NAMES if "pool" in METRICS[n.partition("@")[0]].needs}


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n_queries=st.integers(1, 5),
       n_levels=st.integers(1, 4), tie_steps=st.sampled_from([1, 2, 100]))
def test_a_negative_level_is_a_document_the_pool_names_and_nothing_more(
        seed, n_queries, n_levels, tie_steps):
    """Every metric that does not read the pool gives the same number with the
    negative judgements as without them (as if the qrels did not name those
    documents); tied scores (expected values over their orders), queries
    judged only negative, unranked negative documents included."""
    rng = np.random.default_rng(seed)
    qid, doc, rel, rq, rd, rs = [], [], [], [], [], []
    for q in range(n_queries):
        docs = rng.choice(12, size=rng.integers(1, 9), replace=False)
        levels = rng.integers(-2, n_levels, size=docs.size)
        if q == 0:
            levels[0] = max(levels[0], 1)  # one relevant document somewhere
        qid += [f"q{q}"] * docs.size
        doc += [f"d{d}" for d in docs]
        rel += levels.tolist()
        ranked = rng.choice(12, size=rng.integers(1, 10), replace=False)
        rq += [f"q{q}"] * ranked.size
        rd += [f"d{d}" for d in ranked]
        rs += (rng.integers(0, tie_steps, size=ranked.size) / 2).tolist()
    qid, doc, rel = np.array(qid), np.array(doc), np.array(rel, dtype=float)
    run = TrecRun(np.array(rq), np.array(rd), np.array(rs))
    keep = rel >= 0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        full = evaluate_run(TrecQrels(qid, doc, rel), run, NAMES, no_relevant=0.0,
                            complete=True)
        kept = evaluate_run(TrecQrels(qid[keep], doc[keep], rel[keep]), run, NAMES,
                            no_relevant=0.0, complete=True) if keep.any() else None
    for name in NAMES:
        values = full.per_query[name]
        assert np.all(np.isfinite(values) | np.isnan(values)), name
        if METRICS[name.partition("@")[0]].normalized:
            assert np.all((values >= -1e-12) | np.isnan(values)), name
            assert np.all((values <= 1 + 1e-12) | np.isnan(values)), name
        if name in POOL or kept is None:
            continue
        # Queries judged only negative are not in the smaller qrels.
        rows = np.isin(full.query_ids, kept.query_ids)
        np.testing.assert_allclose(values[rows], kept.per_query[name], rtol=1e-9,
                                   atol=1e-12, err_msg=name)


# -- equal to pytrec_eval and ir_measures on a battery of runs --------------------------


def _battery(seed, ties):
    """Qrels of levels -2..2 (a query judged only <= 0, one only negative) and a
    run with unjudged documents; scores in steps of 0.5 when ``ties``."""
    rng = np.random.default_rng(seed)
    qrels, run = {}, {}
    for q in range(1, 11):
        docs = rng.choice(40, size=rng.integers(3, 20), replace=False)
        levels = rng.integers(-2, 3, size=docs.size)
        if q == 3:
            levels = rng.integers(-2, 1, size=docs.size)
        if q == 4:
            levels = rng.integers(-2, 0, size=docs.size)
        qrels[str(q)] = {f"d{d}": int(lv) for d, lv in zip(docs, levels)}
        ranked = rng.choice(40, size=rng.integers(1, 25), replace=False)
        scores = (rng.integers(0, 6, size=ranked.size) / 2 if ties
                  else rng.permutation(ranked.size) + rng.random())
        run[str(q)] = {f"d{d}": float(s) for d, s in zip(ranked, scores)}
    return qrels, run


def _objects(qrels, run):
    q = [(qid, d, lv) for qid, docs in qrels.items() for d, lv in docs.items()]
    r = [(qid, d, s) for qid, docs in run.items() for d, s in docs.items()]
    return (TrecQrels(np.array([x[0] for x in q]), np.array([x[1] for x in q]),
                      np.array([x[2] for x in q], dtype=float)),
            TrecRun(np.array([x[0] for x in r]), np.array([x[1] for x in r]),
                    np.array([x[2] for x in r])))


def _write(qrels, run, path):
    qp, rp = path / "qrels.txt", path / "run.txt"
    qp.write_text("".join(f"{q} 0 {d} {lv}\n" for q, docs in qrels.items()
                          for d, lv in docs.items()))
    rp.write_text("".join(f"{q} Q0 {d} 0 {s} r\n" for q, docs in run.items()
                          for d, s in docs.items()))
    return qp, rp


#: trec_eval names compared with pytrec_eval (trec_eval 9; these agree with 10).
TREC = ["ndcg", "ndcg_cut_10", "map", "map_cut_10", "P_5", "P_10", "recall_10", "bpref",
        "recip_rank", "infAP", "Rprec", "success_5", "num_rel", "num_rel_ret", "num_ret"]


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("ties", [False, True])
def test_the_trec_eval_setting_equals_pytrec_eval(seed, ties):
    pytrec_eval = pytest.importorskip("pytrec_eval")
    qrels, run = _battery(seed, ties)
    want = pytrec_eval.RelevanceEvaluator(qrels, set(TREC)).evaluate(run)
    res = evaluate_run(*_objects(qrels, run), TREC, setting="trec_eval")
    assert sorted(res.query_ids.tolist()) == sorted(want)
    for i, q in enumerate(res.query_ids.tolist()):
        for name in TREC:
            assert res.per_query[name][i] == pytest.approx(want[q][name], abs=1e-12), (q, name)


@pytest.mark.slow
@pytest.mark.parametrize("seed", range(3))
def test_the_trec_eval_command_prints_pytrec_evals_values(seed, tmp_path):
    """Byte for byte: every line per query, and the means trec_eval prints
    (the per-query values added in query order, over their number)."""
    pytrec_eval = pytest.importorskip("pytrec_eval")
    qrels, run = _battery(seed, ties=True)
    want = pytrec_eval.RelevanceEvaluator(qrels, set(TREC)).evaluate(run)
    counts = {"num_rel", "num_rel_ret", "num_ret"}
    measures = ["ndcg", "ndcg_cut.10", "map", "map_cut.10", "P.5,10", "recall.10", "bpref",
                "recip_rank", "infAP", "Rprec", "success.5", "num_rel", "num_rel_ret",
                "num_ret"]
    queries = sorted(want)  # trec_eval's order: the query ids as byte strings

    def line(name, q, v):
        return f"{name:<22}\t{q}\t{round(v) if name in counts else format(v, '6.4f')}"

    expected = []
    for q in queries:
        expected += [line(n, q, want[q][n]) for n in TREC]
    for n in TREC:
        values = [want[q][n] for q in queries]
        total = 0.0
        for v in values:  # trec_eval adds them one after the other
            total += v
        expected.append(line(n, "all", total if n in counts else total / len(values)))
    qp, rp = _write(qrels, run, tmp_path)
    args = [a for m in measures for a in ("-m", m)]
    out = run_cli("trec_eval", "-q", *args, qp, rp)
    assert out.returncode == 0, out.stderr
    # trec_eval prints the measures in its own order; compare line sets per query.
    got = out.stdout.splitlines()
    assert sorted(got) == sorted(expected)
    assert [x.split("\t")[1] for x in got] == [x.split("\t")[1] for x in expected]


#: ir_measures' names, and this package's names that mean the same.
IRM = {"nDCG@10": "ndcg@10", "nDCG": None, "AP": "map", "AP@10": None, "P@5": "precision@5",
       "R@10": "recall@10", "RR": "mrr", "Bpref": "bpref", "Judged@10": "judged@10",
       "infAP": "infap", "Rprec": "r_precision", "NumRel": None, "P(rel=2)@5": None,
       "nDCG(gains={-2:0,-1:1,0:0,1:1,2:3})": None, "nDCG(gains={-1:2})@10": None}


def _ir_measure(ir_measures, name):
    """ir_measures' measure of a name; its parser takes no negative number
    (``gains={-1: 2}``): those are built from the measure's object."""
    if "gains=" not in name:
        return ir_measures.parse_measure(name)
    head, _, cutoff = name.partition(")@")
    measure = ir_measures.nDCG(gains=eval(head.partition("gains=")[2].rstrip(")")))
    return measure @ int(cutoff) if cutoff else measure


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("setting", ["sk_rankmetrics", "trec_eval"])
def test_ir_measures_names_and_ours_equal_ir_measures(seed, setting, tmp_path):
    """Tie-free runs: ir_measures' names give its values under both settings,
    this package's names the same numbers by the default setting, and
    evaluate_ranked on a dict truth the numbers evaluate_run gives."""
    ir_measures = pytest.importorskip("ir_measures")
    qrels, run = _battery(seed, ties=False)
    qp, rp = _write(qrels, run, tmp_path)
    irq = list(ir_measures.read_trec_qrels(str(qp)))
    irr = list(ir_measures.read_trec_run(str(rp)))
    names = list(IRM) + ([v for v in IRM.values() if v] if setting == "sk_rankmetrics" else [])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the queries without a relevant document
        res = evaluate_run(qp, rp, names, setting=setting, no_relevant=0.0)
    for irm, ours in IRM.items():
        want = {m.query_id: m.value
                for m in ir_measures.iter_calc([_ir_measure(ir_measures, irm)], irq, irr)}
        got = dict(zip(res.query_ids.tolist(), res.per_query[irm].tolist()))
        assert got == pytest.approx(want, abs=1e-12), irm
        if ours is not None and setting == "sk_rankmetrics":
            mine = dict(zip(res.query_ids.tolist(), res.per_query[ours].tolist()))
            assert mine == pytest.approx(want, abs=1e-12), ours
    if setting == "sk_rankmetrics":
        lists = {q: sorted(docs, key=docs.get, reverse=True) for q, docs in run.items()}
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            ranked = evaluate_ranked(lists, qrels, names, no_relevant=0.0)
        for name in names:
            assert dict(zip(ranked.query_ids.tolist(), ranked.per_query[name].tolist())) \
                == pytest.approx(dict(zip(res.query_ids.tolist(),
                                          res.per_query[name].tolist())), abs=1e-12), name


# -- gains that name negative levels; the threshold ---------------------------------------


NEG_QRELS, NEG_RUN = DATA / "qrels.neggain", DATA / "run.neggain"


def test_a_gain_that_names_a_negative_level_gives_it_that_gain():
    """In the DCG and in the ideal: evaluate_run's gains (trec_eval's syntax in
    the default setting), a gain mapping, a callable, ir_measures' gains."""
    # Query 2: e (-2) first, f (1) second, y unjudged; e worth 1 and f 1.
    ideal = 1 + 1 / math.log2(3)
    res = evaluate_run(NEG_QRELS, NEG_RUN, ["ndcg"], gains={-2: 1})
    assert res.per_query["ndcg"][1] == pytest.approx(1.0, abs=1e-12)
    res = evaluate_run(NEG_QRELS, NEG_RUN, ["ndcg.-2=1"])
    assert res.per_query["ndcg_-2=1"][1] == pytest.approx(1.0, abs=1e-12)
    truth = {"2": {"e": -2, "f": 1, "g": 0}}
    lists = {"2": ["e", "f", "y"]}
    for gain in ({-2: 1.0, 0: 0.0, 1: 1.0}, lambda r: np.abs(r) / np.maximum(np.abs(r), 1)):
        got = evaluate_ranked(lists, truth, [("dcg", {"gain": gain}), ("ndcg", {"gain": gain})])
        assert got.mean == pytest.approx({"dcg": ideal, "ndcg": 1.0}, abs=1e-12)
    # A level the gain does not name stays worth 0 (the -1 of query 1).
    res = evaluate_run(NEG_QRELS, NEG_RUN, ["ndcg"], gains={-2: 1})
    plain = evaluate_run(NEG_QRELS, NEG_RUN, ["ndcg"])
    assert res.per_query["ndcg"][0] == plain.per_query["ndcg"][0]


def test_ir_measures_gains_of_negative_levels_are_ir_measures():
    ir_measures = pytest.importorskip("ir_measures")
    qrels = list(ir_measures.read_trec_qrels(str(NEG_QRELS)))
    run = list(ir_measures.read_trec_run(str(NEG_RUN)))
    for name in ("nDCG(gains={-2:1,-1:3})", "nDCG(gains={-1:-5})", "nDCG(gains={-2:0})@2"):
        want = {m.query_id: m.value for m in
                ir_measures.iter_calc([_ir_measure(ir_measures, name)], qrels, run)}
        for setting in ("sk_rankmetrics", "trec_eval"):
            res = evaluate_run(NEG_QRELS, NEG_RUN, [name], setting=setting)
            got = dict(zip(res.query_ids.tolist(), res.per_query[name].tolist()))
            assert got == pytest.approx(want, abs=1e-12), (name, setting)


def test_the_trec_eval_setting_refuses_trec_eval_gains_for_negative_levels():
    """trec_eval gives them in the DCG only (out.neggain: 1.6309 for query 2):
    refused, except a gain of 0, which trec_eval's output matches."""
    assert "ndcg_-2=1             \t2\t1.6309" in (DATA / "out.neggain").read_text()
    for kwargs, metrics in (({"gains": {-2: 1}}, ["ndcg"]), ({}, ["ndcg.-2=1"]),
                            ({}, ["ndcg_rel.1=2,-1=3"]), ({"gains": {-1: 0.5}}, ["G"])):
        with pytest.raises(skr.InvalidParameterError,
                           match=r"evaluate_run: .*a gain for the negative level -[12] "
                                 r"\(-[12]=[0-9.]+\) is not reproduced in the trec_eval "
                                 r"setting: trec_eval gives the gain listed for -2"):
            evaluate_run(NEG_QRELS, NEG_RUN, metrics, setting="trec_eval", **kwargs)
    res = evaluate_run(NEG_QRELS, NEG_RUN, ["ndcg.-2=0", "bpref", "infAP", "map", "P_5",
                                            "recip_rank"], setting="trec_eval")
    want = {}
    for line in (DATA / "out.neggain0").read_text().splitlines():
        name, q, value = line.split("\t")
        want.setdefault(name.strip(), {})[q] = float(value)
    for name, values in want.items():
        got = dict(zip(res.query_ids.tolist(), np.round(res.per_query[name], 4).tolist()))
        got["all"] = round(res.mean[name], 4)
        assert got == values, name


@pytest.mark.slow
def test_the_trec_eval_command_refuses_a_gain_for_a_negative_level():
    out = run_cli("trec_eval", "-q", "-m", "ndcg.-2=1", NEG_QRELS, NEG_RUN)
    assert out.returncode != 0
    assert ("error: -m ndcg.-2=1: a gain for the negative level -2 is not reproduced: "
            "trec_eval gives the gain listed for -2") in out.stderr
    assert "sk-rankmetrics evaluate -m ndcg.-2=1" in out.stderr
    out = run_cli("trec_eval", "-q", "-m", "ndcg.-2=0", "-m", "bpref", "-m", "infAP",
                  "-m", "map", "-m", "P.5", "-m", "recip_rank", NEG_QRELS, NEG_RUN)
    assert out.returncode == 0, out.stderr
    assert out.stdout == (DATA / "out.neggain0").read_text()


def test_a_gain_that_makes_a_negative_level_worth_less_than_0_is_refused():
    with pytest.raises(ValueError, match=r"ndcg@10: the 'callable' gain gives level -1 the "
                                         r"gain -0.5, which a normalised metric cannot take"):
        evaluate_ranked(LISTS, TRUTH, [("ndcg@10", {"gain": lambda r: 2.0 ** r - 1})])
    with pytest.raises(ValueError, match=r"the 'mapping' gain gives level -1 the gain -1"):
        evaluate_run(QRELS, RUN, ["ndcg"], gains={-1: -1})
    # A DCG may add a negative gain: the user asked for it.
    got = evaluate_ranked(LISTS, TRUTH, [("dcg", {"gain": {-1: -1, 1: 1}})])
    assert got["dcg"] == pytest.approx(-1 + WEB, abs=1e-12)


def test_threshold_keeps_its_meaning_among_the_judged_levels():
    """threshold=0 counts every judged level (pytrec_eval's relevance_level=0);
    a threshold at or below a negative level would call relevant a document the
    qrels do not judge: refused, naming the argument and the way out."""
    # trec_eval 10 -l 0 (out.neggain_l0): num_rel 3 (a c d) and 2 (f g), P_5 0.4 and 0.2.
    want = [line.split("\t") for line in (DATA / "out.neggain_l0").read_text().splitlines()]
    for setting in ("sk_rankmetrics", "trec_eval"):
        res = evaluate_run(NEG_QRELS, NEG_RUN, ["P_5", "num_rel"], setting=setting,
                           threshold=0)
        for name, q, value in want:
            if q != "all":
                i = res.query_ids.tolist().index(q)
                assert res.per_query[name.strip()][i] == float(value), (setting, name, q)
    for setting in ("sk_rankmetrics", "trec_eval"):
        with pytest.raises(ValueError, match=r"P@5: threshold=-1 would count level -1 as "
                                             r"relevant.*Accepted: threshold >= 0"):
            evaluate_run(NEG_QRELS, NEG_RUN, ["P@5"], setting=setting, threshold=-1)
    with pytest.raises(ValueError, match=r"threshold=-2 would count level -1"):
        evaluate_ranked(LISTS, TRUTH, ["P@5"], threshold=-2)
    # Between -1 and 0 no level is counted that was not: accepted, as 0.
    assert evaluate_ranked(LISTS, TRUTH, ["P@1"], threshold=-0.5)["P@1"] == 0.0
    # The beyond-accuracy measures that read relevance (serendipity) too.
    popularity = {doc: 0.5 for doc in LISTS["201"]}
    with pytest.raises(ValueError, match=r"threshold=-1 would count level -1 as relevant"):
        evaluate_ranked(LISTS, TRUTH, ["serendipity@2"], popularity=popularity,
                        threshold=-1)
    kept = {"201": {d: lv for d, lv in TRUTH["201"].items() if lv >= 0}}
    for threshold in (None, 0):
        assert evaluate_ranked(LISTS, TRUTH, ["serendipity@2"], popularity=popularity,
                               threshold=threshold).mean == evaluate_ranked(
            LISTS, kept, ["serendipity@2"], popularity=popularity, threshold=threshold).mean


# -- a user's own matrix: scikit-learn's rule ---------------------------------------------


def test_a_matrix_keeps_scikit_learns_rule():
    """ndcg_score refuses negative y_true where scikit-learn's does, with a
    message naming the argument and the ways out; dcg_score adds the
    negative gain as scikit-learn's does."""
    sklearn_metrics = pytest.importorskip("sklearn.metrics")
    y, s = [[-1, 2]], [[2.0, 1.0]]
    with pytest.raises(ValueError, match="negative y_true"):
        sklearn_metrics.ndcg_score(y, s)
    message = (r"y_true has negative relevance \(-1\), which a normalised metric, here "
               r"ndcg_score, cannot take \(its ideal would be meaningless; scikit-learn's "
               r"ndcg_score refuses it too\)\. Accepted: y_true >= 0 \(np\.maximum\(y_true, "
               r"0\) reads negative levels as not relevant and worth 0, as evaluate_run and "
               r"evaluate_ranked read the negative levels of qrels\), or gain= a mapping or "
               r"callable that gives every level a gain >= 0")
    with pytest.raises(ValueError, match=message):
        skr.ndcg_score(y, s)
    with pytest.raises(ValueError, match=r"here ndcg@10, cannot take"):
        evaluate(y, s, ["ndcg@10"])
    with pytest.raises(ValueError, match=r"here ndcg@10, cannot take"):
        evaluate([-1, 2], [2.0, 1.0], ["ndcg@10"], qid=[0, 0])
    assert skr.dcg_score(y, s) == pytest.approx(sklearn_metrics.dcg_score(y, s), abs=1e-12)
    assert skr.ndcg_score(y, s, gain={-1: 0, 2: 2}) == pytest.approx(WEB, abs=1e-12)
    assert skr.ndcg_score(np.maximum(y, 0), s) == pytest.approx(WEB, abs=1e-12)
    # On a matrix a negative level is a judged one: binary metrics read it as
    # not relevant, bpref as judged non-relevant (ranx's reading).
    assert evaluate(y, s, ["P@1", "bpref"]) == {"P@1": 0.0, "bpref": 0.0}
