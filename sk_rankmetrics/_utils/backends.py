"""Backends: who scores collections that in-memory code does not hold (Dask).

An integration registers a backend here when it is imported (xarray's
chunk-manager idea). The layers below it ask :func:`backend_for` which backend
handles their arguments and hand the call over, so in-memory code never names
the integration, never imports it, and no import climbs the layers.

A backend meets :class:`Backend` (``_dask/__init__.py``'s ``DaskBackend`` does,
checked by ``tests/structure/test_contracts.py``):

``handles(*objects) -> bool``
    Whether any of ``objects`` is one of its collections. Cheap, and never
    imports the integration's library when the objects cannot be its own.
``evaluate_arrays(y_true, y_score, requests, **options)``
    The metric functions and :func:`~sk_rankmetrics.evaluate` on its arrays.
``evaluate_run(qrels, run, metrics, **options)``,
``evaluate_ranked(recommended, truth, metrics, **options)``
    The file and ID-list entry points on its data frames and bags.
``evaluate_beyond(recommended, truth, beyond, **options)``
    The beyond-accuracy measures of its lists, added to a result.
``as_array(x)``, ``n_samples(x)``
    An estimator's output as one of its arrays; its length, or None when not
    known before computing.
"""

from __future__ import annotations

from typing import Any, Protocol, runtime_checkable


@runtime_checkable
class Backend(Protocol):
    """The backend contract (the methods above)."""

    def handles(self, *objects: Any) -> bool: ...

    def evaluate_arrays(self, *args: Any, **kwargs: Any) -> Any: ...

    def evaluate_run(self, *args: Any, **kwargs: Any) -> Any: ...

    def evaluate_ranked(self, *args: Any, **kwargs: Any) -> Any: ...

    def evaluate_beyond(self, *args: Any, **kwargs: Any) -> Any: ...

    def as_array(self, x: Any) -> Any: ...

    def n_samples(self, x: Any) -> int | None: ...


_BACKENDS: list[Backend] = []


def register(backend: Backend) -> None:
    """Add ``backend`` to the ones :func:`backend_for` asks (once)."""
    if not any(type(b) is type(backend) for b in _BACKENDS):
        _BACKENDS.append(backend)


def backend_for(*objects: Any) -> Backend | None:
    """The registered backend that handles any of ``objects``, or None."""
    return next((b for b in _BACKENDS if b.handles(*objects)), None)
