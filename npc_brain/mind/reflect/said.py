"""Reflections from what people said: what no single line says, but several do.

- A goal: a person whose lines name the same event in two conversations or more is
  looking forward to it ("Wren Hale is looking forward to the feast at the Long Hall.").
- A cause: a person who tells two people or more the same news keeps telling people
  ("Tomas Reyes keeps telling people he is selling his boat."). The same news is the
  same content words, TOPIC_TERMS of them at least, besides the people's names.
- A relationship: a person who told the agent different things in two conversations or
  more keeps it up to date ("Bram Ashford keeps Wren Hale up to date.").

Each insight cites the lines it rests on. A conversation is a listener and a stretch of
lines with no gap of CONVERSATION_GAP game seconds.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from npc_brain.memory.commitments import event_activity
from npc_brain.memory.records import MemoryKind, MemoryRecord
from npc_brain.mind.reflect.prompts import Insight
from npc_brain.mind.talk.answers import key_terms, said_line, ungreeted
from npc_brain.mind.talk.realise import reported
from npc_brain.words import PERSONAL, sentences

_CLAUSE_BREAK = re.compile(r",\s+|\s+(?:and|but|so|that)\s+")
CONVERSATION_GAP = 1800.0
TOPIC_TERMS = 3
MAX_EVIDENCE = 8
GOAL, CAUSE, INFORMANT = "goal", "cause", "informant"


@dataclass(frozen=True)
class Line:
    """A dialogue memory read as who said what to whom."""

    memory: MemoryRecord
    speaker: str
    listener: str
    words: str


@dataclass(frozen=True)
class Said:
    """An insight from lines, of a kind (GOAL, CAUSE, INFORMANT), about `who`."""

    kind: str
    who: str
    insight: Insight


def lines(memories: Sequence[MemoryRecord], people: set[str]) -> list[Line]:
    """The dialogue memories between two of `people` (full names), as lines."""
    found = []
    for memory in memories:
        said = said_line(memory.description) if memory.kind == MemoryKind.DIALOGUE else None
        if said is not None and said[0] in people and said[1] in people and said[0] != said[1]:
            found.append(Line(memory, said[0], said[1], ungreeted(said[2]).strip()))
    return found


def said_insights(
    memories: Sequence[MemoryRecord],
    names: Mapping[str, str],
    me: str = "",
    pronouns: Mapping[str, str] | None = None,
) -> list[Said]:
    """The goals, causes and informants the dialogue memories show; `names` maps agent
    ids to full names, `me` is the agent's own full name, `pronouns` full names to he,
    she or they (default they)."""
    people = set(names.values())
    by_speaker: dict[str, list[Line]] = defaultdict(list)
    for line in lines(memories, people):
        by_speaker[line.speaker].append(line)
    found: list[Said] = []
    for speaker, own in by_speaker.items():
        pronoun = (pronouns or {}).get(speaker, "they")
        found += _goals(speaker, own) + _causes(speaker, own, people, pronoun)
        if me and speaker != me:
            found += _informant(speaker, me, [line for line in own if line.listener == me])
    return found


def conversations(group: Sequence[Line]) -> int:
    """How many conversations the lines come from: per listener, the stretches of lines
    with no gap of CONVERSATION_GAP."""
    count = 0
    by_listener: dict[str, list[float]] = defaultdict(list)
    for line in group:
        by_listener[line.listener].append(line.memory.created)
    for times in by_listener.values():
        times.sort()
        count += 1 + sum(
            1 for a, b in zip(times, times[1:], strict=False) if b - a >= CONVERSATION_GAP
        )
    return count


def _cited(text: str, group: Sequence[Line]) -> Insight:
    return Insight(text, tuple(line.memory for line in group[-MAX_EVIDENCE:]))


def _goals(speaker: str, own: Sequence[Line]) -> list[Said]:
    events: dict[str, list[Line]] = defaultdict(list)
    for line in own:
        if (activity := event_activity(line.words)) is not None:
            events[activity.removeprefix("go to ")].append(line)
    return [
        Said(GOAL, speaker, _cited(f"{speaker} is looking forward to {event}.", group))
        for event, group in events.items()
        if conversations(group) >= 2
    ]


def _causes(speaker: str, own: Sequence[Line], people: set[str], pronoun: str) -> list[Said]:
    """The news the speaker told two listeners or more: of its sentences, the one that
    shares TOPIC_TERMS content words with the most others (the shortest of those),
    reported. Passed-on lines ('Bram told me: "..."') tell another's news, not a cause."""
    names = key_terms(" ".join(people))
    told = [(line, s, key_terms(s) - names) for line in own for s in sentences(line.words)]
    told = [t for t in told if len(t[2]) >= TOPIC_TERMS and not t[1].endswith("?")]
    told = [t for t in told if '"' not in t[1]]  # passing on what another said is no cause
    best: tuple[tuple[int, int], str, list[Line]] | None = None
    for _, text, terms in told:
        group = [other for other, _, more in told if len(terms & more) >= TOPIC_TERMS]
        listeners = {other.listener for other in group}
        rank = (len(group), -len(terms))  # the most told, in its fewest words
        if len(listeners) >= 2 and (best is None or rank > best[0]):
            best = (rank, text, list(dict.fromkeys(group)))
    if best is None:
        return []
    core = _core_clause(best[1], [t for line, _, t in told if line in best[2]])
    text = reported(speaker, core, "people", pronoun, told="keeps telling")
    if not text.startswith(f"{speaker} keeps telling people "):  # reported as a question
        return []
    return [Said(CAUSE, speaker, _cited(text, best[2]))]


def _core_clause(text: str, told: Sequence[set[str]]) -> str:
    """The shortest clause of `text` that opens with a person ("I'm selling my boat", not
    "I'm Tomas and I'm here to tell you that ...") and holds TOPIC_TERMS of the words
    the lines share; else the whole text."""
    core = {term for term in set().union(*told) if sum(term in t for t in told) >= 2}
    clauses = [c.strip() for c in _CLAUSE_BREAK.split(text)]
    fit = [
        c
        for c in clauses
        if c.split(" ", 1)[0].split("'", 1)[0].lower() in PERSONAL
        and len(key_terms(c) & core) >= TOPIC_TERMS
    ]
    return min(fit, key=len) if fit else text


def _informant(speaker: str, me: str, to_me: Sequence[Line]) -> list[Said]:
    """A speaker who told `me` different news in two conversations or more."""
    distinct: list[tuple[Line, set[str]]] = []
    for line in to_me:
        terms = key_terms(line.words)
        if len(terms) >= TOPIC_TERMS and all(len(terms & t) < TOPIC_TERMS for _, t in distinct):
            distinct.append((line, terms))
    if conversations([line for line, _ in distinct]) < 2:
        return []
    return [
        Said(
            INFORMANT,
            speaker,
            _cited(f"{speaker} keeps {me} up to date.", [line for line, _ in distinct]),
        )
    ]
