"""AgentStream.explain (the inspector's "why this memory"): the top k are retrieve's answer
number for number, the memories left out are the most important outside it, ranks are
the scores' order, and nothing is marked accessed; AgentStream.summary agrees with the
store's."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from numpy.typing import NDArray

from npc_brain.memory.records import MemoryKind, MemoryRecord, NewMemory
from npc_brain.memory.retrieval import Weights
from npc_brain.memory.store import WorldStore
from npc_brain.memory.stream import AgentStream, Query
from npc_brain.persona import AgentRecord, Persona

HOUR = 3600.0
KINDS = list(MemoryKind)


def _stream(seed: int, n: int = 400, dim: int = 16) -> tuple[AgentStream, NDArray[np.float32]]:
    rng = np.random.default_rng(seed)
    vectors = rng.normal(size=(n, dim)).astype(np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    created = np.sort(rng.uniform(0, 200 * HOUR, n))
    records = [
        MemoryRecord(
            kind=KINDS[i % 4],
            description=f"m{i % 150}",  # texts repeat, as NPC streams do
            created=float(created[i]),
            importance=float(rng.integers(1, 11)),
            memory_id=i + 1,
            last_accessed=float(created[i] + rng.uniform(0, 50 * HOUR)),
        )
        for i in range(n)
    ]
    stream = AgentStream(dim)
    stream.add(records, vectors)
    for forgotten in (5, 17, 300):
        stream.forget(forgotten)
    query = rng.normal(size=dim).astype(np.float32)
    return stream, query / np.linalg.norm(query)


@pytest.mark.parametrize("seed", range(6))
def test_explain_is_retrieve_plus_what_it_left_out(seed: int) -> None:
    stream, vector = _stream(seed)
    weights = Weights(0.5, 2.0, 3.0) if seed % 2 else Weights()
    kinds = [MemoryKind.OBSERVATION, MemoryKind.DIALOGUE] if seed % 3 == 0 else []
    after = 20 * HOUR if seed == 4 else None
    query = Query(vector, 260 * HOUR, 10, weights, 0.995, kinds, after)
    before = [r.last_accessed for r in stream.records]

    explained = stream.explain(query, left_out=5, focus=42)

    assert explained.chosen == stream.retrieve(query)  # every number equal
    assert [r.last_accessed for r in stream.records] == before
    chosen = {s.memory.memory_id for s in explained.chosen}
    every = stream.explain(Query(vector, 260 * HOUR, 10_000, weights, 0.995, kinds, after), 0)
    assert explained.candidates == len(every.chosen) == every.candidates
    rank_of = {s.memory.memory_id: i + 1 for i, s in enumerate(every.chosen)}
    outside = [s for s in every.chosen if s.memory.memory_id not in chosen]
    outside.sort(key=lambda s: (-s.memory.importance, rank_of[s.memory.memory_id]))
    assert [(rank, s) for rank, s in explained.left_out] == [
        (rank_of[s.memory.memory_id], s) for s in outside[:5]
    ]
    if explained.focus is not None:
        rank, focused = explained.focus
        assert focused.memory.memory_id == 42 and rank == rank_of[42]
    else:  # filtered out
        assert 42 not in rank_of


def test_explaining_an_empty_or_fully_filtered_stream() -> None:
    stream, vector = _stream(0, n=8)
    nothing = stream.explain(Query(vector, 0.0, 3, Weights(), 0.995, [], 1e12), 5, 1)
    assert (nothing.chosen, nothing.left_out, nothing.focus, nothing.candidates) == (
        [],
        [],
        None,
        0,
    )
    assert AgentStream(16).summary(24 * HOUR).count == 0


def test_the_streams_summary_is_the_stores(tmp_path: Path) -> None:
    store = WorldStore(tmp_path / "w.sqlite3")
    rng = np.random.default_rng(3)
    memories = [NewMemory(MemoryKind.OBSERVATION, f"m{i}", float(i * HOUR), 5.0) for i in range(60)]
    vectors = rng.normal(size=(60, 8)).astype(np.float32)
    store.upsert_agent(AgentRecord("a", Persona("A")))
    stored = store.add_memories("a", memories, vectors)
    store.touch([stored[3].memory_id], 70 * HOUR)
    store.forget("a", stored[59].memory_id)
    records, loaded = store.load_memories("a", 8)
    stream = AgentStream(8)
    stream.add(records, loaded)
    assert stream.summary(24 * HOUR) == store.memory_summary("a", 24 * HOUR)
    assert store.memory_summary("a", 24 * HOUR).latest == 70 * HOUR
    store.close()


@pytest.mark.parametrize("seed", range(4))
def test_a_hybrid_explanation_is_retrieve_with_both_ranks(seed: int) -> None:
    stream, vector = _stream(seed)
    rng = np.random.default_rng(seed)
    lexical = tuple(int(i) for i in rng.choice(np.arange(1, 401), size=30, replace=False))
    query = Query(vector, 260 * HOUR, 10, Weights(), 0.995, lexical=lexical)

    explained = stream.explain(query, left_out=5, focus=lexical[0])

    assert explained.chosen == stream.retrieve(query)  # every number and rank equal
    assert any(s.lexical_rank for s in explained.chosen)
    assert all(s.dense_rank or s.lexical_rank or s.relevance == 0 for s in explained.chosen)
    assert explained.focus is None or explained.focus[1].lexical_rank in (0, 1)
