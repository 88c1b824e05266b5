"""The registry: every metric and every parameter is declared here once.

- :data:`PARAMS`, the parameter table: each parameter's default, the
  constraints its value must meet and a hint for the error message. The
  decorator :func:`validate` checks every argument a public function is given
  against it, whether or not a requested metric reads it; metric options in
  ``(name, options)`` pairs and scorer options are checked against the same
  table.
- :data:`METRICS`: a :class:`MetricSpec` ties a metric name to its kernel,
  the item values it needs (gain or relevance indicator), the options it
  reads and its direction. Names such as ``"ndcg@10"`` are parsed here.

The public functions, scorers, command line, docs tables and common tests
all read this module.
"""

from __future__ import annotations

import difflib
import functools
import inspect
import re

from . import _kernels
from ._conventions import resolve_discount, resolve_gain
from ._validation import (
    ArrayLike,
    Boolean,
    Callables,
    Constant,
    Interval,
    InvalidParameterError,
    ListOf,
    Mappings,
    Options,
    Param,
    Strings,
    check_param,
    short_repr,
)

RESPONSE_METHODS = ("decision_function", "predict_proba", "predict")

_NONE = Constant(None)
_NO_RELEVANT = [Options("warn", "skip"), Interval("real", 0, 1), Constant(float("nan"), "nan")]

#: The parameter table. A key ``"function.name"`` overrides ``"name"`` for
#: one function.
PARAMS = {
    "k": Param(
        None, [Interval("integer", 1, None), _NONE],
        "the cut-off: only the first k positions count; None counts every position",
        examples=(1, 3, 10**30),
    ),
    "gain": Param(
        "linear", [Options("linear", "exponential"), Mappings(), Callables()],
        "what an item of relevance r is worth: r, 2**r - 1, a {level: gain} mapping or "
        "a callable",
        examples=("exponential", {0: 0.0, 1: 1.0, 2: 5.0, 3: 6.5}),
    ),
    "discount": Param(
        "log", [Options("log", "jarvelin"), ArrayLike(), Callables()],
        "what position p is worth: 1/log_b(p + 1), Järvelin-Kekäläinen's form, an array "
        "or a callable of non-negative discounts",
        examples=("jarvelin",),
    ),
    "log_base": Param(
        2, [Interval("real", 1, None, closed="neither")],
        "the base b of the logarithmic discounts; b <= 1 would make later positions worth "
        "as much or more (or negative)",
        examples=(3, 10, 1.5),
    ),
    "threshold": Param(
        None, [Interval("real", None, None), _NONE],
        "the lowest relevance that counts as relevant; None means any relevance > 0",
        examples=(2, 0.5),
    ),
    "denominator": Param(
        "min_k_relevant", [Options("min_k_relevant", "relevant")],
        "what AP@k is divided by: min(k, R), so that a perfect top k scores 1, or R, the "
        "relevant items of the row (trec_eval, ranx)",
        examples=("relevant",),
    ),
    "adaptive_k": Param(
        False, [Boolean()],
        "whether P@k of a row shorter than k divides by the row's length instead of k",
        examples=(True,),
    ),
    "no_relevant": Param(
        "warn", _NO_RELEVANT,
        "the value of a row without a relevant item: 'warn' (0, counted, with a warning), "
        "'skip' (left out of the mean) or a number in [0, 1] or nan",
        examples=("skip", 0.0, 1.0),
    ),
    "ignore_ties": Param(
        False, [Boolean()],
        "True takes tied scores in the order of the sort instead of the expected value over "
        "their orderings",
        examples=(True,),
    ),
    "per_row": Param(
        False, [Boolean()], "True returns one value per row (query) instead of the mean",
        examples=(True,),
    ),
    "setting": Param(
        "sk_rankmetrics", [Options("sk_rankmetrics", "trec_eval")],
        "whose conventions to follow: this package's or trec_eval's",
        examples=("trec_eval",),
    ),
    "complete": Param(
        False, [Boolean()],
        "True also scores the queries (users) that have judgements but no ranking, as 0",
        examples=(True,),
    ),
    "gains": Param(
        None, [Mappings(), _NONE],
        "the gain of each relevance level for nDCG and DCG, as trec_eval's -m ndcg.L=G",
        examples=({1: 3.0, 2: 9.0},),
    ),
    "max_docs": Param(
        None, [Interval("integer", 1, None), _NONE],
        "how many ranked documents of each query are kept (trec_eval's -M)",
        examples=(100,),
    ),
    "progress": Param(
        None, [Callables(), _NONE], "a callable progress(done, total)",
    ),
    "evaluate_run.no_relevant": Param(
        None, [*_NO_RELEVANT, _NONE],
        "the value of a query without a relevant document; None means the setting's own "
        "('warn', or 0.0 for trec_eval)",
        examples=("skip", 0.0),
    ),
    "response_method": Param(
        RESPONSE_METHODS, [Options(*RESPONSE_METHODS), ListOf(Options(*RESPONSE_METHODS))],
        "the estimator methods that give scores, tried in order",
        examples=("predict",),
    ),
    "from_estimator.response_method": Param(
        "auto", [Options("auto", *RESPONSE_METHODS), ListOf(Options(*RESPONSE_METHODS))],
        "the estimator methods that give scores, tried in order; 'auto' tries "
        "decision_function, predict_proba, then predict",
        examples=("predict",),
    ),
    "name": Param(None, [Strings(), _NONE], "the system's name, for the legend",
                  examples=("model A",)),
}


def param(name, where=None):
    """The declaration of parameter ``name`` (of function ``where`` if it has its own)."""
    return PARAMS.get(f"{where}.{name}") or PARAMS[name]


def validate(func):
    """Check every argument of ``func`` that the table declares, at every call.

    The check runs on the arguments as given (defaults are the table's own,
    which a test asserts), so an argument that no requested metric reads is
    still checked.
    """
    sig = inspect.signature(func)
    where = func.__qualname__.replace(".__init__", "")
    declared = [
        p for p in sig.parameters
        if f"{func.__name__}.{p}" in PARAMS or p in PARAMS
    ]

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        try:
            bound = sig.bind(*args, **kwargs)
        except TypeError as exc:
            raise InvalidParameterError(f"{where}(): {exc}") from None
        given = bound.arguments
        for name in declared:
            if name in given:
                value = check_param(name, given[name], param(name, func.__name__), where)
                if value is not given[name]:
                    given[name] = value
        return func(*bound.args, **bound.kwargs)

    wrapper.__signature__ = sig
    return wrapper


# -- metrics -----------------------------------------------------------------------

_GAIN_OPTIONS = ("gain", "discount", "log_base")
_BINARY_OPTIONS = ("threshold",)


class MetricSpec:
    """One registered metric.

    Parameters
    ----------
    name : str
        Canonical short name (``"ndcg"``, ``"map"``, ...).
    function : str
        Name of the public function computing it.
    kernel : callable
        ``kernel(rc, req) -> (values, defined)``.
    kind : {"gain", "binary"}
        Whether the kernel reads graded gains or the relevance indicator.
    options : tuple of str
        The options it reads; their defaults and constraints are in
        :data:`PARAMS`.
    normalized : bool
        Whether values lie in [0, 1] and a row without relevant items is
        undefined (handled by the ``no_relevant`` policy).
    takes_k : bool
        Whether a cut-off ``k`` applies.
    aliases : tuple of str
        Other accepted names.
    description : str
        One line for tables and help texts.
    needs_ideal : bool
        Whether the kernel reads the row's ideal gains (``rc.ideal``).
    greater_is_better : bool
        Direction of the metric (every metric here: True).
    """

    def __init__(self, name, function, kernel, kind, options, *, normalized=True,
                 takes_k=True, aliases=(), description="", needs_ideal=False,
                 greater_is_better=True):
        self.name = name
        self.function = function
        self.kernel = kernel
        self.kind = kind
        self.options = tuple(options)
        self.normalized = normalized
        self.takes_k = takes_k
        self.aliases = tuple(aliases)
        self.description = description
        self.needs_ideal = needs_ideal
        self.greater_is_better = greater_is_better

    @property
    def defaults(self):
        """The options it reads, with their defaults from :data:`PARAMS`."""
        return {o: PARAMS[o].default for o in self.options}

    def __repr__(self):
        return f"MetricSpec({self.name!r})"


METRICS = {}


def _register(spec):
    METRICS[spec.name] = spec
    return spec


_register(MetricSpec(
    "ndcg", "ndcg_score", _kernels.ndcg, "gain", _GAIN_OPTIONS,
    description="normalised discounted cumulative gain", needs_ideal=True,
))
_register(MetricSpec(
    "dcg", "dcg_score", _kernels.dcg, "gain", _GAIN_OPTIONS, normalized=False,
    description="discounted cumulative gain",
))
_register(MetricSpec(
    "cg", "cumulative_gain_score", _kernels.cumulative_gain, "gain",
    ("gain",), normalized=False, aliases=("cumulative_gain",),
    description="cumulative gain (sum of gains in the top k)",
))
_register(MetricSpec(
    "map", "mean_average_precision_score", _kernels.average_precision, "binary",
    (*_BINARY_OPTIONS, "denominator"), aliases=("ap", "mean_average_precision"),
    description="mean average precision",
))
_register(MetricSpec(
    "precision", "precision_at_k_score", _kernels.precision, "binary",
    (*_BINARY_OPTIONS, "adaptive_k"), aliases=("p",),
    description="precision at k",
))
_register(MetricSpec(
    "recall", "recall_at_k_score", _kernels.recall, "binary", _BINARY_OPTIONS,
    aliases=("r",), description="recall at k",
))
_register(MetricSpec(
    "hit_rate", "hit_rate_score", _kernels.hit_rate, "binary", _BINARY_OPTIONS,
    aliases=("hit", "hr", "success"),
    description="hit rate: any relevant item in the top k",
))
_register(MetricSpec(
    "mrr", "reciprocal_rank_score", _kernels.reciprocal_rank, "binary",
    _BINARY_OPTIONS, aliases=("rr", "reciprocal_rank", "recip_rank"),
    description="mean reciprocal rank of the first relevant item",
))
_register(MetricSpec(
    "r_precision", "r_precision_score", _kernels.r_precision, "binary",
    _BINARY_OPTIONS, takes_k=False, aliases=("rprec", "r-precision"),
    description="precision at R, the number of relevant items of the row",
))

# Shorthand names that fix an option ("ndcg_exp" = ndcg with exponential gain).
PRESETS = {
    "ndcg_exp": ("ndcg", {"gain": "exponential"}),
    "dcg_exp": ("dcg", {"gain": "exponential"}),
}

_ALIASES = {a: s.name for s in METRICS.values() for a in (s.name, *s.aliases)}


def _all_names():
    return sorted({*_ALIASES, *PRESETS})


def check_k(k, arg="k"):
    """Return ``k`` as a Python int (or None) or raise naming ``arg``."""
    return check_param(arg, k, PARAMS["k"])


def lookup(name):
    """Return ``(spec, preset_options)`` for a bare metric name."""
    key = name.strip().lower()
    if key in PRESETS:
        base, opts = PRESETS[key]
        return METRICS[base], dict(opts)
    if key in _ALIASES:
        return METRICS[_ALIASES[key]], {}
    close = difflib.get_close_matches(key, _all_names(), n=3, cutoff=0.5)
    hint = f" Did you mean {', '.join(map(repr, close))}?" if close else ""
    raise InvalidParameterError(
        f"unknown metric {name!r}.{hint} Known metrics: {', '.join(_all_names())} "
        "(add '@k' for a cut-off, e.g. 'ndcg@10')."
    )


_NAME_RE = re.compile(r"^\s*([A-Za-z_\-]+)\s*(?:@\s*(\S+))?\s*$")


def parse_name(text):
    """Split ``"ndcg@10"`` into ``(spec, k, preset_options)``."""
    if not isinstance(text, str):
        raise InvalidParameterError(
            f"metric names must be strings, got {type(text).__name__}."
        )
    match = _NAME_RE.match(text)
    if not match:
        raise InvalidParameterError(
            f"cannot read metric name {text!r}; write a name with an optional "
            "cut-off, such as 'ndcg@10', 'map@5' or 'mrr'."
        )
    spec, preset = lookup(match.group(1))
    k = None
    if match.group(2) is not None:
        if not spec.takes_k:
            raise InvalidParameterError(f"metric {spec.name!r} takes no cut-off; drop '@'.")
        digits = match.group(2)
        if not digits.isdigit() or int(digits) < 1:
            raise InvalidParameterError(
                f"the cut-off in {text!r} must be a positive integer, got {digits!r}."
            )
        k = int(digits)
    return spec, k, preset


def _same(a, b):
    try:
        return bool(a == b)
    except Exception:  # arrays: elementwise comparison
        return a is b


class Request:
    """A metric with its cut-off and checked, resolved options, ready for the engine.

    ``preset`` holds the options the metric's name fixes (``"ndcg_exp"``:
    the exponential gain); an explicit option that contradicts it raises.
    """

    def __init__(self, spec, k, options, label, *, preset=None, where=None):
        self.spec = spec
        self.k = k
        self.label = label
        where = where or spec.function
        preset = dict(preset or {})
        unknown = sorted(set(options) - set(spec.options))
        if unknown:
            reads = ", ".join(spec.options) or "no options"
            raise InvalidParameterError(
                f"{where}: {label!r} does not read the option(s) {', '.join(unknown)}; "
                f"{spec.name} reads {reads}."
            )
        for name, value in options.items():
            if name in preset and not _same(value, preset[name]):
                raise InvalidParameterError(
                    f"{where}: the name {label!r} fixes {name}={preset[name]!r}, but "
                    f"{name}={short_repr(value)} was given; use {spec.name!r} with "
                    f"{name}=... instead."
                )
        opts = spec.defaults
        opts.update(preset)
        for name, value in options.items():
            opts[name] = check_param(name, value, PARAMS[name], where)
        self.options = opts
        self.gain = self.discount = None
        self.gain_key = self.rel_key = None
        if spec.kind == "gain":
            self.gain = resolve_gain(opts["gain"])
            g = opts["gain"]
            self.gain_key = "gain:" + (g if isinstance(g, str) else f"id{id(g)}")
            if "discount" in opts:
                self.discount = _cached(resolve_discount(
                    opts["discount"], opts["log_base"], normalized=spec.normalized,
                    metric=label,
                ))
        else:
            self.rel_key = f"rel:{opts['threshold']!r}"

    @property
    def threshold(self):
        return self.options.get("threshold")


def _cached(fn):
    cache = {}

    def f(n):
        if n not in cache:
            cache[n] = fn(n)
        return cache[n]

    return f


def split_request(item, must="metrics must be names"):
    """``(name, options)`` of a metric name or of a ``(name, options)`` pair.

    ``must`` starts the error message, naming the argument.
    """
    if isinstance(item, str):
        return item, {}
    if (isinstance(item, tuple) and len(item) == 2 and isinstance(item[0], str)
            and isinstance(item[1], dict)):
        return item
    raise InvalidParameterError(
        f"{must} such as 'ndcg@10' or (name, options) pairs, got {short_repr(item)}."
    )


def as_metric_list(metrics, arg="metrics"):
    """A metric name, a ``(name, options)`` pair or an iterable of them, as a list."""
    if isinstance(metrics, str) or (
        isinstance(metrics, tuple) and len(metrics) == 2 and isinstance(metrics[0], str)
        and isinstance(metrics[1], dict)
    ):
        return [metrics]
    try:
        out = list(metrics)
    except TypeError:
        raise InvalidParameterError(
            f"{arg} must be a name such as 'ndcg@10' or a list of names or (name, "
            f"options) pairs, got {type(metrics).__name__}."
        ) from None
    if not out:
        raise InvalidParameterError(
            f"{arg} is empty; name at least one metric, e.g. 'ndcg@10'."
        )
    return out


def make_requests(metrics, where=None):
    """Build :class:`Request` objects from names or ``(name, options)`` pairs."""
    out = []
    for item in as_metric_list(metrics):
        label, opts = split_request(item)
        spec, k, preset = parse_name(label)
        out.append(Request(spec, k, opts, label, preset=preset, where=where))
    labels = [r.label for r in out]
    for i, label in enumerate(labels):
        if label in labels[:i]:
            raise InvalidParameterError(
                f"metric {label!r} is named twice; results are keyed by name, so each "
                "must be unique. For the same metric with other options use an alias "
                "(e.g. 'map@10' and 'ap@10') or a second call."
            )
    return out


def metric_names():
    """Names accepted by :func:`evaluate` (append ``@k`` for a cut-off).

    Returns
    -------
    names : list of str
        Canonical metric names, presets and aliases, sorted.

    Examples
    --------
    >>> from sk_rankmetrics import metric_names
    >>> "ndcg" in metric_names() and "ndcg_exp" in metric_names()
    True
    """
    return _all_names()
