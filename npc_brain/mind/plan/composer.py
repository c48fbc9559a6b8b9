"""The composed planner: the architecture lays out the day, the model chooses.

A day: the persona's skeleton (wake, bed, fixed hours, requirements, meals) and the
commitments remembered for the day take their hours; each free hour gets the few
candidate activities that fit the persona best, and the model chooses among them in one
call (none when no hour is free). An hour: its activity at the known place that fits it
best, and what the fitting places afford, as (activity, place) options; the model
orders 3-5 of them. A revision after a conversation or a reaction puts the commitments
just heard into the rest of the day, without a model call.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

import numpy as np

from npc_brain.llm.scheduler import Priority
from npc_brain.memory.commitments import LONGEST_HOURS, Commitment
from npc_brain.memory.records import GameTime, MemoryKind, MemoryRecord, Observation
from npc_brain.mind.faculties import Faculties
from npc_brain.mind.plan.affordances import (
    affordances,
    describe,
    for_staff_only,
    holder,
    is_sleeping_place,
    parts,
    works_at,
)
from npc_brain.mind.plan.choices import Option, choose_hours, choose_steps
from npc_brain.mind.plan.prompts import Block, DayPlan, Step
from npc_brain.mind.plan.skeleton import (
    Item,
    Skeleton,
    commitments,
    compose,
    day_plan,
    is_activity,
    item_of,
    settle,
    skeleton_of,
)
from npc_brain.mind.prompts import day
from npc_brain.mind.world import World
from npc_brain.persona import AgentRecord, Persona

EVERYDAY = ("read a book", "take a walk", "meet friends")
EVENING = ("relax at home", "read a book", "tidy up at home", "call a friend")
MEALS = ("breakfast", "lunch", "dinner")
REQUIRED_BONUS, LIFESTYLE_BONUS = 0.3, 0.15  # candidates the persona names itself
NAMED_PLACE_BONUS = 0.3  # a place the activity names ("open the Sleeping Fox Inn")
PLACE_MARGIN = 0.1  # places within this of the best one fit too
AFFORDANCE_FIT = 0.45  # cosine above which an affordance is a step of the activity
MAX_OPTIONS = 5
_HOME = re.compile(r"\bhome\b", re.IGNORECASE)  # "relax at home", "tidy up at home"


class Composer:
    """Composes days and hours for the agents whose planner is `composed`."""

    def __init__(self, faculties: Faculties) -> None:
        self._f = faculties

    async def day(
        self,
        world: World,
        agent: AgentRecord,
        today: GameTime,
        memories: list[MemoryRecord],
        booked: Sequence[Commitment] = (),
    ) -> DayPlan:
        """The day's plan: the persona's skeleton, with what it is currently about and
        the commitments `booked` for the day at their hours; the model chooses among
        the options of the free hours, `memories` before it."""
        persona = agent.persona
        skeleton = skeleton_of(persona)
        extra, clashes = without_clashes(
            [*commitments([persona.currently], today), *_items(booked, today)]
        )
        for lost, kept in clashes:  # the reason, remembered once
            reason = (
                f"{persona.name} can't {lost.activity} at {lost.hour}:00 on {day(today)}, "
                f"because {persona.pronoun} will {kept.activity} then"
            )
            if not world.stream(agent.agent_id).ever_held(reason):
                await self._f.remember(
                    world, agent, MemoryKind.THOUGHT, [Observation(reason)], today
                )
        places = world.store.places(agent.agent_id)
        candidates = _candidates(skeleton, persona, places)
        fit = await self._fit(persona, skeleton, candidates)
        fixed, free = compose(skeleton, extra, candidates, fit, EVENING)
        chosen: dict[int, str] = {}
        if free:
            chosen = await self._f.think(
                world,
                agent,
                "plan",
                Priority.PLANNING,
                lambda chat: choose_hours(chat, persona, today, fixed, free, memories),
                game_time=today,
                supersede="plan",
            )
        return day_plan(skeleton, settle(fixed, free, chosen))

    def revise(
        self, plan: DayPlan, now: GameTime, today: GameTime, heard: Sequence[str]
    ) -> DayPlan:
        """The plan with the commitments in `heard` for the rest of today put in."""
        now_hour = int((now - today) // 3600)
        sleep = next((b.hour for b in plan.blocks if "sleep" in b.activity), 24)
        hours = {b.hour: b.activity for b in _hourly(plan)}
        for item in commitments(heard, today, [now] * len(heard)):
            start = item.hour or 0
            for h in range(max(start, now_hour + 1), min(start + item.hours, sleep)):
                hours[h] = item.activity
        revised = day_plan(Skeleton(plan.wake_hour, sleep, ()), hours)
        return plan if revised.blocks == plan.blocks else revised

    async def hour(
        self,
        world: World,
        agent: AgentRecord,
        activity: str,
        hour: GameTime,
        places: list[str],
        before: Sequence[Step],
    ) -> list[Step]:
        options = await self.options(activity, places, agent.persona)
        return await self._f.think(
            world,
            agent,
            "decompose",
            Priority.PLANNING,
            lambda chat: choose_steps(chat, agent.persona, activity, hour, options, before),
            game_time=hour,
            supersede="decompose",
        )

    async def options(self, activity: str, places: Sequence[str], persona: Persona) -> list[Option]:
        """The activity at the place that fits it best, then what the fitting places
        afford that is like it: at most MAX_OPTIONS (activity, place) pairs. Beds are
        for sleep, a place's staff objects for those who work there, another's rooms
        for an activity that names them ("visit Vega"), and an activity "at home" is
        at the persona's home."""
        occupation = f"{persona.learned}. {persona.currently}"
        awake = [
            p
            for p in places
            if not is_sleeping_place(p)
            and (not for_staff_only(p) or works_at(occupation, p))
            and not _anothers(p, persona, activity)
        ] or list(places)
        if _HOME.search(activity):
            awake = [p for p in awake if _at_home(p, persona)] or awake
        texts = [f"{describe(p)}: {', '.join(affordances(p))}" for p in awake]
        vectors = await self._f.embed([activity, *texts])
        scores = vectors[1:] @ vectors[0]
        named = activity.lower()
        scores = scores + [
            NAMED_PLACE_BONUS if any(part.lower() in named for part in parts(p)) else 0.0
            for p in awake
        ]
        order = np.argsort(-scores, kind="stable")
        best = float(scores[order[0]])
        fitting = [awake[i] for i in order[:3] if scores[i] >= best - PLACE_MARGIN]
        options = [Option(activity, fitting[0])]
        meal = any(m in named for m in MEALS)
        pairs = [
            Option(a, p)
            for p in fitting
            for a in affordances(p)
            if a != activity and (meal or not any(m in a for m in MEALS))
        ]
        if pairs:
            found = await self._f.embed([activity, *(o.activity for o in pairs)])
            likeness = found[1:] @ found[0]
            ranked = sorted(zip(likeness, range(len(pairs)), strict=True), reverse=True)
            options += [pairs[i] for score, i in ranked if score >= AFFORDANCE_FIT]
        return list({o.label: o for o in options}.values())[:MAX_OPTIONS]

    async def _fit(
        self, persona: Persona, skeleton: Skeleton, candidates: Sequence[str]
    ) -> dict[str, float]:
        """How well each candidate fits the persona (cosine), with a bonus for what the
        persona itself names."""
        about = ". ".join(x for x in (persona.learned, persona.currently, persona.innate) if x)
        vectors = await self._f.embed([about or persona.name, *candidates])
        likeness = vectors[1:] @ vectors[0]
        required = {i.activity for i in skeleton.items if i.required}
        named = {i.activity for i in skeleton.items}
        return {
            c: float(score)
            + (REQUIRED_BONUS if c in required else LIFESTYLE_BONUS if c in named else 0.0)
            for c, score in zip(candidates, likeness, strict=True)
        }


def _candidates(skeleton: Skeleton, persona: Persona, places: Sequence[str]) -> list[str]:
    """What a free hour may hold: the persona's own items without a fixed hour, what it
    is busy with lately, what its places afford, and everyday things; never a meal
    (meals have their hours) or sleep."""
    found = [i.activity for i in skeleton.items if i.hour is None]
    current = item_of(persona.currently.split(",")[0], required=False)
    if current is not None and len(current.activity.split()) <= 8:
        found.append(current.activity)
    for place in places:
        if not is_sleeping_place(place) and not _anothers(place, persona):
            found += affordances(place)
    found += [*EVERYDAY, *EVENING]
    usable = [
        c
        for c in found
        if is_activity(c) and "sleep" not in c and not any(m in c.lower() for m in MEALS)
    ]
    return list({c.lower(): c for c in reversed(usable)}.values())[::-1]


def _anothers(address: str, persona: Persona, activity: str = "") -> bool:
    """Whether an address is in a room of someone else's (affordances.holder) whom
    the activity does not name: Ines wrote her log at Vega's terminal."""
    who = holder(address).lower()
    own = {w.lower() for w in persona.name.split()}
    return bool(who) and not own & set(who.split()) and who not in activity.lower()


def _at_home(address: str, persona: Persona) -> bool:
    """Whether an address is in the persona's home: the building of its home address
    (sector), not someone else's room there (the crew quarters' lounge is home, Ines's
    room is not Vega's)."""
    home = persona.home_address.split(":")[:2]
    return len(home) == 2 and address.split(":")[:2] == home and not _anothers(address, persona)


def _hourly(plan: DayPlan) -> list[Block]:
    """The plan's waking hours one by one (a block covers the hours until the next)."""
    hours = []
    ends = [b.hour for b in plan.blocks[1:]] + [24]
    for block, end in zip(plan.blocks, ends, strict=True):
        if "sleep" not in block.activity:
            hours += [Block(h, block.activity) for h in range(block.hour, end)]
    return hours


def _items(booked: Sequence[Commitment], today: GameTime) -> list[Item]:
    """Commitments as the day's fixed items: at their hour, for their hours (1 to
    LONGEST_HOURS)."""
    items: list[Item] = []
    for c in booked:
        hour = int((c.start - today) // 3600)
        hours = max(1, min(LONGEST_HOURS, round((c.end - c.start) / 3600)))
        if 0 <= hour < 24 and not any(i.activity == c.activity and i.hour == hour for i in items):
            items.append(Item(c.activity, hour, None, hours))
    return items


def without_clashes(items: Sequence[Item]) -> tuple[list[Item], list[tuple[Item, Item]]]:
    """The commitments the day can hold, and each one it cannot with the one it gave way
    to: whatever the persona is about comes first, then the one made first (the items
    come in that order); one that overlaps an earlier kept one gives way."""
    kept: list[Item] = []
    clashes = []
    for item in items:
        clash = next((k for k in kept if _overlap(k, item)), None)
        if clash is None:
            kept.append(item)
        elif clash.activity != item.activity:
            clashes.append((item, clash))
    return kept, clashes


def _overlap(a: Item, b: Item) -> bool:
    if a.hour is None or b.hour is None:
        return False
    return a.hour < b.hour + b.hours and b.hour < a.hour + a.hours
