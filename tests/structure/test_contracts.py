"""The three contracts, written as ``typing.Protocol``s, and every
implementation meets them: the layouts (``_inputs/layout.py:Layout``), the
kernels (``_metrics/kernels/__init__.py:Kernel``) and the backends
(``_utils/backends.py:Backend``)."""

from __future__ import annotations

import inspect

import numpy as np
import pytest
import scipy.sparse as sp

from sk_rankmetrics._catalogue.layout import EmbeddingInputs
from sk_rankmetrics._dask import DaskBackend
from sk_rankmetrics._inputs.dense import DenseInputs
from sk_rankmetrics._inputs.diversity import DiversityInputs
from sk_rankmetrics._inputs.layout import Layout
from sk_rankmetrics._inputs.long import LongInputs
from sk_rankmetrics._inputs.preranked import PrerankedInputs
from sk_rankmetrics._metrics.kernels import Kernel
from sk_rankmetrics._metrics.registry import REGISTRY
from sk_rankmetrics._utils.backends import Backend

LAYOUTS = [DenseInputs, LongInputs, PrerankedInputs, DiversityInputs, EmbeddingInputs]


def _members(protocol):
    return {n for n in vars(protocol) if not n.startswith("_")} | set(
        getattr(protocol, "__annotations__", {}))


@pytest.mark.parametrize("cls", LAYOUTS, ids=lambda c: c.__name__)
def test_every_layout_meets_the_layout_contract(cls):
    for name in ("blocks", "ranked_chunk"):
        want = inspect.signature(getattr(Layout, name))
        got = inspect.signature(getattr(cls, name))
        assert [p.kind for p in got.parameters.values()] == [
            p.kind for p in want.parameters.values()], (cls, name)
        assert "ignore_ties" in got.parameters or name == "blocks"
    assert isinstance(cls.diversity, bool)
    assert cls.diversity is (cls is DiversityInputs)


def test_built_layouts_are_layouts():
    y = np.array([[1, 0, 2], [0, 1, 0]])
    s = np.array([[0.3, 0.2, 0.1], [0.1, 0.2, 0.3]])
    dense = DenseInputs(y, s)
    emb = EmbeddingInputs(np.ones((2, 2)), np.ones((3, 2)), None, None,
                          sp.csr_array(y.astype(float)), None, batch_size=None, sample=None,
                          seed=0, top=None)
    for inputs in (dense, emb):
        assert isinstance(inputs, Layout)
        assert (inputs.n_rows, inputs.n_cols) == (2, 3)
    assert not isinstance(object(), Layout)  # the check can fail


def test_every_registered_kernel_meets_the_kernel_contract():
    kernels = [s.kernel for s in REGISTRY.values() if s.kernel is not None]
    assert len(kernels) == len([s for s in REGISTRY.values()
                                if not s.family.startswith("beyond")])
    for kernel in kernels:
        assert isinstance(kernel, Kernel)
        params = [p for p in inspect.signature(kernel).parameters.values()
                  if p.default is inspect.Parameter.empty]
        assert len(params) == 2, kernel


def test_the_dask_backend_meets_the_backend_contract():
    backend = DaskBackend()
    assert isinstance(backend, Backend)
    assert _members(Backend) - {"handles"} <= set(dir(backend))
    assert "evaluate_beyond" in _members(Backend)
    assert not isinstance(object(), Backend)


def test_one_same_options_comparison():
    """_utils/constraints.py:same_value serves presets, accumulators' options and
    policies, and the constants of messages: arrays by value, NaN equal to NaN,
    a bool never equal to a number."""
    from sk_rankmetrics._utils.constraints import same_value

    assert same_value(np.array([1.0, 2.0]), np.array([1.0, 2.0]))  # by value, not identity
    assert not same_value(np.array([1.0, 2.0]), np.array([1.0, 3.0]))
    assert not same_value(np.array([1.0]), np.array([[1.0]]))
    assert not same_value(np.array([1.0]), [1.0])
    assert same_value(float("nan"), float("nan")) and same_value("warn", "warn")
    assert not same_value(True, 1) and same_value(0.5, 0.5) and not same_value("skip", 0.0)
