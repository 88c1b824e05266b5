"""Public functions of the beyond-accuracy measures, over ranked ID lists.

Each reads ``recommended`` as :func:`sk_rankmetrics.evaluate_ranked` does in
memory (a dict ``{user: ranked ids}``, a 2-D array or a list of id lists) and
computes one measure with the kernels of :mod:`.kernels`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal

import numpy as np
from numpy.typing import ArrayLike, NDArray

from .._inputs.id_pairs import ranked_lists, truth_pairs
from .._inputs.preranked import RankedLists
from .._utils.docstrings import parameter_blocks
from .._utils.params import validate
from .lists import beyond_measures
from .measures import BeyondData

_BLOCKS = {
    "recommended": """recommended : dict, 2-D array-like or list of lists
    Ranked item ids per user, best first: ``{user: [id, ...]}``, an array
    of shape (n_users, n_recs) or a list of id lists (integer or string
    ids). An item twice in one list raises.""",
    "k": """k : int, default=None
    Cut-off: each list counts its first ``k`` items (``None``: all).""",
    "users": """users : array-like, default=None
    User ids of the rows when ``recommended`` is an array or a list
    (default ``0..n-1``); they name users in messages.""",
    "items": """items : array-like
    The catalogue: every item that could be recommended, each once. A
    recommended item missing from it raises naming the item.""",
    "popularity": """popularity : tuple, data frame, sparse matrix or mapping
    The training interactions as a pair ``(user_ids, item_ids)``, a data
    frame with user and item columns (named as for
    :func:`qrels_from_frame`) or a users x items scipy.sparse matrix
    (its stored non-zero entries; item ids are its column indices), from
    which the number of distinct
    training users of each item is counted; or a mapping item -> share of
    training users in (0, 1]. A recommended item without a popularity
    raises naming it.""",
    "item_features": """item_features : tuple, mapping or data frame
    One feature vector per item: a pair ``(ids, matrix)``, a mapping
    id -> vector or a data frame indexed by item id.""",
    "per_row": """per_row : bool, default=False
    True returns one value per user instead of the mean.""",
    "no_relevant": """no_relevant : "warn", "skip" or float, default="warn"
    The value of a user for whom the measure is undefined (see Notes):
    ``"warn"`` scores 0 with a warning, ``"skip"`` leaves the user out of
    the mean (NaN per user), a number is used as the value.""",
}


#: Returns of the measures with a value per user.
_RETURNS_PER_USER = """Returns
    -------
    {name} : float or ndarray of shape (n_users,)
        The mean over users, or per-user values if ``per_row``."""

#: References cited by two functions each (continuation lines aligned for ``.. [n]``).
_REFERENCES = {
    "ge": "Ge, M., Delgado-Battenfeld, C. and Jannach, D. (2010). Beyond\n"
          "           accuracy: evaluating recommender systems by coverage and\n"
          "           serendipity. RecSys 2010, 257-260.",
    "zhou": "Zhou, T. et al. (2010). Solving the apparent diversity-accuracy\n"
            "           dilemma of recommender systems. PNAS, 107(10), 4511-4515.",
    "abdollahpouri": "Abdollahpouri, H., Burke, R. and Mobasher, B. (2019). Managing\n"
                     "           popularity bias in recommender systems with personalized\n"
                     "           re-ranking. FLAIRS 2019.",
}


def _doc(**own):
    """Fill ``%(parameters)s`` (a block per parameter of the signature: ``own``,
    else :data:`_BLOCKS`, else the parameter table's ``doc``),
    ``%(returns_per_user)s`` and the shared references."""

    def deco(func):
        name = func.__name__[: -len("_score")]
        func.__doc__ = func.__doc__ % {
            "parameters": "\n    ".join(parameter_blocks(func, {**_BLOCKS, **own}, data=False)),
            "returns_per_user": _RETURNS_PER_USER.format(name=name),
            **_REFERENCES,
        }
        return func

    return deco


def _run(
    name,
    recommended,
    *,
    k,
    users,
    per_row=False,
    no_relevant="warn",
    truth=None,
    threshold=None,
    **data,
):
    """One measure of the lists, read and computed as :func:`evaluate_ranked`
    reads and computes them (:func:`.._inputs.id_pairs.ranked_lists`,
    :func:`.._inputs.id_pairs.truth_pairs`, :func:`.lists.beyond_measures`)."""
    where = f"{name}_score"
    ids, lens, flat = ranked_lists(recommended, users)
    pairs = None if truth is None else truth_pairs(truth, users)[:3]
    data = BeyondData(**{"head_share": 0.2, **data})
    (req,), per_user, value = beyond_measures(
        [name], k, RankedLists(ids, lens, flat), pairs, data, threshold=threshold,
        no_relevant=no_relevant, where=where)
    if per_row:
        return per_user[req.label]  # "name@k" with a cut-off
    return value[req.label]


@validate
@_doc()
def coverage_score(
    recommended: Mapping | ArrayLike,
    *,
    items: ArrayLike,
    k: int | None = None,
    users: ArrayLike | None = None,
) -> float:
    r"""Catalogue coverage of a set of ranked lists (coverage@k).

    .. math:: \mathrm{coverage@k} = \frac{|\bigcup_u L_u|}{|C|}

    with :math:`L_u` the first ``k`` items of user :math:`u` and :math:`C`
    the catalogue ``items``.

    Parameters
    ----------
    %(parameters)s

    Returns
    -------
    coverage : float
        In [0, 1]: one value for the whole set of lists (a single list has
        no coverage of its own).

    Notes
    -----
    Lists may be empty. Cost O(entries).

    References
    ----------
    .. [1] %(ge)s

    Examples
    --------
    >>> from sk_rankmetrics import coverage_score
    >>> rec = {"u1": ["a", "b"], "u2": ["a", "c"]}
    >>> coverage_score(rec, items=["a", "b", "c", "d"])
    0.75
    """
    return _run("coverage", recommended, items=items, k=k, users=users)


@validate
@_doc()
def gini_score(
    recommended: Mapping | ArrayLike,
    *,
    items: ArrayLike,
    k: int | None = None,
    users: ArrayLike | None = None,
) -> float:
    r"""Gini index of item exposure over the catalogue (gini@k).

    With :math:`c_{(1)} \le \dots \le c_{(n)}` the number of lists each of
    the :math:`n = |C|` catalogue items appears in:

    .. math:: G = \frac{\sum_{j=1}^{n} (2j - n - 1)\, c_{(j)}}{n \sum_j c_{(j)}}

    Parameters
    ----------
    %(parameters)s

    Returns
    -------
    gini : float
        0 when every item of the catalogue is equally exposed, up to
        :math:`1 - 1/n` when one item takes every slot; NaN when every list
        is empty. One value for the whole set of lists.

    Notes
    -----
    Items never recommended count with exposure 0 (the catalogue, not the
    recommended items, is the population).

    References
    ----------
    .. [1] Fleder, D. and Hosanagar, K. (2009). Blockbuster culture's next
           rise or fall: the impact of recommender systems on sales
           diversity. Management Science, 55(5), 697-712.

    Examples
    --------
    >>> from sk_rankmetrics import gini_score
    >>> rec = {"u1": ["a", "b"], "u2": ["a", "c"]}
    >>> gini_score(rec, items=["a", "b", "c", "d"])
    0.375
    """
    return _run("gini", recommended, items=items, k=k, users=users)


@validate
@_doc()
def entropy_score(
    recommended: Mapping | ArrayLike, *, k: int | None = None, users: ArrayLike | None = None
) -> float:
    r"""Shannon entropy of item exposure, in bits (entropy@k).

    .. math:: H = -\sum_i p_i \log_2 p_i, \qquad p_i = c_i / \sum_j c_j

    with :math:`c_i` the number of lists item :math:`i` appears in.

    Parameters
    ----------
    %(parameters)s

    Returns
    -------
    entropy : float
        0 when every slot holds one item, :math:`\log_2 m` when :math:`m`
        items are equally exposed; NaN when every list is empty. One value
        for the whole set of lists.

    Notes
    -----
    Items never recommended add nothing (:math:`0 \log 0 = 0`), so no
    catalogue is needed.

    References
    ----------
    .. [1] Shannon, C. E. (1948). A mathematical theory of communication. Bell
           System Technical Journal, 27(3), 379-423.

    Examples
    --------
    >>> from sk_rankmetrics import entropy_score
    >>> entropy_score({"u1": ["a", "b"], "u2": ["a", "c"]})
    1.5
    """
    return _run("entropy", recommended, k=k, users=users)


@validate
@_doc()
def personalization_score(
    recommended: Mapping | ArrayLike, *, k: int | None = None, users: ArrayLike | None = None
) -> float:
    r"""One minus the mean cosine overlap of every pair of lists (personalization@k).

    .. math::

        P = 1 - \binom{n}{2}^{-1} \sum_{u < v}
        \frac{|L_u \cap L_v|}{\sqrt{|L_u|\,|L_v|}}

    Parameters
    ----------
    %(parameters)s

    Returns
    -------
    personalization : float
        1 when no two users share an item, 0 when every list is the same;
        NaN with fewer than two non-empty lists. One value for the whole set
        of lists (it compares lists with each other).

    Notes
    -----
    The sum over pairs of users is computed item by item, with
    :math:`w_u = 1/\sqrt{|L_u|}`, as
    :math:`\sum_i [(\sum_{u: i \in L_u} w_u)^2 - \sum_{u: i \in L_u} w_u^2] / 2`: the
    cost is O(users x k), never quadratic in users. Users with an empty list
    take no part. recmetrics' ``personalization`` is this value on lists of
    one length (it builds the user-by-user cosine matrix).

    References
    ----------
    .. [1] %(zhou)s

    Examples
    --------
    >>> from sk_rankmetrics import personalization_score
    >>> personalization_score({"u1": ["a", "b"], "u2": ["a", "c"]})
    0.5
    """
    return _run("personalization", recommended, k=k, users=users)


@validate
@_doc()
def novelty_score(
    recommended: Mapping | ArrayLike,
    *,
    popularity: Any,
    k: int | None = None,
    users: ArrayLike | None = None,
    per_row: bool = False,
    no_relevant: Literal["warn", "skip"] | float = "warn",
) -> float | NDArray[np.float64]:
    r"""Mean self-information of the recommended items, in bits (novelty@k).

    .. math::

        \mathrm{novelty@k} = \frac{1}{|U|} \sum_u \frac{1}{|L_u|}
        \sum_{i \in L_u} -\log_2 p(i)

    with :math:`p(i)` the share of training users who interacted with
    :math:`i`.

    Parameters
    ----------
    %(parameters)s

    %(returns_per_user)s

    Notes
    -----
    A user with an empty list is undefined. recmetrics' ``novelty`` counts
    training interactions (the same as training users when each pair is
    seen once) and divides each user's sum by the list length ``n`` it is
    given (the same when every list has length ``n``).

    References
    ----------
    .. [1] %(zhou)s

    Examples
    --------
    >>> from sk_rankmetrics import novelty_score
    >>> train = (["x", "y", "z", "w", "x", "x", "y"], ["a", "a", "a", "a", "b", "c", "c"])
    >>> novelty_score({"u1": ["a", "b"], "u2": ["a", "c"]}, popularity=train)
    0.75
    """
    return _run("novelty", recommended, popularity=popularity, k=k, users=users,
                per_row=per_row, no_relevant=no_relevant)


@validate
@_doc(popularity="""popularity : tuple, data frame or sparse matrix
    The training interactions as a pair ``(user_ids, item_ids)``, a data
    frame with user and item columns or a users x items scipy.sparse
    matrix (shares alone have no counts).""")
def arp_score(
    recommended: Mapping | ArrayLike,
    *,
    popularity: Any,
    k: int | None = None,
    users: ArrayLike | None = None,
    per_row: bool = False,
    no_relevant: Literal["warn", "skip"] | float = "warn",
) -> float | NDArray[np.float64]:
    r"""Average recommendation popularity (arp@k).

    .. math::

        \mathrm{ARP@k} = \frac{1}{|U|} \sum_u \frac{1}{|L_u|}
        \sum_{i \in L_u} \phi(i)

    with :math:`\phi(i)` the number of training users who interacted with
    :math:`i`.

    Parameters
    ----------
    %(parameters)s

    %(returns_per_user)s

    Notes
    -----
    A user with an empty list is undefined.

    References
    ----------
    .. [1] %(abdollahpouri)s

    Examples
    --------
    >>> from sk_rankmetrics import arp_score
    >>> train = (["x", "y", "z", "w", "x", "x", "y"], ["a", "a", "a", "a", "b", "c", "c"])
    >>> arp_score({"u1": ["a", "b"], "u2": ["a", "c"]}, popularity=train)
    2.75
    """
    return _run("arp", recommended, popularity=popularity, k=k, users=users,
                per_row=per_row, no_relevant=no_relevant)


@validate
@_doc()
def aplt_score(
    recommended: Mapping | ArrayLike,
    *,
    popularity: Any,
    k: int | None = None,
    head_share: float = 0.2,
    users: ArrayLike | None = None,
    per_row: bool = False,
    no_relevant: Literal["warn", "skip"] | float = "warn",
) -> float | NDArray[np.float64]:
    r"""Average percentage of long-tail items (aplt@k).

    .. math::

        \mathrm{APLT@k} = \frac{1}{|U|} \sum_u
        \frac{|\{i \in L_u : i \notin H\}|}{|L_u|}

    where the head :math:`H` is the most popular items (by training users,
    ties by ascending item id) whose interactions first reach
    ``head_share`` of all training interactions.

    Parameters
    ----------
    %(parameters)s

    %(returns_per_user)s

    Notes
    -----
    A user with an empty list is undefined. The head always holds at least
    one item; the item at which the running total reaches the share is in
    the head.

    References
    ----------
    .. [1] %(abdollahpouri)s

    Examples
    --------
    >>> from sk_rankmetrics import aplt_score
    >>> train = (["x", "y", "z", "w", "x", "x", "y"], ["a", "a", "a", "a", "b", "c", "c"])
    >>> aplt_score({"u1": ["a", "b"], "u2": ["a", "c"]}, popularity=train)
    0.5
    """
    return _run("aplt", recommended, popularity=popularity, k=k, head_share=head_share,
                users=users, per_row=per_row, no_relevant=no_relevant)


@validate
@_doc()
def ild_score(
    recommended: Mapping | ArrayLike,
    *,
    item_features: Any,
    k: int | None = None,
    users: ArrayLike | None = None,
    per_row: bool = False,
    no_relevant: Literal["warn", "skip"] | float = "warn",
) -> float | NDArray[np.float64]:
    r"""Intra-list diversity: mean pairwise cosine distance in a list (ild@k).

    .. math::

        \mathrm{ILD}(L_u) = \frac{2}{|L_u|(|L_u| - 1)} \sum_{i < j \in L_u}
        \bigl(1 - \mathrm{cos}(f_i, f_j)\bigr)

    averaged over users.

    Parameters
    ----------
    %(parameters)s

    Returns
    -------
    ild : float or ndarray of shape (n_users,)
        The mean over users, or per-user values if ``per_row``; each in
        [0, 2].

    Notes
    -----
    A user with fewer than two items is undefined. With unit vectors
    :math:`\hat f` and :math:`s = \sum_{i \in L_u} \hat f_i`, the pair sum is
    :math:`(\|s\|^2 - |L_u|)/2`, so the cost is O(users x k x dims)
    instead of O(users x k^2 x dims). Each vector is divided by its largest
    absolute entry before it is scaled to unit length, so the value does not
    depend on the scale of the features (entries of 1e-300 or 1e300 give the
    value of entries near 1); only an exact zero vector raises (its cosine is
    undefined). recmetrics' ``intra_list_similarity`` is the mean cosine
    *similarity*, 1 - ILD.

    References
    ----------
    .. [1] Ziegler, C.-N., McNee, S. M., Konstan, J. A. and Lausen, G. (2005).
           Improving recommendation lists through topic diversification.
           WWW 2005, 22-32.

    Examples
    --------
    >>> from sk_rankmetrics import ild_score
    >>> feats = {"a": [1.0, 0.0], "b": [0.0, 1.0], "c": [1.0, 1.0]}
    >>> ild_score({"u1": ["a", "b"], "u2": ["a", "c"]}, item_features=feats, per_row=True)
    array([1.        , 0.29289322])
    """
    return _run("ild", recommended, item_features=item_features, k=k, users=users,
                per_row=per_row, no_relevant=no_relevant)


@validate
@_doc(
    truth="""truth : dict, list or tuple
    Relevant ids per user: ``{user: {id, ...}}`` or ``{user: {id:
    relevance}}``, a list aligned with ``recommended``, or a tuple
    ``(user_ids, item_ids[, relevance])``.""",
    k="""k : int
    The cut-off, also the number of popular items left out (required:
    ``None`` raises).""",
    threshold="""threshold : float, default=None
    Lowest relevance that counts as relevant (default: > 0).""",
)
def serendipity_score(
    recommended: Mapping | ArrayLike,
    truth: Any,
    *,
    popularity: Any,
    k: int | None = None,
    users: ArrayLike | None = None,
    threshold: float | None = None,
    per_row: bool = False,
) -> float | NDArray[np.float64]:
    r"""Share of the top k that is relevant and not among the k most popular.

    .. math::

        \mathrm{serendipity@k} = \frac{1}{|U|} \sum_u
        \frac{|\{i \in L_u : \mathrm{rel}(u, i) > 0,\ i \notin \mathrm{Pop}_k\}|}{k}

    with :math:`\mathrm{Pop}_k` the ``k`` most popular training items (by
    training users, ties by ascending item id).

    Parameters
    ----------
    %(parameters)s

    %(returns_per_user)s

    Notes
    -----
    Every user is defined: a user without a relevant item scores 0 (the
    value is a precision, with an unexpectedness filter). The popular
    baseline is the k most popular items, a primitive recommender.

    References
    ----------
    .. [1] %(ge)s

    Examples
    --------
    >>> from sk_rankmetrics import serendipity_score
    >>> train = (["x", "y", "z", "w", "x", "x", "y"], ["a", "a", "a", "a", "b", "c", "c"])
    >>> rec = {"u1": ["a", "b"], "u2": ["a", "c"]}
    >>> serendipity_score(rec, {"u1": {"b"}, "u2": {"a"}}, popularity=train, k=2)
    0.25
    """
    return _run("serendipity", recommended, truth=truth, popularity=popularity, k=k, users=users,
                threshold=threshold, per_row=per_row)
