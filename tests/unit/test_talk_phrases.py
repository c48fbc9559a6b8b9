"""Phrases the composers say: a place in directions (scene.place_phrase), the first
sentences of a persona's identity in a greeting (social.introduction); in a mining
colony and a river town."""

from __future__ import annotations

import pytest

from npc_brain.mind.talk.realise import asks_yes_or_no
from npc_brain.mind.talk.scene import place_phrase
from npc_brain.mind.talk.social import introduction


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
        # what it is says little: what it does too
        (
            "I'm a widow. I run the boarding house and cook for the miners. I'm nosy.",
            "I'm a widow. I run the boarding house and cook for the miners.",
        ),
        ("I'm the ferryman. I take folk across.", "I'm the ferryman. I take folk across."),
    ],
)
def test_a_greeting_says_what_the_npc_is_and_what_it_does_when_that_says_little(
    identity: str, first: str
) -> None:
    assert introduction(identity) == first


@pytest.mark.parametrize(
    ("line", "polar"),
    [
        ("Do you sell rope?", True),
        ("Can I get a room for the night?", True),
        ("Got any hooks?", True),
        ("Is the ferry running?", True),
        ("How much is a lamp?", False),
        ("What do you sell?", False),
        ("Tell me about the mine", False),
    ],
)
def test_a_yes_no_question_opens_with_an_auxiliary(line: str, polar: bool) -> None:
    assert asks_yes_or_no(line) is polar
