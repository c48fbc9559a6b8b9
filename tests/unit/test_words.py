"""The tree's one way to read words (npc_brain/words.py) and times (memory/when.py):
each reader on lines from the tests' settings (a space station, a fishing village)."""

from __future__ import annotations

import pytest

from npc_brain.memory.when import clock_times, dates, days_of_month, without_times
from npc_brain.words import lower_words, sentences, spans, stem, tokens


def test_words_keep_their_inner_apostrophe_and_split_at_punctuation() -> None:
    assert tokens("I’m at Bay 3, don't you-know? Tomas's boat.") == [
        *("I'm", "at", "Bay", "3", "don't", "you", "know", "Tomas's", "boat"),
    ]
    assert lower_words("Got ANY hooks?") == ["got", "any", "hooks"]
    assert spans("Hi Dela") == [("Hi", 0), ("Dela", 3)]
    assert tokens("Café Ñandú") == ["Café", "Ñandú"]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("I'm the quartermaster. I run the depot.", ["I'm the quartermaster.", "I run the depot."]),
        ("Ask Dr. Lin at the med bay. She's in!", ["Ask Dr. Lin at the med bay.", "She's in!"]),
        ('He said: "Sell it." Then he left.', ['He said: "Sell it."', "Then he left."]),
        ("no end mark", ["no end mark"]),
    ],
)
def test_sentences(text: str, expected: list[str]) -> None:
    assert sentences(text) == expected


def test_a_stem_joins_forms_and_numbers_in_words() -> None:
    assert stem("running") == stem("runs") == stem("run")
    assert stem("sold") == stem("sell")
    assert stem("three") == "3"


def test_clock_times_dates_and_days() -> None:
    assert clock_times("at 5 pm, 5:30 p.m., 18:00, 0600 station time, 7am") == [
        *("17:00", "17:30", "18:00", "06:00", "07:00"),
    ]
    assert clock_times("Bay 3 sells 12 coils") == []
    assert dates("the Lantern Float on March 3rd, not February 14") == ["march 3", "february 14"]
    assert days_of_month("the 11th, or March 3") == ["11", "3"]
    assert without_times("the float on Monday, March 3 at 7 pm.").split() == [
        "the",
        "float",
        "on",
        "at",
    ]


def test_sentences_of_a_player_in_lowercase() -> None:
    assert sentences("hi. where is the depot?") == ["hi.", "where is the depot?"]
    assert sentences("Meet me at 5 p.m. tomorrow. Bring rope.") == [
        "Meet me at 5 p.m. tomorrow.",
        "Bring rope.",
    ]
