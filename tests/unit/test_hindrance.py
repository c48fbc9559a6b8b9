"""What keeps an NPC from doing what it is asked, with fakes: a memory bars a request
only by the thing the request asks for, not by a time it names nor a story it tells."""

from __future__ import annotations

import asyncio
from types import SimpleNamespace

import numpy as np

from npc_brain.memory.records import MemoryKind, MemoryRecord
from npc_brain.mind.talk.acts import Act, Vote
from npc_brain.mind.talk.hindrance import hindrance
from npc_brain.mind.talk.scene import Answer, Scene
from npc_brain.mind.talk.understand import Heard
from npc_brain.persona import AgentRecord, Persona

NOW = 2_000_000_000.0
WARDEN = Persona("Kai Moreau", 40, "brisk", "runs the docks of Halcyon station", pronouns="he")


def _refusal(line: str, memory: str) -> Answer | None:
    """The warden's refusal of `line`, knowing `memory` (as near the line as can be)."""
    vector = np.array([1, 0, 0], np.float32)

    async def embed(texts: object) -> np.ndarray:
        return np.stack([vector for _ in texts])  # type: ignore[attr-defined]

    async def recall(*_: object) -> list[object]:
        return []

    heard = Heard(
        line, Act.REQUEST, Vote("request", {"request": 1.0}, ""), None, (), (), (), None, vector
    )
    known = MemoryRecord(MemoryKind.OBSERVATION, memory, NOW - 3600, 5.0, memory_id=1)
    empty = SimpleNamespace(stream=lambda _: SimpleNamespace(records=[]))  # plans nothing
    warden = AgentRecord("kai", WARDEN)
    scene = Scene(empty, warden, "player", "", NOW, heard, {}, [], recall, embed)  # type: ignore[arg-type]
    return asyncio.run(hindrance(scene, [known]))


SHUT = "Kai Moreau keeps the fuel depot closed all day while the pumps are replaced"
SEALED = "Kai Moreau sealed docking bay 3 after a coolant leak"


def test_a_memory_bars_a_request_for_the_thing_it_says_cannot_be_had() -> None:
    refused = _refusal("I need fuel from the depot.", SHUT)
    assert refused is not None and refused.sentences[0] == "I'm sorry, I can't."
    assert _refusal("I need my ship in docking bay 3.", SEALED) is not None


def test_a_time_alone_names_nothing_a_memory_bars() -> None:
    """ "Good day" shares only "day" with "closed all day"."""
    assert _refusal("Good day, warden. I would like a travel permit.", SHUT) is None


def test_what_a_sentence_of_the_past_tells_is_not_asked() -> None:
    """ "I worked next to bay 3 before they sealed it" tells; the line asks for a scan."""
    line = "I worked a double next to docking bay 3 before they sealed it. I want a scan."
    assert _refusal(line, SEALED) is None
