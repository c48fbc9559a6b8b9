"""Minds: the agents' minds of every world, one part per faculty, wired once.

The Brain facade checks a request, then calls one method here. Model calls run on the
cognition scheduler through Faculties.think; background work (decisions, reactions,
reflections) is held by each agent's AgentMind (mind/state.py).
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass

from npc_brain.action import Action, Line
from npc_brain.config import Settings
from npc_brain.llm.base import ChatModel, Embedder
from npc_brain.memory.pages import TimeRange
from npc_brain.memory.records import (
    GameTime,
    MemoryKind,
    MemoryRecord,
    Observation,
    ScoredMemory,
)
from npc_brain.memory.retrieval import Weights
from npc_brain.mind.act.actor import Actor
from npc_brain.mind.faculties import Faculties
from npc_brain.mind.knowledge import KnownClaim, claim_of_memory, claims_like
from npc_brain.mind.perceive import AgentTick, Senses, observation_of
from npc_brain.mind.plan.planner import Planner
from npc_brain.mind.react.reactions import Reactions
from npc_brain.mind.reflect.reflector import Reflector
from npc_brain.mind.talk import outcomes
from npc_brain.mind.talk.conversation import Conversations
from npc_brain.mind.talk.news import News
from npc_brain.mind.talk.reply import Replies
from npc_brain.mind.usage import UsageLedger
from npc_brain.mind.world import World
from npc_brain.persona import AgentRecord


@dataclass(frozen=True)
class TickResult:
    agent_id: str
    action: Action
    pending: bool
    memory_ids: list[str]


class Minds:
    """Perceiving, acting, talking and reflecting for the agents of every world."""

    def __init__(self, chat: ChatModel, embedder: Embedder, settings: Settings) -> None:
        self.faculties = f = Faculties(chat, embedder, settings)
        planner = Planner(f)
        self._actor = Actor(f, planner)
        self._reflector = Reflector(f)
        self._news = News(f)
        self._replies = Replies(f, self._news)
        conversations = Conversations(f, planner, self._news, self._replies.answer)
        self._reactions = Reactions(f, conversations)
        self._senses = Senses(f, self._after_perceive)
        f.after_remember = self._reflector.after_new_memories
        f.catch_up.after = self._after_catch_up

    @property
    def usage(self) -> UsageLedger:
        return self.faculties.usage

    async def warm_up(self) -> None:
        """Fits the dialogue acts' classifier (talk/understand.py) before the first line."""
        await self._replies.understanding.fitted()

    def close(self) -> None:
        self.faculties.close()

    async def perceive(
        self, world: World, game_time: GameTime, items: Sequence[tuple[AgentTick, AgentRecord]]
    ) -> list[list[str]]:
        """Stores each agent's observations; each agent's memory ids, in order."""
        return await self._senses.perceive(world, game_time, items)

    async def remember(
        self,
        world: World,
        agent: AgentRecord,
        kind: MemoryKind,
        observation: Observation,
        game_time: GameTime,
    ) -> MemoryRecord:
        (stored,) = await self.faculties.remember(world, agent, kind, [observation], game_time)
        return stored

    async def retrieve(
        self,
        world: World,
        agent: AgentRecord,
        game_time: GameTime,
        query: str,
        k: int,
        weights: Weights | None,
        kinds: Sequence[MemoryKind],
        created: TimeRange,
    ) -> list[ScoredMemory]:
        """The k best memories for the query now; marks them accessed at game_time."""
        return await self.faculties.recall(
            world,
            agent.agent_id,
            game_time,
            query,
            k,
            weights,
            kinds,
            created.after,
            created.before,
            weighed=False,  # the game's view of the stream: every memory, as explain ranks
            asked=True,
        )

    async def act(
        self, world: World, agent: AgentRecord, game_time: GameTime, max_wait_ms: int | None
    ) -> tuple[Action, bool]:
        """The current action, and whether a better one is being prepared."""
        self.usage.saw(world.world_id, agent.agent_id, game_time)
        return await self._actor.act(world, agent, game_time, max_wait_ms)

    async def tick(
        self,
        world: World,
        game_time: GameTime,
        items: Sequence[tuple[AgentTick, AgentRecord]],
        max_wait_ms: int,
    ) -> list[TickResult]:
        """Everyone perceives, then one write for all, then everyone acts."""
        ids = await self._senses.perceive(world, game_time, items)
        agents = [agent for _, agent in items]
        acted = await self._actor.act_many(world, agents, game_time, max_wait_ms)
        return [
            TickResult(item.agent_id, action, pending, memory_ids)
            for (item, _), (action, pending), memory_ids in zip(items, acted, ids, strict=True)
        ]

    async def tick_lockstep(
        self, world: World, game_time: GameTime, items: Sequence[tuple[AgentTick, AgentRecord]]
    ) -> list[TickResult]:
        """The agents one after another, each action waited for; answers once all
        cognition the tick started has finished (deterministic)."""
        results = []
        for item, agent in items:
            (ids,) = await self._senses.perceive(world, game_time, [(item, agent)])
            await self._settle(world)
            action, pending = await self._actor.act(world, agent, game_time, None)
            await self._settle(world)
            results.append(TickResult(item.agent_id, action, pending, ids))
        # What a later agent started (a conversation with an earlier one) shows for both.
        return [
            TickResult(r.agent_id, world.mind(r.agent_id).action or r.action, False, r.memory_ids)
            for r in results
        ]

    async def converse(
        self,
        world: World,
        agent: AgentRecord,
        game_time: GameTime,
        speaker_id: str,
        utterance: str,
        interview: bool,
    ) -> AsyncIterator[str | Line]:
        """Yields the reply's text pieces as they are generated, then the final Line."""
        self.usage.saw(world.world_id, agent.agent_id, game_time)
        async for event in self._replies.converse(
            world, agent, game_time, speaker_id, utterance, interview
        ):
            yield event

    async def report_outcome(
        self,
        world: World,
        agent: AgentRecord,
        action_id: str,
        done: bool,
        detail: str,
        game_time: GameTime,
    ) -> MemoryRecord:
        """Remembers what became of a game action the agent chose (talk/outcomes.py)."""
        self.usage.saw(world.world_id, agent.agent_id, game_time)
        return await outcomes.report(
            self.faculties, world, agent, action_id, done, detail, game_time
        )

    async def reflect(
        self, world: World, agent: AgentRecord, game_time: GameTime
    ) -> list[MemoryRecord]:
        """Reflects now, whatever the trigger says; returns the insights stored."""
        await self.faculties.catch_up.wait(world, agent.agent_id)
        return await self._reflector.reflect(world, agent, game_time)

    async def who_knows(
        self, world: World, memory_id: int | None, query: str, k: int
    ) -> list[KnownClaim]:
        """The claim a memory holds, or the k claims nearest a query, with their holders."""
        if memory_id is not None:
            if (owner := world.store.memory_owner(memory_id)) is not None:
                await self.faculties.catch_up.wait(world, owner)
            return [claim_of_memory(world, memory_id)]
        return await claims_like(self.faculties, world, query, k)

    def _after_perceive(
        self,
        world: World,
        agent: AgentRecord,
        game_time: GameTime,
        new: Sequence[Observation],
    ) -> None:
        self._reflector.after_new_memories(world, agent, game_time)
        self._reactions.after_perceive(world, agent, game_time, new)

    def _after_catch_up(
        self, world: World, agent: AgentRecord, memories: Sequence[MemoryRecord]
    ) -> None:
        """Perceived memories stored before their embeddings are now in the stream: what
        follows a perception (the reflection trigger, reactions) follows now."""
        new = [observation_of(m) for m in memories if m.kind == MemoryKind.OBSERVATION]
        if new:
            self._after_perceive(world, agent, max(m.created for m in memories), new)

    async def _settle(self, world: World) -> None:
        """Waits until no background work of the world's agents runs (embedding the
        memories stored before their embeddings included)."""
        await self.faculties.catch_up.wait(world)
        while busy := [t for m in world.minds.values() for t in m.tasks.values()]:
            await asyncio.wait(busy)
