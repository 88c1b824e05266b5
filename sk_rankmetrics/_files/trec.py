"""TREC qrels and run files: streaming vectorised readers and a writer.

Qrels lines are ``qid iter docno rel``; run lines are ``qid Q0 docno rank score
tag``. Fields are separated by spaces or tabs. Blank lines are skipped, and so
are comment lines: a ``#`` starts a comment only as the first character of a
line, because document ids may contain ``#``.

The readers never create a Python object per line: the file is read in blocks
(decompressed on the fly for ``.gz``, ``.bz2`` and ``.xz``), split into fields
with NumPy array operations, and each id becomes a 64-bit key (see
:mod:`.tokens`). Ids are turned into strings only when asked for
(``run.docno``); :func:`~sk_rankmetrics.evaluate_run` matches them by key.
"""

from __future__ import annotations

import os

import numpy as np

from .._inputs.preranked import ranked_order
from .._utils import threads as _threads
from .._utils.allocator import tune_allocator
from .._utils.fast import sort_keys, unique
from .._utils.nonzero import flatnonzero
from .._utils.threads import bounded_map
from .._utils.types import ArrayLike, PathLike, Progress
from . import tokens
from .numbers import parse_numbers
from .tokens import (
    _LF,
    PAIR_STEP,
    CollapsedColumn,
    TokenColumn,
    check_utf8,
    iter_blocks,
    open_binary,
    pair_hashes,
    sniff_compression,
    tokenize,
)


class _Lines:
    """Line number of each row of a file read in blocks."""

    def __init__(self):
        self.first_row, self.line0, self.line_no = [], [], []
        self.n = 0

    def add(self, tok):
        self.first_row.append(self.n)
        self.line0.append(tok.line0)
        self.line_no.append(tok.line_no)  # None: the rows are consecutive lines
        self.n += tok.n_rows

    def line(self, row):
        i = int(np.searchsorted(self.first_row, row, side="right")) - 1
        local = row - self.first_row[i]
        if self.line_no[i] is None:
            return self.line0[i] + local
        return int(self.line_no[i][local])


class _Growing:
    """A 1-D array filled block after block, its capacity grown as needed.

    The first capacity comes from an estimate of the number of lines;
    ``np.empty`` memory that is never written costs no resident memory, so
    a generous estimate is free, and each block is copied once, into place.
    """

    def __init__(self, dtype):
        self.a = np.empty(0, dtype=dtype)
        self.n = 0

    def reserve(self, capacity):
        if capacity > self.a.shape[0]:
            new = np.empty(capacity, dtype=self.a.dtype)
            new[: self.n] = self.a[: self.n]
            self.a = new

    def add(self, x):
        end = self.n + x.shape[0]
        if end > self.a.shape[0]:
            self.reserve(max(end, self.a.shape[0] * 3 // 2 + 1024))
        self.a[self.n : end] = x
        self.n = end

    def array(self):
        return self.a[: self.n]


def _read_columns(path, what, n_fields, layout, numbers, keep=(), extra_ok=False,
                  progress=None):
    """Read a whitespace-separated file whose fields 0 and 2 are a query and a
    document id: the query column as a :class:`CollapsedColumn`, the documents as a
    :class:`TokenColumn`, the ``numbers`` fields as float64 (every value
    finite), a hash of each line's (query, document) pair, and the line
    numbers. Also returns the text of the ``keep`` fields of the first line.

    The blocks are split on :data:`READ_THREADS` threads (NumPy releases the
    GIL in most of the work), a few blocks in flight; they are put together
    in file order, so the first bad line of the file is the one reported.
    """
    if not isinstance(path, (str, os.PathLike)):
        raise TypeError(f"{what} must be a file path (str or os.PathLike), got "
                        f"{type(path).__name__}.")
    name = f"{what} file {os.fspath(path)!r}"
    fields = [0, 2, *numbers]
    q_parts, d_long = [], []
    d_keys = _Growing(np.uint64)
    values = {f: _Growing(np.float64) for f in numbers}
    lines = _Lines()
    head = None
    try:
        total = os.path.getsize(path)
    except OSError:
        total = None
    compressed = sniff_compression(path) != ""

    def split(block):
        check_utf8(block, name)
        tok = tokenize(block, n_fields, [*fields, *keep], name, layout, extra_ok)
        if tok.n_rows == 0:
            return block, tok, None
        q = CollapsedColumn.from_block(block, tok.start[0], tok.length[0])
        d = TokenColumn.from_block(block, tok.start[1], tok.length[1])
        out = [q[:3], d]
        for i, f in enumerate(numbers, 2):
            v, ok = parse_numbers(block, tok.start[i], tok.length[i])
            if not ok.all():
                row = int(np.argmin(ok))
                text = block.text(int(tok.start[i][row]), int(tok.length[i][row]))
                raise ValueError(f"{name}, line {tok.line(row)}: {numbers[f]} "
                                 f"{text!r} is not a finite number (C's syntax, as "
                                 "trec_eval reads it: 3, -0.25, 1.5e-3; no '_', inf "
                                 "or nan).")
            out.append(v)
        if keep:  # the text of the kept fields of the block's first line
            out.append([block.text(int(s[0]), int(n[0]), limit=1 << 20)
                        for s, n in zip(tok.start[-len(keep):], tok.length[-len(keep):])])
        return block, tok, out

    line0 = [1]  # the number of the next block's first line

    def numbered(blocks):
        for block in blocks:
            block.line0 = line0[0]
            if threads > 1:  # counted now; on one thread, once the block is split
                line0[0] += int(np.count_nonzero(block.body == _LF))
            yield block

    with open_binary(path, what) as fh:
        large = total and total > 4 * tokens.BLOCK_BYTES
        threads = _threads.read_threads() if large else 1
        if large:
            tune_allocator()  # each block's arrays reuse the last one's memory
        pool = []  # the buffers of the blocks done with, to read the next ones into
        blocks = numbered(iter_blocks(fh, name, tokens.BLOCK_BYTES, progress, total, pool))
        for block, tok, out in bounded_map(split, blocks, threads):
            pool.append(block.raw)
            if threads == 1:
                line0[0] += tok.n_lines
            if out is None:
                continue
            if head is None:
                head = out[2 + len(numbers)] if keep else []
                if total:  # lines in the file, by the first block's bytes per line
                    n = tok.n_rows
                    guess = int(total * (4 if compressed else 1.2) * n / max(tok.n_bytes, 1))
                    for col in (d_keys, *values.values()):
                        col.reserve(guess + 64)
            q_parts.append(out[0])
            d_keys.add(out[1][0])
            d_long.append(out[1][1:])
            for f, v in zip(numbers, out[2:]):
                values[f].add(v)
            lines.add(tok)
    docs = TokenColumn.concat(d_long, [p[2] for p in q_parts], keys=d_keys.array())
    cols = {"qid": CollapsedColumn.concat(q_parts), "docno": docs}
    return name, cols, {f: v.array() for f, v in values.items()}, lines, head


#: What a document listed twice means, in a run and in a qrels.
_RUN_TWICE = ("A run ranks each document at most once per query (trec_eval refuses it "
              "too); keep one line of each, or pass duplicates='first' to keep the first "
              "in ranked order.")
_QRELS_TWICE = ("A diversity qrels, which judges a document once per subtopic, is read "
                "with read_trec_qrels(path, diversity=True) and scored by the diversity "
                "measures (alpha_nDCG@k, ERR_IA@k, ...).")


def _duplicates(cols, lines, name, kind):
    """Raise on a document listed twice for one query (checked by pair hash, then bytes);
    the message's advice is that of ``kind``, ``"run"`` or ``"qrels"``.

    When the lines of each query are contiguous (the usual file), a duplicate
    lies within one query: the pair hashes are sorted a few queries at a
    time, in small chunks. Otherwise they are sorted all together.
    """
    qcol, dcol = cols["qid"], cols["docno"]
    n = len(qcol)
    if n < 2:
        return
    from .id_codes import factorize_collapsed

    codes, _ = factorize_collapsed(qcol)
    new = np.ones(codes.shape[0], dtype=bool)
    new[1:] = codes[1:] != codes[:-1]
    first = qcol.starts[new]  # the first line of each query's lines
    if first.shape[0] == unique(codes).shape[0]:  # contiguous
        # Chunks of about PAIR_STEP lines that start where a query starts.
        at = np.searchsorted(first, np.arange(0, n, PAIR_STEP), side="right") - 1
        cuts = first[unique(at)]
        bounds = [*cuts.tolist(), n]
    else:
        bounds = [0, n]
    rows = []
    for a, b in zip(bounds[:-1], bounds[1:]):
        h = pair_hashes(cols, a, b)
        s = sort_keys(h)
        eq = s[1:] == s[:-1]
        if eq.any():
            rows.append(flatnonzero(np.isin(h, s[1:][eq])) + a)
    if not rows:
        return
    seen = {}
    for r in np.concatenate(rows).tolist():  # lines whose hashes collide: duplicates, or clashes
        k = (qcol.bytes_of(r), dcol.bytes_of(r))
        if k in seen:
            first, second = sorted((lines.line(seen[k]), lines.line(r)))
            raise ValueError(
                f"{name}, line {second}: duplicate document "
                f"{k[1].decode('utf-8', 'replace')!r} for query "
                f"{k[0].decode('utf-8', 'replace')!r} (first on line {first}). "
                + (_RUN_TWICE if kind == "run" else _QRELS_TWICE)
            )
        seen[k] = r


class _Ids:
    """An id array of a qrels or run: given, or made from the file's columns
    on first use (a file read by this module keeps 64-bit keys, not strings)."""

    def __init__(self, name):
        self.name = name

    def __get__(self, obj, owner=None):
        if obj is None:
            return self
        value = getattr(obj, "_" + self.name)
        if value is None:
            value = obj._columns[self.name].to_strings()
            setattr(obj, "_" + self.name, value)
        return value

    def __set__(self, obj, value):
        if obj._columns is not None:  # the file's columns go: keep the other ids as strings
            for other in ("qid", "docno"):
                getattr(obj, other)
        setattr(obj, "_" + self.name, np.asarray(value))
        obj._columns = None


def _n_queries(obj):
    if not len(obj):
        return 0
    if obj._columns is not None:
        from .id_codes import factorize

        return int(factorize(obj._columns["qid"])[1].shape[0])
    return int(unique(obj.qid).shape[0])


class TrecQrels:
    r"""Relevance judgements read from a TREC qrels file.

    Parameters
    ----------
    qid, docno : ndarray of str, shape (n,)
        Query and document id of each judgement.
    relevance : ndarray of float, shape (n,)
        Relevance level of each judgement (negative levels mean judged but
        non-relevant in trec_eval).
    source : str, default=""
        Where the judgements came from (for messages).
    subtopic : ndarray of shape (n,), optional
        The subtopic of each judgement: a diversity qrels (TREC Web track,
        ndeval), where a document is judged once per subtopic; the diversity
        measures read it (see :func:`read_trec_qrels`).

    Notes
    -----
    Each entry sets :math:`\mathrm{rel}(q, d)` for one query :math:`q` and
    document :math:`d`; documents that are not judged have relevance 0.

    Examples
    --------
    >>> import numpy as np
    >>> from sk_rankmetrics import TrecQrels
    >>> q = TrecQrels(np.array(["q1", "q1"]), np.array(["d1", "d2"]), np.array([1.0, 0.0]))
    >>> len(q)
    2
    """

    def __init__(self, qid: ArrayLike, docno: ArrayLike, relevance: ArrayLike,
                 source: str = "", subtopic: ArrayLike | None = None) -> None:
        self._qid = np.asarray(qid)
        self._docno = np.asarray(docno)
        self.relevance = np.asarray(relevance, dtype=np.float64)
        self.source = source
        self.subtopic = None if subtopic is None else np.asarray(subtopic)
        self._columns = None
        self._unit = "query"  # what messages call a query: "user" for user columns

    qid = _Ids("qid")
    docno = _Ids("docno")

    def __len__(self) -> int:
        return self.relevance.shape[0]

    def __repr__(self) -> str:
        return f"TrecQrels({len(self)} judgements, {_n_queries(self)} queries)"


class TrecRun:
    """A ranking read from a TREC run file.

    Parameters
    ----------
    qid, docno : ndarray of str, shape (n,)
        Query and document id of each retrieved document.
    score : ndarray of float, shape (n,)
        Retrieval score; a higher score ranks earlier.
    rank : ndarray of int, shape (n,), optional
        The rank column of the file (trec_eval ignores it and ranks by score).
    tag : str, default="run"
        Run tag (the last column).
    source : str, default=""
        Where the run came from (for messages).

    Notes
    -----
    The documents of a query are ranked by :math:`s(q, d)` descending, ties
    broken by docno descending (the order trec_eval uses); ``rank`` is kept
    but not used (the file readers do not read it, as trec_eval does not).

    Examples
    --------
    >>> import numpy as np
    >>> from sk_rankmetrics import TrecRun
    >>> r = TrecRun(np.array(["q1", "q1"]), np.array(["d1", "d2"]), np.array([2.0, 1.0]))
    >>> len(r), r.tag
    (2, 'run')
    """

    def __init__(self, qid: ArrayLike, docno: ArrayLike, score: ArrayLike,
                 rank: ArrayLike | None = None, tag: str = "run", source: str = "") -> None:
        self._qid = np.asarray(qid)
        self._docno = np.asarray(docno)
        self.score = np.asarray(score, dtype=np.float64)
        self.rank = None if rank is None else np.asarray(rank)
        self.tag = tag
        self.source = source
        self._columns = None
        self._unit = "query"  # what messages call a query: "user" for user columns

    qid = _Ids("qid")
    docno = _Ids("docno")

    def __len__(self) -> int:
        return self.score.shape[0]

    def __repr__(self) -> str:
        return (f"TrecRun({len(self)} documents, {_n_queries(self)} queries, "
                f"tag={self.tag!r})")


def _from_file(cls, cols, kwargs):
    obj = cls.__new__(cls)
    obj._qid = obj._docno = None
    if cls is TrecQrels:
        obj.subtopic = None
    obj._columns = cols
    for k, v in kwargs.items():
        setattr(obj, k, v)
    return obj


def read_trec_qrels(path: PathLike, *, diversity: bool = False,
                    progress: Progress | None = None) -> TrecQrels:
    r"""Read a TREC qrels file (``qid iter docno rel`` per line).

    Parameters
    ----------
    path : str or os.PathLike
        The file (``.gz``, ``.bz2`` and ``.xz`` files are decompressed while
        read). Fields are separated by spaces or tabs; blank lines and lines
        starting with ``#`` are skipped (a ``#`` inside a field is kept). A
        UTF-8 byte-order mark at the start is skipped.
    diversity : bool, default=False
        Read a diversity qrels (TREC Web track, ndeval): the second field is
        the subtopic, a number, and a document appears once per subtopic.
        The result's ``subtopic`` holds it, and the diversity measures read it.
    progress : callable, optional
        Called as ``progress(done, total)`` with the bytes read so far.

    Returns
    -------
    qrels : TrecQrels
        Arrays ``qid``, ``docno`` (str) and ``relevance`` (float), in file order
        (and ``subtopic``, float, with ``diversity=True``).

    Raises
    ------
    ValueError
        Naming the file and the line number: a line without exactly 4 fields,
        a relevance that is not a finite number, the same document judged
        twice for one query, a control character or bytes that are not UTF-8.

    Notes
    -----
    Line :math:`i` sets :math:`\mathrm{rel}(q_i, d_i)`. The file is read in
    blocks of a few MiB and split with NumPy operations (no Python object per
    line); memory is a few arrays with one entry per line, whatever the
    length of the longest id.

    Examples
    --------
    >>> import os, tempfile
    >>> from sk_rankmetrics import read_trec_qrels
    >>> path = os.path.join(tempfile.mkdtemp(), "qrels.txt")
    >>> with open(path, "w") as fh:
    ...     _ = fh.write("# judgements\nq1 0 d1 2\nq1 0 d2 0\n\nq2 0 d#7 1\n")
    >>> qrels = read_trec_qrels(path)
    >>> qrels.docno.tolist(), qrels.relevance.tolist()
    (['d1', 'd2', 'd#7'], [2.0, 0.0, 1.0])

    A diversity qrels judges a document once per subtopic:

    >>> with open(path, "w") as fh:
    ...     _ = fh.write("q1 1 d1 1\nq1 2 d1 0\nq1 2 d2 1\n")
    >>> div = read_trec_qrels(path, diversity=True)
    >>> div.docno.tolist(), div.subtopic.tolist()
    (['d1', 'd1', 'd2'], [1.0, 2.0, 2.0])
    """
    if diversity:
        name, cols, nums, lines, _ = _read_columns(
            path, "qrels", 4, "qid subtopic docno rel", {1: "subtopic", 3: "relevance"},
            progress=progress)
        return _from_file(TrecQrels, cols, {"relevance": nums[3], "subtopic": nums[1],
                                            "source": os.fspath(path), "_lines": lines})
    name, cols, nums, lines, _ = _read_columns(
        path, "qrels", 4, "qid iter docno rel", {3: "relevance"}, progress=progress)
    _duplicates(cols, lines, name, "qrels")
    return _from_file(TrecQrels, cols, {"relevance": nums[3],
                                               "source": os.fspath(path), "_lines": lines})


def read_trec_run(path: PathLike, *, progress: Progress | None = None) -> TrecRun:
    r"""Read a TREC run file (``qid Q0 docno rank score tag`` per line).

    Parameters
    ----------
    path : str or os.PathLike
        The file (``.gz``, ``.bz2`` and ``.xz`` files are decompressed while
        read). Fields are separated by spaces or tabs; blank lines and lines
        starting with ``#`` are skipped; text after the sixth field is
        ignored. A UTF-8 byte-order mark at the start is skipped.
    progress : callable, optional
        Called as ``progress(done, total)`` with the bytes read so far.

    Returns
    -------
    run : TrecRun
        Arrays ``qid``, ``docno`` (str) and ``score`` (float), in file order;
        ``tag`` is the first line's tag. The rank column is not read (trec_eval
        ignores it too): ``rank`` is None.

    Raises
    ------
    ValueError
        Naming the file and the line number: a line with fewer than 6 fields,
        a score that is not a finite number, the same document retrieved
        twice for one query, a control character or bytes that are not UTF-8.

    Notes
    -----
    As in trec_eval, the documents are ranked by the score :math:`s(q, d)`,
    descending. Ids are kept as 64-bit keys (their bytes up to 8 bytes, a
    verified hash beyond) and become strings only when ``run.qid`` or
    ``run.docno`` is read.

    Examples
    --------
    >>> import os, tempfile
    >>> from sk_rankmetrics import read_trec_run
    >>> path = os.path.join(tempfile.mkdtemp(), "run.txt")
    >>> with open(path, "w") as fh:
    ...     _ = fh.write("q1 Q0 d1 1 2.5 bm25\nq1 Q0 d2 2 1.5 bm25\n")
    >>> run = read_trec_run(path)
    >>> run.docno.tolist(), run.score.tolist(), run.tag
    (['d1', 'd2'], [2.5, 1.5], 'bm25')
    """
    name, cols, nums, lines, head = _read_columns(
        path, "run", 6, "qid Q0 docno rank score tag", {4: "score"}, keep=(5,),
        extra_ok=True, progress=progress)
    _duplicates(cols, lines, name, "run")
    tag = head[0] if head else "run"
    return _from_file(TrecRun, cols, {"score": nums[4], "rank": None, "tag": tag,
                                            "source": os.fspath(path)})


def write_trec_run(path: PathLike, run: TrecRun | tuple[ArrayLike, ArrayLike, ArrayLike], *,
                   tag: str | None = None) -> None:
    r"""Write a run as a TREC run file (``qid Q0 docno rank score tag``).

    Parameters
    ----------
    path : str or os.PathLike
        Where to write (overwritten).
    run : TrecRun or tuple of (qid, docno, score) arrays
        The ranking. Documents are written per query in ranked order (score
        descending, ties by docno descending, as trec_eval reads them) with
        ranks 1, 2, ...
    tag : str, optional
        Run tag; by default the run's own tag (or ``"run"``).

    Returns
    -------
    None
        The file at ``path`` holds the run.

    Notes
    -----
    The rank written for document :math:`d` of query :math:`q` is
    :math:`1 + |\{d' : (s_{d'}, d') > (s_d, d)\}|`, pairs compared as
    (score, docno), so that reading the file back gives the same order.

    Examples
    --------
    >>> import os, tempfile
    >>> from sk_rankmetrics import read_trec_run, write_trec_run
    >>> path = os.path.join(tempfile.mkdtemp(), "run.txt")
    >>> write_trec_run(path, (["q1", "q1"], ["d1", "d2"], [0.5, 0.75]), tag="mine")
    >>> print(open(path).read(), end="")
    q1 Q0 d2 1 0.75 mine
    q1 Q0 d1 2 0.5 mine
    >>> read_trec_run(path).docno.tolist()
    ['d2', 'd1']
    """
    if isinstance(run, TrecRun):
        qid, docno, score = run.qid, run.docno, run.score
        tag = run.tag if tag is None else tag
    elif isinstance(run, (tuple, list)) and len(run) == 3:
        qid, docno, score = (np.asarray(a) for a in run)
    else:
        raise TypeError("run must be a TrecRun or a (qid, docno, score) tuple of arrays, "
                        f"got {type(run).__name__}.")
    tag = "run" if tag is None else str(tag)
    qid, docno = np.asarray(qid).astype(str), np.asarray(docno).astype(str)
    score = np.asarray(score, dtype=np.float64)
    if not (qid.ndim == docno.ndim == score.ndim == 1
            and qid.shape == docno.shape == score.shape):
        raise ValueError("run qid, docno and score must be 1-D arrays of one length, got "
                         f"shapes {qid.shape}, {docno.shape} and {score.shape}.")
    if not np.all(np.isfinite(score)):
        raise ValueError("run score contains NaN or infinity; every score must be finite.")
    for arg, v in (("qid", qid), ("docno", docno), ("tag", np.array([tag]))):
        if v.size and (np.char.str_len(v).min() == 0 or np.char.find(v, " ").max() >= 0
                       or np.char.find(v, "\t").max() >= 0):
            raise ValueError(f"run {arg} values must be non-empty and free of spaces "
                             "and tabs to be written as a TREC run.")
    order = ranked_order(qid, docno, score)
    q = qid[order]
    new = np.ones(q.shape[0], dtype=bool)
    new[1:] = q[1:] != q[:-1]
    starts = flatnonzero(new)
    rank = np.arange(q.shape[0]) - np.repeat(starts, np.diff(np.append(starts, q.shape[0])))
    rank = rank + 1
    # One format per line (%r of a float is its shortest repr, as NumPy's
    # astype(str) writes it): five times faster than joining NumPy's text columns.
    line = "%s Q0 %s %d %r " + tag.replace("%", "%%") + "\n"
    text = "".join(map(line.__mod__, zip(q.tolist(), docno[order].tolist(), rank.tolist(),
                                          score[order].tolist())))
    with open(path, "w", encoding="utf-8", newline="\n") as fh:
        fh.write(text)
