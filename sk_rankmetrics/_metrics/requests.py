"""Requests: a metric name with its checked options, ready for the engine."""

from __future__ import annotations

from .._utils.constraints import check_param, same_value
from .._utils.errors import InvalidParameterError, short_repr
from .._utils.labels import twice_at_k, with_cutoff
from .._utils.params import PARAMS
from .gains import resolve_discount, resolve_gain
from .names import parse_name
from .registry import METRICS


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
        options = dict(options)
        #: Whether the ranking loses its unjudged items before this metric reads
        #: it (ir_measures' ``judged_only=True``, trec_eval's ``-J`` for one
        #: measure): an option of every metric, applied by the engine.
        #: The ``no_relevant`` policy the metric's name (or its options) fixes,
        #: whatever the caller's (ir_measures' ``Accuracy`` leaves a query
        #: without a relevant item in its top k out of the mean: ``"skip"``);
        #: None: the caller's.
        if spec.family.startswith("beyond"):
            _beyond_request(spec, k, options, label, where)
        fixed = options.pop("no_relevant", preset.pop("no_relevant", None))
        self.no_relevant = None if fixed is None else check_param(
            "no_relevant", fixed, PARAMS["no_relevant"], where)
        self.judged_only = check_param(
            "judged_only", options.pop("judged_only", preset.pop("judged_only", False)),
            PARAMS["judged_only"], where)
        unknown = sorted(set(options) - set(spec.options))
        if unknown:
            reads = ", ".join(spec.options) or "no options"
            raise InvalidParameterError(
                f"{where}: {label!r} does not read the option(s) {', '.join(unknown)}; "
                f"{spec.name} reads {reads}."
            )
        for name, value in options.items():
            if name in preset and not same_value(value, preset[name]):
                raise InvalidParameterError(
                    f"{where}: the name {label!r} fixes {name}={preset[name]!r}, but "
                    f"{name}={short_repr(value)} was given; use {spec.name!r} with "
                    f"{name}=... instead."
                )
        opts = spec.defaults
        # Options a name fixes are checked as given ones are: 'RBP(p=1.5)' or
        # 'NRBP(beta=2)' is an error naming the name, not a number.
        for name, value in preset.items():
            opts[name] = check_param(name, value, PARAMS[name], f"{where}: {label!r}")
        for name, value in options.items():
            opts[name] = check_param(name, value, PARAMS[name], where)
        if spec.at_option is not None and opts[spec.at_option] is None:
            raise InvalidParameterError(
                f"{where}: {label!r} needs its {spec.at_option}, written after '@': for "
                f"example '{spec.name}@0.5'."
            )
        self.options = opts
        self.gain = self.discount = None
        self.gain_key = self.rel_key = None
        self.keys = []  # every item value the kernel reads
        #: Tables a kernel makes once per call and reads in every row block (ERR's
        #: stop probabilities of tie groups by composition), keyed by the kernel:
        #: the engine gives each call an empty one and lets it go at the end.
        self.memo = {}
        if "gain" in spec.needs:
            g = spec.gain_from(opts, where) if spec.gain_from else opts.get("gain", "linear")
            self.gain = resolve_gain(g)
            self.gain_key = "gain:" + (g if isinstance(g, str)
                                       else getattr(g, "key", None) or f"id{id(g)}")
            self.keys.append(self.gain_key)
            if "discount" in opts:
                self.discount = _cached(resolve_discount(
                    opts["discount"], opts["log_base"], normalized=spec.normalized,
                    metric=label,
                ))
        if "rel" in spec.needs:
            self.rel_key = f"rel:{opts.get('threshold')!r}"
            self.keys.append(self.rel_key)
        if "positive" in spec.needs:  # whether each item's gain is positive
            self.keys.append("pos:" + self.gain_key)
        self.keys += [key for key in ("judged", "pool") if key in spec.needs]
        if "grades" in spec.needs:
            self.keys += [f"grade:{g}" for g in range(1, opts["max_grade"] + 1)]
        ideal = spec.needs_ideal
        self.needs_ideal = bool(ideal(opts) if callable(ideal) else ideal)
        #: Positions read: the cut-off, ``max_docs`` of a whole-ranking measure,
        #: or None (every position, or down to R for R-precision).
        self.depth = k if spec.takes_k else opts.get("max_docs")
        self.reads_to_r = spec.reads_to_r
        #: Neither a cut-off nor the whole ranking: no position (num_rel,
        #: num_q), or down to R (R-precision: the engine adds R).
        self.fixed_depth = not spec.takes_k and not spec.full
        if self.fixed_depth:
            self.depth = 1

    @property
    def scans_rows(self):
        """Whether the request reads each row's scores instead of its ranking
        (MRR without a cut-off, :attr:`MetricSpec.scans_uncut`): a matrix
        block is not ranked for it, unless ties are broken in one order."""
        return self.spec.scans_uncut and self.depth is None

    @property
    def reads_set(self):
        """Whether the request reads only which items are ranked, not their
        order (precision or a set measure without a cut-off or ``max_docs``,
        :attr:`MetricSpec.order_free`), or no position at all (num_rel,
        num_q): a matrix block is not ranked for it."""
        return self.spec.order_free and (self.depth is None or self.fixed_depth)

    @property
    def threshold(self):
        return self.options.get("threshold")

    @property
    def name(self):
        """The measure's canonical name."""
        return self.spec.name

    @property
    def whole(self):
        """Whether the measure has one value for the whole list set."""
        return self.spec.family == "beyond_set"


def _beyond_request(spec, k, options, label, where):
    """A beyond-accuracy measure reads its data from keywords, not options, and
    serendipity needs its cut-off."""
    if options:
        raise InvalidParameterError(
            f"{where}: {label!r} takes no options in a (name, options) pair; its "
            "data are the keywords items=, popularity=, item_features= and "
            "head_share=."
        )
    if spec.name == "serendipity" and k is None:
        raise InvalidParameterError(
            f"{where}: {label!r} needs a cut-off (it counts items outside the k most "
            "popular): write 'serendipity@10' (or pass k=10)."
        )


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


def _parsed(metrics, k, families):
    """``(label, spec, k, preset, options)`` of each metric: a name, a ``(name,
    options)`` pair or a ``(label, options, name)`` triple (a tool's syntax read
    ahead); a global ``k`` cuts the names without one (keyed ``name@k``)."""
    items = []
    for item in as_metric_list(metrics):
        if isinstance(item, tuple) and len(item) == 3:
            label, opts, name = item
        else:
            label, opts = split_request(item)
            name = label
        spec, kk, preset = parse_name(name, families)
        if k is not None and kk is None and spec.takes_k:
            kk, label = k, with_cutoff(label, k)
        items.append((label, spec, kk, preset, opts))
    return items


def _readers(items, given, reads, where):
    """The common options given (``{option: value}``) and, for each, the labels
    of the requested metrics that read it; an argument none reads raises."""
    common, readers = {}, {}
    for option, (arg, value, resolved) in (given or {}).items():
        if value is None or value is False:
            continue
        readers[option] = {label for label, spec, *_ in items if reads(spec, option)}
        if not readers[option]:
            could = sorted({s.name for s in METRICS.values() if reads(s, option)})
            raise InvalidParameterError(
                f"{where}: {arg}={short_repr(value)} is read by none of the requested "
                f"metrics ({', '.join(label for label, *_ in items)}); it applies to "
                f"{', '.join(could)}."
            )
        if option not in ("max_docs", "judged_only"):  # checked only: they cut the ranking
            common[option] = resolved
    return common, readers


def _reads(spec, option):
    return option in spec.options


def check_unique(labels, k=None, where=None, arg="metrics"):
    """Raise when a label is given twice: results are keyed by label (the one
    message of every entry point)."""
    if len(set(labels)) != len(labels):
        here = f"{where}: " if where else ""
        verb = "names" if arg == "metrics" else "gives"
        raise InvalidParameterError(
            f"{here}{arg} {verb} a metric twice: {labels}{twice_at_k(labels, k)}; results "
            "are keyed by name, so each must be unique. For the same metric with other "
            "options use an alias (e.g. 'map@10' and 'ap@10') or a second call."
        )


def make_requests(metrics, where=None, *, k=None, given=None, fixed=None, reads=None,
                  fixed_reaches=None, families=()):
    """Build :class:`Request` objects from names or ``(name, options)`` pairs:
    the one request builder of every entry point.

    ``k`` is the global cut-off (a name without one is scored and keyed at
    ``@k``). ``given`` maps an option to ``(argument, value, resolved)``: the
    user's argument name and value (``None`` or ``False``: not given) and the
    option value it becomes; it reaches exactly the metrics that read it, as
    ``reads(spec, option)`` says (the options a metric reads unless a setting's
    rule is given, such as trec_eval's table), and an argument that no
    requested metric reads raises, since it would be silently ignored.
    ``fixed`` are options a setting imposes on every metric that reads them and
    for which ``fixed_reaches(spec)`` holds (all, if not given). ``families``:
    the beyond-accuracy families the caller computes (see :func:`.parse_name`).
    """
    reads = reads or _reads
    items = _parsed(metrics, k, families)
    common, readers = _readers(items, given, reads, where)
    common = {**(fixed or {}), **common}
    requests = []
    for label, spec, kk, preset, opts in items:
        setting_ok = fixed_reaches is None or fixed_reaches(spec)
        extra = {o: v for o, v in common.items() if o in spec.options and o not in preset
                 and (o not in readers or label in readers[o])
                 and (o in readers or o not in (fixed or {}) or setting_ok)}
        requests.append(Request(spec, kk, {**extra, **opts}, label, preset=preset,
                                where=where))
    check_unique([r.label for r in requests], k, where)
    return requests
