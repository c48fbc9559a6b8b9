"""The gateway's mappings: statuses, error objects, JSON parse errors, its setting."""

from __future__ import annotations

import grpc
import pytest
from google.protobuf import json_format

from npc_brain.config import load_settings
from npc_brain.errors import InvalidArgument
from npc_brain.server.http_gateway import HTTP_STATUS_OF, error_json, parse_error_message
from npc_brain.v1 import brain_pb2 as pb


def test_every_grpc_status_has_an_http_status() -> None:
    assert set(HTTP_STATUS_OF) == set(grpc.StatusCode)
    assert HTTP_STATUS_OF[grpc.StatusCode.INVALID_ARGUMENT] == 400
    assert HTTP_STATUS_OF[grpc.StatusCode.FAILED_PRECONDITION] == 400
    assert HTTP_STATUS_OF[grpc.StatusCode.UNAUTHENTICATED] == 401
    assert HTTP_STATUS_OF[grpc.StatusCode.RESOURCE_EXHAUSTED] == 429
    assert HTTP_STATUS_OF[grpc.StatusCode.UNIMPLEMENTED] == 501


def test_the_error_object_names_the_field_of_invalid_argument_only() -> None:
    message = str(InvalidArgument("observations[1].text", "is required"))
    assert error_json(grpc.StatusCode.INVALID_ARGUMENT, message) == {
        "error": {
            "status": "INVALID_ARGUMENT",
            "code": 3,
            "message": "observations[1].text: is required",
            "field": "observations[1].text",
        }
    }
    assert error_json(grpc.StatusCode.NOT_FOUND, "agent 'x': gone")["error"]["field"] == ""


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        ('{"nope": 1}', "nope: is not a field of this message"),
        ('{"observations": [{"text": "a"}, {"txt": 1}]}', "observations[1].txt: is not a field"),
        ('{"game_time": "noon"}', "game_time: Failed to parse timestamp"),
        (
            '{"observations": [{"source": {"kind": "NOPE"}}]}',
            "observations[0].source.kind: Invalid",
        ),
        ('{"observations": [{"importance": "x"}]}', "observations.importance: invalid literal"),
        ('{"agent_id": 5}', "agent_id: expected string"),
        ("{", "body: is not valid JSON (Expecting property name"),
    ],
)
def test_json_parse_errors_become_field_colon_problem(body: str, expected: str) -> None:
    with pytest.raises(json_format.ParseError) as error:
        json_format.Parse(body, pb.PerceiveRequest())
    assert parse_error_message(error.value).startswith(expected)


@pytest.mark.parametrize(("value", "ok"), [("-1", True), ("0", True), ("-2", False)])
def test_http_port_setting_bounds(value: str, ok: bool) -> None:
    if ok:
        assert load_settings(env={"NPC_BRAIN_HTTP_PORT": value}).http_port == int(value)
    else:
        with pytest.raises(InvalidArgument):
            load_settings(env={"NPC_BRAIN_HTTP_PORT": value})
