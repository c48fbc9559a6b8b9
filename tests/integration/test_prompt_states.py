"""Saved prompt states on the real chat model: reused across interleaved agents, and the
answers are exactly those of a model without them, whatever came before (determinism)."""

from __future__ import annotations

from pathlib import Path

import pytest

from npc_brain.action import Line
from npc_brain.config import DEFAULT_CHAT_MODEL, Settings
from npc_brain.llm.backends import chat_from_settings
from npc_brain.llm.base import Message
from npc_brain.llm.llama import LlamaChat
from npc_brain.memory.records import MemoryKind, MemoryRecord
from npc_brain.mind.prompts import clock
from npc_brain.mind.talk.prompts import conversation_turn
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


def test_a_speakers_next_turn_restores_what_stays_of_its_prompt_and_answers_the_same(
    model: Path,
) -> None:
    """A conversation's turns alternate between two speakers, so the live context never
    holds the speaker's last prompt: what stays of it (persona, instructions, the
    memories the speaker brought: Message.lasting) is saved the first time it is read
    and restored at the speaker's next turn."""
    sam = Persona("Sam Moore", 65, "wise, warm", "a retired navy officer", "running for mayor")
    mei = Persona("Mei Lin", 44, "caring", "a professor at Oak Hill College", "at home")
    party = MemoryRecord(MemoryKind.OBSERVATION, "Isabella is throwing a party", T0, 5.0)
    race = MemoryRecord(MemoryKind.OBSERVATION, "Sam Moore is running for mayor", T0, 5.0)

    def turns(chat: LlamaChat) -> list[str]:
        said: list[Line] = []
        for turn in range(4):
            speaker, listener, brought = [(sam, mei, [race]), (mei, sam, [party])][turn % 2]
            recalled = [party] if turn >= 2 and speaker is sam else []
            line, _ = conversation_turn(
                chat, speaker.name, speaker, listener.name, T0, brought, said, seed=3,
                recalled=recalled,
            )  # fmt: skip
            said.append(line or Line(speaker.name, "Hmm."))
        return [x.text for x in said]

    cached = LlamaChat(model, seed=7)
    answers = turns(cached)
    stats = cached.prompt_cache_stats
    assert stats.restores >= 2  # each speaker's second turn
    llama = cached._llama  # noqa: SLF001 - what the saved states hold, as text
    kept = [llama.detokenize(list(t)).decode() for t in cached._states._states]  # noqa: SLF001
    for memory in (race, party):  # the part each speaker's turns share, kept at the first
        assert any(text.endswith(f"You remember:\n- {memory.description}") for text in kept)
    plain = LlamaChat(model, seed=7, prompt_cache_bytes=0)
    assert turns(plain) == answers


def test_each_answer_says_how_many_of_its_prompt_tokens_were_not_evaluated_again(
    model: Path,
) -> None:
    ada = Persona("Ada Lovelace", 36, "curious, precise", "writes notes on engines", "at home")
    chat = LlamaChat(model, seed=7)
    first = chat.complete(prompt(ada, 8), max_tokens=6, schema=SCHEMA)
    second = chat.complete(prompt(ada, 9), max_tokens=6, schema=SCHEMA)  # the persona kept
    assert first.cached_tokens == 0 < second.cached_tokens < second.prompt_tokens
    assert chat.prompt_cache_stats.reused_tokens == first.cached_tokens + second.cached_tokens
