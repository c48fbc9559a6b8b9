"""Over gRPC: Perceive answers before a slow embedding, and Retrieve still finds what it
acknowledged (it waits for the embedding)."""

from __future__ import annotations

import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from google.protobuf.timestamp_pb2 import Timestamp

from npc_brain.llm.fakes import GatedEmbedder, ScriptedChat
from npc_brain.v1 import brain_pb2 as pb
from tests.conftest import make_brain, start_server

T0 = Timestamp(seconds=1_676_365_200)


def test_an_acknowledged_perceive_is_retrieved_while_the_embedder_is_slow(tmp_path: Path) -> None:
    embedder = GatedEmbedder()
    running, stop = start_server(
        make_brain(tmp_path, ScriptedChat(default={"rating": 7}), embedder)
    )
    try:
        stub = running.stub
        stub.UpsertAgent(pb.UpsertAgentRequest(agent_id="klaus", persona=pb.Persona(name="Klaus")))
        seen = [pb.Observation(text="the library is on fire")]
        answer = stub.Perceive(
            pb.PerceiveRequest(agent_id="klaus", game_time=T0, observations=seen), timeout=10
        )
        assert not embedder.gate.is_set()  # acknowledged before the embedding
        assert embedder.started.wait(10)
        with ThreadPoolExecutor(1) as pool:
            asked = pb.RetrieveRequest(agent_id="klaus", game_time=T0, query="library fire")
            retrieving = pool.submit(stub.Retrieve, asked, timeout=30)
            time.sleep(0.3)
            assert not retrieving.done()  # waits for the acknowledged memory's embedding
            embedder.gate.set()
            (found,) = retrieving.result(timeout=30).memories
        assert found.memory.memory_id == answer.memory_ids[0]
        assert found.memory.importance == 7.0
    finally:
        embedder.gate.set()
        stop()
