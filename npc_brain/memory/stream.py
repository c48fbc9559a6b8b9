"""One agent's memory stream in RAM: records, score columns and a FAISS index.

It is a cache of the store, rebuilt from it on first use, and kept in step with
every write. Retrieval scores candidates exactly with the paper's formula: all
memories when the stream is small, otherwise the FAISS top matches by relevance
plus the most recent and the most important ones.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

import faiss
import numpy as np
from numpy.typing import NDArray

from npc_brain.memory.records import GameTime, MemoryKind, MemoryRecord, ScoredMemory
from npc_brain.memory.retrieval import Weights, score, top_k


class AgentStream:
    """The memories of one agent, with their embeddings, ready to score."""

    def __init__(self, dimension: int, exact_limit: int = 4096, per_source: int = 256) -> None:
        self.dimension = dimension
        self.exact_limit = exact_limit
        self.per_source = per_source
        self.records: list[MemoryRecord] = []
        self._positions: dict[int, int] = {}
        self._vectors = np.zeros((0, dimension), dtype=np.float32)
        self._last_accessed = np.zeros(0, dtype=np.float64)
        self._importance = np.zeros(0, dtype=np.float64)
        self._kinds = np.zeros(0, dtype=np.int8)
        self._index = faiss.IndexFlatIP(dimension)

    def __len__(self) -> int:
        return len(self.records)

    def add(self, records: Sequence[MemoryRecord], vectors: NDArray[np.float32]) -> None:
        """Appends stored records (in id order) and their unit-length embeddings."""
        if not records:
            return
        vectors = np.ascontiguousarray(vectors, dtype=np.float32)
        for record in records:
            self._positions[record.memory_id] = len(self.records)
            self.records.append(record)
        self._vectors = np.concatenate([self._vectors, vectors])
        self._last_accessed = np.concatenate(
            [self._last_accessed, [r.last_accessed for r in records]]
        )
        self._importance = np.concatenate([self._importance, [r.importance for r in records]])
        self._kinds = np.concatenate([self._kinds, [int(r.kind) for r in records]]).astype(np.int8)
        self._index.add(vectors)

    def recent(self, n: int) -> list[MemoryRecord]:
        """The n newest memories, oldest first."""
        return self.records[-n:] if n > 0 else []

    def score_candidates(
        self,
        query: NDArray[np.float32],
        *,
        now: GameTime,
        k: int,
        weights: Weights,
        decay: float,
        kinds: Sequence[MemoryKind] = (),
    ) -> list[ScoredMemory]:
        """The k best memories for a unit-length query vector, best first."""
        candidates = self._candidates(query, kinds)
        if candidates.size == 0:
            return []
        relevance = self._vectors[candidates] @ query
        terms = score(
            self._last_accessed[candidates],
            self._importance[candidates],
            relevance.astype(np.float64),
            now=now,
            decay=decay,
            weights=weights,
        )
        return [
            ScoredMemory(
                self.records[int(candidates[i])],
                float(terms.score[i]),
                float(terms.recency[i]),
                float(terms.importance[i]),
                float(terms.relevance[i]),
            )
            for i in top_k(terms.score, k)
        ]

    def touch(self, memories: Sequence[MemoryRecord], now: GameTime) -> list[MemoryRecord]:
        """Marks memories as accessed at `now`; returns the updated records."""
        updated = []
        for memory in memories:
            i = self._positions[memory.memory_id]
            record = replace(self.records[i], last_accessed=now)
            self.records[i] = record
            self._last_accessed[i] = now
            updated.append(record)
        return updated

    def _candidates(
        self, query: NDArray[np.float32], kinds: Sequence[MemoryKind]
    ) -> NDArray[np.intp]:
        allowed = (
            np.isin(self._kinds, [int(k) for k in kinds])
            if kinds
            else np.ones(len(self.records), dtype=bool)
        )
        if len(self.records) <= self.exact_limit:
            return np.flatnonzero(allowed)
        _, found = self._index.search(query.reshape(1, -1), self.per_source)
        recent = np.arange(max(0, len(self.records) - self.per_source), len(self.records))
        important = np.argsort(-self._importance, kind="stable")[: self.per_source]
        union = np.unique(np.concatenate([found[0][found[0] >= 0], recent, important]))
        return np.asarray(union[allowed[union]], dtype=np.intp)
