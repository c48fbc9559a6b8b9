"""Reactions to other agents, run in the background.

An observation whose subject is another agent of the world makes the observer decide,
as in the paper: first whether to talk to them (yes/no), then, if not, whether to
continue, react with a new activity, or wait. Both questions are informed by the paper's
two retrievals: the observer's relationship with the other agent and what that agent is
doing. Talking hands over to a conversation (mind/talk/conversation.py). Gates spare the
model: nobody reacts while asleep or talking, nor to someone asleep, nor asks whether to
talk to someone in a conversation (only what to do meanwhile); an agent stops to
consider others at most once per `reaction_cooldown_minutes` (`WAIT_MINUTES` when the
one it considered was busy talking), and two agents talk again only after
`conversation_cooldown_minutes`.
"""

from __future__ import annotations

from collections.abc import Sequence

from npc_brain.action import Action
from npc_brain.llm.scheduler import Priority
from npc_brain.memory.records import GameTime, Observation
from npc_brain.mind.faculties import Faculties
from npc_brain.mind.react.prompts import decide_reaction, decide_to_talk
from npc_brain.mind.talk.conversation import Conversations, distinct, take_over, where
from npc_brain.mind.talk.relations import talks
from npc_brain.mind.world import World
from npc_brain.persona import AgentRecord

WAIT_MINUTES = 5


class Reactions:
    """Decides whether and how agents react to the others they see."""

    def __init__(self, faculties: Faculties, conversations: Conversations) -> None:
        self._f = faculties
        self._conversations = conversations

    def after_perceive(
        self,
        world: World,
        agent: AgentRecord,
        game_time: GameTime,
        observations: Sequence[Observation],
    ) -> None:
        """Starts a reaction to another agent seen, unless one is under way: to the one
        the agent has talked with least (a stranger first), the first seen among equals."""
        mind = world.mind(agent.agent_id)
        if not agent.planning_enabled or "react" in mind.tasks:
            return
        if mind.undisturbable(game_time) or mind.calm_until > game_time:
            return
        seen: list[tuple[int, int, AgentRecord, Observation]] = []  # talks, order, who, what
        for o in observations:
            other = world.store.get_agent(o.subject) if o.subject != agent.agent_id else None
            if other is None or mind.quiet_until.get(other.agent_id, -1e18) > game_time:
                continue
            if world.mind(other.agent_id).is_asleep(game_time):
                continue
            seen.append((talks(world, agent.agent_id, other.agent_id), len(seen), other, o))
        if seen:
            *_, other, o = min(seen, key=lambda s: s[:2])
            mind.start("react", self._react(world, agent, other, o, game_time))

    async def _react(
        self,
        world: World,
        agent: AgentRecord,
        other: AgentRecord,
        seen: Observation,
        game_time: GameTime,
    ) -> None:
        world.mind(agent.agent_id).calm_until = (
            game_time + self._f.settings.reaction_cooldown_minutes * 60
        )
        now_doing = world.mind(agent.agent_id).doing()
        name, other_name = agent.persona.name, other.persona.name
        context = distinct(
            [
                *await self._f.context(
                    world, agent, game_time, f"{name}'s relationship with {other_name}"
                ),
                *await self._f.context(world, agent, game_time, seen.text),
            ]
        )
        observed = f"{seen.text} ({other_name} is {world.mind(other.agent_id).doing()})"
        # Someone in a conversation (or just out of one) cannot be talked to: the only
        # question left is what to do meanwhile, and the agent looks round again soon
        # (when the talk ends, it may be the one who is talked to next).
        busy = world.mind(other.agent_id).undisturbable(game_time)
        if busy:
            world.mind(agent.agent_id).calm_until = game_time + WAIT_MINUTES * 60
        talk = not busy and await self._f.think(
            world,
            agent,
            "reaction",
            Priority.REACTION,
            lambda chat: decide_to_talk(
                chat, agent.persona, game_time, now_doing, other_name, observed, context
            ),
            game_time=game_time,
            supersede="react",
        )
        if talk:
            if any(world.mind(a.agent_id).undisturbable(game_time) for a in (agent, other)):
                return  # one of them started talking meanwhile
            await self._conversations.converse(world, agent, other, game_time)
            return
        reaction = await self._f.think(
            world,
            agent,
            "reaction",
            Priority.REACTION,
            lambda chat: decide_reaction(
                chat, agent.persona, game_time, now_doing, observed, context
            ),
            game_time=game_time,
            supersede="react",
        )
        here = where(world, agent)
        if reaction.choice == "react" and reaction.new_activity:
            (emoji,) = await self._f.emojis([reaction.new_activity])
            take_over(world, agent, Action(reaction.new_activity, here, game_time, 15, emoji))
        elif reaction.choice == "wait":
            waiting = f"waiting for {other_name} to finish"
            take_over(world, agent, Action(waiting, here, game_time, WAIT_MINUTES, "⏳"))
