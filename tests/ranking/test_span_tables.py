"""The span tables of the tie-group rules (``kernels.span_table``): one
table serves rows of every length up to its own (a span's sum does not
depend on the row's length), so tables of two lengths hold the same
entries where both have them, and a call reads the smallest power of two
from 64 that covers its rows (``kernels.span_table_length``)."""

from __future__ import annotations

import numpy as np
import pytest

from sk_rankmetrics import evaluate
from sk_rankmetrics._metrics import kernels
from sk_rankmetrics._metrics.kernels import cutoff, gain_curves, judgements

TABLES = {
    "ndcg_rel": gain_curves._discount_spans,
    "infap": judgements._infap_spans,
    "harmonic": cutoff._harmonic_table,
}


def test_lengths_are_powers_of_two_from_64_up_to_the_bound():
    f = kernels.span_table_length
    assert [f(x) for x in (0, 1, 64, 65, 128, 129, 256, 257, 361)] == [
        64, 64, 64, 128, 128, 256, 256, 361, 361]
    assert kernels.SPAN_TABLE_MOST == 361


@pytest.mark.parametrize("name", list(TABLES))
def test_tables_of_two_lengths_agree_where_both_hold_a_span(name):
    small, large = TABLES[name](64), TABLES[name](361)
    a, b = np.divmod(np.arange(65 * 65), 65)
    for s_tab, l_tab in zip(small, large):
        np.testing.assert_array_equal(s_tab, l_tab[a * 362 + b])


@pytest.mark.parametrize("N", [7, 70, 300])
def test_rows_of_any_length_read_the_same_values_as_long_double(N, monkeypatch):
    rng = np.random.default_rng(N)
    y = np.where(rng.random((200, N)) < 0.3, rng.integers(1, 4, (200, N)), 0)
    s = rng.integers(0, 12, (200, N))
    names = ["ndcg_rel", "infap", "map", "mrr"]
    tables = evaluate(y, s, names, per_row=True, no_relevant=0.0)
    for module in (gain_curves, judgements, cutoff):
        monkeypatch.setattr(module, "SPAN_TABLE_MOST", -1)
    long_double = evaluate(y, s, names, per_row=True, no_relevant=0.0)
    for name in names:
        np.testing.assert_allclose(tables[name], long_double[name], rtol=1e-15, atol=0)
