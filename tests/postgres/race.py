"""A forced lease race on one world (tests/unit/test_leases.py and bench scale-out): two
servers' Leases of 2 ms, never renewed, each try taking the world if its lease lapsed
and writing through its fence for 1 ms. Each committed write logs, on the database's
clock, when it began and ended: two of them overlapping is two servers writing the world
at once."""

from __future__ import annotations

import random
import threading
import time
from dataclasses import dataclass

from psycopg_pool import ConnectionPool

from npc_brain.errors import Unavailable
from npc_brain.memory.leases import Leases
from npc_brain.memory.postgres import PostgresDatabase


@dataclass(frozen=True)
class RaceResult:
    tries: int
    writes: int  # writes that passed the fence and committed
    owners: int  # distinct epochs among them: how often the world changed hands
    overlaps: int  # committed writes that began before the one before them ended
    epochs_in_order: bool  # no write of an older epoch after one of a newer


def lease_race(pool: ConnectionPool, tries: int, world_id: str = "race") -> RaceResult:
    servers = [Leases(pool, f"s{i}:1", seconds=0.002, renew=False) for i in range(2)]
    servers[0].take(world_id, create=True)
    stores = [PostgresDatabase(pool, world_id, s.fence(world_id)) for s in servers]
    with stores[0].transaction() as db:
        db.execute(
            "CREATE TABLE race_log (n BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,"
            " epoch BIGINT, began TIMESTAMPTZ, ended TIMESTAMPTZ)"
        )
    guard = threading.Lock()
    counts = {"writes": 0}

    def race(i: int) -> None:
        for _ in range(tries // 2):
            time.sleep(random.uniform(0, 0.003))
            try:
                servers[i].take(world_id, create=True)
                epoch = servers[i].epoch(world_id)
                with stores[i].transaction() as db:
                    db.execute(
                        "INSERT INTO race_log (epoch, began) VALUES (?, clock_timestamp())",
                        (epoch,),
                    )
                    db.execute("SELECT pg_sleep(0.001)")
                    db.execute(
                        "UPDATE race_log SET ended = clock_timestamp()"
                        " WHERE n = currval(pg_get_serial_sequence('race_log', 'n'))"
                    )
                with guard:
                    counts["writes"] += 1
            except Unavailable:
                continue

    threads = [threading.Thread(target=race, args=(i,)) for i in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    with stores[0].reading() as db:
        rows = db.execute("SELECT epoch, began, ended FROM race_log ORDER BY began").fetchall()
    epochs = [int(epoch) for epoch, _, _ in rows]
    overlaps = sum(later[1] < earlier[2] for earlier, later in zip(rows, rows[1:], strict=False))
    for server in servers:
        server.close()
    return RaceResult(tries, counts["writes"], len(set(epochs)), overlaps, epochs == sorted(epochs))
