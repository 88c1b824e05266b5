"""Threads: the engine's and the readers' bounded thread maps and their flags."""

from __future__ import annotations

import os
import threading
from contextlib import contextmanager


@contextmanager
def thread_flag(local):
    """Set ``local.on`` for the calling thread while the block runs (nested
    blocks restore what they found)."""
    before = getattr(local, "on", False)
    local.on = True
    try:
        yield
    finally:
        local.on = before

#: Threads that rank row blocks in parallel (NumPy releases the GIL).
N_THREADS = max(1, min(4, os.cpu_count() or 1))


_local = threading.local()


@contextmanager
def one_thread():
    """Rank in the calling thread only, in this thread's calls.

    Dask partitions are already scored in parallel (one task per worker
    thread); a thread pool per partition on top would only oversubscribe the
    cores.
    """
    with thread_flag(_local):
        yield

#: Threads that split blocks (NumPy releases the GIL in most of the work);
#: see :func:`read_threads`.
READ_THREADS = max(1, min(2, os.cpu_count() or 1))


def in_one_thread():
    """Whether the calling thread is inside :func:`one_thread`."""
    return getattr(_local, "on", False)


def read_threads():
    """Threads to split blocks on: :data:`READ_THREADS` when a core is idle.

    A second thread cuts the splitting time by about 40% on an idle core;
    when every core is busy (a 1-minute load average at or above the number
    of cores minus one half) the threads only take turns, and one is faster.
    """
    if READ_THREADS <= 1:
        return 1
    try:
        busy = os.getloadavg()[0] >= (os.cpu_count() or 1) - 0.5
    except (AttributeError, OSError):  # no load average (Windows)
        busy = False
    return 1 if busy else READ_THREADS


def bounded_map(fn, items, n_threads):
    """``map(fn, items)`` in order, on ``n_threads`` threads, at most
    ``2 * n_threads`` items in flight.

    NumPy releases the GIL in sorts, partitions, takes and the byte scans of
    the readers, so the items (row blocks of the engine, file blocks of the
    readers) run in parallel; the window bounds the memory of those in flight.
    """
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


class Places:
    """Consecutive places in an output, taken by blocks in their order
    whichever thread finishes first: block ``i``'s :meth:`turn` yields
    ``take(n)``, which waits until block ``i - 1`` has taken its place and
    returns where block ``i``'s ``n`` rows start. A block that fails passes
    its turn on (taking nothing), so that no later block waits for ever.

    Blocks are handed to a thread pool in order, so block ``i - 1`` has
    always started when block ``i`` waits: the wait ends."""

    def __init__(self):
        self._cond = threading.Condition()
        self._next = 0
        self._at = 0

    @contextmanager
    def turn(self, i):
        taken = []

        def take(n):
            with self._cond:
                self._cond.wait_for(lambda: self._next == i)
                at = self._at
                self._at, self._next = at + n, i + 1
                self._cond.notify_all()
            taken.append(at)
            return at

        try:
            yield take
        finally:
            if not taken:  # failed before taking its place: pass the turn on
                with self._cond:
                    self._cond.wait_for(lambda: self._next == i)
                    self._next = i + 1
                    self._cond.notify_all()
