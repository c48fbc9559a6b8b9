"""The Brain facade with fakes: what it stores, what it asks the model, what it refuses."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from npc_brain.action import Line
from npc_brain.brain import Brain
from npc_brain.errors import InvalidArgument, NotFound
from npc_brain.llm.fakes import FailingChat, ScoringChat, ScriptedChat, StuckChat
from npc_brain.memory.pages import TimeRange
from npc_brain.memory.records import MemoryKind, Observation, Source, SourceKind
from npc_brain.mind.perceive import AgentTick
from npc_brain.persona import Persona, Switches
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
    assert len(ids) == 2
    found = run(brain.retrieve("", "isabella", T0, "party", k=5))  # waits for the rating
    assert len(chat.history) == 1
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
    chat = StuckChat(timeout_s=10)
    chat.enqueue({"activity": "opening the cafe", "place": "ville:cafe", "minutes": 60})
    brain = make_brain(tmp_path, chat)

    async def scenario() -> None:
        await brain.upsert_agent("", "isabella", ISABELLA, T0, Switches(planning=False))
        await brain.perceive("", "isabella", T0, [], ["ville:cafe"])
        action, pending = await brain.act("", "isabella", T0, max_wait_ms=0)
        assert pending and action.description == "idle"
        assert action.address == "ville:isabella's apartment"
        chat.release.set()
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
    brain = make_brain(tmp_path, FailingChat())

    async def scenario() -> None:
        await brain.upsert_agent("", "isabella", ISABELLA, T0, Switches(planning=False))
        action, pending = await brain.act("", "isabella", T0, max_wait_ms=5000)
        assert (action.description, pending) == ("idle", False)

    run(scenario())


def test_converse_streams_then_stores_both_lines_with_provenance(tmp_path: Path) -> None:
    chat = ScriptedChat()
    chat.enqueue(
        {"utterance": "Please come to my party!", "end_conversation": False}, {"rating": 6}
    )
    brain = make_brain(tmp_path, chat, grounded_replies=False)  # the model's reply as it is

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
    brain = make_brain(tmp_path)

    async def scenario() -> None:
        await _with_agent(brain)
        events = [e async for e in brain.converse("", "isabella", T0, "eval", "Who are you?", True)]
        final = events[-1]
        assert isinstance(final, Line) and final.text == "".join(events[:-1])  # type: ignore[arg-type]
        assert final.speaker_id == "isabella" and final.act and final.text

    run(scenario())
    assert run(brain.retrieve("", "isabella", T0, "cafe", kinds=[MemoryKind.DIALOGUE])) == []


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


def test_a_repeated_observation_at_the_same_address_is_not_stored_again(tmp_path: Path) -> None:
    brain = make_brain(tmp_path)

    async def scenario() -> tuple[list[str], list[str]]:
        await _with_agent(brain)
        first = await brain.perceive(
            "",
            "isabella",
            T0,
            [
                Observation("the stove is on", address="kitchen", importance=2),
                Observation("the stove is on", address="kitchen", importance=2),
            ],
        )
        again = await brain.perceive(
            "",
            "isabella",
            T0 + 60,
            [
                Observation("the stove is on", address="kitchen", importance=2),
                Observation("the stove is on", address="garden", importance=2),
            ],
        )
        return first, again

    first, again = run(scenario())
    assert first[0] == first[1] == again[0] != again[1]
    assert len(run(brain.list_memories("", "isabella")).memories) == 2


def test_the_same_text_is_rated_once(tmp_path: Path) -> None:
    chat = ScriptedChat(default={"rating": 4})
    brain = make_brain(tmp_path, chat)

    async def scenario() -> None:
        await _with_agent(brain)
        await brain.perceive("", "isabella", T0, [Observation("Klaus waves", address="a")])
        await brain.perceive("", "isabella", T0, [Observation("Klaus waves", address="b")])
        await brain.list_memories("", "isabella")  # both rated by now

    run(scenario())
    assert len(chat.history) == 1


def test_importance_is_the_expected_rating_when_the_model_gives_probabilities(
    tmp_path: Path,
) -> None:
    shares = [0.0] * 10
    shares[1], shares[7] = 0.5, 0.5  # ratings 2 and 8
    chat = ScoringChat(shares=shares)
    brain = make_brain(tmp_path, chat)

    async def scenario() -> str:
        await _with_agent(brain)
        (memory_id,) = await brain.perceive("", "isabella", T0, [Observation("a letter came")])
        return memory_id

    run(scenario())
    (memory,) = run(brain.list_memories("", "isabella")).memories
    assert memory.importance == 5.0


def test_authored_memories_list_in_pages_and_can_be_forgotten(tmp_path: Path) -> None:
    brain = make_brain(tmp_path)

    async def scenario() -> None:
        await _with_agent(brain)
        for i in range(5):
            await brain.add_memory(
                "",
                "isabella",
                T0 + i * 3600,
                MemoryKind.OBSERVATION,
                Observation(f"backstory {i}", importance=5, source=Source(SourceKind.AUTHOR)),
            )

    run(scenario())
    first = run(brain.list_memories("", "isabella", page_size=2))
    second = run(brain.list_memories("", "isabella", page_size=2, page_token=first.next_page_token))
    last = run(brain.list_memories("", "isabella", page_size=2, page_token=second.next_page_token))
    texts = [m.description for page in (first, second, last) for m in page.memories]
    assert texts == [f"backstory {i}" for i in range(5)] and last.next_page_token == ""
    window = run(brain.list_memories("", "isabella", created=TimeRange(T0 + 3600, T0 + 3 * 3600)))
    assert [m.description for m in window.memories] == ["backstory 1", "backstory 2"]
    victim = str(first.memories[0].memory_id)
    run(brain.forget_memory("", "isabella", victim))
    with pytest.raises(NotFound):
        run(brain.forget_memory("", "isabella", victim))
    found = run(brain.retrieve("", "isabella", T0, "backstory 0", k=10))
    assert victim not in {str(s.memory.memory_id) for s in found} and len(found) == 4
    brain.close()
    reopened = make_brain(tmp_path)
    assert len(run(reopened.retrieve("", "isabella", T0, "backstory 0", k=10))) == 4


def test_a_tick_stores_every_agents_perception_in_one_transaction(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from npc_brain.memory.store import WorldStore

    brain = make_brain(tmp_path)
    writes: list[int] = []
    add_perceptions = WorldStore.add_perceptions

    def counted(store: WorldStore, perceptions: list[object]) -> object:
        writes.append(len(perceptions))
        return add_perceptions(store, perceptions)  # type: ignore[arg-type]

    async def scenario() -> None:
        names = ("isabella", "klaus", "maria")
        for agent_id in names:
            await brain.upsert_agent("", agent_id, Persona(agent_id.title()), 0.0)
        monkeypatch.setattr(WorldStore, "add_perceptions", counted)
        ticks = [
            AgentTick(a, [Observation(f"{a} sees rain", importance=2)], ["ville:park"])
            for a in names
        ]
        results = await brain.tick("", 60.0, ticks)
        assert writes == [3]  # one write (one fsync) for the whole tick
        for agent_id, result in zip(names, results, strict=True):
            page = await brain.list_memories("", agent_id, kinds=[MemoryKind.OBSERVATION])
            assert [str(m.memory_id) for m in page.memories] == result.memory_ids
            assert page.memories[0].description == f"{agent_id} sees rain"
        again = await brain.tick("", 120.0, ticks)  # nothing new: the same ids come back
        assert [r.memory_ids for r in again] == [r.memory_ids for r in results]

    asyncio.run(scenario())
