"""Nothing acknowledged is lost: SIGKILL a real server under a write load, restart it,
and after every restart find every acknowledged memory stored and retrievable, with the
retrieval index consistent with the store. One cycle ends with SIGTERM instead: it
drains the calls in flight and exits 0 (and saves an ANN index that later writes make
stale, which the next restarts must not use). On SQLite files and on a shared
PostgreSQL."""

from __future__ import annotations

import threading
import time
from pathlib import Path

import grpc
import pytest
from google.protobuf.timestamp_pb2 import Timestamp

from npc_brain.v1 import brain_pb2 as pb
from tests.integration.server_process import ServerProcess, stored_memories

pytestmark = pytest.mark.integration
CYCLES = 5  # server lives, each ended by SIGKILL under load, but one
SIGTERM_CYCLE = 2  # the one ended by SIGTERM instead
WRITERS = 3
ACKED_PER_CYCLE = 25  # the kill comes once this many more writes are acknowledged
EXACT_LIMIT = "100"  # streams beyond 100 memories use the FAISS index: exercise it
# Durability, not ranking: the paper's retrieval (relevance-led weights) finds each
# acknowledged text first; hybrid fuses in BM25, which ranks "event number 2" by its words.
SERVER_FLAGS = ("--exact-retrieval-limit", EXACT_LIMIT, "--retrieval", "paper")
T0 = 1_676_365_200
CYCLE_SECONDS = 100_000  # each cycle writes in its own game-time window


def _write_until_stopped(
    server: ServerProcess, writer: int, cycle: int, acked: dict[str, str], lock: threading.Lock
) -> None:
    for i in range(10_000):
        text = f"cycle {cycle} writer {writer} saw event number {i}"
        seconds = T0 + cycle * CYCLE_SECONDS + writer * 10_000 + i
        try:
            reply = server.stub.Perceive(
                pb.PerceiveRequest(
                    agent_id="isabella",
                    game_time=Timestamp(seconds=seconds),
                    observations=[pb.Observation(text=text, importance=1)],
                ),
                timeout=30,
            )
        except (grpc.RpcError, ValueError):  # ValueError: the kill closed the channel
            return  # the server died or is draining; this write was never acknowledged
        with lock:
            acked[reply.memory_ids[0]] = text


def _stored(server: ServerProcess, **window: Timestamp) -> dict[str, str]:
    return stored_memories(server.stub, "isabella", **window)


def _check(server: ServerProcess, acked: dict[str, str], cycles_done: int) -> int:
    """Every acknowledged memory is stored as written and retrievable; retrieval over a
    cycle's window returns exactly what the store holds there. Returns the lost count."""
    stored = _stored(server)
    lost = set(acked) - set(stored)
    assert all(stored[i] == text for i, text in acked.items() if i in stored)
    now = Timestamp(seconds=T0 + 10 * CYCLE_SECONDS)
    for memory_id, text in list(acked.items())[:: max(1, len(acked) // 8)]:
        top = server.stub.Retrieve(
            pb.RetrieveRequest(
                agent_id="isabella",
                game_time=now,
                query=text,
                k=1,
                weights=pb.Weights(recency=0.0001, importance=0.0001, relevance=1),
            )
        )
        assert top.memories[0].memory.memory_id == memory_id, text
    for cycle in range(cycles_done):
        window = {
            "created_after": Timestamp(seconds=T0 + cycle * CYCLE_SECONDS),
            "created_before": Timestamp(seconds=T0 + (cycle + 1) * CYCLE_SECONDS),
        }
        in_store = _stored(server, **window)
        assert 0 < len(in_store) <= 100
        found = server.stub.Retrieve(
            pb.RetrieveRequest(
                agent_id="isabella", game_time=now, query="saw event", k=100, **window
            )
        )
        assert {m.memory.memory_id for m in found.memories} == set(in_store), cycle
    return len(lost)


def _upsert_once_served(server: ServerProcess) -> None:
    """UpsertAgent, again while the world is UNAVAILABLE: on a shared PostgreSQL the
    killed server's lease must lapse before the restarted one takes the world."""
    deadline = time.monotonic() + 60
    while True:
        try:
            server.stub.UpsertAgent(
                pb.UpsertAgentRequest(
                    agent_id="isabella", persona=pb.Persona(name="Isabella Rodriguez")
                )
            )
            return
        except grpc.RpcError as error:
            if error.code() != grpc.StatusCode.UNAVAILABLE or time.monotonic() > deadline:
                raise
            time.sleep(0.1)


@pytest.mark.parametrize("backend", ["sqlite", "postgresql"])
def test_no_acknowledged_memory_is_lost_across_sigkill_restarts(
    tmp_path: Path, backend: str, request: pytest.FixtureRequest
) -> None:
    flags = SERVER_FLAGS
    if backend == "postgresql":
        url = request.getfixturevalue("postgres_url")
        flags += ("--store-url", url, "--lease-seconds", "2")
    acked: dict[str, str] = {}
    lock = threading.Lock()
    lost = 0
    for cycle in range(CYCLES):
        server = ServerProcess(tmp_path / "data", *flags)
        _upsert_once_served(server)
        lost += _check(server, acked, cycle)
        before = len(acked)
        writers = [
            threading.Thread(target=_write_until_stopped, args=(server, w, cycle, acked, lock))
            for w in range(WRITERS)
        ]
        for thread in writers:
            thread.start()
        while len(acked) < before + ACKED_PER_CYCLE:  # stop while writes are in flight
            threading.Event().wait(0.01)
        if cycle == SIGTERM_CYCLE:
            assert server.stop() == 0, "SIGTERM drains the calls in flight and exits 0"
        else:
            server.kill()
        for thread in writers:
            thread.join(timeout=60)

    server = ServerProcess(tmp_path / "data", *flags)
    try:
        _upsert_once_served(server)
        lost += _check(server, acked, CYCLES)
        print(
            f"backend={backend} cycles={CYCLES} sigkills={CYCLES - 1} sigterms=1 "
            f"acknowledged={len(acked)} lost={lost}"
        )
        assert lost == 0
        assert len(acked) > int(EXACT_LIMIT), "the stream outgrew exact retrieval"
    finally:
        assert server.stop() == 0


def test_a_sigterm_right_after_the_ready_line_drains_and_exits_0(tmp_path: Path) -> None:
    """The signal handlers are in place before the server says it serves."""
    for attempt in range(3):
        assert ServerProcess(tmp_path / str(attempt)).stop() == 0
