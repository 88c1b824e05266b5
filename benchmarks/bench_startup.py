"""Start-up time of the command line against importing NumPy and SciPy's sparse module.

Usage::

    python benchmarks/bench_startup.py              # best of 10 runs of each
    python benchmarks/bench_startup.py --repeats 30

Times ``sk-rankmetrics trec_eval -m map`` on the bundled sample files
(``sk_rankmetrics/data/qrels.txt`` and ``bm25.txt``), run as
``python -m sk_rankmetrics`` with this interpreter, against
``python -c "import numpy, scipy.sparse"``. Each is a fresh subprocess; the
two take turns (after one warm-up run of each, so that both read their files
from the page cache) and each keeps its best wall time and its best CPU time
(user + system, from ``getrusage``). Target: the command within 1.5 times the
import's wall time. The script also checks that the command printed trec_eval's
line for map, and exits with status 1 if it did not.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import platform
import resource
import subprocess
import sys
import time

TARGET = 1.5


def data_files():
    spec = importlib.util.find_spec("sk_rankmetrics")
    if spec is None or not spec.submodule_search_locations:
        sys.exit("sk_rankmetrics is not importable; install it or set PYTHONPATH")
    data = os.path.join(next(iter(spec.submodule_search_locations)), "data")
    return os.path.join(data, "qrels.txt"), os.path.join(data, "bm25.txt")


def run_and_time(argv):
    """Wall and CPU seconds (user + system) of one subprocess, and its output."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    proc = subprocess.run(argv, capture_output=True, text=True)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode != 0:
        sys.exit(f"{' '.join(argv)} failed ({proc.returncode}): {proc.stderr[-500:]}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, proc.stdout


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--repeats",
        type=int,
        default=10,
        help="runs of each command (the best is kept; default 10)",
    )
    args = parser.parse_args(argv)
    if args.repeats < 1:
        parser.error("--repeats must be at least 1")
    qrels, run = data_files()
    baseline = [sys.executable, "-c", "import numpy, scipy.sparse"]
    command = [sys.executable, "-m", "sk_rankmetrics", "trec_eval", "-m", "map", qrels, run]
    run_and_time(baseline)  # warm-up: files into the page cache
    _, _, printed = run_and_time(command)
    best = {"baseline": [float("inf"), float("inf")], "command": [float("inf"), float("inf")]}
    for i in range(args.repeats):
        print(f"round {i + 1}/{args.repeats}", file=sys.stderr)
        for key, cmd in (("baseline", baseline), ("command", command)):
            wall, cpu, _ = run_and_time(cmd)
            best[key][0] = min(best[key][0], wall)
            best[key][1] = min(best[key][1], cpu)
    (cw, cc), (bw, bc) = best["command"], best["baseline"]
    ratio = cw / bw
    print(
        f"Start-up of the command line, best of {args.repeats} runs each, taking turns; "
        f"{os.cpu_count()} CPUs, Python {platform.python_version()}; load average at the "
        f"end {', '.join(f'{x:.2f}' for x in os.getloadavg())}"
    )
    print()
    print("| case | sk_rankmetrics | baseline | ratio | target | met |")
    print("|---|---|---|---|---|---|")
    print(
        f"| `sk-rankmetrics trec_eval -m map` on the bundled files vs "
        f'`python -c "import numpy, scipy.sparse"`, wall time | {cw:.3f} s | {bw:.3f} s | '
        f"{ratio:.2f}× the import's time | ≤ {TARGET}× | {'yes' if ratio <= TARGET else 'no'} |"
    )
    print(
        f"| same, CPU time (user + system) | {cc:.3f} s | {bc:.3f} s | {cc / bc:.2f}× | "
        "(informational) | — |"
    )
    ok = printed.split() == ["map", "all", "0.4443"]
    print()
    print(
        f"- the command printed {printed.strip()!r}: "
        f"{'OK' if ok else 'FAILED (expected map all 0.4443)'}"
    )
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
