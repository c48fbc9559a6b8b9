"""Deterministic stand-ins for unit tests. Never used where a test needs the real model."""

from __future__ import annotations

import hashlib
import json
import re
import threading
from collections.abc import Mapping, Sequence, Set
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from numpy.typing import NDArray

from npc_brain.llm.base import Completion, Message, TokenSink, normalise_rows


@dataclass
class ChatCall:
    """What a ScriptedChat was asked."""

    messages: list[Message]
    max_tokens: int
    schema: Mapping[str, Any] | None
    seed: int | None


@dataclass
class ScriptedChat:
    """Answers from a queue of scripted replies (strings, or dicts sent as JSON).

    When the queue is empty it answers with `default`; streamed answers arrive
    in pieces of `chunk` characters.
    """

    model_id: str = "scripted-chat"
    default: str | dict[str, Any] = ""
    chunk: int = 3
    replies: list[str | dict[str, Any]] = field(default_factory=list)
    history: list[ChatCall] = field(default_factory=list)

    def enqueue(self, *replies: str | dict[str, Any]) -> None:
        self.replies.extend(replies)

    def complete(
        self,
        messages: Sequence[Message],
        *,
        max_tokens: int,
        schema: Mapping[str, Any] | None = None,
        seed: int | None = None,
        temperature: float = 0.0,
        on_token: TokenSink | None = None,
    ) -> Completion:
        self.history.append(ChatCall(list(messages), max_tokens, schema, seed))
        reply = self.replies.pop(0) if self.replies else self.default
        text = reply if isinstance(reply, str) else json.dumps(reply)
        if on_token is not None:
            for start in range(0, len(text), self.chunk):
                on_token(text[start : start + self.chunk])
        prompt_tokens = sum(len(m.content.split()) for m in messages)
        return Completion(text, prompt_tokens, max(1, len(text) // self.chunk))


@dataclass
class StuckChat(ScriptedChat):
    """A ScriptedChat whose every call waits for `release` (`timeout_s` at most) before
    answering; `entered` is set as soon as a call arrives."""

    release: threading.Event = field(default_factory=threading.Event)
    entered: threading.Event = field(default_factory=threading.Event)
    timeout_s: float = 60.0

    def complete(
        self,
        messages: Sequence[Message],
        *,
        max_tokens: int,
        schema: Mapping[str, Any] | None = None,
        seed: int | None = None,
        temperature: float = 0.0,
        on_token: TokenSink | None = None,
    ) -> Completion:
        self.entered.set()
        self.release.wait(timeout=self.timeout_s)
        return super().complete(
            messages,
            max_tokens=max_tokens,
            schema=schema,
            seed=seed,
            temperature=temperature,
            on_token=on_token,
        )


@dataclass
class GatedChat(ScriptedChat):
    """Streams a conversation turn (a streamed call whose schema asks for an `utterance`)
    in two pieces: `turn`'s first `split` characters, then, once `gate` is set (10 s at
    most), the rest; `finished` is set after. Other calls answer as a ScriptedChat."""

    turn: str = '{"utterance": "Hello there, friend!", "end_conversation": false}'
    split: int = 20
    gate: threading.Event = field(default_factory=threading.Event)
    finished: threading.Event = field(default_factory=threading.Event)

    def complete(
        self,
        messages: Sequence[Message],
        *,
        max_tokens: int,
        schema: Mapping[str, Any] | None = None,
        seed: int | None = None,
        temperature: float = 0.0,
        on_token: TokenSink | None = None,
    ) -> Completion:
        if on_token is None or schema is None or "utterance" not in schema["properties"]:
            return super().complete(
                messages,
                max_tokens=max_tokens,
                schema=schema,
                seed=seed,
                temperature=temperature,
                on_token=on_token,
            )
        on_token(self.turn[: self.split])
        if not self.gate.wait(timeout=10):
            raise TimeoutError("the test never opened the gate")
        on_token(self.turn[self.split :])
        self.finished.set()
        return Completion(self.turn, 10, 10)


@dataclass
class FailingChat(ScriptedChat):
    """Fails as a broken model would, with a RuntimeError: a streamed call first receives
    `partial`. With `streamed_only`, unstreamed calls answer as a ScriptedChat instead."""

    partial: str = '{"utterance": "I was say'
    streamed_only: bool = False

    def complete(
        self,
        messages: Sequence[Message],
        *,
        max_tokens: int,
        schema: Mapping[str, Any] | None = None,
        seed: int | None = None,
        temperature: float = 0.0,
        on_token: TokenSink | None = None,
    ) -> Completion:
        if on_token is None and self.streamed_only:
            return super().complete(
                messages, max_tokens=max_tokens, schema=schema, seed=seed, temperature=temperature
            )
        if on_token is not None:
            on_token(self.partial)
        raise RuntimeError("the model fell over")


@dataclass
class ScoringChat(ScriptedChat):
    """A ScriptedChat that is also an OptionScorer: every option question is answered
    `shares` (and recorded in `history` with max_tokens 0)."""

    shares: list[float] = field(default_factory=list)

    def option_probabilities(
        self, messages: Sequence[Message], *, answer_prefix: str, options: Sequence[str]
    ) -> tuple[list[float], Completion]:
        self.history.append(ChatCall(list(messages), 0, None, None))
        return list(self.shares), Completion("", 10, 2)


@dataclass
class SchemaChat:
    """Answers every call with the first answer its JSON schema admits (a string if it
    has none): `prefer` among enum values that offer it (or the label of it that a
    decomposition offers: its last parts, "Fish Market:stalls"), else the first value; the first
    of anyOf/oneOf; arrays of minItems (at least one); numbers at their minimum, else 1;
    false; and `text` for every string."""

    model_id: str = "schema-chat"
    text: str = "text"
    prefer: str | None = None

    def complete(
        self,
        messages: Sequence[Message],
        *,
        max_tokens: int,
        schema: Mapping[str, Any] | None = None,
        seed: int | None = None,
        temperature: float = 0.0,
        on_token: TokenSink | None = None,
    ) -> Completion:
        text = json.dumps(self.answer(schema or {"type": "string"}))
        if on_token is not None:
            on_token(text)
        return Completion(text, 10, 5)

    def answer(self, schema: Mapping[str, Any]) -> Any:
        """The first valid answer of `schema`, as JSON-ready data."""
        if "enum" in schema:
            values = schema["enum"]
            if self.prefer is None:
                return values[0]
            prefer = self.prefer
            return next((v for v in values if prefer == v or prefer.endswith(f":{v}")), values[0])
        for key in ("anyOf", "oneOf"):
            if key in schema:
                return self.answer(schema[key][0])
        kind = schema.get("type", "object")
        if kind == "object":
            return {k: self.answer(v) for k, v in schema.get("properties", {}).items()}
        if kind == "array":
            return [self.answer(schema.get("items", {}))] * max(1, schema.get("minItems", 1))
        if kind in ("integer", "number"):
            return schema.get("minimum", 1)
        if kind == "boolean":
            return False
        return self.text


class RoutedChat:
    """Answers by the kind of question, told by the schema: the first of `kinds` whose
    fields are all among its properties. A kind answers from its queue in `queues`, then
    with its entry in `defaults` (else {}); `calls` lists the kinds asked, in order, and
    `prompts` each call's kind with its messages' text. A streamed answer arrives whole."""

    model_id = "routed-chat"

    def __init__(
        self,
        kinds: Mapping[str, Set[str]],
        defaults: Mapping[str, dict[str, Any]] | None = None,
        /,
        **queues: list[dict[str, Any]],
    ) -> None:
        self.kinds = dict(kinds)
        self.defaults = dict(defaults or {})
        self.queues = {kind: list(replies) for kind, replies in queues.items()}
        self.calls: list[str] = []
        self.prompts: list[tuple[str, str]] = []

    def complete(
        self,
        messages: Sequence[Message],
        *,
        max_tokens: int,
        schema: Mapping[str, Any] | None = None,
        seed: int | None = None,
        temperature: float = 0.0,
        on_token: TokenSink | None = None,
    ) -> Completion:
        keys = set((schema or {}).get("properties", {}))
        kind = next((k for k, fields in self.kinds.items() if fields <= keys), None)
        if kind is None:
            raise LookupError(f"no kind of question has the fields {sorted(keys)}")
        self.calls.append(kind)
        self.prompts.append((kind, "\n".join(m.content for m in messages)))
        queue = self.queues.get(kind, [])
        reply = queue.pop(0) if queue else self.defaults.get(kind, {})
        text = json.dumps(reply)
        if on_token is not None:
            on_token(text)
        return Completion(text, 10, 5)


class HashingEmbedder:
    """Bag-of-words vectors from hashed lowercase words: texts sharing words are close."""

    model_id = "hashing-embedder"

    def __init__(self, dimension: int = 64) -> None:
        self.dimension = dimension

    def embed(self, texts: Sequence[str]) -> NDArray[np.float32]:
        out = np.zeros((len(texts), self.dimension), dtype=np.float32)
        for row, text in enumerate(texts):
            for word in re.findall(r"[a-z0-9']+", text.lower()):
                digest = hashlib.blake2b(word.encode(), digest_size=4).digest()
                out[row, int.from_bytes(digest, "little") % self.dimension] += 1.0
        return normalise_rows(out)


class CountingEmbedder(HashingEmbedder):
    """A HashingEmbedder keeping every batch it was asked to embed."""

    def __init__(self, dimension: int = 64) -> None:
        super().__init__(dimension)
        self.batches: list[list[str]] = []

    @property
    def embedded(self) -> list[str]:
        """Every text embedded, in order."""
        return [text for batch in self.batches for text in batch]

    def embed(self, texts: Sequence[str]) -> NDArray[np.float32]:
        self.batches.append(list(texts))
        return super().embed(texts)


class GatedEmbedder(HashingEmbedder):
    """A HashingEmbedder whose calls wait until `gate` is set: a slow embedder, for
    tests of what must not wait for an embedding (and what must)."""

    def __init__(self, dimension: int = 64) -> None:
        super().__init__(dimension)
        self.gate = threading.Event()
        self.started = threading.Event()  # set by the first call

    def embed(self, texts: Sequence[str]) -> NDArray[np.float32]:
        self.started.set()
        if not self.gate.wait(timeout=60):
            raise TimeoutError("the embedder's gate never opened")
        return super().embed(texts)
