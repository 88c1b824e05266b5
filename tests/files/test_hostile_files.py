"""Hostile and unusual files: each gives a right number or an error naming the
file and line. Compression, the file fast path against the array path, hash
collisions, long tokens (bounded allocation) and fuzzed run files."""

from __future__ import annotations

import bz2
import gzip
import json
import lzma
import os
import subprocess
import sys
import tracemalloc
import warnings

import numpy as np
import pytest
from conftest import ROOT
from hypothesis import given, settings
from hypothesis import strategies as st

import sk_rankmetrics._files.tokens as B
import sk_rankmetrics._utils.threads as threads
from sk_rankmetrics import TrecQrels, TrecRun, evaluate_run, read_trec_qrels, read_trec_run
from sk_rankmetrics._files.numbers import parse_numbers

QRELS = "q1 0 a 2\nq1 0 b 1\nq1 0 c 0\nq2 0 d 1\nq2 0 e 1\n"
RUN = "q1 Q0 a 1 3 t\nq1 Q0 c 2 2 t\nq1 Q0 b 3 1 t\nq2 Q0 x 1 2 t\nq2 Q0 d 2 1 t\n"
METRICS = ["ndcg_cut_10", "map", "P_2", "recip_rank", "recall_100", "ndcg", "Rprec"]


def _files(tmp_path, qrels=QRELS, run=RUN, qname="q.txt", rname="r.txt"):
    q, r = tmp_path / qname, tmp_path / rname
    q.write_bytes(qrels if isinstance(qrels, bytes) else qrels.encode())
    r.write_bytes(run if isinstance(run, bytes) else run.encode())
    return q, r


def _means(q, r, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return evaluate_run(q, r, METRICS, setting="trec_eval", **kw).mean


def test_utf8_bom_is_skipped(tmp_path):
    plain = _means(*_files(tmp_path))
    bom = _means(*_files(tmp_path, "\ufeff" + QRELS, "\ufeff" + RUN, "qb.txt", "rb.txt"))
    assert bom == plain
    assert read_trec_run(tmp_path / "rb.txt").qid[0] == "q1"


@pytest.mark.parametrize(
    ("data", "match"),
    [
        (b"q1 Q0 a 1 1 t\nq1 Q0 caf\xe9 2 0.5 t\n",
         r"line 2: byte 0xe9 \(column 10\) is not UTF-8"),
        (b"q1 Q0 a 1 1 t\nq1 Q0 b\x00 2 0.5 t\n", r"line 2: control character 0x00"),
        (b"q1 Q0 a\x01b 1 1 t\n", r"line 1: control character 0x01"),
        (b"\xff\xfeq\x001\x00", "UTF-16"),
        (b"q1 Q0 a 1 1 t\nq1 Q0 b 2 1e999 t\n", r"line 2: score '1e999' is not a finite"),
        (b"q1 Q0 a 1 nan t\n", r"line 1: score 'nan'"),
        (b"q1 Q0 a 1 1 t\nq1 Q0 a 2 0.5 t\n", r"line 2: duplicate document 'a' for query 'q1'"),
        (b"q1 Q0 a 1\n", r"line 1: expected at least 6 fields"),
    ],
)
def test_hostile_run_files_name_file_and_line(tmp_path, data, match):
    path = tmp_path / "hostile.txt"
    path.write_bytes(data)
    with pytest.raises(ValueError, match=match) as info:
        read_trec_run(path)
    assert "hostile.txt" in str(info.value)


def test_trailing_nul_no_longer_merges_ids(tmp_path):
    with pytest.raises(ValueError, match="control character"):
        read_trec_qrels(_files(tmp_path, "q 0 a 1\nq 0 a\x00 0\n")[0])


@pytest.mark.parametrize(("suffix", "opener"), [(".gz", gzip.open), (".bz2", bz2.open),
                                                (".xz", lzma.open)])
def test_compressed_files_read_by_extension(tmp_path, suffix, opener):
    plain = _means(*_files(tmp_path))
    for name, text in (("q.txt", QRELS), ("r.txt", RUN)):
        with opener(tmp_path / (name + suffix), "wb") as fh:
            fh.write(text.encode())
    assert _means(tmp_path / ("q.txt" + suffix), tmp_path / ("r.txt" + suffix)) == plain


def _peak_of_read(path):
    tracemalloc.start()
    run = read_trec_run(path)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return run, peak


@pytest.mark.parametrize("n_threads", [1, 2])
def test_long_token_allocation_is_bounded(tmp_path, monkeypatch, n_threads):
    # 200,001 lines, one docno of 10 KB: memory must not follow lines x longest
    # token (9.6 GB before); on one thread it is that of the same file without
    # the long token. The reader's thread count follows the load average: it is
    # fixed here, or the two reads may split their blocks on different counts
    # (and on two threads, the blocks in flight at the peak follow the timing).
    monkeypatch.setattr(threads, "read_threads", lambda: n_threads)
    lines = [f"q{i % 100} Q0 d{i} 1 {i % 7} t" for i in range(200_000)]
    short = tmp_path / "short.txt"
    short.write_text("\n".join([*lines, "q1 Q0 y 1 0.5 t"]) + "\n")
    lines.insert(100_000, "q1 Q0 " + "x" * 10_000 + " 1 0.5 t")
    path = tmp_path / "long.txt"
    path.write_text("\n".join(lines) + "\n")
    _, base = _peak_of_read(short)
    run, peak = _peak_of_read(path)
    if n_threads == 1:
        assert peak < base + (1 << 20)
    assert peak < 20 * path.stat().st_size  # blocks in flight, not lines x 10 KB
    assert run.docno[100_000] == "x" * 10_000 and len(run) == 200_001


def _random_trec(rng, n_q=30, long_ids=False, low=-1):
    qrels, run = [], []
    for i in range(n_q):
        q = f"topic-{i}" * (3 if long_ids and i % 2 else 1)
        docs = [("doc-" * (4 if long_ids else 1)) + str(j) for j in rng.permutation(60)[:40]]
        for d in docs[: rng.integers(0, 25)]:
            qrels.append((q, d, int(rng.integers(low, 4))))
        if rng.random() < 0.9:
            for d in docs[rng.integers(0, 10):]:
                run.append((q, d, float(rng.integers(0, 8)) / 4))
    run.append(("only-in-run", "doc-1", 1.0))
    order = rng.permutation(len(run))  # shuffled lines
    run = [run[i] for i in order]
    return qrels, run


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("setting", ["trec_eval", "sk_rankmetrics"])
def test_file_path_equals_array_path(tmp_path, seed, setting):
    rng = np.random.default_rng(seed)
    qrels, run = _random_trec(rng, long_ids=bool(seed % 2),
                              low=-1 if setting == "trec_eval" else 0)
    qtext = "".join(f"{q}\t0 {d} {r}\n" for q, d, r in qrels)
    rtext = "".join(f"{q} Q0 {d} 0 {s} tag\n" for q, d, s in run)
    q, r = _files(tmp_path, qtext, rtext)
    arrays = (TrecQrels(*map(np.array, zip(*qrels))), TrecRun(*map(np.array, zip(*run))))
    metrics = METRICS if setting == "trec_eval" else ["ndcg@5", "map", "P@3", "mrr"]
    kw = dict(setting=setting, complete=bool(seed % 2), max_docs=[None, 7][seed % 2],
              no_relevant=0.0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        a = evaluate_run(q, r, metrics, **kw)
        b = evaluate_run(*arrays, metrics, **kw)
    assert a.query_ids.tolist() == b.query_ids.tolist()
    for m in metrics:
        np.testing.assert_allclose(a.per_query[m], b.per_query[m], rtol=0, atol=1e-12)


@pytest.mark.slow
def test_hash_collisions_never_merge_ids(tmp_path, monkeypatch):
    # Every long id gets the same hash: matches must still be decided byte for byte.
    rng = np.random.default_rng(7)
    qrels, run = _random_trec(rng, long_ids=True)
    q, r = _files(tmp_path, "".join(f"{a} 0 {b} {c}\n" for a, b, c in qrels),
                  "".join(f"{a} Q0 {b} 0 {c} t\n" for a, b, c in run))
    honest = _means(q, r)
    monkeypatch.setattr(B, "hash_long", lambda word_at, lengths:
                        np.full(lengths.shape[0], 12345, dtype=np.uint64))
    import sk_rankmetrics._files.tokens as bytes_mod

    assert bytes_mod.hash_long is not None
    assert _means(q, r) == honest
    dup = tmp_path / "dup.txt"
    dup.write_text("topic-1topic-1topic-1 Q0 doc-doc-doc-doc-1 1 1 t\n"
                   "topic-1topic-1topic-1 Q0 doc-doc-doc-doc-2 2 1 t\n"
                   "topic-1topic-1topic-1 Q0 doc-doc-doc-doc-1 3 1 t\n")
    with pytest.raises(ValueError, match="line 3: duplicate document"):
        read_trec_run(dup)


@pytest.mark.slow
@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["1", "q2", "topic:3", "ü"]),
                          st.text(st.characters(min_codepoint=33, max_codepoint=0x2FF),
                                  min_size=1, max_size=20),
                          st.one_of(st.integers(-10**6, 10**6),
                                    st.floats(allow_nan=False, allow_infinity=False,
                                              width=64, min_value=-1e300, max_value=1e300)),
                          st.sampled_from([" ", "\t", "  ", " \t"])), min_size=1, max_size=30),
       st.booleans(), st.booleans(), st.booleans())
def test_fuzzed_run_files_read_like_a_plain_split(tmp_path_factory, rows, bom, crlf, comments):
    seen, lines = set(), []
    for q, d, s, sep in rows:
        if (q, d) in seen or d.startswith("#"):
            continue
        seen.add((q, d))
        lines.append(sep.join([q, "Q0", d, "1", repr(s) if isinstance(s, float) else str(s),
                               "t"]))
    if not lines:
        return
    text = ("\n" if not crlf else "\r\n").join(
        [*(["# a comment", ""] if comments else []), *lines]) + "\n"
    path = tmp_path_factory.mktemp("fuzz") / "run.txt"
    path.write_bytes((b"\xef\xbb\xbf" if bom else b"") + text.encode())
    run = read_trec_run(path)
    fields = [[t.decode() for t in line.encode().split()] for line in lines]  # ASCII spaces
    assert run.qid.tolist() == [f[0] for f in fields]
    assert run.docno.tolist() == [f[2] for f in fields]
    assert run.score.tolist() == [float(f[4]) for f in fields]


def test_number_parser_is_exact():
    rng = np.random.default_rng(3)
    vals = np.concatenate([rng.normal(size=2000) * 10.0 ** rng.integers(-8, 9, 2000),
                           rng.integers(-10**14, 10**14, 500).astype(float)])
    texts = [f"{v:.{int(p)}f}" for v, p in zip(vals, rng.integers(0, 10, vals.size))]
    texts += ["-0.5", ".5", "5.", "007", "1e5", "+3", "123456789012345", "0.000000000001"]
    data = (" ".join(texts) + "\n").encode()
    block = B.Block.from_bytes(data)
    starts = np.cumsum([0] + [len(t) + 1 for t in texts[:-1]])
    got, ok = parse_numbers(block, starts, np.array([len(t) for t in texts]))
    assert ok.all()
    assert got.tolist() == [float(t) for t in texts]


def _parse_texts(texts):
    data = (" ".join(texts) + "\n").encode()
    block = B.Block.from_bytes(data)
    starts = np.cumsum([0] + [len(t) + 1 for t in texts[:-1]])
    return parse_numbers(block, starts, np.array([len(t) for t in texts]))


def _python_number(text):
    """float(text) where the readers accept it (finite, no underscore), else None."""
    try:
        v = float(text)
    except ValueError:
        return None
    return v if np.isfinite(v) and "_" not in text else None


def _assert_parsed_like_python(texts):
    got, ok = _parse_texts(texts)
    for t, g, o in zip(texts, got.tolist(), ok.tolist()):
        want = _python_number(t)
        assert o == (want is not None), t
        if o:
            assert g == want and np.signbit(g) == np.signbit(want), (t, g, want)


@pytest.mark.slow
def test_number_parser_matches_python_on_random_tokens():
    # Every length from 1 to 26 bytes (one word, two words, three words, the
    # slow path),
    # digits with a dot and a minus sign anywhere, and malformed tokens.
    rng = np.random.default_rng(11)
    alphabet = np.array(list("0123456789") * 6 + list(".-") * 2 + list("e+x"))
    texts = []
    for n in range(1, 27):
        chars = alphabet[rng.integers(0, alphabet.size, (3000, n))]
        texts += ["".join(row) for row in chars]
        digits = rng.integers(0, 10, (3000, n)).astype(str)
        dot = rng.integers(-1, n, 3000)
        for row, d, neg in zip(digits, dot, rng.random(3000) < 0.5):
            row = list(row)
            if d >= 0:
                row[d] = "."
            texts.append(("-" if neg else "") + "".join(row))
    _assert_parsed_like_python(texts)


@pytest.mark.slow
@settings(max_examples=300, deadline=None)
@given(st.lists(st.one_of(
    st.from_regex(r"-?[0-9]{0,22}\.?[0-9]{0,22}", fullmatch=True).filter(bool),
    st.floats(allow_nan=False, allow_infinity=False).map(repr),
    st.integers(-10**20, 10**20).map(str),
    st.text("0123456789.-+eE", min_size=1, max_size=26)), min_size=1, max_size=40))
def test_number_parser_matches_python(texts):
    _assert_parsed_like_python(texts)


def _half_way_tokens():
    """Decimal tokens of 17 to 22 bytes exactly half-way between two doubles
    (rounding them through a wider mantissa first would tie the wrong way)."""
    out = []
    for e in range(53, 64):
        step = 2 ** (e - 52)
        for k in (1, 2, 3, 7):
            half = 2**e + k * step - step // 2
            out += [f"{half}.0", f"-{half}.00", f"{half}.000"]
    return out


@pytest.mark.parametrize("x87", [True, False])
@pytest.mark.parametrize("few", [0, 1 << 30])
def test_long_tokens_are_rounded_once(monkeypatch, x87, few):
    # Python's repr of doubles (up to 17 digits, 17-24 bytes), leading zeros,
    # tokens exactly half-way between two doubles, and the largest mantissas;
    # the tokens the three-word parser refuses read byte by byte (few=0) or
    # by NumPy's parser (a block's few).
    import sk_rankmetrics._files.numbers as numbers

    if x87 and not numbers._X87:
        pytest.skip("long double is not x87's extended precision here")
    monkeypatch.setattr(numbers, "_X87", x87)
    monkeypatch.setattr(numbers, "_FEW", few)
    rng = np.random.default_rng(5)
    values = rng.normal(size=3000) * 10.0 ** rng.integers(-3, 16, 3000)
    texts = [t for t in map(repr, values.tolist()) if "e" not in t]
    texts += [
        *_half_way_tokens(), "0.00012345678901234567", "-0.0000000000000000000",
        "9999999999999999999", "999999999999999999.9", "99999999999999999999",
        "1.0000000000000000001", "1." + "0" * 20, "." + "5" * 19, "12345678901234567.5",
        "-5000000000000000.05"]
    _assert_parsed_like_python(texts)
    data = (" ".join(texts) + "\n").encode()
    block = B.Block.from_bytes(data)
    lens = np.array([len(t) for t in texts])
    starts = np.cumsum(np.r_[0, lens[:-1] + 1])
    long_ = (lens > 16) & (lens <= 24)
    for parse, most in ((numbers._parse_three_words, 19), (numbers._parse_long, 24)):
        values, good = parse(block, starts[long_], lens[long_])
        taken = dict(zip(np.array(texts)[long_].tolist(), good.tolist()))
        # The half-way tokens go to NumPy's parser; the repr of a double does not.
        assert not any(taken[t] for t in _half_way_tokens() if t in taken)
        short = [t for t in texts[:200] if t in taken and len(t.lstrip("-")) <= most]
        assert len(short) > 20 and all(taken[t] for t in short)
        assert taken["9999999999999999999"] and not taken["99999999999999999999"]
        assert all(v == float(t) for t, v, g in zip(np.array(texts)[long_].tolist(),
                                                    values.tolist(), good.tolist()) if g)


def test_cli_json_and_csv_hostile(tmp_path):
    from sk_rankmetrics._cli import main

    q = tmp_path / "q.txt"
    q.write_text(QRELS)
    big = tmp_path / "big.json"
    big.write_text('{"q1": {"a": 1' + "0" * 400 + "}}")
    assert main(["evaluate", str(q), str(big)]) == 1
    csv = tmp_path / "r.csv"
    csv.write_text("query,item,score\n,a,1\nq1,b,2\n")
    assert main(["evaluate", str(q), str(csv)]) == 1
    j = tmp_path / "r.json.gz"
    with gzip.open(j, "wt") as fh:
        json.dump({"q1": {"a": 3, "c": 2, "b": 1}}, fh)
    assert main(["evaluate", str(q), str(j), "-m", "P@1"]) == 0


def test_output_precision_round_trip(tmp_path):
    from sk_rankmetrics._cli import main

    q, r = _files(tmp_path)
    for ext in ("csv", "tsv", "json"):
        out = tmp_path / f"o.{ext}"
        assert main(["evaluate", str(q), str(r), "-m", "ndcg", "-o", str(out)]) == 0
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            want = evaluate_run(q, r, ["ndcg"]).mean["ndcg"]
        text = out.read_text()
        if ext == "json":
            assert json.loads(text)["mean"]["ndcg"] == want
        else:
            sep = "\t" if ext == "tsv" else ","
            assert float(text.splitlines()[-1].split(sep)[1]) == want
    assert main(["evaluate", str(q), str(r), "-o", str(tmp_path / "o.txt")]) == 2


@pytest.mark.slow
@pytest.mark.parametrize("command", ["evaluate", "trec_eval"])
def test_progress_bar_labels_every_phase(tmp_path, command):
    q, r = _files(tmp_path, qname="judged.txt", rname="bm25.txt")
    root = ROOT
    env = {**os.environ, "PYTHONPATH": str(root)}
    out = subprocess.run([sys.executable, "-m", "sk_rankmetrics", command, str(q), str(r),
                          "--progress"], capture_output=True, cwd=tmp_path, env=env)
    assert out.returncode == 0, out.stderr
    # Each phase redraws its line (carriage returns) and ends it with a newline.
    lines = [line.split("\r")[-1] for line in out.stderr.decode().split("\n") if line]
    labels = [line.split(" [")[0] for line in lines]
    assert labels == ["reading qrels judged.txt", "reading run bm25.txt", "matching",
                      "evaluating"]
    assert all("100%" in line for line in lines)
    assert " MiB " in lines[0] and " 4/4 " in lines[2]
    assert out.stdout  # the results still go to stdout
    # Without --progress and without a terminal: nothing on stderr.
    quiet = subprocess.run([sys.executable, "-m", "sk_rankmetrics", command, str(q), str(r)],
                           capture_output=True, cwd=tmp_path, env=env)
    assert quiet.returncode == 0 and quiet.stderr == b""
    assert quiet.stdout == out.stdout


def test_progress_shows_only_slow_phases_on_a_terminal():
    import io

    from sk_rankmetrics._cli.common import Progress

    class Terminal(io.StringIO):
        def isatty(self):
            return True

    stream = Terminal()
    prog = Progress("", delay=3600, stream=stream)
    prog.phase("reading run r.txt")
    prog(50, 100)
    prog.phase("matching")
    prog.close()
    assert stream.getvalue() == ""  # nothing took an hour
    prog = Progress("", delay=0.0, stream=stream)
    prog.phase("evaluating")
    prog(1, 4)
    prog.close()
    assert stream.getvalue().endswith("evaluating [##############################] 100% 4/4 0.0s\n")


@pytest.mark.slow
def test_duplicate_check_when_pair_hashes_collide(tmp_path, monkeypatch):
    # Pair hashes of a few distinct values: lines sharing one are compared by
    # their bytes, only true duplicates are reported, and run lines are
    # matched to the qrels line of their own (query, document).
    rng = np.random.default_rng(2)
    qrels, run = _random_trec(rng, long_ids=True)
    q, r = _files(tmp_path, "".join(f"{a} 0 {b} {c}\n" for a, b, c in qrels),
                  "".join(f"{a} Q0 {b} 0 {c} t\n" for a, b, c in run))
    honest = _means(q, r)
    real = B.pair_hash
    monkeypatch.setattr(B, "pair_hash", lambda qk, dk: real(qk, dk) & np.uint64(0xF))
    assert _means(q, r) == honest
    lines = [f"q{i % 7} Q0 doc{i} 1 {i % 5} t" for i in range(3000)]
    path = tmp_path / "run.txt"
    path.write_text("\n".join(lines) + "\n")
    assert len(read_trec_run(path)) == 3000
    path.write_text("\n".join([*lines, "q3 Q0 doc1403 1 0.5 t"]) + "\n")
    with pytest.raises(ValueError, match=r"line 3001: duplicate document 'doc1403' for query "
                                         r"'q3' \(first on line 1404\)"):
        read_trec_run(path)


@pytest.mark.parametrize("contiguous", [True, False])
def test_duplicates_found_across_chunks(tmp_path, monkeypatch, contiguous):
    # Pair hashes are sorted a chunk of whole queries at a time (when each
    # query's lines are contiguous): a duplicate far apart in a query longer
    # than a chunk, or in a file whose queries are interleaved, is found.
    import sk_rankmetrics._files.trec as trec

    monkeypatch.setattr(trec, "PAIR_STEP", 100)
    lines = [f"q{i // 700} Q0 d{i % 700} 1 {i % 9} t" for i in range(2100)]
    if not contiguous:
        lines = lines[::2] + lines[1::2]
    path = tmp_path / "run.txt"
    path.write_text("\n".join(lines) + "\n")
    assert len(read_trec_run(path)) == 2100
    dup = lines[:]
    at = 1300 if contiguous else 1500  # contiguous: inside the same query, 550 lines on
    dup.insert(at, lines[750].replace(" 1 ", " 2 "))
    path.write_text("\n".join(dup) + "\n")
    with pytest.raises(ValueError, match=f"line {at + 1}: duplicate document .* \\(first on "
                                         "line 751\\)"):
        read_trec_run(path)


def test_two_threads_read_what_one_reads(tmp_path, monkeypatch):
    # Small blocks, split on two threads: the same columns, and the first bad
    # line of the file is the one reported, whatever thread meets it first.
    rng = np.random.default_rng(9)
    lines = [f"q{i // 300} Q0 d{rng.integers(10**9)}-{i} {i} {rng.normal():.6f} t"
             for i in range(6000)]
    lines[2500] = "# a comment\n\n" + lines[2500]  # a block on the general path
    path = tmp_path / "run.txt"
    path.write_text("\n".join(lines) + "\n")
    monkeypatch.setattr(B, "BLOCK_BYTES", 4096)
    one = read_trec_run(path)
    monkeypatch.setattr(threads, "read_threads", lambda: 2)
    two = read_trec_run(path)
    assert two.qid.tolist() == one.qid.tolist() and two.docno.tolist() == one.docno.tolist()
    assert two.score.tolist() == one.score.tolist() and len(two) == 6000
    bad = lines[:]
    bad[4000] = bad[4000].rsplit(" ", 2)[0] + " x t"
    bad[5000] = "q1 Q0"
    path.write_text("\n".join(bad) + "\n")
    with pytest.raises(ValueError, match="line 4003: score 'x' is not a finite number"):
        read_trec_run(path)


def test_a_first_block_of_comments_only(tmp_path, monkeypatch):
    # The run tag comes from the first data line, whatever block holds it.
    monkeypatch.setattr(B, "BLOCK_BYTES", 256)
    path = tmp_path / "run.txt"
    path.write_text("# a comment line of many words\n" * 40 + "q1 Q0 a 1 2.5 mytag\n"
                    "q1 Q0 b 2 x mytag\n")
    with pytest.raises(ValueError, match="line 42: score 'x'"):
        read_trec_run(path)
    path.write_text("# a comment line of many words\n" * 40 + "q1 Q0 a 1 2.5 mytag\n")
    run = read_trec_run(path)
    assert run.tag == "mytag" and run.docno.tolist() == ["a"]
