"""Commitments read once, when a memory is written: an event with its hours and day, kept
as rows of game time in the memory's transaction, deleted with it, found for a day's
hours however old the memory; and made for the memories a store already held when it
is migrated. Settings: a mountain monastery and a harbour, not the demo's town."""

from __future__ import annotations

import asyncio
import datetime as dt
import sqlite3
from pathlib import Path

import pytest

from npc_brain.llm.fakes import HashingEmbedder
from npc_brain.memory.commitments import commitments_in
from npc_brain.memory.migrations import MIGRATIONS, m009_commitments
from npc_brain.memory.records import MemoryKind, Observation
from npc_brain.persona import Persona
from tests.conftest import make_brain

MONDAY = dt.datetime(2031, 3, 3, 9, 0, tzinfo=dt.UTC).timestamp()  # Monday 3 March, 9 am


def _said(commitments: list[object]) -> list[tuple[str, str, float]]:
    return [
        (
            c.activity,  # type: ignore[attr-defined]
            dt.datetime.fromtimestamp(c.start, dt.UTC).strftime("%a %d %H:%M"),  # type: ignore[attr-defined]
            (c.end - c.start) / 3600,  # type: ignore[attr-defined]
        )
        for c in commitments
    ]


@pytest.mark.parametrize(
    ("text", "found"),
    [
        (
            'Brother Anselm said to Tomas: "Come to the Vigil service at the Chapel on '
            'Wednesday, 7-9 pm!"',
            [("go to the Vigil service at the Chapel", "Wed 05 19:00", 2.0)],
        ),
        (
            "The Harbour feast is on March 4 from 6 pm to 10 pm",
            [("go to the Harbour feast", "Tue 04 18:00", 4.0)],
        ),
        (
            "Ines said the wedding is on Saturday at 3 pm",
            [("go to the wedding", "Sat 08 15:00", 1.0)],
        ),
        (
            "Ruth is holding an auction at the Assay Office on Wednesday from 10 am to 12 pm",
            [("go to the auction at the Assay Office", "Wed 05 10:00", 2.0)],
        ),
        ("a meeting at 5 pm", [("go to the meeting", "Mon 03 17:00", 1.0)]),
        ("a meeting at 8 am", []),  # an hour already past when it was said
        ("There was a meeting yesterday at 10 am", []),
        ("The abbot said a service will be held some day", []),  # no hour
        ("Tomas rang the bell at 6 am", []),  # no event
        ("Tomas plans to show the boat to a buyer on Friday at 10 am", []),  # a verb
        ("We race the ferry on Friday at 6 am", []),
        ("Tomas can't make the Harbour feast on Friday at 6 pm", []),  # declined
        (  # a plan's items: the event's own hour, and no hour taken for its place
            "Elin Varga's plan for March 4: sail out with the tide at 5 am, haul the nets "
            "at 9 am, sell the catch at the fish market at noon",
            [("go to the market", "Tue 04 12:00", 1.0)],
        ),
    ],
)
def test_an_event_its_hours_and_its_day(text: str, found: list[tuple[str, str, float]]) -> None:
    assert _said(commitments_in(text, MONDAY)) == found


def test_a_commitment_is_written_with_its_memory_and_deleted_with_it(tmp_path: Path) -> None:
    brain = make_brain(tmp_path, embedder=HashingEmbedder(64))
    invite = 'Ines said to Tomas: "Come to the Harbour feast on Friday, 6-10 pm!"'

    async def scenario() -> None:
        await brain.upsert_agent("", "tomas", Persona("Tomas"), MONDAY)
        memory = await brain.add_memory(
            "", "tomas", MONDAY, MemoryKind.DIALOGUE, Observation(invite)
        )
        store = brain._world("").store  # noqa: SLF001 - the store itself is tested
        friday = MONDAY - 9 * 3600 + 4 * 86400
        booked = store.commitments("tomas", friday, friday + 86400)
        assert [(m, c.activity) for m, c in booked] == [
            (memory.memory_id, "go to the Harbour feast")
        ]
        assert store.commitments("tomas", MONDAY, friday) == []
        await brain.forget_memory("", "tomas", str(memory.memory_id))
        assert store.commitments("tomas", friday, friday + 86400) == []

    asyncio.run(scenario())


def test_an_event_heard_of_makes_its_place_known(tmp_path: Path) -> None:
    brain = make_brain(tmp_path, embedder=HashingEmbedder(64))
    invite = 'Ines said to Tomas: "Come to the feast at the Red Boar on Friday, 6-10 pm!"'
    taproom, cellar = "Saltmere:Red Boar:taproom", "Saltmere:Red Boar:taproom:cellar door"

    async def scenario() -> list[str]:
        await brain.upsert_agent("", "ines", Persona("Ines", home_address=taproom), MONDAY)
        await brain.upsert_agent(
            "", "tomas", Persona("Tomas", home_address="Saltmere:boat"), MONDAY
        )
        store = brain._world("").store  # noqa: SLF001 - the store itself is tested
        store.add_places("ines", [cellar], MONDAY)
        assert taproom not in store.places("tomas")
        await brain.add_memory("", "tomas", MONDAY, MemoryKind.DIALOGUE, Observation(invite))
        return store.places("tomas")

    known = asyncio.run(scenario())
    assert taproom in known and cellar not in known  # the room, not each object in it


def test_a_migrated_store_finds_the_commitments_of_its_old_memories() -> None:
    db = sqlite3.connect(":memory:")
    commitments = MIGRATIONS.index(m009_commitments)
    for migration in MIGRATIONS[:commitments]:
        migration(db)
    db.execute(
        "INSERT INTO agents (agent_id, persona_json, reflection_enabled, planning_enabled)"
        " VALUES ('tomas', '{}', 1, 1)"
    )
    db.execute(
        "INSERT INTO memories (agent_id, kind, description, subject, predicate, object,"
        " address, source_kind, source_agent_id, created, last_accessed, importance,"
        " evidence_json, depth, embedding)"
        " VALUES ('tomas', 0, ?, '', '', '', '', 0, '', ?, ?, 3, '[]', 0, x'')",
        ("The Harbour feast is on March 4 from 6 pm to 10 pm", MONDAY, MONDAY),
    )
    m009_commitments(db)
    rows = db.execute("SELECT activity, end - start FROM commitments").fetchall()
    assert rows == [("go to the Harbour feast", 4 * 3600.0)]
