"""Perceive answers once its memories are durable; their embeddings follow (World's
backlog, Faculties.catch_up), and nothing acknowledged is missing from retrieval or lost
in a crash."""

from __future__ import annotations

import asyncio
from pathlib import Path

import numpy as np

from npc_brain.brain import Brain
from npc_brain.llm.fakes import GatedEmbedder, HashingEmbedder, ScriptedChat
from npc_brain.memory.records import UNRATED, MemoryKind, Observation
from npc_brain.persona import Persona
from tests.conftest import make_brain

T0 = 1_676_365_200.0


async def _isabella(brain: Brain) -> None:
    await brain.upsert_agent("", "isabella", Persona("Isabella Rodriguez"), T0)


def test_an_acknowledged_perception_is_retrieved_while_its_embedding_is_slow(
    tmp_path: Path,
) -> None:
    embedder = GatedEmbedder()
    chat = ScriptedChat(default={"rating": 6})
    brain = make_brain(tmp_path, chat, embedder)

    async def scenario() -> None:
        await _isabella(brain)
        (memory_id,) = await brain.perceive("", "isabella", T0, [Observation("a fire at the cafe")])
        assert not embedder.gate.is_set()  # answered before the embedding
        await asyncio.to_thread(embedder.started.wait, 10)  # embedding in the background
        retrieving = asyncio.create_task(brain.retrieve("", "isabella", T0, "fire cafe"))
        await asyncio.sleep(0.2)
        assert not retrieving.done()  # retrieval waits for the acknowledged memory
        embedder.gate.set()
        (found,) = await asyncio.wait_for(retrieving, 10)
        assert str(found.memory.memory_id) == memory_id
        assert found.memory.importance == 6.0  # rated by now, as the store holds it
        world, _ = brain._agent("", "isabella")  # noqa: SLF001
        assert world.store.unembedded("isabella") == set()
        assert [m.importance for m in (await brain.list_memories("", "isabella")).memories] == [6.0]

    try:
        asyncio.run(scenario())
    finally:
        embedder.gate.set()
    brain.close()


def test_memories_join_the_stream_in_the_order_they_were_stored(tmp_path: Path) -> None:
    embedder = GatedEmbedder()
    embedder.gate.set()
    brain = make_brain(tmp_path, embedder=embedder, reflection_threshold=1000.0)

    async def scenario() -> list[str]:
        await _isabella(brain)
        await brain.retrieve("", "isabella", T0, "Klaus is at the bar")  # the text is known
        embedder.gate.clear()
        await brain.perceive("", "isabella", T0, [Observation("the bell rings", importance=2)])
        await asyncio.to_thread(embedder.started.wait, 10)
        world, _ = brain._agent("", "isabella")  # noqa: SLF001
        # Stored complete, behind the memory still waiting for its embedding.
        await brain.add_memory(
            "", "isabella", T0 + 1, MemoryKind.OBSERVATION, Observation("Klaus is at the bar")
        )
        assert world.backlogged("isabella") and len(world.stream("isabella")) == 0
        assert [m.description for m in world.recent("isabella", 5)] == [
            "the bell rings",
            "Klaus is at the bar",
        ]
        embedder.gate.set()
        found = await brain.retrieve("", "isabella", T0 + 2, "bell", k=5)
        assert len(found) == 2
        return [r.description for r in world.stream("isabella").records]

    try:
        order = asyncio.run(scenario())
    finally:
        embedder.gate.set()
    assert order == ["the bell rings", "Klaus is at the bar"]
    brain.close()


def test_a_perception_survives_a_crash_between_the_write_and_the_embedding(
    tmp_path: Path,
) -> None:
    embedder = GatedEmbedder()
    crashed = make_brain(tmp_path, embedder=embedder)

    async def before_the_crash() -> list[str]:
        await _isabella(crashed)
        ids = await crashed.perceive(
            "",
            "isabella",
            T0,
            [Observation("the mayor resigned"), Observation("rain again", importance=3)],
        )
        await asyncio.to_thread(embedder.started.wait, 10)
        return ids  # the loop ends here: the embedding never finishes

    try:
        ids = asyncio.run(before_the_crash())
        world, _ = crashed._agent("", "isabella")  # noqa: SLF001
        assert world.store.unembedded("isabella") == {int(i) for i in ids}
        rows, _ = world.store.load_memories("isabella", embedder.dimension)
        assert [r.importance for r in rows] == [UNRATED, 3.0]
    finally:
        embedder.gate.set()  # the crashed brain is never closed (nor written again)

    chat = ScriptedChat(default={"rating": 8})
    again = make_brain(tmp_path, chat)
    found = asyncio.run(again.retrieve("", "isabella", T0, "mayor resigned", k=5))
    assert {str(s.memory.memory_id): s.memory.importance for s in found} == {
        ids[0]: 8.0,
        ids[1]: 3.0,
    }
    world, _ = again._agent("", "isabella")  # noqa: SLF001
    assert world.store.unembedded("isabella") == set()
    _, vectors = world.store.load_memories("isabella", embedder.dimension)
    expected = HashingEmbedder().embed(["the mayor resigned", "rain again"])
    np.testing.assert_allclose(vectors, expected, atol=1e-6)
    assert len(world.stream("isabella")) == 2
    again.close()


def test_known_texts_are_stored_complete_and_waiting_is_a_setting(tmp_path: Path) -> None:
    embedder = GatedEmbedder()
    embedder.gate.set()
    brain = make_brain(tmp_path / "later", embedder=embedder)
    waiting = make_brain(tmp_path / "waits", embedder=GatedEmbedder(), wait_for_embedding=True)

    async def scenario() -> None:
        await _isabella(brain)
        await brain.perceive("", "isabella", T0, [Observation("the bell rings", importance=2)])
        await brain.list_memories("", "isabella")  # embedded and cached by now
        world, _ = brain._agent("", "isabella")  # noqa: SLF001
        again = Observation("the bell rings", address="the tower", importance=2)
        await brain.perceive("", "isabella", T0 + 1, [again])
        assert not world.backlogged("isabella")  # the cache knew it: stored complete
        assert len(world.stream("isabella")) == 2

        await _isabella(waiting)
        gated = waiting._minds.faculties.embedder  # noqa: SLF001
        assert isinstance(gated, GatedEmbedder)
        perceiving = asyncio.create_task(
            waiting.perceive("", "isabella", T0, [Observation("a cat", importance=2)])
        )
        await asyncio.sleep(0.2)
        assert not perceiving.done()  # wait_for_embedding: answers after it
        gated.gate.set()
        await asyncio.wait_for(perceiving, 10)
        world, _ = waiting._agent("", "isabella")  # noqa: SLF001
        assert not world.backlogged() and world.store.unembedded("isabella") == set()

    asyncio.run(scenario())
    brain.close()
    waiting.close()
