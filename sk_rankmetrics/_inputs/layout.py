"""The layout contract: what the engine asks of every input layout.

:class:`~.dense.DenseInputs`, :class:`~.long.LongInputs`,
:class:`~.preranked.PrerankedInputs`, :class:`~.diversity.DiversityInputs` and
the catalogue's ``EmbeddingInputs`` meet it (``tests/structure/test_contracts.py``
checks each); a new layout that meets it needs no change to the engine.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any, Protocol, runtime_checkable


@runtime_checkable
class Layout(Protocol):
    """Rows to rank, cut into blocks, each ranked into a ``RankedChunk``."""

    #: Number of rows (queries, users) and the longest row's length.
    n_rows: int
    n_cols: int
    #: Whether the judgements are a diversity qrels (only diversity measures read it).
    diversity: bool

    def blocks(self, requests: Sequence[Any]) -> Iterable[Any]:
        """Payloads of row blocks whose temporaries stay under a fixed budget."""
        ...

    def ranked_chunk(self, payload: Any, requests: Sequence[Any], *,
                     ignore_ties: bool = False) -> Any:
        """The ranked block: per position its tie group and the item values."""
        ...
