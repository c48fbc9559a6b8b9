"""Who knows what: a claim and its holders, found by a memory or by meaning (WhoKnows).

Read-only: nothing is marked accessed and no model is asked (one embedding of a query).
"""

from __future__ import annotations

from dataclasses import dataclass

from npc_brain.errors import NotFound
from npc_brain.memory.diffusion import ClaimRow, Holder, holders_of
from npc_brain.mind.faculties import Faculties
from npc_brain.mind.world import World


@dataclass(frozen=True)
class KnownClaim:
    """A claim with everyone who holds it; `claim_id` None for a memory never told."""

    claim_id: int | None
    text: str
    origin_agent_id: str
    origin_memory_id: int
    relevance: float
    holders: tuple[Holder, ...]


def claim_of_memory(world: World, memory_id: int) -> KnownClaim:
    """The claim a memory holds or told; a memory never told is its owner's alone.
    NOT_FOUND when no agent of the world has it."""
    claims = world.store.claims
    held = claims.of_memories([memory_id])
    if memory_id in held:
        found = claims.get(held[memory_id])
        assert found is not None  # rows go with their claim
        return _known(world, found, 1.0)
    owner = world.store.memory_owner(memory_id)
    if owner is None:
        raise NotFound(f"no agent of world {world.world_id!r} has memory {memory_id}")
    memory = world.memory(owner, memory_id)
    if memory is None:
        raise NotFound(f"no agent of world {world.world_id!r} has memory {memory_id}")
    alone = Holder(owner, memory_id, "", memory.created, 0, 1.0, (), (owner,))
    return KnownClaim(None, memory.description, owner, memory_id, 1.0, (alone,))


async def claims_like(faculties: Faculties, world: World, query: str, k: int) -> list[KnownClaim]:
    """The k claims whose texts are nearest the query in meaning, nearest first."""
    (vector,) = await faculties.embed([query])
    return [_known(world, c, r) for c, r in world.store.claims.search(vector, k)]


def _known(world: World, claim: ClaimRow, relevance: float) -> KnownClaim:
    holders = holders_of(world.store.claims.holders(claim.claim_id))
    return KnownClaim(
        claim.claim_id,
        claim.text,
        claim.origin_agent_id,
        claim.origin_memory_id,
        relevance,
        tuple(holders),
    )
