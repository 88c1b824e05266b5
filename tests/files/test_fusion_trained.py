"""The trained fusion methods (probfuse, segfuse, slidefuse, posfuse,
bayesfuse, mapfuse) and Condorcet's (condorcet, w_condorcet) against ranx:
the training, the fused runs under every normalisation ranx allows, the
search of optimize_fusion and the command's --train-qrels."""

from __future__ import annotations

import re
import subprocess
import sys
import warnings

import numpy as np
import pytest
from test_fusion import close, random_runs, ranx_fuse, write_runs

from sk_rankmetrics import InvalidParameterError, TrecQrels, TrecRun, fuse, optimize_fusion
from sk_rankmetrics._files.fusion import prepare
from sk_rankmetrics._files.fusion_trained import condorcet_is_determined

ranx = pytest.importorskip("ranx")

TRAINED = ["posfuse", "segfuse", "bayesfuse", "mapfuse", "slidefuse", "probfuse"]
NORMS = [None, "min-max", "max", "sum", "zmuv", "rank"]


def qrels_for(runs, seed):
    """Judgements of a third of each query's candidates, levels 0-2 (0 is not
    relevant: the hit lists count relevance >= 1)."""
    rng = np.random.default_rng(seed)
    qrels = {}
    for q in runs[0]:
        docs = sorted({d for r in runs for d in r[q]})
        pick = rng.choice(docs, size=max(1, len(docs) // 3), replace=False)
        qrels[q] = {str(d): int(rng.integers(0, 3)) for d in pick}
    return qrels


def ranx_train(qrels, runs, method, norm):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        extra = {"metric": "ndcg", "show_progress": False} \
            if method in ("probfuse", "slidefuse") else {}
        return ranx.optimize_fusion(ranx.Qrels(qrels), [ranx.Run(r) for r in runs],
                                    norm=norm, method=method, **extra)


def same_training(got, want):
    assert set(got) == set(want)
    for key, value in want.items():
        if key == "w":
            assert got[key] == value
            continue
        assert len(got[key]) == len(value)
        for a, b in zip(got[key], value):
            np.testing.assert_allclose(np.asarray(a, float), np.asarray(b, float),
                                       rtol=1e-12, atol=1e-12)


@pytest.mark.slow  # ranx compiles its functions on first use; probfuse tries 100 trainings
@pytest.mark.parametrize("norm", NORMS)
@pytest.mark.parametrize("method", TRAINED)
def test_trained_methods_equal_ranx(method, norm):
    # Distinct scores: optimize_fusion's metric (ties share their expected
    # value here, ranx breaks them by its sort) then agrees with ranx's.
    for seed in range(2):
        runs = random_runs(seed, ties=False)
        qrels = qrels_for(runs, seed)
        want = ranx_train(qrels, runs, method, norm)
        got = optimize_fusion(qrels, runs, method=method, norm=norm)
        same_training(got, want)
        close(fuse(runs, method=method, norm=norm, **got),
              ranx_fuse(runs, method, norm, want))
        close(fuse(runs, method=method, norm=norm, qrels=qrels),
              ranx_fuse(runs, method, norm, want))


@pytest.mark.slow
@pytest.mark.parametrize("method", ["posfuse", "segfuse", "bayesfuse", "mapfuse"])
def test_trained_methods_with_ties_equal_ranx(method):
    """Tied scores: positions keep the order given, as ranx's runs do (its
    construction sorts stably among at most 15 documents)."""
    for seed in range(3):
        runs = random_runs(seed)
        qrels = qrels_for(runs, seed + 10)
        want = ranx_train(qrels, runs, method, None)
        got = optimize_fusion(qrels, runs, method=method, norm=None)
        same_training(got, want)
        close(fuse(runs, method=method, **got), ranx_fuse(runs, method, None, want))


def test_slidefuse_given_parameters():
    """A hand-computed case: probabilities 0.6, 0.2 and window 1 over a list
    of three: position 0 averages p0, p1; position 1 p0, p1 and p2 (0, beyond
    the training); position 2 p1 and p2. The second run's list of one
    averages its position 0 alone (the window stops at the list's end)."""
    runs = [{"q": {"a": 3.0, "b": 2.0, "c": 1.0}}, {"q": {"c": 1.0}}]
    out = fuse(runs, method="slidefuse", probs=[[0.6, 0.2], [0.5]], w=1)
    assert out["q"] == pytest.approx({"a": 0.4, "b": 0.8 / 3, "c": 0.1 + 0.5})


@pytest.mark.parametrize("w", [0, 1, 3, 40, 1000])
def test_slidefuse_window_sums_add_left_to_right_as_ranx(w):
    """Each document's score is its window's probabilities added left to
    right from 0, as ranx sums ``probs[a:b + 1]``, bit for bit (a difference
    of the running sum over every position rounds otherwise), over lists
    longer and shorter than the trained probabilities and windows wider
    than the list."""
    from sk_rankmetrics._files.fusion_trained import _window_sums

    rng = np.random.default_rng(w)
    probs = rng.random(300) ** 3 * 0.9
    runs = [{f"q{j}": {f"d{i}": float(n - i) for i in range(n)}
             for j, n in enumerate([1, 7, 120, 299, 300, 450])}]
    out = fuse(runs + runs, method="slidefuse", probs=[probs, probs], w=w)
    for q, docs in runs[0].items():
        n = len(docs)
        for p in range(n):
            a, b = max(p - w, 0), min(p + w, n - 1)
            window = probs[a:b + 1]
            want = sum(window.tolist()) / (b - a + 1)  # Python's sum: left to right
            assert out[q][f"d{p}"] == want + want  # the same run twice, summed
    # The table itself: sums of every width from every start, the empty ones 0.
    T = _window_sums(probs[:5], 3)
    assert T.shape == (6, 4) and (T[:, 0] == 0).all() and T[5, 3] == 0.0
    assert T[2, 3] == (0.0 + probs[2]) + probs[3] + probs[4]
    assert T[4, 3] == probs[4]


@pytest.mark.parametrize("kwargs, message", [
    ({"method": "posfuse"}, "the posfuse method needs its trained probs"),
    ({"method": "posfuse", "probs": [[0.5]]}, "probs must give one entry per run \\(2\\)"),
    ({"method": "slidefuse", "probs": [[0.5], [0.5]]},
     "slidefuse's window must be a whole number >= 0, got None"),
    ({"method": "bayesfuse", "log_odds": [[0.1], [0.1]]},
     "runs\\[0\\] ranks a document at a position beyond its log_odds"),
    ({"method": "rrf", "qrels": {"q0": {"d1": 1}}}, "method='rrf' is not trained"),
    ({"method": "mapfuse", "map_scores": [0.2, 0.3], "qrels": {"q0": {"d1": 1}}},
     "give qrels or the trained map_scores, not both"),
    ({"method": "condorcet", "norm": "borda"}, "norm='borda' gives every candidate"),
    ({"method": "posfuse", "qrels": {"other": {"d1": 1}}},
     "the training qrels hold none of the runs' queries"),
])
def test_trained_bad_arguments(kwargs, message):
    with pytest.raises(InvalidParameterError, match=message):
        fuse(random_runs(0, n_runs=2), **kwargs)


@pytest.mark.slow
@pytest.mark.parametrize("norm", NORMS)
@pytest.mark.parametrize("method", ["condorcet", "w_condorcet"])
def test_condorcet_equals_ranx_where_ranx_is_determined(method, norm):
    """ranx sorts the candidates (a Python set, in hash order) with a
    comparison that is a total order only when the strict majority is one;
    on those queries the fused runs must be equal, and they are most queries
    here (runs close to one order, documents missing across runs)."""
    checked = 0
    for seed in range(12):
        for n_runs in (3, 4):
            rng = np.random.default_rng(seed)
            base = rng.normal(size=10)
            runs = []
            for _ in range(n_runs):
                keep = rng.random(10) < 0.9
                scores = np.round(base + rng.normal(size=10) * 0.2, 1)
                order = [i for i in np.argsort(-scores, kind="stable") if keep[i]]
                runs.append({"q0": {f"d{i}": float(scores[i]) for i in order},
                             "q1": {f"d{i}": float(-scores[i]) for i in order[::-1]}})
            params = {"weights": [0.4, 0.3, 0.2, 0.15][:n_runs]} if method == "w_condorcet" else {}
            got = fuse(runs, method=method, norm=norm, **params)
            want = ranx_fuse(runs, method, norm, params)
            t = prepare(runs, norm)[0]
            determined = condorcet_is_determined(t, params.get("weights"))
            for q, ok in zip(t.queries.tolist(), determined.tolist()):
                assert set(got[q]) == set(want[q])
                if ok:
                    checked += 1
                    close({q: got[q]}, {q: want[q]})
    assert checked >= 12


def test_condorcet_hand_case():
    """Three runs: a beats b in two of them, b beats c in two, a beats c in
    all; d, retrieved by one run only, loses to every document the other runs
    retrieved (a missing document sits at position 1,000,000)."""
    runs = [{"q": {"a": 3.0, "b": 2.0, "c": 1.0}},
            {"q": {"b": 3.0, "a": 2.0, "c": 1.0}},
            {"q": {"a": 3.0, "c": 2.0, "b": 1.0, "d": 0.5}}]
    assert fuse(runs, method="condorcet") == {"q": {"a": 4.0, "b": 3.0, "c": 2.0, "d": 1.0}}
    # Weight the second run above the other two: b now beats a.
    out = fuse(runs, method="w_condorcet", weights=[0.2, 0.7, 0.1])
    assert list(out["q"]) == ["b", "a", "c", "d"]


@pytest.mark.slow
@pytest.mark.parametrize("method", ["mapfuse", "probfuse"])
def test_fuse_command_trains(tmp_path, method):
    runs = random_runs(5, n_runs=2, ties=False)
    qrels = qrels_for(runs, 5)
    paths = write_runs(tmp_path, runs)
    qpath = tmp_path / "train.qrels"
    qpath.write_text("".join(f"{q} 0 {d} {v}\n" for q, ds in qrels.items()
                             for d, v in ds.items()))
    out = tmp_path / "fused.txt"
    done = subprocess.run([sys.executable, "-m", "sk_rankmetrics", "fuse", *paths,
                           "--method", method, "--norm", "min-max",
                           "--train-qrels", str(qpath), "-o", str(out)],
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    got = {}
    for line in out.read_text().splitlines():
        q, _, d, _, s, tag = line.split()
        assert tag == method
        got.setdefault(q, {})[d] = float(s)
    close(got, ranx_fuse(runs, method, "min-max", ranx_train(qrels, runs, method, "min-max")))
    done = subprocess.run([sys.executable, "-m", "sk_rankmetrics", "fuse", *paths,
                           "--method", method, "-o", str(out)], capture_output=True, text=True)
    assert done.returncode != 0
    assert f"--method {method} is trained: give --train-qrels QRELS" in done.stderr


# --- Hostile inputs of the trained fusion and optimize_fusion ----------------------

TWO = [{"q0": {"a": 3.0, "b": 2.0, "c": 1.0}, "q1": {"a": 1.0, "d": 0.5}},
       {"q0": {"b": 0.9, "c": 0.2}, "q1": {"d": 0.7, "e": 0.1}}]
SEG10 = [0.5] * 10


@pytest.mark.parametrize("kwargs, message", [
    # wrong number of arrays, wrong shapes
    ({"method": "posfuse", "probs": [[0.5], [0.5], [0.5]]},
     r"probs must give one entry per run \(2\), got"),
    ({"method": "mapfuse", "map_scores": [0.3]}, r"map_scores must give one entry per run \(2\)"),
    ({"method": "mapfuse", "map_scores": [[0.3, 0.1], 0.2]},
     r"map_scores\[0\] of mapfuse must be a number, got"),
    ({"method": "posfuse", "probs": [[[0.5]], [0.5]]},
     r"probs\[0\] of posfuse must be a list of numbers"),
    ({"method": "posfuse", "probs": [["x"], [0.5]]},
     r"probs\[0\] of posfuse must be a list of numbers"),
    ({"method": "segfuse", "probs": [[0.5] * 3, SEG10]},
     r"probs\[0\] of segfuse gives 3 probabilities; segfuse has 10, one per segment"),
    ({"method": "probfuse", "probs": [[], [0.5]]},
     r"probs\[0\] of probfuse is empty; it gives one value per segment"),
    ({"method": "bayesfuse", "log_odds": [[0.1] * 5, []]},
     r"log_odds\[1\] of bayesfuse is empty"),
    # NaN, infinite and negative values, probabilities above 1
    ({"method": "posfuse", "probs": [[0.5, np.nan], [0.5]]},
     r"probs\[0\] of posfuse holds nan; the trained probs are numbers in \[0, 1\]"),
    ({"method": "probfuse", "probs": [[0.5], [-0.1]]},
     r"probs\[1\] of probfuse holds -0.1; the trained probs are numbers in \[0, 1\]"),
    ({"method": "slidefuse", "probs": [[1.5], [0.5]], "w": 1},
     r"probs\[0\] of slidefuse holds 1.5; the trained probs are numbers in \[0, 1\]"),
    ({"method": "bayesfuse", "log_odds": [[0.1] * 5, [np.inf] * 5]},
     r"log_odds\[1\] of bayesfuse holds inf; the trained log_odds are finite numbers"),
    ({"method": "mapfuse", "map_scores": [0.3, np.nan]},
     r"map_scores\[1\] of mapfuse holds nan; the trained map_scores are numbers in \[0, 1\]"),
    ({"method": "mapfuse", "map_scores": [-0.2, 0.1]},
     r"map_scores\[0\] of mapfuse holds -0.2"),
    # windows and segments out of range
    ({"method": "slidefuse", "probs": [[0.5], [0.5]], "w": -1},
     r"w=-1 is not accepted \(slidefuse's window: .*\)\. Accepted: an integer >= 0 or None"),
    ({"method": "slidefuse", "probs": [[0.5], [0.5]], "w": 1.5},
     r"w=1.5 is not accepted \(slidefuse's window: .*Accepted: an integer >= 0 or None"),
    ({"method": "bayesfuse", "log_odds": [[0.1], [0.1]]},
     r"runs\[0\] ranks a document at a position beyond its log_odds \(1 positions"),
    ({"method": "posfuse", "probs": [[0.5], [0.5]], "w": 2},
     "w=2 is read by none of method='posfuse'; it applies to slidefuse"),
    # weights, method and norm names
    ({"method": "w_condorcet", "weights": [0.5, 0.2, 0.3]},
     r"weights must give one finite number per run \(2\)"),
    ({"method": "w_condorcet", "weights": [0.5, np.nan]},
     r"weights must give one finite number per run \(2\)"),
    ({"method": "posfsue", "probs": [[0.5], [0.5]]},
     r"method='posfsue' is not accepted \(the fusion method, by ranx's name\)\. Accepted: "
     "'sum', 'max', .*'posfuse', 'bayesfuse', 'mapfuse'"),
    ({"method": "posfuse", "norm": "minmax", "probs": [[0.5], [0.5]]},
     r"norm='minmax' is not accepted \(how each run's scores are normalised .*\)\. "
     "Accepted: 'min-max', 'max', 'sum', 'zmuv', 'rank', 'borda' or None"),
])
def test_trained_hostile_arguments(kwargs, message):
    with pytest.raises(InvalidParameterError, match=message):
        fuse(TWO, **kwargs)


@pytest.mark.parametrize("runs, message", [
    ([{}, TWO[1]], r"runs\[0\] is empty: it ranks no document for any query"),
    ([TWO[0], {"q0": {}}], r"runs\[1\] is empty"),
    ([TWO[0], {"q0": {"a": float("nan")}}],
     r"runs\[1\]: the score of document 'a' for query 'q0' is nan \(1 scores are not finite"),
    ([TWO[0], TrecRun(np.array(["q0", "q0"]), np.array(["a", "b"]),
                      np.array([1.0, -np.inf]))],
     r"runs\[1\]: the score of document 'b' for query 'q0' is -inf"),
])
@pytest.mark.parametrize("method, params", [
    ("posfuse", {"probs": [[0.5], [0.5]]}), ("rrf", {}), ("mapfuse", {"qrels": {"q0": {"a": 1}}})])
def test_hostile_runs(runs, message, method, params):
    with pytest.raises(InvalidParameterError, match=message):
        fuse(runs, method=method, **params)
    if "qrels" in params:
        with pytest.raises(InvalidParameterError, match=message):
            optimize_fusion(params["qrels"], runs, method=method)


def test_one_query_and_queries_of_one_run():
    """A run with one query fuses; a query that one run lacks is fused from the
    run that holds it (each trained score its run's own), with the documented
    numbers."""
    runs = [{"q0": {"a": 3.0, "b": 2.0}, "q1": {"c": 1.0}}, {"q0": {"b": 5.0}}]
    out = fuse(runs, method="posfuse", probs=[[0.6, 0.2], [0.5]])
    close(out, {"q0": {"b": 0.2 + 0.5, "a": 0.6}, "q1": {"c": 0.6}})
    out = fuse(runs, method="mapfuse", map_scores=[0.4, 0.8])
    close(out, {"q0": {"b": 0.4 / 2 + 0.8, "a": 0.4}, "q1": {"c": 0.4}})
    one = [{"q0": {"a": 1.0, "b": 0.5}}, {"q0": {"b": 0.9}}]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        out = fuse(one, method="mapfuse", qrels={"q0": {"b": 1}})
    # run 0 has b at position 1 (AP 0.5), run 1 at position 0 (AP 1).
    close(out, {"q0": {"b": 0.5 / 2 + 1.0, "a": 0.5}})


@pytest.mark.parametrize("qrels, message", [
    ({}, "qrels hold no judgement"),
    ({"q0": {}}, "qrels hold no judgement"),
    (TrecQrels(np.zeros(0, str), np.zeros(0, str), np.zeros(0)),
     "{call}: qrels holds no judgement; the trained methods learn from judged queries"),
    ({"other": {"a": 1}}, "{call}: the training qrels hold none of the runs' queries"),
])
@pytest.mark.parametrize("call", ["fuse", "optimize_fusion"])
def test_training_qrels_of_no_query(qrels, message, call):
    with pytest.raises(ValueError, match=message.format(call=call)):
        if call == "fuse":
            fuse(TWO, method="posfuse", qrels=qrels)
        else:
            optimize_fusion(qrels, TWO, method="posfuse")


@pytest.mark.parametrize("call", ["fuse", "optimize_fusion"])
def test_training_qrels_of_part_of_the_queries_warn_with_counts(call):
    """Judgements of q0 only: the training reads q0 (the result equals the
    training on the runs cut to q0) and says how many queries it left out;
    judged queries no run holds are counted the other way."""
    def run(qrels, runs=TWO):
        if call == "fuse":
            return fuse(runs, method="posfuse", qrels=qrels)
        return optimize_fusion(qrels, runs, method="posfuse")

    with pytest.warns(UserWarning, match=rf"{call}: 1 of the runs' 2 queries are not in the "
                                         r"training qrels \(first: 'q1'\); the training reads "
                                         "the 1 judged queries only"):
        got = run({"q0": {"b": 1}})
    cut = [{"q0": r["q0"]} for r in TWO]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        alone = optimize_fusion({"q0": {"b": 1}}, cut, method="posfuse")
    if call == "fuse":
        assert got == fuse(TWO, method="posfuse", **alone)
    else:
        same_training(got, alone)
    with pytest.warns(UserWarning, match=rf"{call}: 1 of the training qrels' 3 queries are in "
                                         r"no run \(first: 'q9'\)"):
        run({"q0": {"b": 1}, "q1": {"d": 1}, "q9": {"x": 1}})
    with pytest.warns(UserWarning, match="no judgement of the training qrels is relevant"):
        run({"q0": {"b": 0}, "q1": {"d": 0}})


def test_optimize_fusion_hostile_arguments():
    qrels = {"q0": {"b": 1}, "q1": {"d": 1}}
    with pytest.raises(InvalidParameterError,
                       match=r"optimize_fusion: method='wsun' is not accepted \(a fusion method "
                             r"with weights or a parameter to tune .*\)\. Accepted: 'wsum', "):
        optimize_fusion(qrels, TWO, method="wsun")
    with pytest.raises(InvalidParameterError,
                       match=r"optimize_fusion: norm='minmax' is not accepted \(the "
                             r"normalisation before fusing .*\)\. Accepted: 'min-max', "):
        optimize_fusion(qrels, TWO, method="wsum", norm="minmax")
    with pytest.raises(InvalidParameterError,
                       match=r"optimize_fusion: step=0\.3 gives no weight vector of 2 weights "
                             r"on the grid 0, step, \.\.\., 1 that sums to 1"):
        optimize_fusion(qrels, TWO, method="wsum", step=0.3)
    with pytest.raises(InvalidParameterError,
                       match=r"optimize_fusion: step=-0\.1 is not accepted \(the grid step.*"
                             r"Accepted: a finite real number > 0 and <= 1, an integer >= 1"):
        optimize_fusion(qrels, TWO, method="wsum", step=-0.1)


@pytest.mark.parametrize("extra, message", [
    (["--method", "wsum", "--weights", "0.2,0.3,0.5"],
     r"weights must give one finite number per run \(2\)"),
    (["--method", "posfuse", "--train-qrels", "{empty}"], "qrels holds no judgement"),
    (["--method", "posfuse", "--train-qrels", "{other}"],
     "the training qrels hold none of the runs' queries"),
    (["--method", "rrf", "--norm", "borda"],
     "--norm borda gives every candidate a score in every run, in no order of its own; "
     "--method rrf reads positions"),
])
def test_fuse_command_exits_2_on_hostile_arguments(tmp_path, extra, message):
    paths = write_runs(tmp_path, TWO)
    (tmp_path / "empty.qrels").write_text("")
    (tmp_path / "other.qrels").write_text("zz 0 a 1\n")
    extra = [x.format(empty=tmp_path / "empty.qrels", other=tmp_path / "other.qrels")
             for x in extra]
    done = subprocess.run([sys.executable, "-m", "sk_rankmetrics", "fuse", *paths, *extra,
                           "-o", str(tmp_path / "out.txt")], capture_output=True, text=True)
    assert done.returncode == 2, done.stderr
    assert "fuse: error:" in done.stderr and done.stderr.count("Traceback") == 0
    assert re.search(message, " ".join(done.stderr.split())), done.stderr
    assert not (tmp_path / "out.txt").exists()


def test_fuse_command_names_an_empty_run_by_its_file(tmp_path):
    paths = write_runs(tmp_path, TWO)
    empty = tmp_path / "empty.run"
    empty.write_text("")
    done = subprocess.run([sys.executable, "-m", "sk_rankmetrics", "fuse", paths[0], str(empty),
                           "-o", str(tmp_path / "out.txt")], capture_output=True, text=True)
    assert done.returncode == 2, done.stderr
    said = " ".join(done.stderr.split())
    assert f"runs[1] ({empty}) is empty: it ranks no document" in said, done.stderr
    assert not (tmp_path / "out.txt").exists()


def test_a_run_is_named_by_where_it_came_from():
    twice = TrecRun(np.array(["q0", "q0"]), np.array(["a", "a"]), np.array([2.0, 1.0]),
                    source="bm25.run")
    with pytest.raises(ValueError, match=r"fuse: runs\[1\] \(bm25\.run\) ranks a document twice"):
        fuse([TWO[0], twice])


@pytest.mark.parametrize("method", ["wsum", "probfuse"])
def test_optimize_fusion_reads_a_qrels_file_once(tmp_path, monkeypatch, method):
    import sk_rankmetrics._files.runs as runs_module

    path = tmp_path / "train.qrels"
    path.write_text("q0 0 a 1\nq0 0 c 0\nq1 0 d 2\n")
    reads = []
    real = runs_module.read_qrels

    def counted(*args, **kwargs):
        reads.append(args)
        return real(*args, **kwargs)

    monkeypatch.setattr(runs_module, "read_qrels", counted)
    got = optimize_fusion(str(path), TWO, method=method, metric="map")
    assert len(reads) == 1
    monkeypatch.setattr(runs_module, "read_qrels", real)
    assert repr(got) == repr(optimize_fusion(str(path), TWO, method=method, metric="map"))
