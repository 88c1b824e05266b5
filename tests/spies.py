"""Test helper: which of the package's routes a call took."""

from __future__ import annotations

import contextlib

import pytest


def _none(*args, **kwargs):
    return None


#: ``answers(..., replace=REFUSE)``: the route answers None (is not taken).
REFUSE = _none


@contextlib.contextmanager
def answers(target, name, replace=None):
    """Within the block, calls of ``target.name`` (``replace`` instead, when
    given) are recorded: the list yielded gets, per call, whether it answered
    something other than None (the route was taken)."""
    seen = []
    call = getattr(target, name) if replace is None else replace

    def spy(*args, **kwargs):
        out = call(*args, **kwargs)
        seen.append(out is not None)
        return out

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(target, name, spy)
        yield seen


def count_calls(monkeypatch, target, name):
    """Record each call of ``target.name`` for the rest of the test: the list
    returned gets one entry a call (the function still runs)."""
    seen = []
    real = getattr(target, name)

    def spy(*args, **kwargs):
        seen.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(target, name, spy)
    return seen
