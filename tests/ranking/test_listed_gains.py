"""trec_eval's G and ``ndcg_rel`` read from the list of a chunk's nonzero
ranked gains (``gain_curves._Listed``) when the chunk is untied and its gains
are few, and the ideal's running sums from ``IdealLevels.top``.

Both list paths are forced (the share of nonzero gains that picks them set
to 1) and checked row by row against the reference formulas of
``tests/reference.py`` on untied scores, with padding (``max_docs``, long
format of uneven lengths, ``exclude``), ``judged`` masks, negative levels
under a gain mapping, exponential gain and rows without a positive gain; and
the list and dense paths must give the same values to the last bits. The
ideal's rows are checked against a plain sort of each row's gains.
"""

from __future__ import annotations

import numpy as np
import pytest
import reference as ref
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sk_rankmetrics import evaluate
from sk_rankmetrics._metrics.kernels import gain_curves
from sk_rankmetrics._ranking.ideal import IdealLevels

SETTINGS = settings(max_examples=80, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow,
                                           HealthCheck.function_scoped_fixture])
NEG_GAINS = {-1: 0.0, 0: 0.0, 1: 1.0, 2: 3.0, 3: 7.0}
TOL = dict(rtol=1e-12, atol=1e-13)


@pytest.fixture
def listed(monkeypatch):
    """Force the list paths and count the chunks that took them."""
    taken = []
    real = gain_curves._Listed.__init__

    def spy(self, *a, **k):
        taken.append(1)
        real(self, *a, **k)

    monkeypatch.setattr(gain_curves, "_LIST_SHARE", 1.0)
    monkeypatch.setattr(gain_curves._Listed, "__init__", spy)
    return taken


@st.composite
def cases(draw):
    """``(y, s, opts, judged, exclude)``: distinct scores (no ties), sparse
    levels, any option the two measures read."""
    n_rows = draw(st.integers(1, 5))
    n_items = draw(st.integers(2, 9))
    gain = draw(st.sampled_from(["linear", "exponential", NEG_GAINS]))
    low = -1 if isinstance(gain, dict) else 0
    cells = n_rows * n_items
    y = np.array(draw(st.lists(st.sampled_from([0, 0, 0, 1, 2, 3, low]),
                               min_size=cells, max_size=cells))).reshape(n_rows, n_items)
    perm = draw(st.permutations(range(cells)))
    s = np.array(perm, dtype=np.float64).reshape(n_rows, n_items)
    if draw(st.booleans()):
        s = s.astype(np.float32)
    opts = {"gain": gain}
    if draw(st.booleans()):
        opts["max_docs"] = draw(st.integers(1, 6))
    judged = exclude = None
    if draw(st.booleans()):
        judged = np.array(draw(st.lists(st.booleans(), min_size=cells,
                                        max_size=cells))).reshape(n_rows, n_items)
    if draw(st.booleans()):
        exclude = np.array(draw(st.lists(st.booleans(), min_size=cells,
                                         max_size=cells))).reshape(n_rows, n_items)
        y = np.where(exclude, 0, y)  # an excluded item is never relevant
    return y, s, opts, judged, exclude


def _want(name, y, s, opts, judged, exclude):
    out = []
    for i in range(y.shape[0]):
        keep = np.ones(y.shape[1], bool) if exclude is None else ~exclude[i]
        items = np.flatnonzero(keep)
        order = list(items[np.argsort(-s[i][items], kind="stable")])[: opts.get("max_docs")]
        # Excluded items are not candidates: neither ranked nor judged.
        yi = [int(v) if k else 0 for v, k in zip(y[i], keep)]
        ji = None if judged is None else [bool(j) and k for j, k in zip(judged[i], keep)]
        v = ref.METRICS[name](yi, order, gain=opts["gain"], judged=ji)
        out.append(np.nan if v is None else v)
    return np.array(out)


@pytest.mark.parametrize("name", ["g", "ndcg_rel"])
@SETTINGS
@given(case=cases())
def test_list_path_matches_reference(name, case, listed):
    y, s, opts, judged, exclude = case
    listed.clear()
    got = evaluate(y, s, [(name, opts)], per_row=True, no_relevant=np.nan,
                   judged=judged, exclude=exclude)[name]
    np.testing.assert_allclose(got, _want(name, y, s, opts, judged, exclude), **TOL,
                               err_msg=f"{name} {opts}")
    # (A block without a relevant item is not computed at all.)
    assert listed or not (y > 0).any(), "the list path was not taken"


@pytest.mark.parametrize("name", ["g", "ndcg_rel"])
@SETTINGS
@given(data=st.data())
def test_long_format_of_uneven_lengths_on_the_list_path(name, data, listed):
    """Queries of different lengths: the shorter ones padded inside the
    engine, the padding never read as a ranked gain."""
    gain = data.draw(st.sampled_from(["linear", "exponential"]))
    lens = data.draw(st.lists(st.integers(2, 8), min_size=1, max_size=4))
    ys = [np.array(data.draw(st.lists(st.sampled_from([0, 0, 1, 3]), min_size=n, max_size=n)))
          for n in lens]
    ss = [np.array(data.draw(st.permutations(range(n))), dtype=np.float64) for n in lens]
    listed.clear()
    got = evaluate(np.concatenate(ys), np.concatenate(ss), [(name, {"gain": gain})],
                   qid=np.repeat(np.arange(len(lens)), lens), per_row=True,
                   no_relevant=np.nan)[name]
    want = [ref.METRICS[name](list(y), list(np.argsort(-s, kind="stable")), gain=gain)
            for y, s in zip(ys, ss)]
    want = [np.nan if v is None else v for v in want]
    np.testing.assert_allclose(got, want, **TOL)
    assert listed


@pytest.mark.parametrize("share", [0.01, 0.2])
@pytest.mark.parametrize("name", ["g", "ndcg_rel"])
def test_list_and_dense_paths_agree(name, share, monkeypatch):
    """Sparse and denser float gains on a block large enough to be chunked:
    the two paths add the same terms in the same order."""
    rng = np.random.default_rng(7)
    y = np.where(rng.random((3000, 60)) < share, rng.random((3000, 60)) * 4, 0.0)
    y[::17] = 0.0  # rows without a gain
    s = rng.random((3000, 60))
    out = {}
    for forced in (1.0, -1.0):
        monkeypatch.setattr(gain_curves, "_LIST_SHARE", forced)
        out[forced] = [evaluate(y, s, [(name, opts)], per_row=True, no_relevant=0.0)[name]
                       for opts in ({}, {"max_docs": 25})]
    for listed, dense in zip(out[1.0], out[-1.0]):
        assert listed.any()
        np.testing.assert_allclose(listed, dense, rtol=1e-14, atol=0)


def test_list_path_is_not_taken_on_ties_or_dense_gains(monkeypatch):
    """Tied chunks need the tie-group rule of the dense path (or, ranked
    through their relevant items, the list of one order put right at the
    groups: ``gain_g._g_relevant_ties``, not the chunk's list); dense gains
    gain nothing from a list."""
    taken = []
    real = gain_curves._Listed.of
    monkeypatch.setattr(gain_curves._Listed, "of", lambda *a, **k: (
        (out := real(*a, **k)) is not None and taken.append(1)) or out)
    rng = np.random.default_rng(3)
    sparse = np.where(rng.random((50, 40)) < 0.05, 2, 0)
    evaluate(sparse, rng.integers(0, 3, (50, 40)), ["g", "ndcg_rel"], no_relevant=0.0)
    evaluate(rng.integers(0, 4, (50, 40)), rng.random((50, 40)), ["g", "ndcg_rel"],
             no_relevant=0.0)
    assert not taken
    evaluate(sparse, rng.random((50, 40)), ["g", "ndcg_rel"], no_relevant=0.0)
    assert taken


def _levels_of(g):
    """The :class:`IdealLevels` of gain rows ``g``, made plainly: each row's
    positive gains sorted best first, a level per run of equal gains."""
    rows, end, gain = [], [], []
    for r, row in enumerate(g):
        best = sorted((v for v in row if v > 0), reverse=True)
        for j, v in enumerate(best):
            if j + 1 == len(best) or best[j + 1] != v:
                rows.append(r)
                end.append(j + 1)
                gain.append(v)
    return IdealLevels(np.array(rows, dtype=np.int64), np.array(end, dtype=np.int64),
                       np.array(gain, dtype=np.float64), g.shape[0])


@settings(max_examples=150, deadline=None)
@given(data=st.data())
def test_ideal_rows_are_each_rows_gains_sorted(data):
    """``IdealLevels.top(width)``: each row's positive gains best first, then
    zeros, cut at ``width`` (wider or narrower than the rows)."""
    n_rows = data.draw(st.integers(0, 6))
    n_items = data.draw(st.integers(1, 8))
    g = np.array(data.draw(st.lists(st.sampled_from([0.0, 0.0, -1.0, 0.5, 1.0, 3.0]),
                                    min_size=n_rows * n_items, max_size=n_rows * n_items)))
    g = g.reshape(n_rows, n_items)
    width = data.draw(st.integers(1, 10))
    want = -np.sort(-np.maximum(g, 0.0), axis=1)
    want = np.pad(want, ((0, 0), (0, max(width - n_items, 0))))[:, :width]
    got = _levels_of(g).top(width)
    assert got.shape == (n_rows, width)
    np.testing.assert_array_equal(got, want)


@settings(max_examples=100, deadline=None)
@given(n_rows=st.integers(1, 8), n_items=st.integers(1, 12), width=st.integers(1, 16),
       seed=st.integers(0, 2**32 - 1))
def test_ideal_rows_of_levels_of_one_item(n_rows, n_items, width, seed):
    """Real-valued gains, every positive gain of a row distinct: each level
    one item (``IdealLevels.top`` puts the gains at their places, no runs
    made), the rows' gains sorted all the same, cut at ``width``."""
    rng = np.random.default_rng(seed)
    g = rng.random((n_rows, n_items)) + 0.01
    g[rng.random((n_rows, n_items)) < 0.4] = 0.0
    levels = _levels_of(g)
    assert np.all(levels.end - levels.begin == 1)
    want = -np.sort(-g, axis=1)
    want = np.pad(want, ((0, 0), (0, max(width - n_items, 0))))[:, :width]
    np.testing.assert_array_equal(levels.top(width), want)
