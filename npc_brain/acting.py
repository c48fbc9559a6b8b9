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
from npc_brain.cognition.act import Decision, decide_action, idle_decision
from npc_brain.faculties import Faculties
from npc_brain.memory.records import GameTime
from npc_brain.persona import AgentRecord
from npc_brain.planning import Planning
from npc_brain.scheduler import Priority
from npc_brain.world import World

log = logging.getLogger(__name__)


class Acting:
    """Decides and keeps each agent's current action."""

    def __init__(self, faculties: Faculties) -> None:
        self._f = faculties
        self.planning = Planning(faculties)

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
        state = world.state(agent.agent_id)
        if state.action is not None and state.action.covers(game_time):
            return None
        if state.deciding is None:
            state.deciding = asyncio.create_task(self._decide(world, agent, game_time))
            state.deciding.add_done_callback(lambda _: setattr(state, "deciding", None))
        return state.deciding

    def _answer(
        self,
        world: World,
        agent: AgentRecord,
        game_time: GameTime,
        task: asyncio.Task[Action] | None,
    ) -> tuple[Action, bool]:
        state = world.state(agent.agent_id)
        if task is None and state.action is not None:
            return state.action, state.deciding is not None
        if task is not None and task.done() and not task.cancelled():
            return task.result(), False
        if task is not None and task.cancelled() and state.action is not None:
            return state.action, False  # a reaction took over
        if state.action is not None:
            return state.action, True
        places = world.store.places(agent.agent_id)
        return _as_action(idle_decision(agent.persona, places or [""]), game_time), True

    async def _decide(self, world: World, agent: AgentRecord, game_time: GameTime) -> Action:
        """Decides a new action; a failure is logged and gives the idle action. A reaction
        that took over meanwhile stays the current action (the plan made is kept)."""
        state = world.state(agent.agent_id)
        before = state.action
        places = world.store.places(agent.agent_id)
        try:
            if places and agent.planning_enabled:
                action = await self.planning.action_at(world, agent, game_time, places)
            else:
                action = _as_action(
                    await self._decision(world, agent, game_time, places), game_time
                )
        except Exception:
            log.exception("deciding an action for %s failed; the agent idles", agent.agent_id)
            action = _as_action(idle_decision(agent.persona, places or [""]), game_time)
        if state.action is not before and state.action and state.action.covers(game_time):
            return state.action
        state.action = action
        return action

    async def _decision(
        self, world: World, agent: AgentRecord, game_time: GameTime, places: list[str]
    ) -> Decision:
        if not places:
            return idle_decision(agent.persona, [""])
        persona = agent.persona
        query = f"{persona.name} {persona.currently} plans today".strip()
        recalled = await self._f.context(world, agent, game_time, query)
        decision, completion = await self._f.scheduler.run(
            Priority.PLANNING,
            decide_action,
            self._f.chat,
            persona,
            game_time,
            recalled,
            places,
        )
        self._f.usage.record(world.world_id, agent.agent_id, "act", completion)
        (emoji,) = await self._f.emojis([decision.activity])
        return replace(decision, emoji=emoji)


def _as_action(decision: Decision, start: GameTime) -> Action:
    return Action(
        decision.activity, decision.address, start, decision.duration_minutes, decision.emoji
    )
