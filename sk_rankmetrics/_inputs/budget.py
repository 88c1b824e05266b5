"""How many rows a block holds: the memory budget of one ranking pass."""

from __future__ import annotations

from .._ranking.block import depth

#: Elements of one (rows x items) block ranked to a cut-off: a few float64 /
#: int64 temporaries of this size are alive at once (2 MiB each). The
#: kernels then work on (rows x cut-off) arrays, which should not be so small
#: that the per-call cost of NumPy dominates (evaluate runs dozens of them).
CHUNK_ELEMENTS = 1 << 18  # full sorts (k=None): full_block_elements

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


#: Elements of one block of a dense matrix ranked without a cut-off. Blocks of
#: 2**16 (65 rows of 1,000) spent much of their time in the NumPy calls of each
#: block, and on two threads in holding the interpreter's lock for them: on
#: 10,000 x 1,000 with sparse relevance, nDCG and AP without a cut-off took 2.5x
#: as long as in blocks of 2**18 on two threads, 1.2-1.3x on one; a row argsort
#: costs the same in either (measured 2026-11-29). Blocks of 2**19 halve the
#: calls again: on one thread, against 2**18, a median 0.94x over nDCG, AP and
#: MRR on 100,000 x 100 (0.85-1.05x over float64, float32 and integer scores,
#: four relevance distributions) and over nDCG, AP, ERR and bpref on 10,000 x
#: 1,000 (0.70-1.13x); 2**20 was no faster overall (measured 2026-12-01).
FULL_DENSE_ELEMENTS = CHUNK_ELEMENTS * DENSE_FACTOR


def full_block_elements(dense=False):
    """Elements of one block ranked without a cut-off (a full sort per row)."""
    # Padded long-format blocks keep half: their rows are grouped and padded
    # per block, and the measures that take the argsort's route there (bpref,
    # which reads which items are judged) are slower in larger blocks. Since
    # padded blocks are ranked by their levels' keys (ranking/levels.py), 2**18
    # against the quarter (2**16) they kept: nDCG, AP, ERR, RBP, ndcg_rel and
    # MRR over queries of 20-100 items, 0.74-0.95x the time (float64, float32
    # and integer scores, sparse and dense graded relevance); bpref 0.99-1.08x;
    # 2**19 took bpref to 1.29x (measured 2026-12-03). (ERR kept a quarter too
    # while its tie expectation ran every tied group to the block's largest
    # column count; per group, it is faster in whole blocks: on 10,000 x 1,000,
    # dense graded relevance, 1.14x -> 0.98x a row argsort over float32 scores,
    # 4.2x -> 3.2x over integer scores; graded on 5 % over float64, 1.42x ->
    # 1.11x; measured 2026-11-29.)
    if not dense:
        return CHUNK_ELEMENTS
    return FULL_DENSE_ELEMENTS


def _budget(requests, dense=False):
    needs_full, _ = depth(requests)
    if needs_full:
        return full_block_elements(dense)
    return CHUNK_ELEMENTS * DENSE_FACTOR if dense else CHUNK_ELEMENTS
