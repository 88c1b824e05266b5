"""Checks: the error class, parameter constraints and the checks of data arrays.

Parameters (``k``, ``gain``, ``no_relevant``, ...) are declared once, with a
default, the constraints they must meet and a hint, in the table of
:mod:`sk_rankmetrics._registry`; :func:`check_param` checks one value against
its declaration. Data (``y_true``, ``y_score``, ``qid``, ``sample_weight``,
id arrays) are checked by the functions at the end of this module, which the
input layouts of :mod:`sk_rankmetrics._inputs` call.

Every error a user can cause is an :class:`InvalidParameterError` (a
``ValueError`` and a ``TypeError`` at once, as scikit-learn's) or a
``ValueError``, with the argument's name, what was wrong and what is accepted.
"""

from __future__ import annotations

import math
import numbers
import os
import sys
import threading
import warnings
from collections.abc import Mapping
from contextlib import contextmanager

import numpy as np
import scipy.sparse as sp


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

_PACKAGE_DIR = os.path.dirname(os.path.abspath(__file__)) + os.sep


def _library_dirs():
    dirs = [_PACKAGE_DIR]
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


@contextmanager
def thread_flag(local):
    """Set ``local.on`` for the calling thread while the block runs (nested
    blocks restore what they found)."""
    before = getattr(local, "on", False)
    local.on = True
    try:
        yield
    finally:
        local.on = before


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


# -- constraints -------------------------------------------------------------------

def _is_integer(x):
    return isinstance(x, numbers.Integral) and not isinstance(x, (bool, np.bool_))


def _is_real(x):
    return isinstance(x, numbers.Real) and not isinstance(x, (bool, np.bool_))


class Interval:
    """Integers or real numbers in an interval; ``None`` bounds are open ends.

    ``closed`` is one of ``"both"``, ``"left"``, ``"right"``, ``"neither"``.
    Real intervals never accept NaN; infinity only as a closed infinite bound
    (never, since bounds here are finite or None).
    """

    def __init__(self, kind, low, high, closed="both"):
        self.kind, self.low, self.high, self.closed = kind, low, high, closed

    def accepts(self, x):
        if self.kind == "integer":
            if not _is_integer(x):
                return False
        elif not _is_real(x) or not math.isfinite(x):
            return False
        lo_ok = self.low is None or (
            x >= self.low if self.closed in ("both", "left") else x > self.low
        )
        hi_ok = self.high is None or (
            x <= self.high if self.closed in ("both", "right") else x < self.high
        )
        return lo_ok and hi_ok

    def describe(self):
        what = "an integer" if self.kind == "integer" else "a finite real number"
        lo = "" if self.low is None else (
            f">= {self.low}" if self.closed in ("both", "left") else f"> {self.low}"
        )
        hi = "" if self.high is None else (
            f"<= {self.high}" if self.closed in ("both", "right") else f"< {self.high}"
        )
        bounds = " and ".join(b for b in (lo, hi) if b)
        return f"{what} {bounds}".strip()

    def invalid_examples(self):
        out = ["1", [1]]
        if self.kind == "integer":
            out += [1.5, True]
        else:
            out += [float("nan"), float("inf"), True]
        if self.low is not None:
            out.append(self.low - 1 if self.kind == "integer" else self.low - 0.5)
            if self.closed in ("right", "neither"):
                out.append(self.low)
        if self.high is not None:
            out.append(self.high + 1 if self.kind == "integer" else self.high + 0.5)
            if self.closed in ("left", "neither"):
                out.append(self.high)
        return out


class Options:
    """One of a few strings (or other hashable constants)."""

    def __init__(self, *values):
        self.values = values

    def accepts(self, x):
        return isinstance(x, str) and x in self.values

    def describe(self):
        return ", ".join(map(repr, self.values))

    def invalid_examples(self):
        return ["no-such-option", 3]


class Constant:
    """One exact value, such as ``None`` or NaN."""

    def __init__(self, value, text=None):
        self.value, self.text = value, text or repr(value)

    def accepts(self, x):
        if self.value is None:
            return x is None
        if isinstance(self.value, float) and math.isnan(self.value):
            return _is_real(x) and math.isnan(x)
        return x == self.value

    def describe(self):
        return self.text

    def invalid_examples(self):
        return []


class Boolean:
    """``True`` or ``False`` (NumPy bools too; not 0 or 1)."""

    def accepts(self, x):
        return isinstance(x, (bool, np.bool_))

    def describe(self):
        return "True or False"

    def invalid_examples(self):
        return [1, "yes", None]


class Callables:
    def accepts(self, x):
        return callable(x) and not isinstance(x, type)

    def describe(self):
        return "a callable"

    def invalid_examples(self):
        return [3, "text"]


class Mappings:
    def accepts(self, x):
        return isinstance(x, Mapping)

    def describe(self):
        return "a mapping"

    def invalid_examples(self):
        return [[1, 2], "text"]


class Strings:
    def accepts(self, x):
        return isinstance(x, str)

    def describe(self):
        return "a string"

    def invalid_examples(self):
        return [3]


class ArrayLike:
    """A 1-D sequence or array (not a string, not a mapping)."""

    def accepts(self, x):
        if isinstance(x, (str, bytes, Mapping)):
            return False
        return isinstance(x, np.ndarray) or hasattr(x, "__array__") or (
            hasattr(x, "__len__") and hasattr(x, "__getitem__")
        )

    def describe(self):
        return "an array-like"

    def invalid_examples(self):
        return []


class ListOf:
    """A non-empty list or tuple whose every item meets ``constraint``
    (of exactly ``length`` items if given)."""

    def __init__(self, constraint, length=None):
        self.constraint = constraint
        self.length = length

    def accepts(self, x):
        return (isinstance(x, (list, tuple)) and len(x) > 0
                and (self.length is None or len(x) == self.length)
                and all(self.constraint.accepts(v) for v in x))

    def describe(self):
        what = "a non-empty list" if self.length is None else f"a list of {self.length}"
        if isinstance(self.constraint, Options):
            return f"{what} of them"
        return f"{what} of values, each {self.constraint.describe()}"

    def invalid_examples(self):
        return [[], ["no-such-option"]]


class Param:
    """The declaration of one parameter: default, constraints and hint.

    Parameters
    ----------
    default : object
        The default of every public signature that has this parameter.
    constraints : list
        The value must satisfy one of them.
    hint : str
        What the parameter means, for the error message.
    examples : tuple
        Valid non-default values (the option grid of the tests).
    """

    def __init__(self, default, constraints, hint, examples=()):
        self.default = default
        self.constraints = list(constraints)
        self.hint = hint
        self.examples = tuple(examples)

    def accepts(self, value):
        return any(c.accepts(value) for c in self.constraints)

    def describe(self):
        parts = [c.describe() for c in self.constraints]
        return parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " or " + parts[-1]

    def invalid_examples(self):
        out = []
        for c in self.constraints:
            out += [v for v in c.invalid_examples()
                    if not self.accepts(v) and not any(_same(v, o) for o in out)]
        return out


def _same(a, b):
    return type(a) is type(b) and (a == b or (a != a and b != b))


def check_param(name, value, param, where=None):
    """Return ``value`` if it meets ``param``'s constraints, else raise.

    Booleans come back as Python ``bool``.
    """
    if param.accepts(value):
        if isinstance(value, np.bool_):
            return bool(value)
        return value
    prefix = f"{where}: " if where else ""
    raise InvalidParameterError(
        f"{prefix}{name}={short_repr(value)} is not accepted ({param.hint}). "
        f"Accepted: {param.describe()}."
    )


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


def _refuse_mask(x, arg):
    if isinstance(x, np.ma.MaskedArray) and np.ma.getmaskarray(x).any():
        raise InvalidParameterError(
            f"{arg} is a masked array with masked entries; masks are not read here. Fill "
            f"the masked entries ({arg}.filled(value)) or leave them out (long format "
            "with qid=...)."
        )


def _from_objects(x, arg):
    """An object array of numbers (or pandas' nullable values) -> int64 or float64."""
    flat = x.reshape(-1)
    if any(map(_is_missing, flat.tolist())):
        raise InvalidParameterError(
            f"{arg} has missing values (None or pandas.NA); every entry must be a number."
        )
    try:
        as_float = flat.astype(np.float64)
    except (TypeError, ValueError):
        raise InvalidParameterError(
            f"{arg} must hold numbers (bool, int or float), got dtype object with a "
            f"non-numeric entry such as {short_repr(_first_non_number(flat))}."
        ) from None
    if all(map(_is_integer, flat.tolist())):
        try:
            as_int = flat.astype(np.int64)
        except OverflowError:
            as_int = None
        if as_int is not None:
            return as_int.reshape(x.shape)
        raise InvalidParameterError(
            f"{arg} holds integers beyond the 64-bit range; give them as floats or "
            "rescale them."
        )
    return as_float.reshape(x.shape)


def _is_missing(v):
    """None or pandas' NA (pandas is only looked at if the caller imported it)."""
    if v is None:
        return True
    pd = sys.modules.get("pandas")
    return pd is not None and v is pd.NA


def _first_non_number(flat):
    for v in flat.tolist():
        if not isinstance(v, numbers.Real):
            return v
    return flat[0]


def as_numeric_array(x, arg, *, allow_sparse=False):
    """Return ``x`` as a numeric ndarray (or a CSR array if sparse is allowed).

    Lists, NumPy arrays, pandas objects (nullable dtypes without missing
    values too) and object arrays of numbers are accepted; floats are not
    copied. Strings, missing values and masked entries raise.
    """
    if x is None:
        raise InvalidParameterError(f"{arg} is None; pass an array-like of numbers.")
    if sp.issparse(x):
        if not allow_sparse:
            raise InvalidParameterError(
                f"{arg} is a scipy.sparse matrix, which is accepted for y_true only; "
                f"pass {arg} as a dense array."
            )
        x = sp.csr_array(x)
        if x.dtype.kind not in "biuf":
            raise InvalidParameterError(
                f"{arg} must hold numbers (bool, int or float), got dtype {x.dtype}."
            )
        return x
    _refuse_mask(x, arg)
    if hasattr(x, "to_numpy") and not isinstance(x, np.ndarray):  # pandas
        x = x.to_numpy()
    try:
        x = np.asarray(x)
    except ValueError as exc:  # ragged nested lists
        raise ValueError(
            f"{arg} could not be read as a rectangular array ({exc}). Rows of a "
            "matrix must all have the same length; for rankings of different "
            "lengths use the long format with qid=..."
        ) from None
    if x.dtype.kind == "O":
        x = _from_objects(x, arg)
    if x.dtype.kind not in "biuf":
        raise InvalidParameterError(
            f"{arg} must hold numbers (bool, int or float), got dtype {x.dtype}."
        )
    return x


def first_non_finite(block):
    """Index (tuple) of the first NaN or infinity in ``block``, or None."""
    if block.dtype.kind not in "fc":
        return None
    with np.errstate(over="ignore", invalid="ignore"):
        if np.isfinite(block.sum()):
            return None
    bad = ~np.isfinite(block)
    if not bad.any():
        return None
    return tuple(int(i) for i in np.argwhere(bad)[0])


def check_finite(block, arg, row0=0):
    """Raise if ``block`` holds NaN or infinity, naming the first place."""
    where = first_non_finite(block)
    if where is None:
        return
    if len(where) == 2:
        place = f"row {row0 + where[0]}, column {where[1]}"
    else:
        place = f"index {row0 + where[0]}"
    raise ValueError(f"{arg} contains NaN or infinity (first at {place}); every value must "
                     "be finite.")


def unique(a):
    """The distinct values of ``a``, sorted (``np.unique(a)`` without options).

    NumPy 2.3 and later take a hash table for plain ``np.unique`` of numbers,
    which is ten times slower than a sort on a million distinct integers; a
    sort and a mask cost the same whatever the values, and integers in a
    compact range (user ids 0..n) are marked in a table without a sort.
    Other dtypes (text, objects) and floats with NaN go to ``np.unique``.
    """
    a = np.asarray(a).reshape(-1)
    if a.dtype.kind not in "iubf" or (a.dtype.kind == "f" and np.isnan(a).any()):
        return np.unique(a)
    if a.dtype.kind in "iu" and a.shape[0] > 1:
        lo, hi = a.min(), a.max()
        span = int(hi) - int(lo) + 1
        if span <= 4 * a.shape[0]:
            # Compact integers (0..n user ids): marked in a table, no sort.
            seen = np.zeros(span, dtype=bool)
            seen[np.subtract(a, lo, dtype=np.intp)] = True
            return (np.flatnonzero(seen) + lo).astype(a.dtype)
    s = np.sort(a)
    if s.shape[0] < 2:
        return s
    keep = np.empty(s.shape[0], dtype=bool)
    keep[0] = True
    np.not_equal(s[1:], s[:-1], out=keep[1:])
    return s[keep]


def check_sample_weight(sample_weight, n, what=None):
    """Per-row weights as float64, finite and >= 0 (None stays None)."""
    if sample_weight is None:
        return None
    w = as_numeric_array(sample_weight, "sample_weight")
    if w.ndim != 1 or w.shape[0] != n:
        raise ValueError(
            f"sample_weight must be 1-D with {what or f'one weight per row ({n})'}, got "
            f"shape {w.shape}."
        )
    w = w.astype(np.float64)
    if not np.all(np.isfinite(w)):
        raise ValueError("sample_weight contains NaN or infinity; every weight must be a "
                         "finite number >= 0.")
    if (w < 0).any():
        i = int(np.flatnonzero(w < 0)[0])
        raise ValueError(f"sample_weight must be non-negative; entry {i} is {w[i]:g}.")
    return w


def as_ids(x, arg):
    """1-D query or item ids as int64 or str, without silent coercion.

    Integers stay integers; floats are accepted only when every value is a
    whole number; strings and bytes become str. Mixed or fractional values,
    missing values and empty strings raise.
    """
    if x is None:
        raise InvalidParameterError(f"{arg} is None; pass one id per entry.")
    _refuse_mask(x, arg)
    if hasattr(x, "to_numpy") and not isinstance(x, np.ndarray):
        x = x.to_numpy()
    x = np.asarray(x)
    if x.ndim != 1:
        raise ValueError(f"{arg} must be 1-D (one id per entry), got shape {x.shape}.")
    kind = x.dtype.kind
    if kind == "O":
        items = x.tolist()
        if all(isinstance(v, str) for v in items):
            x = x.astype(str)
        elif all(isinstance(v, bytes) for v in items):
            x = x.astype(bytes)
        elif all(_is_integer(v) for v in items):
            try:
                x = x.astype(np.int64)
            except OverflowError:
                raise InvalidParameterError(
                    f"{arg} holds integer ids beyond the 64-bit range; give them as strings."
                ) from None
        else:
            bad = next((v for v in items if not (_is_integer(v) or isinstance(v, str))),
                       items[0] if items else None)
            raise InvalidParameterError(
                f"{arg} must hold ids of one type (integers or strings), got mixed types "
                f"or values such as {short_repr(bad)}."
            )
        kind = x.dtype.kind
    if kind == "f":
        if not np.all(np.isfinite(x)) or not np.all(np.mod(x, 1) == 0):
            bad = x[~(np.isfinite(x) & (np.mod(np.nan_to_num(x), 1) == 0))][0]
            raise InvalidParameterError(
                f"{arg} holds the value {float(bad)!r}, which is not an id: float ids must be "
                "whole numbers (and not NaN). Give integer or string ids."
            )
        if x.size and np.abs(x).max() >= 2.0**53:
            raise InvalidParameterError(
                f"{arg} holds float ids beyond 2**53, which float64 cannot tell apart; "
                "give them as integers or strings."
            )
        return x.astype(np.int64)
    if kind == "u":
        if x.size and x.max() > np.iinfo(np.int64).max:
            return x.astype(str)
        return x.astype(np.int64)
    if kind == "i":
        return x.astype(np.int64, copy=False)
    if kind == "S":
        x = x.astype(str)
        kind = "U"
    if kind == "U":
        if x.size and (np.char.str_len(x) == 0).any():
            i = int(np.flatnonzero(np.char.str_len(x) == 0)[0])
            raise ValueError(f"{arg} has an empty id at entry {i}; every id must be a "
                             "non-empty string or an integer.")
        return x
    raise InvalidParameterError(
        f"{arg} must hold ids (integers or strings), got dtype {x.dtype}."
    )
