"""Byte-level machinery of the file readers: blocks, tokens, keys and numbers.

A file is read in blocks of a few MiB that end at a newline (a line is never
split across blocks); compressed files (``.gz``, ``.bz2``, ``.xz``) are
decompressed on the fly. Each block is split into tokens with NumPy array
operations: one comparison finds the separator bytes, and a block whose
lines all hold the expected number of single-space or tab separated fields
(the usual case) needs nothing more. Other blocks (blank lines, comments,
CRLF, runs of spaces, extra fields) take a general path.

Every token becomes a 64-bit key: its own bytes when it has at most 8 (an
exact key, since a token holds no NUL byte), otherwise a hash of its 8-byte
words. Tokens are matched by key and every match that involves a hashed
token is verified byte for byte, so a hash collision can never merge two
ids. The bytes of tokens longer than 8 are kept in a side store; memory is
bounded by the block size plus a few arrays with one entry per line, and
never grows with the longest token.
"""

from __future__ import annotations

import bz2
import gzip
import lzma
import os

import numpy as np

#: Bytes read per block; a few temporaries of this size are alive at once.
BLOCK_BYTES = 1 << 22

#: Threads that split blocks (NumPy releases the GIL in most of the work).
READ_THREADS = max(1, min(2, os.cpu_count() or 1))

#: Readers by file name suffix (streaming decompression).
COMPRESSION = {".gz": gzip.open, ".bz2": bz2.open, ".xz": lzma.open}

_LF, _CR, _TAB, _SPACE, _HASH = 10, 13, 9, 32, 35
_BOM = b"\xef\xbb\xbf"

#: _MASK[n] keeps the first n bytes of a little-endian 64-bit word.
_MASK = np.array([(1 << (8 * i)) - 1 for i in range(8)] + [(1 << 64) - 1], dtype=np.uint64)
_K0 = np.uint64(0x9E3779B97F4A7C15)
_K1 = np.uint64(0xBF58476D1CE4E5B9)
_K2 = np.uint64(0x94D049BB133111EB)
_S31, _S27, _S30 = np.uint64(31), np.uint64(27), np.uint64(30)
#: Elements of the temporaries of one step of the long-token passes.
_STEP = 1 << 18


def bounded_map(fn, items, n_threads):
    """``map(fn, items)`` in order, on ``n_threads`` threads, few items in flight."""
    if n_threads <= 1:
        yield from map(fn, items)
        return
    from collections import deque
    from concurrent.futures import ThreadPoolExecutor

    window = deque()
    with ThreadPoolExecutor(max_workers=n_threads) as pool:
        for item in items:
            window.append(pool.submit(fn, item))
            if len(window) >= 2 * n_threads:
                yield window.popleft().result()
        while window:
            yield window.popleft().result()


def compression_of(path):
    """The compression suffix of ``path`` (``".gz"``, ...) or ``""``."""
    low = os.fspath(path).lower()
    return next((s for s in COMPRESSION if low.endswith(s)), "")


def strip_compression(path):
    """``path`` as a string without its compression suffix (for format detection)."""
    text = os.fspath(path)
    suffix = compression_of(text)
    return text[: len(text) - len(suffix)] if suffix else text


def open_binary(path, what):
    """Open ``path`` for reading bytes, decompressing by suffix."""
    if not isinstance(path, (str, os.PathLike)):
        raise TypeError(f"{what} must be a file path (str or os.PathLike), got "
                        f"{type(path).__name__}.")
    opener = COMPRESSION.get(compression_of(path), open)
    try:
        return opener(path, "rb")
    except OSError as exc:
        raise ValueError(f"cannot read {what} file {os.fspath(path)!r}: "
                         f"{exc.strerror or exc}.") from None


class Block:
    """One block of a file: ``buf[:n]`` holds whole lines (the last ends with a
    newline), followed by 8 zero bytes so that 64-bit loads never run past it;
    ``line0`` is the number of its first line."""

    __slots__ = ("buf", "line0", "n", "n_lf")

    def __init__(self, data, n, line0):
        buf = np.empty(n + 8, dtype=np.uint8)
        buf[:n] = np.frombuffer(data, dtype=np.uint8, count=n)
        buf[n:] = 0
        self.buf, self.n, self.line0 = buf, n, line0
        self.n_lf = int(np.count_nonzero(buf[:n] == _LF))

    def line_at(self, offset):
        """Line number of the byte at ``offset``."""
        return self.line0 + int(np.count_nonzero(self.buf[:offset] == _LF))


def _read(fh, size, name):
    try:
        return fh.read(size)
    except (OSError, EOFError, lzma.LZMAError, ValueError) as exc:
        raise ValueError(f"cannot read {name}: {exc}.") from None


def iter_blocks(fh, name, block_bytes=BLOCK_BYTES, progress=None, total=None):
    """Yield the :class:`Block` objects of an open binary file.

    A UTF-8 byte-order mark at the start is skipped; a UTF-16 or UTF-32 one
    raises, as does any byte sequence that is not UTF-8 (naming the line).
    ``progress(done, total)`` is called after each block with the bytes read
    so far (of the compressed file, when ``total`` is its size).
    """
    carry = b""
    line0 = 1
    first = True
    while True:
        chunk = _read(fh, block_bytes, name)
        data = carry + chunk if carry else chunk
        if first and data:
            if data[:3] == _BOM:
                data = data[3:]
            elif data[:2] in (b"\xff\xfe", b"\xfe\xff") or data[:4] == b"\x00\x00\xfe\xff":
                raise ValueError(f"{name} is UTF-16 or UTF-32 text (it starts with that "
                                 "byte-order mark); save it as UTF-8.")
            first = False
        if not chunk:
            if data:
                data += b"\n"
                block = Block(data, len(data), line0)
                _check_utf8(block, data, name)
                yield block
            return
        cut = data.rfind(b"\n") + 1
        if cut == 0:  # one line longer than a block: read on
            carry = data
            continue
        block = Block(data, cut, line0)
        _check_utf8(block, data, name)
        yield block
        line0 += block.n_lf
        carry = data[cut:]
        if progress is not None and total:
            try:
                done = fh.tell() if not hasattr(fh, "fileobj") else fh.fileobj.tell()
            except (OSError, AttributeError):
                done = 0
            progress(min(done, total), total)


def _check_utf8(block, data, name):
    body = block.buf[: block.n]
    if block.n == 0 or body.max() < 128:
        return
    try:
        str(memoryview(data)[: block.n], "utf-8")
    except UnicodeDecodeError as exc:
        line = block.line_at(exc.start)
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
    line in the block), else line ``line_no[i]``.
    """

    __slots__ = ("length", "line0", "line_no", "n_rows", "start")

    def __init__(self, start, length, line0, line_no):
        self.start, self.length, self.line0, self.line_no = start, length, line0, line_no
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
    body = block.buf[: block.n]
    sep = body <= _SPACE
    pos = np.flatnonzero(sep)
    m = pos.shape[0]
    if m and m % n_fields == 0:
        c = body[pos]
        ends = pos[n_fields - 1 :: n_fields]
        n_lines = ends.shape[0]
        if (block.n_lf == n_lines and bool((c[n_fields - 1 :: n_fields] == _LF).all())
                and np.count_nonzero(c == _SPACE) + np.count_nonzero(c == _TAB)
                == m - n_lines and pos[0] > 0 and not (sep[1:] & sep[:-1]).any()):
            first = np.empty(n_lines, dtype=np.int64)
            first[0] = 0
            first[1:] = ends[:-1] + 1
            if not (body[first] == _HASH).any():
                start, length = [], []
                for f in fields:
                    s = first if f == 0 else pos[f - 1 :: n_fields] + 1
                    start.append(s)
                    length.append(pos[f::n_fields] - s)
                return Tokens(start, length, block.line0, None)
    return _tokenize_general(block, pos, n_fields, fields, name, layout, extra_ok)


def _tokenize_general(block, pos, n_fields, fields, name, layout, extra_ok):
    body = block.buf[: block.n]
    c = body[pos]
    ctl = (c != _SPACE) & (c != _TAB) & (c != _LF) & (c != _CR)
    if ctl.any():
        at = int(pos[np.argmax(ctl)])
        start = int(np.flatnonzero(body[:at] == _LF)[-1]) + 1 if (body[:at] == _LF).any() \
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
    starts = np.flatnonzero(~sep & prev)
    nxt = np.empty_like(sep)
    nxt[-1] = True
    nxt[:-1] = sep[1:]
    ends = np.flatnonzero(~sep & nxt) + 1
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
                  [lengths[:, f].copy() for f in fields], block.line0, line_no)


# -- keys -------------------------------------------------------------------------


def words(buf):
    """Unaligned little-endian 64-bit words starting at every byte of ``buf``."""
    return np.ndarray((buf.shape[0] - 7,), dtype="<u8", buffer=buf, strides=(1,))


def _mix(h, inplace=False):
    """A 64-bit finaliser (every input bit affects every output bit)."""
    if not inplace:
        h = h.copy()
    h ^= h >> _S30
    h *= _K1
    h ^= h >> _S27
    h *= _K2
    h ^= h >> _S31
    return h


def hash_long(word_at, lengths):
    """Hash of tokens longer than 8 bytes; ``word_at(j)`` gives their j-th words."""
    h = _mix(lengths.astype(np.uint64) * _K0)
    nw = (lengths + 7) >> 3
    for j in range(int(nw.max()) if nw.size else 0):
        live = np.flatnonzero(nw > j) if j else slice(None)
        w = word_at(j, live)
        h[live] = _mix((h[live] ^ w) * _K0)
    return h


def _word_loader(U, starts, lengths):
    """``word_at(j, rows)``: the j-th word of tokens ``rows``, masked past their end."""

    def word_at(j, rows):
        s, n = starts[rows], lengths[rows]
        w = U[np.minimum(s + 8 * j, U.shape[0] - 1)]
        return w & _MASK[np.clip(n - 8 * j, 0, 8)]

    return word_at


def token_keys(U, starts, lengths):
    """The 64-bit key of each token (exact up to 8 bytes, a hash beyond)."""
    keys = U[starts] & _MASK[np.minimum(lengths, 8)]
    long = np.flatnonzero(lengths > 8)
    if long.size:
        keys[long] = hash_long(_word_loader(U, starts[long], lengths[long]),
                               lengths[long])
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

    @classmethod
    def concat(cls, parts):
        """Join the ``(keys, long_rows, blob, offsets)`` parts of the blocks."""
        if not parts:
            return cls(np.zeros(0, np.uint64), np.zeros(0, np.int64),
                       np.zeros(1, np.int64), np.zeros(8, np.uint8))
        keys = np.concatenate([p[0] for p in parts]) if len(parts) > 1 else parts[0][0]
        base = np.cumsum([0] + [p[0].shape[0] for p in parts[:-1]])
        rows = np.concatenate([p[1] + b for p, b in zip(parts, base)])
        blob_len = np.cumsum([0] + [p[3][-1] for p in parts])
        off = np.concatenate([p[3][:-1] + b for p, b in zip(parts, blob_len[:-1])]
                             + [np.array([blob_len[-1]], dtype=np.int64)])
        blob = np.zeros(int(blob_len[-1]) + 8, dtype=np.uint8)
        for p, b in zip(parts, blob_len[:-1]):
            blob[b : b + p[3][-1]] = p[2][: p[3][-1]]
        return cls(keys, rows, off.astype(np.int64), blob)

    @classmethod
    def from_block(cls, block, U, starts, lengths):
        """The part of one block: keys, long rows, their bytes and offsets."""
        keys = token_keys(U, starts, lengths)
        long = np.flatnonzero(lengths > 8)
        blob, off = gather_bytes(block.buf, starts[long], lengths[long])
        return keys, long, blob, off

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
        is_long = np.flatnonzero(li >= 0)
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
        eq = self.keys[rows] == other.keys[other_rows]
        la, lb = self._long_index(rows), other._long_index(other_rows)
        eq &= (la >= 0) == (lb >= 0)
        check = np.flatnonzero(eq & (la >= 0))
        if check.size:
            na = np.diff(self.long_off)[la[check]]
            nb = np.diff(other.long_off)[lb[check]]
            ok = na == nb
            for j in range(int(na.max() + 7) // 8):
                live = np.flatnonzero(ok & (na > 8 * j))
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
        li = self._long_index(rows)
        short = np.ascontiguousarray(self.keys[rows]).astype("<u8").view("S8")
        lens = np.diff(self.long_off)
        width = int(lens.max()) if lens.size else 0
        if (li >= 0).any() and width > 64:
            out = short.astype(object)
            for i in np.flatnonzero(li >= 0).tolist():
                a, b = self.long_off[li[i]], self.long_off[li[i] + 1]
                out[i] = self.blob[a:b].tobytes()
            return np.array([b.decode("utf-8") for b in out.tolist()], dtype=object)
        out = short.astype(f"S{max(width, 8)}")
        idx = np.flatnonzero(li >= 0)
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
        nbytes = self.lengths(rows)
        active = np.arange(n)
        j = 0
        while active.size:
            w = self.word(rows[active], j, li[active]).byteswap()  # big-endian: byte order
            o = np.lexsort((w, rank[active]))
            a, ws, ra = active[o], w[o], rank[active[o]]
            sub = np.ones(a.shape[0], dtype=bool)
            sub[1:] = (ra[1:] != ra[:-1]) | (ws[1:] != ws[:-1])
            first = (ra + _offset_in_group(ra))[np.flatnonzero(sub)]
            rank[a] = first[np.cumsum(sub) - 1]
            j += 1
            # Go on with the groups of two or more whose bytes go beyond 8 * j.
            ra = rank[a]
            start = np.ones(a.shape[0], dtype=bool)
            start[1:] = ra[1:] != ra[:-1]
            g = np.cumsum(start) - 1
            size = np.bincount(g)
            longer = np.bincount(g, weights=(nbytes[a] > 8 * j).astype(np.float64))
            active = a[((size > 1) & (longer > 0))[g]]
        return rank


def _offset_in_group(ra):
    """Index of each entry within its run of equal values (``ra`` sorted)."""
    n = ra.shape[0]
    new = np.ones(n, dtype=bool)
    new[1:] = ra[1:] != ra[:-1]
    first = np.flatnonzero(new)
    return np.arange(n) - np.repeat(first, np.diff(np.append(first, n)))


def _decode(b):
    """Byte strings -> str array (UTF-8)."""
    if b.size == 0:
        return np.zeros(0, dtype="U1")
    raw = b.view(np.uint8)
    if raw.max() < 128:
        return b.astype(f"U{b.dtype.itemsize}")
    return np.char.decode(b, "utf-8")


# -- numbers ------------------------------------------------------------------------

_POW10 = 10.0 ** np.arange(23)


def parse_numbers(block, U, starts, lengths):
    """Parse decimal tokens as float64; returns ``(values, ok)``.

    Tokens of the form ``[-]digits[.digits]`` with at most 15 characters are
    parsed exactly with array arithmetic (a mantissa below 2**53 divided by
    an exact power of ten is correctly rounded); the others (exponents,
    ``+`` signs, long mantissas, words) go through NumPy's own parser.
    ``ok`` is False where a token is not a finite number.
    """
    n = starts.shape[0]
    vals = np.empty(n)
    fast = lengths <= 15
    idx = np.flatnonzero(fast)
    if idx.size:
        v, good = _parse_short(U, starts[idx], lengths[idx])
        vals[idx] = v
        fast[idx] = good
    slow = np.flatnonzero(~fast)
    ok = np.ones(n, dtype=bool)
    if slow.size:
        blob, off = gather_bytes(block.buf, starts[slow], lengths[slow])
        vals[slow], ok[slow] = _parse_slow(blob, off)
    return vals, ok


_U = np.uint64
_L01 = _U(0x0101010101010101)
_M80 = _U(0x8080808080808080)
_M7F = _U(0x7F7F7F7F7F7F7F7F)
_M0F = _U(0x0F0F0F0F0F0F0F0F)
_GE_0 = _U(0x5050505050505050)  # + this sets a byte's high bit iff byte >= '0'
_GE_COLON = _U(0x4646464646464646)  # ... iff byte >= ':' (one past '9')
_POW10_INT = np.array([10**i for i in range(17)], dtype=np.uint64)


def _equal_flags(x, byte):
    """High bit of each byte of ``x`` set where that byte equals ``byte`` (ASCII ``x``)."""
    y = x ^ (_L01 * _U(byte))
    return ~(((y & _M7F) + _M7F) | y) & _M80


def _count_flags(flags):
    """Number of bytes whose high bit is set."""
    return ((flags >> _U(7)) * _L01) >> _U(56)


def _eight_digits(x):
    """Value of 8 decimal digits (byte values 0-9, first digit in the lowest byte)."""
    x = ((x & _M0F) * _U(2561)) >> _U(8)
    x = ((x & _U(0x00FF00FF00FF00FF)) * _U(6553601)) >> _U(16)
    return ((x & _U(0x0000FFFF0000FFFF)) * _U(42949672960001)) >> _U(32)


def _parse_short(U, s, n):
    """Tokens of 1 to 15 bytes of the form ``[-]digits[.digits]``, 8 bytes at a time.

    Each token is right-aligned in two 64-bit words (``hi`` holds its first
    ``n - 8`` bytes, ``lo`` its last 8, zeros in front) and every test is a
    word operation: digits, dots and minus signs are flagged per byte, the
    digits are combined eight at a time, and the dot's position gives the
    power of ten. The mantissa stays below 10**15 < 2**53, so dividing it by
    an exact power of ten rounds correctly.
    """
    eight = _U(8)
    n_lo = np.minimum(n, 8)
    lo = np.where(n <= 8, U[s] & _MASK[n_lo], U[s + np.maximum(n - 8, 0)])
    lo <<= eight * (8 - n_lo).astype(np.uint64)
    wide = bool((n > 8).any())
    if wide:
        n_hi = np.clip(n - 8, 0, 8)
        hi = U[s] & _MASK[n_hi]
        hi <<= eight * (8 - n_hi).astype(np.uint64)
    else:  # every token fits in one word
        n_hi = np.zeros(s.shape[0], dtype=np.int64)
        hi = np.zeros(s.shape[0], dtype=np.uint64)
    ascii_ = ((lo | hi) & _M80) == 0
    dig_lo = (lo + _GE_0) & ~(lo + _GE_COLON) & _M80
    dot_lo = _equal_flags(lo, 46)
    neg_lo = _equal_flags(lo, 45)
    if wide:
        dig_hi = (hi + _GE_0) & ~(hi + _GE_COLON) & _M80
        dot_hi, neg_hi = _equal_flags(hi, 46), _equal_flags(hi, 45)
    else:
        dig_hi = dot_hi = neg_hi = hi
    n_dig = _count_flags(dig_lo) + _count_flags(dig_hi)
    n_dot = _count_flags(dot_lo) + _count_flags(dot_hi)
    # A minus sign only as the first byte (byte 16 - n of the pair).
    first_neg = np.where(n <= 8, neg_lo >> (eight * (8 - n_lo).astype(np.uint64)),
                         neg_hi >> (eight * (8 - n_hi).astype(np.uint64))) & _U(0x80)
    n_neg = _count_flags(neg_lo) + _count_flags(neg_hi)
    neg = first_neg != 0
    good = (ascii_ & (n_dig + n_dot + n_neg == n.astype(np.uint64)) & (n_dot <= 1)
            & (n_neg == neg.astype(np.uint64)) & (n_dig > 0))
    # Non-digits count as 0; the dot's place is then taken out of the total.
    keep_lo = (dig_lo >> _U(7)) * _U(0xFF)
    total = _eight_digits(lo & keep_lo)
    if wide:
        keep_hi = (dig_hi >> _U(7)) * _U(0xFF)
        total += _eight_digits(hi & keep_hi) * _U(10**8)
    # Digits after the dot: 15 - (its byte position in the 16-byte pair).
    dot_bit = np.where(dot_lo != 0, dot_lo, dot_hi)
    pos = np.frexp(dot_bit.astype(np.float64))[1] - 8  # 8 * byte + 7 + 1 - 8 = 8 * byte
    frac = np.where(n_dot > 0, np.where(dot_lo != 0, 7 - pos // 8, 15 - pos // 8), 0)
    frac = np.clip(frac, 0, 15)
    p = _POW10_INT[frac]
    right = total % p
    mant = np.where(n_dot > 0, (total - right) // _U(10) + right, total)
    v = mant.astype(np.float64) / _POW10[frac]
    return np.where(neg, -v, v), good


def _parse_slow(blob, off):
    n = off.shape[0] - 1
    lens = np.diff(off)
    out = np.empty(n)
    ok = np.ones(n, dtype=bool)
    # Bounded temporaries: tokens of one power-of-two width class at a time,
    # at most _STEP bytes per step (a very long token takes a step alone).
    width = np.left_shift(1, np.ceil(np.log2(np.maximum(lens, 1))).astype(np.int64))
    order = np.argsort(width, kind="stable")
    cuts = np.flatnonzero(np.diff(width[order])) + 1
    steps = []
    for cls in np.split(order, cuts):
        rows = max(1, _STEP // int(width[cls[0]]))
        steps += [cls[i : i + rows] for i in range(0, cls.size, rows)]
    for idx in steps:
        w = max(int(lens[idx].max()), 1)
        mat = np.zeros((idx.size, w), dtype=np.uint8)
        cols = np.arange(w)
        take = cols < lens[idx][:, None]
        mat[take] = blob[(off[idx][:, None] + cols)[take]]
        text = mat.view(f"S{w}").reshape(-1)
        try:
            v = text.astype(np.float64)
            out[idx] = v
            ok[idx] = np.isfinite(v)
        except (ValueError, OverflowError):
            for i, t in zip(idx.tolist(), text.tolist()):
                try:
                    out[i] = float(t)
                    ok[i] = np.isfinite(out[i]) and b"_" not in t
                except (ValueError, OverflowError):
                    ok[i] = False
    return out, ok
