"""Kernels made down the positions of many rows (transposed, vectors over
the rows) against the reference formulas of ``tests/reference.py``:
``ndcg_rel`` of untied chunks (``gain_curves._ndcg_rel_down``) with dense
gains, padding (``exclude``, long format of uneven lengths), rows without a
positive gain and the exponential gain; and the same values as the rows
read along their positions (the route of a few rows) to rounding."""

from __future__ import annotations

import numpy as np
import pytest
import reference as ref

from sk_rankmetrics import evaluate
from sk_rankmetrics._metrics.kernels import gain_curves

TOL = dict(rtol=1e-12, atol=1e-14)


@pytest.fixture
def down(monkeypatch):
    """Count the chunks made down their positions."""
    taken = []
    real = gain_curves._ndcg_rel_down
    monkeypatch.setattr(gain_curves, "_ndcg_rel_down",
                        lambda *a: taken.append(a[0].n_rows) or real(*a))
    monkeypatch.setattr(gain_curves, "_CELLS_DOWN", 40 * 37)  # several pieces a block
    return taken


def _rows(y, s, gain, exclude=None):
    out = []
    for r in range(y.shape[0]):
        keep = np.ones(y.shape[1], dtype=bool) if exclude is None else ~exclude[r]
        yi, si = y[r][keep], s[r][keep]
        v = ref.ndcg_rel(list(yi), list(np.argsort(-si, kind="stable")), gain=gain)
        out.append(0.0 if v is None else v)
    return np.array(out)


@pytest.mark.parametrize("gain", ["linear", "exponential"])
@pytest.mark.parametrize("layout", ["matrix", "exclude", "long"])
def test_ndcg_rel_down_matches_reference(gain, layout, down):
    rng = np.random.default_rng({"matrix": 1, "exclude": 2, "long": 3}[layout])
    n, N = 300, 37
    y = np.where(rng.random((n, N)) < 0.7, rng.integers(0, 5, (n, N)), 0)
    y[::11] = 0  # rows without a positive gain
    s = rng.random((n, N))
    opts = [("ndcg_rel", {"gain": gain})]
    if layout == "long":
        lens = rng.integers(5, N + 1, n)
        got = evaluate(np.concatenate([y[r, :k] for r, k in enumerate(lens)]),
                       np.concatenate([s[r, :k] for r, k in enumerate(lens)]), opts,
                       qid=np.repeat(np.arange(n), lens), per_row=True,
                       no_relevant=0.0)["ndcg_rel"]
        exclude = np.arange(N) >= lens[:, None]
    else:
        exclude = (rng.random((n, N)) < 0.2) & (y == 0) if layout == "exclude" else None
        got = evaluate(y, s, opts, per_row=True, no_relevant=0.0,
                       exclude=exclude)["ndcg_rel"]
    np.testing.assert_allclose(got, _rows(y, s, gain, exclude), **TOL)
    assert sum(down) >= n // 2  # most rows made down their positions


def test_ndcg_rel_down_equals_the_rows_read_along(monkeypatch):
    rng = np.random.default_rng(9)
    y = rng.integers(0, 5, (600, 50))
    s = rng.random((600, 50))
    down = evaluate(y, s, ["ndcg_rel"], per_row=True)["ndcg_rel"]
    monkeypatch.setattr(gain_curves, "many_rows", lambda shape: False)
    along = evaluate(y, s, ["ndcg_rel"], per_row=True)["ndcg_rel"]
    np.testing.assert_allclose(down, along, rtol=1e-14, atol=0)
