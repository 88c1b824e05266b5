"""Kernels made down the positions of many rows (transposed, vectors over
the rows) against the reference formulas of ``tests/reference.py``:
``ndcg_rel``, G and Rndcg of untied chunks (``gain_down._ndcg_rel_down``,
``gain_g._g_down``, ``gain_down._dcg_at_down``) with dense gains,
padding (``exclude``, long format of uneven lengths), rows without a
positive gain, the exponential gain and a mapping of a negative level; and
the same values as the rows read along their positions (the route of a few
rows) to rounding."""

from __future__ import annotations

import numpy as np
import pytest
import reference as ref

from sk_rankmetrics import evaluate
from sk_rankmetrics._metrics.kernels import gain_curves, gain_down, gain_g

TOL = dict(rtol=1e-12, atol=1e-14)


KERNELS = {"ndcg_rel": "_ndcg_rel_down", "g": "_g_down", "rndcg": "_dcg_at_down"}
MODULES = {"_ndcg_rel_down": gain_curves, "_g_down": gain_g, "_dcg_at_down": gain_curves}
NEG_GAINS = {-1: 0.0, 0: 0.0, 1: 1.0, 2: 3.0, 3: 7.0, 4: 15.0}  # a negative level
FRACTIONS = {0: 0.0, 1: 0.5, 2: 1.25, 3: 2.5, 4: 3.75}  # G's logarithms made, not read


@pytest.fixture
def down(monkeypatch):
    """Count the rows of the chunks made down their positions."""
    taken = []
    for name in KERNELS.values():
        real = getattr(MODULES[name], name)
        monkeypatch.setattr(MODULES[name], name, lambda *a, real=real, **k: taken.append(
            a[0].shape[0] if isinstance(a[0], np.ndarray) else a[0].n_rows) or real(*a, **k))
    for module in (gain_curves, gain_down, gain_g):  # several pieces a block
        monkeypatch.setattr(module, "_CELLS_DOWN", 40 * 37)
    return taken


def _rows(name, y, s, gain, exclude=None):
    out = []
    for r in range(y.shape[0]):
        keep = np.ones(y.shape[1], dtype=bool) if exclude is None else ~exclude[r]
        yi, si = y[r][keep], s[r][keep]
        v = ref.METRICS[name](list(yi), list(np.argsort(-si, kind="stable")), gain=gain)
        out.append(0.0 if v is None else v)
    return np.array(out)


@pytest.mark.parametrize("name", list(KERNELS))
@pytest.mark.parametrize("gain", ["linear", "exponential", "negative", "fractions"])
@pytest.mark.parametrize("layout", ["matrix", "exclude", "long"])
def test_down_matches_reference(name, gain, layout, down):
    rng = np.random.default_rng({"matrix": 1, "exclude": 2, "long": 3}[layout])
    n, N = 300, 37
    y = np.where(rng.random((n, N)) < 0.7, rng.integers(0, 5, (n, N)), 0)
    y[::11] = 0  # rows without a positive gain
    if gain == "negative":
        gain = NEG_GAINS
        y[::3] = np.where(y[::3] == 1, -1, y[::3])
    if gain == "fractions":
        gain = FRACTIONS
    s = rng.random((n, N))
    opts = [(name, {"gain": gain})]
    if layout == "long":
        lens = rng.integers(5, N + 1, n)
        got = evaluate(np.concatenate([y[r, :k] for r, k in enumerate(lens)]),
                       np.concatenate([s[r, :k] for r, k in enumerate(lens)]), opts,
                       qid=np.repeat(np.arange(n), lens), per_row=True,
                       no_relevant=0.0)[name]
        exclude = np.arange(N) >= lens[:, None]
    else:
        exclude = (rng.random((n, N)) < 0.2) & (y == 0) if layout == "exclude" else None
        got = evaluate(y, s, opts, per_row=True, no_relevant=0.0,
                       exclude=exclude)[name]
    np.testing.assert_allclose(got, _rows(name, y, s, gain, exclude), **TOL)
    assert sum(down) >= n // 2  # most rows made down their positions


@pytest.mark.parametrize("name", list(KERNELS))
@pytest.mark.parametrize("scores", ["float", "int"])
def test_down_equals_the_rows_read_along(name, scores, monkeypatch):
    # Integer scores: whole rows of tie groups, whose ndcg_rel reads running
    # sums of the ideal's weights made down the positions (the same additions:
    # bit for bit); and against the brute force over the tie orderings.
    rng = np.random.default_rng(9)
    y = rng.integers(0, 5, (600, 50))
    s = rng.random((600, 50)) if scores == "float" else rng.integers(0, 6, (600, 50))
    down = evaluate(y, s, [name], per_row=True)[name]
    small = evaluate(y[:300, :8], s[:300, :8], [name], per_row=True, no_relevant=0.0)[name]
    for module in (gain_curves, gain_g):
        monkeypatch.setattr(module, "many_rows", lambda shape: False)
    along = evaluate(y, s, [name], per_row=True)[name]
    if scores == "float":
        np.testing.assert_allclose(down, along, rtol=1e-14, atol=0)
        return
    np.testing.assert_array_equal(down, along)
    want = [ref.brute_force(name, y[r, :8], s[r, :8]) or 0.0 for r in range(0, 300, 25)]
    np.testing.assert_allclose(small[::25], want, **TOL)


def test_g_logarithms_read_off_a_table_are_the_same(monkeypatch):
    # Whole gains make G's logarithm's arguments whole: read off a table of
    # log2, the values are those NumPy's logarithm gives, bit for bit.
    rng = np.random.default_rng(12)
    y = rng.integers(0, 5, (700, 60))
    s = rng.random((700, 60))
    opts = [("g", {"gain": "exponential"})]
    table = evaluate(y, s, opts, per_row=True)["g"]
    monkeypatch.setattr(gain_g, "_LOG2_TABLE", 0)
    made = evaluate(y, s, opts, per_row=True)["g"]
    np.testing.assert_array_equal(table, made)


@pytest.mark.parametrize("layout", ["matrix", "exclude"])
def test_interpolated_precision_down_matches_reference(layout, monkeypatch):
    # Many rows with many relevant items: the running maximum of precision
    # made down the positions of the transposed mask, against the reference
    # (trec_eval's loop from the bottom of each ranking), and the same values
    # bit for bit as the rows read along their positions.
    from sk_rankmetrics._metrics.kernels import interpolated

    rng = np.random.default_rng(21)
    n, N = 400, 40
    y = np.where(rng.random((n, N)) < 0.6, rng.integers(1, 4, (n, N)), 0)
    y[::13] = 0  # rows without a relevant item
    s = rng.random((n, N))
    exclude = (rng.random((n, N)) < 0.2) & (y == 0) if layout == "exclude" else None
    names = ["11pt_avg", "iprec_at_recall@0.3"]
    down = evaluate(y, s, names, per_row=True, no_relevant=0.0, exclude=exclude)
    for name in names:
        fn = ref.METRICS["11pt_avg" if name == "11pt_avg" else "iprec_at_recall"]
        kw = {} if name == "11pt_avg" else {"recall": 0.3}
        want = []
        for r in range(n):
            keep = np.ones(N, dtype=bool) if exclude is None else ~exclude[r]
            v = fn(list(y[r][keep]), list(np.argsort(-s[r][keep], kind="stable")), **kw)
            want.append(0.0 if v is None else v)
        np.testing.assert_allclose(down[name], want, **TOL)
    monkeypatch.setattr(interpolated, "short_rows", lambda shape: False)
    along = evaluate(y, s, names, per_row=True, no_relevant=0.0, exclude=exclude)
    for name in names:
        np.testing.assert_array_equal(down[name], along[name])


@pytest.mark.parametrize("name", ["bpm", "nerr8@30", "nerr9", "nerr10", "nerr11", "inst"])
@pytest.mark.parametrize("n", [257, 1200])
def test_cwl_down_matches_reference(name, n, monkeypatch):
    # C/W/L measures of many rows made down the positions (a last piece of
    # one row with n = 257 in pieces of 256), against the padded reference,
    # and against the rows read along their positions; the gains the engine
    # holds are not changed by the kernels (two measures in one call).
    from sk_rankmetrics._metrics.kernels import cwl

    monkeypatch.setattr(cwl, "_CELLS_DOWN", 256 * 40)
    monkeypatch.setattr(cwl, "ROWS_AT_ONCE", 256)
    rng = np.random.default_rng(n)
    N = 40
    y = np.where(rng.random((n, N)) < 0.5, rng.integers(0, 5, (n, N)), 0)
    y[::9] = 4  # the top gain everywhere: T reached early
    s = rng.random((n, N))
    both = evaluate(y, s, [name, "sdcg"], per_row=True, no_relevant=0.0)
    base, _, k = name.partition("@")
    args = (int(k),) if k else ()
    idx = range(0, n, 37)
    want = [ref.METRICS[base](y[r], np.argsort(-s[r], kind="stable"), *args) or 0.0
            for r in idx]
    np.testing.assert_allclose(both[name][list(idx)], want, rtol=1e-12, atol=1e-15)
    alone = evaluate(y, s, ["sdcg"], per_row=True, no_relevant=0.0)["sdcg"]
    np.testing.assert_array_equal(both["sdcg"], alone)
    monkeypatch.setattr(cwl, "many_rows", lambda shape: False)
    along = evaluate(y, s, [name], per_row=True, no_relevant=0.0)[name]
    np.testing.assert_allclose(both[name], along, rtol=1e-13, atol=1e-16)


def test_infap_down_matches_reference(monkeypatch):
    # infAP of many fully judged rows with many relevant items, every
    # position read down the transposed flags, against the reference and the
    # list of relevant items (the route of sparse rows).
    from sk_rankmetrics._metrics.kernels import judgements

    rng = np.random.default_rng(33)
    n, N = 500, 45
    y = np.where(rng.random((n, N)) < 0.6, rng.integers(1, 4, (n, N)), 0)
    y[::10] = 0
    s = rng.random((n, N))
    taken = []
    real = judgements._infap_all_judged_down
    monkeypatch.setattr(judgements, "_infap_all_judged_down",
                        lambda f: taken.append(f.shape) or real(f))
    down = evaluate(y, s, ["infap"], per_row=True, no_relevant=0.0)["infap"]
    assert taken
    want = [ref.infap(y[r], np.argsort(-s[r], kind="stable")) or 0.0 for r in range(0, n, 23)]
    np.testing.assert_allclose(down[::23], want, **TOL)
    monkeypatch.setattr(judgements, "_INFAP_DOWN_SHARE", 2.0)
    listed = evaluate(y, s, ["infap"], per_row=True, no_relevant=0.0)["infap"]
    np.testing.assert_allclose(down, listed, rtol=1e-14, atol=0)


@pytest.mark.parametrize(("n", "N", "layout"), [(400, 40, "matrix"), (400, 40, "exclude"),
                                                (300, 600, "matrix")])
def test_compat_down_matches_reference(n, N, layout, monkeypatch):
    # Compat of many rows most of whose positions hold a positive gain: the
    # places in the ideal counted in the bit fields of one running sum down
    # each row (int32 fields on rows of 40: 6 bits x 4 levels; int64 on rows
    # of 600: 10 x 4), against the reference and the list of those items.
    from sk_rankmetrics._metrics.kernels import orderings

    rng = np.random.default_rng(N + n)
    y = np.where(rng.random((n, N)) < 0.7, rng.integers(1, 5, (n, N)), 0)
    y[::17] = 0
    s = rng.random((n, N))
    exclude = (rng.random((n, N)) < 0.2) & (y == 0) if layout == "exclude" else None
    taken = []
    real = orderings._overlap_down
    monkeypatch.setattr(orderings, "_overlap_down",
                        lambda *a: (lambda out: taken.append(out is not None) or out)(real(*a)))
    down = evaluate(y, s, ["compat"], per_row=True, no_relevant=0.0, exclude=exclude)["compat"]
    assert taken and all(taken)
    for r in range(0, n, 41):
        keep = np.ones(N, dtype=bool) if exclude is None else ~exclude[r]
        want = ref.compat(y[r][keep], np.argsort(-s[r][keep], kind="stable")) or 0.0
        assert down[r] == pytest.approx(want, rel=1e-12, abs=1e-14)
    monkeypatch.setattr(orderings, "_DOWN_SHARE", 2.0)
    listed = evaluate(y, s, ["compat"], per_row=True, no_relevant=0.0, exclude=exclude)["compat"]
    np.testing.assert_allclose(down, listed, rtol=1e-14, atol=0)
