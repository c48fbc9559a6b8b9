"""Perceiving: observations become memories, many agents in one write.

All perceptions are stored in one transaction (one fsync) before the caller is
answered. New texts whose embeddings the cache knows (and whose rating is known) are
stored complete. The others are stored at once without embedding, and the caller is
answered: Faculties.catch_up embeds and rates them in the background, every agent's
together, and retrieval waits for it (World's backlog). `wait_for_embedding`
embeds and rates every new text before the write instead, as one batch.

An observation identical to one of the agent's latest `perception_retention` at the same
address is not stored again: its existing id is returned. Each agent that stored
something is then handed to `after_perceive` (the reflection trigger and reactions):
at once, or once its memories are embedded.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from npc_brain.memory.records import (
    UNRATED,
    GameTime,
    MemoryKind,
    MemoryRecord,
    NewMemory,
    Observation,
)
from npc_brain.memory.store import Perception
from npc_brain.mind.faculties import Faculties
from npc_brain.mind.world import World
from npc_brain.persona import AgentRecord

AfterPerceive = Callable[[World, AgentRecord, GameTime, Sequence[Observation]], None]


@dataclass(frozen=True)
class AgentTick:
    """One agent's part of a Tick."""

    agent_id: str
    observations: Sequence[Observation] = ()
    visible_addresses: Sequence[str] = ()


@dataclass(frozen=True)
class _Sensed:
    """A perception prepared but not yet stored."""

    agent: AgentRecord
    observations: Sequence[Observation]
    new: list[Observation]
    known: dict[tuple[str, str], int]
    perception: Perception


class Senses:
    """Turns what agents perceive into memories."""

    def __init__(self, faculties: Faculties, after_perceive: AfterPerceive) -> None:
        self._f = faculties
        self._after_perceive = after_perceive

    async def perceive(
        self, world: World, game_time: GameTime, items: Sequence[tuple[AgentTick, AgentRecord]]
    ) -> list[list[str]]:
        """Stores every agent's observations; returns each agent's memory ids, one per
        observation, in order."""
        sensed = await self._sense(world, game_time, items)
        stored = world.perceived([s.perception for s in sensed])
        ids = []
        for s, memories in zip(sensed, stored, strict=True):
            s.known.update({(m.description, m.address): m.memory_id for m in memories})
            if memories and s.perception.vectors is not None:
                self._after_perceive(world, s.agent, game_time, s.new)
            ids.append([str(s.known[(o.text, o.address)]) for o in s.observations])
        if any(s.perception.vectors is None and s.new for s in sensed):
            self._f.catch_up.later(world)
        return ids

    async def _sense(
        self, world: World, game_time: GameTime, items: Sequence[tuple[AgentTick, AgentRecord]]
    ) -> list[_Sensed]:
        """What the agents' perceptions will store (places, new memories). Every new text
        of every agent is embedded in one batch, or, unless the settings wait for it,
        left to Faculties.catch_up (mind/backlog.py) if the cache does not know it."""
        retention = self._f.settings.perception_retention
        news: list[tuple[list[Observation], dict[tuple[str, str], int]]] = []
        for item, agent in items:
            self._f.usage.saw(world.world_id, agent.agent_id, game_time)
            known = {
                (m.description, m.address): m.memory_id
                for m in world.recent(agent.agent_id, retention)
                if m.kind == MemoryKind.OBSERVATION
            }
            new = [o for o in item.observations if (o.text, o.address) not in known]
            new = list({(o.text, o.address): o for o in new}.values())  # one per repeated line
            news.append((new, known))
        texts = [o.text for new, _ in news for o in new]
        later = not self._f.settings.wait_for_embedding
        if later:
            vectors, missing = self._f.known_embeddings(texts)
        else:
            vectors, missing = await self._f.embed(texts), []
        unknown = set(missing)
        sensed = []
        start = 0
        for (item, agent), (new, known) in zip(items, news, strict=True):
            part = vectors[start : start + len(new)]
            start += len(new)
            places = [*item.visible_addresses, *(o.address for o in item.observations)]
            if later:
                ratings = [self._f.known_importance(world, agent, o) for o in new]
                memories = _as_memories(new, ratings, game_time)
                whole = None not in ratings and not any(o.text in unknown for o in new)
                perception = Perception(
                    agent.agent_id, places, game_time, memories, part if whole else None
                )
            else:
                memories = await self._f.rate(
                    world, agent, MemoryKind.OBSERVATION, new, game_time, part
                )
                perception = Perception(agent.agent_id, places, game_time, memories, part)
            sensed.append(_Sensed(agent, item.observations, new, known, perception))
        return sensed


def _as_memories(
    observations: Sequence[Observation], ratings: Sequence[float | None], game_time: GameTime
) -> list[NewMemory]:
    """Observations as memories with their known importance, or UNRATED where it is not
    known yet (Faculties.catch_up rates them)."""
    return [
        o.as_memory(MemoryKind.OBSERVATION, game_time, UNRATED if rating is None else rating)
        for o, rating in zip(observations, ratings, strict=True)
    ]


def observation_of(memory: MemoryRecord) -> Observation:
    """The observation a perceived memory was stored from."""
    return Observation(
        memory.description,
        memory.subject,
        memory.predicate,
        memory.object,
        memory.address,
        memory.source,
        memory.importance,
        memory.expires,
        memory.sharing,
    )
