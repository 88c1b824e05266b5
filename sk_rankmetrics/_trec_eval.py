"""trec_eval's measure names, parameters, measure sets and output lines.

:data:`MEASURES` lists trec_eval 10.0's measures in its own order (the order
it prints them in). Each entry says how a measure maps to this package: the
metric it is, the syntax of its parameters (cut-offs such as ``P.5,10`` or
per-level gains such as ``ndcg.1=3,2=9``), its default parameters, and how
its ``all`` line is made from the per-query values. A measure without a
metric is not supported yet: asking for it (by name, or through ``official``,
``all_trec`` or the default set) raises, naming it. Supporting one is adding
its metric here.
"""

from __future__ import annotations

import re

#: trec_eval's default cut-offs.
CUTOFFS = (5, 10, 15, 20, 30, 100, 200, 500, 1000)


class TrecMeasure:
    """One trec_eval measure.

    Parameters
    ----------
    name : str
        trec_eval's name (``"P"``, ``"ndcg_cut"``).
    metric : str or None
        This package's metric (``"precision"``); None: not supported yet.
    params : {None, "cutoffs", "gains"}
        The syntax of ``-m name.PARAMS``.
    defaults : tuple
        Default cut-offs.
    average : {"mean", "count", "runid"}
        How the ``all`` line is made: the mean over queries, the number of
        queries, or the run tag.
    per_query : bool
        Whether ``-q`` prints a line per query.
    """

    def __init__(self, name, metric=None, params=None, defaults=(), average="mean",
                 per_query=True):
        self.name = name
        self.metric = metric
        self.params = params
        self.defaults = tuple(defaults)
        self.average = average
        self.per_query = per_query

    @property
    def supported(self):
        return self.metric is not None or self.average in ("count", "runid")


def _m(*args, **kwargs):
    m = TrecMeasure(*args, **kwargs)
    return m.name, m


#: trec_eval 10.0's measures, in its order.
MEASURES = dict([
    _m("runid", average="runid", per_query=False),
    _m("num_q", average="count", per_query=False),
    _m("num_ret"), _m("num_rel"), _m("num_rel_ret"),
    _m("map", "map"),
    _m("gm_map"),
    _m("Rprec", "r_precision"),
    _m("bpref"),
    _m("recip_rank", "mrr"),
    _m("iprec_at_recall"),
    _m("P", "precision", "cutoffs", CUTOFFS),
    _m("relstring"),
    _m("recall", "recall", "cutoffs", CUTOFFS),
    _m("infAP"), _m("gm_bpref"), _m("Rprec_mult"), _m("utility"), _m("11pt_avg"),
    _m("binG"), _m("G"), _m("dcg"), _m("ideal_dcg"),
    _m("ndcg", "ndcg", "gains"),
    _m("ndcg_rel"), _m("Rndcg"),
    _m("ndcg_cut", "ndcg", "cutoffs", CUTOFFS),
    _m("map_cut", "map", "cutoffs", CUTOFFS),
    _m("relative_P"),
    _m("success", "hit_rate", "cutoffs", (1, 5, 10)),
    _m("set_P"), _m("set_relative_P"), _m("set_recall"), _m("set_map"), _m("set_F"),
    _m("num_nonrel_judged_ret"),
    _m("prefs_num_prefs_poss"), _m("prefs_num_prefs_ful"), _m("prefs_num_prefs_ful_ret"),
    _m("prefs_simp"), _m("prefs_pair"), _m("prefs_avgjg"), _m("prefs_avgjg_Rnonrel"),
    _m("prefs_simp_ret"), _m("prefs_pair_ret"), _m("prefs_avgjg_ret"),
    _m("prefs_avgjg_Rnonrel_ret"), _m("prefs_simp_imp"), _m("prefs_pair_imp"),
    _m("prefs_avgjg_imp"), _m("map_avgjg"), _m("P_avgjg"), _m("Rprec_mult_avgjg"),
    _m("yaap"), _m("rbp"), _m("rbp_resid"), _m("unj"),
])

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
_GAIN = re.compile(r"^\s*([+-]?\d+)\s*=\s*([+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?)\s*$")


class UnsupportedMeasure(ValueError):
    """A trec_eval measure this package does not compute yet."""


def _cutoffs(text, spec):
    values = []
    for part in text.split(","):
        m = _LEADING_INT.match(part)  # trec_eval reads each with atol: 23.4 -> 23
        if not m or int(m.group(1)) < 1:
            raise ValueError(f"measure {spec!r}: cut-off {part!r} is not a positive integer.")
        values.append(int(m.group(1)))
    return tuple(sorted(set(values)))


def _gains(text, spec):
    gains = {}
    for part in text.split(","):
        m = _GAIN.match(part)
        if not m:
            raise ValueError(f"measure {spec!r}: {part!r} is not a level=gain pair "
                             "(such as 1=3).")
        gains[float(m.group(1))] = float(m.group(2))
    return gains


def parse_measures(specs):
    """``-m`` arguments -> ``{name: params}`` in trec_eval's order.

    ``params`` is a tuple of cut-offs, a ``(text, gains)`` pair for ``ndcg``
    with gains, or None. Raises :class:`UnsupportedMeasure` naming every
    measure asked for (directly or through a set) that is not supported yet,
    and ValueError for a name trec_eval does not know.
    """
    chosen = {}
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
            if param and m.params is None:
                raise ValueError(f"measure {spec!r}: {n} takes no parameters.")
            if m.params == "cutoffs":
                chosen[n] = _cutoffs(param, spec) if param else m.defaults
            elif m.params == "gains" and param:
                chosen[n] = (param, _gains(param, spec))
            else:
                chosen.setdefault(n, None)
    if missing:
        raise UnsupportedMeasure(
            f"trec_eval measure{'s' if len(missing) > 1 else ''} not supported yet: "
            f"{', '.join(missing)}; ask for supported ones with -m (for example -m map "
            "-m P.5,10 -m ndcg_cut.10 -m recip_rank -m Rprec -m recall.100 -m success.10 "
            "-m map_cut.100 -m ndcg)."
        )
    order = list(MEASURES)
    return dict(sorted(chosen.items(), key=lambda kv: order.index(kv[0])))


def requests(chosen):
    """``[(measure, name, metric, options)]`` of the chosen measures, in output order.

    ``name`` is the output name (``P_5``), ``metric`` this package's metric
    (``precision@5``, also the key of the result) and ``options`` the
    per-level ``gains`` of ``ndcg.L=G,...`` (None otherwise).
    """
    out = []
    for top, params in chosen.items():
        m = MEASURES[top]
        if m.metric is None:
            continue
        if m.params == "cutoffs":
            out += [(top, f"{top}_{k}", f"{m.metric}@{k}", None) for k in params]
        elif m.params == "gains" and params is not None:
            out.append((top, f"{top}_{params[0]}", m.metric, params[1]))
        else:
            out.append((top, top, m.metric, None))
    return out


def _line(name, qid, value):
    return f"{name:<22}\t{qid}\t{value}"


def format_lines(chosen, rows, result, *, tag, per_query=False, summary=True):
    """trec_eval's output lines for ``result`` (an EvaluationResult).

    ``rows`` are the ``(measure, name, key, _)`` of :func:`requests`. Per-query
    lines (``-q``) come first, query by query in the order of
    ``result.query_ids``, then the ``all`` lines (unless ``summary`` is
    False, trec_eval's ``-n``); values have 4 decimals, counts none.
    """
    lines = []
    if per_query:
        for i, q in enumerate(result.query_ids.tolist()):
            for _, name, key, _ in rows:
                lines.append(_line(name, q, f"{result.per_query[key][i]:6.4f}"))
    if summary:
        for top in chosen:
            m = MEASURES[top]
            if m.average == "runid":
                lines.append(_line("runid", "all", tag))
            elif m.average == "count":
                lines.append(_line("num_q", "all", len(result.query_ids)))
            else:
                lines += [_line(name, "all", f"{result.mean[key]:6.4f}")
                          for t, name, key, _ in rows if t == top]
    return lines
