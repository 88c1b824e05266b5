"""fuse against ranx.fuse: every method and normalisation, random runs with
documents missing across runs and tied scores; the output forms."""

from __future__ import annotations

import warnings
from collections import namedtuple

import numpy as np
import pytest

from sk_rankmetrics import InvalidParameterError, TrecRun, fuse
from sk_rankmetrics._files.fusion import METHODS, NORMS

ranx = pytest.importorskip("ranx")

RANKED = {"rrf", "isr", "log_isr", "logn_isr", "rbc", "bordafuse", "w_bordafuse"}
#: Compared in tests/files/test_fusion_trained.py (trained, or Condorcet's partial order).
ELSEWHERE = {"condorcet", "w_condorcet", "probfuse", "segfuse", "slidefuse", "posfuse",
             "bayesfuse", "mapfuse"}
PARAMS = {"gmnz": {"gamma": 1.7}, "rrf": {"k": 10}, "logn_isr": {"sigma": 0.05},
          "rbc": {"phi": 0.6}, "wsum": {"weights": [0.2, 0.5, 0.3]},
          "wmnz": {"weights": [0.2, 0.5, 0.3]}, "w_bordafuse": {"weights": [0.2, 0.5, 0.3]},
          "mixed": {"weights": [0.2, 0.5, 0.3]}}


def random_runs(seed, n_runs=3, n_q=6, pool=20, depth=12, ties=True):
    """Runs of the same queries, each retrieving its own subset of a pool (so
    documents are missing across runs), at most 15 per query (ranx orders ties
    among at most 15 documents stably), scores rounded to make ties."""
    rng = np.random.default_rng(seed)
    runs = []
    for r in range(n_runs):
        run = {}
        for q in range(n_q):
            n = int(rng.integers(1, depth + 1))
            docs = rng.choice(pool, size=n, replace=False)
            scores = rng.normal(size=n) * (1 + r)
            if ties:
                scores = np.round(scores, 0)
            # ranx sorts each query's documents by score on construction; the
            # order given here is that order with ties in insertion order.
            order = np.argsort(-scores, kind="stable")
            run[f"q{q}"] = {f"d{docs[i]}": float(scores[i]) for i in order}
        runs.append(run)
    return runs


def ranx_fuse(runs, method, norm, params):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        out = ranx.fuse([ranx.Run(r) for r in runs], norm=norm, method=method,
                        params=dict(params)).to_dict()
    return {q: dict(d) for q, d in out.items()}


def close(got, want):
    assert set(got) == set(want)
    for q in want:
        assert set(got[q]) == set(want[q]), q
        for d, v in want[q].items():
            assert got[q][d] == pytest.approx(v, rel=1e-9, abs=1e-9), (q, d)


@pytest.mark.slow  # ranx compiles each of its functions on first use
@pytest.mark.parametrize("norm", NORMS)
@pytest.mark.parametrize("method", [m for m in METHODS if m not in ELSEWHERE])
def test_fuse_equals_ranx(method, norm):
    if norm == "borda" and method in RANKED:
        pytest.skip("refused: positions after borda's normalisation are in no order")
    for seed in range(3):
        runs = random_runs(seed)
        params = PARAMS.get(method, {})
        close(fuse(runs, method=method, norm=norm, **params),
              ranx_fuse(runs, method, norm, params))


@pytest.mark.slow
@pytest.mark.parametrize("method", sorted(RANKED))
def test_ranked_methods_on_long_lists(method):
    runs = random_runs(7, depth=200, pool=300, ties=False)
    params = PARAMS.get(method, {})
    close(fuse(runs, method=method, **params), ranx_fuse(runs, method, None, params))


def test_output_forms():
    runs = random_runs(1, n_runs=2)
    fused = fuse(runs, method="rrf")
    assert isinstance(fused, dict)
    for docs in fused.values():
        assert list(docs.values()) == sorted(docs.values(), reverse=True)
    trec = [TrecRun(*map(np.array, zip(*[(q, d, s) for q, ds in r.items()
                                         for d, s in ds.items()]))) for r in runs]
    out = fuse(trec, method="rrf", tag="hybrid")
    assert isinstance(out, TrecRun) and out.tag == "hybrid"
    again = {}
    for q, d, s in zip(out.qid.tolist(), out.docno.tolist(), out.score.tolist()):
        again.setdefault(q, {})[d] = s
    close(again, fused)
    Scored = namedtuple("GenericScoredDoc", "query_id doc_id score")
    tuples = [[Scored(q, d, s) for q, ds in r.items() for d, s in ds.items()] for r in runs]
    assert isinstance(fuse(tuples, method="rrf"), TrecRun)
    pd = pytest.importorskip("pandas")
    frames = [pd.DataFrame([(q, d, s) for q, ds in r.items() for d, s in ds.items()],
                           columns=["qid", "docno", "score"]) for r in runs]
    frame = fuse(frames, method="rrf")
    assert list(frame.columns) == ["qid", "docno", "score"]
    assert len(frame) == sum(map(len, fused.values()))


def test_int_query_keys_come_back_as_given():
    out = fuse([{1: {"a": 2.0}}, {1: {"b": 1.0}}], method="sum")
    assert out == {1: {"a": 2.0, "b": 1.0}}


@pytest.mark.parametrize("kwargs, message", [
    ({"method": "foo"}, "fuse: method='foo' is not accepted"),
    ({"method": "probfuse"}, "fuse: the probfuse method needs its trained probs"),
    ({"method": "rrf", "probs": [[0.5], [0.5]]}, "probs=.* is read by none of method='rrf'"),
    ({"method": "wsum", "k": 10}, "k=10 is read by none of method='wsum'; it applies to rrf"),
    ({"method": "wsum", "weights": [1.0]}, "weights must give one finite number per run"),
    ({"method": "rrf", "norm": "borda"}, "norm='borda' gives every candidate"),
    ({"method": "sum", "norm": "l2"}, "fuse: norm='l2' is not accepted"),
])
def test_bad_arguments(kwargs, message):
    with pytest.raises(InvalidParameterError, match=message):
        fuse(random_runs(0, n_runs=2), **kwargs)
    with pytest.raises(InvalidParameterError, match="at least two runs"):
        fuse([random_runs(0, n_runs=1)[0]])


def _qrels_and_runs(seed, n_q=8):
    """Two runs retrieving the same documents with distinct scores: no fused run
    of the grid has ties, so this package's metric and ranx's (which breaks
    ties by its sort) agree on every configuration."""
    rng = np.random.default_rng(seed)
    runs = [{}, {}]
    qrels = {}
    for q in range(n_q):
        docs = [f"d{i}" for i in rng.choice(30, size=10, replace=False)]
        for run in runs:
            scores = rng.permutation(10) + rng.random(10) * 0.5
            order = np.argsort(-scores, kind="stable")
            run[f"q{q}"] = {docs[i]: float(scores[i]) for i in order}
        qrels[f"q{q}"] = {d: int(rng.integers(1, 3)) for d in rng.choice(docs, 3, replace=False)}
    return qrels, runs


@pytest.mark.slow
@pytest.mark.parametrize("method, metric", [("wsum", "ndcg@10"), ("rrf", "ndcg@10"),
                                            ("mixed", "map@10"), ("gmnz", "ndcg@10")])
def test_optimize_fusion_picks_what_ranx_picks(method, metric):
    from sk_rankmetrics import optimize_fusion

    for seed in range(2):
        qrels, runs = _qrels_and_runs(seed)
        got = optimize_fusion(qrels, runs, method=method, norm="min-max", metric=metric)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            want = ranx.optimize_fusion(ranx.Qrels(qrels), [ranx.Run(r) for r in runs],
                                        method=method, norm="min-max", metric=metric,
                                        show_progress=False)
        want = {k: [float(x) for x in v] if k == "weights" else v for k, v in want.items()}
        assert got == want, (seed, got, want)


def test_optimize_fusion_refuses():
    from sk_rankmetrics import optimize_fusion

    qrels, runs = _qrels_and_runs(0, n_q=2)
    with pytest.raises(InvalidParameterError,
                       match="optimize_fusion: method='sum' is not accepted"):
        optimize_fusion(qrels, runs, method="sum")
    best, report = optimize_fusion(qrels, runs, method="rrf", return_report=True)
    assert list(report) == [str(k) for k in range(10, 101, 10)]
    assert report[str(best["k"])] == max(report.values())


def write_runs(folder, runs):
    """Each run as a TREC run file in ``folder`` (its order kept); the paths."""
    paths = []
    for i, run in enumerate(runs):
        path = folder / f"run{i}.txt"
        path.write_text("".join(f"{q} Q0 {d} {r} {s!r} sys{i}\n" for q, ds in run.items()
                                for r, (d, s) in enumerate(ds.items(), 1)))
        paths.append(str(path))
    return paths


def _read_trec(path):
    out = {}
    for line in open(path).read().splitlines():
        q, _, d, _, s, _ = line.split()
        out.setdefault(q, {})[d] = float(s)
    return out


@pytest.mark.slow
@pytest.mark.parametrize("method, norm, flags, params", [
    ("rrf", None, [], {}),
    ("wsum", "min-max", ["--weights", "0.3,0.7"], {"weights": [0.3, 0.7]}),
    ("rbc", "zmuv", ["--phi", "0.6"], {"phi": 0.6}),
])
def test_fuse_command_writes_ranx_run(tmp_path, method, norm, flags, params):
    import subprocess
    import sys

    runs = random_runs(11, n_runs=2)
    paths = write_runs(tmp_path, runs)
    out = tmp_path / "fused.txt"
    done = subprocess.run([sys.executable, "-m", "sk_rankmetrics", "fuse", *paths,
                           "--method", method, "--norm", norm or "none", *flags,
                           "-o", str(out)], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fused = ranx.fuse([ranx.Run.from_file(p, kind="trec") for p in paths], norm=norm,
                          method=method, params=params)
        fused.save(str(tmp_path / "ranx.txt"), kind="trec")
    close(_read_trec(out), _read_trec(tmp_path / "ranx.txt"))


@pytest.mark.parametrize("ids", [
    ["d1", "d10", "d1", "d2", "d10"],                       # one 8-character slice
    ["doc-000000000001", "doc-000000000002", "doc-000000000001", "doc-0000000000011"],
    ["dé", "de", "dé", "日本", "日本語", "日本"],             # beyond ASCII: 2 per slice
    ["", "a", "", "a"],                                        # empty ids
    [f"q{i % 37}" for i in range(500)],
])
def test_factorize_text_ids_without_objects(ids):
    """The packed-code factorisation equals NumPy's sort of every id: same
    uniques, same codes, ids at their own width."""
    from sk_rankmetrics._files.fusion_codes import _factorize

    values = np.array(ids, dtype="U40")  # wider than any id
    codes, uniq = _factorize(values)
    want_uniq, want_codes = np.unique(values, return_inverse=True)
    assert uniq.tolist() == want_uniq.tolist()
    assert codes.tolist() == want_codes.reshape(-1).tolist()
    assert uniq.dtype.itemsize <= 4 * max(1, max(map(len, ids)))
