"""LongTailDisplay and ExposureLorenzDisplay: their numbers are the measures'."""

from __future__ import annotations

import matplotlib
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import sk_rankmetrics as skr
from sk_rankmetrics import InvalidParameterError

matplotlib.use("Agg")


def _close(d):
    import matplotlib.pyplot as plt

    plt.close(d.figure_)


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.lists(st.integers(0, 9), unique=True, max_size=5), min_size=1, max_size=8).filter(
        lambda ls: any(ls)
    )
)
def test_lorenz_area_gives_the_gini(lists):
    d = skr.ExposureLorenzDisplay.from_recommendations(lists, items=range(10))
    x, y = d.curve()
    area = float(np.sum((x[1:] - x[:-1]) * (y[1:] + y[:-1]) / 2))
    assert 1 - 2 * area == pytest.approx(d.gini, abs=1e-12)
    assert d.gini == pytest.approx(skr.gini_score(lists, items=range(10)), abs=1e-15)
    assert d.line_.get_label().endswith(f"Gini {d.gini:.3f}")
    _close(d)


def test_long_tail_head_is_aplt_head():
    train = (["x", "y", "x", "y", "z", "z"], ["c", "c", "b", "b", "a", "c"])
    d = skr.LongTailDisplay.from_interactions(train, head_share=0.5)
    assert d.popularity.tolist() == [3.0, 2.0, 1.0] and d.n_head == 1
    # The head is {c}: a list of c alone has no long-tail item.
    assert skr.aplt_score({"u": ["c"]}, popularity=train, head_share=0.5) == 0.0
    assert skr.aplt_score({"u": ["b"]}, popularity=train, head_share=0.5) == 1.0
    assert "head: 1 items" in d.ax_.get_legend().get_texts()[-1].get_text()
    _close(d)


def test_two_systems_on_one_axes_share_the_diagonal():
    a = skr.ExposureLorenzDisplay.from_recommendations([[1, 2], [1, 3]], items=range(5), name="A")
    skr.ExposureLorenzDisplay.from_recommendations(
        [[1, 2], [3, 4]], items=range(5), name="B", ax=a.ax_
    )
    labels = [line.get_label() for line in a.ax_.get_lines()]
    assert labels.count("equal exposure") == 1 and len(labels) == 3
    _close(a)


def test_display_errors():
    with pytest.raises(InvalidParameterError, match="'z' is not in items"):
        skr.ExposureLorenzDisplay.from_recommendations([["a", "z"]], items=["a", "b"])
    with pytest.raises(InvalidParameterError, match="head_share"):
        skr.LongTailDisplay.from_interactions(([1], ["a"]), head_share=1.5)
