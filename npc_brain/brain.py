"""The facade the servicers call: one method per RPC, for the agents of every world.

Each method checks its whole request first, so a bad request changes nothing, then
hands the work to the part of the mind that does it. Model calls run on the model
workers; the event loop only waits on them as long as the caller allows.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass

from npc_brain import validation
from npc_brain.acting import Acting
from npc_brain.action import Action, Line
from npc_brain.config import Settings
from npc_brain.errors import InvalidArgument, NotFound
from npc_brain.faculties import Faculties
from npc_brain.llm.base import ChatModel, Embedder
from npc_brain.memory.records import (
    GameTime,
    MemoryKind,
    MemoryRecord,
    Observation,
    ScoredMemory,
)
from npc_brain.memory.retrieval import Weights
from npc_brain.memory.store import Perception
from npc_brain.persona import AgentRecord, Persona, Switches
from npc_brain.reacting import Reacting
from npc_brain.reflecting import Reflecting
from npc_brain.snapshots import SnapshotInfo, Snapshots
from npc_brain.talking import Talking
from npc_brain.usage import UsageLedger, UsageSummary
from npc_brain.world import World, WorldRegistry

MAX_PAGE_SIZE = 500
DEFAULT_PAGE_SIZE = 50


@dataclass(frozen=True)
class AgentTick:
    """One agent's part of a Tick."""

    agent_id: str
    observations: Sequence[Observation] = ()
    visible_addresses: Sequence[str] = ()


@dataclass(frozen=True)
class TickResult:
    agent_id: str
    action: Action
    pending: bool
    memory_ids: list[str]


@dataclass(frozen=True)
class _Sensed:
    """A perception prepared but not yet stored."""

    agent: AgentRecord
    observations: Sequence[Observation]
    new: list[Observation]
    known: dict[tuple[str, str], int]
    perception: Perception


@dataclass(frozen=True)
class TimeRange:
    """Memories created in [after, before); None leaves that side open."""

    after: GameTime | None = None
    before: GameTime | None = None


@dataclass(frozen=True)
class MemoryPage:
    memories: list[MemoryRecord]
    next_page_token: str


def _within_bytes(memories: list[MemoryRecord], budget: int) -> list[MemoryRecord]:
    """The first memories whose texts fit in `budget` bytes (at least one), so a page of
    long memories still fits in one message."""
    for i, m in enumerate(memories):
        texts = (m.description, m.subject, m.predicate, m.object, m.address, m.source.agent_id)
        budget -= 64 + 8 * len(m.evidence_ids) + sum(len(t.encode()) for t in texts)
        if budget < 0 and i > 0:
            return memories[:i]
    return memories


class Brain:
    """Minds of the agents of every world under one data directory."""

    def __init__(
        self, *, chat: ChatModel, embedder: Embedder, worlds: WorldRegistry, settings: Settings
    ) -> None:
        self._worlds = worlds
        self._settings = settings
        self._limits = validation.Limits.of(settings)
        self._snapshots = Snapshots(settings.data_dir, worlds)
        self._f = Faculties(chat, embedder, settings)
        self._acting = Acting(self._f)
        self._talking = Talking(self._f)
        self._reflecting = Reflecting(self._f)
        self._reacting = Reacting(self._f, self._acting.planning)

    @property
    def usage(self) -> UsageLedger:
        return self._f.usage

    @property
    def settings(self) -> Settings:
        """The settings the brain was built with (the servers read their limits here)."""
        return self._settings

    def close(self) -> None:
        self._reflecting.close()
        self._reacting.close()
        self._f.close()
        self._worlds.close()

    # Agents ----------------------------------------------------------------------

    async def upsert_agent(
        self,
        world_id: str,
        agent_id: str,
        persona: Persona,
        game_time: GameTime | None,
        switches: Switches | None = None,
    ) -> AgentRecord:
        """Creates or replaces an agent's persona; switches not given keep their values."""
        validation.identifier("agent_id", agent_id)
        validation.persona(persona, self._limits)
        world = self._world(world_id, create=True)
        existing = world.store.get_agent(agent_id) or AgentRecord(agent_id, persona)
        agent = existing.switched(persona, switches or Switches())
        world.store.upsert_agent(agent)
        if persona.home_address:
            world.store.add_places(agent_id, [persona.home_address], game_time or 0.0)
        return agent

    async def get_agent(self, world_id: str, agent_id: str) -> AgentRecord:
        return self._agent(world_id, agent_id)[1]

    # Memory ----------------------------------------------------------------------

    async def perceive(
        self,
        world_id: str,
        agent_id: str,
        game_time: GameTime,
        observations: Sequence[Observation],
        visible_addresses: Sequence[str] = (),
    ) -> list[str]:
        """Stores each observation as a memory; returns their ids in order.

        An observation identical to one of the agent's latest `perception_retention`
        at the same address is not stored again: its existing id is returned.
        """
        world, agent = self._agent(world_id, agent_id)
        validation.observations(observations, visible_addresses, limits=self._limits)
        return await self._perceive(world, agent, game_time, observations, visible_addresses)

    async def _perceive(
        self,
        world: World,
        agent: AgentRecord,
        game_time: GameTime,
        observations: Sequence[Observation],
        visible_addresses: Sequence[str],
    ) -> list[str]:
        item = AgentTick(agent.agent_id, observations, visible_addresses)
        sensed = await self._sense(world, game_time, [(item, agent)])
        return self._commit(world, game_time, sensed)[0]

    async def _sense(
        self, world: World, game_time: GameTime, items: Sequence[tuple[AgentTick, AgentRecord]]
    ) -> list[_Sensed]:
        """What the agents' perceptions will store (places, new memories), written by
        _commit. Every new text of every agent is embedded in one batch."""
        retention = self._settings.perception_retention
        news: list[tuple[list[Observation], dict[tuple[str, str], int]]] = []
        for item, agent in items:
            self._f.usage.saw(world.world_id, agent.agent_id, game_time)
            known = {
                (m.description, m.address): m.memory_id
                for m in world.stream(agent.agent_id).recent(retention)
                if m.kind == MemoryKind.OBSERVATION
            }
            new = [o for o in item.observations if (o.text, o.address) not in known]
            new = list({(o.text, o.address): o for o in new}.values())  # one per repeated line
            news.append((new, known))
        vectors = await self._f.embed([o.text for new, _ in news for o in new])
        sensed = []
        start = 0
        for (item, agent), (new, known) in zip(items, news, strict=True):
            part = vectors[start : start + len(new)]
            start += len(new)
            memories = await self._f.rate(
                world, agent, MemoryKind.OBSERVATION, new, game_time, part
            )
            places = [*item.visible_addresses, *(o.address for o in item.observations)]
            perception = Perception(agent.agent_id, places, game_time, memories, part)
            sensed.append(_Sensed(agent, item.observations, new, known, perception))
        return sensed

    def _commit(self, world: World, game_time: GameTime, sensed: list[_Sensed]) -> list[list[str]]:
        """Stores the perceptions in one transaction; then reflections and reactions may
        start. Returns each perception's memory ids, one per observation."""
        stored = world.perceived([s.perception for s in sensed])
        ids = []
        for s, memories in zip(sensed, stored, strict=True):
            s.known.update({(m.description, m.address): m.memory_id for m in memories})
            if memories:
                self._reflecting.after_new_memories(world, s.agent, game_time)
                self._reacting.after_perceive(world, s.agent, game_time, s.new)
            ids.append([str(s.known[(o.text, o.address)]) for o in s.observations])
        return ids

    async def add_memory(
        self,
        world_id: str,
        agent_id: str,
        game_time: GameTime,
        kind: MemoryKind,
        observation: Observation,
    ) -> MemoryRecord:
        """Stores an author-written memory (backstory) as it is, created at game_time."""
        world, agent = self._agent(world_id, agent_id)
        validation.observation("observation", observation, self._limits)
        (stored,) = await self._f.remember(world, agent, kind, [observation], game_time)
        return stored

    async def list_memories(
        self,
        world_id: str,
        agent_id: str,
        kinds: Sequence[MemoryKind] = (),
        page_size: int = 0,
        page_token: str = "",
        created: TimeRange = TimeRange(),
    ) -> MemoryPage:
        """A page of the agent's memories, oldest first."""
        world, agent = self._agent(world_id, agent_id)
        validation.int_range("page_size", page_size, 0, MAX_PAGE_SIZE)
        validation.items("kinds", kinds, self._limits.items)
        after_id = 0
        if page_token:
            after_id = validation.number_id("page_token", page_token, "a token this server gave")
        size = page_size or DEFAULT_PAGE_SIZE
        rows = world.store.list_memories(
            agent.agent_id,
            after_id=after_id,
            limit=size + 1,
            kinds=kinds,
            created_after=created.after,
            created_before=created.before,
        )
        more = len(rows) > size
        page = _within_bytes(rows[:size], self._settings.max_message_bytes // 2)
        more = more or len(page) < min(size, len(rows))
        return MemoryPage(page, str(page[-1].memory_id) if more else "")

    async def forget_memory(self, world_id: str, agent_id: str, memory_id: str) -> None:
        """Deletes a memory from the store and the index, durably."""
        world, agent = self._agent(world_id, agent_id)
        number = validation.number_id("memory_id", memory_id, "a memory id")
        if not world.forget(agent.agent_id, number):
            raise NotFound(f"agent {agent.agent_id!r} has no memory {memory_id}")

    async def retrieve(
        self,
        world_id: str,
        agent_id: str,
        game_time: GameTime,
        query: str,
        k: int = 0,
        weights: Weights | None = None,
        kinds: Sequence[MemoryKind] = (),
        created: TimeRange = TimeRange(),
    ) -> list[ScoredMemory]:
        """The k best memories for the query now; marks them accessed at game_time."""
        world, agent = self._agent(world_id, agent_id)
        validation.text("query", query, limit=self._limits.text)
        validation.int_range("k", k, 0, 100)
        validation.items("kinds", kinds, self._limits.items)
        for name in ("recency", "importance", "relevance"):
            if weights is not None:
                validation.number_range(f"weights.{name}", getattr(weights, name), 0, 100)
        return await self._f.recall(
            world,
            agent.agent_id,
            game_time,
            query,
            k or self._settings.retrieve_k,
            weights,
            kinds,
            created.after,
            created.before,
        )

    # Acting and talking ----------------------------------------------------------

    async def act(
        self, world_id: str, agent_id: str, game_time: GameTime, max_wait_ms: int = 0
    ) -> tuple[Action, bool]:
        """The current action, and whether a better one is being prepared."""
        world, agent = self._agent(world_id, agent_id)
        validation.int_range("max_wait_ms", max_wait_ms, 0, self._settings.max_wait_ms)
        self._f.usage.saw(world.world_id, agent_id, game_time)
        return await self._acting.act(world, agent, game_time, max_wait_ms)

    async def tick(
        self,
        world_id: str,
        game_time: GameTime,
        agents: Sequence[AgentTick],
        max_wait_ms: int = 0,
        *,
        lockstep: bool = False,
    ) -> list[TickResult]:
        """Perceive then act for many agents; checks every agent before changing any.

        In `lockstep` the agents go one after another, each action is waited for, and the
        answer comes once all cognition the tick started has finished (deterministic).
        """
        world = self._world(world_id)
        validation.int_range("max_wait_ms", max_wait_ms, 0, self._settings.max_wait_ms)
        validation.items("agents", agents, self._limits.items)
        observed = sum(len(item.observations) for item in agents)
        if observed > self._limits.items:
            raise InvalidArgument(
                "agents", f"carry {observed} observations; at most {self._limits.items} a Tick"
            )
        checked = []
        for i, item in enumerate(agents):
            prefix = f"agents[{i}]."
            checked.append(self._agent(world.world_id, item.agent_id, prefix)[1])
            validation.observations(item.observations, item.visible_addresses, prefix, self._limits)

        if not lockstep:  # everyone perceives, then one write for all, then everyone acts
            sensed = await self._sense(world, game_time, list(zip(agents, checked, strict=True)))
            ids = self._commit(world, game_time, sensed)
            acted = await self._acting.act_many(world, checked, game_time, max_wait_ms)
            return [
                TickResult(item.agent_id, action, pending, memory_ids)
                for item, (action, pending), memory_ids in zip(agents, acted, ids, strict=True)
            ]

        async def one(item: AgentTick, agent: AgentRecord) -> TickResult:
            ids = await self._perceive(
                world, agent, game_time, item.observations, item.visible_addresses
            )
            await self._settle(world)
            action, pending = await self._acting.act(world, agent, game_time, None)
            await self._settle(world)
            return TickResult(item.agent_id, action, pending, ids)

        results = [await one(item, agent) for item, agent in zip(agents, checked, strict=True)]
        # What a later agent started (a conversation with an earlier one) shows for both.
        return [
            TickResult(r.agent_id, world.state(r.agent_id).action or r.action, False, r.memory_ids)
            for r in results
        ]

    async def _settle(self, world: World) -> None:
        """Waits until no reaction, conversation, reflection or decision of the world runs."""
        while True:
            busy = [
                *self._reacting.running(world),
                *self._reflecting.running(world),
                *(s.deciding for s in world.states.values() if s.deciding is not None),
            ]
            if not busy:
                return
            await asyncio.wait(busy)

    async def converse(
        self,
        world_id: str,
        agent_id: str,
        game_time: GameTime,
        speaker_id: str,
        utterance: str,
        interview: bool = False,
    ) -> AsyncIterator[str | Line]:
        """Yields the reply's text pieces as they are generated, then the final Line."""
        world, agent = self._agent(world_id, agent_id)
        validation.identifier("speaker_id", speaker_id)
        if speaker_id == agent.agent_id:  # a line "heard" from oneself would pass as one's own
            raise InvalidArgument("speaker_id", "must differ from agent_id")
        validation.text("utterance", utterance, limit=self._limits.text)
        self._f.usage.saw(world.world_id, agent_id, game_time)
        async for event in self._talking.converse(
            world, agent, game_time, speaker_id, utterance, interview
        ):
            yield event
        if not interview:
            self._reflecting.after_new_memories(world, agent, game_time)

    async def reflect(
        self, world_id: str, agent_id: str, game_time: GameTime
    ) -> list[MemoryRecord]:
        """Reflects now, whatever the trigger says; returns the insights stored."""
        world, agent = self._agent(world_id, agent_id)
        return await self._reflecting.reflect(world, agent, game_time)

    # Stats -----------------------------------------------------------------------

    async def stats(self, world_id: str, agent_id: str = "") -> UsageSummary:
        world_id = validation.world_id(world_id)
        if agent_id:
            self._agent(world_id, agent_id)
        return self._f.usage.summary(world_id, agent_id)

    # Save slots ------------------------------------------------------------------

    async def save_world(self, world_id: str, label: str = "") -> SnapshotInfo:
        """Snapshots the world into a new save slot, consistently, while it keeps serving."""
        validation.text("label", label, required=False, limit=self._limits.short_text)
        return await self._snapshots.save(self._world(world_id), label)

    async def load_world(self, world_id: str, snapshot_id: str) -> None:
        """Restores every agent's mind in the world to what the snapshot holds."""
        world_id = validation.world_id(world_id)
        await self._snapshots.load(world_id, validation.identifier("snapshot_id", snapshot_id))

    async def list_snapshots(self, world_id: str) -> list[SnapshotInfo]:
        """The world's save slots, oldest first."""
        return await self._snapshots.of_world(validation.world_id(world_id))

    # Helpers ---------------------------------------------------------------------

    def _world(self, world_id: str, *, create: bool = False) -> World:
        """An open world; NOT_FOUND unless it exists or `create` (only writes create one)."""
        return self._worlds.get(validation.world_id(world_id), create=create)

    def _agent(self, world_id: str, agent_id: str, prefix: str = "") -> tuple[World, AgentRecord]:
        world_id = validation.world_id(world_id)
        agent_id = validation.identifier(prefix + "agent_id", agent_id)
        world = self._world(world_id)
        return world, world.agent(agent_id)
