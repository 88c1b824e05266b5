"""Diversity measures on diversity qrels: against ndeval (pyndeval), against plain-loop
references, on hand-computed examples, through the files, the command and
evaluate_ranked, and their errors."""

from __future__ import annotations

import math
import subprocess
import sys
import warnings

import numpy as np
import pytest
import reference_diversity as ref
from conftest import DATA
from hypothesis import given, settings
from hypothesis import strategies as st

from sk_rankmetrics import (
    TrecQrels,
    TrecRun,
    evaluate,
    evaluate_ranked,
    evaluate_run,
    read_trec_qrels,
)
from sk_rankmetrics._utils.errors import InvalidParameterError

# -- random tie-free diversity files ------------------------------------------------


def random_files(seed, n_queries=25, max_subtopics=5, levels=3, n_docs=30, low=0):
    """Diversity qrels lines (query, subtopic, doc, level: ``low`` to ``levels``
    - 1) and run lines (query, doc, score), tie-free, with queries of
    1..max_subtopics subtopics."""
    rng = np.random.default_rng(seed)
    qrels, run = [], []
    for q in range(n_queries):
        n_sub = int(rng.integers(1, max_subtopics + 1))
        docs = list(dict.fromkeys(f"d{rng.integers(0, 2 * n_docs)}" for _ in range(n_docs)))
        for s in range(n_sub):
            for d in docs:
                if rng.random() < 0.5:
                    qrels.append((f"q{q}", str(s + 1), d, int(rng.integers(low, levels))))
        ranked = list(
            dict.fromkeys(f"d{rng.integers(0, 3 * n_docs)}" for _ in range(rng.integers(1, 45)))
        )
        for d, score in zip(ranked, rng.permutation(len(ranked))):
            run.append((f"q{q}", d, float(score) / 7))
    return qrels, run


def as_objects(qrels, run):
    q = TrecQrels(
        np.array([x[0] for x in qrels]),
        np.array([x[2] for x in qrels]),
        np.array([x[3] for x in qrels], dtype=float),
        subtopic=np.array([int(x[1]) for x in qrels]),
    )
    r = TrecRun(
        np.array([x[0] for x in run]),
        np.array([x[1] for x in run]),
        np.array([x[2] for x in run]),
    )
    return q, r


# ndeval's column name -> ir_measures' name, for a relevance level, alpha and beta.
def _pairs(rel, alpha, beta, ks):
    out = []
    for k in ks:
        out += [
            (f"alpha-nDCG@{k}", f"alpha_nDCG(rel={rel}, alpha={alpha})@{k}"),
            (f"alpha-DCG@{k}", f"alpha_DCG(rel={rel}, alpha={alpha})@{k}"),
            (f"P-IA@{k}", f"P_IA(rel={rel})@{k}"),
            (f"strec@{k}", f"StRecall(rel={rel})@{k}"),
        ]
        if alpha == 0.5:  # ir_measures' ERR-IA takes ndeval's default alpha
            out += [
                (f"ERR-IA@{k}", f"ERR_IA(rel={rel})@{k}"),
                (f"nERR-IA@{k}", f"nERR_IA(rel={rel})@{k}"),
            ]
    out += [
        ("NRBP", f"NRBP(rel={rel}, alpha={alpha}, beta={beta})"),
        ("nNRBP", f"nNRBP(rel={rel}, alpha={alpha}, beta={beta})"),
        ("MAP-IA", f"AP_IA(rel={rel})"),
    ]
    return out


@pytest.mark.parametrize(
    "seed, max_subtopics, levels, rel, alpha, beta, ks",
    [
        (0, 1, 2, 1, 0.5, 0.5, (1, 5, 10, 20)),
        (1, 3, 3, 1, 0.5, 0.5, (1, 2, 5, 10, 20)),
        (2, 6, 5, 2, 0.5, 0.8, (3, 7, 20)),
        (3, 4, 5, 3, 0.3, 0.5, (1, 5, 10)),
        (4, 8, 2, 1, 0.9, 0.95, (2, 20)),
        (5, 5, 4, 1, 0.0, 0.5, (4, 12)),
        (6, 5, 4, 2, 1.0, 1.0, (5, 20)),
    ],
)
def test_equals_ndeval_per_query(seed, max_subtopics, levels, rel, alpha, beta, ks):
    qrels, run = random_files(seed, max_subtopics=max_subtopics, levels=levels)
    _equals_ndeval(qrels, run, rel, alpha, beta, ks)


@pytest.mark.parametrize("seed", [7, 8])
def test_negative_judgements_are_not_relevant_as_in_pyndeval(seed):
    """A negative subtopic judgement (TREC Web track: spam -2, junk -1) is not
    relevant to its subtopic, as pyndeval reads it (``relevance >=
    relevance_level``); ndeval's command refuses the line as a syntax error."""
    qrels, run = random_files(seed, max_subtopics=4, levels=3, low=-2)
    assert min(x[3] for x in qrels) == -2
    _equals_ndeval(qrels, run, 1, 0.5, 0.5, (5, 20))
    # The same numbers as with those judgements removed.
    kept = [x for x in qrels if x[3] >= 0]
    names = [b for _, b in _pairs(1, 0.5, 0.5, (5, 20))]
    full = evaluate_run(*as_objects(qrels, run), names, no_relevant=0.0)
    less = evaluate_run(*as_objects(kept, run), names, no_relevant=0.0)
    rows = np.isin(full.query_ids, less.query_ids)
    for name in names:
        np.testing.assert_allclose(full.per_query[name][rows], less.per_query[name],
                                   atol=1e-12, err_msg=name)


def test_a_query_without_relevant_subtopics_as_ndeval_prints_it():
    """ndeval 4.5 prints 0 for every measure of such a query but -nan for
    nNRBP (tests/data/ndeval/out.norel), pyndeval nan; no_relevant=0.0 gives
    ndeval's numbers with nNRBP 0, "skip" leaves the query out, and the default
    warns (docs/diversity.md)."""
    data = DATA / "ndeval"
    lines = [line.split(",") for line in (data / "out.norel").read_text().splitlines()]
    header = lines[0]
    rows = {row[1]: dict(zip(header, row)) for row in lines[1:]}
    assert rows["2"]["nNRBP"] == rows["amean"]["nNRBP"] == "-nan"
    assert {v for k, v in rows["2"].items() if k not in ("runid", "topic", "nNRBP")} \
        == {"0.000000"}
    qrels = read_trec_qrels(data / "qrels.norel", diversity=True)
    pairs = [(name, name.replace("-", "_").replace("strec", "StRecall")
              .replace("MAP_IA", "AP_IA")) for name in header[2:]]
    names = [ours for _, ours in pairs]
    res = evaluate_run(qrels, data / "run.norel", names, no_relevant=0.0)
    for i, topic in enumerate(res.query_ids.tolist()):
        for theirs, ours in pairs:
            want = rows[topic][theirs]
            want = 0.0 if want == "-nan" else float(want)
            assert round(res.per_query[ours][i], 6) == want, (topic, ours)
    skipped = evaluate_run(qrels, data / "run.norel", ["nNRBP", "alpha_nDCG@5"],
                           no_relevant="skip")
    assert np.isnan(skipped.per_query["nNRBP"][1]) and skipped["nNRBP"] == 0.8333333333333334
    with pytest.warns(UserWarning, match="no relevant"):
        evaluate_run(qrels, data / "run.norel", ["nNRBP"])
    pyndeval = pytest.importorskip("pyndeval")
    q = [(f"{t}", s, d, int(lv)) for t, s, d, lv in
         (line.split() for line in (data / "qrels.norel").read_text().splitlines())]
    r = [(t, d, float(sc)) for t, _, d, _, sc, _ in
         (line.split() for line in (data / "run.norel").read_text().splitlines())]
    got = pyndeval.RelevanceEvaluator(q, ["nNRBP", "alpha-nDCG@5"]).evaluate(r)
    assert math.isnan(got["2"]["nNRBP"]) and got["2"]["alpha-nDCG@5"] == 0.0


def test_ndeval_refuses_a_negative_judgement():
    """The line out.negative records; pyndeval and this package read it as not
    relevant (test_negative_judgements_are_not_relevant_as_in_pyndeval)."""
    data = DATA / "ndeval"
    assert (data / "out.negative").read_text().splitlines() == [
        'ndeval: syntax error in qrel file "qrels.negative" at line 2', "exit 1"]


def _equals_ndeval(qrels, run, rel, alpha, beta, ks):
    pyndeval = pytest.importorskip("pyndeval")
    pairs = _pairs(rel, alpha, beta, ks)
    ev = pyndeval.RelevanceEvaluator(
        qrels, [a for a, _ in pairs], relevance_level=rel, alpha=alpha, beta=beta
    )
    want = ev.evaluate(run)
    q, r = as_objects(qrels, run)
    res = evaluate_run(q, r, [b for _, b in pairs], no_relevant=0.0)
    compared = 0
    for i, qid in enumerate(res.query_ids):
        for a, b in pairs:
            w = want[qid][a]
            if math.isnan(w):  # nNRBP of a query without a relevant document: 0/0
                assert res.per_query[b][i] == 0.0
                continue
            assert res.per_query[b][i] == pytest.approx(w, abs=1e-9), (qid, b)
            compared += 1
    assert compared > 100
    assert set(res.query_ids) == set(want)


# -- the kernels against plain loops --------------------------------------------------


def _judged_sets(qrels, threshold=1):
    out = {}
    for q, s, d, level in qrels:
        out.setdefault(q, {})
        if level >= threshold:
            out[q].setdefault(d, set()).add(int(s))
    return out


@pytest.mark.filterwarnings("ignore:.*have no judgements:UserWarning")
@settings(max_examples=40, deadline=None)
@given(
    seed=st.integers(0, 10**6),
    k=st.integers(1, 30),
    alpha=st.sampled_from([0.0, 0.25, 0.5, 1.0]),
    beta=st.sampled_from([0.5, 0.9, 1.0]),
)
def test_kernels_equal_plain_loops(seed, k, alpha, beta):
    qrels, run = random_files(seed, n_queries=6, max_subtopics=4, levels=3, n_docs=12)
    q, r = as_objects(qrels, run)
    names = {
        "alpha_ndcg": (f"alpha_ndcg@{k}", lambda rk, j: ref.alpha_ndcg(rk, j, k, alpha)),
        "alpha_dcg": (f"alpha_dcg@{k}", lambda rk, j: ref.alpha_dcg(rk, j, k, alpha)),
        "err_ia": (f"err_ia@{k}", lambda rk, j: ref.err_ia(rk, j, k, alpha)),
        "nerr_ia": (f"nerr_ia@{k}", lambda rk, j: ref.nerr_ia(rk, j, k, alpha)),
        "nrbp": ("nrbp", lambda rk, j: ref.nrbp(rk, j, alpha, beta)),
        "nnrbp": ("nnrbp", lambda rk, j: ref.nnrbp(rk, j, alpha, beta)),
    }
    plain = {
        "ap_ia": ("ap_ia", ref.ap_ia),
        "p_ia": (f"p_ia@{k}", lambda rk, j: ref.p_ia(rk, j, k)),
        "subtopic_recall": (f"subtopic_recall@{k}", lambda rk, j: ref.subtopic_recall(rk, j, k)),
    }
    metrics = [
        (n, {"redundancy": alpha})
        for n, _ in [names[m] for m in ("alpha_ndcg", "alpha_dcg", "err_ia", "nerr_ia")]
    ]
    metrics += [
        (n, {"redundancy": alpha, "patience": beta}) for n, _ in [names["nrbp"], names["nnrbp"]]
    ]
    metrics += [n for n, _ in plain.values()]
    res = evaluate_run(q, r, metrics, no_relevant="skip")
    judged = _judged_sets(qrels)
    rankings = {}
    for qid, d, _score in sorted(run, key=lambda x: (x[0], -x[2])):
        rankings.setdefault(qid, []).append(d)
    for i, qid in enumerate(res.query_ids):
        for label, fn in [*names.values(), *plain.values()]:
            want = fn(rankings[qid], judged.get(qid, {}))
            got = res.per_query[label][i]
            if want is None:
                assert np.isnan(got)
            else:
                assert got == pytest.approx(want, rel=1e-9, abs=1e-12), (qid, label)


# -- hand-computed examples -----------------------------------------------------------


def test_hand_computed_example():
    # u1 ranks a (subtopics 1, 2), b (none), c (subtopic 2); alpha = 0.5.
    # Gains 2, 0, 0.5: alpha-DCG@3 = 2 + 0.5 / log2(4) = 2.25. The greedy ideal
    # is a, c: 2 + 0.5 / log2(3). S-recall@1 = 1; P-IA@3 = 3 pairs / (3 * 2).
    rec = {"u1": ["a", "b", "c"]}
    truth = (
        np.array(["u1", "u1", "u1"]),
        np.array([1, 2, 2]),
        np.array(["a", "a", "c"]),
        np.ones(3),
    )
    res = evaluate_ranked(rec, truth, ["alpha_ndcg", "subtopic_recall@1", "p_ia", "ap_ia"], k=3)
    assert res.mean["alpha_ndcg@3"] == pytest.approx(2.25 / (2 + 0.5 / math.log2(3)))
    assert res.mean["subtopic_recall@1"] == 1.0
    assert res.mean["p_ia@3"] == pytest.approx(0.5)
    # AP of subtopic 1: 1/1; of subtopic 2: (1/1 + 2/3) / 2.
    assert res.mean["ap_ia"] == pytest.approx((1 + (1 + 2 / 3) / 2) / 2)


@pytest.mark.parametrize("third, ideal", [("z", [2.0, 1.5, 1.5]), ("a", [2.0, 2.0, 1.0])])
def test_greedy_ideal_breaks_ties_by_the_largest_document_id(third, ideal):
    # x, y and the third document each cover two subtopics (gain 2): ndeval's
    # greedy takes the largest id first. The third covers one subtopic of x and
    # one of y, so which comes first changes the ideal's later gains.
    judged = {"x": {1, 2}, "y": {3, 4}, third: {1, 3}}
    assert ref.greedy_ideal(judged, 0.5, 3) == ideal
    truth = ([], [], [], [])
    for d, subs in judged.items():
        for s in sorted(subs):
            for col, v in zip(truth, ("q", s, d, 1)):
                col.append(v)
    ranking = [third, "x", "y"]
    res = evaluate_ranked({"q": ranking}, tuple(map(np.array, truth)), ["nerr_ia@3"])
    best = sum(g / (i + 1) for i, g in enumerate(ideal))
    assert res.mean["nerr_ia@3"] == pytest.approx(ref.nerr_ia(ranking, judged, 3))
    run = sum(g / (i + 1) for i, g in enumerate(ref.novelty_gains(ranking, judged, 0.5)))
    assert res.mean["nerr_ia@3"] == pytest.approx(run / best)
    pyndeval = pytest.importorskip("pyndeval")
    qrels = [("q", str(s), d, 1) for d, subs in judged.items() for s in subs]
    want = pyndeval.ndeval(qrels, [("q", d, 3.0 - i) for i, d in enumerate(ranking)], ["nERR-IA@3"])
    assert res.mean["nerr_ia@3"] == pytest.approx(want["q"]["nERR-IA@3"])


# -- files, the command, names ----------------------------------------------------------


@pytest.fixture()
def files(tmp_path):
    qrels, run = random_files(11)
    qp, rp = tmp_path / "qrels.txt", tmp_path / "run.txt"
    qp.write_text("".join(f"{q} {s} {d} {lv}\n" for q, s, d, lv in qrels))
    rp.write_text("".join(f"{q} Q0 {d} 0 {sc} tag\n" for q, d, sc in run))
    return qrels, run, qp, rp


def test_paths_read_as_diversity_qrels(files):
    qrels, _run, qp, rp = files
    q = read_trec_qrels(qp, diversity=True)
    assert q.subtopic is not None and len(q) == len(qrels)
    by_path = evaluate_run(qp, rp, ["alpha_nDCG@20", "alpha_ndcg@20", "alpha-nDCG@20"])
    by_obj = evaluate_run(q, rp, ["alpha_nDCG@20"])
    assert by_path.mean["alpha_nDCG@20"] == by_obj.mean["alpha_nDCG@20"]
    assert by_path.mean["alpha_ndcg@20"] == by_path.mean["alpha-nDCG@20"]


def test_command_line_evaluate(files):
    _, _, qp, rp = files
    out = subprocess.run(
        [
            sys.executable,
            "-m",
            "sk_rankmetrics",
            "evaluate",
            str(qp),
            str(rp),
            "-m",
            "alpha_nDCG@20",
            "-m",
            "NRBP",
            "--format",
            "csv",
        ],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    res = evaluate_run(qp, rp, ["alpha_nDCG@20", "NRBP"])
    header, *rows = out.strip().splitlines()
    assert header.split(",") == ["query", "alpha_nDCG@20", "NRBP"]
    got = {row.split(",")[0]: [float(v) for v in row.split(",")[1:]] for row in rows}
    assert got.pop("all") == pytest.approx([res.mean["alpha_nDCG@20"], res.mean["NRBP"]], abs=1e-9)
    assert set(got) == set(res.query_ids)
    for i, qid in enumerate(res.query_ids):
        assert got[qid] == pytest.approx(
            [res.per_query["alpha_nDCG@20"][i], res.per_query["NRBP"][i]], abs=1e-9
        )


def test_trec_eval_setting_breaks_ties_by_document_id_descending():
    q = TrecQrels(np.array(["q", "q"]), np.array(["a", "b"]), np.ones(2), subtopic=np.array([1, 2]))
    r = TrecRun(np.array(["q", "q", "q"]), np.array(["a", "b", "c"]), np.array([1.0, 1.0, 0.5]))
    with pytest.raises(ValueError, match="tie"):
        evaluate_run(q, r, ["alpha_ndcg@1"])
    res = evaluate_run(q, r, ["P_IA@1", "StRecall@1"], setting="trec_eval")
    assert res.mean["StRecall@1"] == 0.5  # b first: one subtopic of two


# -- errors ----------------------------------------------------------------------------


def test_a_diversity_measure_without_a_diversity_qrels_says_what_to_pass():
    q = TrecQrels(np.array(["q"]), np.array(["a"]), np.ones(1))
    r = TrecRun(np.array(["q"]), np.array(["a"]), np.ones(1))
    with pytest.raises(ValueError, match="diversity=True"):
        evaluate_run(q, r, ["alpha_nDCG@10"])
    with pytest.raises(ValueError, match="diversity qrels"):
        evaluate([[1, 0]], [[2, 1]], ["alpha_ndcg@2"])
    with pytest.raises(ValueError, match="subtopic"):
        evaluate_ranked({"u": ["a"]}, {"u": {"a"}}, ["err_ia@5"])


def test_errors(files, tmp_path):
    _, _, qp, rp = files
    with pytest.raises(InvalidParameterError, match="two calls"):
        evaluate_run(qp, rp, ["alpha_nDCG@10", "ndcg@10"])
    with pytest.raises(ValueError, match="needs a cut-off"):
        evaluate_run(qp, rp, ["alpha_ndcg"])
    with pytest.raises(InvalidParameterError, match="takes no cut-off"):
        evaluate_run(qp, rp, ["NRBP@10"])
    with pytest.raises(InvalidParameterError, match="not 'beta'"):
        evaluate_run(qp, rp, ["alpha_nDCG(beta=0.3)@10"])
    with pytest.raises(InvalidParameterError, match="redundancy"):
        evaluate_run(qp, rp, [("alpha_ndcg@10", {"redundancy": 1.5})])
    with pytest.raises(ValueError, match=r"duplicate document .* diversity=True"):
        evaluate_run(qp, rp, ["ndcg@10"])
    dup = tmp_path / "dup.txt"
    dup.write_text("q0 1 a 1\nq0 1 a 0\n")
    with pytest.raises(ValueError, match=r"twice .* subtopic"), pytest.warns(UserWarning):
        evaluate_run(dup, rp, ["alpha_nDCG@10"])


@pytest.mark.parametrize("setting", ["sk_rankmetrics", "trec_eval"])
def test_files_and_objects_give_the_same_numbers(tmp_path, setting):
    # The files go through the integer codes of the file path, the objects
    # through ids; under trec_eval's setting tied scores are ranked by docno
    # descending on both paths.
    qrels, run = random_files(21, max_subtopics=4)
    if setting == "trec_eval":
        run = [(q, d, round(s)) for q, d, s in run]  # many ties
    qp, rp = tmp_path / "qrels.txt", tmp_path / "run.txt"
    qp.write_text("".join(f"{q} {s} {d} {lv}\n" for q, s, d, lv in qrels))
    rp.write_text("".join(f"{q} Q0 {d} 0 {sc} tag\n" for q, d, sc in run))
    names = ["alpha_nDCG@10", "ERR_IA@5", "nNRBP", "AP_IA", "P_IA@3", "StRecall@20"]
    by_file = evaluate_run(qp, rp, names, setting=setting, max_docs=30, no_relevant=0.0)
    by_obj = evaluate_run(
        *as_objects(qrels, run), names, setting=setting, max_docs=30, no_relevant=0.0
    )
    assert list(by_file.query_ids) == list(by_obj.query_ids)
    for name in names:
        np.testing.assert_allclose(by_file.per_query[name], by_obj.per_query[name], atol=1e-12)
    if setting == "trec_eval":
        pyndeval = pytest.importorskip("pyndeval")
        # ndeval -traditional: score descending, then docno descending.
        ordered = sorted(sorted(run, key=lambda x: (x[2], x[1]), reverse=True), key=lambda x: x[0])
        ranked, seen = [], {}
        for i, (q, d, _) in enumerate(ordered):
            seen[q] = seen.get(q, 0) + 1
            if seen[q] <= 30:  # max_docs
                ranked.append((q, d, float(-i)))
        want = pyndeval.ndeval(qrels, ranked, ["alpha-nDCG@10", "MAP-IA"])
        for i, qid in enumerate(by_file.query_ids):
            assert by_file.per_query["alpha_nDCG@10"][i] == pytest.approx(
                want[qid]["alpha-nDCG@10"], abs=1e-9
            )


@pytest.mark.parametrize("setting", ["sk_rankmetrics", "trec_eval"])
def test_ir_measures_names_give_ir_measures_numbers(files, setting):
    # ir_measures 0.4.3 reads the subtopic from the qrels' iteration column and
    # calls pyndeval; every diversity name it knows, with its parameters.
    ir_measures = pytest.importorskip("ir_measures")
    pytest.importorskip("pyndeval")
    _, _, qp, rp = files
    names = [
        "alpha_nDCG@20",
        "alpha_nDCG(alpha=0.2, rel=2)@10",
        "alpha_DCG@5",
        "ERR_IA@20",
        "nERR_IA(rel=2)@10",
        "NRBP",
        "nNRBP(alpha=0.3, beta=0.7)",
        "AP_IA",
        "P_IA@10",
        "StRecall@20",
        "StRecall(rel=2)@5",
    ]
    qrels = list(ir_measures.read_trec_qrels(str(qp)))
    run = list(ir_measures.read_trec_run(str(rp)))
    res = evaluate_run(qp, rp, names, no_relevant=0.0, setting=setting)
    row = {q: i for i, q in enumerate(res.query_ids)}
    n = 0
    for name in names:
        for m in ir_measures.iter_calc([ir_measures.parse_measure(name)], qrels, run):
            if math.isnan(m.value):
                continue
            assert res.per_query[name][row[m.query_id]] == pytest.approx(m.value, abs=1e-9), name
            n += 1
    assert n > 200


def test_edge_rows_complete_unjudged_and_threshold():
    # q1: judged only at level 0 (no subtopic has a relevant document);
    # q2: judged, missing from the run (complete=True scores it as an empty list);
    # q3: a document judged for two subtopics at levels 1 and 2.
    q = TrecQrels(
        np.array(["q1", "q2", "q3", "q3"]),
        np.array(["a", "b", "c", "c"]),
        np.array([0.0, 1.0, 1.0, 2.0]),
        subtopic=np.array([1, 1, 1, 2]),
    )
    r = TrecRun(np.array(["q1", "q3", "q3"]), np.array(["a", "x", "c"]), np.array([1.0, 2.0, 1.0]))
    names = ["alpha_ndcg@5", "alpha_dcg@5", "nnrbp", "ap_ia", "subtopic_recall@1"]
    with pytest.warns(UserWarning, match="no relevant"):
        res = evaluate_run(q, r, names, complete=True)
    assert list(res.query_ids) == ["q1", "q2", "q3"]
    ndcg = res.per_query["alpha_ndcg@5"]
    assert ndcg[0] == 0.0 and ndcg[1] == 0.0  # no_relevant="warn": 0 for q1
    # q3: c at position 2 covers both subtopics; ideal: c first.
    assert ndcg[2] == pytest.approx(1 / math.log2(3))
    assert res.per_query["ap_ia"][2] == pytest.approx(0.5)
    assert res.per_query["subtopic_recall@1"][2] == 0.0
    assert res.per_query["alpha_dcg@5"][0] == 0.0
    # threshold=2: only subtopic 2 of q3 is relevant.
    with pytest.warns(UserWarning, match="not in the ranking"):
        res2 = evaluate_run(q, r, ["p_ia@2"], threshold=2, no_relevant="skip")
    assert np.isnan(res2.per_query["p_ia@2"][0])
    assert res2.per_query["p_ia@2"][1] == pytest.approx(1 / 2)


@pytest.mark.parametrize("complete", [False, True])
def test_dask_frames_give_the_in_memory_numbers(files, complete):
    dd = pytest.importorskip("dask.dataframe")
    pd = pytest.importorskip("pandas")
    qrels, run, qp, _ = files
    qf = pd.DataFrame(qrels, columns=["qid", "subtopic", "docno", "relevance"])
    qf["subtopic"] = qf["subtopic"].astype(int)
    rf = pd.DataFrame(run, columns=["qid", "docno", "score"])
    names = ["alpha_nDCG@10", "nNRBP", "AP_IA", "StRecall@5"]
    want = evaluate_run(*as_objects(qrels, run), names, no_relevant=0.0, complete=complete)
    for q in (dd.from_pandas(qf, npartitions=3), qp):  # a Dask frame, or a path
        got = evaluate_run(
            q, dd.from_pandas(rf, npartitions=4), names, no_relevant=0.0, complete=complete
        )
        assert list(got.query_ids) == list(want.query_ids)
        for name in names:
            np.testing.assert_allclose(got.per_query[name], want.per_query[name], atol=1e-12)
    bad = qf.assign(subtopic=qf["subtopic"] + 0.5)
    with pytest.raises(ValueError, match="subtopic column must hold integers"):
        evaluate_run(dd.from_pandas(bad, npartitions=2), dd.from_pandas(rf, npartitions=2), names)


def test_dask_lists_refuse_diversity_measures_by_name():
    db = pytest.importorskip("dask.bag")
    bag = db.from_sequence([("u", ["a"])])
    with pytest.raises(InvalidParameterError, match="evaluate_run with Dask frames"):
        evaluate_ranked(bag, bag, ["alpha_ndcg@3"])


@pytest.mark.parametrize(
    "name",
    [
        "alpha_ndcg@5",
        "alpha_dcg@5",
        "err_ia@5",
        "nerr_ia@5",
        "nrbp",
        "nnrbp",
        "ap_ia",
        "p_ia@5",
        "subtopic_recall@5",
    ],
)
def test_each_measure_alone_equals_it_among_others(files, name):
    # Each measure asked alone (the layout builds only what the requests read)
    # gives what it gives among every other one.
    _, _, qp, rp = files
    every = [
        "alpha_ndcg@5",
        "alpha_dcg@5",
        "err_ia@5",
        "nerr_ia@5",
        "nrbp",
        "nnrbp",
        "ap_ia",
        "p_ia@5",
        "subtopic_recall@5",
    ]
    alone = evaluate_run(qp, rp, [name], no_relevant=0.0)
    together = evaluate_run(qp, rp, every, no_relevant=0.0)
    np.testing.assert_array_equal(alone.per_query[name], together.per_query[name])


def test_judged_only_removes_the_documents_the_qrels_do_not_name(files, tmp_path):
    qrels, run, qp, rp = files
    named = {(q, d) for q, _, d, _ in qrels}
    kept = [x for x in run if (x[0], x[1]) in named]
    kp = tmp_path / "kept.txt"
    kp.write_text("".join(f"{q} Q0 {d} 0 {sc} tag\n" for q, d, sc in kept))
    names = ["alpha_nDCG@10", "NRBP", "P_IA@5"]
    with warnings.catch_warnings():  # a query may lose every ranked document
        warnings.simplefilter("ignore", UserWarning)
        want = evaluate_run(qp, kp, names, no_relevant=0.0)
    got = evaluate_run(qp, rp, names, no_relevant=0.0, judged_only=True)
    row = {q: i for i, q in enumerate(got.query_ids)}
    for name in names:
        for i, q in enumerate(want.query_ids):
            assert got.per_query[name][row[q]] == pytest.approx(want.per_query[name][i])
    assert got.mean["P_IA@5"] >= evaluate_run(qp, rp, ["P_IA@5"], no_relevant=0.0).mean["P_IA@5"]
