"""Parameter constraints: what each argument accepts, checked with one message style."""

from __future__ import annotations

import math
import numbers
from collections.abc import Mapping

import numpy as np

from .errors import InvalidParameterError, short_repr

# -- constraints -------------------------------------------------------------------

def is_integer(x):
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
            if not is_integer(x):
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
        return ["1,2,3"]  # text is not an array


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
    """The declaration of one parameter: default, constraints, hint and doc.

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
    doc : str
        The parameter's numpydoc block (``"name : type, default=...\n    text"``),
        which :func:`~sk_rankmetrics._utils.docstrings.fill_doc` puts in every
        public docstring with this parameter; empty for parameters documented
        by each function itself.
    """

    def __init__(self, default, constraints, hint, examples=(), doc=""):
        self.default = default
        self.constraints = list(constraints)
        self.hint = hint
        self.examples = tuple(examples)
        self.doc = doc

    def accepts(self, value):
        return any(c.accepts(value) for c in self.constraints)

    def describe(self):
        parts = [c.describe() for c in self.constraints]
        return parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " or " + parts[-1]

    def invalid_examples(self):
        out = []
        for c in self.constraints:
            out += [v for v in c.invalid_examples()
                    if not self.accepts(v) and not any(same_value(v, o) for o in out)]
        return out


def same_value(a, b):
    """Whether two option values are the same: the one comparison of the
    package (a name's preset against a given option, two accumulators' options
    and policies, the constants of a message). Arrays compare by shape and
    value, NaN equals NaN, a bool never equals a number (True is not 1), and
    objects whose comparison fails are different."""
    if a is b:
        return True
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        return (isinstance(a, np.ndarray) and isinstance(b, np.ndarray)
                and a.shape == b.shape and bool(np.array_equal(a, b)))
    if isinstance(a, (bool, np.bool_)) != isinstance(b, (bool, np.bool_)):
        return False
    try:
        if bool(a == b):
            return True
        return bool(a != a and b != b)  # NaN (and NaN-like values) on both sides
    except Exception:  # objects whose comparison fails are different
        return False


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


def keyword_arguments(text, params, example):
    """``{name: value}`` of a parameter list written as Python keyword
    arguments (``"rel=2, p=0.8"``, literals only), or an error naming ``text``
    and showing ``example``."""
    import ast

    try:
        call = ast.parse(f"f({params})", mode="eval").body
        pairs = {kw.arg: ast.literal_eval(kw.value) for kw in call.keywords}
        if call.args or None in pairs:
            raise ValueError
    except (SyntaxError, ValueError):
        raise InvalidParameterError(
            f"cannot read the parameters of {text!r}; ir_measures writes them as "
            f"name=value pairs, e.g. {example}."
        ) from None
    return pairs
