"""The durable store: one SQLite database per world (WAL, synchronous=FULL).

A write returns only after it is committed, so whatever an RPC acknowledged survives
a crash of the process or the machine. The WAL is checkpointed off the writer's path
(memory/checkpoints.py). Embeddings live here too (float32 blobs), with
the embedding model's id and dimension, so the FAISS index can always be rebuilt. A
memory may be written before its embedding (an empty blob, importance UNRATED unless
given): `unembedded` finds such rows and `embedded` completes them.
"""

from __future__ import annotations

import json
import math
import re
import secrets
import threading
from collections.abc import Iterator, Sequence
from contextlib import AbstractContextManager, contextmanager
from dataclasses import asdict, dataclass, fields
from operator import attrgetter
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from npc_brain import game_actions
from npc_brain.errors import FailedPrecondition
from npc_brain.game_actions import ChosenAction, Offer
from npc_brain.memory import lexical
from npc_brain.memory.claims import ClaimBook
from npc_brain.memory.commitments import Commitment, commitments_in
from npc_brain.memory.contradictions import ContradictionBook
from npc_brain.memory.database import Connection, Database, SqliteDatabase, dialect_of
from npc_brain.memory.records import (
    GameTime,
    MemoryKind,
    MemoryRecord,
    MemorySummary,
    NewMemory,
    SourceKind,
    sharing_of,
    source_of,
)
from npc_brain.memory.relationships import RelationshipBook
from npc_brain.persona import AgentRecord, Persona

_MEMORY_COLUMNS = (
    "memory_id, kind, description, subject, predicate, object, address, source_kind,"
    " source_agent_id, created, last_accessed, importance, evidence_json, depth, expires,"
    " private, share_with_json"
)
_ABSENT_KEPT = 10_000  # ids known not to be agents, kept at most (games' subjects vary)
_NEW_VERSION = "UPDATE agents SET memory_version = ? WHERE agent_id = ?"  # _version() first


@dataclass(frozen=True)
class Perception:
    """One agent's perception, ready to store: the places it saw and its new memories."""

    agent_id: str
    places: Sequence[str]
    game_time: GameTime
    memories: Sequence[NewMemory]
    vectors: NDArray[np.float32] | None  # None: written before their embeddings


class WorldStore:
    """All durable state of one world. Thread-safe; every write is one transaction."""

    def __init__(self, database: Database | Path) -> None:
        self.database = SqliteDatabase(database) if isinstance(database, Path) else database
        self.name = self.database.name
        self._lock = threading.RLock()  # the agent cache changes with its committed row
        self._fenced = ""  # why writes are refused; empty: they are not
        self._agents: dict[str, AgentRecord] = {}  # read through: every Act and Tick asks
        self._absent: set[str] = set()  # ids asked for and not found (a Tick asks often)
        self._common_words: set[str] = set()  # too common to search by (memory/lexical.py)
        self.claims = ClaimBook(self._transaction, self._reading)
        self.relationships = RelationshipBook(self._transaction, self._reading)
        self.contradictions = ContradictionBook(self._transaction, self._reading)

    def close(self) -> None:
        self.database.close()

    def fence(self, reason: str) -> None:
        """Refuses every later write with FailedPrecondition(reason): the world is being
        replaced (a snapshot is loaded) and this store's callers must not write."""
        self._fenced = reason

    def unfence(self) -> None:
        self._fenced = ""

    @contextmanager
    def _transaction(self) -> Iterator[Connection]:
        if self._fenced:
            raise FailedPrecondition(self._fenced)
        with self.database.transaction() as db:
            yield db

    def _reading(self) -> AbstractContextManager[Connection]:
        return self.database.reading()

    # Embedding model -------------------------------------------------------------

    def bind_embedding_model(self, model_id: str, dimension: int) -> None:
        """Records the world's embedding model, or refuses a different one."""
        with self._transaction() as db:
            rows = dict(db.execute("SELECT key, value FROM meta WHERE key LIKE 'embed_%'"))
            if not rows:
                db.executemany(
                    "INSERT INTO meta(key, value) VALUES (?, ?)",
                    [("embed_model_id", model_id), ("embed_dimension", str(dimension))],
                )
                return
        if rows["embed_model_id"] != model_id or int(rows["embed_dimension"]) != dimension:
            raise FailedPrecondition(
                f"world {self.name} was built with embedding model "
                f"{rows['embed_model_id']} ({rows['embed_dimension']}-d) but the server uses "
                f"{model_id} ({dimension}-d); start the server with that embedding model "
                f"or use another data directory"
            )

    # Agents ----------------------------------------------------------------------

    def upsert_agent(self, agent: AgentRecord) -> None:
        persona = asdict(agent.persona)
        with self._lock:  # the cache changes with the committed row, never apart
            with self._transaction() as db:
                db.execute(
                    "INSERT INTO agents (agent_id, persona_json, reflection_enabled,"
                    " planning_enabled, memory_enabled, actions_json) VALUES (?, ?, ?, ?, ?, ?)"
                    " ON CONFLICT(agent_id) DO UPDATE SET"
                    " persona_json = excluded.persona_json,"
                    " reflection_enabled = excluded.reflection_enabled,"
                    " planning_enabled = excluded.planning_enabled,"
                    " memory_enabled = excluded.memory_enabled,"
                    " actions_json = excluded.actions_json",
                    (
                        agent.agent_id,
                        json.dumps(persona),
                        agent.reflection_enabled,
                        agent.planning_enabled,
                        agent.memory_enabled,
                        game_actions.dumps(agent.actions),
                    ),
                )
            self._agents[agent.agent_id] = agent
            self._absent.discard(agent.agent_id)

    def get_agent(self, agent_id: str) -> AgentRecord | None:
        if (known := self._agents.get(agent_id)) is not None:  # set only after its commit
            return known
        if agent_id in self._absent:
            return None
        with self._reading() as db:
            row = db.execute(
                "SELECT persona_json, reflection_enabled, planning_enabled, memory_enabled,"
                " actions_json FROM agents WHERE agent_id = ?",
                (agent_id,),
            ).fetchone()
            if row is None:
                if len(self._absent) >= _ABSENT_KEPT:
                    self._absent.clear()
                self._absent.add(agent_id)
                return None
            fields = json.loads(row[0])
            fields["daily_requirements"] = tuple(fields["daily_requirements"])
            persona = Persona(**fields)
            switches = bool(row[1]), bool(row[2]), bool(row[3])
            agent = AgentRecord(agent_id, persona, *switches, game_actions.loads(row[4]))
            self._agents[agent_id] = agent
            return agent

    # Game actions chosen -------------------------------------------------------------

    def add_offer(self, offer: Offer) -> None:
        """Keeps an action an agent chose, durably, before the reply that carries it."""
        chosen = offer.chosen
        with self._transaction() as db:
            db.execute(
                "INSERT INTO offers (action_id, agent_id, speaker_id, name, arguments_json,"
                " price, currency, said, created) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    chosen.action_id,
                    offer.agent_id,
                    offer.speaker_id,
                    chosen.name,
                    json.dumps(chosen.arguments),
                    chosen.price,
                    chosen.currency,
                    offer.said,
                    offer.created,
                ),
            )

    def offer(self, agent_id: str, action_id: str) -> tuple[Offer, int | None] | None:
        """An action the agent chose, and the id of its memory once reported."""
        with self._reading() as db:
            row = db.execute(
                "SELECT speaker_id, name, arguments_json, price, currency, said, created,"
                " memory_id FROM offers WHERE agent_id = ? AND action_id = ?",
                (agent_id, action_id),
            ).fetchone()
        if row is None:
            return None
        chosen = ChosenAction(action_id, row[1], json.loads(row[2]), row[3], row[4])
        return Offer(chosen, agent_id, row[0], row[5], row[6]), row[7]

    def reported(self, action_id: str, memory_id: int) -> None:
        """Marks an offer reported, by the memory stored of it."""
        with self._transaction() as db:
            db.execute(
                "UPDATE offers SET memory_id = ? WHERE action_id = ?", (memory_id, action_id)
            )

    def agent_ids(self) -> list[str]:
        """Every agent of the world, by id."""
        with self._reading() as db:
            rows = db.execute("SELECT agent_id FROM agents ORDER BY agent_id").fetchall()
        return [str(agent_id) for (agent_id,) in rows]

    # Memories --------------------------------------------------------------------

    def add_memories(
        self, agent_id: str, memories: Sequence[NewMemory], vectors: NDArray[np.float32]
    ) -> list[MemoryRecord]:
        """Writes memories with their embeddings in one transaction; returns them with ids."""
        with self._transaction() as db:
            (stored,) = _insert_memories(db, [(agent_id, memories, vectors)])
            db.execute(_NEW_VERSION, (_version(), agent_id))
            return stored

    def add_perceptions(self, perceptions: Sequence[Perception]) -> list[list[MemoryRecord]]:
        """Writes several agents' new places and memories in one transaction (one fsync
        for a whole Tick); returns each agent's stored memories, in order."""
        with self._transaction() as db:
            _insert_places(
                db, [(p.agent_id, a, p.game_time) for p in perceptions for a in p.places]
            )
            stored = _insert_memories(
                db, [(p.agent_id, p.memories, p.vectors) for p in perceptions]
            )
            db.executemany(
                _NEW_VERSION, [(_version(), p.agent_id) for p in perceptions if p.memories]
            )
            return stored

    def load_memories(
        self, agent_id: str, dimension: int
    ) -> tuple[list[MemoryRecord], NDArray[np.float32]]:
        """Every memory of an agent, oldest first, with the embedding matrix."""
        with self._reading() as db:
            rows = db.execute(
                f"SELECT {_MEMORY_COLUMNS}, embedding FROM memories WHERE agent_id = ?"
                " ORDER BY memory_id",
                (agent_id,),
            ).fetchall()
        vectors = np.zeros((len(rows), dimension), dtype=np.float32)
        for i, row in enumerate(rows):
            if row[-1]:  # empty: not embedded yet (see unembedded); a zero row meanwhile
                vectors[i] = np.frombuffer(row[-1], dtype=np.float32)
        return [_record(row) for row in rows], vectors

    def unembedded(self, agent_id: str) -> set[int]:
        """The agent's memories written before their embeddings and not completed since
        (a crash, or a shutdown, came in between)."""
        with self._reading() as db:
            rows = db.execute(
                "SELECT memory_id FROM memories WHERE agent_id = ? AND length(embedding) = 0",
                (agent_id,),
            ).fetchall()
        return {int(memory_id) for (memory_id,) in rows}

    def embedded(self, completed: Sequence[tuple[str, MemoryRecord, NDArray[np.float32]]]) -> None:
        """Writes the embeddings and importance of memories written before them, in one
        transaction: (agent_id, the memory as rated, its embedding) each."""
        with self._transaction() as db:
            db.executemany(
                "UPDATE memories SET embedding = ?, importance = ?"
                " WHERE agent_id = ? AND memory_id = ?",
                [
                    (np.asarray(v, dtype=np.float32).tobytes(), m.importance, agent_id, m.memory_id)
                    for agent_id, m, v in completed
                ],
            )
            for agent_id in {agent_id for agent_id, _, _ in completed}:
                db.execute(_NEW_VERSION, (_version(), agent_id))

    def list_memories(
        self,
        agent_id: str,
        *,
        after_id: int = 0,
        limit: int = 100,
        kinds: Sequence[MemoryKind] = (),
        created_after: GameTime | None = None,
        created_before: GameTime | None = None,
    ) -> list[MemoryRecord]:
        """A page of an agent's memories in id (creation) order, starting after `after_id`."""
        where = ["agent_id = ?", "memory_id > ?"]
        args: list[Any] = [agent_id, after_id]
        if kinds:
            where.append(f"kind IN ({', '.join('?' * len(kinds))})")
            args.extend(int(k) for k in kinds)
        if created_after is not None:
            where.append("created >= ?")
            args.append(created_after)
        if created_before is not None:
            where.append("created < ?")
            args.append(created_before)
        with self._reading() as db:
            rows = db.execute(
                f"SELECT {_MEMORY_COLUMNS} FROM memories WHERE {' AND '.join(where)}"
                " ORDER BY memory_id LIMIT ?",
                (*args, limit),
            ).fetchall()
        return [_record(row) for row in rows]

    def memory_summary(self, agent_id: str, recent_seconds: float) -> MemorySummary:
        """How many memories an agent has, the latest game time they show (created or
        last accessed), and how many were created in the `recent_seconds` before it."""
        with self._reading() as db:
            count, latest = db.execute(
                "SELECT COUNT(*), MAX(last_accessed) FROM memories WHERE agent_id = ?",
                (agent_id,),
            ).fetchone()
            recent = 0
            if latest is not None:
                (recent,) = db.execute(
                    "SELECT COUNT(*) FROM memories WHERE agent_id = ? AND created >= ?",
                    (agent_id, float(latest) - recent_seconds),
                ).fetchone()
        return MemorySummary(int(count), int(recent), None if latest is None else float(latest))

    def forget(self, agent_id: str, memory_id: int) -> bool:
        """Deletes a memory for good; False when the agent has no such memory."""
        with self._transaction() as db:
            cursor = db.execute(
                "DELETE FROM memories WHERE agent_id = ? AND memory_id = ?", (agent_id, memory_id)
            )
            if cursor.rowcount:
                db.execute(_NEW_VERSION, (_version(), agent_id))
                db.execute("DELETE FROM claim_holders WHERE memory_id = ?", (memory_id,))
        return cursor.rowcount > 0

    def lexical(
        self,
        agent_id: str,
        text: str,
        limit: int,
        created: tuple[GameTime, GameTime] = (-math.inf, math.inf),
    ) -> list[int]:
        """The ids of the agent's memories sharing words with `text`, best BM25 first,
        created in [`created`) (memory/lexical.py)."""
        with self._reading() as db:
            return lexical.search(db, agent_id, text, limit, created, self._common_words)

    def memory_owner(self, memory_id: int) -> str | None:
        """The agent a memory belongs to; None when the world has no such memory."""
        with self._reading() as db:
            row = db.execute(
                "SELECT agent_id FROM memories WHERE memory_id = ?", (memory_id,)
            ).fetchone()
        return None if row is None else str(row[0])

    def memory_version(self, agent_id: str) -> str:
        """Changes whenever the agent's memory set changes (adds and deletes, not access)."""
        with self._reading() as db:
            row = db.execute(
                "SELECT memory_version FROM agents WHERE agent_id = ?", (agent_id,)
            ).fetchone()
        return str(row[0]) if row else ""

    def touch(self, memory_ids: Sequence[int], game_time: GameTime) -> None:
        """Sets last_accessed of memories to game_time (retrieval counts as access)."""
        with self._transaction() as db:
            db.executemany(
                "UPDATE memories SET last_accessed = ? WHERE memory_id = ?",
                [(game_time, memory_id) for memory_id in memory_ids],
            )

    def commitments(
        self, agent_id: str, start: GameTime, end: GameTime
    ) -> list[tuple[int, Commitment]]:
        """The commitments the agent's memories made that begin in [start, end): (the
        memory's id, the commitment), by start time (memory/commitments.py)."""
        with self._reading() as db:
            rows = db.execute(
                'SELECT memory_id, activity, start, "end" FROM commitments'
                " WHERE agent_id = ? AND start >= ? AND start < ? ORDER BY start, memory_id",
                (agent_id, start, end),
            ).fetchall()
        return [(int(m), Commitment(str(a), float(s), float(e))) for m, a, s, e in rows]

    # Places ----------------------------------------------------------------------

    def add_places(self, agent_id: str, addresses: Sequence[str], game_time: GameTime) -> None:
        """Adds addresses to the places an agent knows (spatial memory)."""
        with self._transaction() as db:
            _insert_places(db, [(agent_id, address, game_time) for address in addresses])

    def places(self, agent_id: str) -> list[str]:
        """The addresses an agent knows, in the order it learnt them."""
        with self._reading() as db:
            rows = db.execute(
                "SELECT address FROM places WHERE agent_id = ? ORDER BY first_seen, rowid",
                (agent_id,),
            ).fetchall()
        return [address for (address,) in rows]

    def all_places(self) -> list[str]:
        """Every address some agent of the world knows, once each."""
        with self._reading() as db:
            rows = db.execute("SELECT DISTINCT address FROM places").fetchall()
        return [address for (address,) in rows]

    # Plans -----------------------------------------------------------------------

    def save_plan(self, agent_id: str, day: GameTime, plan_json: str) -> None:
        """Replaces the agent's plan (opaque JSON) of the day starting at `day`."""
        with self._transaction() as db:
            db.execute(
                "INSERT INTO plans VALUES (?, ?, ?) ON CONFLICT(agent_id) DO UPDATE SET"
                " day = excluded.day, plan_json = excluded.plan_json",
                (agent_id, day, plan_json),
            )

    def load_plan(self, agent_id: str) -> tuple[GameTime, str] | None:
        """The agent's saved plan: its day and JSON; None when it has none."""
        with self._reading() as db:
            row = db.execute(
                "SELECT day, plan_json FROM plans WHERE agent_id = ?", (agent_id,)
            ).fetchone()
        return None if row is None else (float(row[0]), str(row[1]))


def _insert_memories(
    db: Connection,
    batches: Sequence[tuple[str, Sequence[NewMemory], NDArray[np.float32] | None]],
) -> list[list[MemoryRecord]]:
    """Inserts (agent_id, memories, vectors) batches in one statement; vectors None
    writes that batch without embeddings (empty blobs). Returns each batch's records.
    The ids are the ones AUTOINCREMENT would give, in order: the write lock is held, so
    no other writer takes one meanwhile. The caller marks the agents' memories changed
    (_NEW_VERSION), once per transaction."""
    next_id = _reserve_memory_ids(db, sum(len(memories) for _, memories, _ in batches))
    stored: list[list[MemoryRecord]] = []
    rows = []
    booked = []  # the commitments the memories make (memory/commitments.py)
    events: list[tuple[str, str, GameTime]] = []  # (agent, what, when heard) of each
    for agent_id, memories, vectors in batches:
        blobs = (
            [b""] * len(memories)
            if vectors is None
            else [np.asarray(v, dtype=np.float32).tobytes() for v in vectors]
        )
        records = []
        for memory, blob in zip(memories, blobs, strict=True):
            rows.append(
                (
                    next_id,
                    agent_id,
                    int(memory.kind),
                    memory.description,
                    memory.subject,
                    memory.predicate,
                    memory.object,
                    memory.address,
                    int(memory.source.kind),
                    memory.source.agent_id,
                    memory.created,
                    memory.created,
                    memory.importance,
                    _json_list(memory.evidence_ids),
                    memory.depth,
                    memory.expires,
                    memory.sharing.private,
                    _json_list(memory.sharing.share_with),
                    blob,
                )
            )
            records.append(_stored(memory, next_id))
            made = commitments_in(memory.description, memory.created)
            booked += [(agent_id, next_id, c.activity, c.start, c.end) for c in made]
            events += [(agent_id, c.activity, memory.created) for c in made]
            next_id += 1
        stored.append(records)
    db.executemany(
        "INSERT INTO memories (memory_id, agent_id, kind, description, subject, predicate,"
        " object, address, source_kind, source_agent_id, created, last_accessed,"
        " importance, evidence_json, depth, expires, private, share_with_json, embedding)"
        " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        rows,
    )
    db.executemany(
        'INSERT INTO commitments (agent_id, memory_id, activity, start, "end")'
        " VALUES (?, ?, ?, ?, ?)",
        booked,
    )
    _learn_event_places(db, events)
    return stored


def _learn_event_places(db: Connection, events: Sequence[tuple[str, str, GameTime]]) -> None:
    """An agent committed to an event at a place of the world ("go to the feast at the
    Red Boar") knows that place from then: every room of the area the event names,
    among the places some agent knows, joins its places. Hearing where an event is is
    how one learns where to go; without it the planner could only send the agent to a
    place it knew already."""
    if not events:
        return
    known = [address for (address,) in db.execute("SELECT DISTINCT address FROM places")]
    rooms = [a.split(":") for a in known if a.count(":") == 2]  # world:area:room
    learnt = [
        (agent_id, ":".join(room), when)
        for agent_id, activity, when in events
        for room in rooms
        if re.search(rf"\b{re.escape(room[1])}\b", activity, re.IGNORECASE)
    ]
    _insert_places(db, learnt)


def _reserve_memory_ids(db: Connection, count: int) -> int:
    """The first of `count` new memory ids in a row, the ones AUTOINCREMENT gives: above
    every id ever used (SQLite's sqlite_sequence; on PostgreSQL a block taken from the
    identity sequence, memory/postgres.MemoryIds)."""
    if dialect_of(db) == "postgresql":
        return db.reserve_memory_ids(count) if count else 0  # type: ignore[attr-defined]
    used, highest = db.execute(
        "SELECT coalesce((SELECT seq FROM sqlite_sequence WHERE name = 'memories'), 0),"
        " coalesce((SELECT max(memory_id) FROM memories), 0)"
    ).fetchone()
    return max(int(used), int(highest)) + 1


def _version() -> str:
    """A new memory version of an agent (see memory_version)."""
    return secrets.token_hex(8)


def _insert_places(db: Connection, rows: Sequence[tuple[str, str, GameTime]]) -> None:
    """Adds (agent_id, address, game_time) rows to the places agents know; an empty
    address is no place."""
    db.executemany(
        "INSERT INTO places (agent_id, address, first_seen) VALUES (?, ?, ?)"
        " ON CONFLICT DO NOTHING",
        [row for row in rows if row[1]],
    )


_NEW_MEMORY_VALUES = attrgetter(*(f.name for f in fields(NewMemory)))  # in field order


def _stored(memory: NewMemory, memory_id: int) -> MemoryRecord:
    """The record of a memory just written (MemoryRecord's fields: NewMemory's, then
    memory_id and last_accessed)."""
    values = _NEW_MEMORY_VALUES(memory)  # every field of NewMemory: mypy cannot count them
    return MemoryRecord(*values, memory_id, memory.created)  # type: ignore[call-arg]


def _json_list(values: Sequence[Any]) -> str:
    return json.dumps(list(values)) if values else "[]"


def _record(row: tuple[Any, ...]) -> MemoryRecord:
    (
        memory_id,
        kind,
        description,
        subject,
        predicate,
        obj,
        address,
        source_kind,
        source_agent_id,
        created,
        last_accessed,
        importance,
        evidence_json,
        depth,
        expires,
        private,
        share_with_json,
    ) = row[:17]
    return MemoryRecord(
        memory_id=int(memory_id),
        kind=MemoryKind(kind),
        description=str(description),
        subject=str(subject),
        predicate=str(predicate),
        object=str(obj),
        address=str(address),
        source=source_of(SourceKind(source_kind), str(source_agent_id)),
        created=float(created),
        last_accessed=float(last_accessed),
        importance=float(importance),
        evidence_ids=tuple(json.loads(str(evidence_json))),
        depth=int(depth),
        expires=None if expires is None else float(expires),
        sharing=sharing_of(bool(private), tuple(json.loads(str(share_with_json)))),
    )
