"""cohen_kappa, fleiss_kappa and krippendorff_alpha: the numbers of scikit-learn,
statsmodels and the krippendorff package, per query too, and the bootstrap."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import sk_rankmetrics as skr
from sk_rankmetrics import (
    AgreementResult,
    InvalidParameterError,
    TrecQrels,
    cohen_kappa,
    fleiss_kappa,
    krippendorff_alpha,
)

sklearn_metrics = pytest.importorskip("sklearn.metrics")
inter_rater = pytest.importorskip("statsmodels.stats.inter_rater")
krippendorff = pytest.importorskip("krippendorff")

#: Judgements of several assessors: (assessor, query, document) -> level or
#: missing, on 3 queries of 6 documents.
PAIRS = [(q, d) for q in ("q1", "q2", "q3") for d in range(6)]


@st.composite
def assessors(draw, m, p_missing=0.3, levels=4):
    """``m`` qrels as {query: {doc: level}}, each pair judged with some probability."""
    grid = draw(st.lists(st.lists(st.one_of(st.none(), st.integers(0, levels - 1)),
                                  min_size=len(PAIRS), max_size=len(PAIRS)),
                         min_size=m, max_size=m))
    out = []
    for row in grid:
        q = {}
        for (query, doc), level in zip(PAIRS, row):
            if level is not None and draw(st.floats(0, 1)) >= p_missing:
                q.setdefault(query, {})[f"d{doc}"] = level
        out.append(q)
    return out


def _matrix(qrels_list):
    """Assessors x pairs, NaN where not judged (the krippendorff package's layout)."""
    M = np.full((len(qrels_list), len(PAIRS)), np.nan)
    for k, q in enumerate(qrels_list):
        for j, (query, doc) in enumerate(PAIRS):
            if f"d{doc}" in q.get(query, {}):
                M[k, j] = q[query][f"d{doc}"]
    return M


def _quiet(fn, *args, **kw):
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fn(*args, **kw)


def _empty(qrels, call):
    """An assessor with no judgement at all is refused (a wrong file, most likely)."""
    if all(qrels):
        return False
    with pytest.raises(ValueError, match=r"qrels(\[\d\]|_a|_b) holds no judgement"):
        call()
    return True


def _same(got, expected):
    if np.isnan(expected):
        return np.isnan(got)
    return got == pytest.approx(expected, abs=1e-12)


@settings(max_examples=150, deadline=None)
@given(assessors(2), st.sampled_from([None, "linear", "quadratic"]))
def test_cohen_kappa_is_scikit_learns(pair, weights):
    if _empty(pair, lambda: cohen_kappa(*pair, n_resamples=100)):
        return
    M = _matrix(pair)
    both = ~np.isnan(M).any(axis=0)
    if not both.any():
        with pytest.raises(ValueError, match=r"no \(query, document\) pair is judged"):
            cohen_kappa(*pair, n_resamples=100, random_state=0)
        return
    a, b = M[0, both], M[1, both]
    expected = _quiet(sklearn_metrics.cohen_kappa_score, a, b, weights=weights)
    res = _quiet(cohen_kappa, *pair, weights=weights, n_resamples=100, random_state=0)
    assert _same(float(res), expected)
    assert res.n_pairs_total == int(both.sum())
    # Each query: the same, with the overall levels as labels (the same weights).
    labels = np.unique(np.concatenate((a, b)))
    queries = np.array([q for q, _ in PAIRS])
    for query, value, n in zip(res.query_ids, res.per_query, res.n_pairs):
        sel = both & (queries == query)
        assert n == int(sel.sum())
        assert _same(value, _quiet(sklearn_metrics.cohen_kappa_score, M[0, sel], M[1, sel],
                                   labels=labels, weights=weights))


@pytest.mark.parametrize("weights", [None, "linear", "quadratic"])
def test_cohen_kappa_with_labels(weights):
    a = {"q1": {"d1": 0, "d2": 3, "d3": 1}, "q2": {"d4": 3, "d5": 0}}
    b = {"q1": {"d1": 1, "d2": 3, "d3": 1}, "q2": {"d4": 0, "d5": 0}}
    scale = [0, 1, 2, 3]  # grade 2 unused: the weights still see it
    expected = sklearn_metrics.cohen_kappa_score([0, 3, 1, 3, 0], [1, 3, 1, 0, 0],
                                                 labels=scale, weights=weights)
    assert float(cohen_kappa(a, b, weights=weights, labels=scale)) == pytest.approx(
        expected, abs=1e-14)
    reversed_scale = scale[::-1]  # the order given indexes the matrix
    expected = sklearn_metrics.cohen_kappa_score([0, 3, 1, 3, 0], [1, 3, 1, 0, 0],
                                                 labels=reversed_scale, weights=weights)
    assert float(cohen_kappa(a, b, weights=weights, labels=reversed_scale)) == pytest.approx(
        expected, abs=1e-14)
    with pytest.raises(ValueError, match=r"cohen_kappa: the level 3 is not in labels=\[0, 1, "
                                         r"2\]; give every level the assessors use"):
        cohen_kappa(a, b, labels=[0, 1, 2])


@settings(max_examples=150, deadline=None)
@given(st.integers(2, 5).flatmap(lambda m: assessors(m, p_missing=0.15, levels=3)))
def test_fleiss_kappa_is_statsmodels(qrels):
    if _empty(qrels, lambda: fleiss_kappa(qrels, n_resamples=100)):
        return
    M = _matrix(qrels)
    full = ~np.isnan(M).any(axis=0)
    if not full.any():
        with pytest.raises(ValueError, match=r"no \(query, document\) pair is judged"):
            fleiss_kappa(qrels, n_resamples=100, random_state=0)
        return
    values = np.unique(M[~np.isnan(M)])
    table = (M[:, full].T[:, :, None] == values[None, None, :]).sum(axis=1)
    expected = _quiet(inter_rater.fleiss_kappa, table)
    res = _quiet(fleiss_kappa, qrels, n_resamples=100, random_state=0)
    assert _same(float(res), expected)
    queries = np.array([q for q, _ in PAIRS])
    for query, value in zip(res.query_ids, res.per_query):
        sel = full & (queries == query)
        t = (M[:, sel].T[:, :, None] == values[None, None, :]).sum(axis=1)
        assert _same(value, _quiet(inter_rater.fleiss_kappa, t))


@settings(max_examples=150, deadline=None)
@given(st.integers(2, 4).flatmap(lambda m: assessors(m, p_missing=0.35)),
       st.sampled_from(["nominal", "ordinal", "interval", "ratio"]))
def test_krippendorff_alpha_is_the_krippendorff_package(qrels, level):
    if _empty(qrels, lambda: krippendorff_alpha(qrels, n_resamples=100)):
        return
    M = _matrix(qrels)
    pairable = (~np.isnan(M)).sum(axis=0) >= 2
    if not pairable.any():
        with pytest.raises(ValueError, match=r"no \(query, document\) pair is judged"):
            krippendorff_alpha(qrels, level=level, n_resamples=100, random_state=0)
        return
    try:
        expected = _quiet(krippendorff.alpha, M, level_of_measurement=level)
    except ValueError:  # one value in the whole domain: the package refuses
        expected = np.nan
    res = _quiet(krippendorff_alpha, qrels, level=level, n_resamples=100, random_state=0)
    assert _same(float(res), expected)
    assert res.n_pairs_total == int(pairable.sum())
    domain = np.unique(M[~np.isnan(M)])
    queries = np.array([q for q, _ in PAIRS])
    for query, value in zip(res.query_ids, res.per_query):
        sel = queries == query
        try:
            e = _quiet(krippendorff.alpha, M[:, sel], value_domain=domain,
                       level_of_measurement=level)
        except ValueError:
            e = np.nan
        assert _same(value, e)


def test_the_krippendorff_package_example():
    # The reliability data of its docstring (Krippendorff's own example), one
    # unit per column, read as qrels of one query.
    nan = np.nan
    data = [[nan, nan, nan, nan, nan, 3, 4, 1, 2, 1, 1, 3, 3, nan, 3],
            [1, nan, 2, 1, 3, 3, 4, 3, nan, nan, nan, nan, nan, nan, nan],
            [nan, nan, 2, 1, 3, 4, 4, nan, 2, 1, 1, 3, 3, nan, 4]]
    qrels = [{"q": {f"u{j}": v for j, v in enumerate(row) if not np.isnan(v)}} for row in data]
    assert round(float(krippendorff_alpha(qrels, level="nominal", n_resamples=100,
                                          random_state=0)), 6) == 0.691358
    assert round(float(krippendorff_alpha(qrels, level="interval", n_resamples=100,
                                          random_state=0)), 6) == 0.810845


def test_the_interval_is_scipys_bca_bootstrap_over_queries():
    scipy_stats = pytest.importorskip("scipy.stats")
    rng = np.random.default_rng(5)
    a, b, rows = {}, {}, []
    for q in range(12):
        for d in range(8):
            la = int(rng.integers(0, 3))
            lb = la if rng.random() < 0.7 else int(rng.integers(0, 3))
            a.setdefault(f"q{q:02d}", {})[f"d{d}"] = la
            b.setdefault(f"q{q:02d}", {})[f"d{d}"] = lb
            rows.append((q, la, lb))
    rows = np.array(rows)

    def statistic(queries):
        sel = np.concatenate([np.flatnonzero(rows[:, 0] == q) for q in queries])
        return sklearn_metrics.cohen_kappa_score(rows[sel, 1], rows[sel, 2],
                                                 weights="quadratic")

    expected = scipy_stats.bootstrap((np.arange(12),), statistic, vectorized=False,
                                     n_resamples=2000, method="BCa",
                                     random_state=np.random.default_rng(3)).confidence_interval
    res = cohen_kappa(a, b, weights="quadratic", n_resamples=2000, random_state=3)
    assert res.interval == pytest.approx((expected.low, expected.high), abs=1e-12)
    assert res.interval[0] <= float(res) <= res.interval[1]


def test_the_same_seed_gives_the_same_interval():
    a = {f"q{i}": {"d1": i % 3, "d2": 1, "d3": 0} for i in range(8)}
    b = {f"q{i}": {"d1": (i + 1) % 3, "d2": 1, "d3": 0} for i in range(8)}
    one = krippendorff_alpha([a, b], random_state=1)
    assert krippendorff_alpha([a, b], random_state=1).interval == one.interval


def test_every_form_of_qrels_gives_the_same(tmp_path):
    pd = pytest.importorskip("pandas")
    a = {"q1": {"d1": 2, "d2": 0, "d3": 1}, "q2": {"d4": 1, "d5": 0}}
    b = {"q1": {"d1": 1, "d2": 0, "d3": 1}, "q2": {"d4": 1, "d5": 1}}
    expected = float(cohen_kappa(a, b, n_resamples=100, random_state=0))
    rows = [(q, d, v) for q, docs in a.items() for d, v in docs.items()]
    q, d, v = (np.array(c) for c in zip(*rows))
    path = tmp_path / "a.qrels"
    path.write_text("".join(f"{x} 0 {y} {z}\n" for x, y, z in rows))
    frame = pd.DataFrame({"qid": q, "docno": d, "rel": v})
    for form in (TrecQrels(q, d, v.astype(float)), str(path), path, frame, (q, d, v)):
        assert float(cohen_kappa(form, b, n_resamples=100, random_state=0)) == expected


def test_notes_and_undefined_values():
    a = {"q1": {"d1": 1, "d2": 0, "d3": 1}, "q2": {"d4": 1, "d5": 1}}
    b = {"q1": {"d1": 1, "d2": 1, "d9": 0}, "q2": {"d4": 1, "d5": 1}}
    res = cohen_kappa(a, b, n_resamples=100, random_state=0)
    assert res.notes[0] == ("2 of 6 (query, document) pairs were left out: judged by too "
                            "few assessors.")
    assert np.isnan(res.per_query[1])  # q2: one level only
    assert any("1 query where the coefficient is undefined" in n for n in res.notes)
    with pytest.warns(UserWarning, match=r"cohen_kappa is undefined \(NaN\)"):
        assert np.isnan(float(cohen_kappa({"q": {"a": 1, "b": 1}}, {"q": {"a": 1, "b": 1}},
                                          n_resamples=100)))
    one = cohen_kappa({"q": {"a": 1, "b": 0}}, {"q": {"a": 1, "b": 0}}, n_resamples=100)
    assert float(one) == 1.0 and np.isnan(one.interval[0])
    assert "one query only" in one.notes[-1]
    assert repr(res).startswith("AgreementResult(cohen_kappa=0.0000, 95% CI")


@pytest.mark.parametrize(("call", "message"), [
    (lambda: cohen_kappa({"q": {"a": 1}}, {"q": {"b": 1}}),
     r"cohen_kappa: no \(query, document\) pair is judged by the assessors it needs"),
    (lambda: cohen_kappa({"q": {"a": 1}}, {1: {"a": 1}}),
     r"integer query ids in some and string ids in others"),
    (lambda: cohen_kappa((["q", "q"], ["a", "a"], [1, 0]), {"q": {"a": 1}}),
     r"qrels_a judges document 'a' twice for query 'q'"),
    (lambda: cohen_kappa({"q": {"a": float("nan")}}, {"q": {"a": 1}}),
     r"qrels_a: every level must be a finite number"),
    (lambda: cohen_kappa([1, 2], {"q": {"a": 1}}), r"qrels_a must be qrels: .* got list"),
    (lambda: fleiss_kappa({"q": {"a": 1}}), r"fleiss_kappa takes a list of qrels"),
    (lambda: krippendorff_alpha([{"q": {"a": 1}}]), r"needs the qrels of at least two"),
    (lambda: cohen_kappa({"q": {"a": 1}}, {"q": {"a": 1}}, weights="cubic"),
     r"cohen_kappa: weights='cubic' is not accepted"),
    (lambda: krippendorff_alpha([{"q": {"a": 1}}] * 2, level="rank"),
     r"krippendorff_alpha: level='rank' is not accepted"),
    (lambda: cohen_kappa({"q": {"a": 1}}, {"q": {"a": 1}}, labels=[0, 1, 1]),
     r"labels=\[0, 1, 1\] names a level twice"),
])
def test_bad_input_is_named(call, message):
    with pytest.raises((ValueError, TypeError), match=message):
        call()


def test_exported():
    for name in ("AgreementResult", "cohen_kappa", "fleiss_kappa", "krippendorff_alpha"):
        assert name in skr.__all__
    assert isinstance(cohen_kappa({"q": {"a": 1, "b": 0}}, {"q": {"a": 1, "b": 0}},
                                  n_resamples=100), AgreementResult)
    with pytest.raises(InvalidParameterError):
        fleiss_kappa([{"q": {"a": 1}}] * 2, n_resamples=5)
