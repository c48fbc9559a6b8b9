"""WAL checkpoints off the writer's path.

SQLite checkpoints a WAL database in the thread that commits, once the log passes 1000
pages: every ~20th Tick of 100 agents paid ~10 ms more for it (commit p99 9-22 ms
against 1-2 ms here). A store's connection turns that off (`wal_autocheckpoint=0`) and
asks a Checkpointer after each commit instead: a PASSIVE checkpoint then runs on a
thread shared by every store, from a connection of its own, and never blocks a writer.
It runs at most every INTERVAL_S, right after a commit, so it usually finishes before
the next commit begins: the next writer then restarts the log from its start and the
WAL stays small (a checkpoint after every commit cost one more fsync each). Writers
that never pause would keep it from restarting: past WAL_LIMIT_BYTES the committing
thread checkpoints and truncates the log itself, as SQLite would have.

Crash safety is SQLite's: a checkpoint interrupted at any point leaves the WAL valid.
"""

from __future__ import annotations

import logging
import sqlite3
import threading
import time
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path

log = logging.getLogger(__name__)

INTERVAL_S = 0.1  # wall time: housekeeping of the file, not of the game
WAL_LIMIT_BYTES = 64 * 1024 * 1024
_THREAD = ThreadPoolExecutor(max_workers=1, thread_name_prefix="wal-checkpoint")


class Checkpointer:
    """Checkpoints one database's WAL in the background after commits: one run at a
    time, at most one every INTERVAL_S (a commit in between waits for the next one)."""

    def __init__(self, path: Path) -> None:
        self._uri = f"{path.resolve().as_uri()}?mode=rw"  # never creates a missing file
        self._wal = Path(f"{path}-wal")
        self._lock = threading.Lock()
        self._running: Future[None] | None = None
        self._last = -INTERVAL_S
        self._closed = False

    def after_commit(self, db: sqlite3.Connection) -> None:
        """Called by the store's writer right after a commit, on its connection."""
        if _size(self._wal) > WAL_LIMIT_BYTES:
            db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
            return
        now = time.monotonic()
        with self._lock:
            if self._closed or self._running is not None or now - self._last < INTERVAL_S:
                return
            self._last = now
            self._running = _THREAD.submit(self._run)

    def close(self) -> None:
        """Stops asking for checkpoints and waits for the one running (closing the
        store's own connection then checkpoints what is left)."""
        with self._lock:
            self._closed = True
        self.wait()

    def wait(self) -> None:
        """Returns once no checkpoint of this database runs."""
        with self._lock:
            running = self._running
        if running is not None:
            running.result()

    def _run(self) -> None:
        try:
            _checkpoint(self._uri)
        finally:
            with self._lock:
                self._running = None


def _size(path: Path) -> int:
    try:
        return path.stat().st_size
    except OSError:
        return 0


def _checkpoint(uri: str) -> None:
    try:
        db = sqlite3.connect(uri, uri=True, isolation_level=None)
        try:
            db.execute("PRAGMA synchronous=FULL")
            db.execute("PRAGMA wal_checkpoint(PASSIVE)")
        finally:
            db.close()
    except (sqlite3.Error, OSError) as error:  # the next commit asks again; closing checkpoints too
        log.debug("WAL checkpoint of %s skipped: %s", uri, error)
