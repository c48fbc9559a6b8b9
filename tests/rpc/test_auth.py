"""Nobody reads what is not theirs: with a token set, both doors refuse calls without it
(UNAUTHENTICATED / 401) and change nothing; health checking stays open; TLS from
cert/key files on both doors, checked with a self-signed certificate made here."""

from __future__ import annotations

import http.client
import json
import shutil
import ssl
import subprocess
from collections.abc import Iterator
from pathlib import Path

import grpc
import pytest
from google.protobuf import json_format
from grpc_health.v1 import health_pb2, health_pb2_grpc

from npc_brain.llm.fakes import ScriptedChat
from npc_brain.v1 import brain_pb2 as pb
from npc_brain.v1 import brain_pb2_grpc
from tests.rpc.conftest import TwoDoors, two_doors

TOKEN = "correct horse battery staple"
GOOD = (("authorization", f"Bearer {TOKEN}"),)
BAD = [
    (),
    (("authorization", "Bearer wrong"),),
    (("authorization", f"Bearer {TOKEN}x"),),
    (("authorization", f"Basic {TOKEN}"),),
    (("authorization", TOKEN),),
]
PERCEIVE = {
    "agent_id": "isabella",
    "game_time": "2023-02-13T08:00:00Z",
    "observations": [{"text": "the player took the key", "importance": 5}],
}


@pytest.fixture
def guarded(tmp_path: Path) -> Iterator[TwoDoors]:
    with two_doors(tmp_path, ScriptedChat(default={"rating": 3}), token=TOKEN) as doors:
        doors.stub.UpsertAgent(
            pb.UpsertAgentRequest(agent_id="isabella", persona=pb.Persona(name="Isabella")),
            metadata=GOOD,
        )
        yield doors


def _perceive() -> pb.PerceiveRequest:
    request = pb.PerceiveRequest()
    json_format.ParseDict(PERCEIVE, request)
    return request


def test_grpc_calls_without_the_right_token_are_unauthenticated(guarded: TwoDoors) -> None:
    for metadata in BAD:
        with pytest.raises(grpc.RpcError) as error:
            guarded.stub.Perceive(_perceive(), metadata=metadata)
        assert error.value.code() == grpc.StatusCode.UNAUTHENTICATED, metadata
        with pytest.raises(grpc.RpcError) as error:
            request = pb.ConverseRequest(agent_id="isabella", speaker_id="p", utterance="hi")
            list(guarded.stub.Converse(request, metadata=metadata))
        assert error.value.code() == grpc.StatusCode.UNAUTHENTICATED
    listed = guarded.stub.ListMemories(pb.ListMemoriesRequest(agent_id="isabella"), metadata=GOOD)
    assert list(listed.memories) == [], "refused calls changed nothing"
    assert guarded.stub.Perceive(_perceive(), metadata=GOOD).memory_ids


def test_health_checking_needs_no_token(guarded: TwoDoors) -> None:
    health = health_pb2_grpc.HealthStub(guarded.grpc.channel)
    assert health.Check(health_pb2.HealthCheckRequest()).status == 1  # SERVING


def test_http_calls_without_the_right_token_are_401(guarded: TwoDoors) -> None:
    for metadata in BAD:
        answer = guarded.http.request(
            "POST", "/v1/Perceive", json.dumps(PERCEIVE), headers=dict(metadata)
        )
        error = answer.json()["error"]
        assert (answer.status, error["status"]) == (401, "UNAUTHENTICATED"), metadata
    garbage = guarded.http.request("POST", "/v1/Perceive", "{not json")
    assert garbage.status == 401, "strangers are refused before their body is read"
    streamed = guarded.http.request("POST", "/v1/Converse", "{}")
    assert streamed.status == 401
    good = guarded.http.request("POST", "/v1/Perceive", json.dumps(PERCEIVE), headers=dict(GOOD))
    assert good.status == 200
    listed = guarded.http.request(
        "POST", "/v1/ListMemories", '{"agent_id": "isabella"}', headers=dict(GOOD)
    )
    assert len(listed.json()["memories"]) == 1


@pytest.fixture(scope="module")
def certificate(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """A self-signed certificate for localhost and 127.0.0.1, made with openssl."""
    if shutil.which("openssl") is None:
        pytest.skip("the openssl command is not installed; TLS is not tested here")
    folder = tmp_path_factory.mktemp("tls")
    cert, key = folder / "cert.pem", folder / "key.pem"
    subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1"]
        + ["-nodes", "-keyout", str(key), "-out", str(cert), "-days", "2"]
        + ["-subj", "/CN=localhost", "-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1"],
        check=True,
        capture_output=True,
    )
    return cert, key


def test_both_doors_speak_tls_with_the_configured_certificate(
    tmp_path: Path, certificate: tuple[Path, Path]
) -> None:
    cert, key = certificate
    settings = {"tls_cert": str(cert), "tls_key": str(key), "token": TOKEN}
    with two_doors(tmp_path, ScriptedChat(default={"rating": 3}), **settings) as doors:
        credentials = grpc.ssl_channel_credentials(root_certificates=cert.read_bytes())
        with grpc.secure_channel(f"localhost:{doors.grpc.port}", credentials) as channel:
            stub = brain_pb2_grpc.BrainStub(channel)
            agent = pb.UpsertAgentRequest(agent_id="klaus", persona=pb.Persona(name="Klaus"))
            assert stub.UpsertAgent(agent, metadata=GOOD, timeout=10).agent_id == "klaus"
        with pytest.raises(grpc.RpcError):  # plaintext is not served
            doors.stub.GetAgent(pb.GetAgentRequest(agent_id="klaus"), timeout=5)

        context = ssl.create_default_context(cafile=str(cert))
        https = http.client.HTTPSConnection("127.0.0.1", doors.http_port, context=context)
        headers = {"Content-Type": "application/json", **dict(GOOD)}
        https.request("POST", "/v1/GetAgent", '{"agent_id": "klaus"}', headers)
        answer = https.getresponse()
        assert (answer.status, json.loads(answer.read())["agent_id"]) == (200, "klaus")
        https.close()
        with pytest.raises((ConnectionError, http.client.HTTPException, OSError)):
            plain = http.client.HTTPConnection("127.0.0.1", doors.http_port, timeout=5)
            plain.request("POST", "/v1/GetAgent", '{"agent_id": "klaus"}', headers)
            plain.getresponse().read()
