"""Planning, as in the paper: a day plan in broad strokes, then each hour decomposed just
in time into 5-15 minute actions at places the agent knows.

Both calls are grammar-constrained: hours and minutes are enums, activities are plain
phrases, and every step's place is one of the agent's known addresses (by a label
without what they all share, place_labels).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from npc_brain.llm.base import ChatModel, Completion, Message
from npc_brain.memory.records import GameTime, MemoryRecord
from npc_brain.mind.emoji import IDLE_EMOJI
from npc_brain.mind.prompts import bullet_memories, clock, day, one_of
from npc_brain.persona import Persona

ACTIVITY_PATTERN = "^[a-z][a-z0-9 ,'-]{2,60}$"
WAKE_HOURS = list(range(4, 12))
STEP_MINUTES = [5, 10, 15]
MIN_BLOCKS, MAX_BLOCKS = 5, 8
MIN_STEPS, MAX_STEPS = 3, 6
DEFAULT_WAKE_HOUR = 7


@dataclass(frozen=True)
class Block:
    """A broad-strokes part of the day, from `hour` until the next block."""

    hour: int
    activity: str


@dataclass(frozen=True)
class DayPlan:
    wake_hour: int
    blocks: tuple[Block, ...]

    def describe(self, name: str, title: str = "plan for the day") -> str:
        parts = [f"wake up at {self.wake_hour}:00"]
        parts += [f"{b.hour}:00 {b.activity}" for b in self.blocks]
        return f"{name}'s {title}: " + "; ".join(parts)


@dataclass(frozen=True)
class Step:
    """A 5-15 minute action of an hour's decomposition; `emoji` is chosen from the
    activity afterwards (Faculties.emojis), never by the model."""

    activity: str
    minutes: int
    place: str
    emoji: str


def block_schema(hours: Sequence[int]) -> dict[str, object]:
    """A block of a plan: a starting hour among `hours` and an activity."""
    return {
        "type": "object",
        "properties": {
            "hour": one_of(list(hours)),
            "activity": {"type": "string", "pattern": ACTIVITY_PATTERN},
        },
        "required": ["hour", "activity"],
    }


def day_plan_schema() -> dict[str, object]:
    block = block_schema(range(5, 24))
    return {
        "type": "object",
        "properties": {
            "wake_up_hour": one_of(WAKE_HOURS),
            "plan": {
                "type": "array",
                "items": block,
                "minItems": MIN_BLOCKS,
                "maxItems": MAX_BLOCKS,
            },
        },
        "required": ["wake_up_hour", "plan"],
    }


def steps_schema(places: Sequence[str]) -> dict[str, object]:
    step = {
        "type": "object",
        "properties": {
            "activity": {"type": "string", "pattern": ACTIVITY_PATTERN},
            "minutes": one_of(STEP_MINUTES),
            "place": one_of(places),
        },
        "required": ["activity", "minutes", "place"],
    }
    return {
        "type": "object",
        "properties": {
            "steps": {"type": "array", "items": step, "minItems": MIN_STEPS, "maxItems": MAX_STEPS}
        },
        "required": ["steps"],
    }


def plan_day(
    chat: ChatModel, persona: Persona, today: GameTime, yesterday: Sequence[MemoryRecord]
) -> tuple[DayPlan, Completion]:
    """Wake-up hour and 5-8 broad blocks for the day starting at `today` (midnight)."""
    requirements = "; ".join(persona.daily_requirements) or "nothing in particular"
    messages = [
        Message("system", persona.describe()),
        Message(
            "user",
            f"Today is {day(today)}. Yesterday {persona.name} remembers:\n"
            f"{bullet_memories(yesterday)}\n{persona.name} must every day: "
            f"{requirements}.\nPlan {persona.name}'s day in broad strokes: the "
            f"wake-up hour and {MIN_BLOCKS} to {MAX_BLOCKS} activities with their "
            f"starting hour. Answer with JSON.",
        ),
    ]
    completion = chat.complete(messages, max_tokens=300, schema=day_plan_schema())
    return parse_day_plan(completion.text), completion


def parse_day_plan(text: str) -> DayPlan:
    """A usable day plan from a constrained answer: blocks after waking, in time order,
    one per hour, ending with sleep; an unusable answer gives a plain default day."""
    try:
        answer = json.loads(text)
        wake = int(answer["wake_up_hour"])
        raw = answer["plan"]
    except (ValueError, KeyError, TypeError):
        return default_day()
    if wake not in WAKE_HOURS or not isinstance(raw, list):
        return default_day()
    ordered = _blocks(raw, wake)
    if not ordered:
        return default_day()
    if "sleep" not in ordered[-1].activity:
        ordered.append(Block(max(22, ordered[-1].hour + 1), "sleeping"))
    return DayPlan(wake, tuple(ordered))


def revise_day(
    chat: ChatModel,
    persona: Persona,
    plan: DayPlan,
    now: GameTime,
    reason: Sequence[MemoryRecord],
) -> tuple[DayPlan, Completion]:
    """The plan with the rest of the day (after the current hour) planned again in light
    of `reason` (what just happened); the blocks until now stay as they were."""
    hour = int(now % 86_400 // 3_600)
    later = list(range(hour + 1, 24))
    if not later:
        return plan, Completion("", 0, 0)
    block = block_schema(later)
    schema = {
        "type": "object",
        "properties": {"plan": {"type": "array", "items": block, "minItems": 1, "maxItems": 6}},
        "required": ["plan"],
    }
    messages = [
        Message("system", persona.describe()),
        Message(
            "user",
            f"It is {clock(now)}. {persona.name}'s plan for today was: "
            + "; ".join(f"{b.hour}:00 {b.activity}" for b in plan.blocks)
            + f".\nJust now:\n{bullet_memories(reason)}\nPlan the rest of the day "
            f"again, from {hour + 1}:00: the activities with their starting hour. "
            f"Answer with JSON.",
        ),
    ]
    completion = chat.complete(messages, max_tokens=200, schema=schema)
    return parse_revision(completion.text, plan, hour), completion


def parse_revision(text: str, plan: DayPlan, hour: int) -> DayPlan:
    """The revised plan; an unusable answer keeps the old plan, and the day still ends
    with sleep."""
    try:
        raw = json.loads(text)["plan"]
    except (ValueError, KeyError, TypeError):
        return plan
    later = _blocks(raw, hour + 1)
    if not later:
        return plan
    if "sleep" not in later[-1].activity:
        sleep = next((b for b in plan.blocks if "sleep" in b.activity and b.hour > hour), None)
        later.append(sleep or Block(max(22, later[-1].hour + 1), "sleeping"))
        if later[-1].hour <= later[-2].hour:  # the old bedtime came before the new plan
            later.pop()
            if later[-1].hour < 23:
                later.append(Block(later[-1].hour + 1, "sleeping"))
    kept = tuple(b for b in plan.blocks if b.hour <= hour)
    return DayPlan(plan.wake_hour, kept + tuple(later))


def plan_to_json(plan: DayPlan, hours: Mapping[float, Sequence[Step]]) -> str:
    """A day plan and its hour decompositions as JSON (for the store)."""
    return json.dumps(
        {
            "wake": plan.wake_hour,
            "blocks": [[b.hour, b.activity] for b in plan.blocks],
            "hours": {
                str(start): [[s.activity, s.minutes, s.place, s.emoji] for s in steps]
                for start, steps in hours.items()
            },
        }
    )


def plan_from_json(text: str) -> tuple[DayPlan, dict[float, list[Step]]]:
    """The inverse of plan_to_json."""
    data = json.loads(text)
    plan = DayPlan(int(data["wake"]), tuple(Block(int(h), str(a)) for h, a in data["blocks"]))
    hours = {
        float(start): [Step(str(a), int(m), str(p), str(e)) for a, m, p, e in steps]
        for start, steps in data["hours"].items()
    }
    return plan, hours


def _blocks(raw: object, first_hour: int) -> list[Block]:
    """The usable blocks of an answer's list, from first_hour on, one per hour (the first
    named wins), in time order."""
    blocks: dict[int, Block] = {}
    for item in raw if isinstance(raw, list) else []:
        if isinstance(item, dict) and isinstance(item.get("hour"), int):
            activity = item.get("activity")
            if isinstance(activity, str) and activity.strip() and item["hour"] >= first_hour:
                blocks.setdefault(item["hour"], Block(item["hour"], activity.strip()))
    return sorted(blocks.values(), key=lambda b: b.hour)


def default_day() -> DayPlan:
    return DayPlan(DEFAULT_WAKE_HOUR, (Block(8, "going about the day"), Block(22, "sleeping")))


def decompose_hour(
    chat: ChatModel,
    persona: Persona,
    activity: str,
    hour_start: GameTime,
    places: Sequence[str],
    memories: Sequence[MemoryRecord],
) -> tuple[list[Step], Completion]:
    """The hour starting at hour_start, broken into 5-15 minute steps at known places."""
    labels = list(place_labels(places))
    messages = [
        Message(  # what stays the same for the agent first: its saved state covers it
            "system",
            f"{persona.describe()}\n\nPlaces {persona.name} knows: " + "; ".join(labels) + "\n\n"
            f"{persona.name} remembers:\n{bullet_memories(memories)}",
        ),
        Message(
            "user",
            f"From {clock(hour_start)} {persona.name} is {activity}. Break the "
            f"next hour into {MIN_STEPS} to {MAX_STEPS} short steps of 5 to 15 "
            f"minutes, each at one of the known places. Answer with JSON.",
        ),
    ]
    completion = chat.complete(messages, max_tokens=400, schema=steps_schema(labels))
    return parse_steps(completion.text, activity, places), completion


def place_labels(places: Sequence[str]) -> dict[str, str]:
    """Each address by a label without the parts all of them share ("Gull Harbour:Fish
    Market:stalls" -> "Fish Market:stalls" among places of Gull Harbour): a step's place
    costs a generated token for each of its tokens, grammar or not, and "Gull Harbour:" is
    four."""
    parts = [p.split(":") for p in places]
    shared = 0
    while len(parts) > 1 and all(  # a label keeps two parts: "Fish Market:stalls"
        len(p) > shared + 2 and p[shared] == parts[0][shared] for p in parts
    ):
        shared += 1
    return {":".join(p[shared:]): place for p, place in zip(parts, places, strict=True)}


def parse_steps(text: str, activity: str, places: Sequence[str]) -> list[Step]:
    """Steps from a constrained answer (a place by its label or its address); unusable
    fields fall back, never an empty list."""
    by_label = {**place_labels(places), **{p: p for p in places}}
    try:
        raw = json.loads(text)["steps"]
    except (ValueError, KeyError, TypeError):
        raw = []
    steps: list[Step] = []
    for item in raw if isinstance(raw, list) else []:
        if not isinstance(item, dict):
            continue
        what, minutes = item.get("activity"), item.get("minutes")
        place = item.get("place")
        where = steps[-1].place if steps else places[0]  # an unknown place: stay put
        steps.append(
            Step(
                what.strip() if isinstance(what, str) and what.strip() else activity,
                minutes if minutes in STEP_MINUTES else 15,
                by_label.get(place, where) if isinstance(place, str) else where,
                IDLE_EMOJI,
            )
        )
    return steps or [Step(activity, 60, places[0], IDLE_EMOJI)]
