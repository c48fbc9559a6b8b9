"""How a line's act is decided from the classifier's votes (understand.decided_act): a
farewell ends the talk only when the vote is sure of it, or the line closes with one."""

from __future__ import annotations

import pytest

from npc_brain.mind.talk.acts import Act, Vote
from npc_brain.mind.talk.understand import aimed, decided_act, last_sentence


def vote(**shares: float) -> Vote:
    label = max(shares, key=lambda k: shares[k])
    return Vote(label, shares, "")


def test_an_unsure_farewell_is_taken_for_the_runner_up() -> None:
    # "Fair day to you, ferryman." at the start of a talk: a greeting as much as a goodbye
    assert decided_act("Fair day to you.", vote(farewell=0.38, greeting=0.3)) == Act.GREETING
    assert decided_act("Safe travels!", vote(farewell=0.45, greeting=0.3)) == Act.FAREWELL


def test_a_line_that_closes_with_a_farewell_is_one() -> None:
    whole = vote(request=0.4, farewell=0.3)
    assert decided_act("The shaft lift is stuck. Later.", whole, vote(farewell=0.8)) == Act.FAREWELL
    # a last sentence that is only maybe a farewell does not overrule the line
    assert decided_act("Open the vault. NOW.", whole, vote(farewell=0.45)) == Act.REQUEST


def test_a_question_like_no_act_asks_a_fact_unless_it_is_surely_nothing() -> None:
    assert decided_act("Who keeps the lighthouse?", vote(other=0.4, fact=0.3)) == Act.FACT
    assert decided_act("Are you a robot?", vote(other=0.8, fact=0.1)) == Act.OTHER


def test_the_last_sentence_of_a_line() -> None:
    assert last_sentence("I must get back to the mine. See you!") == "See you!"
    assert last_sentence("See you!") == "See you!"


@pytest.mark.parametrize(
    ("line", "threatens"),
    [
        ("you're a washed-up old drunk", True),
        ("shut up nerd", True),
        ("witch", True),
        ("give me the boat for 50 or I sink her tonight", True),
        ("I'll burn ur shack down", True),
        ("Took a goblin's club on the flat of my sword and now it's bent", False),
        ("some thug just stole my purse by the well!! lock him up!", False),
        ("two bowls of stew and be quick about it, I'm starving", False),
    ],
)
def test_a_threat_is_aimed_at_the_listener(line: str, threatens: bool) -> None:
    """A line read as a threat is taken for its runner-up act unless it speaks to the
    listener, opens with an order or is a word or three."""
    assert aimed(line) is threatens
