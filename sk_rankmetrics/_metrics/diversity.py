"""The diversity measures: their specs, and their names (this package's, ir_measures', ndeval's).

They are registered in :data:`~.registry.REGISTRY` (family ``"diversity"``) but
kept apart from :data:`~.registry.METRICS`: they read a diversity qrels (one
judgement per query, subtopic and document), which no other measure reads, so
the layouts of ordinary judgements never meet them.
"""

from __future__ import annotations

import re

from .._utils.constraints import keyword_arguments
from .._utils.errors import InvalidParameterError
from .registry import DIVERSITY

_ALIASES = {a: s.name for s in DIVERSITY.values() for a in (s.name, *s.aliases)}

#: ir_measures' names (case-sensitive) and the parameters each takes.
IR_MEASURES_DIVERSITY = {
    "alpha_nDCG": ("alpha_ndcg", ("rel", "alpha", "judged_only")),
    "alpha_DCG": ("alpha_dcg", ("rel", "alpha", "judged_only")),
    "ERR_IA": ("err_ia", ("rel", "judged_only")),
    "nERR_IA": ("nerr_ia", ("rel", "judged_only")),
    "NRBP": ("nrbp", ("rel", "alpha", "beta")),
    "nNRBP": ("nnrbp", ("rel", "alpha", "beta")),
    "AP_IA": ("ap_ia", ("rel", "judged_only")),
    "P_IA": ("p_ia", ("rel", "judged_only")),
    "StRecall": ("subtopic_recall", ("rel",)),
}
#: ndeval's column names (case-sensitive).
NDEVAL = {
    "alpha-nDCG": "alpha_ndcg",
    "alpha-DCG": "alpha_dcg",
    "ERR-IA": "err_ia",
    "nERR-IA": "nerr_ia",
    "NRBP": "nrbp",
    "nNRBP": "nnrbp",
    "MAP-IA": "ap_ia",
    "P-IA": "p_ia",
    "strec": "subtopic_recall",
}
_IRM_OPTION = {"rel": "threshold", "alpha": "redundancy", "beta": "patience"}
_RE = re.compile(r"^\s*([A-Za-z_\-]+)\s*(?:\((.*)\))?\s*(?:@\s*(\S+))?\s*$")


def _ir_measures_params(text, base, params, allowed):
    pairs = keyword_arguments(text, params, "'alpha_nDCG(alpha=0.3)@20'")
    options = {}
    for key, value in pairs.items():
        if key == "cutoff":
            continue
        if key not in allowed:
            raise InvalidParameterError(
                f"{text!r}: ir_measures' {base} takes the parameters "
                f"{', '.join(allowed)}, not {key!r}."
            )
        if key == "judged_only":
            if value is not False:
                raise InvalidParameterError(
                    f"{text!r}: judged_only=True is not supported for diversity measures; "
                    "pass judged_only=True to evaluate_run (trec_eval's -J), which removes "
                    "the unjudged documents from the ranking."
                )
            continue
        options[_IRM_OPTION[key]] = value
    return options


def _cutoff(spec, text, value):
    if value is None:
        return None
    if not spec.takes_k:
        raise InvalidParameterError(
            f"metric {spec.name!r} takes no cut-off; drop '@' from {text!r}."
        )
    if not value.isdigit() or int(value) < 1:
        raise InvalidParameterError(
            f"the cut-off in {text!r} must be a positive integer, got {value!r}."
        )
    return int(value)


def parse_diversity_name(text):
    """``(spec, k, preset_options)`` of a diversity measure's name, or None.

    Three vocabularies: this package's names (case-insensitive,
    ``"alpha_ndcg@20"``, ``"err_ia@10"``, ``"nrbp"``), ir_measures'
    (case-sensitive, ``"alpha_nDCG@20"``, ``"NRBP(alpha=0.5, beta=0.8)"``,
    ``"StRecall(rel=2)@10"``; relevant at level >= ``rel``, 1 unless given) and
    ndeval's columns (``"alpha-nDCG@20"``, ``"MAP-IA"``, ``"strec@10"``;
    relevant at level >= 1).
    """
    if not isinstance(text, str):
        return None
    m = _RE.match(text)
    if not m:
        return None
    base, params, at = m.groups()
    if base in IR_MEASURES_DIVERSITY:
        name, allowed = IR_MEASURES_DIVERSITY[base]
        options = {"threshold": 1}
        if params:
            options.update(_ir_measures_params(text, base, params, allowed))
    elif base in NDEVAL and params is None:
        name, options = NDEVAL[base], {"threshold": 1}
    elif base.lower() in _ALIASES and params is None:
        name, options = _ALIASES[base.lower()], {}
    else:
        return None
    spec = DIVERSITY[name]
    return spec, _cutoff(spec, text, at), options


def is_diversity(spec):
    """Whether a spec is a diversity measure (it reads a diversity qrels)."""
    return "subtopics" in spec.needs
