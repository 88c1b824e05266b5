"""Colours, line styles and legend placement shared by the Displays."""

from __future__ import annotations

import weakref
from typing import Any

import numpy as np

_LINESTYLES = ("-", "--", ":", "-.")


#: What this module drew on each axes: line style per metric, the labels and
#: title it set (so that a label or title of the user's own is left alone).
_AXES_STATE: weakref.WeakKeyDictionary[Any, dict[str, Any]] = weakref.WeakKeyDictionary()


def _next_color(ax):
    """The first colour of the property cycle not used by a line on ``ax``."""
    from matplotlib import rcParams
    from matplotlib.colors import to_hex

    cycle = rcParams["axes.prop_cycle"].by_key().get("color", ["C0"])
    used = {to_hex(line.get_color()) for line in ax.get_lines()}
    free = [c for c in cycle if to_hex(c) not in used]
    return free[0] if free else cycle[len(used) % len(cycle)]


def _covers_a_curve(legend, ax, pad=3.0):
    """Whether the legend's box crosses or contains a point of a line on ``ax``."""
    box = legend.get_window_extent().padded(pad)
    for line in ax.get_lines():
        path = line.get_transform().transform_path(line.get_path())
        if path.intersects_bbox(box, filled=False):
            return True
        v = path.vertices
        if np.any((v[:, 0] >= box.x0) & (v[:, 0] <= box.x1)
                  & (v[:, 1] >= box.y0) & (v[:, 1] <= box.y1)):
            return True
    return False


def _place_legend(ax):
    """A legend inside the axes where it covers no curve, else outside on the right."""
    legend = ax.legend(loc="best")
    ax.figure.canvas.draw()  # "best" is resolved when the figure is drawn
    if _covers_a_curve(legend, ax):
        legend.remove()
        legend = ax.legend(loc="upper left", bbox_to_anchor=(1.02, 1.0), borderaxespad=0.0)
    return legend

#: Bars where the first system is higher, where the second is, and ties.
_COLORS = ("tab:blue", "tab:orange", "0.6")
