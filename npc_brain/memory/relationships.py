"""What each agent thinks of each other agent it has talked with: one short summary per
ordered pair, rewritten after each of their conversations (table of migration m006)."""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractContextManager
from dataclasses import dataclass

from npc_brain.memory.database import Connection
from npc_brain.memory.records import GameTime

Connect = Callable[[], AbstractContextManager[Connection]]
_COLUMNS = "agent_id, other_id, summary, conversations, updated"


@dataclass(frozen=True)
class Relationship:
    """`agent_id`'s view of `other_id`, after `conversations` conversations."""

    agent_id: str
    other_id: str
    summary: str
    conversations: int
    updated: GameTime


class RelationshipBook:
    """The relationships of one world; each write is one transaction of the store."""

    def __init__(self, transaction: Connect, reading: Connect) -> None:
        self._transaction = transaction
        self._reading = reading

    def save(self, agent_id: str, other_id: str, summary: str, game_time: GameTime) -> None:
        """Replaces the agent's summary of the other, counting one more conversation."""
        with self._transaction() as db:
            db.execute(
                f"INSERT INTO relationships ({_COLUMNS}) VALUES (?, ?, ?, 1, ?)"
                " ON CONFLICT(agent_id, other_id) DO UPDATE SET summary = excluded.summary,"
                " conversations = relationships.conversations + 1, updated = excluded.updated",
                (agent_id, other_id, summary, game_time),
            )

    def get(self, agent_id: str, other_id: str) -> Relationship | None:
        with self._reading() as db:
            row = db.execute(
                f"SELECT {_COLUMNS} FROM relationships WHERE agent_id = ? AND other_id = ?",
                (agent_id, other_id),
            ).fetchone()
        return None if row is None else _relationship(row)

    def of(self, agent_id: str) -> list[Relationship]:
        """Every relationship of the agent, the latest updated first."""
        with self._reading() as db:
            rows = db.execute(
                f"SELECT {_COLUMNS} FROM relationships WHERE agent_id = ?"
                " ORDER BY updated DESC, other_id",
                (agent_id,),
            ).fetchall()
        return [_relationship(row) for row in rows]


def _relationship(row: tuple[object, ...]) -> Relationship:
    agent, other, summary, count, updated = row
    return Relationship(str(agent), str(other), str(summary), int(str(count)), float(str(updated)))
