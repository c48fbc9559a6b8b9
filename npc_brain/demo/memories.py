"""What the report reads from agents' memory streams: plain values, no transport types."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

# How the server words a line of an NPC conversation in both agents' streams.
_SAID = re.compile(r'^(?P<speaker>.+?) said to (?P<listener>.+?): "(?P<text>.*)"$', re.DOTALL)


@dataclass(frozen=True)
class MemoryView:
    """A memory as the report needs it; `created` is game time (Unix seconds)."""

    memory_id: str
    kind: str  # OBSERVATION, REFLECTION, PLAN, DIALOGUE or THOUGHT
    description: str
    created: float
    source_kind: str = "SEEN"  # SEEN, HEARD, TOLD or AUTHOR
    source_agent: str = ""
    depth: int = 0
    evidence_ids: tuple[str, ...] = ()


@dataclass(frozen=True)
class Holder:
    """An agent holding a seed's claim (WhoKnows): from whom, how far, how sure."""

    agent_id: str
    heard_from: str
    hops: int
    confidence: float
    chain: tuple[str, ...]  # agent ids, the first holder first


@dataclass(frozen=True)
class Bond:
    """An agent's view of another (GetAgent's relationships)."""

    other_id: str
    summary: str
    conversations: int


@dataclass(frozen=True)
class Line:
    speaker_id: str
    text: str


@dataclass(frozen=True)
class Conversation:
    """Lines two agents exchanged, as remembered by them, at game time `created`."""

    created: float
    participants: tuple[str, str]  # in the order they spoke
    lines: tuple[Line, ...]


def conversations(
    streams: Mapping[str, Sequence[MemoryView]], names: Mapping[str, str]
) -> list[Conversation]:
    """Conversations from the DIALOGUE memories of every stream, each once (both sides
    remember it), ordered by game time then by the order of `streams`."""
    ids_by_name = {name: agent_id for agent_id, name in names.items()}
    found: dict[tuple[float, frozenset[str]], list[Line]] = {}
    order: list[tuple[float, frozenset[str]]] = []
    for agent_id, stream in streams.items():
        mine: dict[tuple[float, frozenset[str]], list[Line]] = {}
        for memory in stream:
            said = _SAID.match(memory.description) if memory.kind == "DIALOGUE" else None
            if said is None:
                continue
            speaker = ids_by_name.get(said["speaker"])
            listener = ids_by_name.get(said["listener"])
            if speaker is None or listener is None or agent_id not in (speaker, listener):
                continue
            key = (memory.created, frozenset((speaker, listener)))
            mine.setdefault(key, []).append(Line(speaker, said["text"]))
        for key, lines in mine.items():
            if key not in found:
                found[key] = lines
                order.append(key)
    talks = []
    for key in order:
        lines = found[key]
        first = lines[0].speaker_id
        others = key[1] - {first}
        second = next(iter(others)) if others else first
        talks.append(Conversation(key[0], (first, second), tuple(lines)))
    return sorted(talks, key=lambda c: c.created)


def knows(stream: Sequence[MemoryView], other_id: str, other_name: str, until: float) -> bool:
    """True when the stream shows its agent knows the other agent by `until`: a memory
    created by then that is more than a sighting (a conversation line, a reflection, or
    something an author wrote, someone said or told) names the other agent or came
    from them. Seeing someone, or one's own plans, does not count."""
    for memory in stream:
        if memory.created > until:
            continue
        if memory.source_agent == other_id and memory.source_kind in ("HEARD", "TOLD"):
            return True
        acquainting = memory.kind in (
            "DIALOGUE",
            "REFLECTION",
            "THOUGHT",
        ) or memory.source_kind in (
            "AUTHOR",
            "HEARD",
            "TOLD",
        )
        if acquainting and other_name.lower() in memory.description.lower():
            return True
    return False
