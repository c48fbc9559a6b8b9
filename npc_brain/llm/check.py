"""`npc-brain models check`: do the configured backends answer, and do they constrain
output? One tiny schema-constrained request per chat backend (its answer must be a
value no model guesses unconstrained) and one embedding per embedder."""

from __future__ import annotations

import time
from dataclasses import dataclass

from npc_brain.config import Settings
from npc_brain.errors import NpcBrainError
from npc_brain.llm.backends import chat_endpoint, embedder_from_settings
from npc_brain.llm.base import ChatModel, Message
from npc_brain.llm.openai_compat import OpenAIChat
from npc_brain.llm.schema_check import answer_error

PROBE_SCHEMA = {
    "type": "object",
    "properties": {"word": {"enum": ["kumquat-7"]}, "count": {"type": "integer", "enum": [3]}},
    "required": ["word", "count"],
}
PROBE = [Message("user", "Greet the player in one short sentence.")]
PROBE_ERRORS = (NpcBrainError, OSError, ValueError)  # ValueError: no model listed, bad GGUF


@dataclass(frozen=True)
class CheckLine:
    """One backend's verdict; `ok` is False when it does not answer."""

    ok: bool
    text: str


def check_backends(settings: Settings) -> list[CheckLine]:
    """One line for the chat backend, one for the embedder."""
    return [check_chat(settings), check_embedder(settings)]


def check_chat(settings: Settings) -> CheckLine:
    started = time.monotonic()
    try:
        if settings.chat_url:
            chat: ChatModel = OpenAIChat(
                chat_endpoint(settings),
                settings.chat_api_model,
                constrain=settings.chat_api_constrain,
                repair_attempts=0,  # the first answer tells whether the server constrains
            )
            where = f"{settings.chat_url} model {chat.model_id.removeprefix('openai-api:')}"
        else:
            from npc_brain.llm.llama import LlamaChat

            chat = LlamaChat(settings.chat_model_path(), n_ctx=512, threads=settings.threads)
            where = f"embedded llama.cpp {settings.chat_model_path()}"
        answer = chat.complete(PROBE, max_tokens=32, schema=PROBE_SCHEMA)
    except PROBE_ERRORS as error:
        return CheckLine(False, f"chat: {settings.chat_url or 'embedded'}: FAILED: {error}")
    seconds = time.monotonic() - started
    if isinstance(chat, OpenAIChat):
        mode = chat.constrain_mode
        constrained = mode != "none" and answer_error(answer.text, PROBE_SCHEMA) is None
        how = f"response_format {mode}" if mode != "none" else "the schema in the prompt"
    else:
        constrained = answer_error(answer.text, PROBE_SCHEMA) is None
        how = "grammar"
    verdict = (
        f"constrains output ({how})"
        if constrained
        else f"does NOT constrain output ({how} ignored): answers are validated, retried "
        "once, else callers use their safe defaults (counted in the logs)"
    )
    return CheckLine(True, f"chat: {where}: answers in {seconds:.1f} s; {verdict}")


def check_embedder(settings: Settings) -> CheckLine:
    started = time.monotonic()
    where = settings.embed_url or f"embedded llama.cpp {settings.embed_model_path()}"
    try:
        embedder = embedder_from_settings(settings)
        (vector,) = embedder.embed(["The coffee machine is brewing coffee."])
    except PROBE_ERRORS as error:
        return CheckLine(False, f"embed: {where}: FAILED: {error}")
    seconds = time.monotonic() - started
    return CheckLine(
        True,
        f"embed: {where}: answers in {seconds:.1f} s; {embedder.model_id}, dimension {len(vector)}",
    )
