"""Planned days: the plan made on an agent's first Act of a game day, each hour
decomposed just in time, and the action of the moment read from them.

Sleep stays one block. Plans are stored in the memory stream as PLAN memories, and the
plan with its decompositions in the world's store, so a restarted server carries on with
it. What happens (a conversation, a reaction) can make the agent plan the rest of its day
again.
"""

from __future__ import annotations

from dataclasses import replace

from npc_brain.action import Action
from npc_brain.llm.scheduler import Priority
from npc_brain.memory.commitments import Commitment
from npc_brain.memory.records import (
    SECONDS_PER_HOUR,
    GameTime,
    MemoryKind,
    MemoryRecord,
    Observation,
)
from npc_brain.mind.faculties import Faculties
from npc_brain.mind.plan.affordances import parts, spot
from npc_brain.mind.plan.composer import Composer
from npc_brain.mind.plan.prompts import (
    Block,
    DayPlan,
    Step,
    decompose_hour,
    plan_day,
    revise_day,
)
from npc_brain.mind.prompts import day
from npc_brain.mind.world import World
from npc_brain.persona import AgentRecord

SECONDS_PER_DAY = 24 * SECONDS_PER_HOUR
SLEEP_EMOJI = "😴"


def midnight(game_time: GameTime) -> GameTime:
    return game_time // SECONDS_PER_DAY * SECONDS_PER_DAY


def hour_start(game_time: GameTime) -> GameTime:
    return game_time // SECONDS_PER_HOUR * SECONDS_PER_HOUR


def block_at(plan: DayPlan, day: GameTime, game_time: GameTime) -> tuple[Block, GameTime, GameTime]:
    """The block covering game_time with its start and end; before waking: sleeping."""
    hour = (game_time - day) / SECONDS_PER_HOUR
    if hour < plan.wake_hour:
        return Block(0, "sleeping"), day, day + plan.wake_hour * SECONDS_PER_HOUR
    starts = [b.hour for b in plan.blocks] + [24]
    for block, end in zip(plan.blocks, starts[1:], strict=True):
        if block.hour <= hour < end:
            return block, day + block.hour * SECONDS_PER_HOUR, day + end * SECONDS_PER_HOUR
    first = plan.blocks[0]  # between waking and the first block
    return first, day + plan.wake_hour * SECONDS_PER_HOUR, day + first.hour * SECONDS_PER_HOUR


def step_at(steps: list[Step], start: GameTime, game_time: GameTime) -> tuple[Step, GameTime, int]:
    """The step covering game_time; the last step lasts until the end of the hour."""
    at = start
    for i, step in enumerate(steps):
        minutes = step.minutes if i < len(steps) - 1 else max(step.minutes, 1)
        end = at + minutes * 60
        if game_time < end or i == len(steps) - 1:
            remaining = int(max(1, (start + SECONDS_PER_HOUR - at) // 60))
            return step, at, minutes if i < len(steps) - 1 else remaining
        at = end
    raise AssertionError("steps is never empty")


class Planner:
    """Makes day plans and hour decompositions, on the cognition scheduler."""

    def __init__(self, faculties: Faculties) -> None:
        self._f = faculties
        self._composer = Composer(faculties)
        self._composed = faculties.settings.planner == "composed"

    async def action_at(
        self, world: World, agent: AgentRecord, game_time: GameTime, places: list[str]
    ) -> tuple[Action, bool]:
        """The planned action at game_time, and whether it is sleep."""
        mind = world.mind(agent.agent_id)
        today = midnight(game_time)
        if mind.plan is None or mind.plan_day != today:
            mind.plan, mind.plan_day = await self._plan_day(world, agent, today), today
            mind.hours.clear()
            world.save_plan(agent.agent_id)
        block, start, end = block_at(mind.plan, today, game_time)
        home = agent.persona.home_address if agent.persona.home_address in places else places[0]
        if "sleep" in block.activity:
            minutes = int((end - start) // 60)
            return Action(block.activity, home, start, minutes, SLEEP_EMOJI), True
        hour = hour_start(game_time)
        steps = mind.hours.get(hour)
        if steps is None:
            before = mind.hours.get(hour - SECONDS_PER_HOUR, [])
            steps = await self._decompose(world, agent, block.activity, hour, places, before)
            mind.hours[hour] = steps
            world.save_plan(agent.agent_id)
        step, step_start, minutes = step_at(steps, hour, game_time)
        state = f"{spot(step.place)}: {step.activity}" if len(parts(step.place)) >= 3 else ""
        action = Action(step.activity, step.place, step_start, minutes, step.emoji, state)
        return action, False

    async def revise(
        self, world: World, agent: AgentRecord, game_time: GameTime, reason: list[MemoryRecord]
    ) -> None:
        """Plans the rest of today again after what just happened (`reason`): the paper's
        re-planning after a reaction or a conversation. Decompositions from the next hour
        on are dropped, so they are made again from the new plan."""
        mind = world.mind(agent.agent_id)
        if mind.plan is None or mind.plan_day != midnight(game_time) or not reason:
            return
        old = mind.plan
        if self._composed:
            heard = [m.description for m in reason]
            plan = self._composer.revise(old, game_time, midnight(game_time), heard)
        else:
            plan = await self._f.think(
                world,
                agent,
                "plan",
                Priority.PLANNING,
                lambda chat: revise_day(chat, agent.persona, old, game_time, reason),
                game_time=game_time,
                supersede="revise",
            )
        if mind.plan is not old or plan == old:  # planned anew meanwhile, or no change
            return
        mind.plan = plan
        current = hour_start(game_time)
        mind.hours = {h: steps for h, steps in mind.hours.items() if h <= current}
        world.save_plan(agent.agent_id)
        revised = plan.describe(agent.persona.name, "revised plan")
        await self._f.remember(world, agent, MemoryKind.PLAN, [Observation(revised)], game_time)

    async def _plan_day(self, world: World, agent: AgentRecord, today: GameTime) -> DayPlan:
        persona = agent.persona
        yesterday: list[MemoryRecord] = []
        booked = _booked(world, agent.agent_id, today) if agent.memory_enabled else []
        if agent.memory_enabled and len(world.stream(agent.agent_id)):
            found = await self._f.recall(
                world,
                agent.agent_id,
                today,
                f"what {persona.name} did and felt",
                6,
                created_after=today - SECONDS_PER_DAY,
                created_before=today,
            )
            # Commitments made any time before (an invitation, a planning thought).
            promised = await self._f.recall(
                world,
                agent.agent_id,
                today,
                f"{persona.name}'s plans for {day(today)}",
                4,
                created_before=today,
            )
            seen = {s.memory.memory_id for s in found}
            yesterday = [s.memory for s in found]
            yesterday += [s.memory for s in promised if s.memory.memory_id not in seen]
            seen |= {m.memory_id for m in yesterday}
            yesterday += [m for m, _ in booked if m.memory_id not in seen]
        if self._composed:
            commitments = [c for _, c in booked]
            plan = await self._composer.day(world, agent, today, yesterday, commitments)
        else:
            plan = await self._f.think(
                world,
                agent,
                "plan",
                Priority.PLANNING,
                lambda chat: plan_day(chat, persona, today, yesterday),
                game_time=today,
                supersede="plan",
            )
        description = plan.describe(persona.name)
        await self._f.remember(world, agent, MemoryKind.PLAN, [Observation(description)], today)
        return plan

    async def _decompose(
        self,
        world: World,
        agent: AgentRecord,
        activity: str,
        hour: GameTime,
        places: list[str],
        before: list[Step],
    ) -> list[Step]:
        if self._composed:
            steps = await self._composer.hour(world, agent, activity, hour, places, before)
            emojis = await self._f.emojis([s.activity for s in steps])
            return [replace(s, emoji=e) for s, e in zip(steps, emojis, strict=True)]
        memories = await self._f.context(world, agent, hour, f"{agent.persona.name} {activity}")
        steps = await self._f.think(
            world,
            agent,
            "decompose",
            Priority.PLANNING,
            lambda chat: decompose_hour(chat, agent.persona, activity, hour, places, memories),
            game_time=hour,
            supersede="decompose",
        )
        emojis = await self._f.emojis([s.activity for s in steps])
        return [replace(s, emoji=e) for s, e in zip(steps, emojis, strict=True)]


def _booked(world: World, agent_id: str, today: GameTime) -> list[tuple[MemoryRecord, Commitment]]:
    """The commitments the agent's memories from before `today` made for its hours, each
    with the memory that made it, the first made first: it stands in a clash
    (composer.without_clashes). Read when each memory was written (memory/commitments.py),
    however old it is: the paper's recency buries a week-old invitation under
    yesterday's chores."""
    stream = world.stream(agent_id)
    rows = world.store.commitments(agent_id, today, today + SECONDS_PER_DAY)
    found = [(stream.get(memory_id), c) for memory_id, c in sorted(rows, key=lambda r: r[0])]
    return [(m, c) for m, c in found if m is not None and m.created < today]
