"""Dask: the same kernels on partitions.

Importing this folder registers :class:`DaskBackend` with
``_utils/backends.py``; the metric functions, :func:`~sk_rankmetrics.evaluate_run`
and :func:`~sk_rankmetrics.evaluate_ranked` hand Dask arguments to it. Neither
this module nor the registration imports Dask: the modules that do are imported
when a Dask collection is first scored.
"""

from __future__ import annotations

import sys

from .._utils.backends import register


def is_dask(*objs):
    """Whether any of ``objs`` is a Dask collection.

    Never imports Dask: an object can only be a Dask collection once Dask is
    imported, so without it in ``sys.modules`` the answer is False at once.
    A ``dask`` there that is not Dask (a folder of that name on the path,
    taken as a namespace package where Dask is not installed) holds no
    collection either: False.
    """
    if "dask" not in sys.modules:
        return False
    try:
        from dask.base import is_dask_collection
    except ImportError:
        return False

    return any(o is not None and is_dask_collection(o) for o in objs)


class DaskBackend:
    """The Dask backend: arrays chunked by rows, data frames, bags."""

    name = "dask"

    @staticmethod
    def handles(*objects):
        return is_dask(*objects)

    @staticmethod
    def evaluate_arrays(*args, **kwargs):
        from .arrays import evaluate_arrays

        return evaluate_arrays(*args, **kwargs)

    @staticmethod
    def evaluate_run(*args, **kwargs):
        from .runs import evaluate_run

        return evaluate_run(*args, **kwargs)

    @staticmethod
    def evaluate_ranked(*args, **kwargs):
        from .lists import evaluate_ranked

        return evaluate_ranked(*args, **kwargs)

    @staticmethod
    def evaluate_beyond(*args, **kwargs):
        from .beyond import evaluate_beyond

        return evaluate_beyond(*args, **kwargs)

    @staticmethod
    def as_array(x):
        """A Dask data frame becomes a Dask array; arrays and series stay."""
        if getattr(x, "ndim", 1) == 2 and hasattr(x, "to_dask_array"):
            return x.to_dask_array(lengths=True)
        return x

    @staticmethod
    def n_samples(x):
        """Rows of a Dask array when its chunks are known; None otherwise (the
        partitions are checked one by one)."""
        n = float(x.shape[0]) if hasattr(x, "chunks") else float("nan")
        return None if n != n else int(n)


register(DaskBackend())
