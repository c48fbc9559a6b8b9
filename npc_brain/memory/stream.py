"""One agent's memory stream in RAM: records, score columns and an optional ANN index.

It is a cache of the store, loaded from it on first use and kept in step with every
write. Small streams score every memory exactly. Large ones get an ANN index over their
distinct texts (NPC streams repeat themselves: "Bram is reading" comes back daily), and
score candidates exactly: every memory of the best-matching texts, plus every memory
whose recency and importance alone could still beat the k-th of those, with the
normalisation ranges of the whole stream. Only the ANN search itself is approximate.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

import numpy as np
from numpy.typing import NDArray

from npc_brain.memory.ann import AnnIndex
from npc_brain.memory.records import (
    GameTime,
    MemoryKind,
    MemoryRecord,
    MemorySummary,
    ScoredMemory,
    untrack,
)
from npc_brain.memory.retrieval import (
    Range,
    ScoreTerms,
    Weights,
    fused,
    min_max,
    recency_score,
    score,
    top_k,
)

EXACT_LIMIT = 10_000
FIRST_CANDIDATES = 64
NOVELTY_NEIGHBOURS = 5  # the nearest other texts a memory's novelty is measured against
# The most (memory, text) pairs novelty compares (about 3 ms on 2 cores): a larger
# window keeps relevance.
NOVELTY_PAIRS = 250_000


@dataclass(frozen=True)
class Query:
    """A retrieval: a unit-length query vector, the time now, and filters."""

    vector: NDArray[np.float32]
    now: GameTime
    k: int
    weights: Weights
    decay: float
    kinds: Sequence[MemoryKind] = ()
    created_after: GameTime | None = None
    created_before: GameTime | None = None
    told_to: str | None = None  # for telling this listener: only memories it may be told
    # Hybrid retrieval: the ids of the memories sharing words with the query, best BM25
    # first (WorldStore.lexical); None: the paper's retrieval, by embedding alone.
    lexical: tuple[int, ...] | None = None
    # Hybrid retrieval of a question that asks only what happened in its window ("did
    # anything happen on the 27th?"): relevance is then how unlike the stream's other
    # memories a memory is (AgentStream.novelty), not its likeness to the question.
    notable: bool = False


@dataclass(frozen=True)
class Explained:
    """A retrieval explained (AgentStream.explain): the chosen top k, best first; the
    most important memories left out and the memory asked about, with their ranks; and
    how many memories the query could return."""

    chosen: list[ScoredMemory]
    left_out: list[tuple[int, ScoredMemory]]
    focus: tuple[int, ScoredMemory] | None
    candidates: int


class _Column:
    """A numpy array that grows by doubling, so appends stay cheap at 100k rows. Rows
    appended wait in a list until the column is read: a Tick appends to a hundred
    streams a row each, and reads none of them."""

    def __init__(self, dtype: type, width: int = 0) -> None:
        self._shape = (width,) if width else ()
        self._data = np.zeros((16, *self._shape), dtype=dtype)
        self._size = 0
        self._pending: list[Any] = []  # values of a scalar column, arrays of a wide one

    @property
    def data(self) -> NDArray[Any]:
        if self._pending:
            self._settle()
        return self._data[: self._size]

    def extend(self, values: Sequence[Any] | NDArray[Any]) -> None:
        """Appends rows: a sequence of values, or an (n, width) array for a wide column."""
        if self._shape:
            self._pending.append(values)
        else:
            self._pending.extend(values)

    def _settle(self) -> None:
        """Moves the waiting rows into the array."""
        if self._shape:
            rows = np.concatenate([np.asarray(v, self._data.dtype) for v in self._pending])
        else:
            rows = np.asarray(self._pending, dtype=self._data.dtype)
        self._pending = []
        needed = self._size + len(rows)
        if needed > len(self._data):
            grown = np.zeros((max(needed, 2 * len(self._data)), *self._shape), self._data.dtype)
            grown[: self._size] = self._data[: self._size]
            self._data = grown
        self._data[self._size : needed] = rows
        self._size = needed


class _RecordColumns:
    """The score columns of a stream's records, filled from the records themselves when
    read (`filled`): a Tick adds a record to a hundred streams and reads none of them."""

    def __init__(self, records: list[MemoryRecord]) -> None:
        self._records = records
        self._filled = 0  # records whose values the columns hold
        self.created = _Column(np.float64)
        self.last_accessed = _Column(np.float64)
        self.importance = _Column(np.float64)
        self.expires = _Column(np.float64)
        self.kinds = _Column(np.int8)
        self.alive = _Column(np.bool_)  # a record added is remembered; forget clears it

    def filled(self) -> _RecordColumns:
        """The columns, holding every record added so far."""
        if self._filled < len(self._records):
            new = self._records[self._filled :]
            self.created.extend([r.created for r in new])
            self.last_accessed.extend([r.last_accessed for r in new])
            self.importance.extend([r.importance for r in new])
            self.expires.extend([np.inf if r.expires is None else r.expires for r in new])
            self.kinds.extend([int(r.kind) for r in new])
            self.alive.extend([True] * len(new))
            self._filled = len(self._records)
        return self


class AgentStream:
    """The memories of one agent, with their embeddings, ready to score."""

    def __init__(
        self,
        dimension: int,
        exact_limit: int = EXACT_LIMIT,
        first_candidates: int = FIRST_CANDIDATES,
    ) -> None:
        self.dimension = dimension
        self.exact_limit = exact_limit
        self.first_candidates = first_candidates
        self.records: list[MemoryRecord] = []
        self.ann: AnnIndex | None = None
        self._positions: dict[int, int] = {}
        self._vectors = _Column(np.float32, dimension)
        self._columns = _RecordColumns(self.records)
        self._text_of = _Column(np.int64)  # position -> distinct text number (the ANN's id)
        self._text_numbers: dict[str, int] = {}
        self._text_first: list[int] = []  # distinct text number -> its first position
        self._text_vectors = _Column(np.float32, dimension)  # distinct text number -> vector
        self._restricted: list[int] = []  # positions of memories not for everyone's ears
        self._last_reflection = -1  # position of the newest reflection (forgotten or not)
        self._importance_since_reflection = 0.0

    @property
    def _scores(self) -> _RecordColumns:
        """The score columns, read or written only through here (filled first)."""
        return self._columns.filled()

    def __len__(self) -> int:
        """Memories that have not been forgotten."""
        return len(self._positions)

    @property
    def forgotten(self) -> int:
        return len(self.records) - len(self._positions)

    def add(self, records: Sequence[MemoryRecord], vectors: NDArray[np.float32]) -> None:
        """Appends stored records (in id order) and their unit-length embeddings."""
        if not records:
            return
        untrack(records)
        start = len(self.records)
        new_texts = []  # offsets in records of texts the stream has not held before
        text_numbers = []
        for offset, record in enumerate(records):
            position = start + offset
            self._positions[record.memory_id] = position
            number = self._text_numbers.setdefault(record.description, len(self._text_first))
            if number == len(self._text_first):
                self._text_first.append(position)
                new_texts.append(offset)
            text_numbers.append(number)
            if record.sharing.restricted:
                self._restricted.append(position)
            if record.kind == MemoryKind.REFLECTION:
                self._last_reflection = position
                self._importance_since_reflection = 0.0
            elif _feeds_trigger(record):
                self._importance_since_reflection += record.importance
        self.records.extend(records)
        self._text_of.extend(text_numbers)
        self._vectors.extend(vectors)
        if len(new_texts) == len(records):
            self._text_vectors.extend(vectors)
        elif new_texts:
            self._text_vectors.extend(np.asarray(vectors)[new_texts])
        if self.ann is not None and new_texts:
            self.ann.add(self._text_vectors.data[len(self._text_first) - len(new_texts) :])

    def get(self, memory_id: int) -> MemoryRecord | None:
        position = self._positions.get(memory_id)
        return None if position is None else self.records[position]

    def forget(self, memory_id: int) -> bool:
        """Drops a memory from every answer; False if it is not here."""
        position = self._positions.pop(memory_id, None)
        if position is None:
            return False
        self._scores.alive.data[position] = False
        if position > self._last_reflection and _feeds_trigger(self.records[position]):
            self._importance_since_reflection -= self.records[position].importance
        return True

    def reflected(self) -> None:
        """Resets the reflection trigger: a reflection that stored no insight still
        counts as one, or the trigger would fire again on every new memory."""
        self._last_reflection = len(self.records) - 1
        self._importance_since_reflection = 0.0

    @property
    def importance_since_reflection(self) -> float:
        """Summed importance of the remembered memories newer than the latest reflection
        (the paper's reflection trigger), kept up to date by add and forget; the agent's
        post-conversation thoughts do not count (nor do they reset it)."""
        return self._importance_since_reflection

    def summary(self, recent_seconds: float) -> MemorySummary:
        """How many memories are remembered, the latest game time they show (created or
        last accessed), and how many were created in the `recent_seconds` before it."""
        alive = self._scores.alive.data
        if not alive.any():
            return MemorySummary(0, 0, None)
        latest = float(self._scores.last_accessed.data[alive].max())
        recent = int((self._scores.created.data[alive] >= latest - recent_seconds).sum())
        return MemorySummary(len(self), recent, latest)

    def ever_held(self, description: str) -> bool:
        """Whether a memory with exactly this text was ever stored (even if forgotten)."""
        return description in self._text_numbers

    def mentions(self, words: str) -> bool:
        """Whether any text ever stored says `words` (case aside): a name the agent heard
        of, though nobody of the world bears it. A scan of the distinct texts."""
        low = words.lower()
        return any(low in text.lower() for text in self._text_numbers)

    def within(self, start: GameTime, end: GameTime) -> list[MemoryRecord]:
        """The remembered memories created in [start, end), oldest first."""
        created = self._scores.created.data
        inside = self._scores.alive.data & (created >= start) & (created < end)
        return [self.records[int(p)] for p in np.flatnonzero(inside)]

    def recent(self, n: int) -> list[MemoryRecord]:
        """The n newest remembered memories, oldest first."""
        if len(self._positions) == len(self.records):  # none forgotten
            return self.records[-n:] if n > 0 else []
        found: list[MemoryRecord] = []
        for record in reversed(self.records):
            if len(found) == n:
                break
            if record.memory_id in self._positions:
                found.append(record)
        return found[::-1]

    def withheld_from(self, listener: str) -> list[MemoryRecord]:
        """The remembered memories the agent may not tell `listener` (Sharing.allows)."""
        records = (self.records[p] for p in self._restricted)
        return [
            r for r in records if r.memory_id in self._positions and not r.sharing.allows(listener)
        ]

    def touch(self, memories: Sequence[MemoryRecord], now: GameTime) -> list[MemoryRecord]:
        """Marks memories as accessed at `now`; returns the updated records."""
        updated = []
        for memory in memories:
            i = self._positions[memory.memory_id]
            record = replace(self.records[i], last_accessed=now)
            untrack((record,))
            self.records[i] = record
            self._scores.last_accessed.data[i] = now
            updated.append(record)
        return updated

    # The ANN index ---------------------------------------------------------------

    def needs_index(self) -> bool:
        """True when the stream has too many distinct texts to compare with them all."""
        return self.ann is None and self.distinct_texts > self.exact_limit

    @property
    def distinct_texts(self) -> int:
        """How many distinct texts the stream holds: the size of its ANN index."""
        return len(self._text_first)

    def vectors_to_index(self) -> NDArray[np.float32]:
        """A copy of each distinct text's embedding, to build an index off the event loop."""
        return np.array(self._text_vectors.data, dtype=np.float32)

    def adopt_index(self, index: AnnIndex) -> None:
        """Takes an index built over the first index.count distinct texts; adds the rest."""
        if self.ann is not None or index.count > self.distinct_texts:
            return
        index.add(self._text_vectors.data[index.count :])
        self.ann = index

    # Retrieval -------------------------------------------------------------------

    def retrieve(self, query: Query) -> list[ScoredMemory]:
        """The k best memories for the query, best first (scores exact)."""
        allowed = self._allowed(query)
        count = int(allowed.sum())
        if count == 0:
            return []
        recency = recency_score(self._scores.last_accessed.data, query.now, query.decay)
        if query.lexical is not None:
            return self._retrieve_hybrid(query, allowed, count, recency)
        if count <= self.exact_limit or (self.ann is None and self.needs_index()):
            return self._retrieve_exactly(query, allowed, recency)
        return self._retrieve_from_candidates(query, allowed, count, recency)

    def _retrieve_hybrid(
        self,
        query: Query,
        allowed: NDArray[np.bool_],
        count: int,
        recency: NDArray[np.float64],
    ) -> list[ScoredMemory]:
        positions, terms, dense_rank, lexical_rank = self._hybrid_terms(
            query, allowed, count, recency
        )
        return [
            self._scored(positions, terms, i, dense_rank, lexical_rank)
            for i in top_k(terms.score, query.k)
        ]

    def _hybrid_terms(
        self,
        query: Query,
        allowed: NDArray[np.bool_],
        count: int,
        recency: NDArray[np.float64],
    ) -> tuple[NDArray[np.intp], ScoreTerms, NDArray[np.intp], NDArray[np.intp]]:
        """Hybrid retrieval's terms for every allowed memory: the paper's recency and
        importance, and as relevance the ranks by embedding and by BM25 (query.lexical)
        fused (retrieval.fused), min-max normalised over the memories either list ranks;
        a memory in neither has relevance 0. Returns the allowed positions, their terms
        and their two ranks (0: not ranked)."""
        size = max(self.first_candidates, 4 * query.k)
        positions = np.flatnonzero(allowed)
        dense = self._dense_order(query.vector, allowed, count, size)
        held = [p for i in query.lexical or () if (p := self._positions.get(i)) is not None]
        lexical = np.asarray([p for p in held if allowed[p]][:size], dtype=np.intp)
        dense_rank, lexical_rank = (
            _ranks(len(self.records), dense),
            _ranks(len(self.records), lexical),
        )
        dense_rank, lexical_rank = dense_rank[positions], lexical_rank[positions]
        if query.notable and len(positions) * self.distinct_texts <= NOVELTY_PAIRS:
            relevance = min_max(self.novelty(positions))
        else:
            relevance = fused(dense_rank, lexical_rank)
            ranked = relevance[relevance > 0]
            if len(ranked):  # min-max over the ranked memories; those in neither list: 0
                span = Range(float(ranked.min()), float(ranked.max()))
                relevance = np.where(relevance > 0, span.normalise(relevance), 0.0)
        terms = score(
            recency[positions],
            self._scores.importance.data[positions].astype(np.float64),
            relevance,
            weights=query.weights,
            ranges=(
                Range.of(recency[positions]),
                Range.of(self._scores.importance.data[positions].astype(np.float64)),
                Range(0.0, 1.0),
            ),
        )
        return positions, terms, dense_rank, lexical_rank

    def novelty(self, positions: NDArray[np.intp]) -> NDArray[np.float64]:
        """How unlike the rest of the stream each memory at `positions` is: 1 minus the
        mean cosine of the NOVELTY_NEIGHBOURS other distinct texts nearest it. What a
        stream says every day ("raked the lock gates") is near many; what happened once
        (a found purse, a flood) is near few."""
        texts = self._text_vectors.data
        own = self._text_of.data[positions]
        sims = self._vectors.data[positions] @ texts.T
        sims[np.arange(len(positions)), own] = -np.inf
        near = min(NOVELTY_NEIGHBOURS, texts.shape[0] - 1)
        if near <= 0:
            return np.zeros(len(positions), dtype=np.float64)
        nearest = -np.partition(-sims, near - 1, axis=1)[:, :near]
        return np.asarray(1.0 - nearest.mean(axis=1), dtype=np.float64)

    def _scored(
        self,
        positions: NDArray[np.intp],
        terms: ScoreTerms,
        i: int,
        dense_rank: NDArray[np.intp] | None = None,
        lexical_rank: NDArray[np.intp] | None = None,
    ) -> ScoredMemory:
        """The memory at `positions[i]` with its terms (and ranks, for hybrid)."""
        return ScoredMemory(
            self.records[int(positions[i])],
            float(terms.score[i]),
            float(terms.recency[i]),
            float(terms.importance[i]),
            float(terms.relevance[i]),
            0 if dense_rank is None else int(dense_rank[i]),
            0 if lexical_rank is None else int(lexical_rank[i]),
        )

    def _dense_order(
        self, vector: NDArray[np.float32], allowed: NDArray[np.bool_], count: int, size: int
    ) -> NDArray[np.intp]:
        """The positions of the allowed memories nearest `vector`, nearest first, at most
        `size`: by their distinct texts (a stream says the same thing often), every text
        scored while there is no ANN index, its best texts beyond; a text's memories in
        their order."""
        texts_allowed = np.zeros(self.distinct_texts, dtype=np.bool_)
        texts_allowed[self._text_of.data[allowed]] = True
        if self.ann is None:
            sims = np.where(texts_allowed, self._text_vectors.data @ vector, -np.inf)
            wanted = min(size, int(texts_allowed.sum()))
            texts = np.argpartition(-sims, wanted - 1)[:wanted]
        else:
            texts, _, _ = self._text_matches(vector, texts_allowed)
            sims = np.full(self.distinct_texts, -np.inf)
            sims[texts] = self._text_vectors.data[texts] @ vector
        text_rank = np.full(self.distinct_texts, len(texts), dtype=np.intp)
        text_rank[texts[np.argsort(-sims[texts], kind="stable")]] = np.arange(len(texts))
        positions = np.flatnonzero(allowed & (text_rank < len(texts))[self._text_of.data])
        order = np.lexsort((positions, text_rank[self._text_of.data[positions]]))
        return np.asarray(positions[order][:size], dtype=np.intp)

    def explain(self, query: Query, left_out: int, focus: int | None = None) -> Explained:
        """What `retrieve` answers and why: the top k, then the `left_out` most important
        memories outside it (ties: the better ranked first), and the memory `focus`, each
        with its rank among every memory the query may return. Nothing is marked accessed.

        Every memory is scored exactly, by the very code `retrieve` runs up to
        `exact_limit` memories, so `chosen` is retrieve's answer, number for number; beyond,
        retrieve's relevance range comes from its candidates and may differ in the last
        digits."""
        allowed = self._allowed(query)
        count = int(allowed.sum())
        if count == 0:
            return Explained([], [], None, 0)
        recency = recency_score(self._scores.last_accessed.data, query.now, query.decay)
        dense_rank = lexical_rank = None
        if query.lexical is not None:
            positions, terms, dense_rank, lexical_rank = self._hybrid_terms(
                query, allowed, count, recency
            )
        else:
            positions, terms = self._terms_exactly(query, allowed, recency)
        order = np.argsort(-terms.score, kind="stable")  # as top_k ranks them
        rank = np.empty(len(order), dtype=np.intp)
        rank[order] = np.arange(1, len(order) + 1)
        rest = order[query.k :]
        importance = self._scores.importance.data[positions[rest]]
        outside = rest[np.lexsort((rank[rest], -importance))[:left_out]]

        def scored(i: int) -> ScoredMemory:
            return self._scored(positions, terms, i, dense_rank, lexical_rank)

        focused = None
        if focus is not None and focus in self._positions:
            found = np.flatnonzero(positions == self._positions[focus])
            if len(found):
                focused = (int(rank[found[0]]), scored(int(found[0])))
        return Explained(
            [scored(int(i)) for i in order[: query.k]],
            [(int(rank[i]), scored(int(i))) for i in outside],
            focused,
            count,
        )

    def _allowed(self, query: Query) -> NDArray[np.bool_]:
        allowed = self._scores.alive.data & (self._scores.expires.data > query.now)
        if query.kinds:
            allowed &= np.isin(self._scores.kinds.data, [int(k) for k in query.kinds])
        if query.created_after is not None:
            allowed &= self._scores.created.data >= query.created_after
        if query.created_before is not None:
            allowed &= self._scores.created.data < query.created_before
        if query.told_to is not None:
            for position in self._restricted:
                if not self.records[position].sharing.allows(query.told_to):
                    allowed[position] = False
        return np.asarray(allowed, dtype=np.bool_)

    def _retrieve_exactly(
        self, query: Query, allowed: NDArray[np.bool_], recency: NDArray[np.float64]
    ) -> list[ScoredMemory]:
        return self._best(*self._terms_exactly(query, allowed, recency), query.k)

    def _terms_exactly(
        self, query: Query, allowed: NDArray[np.bool_], recency: NDArray[np.float64]
    ) -> tuple[NDArray[np.intp], ScoreTerms]:
        """The positions of the allowed memories and their exact terms."""
        if allowed.all():  # no copies of the columns when nothing is filtered out
            positions = np.arange(len(self.records))
            vectors, importance = self._vectors.data, self._scores.importance.data
        else:
            positions = np.flatnonzero(allowed)
            vectors, importance = (
                self._vectors.data[positions],
                self._scores.importance.data[positions],
            )
            recency = recency[positions]
        relevance = (vectors @ query.vector).astype(np.float64)
        terms = score(recency, importance.astype(np.float64), relevance, weights=query.weights)
        return positions, terms

    def _retrieve_from_candidates(
        self,
        query: Query,
        allowed: NDArray[np.bool_],
        count: int,
        recency: NDArray[np.float64],
    ) -> list[ScoredMemory]:
        """Exact top k from the memories of the best-matching texts, plus every memory
        whose recency and importance alone could still beat the k-th of those."""
        weights = query.weights
        importance = self._scores.importance.data
        everything = count == len(self.records)
        rec_range = Range.of(recency if everything else recency[allowed])
        imp_range = Range.of(importance if everything else importance[allowed])
        base = weights.recency * rec_range.normalise(
            recency
        ) + weights.importance * imp_range.normalise(importance)
        texts_allowed = np.ones(self.distinct_texts, dtype=np.bool_)
        if not everything:
            texts_allowed[:] = False
            texts_allowed[self._text_of.data[allowed]] = True
        matched_texts, sims, low = self._text_matches(query.vector, texts_allowed)
        is_match = np.zeros(self.distinct_texts, dtype=np.bool_)
        is_match[matched_texts] = True
        matches = np.flatnonzero(allowed & is_match[self._text_of.data])
        if len(matches) < min(query.k, count):
            return self._retrieve_exactly(query, allowed, recency)
        match_sims = (self._vectors.data[matches] @ query.vector).astype(np.float64)
        rel_range = Range(low, float(sims.max()))
        kth_best = np.partition(
            base[matches] + weights.relevance * rel_range.normalise(match_sims),
            -query.k,
        )[-query.k]
        could_beat = allowed & (
            base + weights.relevance * _normalised(rel_range, sims.min()) >= kth_best
        )
        could_beat[matches] = False
        extra = np.flatnonzero(could_beat)
        if 4 * len(extra) > count:
            return self._retrieve_exactly(query, allowed, recency)
        candidates = np.concatenate([matches, extra])
        relevance = (self._vectors.data[candidates] @ query.vector).astype(np.float64)
        rel_range = Range(
            min(low, float(relevance.min())), max(float(relevance.max()), rel_range.high)
        )
        terms = score(
            recency[candidates],
            importance[candidates],
            relevance,
            weights=weights,
            ranges=(rec_range, imp_range, rel_range),
        )
        return self._best(candidates, terms, query.k)

    def _text_matches(
        self, vector: NDArray[np.float32], texts_allowed: NDArray[np.bool_]
    ) -> tuple[NDArray[np.intp], NDArray[np.float32], float]:
        """The best-matching allowed texts, their similarities, and the lowest similarity
        of any allowed text: exact while the texts are few, from the ANN index beyond."""
        if self.ann is None:
            sims = np.where(texts_allowed, self._text_vectors.data @ vector, np.nan)
            size = min(self.first_candidates, int(texts_allowed.sum()))
            best = np.argpartition(np.nan_to_num(sims, nan=-np.inf), -size)[-size:]
            return best, sims[best], float(np.nanmin(sims))
        mask = None if texts_allowed.all() else texts_allowed
        best, sims = self.ann.search(vector, self.first_candidates, mask)
        _, opposite = self.ann.search(-vector, 1, mask)
        return best, sims, min(float(sims.min()), -float(opposite.max(initial=-sims.min())))

    def _best(self, positions: NDArray[np.intp], terms: ScoreTerms, k: int) -> list[ScoredMemory]:
        return [
            ScoredMemory(
                self.records[int(positions[i])],
                float(terms.score[i]),
                float(terms.recency[i]),
                float(terms.importance[i]),
                float(terms.relevance[i]),
            )
            for i in top_k(terms.score, k)
        ]


def _ranks(length: int, order: NDArray[np.intp]) -> NDArray[np.intp]:
    """Each position's rank in `order` (1 = first), 0 where `order` does not hold it."""
    rank = np.zeros(length, dtype=np.intp)
    rank[order] = np.arange(1, len(order) + 1)
    return rank


def _feeds_trigger(record: MemoryRecord) -> bool:
    """Whether a memory counts toward the reflection trigger: what the agent perceived,
    planned or heard; not its own reflections or its thoughts after a conversation."""
    return record.kind not in (MemoryKind.REFLECTION, MemoryKind.THOUGHT)


def _normalised(value_range: Range, value: float) -> float:
    return float(value_range.normalise(np.array([value], dtype=np.float64))[0])
