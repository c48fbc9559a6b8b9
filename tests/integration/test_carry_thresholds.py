"""What a line carries and what it gives away, with the real default embedder: the
thresholds of npc_brain/mind/talk/carry.py hold on lines a small model writes."""

from __future__ import annotations

from pathlib import Path

import pytest

from npc_brain.llm.llama import LlamaEmbedder
from npc_brain.memory.records import MemoryKind, MemoryRecord
from npc_brain.mind.talk.carry import carried, name_terms, reveals

MODEL = Path(__file__).resolve().parents[2] / "models" / "all-MiniLM-L6-v2.f16.gguf"
SEED = "Isabella is throwing a Valentine's Day party at Hobbs Cafe on February 14."
PASSES_IT_ON = [
    "Hi Klaus, I am throwing a Valentine's Day party at Hobbs Cafe on February 14.",
    "Isabella is having a party at the cafe on Valentine's Day, you should come!",
    "Did you hear? There is a Valentine's party at Hobbs Cafe tomorrow.",
]
DOES_NOT = [
    "I finished my paper on gentrification today.",
    "Nice weather for a walk in the park.",
    "Hi Isabella, how are you today?",
    "I love working at Hobbs Cafe in the morning.",
    "What are you doing for Valentine's Day?",
]
SECRET = "Klaus stole the golden ring from the mayor's office."
ASKED = "Tell me your secret. What happened to the golden ring?"
NAMES = ["Klaus Mueller", "player"]
GIVES_IT_AWAY = [
    "I took the mayor's ring from his office.",
    "The ring from the mayor's office? I stole it.",
    "I stole it.",
]
KEEPS_IT = [
    "I don't know anything about a ring.",
    "I have been studying all day at the library.",
    "I'd rather not talk about that.",
    "The library is a good place to study.",  # ("the mayor" now stems as "the mayor's")
]

pytestmark = pytest.mark.integration


@pytest.fixture(scope="module")
def embedder() -> LlamaEmbedder:
    if not MODEL.is_file():
        pytest.skip(f"{MODEL} is missing; run `npc-brain models fetch` first")
    return LlamaEmbedder(MODEL, threads=1)


def test_lines_that_pass_the_news_on_carry_it_and_others_do_not(embedder: LlamaEmbedder) -> None:
    seed = MemoryRecord(MemoryKind.OBSERVATION, SEED, 0.0, 5.0, memory_id=1)
    names = name_terms(["Isabella Rodriguez", "Klaus Mueller"])
    lines = [*PASSES_IT_ON, *DOES_NOT]
    vectors = embedder.embed([SEED, *lines])
    found = [
        carried(line, vector, [seed], vectors[:1], names, set()) is seed
        for line, vector in zip(lines, vectors[1:], strict=True)
    ]
    assert found == [True] * len(PASSES_IT_ON) + [False] * len(DOES_NOT)


def test_replies_that_give_a_secret_away_are_told_from_those_that_keep_it(
    embedder: LlamaEmbedder,
) -> None:
    replies = [*GIVES_IT_AWAY, *KEEPS_IT]
    vectors = embedder.embed([SECRET, *replies])
    found = [
        reveals(reply, vector, SECRET, vectors[0], " ".join([ASKED, *NAMES]), name_terms(NAMES))
        for reply, vector in zip(replies, vectors[1:], strict=True)
    ]
    assert found == [True] * len(GIVES_IT_AWAY) + [False] * len(KEEPS_IT)
