"""Where a server opens its worlds' stores: SQLite files under data_dir (the default),
or schemas of a PostgreSQL shared with other servers under leases (`store_url`)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Protocol

from npc_brain.config import Settings
from npc_brain.errors import FailedPrecondition, InvalidArgument, NotFound
from npc_brain.memory.store import WorldStore


class Stores(Protocol):
    """Opens the stores of the worlds one server serves."""

    description: str  # for the log: where worlds are kept
    shared: bool  # other servers use it too: it can be unreachable, worlds can move

    def open(self, world_id: str, *, create: bool) -> WorldStore:
        """The world's store; NotFound when it does not exist and not `create`."""
        ...

    def ids(self) -> list[str]: ...

    def check_name(self, world_id: str) -> None:
        """InvalidArgument for an id that differs only in case from a world's."""
        ...

    def on_lost(self, callback: Callable[[str], None]) -> None:
        """Calls `callback(world_id)` when another server takes a world this one served."""
        ...

    def release(self, world_id: str) -> None:
        """This server stops serving the world (its store is closed)."""
        ...

    def healthy(self) -> bool:
        """Whether the store can be reached now."""
        ...

    def advertise(self, address: str) -> None:
        """The address other servers send clients to for the worlds this one serves."""
        ...

    def migrate(self) -> list[str]:
        """Brings every world's schema to this version's; the worlds' ids."""
        ...

    def close(self) -> None: ...


def stores_from_settings(settings: Settings) -> Stores:
    """SQLite files under data_dir, or the PostgreSQL that store_url names."""
    url = settings.store_url
    if not url:
        return SqliteStores(settings.data_dir)
    if not url.startswith(("postgresql://", "postgres://")):
        raise InvalidArgument("store_url", "must be a postgresql:// URL, or empty for SQLite")
    return PostgresStores(
        url,
        settings.advertise_address or f"{settings.host}:{settings.port}",
        lease_s=settings.lease_seconds,
        max_connections=settings.store_max_connections,
        timeout_s=settings.store_timeout_seconds,
    )


class SqliteStores:
    """One SQLite file per world under data_dir/worlds, owned by this process."""

    def __init__(self, data_dir: Path) -> None:
        self._dir = data_dir / "worlds"
        self.description = f"SQLite files in {self._dir}"
        self.shared = False

    def open(self, world_id: str, *, create: bool) -> WorldStore:
        path = self._dir / f"{world_id}.sqlite3"
        if not create and not path.exists():
            raise NotFound(f"world {world_id!r} does not exist (UpsertAgent creates it)")
        return WorldStore(path)

    def ids(self) -> list[str]:
        """Every world file's id (WorldRegistry.ids leaves out names no world has)."""
        if not self._dir.is_dir():
            return []
        return [path.stem for path in sorted(self._dir.glob("*.sqlite3"))]

    def check_name(self, world_id: str) -> None:
        """On Windows and macOS two ids differing in case would be one file, so one
        world could be read through the other."""
        _refuse_case_twins(world_id, self.ids())

    def on_lost(self, callback: Callable[[str], None]) -> None:
        """A file of this process is never taken over."""

    def release(self, world_id: str) -> None:
        """Nothing to give back."""

    def healthy(self) -> bool:
        return True

    def advertise(self, address: str) -> None:
        """Clients are never sent elsewhere."""

    def migrate(self) -> list[str]:
        ids = self.ids()
        for world_id in ids:
            WorldStore(self._dir / f"{world_id}.sqlite3").close()
        return ids

    def close(self) -> None:
        """Each store closes its own file."""


class PostgresStores:
    """One schema per world in a PostgreSQL shared by several servers, each world served
    by the one server holding its lease (memory/leases.py)."""

    def __init__(
        self, url: str, address: str, *, lease_s: float, max_connections: int, timeout_s: float
    ) -> None:
        try:  # the optional `postgres` extra
            import psycopg

            from npc_brain.memory import leases, postgres
        except ImportError:
            raise FailedPrecondition(
                "store_url names a PostgreSQL database, which needs psycopg: "
                "pip install 'npc-brain[postgres]'"
            ) from None

        self._postgres = postgres
        self._unreachable = psycopg.OperationalError
        self._pool = postgres.connect(url, max_connections, timeout_s)
        try:
            self._leases = leases.Leases(self._pool, address, lease_s)
        except BaseException:
            self._pool.close()
            raise
        self.description = f"PostgreSQL at {_without_password(url)}"
        self.shared = True

    def open(self, world_id: str, *, create: bool) -> WorldStore:
        self._leases.take(world_id, create=create)
        try:
            database = self._postgres.PostgresDatabase(
                self._pool, world_id, self._leases.fence(world_id)
            )
        except BaseException:
            self._leases.release(world_id)
            raise
        return WorldStore(database)

    def ids(self) -> list[str]:
        return self._leases.ids()

    def check_name(self, world_id: str) -> None:
        _refuse_case_twins(world_id, self.ids())

    def on_lost(self, callback: Callable[[str], None]) -> None:
        self._leases.on_lost(callback)

    def release(self, world_id: str) -> None:
        self._leases.release(world_id)

    def healthy(self) -> bool:
        try:
            with self._pool.connection(timeout=2) as connection:
                connection.execute("SELECT 1")
        except self._unreachable:
            return False
        return True

    def advertise(self, address: str) -> None:
        self._leases.address = address

    def migrate(self) -> list[str]:
        """Serving servers keep their leases: a schema migrates under a lock of its own."""
        ids = self.ids()
        for world_id in ids:
            self._postgres.PostgresDatabase(self._pool, world_id).close()
        return ids

    def close(self) -> None:
        self._leases.close()
        self._pool.close()


def _refuse_case_twins(world_id: str, existing: list[str]) -> None:
    folded = world_id.casefold()
    for other in existing:
        if other != world_id and other.casefold() == folded:
            raise InvalidArgument(
                "world_id", f"differs only in case from the existing world {other!r}"
            )


def _without_password(url: str) -> str:
    """The URL as logs may show it."""
    from urllib.parse import urlsplit, urlunsplit

    parts = urlsplit(url)
    if parts.password is None:
        return url
    netloc = parts.netloc.replace(f":{parts.password}@", ":***@")
    return urlunsplit(parts._replace(netloc=netloc))
