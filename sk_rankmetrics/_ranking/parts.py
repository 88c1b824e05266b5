"""The statistics of a chunk made of parts (``RankedChunk.of_parts``,
``RankedChunk.of_whole_rows``): its untied and its tied rows, made on first
read, and what a chunk read through its few ties holds instead of
per-position statistics."""

from __future__ import annotations

import numpy as np

from .item_values import OnFirstRead


class LazyParts:
    """The parts of :meth:`~.chunk.RankedChunk.of_whole_rows`, made on first read by
    ``make()`` (which holds the block's arrays, never the chunk)."""

    def __init__(self, make):
        self._make, self._made = make, None

    def get(self):
        if self._made is None:
            self._made, self._make = self._make(), None
        return self._made


def no_positions():
    """The error of a kernel reading a per-position statistic it must not."""
    return RuntimeError(
        "internal error: a kernel read per-position statistics of a chunk read "
        "through its few tie groups (MetricSpec.reads_groups is wrong)")


class NoPositions(OnFirstRead):
    """``RankedChunk.sums`` of :meth:`~.chunk.RankedChunk.few_ties_view`: none."""

    def _make(self, name):
        raise no_positions()


class PartsSums(OnFirstRead):
    """``RankedChunk.sums`` of a chunk made of parts (:meth:`~.chunk.RankedChunk.of_parts`):
    each item value at every position put together from the parts' on first
    read (the parts given, or a :class:`LazyParts`)."""

    def __init__(self, n, L, parts, keys=None):
        super().__init__(parts[0][1].sums if keys is None else keys)
        self._n, self._L, self._given = n, L, parts

    def _make(self, name):
        parts = self._given.get() if isinstance(self._given, LazyParts) else self._given
        got = [(rows, part.sums[name]) for rows, part in parts]
        value = np.empty((self._n, self._L), dtype=np.result_type(*(v for _, v in got)))
        for rows, v in got:
            value[rows] = v
        return value
