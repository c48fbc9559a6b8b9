"""When and how agents reflect: the paper's importance trigger, run in the background.

After new memories, an agent whose summed importance since its last reflection passes
`reflection_threshold` reflects on a background task at the lowest priority; Reflect
forces one now. Insights are stored as REFLECTION memories citing their evidence,
with depth 1 + the deepest evidence, so agents also reflect on reflections.
"""

from __future__ import annotations

import asyncio
import logging

from npc_brain.cognition.reflect import Insight, insights_for, salient_questions
from npc_brain.faculties import Faculties
from npc_brain.memory.records import (
    GameTime,
    MemoryKind,
    MemoryRecord,
    NewMemory,
    Observation,
    Source,
    SourceKind,
)
from npc_brain.persona import AgentRecord
from npc_brain.scheduler import Priority
from npc_brain.world import World

log = logging.getLogger(__name__)
RECENT_MEMORIES = 100
EVIDENCE_PER_QUESTION = 8


class Reflecting:
    """Triggers and runs reflections."""

    def __init__(self, faculties: Faculties) -> None:
        self._f = faculties
        self._running: dict[tuple[str, str], asyncio.Task[list[MemoryRecord]]] = {}

    def after_new_memories(self, world: World, agent: AgentRecord, game_time: GameTime) -> None:
        """Starts a background reflection if the agent's trigger has fired."""
        key = (world.world_id, agent.agent_id)
        if not agent.reflection_enabled or key in self._running:
            return
        stream = world.stream(agent.agent_id)
        if stream.importance_since_reflection < self._f.settings.reflection_threshold:
            return
        task = asyncio.create_task(self.reflect(world, agent, game_time))
        self._running[key] = task
        task.add_done_callback(lambda done: self._finished(key, done))

    async def reflect(
        self, world: World, agent: AgentRecord, game_time: GameTime
    ) -> list[MemoryRecord]:
        """One reflection now: questions, evidence, insights; returns the stored insights."""
        recent = world.stream(agent.agent_id).recent(RECENT_MEMORIES)
        if not recent:
            return []
        questions, completion = await self._f.scheduler.run(
            Priority.REFLECTION, salient_questions, self._f.chat, agent.persona, recent
        )
        self._f.usage.record(world.world_id, agent.agent_id, "reflection", completion, game_time)
        stored: list[MemoryRecord] = []
        for question in questions:
            evidence = await self._f.recall(
                world, agent.agent_id, game_time, question, EVIDENCE_PER_QUESTION
            )
            insights, completion = await self._f.scheduler.run(
                Priority.REFLECTION,
                insights_for,
                self._f.chat,
                agent.persona,
                question,
                [s.memory for s in evidence],
            )
            self._f.usage.record(
                world.world_id, agent.agent_id, "reflection", completion, game_time
            )
            stored.extend(await self._store(world, agent, insights, game_time))
        return stored

    async def _store(
        self, world: World, agent: AgentRecord, insights: list[Insight], game_time: GameTime
    ) -> list[MemoryRecord]:
        known = {m.description for m in world.stream(agent.agent_id).recent(RECENT_MEMORIES)}
        insights = [i for i in insights if i.text not in known]  # no belief twice
        insights = list({i.text: i for i in insights}.values())
        if not insights:
            return []
        vectors = await self._f.embed([i.text for i in insights])
        memories = []
        for insight in insights:
            rating = await self._f.importance(world, agent, Observation(insight.text))
            memories.append(
                NewMemory(
                    kind=MemoryKind.REFLECTION,
                    description=insight.text,
                    created=game_time,
                    importance=rating,
                    source=Source(SourceKind.SEEN, agent.agent_id),
                    evidence_ids=tuple(m.memory_id for m in insight.evidence),
                    depth=1 + max(m.depth for m in insight.evidence),
                )
            )
        return world.remember(agent.agent_id, memories, vectors)

    def running(self, world: World) -> list[asyncio.Task[list[MemoryRecord]]]:
        """The world's reflections in progress."""
        return [t for (w, _), t in self._running.items() if w == world.world_id]

    def _finished(self, key: tuple[str, str], task: asyncio.Task[list[MemoryRecord]]) -> None:
        self._running.pop(key, None)
        if not task.cancelled() and task.exception() is not None:
            log.error("reflection of %s failed: %r", key[1], task.exception())

    def close(self) -> None:
        """Cancels reflections in progress (their finished parts are already stored)."""
        for task in list(self._running.values()):
            task.cancel()
