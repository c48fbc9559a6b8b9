"""The cognition scheduler: priorities, a bounded queue, superseded jobs, deadlines."""

from __future__ import annotations

import asyncio
import os
import threading

import pytest

from npc_brain.errors import DeadlineExceeded, ResourceExhausted
from npc_brain.llm.scheduler import Priority, Scheduler, Superseded


async def _blocked(scheduler: Scheduler) -> tuple[threading.Event, asyncio.Task[None]]:
    """Occupies the worker until the returned gate is set."""
    gate, started = threading.Event(), threading.Event()

    def hold() -> None:
        started.set()
        gate.wait(10)

    task = asyncio.create_task(scheduler.run(Priority.REFLECTION, hold))
    while not started.is_set():
        await asyncio.sleep(0.001)
    return gate, task


def test_waiting_jobs_run_most_urgent_first() -> None:
    async def scenario() -> list[str]:
        scheduler = Scheduler(capacity=10)
        order: list[str] = []
        gate, blocker = await _blocked(scheduler)
        jobs = [
            asyncio.create_task(scheduler.run(priority, order.append, priority.name))
            for priority in (
                Priority.REFLECTION,
                Priority.IMPORTANCE,
                Priority.PLAYER_DIALOGUE,
                Priority.PLANNING,
                Priority.REACTION,
            )
        ]
        await asyncio.sleep(0.01)
        gate.set()
        await asyncio.gather(blocker, *jobs)
        scheduler.close()
        return order

    assert asyncio.run(scenario()) == [
        "PLAYER_DIALOGUE",
        "REACTION",
        "PLANNING",
        "IMPORTANCE",
        "REFLECTION",
    ]


def test_a_full_queue_pushes_out_the_least_urgent_or_refuses() -> None:
    async def scenario() -> None:
        scheduler = Scheduler(capacity=2)
        gate, blocker = await _blocked(scheduler)
        low = asyncio.create_task(scheduler.run(Priority.REFLECTION, lambda: "low"))
        mid = asyncio.create_task(scheduler.run(Priority.IMPORTANCE, lambda: "mid"))
        await asyncio.sleep(0.01)
        urgent = asyncio.create_task(scheduler.run(Priority.PLAYER_DIALOGUE, lambda: "urgent"))
        await asyncio.sleep(0.01)
        with pytest.raises(ResourceExhausted, match="queue is full"):
            await scheduler.run(Priority.REFLECTION, lambda: "refused")
        gate.set()
        await blocker
        with pytest.raises(ResourceExhausted, match="pushed out"):
            await low
        assert (await mid, await urgent) == ("mid", "urgent")
        assert scheduler.dropped == {"evicted": 1, "refused": 1}
        scheduler.close()

    asyncio.run(scenario())


def test_a_newer_job_with_the_same_key_supersedes_the_waiting_one() -> None:
    async def scenario() -> None:
        scheduler = Scheduler()
        gate, blocker = await _blocked(scheduler)
        old = asyncio.create_task(scheduler.submit(Priority.PLANNING, lambda: "old", key="plan:a"))
        await asyncio.sleep(0.01)
        new = asyncio.create_task(scheduler.submit(Priority.REACTION, lambda: "new", key="plan:a"))
        await asyncio.sleep(0.01)
        gate.set()
        await blocker
        with pytest.raises(Superseded):
            await old
        assert await new == "new"
        scheduler.close()

    asyncio.run(scenario())


def test_a_job_past_its_deadline_is_dropped_unstarted() -> None:
    async def scenario() -> None:
        scheduler = Scheduler()
        gate, blocker = await _blocked(scheduler)
        ran: list[bool] = []
        late = asyncio.create_task(
            scheduler.submit(Priority.PLANNING, lambda: ran.append(True), deadline_s=0.01)
        )
        await asyncio.sleep(0.05)
        gate.set()
        await blocker
        with pytest.raises(DeadlineExceeded):
            await late
        assert ran == [] and scheduler.dropped["deadline"] == 1
        scheduler.close()

    asyncio.run(scenario())


def test_errors_of_a_job_reach_its_caller_and_the_worker_goes_on() -> None:
    async def scenario() -> str:
        scheduler = Scheduler()

        def broken() -> str:
            raise ValueError("bad")

        with pytest.raises(ValueError, match="bad"):
            await scheduler.run(Priority.IMPORTANCE, broken)
        result = await scheduler.run(Priority.IMPORTANCE, lambda: "fine")
        scheduler.close()
        return result

    assert asyncio.run(scenario()) == "fine"


@pytest.mark.skipif(not hasattr(os, "getpriority"), reason="niceness is a Unix notion")
def test_workers_run_at_the_niceness_asked_and_threads_they_start_inherit_it() -> None:
    base = os.getpriority(os.PRIO_PROCESS, threading.get_native_id())
    wanted = min(19, base + 5)

    def niceness_of_worker_and_its_child() -> tuple[int, int]:
        child: list[int] = []
        thread = threading.Thread(
            target=lambda: child.append(os.getpriority(os.PRIO_PROCESS, threading.get_native_id()))
        )
        thread.start()
        thread.join()
        return os.getpriority(os.PRIO_PROCESS, threading.get_native_id()), child[0]

    async def scenario() -> tuple[int, int]:
        scheduler = Scheduler(nice=wanted)
        niceness = await scheduler.run(Priority.IMPORTANCE, niceness_of_worker_and_its_child)
        scheduler.close()
        return niceness

    assert asyncio.run(scenario()) == (wanted, wanted)
    assert os.getpriority(os.PRIO_PROCESS, threading.get_native_id()) == base  # only workers


def _stepping(scheduler: Scheduler, log: list[str], name: str, steps: int) -> object:
    """A job that, like the embedded model between two tokens, lets urgent jobs in."""

    def run() -> str:
        for step in range(steps):
            log.append(f"{name} {step}")
            scheduler.serve()
        return name

    return run


def test_a_player_job_runs_inside_a_running_job_which_then_resumes() -> None:
    async def scenario() -> list[str]:
        scheduler = Scheduler(capacity=10)
        log: list[str] = []
        started, gate = threading.Event(), threading.Event()

        def background() -> str:
            log.append("plan 0")
            started.set()
            gate.wait(10)
            for step in range(1, 4):
                scheduler.serve()
                log.append(f"plan {step}")
            return "plan"

        plan = asyncio.create_task(scheduler.run(Priority.PLANNING, background))
        await asyncio.to_thread(started.wait, 10)
        reaction = asyncio.create_task(scheduler.run(Priority.REACTION, log.append, "reaction"))
        player = asyncio.create_task(
            scheduler.run(Priority.PLAYER_DIALOGUE, _stepping(scheduler, log, "player", 2))
        )
        await asyncio.sleep(0.01)
        gate.set()
        assert await asyncio.gather(plan, player, reaction) == ["plan", "player", None]
        scheduler.close()
        return log

    # The player's job runs at the plan's next chance, and is not itself interrupted;
    # a reaction (not a player's line) waits for the plan to end.
    assert asyncio.run(scenario()) == [
        "plan 0",
        "player 0",
        "player 1",
        "plan 1",
        "plan 2",
        "plan 3",
        "reaction",
    ]


def test_serve_skips_a_player_job_cancelled_while_it_waited() -> None:
    async def scenario() -> list[object]:
        scheduler = Scheduler(capacity=10)
        assert not scheduler.pending()  # outside a job nothing may interrupt
        started, cancelled = threading.Event(), threading.Event()
        seen: list[object] = []

        def background() -> None:
            started.set()
            cancelled.wait(10)
            seen.append(scheduler.pending())
            scheduler.serve()
            seen.append(scheduler.pending())

        job = asyncio.create_task(scheduler.run(Priority.REFLECTION, background))
        await asyncio.to_thread(started.wait, 10)
        player = asyncio.create_task(scheduler.run(Priority.PLAYER_DIALOGUE, seen.append, "ran"))
        await asyncio.sleep(0.01)
        player.cancel()
        await asyncio.sleep(0.01)
        cancelled.set()
        await job
        scheduler.close()
        return seen

    assert asyncio.run(scenario()) == [True, False]  # taken from the queue, never run


def test_an_urgent_worker_takes_a_players_job_while_the_others_are_busy() -> None:
    async def scenario() -> None:
        scheduler = Scheduler(capacity=10, workers=1, urgent_workers=1)
        gate, blocker = await _blocked(scheduler)  # the one general worker is busy
        urgency: list[bool] = []
        background = asyncio.create_task(scheduler.run(Priority.PLANNING, lambda: None))
        player = scheduler.run(Priority.PLAYER_DIALOGUE, lambda: urgency.append(scheduler.urgent()))
        await asyncio.wait_for(player, 5)  # served beside the busy worker
        await asyncio.sleep(0.05)
        assert not background.done()  # the urgent worker never takes the town's jobs
        assert urgency == [True] and not scheduler.urgent()
        gate.set()
        await asyncio.gather(blocker, background)
        scheduler.close()

    asyncio.run(scenario())


def test_a_job_outliving_its_event_loop_leaves_the_worker_serving_the_next() -> None:
    """A job still running when its caller's loop closed killed the worker thread
    ("Event loop is closed", seen in CI's warnings), so every later job waited forever."""
    scheduler = Scheduler(capacity=10)
    gate = threading.Event()

    async def abandon() -> None:
        started = threading.Event()

        def hold() -> str:
            started.set()
            gate.wait(10)
            return "late"

        asyncio.ensure_future(scheduler.run(Priority.REFLECTION, hold))
        while not started.is_set():
            await asyncio.sleep(0.001)

    asyncio.run(abandon())  # the loop closes while the job holds the worker
    gate.set()

    async def next_job() -> str:
        return await asyncio.wait_for(scheduler.run(Priority.REACTION, lambda: "next"), 5)

    try:
        assert asyncio.run(next_job()) == "next"
    finally:
        scheduler.close()
