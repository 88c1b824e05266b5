"""Interpolated precision of rows whose relevance at every position is known
(untied rows, or tie groups all relevant or all not), read at the relevant
items alone (``interpolated._best_precision_below``): the largest precision
at a rank or below is the largest at the relevant items from it on.
Checked against the reference formula of ``tests/reference.py`` with
thresholds, ``max_docs``, ``exclude`` (padding), both rounding rules, and
against the same rows as ranked lists."""

from __future__ import annotations

import numpy as np
import reference as ref
from draws import cut_options, untied_rows
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sk_rankmetrics import evaluate

SETTINGS = settings(max_examples=100, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow])


@SETTINGS
@given(data=st.data())
def test_untied_interpolated_precision_matches_reference(data):
    name = data.draw(st.sampled_from(["iprec_at_recall", "11pt_avg"]))
    levels = data.draw(st.sampled_from([[0, 0, 0, 0, 1], [0, 1, 2, 3], [1, 1, 2]]))
    y, s = untied_rows(data, levels, max_items=14)
    n, m = y.shape
    opts = cut_options(data, m)
    if data.draw(st.booleans()):
        opts["recall_rounding"] = "plus_0.9"
    if name == "iprec_at_recall":
        opts["recall"] = data.draw(st.sampled_from([0.0, 0.2, 0.5, 0.7, 1.0]))
    exclude = None
    if data.draw(st.booleans()):
        exclude = np.array(data.draw(st.lists(st.booleans(), min_size=n * m,
                                              max_size=n * m))).reshape(n, m)
        exclude[:, :2] = False  # two candidates a row at least
        y = np.where(exclude, 0, y)
    got = evaluate(y, s, [(name, opts)], per_row=True, no_relevant=np.nan,
                   exclude=exclude)[name]
    ref_opts = {k: v for k, v in opts.items() if k != "max_docs"}
    fn = ref.iprec_at_recall if name == "iprec_at_recall" else ref.eleven_pt_avg
    want = []
    for i in range(n):
        keep = np.ones(m, bool) if exclude is None else ~exclude[i]
        items = np.flatnonzero(keep)
        order = list(items[np.argsort(-s[i][items])])[:opts.get("max_docs")]
        v = fn(list(y[i]), order, **ref_opts)
        want.append(np.nan if v is None else v)
    np.testing.assert_allclose(got, want, rtol=1e-13, atol=1e-15, err_msg=f"{name} {opts}")


def test_pure_tie_groups_read_as_known_relevance():
    """Tie groups whose members are all relevant or all not leave every
    position's relevance known: the same values as the scores made distinct
    inside each group."""
    y = np.array([[1, 1, 0, 0, 1, 0], [0, 0, 1, 1, 1, 0]])
    tied = np.array([[3, 3, 2, 2, 1, 0], [5, 5, 4, 4, 4, 1]], dtype=float)
    apart = tied + np.array([[0.2, 0.1, 0.2, 0.1, 0, 0], [0.2, 0.1, 0.3, 0.2, 0.1, 0]])
    for name in ("iprec_at_recall@0.5", "11pt_avg"):
        a = evaluate(y, tied, [name], per_row=True)[name]
        b = evaluate(y, apart, [name], per_row=True)[name]
        np.testing.assert_array_equal(a, b)
    assert evaluate(y, tied, ["11pt_avg"], per_row=True)["11pt_avg"][1] < 1
