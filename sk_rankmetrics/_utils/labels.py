"""The key of a result: a metric's name, with the cut-off a global ``k`` gave it.

One rule for every entry point that takes a global ``k``
(:func:`~sk_rankmetrics.evaluate_ranked`,
:func:`~sk_rankmetrics.evaluate_embeddings`): a name without a cut-off, of a
metric that takes one, is scored at ``k`` and keyed ``name@k``, so that
``["ndcg"], k=10`` and ``["ndcg@10"]`` give the same key (and the key read
back as a name gives the same metric). A name with its own cut-off, and a
metric without one (R-precision, bpref), keep the name as written. Entry
points without a global ``k`` key every result by the name as written.
"""

from __future__ import annotations


def with_cutoff(label, k):
    """``label`` scored at the global cut-off ``k``: ``"ndcg"`` -> ``"ndcg@10"``.

    The caller applies it only to a name without a cut-off, of a metric that
    takes one, when ``k`` is given."""
    return f"{label}@{k}"


def twice_at_k(labels, k):
    """The end of the error for a metric named twice, when the global ``k``
    made the second name (``"ndcg"`` with ``k=10`` beside ``"ndcg@10"``)."""
    if k is None or not any(label.endswith(f"@{k}") for label in labels):
        return ""
    return f" (with k={k}, a name without a cut-off is scored and keyed at @{k})"
