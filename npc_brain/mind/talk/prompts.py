"""Talk prompts: a reply to whoever speaks to the agent, NPC-to-NPC conversation turns
and the thoughts after a conversation (in the agent's own words); each a constrained call.

A reply is {"utterance": ..., "end_conversation": ...} under a grammar; the utterance's
characters are decoded as they arrive, so the listener sees the reply grow token by
token, and the whole answer is still parsed from constrained JSON. A conversation turn
is the same object under a stricter pattern.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from npc_brain.action import Line
from npc_brain.llm.base import ChatModel, Completion, Message
from npc_brain.llm.grammar_text import literal_pattern
from npc_brain.memory.records import GameTime, MemoryRecord
from npc_brain.mind.prompts import bullet_memories, clock, one_of
from npc_brain.persona import Persona

REPLY_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "utterance": {"type": "string", "minLength": 1, "maxLength": 400},
        "end_conversation": {"type": "boolean"},
    },
    "required": ["utterance", "end_conversation"],
}
# The characters of a reply that begins with a given opening (reply_schema).
_SPOKEN = "A-Za-z0-9 ,.;:'!?-"
_REPLY_BODY = 120  # the longest reply after its opening, but for its end mark
_ESCAPES = {'"': '"', "\\": "\\", "/": "/", "b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t"}


def reply_schema(opening: str = "") -> dict[str, Any]:
    """REPLY_SCHEMA, its utterance beginning with `opening` (code chose what to say,
    the model words the rest)."""
    if not opening:
        return REPLY_SCHEMA
    literal = literal_pattern(opening)
    # The opening's last word ended, then a sentence or two more, ended (or, after an
    # opening without an end mark, an end mark alone).
    more = f"[ ,;:][{_SPOKEN}]{{0,{_REPLY_BODY}}}[.!?]"
    rest = more if opening[-1] in ".!?" else f"([.!?]|{more})"
    utterance = {"type": "string", "pattern": f"^{literal}{rest}$"}
    return {**REPLY_SCHEMA, "properties": {**REPLY_SCHEMA["properties"], "utterance": utterance}}


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
    opening: str = "",
) -> Reply:
    """Generates a constrained reply that begins with `opening`, passing each new piece
    of its text to on_text."""
    extractor = UtteranceExtractor()

    def on_token(piece: str) -> None:
        new_text = extractor.feed(piece)
        if new_text:
            on_text(new_text)

    completion = chat.complete(
        messages,
        max_tokens=max_tokens,
        schema=reply_schema(opening),
        seed=seed,
        temperature=temperature,
        on_token=on_token,
    )
    try:
        end = json.loads(completion.text).get("end_conversation") is True
    except (ValueError, AttributeError):
        end = False
    return Reply(_ended(extractor.text.strip(), opening), end, completion)


def _ended(text: str, opening: str) -> str:
    """A reply that begins with `opening`, its spaces single, and, if the pattern's
    length limit cut it ("... and I'm so glad you're visiting my l."), back to its last
    whole sentence, else to its last whole clause ("..., meet Vera at 3 pm, and mend
    the gate of the guard house by the harbour, while." -> "..., meet Vera at 3 pm.")."""
    text = " ".join(word for word in text.split(" ") if word)
    if not opening or len(text) <= len(opening) + _REPLY_BODY:
        return text
    if ends := [m.end() for m in _SENTENCE_END.finditer(text, len(opening))]:
        return text[: ends[-1]]
    clause = text.rfind(", ", len(opening))
    return text[:clause] + "." if clause > 0 else text


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


# A spoken sentence or two: a capital first, an end mark last, no markup. Small models
# otherwise answer with a bare name or echo the instructions.
_BODY = 110  # the longest line between its capital and its end mark
UTTERANCE_PATTERN = f"^[A-Z][A-Za-z0-9 ,.;:'!?-]{{10,{_BODY}}}[.!?]$"
_GREETED_BODY = 100  # the longest body of an opener, after "Hi Vera, "
_GREETING = re.compile(r"^(?:Hi|Hello|Hey) [^,!]+[,!] ")
_SENTENCE_END = re.compile(r"[.!?](?= )")


WORDING_PATTERN = "^[A-Z][A-Za-z0-9 ,;:'!?-]{8,100}[.!?]$"


def wording_schema() -> dict[str, object]:
    """One sentence of the model's after an answer code composed: a capital first, an
    end mark last, no markup."""
    return {
        "type": "object",
        "properties": {"utterance": {"type": "string", "pattern": WORDING_PATTERN}},
        "required": ["utterance"],
    }


def turn_schema(may_end: bool, greet: str = "") -> dict[str, object]:
    """A line of a sentence or two; the opener greets `greet` by name and cannot end the
    conversation (a small model otherwise takes the listener's part)."""
    pattern = UTTERANCE_PATTERN
    if greet:
        body = f"[A-Za-z0-9 ,.;:'!?-]{{8,{_GREETED_BODY}}}[.!?]"
        pattern = f"^(Hi|Hello|Hey) {literal_pattern(greet)}[,!] {body}$"
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
    intent: str = "",
    relationship: str = "",
    recalled: Sequence[MemoryRecord] = (),
) -> tuple[Line | None, Completion]:
    """The speaker's next line (None when the answer is unusable), given what the speaker
    thinks of the listener (`relationship`), remembers, and the conversation so far.
    `memories`: what the speaker brought to the conversation (the same every turn);
    `recalled`: what this turn brings to mind besides. `intent`: what code chose the
    line to say (mind/talk/intent.py), else the speaker brings up what is on its mind.
    What stays the same from one of the speaker's turns to the next (persona,
    instructions, the clock and its standing memories) comes first and is marked
    lasting, so that it stays evaluated (prompt reuse); the turn's own part comes last.
    The conversation is laid out as a chat: the listener's lines as the user's, the
    speaker's own as the assistant's, which is the form small chat models follow best.
    `seed`: the sampling seed (None: the model's own)."""
    view = f"What you think of {listener_name}: {relationship}\n" if relationship else ""
    goal = intent or "Bring up what is on your mind."
    now_in_mind = f"Now on your mind:\n{bullet_memories(recalled)}\n\n" if recalled else ""
    system = (
        f"You are {speaker.name}.\n{speaker.describe()}\n\nYou are talking with "
        f"{listener_name}. Stay in character and say one short sentence. Answer with "
        f"JSON.\n\nIt is {clock(now)}.\n{view}You remember:\n{bullet_memories(memories)}"
        f"\n\n{now_in_mind}{goal}"
    )
    # The meeting opens as the listener's greeting: small models answer a line far better
    # than they start one. It frames the prompt only; it is never stored as said.
    first_name = speaker.name.split()[0]
    messages = [
        Message("system", system, lasting=3),  # persona, instructions, standing memories
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
    return Line("", whole_sentences(text.strip(), greeted=bool(opener)), end is True), completion


def whole_sentences(text: str, greeted: bool = False) -> str:
    """A line the pattern's length limit cut ("... on February 14. We're having a
    big-d.") back to its last whole sentence ("... on February 14."); a line that did not
    reach the limit, or holds one sentence only, as it is. `greeted`: an opener, whose
    body after the greeting has its own limit."""
    greeting = _GREETING.match(text) if greeted else None
    body = text[greeting.end() :] if greeting else text
    full = len(body) > _GREETED_BODY if greeting else len(text) >= _BODY + 2
    if not full:
        return text
    ends = [m.end() for m in _SENTENCE_END.finditer(body)]
    return text[: (greeting.end() if greeting else 0) + ends[-1]] if ends else text


_THOUGHT_WORDS = "[A-Za-z0-9 ,'-]{6,150}[.]$"


def thoughts_schema(other_first_name: str = "") -> dict[str, object]:
    """Three sentences of the agent's own: what it means to do ("I ..."), a memo about
    the other ("Bram ...": never one of the other's lines taken as its own belief), and
    how it stands with the other ("Bram and I ...")."""
    other = literal_pattern(other_first_name) if other_first_name.isascii() else ""
    return {
        "type": "object",
        "properties": {
            "planning_thought": {"type": "string", "pattern": f"^I {_THOUGHT_WORDS}"},
            "memo": {
                "type": "string",
                "pattern": f"^{other} {_THOUGHT_WORDS}" if other else f"^[A-Z]{_THOUGHT_WORDS}",
            },
            "relationship": {
                "type": "string",
                "pattern": f"^{other or '[A-Z][a-z]+'} and I {_THOUGHT_WORDS}",
            },
        },
        "required": ["planning_thought", "memo", "relationship"],
    }


@dataclass(frozen=True)
class Afterthoughts:
    """What an agent makes of a conversation: its thoughts (to plan for, about the
    other), and its relationship with the other in a sentence ('' when unusable)."""

    thoughts: list[str]
    relationship: str


def after_conversation(
    chat: ChatModel,
    persona: Persona,
    other_name: str,
    lines: Sequence[Line],
    names: dict[str, str],
    relationship: str = "",
) -> tuple[Afterthoughts, Completion]:
    """The paper's post-conversation thoughts, from the agent's own point of view:
    something to plan for, in the first person, a memo about the other, and the agent's
    relationship with the other, updated from what it was (`relationship`)."""
    transcript = "\n".join(f"{names.get(x.speaker_id, x.speaker_id)}: {x.text}" for x in lines)
    other_first = other_name.split()[0] if other_name.split() else other_name
    before = f"Before it, you thought: {relationship}\n" if relationship else ""
    messages = [
        Message("system", f"You are {persona.name}.\n{persona.describe()}"),
        Message(
            "user",
            f"Your conversation with {other_name}:\n{transcript}\n\n{before}Write, as "
            f"{persona.name}, one sentence starting with I about what you will do after "
            f"this conversation, one sentence starting with {other_first} about what "
            f"you learnt about {other_first}, and one sentence starting with "
            f"{other_first} and I about how you two stand now. Answer with JSON.",
        ),
    ]
    schema = thoughts_schema(other_first)
    completion = chat.complete(messages, max_tokens=240, schema=schema)
    try:
        answer = json.loads(completion.text)
        thoughts = [answer["planning_thought"], answer["memo"]]
    except (ValueError, KeyError, TypeError):
        return Afterthoughts([], ""), completion
    bond = answer.get("relationship")
    pattern = schema["properties"]["relationship"]["pattern"]  # type: ignore[index]
    usable = isinstance(bond, str) and re.match(pattern, bond.strip()) is not None
    return (
        Afterthoughts(
            [t.strip() for t in thoughts if isinstance(t, str) and t.strip()],
            bond.strip() if usable and isinstance(bond, str) else "",
        ),
        completion,
    )


def pick_option(
    chat: ChatModel, persona: Persona, question: str, options: Sequence[str]
) -> tuple[str, Completion]:
    """The model's choice of one of `options` (declared values of a game action's
    argument) for a question about a player's line; the grammar admits only them, and
    an odd answer falls back to the first."""
    messages = [
        Message("system", persona.describe()),
        Message(
            "user",
            f'{question}\nOptions: {", ".join(options)}.\nAnswer with JSON: {{"choice": ...}}',
        ),
    ]
    schema = {
        "type": "object",
        "properties": {"choice": one_of(options)},
        "required": ["choice"],
    }
    completion = chat.complete(messages, max_tokens=40, schema=schema)
    try:
        choice = json.loads(completion.text)["choice"]
    except (ValueError, KeyError, TypeError):
        choice = None
    return (choice if choice in options else options[0]), completion
