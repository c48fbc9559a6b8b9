"""What people of an occupation are asked to do (talk/roles.py, data/services.tsv), read
from personas of the tests' settings: a space station, a fishing village, a fantasy
town."""

from __future__ import annotations

import pytest

from npc_brain.mind.talk.roles import occupation_words, services


@pytest.mark.parametrize(
    ("learned", "asked"),
    [
        ("the station's medic, who runs the med bay on Ring A", "look at your arm"),
        ("keeps the Red Boar tavern, where the fishermen drink", "pour you a drink"),
        ("runs the boarding house by the harbour", "give you a room for the night"),
        ("the blacksmith of Oakvale, who forges swords", "shoe your horse"),
        ("teaches the village children their letters", "teach you to read"),
        ("the harbour master of Gullport", "record the sale of your boat in the harbour register"),
        ("the town's registrar, who keeps the deeds", "write it into the register"),
    ],
)
def test_an_occupation_is_asked_what_its_people_are(learned: str, asked: str) -> None:
    assert asked in services(learned)


@pytest.mark.parametrize(
    "learned",
    [
        "a bard who sings at the Red Boar tavern",  # at the tavern, not its keeper
        "an old fisherman, selling his boat",
        "",
    ],
)
def test_a_place_one_is_only_at_gives_no_occupation(learned: str) -> None:
    assert "pour you a drink" not in services(learned)


def test_where_one_is_is_left_out_until_the_next_clause() -> None:
    assert occupation_words("a bard at the Red Boar, who came from Highcastle") == [
        *("a", "bard", "who", "came"),
    ]
