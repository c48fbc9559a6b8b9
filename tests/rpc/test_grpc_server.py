"""A real gRPC server on port 0 (fake models): status codes, streaming, health, reflection."""

from __future__ import annotations

import re
from pathlib import Path

import grpc
import pytest
from google.protobuf.timestamp_pb2 import Timestamp
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection_pb2, reflection_pb2_grpc

from npc_brain.llm.fakes import ScriptedChat
from npc_brain.server.servicer import BrainServicer
from npc_brain.v1 import brain_pb2 as pb
from npc_brain.v1 import brain_pb2_grpc as pb_grpc
from tests.conftest import RunningServer

REPO = Path(__file__).resolve().parents[2]
T0 = Timestamp(seconds=1_676_365_200)
ISABELLA = pb.Persona(name="Isabella Rodriguez", home_address="ville:home")


PROTO = REPO / "proto" / "npc_brain" / "v1" / "brain.proto"


def _proto_rpcs() -> set[str]:
    """The RPCs of the Brain service as the proto declares them."""
    rpcs = set(re.findall(r"^\s*rpc (\w+)\(", PROTO.read_text(encoding="utf-8"), re.MULTILINE))
    assert rpcs, f"no rpc found in {PROTO.relative_to(REPO)}"
    return rpcs


def _upsert(server: RunningServer) -> None:
    server.stub.UpsertAgent(pb.UpsertAgentRequest(agent_id="isabella", persona=ISABELLA))


def test_health_check_answers_serving(fake_server: RunningServer) -> None:
    health = health_pb2_grpc.HealthStub(fake_server.channel)
    for service in ("", "npc_brain.v1.Brain"):
        reply = health.Check(health_pb2.HealthCheckRequest(service=service))
        assert reply.status == health_pb2.HealthCheckResponse.SERVING


def test_the_servicer_implements_every_rpc_of_the_proto() -> None:
    generated = {m.name for m in pb.DESCRIPTOR.services_by_name["Brain"].methods}
    assert generated == _proto_rpcs(), "npc_brain/v1 is stale: run `make proto`"
    unimplemented = {
        name
        for name in _proto_rpcs()
        if getattr(BrainServicer, name) is getattr(pb_grpc.BrainServicer, name)
    }
    assert not unimplemented, f"BrainServicer lacks {sorted(unimplemented)}"


def test_reflection_lists_the_brain_with_every_rpc_of_the_proto(
    fake_server: RunningServer,
) -> None:
    stub = reflection_pb2_grpc.ServerReflectionStub(fake_server.channel)
    requests = [
        reflection_pb2.ServerReflectionRequest(list_services=""),
        reflection_pb2.ServerReflectionRequest(file_containing_symbol="npc_brain.v1.Brain"),
    ]
    listed, described = list(stub.ServerReflectionInfo(iter(requests)))
    assert "npc_brain.v1.Brain" in {s.name for s in listed.list_services_response.service}
    from google.protobuf import descriptor_pb2

    file = descriptor_pb2.FileDescriptorProto.FromString(
        described.file_descriptor_response.file_descriptor_proto[0]
    )
    methods = {m.name for m in file.service[0].method}
    assert methods == _proto_rpcs()


def test_upsert_is_idempotent_and_get_returns_the_agent(fake_server: RunningServer) -> None:
    _upsert(fake_server)
    _upsert(fake_server)
    agent = fake_server.stub.GetAgent(pb.GetAgentRequest(agent_id="isabella"))
    assert agent.persona == ISABELLA and agent.world_id == "default"
    assert agent.reflection_enabled and agent.planning_enabled


@pytest.mark.parametrize(
    ("call", "field"),
    [
        (lambda s: s.GetAgent(pb.GetAgentRequest(agent_id="")), "agent_id"),
        (
            lambda s: s.UpsertAgent(pb.UpsertAgentRequest(agent_id="a", persona=pb.Persona())),
            "persona.name",
        ),
        (lambda s: s.Perceive(pb.PerceiveRequest(agent_id="isabella")), "game_time"),
        (
            lambda s: s.Perceive(
                pb.PerceiveRequest(
                    agent_id="isabella",
                    game_time=T0,
                    observations=[pb.Observation(text="x", source=pb.Source(kind=42))],
                )
            ),
            "observations[0].source.kind",
        ),
        (
            lambda s: s.Retrieve(
                pb.RetrieveRequest(agent_id="isabella", game_time=T0, query="q", k=1000)
            ),
            "k",
        ),
        (
            lambda s: s.Act(pb.ActRequest(agent_id="isabella", game_time=T0, max_wait_ms=-1)),
            "max_wait_ms",
        ),
        (lambda s: s.GetAgent(pb.GetAgentRequest(world_id="a/b", agent_id="x")), "world_id"),
    ],
)
def test_bad_input_is_invalid_argument_naming_the_field(
    fake_server: RunningServer,
    call,
    field: str,  # type: ignore[no-untyped-def]
) -> None:
    _upsert(fake_server)
    with pytest.raises(grpc.RpcError) as error:
        call(fake_server.stub)
    assert error.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert error.value.details().startswith(field + ":")


def test_unknown_agent_is_not_found(fake_server: RunningServer) -> None:
    with pytest.raises(grpc.RpcError) as error:
        fake_server.stub.Act(pb.ActRequest(agent_id="ghost", game_time=T0))
    assert error.value.code() == grpc.StatusCode.NOT_FOUND


def test_each_domain_error_has_its_status() -> None:
    from npc_brain import errors
    from npc_brain.server.status import status_of

    assert status_of(errors.Unimplemented("x")) == grpc.StatusCode.UNIMPLEMENTED
    assert status_of(errors.DeadlineExceeded("x")) == grpc.StatusCode.DEADLINE_EXCEEDED
    assert status_of(errors.ResourceExhausted("x")) == grpc.StatusCode.RESOURCE_EXHAUSTED
    assert status_of(errors.InvalidArgument("f", "x")) == grpc.StatusCode.INVALID_ARGUMENT


def test_perceive_retrieve_converse_over_the_wire(
    fake_server: RunningServer, chat: ScriptedChat
) -> None:
    _upsert(fake_server)
    chat.enqueue({"rating": 8})
    ids = fake_server.stub.Perceive(
        pb.PerceiveRequest(
            agent_id="isabella",
            game_time=T0,
            observations=[
                pb.Observation(text="Valentine's Day party at Hobbs Cafe"),
                pb.Observation(text="the kettle is boiling", importance=2),
            ],
        )
    ).memory_ids
    assert len(ids) == 2
    found = fake_server.stub.Retrieve(
        pb.RetrieveRequest(agent_id="isabella", game_time=T0, query="Valentine's Day party", k=2)
    ).memories
    assert found[0].memory.memory_id == ids[0]
    assert found[0].memory.importance == 8 and found[0].relevance == 1.0
    events = list(
        fake_server.stub.Converse(
            pb.ConverseRequest(
                agent_id="isabella",
                game_time=T0,
                speaker_id="player",
                utterance="Goodbye!",
            )
        )
    )
    assert [e.WhichOneof("event") for e in events][-1] == "final"
    final = events[-1].final
    assert "".join(e.token for e in events[:-1]) == final.text  # what streamed is what stays
    assert final.text == "Goodbye! Take care." and final.act == "farewell"
    assert final.end_conversation  # a farewell ends the conversation, without a model call
    stats = fake_server.stub.GetStats(pb.GetStatsRequest(agent_id="isabella"))
    assert dict(stats.calls_by_kind) == {"importance": 2}


def test_tick_perceives_and_acts_for_many_agents(fake_server: RunningServer) -> None:
    _upsert(fake_server)
    fake_server.stub.UpsertAgent(
        pb.UpsertAgentRequest(
            agent_id="klaus", persona=pb.Persona(name="Klaus", home_address="ville:dorm")
        )
    )
    reply = fake_server.stub.Tick(
        pb.TickRequest(
            game_time=T0,
            max_wait_ms=5000,
            agents=[
                pb.AgentTick(
                    agent_id="isabella",
                    observations=[pb.Observation(text="Klaus waves", importance=3)],
                ),
                pb.AgentTick(agent_id="klaus", visible_addresses=["ville:cafe"]),
            ],
        )
    )
    assert [r.agent_id for r in reply.results] == ["isabella", "klaus"]
    assert len(reply.results[0].memory_ids) == 1
    assert reply.results[1].action.address in {"ville:dorm", "ville:cafe"}
