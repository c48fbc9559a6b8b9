"""A reply to someone who speaks to the agent, streamed while it is generated.

The model writes {"utterance": ..., "end_conversation": ...} under a grammar; the
utterance's characters are decoded as they arrive, so the listener sees the reply
grow token by token, and the whole answer is still parsed from constrained JSON.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from npc_brain.cognition.prompts import bullet_memories, clock
from npc_brain.llm.base import ChatModel, Completion, Message
from npc_brain.memory.records import GameTime, MemoryRecord
from npc_brain.persona import Persona

REPLY_SCHEMA = {
    "type": "object",
    "properties": {
        "utterance": {"type": "string", "minLength": 1, "maxLength": 400},
        "end_conversation": {"type": "boolean"},
    },
    "required": ["utterance", "end_conversation"],
}
_ESCAPES = {'"': '"', "\\": "\\", "/": "/", "b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t"}


@dataclass(frozen=True)
class Reply:
    text: str
    end_conversation: bool
    completion: Completion


def reply_messages(
    persona: Persona,
    now: GameTime,
    memories: Sequence[MemoryRecord],
    speaker_name: str,
    utterance: str,
) -> list[Message]:
    system = (
        f"You are {persona.name}.\n{persona.describe()}\n\nIt is {clock(now)}.\n"
        f"You remember:\n{bullet_memories(memories)}\n\n"
        f"Stay in character. Reply to {speaker_name} in one or two short sentences, "
        f"using what you remember. Answer with JSON."
    )
    return [Message("system", system), Message("user", f"{speaker_name}: {utterance}")]


def stream_reply(
    chat: ChatModel,
    messages: Sequence[Message],
    *,
    max_tokens: int,
    temperature: float,
    seed: int | None,
    on_text: Callable[[str], None],
) -> Reply:
    """Generates a constrained reply, passing each new piece of its text to on_text."""
    extractor = UtteranceExtractor()

    def on_token(piece: str) -> None:
        new_text = extractor.feed(piece)
        if new_text:
            on_text(new_text)

    completion = chat.complete(
        messages,
        max_tokens=max_tokens,
        schema=REPLY_SCHEMA,
        seed=seed,
        temperature=temperature,
        on_token=on_token,
    )
    try:
        end = json.loads(completion.text).get("end_conversation") is True
    except (ValueError, AttributeError):
        end = False
    return Reply(extractor.text.strip(), end, completion)


class UtteranceExtractor:
    """Decodes the "utterance" string of a JSON object that arrives in pieces."""

    def __init__(self) -> None:
        self._raw = ""
        self.text = ""

    def feed(self, piece: str) -> str:
        """Adds a piece of raw JSON; returns the utterance text it completed (maybe '')."""
        self._raw += piece
        start = _value_start(self._raw, "utterance")
        if start < 0:
            return ""
        decoded = decode_partial_string(self._raw[start:])
        new_text = decoded[len(self.text) :]
        self.text = decoded
        return new_text


def _value_start(raw: str, key: str) -> int:
    """Index just after the opening quote of `key`'s string value, or -1 if not there yet."""
    at = raw.find(f'"{key}"')
    if at < 0:
        return -1
    i = at + len(key) + 2
    while i < len(raw) and raw[i] in " \t\r\n:":
        i += 1
    return i + 1 if i < len(raw) and raw[i] == '"' else -1


def decode_partial_string(raw: str) -> str:
    """Decodes JSON string content up to its closing quote or to the last whole character."""
    out: list[str] = []
    i = 0
    while i < len(raw):
        char = raw[i]
        if char == '"':
            break
        if char != "\\":
            out.append(char)
            i += 1
            continue
        if i + 1 >= len(raw):
            break
        if raw[i + 1] != "u":
            out.append(_ESCAPES.get(raw[i + 1], raw[i + 1]))
            i += 2
            continue
        code, used = _unicode_escape(raw[i:])
        if used == 0:
            break
        out.append(code)
        i += used
    return "".join(out)


def _unicode_escape(raw: str) -> tuple[str, int]:
    """Decodes '\\uXXXX' (joining surrogate pairs); (char, length) or ('', 0) if incomplete."""
    try:
        first = int(raw[2:6], 16) if len(raw) >= 6 else -1
    except ValueError:
        return "\ufffd", 2
    if first < 0:
        return "", 0
    if not 0xD800 <= first <= 0xDFFF:
        return chr(first), 6
    if first >= 0xDC00:
        return "\ufffd", 6
    if len(raw) < 12:
        return "", 0
    try:
        second = int(raw[8:12], 16) if raw[6:8] == "\\u" else -1
    except ValueError:
        second = -1
    if 0xDC00 <= second <= 0xDFFF:
        return chr(0x10000 + ((first - 0xD800) << 10) + (second - 0xDC00)), 12
    return "\ufffd", 6
