"""GetStats over gRPC shows what importance costs: nothing on the default (anchor) path,
one model call per observation where a world asks the model."""

from __future__ import annotations

from pathlib import Path

from google.protobuf.timestamp_pb2 import Timestamp

from npc_brain.config import Settings
from npc_brain.llm.fakes import ScriptedChat
from npc_brain.v1 import brain_pb2 as pb
from tests.conftest import make_brain, start_server

NOW = Timestamp(seconds=1_676_365_200)
TEXTS = ["her mother passed away this morning", "she is brushing her teeth", "a party is planned"]


def test_get_stats_shows_no_importance_calls_on_the_default_path(tmp_path: Path) -> None:
    chat = ScriptedChat(default={"rating": 6})
    brain = make_brain(
        tmp_path,
        chat,
        importance_estimator=Settings().importance_estimator,  # the shipped default
        importance_estimator_overrides="arena=model",
    )
    running, stop = start_server(brain)
    try:
        stub = running.stub
        for world in ("", "arena"):
            stub.UpsertAgent(
                pb.UpsertAgentRequest(
                    world_id=world,
                    agent_id="isabella",
                    persona=pb.Persona(name="Isabella"),
                    game_time=NOW,
                    reflection_enabled=False,
                    planning_enabled=False,
                )
            )
            stub.Perceive(
                pb.PerceiveRequest(
                    world_id=world,
                    agent_id="isabella",
                    game_time=NOW,
                    observations=[pb.Observation(text=t) for t in TEXTS],
                )
            )
        default = stub.GetStats(pb.GetStatsRequest(agent_id="isabella"))
        arena = stub.GetStats(pb.GetStatsRequest(world_id="arena", agent_id="isabella"))
        assert "importance" not in default.calls_by_kind
        assert arena.calls_by_kind["importance"] == len(TEXTS)
        listed = stub.ListMemories(pb.ListMemoriesRequest(agent_id="isabella")).memories
        assert len(listed) == len(TEXTS) and all(1 <= m.importance <= 10 for m in listed)
    finally:
        stop()
