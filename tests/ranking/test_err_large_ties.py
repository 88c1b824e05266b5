"""ERR over large tie groups against a slow, obviously correct reference.

ERR's tie expectation skips the tie groups the user reaches with a share of
the value below rounding and the subset means past the column where they fall
below it (``_err_kept_groups``). The small rows of
``tests/ranking/test_full_depth_kernels.py`` never reach either cut, so here
rows of up to 300 items in a few tie groups, with dense graded relevance (the
case the cuts are for), are checked against the expectation written from its
definition: ``Q[t] = e_t(y) / C(m, t)`` (the elementary symmetric polynomials
of the group's ``1 - R``, from the polynomial ``prod (1 + y x)``, a different
route from the kernel's growing pool), every group and every position kept.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import sk_rankmetrics as skr

SETTINGS = settings(max_examples=40, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow])

SCORE_DTYPES = ["float64", "float32", "float16", "int8", "int16", "int32", "int64",
                "uint8", "bool"]


def err_reference(rel, score, max_grade, k=None):
    """ERR (at k) from its definition, every tie group and position kept."""
    stop = (2.0 ** np.asarray(rel, dtype=np.float64) - 1.0) / 2.0**max_grade
    values = np.asarray(score, dtype=np.float64)
    n = len(rel) if k is None else min(k, len(rel))
    total, reach, start = 0.0, 1.0, 0
    for s in sorted(set(values.tolist()), reverse=True):
        if start >= n:
            break
        ys = 1.0 - stop[values == s]
        m = len(ys)
        poly = np.array([1.0])
        for yi in ys:  # prod (1 + y x): its coefficients are e_0..e_m
            poly = np.convolve(poly, [1.0, yi])
        Q = [poly[t] / math.comb(m, t) for t in range(m + 1)]
        for j in range(1, min(m, n - start) + 1):
            total += reach * (Q[j - 1] - Q[j]) / (start + j)
        reach *= Q[m]
        start += m
    return total


@SETTINGS
@given(st.data())
def test_err_large_tie_groups_match_definition(data):
    n = data.draw(st.integers(30, 300))
    levels = data.draw(st.integers(1, 6))
    dtype = data.draw(st.sampled_from(SCORE_DTYPES))
    dense = data.draw(st.sampled_from([0.02, 0.3, 0.8, 1.0]))
    seed = data.draw(st.integers(0, 2**32 - 1))
    k = data.draw(st.sampled_from([None, 5, 50, 1000]))
    rng = np.random.default_rng(seed)
    rel = np.where(rng.random(n) < dense, rng.integers(1, 5, n), 0)
    score = rng.integers(0, levels, n)
    if dtype == "bool":
        score = score % 2
    score = score.astype(dtype)
    name = "err" if k is None else f"err@{k}"
    got = skr.evaluate(rel[None], score[None], [(name, {"max_grade": 4, "normalize": False})],
                       per_row=True, no_relevant=0.0)
    value = next(iter(got.values()))[0]
    assert value == pytest.approx(err_reference(rel, score, 4, k), rel=1e-12, abs=1e-15)


@pytest.mark.parametrize("dtype", ["float64", "float32", "int64"])
def test_err_ties_in_many_rows_match_definition(dtype):
    # Many rows in one call (several chunks' worth of tied groups at once),
    # each row against the definition.
    rng = np.random.default_rng(7)
    rel = rng.integers(0, 5, (200, 150))
    score = rng.integers(0, 4, (200, 150)).astype(dtype)
    score[::3] = rng.random((67, 150)).astype(dtype)  # some rows nearly untied
    rel[5] = 0  # a row without a relevant item
    got = skr.evaluate(rel, score, [("err", {"max_grade": 4, "normalize": False})],
                       per_row=True, no_relevant=0.0)
    values = next(iter(got.values()))
    ref = [err_reference(rel[i], score[i], 4) for i in range(rel.shape[0])]
    np.testing.assert_allclose(values, ref, rtol=1e-12, atol=1e-15)


def test_err_extreme_scores_tie_as_equal_values():
    # Huge and tiny scores, and -0.0 tied with 0.0; infinity is refused.
    rel = np.array([3, 0, 4, 1, 2, 4, 0, 1, 2, 3] * 4)
    base = np.array([1e308, -1e308, 1e308, 5e-324, -0.0, 0.0, 1.0, -1e308, 0.0, -0.0])
    score = np.tile(base, 4)
    got = skr.evaluate(rel[None], score[None], [("err", {"max_grade": 4, "normalize": False})],
                       per_row=True, no_relevant=0.0)
    value = next(iter(got.values()))[0]
    assert value == pytest.approx(err_reference(rel, score, 4), rel=1e-12)
    with pytest.raises(ValueError, match="y_score contains NaN or infinity"):
        skr.evaluate(rel[None], np.where(score == 1.0, np.inf, score)[None], ["err"])


@pytest.mark.parametrize("case", ["shared", "distinct", "wide"])
def test_err_groups_sharing_a_composition(case, monkeypatch):
    # Tied groups of one size and grade counts share their subset means (made
    # once per composition): many rows of a few compositions, rows whose
    # compositions are mostly their own, and so many grades that one number
    # per composition would overflow (the compositions are then compared
    # whole). Each row against the definition, and the way taken checked.
    from sk_rankmetrics._metrics.kernels import user_models

    seen = []
    compositions = user_models._compositions

    def spy(size, counts):
        comp, first = compositions(size, counts)
        radix = np.column_stack([size, counts]).max(axis=0) + 1
        seen.append((size.shape[0], first.shape[0], counts.shape[1],
                     math.prod(int(r) for r in radix) >= 2**62))
        return comp, first

    monkeypatch.setattr(user_models, "_compositions", spy)
    rng = np.random.default_rng({"shared": 1, "distinct": 2, "wide": 3}[case])
    top = {"shared": 1, "distinct": 6, "wide": 40}[case]
    if case == "shared":  # binary relevance on 2 %, groups of about 30
        rel = (rng.random((400, 120)) < 0.02).astype(np.int64)
        score = rng.integers(0, 4, (400, 120))
    else:  # every grade, groups of uneven size
        rel = rng.integers(0, top + 1, (60, 200))
        score = np.minimum(rng.geometric(0.15, (60, 200)), 12)
    got = skr.evaluate(rel, score, [("err", {"max_grade": top, "normalize": False})],
                       per_row=True, no_relevant=0.0)
    values = next(iter(got.values()))
    ref = [err_reference(rel[i], score[i], top) for i in range(rel.shape[0])]
    np.testing.assert_allclose(values, ref, rtol=1e-12, atol=1e-15)
    groups = sum(s[0] for s in seen)
    distinct = sum(s[1] for s in seen)
    assert seen and all(s[2] == top for s in seen)
    assert all(s[3] for s in seen) == (case == "wide")  # compared whole
    if case == "shared":
        assert distinct * 4 < groups
    else:
        assert distinct * 4 >= groups * 3


def test_compositions_number_equal_groups_alike_on_both_ways():
    # The one-number key (made in float64 below 2**53, in int64 up to 2**62)
    # and the whole-row comparison (when the key would overflow) number the
    # same groups alike.
    from sk_rankmetrics._metrics.kernels.user_models import _compositions

    rng = np.random.default_rng(5)
    size = rng.integers(1, 4, 500)
    counts = rng.integers(0, 3, (500, 3)).astype(np.float64)
    # 40 more columns of 0..3 (at least 4**39 numbers): compared whole.
    wide = np.hstack([counts, rng.integers(0, 4, (500, 40)) * (size[:, None] == 1)])
    # 24 more (4 * 27 * 4**24, about 2**54.8): the int64 key.
    middle = np.hstack([counts, rng.integers(0, 4, (500, 24)) * (size[:, None] == 1)])
    for c in (counts, middle, wide):
        comp, first = _compositions(size, c)
        parts = np.column_stack([size, c])
        np.testing.assert_array_equal(parts[first[comp]], parts)  # each names its own
        assert np.unique(parts, axis=0).shape[0] == first.shape[0]  # one number each
