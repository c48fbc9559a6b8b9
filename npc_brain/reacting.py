"""Reactions to other agents, and NPC-to-NPC conversations, run in the background.

An observation whose subject is another agent of the world makes the observer decide,
as in the paper: first whether to talk to them (yes/no), then, if not, whether to
continue, react with a new activity, or wait. Both questions are informed by the paper's
two retrievals: the observer's relationship with the other agent and what that agent is
doing. Talking runs a conversation turn by turn; both agents remember every line, what
each heard carrying the speaker as its source, then write the paper's post-conversation
thoughts and plan the rest of their day again. Gates spare the model: nobody reacts
while asleep or talking, nor to someone asleep; an agent stops to consider others at
most once per `reaction_cooldown_minutes`, and two agents talk again only after
`conversation_cooldown_minutes`.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Sequence

from npc_brain.action import Action, Line
from npc_brain.cognition.react import (
    after_conversation,
    conversation_turn,
    decide_reaction,
    decide_to_talk,
)
from npc_brain.faculties import Faculties
from npc_brain.memory.records import (
    SECONDS_PER_HOUR,
    GameTime,
    MemoryKind,
    MemoryRecord,
    NewMemory,
    Observation,
    Source,
    SourceKind,
)
from npc_brain.persona import AgentRecord
from npc_brain.planning import SLEEP_EMOJI, Planning
from npc_brain.scheduler import Priority
from npc_brain.world import World

log = logging.getLogger(__name__)
CHAT_EMOJI = "💬"
TURN_ATTEMPTS = 3  # a parroted or unusable line is drawn again, twice at most
WAIT_MINUTES = 5


class Reacting:
    """Decides reactions and runs conversations between agents."""

    def __init__(self, faculties: Faculties, planning: Planning) -> None:
        self._f = faculties
        self._planning = planning
        self._quiet_until: dict[tuple[str, str, str], GameTime] = {}  # pair: no more talk
        self._calm_until: dict[tuple[str, str], GameTime] = {}  # agent: no new reaction
        self._running: dict[tuple[str, str], asyncio.Task[None]] = {}
        self._talking: set[tuple[str, str]] = set()  # (world, agent) in a conversation now

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
        if self._busy(world, agent, game_time) or self._calm_until.get(key, -1e18) > game_time:
            return
        for o in observations:
            other = world.store.get_agent(o.subject) if o.subject != agent.agent_id else None
            if other is None or self._quiet(world, agent, other, game_time):
                continue
            if _asleep(world, other, game_time):
                continue
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
        calm = game_time + self._f.settings.reaction_cooldown_minutes * 60
        self._calm_until[(world.world_id, agent.agent_id)] = calm
        doing = _doing(world, agent)
        name, other_name = agent.persona.name, other.persona.name
        context = _distinct(
            [
                *await self._f.context(
                    world, agent, game_time, f"{name}'s relationship with {other_name}"
                ),
                *await self._f.context(world, agent, game_time, seen.text),
            ]
        )
        observed = f"{seen.text} ({other_name} is {_doing(world, other)})"
        talk, completion = await self._f.scheduler.submit(
            Priority.REACTION,
            lambda: decide_to_talk(
                self._f.chat, agent.persona, game_time, doing, other_name, observed, context
            ),
            key=f"react:{world.world_id}:{agent.agent_id}",
        )
        self._f.usage.record(world.world_id, agent.agent_id, "reaction", completion, game_time)
        if talk:
            if self._busy(world, agent, game_time) or self._busy(world, other, game_time):
                return  # one of them started talking meanwhile
            await self.converse(world, agent, other, game_time)
            return
        reaction, completion = await self._f.scheduler.submit(
            Priority.REACTION,
            lambda: decide_reaction(
                self._f.chat, agent.persona, game_time, doing, observed, context
            ),
            key=f"react:{world.world_id}:{agent.agent_id}",
        )
        self._f.usage.record(world.world_id, agent.agent_id, "reaction", completion, game_time)
        where = _where(world, agent)
        if reaction.choice == "react" and reaction.new_activity:
            (emoji,) = await self._f.emojis([reaction.new_activity])
            _take_over(world, agent, Action(reaction.new_activity, where, game_time, 15, emoji))
        elif reaction.choice == "wait":
            waiting = f"waiting for {other_name} to finish"
            _take_over(world, agent, Action(waiting, where, game_time, WAIT_MINUTES, "⏳"))

    async def _next_line(
        self,
        world: World,
        speaker: AgentRecord,
        listener: AgentRecord,
        game_time: GameTime,
        memories: Sequence[MemoryRecord],
        lines: Sequence[Line],
    ) -> Line | None:
        """The speaker's next line; a parroted or unusable one is drawn again with another
        seed (TURN_ATTEMPTS draws at most), and None ends the conversation."""
        for attempt in range(TURN_ATTEMPTS):
            line, completion = await self._f.scheduler.run(
                Priority.REACTION,
                conversation_turn,
                self._f.chat,
                speaker.agent_id,
                speaker.persona,
                listener.persona.name,
                game_time,
                memories,
                lines,
                self._f.settings.seed + attempt,
            )
            self._f.usage.record(
                world.world_id, speaker.agent_id, "dialogue", completion, game_time
            )
            if line is not None and not _repeats(line.text, lines):
                return line
        return None

    async def converse(
        self, world: World, first: AgentRecord, second: AgentRecord, game_time: GameTime
    ) -> list[Line]:
        """A conversation of at most `max_conversation_turns` lines; both remember it,
        think it over and plan the rest of their day again."""
        pair = {(world.world_id, first.agent_id), (world.world_id, second.agent_id)}
        self._talking |= pair
        try:
            return await self._converse(world, first, second, game_time)
        finally:
            self._talking -= pair

    async def _converse(
        self, world: World, first: AgentRecord, second: AgentRecord, game_time: GameTime
    ) -> list[Line]:
        minutes = self._f.settings.conversation_cooldown_minutes
        for a, b in ((first, second), (second, first)):
            self._hush(world, a, b, game_time, minutes)
        names = {a.agent_id: a.persona.name for a in (first, second)}
        relationship = {
            a.agent_id: await self._f.context(world, a, game_time, b.persona.name)
            for a, b in ((first, second), (second, first))
        }
        lines: list[Line] = []
        for turn in range(self._f.settings.max_conversation_turns):
            speaker, listener = (first, second) if turn % 2 == 0 else (second, first)
            memories = relationship[speaker.agent_id]
            if lines:  # and what the conversation so far brings to mind
                said = await self._f.context(world, speaker, game_time, lines[-1].text)
                memories = _distinct([*memories, *said])
            line = await self._next_line(world, speaker, listener, game_time, memories, lines)
            if line is None:
                break  # unusable lines, or lines parroting earlier ones, end it
            lines.append(Line(speaker.agent_id, line.text, line.end_conversation))
            if line.end_conversation:
                break
        if lines:
            for a, b in ((first, second), (second, first)):
                await self._remember(world, a, b, lines, game_time)
            for a, b in ((first, second), (second, first)):
                thoughts = await self._think_over(world, a, b, lines, names, game_time)
                if a.planning_enabled:
                    await self._planning.revise(world, a, game_time, thoughts)
        return lines

    async def _think_over(
        self,
        world: World,
        agent: AgentRecord,
        other: AgentRecord,
        lines: list[Line],
        names: dict[str, str],
        game_time: GameTime,
    ) -> list[MemoryRecord]:
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
            return []
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
        return world.remember(agent.agent_id, memories, vectors)

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
        where = _where(world, agent)
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

    def running(self, world: World) -> list[asyncio.Task[None]]:
        """The world's reactions and conversations in progress."""
        return [t for (w, _), t in self._running.items() if w == world.world_id]

    def _quiet(self, world: World, a: AgentRecord, b: AgentRecord, game_time: GameTime) -> bool:
        return self._quiet_until.get((world.world_id, a.agent_id, b.agent_id), -1e18) > game_time

    def _busy(self, world: World, agent: AgentRecord, game_time: GameTime) -> bool:
        """Asleep, or in a conversation (now or just had): not to be disturbed."""
        if (world.world_id, agent.agent_id) in self._talking:
            return True
        action = world.state(agent.agent_id).action
        talked = action is not None and action.covers(game_time) and bool(action.chat)
        return talked or _asleep(world, agent, game_time)

    def _hush(
        self, world: World, a: AgentRecord, b: AgentRecord, game_time: GameTime, minutes: int
    ) -> None:
        """a does not consider talking to b again for `minutes` of game time."""
        self._quiet_until[(world.world_id, a.agent_id, b.agent_id)] = game_time + minutes * 60

    def _finished(self, key: tuple[str, str], task: asyncio.Task[None]) -> None:
        self._running.pop(key, None)
        if not task.cancelled() and task.exception() is not None:
            log.error("reaction of %s failed: %r", key[1], task.exception())

    def close(self) -> None:
        for task in list(self._running.values()):
            task.cancel()


def _doing(world: World, agent: AgentRecord) -> str:
    action = world.state(agent.agent_id).action
    return action.description if action else "idle"


def _where(world: World, agent: AgentRecord) -> str:
    action = world.state(agent.agent_id).action
    return action.address if action else agent.persona.home_address


def _asleep(world: World, agent: AgentRecord, game_time: GameTime) -> bool:
    action = world.state(agent.agent_id).action
    return action is not None and action.covers(game_time) and action.emoji == SLEEP_EMOJI


def _repeats(text: str, lines: Sequence[Line], overlap: float = 0.6) -> bool:
    """True when most of the words of `text` and of an earlier line are the same."""
    words = set(text.lower().split())
    for line in lines:
        said = set(line.text.lower().split())
        if len(words & said) > overlap * max(1, min(len(words), len(said))):
            return True
    return False


def _distinct(memories: Sequence[MemoryRecord]) -> list[MemoryRecord]:
    return list({m.memory_id: m for m in memories}.values())


def _take_over(world: World, agent: AgentRecord, action: Action) -> None:
    """Makes a reaction the current action. A plan being prepared goes on (it is needed
    later) but will not replace it; the current hour's decomposition is dropped, so the
    plan resumes from after the reaction."""
    state = world.state(agent.agent_id)
    if state.hours.pop(action.start // SECONDS_PER_HOUR * SECONDS_PER_HOUR, None) is not None:
        world.save_plan(agent.agent_id)
    state.action = action
