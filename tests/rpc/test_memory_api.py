"""The memory stream's API over a real gRPC server on port 0 (fake models)."""

from __future__ import annotations

from pathlib import Path

import grpc
import pytest
from google.protobuf.timestamp_pb2 import Timestamp

from npc_brain.llm.fakes import HashingEmbedder
from npc_brain.v1 import brain_pb2 as pb
from tests.conftest import RunningServer, make_brain, start_server

T0 = 1_676_365_200


def at(hours: float) -> Timestamp:
    return Timestamp(seconds=int(T0 + hours * 3600))


def _agent(server: RunningServer) -> None:
    server.stub.UpsertAgent(
        pb.UpsertAgentRequest(agent_id="isabella", persona=pb.Persona(name="Isabella Rodriguez"))
    )


def test_authored_memories_are_listed_paged_filtered_and_forgotten(
    fake_server: RunningServer,
) -> None:
    _agent(fake_server)
    stub = fake_server.stub
    added = [
        stub.AddMemory(
            pb.AddMemoryRequest(
                agent_id="isabella",
                game_time=at(i),
                kind=pb.OBSERVATION,
                observation=pb.Observation(text=f"backstory {i}", importance=7),
            )
        )
        for i in range(3)
    ]
    assert added[0].source.kind == pb.AUTHOR and added[0].importance == 7
    page = stub.ListMemories(pb.ListMemoriesRequest(agent_id="isabella", page_size=2))
    rest = stub.ListMemories(
        pb.ListMemoriesRequest(agent_id="isabella", page_size=2, page_token=page.next_page_token)
    )
    assert [m.memory_id for m in [*page.memories, *rest.memories]] == [m.memory_id for m in added]
    assert rest.next_page_token == ""
    window = stub.ListMemories(
        pb.ListMemoriesRequest(agent_id="isabella", created_after=at(1), created_before=at(2))
    )
    assert [m.description for m in window.memories] == ["backstory 1"]

    stub.ForgetMemory(pb.ForgetMemoryRequest(agent_id="isabella", memory_id=added[1].memory_id))
    with pytest.raises(grpc.RpcError) as error:
        stub.ForgetMemory(pb.ForgetMemoryRequest(agent_id="isabella", memory_id=added[1].memory_id))
    assert error.value.code() == grpc.StatusCode.NOT_FOUND
    found = stub.Retrieve(
        pb.RetrieveRequest(agent_id="isabella", game_time=at(5), query="backstory 1", k=10)
    ).memories
    assert added[1].memory_id not in {m.memory.memory_id for m in found}


def test_expired_memories_are_not_recalled(fake_server: RunningServer) -> None:
    _agent(fake_server)
    fake_server.stub.Perceive(
        pb.PerceiveRequest(
            agent_id="isabella",
            game_time=at(0),
            observations=[pb.Observation(text="the stove is on", importance=3, expires=at(1))],
        )
    )

    def recall(hours: float) -> int:
        return len(
            fake_server.stub.Retrieve(
                pb.RetrieveRequest(agent_id="isabella", game_time=at(hours), query="stove")
            ).memories
        )

    assert (recall(0.5), recall(1)) == (1, 0)


@pytest.mark.parametrize(
    ("request_", "field"),
    [
        (
            pb.AddMemoryRequest(
                agent_id="isabella", game_time=at(0), observation=pb.Observation(text="x")
            ),
            "kind",
        ),
        (
            pb.AddMemoryRequest(
                agent_id="isabella", kind=pb.OBSERVATION, observation=pb.Observation(text="x")
            ),
            "game_time",
        ),
        (
            pb.AddMemoryRequest(
                agent_id="isabella",
                game_time=at(0),
                kind=pb.OBSERVATION,
                observation=pb.Observation(text=""),
            ),
            "observation.text",  # the request's field is `observation`
        ),
        (pb.ListMemoriesRequest(agent_id="isabella", page_token="zz"), "page_token"),
        (pb.ListMemoriesRequest(agent_id="isabella", page_size=501), "page_size"),
        (pb.ForgetMemoryRequest(agent_id="isabella", memory_id="m1"), "memory_id"),
    ],
)
def test_bad_memory_requests_name_the_field(
    fake_server: RunningServer, request_: object, field: str
) -> None:
    _agent(fake_server)
    method = {
        pb.AddMemoryRequest: "AddMemory",
        pb.ListMemoriesRequest: "ListMemories",
        pb.ForgetMemoryRequest: "ForgetMemory",
    }[type(request_)]
    with pytest.raises(grpc.RpcError) as error:
        getattr(fake_server.stub, method)(request_)
    assert error.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert error.value.details().startswith(field + ":")


def test_a_world_refuses_another_embedding_model_and_stays_intact(tmp_path: Path) -> None:
    first, stop = start_server(make_brain(tmp_path, embedder=HashingEmbedder(64)))
    _agent(first)
    first.stub.Perceive(
        pb.PerceiveRequest(
            agent_id="isabella",
            game_time=at(0),
            observations=[pb.Observation(text="hi", importance=2)],
        )
    )
    stop()
    other, stop = start_server(make_brain(tmp_path, embedder=HashingEmbedder(32)))
    with pytest.raises(grpc.RpcError) as error:
        other.stub.Retrieve(pb.RetrieveRequest(agent_id="isabella", game_time=at(1), query="hi"))
    assert error.value.code() == grpc.StatusCode.FAILED_PRECONDITION
    assert "was built with embedding model" in error.value.details()
    stop()
    again, stop = start_server(make_brain(tmp_path, embedder=HashingEmbedder(64)))
    found = again.stub.Retrieve(
        pb.RetrieveRequest(agent_id="isabella", game_time=at(1), query="hi")
    )
    assert [m.memory.description for m in found.memories] == ["hi"]
    stop()
