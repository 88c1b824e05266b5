"""The query-overlap checks of two Dask inputs, as a reduction, and the check that
a bag's truth entries are of one form across its partitions."""

from __future__ import annotations

import numpy as np

from .._inputs.id_checks import any_in
from .._inputs.id_pairs import mixed_forms
from .._utils.errors import InvalidParameterError, warn
from .._utils.fast import unique
from .columns import _split

#: The low bits of the list id of a bag's truth rows: the form of the entries of
#: its partition (``{id: relevance}`` mappings or plain collections), which must be
#: one form for every user, as :func:`.._inputs.id_pairs.truth_pairs` requires of
#: one dict; partitions are checked together in the overlap reduction.
GRADED, PLAIN = 1, 2


def truth_forms(kind, lid):
    """The forms (``GRADED | PLAIN`` bits) of the truth rows of a partition."""
    truth = kind != 0
    return int(np.bitwise_or.reduce(lid[truth] & 3)) if truth.any() else 0


def check_forms(forms):
    """Refuse a truth whose partitions mix the two forms."""
    if forms & GRADED and forms & PLAIN:
        raise InvalidParameterError(mixed_forms())


def _top3(values):
    return unique(values)[:3].tolist()


def _overlap_stats(part, kinds, forms=False):
    """The counts behind the in-memory overlap warnings, for one partition
    (``forms``: also the forms of a bag's truth entries, :func:`truth_forms`)."""
    import pandas as pd

    kind, qid, doc, _, lid = _split(part, kinds)
    ranked, judged = kind == 0, kind != 0
    run_q, truth_q = unique(qid[ranked]), unique(qid[judged])
    missing_truth = np.setdiff1d(run_q, truth_q, assume_unique=True)
    missing_run = np.setdiff1d(truth_q, run_q, assume_unique=True)
    items = kind == 1  # truth lines that name an item (not a user's empty set)
    # (Not pandas' isin: of Arrow text it reads the values as Python strings.)
    found = any_in(doc[items], doc[ranked]) if items.any() else False
    return pd.Series({
        "forms": truth_forms(kind, lid) if forms else 0,
        "lines": int(ranked.sum()), "truth_lines": int(items.sum()),
        "run_q": run_q.size, "truth_q": truth_q.size,
        "common": run_q.size - missing_truth.size,
        "missing_truth": missing_truth.size, "missing_run": missing_run.size,
        "found": found,
        "ex_run_q": _top3(run_q), "ex_truth_q": _top3(truth_q),
        "ex_missing_truth": missing_truth[:3].tolist(),
        "ex_missing_run": missing_run[:3].tolist(),
        "ex_ranked": _top3(doc[ranked]), "ex_judged": _top3(doc[items]),
    }, dtype=object)


def _overlap_combine(frame):
    import pandas as pd

    out = {}
    for col in frame.columns:
        values = frame[col].tolist()
        if col.startswith("ex_"):
            merged = sorted(set().union(*map(tuple, values))) if values else []
            out[col] = merged[:3]
        elif col == "found":
            out[col] = any(values)
        elif col == "forms":
            out[col] = int(np.bitwise_or.reduce(np.asarray(values, dtype=np.int64)))
        else:
            out[col] = int(sum(values))
    return pd.Series(out, dtype=object)


def _overlap_reduction(both, kinds, forms=False):
    import pandas as pd

    return both.reduction(_overlap_stats, aggregate=_overlap_combine,
                          combine=_overlap_combine,
                          chunk_kwargs={"kinds": kinds, "forms": forms},
                          meta=pd.Series([], dtype=object))


def _examples(ids, count):
    return ", ".join(map(repr, ids)) + (", ..." if count > len(ids) else "")


def _check_overlap(stats, *, queries, what, complete, run_empty_message=None):
    """The in-memory checks of the run and truth ids, on the whole data's counts
    (the messages of :func:`sk_rankmetrics._inputs._check_overlap`)."""
    from .._utils.errors import plural

    s = {k: stats[k] for k in stats.index}
    check_forms(s.get("forms", 0))
    if run_empty_message and s["lines"] == 0 and not complete:
        raise ValueError(run_empty_message)
    if s["truth_q"] and s["common"] == 0:
        raise ValueError(
            f"no {what} of the ranking has judgements: the ranking's ids "
            f"({_examples(s['ex_run_q'], s['run_q'])}) and the truth's "
            f"({_examples(s['ex_truth_q'], s['truth_q'])}) have none in common. Check that "
            "both use the same ids (and the same type: 1 and '1' match, 1 and 'q1' do not)."
        )
    notes = []
    if s["missing_truth"]:
        fate = "score as having no relevant item" if queries == "run" else "are left out"
        notes.append(f"{s['missing_truth']} of {s['run_q']} {plural(what)} of the ranking "
                     "have no judgements "
                     f"({_examples(s['ex_missing_truth'], s['missing_truth'])}) and {fate}")
    if s["missing_run"] and queries != "truth":
        notes.append(f"{s['missing_run']} of {s['truth_q']} judged {plural(what)} are not in "
                     f"the ranking ({_examples(s['ex_missing_run'], s['missing_run'])}) and "
                     "are left out (complete=True scores them 0)")
    if notes:
        warn("; ".join(notes) + ".", UserWarning)
    if s["truth_lines"] and s["lines"] and not s["found"]:
        warn(
            "no ranked item appears in the truth (ranked ids such as "
            f"{_examples(s['ex_ranked'], 4)}, judged ids such as "
            f"{_examples(s['ex_judged'], 4)}): every {what} scores as if nothing relevant "
            "was ranked. Check that both use the same item ids.", UserWarning,
        )


class _Check:
    """The overlap check, as a picklable callable for the lazy result."""

    def __init__(self, **kwargs):
        self.kwargs = kwargs

    def __call__(self, stats):
        _check_overlap(stats, **self.kwargs)
