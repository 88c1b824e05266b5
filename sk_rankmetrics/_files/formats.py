"""One choice of reader for qrels and run files, for Python and the command line.

:func:`detect_format` decides how a file is read: the format asked for, else
its extension (after ``.gz``, ``.bz2`` or ``.xz``), else its content (Parquet's
magic bytes, a JSON object, a header line naming the columns of a CSV or TSV
file, otherwise TREC's whitespace-separated columns); compressed files are
recognised by their first bytes whatever their name. :func:`read_qrels` and
:func:`read_run` read with that choice; :func:`~sk_rankmetrics.evaluate_run`
(and its Dask path), ``evaluate_ranked`` with a path and every command read
files through them, so a path means the same everywhere.
"""

from __future__ import annotations

import json
import os
from itertools import chain, repeat
from typing import TYPE_CHECKING

import numpy as np

from .._utils.errors import shown
from .._utils.nonzero import flatnonzero
from .._utils.params import validate
from .._utils.text_ids import ordered_codes
from .._utils.types import FileFormat, PathLike, Progress
from .tokens import open_binary, sniff_compression, strip_compression

if TYPE_CHECKING:
    from .trec import TrecQrels, TrecRun

#: The formats a qrels or run file may have; ``"auto"`` detects it.
FORMATS = ("auto", "trec", "csv", "tsv", "parquet", "json")
_EXTENSIONS = ((".csv", "csv"), (".tsv", "tsv"), (".parquet", "parquet"), (".pq", "parquet"),
               (".json", "json"), (".txt", "trec"), (".trec", "trec"), (".qrels", "trec"),
               (".run", "trec"), (".res", "trec"))
#: A header naming a query column and an item column (the names the frame readers
#: look for) marks a CSV or TSV file.
_QUERY_NAMES = {"query", "qid", "query_id", "user", "user_id", "topic"}
_ITEM_NAMES = {"item", "docno", "doc_id", "docid", "item_id", "document", "doc"}
_SNIFF_BYTES = 1 << 16


def _head(path):
    """The first bytes of ``path``, decompressed."""
    with open_binary(path, "input") as fh:
        return fh.read(_SNIFF_BYTES)


def _sniff(path):
    """The format of a file from its content."""
    with open(path, "rb") as fh:
        raw = fh.read(4)
    if raw == b"PAR1":
        return "parquet"
    text = _head(path).lstrip(b"\xef\xbb\xbf").lstrip()
    if text.startswith(b"{"):
        return "json"
    for line in text.splitlines():
        if not line.strip() or line.lstrip().startswith(b"#"):
            continue
        for sep, fmt in ((b"\t", "tsv"), (b",", "csv")):
            fields = {f.strip().strip(b"\"'").lower().decode("utf-8", "replace")
                      for f in line.split(sep)}
            if fields & _QUERY_NAMES and fields & _ITEM_NAMES:
                return fmt
        if b"," in line and len(line.split()) == 1 and len(line.split(b",")) >= 3:
            return "csv"
        break
    return "trec"


def detect_format(path, format="auto"):
    """``(format, how)``: how ``path`` is read, and why (for messages).

    ``format`` other than ``"auto"`` is taken as given; otherwise the extension
    decides (``.csv``, ``.tsv``, ``.parquet``/``.pq``, ``.json``; ``.txt``,
    ``.trec``, ``.qrels``, ``.run``, ``.res``: TREC), after a compression suffix;
    a file with another extension is read by its content.
    """
    if format not in FORMATS:
        raise ValueError(f"format={format!r} is not known; choose one of "
                         f"{', '.join(FORMATS)}.")
    if format != "auto":
        return format, f"format={format!r}"
    low = strip_compression(path).lower()
    for ext, name in _EXTENSIONS:
        if low.endswith(ext):
            return name, f"its extension {ext}"
    if not os.path.isfile(path):
        return "trec", "the default"
    return _sniff(path), "its content"


def _pandas(what):
    try:
        import pandas as pd
    except ImportError:
        raise ImportError(f"reading {what} needs pandas; install it (pip install pandas) "
                          "or use TREC files.") from None
    return pd


def _read_frame(path, fmt):
    pd = _pandas(f"{fmt} files")
    if fmt == "parquet":
        return pd.read_parquet(path)
    compression = {"": None, ".gz": "gzip", ".bz2": "bz2", ".xz": "xz"}[
        sniff_compression(path)]
    # Ids stay text ("007" is not 7).
    try:
        return pd.read_csv(path, sep="\t" if fmt == "tsv" else ",", dtype=str,
                           keep_default_na=False, encoding="utf-8-sig",
                           compression=compression)
    except UnicodeDecodeError as exc:
        raise ValueError(f"not UTF-8 text ({exc.reason} at byte {exc.start})") from None


def _once(pairs):
    """A JSON object as a dict; a key given twice is an error (``json`` keeps
    the last silently)."""
    out = dict(pairs)
    if len(out) < len(pairs):
        seen = set()
        twice = next(k for k, _ in pairs if k in seen or seen.add(k))
        raise ValueError(f"an object gives the key {twice!r} twice (a query twice, or a "
                         "document twice for one query); give each once")
    return out


def _pair_codes(ids):
    ids = np.asarray(ids)
    if ids.dtype.kind == "O":
        return np.unique(ids, return_inverse=True)[1].reshape(-1)
    return ordered_codes(ids)


def _repeated_pair(qid, docno):
    """``(i, j)``, ``i < j``: the first rows that give one (query, document)
    pair twice (``j`` the least such), or None."""
    if len(qid) < 2:
        return None
    try:
        qc, dc = _pair_codes(qid), _pair_codes(docno)
    except TypeError:  # ids of mixed types: checked when the pairs are matched
        return None
    order = np.lexsort((dc, qc))  # stable: the earlier row of a pair first
    qs, ds = qc[order], dc[order]
    same = flatnonzero((qs[1:] == qs[:-1]) & (ds[1:] == ds[:-1]))
    if same.size == 0:
        return None
    second = order[same + 1]
    k = int(np.argmin(second))
    return int(order[same[k]]), int(second[k])


def _no_repeated_pair(obj, fmt, kind):
    """Raise when a qrels or run read from a CSV, TSV or Parquet file gives a
    (query, document) pair twice, naming its lines (rows in Parquet)."""
    found = _repeated_pair(obj.qid, obj.docno)
    if found is None:
        return
    i, j = found
    if fmt == "parquet":
        at, first = f"row {j + 1}", f"row {i + 1}"
    else:  # the header is line 1
        at, first = f"line {j + 2}", f"line {i + 2}"
    advice = ("a run ranks each document at most once per query; keep one row of each, "
              "or pass duplicates='first' to keep the first in ranked order"
              if kind == "run" else "judge each (query, document) pair once")
    raise ValueError(f"{at}: duplicate document {shown(obj.docno[j])!r} for query "
                     f"{shown(obj.qid[j])!r} (first on {first}); {advice}")


def _read_json(path, kind):
    """ranx-style JSON: {query: {doc: relevance or score}}."""
    from .trec import TrecQrels, TrecRun

    try:
        with open_binary(path, kind) as fh:
            data = json.loads(fh.read().decode("utf-8-sig"), object_pairs_hook=_once)
    except UnicodeDecodeError as exc:
        raise ValueError(f"not UTF-8 text ({exc.reason} at byte {exc.start})") from None
    except json.JSONDecodeError as exc:
        raise ValueError(f"not valid JSON ({exc.msg}, line {exc.lineno})") from None
    if not isinstance(data, dict) or not all(map(isinstance, data.values(), repeat(dict))):
        raise ValueError(f"JSON {kind} must map each query to an object {{doc: value}}")
    lens = np.fromiter(map(len, data.values()), dtype=np.int64, count=len(data))
    q = np.repeat(np.array(list(data.keys()), dtype=str), lens)
    docs = np.array(list(chain.from_iterable(data.values())), dtype=str)
    try:
        vals = np.fromiter(chain.from_iterable(map(dict.values, data.values())), dtype=float,
                           count=int(lens.sum()))
    except (TypeError, ValueError, OverflowError):
        raise ValueError(f"JSON {kind} values must be numbers within float range") from None
    if not np.isfinite(vals).all():
        raise ValueError(f"JSON {kind} values must be finite numbers, got "
                         f"{vals[~np.isfinite(vals)][0]}")
    if (q == "").any() or (docs == "").any():
        raise ValueError(f"JSON {kind} has an empty query or document id")
    if kind == "qrels":
        return TrecQrels(q, docs, vals, source=os.fspath(path))
    return TrecRun(q, docs, vals, tag=os.path.basename(path), source=os.fspath(path))


def _read(path, kind, format, progress, hint):
    from .frames import qrels_from_frame, run_from_frame
    from .trec import read_trec_qrels, read_trec_run

    if not isinstance(path, (str, os.PathLike)):
        raise TypeError(f"the {kind} must be a file path (str or os.PathLike), got "
                        f"{type(path).__name__}.")
    fmt, how = detect_format(path, format)
    if not os.path.exists(path):
        raise ValueError(f"cannot read {kind} file {os.fspath(path)!r}: No such file or "
                         "directory.")
    try:
        if fmt == "trec":
            reader = read_trec_qrels if kind == "qrels" else read_trec_run
            return reader(path, progress=progress)
        if fmt == "json":
            return _read_json(path, kind)
        frame = _read_frame(path, fmt)
        obj = (qrels_from_frame(frame) if kind == "qrels"
               else run_from_frame(frame, tag=os.path.basename(path)))
        obj.source = os.fspath(path)
        _no_repeated_pair(obj, fmt, kind)
        return obj
    except (ValueError, OSError) as exc:
        message = " ".join(str(exc).split()).rstrip(".")
        if fmt == "trec" and message.startswith(f"{kind} file"):
            where = message
        else:
            sep = ", " if message.startswith(("line ", "row ")) else ": "
            where = f"{kind} file {os.fspath(path)!r}{sep}{message}"
        others = ", ".join(f for f in FORMATS if f not in ("auto", fmt))
        raise ValueError(f"{where} (read as {fmt}, chosen by {how}; if it is another "
                         f"format, name it with {hint}, one of {others}).") from None


#: Docstring blocks the two readers share (filled below their definitions).
_READER_DOCS = {
    "path": """path : str or os.PathLike
        The file; gzip, bzip2 and xz files are decompressed whatever their
        name.""",
    "progress": """progress : callable, optional
        ``progress(done, total)`` while a TREC file is read.""",
    "reading": """Raises
    ------
    ValueError
        An unreadable file: the message names the format it was read as, why,
        and how to choose another.

    Notes
    -----
    The format is the one named, else the extension's, else the content's:
    the first :math:`2^{16}` bytes, decompressed. Reading costs :math:`O(n)`
    in the :math:`n` bytes of the file (TREC files are read in blocks, on
    several threads when large).""",
}


@validate
def read_qrels(path: PathLike, *, format: FileFormat = "auto",
               progress: Progress | None = None) -> TrecQrels:
    """Read a qrels file in any supported format.

    Parameters
    ----------
    %(path)s
    format : {"auto", "trec", "csv", "tsv", "parquet", "json"}, default="auto"
        ``"auto"``: by the extension (``.csv``, ``.tsv``, ``.parquet``,
        ``.json``; ``.txt``, ``.qrels``: TREC), else by the content.
    %(progress)s

    Returns
    -------
    qrels : TrecQrels
        The judgements (CSV, TSV and Parquet columns are found as in
        :func:`qrels_from_frame`; JSON maps each query to ``{doc: level}``).

    %(reading)s

    Examples
    --------
    >>> import os, tempfile
    >>> from sk_rankmetrics import read_qrels
    >>> path = os.path.join(tempfile.mkdtemp(), "qrels.csv")
    >>> with open(path, "w") as fh:
    ...     _ = fh.write("qid,docno,rel\\nq1,a,1\\nq1,b,0\\n")
    >>> read_qrels(path)
    TrecQrels(2 judgements, 1 queries)
    """
    return _read(path, "qrels", format, progress, "format=... (qrels_format=... in "
                 "evaluate_run and evaluate_ranked)")


@validate
def read_run(path: PathLike, *, format: FileFormat = "auto",
             progress: Progress | None = None) -> TrecRun:
    """Read a run file in any supported format.

    Parameters
    ----------
    %(path)s
    format : {"auto", "trec", "csv", "tsv", "parquet", "json"}, default="auto"
        ``"auto"``: by the extension (``.csv``, ``.tsv``, ``.parquet``,
        ``.json``; ``.txt``, ``.run``: TREC), else by the content.
    %(progress)s

    Returns
    -------
    run : TrecRun
        The ranking (columns found as in :func:`run_from_frame`; the tag of a
        file that has none is its name).

    %(reading)s

    Examples
    --------
    >>> import os, tempfile
    >>> from sk_rankmetrics import read_run
    >>> path = os.path.join(tempfile.mkdtemp(), "run.tsv")
    >>> with open(path, "w") as fh:
    ...     _ = fh.write("qid\\tdocno\\tscore\\nq1\\ta\\t0.5\\n")
    >>> read_run(path)
    TrecRun(1 documents, 1 queries, tag='run.tsv')
    """
    return _read(path, "run", format, progress, "format=... (run_format=... in "
                 "evaluate_run and evaluate_ranked)")


for _reader in (read_qrels, read_run):
    _reader.__doc__ = str(_reader.__doc__) % _READER_DOCS
del _reader
