"""Where a world's store lives: the database a WorldStore writes through.

Both backends run one schema (memory/migrations.py) and one SQL text, written in what
SQLite and PostgreSQL both speak: '?' parameters, ON CONFLICT, RETURNING. The few
places where they differ ask `dialect_of(db)`.

- SqliteDatabase: one file per world (WAL, synchronous=FULL): the embedded default.
- PostgresDatabase (memory/postgres.py): one schema per world in a shared PostgreSQL.

A write is one transaction, committed before `transaction()` returns.
"""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Iterable, Iterator, Sequence
from contextlib import AbstractContextManager, contextmanager
from pathlib import Path
from typing import Any, Literal, Protocol

from npc_brain.memory.checkpoints import Checkpointer
from npc_brain.memory.migrations import MIGRATIONS

Dialect = Literal["sqlite", "postgresql"]


class Cursor(Protocol):
    """What a statement returns (sqlite3's and psycopg's cursors both are one)."""

    @property
    def rowcount(self) -> int: ...

    def fetchone(self) -> Any: ...

    def fetchall(self) -> list[Any]: ...

    def __iter__(self) -> Iterator[Any]: ...


class Connection(Protocol):
    """One connection in a transaction or a read: '?' parameters, both dialects."""

    def execute(self, sql: str, parameters: Sequence[Any] = ..., /) -> Cursor: ...

    def executemany(self, sql: str, rows: Iterable[Sequence[Any]], /) -> Any: ...


class Database(Protocol):
    """A world's durable state, behind transactions."""

    name: str  # for messages: the file, or the schema and server

    def transaction(self) -> AbstractContextManager[Connection]:
        """One write transaction, committed when the block ends, rolled back if it raises."""
        ...

    def reading(self) -> AbstractContextManager[Connection]:
        """A connection to read from."""
        ...

    def backup_to(self, path: Path) -> None:
        """Writes the whole world, consistently, to a new SQLite file at `path`."""
        ...

    def restore_from(self, path: Path) -> None:
        """Replaces the whole world by the SQLite file's, in one transaction."""
        ...

    def close(self) -> None: ...


def dialect_of(db: Connection) -> Dialect:
    """Which SQL the connection speaks."""
    return "sqlite" if isinstance(db, sqlite3.Connection) else "postgresql"


class SqliteDatabase:
    """One SQLite file (WAL, synchronous=FULL, one writer at a time); the WAL is
    checkpointed off the writer's path (memory/checkpoints.py)."""

    def __init__(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self.path = path
        self.name = str(path)
        self._lock = threading.RLock()
        self._db = sqlite3.connect(path, check_same_thread=False, isolation_level=None)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=FULL")
        self._db.execute("PRAGMA wal_autocheckpoint=0")  # see memory/checkpoints.py
        self._db.execute("PRAGMA foreign_keys=ON")
        self._checkpoints = Checkpointer(path)
        self._migrate()

    def close(self) -> None:
        self._checkpoints.close()
        with self._lock:
            self._db.close()

    @contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        with self._lock:
            self._db.execute("BEGIN IMMEDIATE")
            try:
                yield self._db
            except BaseException:
                self._db.execute("ROLLBACK")
                raise
            self._db.execute("COMMIT")
            self._checkpoints.after_commit(self._db)

    @contextmanager
    def reading(self) -> Iterator[sqlite3.Connection]:
        with self._lock:
            yield self._db

    def _migrate(self) -> None:
        (version,) = self._db.execute("PRAGMA user_version").fetchone()
        for number, migration in enumerate(MIGRATIONS[version:], start=version + 1):
            with self.transaction() as db:
                migration(db)
                db.execute(f"PRAGMA user_version={number}")

    def backup_to(self, path: Path) -> None:
        source = sqlite3.connect(self.path, timeout=30)
        target = sqlite3.connect(path, isolation_level=None)
        try:
            source.backup(target)  # one step: one read transaction, consistent
            target.execute("PRAGMA journal_mode=DELETE")  # one file, no -wal beside it
        finally:
            target.close()
            source.close()

    def restore_from(self, path: Path) -> None:
        source = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)
        target = sqlite3.connect(self.path, timeout=30, isolation_level=None)
        try:
            target.execute("PRAGMA journal_mode=WAL")
            target.execute("PRAGMA synchronous=FULL")
            source.backup(target)  # one transaction: the old world or the new one
        finally:
            target.close()
            source.close()


def copied_tables(db: sqlite3.Connection) -> list[tuple[str, list[str]]]:
    """The tables of a SQLite world file and their columns, in creation order: what a
    copy to or from another backend carries (the full-text index is rebuilt by its
    triggers, and AUTOINCREMENT's counters travel as data)."""
    names = [
        name
        for (name,) in db.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND sql NOT LIKE"
            " 'CREATE VIRTUAL%' AND name NOT LIKE 'memories_fts%' AND name <> 'sqlite_sequence'"
            " ORDER BY rowid"
        )
    ]
    return [(name, [c[1] for c in db.execute(f'PRAGMA table_info("{name}")')]) for name in names]
