"""Reflections that generalise, with the real default models, in a fishing harbour: after
a few game hours of real activity (sightings, and conversations with the model's replies)
a forced Reflect stores beliefs that no single memory says (who keeps the agent up to
date, what a person keeps telling people), citing the lines they rest on, and the agent
answers an opinion of that person from them."""

from __future__ import annotations

from pathlib import Path

import pytest
from google.protobuf.timestamp_pb2 import Timestamp

from npc_brain.v1 import brain_pb2 as pb
from tests.integration.server_process import ServerProcess

pytestmark = pytest.mark.integration
DAWN = 1_780_380_000  # 2026-06-02 06:00 UTC
WORLD = "thornbury"
HARBOUR = "Thornbury:harbour:quay"
PEOPLE = {
    "ana": pb.Persona(
        name="Ana Costa",
        age=30,
        innate="cheerful, chatty",
        learned="mends nets at the harbour of Thornbury",
        pronouns="she",
    ),
    "tomas": pb.Persona(
        name="Tomas Reyes",
        age=67,
        innate="stubborn, proud",
        learned="an old fisherman of Thornbury",
        pronouns="he",
    ),
    "wren": pb.Persona(
        name="Wren Hale", age=44, innate="quiet", learned="the harbour master", pronouns="she"
    ),
}
TOLD = [  # (game minutes after dawn, speaker, listener, line)
    (30, "tomas", "ana", "I am selling my fishing boat, the Gull, because my knees are bad."),
    (90, "tomas", "wren", "Good morning! I am selling my fishing boat, the Gull."),
    (150, "tomas", "ana", "The Harvest Feast at the Long Hall is tomorrow at 6 pm."),
]
COUNTS = ("is often", "spends hours", "often talk with each other")


def at(minutes: float) -> Timestamp:
    return Timestamp(seconds=int(DAWN + 60 * minutes))


def test_a_forced_reflection_after_a_few_hours_generalises(tmp_path: Path) -> None:
    server = ServerProcess(tmp_path / "data")
    try:
        stub = server.stub
        for agent_id, persona in PEOPLE.items():
            stub.UpsertAgent(
                pb.UpsertAgentRequest(world_id=WORLD, agent_id=agent_id, persona=persona)
            )
        for minutes in range(0, 240, 20):
            for agent_id in PEOPLE:
                seen = [
                    pb.Observation(text="Wren Hale is checking the moorings", address=HARBOUR),
                    pb.Observation(text="Ana Costa is mending nets", address=HARBOUR),
                ]
                stub.Perceive(
                    pb.PerceiveRequest(
                        world_id=WORLD, agent_id=agent_id, game_time=at(minutes), observations=seen
                    )
                )
            for when, speaker, listener, line in TOLD:
                if when == minutes + 10:
                    _talk(stub, listener, speaker, line, when)
                    said = f'{PEOPLE[speaker].name} said to {PEOPLE[listener].name}: "{line}"'
                    stub.AddMemory(  # the speaker's own record of its line, as a game keeps it
                        pb.AddMemoryRequest(
                            world_id=WORLD,
                            agent_id=speaker,
                            game_time=at(when),
                            kind=pb.DIALOGUE,
                            observation=pb.Observation(text=said),
                        )
                    )
        insights = {}
        for agent_id in ("ana", "tomas"):
            reply = stub.Reflect(
                pb.ReflectRequest(world_id=WORLD, agent_id=agent_id, game_time=at(250))
            )
            insights[agent_id] = [r.description for r in reply.reflections]
            print(agent_id, insights[agent_id])
            for reflection in reply.reflections:
                assert reflection.evidence_ids and reflection.depth >= 1
        general = {
            a: [t for t in found if not any(c in t for c in COUNTS)]
            for a, found in insights.items()
        }
        assert "Tomas Reyes keeps Ana Costa up to date." in general["ana"]
        assert "Tomas Reyes keeps telling people he's selling his fishing boat." in general["tomas"]
        opinion = _talk(stub, "ana", "wren", "What do you think of Tomas?", 260)
        print(opinion)
        assert opinion == "I think Tomas Reyes keeps me up to date."
    finally:
        server.stop()


def _talk(stub: object, agent_id: str, speaker_id: str, line: str, minutes: float) -> str:
    """The agent's reply to `line` from `speaker_id` (another agent)."""
    events = stub.Converse(  # type: ignore[attr-defined]
        pb.ConverseRequest(
            world_id=WORLD,
            agent_id=agent_id,
            speaker_id=speaker_id,
            utterance=line,
            game_time=at(minutes),
        )
    )
    final = [e.final.text for e in events if e.WhichOneof("event") == "final"]
    return final[0] if final else ""
