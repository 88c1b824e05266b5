"""The C allocator's thresholds under glibc, set once before the first ranking
pass, fusion or read of a large file (the work done in blocks).

The engine works in row blocks whose temporaries are a few MB each, made and
freed dozens of times per block. glibc serves a request of 128 KiB or more
with a fresh ``mmap`` until a program has freed an mmapped chunk at least
that large (its *dynamic* threshold then rises to that chunk's size, at most
32 MiB, and the heap's trim threshold to twice that), and returns a heap top
of more than 128 KiB to the system on every ``free``. In a young process
every block temporary is therefore mapped anew and its pages faulted in
again: full-depth ERR over 100,000 x 100 took 0.49 s with 77,000 page
faults a call, 0.21-0.28 s with none once the thresholds stood where glibc
itself would have raised them (bpref over float32 scores 0.54 -> 0.28 s);
an older process that had freed a large array paid nothing.

:func:`tune_allocator` sets, once per process, the state glibc reaches by
itself after freeing one 32 MiB array: the mmap threshold at 32 MiB and the
trim threshold at 64 MiB (so at most 64 MiB of freed memory stays with the
process at the top of its heap). It does nothing on other C libraries, when
the program has set either threshold itself (``MALLOC_MMAP_THRESHOLD_``,
``MALLOC_TRIM_THRESHOLD_`` or their ``GLIBC_TUNABLES``), or when
``SK_RANKMETRICS_TUNE_MALLOC`` is off (``0``, ``false``, ``no`` or ``off``;
``1``, ``true``, ``yes``, ``on`` or unset leave it on). Any other value is an
error naming the variable, raised by every call until it is mended: a setting
the package cannot read is never silently taken for the default.
"""

from __future__ import annotations

import ctypes
import os
import sys

#: mallopt's parameters (glibc's malloc.h).
_M_TRIM_THRESHOLD, _M_MMAP_THRESHOLD = -1, -3

#: glibc's ceiling for its dynamic mmap threshold on 64-bit systems
#: (DEFAULT_MMAP_THRESHOLD_MAX), and the trim threshold it pairs with it.
MMAP_THRESHOLD = 32 << 20
TRIM_THRESHOLD = 2 * MMAP_THRESHOLD

#: The environment variable that turns the tuning off ("0").
ENV = "SK_RANKMETRICS_TUNE_MALLOC"
_OFF = frozenset({"0", "false", "no", "off"})
_ON = frozenset({"", "1", "true", "yes", "on"})

_state = {"done": False, "set": False}


def _glibc():
    """The process's C library when it is glibc, else None."""
    if not sys.platform.startswith("linux"):
        return None
    try:
        libc = ctypes.CDLL(None)
        libc.gnu_get_libc_version  # noqa: B018  (glibc only)
        return libc
    except (OSError, AttributeError):
        return None


def _wanted():
    """Whether :data:`ENV` leaves the tuning on; a value it cannot read raises."""
    raw = os.environ.get(ENV, "1")
    value = raw.strip().lower()
    if value in _OFF:
        return False
    if value in _ON:
        return True
    raise ValueError(
        f"The environment variable {ENV}={raw!r} is not understood: it accepts "
        "0, false, no or off (leave glibc's malloc thresholds alone) and 1, true, "
        "yes or on (set them, the default).")


def tune_allocator():
    """Set glibc's mmap and trim thresholds once per process (see the module's
    notes); returns whether they were set, by this call or an earlier one.

    Raises ValueError, on every call until it is mended, when :data:`ENV`
    holds a value it cannot read."""
    if _state["done"]:
        return _state["set"]
    if not _wanted():
        _state["done"] = True
        return False
    _state["done"] = True
    tunables = os.environ.get("GLIBC_TUNABLES", "")
    if ("MALLOC_MMAP_THRESHOLD_" in os.environ or "MALLOC_TRIM_THRESHOLD_" in os.environ
            or "malloc.mmap_threshold" in tunables or "malloc.trim_threshold" in tunables):
        return False  # the program chose these settings itself
    libc = _glibc()
    if libc is None:
        return False
    ok = libc.mallopt(_M_MMAP_THRESHOLD, MMAP_THRESHOLD) == 1
    ok = libc.mallopt(_M_TRIM_THRESHOLD, TRIM_THRESHOLD) == 1 and ok
    _state["set"] = ok
    return ok
