"""Relationships: after each conversation each agent rewrites its view of the other (the
model's constrained sentence, else one built from the talk), kept per pair in the store;
the next conversation's prompts give it first; an old store opens without any."""

from __future__ import annotations

import asyncio
import re
import sqlite3
from pathlib import Path
from typing import Any

from npc_brain.action import Line
from npc_brain.brain import Brain
from npc_brain.llm.fakes import RoutedChat
from npc_brain.memory.migrations import MIGRATIONS
from npc_brain.memory.records import ANYONE, MemoryKind, MemoryRecord, Observation, Sharing
from npc_brain.memory.store import WorldStore
from npc_brain.mind.perceive import AgentTick
from npc_brain.mind.talk.prompts import thoughts_schema
from npc_brain.mind.talk.relations import fallback, last_open_line
from npc_brain.persona import Persona, Switches
from tests.conftest import MIND_KINDS, make_brain

T0 = 1_676_246_400.0 + 9 * 3600  # 2023-02-13 09:00 UTC
CAFE = "ville:hobbs cafe"
DEFAULTS: dict[str, dict[str, Any]] = {
    "rating": {"rating": 4},
    "talk": {"answer": "yes"},
    "plan": {"wake_up_hour": 7, "plan": [{"hour": 8, "activity": "working"}]},
    "steps": {"steps": [{"activity": "working", "minutes": 15, "place": CAFE}]},
    "revise": {"plan": [{"hour": 20, "activity": "reading"}]},
}
BOND = "Klaus and I are becoming good friends over coffee."


def _line(text: str, end: bool = False) -> dict[str, Any]:
    return {"utterance": text, "end_conversation": end}


def _thoughts(relationship: str | None) -> dict[str, Any]:
    answer = {"planning_thought": "I will bake a cake.", "memo": "Klaus likes cake."}
    return answer if relationship is None else {**answer, "relationship": relationship}


async def _meet(brain: Brain, at: float, doing: str = "reading") -> None:
    seen = [Observation(f"Klaus is {doing} at the counter", subject="klaus", address=CAFE)]
    await brain.tick("", at, [AgentTick("isabella", seen)], lockstep=True)


async def _town(brain: Brain) -> None:
    for agent_id, name in (("isabella", "Isabella"), ("klaus", "Klaus")):
        await brain.upsert_agent(
            "", agent_id, Persona(name, home_address=CAFE), T0, Switches(reflection=False)
        )


def test_each_side_keeps_its_view_of_the_other_and_the_next_talk_starts_from_it(
    tmp_path: Path,
) -> None:
    chat = RoutedChat(
        MIND_KINDS,
        DEFAULTS,
        line=[_line("Hi Klaus, the coffee is fresh."), _line("Thanks, I love it here.", True)] * 2,
        thoughts=[
            _thoughts(BOND),
            _thoughts("Bad answer"),  # Klaus's: not the pattern's; no crash
            _thoughts("Klaus and I talk every morning now."),
            _thoughts(None),
        ],
    )
    brain = make_brain(
        tmp_path, chat, planner="free", afterthoughts="model", conversation_cooldown_minutes=30
    )

    async def scenario() -> tuple[list[Any], list[Any]]:
        await _town(brain)
        await _meet(brain, T0)
        first = (
            await brain.relationships("", "isabella"),
            await brain.relationships("", "klaus"),
        )
        await _meet(brain, T0 + 3600, "drinking tea")
        return list(first), [
            await brain.relationships("", "isabella"),
            await brain.relationships("", "klaus"),
        ]

    (isabella, klaus), (isabella_after, klaus_after) = asyncio.run(scenario())
    ((view,), (klaus_view,)) = isabella, klaus
    assert (view.other_id, view.summary, view.conversations, view.updated) == (
        "klaus",
        BOND,
        1,
        T0,
    )
    assert klaus_view.summary == (
        'Isabella and I have talked once. Last time Isabella said: "Hi Klaus, the coffee is fresh."'
    )
    ((view,), (klaus_view,)) = isabella_after, klaus_after
    assert (view.summary, view.conversations) == ("Klaus and I talk every morning now.", 2)
    assert klaus_view.summary.startswith("Isabella and I have talked 2 times.")
    line_prompts = [p for kind, p in chat.prompts if kind == "line"]
    assert f"What you think of Klaus: {BOND}" in line_prompts[2]
    assert "What you think of" not in line_prompts[0]
    thought_prompts = [p for kind, p in chat.prompts if kind == "thoughts"]
    assert f"Before it, you thought: {BOND}" in thought_prompts[2]


def test_the_relationship_sentence_is_the_agents_own_about_the_other() -> None:
    pattern = thoughts_schema("Klaus")["properties"]["relationship"]["pattern"]  # type: ignore[index]
    assert re.match(pattern, "Klaus and I are good friends now.")
    assert not re.match(pattern, "Isabella and I are good friends now.")
    assert not re.match(pattern, "We are friends.")


def test_a_store_from_before_relationships_opens_with_none(tmp_path: Path) -> None:
    path = tmp_path / "old.sqlite3"
    db = sqlite3.connect(path, isolation_level=None)
    for number, migration in enumerate(MIGRATIONS[:5], start=1):
        migration(db)
        db.execute(f"PRAGMA user_version={number}")
    db.close()
    store = WorldStore(path)
    assert store.relationships.of("klaus") == []
    store.relationships.save("klaus", "maria", "Maria and I study together.", T0)
    assert store.relationships.get("klaus", "maria") is not None
    store.close()
    (version,) = sqlite3.connect(path).execute("PRAGMA user_version").fetchone()
    assert version == len(MIGRATIONS)


def test_a_plain_view_quotes_only_a_line_the_agent_may_tell_anyone() -> None:
    lines = [Line("klaus", "I stole the ring."), Line("maria", "Oh no."), Line("klaus", "Bye.")]
    said = [_memory(Sharing(share_with=("maria",))), _memory(), _memory()]
    assert last_open_line("klaus", lines, said) == "Bye."
    assert last_open_line("klaus", lines[:2], said[:2]) == ""
    assert fallback("Klaus Mueller", "", 3) == "Klaus and I have talked 3 times."


def _memory(sharing: Sharing = ANYONE) -> MemoryRecord:
    return MemoryRecord(MemoryKind.DIALOGUE, "a line", T0, 5.0, sharing=sharing)


def test_thoughts_and_lines_that_do_not_fit_the_town_are_not_kept(tmp_path: Path) -> None:
    spanish = "Hola Klaus, la fiesta es en el cafe de Isabella."
    chat = RoutedChat(
        MIND_KINDS,
        DEFAULTS,
        line=[
            _line(spanish),  # drawn again, twice
            _line(spanish),
            _line("Hi Klaus, the coffee is fresh."),
            _line("Thanks, Isabella, I love it here.", True),
        ],
        thoughts=[
            {
                "planning_thought": "I will bake a cake for Sarah Jones.",  # a stranger
                "memo": "Klaus likes cake.",
                "relationship": "Klaus and I sono amici, e la storia di una amicizia.",
            },
            _thoughts(BOND),
        ],
    )
    brain = make_brain(tmp_path, chat, planner="free", afterthoughts="model")

    async def scenario() -> tuple[list[Line], list[str], str]:
        await _town(brain)
        await _meet(brain, T0)
        action, _ = await brain.act("", "isabella", T0, 0)
        memories = (await brain.list_memories("", "isabella", [MemoryKind.THOUGHT])).memories
        (view,) = await brain.relationships("", "isabella")
        return list(action.chat), [m.description for m in memories], view.summary

    lines, thoughts, view = asyncio.run(scenario())
    assert [line.text for line in lines] == [
        "Hi Klaus, the coffee is fresh.",
        "Thanks, Isabella, I love it here.",
    ]
    assert thoughts == ["Klaus likes cake."]
    assert view.startswith("Klaus and I have talked once.")  # built by code instead
