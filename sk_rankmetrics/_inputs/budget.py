"""How many rows a block holds: the memory budget of one ranking pass."""

from __future__ import annotations

from .._ranking.block import depth

#: Elements of one (rows x items) block ranked to a cut-off: a few float64 /
#: int64 temporaries of this size are alive at once (2 MiB each). The
#: kernels then work on (rows x cut-off) arrays, which should not be so small
#: that the per-call cost of NumPy dominates (evaluate runs dozens of them).
CHUNK_ELEMENTS = 1 << 18  # a quarter for full sorts (k=None)

#: Dense matrices ranked to a cut-off take blocks this many times larger: with
#: every measure at 100 on 1,000 items, blocks of 2**18 spent a third of the
#: time in NumPy calls on 256-row blocks. Blocks of 2**20 (8 MiB of float64
#: scores, as much again of int64 or float64 relevance) leave the CPU cache:
#: on 100,000 x 100 they were 10-30 % slower than 2**19, which ranks 10,000 x
#: 1,000 as fast. (Padded long-format blocks are slower with larger blocks:
#: their rows are grouped and padded per block.)
DENSE_FACTOR = 2

#: Largest key ``row * span + code`` allowed in one block (int64 headroom).
_KEY_LIMIT = 1 << 62


def _budget(requests, dense=False):
    # A full sort per row touches more memory per element than a top-k
    # partition; smaller blocks keep its working set in the CPU cache.
    needs_full, _ = depth(requests)
    if needs_full:
        return CHUNK_ELEMENTS // 4
    return CHUNK_ELEMENTS * DENSE_FACTOR if dense else CHUNK_ELEMENTS
