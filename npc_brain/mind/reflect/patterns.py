"""Reflection composed by code: the patterns in an agent's recent memories.

The default 135M model cannot find them: asked for the paper's salient questions it
answered "What's new?" three times, and its insights parroted the prompt ("The most
salient high-level question we can answer ... is 1.") or copied a line someone said
("What's new is that your chemistry project has been a success."): 190 such reflections
in the 25-agent day, each then a belief the agent answered from. What a reflection
generalises, code can count: who keeps doing the same thing, and who keeps talking with
whom. The focal points are the people the recent memories are most about (their summed
importance, the paper's salience); each insight cites the sightings it counts.

Beyond counts, code proposes what no single memory says. A trait: a habit seen on two
game days or more that nobody else shares ("Kofi Osei is dedicated to calibrating the
long-range scanner."; eating breakfast, which others do too, stays a habit). Goals, causes
and who keeps the agent up to date, from what people said (said.py). These come before
the counts.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from npc_brain.memory.records import GameTime, MemoryKind, MemoryRecord
from npc_brain.mind.prompts import progressive
from npc_brain.mind.reflect.prompts import Insight
from npc_brain.mind.reflect.said import said_insights
from npc_brain.mind.talk.answers import key_terms, said_line

# Sightings less than this far apart (game seconds) belong to one episode. A habit is
# seen in two episodes or more ("often"), or in one that lasts LONG ("spends hours").
EPISODE_GAP = 3600.0
LONG = 2 * 3600.0
MAX_EVIDENCE = 8
TALKING = "talking with "
PASSING = ("waiting", "sleeping")  # states, not pursuits worth a belief
DAY = 86400.0


@dataclass(frozen=True)
class Sighting:
    """A memory read as a person doing something somewhere."""

    memory: MemoryRecord
    who: str  # a full name
    doing: str  # "mending nets", "talking with Wren Hale"
    place: str  # the address's sector ("Fish Market"), or ""


def sightings(memories: Sequence[MemoryRecord], names: Mapping[str, str]) -> list[Sighting]:
    """The observations that say what a known person is doing, and the lines of
    conversations (their speaker talking with their listener); `names` maps agent ids
    to full names."""
    found = []
    for memory in memories:
        if memory.kind == MemoryKind.DIALOGUE:
            read = _talk(memory, names)
        elif memory.kind == MemoryKind.OBSERVATION:
            read = _read(memory, names)
        else:
            continue
        if read is not None:
            who, doing = read
            found.append(Sighting(memory, who, doing, _sector(memory.address)))
    return found


def composed_insights(
    memories: Sequence[MemoryRecord],
    names: Mapping[str, str],
    me: str = "",
    pronouns: Mapping[str, str] | None = None,
) -> list[Insight]:
    """The insights about the people the memories are most about: first what generalises
    (a trait, a goal, a cause, who keeps `me` up to date), then the counts: a habit
    ("Wren Hale is often mending nets at Fish Market.") or a pair who keep talking
    ("Bram Ashford and Wren Hale often talk with each other."); within each, the
    weightiest (the salience of the people in it, and its evidence's importance) first.
    `names` maps agent ids to full names; `pronouns` full names to he, she or they."""
    seen = sightings(memories, names)
    people = set(names.values())
    salience: dict[str, float] = defaultdict(float)
    for s in seen:
        salience[s.who] += s.memory.importance
    habits: dict[tuple[str, str], list[Sighting]] = defaultdict(list)
    pairs: dict[tuple[str, str], list[Sighting]] = defaultdict(list)
    for s in seen:
        other = s.doing.removeprefix(TALKING)
        if s.doing.startswith(TALKING):
            if other in people and other != s.who:
                a, b = sorted((s.who, other))
                pairs[(a, b)].append(s)
        elif not s.doing.startswith(PASSING):
            habits[(s.who, s.doing)].append(s)
    routine = _routine(list(habits), key_terms(" ".join(people)))
    traits = {
        habit: text
        for habit, group in habits.items()
        if habit not in routine and (text := _trait(habit[0], habit[1], group))
    }
    general: list[tuple[str, tuple[str, ...], Sequence[MemoryRecord]]] = [
        (text, (habit[0],), [s.memory for s in habits[habit]]) for habit, text in traits.items()
    ]
    general += [
        (said.insight.text, (said.who,), said.insight.evidence)
        for said in said_insights(memories, names, me, pronouns)
    ]
    counts = [
        (_habit(who, doing, group), (who,), [s.memory for s in group])
        for (who, doing), group in habits.items()
        if (who, doing) not in traits
    ] + [
        (_company(a, b, group), (a, b), [s.memory for s in group])
        for (a, b), group in pairs.items()
    ]
    return _weighed(general, salience) + _weighed(counts, salience)


def _weighed(
    found: Sequence[tuple[str, tuple[str, ...], Sequence[MemoryRecord]]],
    salience: Mapping[str, float],
) -> list[Insight]:
    """The insights with a text, the weightiest first, each citing its last evidence."""
    weighed = [
        (
            sum(salience.get(p, 0.0) for p in focus) + sum(m.importance for m in group),
            Insight(text, tuple(group[-MAX_EVIDENCE:])),
        )
        for text, focus, group in found
        if text
    ]
    weighed.sort(key=lambda pair: -pair[0])
    return [insight for _, insight in weighed]


def _routine(habits: Sequence[tuple[str, str]], names: set[str]) -> set[tuple[str, str]]:
    """The habits someone else shares: half of their content words (besides names) or
    more are in another person's doing ("eating breakfast", "having breakfast")."""
    terms = {habit: key_terms(habit[1]) - names for habit in habits}
    return {
        (who, doing)
        for (who, doing), mine in terms.items()
        if not mine
        or any(
            other != who and 2 * len(mine & theirs) >= len(mine)
            for (other, _), theirs in terms.items()
        )
    }


def _trait(who: str, doing: str, group: Sequence[Sighting]) -> str:
    """A habit seen on two game days or more, as a trait."""
    days = {int(s.memory.created // DAY) for s in group}
    return f"{who} is dedicated to {doing}." if len(days) >= 2 else ""


def _read(memory: MemoryRecord, names: Mapping[str, str]) -> tuple[str, str] | None:
    """(who, doing) from "<full name> is <doing>", or from the game's subject and
    object ("bram", "is", "forge a sword": "forging a sword")."""
    for name in names.values():
        doing = memory.description.removeprefix(f"{name} is ")
        if doing != memory.description:
            doing = doing.strip().rstrip(".")
            return (name, doing) if doing else None
    who = names.get(memory.subject)
    if who and memory.object.strip() and memory.predicate in ("", "is"):
        return who, progressive(memory.object.strip().rstrip("."))
    return None


def _talk(memory: MemoryRecord, names: Mapping[str, str]) -> tuple[str, str] | None:
    """A line of a conversation ('Bram Ashford said to Wren Hale: "..."') as its speaker
    talking with its listener."""
    line = said_line(memory.description)
    if line is not None and line[0] in names.values() and line[1] in names.values():
        return line[0], TALKING + line[1]
    return None


def _sector(address: str) -> str:
    parts = address.split(":")
    return parts[1] if len(parts) > 1 else ""


def _episodes(group: Sequence[Sighting]) -> list[tuple[GameTime, GameTime]]:
    """The (first, last) game times of each run of sightings with no gap of an hour."""
    runs: list[tuple[GameTime, GameTime]] = []
    for t in sorted({s.memory.created for s in group}):
        if runs and t - runs[-1][1] < EPISODE_GAP:
            runs[-1] = (runs[-1][0], t)
        else:
            runs.append((t, t))
    return runs


def _company(a: str, b: str, group: Sequence[Sighting]) -> str:
    if len(_episodes(group)) < 2:
        return ""
    return f"{a} and {b} often talk with each other."


def _habit(who: str, doing: str, group: Sequence[Sighting]) -> str:
    episodes = _episodes(group)
    if len(episodes) >= 2:
        how = f"is often {doing}"
    elif episodes[0][1] - episodes[0][0] >= LONG:
        how = f"spends hours {doing}"
    else:
        return ""
    places = Counter(s.place for s in group if s.place).most_common(1)
    place = places[0][0] if places else ""
    place = place if place[:1].isupper() else f"the {place}"  # "the harbour", "Fish Market"
    where = f" at {place}" if places and not _placed(doing) else ""
    return f"{who} {how}{where}."


def _placed(doing: str) -> bool:
    return any(f" {word} " in f" {doing} " for word in ("at", "in", "home"))
