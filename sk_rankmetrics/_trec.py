"""TREC qrels and run files: vectorised readers and a writer.

Qrels lines are ``qid iter docno rel``; run lines are ``qid Q0 docno rank score
tag``. Fields are separated by spaces or tabs. Blank lines are skipped, and so
are comment lines: a ``#`` starts a comment only as the first character of a
line, because document ids may contain ``#``.

The reader never creates a Python object per line: the file is read as bytes,
split into fields with NumPy array operations, and the fields are gathered into
fixed-width byte-string arrays that NumPy parses in one call.
"""

from __future__ import annotations

import os

import numpy as np

_SPACE, _TAB, _CR, _LF, _HASH = 32, 9, 13, 10, 35
#: Bytes that separate fields (and lines).
_SEPARATOR = np.zeros(256, dtype=bool)
_SEPARATOR[[_SPACE, _TAB, _CR, _LF]] = True


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

    def __init__(self, qid, docno, relevance, source=""):
        self.qid = np.asarray(qid)
        self.docno = np.asarray(docno)
        self.relevance = np.asarray(relevance, dtype=np.float64)
        self.source = source

    def __len__(self):
        return self.qid.shape[0]

    def __repr__(self):
        n_q = np.unique(self.qid).shape[0] if len(self) else 0
        return f"TrecQrels({len(self)} judgements, {n_q} queries)"


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
    but not used.

    Examples
    --------
    >>> import numpy as np
    >>> from sk_rankmetrics import TrecRun
    >>> r = TrecRun(np.array(["q1", "q1"]), np.array(["d1", "d2"]), np.array([2.0, 1.0]))
    >>> len(r), r.tag
    (2, 'run')
    """

    def __init__(self, qid, docno, score, rank=None, tag="run", source=""):
        self.qid = np.asarray(qid)
        self.docno = np.asarray(docno)
        self.score = np.asarray(score, dtype=np.float64)
        self.rank = None if rank is None else np.asarray(rank)
        self.tag = tag
        self.source = source

    def __len__(self):
        return self.qid.shape[0]

    def __repr__(self):
        n_q = np.unique(self.qid).shape[0] if len(self) else 0
        return f"TrecRun({len(self)} documents, {n_q} queries, tag={self.tag!r})"


def _read_bytes(path, what):
    if not isinstance(path, (str, os.PathLike)):
        raise TypeError(f"{what} must be a file path (str or os.PathLike), got "
                        f"{type(path).__name__}.")
    try:
        with open(path, "rb") as fh:
            return fh.read()
    except OSError as exc:
        raise ValueError(f"cannot read {what} file {os.fspath(path)!r}: "
                         f"{exc.strerror or exc}.") from None


def _tokenize(data, n_fields, name, layout, allow_extra=False):
    """Split ``data`` into a ``(n_lines, n_fields)`` table of token bounds.

    Returns ``(buf, start, length, line_no)``: token start offsets and lengths
    of shape (n_lines, n_fields) and the 1-based line number of each row.
    """
    buf = np.frombuffer(data, dtype=np.uint8)
    if buf.size == 0:
        return buf, np.zeros((0, n_fields), np.int64), np.zeros((0, n_fields), np.int64), \
            np.zeros(0, np.int64)
    nl = buf == _LF
    sep = _SEPARATOR[buf]
    prev_sep = np.empty_like(sep)
    prev_sep[0] = True
    prev_sep[1:] = sep[:-1]
    starts = np.flatnonzero(~sep & prev_sep)
    next_sep = np.empty_like(sep)
    next_sep[-1] = True
    next_sep[:-1] = sep[1:]
    ends = np.flatnonzero(~sep & next_sep) + 1
    nl_pos = np.flatnonzero(nl)
    tok_line = np.searchsorted(nl_pos, starts)  # 0-based line: newlines before the token
    n_lines = nl_pos.shape[0] + 1
    # Comment lines: the first byte of the line is '#'.
    line_start = np.concatenate(([0], nl_pos + 1))
    line_start = line_start[line_start < buf.size]
    comment = np.zeros(n_lines, dtype=bool)
    comment[: line_start.shape[0]] = buf[line_start] == _HASH
    if comment.any():
        keep_tok = ~comment[tok_line]
        starts, ends, tok_line = starts[keep_tok], ends[keep_tok], tok_line[keep_tok]
    counts = np.bincount(tok_line, minlength=n_lines)
    short = counts < n_fields if allow_extra else counts != n_fields
    bad = (counts != 0) & short
    if bad.any():
        line = int(np.flatnonzero(bad)[0])
        at_least = "at least " if allow_extra else ""
        raise ValueError(
            f"{name}, line {line + 1}: expected {at_least}{n_fields} fields ({layout}), "
            f"found {int(counts[line])}."
        )
    if allow_extra and (counts > n_fields).any():
        # Keep the first n_fields tokens of each line (the rest is a comment).
        first = np.cumsum(counts) - counts
        in_line = np.arange(tok_line.shape[0]) - first[tok_line]
        keep = in_line < n_fields
        starts, ends, tok_line = starts[keep], ends[keep], tok_line[keep]
    start = starts.reshape(-1, n_fields)
    length = (ends - starts).reshape(-1, n_fields)
    line_no = tok_line[::n_fields] + 1 if n_fields else tok_line
    return buf, start, length, line_no


def _gather(buf, start, length):
    """Fixed-width byte strings of the tokens at ``start`` with ``length``."""
    if start.size == 0:
        return np.zeros(0, dtype="S1")
    width = int(length.max())
    out = np.empty((start.shape[0], width), dtype=np.uint8)
    cols = np.arange(width)
    step = max(1, (1 << 20) // width)  # bounded temporaries: ~8 MB of indices per block
    for a in range(0, start.shape[0], step):
        s, n = start[a : a + step], length[a : a + step]
        idx = np.minimum(s[:, None] + cols, buf.size - 1)
        out[a : a + step] = np.where(cols < n[:, None], buf[idx], 0)
    return out.view(f"S{width}").reshape(-1)


def _decode(b):
    """Byte strings -> str array (UTF-8)."""
    if b.size == 0:
        return np.zeros(0, dtype="U1")
    raw = b.view(np.uint8)
    if raw.size == 0 or raw.max() < 128:
        return b.astype(f"U{b.dtype.itemsize}")
    return np.char.decode(b, "utf-8")


def _parse_float(b, line_no, name, field):
    """Parse byte strings as floats; on failure name the first bad line."""
    try:
        out = b.astype(np.float64)
    except ValueError:
        out = None
    if out is not None and np.all(np.isfinite(out)):
        return out
    # Bisect down to the first bad entry (log2(n) vectorised casts).
    lo, hi = 0, b.shape[0]
    while hi - lo > 1:
        mid = (lo + hi) // 2
        try:
            ok = bool(np.all(np.isfinite(b[lo:mid].astype(np.float64))))
        except ValueError:
            ok = False
        lo, hi = (mid, hi) if ok else (lo, mid)
    text = b[lo].decode("utf-8", "replace")
    raise ValueError(
        f"{name}, line {int(line_no[lo])}: {field} {text!r} is not a finite number."
    )


def _check_duplicates(qid, docno, line_no, name):
    if qid.shape[0] < 2:
        return
    order = np.lexsort((docno, qid))
    q, d = qid[order], docno[order]
    dup = (q[1:] == q[:-1]) & (d[1:] == d[:-1])
    if dup.any():
        i = int(np.flatnonzero(dup)[0])
        first, second = sorted((int(line_no[order[i]]), int(line_no[order[i + 1]])))
        raise ValueError(
            f"{name}, line {second}: duplicate document {d[i].decode('utf-8', 'replace')!r}"
            f" for query {q[i].decode('utf-8', 'replace')!r} (first on line {first})."
        )


def read_trec_qrels(path):
    r"""Read a TREC qrels file (``qid iter docno rel`` per line).

    Parameters
    ----------
    path : str or os.PathLike
        The file. Fields are separated by spaces or tabs; blank lines and lines
        starting with ``#`` are skipped (a ``#`` inside a field is kept).

    Returns
    -------
    qrels : TrecQrels
        Arrays ``qid``, ``docno`` (str) and ``relevance`` (float), in file order.

    Raises
    ------
    ValueError
        Naming the file and the line number: a line without exactly 4 fields,
        a relevance that is not a finite number, or the same document judged
        twice for one query.

    Notes
    -----
    Line :math:`i` sets :math:`\mathrm{rel}(q_i, d_i)`. The file is read in
    one piece and split with NumPy operations (no Python object per line);
    memory is a few times the file size.

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
    """
    name = f"qrels file {os.fspath(path)!r}" if isinstance(path, (str, os.PathLike)) else ""
    data = _read_bytes(path, "qrels")
    buf, start, length, line_no = _tokenize(data, 4, name, "qid iter docno rel")
    qid = _gather(buf, start[:, 0], length[:, 0])
    docno = _gather(buf, start[:, 2], length[:, 2])
    rel = _parse_float(_gather(buf, start[:, 3], length[:, 3]), line_no, name, "relevance")
    _check_duplicates(qid, docno, line_no, name)
    return TrecQrels(_decode(qid), _decode(docno), rel, source=os.fspath(path))


def read_trec_run(path):
    r"""Read a TREC run file (``qid Q0 docno rank score tag`` per line).

    Parameters
    ----------
    path : str or os.PathLike
        The file. Fields are separated by spaces or tabs; blank lines and lines
        starting with ``#`` are skipped.

    Returns
    -------
    run : TrecRun
        Arrays ``qid``, ``docno`` (str), ``score`` (float) and ``rank`` (the
        file's rank column), in file order; ``tag`` is the first line's tag.

    Raises
    ------
    ValueError
        Naming the file and the line number: a line with fewer than 6 fields,
        a rank or score that is not a finite number, or the same document
        retrieved twice for one query.

    Notes
    -----
    The rank column is kept but not used for ranking: as in trec_eval, the
    documents are ranked by the score :math:`s(q, d)`, descending.

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
    name = f"run file {os.fspath(path)!r}" if isinstance(path, (str, os.PathLike)) else ""
    data = _read_bytes(path, "run")
    buf, start, length, line_no = _tokenize(data, 6, name, "qid Q0 docno rank score tag",
                                          allow_extra=True)
    qid = _gather(buf, start[:, 0], length[:, 0])
    docno = _gather(buf, start[:, 2], length[:, 2])
    rank = _parse_float(_gather(buf, start[:, 3], length[:, 3]), line_no, name, "rank")
    score = _parse_float(_gather(buf, start[:, 4], length[:, 4]), line_no, name, "score")
    _check_duplicates(qid, docno, line_no, name)
    tag = "run"
    if start.shape[0]:
        s, n = int(start[0, 5]), int(length[0, 5])
        tag = bytes(buf[s:s + n]).decode("utf-8", "replace")
    return TrecRun(_decode(qid), _decode(docno), score, rank=rank, tag=tag,
                   source=os.fspath(path))


def ranked_order(qid, docno, score):
    """Order of a run as trec_eval ranks it.

    By query, then score descending, then docno descending (as byte strings).
    """
    if len(qid) == 0:
        return np.zeros(0, dtype=np.int64)
    order = np.lexsort((docno, score))[::-1]
    return order[np.argsort(qid[order], kind="stable")]


def write_trec_run(path, run, *, tag=None):
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
    starts = np.flatnonzero(new)
    rank = np.arange(q.shape[0]) - np.repeat(starts, np.diff(np.append(starts, q.shape[0])))
    rank = rank + 1
    cols = [q, " Q0 ", docno[order], " ", rank.astype(str), " ",
            score[order].astype(str), " " + tag + "\n"]
    line = cols[0]
    for c in cols[1:]:
        line = np.char.add(line, c)
    with open(path, "w", encoding="utf-8", newline="\n") as fh:
        fh.write("".join(line.tolist()))
