"""Reacting to another agent, and NPC-to-NPC conversation turns: constrained calls.

The decision is one of four known options; a conversation turn is {utterance, end}.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass

from npc_brain.action import Line
from npc_brain.cognition.converse import REPLY_SCHEMA
from npc_brain.cognition.plan import ACTIVITY_PATTERN
from npc_brain.cognition.prompts import bullet_memories, clock, one_of
from npc_brain.llm.base import ChatModel, Completion, Message
from npc_brain.memory.records import GameTime, MemoryRecord
from npc_brain.persona import Persona

CHOICES = ["talk", "continue", "react", "wait"]  # small models favour the first option
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


def decide_reaction(
    chat: ChatModel,
    persona: Persona,
    now: GameTime,
    doing: str,
    observed: str,
    context: Sequence[MemoryRecord],
) -> tuple[Reaction, Completion]:
    """Continue, talk to the observed agent, react with a new activity, or wait."""
    messages = [
        Message(
            "system",
            f"{persona.describe()}\n\nIt is {clock(now)}. {persona.name} is "
            f"{doing}.\n{persona.name} remembers:\n{bullet_memories(context)}",
        ),
        Message(
            "user",
            f"{persona.name} notices: {observed}\nWhat does {persona.name} do: talk to "
            f"them, react with a new activity, continue {doing}, or wait? Answer with JSON.",
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
    return Reaction(choice, activity.strip())


def conversation_turn(
    chat: ChatModel,
    speaker: Persona,
    listener_name: str,
    now: GameTime,
    relationship: Sequence[MemoryRecord],
    so_far: Sequence[Line],
    names: dict[str, str],
) -> tuple[Line | None, Completion]:
    """The speaker's next line (None when the answer is unusable)."""
    transcript = "\n".join(f"{names.get(x.speaker_id, x.speaker_id)}: {x.text}" for x in so_far)
    messages = [
        Message(
            "system",
            f"You are {speaker.name}.\n{speaker.describe()}\n\nIt is {clock(now)}."
            f"\nYou remember about {listener_name}:\n"
            f"{bullet_memories(relationship)}",
        ),
        Message(
            "user",
            f"Conversation so far:\n{transcript or '(nothing yet)'}\n\nSay your "
            f"next line to {listener_name} in one short sentence, and whether you "
            f"end the conversation. Answer with JSON.",
        ),
    ]
    completion = chat.complete(messages, max_tokens=120, schema=REPLY_SCHEMA, temperature=0.7)
    try:
        answer = json.loads(completion.text)
        text, end = answer["utterance"], answer["end_conversation"]
    except (ValueError, KeyError, TypeError):
        return None, completion
    if not isinstance(text, str) or not text.strip():
        return None, completion
    return Line("", text.strip(), end is True), completion


THOUGHTS_SCHEMA = {
    "type": "object",
    "properties": {
        "planning_thought": {"type": "string", "pattern": "^[A-Z][A-Za-z0-9 ,'-]{6,160}[.]$"},
        "memo": {"type": "string", "pattern": "^[A-Z][A-Za-z0-9 ,'-]{6,160}[.]$"},
    },
    "required": ["planning_thought", "memo"],
}


def after_conversation(
    chat: ChatModel,
    persona: Persona,
    other_name: str,
    lines: Sequence[Line],
    names: dict[str, str],
) -> tuple[list[str], Completion]:
    """The paper's post-conversation thoughts: something to plan for, and a memo."""
    transcript = "\n".join(f"{names.get(x.speaker_id, x.speaker_id)}: {x.text}" for x in lines)
    messages = [
        Message("system", persona.describe()),
        Message(
            "user",
            f"Conversation between {persona.name} and {other_name}:\n{transcript}\n\nWrite "
            f"what {persona.name} should remember for planning, and a short memo about the "
            f"conversation, each one sentence. Answer with JSON.",
        ),
    ]
    completion = chat.complete(messages, max_tokens=160, schema=THOUGHTS_SCHEMA)
    try:
        answer = json.loads(completion.text)
        thoughts = [answer["planning_thought"], answer["memo"]]
    except (ValueError, KeyError, TypeError):
        return [], completion
    return [t.strip() for t in thoughts if isinstance(t, str) and t.strip()], completion
