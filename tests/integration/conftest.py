"""The integration suite through an external model server: with
NPC_BRAIN_TEST_CHAT_BACKEND=openai (and NPC_BRAIN_TEST_EMBED_BACKEND=openai) every
`npc-brain serve` these tests start thinks (and embeds) through llama-cpp-python's
OpenAI-compatible server, started here once for the package, instead of the embedded
llama.cpp models."""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest

from tests.integration.openai_server import LlamaCppServer, chat_server, embedding_server

EXTRA = "NPC_BRAIN_CHAT_API_EXTRA"
SWITCHES = {
    "NPC_BRAIN_TEST_CHAT_BACKEND": ("NPC_BRAIN_CHAT_URL", chat_server),
    "NPC_BRAIN_TEST_EMBED_BACKEND": ("NPC_BRAIN_EMBED_URL", embedding_server),
}


@pytest.fixture(scope="package", autouse=True)
def external_model_servers() -> Iterator[None]:
    started: list[LlamaCppServer] = []
    before: dict[str, str | None] = {}
    try:
        for switch, (setting, start) in SWITCHES.items():
            backend = os.environ.get(switch, "embedded")
            if backend == "embedded":
                continue
            if backend != "openai":
                raise pytest.UsageError(f"{switch} must be embedded or openai, not {backend!r}")
            server = start()
            started.append(server)
            before[setting] = os.environ.get(setting)
            os.environ[setting] = server.url
            if setting == "NPC_BRAIN_CHAT_URL":  # sample as the embedded model does
                before[EXTRA] = os.environ.get(EXTRA)
                os.environ[EXTRA] = '{"repeat_penalty": 1.0}'
        yield
    finally:
        for setting, value in before.items():
            if value is None:
                os.environ.pop(setting, None)
            else:
                os.environ[setting] = value
        for server in started:
            server.stop()
