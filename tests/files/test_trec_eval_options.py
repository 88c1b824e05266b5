"""trec_eval's global options (-l, -c, -M, -J, -N) reach exactly the measures that
read them, in the trec_eval setting of evaluate_run and in ``sk-rankmetrics
trec_eval``; checked against outputs of trec_eval 10.0 in tests/data/trec_eval10."""

from __future__ import annotations

import contextlib
import io
import re

import numpy as np
import pytest
from conftest import DATA as TEST_DATA
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sk_rankmetrics import InvalidParameterError, evaluate_run
from sk_rankmetrics._cli import main as cli_main
from sk_rankmetrics._files.trec_eval import (
    MEASURES,
    READS,
    SETS,
    parse_measures,
    reads,
    requests,
)
from sk_rankmetrics._metrics.names import parse_name


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


def tie_heavy(seed, n_queries=6, missing=0, n_docs=25):
    """Random TREC qrels and run texts with many tied scores: levels -1..3 (the
    first judgement of each query is not negative: trec_eval 10 cannot read a
    query judged only negative), unjudged documents, and ``missing`` queries of
    the qrels absent from the run."""
    rng = np.random.default_rng(seed)
    qrels, run = [], []
    for q in range(1, n_queries + 1):
        docs = [f"d{j:02d}" for j in range(rng.integers(3, n_docs))]
        judged = rng.choice(len(docs), size=rng.integers(1, len(docs) + 1), replace=False)
        for i, j in enumerate(sorted(judged)):
            level = int(rng.choice([0, 1, 2, 3] + ([-1] if i else [])))
            qrels.append(f"{q} 0 {docs[j]} {level}")
        if q > n_queries - missing:
            continue
        pool = docs + [f"x{j:02d}" for j in range(rng.integers(0, 6 + n_docs // 4))]
        ranked = list(rng.permutation(pool)[: rng.integers(1, len(pool) + 1)])
        if not any(d in {docs[j] for j in judged} for d in ranked):
            ranked.append(docs[judged[0]])  # trec_eval -J prints -nan without one
        scores = rng.integers(0, 4, size=len(ranked)) / 2
        run += [f"{q} Q0 {d} {i + 1} {s:g} sys" for i, (d, s) in enumerate(zip(ranked, scores))]
    return "\n".join(qrels) + "\n", "\n".join(run) + "\n"


def _files(tmp_path, seed, missing=0, name="t"):
    qrels, run = tie_heavy(seed, missing=missing)
    q, r = tmp_path / f"{name}{seed}.qrels", tmp_path / f"{name}{seed}.run"
    q.write_text(qrels)
    r.write_text(run)
    return q, r


#: Every measure of all_trec (utility with a fourth payoff, which -N reaches).
ALL_TREC = ["all_trec", "utility.1,-1,0,1"]
#: Each option: (evaluate_run's arguments with it, trec_eval's flag letter).
CHANGES = {"threshold": ({"threshold": 2}, "l"), "max_docs": ({"max_docs": 3}, "M"),
           "judged_only": ({"judged_only": True}, "J"), "n_docs": ({"n_docs": 50}, "N"),
           "complete": ({"complete": True}, "c")}


def _printed():
    """``{printed name: trec_eval measure}`` of ALL_TREC."""
    return {name: top for top, name, _, _ in requests(parse_measures(ALL_TREC))}


@pytest.mark.filterwarnings("ignore:.*judged queries are not in the ranking")
def test_each_option_changes_exactly_the_measures_that_read_it(tmp_path):
    """Walk trec_eval's table (READS in sk_rankmetrics/_files/trec_eval.py): with
    every measure of all_trec in one call, an option changes a measure's value on
    some input exactly when the table says the measure reads it (per query; -c: the summary)."""
    printed = _printed()
    changed = {option: set() for option in CHANGES}
    for seed in range(8):
        q, r = _files(tmp_path, seed, missing=2)
        base = evaluate_run(q, r, ALL_TREC, setting="trec_eval")
        for option, (kwargs, _) in CHANGES.items():
            other = evaluate_run(q, r, ALL_TREC, setting="trec_eval", **kwargs)
            for name in printed:
                if option == "complete":
                    differs = not np.isclose(base[name], other[name], rtol=0, atol=1e-12)
                else:
                    differs = not np.allclose(base.per_query[name], other.per_query[name],
                                              rtol=0, atol=1e-12)
                if differs:
                    changed[option].add(name)
    for option, (_, letter) in CHANGES.items():
        says = {name for name, top in printed.items() if letter in READS[top]}
        # Cut-offs beyond every ranking (P_1000) cannot change with -M 3 or -J,
        # nor the first position (success_1) or 0.2 R (R < 16 here) with -M 3.
        deep = {name for name in says
                if option in ("max_docs", "judged_only")
                and re.search(r"_(30|100|200|500|1000)$", name)}
        if option == "max_docs":
            deep |= {"success_1", "Rprec_mult_0.20"}
        assert changed[option] <= says, (option, sorted(changed[option] - says))
        assert says - deep <= changed[option], (option, sorted(says - deep - changed[option]))


@pytest.mark.parametrize("option", ["threshold", "max_docs", "judged_only", "n_docs"])
def test_an_option_read_by_no_requested_measure_raises(tmp_path, option):
    """The same table decides the refusal: each measure alone, with an option the
    table says it does not read, raises naming the option."""
    q, r = _files(tmp_path, 0)
    kwargs, letter = CHANGES[option]
    for top in READS:
        if MEASURES[top].metric is None or top in ("relstring",):
            continue
        spec = {"cutoffs": f"{top}.5", "levels": f"{top}.0.5"}.get(MEASURES[top].params, top)
        spec = spec if top != "utility" else "utility.1,-1,0,1"
        if letter in READS[top]:
            evaluate_run(q, r, [spec], setting="trec_eval", **kwargs)
        else:
            with pytest.raises(InvalidParameterError, match=f"{option}=.* is read by none"):
                evaluate_run(q, r, [spec], setting="trec_eval", **kwargs)


def test_the_table_agrees_with_the_registry():
    """A measure the table says reads -l or -N has the option in the registry
    (the engine can pass it), and every all_trec measure is in the table."""
    for top in SETS["all_trec"]:
        assert top in READS
    for top, letters in READS.items():
        if MEASURES[top].metric is None:
            continue
        spec = parse_name(MEASURES[top].metric)[0]
        assert ("l" in letters) <= ("threshold" in spec.options), top
        assert ("N" in letters) == ("n_docs" in spec.options), top
        assert reads(top) <= {"threshold", "max_docs", "judged_only", "n_docs", "complete"}


#: The names all_trec prints (each one a name evaluate_run reads).
_NAMES = sorted(name for top, name, _, _ in requests(parse_measures(["all_trec"])))


@pytest.mark.filterwarnings("ignore:.*judged queries are not in the ranking")
@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10_000), subset=st.lists(st.sampled_from(_NAMES), min_size=1,
                                                    max_size=12, unique=True),
       complete=st.booleans())
def test_a_value_does_not_depend_on_the_other_measures(tmp_path_factory, seed, subset,
                                                        complete):
    """Random subsets of all_trec on random tie-heavy files: each measure's value
    (per query and summary) equals its value when it is asked for alone."""
    q, r = _files(tmp_path_factory.mktemp("subset"), seed, missing=1)
    together = evaluate_run(q, r, subset, setting="trec_eval", complete=complete)
    for name in subset:
        alone = evaluate_run(q, r, [name], setting="trec_eval", complete=complete)
        np.testing.assert_array_equal(together.per_query[name], alone.per_query[name],
                                      err_msg=f"{name} with {subset}")
        assert together[name] == alone[name], (name, subset)


DATA = TEST_DATA / "trec_eval10"
#: (output, qrels, run, trec_eval's flags, evaluate_run's arguments): tests/data/trec_eval10.
REFERENCE = [
    ("out.ties.aql2", "qrels.ties", "run.ties", ["-l", "2"], {"threshold": 2}),
    ("out.ties_missing.aqcl2M50", "qrels.ties_missing", "run.ties_missing",
     ["-c", "-l", "2", "-M", "50"], {"complete": True, "threshold": 2, "max_docs": 50}),
    ("out.ties.aqJ", "qrels.ties", "run.ties", ["-J"], {"judged_only": True}),
    ("out.ties.aqNM", "qrels.ties", "run.ties",
     ["-m", "utility.1,-1,0,1", "-N", "500", "-M", "20"], {"n_docs": 500, "max_docs": 20}),
]


@pytest.mark.parametrize(("out", "qrels", "run", "flags", "kwargs"), REFERENCE,
                         ids=[c[0] for c in REFERENCE])
def test_command_prints_trec_eval_10s_bytes(out, qrels, run, flags, kwargs):
    code, got = cli("trec_eval", "-q", "-m", "all_trec", *flags, DATA / qrels, DATA / run)
    assert code == 0
    assert got == (DATA / out).read_text()


def test_the_all_lines_add_the_queries_in_order_as_trec_eval():
    """trec_eval adds the per-query values one after the other: P_20's values
    0.1, 0.1, 0.1 and 0.05 over 8 queries sum to 0.35000000000000003 and print
    0.0438, where NumPy's pairwise sum (the Python mean) prints 0.0437."""
    code, got = cli("trec_eval", "-q", "-m", "all_trec", DATA / "qrels.means",
                    DATA / "run.means")
    assert code == 0
    want = (DATA / "out.means").read_text()
    assert got == want
    assert "P_20                  \tall\t0.0438" in want
    res = evaluate_run(DATA / "qrels.means", DATA / "run.means", ["P_20"],
                       setting="trec_eval")
    assert f"{res['P_20']:6.4f}" == "0.0437"  # the mean of NumPy's pairwise sum
    assert sum(res.per_query["P_20"].tolist()) / 8 == pytest.approx(0.04375, abs=1e-15)


@pytest.mark.parametrize(("out", "qrels", "run", "flags", "kwargs"), REFERENCE,
                         ids=[c[0] for c in REFERENCE])
def test_evaluate_run_gives_trec_eval_10s_values(out, qrels, run, flags, kwargs):
    """Every value of the output from Python, to the 4 decimals trec_eval prints;
    num_rel's summary under -c is the sum of its per-query values (the documented
    decision, see test_num_rel_summary_under_complete)."""
    metrics = ["all_trec", *(f for f in flags if f.startswith("utility."))]
    res = evaluate_run(DATA / qrels, DATA / run, metrics, setting="trec_eval", **kwargs)
    counts = {name for name, m in MEASURES.items() if m.show in ("integer", "count")}
    qids = res.query_ids.astype(str).tolist()
    checked = 0
    for line in (DATA / out).read_text().splitlines():
        name, qid, want = (f.strip() for f in line.split("\t"))
        if name not in res.per_query:  # text, which evaluate_run refuses
            assert name in ("runid", "relstring")
            continue
        if qid == "all":
            if name == "num_rel" and kwargs.get("complete"):
                want = str(int(res.per_query[name].sum()))
            value = res[name]
        else:
            value = res.per_query[name][qids.index(qid)]
        got = f"{round(value)}" if name in counts else f"{value:6.4f}"
        assert got == want, (name, qid)
        checked += 1
    assert checked > 1000
