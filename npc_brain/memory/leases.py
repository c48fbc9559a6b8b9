"""Which server serves each world when several share one PostgreSQL: one lease per world.

The catalog `public.npc_brain_worlds` has a row per world: the server process that owns
it (`owner`, unique per process), the address clients reach that server at, the lease's
`epoch` and its expiry, both on the database's clock. A server takes a world whose
lease has expired (or that it holds) and bumps the epoch when the owner changes; it
renews its leases every third of their length. Every write transaction of a world
first reads its row FOR SHARE and checks that this process still holds that epoch
(`fence`), so a server taking a world over waits for the old owner's write in flight,
and every write the old owner tries after that is refused: two servers never write
one world at once.
"""

from __future__ import annotations

import logging
import secrets
import threading
from collections.abc import Callable

import psycopg
import psycopg_pool

from npc_brain.errors import NotFound, Unavailable
from npc_brain.memory.postgres import FENCED, PgConnection, unavailable_on_failure

log = logging.getLogger(__name__)

CATALOG = """
CREATE TABLE IF NOT EXISTS public.npc_brain_worlds (
    world_id TEXT PRIMARY KEY,
    owner TEXT NOT NULL DEFAULT '',
    address TEXT NOT NULL DEFAULT '',
    epoch BIGINT NOT NULL DEFAULT 0,
    expires TIMESTAMPTZ NOT NULL DEFAULT '-infinity'
)"""

# Run first in every write transaction, unread: its lock is taken at once, and a refusal
# aborts the transaction, surfacing at its COMMIT (no round trip of its own).
FENCE_FUNCTION = f"""
CREATE OR REPLACE FUNCTION public.npc_brain_fence(world TEXT, holder TEXT, held BIGINT)
RETURNS void LANGUAGE plpgsql AS $$
BEGIN
    PERFORM 1 FROM public.npc_brain_worlds
        WHERE world_id = world AND owner = holder AND epoch = held FOR SHARE;
    IF NOT FOUND THEN
        RAISE EXCEPTION '{FENCED}: world % is no longer held by %', world, holder;
    END IF;
END $$"""

_TAKE = """
INSERT INTO public.npc_brain_worlds AS w (world_id, owner, address, epoch, expires)
VALUES (%(world)s, %(owner)s, %(address)s, 1, now() + make_interval(secs => %(seconds)s))
ON CONFLICT (world_id) DO UPDATE SET
    owner = excluded.owner, address = excluded.address, expires = excluded.expires,
    epoch = CASE WHEN w.owner = excluded.owner THEN w.epoch ELSE w.epoch + 1 END
WHERE w.owner = excluded.owner OR w.expires < now()
RETURNING epoch"""


class Leases:
    """This process's leases on the worlds of one PostgreSQL."""

    def __init__(
        self,
        pool: psycopg_pool.ConnectionPool,
        address: str,
        seconds: float = 10.0,
        *,
        renew: bool = True,
    ) -> None:
        self.owner = f"{address}#{secrets.token_hex(6)}"
        self.address = address
        self.seconds = seconds
        self._pool = pool
        self._held: dict[str, int] = {}  # world -> epoch
        self._lock = threading.Lock()
        self._lost: list[Callable[[str], None]] = []
        self._stop = threading.Event()
        with (
            unavailable_on_failure("the world catalog"),
            pool.connection() as connection,
            connection.transaction(),
        ):
            connection.execute("SELECT pg_advisory_xact_lock(hashtext('npc_brain_worlds'))")
            connection.execute(CATALOG)
            connection.execute(FENCE_FUNCTION)
        self._renewer = threading.Thread(target=self._renew_loop, name="leases", daemon=True)
        if renew:  # off: leases lapse unless renew() is called (tests of expiry)
            self._renewer.start()

    def on_lost(self, callback: Callable[[str], None]) -> None:
        """Calls `callback(world_id)` when a lease this process held is gone."""
        self._lost.append(callback)

    def exists(self, world_id: str) -> bool:
        with unavailable_on_failure("the world catalog"), self._pool.connection() as connection:
            row = connection.execute(
                "SELECT 1 FROM public.npc_brain_worlds WHERE world_id = %s", (world_id,)
            ).fetchone()
        return row is not None

    def ids(self) -> list[str]:
        with unavailable_on_failure("the world catalog"), self._pool.connection() as connection:
            rows = connection.execute(
                "SELECT world_id FROM public.npc_brain_worlds ORDER BY world_id"
            ).fetchall()
        return [str(world_id) for (world_id,) in rows]

    def take(self, world_id: str, *, create: bool) -> None:
        """Holds the world's lease from now; Unavailable naming the owner's address when
        another live server holds it, NotFound when it does not exist and not `create`."""
        if not create and not self.exists(world_id):
            raise NotFound(f"world {world_id!r} does not exist (UpsertAgent creates it)")
        arguments = {
            "world": world_id,
            "owner": self.owner,
            "address": self.address,
            "seconds": self.seconds,
        }
        with unavailable_on_failure(f"world {world_id!r}"), self._pool.connection() as connection:
            row = connection.execute(_TAKE, arguments).fetchone()
            if row is None:
                address, left = connection.execute(
                    "SELECT address, extract(epoch FROM expires - now())"
                    " FROM public.npc_brain_worlds WHERE world_id = %s",
                    (world_id,),
                ).fetchone() or ("another server", 0.0)
                raise Unavailable(
                    f"world {world_id!r} is served by the npc-brain server at {address}"
                    f" (its lease ends in {max(float(left), 0):.1f} s unless renewed)",
                    owner=str(address),
                    retry_after_s=max(float(left), 0.1),
                )
        with self._lock:
            self._held[world_id] = int(row[0])
        log.info("took world %s (epoch %d)", world_id, row[0])

    def epoch(self, world_id: str) -> int:
        """The epoch of the world's lease this process holds; Unavailable when none."""
        held = self.held(world_id)
        if held is None:
            raise Unavailable(f"world {world_id!r} is not served by this npc-brain server")
        return held

    def held(self, world_id: str) -> int | None:
        """The epoch of the world's lease this process holds, if it holds one."""
        return self._held.get(world_id)

    def fence(self, world_id: str) -> WorldFence:
        """What each write transaction of the world checks first."""
        return WorldFence(self, world_id)

    def release(self, world_id: str) -> None:
        """Gives the world up now, so another server may take it without waiting."""
        with self._lock:
            epoch = self._held.pop(world_id, None)
        if epoch is None:
            return
        try:
            with self._pool.connection(timeout=2) as connection:
                connection.execute(
                    "UPDATE public.npc_brain_worlds SET owner = '', address = '',"
                    " expires = '-infinity' WHERE world_id = %s AND owner = %s AND epoch = %s",
                    (world_id, self.owner, epoch),
                )
        except psycopg.OperationalError as error:  # it expires by itself
            log.warning("could not release world %s: %s", world_id, error)

    def close(self) -> None:
        self._stop.set()
        if self._renewer.is_alive():
            self._renewer.join(timeout=5)
        for world_id in list(self._held):
            self.release(world_id)

    def lost(self, world_id: str) -> None:
        """Forgets a lease another server took, telling on_lost's callbacks."""
        with self._lock:
            dropped = self._held.pop(world_id, None) is not None
        if dropped:
            log.warning("lost the lease of world %s", world_id)
            for callback in self._lost:
                callback(world_id)

    def _renew_loop(self) -> None:
        while not self._stop.wait(self.seconds / 3):
            try:
                self.renew()
            except psycopg.OperationalError as error:  # the fence refuses stale writes
                log.warning("could not renew leases: %s", error)

    def renew(self) -> None:
        """Extends every lease still held; those another server took are dropped."""
        with self._lock:
            held = dict(self._held)
        if not held:
            return
        with self._pool.connection(timeout=self.seconds / 3) as connection:
            rows = connection.execute(
                "UPDATE public.npc_brain_worlds AS w"
                " SET expires = now() + make_interval(secs => %s)"
                " FROM unnest(%s::text[], %s::bigint[]) AS h(world_id, epoch)"
                " WHERE w.world_id = h.world_id AND w.epoch = h.epoch AND w.owner = %s"
                " RETURNING w.world_id",
                (self.seconds, list(held), list(held.values()), self.owner),
            ).fetchall()
        renewed = {world_id for (world_id,) in rows}
        for world_id in held.keys() - renewed:
            self.lost(world_id)


class WorldFence:
    """A write transaction of the world commits only while this process holds the
    world's lease at the epoch it took (memory/postgres.Fence)."""

    def __init__(self, leases: Leases, world_id: str) -> None:
        self._leases = leases
        self._world_id = world_id

    def check(self, db: PgConnection) -> None:
        held = self._leases.held(self._world_id)
        if held is None:
            raise self.refused()
        db.execute(
            "SELECT public.npc_brain_fence(?, ?, ?)", (self._world_id, self._leases.owner, held)
        )

    def refused(self) -> Unavailable:
        self._leases.lost(self._world_id)
        return Unavailable(
            f"world {self._world_id!r} is no longer served by this npc-brain server"
            " (another took it over after its lease expired); call again"
        )
