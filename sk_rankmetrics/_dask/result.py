"""LazyEvaluationResult."""

from __future__ import annotations

from .._evaluation.result import EvaluationResult
from .plan import _sorted_ids


class LazyEvaluationResult(EvaluationResult):
    """Per-query values and means of several metrics, not computed yet (Dask).

    What :func:`~sk_rankmetrics.evaluate_run` and
    :func:`~sk_rankmetrics.evaluate_ranked` return for Dask inputs with
    ``compute=False``: ``per_query[name]`` is a Dask Series indexed by query
    id (sorted), ``mean[name]`` a 0-d Dask array. :meth:`compute` computes
    them together and returns the :class:`~sk_rankmetrics.EvaluationResult`.
    """

    def __init__(self, frame, mean):
        self._frame = frame
        super().__init__(frame.index, {c: frame[c] for c in frame.columns}, mean)

    def __repr__(self):
        return f"LazyEvaluationResult({', '.join(self.metrics)}; not computed)"

    def to_frame(self):
        """The per-query values as a Dask DataFrame (one column per metric)."""
        return self._frame

    def compute(self, **kwargs):
        """Compute the values and the means together (``kwargs`` go to
        ``dask.compute``) and return the :class:`EvaluationResult`."""
        import dask

        frame, mean = dask.compute(self._frame, self.mean, **kwargs)
        ids = _sorted_ids(frame.index)
        return EvaluationResult(ids, {c: frame[c].to_numpy() for c in frame.columns},
                                {k: float(v) for k, v in mean.items()})
