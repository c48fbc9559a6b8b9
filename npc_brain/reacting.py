"""Reactions to other agents, and NPC-to-NPC conversations, run in the background.

An observation whose subject is another agent of the world makes the observer decide
(continue / talk / react / wait), informed by the paper's two retrievals: its
relationship with the other agent and what that agent is doing. Talking runs a
conversation turn by turn; both agents remember every line, what each heard carrying
the speaker as its source. Reacting re-plans from now; a cooldown per pair stops two
agents from talking endlessly.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Sequence

from npc_brain.action import Action, Line
from npc_brain.cognition.react import after_conversation, conversation_turn, decide_reaction
from npc_brain.faculties import Faculties
from npc_brain.memory.records import (
    SECONDS_PER_HOUR,
    GameTime,
    MemoryKind,
    NewMemory,
    Observation,
    Source,
    SourceKind,
)
from npc_brain.persona import AgentRecord
from npc_brain.scheduler import Priority
from npc_brain.world import World

log = logging.getLogger(__name__)
CHAT_EMOJI = "💬"


class Reacting:
    """Decides reactions and runs conversations between agents."""

    def __init__(self, faculties: Faculties) -> None:
        self._f = faculties
        self._quiet_until: dict[tuple[str, str, str], GameTime] = {}
        self._running: dict[tuple[str, str], asyncio.Task[None]] = {}

    def after_perceive(
        self,
        world: World,
        agent: AgentRecord,
        game_time: GameTime,
        observations: Sequence[Observation],
    ) -> None:
        """Starts a reaction to the first other agent seen, unless one is under way."""
        key = (world.world_id, agent.agent_id)
        if not agent.planning_enabled or key in self._running:
            return
        for o in observations:
            other = world.store.get_agent(o.subject) if o.subject != agent.agent_id else None
            if other is not None and not self._quiet(world, agent, other, game_time):
                task = asyncio.create_task(self._react(world, agent, other, o, game_time))
                self._running[key] = task
                task.add_done_callback(lambda done: self._finished(key, done))
                return

    async def _react(
        self,
        world: World,
        agent: AgentRecord,
        other: AgentRecord,
        seen: Observation,
        game_time: GameTime,
    ) -> None:
        state = world.state(agent.agent_id)
        doing = state.action.description if state.action else "idle"
        name, other_name = agent.persona.name, other.persona.name
        context = [
            *await self._f.context(
                world, agent, game_time, f"{name}'s relationship with {other_name}"
            ),
            *await self._f.context(world, agent, game_time, seen.text),
        ]
        reaction, completion = await self._f.scheduler.submit(
            Priority.REACTION,
            lambda: decide_reaction(
                self._f.chat, agent.persona, game_time, doing, seen.text, context
            ),
            key=f"react:{world.world_id}:{agent.agent_id}",
        )
        self._f.usage.record(world.world_id, agent.agent_id, "reaction", completion, game_time)
        if reaction.choice == "talk":
            await self.converse(world, agent, other, game_time)
        elif reaction.choice == "react" and reaction.new_activity:
            where = state.action.address if state.action else agent.persona.home_address
            _take_over(world, agent, Action(reaction.new_activity, where, game_time, 15, "🤔"))

    async def converse(
        self, world: World, first: AgentRecord, second: AgentRecord, game_time: GameTime
    ) -> list[Line]:
        """A conversation of at most `max_conversation_turns` lines; both remember it."""
        quiet = game_time + self._f.settings.conversation_cooldown_minutes * 60
        for a, b in ((first, second), (second, first)):
            self._quiet_until[(world.world_id, a.agent_id, b.agent_id)] = quiet
        names = {a.agent_id: a.persona.name for a in (first, second)}
        relationship = {
            a.agent_id: await self._f.context(world, a, game_time, b.persona.name)
            for a, b in ((first, second), (second, first))
        }
        lines: list[Line] = []
        for turn in range(self._f.settings.max_conversation_turns):
            speaker, listener = (first, second) if turn % 2 == 0 else (second, first)
            line, completion = await self._f.scheduler.run(
                Priority.REACTION,
                conversation_turn,
                self._f.chat,
                speaker.persona,
                listener.persona.name,
                game_time,
                relationship[speaker.agent_id],
                lines,
                names,
            )
            self._f.usage.record(
                world.world_id, speaker.agent_id, "dialogue", completion, game_time
            )
            if line is None:
                break
            lines.append(Line(speaker.agent_id, line.text, line.end_conversation))
            if line.end_conversation:
                break
        if lines:
            for a, b in ((first, second), (second, first)):
                await self._remember(world, a, b, lines, game_time)
                await self._think_over(world, a, b, lines, names, game_time)
        return lines

    async def _think_over(
        self,
        world: World,
        agent: AgentRecord,
        other: AgentRecord,
        lines: list[Line],
        names: dict[str, str],
        game_time: GameTime,
    ) -> None:
        """Stores the agent's post-conversation thoughts, citing the conversation's lines."""
        thoughts, completion = await self._f.scheduler.run(
            Priority.REFLECTION,
            after_conversation,
            self._f.chat,
            agent.persona,
            other.persona.name,
            lines,
            names,
        )
        self._f.usage.record(world.world_id, agent.agent_id, "dialogue", completion, game_time)
        if not thoughts:
            return
        said = tuple(m.memory_id for m in world.stream(agent.agent_id).recent(len(lines)))
        vectors = await self._f.embed(thoughts)
        memories = [
            NewMemory(
                kind=MemoryKind.REFLECTION,
                description=thought,
                created=game_time,
                importance=await self._f.importance(world, agent, Observation(thought)),
                source=Source(SourceKind.SEEN, agent.agent_id),
                evidence_ids=said,
                depth=1,
            )
            for thought in thoughts
        ]
        world.remember(agent.agent_id, memories, vectors)

    async def _remember(
        self,
        world: World,
        agent: AgentRecord,
        other: AgentRecord,
        lines: list[Line],
        game_time: GameTime,
    ) -> None:
        """The conversation in the agent's stream, and as its current action."""
        other_name = other.persona.name
        state = world.state(agent.agent_id)
        where = state.action.address if state.action else agent.persona.home_address
        await self._f.remember_dialogue(
            world, agent, other.agent_id, other_name, lines, game_time, where
        )
        _take_over(
            world,
            agent,
            Action(
                f"talking with {other_name}",
                where,
                game_time,
                max(5, len(lines)),
                CHAT_EMOJI,
                chat_with_agent_id=other.agent_id,
                chat=tuple(lines),
            ),
        )

    def _quiet(self, world: World, a: AgentRecord, b: AgentRecord, game_time: GameTime) -> bool:
        return self._quiet_until.get((world.world_id, a.agent_id, b.agent_id), -1e18) > game_time

    def _finished(self, key: tuple[str, str], task: asyncio.Task[None]) -> None:
        self._running.pop(key, None)
        if not task.cancelled() and task.exception() is not None:
            log.error("reaction of %s failed: %r", key[1], task.exception())

    def close(self) -> None:
        for task in list(self._running.values()):
            task.cancel()


def _take_over(world: World, agent: AgentRecord, action: Action) -> None:
    """Makes a reaction the current action: a plan being prepared is cancelled, and the
    current hour's decomposition dropped, so the plan resumes from after the reaction."""
    state = world.state(agent.agent_id)
    if state.deciding is not None:
        state.deciding.cancel()
    state.hours.pop(action.start // SECONDS_PER_HOUR * SECONDS_PER_HOUR, None)
    state.action = action
