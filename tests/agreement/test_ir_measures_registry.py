"""Every measure of ir_measures' registry, with every parameter it accepts, gives
ir_measures' value per query, under both settings of ``evaluate_run``.

The names come from ir_measures itself (``ir_measures.measures.registry`` and
each measure's ``SUPPORTED_PARAMS``), crossed with a few values per parameter,
and kept where ir_measures' default pipeline has a provider for them; so a
measure or a parameter that a later ir_measures adds fails here until the
package reads it. Files: random, tie-free, levels 0..4, with unjudged retrieved
documents and judged unretrieved ones.
"""

from __future__ import annotations

import functools
import itertools
import math
import warnings

import numpy as np
import pytest
from conftest import ROOT

ir_measures = pytest.importorskip("ir_measures")

from ir_measures.measures.base import _NOT_PROVIDED  # noqa: E402

from sk_rankmetrics import evaluate_run  # noqa: E402

pytestmark = pytest.mark.slow

#: Values tried for each parameter of ir_measures' measures (absent: its default).
VALUES = {
    "cutoff": [_NOT_PROVIDED, 1, 3, 10],
    "rel": [_NOT_PROVIDED, 1, 2],
    "judged_only": [_NOT_PROVIDED, True],
    "dcg": None,  # every choice the measure lists
    "gains": [_NOT_PROVIDED, {0: 0, 1: 1, 2: 3, 3: 7, 4: 15}],
    "p": [_NOT_PROVIDED, 0.5],
    "beta": [_NOT_PROVIDED, 0.5, 2.0],
    "relative": [_NOT_PROVIDED, True],
    "recall": [0.0, 0.2, 0.45, 1.0],
    "T": [_NOT_PROVIDED, 2.0],
    "min_rel": [_NOT_PROVIDED, 1],
    "max_rel": [4],
    "normalize": [_NOT_PROVIDED, False],
    "alpha": [_NOT_PROVIDED, 0.3],
}

#: ir_measures' diversity measures read a diversity qrels (a subtopic per line):
#: compared on one below.
DIVERSITY = {
    "alpha_DCG",
    "alpha_nDCG",
    "ERR_IA",
    "nERR_IA",
    "P_IA",
    "AP_IA",
    "NRBP",
    "nNRBP",
    "StRecall",
}

#: Providers that print their values rounded (gdeval.pl: 5 decimals).
ROUNDED = {"gdeval": 5e-6}


@functools.cache
def _provider_runs(provider):
    """Whether ``provider`` computes a one-line run. ir_measures' ranx provider
    (present once ranx is installed, as the test extra does) fails on pandas 3,
    whose text columns ranx refuses ("DataFrame Query IDs column dtype must be
    `object`"): a measure it alone provides has no number to compare with."""
    try:
        provider.calc_aggregate([ir_measures.parse_measure("nDCG@1")],
                                [ir_measures.Qrel("q", "d", 1)],
                                [ir_measures.ScoredDoc("q", "d", 1.0)])
    except Exception:  # any failure means no number
        return False
    return True


def _provider(measure):
    for provider in ir_measures.DefaultPipeline.providers:
        if (provider.is_available() and provider.supports(measure)
                and (provider.NAME != "ranx" or _provider_runs(provider))):
            return provider.NAME
    return None


def _measures():
    """``{name: (measure, provider)}`` over the registry and the value grid."""
    out, unknown = {}, set()
    for key, base in ir_measures.measures.registry.items():
        if type(base).__name__.lstrip("_") in DIVERSITY or base.NAME in DIVERSITY:
            continue
        params = type(base).SUPPORTED_PARAMS
        unknown |= set(params) - set(VALUES)
        grids = []
        for name, info in params.items():
            values = VALUES.get(name) or [_NOT_PROVIDED]
            if values == [_NOT_PROVIDED] and name in VALUES and VALUES[name] is None:
                values = [_NOT_PROVIDED, *[c for c in info.choices if c != info.default]]
            if info.required:
                values = [v for v in values if v is not _NOT_PROVIDED]
            grids.append([(name, v) for v in values])
        for combo in itertools.product(*grids):
            given = {n: v for n, v in combo if v is not _NOT_PROVIDED}
            measure = type(base)(**{**base.params, **given})
            try:
                provider = _provider(measure)
            except AssertionError:  # a combination the measure itself refuses
                continue
            if provider is not None:
                out[str(measure)] = (measure, provider)
        if key != base.NAME and key not in out:  # a registered alias or spelling
            alias, name = base, key
            if "cutoff" in params and params["cutoff"].required:
                alias, name = base(cutoff=3), f"{key}@3"
            if _provider(alias) is not None:
                out[name] = (alias, _provider(alias))
    assert not unknown, (
        f"ir_measures has parameters {sorted(unknown)} that this test gives no values; "
        "add them to VALUES (and teach sk_rankmetrics' names their meaning)."
    )
    return out


def _files(tmp_path, seed, low=0):
    """Random tie-free qrels (levels ``low``..4) and run files; ``low`` < 0 adds
    negative levels (TREC Web track qrels: spam -2, junk -1)."""
    rng = np.random.default_rng(seed)
    qrels, run = [], []
    for q in range(1, 13):
        judged = rng.choice(60, size=rng.integers(8, 30), replace=False)
        levels = rng.integers(low, 5, size=judged.size)
        if q == 5:
            levels[:] = np.minimum(levels, 0)  # a query without a relevant document
        qrels += [f"{q} 0 d{d} {lv}" for d, lv in zip(judged, levels)]
        ranked = rng.choice(60, size=rng.integers(5, 35), replace=False)
        scores = rng.permutation(ranked.size) + rng.random()  # distinct: tie-free
        run += [f"{q} Q0 d{d} 0 {s:.6f} r" for d, s in zip(ranked, scores)]
    qp, rp = tmp_path / f"qrels{seed}.txt", tmp_path / f"run{seed}.txt"
    qp.write_text("\n".join(qrels) + "\n")
    rp.write_text("\n".join(run) + "\n")
    return qp, rp


def _ir_measures_values(measures, qp, rp):
    """Per-query values, one measure at a time: ir_measures' pytrec_eval provider
    runs some measures (NumRet, nDCG) inside another measure's invocation, with
    that one's judged_only, when they are asked together."""
    qrels = list(ir_measures.read_trec_qrels(str(qp)))
    run = list(ir_measures.read_trec_run(str(rp)))
    qids = sorted({q.query_id for q in qrels})
    out = {}
    for name, (measure, _) in measures.items():
        try:
            out[name] = {m.query_id: m.value for m in ir_measures.iter_calc([measure], qrels, run)}
        except ZeroDivisionError:
            # Accuracy divides by the non-relevant documents of the top k: one
            # query at a time, None where ir_measures has no number.
            out[name] = {}
            for q in qids:
                try:
                    out[name].update(
                        {
                            m.query_id: m.value
                            for m in ir_measures.iter_calc(
                                [measure],
                                [x for x in qrels if x.query_id == q],
                                [x for x in run if x.query_id == q],
                            )
                        }
                    )
                except ZeroDivisionError:
                    out[name][q] = None
    return out


@pytest.fixture(scope="module")
def measures():
    return _measures()


def test_the_registry_is_read(measures):
    families = {m.NAME for m, _ in measures.values()}
    assert {
        "P",
        "AP",
        "nDCG",
        "RR",
        "NERR8",
        "NERR10",
        "INST",
        "INSQ",
        "SDCG",
        "BPM",
        "Compat",
        "Accuracy",
        "SetP",
        "IPrec",
        "Judged",
        "ERR",
        "RBP",
    } <= families
    assert len(measures) > 150


def _differences(measures, want, per_query):
    """``(name, query, ir_measures' value, ours)`` wherever they differ, after
    the two documented differences (asserted here, not skipped)."""
    wrong = []
    for name, (measure, provider) in measures.items():
        ours = per_query[name]
        # Accuracy: ir_measures gives no value to a query without a relevant
        # document in the top k, and the name leaves it out (no_relevant="skip").
        missing = set(ours) - set(want[name])
        assert not missing or measure.NAME == "Accuracy", (name, missing)
        assert all(ours[q] is None or math.isnan(ours[q]) for q in missing), name
        assert set(want[name]) <= set(ours), name
        tol = ROUNDED.get(provider, 1e-6)
        for q, value in want[name].items():
            if value is None:
                # ir_measures raises (Accuracy: a top k without a non-relevant
                # document); every pair there is in the right order.
                assert measure.NAME == "Accuracy" and ours[q] == 1.0, (name, q)
            elif math.isnan(value):
                # pytrec_eval's -nan under judged_only: a query whose ranking
                # keeps no judged document gets trec_eval's 0/0 for IPrec.
                assert measure.NAME == "IPrec" and measure["judged_only"], (name, q)
                assert ours[q] == 0.0
            elif abs(ours[q] - value) > tol:
                wrong.append((name, q, value, ours[q]))
    return wrong


def _per_query(result):
    return {
        name: dict(zip([str(q) for q in result.query_ids], values.tolist()))
        for name, values in result.per_query.items()
    }


@pytest.mark.parametrize(("seed", "low"), [(0, 0), (1, 0), (3, -2)])
@pytest.mark.parametrize("setting", ["sk_rankmetrics", "trec_eval"])
def test_every_name_gives_ir_measures_value_per_query(measures, tmp_path, seed, low, setting):
    """Seed 3 has negative levels, which ir_measures (through trec_eval) reads
    as documents in the pool but not judged: every measure agrees there too."""
    qp, rp = _files(tmp_path, seed, low)
    want = _ir_measures_values(measures, qp, rp)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # queries without a relevant document
        got = evaluate_run(qp, rp, list(measures), setting=setting)
    wrong = _differences(measures, want, _per_query(got))
    assert not wrong, f"{len(wrong)} values differ from ir_measures', e.g. {wrong[:5]}"
    # The means: ir_measures' aggregate of its per-query values (a mean over the
    # queries it gives a value, or a sum for its counts).
    for name, (measure, provider) in measures.items():
        values = list(want[name].values())
        if any(v is None or math.isnan(v) for v in values):
            continue  # ir_measures raises (Accuracy) or gives nan (IPrec), above
        agg = measure.aggregator()
        for v in values:
            agg.add(v)
        assert got.mean[name] == pytest.approx(agg.result(), abs=ROUNDED.get(provider, 1e-6)), name


def test_evaluate_ranked_and_the_command_give_the_same_numbers(measures, tmp_path):
    """The rule holds wherever a name is read: evaluate_ranked on the same files,
    and ``sk-rankmetrics evaluate`` under both settings."""
    import json
    import os
    import subprocess
    import sys

    from sk_rankmetrics import evaluate_ranked

    qp, rp = _files(tmp_path, 2)
    want = _ir_measures_values(measures, qp, rp)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        got = evaluate_ranked(rp, qp, list(measures))
    wrong = _differences(measures, want, _per_query(got))
    assert not wrong, f"evaluate_ranked: {len(wrong)} differ, e.g. {wrong[:5]}"
    root = ROOT
    env = {**os.environ, "PYTHONPATH": str(root)}
    for extra in ([], ["--trec-eval"]):
        args = [a for name in measures for a in ("-m", name)]
        out = subprocess.run(
            [
                sys.executable,
                "-m",
                "sk_rankmetrics",
                "evaluate",
                str(qp),
                str(rp),
                *args,
                *extra,
                "--format",
                "json",
                "-q",
            ],
            capture_output=True,
            text=True,
            env=env,
            timeout=300,
            check=True,
        )
        per_query = json.loads(out.stdout)["per_query"]
        ours = {name: {q: row[name] for q, row in per_query.items()} for name in measures}
        wrong = _differences(measures, want, ours)
        assert not wrong, f"the command {extra}: {len(wrong)} differ, e.g. {wrong[:5]}"


#: ir_measures' providers that order tied scores as trec_eval does (document id
#: descending): their names give ir_measures' numbers on tied runs under the
#: trec_eval setting (docs/metrics.md, "Tied scores and ir_measures' providers").
TREC_ORDER = {"pytrec_eval", "gdeval"}


def _tied_files(tmp_path, seed):
    """Like :func:`_files`, with scores in steps of 0.5: many ties."""
    rng = np.random.default_rng(seed)
    qrels, run = [], []
    for q in range(1, 13):
        judged = rng.choice(60, size=rng.integers(8, 30), replace=False)
        levels = rng.integers(0, 5, size=judged.size)
        qrels += [f"{q} 0 d{d} {lv}" for d, lv in zip(judged, levels)]
        ranked = rng.choice(60, size=rng.integers(5, 35), replace=False)
        scores = rng.integers(0, 4, size=ranked.size) / 2
        run += [f"{q} Q0 d{d} 0 {s} r" for d, s in zip(ranked, scores)]
    qp, rp = tmp_path / f"tied_qrels{seed}.txt", tmp_path / f"tied_run{seed}.txt"
    qp.write_text("\n".join(qrels) + "\n")
    rp.write_text("\n".join(run) + "\n")
    return qp, rp


def test_on_tied_runs_ir_measures_names_follow_the_trec_eval_setting(measures, tmp_path):
    """The rule for ir_measures' names, on tied scores: under
    ``setting="trec_eval"`` every measure ir_measures computes with pytrec_eval
    or gdeval gives its number; the default setting gives the expected value
    over the orders of each tie (or refuses a measure without one), so those
    differ from ir_measures' on tied runs; the other providers break ties
    their own ways (RR@k and Judged@k: document id ascending; cwl_eval,
    Accuracy: the run file's order; Compat: id ascending) and differ under
    both settings."""
    qp, rp = _tied_files(tmp_path, 0)
    want = _ir_measures_values(measures, qp, rp)

    def values(setting):
        out = {}
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            for name in measures:
                try:
                    res = evaluate_run(qp, rp, [name], setting=setting)
                except ValueError:
                    out[name] = None  # refused: no expected value over a tie's orders
                    continue
                out[name] = _per_query(res)[name]
        return out

    def agrees(name, got):
        tol = ROUNDED.get(measures[name][1], 1e-6)
        return got is not None and all(
            v is None or math.isnan(v) or abs(got[q] - v) <= tol
            for q, v in want[name].items())

    trec, default = values("trec_eval"), values("sk_rankmetrics")
    by_trec = [n for n, (_, provider) in measures.items() if provider in TREC_ORDER]
    others = [n for n in measures if n not in by_trec]
    assert len(by_trec) > 100
    assert [n for n in by_trec if not agrees(n, trec[n])] == []
    differ = [n for n in by_trec if not agrees(n, default[n])]
    assert len(differ) > len(by_trec) / 2, differ
    for family in ("P", "AP", "nDCG", "Bpref", "ERR"):
        assert any(measures[n][0].NAME == family for n in differ), family
    # The other providers: differ on ties under the trec_eval setting too.
    for family in ("RR", "Judged", "Compat", "INSQ", "Accuracy"):
        names = [n for n in others if measures[n][0].NAME == family
                 and (family != "RR" or measures[n][0]["cutoff"] is not _NOT_PROVIDED)]
        assert names and not all(agrees(n, trec[n]) for n in names), family


def test_the_scorers_read_the_names_as_evaluate_does():
    from sklearn.linear_model import LinearRegression

    from sk_rankmetrics import evaluate, get_scorer

    rng = np.random.default_rng(0)
    X = rng.random((40, 3))
    y = rng.integers(0, 5, size=40)
    qid = np.repeat(np.arange(4), 10)
    model = LinearRegression().fit(X, y)
    names = [
        "NERR8(max_rel=4)@5",
        "INST(T=2.0,max_rel=4)",
        "SDCG(max_rel=4)@5",
        "Compat(p=0.9)",
        "Accuracy@5",
        "SetRelP",
        "nDCG(judged_only=True)@5",
    ]
    want = evaluate(y, model.predict(X), names, qid=qid, no_relevant=0.0)
    for name in names:
        assert get_scorer(name)(model, X, y, qid=qid) == pytest.approx(want[name], abs=1e-12)


def _diversity_measures():
    """``{name: measure}``: ir_measures' diversity measures over the value grid."""
    out = {}
    for base in ir_measures.measures.registry.values():
        if base.NAME not in DIVERSITY:
            continue
        params = type(base).SUPPORTED_PARAMS
        # NRBP's beta is a patience in (0, 1), not SetF's weight.
        values = {**VALUES, "beta": [_NOT_PROVIDED, 0.8]}
        grids = [
            [
                (n, v)
                for v in (values.get(n) or [_NOT_PROVIDED])
                if not (info.required and v is _NOT_PROVIDED)
            ]
            for n, info in params.items()
        ]
        for combo in itertools.product(*grids):
            measure = type(base)(**{n: v for n, v in combo if v is not _NOT_PROVIDED})
            if _provider(measure) == "pyndeval":
                out[str(measure)] = measure
    return out


def _diversity_files(tmp_path, seed):
    """A diversity qrels (query, subtopic, document, level) and a tie-free run."""
    rng = np.random.default_rng(seed)
    qrels, run = [], []
    for q in range(1, 9):
        for sub in range(1, int(rng.integers(2, 5)) + 1):
            docs = rng.choice(40, size=int(rng.integers(4, 15)), replace=False)
            qrels += [f"{q} {sub} d{d} {rng.integers(0, 5)}" for d in docs]
        ranked = rng.choice(40, size=int(rng.integers(5, 30)), replace=False)
        scores = rng.permutation(ranked.size) + rng.random()
        run += [f"{q} Q0 d{d} 0 {s:.6f} r" for d, s in zip(ranked, scores)]
    qp, rp = tmp_path / f"div_qrels{seed}.txt", tmp_path / f"div_run{seed}.txt"
    qp.write_text("\n".join(qrels) + "\n")
    rp.write_text("\n".join(run) + "\n")
    return qp, rp


@pytest.mark.parametrize("setting", ["sk_rankmetrics", "trec_eval"])
def test_every_diversity_name_gives_ir_measures_value_per_query(tmp_path, setting):
    """ir_measures' diversity measures (its pyndeval provider) on a random
    diversity qrels; ``judged_only=True`` on them is refused with a message (the
    package's diversity measures take evaluate_run's judged_only instead)."""
    pytest.importorskip("pyndeval")
    measures = _diversity_measures()
    assert {m.NAME for m in measures.values()} == DIVERSITY
    refused = {n: m for n, m in measures.items() if m.params.get("judged_only")}
    measures = {n: m for n, m in measures.items() if n not in refused}
    qp, rp = _diversity_files(tmp_path, 0)
    qrels = list(ir_measures.read_trec_qrels(str(qp)))
    run = list(ir_measures.read_trec_run(str(rp)))
    want = {}
    for name, measure in list(measures.items()):
        try:
            want[name] = {m.query_id: m.value for m in ir_measures.iter_calc([measure], qrels, run)}
        except ValueError:
            # ir_measures 0.4.3 hands pyndeval 'measure@<NOT_PROVIDED>' for a
            # measure without a cut-off, which pyndeval cannot read: no number.
            assert "cutoff" not in measure.params, name
            del measures[name]
    assert len(measures) > 40
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        got = _per_query(evaluate_run(qp, rp, list(measures), setting=setting))
    wrong = [
        (name, q, value, got[name].get(q))
        for name in measures
        for q, value in want[name].items()
        if q not in got[name] or abs(got[name][q] - value) > 1e-6
    ]
    assert not wrong, f"{len(wrong)} values differ from ir_measures', e.g. {wrong[:5]}"
    from sk_rankmetrics._utils.errors import InvalidParameterError

    for name in refused:
        with pytest.raises(InvalidParameterError, match="judged_only=True is not supported"):
            evaluate_run(qp, rp, [name], setting=setting)


def test_the_dask_path_gives_the_same_numbers(tmp_path):
    dd = pytest.importorskip("dask.dataframe")
    import pandas as pd

    qp, rp = _files(tmp_path, 3)
    names = [
        "P(judged_only=True)@5",
        "Accuracy@10",
        "NERR10(max_rel=4)",
        "Compat",
        "SDCG(max_rel=4)@5",
        "SetRelP",
        "INST(T=2.0,max_rel=4)",
    ]
    q = pd.read_csv(qp, sep=" ", names=["query", "iter", "doc", "relevance"], dtype={"query": str})
    r = pd.read_csv(
        rp, sep=" ", names=["query", "q0", "doc", "rank", "score", "tag"], dtype={"query": str}
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        want = evaluate_run(qp, rp, names)
        got = evaluate_run(
            dd.from_pandas(q[["query", "doc", "relevance"]], npartitions=2),
            dd.from_pandas(r[["query", "doc", "score"]], npartitions=3),
            names,
        )
    for name in names:
        assert got[name] == pytest.approx(want[name], abs=1e-12), name
