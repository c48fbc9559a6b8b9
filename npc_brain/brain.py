"""The facade the servicers call: one method per RPC, for the agents of every world.

Each method checks its whole request first, so a bad request changes nothing, then
hands the work to the part of the mind that does it. Model calls run on the model
workers; the event loop only waits on them as long as the caller allows.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Sequence

from npc_brain import inspection, validation
from npc_brain.action import Action, Line
from npc_brain.config import Settings
from npc_brain.errors import InvalidArgument, NotFound
from npc_brain.game_actions import GameAction
from npc_brain.inspection import AgentView, Explanation
from npc_brain.llm.base import ChatModel, Embedder
from npc_brain.memory.pages import ANY_TIME, MAX_PAGE_SIZE, MemoryPage, TimeRange, read_page
from npc_brain.memory.records import GameTime, MemoryKind, MemoryRecord, Observation, ScoredMemory
from npc_brain.memory.relationships import Relationship
from npc_brain.memory.retrieval import Weights
from npc_brain.memory.stores import Stores
from npc_brain.mind.knowledge import KnownClaim
from npc_brain.mind.minds import Minds, TickResult
from npc_brain.mind.perceive import AgentTick
from npc_brain.mind.usage import UsageLedger, UsageSummary
from npc_brain.mind.world import World, WorldRegistry
from npc_brain.persona import AgentRecord, Persona, Switches
from npc_brain.snapshots import SnapshotInfo, Snapshots

WHO_KNOWS_K, MAX_WHO_KNOWS_K = 3, 20  # claims a WhoKnows query answers: default, most


class Brain:
    """Minds of the agents of every world under one data directory."""

    def __init__(
        self, *, chat: ChatModel, embedder: Embedder, worlds: WorldRegistry, settings: Settings
    ) -> None:
        self._worlds = worlds
        self._settings = settings
        self._limits = validation.Limits.of(settings)
        self._snapshots = Snapshots(settings.data_dir, worlds)
        self._minds = Minds(chat, embedder, settings)
        self._reporting = asyncio.Lock()  # one outcome at a time: a repeat finds the first

    @property
    def usage(self) -> UsageLedger:
        return self._minds.usage

    @property
    def settings(self) -> Settings:
        """The settings the brain was built with (the servers read their limits here)."""
        return self._settings

    async def warm_up(self) -> None:
        """Readies what the first calls would otherwise wait for (the dialogue acts'
        classifier, fitted on the embedder: some 3 s on 2 cores)."""
        await self._minds.warm_up()

    def close(self) -> None:
        self._minds.close()
        self._worlds.close()

    @property
    def stores(self) -> Stores:
        """Where the worlds are kept (memory/stores.py)."""
        return self._worlds.stores

    # Agents ----------------------------------------------------------------------

    async def upsert_agent(
        self,
        world_id: str,
        agent_id: str,
        persona: Persona,
        game_time: GameTime | None,
        switches: Switches | None = None,
        actions: tuple[GameAction, ...] = (),
    ) -> AgentRecord:
        """Creates or replaces an agent's persona and game actions; switches not given
        keep their values."""
        validation.identifier("agent_id", agent_id)
        validation.persona(persona, self._limits)
        validation.game_actions("actions", actions, self._limits)
        world = self._world(world_id, create=True)
        existing = world.store.get_agent(agent_id) or AgentRecord(agent_id, persona)
        agent = existing.switched(persona, switches or Switches(), actions)
        world.store.upsert_agent(agent)
        if persona.home_address:
            world.store.add_places(agent_id, [persona.home_address], game_time or 0.0)
        return agent

    async def get_agent(self, world_id: str, agent_id: str) -> AgentRecord:
        return self._agent(world_id, agent_id)[1]

    async def relationships(self, world_id: str, agent_id: str) -> list[Relationship]:
        """What the agent thinks of each agent it has talked with, the latest first."""
        world, agent = self._agent(world_id, agent_id)
        return world.store.relationships.of(agent.agent_id)

    # Memory ----------------------------------------------------------------------

    async def perceive(
        self,
        world_id: str,
        agent_id: str,
        game_time: GameTime,
        observations: Sequence[Observation],
        visible_addresses: Sequence[str] = (),
    ) -> list[str]:
        """Stores each observation as a memory; returns their ids in order (a repeat of a
        recent observation at the same address gives its existing id: mind/perceive.py)."""
        world, agent = self._agent(world_id, agent_id)
        validation.observations(observations, visible_addresses, limits=self._limits)
        item = AgentTick(agent.agent_id, observations, visible_addresses)
        (ids,) = await self._minds.perceive(world, game_time, [(item, agent)])
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
        return await self._minds.remember(world, agent, kind, observation, game_time)

    async def list_memories(
        self,
        world_id: str,
        agent_id: str,
        kinds: Sequence[MemoryKind] = (),
        page_size: int = 0,
        page_token: str = "",
        created: TimeRange = ANY_TIME,
    ) -> MemoryPage:
        """A page of the agent's memories, oldest first."""
        world, agent = self._agent(world_id, agent_id)
        validation.int_range("page_size", page_size, 0, MAX_PAGE_SIZE)
        validation.items("kinds", kinds, self._limits.items)
        after_id = validation.page_token(page_token)
        await self._minds.faculties.catch_up.wait(world, agent.agent_id)  # importance rated
        budget = self._settings.max_message_bytes // 2
        return read_page(world.store, agent.agent_id, after_id, page_size, kinds, created, budget)

    async def forget_memory(self, world_id: str, agent_id: str, memory_id: str) -> None:
        """Deletes a memory from the store and the index, durably."""
        world, agent = self._agent(world_id, agent_id)
        number = validation.number_id("memory_id", memory_id, "a memory id")
        await self._minds.faculties.catch_up.wait(world, agent.agent_id)
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
        created: TimeRange = ANY_TIME,
    ) -> list[ScoredMemory]:
        """The k best memories for the query now; marks them accessed at game_time."""
        world, agent = self._agent(world_id, agent_id)
        validation.text("query", query, limit=self._limits.text)
        validation.int_range("k", k, 0, 100)
        validation.items("kinds", kinds, self._limits.items)
        validation.weights(weights)
        k = k or self._settings.retrieve_k
        return await self._minds.retrieve(
            world, agent, game_time, query, k, weights, kinds, created
        )

    # Acting and talking ----------------------------------------------------------

    async def act(
        self, world_id: str, agent_id: str, game_time: GameTime, max_wait_ms: int = 0
    ) -> tuple[Action, bool]:
        """The current action, and whether a better one is being prepared."""
        world, agent = self._agent(world_id, agent_id)
        validation.int_range("max_wait_ms", max_wait_ms, 0, self._settings.max_wait_ms)
        return await self._minds.act(world, agent, game_time, max_wait_ms)

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
        validation.tick_agents(agents, self._limits)  # every agents[i].agent_id included
        items = [(item, world.agent(item.agent_id)) for item in agents]
        if lockstep:
            return await self._minds.tick_lockstep(world, game_time, items)
        return await self._minds.tick(world, game_time, items, max_wait_ms)

    async def converse(
        self,
        world_id: str,
        agent_id: str,
        game_time: GameTime,
        speaker_id: str,
        utterance: str,
        interview: bool = False,
        actions: tuple[GameAction, ...] = (),
    ) -> AsyncIterator[str | Line]:
        """Yields the reply's text pieces as they are generated, then the final Line
        (with the game action chosen, if any: `actions` for this call, else the agent's)."""
        world, agent = self._agent(world_id, agent_id)
        validation.speaker(speaker_id, agent.agent_id)
        validation.text("utterance", utterance, limit=self._limits.text)
        validation.game_actions("actions", actions, self._limits)
        async for event in self._minds.converse(
            world, agent.acting(actions), game_time, speaker_id, utterance, interview
        ):
            yield event

    async def report_outcome(
        self,
        world_id: str,
        agent_id: str,
        action_id: str,
        done: bool,
        detail: str,
        game_time: GameTime,
    ) -> MemoryRecord:
        """Stores what became of an action the agent chose as its memory of it; a repeat
        of the report returns that memory (NOT_FOUND for an action it never chose)."""
        world, agent = self._agent(world_id, agent_id)
        validation.text("action_id", action_id, limit=self._limits.short_text)
        validation.text("detail", detail, required=False, limit=self._limits.text)
        async with self._reporting:
            return await self._minds.report_outcome(
                world, agent, action_id, done, detail, game_time
            )

    async def reflect(
        self, world_id: str, agent_id: str, game_time: GameTime
    ) -> list[MemoryRecord]:
        """Reflects now, whatever the trigger says; returns the insights stored."""
        world, agent = self._agent(world_id, agent_id)
        return await self._minds.reflect(world, agent, game_time)

    async def who_knows(
        self, world_id: str, memory_id: str = "", query: str = "", k: int = 0
    ) -> list[KnownClaim]:
        """Who holds the claim a memory holds (or the memory, if never told), or the k
        claims nearest a query: from whom, since when, hops and confidence."""
        if memory_id and query:
            raise InvalidArgument("query", "cannot be combined with memory_id")
        if not memory_id and not query:
            raise InvalidArgument("memory_id", "or query is required")
        validation.int_range("k", k, 0, MAX_WHO_KNOWS_K)
        if memory_id:
            number = validation.number_id("memory_id", memory_id, "a memory id")
            return await self._minds.who_knows(self._world(world_id), number, "", 0)
        validation.text("query", query, limit=self._limits.text)
        return await self._minds.who_knows(self._world(world_id), None, query, k or WHO_KNOWS_K)

    # Stats -----------------------------------------------------------------------

    async def stats(self, world_id: str, agent_id: str = "") -> UsageSummary:
        """Model usage; the ratings of memories acknowledged so far are counted in it."""
        world_id = validation.world_id(world_id)
        if agent_id:
            world, agent = self._agent(world_id, agent_id)
            await self._minds.faculties.catch_up.wait(world, agent.agent_id)
        else:
            with contextlib.suppress(NotFound):  # a world never written: nothing to count
                await self._minds.faculties.catch_up.wait(self._world(world_id))
        return self.usage.summary(world_id, agent_id)

    # Save slots ------------------------------------------------------------------

    async def save_world(self, world_id: str, label: str = "") -> SnapshotInfo:
        """Snapshots the world into a new save slot, consistently, while it keeps serving."""
        validation.text("label", label, required=False, limit=self._limits.short_text)
        world = self._world(world_id)
        await self._minds.faculties.catch_up.wait(world)  # the slot holds every embedding
        return await self._snapshots.save(world, label)

    async def load_world(self, world_id: str, snapshot_id: str) -> None:
        """Restores every agent's mind in the world to what the snapshot holds."""
        world_id = validation.world_id(world_id)
        await self._snapshots.load(world_id, validation.identifier("snapshot_id", snapshot_id))

    async def list_snapshots(self, world_id: str) -> list[SnapshotInfo]:
        """The world's save slots, oldest first."""
        return await self._snapshots.of_world(validation.world_id(world_id))

    # Inspection: read-only views for the memory inspector ---------------------------

    def world_ids(self) -> list[str]:
        """The worlds in the data directory, open or not."""
        return self._worlds.ids()

    async def agent_ids(self, world_id: str) -> list[str]:
        """Every agent of the world, by id."""
        return self._world(world_id).store.agent_ids()

    async def agent_view(self, world_id: str, agent_id: str) -> AgentView:
        """The agent's mind state and memory summary; changes nothing, calls no model."""
        world, agent = self._agent(world_id, agent_id)
        return await inspection.agent_view(self._minds.faculties, world, agent.agent_id)

    async def explain_retrieval(
        self,
        world_id: str,
        agent_id: str,
        game_time: GameTime,
        query: str,
        k: int = 0,
        weights: Weights | None = None,
        kinds: Sequence[MemoryKind] = (),
        created: TimeRange = ANY_TIME,
        left_out: int = 5,
        focus: int | None = None,
    ) -> Explanation:
        """What `retrieve` with these arguments would answer now, the `left_out` most
        important memories it leaves out and the memory `focus`, each with its terms and
        rank; unlike `retrieve`, nothing is marked accessed (inspection.explain_retrieval).
        """
        world, agent = self._agent(world_id, agent_id)
        validation.text("query", query, limit=self._limits.text)
        validation.int_range("k", k, 0, 100)
        validation.items("kinds", kinds, self._limits.items)
        validation.weights(weights)
        k = k or self._settings.retrieve_k
        return await inspection.explain_retrieval(
            self._minds.faculties,
            world,
            agent.agent_id,
            game_time,
            query,
            k,
            weights,
            kinds,
            created,
            left_out,
            focus,
        )

    # Helpers ---------------------------------------------------------------------

    def _world(self, world_id: str, *, create: bool = False) -> World:
        """An open world; NOT_FOUND unless it exists or `create` (only writes create one)."""
        return self._worlds.get(validation.world_id(world_id), create=create)

    def _agent(self, world_id: str, agent_id: str) -> tuple[World, AgentRecord]:
        world_id = validation.world_id(world_id)
        agent_id = validation.identifier("agent_id", agent_id)
        world = self._world(world_id)
        return world, world.agent(agent_id)
