"""Chat and embeddings from an OpenAI-compatible server (llama.cpp's server, vLLM,
Ollama, LM Studio, llama-cpp-python's server): the model as a setting, not a rewrite.

Constrained output. A schema-constrained call asks the server to constrain its output
(`constrain` says how: `json_schema` sends response_format {"type": "json_schema",
"json_schema": {...}}, which llama.cpp's server, vLLM, Ollama and LM Studio honour;
`json_object` sends {"type": "json_object", "schema": ...}, which llama-cpp-python's
server honours; `none` sends nothing and puts the schema in the prompt; `auto` starts
with json_schema and steps down whenever the server refuses the request's
response_format). Whatever the server does, the answer is then validated against the
schema. An invalid answer is retried once, told what was wrong; if that is invalid
too, the call answers the empty text, which every caller's parser turns into its
documented safe default (idle action, neutral rating, default day plan, "continue"...).
Such fallbacks are counted (`counters`) and logged.

Streaming. `on_token` receives the text of every attempt as it arrives: a retry's text
follows a failed attempt's. `Completion.text` is the validated answer (or "").
"""

from __future__ import annotations

import json
import logging
import threading
from collections import Counter
from collections.abc import Mapping, Sequence
from contextlib import closing
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from npc_brain.config import CONSTRAIN_MODES
from npc_brain.errors import FailedPrecondition
from npc_brain.llm.base import Completion, Message, TokenSink, normalise_rows
from npc_brain.llm.markup import Defuser
from npc_brain.llm.openai_http import ApiClient, ApiError, Endpoint, ModelServerUnavailable
from npc_brain.llm.schema_check import answer_error

log = logging.getLogger(__name__)
_STEP_DOWN = {"json_schema": "json_object", "json_object": "none"}
EMBED_BATCH = 64
# Chat-template markers of common model families: data never becomes a role tag, whatever
# template the server renders (the embedded backend reads the exact list from the GGUF).
KNOWN_MARKUP = (
    "<|im_start|>",
    "<|im_end|>",
    "<|endoftext|>",
    "<|begin_of_text|>",
    "<|start_header_id|>",
    "<|end_header_id|>",
    "<|eot_id|>",
    "<start_of_turn>",
    "<end_of_turn>",
    "<|system|>",
    "<|user|>",
    "<|assistant|>",
    "<|end|>",
    "[INST]",
    "[/INST]",
    "<s>",
    "</s>",
)


class BackendCounters:
    """Thread-safe event counts of a remote backend (for `models check` and logs).

    answers: schema-constrained calls answered; invalid: attempts whose answer broke the
    schema; repaired: calls whose retry was valid; fallbacks: calls that answered "".
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._counts: Counter[str] = Counter()

    def add(self, name: str) -> None:
        with self._lock:
            self._counts[name] += 1

    def snapshot(self) -> dict[str, int]:
        with self._lock:
            return dict(self._counts)


@dataclass
class _Attempt:
    text: str
    prompt_tokens: int
    completion_tokens: int
    truncated: bool
    cached_tokens: int = 0


class OpenAIChat:
    """A ChatModel served by an OpenAI-compatible /chat/completions endpoint.

    `model` empty: the first model the server lists under /models. Calls may run at
    once up to the endpoint's concurrency (the server's parallel slots). `seed` is sent
    with calls that name none, so the same inputs sample the same answers; `extra`
    fields (server-specific sampling, such as llama.cpp's repeat_penalty) with every call.
    """

    def __init__(
        self,
        endpoint: Endpoint,
        model: str = "",
        *,
        constrain: str = "auto",
        repair_attempts: int = 1,
        seed: int | None = None,
        extra: Mapping[str, Any] | None = None,
        client: ApiClient | None = None,
    ) -> None:
        if constrain not in CONSTRAIN_MODES:
            raise ValueError(f"constrain must be one of {CONSTRAIN_MODES}, not {constrain!r}")
        self.client = client or ApiClient(endpoint)
        self.model = model or first_model(self.client)
        self.model_id = f"openai-api:{self.model}"
        self.counters = BackendCounters()
        self._mode = "json_schema" if constrain == "auto" else constrain
        self._auto = constrain == "auto"
        self._repairs = repair_attempts
        self._seed = seed  # sent when a call names none, as the embedded model uses its own
        self._extra = dict(extra or {})  # server-specific sampling fields, sent every call
        self._defuse = Defuser(KNOWN_MARKUP)
        self._mode_lock = threading.Lock()

    @property
    def constrain_mode(self) -> str:
        """How constrained calls are sent now (auto mode may have stepped down)."""
        return self._mode

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
        chat = [{"role": m.role, "content": self._defuse(m.content)} for m in messages]
        sampling: dict[str, Any] = self._extra | {
            "max_tokens": max_tokens,
            "temperature": temperature,
        }
        seed = self._seed if seed is None else seed
        if seed is not None:
            sampling["seed"] = seed
        if schema is None:
            free = self._attempt(chat, sampling, None, on_token)
            return _total([free], free.text, free.truncated)
        self.counters.add("answers")
        attempts: list[_Attempt] = []
        for repair in range(self._repairs + 1):
            answer = self._attempt(chat, sampling, schema, on_token)
            attempts.append(answer)
            error = answer_error(answer.text, schema)
            if error is None:
                if repair:
                    self.counters.add("repaired")
                return _total(attempts, answer.text, answer.truncated)
            self.counters.add("invalid")
            if answer.truncated:
                error += f" (the answer was cut off after {max_tokens} tokens: keep it shorter)"
            log.warning("%s broke its schema: %s", self.model_id, error)
            chat = [*chat, *_repair_turns(answer.text, error, schema)]
        self.counters.add("fallbacks")
        log.warning(
            "%s: no valid answer after %d attempts; callers use their safe defaults "
            "(fallbacks so far: %d)",
            self.model_id,
            len(attempts),
            self.counters.snapshot()["fallbacks"],
        )
        return _total(attempts, "", False)

    def _attempt(
        self,
        chat: list[dict[str, str]],
        sampling: dict[str, Any],
        schema: Mapping[str, Any] | None,
        on_token: TokenSink | None,
    ) -> _Attempt:
        while True:
            mode = self._mode
            body: dict[str, Any] = {"model": self.model, "messages": chat, **sampling}
            if schema is not None:
                body.update(_constraint(mode, schema, chat))
            try:
                if on_token is None:
                    return _from_answer(self.client.post("/chat/completions", body))
                return self._stream(body, on_token)
            except ApiError as error:
                if not (self._auto and schema is not None and _refuses_format(error, mode)):
                    raise
                self._step_down(mode, error)

    def _stream(self, body: dict[str, Any], on_token: TokenSink) -> _Attempt:
        body = {**body, "stream": True, "stream_options": {"include_usage": True}}
        pieces: list[str] = []
        usage: Mapping[str, Any] = {}
        finish = None
        # closing(): a listener that leaves (on_token raises) frees the slot at once
        with closing(self.client.stream("/chat/completions", body)) as events:
            for event in events:
                if not isinstance(event, dict):
                    continue
                usage = event.get("usage") or usage
                for choice in event.get("choices") or ():
                    delta = choice.get("delta") if isinstance(choice, dict) else None
                    piece = delta.get("content") if isinstance(delta, dict) else None
                    if isinstance(piece, str) and piece:
                        pieces.append(piece)
                        on_token(piece)
                    if isinstance(choice, dict):
                        finish = choice.get("finish_reason") or finish
        text = "".join(pieces)
        prompt = usage.get("prompt_tokens")
        completion = usage.get("completion_tokens")
        return _Attempt(
            text,
            int(prompt) if isinstance(prompt, int) else _estimate_tokens(body["messages"]),
            int(completion) if isinstance(completion, int) else len(pieces),
            finish == "length",
            _cached(usage),
        )

    def _step_down(self, mode: str, error: ApiError) -> None:
        with self._mode_lock:
            if self._mode == mode:  # another thread may have stepped already
                self._mode = _STEP_DOWN[mode]
                log.warning(
                    "%s refuses response_format %s (%s); sending %s from now on",
                    self.client.endpoint.base_url,
                    mode,
                    error.status,
                    self._mode,
                )


def _constraint(mode: str, schema: Mapping[str, Any], chat: list[dict[str, str]]) -> dict[str, Any]:
    """The request fields that ask for output under `schema`."""
    if mode == "json_schema":
        spec = {"name": "answer", "schema": schema, "strict": True}
        return {"response_format": {"type": "json_schema", "json_schema": spec}}
    if mode == "json_object":
        return {"response_format": {"type": "json_object", "schema": schema}}
    hint = f"Answer only with JSON valid under this JSON schema: {json.dumps(schema)}"
    if chat and chat[-1]["role"] == "user":  # templates may refuse a late system message
        return {
            "messages": [
                *chat[:-1],
                {"role": "user", "content": f"{chat[-1]['content']}\n\n{hint}"},
            ]
        }
    return {"messages": [*chat, {"role": "user", "content": hint}]}


def _refuses_format(error: ApiError, mode: str) -> bool:
    return (
        mode in _STEP_DOWN
        and error.status in (400, 422, 500)
        and ("response_format" in error.body or "json_schema" in error.body)
    )


def _repair_turns(answer: str, error: str, schema: Mapping[str, Any]) -> list[dict[str, str]]:
    shown = answer if len(answer) <= 600 else answer[:600] + "..."
    return [
        {"role": "assistant", "content": shown},
        {
            "role": "user",
            "content": f"That answer is invalid: {error}. Answer again with only JSON "
            f"valid under this JSON schema: {json.dumps(schema)}",
        },
    ]


def _from_answer(answer: Any) -> _Attempt:
    """The text and usage of a non-streamed chat completion (odd shapes give '')."""
    choices = answer.get("choices") if isinstance(answer, dict) else None
    choice = choices[0] if isinstance(choices, list) and choices else {}
    message = choice.get("message") if isinstance(choice, dict) else None
    content = message.get("content") if isinstance(message, dict) else None
    text = content if isinstance(content, str) else ""
    usage = answer.get("usage") if isinstance(answer, dict) else None
    usage = usage if isinstance(usage, dict) else {}
    prompt, completion = usage.get("prompt_tokens"), usage.get("completion_tokens")
    return _Attempt(
        text,
        prompt if isinstance(prompt, int) else 0,
        completion if isinstance(completion, int) else max(1, len(text) // 4),
        isinstance(choice, dict) and choice.get("finish_reason") == "length",
        _cached(usage),
    )


def _cached(usage: Mapping[str, Any]) -> int:
    """The prompt tokens the server did not evaluate again, where it says so (OpenAI's
    usage.prompt_tokens_details.cached_tokens, which llama.cpp's server and vLLM give)."""
    details = usage.get("prompt_tokens_details")
    cached = details.get("cached_tokens") if isinstance(details, dict) else None
    return cached if isinstance(cached, int) and cached >= 0 else 0


def _estimate_tokens(messages: Sequence[Mapping[str, str]]) -> int:
    """About four characters a token, for servers that report no usage when streaming."""
    return sum(len(m.get("content", "")) for m in messages) // 4


def _total(attempts: Sequence[_Attempt], text: str, truncated: bool) -> Completion:
    return Completion(
        text,
        sum(a.prompt_tokens for a in attempts),
        sum(a.completion_tokens for a in attempts),
        truncated,
        sum(a.cached_tokens for a in attempts),
    )


def first_model(client: ApiClient) -> str:
    """The first model id the server lists under /models."""
    listing = client.get("/models")
    data = listing.get("data") if isinstance(listing, dict) else None
    if not isinstance(data, list) or not data or not isinstance(data[0], dict):
        raise FailedPrecondition(f"{client.endpoint.url('/models')} lists no model; name one")
    return str(data[0]["id"])


class OpenAIEmbedder:
    """An Embedder served by an OpenAI-compatible /embeddings endpoint.

    The dimension is learnt from one embedding at construction. `model_id` names the
    remote model, so a world keeps refusing vectors of another model.
    """

    def __init__(
        self, endpoint: Endpoint, model: str = "", *, client: ApiClient | None = None
    ) -> None:
        self.client = client or ApiClient(endpoint)
        self.model = model or first_model(self.client)
        self.model_id = f"openai-api:{self.model}"
        self.dimension = 0
        self.dimension = int(self.embed(["dimension probe"]).shape[1])

    def embed(self, texts: Sequence[str]) -> NDArray[np.float32]:
        if not texts:
            return np.zeros((0, self.dimension), dtype=np.float32)
        rows: list[list[float]] = []
        for start in range(0, len(texts), EMBED_BATCH):
            batch = list(texts[start : start + EMBED_BATCH])
            answer = self.client.post("/embeddings", {"model": self.model, "input": batch})
            rows.extend(_vectors(answer, len(batch), self.dimension))
        return normalise_rows(np.asarray(rows, dtype=np.float32))


def _vectors(answer: Any, count: int, dimension: int) -> list[list[float]]:
    """The embeddings of an answer in input order; a malformed answer is an error."""
    try:
        items = sorted(answer["data"], key=lambda item: item["index"])
        vectors = [[float(x) for x in item["embedding"]] for item in items]
    except (KeyError, TypeError, ValueError) as error:
        raise ModelServerUnavailable(f"malformed embeddings answer: {error!r}") from error
    width = dimension or (len(vectors[0]) if vectors else 0)
    if len(vectors) != count or any(len(v) != width or not width for v in vectors):
        raise ModelServerUnavailable(
            f"expected {count} embeddings of dimension {width}, got {[len(v) for v in vectors]}"
        )
    return vectors
