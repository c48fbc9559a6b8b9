"""Contradictions between an agent's memories: a claim it heard that disagrees with
another of its memories about the same thing (a different time, date or weekday). The
less supported of the two is recorded with its support and a link to the better one;
recall leaves it out (table of migration m007)."""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractContextManager
from dataclasses import dataclass

from npc_brain.memory.database import Connection
from npc_brain.memory.records import GameTime

Connect = Callable[[], AbstractContextManager[Connection]]
_COLUMNS = "agent_id, memory_id, contradicts_id, slot, support, against_support, noticed"


@dataclass(frozen=True)
class Contradiction:
    """The agent's `memory_id` (less supported: `support`) disagrees in `slot` with its
    `contradicts_id` (`against_support`)."""

    agent_id: str
    memory_id: int
    contradicts_id: int
    slot: str
    support: float
    against_support: float
    noticed: GameTime


class ContradictionBook:
    """The contradictions of one world; each write is one transaction of the store."""

    def __init__(self, transaction: Connect, reading: Connect) -> None:
        self._transaction = transaction
        self._reading = reading

    def record(self, found: Contradiction) -> None:
        with self._transaction() as db:
            db.execute(
                f"INSERT INTO contradictions ({_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?)"
                " ON CONFLICT (agent_id, memory_id) DO UPDATE SET"
                " contradicts_id = excluded.contradicts_id, slot = excluded.slot,"
                " support = excluded.support, against_support = excluded.against_support,"
                " noticed = excluded.noticed",
                (
                    found.agent_id,
                    found.memory_id,
                    found.contradicts_id,
                    found.slot,
                    found.support,
                    found.against_support,
                    found.noticed,
                ),
            )

    def of(self, agent_id: str) -> list[Contradiction]:
        with self._reading() as db:
            rows = db.execute(
                f"SELECT {_COLUMNS} FROM contradictions WHERE agent_id = ? ORDER BY memory_id",
                (agent_id,),
            ).fetchall()
        return [
            Contradiction(str(a), int(m), int(c), str(s), float(p), float(q), float(t))
            for a, m, c, s, p, q, t in rows
        ]

    def outweighed(self, agent_id: str) -> set[int]:
        """The agent's memories a better-supported one contradicts."""
        with self._reading() as db:
            rows = db.execute(
                "SELECT memory_id FROM contradictions WHERE agent_id = ?", (agent_id,)
            ).fetchall()
        return {int(m) for (m,) in rows}
