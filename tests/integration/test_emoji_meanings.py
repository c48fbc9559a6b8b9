"""Emojis chosen by meaning with the real default embedder: everyday activities get the
emoji a player would expect."""

from __future__ import annotations

from pathlib import Path

import pytest

from npc_brain.llm.llama import LlamaEmbedder
from npc_brain.mind.emoji import MEANINGS, nearest_emojis

MODEL = Path(__file__).resolve().parents[2] / "models" / "all-MiniLM-L6-v2.f16.gguf"
EXPECTED = {
    "brewing coffee": "☕",
    "making breakfast": "🍳",
    "eating lunch": "🍽",
    "sleeping": "😴",
    "going to bed": "😴",
    "reading a book": "📚",
    "sweeping the floor": "🧹",
    "chatting with Klaus": "💬",
    "painting a landscape": "🎨",
    "buying groceries": "🛒",
    "decorating for the party": "🎉",
    "playing the guitar": "🎵",
    "writing code": "💻",
    "writing in a journal": "📝",
    "jogging in the park": "🏃",
    "fixing the sink": "🔧",
    "taking a shower": "🏠",
    "waiting for the bus": "🤔",
}

pytestmark = pytest.mark.integration


def test_everyday_activities_get_the_expected_emoji() -> None:
    if not MODEL.is_file():
        pytest.skip(f"{MODEL} is missing; run `npc-brain models fetch` first")
    embedder = LlamaEmbedder(MODEL, threads=1)
    meanings = embedder.embed(list(MEANINGS.values()))
    chosen = nearest_emojis(embedder.embed(list(EXPECTED)), meanings)
    assert dict(zip(EXPECTED, chosen, strict=True)) == EXPECTED
