"""Reacting to another agent: constrained calls.

As in the paper, seeing another agent asks first whether to talk (yes/no), then, if not,
whether to continue, react with a new activity, or wait.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass

from npc_brain.llm.base import ChatModel, Completion, Message
from npc_brain.memory.records import GameTime, MemoryRecord
from npc_brain.mind.plan.prompts import ACTIVITY_PATTERN
from npc_brain.mind.plan.skeleton import is_activity
from npc_brain.mind.prompts import bullet_memories, clock, one_of
from npc_brain.persona import Persona

TALK_SCHEMA = {
    "type": "object",
    "properties": {"answer": one_of(["yes", "no"])},
    "required": ["answer"],
}
CHOICES = ["continue", "react", "wait"]
REACTION_SCHEMA = {
    "type": "object",
    "properties": {
        "decision": one_of(CHOICES),
        "new_activity": {"type": "string", "pattern": ACTIVITY_PATTERN},
    },
    "required": ["decision", "new_activity"],
}


@dataclass(frozen=True)
class Reaction:
    choice: str  # one of CHOICES
    new_activity: str


def _situation(
    persona: Persona, now: GameTime, doing: str, context: Sequence[MemoryRecord]
) -> Message:
    return Message(
        "system",
        f"{persona.describe()}\n\nIt is {clock(now)}. {persona.name} is {doing}.\n"
        f"{persona.name} remembers:\n{bullet_memories(context)}",
    )


def decide_to_talk(
    chat: ChatModel,
    persona: Persona,
    now: GameTime,
    doing: str,
    other: str,
    observed: str,
    context: Sequence[MemoryRecord],
) -> tuple[bool, Completion]:
    """The paper's first question on seeing another agent: start a conversation?"""
    messages = [
        _situation(persona, now, doing, context),
        Message(
            "user",
            f"{persona.name} notices: {observed}\nShould {persona.name} start a "
            f"conversation with {other}? Answer with JSON.",
        ),
    ]
    completion = chat.complete(messages, max_tokens=12, schema=TALK_SCHEMA)
    try:
        return json.loads(completion.text)["answer"] == "yes", completion
    except (ValueError, KeyError, TypeError):
        return False, completion


def decide_reaction(
    chat: ChatModel,
    persona: Persona,
    now: GameTime,
    doing: str,
    observed: str,
    context: Sequence[MemoryRecord],
) -> tuple[Reaction, Completion]:
    """The second question, when not talking: continue, react with a new activity, or
    wait (for the other to finish)."""
    messages = [
        _situation(persona, now, doing, context),
        Message(
            "user",
            f"{persona.name} notices: {observed}\nWhat does {persona.name} do: continue "
            f"{doing}, react with a new activity, or wait? Answer with JSON.",
        ),
    ]
    completion = chat.complete(messages, max_tokens=60, schema=REACTION_SCHEMA)
    return parse_reaction(completion.text), completion


def parse_reaction(text: str) -> Reaction:
    try:
        answer = json.loads(text)
        choice, activity = answer["decision"], answer["new_activity"]
    except (ValueError, KeyError, TypeError):
        return Reaction("continue", "")
    if choice not in CHOICES or not isinstance(activity, str):
        return Reaction("continue", "")
    activity = activity.strip()
    if choice == "react" and (activity.lower() in CHOICES or not is_activity(activity)):
        return Reaction("continue", "")  # "react", "10:00", "morning": no new activity
    return Reaction(choice, activity)
