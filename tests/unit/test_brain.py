"""The Brain facade with fakes: what it stores, what it asks the model, what it refuses."""

from __future__ import annotations

import asyncio
import threading
from pathlib import Path

import pytest

from npc_brain.action import Line
from npc_brain.brain import AgentTick, Brain
from npc_brain.errors import InvalidArgument, NotFound
from npc_brain.llm.base import Completion
from npc_brain.llm.fakes import ScriptedChat
from npc_brain.memory.records import MemoryKind, Observation, Source, SourceKind
from npc_brain.persona import Persona
from tests.conftest import make_brain

T0 = 1_676_365_200.0  # 2023-02-14 09:00 UTC
ISABELLA = Persona("Isabella Rodriguez", home_address="ville:isabella's apartment")


def run(coro):  # type: ignore[no-untyped-def]
    return asyncio.run(coro)


async def _with_agent(brain: Brain) -> None:
    await brain.upsert_agent("", "isabella", ISABELLA, T0)


def test_perceive_stores_rated_memories_and_override_skips_the_model(tmp_path: Path) -> None:
    chat = ScriptedChat()
    chat.enqueue({"rating": 9})
    brain = make_brain(tmp_path, chat)

    async def scenario() -> list[str]:
        await _with_agent(brain)
        return await brain.perceive(
            "",
            "isabella",
            T0,
            [
                Observation("a party is planned", address="ville:cafe"),
                Observation("the sky is blue", importance=2),
            ],
        )

    ids = run(scenario())
    assert len(ids) == 2 and len(chat.history) == 1
    found = run(brain.retrieve("", "isabella", T0, "party", k=5))
    assert {s.memory.description: s.memory.importance for s in found} == {
        "a party is planned": 9.0,
        "the sky is blue": 2.0,
    }
    assert brain.usage.summary("default", "isabella").calls_by_kind == {"importance": 1}


def test_retrieve_ranks_the_relevant_memory_first_and_marks_access(tmp_path: Path) -> None:
    brain = make_brain(tmp_path)

    async def scenario() -> None:
        await _with_agent(brain)
        await brain.perceive(
            "",
            "isabella",
            T0,
            [
                Observation("Valentine's Day party at Hobbs Cafe", importance=5),
                Observation("the kettle is boiling", importance=5),
            ],
        )

    run(scenario())
    later = T0 + 5 * 3600
    first = run(brain.retrieve("", "isabella", later, "Valentine's Day party", k=1))[0]
    assert first.memory.description.startswith("Valentine")
    assert first.memory.last_accessed == later
    assert first.relevance == 1.0


def test_bad_input_is_refused_naming_the_field_and_changes_nothing(tmp_path: Path) -> None:
    brain = make_brain(tmp_path)
    run(_with_agent(brain))
    with pytest.raises(InvalidArgument) as error:
        run(brain.perceive("", "isabella", T0, [Observation("fine"), Observation(" ")]))
    assert error.value.field == "observations[1].text"
    with pytest.raises(InvalidArgument, match="observations\\[0\\].importance"):
        run(brain.perceive("", "isabella", T0, [Observation("x", importance=11)]))
    with pytest.raises(InvalidArgument, match="world_id"):
        run(brain.get_agent("../etc", "isabella"))
    with pytest.raises(NotFound):
        run(brain.perceive("", "nobody", T0, [Observation("x")]))
    assert run(brain.retrieve("", "isabella", T0, "fine")) == []


def test_act_with_zero_wait_answers_at_once_and_pending_then_the_decision(tmp_path: Path) -> None:
    gate = threading.Event()

    class SlowChat(ScriptedChat):
        def complete(self, *args, **kwargs) -> Completion:  # type: ignore[no-untyped-def]
            gate.wait(10)
            return super().complete(*args, **kwargs)

    chat = SlowChat()
    chat.enqueue(
        {"activity": "opening the cafe", "place": "ville:cafe", "minutes": 60, "emoji": "☕"}
    )
    brain = make_brain(tmp_path, chat)

    async def scenario() -> None:
        await _with_agent(brain)
        await brain.perceive("", "isabella", T0, [], ["ville:cafe"])
        action, pending = await brain.act("", "isabella", T0, max_wait_ms=0)
        assert pending and action.description == "idle"
        assert action.address == "ville:isabella's apartment"
        gate.set()
        action, pending = await brain.act("", "isabella", T0 + 60, max_wait_ms=5000)
        assert not pending
        assert (action.description, action.address, action.start) == (
            "opening the cafe",
            "ville:cafe",
            T0,
        )
        again, pending = await brain.act("", "isabella", T0 + 59 * 60, max_wait_ms=0)
        assert again == action and not pending  # still running: no new model call

    run(scenario())
    assert len(chat.history) == 1


def test_a_failing_model_makes_the_agent_idle_not_crash(tmp_path: Path) -> None:
    class BrokenChat(ScriptedChat):
        def complete(self, *args, **kwargs) -> Completion:  # type: ignore[no-untyped-def]
            raise RuntimeError("model exploded")

    brain = make_brain(tmp_path, BrokenChat())

    async def scenario() -> None:
        await _with_agent(brain)
        action, pending = await brain.act("", "isabella", T0, max_wait_ms=5000)
        assert (action.description, pending) == ("idle", False)

    run(scenario())


def test_converse_streams_then_stores_both_lines_with_provenance(tmp_path: Path) -> None:
    chat = ScriptedChat()
    chat.enqueue(
        {"utterance": "Please come to my party!", "end_conversation": False}, {"rating": 6}
    )
    brain = make_brain(tmp_path, chat)

    async def scenario() -> list[str | Line]:
        await _with_agent(brain)
        return [e async for e in brain.converse("", "isabella", T0, "player", "Any plans?")]

    events = run(scenario())
    *pieces, final = events
    assert len(pieces) > 3 and "".join(pieces) == "Please come to my party!"  # type: ignore[arg-type]
    assert final == Line("isabella", "Please come to my party!", False)
    memories = run(brain.retrieve("", "isabella", T0, "party", kinds=[MemoryKind.DIALOGUE]))
    sources = {s.memory.source for s in memories}
    assert sources == {Source(SourceKind.HEARD, "player"), Source(SourceKind.SEEN, "isabella")}
    assert all(s.memory.importance == 6 for s in memories)


def test_interview_stores_nothing(tmp_path: Path) -> None:
    chat = ScriptedChat(default={"utterance": "I run a cafe.", "end_conversation": True})
    brain = make_brain(tmp_path, chat)

    async def scenario() -> None:
        await _with_agent(brain)
        events = [e async for e in brain.converse("", "isabella", T0, "eval", "Who are you?", True)]
        assert events[-1] == Line("isabella", "I run a cafe.", True)

    run(scenario())
    assert run(brain.retrieve("", "isabella", T0, "cafe")) == []


def test_tick_checks_every_agent_before_changing_any(tmp_path: Path) -> None:
    brain = make_brain(tmp_path)
    run(_with_agent(brain))
    ticks = [AgentTick("isabella", [Observation("x", importance=3)]), AgentTick("ghost")]
    with pytest.raises(NotFound):
        run(brain.tick("", T0, ticks))
    assert run(brain.retrieve("", "isabella", T0, "x")) == []


def test_memories_survive_a_new_brain_on_the_same_data_dir(tmp_path: Path) -> None:
    brain = make_brain(tmp_path)

    async def scenario() -> None:
        await _with_agent(brain)
        await brain.perceive("", "isabella", T0, [Observation("the party", importance=7)])

    run(scenario())
    brain.close()
    again = make_brain(tmp_path)
    (found,) = run(again.retrieve("", "isabella", T0, "party"))
    assert found.memory.description == "the party"
