"""Importance estimators inside the Brain (fakes): model calls, overrides, per-world and
per-agent choice, explanations, and the reflection trigger fed by the estimates."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from npc_brain.brain import Brain
from npc_brain.config import Settings
from npc_brain.importance.anchors import shipped_anchors
from npc_brain.importance.knn import AnchorEstimator
from npc_brain.importance.prompted import IMPORTANCE_SCHEMA
from npc_brain.llm.fakes import HashingEmbedder, ScriptedChat
from npc_brain.memory.records import Observation
from npc_brain.persona import Persona, Switches
from tests.conftest import make_brain

T0 = 1_676_365_200.0
DEFAULT = Settings().importance_estimator
TEXTS = ["her mother passed away this morning", "she is brushing her teeth", "a party is planned"]
QUIET = Switches(reflection=False, planning=False)


def run(coro):  # type: ignore[no-untyped-def]
    return asyncio.run(coro)


async def _agents(brain: Brain, *ids: str, world: str = "", switches: Switches = QUIET) -> None:
    for agent_id in ids:
        await brain.upsert_agent(world, agent_id, Persona(agent_id.title()), T0, switches)


def _importance_calls(chat: ScriptedChat) -> int:
    return sum(call.schema == IMPORTANCE_SCHEMA for call in chat.history)


def test_the_default_estimator_is_the_anchors_and_asks_the_model_nothing(tmp_path: Path) -> None:
    assert DEFAULT == "anchors"  # measured: python -m bench.importance (README "Importance")
    chat = ScriptedChat(default={"rating": 9})
    brain = make_brain(tmp_path, chat, importance_estimator=DEFAULT)

    async def scenario() -> None:
        await _agents(brain, "isabella")
        observations = [Observation(t) for t in TEXTS] + [Observation("a cat", importance=7)]
        await brain.perceive("", "isabella", T0, observations)

    run(scenario())
    stored = {
        m.description: m.importance for m in run(brain.list_memories("", "isabella")).memories
    }
    expected = AnchorEstimator(shipped_anchors(), HashingEmbedder()).estimate(TEXTS, None, "x")
    assert stored == {**{t: e.value for t, e in zip(TEXTS, expected, strict=True)}, "a cat": 7.0}
    assert all(1.0 <= value <= 10.0 for value in stored.values())
    assert _importance_calls(chat) == 0
    assert "importance" not in brain.usage.summary("default", "isabella").calls_by_kind


def test_estimators_are_chosen_per_world_and_per_agent(tmp_path: Path) -> None:
    chat = ScriptedChat(default={"rating": 9})
    brain = make_brain(
        tmp_path,
        chat,
        importance_estimator="anchors",
        importance_estimator_overrides="dungeon=model, default/klaus=blend",
    )

    async def scenario() -> None:
        await _agents(brain, "isabella", "klaus")
        await _agents(brain, "isabella", world="dungeon")
        for world, agent in [("", "isabella"), ("", "klaus"), ("dungeon", "isabella")]:
            await brain.perceive(world, agent, T0, [Observation("a letter came")])
            await brain.list_memories(world, agent)  # rated once listed

    run(scenario())
    calls = {
        (world, agent): brain.usage.summary(world, agent).calls_by_kind.get("importance", 0)
        for world, agent in [("default", "isabella"), ("default", "klaus"), ("dungeon", "isabella")]
    }
    assert calls == {
        ("default", "isabella"): 0,
        ("default", "klaus"): 1,
        ("dungeon", "isabella"): 1,
    }
    dungeon = run(brain.list_memories("dungeon", "isabella")).memories
    assert [m.importance for m in dungeon] == [9.0]


def test_an_override_on_the_observation_wins_over_every_estimator(tmp_path: Path) -> None:
    for estimator in ("anchors", "model", "blend"):
        chat = ScriptedChat(default={"rating": 9})
        brain = make_brain(tmp_path / estimator, chat, importance_estimator=estimator)

        async def scenario(brain: Brain = brain) -> None:
            await _agents(brain, "isabella")
            await brain.perceive("", "isabella", T0, [Observation(TEXTS[0], importance=2)])

        run(scenario())
        (memory,) = run(brain.list_memories("", "isabella")).memories
        assert memory.importance == 2.0 and chat.history == []


def test_the_anchors_that_decided_a_rating_are_kept_for_explanation(tmp_path: Path) -> None:
    brain = make_brain(tmp_path, importance_estimator="anchors")

    async def scenario() -> None:
        await _agents(brain, "isabella")
        await brain.perceive("", "isabella", T0, [Observation(TEXTS[0])])
        await brain.list_memories("", "isabella")  # rated once listed

    run(scenario())
    world, agent = brain._agent("", "isabella")  # noqa: SLF001 - no RPC exposes it (yet)
    estimate = brain._minds.faculties.importance_explanation(world, agent, TEXTS[0])  # noqa: SLF001
    assert estimate is not None and estimate.neighbours[0].text == TEXTS[0]
    assert estimate.neighbours[0].rating == 10 and estimate.completion is None


@pytest.mark.parametrize("estimator", ["anchors", "model", "blend"])
def test_the_reflection_threshold_sums_the_estimates(tmp_path: Path, estimator: str) -> None:
    """Each estimator's ratings feed the paper's trigger: just under it, no reflection;
    the same memories with the threshold just below their sum, a reflection."""
    reflected = {}
    for name, margin in (("under", 0.5), ("over", -0.5)):
        probe = make_brain(tmp_path / f"probe-{name}", importance_estimator=estimator)
        run(_agents(probe, "isabella"))
        run(probe.perceive("", "isabella", T0, [Observation(t) for t in TEXTS]))
        memories = run(probe.list_memories("", "isabella")).memories  # rated once listed
        world, _ = probe._agent("", "isabella")  # noqa: SLF001
        total = world.stream("isabella").importance_since_reflection
        assert total == pytest.approx(sum(m.importance for m in memories))
        assert all(1.0 <= m.importance <= 10.0 for m in memories)
        probe.close()

        brain = make_brain(
            tmp_path / name, importance_estimator=estimator, reflection_threshold=total + margin
        )

        async def scenario(brain: Brain = brain, margin: float = margin) -> bool:
            await _agents(brain, "isabella", switches=Switches(reflection=True, planning=False))
            await brain.perceive("", "isabella", T0, [Observation(t) for t in TEXTS])
            await brain.list_memories("", "isabella")  # in the stream once listed
            world, _ = brain._agent("", "isabella")  # noqa: SLF001
            for _ in range(20 if margin > 0 else 500):  # a trigger fires at once
                await asyncio.sleep(0.01)
                if world.stream("isabella").importance_since_reflection == 0:  # reflected
                    return True
            return False

        reflected[name] = run(scenario())
        brain.close()
    assert reflected == {"under": False, "over": True}
