"""Property: whatever a client sends, through either door, the server answers with a
documented status (never INTERNAL or UNKNOWN), never drops the connection, and keeps
serving. Requests for every RPC are generated from the message descriptors
(tests/fuzz/strategies.py); the tally of statuses is printed at the end of the run."""

from __future__ import annotations

import json
import os

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc
from hypothesis import given, settings

from npc_brain.v1 import brain_pb2 as pb
from tests.fuzz.conftest import TALLY
from tests.fuzz.strategies import http_bodies, request_types, requests, wire_bytes
from tests.rpc.conftest import TwoDoors

PROFILE = settings.get_profile(os.environ.get("NPC_BRAIN_FUZZ_PROFILE", "fuzz-ci"))
METHODS = sorted(request_types())
# Statuses the contract documents (brain.proto). INTERNAL, UNKNOWN, DATA_LOSS never.
GRPC_DOCUMENTED = {
    "OK",
    "INVALID_ARGUMENT",
    "NOT_FOUND",
    "FAILED_PRECONDITION",
    "RESOURCE_EXHAUSTED",
    "DEADLINE_EXCEEDED",
    "UNIMPLEMENTED",
}
HTTP_DOCUMENTED = {200, 400, 404, 413, 415, 429, 501, 504}


def _grpc_status(doors: TwoDoors, method: str, request: object) -> str:
    call = getattr(doors.stub, method)
    try:
        reply = call(request, timeout=20)
        if method == "Converse":
            list(reply)
    except grpc.RpcError as error:
        return error.code().name  # type: ignore[attr-defined,no-any-return]
    return "OK"


def _http_status(doors: TwoDoors, method: str, body: bytes) -> str:
    answer = doors.http.request("POST", f"/v1/{method}", body)
    assert answer.status in HTTP_DOCUMENTED, (answer.status, answer.body[:300])
    if answer.status != 200:
        return str(answer.json()["error"]["status"])
    if method == "Converse":  # a failure after the first event is the stream's last line
        for line in answer.body.splitlines():
            event = json.loads(line)
            if "error" in event:
                return str(event["error"]["status"])
    return "OK"


def _still_serving(doors: TwoDoors) -> None:
    health = health_pb2_grpc.HealthStub(doors.grpc.channel)
    assert health.Check(health_pb2.HealthCheckRequest()).status == 1  # SERVING
    agent = doors.stub.GetAgent(pb.GetAgentRequest(world_id="w2", agent_id="klaus"), timeout=10)
    assert agent.agent_id == "klaus"
    assert doors.http.post("GetAgent", {"agent_id": "isabella"}).status == 200


@pytest.mark.parametrize("method", METHODS)
def test_fuzzed_grpc_requests_get_documented_statuses(fuzzed: TwoDoors, method: str) -> None:
    @settings(PROFILE)
    @given(request=requests(method))
    def one(request: object) -> None:
        status = _grpc_status(fuzzed, method, request)
        TALLY["gRPC"][status] += 1
        assert status in GRPC_DOCUMENTED, (status, request)

    one()
    _still_serving(fuzzed)


@pytest.mark.parametrize("method", METHODS)
def test_fuzzed_http_requests_get_documented_statuses(fuzzed: TwoDoors, method: str) -> None:
    @settings(PROFILE)
    @given(body=http_bodies(method))
    def one(body: bytes) -> None:
        status = _http_status(fuzzed, method, body)
        TALLY["HTTP/JSON"][status] += 1
        assert status in GRPC_DOCUMENTED, (status, body[:300])

    one()
    _still_serving(fuzzed)


@pytest.mark.parametrize("method", METHODS)
def test_fuzzed_grpc_wire_bytes_get_documented_statuses(fuzzed: TwoDoors, method: str) -> None:
    """Bytes that are no valid message (random, or a valid request with bytes flipped,
    cut or added) are INVALID_ARGUMENT, not grpc's UNKNOWN."""
    call = fuzzed.grpc.channel.unary_stream if method == "Converse" else None
    call = call or fuzzed.grpc.channel.unary_unary
    rpc = call(f"/npc_brain.v1.Brain/{method}")

    @settings(PROFILE)
    @given(data=wire_bytes(method))
    def one(data: bytes) -> None:
        try:
            reply = rpc(data, timeout=20)
            if method == "Converse":
                list(reply)
            status = "OK"
        except grpc.RpcError as error:
            status = error.code().name  # type: ignore[attr-defined]
        TALLY["gRPC wire bytes"][status] += 1
        assert status in GRPC_DOCUMENTED, (status, data[:300])

    one()
    _still_serving(fuzzed)


def test_fuzzing_reached_past_validation() -> None:
    """The tally shows the fuzzers got answers beyond INVALID_ARGUMENT (they reach the
    brain, not just the checks); runs after the fuzz tests above."""
    for door in ("gRPC", "HTTP/JSON"):
        counts = TALLY[door]
        if sum(counts.values()) < 100:
            pytest.skip("run with the fuzz tests")
        assert counts["OK"] > 0 and counts["NOT_FOUND"] > 0, (door, counts)
