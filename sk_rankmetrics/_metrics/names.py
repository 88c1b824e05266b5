"""Metric names: this package's, trec_eval's printed names and ir_measures'."""

from __future__ import annotations

import math
import re
from typing import Any, NamedTuple

from .._utils.constraints import keyword_arguments
from .._utils.errors import InvalidParameterError
from .diversity import parse_diversity_name
from .gains import ListedGains
from .registry import METRICS, elsewhere, lookup, measure

_NAME_RE = re.compile(r"^\s*([A-Za-z0-9_\-]+)\s*(?:@\s*(\S+))?\s*$")

#: trec_eval's printed names with a cut-off or parameter suffix (``P_5``,
#: ``iprec_at_recall_0.10``), case-sensitive, and the options they imply.
_TREC_SUFFIX = re.compile(
    r"^(P|recall|success|map_cut|ndcg_cut|relative_P|unj|iprec_at_recall|Rprec_mult)_"
    r"(\d+(?:\.\d+)?)$"
)
_TREC_BASE = {
    "P": ("precision", {}), "recall": ("recall", {}), "success": ("hit_rate", {}),
    "map_cut": ("map", {"denominator": "relevant"}), "ndcg_cut": ("ndcg", {}),
    "relative_P": ("relative_p", {}), "unj": ("unjudged", {}),
    "iprec_at_recall": ("iprec_at_recall", {}), "Rprec_mult": ("rprec_mult", {}),
}

#: ir_measures' measure names (case-sensitive) and the options they imply.
IR_MEASURES = {
    "nDCG": ("ndcg", {}), "P": ("precision", {}), "R": ("recall", {}),
    "AP": ("map", {"denominator": "relevant"}), "RR": ("mrr", {}),
    "Rprec": ("r_precision", {}), "Bpref": ("bpref", {}), "infAP": ("infap", {}),
    "Judged": ("judged", {}), "NumRet": ("num_ret", {}), "NumRel": ("num_rel", {}),
    "NumRelRet": ("num_rel_ret", {}), "NumQ": ("num_q", {}), "SetP": ("set_p", {}),
    "SetR": ("set_recall", {}), "SetF": ("set_f", {}), "SetAP": ("set_map", {}),
    "IPrec": ("iprec_at_recall", {"recall_rounding": "plus_0.9"}),
    "RBP": ("rbp", {"p": 0.8, "graded": False}), "ERR": ("err", {}),
    "Success": ("hit_rate", {}), "SetRelP": ("set_relative_p", {}),
    "NERR8": ("nerr8", {}), "NERR9": ("nerr9", {}), "NERR10": ("nerr10", {}),
    "NERR11": ("nerr11", {}), "INST": ("inst", {}), "INSQ": ("insq", {}),
    "SDCG": ("sdcg", {}), "BPM": ("bpm", {}), "Compat": ("compat", {}),
    "Accuracy": ("accuracy", {"no_relevant": "skip"}),
}
#: ir_measures' other spellings of its measures (its registry's aliases).
IR_MEASURES.update({alias: IR_MEASURES[name] for alias, name in {
    "MAP": "AP", "NDCG": "nDCG", "BPref": "Bpref", "RPrec": "Rprec", "MRR": "RR",
    "Precision": "P", "Recall": "R"}.items()})
#: The C/W/L measures, whose gain scale ir_measures makes the user name.
_NEEDS_MAX_REL = {"NERR8", "NERR9", "NERR10", "NERR11", "INST", "INSQ", "SDCG", "BPM"}
_IRM_RE = re.compile(r"^\s*([A-Za-z][A-Za-z0-9]*)\s*(?:\((.*)\))?\s*(?:@\s*(\S+))?\s*$")
#: ir_measures' parameters -> this package's options.
_IRM_PARAMS = {"rel": "threshold", "p": "p", "beta": "beta", "cutoff": None,
               "judged_only": "judged_only", "T": "T", "min_rel": "min_rel",
               "max_rel": "max_rel", "normalize": "normalize"}
_IRM_DCG = {"log2": "linear", "exp-log2": "exponential"}


def _ir_measures_options(text, params):
    """Options of an ir_measures parameter list such as ``rel=2, p=0.8``."""
    pairs = keyword_arguments(text, params, "'RBP(p=0.8,rel=1)' or 'P(rel=2)@5'")
    options = {}
    for key, value in pairs.items():
        if key == "dcg":
            if value not in _IRM_DCG:
                raise InvalidParameterError(
                    f"{text!r}: dcg={value!r} is not known; ir_measures' nDCG takes "
                    "dcg='log2' or 'exp-log2'."
                )
            options["gain"] = _IRM_DCG[value]
        elif key == "gains":
            options["gain"] = ListedGains(value)
        elif key == "relative":
            if not isinstance(value, bool):
                raise InvalidParameterError(
                    f"{text!r}: relative must be True or False, got {value!r}."
                )
            options["relative"] = value
        elif _IRM_PARAMS.get(key):
            options[_IRM_PARAMS[key]] = value
        else:
            raise InvalidParameterError(f"{text!r}: parameter {key!r} is not supported here.")
    return options


def _ir_measures_meaning(measure, text, spec, options):
    """What ir_measures means by a measure's parameters, where it differs from
    the package's option of the same name.

    ``NumRet(rel=r)`` counts the retrieved documents at level >= r (ir_measures
    defines ``NumRelRet`` as ``NumRet(rel=1)``); ``SetF(beta=b)`` hands ``b``
    to trec_eval's ``set_F``, which weighs recall by ``b`` where the F-measure
    weighs it by ``beta**2``.
    """
    if measure == "SDCG" and options.get("gain") == "linear":
        del options["gain"]  # dcg='log2', SDCG's only discount
    if "relative" in options:
        if measure not in ("SetP", "SetRelP"):
            raise InvalidParameterError(f"{text!r}: parameter 'relative' is not supported here.")
        if options.pop("relative"):
            spec = METRICS["set_relative_p"]
        elif measure == "SetRelP":
            spec = METRICS["set_p"]
    if measure == "NumRet" and "threshold" in options:
        return METRICS["num_rel_ret"], options
    if measure == "SetF" and "beta" in options:
        b = options["beta"]
        if isinstance(b, bool) or not isinstance(b, (int, float)) or not b > 0:
            raise InvalidParameterError(
                f"{text!r}: beta must be a positive number, got {b!r}."
            )
        options = {**options, "beta": math.sqrt(b)}
    return spec, options


def _at_value(spec, text, value):
    """The ``@`` part of a name: a cut-off, or the metric's real-valued option."""
    if spec.at_option is not None:
        try:
            return None, {spec.at_option: float(value)}
        except ValueError:
            raise InvalidParameterError(
                f"the {spec.at_option} in {text!r} must be a number, got {value!r}."
            ) from None
    if not spec.takes_k:
        raise InvalidParameterError(f"metric {spec.name!r} takes no cut-off; drop '@'.")
    if not value.isdigit() or int(value) < 1:
        raise InvalidParameterError(
            f"the cut-off in {text!r} must be a positive integer, got {value!r}."
        )
    return int(value), {}


def parse_name(text, families=()):
    """Split a metric name into ``(spec, k, preset_options)``.

    ``families``: the registry's families (:data:`~.registry.FAMILIES`) the
    caller computes besides the core's and the diversity measures (the
    beyond-accuracy ones); a name of another family raises, naming the entry
    points that compute it.

    Three vocabularies are read: this package's names (case-insensitive,
    ``"ndcg@10"``, ``"iprec_at_recall@0.5"``); the names trec_eval prints
    (``"P_5"``, ``"ndcg_cut_10"``, ``"iprec_at_recall_0.10"``); and
    ir_measures' (case-sensitive, ``"nDCG@10"``, ``"AP@100"``, ``"P(rel=2)@5"``,
    ``"RBP(p=0.8,rel=1)"``, ``"nDCG(dcg='exp-log2')@10"``). A tool's name carries the
    tool's conventions (``"AP@10"`` and ``"map_cut_10"`` divide by R).
    """
    if not isinstance(text, str):
        raise InvalidParameterError(
            f"metric names must be strings, got {type(text).__name__}."
        )
    diversity = parse_diversity_name(text)
    if diversity is not None:
        return diversity
    trec = _TREC_SUFFIX.match(text.strip())
    if trec:
        base, options = _TREC_BASE[trec.group(1)]
        spec = METRICS[base]
        k, at = _at_value(spec, text, trec.group(2))
        return spec, k, {**options, **at}
    irm = _IRM_RE.match(text)
    if irm and irm.group(1) in IR_MEASURES and (irm.group(2) is not None
                                                 or irm.group(1) != irm.group(1).lower()):
        base, options = IR_MEASURES[irm.group(1)]
        spec = METRICS[base]
        options = dict(options)
        if irm.group(2):
            options.update(_ir_measures_options(text, irm.group(2)))
            spec, options = _ir_measures_meaning(irm.group(1), text, spec, options)
        if irm.group(1) in _NEEDS_MAX_REL and "max_rel" not in options:
            raise InvalidParameterError(
                f"{text!r}: ir_measures' {irm.group(1)} needs its gain scale's top level, "
                f"e.g. '{irm.group(1)}(max_rel=3)'."
            )
        k = None
        if irm.group(3) is not None:
            k, at = _at_value(spec, text, irm.group(3))
            options.update(at)
        return spec, k, options
    match = _NAME_RE.match(text)
    if not match:
        raise InvalidParameterError(
            f"cannot read metric name {text!r}; write a name with an optional "
            "cut-off, such as 'ndcg@10', 'map@5' or 'mrr'."
        )
    other = measure(text)
    if other is not None and other.family in families:
        k = None if match.group(2) is None else _at_value(other, text, match.group(2))[0]
        return other, k, {}
    if other is not None and other.name not in METRICS:  # a family the core does not compute
        raise InvalidParameterError(elsewhere(text.strip(), other))
    spec, preset = lookup(match.group(1))
    k = None
    if match.group(2) is not None:
        k, at = _at_value(spec, text, match.group(2))
        preset.update(at)
    return spec, k, preset


class Families(NamedTuple):
    """The metrics of a call by family (:func:`by_family`)."""

    #: Every metric but the beyond-accuracy ones (the argument itself when it
    #: holds nothing else): the core's parser reads or refuses them.
    others: Any
    #: The diversity measures among ``others`` (any of their three vocabularies).
    diversity: list
    #: The beyond-accuracy measures.
    beyond: list
    #: Every name in the order given.
    labels: list

    def diversity_only(self) -> bool:
        """Whether ``others`` are diversity measures: True (all), False (none); a
        mix raises (a diversity qrels judges subtopics, not documents)."""
        if not self.diversity:
            return False
        other = [m for m in self.others if m not in self.diversity]
        if other:
            div, oth = (m[0] if isinstance(m, tuple) else m for m in (self.diversity[0], other[0]))
            raise InvalidParameterError(
                f"{div!r} is a diversity measure and {oth!r} is not: a diversity qrels "
                "judges (query, subtopic, document), ordinary qrels (query, document); "
                "evaluate them in two calls."
            )
        return True


def family_of(item: Any) -> str | None:
    """The family of a metric name or ``(name, options)`` pair, in any vocabulary
    the registry knows by a plain name or the diversity parser reads; None: the
    core's parser decides (the tools' syntax, presets, unknown names)."""
    label = item[0] if isinstance(item, tuple) and len(item) == 2 else item
    if not isinstance(label, str):
        return None
    try:
        if parse_diversity_name(label) is not None:
            return "diversity"
    except InvalidParameterError:  # a diversity name with parameters it refuses
        return "diversity"
    spec = measure(label)
    return None if spec is None else spec.family


def by_family(metrics: Any) -> Families:
    """The metrics of a call (a name, a ``(name, options)`` pair or an iterable
    of them) split by family, as the registry says: the one place an entry point
    learns which of its names go to the core, the diversity path or the
    beyond-accuracy measures. What is not a list of metrics is left to the
    core's parser to refuse."""
    if isinstance(metrics, str) or (
        isinstance(metrics, tuple) and len(metrics) == 2 and isinstance(metrics[0], str)
    ):
        items = [metrics]
    else:
        try:
            items = list(metrics)
        except TypeError:
            return Families(metrics, [], [], [])
    fams = [family_of(m) or "" for m in items]
    beyond = [m for m, f in zip(items, fams) if f.startswith("beyond")]
    others = [m for m, f in zip(items, fams) if not f.startswith("beyond")]
    diversity = [m for m, f in zip(items, fams) if f == "diversity"]
    labels = [m[0] if isinstance(m, tuple) else m for m in items]
    return Families(others if beyond else metrics, diversity, beyond, labels)
