r"""fuse: several runs of the same queries combined into one (hybrid search).

Every run becomes parallel arrays (query, document, score); the documents
any run retrieves for a query are the candidates of that query, one row each
of the candidate table (:mod:`.fusion_table`), which holds every run's
entries by candidate then run. A method that sums one value per retrieving
run (``rrf``, ``wsum``, ...) sums over those entries; the others read
``(candidates, runs)`` matrices of normalised scores, with a mask of the runs
that retrieved the candidate and its 0-based position in each run. Every
method is a few NumPy operations: no loop over queries or documents.

The definitions are ranx's (``ranx.fuse``), parameter names and values
included, so that ``fuse`` equals ``ranx.fuse`` on the same runs to 1e-9:

- a document missing from a run counts 0 in ``sum`` and ``wsum``, is left
  out of ``anz``, ``mnz``, ``gmnz``, ``med``, ``wmnz``, ``mixed`` and the
  ISR family (their count is that of the runs that retrieved it), and
  counts ``-1e9`` in ``max`` and ``1e9`` in ``min``;
- positions (``rrf``, ``isr``, ``rbc``, ``bordafuse``, the ``rank`` and
  ``borda`` normalisations) are 0-based, in each run's order by score
  descending; tied scores keep the order given (the dict's insertion order,
  the file's line order), which is ranx's order for ties among at most 15
  documents (ranx sorts with NumPy's unstable quicksort, so longer tied
  stretches may come out in another order there);
- the normalisations divide by at least ``1e-9`` (a run whose scores are all
  equal becomes all 0 under ``min-max``), and ``borda`` gives every candidate
  of the query a score in every run, so every candidate counts as retrieved
  by every run afterwards.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from .._utils.allocator import tune_allocator
from .._utils.arrays import flatnonzero
from .._utils.errors import InvalidParameterError, short_repr
from .._utils.nonzero import neighbours_differ
from .._utils.params import validate
from .._utils.threads import N_THREADS, Places, bounded_map, in_one_thread
from .fusion_codes import _factorize, _global_codes, _grouped_codes, _local_codes
from .fusion_table import (
    ENTRY_NORMS,
    Candidates,
    NumberedIds,
    PackedIds,
    QueryCodes,
    candidate_blocks,
    key_bits,
    packed_keys,
    rank_within_queries,
)
from .fusion_trained import (
    CONDORCET,
    MIN_ODD,
    TRAINED,
    condorcet_scores,
    train_search,
    trained_scores,
)
from .pairs import _from_dict as dict_arrays
from .pairs import as_pairs_input, is_pairs
from .tokens import CollapsedColumn, TokenColumn
from .trec import TrecRun, _from_file

#: The methods that need no training, and what each reads besides the scores.
METHODS = {
    "sum": (), "max": (), "min": (), "med": (), "anz": (), "mnz": (), "gmnz": ("gamma",),
    "rrf": ("k",), "isr": (), "log_isr": (), "logn_isr": ("sigma",), "bordafuse": (),
    "rbc": ("phi",), "wsum": ("weights",), "wmnz": ("weights",), "w_bordafuse": ("weights",),
    "mixed": ("weights",), **CONDORCET, **TRAINED,
}
_RANKED = ("rrf", "isr", "log_isr", "logn_isr", "rbc", "bordafuse", "w_bordafuse",
           *CONDORCET, *TRAINED)
#: The methods that sum one value per run retrieving the document (:func:`_entry_sum`).
_ENTRY_SUMS = ("rrf", "rbc", "isr", "log_isr", "logn_isr", "sum", "wsum", "anz", "mnz",
               "gmnz", "mixed", "wmnz")
#: The untrained methods that read positions only.
_POSITIONAL = ("rrf", "isr", "log_isr", "logn_isr", "rbc", "bordafuse", "w_bordafuse")
NORMS = (None, "min-max", "max", "sum", "zmuv", "rank", "borda")
_DEFAULTS = {"k": 60, "phi": 0.8, "gamma": 1.0, "sigma": 0.01, "weights": None,
             "probs": None, "w": None, "log_odds": None, "map_scores": None}


def _as_run(run, i):
    """Run ``i`` as a dict of dicts or a :class:`TrecRun` (read, converted)."""
    where = f"runs[{i}]"
    if isinstance(run, Mapping):
        return run
    if is_pairs(run):
        run = as_pairs_input(run, "run", where)
    if isinstance(run, (str, os.PathLike)):
        from .formats import read_run

        run = read_run(run)
    elif hasattr(run, "columns") and not isinstance(run, TrecRun):
        from .frames import run_from_frame

        run = run_from_frame(run)
    if not isinstance(run, TrecRun):
        raise InvalidParameterError(
            f"fuse: {where} must be a dict {{qid: {{docid: score}}}}, named tuples, a TrecRun, "
            f"a path or a data frame, got {type(run).__name__}.")
    return run


def _run_name(obj, i):
    """How messages name run ``i``: ``runs[i]``, and the file it was read from."""
    source = os.fspath(obj) if isinstance(obj, (str, os.PathLike)) else getattr(obj, "source", "")
    return f"runs[{i}] ({source})" if source and source != "data frame" else f"runs[{i}]"


def _as_codes(run, i):
    """``(q, q_ids, docs, score, run)`` of run ``i``: integer codes of each
    entry's query into the run's own distinct ids (in no order; a
    :class:`~.fusion_table.QueryCodes`), and its
    documents as a text array of ids, or ``(codes, ids)`` when the run holds
    them so (a file's columns give their codes directly, their strings made
    for the distinct ids only)."""
    obj = _as_run(run, i)
    where = f"fuse: {_run_name(obj, i)}"
    if isinstance(obj, Mapping):  # a dict of dicts: its pairs cannot repeat
        qid, docno, score, _ = dict_arrays(obj, "run", where)
        q, q_ids = _grouped_codes(qid)
        docs = docno if docno.dtype.kind == "U" else docno.astype(str)
    elif obj._columns is not None:  # read from a file: codes kept on the columns
        from .id_codes import factorize

        score = np.asarray(obj.score, dtype=np.float64)
        cols = obj._columns
        q, q_rep = factorize(cols["qid"], ordered=False)
        d, d_rep = factorize(cols["docno"], ordered=False)
        q_ids = cols["qid"].to_strings(q_rep)
        q = QueryCodes.of(q)
        docs = (d.astype(np.int64, copy=False), cols["docno"].to_strings(d_rep))
    else:
        score = np.asarray(obj.score, dtype=np.float64)
        q, q_ids = _grouped_codes(np.asarray(obj.qid))
        docs = np.asarray(obj.docno)
        docs = docs if docs.dtype.kind == "U" else docs.astype(str)
    if score.shape[0] == 0:
        raise InvalidParameterError(
            f"{where} is empty: it ranks no document for any query; every run must rank at "
            "least one document (a query a run lacks is fused from the runs that hold it).")
    bad = flatnonzero(~np.isfinite(score))
    if bad.shape[0]:
        j = int(bad[0])
        doc = docs[1][docs[0][j]] if isinstance(docs, tuple) else docs[j]
        raise InvalidParameterError(
            f"{where}: the score of document {str(doc)!r} for query "
            f"{str(q_ids[q.codes[np.searchsorted(q.starts, j, side='right') - 1]])!r} is "
            f"{float(score[j])!r} ({bad.shape[0]} scores are not finite "
            "numbers); fusion reads finite scores only: drop or fix those entries.")
    return q, q_ids, docs, score, run


def _doc_keys(docs, bits, packed, stats):
    """The document keys of every run (:mod:`.fusion_table`): the ids packed
    into ``bits`` bits when every run gives ids of at most 8 one-byte
    characters (``packed`` and ``stats``, :func:`~.fusion_table.packed_keys`'s
    keys and their
    bitwise or, least and largest key; None when they do not pack) and they
    fit, else the ids numbered in sorted order."""
    if packed is not None:
        try:
            return PackedIds(packed, bits, stats)
        except OverflowError:
            pass
    codes, ids = _global_codes([d if isinstance(d, tuple) else _local_codes(d) for d in docs])
    return NumberedIds(codes, ids)


def _normalise(t, norm):
    """The score matrix under ``norm`` (ranx's normalisations), and the
    presence mask after it; None for both when the table holds them (no
    ``norm``, or one made per run on its entries: :data:`ENTRY_NORMS`)."""
    if norm is None or norm in ENTRY_NORMS:
        return None, None
    present = t.present
    if norm == "borda":
        n_cand = t.n_cand.astype(np.float64)[:, None]
        ranked = 1.0 - t.pos / n_cand
        unranked = 0.5 - (t.length - 1.0) / (2.0 * n_cand)
        # Queries a run does not hold stay absent in that run (ranx asserts equal queries).
        held = _held(t)
        return np.where(held, np.where(present, ranked, unranked), 0.0), held
    return np.where(present, 1.0 - t.pos / np.maximum(t.length, 1.0), 0.0), present  # rank


def _held(t):
    """For each row and run, whether the run holds the row's query."""
    held = np.zeros(t.present.shape, dtype=bool, order="F")
    for r, queries in enumerate(t.query_of_run):
        has = np.zeros(t.queries.shape[0], dtype=bool)
        has[queries] = True
        held[:, r] = has[t.q_of_row]
    return held


def _ordered_sum(parts, present):
    """Sum over the runs in run order, absent entries skipped (as ranx adds)."""
    total = np.zeros(parts.shape[0])
    for r in range(parts.shape[1]):
        total = np.where(present[:, r], total + parts[:, r], total)
    return total


def _entry_sum(t, method, p):
    """A method that sums one value per run that retrieves the document (times
    a factor of their number): over the table's entries, in run order."""
    if method in _POSITIONAL:
        pos = t.entry_pos.astype(np.float64)
        if method == "rrf":
            v = 1.0 / (p["k"] + pos + 1.0)
        elif method == "rbc":
            v = (1.0 - p["phi"]) * p["phi"] ** pos
        else:
            v = 1.0 / (pos + 1.0) ** 2
    elif method in ("wsum", "mixed"):
        v = t.entry_score * np.asarray(p["weights"], dtype=np.float64)[t.entry_run]
    else:
        v = t.entry_score
    total = t.row_sum(v)
    factor = {"isr": lambda: t.n_present, "log_isr": lambda: np.log(t.n_present),
              "logn_isr": lambda: np.log(t.n_present + p["sigma"]),
              "mnz": lambda: t.n_present, "gmnz": lambda: t.n_present ** p["gamma"],
              "mixed": lambda: np.sqrt(t.n_present),
              "wmnz": lambda: t.row_sum(np.asarray(p["weights"], dtype=np.float64)[t.entry_run])}
    if method == "anz":
        return total / t.n_present
    return total * factor[method]() if method in factor else total


def _combine(t, s, present, method, p):
    if method in CONDORCET:
        return condorcet_scores(t, p["weights"] if method == "w_condorcet" else None)
    if s is None and method in _ENTRY_SUMS:
        return _entry_sum(t, method, p)
    present = t.present if present is None else present
    if s is None and method not in _POSITIONAL:
        s = t.score
    if method in TRAINED:
        parts = trained_scores(t, s, method, p)
        if method == "bayesfuse":  # a run's missing document counts its log-odds floor
            return _ordered_sum(np.where(t.present, parts, MIN_ODD),
                                np.ones_like(t.present))
        return _ordered_sum(parts, t.present)
    if method in _POSITIONAL:
        # Positions come from the scores as given (a normalisation keeps the order).
        pos, ranked = t.pos, t.present
        if method == "rrf":
            s = 1.0 / (p["k"] + pos + 1.0)
        elif method == "rbc":
            s = (1.0 - p["phi"]) * p["phi"] ** pos
        elif method in ("bordafuse", "w_bordafuse"):
            n_cand = t.n_cand.astype(np.float64)[:, None]
            s = np.where(ranked, n_cand - pos, (n_cand - t.length + 1.0) / 2.0)
        else:
            s = 1.0 / (pos + 1.0) ** 2
        if method in ("bordafuse", "w_bordafuse"):
            present = _held(t)  # every candidate of a query the run holds gets points
        else:
            present = ranked
        count = present.sum(axis=1).astype(np.float64)
        if method == "rrf" or method == "rbc" or method == "bordafuse":
            return _ordered_sum(s, present)
        if method == "w_bordafuse":
            return _ordered_sum(s * np.asarray(p["weights"])[None, :], present)
        total = _ordered_sum(s, present)
        if method == "isr":
            return total * count
        if method == "log_isr":
            return total * np.log(count)
        return total * np.log(count + p["sigma"])
    count = present.sum(axis=1).astype(np.float64)
    if method == "sum":
        return _ordered_sum(s, present)
    if method == "wsum":
        return _ordered_sum(s * np.asarray(p["weights"])[None, :], present)
    if method == "max":
        return np.where(present, s, -1e9).max(axis=1)
    if method == "min":
        return np.where(present, s, 1e9).min(axis=1)
    if method == "med":
        return np.nanmedian(np.where(present, s, np.nan), axis=1)
    total = _ordered_sum(s, present)
    if method == "anz":
        return total / count
    if method == "mnz":
        return total * count
    if method == "gmnz":
        return total * count ** p["gamma"]
    w = np.asarray(p["weights"], dtype=np.float64)
    if method == "wmnz":
        return total * _ordered_sum(np.broadcast_to(w, s.shape), present)
    if method == "mixed":
        return _ordered_sum(s * w[None, :], present) * np.sqrt(count)
    raise AssertionError(method)


def _check(method, norm, weights, n_runs, given):
    if method not in METHODS:
        raise InvalidParameterError(f"fuse: method={short_repr(method)} is not known; "
                                    f"choose one of {', '.join(METHODS)}.")
    if norm == "borda" and method in _RANKED:
        raise InvalidParameterError(
            f"fuse: norm='borda' gives every candidate a score in every run, in no order "
            f"of its own; method={method!r} reads positions: give norm=None (or another).")
    if norm not in NORMS:
        raise InvalidParameterError(f"fuse: norm={short_repr(norm)} is not known; choose one of "
                                    f"{', '.join(map(repr, NORMS))}.")
    for name, value in given.items():
        default = _DEFAULTS[name]
        if name not in METHODS[method] and (value is not None if default is None
                                            else value != default):
            readers = [m for m, reads in METHODS.items() if name in reads]
            raise InvalidParameterError(
                f"fuse: {name}={short_repr(value)} is read by none of method={method!r}; it "
                f"applies to {', '.join(readers)}.")
    if "weights" in METHODS[method]:
        w = np.ones(n_runs) if weights is None else np.asarray(weights, dtype=np.float64)
        if w.shape != (n_runs,) or not np.isfinite(w).all():
            raise InvalidParameterError(
                f"fuse: weights must give one finite number per run ({n_runs}), got "
                f"{short_repr(weights)}.")
        return [float(x) for x in w]
    return None


def fuse_arrays(runs, *, method, norm, weights, k, phi, gamma, sigma, probs=None,
                w=None, log_odds=None, map_scores=None, qrels=None, as_columns=False):
    """``(qid, docno, score)`` of the fused run, ranked (by query, score
    descending, then document id); with ``as_columns``, the ids as a file
    reader's columns when they can be (:func:`_fused_blocks`)."""
    if not isinstance(runs, Sequence) or isinstance(runs, (str, bytes, Mapping)) \
            or len(runs) < 2:
        raise InvalidParameterError("fuse: runs must be a list of at least two runs, got "
                                    f"{short_repr(runs)}.")
    trained = {"probs": probs, "w": w, "log_odds": log_odds, "map_scores": map_scores}
    if qrels is not None:
        given = [name for name, value in trained.items() if value is not None]
        if method not in TRAINED or given:
            raise InvalidParameterError(
                f"fuse: qrels trains {', '.join(TRAINED)}; "
                + (f"method={method!r} is not trained." if method not in TRAINED else
                   f"give qrels or the trained {', '.join(given)}, not both."))
    wts = _check(method, norm, weights, len(runs),
                 {"k": k, "phi": phi, "gamma": gamma, "sigma": sigma, "weights": weights,
                  **trained})
    params = {"k": k, "phi": phi, "gamma": gamma, "sigma": sigma, "weights": wts}
    if qrels is not None:  # ranx's optimize_fusion metric: nDCG; the whole table at once
        prepared = prepare(runs, norm)
        trained = {**trained, **train_search(prepared, qrels, method, "ndcg", combine)[0]}
        return combine(prepared, method, {**params, **trained})
    return _fused_blocks(runs, norm, method, {**params, **trained}, as_columns)


def _threads():
    """Threads to code runs and fuse blocks on (none inside
    :func:`~.._utils.threads.one_thread`: a Dask task)."""
    return 1 if in_one_thread() else N_THREADS


def _global_query_codes(parts):
    """Each run's :class:`~.fusion_table.QueryCodes` renumbered into one sorted
    list of query ids: ``(codes per run, sorted distinct ids)``."""
    uniq = np.concatenate([u for _, u in parts])
    if uniq.dtype.kind == "O":
        uniq = uniq.astype(str)
    at, ids = _factorize(uniq)
    out, off = [], 0
    for codes, u in parts:
        out.append(codes.renumbered(at[off:off + u.shape[0]]))
        off += u.shape[0]
    return out, ids


def _coded(runs):
    """``(queries, query codes, document keys, scores, names)`` of the runs:
    what :class:`~.fusion_table.Candidates` is built from (the query codes as
    :class:`~.fusion_table.QueryCodes`). The runs are coded on threads, one
    run a task, and their ids packed on threads, a slice a task (NumPy
    releases the GIL in that work)."""
    n_threads = _threads()
    arrays = list(bounded_map(lambda item: _as_codes(item[1], item[0]), enumerate(runs),
                              min(n_threads, len(runs))))
    q_runs, queries = _global_query_codes([(c[0], c[1]) for c in arrays])
    names = [_run_name(c[4], i) for i, c in enumerate(arrays)]
    docs = [c[2] for c in arrays]
    keys, stats = packed_keys(docs, n_threads)
    ids = _doc_keys(docs, key_bits(q_runs, queries.shape[0]), keys, stats)
    return queries, q_runs, ids, [c[3] for c in arrays], names


def _fused_blocks(runs, norm, method, params, as_columns=False):
    """``(qid, docno, score)`` of the fused run, one block of queries after
    the other (:func:`~.fusion_table.candidate_blocks`), the blocks built,
    fused and written as text into the output on threads.

    With ``as_columns``, when the document ids are ASCII and packed
    (:class:`~.fusion_table.PackedIds`), the ids are written as a file
    reader writes them instead (:func:`_as_columns`): each document's 64-bit
    key and each query's number of entries, their text made on first read
    (a tenth of the bytes; :func:`~.runs.evaluate_run` of a qrels file reads
    the keys themselves).

    The output is made as long as all the runs' entries together (at least
    the candidates), its pages touched only where a block writes, and cut to
    the candidates at the end (a reallocation that moves nothing): no array of
    the output's size is made twice. A block takes its place in the output
    once the block before it has taken its own
    (:class:`~.._utils.threads.Places`), then
    writes there while later blocks are fused."""
    tune_allocator()  # block temporaries reused, not mapped anew (see its module)
    queries, q_runs, ids, scores, names = _coded(runs)
    own = norm if norm in ENTRY_NORMS else None
    size = sum(q.n for q in q_runs)
    heads = TokenColumn.of_strings(queries) if as_columns and isinstance(ids, PackedIds) \
        and ids.ascii and sys.byteorder == "little" else None
    keyed = heads is not None
    if keyed:  # keys and each query's entries (in query order), not text
        qid, docno = np.zeros(queries.shape[0], dtype=np.int64), np.empty(size, np.uint64)
    else:
        qid, docno = np.empty(size, dtype=queries.dtype), np.empty(size, dtype=ids.dtype)
    score = np.empty(size)
    places = Places()

    def work(block):
        i, (first, make) = block
        with places.turn(i) as take:
            t = make()
            rows, f = rank_within_queries(_combine(t, *_normalise(t, norm), method, params),
                                          t.q_of_row, t.queries.shape[0])
            at = take(f.shape[0])
        end = at + f.shape[0]
        # Each block is ranked by query first.
        counts = np.bincount(t.q_of_row, minlength=t.queries.shape[0])
        if keyed:
            qid[first:first + counts.shape[0]] = counts
            ids.token_keys(t.doc_key[rows], out=docno[at:end])
        else:
            qid[at:end] = np.repeat(t.queries, counts)
            ids.strings(t.doc_key[rows], out=docno[at:end])
        score[at:end] = f
        return end

    at = 0
    blocks = enumerate(candidate_blocks(queries, q_runs, ids, scores, names, norm=own))
    for end in bounded_map(work, blocks, _threads()):
        at = end
    for a in (docno, score) if keyed else (qid, docno, score):
        a.resize(at, refcheck=False)
    return (*_as_columns(heads, queries, qid, docno), score) if keyed else (qid, docno, score)


def _as_columns(heads, queries, counts, keys):
    """``(qid, docno)`` columns as a file reader makes them
    (:class:`~.tokens.CollapsedColumn`, :class:`~.tokens.TokenColumn`) of
    the fused run's queries ``queries`` (``heads``, their column; each
    ``counts`` entries, in order) and its documents' keys ``keys``."""
    held = counts > 0
    if not held.all():  # a query no block kept: the heads of the others
        heads = TokenColumn.of_strings(queries[held])
    starts = np.cumsum(counts[held]) - counts[held]
    docs = TokenColumn(keys, np.zeros(0, dtype=np.int64), np.zeros(1, dtype=np.int64),
                       np.zeros(8, dtype=np.uint8))
    return CollapsedColumn(heads, starts, counts[held]), docs


def prepare(runs, norm):
    """``(table, scores, presence)``: the runs as one table of candidates,
    normalised (:func:`_normalise`): what :func:`combine` fuses (made once for
    a search over a method's parameters)."""
    queries, q_runs, ids, scores, names = _coded(runs)
    t = Candidates(queries, [q.full() for q in q_runs], ids, scores, names,
                   norm=norm if norm in ENTRY_NORMS else None)
    return (t, *_normalise(t, norm))


def _fused_rows(prepared, method, params):
    """``(query codes, rows, score)`` of the fused run, ranked: by query,
    score descending, then document id (a stable output)."""
    t, s, present = prepared
    fused = _combine(t, s, present, method, params)
    order, ranked = rank_within_queries(fused, t.q_of_row, t.queries.shape[0])
    return t.q_of_row[order], order, ranked


def combine(prepared, method, params):
    """``(qid, docno, score)`` of the fused run, ranked (:func:`_fused_rows`)."""
    q, rows, fused = _fused_rows(prepared, method, params)
    t = prepared[0]
    return t.queries[q], t.doc_ids(rows), fused


def _output(qid, docno, score, first_run, tag):
    """The fused run in the form of the first run: dicts in, dicts out; a
    pandas frame in, a frame out; otherwise (TrecRun, path, named tuples) a
    TrecRun (its ids kept as columns when given so: :func:`_as_columns`). A
    dict is built from lists of the ids (one Python string per entry, made
    by NumPy) and one dict per query."""
    if isinstance(qid, CollapsedColumn):
        run = _from_file(TrecRun, {"qid": qid, "docno": docno},
                         {"score": score, "rank": None, "tag": tag, "source": ""})
        run._unit = "query"
        return run
    if isinstance(first_run, Mapping):
        n = qid.shape[0]
        new = np.ones(n, dtype=bool)
        neighbours_differ(qid, new[1:])
        starts = flatnonzero(new)
        bounds = np.append(starts, n).tolist()
        dl, v = docno.tolist(), score.tolist()
        by_text = {str(k): k for k in first_run}  # the caller's own query keys (str or int)
        qs = qid[starts].tolist()
        return {by_text.get(name, name): dict(zip(dl[a:b], v[a:b]))
                for name, a, b in zip(qs, bounds[:-1], bounds[1:])}
    if hasattr(first_run, "columns") and hasattr(first_run, "iloc"):
        import pandas as pd

        return pd.DataFrame({"qid": qid, "docno": docno, "score": score})
    return TrecRun(qid, docno, score, tag=tag)


@validate
def fuse(runs: Sequence[Any], *, method: str = "rrf", norm: str | None = None,
         weights: Sequence[float] | None = None, k: int = 60, phi: float = 0.8,
         gamma: float = 1.0, sigma: float = 0.01, probs: Sequence[Any] | None = None,
         w: int | None = None, log_odds: Sequence[Any] | None = None,
         map_scores: Sequence[float] | None = None, qrels: Any = None,
         tag: str | None = None) -> Any:
    r"""Fuse several runs of the same queries into one, as ``ranx.fuse`` does.

    Parameters
    ----------
    runs : list of runs
        Two or more runs, each a dict ``{qid: {docid: score}}``, named tuples
        ``(query_id, doc_id, score)``, a :class:`TrecRun`, a path to a run
        file or a pandas data frame (query, document, score columns).
    method : str, default="rrf"
        One of ranx's methods (the table in Notes): untrained ``"sum"``,
        ``"max"``, ``"min"``, ``"med"``, ``"anz"``, ``"mnz"``, ``"gmnz"``,
        ``"rrf"``, ``"isr"``, ``"log_isr"``, ``"logn_isr"``, ``"bordafuse"``,
        ``"rbc"``, ``"condorcet"``, ``"wsum"``, ``"wmnz"``, ``"w_bordafuse"``,
        ``"w_condorcet"``, ``"mixed"``; trained ``"probfuse"``, ``"segfuse"``,
        ``"slidefuse"``, ``"posfuse"``, ``"bayesfuse"``, ``"mapfuse"``.
    norm : {None, "min-max", "max", "sum", "zmuv", "rank", "borda"}, default=None
        How each run's scores are normalised per query before fusing.
    weights : list of float, optional
        One weight per run for ``wsum``, ``wmnz``, ``w_bordafuse``,
        ``w_condorcet`` and ``mixed`` (default: all 1).
    k : int, default=60
        The rank offset of ``rrf``: a document at 0-based position ``i`` of
        a run gets :math:`1/(k + i + 1)`.
    phi : float, default=0.8
        The persistence of ``rbc``: :math:`(1 - \phi)\phi^i`.
    gamma : float, default=1.0
        The exponent of ``gmnz``: :math:`\sum_r s_r \cdot n^\gamma`.
    sigma : float, default=0.01
        The offset of ``logn_isr``: :math:`\sum_r 1/(i_r+1)^2 \cdot \log(n + \sigma)`.
    probs : list of arrays, optional
        The trained probabilities of ``probfuse`` (one per segment),
        ``segfuse`` (one per segment of 5, 10, 20, ... positions), ``posfuse``
        and ``slidefuse`` (one per position), one array per run: what
        :func:`optimize_fusion` returns (ranx's ``probs``).
    w : int, optional
        The window of ``slidefuse``: position :math:`i` averages the
        probabilities of positions :math:`i - w` to :math:`i + w` (within the
        list).
    log_odds : list of arrays, optional
        The trained log-odds of relevance per position (1,000 positions) of
        ``bayesfuse``, one array per run.
    map_scores : list of float, optional
        The trained mean average precision of each run, for ``mapfuse``.
    qrels : dict, TrecQrels, path, data frame or named tuples, optional
        Training judgements: a trained method learns its parameters here, as
        ``optimize_fusion(qrels, runs, method=method, norm=norm)`` does
        (``probfuse``'s number of segments and ``slidefuse``'s window chosen
        by nDCG), instead of taking them as arguments.
    tag : str, optional
        The run tag of a TrecRun result (default: ``"fused"``).

    Returns
    -------
    fused : dict, TrecRun or pandas.DataFrame
        In the form of the first run: a dict ``{qid: {docid: score}}`` (keys
        as given) for a dict, a data frame for a data frame, else a
        :class:`TrecRun`; each query's documents ranked by fused score
        descending (ties: document id ascending). A TrecRun of ASCII
        document ids of at most 8 characters holds them as a run file read
        from disk does (64-bit keys): ``qid`` and ``docno`` are made as text
        on first read, and :func:`evaluate_run` against a qrels file reads
        the keys without making them.

    Raises
    ------
    InvalidParameterError
        An unknown method or normalisation, a parameter that the method does
        not read (``k=10`` with ``method="wsum"``), weights of the wrong length,
        a trained method without its training (or with both ``qrels`` and the
        trained values), ``norm="borda"`` with a method that reads positions.

    Notes
    -----
    With :math:`s_r(d)` the normalised score of document :math:`d` in run
    :math:`r`, :math:`R(d)` the runs that retrieved it and :math:`n = |R(d)|`:
    ``sum`` is :math:`\sum_{r} s_r(d)` (0 where absent), ``anz``
    :math:`\sum_{r \in R(d)} s_r(d)/n`, ``mnz`` the same sum times :math:`n`,
    ``wsum`` :math:`\sum_r w_r s_r(d)`, ``wmnz`` :math:`\sum_{r \in R(d)} s_r(d)
    \cdot \sum_{r \in R(d)} w_r`, ``mixed`` :math:`\sqrt{n}\sum_{r \in R(d)}
    w_r s_r(d)`, ``rrf`` :math:`\sum_{r \in R(d)} 1/(k + i_r(d) + 1)`, ``isr``
    :math:`n \sum_{r \in R(d)} 1/(i_r(d)+1)^2` (``log_isr``: times
    :math:`\log n` instead of :math:`n`), ``bordafuse`` gives a document at
    position :math:`i` of a run :math:`N - i` points (:math:`N` the query's
    candidates) and a document the run misses :math:`(N - L + 1)/2` (:math:`L`
    the run's length). Ambiguous cases follow ranx (see the module
    docstring): a missing document counts ``-1e9`` in ``max`` and ``1e9`` in
    ``min``; tied scores keep the order given when positions are read; the
    normalisations divide by at least 1e-9. A query that one run lacks is
    fused from the runs that have it (ranx refuses runs of different queries).
    Costs :math:`O(n \log n)` in the :math:`n` entries of all runs
    (``condorcet``: :math:`O(N^2)` per query of :math:`N` candidates). The
    runs are read and blocks of queries fused on up to four threads (as many
    as the machine has cores, as the metrics rank their row blocks); the
    result does not depend on the threads.

    ===============  ==================  ========  ==========================
    method           parameters          trained   score of a document
    ===============  ==================  ========  ==========================
    ``sum``          --                  no        sum of scores
    ``max``/``min``  --                  no        largest/smallest score
    ``med``          --                  no        median of present scores
    ``anz``/``mnz``  --                  no        sum / n, sum * n
    ``gmnz``         ``gamma``           no        sum * n**gamma
    ``rrf``          ``k``               no        sum 1/(k + i + 1)
    ``isr``          --                  no        n * sum 1/(i + 1)**2
    ``log_isr``      --                  no        log(n) * sum 1/(i + 1)**2
    ``logn_isr``     ``sigma``           no        log(n + sigma) * sum ...
    ``bordafuse``    --                  no        Borda points
    ``rbc``          ``phi``             no        sum (1 - phi) phi**i
    ``condorcet``    --                  no        N - place by majority
    ``wsum``         ``weights``         no        sum w * score
    ``wmnz``         ``weights``         no        sum score * sum w
    ``w_bordafuse``  ``weights``         no        sum w * Borda points
    ``w_condorcet``  ``weights``         no        weighted majority
    ``mixed``        ``weights``         no        sqrt(n) * sum w * score
    ``probfuse``     ``probs``           yes       sum P(segment)/(seg + 1)
    ``segfuse``      ``probs``           yes       sum P(segment) (score + 1)
    ``slidefuse``    ``probs``, ``w``    yes       sum of window means of P
    ``posfuse``      ``probs``           yes       sum P(position)
    ``bayesfuse``    ``log_odds``        yes       sum of log-odds
    ``mapfuse``      ``map_scores``      yes       sum MAP / (i + 1)
    ===============  ==================  ========  ==========================

    ``condorcet`` (Montague and Aslam) orders each query's candidates by
    pairwise majority: :math:`x` goes before :math:`y` when the runs that
    rank :math:`x` above :math:`y` (a run's missing document at position
    1,000,000; of two documents both missing from a run, that run's vote
    goes to the second of the pair) weigh at least as much as the others
    (``w_condorcet``: the sum of their weights, else their count), and the
    :math:`i`-th candidate of the order scores :math:`N - i`. This order is
    a total order when the strict majority is one (each candidate beats
    exactly those after it); then it equals ranx's. Otherwise (a tie of
    votes, a majority cycle) ranx's sort of a Python set gives an order that
    depends on the set's hash order; here the candidates are placed by the
    number of candidates they beat strictly, ties by document id.

    The trained methods (ranx's definitions) read the hit list of each run
    on each query of the training qrels (1 where the document is judged
    ``relevance >= 1``): ``posfuse``'s :math:`P(i)` is the share of queries
    reaching position :math:`i` with a relevant document there
    (``slidefuse``: the mean of :math:`P` over positions :math:`i-w` to
    :math:`i+w`, cut at the list's end, 0 past the training lists);
    ``probfuse`` cuts each list of :math:`L` into segments of
    :math:`\lceil L/S \rceil` and scores :math:`P(k)/(k+1)` in segment
    :math:`k`; ``segfuse`` uses segments of 5, 10, 20, ..., 2560 positions;
    ``bayesfuse`` sums :math:`\log(p/(1-p))` of the precision :math:`p` in
    segments ending at 5, 10, 15, 20, 30, 100, 200, 500, 1,000 (0 becomes
    0.001), with :math:`\log(0.001/0.999)` for a run missing the document;
    ``mapfuse`` gives :math:`\mathrm{MAP}_r/(i + 1)`. A position past the
    training's probabilities scores 0.

    References
    ----------
    .. [1] Bassani, E. and Romelli, L. "ranx.fuse: A Python Library for
       Metasearch." CIKM 2022.
    .. [2] Cormack, G. V., Clarke, C. L. A. and Buettcher, S. "Reciprocal rank
       fusion outperforms Condorcet and individual rank learning methods."
       SIGIR 2009.
    .. [3] Montague, M. and Aslam, J. A. "Condorcet fusion for improved
       retrieval." CIKM 2002.
    .. [4] Lillis, D. et al. "ProbFuse: a probabilistic approach to data
       fusion." SIGIR 2006; "Extending probabilistic data fusion using
       sliding windows." ECIR 2008; "Estimating probabilities for effective
       data fusion." SIGIR 2010.
    .. [5] Shokouhi, M. "Segmentation of search engine results for effective
       data-fusion." ECIR 2007.
    .. [6] Aslam, J. A. and Montague, M. "Models for metasearch." SIGIR 2001.

    Examples
    --------
    >>> from sk_rankmetrics import fuse
    >>> bm25 = {"q1": {"a": 12.0, "b": 9.5, "c": 3.0}}
    >>> dense = {"q1": {"b": 0.91, "d": 0.88, "a": 0.42}}
    >>> fused = fuse([bm25, dense], method="rrf", k=60)
    >>> {d: round(s, 5) for d, s in fused["q1"].items()}
    {'b': 0.03252, 'a': 0.03227, 'd': 0.01613, 'c': 0.01587}
    >>> fuse([bm25, dense], method="wsum", norm="min-max", weights=[0.3, 0.7])
    {'q1': {'b': 0.9166666666666666, 'd': 0.657142857142857, 'a': 0.3, 'c': 0.0}}
    >>> splade = {"q1": {"b": 5.0, "a": 4.0, "d": 1.0}}
    >>> fuse([bm25, dense, splade], method="condorcet")
    {'q1': {'b': 4.0, 'a': 3.0, 'd': 2.0, 'c': 1.0}}
    >>> qrels = {"q1": {"b": 1, "d": 1}}  # training judgements
    >>> fuse([bm25, dense], method="mapfuse", qrels=qrels)
    {'q1': {'b': 1.125, 'a': 0.5833333333333333, 'd': 0.5, 'c': 0.08333333333333333}}
    """
    first = runs[0] if isinstance(runs, Sequence) and len(runs) else None
    qid, docno, score = fuse_arrays(
        runs, method=method, norm=norm, weights=weights, k=k, phi=phi, gamma=gamma,
        sigma=sigma, probs=probs, w=w, log_odds=log_odds, map_scores=map_scores, qrels=qrels,
        as_columns=not isinstance(first, Mapping) and not hasattr(first, "columns"))
    return _output(qid, docno, score, runs[0], "fused" if tag is None else tag)
