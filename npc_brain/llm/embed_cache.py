"""Embeddings cached by text: games repeat observations, queries and lines a lot.

A bounded LRU from text to its (read-only) embedding row. `lookup` answers from the
cache alone, so a caller on the event loop can skip the embedder's thread when every
text is known; `fill` stores the rows the embedder computed for the texts that were
missing (each distinct text once, in one batch).
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Sequence

import numpy as np
from numpy.typing import NDArray


class EmbeddingCache:
    """Text -> embedding row, least recently used first out; `capacity` 0 turns it off."""

    def __init__(self, capacity: int, dimension: int) -> None:
        if capacity < 0:
            raise ValueError(f"capacity must be >= 0, got {capacity}")
        self.capacity = capacity
        self.dimension = dimension
        self.hits = 0
        self.misses = 0
        self._rows: OrderedDict[str, NDArray[np.float32]] = OrderedDict()
        self._lock = threading.Lock()  # the embedder's thread may fill while the loop reads

    def __len__(self) -> int:
        return len(self._rows)

    def lookup(self, texts: Sequence[str]) -> tuple[NDArray[np.float32], list[str]]:
        """Rows for `texts` (zeros where unknown) and the distinct texts still missing."""
        out = np.zeros((len(texts), self.dimension), dtype=np.float32)
        missing: dict[str, None] = {}
        with self._lock:
            for i, text in enumerate(texts):
                row = self._rows.get(text)
                if row is None:
                    missing[text] = None
                    self.misses += 1
                else:
                    self._rows.move_to_end(text)
                    out[i] = row
                    self.hits += 1
        return out, list(missing)

    def fill(
        self,
        out: NDArray[np.float32],
        texts: Sequence[str],
        computed_for: Sequence[str],
        computed: NDArray[np.float32],
    ) -> NDArray[np.float32]:
        """Puts the computed rows into `out` where their texts are, and into the cache."""
        by_text = dict(zip(computed_for, computed, strict=True))
        for i, text in enumerate(texts):
            row = by_text.get(text)
            if row is not None:
                out[i] = row
        if self.capacity:
            with self._lock:
                for text, row in by_text.items():
                    kept = row.copy()
                    kept.flags.writeable = False
                    self._rows[text] = kept
                    self._rows.move_to_end(text)
                while len(self._rows) > self.capacity:
                    self._rows.popitem(last=False)
        return out
