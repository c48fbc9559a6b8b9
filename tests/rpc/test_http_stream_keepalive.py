"""A streamed Converse whose first event waits for a busy model: the gateway starts the
answer and sends a keep-alive line (empty) every STREAM_KEEPALIVE_SECONDS until it comes,
so that a client (the Godot addon's timeout_s) tells a reply that is coming from a server
that is gone; a failure before that is still a plain HTTP error."""

from __future__ import annotations

import http.client
import json
import time
from pathlib import Path

import pytest

from npc_brain.llm.fakes import StuckChat
from npc_brain.server import http as http_door
from tests.rpc.conftest import two_doors

CONVERSE = {
    "agent_id": "isabella",
    "game_time": "2023-02-13T08:05:00Z",
    "speaker_id": "player",
    "utterance": "Hi Isabella!",
}
PERSONA = {"name": "Isabella Rodriguez", "home_address": "the Ville:Hobbs Cafe"}


def _post(port: int, method: str, body: dict[str, object]) -> http.client.HTTPResponse:
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    connection.request(
        "POST", f"/v1/{method}", json.dumps(body), {"Content-Type": "application/json"}
    )
    return connection.getresponse()


def test_a_reply_waiting_for_the_model_keeps_the_stream_alive(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(http_door, "STREAM_KEEPALIVE_SECONDS", 0.2)
    chat = StuckChat(default={"utterance": "Hello there!", "end_conversation": False})
    with two_doors(tmp_path, chat, grounded_replies=False) as doors:
        try:
            upsert = {"agent_id": "isabella", "persona": PERSONA}
            assert _post(doors.http_port, "UpsertAgent", upsert).status == 200
            started = time.monotonic()
            answer = _post(doors.http_port, "Converse", CONVERSE)
            assert answer.status == 200
            assert answer.getheader("Content-Type") == "application/x-ndjson"
            assert chat.entered.wait(10), "the reply is waiting for the model"
            keepalives = [answer.readline() for _ in range(3)]
            assert keepalives == [b"\n"] * 3
            assert time.monotonic() - started < 10
            chat.release.set()
            lines = [json.loads(line) for line in iter(answer.readline, b"") if line.strip()]
            assert list(lines[-1]) == ["final"]
            assert all(list(line) == ["token"] for line in lines[:-1])
        finally:
            chat.release.set()


def test_a_failure_before_the_first_event_is_still_a_plain_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(http_door, "STREAM_KEEPALIVE_SECONDS", 0.2)
    chat = StuckChat()
    with two_doors(tmp_path, chat, grounded_replies=False) as doors:
        try:
            answer = _post(doors.http_port, "Converse", CONVERSE | {"agent_id": "nobody"})
            assert answer.status == 404
            assert json.loads(answer.read())["error"]["status"] == "NOT_FOUND"
        finally:
            chat.release.set()
