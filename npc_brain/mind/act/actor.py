"""Act: the current action while it runs, otherwise the next one.

With planning on, the next action comes from the day plan and the current hour's
decomposition (made when first needed); with planning off, from one constrained
decision. The work runs as a task on the cognition scheduler; Act waits for it at most
max_wait_ms and otherwise answers at once with what is known (pending=True).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Sequence
from dataclasses import replace

from npc_brain.action import Action
from npc_brain.llm.scheduler import Priority
from npc_brain.memory.records import GameTime
from npc_brain.mind.act.prompts import Decision, decide_action, idle_decision
from npc_brain.mind.faculties import Faculties
from npc_brain.mind.plan.planner import Planner
from npc_brain.mind.world import World
from npc_brain.persona import AgentRecord

log = logging.getLogger(__name__)


class Actor:
    """Decides and keeps each agent's current action."""

    def __init__(self, faculties: Faculties, planner: Planner) -> None:
        self._f = faculties
        self._planner = planner

    async def act(
        self, world: World, agent: AgentRecord, game_time: GameTime, max_wait_ms: int | None
    ) -> tuple[Action, bool]:
        """The current action, and whether a better one is being prepared.

        Waits for a decision at most max_wait_ms; None waits until it is made.
        """
        (answer,) = await self.act_many(world, [agent], game_time, max_wait_ms)
        return answer

    async def act_many(
        self,
        world: World,
        agents: Sequence[AgentRecord],
        game_time: GameTime,
        max_wait_ms: int | None,
    ) -> list[tuple[Action, bool]]:
        """`act` for many agents at once: their decisions are waited for together."""
        tasks = [self._deciding(world, agent, game_time) for agent in agents]
        waiting = {task for task in tasks if task is not None}
        if waiting and (max_wait_ms is None or max_wait_ms > 0):
            timeout = None if max_wait_ms is None else max_wait_ms / 1000
            await asyncio.wait(waiting, timeout=timeout)
        return [
            self._answer(world, agent, game_time, task)
            for agent, task in zip(agents, tasks, strict=True)
        ]

    def _deciding(
        self, world: World, agent: AgentRecord, game_time: GameTime
    ) -> asyncio.Task[Action] | None:
        """The decision to wait for (started if none runs); None while the current
        action still covers game_time."""
        mind = world.mind(agent.agent_id)
        if mind.busy_with(game_time) is not None:
            return None
        deciding = mind.tasks.get("decide")
        if deciding is None:
            deciding = mind.start("decide", self._decide(world, agent, game_time))
        return deciding

    def _answer(
        self,
        world: World,
        agent: AgentRecord,
        game_time: GameTime,
        task: asyncio.Task[Action] | None,
    ) -> tuple[Action, bool]:
        mind = world.mind(agent.agent_id)
        if task is None and mind.action is not None:
            return mind.action, "decide" in mind.tasks
        if task is not None and task.done() and not task.cancelled():
            return task.result(), False
        if task is not None and task.cancelled() and mind.action is not None:
            return mind.action, False  # a reaction took over
        if mind.action is not None:
            return mind.action, True
        places = world.store.places(agent.agent_id)
        return _as_action(idle_decision(agent.persona, places or [""]), game_time), True

    async def _decide(self, world: World, agent: AgentRecord, game_time: GameTime) -> Action:
        """Decides a new action; a failure is logged and gives the idle action. A reaction
        that took over meanwhile stays the current action (the plan made is kept)."""
        mind = world.mind(agent.agent_id)
        before = mind.action
        places = world.store.places(agent.agent_id)
        asleep = False
        try:
            if places and agent.planning_enabled:
                action, asleep = await self._planner.action_at(world, agent, game_time, places)
            else:
                action = _as_action(
                    await self._decision(world, agent, game_time, places), game_time
                )
        except Exception:
            log.exception("deciding an action for %s failed; the agent idles", agent.agent_id)
            action = _as_action(idle_decision(agent.persona, places or [""]), game_time)
        current = mind.busy_with(game_time)
        if current is not None and current is not before:
            return current  # a reaction took over meanwhile
        mind.do(action, asleep=asleep)
        return action

    async def _decision(
        self, world: World, agent: AgentRecord, game_time: GameTime, places: list[str]
    ) -> Decision:
        if not places:
            return idle_decision(agent.persona, [""])
        persona = agent.persona
        query = f"{persona.name} {persona.currently} plans today".strip()
        recalled = await self._f.context(world, agent, game_time, query)
        decision = await self._f.think(
            world,
            agent,
            "act",
            Priority.PLANNING,
            lambda chat: decide_action(chat, persona, game_time, recalled, places),
        )
        (emoji,) = await self._f.emojis([decision.activity])
        return replace(decision, emoji=emoji)


def _as_action(decision: Decision, start: GameTime) -> Action:
    return Action(
        decision.activity, decision.address, start, decision.duration_minutes, decision.emoji
    )
