"""When and how agents reflect: the paper's importance trigger, run in the background.

After new memories (Faculties.after_remember and every perception), an agent whose
summed importance since its last reflection passes `reflection_threshold` reflects on a
background task at the lowest priority; Reflect forces one now. Insights are stored as
REFLECTION memories citing their evidence, with depth 1 + the deepest evidence, so
agents also reflect on reflections.
"""

from __future__ import annotations

from npc_brain.llm.scheduler import Priority
from npc_brain.memory.records import GameTime, MemoryKind, MemoryRecord
from npc_brain.mind.faculties import Faculties
from npc_brain.mind.reflect.prompts import Insight, insights_for, salient_questions
from npc_brain.mind.world import World
from npc_brain.persona import AgentRecord

RECENT_MEMORIES = 100
EVIDENCE_PER_QUESTION = 8


class Reflector:
    """Triggers and runs reflections."""

    def __init__(self, faculties: Faculties) -> None:
        self._f = faculties

    def after_new_memories(self, world: World, agent: AgentRecord, game_time: GameTime) -> None:
        """Starts a background reflection if the agent's trigger has fired."""
        mind = world.mind(agent.agent_id)
        if not agent.reflection_enabled or "reflect" in mind.tasks:
            return
        stream = world.stream(agent.agent_id)
        if stream.importance_since_reflection < self._f.settings.reflection_threshold:
            return
        mind.start("reflect", self.reflect(world, agent, game_time))

    async def reflect(
        self, world: World, agent: AgentRecord, game_time: GameTime
    ) -> list[MemoryRecord]:
        """One reflection now: questions, evidence, insights; returns the stored insights."""
        recent = world.stream(agent.agent_id).recent(RECENT_MEMORIES)
        if not recent:
            return []
        questions = await self._f.think(
            world,
            agent,
            "reflection",
            Priority.REFLECTION,
            lambda chat: salient_questions(chat, agent.persona, recent),
            game_time=game_time,
        )
        stored: list[MemoryRecord] = []
        for question in questions:
            found = await self._f.recall(
                world, agent.agent_id, game_time, question, EVIDENCE_PER_QUESTION
            )
            evidence = [s.memory for s in found]
            insights = await self._f.think(
                world,
                agent,
                "reflection",
                Priority.REFLECTION,
                lambda chat: insights_for(chat, agent.persona, question, evidence),  # noqa: B023
                game_time=game_time,
            )
            stored.extend(await self._store(world, agent, insights, game_time, evidence))
        if not stored:  # stored insights reset the trigger themselves
            world.stream(agent.agent_id).reflected()
        return stored

    async def _store(
        self,
        world: World,
        agent: AgentRecord,
        insights: list[Insight],
        game_time: GameTime,
        shown: list[MemoryRecord],
    ) -> list[MemoryRecord]:
        """Stores new insights; one drawn while a memory the agent may not tell was in
        view is no more tellable than it."""
        known = {m.description for m in world.stream(agent.agent_id).recent(RECENT_MEMORIES)}
        insights = [i for i in insights if i.text not in known]  # no belief twice
        insights = list({i.text: i for i in insights}.values())
        if not insights:
            return []
        return await self._f.remember_insights(
            world, agent, insights, game_time, MemoryKind.REFLECTION, shown
        )
