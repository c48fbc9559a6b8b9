"""Relationships: what each agent thinks of each agent it has talked with, in a sentence
kept per pair (memory/relationships.py). A summary built by code (how often they talked,
the other's last line), or with `afterthoughts` model the post-conversation thoughts
rewrite it (one constrained call makes both; an unusable answer leaves the code's). A
speaker's prompt gives it first, before the memories; replies about a person too (the
reply is still checked for secrets: News.vetted)."""

from __future__ import annotations

from collections.abc import Sequence

from npc_brain.action import Line
from npc_brain.memory.records import GameTime, MemoryRecord
from npc_brain.memory.relationships import Relationship
from npc_brain.mind.world import World

MAX_QUOTE = 80


def relationship(world: World, agent_id: str, other_id: str) -> str:
    """The agent's summary of its relationship with the other ('' if they never talked)."""
    found = world.store.relationships.get(agent_id, other_id)
    return found.summary if found is not None else ""


def talks(world: World, agent_id: str, other_id: str) -> int:
    """How many conversations the agent has had with the other."""
    found = world.store.relationships.get(agent_id, other_id)
    return found.conversations if found is not None else 0


def relationships_of(world: World, agent_id: str) -> list[Relationship]:
    """Every relationship of the agent, the latest updated first."""
    return world.store.relationships.of(agent_id)


def renew_relationship(
    world: World,
    agent_id: str,
    other_id: str,
    other_name: str,
    summary: str,
    last_line: str,
    game_time: GameTime,
) -> str:
    """Stores the agent's new summary of the other after a conversation; an empty
    `summary` (the model's was unusable) is replaced by one built by code, quoting the
    other's `last_line` (if it may be told to anyone)."""
    if not summary:
        before = world.store.relationships.get(agent_id, other_id)
        summary = fallback(other_name, last_line, 1 + (before.conversations if before else 0))
    world.store.relationships.save(agent_id, other_id, summary, game_time)
    return summary


def last_open_line(other_id: str, lines: Sequence[Line], said: Sequence[MemoryRecord]) -> str:
    """The other's last line of a conversation, if the agent may tell it to anyone (its
    memory of it, in `said`, is not restricted); else ''. A plain view quotes it, and a
    view of someone may reach a reply to anyone."""
    heard = [
        line.text
        for line, memory in zip(lines, said, strict=True)
        if line.speaker_id == other_id and not memory.sharing.restricted
    ]
    return heard[-1] if heard else ""


def fallback(other_name: str, last_line: str, talks: int) -> str:
    """A plain summary: how often the two talked, and the other's last line."""
    first = other_name.split()[0] if other_name.split() else other_name
    times = "once" if talks == 1 else f"{talks} times"
    summary = f"{first} and I have talked {times}."
    if last_line:
        quote = last_line if len(last_line) <= MAX_QUOTE else last_line[: MAX_QUOTE - 3] + "..."
        summary += f' Last time {first} said: "{quote}"'
    return summary
