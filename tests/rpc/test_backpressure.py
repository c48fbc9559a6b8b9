"""Overload is refused, not absorbed: the tick path (Perceive with an importance, Act and
Tick with max_wait_ms=0) keeps answering while the model is busy; calls beyond
max_concurrent_rpcs get RESOURCE_EXHAUSTED with a retry hint on both doors; connections
beyond http_max_connections get 429."""

from __future__ import annotations

import json
import socket
import threading
from pathlib import Path
from typing import Any

import grpc
from google.protobuf.timestamp_pb2 import Timestamp

from npc_brain.llm.fakes import ScriptedChat, StuckChat
from npc_brain.v1 import brain_pb2 as pb
from tests.rpc.conftest import TwoDoors, two_doors

T0 = Timestamp(seconds=1_676_275_200)
REPLY = {"utterance": "Let me think...", "end_conversation": False}
TICK_DEADLINE_S = 5.0  # generous: the point is "answers while the model is stuck", not speed


def _upsert(doors: TwoDoors, agent: str) -> None:
    persona = pb.Persona(name=agent.title(), home_address="ville:home")
    doors.stub.UpsertAgent(pb.UpsertAgentRequest(agent_id=agent, persona=persona))


def _converse_in_background(doors: TwoDoors, agent: str) -> threading.Thread:
    request = pb.ConverseRequest(
        agent_id=agent, game_time=T0, speaker_id="player", utterance="Tell me everything."
    )
    thread = threading.Thread(target=lambda: list(doors.stub.Converse(request, timeout=60)))
    thread.start()
    return thread


def test_the_tick_path_answers_while_the_model_is_busy(tmp_path: Path) -> None:
    chat = StuckChat(default=REPLY)
    with two_doors(tmp_path, chat) as doors:
        for agent in ("isabella", "klaus"):
            _upsert(doors, agent)
        talking = _converse_in_background(doors, "isabella")
        assert chat.entered.wait(timeout=30), "the model is busy with the reply"
        try:
            for i in range(20):
                now = Timestamp(seconds=T0.seconds + 60 * i)
                seen = pb.Observation(text=f"Klaus waved {i}", importance=2)
                perceived = doors.stub.Perceive(
                    pb.PerceiveRequest(agent_id="klaus", game_time=now, observations=[seen]),
                    timeout=TICK_DEADLINE_S,
                )
                assert len(perceived.memory_ids) == 1
                acted = doors.stub.Act(
                    pb.ActRequest(agent_id="klaus", game_time=now, max_wait_ms=0),
                    timeout=TICK_DEADLINE_S,
                )
                assert acted.action.address and acted.pending
                ticked = doors.stub.Tick(
                    pb.TickRequest(
                        game_time=now,
                        agents=[pb.AgentTick(agent_id="klaus", observations=[seen])],
                        max_wait_ms=0,
                    ),
                    timeout=TICK_DEADLINE_S,
                )
                assert [r.agent_id for r in ticked.results] == ["klaus"]
                answer = doors.http.post(
                    "Act", {"agent_id": "klaus", "game_time": "2023-02-13T08:00:00Z"}
                )
                assert answer.status == 200
            assert not chat.release.is_set() and talking.is_alive()
        finally:
            chat.release.set()
            talking.join(timeout=60)


def test_calls_beyond_the_limit_get_resource_exhausted_with_a_retry_hint(
    tmp_path: Path,
) -> None:
    chat = StuckChat(default=REPLY)
    with two_doors(tmp_path, chat, max_concurrent_rpcs=2) as doors:
        _upsert(doors, "isabella")
        held = [_converse_in_background(doors, "isabella") for _ in range(2)]
        try:
            assert chat.entered.wait(timeout=30)
            error = _refusal(doors)  # once both streams are admitted
            assert error.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
            assert "max_concurrent_rpcs" in error.details()
            assert dict(error.trailing_metadata())["retry-after-ms"] == "500"
            # the HTTP door counts its own calls: one slow stream there fills it up
            _fill_http_door(doors)
        finally:
            chat.release.set()
            for thread in held:
                thread.join(timeout=60)
        assert doors.stub.GetAgent(pb.GetAgentRequest(agent_id="isabella")).agent_id


def _refusal(doors: TwoDoors) -> Any:
    for _ in range(200):
        try:
            doors.stub.GetAgent(pb.GetAgentRequest(agent_id="isabella"), timeout=10)
        except grpc.RpcError as error:
            return error
        threading.Event().wait(0.02)
    raise AssertionError("never refused")


def _fill_http_door(doors: TwoDoors) -> None:
    streams = [doors.door() for _ in range(2)]
    body = {
        "agent_id": "isabella",
        "game_time": "2023-02-13T08:00:00Z",
        "speaker_id": "player",
        "utterance": "Hello?",
    }
    for door in streams:
        door.connection.request(
            "POST", "/v1/Converse", json.dumps(body), {"Content-Type": "application/json"}
        )
    for _ in range(200):  # until both streams are being served
        answer = doors.http.post("GetAgent", {"agent_id": "isabella"})
        if answer.status == 429:
            break
        threading.Event().wait(0.02)
    assert answer.status == 429
    assert answer.json()["error"]["status"] == "RESOURCE_EXHAUSTED"
    assert answer.headers["retry-after"] == "1"
    for door in streams:
        door.close()


def test_connections_beyond_the_limit_are_refused_with_429(tmp_path: Path) -> None:
    with two_doors(tmp_path, ScriptedChat(), http_max_connections=3) as doors:
        assert doors.http.post("GetStats", {}).status == 200  # connection 1 stays open
        idle = [socket.create_connection(("127.0.0.1", doors.http_port)) for _ in range(2)]
        threading.Event().wait(0.2)  # let the server take them
        extra = socket.create_connection(("127.0.0.1", doors.http_port), timeout=10)
        extra.sendall(b"POST /v1/GetStats HTTP/1.1\r\nContent-Type: application/json\r\n\r\n")
        reply = extra.makefile("rb").read()
        assert reply.startswith(b"HTTP/1.1 429 ") and b"Retry-After: 1" in reply
        extra.close()
        for sock in idle:
            sock.close()
        threading.Event().wait(0.2)
        assert doors.door().post("GetStats", {}).status == 200, "served again once freed"
