"""Save slots: snapshots of a world's store, taken while serving and loaded back whole.

A snapshot is one self-contained SQLite file, `data_dir/snapshots/<world_id>/<id>.sqlite3`,
whichever store the world lives in: SQLite's online backup from a connection of its own,
or a copy of a PostgreSQL world's tables in one repeatable-read transaction (both
consistent while writes go on, blocking none of them). Its label, save time and
source world live in its own `meta` table, so the file alone is the save: copied into
another data directory's `snapshots/<world_id>/` it lists and loads there.

Loading checks the file first (an SQLite database that passes `quick_check`, a schema
this server can migrate, the server's embedding model), then fences the open store (a
call still writing to the old world is refused with FAILED_PRECONDITION rather than
mixed into the loaded one), copies the snapshot into the live store in one transaction
(a crash leaves either the old world or the loaded one) and opens the
world afresh, so every agent's in-RAM state (streams, current actions, ANN indexes) is
rebuilt from the loaded store. Saved ANN indexes carry the store's memory version, which
the loaded store does not match unless they reflect exactly its memories.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import secrets
import sqlite3
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from npc_brain.errors import FailedPrecondition, NotFound
from npc_brain.memory.database import Database
from npc_brain.memory.migrations import MIGRATIONS
from npc_brain.mind.world import World, WorldRegistry
from npc_brain.validation import ID_PATTERN

log = logging.getLogger(__name__)
SUFFIX = ".sqlite3"
_LABEL, _SAVED_AT, _WORLD = "snapshot_label", "snapshot_saved_at", "snapshot_world_id"


@dataclass(frozen=True)
class SnapshotInfo:
    """A save slot: its id, the world it belongs to, its label and wall-clock save time."""

    snapshot_id: str
    world_id: str
    label: str
    saved_at: float  # Unix seconds, wall clock: metadata of the slot, not game time


class Snapshots:
    """Saves, lists and loads snapshots of the worlds of one data directory."""

    def __init__(self, data_dir: Path, worlds: WorldRegistry) -> None:
        self._dir = data_dir / "snapshots"
        self._worlds = worlds
        self._locks: dict[str, asyncio.Lock] = {}

    async def save(self, world: World, label: str) -> SnapshotInfo:
        """Snapshots the world now, consistently, while it keeps serving."""
        async with self._lock(world.world_id):
            folder = self._dir / world.world_id
            folder.mkdir(parents=True, exist_ok=True)
            info = SnapshotInfo(_new_id(), world.world_id, label, time.time())
            await asyncio.to_thread(_write_snapshot, world.store.database, folder, info)
            log.info("saved world %s as snapshot %s", world.world_id, info.snapshot_id)
            return info

    async def of_world(self, world_id: str) -> list[SnapshotInfo]:
        """The world's snapshots, oldest first (files that are not snapshots are skipped)."""
        return await asyncio.to_thread(self._list, world_id)

    async def load(self, world_id: str, snapshot_id: str) -> None:
        """Replaces the world's whole state by the snapshot's."""
        self._worlds.check_name(world_id)
        path = self._dir / world_id / f"{snapshot_id}{SUFFIX}"
        if not path.is_file():
            raise NotFound(f"world {world_id!r} has no snapshot {snapshot_id!r}")
        async with self._lock(world_id):
            await asyncio.to_thread(_check_snapshot, path, *self._worlds.embedding_model)
            old = self._worlds.get(world_id, create=True)
            old.store.fence(
                f"world {world_id!r} was loaded from a snapshot while this call ran; call again"
            )
            try:
                await asyncio.to_thread(_restore, path, old.store.database)
            except BaseException:
                old.store.unfence()
                raise
            self._worlds.reopen(world_id)
            log.info("loaded world %s from snapshot %s", world_id, snapshot_id)

    def _lock(self, world_id: str) -> asyncio.Lock:
        return self._locks.setdefault(world_id, asyncio.Lock())

    def _list(self, world_id: str) -> list[SnapshotInfo]:
        self._worlds.check_name(world_id)
        folder = self._dir / world_id
        found = []
        for path in sorted(folder.glob(f"*{SUFFIX}")) if folder.is_dir() else []:
            snapshot_id = path.name[: -len(SUFFIX)]
            if not ID_PATTERN.fullmatch(snapshot_id):
                continue
            try:
                with _read_only(path) as db:
                    meta = dict(db.execute("SELECT key, value FROM meta"))
            except sqlite3.Error:
                log.warning("%s is not a snapshot; skipped", path)
                continue
            saved_at = float(meta.get(_SAVED_AT, path.stat().st_mtime))
            found.append(SnapshotInfo(snapshot_id, world_id, meta.get(_LABEL, ""), saved_at))
        return sorted(found, key=lambda s: (s.saved_at, s.snapshot_id))


def _new_id() -> str:
    """A sortable id of safe characters: UTC save time plus randomness."""
    return time.strftime("%Y%m%dT%H%M%SZ", time.gmtime()) + "-" + secrets.token_hex(4)


@contextlib.contextmanager
def _read_only(path: Path) -> Iterator[sqlite3.Connection]:
    db = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)
    try:
        yield db
    finally:
        db.close()


def _write_snapshot(database: Database, folder: Path, info: SnapshotInfo) -> None:
    """Copies the store into `folder` under a temporary name, then renames it in place."""
    final = folder / f"{info.snapshot_id}{SUFFIX}"
    partial = folder / f".{info.snapshot_id}{SUFFIX}.part"  # not an id: never listed
    partial.unlink(missing_ok=True)
    database.backup_to(partial)
    target = sqlite3.connect(partial, isolation_level=None)
    try:
        target.executemany(
            "INSERT OR REPLACE INTO meta(key, value) VALUES (?, ?)",
            [(_LABEL, info.label), (_SAVED_AT, repr(info.saved_at)), (_WORLD, info.world_id)],
        )
    finally:
        target.close()
    _fsync(partial)
    os.replace(partial, final)
    with contextlib.suppress(OSError):  # directories cannot be opened on Windows
        _fsync(folder)


def _check_snapshot(path: Path, model_id: str, dimension: int) -> None:
    """FAILED_PRECONDITION unless the file is a snapshot this server can load."""
    try:
        with _read_only(path) as db:
            (check,) = db.execute("PRAGMA quick_check").fetchone()
            (version,) = db.execute("PRAGMA user_version").fetchone()
            meta = dict(db.execute("SELECT key, value FROM meta"))
    except sqlite3.Error as error:
        raise FailedPrecondition(f"{path.name} is not a readable snapshot ({error})") from None
    if check != "ok":
        raise FailedPrecondition(f"{path.name} is damaged ({check})")
    if version > len(MIGRATIONS):
        raise FailedPrecondition(f"{path.name} was saved by a newer npc-brain")
    saved_model = (meta.get("embed_model_id"), meta.get("embed_dimension"))
    if saved_model != (model_id, str(dimension)):
        raise FailedPrecondition(
            f"{path.name} was saved with embedding model {saved_model[0]} "
            f"({saved_model[1]}-d) but the server uses {model_id} ({dimension}-d)"
        )


def _restore(snapshot: Path, live: Database) -> None:
    """Copies the snapshot over the live store in one transaction, then drops the
    snapshot's own labels from the live world."""
    live.restore_from(snapshot)
    with live.transaction() as db:
        db.execute(f"DELETE FROM meta WHERE key IN ('{_LABEL}', '{_SAVED_AT}', '{_WORLD}')")


def _fsync(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
