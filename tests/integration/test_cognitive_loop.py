"""Two agents through a game morning with the real default model: day plans, actions at
known places, a conversation both remember with the speaker as source, a reflection
citing real memories, and a tick path that never waits."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest
from google.protobuf.timestamp_pb2 import Timestamp

from npc_brain.v1 import brain_pb2 as pb
from tests.integration.server_process import ServerProcess

pytestmark = pytest.mark.integration
MORNING = 1_676_275_200  # 2023-02-13 08:00 UTC
CAFE, PARK = "the Ville:Hobbs Cafe:counter", "the Ville:Johnson Park:bench"
AGENTS = {
    "isabella": pb.Persona(
        name="Isabella Rodriguez",
        age=34,
        innate="friendly, outgoing",
        learned="owns Hobbs Cafe",
        currently="planning a Valentine's party",
        home_address="the Ville:Isabella's apartment:main room",
        daily_requirements=["open the cafe at 8"],
    ),
    "klaus": pb.Persona(
        name="Klaus Mueller",
        age=20,
        innate="kind, curious",
        learned="a sociology student",
        currently="writing a paper on gentrification",
        home_address="the Ville:Dorm:Klaus's room",
    ),
}


def at(minutes: int) -> Timestamp:
    return Timestamp(seconds=MORNING + 60 * minutes)


def test_two_agents_plan_act_at_known_places_and_reflect(tmp_path: Path) -> None:
    os.environ["NPC_BRAIN_REFLECTION_THRESHOLD"] = "25"
    server = ServerProcess(tmp_path / "data")
    try:
        stub = server.stub
        for agent_id, persona in AGENTS.items():
            stub.UpsertAgent(pb.UpsertAgentRequest(agent_id=agent_id, persona=persona))
        known = {a: {p.home_address, CAFE, PARK} for a, p in AGENTS.items()}
        pending_seen = False
        for step in range(0, 180, 20):  # three game hours, a tick every 20 game minutes
            reply = stub.Tick(
                pb.TickRequest(
                    game_time=at(step),
                    max_wait_ms=0,
                    agents=[
                        pb.AgentTick(
                            agent_id=a,
                            visible_addresses=[CAFE, PARK],
                            observations=[
                                pb.Observation(
                                    text=f"{AGENTS[a].name} sees the morning at minute {step}",
                                    address=CAFE,
                                    importance=6,
                                ),
                                *(
                                    pb.Observation(
                                        text=f"{AGENTS[b].name} is at the counter",
                                        address=CAFE,
                                        subject=b,
                                    )
                                    for b in AGENTS
                                    if b != a
                                ),
                            ],
                        )
                        for a in AGENTS
                    ],
                )
            )
            pending_seen |= any(r.pending for r in reply.results)
            for result in reply.results:
                if result.action.address:
                    assert result.action.address in known[result.agent_id]
        assert pending_seen, "with max_wait_ms=0 the tick answered before the model finished"

        deadline = time.monotonic() + 300  # conversations go first: planning may wait
        for agent_id in AGENTS:
            reply = pb.ActResponse(pending=True)
            while reply.pending and time.monotonic() < deadline:
                reply = stub.Act(
                    pb.ActRequest(agent_id=agent_id, game_time=at(170), max_wait_ms=60_000)
                )
            assert not reply.pending, f"{agent_id} decided nothing in 5 minutes"
            assert reply.action.address in known[agent_id] and reply.action.description
            plans = stub.ListMemories(
                pb.ListMemoriesRequest(agent_id=agent_id, kinds=[pb.PLAN])
            ).memories
            assert plans and "plan for the day" in plans[0].description

        heard: dict[str, list[pb.Memory]] = {}
        while len(heard) < 2 and time.monotonic() < deadline:
            for agent_id in AGENTS:
                memories = stub.ListMemories(
                    pb.ListMemoriesRequest(agent_id=agent_id, kinds=[pb.DIALOGUE])
                ).memories
                if memories:
                    heard[agent_id] = list(memories)
            time.sleep(1)
        assert set(heard) == set(AGENTS), "no conversation landed in both streams"
        print("\n".join(m.description for m in heard["klaus"]))
        for agent_id, other in (("isabella", "klaus"), ("klaus", "isabella")):
            sources = {(m.source.kind, m.source.agent_id) for m in heard[agent_id]}
            assert (pb.HEARD, other) in sources and (pb.SEEN, agent_id) in sources

        reflections: list[pb.Memory] = []
        while not reflections and time.monotonic() < deadline:
            reflections = list(
                stub.ListMemories(
                    pb.ListMemoriesRequest(agent_id="isabella", kinds=[pb.REFLECTION])
                ).memories
            )
            time.sleep(1)
        assert reflections, "the importance trigger fired no reflection"
        ids = {
            m.memory_id
            for m in stub.ListMemories(
                pb.ListMemoriesRequest(agent_id="isabella", page_size=500)
            ).memories
        }
        for reflection in reflections:
            assert reflection.evidence_ids and set(reflection.evidence_ids) <= ids
            assert reflection.depth >= 1
        stats = stub.GetStats(pb.GetStatsRequest(agent_id="isabella"))
        print(
            f"isabella: {stats.model_calls} model calls over {stats.game_hours:.1f} game "
            f"hours: {dict(stats.calls_by_kind)}"
        )
    finally:
        del os.environ["NPC_BRAIN_REFLECTION_THRESHOLD"]
        assert server.stop() == 0
