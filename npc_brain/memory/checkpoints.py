"""WAL checkpoints off the writer's path, as far as the writers allow.

SQLite checkpoints a WAL database in the thread that commits, once the log passes 1000
pages: every ~20th Tick of 100 agents paid ~10 ms more for it (commit p99 9-22 ms
against 1-2 ms here). A store's connection turns that off (`wal_autocheckpoint=0`) and
tells a Checkpointer after each commit instead. At most every INTERVAL_S, a PASSIVE
checkpoint then runs on a thread shared by every store, from a connection of its own,
and never blocks a writer. When it ends before the next commit begins (a game's Ticks
leave such gaps), the next writer restarts the log from its start and the WAL stays
small.

Writers that never pause keep the log from restarting, since a commit always lands
during the checkpoint. Once a checkpoint finds more than RESTART_FRAMES in the log, the
next commit checkpoints in its own thread, where no writer can land: by then the
background has copied all but the latest frames, so it costs less than SQLite's own
checkpoint, and the log restarts.

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
RESTART_FRAMES = 1000  # SQLite's own checkpoint threshold (pages)
_THREAD = ThreadPoolExecutor(max_workers=1, thread_name_prefix="wal-checkpoint")


class Checkpointer:
    """Checkpoints one database's WAL after its commits: in the background, one run at a
    time and at most one every INTERVAL_S, or in the committing thread when the log has
    grown past RESTART_FRAMES (see the module docstring)."""

    def __init__(self, path: Path) -> None:
        self._uri = f"{path.resolve().as_uri()}?mode=rw"  # never creates a missing file
        self._lock = threading.Lock()
        self._running: Future[None] | None = None
        self._last = -INTERVAL_S
        self._restart_due = False
        self._closed = False

    def after_commit(self, db: sqlite3.Connection) -> None:
        """Called by the store's writer right after a commit, with its connection."""
        if self._restart_due:
            try:
                self._restart_due = not _fully_copied(_checkpoint(db))
            except sqlite3.Error as error:  # the commit stands; the next one tries again
                log.warning("WAL checkpoint after a commit failed: %s", error)
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
        """Returns once no background checkpoint of this database runs."""
        with self._lock:
            running = self._running
        if running is not None:
            running.result()

    def _run(self) -> None:
        try:
            db = sqlite3.connect(self._uri, uri=True, isolation_level=None)
            try:
                db.execute("PRAGMA synchronous=FULL")
                busy, frames, _ = _checkpoint(db)
            finally:
                db.close()
            if not busy and frames > RESTART_FRAMES:
                self._restart_due = True
        except (sqlite3.Error, OSError) as error:  # the next commit asks again
            log.debug("WAL checkpoint of %s skipped: %s", self._uri, error)
        finally:
            with self._lock:
                self._running = None


def _checkpoint(db: sqlite3.Connection) -> tuple[int, int, int]:
    """A PASSIVE checkpoint: (busy, frames in the log, frames copied)."""
    busy, frames, copied = db.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchone()
    return int(busy), int(frames), int(copied)


def _fully_copied(outcome: tuple[int, int, int]) -> bool:
    busy, frames, copied = outcome
    return not busy and frames == copied
