"""A throwaway real PostgreSQL server for tests and benches: initdb into a temporary
directory, one postmaster on a free 127.0.0.1 port (trust auth, superuser `npc`, fsync on),
and everything removed on exit. As root it runs PostgreSQL as the `postgres` user (the
server refuses root); otherwise as whoever runs it. `sh tests/postgres/setup.sh` installs
PostgreSQL where it is missing."""

from __future__ import annotations

import os
import pwd
import re
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from pathlib import Path
from types import TracebackType
from typing import Any, Literal
from urllib.parse import quote

import psycopg
from psycopg import sql

USER = "npc"
SETUP = "sh tests/postgres/setup.sh"
STOP_SIGNALS = {"smart": signal.SIGTERM, "fast": signal.SIGINT, "immediate": signal.SIGQUIT}


def find_bin_dir() -> Path:
    """The newest /usr/lib/postgresql/<version>/bin, else the directory of `initdb` on PATH."""
    versions = [p for p in Path("/usr/lib/postgresql").glob("*/bin") if (p / "initdb").exists()]
    numbered = [p for p in versions if p.parent.name.isdigit()]
    if numbered:
        return max(numbered, key=lambda p: int(p.parent.name))
    found = shutil.which("initdb")
    if found and (Path(found).resolve().parent / "postgres").exists():
        return Path(found).resolve().parent
    raise RuntimeError(f"PostgreSQL (initdb, postgres) is not installed: run `{SETUP}`")


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _live_pids_in_group(pgid: int) -> list[int]:
    """Processes (zombies aside) in process group `pgid`: the postmaster's children."""
    pids = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            continue
        if fields[0] != "Z" and int(fields[2]) == pgid:
            pids.append(int(stat.parent.name))
    return pids


class TemporaryPostgres:
    """A real PostgreSQL server in a temporary directory; use it as a context manager."""

    def __init__(self, timeout: float = 30.0) -> None:
        self.bin_dir = find_bin_dir()
        self.timeout = timeout
        self.port = _free_port()
        self.directory: Path | None = None
        self._proc: subprocess.Popen[bytes] | None = None
        self._as: dict[str, Any] = {}
        if os.geteuid() == 0:
            try:
                entry = pwd.getpwnam("postgres")
            except KeyError:
                raise RuntimeError(
                    f"running as root, but there is no `postgres` user to run PostgreSQL as:"
                    f" run `{SETUP}` (or run the tests as another user)"
                ) from None
            self._as = {"user": entry.pw_uid, "group": entry.pw_gid, "extra_groups": []}

    @property
    def url(self) -> str:
        return self.url_for("postgres")

    def url_for(self, database: str) -> str:
        return f"postgresql://{USER}@127.0.0.1:{self.port}/{quote(database, safe='')}"

    @property
    def data_dir(self) -> Path:
        assert self.directory is not None, "the server was never set up"
        return self.directory / "data"

    @property
    def running(self) -> bool:
        return self._proc is not None and self._proc.poll() is None

    def __enter__(self) -> TemporaryPostgres:
        try:
            self._init()
            self.start()
        except BaseException:
            self.close()
            raise
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()

    def _init(self) -> None:
        self.directory = Path(tempfile.mkdtemp(prefix="npc-postgres-"))
        if self._as:
            os.chown(self.directory, self._as["user"], self._as["group"])
        initdb = [str(self.bin_dir / "initdb"), "-D", str(self.data_dir), "-U", USER]
        initdb += ["-A", "trust", "--encoding", "UTF8", "--locale", "C", "--no-sync"]
        done = subprocess.run(initdb, cwd=self.directory, capture_output=True, **self._as)
        if done.returncode:
            raise RuntimeError(f"initdb failed:\n{done.stdout.decode()}{done.stderr.decode()}")
        settings = {
            "listen_addresses": "'127.0.0.1'",
            "port": str(self.port),
            "unix_socket_directories": f"'{self.directory}'",
            "max_connections": "200",
            "fsync": "on",
        }
        with (self.data_dir / "postgresql.conf").open("a") as conf:
            conf.write("\n# tests/postgres/server.py\n")
            conf.writelines(f"{name} = {value}\n" for name, value in settings.items())

    def start(self) -> None:
        """Starts the postmaster (again: same port, same data) and waits for connections."""
        assert self.directory is not None, "use TemporaryPostgres as a context manager"
        if self.running:
            return
        with (self.directory / "postgres.log").open("ab") as log:
            self._proc = subprocess.Popen(
                [str(self.bin_dir / "postgres"), "-D", str(self.data_dir)],
                cwd=self.directory,
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,  # its own process group: the postmaster and children
                **self._as,
            )
        deadline = time.monotonic() + self.timeout
        while True:
            if self._proc.poll() is not None:
                raise RuntimeError(f"PostgreSQL exited at start:\n{self.log_tail()}")
            try:
                psycopg.connect(self.url, connect_timeout=2).close()
                return
            except psycopg.OperationalError:
                if time.monotonic() > deadline:
                    raise RuntimeError(
                        f"PostgreSQL accepted no connection in {self.timeout:.0f} s:\n"
                        f"{self.log_tail()}"
                    ) from None
                time.sleep(0.05)

    def stop(self, mode: Literal["smart", "fast", "immediate"] = "fast") -> None:
        """Shuts the server down: `fast` (a clean checkpoint) or `immediate` (no checkpoint;
        the next start recovers from WAL)."""
        if self.running:
            assert self._proc is not None
            self._proc.send_signal(STOP_SIGNALS[mode])
            self._reap()

    def kill(self) -> None:
        """SIGKILLs the postmaster (a crash); its children notice and exit, then start()
        recovers from WAL."""
        if self.running:
            assert self._proc is not None
            self._proc.kill()
            self._reap()

    def _reap(self) -> None:
        assert self._proc is not None
        pgid = self._proc.pid
        try:
            self._proc.wait(self.timeout)
        except subprocess.TimeoutExpired:
            self._proc.kill()
            self._proc.wait()
        deadline = time.monotonic() + self.timeout
        while _live_pids_in_group(pgid):
            if time.monotonic() > deadline:
                os.killpg(pgid, signal.SIGKILL)
            time.sleep(0.02)

    def close(self) -> None:
        """Stops the server (immediately: nothing is kept) and removes its directory."""
        try:
            self.stop("immediate")
        finally:
            if self.directory is not None:
                shutil.rmtree(self.directory, ignore_errors=True)
                self.directory = None

    def log_tail(self, lines: int = 30) -> str:
        log = self.directory / "postgres.log" if self.directory else None
        if log is None or not log.exists():
            return ""
        return "\n".join(log.read_text(errors="replace").splitlines()[-lines:])

    def create_database(self, name: str) -> str:
        """Creates a fresh, empty database and returns its URL."""
        with psycopg.connect(self.url, autocommit=True) as conn:
            conn.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))
        return self.url_for(name)

    def drop_database(self, name: str) -> None:
        """Drops a database, closing any connection still open to it."""
        with psycopg.connect(self.url, autocommit=True) as conn:
            conn.execute(
                sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name))
            )


def database_name(text: str, serial: int) -> str:
    """A database name (under PostgreSQL's 63 bytes) from a test's name and a serial."""
    stem = re.sub(r"[^a-z0-9_]+", "_", text.lower()).strip("_")[:48] or "db"
    return f"{stem}_{serial}"
