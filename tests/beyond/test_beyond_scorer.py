"""Scorers of the beyond-accuracy measures: evaluate's numbers, with the sign
of their direction (less Gini and less ARP are better)."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.linear_model import Ridge
from sklearn.model_selection import cross_val_score

import sk_rankmetrics as skr
from sk_rankmetrics import InvalidParameterError

RNG = np.random.default_rng(0)
X = RNG.normal(size=(40, 3))
Y = (X @ RNG.normal(size=(3, 6)) + RNG.normal(size=(40, 6)) > 0).astype(float)
TRAIN = (np.arange(6), np.arange(6))


def test_scorer_gives_evaluate_numbers_with_the_sign():
    model = Ridge().fit(X, Y)
    scores = model.predict(X)
    for name, sign in [("coverage@2", 1), ("gini@2", -1), ("personalization@2", 1)]:
        want = skr.evaluate(Y, scores, [name])[name]
        assert skr.get_scorer(name)(model, X, Y) == pytest.approx(sign * want)
    scorer = skr.make_ranking_scorer("novelty", k=2, popularity=TRAIN)
    want = skr.evaluate(Y, scores, ["novelty@2"], popularity=TRAIN)["novelty@2"]
    assert scorer(model, X, Y) == pytest.approx(want)
    assert scorer.greater_is_better and not skr.get_scorer("arp@2").greater_is_better
    cv = cross_val_score(Ridge(), X, Y, cv=2, scoring=skr.get_scorer("coverage@2"))
    assert cv.shape == (2,) and ((cv > 0) & (cv <= 1)).all()


def test_scorer_errors():
    with pytest.raises(InvalidParameterError, match="takes the options"):
        skr.make_ranking_scorer("coverage@2", gain="exponential")
    with pytest.raises(InvalidParameterError, match="cut-off is given twice"):
        skr.make_ranking_scorer("coverage@2", k=3)
