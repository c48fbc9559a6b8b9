"""Days that make sense with the real default model (the composed planner): an agent
whose lifestyle opens the cafe at 8 am is at the cafe at 8:30, and a commitment it
remembers from yesterday is in today's plan at its hour, where it belongs."""

from __future__ import annotations

from pathlib import Path

import pytest
from google.protobuf.timestamp_pb2 import Timestamp

from npc_brain.v1 import brain_pb2 as pb
from npc_brain.v1 import brain_pb2_grpc
from tests.integration.server_process import ServerProcess

pytestmark = pytest.mark.integration
FEB_13, FEB_14 = 1_676_246_400, 1_676_332_800  # midnight UTC
HOUR = 3600
TOWN = [
    "the Ville:Hobbs Cafe:cafe",
    "the Ville:Hobbs Cafe:cafe:counter",
    "the Ville:Hobbs Cafe:cafe:coffee machine",
    "the Ville:Oak Hill College:library",
    "the Ville:Oak Hill College:library:study table",
    "the Ville:Johnson Park:park",
    "the Ville:Harvey Oak Supply Store:store",
]
ISABELLA = pb.Persona(
    name="Isabella Rodriguez",
    age=34,
    innate="friendly, outgoing, hospitable",
    learned="owns Hobbs Cafe",
    lifestyle="wakes up at 6 am, opens the cafe at 8 am, goes to bed around 11 pm",
    home_address="the Ville:Isabella Rodriguez's apartment:main room",
    daily_requirements=["serve the customers"],
)
KLAUS = pb.Persona(
    name="Klaus Mueller",
    age=20,
    innate="kind, curious",
    learned="a sociology student at Oak Hill College",
    currently="writing a research paper on gentrification",
    lifestyle="wakes up at 7 am, goes to bed at midnight",
    home_address="the Ville:Dorm for Oak Hill College:Klaus's room",
)


def at(seconds: float) -> Timestamp:
    return Timestamp(seconds=int(seconds))


def settled(
    stub: brain_pb2_grpc.BrainStub, agent_id: str, game_time: float, world_id: str = ""
) -> pb.Action:
    """The agent's action at game_time once decided (a busy machine may need a while)."""
    for _ in range(10):
        request = pb.ActRequest(
            world_id=world_id, agent_id=agent_id, game_time=at(game_time), max_wait_ms=60_000
        )
        reply = stub.Act(request)
        if not reply.pending:
            return reply.action
    raise AssertionError(f"no action decided for {agent_id} in 10 minutes")


def plan_of(stub: brain_pb2_grpc.BrainStub, agent_id: str) -> str:
    plans = stub.ListMemories(pb.ListMemoriesRequest(agent_id=agent_id, kinds=[pb.PLAN]))
    return plans.memories[-1].description


def test_the_day_follows_the_persona_and_remembered_commitments(tmp_path: Path) -> None:
    server = ServerProcess(tmp_path / "data", "--planner", "composed")
    try:
        stub = server.stub
        for agent_id, persona in (("isabella", ISABELLA), ("klaus", KLAUS)):
            stub.UpsertAgent(pb.UpsertAgentRequest(agent_id=agent_id, persona=persona))
        stub.Perceive(
            pb.PerceiveRequest(
                agent_id="isabella", game_time=at(FEB_13 + 6 * HOUR), visible_addresses=TOWN
            )
        )
        opening = settled(stub, "isabella", FEB_13 + 8.5 * HOUR)
        plan = plan_of(stub, "isabella")
        print(plan, "|", opening.description, "@", opening.address)
        assert "6:00" in plan and "8:00 open" in plan.lower() and "23:00 sleeping" in plan
        assert opening.address.startswith("the Ville:Hobbs Cafe")

        # An invitation heard yesterday is in today's plan at its hour, at the library.
        stub.Perceive(
            pb.PerceiveRequest(
                agent_id="klaus", game_time=at(FEB_13 + 9 * HOUR), visible_addresses=TOWN
            )
        )
        stub.AddMemory(
            pb.AddMemoryRequest(
                agent_id="klaus",
                game_time=at(FEB_13 + 16 * HOUR),
                kind=pb.OBSERVATION,
                observation=pb.Observation(
                    text="Maria Lopez invited Klaus Mueller to a study session at the "
                    "library on February 14 at 3 pm"
                ),
            )
        )
        session = settled(stub, "klaus", FEB_14 + 15.25 * HOUR)
        plan = plan_of(stub, "klaus")
        print(plan, "|", session.description, "@", session.address)
        assert "15:00 go to the study session at the library" in plan
        assert session.address.startswith("the Ville:Oak Hill College:library")
    finally:
        server.stop()
