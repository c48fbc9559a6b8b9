"""Several model calls at once for a remote server with parallel slots; one at a time
for the embedded model."""

from __future__ import annotations

import asyncio
import threading
from pathlib import Path

import pytest

from npc_brain.config import Settings
from npc_brain.llm.backends import chat_workers
from npc_brain.llm.base import Interrupts
from npc_brain.llm.fakes import HashingEmbedder, ScriptedChat
from npc_brain.llm.scheduler import Priority, Scheduler
from npc_brain.mind.faculties import Faculties
from tests.conftest import make_brain


def _meet(barrier: threading.Barrier) -> str:
    barrier.wait()
    return "met"


@pytest.mark.parametrize("workers", [2, 3])
def test_workers_run_that_many_jobs_at_once(workers: int) -> None:
    async def scenario() -> list[str]:
        scheduler = Scheduler(capacity=10, workers=workers)
        barrier = threading.Barrier(workers, timeout=5)  # breaks unless all run together
        try:
            return await asyncio.gather(
                *(scheduler.run(Priority.PLANNING, _meet, barrier) for _ in range(workers))
            )
        finally:
            scheduler.close()

    assert asyncio.run(scenario()) == ["met"] * workers


def test_one_worker_runs_one_job_at_a_time() -> None:
    async def scenario() -> None:
        scheduler = Scheduler(capacity=10, workers=1)
        barrier = threading.Barrier(2, timeout=0.3)
        try:
            with pytest.raises(threading.BrokenBarrierError):
                await asyncio.gather(
                    *(scheduler.run(Priority.PLANNING, _meet, barrier) for _ in range(2))
                )
        finally:
            scheduler.close()

    asyncio.run(scenario())


def test_free_workers_still_take_the_most_urgent_job_first() -> None:
    async def scenario() -> list[str]:
        scheduler = Scheduler(capacity=10, workers=2)
        gate = threading.Event()
        started = threading.Barrier(3, timeout=5)

        def hold() -> None:
            started.wait()
            gate.wait(5)

        blockers = [asyncio.create_task(scheduler.run(Priority.REFLECTION, hold)) for _ in "ab"]
        await asyncio.to_thread(started.wait)  # both workers are busy now
        order: list[str] = []
        jobs = [
            asyncio.create_task(scheduler.run(priority, order.append, priority.name))
            for priority in (Priority.REFLECTION, Priority.PLAYER_DIALOGUE, Priority.REACTION)
        ]
        await asyncio.sleep(0.05)
        assert order == []
        gate.set()
        await asyncio.gather(*blockers, *jobs)
        scheduler.close()
        return order

    order = asyncio.run(scenario())
    # two workers start the two most urgent at once; the least urgent comes last
    assert set(order[:2]) == {"PLAYER_DIALOGUE", "REACTION"} and order[2] == "REFLECTION"


def test_a_scheduler_needs_a_worker() -> None:
    with pytest.raises(ValueError, match="at least 1"):
        Scheduler(workers=0)


def test_chat_concurrency_applies_to_a_remote_server_only(tmp_path: Path) -> None:
    assert chat_workers(Settings(chat_concurrency=4)) == (1, 0)
    assert chat_workers(Settings(chat_concurrency=4, chat_url="http://127.0.0.1:1/v1")) == (4, 0)
    assert chat_workers(Settings(chat_slots=4)) == (3, 1)  # one kept for a player's line
    assert chat_workers(Settings(chat_slots=4, player_first=False)) == (4, 0)
    brain = make_brain(tmp_path, chat_concurrency=3, chat_url="http://127.0.0.1:1/v1")
    try:
        assert len(brain._minds.faculties.scheduler._threads) == 3  # noqa: SLF001 - the workers under test
    finally:
        brain.close()


class _InterruptibleChat(ScriptedChat):
    interrupts: Interrupts | None = None


@pytest.mark.parametrize("player_first", [True, False])
def test_the_embedded_model_lets_player_lines_interrupt_unless_turned_off(
    player_first: bool,
) -> None:
    chat = _InterruptibleChat()
    faculties = Faculties(chat, HashingEmbedder(), Settings(player_first=player_first))
    try:
        assert (chat.interrupts is faculties.scheduler) is player_first
    finally:
        faculties.close()
