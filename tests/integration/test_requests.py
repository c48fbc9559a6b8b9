"""Requests go to whoever's role they fit, with the real default models: the NPC whose
work it is grants it, another names who does it and tells what it knows of them that
bears on it. A frontier town written for this test (not the demo's, not the talk
bench's)."""

from __future__ import annotations

import asyncio
import datetime as dt
from collections.abc import Iterator
from pathlib import Path

import pytest

from npc_brain.brain import Brain
from npc_brain.config import Settings
from npc_brain.llm.backends import chat_from_settings, embedder_from_settings
from npc_brain.memory.records import MemoryKind, Observation, Source, SourceKind
from npc_brain.mind.world import WorldRegistry
from npc_brain.persona import Persona
from tests.conftest import conversed

pytestmark = pytest.mark.integration
NOW = dt.datetime(1881, 6, 8, 11, 0, tzinfo=dt.UTC).timestamp()  # a Wednesday
WORLD = "dry-creek"
CAST = {
    "hale": Persona(
        "Doc Hale",
        58,
        "patient, dry-humoured",
        "the town doctor of Dry Creek, who sets bones and stitches wounds",
        home_address="Dry Creek:Doctor's Office:surgery",
        pronouns="he",
    ),
    "sal": Persona(
        "Sal Ortiz",
        44,
        "loud, generous",
        "keeps the Lucky Spur saloon and pours the whiskey",
        lifestyle="opens the saloon at noon, sleeps in the back room",
        home_address="Dry Creek:Lucky Spur Saloon:back room",
        pronouns="she",
    ),
    "jeb": Persona(
        "Jeb Cole",
        35,
        "quiet, strong",
        "the blacksmith of Dry Creek, who shoes horses and mends wagon wheels",
        lifestyle="works the forge from dawn, drinks at the Lucky Spur Saloon at night",
        home_address="Dry Creek:Lucky Spur Saloon:back room",
        pronouns="he",
    ),
}
PLACES = [
    "Dry Creek:Doctor's Office:surgery",
    "Dry Creek:Lucky Spur Saloon:bar",
    "Dry Creek:Lucky Spur Saloon:back room",
    "Dry Creek:Cole's Forge:anvil",
]
AWAY = "Doc Hale told Jeb Cole that he is riding to Fort Clay on Friday and will be gone a week"


@pytest.fixture(scope="module")
def brain(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Brain]:
    settings = Settings(data_dir=Path(tmp_path_factory.mktemp("data")))
    embedder = embedder_from_settings(settings)
    worlds = WorldRegistry(
        settings.data_dir, embedder.model_id, embedder.dimension, settings.exact_retrieval_limit
    )
    brain = Brain(
        chat=chat_from_settings(settings), embedder=embedder, worlds=worlds, settings=settings
    )

    async def seed() -> None:
        for agent_id, persona in CAST.items():
            await brain.upsert_agent(WORLD, agent_id, persona, NOW - 72 * 3600)
            await brain.perceive(WORLD, agent_id, NOW - 72 * 3600, [], PLACES)
        heard = Source(SourceKind.HEARD, "hale")
        await brain.add_memory(
            WORLD, "jeb", NOW - 20 * 3600, MemoryKind.OBSERVATION, Observation(AWAY, source=heard)
        )

    asyncio.run(seed())
    yield brain
    brain.close()


def reply(brain: Brain, agent_id: str, line: str) -> str:
    return conversed(brain, WORLD, agent_id, NOW, line)[1].text


def test_the_npc_whose_work_it_is_grants_it(brain: Brain) -> None:
    text = reply(brain, "jeb", "Can you shoe my horse?")
    assert text.startswith("Of course"), text
    assert "horse" in text, text


def test_another_names_whose_work_it_is(brain: Brain) -> None:
    """The saloon keeper shares the blacksmith's lodging (the back room affords resting
    to both): resting makes neither a healer."""
    text = reply(brain, "sal", "Can you stitch up this cut on my hand?")
    assert "can't help" in text and "Doc Hale" in text, text


def test_what_the_npc_knows_of_whose_work_it_is_comes_with_the_name(brain: Brain) -> None:
    text = reply(brain, "jeb", "Could you stitch up this cut on my hand?")
    assert "Doc Hale" in text and "Fort Clay" in text, text


def test_a_request_in_other_words_than_the_role_still_finds_it(brain: Brain) -> None:
    """ "look at my arm" shares no word with "sets bones and stitches wounds"; a doctor
    is asked it all the same (data/services.tsv)."""
    assert reply(brain, "hale", "Doc, can you look at my arm?").startswith("Of course"), "hale"


def test_a_regular_of_the_saloon_sends_a_drink_order_to_its_keeper(brain: Brain) -> None:
    """The blacksmith drinks at the saloon every night; its keeper pours."""
    assert reply(brain, "sal", "Pour me a whiskey.").startswith("Of course")
    text = reply(brain, "jeb", "Pour me a whiskey.")
    assert "can't help" in text and "Sal Ortiz" in text, text
