"""Padding ties with padding only. Rows padded to a block's width (``exclude``,
long format of uneven lengths) hold ``-inf`` past their real items; those
entries tie with one another, but no real item ties, so the chunk is ranked
as untied (``chunk._real_items_tie``) and every kernel reads the positions
past each row's ranked items as padding, not as one tie group. Each measure
of the whole ranking must give what each row gives alone, unpadded."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import sk_rankmetrics as skr
from sk_rankmetrics._ranking import block as block_mod

SETTINGS = settings(max_examples=40, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow,
                                           HealthCheck.function_scoped_fixture])

MEASURES = ["ndcg", "dcg", "ndcg_exp", "map", "mrr", "r_precision", "bpref", "err", "nerr",
            "rbp", "rbp_resid", "infap", "iprec_at_recall@0.5", "11pt_avg", "bing", "g",
            "ndcg_rel", "rndcg", "compat", "inst", "nerr10", "sdcg", "rprec_mult@0.5",
            "precision", "f1", "judged"]


@pytest.fixture
def chunks(monkeypatch):
    """The chunks the matrix blocks were ranked into, by the argsort's route
    or by the levels' (which ranks padding last, below every real item)."""
    seen = []

    def spy_on(name):
        real = getattr(block_mod, name)

        def spy(*a, **k):
            rc = real(*a, **k)
            if rc is not None:
                seen.append(rc)
            return rc

        monkeypatch.setattr(block_mod, name, spy)

    spy_on("rank_chunk")
    spy_on("rank_by_levels")
    return seen


def _alone(metric, y, s, judged=None):
    """The measure of one unpadded row."""
    kw = {} if judged is None else {"judged": judged[None]}
    return skr.evaluate(y[None], s[None], [metric], per_row=True, no_relevant=np.nan,
                        **kw)[metric][0]


@SETTINGS
@given(data=st.data())
def test_excluded_items_are_padding_not_a_tie(data, chunks):
    n, m = data.draw(st.integers(1, 5)), data.draw(st.integers(4, 12))
    y = np.array(data.draw(st.lists(st.sampled_from([0, 0, 0, 1, 2, 3]), min_size=n * m,
                                    max_size=n * m))).reshape(n, m)
    s = np.array(data.draw(st.permutations(range(n * m))), dtype=np.float64).reshape(n, m)
    keep_n = data.draw(st.lists(st.integers(2, m), min_size=n, max_size=n))
    exclude = np.ones((n, m), dtype=bool)
    for i, k in enumerate(keep_n):
        exclude[i, data.draw(st.permutations(range(m)))[:k]] = False
    y = np.where(exclude, 0, y)
    judged = None
    if data.draw(st.booleans()):
        judged = np.array(data.draw(st.lists(st.booleans(), min_size=n * m,
                                             max_size=n * m))).reshape(n, m)
    metric = data.draw(st.sampled_from(MEASURES))
    if metric in ("err", "nerr"):
        y = np.minimum(y, 3)
    chunks.clear()
    got = skr.evaluate(y, s, [metric], exclude=exclude, judged=judged, per_row=True,
                       no_relevant=np.nan)[metric]
    want = [_alone(metric, y[i][~exclude[i]], s[i][~exclude[i]],
                   None if judged is None else judged[i][~exclude[i]]) for i in range(n)]
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-14, err_msg=metric)
    assert all(not rc.tied for rc in chunks)


@SETTINGS
@given(data=st.data())
def test_queries_of_uneven_lengths_are_each_alone(data):
    lens = data.draw(st.lists(st.integers(2, 9), min_size=1, max_size=5))
    total = sum(lens)
    y = np.array(data.draw(st.lists(st.sampled_from([0, 0, 1, 2, 3]), min_size=total,
                                    max_size=total)))
    s = np.array(data.draw(st.permutations(range(total))), dtype=np.float64)
    qid = np.repeat(np.arange(len(lens)), lens)
    metric = data.draw(st.sampled_from(MEASURES))
    got = skr.evaluate(y, s, [metric], qid=qid, per_row=True, no_relevant=np.nan)[metric]
    want = [_alone(metric, y[qid == q], s[qid == q]) for q in range(len(lens))]
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-14, err_msg=metric)
