"""Contradictions: a claim heard that disagrees with a belief about the same thing (the
party at 5 pm against 6 pm) is kept with its lower support and a link to the belief,
and thinking (prompts, interviews) uses the better-supported one; the Retrieve RPC
still shows both. With a scripted model and the real store."""

from __future__ import annotations

import asyncio
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from npc_brain.brain import Brain
from npc_brain.llm.fakes import HashingEmbedder, RoutedChat
from npc_brain.memory.contradictions import Contradiction
from npc_brain.memory.diffusion import HOP_CONFIDENCE
from npc_brain.memory.migrations import MIGRATIONS
from npc_brain.memory.records import MemoryKind, Observation, Source, SourceKind
from npc_brain.memory.store import WorldStore
from npc_brain.mind.perceive import AgentTick
from npc_brain.mind.talk.contradict import contradiction, slots
from npc_brain.persona import Persona, Switches
from tests.conftest import MIND_KINDS, make_brain

T0 = 1_676_246_400.0 + 9 * 3600  # 2023-02-13 09:00 UTC
CAFE = "ville:hobbs cafe"
FIVE = "Isabella's party at Hobbs Cafe starts at 5 pm."
SIX = "Isabella's party at Hobbs Cafe starts at 6 pm."
DEFAULTS: dict[str, dict[str, Any]] = {
    "rating": {"rating": 4},
    "plan": {"wake_up_hour": 7, "plan": [{"hour": 8, "activity": "working"}]},
    "steps": {"steps": [{"activity": "working", "minutes": 15, "place": CAFE}]},
    "revise": {"plan": [{"hour": 20, "activity": "reading"}]},
    "talk": {"answer": "yes"},
    "thoughts": {"planning_thought": "I will buy flowers.", "memo": "They were kind."},
}


@pytest.mark.parametrize(
    ("a", "b", "slot"),
    [
        (FIVE, SIX, "time"),
        (FIVE, "Isabella's party at Hobbs Cafe starts at 17:00 or 5 pm.", ""),  # agrees
        (FIVE, "Klaus studies at the library at 6 pm.", ""),  # another subject
        (FIVE, "Isabella's party at Hobbs Cafe is great.", ""),  # no time to disagree
        ("The market is on February 3.", "The market is on February 4th.", "date"),
        ("The market opens on Sunday.", "The market opens on Monday.", "weekday"),
    ],
)
def test_two_claims_contradict_when_they_give_the_same_thing_another_value(
    a: str, b: str, slot: str
) -> None:
    assert contradiction(a, b) == slot == contradiction(b, a)


def test_times_and_dates_are_read_in_one_form() -> None:
    assert slots("from 5 pm to 7:30pm on February 14th, a Friday") == {
        "time": {"17:00", "19:30"},
        "date": {"february 14"},
        "weekday": {"friday"},
    }


def _line(text: str, end: bool = False) -> dict[str, Any]:
    return {"utterance": text, "end_conversation": end}


async def _town(brain: Brain) -> None:
    for agent_id, name, belief in (("maria", "Maria", SIX), ("klaus", "Klaus", FIVE)):
        await brain.upsert_agent(
            "", agent_id, Persona(name, home_address=CAFE), T0, Switches(reflection=False)
        )
        written = Observation(belief, source=Source(SourceKind.AUTHOR))
        await brain.add_memory("", agent_id, T0 - 3600, MemoryKind.OBSERVATION, written)


def test_a_heard_claim_against_a_belief_is_outweighed_and_thinking_uses_the_belief(
    tmp_path: Path,
) -> None:
    told = "Hi Klaus, Isabella's party at Hobbs Cafe starts at 6 pm."
    chat = RoutedChat(
        MIND_KINDS,
        DEFAULTS,
        line=[_line(told), _line("Really? Isabella told me her party starts at 5 pm.", True)],
    )
    brain = make_brain(tmp_path, chat, HashingEmbedder(512), planner="free")

    async def scenario() -> dict[str, Any]:
        await _town(brain)
        seen = [Observation("Klaus is reading", subject="klaus", address=CAFE)]
        await brain.tick("", T0, [AgentTick("maria", seen)], lockstep=True)
        world = brain._worlds.get("default")  # noqa: SLF001 - a test's shortcut
        memories = (await brain.list_memories("", "klaus")).memories
        asked = "When does Isabella's party at Hobbs Cafe start?"
        answer = [e async for e in brain.converse("", "klaus", T0 + 600, "eval", asked, True)]
        shown = await brain.retrieve("", "klaus", T0 + 600, asked, 10)
        return {
            "klaus": world.store.contradictions.of("klaus"),
            "maria": world.store.contradictions.of("maria"),
            "ids": {m.description: m.memory_id for m in memories},
            "answer": answer[-1].text,
            "retrieved": [s.memory.description for s in shown],
        }

    out = asyncio.run(scenario())
    ids = out["ids"]
    heard = next(i for text, i in ids.items() if text.startswith("Maria said to Klaus"))
    assert out["klaus"] == [
        Contradiction("klaus", heard, ids[FIVE], "time", HOP_CONFIDENCE, 1.0, T0)
    ]
    (maria,) = out["maria"]  # the same the other way round
    assert (maria.slot, maria.support, maria.against_support) == ("time", HOP_CONFIDENCE, 1.0)
    # the interview rests on the belief: the outweighed line is not recalled to answer
    assert "5 pm" in out["answer"] and "6 pm" not in out["answer"], out["answer"]
    assert FIVE in out["retrieved"] and any("6 pm" in text for text in out["retrieved"])


def test_a_store_from_before_contradictions_opens_with_none(tmp_path: Path) -> None:
    path = tmp_path / "old.sqlite3"
    db = sqlite3.connect(path, isolation_level=None)
    for number, migration in enumerate(MIGRATIONS[:6], start=1):
        migration(db)
        db.execute(f"PRAGMA user_version={number}")
    db.close()
    store = WorldStore(path)
    assert store.contradictions.outweighed("klaus") == set()
    store.close()
