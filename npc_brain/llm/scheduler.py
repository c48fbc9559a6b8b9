"""The cognition scheduler: a worker thread owns the chat model and serves jobs by priority
(a remote model server with N parallel slots gets N workers).

Player dialogue comes before reactions, reactions before plan decomposition, then
importance, then reflection. The queue is bounded: when it is full, a new job pushes
out the lowest-priority waiting job if it outranks it, otherwise it is refused
(ResourceExhausted). A job may carry a deadline (dropped unstarted once it passes)
and a key: a newer job with the same key supersedes a waiting older one. RPCs await
jobs only as long as their caller allows; the tick path never runs the model itself.

A player never waits behind the town: a model that can set its work aside (the embedded
llama.cpp one, see llm/llama.py) asks `pending()` between two tokens, and when a
player's line waits it calls `serve()`, which runs that job right there on the worker
thread; the interrupted job then resumes where it was. A model that runs several calls
at once (llm/batching.py) gets `urgent_workers` that take only a player's jobs, so one
is never stuck behind busy workers, and asks `urgent()` to give it the batch first.
"""

from __future__ import annotations

import asyncio
import heapq
import itertools
import logging
import os
import threading
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from enum import IntEnum
from typing import Any, ParamSpec, TypeVar

from npc_brain.errors import DeadlineExceeded, ResourceExhausted

log = logging.getLogger(__name__)
P = ParamSpec("P")
T = TypeVar("T")


class Priority(IntEnum):
    """Job priorities, most urgent first."""

    PLAYER_DIALOGUE = 0
    REACTION = 1
    PLANNING = 2
    IMPORTANCE = 3
    REFLECTION = 4


INTERRUPTING = Priority.PLAYER_DIALOGUE  # jobs this urgent run inside a less urgent one


class Superseded(Exception):
    """A newer job with the same key replaced this one before it started."""


@dataclass(order=True)
class _Job:
    priority: int
    sequence: int
    run: Callable[[], Any] = field(compare=False)
    future: asyncio.Future[Any] = field(compare=False)
    loop: asyncio.AbstractEventLoop = field(compare=False)
    deadline: float | None = field(compare=False, default=None)
    key: str | None = field(compare=False, default=None)
    done: bool = field(compare=False, default=False)


class Scheduler:
    """A bounded priority queue served by `workers` threads (one for the embedded model;
    a remote model server with parallel slots gets as many): each takes the most
    urgent waiting job when it is free. With `nice` above 0 the workers (and the threads
    a model starts from them, which inherit it) run below normal priority, so the tick
    path and the game get a core first while the model thinks (Unix only)."""

    def __init__(
        self,
        name: str = "cognition",
        capacity: int = 256,
        workers: int = 1,
        nice: int = 0,
        urgent_workers: int = 0,
    ) -> None:
        if workers < 1 or urgent_workers < 0:
            raise ValueError(f"workers must be at least 1 (urgent ones 0), not {workers}")
        self.capacity = capacity
        self.dropped: Counter[str] = Counter()  # why jobs were not run
        self._heap: list[_Job] = []
        self._by_key: dict[str, _Job] = {}
        self._waiting = 0
        self._sequence = itertools.count()
        self._lock = threading.Condition()
        self._closed = False
        self._nice = nice
        self._running = threading.local()  # .priority: the job of this worker thread
        self._threads = [
            threading.Thread(
                target=self._serve, args=(i >= workers,), name=f"{name}-{i}", daemon=True
            )
            for i in range(workers + urgent_workers)
        ]
        for thread in self._threads:
            thread.start()

    @property
    def waiting(self) -> int:
        """Jobs queued and not started."""
        return self._waiting

    async def run(
        self,
        priority: Priority,
        fn: Callable[P, T],
        *args: P.args,
        **kwargs: P.kwargs,
    ) -> T:
        """Runs fn(*args, **kwargs) on the worker thread (no deadline, no key)."""
        return await self.submit(priority, lambda: fn(*args, **kwargs))

    async def submit(
        self,
        priority: Priority,
        run: Callable[[], T],
        *,
        deadline_s: float | None = None,
        key: str | None = None,
    ) -> T:
        """Queues a job and waits for its result.

        deadline_s: seconds from now after which the job is dropped if not started.
        key: a newer job with the same key supersedes this one while it waits.
        """
        loop = asyncio.get_running_loop()
        future: asyncio.Future[T] = loop.create_future()
        deadline = None if deadline_s is None else time.monotonic() + deadline_s
        job = _Job(int(priority), next(self._sequence), run, future, loop, deadline, key)
        with self._lock:
            if self._closed:
                raise ResourceExhausted("the server is shutting down")
            if key is not None and (older := self._by_key.get(key)) is not None:
                self._discard(older, Superseded(f"superseded by a newer {key} job"), "superseded")
            if self._waiting >= self.capacity:
                self._make_room(job)
            heapq.heappush(self._heap, job)
            self._waiting += 1
            if key is not None:
                self._by_key[key] = job
            self._lock.notify_all()  # urgent workers only take some jobs
        return await future

    def close(self) -> None:
        """Refuses new jobs, fails waiting ones, and stops the workers after their jobs."""
        with self._lock:
            self._closed = True
            for job in self._heap:
                self._discard(job, ResourceExhausted("the server is shutting down"), "shutdown")
            self._lock.notify_all()
        for thread in self._threads:
            thread.join(timeout=60)

    def _make_room(self, incoming: _Job) -> None:
        live = [j for j in self._heap if not j.done]
        lowest = max(live, default=None)  # the least urgent, newest job
        if lowest is None or lowest.priority <= incoming.priority:
            self.dropped["refused"] += 1
            raise ResourceExhausted(
                f"the cognition queue is full ({self.capacity} jobs); retry in a moment"
            )
        self._discard(lowest, ResourceExhausted("pushed out of a full cognition queue"), "evicted")

    def _discard(self, job: _Job, error: Exception, reason: str) -> None:
        """Marks a waiting job done with an error (it stays in the heap, skipped later)."""
        if job.done:
            return
        job.done = True
        self._waiting -= 1
        self.dropped[reason] += 1
        if job.key is not None and self._by_key.get(job.key) is job:
            del self._by_key[job.key]
        _settle(job, _fail, error)

    def pending(self) -> bool:
        """Whether a job waits that may interrupt the job of the calling worker thread
        (cheap and lock-free: asked between two tokens)."""
        current = getattr(self._running, "priority", None)
        heap = self._heap
        return (
            current is not None
            and current > INTERRUPTING
            and bool(heap)
            and (heap[0].priority <= INTERRUPTING)
        )

    def urgent(self) -> bool:
        """Whether the calling worker thread runs a job as urgent as a player's line."""
        current = getattr(self._running, "priority", None)
        return current is not None and current <= INTERRUPTING

    def serve(self) -> None:
        """Runs the waiting jobs that may interrupt the calling worker thread's job, now,
        on this thread; returns when none is left."""
        if not self.pending():
            return
        while (job := self._take(wait=False)) is not None:
            self._execute(job)

    def _serve(self, urgent_only: bool) -> None:
        lower_priority(self._nice)
        while (job := self._take(wait=True, urgent_only=urgent_only)) is not None:
            self._execute(job)

    def _take(self, *, wait: bool, urgent_only: bool = False) -> _Job | None:
        """The most urgent live job, removed from the queue. wait: block for one (None
        once closed and empty); else only a job that may interrupt, or None.
        urgent_only: only a job that may interrupt, waited for."""
        with self._lock:
            while True:
                while (
                    wait
                    and not self._closed
                    and (not self._heap or (urgent_only and not self._urgent_first()))
                ):
                    self._lock.wait()
                if not self._heap or (not wait and not self._urgent_first()):
                    return None
                if urgent_only and not self._urgent_first():
                    return None  # closed
                job = heapq.heappop(self._heap)
                if job.done:
                    continue
                job.done = True
                self._waiting -= 1
                if job.key is not None and self._by_key.get(job.key) is job:
                    del self._by_key[job.key]
                return job

    def _urgent_first(self) -> bool:
        return bool(self._heap) and self._heap[0].priority <= INTERRUPTING

    def _execute(self, job: _Job) -> None:
        if job.future.cancelled():
            return
        if job.deadline is not None and time.monotonic() > job.deadline:
            self.dropped["deadline"] += 1
            _settle(job, _fail, DeadlineExceeded("the job's deadline passed in the queue"))
            return
        outer = getattr(self._running, "priority", None)
        self._running.priority = job.priority
        try:
            result = job.run()
        except BaseException as error:  # noqa: BLE001 - handed to the waiting coroutine
            _settle(job, _fail, error)
        else:
            _settle(job, _succeed, result)
        finally:
            self._running.priority = outer


def _settle(job: _Job, settle: Callable[[asyncio.Future[Any], Any], None], value: Any) -> None:
    """Hands a job's outcome to its coroutine's loop; a loop that closed meanwhile has
    no one waiting (the worker thread must live on for the other loops' jobs)."""
    try:
        job.loop.call_soon_threadsafe(settle, job.future, value)
    except RuntimeError:  # "Event loop is closed"
        log.debug("a job ended after its event loop closed; its outcome is dropped")


def _succeed(future: asyncio.Future[Any], result: Any) -> None:
    if not future.done():
        future.set_result(result)


def _fail(future: asyncio.Future[Any], error: BaseException) -> None:
    if not future.done():
        future.set_exception(error)


def lower_priority(nice: int) -> None:
    """Raises this thread's niceness to `nice` (never lowers it: that needs privileges)."""
    if not hasattr(os, "setpriority"):
        return
    thread = threading.get_native_id()
    if nice > os.getpriority(os.PRIO_PROCESS, thread):
        os.setpriority(os.PRIO_PROCESS, thread, nice)
