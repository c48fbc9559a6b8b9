"""Phrases the composers say: a place in directions (scene.place_phrase), the first
sentence of a persona's identity in a greeting (social.first_sentence); in a mining
colony and a river town."""

from __future__ import annotations

import pytest

from npc_brain.mind.talk.scene import place_phrase
from npc_brain.mind.talk.social import first_sentence


@pytest.mark.parametrize(
    ("address", "said"),
    [
        ("Rustpit:Level 4:assay office", "the assay office at Level 4"),
        ("Rustpit:Ring C:canteen", "the canteen at Ring C"),
        ("Millbrook:Tanner's Yard:drying racks", "the drying racks at Tanner's Yard"),
        ("Millbrook:The Drowned Rat:taproom", "the taproom at The Drowned Rat"),
        ("Millbrook:Ferry Landing:ferry", "the Ferry Landing"),
        ("Millbrook:Grain Exchange:hall:counter", "the hall at the Grain Exchange"),
        ("Millbrook:Market", "the Market"),
    ],
)
def test_a_place_is_said_as_its_spot_in_its_area(address: str, said: str) -> None:
    assert place_phrase(address) == said


@pytest.mark.parametrize(
    ("identity", "first"),
    [
        ("I'm the assayer of Rustpit. I weigh every ounce of ore.", "I'm the assayer of Rustpit."),
        ("I'm Dr. Ines Varga, of St. Agnes. I set bones.", "I'm Dr. Ines Varga, of St. Agnes."),
        ("I run the ferry", "I run the ferry"),
    ],
)
def test_a_greeting_says_the_first_sentence_of_who_the_npc_is(identity: str, first: str) -> None:
    assert first_sentence(identity) == first
