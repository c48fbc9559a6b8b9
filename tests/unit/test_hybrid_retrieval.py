"""Hybrid retrieval (retrieval = hybrid): the memories best by embedding and by BM25 in
the store's full-text index, fused by rank, then the paper's terms; a question's
temporal intent; in a lighthouse town and a mining colony."""

from __future__ import annotations

import asyncio
import datetime as dt
import sqlite3
from pathlib import Path

import numpy as np
import pytest

from npc_brain.brain import Brain
from npc_brain.llm.fakes import HashingEmbedder
from npc_brain.memory import lexical
from npc_brain.memory.lexical import match_expression
from npc_brain.memory.records import MemoryKind, Observation
from npc_brain.memory.retrieval import LEXICAL_WEIGHT, RRF_K, fused
from npc_brain.memory.when import anchor, asked_when
from npc_brain.persona import Persona
from tests.conftest import make_brain

DAY = 86400.0
NOW = dt.datetime(2031, 4, 2, 9, 0, tzinfo=dt.UTC).timestamp()
SMALL_TALK = [
    "Maren said good morning to the postman",
    "Maren talked about the weather with a fisherman",
    "Maren polished the lamp lens",
    "Maren had tea by the window",
    "Maren said the wind is cold today",
    "Maren wound the clockwork of the lamp",
]
PLANTED = "A trader named Osric Vell sold Maren a brass sextant for 40 crowns"


def keeper(tmp_path: Path, retrieval: str) -> Brain:
    brain = make_brain(
        tmp_path / retrieval,
        embedder=HashingEmbedder(512),
        importance_estimator="anchors",
        retrieval=retrieval,
    )

    async def seed() -> None:
        await brain.upsert_agent("", "maren", Persona("Maren Holt", 52), NOW - 40 * DAY)
        await brain.add_memory(
            "", "maren", NOW - 30 * DAY, MemoryKind.OBSERVATION, Observation(PLANTED)
        )
        for i, text in enumerate(SMALL_TALK):  # this morning's small talk
            at = NOW - 3 * 3600 + i * 600
            await brain.add_memory("", "maren", at, MemoryKind.OBSERVATION, Observation(text))

    asyncio.run(seed())
    return brain


def test_a_month_old_fact_beats_this_mornings_small_talk_for_a_question_about_it(
    tmp_path: Path,
) -> None:
    question = "Who sold you the sextant, Maren?"
    hybrid = asyncio.run(keeper(tmp_path, "hybrid").retrieve("", "maren", NOW, question, k=3))
    assert hybrid[0].memory.description == PLANTED
    assert hybrid[0].lexical_rank == 1 and hybrid[0].dense_rank >= 1
    # the paper's formula, on the same memories: this morning's talk crowds it out
    paper = asyncio.run(keeper(tmp_path, "paper").retrieve("", "maren", NOW, question, k=3))
    assert PLANTED not in [s.memory.description for s in paper]
    assert all(s.lexical_rank == 0 and s.dense_rank == 0 for s in paper)


def test_a_past_time_named_in_a_question_becomes_its_window(tmp_path: Path) -> None:
    brain = keeper(tmp_path, "hybrid")
    found = asyncio.run(brain.retrieve("", "maren", NOW, "What happened 30 days ago?", k=5))
    assert [s.memory.description for s in found] == [PLANTED]


def test_rank_fusion_adds_the_reciprocal_ranks_of_both_lists_bm25_weighed_less() -> None:
    dense, lexical = np.array([1, 0, 3]), np.array([2, 1, 0])
    w = LEXICAL_WEIGHT
    expected = [1 / (RRF_K + 1) + w / (RRF_K + 2), w / (RRF_K + 1), 1 / (RRF_K + 3)]
    assert fused(dense, lexical) == pytest.approx(expected)
    assert fused(np.array([0]), np.array([0])) == pytest.approx([0.0])


@pytest.mark.parametrize(
    ("question", "expression"),
    [
        ("Who sold the sextant?", '"sold" OR "sextant"'),
        ("what's shaft 9's depth", '"shaft" OR "9" OR "depth"'),
        ('the "of" AND NEAR(sextant* NOT -rope)', '"sextant" OR "rope"'),
        ("is it?", ""),
    ],
)
def test_a_question_is_searched_by_its_content_words_each_quoted(
    question: str, expression: str
) -> None:
    assert match_expression(question) == expression


def test_the_full_text_index_follows_every_insert_and_delete_in_their_transaction(
    tmp_path: Path,
) -> None:
    brain = keeper(tmp_path, "hybrid")
    world = brain._world("")  # noqa: SLF001 - the store under the brain
    stored = world.store.lexical("maren", "sextant", 10)
    assert len(stored) == 1
    assert world.store.forget("maren", stored[0])
    assert world.store.lexical("maren", "sextant", 10) == []
    with pytest.raises(sqlite3.OperationalError), world.store._transaction() as db:  # noqa: SLF001
        db.execute("INSERT INTO memories_fts(rowid, description) VALUES (?, ?)", (10**6, "sextant"))
        db.execute("SELECT * FROM no_such_table")  # fails: the whole write rolls back
    assert world.store.lexical("maren", "sextant", 10) == []


@pytest.mark.parametrize(
    ("question", "window", "looks_back"),
    [
        ("What did you do yesterday?", True, True),
        ("Who came to the assay office last week?", True, True),
        ("Who sold you the sextant, Maren?", False, True),
        ("how's the weather", False, False),
        ("What will you do tomorrow?", False, False),  # a window ahead: no memories yet
        ("What inspires you right now?", False, False),  # the present: recency's to weigh
        ("What did you do today?", True, True),
    ],
)
def test_the_temporal_intent_of_a_question(question: str, window: bool, looks_back: bool) -> None:
    intent = asked_when(question, NOW)
    assert (intent.window is not None) == window
    assert intent.looks_back == looks_back


def test_a_word_too_common_in_the_world_is_not_searched_by(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    brain = keeper(tmp_path, "hybrid")
    store = brain._world("").store  # noqa: SLF001 - the store under the brain
    assert len(store.lexical("maren", "Maren and the sextant", 10)) == 7  # all say "Maren"
    monkeypatch.setattr(lexical, "COMMON", 3)  # "maren" is in 7 memories: too common now
    assert len(store.lexical("maren", "Maren and the sextant", 10)) == 1


def _hours(window: object) -> tuple[str, str]:
    start, end = (dt.datetime.fromtimestamp(t, dt.UTC) for t in (window.start, window.end))  # type: ignore[attr-defined]
    return start.strftime("%d %H"), end.strftime("%d %H")


@pytest.mark.parametrize(
    ("question", "window"),
    [
        ("What did you do yesterday evening?", ("01 18", "02 00")),
        ("What were you doing the evening before last?", ("31 18", "01 00")),
        ("What did you get up to on the 21st in the morning?", ("21 06", "21 12")),
        ("What did you do on the 11th?", ("11 00", "12 00")),
        ("What did you do on the 30th?", ("30 00", "31 00")),  # of March, not of February
        ("What happened this month?", ("01 00", "01 00")),
        ("Anything new since Monday?", ("31 00", "02 09")),  # up to now
        ("Did anything happen in the last few days?", ("30 09", "02 09")),
        ("What happened over the past week?", ("26 09", "02 09")),
        ("Can you come by on Friday at 0300?", ("04 02", "04 04")),  # a station's clock
        ("Got anything on for the next few days?", ("02 09", "05 09")),  # from now
        ("What are you doing tomorrow from 1400?", ("03 13", "03 15")),
    ],
)
def test_a_part_of_a_day_an_ordinal_day_and_a_calendar_month(
    question: str, window: tuple[str, str]
) -> None:
    """A part of the day narrows its day; a lone ordinal is a day of a month (dateparser
    reads it as a month); a month is the calendar's, from its 1st; a span since a time
    ends now; a 24-hour clock's "0300" is an hour, not a year (NOW is Wednesday 2 April,
    9 am)."""
    assert _hours(anchor(question, NOW)) == window


def test_a_length_of_time_back_is_one_ago() -> None:
    """dateparser reads "forty years" alone as ahead; "back" says ago."""
    window = anchor("My grandfather broke his leg on that roof, forty years back.", NOW)
    assert window is not None and window.end < NOW - 39 * 365 * DAY
    assert anchor("Put it back on the shelf.", NOW) is None


def test_a_part_of_a_day_named_by_an_event_is_that_of_the_events_day(tmp_path: Path) -> None:
    brain = keeper(tmp_path, "hybrid")
    day = NOW - 5 * DAY - 9 * 3600  # midnight, five days ago
    that_day = [
        (7, "The great storm tore the roof off the boathouse"),
        (10, "Maren mended a net by lamplight"),
        (19, "Maren lit the lamp for the night"),
    ]
    for hour, text in that_day:
        asyncio.run(
            brain.add_memory(
                "", "maren", day + hour * 3600, MemoryKind.OBSERVATION, Observation(text)
            )
        )
    found = asyncio.run(
        brain.retrieve("", "maren", NOW, "What did you do the morning of the storm?", k=5)
    )
    assert {s.memory.description for s in found} == {text for _, text in that_day[:2]}


def test_a_day_named_after_an_event_and_a_memory_dated_from_it(tmp_path: Path) -> None:
    """ "the morning after the storm" is the next day's; a memory that dates itself from
    the event ("the day after the storm") puts the event on the day before it."""
    brain = keeper(tmp_path, "hybrid")
    day = NOW - 5 * DAY - 9 * 3600  # midnight, five days ago
    for hour, text in [
        (7, "The sea rose over the harbour wall in the night"),
        (DAY / 3600 + 8, "Maren spent the day after the storm clearing weed off the slip"),
        (DAY / 3600 + 9, "Maren counted the broken panes of the lamp room"),
    ]:
        asyncio.run(
            brain.add_memory(
                "", "maren", day + hour * 3600, MemoryKind.OBSERVATION, Observation(text)
            )
        )
    found = asyncio.run(
        brain.retrieve("", "maren", NOW, "What did you do the morning of the storm?", k=5)
    )
    assert [s.memory.description for s in found] == [
        "The sea rose over the harbour wall in the night"
    ]
    after = asyncio.run(
        brain.retrieve("", "maren", NOW, "What did you do the morning after the storm?", k=5)
    )
    assert {s.memory.description for s in after} == {
        "Maren spent the day after the storm clearing weed off the slip",
        "Maren counted the broken panes of the lamp room",
    }


def test_a_question_that_names_only_a_day_gets_what_was_unusual_on_it(
    tmp_path: Path,
) -> None:
    """'Did anything happen on ...?' shares no word with that day's memories: what is
    unlike the rest of the stream ranks first, not what is said every day."""
    brain = keeper(tmp_path, "hybrid")
    routine = ["Maren polished the lamp lens", "Maren wound the clockwork of the lamp"]
    unusual = "A seal climbed onto the jetty and would not leave"

    async def seed() -> None:
        for back in range(2, 8):  # a week of the same chores
            for i, text in enumerate(routine):
                at = NOW - back * DAY + i * 3600
                await brain.add_memory("", "maren", at, MemoryKind.OBSERVATION, Observation(text))
        await brain.add_memory(
            "", "maren", NOW - 3 * DAY + 5 * 3600, MemoryKind.OBSERVATION, Observation(unusual)
        )

    asyncio.run(seed())
    three_days_ago = dt.datetime.fromtimestamp(NOW - 3 * DAY, dt.UTC)
    question = f"Did anything happen on the {three_days_ago.day}th?"
    found = asyncio.run(brain.retrieve("", "maren", NOW, question, k=3))
    assert found[0].memory.description == unusual
    assert {s.memory.description for s in found} == {unusual, *routine}


def test_a_time_phrase_ends_before_a_conjunction() -> None:
    """dateparser may take a conjunction along ("on friday and"): the phrase said back
    ends at the time."""
    window = anchor("it's the market on friday and i need a cart", NOW)
    assert window is not None and window.phrase == "on friday"
