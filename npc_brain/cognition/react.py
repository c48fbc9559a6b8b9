"""Reacting to another agent, and NPC-to-NPC conversation turns: constrained calls.

As in the paper, seeing another agent asks first whether to talk (yes/no), then, if not,
whether to continue, react with a new activity, or wait; a conversation turn is
{utterance, end}.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass

from npc_brain.action import Line
from npc_brain.cognition.plan import ACTIVITY_PATTERN
from npc_brain.cognition.prompts import bullet_memories, clock, one_of
from npc_brain.llm.base import ChatModel, Completion, Message
from npc_brain.memory.records import GameTime, MemoryRecord
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
    return Reaction(choice, activity.strip())


# A spoken sentence or two: a capital first, an end mark last, no markup. Small models
# otherwise answer with a bare name or echo the instructions.
UTTERANCE_PATTERN = "^[A-Z][A-Za-z0-9 ,.;:'!?-]{10,110}[.!?]$"


def turn_schema(may_end: bool, greet: str = "") -> dict[str, object]:
    """A line of a sentence or two; the opener greets `greet` by name and cannot end the
    conversation (a small model otherwise takes the listener's part)."""
    pattern = UTTERANCE_PATTERN
    if greet:
        pattern = f"^(Hi|Hello|Hey) {re.escape(greet)}[,!] [A-Za-z0-9 ,.;:'!?-]{{8,100}}[.!?]$"
    return {
        "type": "object",
        "properties": {
            "utterance": {"type": "string", "pattern": pattern},
            "end_conversation": {"type": "boolean"} if may_end else one_of([False]),
        },
        "required": ["utterance", "end_conversation"],
    }


def conversation_turn(
    chat: ChatModel,
    speaker_id: str,
    speaker: Persona,
    listener_name: str,
    now: GameTime,
    memories: Sequence[MemoryRecord],
    so_far: Sequence[Line],
    seed: int | None = None,
) -> tuple[Line | None, Completion]:
    """The speaker's next line (None when the answer is unusable), given what the speaker
    remembers about the listener and about the conversation so far. The conversation is
    laid out as a chat: the listener's lines as the user's, the speaker's own as the
    assistant's, which is the form small chat models follow best. `seed`: the sampling
    seed (None: the model's own)."""
    system = (
        f"You are {speaker.name}.\n{speaker.describe()}\n\nIt is {clock(now)}.\n"
        f"You remember:\n{bullet_memories(memories)}\n\nYou are talking with "
        f"{listener_name}. Stay in character and say one short sentence; bring up what "
        f"is on your mind. Answer with JSON."
    )
    # The meeting opens as the listener's greeting: small models answer a line far better
    # than they start one. It frames the prompt only; it is never stored as said.
    first_name = speaker.name.split()[0]
    messages = [
        Message("system", system),
        Message("user", f"{listener_name}: Hi {first_name}! What's new?"),
    ]
    for line in so_far:
        if line.speaker_id == speaker_id:
            messages.append(Message("assistant", json.dumps({"utterance": line.text})))
        else:
            messages.append(Message("user", f"{listener_name}: {line.text}"))
    opener = listener_name.split()[0] if not so_far and listener_name.isascii() else ""
    schema = turn_schema(may_end=bool(so_far), greet=opener)
    completion = chat.complete(messages, max_tokens=100, schema=schema, temperature=0.7, seed=seed)
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
