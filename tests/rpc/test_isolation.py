"""Worlds are separate stores: nothing in one world can be read or changed through
another's id, and asking about a world that does not exist creates nothing."""

from __future__ import annotations

import grpc
import pytest
from google.protobuf.timestamp_pb2 import Timestamp

from npc_brain.v1 import brain_pb2 as pb
from tests.conftest import RunningServer

T0 = Timestamp(seconds=1_676_275_200)


def _agent(server: RunningServer, world: str, agent: str) -> None:
    persona = pb.Persona(name=agent.title(), home_address=f"{world}:home")
    server.stub.UpsertAgent(pb.UpsertAgentRequest(world_id=world, agent_id=agent, persona=persona))


def _perceive(server: RunningServer, world: str, *texts: str) -> list[str]:
    request = pb.PerceiveRequest(
        world_id=world,
        agent_id="isabella",
        game_time=T0,
        observations=[pb.Observation(text=t, importance=5) for t in texts],
    )
    return list(server.stub.Perceive(request).memory_ids)


def _texts(server: RunningServer, world: str, agent: str = "isabella") -> set[str]:
    page = server.stub.ListMemories(
        pb.ListMemoriesRequest(world_id=world, agent_id=agent, page_size=500)
    )
    return {m.description for m in page.memories}


def _status(call: object) -> grpc.StatusCode:
    with pytest.raises(grpc.RpcError) as error:
        call()  # type: ignore[operator]
    return error.value.code()  # type: ignore[no-any-return]


def test_same_agent_id_in_two_worlds_shares_nothing(fake_server: RunningServer) -> None:
    for world in ("town", "castle"):
        _agent(fake_server, world, "isabella")
    town_ids = _perceive(fake_server, "town", "the town secret", "the mayor lied", "gold is hidden")
    _perceive(fake_server, "castle", "the castle is quiet")
    _agent(fake_server, "town", "klaus")

    assert _texts(fake_server, "castle") == {"the castle is quiet"}
    found = fake_server.stub.Retrieve(
        pb.RetrieveRequest(world_id="castle", agent_id="isabella", game_time=T0, query="secret")
    )
    assert {m.memory.description for m in found.memories} == {"the castle is quiet"}
    stub = fake_server.stub
    # memory ids are per world: town's third memory is no memory in the castle
    forget = pb.ForgetMemoryRequest(world_id="castle", agent_id="isabella", memory_id=town_ids[2])
    assert _status(lambda: stub.ForgetMemory(forget)) == grpc.StatusCode.NOT_FOUND
    assert "gold is hidden" in _texts(fake_server, "town")
    for call in (
        lambda: stub.GetAgent(pb.GetAgentRequest(world_id="castle", agent_id="klaus")),
        lambda: stub.Act(pb.ActRequest(world_id="castle", agent_id="klaus", game_time=T0)),
    ):
        assert _status(call) == grpc.StatusCode.NOT_FOUND
    # nor can one agent forget another's memory in the same world
    other = pb.ForgetMemoryRequest(world_id="town", agent_id="klaus", memory_id=town_ids[0])
    assert _status(lambda: stub.ForgetMemory(other)) == grpc.StatusCode.NOT_FOUND
    assert _texts(fake_server, "town") == {"the town secret", "the mayor lied", "gold is hidden"}


def test_unknown_worlds_are_not_found_and_not_created(fake_server: RunningServer) -> None:
    stub = fake_server.stub
    for call in (
        lambda: stub.GetAgent(pb.GetAgentRequest(world_id="nowhere", agent_id="isabella")),
        lambda: stub.ListMemories(pb.ListMemoriesRequest(world_id="nowhere", agent_id="a")),
        lambda: stub.SaveWorld(pb.SaveWorldRequest(world_id="nowhere")),
    ):
        assert _status(call) == grpc.StatusCode.NOT_FOUND
    worlds = fake_server.brain.settings.data_dir / "worlds"
    assert not worlds.exists() or not list(worlds.glob("nowhere*"))


def test_world_ids_differing_only_in_case_are_refused(fake_server: RunningServer) -> None:
    """On Windows and macOS "Town" and "town" would be one file: one world readable
    through the other's id. The second is refused everywhere."""
    _agent(fake_server, "Town", "isabella")
    stub = fake_server.stub
    for call in (
        lambda: _agent(fake_server, "town", "isabella"),
        lambda: stub.GetAgent(pb.GetAgentRequest(world_id="TOWN", agent_id="isabella")),
        lambda: stub.ListSnapshots(pb.ListSnapshotsRequest(world_id="town")),
    ):
        with pytest.raises(grpc.RpcError) as error:
            call()
        assert error.value.code() == grpc.StatusCode.INVALID_ARGUMENT
        assert error.value.details().startswith("world_id:")
    assert stub.GetAgent(pb.GetAgentRequest(world_id="Town", agent_id="isabella")).agent_id
