"""One tie order under ``ignore_ties=True``, in every path.

Under ``ignore_ties=True`` a row is ranked by score, then by place, both
descending: of equal scores the *later* item comes first (the later column
of a matrix; with ``qid``, the later entry of the query in input order; for
factors, the later item), scikit-learn's rule. Every metric at every
cut-off must give the value of that one ranking, so that a cut-off is a
prefix of the whole ranking and every metric of a call agrees on which item
is first. The expected values come from a plain stable sort on the key
(-score, -place) and the plain-loop references of ``tests/reference.py``;
the inputs are tied on purpose (integer scores 0..3, float32 scores that
collide, bool scores, one value filling most of a row), with rows of 1 to
40 items, rows without a relevant item and cut-offs past the row's end.
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from conftest import default_options, reference_kwargs
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from reference import METRICS as REF

import sk_rankmetrics as skr
from sk_rankmetrics._beyond.matrix import top_columns
from sk_rankmetrics._evaluation import engine as _engine
from sk_rankmetrics._inputs import budget as _budget
from sk_rankmetrics._metrics.registry import METRICS
from sk_rankmetrics._ranking import select
from sk_rankmetrics._utils.params import PARAMS, TIE_ORDER

NAN = float("nan")
TOL = dict(rtol=1e-12, atol=1e-12)
SETTINGS = settings(max_examples=30, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow])
#: Every registered metric, with the options its name cannot do without.
ALL = [(name, default_options(name)) for name in METRICS]


# -- the explicit order and the references --------------------------------------------


def explicit_order(scores):
    """The ranking ``ignore_ties=True`` must take: item indices by score, then
    by index, both descending (a plain stable sort on that key)."""
    s = [float(v) for v in scores]
    return sorted(range(len(s)), key=lambda i: (-s[i], -i))


def _label(name, k):
    return name if k is None or not METRICS[name].takes_k else f"{name}@{k}"


def reference_rows(name, options, k, Y, S):
    """The value of ``name`` on each row ranked in the explicit order (NaN
    where the metric is undefined); ``Y`` and ``S`` are lists of rows."""
    kw = reference_kwargs(options)
    if METRICS[name].takes_k:
        kw["k"] = k
    out = []
    for y, s in zip(Y, S):
        v = REF[name]([float(x) for x in y], explicit_order(s), **kw)
        out.append(NAN if v is None else v)
    return np.array(out, dtype=float)


def _requests(k, names=None):
    """``(label, options)`` of every metric (or of ``names``) at cut-off ``k``."""
    return [(_label(n, k), o) for n, o in ALL if names is None or n in names]


def _quiet(fn, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fn(*args, **kwargs)


def _compare(got, requests, k, Y, S, where):
    for label, options in requests:
        name = label.split("@")[0]
        want = reference_rows(name, options, k, Y, S)
        np.testing.assert_allclose(np.asarray(got[label], dtype=float), want, **TOL,
                                   err_msg=f"{where}: {label}")


# -- tied inputs ------------------------------------------------------------------------

#: Kinds of tied scores: integers of each width, bools, float32 scores equal
#: only once rounded to float32, and rows that one value fills (sparse scores).
KINDS = ("int64", "int32", "int16", "int8", "bool", "float32", "float64", "dominant")


def tied_scores(rng, shape, kind):
    if kind == "bool":
        return rng.random(shape) < 0.5
    if kind == "float32":
        # 1, 1 + 1e-9 and 1 + 2e-9 differ in float64 but are one float32.
        base = rng.integers(0, 4, shape) + rng.choice([0.0, 1e-9, 2e-9], shape)
        return base.astype(np.float32)
    if kind == "float64":
        return rng.integers(0, 4, shape) / 3.0
    if kind == "dominant":  # one value fills most of each row, a few rise above it
        s = np.zeros(shape, dtype=np.float64)
        above = rng.random(shape) < 0.15
        s[above] = rng.integers(1, 4, int(above.sum()))
        return s
    return rng.integers(0, 4, shape).astype(kind)


def relevance(rng, shape, empty_row=True):
    y = rng.integers(0, 4, shape)
    y[rng.random(shape) < 0.5] = 0
    if empty_row and shape[0] > 1:
        y[rng.integers(shape[0])] = 0  # a row without a relevant item
    return y


@st.composite
def matrices(draw, max_rows=5, max_cols=40):
    n = draw(st.integers(1, max_rows))
    m = draw(st.integers(2, max_cols))
    kind = draw(st.sampled_from(KINDS))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    k = draw(st.integers(1, m + 3))
    return relevance(rng, (n, m)), tied_scores(rng, (n, m), kind), k


def _chunked(small):
    """Make the engine cut its input into many blocks (each ranked to its own
    depth: R-precision reads down to the block's largest R) and use threads."""
    mp = pytest.MonkeyPatch()
    if small:
        mp.setattr(_budget, "CHUNK_ELEMENTS", 60)
        mp.setattr(_budget, "DENSE_FACTOR", 1)
        mp.setattr(_engine, "PARALLEL_MIN_ELEMENTS", 1)
        mp.setattr(_engine, "N_THREADS", 3)
    return mp


# -- matrices: every metric at every cut-off ---------------------------------------------


@SETTINGS
@given(case=matrices(), whole=st.booleans(), small=st.booleans())
def test_every_metric_at_every_cut_off_takes_the_later_column_first(case, whole, small):
    """Dense matrices of every score dtype, every registered metric, at a cut-off
    from 1 to past the row's end (and of the whole ranking): the values of the
    explicit order, whichever top-k route the block takes."""
    Y, S, k = case
    k = None if whole else k
    requests = _requests(k)
    mp = _chunked(small)
    try:
        got = _quiet(skr.evaluate, Y, S, requests, ignore_ties=True, per_row=True,
                     no_relevant=NAN)
    finally:
        mp.undo()
    _compare(got, requests, k, Y.tolist(), S.tolist(), f"matrix {S.dtype}")


@SETTINGS
@given(case=matrices(max_rows=8))
def test_first_item_is_one_item_for_every_metric_of_a_call(case):
    """P@1, MRR and nDCG@1 (and hit rate@1) of one call agree on which item is
    first, and it is the explicit order's first item."""
    Y, S, _ = case
    Y = (Y > 0).astype(int)
    got = _quiet(skr.evaluate, Y, S, ["precision@1", "mrr", "ndcg@1", "hit_rate@1"],
                 ignore_ties=True, per_row=True, no_relevant=NAN)
    first_relevant = np.array([Y[i, explicit_order(S[i])[0]] == 1 for i in range(len(Y))])
    has = Y.any(axis=1)
    for label in ("precision@1", "mrr", "ndcg@1", "hit_rate@1"):
        np.testing.assert_array_equal(got[label][has] == 1, first_relevant[has], err_msg=label)


@pytest.mark.parametrize("kind", KINDS)
def test_cut_off_is_a_prefix_of_the_whole_ranking(kind):
    """DCG@k of every k on the same rows: the increments are the gains of the
    whole ranking's items in turn (one order at every depth)."""
    rng = np.random.default_rng(7)
    Y, S = relevance(rng, (50, 30)), tied_scores(rng, (50, 30), kind)
    depth = [skr.dcg_score(Y, S, k=k, ignore_ties=True, per_row=True) for k in range(1, 31)]
    gains = np.diff(np.column_stack([np.zeros(50), *depth]), axis=1)
    order = np.array([explicit_order(s) for s in S])
    want = np.take_along_axis(Y, order, axis=1) / np.log2(np.arange(2, 32))
    np.testing.assert_allclose(gains, want, **TOL)
    np.testing.assert_allclose(depth[-1], skr.dcg_score(Y, S, ignore_ties=True, per_row=True),
                               **TOL)


def test_the_issues_two_item_row():
    """The row of the report: the tie of item 0 and item 1 ranks item 1 first,
    with and without a cut-off."""
    assert skr.dcg_score([[0, 2]], [[0, 0]], k=1, ignore_ties=True) == 2.0
    assert skr.dcg_score([[0, 2]], [[0, 0]], ignore_ties=True) == 2.0
    out = skr.evaluate([[0, 1, 0]], [[5, 5, 5]], ["precision@1", "mrr", "ndcg@1"],
                       ignore_ties=True)
    assert out == {"precision@1": 0.0, "mrr": 0.5, "ndcg@1": 0.0}


# -- each top-k route of the selection -----------------------------------------------------


def _plain_top(S, L):
    return [sorted(explicit_order(s)[:L]) for s in S]


def _columns(top, N):
    return [sorted((np.asarray(r) % N).tolist()) for r in top]


@pytest.mark.parametrize("L", [1, 3, 9])
def test_each_selection_route_keeps_the_later_columns_of_a_tie(L):
    """Every route of ``select_top``: counted integers, the entries above a
    dominant value (rows with more and with fewer than L of them), the
    partition; the tie across the cut keeps its later columns."""
    rng = np.random.default_rng(L)
    N = 200
    # Counted: small integer span.
    S = rng.integers(0, 4, (30, N)).astype(np.int32)
    top, _, _ = select._select_by_counts(S, L, later=True)
    assert _columns(top, N) == _plain_top(S, L)
    # Above a dominant value: a few entries above 0 in every row (fewer than L
    # in some, more in others), the rest 0; the zeros read whole rows when
    # the last 8 L + 64 columns hold too few of them.
    S = np.zeros((30, N))
    for i in range(30):
        m = rng.integers(0, 2 * L + 2)
        S[i, rng.choice(N, m, replace=False)] = rng.integers(1, 3, m)
    S[0, N - (8 * L + 64):] = -1.0  # row 0: its zeros all before the suffix
    top, _, _ = select._select_above(S, L, 0.0, later=True)
    assert _columns(top, N) == _plain_top(S, L)
    # Partition: floats in no small span.
    S = (rng.integers(0, 5, (30, N)) + 0.5).astype(np.float64)
    top, _, _ = select._select_partitioned(S, L, later=True)
    assert _columns(top, N) == _plain_top(S, L)
    # And the public entry on every dtype.
    for kind in KINDS:
        S = tied_scores(rng, (20, N), kind)
        S = S.view(np.uint8) if S.dtype == bool else S
        top, _, _ = select.select_top(S, L, later=True)
        assert _columns(top, N) == _plain_top(S, L), kind


def test_later_first_orders_by_score_then_column():
    top = np.array([[5, 1, 3, 2], [9, 8, 6, 7]])
    scores = np.array([[1, 1, 2, 1], [0, 3, 3, 0]])
    got, sv = select.later_first(top, scores)
    assert got.tolist() == [[3, 5, 2, 1], [8, 6, 9, 7]]
    assert sv.tolist() == [[2, 1, 1, 1], [3, 3, 0, 0]]


# -- long format -----------------------------------------------------------------------------


@st.composite
def long_case(draw):
    """Queries of 1..40 entries, interleaved at random (each query's entries
    keep their order) or in blocks of shuffled query order, with ids of one
    of the grouping routes: small integers, integers far apart, strings."""
    n_q = draw(st.integers(1, 5))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    lens = rng.integers(1, 41, n_q)
    lens[rng.integers(n_q)] = max(2, lens.max())  # a query of two items or more
    kind = draw(st.sampled_from(KINDS))
    Y = [relevance(rng, (1, n), empty_row=False)[0] for n in lens]
    if n_q > 1:
        Y[rng.integers(n_q)][:] = 0
    S = [tied_scores(rng, (1, n), kind)[0] for n in lens]
    ids = draw(st.sampled_from(["small", "far", "str"]))
    names = rng.permutation(n_q)
    qids = {"small": names, "far": names.astype(np.int64) * 2**33,
            "str": np.array([f"q{v}" for v in names])}[ids]
    labels = np.repeat(np.arange(n_q), lens)
    if draw(st.booleans()):
        labels = rng.permutation(labels)  # interleaved
    seen = np.zeros(n_q, dtype=int)
    y, s, q = [], [], []
    for g in labels:
        y.append(Y[g][seen[g]])
        s.append(S[g][seen[g]])
        q.append(qids[g])
        seen[g] += 1
    by_id = np.argsort(qids, kind="stable")  # per_row gives queries in sorted id order
    return (np.array(y), np.array(s, dtype=S[0].dtype), np.array(q),
            [Y[g] for g in by_id], [S[g] for g in by_id], draw(st.integers(1, 43)))


@SETTINGS
@given(case=long_case(), whole=st.booleans())
def test_long_format_takes_the_later_entry_of_a_query_first(case, whole):
    y, s, q, Y, S, k = case
    k = None if whole else k
    requests = _requests(k)
    got = _quiet(skr.evaluate, y, s, requests, qid=q, ignore_ties=True, per_row=True,
                 no_relevant=NAN)
    _compare(got, requests, k, Y, S, f"long format {s.dtype}")


# -- the other entry points --------------------------------------------------------------------


@SETTINGS
@given(case=matrices(max_cols=12))
def test_metric_functions_scorers_and_the_accumulator_take_the_same_order(case):
    Y, S, k = case
    want = reference_rows("ndcg", {}, k, Y.tolist(), S.tolist())
    want_mean = np.mean(np.nan_to_num(want, nan=0.0))
    got = _quiet(skr.ndcg_score, Y, S, k=k, ignore_ties=True, no_relevant=0.0)
    assert math.isclose(got, want_mean, rel_tol=1e-12, abs_tol=1e-12)
    acc = skr.RankingAccumulator([f"ndcg@{k}"], ignore_ties=True, no_relevant=0.0)
    half = max(1, len(Y) // 2)
    acc.update(Y[:half], S[:half])
    if len(Y) > half:
        acc.update(Y[half:], S[half:])
    assert math.isclose(acc.compute().mean[f"ndcg@{k}"], want_mean, rel_tol=1e-12,
                        abs_tol=1e-12)

    class Fixed:
        """An estimator whose decision_function returns the tied scores."""

        def fit(self, X, y=None):
            return self

        def decision_function(self, X):
            return S[np.asarray(X, dtype=int).ravel()]

    scorer = skr.make_ranking_scorer("ndcg", k=k, ignore_ties=True, no_relevant=0.0)
    got = _quiet(scorer, Fixed(), np.arange(len(Y))[:, None], Y)
    assert math.isclose(got, want_mean, rel_tol=1e-12, abs_tol=1e-12)


@pytest.mark.parametrize("kind", ["int64", "float64", "dominant"])
def test_ranked_lists_with_scores_rank_ties_by_item_id_descending(kind):
    """A data frame of (user, item, score) ranks ties by item id descending:
    with the column numbers as ids, the rule of the matrices."""
    pd = pytest.importorskip("pandas")
    rng = np.random.default_rng(3)
    Y, S = relevance(rng, (6, 25)), tied_scores(rng, (6, 25), kind)
    users, items = np.nonzero(np.ones_like(Y, dtype=bool))
    frame = pd.DataFrame({"user": users, "item": items, "score": S.ravel()})
    frame = frame.sample(frac=1.0, random_state=1)  # the frame's row order is no rule
    truth = (users, items, Y.ravel())
    for k in (1, 4, 25, 30):
        requests = _requests(k, ["ndcg", "dcg", "map", "precision", "recall", "mrr",
                                 "hit_rate", "err", "rbp", "f1", "r_precision"])
        res = _quiet(skr.evaluate_ranked, frame, truth, [label for label, _ in requests],
                     no_relevant=NAN)
        assert res.query_ids.tolist() == list(range(6))
        _compare(res.per_query, requests, k, Y.tolist(), S.tolist(), "ID lists")


@SETTINGS
@given(seed=st.integers(0, 2**32 - 1), n_items=st.integers(8, 120), k=st.integers(1, 12),
       whole=st.booleans())
def test_embeddings_take_the_later_item_first(seed, n_items, k, whole):
    """Integer factors (tied scores) on the whole catalogue: the candidate
    search (a cut-off of at most a quarter of the items), the whole ranking,
    and the lists of return_top."""
    rng = np.random.default_rng(seed)
    U = rng.integers(0, 2, (6, 2)).astype(np.float64)
    V = rng.integers(0, 3, (n_items, 2)).astype(np.float64)
    Y = relevance(rng, (6, n_items))
    S = U @ V.T
    kk = None if whole else k
    requests = _requests(kk)
    res = _quiet(skr.evaluate_embeddings, U, V, sp.csr_array(Y), requests,
                 ignore_ties=True, no_relevant=NAN)
    _compare(res.per_query, requests, kk, Y.tolist(), S.tolist(), "embeddings")
    _, top = _quiet(skr.evaluate_embeddings, U, V, sp.csr_array(Y), [f"recall@{k}"],
                    ignore_ties=True, no_relevant=NAN, return_top=True)
    # k columns, filled with -1 past the last item (return_top's documented width)
    pad = [-1] * max(k - n_items, 0)
    assert top.tolist() == [explicit_order(s)[:k] + pad for s in S]


@SETTINGS
@given(case=matrices(max_rows=6, max_cols=30), exclude=st.booleans())
def test_top_columns_of_score_matrices(case, exclude):
    """The beyond-accuracy lists of a score matrix: each row's first k of the
    explicit order, excluded items (-inf) left out."""
    _, S, k = case
    S = S.astype(np.float64)
    if exclude:
        S[:, ::3] = -np.inf
    lens, flat = top_columns(S, k, True, "coverage@k")
    want = [[i for i in explicit_order(s)[:k] if s[i] > -np.inf] for s in S]
    assert lens.tolist() == [len(w) for w in want]
    assert flat.tolist() == [i for w in want for i in w]


# -- scikit-learn ----------------------------------------------------------------------------------


def test_scikit_learn_docstring_examples():
    """The examples of scikit-learn's dcg_score and ndcg_score docstrings
    (scikit-learn 1.9): the values as printed there (to the digits shown, as
    its doctests compare them), scikit-learn's own values to 1e-12, and the
    tie examples exactly (5.0 and 0.5 under ignore_ties=True: the later of
    the two tied items, relevance 5, first)."""
    skm = pytest.importorskip("sklearn.metrics")
    true_relevance = np.asarray([[10, 0, 0, 1, 5]])
    scores = np.asarray([[0.1, 0.2, 0.3, 4, 70]])
    other = np.asarray([[0.05, 1.1, 1.0, 0.5, 0.0]])
    tied = np.asarray([[1, 0, 0, 0, 1]])
    printed = [
        ("dcg_score", scores, {}, 9.49),
        ("dcg_score", scores, {"k": 2}, 5.63),
        ("dcg_score", tied, {"k": 1}, 7.5),
        ("dcg_score", tied, {"k": 1, "ignore_ties": True}, 5.0),
        ("ndcg_score", scores, {}, 0.69),
        ("ndcg_score", other, {}, 0.49),
        ("ndcg_score", other, {"k": 4}, 0.35),
        ("ndcg_score", true_relevance, {"k": 4}, 1.0),
        ("ndcg_score", tied, {"k": 1}, 0.75),
        ("ndcg_score", tied, {"k": 1, "ignore_ties": True}, 0.5),
    ]
    for name, s, kwargs, value in printed:
        got = getattr(skr, name)(true_relevance, s, **kwargs)
        digits = len(repr(value).split(".")[1])
        assert got == pytest.approx(value, abs=10.0**-digits), (name, kwargs)
        assert got == pytest.approx(getattr(skm, name)(true_relevance, s, **kwargs),
                                    rel=1e-12, abs=1e-12), (name, kwargs)
    assert skr.dcg_score(true_relevance, tied, k=1, ignore_ties=True) == 5.0
    assert skr.ndcg_score(true_relevance, tied, k=1, ignore_ties=True) == 0.5


def sklearn_agreement(n_rows=8000, seed=0):
    """dcg_score and ndcg_score with ``ignore_ties=True`` on ``n_rows`` random
    tied rows (2 to 16 items, integer scores 0..3 and relevance 0..3, k from
    1 to past the row's end or None), each row scored alone by both packages.

    Returns counts: ``rows``; ``stable``, rows where our value equals
    scikit-learn's on scores that spell out its documented order (a stable
    ascending argsort, reversed: tie-free scores, so scikit-learn's own
    sort cannot reorder them); ``deterministic``, rows where NumPy's default
    argsort of the row (the one scikit-learn calls) equals the stable one,
    and ``deterministic_agree`` of those, rows where the values are equal;
    ``raw_agree``, rows where our value equals scikit-learn's on the tied
    row itself, whatever its sort does.
    """
    skm = pytest.importorskip("sklearn.metrics")
    rng = np.random.default_rng(seed)
    counts = dict.fromkeys(("rows", "stable", "deterministic", "deterministic_agree",
                            "raw_agree"), 0)
    for _ in range(n_rows):
        n = int(rng.integers(2, 17))
        y = rng.integers(0, 4, (1, n))
        s = rng.integers(0, 4, (1, n))
        k = None if rng.random() < 0.2 else int(rng.integers(1, n + 2))
        spelled = np.argsort(np.argsort(s, axis=1, kind="stable"), axis=1)
        deterministic = np.array_equal(np.argsort(s, axis=1), np.argsort(s, axis=1, kind="stable"))
        ok_stable = ok_raw = True
        for ours, theirs in ((skr.dcg_score, skm.dcg_score), (skr.ndcg_score, skm.ndcg_score)):
            extra = {"no_relevant": 0.0} if ours is skr.ndcg_score else {}
            got = ours(y, s, k=k, ignore_ties=True, **extra)
            ok_stable &= math.isclose(got, theirs(y, spelled, k=k, ignore_ties=True),
                                      rel_tol=1e-12, abs_tol=1e-12)
            ok_raw &= math.isclose(got, theirs(y, s, k=k, ignore_ties=True),
                                   rel_tol=1e-12, abs_tol=1e-12)
        counts["rows"] += 1
        counts["stable"] += ok_stable
        counts["raw_agree"] += ok_raw
        counts["deterministic"] += deterministic
        counts["deterministic_agree"] += deterministic and ok_raw
    return counts


@pytest.mark.slow
def test_scikit_learn_agrees_on_8000_random_tied_rows():
    """Where scikit-learn's order is its documented one (a stable sort), on
    all 8,000 rows, and on the tied rows themselves wherever NumPy's default
    sort happens to be stable (not every row on every platform: NumPy's
    default argsort is not stable even on short rows on SIMD builds)."""
    c = sklearn_agreement()
    assert c["stable"] == c["rows"] == 8000
    assert c["deterministic_agree"] == c["deterministic"] > 0


def test_scikit_learn_agrees_on_random_tied_rows():
    """The same, on 400 rows (the fast suite's share)."""
    c = sklearn_agreement(400, seed=1)
    assert c["stable"] == c["rows"] == 400
    assert c["deterministic_agree"] == c["deterministic"] > 0


def test_scikit_learn_agrees_on_matrices_of_tied_rows():
    """Whole matrices (one call, rows of 2 to 16 items): scikit-learn's
    documented order, spelled out in tie-free scores."""
    skm = pytest.importorskip("sklearn.metrics")
    rng = np.random.default_rng(5)
    for n in range(2, 17):
        Y, S = relevance(rng, (40, n)), rng.integers(0, 4, (40, n))
        spelled = np.argsort(np.argsort(S, axis=1, kind="stable"), axis=1)
        for k in (None, 1, 2, n // 2 + 1, n + 1):
            assert skr.dcg_score(Y, S, k=k, ignore_ties=True) == pytest.approx(
                skm.dcg_score(Y, spelled, k=k, ignore_ties=True), rel=1e-12, abs=1e-12)
            assert _quiet(skr.ndcg_score, Y, S, k=k, ignore_ties=True) == pytest.approx(
                skm.ndcg_score(Y, spelled, k=k, ignore_ties=True), rel=1e-12, abs=1e-12)


# -- Dask ------------------------------------------------------------------------------------------


@pytest.mark.slow
@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case=matrices(max_rows=12, max_cols=30), long=long_case())
def test_dask_matrices_and_shuffled_long_format(case, long):
    dask = pytest.importorskip("dask")
    da = pytest.importorskip("dask.array")
    dd = pytest.importorskip("dask.dataframe")
    pd = pytest.importorskip("pandas")
    with dask.config.set(scheduler="sync"):
        Y, S, k = case
        requests = _requests(k)
        got = _quiet(skr.evaluate, da.from_array(Y, chunks=(3, 7)),
                     da.from_array(S, chunks=(3, 7)), requests, ignore_ties=True,
                     per_row=True, no_relevant=NAN)
        _compare(got, requests, k, Y.tolist(), S.tolist(), "dask matrix")
        y, s, q, Yl, Sl, k = long
        frame = pd.DataFrame({"y": y, "s": s, "q": q})
        ddf = dd.from_pandas(frame, npartitions=3, sort=False)
        requests = _requests(k)
        got = _quiet(skr.evaluate, ddf.y, ddf.s, requests, qid=ddf.q, ignore_ties=True,
                     per_row=True, no_relevant=NAN)
        _compare(got, requests, k, Yl, Sl, "dask long format")


# -- the rule, written down ------------------------------------------------------------------------


def test_the_rule_is_written_where_users_read_it():
    doc = PARAMS["ignore_ties"].doc
    assert "*later* item comes first" in doc and "later entry of the query" in doc
    assert "later column" in TIE_ORDER
    with pytest.raises(ValueError, match="ignore_ties=True ranks them in one order: of equal "
                                         "scores the later column"):
        skr.evaluate([[1, 0, 1]], [[1, 1, 0]], ["nerr8@2"])
    assert "later column" in skr.ndcg_score.__doc__
