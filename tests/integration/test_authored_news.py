"""What the game wrote into an NPC's memory is news it tells, and a question whether a
way is clear is one of fact, with the real default models. A mountain toll station
written for this test (not the demo's, not the talk bench's)."""

from __future__ import annotations

import asyncio
import datetime as dt
from collections.abc import Iterator
from pathlib import Path

import pytest

from npc_brain.action import Line
from npc_brain.brain import Brain
from npc_brain.config import Settings
from npc_brain.memory.records import MemoryKind, Observation, Source, SourceKind
from npc_brain.persona import Persona
from npc_brain.server.app import build_brain
from tests.conftest import conversed

pytestmark = pytest.mark.integration
NOW = dt.datetime(1790, 10, 3, 9, 0, tzinfo=dt.UTC).timestamp()
WORLD = "kessel-pass"
KEEPER = Persona(
    "Ilse Brandt",
    61,
    "wary, fair",
    "keeps the toll hut at Kessel Pass and takes the wagon toll",
    home_address="Kessel Pass:Toll Hut:counter",
    pronouns="she",
)
PLACES = [
    "Kessel Pass:Toll Hut:counter",
    "Kessel Pass:North Road:bend",
    "Kessel Pass:Chapel:nave",
]
SLIDE = "A rockslide blocked the north road below the pass yesterday evening."
TOLL = "Ilse Brandt takes a toll of 2 marks for each wagon."


@pytest.fixture(scope="module")
def brain(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Brain]:
    brain = build_brain(Settings(data_dir=Path(tmp_path_factory.mktemp("data"))))

    async def seed() -> None:
        await brain.upsert_agent(WORLD, "ilse", KEEPER, NOW - 72 * 3600)
        await brain.perceive(WORLD, "ilse", NOW - 72 * 3600, [], PLACES)
        for hours, text in ((200, TOLL), (14, SLIDE)):
            written = Observation(text, source=Source(SourceKind.AUTHOR))
            await brain.add_memory(
                WORLD, "ilse", NOW - hours * 3600, MemoryKind.OBSERVATION, written
            )

    asyncio.run(seed())
    yield brain
    brain.close()


def reply(brain: Brain, line: str, minutes: int) -> Line:
    return conversed(brain, WORLD, "ilse", NOW + 60 * minutes, line)[1]


@pytest.mark.parametrize("line", ["Any news?", "Heard anything lately?"])
def test_an_event_the_game_wrote_is_news(brain: Brain, line: str) -> None:
    """A standing fact the game wrote (the toll) is no news; an event it wrote is."""
    said = reply(brain, line, 1).text
    assert "rockslide" in said.lower(), said


def test_whether_a_way_is_clear_is_a_question_of_fact(brain: Brain) -> None:
    said = reply(brain, "Is the north road clear?", 2)
    assert said.act == "fact" and "rockslide" in said.text.lower(), said.text


def test_where_a_place_is_asks_the_way(brain: Brain) -> None:
    assert reply(brain, "Where is the chapel?", 3).act == "directions"
