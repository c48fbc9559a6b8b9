"""The ANN index is a cache of the store: built in the background, saved, reloaded only
when it matches the store, rebuilt when stale; retrieval is exact throughout."""

from __future__ import annotations

import asyncio
from pathlib import Path

import numpy as np

from npc_brain.memory.records import MemoryKind, NewMemory
from npc_brain.memory.retrieval import Weights
from npc_brain.memory.stream import Query
from npc_brain.mind.world import World, WorldRegistry
from npc_brain.persona import AgentRecord, Persona

DIM = 8


def _open(tmp_path: Path) -> World:
    return WorldRegistry(tmp_path, "fake", DIM, exact_limit=50).get("default")


def _add(world: World, n: int, seed: int) -> None:
    rng = np.random.default_rng(seed)
    vectors = rng.normal(size=(n, DIM)).astype(np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    memories = [NewMemory(MemoryKind.OBSERVATION, f"m{seed}.{i}", float(i), 5.0) for i in range(n)]
    world.remember("a", memories, vectors)


def _top(world: World) -> list[int]:
    query = Query(np.eye(1, DIM, dtype=np.float32)[0], 1000.0, 10, Weights(), 0.995)
    return [m.memory.memory_id for m in world.stream("a").retrieve(query)]


async def _indexed(world: World) -> bool:
    """Waits (up to 5 s) for the background build to be adopted."""
    for _ in range(500):
        if world.stream("a").ann is not None:
            return True
        await asyncio.sleep(0.01)
    return False


def test_index_is_built_saved_reloaded_and_rebuilt_when_stale(tmp_path: Path) -> None:
    async def scenario() -> None:
        world = _open(tmp_path)
        world.store.upsert_agent(AgentRecord("a", Persona("A")))
        _add(world, 40, seed=1)
        assert world.stream("a").ann is None  # small: scored in full
        exact = _top(world)
        _add(world, 40, seed=2)  # crosses the limit: built in the background
        before = _top(world)
        assert await _indexed(world)
        assert _top(world) == before and set(exact) <= set(range(1, 81))
        world.close()

        reopened = _open(tmp_path)
        assert reopened.stream("a").ann is not None  # loaded, matches the store
        assert _top(reopened) == before
        _add(reopened, 5, seed=3)
        after_add = _top(reopened)
        reopened.store.close()  # a crash: the saved index is now stale

        again = _open(tmp_path)
        assert again.stream("a").ann is None  # stale: not trusted
        assert _top(again) == after_add
        assert await _indexed(again)
        again.close()

    asyncio.run(scenario())
