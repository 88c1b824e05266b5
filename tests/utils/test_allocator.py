"""glibc's mmap and trim thresholds, set once before the first ranking pass
(``sk_rankmetrics/_utils/allocator.py``): what is set, when it is left alone,
and, in a fresh process, that the block temporaries of a second call are no
longer faulted in afresh."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import pytest

from sk_rankmetrics._utils import allocator


class FakeLibc:
    def __init__(self):
        self.calls = []

    def mallopt(self, param, value):
        self.calls.append((param, value))
        return 1


@pytest.fixture
def fresh(monkeypatch):
    monkeypatch.setattr(allocator, "_state", {"done": False, "set": False})
    for name in ("MALLOC_MMAP_THRESHOLD_", "MALLOC_TRIM_THRESHOLD_", "GLIBC_TUNABLES",
                 allocator.ENV):
        monkeypatch.delenv(name, raising=False)
    libc = FakeLibc()
    monkeypatch.setattr(allocator, "_glibc", lambda: libc)
    return libc


def test_thresholds_set_once(fresh):
    assert allocator.tune_allocator() is True
    assert allocator.tune_allocator() is True
    assert fresh.calls == [(-3, 32 << 20), (-1, 64 << 20)]  # once, mmap then trim


@pytest.mark.parametrize("env", [
    {allocator.ENV: "0"},
    {allocator.ENV: " False "},
    {allocator.ENV: "no"},
    {allocator.ENV: "OFF"},
    {"MALLOC_MMAP_THRESHOLD_": "131072"},
    {"MALLOC_TRIM_THRESHOLD_": "131072"},
    {"GLIBC_TUNABLES": "glibc.malloc.trim_threshold=131072"},
])
def test_left_alone_when_the_program_chose(fresh, monkeypatch, env):
    for k, v in env.items():
        monkeypatch.setenv(k, v)
    assert allocator.tune_allocator() is False
    assert fresh.calls == []


@pytest.mark.parametrize("value", ["1", "true", "Yes", "on", ""])
def test_on_spellings_leave_it_on(fresh, monkeypatch, value):
    monkeypatch.setenv(allocator.ENV, value)
    assert allocator.tune_allocator() is True
    assert len(fresh.calls) == 2


@pytest.mark.parametrize("value", ["2", "disable", "0.0", "nope", "-1"])
def test_unreadable_setting_is_an_error_until_mended(fresh, monkeypatch, value):
    import numpy as np

    from sk_rankmetrics import ndcg_score

    monkeypatch.setenv(allocator.ENV, value)
    for _ in range(2):  # raised again, not remembered as done
        with pytest.raises(ValueError, match=f"{allocator.ENV}={value!r} is not understood"):
            allocator.tune_allocator()
    with pytest.raises(ValueError, match=allocator.ENV):  # what a user calls
        ndcg_score(np.array([[1, 0, 2]]), np.array([[0.3, 0.2, 0.1]]))
    assert fresh.calls == []
    monkeypatch.setenv(allocator.ENV, "0")
    assert allocator.tune_allocator() is False
    assert fresh.calls == []


def test_other_tunables_do_not_stop_it(fresh, monkeypatch):
    monkeypatch.setenv("GLIBC_TUNABLES", "glibc.cpu.hwcaps=-AVX512F")
    assert allocator.tune_allocator() is True
    assert len(fresh.calls) == 2


def test_not_glibc_or_refused(fresh, monkeypatch):
    monkeypatch.setattr(allocator, "_glibc", lambda: None)
    assert allocator.tune_allocator() is False
    monkeypatch.setattr(allocator, "_state", {"done": False, "set": False})
    refusing = FakeLibc()
    refusing.mallopt = lambda p, v: 0
    monkeypatch.setattr(allocator, "_glibc", lambda: refusing)
    assert allocator.tune_allocator() is False


_FAULTS = textwrap.dedent("""
    import resource, sys
    import numpy as np
    import sk_rankmetrics as skr
    from sk_rankmetrics._utils import allocator
    from sk_rankmetrics._utils.threads import one_thread
    rng = np.random.default_rng(0)
    # (arrays made whole or through temporaries above 32 MiB: none of them
    # raises glibc's own threshold when freed)
    s = rng.random((100_000, 100)).astype(np.float32)
    y = rng.integers(0, 5, (100_000, 100)).astype(np.int8)
    with one_thread():
        skr.evaluate(y, s, ["err", "bpref"])
        before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
        skr.evaluate(y, s, ["err", "bpref"])
        faults = resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before
    print(allocator.tune_allocator(), faults)
""")


@pytest.mark.skipif(allocator._glibc() is None, reason="glibc only")
def test_second_call_faults_no_block_temporaries_in():
    # A fresh process: without the thresholds, each block's temporaries
    # (2 MB each) are mapped and faulted in anew on every call (about
    # 200,000 pages a call here); with them, the second call reuses the heap.
    # (Dask's nanny sets MALLOC_TRIM_THRESHOLD_ in its own process's
    # environment, which the test run inherits once a Dask test has run: the
    # program's own choice, left alone; not this test's subject.)
    chosen = ("MALLOC_MMAP_THRESHOLD_", "MALLOC_TRIM_THRESHOLD_", "GLIBC_TUNABLES", allocator.ENV)
    env = {k: v for k, v in os.environ.items() if k not in chosen}
    out = subprocess.run([sys.executable, "-c", _FAULTS], capture_output=True, text=True,
                         check=True, env=env).stdout.split()
    assert out[0] == "True"
    assert int(out[1]) < 2_000, out


def test_fuse_and_large_file_reads_set_it_too(fresh, monkeypatch, tmp_path):
    """fuse and the readers of large run files work in blocks as the metrics
    do, and set the thresholds the same way (once)."""
    import numpy as np

    from sk_rankmetrics import TrecRun, fuse, read_run
    from sk_rankmetrics._files import tokens

    run = TrecRun(np.array(["q1", "q1"]), np.array(["d1", "d2"]), np.array([2.0, 1.0]))
    fuse([run, run], method="rrf")
    assert fresh.calls == [(-3, 32 << 20), (-1, 64 << 20)]

    monkeypatch.setattr(allocator, "_state", {"done": False, "set": False})
    fresh.calls.clear()
    path = tmp_path / "run.txt"
    path.write_text("".join(f"q{i % 7} Q0 d{i} 0 {1.0 / (i + 1)!r} tag\n" for i in range(400)))
    monkeypatch.setattr(tokens, "BLOCK_BYTES", 1024)  # a "large" file: many blocks
    assert len(read_run(path)) == 400
    assert fresh.calls == [(-3, 32 << 20), (-1, 64 << 20)]
