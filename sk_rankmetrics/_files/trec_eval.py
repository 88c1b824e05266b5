"""trec_eval's measure names, parameters, measure sets and output lines.

:data:`MEASURES` lists trec_eval 10.0's measures in its own order (the order
it prints them in). Each entry says how a measure maps to this package: the
metric it is (a name :func:`~sk_rankmetrics._metrics.names.parse_name` reads), the
syntax of its parameters (``P.5,10``, ``iprec_at_recall.0.1,0.5``,
``ndcg.1=3,2=9``, ``utility.1,-1,0,0``, ``rbp.p=0.8``), its defaults, how its
printed names are made and how its ``all`` line is printed. A measure without
a metric (the preference and judgement-group measures) is not supported:
asking for it raises, naming it.
"""

from __future__ import annotations

import math
import re

#: trec_eval's default cut-offs.
CUTOFFS = (5, 10, 15, 20, 30, 100, 200, 500, 1000)
_LEVELS = (0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0)
_MULTIPLES = (0.2, 0.4, 0.6, 0.8, 1.0, 1.2, 1.4, 1.6, 1.8, 2.0)


class TrecMeasure:
    """One trec_eval measure.

    Parameters
    ----------
    name : str
        trec_eval's name (``"P"``, ``"iprec_at_recall"``).
    metric : str or None
        This package's metric (a name :func:`parse_name` reads); None: not
        supported. Cut-off measures append ``@k`` (or the level).
    params : {None, "cutoffs", "levels", "gains", "values", "pairs"}
        The syntax of ``-m name.PARAMS``: integer cut-offs (printed
        ``name_k``), real levels (printed ``name_0.10``), ``level=gain``
        pairs, a list of reals, or ``name=value`` pairs (``rbp.p=0.8``).
    defaults : tuple
        Default parameters.
    show : {"mean", "count", "runid", "integer", "string"}
        How values are printed: 4 decimals; the number of queries; the run
        tag; integers (counts); a quoted string (relstring).
    per_query : bool
        Whether ``-q`` prints a line per query.
    options : callable, optional
        ``options(params) -> dict``: the package options of the parameters.
    """

    def __init__(self, name, metric=None, params=None, defaults=(), show="mean",
                 per_query=True, options=None, summary=True):
        self.name = name
        self.metric = metric
        self.params = params
        self.defaults = tuple(defaults)
        self.show = show
        self.per_query = per_query
        self.options = options
        self.summary = summary

    @property
    def supported(self):
        return self.metric is not None or self.show in ("count", "runid", "string")


def _m(*args, **kwargs):
    m = TrecMeasure(*args, **kwargs)
    return m.name, m


def _gain_options(params):
    return {} if params is None else {"gain": params[1]}


def _payoffs(values):
    if len(values) != 4:
        raise ValueError("utility takes 4 values (relevant retrieved, non-relevant "
                         f"retrieved, relevant missed, non-relevant missed), got {len(values)}.")
    return {"payoffs": tuple(values)}


def _recall_levels(values):
    return {"recall_levels": tuple(values)}


def _set_f(values):
    # trec_eval's x weighs recall against precision: (x + 1) P R / (x P + R),
    # which is F_beta with beta**2 = x.
    if values[0] <= 0:
        raise ValueError(f"set_F takes a positive weight, got {values[0]:g}.")
    return {"beta": math.sqrt(values[0])}


def _rbp(pairs, trec_default=0.9):
    out = {"p": trec_default, "graded": True}
    for key, value in (pairs or {}).items():
        if key != "p":
            raise ValueError(f"rbp takes p=VALUE (persistence), not {key}={value:g}; per-level "
                             "gains of rbp are not supported.")
        out["p"] = value
    return out


def _rbp_resid(pairs):
    out = _rbp(pairs)
    del out["graded"]
    return {**out, "zero_if_judged": True}


#: trec_eval 10.0's measures, in its order.
MEASURES = dict([
    _m("runid", show="runid", per_query=False),
    _m("num_q", "num_q", show="count", per_query=False),
    _m("num_ret", "num_ret", show="integer"),
    _m("num_rel", "num_rel", show="integer"),
    _m("num_rel_ret", "num_rel_ret", show="integer"),
    _m("map", "map"),
    _m("gm_map", "gm_map", per_query=False),
    _m("Rprec", "r_precision"),
    _m("bpref", "bpref"),
    _m("recip_rank", "mrr"),
    _m("iprec_at_recall", "iprec_at_recall", "levels", _LEVELS),
    _m("P", "precision", "cutoffs", CUTOFFS),
    _m("relstring", params="values", defaults=(10.0,), show="string", summary=False),
    _m("recall", "recall", "cutoffs", CUTOFFS),
    _m("infAP", "infap"),
    _m("gm_bpref", "gm_bpref", per_query=False),
    _m("Rprec_mult", "rprec_mult", "levels", _MULTIPLES),
    _m("utility", "utility", "values", (1.0, -1.0, 0.0, 0.0), options=_payoffs),
    _m("11pt_avg", "11pt_avg", "values", _LEVELS, options=_recall_levels),
    _m("binG", "bing"),
    _m("G", "g", "gains", options=_gain_options),
    _m("dcg"), _m("ideal_dcg"),
    _m("ndcg", "ndcg", "gains", options=_gain_options),
    _m("ndcg_rel", "ndcg_rel", "gains", options=_gain_options),
    _m("Rndcg", "rndcg", "gains", options=_gain_options),
    _m("ndcg_cut", "ndcg", "cutoffs", CUTOFFS),
    _m("map_cut", "map", "cutoffs", CUTOFFS),
    _m("relative_P", "relative_p", "cutoffs", CUTOFFS),
    _m("success", "hit_rate", "cutoffs", (1, 5, 10)),
    _m("set_P", "set_p"),
    _m("set_relative_P", "set_relative_p"),
    _m("set_recall", "set_recall"),
    _m("set_map", "set_map"),
    _m("set_F", "set_f", "values", (1.0,), options=_set_f),
    _m("num_nonrel_judged_ret", "num_nonrel_judged_ret", show="integer"),
    _m("prefs_num_prefs_poss"), _m("prefs_num_prefs_ful"), _m("prefs_num_prefs_ful_ret"),
    _m("prefs_simp"), _m("prefs_pair"), _m("prefs_avgjg"), _m("prefs_avgjg_Rnonrel"),
    _m("prefs_simp_ret"), _m("prefs_pair_ret"), _m("prefs_avgjg_ret"),
    _m("prefs_avgjg_Rnonrel_ret"), _m("prefs_simp_imp"), _m("prefs_pair_imp"),
    _m("prefs_avgjg_imp"), _m("map_avgjg"), _m("P_avgjg"), _m("Rprec_mult_avgjg"),
    _m("yaap"),
    _m("rbp", "rbp", "pairs", options=_rbp),
    _m("rbp_resid", "rbp_resid", "pairs", options=_rbp_resid),
    _m("unj", "unjudged", "cutoffs", (5, 10, 20)),
])

#: trec_eval's global options and the arguments of evaluate_run they become.
GLOBAL_OPTIONS = {"-l": "threshold", "-M": "max_docs", "-J": "judged_only", "-N": "n_docs",
                  "-c": "complete"}

_ALL = "lMJc"
#: Which global options each measure reads, from trec_eval 10.0's source: a letter
#: of ``-l``, ``-M``, ``-J``, ``-N``, ``-c`` when the option can change the
#: measure's value (per query, or for ``-c`` its ``all`` line).
#:
#: - ``-M`` and ``-J`` act in ``te_form_res_rels`` (``form_res_rels.c``), which
#:   cuts the ranking at ``-M`` and, with ``-J``, drops the unjudged documents:
#:   every measure of the ranking reads them, except where dropping unjudged
#:   documents cannot change the value (``num_rel_ret``, ``num_nonrel_judged_ret``,
#:   ``bpref``, ``gm_bpref``, ``set_recall``: judged documents keep their order).
#:   ``num_rel`` counts the qrels only.
#: - ``-l`` is ``epi->relevance_level``: ``res_rels.num_rel`` and every test
#:   ``rel >= relevance_level`` in the ``m_*.c`` files. The gain measures
#:   (``ndcg*``, ``G``, ``rbp*``) and ``unj`` read levels, not the level;
#:   ``Rndcg`` reads it only to return 0 when ``num_rel`` is 0.
#: - ``-N`` is ``epi->num_docs_in_coll``, read by ``m_utility.c`` alone (its
#:   fourth payoff, the missed non-relevant documents).
#: - ``-c`` (``trec_eval.c``) adds the qrels' queries missing from the run, with
#:   an empty ranking: it changes every mean, ``num_q`` and ``num_rel``'s sum, but
#:   not the sums of retrieved documents, which the added queries leave at 0.
READS = {
    "runid": "", "num_q": "c", "num_ret": "MJ", "num_rel": "lc", "num_rel_ret": "lM",
    "map": _ALL, "gm_map": _ALL, "Rprec": _ALL, "bpref": "lMc", "recip_rank": _ALL,
    "iprec_at_recall": _ALL, "P": _ALL, "relstring": "MJ", "recall": _ALL, "infAP": _ALL,
    "gm_bpref": "lMc", "Rprec_mult": _ALL, "utility": "lMJNc", "11pt_avg": _ALL,
    "binG": _ALL, "G": "MJc", "ndcg": "MJc", "ndcg_rel": "MJc", "Rndcg": _ALL,
    "ndcg_cut": "MJc", "map_cut": _ALL, "relative_P": _ALL, "success": _ALL,
    "set_P": _ALL, "set_relative_P": _ALL, "set_recall": "lMc", "set_map": _ALL,
    "set_F": _ALL, "num_nonrel_judged_ret": "lM", "rbp": "MJc", "rbp_resid": "MJc",
    "unj": "MJc",
}


def reads(measure):
    """The evaluate_run arguments (``threshold``, ...) trec_eval's ``measure`` reads."""
    letters = READS[measure]
    return frozenset(arg for flag, arg in GLOBAL_OPTIONS.items() if flag[1] in letters)


def _by_metric():
    from .._metrics.names import parse_name

    out = {}
    for name in READS:
        if MEASURES[name].metric is None:
            continue
        metric = parse_name(MEASURES[name].metric)[0].name
        # A package metric behind several trec_eval measures (map, map_cut, gm_map)
        # reads what they all read; only -c may differ (gm_map has no per-query line).
        out[metric] = out.get(metric, frozenset()) | reads(name)
    return out


_READS_BY_METRIC = None


def reads_option(spec, option, trec):
    """Whether metric ``spec`` reads evaluate_run's argument ``option``.

    A metric that is a trec_eval measure reads what :data:`READS` says (for
    ``threshold``, in the trec_eval setting only: outside it ``rbp`` is binary
    at the threshold, in it graded, as trec_eval's). Another metric reads
    ``threshold`` and ``n_docs`` when they are its options, and ``max_docs``,
    ``judged_only`` and ``complete`` always (they change its ranking or its
    queries). The engine passes an argument to the
    metrics that read it, and an argument that no requested metric reads raises:
    both ask this function.
    """
    global _READS_BY_METRIC
    if _READS_BY_METRIC is None:
        _READS_BY_METRIC = _by_metric()
    if spec.name in _READS_BY_METRIC and (trec or option != "threshold"):
        return option in _READS_BY_METRIC[spec.name]
    if option in ("threshold", "n_docs"):
        return option in spec.options
    return True


def option_rule(trec):
    """``reads(spec, option)`` for the request builder: :func:`reads_option`,
    except ``gain`` (not one of trec_eval's global options), read by the
    metrics that take it."""

    def reads(spec, option):
        return option in spec.options if option == "gain" else reads_option(spec, option, trec)

    return reads


def is_trec_measure(spec):
    """Whether metric ``spec`` is one that trec_eval computes (the trec_eval
    setting's fixed options, such as ``rbp``'s ``p=0.9``, reach only these)."""
    global _READS_BY_METRIC
    if _READS_BY_METRIC is None:
        _READS_BY_METRIC = _by_metric()
    return spec.name in _READS_BY_METRIC


_OFFICIAL = ("runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map",
             "Rprec", "bpref", "recip_rank", "iprec_at_recall", "P")
#: trec_eval's measure sets (``-m official``, ...); ``official`` is the default.
SETS = {
    "official": _OFFICIAL,
    "all_trec": (*_OFFICIAL, "relstring", "recall", "unj", "rbp", "rbp_resid", "infAP",
                 "gm_bpref", "utility", "11pt_avg", "ndcg", "relative_P", "Rprec_mult",
                 "success", "map_cut", "ndcg_cut", "ndcg_rel", "Rndcg", "binG", "G",
                 "set_P", "set_recall", "set_relative_P", "set_map", "set_F",
                 "num_nonrel_judged_ret"),
    "set": ("runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "utility", "set_P",
            "set_recall", "set_relative_P", "set_map", "set_F"),
    "all_prefs": ("runid", "num_q", "prefs_num_prefs_poss", "prefs_num_prefs_ful",
                  "prefs_num_prefs_ful_ret", "prefs_simp", "prefs_pair", "prefs_avgjg",
                  "prefs_avgjg_Rnonrel", "prefs_simp_ret", "prefs_pair_ret",
                  "prefs_avgjg_ret", "prefs_avgjg_Rnonrel_ret", "prefs_simp_imp",
                  "prefs_pair_imp", "prefs_avgjg_imp"),
    "prefs": ("runid", "num_q", "prefs_num_prefs_poss", "prefs_num_prefs_ful",
              "prefs_num_prefs_ful_ret", "prefs_simp", "prefs_pair", "prefs_avgjg"),
    "qrels_jg": ("runid", "num_q", "map_avgjg", "P_avgjg", "Rprec_mult_avgjg"),
}

_LEADING_INT = re.compile(r"^\s*([+-]?\d+)")
_NUMBER = r"[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?"
_GAIN_ITEM = re.compile(rf"^\s*([+-]?\d+)\s*=\s*({_NUMBER})\s*$")
_PAIR = re.compile(rf"^\s*([A-Za-z_]\w*)\s*=\s*({_NUMBER})\s*$")
_REAL = re.compile(rf"^\s*({_NUMBER})")


class UnsupportedMeasure(ValueError):
    """A trec_eval measure this package does not compute."""


def _cutoffs(text, spec):
    values = []
    for part in text.split(","):
        m = _LEADING_INT.match(part)  # trec_eval reads each with atol: 23.4 -> 23
        if not m or int(m.group(1)) < 1:
            raise ValueError(f"measure {spec!r}: cut-off {part!r} is not a positive integer.")
        values.append(int(m.group(1)))
    twice = sorted({v for v in values if values.count(v) > 1})
    if twice:  # trec_eval: "duplicate cutoffs detected" (5 and 5.5 are both 5 to atol)
        raise ValueError(f"measure {spec!r}: cut-off {twice[0]} is given twice; give each "
                         "once.")
    return tuple(sorted(values))


def _reals(text, spec):
    values = []
    for part in text.split(","):
        m = _REAL.match(part)  # trec_eval reads each with atof
        if not m:
            raise ValueError(f"measure {spec!r}: {part!r} is not a number.")
        values.append(float(m.group(1)))
    return tuple(values)


def _parsed_pairs(text, spec, pattern, what):
    out = {}
    for part in text.split(","):
        m = pattern.match(part)
        if not m:
            raise ValueError(f"measure {spec!r}: {part!r} is not a {what} pair.")
        key = float(m.group(1)) if pattern is _GAIN_ITEM else m.group(1)
        out[key] = float(m.group(2))
    return out


def parse_measures(specs, ignored=None):
    """``-m`` arguments -> ``{name: params}`` in trec_eval's order.

    ``params`` is a tuple (cut-offs, levels or values), a ``(text, dict)``
    pair for ``level=gain`` or ``name=value`` parameters, or None for the
    defaults. A measure given parameters twice (``-m P.5 -m P.10``) keeps the
    first, as trec_eval does (it reads the first ``-m`` entry that names the
    measure); each later entry whose parameters differ is appended to the
    list ``ignored`` as ``(spec, first spec)``. Raises
    :class:`UnsupportedMeasure` naming every measure asked for (directly or
    through a set) that is not supported, and ValueError for a name trec_eval
    does not know.
    """
    chosen = {}
    given = {}  # measure -> the spec whose parameters it keeps
    missing = []
    for spec in specs or ["official"]:
        name, _, param = spec.partition(".")
        if name in SETS and not param:
            names = SETS[name]
        elif name in MEASURES:
            names = (name,)
        else:
            known = ", ".join([*SETS, *MEASURES])
            raise ValueError(f"unknown trec_eval measure {spec!r}; trec_eval knows {known}.")
        for n in names:
            m = MEASURES[n]
            if not m.supported:
                if n not in missing:
                    missing.append(n)
                continue
            if not param:
                chosen.setdefault(n, None)
                continue
            value = _parameters(m, param, spec)
            if n in given:
                if ignored is not None and _parsed(value) != _parsed(chosen[n]):
                    ignored.append((spec, given[n]))
                continue
            given[n], chosen[n] = spec, value
    if missing:
        raise UnsupportedMeasure(
            f"trec_eval measure{'s' if len(missing) > 1 else ''} not supported: "
            f"{', '.join(missing)} (preference and judgement-group measures need files "
            "this package does not read)."
        )
    order = list(MEASURES)
    return dict(sorted(chosen.items(), key=lambda kv: order.index(kv[0])))


def _parameters(m, param, spec):
    """The parameters ``param`` of measure ``m``, parsed (see :func:`parse_measures`)."""
    if m.params is None:
        raise ValueError(f"measure {spec!r}: {m.name} takes no parameters.")
    if m.params == "cutoffs":
        return _cutoffs(param, spec)
    if m.params == "levels":
        values = _reals(param, spec)
        if len(set(values)) != len(values):
            raise ValueError(f"measure {spec!r}: duplicate levels.")
        return tuple(sorted(values))
    if m.params == "values":
        return (param, _reals(param, spec))
    if m.params == "gains":
        return (param, _parsed_pairs(param, spec, _GAIN_ITEM, "level=gain"))
    return (param, _parsed_pairs(param, spec, _PAIR, "name=value"))


def _parsed(value):
    """Parameters without their text: ``(text, parsed)`` -> ``parsed``."""
    return value[1] if isinstance(value, tuple) and value and isinstance(value[0], str) \
        else value


def ignored_parameters(specs):
    """``[(spec, first spec)]``: the ``-m`` entries whose parameters trec_eval
    ignores, because an earlier entry gave the same measure other parameters
    (:func:`parse_measures`); entries it does not know are left to it."""
    ignored = []
    try:
        parse_measures([s for s in specs if is_syntax(s)], ignored)
    except ValueError:
        return []
    return ignored


def is_syntax(name):
    """Whether ``name`` is trec_eval's ``-m`` syntax (a set, or ``measure.params``)."""
    return name in SETS or ("." in name and name.partition(".")[0] in MEASURES)


def requests(chosen):
    """``[(measure, name, key, options)]`` of the chosen measures, in output order.

    ``name`` is the printed name (``P_5``, ``ndcg_1=3,2=9``), ``key`` a metric
    name (also the key of the result) and ``options`` its options (a dict,
    possibly empty; the gains of ``ndcg.L=G`` come back as a mapping to be
    completed over the qrels' levels).
    """
    out = []
    for top, params in chosen.items():
        m = MEASURES[top]
        if m.metric is None:
            continue
        if m.params in ("cutoffs", "levels"):
            values = m.defaults if params is None else params
            for v in values:
                name = f"{top}_{v}" if m.params == "cutoffs" else f"{top}_{v:3.2f}"
                out.append((top, name, name, {}))
            continue
        text, value = (None, None) if params is None else params
        if m.params == "values" and value is None:
            value = m.defaults
        options = {}
        if m.options is not None:
            options = m.options(value) if m.params != "gains" else m.options(params)
        name = top if text is None else f"{top}_{text}"
        out.append((top, name, m.metric, options))
    return out


#: trec_eval's measures whose values are text (the run tag, relevance strings):
#: the command prints them; evaluate_run, which returns numbers, refuses them.
TEXT_MEASURES = ("runid", "relstring")


class TrecGains(dict):
    """trec_eval's gains (``ndcg.L=G``, evaluate_run's ``gains``) completed over
    the levels: a dict that says where it came from (see :func:`negative_gains`)."""


def complete_gains(levels, gains):
    """trec_eval's ``ndcg.L=G``: a gain for every level, a level not listed keeps its level.

    ``levels`` are the qrels' (judged) levels; the result maps each of them, and
    0, to its gain. A negative level listed keeps its gain: the default setting
    gives it to the documents of that level (in the DCG and the ideal); the
    trec_eval setting refuses it unless it is 0 (:func:`negative_gains`).
    """
    import numpy as np

    mapping = TrecGains({float(lv): float(lv) for lv in np.unique(np.append(levels, 0.0))})
    mapping.update({float(k): float(v) for k, v in gains.items()})
    return mapping


#: Why the trec_eval setting refuses a gain for a negative level (m_ndcg.c).
NEGATIVE_GAIN_WHY = (
    "trec_eval gives the gain listed for -2 to every retrieved document of a negative "
    "level and the one listed for -1 to every retrieved document the qrels do not "
    "judge, in the DCG but not in the ideal, so that nDCG can exceed 1 "
    "(docs/which_ndcg.md, trec_eval's quirks)"
)


def negative_gain(gain):
    """``(level, gain)``: the lowest negative level that trec_eval's gains
    (``ndcg.-2=1``, ``gains={-2: 1}``) give a gain other than 0, or None.

    trec_eval (``m_ndcg.c``) codes a retrieved document whose qrels level is
    negative as -2 and one the qrels do not name as -1, then looks these codes
    up in the gains (:data:`NEGATIVE_GAIN_WHY`). A gain of 0 is what trec_eval
    gives those documents anyway, and is accepted.
    """
    if not isinstance(gain, TrecGains):
        return None
    bad = sorted((k, v) for k, v in gain.items() if k < 0 and v != 0)
    return bad[0] if bad else None


def negative_gains(requests):
    """Raise on a request whose trec_eval gains give a negative level a gain
    other than 0 (:func:`negative_gain`): the trec_eval setting refuses it."""
    for req in requests:
        found = negative_gain(req.options.get("gain"))
        if found is not None:
            level, gain = found
            raise ValueError(
                f"{req.label}: a gain for the negative level {level:g} ({level:g}={gain:g}) "
                f"is not reproduced in the trec_eval setting: {NEGATIVE_GAIN_WHY}. "
                "Accepted: gains for levels >= 0 (negative levels are then worth 0, as in "
                "trec_eval), or the default setting (no setting=\"trec_eval\", no "
                "--trec-eval), where a gain listed for a negative level is that level's "
                "gain in the DCG and the ideal."
            )


def metric_requests(chosen, levels, *, text="skip"):
    """The metrics of trec_eval's chosen measures: ``[(printed, options, metric)]``.

    The one path from trec_eval's ``-m`` syntax to this package's metrics,
    used by ``evaluate_run`` and ``sk-rankmetrics trec_eval`` alike: each
    printed name (``P_5``, ``ndcg_1=3,2=9``, ``num_q``) with the options of
    its parameters, gains completed over ``levels`` (:func:`complete_gains`)
    and the metric name it is. The text measures (:data:`TEXT_MEASURES`) are
    left out (``text="skip"``) or refused (``text="raise"``).
    """
    out = []
    for _, printed, key, options in requests(chosen):
        if "gain" in options:
            options = {**options, "gain": complete_gains(levels, options["gain"])}
        out.append((printed, dict(options), key))
    texts = [n for n in chosen if n in TEXT_MEASURES]
    if texts and text == "raise":
        raise ValueError(
            f"trec_eval's {' and '.join(texts)} {'is' if len(texts) == 1 else 'are'} text, "
            "not a number per query; evaluate_run returns numbers. The command prints "
            f"{'it' if len(texts) == 1 else 'them'}: sk-rankmetrics trec_eval -q "
            + " ".join(f"-m {n}" for n in texts) + " QRELS RUN."
        )
    return out


def quirk_needs(chosen, *, judged_only, complete):
    """The counts :func:`reproduce_quirks` needs: ``[(label, metric)]`` to add to a request."""
    need = []
    if judged_only and ("iprec_at_recall" in chosen or "11pt_avg" in chosen):
        need += [("num_ret ", "num_ret"), ("num_rel ", "num_rel")]
    if "Rndcg" in chosen:
        need.append(("num_rel ", "num_rel"))
    return list(dict.fromkeys(need))


def reproduce_quirks(result, chosen, rows, metrics, *, qrels, run_qids, judged_only, complete,
                     n_docs):
    """trec_eval 10's deterministic quirks, in place of the values it intends.

    The command promises trec_eval's bytes, so it applies these to the values
    of ``evaluate_run(..., setting="trec_eval")``, which keeps the intended
    values (docs/which_ndcg.md, "trec_eval's quirks"). Each is read off
    trec_eval 10's source:

    - ``-J``, a query whose ranking is empty once the unjudged documents are
      removed: ``iprec_at_recall`` and ``11pt_avg`` divide 0 by 0 for every
      recall level whose ``lround(level * num_rel)`` is 0 (``11pt_avg`` then
      averages that NaN in), and the mean of the NaN is NaN.
    - ``Rndcg``, a query with relevant documents at the level (``-l``) but no
      judged level of positive gain (``-l 0`` on a query judged only 0): 0 / 0.
    - ``-c`` without ``-J``: a query the run lacks is scored on one unjudged
      document (``ceci_nest_pas_un_docno``), and trec_eval resets only the
      measures named exactly ``utility``, ``relstring``, ``rbp_resid`` (and
      ``unj*``) afterwards: a parameterised ``utility`` counts that document
      as retrieved and not relevant, ``rbp_resid.p=x`` is 1 and
      ``relstring.N`` shows ``-``.

    ``rows`` are :func:`requests`' rows keyed by printed name, ``metrics`` the
    ``(printed, options, metric)`` requests; ``result`` is changed in place.
    Returns the relstrings of missing queries to show as ``-`` (a boolean
    mask over ``result.query_ids``), or None.
    """
    import numpy as np

    per_query, mean = result.per_query, result.mean
    qids = result.query_ids

    def set_nan(name, mask):
        if mask.any():
            values = per_query[name].astype(float, copy=True)
            values[mask] = np.nan
            per_query[name] = values
            mean[name] = float(np.mean(values))

    if judged_only and ("iprec_at_recall" in chosen or "11pt_avg" in chosen):
        empty = per_query["num_ret "] == 0
        num_rel = per_query["num_rel "]
        for top, name, _, options in rows:
            if top == "iprec_at_recall":
                level = float(name.rsplit("_", 1)[1])
                set_nan(name, empty & (np.floor(level * num_rel + 0.5) == 0))
            elif top == "11pt_avg":
                levels = np.asarray(options["recall_levels"], dtype=float)
                zero = (np.floor(np.outer(num_rel, levels) + 0.5) == 0).any(axis=1)
                set_nan(name, empty & zero)
    if "Rndcg" in chosen:
        rel = qrels.relevance
        judged = rel >= 0
        for printed, options, metric in metrics:
            if metric != "rndcg":
                continue
            gain = rel[judged].copy()
            for level, g in (options.get("gain") or {}).items():
                gain[rel[judged] == level] = g
            # largest gain of each query's judged documents (-inf: none judged)
            names, inverse = np.unique(qrels.qid[judged], return_inverse=True)
            best = np.full(names.size, -np.inf)
            np.maximum.at(best, inverse, gain)
            top = np.full(len(qids), -np.inf)
            if names.size:
                at = np.minimum(np.searchsorted(names, qids), names.size - 1)
                found = names[at] == qids
                top[found] = best[at[found]]
            set_nan(printed, (per_query["num_rel "] > 0) & ~(top > 0))
    missing = None
    if complete and not judged_only:
        missing = ~np.isin(qids, run_qids)
        if missing.any():
            for printed, options, metric in metrics:
                values = None
                if metric == "utility" and printed != "utility":
                    p = options["payoffs"]
                    values = per_query[printed] + missing * (p[1] - p[3])
                elif metric == "rbp_resid" and printed != "rbp_resid":
                    values = np.where(missing, 1.0, per_query[printed])
                if values is not None:
                    per_query[printed] = values
                    mean[printed] = float(np.mean(values))
    for label in ("num_ret ", "num_rel "):
        per_query.pop(label, None)
        mean.pop(label, None)
    return missing


def format_line(name, qid, value):
    return f"{name:<22}\t{qid}\t{value}"


def _value(show, v):
    if v != v:  # NaN: C's printf of trec_eval's 0 / 0 (the sign bit set on x86-64)
        return "  -nan"
    if show == "integer":
        return f"{round(v)}"
    return f"{v:6.4f}"


def complete_num_rel(relevance):
    """trec_eval 10's ``num_rel`` summary under ``-c``: the qrels lines with a level above 0.

    With ``-c``, trec_eval's ``te_calc_avg_num_rel`` (``m_num_rel.c``) replaces
    the sum of the per-query values by a count over every query of the qrels
    of the judgements whose (integer) level is above 0, whatever ``-l`` says;
    the per-query lines respect ``-l``. The command prints this count; the
    trec_eval setting of ``evaluate_run`` keeps the sum of its per-query values
    (docs/which_ndcg.md, "num_rel under -c").
    """
    import numpy as np

    return int(np.count_nonzero(np.trunc(np.asarray(relevance, dtype=float)) > 0))


def format_lines(chosen, rows, result, *, tag, per_query=False, summary=True,
                 relstrings=None, summaries=None):
    """trec_eval's output lines for ``result`` (an EvaluationResult).

    ``rows`` are the ``(measure, name, key, _)`` of :func:`requests`. Per-query
    lines (``-q``) come first, query by query in the order of
    ``result.query_ids``, then the ``all`` lines (unless ``summary`` is
    False, trec_eval's ``-n``): 4 decimals, counts as integers.
    ``relstrings`` maps ``(name, query index)`` to relstring's text;
    ``summaries`` maps a printed name to the value its ``all`` line prints
    instead of the result's mean (``num_rel`` under ``-c``).
    """
    summaries = summaries or {}
    lines = []
    if per_query:
        for i, q in enumerate(result.query_ids.tolist()):
            for top in chosen:
                m = MEASURES[top]
                if not m.per_query:
                    continue
                if m.show == "string":
                    for name, strings in (relstrings or {}).items():
                        lines.append(format_line(name, q, f"'{strings[i]}'"))
                    continue
                lines += [format_line(name, q, _value(m.show, result.per_query[key][i]))
                          for t, name, key, _ in rows if t == top]
    if summary:
        for top in chosen:
            m = MEASURES[top]
            if not m.summary:
                continue
            if m.show == "runid":
                lines.append(format_line("runid", "all", tag))
            elif m.show == "count":
                lines.append(format_line("num_q", "all", len(result.query_ids)))
            else:
                lines += [format_line(name, "all", _value(m.show, summaries[name]
                                                          if name in summaries else
                                                          _summary(top, m, result, key)))
                          for t, name, key, _ in rows if t == top]
    return lines


def _summary(top, m, result, key):
    """The value of an ``all`` line as trec_eval computes it: the per-query
    values added one after the other in query order (``te_acc_meas_s``), then
    divided by their number, and for ``gm_*`` the same over their logarithms.

    A pairwise sum (NumPy's) can land on the other side of a 4th-decimal
    rounding: P_20 of 0.1, 0.1, 0.1 and 0.05 over 8 queries is 0.04375 plus
    or minus an ulp, printed 0.0438 by trec_eval.
    """
    import numpy as np

    from .._evaluation.reduce import MIN_GEO_MEAN

    v = result.per_query.get(key) if m.show == "mean" else None
    if v is None or v.size == 0 or v.size != len(result.query_ids):
        return result.mean[key]
    if top.startswith("gm_"):
        with np.errstate(invalid="ignore"):
            v = np.log(np.maximum(v, MIN_GEO_MEAN))
        return float(np.exp(np.cumsum(v)[-1] / v.size))
    return float(np.cumsum(v)[-1] / v.size)
