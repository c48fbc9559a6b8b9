"""The paper's measures over memory streams: information diffusion and network density."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from itertools import combinations

from npc_brain.demo.cast import Seed
from npc_brain.demo.memories import MemoryView, knows


@dataclass(frozen=True)
class Knower:
    """An agent who knows a seed, since `since` (game time), as `memory` shows."""

    agent_id: str
    since: float
    memory: MemoryView


def diffusion(seed: Seed, streams: Mapping[str, Sequence[MemoryView]]) -> list[Knower]:
    """Agents whose stream mentions the seed (a key phrase), each with its earliest such
    memory; ordered by when they came to know it, then by agent id."""
    knowers = []
    for agent_id, stream in streams.items():
        mentions = [m for m in stream if seed.mentioned_in(m.description)]
        if mentions:
            first = min(mentions, key=lambda m: m.created)  # min keeps the stream's order
            knowers.append(Knower(agent_id, first.created, first))
    return sorted(knowers, key=lambda k: (k.since, k.agent_id))


def knowing_over_time(knowers: Sequence[Knower], times: Sequence[float]) -> list[int]:
    """How many agents knew by each of `times`."""
    return [sum(1 for k in knowers if k.since <= t) for t in times]


def edges(
    streams: Mapping[str, Sequence[MemoryView]], names: Mapping[str, str], until: float
) -> list[tuple[str, str]]:
    """Pairs of agents who know each other by `until` (both ways, see `memories.knows`),
    in the order of `names`."""
    ids = list(names)
    return [
        (a, b)
        for a, b in combinations(ids, 2)
        if knows(streams.get(a, ()), b, names[b], until)
        and knows(streams.get(b, ()), a, names[a], until)
    ]


def density(edge_count: int, agent_count: int) -> float:
    """The paper's network density: 2|E| / (|V| (|V| - 1)); 0 with fewer than 2 agents."""
    if agent_count < 2:
        return 0.0
    return 2 * edge_count / (agent_count * (agent_count - 1))
