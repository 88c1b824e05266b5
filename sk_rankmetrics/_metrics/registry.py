"""The metric registry: one frozen spec per metric, the presets, name lookup."""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass
from typing import Any, Callable, Literal, NamedTuple, TypeVar, Union, overload

from .._utils.constraints import (
    check_param,
)
from .._utils.docstrings import fill_doc
from .._utils.errors import InvalidParameterError
from .._utils.params import PARAMS, validate
from .._utils.types import MetricFamily
from .kernels import (
    cutoff,
    cwl,
    diversity,
    gain_curves,
    gain_g,
    interpolated,
    judgements,
    orderings,
    sets,
    user_models,
)

F = TypeVar("F", bound=Callable[..., Any])

# -- metrics -----------------------------------------------------------------------

_GAIN_OPTIONS = ("gain", "discount", "log_base")
_BINARY_OPTIONS = ("threshold",)
# Options of a measure over the whole ranking: max_docs truncates the ranking first.
_WHOLE = (*_BINARY_OPTIONS, "max_docs")


class Family(NamedTuple):
    """A family of measures: what it is, the data it reads, who computes it."""

    description: str
    data: tuple
    #: The entry points that compute its measures (see :func:`elsewhere`), for
    #: the message of one that cannot.
    computed_by: tuple
    #: Whether the core's layouts and engine compute it (a :class:`MetricSpec`
    #: with a kernel, in :data:`METRICS`).
    ranking: bool = False


_RANKING_ENTRIES = (
    "evaluate",
    "evaluate_ranked",
    "evaluate_run",
    "evaluate_embeddings",
    "RankingAccumulator",
    "make_eval_metric",
    "scorers",
    "command_line",
)
_BEYOND_ENTRIES = ("evaluate_ranked", "embeddings", "scores", "scorers", "command_line",
                   "function")

#: Every family of measures, in the order :func:`metric_names` documents them.
FAMILIES: dict[str, Family] = {
    "accuracy": Family("accuracy of a ranking against the truth, with a public function",
                       ("ranking", "truth"), _RANKING_ENTRIES, ranking=True),
    "trec_eval": Family("trec_eval's and ir_measures' other measures, reached by name",
                        ("ranking", "truth"), _RANKING_ENTRIES, ranking=True),
    "cwl": Family("cwl_eval's C/W/L measures, on its gain scale (min_rel to max_rel)",
                  ("ranking", "truth"), _RANKING_ENTRIES, ranking=True),
    "diversity": Family(
        "diversity measures: they read a diversity qrels (query, subtopic, document)",
        ("ranking", "subtopics"), ("diversity_run", "diversity_ranked", "command_line")),
    "beyond_list": Family("beyond-accuracy measures of each list, averaged over users",
                          ("lists",), _BEYOND_ENTRIES),
    "beyond_set": Family(
        "beyond-accuracy measures of the whole set of lists (one value, no per-user values)",
        ("lists",), _BEYOND_ENTRIES),
}


#: :attr:`MetricSpec.sparse_beside_sort` of most measures, of those that
#: weigh the relevant items one by one, and of those whose kernel costs more
#: per position of the full ranking.
SPARSE_BESIDE_SORT = 25
SPARSE_BESIDE_SORT_WEIGHED = 18
SPARSE_BESIDE_SORT_DENSER = 16


@dataclass(frozen=True)
class MetricSpec:
    """One registered metric.

    Parameters
    ----------
    name : str
        Canonical short name (``"ndcg"``, ``"map"``, ...).
    function : str or None
        Name of the public function computing it (None: reached by name only,
        through :func:`evaluate`, the scorers and the run entry points).
    kernel : callable
        ``kernel(rc, req) -> (values, defined)``.
    needs : tuple of str
        The item values the kernel reads: ``"gain"`` (graded gains),
        ``"positive"`` (whether the gain is positive), ``"rel"`` (the
        relevance indicator at ``threshold``), ``"judged"``
        and ``"pool"`` (whether an item is judged, or named by the truth at
        all), ``"grades"`` (one indicator per relevance grade).
    options : tuple of str
        The options it reads; their defaults and constraints are in
        :data:`PARAMS`.
    normalized : bool
        Whether values lie in [0, 1] and a row without relevant items is
        undefined (handled by the ``no_relevant`` policy).
    takes_k : bool
        Whether a cut-off ``k`` applies (``name@k``).
    at_option : str or None
        For a metric whose ``@`` takes a real number instead of a cut-off
        (``"iprec_at_recall@0.5"``): the option it sets.
    full : bool
        Whether the kernel reads the whole ranking (no cut-off applies); such
        a measure reads the option ``max_docs``, which cuts the ranking first
        (trec_eval's ``-M``, per measure).
    aggregate : {"mean", "sum"}
        How rows are combined: the (weighted) mean, or the sum (counts such
        as trec_eval's ``num_rel``).
    ties : {"expected", "refuse"}
        ``"expected"``: under the default tie rule the kernel gives the exact
        expected value over every ordering of each tie group. ``"refuse"``: no
        closed form is known; tied scores raise unless ``ignore_ties=True``
        (or the trec_eval setting, which breaks ties).
    aliases : tuple of str
        Other accepted names.
    description : str
        One line for tables and help texts.
    needs_ideal : bool or callable
        Whether the kernel reads the row's ideal gains (``rc.ideal``); a
        callable decides from the request's options.
    always_defined : bool
        Whether a row without relevant items still has a value (Judged@k):
        the ``no_relevant`` policy never applies.
    reads_to_r : bool
        Whether the kernel reads each row's ranking down to its R
        (R-precision).
    scans_uncut : bool
        Whether the kernel, without a cut-off, reads the scores of whole rows
        (``rc.block``) instead of their ranking (MRR: the best relevant score
        and counts of the scores above and equal to it): a matrix block is
        then not ranked for it.
    order_free : bool
        Whether the value without a cut-off (and without ``max_docs``)
        depends only on which items are ranked, not on their order
        (precision, recall, CG, the set measures, the counts): the kernel reads
        the sums over the whole ranking off the row totals when the chunk
        ranks every item of its rows (``RankedChunk.ranks_every_item``),
        and a matrix block is not ranked for it.
    reads_groups : bool
        Whether the kernel, on whole rows ranked with their tie groups
        (``rc.groups``), reads the groups only, and only those holding an
        item of nonzero value (an expected weighted sum of the items' values,
        AP, bpref, ERR, interpolated precision; G reads those groups'
        members, ``_RelevantGroups.members``): without a cut-off, sparse
        relevance is then ranked through its relevant items only
        (:func:`~sk_rankmetrics._ranking.relevant.rank_relevant`).
    weighs_groups : bool
        For a measure that ``reads_groups``: whether its kernel reads them as
        an expected weighted sum only (``RankedChunk.weighted``: each item's
        value times the mean weight of its group's positions, summed per
        row; DCG, nDCG, RBP), which is the same whether the relevant items
        of one tie group come together or apart, in any order. Where every
        ranked measure of a call does, the relevant items' route gives each
        relevant item as a group of its own (its tie group's start and size),
        in row order, with no sort of the groups nor sums over them.
    sparse_beside_sort : int
        For a measure that ``reads_groups``: where the levels' route would
        rank a block without a cut-off by a sort of narrow keys (rows of at
        most 512 float scores, :func:`~sk_rankmetrics._ranking.levels.sorts_narrow`),
        the block is ranked through its relevant items instead when at most
        one entry in this many holds one (every ranked measure of the call
        agreeing: the largest of theirs). 25 where the kernel reads the full
        ranking at about the cost of its relevant groups (ERR, Rndcg,
        interpolated precision); 18 where it weighs the relevant items one
        by one (``weighs_groups``: nDCG, DCG, RBP); 16 where it reads more
        per position of the full ranking than per relevant group (AP, infAP,
        bpref, G, ndcg_rel: running counts down every position). Measured
        on one thread, each measure alone, rows of 100, 3-8 % of the
        entries relevant, float64 and float32 scores: the route and the sort
        break even at 4-5 %, 5.5-6 % and 5.5-7 % of the entries.
    reads_few_ties : bool
        Whether the kernel, without a cut-off, reads a block whose rows tie
        in a few places as one chunk in the order given, corrected at its
        tie groups (``rc.few_ties``; it reads no per-position statistic of
        the ranking there): where a tie changes the terms of its own
        positions only (DCG, AP, bpref, ERR, G, interpolated precision), or
        where the expected value is that of each position's mean gain, put
        right at the grouped positions (ndcg_rel, Rndcg:
        :mod:`.kernels.gain_down`). False splits such a block into its
        untied and its tied rows.
    reads_items : bool
        Whether the kernel reads the values of the members of each tie group
        (``RankedChunk.items``), not only their sums; such a measure ranks
        whole rows.
    greater_is_better : bool
        Direction of the metric.
    label : str
        How plots and reports name it (``"nDCG"``); the registry name when not
        given.
    option_defaults : tuple of (str, object) pairs
        Defaults of this metric that differ from :data:`PARAMS`' (Compat's
        persistence 0.95, NERR10's 0.9).
    gain_from : callable or None
        For a metric whose gain follows from its options (C/W/L's scale of
        ``min_rel`` and ``max_rel``): ``gain_from(options)`` gives the gain
        callable, with a ``key`` attribute naming it.
    family : str
        Its family, a key of :data:`FAMILIES`: ``"accuracy"`` (a measure with a
        public function), ``"trec_eval"`` (reached by name only), ``"cwl"``,
        ``"diversity"``, ``"beyond_list"`` or ``"beyond_set"``. Not given: from
        ``function`` (``"accuracy"`` when it has one, else ``"trec_eval"``).
    data : tuple of str
        The data it reads, for messages and the entry points' choice of
        measures: the family's (:data:`FAMILIES`) when not given; a
        beyond-accuracy measure adds its keywords (``"items"``,
        ``"popularity"``, ``"item_features"``, ``"truth"``).
    """

    name: str
    function: str | None
    kernel: Callable | None
    needs: tuple
    options: tuple
    normalized: bool = True
    takes_k: bool = True
    at_option: str | None = None
    full: bool = False
    aggregate: str = "mean"
    ties: str = "expected"
    aliases: tuple = ()
    description: str = ""
    needs_ideal: bool | Callable = False
    always_defined: bool = False
    reads_to_r: bool = False
    scans_uncut: bool = False
    order_free: bool = False
    reads_groups: bool = False
    weighs_groups: bool = False
    sparse_beside_sort: int = SPARSE_BESIDE_SORT
    reads_few_ties: bool = False
    reads_items: bool = False
    greater_is_better: bool = True
    label: str = ""
    option_defaults: tuple = ()
    gain_from: Callable[..., Any] | None = None
    family: str = ""
    data: tuple = ()

    def __post_init__(self) -> None:
        for field in ("needs", "options", "aliases", "data"):
            object.__setattr__(self, field, tuple(getattr(self, field)))
        if not self.label:
            object.__setattr__(self, "label", self.name)
        if not self.family:
            object.__setattr__(self, "family", "accuracy" if self.function else "trec_eval")
        if self.family not in FAMILIES:
            raise ValueError(f"{self.name}: unknown family {self.family!r}")
        if not self.data:
            object.__setattr__(self, "data", FAMILIES[self.family].data)

    @property
    def defaults(self) -> dict[str, Any]:
        """The options it reads, with their defaults: the metric's own
        (``option_defaults``, e.g. Compat's ``p=0.95``) or else the parameter table's."""
        out = {o: PARAMS[o].default for o in self.options}
        out.update(self.option_defaults)
        return out

    def __repr__(self) -> str:
        return f"MetricSpec({self.name!r})"


#: Every measure the package computes, of every family (:data:`FAMILIES`).
REGISTRY: dict[str, MetricSpec] = {}
#: The measures of the core's layouts and engine (accuracy, trec_eval, C/W/L).
METRICS: dict[str, MetricSpec] = {}
#: The diversity measures (they read a diversity qrels).
DIVERSITY: dict[str, MetricSpec] = {}


def _register(name: str, function: str | None, kernel: Callable[..., Any] | None,
              needs: tuple[str, ...] = (), options: tuple[str, ...] = (),
              **kwargs: Any) -> None:
    spec = MetricSpec(name, function, kernel, needs, options, **kwargs)
    if name in REGISTRY:
        raise ValueError(f"{name!r} is registered twice")
    REGISTRY[name] = spec
    if FAMILIES[spec.family].ranking:
        METRICS[name] = spec
    elif spec.family == "diversity":
        DIVERSITY[name] = spec


def metric_function(name: str) -> Callable[[F], F]:
    """Mark a public function as the one computing registered metric ``name``.

    The scorers find a function's metric through this mark (functions are
    matched by identity, so another library's ``ndcg_score`` is refused), and
    the registry's ``function`` field must name the decorated function.
    """
    spec = METRICS[name]

    def mark(func: F) -> F:
        if spec.function != func.__name__:
            raise RuntimeError(f"the registry names {spec.function!r} for {name!r}, "
                               f"not {func.__name__!r}")
        # the mark the scorers look for, an attribute of the function object
        func._sk_rankmetrics_metric = name  # type: ignore[attr-defined]
        return func

    return mark


_NEEDS_GAIN = ("gain",)
_NEEDS_REL = ("rel",)

# The metrics of scikit-learn, LightGBM/XGBoost and every tool's core set.
_register("ndcg", "ndcg_score", cutoff.ndcg, _NEEDS_GAIN, _GAIN_OPTIONS, needs_ideal=True,
          reads_groups=True, weighs_groups=True,
          sparse_beside_sort=SPARSE_BESIDE_SORT_WEIGHED, reads_few_ties=True,
          description="normalised discounted cumulative gain",
          label="nDCG")
_register("dcg", "dcg_score", cutoff.dcg, _NEEDS_GAIN, _GAIN_OPTIONS, normalized=False,
          reads_groups=True, weighs_groups=True,
          sparse_beside_sort=SPARSE_BESIDE_SORT_WEIGHED, reads_few_ties=True,
          description="discounted cumulative gain",
          label="DCG")
_register("cg", "cumulative_gain_score", cutoff.cumulative_gain, _NEEDS_GAIN, ("gain",),
          normalized=False, aliases=("cumulative_gain",), order_free=True,
          description="cumulative gain (sum of gains in the top k)",
          label="CG")
_register("map", "mean_average_precision_score", cutoff.average_precision, _NEEDS_REL,
          (*_BINARY_OPTIONS, "denominator", "mean"), aliases=("ap", "mean_average_precision"),
          reads_groups=True,
          sparse_beside_sort=SPARSE_BESIDE_SORT_DENSER, reads_few_ties=True,
          description="mean average precision",
          label="MAP")
_register("precision", "precision_at_k_score", cutoff.precision, _NEEDS_REL,
          (*_BINARY_OPTIONS, "adaptive_k"), aliases=("p",), order_free=True,
          description="precision at k",
          label="precision")
_register("recall", "recall_at_k_score", cutoff.recall, _NEEDS_REL, _BINARY_OPTIONS,
          aliases=("r",), order_free=True, description="recall at k",
          label="recall")
_register("hit_rate", "hit_rate_score", cutoff.hit_rate, _NEEDS_REL, _BINARY_OPTIONS,
          aliases=("hit", "hr", "success"),
          order_free=True, description="hit rate: any relevant item in the top k",
          label="hit rate")
_register("mrr", "reciprocal_rank_score", cutoff.reciprocal_rank, _NEEDS_REL, _BINARY_OPTIONS,
          aliases=("rr", "reciprocal_rank", "recip_rank"), scans_uncut=True,
          description="mean reciprocal rank of the first relevant item",
          label="MRR")
_register("r_precision", "r_precision_score", cutoff.r_precision, _NEEDS_REL, _BINARY_OPTIONS,
          takes_k=False, reads_to_r=True, aliases=("rprec", "r-precision"),
          description="precision at R, the number of relevant items of the row")

# Beyond trec_eval: ERR, RBP, F1.
_register("err", "err_score", user_models.err, ("gain", "grades"), ("max_grade", "normalize"),
          needs_ideal=lambda opts: opts["normalize"], aliases=("expected_reciprocal_rank",),
          reads_groups=True, reads_few_ties=True,
          description="expected reciprocal rank (Chapelle et al. 2009); nERR normalised",
          label="ERR")
_register("rbp", "rbp_score", user_models.rbp, ("rel", "gain"), (*_BINARY_OPTIONS, "p", "graded"),
          normalized=False, needs_ideal=lambda opts: opts["graded"], reads_groups=True,
          weighs_groups=True, sparse_beside_sort=SPARSE_BESIDE_SORT_WEIGHED,
          reads_few_ties=True, aliases=("rank_biased_precision",),
          description="rank-biased precision (Moffat and Zobel 2008)",
          label="RBP")
_register("rbp_resid", None, user_models.rbp_residual, ("judged",),
          ("p", "zero_if_judged", "max_docs"),
          normalized=False, full=True, takes_k=False,
          description="RBP's residual: the most it could grow if unjudged items were relevant")
_register("f1", "f1_at_k_score", cutoff.f1, _NEEDS_REL, (*_BINARY_OPTIONS, "beta"),
          aliases=("f",), order_free=True,
          description="F1 at k: harmonic mean of precision and recall at k",
          label="F1")

# Judgements: incomplete judgements and judged-only measures.
_register("bpref", "bpref_score", judgements.bpref, ("rel", "judged"), (*_WHOLE, "mean"),
          takes_k=False, full=True, reads_groups=True,
          sparse_beside_sort=SPARSE_BESIDE_SORT_DENSER, reads_few_ties=True,
          description="binary preference (Buckley and Voorhees 2004): judged items only")
_register("infap", None, judgements.infap, ("rel", "judged", "pool"), _WHOLE,
          takes_k=False, full=True, aliases=("inferred_ap",), reads_groups=True,
          sparse_beside_sort=SPARSE_BESIDE_SORT_DENSER, reads_few_ties=True,
          description="inferred AP (Yilmaz and Aslam 2006) for sampled judgements")
_register("judged", None, judgements.judged, ("pool",), (), normalized=True, always_defined=True,
          aliases=("judged_rate",),
          order_free=True, description="share of the top k (at most the ranking) the truth names",
          label="judged")
_register("unjudged", None, judgements.unjudged, ("judged",), (), normalized=True,
          always_defined=True, aliases=("unj",), greater_is_better=False,
          order_free=True, description="share of the top k that is not judged (trec_eval's unj_k)",
          label="unjudged")

# Counts: summed, not averaged, over queries (trec_eval's num_*).
_register("num_ret", None, sets.num_ret, (), ("max_docs",), normalized=False, takes_k=False,
          full=True, aggregate="sum", order_free=True, description="number of items ranked")
_register("num_rel", None, sets.num_rel, _NEEDS_REL, _BINARY_OPTIONS, normalized=False,
          takes_k=False, aggregate="sum", order_free=True,
          description="number of relevant items (R)")
_register("num_rel_ret", None, sets.num_rel_ret, _NEEDS_REL, _WHOLE, normalized=False,
          takes_k=False, full=True, aggregate="sum",
          order_free=True, description="number of relevant items ranked")
_register("num_nonrel_judged_ret", None, sets.num_nonrel_judged_ret, ("rel", "judged"),
          _WHOLE, normalized=False, takes_k=False, full=True, aggregate="sum",
          greater_is_better=False, order_free=True,
          description="number of judged non-relevant items ranked")
_register("num_q", None, sets.num_q, (), (), normalized=False, takes_k=False,
          aggregate="sum", order_free=True, description="number of queries")

# Set measures: the ranked items as an unordered set.
_register("set_p", None, sets.set_precision, _NEEDS_REL, _WHOLE, takes_k=False, full=True,
          order_free=True, description="precision of the whole ranking")
_register("set_recall", None, sets.set_recall, _NEEDS_REL, _WHOLE, takes_k=False,
          full=True, order_free=True, description="recall of the whole ranking")
_register("set_f", None, sets.set_f, _NEEDS_REL, (*_WHOLE, "beta"), takes_k=False,
          full=True, order_free=True, description="F_beta of the whole ranking")
_register("set_map", None, sets.set_map, _NEEDS_REL, _WHOLE, takes_k=False, full=True,
          order_free=True, description="set precision times set recall")
_register("set_relative_p", None, sets.set_relative_precision, _NEEDS_REL,
          _WHOLE,
          takes_k=False, full=True,
          order_free=True, description="relevant ranked over min(ranked, R)")
_register("utility", None, sets.utility, _NEEDS_REL, (*_WHOLE, "payoffs", "n_docs"),
          normalized=False, takes_k=False, full=True,
          order_free=True,
          description="weighted count of the contingency table (trec_eval's utility)")

# Precision at other cut-offs.
_register("relative_p", None, cutoff.relative_precision, _NEEDS_REL, _BINARY_OPTIONS,
          order_free=True, description="relevant in the top k over min(k, R)",
          label="relative precision")
_register("rprec_mult", None, sets.rprec_mult, _NEEDS_REL, (*_WHOLE, "multiple"),
          takes_k=False, at_option="multiple", full=True,
          description="precision at a multiple of R")
_register("iprec_at_recall", None, interpolated.iprec_at_recall, _NEEDS_REL,
          (*_WHOLE, "recall", "recall_rounding"),
          takes_k=False, at_option="recall", full=True, reads_groups=True, reads_few_ties=True,
          aliases=("iprec",), description="interpolated precision at a recall level")
_register("11pt_avg", None, interpolated.eleven_point_average, _NEEDS_REL,
          (*_WHOLE, "recall_levels", "recall_rounding"), takes_k=False, full=True,
          reads_groups=True, reads_few_ties=True, aliases=("11_pt_avg", "eleven_point_average"),
          description="interpolated precision averaged over recall levels")

# trec_eval's experimental gain measures.
_register("bing", None, gain_curves.binary_g, _NEEDS_REL, _WHOLE, takes_k=False, full=True,
          reads_few_ties=True, aliases=("binary_g",),
          description="binary G: relevant items discounted by the non-relevant ones before")
_register("g", None, gain_g.normalized_gain, _NEEDS_GAIN, ("gain", "max_docs"), takes_k=False,
          full=True, needs_ideal=True, reads_items=True, reads_groups=True,
          sparse_beside_sort=SPARSE_BESIDE_SORT_DENSER, reads_few_ties=True,
          description="trec_eval's G: gain against the ideal's cumulative cost")
_register("ndcg_rel", None, gain_curves.ndcg_rel, ("gain", "positive"), ("gain", "max_docs"),
          takes_k=False, full=True, needs_ideal=True, reads_groups=True,
          sparse_beside_sort=SPARSE_BESIDE_SORT_DENSER, reads_few_ties=True,
          description="nDCG averaged over the ranks of the relevant items")
_register("rndcg", None, gain_curves.rndcg, ("gain", "rel"), ("gain", "threshold", "max_docs"),
          takes_k=False, full=True, needs_ideal=True, reads_groups=True, reads_few_ties=True,
          description="nDCG averaged where the ideal gain changes level")



# cwl_eval's C/W/L measures, as ir_measures names them: gains on cwl_eval's scale.
def _cwl_gain(opts: dict[str, Any], where: str | None = None) -> cwl.LevelScale:
    lo, hi = opts["min_rel"], opts["max_rel"]
    if hi <= lo:
        raise InvalidParameterError(
            f"{where or 'the metric'}: max_rel={hi!r} must exceed min_rel={lo!r}; the C/W/L "
            "gain scales levels from min_rel (worth 0) to max_rel (worth 1)."
        )
    return cwl.LevelScale(lo, hi)


_CWL = ("min_rel", "max_rel")
_CWL_REFUSE: dict[str, Any] = dict(needs=("gain",), normalized=False, ties="refuse",
                                   gain_from=_cwl_gain, family="cwl")
_register("nerr8", None, cwl.nerr8, options=_CWL, label="NERR8",
          description="C/W/L's NERR, equation 8: ERR's stopping, truncated at k",
          **_CWL_REFUSE)
_register("nerr9", None, cwl.nerr9, options=_CWL, label="NERR9",
          description="C/W/L's NERR, equation 9: ERR's stopping and discount, truncated at k",
          **_CWL_REFUSE)
_register("nerr10", None, cwl.nerr10, options=("p", *_CWL), takes_k=False, full=True,
          option_defaults=(("p", 0.9),), label="NERR10",
          description="C/W/L's NERR, equation 10: ERR's stopping with RBP's persistence p",
          **_CWL_REFUSE)
_register("nerr11", None, cwl.nerr11, options=("T", *_CWL), takes_k=False, full=True,
          label="NERR11",
          description="C/W/L's NERR, equation 11: ERR's stopping with INST's goal T",
          **_CWL_REFUSE)
_register("inst", None, cwl.inst, options=("T", *_CWL), takes_k=False, full=True,
          label="INST", description="INST (Moffat et al. 2015): patience adapts to the gain "
          "still wanted", **_CWL_REFUSE)
_register("insq", None, cwl.insq, ("gain",), ("T", *_CWL), normalized=False, takes_k=False,
          full=True, gain_from=_cwl_gain, label="INSQ", family="cwl",
          description="INSQ (Moffat et al. 2012): patience grows with the position")
_register("sdcg", None, cwl.sdcg, ("gain",), _CWL, normalized=False, gain_from=_cwl_gain,
          label="SDCG", family="cwl",
          description="scaled DCG: DCG@k over the DCG of k items of max_rel")
_register("bpm", None, cwl.bpm, options=("T", *_CWL), label="BPM",
          description="Bejeweled Player Model (static): mean gain until T is reached or k",
          **_CWL_REFUSE)

# The order of the ranking against the ideal's.
def _positive_level(opts: dict[str, Any], where: str | None = None) -> orderings.PositiveLevel:
    return orderings.PositiveLevel()


_register("compat", None, orderings.compat, ("gain", "positive"), ("p", "normalize", "max_docs"),
          takes_k=False, full=True, needs_ideal=True, ties="refuse",
          option_defaults=(("p", 0.95), ("normalize", True)),
          gain_from=_positive_level, label="Compat",
          description="compatibility (Clarke et al. 2021): rank-biased overlap with the ideal")
_register("accuracy", None, orderings.accuracy, _NEEDS_REL, _BINARY_OPTIONS, ties="refuse",
          label="accuracy",
          description="share of the (relevant, non-relevant) pairs of the top k ordered right")


# Shorthand names that fix an option ("ndcg_exp" = ndcg with exponential gain).
class Preset(NamedTuple):
    """A registered metric under fixed options, with a name of its own."""

    base: str
    options: dict
    label: str


PRESETS = {
    "ndcg_exp": Preset("ndcg", {"gain": "exponential"}, "nDCG (exponential gain)"),
    "dcg_exp": Preset("dcg", {"gain": "exponential"}, "DCG (exponential gain)"),
    "nerr": Preset("err", {"normalize": True}, "nERR"),
    "gm_map": Preset("map", {"mean": "geometric", "denominator": "relevant"}, "GMAP"),
    "gm_bpref": Preset("bpref", {"mean": "geometric"}, "geometric-mean bpref"),
}

# The diversity measures (ndeval's and ir_measures'): they read a diversity qrels.
def _diversity(name: str, options: tuple[str, ...], label: str, **kwargs: Any) -> None:
    """A diversity measure: its kernel is ``kernels.diversity.<name>``."""
    _register(name, None, getattr(diversity, name), ("subtopics",), options, ties="refuse",
              family="diversity", label=label, **kwargs)


_diversity("alpha_ndcg", ("threshold", "redundancy"), "alpha-nDCG", needs_ideal=True,
           description="alpha-nDCG (Clarke et al. 2008) against ndeval's greedy ideal")
_diversity("alpha_dcg", ("threshold", "redundancy"), "alpha-DCG", normalized=False,
           description="alpha-DCG over the DCG of every subtopic covered at every position "
           "(ndeval's collection-independent normalisation)")
_diversity("err_ia", ("threshold", "redundancy"), "ERR-IA", normalized=False,
           description="intent-aware ERR over its every-subtopic-covered bound (ndeval's)")
_diversity("nerr_ia", ("threshold", "redundancy"), "nERR-IA", needs_ideal=True,
           description="intent-aware ERR against ndeval's greedy ideal")
_diversity("nrbp", ("threshold", "redundancy", "patience"), "NRBP", takes_k=False, full=True,
           description="novelty- and rank-biased precision (Clarke et al. 2009)")
_diversity("nnrbp", ("threshold", "redundancy", "patience"), "nNRBP", takes_k=False, full=True,
           needs_ideal=True, description="NRBP against ndeval's greedy ideal")
_diversity("ap_ia", ("threshold",), "AP-IA", takes_k=False, full=True, aliases=("map_ia",),
           description="intent-aware average precision: each subtopic's AP, averaged")
_diversity("p_ia", ("threshold",), "P-IA",
           description="intent-aware precision: relevant (document, subtopic) pairs over k S")
_diversity("subtopic_recall", ("threshold",), "S-recall", aliases=("strec", "st_recall"),
           description="subtopic recall: the subtopics covered in the top k, over S")



# The beyond-accuracy measures: read from ranked lists and computed by the
# beyond-accuracy layer (``_beyond``), which reads this table: no kernel here.
def _beyond(name: str, whole: bool, data: tuple[str, ...], description: str,
            **kwargs: Any) -> None:
    _register(name, f"{name}_score", None, (), (), normalized=False, ties="refuse",
              family="beyond_set" if whole else "beyond_list", data=("lists", *data),
              description=description, **kwargs)


_beyond("coverage", True, ("items",), "catalogue coverage")
_beyond("gini", True, ("items",), "Gini index of item exposure", greater_is_better=False)
_beyond("entropy", True, (), "Shannon entropy of item exposure")
_beyond("personalization", True, (), "1 - mean cosine overlap of pairs of lists")
_beyond("novelty", False, ("popularity",), "mean self-information of the items")
_beyond("arp", False, ("popularity",), "average recommendation popularity",
        greater_is_better=False)
_beyond("aplt", False, ("popularity",), "average percentage of long-tail items")
_beyond("ild", False, ("item_features",), "intra-list diversity")
_beyond("serendipity", False, ("popularity", "truth"),
        "relevant items outside the k most popular")

_ALIASES = {a: s.name for s in METRICS.values() for a in (s.name, *s.aliases)}


#: Every spelling of every measure (any family) -> its canonical name.
_EVERY_ALIAS = {a: s.name for s in REGISTRY.values() for a in (s.name, *s.aliases)}
_BARE = re.compile(r"^\s*([A-Za-z0-9_\-]+)\s*(?:@\s*(\S+))?\s*$")


def _all_names() -> list[str]:
    return sorted({*_ALIASES, *PRESETS})


def measure(name: object) -> MetricSpec | None:
    """The registered measure (any family) a name such as ``"coverage@10"`` or
    ``"alpha_nDCG"`` spells, or None (presets and tools' syntax are not read here)."""
    if not isinstance(name, str):
        return None
    m = _BARE.match(name)
    if not m:
        return None
    key = _EVERY_ALIAS.get(m.group(1).lower())
    return None if key is None else REGISTRY[key]


_DATA_WORDS = {"lists": "ranked lists", "items": "items=", "popularity": "popularity=",
               "item_features": "item_features=", "truth": "the truth", "ranking": "a ranking",
               "subtopics": "a diversity qrels (query, subtopic, document)"}


def _said(entry: str, spec: MetricSpec) -> str:
    """How a message names an entry point of :data:`FAMILIES`."""
    if entry == "function":
        return f"{spec.function}()"
    if entry == "embeddings":
        return f"{'evaluate_embeddings'} (the top k items of each user)"
    if entry == "scores":
        return f"{'evaluate'} (the top k of each row of scores)"
    if entry == "diversity_run":
        return f"{'evaluate_run'} (a diversity qrels)"
    if entry == "diversity_ranked":
        return f"{'evaluate_ranked'} (a truth with a subtopic column)"
    if entry == "scorers":
        return "the scorers"
    if entry == "command_line":
        return "the command line's -m"
    return entry


def elsewhere(name: str, spec: MetricSpec, entry: str | None = None) -> str:
    """The message of an entry point asked for a measure it cannot compute:
    what the measure needs, and the entry points that compute it."""
    fam = FAMILIES[spec.family]
    if spec.family == "beyond_set":
        needs = "the whole set of lists"
    else:
        needs = ", ".join(_DATA_WORDS[d] for d in spec.data)
    by = ", ".join(_said(e, spec) for e in fam.computed_by)
    here = f"{entry}: " if entry else ""
    return f"{here}{name!r} is one of the {fam.description}; it needs {needs}. Computed by {by}."


def check_k(k: object, arg: str = "k") -> int | None:
    """Return ``k`` as a Python int (or None) or raise naming ``arg``."""
    return check_param(arg, k, PARAMS["k"])


def lookup(name: str) -> tuple[MetricSpec, dict[str, Any]]:
    """Return ``(spec, preset_options)`` for a bare metric name."""
    key = name.strip().lower()
    if key in PRESETS:
        base, opts, _ = PRESETS[key]
        return METRICS[base], dict(opts)
    if key in _ALIASES:
        return METRICS[_ALIASES[key]], {}
    other = measure(key)
    if other is not None:
        raise InvalidParameterError(elsewhere(name, other))
    # Only close spellings (difflib's ratio, an edit-distance measure, >= 0.6):
    # "ndgc" -> "ndcg", but no guess for "cover".
    close = difflib.get_close_matches(key, _all_names(), n=3, cutoff=0.6)
    hint = f" Did you mean {', '.join(map(repr, close))}?" if close else ""
    raise InvalidParameterError(
        f"unknown metric {name!r}.{hint} sk_rankmetrics.metric_names() lists every "
        "name (add '@k' for a cut-off, e.g. 'ndcg@10')."
    )


_Family = Union[MetricFamily, None]


@overload
def metric_names(*, aliases: Literal[False] = ..., family: _Family = ...) -> list[str]: ...
@overload
def metric_names(*, aliases: Literal[True], family: _Family = ...) -> dict[str, str]: ...
@overload
def metric_names(*, aliases: bool, family: _Family = ...) -> list[str] | dict[str, str]: ...
@validate
@fill_doc(aliases="""aliases : bool, default=False
    False: the canonical names and the presets (``"ndcg_exp"``: nDCG with
    the exponential gain). True: the other accepted spellings instead, as
    a dict ``{alias: canonical name}`` (``"p"`` is ``"precision"``,
    ``"r"`` is ``"recall"``, ``"recip_rank"`` is ``"mrr"``, ...).""")
def metric_names(*, aliases: bool = False,
                 family: _Family = None) -> list[str] | dict[str, str]:
    """Names of every measure the package computes (append ``@k`` for a cut-off).

    Parameters
    ----------
    %(parameters)s

    Returns
    -------
    names : list of str or dict of str -> str
        Sorted names, or the aliases with the name each stands for.

    Notes
    -----
    Every name and alias may be written in upper or lower case and, except
    ``"r_precision"``, take a cut-off: ``"ndcg@10"``, ``"P@5"``.
    :func:`get_scorer_names` lists every accepted spelling, names and
    aliases together, as scikit-learn's own ``get_scorer_names`` does.

    The families: ``"accuracy"`` (the measures with a public function, such
    as ``ndcg_score``), ``"trec_eval"`` (trec_eval's and ir_measures' other
    measures), ``"cwl"`` (cwl_eval's C/W/L measures), which :func:`evaluate`,
    :func:`evaluate_ranked`, :func:`evaluate_run`, :func:`evaluate_embeddings`,
    :class:`RankingAccumulator` and the scorers compute; ``"diversity"``
    (they read a diversity qrels: :func:`evaluate_run`,
    :func:`evaluate_ranked` with a subtopic column); ``"beyond_list"`` (a
    value per list, averaged: ``novelty``, ``arp``, ``aplt``, ``ild``,
    ``serendipity``) and ``"beyond_set"`` (one value for the whole set of
    lists: ``coverage``, ``gini``, ``entropy``, ``personalization``), which
    :func:`evaluate_ranked`, :func:`evaluate_embeddings`, :func:`evaluate`,
    the command line, the scorers and their public functions
    (:func:`coverage_score`, ...) compute. An entry point asked for a measure
    it cannot compute says which ones can.

    Examples
    --------
    >>> from sk_rankmetrics import metric_names
    >>> names = metric_names()
    >>> "ndcg" in names, "ndcg_exp" in names, "map" in names, "p" in names
    (True, True, True, False)
    >>> "coverage" in names, "alpha_ndcg" in names
    (True, True)
    >>> metric_names(aliases=True)["p"], metric_names(aliases=True)["r"]
    ('precision', 'recall')
    >>> metric_names(family="beyond_set")
    ['coverage', 'entropy', 'gini', 'personalization']
    """
    specs = [s for s in REGISTRY.values() if family is None or s.family == family]
    if aliases:
        return {a: s.name for s in specs for a in s.aliases}
    presets = [p for p, (base, _, _) in PRESETS.items()
               if family is None or REGISTRY[base].family == family]
    return sorted({*(s.name for s in specs), *presets})
