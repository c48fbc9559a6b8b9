"""One implementation, two doors: the same table of calls, valid and invalid, for every
RPC, sent over gRPC to one server and over HTTP/JSON to an identical one, must end with
the same status (HTTP status mapped from it) and the same answer."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import grpc
import pytest
from google.protobuf import json_format
from google.protobuf.message import Message
from google.protobuf.timestamp_pb2 import Timestamp

from npc_brain.llm.fakes import ScriptedChat
from npc_brain.server.http_gateway import HTTP_STATUS_OF, SERVICE, to_json
from npc_brain.v1 import brain_pb2 as pb
from tests.rpc.conftest import TwoDoors, two_doors

T0 = Timestamp(seconds=1_676_275_200)  # 2023-02-13 08:00
T1 = Timestamp(seconds=1_676_278_800)  # an hour later
ISABELLA = pb.Persona(
    name="Isabella Rodriguez",
    age=34,
    innate="friendly, outgoing",
    currently="planning a Valentine's Day party",
    home_address="ville:isabella's apartment:main room",
    daily_requirements=["open the cafe"],
)
REPLY = {"utterance": "Come to Hobbs Cafe on the 14th!", "end_conversation": False}


@dataclass
class Case:
    name: str
    method: str
    request: Message
    replies: list[Any] = field(default_factory=list)  # scripted model answers, queued first


def _obs(text: str, **kw: Any) -> pb.Observation:
    return pb.Observation(text=text, **kw)


CASES = [
    Case("upsert", "UpsertAgent", pb.UpsertAgentRequest(agent_id="isabella", persona=ISABELLA)),
    Case(
        "upsert klaus",
        "UpsertAgent",
        pb.UpsertAgentRequest(
            agent_id="klaus", persona=pb.Persona(name="Klaus", home_address="ville:dorm")
        ),
    ),
    Case(
        "upsert again", "UpsertAgent", pb.UpsertAgentRequest(agent_id="isabella", persona=ISABELLA)
    ),
    Case(
        "upsert no name", "UpsertAgent", pb.UpsertAgentRequest(agent_id="x", persona=pb.Persona())
    ),
    Case("upsert bad id", "UpsertAgent", pb.UpsertAgentRequest(agent_id="a/b", persona=ISABELLA)),
    Case(
        "upsert bad age",
        "UpsertAgent",
        pb.UpsertAgentRequest(agent_id="x", persona=pb.Persona(name="X", age=-1)),
    ),
    Case("get", "GetAgent", pb.GetAgentRequest(agent_id="isabella")),
    Case("get no id", "GetAgent", pb.GetAgentRequest()),
    Case("get unknown", "GetAgent", pb.GetAgentRequest(agent_id="ghost")),
    Case("get bad world", "GetAgent", pb.GetAgentRequest(world_id="a/b", agent_id="isabella")),
    Case("get other world", "GetAgent", pb.GetAgentRequest(world_id="w2", agent_id="isabella")),
    Case(
        "perceive",
        "Perceive",
        pb.PerceiveRequest(
            agent_id="isabella",
            game_time=T0,
            observations=[
                _obs("Valentine's Day party at Hobbs Cafe", address="ville:cafe"),
                _obs("the kettle is boiling", importance=2, source=pb.Source(kind=pb.HEARD)),
            ],
            visible_addresses=["ville:cafe:counter"],
        ),
        [{"rating": 8}],
    ),
    Case("perceive no time", "Perceive", pb.PerceiveRequest(agent_id="isabella")),
    Case(
        "perceive empty text",
        "Perceive",
        pb.PerceiveRequest(agent_id="isabella", game_time=T0, observations=[_obs("a"), _obs(" ")]),
    ),
    Case(
        "perceive bad source",
        "Perceive",
        pb.PerceiveRequest(
            agent_id="isabella", game_time=T0, observations=[_obs("x", source=pb.Source(kind=42))]
        ),
    ),
    Case(
        "perceive importance 11",
        "Perceive",
        pb.PerceiveRequest(
            agent_id="isabella", game_time=T0, observations=[_obs("x", importance=11)]
        ),
    ),
    Case("perceive unknown", "Perceive", pb.PerceiveRequest(agent_id="ghost", game_time=T0)),
    Case(
        "perceive places only",
        "Perceive",
        pb.PerceiveRequest(agent_id="klaus", game_time=T0, visible_addresses=["ville:library"]),
    ),
    Case("act", "Act", pb.ActRequest(agent_id="isabella", game_time=T0, max_wait_ms=5000)),
    Case("act again", "Act", pb.ActRequest(agent_id="isabella", game_time=T0)),
    Case(
        "act negative wait", "Act", pb.ActRequest(agent_id="isabella", game_time=T0, max_wait_ms=-1)
    ),
    Case(
        "act long wait", "Act", pb.ActRequest(agent_id="isabella", game_time=T0, max_wait_ms=10**6)
    ),
    Case("act no time", "Act", pb.ActRequest(agent_id="isabella")),
    Case("act unknown", "Act", pb.ActRequest(agent_id="ghost", game_time=T0)),
    Case(
        "tick",
        "Tick",
        pb.TickRequest(
            game_time=T1,
            max_wait_ms=5000,
            agents=[
                pb.AgentTick(agent_id="isabella", observations=[_obs("Klaus waves", importance=3)]),
                pb.AgentTick(agent_id="klaus", visible_addresses=["ville:cafe"]),
            ],
        ),
    ),
    Case(
        "tick unknown agent",
        "Tick",
        pb.TickRequest(
            game_time=T1, agents=[pb.AgentTick(agent_id="klaus"), pb.AgentTick(agent_id="ghost")]
        ),
    ),
    Case(
        "tick bad observation",
        "Tick",
        pb.TickRequest(
            game_time=T1,
            agents=[pb.AgentTick(agent_id="klaus", observations=[_obs("")])],
        ),
    ),
    Case("tick no time", "Tick", pb.TickRequest(agents=[pb.AgentTick(agent_id="klaus")])),
    Case(
        "retrieve",
        "Retrieve",
        pb.RetrieveRequest(agent_id="isabella", game_time=T1, query="Valentine's Day party", k=2),
    ),
    Case(
        "retrieve weighted kinds",
        "Retrieve",
        pb.RetrieveRequest(
            agent_id="isabella",
            game_time=T1,
            query="kettle",
            weights=pb.Weights(recency=0.5, importance=2, relevance=3),
            kinds=[pb.OBSERVATION],
        ),
    ),
    Case(
        "retrieve k too big",
        "Retrieve",
        pb.RetrieveRequest(agent_id="isabella", game_time=T1, query="q", k=1000),
    ),
    Case(
        "retrieve bad weight",
        "Retrieve",
        pb.RetrieveRequest(
            agent_id="isabella", game_time=T1, query="q", weights=pb.Weights(recency=-1)
        ),
    ),
    Case(
        "retrieve bad kind",
        "Retrieve",
        pb.RetrieveRequest(agent_id="isabella", game_time=T1, query="q", kinds=[99]),  # type: ignore[list-item]
    ),
    Case("retrieve no query", "Retrieve", pb.RetrieveRequest(agent_id="isabella", game_time=T1)),
    Case(
        "converse",
        "Converse",
        pb.ConverseRequest(
            agent_id="isabella", game_time=T1, speaker_id="klaus", utterance="Any news?"
        ),
        [REPLY, {"rating": 5}],
    ),
    Case(
        "converse interview",
        "Converse",
        pb.ConverseRequest(
            agent_id="isabella",
            game_time=T1,
            speaker_id="player",
            utterance="Who are you?",
            interview=True,
        ),
        [{"utterance": "I run Hobbs Cafe.", "end_conversation": True}],
    ),
    Case(
        "converse no speaker",
        "Converse",
        pb.ConverseRequest(agent_id="isabella", game_time=T1, utterance="hi"),
    ),
    Case(
        "converse no time",
        "Converse",
        pb.ConverseRequest(agent_id="isabella", speaker_id="klaus", utterance="hi"),
    ),
    Case(
        "converse unknown",
        "Converse",
        pb.ConverseRequest(agent_id="ghost", game_time=T1, speaker_id="klaus", utterance="hi"),
    ),
    Case("stats agent", "GetStats", pb.GetStatsRequest(agent_id="isabella")),
    Case("stats world", "GetStats", pb.GetStatsRequest()),
    Case("stats unknown", "GetStats", pb.GetStatsRequest(agent_id="ghost")),
    Case("list memories", "ListMemories", pb.ListMemoriesRequest(agent_id="isabella", page_size=5)),
    Case(
        "add memory",
        "AddMemory",
        pb.AddMemoryRequest(
            agent_id="isabella", game_time=T1, kind=pb.OBSERVATION, observation=_obs("born here")
        ),
    ),
    Case(
        "add private memory",
        "AddMemory",
        pb.AddMemoryRequest(
            agent_id="isabella",
            game_time=T1,
            kind=pb.OBSERVATION,
            observation=_obs("hid the key", share_with=["klaus"]),
        ),
    ),
    Case(
        "add memory shared twice",
        "AddMemory",
        pb.AddMemoryRequest(
            agent_id="isabella",
            game_time=T1,
            kind=pb.OBSERVATION,
            observation=_obs("hid the key", share_with=["klaus", "klaus"]),
        ),
    ),
    Case(
        "add memory private and shared",
        "AddMemory",
        pb.AddMemoryRequest(
            agent_id="isabella",
            game_time=T1,
            kind=pb.OBSERVATION,
            observation=_obs("hid the key", private=True, share_with=["klaus"]),
        ),
    ),
    Case(
        "report an action never chosen",
        "ReportOutcome",
        pb.ReportOutcomeRequest(agent_id="isabella", action_id="a1", done=True, game_time=T1),
    ),
    Case(
        "report without an action",
        "ReportOutcome",
        pb.ReportOutcomeRequest(agent_id="isabella", game_time=T1),
    ),
    Case("who knows a memory", "WhoKnows", pb.WhoKnowsRequest(memory_id="1")),
    Case("who knows a query", "WhoKnows", pb.WhoKnowsRequest(query="the party", k=2)),
    Case("who knows nothing asked", "WhoKnows", pb.WhoKnowsRequest()),
    Case("who knows both", "WhoKnows", pb.WhoKnowsRequest(memory_id="1", query="party")),
    Case("who knows unknown memory", "WhoKnows", pb.WhoKnowsRequest(memory_id="99999")),
    Case("who knows bad k", "WhoKnows", pb.WhoKnowsRequest(query="party", k=21)),
    Case(
        "forget memory", "ForgetMemory", pb.ForgetMemoryRequest(agent_id="isabella", memory_id="1")
    ),
    Case("reflect", "Reflect", pb.ReflectRequest(agent_id="isabella", game_time=T1)),
    Case("save world", "SaveWorld", pb.SaveWorldRequest(label="slot 1")),
    Case("list snapshots", "ListSnapshots", pb.ListSnapshotsRequest()),
    Case("load world", "LoadWorld", pb.LoadWorldRequest(snapshot_id="nope")),
]


@dataclass(frozen=True)
class Outcome:
    status: str  # gRPC status name
    http_status: int
    message: str
    answer: Any  # the JSON mapping of the reply (a list of events for a stream)


def _via_grpc(doors: TwoDoors, case: Case) -> Outcome:
    call = getattr(doors.stub, case.method)
    try:
        reply = call(case.request, timeout=30)
        answer = [to_json(e) for e in reply] if case.method == "Converse" else to_json(reply)
    except grpc.RpcError as error:
        code = error.code()  # type: ignore[attr-defined]
        return Outcome(code.name, HTTP_STATUS_OF[code], error.details(), None)  # type: ignore[attr-defined]
    return Outcome("OK", 200, "", answer)


def _via_http(doors: TwoDoors, case: Case) -> Outcome:
    body = json_format.MessageToDict(case.request, preserving_proto_field_name=True)
    if case.method == "Converse":
        response = doors.http.stream(case.method, body)
        if response.status != 200:
            error = json.loads(response.read())["error"]
            return Outcome(error["status"], response.status, error["message"], None)
        return Outcome("OK", 200, "", [json.loads(line) for line in response.read().splitlines()])
    answer = doors.http.post(case.method, body)
    data = answer.json()
    if answer.status != 200:
        return Outcome(data["error"]["status"], answer.status, data["error"]["message"], None)
    return Outcome("OK", 200, "", data)


def _stable(outcome: Outcome) -> Outcome:
    """The outcome without what differs between two servers by design: snapshot ids and
    save times (random and wall-clock)."""

    def strip(value: Any) -> Any:
        if isinstance(value, dict):
            volatile = {"snapshot_id", "saved_at"}
            return {k: "*" if k in volatile else strip(v) for k, v in value.items()}
        if isinstance(value, list):
            return [strip(v) for v in value]
        return value

    return Outcome(outcome.status, outcome.http_status, outcome.message, strip(outcome.answer))


@pytest.fixture
def twins(tmp_path: Path) -> Iterator[tuple[TwoDoors, ScriptedChat, TwoDoors, ScriptedChat]]:
    """Two identical fresh servers: one is driven over gRPC, the other over HTTP."""
    chat_a, chat_b = ScriptedChat(default={"rating": 3}), ScriptedChat(default={"rating": 3})
    with two_doors(tmp_path / "a", chat_a) as a, two_doors(tmp_path / "b", chat_b) as b:
        yield a, chat_a, b, chat_b


def test_the_table_covers_every_rpc() -> None:
    assert {c.method for c in CASES} == {m.name for m in SERVICE.methods}


def test_both_doors_answer_every_case_alike(
    twins: tuple[TwoDoors, ScriptedChat, TwoDoors, ScriptedChat],
) -> None:
    grpc_doors, grpc_chat, http_doors, http_chat = twins
    seen_statuses = set()
    for case in CASES:
        grpc_chat.enqueue(*case.replies)
        http_chat.enqueue(*case.replies)
        by_grpc = _stable(_via_grpc(grpc_doors, case))
        by_http = _stable(_via_http(http_doors, case))
        assert by_http == by_grpc, case.name
        seen_statuses.add(by_grpc.status)
    assert {"OK", "INVALID_ARGUMENT", "NOT_FOUND"} <= seen_statuses
    assert grpc_chat.history == http_chat.history
