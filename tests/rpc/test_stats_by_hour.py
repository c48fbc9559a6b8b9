"""GetStats' model calls per game hour: a repeated HourCalls with a Timestamp, which every
client reads alike (it was a map<int64, int64>, whose keys protobuf.js, and so Node's
@grpc/proto-loader, hands to JavaScript as 8-byte binary strings)."""

from __future__ import annotations

from pathlib import Path

from google.protobuf.descriptor import Descriptor, FieldDescriptor
from google.protobuf.timestamp_pb2 import Timestamp

from npc_brain.llm.fakes import ScriptedChat
from npc_brain.v1 import brain_pb2 as pb
from tests.rpc.conftest import TwoDoors, two_doors

EIGHT = 1_676_275_200  # 2023-02-13T08:00:00Z
WIDE_KEYS = {
    FieldDescriptor.TYPE_INT64,
    FieldDescriptor.TYPE_UINT64,
    FieldDescriptor.TYPE_SINT64,
    FieldDescriptor.TYPE_FIXED64,
    FieldDescriptor.TYPE_SFIXED64,
}


def _messages(descriptors: list[Descriptor]) -> list[Descriptor]:
    found = []
    for descriptor in descriptors:
        found.append(descriptor)
        found += _messages(list(descriptor.nested_types))
    return found


def test_no_map_of_the_proto_has_a_64_bit_key() -> None:
    wide = [
        f"{message.name}.{field.name}"
        for message in _messages(list(pb.DESCRIPTOR.message_types_by_name.values()))
        for field in message.fields
        if field.message_type is not None
        and field.message_type.GetOptions().map_entry
        and field.message_type.fields_by_name["key"].type in WIDE_KEYS
    ]
    assert wide == [], "JavaScript clients cannot read 64-bit map keys"


def test_stats_count_calls_in_each_game_hour_through_both_doors(
    tmp_path: Path, chat: ScriptedChat
) -> None:
    # the model words a sentence after each greeting: one call each
    with two_doors(tmp_path, chat, reply_wording="model") as doors:
        _count_calls_by_hour(doors, chat)


def _count_calls_by_hour(doors: TwoDoors, chat: ScriptedChat) -> None:
    doors.stub.UpsertAgent(
        pb.UpsertAgentRequest(
            agent_id="isabella",
            persona=pb.Persona(name="Isabella Rodriguez", home_address="the Ville:Hobbs Cafe"),
        )
    )
    for hour in (0, 0, 2):
        chat.enqueue({"utterance": "Hello!", "end_conversation": False})
        list(
            doors.stub.Converse(
                pb.ConverseRequest(
                    agent_id="isabella",
                    game_time=Timestamp(seconds=EIGHT + hour * 3600 + 600),
                    speaker_id="player",
                    utterance="Hi!",
                )
            )
        )
    stats = doors.stub.GetStats(pb.GetStatsRequest(agent_id="isabella"))
    hours = [(h.hour.seconds, h.hour.nanos, h.calls) for h in stats.calls_by_hour]
    assert [(seconds, nanos) for seconds, nanos, _ in hours] == [(EIGHT, 0), (EIGHT + 7200, 0)]
    assert sum(calls for _, _, calls in hours) == stats.model_calls
    assert hours[0][2] >= 2 and hours[1][2] >= 1
    answer = doors.http.post("GetStats", {"agent_id": "isabella"}).json()
    assert answer["calls_by_hour"] == [
        {"hour": "2023-02-13T08:00:00Z", "calls": str(hours[0][2])},
        {"hour": "2023-02-13T10:00:00Z", "calls": str(hours[1][2])},
    ]
    assert "calls_by_game_hour" not in answer
