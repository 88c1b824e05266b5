"""The metric registry: every metric is registered here once.

A :class:`MetricSpec` ties a name to its kernel, the item values it needs
(gain or relevance indicator), its options with their defaults and its
direction. Metric names such as ``"ndcg@10"`` or ``"map@5"`` are parsed here;
the public functions, scorers, command line, docs table and common tests all
read this registry.
"""

from __future__ import annotations

import difflib
import math
import numbers
import re

from . import _kernels
from ._conventions import resolve_discount, resolve_gain
from ._validation import check_flag

_GAIN_OPTIONS = {"gain": "linear", "discount": "log", "log_base": 2}
_BINARY_OPTIONS = {"threshold": None}


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
    options : dict
        Metric-specific options and their defaults.
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

    def __init__(
        self,
        name,
        function,
        kernel,
        kind,
        options,
        *,
        normalized=True,
        takes_k=True,
        aliases=(),
        description="",
        needs_ideal=False,
        greater_is_better=True,
    ):
        self.name = name
        self.function = function
        self.kernel = kernel
        self.kind = kind
        self.options = dict(options)
        self.normalized = normalized
        self.takes_k = takes_k
        self.aliases = tuple(aliases)
        self.description = description
        self.needs_ideal = needs_ideal
        self.greater_is_better = greater_is_better

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
    {"gain": "linear"}, normalized=False, aliases=("cumulative_gain",),
    description="cumulative gain (sum of gains in the top k)",
))
_register(MetricSpec(
    "map", "mean_average_precision_score", _kernels.average_precision, "binary",
    {**_BINARY_OPTIONS, "denominator": "min_k_relevant"},
    aliases=("ap", "mean_average_precision"),
    description="mean average precision",
))
_register(MetricSpec(
    "precision", "precision_at_k_score", _kernels.precision, "binary",
    {**_BINARY_OPTIONS, "adaptive_k": False}, aliases=("p",),
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

_DENOMINATORS = ("min_k_relevant", "relevant")


def _all_names():
    return sorted({*_ALIASES, *PRESETS})


def check_k(k, arg="k"):
    """Return ``k`` as an int (or None) or raise a clear error."""
    if k is None:
        return None
    if isinstance(k, bool) or not isinstance(k, numbers.Integral):
        raise TypeError(f"{arg} must be a positive integer or None, got {k!r}.")
    if k < 1:
        raise ValueError(f"{arg} must be >= 1 (or None for all positions), got {k}.")
    return int(k)


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
    raise ValueError(
        f"unknown metric {name!r}.{hint} Known metrics: {', '.join(_all_names())} "
        "(add '@k' for a cut-off, e.g. 'ndcg@10')."
    )


_NAME_RE = re.compile(r"^\s*([A-Za-z_\-]+)\s*(?:@\s*(\S+))?\s*$")


def parse_name(text):
    """Split ``"ndcg@10"`` into ``(spec, k, preset_options)``."""
    if not isinstance(text, str):
        raise TypeError(f"metric names must be strings, got {type(text).__name__}.")
    match = _NAME_RE.match(text)
    if not match:
        raise ValueError(
            f"cannot read metric name {text!r}; write a name with an optional "
            "cut-off, such as 'ndcg@10', 'map@5' or 'mrr'."
        )
    spec, preset = lookup(match.group(1))
    k = None
    if match.group(2) is not None:
        if not spec.takes_k:
            raise ValueError(f"metric {spec.name!r} takes no cut-off; drop '@'.")
        try:
            k = int(match.group(2))
        except ValueError:
            raise ValueError(
                f"cut-off in {text!r} must be a positive integer, got "
                f"{match.group(2)!r}."
            ) from None
        k = check_k(k, arg=f"the cut-off of {text!r}")
    return spec, k, preset


class Request:
    """A metric with its cut-off and resolved options, ready for the engine."""

    def __init__(self, spec, k, options, label):
        self.spec = spec
        self.k = k
        self.label = label
        opts = dict(spec.options)
        unknown = set(options) - set(opts)
        if unknown:
            raise TypeError(
                f"{spec.function}() got unexpected option(s) {sorted(unknown)}; "
                f"it accepts {sorted(opts)}."
            )
        opts.update(options)
        self.options = opts
        self.gain = self.discount = None
        self.gain_key = self.rel_key = None
        if spec.kind == "gain":
            self.gain = resolve_gain(opts["gain"])
            g = opts["gain"]
            self.gain_key = "gain:" + (g if isinstance(g, str) else f"id{id(g)}")
            if "discount" in opts:
                self.discount = _cached(resolve_discount(opts["discount"], opts["log_base"]))
        else:
            thr = opts["threshold"]
            if thr is not None and (
                isinstance(thr, bool) or not isinstance(thr, numbers.Real)
            ):
                raise TypeError(
                    f"threshold must be a real number or None, got {thr!r}."
                )
            if thr is not None and not math.isfinite(thr):
                raise ValueError(
                    f"threshold must be a finite number or None, got {thr!r}; NaN "
                    "or infinity would make no item (or every item) relevant."
                )
            self.rel_key = f"rel:{thr!r}"
        if spec.name == "map" and opts["denominator"] not in _DENOMINATORS:
            raise ValueError(
                f"denominator={opts['denominator']!r} is not known. Accepted: "
                "'min_k_relevant' (AP divided by min(k, R): a perfect top k scores "
                "1) or 'relevant' (divided by R, as trec_eval and ranx)."
            )
        if spec.name == "precision":
            opts["adaptive_k"] = check_flag(opts["adaptive_k"], "adaptive_k")

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
    raise TypeError(
        f"{must} such as 'ndcg@10' or (name, options) pairs, got {item!r}."
    )


def make_requests(metrics, **common):
    """Build :class:`Request` objects from names or ``(name, options)`` pairs."""
    if isinstance(metrics, str):
        metrics = [metrics]
    try:
        metrics = list(metrics)
    except TypeError:
        raise TypeError(
            "metrics must be a name such as 'ndcg@10' or a list of names or (name, "
            f"options) pairs, got {type(metrics).__name__}."
        ) from None
    out = []
    for item in metrics:
        label, opts = split_request(item)
        spec, k, preset = parse_name(label)
        out.append(Request(spec, k, {**preset, **opts}, label))
    if not out:
        raise ValueError("metrics is empty; name at least one metric, e.g. 'ndcg@10'.")
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
