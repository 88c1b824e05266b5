"""The ``no_relevant`` policy: what a row whose metric is undefined scores."""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import NDArray


def policy_values(
    values: NDArray[np.float64], defined: NDArray[np.bool_], policy: Any
) -> tuple[NDArray[np.float64], NDArray[np.bool_]]:
    """Per-row values under the ``no_relevant`` policy, without a warning.

    ``"warn"`` scores an undefined row 0, ``"skip"`` NaN (and reports it
    skipped), a number that number; None leaves the values as they are.
    Returns ``(values, skipped)``; ``values`` is copied before a change.
    """
    skipped = np.zeros(values.shape[0], dtype=bool)
    if policy is None or defined.all():
        return values, skipped
    values = values.copy()
    if policy == "warn":
        values[~defined] = 0.0
    elif policy == "skip":
        values[~defined] = np.nan
        skipped = ~defined
    else:
        values[~defined] = policy
    return values, skipped
