"""Worlds: each one a store file plus the in-RAM streams and minds of its agents."""

from __future__ import annotations

import asyncio
import logging
from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
from numpy.typing import NDArray

from npc_brain import validation
from npc_brain.errors import InvalidArgument, NotFound
from npc_brain.llm.worker import in_fresh_thread
from npc_brain.memory.ann import AnnIndex
from npc_brain.memory.records import MemoryRecord, NewMemory
from npc_brain.memory.store import Perception, WorldStore
from npc_brain.memory.stores import SqliteStores, Stores
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

    A memory may be stored before its embedding (Perceive answers after the write). It
    then waits, with every later memory of its agent, in the agent's backlog until
    Faculties.catch_up embeds it (`embedded`); only then do they join the stream, in
    the order they were stored. Rows a crash left without embedding go to the backlog
    when the stream loads. Whatever reads the stream by meaning (retrieval) waits for
    the backlog first (CatchUp.wait, mind/backlog.py); reads by id or text see it at once.
    """

    world_id: str
    store: WorldStore
    dimension: int
    index_dir: Path
    exact_limit: int = 10_000
    streams: dict[str, AgentStream] = field(default_factory=dict)
    minds: dict[str, AgentMind] = field(default_factory=dict)
    _building: set[str] = field(default_factory=set)
    _backlogs: dict[str, deque[Backlogged]] = field(default_factory=dict)
    catching_up: asyncio.Task[None] | None = None  # Faculties.catch_up, while it runs

    def agent(self, agent_id: str) -> AgentRecord:
        agent = self.store.get_agent(agent_id)
        if agent is None:
            raise NotFound(f"agent {agent_id!r} does not exist in world {self.world_id!r}")
        return agent

    def people(self) -> list[str]:
        """The names of the world's agents."""
        return list(self.names().values())

    def names(self) -> dict[str, str]:
        """The world's agents' full names by agent id."""
        return {agent.agent_id: agent.persona.name for agent in self._agents()}

    def pronouns(self) -> dict[str, str]:
        """The pronoun others use for each of the world's agents, by full name."""
        return {agent.persona.name: agent.persona.pronoun for agent in self._agents()}

    def _agents(self) -> list[AgentRecord]:
        found = (self.store.get_agent(agent_id) for agent_id in self.store.agent_ids())
        return [agent for agent in found if agent is not None]

    def stream(self, agent_id: str) -> AgentStream:
        """The agent's memory stream, loaded from the store the first time."""
        stream = self.streams.get(agent_id)
        if stream is None:
            stream = AgentStream(self.dimension, exact_limit=self.exact_limit)
            version = self.store.memory_version(agent_id)
            records, vectors = self.store.load_memories(agent_id, self.dimension)
            records, vectors = self._recover(agent_id, records, vectors)
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
        """Stores memories durably, then adds them to the agent's stream (behind its
        backlog, if it has one)."""
        self.stream(agent_id)  # loaded before the write, so each is added once
        stored = self.store.add_memories(agent_id, memories, vectors)
        self._arrived(agent_id, stored, vectors)
        return stored

    def perceived(self, perceptions: Sequence[Perception]) -> list[list[MemoryRecord]]:
        """Stores several agents' perceptions in one transaction, then adds the new
        memories to their streams, or to their backlogs when they have no embeddings
        yet (Perception.vectors None); returns each agent's stored memories."""
        for p in perceptions:
            self.stream(p.agent_id)  # loaded before the write, so each is added once
        stored = self.store.add_perceptions(perceptions)
        for p, memories in zip(perceptions, stored, strict=True):
            if memories:
                self._arrived(p.agent_id, memories, p.vectors)
        return stored

    def forget(self, agent_id: str, memory_id: int) -> bool:
        """Deletes a memory from the store, then from the stream or the backlog."""
        stream = self.stream(agent_id)
        if not self.store.forget(agent_id, memory_id):
            return False
        for waiting in self._backlogs.get(agent_id, ()):
            if waiting.drop(memory_id):
                return True
        return stream.forget(memory_id)

    # The backlog: memories stored before their embeddings ---------------------------

    def backlogged(self, agent_id: str | None = None) -> bool:
        """Whether the agent (None: any agent) has memories not in its stream yet."""
        if agent_id is None:
            return any(self._backlogs.values())
        return bool(self._backlogs.get(agent_id))

    def unembedded(self) -> list[Backlogged]:
        """Every backlog entry still waiting for its embeddings, oldest first per agent."""
        return [w for q in self._backlogs.values() for w in q if w.vectors is None]

    def embedded(
        self, waiting: Backlogged, records: Sequence[MemoryRecord], vectors: NDArray[np.float32]
    ) -> list[MemoryRecord]:
        """Gives a backlog entry its rated records and embeddings (already written to
        the store), then moves every complete entry at the head of the agent's backlog
        into its stream; returns the entry's records that were not forgotten meanwhile."""
        kept = [i for i, r in enumerate(records) if r.memory_id in waiting.ids]
        waiting.records = [records[i] for i in kept]
        waiting.vectors = vectors[kept]
        backlog = self._backlogs.get(waiting.agent_id)
        stream = self.streams.get(waiting.agent_id)
        while backlog and (ready := backlog[0].vectors) is not None:
            head = backlog.popleft()
            if stream is not None:
                stream.add(head.records, ready)
        if backlog is not None and not backlog:
            del self._backlogs[waiting.agent_id]
        if stream is not None:
            self._index_later(waiting.agent_id, stream)
        return waiting.records

    def recent(self, agent_id: str, n: int) -> list[MemoryRecord]:
        """The n newest remembered memories of the agent, oldest first, backlog included."""
        waiting: list[MemoryRecord] = []  # the backlog's newest n, from its end
        for w in reversed(self._backlogs.get(agent_id, ())):
            waiting[:0] = w.records
            if len(waiting) >= n:
                return waiting[len(waiting) - n :]
        return [*self.stream(agent_id).recent(n - len(waiting)), *waiting]

    def memory(self, agent_id: str, memory_id: int) -> MemoryRecord | None:
        """One remembered memory of the agent by id, from its stream or its backlog."""
        found = self.stream(agent_id).get(memory_id)
        for waiting in self._backlogs.get(agent_id, ()):
            found = found or next((r for r in waiting.records if r.memory_id == memory_id), None)
        return found

    def withheld_from(self, agent_id: str, listener: str) -> list[MemoryRecord]:
        """The remembered memories the agent may not tell `listener`, backlog included."""
        waiting = [r for w in self._backlogs.get(agent_id, ()) for r in w.records]
        return [
            *self.stream(agent_id).withheld_from(listener),
            *(r for r in waiting if r.sharing.restricted and not r.sharing.allows(listener)),
        ]

    def _arrived(
        self, agent_id: str, records: list[MemoryRecord], vectors: NDArray[np.float32] | None
    ) -> None:
        """Stored memories join the stream, or the backlog when they have no embeddings
        or the agent's backlog is not empty (the stream keeps the order of the store)."""
        backlog = self._backlogs.get(agent_id)
        if backlog is None and vectors is not None:
            stream = self.stream(agent_id)
            stream.add(records, vectors)
            self._index_later(agent_id, stream)
            return
        waiting = Backlogged(agent_id, records, vectors)
        self._backlogs.setdefault(agent_id, deque()).append(waiting)

    def _recover(
        self, agent_id: str, records: list[MemoryRecord], vectors: NDArray[np.float32]
    ) -> tuple[list[MemoryRecord], NDArray[np.float32]]:
        """Splits loaded memories at the first one stored without its embedding: those
        before it go to the stream, the rest to the backlog (to be embedded, or waiting
        behind those that are). Nothing to split is the usual case."""
        missing = self.store.unembedded(agent_id) if records else set()
        first = next((i for i, r in enumerate(records) if r.memory_id in missing), None)
        if first is None:
            return records, vectors
        log.info("%d memories of %s have no embedding yet", len(missing), agent_id)
        backlog = self._backlogs.setdefault(agent_id, deque())
        for i in range(first, len(records)):
            row = None if records[i].memory_id in missing else vectors[i : i + 1]
            backlog.append(Backlogged(agent_id, [records[i]], row, recovered=True))
        return records[:first], vectors[:first]

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
        if self.catching_up is not None:
            self.catching_up.cancel()  # what it has not written is embedded at the next start
        for agent_id, stream in self.streams.items():
            # With a backlog the index still matches: it covers the stream, which holds the
            # memories before the first one without embedding, as the stream loaded next
            # time will (World._recover).
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


@dataclass
class Backlogged:
    """Memories of one agent stored before their embeddings (or behind such ones)."""

    agent_id: str
    records: list[MemoryRecord]
    vectors: NDArray[np.float32] | None  # None until Faculties.catch_up computes them
    recovered: bool = False  # found at load: stored before a crash or a shutdown

    @property
    def ids(self) -> set[int]:
        return {r.memory_id for r in self.records}

    def drop(self, memory_id: int) -> bool:
        """Forgets one of the memories; False if it is not here."""
        for i, record in enumerate(self.records):
            if record.memory_id == memory_id:
                del self.records[i]
                if self.vectors is not None:
                    self.vectors = np.delete(self.vectors, i, axis=0)
                return True
        return False


class WorldRegistry:
    """Opens the worlds' stores (memory/stores.py: SQLite files under data_dir/worlds by
    default) on first use; each world's saved ANN index is data_dir/worlds/<id>.index."""

    def __init__(
        self,
        data_dir: Path,
        embed_model_id: str,
        dimension: int,
        exact_limit: int = 10_000,
        stores: Stores | None = None,
    ) -> None:
        self._dir = data_dir / "worlds"
        self._embed_model_id = embed_model_id
        self._dimension = dimension
        self._exact_limit = exact_limit
        self._worlds: dict[str, World] = {}
        self.stores: Stores = stores or SqliteStores(data_dir)
        self.stores.on_lost(self._lost)

    @property
    def embedding_model(self) -> tuple[str, int]:
        """The embedding model's id and dimension, which every world must share."""
        return self._embed_model_id, self._dimension

    def get(self, world_id: str, *, create: bool = True) -> World:
        """The open world; opened (or, with `create`, made) on first use.

        NOT_FOUND when it does not exist and `create` is off; UNAVAILABLE when another
        server serves it (a shared PostgreSQL). Each world is its own store, so nothing
        in one world is reachable through another's id.
        """
        world = self._worlds.get(world_id)
        if world is None:
            self.check_name(world_id)
            store = self.stores.open(world_id, create=create)
            try:
                store.bind_embedding_model(self._embed_model_id, self._dimension)
            except Exception:
                store.close()
                self.stores.release(world_id)
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
        by whoever replaced the world) and it goes when they finish.
        """
        self._worlds.pop(world_id, None)
        return self.get(world_id)

    def _lost(self, world_id: str) -> None:
        """Another server took the world over: its in-RAM state here is stale."""
        world = self._worlds.pop(world_id, None)
        if world is not None:
            world.store.fence(f"world {world_id!r} moved to another npc-brain server; call again")

    def ids(self) -> list[str]:
        """The worlds of the store, open or not, in order."""
        found = []
        for world_id in self.stores.ids():
            try:
                found.append(validation.world_id(world_id))
            except InvalidArgument:
                continue  # not a world this server made (a file someone put there)
        return found

    def check_name(self, world_id: str) -> None:
        """Refuses an id that differs only in case from an existing world's: on Windows
        and macOS both would be one file, so one world could be read through the other."""
        self.stores.check_name(world_id)

    def close(self) -> None:
        for world in self._worlds.values():
            world.close()
        self._worlds.clear()
        self.stores.close()
