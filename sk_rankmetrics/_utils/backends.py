"""Backends that score collections the in-memory code does not hold (Dask).

An integration registers itself here when it is imported; the evaluation layer asks
:func:`backend_for` which backend handles its arguments, so in-memory code never names one."""

from __future__ import annotations

import sys

# -- data arrays ----------------------------------------------------------------------

def is_dask(*objs):
    """Whether any of ``objs`` is a Dask collection.

    Never imports Dask: an object can only be a Dask collection once Dask is
    imported, so without it in ``sys.modules`` the answer is False at once.
    """
    if "dask" not in sys.modules:
        return False
    from dask.base import is_dask_collection

    return any(o is not None and is_dask_collection(o) for o in objs)
