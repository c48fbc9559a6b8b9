"""llama.cpp backends (llama-cpp-python): the chat model and the embedder.

Each instance owns one llama.cpp context and serves one call at a time (a lock
guards it), so several RPCs arriving at once queue rather than corrupt its state.
The chat template is the one stored in the GGUF; JSON schemas become grammars.
"""

from __future__ import annotations

import json
import os
import threading
from collections.abc import Mapping, Sequence
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np
from llama_cpp import Llama
from llama_cpp.llama_grammar import LlamaGrammar
from numpy.typing import NDArray

from npc_brain.errors import FailedPrecondition
from npc_brain.llm.base import Completion, Message, TokenSink, normalise_rows


def _require_file(path: Path, what: str) -> None:
    if not path.is_file():
        raise FailedPrecondition(
            f"the {what} model {path} does not exist; run `npc-brain models fetch` "
            f"or point the setting at a GGUF file"
        )


@lru_cache(maxsize=64)
def _grammar(schema_json: str) -> LlamaGrammar:
    return LlamaGrammar.from_json_schema(schema_json, verbose=False)


def _threads(threads: int) -> int:
    return threads if threads > 0 else max(1, os.cpu_count() or 1)


class LlamaChat:
    """A chat model served by llama.cpp from a GGUF file."""

    def __init__(self, path: Path, *, n_ctx: int = 2048, threads: int = 0, seed: int = 0) -> None:
        _require_file(path, "chat")
        self.model_id = path.name
        self._seed = seed
        self._lock = threading.Lock()
        self._llama = Llama(
            model_path=str(path),
            n_ctx=n_ctx,
            n_threads=_threads(threads),
            seed=seed,
            verbose=False,
        )

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
        grammar = _grammar(json.dumps(schema)) if schema is not None else None
        with self._lock:
            llama: Any = self._llama  # its TypedDicts do not fit streamed chunks
            chunks = llama.create_chat_completion(
                messages=[{"role": m.role, "content": m.content} for m in messages],
                max_tokens=max_tokens,
                temperature=temperature,
                seed=self._seed if seed is None else seed,
                grammar=grammar,
                stream=True,
            )
            pieces: list[str] = []
            finish_reason = None
            for chunk in chunks:
                choice = chunk["choices"][0]
                piece = choice["delta"].get("content") or ""
                if piece:
                    pieces.append(piece)
                    if on_token is not None:
                        on_token(piece)
                finish_reason = choice.get("finish_reason") or finish_reason
            completion_tokens = len(pieces)
            prompt_tokens = max(0, self._llama.n_tokens - completion_tokens)
        return Completion(
            "".join(pieces), prompt_tokens, completion_tokens, truncated=finish_reason == "length"
        )


class LlamaEmbedder:
    """A sentence embedder served by llama.cpp (pooling as the GGUF says)."""

    def __init__(self, path: Path, *, threads: int = 0) -> None:
        _require_file(path, "embedding")
        self.model_id = path.name
        self._lock = threading.Lock()
        self._llama = Llama(
            model_path=str(path),
            embedding=True,
            n_ctx=512,
            n_threads=_threads(threads),
            verbose=False,
        )
        self.dimension = int(self._llama.n_embd())

    def embed(self, texts: Sequence[str]) -> NDArray[np.float32]:
        if not texts:
            return np.zeros((0, self.dimension), dtype=np.float32)
        with self._lock:
            rows = [self._llama.embed(text, truncate=True) for text in texts]
        return normalise_rows(np.asarray(rows, dtype=np.float32))
