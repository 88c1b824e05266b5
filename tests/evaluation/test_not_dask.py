"""A module named ``dask`` that is not Dask (a folder of that name on the path,
imported as a namespace package where Dask is not installed: the test suite's
own ``tests/dask`` on Python 3.9, where the Dask extra is not installed) must
not break the in-memory path, which looks in ``sys.modules`` for Dask before
asking whether an input is a Dask collection."""

from __future__ import annotations

import sys
import types

import numpy as np

from sk_rankmetrics import evaluate, ndcg_score
from sk_rankmetrics._dask import is_dask


def test_a_dask_without_dask_base_is_no_dask(monkeypatch):
    fake = types.ModuleType("dask")
    fake.__path__ = []  # (a namespace package: no dask.base inside)
    monkeypatch.setitem(sys.modules, "dask", fake)
    monkeypatch.delitem(sys.modules, "dask.base", raising=False)
    y_true = np.array([[3, 2, 0, 1], [0, 1, 1, 0]])
    y_score = np.array([[0.9, 0.8, 0.1, 0.3], [0.2, 0.7, 0.1, 0.4]])
    assert not is_dask(y_true, y_score)
    got = evaluate(y_true, y_score, ["ndcg", "map"])
    assert set(got) == {"ndcg", "map"}
    assert 0.0 < got["ndcg"] <= 1.0
    assert ndcg_score(y_true, y_score) == got["ndcg"]
