"""One block of rows ranked for a list of requests."""

from __future__ import annotations

import functools

import numpy as np

from .._utils.arrays import ScoreCheck
from .._utils.params import TIE_ORDER
from .chunk import RankedChunk, rank_chunk
from .ideal import _counted, ideal_gains, ideal_levels
from .item_values import BlockValues, ItemMasks
from .levels import decimal_integers, rank_by_levels, sorts_narrow
from .relevant import rank_relevant, takes_relevant_route
from .select import _MAX_SCORE_SPAN, score_counts


def depth(requests):
    """``(needs_full, k_max)``: whether some request reads every position, and
    the deepest cut-off asked for (1 when none is). A measure that reads the
    members of each tie group (``reads_items``) gets them also when a group
    runs past ``k_max``: :func:`rank_chunk` then ranks whole rows."""
    needs_full = any(r.depth is None for r in requests)
    k_max = max((r.depth for r in requests if r.depth is not None), default=1)
    return needs_full, k_max


def check_ties(rc, requests, ignore_ties):
    """Raise when a metric without an expected-value rule meets tied scores."""
    if ignore_ties or not (rc.real_ties or rc.equal_ties):
        return
    for req in requests:
        if req.spec.ties == "refuse":
            raise ValueError(
                f"{req.label}: the scores of some rows tie, and {req.spec.name} has no "
                "closed form for its expected value over the orderings of a tie. Break "
                f"the ties (ignore_ties=True ranks them in one order: {TIE_ORDER}), or "
                "use evaluate_run(..., setting='trec_eval'), which orders them by "
                "document id."
            )


def rank_block(yt, ys, requests, *, ignore_ties=False, n_items=None, row0=0, judged=None,
               extremes=None, check=None, floor=None, real=None):
    """Rank one block of rows (relevance ``yt``, scores ``ys``) for ``requests``.

    The block is ranked down to the deepest cut-off any request needs (at
    most its width, whatever ``k`` is). ``n_items`` gives the real items of
    padded long-format rows, whose padding holds the score ``-inf`` and the
    relevance 0;
    ``judged`` marks the judged items (None: every real item is);
    ``extremes`` (an ``Extremes`` of ``yt``), when the caller has them;
    ``check``, the scores' :class:`~.._utils.arrays.ScoreCheck` when the
    caller put it off: made by the route's row sort where it has one, else
    before the route reads a score; ``floor``, a score no real item's is
    below (padded rows: None, the block's smallest real score is read);
    ``real``, the real entries of padded rows of integer scores, whose
    padding holds one score below every real one
    (:func:`~.padding.counted_padding`; None: padding holds ``-inf``).
    """
    N = yt.shape[1]
    given = ys
    if real is None and n_items is not None and (n_items < N).any():
        real = ys != -np.inf
    # A measure that scans whole rows without a cut-off (MRR) reads rc.block,
    # not the ranking (not under ignore_ties: its one order of ties is ranked);
    # one of the ranked set only (precision, the set measures), the totals,
    # which are the ranked set's where no item is padding.
    ranked = [r for r in requests
              if not (r.reads_set and real is None) and (ignore_ties or not r.scans_rows)]
    needs_full, k_max = depth(ranked)
    if judged is not None and real is not None:
        judged = judged & real
    masks = ItemMasks(real=real, judged=judged, zero_padding=True)
    values = BlockValues(yt, requests, row0, masks, extremes)
    L = N if needs_full else min(k_max, N)
    if ignore_ties:
        for r in requests:
            if r.reads_to_r:  # R-precision reads down to R, in the one order of ties
                L = max(L, int(values.totals[r.rel_key].max()))
    rc = None
    check = check or _CHECKED
    if real is None and (not ranked or (not ignore_ties and all(r.reads_to_r for r in ranked))):
        check.now()
        rc = _unranked(ys, N, counted=bool(ranked))
    if rc is None and real is None and not ignore_ties:
        # Whole-number float scores (ratings, say) or scores of a decimal or
        # two, in a small span: ranked as the integers they stand for.
        whole = decimal_integers(ys, min(_MAX_SCORE_SPAN, N))
        if whole is not None:
            check.finite()
            ys = whole
    if rc is None and L == N and takes_relevant_route(requests, ignore_ties, judged, values):
        # (None when the relevant items are not few.)
        rc = rank_relevant(ys, values, check, None if real is None else n_items)
    if rc is None and L == N and n_items is None:
        # Measures without a cut-off that read their relevant items' groups
        # alone, asked with some of a cut-off: those ranked through their
        # relevant items, these by their own selection (:func:`_apart`),
        # where the sort of whole rows is one of float64 keys. (A sort of
        # narrow keys, float32 or rows of at most 512, or the counts of
        # integer scores cost about what the two apart cost: 0.97-1.17x.)
        # (R-precision and the counts read no cut-off: a depth of their own.)
        # A selection deeper than an eighth of the row costs about what the
        # sort of whole rows does (one thread, relevance on 2 %, nDCG with
        # nDCG@k: k = N / 5 0.94-0.98x that sort's time, N / 2.5 1.24x).
        cut = [r for r in requests if r.depth is not None and not r.fixed_depth]
        rest = [r for r in requests if r.depth is None or r.fixed_depth]
        if (cut and 8 * max(r.depth for r in cut) <= N
                and ys.dtype == np.float64 and not sorts_narrow(ys, values)
                and takes_relevant_route(rest, ignore_ties, judged, values)):
            rc = _apart(yt, given, ys, values, check, cut, ignore_ties, row0, extremes)
            if rc is not None:
                requests = rest
    keep_items = any(r.spec.reads_items for r in requests)
    if rc is None and L == N and not ignore_ties:
        # (Its chunks hold the ranked item values as rc.items too; padding is
        # ranked last, below every real item.) None when the levels or scores
        # fit no key.
        rc = rank_by_levels(ys, values, check, None if real is None else n_items, floor)
    if rc is None:
        # (Checked by its partition, if it makes one; else below.)
        rc = rank_chunk(ys, values, max(L, 1), ignore_ties=ignore_ties, n_items=n_items,
                        keep_items=keep_items,
                        reads_counts=any(r.reads_to_r for r in requests), check=check)
    check.now()  # (a route that returned a chunk made it)
    rc.totals = values.totals
    # (Padding is not ranked: the ranking holds every real item of padded rows
    # only where it is made of their relevant items, whose totals are theirs.)
    rc.ranks_every_item = real is None or rc.partial
    rc.block = (ys, values)
    check_ties(rc, requests, ignore_ties)
    return attach_ideals(rc, yt, values, requests, N)


#: The check of scores the caller has made.
_CHECKED = ScoreCheck(np.empty((0, 0), dtype=np.int8), "y_score")


def _unranked(ys, N, counted):
    """The chunk of a block whose every request scans the whole rows (MRR
    without a cut-off, R-precision): no position ranked (``L = 0``; a top-1
    selection would cost half an argsort on rows of 100). Integer scores in a
    small span are counted (:func:`~.select.score_counts`) when ``counted``
    (R-precision, which reads each row's R-th largest score off the counts
    instead of sorting the row: 19-26 % faster on rows of 1,000; on rows of
    100, from 4 % faster to 12 % slower); not for MRR alone, whose two
    comparisons cost 9-13 % less than the count."""
    rc = RankedChunk(0, None, None, {}, np.full(ys.shape[0], N, dtype=np.int64))
    if counted:
        rc.score_counts = score_counts(ys, 1)
    return rc


def attach_ideals(rc, yt, values, requests, N):
    """Put on ``rc`` what its requests read of each row's ideal ordering: the
    ideal's levels for measures of the whole ranking (G, ndcg_rel), the best
    gains down to the deepest cut-off for the others. ``yt`` and ``values``
    hold the block's rows at their full width ``N``; the levels are read in
    one byte when the ranking made that copy (:meth:`BlockValues.one_byte`)."""
    yt, extremes = values.one_byte(if_made=True)
    for req in requests:
        if req.needs_ideal and req.spec.full and ("levels", req.gain_key) not in rc.cache:
            rc.cache[("levels", req.gain_key)] = ideal_levels(
                yt, req.gain, lambda key=req.gain_key: values.full(key), values.worthless,
                extremes, values.nonzero, values.level_counts)
    ideal_k = [r.k for r in requests if r.needs_ideal and not r.spec.full]
    width = N if None in ideal_k else min(max(ideal_k, default=1), N)
    if not isinstance(rc.ideal, LazyIdeal):
        rc.ideal = LazyIdeal(rc.ideal)
    for req in requests:
        key = req.gain_key
        if req.needs_ideal and not req.spec.full and key not in rc.ideal:
            if width == N and values.worthless is None and ("levels", key) not in rc.cache:
                # The whole ideal's levels, counted (no sort): nDCG without a
                # cut-off reads its IDCG off them; the gains of every position
                # are made only for a kernel that reads them.
                counted = _counted(yt, req.gain, extremes, values.nonzero,
                                   values.level_counts)
                if counted is not None and counted.complete:
                    rc.cache[("levels", key)] = counted
            # (The closure holds no reference to rc: rc.ideal holds it.)
            make = functools.partial(
                ideal_gains, yt, req.gain, functools.partial(values.full, key),
                max(width, rc.L) if width < N else N, values.worthless, extremes,
                rc.cache.get(("levels", key)), nonzero=values.nonzero if width < N else None)
            if width == N and ("levels", key) in rc.cache:
                rc.ideal.later(key, make)
            else:
                rc.ideal[key] = make()
    return rc


def _apart(yt, given, ys, values, check, cut, ignore_ties, row0, extremes):
    """The block ranked through its relevant items for its requests without
    a cut-off, with the chunk of the requests ``cut`` (those with one) as its
    :attr:`~.chunk.RankedChunk.apart`; None where the relevant items are not
    few (the block is then ranked once, to its full width, for all).

    A measure without a cut-off whose relevant items are few reads their
    groups only, with no row sort (:func:`rank_relevant`), but a measure
    with a cut-off needs the top of every row: ranked together, both read a
    sort of whole rows. Apart, the ones read their relevant items' groups,
    the others a selection down to the deepest cut-off made for them alone
    (``given``: the scores as given), which gives each of them its value
    alone, bit for bit. (One thread, nDCG, nDCG@10, MAP and recall@100
    together over relevance on 2 or 5 %: 0.85-0.88x the time of one sort on
    10,000 x 1,000, 0.63-0.72x on 1,000 x 10,000.)"""
    rc = rank_relevant(ys, values, check, None)
    if rc is None:
        return None
    check.now()
    rc.apart = (rank_block(yt, given, cut, ignore_ties=ignore_ties, row0=row0,
                           extremes=extremes, check=check), cut)
    return rc


class LazyIdeal(dict):
    """``RankedChunk.ideal``: the ideal gains by key, those of whole rows made
    on the first read (nDCG without a cut-off reads the ideal's levels)."""

    def __init__(self, *args):
        super().__init__(*args)
        self._makers = {}

    def later(self, key, make):
        self._makers[key] = make

    def __contains__(self, key):
        return dict.__contains__(self, key) or key in self._makers

    def __missing__(self, key):
        value = self[key] = self._makers.pop(key)()
        return value

    def take_rows(self, rows):
        """The ideal of the rows ``rows`` (those not yet made, on their first read)."""
        out = LazyIdeal({k: v[rows] for k, v in self.items()})
        for k in self._makers:
            out.later(k, lambda k=k: self[k][rows])
        return out
