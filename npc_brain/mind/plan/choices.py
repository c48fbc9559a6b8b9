"""The composed planner's model calls: the model chooses among options code made.

`choose_hours` fills a day's free hours, each with one of its ranked options;
`choose_steps` breaks an hour into 3-5 steps, each one of a few (activity, place)
pairs that fit the hour's activity. Both answers are enums, so a 135M model cannot
write a non-activity or put a step where it does not belong; an unusable answer falls
back to the first (best) options.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from npc_brain.llm.base import ChatModel, Completion, Message
from npc_brain.memory.records import GameTime, MemoryRecord
from npc_brain.mind.emoji import IDLE_EMOJI
from npc_brain.mind.plan.affordances import spot
from npc_brain.mind.plan.prompts import STEP_MINUTES, Step
from npc_brain.mind.prompts import bullet_memories, clock, day, one_of
from npc_brain.persona import Persona

MIN_CHOSEN_STEPS, MAX_CHOSEN_STEPS = 3, 5


@dataclass(frozen=True)
class Option:
    """A step an hour may hold: an activity at a place that fits it."""

    activity: str
    place: str

    @property
    def label(self) -> str:
        return f"{self.activity} ({spot(self.place)})"


def _hour_key(hour: int) -> str:
    return f"{hour}:00"


def choose_hours(
    chat: ChatModel,
    persona: Persona,
    today: GameTime,
    fixed: Mapping[int, str],
    free: Mapping[int, Sequence[str]],
    memories: Sequence[MemoryRecord],
) -> tuple[dict[int, str], Completion]:
    """One activity for each free hour, chosen among its options."""
    schedule = "\n".join(
        f"{_hour_key(h)} {fixed.get(h, '(free)')}" for h in sorted({*fixed, *free})
    )
    messages = [
        Message(
            "system",
            f"{persona.describe()}\n\n{persona.name} remembers:\n{bullet_memories(memories)}",
        ),
        Message(
            "user",
            f"Today is {day(today)}. {persona.name}'s day:\n{schedule}\nChoose what "
            f"{persona.name} does in each free hour. Answer with JSON.",
        ),
    ]
    schema = {
        "type": "object",
        "properties": {_hour_key(h): one_of(options) for h, options in sorted(free.items())},
        "required": [_hour_key(h) for h in sorted(free)],
    }
    completion = chat.complete(messages, max_tokens=40 * len(free) + 20, schema=schema)
    return parse_hours(completion.text, free), completion


def parse_hours(text: str, free: Mapping[int, Sequence[str]]) -> dict[int, str]:
    """Each free hour's choice; a missing or unknown one is the hour's first option."""
    try:
        answer = json.loads(text)
    except ValueError:
        answer = {}
    if not isinstance(answer, dict):
        answer = {}
    chosen = {}
    for hour, options in free.items():
        pick = answer.get(_hour_key(hour))
        chosen[hour] = pick if isinstance(pick, str) and pick in options else options[0]
    return chosen


def choose_steps(
    chat: ChatModel,
    persona: Persona,
    activity: str,
    hour_start: GameTime,
    options: Sequence[Option],
    before: Sequence[Step],
) -> tuple[list[Step], Completion]:
    """The hour from hour_start as 3-5 steps of 5-15 minutes, each one of `options`."""
    earlier = "; ".join(s.activity for s in before) or "nothing yet"
    labels = [o.label for o in options]
    messages = [
        Message("system", persona.describe()),
        Message(
            "user",
            f"It is {clock(hour_start)}. {persona.name} is going to {activity} for the "
            f"next hour (the hour before: {earlier}). Break the hour into "
            f"{MIN_CHOSEN_STEPS} to {MAX_CHOSEN_STEPS} steps of 5 to 15 minutes, in "
            f"order. Answer with JSON.",
        ),
    ]
    step = {
        "type": "object",
        "properties": {"step": one_of(labels), "minutes": one_of(STEP_MINUTES)},
        "required": ["step", "minutes"],
    }
    schema = {
        "type": "object",
        "properties": {
            "steps": {
                "type": "array",
                "items": step,
                "minItems": MIN_CHOSEN_STEPS,
                "maxItems": MAX_CHOSEN_STEPS,
            }
        },
        "required": ["steps"],
    }
    completion = chat.complete(messages, max_tokens=60 * MAX_CHOSEN_STEPS, schema=schema)
    return parse_chosen_steps(completion.text, options), completion


def parse_chosen_steps(text: str, options: Sequence[Option]) -> list[Step]:
    """Steps from the answer; an unusable one alternates the best options."""
    by_label = {o.label: o for o in options}
    try:
        raw = json.loads(text)["steps"]
    except (ValueError, KeyError, TypeError):
        raw = []
    steps = []
    for item in raw if isinstance(raw, list) else []:
        label = item.get("step") if isinstance(item, dict) else None
        if isinstance(label, str) and (option := by_label.get(label)) is not None:
            minutes = item.get("minutes")
            minutes = minutes if minutes in STEP_MINUTES else 15
            steps.append(Step(option.activity, minutes, option.place, IDLE_EMOJI))
    if len(steps) >= MIN_CHOSEN_STEPS:
        return steps
    best = [options[i % min(len(options), 2)] for i in range(4)]
    return [Step(o.activity, 15, o.place, IDLE_EMOJI) for o in best]
