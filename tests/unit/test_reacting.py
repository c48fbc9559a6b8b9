"""Reactions and NPC-to-NPC conversations with a scripted model."""

from __future__ import annotations

import asyncio
from pathlib import Path

from npc_brain.brain import Brain
from npc_brain.cognition.react import parse_reaction
from npc_brain.llm.fakes import ScriptedChat
from npc_brain.memory.records import MemoryKind, Observation, Source, SourceKind
from npc_brain.persona import Persona, Switches
from tests.conftest import make_brain

T0 = 1_676_278_800.0  # 09:00
CAFE = "ville:cafe"


async def _town(brain: Brain) -> None:
    for agent_id, name in (("isabella", "Isabella"), ("klaus", "Klaus")):
        await brain.upsert_agent(
            "", agent_id, Persona(name, home_address=CAFE), T0, Switches(reflection=False)
        )


async def _settle(brain: Brain, agent_id: str, kind: MemoryKind, count: int) -> list[object]:
    for _ in range(1000):  # up to 10 s on a loaded machine
        page = await brain.list_memories("", agent_id, kinds=[kind])
        if len(page.memories) >= count:
            return list(page.memories)
        await asyncio.sleep(0.01)
    raise AssertionError(f"{agent_id} has fewer than {count} {kind.name} memories")


def test_unusable_reactions_mean_carry_on() -> None:
    assert parse_reaction("nonsense").choice == "continue"
    assert parse_reaction('{"decision": "dance", "new_activity": "x"}').choice == "continue"
    assert parse_reaction('{"decision": "talk", "new_activity": "chat"}').choice == "talk"


def test_seeing_another_agent_can_start_a_conversation_both_remember(tmp_path: Path) -> None:
    chat = ScriptedChat(default={"rating": 4})
    chat.enqueue(
        {"decision": "talk", "new_activity": "chatting"},
        {"utterance": "Klaus, come to my party!", "end_conversation": False},
        {"utterance": "I would love to.", "end_conversation": False},
        {"utterance": "See you on the 14th.", "end_conversation": True},
    )
    brain = make_brain(tmp_path, chat)

    async def scenario() -> None:
        await _town(brain)
        await brain.perceive(
            "",
            "isabella",
            T0,
            [
                Observation(
                    "Klaus is reading at the counter", subject="klaus", address=CAFE, importance=3
                )
            ],
        )
        heard = await _settle(brain, "klaus", MemoryKind.DIALOGUE, 3)
        mine = await _settle(brain, "isabella", MemoryKind.DIALOGUE, 3)
        assert {m.source for m in heard} == {
            Source(SourceKind.HEARD, "isabella"),  # type: ignore[attr-defined]
            Source(SourceKind.SEEN, "klaus"),
        }
        assert {m.source for m in mine} == {
            Source(SourceKind.SEEN, "isabella"),  # type: ignore[attr-defined]
            Source(SourceKind.HEARD, "klaus"),
        }
        action, _ = await brain.act("", "klaus", T0 + 60, 0)
        assert action.chat_with_agent_id == "isabella"
        assert [x.speaker_id for x in action.chat] == ["isabella", "klaus", "isabella"]
        assert action.chat[-1].end_conversation
        calls = len(chat.history)
        await brain.perceive(
            "",
            "isabella",
            T0 + 120,
            [Observation("Klaus waves", subject="klaus", address=CAFE, importance=3)],
        )
        await asyncio.sleep(0.1)
        assert len(chat.history) == calls  # cooldown: no new decision about Klaus yet

    asyncio.run(scenario())


def test_reacting_with_a_new_activity_replaces_the_current_action(tmp_path: Path) -> None:
    chat = ScriptedChat(default={"rating": 4})
    chat.enqueue({"decision": "react", "new_activity": "helping klaus with his books"})
    brain = make_brain(tmp_path, chat)

    async def scenario() -> str:
        await _town(brain)
        await brain.perceive(
            "",
            "isabella",
            T0,
            [Observation("Klaus dropped his books", subject="klaus", address=CAFE, importance=5)],
        )
        while not chat.history:  # the reaction is decided before the agent next acts
            await asyncio.sleep(0.01)
        for _ in range(1000):  # up to 10 s on a loaded machine
            action, _ = await brain.act("", "isabella", T0 + 60, 0)
            if action.description == "helping klaus with his books":
                return action.address
            await asyncio.sleep(0.01)
        raise AssertionError("no reaction")

    assert asyncio.run(scenario()) == CAFE
