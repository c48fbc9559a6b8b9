"""A quick, scripted chat model for the engine run, served OpenAI-compatible: the
`npc-brain serve` the addon's tests talk to thinks through it (`--chat-url`) exactly as
through a remote model server. Every answer is the plainest JSON its schema allows (the
first enum value, the fewest items, a short string); a reply to a player is a friendly
sentence, streamed in pieces. What it leaves out, the model's wit and its latency, the
addon's tests do not need (on a busy 2-core machine the default model took minutes to
answer a Converse, the time a whole engine run should take)."""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from typing import Any

from tests.fake_openai import FakeOpenAI, Reply, Request, chat_answer, fake_openai

MODEL = "scripted-for-godot"
REPLY = {"utterance": "Hello! I am getting ready for the party.", "end_conversation": False}


def plainest(schema: Mapping[str, Any]) -> Any:
    """The simplest value valid under `schema` (the subset npc_brain.llm.schema_check
    knows); a `pattern` is not honoured (the server then falls back, as it must)."""
    if "const" in schema:
        return schema["const"]
    if "enum" in schema:
        return schema["enum"][0]
    kind = schema.get("type", "string")
    if isinstance(kind, list):
        kind = next((k for k in kind if k != "null"), "null")
    if kind == "object":
        properties: Mapping[str, Any] = schema.get("properties", {})
        return {name: plainest(sub) for name, sub in properties.items()}
    if kind == "array":
        count = max(int(schema.get("minItems", 0)), 1)
        count = min(count, int(schema.get("maxItems", count)))
        return [plainest(schema.get("items", {})) for _ in range(count)]
    if kind == "integer":
        return int(schema.get("minimum", 1))
    if kind == "number":
        return float(schema.get("minimum", 1))
    if kind == "boolean":
        return False
    if kind == "null":
        return None
    text = "ok"
    return (text * int(schema.get("minLength", 1)))[: int(schema.get("maxLength", 10**6))]


def answer(request: Request) -> Reply:
    body = request.body if isinstance(request.body, dict) else {}
    spec = body.get("response_format", {})
    schema = spec.get("json_schema", {}).get("schema") or spec.get("schema") or {}
    properties = schema.get("properties", {})
    value: Any = REPLY if "utterance" in properties else plainest(schema)
    text = json.dumps(value)
    if body.get("stream"):
        return Reply(pieces=[text[i : i + 6] for i in range(0, len(text), 6)])
    return chat_answer(text)


@contextmanager
def scripted_model() -> Iterator[FakeOpenAI]:
    """Serves the scripted model until the block ends; pass `--chat-url fake.url
    --chat-api-model MODEL` to `npc-brain serve`."""
    with fake_openai(default=answer) as fake:
        yield fake
