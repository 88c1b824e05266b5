"""Diversity measures (ndeval's): alpha-nDCG, ERR-IA, NRBP, AP-IA, P-IA, subtopic recall.

Each kernel reads ``rc.subtopics[subtopic_key(req)]``, a ``Subtopics``
(``_ranking/novelty.py``) that
the diversity layout attaches to the ranked chunk: per ranked position, which
of the row's subtopics the document is relevant to. Every measure is a sum
over positions and subtopics, vectorised over the rows of the chunk; the
ideal orderings (greedy, as ndeval builds them) come with it.

Ties: the novelty gain of a document depends on the documents ranked before
it, so the expected value over the orderings of a tie has no closed form
from group statistics; these measures are registered with ``ties="refuse"``.
"""

from __future__ import annotations

import numpy as np

from ..._ranking.novelty import subtopic_key
from . import _cut


def _keep(req):
    return 1.0 - req.options["redundancy"]


def _discount(n):
    return np.log(2.0) / np.log(np.arange(n) + 2.0)


def _ideal_ideal(n_sub, keep, k, weights):
    """ndeval's "ideal ideal": every subtopic covered at every position."""
    return n_sub * float(np.sum(np.power(keep, np.arange(k)) * weights[:k]))


def _cumulated(rc, req, weights_of, ideal=False):
    """``sum_{i < k} g_i w_i`` of the ranking (and, with ``ideal``, of the
    greedy ideal, which the layout builds for the requests that need it)."""
    st = rc.subtopics[subtopic_key(req)]
    keep = _keep(req)
    kc = _cut(rc, req.k)
    g = st.gains(keep)[:, :kc]
    run = g @ weights_of(kc)
    best = None
    if ideal:
        gains = st.ideal[keep][:, : req.k]
        best = gains @ weights_of(gains.shape[1])
    return st, keep, run, best


def _normalised_at_k(rc, req, weights_of):
    """ndeval's collection-independent normalisation: the sum over the first
    ``k`` positions divided by its "ideal ideal" value (not at ``k = 1``,
    where ndeval leaves the value as it is)."""
    st, keep, run, _ = _cumulated(rc, req, weights_of)
    defined = st.n_sub > 0
    if req.k == 1:
        return np.where(defined, run, 0.0), defined
    top = _ideal_ideal(1.0, keep, req.k, weights_of(req.k))
    return np.where(defined, run / (np.where(defined, st.n_sub, 1.0) * top), 0.0), defined


def _reciprocal(n):
    return 1.0 / np.arange(1.0, n + 1.0)


def alpha_dcg(rc, req):
    """alpha-DCG@k over ndeval's ideal-ideal DCG (ndeval's ``alpha-DCG@k``)."""
    return _normalised_at_k(rc, req, _discount)


def err_ia(rc, req):
    """ERR-IA@k over ndeval's ideal-ideal ERR (ndeval's ``ERR-IA@k``)."""
    return _normalised_at_k(rc, req, _reciprocal)


def _over_ideal(rc, req, weights_of):
    st, _, run, best = _cumulated(rc, req, weights_of, ideal=True)
    defined = st.n_sub > 0
    ok = defined & (run != 0)
    return np.where(ok, run / np.where(ok, best, 1.0), 0.0), defined


def alpha_ndcg(rc, req):
    """alpha-nDCG@k against ndeval's greedy ideal ordering."""
    return _over_ideal(rc, req, _discount)


def nerr_ia(rc, req):
    """nERR-IA@k against ndeval's greedy ideal ordering."""
    return _over_ideal(rc, req, _reciprocal)


def _nrbp_sums(rc, req, ideal=False):
    st = rc.subtopics[subtopic_key(req)]
    keep, beta = _keep(req), req.options["patience"]
    g = st.gains(keep)
    run = g @ np.power(beta, np.arange(g.shape[1]))
    best = None
    if ideal:
        gains = st.ideal[keep]
        best = gains @ np.power(beta, np.arange(gains.shape[1]))
    return st, keep, beta, run, best


def nrbp(rc, req):
    """Novelty- and rank-biased precision (ndeval's ``NRBP``)."""
    st, keep, beta, run, _ = _nrbp_sums(rc, req)
    defined = st.n_sub > 0
    scale = (1.0 - keep * beta) / np.where(defined, st.n_sub, 1.0)
    return np.where(defined, run * scale, 0.0), defined


def nnrbp(rc, req):
    """NRBP over the NRBP of ndeval's greedy ideal ordering (``nNRBP``)."""
    st, _, _, run, best = _nrbp_sums(rc, req, ideal=True)
    defined = st.n_sub > 0
    return np.where(defined, run / np.where(defined, best, 1.0), 0.0), defined


def ap_ia(rc, req):
    """Intent-aware AP: each subtopic's AP, averaged over the row's subtopics."""
    st = rc.subtopics[subtopic_key(req)]
    rel = st.rel
    hits = np.cumsum(rel, axis=1)
    prec = hits / np.arange(1.0, rel.shape[1] + 1.0)[None, :, None]
    per_sub = (rel * prec).sum(axis=1)
    has = st.n_rel_sub > 0
    ap = np.where(has, per_sub / np.where(has, st.n_rel_sub, 1.0), 0.0).sum(axis=1)
    defined = st.n_sub > 0
    return np.where(defined, ap / np.where(defined, st.n_sub, 1.0), 0.0), defined


def p_ia(rc, req):
    """Intent-aware precision at k: relevant (document, subtopic) pairs in the
    top k over ``k S``."""
    st = rc.subtopics[subtopic_key(req)]
    kc = _cut(rc, req.k)
    pairs = st.rel[:, :kc].sum(axis=(1, 2))
    defined = st.n_sub > 0
    return np.where(
        defined, pairs / (float(req.k) * np.where(defined, st.n_sub, 1.0)), 0.0
    ), defined


def subtopic_recall(rc, req):
    """Subtopic recall at k: the row's subtopics covered in the top k, over S."""
    st = rc.subtopics[subtopic_key(req)]
    kc = _cut(rc, req.k)
    covered = (st.rel[:, :kc].max(axis=1, initial=0.0) > 0).sum(axis=1)
    defined = st.n_sub > 0
    return np.where(defined, covered / np.where(defined, st.n_sub, 1.0), 0.0), defined
