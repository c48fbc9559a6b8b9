"""When and how agents reflect: the paper's importance trigger, run in the background.

After new memories (Faculties.after_remember and every perception), an agent whose
summed importance since its last reflection passes `reflection_threshold` reflects on a
background task at the lowest priority; Reflect forces one now. With `reflections`
composed (the default) code finds the insights in the recent memories (patterns.py,
said.py) and, when there are more than it keeps, the model chooses among them; with
model the model asks the paper's questions and infers them. Insights are stored as
REFLECTION memories citing their evidence, with depth 1 + the deepest evidence, each
belief once.
"""

from __future__ import annotations

from npc_brain.llm.scheduler import Priority
from npc_brain.memory.records import GameTime, MemoryKind, MemoryRecord
from npc_brain.mind.faculties import Faculties
from npc_brain.mind.reflect.patterns import composed_insights
from npc_brain.mind.reflect.prompts import (
    MAX_INSIGHTS,
    Insight,
    chosen_insights,
    insights_for,
    salient_questions,
)
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
        """One reflection now; returns the stored insights."""
        await self._f.catch_up.wait(world, agent.agent_id)  # memories still being embedded
        stream = world.stream(agent.agent_id)
        recent = stream.recent(RECENT_MEMORIES)
        if self._f.settings.reflections == "composed":
            stored = await self._compose(world, agent, game_time, recent)
        else:
            stored = await self._infer(world, agent, game_time, recent)
        if not stored:  # stored insights reset the trigger themselves
            stream.reflected()
        return stored

    async def _compose(
        self, world: World, agent: AgentRecord, game_time: GameTime, recent: list[MemoryRecord]
    ) -> list[MemoryRecord]:
        """Code's insights (patterns.py); when there are more new ones than MAX_INSIGHTS,
        the model chooses which to keep by a constrained choice."""
        found = composed_insights(recent, world.names(), agent.persona.name, world.pronouns())
        stream = world.stream(agent.agent_id)
        new = [i for i in found if not stream.ever_held(i.text)]
        if len(new) > MAX_INSIGHTS:
            new = await self._f.think(
                world,
                agent,
                "reflection",
                Priority.REFLECTION,
                lambda chat: chosen_insights(chat, agent.persona, new),
                game_time=game_time,
            )
        return await self._store(world, agent, new, game_time, [])

    async def _infer(
        self, world: World, agent: AgentRecord, game_time: GameTime, recent: list[MemoryRecord]
    ) -> list[MemoryRecord]:
        """The paper's reflection by the model: questions, evidence, insights."""
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
        return stored

    async def _store(
        self,
        world: World,
        agent: AgentRecord,
        insights: list[Insight],
        game_time: GameTime,
        shown: list[MemoryRecord],
    ) -> list[MemoryRecord]:
        """Stores the insights the agent never held before (no belief twice); one drawn
        while a memory the agent may not tell was in view is no more tellable than it."""
        stream = world.stream(agent.agent_id)
        insights = [i for i in insights if not stream.ever_held(i.text)]
        insights = list({i.text: i for i in insights}.values())
        if not insights:
            return []
        return await self._f.remember_insights(
            world, agent, insights, game_time, MemoryKind.REFLECTION, shown
        )
