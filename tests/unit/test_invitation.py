"""An invitation heard in an NPC conversation is answered by code: yes when the listener
has nothing booked at those hours, no with what it will do instead when it has; news of
an event is no invitation. A river town, not the demo's."""

from __future__ import annotations

import asyncio
import datetime as dt
from pathlib import Path

from npc_brain.llm.fakes import HashingEmbedder
from npc_brain.memory.records import MemoryKind, Observation
from npc_brain.mind.talk.invitation import invitation, reply
from npc_brain.persona import Persona
from tests.conftest import make_brain

MONDAY = dt.datetime(2031, 3, 3, 9, 0, tzinfo=dt.UTC).timestamp()


def test_an_invitation_is_what_asks_the_listener_along() -> None:
    asked = invitation("Come to the Regatta dance at the boathouse on Friday, 7-9 pm!", MONDAY)
    assert asked is not None and asked.activity == "go to the Regatta dance at the boathouse"
    assert invitation("The Regatta dance is on Friday, 7-9 pm.", MONDAY) is None  # news
    assert invitation("Come by the mill sometime!", MONDAY) is None  # no hour


def test_free_it_accepts_booked_it_declines_with_what_it_will_do(tmp_path: Path) -> None:
    brain = make_brain(tmp_path, embedder=HashingEmbedder(64))
    dance = invitation("Come to the Regatta dance at the boathouse on Friday, 7-9 pm!", MONDAY)
    assert dance is not None

    async def scenario() -> tuple[str, str, str]:
        for agent_id in ("wren", "odo", "ida"):
            await brain.upsert_agent("", agent_id, Persona(agent_id.title()), MONDAY)
        await brain.add_memory(  # the same dance, heard of before in fewer words
            "",
            "ida",
            MONDAY,
            MemoryKind.OBSERVATION,
            Observation("The dance is on Friday at 7 pm"),
        )
        await brain.add_memory(
            "",
            "odo",
            MONDAY,
            MemoryKind.OBSERVATION,
            Observation("The Lock Keepers meeting at the Lock House is on Friday at 8 pm"),
        )
        world = brain._world("")  # noqa: SLF001 - the store the reply reads
        return reply(world, "wren", dance), reply(world, "odo", dance), reply(world, "ida", dance)

    wren, odo, ida = asyncio.run(scenario())
    assert wren == (
        "I'd love to come to the Regatta dance at the boathouse on Friday, March 7 at 7 pm!"
    )
    assert odo == (
        "I'm sorry, I can't come to the Regatta dance at the boathouse: I'll go to the Lock "
        "Keepers meeting at the Lock House then."
    )
    assert ida == wren  # its commitment to the dance is no clash with the dance
