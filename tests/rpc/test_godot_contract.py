"""The Godot addon's contract: every fixture in godot_addon/tests/fixtures is a request
exactly as the addon builds it (the addon's own tests check its builders still make
them) and the shape of the answer the addon reads. Each is replayed, in name order,
against the real HTTP gateway, so the addon and the server cannot drift apart."""

from __future__ import annotations

import json
import re
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest

from npc_brain.llm.fakes import ScriptedChat
from tests.rpc.conftest import TwoDoors

REPO = Path(__file__).resolve().parents[2]
ADDON = REPO / "godot_addon"
FIXTURES = sorted((ADDON / "tests" / "fixtures").glob("*.json"))
BUILDERS = ADDON / "addons" / "npc_brain" / "npc_brain_requests.gd"
NOT_REQUESTS = {"timestamp", "observation", "agent_tick"}  # builders of parts, not of requests


def _pascal(snake: str) -> str:
    return "".join(word.capitalize() for word in snake.split("_"))


def _at(value: Any, path: str) -> Any:
    """The value at a dotted path like "results[0].agent_id"."""
    for part in re.findall(r"[^.\[\]]+|\[\d+\]", path):
        value = value[int(part[1:-1])] if part.startswith("[") else value[part]
    return value


def shape_errors(value: Any, shape: Any, path: str = "") -> list[str]:
    """How `value` differs from `shape`: a type name, {key: shape} (keys required), or
    [shape] (every item)."""
    where = path or "answer"
    if isinstance(shape, dict):
        if not isinstance(value, dict):
            return [f"{where} is not an object"]
        errors = []
        for key, sub in shape.items():
            if key not in value:
                errors.append(f"{where} lacks {key!r}")
            else:
                errors += shape_errors(value[key], sub, f"{path}.{key}" if path else key)
        return errors
    if isinstance(shape, list):
        if not isinstance(value, list):
            return [f"{where} is not an array"]
        return [
            e for i, item in enumerate(value) for e in shape_errors(item, shape[0], f"{where}[{i}]")
        ]
    checks = {
        "string": lambda v: isinstance(v, str),
        "number": lambda v: isinstance(v, int | float) and not isinstance(v, bool),
        "bool": lambda v: isinstance(v, bool),
        "timestamp": lambda v: isinstance(v, str) and _is_rfc3339(v),
    }
    return [] if checks[shape](value) else [f"{where} is not a {shape}: {value!r}"]


def _is_rfc3339(text: str) -> bool:
    try:
        datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        return False
    return text.endswith("Z")


def _load(path: Path) -> dict[str, Any]:
    return json.loads(path.read_text())  # type: ignore[no-any-return]


def test_every_request_the_addon_builds_has_a_fixture() -> None:
    builders = set(re.findall(r"^static func (\w+)\(", BUILDERS.read_text(), re.M))
    assert builders > NOT_REQUESTS
    fixture_methods = {_load(path)["method"] for path in FIXTURES}
    assert {_pascal(name) for name in builders - NOT_REQUESTS} <= fixture_methods


def _replay(doors: TwoDoors, fixture: dict[str, Any]) -> list[str]:
    expect = fixture["expect"]
    if expect.get("stream"):
        response = doors.http.stream(fixture["method"], fixture["request"])
        if response.status != expect["http_status"]:
            return [f"HTTP {response.status}: {response.read()!r}"]
        events = [json.loads(line) for line in iter(response.readline, b"")]
        errors = []
        for i, event in enumerate(events):
            kinds = [k for k in event if k in expect["events"]]
            if len(event) != 1 or not kinds:
                errors.append(f"event {i} is none of {sorted(expect['events'])}: {event}")
            else:
                errors += shape_errors(event[kinds[0]], expect["events"][kinds[0]], kinds[0])
        if not events or expect["last"] not in events[-1]:
            errors.append(f"the stream does not end with {expect['last']!r}")
        answer: Any = events[-1] if events else {}
    else:
        reply = doors.http.post(fixture["method"], fixture["request"])
        if reply.status != expect["http_status"]:
            return [f"HTTP {reply.status}: {reply.body!r}"]
        answer = reply.json()
        errors = shape_errors(answer, expect["shape"])
    for path, wanted in expect.get("values", {}).items():
        if _at(answer, path) != wanted:
            errors.append(f"{path} is {_at(answer, path)!r}, not {wanted!r}")
    for path, length in expect.get("lengths", {}).items():
        if len(_at(answer, path)) != length:
            errors.append(f"{path} has {len(_at(answer, path))} items, not {length}")
    return errors


def test_every_fixture_passes_against_the_real_gateway(doors: TwoDoors, chat: ScriptedChat) -> None:
    assert len(FIXTURES) >= 10
    chat.default = {
        "rating": 4,
        "utterance": "Come to my party on the 14th!",
        "end_conversation": False,
    }
    failures = {}
    for path in FIXTURES:
        errors = _replay(doors, _load(path))
        if errors:
            failures[path.name] = errors
    assert not failures, json.dumps(failures, indent=2)


@pytest.mark.parametrize("path", FIXTURES, ids=[p.stem for p in FIXTURES])
def test_fixtures_are_well_formed(path: Path) -> None:
    fixture = _load(path)
    assert set(fixture) == {"method", "built_by", "request", "expect"}
    assert fixture["expect"]["http_status"] in {200, 400, 404}
    assert "shape" in fixture["expect"] or fixture["expect"].get("stream")
