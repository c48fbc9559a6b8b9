"""Pages of an agent's memories for ListMemories: in creation order, sized to fit."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from npc_brain.memory.records import GameTime, MemoryKind, MemoryRecord
from npc_brain.memory.store import WorldStore

MAX_PAGE_SIZE = 500
DEFAULT_PAGE_SIZE = 50


@dataclass(frozen=True)
class TimeRange:
    """Memories created in [after, before); None leaves that side open."""

    after: GameTime | None = None
    before: GameTime | None = None


ANY_TIME = TimeRange()


@dataclass(frozen=True)
class MemoryPage:
    memories: list[MemoryRecord]
    next_page_token: str  # the last memory's id when more follow, else empty


def read_page(
    store: WorldStore,
    agent_id: str,
    after_id: int,
    size: int,
    kinds: Sequence[MemoryKind],
    created: TimeRange,
    byte_budget: int,
) -> MemoryPage:
    """Up to `size` memories after `after_id` (0: DEFAULT_PAGE_SIZE), cut shorter where
    their texts would pass `byte_budget` (a page of long memories still fits in one
    message)."""
    size = size or DEFAULT_PAGE_SIZE
    rows = store.list_memories(
        agent_id,
        after_id=after_id,
        limit=size + 1,
        kinds=kinds,
        created_after=created.after,
        created_before=created.before,
    )
    page = _within_bytes(rows[:size], byte_budget)
    more = len(rows) > size or len(page) < min(size, len(rows))
    return MemoryPage(page, str(page[-1].memory_id) if more else "")


def _within_bytes(memories: list[MemoryRecord], budget: int) -> list[MemoryRecord]:
    """The first memories whose texts fit in `budget` bytes (at least one)."""
    for i, m in enumerate(memories):
        texts = (m.description, m.subject, m.predicate, m.object, m.address, m.source.agent_id)
        budget -= 64 + 8 * len(m.evidence_ids) + sum(len(t.encode()) for t in texts)
        if budget < 0 and i > 0:
            return memories[:i]
    return memories
