"""The tree's one way to read words (npc_brain/words.py) and times (memory/when.py):
each reader on lines from the tests' settings (a space station, a fishing village)."""

from __future__ import annotations

from pathlib import Path

import pytest

from npc_brain.demo import days
from npc_brain.memory.lexical import terms
from npc_brain.memory.when import clock_times, dates, days_of_month, past_tense, without_times
from npc_brain.mind.talk.answers import key_terms
from npc_brain.words import (
    closed_class,
    lower_words,
    names,
    only_a_noun,
    phrases,
    sentences,
    spans,
    stem,
    tokens,
)


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


def test_phrases_part_a_rambling_line_at_commas_dashes_and_ellipses() -> None:
    line = "look, i'm skint - no coin... whatever work you've got i'll do it. just don't"
    assert phrases(line) == [
        *("look", "i'm skint", "no coin", "whatever work you've got i'll do it", "just don't"),
    ]


def test_a_word_names_a_closed_compound_by_its_last_part() -> None:
    assert names("shoe", "horseshoe") and names("axe", "pickaxe") and names("bag", "bag")
    assert not any(names(a, b) for a, b in (("ale", "whale"), ("pie", "magpie"), ("net", "bonnet")))


def test_a_word_that_can_only_be_a_noun() -> None:
    assert only_a_noun("recipe") and only_a_noun("scrubber")
    assert not any(only_a_noun(w) for w in ("tears", "love", "please", "for", "mate", "vasquez"))


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


def test_english_small_words_and_their_contractions_are_closed_class() -> None:
    assert all(closed_class(w) for w in ("the", "whom", "would", "i'm", "don't", "they'll"))
    assert all(closed_class(w) for w in ("cant", "wont", "dont", "didnt"))  # as typed
    assert not any(closed_class(w) for w in ("saffron", "bay", "tomas's", "o'clock"))


def test_one_list_of_small_words_serves_talk_the_index_and_the_judge() -> None:
    assert terms("What did I buy from Tomas's shop at bay 4? I'd say the NEAR one") == [
        *("buy", "tomas", "shop", "bay", "4", "say", "one"),
    ]
    assert key_terms("Do you know who's selling the boat today?") == {"sell", "boat"}
    assert days.content_words("spending time at the forge in the morning") == {"forg"}


def test_no_module_writes_its_own_stopword_list() -> None:
    tree = Path(__file__).resolve().parents[2]
    own = [
        str(path.relative_to(tree))
        for folder in ("npc_brain", "bench")
        for path in sorted((tree / folder).rglob("*.py"))
        if "STOPWORD" in path.read_text().upper()
    ]
    assert own == []


@pytest.mark.parametrize(
    ("text", "past"),
    [
        ("What did I buy from you?", True),
        ("Who cracked the safe?", True),
        ("the man that cracked the safe", True),
        ("how much to get a busted drone working again?", False),  # an adjective
        ("my cracked visor needs a new seal", False),
        ("a chipped blade needs grinding", False),
        ("Where am I supposed to park this thing?", False),  # a participle of the present
        ("is the gate closed?", False),
        ("is it true you sold the boat?", True),  # "sold" too far from the "is"
        ("what was sold?", True),
    ],
)
def test_a_past_form_after_a_determiner_is_no_verb_in_the_past(text: str, past: bool) -> None:
    assert past_tense(text) is past
