"""Deterministic stand-ins for unit tests. Never used where a test needs the real model."""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Mapping, Sequence
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
