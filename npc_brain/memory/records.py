"""Domain values of the memory stream. Game time is float seconds since 1970-01-01 UTC."""

from __future__ import annotations

import ctypes
import functools
from collections.abc import Iterable
from dataclasses import dataclass
from enum import IntEnum

GameTime = float
SECONDS_PER_HOUR = 3600.0
# The importance of a memory stored before it was rated (Perceive answers once its
# memories are durable; they are embedded and rated after): never a rating (1..10).
UNRATED = 0.0


class MemoryKind(IntEnum):
    """Same numbers as npc_brain.v1.MemoryKind."""

    OBSERVATION = 1
    REFLECTION = 2
    PLAN = 3
    DIALOGUE = 4
    THOUGHT = 5  # the agent's own thoughts after a conversation; not a reflection


class SourceKind(IntEnum):
    """Same numbers as npc_brain.v1.SourceKind."""

    SEEN = 1
    HEARD = 2
    TOLD = 3
    AUTHOR = 4


@dataclass(frozen=True, slots=True)
class Source:
    """How an agent came to know something, and from whom."""

    kind: SourceKind = SourceKind.SEEN
    agent_id: str = ""


SEEN = Source()  # seen by the agent itself: the default source


@dataclass(frozen=True, slots=True)
class Sharing:
    """Whom an agent may tell a memory: anyone (the default), nobody (`private`), or
    only the ids in `share_with` (agents or players)."""

    private: bool = False
    share_with: tuple[str, ...] = ()

    @property
    def restricted(self) -> bool:
        return self.private or bool(self.share_with)

    def allows(self, listener: str) -> bool:
        """Whether the memory may be told to `listener`."""
        return not self.private and (not self.share_with or listener in self.share_with)

    def passed_on(self, listener: str) -> Sharing:
        """The sharing of what `listener` hears of such a memory: a confidence stays one;
        the listener may tell only the others it was meant for (nobody, if none)."""
        if not self.restricted:
            return self
        others = tuple(x for x in self.share_with if x != listener)
        return Sharing(private=not others, share_with=others)

    def narrowed(self, other: Sharing) -> Sharing:
        """The stricter of two sharings: what a memory drawn from both may be told."""
        if not other.restricted:
            return self
        if not self.restricted:
            return other
        if self.private or other.private:
            return PRIVATE
        both = tuple(x for x in self.share_with if x in other.share_with)
        return Sharing(private=not both, share_with=both)


ANYONE = Sharing()
PRIVATE = Sharing(private=True)


@functools.lru_cache(maxsize=4096)
def source_of(kind: SourceKind, agent_id: str = "") -> Source:
    """A Source, shared by every memory with the same one (frozen, so safe to share):
    fewer objects for the garbage collector to scan in big streams."""
    return Source(kind, agent_id)


def sharing_of(private: bool, share_with: tuple[str, ...]) -> Sharing:
    """A Sharing; the everyday ones (anyone, nobody) are shared objects."""
    if not share_with:
        return PRIVATE if private else ANYONE
    return Sharing(private, share_with)


@dataclass(frozen=True)
class Observation:
    """One thing perceived, as the game reports it."""

    text: str
    subject: str = ""
    predicate: str = ""
    object: str = ""
    address: str = ""
    source: Source = SEEN  # frozen: one shared object
    importance: float | None = None  # an override 1..10; None means "rate it"
    expires: GameTime | None = None  # when the memory stops being recalled; None: never
    sharing: Sharing = ANYONE  # whom the agent may tell it

    def as_memory(self, kind: MemoryKind, created: GameTime, importance: float) -> NewMemory:
        """The memory this observation becomes, of `kind`, with its importance."""
        return NewMemory(
            kind=kind,
            description=self.text,
            created=created,
            importance=importance,
            subject=self.subject,
            predicate=self.predicate,
            object=self.object,
            address=self.address,
            source=self.source,
            expires=self.expires,
            sharing=self.sharing,
        )


@dataclass(frozen=True, slots=True)
class NewMemory:
    """A memory about to be written: everything but its id. Streams hold these by the
    hundred thousand: with slots (no __dict__) a record is one object for the garbage
    collector to scan, not two, and full collections stop the event loop."""

    kind: MemoryKind
    description: str
    created: GameTime
    importance: float
    subject: str = ""
    predicate: str = ""
    object: str = ""
    address: str = ""
    source: Source = SEEN  # frozen: one shared object
    evidence_ids: tuple[int, ...] = ()
    depth: int = 0
    expires: GameTime | None = None  # game time from which the memory is no longer recalled
    sharing: Sharing = ANYONE  # whom the agent may tell it (dialogue never carries it further)


@dataclass(frozen=True, slots=True)
class MemoryRecord(NewMemory):
    """A stored memory."""

    memory_id: int = 0
    last_accessed: GameTime = 0.0


def untrack(records: Iterable[MemoryRecord]) -> None:
    """Takes records out of the cyclic garbage collector's sight. A record refers only to
    strings, numbers, enums and shared frozen values, none of which can refer back to it,
    so it is in no reference cycle and reference counting alone frees it (CPython
    untracks tuples of such values the same way). Streams keep them for the process's
    life: tracked, every full collection scanned them all with the event loop stopped
    (27 ms at 40k memories, and growing with the streams)."""
    for record in records:
        _gc_untrack(record)


_gc_untrack = ctypes.pythonapi.PyObject_GC_UnTrack  # a no-op on an untracked object
_gc_untrack.argtypes = [ctypes.py_object]
_gc_untrack.restype = None


@dataclass(frozen=True)
class ScoredMemory:
    """A retrieved memory with its score and normalised terms (before weighting)."""

    memory: MemoryRecord
    score: float
    recency: float
    importance: float
    relevance: float
    # Hybrid retrieval only: the memory's rank by embedding and by BM25 among the
    # memories the query may return (1 = first), 0 where that list does not hold it.
    dense_rank: int = 0
    lexical_rank: int = 0


@dataclass(frozen=True)
class MemorySummary:
    """An agent's memory count, how many were created in a recent window, and the latest
    game time its memories show (created or last accessed); None when it has none."""

    count: int
    recent: int
    latest: GameTime | None
