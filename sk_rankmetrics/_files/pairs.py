"""Runs and qrels as benchmark code holds them: dicts of dicts and named tuples.

BEIR, MTEB, pytrec_eval and ranx hold a run as ``{qid: {docid: score}}`` and
a qrels as ``{qid: {docid: relevance}}``; ir_datasets streams them as named
tuples (``TrecQrel(query_id, doc_id, relevance, iteration)``,
``GenericScoredDoc(query_id, doc_id, score)``). :func:`qrels_from_pairs` and
:func:`run_from_pairs` turn either form into a :class:`.TrecQrels` or
:class:`.TrecRun`, which every entry point then reads as it reads a file.
:func:`prepare_run` applies the ranked-input policies (``ignore_identical_ids``,
``duplicates``) to a run, whatever form it came in.

Ids are compared as text: a key may be a ``str`` or an ``int`` (NumPy's
integers too), and an integer is its decimal text, so ``7`` and ``"7"`` are
one id (a dict giving both for one query gives a document twice, an error).
Any other key (a float, ``None``, a bool, a tuple) is refused, naming it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from itertools import chain

import numpy as np

from .._utils.arrays import flatnonzero
from .._utils.errors import InvalidParameterError, counted, short_repr, shown, warn
from .._utils.text_ids import ordered_codes
from .formats import _repeated_pair
from .trec import TrecQrels, TrecRun

#: The fields of an ir_datasets-style named tuple, by role (the first present is used).
QUERY_FIELDS = ("query_id", "qid")
DOC_FIELDS = ("doc_id", "docno", "docid")
VALUE_FIELDS = {"qrels": ("relevance", "rel", "label"), "run": ("score",)}

#: The policies of a document ranked twice for one query.
DUPLICATES = ("raise", "first")


def _is_frame(obj):
    return hasattr(obj, "columns")


def is_pairs(obj):
    """Whether ``obj`` may be a dict of dicts or an iterable of named tuples
    (a path, a frame, a string or a TREC object is not)."""
    if isinstance(obj, (str, bytes, TrecQrels, TrecRun)) or _is_frame(obj):
        return False
    return isinstance(obj, Mapping) or isinstance(obj, Iterable)


#: How many keys, evenly spaced, set the width :func:`_text_ids` tries first.
_WIDTH_SAMPLE = 4096


def _text_ids(keys, where):
    """Keys that are all text as an array at their width, or None when one is
    not a string. One join finds both that every key is a string and their
    total length; the width is tried from a sample of the keys, and kept when
    the array's lengths add up to that total (NumPy cuts a longer key without
    a word): Python's ``max`` over every key's length and a set of their types
    cost as much as making the array."""
    try:
        total = len("".join(keys))
    except TypeError:
        return None
    sample = keys[:: max(len(keys) // _WIDTH_SAMPLE, 1)]
    width = max(max(map(len, sample), default=1), 1)
    out = np.fromiter(keys, dtype=f"U{width}", count=len(keys))
    lens = np.char.str_len(out)
    if int(lens.sum()) != total:
        width = max(max(map(len, keys)), 1)
        out = np.fromiter(keys, dtype=f"U{width}", count=len(keys))
        lens = np.char.str_len(out)
    _no_empty_id(lens, where)
    return out


def _no_empty_id(lens, where):
    if lens.size and (lens == 0).any():
        raise InvalidParameterError(f"{where}: an id is the empty string; every query and "
                                    "document needs an id.")


def _ids(keys, where, types=None):
    """Keys (str or int) as an array of text, refusing any other type
    (``types``: the set of their types, when known)."""
    keys = keys if isinstance(keys, list) else list(keys)
    out = _text_ids(keys, where) if types in (None, {str}) else None
    if out is not None:
        return out
    types = set(map(type, keys)) if types is None else types
    for t in types:
        if not (issubclass(t, (str, int, np.integer)) and not issubclass(t, (bool, np.bool_))):
            bad = next(k for k in keys if type(k) is t)
            raise InvalidParameterError(
                f"{where}: the id {short_repr(bad)} is a {t.__name__}; ids must be strings "
                "or integers (an integer is compared as its decimal text: 7 and '7' are "
                "one id).")
    out = np.array([str(k) for k in keys], dtype=str) if keys else np.zeros(0, dtype=str)
    _no_empty_id(np.char.str_len(out), where)
    return out


def _values(values, n, where, what):
    try:
        out = np.fromiter(values, dtype=np.float64, count=n)
    except (TypeError, ValueError, OverflowError):
        raise InvalidParameterError(f"{where}: every {what} must be a number (int or float) "
                                    "within float range.") from None
    return out


def _finite(qid, docno, vals, where, what):
    bad = ~np.isfinite(vals)
    if bad.any():
        i = int(flatnonzero(bad)[0])
        raise InvalidParameterError(
            f"{where}: the {what} of document {shown(docno[i])!r} for query "
            f"{shown(qid[i])!r} is {vals[i]}; every {what} must be a finite number.")


def _from_dict(obj, kind, where):
    what = "relevance" if kind == "qrels" else "score"
    bad = next((q for q, v in obj.items() if not isinstance(v, Mapping)), None)
    if bad is not None:
        inner = "{docid: relevance}" if kind == "qrels" else "{docid: score}"
        raise InvalidParameterError(
            f"{where}: query {short_repr(bad)} maps to a {type(obj[bad]).__name__}; a dict "
            f"{kind} maps each query id to a dict {inner} (pytrec_eval's and ranx's form).")
    queries = _ids(list(obj.keys()), where)
    if np.unique(queries).size < queries.size:
        u, c = np.unique(queries, return_counts=True)
        raise InvalidParameterError(
            f"{where}: query {str(u[c > 1][0])!r} is a key twice (as an int and as a str); "
            "7 and '7' are one id, give it once.")
    lens = np.fromiter(map(len, obj.values()), dtype=np.int64, count=len(obj))
    qid = np.repeat(queries, lens)
    keys = list(chain.from_iterable(obj.values()))
    docno = _text_ids(keys, where)
    # The keys of one dict are distinct: a pair can repeat only through 7 and '7'.
    mixed = False
    if docno is None:
        types = set(map(type, keys))
        mixed = len(types) > 1
        docno = _ids(keys, where, types)
    vals = _values(chain.from_iterable(v.values() for v in obj.values()), int(lens.sum()),
                   where, what)
    return qid, docno, vals, mixed


def _field(fields, names, role, where, kind):
    for name in names:
        if name in fields:
            return name
    raise InvalidParameterError(
        f"{where}: the named tuples have the fields {list(fields)}, none of them the "
        f"{role} ({' or '.join(names)}); an ir_datasets-style {kind} has "
        + ("query_id, doc_id, relevance." if kind == "qrels" else "query_id, doc_id, score."))


def _from_tuples(obj, kind, where):
    rows = obj if isinstance(obj, (list, tuple)) else list(obj)
    if not rows:
        return None
    fields = getattr(type(rows[0]), "_fields", None)
    if fields is None:
        return None
    names = [_field(fields, QUERY_FIELDS, "query id", where, kind),
             _field(fields, DOC_FIELDS, "document id", where, kind),
             _field(fields, VALUE_FIELDS[kind], "relevance" if kind == "qrels" else "score",
                    where, kind)]
    try:
        cols = list(zip(*[(getattr(r, names[0]), getattr(r, names[1]), getattr(r, names[2]))
                          for r in rows]))
    except AttributeError:
        i = next(i for i, r in enumerate(rows) if not all(hasattr(r, f) for f in names))
        raise InvalidParameterError(
            f"{where}: entry {i} ({short_repr(rows[i])}) has no field "
            f"{next(f for f in names if not hasattr(rows[i], f))!r}; every entry needs "
            f"{', '.join(names)}.") from None
    what = "relevance" if kind == "qrels" else "score"
    return (_ids(list(cols[0]), where), _ids(list(cols[1]), where),
            _values(cols[2], len(rows), where, what))


def _convert(obj, kind, where):
    """``(qid, docno, values, may_repeat, from_tuples)`` of a dict of dicts or
    named tuples, or None; ``may_repeat``: whether a (query, document) pair can
    come twice (named tuples; a dict whose keys mix ints and strings)."""
    if isinstance(obj, Mapping):
        return (*_from_dict(obj, kind, where), False)
    got = _from_tuples(obj, kind, where)
    if got is None:
        return None
    return (*got, True, True)


def _refuse_repeats(qid, docno, where, kind, tuples, may_repeat):
    found = _repeated_pair(qid, docno) if may_repeat else None
    if found is None:
        return
    i, j = found
    at = f"entry {j}" if tuples else "the dict"
    first = f" (first at entry {i})" if tuples else ""
    advice = ("a run ranks each document at most once per query: keep one (duplicates="
              "'first' keeps the first in ranked order)" if kind == "run"
              else "judge each (query, document) pair once")
    raise ValueError(f"{where}, {at}: duplicate document {shown(docno[j])!r} for query "
                     f"{shown(qid[j])!r}{first}; {advice}.")


def qrels_from_pairs(obj, where="qrels"):
    """A :class:`.TrecQrels` from ``{qid: {docid: relevance}}`` or an iterable of
    named tuples with fields ``query_id``, ``doc_id``, ``relevance``; None when
    ``obj`` is neither (an empty iterable or one of other objects).

    An empty inner dict is a query without judgements (as if absent). An
    ``iteration`` field, as in TREC qrels, is not read.
    """
    got = _convert(obj, "qrels", where)
    if got is None:
        return None
    qid, docno, rel, may_repeat, tuples = got
    if qid.size == 0:
        raise ValueError(f"{where} hold no judgement (every query maps to an empty dict); "
                         "they must judge at least one document.")
    _finite(qid, docno, rel, where, "relevance")
    _refuse_repeats(qid, docno, where, "qrels", tuples, may_repeat)
    return TrecQrels(qid, docno, rel)


def run_from_pairs(obj, where="run", *, duplicates="raise"):
    """A :class:`.TrecRun` from ``{qid: {docid: score}}`` or an iterable of named
    tuples with fields ``query_id``, ``doc_id``, ``score``; None when ``obj`` is
    neither. An empty inner dict is a query without documents (as if absent:
    ``complete=True`` scores it 0). A higher score ranks earlier."""
    got = _convert(obj, "run", where)
    if got is None:
        return None
    qid, docno, score, may_repeat, tuples = got
    _finite(qid, docno, score, where, "score")
    run = TrecRun(qid, docno, score)
    if duplicates == "raise":
        _refuse_repeats(qid, docno, where, "run", tuples, may_repeat)
    if duplicates == "raise" or not may_repeat:
        run._distinct_pairs = (run._qid, run._docno)
    return run


def distinct_pairs(run):
    """Whether ``run`` is known to give each (query, document) pair once: made
    by :func:`run_from_pairs` from one dict per query, or checked there, and
    its id arrays not replaced since."""
    known = getattr(run, "_distinct_pairs", None)
    return known is not None and known[0] is run._qid and known[1] is run._docno


def as_pairs_input(obj, kind, where=None, *, duplicates="raise"):
    """``obj`` as a TrecQrels/TrecRun when it is a dict of dicts or named tuples;
    else ``obj`` unchanged (a generator that holds no named tuple is refused)."""
    if not is_pairs(obj):
        return obj
    where = where or kind
    out = (qrels_from_pairs(obj, where) if kind == "qrels"
           else run_from_pairs(obj, where, duplicates=duplicates))
    if out is not None:
        return out
    if isinstance(obj, (list, tuple)) and not obj:
        raise InvalidParameterError(f"{where} is empty; give a dict {{qid: {{docid: value}}}}, "
                                    "named tuples, a TREC object, a path or a data frame.")
    return obj


def keep_first(qid, docno, score):
    """The entries to keep when a document is given twice for a query: the first
    in ranked order (the highest score; equal scores: the earliest entry).
    Returns ``(keep, n_dropped)``, ``keep`` a boolean mask in input order."""
    n = qid.shape[0]
    if n < 2:
        return np.ones(n, dtype=bool), 0
    qc, dc = ordered_codes(qid), ordered_codes(docno)
    # By pair, then score descending, then entry: the first of each pair is kept.
    order = np.lexsort((np.arange(n), -score, dc, qc))
    qs, ds = qc[order], dc[order]
    first = np.ones(n, dtype=bool)
    first[1:] = (qs[1:] != qs[:-1]) | (ds[1:] != ds[:-1])
    keep = np.empty(n, dtype=bool)
    keep[order] = first
    return keep, int(n - first.sum())


def prepare_run(run, *, ignore_identical_ids=False, duplicates="raise", where="run"):
    """A TrecRun with the ranked-input policies applied: documents whose id is
    the query's dropped (``ignore_identical_ids``), repeats kept once
    (``duplicates="first"``), each counted in a warning. The input is not
    changed; the same object is returned when nothing is dropped."""
    if not (ignore_identical_ids or duplicates == "first") or not len(run):
        return run
    qid, docno, score = np.asarray(run.qid), np.asarray(run.docno), run.score
    keep = np.ones(qid.shape[0], dtype=bool)
    if duplicates == "first":
        keep, n_dup = keep_first(qid, docno, score)
        if n_dup:
            warn(f"{where}: {counted(n_dup, 'repeated document')} dropped (duplicates="
                 "'first' keeps each document's first occurrence in ranked order: its "
                 "highest score).", UserWarning)
    if ignore_identical_ids:
        same = qid.astype(str) == docno.astype(str)  # ids compared as text, as everywhere
        n_same = int((same & keep).sum())
        if n_same:
            warn(f"{where}: {counted(n_same, 'retrieved document')} whose id is the query's "
                 "dropped (ignore_identical_ids=True, as BEIR and MTEB do; the qrels are "
                 "not changed).", UserWarning)
        keep &= ~same
    if keep.all():
        return run
    out = TrecRun(qid[keep], docno[keep], score[keep], tag=run.tag, source=run.source)
    out._unit = getattr(run, "_unit", "query")
    return out


def _read_run_keeping_repeats(path, fmt):
    """A run file read as :func:`.read_run` reads it, a document listed twice for
    a query kept (for ``duplicates="first"``)."""
    import os

    from .formats import _read_frame, detect_format, read_run
    from .frames import run_from_frame
    from .trec import _from_file, _read_columns

    fmt, _ = detect_format(path, fmt)
    if fmt == "json" or not os.path.exists(path):  # JSON refuses a key twice itself
        return read_run(path, format=fmt)
    if fmt == "trec":
        _, cols, nums, _, head = _read_columns(
            path, "run", 6, "qid Q0 docno rank score tag", {4: "score"}, keep=(5,),
            extra_ok=True)
        return _from_file(TrecRun, cols, {"score": nums[4], "rank": None,
                                          "tag": head[0] if head else "run",
                                          "source": os.fspath(path)})
    try:
        run = run_from_frame(_read_frame(path, fmt), tag=os.path.basename(path))
    except ValueError as exc:
        raise ValueError(f"run file {os.fspath(path)!r}: {exc}") from None
    run.source = os.fspath(path)
    return run


def ranked_run(run, fmt="auto", *, ignore_identical_ids=False, duplicates="raise",
               where="run"):
    """The run of an entry point with the ranked-input policies applied: a path,
    a dict of dicts or named tuples read (keeping repeats for
    ``duplicates="first"``), then :func:`prepare_run`; another object (a
    TrecRun, a data frame) is converted by the caller first when nothing is
    asked, as before."""
    import os

    if not (ignore_identical_ids or duplicates == "first"):
        return run
    if isinstance(run, (str, os.PathLike)):
        run = _read_run_keeping_repeats(run, fmt) if duplicates == "first" \
            else _read_plain(run, fmt)
    elif is_pairs(run):
        run = as_pairs_input(run, "run", where, duplicates=duplicates)
    elif _is_frame(run) and not isinstance(run, TrecRun):
        from .frames import run_from_frame

        run = run_from_frame(run)
    if not isinstance(run, TrecRun):
        return run  # the caller's own check names what was given
    return prepare_run(run, ignore_identical_ids=ignore_identical_ids,
                       duplicates=duplicates, where=where)


def _read_plain(path, fmt):
    from .formats import read_run

    return read_run(path, format=fmt)


def prepare_lists(ids, lens, flat, *, ignore_identical_ids=False, duplicates="raise",
                  what="user", where="recommended"):
    """Ranked ID lists (``lens`` items of ``flat`` per id of ``ids``) with the
    ranked-input policies applied: an item equal to its list's id dropped
    (``ignore_identical_ids``), an item listed twice kept at its earliest
    position (``duplicates="first"``), each counted in a warning."""
    if not (ignore_identical_ids or duplicates == "first") or flat.shape[0] == 0:
        return ids, lens, flat
    lens = np.asarray(lens, dtype=np.int64)
    row = np.repeat(np.arange(lens.shape[0]), lens)
    keep = np.ones(flat.shape[0], dtype=bool)
    if duplicates == "first":
        # The earliest position is the highest "score": minus the position.
        keep, n_dup = keep_first(row, np.asarray(flat).astype(str),
                                 -np.arange(flat.shape[0], dtype=np.float64))
        if n_dup:
            warn(f"{where}: {counted(n_dup, 'repeated item')} dropped (duplicates='first' "
                 "keeps each item's first occurrence, its earliest position).", UserWarning)
    if ignore_identical_ids:
        same = np.asarray(ids).astype(str)[row] == np.asarray(flat).astype(str)
        n_same = int((same & keep).sum())
        if n_same:
            warn(f"{where}: {counted(n_same, 'ranked item')} whose id is the {what}'s "
                 "dropped (ignore_identical_ids=True; the truth is not changed).",
                 UserWarning)
        keep &= ~same
    if keep.all():
        return ids, lens, flat
    new_lens = np.bincount(row[keep], minlength=lens.shape[0]).astype(np.int64)
    return ids, new_lens, flat[keep]


def refuse_on_lazy(ignore_identical_ids, duplicates, where):
    """The policies are applied in memory; on Dask inputs they are refused."""
    if ignore_identical_ids or duplicates != "raise":
        raise InvalidParameterError(
            f"{where}: ignore_identical_ids=True and duplicates='first' apply to in-memory "
            "inputs (dicts, named tuples, TREC objects and files, pandas frames); with a "
            "Dask collection, drop those rows in Dask first.")
