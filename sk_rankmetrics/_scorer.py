"""Where scorers pickled by version 0.1.0 find their class.

A pickle records the module that defined a class. Until 0.1.0 the scorers
lived here; they now live in ``_sklearn/scorers.py``. This alias keeps those
pickles loading for one release and will then be removed.
"""

from ._sklearn.scorers import RankingScorer, _ScoreRequest

__all__ = ["RankingScorer", "_ScoreRequest"]
