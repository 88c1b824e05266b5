"""The file tokenizer: byte blocks, tokens, 64-bit keys, id columns."""

from __future__ import annotations

import bz2
import gzip
import lzma
import os
import sys

import numpy as np

from .._utils.hashing import GOLDEN, M1, mix
from .._utils.nonzero import flatnonzero, neighbours_differ
from .._utils.text_ids import text_of_bytes

#: Bytes read per block; a few temporaries of this size are alive at once.
BLOCK_BYTES = 1 << 19


#: Zero bytes before and after the data of a block, so that a 64-bit load
#: that ends at the first byte or starts at the last stays in the buffer.
PAD = 16

#: Readers by file name suffix (streaming decompression).
COMPRESSION = {".gz": gzip.open, ".bz2": bz2.open, ".xz": lzma.open}

_LF, _CR, _TAB, _SPACE, _HASH, _MINUS = 10, 13, 9, 32, 35, 45
_BOM = b"\xef\xbb\xbf"

#: _MASK[n] keeps the first n bytes of a little-endian 64-bit word.
_MASK = np.array([(1 << (8 * i)) - 1 for i in range(8)] + [(1 << 64) - 1], dtype=np.uint64)
#: Elements of the temporaries of one step of the long-token passes.
_STEP = 1 << 18


def compression_of(path):
    """The compression suffix of ``path`` (``".gz"``, ...) or ``""``."""
    low = os.fspath(path).lower()
    return next((s for s in COMPRESSION if low.endswith(s)), "")


def strip_compression(path):
    """``path`` as a string without its compression suffix (for format detection)."""
    text = os.fspath(path)
    suffix = compression_of(text)
    return text[: len(text) - len(suffix)] if suffix else text


#: Compressed files by their first bytes (gzip, bzip2, xz), whatever their name.
MAGIC = ((b"\x1f\x8b", ".gz"), (b"BZh", ".bz2"), (b"\xfd7zXZ\x00", ".xz"))


def sniff_compression(path):
    """The compression of ``path`` read from its first bytes (``".gz"``, ...) or ``""``."""
    try:
        with open(path, "rb") as fh:
            head = fh.read(6)
    except OSError:
        return ""
    return next((suffix for magic, suffix in MAGIC if head.startswith(magic)), "")


def open_binary(path, what):
    """Open ``path`` for reading bytes, decompressing gzip, bzip2 and xz files
    recognised by their first bytes (whatever their name)."""
    if not isinstance(path, (str, os.PathLike)):
        raise TypeError(f"{what} must be a file path (str or os.PathLike), got "
                        f"{type(path).__name__}.")
    opener = COMPRESSION.get(sniff_compression(path), open)
    try:
        return opener(path, "rb")
    except OSError as exc:
        raise ValueError(f"cannot read {what} file {os.fspath(path)!r}: "
                         f"{exc.strerror or exc}.") from None


class Block:
    """One block of a file.

    ``body`` (``n`` bytes) holds whole lines, the last ending with a newline;
    ``buf`` is ``body`` with :data:`PAD` zero bytes on each side, and
    ``U = words(buf)``, so that ``U[i + PAD]`` is the little-endian word of
    the 8 bytes of ``body`` that start at offset ``i``. ``line0`` is the
    number of the first line (set by the reader once the lines before it are
    counted).
    """

    __slots__ = ("U", "body", "buf", "line0", "n", "raw")

    def __init__(self, buf, n, line0=1, raw=None):
        self.buf, self.n, self.line0, self.raw = buf, n, line0, raw
        self.body = buf[PAD : PAD + n]
        self.U = words(buf)

    @classmethod
    def from_bytes(cls, data, line0=1):
        """A block holding ``data`` (whole lines)."""
        buf = np.zeros(len(data) + 2 * PAD, dtype=np.uint8)
        buf[PAD : PAD + len(data)] = np.frombuffer(data, dtype=np.uint8)
        return cls(buf, len(data), line0)

    def line_at(self, offset):
        """Line number of the byte at ``offset``."""
        return self.line0 + int(np.count_nonzero(self.body[:offset] == _LF))

    def text(self, start, length, limit=60):
        """A token's text (at most ``limit`` bytes), for messages."""
        return self.body[start : start + min(length, limit)].tobytes().decode("utf-8",
                                                                             "replace")


def _fill(fh, view, name):
    """Read into ``view`` until it is full or the file ends; the bytes read."""
    got = 0
    while got < len(view):
        try:
            k = fh.readinto(view[got:])
        except (OSError, EOFError, lzma.LZMAError, ValueError) as exc:
            raise ValueError(f"cannot read {name}: {exc}.") from None
        if not k:
            break
        got += k
    return got


def iter_blocks(fh, name, block_bytes=BLOCK_BYTES, progress=None, total=None, pool=None):
    """Yield the :class:`Block` objects of an open binary file.

    Each block is read straight into a buffer (``readinto``); only the
    unfinished last line is copied into the next one. A UTF-8 byte-order mark
    at the start is skipped; a UTF-16 or UTF-32 one raises. ``progress(done,
    total)`` is called after each block with the bytes read so far (of the
    compressed file, when ``total`` is its size). The blocks' ``line0`` is
    left to the caller (see :func:`check_utf8` and :func:`tokenize`).

    ``pool``, a list, holds buffers the caller is done with (``block.raw``):
    they are filled again instead of new ones, so that a file is read into
    the memory of a few blocks, not into fresh memory for every block (fresh
    memory costs a page fault per page on first use).
    """
    carry = b""
    first = True
    while True:
        nc = len(carry)
        size = max(block_bytes, nc)  # a line longer than a block: read on, doubling
        need = PAD + nc + size + PAD
        raw = None
        while pool and raw is None:
            raw = pool.pop()
            if len(raw) != need:
                raw = None
        if raw is None:
            raw = bytearray(need)
        view = memoryview(raw)
        view[PAD : PAD + nc] = carry
        got = _fill(fh, view[PAD + nc : PAD + nc + size], name)
        end = PAD + nc + got
        if first and end > PAD:
            first = False
            if raw[PAD : PAD + 3] == _BOM:
                raw[PAD : end - 3] = raw[PAD + 3 : end]
                end -= 3
                raw[end : end + 3] = b"\0\0\0"
            elif (raw[PAD : PAD + 2] in (b"\xff\xfe", b"\xfe\xff")
                  or raw[PAD : PAD + 4] == b"\x00\x00\xfe\xff"):
                raise ValueError(f"{name} is UTF-16 or UTF-32 text (it starts with that "
                                 "byte-order mark); save it as UTF-8.")
        if got == 0:
            if end > PAD:  # the last line has no newline
                raw[end] = _LF
                view[end + 1 : end + 1 + PAD] = bytes(PAD)
                yield Block(np.frombuffer(raw, dtype=np.uint8), end + 1 - PAD, raw=raw)
            return
        cut = raw.rfind(b"\n", PAD, end) + 1
        if cut == 0:
            carry = bytes(view[PAD:end])
            continue
        carry = bytes(view[cut:end])
        view[cut : cut + PAD] = bytes(PAD)  # the zero bytes after the data
        yield Block(np.frombuffer(raw, dtype=np.uint8), cut - PAD, raw=raw)
        if progress is not None and total:
            try:
                done = fh.tell() if not hasattr(fh, "fileobj") else fh.fileobj.tell()
            except (OSError, AttributeError):
                done = 0
            progress(min(done, total), total)


def check_utf8(block, name):
    """Raise, naming the line, if the block's bytes are not UTF-8 text."""
    body = block.body
    if block.n == 0 or body.max() < 128:
        return
    try:
        str(memoryview(block.buf)[PAD : PAD + block.n], "utf-8")
    except UnicodeDecodeError as exc:
        line = block.line_at(exc.start)
        data = body.tobytes()
        start = data.rfind(b"\n", 0, exc.start) + 1
        raise ValueError(
            f"{name}, line {line}: byte 0x{data[exc.start]:02x} (column "
            f"{exc.start - start + 1}) is not UTF-8 text; the file must be UTF-8 (convert "
            "it, e.g. with iconv -f latin1 -t utf-8)."
        ) from None


# -- tokens -------------------------------------------------------------------------


class Tokens:
    """The fields of the data lines of one block.

    ``start[f]`` and ``length[f]`` give field ``f`` of every data line; row
    ``i`` is line ``line0 + i`` when ``line_no`` is None (no blank or comment
    line in the block), else line ``line_no[i]``. ``n_lines`` counts every
    line of the block, blank and comment lines included.
    """

    __slots__ = ("length", "line0", "line_no", "n_bytes", "n_lines", "n_rows", "start")

    def __init__(self, start, length, line0, line_no, n_lines, n_bytes=0):
        self.start, self.length, self.line0, self.line_no = start, length, line0, line_no
        self.n_lines, self.n_bytes = n_lines, n_bytes
        self.n_rows = start[0].shape[0] if start else 0

    def line(self, row):
        return self.line0 + int(row) if self.line_no is None else int(self.line_no[row])

    def lines(self, rows):
        rows = np.asarray(rows, dtype=np.int64)
        return self.line0 + rows if self.line_no is None else self.line_no[rows]


def tokenize(block, n_fields, fields, name, layout, extra_ok=False):
    """Split a :class:`Block` into lines of ``n_fields`` fields; keep ``fields``.

    Fields are separated by spaces or tabs (a CR before the newline is a
    separator too); blank lines and lines starting with ``#`` are skipped.
    A line with a wrong number of fields or a control character raises,
    naming the line. With ``extra_ok`` a line may hold more fields (ignored).
    """
    body = block.body
    pos = flatnonzero(body <= _SPACE)
    m = pos.shape[0]
    if m and m % n_fields == 0:
        # The usual block: every line holds n_fields fields, one space or tab apart.
        n_lines = m // n_fields
        c = body[pos]
        ends = pos[n_fields - 1 :: n_fields]
        if ((c[n_fields - 1 :: n_fields] == _LF).all()
                and np.count_nonzero(c == _SPACE) + np.count_nonzero(c == _TAB) == m - n_lines):
            start, length = [], []
            for f in range(n_fields):
                if f == 0:
                    s = np.empty(n_lines, dtype=np.int64)
                    s[0] = 0
                    np.add(ends[:-1], 1, out=s[1:])
                else:
                    s = pos[f - 1 :: n_fields] + 1
                n = pos[f::n_fields] - s
                if n.min() == 0:  # an empty field: blank lines, runs of spaces, ...
                    break
                if f in fields:
                    start.append(s)
                    length.append(n)
            else:
                if body[0] != _HASH and not (body[ends[:-1] + 1] == _HASH).any():
                    order = [sorted(fields).index(f) for f in fields]
                    return Tokens([start[i] for i in order], [length[i] for i in order],
                                  block.line0, None, n_lines, block.n)
    return _tokenize_general(block, pos, n_fields, fields, name, layout, extra_ok)


def _tokenize_general(block, pos, n_fields, fields, name, layout, extra_ok):
    body = block.body
    c = body[pos]
    ctl = (c != _SPACE) & (c != _TAB) & (c != _LF) & (c != _CR)
    if ctl.any():
        at = int(pos[np.argmax(ctl)])
        start = int(flatnonzero(body[:at] == _LF)[-1]) + 1 if (body[:at] == _LF).any() \
            else 0
        raise ValueError(
            f"{name}, line {block.line_at(at)}: control character 0x{body[at]:02x} "
            f"(column {at - start + 1}); fields hold printable text separated by spaces "
            "or tabs."
        )
    sep = body <= _SPACE
    prev = np.empty_like(sep)
    prev[0] = True
    prev[1:] = sep[:-1]
    starts = flatnonzero(~sep & prev)
    nxt = np.empty_like(sep)
    nxt[-1] = True
    nxt[:-1] = sep[1:]
    ends = flatnonzero(~sep & nxt) + 1
    nl = pos[c == _LF]
    tok_line = np.searchsorted(nl, starts)  # 0-based line of each token
    n_lines = nl.shape[0]
    line_first = np.empty(n_lines, dtype=np.int64)
    line_first[:1] = 0
    line_first[1:] = nl[:-1] + 1
    comment = body[line_first] == _HASH
    if comment.any():
        keep = ~comment[tok_line]
        starts, ends, tok_line = starts[keep], ends[keep], tok_line[keep]
    counts = np.bincount(tok_line, minlength=n_lines)
    bad = (counts != 0) & ((counts < n_fields) if extra_ok else (counts != n_fields))
    if bad.any():
        line = int(np.argmax(bad))
        at_least = "at least " if extra_ok else ""
        raise ValueError(
            f"{name}, line {block.line0 + line}: expected {at_least}{n_fields} fields "
            f"({layout}), found {int(counts[line])}."
        )
    if extra_ok and (counts > n_fields).any():
        first = np.cumsum(counts) - counts
        keep = np.arange(tok_line.shape[0]) - first[tok_line] < n_fields
        starts, ends, tok_line = starts[keep], ends[keep], tok_line[keep]
    starts = starts.reshape(-1, n_fields)
    lengths = ends.reshape(-1, n_fields) - starts
    line_no = tok_line[::n_fields] + block.line0
    return Tokens([starts[:, f].copy() for f in fields],
                  [lengths[:, f].copy() for f in fields], block.line0, line_no, n_lines,
                  block.n)


# -- keys -------------------------------------------------------------------------


def words(buf):
    """Unaligned little-endian 64-bit words starting at every byte of ``buf``."""
    return np.ndarray((buf.shape[0] - 7,), dtype="<u8", buffer=buf, strides=(1,))


def hash_long(word_at, lengths):
    """Hash of tokens longer than 8 bytes; ``word_at(j)`` gives their j-th words."""
    h = mix(lengths.astype(np.uint64) * GOLDEN)
    nw = (lengths + 7) >> 3
    for j in range(int(nw.max()) if nw.size else 0):
        live = flatnonzero(nw > j) if j else slice(None)
        w = word_at(j, live)
        h[live] = mix((h[live] ^ w) * GOLDEN)
    return h


def _word_loader(U, starts, lengths):
    """``word_at(j, rows)``: the j-th word of tokens ``rows``, masked past their end
    (``U[starts[i]]`` is the first word of token ``i``)."""

    def word_at(j, rows):
        s, n = starts[rows], lengths[rows]
        w = U[np.minimum(s + 8 * j, U.shape[0] - 1)]
        return w & _MASK[np.clip(n - 8 * j, 0, 8)]

    return word_at


def token_keys(block, starts, lengths):
    """The 64-bit key of each token of a block (exact up to 8 bytes, a hash beyond)."""
    U = block.U
    at = starts + PAD
    keys = U[at]
    keys &= _MASK[np.minimum(lengths, 8)]
    long = flatnonzero(lengths > 8)
    if long.size:
        keys[long] = hash_long(_word_loader(U, at[long], lengths[long]), lengths[long])
    return keys


def gather_bytes(buf, starts, lengths):
    """The bytes of the tokens, concatenated, and their offsets (n + 1,)."""
    off = np.zeros(starts.shape[0] + 1, dtype=np.int64)
    np.cumsum(lengths, out=off[1:])
    total = int(off[-1])
    out = np.zeros(total + 8, dtype=np.uint8)
    for a in range(0, starts.shape[0], _STEP):
        b = min(a + _STEP, starts.shape[0])
        n = lengths[a:b]
        src = np.repeat(starts[a:b] - off[a:b], n) + np.arange(off[a], off[b])
        out[off[a] : off[b]] = buf[src]
    return out, off


class TokenColumn:
    """A column of ids: one 64-bit key per entry, the bytes of long ids aside.

    ``keys[i]`` is the key of entry ``i``; entries longer than 8 bytes are
    listed in ``long_rows`` (increasing), their bytes being
    ``blob[long_off[j]:long_off[j + 1]]``.
    """

    def __init__(self, keys, long_rows, long_off, blob):
        self.keys = keys
        self.long_rows = long_rows
        self.long_off = long_off
        self.blob = blob

    def __len__(self):
        return self.keys.shape[0]

    def key_of(self, rows):
        """The keys of entries ``rows``."""
        return self.keys[rows]

    @classmethod
    def concat(cls, parts, sizes=None, keys=None):
        """Join the ``(keys, long_rows, blob, offsets)`` parts of the blocks; or,
        given ``keys`` (of every entry), the ``(long_rows, blob, offsets)``
        parts of blocks of ``sizes`` entries."""
        if keys is None:
            keys = (np.concatenate([p[0] for p in parts]) if len(parts) > 1 else
                    parts[0][0] if parts else np.zeros(0, np.uint64))
            sizes = [p[0].shape[0] for p in parts]
            parts = [p[1:] for p in parts]
        if not parts:
            return cls(keys, np.zeros(0, np.int64), np.zeros(1, np.int64),
                       np.zeros(8, np.uint8))
        base = np.cumsum([0, *sizes[:-1]])
        rows = np.concatenate([p[0] + b for p, b in zip(parts, base)])
        blob_len = np.cumsum([0] + [p[2][-1] for p in parts])
        off = np.concatenate([p[2][:-1] + b for p, b in zip(parts, blob_len[:-1])]
                             + [np.array([blob_len[-1]], dtype=np.int64)])
        blob = np.zeros(int(blob_len[-1]) + 8, dtype=np.uint8)
        for p, b in zip(parts, blob_len[:-1]):
            blob[b : b + p[2][-1]] = p[1][: p[2][-1]]
        return cls(keys, rows.astype(np.int64), off.astype(np.int64), blob)

    @classmethod
    def from_block(cls, block, starts, lengths):
        """The part of one block: keys, long rows, their bytes and offsets."""
        return (token_keys(block, starts, lengths), *_long_part(block, starts, lengths))

    @classmethod
    def of_strings(cls, values):
        """The column a file reader makes of the ids ``values`` (a text
        array), keys and long ids alike: their UTF-8 bytes laid end to end
        in one block. None when an id holds a NUL character (no file id
        does, and the keys pad with zero bytes)."""
        values = np.asarray(values, dtype=str)
        n = values.shape[0]
        chars = values.view(np.uint32).reshape(n, values.dtype.itemsize // 4)
        if n and np.count_nonzero(chars, axis=1).sum() != np.char.str_len(values).sum():
            return None
        # (NumPy before 2.0 encodes no strings as an array of floats.)
        data = np.char.encode(values, "utf-8") if n else np.zeros(0, dtype="S1")
        lengths = np.char.str_len(data).astype(np.int64)
        raw = data.view(np.uint8).reshape(n, data.dtype.itemsize)
        starts = np.cumsum(lengths) - lengths
        block = Block.from_bytes(raw[np.arange(raw.shape[1]) < lengths[:, None]].tobytes())
        return cls.concat([cls.from_block(block, starts, lengths)])

    # -- access ---------------------------------------------------------------

    def _long_index(self, rows):
        """Position of each of ``rows`` among the long entries, -1 if short."""
        if self.long_rows.size == 0:
            return np.full(np.shape(rows), -1, dtype=np.int64)
        p = np.minimum(np.searchsorted(self.long_rows, rows), self.long_rows.size - 1)
        return np.where(self.long_rows[p] == rows, p, -1)

    def lengths(self, rows):
        rows = np.asarray(rows, dtype=np.int64)
        k = self.keys[rows]
        n = np.count_nonzero(k.view(np.uint8).reshape(-1, 8), axis=1).astype(np.int64)
        li = self._long_index(rows)
        is_long = li >= 0
        n[is_long] = np.diff(self.long_off)[li[is_long]]
        return n

    def word(self, rows, j, li=None):
        """The j-th little-endian word of entries ``rows`` (0 past their end)."""
        rows = np.asarray(rows, dtype=np.int64)
        li = self._long_index(rows) if li is None else li
        out = self.keys[rows] if j == 0 else np.zeros(rows.shape[0], dtype=np.uint64)
        is_long = flatnonzero(li >= 0)
        if is_long.size:
            s = self.long_off[li[is_long]]
            n = self.long_off[li[is_long] + 1] - s
            U = words(self.blob)
            w = U[np.minimum(s + 8 * j, U.shape[0] - 1)] & _MASK[np.clip(n - 8 * j, 0, 8)]
            out[is_long] = w
        return out

    def same(self, rows, other, other_rows):
        """Whether entry ``rows[i]`` equals entry ``other_rows[i]`` of ``other``, byte for byte."""
        rows = np.asarray(rows, dtype=np.int64)
        other_rows = np.asarray(other_rows, dtype=np.int64)
        eq = self.key_of(rows) == other.key_of(other_rows)
        la, lb = self._long_index(rows), other._long_index(other_rows)
        eq &= (la >= 0) == (lb >= 0)
        check = flatnonzero(eq & (la >= 0))
        if check.size:
            na = np.diff(self.long_off)[la[check]]
            nb = np.diff(other.long_off)[lb[check]]
            ok = na == nb
            for j in range(int(na.max() + 7) // 8):
                live = flatnonzero(ok & (na > 8 * j))
                if not live.size:
                    break
                ok[live] &= (self.word(rows[check[live]], j, la[check[live]])
                             == other.word(other_rows[check[live]], j, lb[check[live]]))
            eq[check] = ok
        return eq

    def bytes_of(self, row):
        """The bytes of one entry."""
        li = int(self._long_index(np.array([row]))[0])
        if li >= 0:
            return self.blob[self.long_off[li] : self.long_off[li + 1]].tobytes()
        return self.keys[row : row + 1].astype("<u8").tobytes().rstrip(b"\0")

    def text(self, row):
        return self.bytes_of(row).decode("utf-8", "replace")

    def to_strings(self, rows=None):
        """The entries as a str array (object dtype when some are long)."""
        rows = np.arange(len(self)) if rows is None else np.asarray(rows, dtype=np.int64)
        if self.long_rows.size == 0 and sys.byteorder == "little":
            # Short ids only: ASCII ones are their keys' bytes widened into
            # characters, as many as the longest id has.
            keys = np.ascontiguousarray(self.keys[rows])
            seen = int(np.bitwise_or.reduce(keys)) if keys.size else 0
            if not seen & 0x8080808080808080:
                return text_of_bytes(keys.view(np.uint8).reshape(-1, 8),
                                     (seen.bit_length() + 7) // 8)
        li = self._long_index(rows)
        short = np.ascontiguousarray(self.keys[rows]).astype("<u8").view("S8")
        lens = np.diff(self.long_off)
        width = int(lens.max()) if lens.size else 0
        if (li >= 0).any() and width > 64:
            out = short.astype(object)
            for i in flatnonzero(li >= 0).tolist():
                a, b = self.long_off[li[i]], self.long_off[li[i] + 1]
                out[i] = self.blob[a:b].tobytes()
            return np.array([b.decode("utf-8") for b in out.tolist()], dtype=object)
        out = short.astype(f"S{max(width, 8)}")
        idx = flatnonzero(li >= 0)
        if idx.size:
            s = self.long_off[li[idx]]
            n = self.long_off[li[idx] + 1] - s
            mat = np.zeros((idx.size, width), dtype=np.uint8)
            cols = np.arange(width)
            take = cols < n[:, None]
            mat[take] = self.blob[(s[:, None] + cols)[take]]
            out[idx] = mat.view(f"S{width}").reshape(-1)
        return _decode(out)

    def lex_rank(self, rows):
        """Ranks of entries ``rows`` in byte order (equal entries share a rank).

        Entries are sorted by their first 8 bytes, then the entries still tied
        with another by the next 8, and so on: the work is bounded by the
        bytes of the entries, whatever the longest.
        """
        rows = np.asarray(rows, dtype=np.int64)
        n = rows.shape[0]
        rank = np.zeros(n, dtype=np.int64)  # first sorted position of each entry's group
        if n == 0:
            return rank
        li = self._long_index(rows)
        # The first word orders every entry (equal words share a rank: the
        # first sorted position of their group). A merge sort: ids often come
        # in ordered runs, which it merges where a quicksort starts over.
        w = self.word(rows, 0, li)  # a copy (rows index the keys)
        w.byteswap(inplace=True)  # big-endian: byte order
        a = np.argsort(w, kind="stable")
        sub = np.empty(n, dtype=bool)
        sub[0] = True
        ws = w[a]
        del w
        neighbours_differ(ws, sub[1:])
        del ws
        rank[a] = flatnonzero(sub)[np.cumsum(sub) - 1]
        is_long = li >= 0
        if not is_long.any():
            return rank  # short entries: their bytes are all in the first word
        # Only long entries run past the first word (a short one holds at most
        # 8 bytes): their lengths, 0 for the others (counting the bytes of the
        # short keys cost a reduction per entry).
        nbytes = np.zeros(n, dtype=np.int64)
        nbytes[is_long] = np.diff(self.long_off)[li[is_long]]
        j = 1
        while True:
            if not (nbytes[a] > 8 * j).any():
                break  # no entry has bytes beyond those read
            # Go on with the groups of two or more whose bytes go beyond 8 * j.
            ra = rank[a]
            start = np.ones(a.shape[0], dtype=bool)
            start[1:] = ra[1:] != ra[:-1]
            g = np.cumsum(start) - 1
            size = np.bincount(g)
            longer = np.bincount(g, weights=(nbytes[a] > 8 * j).astype(np.float64))
            active = a[((size > 1) & (longer > 0))[g]]
            if not active.size:
                break
            w = self.word(rows[active], j, li[active]).byteswap()
            o = np.lexsort((w, rank[active]))
            a, ws, ra = active[o], w[o], rank[active[o]]
            sub = np.ones(a.shape[0], dtype=bool)
            sub[1:] = (ra[1:] != ra[:-1]) | (ws[1:] != ws[:-1])
            first = (ra + _offset_in_group(ra))[flatnonzero(sub)]
            rank[a] = first[np.cumsum(sub) - 1]
            j += 1
        return rank


class CollapsedColumn:
    """A column of ids stored once per run of equal neighbours (query ids).

    The ids of a TREC file's query column come in long runs (one per query,
    or a few when a query's lines are split across blocks). ``heads`` is a
    :class:`TokenColumn` of the id of each run, ``starts[j]`` the first row
    of run ``j``, and ``lens[j]`` its length; rows are looked up in their run.
    Neighbours are put in one run only when their bytes are equal.
    """

    def __init__(self, heads, starts, lens):
        self.heads, self.starts, self.lens = heads, starts, lens
        self.n = int(lens.sum())
        self._keys = None

    def __len__(self):
        return self.n

    @classmethod
    def concat(cls, parts):
        """Join the ``(head part, local starts, n rows)`` parts of the blocks."""
        heads = TokenColumn.concat([p[0] for p in parts])
        if not parts:
            return cls(heads, np.zeros(0, np.int64), np.zeros(0, np.int64))
        base = np.cumsum([0] + [p[2] for p in parts])
        starts = np.concatenate([p[1] + b for p, b in zip(parts, base[:-1])])
        lens = np.diff(np.append(starts, base[-1]))
        return cls(heads, starts, lens)

    @classmethod
    def from_block(cls, block, starts, lengths):
        """The part of one block: its runs of byte-equal ids ``(head part, run
        starts, n rows)``, and the key of every row."""
        keys = token_keys(block, starts, lengths)
        same = keys[1:] == keys[:-1]
        check = flatnonzero(same & (lengths[1:] > 8))
        if check.size:  # hashed keys: equal bytes, or a new run
            same[check] = _equal_tokens(block, starts[check], lengths[check],
                                        starts[check + 1], lengths[check + 1])
        first = flatnonzero(~same) + 1
        run = np.empty(first.shape[0] + 1, dtype=np.int64)
        run[0] = 0
        run[1:] = first
        head = (keys[run], *_long_part(block, starts[run], lengths[run]))
        return head, run, starts.shape[0], keys

    @property
    def keys(self):
        """The key of every row (made on first use)."""
        if self._keys is None:
            self._keys = np.repeat(self.heads.keys, self.lens)
        return self._keys

    @property
    def long_rows(self):
        return self.starts[self.heads.long_rows]

    def run_of(self, rows):
        """The run of each of ``rows``."""
        return np.searchsorted(self.starts, rows, side="right") - 1

    def keys_between(self, a, b):
        """The keys of rows ``a:b`` (made from the runs, without the whole column)."""
        if b <= a:
            return np.zeros(0, dtype=np.uint64)
        r0, r1 = (int(x) for x in self.run_of(np.array([a, b - 1])))
        lens = self.lens[r0 : r1 + 1].copy()
        lens[0] -= a - int(self.starts[r0])
        lens[-1] = b - max(a, int(self.starts[r1]))
        return np.repeat(self.heads.keys[r0 : r1 + 1], lens)

    def key_of(self, rows):
        return self.heads.keys[self.run_of(rows)]

    def _long_index(self, rows):
        return self.heads._long_index(self.run_of(rows))

    @property
    def long_off(self):
        return self.heads.long_off

    def lengths(self, rows):
        return self.heads.lengths(self.run_of(np.asarray(rows, dtype=np.int64)))

    def word(self, rows, j, li=None):
        return self.heads.word(self.run_of(np.asarray(rows, dtype=np.int64)), j, li)

    def same(self, rows, other, other_rows):
        return self.heads.same(self.run_of(np.asarray(rows, dtype=np.int64)), other,
                               other_rows)

    def bytes_of(self, row):
        return self.heads.bytes_of(int(self.run_of(np.array([row]))[0]))

    def text(self, row):
        return self.bytes_of(row).decode("utf-8", "replace")

    def to_strings(self, rows=None):
        if rows is None:
            return np.repeat(self.heads.to_strings(), self.lens)
        return self.heads.to_strings(self.run_of(np.asarray(rows, dtype=np.int64)))

    def lex_rank(self, rows):
        return self.heads.lex_rank(self.run_of(np.asarray(rows, dtype=np.int64)))


def _long_part(block, starts, lengths):
    """Rows of the tokens longer than 8 bytes, their bytes and offsets."""
    long = flatnonzero(lengths > 8)
    blob, off = gather_bytes(block.body, starts[long], lengths[long])
    return long, blob, off


def _equal_tokens(block, s1, n1, s2, n2):
    """Whether tokens (s1, n1) and (s2, n2) of a block hold the same bytes."""
    U = block.U
    eq = n1 == n2
    for j in range(int(n1.max() + 7) // 8 if n1.size else 0):
        live = flatnonzero(eq & (n1 > 8 * j))
        if not live.size:
            break
        mask = _MASK[np.clip(n1[live] - 8 * j, 0, 8)]
        eq[live] = (U[s1[live] + PAD + 8 * j] & mask) == (U[s2[live] + PAD + 8 * j] & mask)
    return eq


def pair_hash(qkeys, dkeys):
    """One 64-bit hash per (query key, document key) pair; equal pairs, equal hashes."""
    h = qkeys * M1
    h ^= dkeys
    return mix(h, inplace=True)


#: Lines per chunk of the passes over pair hashes (bounded temporaries).
PAIR_STEP = 1 << 16


def pair_hashes(cols, a, b):
    """The pair hashes of lines ``a:b`` of a file's ``{"qid", "docno"}`` columns."""
    return pair_hash(cols["qid"].keys_between(a, b), cols["docno"].keys[a:b])


def _offset_in_group(ra):
    """Index of each entry within its run of equal values (``ra`` sorted)."""
    n = ra.shape[0]
    new = np.ones(n, dtype=bool)
    new[1:] = ra[1:] != ra[:-1]
    first = flatnonzero(new)
    return np.arange(n) - np.repeat(first, np.diff(np.append(first, n)))


def _decode(b):
    """Byte strings -> str array (UTF-8)."""
    if b.size == 0:
        return np.zeros(0, dtype="U1")
    raw = b.view(np.uint8)
    if raw.max() < 128:
        return b.astype(f"U{b.dtype.itemsize}")
    return np.char.decode(b, "utf-8")
