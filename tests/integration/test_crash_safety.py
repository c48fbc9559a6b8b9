"""Nothing acknowledged is lost: SIGKILL a real server under a write load, restart it,
and find every acknowledged memory stored and retrievable."""

from __future__ import annotations

import threading
from pathlib import Path

import grpc
import pytest
from google.protobuf.timestamp_pb2 import Timestamp

from npc_brain.v1 import brain_pb2 as pb
from tests.integration.server_process import ServerProcess

pytestmark = pytest.mark.integration
CYCLES = 3
WRITERS = 3
T0 = 1_676_365_200


def _write_until_killed(
    server: ServerProcess, writer: int, cycle: int, acked: dict[str, str], lock: threading.Lock
) -> None:
    for i in range(10_000):
        text = f"cycle {cycle} writer {writer} saw event number {i}"
        try:
            reply = server.stub.Perceive(
                pb.PerceiveRequest(
                    agent_id="isabella",
                    game_time=Timestamp(seconds=T0 + i),
                    observations=[pb.Observation(text=text, importance=4)],
                ),
                timeout=30,
            )
        except grpc.RpcError:
            return  # the server died; this write was never acknowledged
        with lock:
            acked[reply.memory_ids[0]] = text


def test_no_acknowledged_memory_is_lost_across_sigkill_restarts(tmp_path: Path) -> None:
    acked: dict[str, str] = {}
    lock = threading.Lock()
    for cycle in range(CYCLES):
        server = ServerProcess(tmp_path / "data")
        server.stub.UpsertAgent(
            pb.UpsertAgentRequest(
                agent_id="isabella", persona=pb.Persona(name="Isabella Rodriguez")
            )
        )
        before = len(acked)
        writers = [
            threading.Thread(target=_write_until_killed, args=(server, w, cycle, acked, lock))
            for w in range(WRITERS)
        ]
        for thread in writers:
            thread.start()
        while len(acked) < before + 30:  # kill while writes are in flight
            threading.Event().wait(0.01)
        server.kill()
        for thread in writers:
            thread.join(timeout=60)

    server = ServerProcess(tmp_path / "data")
    try:
        stored: set[str] = set()
        token = ""
        while True:
            page = server.stub.ListMemories(
                pb.ListMemoriesRequest(agent_id="isabella", page_size=500, page_token=token)
            )
            stored.update(m.memory_id for m in page.memories)
            if not (token := page.next_page_token):
                break
        lost = set(acked) - stored
        print(f"cycles={CYCLES} acknowledged={len(acked)} lost={len(lost)}")
        assert not lost
        for memory_id, text in list(acked.items())[:: max(1, len(acked) // 20)]:
            top = server.stub.Retrieve(
                pb.RetrieveRequest(
                    agent_id="isabella",
                    game_time=Timestamp(seconds=T0 + 20_000),
                    query=text,
                    k=1,
                    weights=pb.Weights(recency=0.0001, importance=0.0001, relevance=1),
                )
            )
            assert top.memories[0].memory.memory_id == memory_id, text
    finally:
        assert server.stop() == 0
