"""The beyond-accuracy measures by name: which data each needs, and one pass
that computes every measure asked for from ranked lists.

Measures of the whole list set (``coverage``, ``gini``, ``entropy``,
``personalization``) have one value and no per-user values: they describe
how the lists relate to each other and to the catalogue, and a single list
has no coverage or concentration of its own. The others have a value per
user and are averaged over users.
"""

from __future__ import annotations

import numpy as np

from .._metrics.names import family_of
from .._metrics.registry import REGISTRY, measure
from .._metrics.requests import make_requests as _make_requests
from .._utils.errors import InvalidParameterError, UndefinedRows, warn_undefined
from .._utils.params import PARAMS
from .._utils.policy import policy_values
from . import data as _data
from . import kernels

#: The beyond-accuracy measures, from the registry (families ``beyond_set``:
#: one value for the whole list set, and ``beyond_list``: a value per user).
MEASURES = {name: spec for name, spec in REGISTRY.items() if spec.family.startswith("beyond")}

#: The keywords that carry a measure's data (scorers take them as options).
DATA_OPTIONS = ("popularity", "item_features", "head_share")

#: What each argument is, for the message of a measure asked without it.
_WHAT = {
    "items": "items=... (the catalogue: every item that could be recommended)",
    "popularity": "popularity=... (the training interactions as (user_ids, item_ids), "
    "or a mapping item -> share of training users)",
    "item_features": "item_features=... ((ids, matrix), a mapping id -> vector, or a "
    "data frame indexed by item id)",
    "truth": "the truth (the relevant items of each user)",
}

def is_beyond(item):
    """Whether a metric name (or a ``(name, options)`` pair) is a beyond-accuracy measure."""
    return (family_of(item) or "").startswith("beyond")


def in_order(values, labels):
    """``values`` (a dict by label) in the order of ``labels`` (the names as
    given: a key ``name@k`` that a global ``k`` made is ranked as ``name``)."""
    rank = {label: i for i, label in enumerate(labels)}

    def place(key):
        if key in rank:
            return rank[key]
        return rank.get(key.rpartition("@")[0], 0)

    return dict(sorted(values.items(), key=lambda kv: place(kv[0])))


def is_whole_set(name):
    """Whether the (bare) measure has one value for the whole list set."""
    return MEASURES[name].family == "beyond_set"


#: The families of this layer, for the request builder.
FAMILIES = ("beyond_list", "beyond_set")


def make_requests(items, k=None, where="evaluate"):
    """The requests of beyond-accuracy names (``k`` is added to names without
    a cut-off, as for the other metrics): the registry's one builder."""
    return _make_requests(items, where, k=k, families=FAMILIES)


#: The default of ``head_share=`` (the parameter table's, which every signature states).
HEAD_SHARE = PARAMS["head_share"].default

#: The measures that read each data argument (every measure checks its lists
#: against the catalogue ``items=`` when given; coverage and gini need it).
_READERS = {
    "items": sorted(MEASURES),
    **{arg: sorted(n for n, s in MEASURES.items() if arg in s.data)
       for arg in ("popularity", "item_features")},
    "head_share": ["aplt"],
}
_READ_BY = {
    "items": "every beyond-accuracy measure (coverage@k and gini@k need it, the others "
    "check their lists against it)",
    **{arg: ", ".join(f"{n}@k" for n in readers) for arg, readers in _READERS.items()
       if arg != "items"},
}


def refuse_unread_data(beyond, where, **given):
    """Refuse a data argument (``items=``, ``popularity=``, ``item_features=``,
    ``head_share=``) that none of the beyond-accuracy measures ``beyond`` reads:
    an argument read by nothing would be a call that looks right and is not.
    ``beyond`` holds names, ``(name, options)`` pairs or requests; ``where``
    names the entry point."""
    message = unread_data(beyond, **given)
    if message is not None:
        raise InvalidParameterError(f"{where}: {message}")


def unread_data(beyond, *, head_share=HEAD_SHARE, spell="{}=", **given):
    """What :func:`refuse_unread_data` says (None: every argument is read);
    ``spell`` is how the caller spells an argument (the command line:
    ``"--{}"``, with dashes for underscores)."""
    named = {getattr(_spec_of(item), "name", None) for item in beyond}
    given = [arg for arg, value in given.items() if value is not None]
    if head_share != HEAD_SHARE:
        given.append("head_share")
    for arg in given:
        if not named.intersection(_READERS[arg]):
            shown = spell.format(arg.replace("_", "-") if spell.startswith("--") else arg)
            return (f"{shown} is read by none of the requested metrics; it is read by "
                    f"{_READ_BY[arg]}.")
    return None


def _spec_of(item):
    spec = getattr(item, "spec", None)
    if spec is not None:
        return spec
    label = item[0] if isinstance(item, tuple) else item
    return measure(label) if isinstance(label, str) else None


class BeyondData:
    """The parsed ``items=``, ``popularity=``, ``item_features=`` and ``head_share=``,
    read only when a measure asked for needs them."""

    def __init__(self, items=None, popularity=None, item_features=None,
                 head_share=HEAD_SHARE):
        self._given = {"items": items, "popularity": popularity, "item_features": item_features}
        self.head_share = head_share
        self._parsed = {}

    def with_items(self, items):
        """The same data with the catalogue ``items`` (a score matrix's columns)."""
        return BeyondData(items, self._given["popularity"], self._given["item_features"],
                          self.head_share)

    def given(self, arg):
        return self._given[arg] is not None

    def get(self, arg, label):
        if self._given.get(arg) is None:
            raise InvalidParameterError(f"{label} needs {_WHAT[arg]}; give it.")
        if arg not in self._parsed:
            reader = {
                "items": _data.catalogue,
                "popularity": _data.popularity,
                "item_features": _data.features,
            }[arg]
            self._parsed[arg] = reader(self._given[arg])
        return self._parsed[arg]


def _policy(values, defined, policy, label, why):
    """Per-user values with undefined users replaced; also the users skipped."""
    if policy == "warn" and not defined.all():
        warn_undefined(UndefinedRows(label, int((~defined).sum()), defined.size, "users", why))
    values, skipped = policy_values(values, defined, policy)
    if skipped.size and skipped.all():  # the mean is NaN: said, as reduce_results says it
        warn_undefined(UndefinedRows(label, skipped.size, skipped.size, "users", why,
                                     skipped_all=True))
    return values, skipped


def _mean(values, skipped):
    keep = ~skipped
    if not keep.any():
        return float("nan")
    return float(np.mean(values[keep]))


def compute(
    requests,
    users,
    lens,
    flat,
    data,
    *,
    relevant=None,
    no_relevant="warn",
    what="user",
    checked=False,
):
    """Every beyond-accuracy measure of ``requests`` from ranked lists.

    ``users``, ``lens`` and ``flat`` are the lists (one per row, best first);
    ``relevant`` (one flag per entry of ``flat``) is needed by serendipity;
    ``checked``: the caller refused an item twice in one list already.

    Returns
    -------
    per_user : dict label -> ndarray of shape (n_rows,)
        The per-user measures (NaN where ``no_relevant="skip"`` drops a user).
    value : dict label -> float
        Every measure's value: the mean over users, or the whole-set value.
    """
    raw, parts = partial(
        requests, users, lens, flat, data, relevant=relevant, what=what, checked=checked
    )
    return finish(requests, raw, parts, data, no_relevant)


def check_data(requests, data, has_truth):
    """Raise naming the argument a measure needs and was not given."""
    for req in requests:
        for arg in req.spec.data[1:]:  # after "lists"
            if arg == "truth":
                if not has_truth:
                    raise InvalidParameterError(f"{req.label} needs {_WHAT['truth']}.")
            else:
                data.get(arg, req.label)


def partial(requests, users, lens, flat, data, *, relevant=None, what="user", checked=False):
    """The sums of one block of users (a partition), which blocks add up.

    Returns ``(raw, parts)``: ``raw[label] = (values, defined, why)`` for each
    per-user measure (one entry per user of the block), and ``parts[k] =
    (item ids, exposure, s1, s2, n)`` for the whole-set measures at cut-off
    ``k``: per recommended item its exposure and the personalization sums of
    :func:`kernels.personalization_parts`, and ``n`` the users with a
    non-empty list. Blocks of other users combine by adding per item id.
    """
    check_data(requests, data, relevant is not None)
    raw, parts, cache = {}, {}, {}
    for req in requests:
        if req.k not in cache:
            lists, vocab, keep = _data.top_lists(lens, flat, req.k, users, what, checked)
            if data.given("items"):
                _data.locate(
                    data.get("items", req.label), vocab, "items", req.label, "the catalogue"
                )
            cache[req.k] = lists, vocab, keep
        lists, vocab, keep = cache[req.k]
        if req.whole:
            if req.k not in parts:
                s1, s2, n = kernels.personalization_parts(lists)
                parts[req.k] = (vocab, kernels.exposure(lists), s1, s2, n)
        else:
            raw[req.label] = _per_user(req, lists, vocab, keep, data, relevant)
    return raw, parts


def finish(requests, raw, parts, data, no_relevant):
    """``(per_user, value)`` from the (combined) sums of :func:`partial`."""
    per_user, value = {}, {}
    for req in requests:
        label = req.label
        if req.whole:
            _, exposure, s1, s2, n = parts[req.k]
            if req.name == "coverage":
                n_cat = data.get("items", label).shape[0]
                value[label] = float(np.count_nonzero(exposure)) / n_cat
            elif req.name == "gini":
                value[label] = kernels.gini(exposure, data.get("items", label).shape[0])
            elif req.name == "entropy":
                value[label] = kernels.entropy(exposure)
            else:
                value[label] = kernels.personalization_from_parts(s1, s2, n)
        else:
            values, defined, why = raw[label]
            values, skipped = _policy(values, defined, no_relevant, label, why)
            per_user[label] = values
            value[label] = _mean(values, skipped)
    return per_user, value


def _per_user(req, lists, vocab, keep, data, relevant):
    label = req.label
    empty = "have an empty list"
    if req.name == "ild":
        ids, mat = data.get("item_features", label)
        pos = _data.locate(ids, vocab, "item_features", label, "the item features")
        unit = _data.unit_rows(mat[pos], vocab, label)
        return (*kernels.ild(lists, unit), "have fewer than two items in their list")
    pop = data.get("popularity", label)
    pos = _data.locate(pop.ids, vocab, "popularity", label, "the training popularity")
    if req.name == "novelty":
        return (*kernels.novelty(lists, pop.share[pos]), empty)
    if req.name == "arp":
        if pop.count is None:
            raise InvalidParameterError(
                f"{label} averages the number of training users of each item; popularity "
                "given as shares has no counts: pass the training interactions "
                "(user_ids, item_ids)."
            )
        return (*kernels.arp(lists, pop.count[pos]), empty)
    if req.name == "aplt":
        return (*kernels.aplt(lists, pop.head(data.head_share)[pos]), empty)
    # serendipity
    rel = np.asarray(relevant, dtype=bool)
    rel = rel if keep is None else rel[keep]
    return (*kernels.serendipity(lists, rel, pop.top(req.k)[pos], req.k), empty)
