"""AgentMind: the one owner of an agent's mind state between calls, its memories aside.

What the agent is doing (and whether that is sleep), its plan of the day with the hours
decomposed so far, whom it is talking with, when it may consider others again, and the
background work it has under way (a decision, a reaction, a reflection). Every part of
the mind reads and writes these fields here; none of them is inferred from text or
emojis. The plan is also kept in the world's store (World.save_plan).
"""

from __future__ import annotations

import asyncio
import logging
import math
from collections.abc import Coroutine
from dataclasses import dataclass, field
from typing import Any, Literal

from npc_brain.action import Action
from npc_brain.memory.records import SECONDS_PER_HOUR, GameTime
from npc_brain.mind.plan.prompts import DayPlan, Step

log = logging.getLogger(__name__)

TaskKind = Literal["decide", "react", "reflect"]


@dataclass
class AgentMind:
    """One agent's mind state; World.mind(agent_id) gives it, loaded on first use."""

    agent_id: str
    action: Action | None = None
    asleep: bool = False  # the current action is the planned sleep
    plan: DayPlan | None = None  # today's plan (planning on)
    plan_day: float | None = None  # game time of the midnight that starts the plan's day
    hours: dict[float, list[Step]] = field(default_factory=dict)  # hour start -> its steps
    talking: bool = False  # in a conversation now
    calm_until: GameTime = -math.inf  # considers nobody it sees before then
    quiet_until: dict[str, GameTime] = field(default_factory=dict)  # other -> no talk before
    tasks: dict[TaskKind, asyncio.Task[Any]] = field(default_factory=dict)

    def do(self, action: Action, *, asleep: bool = False) -> None:
        """Makes `action` the current one."""
        self.action, self.asleep = action, asleep

    def busy_with(self, game_time: GameTime) -> Action | None:
        """The current action while it still covers game_time."""
        action = self.action
        return action if action is not None and action.covers(game_time) else None

    def is_asleep(self, game_time: GameTime) -> bool:
        return self.asleep and self.busy_with(game_time) is not None

    def undisturbable(self, game_time: GameTime) -> bool:
        """Asleep, or in a conversation (now or just had)."""
        current = self.busy_with(game_time)
        talked = current is not None and bool(current.chat)
        return self.talking or talked or self.is_asleep(game_time)

    def doing(self) -> str:
        return self.action.description if self.action else "idle"

    def take_over(self, action: Action) -> bool:
        """Makes a reaction or a conversation the current action. A plan being prepared
        goes on (it is needed later) but will not replace it; the current hour's
        decomposition is dropped, so the plan resumes from after it. True when the plan
        changed (the caller saves it)."""
        hour = action.start // SECONDS_PER_HOUR * SECONDS_PER_HOUR
        dropped = self.hours.pop(hour, None) is not None
        self.do(action)
        return dropped

    def start(self, kind: TaskKind, work: Coroutine[Any, Any, Any]) -> asyncio.Task[Any]:
        """Runs `work` in the background as the agent's one task of that kind; it leaves
        `tasks` when done, and a failure is logged. The caller checks `tasks` first."""
        if kind in self.tasks:
            work.close()
            raise RuntimeError(f"{self.agent_id} already has a {kind} task")
        task = asyncio.create_task(work)
        self.tasks[kind] = task
        task.add_done_callback(lambda done: self._finished(kind, done))
        return task

    def close(self) -> None:
        """Cancels the background work under way (what it already stored stays)."""
        for task in list(self.tasks.values()):
            task.cancel()

    def _finished(self, kind: TaskKind, task: asyncio.Task[Any]) -> None:
        if self.tasks.get(kind) is task:
            del self.tasks[kind]
        if not task.cancelled() and task.exception() is not None:
            log.error("%s of %s failed: %r", kind, self.agent_id, task.exception())
