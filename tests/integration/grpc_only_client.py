"""A client that has nothing but grpcio and stubs generated from proto/ (no npc_brain code).

Run from a folder that holds those stubs:  python grpc_only_client.py PORT flow|recall
Prints one JSON object describing what the server answered.
"""

import json
import sys

import grpc
from google.protobuf.timestamp_pb2 import Timestamp

from npc_brain.v1 import brain_pb2 as pb
from npc_brain.v1 import brain_pb2_grpc

MORNING = 1_676_275_200  # 2023-02-13 08:00 UTC, game time
PARTY = "Isabella Rodriguez is planning a Valentine's Day party at Hobbs Cafe on February 14th"
ORDINARY = [
    "Isabella Rodriguez is brushing her teeth",
    "the coffee machine is brewing coffee",
    "Isabella Rodriguez is opening the cafe's front door",
    "a customer is reading the newspaper",
    "the bakery truck is parked outside",
    "Isabella Rodriguez is wiping the counter",
    "Klaus Mueller is ordering a latte",
    "the radio is playing jazz",
    "the floor is being mopped",
    "a cat is sleeping on the windowsill",
    "Maria Lopez is studying at a corner table",
    "the dishwasher is running",
]


def at(minutes: int) -> Timestamp:
    return Timestamp(seconds=MORNING + 60 * minutes)


def flow(stub: brain_pb2_grpc.BrainStub) -> dict[str, object]:
    stub.UpsertAgent(
        pb.UpsertAgentRequest(
            agent_id="isabella",
            persona=pb.Persona(
                name="Isabella Rodriguez",
                age=34,
                innate="friendly, outgoing, hospitable",
                learned="Isabella owns Hobbs Cafe and loves to make people feel welcome",
                currently="planning a Valentine's Day party at Hobbs Cafe",
                home_address="the Ville:Isabella Rodriguez's apartment:main room",
            ),
            game_time=at(0),
        )
    )
    texts = ORDINARY[:6] + [PARTY] + ORDINARY[6:]
    ids = {}
    for minute, text in enumerate(texts):
        reply = stub.Perceive(
            pb.PerceiveRequest(
                agent_id="isabella",
                game_time=at(minute),
                observations=[pb.Observation(text=text, address="the Ville:Hobbs Cafe:cafe")],
            )
        )
        ids[text] = reply.memory_ids[0]
    found = stub.Retrieve(
        pb.RetrieveRequest(
            agent_id="isabella", game_time=at(30), query="Valentine's Day party", k=3
        )
    ).memories
    events = list(
        stub.Converse(
            pb.ConverseRequest(
                agent_id="isabella",
                game_time=at(31),
                speaker_id="player",
                utterance="Hi Isabella! Is anything special happening at the cafe soon?",
            )
        )
    )
    return {
        "party_id": ids[PARTY],
        "top_ids": [m.memory.memory_id for m in found],
        "top_terms": [[m.recency, m.importance, m.relevance] for m in found],
        "kinds": [e.WhichOneof("event") for e in events],
        "tokens": "".join(e.token for e in events if e.WhichOneof("event") == "token"),
        "final": events[-1].final.text if events else "",
        "speaker": events[-1].final.speaker_id if events else "",
    }


def recall(stub: brain_pb2_grpc.BrainStub) -> dict[str, object]:
    found = stub.Retrieve(
        pb.RetrieveRequest(
            agent_id="isabella", game_time=at(90), query="Valentine's Day party", k=1
        )
    ).memories
    return {"top_description": found[0].memory.description, "top_id": found[0].memory.memory_id}


if __name__ == "__main__":
    port, phase = sys.argv[1], sys.argv[2]
    assert pb.__file__.startswith(sys.path[0]), "must use the stubs generated beside this script"
    with grpc.insecure_channel(f"127.0.0.1:{port}") as channel:
        result = {"flow": flow, "recall": recall}[phase](brain_pb2_grpc.BrainStub(channel))
    print(json.dumps(result))
