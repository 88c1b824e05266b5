"""evaluate_embeddings: the whole catalogue scored from factors, block by block.

Every value is checked against the dense path: the users x items score
matrix built in full, in long format without the excluded pairs, scored by
:func:`sk_rankmetrics.evaluate`. Factors are small integers, so that every
score is exact in float32 and ties are frequent.
"""

from __future__ import annotations

import inspect
import tracemalloc
import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from conftest import default_options, sparse_random
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from reference import long_format_without

import sk_rankmetrics as skr
from sk_rankmetrics import InvalidParameterError
from sk_rankmetrics._catalogue import embeddings as emb
from sk_rankmetrics._catalogue import layout
from sk_rankmetrics._catalogue.topk import mix, sample_items, top_candidates
from sk_rankmetrics._metrics.registry import METRICS
from sk_rankmetrics._metrics.requests import make_requests

NAN = float("nan")


def _case(seed, n_users, n_items, dims=3, levels=3, p_excl=0.3, p_true=0.15, biases=False):
    rng = np.random.default_rng(seed)
    U = rng.integers(-levels, levels + 1, size=(n_users, dims)).astype(np.float32)
    V = rng.integers(-levels, levels + 1, size=(n_items, dims)).astype(np.float32)
    E = rng.random((n_users, n_items)) < p_excl
    Y = rng.integers(1, 4, size=(n_users, n_items)) * (rng.random((n_users, n_items)) < p_true)
    Y[E] = 0
    ub = rng.integers(-2, 3, size=n_users).astype(np.float32) if biases else None
    ib = rng.integers(-2, 3, size=n_items).astype(np.float32) if biases else None
    return U, V, Y, E, ub, ib


def _dense_scores(U, V, ub=None, ib=None):
    S = U.astype(np.float64) @ V.astype(np.float64).T
    if ub is not None:
        S += ub[:, None]
    if ib is not None:
        S += ib[None, :]
    return S


def _label(name, k):
    return name if k is None or not METRICS[name].takes_k else f"{name}@{k}"


def _reference(U, V, Y, E, metrics, *, ignore_ties=False, ub=None, ib=None):
    """The dense path: long format without the excluded pairs (the users left
    with no candidate have no row). With ``ignore_ties``, ties are broken by
    decreasing item index first, the order evaluate_embeddings documents."""
    S = _dense_scores(U, V, ub, ib)
    users, items = np.nonzero(~E)
    y, s = Y[users, items], S[users, items]
    if ignore_ties:
        order = np.lexsort((-items, -s, users))
        first = np.searchsorted(users[order], users[order])
        rank = np.empty(order.shape[0])
        rank[order] = np.arange(order.shape[0]) - first
        s = -rank
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        out = skr.evaluate(
            y, s, metrics, qid=users, per_row=True, ignore_ties=ignore_ties, no_relevant=NAN
        )
    return np.unique(users), out


def _metrics(k, whole):
    """Every registered metric: those read at a cut-off (``whole`` False) or
    those of the whole ranking, which rank whole rows."""
    return [
        (_label(name, k), default_options(name))
        for name, spec in METRICS.items()
        if bool(spec.full or (k is None and spec.takes_k)) == whole
    ]


class _Spy:
    """Counts the calls of the candidate search."""

    def __init__(self):
        self.calls = 0

    def __enter__(self):
        self.real = layout.top_candidates

        def counted(*args):
            self.calls += 1
            return self.real(*args)

        layout.top_candidates = counted
        return self

    def __exit__(self, *exc):
        layout.top_candidates = self.real


def _check(
    U, V, Y, E, k, ignore_ties, *, ub=None, ib=None, batch_size=None, sparse=True, whole=False
):
    counts = (~E).sum(axis=1)
    if counts.max() < 2:  # the long format needs a user with two candidates
        assume(False)
    metrics = _metrics(k, whole)
    if not ignore_ties:
        metrics = [(m, o) for m, o in metrics if METRICS[m.split("@")[0]].ties != "refuse"]
    present, want = _reference(U, V, Y, E, metrics, ignore_ties=ignore_ties, ub=ub, ib=ib)
    y = sp.csr_array(Y) if sparse else Y
    with warnings.catch_warnings(), _Spy() as spy:
        warnings.simplefilter("ignore")
        got = skr.evaluate_embeddings(
            U,
            V,
            y,
            metrics,
            exclude=sp.csr_array(E),
            ignore_ties=ignore_ties,
            no_relevant=NAN,
            user_bias=ub,
            item_bias=ib,
            batch_size=batch_size,
        )
    for label, _ in metrics:
        np.testing.assert_allclose(
            got.per_query[label][present], want[label], rtol=1e-12, atol=1e-12, err_msg=label
        )
    return spy.calls


@settings(max_examples=25, deadline=None, suppress_health_check=list(HealthCheck))
@given(
    seed=st.integers(0, 2**31),
    n_users=st.integers(3, 9),
    n_items=st.integers(8, 40),
    k=st.sampled_from([1, 2, 3]),
    ignore_ties=st.booleans(),
    batch=st.integers(1, 5),
    levels=st.integers(1, 3),
    biases=st.booleans(),
)
def test_every_metric_equals_the_dense_path_at_a_cut_off(
    seed, n_users, n_items, k, ignore_ties, batch, levels, biases
):
    U, V, Y, E, ub, ib = _case(seed, n_users, n_items, levels=levels, biases=biases)
    E[0, :-1] = True  # a user with a single candidate
    Y[E] = 0
    calls = _check(U, V, Y, E, k, ignore_ties, ub=ub, ib=ib, batch_size=batch)
    # R-precision reads down to R: the candidates go that deep, else whole rows.
    R = int((Y != 0).sum(axis=1).max())
    if 4 * max(k, R) <= n_items:
        assert calls > 0  # the candidate path was taken


@settings(max_examples=10, deadline=None, suppress_health_check=list(HealthCheck))
@given(
    seed=st.integers(0, 2**31),
    n_users=st.integers(1, 6),
    n_items=st.integers(2, 12),
    ignore_ties=st.booleans(),
)
def test_every_metric_equals_the_dense_path_over_whole_rankings(
    seed, n_users, n_items, ignore_ties
):
    U, V, Y, E, _, _ = _case(seed, n_users, n_items, levels=1)
    _check(U, V, Y, E, None, ignore_ties, sparse=False, whole=True)
    _check(U, V, Y, E, 2, ignore_ties, whole=True)


def test_the_top_k_path_is_taken_and_ties_cross_the_cut():
    # 200 items, cut-off 3: the candidate path; scores from 3 levels tie across it.
    U, V, Y, E, _, _ = _case(0, 30, 200, dims=1, levels=1)
    inputs = layout.EmbeddingInputs(
        U, V, None, None, sp.csr_array(Y.astype(float)), sp.csr_array(E), top=None
    )
    full, L = inputs._plan(make_requests(["ndcg@3"], emb.WHERE))
    assert not full and L == 3
    assert _check(U, V, Y, E, 3, False) > 0
    assert _check(U, V, Y, E, 3, True) > 0


def test_results_do_not_depend_on_the_batch_size():
    rng = np.random.default_rng(5)
    U = rng.standard_normal((300, 16)).astype(np.float32)
    V = rng.standard_normal((500, 16)).astype(np.float32)
    E = sparse_random((300, 500), 0.05, rng) != 0
    Y = sparse_random((300, 500), 0.02, rng) != 0
    Y = sp.csr_array(Y.astype(float) - Y.multiply(E).astype(float))
    metrics = ["recall@20", "ndcg@20", "map", "precision@5", "mrr"]
    runs = [
        skr.evaluate_embeddings(U, V, Y, metrics, exclude=E, batch_size=b, no_relevant="skip")
        for b in (1, 7, 64, None)
    ]
    # (Up to the last bits of a sum: a matrix product adds in an order that
    # follows the shape of the batch.)
    for r in runs[1:]:
        for m in metrics:
            np.testing.assert_allclose(r.per_query[m], runs[0].per_query[m], rtol=2e-15, atol=0)
    # And the dense path on the same float32 scores.
    present, want = _reference(U, V, Y.toarray(), E.toarray(), metrics)
    for m in metrics:
        np.testing.assert_allclose(runs[0].per_query[m][present], want[m], rtol=1e-6, atol=1e-9)


@pytest.mark.parametrize("search_rows", [1, 2, 7])
def test_a_block_searched_a_few_rows_at_a_time_gives_the_same_values(monkeypatch, search_rows):
    """A block of scores searched for candidates a few rows at a time (rows
    offset within the block, the held-out items' scores read after) gives the
    values of one search per block."""
    rng = np.random.default_rng(11)
    U = rng.standard_normal((60, 8)).astype(np.float32)
    V = np.round(rng.standard_normal((300, 8)), 1).astype(np.float32)  # ties
    E = sparse_random((60, 300), 0.05, rng) != 0
    Y = sparse_random((60, 300), 0.02, rng) != 0
    Y = sp.csr_array(Y.astype(float) - Y.multiply(E).astype(float))
    metrics = ["recall@10", "ndcg@10", "precision@5", "mrr@10"]
    want = skr.evaluate_embeddings(U, V, Y, metrics, exclude=E, no_relevant="skip")
    monkeypatch.setattr(layout, "SCORE_BYTES", 25 * 300 * 4)  # blocks of 25 users
    monkeypatch.setattr(layout, "SEARCH_BYTES", search_rows * 300 * 4)
    calls = []
    real = layout.top_candidates
    monkeypatch.setattr(layout, "top_candidates", lambda S, L: calls.append(S.shape) or real(S, L))
    got = skr.evaluate_embeddings(U, V, Y, metrics, exclude=E, no_relevant="skip")
    assert max(shape[0] for shape in calls) == search_rows
    for m in metrics:
        np.testing.assert_array_equal(got.per_query[m], want.per_query[m])


def test_a_catalogue_ordered_by_score_leaves_few_candidates(monkeypatch):
    """Items whose scores grow with their index (a catalogue sorted by
    popularity, scored by a popularity term): the bound is read off a random
    deal of the items, so it stays tight, and the values are the dense ones."""
    rng = np.random.default_rng(2)
    n_users, n_items, k = 40, 4000, 10
    U = rng.standard_normal((n_users, 4)) * 1e-3
    V = rng.standard_normal((n_items, 4)) * 1e-3
    bias = np.arange(n_items, dtype=np.float64)  # the last items score highest
    Y = sparse_random((n_users, n_items), 0.002, rng) != 0
    Y = sp.csr_array(Y.astype(float))
    found = []
    real = layout.top_candidates

    def spy(S, L):
        rows, cols = real(S, L)
        found.append(rows.shape[0] / S.shape[0])
        return rows, cols

    monkeypatch.setattr(layout, "top_candidates", spy)
    got = skr.evaluate_embeddings(
        U, V, Y, ["ndcg@10", "recall@10"], item_bias=bias, no_relevant="skip"
    )
    assert found and max(found) < 8 * k  # candidates per row (the whole row: 4000)
    S = U @ V.T + bias
    for m in ("ndcg@10", "recall@10"):
        want = skr.evaluate(Y.toarray(), S, [m], no_relevant="skip")[m]
        assert got.mean[m] == pytest.approx(want, rel=1e-12)


def test_float32_factors_are_scored_in_float32():
    U, V, Y, _, _, _ = _case(1, 4, 40)
    inputs = layout.EmbeddingInputs(U, V, None, None, sp.csr_array(Y.astype(float)), None)
    assert inputs.scores(0, 4).dtype == np.float32
    inputs = layout.EmbeddingInputs(
        U.astype(np.float64), V, None, None, sp.csr_array(Y.astype(float)), None
    )
    assert inputs.scores(0, 4).dtype == np.float64


def test_top_items_are_the_best_candidates_ties_by_index():
    U, V, Y, E, _, ib = _case(2, 25, 120, levels=1, biases=True)
    _, top = skr.evaluate_embeddings(
        U,
        V,
        sp.csr_array(Y),
        ["recall@4"],
        exclude=sp.csr_array(E),
        item_bias=ib,
        return_top=True,
        no_relevant="skip",
    )
    S = _dense_scores(U, V, None, ib)
    for u in range(U.shape[0]):  # the plain loop: sort the user's candidates
        # best first, of tied scores the higher item index first (ignore_ties' order)
        cands = [(-S[u, i], -i) for i in range(V.shape[0]) if not E[u, i]]
        want = [-i for _, i in sorted(cands)[:4]]
        assert top[u].tolist() == want + [-1] * (4 - len(want))
    assert top.shape == (25, 4)


def test_an_excluded_relevant_item_raises_counting_them_or_is_dropped():
    U, V, Y, E, _, _ = _case(3, 5, 30)
    Y[0, np.flatnonzero(E[0])[:2]] = 1
    with pytest.raises(
        ValueError,
        match=r"y_true marks 2 excluded \(user, item\) pairs "
        r"as relevant.*exclude_relevant='drop'",
    ):
        skr.evaluate_embeddings(U, V, sp.csr_array(Y), ["ndcg@5"], exclude=sp.csr_array(E))
    dropped = skr.evaluate_embeddings(
        U, V, sp.csr_array(Y), ["ndcg@5"], exclude=E, exclude_relevant="drop", no_relevant=NAN
    )
    Y2 = Y.copy()
    Y2[E] = 0
    clean = skr.evaluate_embeddings(U, V, sp.csr_array(Y2), ["ndcg@5"], exclude=E, no_relevant=NAN)
    np.testing.assert_array_equal(dropped.per_query["ndcg@5"], clean.per_query["ndcg@5"])


def test_a_user_with_every_item_excluded_follows_no_relevant():
    U, V, Y, E, _, _ = _case(4, 3, 20)
    E[1] = True
    Y[E] = 0
    res = skr.evaluate_embeddings(U, V, Y, ["ndcg@3", "precision@3"], exclude=E, no_relevant="skip")
    assert np.isnan(res.per_query["ndcg@3"][1]) and np.isnan(res.per_query["precision@3"][1])
    res = skr.evaluate_embeddings(U, V, Y, ["num_ret", "num_rel"], exclude=E)
    assert res.per_query["num_ret"][1] == 0
    assert res.per_query["num_ret"][0] == 20 - E[0].sum()


def test_memory_stays_bounded_by_the_block(monkeypatch):
    """Never the users x items matrix: with 1 MiB blocks the peak stays far
    below the 24 MB the full float32 matrix would take."""
    monkeypatch.setattr(layout, "SCORE_BYTES", 1 << 20)
    rng = np.random.default_rng(0)
    U = rng.standard_normal((3000, 8)).astype(np.float32)
    V = rng.standard_normal((2000, 8)).astype(np.float32)
    Y = sparse_random((3000, 2000), 0.002, rng)
    tracemalloc.start()
    try:
        skr.evaluate_embeddings(U, V, Y, ["recall@10", "ndcg@10"], no_relevant="skip")
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 10 * (1 << 20), peak


def test_errors_name_the_argument():
    U, V, Y, E, _, _ = _case(5, 3, 10)
    with pytest.raises(ValueError, match="user_factors has 3 dimensions and item_factors 2"):
        skr.evaluate_embeddings(U, V[:, :2], Y, "ndcg@3")
    with pytest.raises(ValueError, match=r"y_true has shape \(3, 9\)"):
        skr.evaluate_embeddings(U, V, Y[:, :9], "ndcg@3")
    with pytest.raises(ValueError, match=r"exclude has shape \(2, 10\)"):
        skr.evaluate_embeddings(U, V, Y, "ndcg@3", exclude=E[:2])
    bad = U.copy()
    bad[1, 0] = np.nan
    with pytest.raises(ValueError, match=r"user_factors holds NaN.*row 1"):
        skr.evaluate_embeddings(bad, V, Y, "ndcg@3")
    with pytest.raises(ValueError, match="could overflow float32"):
        skr.evaluate_embeddings(U * np.float32(1e19), V * np.float32(1e19), Y, "ndcg@3")
    with pytest.raises(ValueError, match=r"item_bias must be a 1-D array of 10"):
        skr.evaluate_embeddings(U, V, Y, "ndcg@3", item_bias=np.ones(3))
    with pytest.raises(skr.InvalidParameterError, match="return_top=True needs"):
        skr.evaluate_embeddings(U, V, Y, "map", return_top=True)
    with pytest.raises(skr.InvalidParameterError, match="exclude_relevant="):
        skr.evaluate_embeddings(U, V, Y, "map", exclude_relevant="keep")


@pytest.mark.parametrize(
    "users, items, kw, message",
    [
        (np.zeros((2, 0)), np.zeros((3, 0)), {},
         r"user_factors and item_factors have no columns \(shapes \(2, 0\) and \(3, 0\)\) "
         r"and no bias is given, so every score would be 0"),
        (np.float64(1.0), np.ones((3, 2)), {},
         r"user_factors must be a 2-D array of numbers .* got float64 of shape \(\)"),
        (np.ones((2, 2)), np.ones((0, 2)), {},
         r"item_factors has no rows \(shape \(0, 2\)\); at least one item is needed"),
        (np.zeros((0, 0)), np.ones((3, 2)), {},
         r"user_factors has no rows \(shape \(0, 0\)\); at least one user is needed"),
        (np.full((2, 2), 1e200), np.full((3, 2), 1e200), {},
         r"scores could overflow float64 \(\|p.q\| \+ \|b_u\| \+ \|b_i\| beyond 1.8e\+308\); "
         r"rescale them: dividing user_factors, user_bias and item_bias"),
        (np.ones((2, 2)), np.ones((3, 2)), {"item_bias": [1e308, 0.0, 0.0]},
         r"could overflow float64 \(\|p.q\| \+ \|b_u\| \+ \|b_i\| up to 1e\+308\); rescale them:"),
        (np.full((2, 2), 1e19, np.float32), np.full((3, 2), 1e19, np.float32), {},
         r"could overflow float32 .* pass float64 factors \(scores are computed in the "
         r"factors' dtype\) or rescale them"),
        (np.full((2, 2), 1e-25, np.float32), np.full((3, 2), 1e-25, np.float32), {},
         r"the factors are so small that scores would underflow float32 \(the largest product "
         r"of a user and an item entry is 1e-50\); pass float64 factors or rescale them"),
        (np.full((2, 2), 1e-160), np.full((3, 2), 1e-160), {},
         r"would underflow float64 .*; rescale them: multiplying user_factors"),
        (np.ones((2, 2)), np.ones((3, 2)), {"user_bias": [np.inf, 0.0]},
         r"user_bias holds NaN or infinite values \(1 entry, the first: entry 0\); biases "
         r"must be finite"),
        (np.ones((2, 2)), np.ones((3, 2)), {"user_bias": 3.0},
         r"user_bias must be a 1-D array of 2 numbers .* got float64 of shape \(\)"),
        (np.ones((2, 2)), np.ones((3, 2)), {"item_bias": sp.csr_array(np.ones((1, 3)))},
         r"item_bias must be a dense 1-D array, got a sparse matrix"),
        (np.ones((2, 2)), np.array([[1, np.nan], [np.inf, 0], [1, 1]]), {},
         r"item_factors holds NaN or infinite values \(2 rows, the first: row 0\)"),
    ],
)
def test_every_factor_and_bias_goes_through_one_check(users, items, kw, message):
    y = sp.csr_array([[0, 1, 0], [1, 0, 0]])
    error = TypeError if "sparse" in message else ValueError
    with pytest.raises(error, match=message):
        skr.evaluate_embeddings(users, items, y, "ndcg@2", **kw)


def test_factors_of_no_dimension_with_a_bias_rank_by_the_bias():
    y = sp.csr_array([[0, 1, 0], [1, 0, 0]])
    res, top = skr.evaluate_embeddings(
        np.zeros((2, 0)), np.zeros((3, 0)), y, "mrr", item_bias=[1.0, 3.0, 2.0], k=3,
        return_top=True,
    )
    assert top.tolist() == [[1, 2, 0], [1, 2, 0]]
    assert res.per_query["mrr@3"].tolist() == [1.0, 1 / 3]
    # Zero factors are exact: every item ties (the expected value over the ties).
    tied = skr.evaluate_embeddings(np.zeros((2, 2)), np.zeros((3, 2)), y, "mrr")
    assert tied["mrr"] == pytest.approx((1 + 1 / 2 + 1 / 3) / 3)


# -- the candidates and the samples, against plain loops ------------------------------


@settings(max_examples=40, deadline=None)
@given(
    seed=st.integers(0, 2**31),
    n=st.integers(1, 6),
    N=st.integers(8, 300),
    L=st.integers(1, 10),
    levels=st.integers(1, 50),
)
def test_candidates_hold_the_top_and_the_ties_of_the_cut(seed, n, N, L, levels):
    L = min(L, N // 4)
    if L < 1:
        return
    rng = np.random.default_rng(seed)
    S = rng.integers(0, levels, size=(n, N)).astype(np.float32)
    S[rng.random((n, N)) < 0.3] = -np.inf
    rows, cols = top_candidates(S, L)
    for r in range(n):
        got = set(cols[rows == r].tolist())
        finite = sorted((s for s in S[r] if s > -np.inf), reverse=True)
        cut = finite[L - 1] if len(finite) >= L else -np.inf
        need = {j for j in range(N) if S[r, j] > -np.inf and S[r, j] >= cut}
        assert need <= got
        assert all(S[r, j] > -np.inf for j in got)


def _sample_loop(seed, u, n, N, allowed):
    """The documented draw, one user at a time."""
    stream = int(mix(int(mix(seed)) ^ (u * 0x9E3779B97F4A7C15 % 2**64)))
    picked = []
    for j in range(2 * n + 32):
        item = int(mix((stream + j) % 2**64)) % N
        if item in allowed and item not in picked:
            picked.append(item)
        if len(picked) == n:
            return sorted(picked)
    keys = {i: int(mix(stream ^ int(mix(i)))) for i in allowed}
    return sorted(sorted(allowed, key=lambda i: (keys[i], i))[:n])


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 2**31), n=st.integers(1, 30), N=st.integers(1, 80), p=st.floats(0, 1))
def test_samples_follow_the_documented_draws(seed, n, N, p):
    rng = np.random.default_rng(seed)
    users = np.array([0, 5, 17])
    ban = rng.random((3, N)) < p

    def forbidden(r, it):
        return ban[r, it]

    rows, items = sample_items(seed, users, n, N, forbidden)
    for r, u in enumerate(users):
        allowed = set(np.flatnonzero(~ban[r]).tolist())
        assert items[rows == r].tolist() == _sample_loop(seed, int(u), n, N, allowed)


def test_sampled_negatives_equal_the_dense_path_on_the_sampled_items():
    U, V, Y, E, _, _ = _case(6, 12, 60)
    metrics = ["ndcg@5", "recall@5", "mrr", "map"]
    res = skr.evaluate_embeddings(
        U,
        V,
        sp.csr_array(Y),
        metrics,
        exclude=E,
        sample_negatives=7,
        random_state=3,
        no_relevant=NAN,
    )
    again = skr.evaluate_embeddings(
        U,
        V,
        Y,
        metrics,
        exclude=E,
        sample_negatives=7,
        random_state=3,
        no_relevant=NAN,
        batch_size=5,
    )
    # The user's held-out items plus its sample, in long format.
    banned = E | (Y != 0)
    rows, items = sample_items(3, np.arange(12), 7, 60, lambda r, it: banned[r, it])
    keep = np.zeros_like(E)
    keep[rows, items] = True
    keep |= Y != 0
    assert not (keep & E).any()
    present, want = _reference(U, V, Y, ~keep, metrics)
    for m in metrics:
        # Padded rows of another width can round a row's float64 sums differently.
        np.testing.assert_allclose(res.per_query[m], again.per_query[m], rtol=1e-14)
        np.testing.assert_allclose(res.per_query[m][present], want[m], rtol=1e-12)


def test_pairs_given_as_index_tuples():
    U, V, Y, E, _, _ = _case(7, 6, 30)
    yu, yi = np.nonzero(Y)
    eu, ei = np.nonzero(E)
    metrics = ["ndcg@3", "recall@5"]
    as_matrix = skr.evaluate_embeddings(U, V, sp.csr_array(Y), metrics, exclude=E, no_relevant=NAN)
    as_pairs = skr.evaluate_embeddings(
        U, V, (yu, yi, Y[yu, yi]), metrics, exclude=(eu, ei), no_relevant=NAN
    )
    for m in metrics:
        np.testing.assert_array_equal(as_pairs.per_query[m], as_matrix.per_query[m])
    with pytest.raises(ValueError, match=r"item indices of y_true must be integers in 0 .. 29"):
        skr.evaluate_embeddings(U, V, (yu, yi + 30), metrics)
    with pytest.raises(ValueError, match=r"names a \(user, item\) pair twice"):
        skr.evaluate_embeddings(
            U, V, (np.r_[yu, yu[:1]], np.r_[yi, yi[:1]], np.ones(yu.size + 1)), metrics
        )


# -- exclude= on the matrix path --------------------------------------------------------


@settings(max_examples=25, deadline=None, suppress_health_check=list(HealthCheck))
@given(
    seed=st.integers(0, 2**31),
    n_rows=st.integers(2, 8),
    n_items=st.integers(2, 12),
    k=st.sampled_from([None, 1, 2, 3]),
    ignore_ties=st.booleans(),
    sparse=st.booleans(),
)
def test_evaluate_with_exclude_equals_long_format_without_the_pairs(
    seed, n_rows, n_items, k, ignore_ties, sparse
):
    U, V, Y, E, _, _ = _case(seed, n_rows, n_items, levels=1)
    E[0] = True  # a row left with no candidate: no_relevant's
    Y[E] = 0
    if (~E).sum(axis=1).max() < 2:
        assume(False)
    S = _dense_scores(U, V)
    metrics = [
        (_label(name, k), default_options(name))
        for name, spec in METRICS.items()
        if ignore_ties or spec.ties != "refuse"
    ]
    y = sp.csr_array(Y) if sparse else Y
    if ignore_ties:  # the same order on both sides: ties broken beforehand
        order = np.lexsort((np.broadcast_to(np.arange(n_items), S.shape), -S), axis=-1)
        S = np.empty_like(S)
        np.put_along_axis(S, order, np.arange(n_items, 0, -1.0)[None, :], axis=-1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        got = skr.evaluate(
            y, S, metrics, exclude=E, per_row=True, no_relevant=NAN, ignore_ties=ignore_ties
        )
        want, present = long_format_without(
            skr.evaluate, Y, S, E, metrics, no_relevant=NAN, ignore_ties=ignore_ties
        )
    for label, _ in metrics:
        np.testing.assert_allclose(
            got[label][present], want[label], rtol=1e-12, atol=1e-12, err_msg=label
        )
        spec = METRICS[label.split("@")[0]]
        if spec.normalized and not spec.always_defined:
            assert np.isnan(got[label][0]), label
    assert got["num_ret"][0] == 0  # the row without candidates ranks nothing


def test_evaluate_exclude_errors():
    Y = np.array([[1, 0, 2], [0, 1, 0]])
    S = np.array([[3, 2, 1], [1, 2, 3]])
    E = np.array([[1, 0, 1], [0, 0, 0]], dtype=bool)
    with pytest.raises(ValueError, match=r"y_true marks 2 excluded items .*set those entries"):
        skr.evaluate(Y, S, ["ndcg@2"], exclude=E)
    with pytest.raises(ValueError, match=r"y_true marks 1 excluded items"):
        skr.evaluate(sp.csr_array(Y), S, ["ndcg@2"], exclude=sp.csr_array(E & (Y == 1)))
    with pytest.raises(ValueError, match=r"exclude has shape \(1, 3\)"):
        skr.evaluate(Y, S, ["ndcg@2"], exclude=E[:1])
    with pytest.raises(skr.InvalidParameterError, match="leave the excluded pairs out"):
        skr.evaluate([1, 0], [1, 2], ["ndcg"], qid=[0, 0], exclude=[True, False])


def test_progress_is_called_after_each_block():
    U, V, Y, E, _, _ = _case(8, 10, 30)
    calls = []
    skr.evaluate_embeddings(
        U,
        V,
        Y,
        "ndcg@3",
        exclude=E,
        batch_size=3,
        no_relevant=NAN,
        progress=lambda done, total: calls.append((done, total)),
    )
    assert calls == [(1, 4), (2, 4), (3, 4), (4, 4)]


@pytest.mark.parametrize(
    "metric",
    [
        ("ndcg@3", {"gain": "exponential"}),
        ("ndcg@3", {"gain": {0: 0.5, 1: 1.0, 2: 2.0, 3: 4.0}}),  # level 0 worth something
        ("dcg@4", {"discount": "jarvelin", "log_base": 3}),
        ("precision@3", {"threshold": 2}),
        ("recall@3", {"threshold": 0}),  # every candidate relevant: whole rows
        ("map@3", {"denominator": "relevant"}),
        ("err@3", {"max_grade": 3}),
        ("rbp@3", {"p": 0.5, "graded": True}),
    ],
)
def test_options_equal_the_dense_path(metric):
    U, V, Y, E, _, _ = _case(9, 12, 60, levels=1)
    present, want = _reference(U, V, Y, E, [metric])
    got = skr.evaluate_embeddings(U, V, sp.csr_array(Y), [metric], exclude=E, no_relevant=NAN)
    np.testing.assert_allclose(
        got.per_query[metric[0]][present], want[metric[0]], rtol=1e-12, atol=1e-12
    )


@pytest.mark.parametrize("n", [60, 61, 10**6, 10**12])
def test_a_sample_of_the_catalogue_or_more_is_the_whole_catalogue(n):
    """n >= n_items: every user's candidates, i.e. the full-catalogue values
    exactly, at a cost bounded by the catalogue (not by n)."""
    U, V, Y, E, _, _ = _case(6, 12, 60)
    metrics = ["ndcg@5", "recall@5", "mrr", "map", "precision@10"]
    full = skr.evaluate_embeddings(U, V, Y, metrics, exclude=E, no_relevant=NAN)
    skr.evaluate_embeddings(U, V, Y, metrics, exclude=E, no_relevant=NAN,
                            sample_negatives=n, random_state=0)  # warm-up
    tracemalloc.start()
    try:
        got = skr.evaluate_embeddings(U, V, Y, metrics, exclude=E, no_relevant=NAN,
                                      sample_negatives=n, random_state=0)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 1 << 20, peak  # 10**12 draws would be terabytes
    for m in metrics:
        np.testing.assert_array_equal(got.per_query[m], full.per_query[m])


def test_a_user_with_fewer_candidates_than_the_sample_takes_them_all():
    """Per user: a sample at least as large as its candidates is all of them."""
    U, V, Y, E, _, _ = _case(7, 12, 60)
    E = E.copy()
    E[0, :] = True
    E[0, :5] = False  # user 0: 5 items not excluded, some of them held out
    Y = Y.copy()
    Y[0, :] = 0
    Y[0, 1] = 1
    metrics = ["ndcg@3", "mrr", "map"]
    full = skr.evaluate_embeddings(U, V, Y, metrics, exclude=E, no_relevant=NAN)
    for n in (4, 5, 30):  # user 0 has 4 negatives to draw from
        got = skr.evaluate_embeddings(U, V, Y, metrics, exclude=E, no_relevant=NAN,
                                      sample_negatives=n, random_state=1)
        for m in metrics:
            assert got.per_query[m][0] == pytest.approx(full.per_query[m][0], rel=1e-12)


@pytest.mark.parametrize("n", [61, 10**12])
def test_samples_larger_than_the_catalogue_are_bounded_by_it(n):
    users = np.arange(3)
    banned = np.zeros((3, 60), dtype=bool)
    banned[1, ::2] = True
    tracemalloc.start()
    try:
        rows, items = sample_items(5, users, n, 60, lambda r, it: banned[r, it])
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 1 << 20, peak
    assert np.bincount(rows).tolist() == [60, 30, 60]
    assert items[rows == 1].tolist() == list(range(1, 60, 2))


def test_samples_are_uniform_over_the_allowed_items():
    users = np.arange(4000)
    banned = np.zeros((4000, 50), dtype=bool)
    banned[:, :5] = True  # never drawn
    rows, items = sample_items(11, users, 10, 50, lambda r, it: banned[r, it])
    assert np.bincount(rows, minlength=4000).tolist() == [10] * 4000
    counts = np.bincount(items, minlength=50)
    assert counts[:5].sum() == 0
    expected = 4000 * 10 / 45  # 888.9, standard deviation about 28
    assert np.abs(counts[5:] - expected).max() < 6 * 28, counts


@pytest.mark.parametrize("which", ["user", "item", "both"])
def test_either_bias_alone(which):
    U, V, Y, E, ub, ib = _case(10, 15, 80, levels=1, biases=True)
    ub = ub if which in ("user", "both") else None
    ib = ib if which in ("item", "both") else None
    metrics = ["ndcg@3", "precision@2", "map"]
    present, want = _reference(U, V, Y, E, metrics, ub=ub, ib=ib)
    got = skr.evaluate_embeddings(
        U, V, Y, metrics, exclude=E, user_bias=ub, item_bias=ib, no_relevant=NAN
    )
    for m in metrics:
        np.testing.assert_allclose(got.per_query[m][present], want[m], rtol=1e-12, atol=1e-12)


PUBLIC_METRIC_FUNCTIONS = [spec.function for spec in METRICS.values() if spec.function]


@pytest.mark.parametrize("function", PUBLIC_METRIC_FUNCTIONS)
def test_every_metric_function_takes_exclude_as_long_format_without_the_pairs(function):
    """``exclude=`` on each public metric function: the numbers of the same rows
    in long format without the excluded pairs (ties included)."""
    fn = getattr(skr, function)
    rng = np.random.default_rng(11)
    y = np.where(rng.random((40, 12)) < 0.3, rng.integers(1, 4, (40, 12)), 0)
    s = rng.integers(0, 4, (40, 12)).astype(float)  # ties
    excluded = (rng.random(y.shape) < 0.3) & (y == 0)
    excluded[:, 0] = False  # no row left without a candidate
    params = inspect.signature(fn).parameters
    kw = {"k": 5} if "k" in params else {}
    if "no_relevant" in params:
        kw["no_relevant"] = np.nan
    got = fn(y, s, exclude=excluded, per_row=True, **kw)
    rows, cols = np.nonzero(~excluded)
    want = fn(y[rows, cols], s[rows, cols], qid=rows, per_row=True, **kw)
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12, equal_nan=True)
    assert fn(y, s, exclude=sp.csr_array(excluded), per_row=True, **kw) == pytest.approx(
        got, nan_ok=True
    )


def test_exclude_with_qid_is_refused_naming_the_function():
    with pytest.raises(
        InvalidParameterError,
        match=r"ndcg_score: exclude marks items of \(n_rows, n_items\) matrices, but with "
        r"qid .*leave the excluded pairs out",
    ):
        skr.ndcg_score([1, 0, 1], [0.3, 0.2, 0.1], qid=[0, 0, 0], exclude=[True, False, False])


@pytest.mark.parametrize(
    ("exclude", "match"),
    [
        (np.zeros((2, 3), bool), r"ndcg_score: exclude has shape \(2, 3\)"),
        (np.array([[0, 2, 0, 0], [0, 0, 0, 0]]), "flags, got the value 2;"),
        (np.array([[0.5, 0, 0, 0], [0, 0, 0, 0]]), "flags, got the value 0.5;"),
        (np.array([[np.nan, 0, 0, 0], [0, 0, 0, 0]]), "flags, got the value nan;"),
        (sp.csr_array(np.array([[0, 3.0, 0, 0], [0, 0, 0, 0]])), "flags, got the value 3.0;"),
        ("abc", "exclude must be a boolean matrix"),
        (np.array([[True, False, False, False], [False] * 4]), "marks 1 excluded items"),
    ],
)
def test_a_wrong_exclude_is_an_error_naming_the_function(exclude, match):
    """A mask that is no mask (wrong shape, values other than 0/1, NaN, text) or
    one that hides a relevant item is refused, naming the function called."""
    y = np.array([[1, 0, 0, 1], [0, 1, 0, 0]])
    s = np.array([[0.4, 0.3, 0.2, 0.1], [0.1, 0.2, 0.3, 0.4]])
    with pytest.raises(ValueError, match=match):
        skr.ndcg_score(y, s, k=2, exclude=exclude)
    # 0/1 integers are flags like booleans.
    ints = np.array([[0, 1, 0, 0], [1, 0, 0, 0]])
    assert skr.ndcg_score(y, s, k=2, exclude=ints) == skr.ndcg_score(
        y, s, k=2, exclude=ints.astype(bool)
    )
