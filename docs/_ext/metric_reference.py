"""Sphinx extension: the metric reference tables, generated from the registry.

Two directives, used by ``docs/metrics.md``:

``metric-table``
    One row per entry of :data:`sk_rankmetrics._metrics.registry.METRICS`, read at
    build time, so that a new registry entry appears with no list to edit.
    ``:part: names`` gives each measure's names (this package's name, its
    aliases and presets, its function, the ir_measures and trec_eval names
    that map to it: read from ``IR_MEASURES``, ``PRESETS`` and trec_eval's
    ``MEASURES`` through :func:`parse_name`); ``:part: behaviour`` its cut-off,
    options, range, averaging over rows and tie rule (``spec.ties``).

``metric-ties`` (a role)
    The tie rule of one measure, read from ``spec.ties`` at build time.

``diversity-table``
    One row per diversity measure (:data:`sk_rankmetrics._metrics.diversity.DIVERSITY`,
    used by ``docs/diversity.md``): this package's name, ir_measures' name and
    the parameters it takes, ndeval's column, the cut-off and the options.

``metric-names``
    Example names in the four vocabularies a user may write, each parsed at
    build time (:func:`parse_name`; trec_eval's ``-m`` syntax through the
    expansion :func:`evaluate_run` applies), with the metric, cut-off and
    options it stands for.

The rows (:func:`measure_rows`, :func:`name_rows`) and the tables
(:func:`measure_table`, :func:`names_table`) are plain functions, also read
by ``tests/docs/test_metric_reference.py``.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import ClassVar

from docutils import nodes
from docutils.parsers.rst import Directive, directives

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from sk_rankmetrics._files.trec_eval import MEASURES as TREC_MEASURES  # noqa: E402
from sk_rankmetrics._metrics.diversity import (  # noqa: E402
    DIVERSITY,
    IR_MEASURES_DIVERSITY,
    NDEVAL,
)
from sk_rankmetrics._metrics.names import IR_MEASURES, parse_name  # noqa: E402
from sk_rankmetrics._metrics.registry import METRICS, PRESETS  # noqa: E402

# -- rows of the measure table --------------------------------------------------------


def _short(value):
    """A default value short enough for a table cell, or None."""
    text = repr(value)
    return text if len(text) <= 14 else None


def _options(spec):
    out = []
    defaults = spec.defaults  # the metric's own, where it differs from PARAMS'
    for name in spec.options:
        default = _short(defaults[name])
        out.append(name if default is None else f"{name}={default}")
    return out


def _trec_names(spec):
    """trec_eval's printed names that this package reads as ``spec``."""
    out = []
    for m in TREC_MEASURES.values():
        if not m.supported:
            continue
        try:
            found = parse_name(m.metric or m.name)[0]
        except ValueError:
            continue
        if found is not spec:
            continue
        if m.params == "cutoffs":
            out.append(f"{m.name}_k")
        elif m.params == "levels":
            out.append(f"{m.name}_x")
        else:
            out.append(m.name)
    return out


def _ir_measures_names(spec):
    out = []
    for name, (base, _) in IR_MEASURES.items():
        if base != spec.name:
            continue
        if spec.at_option is not None:
            out.append(f"{name}@x")
        elif spec.takes_k:
            out.extend([name, f"{name}@k"])
        else:
            out.append(name)
    return out


def _presets(spec):
    return [
        f"{preset} ({', '.join(f'{k}={v!r}' for k, v in opts.items())})"
        for preset, (base, opts, _) in PRESETS.items() if base == spec.name
    ]


def _cutoff(spec):
    if spec.at_option is not None:
        return f"@x: {spec.at_option}; whole ranking"
    if spec.takes_k:
        return "@k"
    if spec.full:
        return "whole ranking"
    if spec.reads_to_r:
        return "down to R"
    return "none"


def _range(spec):
    if spec.normalized and spec.always_defined:
        return "yes"
    if spec.normalized:
        return "yes; no_relevant"
    return "no"


def _rows(spec):
    if spec.aggregate == "sum":
        return "sum"
    if "mean" in spec.options:
        return "mean or geometric"
    return "mean"


def _ties(spec):
    """The tie rule as a phrase (for prose)."""
    if spec.ties == "expected":
        return "exact expected value"
    return "refused unless ignore_ties=True (or the trec_eval setting)"


def _ties_short(spec):
    """The tie rule in a word (for the table)."""
    return "exact" if spec.ties == "expected" else "refused"


def measure_rows():
    """One dict per registry entry, in the registry's order."""
    rows = []
    for spec in METRICS.values():
        rows.append({
            "name": spec.name,
            "function": spec.function,
            "description": spec.description,
            "aliases": list(spec.aliases),
            "presets": _presets(spec),
            "ir_measures": _ir_measures_names(spec),
            "trec_eval": _trec_names(spec),
            "cutoff": _cutoff(spec),
            "options": _options(spec),
            "range": _range(spec),
            "rows": _rows(spec),
            "ties": _ties_short(spec),
            "direction": "higher is better" if spec.greater_is_better
            else "lower is better",
        })
    return rows


# -- rows of the names table -------------------------------------------------------------

#: Example names, by vocabulary. The meaning of each is computed at build time.
EXAMPLE_NAMES = {
    "this package": [
        "ndcg@10", "ndcg_exp@10", "ap@10", "rr@10", "success@5", "rprec", "nerr@20",
        "gm_map", "gm_bpref", "iprec_at_recall@0.5", "rprec_mult@0.5", "unj@5",
    ],
    "trec_eval, printed": [
        "P_5", "ndcg_cut_10", "map_cut_100", "success_10", "recip_rank", "Rprec",
        "iprec_at_recall_0.10", "Rprec_mult_0.20", "relative_P_10", "unj_5", "set_F",
        "infAP", "binG",
    ],
    "trec_eval, -m syntax": [
        "P.5,10", "ndcg_cut.10", "iprec_at_recall.0.25", "set_F.0.5", "rbp.p=0.8",
        "utility.2,-1,0,0", "11pt_avg.0.2,0.5,0.8",
    ],
    "ir_measures": [
        "nDCG@10", "nDCG(dcg='exp-log2')@10", "nDCG(gains={0:0,1:1,2:3})@10",
        "P(rel=2)@5", "AP", "AP@100", "RR@10", "R@100", "Judged@10", "SetF", "IPrec@0.5",
        "RBP(p=0.8,rel=1)", "RBP(p=0.9,rel=2)", "ERR@20", "Success@10",
        "P(judged_only=True)@5", "SetRelP", "NERR10(max_rel=3)", "SDCG(max_rel=4)@10",
        "Compat(p=0.9)", "Accuracy@10",
    ],
}


def _expand(name):
    """``[(label, metric name, options)]`` that ``name`` stands for.

    trec_eval's ``-m`` syntax expands as :func:`evaluate_run` expands it;
    every other name is itself.
    """
    from sk_rankmetrics._files.runs import _trec_syntax

    out = []
    for item in _trec_syntax([name]):
        if isinstance(item, tuple):
            label, options, key = item
            out.append((label, key, dict(options)))
        else:
            out.append((item, item, {}))
    return out


def name_rows():
    """One dict per example name: what :func:`parse_name` makes of it."""
    rows = []
    for vocabulary, names in EXAMPLE_NAMES.items():
        for written in names:
            meanings = []
            for label, key, options in _expand(written):
                spec, k, preset = parse_name(key)
                opts = {**preset, **options}
                meanings.append({"label": label, "metric": spec.name, "k": k,
                                 "options": opts})
            rows.append({"vocabulary": vocabulary, "written": written,
                         "meanings": meanings})
    return rows


def meaning_text(meaning):
    """``metric@k`` followed by the options the name fixes, as one string."""
    head = meaning["metric"] + ("" if meaning["k"] is None else f"@{meaning['k']}")
    opts = ", ".join(f"{k}={v!r}" for k, v in meaning["options"].items())
    return head + (f" with {opts}" if opts else "")


# -- docutils helpers ---------------------------------------------------------------------


def _codes(values, sep=", "):
    """A paragraph of inline literals separated by ``sep`` (an em dash if empty)."""
    para = nodes.paragraph()
    if not values:
        para += nodes.Text("—")
        return para
    for i, value in enumerate(values):
        if i:
            para += nodes.Text(sep)
        para += nodes.literal(value, value)
    return para


def _text(value):
    return nodes.paragraph(value, value)


def _function_ref(name):
    from sphinx.addnodes import pending_xref

    ref = pending_xref("", refdomain="py", reftype="func",
                       reftarget=f"sk_rankmetrics.{name}", refexplicit=False,
                       refwarn=True)
    ref += nodes.literal(name, name)
    para = nodes.paragraph()
    para += ref
    return para


def _table(header, body, widths, classes=()):
    table = nodes.table(classes=["metric-reference", *classes])
    group = nodes.tgroup(cols=len(header))
    table += group
    for w in widths:
        group += nodes.colspec(colwidth=w)
    head = nodes.thead()
    row = nodes.row()
    for title in header:
        entry = nodes.entry()
        entry += _text(title)
        row += entry
    head += row
    group += head
    tbody = nodes.tbody()
    for cells in body:
        row = nodes.row()
        for cell in cells:
            entry = nodes.entry()
            for part in cell if isinstance(cell, list) else [cell]:
                entry += part
            row += entry
        tbody += row
    group += tbody
    return table


def measure_table(part):
    """The docutils table of every registered measure: ``"names"`` or ``"behaviour"``."""
    body = []
    for r in measure_rows():
        name = _codes([r["name"]])
        if part == "names":
            first = [name]
            if r["function"]:
                first.append(_function_ref(r["function"]))
            body.append([
                first,
                [_codes(r["aliases"])] + ([_codes(r["presets"])] if r["presets"] else []),
                _codes(r["ir_measures"]),
                _codes(r["trec_eval"]),
            ])
        else:
            first = [name, _text(r["description"])]
            if r["direction"] != "higher is better":
                first.append(_text(f"({r['direction']})"))
            body.append([
                first,
                _text(r["cutoff"]),
                _codes(r["options"]),
                _text(r["range"]),
                _text(r["rows"]),
                _text(r["ties"]),
            ])
    if part == "names":
        header = ["measure and function", "aliases and presets", "ir_measures", "trec_eval"]
        widths = [22, 30, 20, 28]
    else:
        header = ["measure", "cut-off", "options (defaults)", "normalised", "over rows",
                  "ties"]
        widths = [30, 14, 26, 12, 10, 8]
    return _table(header, body, widths, classes=[f"metric-{part}"])


def diversity_rows():
    """One dict per diversity measure, in the registry's order."""
    rows = []
    for spec in DIVERSITY.values():
        irm = [f"{n}({', '.join(p)})" + ("@k" if spec.takes_k else "")
               for n, (base, p) in IR_MEASURES_DIVERSITY.items() if base == spec.name]
        ndeval = [n + ("@k" if spec.takes_k else "") for n, base in NDEVAL.items()
                  if base == spec.name]
        rows.append({
            "name": spec.name + ("@k" if spec.takes_k else ""),
            "label": spec.label,
            "description": spec.description,
            "aliases": list(spec.aliases),
            "ir_measures": irm,
            "ndeval": ndeval,
            "cutoff": _cutoff(spec),
            "options": _options(spec),
            "ties": _ties_short(spec),
        })
    return rows


def diversity_table():
    """The docutils table of the diversity measures."""
    body = []
    for r in diversity_rows():
        first = [_codes([r["name"], *r["aliases"]]), _text(r["description"])]
        body.append([first, _codes(r["ir_measures"]), _codes(r["ndeval"]),
                     _codes(r["options"]), _text(r["ties"])])
    header = ["measure", "ir_measures (parameters)", "ndeval", "options (defaults)", "ties"]
    return _table(header, body, [34, 24, 14, 20, 8], classes=["metric-diversity"])


class DiversityTable(Directive):
    """The table of the diversity measures."""

    def run(self):
        return [diversity_table()]


def names_table():
    """The docutils table of the example names and what each is read as."""
    body = []
    for r in name_rows():
        meanings = nodes.paragraph()
        for i, m in enumerate(r["meanings"]):
            if i:
                meanings += nodes.Text("; ")
            if m["label"] != r["written"]:
                meanings += nodes.literal(m["label"], m["label"])
                meanings += nodes.Text(": ")
            text = meaning_text(m)
            meanings += nodes.literal(text, text)
        body.append([_text(r["vocabulary"]), _codes([r["written"]]), meanings])
    return _table(["vocabulary", "written", "read as"], body, [16, 30, 54],
                  classes=["metric-names"])


class MetricTable(Directive):
    """The table of every registered measure (``:part: names`` or ``behaviour``)."""

    option_spec: ClassVar[dict] = {
        "part": lambda arg: directives.choice(arg, ("names", "behaviour")),
    }

    def run(self):
        return [measure_table(self.options.get("part", "names"))]


class MetricNames(Directive):
    """Example names of each vocabulary and what each is read as."""

    def run(self):
        return [names_table()]


def metric_ties_role(name, rawtext, text, lineno, inliner, options=None, content=None):
    """``{metric-ties}`infap``` -> the measure's tie rule, as the registry says now."""
    spec = METRICS.get(text.strip())
    if spec is None:
        msg = inliner.reporter.error(f"metric-ties: no registered measure {text!r}",
                                     line=lineno)
        return [inliner.problematic(rawtext, rawtext, msg)], [msg]
    return [nodes.Text(_ties(spec))], []


def setup(app):
    app.add_role("metric-ties", metric_ties_role)
    app.add_directive("metric-table", MetricTable)
    app.add_directive("metric-names", MetricNames)
    app.add_directive("diversity-table", DiversityTable)
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True}
