"""Exact expectations over tie orderings of the whole-ranking measures whose
rule needs more than tie-group means: infAP, interpolated precision
(``iprec_at_recall``, ``11pt_avg``), trec_eval's G, ``ndcg_rel`` and
``Rndcg``.

Each is compared row by row with the brute force of ``tests/reference.py``
(the plain measure averaged over every ordering of every tie group) on
heavily tied rows: all-tied rows, rows without relevant items, empty ranked
lists, ``max_docs`` cutting through a tie group, ``judged`` masks on
matrices, pooled-but-unjudged items of ranked lists (trec_eval's negative
levels), negative relevance levels and every layout (matrix, long format,
ranked lists). Larger tie groups are checked against an exact enumeration of
the subsets of a group (``exact_group_*`` below), and groups beyond the exact
rule's budget must raise a clear error.
"""

from __future__ import annotations

import inspect
import itertools
import math

import numpy as np
import pytest
import reference as ref
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sk_rankmetrics import evaluate
from sk_rankmetrics._evaluation.engine import compute
from sk_rankmetrics._evaluation.reduce import reduce_results
from sk_rankmetrics._inputs.preranked import RankedLists, Truth, build_preranked
from sk_rankmetrics._metrics.kernels import interpolated as _kernels
from sk_rankmetrics._metrics.registry import METRICS
from sk_rankmetrics._metrics.requests import make_requests

#: Slow (brute force over every ordering of tie groups): left out by pytest -m 'not slow'.
pytestmark = pytest.mark.slow

MEASURES = ["infap", "iprec_at_recall", "11pt_avg", "g", "ndcg_rel", "rndcg"]
GAIN_MEASURES = {"g", "ndcg_rel", "rndcg"}
TOL = dict(rtol=1e-11, atol=1e-12)
SETTINGS = settings(max_examples=150, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow])
#: A gain mapping that accepts the negative level (trec_eval's -1 as gain 0).
NEG_GAINS = {-1: 0.0, 0: 0.0, 1: 1.0, 2: 3.0, 3: 7.0}


#: Measures that refuse tied scores (no closed form of their expectation over
#: tie orderings is known): cwl_eval's user models whose stopping depends on
#: the gains already seen, and measures whose cut-off inside a tie decides
#: what the top k holds (docs/metrics.md says so for each).
REFUSING = {"nerr8", "nerr9", "nerr10", "nerr11", "inst", "bpm", "compat", "accuracy"}


def test_no_measure_refuses_ties_but_the_listed_ones():
    """Every measure of trec_eval, ranx and this package is exact on ties; the
    few that refuse them are listed, so a new one cannot join them quietly."""
    from sk_rankmetrics._files.trec_eval import MEASURES as TREC_MEASURES

    assert all(METRICS[name].ties == "expected" for name in MEASURES)
    assert {name for name, spec in METRICS.items() if spec.ties != "expected"} == REFUSING
    trec = {m.metric for m in TREC_MEASURES.values() if getattr(m, "metric", None)}
    assert not trec & REFUSING


def _brute(name, y, ranked_scores, *, max_docs=None, judged=None, pool=None, **options):
    """Mean of the reference measure over every ordering of the ranked items.

    Items ``0..len(ranked_scores)-1`` are ranked; later items of ``y`` are
    named by the truth but not ranked. None when the measure is undefined.
    """
    fn = ref.METRICS[name]
    params = inspect.signature(fn).parameters
    kw = dict(options)
    if judged is not None:
        kw["judged"] = list(judged)
    if pool is not None and "pool" in params:
        kw["pool"] = list(pool)
    vals = [fn(list(y), order[:max_docs], **kw) for order in ref.orderings(list(ranked_scores))]
    if not vals:  # nothing ranked
        vals = [fn(list(y), [], **kw)]
    if vals[0] is None:
        return np.nan
    return sum(vals) / len(vals)


def _ref_options(name, options):
    out = dict(options)
    out.pop("max_docs", None)
    if name == "11pt_avg" and "recall_levels" in out:
        out["recall_levels"] = list(out["recall_levels"])
    return out


# --- strategies ---------------------------------------------------------------------------


@st.composite
def options(draw, name):
    opts = {}
    if draw(st.booleans()):
        opts["max_docs"] = draw(st.integers(1, 7))
    if name in GAIN_MEASURES:
        opts["gain"] = draw(st.sampled_from(["linear", "exponential", NEG_GAINS]))
    else:
        if draw(st.booleans()):
            opts["threshold"] = draw(st.sampled_from([2, -1]))
        if name == "iprec_at_recall":
            opts["recall"] = draw(st.sampled_from([0.0, 0.1, 0.25, 0.4, 0.5, 0.75, 1.0]))
        if name == "11pt_avg" and draw(st.booleans()):
            opts["recall_levels"] = (0.0, 0.3, 0.5, 1.0)
        if name in ("iprec_at_recall", "11pt_avg") and draw(st.booleans()):
            opts["recall_rounding"] = "plus_0.9"
    return opts


def _levels(name, opts):
    """Relevance levels a row may hold: negative ones where the measure (or its
    gain mapping) accepts them."""
    if name in GAIN_MEASURES and not isinstance(opts.get("gain"), dict):
        return st.integers(0, 3)
    return st.integers(-1, 3)


@st.composite
def matrices(draw, name, opts, max_rows=4, max_items=7):
    """``(y, s, judged)``: tiny score ranges (ties everywhere), an all-tied row,
    a row without relevant items, and an optional ``judged`` mask."""
    n_rows = draw(st.integers(1, max_rows))
    n_items = draw(st.integers(2, max_items))
    cells = n_rows * n_items
    y = np.array(draw(st.lists(_levels(name, opts), min_size=cells, max_size=cells)))
    s = np.array(draw(st.lists(st.integers(0, 2), min_size=cells, max_size=cells)))
    y, s = y.reshape(n_rows, n_items), s.reshape(n_rows, n_items)
    if draw(st.booleans()):
        s[draw(st.integers(0, n_rows - 1))] = 1  # every ordering of the row
    if draw(st.booleans()):
        y[draw(st.integers(0, n_rows - 1))] = 0
    judged = None
    if draw(st.booleans()):
        judged = np.array(draw(st.lists(st.booleans(), min_size=cells, max_size=cells)))
        judged = judged.reshape(n_rows, n_items)
    return y, s, judged


def _per_row(name, y, s, opts, **kwargs):
    label = name
    out = evaluate(y, s, [(label, opts)], per_row=True, no_relevant=np.nan, **kwargs)
    return out[label]


@pytest.mark.parametrize("name", MEASURES)
@SETTINGS
@given(data=st.data())
def test_matrix_rows_match_brute_force(name, data):
    opts = data.draw(options(name))
    y, s, judged = data.draw(matrices(name, opts))
    got = _per_row(name, y, s, opts, judged=judged)
    ref_opts = _ref_options(name, opts)
    want = [
        _brute(name, y[i], s[i], max_docs=opts.get("max_docs"),
               judged=None if judged is None else judged[i], **ref_opts)
        for i in range(y.shape[0])
    ]
    np.testing.assert_allclose(got, want, **TOL, err_msg=f"{name} {opts}")


@pytest.mark.parametrize("name", MEASURES)
@pytest.mark.parametrize("max_docs", [1, 2, 3])
def test_tie_cut_by_the_depth_holding_more_relevant_items_than_it(name, max_docs):
    """A tie group cut by ``max_docs`` counts every relevant item it holds,
    more than the depth: a row's running counts then pass the depth, and the
    rows after it must still be read as their own (whichever comes first)."""
    y = np.array([[1, 1, 1, 1, 2, 0], [0, 0, 0, 0, 0, 1], [0, 1, 0, 0, 0, 0]])
    s = np.zeros(y.shape)
    opts = {"max_docs": max_docs}
    if name == "iprec_at_recall":
        opts["recall"] = 0.0
    for order in itertools.permutations(range(y.shape[0])):
        got = _per_row(name, y[list(order)], s, opts)
        want = [_brute(name, y[i], s[i], max_docs=max_docs, **_ref_options(name, opts))
                for i in order]
        np.testing.assert_allclose(got, want, **TOL, err_msg=f"{name} {opts} {order}")


@pytest.mark.parametrize("name", MEASURES)
@SETTINGS
@given(data=st.data())
def test_long_format_rows_of_any_length_match_brute_force(name, data):
    """Queries of different lengths (padded inside the engine)."""
    opts = data.draw(options(name))
    n_q = data.draw(st.integers(1, 4))
    lens = data.draw(st.lists(st.integers(2, 7), min_size=n_q, max_size=n_q))
    rows = [data.draw(st.lists(_levels(name, opts), min_size=n, max_size=n)) for n in lens]
    scores = [data.draw(st.lists(st.integers(0, 2), min_size=n, max_size=n)) for n in lens]
    qid = np.repeat(np.arange(n_q), lens)
    got = _per_row(name, np.concatenate(rows), np.concatenate(scores), opts, qid=qid)
    ref_opts = _ref_options(name, opts)
    want = [_brute(name, y, s, max_docs=opts.get("max_docs"), **ref_opts)
            for y, s in zip(rows, scores)]
    np.testing.assert_allclose(got, want, **TOL, err_msg=f"{name} {opts}")


@st.composite
def ranked_lists(draw, name, opts):
    """Ranked lists with tied scores, items the truth does not name, items it
    names without judging them (pooled, unjudged), judged items left unranked
    and empty lists."""
    n_q = draw(st.integers(1, 4))
    queries = []
    for _ in range(n_q):
        n = draw(st.integers(0, 6))
        scores = draw(st.lists(st.integers(0, 2), min_size=n, max_size=n))
        scores = sorted(scores, reverse=True)
        kinds = draw(st.lists(st.sampled_from(["judged", "judged", "unnamed", "pooled"]),
                              min_size=n, max_size=n))
        rel = draw(st.lists(_levels(name, opts), min_size=n, max_size=n))
        n_extra = draw(st.integers(1, 2))  # every query has judgements
        extra = draw(st.lists(_levels(name, opts), min_size=n_extra, max_size=n_extra))
        queries.append((scores, kinds, rel, extra))
    return queries


@pytest.mark.filterwarnings("ignore:no ranked item appears in the truth")
@pytest.mark.filterwarnings("ignore:.*of the ranking have no judgements")
@pytest.mark.parametrize("name", MEASURES)
@SETTINGS
@given(data=st.data())
def test_ranked_lists_with_pooled_items_match_brute_force(name, data):
    opts = data.draw(options(name))
    queries = data.draw(ranked_lists(name, opts))
    run_q, run_lens, rec, rec_score = [], [], [], []
    tq, ti, tr, tj = [], [], [], []
    want = []
    for q, (scores, kinds, rel, extra) in enumerate(queries):
        run_q.append(q)
        run_lens.append(len(scores))
        rec += [f"d{q}_{i}" for i in range(len(scores))]
        rec_score += scores
        y, judged, pool = [], [], []
        for i, (kind, level) in enumerate(zip(kinds, rel)):
            if kind != "unnamed":
                tq.append(q)
                ti.append(f"d{q}_{i}")
                tr.append(level)
                tj.append(kind == "judged")
            y.append(level if kind == "judged" else 0)
            judged.append(kind == "judged")
            pool.append(kind != "unnamed")
        for i, level in enumerate(extra):  # judged, never ranked
            tq.append(q)
            ti.append(f"x{q}_{i}")
            tr.append(level)
            tj.append(True)
            y.append(level)
            judged.append(True)
            pool.append(True)
        want.append(_brute(name, y, scores, max_docs=opts.get("max_docs"), judged=judged,
                           pool=pool, **_ref_options(name, opts)))
    lists = RankedLists(np.array(run_q), np.array(run_lens), np.array(rec, dtype=object),
                        np.array(rec_score, dtype=float))
    truth = Truth(np.array(tq), np.array(ti, dtype=object), np.array(tr),
                  judged=np.array(tj, dtype=bool))
    inputs = build_preranked(lists, truth, queries="both")
    requests = make_requests([(name, opts)])
    t = opts.get("threshold")
    if t is not None and t < 0 and any(
            t <= lv < 0 for q in queries for k, lv in zip(q[1], q[2]) if k == "pooled"):
        # A negative level in the pool is never relevant: a threshold that
        # would count it raises (tests/agreement/test_negative_levels.py).
        with pytest.raises(ValueError, match="would count level"):
            compute(inputs, requests)
        return
    per_query, _ = reduce_results(compute(inputs, requests), requests, np.nan, None)
    order = np.argsort(inputs.query_ids)
    got = per_query[name][order]
    np.testing.assert_allclose(got, want, **TOL, err_msg=f"{name} {opts}")


# --- larger tie groups: every distinct arrangement of each group's items ----------------


def _distinct_arrangements(kinds):
    """Every distinct sequence of the multiset ``kinds`` (equally likely under a
    uniform ordering of its items: each stands for the same number of them)."""
    counts = {}
    for k in kinds:
        counts[k] = counts.get(k, 0) + 1
    keys = sorted(counts)

    def rec(left):
        if left == 0:
            yield ()
            return
        for key in keys:
            if counts[key]:
                counts[key] -= 1
                for rest in rec(left - 1):
                    yield (key, *rest)
                counts[key] += 1

    yield from rec(len(kinds))


def _arranged_mean(name, y, scores, *, max_docs=None, judged=None, **options):
    """The brute force over distinct arrangements: items that agree on every
    value the measure reads are interchangeable, so rows of 12-16 items stay
    cheap where the permutations of ``reference.orderings`` would not."""
    fn = ref.METRICS[name]
    kw = dict(options)
    if judged is not None:
        kw["judged"] = list(judged)
    levels = sorted(set(scores), reverse=True)
    per_group = []
    for lv in levels:
        idx = [i for i, sc in enumerate(scores) if sc == lv]
        kinds = [(y[i], True if judged is None else bool(judged[i])) for i in idx]
        pools = {}
        for i, kind in zip(idx, kinds):
            pools.setdefault(kind, []).append(i)
        seqs = []
        for seq in _distinct_arrangements(kinds):
            taken = {kind: iter(items) for kind, items in pools.items()}
            seqs.append([next(taken[kind]) for kind in seq])
        per_group.append(seqs)
    total, count = 0.0, 0
    for parts in itertools.product(*per_group):
        order = [i for part in parts for i in part]
        v = fn(list(y), order[:max_docs], **kw)
        if v is None:
            return np.nan
        total += v
        count += 1
    return total / count


LARGE_ROWS = [
    # (scores, relevance, unjudged items): an all-tied row of 11, groups of 6 and
    # 5 around a fixed item, two groups with many relevant items, a group of 10.
    ([1] * 11, [1, 0, 0, 2, 0, 0, 1, 0, 0, 0, 0], [0, 4]),
    ([3] * 6 + [2] + [1] * 5, [0, 1, 0, 0, 2, 0, 1, 1, 0, 0, 3, 0], [1, 9]),
    ([2] * 7 + [1] * 6, [1, 1, 1, 0, 1, 1, 0, 1, 0, 1, 0, 0, 1], [2, 8]),
    ([5, 4] + [3] * 10, [0, 2, 1, 0, 0, 1, 0, 0, 1, 0, 0, 2], [5, 6]),
]


@pytest.mark.parametrize("name", MEASURES)
@pytest.mark.parametrize("case", range(len(LARGE_ROWS)))
def test_larger_tie_groups_match_every_arrangement(name, case):
    s, y, unjudged = LARGE_ROWS[case]
    s, y = np.array(s), np.array(y)
    judged = np.ones(s.size, dtype=bool)
    judged[unjudged] = False
    for opts, mask in [({}, None), ({"max_docs": 5}, None), ({"max_docs": 8}, judged)]:
        if name == "iprec_at_recall":
            opts = {**opts, "recall": 0.5}
        got = _per_row(name, y[None], s[None], opts, judged=None if mask is None else mask[None])
        want = _arranged_mean(name, y.tolist(), s.tolist(), max_docs=opts.get("max_docs"),
                              judged=mask, **_ref_options(name, opts))
        np.testing.assert_allclose(got, [want], rtol=1e-10, atol=1e-12,
                                   err_msg=f"{name} {opts} judged={mask is not None}")


def test_interpolated_precision_of_one_large_tie_against_counted_paths():
    """An all-tied row of 40 items, 6 relevant: E[IP_c] from exact rational
    counts of the places of the relevant items (a plain loop over v)."""
    from fractions import Fraction

    m, r = 40, 6
    y = np.zeros(m, dtype=int)
    y[:r] = 1
    for level in (0.0, 0.3, 0.5, 1.0):
        c = max(math.floor(level * r + 0.5), 1)
        values = sorted({Fraction(t, t + z) for t in range(c, r + 1) for z in range(m - r + 1)})

        def paths_below(v, c=c):
            # Sequences z_1 <= .. <= z_r in [0, m - r] keeping t / (t + z_t) <= v, t >= c.
            ways = [1] + [0] * (m - r)  # ways[z]: prefixes whose last value is z
            for t in range(1, r + 1):
                acc, new = 0, []
                for z in range(m - r + 1):
                    acc += ways[z]
                    new.append(acc if t < c or Fraction(t, t + z) <= v else 0)
                ways = new
            return sum(ways)

        total = math.comb(m, r)
        expected, before = Fraction(0), 0
        for v in values:
            now = paths_below(v)
            expected += v * Fraction(now - before, total)
            before = now
        got = evaluate(y[None], np.zeros((1, m)), [("iprec_at_recall", {"recall": level})])
        assert got["iprec_at_recall"] == pytest.approx(float(expected), rel=1e-12, abs=1e-13)


@pytest.mark.parametrize("side", ["relevant", "other"])
@pytest.mark.parametrize("name", ["iprec_at_recall", "11pt_avg"])
def test_interpolated_precision_counted_over_either_side(name, side, monkeypatch):
    """The counts run over a group's relevant items or over the others,
    whichever are fewer; forced to one side they must agree with the brute
    force all the same."""
    monkeypatch.setattr(_kernels, "_IPREC_SIDE", side)
    for case in range(len(LARGE_ROWS)):
        test_larger_tie_groups_match_every_arrangement(name, case)
    rng = np.random.default_rng(3)
    for _ in range(40):
        n = int(rng.integers(2, 8))
        y = rng.integers(-1, 3, size=(3, n))
        s = rng.integers(0, 3, size=(3, n))
        judged = rng.random((3, n)) < 0.8
        opts = {"max_docs": int(rng.integers(1, 8))} if rng.random() < 0.5 else {}
        if name == "iprec_at_recall":
            opts["recall"] = float(rng.choice([0.0, 0.3, 0.5, 1.0]))
        got = _per_row(name, y, s, opts, judged=judged)
        want = [_brute(name, y[i], s[i], max_docs=opts.get("max_docs"), judged=judged[i],
                       **_ref_options(name, opts)) for i in range(3)]
        np.testing.assert_allclose(got, want, **TOL, err_msg=f"{name} {opts}")


def test_g_cut_by_max_docs_in_a_padded_block():
    """Long format, a cut-off below the longest query: a tied query of two items
    sits in a block padded to four (its padding ties past the cut)."""
    y = [0, 0, 0, 0, 0, 1, 1, 1]
    s = [0, 1, 1, 1, 0, 0, 0, 0]
    qid = np.repeat([0, 1, 2], [4, 2, 2])
    got = evaluate(y, s, [("g", {"max_docs": 3})], qid=qid, per_row=True, no_relevant=np.nan)
    want = [_brute("g", y[a:b], s[a:b], max_docs=3) for a, b in ((0, 4), (4, 6), (6, 8))]
    np.testing.assert_allclose(got["g"], want, **TOL)
    assert got["g"][1] == pytest.approx(0.8154648767857288)


def test_tie_groups_beyond_the_budget_raise_naming_the_way_out():
    """G and interpolated precision sum over the arrangements of a tie group's
    levels; a group too large for that is an error, never a slow surprise."""
    y = np.zeros((1, 1000))
    y[0, :100] = 1
    with pytest.raises(ValueError, match=r"11pt_avg: a tie group of 1000 items \(100 of "
                                         r"them relevant\).*ignore_ties=True"):
        evaluate(y, np.zeros((1, 1000)), ["11pt_avg"])
    y[0, 50:100] = 0  # 50 relevant of 1,000: within the budget
    got = evaluate(y, np.zeros((1, 1000)), ["11pt_avg", "iprec_at_recall@0.5"])
    assert 0.05 < got["iprec_at_recall@0.5"] < got["11pt_avg"] < 0.1
    levels = np.random.default_rng(0).integers(0, 4, (1, 100))
    with pytest.raises(ValueError, match=r"g: a tie group of 100 items with 4 distinct gains"):
        evaluate(levels, np.zeros((1, 100)), ["g"])
    # Breaking the ties is the way out.
    assert 0 < evaluate(levels, np.zeros((1, 100)), ["g"], ignore_ties=True)["g"] < 1


def test_interpolated_expectation_of_many_queries_carries_none_of_the_others():
    # The expected maximum of each query sums the logarithms of its own
    # factors only (segment_cumsum): a query's value in a call of 3,000 rows
    # equals, bit for bit, its value computed alone. (A running sum over
    # every query less its value before the query kept the others' rounding:
    # 1e-14 of the value here.)
    from unittest import mock

    rng = np.random.default_rng(1)
    yt = (rng.random((3000, 100)) < 0.1).astype(np.int8)
    ys = rng.integers(0, 10, (3000, 100))
    real = _kernels._expected_max
    calls = []

    def spy(*args):
        out = real(*args)
        calls.append((args, out))
        return out

    with mock.patch.object(_kernels, "_expected_max", spy):
        evaluate(yt, ys, ["11pt_avg"], per_row=True)
    assert calls
    checked = 0
    for (floor, f_q, f_run, run_off, v_bp, F, f_F, L), out in calls:
        for q in np.unique(f_q)[::25]:
            sel = np.flatnonzero(f_q == q)
            alone = real(floor[q:q + 1], np.zeros(sel.size, dtype=f_q.dtype), f_run[sel],
                         run_off, v_bp, F, f_F[sel], L)
            assert alone[0] == out[q]
            checked += 1
    assert checked > 100


@settings(max_examples=60, deadline=None)
@given(data=st.data(), L=st.sampled_from([1, 2, 7, 100, 1000, 46_000, 46_001]),
       last=st.booleans())
def test_order_by_fraction_is_the_lexicographic_order(data, L, last):
    # Precisions k / d (d at most L, ranks within a row of L items) keyed as
    # whole numbers sort as np.lexsort sorts them, ties kept in their order
    # (a stable sort), with a third key of bools or without; past the
    # keyed denominators (46,001) the lexicographic sort itself.
    from sk_rankmetrics._metrics.kernels.combinatorics import order_by_fraction

    rng = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1)))
    n = data.draw(st.integers(0, 3000))
    d = rng.integers(max(1, L - 3), L + 1, n) if data.draw(st.booleans()) else \
        rng.integers(1, L + 1, n)
    k = np.floor(rng.random(n) * (d + 1)).astype(np.int64)
    v = np.where(rng.random(n) < 0.1, 0.0, k / d)
    if n and data.draw(st.booleans()):  # the same fraction from other terms
        v[: n // 2] = (2 * k[: n // 2]) / (2 * d[: n // 2])
    if n and data.draw(st.booleans()):  # outside [0, 1]: the keys would overlap the group's
        v[rng.integers(0, n)] = data.draw(st.sampled_from([-0.5, 1.5, 3.0, -1e-9]))
    group = rng.integers(0, data.draw(st.sampled_from([1, 5, 10_000])), n)
    flag = rng.random(n) < 0.5
    got = order_by_fraction(group, v, L, last=flag if last else None)
    want = np.lexsort((flag, v, group) if last else (v, group))
    np.testing.assert_array_equal(got, want)


@settings(max_examples=60, deadline=None)
@given(data=st.data(), n_levels=st.integers(1, 12))
def test_distinct_cuts_name_each_level_s_cut_once_a_row(data, n_levels):
    # The levels' recall cuts rise with the level in every row; given in any
    # order, each row's distinct cuts are one query each (sorted by row,
    # then cut), and each level reads back its own cut in every row.
    from sk_rankmetrics._metrics.kernels.interpolated import _distinct_cuts

    rng = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1)))
    n_rows = data.draw(st.integers(1, 300))
    R = rng.integers(0, 40, n_rows)
    levels = np.sort(rng.random(n_levels))
    cuts = [np.maximum(np.floor(level * R + 0.5), 1.0) for level in levels]
    order = rng.permutation(n_levels)
    given = [cuts[i] for i in order]
    q_row, q_c, q_of = _distinct_cuts(given)
    keys = q_row * 100 + q_c
    assert (np.diff(keys) > 0).all()  # distinct, sorted by row then cut
    for i, want in enumerate(given):
        np.testing.assert_array_equal(q_row[q_of[i]], np.arange(n_rows))
        np.testing.assert_array_equal(q_c[q_of[i]], want)
    per_row = np.bincount(q_row, minlength=n_rows)
    np.testing.assert_array_equal(per_row, [len(set(c[r] for c in cuts))
                                            for r in range(n_rows)])
