"""Deciding what an agent does now in one constrained call (used when planning is off).

The answer is grounded in the persona and the memories most relevant to the moment,
and its place is constrained to exactly the addresses the agent knows.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass

from npc_brain.llm.base import ChatModel, Completion, Message
from npc_brain.memory.records import GameTime, MemoryRecord
from npc_brain.mind.emoji import IDLE_EMOJI
from npc_brain.mind.prompts import bullet_memories, clock, one_of
from npc_brain.persona import Persona

DURATIONS = [10, 15, 20, 30, 45, 60, 90, 120]


@dataclass(frozen=True)
class Decision:
    """What to do, where, for how long; `emoji` is chosen from the activity afterwards
    (Faculties.emojis), never by the model."""

    activity: str
    address: str
    duration_minutes: int
    emoji: str


def action_schema(places: Sequence[str]) -> dict[str, object]:
    return {
        "type": "object",
        "properties": {
            "activity": {"type": "string", "minLength": 3, "maxLength": 80},
            "place": one_of(places),
            "minutes": one_of(DURATIONS),
        },
        "required": ["activity", "place", "minutes"],
    }


def action_messages(
    persona: Persona, now: GameTime, memories: Sequence[MemoryRecord], places: Sequence[str]
) -> list[Message]:
    system = (  # what stays the same for the agent first: its saved state covers it
        f"{persona.describe()}\n\nPlaces {persona.name} knows: " + "; ".join(places) + "\n\n"
        f"It is {clock(now)}.\n{persona.name} remembers:\n{bullet_memories(memories)}"
    )
    user = (
        f"What does {persona.name} do next? Answer with JSON: a short activity "
        f"(like 'brewing coffee'), the place where it happens, minutes."
    )
    return [Message("system", system), Message("user", user)]


def decide_action(
    chat: ChatModel,
    persona: Persona,
    now: GameTime,
    memories: Sequence[MemoryRecord],
    places: Sequence[str],
) -> tuple[Decision, Completion]:
    """One constrained decision; places must be non-empty."""
    completion = chat.complete(
        action_messages(persona, now, memories, places),
        max_tokens=96,
        schema=action_schema(places),
    )
    return parse_decision(completion.text, persona, places), completion


def idle_decision(persona: Persona, places: Sequence[str]) -> Decision:
    """The safe answer when nothing better is known: idle at home (or the first place)."""
    home = persona.home_address if persona.home_address in places else places[0]
    return Decision("idle", home, 10, IDLE_EMOJI)


def parse_decision(text: str, persona: Persona, places: Sequence[str]) -> Decision:
    """The decision in a constrained answer; fields that are unusable fall back safely."""
    fallback = idle_decision(persona, places)
    try:
        answer = json.loads(text)
    except ValueError:
        return fallback
    if not isinstance(answer, dict):
        return fallback
    activity = answer.get("activity")
    place = answer.get("place")
    minutes = answer.get("minutes")
    return Decision(
        activity.strip() if isinstance(activity, str) and activity.strip() else fallback.activity,
        place if isinstance(place, str) and place in places else fallback.address,
        minutes if minutes in DURATIONS else fallback.duration_minutes,
        fallback.emoji,
    )
