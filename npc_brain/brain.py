"""The facade the servicers call: perceive, act, converse, retrieve for agents of worlds.

Validation happens first, so a bad request changes nothing. Model calls run on the
model workers (one thread per model); the event loop only waits on them when the
caller allows it (Act's max_wait_ms).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator, Callable, Sequence
from dataclasses import dataclass
from typing import Any

from npc_brain import validation
from npc_brain.action import Action, Line
from npc_brain.cognition.act import Decision, decide_action, idle_decision
from npc_brain.cognition.converse import reply_messages, stream_reply
from npc_brain.cognition.importance import rate_importance
from npc_brain.config import Settings
from npc_brain.errors import InvalidArgument
from npc_brain.llm.base import ChatModel, Embedder
from npc_brain.memory.records import (
    GameTime,
    MemoryKind,
    MemoryRecord,
    NewMemory,
    Observation,
    ScoredMemory,
    Source,
    SourceKind,
)
from npc_brain.memory.retrieval import Weights
from npc_brain.persona import AgentRecord, Persona
from npc_brain.usage import UsageLedger, UsageSummary
from npc_brain.worker import ModelWorker
from npc_brain.world import World, WorldRegistry

log = logging.getLogger(__name__)


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


class _StreamCancelled(Exception):
    """Raised inside the model thread when the listener of a reply went away."""


class Brain:
    """Minds of the agents of every world under one data directory."""

    def __init__(
        self, *, chat: ChatModel, embedder: Embedder, worlds: WorldRegistry, settings: Settings
    ) -> None:
        self._chat = chat
        self._embedder = embedder
        self._worlds = worlds
        self._settings = settings
        self._chat_worker = ModelWorker("chat")
        self._embed_worker = ModelWorker("embed")
        self.usage = UsageLedger()

    def close(self) -> None:
        self._chat_worker.shutdown()
        self._embed_worker.shutdown()
        self._worlds.close()

    # Agents ----------------------------------------------------------------------

    async def upsert_agent(
        self, world_id: str, agent_id: str, persona: Persona, game_time: GameTime | None
    ) -> AgentRecord:
        world = self._world(world_id)
        validation.identifier("agent_id", agent_id)
        validation.text("persona.name", persona.name, limit=200)
        validation.int_range("persona.age", persona.age, 0, 100000)
        existing = world.store.get_agent(agent_id)
        agent = AgentRecord(
            agent_id,
            persona,
            existing.reflection_enabled if existing else True,
            existing.planning_enabled if existing else True,
        )
        world.store.upsert_agent(agent)
        if persona.home_address:
            world.store.add_places(agent_id, [persona.home_address], game_time or 0.0)
        return agent

    async def get_agent(self, world_id: str, agent_id: str) -> AgentRecord:
        return self._world(world_id).agent(validation.identifier("agent_id", agent_id))

    # Perceiving ------------------------------------------------------------------

    async def perceive(
        self,
        world_id: str,
        agent_id: str,
        game_time: GameTime,
        observations: Sequence[Observation],
        visible_addresses: Sequence[str] = (),
        field_prefix: str = "",
    ) -> list[str]:
        """Stores each observation as a memory; returns their ids in order."""
        world, agent = self._agent(world_id, agent_id, field_prefix)
        _check_observations(observations, visible_addresses, field_prefix)
        self.usage.saw(world.world_id, agent_id, game_time)
        if not observations:
            world.store.add_places(agent_id, visible_addresses, game_time)
            return []
        vectors = await self._embed_worker.run(self._embedder.embed, [o.text for o in observations])
        memories = [
            NewMemory(
                kind=MemoryKind.OBSERVATION,
                description=o.text,
                created=game_time,
                importance=await self._importance(world, agent, o),
                subject=o.subject,
                predicate=o.predicate,
                object=o.object,
                address=o.address,
                source=o.source,
            )
            for o in observations
        ]
        stored = self._store(world, agent_id, memories, vectors)
        places = [*visible_addresses, *(o.address for o in observations)]
        world.store.add_places(agent_id, places, game_time)
        return [str(m.memory_id) for m in stored]

    async def _importance(self, world: World, agent: AgentRecord, o: Observation) -> float:
        if o.importance is not None:
            return float(o.importance)
        rating = await self._chat_worker.run(
            rate_importance, self._chat, agent.persona.name, o.text
        )
        if rating.completion is not None:
            self.usage.record(world.world_id, agent.agent_id, "importance", rating.completion)
        return float(rating.value)

    def _store(
        self, world: World, agent_id: str, memories: Sequence[NewMemory], vectors: object
    ) -> list[MemoryRecord]:
        stream = world.stream(agent_id)  # load before the write, so it is added once
        stored = world.store.add_memories(agent_id, memories, vectors)  # type: ignore[arg-type]
        stream.add(stored, vectors)  # type: ignore[arg-type]
        return stored

    # Retrieval -------------------------------------------------------------------

    async def retrieve(
        self,
        world_id: str,
        agent_id: str,
        game_time: GameTime,
        query: str,
        k: int = 0,
        weights: Weights | None = None,
        kinds: Sequence[MemoryKind] = (),
    ) -> list[ScoredMemory]:
        """The k best memories for the query now; marks them accessed at game_time."""
        world, _ = self._agent(world_id, agent_id)
        validation.text("query", query)
        validation.int_range("k", k, 0, 100)
        for name in ("recency", "importance", "relevance"):
            if weights is not None and not 0 <= getattr(weights, name) <= 100:
                raise InvalidArgument(f"weights.{name}", "must be between 0 and 100")
        return await self._recall(
            world, agent_id, game_time, query, k or self._settings.retrieve_k, weights, kinds
        )

    async def _recall(
        self,
        world: World,
        agent_id: str,
        game_time: GameTime,
        query: str,
        k: int,
        weights: Weights | None = None,
        kinds: Sequence[MemoryKind] = (),
    ) -> list[ScoredMemory]:
        (vector,) = await self._embed_worker.run(self._embedder.embed, [query])
        stream = world.stream(agent_id)
        found = stream.score_candidates(
            vector,
            now=game_time,
            k=k,
            weights=self._weights(weights),
            decay=self._settings.recency_decay,
            kinds=kinds,
        )
        world.store.touch([s.memory.memory_id for s in found], game_time)
        touched = stream.touch([s.memory for s in found], game_time)
        return [
            ScoredMemory(memory, s.score, s.recency, s.importance, s.relevance)
            for memory, s in zip(touched, found, strict=True)
        ]

    def _weights(self, given: Weights | None) -> Weights:
        s = self._settings
        given = given or Weights(0, 0, 0)
        return Weights(
            given.recency or s.weight_recency,
            given.importance or s.weight_importance,
            given.relevance or s.weight_relevance,
        )

    # Acting ----------------------------------------------------------------------

    async def act(
        self, world_id: str, agent_id: str, game_time: GameTime, max_wait_ms: int = 0
    ) -> tuple[Action, bool]:
        """The current action, and whether a better one is being prepared."""
        world, agent = self._agent(world_id, agent_id)
        validation.int_range("max_wait_ms", max_wait_ms, 0, self._settings.max_wait_ms)
        self.usage.saw(world.world_id, agent_id, game_time)
        state = world.state(agent_id)
        if state.action is not None and state.action.covers(game_time):
            return state.action, state.deciding is not None
        if state.deciding is None:
            state.deciding = asyncio.create_task(self._decide(world, agent, game_time))
            state.deciding.add_done_callback(lambda _: setattr(state, "deciding", None))
        task = state.deciding
        if max_wait_ms > 0:
            await asyncio.wait({task}, timeout=max_wait_ms / 1000)
        if task.done():
            return task.result(), False
        places = world.store.places(agent_id)
        return state.action or _as_action(
            idle_decision(agent.persona, places or [""]), game_time
        ), True

    async def _decide(self, world: World, agent: AgentRecord, game_time: GameTime) -> Action:
        """Decides a new action; a failure is logged and gives the idle action."""
        state = world.state(agent.agent_id)
        places = world.store.places(agent.agent_id)
        try:
            if not places:
                decision = idle_decision(agent.persona, [""])
            else:
                query = f"{agent.persona.name} {agent.persona.currently} plans today".strip()
                recalled = await self._recall(
                    world, agent.agent_id, game_time, query, self._settings.context_memories
                )
                decision, completion = await self._chat_worker.run(
                    decide_action,
                    self._chat,
                    agent.persona,
                    game_time,
                    [s.memory for s in recalled],
                    places,
                )
                self.usage.record(world.world_id, agent.agent_id, "act", completion)
        except Exception:
            log.exception("deciding an action for %s failed; the agent idles", agent.agent_id)
            decision = idle_decision(agent.persona, places or [""])
        state.action = _as_action(decision, game_time)
        return state.action

    async def tick(
        self,
        world_id: str,
        game_time: GameTime,
        agents: Sequence[AgentTick],
        max_wait_ms: int = 0,
    ) -> list[TickResult]:
        """Perceive then act for many agents; checks every agent before changing any."""
        world = self._world(world_id)
        validation.int_range("max_wait_ms", max_wait_ms, 0, self._settings.max_wait_ms)
        for i, item in enumerate(agents):
            prefix = f"agents[{i}]."
            self._agent(world.world_id, item.agent_id, prefix)
            _check_observations(item.observations, item.visible_addresses, prefix)

        async def one(item: AgentTick) -> TickResult:
            ids = await self.perceive(
                world.world_id,
                item.agent_id,
                game_time,
                item.observations,
                item.visible_addresses,
            )
            action, pending = await self.act(world.world_id, item.agent_id, game_time, max_wait_ms)
            return TickResult(item.agent_id, action, pending, ids)

        return list(await asyncio.gather(*(one(item) for item in agents)))

    # Conversation ----------------------------------------------------------------

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
        validation.text("utterance", utterance)
        self.usage.saw(world.world_id, agent_id, game_time)
        speaker = world.store.get_agent(speaker_id)
        speaker_name = speaker.persona.name if speaker else speaker_id
        recalled = await self._recall(
            world, agent_id, game_time, utterance, self._settings.context_memories
        )
        messages = reply_messages(
            agent.persona, game_time, [s.memory for s in recalled], speaker_name, utterance
        )
        loop = asyncio.get_running_loop()
        pieces: asyncio.Queue[str | None] = asyncio.Queue()
        listening = True

        def on_text(piece: str) -> None:
            if not listening:
                raise _StreamCancelled
            loop.call_soon_threadsafe(pieces.put_nowait, piece)

        job = asyncio.ensure_future(
            self._chat_worker.run(
                stream_reply,
                self._chat,
                messages,
                max_tokens=self._settings.reply_max_tokens,
                temperature=self._settings.temperature,
                seed=self._settings.seed,
                on_text=on_text,
            )
        )
        job.add_done_callback(_close_queue(pieces))
        try:
            while (piece := await pieces.get()) is not None:
                yield piece
            reply = await job
        finally:
            listening = False
        self.usage.record(world.world_id, agent_id, "converse", reply.completion)
        text = reply.text or "..."
        if not interview:
            await self._remember_exchange(
                world, agent, game_time, speaker_id, speaker_name, utterance, text
            )
        yield Line(agent_id, text, reply.end_conversation)

    async def _remember_exchange(
        self,
        world: World,
        agent: AgentRecord,
        game_time: GameTime,
        speaker_id: str,
        speaker_name: str,
        heard: str,
        said: str,
    ) -> None:
        name = agent.persona.name
        lines = [
            (f'{speaker_name} said to {name}: "{heard}"', Source(SourceKind.HEARD, speaker_id)),
            (f'{name} said to {speaker_name}: "{said}"', Source(SourceKind.SEEN, agent.agent_id)),
        ]
        exchange = "\n".join(text for text, _ in lines)
        importance = await self._importance(world, agent, Observation(exchange))
        vectors = await self._embed_worker.run(self._embedder.embed, [t for t, _ in lines])
        memories = [
            NewMemory(MemoryKind.DIALOGUE, text, game_time, importance, source=source)
            for text, source in lines
        ]
        self._store(world, agent.agent_id, memories, vectors)

    # Stats -----------------------------------------------------------------------

    async def stats(self, world_id: str, agent_id: str = "") -> UsageSummary:
        world = self._world(world_id)
        if agent_id:
            self._agent(world.world_id, agent_id)
        return self.usage.summary(world.world_id, agent_id)

    # Helpers ---------------------------------------------------------------------

    def _world(self, world_id: str) -> World:
        return self._worlds.get(validation.world_id(world_id))

    def _agent(self, world_id: str, agent_id: str, prefix: str = "") -> tuple[World, AgentRecord]:
        world = self._world(world_id)
        return world, world.agent(validation.identifier(prefix + "agent_id", agent_id))


def _check_observations(
    observations: Sequence[Observation], visible: Sequence[str], prefix: str = ""
) -> None:
    for i, o in enumerate(observations):
        field = f"{prefix}observations[{i}]"
        validation.text(f"{field}.text", o.text)
        for name in ("subject", "predicate", "object", "address"):
            validation.text(f"{field}.{name}", getattr(o, name), required=False, limit=500)
        if o.importance is not None:
            validation.int_range(f"{field}.importance", o.importance, 1, 10)
        if o.source.agent_id:
            validation.identifier(f"{field}.source.agent_id", o.source.agent_id)
    for i, address in enumerate(visible):
        validation.text(f"{prefix}visible_addresses[{i}]", address, limit=500)


def _close_queue(pieces: asyncio.Queue[str | None]) -> Callable[[asyncio.Future[Any]], None]:
    """A done-callback that ends the piece queue (and retrieves an abandoned job's error)."""

    def close(job: asyncio.Future[Any]) -> None:
        if not job.cancelled() and job.exception() is not None:
            log.debug("reply generation ended early: %r", job.exception())
        pieces.put_nowait(None)

    return close


def _as_action(decision: Decision, start: GameTime) -> Action:
    return Action(
        decision.activity, decision.address, start, decision.duration_minutes, decision.emoji
    )
