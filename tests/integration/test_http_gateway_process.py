"""The HTTP/JSON door of a real `npc-brain serve` process with the real default models:
what the Godot addon does (upsert, perceive, think, talk) over plain HTTP/1.1."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from npc_brain.config import DEFAULT_CHAT_MODEL, DEFAULT_EMBED_MODEL, REPO_MODELS_DIR
from tests.rpc.http_client import HttpDoor

pytestmark = pytest.mark.integration
T0 = "2023-02-13T08:00:00Z"


@pytest.fixture
def served(tmp_path: Path) -> Iterator[tuple[int, int]]:
    """`npc-brain serve --port 0 --http-port 0`: yields (gRPC port, HTTP port)."""
    for name in (DEFAULT_CHAT_MODEL, DEFAULT_EMBED_MODEL):
        if not (REPO_MODELS_DIR / name).exists():
            pytest.fail(f"{name} is missing: run `npc-brain models fetch` (make test does)")
    process = subprocess.Popen(
        [sys.executable, "-m", "npc_brain", "serve", "--port", "0", "--http-port", "0"]
        + ["--data-dir", str(tmp_path / "data")],
        stdout=subprocess.PIPE,
        text=True,
        env=os.environ | {"PYTHONUNBUFFERED": "1"},
    )
    assert process.stdout is not None
    grpc_line, http_line = process.stdout.readline(), process.stdout.readline()
    try:
        assert "serving npc_brain.v1.Brain on 127.0.0.1:" in grpc_line, grpc_line
        assert "serving HTTP/JSON on 127.0.0.1:" in http_line, http_line
        yield int(grpc_line.rsplit(":", 1)[1]), int(http_line.rsplit(":", 1)[1])
    finally:
        process.send_signal(signal.SIGTERM)
        assert process.wait(timeout=60) == 0, "SIGTERM must drain and exit 0"


def test_upsert_perceive_think_and_talk_over_http(served: tuple[int, int]) -> None:
    grpc_port, http_port = served
    assert grpc_port != http_port
    door = HttpDoor(http_port, timeout=60)
    try:
        persona = {
            "name": "Isabella Rodriguez",
            "age": 34,
            "innate": "friendly, outgoing",
            "currently": "planning a Valentine's Day party at Hobbs Cafe",
            "home_address": "the Ville:Hobbs Cafe",
        }
        agent = door.post("UpsertAgent", {"agent_id": "isabella", "persona": persona})
        assert agent.status == 200 and agent.json()["persona"]["name"] == "Isabella Rodriguez"
        observation = {
            "text": "Isabella is planning a Valentine's Day party at Hobbs Cafe",
            "address": "the Ville:Hobbs Cafe",
        }
        perceived = door.post(
            "Perceive", {"agent_id": "isabella", "game_time": T0, "observations": [observation]}
        )
        assert perceived.status == 200 and len(perceived.json()["memory_ids"]) == 1
        ticked = door.post(
            "Tick", {"game_time": T0, "agents": [{"agent_id": "isabella"}], "max_wait_ms": 0}
        )
        assert ticked.status == 200
        assert ticked.json()["results"][0]["action"]["address"] == "the Ville:Hobbs Cafe"
        converse = {
            "agent_id": "isabella",
            "game_time": "2023-02-13T08:05:00Z",
            "speaker_id": "player",
            "utterance": "Hi Isabella! What are you up to?",
        }
        events = list(door.stream_lines("Converse", converse))
        assert list(events[-1]) == ["final"], events[-1]
        tokens = "".join(e["token"] for e in events[:-1])
        # What streams is what stays: the tokens, joined, are the final reply.
        assert len(events) >= 2 and tokens.strip() != ""
        assert events[-1]["final"]["text"] == tokens and events[-1]["final"]["act"]
        missing = door.post("GetAgent", {"agent_id": "nobody"})
        assert missing.status == 404 and missing.json()["error"]["status"] == "NOT_FOUND"
    finally:
        door.close()
