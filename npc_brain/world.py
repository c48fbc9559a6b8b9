"""Worlds: each one a store file plus the in-RAM state of its agents."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from pathlib import Path

from npc_brain.action import Action
from npc_brain.errors import NotFound
from npc_brain.memory.store import WorldStore
from npc_brain.memory.stream import AgentStream
from npc_brain.persona import AgentRecord


@dataclass
class AgentState:
    """What an agent is doing and deciding, held in RAM."""

    action: Action | None = None
    deciding: asyncio.Task[Action] | None = None


@dataclass
class World:
    """One world: its store, and per-agent streams and states loaded on first use."""

    world_id: str
    store: WorldStore
    dimension: int
    streams: dict[str, AgentStream] = field(default_factory=dict)
    states: dict[str, AgentState] = field(default_factory=dict)

    def agent(self, agent_id: str) -> AgentRecord:
        agent = self.store.get_agent(agent_id)
        if agent is None:
            raise NotFound(f"agent {agent_id!r} does not exist in world {self.world_id!r}")
        return agent

    def stream(self, agent_id: str) -> AgentStream:
        """The agent's memory stream, rebuilt from the store the first time."""
        stream = self.streams.get(agent_id)
        if stream is None:
            stream = AgentStream(self.dimension)
            records, vectors = self.store.load_memories(agent_id, self.dimension)
            stream.add(records, vectors)
            self.streams[agent_id] = stream
        return stream

    def state(self, agent_id: str) -> AgentState:
        return self.states.setdefault(agent_id, AgentState())


class WorldRegistry:
    """Opens world stores under data_dir/worlds/<world_id>.sqlite3 on first use."""

    def __init__(self, data_dir: Path, embed_model_id: str, dimension: int) -> None:
        self._dir = data_dir / "worlds"
        self._embed_model_id = embed_model_id
        self._dimension = dimension
        self._worlds: dict[str, World] = {}

    def get(self, world_id: str) -> World:
        world = self._worlds.get(world_id)
        if world is None:
            store = WorldStore(self._dir / f"{world_id}.sqlite3")
            try:
                store.bind_embedding_model(self._embed_model_id, self._dimension)
            except Exception:
                store.close()
                raise
            world = World(world_id, store, self._dimension)
            self._worlds[world_id] = world
        return world

    def close(self) -> None:
        for world in self._worlds.values():
            world.store.close()
        self._worlds.clear()
