"""Errors and warnings that name the user's argument and line."""

from __future__ import annotations

import os
import sys
import threading
import warnings
from contextlib import contextmanager
from typing import NamedTuple

import numpy as np

from .threads import thread_flag


class InvalidParameterError(ValueError, TypeError):
    """An argument has a value or a type that the function does not accept.

    Raised for a parameter outside its declared values (``k=0``,
    ``gain="foo"``, ``ignore_ties=1``), an option no requested metric reads,
    and data of the wrong kind (strings as relevance, mixed id types).

    Notes
    -----
    It is both a ``ValueError`` and a ``TypeError``, like scikit-learn's
    ``InvalidParameterError``: code written for ``sklearn.metrics`` that
    catches ``ValueError`` keeps working, and so does code that catches
    ``TypeError``. The message names the argument, what was wrong and what
    is accepted.

    Examples
    --------
    >>> from sk_rankmetrics import InvalidParameterError, ndcg_score
    >>> try:
    ...     ndcg_score([[1, 0, 2]], [[3, 2, 1]], k=0)
    ... except ValueError as exc:
    ...     print(type(exc).__name__, "-", exc)
    InvalidParameterError - ndcg_score: k=0 is not accepted (the cut-off: only the first
    k positions count; None counts every position). Accepted: an integer >= 1 or None.
    >>> issubclass(InvalidParameterError, TypeError)
    True
    """

    __module__ = "sk_rankmetrics"


# -- describing values in messages -------------------------------------------------

def short_repr(value, limit=60):
    """``repr(value)``, cut to ``limit`` characters (arrays can be huge)."""
    if isinstance(value, np.ndarray) and value.size > 8:
        return f"<array of shape {value.shape}, dtype {value.dtype}>"
    try:
        text = repr(value)
    except Exception:  # a broken __repr__ must not hide the real error
        text = f"<{type(value).__name__}>"
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


# -- warnings that name the user's line ----------------------------------------------

PACKAGE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep


def _library_dirs():
    dirs = [PACKAGE_DIR]
    for name in ("sklearn", "joblib"):
        mod = sys.modules.get(name)
        if mod is not None and getattr(mod, "__file__", None):
            dirs.append(os.path.dirname(os.path.abspath(mod.__file__)) + os.sep)
    return tuple(dirs)


_quiet = threading.local()


@contextmanager
def quiet():
    """Silence :func:`warn` in the current thread only.

    Dask partitions are scored by the in-memory functions, whose warnings
    would describe one partition (and, on a cluster, land in a worker's
    log); the caller reports the whole data's instead. Unlike
    ``warnings.catch_warnings``, this changes no process-wide state, so the
    threads that score other partitions are not affected.
    """
    with thread_flag(_quiet):
        yield


def printable(text):
    """``text`` on one line: each character that is not printable (newline, tab,
    other control and separator characters) as its Python escape, ``\\n``."""
    text = str(text)
    if text.isprintable():
        return text
    return "".join(c if c.isprintable() else repr(c)[1:-1] for c in text)


def warn(message, category=UserWarning):
    """``warnings.warn`` with the stack level of the first caller outside this
    package (and outside scikit-learn and joblib, which call scorers), so that
    the warning names the user's line."""
    if getattr(_quiet, "on", False):
        return
    dirs = _library_dirs()
    frame, level = sys._getframe(1), 2  # level 2: warn's caller
    while frame is not None and os.path.abspath(frame.f_code.co_filename).startswith(dirs):
        frame, level = frame.f_back, level + 1
    if frame is None:  # called from library code only (a worker thread, say)
        level = 2
    warnings.warn(message, category, stacklevel=level)


# -- rows where a metric is undefined -------------------------------------------------


_NO_RELEVANT = "have no relevant item"


class UndefinedRows(NamedTuple):
    """``n`` of ``total`` rows of the metric ``label`` are undefined (``why``).

    ``skipped_all`` says the ``no_relevant`` policy left every row out, so the
    mean is NaN; otherwise the undefined rows score 0 and count in the mean
    (``no_relevant="warn"``).
    """

    label: str
    n: int
    total: int
    unit: str = "rows"
    why: str = _NO_RELEVANT
    skipped_all: bool = False

    def message(self):
        """The warning's text for Python users."""
        if self.skipped_all:
            one = self.unit[:-1]
            why = (f"no {one} has a relevant item" if self.why == _NO_RELEVANT
                   else f"all {self.unit} {self.why}")
            return f"{self.label}: every {one} was skipped ({why}); the score is NaN."
        return (f"{self.label}: {self.n} of {self.total} {self.unit} {self.why}; they score 0 "
                "and count in the mean. Set no_relevant='skip', 0.0, 1.0 or nan to choose "
                "(and silence this warning).")


#: The lists of :func:`collect_undefined` blocks, innermost last.
_sinks: list[list[UndefinedRows]] = []


@contextmanager
def collect_undefined():
    """Gather the :class:`UndefinedRows` reports made inside the block, in a
    list, instead of warning.

    For a caller that words them itself: the command line prints one line per
    cause (every metric and run it concerns) naming its own flag, and never
    imports scikit-learn for a warning class it does not show.
    """
    sink = []
    _sinks.append(sink)
    try:
        yield sink
    finally:
        _sinks.remove(sink)


def warn_undefined(report):
    """Report rows where a metric is undefined (an :class:`UndefinedRows`).

    Python users get an ``UndefinedMetricWarning``, scikit-learn's class
    (imported here, when a warning is due, so that code filtering or catching
    scikit-learn's warning catches this one); inside :func:`collect_undefined`
    the report is added to its list instead.
    """
    if getattr(_quiet, "on", False):
        return
    if _sinks:
        _sinks[-1].append(report)
        return
    from sklearn.exceptions import UndefinedMetricWarning

    warn(report.message(), UndefinedMetricWarning)


def plural(what):
    return "queries" if what == "query" else what + "s"


def counted(n, word):
    """``"1 query"``, ``"3 queries"``: a count with its word."""
    return f"{n} {word if n == 1 else plural(word)}"


def example_ids(ids, limit=3):
    return ", ".join(map(repr, ids[:limit].tolist())) + (", ..." if ids.size > limit else "")


def shown(value):
    """An id as it was written: a NumPy scalar as its Python value (``'u1'``,
    not ``np.str_('u1')``), for messages."""
    return value.item() if isinstance(value, np.generic) else value
