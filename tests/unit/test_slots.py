"""What a question asks for (slots.py), in a mining colony and a river town."""

from __future__ import annotations

import datetime as dt

import pytest

from npc_brain.mind.talk.slots import Slot, ago, asked_for, holds, not_known

NOW = dt.datetime(2031, 5, 14, 15, 0, tzinfo=dt.UTC).timestamp()
PEOPLE = {"ines": "Ines Varga", "odo": "Odo Brand"}
PLACES = ["Rustpit:Assay Office:counter", "Rustpit:Shaft Nine"]


@pytest.mark.parametrize(
    ("question", "slot"),
    [
        ("When does the ore train leave?", Slot.TIME),
        ("what time's the shift change", Slot.TIME),
        ("whens the ferry in", Slot.TIME),
        ("How long have you run the mill?", Slot.DURATION),
        ("Why is Shaft Nine closed?", Slot.REASON),
        ("how come the lamps are out?", Slot.REASON),
        ("What made you leave the river?", Slot.REASON),
        ("Do you know who sells rope?", Slot.PERSON),
        ("where's the assay office", Slot.PLACE),
        ("How much does a lamp cost?", Slot.AMOUNT),
        ("how many barges came in?", Slot.COUNT),
        ("Is the bridge safe?", None),
        ("Tell me about the flood.", None),
    ],
)
def test_a_question_asks_for_what_its_wh_phrase_says(question: str, slot: Slot | None) -> None:
    assert asked_for(question) == slot


@pytest.mark.parametrize(
    ("slot", "sentence", "expected"),
    [
        (Slot.TIME, "The ore train leaves at 0600 every day.", True),
        (Slot.TIME, "The ferry comes in on Saturday.", True),
        (Slot.TIME, "The ore train was late again.", False),
        (Slot.REASON, "Shaft Nine is closed because the roof cracked.", True),
        (Slot.REASON, "Shaft Nine is closed.", False),
        (Slot.PERSON, "Odo sells rope by the coil.", True),
        (Slot.PERSON, "Rope is sold by the coil.", False),
        (Slot.AMOUNT, "A lamp costs 4 scrip.", True),
        (Slot.COUNT, "Three barges came in.", True),
        (Slot.AMOUNT, "Barges came in.", False),
        (Slot.PLACE, "The assay office is by the lift.", True),
    ],
)
def test_a_sentence_holds_what_a_slot_asks_for_or_not(
    slot: Slot, sentence: str, expected: bool
) -> None:
    assert holds(slot, sentence, NOW, PEOPLE, PLACES) is expected


def test_when_an_event_was_is_said_from_the_game_day() -> None:
    hour = 3600.0
    assert ago(NOW - hour, NOW) == "earlier today"
    assert ago(NOW - 20 * hour, NOW) == "yesterday"
    assert ago(NOW - 3 * 24 * hour, NOW) == "3 days ago"
    assert ago(NOW - 30 * 24 * hour, NOW) == "4 weeks ago"


def test_not_knowing_names_what_was_asked() -> None:
    assert not_known(Slot.TIME) == "I don't know when, exactly."
    assert not_known(Slot.AMOUNT) == "I don't know how much, exactly."


@pytest.mark.parametrize(
    ("question", "why"),
    [
        ("why are you selling the boat?", True),
        ("how come the gate's shut?", True),
        ("why not sell me two?", False),
        ("why don't you come along?", False),
        ("what's the price?", False),
    ],
)
def test_a_question_opened_by_why_asks_a_reason_unless_it_proposes(
    question: str, why: bool
) -> None:
    from npc_brain.mind.talk.wh import asks_a_reason

    assert asks_a_reason(question) is why
