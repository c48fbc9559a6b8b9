"""How a claim spread: each holder's source chain, hops and confidence, from the rows of
`claim_holders` (pure; the store reads the rows).

A holder's confidence falls with hops and rises when independent sources agree: each
source (a teller, or the holder's own knowledge for the first holder) vouches with
HOP_CONFIDENCE ** hops, and they combine as independent evidence (noisy-or:
1 - prod(1 - c)). A teller whose own chain passes through the holder only echoes what
the holder said, so it does not count.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass

from npc_brain.memory.records import GameTime

HOP_CONFIDENCE = 0.8  # each retelling keeps this share of the teller's confidence


@dataclass(frozen=True)
class ClaimRow:
    """A claim: the text of the memory its first holder told, and where it began."""

    claim_id: int
    text: str
    origin_agent_id: str
    origin_memory_id: int
    created: GameTime


@dataclass(frozen=True)
class HolderRow:
    """One agent holding a claim from one source (`from_agent_id` '' for the first holder)."""

    claim_id: int
    agent_id: str
    memory_id: int  # the holder's memory that carries the claim
    from_agent_id: str
    from_memory_id: int | None  # the teller's memory of saying it (TOLD)
    hops: int
    heard: GameTime


@dataclass(frozen=True)
class Holder:
    """An agent that knows a claim: from whom first, since when, how far from its origin,
    how sure, every agent it heard it from, and its chain from the first holder."""

    agent_id: str
    memory_id: int
    heard_from: str  # '' for the first holder
    since: GameTime
    hops: int
    confidence: float
    sources: tuple[str, ...]
    chain: tuple[str, ...]  # agent ids, the first holder first, this holder last


def holders_of(rows: Sequence[HolderRow]) -> list[Holder]:
    """Every agent of the rows with its source chain and confidence, nearest the origin
    first (then earliest, then by id)."""
    by_agent: dict[str, list[HolderRow]] = defaultdict(list)
    for row in rows:
        by_agent[row.agent_id].append(row)
    chains = {agent: _chain(agent, by_agent) for agent in by_agent}
    holders = []
    for agent, own in by_agent.items():
        first = _best(own)
        vouching = [
            HOP_CONFIDENCE**row.hops
            for row in own
            if agent not in chains.get(row.from_agent_id, ())  # not an echo of itself
        ] or [HOP_CONFIDENCE**first.hops]
        holders.append(
            Holder(
                agent_id=agent,
                memory_id=first.memory_id,
                heard_from=first.from_agent_id,
                since=min(row.heard for row in own),
                hops=first.hops,
                confidence=1.0 - math.prod(1.0 - c for c in vouching),
                sources=tuple(sorted({row.from_agent_id for row in own} - {""})),
                chain=chains[agent],
            )
        )
    return sorted(holders, key=lambda h: (h.hops, h.since, h.agent_id))


def _best(rows: Sequence[HolderRow], before: GameTime | None = None) -> HolderRow:
    """The source nearest the origin (the earliest of those), among the rows heard by
    `before` when there are any."""
    heard = [r for r in rows if before is None or r.heard <= before] or list(rows)
    return min(heard, key=lambda r: (r.hops, r.heard, r.from_agent_id))


def _chain(agent: str, by_agent: dict[str, list[HolderRow]]) -> tuple[str, ...]:
    """The agents the claim went through to reach `agent`, the first holder first: each
    teller's own source as it stood when it told."""
    path = [agent]
    row = _best(by_agent[agent])
    while row.from_agent_id and row.from_agent_id not in path:
        path.append(row.from_agent_id)
        told = by_agent.get(row.from_agent_id)
        if not told:
            break  # the teller forgot it since
        row = _best(told, row.heard)
    return tuple(reversed(path))
