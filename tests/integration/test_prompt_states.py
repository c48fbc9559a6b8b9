"""Saved prompt states on the real chat model: reused across interleaved agents, and the
answers are exactly those of a model without them, whatever came before (determinism)."""

from __future__ import annotations

from pathlib import Path

import pytest

from npc_brain.config import DEFAULT_CHAT_MODEL, Settings
from npc_brain.llm.backends import chat_from_settings
from npc_brain.llm.base import Message
from npc_brain.llm.llama import LlamaChat
from npc_brain.mind.prompts import clock
from npc_brain.persona import Persona

REPO = Path(__file__).resolve().parents[2]
MODEL = REPO / "models" / DEFAULT_CHAT_MODEL
T0 = 1_676_365_200.0
SCHEMA = {
    "type": "object",
    "properties": {"activity": {"type": "string", "maxLength": 40}},
    "required": ["activity"],
}

pytestmark = pytest.mark.integration


def prompt(persona: Persona, hour: int) -> list[Message]:
    return [
        Message("system", f"{persona.describe()}\n\nIt is {clock(T0 + 3600 * hour)}."),
        Message("user", f"What does {persona.name} do now? Answer with JSON."),
    ]


@pytest.fixture(scope="module")
def model() -> Path:
    if not MODEL.is_file():
        pytest.skip(f"{MODEL} is missing; run `npc-brain models fetch` first")
    return MODEL


def test_interleaved_agents_reuse_states_and_answer_as_without_them(model: Path) -> None:
    ada = Persona("Ada Lovelace", 36, "curious, precise", "writes notes on engines", "at home")
    tom = Persona("Tom Moreno", 50, "grumpy, hardworking", "owns the grocery store", "at work")
    calls = [(ada, 8), (tom, 8), (ada, 9), (tom, 9), (ada, 10), (ada, 8)]
    cached = LlamaChat(model, seed=7)
    answers = [
        cached.complete(prompt(p, h), max_tokens=14, schema=SCHEMA, temperature=0.7).text
        for p, h in calls
    ]
    stats = cached.prompt_cache_stats
    assert stats.saves >= 2 and stats.restores >= 1
    assert stats.reused_tokens > 0

    plain = LlamaChat(model, seed=7, prompt_cache_bytes=0)
    for (p, h), answer in reversed(list(zip(calls, answers, strict=True))):
        again = plain.complete(prompt(p, h), max_tokens=14, schema=SCHEMA, temperature=0.7)
        assert again.text == answer, f"{p.name} at {h}:00"
    assert plain.prompt_cache_stats.restores == 0


@pytest.mark.parametrize(("megabytes", "saves"), [(0, False), (8, True)])
def test_the_prompt_cache_mb_setting_sizes_the_saved_states(
    model: Path, megabytes: int, saves: bool
) -> None:
    settings = Settings(chat_model=str(model), prompt_cache_mb=megabytes)
    chat = chat_from_settings(settings)
    assert isinstance(chat, LlamaChat)
    ada = Persona("Ada Lovelace", 36, "curious, precise", "writes notes on engines", "at home")
    tom = Persona("Tom Moreno", 50, "grumpy, hardworking", "owns the grocery store", "at work")
    for persona, hour in ((ada, 8), (tom, 8), (ada, 9), (tom, 9)):  # interleaved: prefixes repeat
        chat.complete(prompt(persona, hour), max_tokens=4, schema=SCHEMA)
    assert (chat.prompt_cache_stats.saves > 0) is saves
