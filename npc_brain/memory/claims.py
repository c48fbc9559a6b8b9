"""Claims in the world's store: what agents told each other, from whom, how far from
its origin (tables of migration m005; memory/diffusion.py reads the chains).

An agent that tells another something it remembers makes that memory a claim (once);
the listener's memory of the line then holds the claim, one hop further from its first
holder than the teller. Each row is both sides of one telling: the listener heard it
from the teller (HEARD), the teller told it to the listener (TOLD).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from npc_brain.memory.database import Connection
from npc_brain.memory.diffusion import ClaimRow, HolderRow
from npc_brain.memory.records import GameTime, MemoryRecord

Connect = Callable[[], AbstractContextManager[Connection]]
_HOLDER_COLUMNS = "claim_id, agent_id, memory_id, from_agent_id, from_memory_id, hops, heard"
_CLAIM_COLUMNS = "claim_id, text, origin_agent_id, origin_memory_id, created"


@dataclass(frozen=True)
class Telling:
    """One line that carried a memory of its speaker to a listener."""

    teller: str
    carried: MemoryRecord  # the teller's memory the line carried
    vector: NDArray[np.float32]  # its embedding
    teller_line: int  # the teller's memory of saying the line
    listener: str
    listener_line: int  # the listener's memory of hearing it
    game_time: GameTime


class ClaimBook:
    """The claims of one world; each write is one transaction of the store."""

    def __init__(self, transaction: Connect, reading: Connect) -> None:
        self._transaction = transaction
        self._reading = reading

    def record(self, tellings: Sequence[Telling]) -> list[int]:
        """Stores tellings (a conversation's) in one transaction; their claim ids. A
        carried memory that holds no claim yet becomes one, its teller the first holder;
        a listener keeps the first time it heard a claim from each teller."""
        claims = []
        with self._transaction() as db:
            for t in tellings:
                claim = _claim_held(db, t.teller, t.carried.memory_id)
                if claim is None:
                    claim = _new_claim(db, t)
                (hops,) = db.execute(
                    "SELECT MIN(hops) FROM claim_holders WHERE claim_id = ? AND agent_id = ?",
                    (claim, t.teller),
                ).fetchone()
                if hops is None:  # the teller forgot where it had it: its own word now
                    hops = 0
                    _hold_first(db, claim, t.teller, t.carried.memory_id, t.game_time)
                db.execute(
                    f"INSERT INTO claim_holders ({_HOLDER_COLUMNS})"
                    " VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING",
                    (
                        claim,
                        t.listener,
                        t.listener_line,
                        t.teller,
                        t.teller_line,
                        hops + 1,
                        t.game_time,
                    ),
                )
                claims.append(claim)
        return claims

    def of_memories(self, memory_ids: Sequence[int]) -> dict[int, int]:
        """The claim each of these memories holds, or told as its teller's line (memories
        with none are left out)."""
        if not memory_ids:
            return {}
        marks = ", ".join("?" * len(memory_ids))
        ids = [int(i) for i in memory_ids]
        with self._reading() as db:
            rows = db.execute(
                f"SELECT memory_id, claim_id FROM claim_holders WHERE memory_id IN ({marks})"
                f" UNION SELECT from_memory_id, claim_id FROM claim_holders"
                f" WHERE from_memory_id IN ({marks}) ORDER BY 2 DESC",
                [*ids, *ids],
            ).fetchall()
        return {int(memory): int(claim) for memory, claim in rows}  # newest first: oldest wins

    def exchanged(self, a: str, b: str) -> set[int]:
        """The claims `a` told `b` or heard from `b` (either told the other)."""
        with self._reading() as db:
            rows = db.execute(
                "SELECT claim_id FROM claim_holders WHERE (agent_id = ? AND from_agent_id = ?)"
                " OR (agent_id = ? AND from_agent_id = ?)",
                (b, a, a, b),
            ).fetchall()
        return {int(claim) for (claim,) in rows}

    def has_told(self, teller: str, listener: str, claim_id: int) -> bool:
        """Whether `teller` told `listener` the claim (the listener heard it from it)."""
        return claim_id in self._told(teller, listener)

    def heard_from(self, listener: str, teller: str, claim_id: int) -> bool:
        """Whether `listener` heard the claim from `teller`."""
        return self.has_told(teller, listener, claim_id)

    def held_by(self, agent_id: str) -> list[HolderRow]:
        """Every source of every claim the agent holds."""
        with self._reading() as db:
            rows = db.execute(
                f"SELECT {_HOLDER_COLUMNS} FROM claim_holders WHERE agent_id = ?"
                " ORDER BY claim_id, hops, heard",
                (agent_id,),
            ).fetchall()
        return [_holder(row) for row in rows]

    def holders(self, claim_id: int) -> list[HolderRow]:
        """Every row of a claim: each holder and each of its sources."""
        with self._reading() as db:
            rows = db.execute(
                f"SELECT {_HOLDER_COLUMNS} FROM claim_holders WHERE claim_id = ?", (claim_id,)
            ).fetchall()
        return [_holder(row) for row in rows]

    def get(self, claim_id: int) -> ClaimRow | None:
        with self._reading() as db:
            row = db.execute(
                f"SELECT {_CLAIM_COLUMNS} FROM claims WHERE claim_id = ?", (claim_id,)
            ).fetchone()
        return None if row is None else _claim(row)

    def search(self, vector: NDArray[np.float32], k: int) -> list[tuple[ClaimRow, float]]:
        """The k claims whose texts are nearest in meaning (cosine), nearest first."""
        found = sorted(self._scored(vector), key=lambda pair: -pair[1])
        return found[:k]

    def _scored(self, vector: NDArray[np.float32]) -> Iterator[tuple[ClaimRow, float]]:
        with self._reading() as db:
            rows = db.execute(f"SELECT {_CLAIM_COLUMNS}, embedding FROM claims").fetchall()
        for row in rows:
            embedding = np.frombuffer(row[-1], dtype=np.float32)
            yield _claim(row[:-1]), float(embedding @ vector)

    def _told(self, teller: str, listener: str) -> set[int]:
        with self._reading() as db:
            rows = db.execute(
                "SELECT claim_id FROM claim_holders WHERE agent_id = ? AND from_agent_id = ?",
                (listener, teller),
            ).fetchall()
        return {int(claim) for (claim,) in rows}


def _claim_held(db: Connection, agent_id: str, memory_id: int) -> int | None:
    """The claim the agent's memory holds, or told (its line of an earlier telling)."""
    row = db.execute(
        "SELECT MIN(claim_id) FROM claim_holders WHERE (agent_id = ? AND memory_id = ?)"
        " OR (from_agent_id = ? AND from_memory_id = ?)",
        (agent_id, memory_id, agent_id, memory_id),
    ).fetchone()
    return None if row[0] is None else int(row[0])


def _new_claim(db: Connection, t: Telling) -> int:
    """A claim made of the teller's memory, the teller holding it first (hops 0)."""
    (claim,) = db.execute(
        "INSERT INTO claims (text, origin_agent_id, origin_memory_id, created, embedding)"
        " VALUES (?, ?, ?, ?, ?) RETURNING claim_id",
        (
            t.carried.description,
            t.teller,
            t.carried.memory_id,
            t.carried.created,
            np.asarray(t.vector, dtype=np.float32).tobytes(),
        ),
    ).fetchone()
    _hold_first(db, claim, t.teller, t.carried.memory_id, t.carried.created)
    return int(claim)


def _hold_first(db: Connection, claim: int, agent_id: str, memory_id: int, since: GameTime) -> None:
    """The agent holds the claim from no one (hops 0)."""
    db.execute(
        f"INSERT INTO claim_holders ({_HOLDER_COLUMNS}) VALUES (?, ?, ?, '', NULL, 0, ?)"
        " ON CONFLICT DO NOTHING",
        (claim, agent_id, memory_id, since),
    )


def _holder(row: tuple[Any, ...]) -> HolderRow:
    claim, agent, memory, teller, teller_memory, hops, heard = row
    return HolderRow(
        int(claim),
        str(agent),
        int(memory),
        str(teller),
        None if teller_memory is None else int(teller_memory),
        int(hops),
        float(heard),
    )


def _claim(row: tuple[Any, ...]) -> ClaimRow:
    claim, text, origin, origin_memory, created = row
    return ClaimRow(
        int(claim),
        str(text),
        str(origin),
        int(origin_memory),
        float(created),
    )
