"""Which model backends the settings name: the embedded llama.cpp models, or
OpenAI-compatible servers when `chat_url` / `embed_url` are set."""

from __future__ import annotations

from npc_brain.config import Settings
from npc_brain.llm.base import ChatModel, Embedder
from npc_brain.llm.openai_compat import OpenAIChat, OpenAIEmbedder
from npc_brain.llm.openai_http import Endpoint


def chat_endpoint(settings: Settings) -> Endpoint:
    return Endpoint(
        settings.chat_url,
        settings.chat_api_key,
        settings.api_timeout_s,
        settings.api_retries,
        settings.chat_concurrency,
    )


def embed_endpoint(settings: Settings) -> Endpoint:
    return Endpoint(
        settings.embed_url, settings.embed_api_key, settings.api_timeout_s, settings.api_retries
    )


def chat_from_settings(settings: Settings) -> ChatModel:
    """The remote chat model when chat_url is set (the GGUF is then not loaded)."""
    if settings.chat_url:
        return OpenAIChat(
            chat_endpoint(settings),
            settings.chat_api_model,
            constrain=settings.chat_api_constrain,
            seed=settings.seed,
            extra=settings.chat_api_extra_fields(),
        )
    if settings.chat_slots > 1:
        from npc_brain.llm.batching import BatchedLlamaChat

        return BatchedLlamaChat(
            settings.chat_model_path(),
            slots=settings.chat_slots,
            n_ctx=settings.chat_context,
            threads=settings.threads,
            seed=settings.seed,
            prompt_cache_bytes=settings.prompt_cache_mb * 1024 * 1024,
            nice=settings.model_nice,
        )
    from npc_brain.llm.llama import LlamaChat  # loads llama.cpp only when it is used

    return LlamaChat(
        settings.chat_model_path(),
        n_ctx=settings.chat_context,
        threads=settings.threads,
        seed=settings.seed,
        prompt_cache_bytes=settings.prompt_cache_mb * 1024 * 1024,
    )


def embedder_from_settings(settings: Settings) -> Embedder:
    """The remote embedder when embed_url is set (the GGUF is then not loaded)."""
    if settings.embed_url:
        return OpenAIEmbedder(embed_endpoint(settings), settings.embed_api_model)
    from npc_brain.llm.llama import LlamaEmbedder

    return LlamaEmbedder(settings.embed_model_path(), threads=settings.embed_threads)


def chat_workers(settings: Settings) -> tuple[int, int]:
    """Model calls the cognition scheduler runs at once, and of those how many only a
    player's: the remote server's slots, or the embedded model's (with player_first, one
    of its slots is kept for a player's line when it has several)."""
    if settings.chat_url:
        return settings.chat_concurrency, 0
    if settings.chat_slots > 1 and settings.player_first:
        return settings.chat_slots - 1, 1
    return settings.chat_slots, 0
