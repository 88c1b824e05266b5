"""evaluate_ranked on recommendations in long format with a rank column: the
rows put in order by user, then rank, whatever order the frame holds them in
(users' rows together or apart, best first or not, users in any order), give
each user's values as the same lists given as a dict do; a rank given twice to
one user raises, naming them."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sk_rankmetrics import evaluate_ranked
from sk_rankmetrics._files.ranked_frames import _by_user_rank

pd = pytest.importorskip("pandas")
pytestmark = pytest.mark.filterwarnings("ignore:no ranked item appears in the truth")

SETTINGS = settings(max_examples=80, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow])

METRICS = ["ndcg@5", "mrr", "recall@3", "map"]
LAYOUTS = ["sorted", "users shuffled", "ranks shuffled", "rows shuffled", "users split"]
ID_KINDS = ["short text", "long text", "non-latin text", "integers"]


def _user_ids(kind, n):
    if kind == "short text":
        return [f"u{i}" for i in range(n)]  # (text order: u1, u10, u2, ...)
    if kind == "long text":
        return [f"user-{i:012d}" for i in range(n)]  # (past 8 characters: not packed)
    if kind == "non-latin text":
        return [f"用户{i}" for i in range(n)]
    return [int(i) * 7 - 20 for i in range(n)]


def _frame(rng, users, lists, layout, float_ranks):
    """Rows (user, item, rank) of the lists in ``layout``."""
    rows = []
    for u, items in zip(users, lists):
        ranks = np.cumsum(rng.integers(1, 3, len(items)))  # increasing, gaps allowed
        part = [(u, it, float(r) + 0.5 if float_ranks else int(r))
                for it, r in zip(items, ranks)]
        if layout == "ranks shuffled":
            part = [part[i] for i in rng.permutation(len(part))]
        rows.append(part)
    if layout in ("users shuffled", "ranks shuffled"):
        rows = [rows[i] for i in rng.permutation(len(rows))]
    flat = [r for part in rows for r in part]
    if layout == "rows shuffled":
        flat = [flat[i] for i in rng.permutation(len(flat))]
    if layout == "users split" and flat:
        # One user's rows in two stretches (its last row moved to the end).
        i = next(j for j, part in enumerate(rows) if part)
        flat.remove(rows[i][-1])
        flat.append(rows[i][-1])
    return pd.DataFrame(flat, columns=["user", "item", "rank"])


@SETTINGS
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(1, 25), layout=st.sampled_from(LAYOUTS),
       id_kind=st.sampled_from(ID_KINDS), float_ranks=st.booleans(),
       arrow=st.booleans())
def test_frames_in_any_row_order_score_as_the_dict(seed, n, layout, id_kind, float_ranks,
                                                   arrow):
    rng = np.random.default_rng(seed)
    users = _user_ids(id_kind, n)
    lists = [[f"i{j}" for j in rng.permutation(30)[: rng.integers(1, 9)]] for _ in users]
    truth = {u: {f"i{j}" for j in rng.permutation(30)[: rng.integers(1, 5)]} for u in users}
    frame = _frame(rng, users, lists, layout, float_ranks)
    if arrow and id_kind != "integers":
        pytest.importorskip("pyarrow")
        frame = frame.astype({"user": "string[pyarrow]", "item": "string[pyarrow]"})
    got = evaluate_ranked(frame, truth, METRICS)
    want = evaluate_ranked(dict(zip(users, lists)), truth, METRICS)
    # Users come sorted by id from a frame; in the dict's order from a dict.
    assert got.query_ids.tolist() == sorted(users)
    at = {u: i for i, u in enumerate(want.query_ids.tolist())}
    order = [at[u] for u in got.query_ids.tolist()]
    for name in METRICS:
        np.testing.assert_array_equal(np.asarray(got.per_query[name]),
                                      np.asarray(want.per_query[name])[order])


@pytest.mark.parametrize("layout", ["together", "apart"])
def test_a_rank_given_twice_to_a_user_raises(layout):
    rows = [("u2", "a", 1), ("u1", "b", 1), ("u1", "c", 2), ("u1", "d", 2), ("u3", "e", 1)]
    if layout == "apart":
        rows = rows[1:3] + rows[:1] + rows[3:]
    frame = pd.DataFrame(rows, columns=["user", "item", "rank"])
    with pytest.raises(ValueError, match="gives rank 2 twice to user 'u1'; each rank once"):
        evaluate_ranked(frame, {"u1": {"b"}}, ["mrr"])


def test_rows_in_order_are_not_moved():
    """A frame already ordered by user, then rank: the item ids given come
    back as they are (no copy); stretches in another user order are put in
    order as whole stretches."""
    user = np.array(["a", "a", "b", "c", "c"])
    item = np.array(["x", "y", "z", "v", "w"])
    ids, lens, flat = _by_user_rank(user, item, np.array([1, 2, 1, 1, 5]))
    assert flat is item and ids.tolist() == ["a", "b", "c"] and lens.tolist() == [2, 1, 2]
    ids, lens, flat = _by_user_rank(user[::-1].copy(), item[::-1].copy(),
                                    np.array([1, 2, 1, 1, 5])[::-1].copy())
    # (Reversed, each user's best row comes last: every row is sorted.)
    assert ids.tolist() == ["a", "b", "c"] and flat.tolist() == ["x", "y", "z", "v", "w"]
    ids, lens, flat = _by_user_rank(np.array(["c", "c", "a", "b", "b"]),
                                    np.array(["v", "w", "x", "y", "z"]),
                                    np.array([1, 2, 7, 1, 3]))
    assert ids.tolist() == ["a", "b", "c"] and lens.tolist() == [1, 2, 2]
    assert flat.tolist() == ["x", "y", "z", "v", "w"]


@pytest.mark.parametrize("dtype", ["string[pyarrow]", "object"])
def test_hostile_frames_are_refused_naming_the_column(dtype):
    """A missing user or item id (also in Arrow's text) and a rank that is not
    a number raise, naming the column; an empty id names its entry."""
    pytest.importorskip("pyarrow")
    rows = {"user": ["u1", None, "u2"], "item": ["a", "b", "c"], "rank": [1, 2, 1]}
    frame = pd.DataFrame(rows).astype({"user": dtype, "item": dtype})
    with pytest.raises(ValueError, match="user column 'user' of recommended has a missing "
                                         r"value \(row 1\)"):
        evaluate_ranked(frame, {"u1": {"a"}}, ["mrr"])
    frame = pd.DataFrame({**rows, "user": ["u1", "u1", ""]}).astype({"user": dtype,
                                                                      "item": dtype})
    with pytest.raises(ValueError, match="empty id at entry 2"):
        evaluate_ranked(frame, {"u1": {"a"}}, ["mrr"])
    frame = pd.DataFrame({**rows, "user": ["u1", "u1", "u2"], "rank": ["1", "x", "1"]})
    with pytest.raises(TypeError, match="rank column must hold numbers"):
        evaluate_ranked(frame.astype({"user": dtype, "item": dtype}), {"u1": {"a"}}, ["mrr"])
