"""cwl_eval's NERR measures without the padding made (``_with_padded_tail``).

cwl_eval scores rankings of 1,000 positions, padding a shorter one with items
of gain 0. NERR8-11 make only the ranked positions and add the padding's
reach in closed form; their values must be the reference's (the padded
ranking position by position) to rounding: rows shorter and longer than the
depth, cut-offs before, inside and past the ranking, and the depth itself.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from reference import nerr8, nerr9, nerr10, nerr11

import sk_rankmetrics as skr

_REF = {"nerr8": nerr8, "nerr9": nerr9, "nerr10": nerr10, "nerr11": nerr11}


def _check(y, s, names):
    got = skr.evaluate(y, s, names, per_row=True, no_relevant=0.0)
    for name in names:
        base, _, k = name.partition("@")
        for r in range(y.shape[0]):
            order = np.argsort(-s[r], kind="stable")
            args = (int(k),) if k else ()
            want = _REF[base](y[r], order, *args) or 0.0
            assert got[name][r] == pytest.approx(want, rel=1e-13, abs=1e-15), (name, r)


@settings(max_examples=40, deadline=None)
@given(N=st.integers(2, 60), share=st.sampled_from([0.0, 0.1, 0.5, 1.0]),
       k=st.integers(1, 70), seed=st.integers(0, 2**32 - 1))
def test_short_rows_equal_the_padded_reference(N, share, k, seed):
    rng = np.random.default_rng(seed)
    y = np.where(rng.random((3, N)) < share, rng.integers(0, 5, (3, N)), 0)
    s = rng.random((3, N))
    _check(y, s, ["nerr8", "nerr9", "nerr10", "nerr11", f"nerr8@{k}", f"nerr9@{k}"])


@pytest.mark.parametrize("N", [999, 1000, 1001, 1300])
def test_rows_about_the_depth(N):
    # Rows one short of the depth (one padded position), at it (none), and
    # past it (cut there); cut-offs at, before and past the depth.
    rng = np.random.default_rng(N)
    y = np.where(rng.random((2, N)) < 0.2, rng.integers(1, 5, (2, N)), 0)
    s = rng.random((2, N))
    _check(y, s, ["nerr8", "nerr9", "nerr10", "nerr11", "nerr9@998", "nerr9@1000",
                  "nerr8@1001"])


@pytest.mark.parametrize("T", [0.25, 1.0, 3.0])
@pytest.mark.parametrize(("N", "n"), [(2, 40), (37, 40), (37, 300), (999, 4), (1000, 4),
                                      (1150, 4)])
def test_inst_padding_in_closed_form(T, N, n, monkeypatch):
    # INST's padded positions: the telescoping product and the trigamma sum
    # against the padded ranking position by position, for patience T and
    # rows shorter than, at and past the depth, gains on a scale to 3; rows
    # made along the positions (40 rows of 37) and down them (rows of 2, and
    # 300 rows of 37: many rows). Some rows hold the top gain everywhere, so
    # that the trigamma's argument 2T + L - S is small (the recurrence
    # below the series).
    from reference import inst

    from sk_rankmetrics._metrics.kernels import cwl

    routes = []
    for name in ("_inst_rows", "_inst_down"):
        fn = getattr(cwl, name)
        monkeypatch.setattr(cwl, name, lambda *a, fn=fn, name=name: routes.append(name) or fn(*a))
    rng = np.random.default_rng(int(N * 10 + T * 4 + n))
    y = np.where(rng.random((n, N)) < 0.4, rng.integers(0, 4, (n, N)), 0)
    y[::7] = 3
    s = rng.random((n, N))
    got = skr.evaluate(y, s, [f"INST(T={T},max_rel=3)"], per_row=True, no_relevant=0.0)
    values = next(iter(got.values()))
    for r in range(n):
        want = inst(y[r], np.argsort(-s[r], kind="stable"), T=T, max_rel=3) or 0.0
        assert values[r] == pytest.approx(want, rel=1e-13, abs=1e-15)
    assert set(routes) == {"_inst_down" if N == 2 or n == 300 else "_inst_rows"}
