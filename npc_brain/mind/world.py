"""Worlds: each one a store file plus the in-RAM streams and minds of its agents."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
from numpy.typing import NDArray

from npc_brain.errors import InvalidArgument, NotFound
from npc_brain.llm.worker import in_fresh_thread
from npc_brain.memory.ann import AnnIndex
from npc_brain.memory.records import MemoryRecord, NewMemory
from npc_brain.memory.store import Perception, WorldStore
from npc_brain.memory.stream import AgentStream
from npc_brain.mind.plan.prompts import plan_from_json, plan_to_json
from npc_brain.mind.state import AgentMind
from npc_brain.persona import AgentRecord

log = logging.getLogger(__name__)


@dataclass
class World:
    """One world: its store, and per-agent streams and minds loaded on first use.

    Streams with more than `exact_limit` memories get an ANN index: loaded from
    `index_dir` when it matches the store, otherwise built on a background thread
    (retrieval stays exact meanwhile, just slower) and saved on close.
    """

    world_id: str
    store: WorldStore
    dimension: int
    index_dir: Path
    exact_limit: int = 10_000
    streams: dict[str, AgentStream] = field(default_factory=dict)
    minds: dict[str, AgentMind] = field(default_factory=dict)
    _building: set[str] = field(default_factory=set)

    def agent(self, agent_id: str) -> AgentRecord:
        agent = self.store.get_agent(agent_id)
        if agent is None:
            raise NotFound(f"agent {agent_id!r} does not exist in world {self.world_id!r}")
        return agent

    def people(self) -> list[str]:
        """The names of the world's agents."""
        found = (self.store.get_agent(agent_id) for agent_id in self.store.agent_ids())
        return [agent.persona.name for agent in found if agent is not None]

    def stream(self, agent_id: str) -> AgentStream:
        """The agent's memory stream, loaded from the store the first time."""
        stream = self.streams.get(agent_id)
        if stream is None:
            stream = AgentStream(self.dimension, exact_limit=self.exact_limit)
            version = self.store.memory_version(agent_id)
            records, vectors = self.store.load_memories(agent_id, self.dimension)
            stream.add(records, vectors)
            if stream.needs_index():
                saved = AnnIndex.load(self._index_path(agent_id), version, len(records))
                if saved is not None:
                    stream.adopt_index(saved)
            self.streams[agent_id] = stream
            self._index_later(agent_id, stream)
        return stream

    def remember(
        self, agent_id: str, memories: Sequence[NewMemory], vectors: NDArray[np.float32]
    ) -> list[MemoryRecord]:
        """Stores memories durably, then adds them to the agent's stream."""
        stream = self.stream(agent_id)  # loaded before the write, so each is added once
        stored = self.store.add_memories(agent_id, memories, vectors)
        stream.add(stored, vectors)
        self._index_later(agent_id, stream)
        return stored

    def perceived(self, perceptions: Sequence[Perception]) -> list[list[MemoryRecord]]:
        """Stores several agents' perceptions in one transaction, then adds the new
        memories to their streams; returns each agent's stored memories."""
        for p in perceptions:
            self.stream(p.agent_id)  # loaded before the write, so each is added once
        stored = self.store.add_perceptions(perceptions)
        for p, memories in zip(perceptions, stored, strict=True):
            if memories:
                stream = self.stream(p.agent_id)
                stream.add(memories, p.vectors)
                self._index_later(p.agent_id, stream)
        return stored

    def forget(self, agent_id: str, memory_id: int) -> bool:
        """Deletes a memory from the store, then from the stream."""
        stream = self.stream(agent_id)
        return self.store.forget(agent_id, memory_id) and stream.forget(memory_id)

    def mind(self, agent_id: str) -> AgentMind:
        """The agent's mind state; its saved plan is loaded the first time."""
        mind = self.minds.get(agent_id)
        if mind is None:
            mind = self.minds[agent_id] = AgentMind(agent_id)
            saved = self.store.load_plan(agent_id)
            if saved is not None:
                mind.plan_day = saved[0]
                mind.plan, mind.hours = plan_from_json(saved[1])
        return mind

    def save_plan(self, agent_id: str) -> None:
        """Stores the agent's plan of the day and its decompositions, durably."""
        mind = self.mind(agent_id)
        if mind.plan is not None and mind.plan_day is not None:
            self.store.save_plan(agent_id, mind.plan_day, plan_to_json(mind.plan, mind.hours))

    def close(self) -> None:
        """Stops the agents' background work, saves the ANN indexes that match the
        store, then closes it."""
        for mind in self.minds.values():
            mind.close()
        for agent_id, stream in self.streams.items():
            if stream.ann is not None and stream.forgotten == 0:
                try:
                    stream.ann.save(self._index_path(agent_id), self.store.memory_version(agent_id))
                except OSError:
                    log.exception("could not save the index of %s; it will be rebuilt", agent_id)
        self.store.close()

    def _index_path(self, agent_id: str) -> Path:
        return self.index_dir / f"{agent_id}.hnsw"

    def _index_later(self, agent_id: str, stream: AgentStream) -> None:
        """Builds a missing index on a worker thread, when there is an event loop."""
        if not stream.needs_index() or agent_id in self._building:
            return
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            return
        self._building.add(agent_id)
        log.info("indexing %d memories of %s in the background", len(stream), agent_id)
        vectors = stream.vectors_to_index()
        build = loop.create_task(in_fresh_thread("index", AnnIndex.build, vectors))

        def adopt(done: asyncio.Future[AnnIndex]) -> None:
            self._building.discard(agent_id)
            if done.cancelled() or done.exception() is not None:
                log.error("indexing %s failed; retrieval stays exact", agent_id)
            elif self.streams.get(agent_id) is stream:
                stream.adopt_index(done.result())

        build.add_done_callback(adopt)


class WorldRegistry:
    """Opens world stores under data_dir/worlds/<world_id>.sqlite3 on first use."""

    def __init__(
        self, data_dir: Path, embed_model_id: str, dimension: int, exact_limit: int = 10_000
    ) -> None:
        self._dir = data_dir / "worlds"
        self._embed_model_id = embed_model_id
        self._dimension = dimension
        self._exact_limit = exact_limit
        self._worlds: dict[str, World] = {}

    @property
    def embedding_model(self) -> tuple[str, int]:
        """The embedding model's id and dimension, which every world must share."""
        return self._embed_model_id, self._dimension

    def get(self, world_id: str, *, create: bool = True) -> World:
        """The open world; opened (or, with `create`, made) on first use.

        NOT_FOUND when it does not exist and `create` is off. Each world is its own
        store file, so nothing in one world is reachable through another's id.
        """
        world = self._worlds.get(world_id)
        if world is None:
            self.check_name(world_id)
            path = self._dir / f"{world_id}.sqlite3"
            if not create and not path.exists():
                raise NotFound(f"world {world_id!r} does not exist (UpsertAgent creates it)")
            store = WorldStore(path)
            try:
                store.bind_embedding_model(self._embed_model_id, self._dimension)
            except Exception:
                store.close()
                raise
            world = World(
                world_id,
                store,
                self._dimension,
                self._dir / f"{world_id}.index",
                self._exact_limit,
            )
            self._worlds[world_id] = world
        return world

    def reopen(self, world_id: str) -> World:
        """Opens the world's store afresh, dropping all in-RAM state of its agents.

        The old World is not closed: calls still running hold it (its store is fenced
        by whoever replaced the file) and it goes when they finish.
        """
        self._worlds.pop(world_id, None)
        return self.get(world_id)

    def check_name(self, world_id: str) -> None:
        """Refuses an id that differs only in case from a world on disk: on Windows and
        macOS both would be one file, so one world could be read through the other."""
        if not self._dir.is_dir():
            return
        folded = world_id.casefold()
        for path in self._dir.glob("*.sqlite3"):
            if path.stem != world_id and path.stem.casefold() == folded:
                raise InvalidArgument(
                    "world_id", f"differs only in case from the existing world {path.stem!r}"
                )

    def close(self) -> None:
        for world in self._worlds.values():
            world.close()
        self._worlds.clear()
