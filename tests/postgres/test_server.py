"""The throwaway PostgreSQL harness itself: it serves, keeps committed data across a clean
stop, an immediate stop and a SIGKILL of the postmaster, and hands out separate databases."""

from __future__ import annotations

from collections.abc import Iterator

import psycopg
import pytest

from tests.postgres.server import TemporaryPostgres


@pytest.fixture
def own_server() -> Iterator[TemporaryPostgres]:
    """A server of the test's own, to stop and kill without troubling the session's."""
    with TemporaryPostgres() as server:
        yield server


def _write(url: str) -> None:
    with psycopg.connect(url) as conn:
        conn.execute("CREATE TABLE kept (n integer)")
        conn.execute("INSERT INTO kept VALUES (1), (2), (3)")


def _read(url: str) -> list[int]:
    with psycopg.connect(url) as conn:
        return [n for (n,) in conn.execute("SELECT n FROM kept ORDER BY n")]


def test_serves_queries(postgres_url: str) -> None:
    with psycopg.connect(postgres_url) as conn:
        assert conn.execute("SELECT 1").fetchone() == (1,)
        assert conn.execute("SHOW fsync").fetchone() == ("on",)
        assert conn.execute("SHOW max_connections").fetchone() == ("200",)


@pytest.mark.parametrize("mode", ["fast", "immediate"])
def test_data_survives_stop_and_start(own_server: TemporaryPostgres, mode: str) -> None:
    url, port = own_server.create_database("kept"), own_server.port
    _write(url)
    own_server.stop(mode)  # type: ignore[arg-type]
    assert not own_server.running
    with pytest.raises(psycopg.OperationalError):
        psycopg.connect(url, connect_timeout=2)
    own_server.start()
    assert own_server.port == port
    assert _read(url) == [1, 2, 3]


def test_kill_then_start_recovers_committed_data(own_server: TemporaryPostgres) -> None:
    url = own_server.create_database("kept")
    _write(url)
    open_conn = psycopg.connect(url)  # a client still connected when the server dies
    open_conn.execute("INSERT INTO kept VALUES (4)")  # never committed
    own_server.kill()
    assert not own_server.running
    own_server.start()
    assert _read(url) == [1, 2, 3]
    open_conn.close()


def test_fresh_databases_are_separate(postgres: TemporaryPostgres, postgres_url: str) -> None:
    _write(postgres_url)
    other = postgres.create_database("separate")
    try:
        with psycopg.connect(other) as conn:
            found = conn.execute("SELECT to_regclass('kept')").fetchone()
        assert found == (None,)
    finally:
        postgres.drop_database("separate")


def test_cleans_up_on_exit() -> None:
    with TemporaryPostgres() as server:
        directory = server.directory
        assert directory is not None and (directory / "data" / "PG_VERSION").exists()
    assert not server.running
    assert not directory.exists()
