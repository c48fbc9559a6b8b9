"""Worlds in a shared PostgreSQL, served by real `npc-brain serve` processes: a world is
served by one server at a time, the other names the owner; when the owner is SIGKILLed
the other takes the world over after its lease, with every acknowledged write; while
the database is down calls fail UNAVAILABLE (never INTERNAL) and health is NOT_SERVING,
and both recover by themselves when it is back."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from pathlib import Path

import grpc
import pytest
from google.protobuf.timestamp_pb2 import Timestamp
from grpc_health.v1 import health_pb2, health_pb2_grpc

from npc_brain.v1 import brain_pb2 as pb
from tests.integration.server_process import ServerProcess, stored_memories

pytestmark = pytest.mark.integration
LEASE_S = 2.0
T0 = 1_676_365_200


@pytest.fixture
def started() -> Iterator[list[ServerProcess]]:
    """The servers a test starts, killed at its end whatever happened."""
    servers: list[ServerProcess] = []
    yield servers
    for server in servers:
        if server.process.poll() is None:
            server.kill()


def _server(started: list[ServerProcess], data_dir: Path, *flags: str) -> ServerProcess:
    server = ServerProcess(data_dir, *flags)
    started.append(server)
    return server


def _shared(started: list[ServerProcess], data_dir: Path, url: str) -> ServerProcess:
    return _server(started, data_dir, "--store-url", url, "--lease-seconds", str(LEASE_S))


def _perceive(server: ServerProcess, text: str, seconds: int) -> pb.PerceiveResponse:
    return server.stub.Perceive(
        pb.PerceiveRequest(
            world_id="town",
            agent_id="isabella",
            game_time=Timestamp(seconds=seconds),
            observations=[pb.Observation(text=text, importance=1)],
        ),
        timeout=30,
    )


def _write_until_killed(server: ServerProcess, cycle: int, acked: dict[str, str]) -> None:
    for i in range(10_000):
        text = f"cycle {cycle} saw event number {i}"
        try:
            reply = _perceive(server, text, T0 + cycle * 100_000 + i)
        except (grpc.RpcError, ValueError):  # ValueError: the kill closed the channel
            return
        acked[reply.memory_ids[0]] = text


def _stored(server: ServerProcess) -> dict[str, str]:
    return stored_memories(server.stub, "isabella", "town")


def test_a_killed_owners_world_moves_to_the_other_server_with_every_acked_write(
    tmp_path: Path, postgres_url: str, started: list[ServerProcess]
) -> None:
    servers = [_shared(started, tmp_path / name, postgres_url) for name in ("a", "b")]
    servers[0].stub.UpsertAgent(
        pb.UpsertAgentRequest(
            world_id="town", agent_id="isabella", persona=pb.Persona(name="Isabella")
        )
    )
    with pytest.raises(grpc.RpcError) as refused:
        _stored(servers[1])
    assert refused.value.code() == grpc.StatusCode.UNAVAILABLE
    owner = dict(refused.value.trailing_metadata() or ())["npc-brain-owner"]
    assert owner == f"127.0.0.1:{servers[0].port}"

    acked: dict[str, str] = {}
    takeovers = []
    for cycle in range(3):
        owner_index = cycle % 2
        dying, heir = servers[owner_index], servers[1 - owner_index]
        writer = threading.Thread(target=_write_until_killed, args=(dying, cycle, acked))
        writer.start()
        before = len(acked)
        deadline = time.monotonic() + 60
        while len(acked) < before + 20:
            assert time.monotonic() < deadline and writer.is_alive(), "writes stopped"
            time.sleep(0.01)
        dying.kill()
        killed = time.monotonic()
        writer.join(timeout=60)
        while True:
            try:
                stored = _stored(heir)
                break
            except grpc.RpcError as error:
                assert error.code() == grpc.StatusCode.UNAVAILABLE, error
                assert time.monotonic() < killed + 60, "the world was never taken over"
                time.sleep(0.05)
        takeovers.append(time.monotonic() - killed)
        assert set(acked) <= set(stored), "an acknowledged write was lost"
        assert all(stored[i] == text for i, text in acked.items())
        servers[owner_index] = _shared(started, tmp_path / f"restarted{cycle}", postgres_url)
    print(f"acked={len(acked)} takeovers_s={[round(t, 2) for t in takeovers]} lost=0")
    assert max(takeovers) <= LEASE_S + 2
    for server in servers:
        assert server.stop() == 0


def test_a_database_outage_is_unavailable_then_heals_by_itself(
    tmp_path: Path, started: list[ServerProcess]
) -> None:
    from tests.postgres.server import TemporaryPostgres

    with TemporaryPostgres() as database:
        flags = ("--store-url", database.url, "--store-timeout-seconds", "1")
        server = _server(started, tmp_path, *flags)
        health = health_pb2_grpc.HealthStub(server.channel)
        server.stub.UpsertAgent(
            pb.UpsertAgentRequest(
                world_id="town", agent_id="isabella", persona=pb.Persona(name="Isabella")
            )
        )
        _perceive(server, "before the outage", T0)
        database.stop("fast")
        codes = set()
        deadline = time.monotonic() + 30
        while health.Check(health_pb2.HealthCheckRequest()).status != (
            health_pb2.HealthCheckResponse.NOT_SERVING
        ):
            assert time.monotonic() < deadline, "health never said NOT_SERVING"
            time.sleep(0.2)
        for i in range(3):
            with pytest.raises(grpc.RpcError) as failed:
                _perceive(server, f"during the outage {i}", T0 + 1 + i)
            codes.add(failed.value.code())
        assert codes == {grpc.StatusCode.UNAVAILABLE}
        database.start()
        deadline = time.monotonic() + 30
        while health.Check(health_pb2.HealthCheckRequest()).status != (
            health_pb2.HealthCheckResponse.SERVING
        ):
            assert time.monotonic() < deadline, "health never came back to SERVING"
            time.sleep(0.2)
        _perceive(server, "after the outage", T0 + 10)
        assert sorted(_stored(server).values()) == ["after the outage", "before the outage"]
        assert server.stop() == 0
