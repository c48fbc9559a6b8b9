"""The HTTP/JSON gateway on a real socket: streaming, errors as JSON, and HTTP itself."""

from __future__ import annotations

import asyncio
import json
import socket
from pathlib import Path
from typing import Any

import grpc
import pytest

from npc_brain.llm.fakes import FailingChat, GatedChat, ScriptedChat
from npc_brain.server.app import MAX_MESSAGE_BYTES
from npc_brain.server.http_gateway import Aborted, GatewayContext
from tests.rpc.conftest import TwoDoors, two_doors

T0 = "2023-02-13T08:00:00Z"
PERSONA = {"name": "Isabella Rodriguez", "home_address": "ville:home"}
# The stream tests use the free reply (grounded_replies off): the model's tokens as they come.
CONVERSE = {"agent_id": "isabella", "game_time": T0, "speaker_id": "player", "utterance": "Hi!"}


def _upsert(doors: TwoDoors) -> None:
    answer = doors.http.post("UpsertAgent", {"agent_id": "isabella", "persona": PERSONA})
    assert answer.status == 200, answer.body


def _raw(port: int, data: bytes, *, shut: bool = True) -> bytes:
    """Sends raw bytes, returns everything the server sends until it closes (5 s at most)."""
    with socket.create_connection(("127.0.0.1", port), timeout=5) as sock:
        sock.sendall(data)
        if shut:
            sock.shutdown(socket.SHUT_WR)
        chunks = []
        while chunk := sock.recv(65536):
            chunks.append(chunk)
    return b"".join(chunks)


def _post(path: str, body: bytes, *headers: str, version: str = "HTTP/1.1") -> bytes:
    lines = [f"POST {path} {version}", "Host: x", *headers, f"Content-Length: {len(body)}"]
    return ("\r\n".join(lines) + "\r\n\r\n").encode() + body


def test_converse_streams_the_first_token_before_the_reply_is_complete(tmp_path: Path) -> None:
    chat = GatedChat(default={"rating": 3})
    with two_doors(tmp_path, chat, grounded_replies=False) as doors:
        _upsert(doors)
        response = doors.http.stream("Converse", CONVERSE)
        assert response.status == 200
        assert response.getheader("Content-Type") == "application/x-ndjson"
        assert response.getheader("Transfer-Encoding") == "chunked"
        first = json.loads(response.readline())
        assert first == {"token": "Hello"}
        assert not chat.gate.is_set() and not chat.finished.is_set()
        chat.gate.set()
        rest = [json.loads(line) for line in iter(response.readline, b"")]
        assert chat.finished.is_set()
        text = first["token"] + "".join(e["token"] for e in rest[:-1])
        assert text == rest[-1]["final"]["text"] == "Hello there, friend!"
        assert rest[-1]["final"] == {
            "speaker_id": "isabella",
            "text": "Hello there, friend!",
            "end_conversation": False,
            "intent": "",  # only lines of NPC conversations have one
            "act": "",  # only grounded replies read the line's act and topic
            "topic": "",
        }
        # the connection stays usable after a streamed answer
        assert doors.http.post("GetAgent", {"agent_id": "isabella"}).status == 200


def test_a_failure_mid_stream_is_a_last_error_line(tmp_path: Path) -> None:
    with two_doors(
        tmp_path, FailingChat(default={"rating": 3}, streamed_only=True), grounded_replies=False
    ) as doors:
        _upsert(doors)
        lines = list(doors.http.stream_lines("Converse", CONVERSE))
        assert lines[0] == {"token": "I was say"}
        assert lines[-1] == {
            "error": {
                "status": "INTERNAL",
                "code": 13,
                "message": "internal error; the server log has details",
                "field": "",
            }
        }
        assert len(lines) == 2


def test_errors_are_json_naming_status_and_field(doors: TwoDoors) -> None:
    _upsert(doors)
    bad = {"agent_id": "isabella", "game_time": T0, "observations": [{"text": "a"}, {"text": ""}]}
    answer = doors.http.post("Perceive", bad)
    assert answer.status == 400
    assert answer.headers["content-type"] == "application/json"
    assert answer.json() == {
        "error": {
            "status": "INVALID_ARGUMENT",
            "code": 3,
            "message": "observations[1].text: is required",
            "field": "observations[1].text",
        }
    }
    missing = doors.http.post("Act", {"agent_id": "ghost", "game_time": T0}).json()["error"]
    assert (missing["status"], missing["field"]) == ("NOT_FOUND", "")


@pytest.mark.parametrize(
    ("body", "field", "problem"),
    [
        ({"agent_id": "isabella", "mood": "sad"}, "mood", "is not a field"),
        (
            {"agent_id": "isabella", "game_time": T0, "observations": [{"text": "a", "txt": 1}]},
            "observations[0].txt",
            "is not a field",
        ),
        ({"agent_id": "isabella", "game_time": "yesterday"}, "game_time", "timestamp"),
        ({"agent_id": 7}, "agent_id", "expected string"),
        ('{"agent_id": "a", "agent_id": "b"}', "body", "duplicate key"),
        ("{not json", "body", "not valid JSON"),
        ("[1, 2]", "body", "must be a JSON object"),
    ],
)
def test_bodies_that_are_not_the_request_message_are_invalid_argument(
    doors: TwoDoors, body: Any, field: str, problem: str
) -> None:
    answer = doors.http.post("Perceive", body)
    error = answer.json()["error"]
    assert (answer.status, error["status"], error["field"]) == (400, "INVALID_ARGUMENT", field)
    assert problem in error["message"] and error["message"].startswith(field + ": ")


def test_an_empty_body_is_the_empty_message(doors: TwoDoors) -> None:
    answer = doors.http.request("POST", "/v1/GetStats")
    assert answer.status == 200 and answer.json()["model_calls"] == "0"


def test_one_connection_serves_many_requests(doors: TwoDoors) -> None:
    _upsert(doors)
    sock = doors.http.connection.sock
    for _ in range(3):
        answer = doors.http.post("GetAgent", {"agent_id": "isabella"})
        assert answer.status == 200 and answer.headers["connection"] == "keep-alive"
    assert doors.http.connection.sock is sock
    two = _post("/v1/GetStats", b"{}", "Content-Type: application/json") * 2
    reply = _raw(doors.http_port, two)
    assert reply.count(b"HTTP/1.1 200 OK") == 2, "pipelined requests are answered in order"


@pytest.mark.parametrize(
    ("request_bytes", "status", "grpc_status"),
    [
        (b"GARBAGE\r\n\r\n", 400, "INVALID_ARGUMENT"),
        (b"POST /v1/GetStats HTTP/2.0\r\n\r\n", 505, "UNIMPLEMENTED"),
        (b"POST /v1/GetStats HTTP/1.1\r\nBad Header\r\n\r\n", 400, "INVALID_ARGUMENT"),
        (b"POST /v1/GetStats HTTP/1.1\r\nContent-Length: x\r\n\r\n", 400, "INVALID_ARGUMENT"),
        (
            b"POST /v1/GetStats HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n",
            411,
            "INVALID_ARGUMENT",
        ),
        (
            b"POST /v1/GetStats HTTP/1.1\r\nContent-Length: %d\r\n\r\n" % (MAX_MESSAGE_BYTES + 1),
            413,
            "RESOURCE_EXHAUSTED",
        ),
        (
            b"POST /v1/GetStats HTTP/1.1\r\nX: " + b"y" * 20000 + b"\r\n\r\n",
            431,
            "RESOURCE_EXHAUSTED",
        ),
    ],
)
def test_malformed_http_gets_an_error_and_the_connection_closes(
    doors: TwoDoors, request_bytes: bytes, status: int, grpc_status: str
) -> None:
    reply = _raw(doors.http_port, request_bytes, shut=False)
    head, _, body = reply.partition(b"\r\n\r\n")
    assert head.startswith(f"HTTP/1.1 {status} ".encode())
    assert b"Connection: close" in head
    assert json.loads(body)["error"]["status"] == grpc_status
    assert doors.http.post("GetStats", {}).status == 200, "the server lives on"


@pytest.mark.parametrize(
    ("method", "path", "content_type", "status", "grpc_status"),
    [
        ("GET", "/v1/GetStats", "application/json", 405, "UNIMPLEMENTED"),
        ("POST", "/v1/Nope", "application/json", 404, "NOT_FOUND"),
        ("POST", "/", "application/json", 404, "NOT_FOUND"),
        ("POST", "/v1/GetStats", "text/plain", 415, "INVALID_ARGUMENT"),
        ("POST", "/v1/GetStats?x=1", "application/json; charset=utf-8", 200, None),
    ],
)
def test_paths_methods_and_content_types(
    doors: TwoDoors,
    method: str,
    path: str,
    content_type: str,
    status: int,
    grpc_status: str | None,
) -> None:
    answer = doors.http.request(method, path, b"{}", {"Content-Type": content_type})
    assert answer.status == status
    if grpc_status is not None:
        assert answer.json()["error"]["status"] == grpc_status
    if status == 405:
        assert answer.headers["allow"] == "POST"
    assert doors.http.post("GetStats", {}).status == 200, "the connection lives on"


def test_http_1_0_and_expect_continue(doors: TwoDoors, chat: ScriptedChat) -> None:
    _upsert(doors)
    reply = _raw(
        doors.http_port,
        _post("/v1/GetStats", b"{}", "Content-Type: application/json", version="HTTP/1.0"),
    )
    assert reply.startswith(b"HTTP/1.1 200 OK") and b"Connection: close" in reply
    chat.enqueue({"utterance": "Hi!", "end_conversation": True})
    body = json.dumps(CONVERSE).encode()
    streamed = _raw(
        doors.http_port,
        _post("/v1/Converse", body, "Content-Type: application/json", version="HTTP/1.0"),
    )
    head, _, lines = streamed.partition(b"\r\n\r\n")
    assert b"Transfer-Encoding" not in head, "HTTP/1.0 gets the raw stream, ended by close"
    events = [json.loads(line) for line in lines.splitlines() if line.strip()]
    tokens = "".join(e.get("token", "") for e in events)
    assert events[-1]["final"]["text"] == tokens and tokens, "what streamed is the reply"
    with socket.create_connection(("127.0.0.1", doors.http_port), timeout=5) as sock:
        sock.sendall(
            b"POST /v1/GetStats HTTP/1.1\r\nContent-Type: application/json\r\n"
            b"Expect: 100-continue\r\nContent-Length: 2\r\n\r\n"
        )
        assert sock.recv(100).startswith(b"HTTP/1.1 100 Continue")
        sock.sendall(b"{}")
        assert sock.recv(1000).startswith(b"HTTP/1.1 200 OK")


def test_a_client_leaving_mid_stream_harms_nothing(tmp_path: Path) -> None:
    chat = GatedChat(default={"rating": 3})
    with two_doors(tmp_path, chat, grounded_replies=False) as doors:
        _upsert(doors)
        leaving = doors.door()
        response = leaving.stream("Converse", CONVERSE)
        assert "token" in json.loads(response.readline())
        leaving.close()
        response.close()
        chat.gate.set()
        assert chat.finished.wait(timeout=10)
        assert doors.http.post("GetAgent", {"agent_id": "isabella"}).status == 200


def test_the_context_gives_headers_as_metadata_and_abort_raises() -> None:
    context = GatewayContext([("authorization", "Bearer t"), ("x-a", "1")], "ipv4:127.0.0.1:9")
    assert dict(context.invocation_metadata())["authorization"] == "Bearer t"
    with pytest.raises(Aborted) as raised:
        asyncio.run(context.abort(grpc.StatusCode.UNAUTHENTICATED, "no token"))
    assert (raised.value.code, raised.value.details) == (
        grpc.StatusCode.UNAUTHENTICATED,
        "no token",
    )


def test_cors_is_off_unless_an_origin_is_allowed(tmp_path: Path, chat: ScriptedChat) -> None:
    with two_doors(tmp_path, chat, grounded_replies=False) as doors:
        page = {"Origin": "http://localhost:8000"}
        answer = doors.http.request("POST", "/v1/GetStats", b"{}", page)
        assert answer.status == 200 and "access-control-allow-origin" not in answer.headers
        preflight = doors.http.request("OPTIONS", "/v1/GetStats", b"", page)
        assert preflight.status == 405
    with two_doors(tmp_path / "cors", chat, cors_origins="http://localhost:8000") as doors:
        preflight = doors.http.request("OPTIONS", "/v1/GetStats", b"", page)
        assert preflight.status == 204
        assert preflight.headers["access-control-allow-origin"] == "http://localhost:8000"
        assert "Content-Type" in preflight.headers["access-control-allow-headers"]
        answer = doors.http.request("POST", "/v1/GetAgent", b'{"agent_id": "x"}', page)
        assert answer.status == 404
        assert answer.headers["access-control-allow-origin"] == "http://localhost:8000"
        assert answer.headers["access-control-expose-headers"] == "Retry-After"
        other = doors.http.request("POST", "/v1/GetStats", b"{}", {"Origin": "http://evil.test"})
        assert "access-control-allow-origin" not in other.headers


def test_stopping_drains_a_call_in_flight_and_closes_idle_connections(tmp_path: Path) -> None:
    chat = GatedChat(default={"rating": 3})
    with two_doors(tmp_path, chat, grounded_replies=False) as doors:
        _upsert(doors)
        idle = socket.create_connection(("127.0.0.1", doors.http_port), timeout=5)
        talking = doors.door()
        response = talking.stream("Converse", CONVERSE)
        assert json.loads(response.readline()) == {"token": "Hello"}
        stopping = asyncio.run_coroutine_threadsafe(doors.gateway.stop(10), doors.grpc.loop)
        assert idle.recv(10) == b"", "an idle connection is closed at once"
        assert not stopping.done(), "the call in flight holds the stop"
        chat.gate.set()
        rest = [json.loads(line) for line in iter(response.readline, b"")]
        assert rest[-1]["final"]["text"] == "Hello there, friend!"
        stopping.result(timeout=10)
        idle.close()
        talking.close()
        with pytest.raises(OSError):
            socket.create_connection(("127.0.0.1", doors.http_port), timeout=1)
