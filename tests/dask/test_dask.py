"""Dask inputs give the in-memory numbers, on the threaded scheduler and on a cluster.

Every registered metric is scored on Dask collections and compared, per row
(query, user) and on average, with the same call on the same data in memory,
to 1e-12: matrices chunked across rows and columns, long format with each
query's pairs spread over several partitions in shuffled order (and the
no-shuffle route when ``qid`` is an index with known divisions),
``evaluate_run`` on Dask data frames and ``evaluate_ranked`` on bags and data
frames. The same runs on a ``distributed.LocalCluster`` of two worker
processes (started once for the module). Hostile inputs (mismatched
partitions, NaN in one partition, a query in two partitions that claim to
hold whole queries) raise errors that say where.
"""

from __future__ import annotations

import math
import os
import subprocess
import sys
import textwrap
import threading
import warnings

import numpy as np
import pytest
from conftest import METRIC_NAMES, ROOT, default_options, score
from hypothesis import given, settings
from hypothesis import strategies as st

import sk_rankmetrics as skr
from sk_rankmetrics import InvalidParameterError
from sk_rankmetrics._evaluation.reduce import combine, finish, partial, weighted_mean
from sk_rankmetrics._metrics.registry import METRICS
from sk_rankmetrics._utils.errors import quiet, warn

dask = pytest.importorskip("dask")
da = pytest.importorskip("dask.array")
dd = pytest.importorskip("dask.dataframe")
db = pytest.importorskip("dask.bag")
pd = pytest.importorskip("pandas")

#: Slow (Dask schedulers and a local cluster): left out by pytest -m 'not slow'.
pytestmark = pytest.mark.slow

REFERENCE = ROOT / "tests" / "data" / "trec_eval"
TOL = 1e-12
#: Metrics without a closed form for ties get tie-free scores.
REFUSE_TIES = {n for n, s in METRICS.items() if s.ties == "refuse"}


# -- the schedulers ----------------------------------------------------------------


@pytest.fixture(scope="module")
def client():
    distributed = pytest.importorskip("distributed")
    cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                       dashboard_address=None, silence_logs=40)
    c = distributed.Client(cluster, set_as_default=False)
    yield c
    c.close()
    cluster.close()


@pytest.fixture(params=["threads", "distributed"])
def scheduler(request):
    """Run the test on the threaded scheduler, then on the local cluster."""
    if request.param == "threads":
        with dask.config.set(scheduler="threads"):
            yield "threads"
    else:
        c = request.getfixturevalue("client")
        with dask.config.set(scheduler=c.get):
            yield c


# -- data --------------------------------------------------------------------------


def long_case(seed=0, n_queries=60, max_len=12, ties=True, str_ids=False):
    """Pairs of queries of 1..max_len items (some without relevant items), in
    shuffled order."""
    rng = np.random.default_rng(seed)
    lengths = rng.integers(1, max_len + 1, n_queries)
    ids = rng.choice(10_000, n_queries, replace=False)
    qid = np.repeat(ids, lengths)
    n = qid.shape[0]
    y = rng.integers(0, 4, n) * (rng.random(n) < 0.5)
    y[np.isin(qid, ids[:5])] = 0
    s = rng.integers(0, 4, n).astype(float) if ties else rng.permutation(n) / n
    perm = rng.permutation(n)
    qid, y, s = qid[perm], y[perm], s[perm]
    if str_ids:
        qid = np.array([f"q{i}" for i in qid])
    return pd.DataFrame({"qid": qid, "y": y, "s": s})


def split(frame, npartitions=4):
    """A Dask frame whose partitions cut through queries (rows as they are)."""
    return dd.from_pandas(frame, npartitions=npartitions, sort=False)


def metric_case(name, frame):
    """The frame with tie-free scores for metrics that refuse ties."""
    if name in REFUSE_TIES:
        frame = frame.assign(s=np.random.default_rng(1).permutation(len(frame)) / len(frame))
    return frame


def close(a, b):
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    assert a.shape == b.shape
    assert np.array_equal(np.isnan(a), np.isnan(b))
    ok = ~np.isnan(a)
    assert np.abs(a[ok] - b[ok]).max(initial=0.0) <= TOL * max(1.0, np.abs(a[ok]).max(
        initial=0.0)), (a, b)


def kwargs_for(name):
    spec = METRICS[name]
    kw = {"k": 5} if spec.takes_k else {}
    if spec.normalized and not spec.always_defined:
        kw["no_relevant"] = "skip"
    return kw


# -- nothing imports Dask unless a Dask object is passed --------------------------------


def test_in_memory_calls_do_not_import_dask():
    code = textwrap.dedent("""
        import sys
        import numpy as np
        import sk_rankmetrics as skr
        y, s = np.array([[1, 0, 2], [0, 1, 1]]), np.array([[3, 2, 1], [1, 2, 3]])
        skr.evaluate(y, s, ["ndcg@2", "map"])
        skr.ndcg_score([1, 0, 2, 1], [3, 2, 1, 0], qid=[1, 1, 2, 2])
        skr.evaluate_ranked({"u": ["a", "b"]}, {"u": {"b"}}, ["mrr"])
        q = skr.TrecQrels(np.array(["q"]), np.array(["d"]), np.array([1.0]))
        r = skr.TrecRun(np.array(["q", "q"]), np.array(["d", "e"]), np.array([1.0, 2.0]))
        skr.evaluate_run(q, r, ["map", "ndcg"])
        skr.get_scorer("ndcg@2")
        bad = [m for m in sys.modules if m == "dask" or m.startswith(("dask.", "distributed"))]
        assert not bad, bad
        print("ok")
    """)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(
        filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])))
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         env=env, cwd=ROOT, timeout=120, check=False)
    assert out.returncode == 0 and out.stdout.strip() == "ok", out.stderr


# -- every metric, long format ----------------------------------------------------------


@pytest.mark.parametrize("name", METRIC_NAMES)
def test_every_metric_long_format_split_and_shuffled(name):
    frame = metric_case(name, long_case())
    ddf = split(frame)
    kw = kwargs_for(name)
    expected = score(name, frame.y.to_numpy(), frame.s.to_numpy(), qid=frame.qid.to_numpy(),
                     per_row=True, **kw)
    got = score(name, ddf.y, ddf.s, qid=ddf.qid, per_row=True, **kw)
    close(got, expected)
    mean = score(name, ddf.y, ddf.s, qid=ddf.qid, **kw)
    assert math.isclose(mean, score(name, frame.y.to_numpy(), frame.s.to_numpy(),
                                    qid=frame.qid.to_numpy(), **kw), rel_tol=TOL, abs_tol=TOL)


@pytest.mark.parametrize("name", METRIC_NAMES)
def test_every_metric_dense_chunked_across_rows_and_columns(name):
    rng = np.random.default_rng(3)
    y = rng.integers(0, 4, (45, 9)) * (rng.random((45, 9)) < 0.5)
    y[:4] = 0
    s = rng.integers(0, 4, (45, 9)).astype(float)
    if name in REFUSE_TIES:
        s = rng.random((45, 9))
    w = rng.random(45)
    kw = kwargs_for(name)
    yd, sd = da.from_array(y, chunks=(7, 4)), da.from_array(s, chunks=(10, 9))
    for weights in (None, w):
        expected = score(name, y, s, per_row=True, **kw)
        close(score(name, yd, sd, per_row=True, **kw), expected)
        got = score(name, yd, sd, sample_weight=weights, **kw)
        want = score(name, y, s, sample_weight=weights, **kw)
        assert math.isclose(got, want, rel_tol=TOL, abs_tol=TOL)


def test_every_metric_at_once_on_the_cluster(client):
    """One evaluate() of every metric on a cluster of two worker processes,
    long format and matrices."""
    frame = long_case(seed=5).assign(s=lambda f: np.random.default_rng(2).random(len(f)))
    metrics = [(n if not METRICS[n].takes_k else f"{n}@5", default_options(n))
               for n in METRIC_NAMES]
    args = (frame.y.to_numpy(), frame.s.to_numpy())
    expected = skr.evaluate(*args, metrics, qid=frame.qid.to_numpy(), per_row=True,
                            no_relevant="skip")
    ddf = split(frame, 5)
    from distributed import get_task_stream

    with dask.config.set(scheduler=client.get), get_task_stream(client) as tasks:
        got = skr.evaluate(ddf.y, ddf.s, metrics, qid=ddf.qid, per_row=True,
                           no_relevant="skip")
    assert len({t["worker"] for t in tasks.data}) == 2  # both workers scored partitions
    for label, _ in metrics:
        close(got[label], expected[label])
    rng = np.random.default_rng(4)
    y, s = rng.integers(0, 3, (60, 8)), rng.random((60, 8))
    expected = skr.evaluate(y, s, metrics, no_relevant=0.0)
    with dask.config.set(scheduler=client.get):
        got = skr.evaluate(da.from_array(y, chunks=(13, 8)), da.from_array(s, chunks=(8, 3)),
                           metrics, no_relevant=0.0)
    for label, _ in metrics:
        assert math.isclose(got[label], expected[label], rel_tol=TOL, abs_tol=TOL), label


def test_exclude_on_the_cluster(client):
    """``exclude=`` on the cluster: a scipy.sparse mask shipped with the blocks
    and a Dask mask give the in-memory numbers; a leak is an error there too."""
    import scipy.sparse as sp

    rng = np.random.default_rng(6)
    y, s = rng.integers(0, 3, (60, 8)), rng.random((60, 8))
    ex = (rng.random(y.shape) < 0.3) & (y == 0)
    metrics = ["ndcg@3", "recall@5", "map"]
    expected = skr.evaluate(y, s, metrics, exclude=ex, per_row=True, no_relevant=0.0)
    yd, sd = da.from_array(y, chunks=(13, 8)), da.from_array(s, chunks=(8, 3))
    with dask.config.set(scheduler=client.get):
        for mask in (sp.csr_array(ex), da.from_array(ex, chunks=(7, 4))):
            got = skr.evaluate(yd, sd, metrics, exclude=mask, per_row=True, no_relevant=0.0)
            for label in metrics:
                close(got[label], expected[label])
        with pytest.raises(ValueError, match="y_true marks 1 excluded items as relevant"):
            skr.ndcg_score(yd, sd, exclude=ex | (np.arange(60)[:, None] == 30) & (y > 0)
                           & (np.cumsum(y > 0, axis=1) == 1))


def test_options_and_callables_travel_to_the_workers(scheduler):
    frame = long_case(seed=7)
    ddf = split(frame, 3)
    gain = {0: 0.0, 1: 1.0, 2: 5.0, 3: 6.5}
    untied = frame.assign(s=np.random.default_rng(1).random(len(frame)))
    for kwargs in ({"gain": gain}, {"discount": lambda p: 1.0 / np.asarray(p, dtype=float)},
                   {"gain": "exponential", "log_base": 3}, {"ignore_ties": True}, "untied"):
        if kwargs == "untied":
            kwargs, frame, ddf = {"ignore_ties": True}, untied, split(untied, 3)
        want = skr.ndcg_score(frame.y.to_numpy(), frame.s.to_numpy(),
                              qid=frame.qid.to_numpy(), k=4, no_relevant=0.5, **kwargs)
        got = skr.ndcg_score(ddf.y, ddf.s, qid=ddf.qid, k=4, no_relevant=0.5, **kwargs)
        assert math.isclose(got, want, rel_tol=TOL), kwargs


# -- long format: layouts, weights, policies ----------------------------------------------


def test_arrays_strings_and_mixed_inputs(scheduler):
    frame = long_case(seed=11, str_ids=True)
    y, s, q = frame.y.to_numpy(), frame.s.to_numpy(), frame.qid.to_numpy()
    want = skr.ndcg_score(y, s, qid=q, per_row=True, no_relevant="skip")
    for args in [
        (da.from_array(y, chunks=50), da.from_array(s, chunks=70), da.from_array(q, chunks=40)),
        (da.from_array(y, chunks=50), s, q),  # in memory beside a Dask array
        (split(frame).y, split(frame).s, split(frame).qid),
    ]:
        close(skr.ndcg_score(*args[:2], qid=args[2], per_row=True, no_relevant="skip"), want)


def test_per_pair_weights_and_judged(scheduler):
    frame = long_case(seed=12)
    rng = np.random.default_rng(0)
    ids = np.unique(frame.qid)
    per_query = dict(zip(ids, rng.random(ids.size) * 3))
    frame = frame.assign(w=frame.qid.map(per_query), j=rng.random(len(frame)) < 0.8)
    ddf = split(frame, 3)
    want = skr.evaluate(frame.y.to_numpy(), frame.s.to_numpy(), ["ndcg@3", "bpref", "map"],
                        qid=frame.qid.to_numpy(), sample_weight=frame.w.to_numpy(),
                        judged=frame.j.to_numpy(), no_relevant="skip")
    got = skr.evaluate(ddf.y, ddf.s, ["ndcg@3", "bpref", "map"], qid=ddf.qid,
                       sample_weight=ddf.w, judged=ddf.j, no_relevant="skip")
    for label in want:
        assert math.isclose(got[label], want[label], rel_tol=TOL), label
    bad = split(frame.assign(w=rng.random(len(frame))), 3)
    with pytest.raises(ValueError, match=r"differs inside query .*partition \d+ after the "
                                         r"shuffle by qid"):
        skr.ndcg_score(bad.y, bad.s, qid=bad.qid, sample_weight=bad.w)


def test_policies_warnings_and_means_as_in_memory():
    frame = long_case(seed=13)
    args = (frame.y.to_numpy(), frame.s.to_numpy())
    ddf = split(frame)
    for policy in ("warn", "skip", 0.0, 1.0, float("nan")):
        with warnings.catch_warnings(record=True) as mem:
            warnings.simplefilter("always")
            want = skr.evaluate(*args, ["ndcg@3", "gm_map", "num_rel", "rbp"],
                                qid=frame.qid.to_numpy(), no_relevant=policy)
        with warnings.catch_warnings(record=True) as got_w:
            warnings.simplefilter("always")
            got = skr.evaluate(ddf.y, ddf.s, ["ndcg@3", "gm_map", "num_rel", "rbp"],
                               qid=ddf.qid, no_relevant=policy)
        for label in want:
            assert (math.isclose(got[label], want[label], rel_tol=TOL)
                    or (math.isnan(got[label]) and math.isnan(want[label]))), (policy, label)
        assert [str(w.message) for w in got_w] == [str(w.message) for w in mem]
        assert all(w.filename == __file__ for w in got_w)  # the user's line


def test_every_query_skipped_and_zero_weights():
    frame = long_case(seed=14).assign(y=0)
    ddf = split(frame)
    with pytest.warns(UserWarning, match="every row was skipped"):
        assert math.isnan(skr.ndcg_score(ddf.y, ddf.s, qid=ddf.qid, no_relevant="skip"))
    frame = long_case(seed=14).assign(w=0.0)
    ddf = split(frame)
    with pytest.raises(ValueError, match="sample_weight sums to zero"):
        skr.ndcg_score(ddf.y, ddf.s, qid=ddf.qid, sample_weight=ddf.w, no_relevant=0.0)


def test_huge_weights_give_the_in_memory_mean():
    frame = long_case(seed=15)
    ids = np.unique(frame.qid)
    per_query = dict(zip(ids, np.linspace(1e306, 1.7e308, ids.size)))
    frame = frame.assign(w=frame.qid.map(per_query))
    ddf = split(frame)
    want = skr.ndcg_score(frame.y.to_numpy(), frame.s.to_numpy(), qid=frame.qid.to_numpy(),
                          sample_weight=frame.w.to_numpy(), no_relevant=0.0)
    got = skr.ndcg_score(ddf.y, ddf.s, qid=ddf.qid, sample_weight=ddf.w, no_relevant=0.0)
    assert np.isfinite(got) and math.isclose(got, want, rel_tol=TOL)


def test_lazy_results(scheduler):
    frame = long_case(seed=16)
    ddf = split(frame)
    q = frame.qid.to_numpy()
    lazy = skr.evaluate(ddf.y, ddf.s, ["ndcg@3", "mrr"], qid=ddf.qid, per_row=True,
                        compute=False, no_relevant="skip")
    assert all(isinstance(v, dd.Series) for v in lazy.values())
    computed = dask.compute(lazy)[0]
    want = skr.evaluate(frame.y.to_numpy(), frame.s.to_numpy(), ["ndcg@3", "mrr"], qid=q,
                        per_row=True, no_relevant="skip")
    for label in want:
        assert computed[label].index.tolist() == np.unique(q).tolist()  # sorted qid
        close(computed[label].to_numpy(), want[label])
    mean = skr.ndcg_score(ddf.y, ddf.s, qid=ddf.qid, k=3, compute=False, no_relevant=0.0)
    assert dask.is_dask_collection(mean)
    assert math.isclose(float(mean.compute()), skr.ndcg_score(
        frame.y.to_numpy(), frame.s.to_numpy(), qid=q, k=3, no_relevant=0.0), rel_tol=TOL)
    y = np.random.default_rng(0).integers(0, 3, (30, 6))
    s = np.random.default_rng(1).random((30, 6))
    rows = skr.ndcg_score(da.from_array(y, chunks=(7, 6)), s, per_row=True, compute=False)
    assert isinstance(rows, da.Array) and rows.shape == (30,) and rows.chunks == ((7,) * 4 + (2,),)
    close(rows.compute(), skr.ndcg_score(y, s, per_row=True))
    m = skr.ndcg_score(da.from_array(y, chunks=(7, 6)), s, compute=False)
    assert isinstance(m, da.Array) and m.shape == ()
    assert math.isclose(float(m.compute()), skr.ndcg_score(y, s), rel_tol=TOL)


def test_in_memory_inputs_ignore_compute():
    y, s = [[1, 0, 2]], [[3, 2, 1]]
    assert skr.ndcg_score(y, s, compute=False) == skr.ndcg_score(y, s)


# -- the no-shuffle route: qid as an index with known divisions -------------------------


def _indexed(frame, npartitions=4):
    return dd.from_pandas(frame.set_index("qid").sort_index(), npartitions=npartitions)


def test_index_with_known_divisions_is_scored_without_a_shuffle(scheduler, monkeypatch):
    frame = long_case(seed=21)
    ddf = _indexed(frame)
    assert ddf.known_divisions

    def no_shuffle(*args, **kwargs):
        raise AssertionError("the data were shuffled")

    monkeypatch.setattr(dd.DataFrame, "shuffle", no_shuffle)
    want = skr.evaluate(frame.y.to_numpy(), frame.s.to_numpy(), ["ndcg@3", "map", "mrr"],
                        qid=frame.qid.to_numpy(), per_row=True, no_relevant="skip")
    got = skr.evaluate(ddf.y, ddf.s, ["ndcg@3", "map", "mrr"], qid=ddf.index, per_row=True,
                       no_relevant="skip")
    for label in want:
        close(got[label], want[label])
    lazy = skr.mean_average_precision_score(ddf.y, ddf.s, qid=ddf.index, per_row=True,
                                            compute=False, no_relevant="skip")
    assert lazy.known_divisions  # already in order: no sort either
    close(lazy.compute().to_numpy(), want["map"])


def test_a_partition_of_single_item_queries():
    # Sorted ids with a partition that holds queries of one item only.
    frame = pd.DataFrame({"qid": [1, 1, 1, 2, 2, 3, 4, 5, 6, 6, 6],
                          "y": [1, 0, 2, 0, 1, 1, 0, 1, 0, 1, 1],
                          "s": [0.3, 0.2, 0.1, 0.5, 0.6, 0.9, 0.1, 0.2, 0.4, 0.5, 0.1]})
    ddf = dd.from_pandas(frame.set_index("qid"), npartitions=1).repartition(
        divisions=[1, 3, 6, 6])
    assert ddf.npartitions == 3
    want = skr.ndcg_score(frame.y.to_numpy(), frame.s.to_numpy(), qid=frame.qid.to_numpy(),
                          per_row=True, no_relevant=0.0)
    close(skr.ndcg_score(ddf.y, ddf.s, qid=ddf.index, per_row=True, no_relevant=0.0), want)
    single = split(frame.drop_duplicates("qid"), 2)
    with pytest.raises(ValueError, match="every query has a single item"):
        skr.ndcg_score(single.y, single.s, qid=single.qid)


def test_a_query_in_two_partitions_that_claim_whole_queries_raises():
    frame = long_case(seed=22).sort_values("qid")
    ids = np.unique(frame.qid)
    mid = ids[ids.size // 2]
    first = frame[frame.qid <= mid]
    second = frame[frame.qid >= mid]
    # Query `mid` has rows in both partitions, whose divisions say otherwise.
    second = second[second.qid > mid].pipe(lambda f: pd.concat([frame[frame.qid == mid][:1],
                                                                   f]))
    first = first.drop(first[first.qid == mid].index[:1])
    parts = [p.set_index("qid") for p in (first, second)]
    divisions = (ids[0], mid, ids[-1])
    ddf = dd.from_map(lambda i: parts[i], [0, 1], divisions=divisions, meta=parts[0][:0])
    assert ddf.known_divisions
    with pytest.raises(ValueError, match=r"partition \d holds query \d+, outside its "
                                         r"divisions \[\d+, \d+\)"):
        skr.ndcg_score(ddf.y, ddf.s, qid=ddf.index)


def test_columns_of_another_frame_with_the_index_route_raise():
    frame = long_case(seed=23)
    ddf = _indexed(frame)
    ids = np.unique(frame.qid)
    other = ddf.repartition(divisions=[ids[0], ids[5], ids[9], ids[30], ids[-1]])
    assert other.npartitions == ddf.npartitions and other.divisions != ddf.divisions
    with pytest.raises(ValueError, match="not partitioned by it"):
        skr.ndcg_score(other.y, ddf.s, qid=ddf.index)


# -- hostile input ----------------------------------------------------------------------


def test_mismatched_partitions_and_lengths_raise():
    frame = long_case(seed=31)
    a, b = split(frame, 3), split(frame, 4)
    with pytest.raises(ValueError, match=r"partitioned alike.*3 partitions.*4 partitions"):
        skr.ndcg_score(a.y, b.s, qid=a.qid)
    c = dd.from_pandas(frame.iloc[:-5], npartitions=3, sort=False)
    with pytest.raises(ValueError, match=r"different lengths in partition \d"):
        skr.ndcg_score(a.y, c.s, qid=a.qid)
    y = da.from_array(frame.y.to_numpy(), chunks=50)
    with pytest.raises(ValueError, match=r"same length.*y_true: \d+, y_score: \d+"):
        skr.ndcg_score(y, frame.s.to_numpy()[:-1], qid=frame.qid.to_numpy())
    with pytest.raises(ValueError, match="one weight per query-item pair"):
        skr.ndcg_score(a.y, a.s, qid=a.qid, sample_weight=np.ones(3))


def test_nan_in_one_partition_names_it():
    frame = long_case(seed=32)
    frame.loc[frame.index[-3], "s"] = np.nan
    ddf = split(frame, 4)
    with pytest.raises(ValueError, match=r"y_score contains NaN.*in partition 3"):
        skr.ndcg_score(ddf.y, ddf.s, qid=ddf.qid)
    y = np.random.default_rng(0).random((20, 5))
    y[13, 2] = np.inf
    with pytest.raises(ValueError, match=r"y_true contains NaN or infinity \(first at row 13, "
                                         r"column 2\)"):
        skr.ndcg_score(da.from_array(y, chunks=(6, 2)), y)


def test_bad_types_and_shapes_raise_clearly():
    frame = long_case(seed=33)
    ddf = split(frame)
    with pytest.raises(InvalidParameterError, match="y_true must hold numbers"):
        skr.ndcg_score(ddf.qid.astype(str), ddf.s, qid=ddf.qid)
    with pytest.raises(InvalidParameterError, match=r"qid must hold ids.*bool"):
        skr.ndcg_score(ddf.y, ddf.s, qid=ddf.y > 0)
    x = da.ones((4, 3, 2))
    with pytest.raises(ValueError, match=r"y_true has 3 dimension\(s\)"):
        skr.ndcg_score(x, x)
    with pytest.raises(ValueError, match="at least 2 items per row"):
        skr.ndcg_score(da.ones((4, 1)), da.ones((4, 1)))
    with pytest.raises(ValueError, match="same shape"):
        skr.ndcg_score(da.ones((4, 3)), da.ones((5, 3)))


# -- evaluate_run on Dask data frames -----------------------------------------------------


def run_case(seed=0, n_queries=40):
    rng = np.random.default_rng(seed)
    run = pd.DataFrame({
        "qid": np.repeat([f"q{i:02d}" for i in range(n_queries)], 25),
        "docno": [f"d{j}" for j in rng.integers(0, 400, n_queries * 25)],
        "score": rng.integers(0, 6, n_queries * 25).astype(float),
    }).drop_duplicates(["qid", "docno"]).sample(frac=1.0, random_state=seed)
    # qrels for queries 5.. n+5: some run queries unjudged, some judged ones unranked
    qrels = pd.DataFrame({
        "qid": np.repeat([f"q{i:02d}" for i in range(5, n_queries + 5)], 12),
        "docno": [f"d{j}" for j in rng.integers(0, 400, n_queries * 12)],
        "relevance": rng.integers(-1, 3, n_queries * 12),
    }).drop_duplicates(["qid", "docno"])
    return qrels, run


MEASURES = ["ndcg@10", "map", "P_5", "recip_rank", "num_rel", "num_ret", "gm_map", "bpref",
            "Rprec", "iprec_at_recall_0.50", "ndcg_cut_5", "success_10"]


def _both(fn, *args, **kwargs):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        out = fn(*args, **kwargs)
    return out, [str(w.message) for w in caught]


@pytest.mark.parametrize("setting", ["sk_rankmetrics", "trec_eval"])
@pytest.mark.parametrize("complete", [False, True])
def test_evaluate_run_on_dask_frames(scheduler, setting, complete):
    qrels, run = run_case()
    if setting == "sk_rankmetrics":
        qrels = qrels.assign(relevance=qrels.relevance.clip(0))
    measures = MEASURES if setting == "trec_eval" else [m for m in MEASURES
                                                        if m != "iprec_at_recall_0.50"]
    want, want_w = _both(skr.evaluate_run, qrels, run, measures, setting=setting,
                         complete=complete)
    got, got_w = _both(skr.evaluate_run, dd.from_pandas(qrels, npartitions=3),
                       dd.from_pandas(run, npartitions=5, sort=False), measures,
                       setting=setting, complete=complete)
    assert got.query_ids.tolist() == want.query_ids.tolist()
    for m in measures:
        close(got.per_query[m], want.per_query[m])
        assert math.isclose(got.mean[m], want.mean[m], rel_tol=TOL, abs_tol=TOL), m
    assert got_w == want_w


@pytest.mark.filterwarnings("ignore:.*have no judgements:UserWarning")
def test_evaluate_run_options_and_a_partition_of_unranked_queries(scheduler):
    qrels, run = run_case(seed=3, n_queries=30)
    qrels = pd.concat([qrels, pd.DataFrame({"qid": [f"z{i}" for i in range(40)],
                                            "docno": "d1", "relevance": 1})])
    run = run.assign(qid=run.qid.str.replace("q", "Q", regex=False).where(
        run.qid < "q10", run.qid))  # ten ranked queries are not judged
    options = dict(setting="trec_eval", complete=True, threshold=2, max_docs=8,
                   judged_only=True)
    measures = ["map", "P_5", "recall_10", "num_rel", "num_ret"]
    want = skr.evaluate_run(qrels, run, measures, **options, gains=None)
    for npart in (2, 7):
        got = skr.evaluate_run(dd.from_pandas(qrels, npartitions=npart),
                               dd.from_pandas(run, npartitions=3), measures, **options)
        assert got.query_ids.tolist() == want.query_ids.tolist()
        for m in measures:
            close(got.per_query[m], want.per_query[m])
    want = skr.evaluate_run(qrels, run, ["ndcg"], gains={1: 3.0, 2: 9.0},
                            setting="trec_eval")
    got = skr.evaluate_run(dd.from_pandas(qrels, npartitions=4), run, ["ndcg"],
                           gains={1: 3.0, 2: 9.0}, setting="trec_eval")  # Dask and not
    close(got.per_query["ndcg"], want.per_query["ndcg"])


def test_evaluate_run_lazy_and_errors():
    qrels, run = run_case(seed=4)
    qrels = qrels.assign(relevance=qrels.relevance.clip(0))
    dq, dr = dd.from_pandas(qrels, npartitions=2), dd.from_pandas(run, npartitions=3)
    lazy = skr.evaluate_run(dq, dr, ["map", "ndcg@5"], compute=False)
    assert "not computed" in repr(lazy) and isinstance(lazy.per_query["map"], dd.Series)
    assert dask.is_dask_collection(lazy["map"])
    with pytest.warns(UserWarning, match="have no judgements"):
        res = lazy.compute()
    with pytest.warns(UserWarning, match="have no judgements"):
        want = skr.evaluate_run(qrels, run, ["map", "ndcg@5"])
    assert res.query_ids.tolist() == want.query_ids.tolist()
    close(res.per_query["map"], want.per_query["map"])
    assert math.isclose(res["ndcg@5"], want["ndcg@5"], rel_tol=TOL)
    with pytest.raises(InvalidParameterError, match="progress is not used with Dask"):
        skr.evaluate_run(dq, dr, ["map"], progress=print)
    with pytest.raises(ValueError, match=r"cannot find the relevance column of the qrels"):
        skr.evaluate_run(dq.rename(columns={"relevance": "x"}), dr, ["map"])
    # Two columns that could hold one role: an error, never a guess.
    with pytest.raises(ValueError, match=r"run has 2 columns that could hold the query: "
                                         r"\['query', 'qid'\]"):
        skr.evaluate_run(dq, dr.assign(query=dr.qid + "x"), ["map"])
    other = dd.from_pandas(qrels.assign(qid="x" + qrels.qid), npartitions=2)
    with pytest.raises(ValueError, match="no query of the ranking has judgements"):
        skr.evaluate_run(other, dr, ["map"])
    nan_run = dd.from_pandas(run.assign(score=run.score.where(run.index != run.index[7])),
                             npartitions=3, sort=False)
    with pytest.raises(ValueError, match=r"the run's score column contains NaN.*run in "
                                         r"partition 0"):
        skr.evaluate_run(dq, nan_run, ["map"])


def test_evaluate_run_on_trec_eval_files_read_with_dask():
    """The 301 topics of trec_eval's test files, read with dask.dataframe."""
    qrels_path, run_path = REFERENCE / "qrels.test", REFERENCE / "results.test"
    want = skr.evaluate_run(qrels_path, run_path, "all_trec", setting="trec_eval")
    names = {"sep": r"\s+", "header": None, "engine": "python"}
    dq = dd.read_csv(qrels_path, names=["qid", "iter", "docno", "rel"], blocksize=2000,
                     dtype={"qid": str, "docno": str}, **names)
    dr = dd.read_csv(run_path, names=["qid", "q0", "docno", "rank", "score", "tag"],
                     blocksize=5000, dtype={"qid": str, "docno": str}, **names)
    assert dr.npartitions > 2
    got = skr.evaluate_run(dq, dr, "all_trec", setting="trec_eval")
    assert got.query_ids.tolist() == want.query_ids.tolist()
    assert got.metrics == want.metrics
    for m in want.metrics:
        close(got.per_query[m], want.per_query[m])


# -- evaluate_ranked on bags and data frames ----------------------------------------------


def ranked_case(seed=0):
    rng = np.random.default_rng(seed)
    rec = {f"u{i}": [int(j) for j in rng.choice(60, rng.integers(1, 12), replace=False)]
           for i in range(50)}
    truth = {f"u{i}": {int(j): int(rng.integers(1, 4))
                       for j in rng.choice(60, rng.integers(0, 6), replace=False)}
             for i in range(8, 58)}
    return rec, truth


@pytest.mark.parametrize("complete", [False, True])
def test_evaluate_ranked_on_bags_and_frames(scheduler, complete):
    rec, truth = ranked_case()
    metrics = ["ndcg@5", "recall@10", "mrr", "map@3"]
    want, want_w = _both(skr.evaluate_ranked, rec, truth, metrics, complete=complete,
                         no_relevant="skip")
    order = np.argsort(want.query_ids)
    rec_bag = db.from_sequence(list(rec.items()), npartitions=4)
    truth_bag = db.from_sequence(list(truth.items()), npartitions=3)
    long_rec = pd.DataFrame([(u, i, r + 1) for u, ids in rec.items()
                             for r, i in enumerate(ids)], columns=["user", "item", "rank"])
    long_truth = pd.DataFrame([(u, i, g) for u, d in truth.items() for i, g in d.items()],
                              columns=["user", "item", "relevance"])
    cases = [(rec_bag, truth_bag), (rec_bag, truth),
             (dd.from_pandas(long_rec.sample(frac=1.0, random_state=1), npartitions=3),
              dd.from_pandas(long_truth, npartitions=2))]
    for recommended, tr in cases:
        got, got_w = _both(skr.evaluate_ranked, recommended, tr, metrics, complete=complete,
                           no_relevant="skip")
        if isinstance(tr, dd.DataFrame):
            # Users with an empty truth set have no row in a long truth frame: for it
            # they are users without judgements (complete=True leaves them out).
            keep = np.isin(want.query_ids[order], got.query_ids)
        else:
            keep = np.ones(order.size, dtype=bool)
            assert got_w == want_w
        assert got.query_ids.tolist() == want.query_ids[order][keep].tolist()
        for m in metrics:
            close(got.per_query[m], want.per_query[m][order][keep])


def test_evaluate_ranked_refuses_ambiguous_lists():
    rec_bag = db.from_sequence([("u1", ["a", "b"]), ("u2", ["c"]), ("u1", ["d"])],
                               npartitions=2)
    with pytest.raises(ValueError, match="user 'u1' has two ranked lists"):
        skr.evaluate_ranked(rec_bag, {"u1": {"a"}}, ["mrr"])
    frame = dd.from_pandas(pd.DataFrame({"user": ["u1", "u1"], "item": ["a", "b"],
                                         "rank": [1, 1]}), npartitions=1)
    with pytest.raises(ValueError, match="user 'u1' has two items at rank 1"):
        skr.evaluate_ranked(frame, {"u1": {"a"}}, ["mrr"])
    no_rank = dd.from_pandas(pd.DataFrame({"user": ["u1"], "item": ["a"]}), npartitions=1)
    with pytest.raises(ValueError, match="rank column"):
        skr.evaluate_ranked(no_rank, {"u1": {"a"}}, ["mrr"])
    with pytest.raises(InvalidParameterError, match="users cannot be given"):
        skr.evaluate_ranked(rec_bag, {"u1": {"a"}}, ["mrr"], users=[1, 2])
    truth_bag = db.from_sequence([("u1", {"a"}), ("u1", {"b"})], npartitions=2)
    with pytest.raises(ValueError, match="user 'u1' has two truth entries"):
        skr.evaluate_ranked(db.from_sequence([("u1", ["a"])]), truth_bag, ["mrr"])
    # Two columns that could hold one role: an error, never the first one found.
    two_rel = dd.from_pandas(pd.DataFrame({"user": ["u1"], "item": ["a"], "rel": [1],
                                           "relevance": [0]}), npartitions=1)
    with pytest.raises(ValueError, match=r"truth has 2 columns that could hold the "
                                         r"relevance: \['relevance', 'rel'\]"):
        skr.evaluate_ranked(db.from_sequence([("u1", ["a"])]), two_rel, ["mrr"])
    two_ranks = dd.from_pandas(pd.DataFrame({"user": ["u1"], "item": ["a"], "rank": [1],
                                             "position": [2]}), npartitions=1)
    with pytest.raises(ValueError, match="could hold the rank"):
        skr.evaluate_ranked(two_ranks, {"u1": {"a"}}, ["mrr"])


def test_evaluate_ranked_lazy():
    rec, truth = ranked_case(seed=2)
    lazy = skr.evaluate_ranked(db.from_sequence(list(rec.items()), npartitions=3), truth,
                               ["ndcg@5"], compute=False, no_relevant=0.0)
    assert isinstance(lazy.to_frame(), dd.DataFrame)
    with pytest.warns(UserWarning, match="8 of 50 users of the ranking have no judgements"):
        res = lazy.compute()  # the check runs with the computation
    with pytest.warns(UserWarning, match="8 of 50 users of the ranking have no judgements"):
        want = skr.evaluate_ranked(rec, truth, ["ndcg@5"], no_relevant=0.0)
    assert math.isclose(res["ndcg@5"], want["ndcg@5"], rel_tol=TOL)


# -- scorers with a Dask-aware estimator ---------------------------------------------------


def _dask_ridge():
    from sklearn.base import BaseEstimator, RegressorMixin

    class DaskRidge(RegressorMixin, BaseEstimator):
        """A regressor whose predict maps over the blocks of a Dask array."""

        def fit(self, X, y):
            from sklearn.linear_model import Ridge

            self.model_ = Ridge().fit(X, y)
            return self

        def predict(self, X):
            if isinstance(X, da.Array):
                return X.map_blocks(self.model_.predict, drop_axis=1, dtype=float)
            return self.model_.predict(X)

    return DaskRidge()


def test_scorer_on_dask_predictions(scheduler):
    import sklearn

    rng = np.random.default_rng(0)
    X, y, q = rng.random((400, 5)), rng.integers(0, 3, 400), np.repeat(np.arange(40), 10)
    model = _dask_ridge().fit(X, y)
    with sklearn.config_context(enable_metadata_routing=True):
        scorer = skr.get_scorer("ndcg@5").set_score_request(qid=True)
        want = scorer(model, X, y, qid=q)
        got = scorer(model, da.from_array(X, chunks=(100, 5)), da.from_array(y, chunks=100),
                     qid=da.from_array(q, chunks=100))
    assert math.isclose(got, want, rel_tol=TOL)


# -- the tree reduction and the thread-local silence ---------------------------------------


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**32 - 1), st.sampled_from(["mean", "geometric", "sum"]),
       st.booleans(), st.sampled_from(["skip", "warn", 0.0]))
def test_the_tree_of_partial_sums_gives_the_in_memory_mean(seed, how, weighted, policy):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 40))
    values = rng.random(n) * (rng.random(n) < 0.8)
    defined = rng.random(n) < 0.7
    weights = (rng.random(n) * 10.0 ** rng.integers(-3, 300)) if weighted else None
    if how == "sum":
        policy = None
    cuts = np.sort(rng.integers(0, n + 1, int(rng.integers(0, 5))))
    pieces = np.split(np.arange(n), cuts)
    parts = [partial(values[p], defined[p], None if weights is None else weights[p], policy,
                     how) for p in pieces]
    while len(parts) > 1:  # combine in pairs, as a tree would
        parts = [combine(parts[i:i + 2]) for i in range(0, len(parts), 2)]
    from sk_rankmetrics._utils.policy import policy_values

    v, skipped = policy_values(values, defined, policy)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if weights is not None and not (weights[~skipped] > 0).any() and how != "sum" and (
                ~skipped).any():
            with pytest.raises(ValueError, match="sums to zero"):
                finish(parts[0], "m", policy, how)
            return
        got = finish(parts[0], "m", policy, how)
        want = weighted_mean(v, weights, skipped, how)
    assert (math.isnan(got) and math.isnan(want)) or math.isclose(got, want, rel_tol=1e-12,
                                                                   abs_tol=1e-300)


def test_quiet_silences_only_its_own_thread():
    seen = []

    def other():
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            warn("from the other thread")
        seen.extend(str(w.message) for w in caught)

    with quiet(), warnings.catch_warnings(record=True) as mine:
        warnings.simplefilter("always")
        warn("silenced")
        t = threading.Thread(target=other)
        t.start()
        t.join()
    assert not mine and seen == ["from the other thread"]


def test_users_without_recommendations_warn_as_in_memory():
    """Issue 25's example (truth for u1, u4, u5; a list for u1 only) with Dask inputs:
    the warning of the in-memory path, or u4 and u5 scored 0 with complete=True."""
    recs = db.from_sequence([("u1", ["x", "a"])], npartitions=1)
    truth = db.from_sequence([("u1", {"a"}), ("u4", {"b"}), ("u5", {"c"})], npartitions=2)
    with pytest.warns(UserWarning, match=r"^2 of 3 judged users are not in the ranking "
                      r"\('u4', 'u5'\) and are left out \(complete=True scores them 0\)"):
        res = skr.evaluate_ranked(recs, truth, ["ndcg@10"])
    assert res.query_ids.tolist() == ["u1"]
    res = skr.evaluate_ranked(recs, truth, ["ndcg@10"], complete=True)
    assert res.query_ids.tolist() == ["u1", "u4", "u5"]
    close(res.per_query["ndcg@10"], [1 / np.log2(3), 0.0, 0.0])
