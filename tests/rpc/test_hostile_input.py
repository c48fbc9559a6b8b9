"""Bad input is refused precisely, through both doors: every field's limits (ids, texts,
counts, numbers, enums, timestamps) answer INVALID_ARGUMENT naming the field and change
nothing; and a corpus of nasty inputs (megabyte strings, NUL, invalid UTF-8, deep JSON,
huge numbers, far-future times) never gets past the door or breaks it."""

from __future__ import annotations

import json
import socket
from pathlib import Path
from typing import Any

import grpc
import pytest
from google.protobuf import json_format
from google.protobuf.message import Message

from npc_brain.llm.fakes import ScriptedChat
from npc_brain.server.http_gateway import SERVICE
from npc_brain.v1 import brain_pb2 as pb
from tests.rpc.conftest import TwoDoors, two_doors

T0 = "2023-02-13T08:00:00Z"
AGENT = {"agent_id": "isabella", "game_time": T0}
SEEN = {"text": "Klaus is painting"}
LONG = "x" * 4001  # over max_text_chars
SHORT_OVER = "y" * 501  # over max_short_text_chars
MANY = 257  # over max_items
REQUEST_TYPES = {m.name: m.input_type for m in SERVICE.methods}


def _persona(**fields: Any) -> dict[str, Any]:
    return {"agent_id": "klaus", "persona": {"name": "Klaus", **fields}}


# (method, JSON request, the field its INVALID_ARGUMENT names)
INVALID = [
    ("UpsertAgent", {"agent_id": "a" * 65, "persona": {"name": "A"}}, "agent_id"),
    ("UpsertAgent", {"agent_id": ".hidden", "persona": {"name": "A"}}, "agent_id"),
    ("UpsertAgent", {"agent_id": "a b", "persona": {"name": "A"}}, "agent_id"),
    ("UpsertAgent", {"agent_id": "é", "persona": {"name": "A"}}, "agent_id"),
    ("UpsertAgent", {"world_id": "../etc", **_persona()}, "world_id"),
    ("UpsertAgent", {"agent_id": "klaus", "persona": {"name": SHORT_OVER}}, "persona.name"),
    ("UpsertAgent", _persona(innate="kind\u0000"), "persona.innate"),
    ("UpsertAgent", _persona(learned=LONG), "persona.learned"),
    ("UpsertAgent", _persona(age=-1), "persona.age"),
    ("UpsertAgent", _persona(home_address=SHORT_OVER), "persona.home_address"),
    ("UpsertAgent", _persona(daily_requirements=["x"] * MANY), "persona.daily_requirements"),
    ("UpsertAgent", _persona(daily_requirements=[""]), "persona.daily_requirements[0]"),
    (
        "UpsertAgent",
        {**_persona(), "actions": [{"name": "Sell!", "description": "d"}]},
        "actions[0].name",
    ),
    ("UpsertAgent", {**_persona(), "actions": [{"name": "sell"}]}, "actions[0].description"),
    (
        "UpsertAgent",
        {**_persona(), "actions": [{"name": "sell", "description": SHORT_OVER}]},
        "actions[0].description",
    ),
    (
        "UpsertAgent",
        {**_persona(), "actions": [{"name": "a", "description": "d"}] * 2},
        "actions[1].name",
    ),
    (
        "UpsertAgent",
        {**_persona(), "actions": [{"name": "a", "description": "d", "price": -1}]},
        "actions[0].price",
    ),
    (
        "UpsertAgent",
        {
            **_persona(),
            "actions": [{"name": "a", "description": "d", "arguments": [{"name": "x"}]}],
        },
        "actions[0].arguments[0].type",
    ),
    (
        "UpsertAgent",
        {
            **_persona(),
            "actions": [
                {"name": "a", "description": "d", "arguments": [{"name": "x", "type": "ITEM"}]}
            ],
        },
        "actions[0].arguments[0].options",
    ),
    (
        "UpsertAgent",
        {
            **_persona(),
            "actions": [
                {
                    "name": "a",
                    "description": "d",
                    "arguments": [{"name": "n", "type": "NUMBER", "min": 5, "max": 1}],
                }
            ],
        },
        "actions[0].arguments[0].max",
    ),
    ("GetAgent", {"agent_id": ""}, "agent_id"),
    ("Perceive", {**AGENT, "observations": [SEEN] * MANY}, "observations"),
    ("Perceive", {**AGENT, "visible_addresses": ["a"] * MANY}, "visible_addresses"),
    ("Perceive", {**AGENT, "visible_addresses": [""]}, "visible_addresses[0]"),
    ("Perceive", {**AGENT, "observations": [{"text": LONG}]}, "observations[0].text"),
    ("Perceive", {**AGENT, "observations": [{"text": "a\u0000b"}]}, "observations[0].text"),
    ("Perceive", {**AGENT, "observations": [{"text": " \n"}]}, "observations[0].text"),
    (
        "Perceive",
        {**AGENT, "observations": [{**SEEN, "subject": SHORT_OVER}]},
        "observations[0].subject",
    ),
    (
        "Perceive",
        {**AGENT, "observations": [{**SEEN, "importance": 11}]},
        "observations[0].importance",
    ),
    (
        "Perceive",
        {**AGENT, "observations": [{**SEEN, "source": {"kind": 9}}]},
        "observations[0].source.kind",
    ),
    (
        "Perceive",
        {**AGENT, "observations": [{**SEEN, "source": {"agent_id": "../x"}}]},
        "observations[0].source.agent_id",
    ),
    (
        "Perceive",
        {**AGENT, "observations": [{**SEEN, "expires": "9999-12-31T12:00:00Z"}]},
        "observations[0].expires",
    ),
    ("Perceive", {"agent_id": "isabella", "game_time": "9999-12-31T23:59:59Z"}, "game_time"),
    ("Perceive", {"agent_id": "isabella", "game_time": "0001-01-01T00:00:00Z"}, "game_time"),
    ("Perceive", {"agent_id": "isabella"}, "game_time"),
    ("Act", {**AGENT, "max_wait_ms": 60001}, "max_wait_ms"),
    ("Act", {**AGENT, "max_wait_ms": -1}, "max_wait_ms"),
    ("Tick", {"game_time": T0, "agents": [{"agent_id": "isabella"}] * MANY}, "agents"),
    (
        "Tick",
        {
            "game_time": T0,
            "agents": [{"agent_id": a, "observations": [SEEN] * 200} for a in ("isabella", "k")],
        },
        "agents",
    ),
    ("Tick", {"game_time": T0, "agents": [{"agent_id": "isabella"}, {}]}, "agents[1].agent_id"),
    (
        "Tick",
        {"game_time": T0, "agents": [{"agent_id": "isabella", "observations": [{}]}]},
        "agents[0].observations[0].text",
    ),
    ("Retrieve", {**AGENT, "query": ""}, "query"),
    ("Retrieve", {**AGENT, "query": LONG}, "query"),
    ("Retrieve", {**AGENT, "query": "q", "k": -1}, "k"),
    ("Retrieve", {**AGENT, "query": "q", "k": 101}, "k"),
    ("Retrieve", {**AGENT, "query": "q", "weights": {"recency": "NaN"}}, "weights.recency"),
    (
        "Retrieve",
        {**AGENT, "query": "q", "weights": {"relevance": "Infinity"}},
        "weights.relevance",
    ),
    ("Retrieve", {**AGENT, "query": "q", "weights": {"importance": -1}}, "weights.importance"),
    ("Retrieve", {**AGENT, "query": "q", "kinds": [9]}, "kinds[0]"),
    ("Retrieve", {**AGENT, "query": "q", "kinds": ["OBSERVATION"] * MANY}, "kinds"),
    (
        "Retrieve",
        {**AGENT, "query": "q", "created_after": "9999-12-31T00:00:00Z"},
        "created_after",
    ),
    ("ListMemories", {"agent_id": "isabella", "page_size": 501}, "page_size"),
    ("ListMemories", {"agent_id": "isabella", "page_token": "²"}, "page_token"),
    ("ListMemories", {"agent_id": "isabella", "page_token": "9" * 30}, "page_token"),
    ("ListMemories", {"agent_id": "isabella", "page_token": "-1"}, "page_token"),
    ("ListMemories", {"agent_id": "isabella", "kinds": [-1]}, "kinds[0]"),
    ("AddMemory", {**AGENT, "observation": SEEN}, "kind"),
    ("AddMemory", {**AGENT, "kind": 9, "observation": SEEN}, "kind"),
    ("AddMemory", {**AGENT, "kind": "PLAN", "observation": {"text": LONG}}, "observation.text"),
    (
        "AddMemory",
        {**AGENT, "kind": "PLAN", "observation": {"text": "x", "share_with": ["k"] * MANY}},
        "observation.share_with",
    ),
    (
        "AddMemory",
        {**AGENT, "kind": "PLAN", "observation": {"text": "x", "share_with": ["../k"]}},
        "observation.share_with[0]",
    ),
    (
        "Perceive",
        {**AGENT, "observations": [{**SEEN, "private": True, "share_with": ["k"]}]},
        "observations[0].share_with",
    ),
    ("ForgetMemory", {"agent_id": "isabella", "memory_id": "²"}, "memory_id"),
    ("ForgetMemory", {"agent_id": "isabella", "memory_id": "9" * 40}, "memory_id"),
    ("ForgetMemory", {"agent_id": "isabella", "memory_id": "1e3"}, "memory_id"),
    ("ForgetMemory", {"agent_id": "isabella", "memory_id": ""}, "memory_id"),
    ("Converse", {**AGENT, "utterance": "hi"}, "speaker_id"),
    ("Converse", {**AGENT, "speaker_id": "isabella", "utterance": "hi"}, "speaker_id"),
    ("Converse", {**AGENT, "speaker_id": "player", "utterance": LONG}, "utterance"),
    ("Converse", {**AGENT, "speaker_id": "player", "utterance": "\u0000"}, "utterance"),
    (
        "Converse",
        {**AGENT, "speaker_id": "player", "utterance": "hi", "conversation_id": "\u0000"},
        "conversation_id",
    ),
    (
        "Converse",
        {**AGENT, "speaker_id": "player", "utterance": "hi", "actions": [{"name": "x"}]},
        "actions[0].description",
    ),
    ("ReportOutcome", {**AGENT, "action_id": ""}, "action_id"),
    ("ReportOutcome", {"agent_id": "isabella", "action_id": "a1"}, "game_time"),
    ("ReportOutcome", {**AGENT, "action_id": "a1", "detail": LONG}, "detail"),
    ("Reflect", {"agent_id": "isabella"}, "game_time"),
    ("GetStats", {"agent_id": "no way"}, "agent_id"),
    ("SaveWorld", {"label": SHORT_OVER}, "label"),
    ("SaveWorld", {"label": "a\u0000"}, "label"),
    ("LoadWorld", {}, "snapshot_id"),
    ("LoadWorld", {"snapshot_id": "../../worlds/default"}, "snapshot_id"),
    ("ListSnapshots", {"world_id": "a/b"}, "world_id"),
    ("WhoKnows", {}, "memory_id"),
    ("WhoKnows", {"memory_id": "1", "query": "q"}, "query"),
    ("WhoKnows", {"memory_id": "-1"}, "memory_id"),
    ("WhoKnows", {"query": LONG}, "query"),
    ("WhoKnows", {"query": "q", "k": 21}, "k"),
    ("WhoKnows", {"query": "q", "world_id": "a/b"}, "world_id"),
]


def _upsert(doors: TwoDoors) -> None:
    for agent in ("isabella", "k"):
        doors.stub.UpsertAgent(
            pb.UpsertAgentRequest(agent_id=agent, persona=pb.Persona(name=agent.title()))
        )


def _message(method: str, body: dict[str, Any]) -> Message:
    from google.protobuf import message_factory

    message = message_factory.GetMessageClass(REQUEST_TYPES[method])()
    json_format.ParseDict(body, message)
    return message


def _grpc(doors: TwoDoors, method: str, request: Message) -> tuple[str, str]:
    try:
        reply = getattr(doors.stub, method)(request, timeout=30)
        if method == "Converse":
            list(reply)
    except grpc.RpcError as error:
        return error.code().name, error.details()  # type: ignore[attr-defined]
    return "OK", ""


def _memories(doors: TwoDoors) -> list[str]:
    page = doors.stub.ListMemories(pb.ListMemoriesRequest(agent_id="isabella", page_size=500))
    return [m.description for m in page.memories]


def test_every_invalid_field_is_refused_by_name_on_both_doors_and_changes_nothing(
    doors: TwoDoors,
) -> None:
    _upsert(doors)
    before = _memories(doors)
    tested = set()
    for method, body, field in INVALID:
        status, details = _grpc(doors, method, _message(method, body))
        assert (status, details.split(": ", 1)[0]) == ("INVALID_ARGUMENT", field), (method, body)
        answer = doors.http.post(method, body)
        error = answer.json()["error"]
        assert (answer.status, error["status"], error["field"]) == (400, "INVALID_ARGUMENT", field)
        tested.add(method)
    assert tested == set(REQUEST_TYPES), "every RPC has a case"
    assert _memories(doors) == before
    assert doors.stub.GetAgent(pb.GetAgentRequest(agent_id="k")).persona.name == "K"


def test_timestamps_with_bad_nanos_or_far_from_now_are_refused(doors: TwoDoors) -> None:
    _upsert(doors)
    for stamp in ({"seconds": 0, "nanos": -1}, {"seconds": 2**62}, {"seconds": -(2**62)}):
        request = pb.ActRequest(agent_id="isabella", game_time=stamp)
        assert _grpc(doors, "Act", request)[0] == "INVALID_ARGUMENT"
    for text in ("10000-01-01T00:00:00Z", "0000-12-31T00:00:00Z", "2023-02-30T00:00:00Z"):
        answer = doors.http.post("Act", {"agent_id": "isabella", "game_time": text})
        assert (answer.status, answer.json()["error"]["field"]) == (400, "game_time")
    latest = {"agent_id": "isabella", "game_time": "9999-12-30T23:59:59.999999999Z"}
    assert doors.http.post("Act", latest).status == 200, "the last accepted time works"


def test_a_megabyte_text_is_invalid_and_a_body_over_the_limit_is_refused(
    doors: TwoDoors,
) -> None:
    _upsert(doors)
    megabyte = {**AGENT, "observations": [{"text": "m" * 1_000_000}]}
    status, details = _grpc(doors, "Perceive", _message("Perceive", megabyte))
    assert (status, details.split(":")[0]) == ("INVALID_ARGUMENT", "observations[0].text")
    assert doors.http.post("Perceive", megabyte).status == 400
    huge = {**AGENT, "observations": [{"text": "h" * 5_000_000}]}
    assert _grpc(doors, "Perceive", _message("Perceive", huge))[0] == "RESOURCE_EXHAUSTED"
    answer = doors.door().post("Perceive", huge)
    assert (answer.status, answer.json()["error"]["status"]) == (413, "RESOURCE_EXHAUSTED")
    assert _memories(doors) == []


@pytest.mark.parametrize(
    ("body", "field"),
    [
        (b'{"agent_id": "isa\xff\xfebella"}', "body"),  # invalid UTF-8
        (b'{"agent_id": "\xed\xa0\x80"}', "body"),  # an encoded surrogate is not UTF-8
        (b'{"agent_id": "\\ud800"}', "agent_id"),  # a lone surrogate escape
        (b'{"agent_id": "isabella\\u0000"}', "agent_id"),  # NUL
        (b'{"agent_id": ' + b"[" * 100_000 + b"]" * 100_000 + b"}", "body"),  # deep arrays
        (b'{"a":' * 50_000 + b"1" + b"}" * 50_000, "body"),  # deep objects
        (b'{"agent_id": "isabella", "game_time": "' + b"9" * 100_000 + b'"}', "game_time"),
    ],
)
def test_malformed_json_bodies_are_400_naming_what_is_wrong(
    doors: TwoDoors, body: bytes, field: str
) -> None:
    _upsert(doors)
    answer = doors.http.request("POST", "/v1/GetAgent", body)
    error = answer.json()["error"]
    assert (answer.status, error["status"], error["field"]) == (400, "INVALID_ARGUMENT", field)
    assert len(error["message"]) < 1000, "the input is not echoed back at length"


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("k", 1e400),
        ("k", 2**64),
        ("k", -(2**63)),
        ("k", "NaN"),
        ("k", 1.5),
        ("k", "12abc"),
        ("k", "<5000 digits>"),
        ("kinds", ["NOPE"]),
        ("kinds", 7),
        ("weights", {"recency": "1e999"}),
        ("query", ["a"]),
        ("query", None),
    ],
)
def test_numbers_and_types_json_cannot_hold_are_400(
    doors: TwoDoors, field: str, value: object
) -> None:
    _upsert(doors)
    body = json.dumps({**AGENT, "query": "q", field: value})
    if value == "<5000 digits>":  # more digits than Python parses by default
        body = body.replace(json.dumps(value), "1" + "0" * 5000)
    answer = doors.http.post("Retrieve", body)
    assert (answer.status, answer.json()["error"]["status"]) == (400, "INVALID_ARGUMENT")
    named = answer.json()["error"]["field"]
    assert named.split(".")[0].split("[")[0] in (field, "body"), named


def test_the_server_survives_the_corpus_and_half_requests(doors: TwoDoors) -> None:
    _upsert(doors)
    for raw in (
        b"POST /v1/GetAgent HTTP/1.1\r\nContent-Length: 100\r\n\r\n{",  # body cut short
        b"\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03",  # a TLS hello on the plain port
        b"\x00" * 1000,
        b"GET / HTTP/1.1\r\n" + b"X: y\r\n" * 200 + b"\r\n",
    ):
        with socket.create_connection(("127.0.0.1", doors.http_port), timeout=10) as sock:
            sock.sendall(raw)
            sock.shutdown(socket.SHUT_WR)
            while sock.recv(65536):
                pass
    assert doors.http.post("GetAgent", {"agent_id": "isabella"}).status == 200
    assert doors.stub.GetAgent(pb.GetAgentRequest(agent_id="isabella")).agent_id == "isabella"


def test_pages_of_long_memories_still_fit_in_one_message(tmp_path: Path) -> None:
    """500 memories of 4000 two-byte characters would not fit in one answer: pages
    shrink to fit max_message_bytes, and paging still reaches every memory."""
    limit = 64 * 1024
    with two_doors(tmp_path, ScriptedChat(default={"rating": 3}), max_message_bytes=limit) as doors:
        _upsert(doors)
        texts = [f"{i:03d}" + "é" * 3990 for i in range(40)]
        for start in range(0, len(texts), 5):
            batch = [pb.Observation(text=t, importance=3) for t in texts[start : start + 5]]
            doors.stub.Perceive(
                pb.PerceiveRequest(
                    agent_id="isabella", game_time={"seconds": 1_676_275_200}, observations=batch
                )
            )
        seen, token, pages = [], "", 0
        while True:
            page = doors.stub.ListMemories(
                pb.ListMemoriesRequest(agent_id="isabella", page_size=500, page_token=token)
            )
            assert page.ByteSize() <= limit
            seen += [m.description for m in page.memories]
            pages += 1
            if not (token := page.next_page_token):
                break
        assert seen == texts and pages > 1
        answer = doors.http.post("ListMemories", {"agent_id": "isabella", "page_size": 500})
        assert answer.status == 200 and answer.json()["next_page_token"]


def test_bytes_that_are_no_request_message_are_invalid_argument_on_grpc(doors: TwoDoors) -> None:
    rpc = doors.grpc.channel.unary_unary("/npc_brain.v1.Brain/GetAgent")
    for raw in (b"\x12\x03\xff\xfe\xfd", b"\xff\xff\xff", b"\x12\x7fshort"):  # bad UTF-8, junk
        with pytest.raises(grpc.RpcError) as error:
            rpc(raw, timeout=10)
        assert error.value.code() == grpc.StatusCode.INVALID_ARGUMENT
        assert error.value.details().startswith("request: is not a valid")
