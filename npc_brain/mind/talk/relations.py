"""Relationships: what each agent thinks of each agent it has talked with, in a sentence
kept per pair (memory/relationships.py). The post-conversation thoughts rewrite it (one
constrained call makes both); an unusable answer leaves a summary built by code. A
speaker's prompt gives it first, before the memories; replies about a person too."""

from __future__ import annotations

from collections.abc import Sequence

from npc_brain.action import Line
from npc_brain.memory.records import GameTime
from npc_brain.memory.relationships import Relationship
from npc_brain.mind.world import World

MAX_QUOTE = 80


def relationship(world: World, agent_id: str, other_id: str) -> str:
    """The agent's summary of its relationship with the other ('' if they never talked)."""
    found = world.store.relationships.get(agent_id, other_id)
    return found.summary if found is not None else ""


def relationships_of(world: World, agent_id: str) -> list[Relationship]:
    """Every relationship of the agent, the latest updated first."""
    return world.store.relationships.of(agent_id)


def renew_relationship(
    world: World,
    agent_id: str,
    other_id: str,
    other_name: str,
    summary: str,
    lines: Sequence[Line],
    game_time: GameTime,
) -> str:
    """Stores the agent's new summary of the other after a conversation (`lines`); an
    empty `summary` (the model's was unusable) is replaced by one built from the talk."""
    if not summary:
        before = world.store.relationships.get(agent_id, other_id)
        summary = fallback(other_name, lines, other_id, 1 + (before.conversations if before else 0))
    world.store.relationships.save(agent_id, other_id, summary, game_time)
    return summary


def fallback(other_name: str, lines: Sequence[Line], other_id: str, talks: int) -> str:
    """A plain summary: how often the two talked, and the other's last line."""
    first = other_name.split()[0] if other_name.split() else other_name
    times = "once" if talks == 1 else f"{talks} times"
    said = [x.text for x in lines if x.speaker_id == other_id]
    summary = f"{first} and I have talked {times}."
    if said:
        quote = said[-1] if len(said[-1]) <= MAX_QUOTE else said[-1][: MAX_QUOTE - 3] + "..."
        summary += f' Last time {first} said: "{quote}"'
    return summary
